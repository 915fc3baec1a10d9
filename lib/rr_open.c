/*
 * The open loop of TCP_RR's and UDP_RR's clients (--rate, --timeout,
 * --reconnect). Each stream draws its own arrivals, R / streams a second,
 * and every request has an intended send time. A request whose stream is
 * busy (-b + 1 requests in flight) waits, and the wait is part of its
 * latency: the histogram counts from the intended time, as wrk2 does, so
 * a stall shows in it (no coordinated omission); the service histogram
 * counts from the actual send. Without --rate every request is due at
 * once, which is the closed loop with time-outs and errors counted.
 */
#include "np/rr_open.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#include "np/clock.h"
#include "np/be.h"
#include "np/err.h"
#include "np/gone.h"
#include "np/module.h"
#include "np/oneway.h"
#include "np/result.h"
#include "np/tstamp.h"

/* How long one wait may last before the loop looks at the test's end and
 * Ctrl-C again. */
#define OPEN_NAP_MAX_NS (20 * 1000000ULL)
/* The spin before a due time: what the wake-ups overshoot, learnt as the
 * test runs, within these bounds. */
#define OPEN_SPIN_MIN_NS 5000ULL
#define OPEN_SPIN_MAX_NS 100000ULL
#define OPEN_SPIN_INIT_NS 50000ULL
/* The most of a mean gap the spin may take: a thread that never sleeps
 * is one the kernel throttles (a real-time one loses 50 ms a second). */
#define OPEN_SPIN_SHARE 0.8

/* One stream's arrivals: the intended send time of its next request. */
struct arrivals {
	uint64_t start, next;
	double at;   /* ns from start of next, kept exact as a double */
	double mean; /* ns between requests; 0: every request is due now */
	int fixed;
	uint64_t rng;
};

/* A request in flight. */
struct open_req {
	uint64_t due, sent, seq;
	uint64_t lag; /* the part of its delay that was netperf's */
	int cls;      /* a mix's class */
};

/* A waiter for intended send times: the spin before each, and the
 * wake-ups' mean lateness it learns; gap, the mean ns between the sends it
 * waits for (0: none), bounds the spin. */
struct rr_waiter {
	uint64_t spin, late;
	double gap;
};

/* One stream's open loop. */
struct open_loop {
	struct test_ctx *ctx;
	struct arrivals arr;
	struct open_req *q; /* ring of depth, oldest at head */
	int depth, head, n;
	/* When the stream last had a slot free again after being full: a
	 * request due before then waited for the stream, not for netperf;
	 * the request that held the slot, its send time and lag (free_sent
	 * 0: unknown). rx, when not 0, is the kernel's receive time of the
	 * answer being handled, which frees the slot in place of the time
	 * netperf got to it. */
	uint64_t free_at, free_sent, free_lag, rx;
	struct rr_waiter w;
	/* Where the latencies go: the stream's own, or its thread's; a
	 * mix's classes' too (ctx->mix_hist, or the thread's). */
	struct stats_hist *hist, *svc, *mix_hist;
	uint64_t timeout; /* ns, 0 for none */
	uint64_t seq;
	/* A mix: the class of the request about to be sent (open_pick). */
	int cls;
};

/* xorshift64*: the arrivals need speed and independence between streams,
 * not secrecy. */
static uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* A uniform double in (0, 1]. */
static double
rng_unit(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 1) / 9007199254740992.0;
}

static void
arrivals_init(struct arrivals *a, const struct test_params *p, const void *who,
	      uint64_t start)
{
	int streams = p->streams > 0 ? p->streams : 1;

	memset(a, 0, sizeof(*a));
	a->start = start;
	a->fixed = p->arrivals == MODULE_ARRIVALS_FIXED;
	a->rng = (start ^ (uint64_t)(uintptr_t)who * 0x9E3779B97F4A7C15ULL) | 1;
	if (p->rate <= 0)
		return; /* closed: next stays at 0, always due */
	a->mean = 1e9 * streams / p->rate;
	/* Streams with fixed gaps start at random phases, so that they do
	 * not all send at once; a Poisson stream is memoryless anyway. */
	a->at = a->fixed ? a->mean * rng_unit(&a->rng)
			 : -a->mean * log(rng_unit(&a->rng));
	a->next = start + (uint64_t)a->at;
}

