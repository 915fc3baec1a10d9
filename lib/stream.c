/* The bulk-transfer loops: TCP_STREAM, TCP_MAERTS and TCP_SENDFILE (a
 * stream's sender and receiver, each over its data path, np/datapath.h),
 * TCP_MSS's connection that sends nothing, and UDP_STREAM's sender and
 * receiver, both directions. The stream tests over other transports
 * (SCTP_STREAM, VSOCK_STREAM) run the same loops: module.c's table says
 * which test runs which. */
#include "np/module.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sock_diag.h>

#include "np/be.h"
#include "np/clock.h"
#include "np/err.h"
#include "np/transport.h"
#include "np/datapath.h"
#include "np/tick.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

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
		if (ctx->untagged && errno == ECONNRESET)
			return 0;
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

/* The sending loop of a stream, over the side's data path. */
int
stream_send(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->send_size;
	uint64_t left = ctx->p->duration > 0 ? 0 : (uint64_t)ctx->p->count;
	uint64_t now = clock_ns(), then, progress = now, check = now;
	struct datapath_io io;
	ssize_t n;
	size_t want;
	char *buf;
	int e, rc;

	if (datapath_open(&io, ctx) < 0)
		return -1;
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
		buf = module_send_buffer(ctx);
		if (buf == NULL)
			break;
		n = io.dp->send(&io, buf, want);
		e = errno;
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
		if (e == EINTR)
			continue;
		/* A netperf 2.7 client stops reading when its own clock
		 * says so, which may be a moment before ours. */
		if (ctx->untagged && (e == EPIPE || e == ECONNRESET))
			return datapath_finish(&io, 0);
		rc = io.dp->failed != NULL ? io.dp->failed(&io, e) : 0;
		if (rc < 0)
			goto fail;
		if (rc == 0 && e != EAGAIN && e != EWOULDBLOCK) {
			err_set(ctx->err, "data connection: %s: %s",
				io.dp->call, strerror(e));
			goto fail;
		}
		if (module_stalled(ctx, now, progress,
				   "kept the test going") < 0)
			goto fail;
	}
	r->syscalls = r->send_calls;
	if (finish_send(ctx) < 0)
		goto fail;
	return datapath_finish(&io, 1);
fail:
	datapath_finish(&io, 0);
	return -1;
}

int
mss_client(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	socklen_t len = sizeof(r->mss);

	/* TCP_MSS moves no data: the MSS of the connection just made, as
	 * 2.7 reads it (TCP_MAXSEG). It ends as a sender does, so that
	 * netserver's receiver sees the end and reports. */
	if (getsockopt(ctx->fd, IPPROTO_TCP, TCP_MAXSEG, &r->mss, &len) < 0)
		r->mss = -1;
	snprintf(r->path, sizeof(r->path), "none");
	return finish_send(ctx);
}

/* The most a counted test's sender may send: the count, and for a
 * netperf 2.7 client (untagged) up to one message more, since 2.7 sends
 * whole messages and rounds the count up to them. */
static uint64_t
count_bound(const struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	int64_t slack = 65536;

	if (!ctx->untagged)
		return (uint64_t)p->count;
	if (p->send_size > slack)
		slack = p->send_size;
	if (p->rsend_size > slack)
		slack = p->rsend_size;
	return (uint64_t)p->count + (uint64_t)slack;
}

