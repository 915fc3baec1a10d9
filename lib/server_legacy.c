/*
 * netserver's side of netperf 2.7's control protocol (netserver --legacy):
 * 656-byte messages decoded by lib/legacy.c, the six tests run by the same
 * loops and held to the same limits as our own protocol's.
 */
#include "np/server.h"

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
#include "np/legacy.h"
#include "np/session.h"
#include "np/sock.h"

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

/* Opens the data socket on the address the client reached us at. */
static int
open_data(int ctl, const struct test_module *m, const struct test_params *p,
	  char *err)
{
	struct sockaddr_storage self;
	socklen_t len = sizeof(self);
	char addr[SOCK_ADDR_LEN];
	int fd;

	if (getsockname(ctl, (struct sockaddr *)&self, &len) < 0)
		return err_set(err, "getsockname: %s", strerror(errno));
	sock_addr_text((struct sockaddr *)&self, addr);
	fd = sock_listen(addr, p->data_port, self.ss_family, m->socktype, 5,
			 err);
	if (fd < 0)
		return -1;
	if (sock_set_buffers(fd, p->rsndbuf, p->rrcvbuf, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Waits for the data connection (TCP) or the first datagram (UDP) from the
 * control client's host, by accept_ms; others are turned away and logged.
 * A UDP socket is connected to the datagram's sender, which stays queued
 * for the test to count. Returns the socket to run the test on, or -1.
 */
static int
await_data(int lfd, int ctl, const struct test_module *m, int accept_ms,
	   server_log_fn log, char *err)
{
	uint64_t end = clock_ns() + (uint64_t)accept_ms * 1000000, now;
	struct sockaddr_storage peer, from;
	struct pollfd pfd = {.fd = lfd, .events = POLLIN};
	socklen_t len = sizeof(peer);
	char text[SOCK_ADDR_LEN], c;
	int fd;

	if (getpeername(ctl, (struct sockaddr *)&peer, &len) < 0)
		return err_set(err, "getpeername: %s", strerror(errno));
	for (;;) {
		now = clock_ns();
		if (now >= end)
			return err_set(err, "no data connection within %d ms",
				       accept_ms);
		if (poll(&pfd, 1, (int)((end - now) / 1000000 + 1)) <= 0)
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
		log(0, "refused a data connection from %s: not the control "
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

/*
 * The wall-clock limit of one test, as our protocol's guard holds it:
 * past lim->max_duration plus the loops' grace, or at SIGTERM, the test's
 * stop flag is raised and its data socket shut, so every loop ends at
 * once (a counted test trickled by a slow client included).
 */
struct overtime {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	volatile sig_atomic_t flag; /* the loops' stop flag */
	volatile sig_atomic_t *stop;
	uint64_t deadline;
	int fd, done, fired;
};

static void *
overtime_main(void *arg)
{
	struct overtime *o = arg;
	struct timespec ts;
	uint64_t now;

	pthread_mutex_lock(&o->lock);
	while (!o->done) {
		now = clock_ns();
		if (!o->flag && (*o->stop || now >= o->deadline)) {
			o->fired = !*o->stop;
			o->flag = 1;
			shutdown(o->fd, SHUT_RDWR);
		}
		now += 100 * 1000000ULL;
		ts.tv_sec = (time_t)(now / NS_PER_SEC);
		ts.tv_nsec = (long)(now % NS_PER_SEC);
		pthread_cond_timedwait(&o->cond, &o->lock, &ts);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* Starts the watch over fd; returns 0, or -1 with err set. */
static int
overtime_start(struct overtime *o, int fd, const struct server_limits *lim,
	       volatile sig_atomic_t *stop, char *err)
{
	pthread_condattr_t ca;

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->stop = stop;
	o->deadline =
	    clock_ns() +
	    (uint64_t)((lim->max_duration + 2 * MODULE_GRACE_SEC) * 1e9);
	pthread_mutex_init(&o->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&o->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&o->tid, NULL, overtime_main, o) != 0) {
		pthread_cond_destroy(&o->cond);
		pthread_mutex_destroy(&o->lock);
		return err_set(err, "cannot start the test's watch thread");
	}
	return 0;
}

static void
overtime_finish(struct overtime *o)
{
	pthread_mutex_lock(&o->lock);
	o->done = 1;
	pthread_cond_signal(&o->cond);
	pthread_mutex_unlock(&o->lock);
	pthread_join(o->tid, NULL);
	pthread_cond_destroy(&o->cond);
	pthread_mutex_destroy(&o->lock);
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

/*
 * Serves one DO_OMNI request. Returns 0 when the test ran and its results
 * went out; 1 when it was refused with 2.7's error response (the session
 * goes on, as 2.7's does); -1 with err set when the session must end.
 */
static int
serve_omni(int ctl, const unsigned char *msg, const struct server_limits *lim,
	   server_log_fn log, volatile sig_atomic_t *stop, char *err)
{
	const struct test_module *m;
	struct legacy_omni_request q;
	struct legacy_omni_response a;
	struct legacy_omni_results z;
	unsigned char out[LEGACY_MSG_LEN];
	struct test_params p;
	struct side_result r, one;
	struct module_run run;
	struct test_ctx ctx;
	struct legacy_header h;
	struct overtime ot;
	int lfd = -1, fd = -1, rc = -1, e;
	int64_t sizes[4];
	size_t buflen;

	memset(&r, 0, sizeof(r));
	memset(&one, 0, sizeof(one));
	memset(&run, 0, sizeof(run));
	memset(&ctx, 0, sizeof(ctx));
	legacy_header_decode(msg, LEGACY_MSG_LEN, &h, err);
	if (legacy_request_decode(msg, LEGACY_MSG_LEN, &q, err) < 0) {
		e = EINVAL;
		goto refuse;
	}
	e = legacy_request_params(&q, &p, err);
	if (e != 0)
		goto refuse;
	if (server_check_request(&p, lim, err) < 0) {
		e = EPERM;
		goto refuse;
	}
	if (bind_cpu(h.word, err) < 0) {
		e = EINVAL;
		goto refuse;
	}
	m = module_find(p.test);
	lfd = open_data(ctl, m, &p, err);
	if (lfd < 0) {
		e = errno != 0 ? errno : EADDRNOTAVAIL;
		goto refuse;
	}
	sock_get_buffers(lfd, &r.sndbuf, &r.rcvbuf);
	r.send_size = p.rsend_size   ? p.rsend_size
		      : r.sndbuf > 0 ? r.sndbuf
				     : 4096;
	r.recv_size = p.rrecv_size   ? p.rrecv_size
		      : r.rcvbuf > 0 ? r.rcvbuf
				     : 4096;
	if (r.send_size > lim->max_msg)
		r.send_size = lim->max_msg;
	if (r.recv_size > lim->max_msg)
		r.recv_size = lim->max_msg;
	if (m->socktype == SOCK_DGRAM && r.recv_size < MODULE_UDP_MAX + 1)
		r.recv_size = MODULE_UDP_MAX + 1;
	sizes[0] = r.send_size;
	sizes[1] = r.recv_size;
	sizes[2] = p.req_size;
	sizes[3] = p.rsp_size;
	/* Our buffer, whatever widths and alignments 2.7 asked for: the
	 * memory a test takes is bounded by the limits, not by the client. */
	for (int i = 1; i < 4; i++)
		if (sizes[i] > sizes[0])
			sizes[0] = sizes[i];
	if (sizes[0] > lim->max_session_mem) {
		err_set(err,
			"this test needs %lld bytes of data buffer, over this "
			"server's limit of %lld per session "
			"(--max-session-memory)",
			(long long)sizes[0], (long long)lim->max_session_mem);
		e = EPERM;
		goto refuse;
	}
	sizes[0] = r.send_size;
	ctx.buf = module_buffer(sizes, 4, &buflen);
	if (ctx.buf == NULL) {
		err_set(err, "cannot allocate a %zu-byte buffer", buflen);
		e = ENOMEM;
		goto refuse;
	}

	memset(&a, 0, sizeof(a));
	a.recv_buf_size = r.rcvbuf;
	a.send_buf_size = r.sndbuf;
	a.receive_size = (int32_t)(p.req_size > 0 ? p.req_size : r.recv_size);
	a.send_size = (int32_t)(p.rsp_size > 0 ? p.rsp_size : r.send_size);
	a.recv_width = a.send_width = 1;
	a.flags = (p.nodelay ? LEGACY_F_NO_DELAY : 0) |
		  (p.remote_cpu ? LEGACY_F_MEASURE_CPU : 0);
	/* What 2.7's /proc/stat netserver answers when asked to measure. */
	a.cpu_rate = p.remote_cpu ? 100.0f : 0.0f;
	a.test_length = (uint32_t)q.test_length;
	a.data_port = (uint32_t)sock_local_port(lfd);
	a.socket_prio = a.socket_tos = -1;
	legacy_response_encode(&a, out);
	if (session_send_raw(ctl, out, sizeof(out), SESSION_TIMEOUT_MS, err) <
	    0)
		goto out;

	ctx.peerlen = sizeof(ctx.peer);
	getpeername(ctl, (struct sockaddr *)&ctx.peer, &ctx.peerlen);
	if (module_has(m, MODULE_F_PER_TRANS)) {
		ctx.fd = lfd;
	} else {
		fd = await_data(lfd, ctl, m, lim->accept_ms, log, err);
		if (fd < 0) {
			send_errno(ctl, LEGACY_OMNI_RESPONSE, ETIMEDOUT);
			goto out;
		}
		if (fd == lfd)
			lfd = -1; /* UDP: the one socket is the test's */
		ctx.fd = fd;
	}
	if ((m->protocol == IPPROTO_TCP && p.nodelay &&
	     !module_has(m, MODULE_F_PER_TRANS) &&
	     sock_set_nodelay(ctx.fd, 1, err) < 0) ||
	    sock_set_timeouts(ctx.fd, m->socktype == SOCK_DGRAM ? 100 : 1000,
			      err) < 0) {
		send_errno(ctl, LEGACY_OMNI_RESPONSE, errno ? errno : EINVAL);
		goto out;
	}
	ctx.buflen = buflen;
	ctx.p = &p;
	ctx.ctl = ctl;
	ctx.stop = &ot.flag;
	/* The stream's own counts; module_merge sums them into r. */
	one = r;
	ctx.r = &one;
	if (fast_setup(m, &p, ctx.fd, 1, &one, err) < 0) {
		send_errno(ctl, LEGACY_OMNI_RESPONSE, errno ? errno : EINVAL);
		goto out;
	}
	ctx.untagged = 1;
	run.m = m;
	run.is_server = 1;
	run.measure_cpu = p.remote_cpu;
	run.n = 1;
	run.ctx = &ctx;
	log(1, "running %s for a netperf 2.7 client, for %.0f s", m->name,
	    p.duration);
	if (overtime_start(&ot, ctx.fd, lim, stop, err) < 0) {
		send_errno(ctl, LEGACY_OMNI_RESPONSE, EAGAIN);
		goto out;
	}
	e = module_run_all(&run, err);
	overtime_finish(&ot);
	if (ot.flag) {
		if (ot.fired)
			err_set(err,
				"the test ran past this server's limit of "
				"%.0f s",
				lim->max_duration);
		else
			err_set(err, SERVER_SHUTDOWN_TEXT);
		log(0, "ended a netperf 2.7 test: %s", err);
		send_errno(ctl, LEGACY_OMNI_RESPONSE,
			   ot.fired ? ETIMEDOUT : ESHUTDOWN);
		goto out;
	}
	if (e < 0) {
		send_errno(ctl, LEGACY_OMNI_RESPONSE, EIO);
		goto out;
	}
	module_merge(&run, &r);
	results_of(&r, p.remote_cpu && r.cpu_measured, &z);
	legacy_results_encode(&z, LEGACY_OMNI_RESPONSE, out);
	if (session_send_raw(ctl, out, sizeof(out), SESSION_TIMEOUT_MS, err) <
	    0)
		goto out;
	rc = 0;
	goto out;
refuse:
	log(0, "refused a netperf 2.7 request: %s", err);
	send_errno(ctl, LEGACY_OMNI_RESPONSE, e);
	rc = 1;
out:
	cpu_util_free(&r.cpu);
	free(ctx.buf);
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	return rc;
}

int
server_legacy_session(int ctl, const struct server_limits *lim,
		      const struct auth_key *key, server_log_fn log,
		      volatile sig_atomic_t *stop, char *err)
{
	unsigned char msg[LEGACY_MSG_LEN];
	char pass[LEGACY_DATA_LEN];
	struct legacy_header h;
	int rc;

	rc = recv_msg(ctl, msg, lim->idle_ms, stop, err);
	if (rc != 0)
		return rc == 1 ? 0 : -1;
	if (!lim->legacy) {
		send_errno(ctl, 0, EPROTONOSUPPORT);
		return err_set(err, "refused a netperf 2.7 client (netserver "
				    "runs without --legacy)");
	}
	/* The plaintext passphrase is 2.7's only protection: when our key
	 * guards the server, a 2.7 client must at least know it. */
	if (key != NULL && lim->legacy_pass[0] == '\0') {
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
			send_errno(ctl, LEGACY_PASSPHRASE, EACCES);
			return err_set(err, "refused a netperf 2.7 client: "
					    "wrong or missing passphrase");
		}
		explicit_bzero(pass, sizeof(pass));
		rc = recv_msg(ctl, msg, lim->idle_ms, stop, err);
		if (rc != 0)
			return rc == 1 ? 0 : -1;
	}
	for (;;) {
		legacy_header_decode(msg, sizeof(msg), &h, err);
		if (h.type == LEGACY_DO_OMNI) {
			if (serve_omni(ctl, msg, lim, log, stop, err) < 0)
				return -1;
		} else if (h.type != LEGACY_PASSPHRASE) {
			/* As 2.7: an unknown type gets errno 998, and the
			 * session goes on. */
			log(0,
			    "refused a netperf 2.7 request of type %d: not "
			    "one of the six tests",
			    h.type);
			send_errno(ctl, 0, LEGACY_ERR_UNKNOWN);
		}
		rc = recv_msg(ctl, msg, lim->idle_ms, stop, err);
		if (rc != 0)
			return rc == 1 ? 0 : -1;
	}
}
