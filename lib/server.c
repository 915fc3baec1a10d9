#include "server.h"

#include <errno.h>
#include <poll.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "session.h"
#include "sock.h"

void
server_limits_default(struct server_limits *lim)
{
	lim->max_duration = 3600;
	lim->max_count = (int64_t)1 << 50;
	lim->max_msg = (int64_t)64 << 20;
	lim->max_buf = 256 << 20;
	lim->idle_ms = 60000;
	lim->accept_ms = 10000;
}

static int
check_size(const char *what, int64_t v, int64_t max, char *err)
{
	if (v > max)
		return err_set(err,
			       "%s of %lld bytes exceeds this server's limit "
			       "of %lld bytes",
			       what, (long long)v, (long long)max);
	return 0;
}

int
server_check_request(const struct test_params *p,
		     const struct server_limits *lim, char *err)
{
	const struct test_module *m = module_find(p->test);

	if (m == NULL)
		return err_set(err, "unknown test \"%s\"", p->test);
	if (p->duration > lim->max_duration)
		return err_set(err,
			       "test length %.0f s exceeds this server's limit "
			       "of %.0f s",
			       p->duration, lim->max_duration);
	if (p->count > lim->max_count)
		return err_set(err,
			       "test count %lld exceeds this server's limit of "
			       "%lld",
			       (long long)p->count, (long long)lim->max_count);
	if (check_size("send size", p->rsend_size, lim->max_msg, err) ||
	    check_size("receive size", p->rrecv_size, lim->max_msg, err) ||
	    check_size("request size", p->req_size, lim->max_msg, err) ||
	    check_size("response size", p->rsp_size, lim->max_msg, err) ||
	    check_size("send buffer", p->rsndbuf, lim->max_buf, err) ||
	    check_size("receive buffer", p->rrcvbuf, lim->max_buf, err))
		return -1;
	if ((m->kind == MODULE_RR || m->kind == MODULE_UDP_RR ||
	     m->kind == MODULE_CRR) &&
	    (p->req_size < 1 || p->rsp_size < 1))
		return err_set(err, "request and response sizes must be at "
				    "least 1 byte");
	if (m->kind == MODULE_UDP_RR &&
	    (p->req_size > MODULE_UDP_MAX || p->rsp_size > MODULE_UDP_MAX))
		return err_set(err,
			       "UDP_RR sizes of %lld,%lld exceed the %d-byte "
			       "datagram limit",
			       (long long)p->req_size, (long long)p->rsp_size,
			       MODULE_UDP_MAX);
	if (m->kind == MODULE_UDP_STREAM && p->send_size > MODULE_UDP_MAX)
		return err_set(err,
			       "datagrams of %lld bytes exceed the %d-byte "
			       "limit",
			       (long long)p->send_size, MODULE_UDP_MAX);
	return 0;
}

/* Opens the data listener on the address the client reached us at, so the
 * data path goes where the control path went and nowhere else. */
