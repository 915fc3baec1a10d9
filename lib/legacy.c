#include "np/legacy.h"

#include <byteswap.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "np/be.h"
#include "np/err.h"
#include "np/module.h"

/* Byte offsets of the raw tails: after the header and the converted ints. */
#define REQ_TAIL (8 + 38 * 4)
#define RSP_TAIL (8 + 18 * 4)
#define RES_TAIL (8 + 27 * 4)

/* A walk over the converted ints of one message, header included. */
struct words {
	unsigned char *w;	/* writing, or NULL */
	const unsigned char *r; /* reading, or NULL */
	size_t off;
};

static uint32_t
next_u(struct words *c)
{
	uint32_t v = be32_get(c->r + c->off);

	c->off += 4;
	return v;
}

static int32_t
next_i(struct words *c)
{
	return (int32_t)next_u(c);
}

/* A float is its bit pattern, converted as an int. */
static float
next_f(struct words *c)
{
	uint32_t v = next_u(c);
	float f;

	memcpy(&f, &v, sizeof(f));
	return f;
}

static void
put_u(struct words *c, uint32_t v)
{
	be32_put(c->w + c->off, v);
	c->off += 4;
}

static void
put_i(struct words *c, int32_t v)
{
	put_u(c, (uint32_t)v);
}

static void
put_f(struct words *c, float f)
{
	uint32_t v;

	memcpy(&v, &f, sizeof(v));
	put_u(c, v);
}

/*
 * Copies a raw char field of n bytes into dst (n bytes). Strict: the field
 * must hold its terminating NUL, else -1 with err naming it. Lenient (what
 * a server says of itself): the last byte is forced to NUL.
 */
static int
take_str(char *dst, const unsigned char *src, size_t n, int strict,
	 const char *name, char *err)
{
	size_t len = strnlen((const char *)src, n);

	if (strict && len == n)
		return err_set(err, "%s does not end inside its %zu bytes",
			       name, n);
	if (len == n)
		len = n - 1;
	/* Nothing after the end is kept, so a decoded field is its text. */
	memset(dst, 0, n);
	memcpy(dst, src, len);
	return 0;
}

