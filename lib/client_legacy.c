/*
 * netperf's side where the peer is no netserver of ours, as
 * server_legacy.c is netserver's: netperf 2.7's control protocol (the
 * probe that finds a 2.7 netserver, its DO_OMNI request, response and
 * results, REM_CPU's CPU_CALIBRATE, and what it cannot do, refused), and
 * -N's standard services. The data connection runs our loops
 * (client_run_untagged).
 */
#include "np/client_legacy.h"

#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np/legacy.h"
#include "np/session.h"
#include "np/sock.h"
#include "np/transport.h"

/* Milliseconds the probe waits for its answer: ours and 2.7's netserver
 * both answer at once, so only a dead or stalled peer takes this long. */
#define CLIENT_PROBE_MS 5000
/* netperf 2.7 gives netserver this long for every answer, and its
 * netserver runs a test this much past its length (PAD_TIME). */
#define LEGACY_ANSWER_MS 120000
#define LEGACY_PAD_SEC 4

/*
 * Which netserver this is, in well under a second: our probe is a 2.7
 * DO_SYSINFO that 2.7's netserver answers at once, changing nothing, and
 * that ours answers with words of its own. Returns 1 for ours (the
 * session goes on in our protocol), 0 for a 2.7 netserver (its answer,
 * or, started with -Z, its close: it wants the passphrase first), or -1
 * with err set.
 */
int
client_legacy_probe(struct client *c, char *err)
{
	unsigned char msg[LEGACY_MSG_LEN];
	int got;

	legacy_probe_encode(msg);
	if (session_send_raw(c->ctl, msg, sizeof(msg), SESSION_TIMEOUT_MS,
			     err) < 0)
		return -1;
	got = session_recv_raw(c->ctl, msg, sizeof(msg), CLIENT_PROBE_MS, err);
	if (got == 1 || (got < 0 && strstr(err, "reset") != NULL))
		return 0;
	if (got < 0)
		return -1;
	got = legacy_probe_answer(msg, sizeof(msg), err);
	if (got < 0) {
		char why[ERR_LEN];

		c->remote_error = 1;
		snprintf(why, sizeof(why), "%s", err);
		return err_set(err, "netserver: %s", why);
	}
	return got;
}

/* netperf 2.7's protocol: the CPU netserver is to bind to, from -T's
 * second part, which 2.7 takes as one CPU number; -1 for none. */
static int
legacy_cpu_word(const struct netperf_opts *o, int32_t *word, char *err)
{
	char *end;
	long v;

	*word = -1;
	if (o->rcpu[0] == '\0')
		return 0;
	v = strtol(o->rcpu, &end, 10);
	if (*end != '\0' || v < 0 || v > 65535)
		return err_set(err,
			       "-T: a 2.7 netserver binds to one CPU number, "
			       "not \"%s\"",
			       o->rcpu);
	*word = (int32_t)v;
	return 0;
}

/* Connects to a 2.7 netserver and sends -Z's passphrase first, as 2.7
 * does (in plain text: that is all 2.7's netserver understands). */
int
client_legacy_open(struct client *c, const struct netperf_opts *o, char *err)
{
	unsigned char msg[LEGACY_MSG_LEN];
	char *fill = c->fill;
	size_t fill_len = c->fill_len;
	int32_t word;

	/* -F's bytes, read before, stay the client's to free. */
	memset(c, 0, sizeof(*c));
	c->fill = fill;
	c->fill_len = fill_len;
	c->ctl = -1;
	c->legacy = 1;
	if (legacy_cpu_word(o, &word, err) < 0)
		return -1;
	if (client_connect_control(c, o, err) < 0)
		return -1;
	snprintf(c->server_program, sizeof(c->server_program),
		 "netserver 2.7");
	/* A 2.7 netserver says nothing of its host. */
	snprintf(c->remote_env.program, sizeof(c->remote_env.program),
		 "netserver 2.7");
	if (o->passphrase[0] != '\0' &&
	    (legacy_passphrase_encode(o->passphrase, word, msg, err) < 0 ||
	     session_send_raw(c->ctl, msg, sizeof(msg), SESSION_TIMEOUT_MS,
			      err) < 0)) {
		close(c->ctl);
		c->ctl = -1;
		return -1;
	}
	return 0;
}

