/* The bulk-transfer loops: TCP_STREAM and TCP_MAERTS, both directions. */
#include "module.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "err.h"

/* After a sender's last byte: half-close and wait for the receiver to
 * close its side, so the flush of the last data is inside the interval.
 * The receiver of a one-way test sends nothing back, so data here is a
 * peer that does not follow the protocol (one flooding to hold the test
 * open): that ends the test at once, as an error. */
static int
finish_send(struct test_ctx *ctx)
{
	uint64_t start = clock_ns();
	char junk[4096];
	ssize_t n;

	shutdown(ctx->fd, SHUT_WR);
	for (;;) {
		/* Not into ctx->buf: netserver's senders share theirs, and
		 * only ever read it. */
		n = recv(ctx->fd, junk, sizeof(junk), 0);
		if (n == 0)
			return 0;
		if (n > 0)
			return err_set(ctx->err,
				       "the peer sent data back on the "
				       "one-way data connection");
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(ctx->err, "data connection: %s",
				       strerror(errno));
		if (clock_ns() - start >= MODULE_GRACE_SEC * NS_PER_SEC)
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
	uint64_t now = clock_ns(), then, progress = now, check = now;
	ssize_t n;
	size_t want;

	for (;;) {
		if (*ctx->stop)
			break;
		if (ctx->end_ns != 0 ? now >= ctx->end_ns
				     : r->bytes_sent >= left)
			break;
		/* netserver sending (MAERTS) ends early when the client
		 * asks; it looks every few milliseconds. */
		if (ctx->ctl >= 0 && now - check > 5000000) {
			check = now;
			if (module_stop_requested(ctx))
				break;
		}
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
		if (module_stalled(ctx, now, progress,
				   "kept the test going") < 0)
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
			/* A sender that never stops must not hold this end:
			 * not past the end of a timed test, nor past the
			 * bytes asked for in a counted one. */
			if (module_overtime(ctx, now, "kept sending data") < 0)
				return -1;
			if (ctx->end_ns == 0 && ctx->p->count > 0 &&
			    r->bytes_recv > (uint64_t)ctx->p->count)
				return err_set(ctx->err,
					       "the peer sent more than the "
					       "%lld bytes asked for",
					       (long long)ctx->p->count);
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
		if (module_stalled(ctx, now, progress,
				   "kept sending data") < 0)
			return -1;
	}
	/* The sender waits for this close to end its interval. */
	shutdown(ctx->fd, SHUT_WR);
	return 0;
}

/* UDP_STREAM's header: big-endian sequence number and send time, so the
 * receiver can count loss, duplicates and reordering, and jitter. */
static void
put_be64(char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (char)(v & 0xff);
}

static uint64_t
get_be64(const char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | (unsigned char)p[i];
	return v;
}

/* Sleeps until the monotonic deadline t; pacing uses it when ahead. */
static void
sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / NS_PER_SEC), (long)(t % NS_PER_SEC)};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

int
udp_stream_send(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->send_size;
	uint64_t left = ctx->p->duration > 0 ? 0 : (uint64_t)ctx->p->count;
	uint64_t now = clock_ns(), then, progress = now, seq = 0;
	uint64_t gap = 0, next = now;
	ssize_t n;

	/* --rate: one datagram every gap ns, scheduled on absolute times so
	 * the offered rate does not drift. */
	if (ctx->p->rate > 0)
		gap = (uint64_t)((double)size * 8 * 1e9 / ctx->p->rate);
	for (;;) {
		if (*ctx->stop)
			break;
		if (ctx->end_ns != 0 ? now >= ctx->end_ns
				     : r->bytes_sent >= left)
			break;
		if (gap != 0) {
			if (now < next) {
				sleep_until(next);
				now = clock_ns();
			}
			next += gap;
		}
		put_be64(ctx->buf, seq);
		put_be64(ctx->buf + 8, now);
		n = send(ctx->fd, ctx->buf, size, 0);
		then = now;
		now = clock_ns();
		if (n >= 0) {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
			seq++;
			progress = now;
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			continue;
		}
		if (errno == EINTR)
			continue;
		/* A full queue is the network's answer, not a failure: count
		 * it, as netperf's "Errors" column does. */
		if (errno == ENOBUFS || errno == EAGAIN ||
		    errno == EWOULDBLOCK) {
			r->send_errors++;
			if (module_stalled(ctx, now, progress,
				   "kept the test going") < 0)
				return -1;
			continue;
		}
		return err_set(ctx->err, "data socket: send: %s",
			       strerror(errno));
	}
	module_udp_end(ctx);
	return 0;
}

