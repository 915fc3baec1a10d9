#include "np/stats.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lentz's method gives up after this many terms; it needs about
 * sqrt(df) of them, so this covers any int df with room to spare. */
#define STATS_CF_MAXIT 1000000
#define STATS_CF_EPS (4.0L * LDBL_EPSILON)
#define STATS_CF_TINY 1e-300L

void
stats_hist_init(struct stats_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void
stats_hist_merge(struct stats_hist *dst, const struct stats_hist *src)
{
	int i;

	for (i = 0; i < STATS_NBUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	/* An empty src has min UINT64_MAX and max 0, so it changes nothing. */
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

int
stats_hist_merge_fits(const struct stats_hist *dst,
		      const struct stats_hist *src, uint64_t max)
{
	unsigned __int128 sq;

	if (dst->count > max || src->count > max - dst->count)
		return 0;
	if (dst->sum > max || src->sum > max - dst->sum)
		return 0;
	return !__builtin_add_overflow(dst->sumsq, src->sumsq, &sq);
}

int
stats_bucket_bounds(int idx, uint64_t *lo, uint64_t *hi)
{
	int shift;
	uint64_t sub;

	if (idx < 0 || idx >= STATS_NBUCKETS)
		return -1;
	if (idx < STATS_SUB_COUNT) {
		*lo = *hi = (uint64_t)idx;
		return 0;
	}
	/* Group g >= 1 holds the values whose top bit is g + STATS_SUB_BITS - 1
	 * in buckets 2^(g - 1) wide. */
	shift = idx / STATS_SUB_COUNT - 1;
	sub = (uint64_t)(idx % STATS_SUB_COUNT);
	*lo = (STATS_SUB_COUNT + sub) << shift;
	*hi = *lo + ((UINT64_C(1) << shift) - 1);
	return 0;
}

double
stats_hist_percentile(const struct stats_hist *h, double p)
{
	long double rank, near, before, frac, v;
	uint64_t lo, hi, cum;
	int i;

	if (h->count == 0 || isnan(p))
		return 0.0;
	if (p <= 0.0)
		return (double)h->min;
	if (p >= 100.0)
		return (double)h->max;

	/* Nearest rank: the ceil(p/100 * count)-th smallest value. p is not
	 * exact in binary (99.9), so a rank a rounding error above an integer
	 * is taken as that integer rather than pushed up to the next. */
	rank = (long double)p * (long double)h->count / 100.0L;
	near = roundl(rank);
	if (fabsl(rank - near) <= rank * 1e-12L)
		rank = near;
	rank = ceill(rank);
	if (rank < 1.0L)
		rank = 1.0L;
	if (rank > (long double)h->count)
		rank = (long double)h->count;

	cum = 0;
	before = 0.0L;
	for (i = 0; i < STATS_NBUCKETS; i++) {
		if (h->bucket[i] == 0)
			continue;
		before = (long double)cum;
		cum += h->bucket[i];
		if ((long double)cum >= rank)
			break;
	}
	if (i == STATS_NBUCKETS) /* buckets disagree with count */
		return (double)h->max;

	stats_bucket_bounds(i, &lo, &hi);
	frac = (rank - before) / (long double)h->bucket[i];
	v = (long double)lo + frac * (long double)(hi - lo);
	if (v < (long double)h->min)
		v = (long double)h->min;
	if (v > (long double)h->max)
		v = (long double)h->max;
	return (double)v;
}

double
stats_hist_mean(const struct stats_hist *h)
{
	if (h->count == 0)
		return 0.0;
	return (double)((long double)h->sum / (long double)h->count);
}

double
stats_hist_stddev(const struct stats_hist *h)
{
	unsigned __int128 sum2, q, rem, d;
	long double n, var;

	if (h->count == 0)
		return 0.0;
	/*
	 * n * var = sumsq - sum^2 / n. sumsq/n - mean^2 would subtract two
	 * nearly equal rounded numbers when the spread is small; here the
	 * integer part of the difference is exact, and sumsq >= sum^2 / n
	 * (Cauchy-Schwarz) keeps it from wrapping.
	 */
	sum2 = (unsigned __int128)h->sum * h->sum;
	q = sum2 / h->count;
	rem = sum2 % h->count;
	if (h->sumsq < q)
		return 0.0;
	d = h->sumsq - q;
	n = (long double)h->count;
	var = ((long double)d - (long double)rem / n) / n;
	if (var <= 0.0L)
		return 0.0;
	return (double)sqrtl(var);
}

/* The continued fraction of the incomplete beta function I_x(a, b), by the
 * modified Lentz method; converges fast for x < (a + 1) / (a + b + 2). */
static long double
stats_beta_cf(long double a, long double b, long double x)
{
	long double c, d, h, num, delta;
	int m;

	c = 1.0L;
	d = 1.0L - (a + b) * x / (a + 1.0L);
	if (fabsl(d) < STATS_CF_TINY)
		d = STATS_CF_TINY;
	d = 1.0L / d;
	h = d;
	for (m = 1; m <= STATS_CF_MAXIT; m++) {
		/* Even term d_2m. */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1.0L + num * d;
		if (fabsl(d) < STATS_CF_TINY)
			d = STATS_CF_TINY;
		c = 1.0L + num / c;
		if (fabsl(c) < STATS_CF_TINY)
			c = STATS_CF_TINY;
		d = 1.0L / d;
		h *= d * c;
		/* Odd term d_2m+1. */
		num = -(a + m) * (a + b + m) * x /
		      ((a + 2 * m) * (a + 2 * m + 1));
		d = 1.0L + num * d;
		if (fabsl(d) < STATS_CF_TINY)
			d = STATS_CF_TINY;
		c = 1.0L + num / c;
		if (fabsl(c) < STATS_CF_TINY)
			c = STATS_CF_TINY;
		d = 1.0L / d;
		delta = d * c;
		h *= delta;
		if (fabsl(delta - 1.0L) < STATS_CF_EPS)
			break;
	}
	return h;
}

/* P(|T| > t) for Student's t with df degrees of freedom (not
 * necessarily whole, as Welch's are), which is
 * I_x(df/2, 1/2) with x = df / (df + t^2). */
static long double
stats_t_tail(long double t, long double df)
{
	long double nu, a, b, t2, x, y, lbeta, front;
	int sign;

	if (t <= 0.0L)
		return 1.0L;
	nu = df;
	a = nu / 2.0L;
	b = 0.5L;
	t2 = t * t;
	/* x and y = 1 - x each computed directly, so neither loses digits. */
	x = nu / (nu + t2);
	y = t2 / (nu + t2);
	lbeta =
	    lgammal_r(a, &sign) + lgammal_r(b, &sign) - lgammal_r(a + b, &sign);
	front =
	    expl(a * -log1pl(t2 / nu) + b * (logl(t2) - logl(nu + t2)) - lbeta);
	if (x < (a + 1.0L) / (a + b + 2.0L))
		return front * stats_beta_cf(a, b, x) / a;
	return 1.0L - front * stats_beta_cf(b, a, y) / b;
}

double
stats_student_t(double level, int df)
{
	long double alpha, lo, hi, mid;
	int i;

	if (!(level > 0.0 && level < 1.0) || df < 1)
		return -1.0;
	alpha = 1.0L - (long double)level;

	/* Bracket the root as [lo, hi] with hi = 2 lo, searching outward from
	 * 1 in either direction; the tail falls as t grows. */
	hi = 1.0L;
	if (stats_t_tail(hi, df) > alpha) {
		while (stats_t_tail(hi, df) > alpha && hi < 1e300L)
			hi *= 2.0L;
		lo = hi / 2.0L;
	} else {
		lo = hi;
		while (stats_t_tail(lo, df) <= alpha && lo > 1e-300L)
			lo /= 2.0L;
		hi = lo * 2.0L;
	}

	/* Bisection: slower than Newton but cannot leave the bracket. */
	for (i = 0; i < 200 && hi - lo > 1e-13L * hi; i++) {
		mid = (lo + hi) / 2.0L;
		if (stats_t_tail(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (double)((lo + hi) / 2.0L);
}

int
stats_ci_compute(const double *x, int n, double level, struct stats_ci *ci)
{
	long double sum, mean, ss, dev;
	double t;
	int i;

	if (x == NULL || ci == NULL || n < 2 || !(level > 0.0 && level < 1.0))
		return -1;
	t = stats_student_t(level, n - 1);
	if (t < 0.0)
		return -1;

	/* Two passes: the sum of squared deviations from the mean does not
	 * cancel the way sum(x^2) - n mean^2 does. */
	sum = 0.0L;
	for (i = 0; i < n; i++)
		sum += x[i];
	mean = sum / n;
	ss = 0.0L;
	for (i = 0; i < n; i++) {
		dev = x[i] - mean;
		ss += dev * dev;
	}

	ci->n = n;
	ci->mean = (double)mean;
	ci->sd = (double)sqrtl(ss / (n - 1));
	ci->half_width = t * ci->sd / sqrt((double)n);
	if (ci->mean != 0.0)
		ci->width_pct = 100.0 * 2.0 * ci->half_width / fabs(ci->mean);
	else if (ci->sd == 0.0)
		ci->width_pct = 0.0;
	else
		ci->width_pct = INFINITY;
	return 0;
}

/* The upper tail of the standard normal, P(Z > z). */
static double
stats_normal_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/* qsort's order of doubles; the callers hold no NaN. */
static int
double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v[0..n-1] ascending in O(n log n): a side may hold a million
 * samples. */
static void
sort_doubles(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), double_cmp);
}

/*
 * The number of orderings of nx x's among ny y's (out of C(nx+ny, nx))
 * whose U statistic for x is each k = 0..nx*ny, into count[]: f(i, j, k)
 * = f(i-1, j, k-j) + f(i, j-1, k), the recursion R's dwilcox uses,
 * kept two rows of i at a time. Returns 0, or -1 without memory.
 */
static int
mwu_counts(int nx, int ny, double *count)
{
	int K = nx * ny, i, j, k;
	size_t row = (size_t)(K + 1);
	double *prev = calloc((size_t)(ny + 1) * row, sizeof(double));
	double *cur = calloc((size_t)(ny + 1) * row, sizeof(double));

	if (prev == NULL || cur == NULL) {
		free(prev);
		free(cur);
		return -1;
	}
	/* i = 0: no x's, U = 0 whatever j. */
	for (j = 0; j <= ny; j++)
		prev[(size_t)j * row] = 1;
	for (i = 1; i <= nx; i++) {
		memset(cur, 0, (size_t)(ny + 1) * row * sizeof(double));
		cur[0] = 1; /* j = 0: only x's, U = 0 */
		for (j = 1; j <= ny; j++)
			for (k = 0; k <= i * j; k++) {
				double v = cur[(size_t)(j - 1) * row + k];

				/* The last element is an x: it beats all
				 * j y's. */
				if (k >= j)
					v += prev[(size_t)j * row + k - j];
				cur[(size_t)j * row + k] = v;
			}
		{
			double *t = prev;

			prev = cur;
			cur = t;
		}
	}
	memcpy(count, prev + (size_t)ny * row, row * sizeof(double));
	free(prev);
	free(cur);
	return 0;
}

/*
 * The pooled, sorted sample all[0..n-1] and the sorted x[0..nx-1]: how
 * many runs of equal values the pool has (*ntied) and their sum of t^3 -
 * t (*tie_sum). Returns the rank sum of x, each x's rank the mean of the
 * ranks its value spans; one walk over both, as they are sorted.
 */
static double
mwu_rank_sum(const double *all, int n, const double *x, int nx, int *ntied,
	     double *tie_sum)
{
	double rx = 0;
	int i, j, a = 0;

	*ntied = 0;
	*tie_sum = 0;
	for (i = 0; i < n; i = j) {
		int cx = 0;

		for (j = i; j < n && all[j] == all[i]; j++)
			;
		if (j - i > 1) {
			double t = j - i;

			(*ntied)++;
			*tie_sum += t * t * t - t;
		}
		for (; a < nx && x[a] == all[i]; a++)
			cx++;
		/* Ranks i + 1 .. j, their mean for each x of the run. */
		rx += cx * (((double)i + 1 + (double)j) / 2.0);
	}
	return rx;
}

/* The exact two-sided p of U = u for samples of nx and ny without ties,
 * into *p; returns 0, or -1 when out of memory. */
static int
mwu_exact_p(int nx, int ny, double u, double *p)
{
	int K = nx * ny;
	double *c = malloc((size_t)(K + 1) * sizeof(double));
	double tail = 0, total = 0, mean = nx * (double)ny / 2.0;
	int q = (int)lround(u);

	if (c == NULL || mwu_counts(nx, ny, c) < 0) {
		free(c);
		return -1;
	}
	for (int k = 0; k <= K; k++)
		total += c[k];
	/* As R's wilcox.test: the tail on U's side of the middle,
	 * doubled. */
	if (q > mean)
		for (int k = q; k <= K; k++)
			tail += c[k];
	else
		for (int k = 0; k <= q; k++)
			tail += c[k];
	*p = fmin(1.0, 2.0 * tail / total);
	free(c);
	return 0;
}

int
stats_mann_whitney(const double *x, int nx, const double *y, int ny,
		   struct stats_mwu *r)
{
	int n, ntied;
	double *all, *xs, rx, tie_sum, mean, var, dn;

	if (x == NULL || y == NULL || r == NULL || nx < 1 || ny < 1 ||
	    nx > INT_MAX - ny)
		return -1;
	for (int i = 0; i < nx; i++)
		if (!isfinite(x[i]))
			return -1;
	for (int i = 0; i < ny; i++)
		if (!isfinite(y[i]))
			return -1;
	n = nx + ny;
	memset(r, 0, sizeof(*r));
	all = malloc((size_t)n * sizeof(double));
	xs = malloc((size_t)nx * sizeof(double));
	if (all == NULL || xs == NULL) {
		free(all);
		free(xs);
		return -1;
	}
	memcpy(all, x, (size_t)nx * sizeof(double));
	memcpy(all + nx, y, (size_t)ny * sizeof(double));
	memcpy(xs, x, (size_t)nx * sizeof(double));
	sort_doubles(all, n);
	sort_doubles(xs, nx);
	rx = mwu_rank_sum(all, n, xs, nx, &ntied, &tie_sum);
	free(all);
	free(xs);
	/* In double: nx (nx + 1) overflows an int from nx = 46341. */
	r->u = rx - (double)nx * ((double)nx + 1) / 2.0;
	r->ties = ntied > 0;
	mean = nx * (double)ny / 2.0;
	if (!r->ties && nx < STATS_MWU_EXACT_MAX && ny < STATS_MWU_EXACT_MAX) {
		if (mwu_exact_p(nx, ny, r->u, &r->p) < 0)
			return -1;
		r->exact = 1;
		return 0;
	}
	dn = (double)n;
	var = nx * (double)ny / 12.0 * ((dn + 1) - tie_sum / (dn * (dn - 1)));
	if (var <= 0) {
		r->p = 1.0; /* every value the same: no evidence of a shift */
		return 0;
	}
	{
		double z = r->u - mean;
		double corr = z > 0 ? 0.5 : z < 0 ? -0.5 : 0;

		z = (z - corr) / sqrt(var);
		r->z = z;
		r->p = fmin(1.0, 2.0 * stats_normal_sf(fabs(z)));
	}
	return 0;
}

int
stats_welch(const double *x, int nx, const double *y, int ny,
	    struct stats_welch *r)
{
	long double mx = 0, my = 0, vx = 0, vy = 0, se2, t;
	int i;

	if (x == NULL || y == NULL || r == NULL || nx < 2 || ny < 2)
		return -1;
	for (i = 0; i < nx; i++)
		mx += x[i];
	for (i = 0; i < ny; i++)
		my += y[i];
	mx /= nx;
	my /= ny;
	for (i = 0; i < nx; i++)
		vx += (x[i] - mx) * (x[i] - mx);
	for (i = 0; i < ny; i++)
		vy += (y[i] - my) * (y[i] - my);
	vx /= nx - 1;
	vy /= ny - 1;
	se2 = vx / nx + vy / ny;
	if (se2 <= 0) {
		r->t = 0;
		r->df = nx + ny - 2;
		r->p = mx == my ? 1.0 : 0.0;
		return 0;
	}
	t = (mx - my) / sqrtl(se2);
	r->t = (double)t;
	r->df = (double)(se2 * se2 /
			 ((vx / nx) * (vx / nx) / (nx - 1) +
			  (vy / ny) * (vy / ny) / (ny - 1)));
	r->p = (double)stats_t_tail(fabsl(t), (long double)r->df);
	return 0;
}

void
stats_sumsq_hex(unsigned __int128 sumsq, char out[STATS_SUMSQ_HEX])
{
	snprintf(out, STATS_SUMSQ_HEX, "%016llx%016llx",
		 (unsigned long long)(sumsq >> 64), (unsigned long long)sumsq);
}

int
stats_sumsq_parse(const char *s, unsigned __int128 *out)
{
	unsigned __int128 v = 0;
	int n;

	for (n = 0; s[n] != '\0'; n++) {
		int d;

		if (s[n] >= '0' && s[n] <= '9')
			d = s[n] - '0';
		else if (s[n] >= 'a' && s[n] <= 'f')
			d = s[n] - 'a' + 10;
		else
			return -1;
		v = v << 4 | (unsigned)d;
	}
	if (n != STATS_SUMSQ_HEX - 1)
		return -1;
	*out = v;
	return 0;
}
