#include "np/proto.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np/be.h"
#include "np/err.h"
#include "np/escape.h"
#include "np/tstamp.h"
#include "np/flows.h"

static size_t recv_max = PROTO_MAX_MSG;

void
proto_set_recv_max(size_t max)
{
	recv_max = max;
}

size_t
proto_recv_max(void)
{
	return recv_max;
}

/* What msg encodes to, checked against its type's limit: its length, or
 * 0 with err set. */
static size_t
encoded_len(const json_t *msg, char *err)
{
	const char *t = json_string_value(json_object_get(msg, "type"));
	size_t n, max;

	if (!json_is_object(msg) || t == NULL) {
		err_set(err, "message is not an object with a type");
		return 0;
	}
	max = strcmp(t, "results") == 0 ? PROTO_MAX_RESULTS : PROTO_MAX_MSG;
	n = json_dumpb(msg, NULL, 0, JSON_COMPACT);
	if (n == 0)
		err_set(err, "message cannot be encoded");
	else if (n > max)
		err_set(err, "message of %zu bytes exceeds the %zu-byte limit",
			n, max);
	return n > max ? 0 : n;
}

/* Writes msg, whose encoding is n bytes (encoded_len), as a frame into
 * buf of n + PROTO_HDR_LEN bytes at least; the frame's length, or -1 with
 * err set. */
static ssize_t
frame_put(const json_t *msg, char *buf, size_t n, char *err)
{
	if (json_dumpb(msg, buf + PROTO_HDR_LEN, n, JSON_COMPACT) != n)
		return err_set(err, "message cannot be encoded");
	be32_put(buf, (uint32_t)n);
	return (ssize_t)(n + PROTO_HDR_LEN);
}

ssize_t
proto_encode_new(const json_t *msg, char **out, char *err)
{
	size_t n = encoded_len(msg, err);
	ssize_t len;

	*out = NULL;
	if (n == 0)
		return -1;
	*out = malloc(n + PROTO_HDR_LEN);
	if (*out == NULL)
		return err_set(err, "out of memory");
	len = frame_put(msg, *out, n, err);
	if (len < 0) {
		free(*out);
		*out = NULL;
	}
	return len;
}

ssize_t
proto_encode(const json_t *msg, char *buf, size_t cap, char *err)
{
	size_t n = encoded_len(msg, err);

	if (n == 0)
		return -1;
	if (cap < n + PROTO_HDR_LEN)
		return err_set(err, "no room for a %zu-byte message", n);
	return frame_put(msg, buf, n, err);
}

long
proto_frame_len(const unsigned char *hdr, char *err)
{
	uint32_t n = be32_get(hdr);

	if (n == 0)
		return err_set(err, "empty message");
	if (n > recv_max)
		return err_set(err,
			       "message of %u bytes exceeds the %zu-byte limit",
			       n, recv_max);
	return (long)n;
}

ssize_t
proto_decode(const char *buf, size_t len, json_t **msg, char *err)
{
	json_error_t jerr;
	json_t *m;
	long n;

	*msg = NULL;
	if (len < PROTO_HDR_LEN)
		return -2;
	n = proto_frame_len((const unsigned char *)buf, err);
	if (n < 0)
		return -1;
	if (len < (size_t)n + PROTO_HDR_LEN)
		return -2;
	/* JSON_REJECT_DUPLICATES: a field given twice is an attack or a bug,
	 * never something to resolve silently. */
	m = json_loadb(buf + PROTO_HDR_LEN, (size_t)n, JSON_REJECT_DUPLICATES,
		       &jerr);
	if (m == NULL) {
		char text[ESCAPE_LEN];

		/* jansson quotes the offending input in its text. */
		return err_set(err, "malformed message: %s at byte %d",
			       escape_str(text, sizeof(text), jerr.text),
			       jerr.position);
	}
	if (!json_is_object(m) || !json_is_string(json_object_get(m, "type"))) {
		json_decref(m);
		return err_set(err, "message is not an object with a type");
	}
	*msg = m;
	return n + PROTO_HDR_LEN;
}

const char *
proto_type(const json_t *msg)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t ? t : "";
}

json_t *
proto_new(const char *type)
{
	return json_pack("{s:s}", "type", type);
}

json_t *
proto_error(const char *text)
{
	return json_pack("{s:s, s:s}", "type", "error", "message", text);
}

int
proto_get_int(const json_t *obj, const char *key, int64_t min, int64_t max,
	      int64_t *out, char *err)
{
	json_t *v = json_object_get(obj, key);
	json_int_t x;

	if (v == NULL)
		return err_set(err, "missing field \"%s\"", key);
	if (!json_is_integer(v))
		return err_set(err, "field \"%s\" is not an integer", key);
	x = json_integer_value(v);
	if (x < min || x > max)
		return err_set(err, "field \"%s\" is %lld, outside %lld..%lld",
			       key, (long long)x, (long long)min,
			       (long long)max);
	*out = x;
	return 0;
}

int
proto_get_double(const json_t *obj, const char *key, double min, double max,
		 double *out, char *err)
{
	json_t *v = json_object_get(obj, key);
	double x;

	if (v == NULL)
		return err_set(err, "missing field \"%s\"", key);
	if (!json_is_number(v))
		return err_set(err, "field \"%s\" is not a number", key);
	x = json_number_value(v);
	if (!isfinite(x) || x < min || x > max)
		return err_set(err, "field \"%s\" is %g, outside %g..%g", key,
			       x, min, max);
	*out = x;
	return 0;
}

int
proto_get_string(const json_t *obj, const char *key, char *out, size_t cap,
		 char *err)
{
	json_t *v = json_object_get(obj, key);
	size_t n;

	if (v == NULL)
		return err_set(err, "missing field \"%s\"", key);
	if (!json_is_string(v))
		return err_set(err, "field \"%s\" is not a string", key);
	n = json_string_length(v);
	if (n >= cap || memchr(json_string_value(v), '\0', n) != NULL)
		return err_set(err, "field \"%s\" is too long or holds NUL",
			       key);
	memcpy(out, json_string_value(v), n + 1);
	return 0;
}

/* Sizes travel as 64-bit integers; -1 means "the system default". */
#define SIZE_MAX_WIRE SIDE_SIZE_MAX
#define BUF_MAX_WIRE ((int64_t)INT32_MAX)

/* netserver's half of netperf 2.7's socket options. */
/* A request mix's sizes, [[req, rsp], ...]: netserver needs no more. */
static json_t *
mix_pack(const struct mix *m)
{
	json_t *a = json_array();

	for (int i = 0; a != NULL && i < m->n; i++)
		json_array_append_new(a, json_pack("[I, I]",
						   (json_int_t)m->c[i].req,
						   (json_int_t)m->c[i].rsp));
	return a;
}

/* The mix of a request, checked: 1 to MIX_MAX classes of sizes from 1
 * to the request's req_size and rsp_size, which are the largest. */
