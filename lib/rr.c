/* The request/response loops: TCP_RR, with -b transactions in flight,
 * UDP_RR, TCP_CRR and TCP_CC (a connection a transaction), and UDP_RR's
 * adaptive time-out and tags. The request/response tests over other
 * transports (SCTP_RR, VSOCK_RR) run TCP_RR's loops: module.c's table says
 * which test runs which. */
#include "np/module.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "np/admit.h"
#include "np/be.h"
#include "np/auth.h"
#include "np/clock.h"
#include "np/datapath.h"
#include "np/err.h"
#include "np/gone.h"
#include "np/oneway.h"
#include "np/sock.h"
#include "np/transport.h"
#include "np/tstamp.h"

/* Hands len bytes to the loop's data path when it took one
 * (--io-uring), else to send(2). */
static ssize_t
path_send(struct test_ctx *ctx, const char *buf, size_t len, int flags)
{
	if (ctx->io != NULL)
		return ctx->io->dp->send(ctx->io, (char *)buf, len);
	return send(ctx->fd, buf, len, flags);
}

/* The same for a receive into buf. */
static ssize_t
path_recv(struct test_ctx *ctx, char *buf, size_t len, int flags)
{
	if (ctx->io != NULL) {
		ctx->io->at = buf;
		return ctx->io->dp->recv(ctx->io, len, flags);
	}
	return recv(ctx->fd, buf, len, flags);
}

/* A send or receive of the loop: through the stamps with --timestamps,
 * else the data path's. */
static ssize_t
rr_send(struct test_ctx *ctx, const char *buf, size_t len, int flags)
{
	return ctx->ts != NULL ? tstamp_send(ctx->ts, buf, len, flags)
			       : path_send(ctx, buf, len, flags);
}

static ssize_t
rr_recv(struct test_ctx *ctx, char *buf, size_t len, int flags)
{
	return ctx->ts != NULL ? tstamp_recv(ctx->ts, buf, len, flags)
			       : path_recv(ctx, buf, len, flags);
}

/* Runs loop over the data path the context took, open for its whole
 * run (ctx->io), or over plain calls when it took none. */
static int
rr_with_path(struct test_ctx *ctx, module_loop_fn loop)
{
	struct datapath_io io;
	int rc;

	if (ctx->dp == NULL)
		return loop(ctx);
	if (datapath_open(&io, ctx) < 0)
		return -1;
	ctx->io = &io;
	rc = loop(ctx);
	ctx->io = NULL;
	if (datapath_finish(&io, rc == 0) < 0)
		rc = -1;
	return rc;
}

/* Sends len bytes in full; returns 0, or -1 with err set when the peer
 * stops taking them (see module_stalled). *since is a recent clock_ns()
 * of the caller's, the time the wait is measured from: a call the kernel
 * takes at once reads no clock, and after one that had to wait *since
 * becomes its end, so the next call's wait is its own. */
static int
send_full(struct test_ctx *ctx, const char *buf, size_t len, uint64_t *since)
{
	ssize_t n;
	int e;
	int again = 0, waited = 0;

	while (len > 0) {
		/* A message that takes more than one call may take long:
		 * from the second call on, the test's hard end applies. */
		if (again++ &&
		    module_overtime(ctx, clock_ns(), "kept the test going") < 0)
			return -1;
		n = rr_send(ctx, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			waited = 1;
			if (clock_ns() - *since >= MODULE_IDLE_SEC * NS_PER_SEC)
				return err_set(ctx->err,
					       "the peer stopped reading "
					       "requests for %d s",
					       MODULE_IDLE_SEC);
			continue;
		}
		e = errno;
		err_set(ctx->err, "data connection: send: %s", strerror(e));
		errno = e;
		return -1;
	}
	if (waited)
		*since = clock_ns();
	return 0;
}

/* CRR: sends the test's token and the request with one call, so they
 * leave in one segment (Nagle would hold a second small send until the
 * first is acknowledged); what the call did not take goes as send_full
 * sends it. Returns 0, or -1 with err set. */
static int
send_token_req(struct test_ctx *ctx, const char *req, size_t len)
{
	struct iovec iov[2] = {{(void *)ctx->token, AUTH_TOKEN_LEN},
			       {(void *)req, len}};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
	uint64_t since;
	size_t done;
	ssize_t n;

	do
		n = sendmsg(ctx->fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return err_set(ctx->err, "data connection: send: %s",
			       strerror(errno));
	done = n > 0 ? (size_t)n : 0;
	if (done < AUTH_TOKEN_LEN) {
		since = clock_ns();
		if (send_full(ctx, (const char *)ctx->token + done,
			      AUTH_TOKEN_LEN - done, &since) < 0)
			return -1;
		done = AUTH_TOKEN_LEN;
	}
	done -= AUTH_TOKEN_LEN;
	since = clock_ns();
	return send_full(ctx, req + done, len - done, &since);
}

/*
 * Receives exactly len bytes. Returns 0; 1 on EOF before the first byte;
 * -1 with err set on an error, an EOF inside a message, or a peer that
 * has gone silent since the caller's clock_ns() since (see
 * module_stalled).
 */
static int
recv_full(struct test_ctx *ctx, char *buf, size_t len, uint64_t *calls,
	  const char *what, uint64_t since)
{
	size_t off = 0;
	ssize_t n;
	int e;
	int again = 0;

	while (off < len) {
		/* A peer that trickles a message byte by byte makes
		 * progress forever: from the second call on, the test's
		 * hard end applies. */
		if (again++ && module_overtime(ctx, clock_ns(), what) < 0)
			return -1;
		n = rr_recv(ctx, buf + off, len - off, 0);
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
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			e = errno;
			err_set(ctx->err, "data connection: recv: %s",
				strerror(e));
			errno = e;
			return -1;
		}
		if (module_stalled(ctx, clock_ns(), since, what) < 0)
			return -1;
	}
	return 0;
}

