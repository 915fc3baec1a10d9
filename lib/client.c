#include "client.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "session.h"
#include "sock.h"

/* Milliseconds to wait for a connection to netserver. */
#define CLIENT_CONNECT_MS 5000

int
client_open(struct client *c, const struct netperf_opts *o, char *err)
{
	socklen_t len;
	json_t *msg;
	int64_t ver;

	struct sock_setup setup = {o->local, o->lport, -1, -1, 0, 0};

	memset(c, 0, sizeof(*c));
	c->ctl = sock_connect(o->host, o->port, o->family, SOCK_STREAM, &setup,
			      CLIENT_CONNECT_MS, err);
	if (c->ctl < 0)
		return -1;
	len = sizeof(c->peer);
	getpeername(c->ctl, (struct sockaddr *)&c->peer, &len);
	len = sizeof(c->self);
	getsockname(c->ctl, (struct sockaddr *)&c->self, &len);
	if (session_send_new(c->ctl,
			     json_pack("{s:s, s:i, s:s, s:s}", "type", "hello",
				       "version", PROTO_VERSION, "program",
				       "netperf", "program_version",
				       NP_VERSION),
			     SESSION_TIMEOUT_MS, err) < 0 ||
	    session_expect(c->ctl, "hello", &msg, SESSION_TIMEOUT_MS, err) < 0)
		goto fail;
	if (proto_get_int(msg, "version", 0, INT32_MAX, &ver, err) < 0 ||
	    proto_get_string(msg, "program", c->server_program,
			     sizeof(c->server_program), err) < 0) {
		json_decref(msg);
		goto fail;
	}
	json_decref(msg);
	if (ver != PROTO_VERSION) {
		err_set(err,
			"netserver speaks protocol version %lld, this "
			"netperf speaks %d",
			(long long)ver, PROTO_VERSION);
		goto fail;
	}
	return 0;
fail:
	close(c->ctl);
	c->ctl = -1;
	return -1;
}

void
client_describe(const struct client *c, const struct netperf_opts *o,
		struct result *res)
{
	sock_addr_text((const struct sockaddr *)&c->self, res->local_addr);
	sock_addr_text((const struct sockaddr *)&c->peer, res->remote_addr);
	snprintf(res->local_name, sizeof(res->local_name), "%s",
		 o->data_local[0] ? o->data_local : res->local_addr);
	snprintf(res->remote_name, sizeof(res->remote_name), "%s",
		 o->data_host[0] ? o->data_host : o->host);
	res->family = c->peer.ss_family;
	/* An IPv4 peer reached through an IPv6 socket is an IPv4 test. */
	if (res->family == AF_INET6 &&
	    strncmp(res->remote_addr, "::ffff:", 7) == 0 &&
	    strchr(res->remote_addr, '.') != NULL) {
		memmove(res->remote_addr, res->remote_addr + 7,
			strlen(res->remote_addr + 7) + 1);
		res->family = AF_INET;
	}
}

/* Opens the data connection to the port netserver gave, recording the
 * socket buffer sizes it had before connecting. */
static int
open_data(const struct netperf_opts *o, struct result *res, int port, char *err)
{
	const char *host = o->data_host[0] ? o->data_host : res->remote_addr;
	struct sock_setup setup = {
	    o->data_local, o->ldata_port, o->lsndbuf, o->lrcvbuf, -1, -1};
	int fd;

	fd = sock_connect(host, port, o->data_family, res->m->socktype, &setup,
			  CLIENT_CONNECT_MS, err);
	res->local.sndbuf = setup.got_sndbuf;
	res->local.rcvbuf = setup.got_rcvbuf;
	return fd;
}

/* CRR connects once per transaction: resolve netserver's data address
 * once, and read the buffer sizes a fresh socket gets. Returns a socket
 * that is only used for those figures. */
static int
crr_target(const struct netperf_opts *o, struct result *res, int port,
	   struct test_ctx *ctx, char *err)
{
	const char *host = o->data_host[0] ? o->data_host : res->remote_addr;
	struct addrinfo *ai;
	int fd;

	if (sock_resolve(host, port, o->data_family, SOCK_STREAM, &ai, err) < 0)
		return -1;
	memcpy(&ctx->peer, ai->ai_addr, ai->ai_addrlen);
	ctx->peerlen = ai->ai_addrlen;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	freeaddrinfo(ai);
	if (fd < 0)
		return err_set(err, "socket: %s", strerror(errno));
	if (sock_set_buffers(fd, o->lsndbuf, o->lrcvbuf, err) < 0) {
		close(fd);
		return -1;
	}
	sock_get_buffers(fd, &res->local.sndbuf, &res->local.rcvbuf);
	return fd;
}

/* After a local failure, netserver may have said why; prefer its words. */
static void
remote_reason(struct client *c, char *err)
{
	char why[ERR_LEN];
	json_t *msg;

	if (session_expect(c->ctl, "results", &msg, 1000, why) == 0) {
		json_decref(msg);
		return;
	}
	if (strstr(why, "control connection") == NULL &&
	    strstr(why, "closed") == NULL)
		err_set(err, "netserver: %s", why);
}