static int
mix_unpack(const json_t *a, struct test_params *p, char *err)
{
	int64_t req, rsp;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) < 1 ||
	    json_array_size(a) > MIX_MAX)
		return err_set(err, "field \"mix\" is not a list of 1 to %d "
				    "classes",
			       MIX_MAX);
	for (i = 0; i < json_array_size(a); i++) {
		const json_t *c = json_array_get(a, i);
		const json_t *q = json_array_get(c, 0), *r = json_array_get(c, 1);

		if (!json_is_array(c) || json_array_size(c) != 2 ||
		    !json_is_integer(q) || !json_is_integer(r))
			return err_set(err, "mix class %zu is not [req, rsp]",
				       i + 1);
		req = json_integer_value(q);
		rsp = json_integer_value(r);
		if (req < 1 || req > p->req_size || rsp < 1 ||
		    rsp > p->rsp_size)
			return err_set(err,
				       "mix class %zu's sizes are out of range "
				       "(1 to req_size and rsp_size)",
				       i + 1);
		p->mix.c[i].req = req;
		p->mix.c[i].rsp = rsp;
	}
	p->mix.n = (int)json_array_size(a);
	return 0;
}

static json_t *
sockopts_pack(const struct sock_extra *x)
{
	return json_pack("{s:b, s:i, s:i, s:b, s:s, s:b, s:I, s:b, s:b, s:i,"
			 " s:b, s:b}",
			 "keepalive", x->keepalive, "prio", x->prio, "tos",
			 x->tos, "cork", x->cork, "cong", x->cong, "dontroute",
			 x->dontroute, "pacing", (json_int_t)x->pacing,
			 "mtu_do", x->mtu_do, "debug", x->debug, "mcast_ttl",
			 x->mcast_ttl, "fastopen", x->fastopen, "defer_accept",
			 x->defer_accept);
}

static int get_bool(const json_t *obj, const char *key, int *out, char *err);
static int get_int32(const json_t *obj, const char *key, int64_t min,
		     int64_t max, int *out, char *err);

static int
sockopts_unpack(const json_t *j, struct sock_extra *x, char *err)
{
	int64_t pacing;

	if (!json_is_object(j))
		return err_set(err, "field \"sockopts\" is not an object");
	if (get_bool(j, "keepalive", &x->keepalive, err) ||
	    get_int32(j, "prio", -1, 255, &x->prio, err) ||
	    get_int32(j, "tos", -1, 255, &x->tos, err) ||
	    get_bool(j, "cork", &x->cork, err) ||
	    proto_get_string(j, "cong", x->cong, sizeof(x->cong), err) ||
	    get_bool(j, "dontroute", &x->dontroute, err) ||
	    proto_get_int(j, "pacing", 0, (int64_t)1 << 50, &pacing, err) ||
	    get_bool(j, "mtu_do", &x->mtu_do, err) ||
	    get_bool(j, "debug", &x->debug, err) ||
	    get_int32(j, "mcast_ttl", -1, 255, &x->mcast_ttl, err) ||
	    get_bool(j, "fastopen", &x->fastopen, err) ||
	    get_bool(j, "defer_accept", &x->defer_accept, err))
		return -1;
	x->pacing = (uint64_t)pacing;
	return 0;
}

static int
buffers_unpack(const json_t *j, struct module_bufs *b, char *err)
{
	if (!json_is_object(j))
		return err_set(err, "field \"buffers\" is not an object");
	return get_int32(j, "salign", 0, 65536, &b->salign, err) ||
		       get_int32(j, "ralign", 0, 65536, &b->ralign, err) ||
		       get_int32(j, "soff", 0, 65536, &b->soff, err) ||
		       get_int32(j, "roff", 0, 65536, &b->roff, err) ||
		       get_int32(j, "width", 0, 64, &b->width, err) ||
		       get_int32(j, "dirty", 0, 1 << 24, &b->dirty, err) ||
		       get_int32(j, "clean", 0, 1 << 24, &b->clean, err)
		   ? -1
		   : 0;
}

json_t *
proto_request_pack(const struct test_params *p)
{
	json_t *o = json_pack(
	    "{s:s, s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
	    " s:i, s:i, s:i, s:i, s:b, s:i, s:b, s:i}",
	    "type", "request", "test", p->test, "duration", p->duration,
	    "count", (json_int_t)p->count, "send_size",
	    (json_int_t)p->send_size, "recv_size", (json_int_t)p->recv_size,
	    "rsend_size", (json_int_t)p->rsend_size, "rrecv_size",
	    (json_int_t)p->rrecv_size, "req_size", (json_int_t)p->req_size,
	    "rsp_size", (json_int_t)p->rsp_size, "lsndbuf", p->lsndbuf,
	    "lrcvbuf", p->lrcvbuf, "rsndbuf", p->rsndbuf, "rrcvbuf", p->rrcvbuf,
	    "nodelay", p->nodelay, "burst", p->burst, "remote_cpu",
	    p->remote_cpu, "data_port", p->data_port);

	if (o != NULL) {
		json_object_set_new(o, "rto", json_real(p->rto));
		json_object_set_new(o, "rate", json_real(p->rate));
		json_object_set_new(o, "streams", json_integer(p->streams));
		json_object_set_new(o, "cpu_bind", json_string(p->cpu_bind));
		json_object_set_new(o, "wire", json_boolean(p->wire));
		json_object_set_new(o, "wire_share",
				    json_boolean(p->wire_share));
		json_object_set_new(o, "sockopts", sockopts_pack(&p->rx));
		json_object_set_new(
		    o, "buffers",
		    json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "salign",
			      p->rbuf.salign, "ralign", p->rbuf.ralign, "soff",
			      p->rbuf.soff, "roff", p->rbuf.roff, "width",
			      p->rbuf.width, "dirty", p->rbuf.dirty, "clean",
			      p->rbuf.clean));
		json_object_set_new(o, "batch", json_integer(p->batch));
		json_object_set_new(o, "udp_gso", json_boolean(p->udp_gso));
		json_object_set_new(o, "udp_gro", json_boolean(p->udp_gro));
		json_object_set_new(o, "zerocopy", json_boolean(p->zerocopy));
		json_object_set_new(o, "busy_poll", json_integer(p->busy_poll));
		if (p->start_at_ns > 0)
			json_object_set_new(
			    o, "start_at_ns",
			    json_integer((json_int_t)p->start_at_ns));
		/* Only when asked, so an older netserver, which refuses
		 * nothing it does not know, is never told of it. */
		if (p->bidir)
			json_object_set_new(o, "bidir", json_true());
		if (p->splice)
			json_object_set_new(o, "splice", json_true());
		if (p->interim > 0)
			json_object_set_new(o, "interim",
					    json_real(p->interim));
		if (p->transport[0] != '\0')
			json_object_set_new(o, "transport",
					    json_string(p->transport));
		if (p->skip_rx_copy)
			json_object_set_new(o, "skip_rx_copy", json_true());
		if (p->one_way)
			json_object_set_new(o, "one_way", json_true());
		if (p->load_up > 0)
			json_object_set_new(o, "load_up",
					    json_integer(p->load_up));
		if (p->load_down > 0)
			json_object_set_new(o, "load_down",
					    json_integer(p->load_down));
		if (p->timestamps)
			json_object_set_new(o, "timestamps", json_true());
		if (p->serve_delay_us > 0)
			json_object_set_new(o, "serve_delay_us",
					    json_integer(p->serve_delay_us));
		if (p->threads > 0)
			json_object_set_new(o, "threads",
					    json_integer(p->threads));
		if (p->mix.n > 0)
			json_object_set_new(o, "mix", mix_pack(&p->mix));
		if (p->lost_iv)
			json_object_set_new(o, "lost_iv", json_true());
		if (p->io_uring)
			json_object_set_new(o, "io_uring", json_true());
	}
	return o;
}

