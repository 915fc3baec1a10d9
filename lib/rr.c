/* The request/response loops: TCP_RR, with -b transactions in flight. */
#include "module.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "err.h"

/* Sends len bytes in full; returns 0, or -1 with err set when the peer
 * stops taking them (see module_stalled). */
static int
send_full(struct test_ctx *ctx, const char *buf, size_t len)
{
	uint64_t start = clock_ns();
	ssize_t n;

	while (len > 0) {
		n = send(ctx->fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (clock_ns() - start >= MODULE_IDLE_SEC * NS_PER_SEC)
				return err_set(ctx->err,
					       "the peer stopped reading "
					       "requests for %d s",
					       MODULE_IDLE_SEC);
			continue;
		}
		return err_set(ctx->err, "data connection: send: %s",
			       strerror(errno));
	}
	return 0;
}

/*
 * Receives exactly len bytes. Returns 0; 1 on EOF before the first byte;
 * -1 with err set on an error, an EOF inside a message, or a peer that
 * has gone silent (see module_stalled).
 */
static int
recv_full(struct test_ctx *ctx, char *buf, size_t len, uint64_t *calls)
{
	uint64_t start = clock_ns();
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = recv(ctx->fd, buf + off, len - off, 0);
		if (n > 0) {
			off += (size_t)n;
			(*calls)++;
			continue;
		}
		if (n == 0) {
			if (off == 0)
				return 1;
			return err_set(ctx->err, "data connection closed in "
						 "the middle of a message");
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(ctx->err, "data connection: recv: %s",
				       strerror(errno));
		if (module_stalled(ctx, clock_ns(), start) < 0)
			return -1;
	}
	return 0;
}

int
rr_client(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t req = (size_t)p->req_size, rsp = (size_t)p->rsp_size;
	int depth = p->burst + 1, head = 0, inflight = 0, rc;
	uint64_t *stamp, now, sent = 0;
	int ending = 0;

	/* The start time of each transaction in flight, oldest at head; a
	 * ring of burst + 1 slots allocated before the loop starts. */
	stamp = calloc((size_t)depth, sizeof(*stamp));
	if (stamp == NULL)
		return err_set(ctx->err, "out of memory");
	r->send_size = (int64_t)req;
	r->recv_size = (int64_t)rsp;
	for (;;) {
		now = clock_ns();
		if (*ctx->stop || (ctx->end_ns != 0 && now >= ctx->end_ns) ||
		    (ctx->end_ns == 0 && sent >= (uint64_t)p->count))
			ending = 1;
		while (!ending && inflight < depth &&
		       (ctx->end_ns != 0 || sent < (uint64_t)p->count)) {
			if (send_full(ctx, ctx->buf, req) < 0)
				goto fail;
			stamp[(head + inflight) % depth] = now;
			inflight++;
			sent++;
			r->bytes_sent += req;
			r->send_calls++;
		}
		if (inflight == 0)
			break;
		rc = recv_full(ctx, ctx->buf, rsp, &r->recv_calls);
		if (rc == 1) {
			err_set(ctx->err, "the peer closed the data "
					  "connection during the test");
			goto fail;
		}
		if (rc < 0)
			goto fail;
		now = clock_ns();
		if (ctx->hist != NULL)
			stats_hist_add(ctx->hist, now - stamp[head]);
		head = (head + 1) % depth;
		inflight--;
		r->trans++;
		r->bytes_recv += rsp;
	}
	free(stamp);
	shutdown(ctx->fd, SHUT_WR);
	/* Wait for the server's close so both sides end their intervals. */
	rc = recv_full(ctx, ctx->buf, 1, &r->recv_calls);
	if (rc == 0)
		return err_set(ctx->err,
			       "the peer sent more than it was asked");
	return rc == 1 ? 0 : -1;
fail:
	free(stamp);
	return -1;
}

int
rr_server(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t req = (size_t)p->req_size, rsp = (size_t)p->rsp_size;
	int rc;

	r->send_size = (int64_t)rsp;
	r->recv_size = (int64_t)req;
	for (;;) {
		rc = recv_full(ctx, ctx->buf, req, &r->recv_calls);
		if (rc == 1)
			break;
		if (rc < 0)
			return -1;
		r->bytes_recv += req;
		if (send_full(ctx, ctx->buf, rsp) < 0)
			return -1;
		r->bytes_sent += rsp;
		r->send_calls++;
		r->trans++;
	}
	shutdown(ctx->fd, SHUT_WR);
	return 0;
}
