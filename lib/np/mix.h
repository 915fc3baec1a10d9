/*
 * Request mixes (-r 90%64,1400/10%1400,64): TCP_RR and UDP_RR draw each
 * request's class, a request size and a response size, from weights.
 * Each request carries its class in one byte (mix_class_off), so that
 * netserver answers it with the class's response size, and netperf
 * counts each class apart: transactions, bytes each way and latency.
 */
#ifndef NP_MIX_H
#define NP_MIX_H

#include <stddef.h>
#include <stdint.h>

#include "np/stats.h"

/* The most classes a mix has. */
#define MIX_MAX 8

struct mix_class {
	int64_t req, rsp; /* bytes */
	double weight;	  /* percent, 0 < weight <= 100 */
};

/* A mix; n 0 for none (a single -r pair). */
struct mix {
	int n;
	struct mix_class c[MIX_MAX];
	/* The classes' draws start from this seed, each stream's from its
	 * own derivation of it (mix_stream_seed); printed with the result,
	 * and given back with --mix-seed to draw the same classes. */
	uint64_t seed;
};

/* One class's counts on netperf's side: a stream's, a flow's or the
 * merged. Its round trips are a histogram apart (mix_hist_new), a
 * stream's own, or the one the flows of a thread share (flows.c): a flow
 * keeps its counts, which the intervals read flow by flow, and no
 * histogram of its own. */
struct mix_acct {
	uint64_t requests, trans, bytes_sent, bytes_recv;
	/* --timeout: the class's transactions answered later than it, or
	 * never; the classes' add up to TIMEOUTS. UDP_RR: the answers that
	 * came after their request was given up on (late_answers). */
	uint64_t timeouts, late;
};

/*
 * Parses a mix, "W%REQ[,RSP]/W%REQ[,RSP]/...", sizes as -r takes them
 * (a class without RSP answers as much as it asks), weights in percent
 * that add up to 100. Returns 1 when arg is a mix (m filled), 0 when it
 * has no '%' (a plain -r pair, m untouched), -1 with err set when it is
 * a mix that is wrong.
 */
int mix_parse(const char *arg, struct mix *m, char *err);

/* The largest request and response sizes of m's classes. */
void mix_max(const struct mix *m, int64_t *req, int64_t *rsp);

/* Stream i's seed for its draws, from the mix's. */
uint64_t mix_stream_seed(const struct mix *m, int i);

/* Draws the next request's class from *state (a stream's own). */
int mix_pick(const struct mix *m, uint64_t *state);

/* Where in a request its class byte lies: after UDP_RR's tag of taglen
 * bytes (0 over TCP). */
#define mix_class_off(taglen) (taglen)

/* The class byte at off of a request whose first n bytes are at buf,
 * checked against m: the class, or -1 when n does not reach the byte, it
 * names no class, or (exact: a datagram, n its whole size) n is not the
 * class's request size. */
int mix_class_of(const struct mix *m, const char *buf, size_t n, size_t off,
		 int exact);

/* Draws the next request's class from *state, writes it at buf[off]
 * (the request's class byte, mix_class_off) and counts the request in
 * a; returns the class. */
int mix_request(const struct mix *m, struct mix_acct *a, uint64_t *state,
		char *buf, size_t off);

/* Class c's answer of bytes, ns after its request was sent (or due):
 * a transaction of c's in a, and its round trip in h[c] (h may be
 * NULL). */
void mix_answer(struct mix_acct *a, struct stats_hist *h, int c, uint64_t bytes,
		uint64_t ns);

/* Clears n accounts. */
void mix_acct_init(struct mix_acct *a, int n);

/* Adds n accounts of src into dst. */
void mix_acct_merge(struct mix_acct *dst, const struct mix_acct *src, int n);

/* n empty histograms, a class each; NULL without memory. free() them. */
struct stats_hist *mix_hist_new(int n);

/* Adds n class histograms of src into dst. */
void mix_hist_merge(struct stats_hist *dst, const struct stats_hist *src,
		    int n);

#endif