/* Writes a string into a raw field of n bytes, always NUL-terminated. */
static void
give_str(unsigned char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

int
legacy_header_decode(const unsigned char *buf, size_t len,
		     struct legacy_header *h, char *err)
{
	if (len != LEGACY_MSG_LEN)
		return err_set(err, "a 2.7 message is %d bytes, not %zu",
			       LEGACY_MSG_LEN, len);
	h->type = (int32_t)be32_get(buf);
	h->word = (int32_t)be32_get(buf + 4);
	return 0;
}

void
legacy_request_encode(const struct legacy_omni_request *r, int32_t cpu,
		      unsigned char buf[LEGACY_MSG_LEN])
{
	struct words c = {buf, NULL, 0};
	int i;

	memset(buf, 0, LEGACY_MSG_LEN);
	put_i(&c, LEGACY_DO_OMNI);
	put_i(&c, cpu);
	put_i(&c, r->send_buf_size);
	put_i(&c, r->send_size);
	put_u(&c, r->send_alignment);
	put_u(&c, r->send_offset);
	put_u(&c, r->send_width);
	put_i(&c, r->request_size);
	put_i(&c, r->recv_buf_size);
	put_i(&c, r->receive_size);
	put_u(&c, r->recv_alignment);
	put_u(&c, r->recv_offset);
	put_u(&c, r->recv_width);
	put_i(&c, r->response_size);
	put_u(&c, r->flags);
	put_f(&c, r->cpu_rate);
	put_i(&c, r->test_length);
	put_u(&c, r->so_rcvavoid);
	put_u(&c, r->so_sndavoid);
	put_i(&c, r->send_dirty_count);
	put_i(&c, r->recv_dirty_count);
	put_i(&c, r->recv_clean_count);
	put_u(&c, r->data_port);
	put_u(&c, r->ipfamily);
	put_u(&c, r->socket_type);
	put_u(&c, r->protocol);
	put_u(&c, r->direction);
	put_u(&c, r->netperf_port);
	put_u(&c, r->interval_burst);
	put_u(&c, r->interval_usecs);
	for (i = 0; i < 4; i++)
		put_u(&c, r->netperf_ip[i]);
	for (i = 0; i < 4; i++)
		put_u(&c, r->netserver_ip[i]);
	put_i(&c, r->socket_prio);
	put_i(&c, r->socket_tos);
	give_str(buf + REQ_TAIL, r->cong_control, sizeof(r->cong_control));
	give_str(buf + REQ_TAIL + sizeof(r->cong_control), r->fill_file,
		 sizeof(r->fill_file));
}

int
legacy_request_decode(const unsigned char *buf, size_t len,
		      struct legacy_omni_request *r, char *err)
{
	struct words c = {NULL, buf, 8};
	struct legacy_header h;
	uint32_t d;
	int i;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.type != LEGACY_DO_OMNI)
		return err_set(err, "request type %d is not DO_OMNI (%d)",
			       h.type, LEGACY_DO_OMNI);
	memset(r, 0, sizeof(*r));
	r->send_buf_size = next_i(&c);
	r->send_size = next_i(&c);
	r->send_alignment = next_u(&c);
	r->send_offset = next_u(&c);
	r->send_width = next_u(&c);
	r->request_size = next_i(&c);
	r->recv_buf_size = next_i(&c);
	r->receive_size = next_i(&c);
	r->recv_alignment = next_u(&c);
	r->recv_offset = next_u(&c);
	r->recv_width = next_u(&c);
	r->response_size = next_i(&c);
	r->flags = next_u(&c);
	r->cpu_rate = next_f(&c);
	r->test_length = next_i(&c);
	r->so_rcvavoid = next_u(&c);
	r->so_sndavoid = next_u(&c);
	r->send_dirty_count = next_i(&c);
	r->recv_dirty_count = next_i(&c);
	r->recv_clean_count = next_i(&c);
	r->data_port = next_u(&c);
	r->ipfamily = next_u(&c);
	r->socket_type = next_u(&c);
	r->protocol = next_u(&c);
	r->direction = next_u(&c);
	r->netperf_port = next_u(&c);
	r->interval_burst = next_u(&c);
	r->interval_usecs = next_u(&c);
	for (i = 0; i < 4; i++)
		r->netperf_ip[i] = next_u(&c);
	for (i = 0; i < 4; i++)
		r->netserver_ip[i] = next_u(&c);
	r->socket_prio = next_i(&c);
	r->socket_tos = next_i(&c);
	if (take_str(r->cong_control, buf + REQ_TAIL, sizeof(r->cong_control),
		     1, "cong_control", err) < 0 ||
	    take_str(r->fill_file, buf + REQ_TAIL + sizeof(r->cong_control),
		     sizeof(r->fill_file), 1, "fill_file", err) < 0)
		return -1;

	d = r->direction;
	/* 0: no data, a connection test's (TCP_CC) */
	if (d != 0 && d != LEGACY_XMIT && d != LEGACY_RECV &&
	    d != (LEGACY_XMIT | LEGACY_RECV))
		return err_set(err, "direction %u is none of the tests'", d);
	if (!((r->socket_type == LEGACY_NST_STREAM &&
	       r->protocol == IPPROTO_TCP) ||
	      (r->socket_type == LEGACY_NST_DGRAM &&
	       r->protocol == IPPROTO_UDP)))
		return err_set(err,
			       "socket type %u with protocol %u is neither "
			       "TCP over a stream nor UDP over datagrams",
			       r->socket_type, r->protocol);
	if (r->ipfamily != LEGACY_NF_UNSPEC && r->ipfamily != LEGACY_NF_INET &&
	    r->ipfamily != LEGACY_NF_INET6)
		return err_set(err, "address family %u is not 2.7's IPv4 or "
				    "IPv6",
			       r->ipfamily);
	if (r->data_port > 65535 || r->netperf_port > 65535)
		return err_set(err, "a port above 65535");
	return 0;
}

/* A response or results word that says the server failed: returns its
 * serv_errno (> 0) with err set, or -1 for one that is not an errno. */
static int
refused(int32_t serv_errno, char *err)
{
	err_set(err, "remote error %d (%s)", serv_errno,
		serv_errno > 0 ? strerror(serv_errno) : "not an errno");
	return serv_errno > 0 ? serv_errno : -1;
}

void
legacy_response_encode(const struct legacy_omni_response *r,
		       unsigned char buf[LEGACY_MSG_LEN])
{
	struct words c = {buf, NULL, 0};

	memset(buf, 0, LEGACY_MSG_LEN);
	put_i(&c, LEGACY_OMNI_RESPONSE);
	put_i(&c, 0);
	put_i(&c, r->recv_buf_size);
	put_i(&c, r->receive_size);
	put_i(&c, r->recv_width);
	put_i(&c, r->send_buf_size);
	put_i(&c, r->send_size);
	put_i(&c, r->send_width);
	put_u(&c, r->flags);
	put_f(&c, r->cpu_rate);
	put_u(&c, r->test_length);
	put_u(&c, r->so_rcvavoid);
	put_u(&c, r->so_sndavoid);
	put_u(&c, r->data_port);
	put_u(&c, r->interval_burst);
	put_u(&c, r->interval_usecs);
	put_u(&c, r->cpu_frequency);
	put_u(&c, r->security_info);
	put_i(&c, r->socket_prio);
	put_i(&c, r->socket_tos);
	give_str(buf + RSP_TAIL, r->system_model, sizeof(r->system_model));
	give_str(buf + RSP_TAIL + sizeof(r->system_model), r->cpu_model,
		 sizeof(r->cpu_model));
	give_str(buf + RSP_TAIL + sizeof(r->system_model) +
		     sizeof(r->cpu_model),
		 r->security_string, sizeof(r->security_string));
}