static void
arrivals_advance(struct arrivals *a)
{
	if (a->mean <= 0)
		return;
	a->at += a->fixed ? a->mean : -a->mean * log(rng_unit(&a->rng));
	a->next = a->start + (uint64_t)a->at;
}

static void
waiter_init(struct rr_waiter *w, double gap)
{
	w->spin = OPEN_SPIN_INIT_NS;
	w->late = OPEN_SPIN_INIT_NS / 2;
	w->gap = gap;
	if (gap > 0 && w->spin > gap * OPEN_SPIN_SHARE)
		w->spin = (uint64_t)(gap * OPEN_SPIN_SHARE);
	/* Wake-ups as close to the asked time as the kernel allows: the
	 * default 50 us of slack would be the whole gap at 20 k/s. The
	 * calling thread is the waiter's own. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

/* The stream's open loop, depth requests in flight at most; its waiter
 * is set up by the thread that waits. */
static int
open_init_depth(struct open_loop *ol, struct test_ctx *ctx, int depth)
{
	memset(ol, 0, sizeof(*ol));
	ol->ctx = ctx;
	ol->depth = depth;
	ol->q = calloc((size_t)ol->depth, sizeof(*ol->q));
	if (ol->q == NULL)
		return err_set(ctx->err, "out of memory");
	ol->timeout = (uint64_t)(ctx->p->timeout * 1e9);
	ol->hist = ctx->hist;
	ol->svc = ctx->svc_hist;
	ol->mix_hist = ctx->mix_hist;
	arrivals_init(&ol->arr, ctx->p, ctx, clock_ns());
	return 0;
}

static int
open_init(struct open_loop *ol, struct test_ctx *ctx)
{
	if (open_init_depth(ol, ctx, ctx->p->burst + 1) < 0)
		return -1;
	waiter_init(&ol->w, ol->arr.mean);
	return 0;
}

/* The test is over for new requests. */
static int
open_ending(const struct open_loop *ol, uint64_t now)
{
	const struct test_ctx *ctx = ol->ctx;

	return *ctx->stop || (ctx->end_ns != 0 && now >= ctx->end_ns) ||
	       (ctx->end_ns == 0 && ol->seq >= (uint64_t)ctx->p->count);
}

/* The intended send time of the next request: now, on a closed loop. */
static uint64_t
open_due(const struct open_loop *ol, uint64_t now)
{
	return ol->arr.mean > 0 ? ol->arr.next : now;
}

/* Records a request sent at now, and draws the next one's time. */
static void
open_sent(struct open_loop *ol, uint64_t now)
{
	struct side_result *r = ol->ctx->r;
	struct open_req *q = &ol->q[(ol->head + ol->n) % ol->depth];
	uint64_t due = open_due(ol, now), wait = 0, held = 0, lag = 0;

	if (ol->arr.mean > 0) {
		/* Waiting for the stream, due to free_at, is the server's,
		 * but for the time before the request that held the slot was
		 * sent: that is as much netperf's as that request's own lag
		 * (after netperf's stall, the backlog). The rest of the delay
		 * is netperf's own lag. */
		if (ol->free_at > due) {
			if (ol->free_sent > due)
				held = ol->free_sent - due < ol->free_lag
					   ? ol->free_sent - due
					   : ol->free_lag;
			wait = ol->free_at - due > held
				   ? ol->free_at - due - held
				   : 0;
		}
		lag = now > due + wait ? now - due - wait : 0;
		r->lag_ns += lag;
		if (lag > r->lag_max_ns)
			r->lag_max_ns = lag;
		r->wait_ns += wait;
	}
	q->lag = lag;
	q->due = due;
	q->sent = now;
	q->seq = ol->seq++;
	q->cls = ol->cls;
	ol->n++;
	r->requests++;
	arrivals_advance(&ol->arr);
}

/* A request of class cls (a mix's; 0 without one) timed out: counted,
 * and in its class, so that the classes add up to TIMEOUTS. */
static void
open_timeout(struct open_loop *ol, int cls)
{
	ol->ctx->r->timeouts++;
	if (ol->ctx->mix != NULL)
		ol->ctx->mix[cls].timeouts++;
}

/* The answer to a request of class cls given up on came: late. */
static void
open_late(struct open_loop *ol, int cls)
{
	ol->ctx->r->late++;
	if (ol->ctx->mix != NULL)
		ol->ctx->mix[cls].late++;
}

/* The answer to in-flight request q came at now: a transaction, or a
 * time-out when it came later than --timeout after its send. */
static void
open_answer(struct open_loop *ol, const struct open_req *q, uint64_t now)
{
	struct test_ctx *ctx = ol->ctx;

	if (ol->n == ol->depth) {
		/* Free since the answer reached the kernel, when known. */
		ol->free_at = ol->rx > q->sent && ol->rx < now ? ol->rx : now;
		ol->free_sent = q->sent;
		ol->free_lag = q->lag;
	}
	ol->rx = 0;
	if (ol->timeout > 0 && now - q->sent > ol->timeout) {
		open_timeout(ol, q->cls);
		return;
	}
	ctx->r->trans++;
	if (ol->hist != NULL)
		stats_hist_add(ol->hist, now - q->due);
	/* Its bytes are the caller's, counted as they came. */
	if (ctx->mix != NULL)
		mix_answer(ctx->mix, ol->mix_hist, q->cls, 0, now - q->due);
	if (ol->svc != NULL)
		stats_hist_add(ol->svc, now - q->sent);
}

/*
 * Waits until t, or until fd (when not -1) is readable: sleeps to a little
 * before t, then spins, so the request leaves on time. Returns 1 when fd
 * is readable, 0 otherwise (t reached, or a nap of OPEN_NAP_MAX_NS done:
 * the caller looks at the clock again).
 */
static int
waiter_wait(struct rr_waiter *w, int fd, uint64_t t)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	uint64_t now = clock_ns(), wake, over;
	struct timespec ts;
	int rc;

	if (t > now + w->spin) {
		wake = t - w->spin;
		if (wake - now > OPEN_NAP_MAX_NS)
			wake = now + OPEN_NAP_MAX_NS;
		if (fd < 0) {
			ts.tv_sec = (time_t)(wake / NS_PER_SEC);
			ts.tv_nsec = (long)(wake % NS_PER_SEC);
			rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					     &ts, NULL);
		} else {
			ts.tv_sec = (time_t)((wake - now) / NS_PER_SEC);
			ts.tv_nsec = (long)((wake - now) % NS_PER_SEC);
			rc = ppoll(&pfd, 1, &ts, NULL);
			if (rc > 0)
				return 1;
		}
		now = clock_ns();
		if (rc == 0 && now >= wake) {
			/* Learn how late the wake-ups are: spin twice that. */
			over = now - wake;
			w->late = (7 * w->late + over) / 8;
			w->spin = 2 * w->late;
			if (w->spin < OPEN_SPIN_MIN_NS)
				w->spin = OPEN_SPIN_MIN_NS;
			if (w->spin > OPEN_SPIN_MAX_NS)
				w->spin = OPEN_SPIN_MAX_NS;
			/* Some sleep in every gap (OPEN_SPIN_SHARE). */
			if (w->gap > 0 &&
			    w->spin > w->gap * OPEN_SPIN_SHARE)
				w->spin =
				    (uint64_t)(w->gap * OPEN_SPIN_SHARE);
		}
		if (now < t && t - now > w->spin + OPEN_SPIN_MIN_NS)
			return 0;
	}
	while (now < t) {
		if (fd >= 0 && poll(&pfd, 1, 0) > 0)
			return 1;
		now = clock_ns();
	}
	return 0;
}

