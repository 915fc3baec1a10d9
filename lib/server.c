#include "np/server.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "np/admit.h"
#include "np/clock.h"
#include "np/escape.h"
#include "np/legacy.h"
#include "np/fast.h"
#include "np/guard.h"
#include "np/proto.h"
#include "np/server_legacy.h"
#include "np/session.h"
#include "np/streams.h"
#include "np/flows.h"
#include "np/sock.h"
#include "np/transport.h"
#include "np/underload.h"
#include "np/tstamp.h"
#include "np/wire.h"

/* What a child keeps across the tests of one session. */
struct server_state {
	struct topo topo;
	int topo_loaded;
	struct guard guard;
	const struct server_limits *lim;
	server_auth_fn on_auth;
	/* The host's part of the platform record, read beside the hello
	 * and the request rather than between them and "go". */
	struct platform_job plat;
};

static int session_loop(struct server_state *st, int ctl,
			const struct server_limits *lim,
			const struct auth_key *key, server_log_fn log,
			volatile sig_atomic_t *stop, char *err);

/* When the session has been cut (or SIGTERM is on its way to cutting it),
 * puts the reason into err and returns 1; otherwise returns 0. */
static int
cut_reason(struct server_state *st, char *err)
{
	return guard_reason(&st->guard, err);
}

/* The address family of a socket; AF_UNSPEC when it cannot be read. */
static int
fd_family(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return AF_UNSPEC;
	return ss.ss_family;
}

/* Opens the data listener where the client reached us (the transport's
 * ends say how), so the data path goes where the control path went and
 * nowhere else. */
