/*
 * The data paths: how one side's loop hands its data to the kernel or
 * takes it back. Each path (a plain send or recv, sendmmsg/recvmmsg
 * batches, UDP GSO and GRO, MSG_ZEROCOPY, splice into /dev/null,
 * sendfile, io_uring) is one row of a table of hooks; the loops in stream.c call
 * the hooks of the row their side took, and the report names the row.
 * A new path is a row and its hooks, here.
 */
#ifndef NP_DATAPATH_H
#define NP_DATAPATH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "np/module.h"

/* Control space of a received datagram: its UDP_GRO size and its
 * arrival stamp (SO_TIMESTAMPNS). */
#define DATAPATH_RX_CONTROL                                                    \
	(CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec)))

/* One loop's use of its path: what the hooks share with the loop. */
struct datapath_io {
	struct test_ctx *ctx;
	const struct data_path *dp;
	size_t size; /* bytes a datagram (UDP) or a receive buffer */
	int k;	     /* datagrams a call at most (UDP) */
	/* The UDP sender: the number and send time the first datagram of
	 * the next call carries. */
	uint64_t seq, now;
	/* Buffers the path owns, freed by datapath_finish: k receive
	 * buffers of size bytes and their control space (msgs[i] over
	 * them), a GSO run of k datagrams, or k sendmmsg headers. */
	char *bufs, *control, *gso, *hdrs;
	struct mmsghdr *msgs;
	struct iovec *iov;
	/* sendfile: the file, its slots (2.7's ring) and the next one. */
	int file;
	off_t base;
	int width, slot;
	/* splice: the pipe and /dev/null. */
	int pipe[2], null;
	/* A request/response loop's recv: where the bytes go (NULL: the
	 * path's own buffer, or the context's). */
	char *at;
	/* How long a path that waits on its own (io_uring) waits for a
	 * completion before it says EAGAIN, as SO_RCVTIMEO makes recv(2)
	 * do; 0 for ever. */
	uint64_t wait_ns;
	/* A path's own state (io_uring's ring), freed by its close. */
	void *priv;
};

/*
 * A data path. The loop of a stream (TCP) counts bytes; that of
 * datagrams (UDP) counts datagrams of io->size bytes. Hooks a path does
 * not need are NULL; send and recv are those of its direction.
 */
struct data_path {
	/* What the report calls it (LOCAL_DATA_PATH, "data_path"). */
	const char *name;
	/* The system call, for an error's message. */
	const char *call;
	/* Whether the sender (sender 1) or receiver of test m takes this
	 * path under p; the first row that does is taken. */
	int (*takes)(const struct test_module *m, const struct test_params *p,
		     int sender);
	/* The socket options the path needs on fd, once r->send_size is
	 * known. Returns 0, or -1 with err naming the option. */
	int (*setup)(int fd, const struct test_params *p,
		     const struct side_result *r, char *err);
	/* Readies io for the loop. Returns 0, or -1 with io->ctx->err set. */
	int (*open)(struct datapath_io *io);
	/* Hands len bytes to the kernel (datagrams: len / io->size of them,
	 * stamped from io->seq and io->now), buf the send ring's next.
	 * Returns the bytes taken, or -1 with errno set. */
	ssize_t (*send)(struct datapath_io *io, char *buf, size_t len);
	/* Takes up to len bytes (flags as recv(2)'s). A stream's returns
	 * the bytes, 0 at its end; datagrams' returns how many messages
	 * io->msgs now hold (msg_len each). -1 with errno set. */
	ssize_t (*recv)(struct datapath_io *io, size_t len, int flags);
	/* A call failed with errno e: 1 when the path dealt with it (the
	 * loop waits and goes on), 0 when it is not the path's, -1 with
	 * the context's err set when it ends the test. */
	int (*failed)(struct datapath_io *io, int e);
	/* After the loop's last call, when it went well: waits for what
	 * the path still owes. Returns 0, or -1 with the err set. */
	int (*finish)(struct datapath_io *io);
	/* Frees what open made beyond io's buffers (io->priv), finished
	 * or not. */
	void (*close)(struct datapath_io *io);
};

/* The paths, most particular first; ends with a row of NULL name. */
extern const struct data_path datapath_table[];

/* The path the sender (sender 1) or receiver of test m takes under p,
 * or NULL for none (request/response tests). */
const struct data_path *datapath_pick(const struct test_module *m,
				      const struct test_params *p, int sender);

/* Readies io for ctx's loop over ctx->dp. Returns 0, or -1 with ctx->err
 * set (io is then freed). */
int datapath_open(struct datapath_io *io, struct test_ctx *ctx);

/* Ends the loop's use of io: the path's finish when ok, then io's
 * buffers and descriptors freed. Returns 0, or -1 with the err set. */
int datapath_finish(struct datapath_io *io, int ok);

#endif