static int
open_wait(struct open_loop *ol, int fd, uint64_t t)
{
	return waiter_wait(&ol->w, fd, t);
}

/* A connection error on stream ctx: counted; the requests in flight are
 * never answered (time-outs when --timeout is set, else lost). */
static void
open_broken(struct open_loop *ol)
{
	struct side_result *r = ol->ctx->r;

	r->errors++;
	/* The ring's order (TCP) or the array's (UDP, head 0). */
	for (int k = 0; ol->timeout > 0 && k < ol->n; k++)
		open_timeout(ol, ol->q[(ol->head + k) % ol->depth].cls);
	if (ol->timeout == 0)
		r->lost += (uint64_t)ol->n;
	ol->n = 0;
	ol->head = 0;
}

/* A mix: draws the next request's class, writes it into buf after a
 * tag of taglen bytes, counts the request and returns its size; without
 * a mix, the test's request size. */
static size_t
open_pick(struct open_loop *ol, char *buf, size_t taglen)
{
	struct test_ctx *ctx = ol->ctx;
	const struct mix *m = &ctx->p->mix;

	if (ctx->mix == NULL)
		return (size_t)ctx->p->req_size;
	ol->cls =
	    mix_request(m, ctx->mix, &ctx->mix_rng, buf, mix_class_off(taglen));
	return (size_t)m->c[ol->cls].req;
}

