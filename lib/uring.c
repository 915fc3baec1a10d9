#include "np/uring.h"

#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "np/clock.h"
#include "np/err.h"

/* Older headers lack these; the values are the kernel's ABI (6.2). */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

/* The submission queue's depth: a send and a receive at most are in
 * flight, and a multishot receive's completions queue in the larger
 * completion ring. */
#define URING_ENTRIES 16
/* Provided buffers for a multishot receive, at most, and the most
 * memory they take a loop. */
#define URING_BUFS 16
#define URING_BUFS_BYTES (8u << 20)
/* Receive completions a loop holds at most: one a provided buffer, and
 * the one that ends a multishot. */
#define URING_QLEN (URING_BUFS + 2)
/* The buffer group of the provided buffers (one a ring). */
#define URING_BGID 0
/* What a completion answers (user_data). */
enum { URING_TX = 1, URING_RX = 2 };

/* One receive completion taken off the ring before the loop asked. */
struct uring_rx {
	int res;
	unsigned flags;
};

/* A loop's ring (io->priv). */
struct uring {
	struct io_uring ring;
	struct side_result *r;
	/* The registered buffer (index 0): the context's buffer ring. */
	char *reg;
	size_t reglen;
	/* --zerocopy: sends by IORING_OP_SEND_ZC. */
	int zc;
	/* Multishot: the provided buffers, their ring, and the buffer
	 * being read (a stream's completion may outlast one recv). */
	int mshot;
	struct io_uring_buf_ring *br;
	size_t brlen, bufsz;
	char *bufs;
	int nbufs;
	char *chunk;
	size_t chunk_left;
	int chunk_bid;
	/* Receive completions not yet read, oldest at qhead. */
	struct uring_rx q[URING_QLEN];
	int qhead, qn;
	/* A receive (single or multishot) and a send are in flight; the
	 * send's result once it came. */
	int rx_armed, tx_busy, tx_done;
	int tx_res;
	/* io_uring_enter calls; SEND_ZC sends that owe a notice. */
	uint64_t enters, zc_sent;
};

/* ---- what the kernel has ------------------------------------------------- */

static struct uring_caps caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

/* Whether a provided buffer ring registers (5.19). */
static int
probe_buf_ring(struct io_uring *ring)
{
	size_t len = 4096;
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct io_uring_buf_reg reg = {.ring_entries = 1, .bgid = URING_BGID};
	int ok;

	if (mem == MAP_FAILED)
		return 0;
	reg.ring_addr = (unsigned long)mem;
	ok = io_uring_register_buf_ring(ring, &reg, 0) == 0;
	if (ok)
		io_uring_unregister_buf_ring(ring, URING_BGID);
	munmap(mem, len);
	return ok;
}

static void
caps_probe(void)
{
	struct io_uring ring;
	struct io_uring_probe *pr;
	int rc = io_uring_queue_init(2, &ring, 0);

	if (rc < 0) {
		caps.err = -rc;
		return;
	}
	pr = io_uring_get_probe_ring(&ring);
	if (pr != NULL) {
		caps.fixed =
		    io_uring_opcode_supported(pr, IORING_OP_READ_FIXED) &&
		    io_uring_opcode_supported(pr, IORING_OP_WRITE_FIXED);
		caps.send_zc = io_uring_opcode_supported(pr, IORING_OP_SEND_ZC);
		/* The probe lists operations, not their flags: multishot
		 * recv came in 6.0 with SEND_ZC, on top of the provided
		 * buffer rings of 5.19. */
		caps.multishot =
		    caps.send_zc &&
		    io_uring_opcode_supported(pr, IORING_OP_RECV) &&
		    probe_buf_ring(&ring);
		io_uring_free_probe(pr);
	}
	io_uring_queue_exit(&ring);
	/* A test's hooks (tests/check_uring.c): the rows and refusals of a
	 * kernel without multishot receive, or without SEND_ZC. */
	if (getenv("NETPERF_TEST_URING_NO_MULTISHOT") != NULL)
		caps.multishot = 0;
	if (getenv("NETPERF_TEST_URING_NO_SEND_ZC") != NULL)
		caps.send_zc = 0;
}

const struct uring_caps *
uring_caps(void)
{
	pthread_once(&caps_once, caps_probe);
	return &caps;
}

/* ---- which side takes which row ------------------------------------------ */