static int
open_listener(int ctl, const struct test_module *m, const struct test_params *p,
	      int port, char *err)
{
	const struct transport *t = transport_of(m, p);
	int fd;

	/* Flows on threads: thousands of connections arrive at once. */
	fd = transport_listen(t, ctl, port, module_flows(p) ? 4096 : 64, err);
	if (fd < 0)
		return -1;
	/* netperf 2.7's options for netserver's side: accepted TCP
	 * connections inherit them from the listener, and get them again
	 * after accept. */
	if (sock_set_buffers(fd, p->rsndbuf, p->rrcvbuf, err) < 0 ||
	    sock_apply_extra(fd, fd_family(fd), t->socktype,
			     t->admit == TRANSPORT_ACCEPT, &p->rx, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Waits until the data socket fd is readable, by the deadline, watching
 * the control connection too: a client that closes it (or speaks out of
 * turn) while netserver waits for its data has given up. Returns 0 when
 * fd is readable, or -1 with err set.
 */
static int
wait_data(int fd, int ctl, uint64_t deadline, int timeout_ms, char *err)
{
	struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN},
				{.fd = ctl, .events = POLLIN}};
	uint64_t now;
	int rc;

	for (;;) {
		now = clock_ns();
		if (now >= deadline)
			return err_set(err, "no data connection within %d ms",
				       timeout_ms);
		rc = poll(pfd, 2, (int)((deadline - now) / 1000000 + 1));
		if (rc < 0 && errno != EINTR)
			return err_set(err, "poll: %s", strerror(errno));
		if (rc <= 0)
			continue;
		if (pfd[1].revents != 0)
			return err_set(err, "the client left before opening "
					    "its data connection");
		if (pfd[0].revents != 0)
			return 0;
	}
}

/*
 * Accepts the test's next data connection (see admit.h), to the one
 * deadline of the whole wait: connections turned away do not move it.
 * Returns the connection, or -1 with err set.
 */
static int
accept_data(struct admit *a, uint64_t deadline, int timeout_ms, char *err)
{
	int fd = admit_next(a, deadline, err);

	if (fd == ADMIT_TIMEOUT)
		return err_set(err, "no data connection within %d ms",
			       timeout_ms);
	if (fd == ADMIT_CONTROL)
		return err_set(err, "the client left before opening its data "
				    "connection");
	return fd;
}

/*
 * Empties the queue of a UDP data socket just connected to its client.
 * connect() only filters what arrives after it: datagrams from anyone
 * that came in behind the token are still queued, and the loop would
 * count them as the test's (or end at an empty one). Nothing queued now
 * is data either way, since the client sends none before it hears the
 * token's echo: what is not the token again from the client is another
 * sender's, and all of it goes. Bounded by what the queue can hold.
 */
static void
drain_datagrams(int fd)
{
	unsigned char junk[1];
	ssize_t n;
	int i;

	for (i = 0; i < 1000000; i++) {
		n = recv(fd, junk, sizeof(junk), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && errno != EINTR && errno != ECONNREFUSED)
			break;
	}
}

/*
 * UDP has no accept: wait for a datagram that holds exactly the test's
 * token, from the control client's host, and connect the socket to its
 * sender, so nobody else's datagrams are counted. Everything before it is
 * dropped, and so is everything queued behind it. The token is echoed,
 * which tells the client that the test may start (it sends the token
 * again until it hears the echo).
 */
static int
await_datagram(const struct transport *t, int fd, int ctl,
	       const unsigned char *token, uint64_t deadline, int timeout_ms,
	       char *err)
{
	struct sockaddr_storage peer, from;
	socklen_t len = sizeof(peer);
	unsigned char got[AUTH_TOKEN_LEN];
	ssize_t n;

	if (getpeername(ctl, (struct sockaddr *)&peer, &len) < 0)
		return err_set(err, "getpeername: %s", strerror(errno));
	for (;;) {
		if (wait_data(fd, ctl, deadline, timeout_ms, err) < 0)
			return -1;
		len = sizeof(from);
		/* MSG_TRUNC: n is the datagram's real length. */
		n = recvfrom(fd, got, sizeof(got), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&from, &len);
		if (n < 0 && errno != EAGAIN && errno != EINTR &&
		    errno != ECONNREFUSED)
			return err_set(err, "recvfrom: %s", strerror(errno));
		if (n == AUTH_TOKEN_LEN && len > 0 &&
		    t->ends->same_host((struct sockaddr *)&peer,
				       (struct sockaddr *)&from) &&
		    auth_equal(got, token, sizeof(got)))
			break;
	}
	if (connect(fd, (struct sockaddr *)&from, len) < 0)
		return err_set(err, "connect: %s", strerror(errno));
	drain_datagrams(fd);
	send(fd, token, AUTH_TOKEN_LEN, MSG_DONTWAIT);
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
	      struct streams *set, struct result_place *rp, char *err)
{
	struct sockaddr_storage self;
	socklen_t len = sizeof(self);
	char ifname[IF_NAMESIZE] = "";

	if (!st->topo_loaded) {
		if (topo_load(&st->topo, NULL, NULL, err) < 0)
			return -1;
		st->topo_loaded = 1;
	}
	if (getsockname(ctl, (struct sockaddr *)&self, &len) == 0)
		sock_ifname_of((struct sockaddr *)&self, ifname, err);
	return streams_place(set, &st->topo, p->cpu_bind, ifname, rp, err);
}

static void
set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

/* Logs one connection's TCP_INFO in netperf 2.7's DUMP_TCP_INFO lines. */
static void
log_tcp_info(server_log_fn log, const struct tcpinfo *t)
{
	char text[512], *line, *save = NULL;

	if (t->n <= 0)
		return;
	tcpinfo_format_dump(t, text, sizeof(text));
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		log(0, "%s", line);
}

/* Opens the data sockets: one listener for TCP (every stream connects
 * to it), one socket per stream for UDP. Fills ports[]; returns the
 * number of sockets, or -1 with err set. */
static int
open_data(int ctl, const struct test_module *m, const struct test_params *p,
	  int *fds, int *ports, char *err)
{
	int n = transport_of(m, p)->admit == TRANSPORT_DATAGRAM ? p->streams
								: 1,
	    i;

	/* --under-load with a UDP probe: its socket, and one listener for
	 * every bulk flow. */
	if (underload_mixed(m, p)) {
		fds[0] = open_listener(ctl, m, p, p->data_port, err);
		if (fds[0] < 0)
			return -1;
		fds[1] = open_listener(ctl, underload_module(m, UNDERLOAD_UP),
				       p, 0, err);
		if (fds[1] < 0) {
			close(fds[0]);
			return -1;
		}
		ports[0] = transport_port(transport_of(m, p), fds[0]);
		for (i = 1; i < p->streams; i++)
			ports[i] = transport_port(
			    transport_of(underload_module(m, UNDERLOAD_UP), p),
			    fds[1]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		fds[i] = open_listener(
		    ctl, m, p, p->data_port ? p->data_port + i : 0, err);
		if (fds[i] < 0)
			goto fail;
		ports[i] = transport_port(transport_of(m, p), fds[i]);
	}
	return n;
fail:
	while (i-- > 0)
		close(fds[i]);
	return -1;
}

/* A byte count for a message: whole MiB when it is one, bytes otherwise. */
static void
size_text(int64_t v, char *out, size_t cap)
{
	if (v >= (1 << 20) && v % (1 << 20) == 0)
		snprintf(out, cap, "%lld MiB", (long long)(v >> 20));
	else
		snprintf(out, cap, "%lld bytes", (long long)v);
}

/* Whether a request asks for anything but the default buffers. */
static int
bufs_asked(const struct module_bufs *b)
{
	return b->salign > 0 || b->ralign > 0 || b->soff > 0 || b->roff > 0 ||
	       b->width > 1 || b->dirty > 0 || b->clean > 0;
}

/*
 * Gives every stream its data buffer, within the session's memory limit:
 * streams that only send share one read-only buffer (*shared, which the
 * caller frees), the others get one each. Nothing is allocated when the
 * test would need more than the limit. Returns 0, or -1 with err set.
 */
static int
alloc_buffers(const struct test_module *m, const struct test_params *p,
	      const struct side_result *r, const struct server_limits *lim,
	      struct test_ctx *ctx, char **shared, char *err)
{
	int64_t one, each, total;
	char need[32], have[32];
	size_t len;
	int i, nbuf;

	module_server_buffers(m, r->send_size, r->recv_size, p->req_size,
			      p->rsp_size, &one, &each);
	underload_server_buffer(p, r, &each);
	/* netperf 2.7's -A, -O, -W, -k or -K for this side: every stream
	 * gets its own ring, aligned and offset as asked (dirty words are
	 * written, so no sharing). -F's remote half is never a path
	 * netserver opens: its buffers hold its own pattern. */
	if (bufs_asked(&p->rbuf)) {
		int64_t size = one > each ? one : each;
		int64_t w = p->rbuf.width > 1 ? p->rbuf.width : 1;

		total = (int64_t)p->streams * w *
			(size + p->rbuf.soff + p->rbuf.roff + 65536);
		if (total > lim->max_session_mem) {
			size_text(total, need, sizeof(need));
			size_text(lim->max_session_mem, have, sizeof(have));
			return err_set(err,
				       "this test needs %s of data buffers, "
				       "over this server's limit of %s per "
				       "session (--max-session-memory)",
				       need, have);
		}
		for (i = 0; i < p->streams; i++)
			if (module_ctx_buffer(&ctx[i], &size, 1, &p->rbuf,
					      NULL, 0) < 0)
				return err_set(err,
					       "cannot allocate a %lld-byte "
					       "buffer",
					       (long long)size);
		return 0;
	}
	/* Flows on threads: a buffer a thread, large enough to take what
	 * several messages left at once, and each flow's state. */
	nbuf = module_flows(p) ? p->threads : p->streams;
	if (module_flows(p) && one == 0 && each < 65536)
		each = 65536;
	total = one + (int64_t)nbuf * each +
		(module_flows(p)
		     ? (int64_t)p->streams * (int64_t)flows_mem_per_flow()
		     : 0);
	if (total > lim->max_session_mem) {
		size_text(total, need, sizeof(need));
		size_text(lim->max_session_mem, have, sizeof(have));
		return err_set(err,
			       "this test needs %s of data buffers (%d "
			       "stream%s), over this server's limit of %s "
			       "per session (--max-session-memory)",
			       need, p->streams, p->streams > 1 ? "s" : "",
			       have);
	}
	if (one > 0) {
		*shared = module_buffer(&one, 1, &len);
		if (*shared == NULL)
			return err_set(err, "cannot allocate a %lld-byte "
					    "buffer", (long long)one);
	}
	for (i = 0; i < p->streams; i++) {
		if (one == 0 && i >= nbuf)
			continue;
		if (one > 0) {
			ctx[i].buf = *shared;
			ctx[i].buflen = len;
			continue;
		}
		ctx[i].buf = module_buffer(&each, 1, &ctx[i].buflen);
		if (ctx[i].buf == NULL)
			return err_set(err, "cannot allocate a %lld-byte "
					    "buffer", (long long)each);
	}
	return 0;
}

/* This host's platform record for a test's results: the data socket's
 * congestion control, the interface towards the client. NULL only
 * without memory. */
static json_t *
server_platform(struct server_state *st, int ctl, int data_fd)
{
	struct platform_inputs in = {"netserver", NULL, NULL, NULL};
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);
	struct platform *p = malloc(sizeof(*p));
	char cc[16];
	json_t *j;

	if (p == NULL)
		return NULL;
	if (platform_congestion_of(data_fd, cc, sizeof(cc)) == 0)
		in.congestion = cc;
	if (getpeername(data_fd, (struct sockaddr *)&peer, &len) == 0 ||
	    (len = sizeof(peer),
	     getpeername(ctl, (struct sockaddr *)&peer, &len) == 0))
		in.peer = (const struct sockaddr *)&peer;
	if (st->topo_loaded)
		in.topo = &st->topo;
	platform_job_record(&st->plat, p, &in);
	j = proto_platform_pack(p);
	free(p);
	return j;
}

/* How a phase of a test ended, for serve_test to say so or not. */
enum serve_rc {
	SERVE_OK = 0,
	SERVE_TELL = -1,  /* tell the client why */
	SERVE_FAIL = -2,  /* the control connection failed: tell only a
			   * cause of ours (the guard's) */
	SERVE_TOLD = -3,  /* the client has been told */
	SERVE_QUIET = -4, /* nothing to tell */
};

/* netserver's side of one test, from the request to the results. */
struct serve {
	struct server_state *st;
	int ctl;
	const struct server_limits *lim;
	server_log_fn log;
	volatile sig_atomic_t *stop;
	const struct test_module *m;
	struct test_params p;
	struct streams set;
	/* The listeners: one for TCP, one a stream for UDP (which then
	 * become the streams' data sockets). */
	int *lfds, nlisten;
	struct side_result r; /* the streams' sum; every stream's start */
	struct result_place rp;
	unsigned char token[AUTH_TOKEN_LEN];
	char token_hex[2 * AUTH_TOKEN_LEN + 1];
	char *shared;
	struct admit adm;
	int adm_on;
	struct wire_session ws;
	struct wire_report wr;
	int wire_on;
	/* netperf counts for this side (wr.shared): the data connections'
	 * client ports, read while they are connected. */
	int *wire_ports, nwire_ports;
	json_t *plat;
	struct module_run run;
	/* -D: the interim reports sent, dropped (the client was not
	 * reading), and why they stopped when the control connection
	 * failed. */
	int interim_n, interim_dropped, interim_failed;
	char interim_err[ERR_LEN];
	int started; /* the streams ran: --metrics counts the test */
};

/* The request read and checked, the streams allocated and placed, the
 * test's token drawn. */
static enum serve_rc
serve_negotiate(struct serve *sv, const json_t *req, char *err)
{
	struct test_params *p = &sv->p;

	if (proto_request_unpack(req, p, err) < 0 ||
	    server_check_request(p, sv->lim, err) < 0) {
		send_error(sv->ctl, err);
		return SERVE_TOLD;
	}
	sv->m = module_find(p->test);
	if (streams_alloc(&sv->set, sv->m, p->streams, 1, NULL, err) < 0)
		return SERVE_TELL;
	sv->lfds = calloc((size_t)p->streams, sizeof(*sv->lfds));
	if (sv->lfds == NULL)
		return err_set(err, "out of memory"), SERVE_TELL;
	if (guard_test_begin(&sv->st->guard, 2 * p->streams, err) < 0)
		return SERVE_TELL;
	/* The token binds each data connection to this test: a connection
	 * or datagram without it is not the client's, whoever sent it. */
	if (auth_random(sv->token, sizeof(sv->token), err) < 0)
		return SERVE_TELL;
	auth_hex(sv->token, sizeof(sv->token), sv->token_hex);
	/* Several streams get a CPU each even when the client named none,
	 * on the CPUs netserver may use. */
	if ((p->cpu_bind[0] != '\0' || p->streams > 1) &&
	    place_streams(sv->st, p, sv->ctl, &sv->set, &sv->rp, err) < 0)
		return SERVE_TELL;
	return SERVE_OK;
}

/* A named endpoint's text (a Unix socket's directory) into ready's
 * "data_at", from listener fd. */
static void
ready_data_at(json_t *ready, const struct transport *t, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char text[SOCK_ADDR_LEN];

	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
	    t->ends->format((struct sockaddr *)&ss, text) >= 0)
		json_object_set_new(ready, "data_at", json_string(text));
}