/* A netperf 2.7 client ends a test by its own clock, and may close with
 * an answer unread: the reset that follows is its end, not a failure. */
static int
legacy_end(const struct test_ctx *ctx)
{
	return ctx->untagged && (errno == ECONNRESET || errno == EPIPE);
}

static int
rr_client_loop(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t req = (size_t)p->req_size, rsp = (size_t)p->rsp_size;
	int depth = p->burst + 1, head = 0, inflight = 0, rc, c;
	uint64_t *stamp, now, since, sent = 0;
	int ending = 0;
	unsigned char *cls;

	if (module_open_loop(p))
		return rr_open_client(ctx);
	/* The start time of each transaction in flight, oldest at head; a
	 * ring of burst + 1 slots allocated before the loop starts; with a
	 * mix, each one's class beside it. */
	stamp = calloc((size_t)depth, sizeof(*stamp));
	cls = calloc((size_t)depth, 1);
	if (stamp == NULL || cls == NULL) {
		free(stamp);
		free(cls);
		return err_set(ctx->err, "out of memory");
	}
	r->send_size = (int64_t)req;
	r->recv_size = (int64_t)rsp;
	/* One clock read a transaction: the answer's time also stamps the
	 * next request, a few instructions before it is sent. */
	now = clock_ns();
	for (;;) {
		/* Waits are measured from here, or from the end of a send
		 * that had to wait (send_full). */
		since = now;
		if (*ctx->stop || (ctx->end_ns != 0 && now >= ctx->end_ns) ||
		    (ctx->end_ns == 0 && sent >= (uint64_t)p->count))
			ending = 1;
		while (!ending && inflight < depth &&
		       (ctx->end_ns != 0 || sent < (uint64_t)p->count)) {
			if (ctx->ow != NULL)
				oneway_stamp_request(ctx->buf);
			if (ctx->ts != NULL)
				tstamp_send_begin(ctx->ts);
			if (ctx->mix != NULL) {
				c = mix_request(&p->mix, ctx->mix,
						&ctx->mix_rng, ctx->buf,
						mix_class_off(0));
				req = (size_t)p->mix.c[c].req;
				cls[(head + inflight) % depth] =
				    (unsigned char)c;
				ctx->mix[c].bytes_sent += req;
			}
			if (send_full(ctx, ctx->buf, req, &since) < 0)
				goto fail;
			if (ctx->ts != NULL)
				tstamp_sent(ctx->ts, (uint32_t)sent, req);
			stamp[(head + inflight) % depth] = now;
			inflight++;
			sent++;
			r->bytes_sent += req;
			r->send_calls++;
		}
		if (inflight == 0)
			break;
		if (ctx->mix != NULL)
			rsp = (size_t)p->mix.c[cls[head]].rsp;
		rc = recv_full(ctx, ctx->buf, rsp, &r->recv_calls,
			       "kept the test going", since);
		if (rc == 1) {
			err_set(ctx->err, "the peer closed the data "
					  "connection during the test");
			goto fail;
		}
		if (rc < 0)
			goto fail;
		now = clock_ns();
		if (ctx->ow != NULL)
			oneway_answer(ctx->ow, ctx->buf, rsp);
		if (ctx->hist != NULL && now >= ctx->warm_ns)
			stats_hist_add(ctx->hist, now - stamp[head]);
		if (ctx->mix != NULL)
			mix_answer(ctx->mix, ctx->mix_hist, cls[head], rsp,
				   now - stamp[head]);
		if (ctx->ts != NULL)
			tstamp_answered(ctx->ts, (uint32_t)r->trans);
		head = (head + 1) % depth;
		inflight--;
		r->trans++;
		r->bytes_recv += rsp;
	}
	free(stamp);
	free(cls);
	shutdown(ctx->fd, SHUT_WR);
	/* Wait for the server's close so both sides end their intervals. */
	rc = recv_full(ctx, ctx->buf, 1, &r->recv_calls,
		       "kept the test going", clock_ns());
	if (rc == 0)
		return err_set(ctx->err,
			       "the peer sent more than it was asked");
	return rc == 1 ? 0 : -1;
fail:
	free(stamp);
	free(cls);
	return -1;
}

/* The smallest request of a mix: what netserver reads before it knows a
 * request's class. */
static size_t
mix_min_req(const struct mix *m)
{
	int64_t least = m->c[0].req;

	for (int i = 1; i < m->n; i++)
		if (m->c[i].req < least)
			least = m->c[i].req;
	return (size_t)least;
}

/* A mix's request over TCP: its first min bytes (which hold the class
 * byte), then the rest of its class's size. Sets *req and *rsp to the
 * class's sizes. Returns recv_full's 0 or 1 (EOF before the request),
 * or -1 with err set, also for a class the mix does not have. */
