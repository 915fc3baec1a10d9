#include "np/datapath.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np/be.h"
#include "np/clock.h"
#include "np/err.h"
#include "np/fast.h"
#include "np/uring.h"

/* Older headers lack these; the values are the kernel's ABI. */
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

/* "--opt: the kernel refused X (EINVAL: ...)". */
static int
refused(char *err, const char *opt, const char *what, int e)
{
	const char *name = strerrorname_np(e);

	return err_set(err, "%s: the kernel refused %s (%s: %s)", opt, what,
		       name != NULL ? name : "?", strerror(e));
}

/* ---- which side takes which path ---------------------------------------- */

static int
udp_sends(const struct test_module *m, const struct test_params *p, int sender)
{
	(void)p;
	return module_has(m, MODULE_F_UDP_FAST) && sender;
}

static int
udp_recvs(const struct test_module *m, const struct test_params *p, int sender)
{
	(void)p;
	return module_has(m, MODULE_F_UDP_FAST) && !sender;
}

static int
takes_gso(const struct test_module *m, const struct test_params *p, int sender)
{
	return udp_sends(m, p, sender) && p->udp_gso;
}

static int
takes_gro(const struct test_module *m, const struct test_params *p, int sender)
{
	return udp_recvs(m, p, sender) && p->udp_gro;
}

static int
takes_sendmmsg(const struct test_module *m, const struct test_params *p,
	       int sender)
{
	return udp_sends(m, p, sender) && p->batch > 1;
}

static int
takes_recvmmsg(const struct test_module *m, const struct test_params *p,
	       int sender)
{
	return udp_recvs(m, p, sender) && p->batch > 1;
}

/* A one-way stream of bytes over a connection (TCP_STREAM and its kin). */
static int
bulk(const struct test_module *m)
{
	return module_accepts(m) && !module_is_rr(m);
}

static int
tcp_sends(const struct test_module *m, const struct test_params *p, int sender)
{
	(void)p;
	return bulk(m) && sender;
}

static int
tcp_recvs(const struct test_module *m, const struct test_params *p, int sender)
{
	(void)p;
	return bulk(m) && !sender;
}

static int
takes_zerocopy(const struct test_module *m, const struct test_params *p,
	       int sender)
{
	return module_has(m, MODULE_F_TCP_BULK) && sender && p->zerocopy;
}

static int
takes_sendfile(const struct test_module *m, const struct test_params *p,
	       int sender)
{
	(void)p;
	return module_has(m, MODULE_F_SENDFILE) && sender;
}

static int
takes_splice(const struct test_module *m, const struct test_params *p,
	     int sender)
{
	return module_has(m, MODULE_F_TCP_BULK) && !sender && p->splice;
}

static int
takes_trunc(const struct test_module *m, const struct test_params *p,
	    int sender)
{
	return module_has(m, MODULE_F_TCP_BULK) && !sender && p->skip_rx_copy;
}

/* ---- socket options ------------------------------------------------------ */

static int
setup_gso(int fd, const struct test_params *p, const struct side_result *r,
	  char *err)
{
	int v = (int)r->send_size;

	(void)p;
	if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &v, sizeof(v)) < 0)
		return refused(err, "--udp-gso", "UDP_SEGMENT", errno);
	return 0;
}

/* Turns the boolean option on, or says which the kernel refused. */
static int
setup_on(int fd, int level, int opt, const char *flag, const char *what,
	 char *err)
{
	int on = 1;

	if (setsockopt(fd, level, opt, &on, sizeof(on)) < 0)
		return refused(err, flag, what, errno);
	return 0;
}

static int
setup_gro(int fd, const struct test_params *p, const struct side_result *r,
	  char *err)
{
	(void)p;
	(void)r;
	return setup_on(fd, SOL_UDP, UDP_GRO, "--udp-gro", "UDP_GRO", err);
}

static int
setup_zerocopy(int fd, const struct test_params *p,
	       const struct side_result *r, char *err)
{
	(void)p;
	(void)r;
	return setup_on(fd, SOL_SOCKET, SO_ZEROCOPY, "--zerocopy",
			"SO_ZEROCOPY", err);
}

/* ---- streams: send, MSG_ZEROCOPY, sendfile, recv, splice ------------------ */

/* -I: write(), as 2.7's use_write; a closed peer then raises SIGPIPE,
 * which netperf ignores. */