/* The listeners open, the sizes and buffers settled, and the client told
 * where to connect ("ready"). */
static enum serve_rc
serve_listen(struct serve *sv, char *err)
{
	const struct test_params *p = &sv->p;
	struct side_result *r = &sv->r;
	json_t *ready, *list;
	int i, n;

	n = open_data(sv->ctl, sv->m, p, sv->lfds, sv->set.ports, err);
	if (n < 0)
		return SERVE_TELL;
	sv->nlisten = n;
	for (i = 0; i < n; i++)
		guard_track(&sv->st->guard, sv->lfds[i]);
	sock_get_buffers(sv->lfds[0], &r->sndbuf, &r->rcvbuf);
	streams_sizes(sv->m, p->rsend_size, p->rrecv_size, r->sndbuf,
		      r->rcvbuf, r);
	if (r->send_size > sv->lim->max_msg)
		r->send_size = sv->lim->max_msg;
	if (r->recv_size > sv->lim->max_msg)
		r->recv_size = sv->lim->max_msg;
	if (alloc_buffers(sv->m, p, r, sv->lim, sv->set.ctx, &sv->shared,
			  err) < 0)
		return SERVE_TELL;
	list = json_array();
	/* Every stream's port when the probe's and the flows' differ. */
	if (underload_mixed(sv->m, p))
		n = p->streams;
	for (i = 0; i < n; i++)
		json_array_append_new(list, json_integer(sv->set.ports[i]));
	ready = json_pack("{s:s, s:i, s:o, s:i, s:i, s:I, s:I, s:s}", "type",
			  "ready", "data_port", sv->set.ports[0], "data_ports",
			  list, "sndbuf", r->sndbuf, "rcvbuf", r->rcvbuf,
			  "send_size", (json_int_t)r->send_size, "recv_size",
			  (json_int_t)r->recv_size, "token", sv->token_hex);
	if (ready != NULL)
		proto_ready_confirm(ready, p);
	if (ready != NULL && transport_of(sv->m, p)->ends->named)
		ready_data_at(ready, transport_of(sv->m, p), sv->lfds[0]);
	i = session_send(sv->ctl, ready, SESSION_TIMEOUT_MS, err);
	json_decref(ready);
	return i < 0 ? SERVE_FAIL : SERVE_OK;
}

