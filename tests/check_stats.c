#include "np/stats.h"

#include "harness.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NDATA 100000

/* Deterministic xorshift64* so every run sees the same data. */
static uint64_t
rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(2685821657736338717);
}

/* Uniform in [0, 1). */
static double
rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

/* Log-normal-ish values over 1e3..1e8: the exponent is the mean of four
 * uniforms, a bell on [0, 1]. */
static void
gen_data(uint64_t *v, int n)
{
	uint64_t s = UINT64_C(0x9e3779b97f4a7c15);
	double u;
	int i;

	for (i = 0; i < n; i++) {
		u = (rng_unit(&s) + rng_unit(&s) + rng_unit(&s) +
		     rng_unit(&s)) /
		    4.0;
		v[i] = (uint64_t)(1e3 * pow(10.0, 5.0 * u));
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank order statistic of sorted v[0..n-1]. */
static uint64_t
exact_percentile(const uint64_t *sorted, int n, double p)
{
	long double rank = (long double)p * n / 100.0L;
	long double near = roundl(rank);
	long r;

	if (fabsl(rank - near) <= rank * 1e-12L)
		rank = near;
	r = (long)ceill(rank);
	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return sorted[r - 1];
}

static void
check_value_in_bucket(uint64_t v)
{
	uint64_t lo, hi, limit;
	int idx = stats_bucket_of(v);

	ck_assert_int_ge(idx, 0);
	ck_assert_int_lt(idx, STATS_NBUCKETS);
	ck_assert_int_eq(stats_bucket_bounds(idx, &lo, &hi), 0);
	ck_assert_uint_le(lo, v);
	ck_assert_uint_ge(hi, v);
	limit = v / 128 > 1 ? v / 128 : 1;
	/* hi - lo, not hi - lo + 1, to stay clear of wrap at UINT64_MAX. */
	ck_assert_uint_le(hi - lo, limit - 1);
}

START_TEST(test_bucket_round_trip)
{
	uint64_t v;
	int k;

	for (v = 0; v <= 1000; v++)
		check_value_in_bucket(v);
	for (k = 0; k < 64; k++) {
		v = UINT64_C(1) << k;
		check_value_in_bucket(v);
		check_value_in_bucket(v - 1);
		check_value_in_bucket(v + 1);
		check_value_in_bucket(v + (v >> 1));
	}
	check_value_in_bucket(UINT64_MAX);
	check_value_in_bucket(UINT64_MAX - 1);
	ck_assert_int_eq(stats_bucket_of(UINT64_MAX), STATS_NBUCKETS - 1);
}
END_TEST

START_TEST(test_bucket_bounds_tile)
{
	uint64_t lo, hi, prev_hi;
	int idx;

	/* The buckets cover 0..UINT64_MAX with no gap and no overlap, and
	 * each bound maps back to its own bucket. */
	ck_assert_int_eq(stats_bucket_bounds(0, &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0);
	prev_hi = hi;
	for (idx = 1; idx < STATS_NBUCKETS; idx++) {
		ck_assert_int_eq(stats_bucket_bounds(idx, &lo, &hi), 0);
		ck_assert_uint_eq(lo, prev_hi + 1);
		ck_assert_uint_ge(hi, lo);
		ck_assert_int_eq(stats_bucket_of(lo), idx);
		ck_assert_int_eq(stats_bucket_of(hi), idx);
		prev_hi = hi;
	}
	ck_assert_uint_eq(prev_hi, UINT64_MAX);
	ck_assert_int_eq(stats_bucket_bounds(-1, &lo, &hi), -1);
	ck_assert_int_eq(stats_bucket_bounds(STATS_NBUCKETS, &lo, &hi), -1);
}
END_TEST

START_TEST(test_percentile_accuracy)
{
	static const double ps[] = {50, 90, 99, 99.9, 99.99};
	struct stats_hist *h = malloc(sizeof(*h));
	uint64_t *v = malloc(NDATA * sizeof(*v));
	long double sum = 0, mean, ss = 0, dev, sd;
	double got, p;
	uint64_t want;
	size_t i;

	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(v);
	gen_data(v, NDATA);
	stats_hist_init(h);
	for (i = 0; i < NDATA; i++)
		stats_hist_add(h, v[i]);
	for (i = 0; i < NDATA; i++)
		sum += v[i];
	mean = sum / NDATA;
	for (i = 0; i < NDATA; i++) {
		dev = v[i] - mean;
		ss += dev * dev;
	}
	sd = sqrtl(ss / NDATA);
	qsort(v, NDATA, sizeof(*v), cmp_u64);

	ck_assert_uint_eq(h->count, NDATA);
	ck_assert_uint_eq(h->min, v[0]);
	ck_assert_uint_eq(h->max, v[NDATA - 1]);
	ck_assert_double_eq(stats_hist_percentile(h, 0), (double)v[0]);
	ck_assert_double_eq(stats_hist_percentile(h, 100),
			    (double)v[NDATA - 1]);
	ck_assert_double_eq_tol(stats_hist_mean(h), (double)mean,
				1e-9 * (double)mean);
	ck_assert_double_eq_tol(stats_hist_stddev(h), (double)sd,
				1e-9 * (double)sd);

	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		want = exact_percentile(v, NDATA, ps[i]);
		got = stats_hist_percentile(h, ps[i]);
		ck_assert_double_eq_tol(got, (double)want, 0.01 * want);
	}
	/* The histogram promises more than 1 %: within one bucket, 1/128. */
	for (p = 0.25; p < 100; p += 0.25) {
		want = exact_percentile(v, NDATA, p);
		got = stats_hist_percentile(h, p);
		ck_assert_double_eq_tol(got, (double)want, want / 128.0);
	}
	free(v);
	free(h);
}
END_TEST

START_TEST(test_percentile_small_exact)
{
	struct stats_hist h;
	uint64_t v;

	/* Below 128 every value has its own bucket, so percentiles are
	 * exact order statistics. */
	stats_hist_init(&h);
	for (v = 100; v >= 1; v--)
		stats_hist_add(&h, v);
	ck_assert_double_eq(stats_hist_percentile(&h, 50), 50.0);
	ck_assert_double_eq(stats_hist_percentile(&h, 90), 90.0);
	ck_assert_double_eq(stats_hist_percentile(&h, 99), 99.0);
	ck_assert_double_eq(stats_hist_percentile(&h, 99.5), 100.0);
	ck_assert_double_eq(stats_hist_percentile(&h, 0.5), 1.0);
	ck_assert_double_eq(stats_hist_percentile(&h, -5), 1.0);
	ck_assert_double_eq(stats_hist_percentile(&h, 150), 100.0);
	ck_assert_double_eq(stats_hist_mean(&h), 50.5);
	/* Population sd of 1..100 is sqrt((100^2 - 1) / 12). */
	ck_assert_double_eq_tol(stats_hist_stddev(&h), sqrt(9999.0 / 12.0),
				1e-12);
}
END_TEST

START_TEST(test_stddev_no_cancellation)
{
	struct stats_hist h;
	const uint64_t base = UINT64_C(1) << 40;
	uint64_t k;

	/* A spread of a few units on top of 2^40: sumsq / n - mean^2 would
	 * cancel some 24 digits, more than long double holds. */
	stats_hist_init(&h);
	for (k = 0; k < 10; k++)
		stats_hist_add(&h, base + k);
	ck_assert_double_eq_tol(stats_hist_mean(&h), (double)base + 4.5, 1e-3);
	ck_assert_double_eq_tol(stats_hist_stddev(&h), sqrt(99.0 / 12.0),
				1e-12);
}
END_TEST

START_TEST(test_single_value)
{
	struct stats_hist h;

	/* One large value: min = max clamps the bucket's interpolation. */
	stats_hist_init(&h);
	stats_hist_add(&h, 123456789);
	ck_assert_double_eq(stats_hist_percentile(&h, 1), 123456789.0);
	ck_assert_double_eq(stats_hist_percentile(&h, 50), 123456789.0);
	ck_assert_double_eq(stats_hist_percentile(&h, 99.99), 123456789.0);
	ck_assert_double_eq(stats_hist_mean(&h), 123456789.0);
	ck_assert_double_eq(stats_hist_stddev(&h), 0.0);
}
END_TEST

START_TEST(test_merge)
{
	struct stats_hist *all = malloc(sizeof(*all));
	struct stats_hist *part = malloc(3 * sizeof(*part));
	struct stats_hist *sum = malloc(sizeof(*sum));
	uint64_t *v = malloc(NDATA * sizeof(*v));
	double p;
	int i;

	ck_assert_ptr_nonnull(all);
	ck_assert_ptr_nonnull(part);
	ck_assert_ptr_nonnull(sum);
	ck_assert_ptr_nonnull(v);
	gen_data(v, NDATA);
	stats_hist_init(all);
	for (i = 0; i < 3; i++)
		stats_hist_init(&part[i]);
	stats_hist_init(sum);
	for (i = 0; i < NDATA; i++) {
		stats_hist_add(all, v[i]);
		/* Uneven split, so parts differ in min, max and size. */
		stats_hist_add(&part[v[i] % 7 < 4   ? 0
				     : v[i] % 7 < 6 ? 1
						    : 2],
			       v[i]);
	}
	for (i = 0; i < 3; i++)
		stats_hist_merge(sum, &part[i]);

	ck_assert_int_eq(memcmp(all->bucket, sum->bucket, sizeof(all->bucket)),
			 0);
	ck_assert_uint_eq(all->count, sum->count);
	ck_assert_uint_eq(all->sum, sum->sum);
	ck_assert(all->sumsq == sum->sumsq);
	ck_assert_uint_eq(all->min, sum->min);
	ck_assert_uint_eq(all->max, sum->max);
	for (p = 0; p <= 100; p += 0.5)
		ck_assert_double_eq(stats_hist_percentile(all, p),
				    stats_hist_percentile(sum, p));
	ck_assert_double_eq(stats_hist_percentile(all, 99.99),
			    stats_hist_percentile(sum, 99.99));
	ck_assert_double_eq(stats_hist_mean(all), stats_hist_mean(sum));
	ck_assert_double_eq(stats_hist_stddev(all), stats_hist_stddev(sum));

	/* Merging an empty histogram changes nothing. */
	stats_hist_init(&part[0]);
	stats_hist_merge(sum, &part[0]);
	ck_assert_int_eq(memcmp(all, sum, sizeof(*all)), 0);
	free(v);
	free(sum);
	free(part);
	free(all);
}
END_TEST

/* Three values, 2^40 times each, written straight into the fields. */
static void
fill_big(struct stats_hist *h)
{
	static const uint64_t vals[] = {100, 1000, 10000};
	const uint64_t n = UINT64_C(1) << 40;
	int i;

	stats_hist_init(h);
	for (i = 0; i < 3; i++) {
		h->bucket[stats_bucket_of(vals[i])] += n;
		h->count += n;
		h->sum += vals[i] * n;
		h->sumsq += (unsigned __int128)(vals[i] * vals[i]) * n;
	}
	h->min = 100;
	h->max = 10000;
}

START_TEST(test_big_counts)
{
	struct stats_hist *a = malloc(sizeof(*a));
	struct stats_hist *b = malloc(sizeof(*b));
	const uint64_t n = UINT64_C(1) << 40;
	long double mean, sd;
	double third;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	mean = (100.0L + 1000.0L + 10000.0L) / 3.0L;
	sd =
	    sqrtl(((100 - mean) * (100 - mean) + (1000 - mean) * (1000 - mean) +
		   (10000 - mean) * (10000 - mean)) /
		  3.0L);
	third = 100.0 / 3.0;

	fill_big(a);
	ck_assert_double_eq(stats_hist_percentile(a, 10), 100.0);
	ck_assert_double_eq(stats_hist_percentile(a, third), 100.0);
	ck_assert_double_eq_tol(stats_hist_percentile(a, 50), 1000.0,
				1000.0 / 128);
	ck_assert_double_eq_tol(stats_hist_percentile(a, 66), 1000.0,
				1000.0 / 128);
	ck_assert_double_eq_tol(stats_hist_percentile(a, 67), 10000.0,
				10000.0 / 128);
	ck_assert_double_eq(stats_hist_percentile(a, 99.9999), 10000.0);
	ck_assert_double_eq_tol(stats_hist_mean(a), (double)mean, 1e-9);
	ck_assert_double_eq_tol(stats_hist_stddev(a), (double)sd,
				1e-9 * (double)sd);

	/* Two of them merged: every count doubles, no field wraps. */
	fill_big(b);
	stats_hist_merge(a, b);
	ck_assert_uint_eq(a->count, 6 * n);
	ck_assert_uint_eq(a->bucket[stats_bucket_of(100)], 2 * n);
	ck_assert_uint_eq(a->bucket[stats_bucket_of(1000)], 2 * n);
	ck_assert_uint_eq(a->bucket[stats_bucket_of(10000)], 2 * n);
	ck_assert_uint_eq(a->sum, 2 * b->sum);
	ck_assert(a->sumsq == 2 * b->sumsq);
	ck_assert_uint_eq(a->min, 100);
	ck_assert_uint_eq(a->max, 10000);
	ck_assert_double_eq(stats_hist_percentile(a, third), 100.0);
	ck_assert_double_eq_tol(stats_hist_percentile(a, 50), 1000.0,
				1000.0 / 128);
	ck_assert_double_eq(stats_hist_percentile(a, 99.9999), 10000.0);
	ck_assert_double_eq_tol(stats_hist_mean(a), (double)mean, 1e-9);
	ck_assert_double_eq_tol(stats_hist_stddev(a), (double)sd,
				1e-9 * (double)sd);
	free(b);
	free(a);
}
END_TEST

START_TEST(test_empty)
{
	struct stats_hist h;
	struct stats_hist zero;
	int i;

	stats_hist_init(&h);
	ck_assert_uint_eq(h.count, 0);
	ck_assert_uint_eq(h.min, UINT64_MAX);
	ck_assert_uint_eq(h.max, 0);
	memset(&zero, 0, sizeof(zero));
	ck_assert_int_eq(memcmp(h.bucket, zero.bucket, sizeof(h.bucket)), 0);
	for (i = 0; i <= 100; i += 10)
		ck_assert_double_eq(stats_hist_percentile(&h, i), 0.0);
	ck_assert_double_eq(stats_hist_mean(&h), 0.0);
	ck_assert_double_eq(stats_hist_stddev(&h), 0.0);
}
END_TEST

START_TEST(test_student_t_tables)
{
	static const struct {
		double level;
		int df;
		double t;
	} tab[] = {
	    {0.95, 1, 12.706},	    {0.95, 2, 4.303},	 {0.95, 10, 2.228},
	    {0.95, 30, 2.042},	    {0.99, 1, 63.657},	 {0.99, 5, 4.032},
	    {0.99, 29, 2.756},	    {0.95, 1000, 1.962}, {0.99, 100000, 2.576},
	    {0.90, 1, 6.314},	    {0.90, 20, 1.725},	 {0.999, 10, 4.587},
	    {0.95, INT_MAX, 1.960},
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		ck_assert_double_eq_tol(
		    stats_student_t(tab[i].level, tab[i].df), tab[i].t, 1e-3);
}
END_TEST

START_TEST(test_student_t_closed_form)
{
	double level, t;
	int df;

	/* df = 1 is Cauchy: t = tan(pi level / 2); df = 2 has
	 * P(|T| <= t) = t / sqrt(2 + t^2). Both check the inversion to 1e-9. */
	for (level = 0.05; level < 0.9999; level += 0.05) {
		t = tan(M_PI * level / 2);
		ck_assert_double_eq_tol(stats_student_t(level, 1), t, 1e-9 * t);
		t = level * sqrt(2.0 / (1.0 - level * level));
		ck_assert_double_eq_tol(stats_student_t(level, 2), t, 1e-9 * t);
	}
	/* The critical value falls as df grows, towards the normal's. */
	t = stats_student_t(0.99, 1);
	for (df = 2; df < 2000; df += df / 4 + 1) {
		ck_assert_double_lt(stats_student_t(0.99, df), t);
		t = stats_student_t(0.99, df);
	}
	ck_assert_double_gt(t, 2.5758293);
}
END_TEST

START_TEST(test_student_t_bad)
{
	ck_assert_double_eq(stats_student_t(0.0, 10), -1.0);
	ck_assert_double_eq(stats_student_t(1.0, 10), -1.0);
	ck_assert_double_eq(stats_student_t(-0.5, 10), -1.0);
	ck_assert_double_eq(stats_student_t(1.5, 10), -1.0);
	ck_assert_double_eq(stats_student_t(NAN, 10), -1.0);
	ck_assert_double_eq(stats_student_t(0.95, 0), -1.0);
	ck_assert_double_eq(stats_student_t(0.95, -3), -1.0);
}
END_TEST

START_TEST(test_ci_example)
{
	static const double x[] = {10, 12, 11, 13, 9};
	struct stats_ci ci;

	ck_assert_int_eq(stats_ci_compute(x, 5, 0.95, &ci), 0);
	ck_assert_int_eq(ci.n, 5);
	ck_assert_double_eq_tol(ci.mean, 11.0, 1e-12);
	ck_assert_double_eq_tol(ci.sd, sqrt(2.5), 1e-12);
	ck_assert_double_eq_tol(ci.half_width, 1.963, 1e-3);
	ck_assert_double_eq_tol(ci.width_pct, 35.69, 1e-2);
}
END_TEST

START_TEST(test_ci_degenerate)
{
	static const double x[] = {10, 12, 11};
	static const double zero[] = {0, 0, 0};
	static const double sym[] = {-1, 1, -1, 1};
	struct stats_ci ci;

	ck_assert_int_eq(stats_ci_compute(x, 1, 0.95, &ci), -1);
	ck_assert_int_eq(stats_ci_compute(x, 0, 0.95, &ci), -1);
	ck_assert_int_eq(stats_ci_compute(x, 3, 0.0, &ci), -1);
	ck_assert_int_eq(stats_ci_compute(x, 3, 1.0, &ci), -1);
	ck_assert_int_eq(stats_ci_compute(zero, 3, 0.95, &ci), 0);
	ck_assert_double_eq(ci.sd, 0.0);
	ck_assert_double_eq(ci.half_width, 0.0);
	ck_assert_double_eq(ci.width_pct, 0.0);
	ck_assert_int_eq(stats_ci_compute(sym, 4, 0.95, &ci), 0);
	ck_assert_double_eq(ci.mean, 0.0);
	ck_assert_double_gt(ci.sd, 0.0);
	ck_assert(isinf(ci.width_pct));
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc;

	tc = tcase_create("hist");
	tcase_add_test(tc, test_bucket_round_trip);
	tcase_add_test(tc, test_bucket_bounds_tile);
	tcase_add_test(tc, test_percentile_accuracy);
	tcase_add_test(tc, test_percentile_small_exact);
	tcase_add_test(tc, test_stddev_no_cancellation);
	tcase_add_test(tc, test_single_value);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_big_counts);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("ci");
	tcase_add_test(tc, test_student_t_tables);
	tcase_add_test(tc, test_student_t_closed_form);
	tcase_add_test(tc, test_student_t_bad);
	tcase_add_test(tc, test_ci_example);
	tcase_add_test(tc, test_ci_degenerate);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(stats_suite());
}
