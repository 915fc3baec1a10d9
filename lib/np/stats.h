/*
 * Latency histogram, summary statistics and confidence intervals.
 *
 * The histogram is log-linear, as HdrHistogram and neper's are: values are
 * grouped by their power of two, and each power of two is split into
 * 2^STATS_SUB_BITS equal buckets, so any value is known to within 1/128
 * (0.8 %) of itself. Counts are 64-bit, and two histograms merge by adding
 * their buckets, so results from threads and hosts combine exactly.
 */
#ifndef NP_STATS_H
#define NP_STATS_H

#include <stdint.h>

#define STATS_SUB_BITS 7
#define STATS_SUB_COUNT (1 << STATS_SUB_BITS)
/* Values below STATS_SUB_COUNT have a bucket each; above, 57 powers of two. */
#define STATS_NBUCKETS ((64 - STATS_SUB_BITS + 1) * STATS_SUB_COUNT)

struct stats_hist {
	uint64_t count;
	uint64_t min, max;	 /* exact; min is UINT64_MAX while empty */
	uint64_t sum;		 /* exact sum of the values */
	unsigned __int128 sumsq; /* exact sum of their squares */
	uint64_t bucket[STATS_NBUCKETS];
};

/* Returns the bucket index of value v. */
static inline int
stats_bucket_of(uint64_t v)
{
	int msb, shift;

	if (v < STATS_SUB_COUNT)
		return (int)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - STATS_SUB_BITS;
	return (shift + 1) * STATS_SUB_COUNT +
	       (int)((v >> shift) - STATS_SUB_COUNT);
}

/* Adds one value; the hot path, so inline and branch-light. */
static inline void
stats_hist_add(struct stats_hist *h, uint64_t v)
{
	h->bucket[stats_bucket_of(v)]++;
	h->count++;
	h->sum += v;
	h->sumsq += (unsigned __int128)v * v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Empties h. */
void stats_hist_init(struct stats_hist *h);

/* Adds every count of src into dst. */
void stats_hist_merge(struct stats_hist *dst, const struct stats_hist *src);

/* Whether dst and src merge without a total past max: count and sum at
 * most max, the sum of squares within 128 bits; 1 if so, else 0. */
int stats_hist_merge_fits(const struct stats_hist *dst,
			  const struct stats_hist *src, uint64_t max);

/* The lowest and highest value that fall into bucket idx; returns 0, or -1
 * when idx is out of range. */
int stats_bucket_bounds(int idx, uint64_t *lo, uint64_t *hi);

/* The value at percentile p (0..100), interpolated inside its bucket and
 * clamped to [min, max]; 0 when empty. */
double stats_hist_percentile(const struct stats_hist *h, double p);

/* The sum of squares as both the control protocol and the JSON carry it:
 * 128 bits, more than a JSON integer holds portably, as 32 lower-case hex
 * digits. stats_sumsq_hex writes them and a NUL into out; stats_sumsq_parse
 * reads exactly 32 of them, returning 0, or -1 when s is anything else. */
#define STATS_SUMSQ_HEX 33
void stats_sumsq_hex(unsigned __int128 sumsq, char out[STATS_SUMSQ_HEX]);
int stats_sumsq_parse(const char *s, unsigned __int128 *out);

/* The exact mean; 0 when empty. */
double stats_hist_mean(const struct stats_hist *h);

/* The exact population standard deviation; 0 when empty. */
double stats_hist_stddev(const struct stats_hist *h);

/* The two-sided Student-t critical value for confidence level (e.g. 0.95)
 * and df degrees of freedom (df >= 1); returns -1.0 on bad input. */
double stats_student_t(double level, int df);

/* A confidence interval of the mean of n samples. */
struct stats_ci {
	int n;
	double mean;
	double sd;	   /* sample standard deviation (n - 1) */
	double half_width; /* t * sd / sqrt(n) */
	double width_pct;  /* full width as a percentage of the mean */
};

/* Computes the interval at confidence level (e.g. 0.99) of x[0..n-1];
 * returns 0, or -1 when n < 2 or level is outside (0, 1). */
int stats_ci_compute(const double *x, int n, double level, struct stats_ci *ci);

/* Below this many values on both sides and without ties, the
 * Mann-Whitney p-value is exact (as R's wilcox.test decides). */
#define STATS_MWU_EXACT_MAX 50

/* A two-sided Mann-Whitney U (Wilcoxon rank-sum) test. */
struct stats_mwu {
	double u;  /* U of the first sample: pairs (x, y) with x > y, ties
		    * counting one half */
	double p;  /* two-sided p-value */
	double z;  /* the normal approximation's z, 0 when exact */
	int exact; /* 1: the exact distribution; 0: the normal
		    * approximation with tie and continuity corrections */
	int ties;  /* the pooled sample had ties */
};

/* Tests whether x[0..nx-1] and y[0..ny-1] come from one distribution,
 * without assuming normality, in O(n log n); returns 0, or -1 on bad
 * input (a NaN or infinity among the values) or without memory. */
int stats_mann_whitney(const double *x, int nx, const double *y, int ny,
		       struct stats_mwu *r);

/* Welch's unequal-variances t-test, assuming each sample's mean is
 * normally distributed. */
struct stats_welch {
	double t, df, p; /* statistic, Welch-Satterthwaite df, two-sided p */
};

/* Welch's test of x against y (each n >= 2); returns 0, or -1. */
int stats_welch(const double *x, int nx, const double *y, int ny,
		struct stats_welch *r);

#endif
