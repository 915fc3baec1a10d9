/* What a data loop runs with (struct test_ctx) and the account it fills
 * (struct side_result). */
#ifndef NP_TEST_CTX_H
#define NP_TEST_CTX_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np/cpu.h"
#include "np/err.h"
#include "np/mix.h"
#include "np/oneway.h"
#include "np/side.h"
#include "np/stats.h"
#include "np/tcpinfo.h"
#include "np/test_params.h"

struct transport;
struct tstamp;

/* One side's account of a test: what it did and what it cost. Its plain
 * figures are the rows of SIDE_FIELDS (np/side.h); the rest are here. */
struct side_result {
	SIDE_FIELDS(SIDE_DECL)
	int cpu_measured;
	struct cpu_util cpu;
	/* TCP_INFO of the data connection at the end (n 0 for UDP and
	 * TCP_CRR); over streams, merged by each field's rule. */
	struct tcpinfo tcpi;
	/* --under-load, a bulk flow: the bytes its connection had
	 * delivered when the probe's interval ended (TCP_INFO's bytes
	 * acknowledged, or received, as this side sends or receives), and
	 * the seconds from the start to that reading (the coordinator may
	 * wake late on a busy host); not sent to the peer. */
	uint64_t load_bytes;
	double load_secs;
};

/* The state a data loop runs with. */
struct data_path;

struct test_ctx {
	const struct test_params *p;
	/* The connected data socket; a CRR server's listener. */
	int fd;
	/* netserver: the control socket, to see the client's "stop"; -1
	 * on netperf's side. */
	int ctl;
	/* CRR: where to connect (netperf), or who may (netserver). */
	struct sockaddr_storage peer;
	socklen_t peerlen;
	/* -N: the peer never ends the test (chargen sends for ever), so a
	 * receiving loop ends its interval at end_ns itself. */
	int end_own;
	/* The test's token (AUTH_TOKEN_LEN bytes): CRR's starts every
	 * connection; UDP's may come again, and is never data. NULL for
	 * none. */
	const unsigned char *token;
	/* The peer speaks netperf 2.7's protocol: its datagrams carry none
	 * of our sequence tags or headers, and it echoes none. */
	int untagged;
	/* Scratch of buflen bytes, aligned and offset as asked; mem is what
	 * to free. With a ring (-W) it holds width copies, stride apart. */
	char *buf;
	size_t buflen;
	void *mem;
	size_t stride;
	int width, slot;
	const struct module_bufs *bufs;
	/* When the loop ended (CLOCK_MONOTONIC), 0 while it runs: no
	 * interim boundary after every stream's end is reported. */
	uint64_t done_ns;
	/* -w/-b pacing: the next interval's start, and sends left in it. */
	uint64_t pace_next;
	int pace_left;
	/* CLOCK_MONOTONIC end of the test; 0 when counting. */
	uint64_t end_ns;
	/* Round trips that end before this go uncounted in hist: the
	 * --under-load probe beside its bulk flows measures once they have
	 * filled the path (underload.c); 0 for from the start. */
	uint64_t warm_ns;
	/* Set by SIGINT to end early. */
	volatile sig_atomic_t *stop;
	/* Per-operation latency, or NULL. */
	struct stats_hist *hist;
	/* --one-way's account (netperf's side), or NULL. */
	struct oneway *ow;
	/* --bidir: this stream runs the test's other half (netperf
	 * receives what netserver sends). */
	int reverse;
	struct side_result *r;
	char err[ERR_LEN];
	/* The coordinator watches this stream for a silent peer in place of
	 * socket time-outs, which arm a kernel timer at every blocking
	 * wait (TCP_RR's every transaction): wd_state goes from
	 * MODULE_WD_RUNNING to MODULE_WD_DONE when the loop ends, or to
	 * MODULE_WD_FIRED when the coordinator gave up on the peer (wd_err
	 * says why) and shut the socket down to wake the loop. */
	int watched;
	int wd_state;
	/* The coordinator's: bytes moving (calls and the send queue) and
	 * when they last did; transactions, and when they last grew. */
	uint64_t wd_seen, wd_any_at, wd_trans, wd_at;
	char wd_err[ERR_LEN];
	/* What the data sockets are (np/transport.h): the test's own, or
	 * the one the request names. */
	const struct transport *transport;
	/* The open loop's service time (from the actual send; hist then
	 * counts from the intended send time), or NULL. */
	struct stats_hist *svc_hist;
	/* --under-load: this stream's part, enum underload_role (0: the
	 * test's own loop). */
	int role;
	/* --timestamps: the data socket's stamps (tstamp.c), or NULL. */
	struct tstamp *ts;
	/* The data path this side's loop takes (np/datapath.h), NULL for
	 * none: fast_setup picks it. */
	const struct data_path *dp;
	/* A request mix (p->mix.n > 0), netperf's side: each class's
	 * account, p->mix.n of them, and the stream's draws; NULL for no
	 * mix. Each class's round trips go into mix_hist (p->mix.n of
	 * them): the stream's own; flows on threads keep one set a thread,
	 * in the first flow's context as hist is, and NULL in the others'. */
	struct mix_acct *mix;
	uint64_t mix_rng;
	struct stats_hist *mix_hist;
	/* -D on UDP_RR, netperf's side (p->lost_iv): lost_split is set
	 * when this stream's answers carry netserver's count; as of the
	 * last answer in time, the requests it shows netserver never saw
	 * (lost_req) and the transactions given up on and never answered
	 * (lost_all), stored as the loop runs and read by the
	 * coordinator at each boundary (interval.c). */
	int lost_split;
	uint64_t lost_req, lost_all;
	/* A request/response loop's open use of dp, for the helpers that
	 * take only the context (rr.c's); NULL when it takes none. */
	struct datapath_io *io;
};

#endif
