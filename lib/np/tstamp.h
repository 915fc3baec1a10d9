/*
 * --timestamps: each round trip of TCP_RR and UDP_RR split into client
 * stack, network and server, from the kernel's SO_TIMESTAMPING stamps.
 *
 * Each end stamps its own data socket (software TX SCHED and SND stamps
 * read from the error queue, RX stamps from the data reads' control
 * messages, matched to transactions by OPT_ID: a byte offset over TCP, a
 * datagram count over UDP) and times its application's calls on the same
 * clock (CLOCK_REALTIME, the stamps' clock), so every part is measured on
 * one host's clock and no clock sync is needed:
 *
 *   client stack out   netperf's send() to its SND stamp
 *   client stack in    netperf's RX stamp to its read's return
 *   server stack in    netserver's RX stamp to its read's return
 *   server app         netserver's read's return to its write
 *   server stack out   netserver's write to its SND stamp
 *   server             (residence) RX stamp to SND stamp: the three above
 *   network            the round trip less all of the above
 *
 * netserver sends its parts' histograms with its results. The network is
 * netperf's round trip less its own stack, per transaction, less
 * netserver's mean residence: its mean is exact, its percentiles exact
 * when the residence varies little (a shift, not a deconvolution).
 */
#ifndef NP_TSTAMP_H
#define NP_TSTAMP_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "np/stats.h"

/* The parts. The first five are netperf's, the next four netserver's;
 * NETWORK is derived from both and has no histogram of its own. */
enum tstamp_part {
	TSTAMP_RTT,	     /* netperf: send() to the answer's read, on the
			      * stamps' clock, of the stamped transactions */
	TSTAMP_CLIENT_OUT,   /* send() to SND */
	TSTAMP_CLIENT_IN,    /* RX to read */
	TSTAMP_CLIENT_STACK, /* out + in, per transaction */
	TSTAMP_CLIENT_REST,  /* RTT - out - in: network + server residence */
	TSTAMP_SERVER,	     /* netserver: RX to SND */
	TSTAMP_SERVER_IN,    /* RX to read */
	TSTAMP_SERVER_APP,   /* read to write */
	TSTAMP_SERVER_OUT,   /* write to SND */
	TSTAMP_NHIST,
	TSTAMP_NETWORK = TSTAMP_NHIST,
	TSTAMP_NPARTS
};

/* The figures a selector names. */
enum tstamp_stat { TSTAMP_P50, TSTAMP_P99, TSTAMP_MEAN };

/*
 * The selectors, one list for select.c's table and its values:
 * M(X, name, part, stat, the four title lines).
 */
