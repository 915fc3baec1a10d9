/* The bulk-transfer loops: TCP_STREAM and TCP_MAERTS, both directions,
 * TCP_SENDFILE's sender, and TCP_MSS's connection that sends nothing. */
#include "np/module.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/sock_diag.h>

#include "np/be.h"
#include "np/clock.h"
#include "np/err.h"
#include "np/fast.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
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

/*
 * --zerocopy: waits for the error queue to report every send complete,
 * so the completions are counted whole. Returns 0, or -1 with err set
 * when some never come.
 */
static int
zc_drain(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	struct pollfd pfd = {.fd = ctx->fd, .events = 0};
	uint64_t start = clock_ns();

	for (;;) {
		fast_zc_reap(ctx->fd, r);
		if (r->zc_done >= r->send_calls)
			return 0;
		if (clock_ns() - start >= MODULE_GRACE_SEC * NS_PER_SEC)
			return err_set(
			    ctx->err,
			    "--zerocopy: %llu of %llu sends were "
			    "never reported complete",
			    (unsigned long long)(r->send_calls - r->zc_done),
			    (unsigned long long)r->send_calls);
		/* A waiting notice shows as POLLERR. */
		poll(&pfd, 1, 100);
	}
}

int
stream_send(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->send_size;
	uint64_t left = ctx->p->duration > 0 ? 0 : (uint64_t)ctx->p->count;
	uint64_t now = clock_ns(), then, progress = now, check = now;
	int zc = ctx->p->zerocopy && strcmp(r->path, "zerocopy") == 0;
	int flags = MSG_NOSIGNAL | (zc ? MSG_ZEROCOPY : 0);
	ssize_t n;
	size_t want;
	char *buf;

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
		/* -I: write(), as 2.7's use_write; a closed peer then
		 * raises SIGPIPE, which netperf ignores. */
		n = ctx->p->use_write && !zc
			? write(ctx->fd, buf, want)
			: send(ctx->fd, buf, want, flags);
		then = now;
		now = clock_ns();
		if (n > 0) {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
			progress = now;
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			/* The buffer never changes, so completions need not
			 * be awaited; reading them keeps the queue short. */
			if (zc && (r->send_calls & 31) == 0)
				fast_zc_reap(ctx->fd, r);
			continue;
		}
		if (errno == EINTR)
			continue;
		/* A netperf 2.7 client stops reading when its own clock
		 * says so, which may be a moment before ours. */
		if (ctx->untagged && (errno == EPIPE || errno == ECONNRESET))
			return 0;
		/* Pinned pages beyond the socket's option memory: take the
		 * completions that free them and go on. */
		if (zc && errno == ENOBUFS) {
			r->send_errors++;
			if (fast_zc_reap(ctx->fd, r) == 0)
				poll(&(struct pollfd){.fd = ctx->fd}, 1, 10);
			if (module_stalled(ctx, now, progress,
					   "kept the test going") < 0)
				return -1;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(ctx->err, "data connection: send: %s",
				       strerror(errno));
		if (module_stalled(ctx, now, progress,
				   "kept the test going") < 0)
			return -1;
	}
	r->syscalls = r->send_calls;
	if (finish_send(ctx) < 0)
		return -1;
	return zc ? zc_drain(ctx) : 0;
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

/*
 * TCP_SENDFILE's file, which the sends cycle through as 2.7's ring: width
 * slots of size bytes from offset off. -F's file must hold them all (2.7
 * refuses a file smaller than its ring too); without -F, a file in memory
 * of just that size, filled from the buffer (netperf's pattern). Returns
 * its descriptor, or -1 with ctx->err set.
 */
static int
sendfile_open(struct test_ctx *ctx, size_t size, int width, off_t off)
{
	const char *path = ctx->p->fill_file;
	off_t need = off + (off_t)size * width;
	struct stat st;
	int fd;

	if (path[0] != '\0') {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return err_set(ctx->err, "-F: cannot open %s: %s", path,
				       strerror(errno));
		if (fstat(fd, &st) < 0) {
			close(fd);
			return err_set(ctx->err, "-F: cannot stat %s: %s", path,
				       strerror(errno));
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			return err_set(ctx->err,
				       "-F: %s is not a regular file, which "
				       "TCP_SENDFILE needs",
				       path);
		}
		if (st.st_size < need) {
			close(fd);
			return err_set(ctx->err,
				       "-F: %s is too small: %lld bytes, where "
				       "TCP_SENDFILE needs %lld (%d sends of "
				       "%zu bytes, -W or the send buffer over "
				       "-m plus one, from offset %lld)",
				       path, (long long)st.st_size,
				       (long long)need, width, size,
				       (long long)off);
		}
		return fd;
	}
	fd = memfd_create("netperf-sendfile", MFD_CLOEXEC);
	if (fd < 0)
		return err_set(ctx->err, "TCP_SENDFILE: memfd_create: %s",
			       strerror(errno));
	for (off_t at = 0; at < need;) {
		size_t n = ctx->buflen;
		ssize_t w;

		if ((off_t)n > need - at)
			n = (size_t)(need - at);
		w = pwrite(fd, ctx->buf, n, at);
		if (w <= 0) {
			close(fd);
			return err_set(ctx->err,
				       "TCP_SENDFILE: cannot write its "
				       "%lld-byte file in memory: %s",
				       (long long)need,
				       w < 0 ? strerror(errno) : "no space");
		}
		at += w;
	}
	return fd;
}

int
sendfile_send(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->send_size, want;
	uint64_t left = p->duration > 0 ? 0 : (uint64_t)p->count;
	uint64_t now, then, progress;
	off_t base = p->lbuf.soff, pos;
	int width = p->lbuf.width, slot = 0, file;
	ssize_t n;

	/* 2.7's ring: -W's width, else as many sends as the send buffer
	 * holds, plus one, and at least two. */
	if (width <= 0)
		width = r->sndbuf > 0 ? (int)((size_t)r->sndbuf / size) + 1 : 2;
	if (width < 2)
		width = 2;
	file = sendfile_open(ctx, size, width, base);
	if (file < 0)
		return -1;
	snprintf(r->path, sizeof(r->path), "sendfile");
	now = progress = clock_ns();
	for (;;) {
		if (*ctx->stop)
			break;
		if (ctx->end_ns != 0 ? now >= ctx->end_ns
				     : r->bytes_sent >= left)
			break;
		want = size;
		if (ctx->end_ns == 0 && left - r->bytes_sent < want)
			want = (size_t)(left - r->bytes_sent);
		pos = base + (off_t)slot * (off_t)size;
		/* A closed peer raises SIGPIPE here, which netperf
		 * ignores: the call fails with EPIPE. */
		n = sendfile(ctx->fd, file, &pos, want);
		then = now;
		now = clock_ns();
		if (n > 0) {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
			progress = now;
			slot = (slot + 1) % width;
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			continue;
		}
		if (n == 0) {
			close(file);
			return err_set(ctx->err, "-F: the file shrank during "
						 "the test");
		}
		if (errno == EINTR)
			continue;
		if (ctx->untagged && (errno == EPIPE || errno == ECONNRESET)) {
			close(file);
			return 0;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			close(file);
			return err_set(ctx->err,
				       "data connection: sendfile: %s",
				       strerror(errno));
		}
		if (module_stalled(ctx, now, progress, "kept the test going") <
		    0) {
			close(file);
			return -1;
		}
	}
	close(file);
	r->syscalls = r->send_calls;
	return finish_send(ctx);
}

/*
 * -V, netperf 2.7's copy avoidance on Linux: data goes from the socket
 * into a pipe and from the pipe into /dev/null, never through this
 * process's memory.
 */
struct splice_sink {
	int pipe[2];
	int null;
};

static int
splice_open(struct splice_sink *s, size_t size, char *err)
{
	s->pipe[0] = s->pipe[1] = s->null = -1;
	if (pipe2(s->pipe, O_CLOEXEC) < 0)
		return err_set(err, "-V: pipe: %s", strerror(errno));
	s->null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (s->null < 0) {
		close(s->pipe[0]);
		close(s->pipe[1]);
		return err_set(err, "-V: /dev/null: %s", strerror(errno));
	}
	/* A pipe holds 64 KB unless told more: a receive as large as
	 * asked, up to what the system allows an unprivileged pipe. */
	if (size > 65536)
		fcntl(s->pipe[1], F_SETPIPE_SZ, (int)(size < 1048576 ? size
								    : 1048576));
	return 0;
}

static void
splice_close(struct splice_sink *s)
{
	close(s->pipe[0]);
	close(s->pipe[1]);
	close(s->null);
}

/* One receive of at most size bytes, as recv(2) answers: the bytes
 * taken, 0 at the end of the stream, -1 with errno (EAGAIN when the
 * socket's receive timeout passed). */
static ssize_t
splice_recv(struct splice_sink *s, int fd, size_t size)
{
	ssize_t n = splice(fd, NULL, s->pipe[1], NULL, size, SPLICE_F_MOVE);
	ssize_t left = n, m;

	while (left > 0) {
		m = splice(s->pipe[0], NULL, s->null, NULL, (size_t)left,
			   SPLICE_F_MOVE);
		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return -1;
		left -= m;
	}
	return n;
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

/* The receiving loop; sink is NULL to recv(2) into the buffer. */
static int
recv_loop(struct test_ctx *ctx, struct splice_sink *sink)
{
	struct side_result *r = ctx->r;
	size_t size = (size_t)r->recv_size;
	uint64_t now = clock_ns(), then, progress = now;
	uint64_t most = ctx->p->count > 0 ? count_bound(ctx) : 0;
	/* --skip-rx-copy: TCP drops what MSG_TRUNC asks for, uncopied,
	 * and returns its length. */
	int flags = ctx->p->skip_rx_copy ? MSG_TRUNC : 0;
	ssize_t n;

	for (;;) {
		n = sink != NULL ? splice_recv(sink, ctx->fd, size)
				 : recv(ctx->fd, ctx->buf, size, flags);
		then = now;
		now = clock_ns();
		if (n > 0) {
			r->bytes_recv += (uint64_t)n;
			r->recv_calls++;
			progress = now;
			if (ctx->hist != NULL)
				stats_hist_add(ctx->hist, now - then);
			if (ctx->end_own && ctx->end_ns != 0 &&
			    now >= ctx->end_ns)
				break;
			/* A sender that never stops must not hold this end:
			 * not past the end of a timed test, nor past the
			 * bytes asked for in a counted one. */
			if (module_overtime(ctx, now, "kept sending data") < 0)
				return -1;
			if (ctx->end_ns == 0 && ctx->p->count > 0 &&
			    r->bytes_recv > most)
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
		if (ctx->untagged && errno == ECONNRESET)
			break;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(ctx->err, "data connection: recv: %s",
				       strerror(errno));
		if (*ctx->stop)
			break;
		if (module_stalled(ctx, now, progress,
				   "kept sending data") < 0)
			return -1;
	}
	r->syscalls = r->recv_calls;
	/* The sender waits for this close to end its interval. */
	shutdown(ctx->fd, SHUT_WR);
	return 0;
}

int
stream_recv(struct test_ctx *ctx)
{
	struct splice_sink sink;
	int rc;

	if (strcmp(ctx->r->path, "splice") != 0)
		return recv_loop(ctx, NULL);
	if (splice_open(&sink, (size_t)ctx->r->recv_size, ctx->err) < 0)
		return -1;
	rc = recv_loop(ctx, &sink);
	splice_close(&sink);
	return rc;
}

/* Sleeps until the monotonic deadline t; pacing uses it when ahead. */
static void
sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / NS_PER_SEC), (long)(t % NS_PER_SEC)};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* How the sender hands datagrams to the kernel: one send() each, a
 * sendmmsg() of up to k, or one UDP_SEGMENT send of k back to back. */
enum udp_tx_path { TX_SEND, TX_MMSG, TX_GSO };

struct udp_tx {
	enum udp_tx_path path;
	size_t size; /* bytes a datagram */
	int k;	     /* datagrams a call at most */
	char *gso;   /* GSO: k datagrams, each with its own header */
	char *hdrs;  /* sendmmsg: k headers of MODULE_UDP_HDR bytes */
	struct mmsghdr *msgs;
	struct iovec *iov;
};

/* Sets up the sender's path from its context; returns 0, or -1 with
 * ctx->err set. */
static int
udp_tx_init(struct test_ctx *ctx, struct udp_tx *tx)
{
	const struct test_params *p = ctx->p;
	int i;

	memset(tx, 0, sizeof(*tx));
	tx->size = (size_t)ctx->r->send_size;
	tx->k = 1;
	tx->path = TX_SEND;
	if (strcmp(ctx->r->path, "gso") == 0) {
		tx->path = TX_GSO;
		tx->k = (int)(MODULE_UDP_MAX / tx->size);
		if (tx->k > FAST_GSO_SEGS)
			tx->k = FAST_GSO_SEGS;
		if (tx->k < 1)
			tx->k = 1;
		tx->gso = malloc((size_t)tx->k * tx->size);
		if (tx->gso == NULL)
			return err_set(ctx->err, "out of memory");
		for (i = 0; i < tx->k; i++)
			memcpy(tx->gso + (size_t)i * tx->size, ctx->buf,
			       tx->size);
	} else if (p->batch > 1) {
		tx->path = TX_MMSG;
		tx->k = p->batch;
		tx->hdrs = malloc((size_t)tx->k * MODULE_UDP_HDR);
		tx->msgs = calloc((size_t)tx->k, sizeof(*tx->msgs));
		tx->iov = calloc(2 * (size_t)tx->k, sizeof(*tx->iov));
		if (tx->hdrs == NULL || tx->msgs == NULL || tx->iov == NULL)
			return err_set(ctx->err, "out of memory");
		/* Each datagram: its own header, then the shared payload. */
		for (i = 0; i < tx->k; i++) {
			tx->iov[2 * i].iov_base =
			    tx->hdrs + (size_t)i * MODULE_UDP_HDR;
			tx->iov[2 * i].iov_len = MODULE_UDP_HDR;
			tx->iov[2 * i + 1].iov_base = ctx->buf + MODULE_UDP_HDR;
			tx->iov[2 * i + 1].iov_len = tx->size - MODULE_UDP_HDR;
			tx->msgs[i].msg_hdr.msg_iov = &tx->iov[2 * i];
			tx->msgs[i].msg_hdr.msg_iovlen = 2;
		}
	}
	return 0;
}

static void
udp_tx_free(struct udp_tx *tx)
{
	free(tx->gso);
	free(tx->hdrs);
	free(tx->msgs);
	free(tx->iov);
}

/* One call: datagrams seq to seq + want - 1, stamped now; a call a
 * datagram sends buf (the ring's next, -k/-K touched), with write() under
 * -I. Returns the datagrams the kernel took, or -1 with errno set. */
static ssize_t
udp_tx_call(struct test_ctx *ctx, struct udp_tx *tx, char *buf, uint64_t seq,
	    int want, uint64_t now)
{
	ssize_t n;
	int i;

	switch (tx->path) {
	case TX_MMSG:
		for (i = 0; i < want; i++) {
			be64_put(tx->hdrs + (size_t)i * MODULE_UDP_HDR,
				 seq + (uint64_t)i);
			be64_put(tx->hdrs + (size_t)i * MODULE_UDP_HDR + 8,
				 now);
		}
		return sendmmsg(ctx->fd, tx->msgs, (unsigned)want, 0);
	case TX_GSO:
		/* The kernel cuts the buffer every tx->size bytes: every
		 * piece is a datagram with its own header. */
		for (i = 0; i < want; i++) {
			be64_put(tx->gso + (size_t)i * tx->size,
				 seq + (uint64_t)i);
			be64_put(tx->gso + (size_t)i * tx->size + 8, now);
		}
		n = send(ctx->fd, tx->gso, (size_t)want * tx->size, 0);
		return n < 0 ? -1 : n / (ssize_t)tx->size;
	case TX_SEND:
	default:
		be64_put(buf, seq);
		be64_put(buf + 8, now);
		n = ctx->p->use_write ? write(ctx->fd, buf, tx->size)
				      : send(ctx->fd, buf, tx->size, 0);
		return n < 0 ? -1 : 1;
	}
}

/* Datagrams for the next call: a batch, or what a count has left. */
static inline int
udp_want(const struct test_ctx *ctx, const struct udp_tx *tx, uint64_t left)
{
	uint64_t more;

	if (ctx->end_ns != 0)
		return tx->k;
	more = (left - ctx->r->bytes_sent + tx->size - 1) / tx->size;
	return more < (uint64_t)tx->k ? (int)more : tx->k;
}

/*
 * A send that failed with errno e: 0 to go on (EINTR; a full queue, which
 * is the network's answer, counted as netperf's "Errors" column does), or
 * -1 with ctx->err set.
 */
static int
udp_send_failed(struct test_ctx *ctx, const struct udp_tx *tx, int e,
		uint64_t now, uint64_t progress)
{
	const char *name;

	if (e == EINTR)
		return 0;
	if (e == ENOBUFS || e == EAGAIN || e == EWOULDBLOCK) {
		ctx->r->send_errors++;
		return module_stalled(ctx, now, progress,
				      "kept the test going");
	}
	if (tx->path == TX_GSO && (e == EINVAL || e == EIO || e == EMSGSIZE)) {
		name = strerrorname_np(e);
		return err_set(ctx->err,
			       "--udp-gso: the kernel refused UDP_SEGMENT "
			       "(%s): %zu-byte datagrams must fit the path's "
			       "MTU and the route must offer checksum "
			       "offload",
			       name != NULL ? name : "?", tx->size);
	}
	return err_set(ctx->err, "data socket: %s: %s",
		       tx->path == TX_MMSG ? "sendmmsg" : "send", strerror(e));
}

int
udp_stream_send(struct test_ctx *ctx)
{
	struct side_result *r = ctx->r;
	uint64_t left = ctx->p->duration > 0 ? 0 : (uint64_t)ctx->p->count;
	uint64_t now = clock_ns(), then, progress = now, seq = 0;
	uint64_t gap = 0, next = now;
	struct udp_tx tx;
	ssize_t n;
	char *buf;
	int want, e, one = 0;

	if (udp_tx_init(ctx, &tx) < 0) {
		udp_tx_free(&tx);
		return -1;
	}
	/* --rate: one datagram every gap ns, scheduled on absolute times so
	 * the offered rate does not drift; a call of k waits k gaps. */
	if (ctx->p->rate > 0)
		gap = (uint64_t)((double)tx.size * 8 * 1e9 / ctx->p->rate);
	for (;;) {
		if (*ctx->stop)
			break;
		if (ctx->end_ns != 0 ? now >= ctx->end_ns
				     : r->bytes_sent >= left)
			break;
		want = one ? 1 : udp_want(ctx, &tx, left);
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
		n = udp_tx_call(ctx, &tx, buf, seq, want, now);
		e = errno;
		then = now;
		now = clock_ns();
		if (n >= 0) {
			r->bytes_sent += (uint64_t)n * tx.size;
			r->send_calls += (uint64_t)n;
			r->syscalls++;
			seq += (uint64_t)n;
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
		if (udp_send_failed(ctx, &tx, e, now, progress) < 0)
			goto fail;
	}
	udp_tx_free(&tx);
	module_udp_end(ctx);
	return 0;
fail:
	udp_tx_free(&tx);
	return -1;
}

/* Sequence numbers remembered for telling duplicates from late arrivals. */
#define UDP_WINDOW 65536

/* How the receiver takes datagrams: one recv() each, a recvmmsg() of up
 * to k, or a UDP_GRO receive of a coalesced buffer. */
enum udp_rx_path { RX_RECV, RX_MMSG, RX_GRO };

/*
 * How the next read waits. A receiver that blocks as soon as its queue is
 * empty is woken once a datagram, and on loopback the sender's CPU pays
 * for every wake-up. So once data flows the receiver drains the queue,
 * then naps a few microseconds off the socket before it looks again, and
 * blocks only when a nap brought nothing. The nap adapts to keep the
 * queue under half full (udp_rx_nap); without SO_MEMINFO the receiver
 * blocks at once, as 2.7's does. Every datagram carries the kernel's
 * arrival stamp, so jitter and the elapsed time do not depend on when it
 * was read.
 */
enum udp_rx_wait { RX_BLOCK, RX_DRAIN, RX_NAPPED };
#define RX_NAP_START 20000ULL /* ns */
#define RX_NAP_MIN 5000ULL
#define RX_NAP_MAX 200000ULL
/* Control space for a datagram's UDP_GRO size and arrival stamp. */
#define RX_CONTROL (CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec)))

/* The receiver's account: the window of sequence numbers, the jitter
 * estimate and the path's buffers. */
struct udp_rx {
	enum udp_rx_path path;
	uint64_t next;	     /* one past the highest sequence seen */
	unsigned char *seen; /* UDP_WINDOW bits */
	int64_t prev_transit;
	int have_prev;
	double jitter;
	uint64_t now;	 /* this call's return */
	uint64_t at;	 /* the datagram's arrival, from the kernel's stamp */
	uint64_t last;	 /* the latest arrival of data */
	int64_t real_off; /* CLOCK_REALTIME less CLOCK_MONOTONIC, in ns */
	int stamped;	  /* the kernel stamps arrivals (SO_TIMESTAMPNS) */
	enum udp_rx_wait wait;
	uint64_t nap;	  /* ns; 0: block as soon as the queue is empty */
	uint64_t nap_was; /* the nap before the last one lengthened it */
	int slack;	  /* the thread's timer slack before the test */
	uint64_t naps, nap_drops; /* naps, and those the socket dropped in */
	int end;	  /* an end marker came */
	int untagged;	  /* a netperf 2.7 sender: no header of ours */
	int k;		  /* recvmmsg: buffers */
	size_t size;	  /* bytes a buffer */
	char *bufs;
	char *control; /* k (or 1) control buffers of RX_CONTROL bytes */
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct test_ctx *ctx; /* for the token, echoed when it comes again */
};

static int
udp_rx_init(struct test_ctx *ctx, struct udp_rx *rx)
{
	int i;

	memset(rx, 0, sizeof(*rx));
	rx->ctx = ctx;
	rx->seen = calloc(UDP_WINDOW / 8, 1);
	if (rx->seen == NULL)
		return err_set(ctx->err, "out of memory");
	rx->path = RX_RECV;
	rx->untagged = ctx->untagged;
	rx->size = ctx->buflen;
	rx->bufs = ctx->buf;
	rx->real_off = clock_real_ns() - (int64_t)clock_ns();
	rx->nap = RX_NAP_START;
	rx->wait = RX_BLOCK;
	/* A nap of microseconds needs a timer that fires on time. */
	rx->slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	/* Without the kernel's stamps, a datagram's arrival is its read. */
	rx->stamped = setsockopt(ctx->fd, SOL_SOCKET, SO_TIMESTAMPNS,
				 &(int){1}, sizeof(int)) == 0;
	rx->control = calloc(ctx->p->batch > 1 ? (size_t)ctx->p->batch : 1,
			     RX_CONTROL);
	if (rx->control == NULL)
		return err_set(ctx->err, "out of memory");
	if (strcmp(ctx->r->path, "gro") == 0) {
		rx->path = RX_GRO;
		/* A coalesced buffer may hold a whole IP packet's worth. */
		if (rx->size < FAST_GRO_BUF) {
			rx->size = FAST_GRO_BUF;
			rx->bufs = malloc(rx->size);
			if (rx->bufs == NULL)
				return err_set(ctx->err, "out of memory");
		}
	} else if (ctx->p->batch > 1) {
		rx->path = RX_MMSG;
		rx->k = ctx->p->batch;
		rx->bufs = malloc((size_t)rx->k * rx->size);
		rx->msgs = calloc((size_t)rx->k, sizeof(*rx->msgs));
		rx->iov = calloc((size_t)rx->k, sizeof(*rx->iov));
		if (rx->bufs == NULL || rx->msgs == NULL || rx->iov == NULL)
			return err_set(ctx->err, "out of memory");
		for (i = 0; i < rx->k; i++) {
			rx->iov[i].iov_base = rx->bufs + (size_t)i * rx->size;
			rx->iov[i].iov_len = rx->size;
			rx->msgs[i].msg_hdr.msg_iov = &rx->iov[i];
			rx->msgs[i].msg_hdr.msg_iovlen = 1;
			rx->msgs[i].msg_hdr.msg_control =
			    rx->control + (size_t)i * RX_CONTROL;
		}
	}
	return 0;
}

static void
udp_rx_free(struct test_ctx *ctx, struct udp_rx *rx)
{
	free(rx->seen);
	if (rx->bufs != ctx->buf)
		free(rx->bufs);
	free(rx->control);
	free(rx->msgs);
	free(rx->iov);
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
	struct side_result *r = ctx->r;
	struct iovec iov;
	struct msghdr msg;
	size_t gs, off, seg;
	ssize_t n;
	int k, i, e;

	if (rx->path == RX_MMSG) {
		for (i = 0; i < rx->k; i++)
			rx->msgs[i].msg_hdr.msg_controllen = RX_CONTROL;
		k = recvmmsg(ctx->fd, rx->msgs, (unsigned)rx->k,
			     flags | MSG_WAITFORONE, NULL);
		e = errno;
		rx->now = clock_ns();
		if (k < 0) {
			errno = e;
			return -1;
		}
		r->syscalls++;
		for (i = 0; i < k; i++) {
			rx_control(rx, &rx->msgs[i].msg_hdr);
			udp_rx_take(rx, r, rx->bufs + (size_t)i * rx->size,
				    rx->msgs[i].msg_len);
		}
		return 0;
	}
	iov.iov_base = rx->bufs;
	iov.iov_len = rx->size;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = rx->control;
	msg.msg_controllen = RX_CONTROL;
	n = recvmsg(ctx->fd, &msg, flags);
	e = errno;
	rx->now = clock_ns();
	if (n < 0) {
		errno = e;
		return -1;
	}
	r->syscalls++;
	/* Coalesced datagrams (UDP_GRO) are gso_size bytes each, the last
	 * perhaps shorter: cut them apart and take each. */
	gs = rx_control(rx, &msg);
	if (rx->path != RX_GRO || gs == 0 || gs >= (size_t)n) {
		udp_rx_take(rx, r, rx->bufs, (size_t)n);
		return 0;
	}
	r->coalesced++;
	for (off = 0; off < (size_t)n; off += gs) {
		seg = (size_t)n - off < gs ? (size_t)n - off : gs;
		udp_rx_take(rx, r, rx->bufs + off, seg);
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
 * SO_MEMINFO the receiver does not nap. */
static void
udp_rx_nap(int fd, struct udp_rx *rx)
{
	struct timespec ts = {0, (long)rx->nap};
	uint32_t used, size, before, after;

	if (rx_meminfo(fd, &used, &size, &before) < 0) {
		rx->nap = 0;
		return;
	}
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	rx->naps++;
	if (rx_meminfo(fd, &used, &size, &after) < 0) {
		rx->nap = 0;
		return;
	}
	if (after != before)
		rx->nap_drops++;
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
	int stopping = 0, rc;

	if (udp_rx_init(ctx, &rx) < 0)
		goto fail;
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
			rx.nap_was = 0;
			rx.wait = RX_DRAIN;
			if (rx.end)
				stopping = 1;
		} else if (errno == EINTR) {
			continue;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
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
			 * not an end marker got through. */
			if (ctx->ctl < 0 && ctx->end_ns != 0 &&
			    rx.now >= ctx->end_ns + NS_PER_SEC / 2)
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
	udp_rx_free(ctx, &rx);
	return 0;
fail:
	udp_rx_free(ctx, &rx);
	return -1;
}
