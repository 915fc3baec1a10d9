/*
 * netserver's side of netperf 2.7's control protocol (served unless
 * netserver --no-legacy): 656-byte messages decoded by lib/legacy.c; the
 * six tests and TCP_CC over omni, and the classic requests of 2.7's
 * TCP_STREAM, TCP_SENDFILE, TCP_MSS and TCP_CC, run by the same loops and
 * held to the same limits as our own protocol's; REM_CPU's CPU_CALIBRATE,
 * and our netperf's probe.
 */
#include "np/server_legacy.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np/auth.h"
#include "np/clock.h"
#include "np/fast.h"
#include "np/guard.h"
#include "np/legacy.h"
#include "np/proto.h"
#include "np/session.h"
#include "np/sock.h"
#include "np/streams.h"

/* The longest one read of the control connection is left waiting before
 * the stop flag is looked at again. */
#define SLICE_MS 100

/*
 * Reads one whole message within timeout_ms, looking at *stop between
 * slices. Returns 0; 1 when the client closed before a message; or -1
 * with err set (a partial message, a time-out, SIGTERM, an error).
 */
static int
recv_msg(int ctl, unsigned char *msg, int timeout_ms,
	 volatile sig_atomic_t *stop, char *err)
{
	struct pollfd pfd = {.fd = ctl, .events = POLLIN};
	uint64_t end = clock_ns() + (uint64_t)timeout_ms * 1000000;
	int rc;

	for (;;) {
		if (*stop)
			return err_set(err, SERVER_SHUTDOWN_TEXT);
		rc = poll(&pfd, 1, SLICE_MS);
		if (rc > 0)
			break;
		if (rc < 0 && errno != EINTR)
			return err_set(err, "poll: %s", strerror(errno));
		if (clock_ns() >= end)
			return err_set(err, "no request within %d ms",
				       timeout_ms);
	}
	/* The rest of a message that has begun comes within a deadline of
	 * its own: a client dribbling bytes is cut. */
	return session_recv_raw(ctl, msg, LEGACY_MSG_LEN, SESSION_TIMEOUT_MS,
				err);
}

/* 2.7's error response: its type word and the errno, nothing else. */
static void
send_errno(int ctl, int32_t type, int serv_errno)
{
	unsigned char msg[LEGACY_MSG_LEN];
	char err[ERR_LEN];

	legacy_error_encode(type, serv_errno, msg);
	session_send_raw(ctl, msg, sizeof(msg), 1000, err);
}

/*
 * Opens the data socket on the address the client reached us at. A UDP
 * socket queues only the control client's host's datagrams, from before
 * the client hears its port: 2.7's first datagram is data, not a token,
 * so another host's that came before connect() would be counted.
 */