/* Stream i's data socket: an accepted connection, a UDP socket tied to
 * the client's by its token, or (CRR) the listener, on which the loop
 * accepts. Returns it, or -1 with err set. */
static int
serve_data_socket(struct serve *sv, int i, uint64_t accept_by, char *err)
{
	const struct test_module *m =
	    underload_module(sv->m, underload_role(&sv->p, i));
	const struct transport *t = transport_of(m, &sv->p);
	struct test_ctx *c = &sv->set.ctx[i];
	int fd;

	c->ctl = sv->ctl;
	if (module_has(m, MODULE_F_PER_TRANS)) {
		/* Every stream's loop takes its transactions on the
		 * listener (UDP: its own), from the control peer only,
		 * each connection (or source port) starting with the
		 * token. */
		c->peerlen = sizeof(c->peer);
		getpeername(sv->ctl, (struct sockaddr *)&c->peer, &c->peerlen);
		return sv->lfds[i < sv->nlisten ? i : 0];
	}
	if (module_accepts(m)) {
		fd = accept_data(&sv->adm, accept_by, sv->lim->accept_ms, err);
		if (fd < 0)
			return -1;
		guard_track(&sv->st->guard, fd);
		sv->set.fds[i] = fd;
		return sock_apply_extra(fd, fd_family(fd), t->socktype, 0,
					&sv->p.rx, err) < 0
			   ? -1
			   : fd;
	}
	if (t->admit == TRANSPORT_DATAGRAM) {
		if (await_datagram(t, sv->lfds[i], sv->ctl, sv->token,
				   accept_by, sv->lim->accept_ms, err) < 0)
			return -1;
		/* The socket is the stream's now, and connected: what
		 * named it is no longer needed. */
		transport_release(t, sv->lfds[i]);
		sv->set.fds[i] = sv->lfds[i];
		sv->lfds[i] = -1;
		return sv->set.fds[i];
	}
	return err_set(err, "%s: no way to open its data path", m->name);
}

/* Every stream's data connection, each from the control client's host
 * only, each carrying the token, all by one deadline. */
static enum serve_rc
serve_admit(struct serve *sv, char *err)
{
	uint64_t accept_by =
	    clock_ns() + (uint64_t)sv->lim->accept_ms * 1000000;
	const unsigned char *token;
	int i, fd;

	/* The TCP listener: the test's, or the bulk flows' beside a UDP
	 * probe (--under-load). */
	if (module_accepts(sv->m) || underload_mixed(sv->m, &sv->p)) {
		if (admit_init(&sv->adm,
			       sv->lfds[underload_mixed(sv->m, &sv->p)],
			       sv->ctl, 1, sv->token, sv->log, err) < 0)
			return SERVE_TELL;
		sv->adm.same_host =
		    transport_of(sv->m, &sv->p)->ends->same_host;
		sv->adm_on = 1;
	}
	/* UDP's client sends the token again until it hears the echo, and
	 * CRR's starts every connection: those loops must know it. */
	token = module_accepts(sv->m) ? NULL : sv->token;
	for (i = 0; i < sv->p.streams; i++) {
		sv->set.r[i] = sv->r;
		/* Flows: thousands come one after another, each within
		 * the limit of the one before. */
		if (module_flows(&sv->p) && i > 0)
			accept_by =
			    clock_ns() + (uint64_t)sv->lim->accept_ms * 1000000;
		fd = serve_data_socket(sv, i, accept_by, err);
		if (fd < 0 ||
		    streams_open(&sv->set, i, fd, &sv->p, sv->stop, token,
				 err) < 0)
			return SERVE_TELL;
	}
	/* Whoever else is still waiting to be let in is not the client. */
	if (sv->adm_on) {
		admit_close(&sv->adm);
		sv->adm_on = 0;
	}
	return SERVE_OK;
}

/* --wire: count every connection from the client's host on the
 * listeners' ports, from after the tokens (which are not test traffic)
 * to the end. The client sends nothing more before "go", so the capture
 * misses no packet of the test. */
