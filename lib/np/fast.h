/*
 * The kernel's fast paths for the data loops: UDP_SEGMENT (GSO), UDP_GRO,
 * sendmmsg/recvmmsg batching, MSG_ZEROCOPY and SO_BUSY_POLL. This file
 * says which test may use which, sets the socket options, and reads the
 * zero-copy completions; the loops in stream.c take the paths.
 */
#ifndef NP_FAST_H
#define NP_FAST_H

#include <stdint.h>

#include "np/module.h"

/* The most datagrams one --batch call moves. */
#define FAST_BATCH_MAX 64
/* The most segments one --udp-gso send carries; the kernel's
 * UDP_MAX_SEGMENTS is 64 or more. */
#define FAST_GSO_SEGS 64
/* The largest buffer a GRO receive returns: one IP packet's worth. */
#define FAST_GRO_BUF 65536

/*
 * Checks that the fast-path options in p (--batch, --udp-gso, --udp-gro,
 * --zerocopy, --busy-poll) fit test m; netperf and netserver both ask.
 * Returns 0, or -1 with err naming the option.
 */
int fast_check(const struct test_module *m, const struct test_params *p,
	       char *err);

/*
 * Picks the data path this side's loop takes (np/datapath.h) into dp,
 * sets its socket options and SO_BUSY_POLL on fd, and names the path in
 * r; is_server says whose half of the test the loop runs (a reversed
 * --bidir stream runs the peer's). Call once r->send_size is known.
 * Returns 0, or -1 with err as "--udp-gso: the kernel refused
 * UDP_SEGMENT (EINVAL)".
 */
int fast_setup(const struct test_module *m, const struct test_params *p, int fd,
	       int is_server, struct side_result *r,
	       const struct data_path **dp, char *err);

/* Takes the zero-copy completions waiting on fd's error queue into r's
 * zc_done and zc_copied; returns how many sends they covered. Never
 * blocks. */
uint64_t fast_zc_reap(int fd, struct side_result *r);

#endif