int
legacy_response_decode(const unsigned char *buf, size_t len,
		       struct legacy_omni_response *r, char *err)
{
	struct words c = {NULL, buf, 8};
	struct legacy_omni_response v;
	struct legacy_header h;
	const unsigned char *t = buf + RSP_TAIL;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.word != 0)
		return refused(h.word, err);
	if (h.type != LEGACY_OMNI_RESPONSE)
		return err_set(err, "response type %d is not OMNI_RESPONSE",
			       h.type);
	memset(&v, 0, sizeof(v));
	v.recv_buf_size = next_i(&c);
	v.receive_size = next_i(&c);
	v.recv_width = next_i(&c);
	v.send_buf_size = next_i(&c);
	v.send_size = next_i(&c);
	v.send_width = next_i(&c);
	v.flags = next_u(&c);
	v.cpu_rate = next_f(&c);
	v.test_length = next_u(&c);
	v.so_rcvavoid = next_u(&c);
	v.so_sndavoid = next_u(&c);
	v.data_port = next_u(&c);
	v.interval_burst = next_u(&c);
	v.interval_usecs = next_u(&c);
	v.cpu_frequency = next_u(&c);
	v.security_info = next_u(&c);
	v.socket_prio = next_i(&c);
	v.socket_tos = next_i(&c);
	if (v.data_port < 1 || v.data_port > 65535)
		return err_set(err, "data port %u is outside 1..65535",
			       v.data_port);
	/* What a server says of its own host is cut, not refused. */
	take_str(v.system_model, t, sizeof(v.system_model), 0, "", err);
	t += sizeof(v.system_model);
	take_str(v.cpu_model, t, sizeof(v.cpu_model), 0, "", err);
	t += sizeof(v.cpu_model);
	take_str(v.security_string, t, sizeof(v.security_string), 0, "", err);
	memcpy(r, &v, sizeof(v));
	return 0;
}

void
legacy_results_encode(const struct legacy_omni_results *r, int32_t type,
		      unsigned char buf[LEGACY_MSG_LEN])
{
	struct words c = {buf, NULL, 0};
	unsigned char *t = buf + RES_TAIL;

	memset(buf, 0, LEGACY_MSG_LEN);
	put_i(&c, type);
	put_i(&c, 0);
	put_u(&c, (uint32_t)(r->bytes_received >> 32));
	put_u(&c, (uint32_t)r->bytes_received);
	put_u(&c, r->recv_calls);
	put_i(&c, r->recv_buf_size);
	put_u(&c, (uint32_t)(r->bytes_sent >> 32));
	put_u(&c, (uint32_t)r->bytes_sent);
	put_u(&c, r->send_calls);
	put_i(&c, r->send_buf_size);
	put_u(&c, r->failed_sends);
	put_u(&c, r->trans_received);
	put_f(&c, r->elapsed_time);
	put_f(&c, r->cpu_util);
	put_f(&c, r->cpu_user);
	put_f(&c, r->cpu_system);
	put_f(&c, r->cpu_iowait);
	put_f(&c, r->cpu_irq);
	put_f(&c, r->cpu_swintr);
	put_f(&c, r->serv_dem);
	put_u(&c, r->cpu_method);
	put_u(&c, r->num_cpus);
	put_i(&c, r->peak_cpu_id);
	put_f(&c, r->peak_cpu_util);
	put_i(&c, r->vendor);
	put_i(&c, r->device);
	put_i(&c, r->subvendor);
	put_i(&c, r->subdevice);
	put_i(&c, r->transport_retrans);
	give_str(t, r->ifname, sizeof(r->ifname));
	t += sizeof(r->ifname);
	give_str(t, r->driver, sizeof(r->driver));
	t += sizeof(r->driver);
	give_str(t, r->version, sizeof(r->version));
	t += sizeof(r->version);
	give_str(t, r->firmware, sizeof(r->firmware));
	t += sizeof(r->firmware);
	give_str(t, r->bus, sizeof(r->bus));
	t += sizeof(r->bus);
	give_str(t, r->ifslot, sizeof(r->ifslot));
	t += sizeof(r->ifslot);
	give_str(t, r->cong_control, sizeof(r->cong_control));
}