static void
serve_wire(struct serve *sv)
{
	struct wire_flow *flows = NULL;
	int i, nf = 0, port;

	if (!sv->p.wire)
		return;
	/* One flow per listener, however many streams: a fixed array here
	 * once counted only the first 64. */
	if (!module_has(sv->m, MODULE_F_PER_TRANS))
		flows = calloc((size_t)sv->nlisten, sizeof(*flows));
	for (i = 0; flows != NULL && i < sv->nlisten; i++) {
		if (wire_flow_of(sv->ctl, sv->m->protocol, 1, &flows[nf]) < 0)
			continue;
		set_port(&flows[nf].local, sv->set.ports[i]);
		nf++;
	}
	/* Where the client is on this host's loopback interface and its
	 * counter counts every packet of the flow there, a second counter
	 * would count them again (wire_share_offer). */
	if (!sv->p.wire_share ||
	    !wire_session_share(&sv->ws, &sv->wr, flows, nf))
		wire_session_start(&sv->ws, &sv->wr, NULL, flows, nf);
	else if ((sv->wire_ports = calloc((size_t)sv->set.n,
					  sizeof(*sv->wire_ports))) != NULL)
		for (i = 0; i < sv->set.n; i++)
			if (sv->set.fds[i] >= 0 &&
			    (port = sock_peer_port(sv->set.fds[i])) > 0)
				sv->wire_ports[sv->nwire_ports++] = port;
	free(flows);
	/* CRR's session has no flows, and nothing to stop. */
	sv->wire_on = !module_has(sv->m, MODULE_F_PER_TRANS);
}

/* The wire figures for the results; when netperf counted for this side,
 * with the client ports of the data connections, by which netperf knows
 * they are its own and not another host's come through a tunnel. */
static json_t *
serve_wire_pack(const struct serve *sv)
{
	json_t *w = proto_wire_pack(&sv->wr), *ports;
	int i;

	if (w == NULL || !sv->wr.shared)
		return w;
	ports = json_array();
	for (i = 0; ports != NULL && i < sv->nwire_ports; i++)
		json_array_append_new(ports, json_integer(sv->wire_ports[i]));
	json_object_set_new(w, "peer_ports", ports);
	return w;
}

/*
 * -D: the client's interim report of netserver's TCP_INFO over interval n.
 * module_run_all calls it from its coordinating thread, which is the
 * session's, so this thread is still the only one that writes to the
 * control connection (guard.h). A client that does not read loses the
 * report rather than holding the test: session_offer never waits.
 */
static void
serve_interim(void *arg, double count, double secs, double since_start,
	      const struct tcpinfo *tcpi, const struct module_interval *ivl)
{
	struct serve *sv = arg;
	struct proto_interim iv = {.n = sv->run.interim_k,
				   .interval = secs,
				   .since_start = since_start};
	json_t *msg;
	int rc;

	(void)count;
	(void)ivl;
	sv->interim_n++;
	if (tcpi == NULL || sv->interim_failed)
		return;
	iv.tcpi = *tcpi;
	msg = proto_interim_pack(&iv);
	if (msg == NULL)
		return;
	rc = session_offer(sv->ctl, msg, 200, sv->interim_err);
	json_decref(msg);
	if (rc < 0)
		sv->interim_failed = 1;
	else if (rc == 1)
		sv->interim_dropped++;
}

static int
send_go(void *arg, char *err)
{
	struct serve *sv = arg;

	return session_send_new(sv->ctl, proto_new("go"), SESSION_TIMEOUT_MS,
				err);
}

/* Whether "go" waits for this side's gate: where netserver only
 * receives, its interval must have begun before netperf, which starts on
 * "go", sends its first byte, or what arrives before it opened would
 * count in a shorter interval (a rate too high on a host slow to start
 * its threads). Where netserver sends, the receiver, netperf, opens its
 * gate on "go" first as it is. With --start-at both open at the time. */
static int
go_after_gate(const struct serve *sv)
{
	return sv->m->flow == MODULE_TO_SERVER && !sv->p.bidir &&
	       sv->p.start_at_ns == 0 && sv->p.load_down == 0;
}

/* "go", the test, and its end: the client's "stop" where the loops have
 * no end of their own, and the streams' counts summed. */
static enum serve_rc
serve_run(struct serve *sv, char *err)
{
	struct module_run *run = &sv->run;
	json_t *stop_msg;
	int rc;

	/* The platform record now, while the client waits for "go": no
	 * one's interval has begun. Its host's part has been read since
	 * the session began (platform_job_start); this waits for the
	 * rest, if any, and reads the data path's, a few system calls. */
	sv->plat = server_platform(sv->st, sv->ctl, sv->set.ctx[0].fd);
	run->gate_opened = NULL;
	run->gate_arg = NULL;
	if (go_after_gate(sv)) {
		run->gate_opened = send_go;
		run->gate_arg = sv;
	} else if (send_go(sv, err) < 0) {
		return SERVE_FAIL;
	}
	run->m = sv->m;
	run->is_server = 1;
	run->measure_cpu = sv->p.remote_cpu;
	run->n = sv->p.streams;
	run->ctx = sv->set.ctx;
	run->topo = sv->set.places != NULL ? &sv->st->topo : NULL;
	run->places = sv->set.places;
	run->start_at_ns = sv->p.start_at_ns;
	run->threads = module_flows(&sv->p) ? sv->p.threads : 0;
	if (sv->p.interim > 0 &&
	    transport_has_tcpinfo(transport_of(sv->m, &sv->p), sv->m)) {
		run->interim_sec = sv->p.interim;
		run->on_interim = serve_interim;
		run->arg = sv;
	}
	sv->log(1, "running %s, %d stream%s, for %.1f s", sv->m->name,
		sv->p.streams, sv->p.streams > 1 ? "s" : "", sv->p.duration);
	guard_test_deadline(&sv->st->guard, sv->lim->max_duration,
			    sv->p.start_at_ns);
	server_report(sv->lim, METRICS_EV_TEST_START, sv->m->name, 0, 0,
		      sv->p.streams, 0);
	sv->started = 1;
	rc = module_run_all(run, err);
	if (sv->wire_on) {
		wire_session_stop(&sv->ws, &sv->wr);
		sv->wire_on = 0;
	}
	/* Part of a frame may be out: the stream is no longer framed, and
	 * nothing more may go on it, not even why. */
	if (sv->interim_failed) {
		snprintf(err, ERR_LEN, "%s", sv->interim_err);
		return SERVE_QUIET;
	}
	/* Loops cut by the guard may end as if the client had finished. */
	if (rc < 0 || cut_reason(sv->st, err))
		return SERVE_TELL;
	if (sv->interim_dropped > 0)
		sv->log(1, "dropped %d of %d interim reports: the client did "
			   "not read them",
			sv->interim_dropped, sv->interim_n);
	if (module_needs_stop(sv->m)) {
		if (session_expect(sv->ctl, "stop", &stop_msg,
				   SESSION_TIMEOUT_MS, err) < 0)
			return SERVE_FAIL;
		json_decref(stop_msg);
	}
	module_merge(run, &sv->r);
	return SERVE_OK;
}

