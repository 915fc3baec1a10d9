/*
 * UDP_CRR: TCP_CRR's analogue over UDP. Every transaction is a new socket,
 * so a new source port and a new 5-tuple: a handshake (the test's token,
 * echoed), the request, the response, the close. It stresses what a new
 * flow costs (conntrack, NAT, RSS, socket lookup) as TCP_CRR stresses
 * connection set-up.
 */
#include "np/udp_crr.h"

#include "np/module.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np/auth.h"
#include "np/clock.h"
#include "np/be.h"
#include "np/err.h"
#include "np/oneway.h"
#include "np/rr_open.h"
#include "np/sock.h"

/* How each wait for an answer ended. */
enum {
	WAIT_OK,   /* the answer */
	WAIT_LOST, /* none within the time-out */
	WAIT_FAIL, /* an error, ctx->err set */
};

/*
 * Waits on fd, a connected socket of this transaction's own, for an
 * answer: the token's echo when token is set, else any datagram that is
 * not the token (the response). What else comes from the peer is passed
 * over. Returns WAIT_OK with *n its length, WAIT_LOST after rto ns, or
 * WAIT_FAIL.
 */
static int
await_answer(struct test_ctx *ctx, int fd, uint64_t rto, int token, ssize_t *n)
{
	uint64_t start = clock_ns(), now;

	for (;;) {
		*n = recv(fd, ctx->buf, ctx->buflen, 0);
		now = clock_ns();
		if (module_overtime(ctx, now, "kept sending datagrams") < 0)
			return WAIT_FAIL;
		if (*n >= 0) {
			int is_token =
			    module_udp_token(ctx, ctx->buf, (size_t)*n, 0);

			if (is_token == token)
				return WAIT_OK;
		} else if (errno == ECONNREFUSED) {
			err_set(ctx->err, "netserver's data socket is gone "
					  "(Connection refused)");
			return WAIT_FAIL;
		} else if (errno != EAGAIN && errno != EWOULDBLOCK &&
			   errno != EINTR) {
			err_set(ctx->err, "data socket: recv: %s",
				strerror(errno));
			return WAIT_FAIL;
		}
		if (now - start >= rto)
			return WAIT_LOST;
	}
}

/*
 * The sockets of transactions whose request went and whose answer did
 * not come in time: kept open a while, so that an answer that comes late
 * is counted as late (it reached netperf), not as lost on the way back
 * (oneway.c splits the lost). The oldest is closed when the ring needs
 * its slot.
 */
#define UDP_CRR_GRAVES 16
#define UDP_CRR_GRAVE_NS (2 * NS_PER_SEC)

struct graves {
	int fd[UDP_CRR_GRAVES]; /* -1: a free slot */
	uint64_t at[UDP_CRR_GRAVES];
	int next;
};

static void
graves_init(struct graves *g)
{
	for (int i = 0; i < UDP_CRR_GRAVES; i++)
		g->fd[i] = -1;
	g->next = 0;
}

static void
graves_keep(struct graves *g, int fd, uint64_t now)
{
	if (g->fd[g->next] >= 0)
		close(g->fd[g->next]);
	g->fd[g->next] = fd;
	g->at[g->next] = now;
	g->next = (g->next + 1) % UDP_CRR_GRAVES;
}

/* Takes what answers have come, without waiting, and closes the sockets
 * answered or older than keep_ns (all of them with 0); returns how many
 * are still open. */
static int
graves_poll(struct test_ctx *ctx, struct graves *g, uint64_t keep_ns)
{
	uint64_t now = clock_ns();
	ssize_t n;
	int open = 0;

	for (int i = 0; i < UDP_CRR_GRAVES; i++) {
		if (g->fd[i] < 0)
			continue;
		n = recv(g->fd[i], ctx->buf, ctx->buflen, MSG_DONTWAIT);
		if (n >= 0 && module_udp_token(ctx, ctx->buf, (size_t)n, 0))
			n = -1; /* the token's echo, again */
		if (n >= 0)
			ctx->r->late++;
		if (n >= 0 || now - g->at[i] >= keep_ns) {
			close(g->fd[i]);
			g->fd[i] = -1;
		} else {
			open++;
		}
	}
	return open;
}

