/* The bulk-transfer loops: TCP_STREAM and TCP_MAERTS, both directions. */
#include "module.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "err.h"

/* After a sender's last byte: half-close and wait for the receiver to
 * close its side, so the flush of the last data is inside the interval. */
static int
finish_send(struct test_ctx *ctx)
{
	uint64_t start = clock_ns(), now;
	ssize_t n;

	shutdown(ctx->fd, SHUT_WR);
	for (;;) {
		n = recv(ctx->fd, ctx->buf, ctx->buflen, 0);
		if (n == 0)
			return 0;
		if (n > 0)
			continue;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(ctx->err, "data connection: %s",
				       strerror(errno));
		now = clock_ns();
		if (now - start >= MODULE_GRACE_SEC * NS_PER_SEC)
			return err_set(ctx->err,
				       "the peer did not close the data "
				       "connection within %d s of the end",
				       MODULE_GRACE_SEC);
	}
}

int
stream_send(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->send_size;
	uint64_t left = ctx->p->duration > 0 ? 0 : (uint64_t)ctx->p->count;
	uint64_t now = clock_ns(), then, progress = now;
	ssize_t n;
	size_t want;

	for (;;) {
		if (*ctx->stop)
			break;
		if (ctx->end_ns != 0 ? now >= ctx->end_ns
				     : r->bytes_sent >= left)
			break;
		want = size;
		if (ctx->end_ns == 0 && left - r->bytes_sent < want)
			want = (size_t)(left - r->bytes_sent);
		n = send(ctx->fd, ctx->buf, want, MSG_NOSIGNAL);
		then = now;
		now = clock_ns();
		if (n > 0) {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
			progress = now;
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(ctx->err, "data connection: send: %s",
				       strerror(errno));
		if (module_stalled(ctx, now, progress) < 0)
			return -1;
	}
	return finish_send(ctx);
}

int
stream_recv(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->recv_size;
	uint64_t now = clock_ns(), then, progress = now;
	ssize_t n;

	for (;;) {
		n = recv(ctx->fd, ctx->buf, size, 0);
		then = now;
		now = clock_ns();
		if (n > 0) {
			r->bytes_recv += (uint64_t)n;
			r->recv_calls++;
			progress = now;
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR) {
			if (*ctx->stop)
				break;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(ctx->err, "data connection: recv: %s",
				       strerror(errno));
		if (*ctx->stop)
			break;
		if (module_stalled(ctx, now, progress) < 0)
			return -1;
	}
	/* The sender waits for this close to end its interval. */
	shutdown(ctx->fd, SHUT_WR);
	return 0;
}