static int
get_int32(const json_t *obj, const char *key, int64_t min, int64_t max,
	  int *out, char *err)
{
	int64_t v = 0;

	if (proto_get_int(obj, key, min, max, &v, err) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

static int
get_bool(const json_t *obj, const char *key, int *out, char *err)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return err_set(err, "missing field \"%s\"", key);
	if (!json_is_boolean(v))
		return err_set(err, "field \"%s\" is not a boolean", key);
	*out = json_is_true(v);
	return 0;
}

/* An optional field: 0 when it is absent (the default stays) or valid,
 * -1 with err set when it is there and wrong. */
static int
opt_int32(const json_t *msg, const char *key, int lo, int hi, int *v,
	  char *err)
{
	return json_object_get(msg, key) == NULL
		   ? 0
		   : get_int32(msg, key, lo, hi, v, err);
}

static int
opt_bool(const json_t *msg, const char *key, int *v, char *err)
{
	return json_object_get(msg, key) == NULL ? 0
						 : get_bool(msg, key, v, err);
}

static int
opt_double(const json_t *msg, const char *key, double lo, double hi,
	   double *v, char *err)
{
	return json_object_get(msg, key) == NULL
		   ? 0
		   : proto_get_double(msg, key, lo, hi, v, err);
}

/* The fields every request of version 1 has had from the start. */
static int
request_core(const json_t *msg, struct test_params *p, char *err)
{
	if (proto_get_string(msg, "test", p->test, sizeof(p->test), err) ||
	    proto_get_double(msg, "duration", 0, 1e9, &p->duration, err) ||
	    proto_get_int(msg, "count", 0, INT64_MAX, &p->count, err) ||
	    proto_get_int(msg, "send_size", 0, SIZE_MAX_WIRE, &p->send_size,
			  err) ||
	    proto_get_int(msg, "recv_size", 0, SIZE_MAX_WIRE, &p->recv_size,
			  err) ||
	    proto_get_int(msg, "rsend_size", 0, SIZE_MAX_WIRE, &p->rsend_size,
			  err) ||
	    proto_get_int(msg, "rrecv_size", 0, SIZE_MAX_WIRE, &p->rrecv_size,
			  err) ||
	    proto_get_int(msg, "req_size", 0, SIZE_MAX_WIRE, &p->req_size,
			  err) ||
	    proto_get_int(msg, "rsp_size", 0, SIZE_MAX_WIRE, &p->rsp_size,
			  err) ||
	    get_int32(msg, "lsndbuf", -1, BUF_MAX_WIRE, &p->lsndbuf, err) ||
	    get_int32(msg, "lrcvbuf", -1, BUF_MAX_WIRE, &p->lrcvbuf, err) ||
	    get_int32(msg, "rsndbuf", -1, BUF_MAX_WIRE, &p->rsndbuf, err) ||
	    get_int32(msg, "rrcvbuf", -1, BUF_MAX_WIRE, &p->rrcvbuf, err) ||
	    get_bool(msg, "nodelay", &p->nodelay, err) ||
	    get_int32(msg, "burst", 0, 1 << 20, &p->burst, err) ||
	    get_bool(msg, "remote_cpu", &p->remote_cpu, err) ||
	    get_int32(msg, "data_port", 0, 65535, &p->data_port, err))
		return -1;
	return 0;
}

/* The fields added since, optional so that an older client's request
 * still reads. */
static int
request_later(const json_t *msg, struct test_params *p, char *err)
{
	p->streams = 1;
	sock_extra_init(&p->rx);
	sock_extra_init(&p->lx);
	if (opt_double(msg, "rto", 0, 3600, &p->rto, err) ||
	    opt_double(msg, "rate", 0, 1e15, &p->rate, err) ||
	    opt_int32(msg, "streams", 1, FLOWS_MAX, &p->streams, err) ||
	    opt_bool(msg, "wire", &p->wire, err) ||
	    opt_bool(msg, "wire_share", &p->wire_share, err) ||
	    /* batch 0 or 1: a call a datagram. */
	    opt_int32(msg, "batch", 0, 1024, &p->batch, err) ||
	    opt_bool(msg, "udp_gso", &p->udp_gso, err) ||
	    opt_bool(msg, "udp_gro", &p->udp_gro, err) ||
	    opt_bool(msg, "zerocopy", &p->zerocopy, err) ||
	    opt_int32(msg, "busy_poll", 0, 1000000, &p->busy_poll, err) ||
	    opt_bool(msg, "splice", &p->splice, err) ||
	    opt_bool(msg, "bidir", &p->bidir, err) ||
	    opt_double(msg, "interim", PROTO_INTERIM_MIN, PROTO_INTERIM_MAX,
		       &p->interim, err) ||
	    opt_bool(msg, "skip_rx_copy", &p->skip_rx_copy, err) ||
	    opt_bool(msg, "one_way", &p->one_way, err) ||
	    opt_int32(msg, "load_up", 0, 4096, &p->load_up, err) ||
	    opt_int32(msg, "load_down", 0, 4096, &p->load_down, err) ||
	    opt_bool(msg, "timestamps", &p->timestamps, err) ||
	    opt_int32(msg, "serve_delay_us", 0, TSTAMP_DELAY_MAX_US,
		      &p->serve_delay_us, err) ||
	    opt_int32(msg, "threads", 0, FLOWS_MAX, &p->threads, err) ||
	    opt_bool(msg, "lost_iv", &p->lost_iv, err) ||
	    opt_bool(msg, "io_uring", &p->io_uring, err))
		return -1;
	/* Which transports exist is transport_check's to say. */
	if (json_object_get(msg, "transport") != NULL &&
	    proto_get_string(msg, "transport", p->transport,
			     sizeof(p->transport), err) < 0)
		return -1;
	if (json_object_get(msg, "cpu_bind") != NULL &&
	    proto_get_string(msg, "cpu_bind", p->cpu_bind, sizeof(p->cpu_bind),
			     err) < 0)
		return -1;
	if (json_object_get(msg, "sockopts") != NULL &&
	    sockopts_unpack(json_object_get(msg, "sockopts"), &p->rx, err) < 0)
		return -1;
	if (json_object_get(msg, "buffers") != NULL &&
	    buffers_unpack(json_object_get(msg, "buffers"), &p->rbuf, err) < 0)
		return -1;
	if (json_object_get(msg, "mix") != NULL &&
	    mix_unpack(json_object_get(msg, "mix"), p, err) < 0)
		return -1;
	if (json_object_get(msg, "start_at_ns") != NULL &&
	    proto_get_int(msg, "start_at_ns", 1, INT64_MAX, &p->start_at_ns,
			  err) < 0)
		return -1;
	return 0;
}

int
proto_request_unpack(const json_t *msg, struct test_params *p, char *err)
{
	char text[ESCAPE_LEN];

	memset(p, 0, sizeof(*p));
	if (strcmp(proto_type(msg), "request") != 0)
		return err_set(err, "expected a request, got \"%s\"",
			       escape_str(text, sizeof(text), proto_type(msg)));
	if (request_core(msg, p, err) < 0 || request_later(msg, p, err) < 0)
		return -1;
	/* Half the streams go each way. */
	if (p->bidir && p->streams % 2 != 0)
		return err_set(err, "bidir needs an even number of streams, "
				    "not %d",
			       p->streams);
	if (p->duration == 0 && p->count == 0)
		return err_set(err, "request has neither a duration nor a "
				    "count");
	return 0;
}

void
proto_ready_confirm(json_t *ready, const struct test_params *p)
{
	/* It stamps the answers, and runs the bulk flows beside the probe:
	 * an older netserver, which ignores what it does not know, would
	 * say neither and run every stream as a probe. */
	if (p->one_way)
		json_object_set_new(ready, "one_way", json_true());
	/* It reads each request's class: an older netserver would read
	 * every request as the largest. */
	if (p->mix.n > 0)
		json_object_set_new(ready, "mix", json_integer(p->mix.n));
	if (p->lost_iv)
		json_object_set_new(ready, "lost_iv", json_true());
	/* Its loops move the data through io_uring: an older netserver
	 * would run its end the plain way and say nothing. */
	if (p->io_uring)
		json_object_set_new(ready, "io_uring", json_true());
	if (p->load_up + p->load_down > 0) {
		json_object_set_new(ready, "load_up", json_integer(p->load_up));
		json_object_set_new(ready, "load_down",
				    json_integer(p->load_down));
	}
}

int
proto_ready_check(const json_t *ready, const struct test_params *p, char *err)
{
	const json_t *up = json_object_get(ready, "load_up");
	const json_t *down = json_object_get(ready, "load_down");

	if (p->one_way && !json_is_true(json_object_get(ready, "one_way")))
		return err_set(err, "--one-way: netserver does not stamp its "
				    "answers (an older netserver)");
	if (p->mix.n > 0 && json_integer_value(json_object_get(ready, "mix")) !=
				p->mix.n)
		return err_set(err, "-r: netserver does not read a request "
				    "mix (an older netserver)");
	if (p->io_uring && !json_is_true(json_object_get(ready, "io_uring")))
		return err_set(err, "--io-uring: netserver does not confirm "
				    "its io_uring data path (an older "
				    "netserver)");
	if (p->load_up + p->load_down == 0)
		return 0;
	if (!json_is_integer(up) || !json_is_integer(down) ||
	    json_integer_value(up) != p->load_up ||
	    json_integer_value(down) != p->load_down)
		return err_set(err, "netserver is too old for --under-load: "
				    "its ready does not confirm %d up and %d "
				    "down bulk flows",
			       p->load_up, p->load_down);
	return 0;
}

static json_t *
load_pack(const struct cpu_load *l)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
			 "util", l->util, "user", l->user, "nice", l->nice,
			 "system", l->system, "irq", l->irq, "softirq",
			 l->softirq, "iowait", l->iowait, "idle", l->idle,
			 "steal", l->steal);
}