int
legacy_results_decode(const unsigned char *buf, size_t len,
		      struct legacy_omni_results *r, char *err)
{
	struct words c = {NULL, buf, 8};
	struct legacy_omni_results v;
	struct legacy_header h;
	const unsigned char *t = buf + RES_TAIL;
	uint64_t hi;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.word != 0)
		return refused(h.word, err);
	if (h.type != LEGACY_OMNI_RESPONSE && h.type != LEGACY_OMNI_RESULTS &&
	    h.type != LEGACY_OMNI_RESULTS_SWAPPED)
		return err_set(err, "results type %d is not OMNI_RESULTS",
			       h.type);
	memset(&v, 0, sizeof(v));
	hi = next_u(&c);
	v.bytes_received = hi << 32 | next_u(&c);
	v.recv_calls = next_u(&c);
	v.recv_buf_size = next_i(&c);
	hi = next_u(&c);
	v.bytes_sent = hi << 32 | next_u(&c);
	v.send_calls = next_u(&c);
	v.send_buf_size = next_i(&c);
	v.failed_sends = next_u(&c);
	v.trans_received = next_u(&c);
	v.elapsed_time = next_f(&c);
	v.cpu_util = next_f(&c);
	v.cpu_user = next_f(&c);
	v.cpu_system = next_f(&c);
	v.cpu_iowait = next_f(&c);
	v.cpu_irq = next_f(&c);
	v.cpu_swintr = next_f(&c);
	v.serv_dem = next_f(&c);
	v.cpu_method = next_u(&c);
	v.num_cpus = next_u(&c);
	v.peak_cpu_id = next_i(&c);
	v.peak_cpu_util = next_f(&c);
	v.vendor = next_i(&c);
	v.device = next_i(&c);
	v.subvendor = next_i(&c);
	v.subdevice = next_i(&c);
	v.transport_retrans = next_i(&c);
	if (!isfinite(v.elapsed_time) || v.elapsed_time < 0)
		return err_set(err, "elapsed time %g is not a duration",
			       (double)v.elapsed_time);
	take_str(v.ifname, t, sizeof(v.ifname), 0, "", err);
	t += sizeof(v.ifname);
	take_str(v.driver, t, sizeof(v.driver), 0, "", err);
	t += sizeof(v.driver);
	take_str(v.version, t, sizeof(v.version), 0, "", err);
	t += sizeof(v.version);
	take_str(v.firmware, t, sizeof(v.firmware), 0, "", err);
	t += sizeof(v.firmware);
	take_str(v.bus, t, sizeof(v.bus), 0, "", err);
	t += sizeof(v.bus);
	take_str(v.ifslot, t, sizeof(v.ifslot), 0, "", err);
	t += sizeof(v.ifslot);
	take_str(v.cong_control, t, sizeof(v.cong_control), 0, "", err);
	memcpy(r, &v, sizeof(v));
	return 0;
}

void
legacy_error_encode(int32_t type, int32_t serv_errno,
		    unsigned char buf[LEGACY_MSG_LEN])
{
	memset(buf, 0, LEGACY_MSG_LEN);
	be32_put(buf, (uint32_t)type);
	be32_put(buf + 4, (uint32_t)serv_errno);
}

int
legacy_passphrase_encode(const char *pass, int32_t cpu,
			 unsigned char buf[LEGACY_MSG_LEN], char *err)
{
	size_t len = strlen(pass);

	if (len > LEGACY_DATA_LEN - 1)
		return err_set(err,
			       "a 2.7 passphrase holds at most %d bytes, "
			       "not %zu",
			       LEGACY_DATA_LEN - 1, len);
	memset(buf, 0, LEGACY_MSG_LEN);
	be32_put(buf, LEGACY_PASSPHRASE);
	be32_put(buf + 4, (uint32_t)cpu);
	memcpy(buf + 8, pass, len);
	return 0;
}

int
legacy_passphrase_decode(const unsigned char *buf, size_t len, char *out,
			 size_t cap, char *err)
{
	struct legacy_header h;
	const unsigned char *end;
	size_t n;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.type != LEGACY_PASSPHRASE)
		return err_set(err, "request type %d is not PASSPHRASE",
			       h.type);
	end = memchr(buf + 8, '\0', LEGACY_DATA_LEN);
	if (end == NULL)
		return err_set(err, "the passphrase does not end inside its "
				    "message");
	n = (size_t)(end - (buf + 8));
	if (n + 1 > cap)
		return err_set(err, "the passphrase is longer than %zu bytes",
			       cap - 1);
	memcpy(out, buf + 8, n + 1);
	return 0;
}