/* --timestamps: every stream's stamps merged into the results. */
static int
serve_tstamp(struct serve *sv, json_t *res, char *err)
{
	struct tstamp_account a;
	json_t *j;
	int i, rc = 0;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < sv->p.streams && rc == 0; i++)
		if (sv->set.ctx[i].ts != NULL)
			rc = tstamp_collect(sv->set.ctx[i].ts, &a, err);
	if (rc == 0) {
		j = tstamp_pack(&a);
		if (j == NULL || json_object_set_new(res, "timestamps", j) < 0)
			rc = err_set(err, "out of memory");
	}
	tstamp_account_free(&a);
	return rc;
}

/* The results, every stream's too when there are several. */
static enum serve_rc
serve_report(struct serve *sv, char *err)
{
	struct result_place *rp = &sv->rp;
	json_t *res, *list;
	int i;

	/* netperf 2.7's netserver prints its ends' TCP_INFO too when
	 * DUMP_TCP_INFO is set; here it goes to the log, a line each. */
	if (getenv("DUMP_TCP_INFO") != NULL)
		for (i = 0; i < sv->p.streams; i++)
			log_tcp_info(sv->log, &sv->set.r[i].tcpi);
	rp->cpu_actual = sv->set.r[0].cpu_id;
	if (sv->set.places != NULL && rp->numa < 0 && rp->cpu_actual >= 0)
		rp->numa = topo_cpu_numa(&sv->st->topo, rp->cpu_actual);
	res = proto_result_pack(&sv->r);
	if (res == NULL)
		return err_set(err, "out of memory"), SERVE_QUIET;
	json_object_set_new(res, "place", proto_place_pack(rp));
	if (sv->plat != NULL)
		json_object_set_new(res, "platform", sv->plat);
	sv->plat = NULL;
	if (sv->p.wire)
		json_object_set_new(res, "wire", serve_wire_pack(sv));
	if (sv->set.ctx[0].ts != NULL &&
	    serve_tstamp(sv, res, err) < 0) {
		json_decref(res);
		return SERVE_TELL;
	}
	/* Flows on threads: the sums alone, as a list of thousands would
	 * not fit in a message (PROTO_MAX_MSG). */
	if (sv->p.streams > 1 && !module_flows(&sv->p)) {
		list = json_array();
		for (i = 0; i < sv->p.streams; i++)
			json_array_append_new(list,
					      proto_result_pack(&sv->set.r[i]));
		json_object_set_new(res, "streams", list);
	}
	i = session_send(sv->ctl, res, SESSION_TIMEOUT_MS, err);
	json_decref(res);
	return i < 0 ? SERVE_FAIL : SERVE_OK;
}

static void
serve_free(struct serve *sv)
{
	int i;

	if (sv->adm_on)
		admit_close(&sv->adm);
	if (sv->wire_on)
		wire_session_stop(&sv->ws, &sv->wr);
	guard_test_end(&sv->st->guard);
	json_decref(sv->plat);
	cpu_util_free(&sv->r.cpu);
	for (i = 0; sv->lfds != NULL && i < sv->nlisten; i++)
		if (sv->lfds[i] >= 0) {
			transport_release(transport_of(sv->m, &sv->p),
					  sv->lfds[i]);
			close(sv->lfds[i]);
		}
	free(sv->lfds);
	free(sv->wire_ports);
	streams_free(&sv->set, sv->shared);
}

/* Runs one requested test, phase by phase; returns 0, or -1 with err set
 * after telling the client. */
static int
serve_test(struct server_state *st, int ctl, const json_t *req,
	   const struct server_limits *lim, server_log_fn log,
	   volatile sig_atomic_t *stop, char *err)
{
	struct serve sv;
	enum serve_rc rc;

	memset(&sv, 0, sizeof(sv));
	sv.st = st;
	sv.ctl = ctl;
	sv.lim = lim;
	sv.log = log;
	sv.stop = stop;
	sv.rp.cpu_actual = sv.rp.numa = sv.rp.nic_local = -1;
	rc = serve_negotiate(&sv, req, err);
	if (rc == SERVE_TOLD)
		return -1;
	if (rc == SERVE_OK)
		rc = serve_listen(&sv, err);
	if (rc == SERVE_OK)
		rc = serve_admit(&sv, err);
	if (rc == SERVE_OK) {
		serve_wire(&sv);
		rc = serve_run(&sv, err);
	}
	if (rc == SERVE_OK)
		rc = serve_report(&sv, err);
	/* Once a test, never from its loops: what it moved, and its
	 * streams no longer running. */
	if (sv.started) {
		uint64_t bytes = 0, trans = 0;

		for (int i = 0; i < sv.run.n; i++) {
			const struct side_result *r = sv.run.ctx[i].r;

			bytes += r->bytes_sent + r->bytes_recv;
			trans += r->trans;
		}
		server_report(lim, METRICS_EV_TEST_END, sv.m->name, bytes,
			      trans, sv.p.streams, 0);
	}
	if (rc == SERVE_TELL) {
		cut_reason(st, err);
		send_error(ctl, err);
	} else if (rc == SERVE_FAIL && cut_reason(st, err)) {
		send_error(ctl, err);
	}
	serve_free(&sv);
	return rc == SERVE_OK ? 0 : -1;
}