/* 2.7 numbers address families its own way. */
static uint32_t
legacy_family(int af)
{
	return af == AF_INET6  ? LEGACY_NF_INET6
	       : af == AF_INET ? LEGACY_NF_INET
			       : LEGACY_NF_UNSPEC;
}

/* The DO_OMNI request for a test, as 2.7's netperf fills it. */
static int
legacy_request_of(const struct netperf_opts *o, const struct result *res,
		  struct legacy_omni_request *q, char *err)
{
	const struct test_params *p = &res->p;
	const struct test_module *m = res->m;

	memset(q, 0, sizeof(*q));
	if (!transport_of(m, p)->legacy)
		return err_set(err,
			       "%s: netperf 2.7's protocol carries no "
			       "transport but the test's own",
			       transport_of(m, p)->report);
	/* 2.7's connect tests are TCP's alone. */
	if (module_has(m, MODULE_F_PER_TRANS) && m->protocol != IPPROTO_TCP)
		return err_set(err, "%s: a 2.7 netserver has no such test",
			       m->name);
	if (p->duration > 0) {
		if (p->duration != floor(p->duration) ||
		    p->duration > INT32_MAX)
			return err_set(err,
				       "-l: a 2.7 netserver takes whole "
				       "seconds, not %g",
				       p->duration);
		q->test_length = (int32_t)p->duration;
	} else {
		if (m->protocol != IPPROTO_TCP || p->count > INT32_MAX)
			return err_set(err, "-l: a 2.7 netserver counts only "
					    "TCP tests, up to 2^31 - 1");
		q->test_length = (int32_t)-p->count;
	}
	q->send_buf_size = p->rsndbuf;
	q->recv_buf_size = p->rrcvbuf;
	q->send_size = p->rsend_size > 0 ? (int32_t)p->rsend_size : -1;
	q->receive_size = p->rrecv_size > 0 ? (int32_t)p->rrecv_size : -1;
	q->send_alignment = q->recv_alignment = 8;
	q->request_size = module_is_rr(m) ? (int32_t)p->req_size : -1;
	q->response_size = module_is_rr(m) ? (int32_t)p->rsp_size : -1;
	q->flags = LEGACY_F_ROUTING_ALLOWED;
	/* -V: as 2.7, copy avoidance asked of both directions. */
	q->so_rcvavoid = q->so_sndavoid = (uint32_t)p->splice;
	if (p->nodelay)
		q->flags |= LEGACY_F_NO_DELAY;
	if (o->remote_cpu)
		q->flags |= LEGACY_F_MEASURE_CPU;
	if (module_has(m, MODULE_F_PER_TRANS))
		q->flags |= LEGACY_F_CONNECT_TEST;
	q->send_dirty_count = q->recv_dirty_count = q->recv_clean_count = -1;
	q->data_port = (uint32_t)p->data_port;
	q->ipfamily = legacy_family(res->family);
	q->socket_type =
	    m->socktype == SOCK_STREAM ? LEGACY_NST_STREAM : LEGACY_NST_DGRAM;
	q->protocol = (uint32_t)m->protocol;
	/* Seen from netserver: it receives what netperf sends; TCP_CC's
	 * is the omni test of no direction. */
	q->direction = module_has(m, MODULE_F_NO_DATA) ? 0
		       : module_is_rr(m)	     ? LEGACY_XMIT | LEGACY_RECV
		       : m->flow == MODULE_TO_CLIENT ? LEGACY_XMIT
						     : LEGACY_RECV;
	q->socket_prio = q->socket_tos = -1;
	return 0;
}