static int
load_unpack(const json_t *j, struct cpu_load *l, char *err)
{
	if (!json_is_object(j))
		return err_set(err, "CPU load is not an object");
	if (proto_get_double(j, "util", -1, 100.0001, &l->util, err) ||
	    proto_get_double(j, "user", 0, 100.0001, &l->user, err) ||
	    proto_get_double(j, "nice", 0, 100.0001, &l->nice, err) ||
	    proto_get_double(j, "system", 0, 100.0001, &l->system, err) ||
	    proto_get_double(j, "irq", 0, 100.0001, &l->irq, err) ||
	    proto_get_double(j, "softirq", 0, 100.0001, &l->softirq, err) ||
	    proto_get_double(j, "iowait", 0, 100.0001, &l->iowait, err) ||
	    proto_get_double(j, "idle", 0, 100.0001, &l->idle, err) ||
	    proto_get_double(j, "steal", 0, 100.0001, &l->steal, err))
		return -1;
	return 0;
}

static json_t *
cpu_pack(const struct cpu_util *u)
{
	json_t *per = json_array();
	json_t *o;
	int i;

	if (per == NULL)
		return NULL;
	for (i = 0; i < u->nslots; i++)
		json_array_append_new(per, load_pack(&u->per[i]));
	o = json_pack("{s:o, s:i, s:f, s:i, s:o}", "all", load_pack(&u->all),
		      "ncpu", u->ncpu, "peak", u->peak, "peak_id", u->peak_id,
		      "per", per);
	if (o != NULL) {
		json_object_set_new(o, "busy_ticks",
				    json_integer((json_int_t)u->busy_ticks));
		json_object_set_new(o, "total_ticks",
				    json_integer((json_int_t)u->total_ticks));
		json_object_set_new(o, "hz", json_integer(u->hz));
	}
	return o;
}

/* The most CPU slots a result may carry: far above any real machine, low
 * enough that a hostile peer cannot make us allocate much. */
#define PROTO_MAX_CPUS 8192

static int
cpu_unpack(const json_t *j, struct cpu_util *u, char *err)
{
	json_t *per;
	int64_t v;
	size_t i;

	memset(u, 0, sizeof(*u));
	if (!json_is_object(j))
		return err_set(err, "field \"cpu\" is not an object");
	if (load_unpack(json_object_get(j, "all"), &u->all, err) ||
	    proto_get_int(j, "ncpu", 0, PROTO_MAX_CPUS, &v, err))
		return -1;
	u->ncpu = (int)v;
	if (proto_get_double(j, "peak", 0, 100.0001, &u->peak, err) ||
	    proto_get_int(j, "peak_id", -1, PROTO_MAX_CPUS, &v, err))
		return -1;
	u->peak_id = (int)v;
	/* The raw ticks came after version 1: optional. */
	if (json_object_get(j, "busy_ticks") != NULL) {
		int64_t busy, total, hz;

		if (proto_get_int(j, "busy_ticks", 0, INT64_MAX, &busy, err) ||
		    proto_get_int(j, "total_ticks", busy, INT64_MAX, &total,
				  err) ||
		    proto_get_int(j, "hz", 0, 1000000, &hz, err))
			return -1;
		u->busy_ticks = (uint64_t)busy;
		u->total_ticks = (uint64_t)total;
		u->hz = (int)hz;
	}
	per = json_object_get(j, "per");
	if (!json_is_array(per) || json_array_size(per) > PROTO_MAX_CPUS)
		return err_set(err, "field \"per\" is not a list of CPUs");
	u->nslots = (int)json_array_size(per);
	if (u->nslots > 0) {
		u->per = calloc((size_t)u->nslots, sizeof(*u->per));
		if (u->per == NULL)
			return err_set(err, "out of memory");
	}
	for (i = 0; i < (size_t)u->nslots; i++) {
		if (load_unpack(json_array_get(per, i), &u->per[i], err) < 0) {
			cpu_util_free(u);
			return -1;
		}
	}
	return 0;
}