/* Peeks at the first bytes of a connection (up to 5, as legacy_sniff
 * needs), by timeout_ms: 1 when they are a netperf 2.7 client's, 0 when
 * they may be ours (or the client leaves, or SIGTERM comes: the session
 * reports those), -1 when they do not come in time. */
static int
first_bytes_legacy(int ctl, int timeout_ms, volatile sig_atomic_t *stop)
{
	struct pollfd pfd = {.fd = ctl, .events = POLLIN};
	uint64_t end = clock_ns() + (uint64_t)timeout_ms * 1000000;
	struct timespec pause = {0, 5000000};
	unsigned char head[5];
	ssize_t n;
	int rc;

	while (!*stop) {
		if (clock_ns() >= end)
			return -1;
		n = recv(ctl, head, sizeof(head), MSG_PEEK | MSG_DONTWAIT);
		if (n > 0 && (rc = legacy_sniff(head, (size_t)n)) >= 0)
			return rc;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return 0;
		/* Part of the bytes are here: poll would not wait. */
		if (n > 0)
			nanosleep(&pause, NULL);
		else
			poll(&pfd, 1, 20);
	}
	return 0;
}

int
server_session(int ctl, const struct server_limits *lim,
	       const struct auth_key *key, server_log_fn log,
	       server_auth_fn on_auth, volatile sig_atomic_t *stop, char *err)
{
	struct server_state st;
	char why[ERR_LEN];
	int rc, hello_ms;

	memset(&st, 0, sizeof(st));
	st.on_auth = on_auth;
	/* Control messages are small and often follow one another (ready,
	 * then go): Nagle would hold the second for the client's delayed
	 * ACK. Best effort. */
	sock_set_nodelay(ctl, 1, why);
	/* Our frames start with a length and '{'; 2.7's do not. */
	/* Within the hello's own deadline, as the hello is read. */
	hello_ms = lim->hello_ms < lim->idle_ms ? lim->hello_ms : lim->idle_ms;
	rc = first_bytes_legacy(ctl, hello_ms, stop);
	/* Our netperf's probe is 2.7-shaped: once it is answered, the
	 * hello follows. */
	if (rc == 1) {
		rc = server_legacy_session(ctl, lim, key, log, stop, err);
		if (rc != SERVER_PROBED)
			return rc;
	}
	if (rc < 0) {
		err_set(err, "control connection: no message within %d ms",
			hello_ms);
		send_error(ctl, err);
		return -1;
	}
	if (guard_start(&st.guard, ctl, lim->max_session_time, stop, err) < 0) {
		send_error(ctl, err);
		return -1;
	}
	st.lim = lim;
	platform_job_start(&st.plat, "netserver");
	rc = session_loop(&st, ctl, lim, key, log, stop, err);
	platform_job_wait(&st.plat);
	if (guard_cause_of(&st.guard) == GUARD_OVERTIME ||
	    guard_cause_of(&st.guard) == GUARD_LIFETIME)
		server_report(lim, METRICS_EV_CUT, NULL, 0, 0, 0, 0);
	guard_finish(&st.guard);
	if (st.topo_loaded)
		topo_free(&st.topo);
	return rc;
}

/* Reads a hex field of exactly len bytes; returns 0, or -1. */
static int
get_hex(const json_t *msg, const char *key, unsigned char *out, size_t len)
{
	return auth_unhex(json_string_value(json_object_get(msg, key)), out,
			  len);
}

/* What netserver says of its host: after the handshake when there is
 * one, so only a client that knows the key learns it. */
static int
add_env(json_t *msg)
{
	struct result_env env;

	if (msg == NULL)
		return -1;
	result_env_self(&env, "netserver");
	json_object_set_new(msg, "hostname", json_string(env.hostname));
	json_object_set_new(msg, "kernel", json_string(env.kernel));
	json_object_set_new(msg, "cpu_model", json_string(env.cpu_model));
	json_object_set_new(msg, "ncpu", json_integer(env.ncpu));
	return 0;
}

/*
 * The challenge-response after netserver's hello: the client proves it
 * holds the key with HMAC(key, "netperf client v1" | snonce | cnonce), and
 * netserver answers with its own proof under another label, so each side
 * knows the other holds the key and neither proof can be replayed to the
 * other side or into another session. Returns 0; -2 with err saying why
 * for the log when the client sent credentials that were wrong (a guess,
 * which netserver's back-off counts); or -1 with err when it sent none
 * (the client is only told "authentication failed").
 */
static int
authenticate(int ctl, const struct auth_key *key, const unsigned char *snonce,
	     int idle_ms, server_auth_fn on_auth, char *err)
{
	unsigned char cnonce[AUTH_NONCE_LEN], proof[AUTH_MAC_LEN];
	unsigned char want[AUTH_MAC_LEN];
	char hex[2 * AUTH_MAC_LEN + 1], why[ERR_LEN], text[ESCAPE_LEN];
	json_t *msg, *ok;
	int rc;

	rc = session_recv(ctl, &msg, idle_ms, why);
	if (rc == 1)
		return err_set(err, "authentication failed: the client left "
				    "without credentials");
	if (rc < 0)
		return err_set(err, "authentication failed: %s", why);
	if (strcmp(proto_type(msg), "auth") != 0) {
		err_set(err,
			"authentication failed: the client sent \"%s\" "
			"instead of credentials",
			escape_str(text, sizeof(text), proto_type(msg)));
		json_decref(msg);
		return -1;
	}
	rc = get_hex(msg, "cnonce", cnonce, sizeof(cnonce)) < 0 ||
	     get_hex(msg, "proof", proof, sizeof(proof)) < 0;
	json_decref(msg);
	if (rc) {
		err_set(err, "authentication failed: malformed credentials");
	} else {
		auth_proof(key, "netperf client v1", snonce, cnonce, want);
		if (!auth_equal(proof, want, sizeof(want))) {
			err_set(err, "authentication failed: wrong key");
			rc = 1;
		}
	}
	/* Told before the client hears the verdict, so that its next
	 * guess already meets the back-off. */
	if (on_auth != NULL)
		on_auth(!rc);
	if (rc)
		return -2;
	auth_proof(key, "netserver v1", snonce, cnonce, want);
	auth_hex(want, sizeof(want), hex);
	ok = json_pack("{s:s, s:s}", "type", "auth_ok", "proof", hex);
	if (add_env(ok) < 0)
		return err_set(err, "out of memory");
	return session_send_new(ctl, ok, SESSION_TIMEOUT_MS, err);
}