/* netserver's results into its side's sum: what 2.7 reports and
 * nothing more (no MSS, placement or per-CPU figures). */
static void
legacy_remote(const struct legacy_omni_results *z, int measured,
	      struct side_result *r)
{
	r->elapsed = z->elapsed_time;
	r->bytes_sent = z->bytes_sent;
	r->bytes_recv = z->bytes_received;
	r->send_calls = z->send_calls;
	r->recv_calls = z->recv_calls;
	r->trans = z->trans_received;
	r->sndbuf_end = z->send_buf_size;
	r->rcvbuf_end = z->recv_buf_size;
	r->send_errors = z->failed_sends;
	r->mss = -1;
	r->retrans = z->transport_retrans > 0 ? (uint32_t)z->transport_retrans
					      : 0;
	r->cpu_id = -1;
	if (!measured || !isfinite(z->cpu_util) || z->cpu_util < 0 ||
	    z->num_cpus < 1 || z->num_cpus > 65536)
		return;
	r->cpu_measured = 1;
	r->cpu.all.util = z->cpu_util;
	r->cpu.all.user = z->cpu_user;
	r->cpu.all.system = z->cpu_system;
	r->cpu.all.iowait = z->cpu_iowait;
	r->cpu.all.irq = z->cpu_irq;
	r->cpu.all.softirq = z->cpu_swintr;
	/* 2.7's utilisation is what is not idle. */
	r->cpu.all.idle = 100.0 - z->cpu_util;
	r->cpu.ncpu = (int)z->num_cpus;
	r->cpu.peak = isfinite(z->peak_cpu_util) ? z->peak_cpu_util : -1;
	r->cpu.peak_id = z->peak_cpu_id;
}

/* netserver's words, from a 2.7 message that decoded to an error. */
static int
legacy_words(struct client *c, int got, char *err)
{
	char why[ERR_LEN];

	if (got == 0)
		return 0;
	c->remote_error = 1;
	snprintf(why, sizeof(why), "%s", err);
	return err_set(err, "netserver: %s", why);
}

/* The DO_OMNI request out, and 2.7's answer: netserver's sizes and data
 * port into res and *a. Returns 0, or -1 with err set. */
static int
legacy_ask(struct client *c, const struct netperf_opts *o, struct result *res,
	   const struct legacy_omni_request *q, int32_t word,
	   struct legacy_omni_response *a, char *err)
{
	struct side_result *r = &res->side[RESULT_REMOTE].sum;
	unsigned char msg[LEGACY_MSG_LEN];
	int got;

	legacy_request_encode(q, word, msg);
	if (session_send_raw(c->ctl, msg, sizeof(msg), SESSION_TIMEOUT_MS,
			     err) < 0)
		return -1;
	got = session_recv_raw(c->ctl, msg, sizeof(msg), LEGACY_ANSWER_MS, err);
	/* A 2.7 netserver -Z closes on a wrong passphrase or none, unread
	 * request and all, so the close may come as a reset. */
	if (got == 1 || (got < 0 && o->passphrase[0] != '\0' &&
			 strstr(err, "reset") != NULL))
		return err_set(err,
			       o->passphrase[0] != '\0'
				   ? "netserver closed the control connection "
				     "(a 2.7 netserver does that on a wrong -Z "
				     "passphrase)"
				   : "netserver closed the control connection "
				     "(a 2.7 netserver started with -Z does "
				     "that when no passphrase is sent)");
	if (got < 0 ||
	    legacy_words(c, legacy_response_decode(msg, sizeof(msg), a, err),
			 err) < 0)
		return -1;
	r->sndbuf = a->send_buf_size;
	r->rcvbuf = a->recv_buf_size;
	r->send_size = a->send_size;
	r->recv_size = a->receive_size;
	return 0;
}