/* Sequence numbers remembered for telling duplicates from late arrivals. */
#define UDP_WINDOW 65536

int
udp_stream_recv(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	uint64_t start = clock_ns(), now = start, last = start, check = start;
	uint64_t next = 0, seq;
	int64_t transit, prev_transit = 0, d;
	unsigned char *seen;
	int have_prev = 0, stopping = 0;
	double jitter = 0;
	ssize_t n;

	seen = calloc(UDP_WINDOW / 8, 1);
	if (seen == NULL)
		return err_set(ctx->err, "out of memory");
	for (;;) {
		n = recv(ctx->fd, ctx->buf, ctx->buflen,
			 stopping ? MSG_DONTWAIT : 0);
		now = clock_ns();
		/* Neither a flood nor a missing stop holds this end past
		 * the end of the test. */
		if (module_overtime(ctx, now, "kept sending datagrams") < 0)
			goto fail;
		/* The token again: the client did not hear the echo. */
		if (module_udp_token(ctx, n, 1))
			continue;
		if (n >= MODULE_UDP_HDR) {
			r->recv_calls++;
			r->bytes_recv += (uint64_t)n;
			last = now;
			seq = get_be64(ctx->buf);
			/* RFC 3550: J += (|D| - J) / 16, D the change in
			 * transit time; only differences of the sender's
			 * clock are used, so the clocks need not agree. */
			transit = (int64_t)(now - get_be64(ctx->buf + 8));
			if (have_prev) {
				d = transit - prev_transit;
				jitter +=
				    ((double)(d < 0 ? -d : d) - jitter) / 16.0;
			}
			prev_transit = transit;
			have_prev = 1;
			if (seq >= next) {
				uint64_t s = next;

				/* Forget what the window held for the
				 * sequence numbers now being skipped. */
				if (seq - next >= UDP_WINDOW)
					memset(seen, 0, UDP_WINDOW / 8);
				else
					for (; s < seq; s++)
						seen[(s % UDP_WINDOW) / 8] &=
						    (unsigned char)~(
							1u << (s % 8));
				seen[(seq % UDP_WINDOW) / 8] |=
				    (unsigned char)(1u << (seq % 8));
				next = seq + 1;
			} else if (next - seq >= UDP_WINDOW) {
				r->reordered++;
			} else if (seen[(seq % UDP_WINDOW) / 8] &
				   (1u << (seq % 8))) {
				r->dups++;
			} else {
				seen[(seq % UDP_WINDOW) / 8] |=
				    (unsigned char)(1u << (seq % 8));
				r->reordered++;
			}
		} else if (n == 0) {
			/* The client's end marker: take what is queued. */
			stopping = 1;
		} else if (n > 0) {
			/* Too short to be ours: not counted as data. */
		} else if (errno == EINTR) {
			continue;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (stopping)
				break;
			if (module_stop_requested(ctx)) {
				stopping = 1;
				continue;
			}
			if (module_stalled(ctx, now, last,
				   "kept sending datagrams") < 0)
				goto fail;
			continue;
		} else if (errno != ECONNREFUSED) {
			err_set(ctx->err, "data socket: recv: %s",
				strerror(errno));
			goto fail;
		}
		/* Look at the control socket every few milliseconds: once
		 * the client says it has stopped, drain what is queued. */
		if (!stopping && now - check > 5000000) {
			check = now;
			stopping = module_stop_requested(ctx);
		}
	}
	free(seen);
	r->jitter = jitter / 1e9;
	r->elapsed = (double)(last - start) / 1e9;
	return 0;
fail:
	free(seen);
	return -1;
}