/* TCP_STREAM or TCP_MAERTS under --io-uring. */
static int
bulk(const struct test_module *m, const struct test_params *p)
{
	return p->io_uring && module_has(m, MODULE_F_IO_URING) &&
	       !module_is_rr(m);
}

static int
rr(const struct test_module *m, const struct test_params *p)
{
	return p->io_uring && module_has(m, MODULE_F_IO_URING) &&
	       module_is_rr(m);
}

int
uring_takes_send_zc(const struct test_module *m, const struct test_params *p,
		    int sender)
{
	return bulk(m, p) && sender && p->zerocopy;
}

int
uring_takes_send(const struct test_module *m, const struct test_params *p,
		 int sender)
{
	return bulk(m, p) && sender;
}

int
uring_takes_recv_mshot(const struct test_module *m, const struct test_params *p,
		       int sender)
{
	return bulk(m, p) && !sender && uring_caps()->multishot;
}

int
uring_takes_recv(const struct test_module *m, const struct test_params *p,
		 int sender)
{
	return bulk(m, p) && !sender;
}

int
uring_takes_rr_mshot(const struct test_module *m, const struct test_params *p,
		     int sender)
{
	(void)sender;
	return rr(m, p) && uring_caps()->multishot;
}

int
uring_takes_rr(const struct test_module *m, const struct test_params *p,
	       int sender)
{
	(void)sender;
	return rr(m, p);
}

int
uring_setup(int fd, const struct test_params *p, const struct side_result *r,
	    char *err)
{
	const struct uring_caps *c = uring_caps();
	const char *name = strerrorname_np(c->err);

	(void)fd;
	(void)p;
	(void)r;
	if (c->err != 0)
		return err_set(err,
			       "--io-uring: this kernel refuses io_uring "
			       "(%s: %s)",
			       name != NULL ? name : "?", strerror(c->err));
	if (!c->fixed)
		return err_set(err, "--io-uring: this kernel's io_uring has "
				    "no READ_FIXED and WRITE_FIXED");
	return 0;
}

int
uring_setup_zc(int fd, const struct test_params *p, const struct side_result *r,
	       char *err)
{
	if (uring_setup(fd, p, r, err) < 0)
		return -1;
	if (!uring_caps()->send_zc)
		return err_set(err, "--io-uring --zerocopy: this kernel has no "
				    "IORING_OP_SEND_ZC (Linux 6.0 or later)");
	return 0;
}

/* ---- the ring ------------------------------------------------------------ */

/* "--io-uring: what (ENOMEM: ...)" into the context's err; -1. */
static int
failed(struct datapath_io *io, const char *what, int e)
{
	const char *name = strerrorname_np(e);

	return err_set(io->ctx->err, "--io-uring: %s (%s: %s)", what,
		       name != NULL ? name : "?", strerror(e));
}

/* The provided buffers of a multishot receive: as many of the
 * context's size as URING_BUFS_BYTES holds, a power of two, 2 at
 * least. */
static int
bufs_open(struct datapath_io *io, struct uring *u)
{
	int i, rc;
	struct io_uring_buf_reg reg = {.bgid = URING_BGID};

	u->bufsz = io->ctx->buflen;
	u->nbufs = URING_BUFS;
	while (u->nbufs > 2 && (size_t)u->nbufs * u->bufsz > URING_BUFS_BYTES)
		u->nbufs /= 2;
	u->brlen = (size_t)u->nbufs * sizeof(struct io_uring_buf);
	u->br = mmap(NULL, u->brlen, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->br == MAP_FAILED) {
		u->br = NULL;
		return failed(io, "cannot map the provided buffers' ring",
			      errno);
	}
	u->bufs = malloc((size_t)u->nbufs * u->bufsz);
	if (u->bufs == NULL)
		return err_set(io->ctx->err, "out of memory");
	reg.ring_addr = (unsigned long)u->br;
	reg.ring_entries = (unsigned)u->nbufs;
	rc = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (rc < 0) {
		munmap(u->br, u->brlen);
		u->br = NULL;
		return failed(io, "cannot register the provided buffers", -rc);
	}
	io_uring_buf_ring_init(u->br);
	for (i = 0; i < u->nbufs; i++)
		io_uring_buf_ring_add(
		    u->br, u->bufs + (size_t)i * u->bufsz, (unsigned)u->bufsz,
		    (unsigned short)i,
		    io_uring_buf_ring_mask((unsigned)u->nbufs), i);
	io_uring_buf_ring_advance(u->br, u->nbufs);
	return 0;
}