static int
mix_recv_req(struct test_ctx *ctx, size_t min, size_t *req, size_t *rsp,
	     uint64_t since)
{
	const struct mix *m = &ctx->p->mix;
	int rc, c;

	rc = recv_full(ctx, ctx->buf, min, &ctx->r->recv_calls,
		       "kept sending requests", since);
	if (rc != 0)
		return rc;
	c = mix_class_of(m, ctx->buf, min, mix_class_off(0), 0);
	if (c < 0)
		return err_set(ctx->err,
			       "a request names class %u; the mix has %d",
			       (unsigned char)ctx->buf[0], m->n);
	*req = (size_t)m->c[c].req;
	*rsp = (size_t)m->c[c].rsp;
	if (*req == min)
		return 0;
	rc = recv_full(ctx, ctx->buf + min, *req - min, &ctx->r->recv_calls,
		       "kept sending requests", since);
	if (rc == 1)
		return err_set(ctx->err, "data connection closed in the "
					 "middle of a message");
	return rc;
}

static int
rr_server_loop(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t req = (size_t)p->req_size, rsp = (size_t)p->rsp_size;
	size_t min = p->mix.n > 0 ? mix_min_req(&p->mix) : req;
	uint64_t now = clock_ns();
	int rc;

	r->send_size = (int64_t)rsp;
	r->recv_size = (int64_t)req;
	for (;;) {
		if (p->mix.n > 0)
			rc = mix_recv_req(ctx, min, &req, &rsp, now);
		else
			rc = recv_full(ctx, ctx->buf, req, &r->recv_calls,
				       "kept sending requests", now);
		if (rc == 1 || (rc < 0 && legacy_end(ctx)))
			break;
		if (rc < 0)
			return -1;
		if (p->one_way)
			oneway_stamp_received(ctx->buf);
		/* A client that keeps asking must not hold this end: not
		 * past the end of a timed test, nor past the transactions
		 * of a counted one. One clock read a transaction. */
		now = clock_ns();
		if (module_overtime(ctx, now, "kept sending requests") < 0)
			return -1;
		if (ctx->end_ns == 0 && p->count > 0 &&
		    r->trans >= (uint64_t)p->count)
			return err_set(ctx->err,
				       "the peer asked for more than the %lld "
				       "transactions of the test",
				       (long long)p->count);
		r->bytes_recv += req;
		if (ctx->ts != NULL) {
			tstamp_request(ctx->ts);
			tstamp_answer(ctx->ts, rsp);
		}
		if (p->one_way)
			oneway_stamp_reply(ctx->buf);
		if (send_full(ctx, ctx->buf, rsp, &now) < 0) {
			if (legacy_end(ctx))
				break;
			return -1;
		}
		r->bytes_sent += rsp;
		r->send_calls++;
		r->trans++;
	}
	shutdown(ctx->fd, SHUT_WR);
	return 0;
}

size_t
module_udp_tag_len(const struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	size_t n =
	    (size_t)(p->req_size < p->rsp_size ? p->req_size : p->rsp_size);

	/* netperf 2.7's netserver answers from a buffer of its own: with no
	 * tag, any answer completes the oldest request in flight. */
	if (ctx->untagged)
		return 0;
	/* A mix: the tag fits every class's response, and its request
	 * with the class byte after the tag (mix_class_off). */
	if (p->mix.n > 0) {
		n = mix_min_req(&p->mix) - 1;
		for (int i = 0; i < p->mix.n; i++)
			if ((size_t)p->mix.c[i].rsp < n)
				n = (size_t)p->mix.c[i].rsp;
	}
	return n < 8 ? n : 8;
}

/* The adaptive receive time-out: TCP's RTO rule (srtt + 4 rttvar), never
 * below 20 ms, which a busy VM's scheduler can take on its own, nor above
 * 3 s. Before any answer, 1 s. */
#define UDP_RTO_MIN_NS (20 * 1000000ULL)
#define UDP_RTO_MAX_NS (3 * NS_PER_SEC)
#define UDP_RTO_INIT_NS NS_PER_SEC

void
module_rto_init(struct module_rto *t, double rto)
{
	memset(t, 0, sizeof(*t));
	t->fixed = rto > 0;
	t->ns = t->fixed ? (uint64_t)(rto * 1e9) : UDP_RTO_INIT_NS;
}

void
module_rto_sample(struct module_rto *t, uint64_t rtt)
{
	double d = (double)rtt - t->srtt;
	uint64_t rto;

	if (t->fixed)
		return;
	if (t->srtt == 0) {
		t->srtt = (double)rtt;
		t->rttvar = (double)rtt / 2;
	} else {
		t->srtt += d / 8;
		t->rttvar += ((d < 0 ? -d : d) - t->rttvar) / 4;
	}
	rto = (uint64_t)(t->srtt + 4 * t->rttvar);
	if (rto < UDP_RTO_MIN_NS)
		rto = UDP_RTO_MIN_NS;
	if (rto > UDP_RTO_MAX_NS)
		rto = UDP_RTO_MAX_NS;
	/* Round, so the socket option is only set again when the time-out
	 * really moves. */
	t->ns = rto / 1000000 * 1000000;
}