/* The receiving loop of a stream, over the side's data path. */
int
stream_recv(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->recv_size;
	uint64_t now = clock_ns(), then, progress = now;
	uint64_t most = ctx->p->count > 0 ? count_bound(ctx) : 0;
	/* The transport's figures once more halfway through a timed test
	 * (MPTCP's subflows, joined after the interval began; at the end
	 * the peer may be closing them already). */
	uint64_t mid =
	    ctx->end_ns != 0 && ctx->transport != NULL &&
		    ctx->transport->account != NULL
		? ctx->end_ns - (uint64_t)(ctx->p->duration * 1e9 / 2)
		: 0;
	struct datapath_io io;
	ssize_t n;
	int e;

	if (datapath_open(&io, ctx) < 0)
		return -1;
	for (;;) {
		n = io.dp->recv(&io, size, 0);
		e = errno;
		then = now;
		now = clock_ns();
		if (n > 0) {
			r->bytes_recv += (uint64_t)n;
			r->recv_calls++;
			progress = now;
			if (mid != 0 && now >= mid) {
				transport_account(ctx->transport, ctx->fd, r);
				mid = 0;
			}
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			if (ctx->end_own && ctx->end_ns != 0 &&
			    now >= ctx->end_ns)
				break;
			/* A sender that never stops must not hold this end:
			 * not past the end of a timed test, nor past the
			 * bytes asked for in a counted one. */
			if (module_overtime(ctx, now, "kept sending data") < 0)
				goto fail;
			if (ctx->end_ns == 0 && ctx->p->count > 0 &&
			    r->bytes_recv > most) {
				err_set(ctx->err,
					"the peer sent more than the "
					"%lld bytes asked for",
					(long long)ctx->p->count);
				goto fail;
			}
			continue;
		}
		if (n == 0)
			break;
		if (e == EINTR) {
			if (*ctx->stop)
				break;
			continue;
		}
		if (ctx->untagged && e == ECONNRESET)
			break;
		if (e != EAGAIN && e != EWOULDBLOCK) {
			err_set(ctx->err, "data connection: recv: %s",
				strerror(e));
			goto fail;
		}
		if (*ctx->stop)
			break;
		if (module_stalled(ctx, now, progress,
				   "kept sending data") < 0)
			goto fail;
	}
	r->syscalls = r->recv_calls;
	/* The sender waits for this close to end its interval. */
	shutdown(ctx->fd, SHUT_WR);
	return datapath_finish(&io, 1);
fail:
	datapath_finish(&io, 0);
	return -1;
}

/* Sleeps until the monotonic deadline t; pacing uses it when ahead. */
static void
sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / NS_PER_SEC), (long)(t % NS_PER_SEC)};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Datagrams for the next call: a batch, or what a count has left. */
static inline int
udp_want(const struct test_ctx *ctx, const struct datapath_io *io,
	 uint64_t left)
{
	uint64_t more;

	if (ctx->end_ns != 0)
		return io->k;
	more = (left - ctx->r->bytes_sent + io->size - 1) / io->size;
	return more < (uint64_t)io->k ? (int)more : io->k;
}

/*
 * A send that failed with errno e: 0 to go on (EINTR; a full queue, which
 * is the network's answer, counted as netperf's "Errors" column does), or
 * -1 with ctx->err set.
 */
static int
udp_send_failed(struct datapath_io *io, int e, uint64_t now,
		uint64_t progress)
{
	struct test_ctx *ctx = io->ctx;

	if (e == EINTR)
		return 0;
	if (e == ENOBUFS || e == EAGAIN || e == EWOULDBLOCK) {
		ctx->r->send_errors++;
		return module_stalled(ctx, now, progress,
				      "kept the test going");
	}
	if (io->dp->failed != NULL && io->dp->failed(io, e) < 0)
		return -1;
	return err_set(ctx->err, "data socket: %s: %s", io->dp->call,
		       strerror(e));
}

int
udp_stream_send(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	uint64_t left = ctx->p->duration > 0 ? 0 : (uint64_t)ctx->p->count;
	uint64_t now = clock_ns(), then, progress = now;
	uint64_t gap = 0, next = now;
	struct datapath_io io;
	ssize_t n;
	char *buf;
	int want, e, one = 0;

	if (datapath_open(&io, ctx) < 0)
		return -1;
	/* --rate: one datagram every gap ns, scheduled on absolute times so
	 * the offered rate does not drift; a call of k waits k gaps. */
	if (ctx->p->rate > 0)
		gap = (uint64_t)((double)io.size * 8 * 1e9 / ctx->p->rate);
	for (;;) {
		if (*ctx->stop)
			break;
		if (ctx->end_ns != 0 ? now >= ctx->end_ns
				     : r->bytes_sent >= left)
			break;
		want = one ? 1 : udp_want(ctx, &io, left);
		one = 0;
		if (gap != 0) {
			if (now < next) {
				sleep_until(next);
				now = clock_ns();
			}
			next += gap * (uint64_t)want;
		}
		buf = module_send_buffer(ctx);
		if (buf == NULL)
			break;
		/* A datagram's header: its number and this send time. */
		io.now = now;
		n = io.dp->send(&io, buf, (size_t)want * io.size);
		e = errno;
		then = now;
		now = clock_ns();
		if (n >= 0) {
			n /= (ssize_t)io.size;
			r->bytes_sent += (uint64_t)n * io.size;
			r->send_calls += (uint64_t)n;
			r->syscalls++;
			io.seq += (uint64_t)n;
			progress = now;
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			/* sendmmsg stops at a failed message and returns the
			 * ones before it, and the error is lost: when the peer
			 * refuses each datagram (ICMP, which loopback delivers
			 * at once), every batch would end at its second message
			 * with no error ever seen. One datagram alone next lets
			 * its refusal reach the next batch's first message,
			 * which sendmmsg does report. */
			if (n < want)
				one = 1;
			continue;
		}
		if (udp_send_failed(&io, e, now, progress) < 0)
			goto fail;
	}
	datapath_finish(&io, 1);
	module_udp_end(ctx);
	return 0;
fail:
	datapath_finish(&io, 0);
	return -1;
}