/* 2.7's results message, after the test: netserver's figures. */
static int
legacy_results(struct client *c, const struct netperf_opts *o,
	       struct result *res, const struct legacy_omni_response *a,
	       char *err)
{
	struct result_side *rs = &res->side[RESULT_REMOTE];
	unsigned char msg[LEGACY_MSG_LEN];
	struct legacy_omni_results z;
	int got, results_ms;

	/* A 2.7 netserver that is not only sending runs its timer past the
	 * test's length before it gives up on the data connection. */
	results_ms = (int)((res->p.duration + LEGACY_PAD_SEC) * 1000) +
		     LEGACY_ANSWER_MS;
	got = session_recv_raw(c->ctl, msg, sizeof(msg), results_ms, err);
	if (got == 1)
		return err_set(err, "netserver closed the control connection "
				    "before its results");
	if (got < 0 ||
	    legacy_words(c, legacy_results_decode(msg, sizeof(msg), &z, err),
			 err) < 0)
		return -1;
	legacy_remote(&z, o->remote_cpu && (a->flags & LEGACY_F_MEASURE_CPU),
		      &rs->sum);
	rs->stream[0] = rs->sum;
	memset(&rs->stream[0].cpu, 0, sizeof(rs->stream[0].cpu));
	return 0;
}

/* What a 2.7 netserver cannot do on its side: an option that asks it to
 * is refused, not dropped with a figure that looks like one. Returns 0,
 * or -1 with err set. */
static int
legacy_refuses(const struct result *res, char *err)
{
	const struct test_params *p = &res->p;
	/* Whether netserver sends the data. */
	int tx = res->m->flow == MODULE_TO_CLIENT;

	if (p->bidir)
		return err_set(err, "--bidir: a 2.7 netserver runs one "
				    "direction");
	if (p->batch > 1)
		return err_set(err, "--batch: a 2.7 netserver receives a "
				    "datagram a call");
	if (p->udp_gro)
		return err_set(err, "--udp-gro: a 2.7 netserver does not set "
				    "UDP_GRO");
	if (p->busy_poll > 0)
		return err_set(err, "--busy-poll: a 2.7 netserver does not "
				    "set SO_BUSY_POLL");
	if (p->one_way)
		return err_set(err, "--one-way: a 2.7 netserver does not "
				    "stamp its answers");
	if (p->zerocopy && tx)
		return err_set(err, "--zerocopy: a 2.7 netserver does not "
				    "send with MSG_ZEROCOPY");
	if (p->timestamps)
		return err_set(err, "--timestamps: a 2.7 netserver reads no "
				    "stamps");
	if (p->mix.n > 0)
		return err_set(err, "-r: a 2.7 netserver reads no request "
				    "mix");
	if (p->io_uring)
		return err_set(err, "--io-uring: a 2.7 netserver has no "
				    "io_uring data path");
	return 0;
}

/* One test with a 2.7 netserver: DO_OMNI, its response, our loops on the
 * data connection it names, its results. */
int
client_legacy_test(struct client *c, const struct netperf_opts *o,
		   struct result *res, volatile sig_atomic_t *stop, char *err)
{
	struct legacy_omni_request q;
	struct legacy_omni_response a;
	struct streams set;
	int rc = -1;
	int32_t word;

	memset(&set, 0, sizeof(set));
	res->legacy = 1;
	if (legacy_refuses(res, err) < 0)
		return -1;
	if (res->p.streams > 1)
		return err_set(err, "--streams: a 2.7 netserver runs one "
				    "stream");
	if (res->p.wire)
		return err_set(err, "--wire: a 2.7 netserver counts no "
				    "packets");
	/* 2.7's netserver starts its CPU account and its timer as soon as
	 * it answers the request, so the wait would be in its figures. */
	if (res->p.start_at_ns > 0)
		return err_set(err, "--start-at: a 2.7 netserver cannot wait "
				    "for a scheduled start");
	if (legacy_cpu_word(o, &word, err) < 0 ||
	    legacy_request_of(o, res, &q, err) < 0)
		return -1;
	if (client_one_stream(c, res, &set, err) == 0 &&
	    legacy_ask(c, o, res, &q, word, &a, err) == 0 &&
	    client_run_untagged(c, o, res, (int)a.data_port, &set, stop,
				err) == 0 &&
	    legacy_results(c, o, res, &a, err) == 0)
		rc = 0;
	streams_free(&set, NULL);
	return rc;
}