static ssize_t
tcp_send(struct datapath_io *io, char *buf, size_t len)
{
	struct test_ctx *ctx = io->ctx;

	return ctx->p->use_write ? write(ctx->fd, buf, len)
				 : send(ctx->fd, buf, len, MSG_NOSIGNAL);
}

static ssize_t
zc_send(struct datapath_io *io, char *buf, size_t len)
{
	struct test_ctx *ctx = io->ctx;
	ssize_t n = send(ctx->fd, buf, len, MSG_NOSIGNAL | MSG_ZEROCOPY);

	/* The buffer never changes, so completions need not be awaited;
	 * reading them every 32 sends keeps the queue short. */
	if (n > 0 && ((ctx->r->send_calls + 1) & 31) == 0)
		fast_zc_reap(ctx->fd, ctx->r);
	return n;
}

/* Pinned pages beyond the socket's option memory: take the completions
 * that free them and go on. */
static int
zc_failed(struct datapath_io *io, int e)
{
	struct test_ctx *ctx = io->ctx;

	if (e != ENOBUFS)
		return 0;
	ctx->r->send_errors++;
	if (fast_zc_reap(ctx->fd, ctx->r) == 0)
		poll(&(struct pollfd){.fd = ctx->fd}, 1, 10);
	return 1;
}

/* Waits for the error queue to report every send complete, so the
 * completions are counted whole. */