/* Sequence numbers remembered for telling duplicates from late arrivals. */
#define UDP_WINDOW 65536

/*
 * How the next read waits. A receiver that blocks as soon as its queue is
 * empty is woken once a datagram, and on loopback the sender's CPU pays
 * for every wake-up. So once data flows the receiver drains the queue,
 * then naps a few microseconds off the socket before it looks again, and
 * blocks only when a nap brought nothing. The nap adapts to keep the
 * queue under half full (udp_rx_nap); without SO_MEMINFO, or with a
 * buffer that holds fewer than RX_NAP_SLOTS of the largest datagrams,
 * the receiver blocks at once, as 2.7's does. Every datagram carries the
 * kernel's arrival stamp, so jitter and the elapsed time do not depend on when
 * it was read; but a 2.7 sender's, which has no send time to take jitter from,
 * is read without one (recv_open) and arrives when it is read.
 */
enum udp_rx_wait { RX_BLOCK, RX_DRAIN, RX_NAPPED };
#define RX_NAP_START 20000ULL /* ns */
#define RX_NAP_MIN 5000ULL
#define RX_NAP_MAX 200000ULL
/* Reads a receiver makes blocking, as 2.7's, after even its shortest nap
 * lost datagrams; doubled each time that happens again. */
#define RX_NAP_REST 256ULL
#define RX_NAP_REST_MAX 65536ULL
/* Naps only while the receive buffer holds this many of the largest
 * datagrams seen: a queue of a few (three of 64 KB in the default
 * 208 KB) overflows within one nap whenever the CPUs are shared. */
#define RX_NAP_SLOTS 16ULL

/* The receiver's account: the window of sequence numbers, the jitter
 * estimate, and its use of the data path. */
struct udp_rx {
	struct datapath_io io;
	uint64_t next;	     /* one past the highest sequence seen */
	unsigned char *seen; /* UDP_WINDOW bits */
	int64_t prev_transit;
	int have_prev;
	double jitter;
	uint64_t now;	 /* this call's return */
	uint64_t at;	 /* arrival: the kernel's stamp, or the read */
	uint64_t last;	 /* the latest arrival of data */
	int64_t real_off; /* CLOCK_REALTIME less CLOCK_MONOTONIC, in ns */
	int stamped;	  /* the kernel stamps arrivals (SO_TIMESTAMPNS) */
	enum udp_rx_wait wait;
	uint64_t nap;	  /* ns; 0: block as soon as the queue is empty */
	uint64_t nap_was; /* the nap before the last one lengthened it */
	uint64_t rest;	  /* reads left to block before napping again */
	uint64_t rest_next; /* the rest after the next lost shortest nap */
	int slack;	  /* the thread's timer slack before the test */
	uint64_t naps, nap_drops; /* naps, and those the socket dropped in */
	size_t biggest;	  /* the largest datagram read */
	int end;	  /* an end marker came */
	int untagged;	  /* a netperf 2.7 sender: no header of ours */
	struct test_ctx *ctx; /* for the token, echoed when it comes again */
};