/* Field f of r as a JSON value. */
static json_t *
field_pack(const struct side_result *r, const struct side_field *f)
{
	switch (f->kind) {
	case SIDE_DBL:
		return json_real(side_get_dbl(r, f));
	case SIDE_STR:
		return json_string(side_get_str(r, f));
	default:
		return json_integer((json_int_t)side_get_i64(r, f));
	}
}

/* The "fast" object: every SIDE_FAST field. */
static json_t *
fast_pack(const struct side_result *r)
{
	json_t *o = json_object();
	int i;

	for (i = 0; o != NULL && i < SIDE_NFIELDS; i++)
		if (side_fields[i].where == SIDE_FAST)
			json_object_set_new(o, side_fields[i].wire,
					    field_pack(r, &side_fields[i]));
	return o;
}

json_t *
proto_result_pack(const struct side_result *r)
{
	json_t *o = json_pack("{s:s}", "type", "results");
	int i, fast = 0;

	/* Version 1's fields first, then those added since, the "fast"
	 * object where its first field stands. */
	for (i = 0; o != NULL && i < SIDE_NFIELDS; i++)
		if (side_fields[i].where == SIDE_V1)
			json_object_set_new(o, side_fields[i].wire,
					    field_pack(r, &side_fields[i]));
	for (i = 0; o != NULL && i < SIDE_NFIELDS; i++) {
		if (side_fields[i].where == SIDE_OPT)
			json_object_set_new(o, side_fields[i].wire,
					    field_pack(r, &side_fields[i]));
		else if (side_fields[i].where == SIDE_FAST && !fast++)
			json_object_set_new(o, "fast", fast_pack(r));
	}
	if (o != NULL && r->cpu_measured)
		json_object_set_new(o, "cpu", cpu_pack(&r->cpu));
	if (o != NULL && r->tcpi.n > 0)
		json_object_set_new(o, "tcp_info", proto_tcpinfo_pack(&r->tcpi));
	return o;
}

static int
get_u64(const json_t *obj, const char *key, uint64_t *out, char *err)
{
	int64_t v = 0;

	if (proto_get_int(obj, key, 0, INT64_MAX, &v, err) < 0)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* Reads field f of r from obj, within the field's range. */
static int
field_unpack(const json_t *obj, const struct side_field *f,
	     struct side_result *r, char *err)
{
	int64_t v = 0;
	double d = 0;

	switch (f->kind) {
	case SIDE_STR:
		return proto_get_string(obj, f->wire, side_str_buf(r, f),
					SIDE_STR_LEN, err);
	case SIDE_DBL:
		if (proto_get_double(obj, f->wire, (double)f->min,
				     (double)f->max, &d, err) < 0)
			return -1;
		side_set_num(r, f, d);
		return 0;
	default:
		if (proto_get_int(obj, f->wire, f->min, f->max, &v, err) < 0)
			return -1;
		side_set_int(r, f, v);
		return 0;
	}
}

/* Reads every field that travels where from obj; optional ones only when
 * present, so results from an older netserver still read. An absent one
 * reads as -1 (unknown) where its range has it, else as 0. */
static int
fields_unpack(const json_t *obj, enum side_wire where, struct side_result *r,
	      char *err)
{
	const struct side_field *f;
	int i;

	for (i = 0; i < SIDE_NFIELDS; i++) {
		f = &side_fields[i];
		if (f->where != where)
			continue;
		if (where == SIDE_OPT &&
		    json_object_get(obj, f->wire) == NULL) {
			if (f->min < 0)
				side_set_int(r, f, -1);
			continue;
		}
		if (field_unpack(obj, f, r, err) < 0)
			return -1;
	}
	return 0;
}

int
proto_result_unpack(const json_t *msg, struct side_result *r, char *err)
{
	const json_t *fast = json_object_get(msg, "fast");
	json_t *cpu;

	memset(r, 0, sizeof(*r));
	if (strcmp(proto_type(msg), "results") != 0) {
		char text[ESCAPE_LEN];

		return err_set(err, "expected results, got \"%s\"",
			       escape_str(text, sizeof(text), proto_type(msg)));
	}
	if (fields_unpack(msg, SIDE_V1, r, err) < 0 ||
	    fields_unpack(msg, SIDE_OPT, r, err) < 0)
		return -1;
	if (fast != NULL && !json_is_object(fast))
		return err_set(err, "field \"fast\" is not an object");
	if (fast != NULL && fields_unpack(fast, SIDE_FAST, r, err) < 0)
		return -1;
	tcpinfo_clear(&r->tcpi);
	if (json_object_get(msg, "tcp_info") != NULL &&
	    proto_tcpinfo_unpack(json_object_get(msg, "tcp_info"), &r->tcpi,
				 err) < 0)
		return -1;
	cpu = json_object_get(msg, "cpu");
	if (cpu != NULL) {
		if (cpu_unpack(cpu, &r->cpu, err) < 0)
			return -1;
		r->cpu_measured = 1;
	}
	return 0;
}

json_t *
proto_tcpinfo_pack(const struct tcpinfo *t)
{
	json_t *o = json_object();
	int i;

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "connections", json_integer(t->n));
	for (i = 0; i < TCPINFO_NFIELDS; i++)
		json_object_set_new(o, tcpinfo_fields[i].key,
				    t->v[i] >= 0
					? json_integer((json_int_t)t->v[i])
					: json_null());
	return o;
}

int
proto_tcpinfo_unpack(const json_t *j, struct tcpinfo *t, char *err)
{
	int64_t v;
	int i;

	tcpinfo_clear(t);
	if (!json_is_object(j))
		return err_set(err, "field \"tcp_info\" is not an object");
	if (proto_get_int(j, "connections", 1, INT32_MAX, &v, err) < 0)
		return -1;
	/* A figure this netperf does not know is ignored; one it knows
	 * but the peer's kernel did not report is null or absent. */
	for (i = 0; i < TCPINFO_NFIELDS; i++) {
		const json_t *f = json_object_get(j, tcpinfo_fields[i].key);

		if (f == NULL || json_is_null(f))
			continue;
		if (proto_get_int(j, tcpinfo_fields[i].key, 0, INT64_MAX,
				  &t->v[i], err) < 0) {
			tcpinfo_clear(t);
			return -1;
		}
	}
	t->n = (int)v;
	return 0;
}