struct inflight {
	uint64_t tag;
	uint64_t start;
	int cls; /* a mix's class */
};

/* The receive's time-out, on the socket and on a data path that waits
 * on its own. */
static void
set_rcv_timeout(struct test_ctx *ctx, uint64_t ns)
{
	struct timeval tv = {(time_t)(ns / NS_PER_SEC),
			     (suseconds_t)(ns % NS_PER_SEC / 1000)};

	setsockopt(ctx->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (ctx->io != NULL)
		ctx->io->wait_ns = ns;
}

/* UDP_RR's client: the transactions in flight, and how tags are cut. */
struct udp_rr {
	struct inflight *fl;
	int depth, inflight;
	uint64_t seq;
	size_t req, taglen;
	struct gone gone; /* given up on, answers still awaited */
};

/* Sends requests until depth are in flight (or the test is ending); 0,
 * or -1 with ctx->err set when netserver's socket is gone. */
static int
udp_rr_fill(struct test_ctx *ctx, struct udp_rr *u, uint64_t now)
{
	struct side_result *r = ctx->r;
	uint64_t mask = u->taglen == 8 ? UINT64_MAX
				       : ((1ULL << (8 * u->taglen)) - 1);
	size_t req = u->req;
	ssize_t n;
	int c = 0;

	while (u->inflight < u->depth &&
	       (ctx->end_ns != 0 || u->seq <= (uint64_t)ctx->p->count)) {
		ben_put(ctx->buf, u->seq, u->taglen);
		if (ctx->mix != NULL) {
			c = mix_request(&ctx->p->mix, ctx->mix, &ctx->mix_rng,
					ctx->buf, mix_class_off(u->taglen));
			req = (size_t)ctx->p->mix.c[c].req;
		}
		if (ctx->ow != NULL)
			oneway_stamp_request(ctx->buf);
		if (ctx->ts != NULL)
			tstamp_send_begin(ctx->ts);
		n = rr_send(ctx, ctx->buf, req, 0);
		if (n < 0 && errno == ECONNREFUSED)
			return err_set(ctx->err, "netserver's data socket is "
						 "gone (Connection refused)");
		if (n < 0) {
			r->send_errors++; /* it will time out */
		} else {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
			if (ctx->mix != NULL)
				ctx->mix[c].bytes_sent += (uint64_t)n;
			if (ctx->ts != NULL)
				tstamp_sent(ctx->ts, (uint32_t)(u->seq & mask),
					    (size_t)n);
		}
		u->fl[u->inflight].cls = c;
		u->fl[u->inflight].tag = u->seq & mask;
		u->fl[u->inflight].start = now;
		u->inflight++;
		u->seq++;
		r->requests++;
	}
	return 0;
}

/* An answer to no request in flight: a late one, whose request was
 * given up on (it is taken from the ring), or else a duplicate. */
static void
udp_rr_stray(struct test_ctx *ctx, struct udp_rr *u, uint64_t tag, ssize_t n)
{
	int c = gone_take(&u->gone, 0, tag);

	if (c < 0) {
		ctx->r->dups++;
		return;
	}
	ctx->r->late++;
	if (ctx->mix != NULL)
		ctx->mix[c].late++;
	if (ctx->ow != NULL)
		oneway_answer(ctx->ow, ctx->buf, (size_t)n);
}

/* An answer of n bytes: the transaction it completes, or a late one
 * (already given up on), or a duplicate. */
static void
udp_rr_answer(struct test_ctx *ctx, struct udp_rr *u, ssize_t n,
	      uint64_t now, struct module_rto *rto, uint64_t *progress)
{
	struct side_result *r = ctx->r;
	uint64_t tag = ben_get(ctx->buf, u->taglen), rtt;
	int i;

	r->recv_calls++;
	for (i = 0; i < u->inflight && u->fl[i].tag != tag; i++)
		;
	if ((size_t)n < u->taglen) {
		r->dups++;
		return;
	}
	if (i == u->inflight) {
		udp_rr_stray(ctx, u, tag, n);
		return;
	}
	rtt = now - u->fl[i].start;
	if (ctx->ts != NULL)
		tstamp_answered(ctx->ts, (uint32_t)tag);
	if (ctx->mix != NULL)
		mix_answer(ctx->mix, ctx->mix_hist, u->fl[i].cls, (uint64_t)n,
			   rtt);
	if (ctx->lost_split)
		oneway_lost_answer(ctx, tag, ctx->buf, (size_t)n);
	u->fl[i] = u->fl[--u->inflight];
	r->trans++;
	r->bytes_recv += (uint64_t)n;
	*progress = now;
	if (ctx->ow != NULL)
		oneway_answer(ctx->ow, ctx->buf, (size_t)n);
	if (ctx->hist != NULL && *progress >= ctx->warm_ns)
		stats_hist_add(ctx->hist, rtt);
	module_rto_sample(rto, rtt);
}

/* A receive that timed out: every request older than the time-out is
 * lost, and the loop sends new ones in their place. */
static void
udp_rr_expire(struct test_ctx *ctx, struct udp_rr *u, uint64_t now,
	      uint64_t rto_ns)
{
	int i;

	for (i = 0; i < u->inflight;) {
		if (now - u->fl[i].start >= rto_ns) {
			ctx->r->lost++;
			gone_add(&u->gone, 0, u->fl[i].tag, u->fl[i].cls, now);
			u->fl[i] = u->fl[--u->inflight];
		} else {
			i++;
		}
	}
}

/* How long after giving up on a request its answer is still awaited at
 * the end of a test, at least: a netserver that fell behind (a loaded or
 * sanitized build) answers later than one time-out. */
#define UDP_RR_LINGER_MIN_NS (200 * 1000000ULL)

/* After the last request: the answers to those given up on in the last
 * time-out may still come, and are late, not lost. Waits for them until
 * a time-out (UDP_RR_LINGER_MIN_NS at least) past the last given up on,
 * at most 1 s. */
static void
udp_rr_linger(struct test_ctx *ctx, struct udp_rr *u, uint64_t rto_ns)
{
	uint64_t last = gone_last(&u->gone), now = clock_ns(), until;
	ssize_t n;

	if (rto_ns < UDP_RR_LINGER_MIN_NS)
		rto_ns = UDP_RR_LINGER_MIN_NS;
	if (last == 0 || now >= last + rto_ns)
		return;
	until = last + rto_ns;
	if (until > now + NS_PER_SEC)
		until = now + NS_PER_SEC;
	while (now < until) {
		set_rcv_timeout(ctx, until - now);
		n = path_recv(ctx, ctx->buf, ctx->buflen, 0);
		now = clock_ns();
		if (n > 0 && !module_udp_token(ctx, ctx->buf, (size_t)n, 0) &&
		    (size_t)n >= u->taglen)
			udp_rr_stray(ctx, u, ben_get(ctx->buf, u->taglen), n);
		else if (n < 0 && errno != EINTR)
			break;
	}
}

static int
udp_rr_client_loop(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct udp_rr u = {NULL, p->burst + 1, 0, 1, (size_t)p->req_size,
			   module_udp_tag_len(ctx), {NULL, 0}};
	uint64_t now, applied = 0, progress;
	struct module_rto rto;
	int ending = 0;
	ssize_t n;

	if (module_open_loop(p))
		return udp_rr_open_client(ctx);
	u.fl = calloc((size_t)u.depth, sizeof(*u.fl));
	if (u.fl == NULL || gone_init(&u.gone) < 0) {
		free(u.fl);
		return err_set(ctx->err, "out of memory");
	}
	ctx->r->send_size = (int64_t)u.req;
	ctx->r->recv_size = p->rsp_size;
	/* -D: netserver's count in each answer splits the interval's
	 * losses (oneway.h); it needs the whole tag. */
	__atomic_store_n(&ctx->lost_split,
			 oneway_count_off(p) > 0 && u.taglen == 8,
			 __ATOMIC_RELAXED);
	module_rto_init(&rto, p->rto);
	progress = clock_ns();
	for (;;) {
		now = clock_ns();
		if (*ctx->stop || (ctx->end_ns != 0 && now >= ctx->end_ns) ||
		    (ctx->end_ns == 0 && u.seq > (uint64_t)p->count))
			ending = 1;
		if (!ending && udp_rr_fill(ctx, &u, now) < 0)
			goto fail;
		if (u.inflight == 0)
			break;
		if (rto.ns != applied) {
			set_rcv_timeout(ctx, rto.ns);
			applied = rto.ns;
		}
		n = rr_recv(ctx, ctx->buf, ctx->buflen, 0);
		now = clock_ns();
		/* A flood of stray datagrams keeps recv from timing out:
		 * it must not keep the test going. */
		if (module_overtime(ctx, now, "kept sending datagrams") < 0)
			goto fail;
		/* A late second echo of the token is no answer. */
		if (n > 0 && module_udp_token(ctx, ctx->buf, (size_t)n, 0))
			continue;
		if (n > 0) {
			udp_rr_answer(ctx, &u, n, now, &rto, &progress);
			continue;
		}
		if (n < 0 && errno == ECONNREFUSED) {
			err_set(ctx->err, "netserver's data socket is gone "
					  "(Connection refused)");
			goto fail;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) {
			err_set(ctx->err, "data socket: recv: %s",
				strerror(errno));
			goto fail;
		}
		udp_rr_expire(ctx, &u, now, rto.ns);
		if (now - progress >= MODULE_IDLE_SEC * NS_PER_SEC && !ending &&
		    ctx->end_ns == 0) {
			err_set(ctx->err, "no answer from netserver for %d s",
				MODULE_IDLE_SEC);
			goto fail;
		}
	}
	udp_rr_linger(ctx, &u, rto.ns);
	free(u.fl);
	gone_free(&u.gone);
	module_udp_end(ctx);
	return 0;
fail:
	free(u.fl);
	gone_free(&u.gone);
	return -1;
}

/* One request of n bytes in buf: counted, stamped (--one-way) and
 * answered; with --timestamps, split too when it was read through the
 * stamps (ts: the test's own reads, not the drain after the stop). */
static void
udp_rr_serve_one(struct test_ctx *ctx, ssize_t n, size_t rsp,
		 struct tstamp *ts)
{
	struct side_result *r = ctx->r;
	const struct mix *m = &ctx->p->mix;
	int c;
	size_t off;

	r->recv_calls++;
	/* A mix's request says its class, and so its answer's size; one
	 * that names none, or is not its class's size, is no request of
	 * the test's and goes unanswered. */
	if (m->n > 0) {
		c = mix_class_of(m, ctx->buf, (size_t)n,
				 mix_class_off(module_udp_tag_len(ctx)), 1);
		if (c < 0)
			return;
		rsp = (size_t)m->c[c].rsp;
	}
	r->requests++;
	r->bytes_recv += (uint64_t)n;
	/* The request's tag is still at the start of buf. */
	if (ctx->p->one_way)
		oneway_stamp_received(ctx->buf);
	if (ts != NULL) {
		tstamp_request(ts);
		tstamp_answer(ts, rsp);
	}
	if (ctx->p->one_way)
		oneway_stamp_reply(ctx->buf);
	/* -D: the count of requests so far, for netperf's split of each
	 * interval's losses. */
	if (ctx->p->lost_iv && (off = oneway_count_off(ctx->p)) > 0)
		ben_put(ctx->buf + off, (uint64_t)r->requests,
			ONEWAY_COUNT_LEN);
	if ((ts != NULL ? tstamp_send(ts, ctx->buf, rsp, 0)
			: path_send(ctx, ctx->buf, rsp, 0)) < 0) {
		r->send_errors++;
	} else {
		r->bytes_sent += rsp;
		r->send_calls++;
		r->trans++;
	}
}

/* The most datagrams a server drains after the client's stop. */
#define UDP_RR_DRAIN 4096

/* The client said stop: what its socket still holds reached netserver,
 * and is counted and answered as ever, so that a netserver that fell
 * behind does not pass its queue off as requests lost on the way. Up to
 * the end marker, the queue's end, or UDP_RR_DRAIN datagrams. */
static void
udp_rr_drain(struct test_ctx *ctx, size_t rsp)
{
	ssize_t n;

	for (int i = 0; i < UDP_RR_DRAIN; i++) {
		n = path_recv(ctx, ctx->buf, ctx->buflen, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EINTR))
			return;
		if (n > 0 && !module_udp_token(ctx, ctx->buf, (size_t)n, 1))
			udp_rr_serve_one(ctx, n, rsp, NULL);
	}
}