/* The response size of in-flight request q. */
static size_t
open_rsp(const struct open_loop *ol, const struct open_req *q)
{
	const struct test_ctx *ctx = ol->ctx;

	return ctx->mix != NULL ? (size_t)ctx->p->mix.c[q->cls].rsp
				: (size_t)ctx->p->rsp_size;
}

/* Sends a TCP request in full; 0, 1 when the connection is broken (reset
 * or closed), -1 with ctx->err set on any other error. */
static int
tcp_send_req(struct test_ctx *ctx, size_t len)
{
	const char *b = ctx->buf;
	ssize_t n;

	while (len > 0) {
		n = ctx->ts != NULL ? tstamp_send(ctx->ts, b, len, MSG_NOSIGNAL)
				    : send(ctx->fd, b, len, MSG_NOSIGNAL);
		if (n > 0) {
			b += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 &&
		    (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n < 0 && (errno == ECONNRESET || errno == EPIPE))
			return 1;
		return err_set(ctx->err, "data connection: send: %s",
			       strerror(errno));
	}
	return 0;
}

int
rr_open_client(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t req = (size_t)p->req_size, rsp = (size_t)p->rsp_size, got = 0;
	size_t want;
	struct open_loop ol;
	uint64_t now, due;
	ssize_t n;
	int rc, ending;

	if (open_init(&ol, ctx) < 0)
		return -1;
	r->send_size = (int64_t)req;
	r->recv_size = (int64_t)rsp;
	for (;;) {
		now = clock_ns();
		ending = open_ending(&ol, now);
		if (ending && ol.n == 0)
			break;
		if (ending &&
		    module_overtime(ctx, now, "kept the test going") < 0)
			goto fail;
		due = open_due(&ol, now);
		if (!ending && ol.n < ol.depth && due <= now) {
			if (ctx->ts != NULL)
				tstamp_send_begin(ctx->ts);
			req = open_pick(&ol, ctx->buf, 0);
			rc = tcp_send_req(ctx, req);
			if (rc < 0)
				goto fail;
			if (rc > 0)
				goto broken;
			if (ctx->ts != NULL)
				tstamp_sent(ctx->ts, (uint32_t)ol.seq, req);
			r->bytes_sent += req;
			r->send_calls++;
			if (ctx->mix != NULL)
				ctx->mix[ol.cls].bytes_sent += req;
			open_sent(&ol, now);
			continue;
		}
		if (ol.n == 0) {
			open_wait(&ol, -1, due);
			continue;
		}
		if (open_wait(&ol, ctx->fd,
			      !ending && ol.n < ol.depth
				  ? due
				  : now + OPEN_NAP_MAX_NS) == 0)
			continue;
		want = 0;
		for (int k = 0; k < ol.n; k++)
			want += open_rsp(&ol, &ol.q[(ol.head + k) % ol.depth]);
		want -= got;
		if (want > ctx->buflen)
			want = ctx->buflen;
		n = ctx->ts != NULL
			? tstamp_recv(ctx->ts, ctx->buf, want, MSG_DONTWAIT)
			: recv(ctx->fd, ctx->buf, want, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			goto broken;
		/* Nothing to read: poll woke for the stamps, which must be
		 * read for it to sleep again. */
		if (n < 0 && ctx->ts != NULL && errno == EAGAIN)
			tstamp_drain(ctx->ts);
		if (n < 0 &&
		    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		if (n < 0) {
			err_set(ctx->err, "data connection: recv: %s",
				strerror(errno));
			goto fail;
		}
		r->recv_calls++;
		r->bytes_recv += (uint64_t)n;
		got += (size_t)n;
		now = clock_ns();
		while (ol.n > 0 && got >= (rsp = open_rsp(&ol, &ol.q[ol.head]))) {
			got -= rsp;
			if (ctx->mix != NULL)
				ctx->mix[ol.q[ol.head].cls].bytes_recv += rsp;
			if (ctx->ts != NULL)
				tstamp_answered(ctx->ts,
						(uint32_t)ol.q[ol.head].seq);
			open_answer(&ol, &ol.q[ol.head], now);
			ol.head = (ol.head + 1) % ol.depth;
			ol.n--;
		}
	}
	free(ol.q);
	shutdown(ctx->fd, SHUT_WR);
	/* Wait for the server's close so both sides end their intervals. */
	for (;;) {
		now = clock_ns();
		if (module_overtime(ctx, now, "kept the test going") < 0)
			return -1;
		if (open_wait(&ol, ctx->fd, now + OPEN_NAP_MAX_NS) == 0)
			continue;
		n = recv(ctx->fd, ctx->buf, 1, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 0;
		if (n > 0)
			return err_set(ctx->err,
				       "the peer sent more than it was asked");
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return err_set(ctx->err, "data connection: recv: %s",
				       strerror(errno));
	}
broken:
	/* The stream ends here, counted; the others go on. */
	open_broken(&ol);
	r->ended++;
	free(ol.q);
	return 0;
fail:
	free(ol.q);
	return -1;
}

/* The in-flight request a tag answers (the oldest when untagged), or -1. */
static int
udp_match(const struct open_loop *ol, const char *buf, size_t n, size_t taglen)
{
	uint64_t tag = 0, mask;
	int i, best = -1;

	if (n < taglen)
		return -1;
	tag = ben_get(buf, taglen);
	mask = taglen == 8 ? UINT64_MAX : ((1ULL << (8 * taglen)) - 1);
	for (i = 0; i < ol->n; i++) {
		if (taglen > 0 && (ol->q[i].seq & mask) == tag)
			return i;
		if (taglen == 0 && (best < 0 || ol->q[i].seq < ol->q[best].seq))
			best = i;
	}
	return best;
}

/* Gives up on every request sent limit ns or more before now: a time-out
 * under --timeout, else lost (the adaptive time-out); with a tag (mask
 * not 0) it goes into gone, whose answer is late when it comes. Returns
 * the send time of the oldest still in flight, or UINT64_MAX for none.
 * While fd holds a datagram not read yet, it gives up on none and
 * returns now: an answer that came while netperf was kept from reading
 * it (its own stall) is read first. */
static uint64_t
udp_expire(struct open_loop *ol, struct gone *gone, uint64_t mask, int fd,
	   uint64_t now, uint64_t limit)
{
	struct side_result *r = ol->ctx->r;
	struct pollfd pfd = {fd, POLLIN, 0};
	uint64_t oldest = UINT64_MAX;
	int i;

	for (i = 0; i < ol->n && now - ol->q[i].sent < limit; i++)
		;
	if (i < ol->n && poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN))
		return now;
	for (i = 0; i < ol->n;) {
		if (now - ol->q[i].sent >= limit) {
			if (ol->n == ol->depth) {
				ol->free_at = now;
				ol->free_sent = ol->q[i].sent;
				ol->free_lag = ol->q[i].lag;
			}
			if (ol->timeout > 0)
				open_timeout(ol, ol->q[i].cls);
			else
				r->lost++;
			if (mask != 0)
				gone_add(gone, 0, ol->q[i].seq & mask,
					 ol->q[i].cls, now);
			ol->q[i] = ol->q[--ol->n];
			continue;
		}
		if (ol->q[i].sent < oldest)
			oldest = ol->q[i].sent;
		i++;
	}
	return oldest;
}

/*
 * recv of an answer without waiting, with the kernel's receive time of
 * it put in *rx on the monotonic clock (SO_TIMESTAMPNS, which stamps in
 * CLOCK_REALTIME), or 0 when there is none.
 */
static ssize_t
recv_stamped(int fd, char *buf, size_t len, uint64_t *rx)
{
	union {
		char b[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {buf, len};
	struct msghdr m = {NULL, 0, &iov, 1, ctl.b, sizeof(ctl.b), 0};
	struct cmsghdr *c;
	struct timespec ts, real;
	uint64_t stamp, mono, now_real;
	ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);

	*rx = 0;
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET ||
		    c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		mono = clock_ns();
		clock_gettime(CLOCK_REALTIME, &real);
		stamp = (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
		now_real =
		    (uint64_t)real.tv_sec * NS_PER_SEC + (uint64_t)real.tv_nsec;
		if (stamp <= now_real && now_real - stamp < mono)
			*rx = mono - (now_real - stamp);
	}
	return n;
}

int
udp_rr_open_client(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t req = (size_t)p->req_size, taglen = module_udp_tag_len(ctx);
	uint64_t mask = taglen == 8 ? UINT64_MAX : ((1ULL << (8 * taglen)) - 1);
	uint64_t now, due, limit, oldest, until, progress;
	struct module_rto rto;
	struct gone gone;
	struct open_loop ol;
	int i, ending, on = 1, stamped;
	uint64_t rx = 0;
	ssize_t n;

	if (open_init(&ol, ctx) < 0)
		return -1;
	if (gone_init(&gone) < 0) {
		free(ol.q);
		return err_set(ctx->err, "out of memory");
	}
	r->send_size = (int64_t)req;
	r->recv_size = p->rsp_size;
	/* The kernel's receive time of each answer: when the stream had a
	 * slot free again, whatever netperf's own delay in getting to it
	 * (--timestamps has stamps of its own). */
	stamped =
	    ctx->ts == NULL && setsockopt(ctx->fd, SOL_SOCKET, SO_TIMESTAMPNS,
					  &on, sizeof(on)) == 0;
	/* -D: netserver's count in each answer splits the interval's
	 * losses (oneway.h), as on the closed loop; it needs the whole
	 * tag. */
	__atomic_store_n(&ctx->lost_split,
			 oneway_count_off(p) > 0 && taglen == 8,
			 __ATOMIC_RELAXED);
	module_rto_init(&rto, p->rto);
	progress = clock_ns();
	for (;;) {
		now = clock_ns();
		ending = open_ending(&ol, now);
		limit = ol.timeout > 0 ? ol.timeout : rto.ns;
		oldest = udp_expire(&ol, &gone, mask, ctx->fd, now, limit);
		if (ending && ol.n == 0)
			break;
		if (module_overtime(ctx, now, "kept sending datagrams") < 0)
			goto fail;
		if (now - progress >= MODULE_IDLE_SEC * NS_PER_SEC &&
		    ctx->end_ns == 0) {
			err_set(ctx->err, "no answer from netserver for %d s",
				MODULE_IDLE_SEC);
			goto fail;
		}
		due = open_due(&ol, now);
		if (!ending && ol.n < ol.depth && due <= now) {
			ben_put(ctx->buf, ol.seq, taglen);
			req = open_pick(&ol, ctx->buf, taglen);
			if (ctx->ts != NULL)
				tstamp_send_begin(ctx->ts);
			n = ctx->ts != NULL
				? tstamp_send(ctx->ts, ctx->buf, req, 0)
				: send(ctx->fd, ctx->buf, req, 0);
			if (n < 0 && errno == ECONNREFUSED && !p->reconnect)
				goto broken;
			if (n < 0 && errno == ECONNREFUSED) {
				r->errors++;
			} else if (n < 0) {
				r->send_errors++; /* it will time out */
			} else {
				r->bytes_sent += (uint64_t)n;
				r->send_calls++;
				if (ctx->mix != NULL)
					ctx->mix[ol.cls].bytes_sent +=
					    (uint64_t)n;
				if (ctx->ts != NULL)
					tstamp_sent(ctx->ts,
						    (uint32_t)(ol.seq & mask),
						    (size_t)n);
			}
			open_sent(&ol, now);
			continue;
		}
		until = oldest != UINT64_MAX ? oldest + limit : UINT64_MAX;
		if (!ending && ol.n < ol.depth && due < until)
			until = due;
		if (until == UINT64_MAX)
			until = now + OPEN_NAP_MAX_NS;
		if (open_wait(&ol, ol.n > 0 ? ctx->fd : -1, until) == 0)
			continue;
		n = ctx->ts != NULL ? tstamp_recv(ctx->ts, ctx->buf,
						  ctx->buflen, MSG_DONTWAIT)
		    : stamped
			? recv_stamped(ctx->fd, ctx->buf, ctx->buflen, &rx)
			: recv(ctx->fd, ctx->buf, ctx->buflen, MSG_DONTWAIT);
		now = clock_ns();
		if (n > 0 && module_udp_token(ctx, ctx->buf, (size_t)n, 0))
			continue;
		if (n < 0 && errno == ECONNREFUSED && !p->reconnect)
			goto broken;
		if (n < 0 && errno == ECONNREFUSED) {
			r->errors++;
			continue;
		}
		if (n < 0 && ctx->ts != NULL && errno == EAGAIN)
			tstamp_drain(ctx->ts); /* poll woke for the stamps */
		if (n < 0 &&
		    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		if (n < 0) {
			err_set(ctx->err, "data socket: recv: %s",
				strerror(errno));
			goto fail;
		}
		r->recv_calls++;
		i = udp_match(&ol, ctx->buf, (size_t)n, taglen);
		if (i < 0) {
			/* The answer to one given up on, or a copy. */
			int c =
			    taglen > 0 && (size_t)n >= taglen
				? gone_take(&gone, 0, ben_get(ctx->buf, taglen))
				: -1;

			if (c >= 0)
				open_late(&ol, c);
			else
				r->dups++;
			continue;
		}
		r->bytes_recv += (uint64_t)n;
		if (ctx->mix != NULL)
			ctx->mix[ol.q[i].cls].bytes_recv += (uint64_t)n;
		progress = now;
		module_rto_sample(&rto, now - ol.q[i].sent);
		if (ctx->ts != NULL)
			tstamp_answered(ctx->ts,
					(uint32_t)(ol.q[i].seq & mask));
		/* Tags count from 0, netserver's count from 1. */
		if (ctx->lost_split)
			oneway_lost_answer(ctx, ol.q[i].seq + 1, ctx->buf,
					   (size_t)n);
		ol.rx = rx;
		open_answer(&ol, &ol.q[i], now);
		ol.q[i] = ol.q[--ol.n];
	}
	free(ol.q);
	gone_free(&gone);
	module_udp_end(ctx);
	return 0;
broken:
	/* netserver's socket is gone: the stream ends, counted. */
	open_broken(&ol);
	r->ended++;
	free(ol.q);
	gone_free(&gone);
	return 0;
fail:
	free(ol.q);
	gone_free(&gone);
	return -1;
}

/* One transaction at a time (TCP_CRR): the same arrivals and counts. */
struct rr_pacer {
	struct open_loop ol;
};

struct rr_pacer *
rr_pacer_new(struct test_ctx *ctx)
{
	struct rr_pacer *pc = calloc(1, sizeof(*pc));

	if (pc == NULL || open_init(&pc->ol, ctx) < 0) {
		free(pc);
		return NULL;
	}
	pc->ol.depth = 1;
	return pc;
}

uint64_t
rr_pacer_next(struct rr_pacer *pc)
{
	struct open_loop *ol = &pc->ol;
	uint64_t now, due;

	for (;;) {
		now = clock_ns();
		if (open_ending(ol, now))
			return 0;
		due = open_due(ol, now);
		if (due <= now) {
			open_sent(ol, now);
			return due;
		}
		open_wait(ol, -1, due);
	}
}

void
rr_pacer_done(struct rr_pacer *pc, uint64_t now)
{
	struct open_loop *ol = &pc->ol;

	if (ol->n == 0)
		return;
	open_answer(ol, &ol->q[0], now);
	ol->n = 0;
	ol->free_at = now;
}

void
rr_pacer_failed(struct rr_pacer *pc)
{
	open_broken(&pc->ol);
}

void
rr_pacer_lost(struct rr_pacer *pc)
{
	struct open_loop *ol = &pc->ol;

	if (ol->n == 0)
		return;
	if (ol->n == ol->depth) {
		ol->free_at = clock_ns();
		ol->free_sent = ol->q[ol->head].sent;
		ol->free_lag = ol->q[ol->head].lag;
	}
	if (ol->timeout > 0)
		open_timeout(ol, ol->q[ol->head].cls);
	else
		ol->ctx->r->lost++;
	ol->head = (ol->head + 1) % ol->depth;
	ol->n--;
}

struct rr_pacer *
rr_pacer_flow(struct test_ctx *ctx, int depth, struct stats_hist *hist,
	      struct stats_hist *svc_hist, struct stats_hist *mix_hist)
{
	struct rr_pacer *pc = calloc(1, sizeof(*pc));

	if (pc == NULL || open_init_depth(&pc->ol, ctx, depth) < 0) {
		free(pc);
		return NULL;
	}
	pc->ol.hist = hist;
	pc->ol.svc = svc_hist;
	pc->ol.mix_hist = mix_hist;
	return pc;
}

int
rr_pacer_pick(struct rr_pacer *pc, char *buf, size_t taglen)
{
	open_pick(&pc->ol, buf, taglen);
	return pc->ol.cls;
}

uint64_t
rr_pacer_due(const struct rr_pacer *pc, uint64_t now)
{
	const struct open_loop *ol = &pc->ol;

	if (open_ending(ol, now) || ol->n == ol->depth)
		return UINT64_MAX;
	return open_due(ol, now);
}

int
rr_pacer_inflight(const struct rr_pacer *pc)
{
	return pc->ol.n;
}

void
rr_pacer_sent(struct rr_pacer *pc, uint64_t now)
{
	open_sent(&pc->ol, now);
}

void
rr_pacer_answered(struct rr_pacer *pc, uint64_t now)
{
	struct open_loop *ol = &pc->ol;

	if (ol->n == 0)
		return;
	open_answer(ol, &ol->q[ol->head], now);
	ol->head = (ol->head + 1) % ol->depth;
	ol->n--;
}

void
rr_pacer_answered_at(struct rr_pacer *pc, int i, uint64_t now)
{
	struct open_loop *ol = &pc->ol;

	if (i < 0 || i >= ol->n)
		return;
	open_answer(ol, &ol->q[i], now);
	ol->q[i] = ol->q[--ol->n];
}

void
rr_pacer_lost_at(struct rr_pacer *pc, int i)
{
	struct open_loop *ol = &pc->ol;

	if (i < 0 || i >= ol->n)
		return;
	if (ol->n == ol->depth) {
		ol->free_at = clock_ns();
		ol->free_sent = ol->q[i].sent;
		ol->free_lag = ol->q[i].lag;
	}
	if (ol->timeout > 0)
		open_timeout(ol, ol->q[i].cls);
	else
		ol->ctx->r->lost++;
	ol->q[i] = ol->q[--ol->n];
}

struct rr_waiter *
rr_waiter_new(double gap_ns)
{
	struct rr_waiter *w = calloc(1, sizeof(*w));

	if (w != NULL)
		waiter_init(w, gap_ns);
	return w;
}

int
rr_waiter_wait(struct rr_waiter *w, int fd, uint64_t t)
{
	return waiter_wait(w, fd, t);
}

void
rr_pacer_free(struct rr_pacer *pc)
{
	if (pc != NULL)
		free(pc->ol.q);
	free(pc);
}

int
rr_open_notes(const struct result *res, char *warn, char *fail, size_t cap)
{
	const struct side_result *s = &res->side[RESULT_LOCAL].sum;
	double rate = res->p.rate, lag, wait;
	int out = 0;

	warn[0] = fail[0] = '\0';
	if (!module_has(res->m, MODULE_F_OPEN))
		return 0;
	if (rate > 0 && res->trans_rate < 0.99 * rate) {
		lag =
		    s->requests > 0 ? (double)s->lag_ns / s->requests / 1e3 : 0;
		wait = s->requests > 0 ? (double)s->wait_ns / s->requests / 1e3
				       : 0;
		if (s->lag_ns >= s->wait_ns)
			snprintf(warn, cap,
				 "achieved %.0f of the %.0f transactions/s "
				 "offered: netperf could not send on time "
				 "(its sends lagged %.1f us on average, "
				 "%.1f us at most)",
				 res->trans_rate, rate, lag,
				 (double)s->lag_max_ns / 1e3);
		else
			snprintf(warn, cap,
				 "achieved %.0f of the %.0f transactions/s "
				 "offered: netserver could not answer at "
				 "this rate (requests waited %.1f us on "
				 "average for their stream; %llu timed out "
				 "or were lost; netperf's send lag %.1f us)",
				 res->trans_rate, rate, wait,
				 (unsigned long long)(s->timeouts + s->lost),
				 lag);
		out |= 1;
	}
	if (s->errors > 0) {
		snprintf(fail, cap,
			 "%llu connection error%s; %llu of %d stream%s ended "
			 "early%s",
			 (unsigned long long)s->errors,
			 s->errors == 1 ? "" : "s",
			 (unsigned long long)s->ended,
			 res->p.streams > 0 ? res->p.streams : 1,
			 res->p.streams > 1 ? "s" : "",
			 res->p.reconnect ? " (--reconnect went on)" : "");
		out |= 2;
	}
	return out;
}

void
rr_open_peer_gone(const struct result *res, char *err)
{
	const struct side_result *s = &res->side[RESULT_LOCAL].sum;
	size_t len = strlen(err);

	if (s->errors == 0 || len + 1 >= ERR_LEN)
		return;
	snprintf(err + len, ERR_LEN - len,
		 " after netperf counted %llu connection error%s (%llu of %d "
		 "stream%s ended early)",
		 (unsigned long long)s->errors, s->errors == 1 ? "" : "s",
		 (unsigned long long)s->ended,
		 res->p.streams > 0 ? res->p.streams : 1,
		 res->p.streams > 1 ? "s" : "");
}