/* After the last transaction: the answers given up on in the last
 * time-out may still come; waits for them as long, but 200 ms at least
 * (a netserver that fell behind answers later) and 1 s at most, then
 * closes every socket kept. */
static void
graves_end(struct test_ctx *ctx, struct graves *g, uint64_t rto_ns)
{
	uint64_t wait = rto_ns < 200000000ULL ? 200000000ULL
			: rto_ns > NS_PER_SEC ? NS_PER_SEC
					      : rto_ns;
	uint64_t until = clock_ns() + wait;
	struct timespec nap = {0, 1000000};

	while (graves_poll(ctx, g, wait) > 0 && clock_ns() < until)
		nanosleep(&nap, NULL);
	graves_poll(ctx, g, 0);
}

/* One transaction on a new socket: returns WAIT_OK (counted), WAIT_LOST
 * (counted as lost), or WAIT_FAIL. On the open loop (pc not NULL) the
 * pacer counts it: from its intended send time, a time-out past
 * --timeout. */
static int
transaction(struct test_ctx *ctx, struct module_rto *rto,
	    struct sock_setup *setup, struct graves *g, struct rr_pacer *pc,
	    uint64_t *unanswered)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t req = (size_t)p->req_size;
	uint64_t t0 = clock_ns(), t1;
	char err[ERR_LEN];
	ssize_t n;
	int fd, rc;

	/* connect() picks the new ephemeral port, and filters what this
	 * socket hears to netserver's. */
	fd = sock_connect_addr((struct sockaddr *)&ctx->peer, ctx->peerlen,
			       SOCK_DGRAM, NULL, setup, 1000, err);
	if (fd < 0) {
		/* Out of local ports or buffers for a moment: the
		 * transaction is lost, the test goes on. */
		if (errno == EADDRNOTAVAIL || errno == EADDRINUSE ||
		    errno == ENOBUFS || errno == ENOMEM) {
			r->send_errors++;
			if (pc != NULL)
				rr_pacer_lost(pc);
			return WAIT_LOST;
		}
		err_set(ctx->err, "data socket: %s", err);
		return WAIT_FAIL;
	}
	if (sock_set_timeouts(fd, (int)(rto->ns / 1000000) + 1, err) < 0) {
		close(fd);
		err_set(ctx->err, "%s", err);
		return WAIT_FAIL;
	}
	if (send(fd, ctx->token, AUTH_TOKEN_LEN, 0) != AUTH_TOKEN_LEN)
		r->send_errors++; /* it will time out */
	rc = await_answer(ctx, fd, rto->ns, 1, &n);
	if (rc == WAIT_OK) {
		t1 = clock_ns();
		module_rto_sample(rto, t1 - t0);
		n = send(fd, ctx->buf, req, 0);
		if (pc == NULL)
			r->requests++; /* the pacer counted it */
		if (n < 0) {
			r->send_errors++;
		} else {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
		}
		rc = await_answer(ctx, fd, rto->ns, 0, &n);
		if (rc == WAIT_LOST) {
			if (pc != NULL)
				rr_pacer_lost(pc);
			else
				r->lost++;
			(*unanswered)++;
			graves_keep(g, fd, clock_ns());
			return rc;
		}
		if (rc == WAIT_OK) {
			uint64_t now = clock_ns();

			module_rto_sample(rto, now - t1);
			r->recv_calls++;
			r->bytes_recv += (uint64_t)n;
			/* -D: this was request r->requests, whose answer
			 * holds netserver's count. */
			if (ctx->lost_split)
				oneway_lost_seen(ctx, (uint64_t)r->requests,
						 ctx->buf, (size_t)n,
						 *unanswered - r->late);
			if (pc != NULL) {
				rr_pacer_done(pc, now);
			} else {
				r->trans++;
				if (ctx->hist != NULL)
					stats_hist_add(ctx->hist, now - t0);
			}
		}
	}
	close(fd);
	if (rc == WAIT_LOST && pc != NULL)
		rr_pacer_lost(pc);
	else if (rc == WAIT_LOST)
		r->lost++;
	return rc;
}

