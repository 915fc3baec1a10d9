/*
 * --search: the highest open-loop rate (--rate) at which a latency
 * objective such as P99<=200us holds, found by doubling from a start
 * until a run misses, then bisecting to a stated precision.
 */
#ifndef NP_SEARCH_H
#define NP_SEARCH_H

#include "np/err.h"
#include "np/result.h"

#define SEARCH_OBJ_MAX 4
/* Runs one search makes at most: 30 doublings reach SWEEP_RATE_MAX from
 * 1/s, and bisection to the finest precision takes 10 more. */
#define SEARCH_RUNS_MAX 40
#define SEARCH_START_DEFAULT 1000.0
#define SEARCH_PRECISION_DEFAULT 0.02
/* A run whose achieved rate falls under this share of the offer misses,
 * whatever its latency. */
#define SEARCH_ACHIEVED_MIN 0.99

/* One objective: a percentile of the latency from the intended send, at
 * most bound_us. */
struct search_obj {
	char name[8]; /* "P50", "P90", "P99", "P99.9" */
	int which;    /* 50, 90, 99 or 999 */
	double bound_us;
};

struct search_spec {
	int n;
	struct search_obj obj[SEARCH_OBJ_MAX];
	char text[64]; /* as given, for the answer */
};

/* Where a search stands: the highest rate met and the lowest missed so
 * far (0: none yet), and the next rate to offer (0: done). */
struct search {
	double precision; /* fraction, 0.001 to 0.5 */
	double lo, hi, next;
	int runs;
	int capped; /* met up to SWEEP_RATE_MAX: the answer is a floor */
};

/*
 * Parses "P99<=200us" or several joined by commas ("P50<=50us,P99<=1ms"):
 * P50, P90, P99 or P99.9 (P999 too, any case), "<=", a positive number
 * with us or ms. Returns 0, or -1 with err set ("--search: ...").
 */
int search_parse(const char *arg, struct search_spec *s, char *err);

/* Parses --search-precision: a percentage from 0.1 to 50, "%" optional,
 * into a fraction. Returns 0, or -1 with err set. */
int search_precision_parse(const char *arg, double *out, char *err);

/* Starts a search at start transactions/s to precision (a fraction). */
void search_init(struct search *s, double start, double precision);

/*
 * Whether a run meets the objectives: its achieved rate at least
 * SEARCH_ACHIEVED_MIN of the offer, and every percentile within its
 * bound. Returns 1 when it does, 0 when not, with why saying the first
 * shortfall.
 */
int search_meets(const struct search_spec *sp, const struct result *r,
		 char *why, size_t cap);

/* Records the run at rate (met or not) and chooses the next rate; s->next
 * is 0 once the search is over. */
void search_record(struct search *s, double rate, int met);

#endif