int
legacy_sniff(const unsigned char *buf, size_t n)
{
	uint32_t type;

	if (n < 4)
		return -1;
	type = be32_get(buf);
	if (type < 1 || type > LEGACY_TYPE_MAX)
		return 0;
	if (n < 5)
		return -1;
	return buf[4] == 0x00 || buf[4] == 0xff;
}

/* Flags a request may carry: what the six tests set, and requests for
 * figures (interface names, slots, ids, driver) we answer as unknown. */
#define ACCEPTED_FLAGS                                                         \
	(LEGACY_F_NO_DELAY | LEGACY_F_CONNECT_TEST | LEGACY_F_MEASURE_CPU |    \
	 LEGACY_F_ROUTING_ALLOWED | 0x40u | 0x80u | 0x100u | 0x200u |          \
	 0x4000u | LEGACY_F_WANT_KEEPALIVE)

/* A size field: -1 (the default) becomes 0, our default; any other
 * negative value is refused. */
static int
size_of(int32_t v, const char *name, int64_t *out, char *err)
{
	if (v < -1)
		return err_set(err, "%s %d is negative", name, v);
	*out = v < 0 ? 0 : v;
	return 0;
}

int
legacy_request_params(const struct legacy_omni_request *r,
		      struct test_params *p, char *err)
{
	int rr = r->direction == (LEGACY_XMIT | LEGACY_RECV);
	int tcp = r->protocol == IPPROTO_TCP;
	int crr = (r->flags & LEGACY_F_CONNECT_TEST) != 0;
	const char *name;

	memset(p, 0, sizeof(*p));
	if (r->flags & ~ACCEPTED_FLAGS) {
		err_set(err, "omni flags 0x%x ask for what we do not do",
			r->flags & ~ACCEPTED_FLAGS);
		return EOPNOTSUPP;
	}
	if (r->fill_file[0] != '\0') {
		err_set(err, "netserver never opens a file a client names "
			     "(fill file)");
		return EACCES;
	}
	if (r->cong_control[0] != '\0' || r->interval_burst != 0 ||
	    r->interval_usecs != 0 || r->socket_prio != -1 ||
	    r->socket_tos != -1) {
		err_set(err, "congestion control, intervals, priority and "
			     "TOS are not served to 2.7 clients");
		return EOPNOTSUPP;
	}
	/* The direction is netserver's: it receives what goes to it. */
	name = r->direction & ~(LEGACY_XMIT | LEGACY_RECV)
		   ? NULL
		   : module_omni_test(!tcp, (r->direction & LEGACY_RECV) != 0,
				      (r->direction & LEGACY_XMIT) != 0, crr);
	if (name == NULL) {
		err_set(err, "this omni request is none of the tests (the "
			     "six, and TCP_CC)");
		return EOPNOTSUPP;
	}
	snprintf(p->test, sizeof(p->test), "%s", name);
	if (r->test_length > 0) {
		p->duration = r->test_length;
	} else if (r->test_length < 0 && tcp) {
		p->count = -(int64_t)r->test_length;
	} else {
		err_set(err, "test length %d is not a bounded test",
			r->test_length);
		return EINVAL;
	}
	if (size_of(r->send_size, "send size", &p->rsend_size, err) < 0 ||
	    size_of(r->receive_size, "receive size", &p->rrecv_size, err) < 0)
		return EINVAL;
	/* TCP_CC moves no data: its sizes are only reported, 1 and 1 as
	 * 2.7 reports them. */
	if (!rr && crr)
		p->req_size = p->rsp_size = 1;
	if (rr) {
		p->req_size = r->request_size;
		p->rsp_size = r->response_size;
		if (p->req_size < 1 || p->rsp_size < 1) {
			err_set(err, "request and response sizes %d,%d are "
				     "not both at least 1",
				r->request_size, r->response_size);
			return EINVAL;
		}
	}
	if (r->send_buf_size < -1 || r->recv_buf_size < -1) {
		err_set(err, "socket buffer sizes %d,%d are negative",
			r->send_buf_size, r->recv_buf_size);
		return EINVAL;
	}
	p->rsndbuf = r->send_buf_size;
	p->rrcvbuf = r->recv_buf_size;
	p->lsndbuf = p->lrcvbuf = -1;
	p->nodelay = (r->flags & LEGACY_F_NO_DELAY) != 0;
	p->remote_cpu = (r->flags & LEGACY_F_MEASURE_CPU) != 0;
	p->data_port = (int)r->data_port;
	/* -V: 2.7 asks the receiver to splice, whatever the test. */
	p->splice = tcp && !rr && r->so_rcvavoid != 0;
	p->streams = 1;
	return 0;
}