static int
udp_crr_run(struct test_ctx *ctx, struct rr_pacer *pc)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	/* -s and netperf 2.7's options (-y, -Y...) on every socket. */
	struct sock_setup setup = {NULL, 0,  p->lsndbuf, p->lrcvbuf,
				   -1,	 -1, 0,		 &p->lx, 0};
	struct module_rto rto;
	struct graves g;
	uint64_t now, progress, unanswered = 0;
	int rc;

	if (ctx->token == NULL)
		return err_set(ctx->err, "UDP_CRR needs netserver's token");
	graves_init(&g);
	r->send_size = p->req_size;
	r->recv_size = p->rsp_size;
	/* Each socket is new: the sizes it ends with are the sizes a
	 * socket starts with, as TCP_CRR reports them. */
	r->sndbuf_end = r->sndbuf;
	r->rcvbuf_end = r->rcvbuf;
	/* -D: netserver's count in each answer splits the interval's
	 * losses (oneway.h), the closed loop's own count as the tag. */
	__atomic_store_n(&ctx->lost_split,
			 oneway_count_off(p) > 0 && pc == NULL,
			 __ATOMIC_RELAXED);
	/* --timeout abandons a transaction at that point. */
	module_rto_init(&rto, p->timeout > 0 ? p->timeout : p->rto);
	progress = clock_ns();
	for (;;) {
		now = clock_ns();
		/* A counted test counts transactions tried, as UDP_RR's. */
		if (*ctx->stop || (ctx->end_ns != 0 && now >= ctx->end_ns) ||
		    (ctx->end_ns == 0 &&
		     r->trans + r->lost + r->timeouts >= (uint64_t)p->count))
			break;
		if (pc != NULL && rr_pacer_next(pc) == 0)
			break;
		rc = transaction(ctx, &rto, &setup, &g, pc, &unanswered);
		if (rc == WAIT_FAIL && pc != NULL) {
			/* The open loop counts netserver's socket gone (or
			 * any error) and goes on with --reconnect; without
			 * it the stream ends, and the others go on. */
			rr_pacer_failed(pc);
			if (p->reconnect)
				continue;
			r->ended++;
			break;
		}
		if (rc == WAIT_FAIL) {
			graves_poll(ctx, &g, 0);
			return -1;
		}
		graves_poll(ctx, &g, UDP_CRR_GRAVE_NS);
		now = clock_ns();
		if (rc == WAIT_OK)
			progress = now;
		else if (ctx->end_ns == 0 &&
			 now - progress >= MODULE_IDLE_SEC * NS_PER_SEC) {
			graves_poll(ctx, &g, 0);
			return err_set(ctx->err,
				       "no answer from netserver for %d s",
				       MODULE_IDLE_SEC);
		}
	}
	graves_end(ctx, &g, rto.ns);
	return 0;
}

int
udp_crr_client(struct test_ctx *ctx)
{
	struct rr_pacer *pc = NULL;
	int rc;

	if (module_open_loop(ctx->p) && (pc = rr_pacer_new(ctx)) == NULL)
		return err_set(ctx->err, "out of memory");
	rc = udp_crr_run(ctx, pc);
	rr_pacer_free(pc);
	return rc;
}

/* The senders whose token netserver echoed and whose request it awaits:
 * a few, the oldest forgotten first, so a client that never asks (or a
 * flood of tokens) holds nothing for long. */
#define UDP_CRR_PENDING 64

/* The slot of sender a, or -1. */
static int
pending_find(const struct udp_crr_pending *t, const struct sockaddr_storage *a,
	     socklen_t len)
{
	for (int i = 0; i < t->cap; i++)
		if (t->len[i] != 0 && t->len[i] == len &&
		    memcmp(&t->addr[i], a, len) == 0)
			return i;
	return -1;
}

static void
pending_add(struct udp_crr_pending *t, const struct sockaddr_storage *a,
	    socklen_t len)
{
	if (pending_find(t, a, len) >= 0)
		return;
	memcpy(&t->addr[t->next], a, len);
	t->len[t->next] = len;
	t->next = (t->next + 1) % t->cap;
}

