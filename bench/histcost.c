/*
 * histcost: what timing one transaction costs the RR client.
 *
 * Per transaction, lib/rr.c's client reads the monotonic clock once more
 * than it needs for its deadline (after the answer arrives) and adds the
 * difference to the latency histogram. This program times exactly that
 * pair, clock_ns() + stats_hist_add() from lib/, in a loop over values
 * shaped like loopback round trips (10-60 us, a tail to a few ms), and
 * prints nanoseconds per call as one JSON line:
 *
 *   clock_ns       clock_gettime(CLOCK_MONOTONIC) alone
 *   hist_add_ns    stats_hist_add alone
 *   both_ns        the two together, as the RR loop does them
 *
 * Each figure is the fastest of several repetitions, with an empty loop's
 * time subtracted, so it is the cost itself with warm caches, not the VM's
 * noise. Between two transactions the kernel's network path runs and
 * evicts some of those cache lines, so the same pair costs more in a real
 * loop: `floor tcp_rr -H` measures it there. bench/run divides both
 * figures by the measured time of one TCP_RR transaction.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "np/clock.h"
#include "np/stats.h"

#define HC_NVALS (1 << 16)
#define HC_ITERS 2000000
#define HC_REPS 5

static uint64_t vals[HC_NVALS];
static struct stats_hist hist;
/* Results go here so the compiler cannot drop the loops. */
static volatile uint64_t sink;

/* Fills vals with round trips in ns: mostly 10-60 us, one in 64 up to
 * 4 ms, from a fixed-seed generator so every run times the same data. */
static void
fill_values(void)
{
	uint64_t x = 88172645463325252ULL;

	for (int i = 0; i < HC_NVALS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if ((x & 63) == 0)
			vals[i] = 60000 + (x >> 8) % 4000000;
		else
			vals[i] = 10000 + (x >> 8) % 50000;
	}
}

enum hc_kind { HC_BASE, HC_CLOCK, HC_ADD, HC_BOTH };

/* Runs one loop of the given kind; returns its duration in ns. */
static uint64_t
run(enum hc_kind kind, int iters)
{
	uint64_t t0, t1, acc = 0, now;
	int i;

	stats_hist_init(&hist);
	t0 = clock_ns();
	for (i = 0; i < iters; i++) {
		uint64_t v = vals[i & (HC_NVALS - 1)];

		switch (kind) {
		case HC_BASE:
			acc += v;
			break;
		case HC_CLOCK:
			acc += clock_ns() + v;
			break;
		case HC_ADD:
			stats_hist_add(&hist, v);
			break;
		case HC_BOTH:
			now = clock_ns();
			stats_hist_add(&hist, v + (now & 1));
			break;
		}
	}
	t1 = clock_ns();
	sink = acc + hist.count;
	return t1 - t0;
}

/* The fastest of HC_REPS runs, in ns per iteration. */
static double
best(enum hc_kind kind, int iters)
{
	uint64_t min = UINT64_MAX, t;

	for (int r = 0; r < HC_REPS; r++) {
		t = run(kind, iters);
		if (t < min)
			min = t;
	}
	return (double)min / iters;
}

int
main(void)
{
	double base, clk, add, both;

	fill_values();
	run(HC_BOTH, HC_ITERS); /* warm up caches and the vDSO */
	base = best(HC_BASE, HC_ITERS);
	clk = best(HC_CLOCK, HC_ITERS) - base;
	add = best(HC_ADD, HC_ITERS) - base;
	both = best(HC_BOTH, HC_ITERS) - base;
	printf("{\"tool\":\"histcost\",\"clock_ns\":%.2f,\"hist_add_ns\":%.2f,"
	       "\"both_ns\":%.2f,\"iterations\":%d,\"repetitions\":%d}\n",
	       clk, add, both, HC_ITERS, HC_REPS);
	return 0;
}