json_t *
proto_interim_pack(const struct proto_interim *iv)
{
	json_t *o = json_pack("{s:s, s:I, s:f, s:f}", "type", "interim", "n",
			      (json_int_t)iv->n, "interval", iv->interval,
			      "since_start", iv->since_start);

	if (o != NULL)
		json_object_set_new(o, "tcp_info",
				    proto_tcpinfo_pack(&iv->tcpi));
	return o;
}

int
proto_interim_unpack(const json_t *msg, int max_conns, struct proto_interim *iv,
		     char *err)
{
	char text[ESCAPE_LEN];

	memset(iv, 0, sizeof(*iv));
	tcpinfo_clear(&iv->tcpi);
	if (strcmp(proto_type(msg), "interim") != 0)
		return err_set(err, "expected an interim report, got \"%s\"",
			       escape_str(text, sizeof(text), proto_type(msg)));
	if (proto_get_int(msg, "n", 0, INT32_MAX, &iv->n, err) < 0 ||
	    proto_get_double(msg, "interval", 0, 2 * PROTO_INTERIM_MAX,
			     &iv->interval, err) < 0 ||
	    proto_get_double(msg, "since_start", 0, 1e9, &iv->since_start,
			     err) < 0 ||
	    proto_tcpinfo_unpack(json_object_get(msg, "tcp_info"), &iv->tcpi,
				 err) < 0)
		return -1;
	/* A connection merged that the test does not have is not one of
	 * its figures. */
	if (iv->tcpi.n > max_conns) {
		err_set(err, "interim report merges %d connections of %d",
			iv->tcpi.n, max_conns);
		tcpinfo_clear(&iv->tcpi);
		return -1;
	}
	return 0;
}

json_t *
proto_hist_pack(const struct stats_hist *h)
{
	json_t *pairs = json_array();
	char sq[STATS_SUMSQ_HEX];
	int i;

	if (pairs == NULL)
		return NULL;
	for (i = 0; i < STATS_NBUCKETS; i++)
		if (h->bucket[i] != 0)
			json_array_append_new(
			    pairs,
			    json_pack("[i, I]", i, (json_int_t)h->bucket[i]));
	stats_sumsq_hex(h->sumsq, sq);
	return json_pack("{s:o, s:I, s:I, s:I, s:s}", "buckets", pairs, "min",
			 (json_int_t)(h->count ? h->min : 0), "max",
			 (json_int_t)h->max, "sum", (json_int_t)h->sum, "sumsq",
			 sq);
}


int
proto_hist_unpack(const json_t *j, struct stats_hist *h, char *err)
{
	json_t *pairs, *pair;
	int64_t mn, mx, sum;
	char sq[STATS_SUMSQ_HEX];
	size_t i;

	stats_hist_init(h);
	pairs = json_object_get(j, "buckets");
	if (!json_is_array(pairs) || json_array_size(pairs) > STATS_NBUCKETS)
		return err_set(err, "histogram has no bucket list");
	if (proto_get_int(j, "min", 0, INT64_MAX, &mn, err) ||
	    proto_get_int(j, "max", 0, INT64_MAX, &mx, err) ||
	    proto_get_int(j, "sum", 0, INT64_MAX, &sum, err) ||
	    proto_get_string(j, "sumsq", sq, sizeof(sq), err))
		return -1;
	if (stats_sumsq_parse(sq, &h->sumsq) < 0)
		return err_set(err, "field \"sumsq\" is not 32 hex digits");
	json_array_foreach(pairs, i, pair)
	{
		json_t *ji = json_array_get(pair, 0);
		json_t *jc = json_array_get(pair, 1);
		json_int_t idx, cnt;

		if (!json_is_integer(ji) || !json_is_integer(jc) ||
		    json_array_size(pair) != 2)
			return err_set(err, "histogram pair %zu is malformed",
				       i);
		idx = json_integer_value(ji);
		cnt = json_integer_value(jc);
		if (idx < 0 || idx >= STATS_NBUCKETS || cnt < 0 ||
		    h->count + (uint64_t)cnt < h->count ||
		    h->bucket[idx] + (uint64_t)cnt > INT64_MAX)
			return err_set(err,
				       "histogram pair %zu is out of range", i);
		h->bucket[idx] += (uint64_t)cnt;
		h->count += (uint64_t)cnt;
	}
	h->sum = (uint64_t)sum;
	if (h->count > 0) {
		h->min = (uint64_t)mn;
		h->max = (uint64_t)mx;
	}
	return 0;
}

json_t *
proto_place_pack(const struct result_place *pl)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:i, s:s}", "requested",
			 pl->requested, "cpus", pl->cpus, "cpu_actual",
			 pl->cpu_actual, "numa", pl->numa, "nic_local",
			 pl->nic_local, "note", pl->note);
}

int
proto_place_unpack(const json_t *j, struct result_place *pl, char *err)
{
	int64_t v;

	memset(pl, 0, sizeof(*pl));
	if (!json_is_object(j))
		return err_set(err, "field \"place\" is not an object");
	if (proto_get_string(j, "requested", pl->requested,
			     sizeof(pl->requested), err) ||
	    proto_get_string(j, "cpus", pl->cpus, sizeof(pl->cpus), err) ||
	    proto_get_string(j, "note", pl->note, sizeof(pl->note), err) ||
	    proto_get_int(j, "cpu_actual", -1, INT32_MAX, &v, err))
		return -1;
	pl->cpu_actual = (int)v;
	if (proto_get_int(j, "numa", -1, INT32_MAX, &v, err))
		return -1;
	pl->numa = (int)v;
	if (proto_get_int(j, "nic_local", -1, 1, &v, err))
		return -1;
	pl->nic_local = (int)v;
	return 0;
}

static json_t *
dir_pack(const struct wire_dir *d)
{
	return json_pack(
	    "{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "packets",
	    (json_int_t)d->packets, "bytes", (json_int_t)d->bytes, "payload",
	    (json_int_t)d->payload, "retrans", (json_int_t)d->retrans,
	    "retrans_bytes", (json_int_t)d->retrans_bytes, "reordered",
	    (json_int_t)d->reordered, "max_len", (json_int_t)d->max_len);
}

static int
dir_unpack(const json_t *j, struct wire_dir *d, char *err)
{
	int64_t v;

	if (!json_is_object(j))
		return err_set(err, "wire direction is not an object");
	if (get_u64(j, "packets", &d->packets, err) ||
	    get_u64(j, "bytes", &d->bytes, err) ||
	    get_u64(j, "payload", &d->payload, err) ||
	    get_u64(j, "retrans", &d->retrans, err) ||
	    (json_object_get(j, "retrans_bytes") &&
	     get_u64(j, "retrans_bytes", &d->retrans_bytes, err)) ||
	    (json_object_get(j, "reordered") &&
	     get_u64(j, "reordered", &d->reordered, err)) ||
	    proto_get_int(j, "max_len", 0, UINT32_MAX, &v, err))
		return -1;
	d->max_len = (uint32_t)v;
	return 0;
}