static int
udp_rx_init(struct test_ctx *ctx, struct udp_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
	rx->ctx = ctx;
	if (datapath_open(&rx->io, ctx) < 0)
		return -1;
	rx->seen = calloc(UDP_WINDOW / 8, 1);
	if (rx->seen == NULL)
		return err_set(ctx->err, "out of memory");
	rx->untagged = ctx->untagged;
	rx->real_off = clock_real_ns() - (int64_t)clock_ns();
	rx->nap = RX_NAP_START;
	rx->wait = RX_BLOCK;
	/* A nap of microseconds needs a timer that fires on time. */
	rx->slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	/* Without the kernel's stamps, a datagram's arrival is its read;
	 * a path that reads no control data (recv_open) reads none. */
	rx->stamped = rx->io.control != NULL &&
		      setsockopt(ctx->fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){1},
				 sizeof(int)) == 0;
	return 0;
}

static void
udp_rx_free(struct udp_rx *rx)
{
	free(rx->seen);
	if (rx->io.ctx != NULL)
		datapath_finish(&rx->io, 0);
	if (rx->slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)rx->slack, 0, 0, 0);
}

/* Takes one datagram of n bytes at p into the account. */
static void
udp_rx_take(struct udp_rx *rx, struct side_result *r, const char *p, size_t n)
{
	unsigned char *seen = rx->seen;
	uint64_t seq;
	int64_t transit, d;

	/* The token again: the client did not hear the echo. */
	if (module_udp_token(rx->ctx, p, n, 1))
		return;
	if (n == 0) {
		/* The client's end marker: take what is queued. */
		rx->end = 1;
		return;
	}
	if (n > rx->biggest)
		rx->biggest = n;
	/* A 2.7 client's datagrams carry no header: count them; nothing of
	 * their order can be known. */
	if (rx->untagged) {
		r->recv_calls++;
		r->bytes_recv += (uint64_t)n;
		if (rx->at > rx->last)
			rx->last = rx->at;
		return;
	}
	/* Too short to be ours: not counted as data. */
	if (n < MODULE_UDP_HDR)
		return;
	r->recv_calls++;
	r->bytes_recv += (uint64_t)n;
	if (rx->at > rx->last)
		rx->last = rx->at;
	seq = be64_get(p);
	/* RFC 3550: J += (|D| - J) / 16, D the change in transit time; only
	 * differences of the sender's clock are used, so the clocks need
	 * not agree. */
	transit = (int64_t)(rx->at - be64_get(p + 8));
	if (rx->have_prev) {
		d = transit - rx->prev_transit;
		rx->jitter += ((double)(d < 0 ? -d : d) - rx->jitter) / 16.0;
	}
	rx->prev_transit = transit;
	rx->have_prev = 1;
	if (seq >= rx->next) {
		uint64_t s = rx->next;

		/* Forget what the window held for the sequence numbers now
		 * being skipped. */
		if (seq - rx->next >= UDP_WINDOW)
			memset(seen, 0, UDP_WINDOW / 8);
		else
			for (; s < seq; s++)
				seen[(s % UDP_WINDOW) / 8] &=
				    (unsigned char)~(1u << (s % 8));
		seen[(seq % UDP_WINDOW) / 8] |=
		    (unsigned char)(1u << (seq % 8));
		rx->next = seq + 1;
	} else if (rx->next - seq >= UDP_WINDOW) {
		r->reordered++;
	} else if (seen[(seq % UDP_WINDOW) / 8] & (1u << (seq % 8))) {
		r->dups++;
	} else {
		seen[(seq % UDP_WINDOW) / 8] |=
		    (unsigned char)(1u << (seq % 8));
		r->reordered++;
	}
}

/* The kernel stamps arrivals on CLOCK_REALTIME: when that clock was
 * stepped (by more than a millisecond, far above the noise of reading
 * the two clocks) since the offset to CLOCK_MONOTONIC was taken, take it
 * again, so that a step moves at most the stamps of a few milliseconds. */
static void
rx_clock_step(struct udp_rx *rx)
{
	int64_t off = clock_real_ns() - (int64_t)clock_ns();
	int64_t d = off - rx->real_off;

	if (d > 1000000 || d < -1000000)
		rx->real_off = off;
}

/* Reads a received message's control data: sets rx->at to the kernel's
 * arrival stamp (the read's time when there is none) and returns the
 * gso_size a UDP_GRO receive reports, or 0 when the buffer is one
 * datagram. */