static int
udp_rr_server_loop(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t rsp = (size_t)p->rsp_size;
	uint64_t start = clock_ns(), now, last = start, check = start;
	ssize_t n;

	r->send_size = (int64_t)rsp;
	r->recv_size = p->req_size;
	for (;;) {
		n = rr_recv(ctx, ctx->buf, ctx->buflen, 0);
		now = clock_ns();
		if (module_overtime(ctx, now, "kept sending requests") < 0)
			return -1;
		if (n == 0)
			break; /* the client's end marker */
		/* The token again, not a request: echoed, not answered. */
		if (n > 0 && module_udp_token(ctx, ctx->buf, (size_t)n, 1))
			continue;
		if (n > 0) {
			udp_rr_serve_one(ctx, n, rsp, ctx->ts);
			last = now;
			if (now - check > 5000000) {
				check = now;
				if (module_stop_requested(ctx)) {
					udp_rr_drain(ctx, rsp);
					break;
				}
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != ECONNREFUSED)
			return err_set(ctx->err, "data socket: recv: %s",
				       strerror(errno));
		if (module_stop_requested(ctx)) {
			udp_rr_drain(ctx, rsp);
			break;
		}
		if (module_stalled(ctx, now, last, "kept sending requests") <
		    0)
			return -1;
	}
	/* The interval ends with the last request answered, not when the
	 * end was noticed. */
	r->elapsed = (double)(last - start) / 1e9;
	return 0;
}

/* The four loops, each over its data path (--io-uring) when it took
 * one. */
int
rr_client(struct test_ctx *ctx)
{
	return rr_with_path(ctx, rr_client_loop);
}

int
rr_server(struct test_ctx *ctx)
{
	return rr_with_path(ctx, rr_server_loop);
}

int
udp_rr_client(struct test_ctx *ctx)
{
	return rr_with_path(ctx, udp_rr_client_loop);
}

int
udp_rr_server(struct test_ctx *ctx)
{
	return rr_with_path(ctx, udp_rr_server_loop);
}

/*
 * -p min,max: each connection's local port, as 2.7's
 * pick_next_port_number: a random start in [min, max), then one up per
 * connection, wrapping to min at max, never the server's own port.
 */
struct port_walk {
	int min, max, next;
	struct sockaddr_storage ss;
	struct addrinfo ai;
};

static void
port_walk_init(struct port_walk *w, const struct test_params *p,
	       const struct sockaddr_storage *peer, socklen_t peerlen)
{
	memset(w, 0, sizeof(*w));
	w->min = p->lport_min;
	w->max = p->lport_max;
	w->next = w->min;
	if (w->max > w->min)
		w->next += (int)(clock_ns() % (uint64_t)(w->max - w->min));
	w->ss.ss_family = peer->ss_family;
	w->ai.ai_family = peer->ss_family;
	w->ai.ai_socktype = SOCK_STREAM;
	w->ai.ai_addr = (struct sockaddr *)&w->ss;
	w->ai.ai_addrlen = peerlen;
}

/* The local address for the next connection: NULL for the kernel's
 * choice. */
static const struct addrinfo *
port_walk_next(struct port_walk *w, const struct sockaddr_storage *peer)
{
	char text[SOCK_ADDR_LEN];
	int port, server;

	if (w->min == 0)
		return NULL;
	port = w->next;
	server = sock_addr_text((const struct sockaddr *)peer, text);
	if (port == server)
		port++;
	if (port >= w->max)
		port = w->min;
	w->next = port + 1;
	if (w->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&w->ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)&w->ss)->sin6_port =
		    htons((uint16_t)port);
	return &w->ai;
}