int
client_test(struct client *c, const struct netperf_opts *o, struct result *res,
	    volatile sig_atomic_t *stop, char *err)
{
	const struct test_module *m = res->m;
	struct test_ctx ctx;
	json_t *msg = NULL;
	int64_t port, v;
	size_t buflen;
	int fd = -1, rc = -1;

	memset(&ctx, 0, sizeof(ctx));
	if (session_send_new(c->ctl, proto_request_pack(&res->p),
			     SESSION_TIMEOUT_MS, err) < 0 ||
	    session_expect(c->ctl, "ready", &msg, SESSION_TIMEOUT_MS, err) < 0)
		return -1;
	if (proto_get_int(msg, "data_port", 1, 65535, &port, err) < 0 ||
	    proto_get_int(msg, "sndbuf", -1, INT32_MAX, &v, err) < 0)
		goto out;
	res->remote.sndbuf = (int)v;
	if (proto_get_int(msg, "rcvbuf", -1, INT32_MAX, &v, err) < 0)
		goto out;
	res->remote.rcvbuf = (int)v;
	if (proto_get_int(msg, "send_size", 0, INT64_MAX,
			  &res->remote.send_size, err) < 0 ||
	    proto_get_int(msg, "recv_size", 0, INT64_MAX,
			  &res->remote.recv_size, err) < 0)
		goto out;

	if (m->kind == MODULE_CRR)
		fd = crr_target(o, res, (int)port, &ctx, err);
	else
		fd = open_data(o, res, (int)port, err);
	if (fd < 0)
		goto out;
	if ((m->protocol == IPPROTO_TCP && o->nodelay &&
	     sock_set_nodelay(fd, 1, err) < 0) ||
	    sock_set_timeouts(fd, 1000, err) < 0)
		goto out;
	/* netperf's defaults: a send or receive the size of the socket
	 * buffer as it was created. */
	res->local.send_size = o->send_size	       ? o->send_size
			       : res->local.sndbuf > 0 ? res->local.sndbuf
						       : 4096;
	res->local.recv_size = o->recv_size	       ? o->recv_size
			       : res->local.rcvbuf > 0 ? res->local.rcvbuf
						       : 4096;
	/* As netperf 2.7: a UDP send defaults to the socket buffer capped at
	 * the largest datagram; a UDP receive must hold any datagram. */
	if (m->kind == MODULE_UDP_STREAM && o->send_size == 0 &&
	    res->local.send_size > MODULE_UDP_MAX)
		res->local.send_size = MODULE_UDP_MAX;
	if (m->socktype == SOCK_DGRAM && o->recv_size == 0 &&
	    res->local.recv_size < MODULE_UDP_MAX + 1)
		res->local.recv_size = MODULE_UDP_MAX + 1;
	buflen = (size_t)res->local.send_size;
	if ((size_t)res->local.recv_size > buflen)
		buflen = (size_t)res->local.recv_size;
	if ((size_t)res->p.req_size > buflen)
		buflen = (size_t)res->p.req_size;
	if ((size_t)res->p.rsp_size > buflen)
		buflen = (size_t)res->p.rsp_size;
	ctx.buf = malloc(buflen);
	if (ctx.buf == NULL) {
		err_set(err, "cannot allocate a %zu-byte buffer", buflen);
		goto out;
	}
	/* netperf's fill pattern, so captures look familiar. */
	for (size_t i = 0; i < buflen; i++)
		ctx.buf[i] = "netperf"[i % 8];
	ctx.buflen = buflen;
	ctx.p = &res->p;
	ctx.fd = fd;
	ctx.stop = stop;
	ctx.r = &res->local;
	ctx.hist = res->hist;
	ctx.ctl = -1;
	if (module_run(m, 0, o->local_cpu, &ctx) < 0) {
		snprintf(err, ERR_LEN, "%s", ctx.err);
		remote_reason(c, err);
		goto out;
	}
	if (module_needs_stop(m) &&
	    session_send_new(c->ctl, proto_new("stop"), SESSION_TIMEOUT_MS,
			     err) < 0)
		goto out;
	close(fd);
	fd = -1;
	json_decref(msg);
	if (session_expect(c->ctl, "results", &msg,
			   (MODULE_GRACE_SEC + 5) * 1000, err) < 0)
		goto out;
	if (proto_result_unpack(msg, &res->remote, err) < 0)
		goto out;
	rc = 0;
out:
	free(ctx.buf);
	if (fd >= 0)
		close(fd);
	json_decref(msg);
	return rc;
}

void
client_close(struct client *c)
{
	char err[ERR_LEN];

	if (c->ctl < 0)
		return;
	session_send_new(c->ctl, proto_new("bye"), 1000, err);
	close(c->ctl);
	c->ctl = -1;
}