/* The conversation itself: hello, then tests until goodbye. */
/* The client's hello, by its own deadline, of our version. Returns 0,
 * 1 when the client left first, or -1 with err set (and told). */
static int
read_hello(struct server_state *st, int ctl, int hello_ms, char *err)
{
	char text[ESCAPE_LEN];
	json_t *msg;
	int64_t ver;
	int rc;

	rc = session_recv(ctl, &msg, hello_ms, err);
	if (cut_reason(st, err)) {
		json_decref(msg);
		send_error(ctl, err);
		return -1;
	}
	if (rc == 1)
		return 1;
	if (rc < 0) {
		send_error(ctl, err);
		return -1;
	}
	if (strcmp(proto_type(msg), "hello") != 0 ||
	    proto_get_int(msg, "version", 0, INT32_MAX, &ver, err) < 0) {
		if (strcmp(proto_type(msg), "hello") != 0)
			err_set(
			    err, "expected hello, got \"%s\"",
			    escape_str(text, sizeof(text), proto_type(msg)));
		json_decref(msg);
		send_error(ctl, err);
		return -1;
	}
	json_decref(msg);
	if (ver != PROTO_VERSION) {
		server_report(st->lim, METRICS_EV_REFUSED, NULL, 0, 0, 0,
			      METRICS_REFUSED_VERSION);
		err_set(err,
			"protocol version %lld is not supported (this "
			"netserver speaks %d)",
			(long long)ver, PROTO_VERSION);
		send_error(ctl, err);
		return -1;
	}
	return 0;
}

/* Our hello, with a challenge when a key is set, and the client's answer
 * to it. Returns 0, SERVER_AUTH_FAILED, or -1 with err set. */
static int
greet(struct server_state *st, int ctl, const struct auth_key *key,
      int hello_ms, char *err)
{
	unsigned char snonce[AUTH_NONCE_LEN];
	char hex[2 * AUTH_NONCE_LEN + 1], why[ERR_LEN];
	json_t *hello;
	int rc;

	hello = json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version",
			  PROTO_VERSION, "program", "netserver",
			  "program_version", NP_VERSION);
	if (hello != NULL && key != NULL) {
		if (auth_random(snonce, sizeof(snonce), err) < 0) {
			json_decref(hello);
			send_error(ctl, err);
			return -1;
		}
		auth_hex(snonce, sizeof(snonce), hex);
		json_object_set_new(hello, "auth", json_string("hmac-sha256"));
		json_object_set_new(hello, "nonce", json_string(hex));
	} else {
		add_env(hello); /* a NULL hello is reported just below */
	}
	if (session_send_new(ctl, hello, SESSION_TIMEOUT_MS, err) < 0)
		return -1;
	if (key == NULL)
		return 0;
	rc = authenticate(ctl, key, snonce, hello_ms, st->on_auth, err);
	if (rc == 0)
		return 0;
	if (cut_reason(st, why)) {
		send_error(ctl, why);
		snprintf(err, ERR_LEN, "%s", why);
		return -1;
	}
	send_error(ctl, "authentication failed");
	return SERVER_AUTH_FAILED;
}

static int
session_loop(struct server_state *st, int ctl, const struct server_limits *lim,
	     const struct auth_key *key, server_log_fn log,
	     volatile sig_atomic_t *stop, char *err)
{
	char text[ESCAPE_LEN];
	const char *type;
	json_t *msg;
	int rc;
	/* The hello has a deadline of its own, shorter than the idle limit
	 * between tests (or that limit, when it is shorter still): a
	 * connection that says nothing holds a session slot for seconds,
	 * not a minute. */
	int hello_ms = lim->hello_ms < lim->idle_ms ? lim->hello_ms
						    : lim->idle_ms;

	rc = read_hello(st, ctl, hello_ms, err);
	if (rc == 1)
		return err_set(err, "client left before saying hello");
	if (rc < 0)
		return -1;
	rc = greet(st, ctl, key, hello_ms, err);
	if (rc != 0)
		return rc;
	for (;;) {
		rc = session_recv(ctl, &msg, lim->idle_ms, err);
		if (cut_reason(st, err)) {
			json_decref(msg);
			send_error(ctl, err);
			return -1;
		}
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
		/* A Ctrl-C "stop" can cross the natural end of a test whose
		 * loop does not read it: it has nothing left to stop. */
		if (strcmp(type, "stop") == 0) {
			json_decref(msg);
			continue;
		}
		/* netperf -t REM_CPU: 2.7's CPU rate and the CPU count. */
		if (strcmp(type, "cpu_rate") == 0) {
			json_decref(msg);
			if (session_send_new(ctl,
					     json_pack("{s:s, s:f, s:i}", "type",
						       "cpu_rate", "rate",
						       cpu_rate(), "cpus",
						       cpu_count()),
					     SESSION_TIMEOUT_MS, err) < 0)
				return -1;
			continue;
		}
		if (strcmp(type, "request") != 0) {
			err_set(err, "unexpected \"%s\" message",
				escape_str(text, sizeof(text), type));
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
