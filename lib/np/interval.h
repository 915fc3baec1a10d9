/*
 * The runner's per-interval accounts (-D): at each interim boundary the
 * coordinator reads every stream's count and, where the test keeps one,
 * its latency histogram, and reports what each added since the last
 * boundary. The loops are never stopped or locked: their counters are
 * read as they run (each 8-byte load sees an old or a new value), and
 * what one interval misses the next one has, so the intervals, with the
 * part after the last boundary (the tail), add up exactly to the totals.
 */
#ifndef NP_INTERVAL_H
#define NP_INTERVAL_H

#include <stdint.h>

#include "np/module.h"
#include "np/stats.h"
#include "np/tcpinfo.h"

/* The state kept between boundaries, owned by module_run_all. */
struct interval_track {
	int n;		  /* streams */
	uint64_t *prev;	  /* each stream's count at the last boundary */
	uint64_t *stream; /* each stream's count over this interval */
	/* The streams' histograms as read at the last boundary and at
	 * this one, summed, and this interval's (their difference); NULL
	 * without histograms. Three whatever the number of streams. */
	struct stats_hist *prev_hist, *cur_hist;
	struct stats_hist *hist;
	struct tcpinfo ti_prev, ti_iv;
	/* The streams' time-outs, errors and late answers summed at the
	 * last boundary. */
	uint64_t timeouts_prev, errors_prev, late_prev;
	uint64_t prev_t; /* the last boundary, CLOCK_MONOTONIC ns */
	/* A request mix (netperf's side): nclasses classes' transactions
	 * summed over the streams at the last boundary and over this
	 * interval, and their histograms as prev_hist, cur_hist and hist
	 * are (nclasses each); 0 and NULL without one. */
	int nclasses;
	uint64_t *class_prev, *class_count;
	/* Their time-outs and late answers summed at the last boundary,
	 * and over this interval. */
	uint64_t *class_to_prev, *class_timeouts;
	uint64_t *class_late_prev, *class_late;
	struct stats_hist *class_prev_hist, *class_cur_hist, *class_hist;
	/* -D on UDP_RR: the lost requests and answers found by the last
	 * boundary, summed over the streams. */
	int64_t lost_req_prev, lost_rsp_prev;
	struct module_interval out;
};

/* Starts tracking run's streams, before they run; returns 0, or -1 with
 * err set (out of memory). */
int interval_track_init(struct interval_track *t, const struct module_run *run,
			char *err);

/*
 * Takes the interval that ends now: fills
 * t->out (each stream's count, the interval's histogram, its time-outs,
 * errors, late answers and active streams), t->ti_iv
 * (the streams' TCP_INFO over it, n 0 when none) and returns the sum of
 * the streams' counts over it. partial marks the tail.
 */
uint64_t interval_track_take(struct interval_track *t,
			     const struct module_run *run, int partial);

/* Releases what t holds. */
void interval_track_free(struct interval_track *t);

/* The count an interim report divides by time for stream i of run: what
 * this side moved (bytes or transactions). */
uint64_t interval_stream_count(const struct module_run *run, int i);

#endif