static size_t
rx_control(struct udp_rx *rx, struct msghdr *msg)
{
	struct cmsghdr *cm;
	struct timespec ts;
	int64_t at;
	int v = 0;

	rx->at = rx->now;
	for (cm = CMSG_FIRSTHDR(msg); cm != NULL; cm = CMSG_NXTHDR(msg, cm))
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
			memcpy(&v, CMSG_DATA(cm), sizeof(v));
		} else if (cm->cmsg_level == SOL_SOCKET &&
			   cm->cmsg_type == SCM_TIMESTAMPNS && rx->stamped) {
			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			at = (int64_t)ts.tv_sec * (int64_t)NS_PER_SEC +
			     ts.tv_nsec - rx->real_off;
			/* A stamp after the read's own time is no time: the
			 * realtime clock was stepped (rx_clock_step). */
			if (at > 0 && (uint64_t)at <= rx->now)
				rx->at = (uint64_t)at;
		}
	return v > 0 ? (size_t)v : 0;
}

/* One receive call over the receiver's path, every datagram it returns
 * taken into the account. Returns 0, or -1 with errno set. */
static int
udp_rx_call(struct test_ctx *ctx, struct udp_rx *rx, int flags)
{
	struct datapath_io *io = &rx->io;
	struct side_result *r = ctx->r;
	size_t gs, off, seg, n;
	ssize_t k;
	char *buf;
	int i, e;

	for (i = 0; i < io->k && io->control != NULL; i++)
		io->msgs[i].msg_hdr.msg_controllen = DATAPATH_RX_CONTROL;
	k = io->dp->recv(io, io->size, flags);
	e = errno;
	rx->now = clock_ns();
	if (k < 0) {
		errno = e;
		return -1;
	}
	r->syscalls++;
	for (i = 0; i < (int)k; i++) {
		buf = io->bufs + (size_t)i * io->size;
		n = io->msgs[i].msg_len;
		/* Coalesced datagrams (UDP_GRO) are gso_size bytes each, the
		 * last perhaps shorter: cut them apart and take each. */
		gs = rx_control(rx, &io->msgs[i].msg_hdr);
		if (gs == 0 || gs >= n) {
			udp_rx_take(rx, r, buf, n);
			continue;
		}
		r->coalesced++;
		for (off = 0; off < n; off += gs) {
			seg = n - off < gs ? n - off : gs;
			udp_rx_take(rx, r, buf + off, seg);
		}
	}
	return 0;
}

/* The socket's receive memory in use, its size and its drops so far
 * (SO_MEMINFO); returns 0, or -1 when the kernel does not say. */
static int
rx_meminfo(int fd, uint32_t *used, uint32_t *size, uint32_t *drops)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) < 0 ||
	    len <= SK_MEMINFO_DROPS * sizeof(mi[0]))
		return -1;
	*used = mi[SK_MEMINFO_RMEM_ALLOC];
	*size = mi[SK_MEMINFO_RCVBUF];
	*drops = mi[SK_MEMINFO_DROPS];
	return 0;
}

/* A nap of rx->nap, then the nap fitted to how full the queue got:
 * halved when the socket dropped a datagram during it or the queue grew
 * past half the receive buffer, lengthened by a quarter when it stayed
 * under a quarter; always within RX_NAP_MIN..RX_NAP_MAX. Without
 * SO_MEMINFO, or with room for fewer than RX_NAP_SLOTS of the largest
 * datagrams, the receiver does not nap.
 *
 * A shortest nap that still lost datagrams means the receiver is not
 * back on a CPU before its queue overflows: flows that outnumber the
 * CPUs, or datagrams so large that the buffer holds only a few (three of
 * 64 KB in the default 208 KB). Then the receiver rests from napping
 * and blocks, as 2.7's does, so that a datagram's arrival wakes it at
 * once and no read finds the queue empty, for RX_NAP_REST reads, twice
 * as many each time it happens again (up to RX_NAP_REST_MAX), before it
 * tries napping again. */