void
legacy_probe_encode(unsigned char buf[LEGACY_MSG_LEN])
{
	memset(buf, 0, LEGACY_MSG_LEN);
	be32_put(buf, LEGACY_DO_SYSINFO);
	be32_put(buf + 4, (uint32_t)-1); /* no CPU to bind to */
	memcpy(buf + 8, LEGACY_PROBE_TEXT, sizeof(LEGACY_PROBE_TEXT));
}

int
legacy_is_probe(const unsigned char *buf, size_t len)
{
	unsigned char probe[LEGACY_MSG_LEN];

	if (len != LEGACY_MSG_LEN)
		return 0;
	legacy_probe_encode(probe);
	return memcmp(buf, probe, LEGACY_MSG_LEN) == 0;
}

void
legacy_probe_answer_encode(unsigned char buf[LEGACY_MSG_LEN])
{
	memset(buf, 0, LEGACY_MSG_LEN);
	be32_put(buf, LEGACY_PROBE_ANSWER);
	memcpy(buf + 8, LEGACY_PROBE_ANSWER_TEXT,
	       sizeof(LEGACY_PROBE_ANSWER_TEXT));
}

int
legacy_probe_answer(const unsigned char *buf, size_t len, char *err)
{
	struct legacy_header h;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.type == LEGACY_PROBE_ANSWER &&
	    memcmp(buf + 8, LEGACY_PROBE_ANSWER_TEXT,
		   sizeof(LEGACY_PROBE_ANSWER_TEXT)) == 0)
		return 1;
	/* 2.7 leaves serv_errno as the last request left it; one built
	 * with SEND_PASSPHRASE_RESPONSE says so when it wants -Z's first. */
	if (h.type == LEGACY_SYSINFO_RESPONSE || h.word == LEGACY_ERR_UNKNOWN ||
	    h.type == LEGACY_PASSPHRASE)
		return 0;
	if (h.word != 0) {
		refused(h.word, err);
		return -1;
	}
	return err_set(err, "an answer of type %d to the probe is neither "
			    "netserver's",
		       h.type);
}

void
legacy_calibrate_encode(int32_t cpu, unsigned char buf[LEGACY_MSG_LEN])
{
	memset(buf, 0, LEGACY_MSG_LEN);
	be32_put(buf, LEGACY_CPU_CALIBRATE);
	be32_put(buf + 4, (uint32_t)cpu);
}

void
legacy_calibrate_answer_encode(float rate, int32_t ncpu,
			       unsigned char buf[LEGACY_MSG_LEN])
{
	struct words c = {buf, NULL, 0};

	memset(buf, 0, LEGACY_MSG_LEN);
	put_i(&c, LEGACY_CPU_CALIBRATE);
	put_i(&c, 0);
	put_f(&c, rate);
	put_i(&c, ncpu);
}

int
legacy_calibrate_answer_decode(const unsigned char *buf, size_t len,
			       float *rate, int32_t *ncpu, char *err)
{
	struct words c = {NULL, buf, 8};
	struct legacy_header h;
	float r;
	int32_t n;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.word != 0)
		return refused(h.word, err);
	if (h.type != LEGACY_CPU_CALIBRATE)
		return err_set(err, "answer type %d is not CPU_CALIBRATE (%d)",
			       h.type, LEGACY_CPU_CALIBRATE);
	r = next_f(&c);
	n = next_i(&c);
	if (!isfinite(r) || r < 0 || r > 1e9)
		return err_set(err, "a CPU rate of %g", (double)r);
	if (n < 1 || n > (1 << 20))
		return err_set(err, "%d CPUs", (int)n);
	*rate = r;
	*ncpu = n;
	return 0;
}

/* One converted word of a classic message, read or written as the walk
 * goes (c->w set: written). */
static void
word(struct words *c, int32_t *v)
{
	if (c->w != NULL)
		put_i(c, *v);
	else
		*v = next_i(c);
}

static void
fword(struct words *c, float *v)
{
	if (c->w != NULL)
		put_f(c, *v);
	else
		*v = next_f(c);
}

/* The classic request's words in 2.7's order, either way: one list, so
 * the encoder and decoder cannot drift apart. */
static void
classic_request_walk(struct words *c, struct legacy_classic_request *r)
{
	int cc = r->type == LEGACY_DO_TCP_CC;

	if (cc) {
		word(c, &r->recv_buf_size);
		word(c, &r->send_buf_size);
	} else {
		word(c, &r->send_buf_size);
		word(c, &r->recv_buf_size);
		word(c, &r->receive_size);
	}
	word(c, &r->recv_alignment);
	word(c, &r->recv_offset);
	if (cc) {
		word(c, &r->send_alignment);
		word(c, &r->send_offset);
		word(c, &r->request_size);
		word(c, &r->response_size);
	}
	word(c, &r->no_delay);
	word(c, &r->measure_cpu);
	fword(c, &r->cpu_rate);
	word(c, &r->test_length);
	word(c, &r->so_rcvavoid);
	word(c, &r->so_sndavoid);
	if (!cc) {
		word(c, &r->dirty_count);
		word(c, &r->clean_count);
	}
	word(c, &r->port);
	word(c, &r->ipfamily);
	if (!cc)
		word(c, &r->recv_aio);
}

