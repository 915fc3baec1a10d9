/*
 * The io_uring data paths (--io-uring): the hooks of datapath_table's
 * io_uring rows. Each loop thread owns a ring of its own with its socket
 * and buffer registered; sends are IORING_OP_WRITE_FIXED (or SEND_ZC
 * from the registered buffer under --zerocopy), receives a multishot
 * recv into a ring of provided buffers where the kernel has one, else
 * IORING_OP_READ_FIXED. What this kernel offers is probed once
 * (io_uring_get_probe_ring); rows that need what it lacks are not taken,
 * and one that cannot do without it refuses in one line.
 */
#ifndef NP_URING_H
#define NP_URING_H

#include <stddef.h>
#include <sys/types.h>

#include "np/datapath.h"

/* What this kernel's io_uring offers, probed once. */
struct uring_caps {
	int err;       /* errno when io_uring itself is refused, else 0 */
	int fixed;     /* IORING_OP_READ_FIXED and WRITE_FIXED */
	int send_zc;   /* IORING_OP_SEND_ZC (Linux 6.0) */
	int multishot; /* provided buffer rings and multishot recv */
};

/* The probe's answer (the first call probes). Never fails: a kernel
 * without io_uring says so in err. */
const struct uring_caps *uring_caps(void);

/* takes: a bulk sender under --io-uring --zerocopy; a bulk sender; a
 * bulk receiver with multishot recv; any bulk receiver; a TCP_RR or
 * UDP_RR end with multishot recv; any TCP_RR or UDP_RR end. */
int uring_takes_send_zc(const struct test_module *m,
			const struct test_params *p, int sender);
int uring_takes_send(const struct test_module *m, const struct test_params *p,
		     int sender);
int uring_takes_recv_mshot(const struct test_module *m,
			   const struct test_params *p, int sender);
int uring_takes_recv(const struct test_module *m, const struct test_params *p,
		     int sender);
int uring_takes_rr_mshot(const struct test_module *m,
			 const struct test_params *p, int sender);
int uring_takes_rr(const struct test_module *m, const struct test_params *p,
		   int sender);

/* setup: 0 when the kernel has what the row needs, else -1 with err as
 * "--io-uring: this kernel refuses io_uring (EPERM: ...)". */
int uring_setup(int fd, const struct test_params *p,
		const struct side_result *r, char *err);
int uring_setup_zc(int fd, const struct test_params *p,
		   const struct side_result *r, char *err);

/* open: the loop's own ring, socket and buffer registered (and the
 * provided buffers for a multishot row). 0, or -1 with ctx->err set. */
int uring_open(struct datapath_io *io);
int uring_open_zc(struct datapath_io *io);
int uring_open_mshot(struct datapath_io *io);

/* send and recv as datapath.h's, waiting at most io->wait_ns for the
 * completion (EAGAIN after, the operation still in flight: the loop's
 * next call of the same kind takes its result). */
ssize_t uring_send(struct datapath_io *io, char *buf, size_t len);
ssize_t uring_recv(struct datapath_io *io, size_t len, int flags);
/* A request/response loop's send: queued for the next receive's wait to
 * submit; returns len, or -1 with the errno of the previous one. */
ssize_t uring_send_async(struct datapath_io *io, char *buf, size_t len);

/* finish: under --zerocopy waits for every SEND_ZC notice; the ring's
 * io_uring_enter calls become the side's syscalls. 0, or -1. */
int uring_finish(struct datapath_io *io);

/* close: the ring and the provided buffers freed. */
void uring_close(struct datapath_io *io);

#endif