static void
udp_rx_nap(int fd, struct udp_rx *rx)
{
	struct timespec ts = {0, (long)rx->nap};
	uint32_t used, size, before, after;

	if (rx_meminfo(fd, &used, &size, &before) < 0 ||
	    (uint64_t)rx->biggest * RX_NAP_SLOTS > size) {
		rx->nap = 0;
		return;
	}
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	rx->naps++;
	if (rx_meminfo(fd, &used, &size, &after) < 0) {
		rx->nap = 0;
		return;
	}
	if (after != before) {
		rx->nap_drops++;
		if (rx->nap <= RX_NAP_MIN) {
			if (rx->rest_next == 0)
				rx->rest_next = RX_NAP_REST;
			rx->rest = rx->rest_next;
			if (rx->rest_next < RX_NAP_REST_MAX)
				rx->rest_next *= 2;
		}
	}
	if (after != before || 2 * (uint64_t)used > size) {
		rx->nap /= 2;
		if (rx->nap < RX_NAP_MIN)
			rx->nap = RX_NAP_MIN;
	} else if (4 * (uint64_t)used < size) {
		/* Undone when the nap turns out to have brought nothing: a
		 * pause in the flow is no reason for longer naps. */
		rx->nap_was = rx->nap;
		rx->nap += rx->nap / 4;
		if (rx->nap > RX_NAP_MAX)
			rx->nap = RX_NAP_MAX;
	}
}

/* The queue was empty: nap after draining, block after a nap that brought
 * nothing. Returns 1 when the next read should be tried at once, 0 when
 * a blocking read timed out. */
static int
udp_rx_dry(int fd, struct udp_rx *rx)
{
	switch (rx->wait) {
	case RX_DRAIN:
		if (rx->nap > 0) {
			udp_rx_nap(fd, rx);
			rx->wait = RX_NAPPED;
			return 1;
		}
		/* fall through */
	case RX_NAPPED:
		if (rx->nap_was != 0 && rx->nap > rx->nap_was)
			rx->nap = rx->nap_was;
		rx->wait = RX_BLOCK;
		return 1;
	case RX_BLOCK:
	default:
		return 0;
	}
}

int
udp_stream_recv(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	uint64_t start = clock_ns(), check = start;
	struct udp_rx rx;
	struct tick tick = {0};
	int stopping = 0, rc;

	if (udp_rx_init(ctx, &rx) < 0)
		goto fail;
	/* A blocking read that nothing ends wakes on the tick (EINTR)
	 * rather than the socket's time-out, as often, with no timer to arm
	 * for every read that sleeps. */
	tick_start(&tick, ctx->fd);
	rx.now = rx.at = rx.last = start;
	for (;;) {
		rc = udp_rx_call(ctx, &rx,
				 stopping || rx.wait != RX_BLOCK ? MSG_DONTWAIT
								 : 0);
		/* Neither a flood nor a missing stop holds this end past
		 * the end of the test. */
		if (module_overtime(ctx, clock_ns(), "kept sending datagrams") <
		    0)
			goto fail;
		if (rc == 0) {
			/* Drained to the last datagram when it naps next;
			 * otherwise each read blocks until one is there. */
			rx.nap_was = 0;
			if (rx.rest > 0)
				rx.rest--;
			rx.wait = rx.nap > 0 && rx.rest == 0 ? RX_DRAIN
							      : RX_BLOCK;
			if (rx.end)
				stopping = 1;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK ||
			   errno == EINTR) {
			/* Only a blocking read is interrupted, and only a
			 * read that is not stopping blocks. */
			if (stopping)
				break;
			if (udp_rx_dry(ctx->fd, &rx))
				continue;
			if (module_stop_requested(ctx)) {
				stopping = 1;
				continue;
			}
			/* netperf receiving (--bidir) has no "stop" to wait
			 * for: netserver's sender ends with the test, so a
			 * silence past its end means it is over, whether or
			 * not an end marker got through. A tick may come in
			 * any gap, so the silence is counted, not assumed. */
			if (ctx->ctl < 0 && ctx->end_ns != 0 &&
			    rx.now >= ctx->end_ns + NS_PER_SEC / 2 &&
			    rx.now - rx.last >= NS_PER_SEC / 2)
				break;
			if (module_stalled(ctx, rx.now, rx.last,
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
		if (!stopping && rx.now - check > 5000000) {
			check = rx.now;
			stopping = module_stop_requested(ctx);
			rx_clock_step(&rx);
		}
	}
	r->jitter = rx.jitter / 1e9;
	r->naps = rx.naps;
	r->nap_drops = rx.nap_drops;
	r->elapsed = (double)(rx.last - start) / 1e9;
	tick_stop(&tick);
	udp_rx_free(&rx);
	return 0;
fail:
	tick_stop(&tick);
	udp_rx_free(&rx);
	return -1;
}