void
legacy_classic_request_encode(const struct legacy_classic_request *r,
			      int32_t cpu, unsigned char buf[LEGACY_MSG_LEN])
{
	struct legacy_classic_request v = *r;
	struct words c = {buf, NULL, 0};

	memset(buf, 0, LEGACY_MSG_LEN);
	put_i(&c, r->type);
	put_i(&c, cpu);
	classic_request_walk(&c, &v);
}

int
legacy_classic_request_decode(const unsigned char *buf, size_t len,
			      struct legacy_classic_request *r, char *err)
{
	struct words c = {NULL, buf, 8};
	struct legacy_classic_request v;
	struct legacy_header h;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.type != LEGACY_DO_TCP_STREAM && h.type != LEGACY_DO_TCP_CC)
		return err_set(err,
			       "request type %d is neither DO_TCP_STREAM (%d) "
			       "nor DO_TCP_CC (%d)",
			       h.type, LEGACY_DO_TCP_STREAM, LEGACY_DO_TCP_CC);
	memset(&v, 0, sizeof(v));
	v.type = h.type;
	classic_request_walk(&c, &v);
	if (v.ipfamily != LEGACY_NF_UNSPEC && v.ipfamily != LEGACY_NF_INET &&
	    v.ipfamily != LEGACY_NF_INET6)
		return err_set(err,
			       "address family %d is not 2.7's IPv4 or "
			       "IPv6",
			       v.ipfamily);
	if (v.port < 0 || v.port > 65535)
		return err_set(err, "data port %d is outside 0..65535", v.port);
	*r = v;
	return 0;
}

/* The response's words in 2.7's order, either way. */
static void
classic_response_walk(struct words *c, struct legacy_classic_response *r)
{
	word(c, &r->recv_buf_size);
	if (r->type == LEGACY_TCP_STREAM_RESPONSE)
		word(c, &r->receive_size);
	word(c, &r->no_delay);
	word(c, &r->measure_cpu);
	word(c, &r->test_length);
	word(c, &r->send_buf_size);
	word(c, &r->data_port);
	fword(c, &r->cpu_rate);
	word(c, &r->so_rcvavoid);
	word(c, &r->so_sndavoid);
}

void
legacy_classic_response_encode(const struct legacy_classic_response *r,
			       unsigned char buf[LEGACY_MSG_LEN])
{
	struct legacy_classic_response v = *r;
	struct words c = {buf, NULL, 0};

	memset(buf, 0, LEGACY_MSG_LEN);
	put_i(&c, r->type);
	put_i(&c, 0);
	classic_response_walk(&c, &v);
}

int
legacy_classic_response_decode(const unsigned char *buf, size_t len,
			       int32_t type, struct legacy_classic_response *r,
			       char *err)
{
	struct words c = {NULL, buf, 8};
	struct legacy_classic_response v;
	struct legacy_header h;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.word != 0)
		return refused(h.word, err);
	if (h.type != type || (type != LEGACY_TCP_STREAM_RESPONSE &&
			       type != LEGACY_TCP_CC_RESPONSE))
		return err_set(err, "response type %d is not %d", h.type, type);
	memset(&v, 0, sizeof(v));
	v.type = type;
	classic_response_walk(&c, &v);
	if (v.data_port < 1 || v.data_port > 65535)
		return err_set(err, "data port %d is outside 1..65535",
			       v.data_port);
	*r = v;
	return 0;
}

void
legacy_classic_results_encode(const struct legacy_classic_results *r,
			      unsigned char buf[LEGACY_MSG_LEN])
{
	struct words c = {buf, NULL, 0};
	uint64_t bits;

	memset(buf, 0, LEGACY_MSG_LEN);
	put_i(&c, r->type);
	put_i(&c, 0);
	if (r->type == LEGACY_TCP_CC_RESPONSE) {
		put_u(&c,
		      r->bytes_received >= 0 && r->bytes_received < 4294967296.0
			  ? (uint32_t)r->bytes_received
			  : UINT32_MAX);
		put_u(&c, r->recv_calls);
		put_u(&c, r->trans_received);
	} else {
		/* htond's eight bytes: the double's high word first. */
		memcpy(&bits, &r->bytes_received, sizeof(bits));
		put_u(&c, (uint32_t)(bits >> 32));
		put_u(&c, (uint32_t)bits);
		put_u(&c, r->recv_calls);
	}
	put_f(&c, r->elapsed_time);
	put_f(&c, r->cpu_util);
	put_f(&c, r->serv_dem);
	put_i(&c, r->cpu_method);
	put_i(&c, r->num_cpus);
	if (r->type != LEGACY_TCP_CC_RESPONSE) {
		put_i(&c, r->recv_buf_size);
		put_i(&c, r->send_buf_size);
	}
}

