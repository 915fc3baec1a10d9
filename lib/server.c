#include "server.h"

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "session.h"
#include "sock.h"
#include "wire.h"

/* What a child keeps across the tests of one session. */
struct server_state {
	struct topo topo;
	int topo_loaded;
};

static int session_loop(struct server_state *st, int ctl,
			const struct server_limits *lim, server_log_fn log,
			volatile sig_atomic_t *stop, char *err);

void
server_limits_default(struct server_limits *lim)
{
	lim->max_duration = 3600;
	lim->max_count = (int64_t)1 << 50;
	lim->max_msg = (int64_t)64 << 20;
	lim->max_buf = 256 << 20;
	lim->idle_ms = 60000;
	lim->accept_ms = 10000;
	lim->max_streams = 64;
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
	if (p->streams > lim->max_streams)
		return err_set(err,
			       "%d streams exceed this server's limit of %d",
			       p->streams, lim->max_streams);
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
	      int port, char *err)
{
	struct sockaddr_storage self;
	socklen_t len = sizeof(self);
	char addr[SOCK_ADDR_LEN];
	int fd;

	if (getsockname(ctl, (struct sockaddr *)&self, &len) < 0)
		return err_set(err, "getsockname: %s", strerror(errno));
	sock_addr_text((struct sockaddr *)&self, addr);
	fd = sock_listen(addr, port, self.ss_family, m->socktype, 64, err);
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

/* The placement of netserver's threads for a request: resolved against
 * this host's topology, loaded on first use; -1 with err set when the
 * request names CPUs this host does not have. */
static int
place_streams(struct server_state *st, const struct test_params *p, int ctl,
	      struct topo_place *places, struct result_place *rp, char *err)
{
	struct sockaddr_storage self;
	socklen_t len = sizeof(self);
	char ifname[IF_NAMESIZE] = "";
	struct topo_place base;
	int i;

	memset(&base, 0, sizeof(base));
	if (!st->topo_loaded) {
		if (topo_load(&st->topo, NULL, NULL, err) < 0)
			return -1;
		st->topo_loaded = 1;
	}
	if (getsockname(ctl, (struct sockaddr *)&self, &len) == 0)
		sock_ifname_of((struct sockaddr *)&self, ifname, err);
	if (topo_resolve(&st->topo, p->cpu_bind, ifname, &base, err) < 0)
		return -1;
	for (i = 0; p->streams > 1 && i < p->streams; i++) {
		if (topo_pick(&st->topo, &base, i, &places[i], err) < 0) {
			topo_place_free(&base);
			return -1;
		}
	}
	if (p->streams == 1) {
		/* One stream takes the whole place asked for. */
		places[0] = base;
		memset(&base, 0, sizeof(base));
	}
	snprintf(rp->requested, sizeof(rp->requested), "%s", p->cpu_bind);
	snprintf(rp->cpus, sizeof(rp->cpus), "%s",
		 p->streams == 1 ? places[0].cpus : base.cpus);
	rp->numa = p->streams == 1 ? places[0].numa : base.numa;
	rp->nic_local = p->streams == 1 ? places[0].nic_local : base.nic_local;
	snprintf(rp->note, sizeof(rp->note), "%s",
		 p->streams == 1 ? places[0].note : base.note);
	topo_place_free(&base);
	return 0;
}

static void
set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

/* Opens the data sockets: one listener for TCP (every stream connects
 * to it), one socket per stream for UDP. Fills ports[]; returns the
 * number of sockets, or -1 with err set. */
static int
open_data(int ctl, const struct test_module *m, const struct test_params *p,
	  int *fds, int *ports, char *err)
{
	int n = m->socktype == SOCK_DGRAM ? p->streams : 1, i;

	for (i = 0; i < n; i++) {
		fds[i] = open_listener(
		    ctl, m, p, p->data_port ? p->data_port + i : 0, err);
		if (fds[i] < 0)
			goto fail;
		ports[i] = sock_local_port(fds[i]);
	}
	return n;
fail:
	while (i-- > 0)
		close(fds[i]);
	return -1;
}

/* Runs one requested test; returns 0, or -1 with err set after telling
 * the client. */
static int
serve_test(struct server_state *st, int ctl, const json_t *req,
	   const struct server_limits *lim, server_log_fn log,
	   volatile sig_atomic_t *stop, char *err)
{
	const struct test_module *m;
	struct test_params p;
	struct side_result r, *rs = NULL;
	struct test_ctx *ctx = NULL;
	struct topo_place *places = NULL;
	struct result_place rp;
	struct module_run run;
	int *fds = NULL, *ports = NULL, nlisten = 0, nfds = 0, rc = -1, i;
	struct wire_session ws;
	struct wire_report wr;
	int wire_on = 0;
	json_t *ready = NULL, *list, *res = NULL, *streams;
	int64_t sizes[4];
	size_t buflen;

	memset(&r, 0, sizeof(r));
	memset(&rp, 0, sizeof(rp));
	memset(&run, 0, sizeof(run));
	memset(&wr, 0, sizeof(wr));
	rp.cpu_actual = rp.numa = rp.nic_local = -1;
	if (proto_request_unpack(req, &p, err) < 0 ||
	    server_check_request(&p, lim, err) < 0) {
		send_error(ctl, err);
		return -1;
	}
	m = module_find(p.test);
	rs = calloc((size_t)p.streams, sizeof(*rs));
	ctx = calloc((size_t)p.streams, sizeof(*ctx));
	fds = calloc((size_t)p.streams, sizeof(*fds));
	ports = calloc((size_t)p.streams, sizeof(*ports));
	if (rs == NULL || ctx == NULL || fds == NULL || ports == NULL) {
		err_set(err, "out of memory");
		goto tell;
	}
	if (p.cpu_bind[0] != '\0') {
		places = calloc((size_t)p.streams, sizeof(*places));
		if (places == NULL) {
			err_set(err, "out of memory");
			goto tell;
		}
		if (place_streams(st, &p, ctl, places, &rp, err) < 0)
			goto tell;
	}
	nlisten = open_data(ctl, m, &p, fds, ports, err);
	if (nlisten < 0) {
		nlisten = 0;
		goto tell;
	}
	/* --wire: count from before the first packet, on the listener's
	 * port, every connection from the client's host. */
	if (p.wire && m->kind != MODULE_CRR) {
		struct wire_flow flows[64];
		int nf = 0;

		for (i = 0; i < nlisten && i < 64; i++) {
			if (wire_flow_of(ctl, m->protocol, 1, &flows[nf]) < 0)
				continue;
			set_port(&flows[nf].local, ports[i]);
			nf++;
		}
		wire_session_start(&ws, &wr, NULL, flows, nf);
		wire_on = 1;
	} else if (p.wire) {
		wire_session_start(&ws, &wr, NULL, NULL, 0);
	}
	sock_get_buffers(fds[0], &r.sndbuf, &r.rcvbuf);
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
	/* A datagram is read whole or its tail is lost. */
	if (m->socktype == SOCK_DGRAM && r.recv_size < MODULE_UDP_MAX + 1)
		r.recv_size = MODULE_UDP_MAX + 1;
	sizes[0] = r.send_size;
	sizes[1] = r.recv_size;
	sizes[2] = p.req_size;
	sizes[3] = p.rsp_size;
	list = json_array();
	for (i = 0; i < nlisten; i++)
		json_array_append_new(list, json_integer(ports[i]));
	ready = json_pack("{s:s, s:i, s:o, s:i, s:i, s:I, s:I}", "type",
			  "ready", "data_port", ports[0], "data_ports", list,
			  "sndbuf", r.sndbuf, "rcvbuf", r.rcvbuf, "send_size",
			  (json_int_t)r.send_size, "recv_size",
			  (json_int_t)r.recv_size);
	if (session_send(ctl, ready, SESSION_TIMEOUT_MS, err) < 0)
		goto out;

	/* The data connections, each from the control client's host only. */
	for (i = 0; i < p.streams; i++) {
		struct test_ctx *c = &ctx[i];

		c->ctl = ctl;
		c->fd = -1;
		if (module_accepts(m)) {
			c->fd =
			    accept_data(fds[0], ctl, lim->accept_ms, log, err);
		} else if (m->socktype == SOCK_DGRAM) {
			if (await_datagram(fds[i], ctl, lim->accept_ms, err) ==
			    0)
				c->fd = fds[i];
		} else {
			/* CRR: every stream's loop accepts on the listener,
			 * from the control peer only. */
			c->peerlen = sizeof(c->peer);
			getpeername(ctl, (struct sockaddr *)&c->peer,
				    &c->peerlen);
			c->fd = fds[0];
		}
		if (c->fd < 0)
			goto tell;
		nfds++;
		/* UDP loops look for the client's "stop" when a receive
		 * times out, so theirs is short. */
		if ((m->protocol == IPPROTO_TCP && p.nodelay &&
		     m->kind != MODULE_CRR &&
		     sock_set_nodelay(c->fd, 1, err) < 0) ||
		    sock_set_timeouts(
			c->fd, m->socktype == SOCK_DGRAM ? 100 : 1000, err) < 0)
			goto tell;
		rs[i] = r;
		c->buf = module_buffer(sizes, 4, &buflen);
		if (c->buf == NULL) {
			err_set(err, "cannot allocate a %zu-byte buffer",
				buflen);
			goto tell;
		}
		c->buflen = buflen;
		c->p = &p;
		c->stop = stop;
		c->r = &rs[i];
	}
	run.m = m;
	run.is_server = 1;
	run.measure_cpu = p.remote_cpu;
	run.n = p.streams;
	run.ctx = ctx;
	run.topo = places != NULL ? &st->topo : NULL;
	run.places = places;
	log(1, "running %s, %d stream%s, for %.1f s", m->name, p.streams,
	    p.streams > 1 ? "s" : "", p.duration);
	rc = module_run_all(&run, err);
	if (wire_on) {
		wire_session_stop(&ws, &wr);
		wire_on = 0;
	}
	if (rc < 0) {
		rc = -1;
		goto tell;
	}
	rc = -1;
	if (module_needs_stop(m)) {
		json_t *stop_msg;

		if (session_expect(ctl, "stop", &stop_msg, SESSION_TIMEOUT_MS,
				   err) < 0)
			goto out;
		json_decref(stop_msg);
	}
	module_merge(&run, &r);
	rp.cpu_actual = rs[0].cpu_id;
	if (places != NULL && rp.numa < 0 && rp.cpu_actual >= 0)
		rp.numa = topo_cpu_numa(&st->topo, rp.cpu_actual);
	res = proto_result_pack(&r);
	if (res == NULL) {
		err_set(err, "out of memory");
		goto out;
	}
	json_object_set_new(res, "place", proto_place_pack(&rp));
	if (p.wire)
		json_object_set_new(res, "wire", proto_wire_pack(&wr));
	if (p.streams > 1) {
		streams = json_array();
		for (i = 0; i < p.streams; i++)
			json_array_append_new(streams,
					      proto_result_pack(&rs[i]));
		json_object_set_new(res, "streams", streams);
	}
	if (session_send(ctl, res, SESSION_TIMEOUT_MS, err) < 0)
		goto out;
	rc = 0;
	goto out;
tell:
	send_error(ctl, err);
out:
	if (wire_on)
		wire_session_stop(&ws, &wr);
	json_decref(res);
	json_decref(ready);
	cpu_util_free(&r.cpu);
	for (i = 0; ctx != NULL && i < p.streams; i++) {
		free(ctx[i].buf);
		/* A UDP socket and the CRR listener are in fds[] too. */
		if (module_accepts(m) && ctx[i].fd >= 0 && i < nfds)
			close(ctx[i].fd);
	}
	for (i = 0; i < nlisten; i++)
		close(fds[i]);
	for (i = 0; places != NULL && i < p.streams; i++)
		topo_place_free(&places[i]);
	free(places);
	free(ports);
	free(fds);
	free(ctx);
	free(rs);
	return rc;
}

int
server_session(int ctl, const struct server_limits *lim, server_log_fn log,
	       volatile sig_atomic_t *stop, char *err)
{
	struct server_state st;

	memset(&st, 0, sizeof(st));
	int rc = session_loop(&st, ctl, lim, log, stop, err);

	if (st.topo_loaded)
		topo_free(&st.topo);
	return rc;
}

/* The conversation itself: hello, then tests until goodbye. */
static int
session_loop(struct server_state *st, int ctl, const struct server_limits *lim,
	     server_log_fn log, volatile sig_atomic_t *stop, char *err)
{
	struct result_env env;
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
	result_env_self(&env, "netserver");
	if (session_send_new(
		ctl,
		json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, "
			  "s:i}",
			  "type", "hello", "version", PROTO_VERSION, "program",
			  "netserver", "program_version", NP_VERSION,
			  "hostname", env.hostname, "kernel", env.kernel,
			  "cpu_model", env.cpu_model, "ncpu", env.ncpu),
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
		rc = serve_test(st, ctl, msg, lim, log, stop, err);
		json_decref(msg);
		if (rc < 0)
			return -1;
	}
}