static int
open_ring(struct datapath_io *io, int zc, int mshot)
{
	struct test_ctx *ctx = io->ctx;
	struct io_uring_params prm = {0};
	struct timeval tv = {0};
	socklen_t tvlen = sizeof(tv);
	struct iovec iov;
	struct uring *u;
	int rc;

	u = calloc(1, sizeof(*u));
	if (u == NULL)
		return err_set(ctx->err, "out of memory");
	io->priv = u;
	u->r = ctx->r;
	u->zc = zc;
	u->mshot = mshot;
	/* One thread submits and reaps, and the completions' work runs
	 * when it waits for them (6.1); an older kernel takes the
	 * default. */
	prm.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	rc = io_uring_queue_init_params(URING_ENTRIES, &u->ring, &prm);
	if (rc == -EINVAL) {
		memset(&prm, 0, sizeof(prm));
		rc = io_uring_queue_init_params(URING_ENTRIES, &u->ring, &prm);
	}
	if (rc < 0) {
		free(u);
		io->priv = NULL;
		return failed(io, "cannot set up a ring", -rc);
	}
	rc = io_uring_register_files(&u->ring, &ctx->fd, 1);
	if (rc < 0)
		return failed(io, "cannot register the data socket", -rc);
	/* The buffer, and with a ring (-W) its every slot. */
	u->reg = ctx->buf;
	u->reglen = ctx->buflen;
	if (ctx->width > 1)
		u->reglen += (size_t)(ctx->width - 1) * ctx->stride;
	iov.iov_base = u->reg;
	iov.iov_len = u->reglen;
	rc = io_uring_register_buffers(&u->ring, &iov, 1);
	if (rc < 0)
		return failed(io,
			      rc == -ENOMEM ? "cannot register the buffer "
					      "(ulimit -l too low?)"
					    : "cannot register the buffer",
			      -rc);
	if (mshot && bufs_open(io, u) < 0)
		return -1;
	/* The socket's own time-out, as a plain recv would wait. */
	if (getsockopt(ctx->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &tvlen) == 0)
		io->wait_ns = (uint64_t)tv.tv_sec * NS_PER_SEC +
			      (uint64_t)tv.tv_usec * 1000;
	return 0;
}

int
uring_open(struct datapath_io *io)
{
	return open_ring(io, 0, 0);
}

int
uring_open_zc(struct datapath_io *io)
{
	return open_ring(io, 1, 0);
}

int
uring_open_mshot(struct datapath_io *io)
{
	return open_ring(io, 0, 1);
}

void
uring_close(struct datapath_io *io)
{
	struct uring *u = io->priv;

	if (u == NULL)
		return;
	/* Cancels what is in flight and unregisters everything. */
	io_uring_queue_exit(&u->ring);
	if (u->br != NULL)
		munmap(u->br, u->brlen);
	free(u->bufs);
	free(u);
	io->priv = NULL;
}

/* ---- completions ----------------------------------------------------------
 */

/* One completion: a send's result or its zero-copy notice, or a
 * receive's, queued for the loop. */
static void
take(struct uring *u, const struct io_uring_cqe *cqe)
{
	if (cqe->user_data == URING_TX) {
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			u->r->zc_done++;
			if ((unsigned)cqe->res & IORING_NOTIF_USAGE_ZC_COPIED)
				u->r->zc_copied++;
			return;
		}
		u->tx_busy = 0;
		u->tx_done = 1;
		u->tx_res = cqe->res;
		if (cqe->flags & IORING_CQE_F_MORE)
			u->zc_sent++;
		return;
	}
	if (!(cqe->flags & IORING_CQE_F_MORE))
		u->rx_armed = 0;
	/* Never full: a completion holds a buffer until it is read. */
	if (u->qn < URING_QLEN) {
		u->q[(u->qhead + u->qn) % URING_QLEN] =
		    (struct uring_rx){cqe->res, cqe->flags};
		u->qn++;
	}
}

/* Takes what completed; waits (submitting what is queued) when nothing
 * has, for nr completions, at most wait_ns (0: for ever; dontwait: not
 * at all). 0, or a negative errno (-ETIME when the wait ran out, -EINTR
 * on a signal). */