static int
open_data(int ctl, const struct test_module *m, const struct test_params *p,
	  char *err)
{
	struct sockaddr_storage self, peer;
	socklen_t len = sizeof(self), plen = sizeof(peer);
	char addr[SOCK_ADDR_LEN];
	int fd;

	if (getsockname(ctl, (struct sockaddr *)&self, &len) < 0 ||
	    getpeername(ctl, (struct sockaddr *)&peer, &plen) < 0)
		return err_set(err, "control connection: %s", strerror(errno));
	sock_addr_text((struct sockaddr *)&self, addr);
	fd = sock_listen(addr, p->data_port, self.ss_family, m->socktype, 5,
			 err);
	if (fd < 0)
		return -1;
	if (sock_set_buffers(fd, p->rsndbuf, p->rrcvbuf, err) < 0 ||
	    (m->socktype == SOCK_DGRAM &&
	     sock_filter_host(fd, (struct sockaddr *)&peer, err) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Returns 1 when the client has closed the control connection (or it
 * failed), 0 when it is open; what it may have sent stays unread. */
static int
ctl_closed(int ctl)
{
	char c;
	ssize_t n = recv(ctl, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

/*
 * Waits for the data connection (TCP) or the first datagram (UDP) from the
 * control client's host, by accept_ms; others are turned away and logged.
 * The control connection is watched meanwhile: a client that closes it
 * ends the wait at once. A UDP socket is connected to the datagram's
 * sender, which stays queued for the test to count: its filter (see
 * open_data) kept every other host's out of the queue, and connect()
 * keeps out what comes later from other ports. Returns the socket to run
 * the test on, or -1.
 */
static int
await_data(int lfd, int ctl, const struct test_module *m, int accept_ms,
	   server_log_fn log, volatile sig_atomic_t *stop, char *err)
{
	uint64_t end = clock_ns() + (uint64_t)accept_ms * 1000000, now;
	struct sockaddr_storage peer, from;
	struct pollfd pfd[2] = {{.fd = lfd, .events = POLLIN},
				{.fd = ctl, .events = POLLIN}};
	socklen_t len = sizeof(peer);
	char text[SOCK_ADDR_LEN], c;
	int fd, ms;

	if (getpeername(ctl, (struct sockaddr *)&peer, &len) < 0)
		return err_set(err, "getpeername: %s", strerror(errno));
	for (;;) {
		if (*stop)
			return err_set(err, SERVER_SHUTDOWN_TEXT);
		now = clock_ns();
		if (now >= end)
			return err_set(err, "no data connection within %d ms",
				       accept_ms);
		ms = (int)((end - now) / 1000000 + 1);
		if (poll(pfd, 2, ms < SLICE_MS ? ms : SLICE_MS) <= 0)
			continue;
		/* A data connection that came before the control
		 * connection's close is served: 2.7's TCP_MSS connects and
		 * closes both at once. */
		if (pfd[1].revents != 0 && pfd[0].revents == 0) {
			if (ctl_closed(ctl))
				return err_set(err,
					       "the client closed the control "
					       "connection before its data "
					       "connection");
			/* Early words from the client wait for the test;
			 * they must not keep the poll awake. */
			pfd[1].fd = -1;
		}
		if (pfd[0].revents == 0)
			continue;
		len = sizeof(from);
		if (m->socktype == SOCK_STREAM) {
			fd = accept4(lfd, (struct sockaddr *)&from, &len,
				     SOCK_CLOEXEC);
			if (fd < 0)
				continue;
		} else {
			fd = -1;
			if (recvfrom(lfd, &c, 1, MSG_PEEK | MSG_DONTWAIT,
				     (struct sockaddr *)&from, &len) < 0)
				continue;
		}
		if (sock_same_host((struct sockaddr *)&peer,
				   (struct sockaddr *)&from)) {
			if (fd >= 0)
				return fd;
			if (connect(lfd, (struct sockaddr *)&from, len) < 0)
				return err_set(err, "connect: %s",
					       strerror(errno));
			return lfd;
		}
		sock_addr_text((struct sockaddr *)&from, text);
		log(SERVER_LOG_LIMITED,
		    "refused a data connection from %s: not the control "
		    "client",
		    text);
		if (fd >= 0)
			close(fd);
		else
			recv(lfd, &c, 1, MSG_DONTWAIT);
	}
}

/* Binds this session to the CPU a 2.7 request names (its "dummy" word), as
 * 2.7's netserver does; the test threads inherit it. */
static int
bind_cpu(int32_t cpu, char *err)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	if (cpu >= CPU_SETSIZE)
		return err_set(err, "CPU %d does not exist here", cpu);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return err_set(err, "cannot bind to CPU %d: %s", cpu,
			       strerror(errno));
	return 0;
}

/* What our side's figures are in 2.7's results message. */
static void
results_of(const struct side_result *r, int measured,
	   struct legacy_omni_results *z)
{
	memset(z, 0, sizeof(*z));
	z->bytes_received = r->bytes_recv;
	z->recv_calls = (uint32_t)r->recv_calls;
	z->recv_buf_size = r->rcvbuf_end;
	z->bytes_sent = r->bytes_sent;
	z->send_calls = (uint32_t)r->send_calls;
	z->send_buf_size = r->sndbuf_end;
	z->failed_sends = (uint32_t)r->send_errors;
	z->trans_received = (uint32_t)r->trans;
	z->elapsed_time = (float)r->elapsed;
	z->cpu_method = LEGACY_CPU_PROC_STAT;
	z->num_cpus = (uint32_t)cpu_count();
	z->peak_cpu_id = -1;
	z->serv_dem = -1;
	z->vendor = z->device = z->subvendor = z->subdevice = -1;
	z->transport_retrans = (int32_t)r->retrans;
	if (!measured)
		return;
	z->cpu_util = (float)r->cpu.all.util;
	z->cpu_user = (float)r->cpu.all.user;
	z->cpu_system = (float)r->cpu.all.system;
	z->cpu_iowait = (float)r->cpu.all.iowait;
	z->cpu_irq = (float)r->cpu.all.irq;
	z->cpu_swintr = (float)r->cpu.all.softirq;
	z->num_cpus = (uint32_t)r->cpu.ncpu;
	z->peak_cpu_id = r->cpu.peak_id;
	z->peak_cpu_util = (float)r->cpu.peak;
}

struct omni;

/* What one kind of 2.7 request needs of its own: DO_OMNI's, or a classic
 * test's (DO_TCP_STREAM, DO_TCP_CC). The rest of a test is shared. */
struct request_kind {
	/* The response type, which 2.7's error response carries too. */
	int32_t rsp;
	/* Decodes msg into t->p; returns 0, or the errno to refuse with. */
	int (*params)(struct omni *t, const unsigned char *msg, char *err);
	/* Writes the response: our sizes and the data port. */
	void (*answer)(const struct omni *t, unsigned char out[LEGACY_MSG_LEN]);
	/* Writes the results from t->r. */
	void (*results)(const struct omni *t,
			unsigned char out[LEGACY_MSG_LEN]);
};

/* netserver's side of one 2.7 test request. */
struct omni {
	const struct request_kind *kind;
	int ctl;
	const struct server_limits *lim;
	server_log_fn log;
	volatile sig_atomic_t *stop;
	struct guard *guard;
	const struct test_module *m;
	struct legacy_omni_request q;
	struct legacy_classic_request cq;
	struct test_params p;
	struct side_result r; /* the stream's start, then the sum */
	struct streams set;
	int lfd;
	size_t buflen;
};

/* DO_OMNI's request: one of the six tests, or TCP_CC. */
static int
omni_params(struct omni *t, const unsigned char *msg, char *err)
{
	if (legacy_request_decode(msg, LEGACY_MSG_LEN, &t->q, err) < 0)
		return EINVAL;
	return legacy_request_params(&t->q, &t->p, err);
}

/* A classic request: TCP_STREAM's (2.7's TCP_STREAM, TCP_SENDFILE and
 * TCP_MSS send it; TCP_STREAM's receiver serves all three), or TCP_CC's. */
static int
classic_params(struct omni *t, const unsigned char *msg, char *err)
{
	if (legacy_classic_request_decode(msg, LEGACY_MSG_LEN, &t->cq, err) < 0)
		return EINVAL;
	return legacy_classic_params(&t->cq, &t->p, err);
}

/* The request decoded and held to the limits; returns 0, or the errno
 * 2.7's error response refuses it with, err saying why. */
static int
omni_check(struct omni *t, const unsigned char *msg, char *err)
{
	struct legacy_header h;
	int e;

	legacy_header_decode(msg, LEGACY_MSG_LEN, &h, err);
	e = t->kind->params(t, msg, err);
	if (e != 0)
		return e;
	if (server_check_request(&t->p, t->lim, err) < 0)
		return EPERM;
	if (bind_cpu(h.word, err) < 0)
		return EINVAL;
	t->m = module_find(t->p.test);
	return streams_alloc(&t->set, t->m, 1, 1, NULL, err) < 0 ? ENOMEM : 0;
}

/* The data socket and the buffer, whatever widths and alignments 2.7
 * asked for: the memory a test takes is bounded by the limits, not by
 * the client. Returns 0, or the errno to refuse with. */
static int
omni_setup(struct omni *t, char *err)
{
	struct side_result *r = &t->r;
	struct test_ctx *ctx = &t->set.ctx[0];
	int64_t sizes[4], need;

	t->lfd = open_data(t->ctl, t->m, &t->p, err);
	if (t->lfd < 0)
		return errno != 0 ? errno : EADDRNOTAVAIL;
	sock_get_buffers(t->lfd, &r->sndbuf, &r->rcvbuf);
	streams_sizes(t->m, t->p.rsend_size, t->p.rrecv_size, r->sndbuf,
		      r->rcvbuf, r);
	if (r->send_size > t->lim->max_msg)
		r->send_size = t->lim->max_msg;
	if (r->recv_size > t->lim->max_msg)
		r->recv_size = t->lim->max_msg;
	sizes[0] = r->send_size;
	sizes[1] = r->recv_size;
	sizes[2] = t->p.req_size;
	sizes[3] = t->p.rsp_size;
	need = (int64_t)streams_max(sizes, 4);
	if (need > t->lim->max_session_mem) {
		err_set(err,
			"this test needs %lld bytes of data buffer, over this "
			"server's limit of %lld per session "
			"(--max-session-memory)",
			(long long)need, (long long)t->lim->max_session_mem);
		return EPERM;
	}
	ctx->buf = module_buffer(sizes, 4, &t->buflen);
	if (ctx->buf == NULL) {
		err_set(err, "cannot allocate a %zu-byte buffer", t->buflen);
		return ENOMEM;
	}
	return 0;
}

/* DO_OMNI's answer. */
static void
omni_answer(const struct omni *t, unsigned char out[LEGACY_MSG_LEN])
{
	struct legacy_omni_response a;
	const struct test_params *p = &t->p;

	memset(&a, 0, sizeof(a));
	a.recv_buf_size = t->r.rcvbuf;
	a.send_buf_size = t->r.sndbuf;
	a.receive_size =
	    (int32_t)(p->req_size > 0 ? p->req_size : t->r.recv_size);
	a.send_size = (int32_t)(p->rsp_size > 0 ? p->rsp_size : t->r.send_size);
	a.recv_width = a.send_width = 1;
	a.flags = (p->nodelay ? LEGACY_F_NO_DELAY : 0) |
		  (p->remote_cpu ? LEGACY_F_MEASURE_CPU : 0);
	/* What 2.7's /proc/stat netserver answers when asked to measure. */
	a.cpu_rate = p->remote_cpu ? 100.0f : 0.0f;
	a.test_length = (uint32_t)t->q.test_length;
	a.data_port = (uint32_t)sock_local_port(t->lfd);
	a.socket_prio = a.socket_tos = -1;
	legacy_response_encode(&a, out);
}

/* A classic request's answer, with what 2.7's netserver echoes. */
static void
classic_answer(const struct omni *t, unsigned char out[LEGACY_MSG_LEN])
{
	struct legacy_classic_response a;
	const struct test_params *p = &t->p;

	memset(&a, 0, sizeof(a));
	a.type = t->kind->rsp;
	a.recv_buf_size = t->r.rcvbuf;
	a.send_buf_size = t->r.sndbuf;
	a.receive_size = (int32_t)t->r.recv_size;
	a.no_delay = p->nodelay;
	a.measure_cpu = p->remote_cpu;
	/* What 2.7's /proc/stat netserver answers when asked to measure. */
	a.cpu_rate = p->remote_cpu ? 100.0f : 0.0f;
	a.test_length = t->cq.test_length;
	a.data_port = sock_local_port(t->lfd);
	a.so_rcvavoid = p->splice;
	legacy_classic_response_encode(&a, out);
}

/* DO_OMNI's results. */
static void
omni_results(const struct omni *t, unsigned char out[LEGACY_MSG_LEN])
{
	struct legacy_omni_results z;

	results_of(&t->r, t->p.remote_cpu && t->r.cpu_measured, &z);
	legacy_results_encode(&z, LEGACY_OMNI_RESPONSE, out);
}

/* A classic test's results: TCP_CC's bytes are its connections times the
 * request's sizes, as 2.7 reports them. */
static void
classic_results(const struct omni *t, unsigned char out[LEGACY_MSG_LEN])
{
	const struct side_result *r = &t->r;
	struct legacy_classic_results z;

	memset(&z, 0, sizeof(z));
	z.type = t->kind->rsp;
	z.recv_calls = (uint32_t)r->recv_calls;
	z.trans_received = (uint32_t)r->trans;
	if (z.type == LEGACY_TCP_CC_RESPONSE)
		z.bytes_received =
		    (double)r->trans *
		    ((double)t->cq.request_size + (double)t->cq.response_size);
	else
		z.bytes_received = (double)r->bytes_recv;
	z.elapsed_time = (float)r->elapsed;
	z.cpu_util = -1;
	z.serv_dem = -1;
	z.cpu_method = LEGACY_CPU_PROC_STAT;
	z.num_cpus = cpu_count();
	z.recv_buf_size = r->rcvbuf_end;
	z.send_buf_size = r->sndbuf_end;
	if (t->p.remote_cpu && r->cpu_measured) {
		z.cpu_util = (float)r->cpu.all.util;
		z.num_cpus = r->cpu.ncpu;
	}
	legacy_classic_results_encode(&z, out);
}

static const struct request_kind kind_omni = {LEGACY_OMNI_RESPONSE, omni_params,
					      omni_answer, omni_results};
static const struct request_kind kind_tcp_stream = {
    LEGACY_TCP_STREAM_RESPONSE, classic_params, classic_answer,
    classic_results};
static const struct request_kind kind_tcp_cc = {
    LEGACY_TCP_CC_RESPONSE, classic_params, classic_answer, classic_results};

/* 2.7's answer: our sizes and the data port. */
static int
omni_send_answer(struct omni *t, char *err)
{
	unsigned char out[LEGACY_MSG_LEN];

	t->kind->answer(t, out);
	return session_send_raw(t->ctl, out, sizeof(out), SESSION_TIMEOUT_MS,
				err);
}

/* The data connection (or, for a connect test, the listener) made the
 * stream's; returns 0, or the errno to tell the client. */
static int
omni_connect(struct omni *t, char *err)
{
	struct test_ctx *ctx = &t->set.ctx[0];
	int fd = t->lfd;

	ctx->peerlen = sizeof(ctx->peer);
	getpeername(t->ctl, (struct sockaddr *)&ctx->peer, &ctx->peerlen);
	if (!module_has(t->m, MODULE_F_PER_TRANS)) {
		fd = await_data(t->lfd, t->ctl, t->m, t->lim->accept_ms, t->log,
				t->stop, err);
		if (fd < 0)
			return *t->stop ? ESHUTDOWN : ETIMEDOUT;
		/* The stream's now (UDP: the one socket is the test's). */
		t->set.fds[0] = fd;
		if (fd == t->lfd)
			t->lfd = -1;
	}
	t->set.r[0] = t->r;
	if (streams_open(&t->set, 0, fd, &t->p, t->stop, NULL, err) < 0)
		return errno ? errno : EINVAL;
	ctx->buflen = t->buflen;
	ctx->ctl = t->ctl;
	ctx->untagged = 1;
	return 0;
}

/* The test under the session's guard, and 2.7's results message; returns
 * 0, or -1 with err set (the client told, when it can be). */
static int
omni_run(struct omni *t, char *err)
{
	unsigned char out[LEGACY_MSG_LEN];
	struct module_run run;
	enum guard_cause cause;
	int rc;

	memset(&run, 0, sizeof(run));
	run.m = t->m;
	run.is_server = 1;
	run.measure_cpu = t->p.remote_cpu;
	run.n = 1;
	run.ctx = t->set.ctx;
	t->log(1, "running %s for a netperf 2.7 client, for %.0f s",
	       t->m->name, t->p.duration);
	if (guard_test_begin(t->guard, 1, err) < 0) {
		send_errno(t->ctl, t->kind->rsp, EAGAIN);
		return -1;
	}
	guard_track(t->guard, t->set.ctx[0].fd);
	guard_test_deadline(t->guard, t->lim->max_duration, 0);
	server_report(t->lim, METRICS_EV_TEST_START, t->m->name, 0, 0, 1, 0);
	rc = module_run_all(&run, err);
	/* --metrics: what the stream moved, whatever the test's end. */
	server_report(t->lim, METRICS_EV_TEST_END, t->m->name,
		      t->set.ctx[0].r->bytes_sent + t->set.ctx[0].r->bytes_recv,
		      t->set.ctx[0].r->trans, 1, 0);
	cause = guard_cause_of(t->guard);
	if (cause == GUARD_OVERTIME || cause == GUARD_LIFETIME)
		server_report(t->lim, METRICS_EV_CUT, NULL, 0, 0, 0, 0);
	guard_test_end(t->guard);
	if (cause != GUARD_NONE) {
		guard_reason(t->guard, err);
		t->log(0, "ended a netperf 2.7 test: %s", err);
		send_errno(t->ctl, t->kind->rsp,
			   cause == GUARD_STOP ? ESHUTDOWN : ETIMEDOUT);
		return -1;
	}
	if (rc < 0) {
		send_errno(t->ctl, t->kind->rsp, EIO);
		return -1;
	}
	module_merge(&run, &t->r);
	t->kind->results(t, out);
	return session_send_raw(t->ctl, out, sizeof(out), SESSION_TIMEOUT_MS,
				err);
}

/*
 * Serves one test request of the given kind. Returns 0 when the test ran
 * and its results went out; 1 when it was refused with 2.7's error
 * response (the session goes on, as 2.7's does); -1 with err set when the
 * session must end.
 */
static int
serve_omni(const struct request_kind *kind, int ctl, const unsigned char *msg,
	   const struct server_limits *lim, server_log_fn log,
	   volatile sig_atomic_t *stop, struct guard *g, char *err)
{
	struct omni t;
	int e, rc = -1;

	memset(&t, 0, sizeof(t));
	t.kind = kind;
	t.ctl = ctl;
	t.lim = lim;
	t.log = log;
	t.stop = stop;
	t.guard = g;
	t.lfd = -1;
	e = omni_check(&t, msg, err);
	if (e == 0)
		e = omni_setup(&t, err);
	if (e != 0) {
		log(SERVER_LOG_LIMITED, "refused a netperf 2.7 request: %s",
		    err);
		send_errno(ctl, kind->rsp, e);
		rc = 1;
		goto out;
	}
	if (omni_send_answer(&t, err) < 0)
		goto out;
	e = omni_connect(&t, err);
	if (e != 0) {
		send_errno(ctl, kind->rsp, e);
		goto out;
	}
	rc = omni_run(&t, err) < 0 ? -1 : 0;
out:
	cpu_util_free(&t.r.cpu);
	if (t.lfd >= 0)
		close(t.lfd);
	streams_free(&t.set, NULL);
	return rc;
}

/* The session's requests, from msg on, each under the guard g. Returns 0
 * when the client closes, or -1 with err set. */
static int
tests(int ctl, unsigned char *msg, const struct server_limits *lim,
      server_log_fn log, volatile sig_atomic_t *stop, struct guard *g,
      char *err)
{
	const struct request_kind *kind;
	struct legacy_header h;
	int rc, refusals = 0;

	for (;;) {
		legacy_header_decode(msg, LEGACY_MSG_LEN, &h, err);
		kind = h.type == LEGACY_DO_OMNI		? &kind_omni
		       : h.type == LEGACY_DO_TCP_STREAM ? &kind_tcp_stream
		       : h.type == LEGACY_DO_TCP_CC	? &kind_tcp_cc
							: NULL;
		if (kind != NULL) {
			rc = serve_omni(kind, ctl, msg, lim, log, stop, g, err);
			if (rc < 0)
				return -1;
			refusals += rc;
		} else if (h.type == LEGACY_CPU_CALIBRATE) {
			/* netperf -t REM_CPU: our rate, as 2.7's /proc/stat
			 * netserver calibrates it, and our CPU count. */
			legacy_calibrate_answer_encode((float)cpu_rate(),
						       cpu_count(), msg);
			if (session_send_raw(ctl, msg, LEGACY_MSG_LEN,
					     SESSION_TIMEOUT_MS, err) < 0)
				return -1;
		} else if (h.type != LEGACY_PASSPHRASE) {
			/* As 2.7: an unknown type gets errno 998. */
			log(SERVER_LOG_LIMITED,
			    "refused a netperf 2.7 request of type %d: not "
			    "one of the tests served",
			    h.type);
			send_errno(ctl, 0, LEGACY_ERR_UNKNOWN);
			refusals++;
		}
		/* 2.7's netperf gives up at its first refusal: a client
		 * that goes on is only filling the log. */
		if (refusals >= SERVER_LEGACY_REFUSALS) {
			log(SERVER_LOG_LIMITED,
			    "ended a netperf 2.7 session after %d refused "
			    "requests",
			    refusals);
			return 0;
		}
		rc = recv_msg(ctl, msg, lim->idle_ms, stop, err);
		/* The guard shuts the control socket when it cuts the
		 * session: that end is its, not the client's. */
		if (rc == 1 && guard_reason(g, err))
			return -1;
		if (rc != 0)
			return rc == 1 ? 0 : -1;
	}
}

int
server_legacy_session(int ctl, const struct server_limits *lim,
		      const struct auth_key *key, server_log_fn log,
		      volatile sig_atomic_t *stop, char *err)
{
	unsigned char msg[LEGACY_MSG_LEN];
	char pass[LEGACY_DATA_LEN];
	struct guard g;
	int rc;

	rc = recv_msg(ctl, msg, lim->idle_ms, stop, err);
	if (rc != 0)
		return rc == 1 ? 0 : -1;
	/* Our netperf asking which netserver this is: told, whatever this
	 * server lets 2.7 clients do, and the session goes on in ours. */
	if (legacy_is_probe(msg, sizeof(msg))) {
		legacy_probe_answer_encode(msg);
		if (session_send_raw(ctl, msg, sizeof(msg), SESSION_TIMEOUT_MS,
				     err) < 0)
			return -1;
		return SERVER_PROBED;
	}
	if (!lim->legacy) {
		server_report(lim, METRICS_EV_REFUSED, NULL, 0, 0, 0,
			      METRICS_REFUSED_LEGACY);
		send_errno(ctl, 0, EPROTONOSUPPORT);
		return err_set(err, "refused a netperf 2.7 client (netserver "
				    "runs with --no-legacy)");
	}
	/* The plaintext passphrase is 2.7's only protection: when our key
	 * guards the server, a 2.7 client must at least know it. */
	if (key != NULL && lim->legacy_pass[0] == '\0') {
		server_report(lim, METRICS_EV_REFUSED, NULL, 0, 0, 0,
			      METRICS_REFUSED_LEGACY);
		send_errno(ctl, 0, EACCES);
		return err_set(err, "refused a netperf 2.7 client: --auth-file "
				    "is set and --legacy-passphrase is not");
	}
	if (lim->legacy_pass[0] != '\0') {
		size_t n = strlen(lim->legacy_pass);

		if (legacy_passphrase_decode(msg, sizeof(msg), pass,
					     sizeof(pass), err) < 0 ||
		    strlen(pass) != n ||
		    !auth_equal((const unsigned char *)pass,
				(const unsigned char *)lim->legacy_pass, n)) {
			explicit_bzero(pass, sizeof(pass));
			server_report(lim, METRICS_EV_REFUSED, NULL, 0, 0, 0,
				      METRICS_REFUSED_AUTH);
			send_errno(ctl, LEGACY_PASSPHRASE, EACCES);
			return err_set(err, "refused a netperf 2.7 client: "
					    "wrong or missing passphrase");
		}
		explicit_bzero(pass, sizeof(pass));
		rc = recv_msg(ctl, msg, lim->idle_ms, stop, err);
		if (rc != 0)
			return rc == 1 ? 0 : -1;
	}
	if (guard_start(&g, ctl, lim->max_session_time, stop, err) < 0)
		return -1;
	rc = tests(ctl, msg, lim, log, stop, &g, err);
	guard_finish(&g);
	return rc;
}

int
server_refusal(int fd, const char *why, int serv_errno, char *err)
{
	unsigned char head[LEGACY_MSG_LEN], msg[LEGACY_MSG_LEN];
	ssize_t n = recv(fd, head, sizeof(head), MSG_PEEK | MSG_DONTWAIT);

	if (n == LEGACY_MSG_LEN && legacy_is_probe(head, (size_t)n)) {
		/* Taken off the socket, so what lingers is the hello. */
		if (recv(fd, head, sizeof(head), MSG_DONTWAIT) < 0)
			return err_set(err, "recv: %s", strerror(errno));
		legacy_probe_answer_encode(msg);
		if (session_send_raw(fd, msg, sizeof(msg), 100, err) < 0)
			return -1;
	} else if (n > 0 && legacy_sniff(head, (size_t)n) == 1) {
		legacy_error_encode(0, serv_errno, msg);
		return session_send_raw(fd, msg, sizeof(msg), 100, err);
	}
	return session_send_new(fd, proto_error(why), 100, err);
}