static int
zc_finish(struct datapath_io *io)
{
	struct test_ctx *ctx = io->ctx;
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

/*
 * TCP_SENDFILE's file, which the sends cycle through as 2.7's ring: width
 * slots of size bytes from offset off. -F's file must hold them all (2.7
 * refuses a file smaller than its ring too); without -F, a file in memory
 * of just that size, filled from the buffer (netperf's pattern). Returns
 * its descriptor, or -1 with ctx->err set.
 */
static int
sendfile_file(struct test_ctx *ctx, size_t size, int width, off_t off)
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

static int
sendfile_open(struct datapath_io *io)
{
	struct test_ctx *ctx = io->ctx;
	int width = ctx->p->lbuf.width;

	/* 2.7's ring: -W's width, else as many sends as the send buffer
	 * holds, plus one, and at least two. */
	if (width <= 0)
		width = ctx->r->sndbuf > 0
			    ? (int)((size_t)ctx->r->sndbuf / io->size) + 1
			    : 2;
	if (width < 2)
		width = 2;
	io->width = width;
	io->base = ctx->p->lbuf.soff;
	io->file = sendfile_file(ctx, io->size, width, io->base);
	return io->file < 0 ? -1 : 0;
}

/* The ring's next slot; a file that ends short says ENODATA. A closed
 * peer raises SIGPIPE here, which netperf ignores: the call fails with
 * EPIPE. */
static ssize_t
sendfile_send(struct datapath_io *io, char *buf, size_t len)
{
	off_t pos = io->base + (off_t)io->slot * (off_t)io->size;
	ssize_t n = sendfile(io->ctx->fd, io->file, &pos, len);

	(void)buf;
	if (n > 0)
		io->slot = (io->slot + 1) % io->width;
	if (n == 0) {
		errno = ENODATA;
		return -1;
	}
	return n;
}

static int
sendfile_failed(struct datapath_io *io, int e)
{
	if (e != ENODATA)
		return 0;
	return err_set(io->ctx->err, "-F: the file shrank during the test");
}

static ssize_t
tcp_recv(struct datapath_io *io, size_t len, int flags)
{
	return recv(io->ctx->fd, io->ctx->buf, len, flags);
}

/* --skip-rx-copy: TCP drops what MSG_TRUNC asks for, uncopied, and
 * returns its length, as iperf3's and neper's option does. */
static ssize_t
trunc_recv(struct datapath_io *io, size_t len, int flags)
{
	return recv(io->ctx->fd, io->ctx->buf, len, flags | MSG_TRUNC);
}

/* -V, netperf 2.7's copy avoidance on Linux: data goes from the socket
 * into a pipe and from the pipe into /dev/null, never through this
 * process's memory. */
static int
splice_open(struct datapath_io *io)
{
	size_t size = (size_t)io->ctx->r->recv_size;

	if (pipe2(io->pipe, O_CLOEXEC) < 0)
		return err_set(io->ctx->err, "-V: pipe: %s", strerror(errno));
	io->null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (io->null < 0)
		return err_set(io->ctx->err, "-V: /dev/null: %s",
			       strerror(errno));
	/* A pipe holds 64 KB unless told more: a receive as large as
	 * asked, up to what the system allows an unprivileged pipe. */
	if (size > 65536)
		fcntl(io->pipe[1], F_SETPIPE_SZ,
		      (int)(size < 1048576 ? size : 1048576));
	return 0;
}

/* One receive of at most len bytes, as recv(2) answers. */
static ssize_t
splice_recv(struct datapath_io *io, size_t len, int flags)
{
	ssize_t n = splice(io->ctx->fd, NULL, io->pipe[1], NULL, len,
			   SPLICE_F_MOVE);
	ssize_t left = n, m;

	(void)flags;
	while (left > 0) {
		m = splice(io->pipe[0], NULL, io->null, NULL, (size_t)left,
			   SPLICE_F_MOVE);
		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return -1;
		left -= m;
	}
	return n;
}

/* ---- datagrams: send, sendmmsg, GSO, recv, recvmmsg, GRO ------------------ */

/* Each datagram's header: its sequence number, then its send time. */
static void
udp_stamp(char *p, uint64_t seq, uint64_t now)
{
	be64_put(p, seq);
	be64_put(p + 8, now);
}

/* One datagram, buf (the ring's next, -k/-K touched); write() under -I. */
static ssize_t
udp_send(struct datapath_io *io, char *buf, size_t len)
{
	struct test_ctx *ctx = io->ctx;
	ssize_t n;

	(void)len;
	udp_stamp(buf, io->seq, io->now);
	n = ctx->p->use_write ? write(ctx->fd, buf, io->size)
			      : send(ctx->fd, buf, io->size, 0);
	return n < 0 ? -1 : (ssize_t)io->size;
}

static int
sendmmsg_open(struct datapath_io *io)
{
	struct test_ctx *ctx = io->ctx;
	int i;

	io->k = ctx->p->batch;
	io->hdrs = malloc((size_t)io->k * MODULE_UDP_HDR);
	io->msgs = calloc((size_t)io->k, sizeof(*io->msgs));
	io->iov = calloc(2 * (size_t)io->k, sizeof(*io->iov));
	if (io->hdrs == NULL || io->msgs == NULL || io->iov == NULL)
		return err_set(ctx->err, "out of memory");
	/* Each datagram: its own header, then the shared payload. */
	for (i = 0; i < io->k; i++) {
		io->iov[2 * i].iov_base = io->hdrs + (size_t)i * MODULE_UDP_HDR;
		io->iov[2 * i].iov_len = MODULE_UDP_HDR;
		io->iov[2 * i + 1].iov_base = ctx->buf + MODULE_UDP_HDR;
		io->iov[2 * i + 1].iov_len = io->size - MODULE_UDP_HDR;
		io->msgs[i].msg_hdr.msg_iov = &io->iov[2 * i];
		io->msgs[i].msg_hdr.msg_iovlen = 2;
	}
	return 0;
}

static ssize_t
sendmmsg_send(struct datapath_io *io, char *buf, size_t len)
{
	int want = (int)(len / io->size), i, n;

	(void)buf;
	for (i = 0; i < want; i++)
		udp_stamp(io->hdrs + (size_t)i * MODULE_UDP_HDR,
			  io->seq + (uint64_t)i, io->now);
	n = sendmmsg(io->ctx->fd, io->msgs, (unsigned)want, 0);
	return n < 0 ? -1 : (ssize_t)n * (ssize_t)io->size;
}

static int
gso_open(struct datapath_io *io)
{
	int i;

	io->k = (int)(MODULE_UDP_MAX / io->size);
	if (io->k > FAST_GSO_SEGS)
		io->k = FAST_GSO_SEGS;
	if (io->k < 1)
		io->k = 1;
	io->gso = malloc((size_t)io->k * io->size);
	if (io->gso == NULL)
		return err_set(io->ctx->err, "out of memory");
	for (i = 0; i < io->k; i++)
		memcpy(io->gso + (size_t)i * io->size, io->ctx->buf, io->size);
	return 0;
}

/* The kernel cuts the buffer every io->size bytes: every piece is a
 * datagram with its own header. */
static ssize_t
gso_send(struct datapath_io *io, char *buf, size_t len)
{
	size_t i, want = len / io->size;
	ssize_t n;

	(void)buf;
	for (i = 0; i < want; i++)
		udp_stamp(io->gso + i * io->size, io->seq + i, io->now);
	n = send(io->ctx->fd, io->gso, want * io->size, 0);
	return n < 0 ? -1 : n / (ssize_t)io->size * (ssize_t)io->size;
}

static int
gso_failed(struct datapath_io *io, int e)
{
	const char *name = strerrorname_np(e);

	if (e != EINVAL && e != EIO && e != EMSGSIZE)
		return 0;
	return err_set(io->ctx->err,
		       "--udp-gso: the kernel refused UDP_SEGMENT (%s): "
		       "%zu-byte datagrams must fit the path's MTU and the "
		       "route must offer checksum offload",
		       name != NULL ? name : "?", io->size);
}

/* k receive buffers of size bytes, each a message with its control
 * space (none when control is 0); one of the context's own size is the
 * context's buffer. */
static int
rx_open(struct datapath_io *io, int k, size_t size, int control)
{
	struct test_ctx *ctx = io->ctx;
	int i;

	io->k = k;
	io->size = size;
	io->bufs = k == 1 && size <= ctx->buflen ? ctx->buf
						 : malloc((size_t)k * size);
	io->control = control ? calloc((size_t)k, DATAPATH_RX_CONTROL) : NULL;
	io->msgs = calloc((size_t)k, sizeof(*io->msgs));
	io->iov = calloc((size_t)k, sizeof(*io->iov));
	if (io->bufs == NULL || (control && io->control == NULL) ||
	    io->msgs == NULL || io->iov == NULL)
		return err_set(ctx->err, "out of memory");
	for (i = 0; i < k; i++) {
		io->iov[i].iov_base = io->bufs + (size_t)i * size;
		io->iov[i].iov_len = size;
		io->msgs[i].msg_hdr.msg_iov = &io->iov[i];
		io->msgs[i].msg_hdr.msg_iovlen = 1;
		if (control)
			io->msgs[i].msg_hdr.msg_control =
			    io->control + (size_t)i * DATAPATH_RX_CONTROL;
	}
	return 0;
}

/* A netperf 2.7 sender's datagrams carry no send time, so their arrival
 * stamps would serve nothing: they are read with recv(2) and no control
 * data, as 2.7's netserver reads them. The stamp and recvmsg(2) cost a
 * 64 KB datagram 5 % more CPU (bench/README.md, "Flows that outnumber
 * the CPUs"). */
static int
recv_open(struct datapath_io *io)
{
	return rx_open(io, 1, io->ctx->buflen, !io->ctx->untagged);
}

/* A coalesced buffer may hold a whole IP packet's worth. */
static int
gro_open(struct datapath_io *io)
{
	size_t size = io->ctx->buflen;

	return rx_open(io, 1, size < FAST_GRO_BUF ? FAST_GRO_BUF : size, 1);
}

static int
recvmmsg_open(struct datapath_io *io)
{
	return rx_open(io, io->ctx->p->batch, io->ctx->buflen, 1);
}

/* One datagram (or, under UDP_GRO, a coalesced run) into msgs[0]. */
static ssize_t
udp_recv(struct datapath_io *io, size_t len, int flags)
{
	ssize_t n;

	(void)len;
	if (io->control == NULL)
		n = recv(io->ctx->fd, io->iov[0].iov_base, io->iov[0].iov_len,
			 flags);
	else
		n = recvmsg(io->ctx->fd, &io->msgs[0].msg_hdr, flags);
	if (n < 0)
		return -1;
	io->msgs[0].msg_len = (unsigned)n;
	return 1;
}

static ssize_t
recvmmsg_recv(struct datapath_io *io, size_t len, int flags)
{
	(void)len;
	return recvmmsg(io->ctx->fd, io->msgs, (unsigned)io->k,
			flags | MSG_WAITFORONE, NULL);
}

/* ---- the table ----------------------------------------------------------- */

const struct data_path datapath_table[] = {
    /* --io-uring (uring.c), before every other path it excludes. */
    {.name = "io_uring_sendzc", .call = "io_uring send_zc",
     .takes = uring_takes_send_zc, .setup = uring_setup_zc,
     .open = uring_open_zc, .send = uring_send, .finish = uring_finish,
     .close = uring_close},
    {.name = "io_uring", .call = "io_uring write_fixed",
     .takes = uring_takes_send, .setup = uring_setup, .open = uring_open,
     .send = uring_send, .finish = uring_finish, .close = uring_close},
    {.name = "io_uring_mshot", .call = "io_uring recv",
     .takes = uring_takes_recv_mshot, .setup = uring_setup,
     .open = uring_open_mshot, .recv = uring_recv, .finish = uring_finish,
     .close = uring_close},
    {.name = "io_uring", .call = "io_uring read_fixed",
     .takes = uring_takes_recv, .setup = uring_setup, .open = uring_open,
     .recv = uring_recv, .finish = uring_finish, .close = uring_close},
    {.name = "io_uring_mshot", .call = "io_uring",
     .takes = uring_takes_rr_mshot, .setup = uring_setup,
     .open = uring_open_mshot, .send = uring_send_async,
     .recv = uring_recv, .finish = uring_finish, .close = uring_close},
    {.name = "io_uring", .call = "io_uring", .takes = uring_takes_rr,
     .setup = uring_setup, .open = uring_open, .send = uring_send_async,
     .recv = uring_recv, .finish = uring_finish, .close = uring_close},
    {.name = "gso", .call = "send", .takes = takes_gso, .setup = setup_gso,
     .open = gso_open, .send = gso_send, .failed = gso_failed},
    {.name = "gro", .call = "recvmsg", .takes = takes_gro,
     .setup = setup_gro, .open = gro_open, .recv = udp_recv},
    {.name = "sendmmsg", .call = "sendmmsg", .takes = takes_sendmmsg,
     .open = sendmmsg_open, .send = sendmmsg_send},
    {.name = "recvmmsg", .call = "recvmmsg", .takes = takes_recvmmsg,
     .open = recvmmsg_open, .recv = recvmmsg_recv},
    {.name = "send", .call = "send", .takes = udp_sends, .send = udp_send},
    {.name = "recv", .call = "recv", .takes = udp_recvs,
     .open = recv_open, .recv = udp_recv},
    {.name = "zerocopy", .call = "send", .takes = takes_zerocopy,
     .setup = setup_zerocopy, .send = zc_send, .failed = zc_failed,
     .finish = zc_finish},
    {.name = "sendfile", .call = "sendfile", .takes = takes_sendfile,
     .open = sendfile_open, .send = sendfile_send,
     .failed = sendfile_failed},
    {.name = "splice", .call = "splice", .takes = takes_splice,
     .open = splice_open, .recv = splice_recv},
    {.name = "trunc", .call = "recv", .takes = takes_trunc,
     .recv = trunc_recv},
    {.name = "send", .call = "send", .takes = tcp_sends, .send = tcp_send},
    {.name = "recv", .call = "recv", .takes = tcp_recvs, .recv = tcp_recv},
    {.name = NULL},
};

const struct data_path *
datapath_pick(const struct test_module *m, const struct test_params *p,
	      int sender)
{
	const struct data_path *dp;

	for (dp = datapath_table; dp->name != NULL; dp++)
		if (dp->takes(m, p, sender))
			return dp;
	return NULL;
}

int
datapath_open(struct datapath_io *io, struct test_ctx *ctx)
{
	memset(io, 0, sizeof(*io));
	io->ctx = ctx;
	io->dp = ctx->dp;
	io->size = (size_t)ctx->r->send_size;
	io->k = 1;
	io->file = io->null = io->pipe[0] = io->pipe[1] = -1;
	if (io->dp == NULL)
		return err_set(ctx->err, "no data path for this side");
	if (io->dp->open != NULL && io->dp->open(io) < 0) {
		datapath_finish(io, 0);
		return -1;
	}
	return 0;
}

static void
close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

int
datapath_finish(struct datapath_io *io, int ok)
{
	int rc = 0;

	if (ok && io->dp != NULL && io->dp->finish != NULL)
		rc = io->dp->finish(io);
	if (io->dp != NULL && io->dp->close != NULL)
		io->dp->close(io);
	io->priv = NULL;
	if (io->bufs != io->ctx->buf)
		free(io->bufs);
	free(io->control);
	free(io->gso);
	free(io->hdrs);
	free(io->msgs);
	free(io->iov);
	close_fd(io->file);
	close_fd(io->pipe[0]);
	close_fd(io->pipe[1]);
	close_fd(io->null);
	io->bufs = io->control = io->gso = io->hdrs = NULL;
	io->msgs = NULL;
	io->iov = NULL;
	io->file = io->null = io->pipe[0] = io->pipe[1] = -1;
	return rc;
}