static int
reap(struct uring *u, int dontwait, uint64_t wait_ns, unsigned nr)
{
	struct __kernel_timespec ts = {(long long)(wait_ns / NS_PER_SEC),
				       (long long)(wait_ns % NS_PER_SEC)};
	struct io_uring_cqe *cqe;
	int rc, n = 0;

	if (io_uring_sq_ready(&u->ring) == 0) {
		while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
			take(u, cqe);
			io_uring_cqe_seen(&u->ring, cqe);
			n++;
		}
		if (n > 0)
			return 0;
	}
	if (dontwait)
		ts.tv_sec = ts.tv_nsec = 0;
	u->enters++;
	rc = io_uring_submit_and_wait_timeout(
	    &u->ring, &cqe, nr, dontwait || wait_ns > 0 ? &ts : NULL, NULL);
	if (rc < 0)
		return rc;
	while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		take(u, cqe);
		io_uring_cqe_seen(&u->ring, cqe);
	}
	return 0;
}

/* errno for a wait that ended without the completion wanted. */
static ssize_t
wait_failed(int rc)
{
	errno = rc == -ETIME ? EAGAIN : -rc;
	return -1;
}

/* Whether [buf, buf + len) lies in the registered buffer. */
static int
registered(const struct uring *u, const char *buf, size_t len)
{
	return buf >= u->reg && len <= u->reglen &&
	       (size_t)(buf - u->reg) <= u->reglen - len;
}

ssize_t
uring_send(struct datapath_io *io, char *buf, size_t len)
{
	struct uring *u = io->priv;
	struct io_uring_sqe *sqe;
	int fixed = registered(u, buf, len), rc;

	/* A send still in flight from a call that timed out is this one:
	 * the loop asks again for what it did not see taken. */
	if (!u->tx_busy) {
		sqe = io_uring_get_sqe(&u->ring);
		if (u->zc && fixed)
			io_uring_prep_send_zc_fixed(
			    sqe, 0, buf, len, MSG_NOSIGNAL,
			    IORING_SEND_ZC_REPORT_USAGE, 0);
		else if (u->zc)
			io_uring_prep_send_zc(sqe, 0, buf, len, MSG_NOSIGNAL,
					      IORING_SEND_ZC_REPORT_USAGE);
		else if (fixed)
			io_uring_prep_write_fixed(sqe, 0, buf, (unsigned)len, 0,
						  0);
		else
			io_uring_prep_send(sqe, 0, buf, len, MSG_NOSIGNAL);
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = URING_TX;
		u->tx_busy = 1;
		u->tx_done = 0;
	}
	while (!u->tx_done) {
		rc = reap(u, 0, io->wait_ns, 1);
		if (rc < 0)
			return wait_failed(rc);
	}
	u->tx_done = 0;
	if (u->tx_res < 0) {
		errno = -u->tx_res;
		return -1;
	}
	if (u->tx_res == 0) {
		errno = EAGAIN;
		return -1;
	}
	return u->tx_res;
}

/*
 * A request or an answer: queued, not waited for. The next receive's
 * wait submits it, so a transaction costs one io_uring_enter where
 * send(2) and recv(2) cost two. MSG_WAITALL has the kernel finish a
 * partial send itself; a failure is the next call's. The buffer may be
 * written again once the answer is in: the request was on its way
 * before the answer could come.
 */
ssize_t
uring_send_async(struct datapath_io *io, char *buf, size_t len)
{
	struct uring *u = io->priv;
	struct io_uring_sqe *sqe;
	int rc;

	/* -b: the previous request's send first. */
	while (u->tx_busy) {
		rc = reap(u, 0, io->wait_ns, 1);
		if (rc < 0)
			return wait_failed(rc);
	}
	if (u->tx_done) {
		u->tx_done = 0;
		if (u->tx_res < 0) {
			errno = -u->tx_res;
			return -1;
		}
	}
	sqe = io_uring_get_sqe(&u->ring);
	io_uring_prep_send(sqe, 0, buf, len, MSG_NOSIGNAL | MSG_WAITALL);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = URING_TX;
	u->tx_busy = 1;
	return (ssize_t)len;
}