/* REM_CPU from a 2.7 netserver: CPU_CALIBRATE and its answer. */
int
client_legacy_cpu_rate(struct client *c, const struct netperf_opts *o,
		       double *rate, int *ncpu, char *err)
{
	unsigned char msg[LEGACY_MSG_LEN];
	int32_t word, n;
	float r;
	int got;

	if (legacy_cpu_word(o, &word, err) < 0)
		return -1;
	legacy_calibrate_encode(word, msg);
	if (session_send_raw(c->ctl, msg, sizeof(msg), SESSION_TIMEOUT_MS,
			     err) < 0)
		return -1;
	/* 2.7 allows a calibration 40 s more than any other answer. */
	got = session_recv_raw(c->ctl, msg, sizeof(msg),
			       LEGACY_ANSWER_MS + 40000, err);
	if (got == 1)
		return err_set(err, "netserver closed the control connection "
				    "before its CPU rate");
	if (got < 0 ||
	    legacy_words(c,
			 legacy_calibrate_answer_decode(msg, sizeof(msg), &r,
							&n, err),
			 err) < 0)
		return -1;
	*rate = r;
	*ncpu = n;
	return 0;
}

/* -N: no control connection; the peer is the first address of -H, and
 * this side the wildcard of its family, as 2.7's banner shows. */
int
client_nocontrol_open(struct client *c, const struct netperf_opts *o,
		      char *err)
{
	struct addrinfo *ai;

	if (sock_resolve(o->host, 0, o->family, SOCK_STREAM, &ai, err) < 0) {
		c->unreached = 1;
		return -1;
	}
	memcpy(&c->peer, ai->ai_addr, ai->ai_addrlen);
	c->self.ss_family = ai->ai_family;
	freeaddrinfo(ai);
	c->no_control = 1;
	snprintf(c->server_program, sizeof(c->server_program), "none (-N)");
	snprintf(c->remote_env.program, sizeof(c->remote_env.program),
		 "none (-N)");
	return 0;
}

/*
 * -N: no netserver, a standard service at the data port (discard takes
 * what STREAM tests send, chargen sends what MAERTS receives, echo
 * answers RR tests). Nobody measures the far end, so as netperf 2.7
 * does, what was sent counts as received there.
 */
int
client_nocontrol_test(struct client *c, const struct netperf_opts *o,
		      struct result *res, volatile sig_atomic_t *stop,
		      char *err)
{
	struct side_result *l = &res->side[RESULT_LOCAL].sum,
			   *r = &res->side[RESULT_REMOTE].sum;
	struct streams set;
	int rc = -1;

	memset(&set, 0, sizeof(set));
	if (client_one_stream(c, res, &set, err) < 0)
		goto out;
	set.ctx[0].end_own = 1;
	if (client_run_untagged(c, o, res, res->p.data_port, &set, stop,
				err) < 0)
		goto out;
	/* 2.7's figures for the far end: sizes 0 and -1, TCP's bytes as
	 * sent, UDP's as none (nothing says what arrived). */
	memset(r, 0, sizeof(*r));
	r->elapsed = l->elapsed;
	if (res->m->socktype == SOCK_STREAM || res->m->flow == MODULE_BOTH) {
		r->bytes_recv = l->bytes_sent;
		r->recv_calls = l->send_calls;
	}
	r->bytes_sent = l->bytes_recv;
	r->send_calls = l->recv_calls;
	r->trans = l->trans;
	r->send_size = r->recv_size = -1;
	r->mss = -1;
	r->cpu_id = -1;
	res->side[RESULT_REMOTE].stream[0] = *r;
	rc = 0;
out:
	streams_free(&set, NULL);
	return rc;
}