/* How long a connect may wait: a silent peer's time, and never past the
 * test's hard end. */
static int
crr_connect_ms(const struct test_ctx *ctx, uint64_t now)
{
	int wait_ms = MODULE_IDLE_SEC * 1000;

	if (ctx->end_ns != 0) {
		uint64_t hard = ctx->end_ns + MODULE_HARD_END_SEC * NS_PER_SEC;
		uint64_t left = (hard - now) / 1000000 + 1;

		if (left < (uint64_t)wait_ms)
			wait_ms = (int)left;
	}
	return wait_ms;
}

/* One transaction on the new connection fd: the token (when the test has
 * one) and request, the response, and netserver's close, which it makes
 * first so that TIME_WAIT stays on its side and this side never runs out
 * of ports. Returns 0, or -1 with ctx->err set. */
static int
crr_exchange(struct test_ctx *ctx, size_t req, size_t rsp)
{
	struct side_result *r = ctx->r;
	uint64_t since = clock_ns();
	int rc;

	/* The token goes first on every connection: it is part of each
	 * timed transaction, as the connect is. */
	rc = ctx->token != NULL ? send_token_req(ctx, ctx->buf, req)
				: send_full(ctx, ctx->buf, req, &since);
	if (rc != 0)
		return -1;
	r->bytes_sent += req;
	/* TCP_CC's sends nothing (or only the token, which is not data). */
	if (req > 0)
		r->send_calls++;
	rc = recv_full(ctx, ctx->buf, rsp, &r->recv_calls,
		       "kept the test going", clock_ns());
	if (rc == 1)
		return err_set(ctx->err, "netserver closed the connection "
					 "before answering");
	if (rc != 0)
		return -1;
	rc = recv_full(ctx, ctx->buf, 1, &r->recv_calls,
		       "kept the test going", clock_ns());
	if (rc == 0)
		return err_set(ctx->err, "netserver sent more than asked");
	return rc == 1 ? 0 : -1;
}