/* Gives provided buffer bid back to the kernel. */
static void
recycle(struct uring *u, int bid)
{
	io_uring_buf_ring_add(u->br, u->bufs + (size_t)bid * u->bufsz,
			      (unsigned)u->bufsz, (unsigned short)bid,
			      io_uring_buf_ring_mask((unsigned)u->nbufs), 0);
	io_uring_buf_ring_advance(u->br, 1);
}

/* Arms the receive: multishot into the provided buffers, or one read
 * into dst (the registered buffer, else a plain recv). */
static void
arm(struct uring *u, char *dst, size_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (u->mshot) {
		io_uring_prep_recv_multishot(sqe, 0, NULL, 0, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = URING_BGID;
	} else if (registered(u, dst, len)) {
		io_uring_prep_read_fixed(sqe, 0, dst, (unsigned)len, 0, 0);
	} else {
		io_uring_prep_recv(sqe, 0, dst, len, 0);
	}
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = URING_RX;
	u->rx_armed = 1;
}

/* Up to len bytes of the buffer being read, copied to at (none for a
 * stream's receiver, whose bytes are only counted). A datagram is one
 * completion, within len (the buffers are the context's size). */
static ssize_t
chunk_take(struct uring *u, char *at, size_t len)
{
	size_t n = u->chunk_left < len ? u->chunk_left : len;

	if (at != NULL)
		memcpy(at, u->chunk, n);
	u->chunk += n;
	u->chunk_left -= n;
	if (u->chunk_left == 0)
		recycle(u, u->chunk_bid);
	return (ssize_t)n;
}

ssize_t
uring_recv(struct datapath_io *io, size_t len, int flags)
{
	struct uring *u = io->priv;
	char *dst = io->at != NULL ? io->at : io->ctx->buf;
	struct uring_rx c;
	int rc;

	for (;;) {
		if (u->chunk_left > 0)
			return chunk_take(u, io->at, len);
		if (u->qn > 0) {
			c = u->q[u->qhead];
			u->qhead = (u->qhead + 1) % URING_QLEN;
			u->qn--;
			/* Out of provided buffers: the multishot ended, and
			 * is armed again once they are back. */
			if (c.res == -ENOBUFS && u->mshot)
				continue;
			if (c.res < 0) {
				errno = -c.res;
				return -1;
			}
			if (!u->mshot)
				return c.res;
			if (c.res == 0) {
				if (c.flags & IORING_CQE_F_BUFFER)
					recycle(u,
						(int)(c.flags >>
						      IORING_CQE_BUFFER_SHIFT));
				return 0;
			}
			u->chunk_bid =
			    (int)(c.flags >> IORING_CQE_BUFFER_SHIFT);
			u->chunk = u->bufs + (size_t)u->chunk_bid * u->bufsz;
			u->chunk_left = (size_t)c.res;
			continue;
		}
		/* A single read still in flight from a call that timed out
		 * is this one, into the same place. */
		if (!u->rx_armed)
			arm(u, dst, len);
		/* A queued request's send completes before its answer
		 * can come: one wait takes both. */
		rc = reap(u, flags & MSG_DONTWAIT, io->wait_ns,
			  u->tx_busy ? 2 : 1);
		if (rc < 0)
			return wait_failed(rc);
	}
}

int
uring_finish(struct datapath_io *io)
{
	struct uring *u = io->priv;
	struct side_result *r = io->ctx->r;
	uint64_t start = clock_ns();
	int rc;

	/* The last answer's send, queued without a wait. */
	while (u->tx_busy && clock_ns() - start < MODULE_GRACE_SEC * NS_PER_SEC)
		if (reap(u, 0, 100 * 1000000ULL, 1) < 0)
			break;
	/* Every SEND_ZC owes a notice once its pages are free again. */
	while (u->zc && r->zc_done < u->zc_sent) {
		if (clock_ns() - start >= MODULE_GRACE_SEC * NS_PER_SEC)
			return err_set(
			    io->ctx->err,
			    "--io-uring --zerocopy: %llu of %llu sends were "
			    "never reported complete",
			    (unsigned long long)(u->zc_sent - r->zc_done),
			    (unsigned long long)u->zc_sent);
		rc = reap(u, 0, 100 * 1000000ULL, 1);
		if (rc < 0 && rc != -ETIME && rc != -EINTR)
			return err_set(io->ctx->err,
				       "--io-uring --zerocopy: waiting for "
				       "the notices: %s",
				       strerror(-rc));
	}
	r->syscalls = u->enters;
	return 0;
}