#define TSTAMP_SELECTORS(M, X)                                                 \
	M(X, NETWORK_P50_LATENCY, TSTAMP_NETWORK, TSTAMP_P50, "Network",       \
	  "50th Pct", "Latency", "Microseconds")                               \
	M(X, NETWORK_P99_LATENCY, TSTAMP_NETWORK, TSTAMP_P99, "Network",       \
	  "99th Pct", "Latency", "Microseconds")                               \
	M(X, NETWORK_MEAN_LATENCY, TSTAMP_NETWORK, TSTAMP_MEAN, "Network",     \
	  "Mean", "Latency", "Microseconds")                                   \
	M(X, SERVER_P50_LATENCY, TSTAMP_SERVER, TSTAMP_P50, "Server",          \
	  "50th Pct", "Latency", "Microseconds")                               \
	M(X, SERVER_P99_LATENCY, TSTAMP_SERVER, TSTAMP_P99, "Server",          \
	  "99th Pct", "Latency", "Microseconds")                               \
	M(X, SERVER_MEAN_LATENCY, TSTAMP_SERVER, TSTAMP_MEAN, "Server",        \
	  "Mean", "Latency", "Microseconds")                                   \
	M(X, CLIENT_STACK_P50_LATENCY, TSTAMP_CLIENT_STACK, TSTAMP_P50,        \
	  "Client Stack", "50th Pct", "Latency", "Microseconds")               \
	M(X, CLIENT_STACK_P99_LATENCY, TSTAMP_CLIENT_STACK, TSTAMP_P99,        \
	  "Client Stack", "99th Pct", "Latency", "Microseconds")               \
	M(X, CLIENT_STACK_MEAN_LATENCY, TSTAMP_CLIENT_STACK, TSTAMP_MEAN,      \
	  "Client Stack", "Mean", "Latency", "Microseconds")                   \
	M(X, CLIENT_STACK_OUT_P50_LATENCY, TSTAMP_CLIENT_OUT, TSTAMP_P50,      \
	  "Client Stack", "Out 50th", "Latency", "Microseconds")               \
	M(X, CLIENT_STACK_OUT_P99_LATENCY, TSTAMP_CLIENT_OUT, TSTAMP_P99,      \
	  "Client Stack", "Out 99th", "Latency", "Microseconds")               \
	M(X, CLIENT_STACK_IN_P50_LATENCY, TSTAMP_CLIENT_IN, TSTAMP_P50,        \
	  "Client Stack", "In 50th", "Latency", "Microseconds")                \
	M(X, CLIENT_STACK_IN_P99_LATENCY, TSTAMP_CLIENT_IN, TSTAMP_P99,        \
	  "Client Stack", "In 99th", "Latency", "Microseconds")                \
	M(X, SERVER_STACK_IN_P50_LATENCY, TSTAMP_SERVER_IN, TSTAMP_P50,        \
	  "Server Stack", "In 50th", "Latency", "Microseconds")                \
	M(X, SERVER_STACK_IN_P99_LATENCY, TSTAMP_SERVER_IN, TSTAMP_P99,        \
	  "Server Stack", "In 99th", "Latency", "Microseconds")                \
	M(X, SERVER_APP_P50_LATENCY, TSTAMP_SERVER_APP, TSTAMP_P50,            \
	  "Server App", "50th Pct", "Latency", "Microseconds")                 \
	M(X, SERVER_APP_P99_LATENCY, TSTAMP_SERVER_APP, TSTAMP_P99,            \
	  "Server App", "99th Pct", "Latency", "Microseconds")                 \
	M(X, SERVER_STACK_OUT_P50_LATENCY, TSTAMP_SERVER_OUT, TSTAMP_P50,      \
	  "Server Stack", "Out 50th", "Latency", "Microseconds")               \
	M(X, SERVER_STACK_OUT_P99_LATENCY, TSTAMP_SERVER_OUT, TSTAMP_P99,      \
	  "Server Stack", "Out 99th", "Latency", "Microseconds")

/* What one side's streams measured, merged: the histograms of its parts
 * (NULL for the other side's) and what reading the stamps cost. */
struct tstamp_account {
	struct stats_hist *h[TSTAMP_NHIST];
	uint64_t stamps;     /* stamps read, TX and RX */
	uint64_t errq_calls; /* recvmmsg(MSG_ERRQUEUE) calls */
	uint64_t incomplete; /* transactions whose stamps never all came */
	uint64_t hw;	     /* hardware stamps seen */
	/* Transactions whose wire part (netperf: its SND to its RX, the
	 * network with netserver's residence; netserver: RX to SND, its
	 * residence) came from the NIC's stamps, both of them hardware. */
	uint64_t hw_wire;
	/* Why this side used no hardware stamps ("" when it could have):
	 * its interface makes none, or has them turned off. */
	char hw_why[128];
};

/* Both sides' accounts, result.side's order (local, remote). */
struct tstamp_result {
	struct tstamp_account side[2];
};

/* Every one of the first TSTAMP_FIRST transactions is stamped, then one
 * in TSTAMP_EVERY: a stamped transaction costs a quarter (TCP_RR) to a
 * half (UDP_RR) of a same-CPU loopback transaction more (two buffers
 * queued, each waking the socket's reader, and read back a send, on each
 * end), so a long test pays for one in 64 (under 1 %), while a short or slow
 * one (a 1 s test over a 20 ms path makes 50 transactions) still splits
 * most of its transactions. Both ends count alike, so they stamp the
 * same transactions (over UDP, until one is lost), and the choice never
 * depends on how long a transaction takes. */
#define TSTAMP_FIRST 64
#define TSTAMP_EVERY 64

/* The largest test-only delay (tstamp_open's delay_us) netserver takes. */
#define TSTAMP_DELAY_MAX_US 100000

struct tstamp;

/* Stamps fd, a connected data socket (tcp: SOCK_STREAM), for netperf's
 * loop (server 0) or netserver's; delay_us, netserver's test-only sleep
 * between a request's read and its answer's write. Returns the state, or
 * NULL with err set (no memory, or the kernel refused the option). */
struct tstamp *tstamp_open(int fd, int tcp, int server, int delay_us,
			   char *err);