void
udp_crr_serve(struct test_ctx *ctx, struct udp_crr_pending *t, char *buf,
	      size_t n, const struct sockaddr_storage *a, socklen_t len)
{
	struct side_result *r = ctx->r;
	size_t rsp = (size_t)ctx->p->rsp_size, off;
	int i;

	/* No sender: the socket was shut (the guard), not a datagram. */
	if (len == 0 ||
	    !sock_same_host((const struct sockaddr *)a,
			    (const struct sockaddr *)&ctx->peer))
		return;
	if (n == AUTH_TOKEN_LEN && auth_equal((const unsigned char *)buf,
					      ctx->token, AUTH_TOKEN_LEN)) {
		pending_add(t, a, len);
		sendto(ctx->fd, ctx->token, AUTH_TOKEN_LEN, MSG_DONTWAIT,
		       (const struct sockaddr *)a, len);
		return;
	}
	i = pending_find(t, a, len);
	if (i < 0)
		return;
	t->len[i] = 0;
	r->recv_calls++;
	r->requests++;
	r->bytes_recv += n;
	/* -D: the count of requests so far, for netperf's split of each
	 * interval's losses (oneway.h). */
	if (ctx->p->lost_iv && (off = oneway_count_off(ctx->p)) > 0)
		ben_put(buf + off, (uint64_t)r->requests, ONEWAY_COUNT_LEN);
	/* The request's bytes are still at the start of buf. */
	if (sendto(ctx->fd, buf, rsp, MSG_DONTWAIT,
		   (const struct sockaddr *)a, len) < 0) {
		r->send_errors++;
		return;
	}
	r->bytes_sent += rsp;
	r->send_calls++;
	r->trans++;
}

/* The most datagrams the server drains after the client's stop. */
#define UDP_CRR_DRAIN 4096

/* The client said stop: the requests its socket still holds reached
 * netserver, and are served as ever, so that a netserver that fell
 * behind does not pass them off as lost on the way. */
static void
drain(struct test_ctx *ctx, struct udp_crr_pending *t)
{
	struct sockaddr_storage from;
	socklen_t len;
	ssize_t n;

	for (int i = 0; i < UDP_CRR_DRAIN; i++) {
		len = sizeof(from);
		n = recvfrom(ctx->fd, ctx->buf, ctx->buflen, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		udp_crr_serve(ctx, t, ctx->buf, (size_t)n, &from, len);
	}
}

int
udp_crr_server(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	uint64_t start = clock_ns(), now, last = start, check = start;
	struct sockaddr_storage from;
	struct udp_crr_pending *t;
	socklen_t len;
	ssize_t n;

	if (ctx->token == NULL)
		return err_set(ctx->err, "UDP_CRR needs the test's token");
	t = calloc(1, sizeof(*t) + UDP_CRR_PENDING * (sizeof(*t->addr) +
						      sizeof(*t->len)));
	if (t == NULL)
		return err_set(ctx->err, "out of memory");
	t->cap = UDP_CRR_PENDING;
	t->addr = (struct sockaddr_storage *)(t + 1);
	t->len = (socklen_t *)(t->addr + UDP_CRR_PENDING);
	r->send_size = p->rsp_size;
	r->recv_size = p->req_size;
	for (;;) {
		len = sizeof(from);
		n = recvfrom(ctx->fd, ctx->buf, ctx->buflen, 0,
			     (struct sockaddr *)&from, &len);
		now = clock_ns();
		if (module_overtime(ctx, now, "kept sending requests") < 0)
			goto fail;
		if (n >= 0) {
			uint64_t before = r->trans;

			udp_crr_serve(ctx, t, ctx->buf, (size_t)n, &from, len);
			if (r->trans != before)
				last = now;
			/* Busy: look for the client's "stop" every 5 ms. */
			if (now - check > 5000000) {
				check = now;
				if (module_stop_requested(ctx)) {
					drain(ctx, t);
					break;
				}
			}
			continue;
		}
		if (errno == EINTR || errno == ECONNREFUSED)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			err_set(ctx->err, "data socket: recv: %s",
				strerror(errno));
			goto fail;
		}
		if (module_stop_requested(ctx)) {
			drain(ctx, t);
			break;
		}
		if (module_stalled(ctx, now, last, "kept sending requests") < 0)
			goto fail;
	}
	free(t);
	/* The interval ends with the last transaction, not when the end
	 * was noticed. */
	if (last > start)
		r->elapsed = (double)(last - start) / 1e9;
	return 0;
fail:
	free(t);
	return -1;
}