/* A connection a transaction, each carrying req bytes out and rsp back:
 * TCP_CRR's, or none at all (TCP_CC); on the open loop's schedule when pc
 * is not NULL. */
static int
crr_run(struct test_ctx *ctx, size_t req, size_t rsp, struct rr_pacer *pc)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	uint64_t now, t0, last_ok;
	char err[ERR_LEN];
	/* netperf 2.7's socket options (-S, -y, -Y, -K...) on each
	 * connection; buffer sizes stay the system's, as before. */
	struct sock_setup setup = {
	    NULL, 0, -1, -1, -1, -1, 0, &p->lx, ctx->transport->protocol};
	struct port_walk walk;
	int fd, rc;

	r->send_size = (int64_t)req;
	r->recv_size = (int64_t)rsp;
	/* Each connection is new: the sizes it ends with are the sizes a
	 * socket starts with, as 2.7 reports them (LSS_SIZE_END...). */
	r->sndbuf_end = r->sndbuf;
	r->rcvbuf_end = r->rcvbuf;
	port_walk_init(&walk, p, &ctx->peer, ctx->peerlen);
	last_ok = clock_ns();
	for (;;) {
		now = clock_ns();
		if (*ctx->stop || (ctx->end_ns != 0 && now >= ctx->end_ns) ||
		    (ctx->end_ns == 0 && r->trans >= (uint64_t)p->count))
			break;
		if (pc != NULL) {
			if (rr_pacer_next(pc) == 0)
				break;
			now = clock_ns();
		}
		t0 = now;
		fd = sock_connect_addr((struct sockaddr *)&ctx->peer,
				       ctx->peerlen, SOCK_STREAM,
				       port_walk_next(&walk, &ctx->peer),
				       &setup, crr_connect_ms(ctx, now), err);
		if (fd < 0 && pc != NULL && errno != EADDRNOTAVAIL &&
		    errno != EADDRINUSE)
			goto broken;
		if (fd < 0) {
			/* Out of local ports for a moment, or this one of -p's
			 * still taken: count it and try again (the next port),
			 * as 2.7 does; with -U, whatever the failure. */
			if (errno != EADDRNOTAVAIL && errno != EADDRINUSE &&
			    !p->retry_connect)
				return err_set(ctx->err, "connect: %s", err);
			r->send_errors++;
			/* A counted test has no end to stop it: give up after
			 * as long without a connection as a silent peer is
			 * given. */
			if (clock_ns() - last_ok >
			    (uint64_t)MODULE_IDLE_SEC * NS_PER_SEC)
				return err_set(ctx->err,
					       "connect failed for %d s: %s",
					       MODULE_IDLE_SEC, err);
			continue;
		}
		ctx->fd = fd;
		last_ok = clock_ns();
		if (sock_set_timeouts(fd, 1000, err) < 0 ||
		    (p->nodelay && sock_set_nodelay(fd, 1, err) < 0))
			rc = err_set(ctx->err, "%s", err);
		else
			rc = crr_exchange(ctx, req, rsp);
		ctx->fd = -1;
		close(fd);
		if (rc < 0 && pc != NULL)
			goto broken;
		if (rc < 0)
			return -1;
		now = clock_ns();
		r->bytes_recv += rsp;
		if (pc != NULL) {
			rr_pacer_done(pc, now);
			continue;
		}
		r->trans++;
		if (ctx->hist != NULL)
			stats_hist_add(ctx->hist, now - t0);
		continue;
	broken:
		/* The open loop counts a connection error (refused, reset)
		 * and goes on with --reconnect; without it the stream ends,
		 * and the others go on. */
		rr_pacer_failed(pc);
		if (!p->reconnect) {
			r->ended++;
			break;
		}
	}
	return 0;
}