/* The kinds of stamp a control message carries (tstamp_pick). */
enum { TSTAMP_KIND_SW = 1, TSTAMP_KIND_HW = 2 };

/*
 * One SCM_TIMESTAMPING message's stamps: ts[0], the kernel's software
 * stamp (CLOCK_REALTIME), into *sw, and ts[2], the NIC's raw hardware
 * stamp (its PTP clock), into *hw, each 0 when absent. Returns the kinds
 * found (TSTAMP_KIND_*), 0 for none.
 */
int tstamp_pick(const struct timespec ts[3], uint64_t *sw, uint64_t *hw);

/*
 * The wire part of a transaction from its two stamps a (the earlier:
 * netperf's SND, netserver's RX) and b, each as software and hardware
 * time (0 when absent): b - a from the hardware stamps when both have
 * one, else from the software ones (never one of each: two clocks).
 * Returns the kind used and sets *ns, or 0 when neither pair is whole or
 * the pair runs backwards.
 */
int tstamp_wire(uint64_t a_sw, uint64_t a_hw, uint64_t b_sw, uint64_t b_hw,
		uint64_t *ns);

/* Why the socket fd cannot have hardware stamps, into why (cap bytes):
 * its interface's ethtool timestamping capabilities and SIOCGHWTSTAMP
 * setting, read only (netperf never changes a NIC's setting); "" when
 * the interface makes them and has them on. */
void tstamp_hw_reason(int fd, char *why, size_t cap);

/* Frees what tstamp_open made (the socket stays open). */
void tstamp_free(struct tstamp *ts);

/* Data path, netperf: the time just before a request's send() (and
 * whether it is stamped); then, once sent (with tstamp_send) whole, its key
 * (the transaction's number, only its low 8 bits need be unique among those in
 * flight) and length. */
void tstamp_send_begin(struct tstamp *ts);
void tstamp_sent(struct tstamp *ts, uint32_t key, size_t len);

/* The data path's send(2): with a stamp when this transaction is one of
 * those stamped; returns what send returns. */
ssize_t tstamp_send(struct tstamp *ts, const void *buf, size_t len, int flags);

/* A recv(2) with flags that also takes the RX stamp and the time it
 * returned; returns what recv returns. */
ssize_t tstamp_recv(struct tstamp *ts, void *buf, size_t len, int flags);

/* Reads the stamps waiting on the error queue: for a loop that polls
 * the socket, which reports POLLERR while any wait there. */
void tstamp_drain(struct tstamp *ts);

/* netperf: the answer to transaction key has been read whole. */
void tstamp_answered(struct tstamp *ts, uint32_t key);

/* netserver: a request has been read whole (the test-only delay runs
 * here); then its answer of len bytes is about to be sent (with
 * tstamp_send). */
void tstamp_request(struct tstamp *ts);
void tstamp_answer(struct tstamp *ts, size_t len);

/* Reads what stamps are left and adds this stream's histograms and counts
 * into a (allocating its histograms as needed); 0, or -1 with err set
 * (no memory). */
int tstamp_collect(struct tstamp *ts, struct tstamp_account *a, char *err);

/* Frees an account's histograms. */
void tstamp_account_free(struct tstamp_account *a);

/* netserver's account for its results; NULL only without memory. */
json_t *tstamp_pack(const struct tstamp_account *a);

/* Reads one packed by tstamp_pack into a (emptied first); 0, or -1 with
 * err set. */
int tstamp_unpack(const json_t *j, struct tstamp_account *a, char *err);

/* One part's figures in microseconds; count 0 when it has none. */
struct tstamp_fig {
	uint64_t count;
	double mean, p50, p99;
	uint64_t sum_ns; /* exact, for the histogram parts */
};

/* Part p of t (TSTAMP_NETWORK derived); returns 0, or -1 when t lacks it. */
int tstamp_figure(const struct tstamp_result *t, int p, struct tstamp_fig *f);

/* The figure a selector names, "%.2f" microseconds, "-1" without one. */
void tstamp_select(const struct tstamp_result *t, int p, int stat, char *b,
		   size_t cap);

/* The JSON object of "timestamps"; NULL only without memory. */
json_t *tstamp_json(const struct tstamp_result *t);

/* -v 2's table of the parts. */
void tstamp_print(FILE *out, const struct tstamp_result *t);

/* Frees both accounts. */
void tstamp_result_free(struct tstamp_result *t);

#endif