json_t *
proto_wire_pack(const struct wire_report *w)
{
	const struct iface_stat *s = &w->ifstat;

	return json_pack(
	    "{s:s, s:b, s:o, s:o, s:I, s:b, s:{s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:I, s:I}, s:i, s:s, s:s, s:b, s:s, s:b, s:o}",
	    "ifname", w->ifname, "captured", w->captured, "out",
	    dir_pack(&w->c.out), "in", dir_pack(&w->c.in), "dropped",
	    (json_int_t)w->c.dropped, "have_ifstat", w->have_ifstat, "ifstat",
	    "rx_packets", (json_int_t)s->rx_packets, "tx_packets",
	    (json_int_t)s->tx_packets, "rx_bytes", (json_int_t)s->rx_bytes,
	    "tx_bytes", (json_int_t)s->tx_bytes, "rx_dropped",
	    (json_int_t)s->rx_dropped, "tx_dropped", (json_int_t)s->tx_dropped,
	    "rx_errors", (json_int_t)s->rx_errors, "tx_errors",
	    (json_int_t)s->tx_errors, "mtu", w->mtu, "offloads", w->offloads,
	    "warning", w->warning, "in_kernel", w->c.in_kernel, "counter",
	    wire_counter_name(w->c.counter), "shared", w->shared, "handed",
	    w->captured && w->c.handed >= 0 ? json_integer(w->c.handed)
					    : json_null());
}

int
proto_wire_unpack(const json_t *j, struct wire_report *w, char *err)
{
	struct iface_stat *s = &w->ifstat;
	json_t *is = json_object_get(j, "ifstat");
	json_t *h = json_object_get(j, "handed");
	int64_t v = 0;
	uint64_t u;

	memset(w, 0, sizeof(*w));
	w->enabled = 1;
	if (!json_is_object(j) || !json_is_object(is))
		return err_set(err, "field \"wire\" is malformed");
	if (proto_get_string(j, "ifname", w->ifname, sizeof(w->ifname), err) ||
	    get_bool(j, "captured", &w->captured, err) ||
	    dir_unpack(json_object_get(j, "out"), &w->c.out, err) ||
	    dir_unpack(json_object_get(j, "in"), &w->c.in, err) ||
	    get_u64(j, "dropped", &w->c.dropped, err) ||
	    get_bool(j, "have_ifstat", &w->have_ifstat, err) ||
	    get_u64(is, "rx_packets", &s->rx_packets, err) ||
	    get_u64(is, "tx_packets", &s->tx_packets, err) ||
	    get_u64(is, "rx_bytes", &s->rx_bytes, err) ||
	    get_u64(is, "tx_bytes", &s->tx_bytes, err) ||
	    get_u64(is, "rx_dropped", &s->rx_dropped, err) ||
	    get_u64(is, "tx_dropped", &s->tx_dropped, err) ||
	    get_u64(is, "rx_errors", &s->rx_errors, err) ||
	    get_u64(is, "tx_errors", &s->tx_errors, err) ||
	    proto_get_int(j, "mtu", -1, INT32_MAX, &v, err) ||
	    proto_get_string(j, "offloads", w->offloads, sizeof(w->offloads),
			     err) ||
	    proto_get_string(j, "warning", w->warning, sizeof(w->warning), err))
		return -1;
	w->mtu = (int)v;
	/* Absent or null from a peer that does not say. */
	w->c.handed = -1;
	if (h != NULL && !json_is_null(h)) {
		if (get_u64(j, "handed", &u, err))
			return -1;
		w->c.handed = (int64_t)u;
	}
	/* Absent from a peer without the eBPF counter, or without shared
	 * counts. */
	if ((json_object_get(j, "in_kernel") != NULL &&
	     get_bool(j, "in_kernel", &w->c.in_kernel, err)) ||
	    (json_object_get(j, "shared") != NULL &&
	     get_bool(j, "shared", &w->shared, err)))
		return -1;
	/* Absent from a peer before the tc counter, and a name from a later
	 * one that this side does not know: its in_kernel says whether its
	 * capture's socket had the counter. */
	w->c.counter = w->c.in_kernel ? WIRE_BY_SOCKET : WIRE_BY_CAPTURE;
	if (json_object_get(j, "counter") != NULL) {
		char name[16];
		int k;

		if (proto_get_string(j, "counter", name, sizeof(name), err))
			return -1;
		k = wire_counter_of(name);
		if (k >= 0 && (k != WIRE_BY_CAPTURE) != (w->c.in_kernel != 0))
			return err_set(err, "field \"counter\" says %s, "
					    "\"in_kernel\" the opposite",
				       name);
		if (k >= 0)
			w->c.counter = k;
	}
	return 0;
}

/*
 * The platform record's fields, written once for pack and unpack. Unknown
 * values travel as null: -1 numbers, -1 tri-states, "" strings.
 */
enum pf_kind { PF_STR, PF_INT, PF_TRI, PF_HEX };

struct pf_field {
	const char *key;
	enum pf_kind kind;
	int nic; /* in the "interface" object */
	size_t off;
	size_t cap; /* strings */
};

#define PF_P(key, kind, f)                                                     \
	{key, kind, 0, offsetof(struct platform, f),                           \
	 sizeof(((struct platform *)0)->f)}
#define PF_N(key, kind, f)                                                     \
	{key, kind, 1, offsetof(struct platform_nic, f),                       \
	 sizeof(((struct platform_nic *)0)->f)}

static const struct pf_field pf_fields[] = {
    PF_P("cpu_model", PF_STR, cpu_model),
    PF_P("ncpu", PF_INT, ncpu),
    PF_P("smt", PF_TRI, smt),
    PF_P("smt_control", PF_STR, smt_control),
    PF_P("cpu_mhz", PF_INT, cpu_mhz),
    PF_P("cpu_max_mhz", PF_INT, cpu_max_mhz),
    PF_P("governor", PF_STR, governor),
    PF_P("sysname", PF_STR, sysname),
    PF_P("release", PF_STR, release),
    PF_P("version", PF_STR, version),
    PF_P("machine", PF_STR, machine),
    PF_P("cmdline_mitigations", PF_STR, cmdline_mitigations),
    PF_P("hypervisor", PF_STR, hypervisor),
    PF_P("container", PF_STR, container),
    PF_P("numa_nodes", PF_INT, numa_nodes),
    PF_P("system_vendor", PF_STR, system_vendor),
    PF_P("system_model", PF_STR, system_model),
    PF_P("congestion_control", PF_STR, congestion),
    PF_P("program", PF_STR, program),
    PF_P("build", PF_STR, build),
    PF_N("name", PF_STR, name),
    PF_N("driver", PF_STR, driver),
    PF_N("driver_version", PF_STR, driver_version),
    PF_N("firmware", PF_STR, firmware),
    PF_N("bus_info", PF_STR, bus),
    PF_N("pci_slot", PF_STR, slot),
    PF_N("pci_vendor", PF_HEX, vendor),
    PF_N("pci_device", PF_HEX, device),
    PF_N("pci_subvendor", PF_HEX, subvendor),
    PF_N("pci_subdevice", PF_HEX, subdevice),
    PF_N("speed_mbps", PF_INT, speed_mbps),
    PF_N("mtu", PF_INT, mtu),
    PF_N("tso", PF_TRI, tso),
    PF_N("gso", PF_TRI, gso),
    PF_N("gro", PF_TRI, gro),
    PF_N("lro", PF_TRI, lro),
    PF_N("rx_checksum", PF_TRI, rx_csum),
    PF_N("tx_checksum", PF_TRI, tx_csum),
    PF_N("irqs", PF_INT, nirqs),
    PF_N("irq_cpus", PF_STR, irq_cpus),
    PF_N("qdisc", PF_STR, qdisc),
};