int
legacy_classic_results_decode(const unsigned char *buf, size_t len,
			      int32_t type, struct legacy_classic_results *r,
			      char *err)
{
	struct words c = {NULL, buf, 8};
	struct legacy_classic_results v;
	struct legacy_header h;
	uint64_t bits;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		return -1;
	if (h.word != 0)
		return refused(h.word, err);
	/* 2.7's netserver converts its response's type word a second time
	 * for the results, as it does omni's. */
	if ((h.type != type && h.type != (int32_t)bswap_32((uint32_t)type)) ||
	    (type != LEGACY_TCP_STREAM_RESPONSE &&
	     type != LEGACY_TCP_CC_RESPONSE))
		return err_set(err, "results type %d is not %d", h.type, type);
	memset(&v, 0, sizeof(v));
	v.type = type;
	if (type == LEGACY_TCP_CC_RESPONSE) {
		v.bytes_received = next_u(&c);
		v.recv_calls = next_u(&c);
		v.trans_received = next_u(&c);
	} else {
		bits = (uint64_t)next_u(&c) << 32;
		bits |= next_u(&c);
		memcpy(&v.bytes_received, &bits, sizeof(bits));
		v.recv_calls = next_u(&c);
	}
	v.elapsed_time = next_f(&c);
	v.cpu_util = next_f(&c);
	v.serv_dem = next_f(&c);
	v.cpu_method = next_i(&c);
	v.num_cpus = next_i(&c);
	if (type != LEGACY_TCP_CC_RESPONSE) {
		v.recv_buf_size = next_i(&c);
		v.send_buf_size = next_i(&c);
	}
	if (!isfinite(v.bytes_received) || v.bytes_received < 0)
		return err_set(err, "byte count %g is not a count",
			       v.bytes_received);
	if (!isfinite(v.elapsed_time) || v.elapsed_time < 0)
		return err_set(err, "elapsed time %g is not a duration",
			       (double)v.elapsed_time);
	*r = v;
	return 0;
}

int
legacy_classic_params(const struct legacy_classic_request *r,
		      struct test_params *p, char *err)
{
	int cc = r->type == LEGACY_DO_TCP_CC;

	memset(p, 0, sizeof(*p));
	if (r->recv_aio != 0) {
		err_set(err, "asynchronous receives (aio) are not served to "
			     "2.7 clients");
		return EOPNOTSUPP;
	}
	snprintf(p->test, sizeof(p->test), "%s", cc ? "TCP_CC" : "TCP_STREAM");
	/* 2.7's stream request carries -l's seconds, or its byte count:
	 * 2.7's netserver reads both as seconds, and so do we (the
	 * receiver ends at the sender's close either way). */
	if (r->test_length > 0) {
		p->duration = r->test_length;
	} else if (r->test_length < 0 && cc) {
		p->count = -(int64_t)r->test_length;
	} else {
		err_set(err, "test length %d is not a bounded test",
			r->test_length);
		return EINVAL;
	}
	if (r->receive_size < 0 || r->request_size < 0 ||
	    r->response_size < 0) {
		err_set(err, "sizes %d,%d,%d are not all at least 0",
			r->receive_size, r->request_size, r->response_size);
		return EINVAL;
	}
	p->rrecv_size = r->receive_size;
	/* TCP_CC moves no data: its sizes are only reported. */
	if (cc)
		p->req_size = p->rsp_size = 1;
	if (r->send_buf_size < -1 || r->recv_buf_size < -1) {
		err_set(err, "socket buffer sizes %d,%d are negative",
			r->send_buf_size, r->recv_buf_size);
		return EINVAL;
	}
	p->rsndbuf = r->send_buf_size;
	p->rrcvbuf = r->recv_buf_size;
	p->lsndbuf = p->lrcvbuf = -1;
	p->nodelay = r->no_delay != 0;
	p->remote_cpu = r->measure_cpu != 0;
	p->data_port = r->port;
	/* -V: 2.7 asks the receiver to splice, as over omni. */
	p->splice = !cc && r->so_rcvavoid != 0;
	p->streams = 1;
	return 0;
}