static int
open_listener(int ctl, const struct test_module *m, const struct test_params *p,
	      char *err)
{
	struct sockaddr_storage self;
	socklen_t len = sizeof(self);
	char addr[SOCK_ADDR_LEN];
	int fd;

	if (getsockname(ctl, (struct sockaddr *)&self, &len) < 0)
		return err_set(err, "getsockname: %s", strerror(errno));
	sock_addr_text((struct sockaddr *)&self, addr);
	fd = sock_listen(addr, p->data_port, self.ss_family, m->socktype, 8,
			 err);
	if (fd < 0)
		return -1;
	if (sock_set_buffers(fd, p->rsndbuf, p->rrcvbuf, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Accepts the data connection, but only from the control peer's host;
 * anyone else is turned away and the wait goes on. */
static int
accept_data(int lfd, int ctl, int timeout_ms, server_log_fn log, char *err)
{
	struct sockaddr_storage peer, from;
	socklen_t len = sizeof(peer);
	char text[SOCK_ADDR_LEN];
	int fd;

	if (getpeername(ctl, (struct sockaddr *)&peer, &len) < 0)
		return err_set(err, "getpeername: %s", strerror(errno));
	for (;;) {
		fd = sock_accept(lfd, timeout_ms, &from, err);
		if (fd < 0)
			return -1;
		if (sock_same_host((struct sockaddr *)&peer,
				   (struct sockaddr *)&from))
			return fd;
		sock_addr_text((struct sockaddr *)&from, text);
		log(0,
		    "refused a data connection from %s: not the control "
		    "client",
		    text);
		close(fd);
	}
}

/* UDP has no accept: wait for the first datagram from the control
 * client's host and connect the socket to its sender, so nobody else's
 * datagrams are counted. */
static int
await_datagram(int fd, int ctl, int timeout_ms, char *err)
{
	struct sockaddr_storage peer, from;
	socklen_t len = sizeof(peer);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char c;
	int rc;

	if (getpeername(ctl, (struct sockaddr *)&peer, &len) < 0)
		return err_set(err, "getpeername: %s", strerror(errno));
	for (;;) {
		rc = poll(&pfd, 1, timeout_ms);
		if (rc == 0)
			return err_set(err, "no data within %d ms", timeout_ms);
		if (rc < 0 && errno != EINTR)
			return err_set(err, "poll: %s", strerror(errno));
		if (rc < 0)
			continue;
		len = sizeof(from);
		if (recvfrom(fd, &c, 1, MSG_PEEK, (struct sockaddr *)&from,
			     &len) < 0)
			continue;
		if (sock_same_host((struct sockaddr *)&peer,
				   (struct sockaddr *)&from))
			break;
		recv(fd, &c, 1, 0); /* a stranger's: drop it */
	}
	if (connect(fd, (struct sockaddr *)&from, len) < 0)
		return err_set(err, "connect: %s", strerror(errno));
	return 0;
}

static int
send_error(int ctl, const char *text)
{
	char err[ERR_LEN];

	return session_send_new(ctl, proto_error(text), 1000, err);
}

/* Runs one requested test; returns 0, or -1 with err set after telling
 * the client. */
static int
serve_test(int ctl, const json_t *req, const struct server_limits *lim,
	   server_log_fn log, volatile sig_atomic_t *stop, char *err)
{
	const struct test_module *m;
	struct test_params p;
	struct side_result r;
	struct test_ctx ctx;
	int lfd = -1, fd = -1, rc = -1, port;
	size_t buflen;

	memset(&ctx, 0, sizeof(ctx));
	memset(&r, 0, sizeof(r));
	if (proto_request_unpack(req, &p, err) < 0 ||
	    server_check_request(&p, lim, err) < 0) {
		send_error(ctl, err);
		return -1;
	}
	m = module_find(p.test);
	lfd = open_listener(ctl, m, &p, err);
	if (lfd < 0)
		goto tell;
	port = sock_local_port(lfd);
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
	buflen = (size_t)r.send_size;
	if ((size_t)r.recv_size > buflen)
		buflen = (size_t)r.recv_size;
	if ((size_t)p.req_size > buflen)
		buflen = (size_t)p.req_size;
	if ((size_t)p.rsp_size > buflen)
		buflen = (size_t)p.rsp_size;
	ctx.buf = malloc(buflen);
	if (ctx.buf == NULL) {
		err_set(err, "cannot allocate a %zu-byte buffer", buflen);
		goto tell;
	}
	for (size_t i = 0; i < buflen; i++)
		ctx.buf[i] = "netperf"[i % 8];
	if (session_send_new(ctl,
			     json_pack("{s:s, s:i, s:i, s:i, s:I, s:I}", "type",
				       "ready", "data_port", port, "sndbuf",
				       r.sndbuf, "rcvbuf", r.rcvbuf,
				       "send_size", (json_int_t)r.send_size,
				       "recv_size", (json_int_t)r.recv_size),
			     SESSION_TIMEOUT_MS, err) < 0)
		goto out;
	ctx.ctl = ctl;
	if (module_accepts(m)) {
		fd = accept_data(lfd, ctl, lim->accept_ms, log, err);
		if (fd < 0)
			goto tell;
		close(lfd);
	} else if (m->socktype == SOCK_DGRAM) {
		if (await_datagram(lfd, ctl, lim->accept_ms, err) < 0)
			goto tell;
		fd = lfd;
	} else {
		/* CRR: the loop accepts, from the control peer only. */
		ctx.peerlen = sizeof(ctx.peer);
		getpeername(ctl, (struct sockaddr *)&ctx.peer, &ctx.peerlen);
		fd = lfd;
	}
	lfd = -1;
	/* UDP loops look for the client's "stop" when a receive times out,
	 * so theirs is short. */
	if ((m->protocol == IPPROTO_TCP && p.nodelay &&
	     sock_set_nodelay(fd, 1, err) < 0) ||
	    sock_set_timeouts(fd, m->socktype == SOCK_DGRAM ? 100 : 1000, err) <
		0)
		goto tell;
	ctx.p = &p;
	ctx.fd = fd;
	ctx.buflen = buflen;
	ctx.stop = stop;
	ctx.r = &r;
	log(1, "running %s for %.1f s", m->name, p.duration);
	if (module_run(m, 1, p.remote_cpu, &ctx) < 0) {
		snprintf(err, ERR_LEN, "%s", ctx.err);
		goto tell;
	}
	close(fd);
	fd = -1;
	if (module_needs_stop(m)) {
		json_t *stop_msg;

		if (session_expect(ctl, "stop", &stop_msg, SESSION_TIMEOUT_MS,
				   err) < 0)
			goto out;
		json_decref(stop_msg);
	}
	if (session_send_new(ctl, proto_result_pack(&r), SESSION_TIMEOUT_MS,
			     err) < 0)
		goto out;
	rc = 0;
	goto out;
tell:
	send_error(ctl, err);
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
server_session(int ctl, const struct server_limits *lim, server_log_fn log,
	       volatile sig_atomic_t *stop, char *err)
{
	char hostname[256] = "";
	json_t *msg;
	int64_t ver;
	const char *type;
	int rc;

	rc = session_recv(ctl, &msg, lim->idle_ms, err);
	if (rc == 1)
		return err_set(err, "client left before saying hello");
	if (rc < 0) {
		send_error(ctl, err);
		return -1;
	}
	if (strcmp(proto_type(msg), "hello") != 0 ||
	    proto_get_int(msg, "version", 0, INT32_MAX, &ver, err) < 0) {
		if (strcmp(proto_type(msg), "hello") != 0)
			err_set(err, "expected hello, got \"%s\"",
				proto_type(msg));
		json_decref(msg);
		send_error(ctl, err);
		return -1;
	}
	json_decref(msg);
	if (ver != PROTO_VERSION) {
		err_set(err,
			"protocol version %lld is not supported (this "
			"netserver speaks %d)",
			(long long)ver, PROTO_VERSION);
		send_error(ctl, err);
		return -1;
	}
	gethostname(hostname, sizeof(hostname) - 1);
	if (session_send_new(
		ctl,
		json_pack("{s:s, s:i, s:s, s:s, s:s, s:i}", "type", "hello",
			  "version", PROTO_VERSION, "program", "netserver",
			  "program_version", NP_VERSION, "hostname", hostname,
			  "ncpu", cpu_count()),
		SESSION_TIMEOUT_MS, err) < 0)
		return -1;
	for (;;) {
		rc = session_recv(ctl, &msg, lim->idle_ms, err);
		if (rc == 1)
			return 0;
		if (rc < 0) {
			send_error(ctl, err);
			return -1;
		}
		type = proto_type(msg);
		if (strcmp(type, "bye") == 0) {
			json_decref(msg);
			return 0;
		}
		if (strcmp(type, "request") != 0) {
			err_set(err, "unexpected \"%s\" message", type);
			json_decref(msg);
			send_error(ctl, err);
			return -1;
		}
		rc = serve_test(ctl, msg, lim, log, stop, err);
		json_decref(msg);
		if (rc < 0)
			return -1;
	}
}