static int
crr_loop(struct test_ctx *ctx, size_t req, size_t rsp)
{
	struct rr_pacer *pc = NULL;
	int rc;

	if (module_open_loop(ctx->p) && (pc = rr_pacer_new(ctx)) == NULL)
		return err_set(ctx->err, "out of memory");
	rc = crr_run(ctx, req, rsp, pc);
	rr_pacer_free(pc);
	return rc;
}

int
crr_client(struct test_ctx *ctx)
{
	return crr_loop(ctx, (size_t)ctx->p->req_size,
			(size_t)ctx->p->rsp_size);
}

/* TCP_CC: the connection alone, made and closed by netserver; -r's sizes
 * are only reported, as 2.7 reports them. */
int
cc_client(struct test_ctx *ctx)
{
	return crr_loop(ctx, 0, 0);
}

/* How long a CRR server for a 2.7 client goes on accepting past the
 * test's length. */
#define CRR_LEGACY_TAIL_NS (2 * NS_PER_SEC)

/* One admitted connection's transaction: its request, the response.
 * A client that gives up on one connection is no failure of the test. */
static void
crr_serve_one(struct test_ctx *ctx, int fd, size_t req, size_t rsp)
{
	struct side_result *r = ctx->r;
	char err[ERR_LEN];
	uint64_t since;

	if (sock_set_timeouts(fd, 1000, err) < 0)
		return;
	if (ctx->p->nodelay)
		sock_set_nodelay(fd, 1, err);
	ctx->fd = fd;
	if (recv_full(ctx, ctx->buf, req, &r->recv_calls,
		      "kept sending requests", clock_ns()) != 0)
		return;
	r->bytes_recv += req;
	since = clock_ns();
	if (send_full(ctx, ctx->buf, rsp, &since) != 0)
		return;
	r->bytes_sent += rsp;
	if (rsp > 0)
		r->send_calls++;
	r->trans++;
}

/* netserver's half of crr_loop. */
static int
crr_serve(struct test_ctx *ctx, size_t req, size_t rsp)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	uint64_t last = clock_ns();
	struct admit adm;
	int lfd = ctx->fd, fd;
	char err[ERR_LEN];

	r->send_size = (int64_t)rsp;
	r->recv_size = (int64_t)req;
	/* Only the control client's host takes part, and a connection
	 * without the test's token is dropped unserved and uncounted; a
	 * silent one waits aside, so it stalls no transaction. The data
	 * path logs nothing: admit only counts. */
	if (admit_init(&adm, lfd, ctx->ctl, ctx->ctl >= 0, ctx->token, NULL,
		       err) < 0)
		return err_set(ctx->err, "%s", err);
	for (;;) {
		if (*ctx->stop)
			break;
		/* A netperf 2.7 client says nothing when it is done: its
		 * test ends by its own clock, which started a moment after
		 * ours, or at its count. */
		if (ctx->untagged &&
		    (ctx->end_ns != 0
			 ? clock_ns() >= ctx->end_ns + CRR_LEGACY_TAIL_NS
			 : r->trans >= (uint64_t)p->count))
			break;
		fd = admit_next(&adm,
				clock_ns() + (ctx->untagged ? 100000000ULL
							    : 1000000000ULL),
				err);
		if (fd == ADMIT_CONTROL)
			break; /* the client's "stop", or its end */
		/* A client that keeps connecting and never says stop is
		 * held to the test's hard end. */
		if (module_overtime(ctx, clock_ns(), "kept connecting") < 0) {
			if (fd >= 0)
				close(fd);
			admit_close(&adm);
			return -1;
		}
		if (fd == ADMIT_TIMEOUT) {
			if (module_stalled(ctx, clock_ns(), last,
					   "kept connecting") < 0) {
				admit_close(&adm);
				return -1;
			}
			continue;
		}
		if (fd < 0) {
			admit_close(&adm);
			return err_set(ctx->err, "%s", err);
		}
		crr_serve_one(ctx, fd, req, rsp);
		ctx->fd = lfd;
		close(fd);
		last = clock_ns();
		/* A client that gives up on one connection is not a
		 * failure of the test; a silent one is caught above. */
	}
	admit_close(&adm);
	return 0;
}

int
crr_server(struct test_ctx *ctx)
{
	return crr_serve(ctx, (size_t)ctx->p->req_size,
			 (size_t)ctx->p->rsp_size);
}

int
cc_server(struct test_ctx *ctx)
{
	return crr_serve(ctx, 0, 0);
}