json_t *
proto_platform_pack(const struct platform *p)
{
	json_t *o = json_object(), *nic = json_object(), *vul = json_object();
	size_t i;
	int bad = o == NULL || nic == NULL || vul == NULL;

	for (i = 0; !bad && i < sizeof(pf_fields) / sizeof(pf_fields[0]);
	     i++) {
		const struct pf_field *f = &pf_fields[i];
		const char *base =
		    f->nic ? (const char *)&p->nic : (const char *)p;
		const void *at = base + f->off;
		json_t *v;
		int n;
		char hex[8];

		switch (f->kind) {
		case PF_STR:
			v = ((const char *)at)[0] != '\0'
				? json_stringn(at, strnlen(at, f->cap))
				: json_null();
			break;
		case PF_INT:
			memcpy(&n, at, sizeof(n));
			v = n >= 0 ? json_integer(n) : json_null();
			break;
		case PF_TRI:
			memcpy(&n, at, sizeof(n));
			v = n >= 0 ? json_boolean(n) : json_null();
			break;
		default:
			memcpy(&n, at, sizeof(n));
			snprintf(hex, sizeof(hex), "0x%04x", (unsigned)n & 0xffff);
			v = n >= 0 ? json_string(hex) : json_null();
			break;
		}
		bad |= json_object_set_new(f->nic ? nic : o, f->key, v) != 0;
	}
	for (i = 0; !bad && i < (size_t)p->nvulns && i < PLATFORM_MAX_VULNS;
	     i++)
		bad |= json_object_set_new(vul, p->vuln[i].name,
					   json_string(p->vuln[i].state)) != 0;
	if (!bad) {
		bad |= json_object_set_new(o, "vulnerabilities", vul) != 0;
		vul = NULL;
		bad |= json_object_set_new(o, "interface", nic) != 0;
		nic = NULL;
	}
	json_decref(vul);
	json_decref(nic);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Escapes s (cap bytes) in place as escape_str does when it holds a byte
 * that needs it (one outside printable ASCII, or a backslash, so that
 * what was escaped stays unambiguous); a plain text is left whole, however
 * long. */
static void
escape_field(char *s, size_t cap)
{
	char raw[1024];
	size_t n = strnlen(s, cap), i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ||
		    s[i] == '\\')
			break;
	if (i == n)
		return;
	snprintf(raw, sizeof(raw), "%.*s", (int)n, s);
	escape_str(s, cap, raw);
}

void
proto_platform_escape(struct platform *p)
{
	size_t i;

	for (i = 0; i < sizeof(pf_fields) / sizeof(pf_fields[0]); i++) {
		const struct pf_field *f = &pf_fields[i];

		if (f->kind == PF_STR)
			escape_field((f->nic ? (char *)&p->nic : (char *)p) +
					 f->off,
				     f->cap);
	}
	for (i = 0; i < (size_t)p->nvulns && i < PLATFORM_MAX_VULNS; i++) {
		escape_field(p->vuln[i].name, sizeof(p->vuln[i].name));
		escape_field(p->vuln[i].state, sizeof(p->vuln[i].state));
	}
}

int
proto_platform_unpack(const json_t *j, struct platform *p, char *err)
{
	const json_t *nic = json_object_get(j, "interface");
	const json_t *vul = json_object_get(j, "vulnerabilities");
	const char *name;
	json_t *v;
	size_t i;

	platform_init(p);
	if (!json_is_object(j))
		return err_set(err, "field \"platform\" is not an object");
	if (nic != NULL && !json_is_object(nic))
		return err_set(err, "platform: \"interface\" is not an object");
	if (vul != NULL && !json_is_object(vul))
		return err_set(err, "platform: \"vulnerabilities\" is not an "
				    "object");
	for (i = 0; i < sizeof(pf_fields) / sizeof(pf_fields[0]); i++) {
		const struct pf_field *f = &pf_fields[i];
		const json_t *from = f->nic ? nic : j;
		char *at = (f->nic ? (char *)&p->nic : (char *)p) + f->off;
		int64_t n;
		int k;

		v = from != NULL ? json_object_get(from, f->key) : NULL;
		if (v == NULL || json_is_null(v))
			continue; /* unknown, or from an older netserver */
		switch (f->kind) {
		case PF_STR:
			if (proto_get_string(from, f->key, at, f->cap, err) < 0)
				return err_set(err, "platform: \"%s\" is not a "
						    "string that fits",
					       f->key);
			break;
		case PF_INT:
			if (proto_get_int(from, f->key, 0, INT32_MAX, &n, err) <
			    0)
				return err_set(err, "platform: \"%s\" is not a "
						    "count",
					       f->key);
			k = (int)n;
			memcpy(at, &k, sizeof(k));
			break;
		case PF_TRI:
			if (!json_is_boolean(v))
				return err_set(err, "platform: \"%s\" is not a "
						    "boolean",
					       f->key);
			k = json_is_true(v);
			memcpy(at, &k, sizeof(k));
			break;
		default:
			k = platform_parse_hex(json_string_value(v));
			if (k < 0)
				return err_set(err, "platform: \"%s\" is not a "
						    "PCI id",
					       f->key);
			memcpy(at, &k, sizeof(k));
			break;
		}
	}
	json_object_foreach((json_t *)vul, name, v) {
		struct platform_vuln *pv = &p->vuln[p->nvulns];

		if (p->nvulns == PLATFORM_MAX_VULNS)
			return err_set(err, "platform: more than %d "
					    "vulnerabilities",
				       PLATFORM_MAX_VULNS);
		if (strlen(name) >= sizeof(pv->name) ||
		    proto_get_string(vul, name, pv->state, sizeof(pv->state),
				     err) < 0)
			return err_set(err, "platform: a vulnerability is "
					    "malformed");
		memcpy(pv->name, name, strlen(name) + 1);
		p->nvulns++;
	}
	return 0;
}
