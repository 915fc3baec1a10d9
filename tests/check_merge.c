#include "np/merge.h"

#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "np/json.h"

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

/* A latency value of 1 us to ~10 ms, log-spread. */
static uint64_t
rng_latency(uint64_t *s)
{
	double e = 3.0 + 4.0 * (double)(rng_next(s) >> 11) / 9007199254740992.0;

	return (uint64_t)pow(10.0, e);
}

/* What a synthetic netperf --json result says. */
struct spec {
	const char *test, *units, *sd_units;
	const char *lhost, *rhost;
	int64_t sched, start, end;
	double thruput;
	uint64_t lc[MERGE_NCOUNTS], rc[MERGE_NCOUNTS];
	const struct stats_hist *h;	      /* NULL: latency_us null */
	int64_t lbusy, ltotal, rbusy, rtotal; /* < 0: cpu null */
	int nsamples;
	double interval, value[64];
	int iterations;
};

static json_t *
counts_of(const uint64_t *c)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "bytes_sent",
			 (json_int_t)c[0], "bytes_recv", (json_int_t)c[1],
			 "send_calls", (json_int_t)c[2], "recv_calls",
			 (json_int_t)c[3], "transactions", (json_int_t)c[4]);
}

static json_t *
cpu_of(int64_t busy, int64_t total)
{
	if (busy < 0)
		return json_null();
	return json_pack("{s:s, s:f, s:i, s:{s:I, s:I, s:i}}", "method", "S",
			 "util", 100.0 * (double)busy / (double)total, "count",
			 2, "ticks", "busy", (json_int_t)busy, "total",
			 (json_int_t)total, "hz", 100);
}

static json_t *
mk_doc(const struct spec *s)
{
	json_t *interim = json_array(), *lat;
	int i;

	for (i = 0; i < s->nsamples; i++) {
		int64_t end =
		    s->start + (int64_t)llround((i + 1) * s->interval * 1e9);

		json_array_append_new(
		    interim,
		    json_pack("{s:f, s:f, s:f, s:f, s:I, s:I}", "value",
			      s->value[i], "interval", s->interval, "ending",
			      (double)end / 1e9, "since_start",
			      (i + 1) * s->interval, "count", (json_int_t)1,
			      "ending_ns", (json_int_t)end));
	}
	lat = json_null();
	if (s->h != NULL) {
		lat = json_pack("{s:I}", "count", (json_int_t)s->h->count);
		json_object_set_new(lat, "exact", json_hist_exact(s->h));
	}
	return json_pack(
	    "{s:s, s:i, s:s, s:{s:{s:s}, s:o, s:o}, s:{s:{s:s}, s:o, s:o},"
	    " s:{s:f, s:s, s:s}, s:o, s:{s:o, s:I, s:I, s:I, s:I}, s:o,"
	    " s:{s:i}, s:[]}",
	    "schema", "netperf-result", "schema_version", 1, "test", s->test,
	    "local", "env", "hostname", s->lhost, "counts", counts_of(s->lc),
	    "cpu", cpu_of(s->lbusy, s->ltotal), "remote", "env", "hostname",
	    s->rhost, "counts", counts_of(s->rc), "cpu",
	    cpu_of(s->rbusy, s->rtotal), "result", "throughput", s->thruput,
	    "throughput_units", s->units, "service_demand_units", s->sd_units,
	    "latency_us", lat, "timing", "start_scheduled_ns",
	    s->sched > 0 ? json_integer(s->sched) : json_null(),
	    "start_actual_ns", (json_int_t)s->start, "end_ns",
	    (json_int_t)s->end, "remote_start_ns", (json_int_t)s->start,
	    "remote_end_ns", (json_int_t)s->end, "interim", interim,
	    "confidence", "iterations", s->iterations ? s->iterations : 1,
	    "errors");
}

static void
spec_default(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	s->test = "TCP_RR";
	s->units = "Trans/s";
	s->sd_units = "usec/Tran";
	s->lhost = "client";
	s->rhost = "server";
	s->start = INT64_C(1800000000000000000);
	s->end = s->start + INT64_C(10000000000);
	s->thruput = 1000;
	s->lbusy = s->rbusy = -1;
}

/* The merged state as canonical text: sorted keys, full precision. */
static char *
state_text(struct merge *m)
{
	struct merge_figures f;
	char err[ERR_LEN];
	json_t *doc;
	char *t;

	ck_assert_int_eq(merge_figures(m, &f, err), 0);
	doc = merge_json(m, &f, 0.01);
	ck_assert_ptr_nonnull(doc);
	t = json_dumps(doc,
		       JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(doc);
	ck_assert_ptr_nonnull(t);
	return t;
}

/* A document through text and back, as a file would carry it. */
static json_t *
reparse(const char *text)
{
	json_error_t je;
	json_t *d = json_loads(text, 0, &je);

	ck_assert_msg(d != NULL, "reparse: %s", je.text);
	return d;
}

#define NRUNS 12

/* Random runs: counts, histograms, CPU accounts on a few hosts, and
 * samples, so merging in any order or grouping must agree exactly. */
static void
random_docs(uint64_t seed, json_t **docs, struct stats_hist *hs,
	    struct stats_hist *all)
{
	static const char *hosts[] = {"a", "b", "c"};
	uint64_t s = seed;
	int i, j, n;

	stats_hist_init(all);
	for (i = 0; i < NRUNS; i++) {
		struct spec sp;

		spec_default(&sp);
		sp.lhost = hosts[rng_next(&s) % 3];
		sp.rhost = hosts[rng_next(&s) % 3];
		sp.start += (int64_t)(rng_next(&s) % 5000000);
		sp.end = sp.start + INT64_C(3000000000) +
			 (int64_t)(rng_next(&s) % 1000000);
		sp.sched = INT64_C(1800000000000000000);
		sp.thruput = (double)(rng_next(&s) % 100000) / 7.0;
		for (j = 0; j < MERGE_NCOUNTS; j++) {
			sp.lc[j] = rng_next(&s) % 1000000;
			sp.rc[j] = rng_next(&s) % 1000000;
		}
		stats_hist_init(&hs[i]);
		n = 200 + (int)(rng_next(&s) % 800);
		for (j = 0; j < n; j++) {
			uint64_t v = rng_latency(&s);

			stats_hist_add(&hs[i], v);
			stats_hist_add(all, v);
		}
		sp.h = &hs[i];
		sp.lbusy = (int64_t)(rng_next(&s) % 500);
		sp.ltotal = sp.lbusy + 600;
		sp.rbusy = (int64_t)(rng_next(&s) % 500);
		sp.rtotal = sp.rbusy + 600;
		sp.nsamples = 3;
		sp.interval = 1.0;
		for (j = 0; j < 3; j++)
			sp.value[j] = (double)(rng_next(&s) % 10000) / 3.0;
		docs[i] = mk_doc(&sp);
		ck_assert_ptr_nonnull(docs[i]);
	}
}

static void
add_ok(struct merge *m, json_t *doc, const char *name)
{
	char err[ERR_LEN];
	int rc = merge_add_doc(m, doc, name, err);

	ck_assert_msg(rc == 0, "merge_add_doc %s: %d %s", name, rc, err);
}

/* Merging is commutative and associative: every order and grouping of
 * the same runs gives the same state, to the byte. */
START_TEST(order_and_grouping_do_not_matter)
{
	static struct stats_hist hs[NRUNS], all;
	static const char *names[NRUNS] = {"r0", "r1", "r2",  "r3",
					   "r4", "r5", "r6",  "r7",
					   "r8", "r9", "r10", "r11"};
	json_t *docs[NRUNS];
	char *want, *got;
	uint64_t s = 77;
	int perm[NRUNS], i, j, trial;

	random_docs(UINT64_C(0x1234567) + (uint64_t)_i, docs, hs, &all);
	{
		struct merge m;

		merge_init(&m);
		for (i = 0; i < NRUNS; i++)
			add_ok(&m, docs[i], names[i]);
		want = state_text(&m);
		/* The merged histogram is the histogram of all values. */
		ck_assert_uint_eq(m.hist->count, all.count);
		ck_assert_uint_eq(m.hist->sum, all.sum);
		ck_assert(m.hist->sumsq == all.sumsq);
		ck_assert_uint_eq(m.hist->min, all.min);
		ck_assert_uint_eq(m.hist->max, all.max);
		ck_assert_mem_eq(m.hist->bucket, all.bucket,
				 sizeof(all.bucket));
		merge_free(&m);
	}
	for (trial = 0; trial < 6; trial++) {
		struct merge top, part;
		int cut;

		for (i = 0; i < NRUNS; i++)
			perm[i] = i;
		for (i = NRUNS - 1; i > 0; i--) {
			j = (int)(rng_next(&s) % (uint64_t)(i + 1));
			int t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		/* Shuffled, and cut into sub-merges written out as merge
		 * documents and read back, then merged again. */
		merge_init(&top);
		for (i = 0; i < NRUNS; i = cut) {
			char *text;
			json_t *d;

			cut = i + 1 + (int)(rng_next(&s) % 4);
			if (cut > NRUNS)
				cut = NRUNS;
			merge_init(&part);
			for (j = i; j < cut; j++)
				add_ok(&part, docs[perm[j]], names[perm[j]]);
			text = state_text(&part);
			d = reparse(text);
			add_ok(&top, d, "part");
			json_decref(d);
			free(text);
			merge_free(&part);
		}
		got = state_text(&top);
		ck_assert_msg(strcmp(got, want) == 0,
			      "trial %d: merged state differs", trial);
		free(got);
		merge_free(&top);
	}
	free(want);
	for (i = 0; i < NRUNS; i++)
		json_decref(docs[i]);
}
END_TEST

/* A run cut in two halves in time merges to the whole: the same work,
 * the same histogram and percentiles, the same CPU time and service
 * demand. */
START_TEST(halves_equal_the_whole)
{
	struct stats_hist h1, h2, hw;
	struct spec a, b, w;
	struct merge mh, mw;
	struct merge_figures fh, fw;
	char err[ERR_LEN];
	uint64_t s = 4242;
	json_t *da, *db, *dw;
	int i;

	stats_hist_init(&h1);
	stats_hist_init(&h2);
	stats_hist_init(&hw);
	for (i = 0; i < 5000; i++) {
		uint64_t v = rng_latency(&s);

		stats_hist_add(i < 2000 ? &h1 : &h2, v);
		stats_hist_add(&hw, v);
	}
	spec_default(&w);
	w.h = &hw;
	w.lc[MERGE_TRANS] = 5000;
	w.rc[MERGE_TRANS] = 5000;
	w.lc[MERGE_BYTES_SENT] = w.rc[MERGE_BYTES_RECV] = 5000;
	w.lbusy = 700;
	w.ltotal = 2000;
	w.rbusy = 300;
	w.rtotal = 2000;
	a = b = w;
	a.end = b.start = w.start + (w.end - w.start) / 2;
	a.h = &h1;
	b.h = &h2;
	a.lc[MERGE_TRANS] = a.rc[MERGE_TRANS] = 2000;
	b.lc[MERGE_TRANS] = b.rc[MERGE_TRANS] = 3000;
	a.lc[MERGE_BYTES_SENT] = a.rc[MERGE_BYTES_RECV] = 2000;
	b.lc[MERGE_BYTES_SENT] = b.rc[MERGE_BYTES_RECV] = 3000;
	a.lbusy = 300;
	b.lbusy = 400;
	a.rbusy = 100;
	b.rbusy = 200;
	a.ltotal = b.ltotal = a.rtotal = b.rtotal = 1000;
	da = mk_doc(&a);
	db = mk_doc(&b);
	dw = mk_doc(&w);
	merge_init(&mh);
	merge_init(&mw);
	add_ok(&mh, db, "second");
	add_ok(&mh, da, "first");
	add_ok(&mw, dw, "whole");
	ck_assert_int_eq(merge_figures(&mh, &fh, err), 0);
	ck_assert_int_eq(merge_figures(&mw, &fw, err), 0);
	ck_assert_mem_eq(mh.counts, mw.counts, sizeof(mw.counts));
	ck_assert_mem_eq(mh.hist->bucket, hw.bucket, sizeof(hw.bucket));
	ck_assert_uint_eq(mh.hist->count, hw.count);
	ck_assert(mh.hist->sumsq == hw.sumsq);
	ck_assert_double_eq(fh.lat.p50, fw.lat.p50);
	ck_assert_double_eq(fh.lat.p99, fw.lat.p99);
	ck_assert_double_eq(fh.lat.p9999, fw.lat.p9999);
	ck_assert_double_eq(fh.lat.mean, fw.lat.mean);
	ck_assert_double_eq(fh.lat.stddev, fw.lat.stddev);
	ck_assert_double_eq(fh.lat.min, fw.lat.min);
	ck_assert_double_eq(fh.lat.max, fw.lat.max);
	/* The percentiles are those of the values themselves. */
	ck_assert_double_eq(fh.lat.p99, stats_hist_percentile(&hw, 99) / 1e3);
	/* Disjoint in time on the same host: CPU times add. */
	ck_assert_double_eq_tol(fh.cpu_s[0], 7.0, 1e-12);
	ck_assert_double_eq_tol(fh.cpu_s[1], 3.0, 1e-12);
	ck_assert_double_eq_tol(fh.sd[0], fw.sd[0], 1e-9);
	ck_assert_double_eq_tol(fh.sd[1], fw.sd[1], 1e-9);
	ck_assert_double_eq_tol(fh.sd[0], 7.0 * 1e6 / 5000, 1e-9);
	json_decref(da);
	json_decref(db);
	json_decref(dw);
	merge_free(&mh);
	merge_free(&mw);
}
END_TEST

/* One host measured by several concurrent runs counts once (its
 * /proc/stat is machine-wide); different hosts add up. */
START_TEST(shared_host_cpu_counts_once)
{
	struct spec a, b, c;
	struct merge m;
	struct merge_figures f;
	char err[ERR_LEN];
	json_t *d[3];
	int i;

	spec_default(&a);
	a.lc[MERGE_TRANS] = a.rc[MERGE_TRANS] = 1000;
	a.lbusy = 100;
	a.ltotal = 1000;
	a.rbusy = 500;
	a.rtotal = 2000;
	b = a;
	b.lhost = "client2";
	b.start += 1000000;
	b.end += 1000000;
	b.rbusy = 520; /* the same server, a slightly longer view */
	b.rtotal = 2010;
	c = a;
	c.lhost = "client3";
	c.rhost = "server2";
	d[0] = mk_doc(&a);
	d[1] = mk_doc(&b);
	d[2] = mk_doc(&c);
	merge_init(&m);
	for (i = 0; i < 3; i++)
		add_ok(&m, d[i], i == 0 ? "a" : i == 1 ? "b" : "c");
	ck_assert_int_eq(merge_figures(&m, &f, err), 0);
	/* clients: 1 + 1 + 1 s; servers: "server" once (5.2 s, the longer
	 * view) plus server2 (5 s). */
	ck_assert_double_eq_tol(f.cpu_s[0], 3.0, 1e-12);
	ck_assert_double_eq_tol(f.cpu_s[1], 10.2, 1e-12);
	ck_assert_double_eq_tol(f.sd[1], 10.2 * 1e6 / 3000, 1e-9);
	ck_assert_uint_eq(m.counts[MERGE_REMOTE][MERGE_TRANS], 3000);
	for (i = 0; i < 3; i++)
		json_decref(d[i]);
	merge_free(&m);
}
END_TEST

/* Throughput over the window every run was active in, from the -D
 * samples; skew from the actual starts. */
START_TEST(window_and_skew)
{
	struct spec a, b;
	struct merge m;
	struct merge_figures f;
	char err[ERR_LEN];
	json_t *da, *db;
	int i;

	spec_default(&a);
	a.nsamples = 10;
	a.interval = 1.0;
	for (i = 0; i < 10; i++)
		a.value[i] = 100;
	a.thruput = 100;
	a.sched = a.start;
	b = a;
	b.start += INT64_C(2000000000);
	b.end += INT64_C(2000000000);
	for (i = 0; i < 10; i++)
		b.value[i] = i < 5 ? 50 : 70;
	b.thruput = 60;
	da = mk_doc(&a);
	db = mk_doc(&b);
	merge_init(&m);
	add_ok(&m, da, "a");
	add_ok(&m, db, "b");
	ck_assert_int_eq(merge_figures(&m, &f, err), 0);
	/* [2, 10) s: a moved 8 * 100, b 5 * 50 + 3 * 70. */
	ck_assert_double_eq_tol(f.window_s, 8.0, 1e-9);
	ck_assert_double_eq_tol(f.thruput_window, (800.0 + 460.0) / 8.0, 1e-9);
	ck_assert_double_eq_tol(f.thruput_sum, 160.0, 1e-12);
	ck_assert_double_eq_tol(f.skew_s, 2.0, 1e-12);
	ck_assert_double_eq_tol(f.late_max_s, 2.0, 1e-12);
	/* Neither says how long it waited for a CPU. */
	ck_assert_double_eq(f.late_wait_s, -1);
	merge_free(&m);

	/* The latest run's wait for a CPU is given with its lateness, and
	 * a merged document carries it to the next merge; an earlier
	 * run's wait is not the latest's. */
	json_object_set_new(json_object_get(da, "timing"), "start_cpu_wait_ns",
			    json_integer(7));
	json_object_set_new(json_object_get(db, "timing"), "start_cpu_wait_ns",
			    json_integer(1500000000));
	merge_init(&m);
	add_ok(&m, da, "a");
	add_ok(&m, db, "b");
	ck_assert_int_eq(merge_figures(&m, &f, err), 0);
	ck_assert_double_eq_tol(f.late_wait_s, 1.5, 1e-12);
	{
		char *t = state_text(&m);
		json_t *again = reparse(t);
		struct merge m2;
		struct merge_figures f2;

		ck_assert_double_eq_tol(json_number_value(json_object_get(
					    json_object_get(again, "timing"),
					    "late_max_cpu_wait_ms")),
					1500.0, 1e-9);
		merge_init(&m2);
		add_ok(&m2, again, "merged");
		ck_assert_int_eq(merge_figures(&m2, &f2, err), 0);
		ck_assert_double_eq_tol(f2.late_wait_s, 1.5, 1e-12);
		merge_free(&m2);
		json_decref(again);
		free(t);
	}
	merge_free(&m);
	json_object_set_new(json_object_get(db, "timing"), "start_cpu_wait_ns",
			    json_null());
	merge_init(&m);
	add_ok(&m, da, "a");
	add_ok(&m, db, "b");
	ck_assert_int_eq(merge_figures(&m, &f, err), 0);
	ck_assert_double_eq(f.late_wait_s, -1);
	merge_free(&m);

	/* Without samples from every run there is no window, and it says
	 * so. */
	json_decref(db);
	b.nsamples = 0;
	db = mk_doc(&b);
	merge_init(&m);
	add_ok(&m, da, "a");
	add_ok(&m, db, "b");
	ck_assert_int_eq(merge_figures(&m, &f, err), 0);
	ck_assert(f.thruput_window < 0);
	ck_assert_ptr_nonnull(strstr(f.window_note, "-D"));
	ck_assert_ptr_nonnull(strstr(f.window_note, "b has none"));
	merge_free(&m);
	json_decref(da);
	json_decref(db);
}
END_TEST

static int
add_rc(struct merge *m, json_t *doc, char *err)
{
	int rc = merge_add_doc(m, doc, "x.json", err);

	json_decref(doc);
	return rc;
}

/* Tests, units and histogram schemes never mix; bad documents are named
 * and leave the merge as it was. */
START_TEST(refusals)
{
	struct stats_hist h;
	struct spec s;
	struct merge m;
	char err[ERR_LEN], *before, *after;
	json_t *d;

	stats_hist_init(&h);
	stats_hist_add(&h, 12345);
	spec_default(&s);
	s.h = &h;
	merge_init(&m);
	add_ok(&m, d = mk_doc(&s), "first");
	json_decref(d);
	before = state_text(&m);

	s.test = "TCP_STREAM";
	ck_assert_int_eq(add_rc(&m, mk_doc(&s), err), -2);
	ck_assert_ptr_nonnull(
	    strstr(err, "TCP_STREAM result cannot be merged"));
	s.test = "TCP_RR";
	s.units = "10^6bits/s";
	ck_assert_int_eq(add_rc(&m, mk_doc(&s), err), -2);
	ck_assert_ptr_nonnull(strstr(err, "cannot be merged with results in"));
	s.units = "Trans/s";

	/* Another histogram scheme. */
	d = mk_doc(&s);
	json_object_set_new(
	    json_object_get(json_object_get(d, "latency_us"), "exact"),
	    "sub_buckets", json_integer(64));
	ck_assert_int_eq(add_rc(&m, d, err), -2);
	ck_assert_ptr_nonnull(strstr(err, "histogram scheme"));

	/* A bucket that is not one of the scheme's. */
	d = mk_doc(&s);
	json_array_set_new(
	    json_object_get(
		json_object_get(json_object_get(d, "latency_us"), "exact"),
		"buckets"),
	    0,
	    json_pack("[I, I, I]", (json_int_t)12345, (json_int_t)12400,
		      (json_int_t)1));
	ck_assert_int_eq(add_rc(&m, d, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a bucket"));

	/* Counts that do not add up. */
	d = mk_doc(&s);
	json_object_set_new(
	    json_object_get(json_object_get(d, "latency_us"), "exact"), "count",
	    json_integer(2));
	ck_assert_int_eq(add_rc(&m, d, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "count says 2"));

	/* The mean of iterations. */
	s.iterations = 3;
	ck_assert_int_eq(add_rc(&m, mk_doc(&s), err), -1);
	ck_assert_ptr_nonnull(strstr(err, "3 iterations"));
	s.iterations = 1;

	/* No timing: an older netperf's document. */
	d = mk_doc(&s);
	json_object_del(d, "timing");
	ck_assert_int_eq(add_rc(&m, d, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "no start and end times"));

	/* Not ours at all. */
	ck_assert_int_eq(
	    add_rc(&m, json_pack("{s:s}", "schema", "iperf3"), err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a netperf result"));

	after = state_text(&m);
	ck_assert_str_eq(before, after);
	free(after);

	/* A failed run's document is counted and named, not merged. */
	d = json_pack("{s:s, s:i, s:s, s:[s]}", "schema", "netperf-result",
		      "schema_version", 1, "test", "TCP_RR", "errors",
		      "cannot connect to beta port 12865: Connection refused");
	ck_assert_int_eq(add_rc(&m, d, err), 1);
	ck_assert_ptr_nonnull(strstr(err, "x.json: the run failed: cannot "
					  "connect"));
	ck_assert_int_eq(m.nfail, 1);
	ck_assert_str_eq(m.fail[0].name, "x.json");
	ck_assert_int_eq(m.nruns, 1);
	free(before);
	merge_free(&m);

	/* Nothing merged: an error, not a zero. */
	merge_init(&m);
	{
		struct merge_figures f;

		ck_assert_int_eq(merge_figures(&m, &f, err), -1);
		ck_assert_ptr_nonnull(strstr(err, "nothing to merge"));
	}
	merge_free(&m);
}
END_TEST

START_TEST(selector_lists)
{
	char err[ERR_LEN];

	ck_assert_int_eq(
	    merge_list_check("THROUGHPUT,start_skew p99_latency", err), 0);
	ck_assert_int_eq(merge_list_check("THRUPUT", err), -1);
	ck_assert_ptr_nonnull(
	    strstr(err, "unknown merge selector \"THRUPUT\""));
}
END_TEST

/* --- against a real netserver ------------------------------------------ */

static struct harness_server srv;

static void
setup(void)
{
	ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
}

static void
teardown(void)
{
	harness_server_stop(&srv);
}

static int64_t
real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs argv with stdout into path and stderr into path.err, on CPU cpu
 * alone when it is not negative; returns its PID. */
static pid_t
spawn_on(const char *const *argv, const char *path, int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		char epath[256];
		FILE *f = freopen(path, "w", stdout);
		cpu_set_t set;

		snprintf(epath, sizeof(epath), "%s.err", path);
		if (f == NULL || freopen(epath, "w", stderr) == NULL)
			_exit(127);
		CPU_ZERO(&set);
		if (cpu >= 0) {
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0)
				_exit(127);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static pid_t
spawn_to(const char *const *argv, const char *path)
{
	return spawn_on(argv, path, -1);
}

/* A result file netperf wrote, parsed; fails the test when it is not
 * one JSON document. */
static json_t *
load_doc(const char *path)
{
	json_error_t je;
	json_t *d = json_load_file(path, 0, &je);

	ck_assert_msg(d != NULL, "%s: %s", path, je.text);
	return d;
}

/* Three clients scheduled at one moment: each starts at it (never
 * before, by our own clock), both sides time from it, and the merge's
 * counts are the sum of the three documents'. */
START_TEST(three_clients_one_start)
{
	char port[16], at[64], path[3][64], *out = NULL, errbuf[4096];
	char val[64];
	int64_t sched, before;
	int schedstat = harness_have_schedstat();
	double tsum = 0, smin = 1e30, smax = 0;
	long long lsum = 0, rsum = 0, bsum = 0;
	pid_t pids[3];
	int i, st;

	snprintf(port, sizeof(port), "%d", srv.port);
	before = real_ns();
	/* Time enough for three clients to start and set up on a loaded
	 * machine (or under the sanitizer). */
	sched = before + INT64_C(3000000000);
	snprintf(at, sizeof(at), "%lld.%09lld", (long long)(sched / 1000000000),
		 (long long)(sched % 1000000000));
	for (i = 0; i < 3; i++) {
		const char *argv[] = {
		    NP_NETPERF, "-H",	  "127.0.0.1", "-p",	     port,
		    "-t",	"TCP_RR", "-l",	       "1",	     "-D",
		    "0.25",	"-c",	  "-C",	       "--start-at", at,
		    "--json",	NULL};

		snprintf(path[i], sizeof(path[i]), "/tmp/np_merge_%d_%d.json",
			 (int)getpid(), i);
		pids[i] = spawn_to(argv, path[i]);
		ck_assert_int_gt(pids[i], 0);
	}
	for (i = 0; i < 3; i++) {
		int rc = harness_wait_status(pids[i], harness_now() + 30);
		char epath[256], msg[512];

		snprintf(epath, sizeof(epath), "%s.err", path[i]);
		harness_read_file(epath, msg, sizeof(msg));
		unlink(epath);
		ck_assert_msg(rc == 0, "client %d: status %d: %s", i, rc, msg);
	}
	for (i = 0; i < 3; i++) {
		json_t *d = load_doc(path[i]);
		double start, rstart, rel, wait, own;

		ck_assert_double_eq(
		    harness_json_num(d, "timing.start_scheduled_ns"),
		    (double)sched);
		start = harness_json_num(d, "timing.start_actual_ns");
		rstart = harness_json_num(d, "timing.remote_start_ns");
		/* Not before the moment, and not long after it. */
		ck_assert_msg(start >= (double)sched &&
				  start < (double)sched + 2e8,
			      "start %.0f sched %lld", start, (long long)sched);
		/* Late by little more than the scheduler made it wait for a
		 * CPU (the kernel's count): other work on this machine can
		 * delay a wake-up by tens of ms, netperf itself should not.
		 * The wait is at most the lateness. */
		smin = fmin(smin, start);
		smax = fmax(smax, start);
		wait = harness_json_num(d, "timing.start_cpu_wait_ns");
		own = start - (double)sched - wait;
		if (schedstat)
			ck_assert_msg(
			    wait >= 0 && own >= 0 && own < 2e7,
			    "start %.3f ms late, %.3f ms of it waiting for a "
			    "CPU",
			    (start - (double)sched) / 1e6, wait / 1e6);
		ck_assert_msg(rstart >= (double)sched &&
				  rstart < (double)sched + 2e8,
			      "remote start %.0f sched %lld (%+.3f ms)", rstart,
			      (long long)sched, (rstart - (double)sched) / 1e6);
		/* The sleep is not in either side's interval, and both
		 * sides end together, when the client stops. */
		rel = harness_json_num(d, "remote.counts.elapsed_s");
		ck_assert_msg(rel > 0.5 && rel < 1.5, "remote elapsed %.3f",
			      rel);
		ck_assert_msg(fabs(harness_json_num(d, "timing.remote_end_ns") -
				   harness_json_num(d, "timing.end_ns")) < 2e8,
			      "remote end %.0f, local end %.0f",
			      harness_json_num(d, "timing.remote_end_ns"),
			      harness_json_num(d, "timing.end_ns"));
		ck_assert_double_lt(
		    harness_json_num(d, "local.counts.elapsed_s"), 1.5);
		ck_assert_int_ge(
		    (int)json_array_size(harness_json_at(d, "interim")), 3);
		lsum +=
		    (long long)harness_json_num(d, "local.counts.transactions");
		rsum += (long long)harness_json_num(
		    d, "remote.counts.transactions");
		bsum +=
		    (long long)harness_json_num(d, "local.counts.bytes_sent");
		tsum += harness_json_num(d, "result.throughput");
		json_decref(d);
	}
	{
		const char *argv[] = {NP_NETPERF,
				      "--merge",
				      path[0],
				      path[1],
				      path[2],
				      "--max-skew",
				      "0.02",
				      "--",
				      "-k",
				      "RUNS,FAILED_RUNS,LOCAL_TRANSACTIONS,"
				      "REMOTE_TRANSACTIONS,LOCAL_BYTES_SENT,"
				      "THROUGHPUT,START_SKEW,THROUGHPUT_WINDOW,"
				      "START_SCHEDULED,LOCAL_SD,REMOTE_SD",
				      NULL};

		st = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
		ck_assert_msg(st == 0 || st == 3, "merge: %d %s", st, errbuf);
	}
	ck_assert_int_eq(harness_keyval(out, "RUNS", val, sizeof(val)), 0);
	ck_assert_str_eq(val, "3");
	ck_assert_int_eq(harness_keyval(out, "FAILED_RUNS", val, sizeof(val)),
			 0);
	ck_assert_str_eq(val, "0");
	harness_keyval(out, "LOCAL_TRANSACTIONS", val, sizeof(val));
	ck_assert_int_eq(atoll(val), lsum);
	harness_keyval(out, "REMOTE_TRANSACTIONS", val, sizeof(val));
	ck_assert_int_eq(atoll(val), rsum);
	harness_keyval(out, "LOCAL_BYTES_SENT", val, sizeof(val));
	ck_assert_int_eq(atoll(val), bsum);
	harness_keyval(out, "THROUGHPUT", val, sizeof(val));
	ck_assert_double_eq_tol(atof(val), tsum, 0.02);
	harness_keyval(out, "START_SCHEDULED", val, sizeof(val));
	ck_assert_int_eq(atoll(val), sched);
	harness_keyval(out, "THROUGHPUT_WINDOW", val, sizeof(val));
	ck_assert_double_gt(atof(val), 0);
	harness_keyval(out, "LOCAL_SD", val, sizeof(val));
	ck_assert_double_gt(atof(val), 0);
	if (!schedstat)
		harness_skip("no /proc/thread-self/schedstat: a late start's "
			     "wait for a CPU is unknown");
	/* The skew is the files' own: each start was checked above. */
	harness_keyval(out, "START_SKEW", val, sizeof(val));
	ck_assert_msg(fabs(atof(val) - (smax - smin) / 1e6) < 0.001,
		      "skew %s ms, the files %.6f ms", val,
		      (smax - smin) / 1e6);
	free(out);
	/* Each run's platform records (h16's) are carried through as they
	 * were, side by side. */
	{
		const char *argv[] = {NP_NETPERF, "--merge", path[0], "--json",
				      NULL};
		json_t *m, *d;

		st = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
		ck_assert_msg(st == 0 || st == 3, "merge --json: %d", st);
		m = harness_json_parse(out);
		free(out);
		d = load_doc(path[0]);
		ck_assert_ptr_nonnull(m);
		ck_assert(json_is_object(harness_json_at(d, "local.platform")));
		ck_assert(
		    json_equal(harness_json_at(m, "inputs.0.local_platform"),
			       harness_json_at(d, "local.platform")));
		ck_assert(
		    json_equal(harness_json_at(m, "inputs.0.remote_platform"),
			       harness_json_at(d, "remote.platform")));
		json_decref(m);
		json_decref(d);
	}
	for (i = 0; i < 3; i++)
		unlink(path[i]);
}
END_TEST

/* A fleet with a failed client and a truncated file still merges the
 * rest, names both on stderr and exits non-zero. */
START_TEST(failed_client_is_counted)
{
	char port[16], path[3][64], *out = NULL, errbuf[4096], val[64];
	const char *bad_port;
	pid_t pid;
	FILE *f;
	int i, st;

	snprintf(port, sizeof(port), "%d", srv.port);
	for (i = 0; i < 3; i++)
		snprintf(path[i], sizeof(path[i]), "/tmp/np_mfail_%d_%d.json",
			 (int)getpid(), i);
	{
		const char *argv[] = {NP_NETPERF, "-H",	    "127.0.0.1", "-p",
				      port,	  "-t",	    "TCP_RR",	 "-l",
				      "0.5",	  "--json", NULL};

		pid = spawn_to(argv, path[0]);
		ck_assert_int_eq(harness_wait_status(pid, harness_now() + 20),
				 0);
	}
	{
		char p2[16];
		const char *argv[] = {NP_NETPERF, "-H", "127.0.0.1", "-p", p2,
				      "-l",	  "1",	"--json",    NULL};

		snprintf(p2, sizeof(p2), "%d", harness_free_port());
		bad_port = p2;
		(void)bad_port;
		pid = spawn_to(argv, path[1]);
		/* Refused: 2.7's status for a control connection that
		 * cannot be made. */
		ck_assert_int_eq(harness_wait_status(pid, harness_now() + 20),
				 255);
	}
	f = fopen(path[2], "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"schema\": \"netperf-result\", \"test\": ", f);
	fclose(f);
	{
		const char *argv[] = {
		    NP_NETPERF, "--merge", path[0], path[1],
		    path[2],	"--",	   "-k",    "RUNS,FAILED_RUNS",
		    NULL};

		st = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
	}
	ck_assert_int_eq(st, 1);
	ck_assert_int_eq(harness_keyval(out, "RUNS", val, sizeof(val)), 0);
	ck_assert_str_eq(val, "1");
	harness_keyval(out, "FAILED_RUNS", val, sizeof(val));
	ck_assert_str_eq(val, "2");
	ck_assert_ptr_nonnull(strstr(errbuf, "the run failed: cannot connect"));
	ck_assert_ptr_nonnull(strstr(errbuf, "not a complete JSON document"));
	ck_assert_ptr_nonnull(strstr(errbuf, path[1]));
	ck_assert_ptr_nonnull(strstr(errbuf, path[2]));
	free(out);
	/* Several documents in one stream (kubectl logs of many pods): each
	 * is merged or counted, named FILE#N. */
	{
		char both[96], cmd[512];
		const char *argv[] = {NP_NETPERF, "--merge", both,
				      "--",	  "-k",	     "RUNS,FAILED_RUNS",
				      NULL};

		snprintf(both, sizeof(both), "/tmp/np_mboth_%d.json",
			 (int)getpid());
		snprintf(cmd, sizeof(cmd), "cat %s %s %s >%s", path[0], path[1],
			 path[0], both);
		ck_assert_int_eq(system(cmd), 0);
		st = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
		unlink(both);
		ck_assert_int_eq(st, 1);
		harness_keyval(out, "RUNS", val, sizeof(val));
		ck_assert_str_eq(val, "2");
		harness_keyval(out, "FAILED_RUNS", val, sizeof(val));
		ck_assert_str_eq(val, "1");
		ck_assert_ptr_nonnull(strstr(errbuf, "#2: the run failed"));
		free(out);
	}
	/* A missing file is one line too. */
	{
		const char *argv[] = {NP_NETPERF, "--merge",
				      "/nonexistent/x.json", NULL};

		st = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
		free(out);
		ck_assert_int_eq(st, 1);
		ck_assert_ptr_nonnull(strstr(errbuf,
					     "/nonexistent/x.json: cannot "
					     "read"));
	}
	for (i = 0; i < 3; i++) {
		char epath[256];

		snprintf(epath, sizeof(epath), "%s.err", path[i]);
		unlink(epath);
		unlink(path[i]);
	}
}
END_TEST

/* The first CPU this process may run on. */
static int
first_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				return i;
	return 0;
}

/*
 * Forks a real-time hog on cpu that spins from 20 ms before at (CLOCK_-
 * REALTIME ns) to ms after it, then exits; nothing else of normal
 * priority runs on that CPU meanwhile. Returns its PID once it holds its
 * priority, or -1 with why set when it cannot have it.
 */
static pid_t
rt_hog(int cpu, int64_t at, int ms, char *why, size_t cap)
{
	int fds[2];
	char ok = 0;
	pid_t pid;

	if (pipe(fds) < 0) {
		snprintf(why, cap, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		struct sched_param sp = {.sched_priority = 10};
		struct timespec ts, now;
		cpu_set_t set;
		int64_t spin_ns, end;

		close(fds[0]);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		ok = sched_setaffinity(0, sizeof(set), &set) == 0 &&
		     sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
		if (write(fds[1], &ok, 1) != 1 || !ok)
			_exit(1);
		close(fds[1]);
		ts.tv_sec = (time_t)((at - 20000000) / 1000000000);
		ts.tv_nsec = (long)((at - 20000000) % 1000000000);
		clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
		/* Bounded on the monotonic clock too, whatever the wall
		 * clock does. */
		spin_ns = at + (int64_t)ms * 1000000 - real_ns();
		if (spin_ns > (int64_t)(ms + 25) * 1000000)
			spin_ns = (int64_t)(ms + 25) * 1000000;
		clock_gettime(CLOCK_MONOTONIC, &now);
		end = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + spin_ns;
		do
			clock_gettime(CLOCK_MONOTONIC, &now);
		while ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec < end);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &ok, 1) != 1 || !ok) {
		snprintf(why, cap,
			 "cannot run a real-time hog on CPU %d "
			 "(needs CAP_SYS_NICE)",
			 cpu);
		if (pid > 0)
			harness_wait_status(pid, harness_now() + 5);
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	return pid;
}

/* A start held up by a busy CPU says so: netperf wakes at its time on a
 * CPU that a real-time hog holds for 50 ms; the kernel's count of its
 * wait is nearly all of its lateness, and the merge puts the warning on
 * the busy host, not on the clocks. */
START_TEST(late_start_waits_for_cpu)
{
	char port[16], at[64], path[64], why[160], val[64], msg[512];
	char epath[96], *out = NULL, errbuf[4096];
	int64_t sched, start_ns, wait_ns, late_ns;
	double wait, late;
	pid_t hog, pid;
	int cpu = first_cpu(), rc;
	json_t *d;

	if (!harness_have_schedstat()) {
		harness_skip("no /proc/thread-self/schedstat: a late start's "
			     "wait for a CPU is unknown");
		return;
	}
	snprintf(port, sizeof(port), "%d", srv.port);
	/* Ahead by enough for netperf to set up on a loaded machine. */
	sched = real_ns() + INT64_C(3000000000);
	snprintf(at, sizeof(at), "%lld.%09lld", (long long)(sched / 1000000000),
		 (long long)(sched % 1000000000));
	hog = rt_hog(cpu, sched, 50, why, sizeof(why));
	if (hog < 0) {
		harness_skip("%s", why);
		return;
	}
	snprintf(path, sizeof(path), "/tmp/np_mlate_%d.json", (int)getpid());
	snprintf(epath, sizeof(epath), "%s.err", path);
	{
		const char *argv[] = {NP_NETPERF, "-H",	    "127.0.0.1",  "-p",
				      port,	  "-t",	    "TCP_RR",	  "-l",
				      "0.5",	  "--json", "--start-at", at,
				      NULL};

		pid = spawn_on(argv, path, cpu);
	}
	ck_assert_int_gt(pid, 0);
	rc = harness_wait_status(pid, harness_now() + 30);
	ck_assert_int_eq(harness_wait_status(hog, harness_now() + 10), 0);
	harness_read_file(epath, msg, sizeof(msg));
	unlink(epath);
	ck_assert_msg(rc == 0, "netperf: status %d: %s", rc, msg);
	/* The merge below reads the file; it is removed whatever it finds. */
	d = load_doc(path);
	/* Integers, as netperf wrote them: a wall-clock time in ns is
	 * about 2^61, and a double holds it only to 256 ns, so a wait that
	 * netperf clamped to its lateness could read as larger than a
	 * lateness taken from doubles. */
	ck_assert(
	    json_is_integer(harness_json_at(d, "timing.start_actual_ns")));
	ck_assert(
	    json_is_integer(harness_json_at(d, "timing.start_cpu_wait_ns")));
	start_ns =
	    json_integer_value(harness_json_at(d, "timing.start_actual_ns"));
	wait_ns =
	    json_integer_value(harness_json_at(d, "timing.start_cpu_wait_ns"));
	late_ns = start_ns - sched;
	json_decref(d);
	/*
	 * The hog held the CPU for 50 ms from the moment netperf woke. The
	 * wait is schedstat's run delay, counted in ns on the scheduler's
	 * clock, and the lateness CLOCK_REALTIME's, in ns: netperf caps the
	 * one at the other (the two clocks may run apart by NTP's slew), so
	 * that exactly, with no tolerance. What is late but not waiting is
	 * the timer's slack and netperf's own few steps to its stamp.
	 */
	ck_assert_msg(wait_ns >= 40000000 && wait_ns <= late_ns &&
			  late_ns - wait_ns < 10000000,
		      "%lld ns late, %lld ns of it waiting for a CPU",
		      (long long)late_ns, (long long)wait_ns);
	wait = (double)wait_ns;
	late = (double)late_ns;
	{
		const char *argv[] = {
		    NP_NETPERF, "--merge",
		    path,	"--max-skew",
		    "0.01",	"--",
		    "-k",	"START_LATE_MAX,START_LATE_CPU_WAIT",
		    NULL};

		rc = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
	}
	unlink(path);
	/* Status 3: the warning of a late start. */
	ck_assert_msg(rc == 3, "merge: status %d: %s", rc, errbuf);
	ck_assert_msg(strstr(errbuf, "of it waiting for a CPU (a busy host)"),
		      "%s", errbuf);
	ck_assert_int_eq(
	    harness_keyval(out, "START_LATE_CPU_WAIT", val, sizeof(val)), 0);
	/* The merge prints ms to 3 places: half a microsecond either way
	 * of the exact figure, and a double's rounding of it. */
	ck_assert_double_eq_tol(atof(val), wait / 1e6, 0.0005 + 1e-9);
	ck_assert_int_eq(
	    harness_keyval(out, "START_LATE_MAX", val, sizeof(val)), 0);
	ck_assert_double_eq_tol(atof(val), late / 1e6, 0.0005 + 1e-9);
	free(out);
}
END_TEST

/* A scheduled start in the past, or too far ahead, is refused at once. */
START_TEST(start_at_refused)
{
	char port[16], *out = NULL, errbuf[4096];
	int st;

	snprintf(port, sizeof(port), "%d", srv.port);
	{
		const char *argv[] = {NP_NETPERF,     "-H", "127.0.0.1",
				      "-p",	      port, "--start-at",
				      "1000000000.5", NULL};

		st = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
		free(out);
		ck_assert_int_eq(st, 2);
		ck_assert_ptr_nonnull(strstr(errbuf, "in the past"));
	}
	{
		const char *argv[] = {NP_NETPERF, "-H", "127.0.0.1",
				      "-p",	  port, "--start-at",
				      "+3601",	  NULL};

		st = harness_exec_capture(argv, 10, &out, errbuf,
					  sizeof(errbuf));
		free(out);
		ck_assert_int_eq(st, 2);
		ck_assert_ptr_nonnull(strstr(errbuf, "at most 3600"));
	}
}
END_TEST

/* --- hostile result files ------------------------------------------- */

/* Writes a document, compact, as one line of path (appending when
 * append). */
static void
put_doc(const char *path, json_t *d, int append)
{
	FILE *f = fopen(path, append ? "a" : "w");
	char *t = json_dumps(d, JSON_COMPACT);

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_ge(fprintf(f, "%s\n", t), 0);
	ck_assert_int_eq(fclose(f), 0);
	free(t);
	json_decref(d);
}

/* Fails when text holds a byte that drives a terminal: ESC, BEL or any
 * other control but newline. */
static void
assert_no_controls(const char *what, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		ck_assert_msg(*c >= 0x20 || *c == '\n',
			      "%s: raw byte 0x%02x at %td: %.200s", what, *c,
			      (const char *)c - text, text);
}

/* Runs netperf with argv (NP_NETPERF first) into *out and err; returns
 * its status. */
static int
merge_cmd(const char *const *argv, char **out, char *err, size_t cap)
{
	int st = harness_exec_capture(argv, 60, out, err, cap);

	ck_assert_ptr_nonnull(*out);
	return st;
}

/*
 * Strings of a result file reach the terminal escaped, in every output
 * form: the test, units, hosts and run names, a failed run's reason and
 * jansson's message about a broken file, which quotes it. --json keeps
 * the text exact, as valid JSON.
 */
START_TEST(hostile_text_is_escaped)
{
	static const char test[] = "TCP_RR\x1b]0;pwn\x07";
	char a[64], b[64], c[64], err[4096], *out;
	struct spec s;
	json_t *d;
	int st;

	snprintf(a, sizeof(a), "/tmp/np_mesc_a_%d.json", (int)getpid());
	snprintf(b, sizeof(b), "/tmp/np_mesc_b_%d.json", (int)getpid());
	snprintf(c, sizeof(c), "/tmp/np_mesc_c_%d.json", (int)getpid());
	spec_default(&s);
	s.test = test;
	s.units = "Trans/s\x1b[2J";
	s.lhost = "client\x1b[31m";
	s.rhost = "server\x07";
	put_doc(a, mk_doc(&s), 0);
	d = mk_doc(&s);
	json_object_set_new(
	    d, "errors", json_pack("[s]", "\x1b[1A\rnetperf: forged line\x07"));
	put_doc(b, d, 0);
	/* A broken file: jansson's message quotes the ESC after "1". */
	harness_write_file(c, "{\"schema\":1 \x1b[2J}", 17, 0600);
	{
		const char *argv[] = {NP_NETPERF, "--merge", a,	  b,
				      c,	  "-v",	     "2", NULL};

		st = merge_cmd(argv, &out, err, sizeof(err));
		ck_assert_int_eq(st, 1);
		assert_no_controls("table", out);
		assert_no_controls("stderr", err);
		ck_assert_ptr_nonnull(strstr(out, "MERGED TCP_RR\\x1b]0;pwn"));
		ck_assert_ptr_nonnull(strstr(out, "client\\x1b[31m"));
		ck_assert_ptr_nonnull(strstr(err, "forged line\\x07"));
		ck_assert_ptr_nonnull(strstr(err, "near '\\x1b'"));
		free(out);
	}
	for (int mode = 0; mode < 3; mode++) {
		const char *flag[] = {"-k", "-o", "-O"};
		const char *argv[] = {NP_NETPERF,
				      "--merge",
				      a,
				      b,
				      "--",
				      flag[mode],
				      "TEST,THROUGHPUT_UNITS,RUNS",
				      NULL};

		st = merge_cmd(argv, &out, err, sizeof(err));
		ck_assert_int_eq(st, 1);
		assert_no_controls(flag[mode], out);
		assert_no_controls("stderr", err);
		ck_assert_ptr_nonnull(strstr(out, "Trans/s\\x1b[2J"));
		free(out);
	}
	{
		const char *argv[] = {NP_NETPERF, "--merge", a,
				      b,	  "--json",  NULL};
		json_error_t je;

		st = merge_cmd(argv, &out, err, sizeof(err));
		ck_assert_int_eq(st, 1);
		assert_no_controls("stderr", err);
		d = json_loads(out, 0, &je);
		ck_assert_msg(d != NULL, "not JSON: %s", je.text);
		ck_assert_str_eq(json_string_value(json_object_get(d, "test")),
				 test);
		json_decref(d);
		free(out);
	}
	/* A file name is any bytes, not UTF-8: the merged JSON still names
	 * that input, escaped, rather than losing it. */
	{
		char odd[64];
		const char *argv[] = {NP_NETPERF, "--merge", a,
				      odd,	  "--json",  NULL};
		json_error_t je;
		json_t *in;

		snprintf(odd, sizeof(odd), "/tmp/np_mesc_\xff\x1b_%d.json",
			 (int)getpid());
		spec_default(&s);
		s.start += 1000;
		s.test = test;
		s.units = "Trans/s\x1b[2J";
		put_doc(odd, mk_doc(&s), 0);
		st = merge_cmd(argv, &out, err, sizeof(err));
		unlink(odd);
		ck_assert_msg(st == 0, "status %d: %s", st, err);
		d = json_loads(out, 0, &je);
		ck_assert_msg(d != NULL, "not JSON: %s", je.text);
		in = json_object_get(d, "inputs");
		ck_assert_int_eq(json_array_size(in), 2);
		ck_assert_ptr_nonnull(
		    strstr(json_string_value(
			       json_object_get(json_array_get(in, 1), "name")),
			   "np_mesc_\\xff\\x1b_"));
		json_decref(d);
		free(out);
	}
	unlink(a);
	unlink(b);
	unlink(c);
}
END_TEST

/* Merges the files of argv into -k RUNS,THROUGHPUT; checks that it
 * stops with one line naming bad, not a number printed. */
static void
assert_refused(const char *const *argv, const char *bad, const char *why)
{
	char err[4096], *out;
	int st = merge_cmd(argv, &out, err, sizeof(err));

	ck_assert_msg(st != 0, "status 0: %s", out);
	ck_assert_msg(strstr(out, "inf") == NULL, "printed: %s", out);
	ck_assert_msg(strstr(out, "THROUGHPUT=") == NULL, "printed: %s", out);
	ck_assert_msg(harness_text_count(err, "netperf:") == 1, "stderr: %s",
		      err);
	ck_assert_msg(strstr(err, bad) != NULL && strstr(err, why) != NULL,
		      "stderr: %s", err);
	free(out);
}

/*
 * Totals that do not fit: two throughputs of 1e308 (the sum printed
 * inf with status 0), three runs of 2^63-1 bytes (the count wrapped),
 * and histogram buckets that sum to 2^64 + 5 under a count of 5 (taken
 * as 5).
 */
START_TEST(totals_that_do_not_fit)
{
	char p[3][64];
	struct stats_hist h;
	struct spec s;
	json_t *d, *buckets;
	int i;

	for (i = 0; i < 3; i++)
		snprintf(p[i], sizeof(p[i]), "/tmp/np_mfit_%d_%d.json",
			 (int)getpid(), i);
	spec_default(&s);
	s.thruput = 1e308;
	put_doc(p[0], mk_doc(&s), 0);
	s.start += 1000;
	put_doc(p[1], mk_doc(&s), 0);
	{
		const char *argv[] = {NP_NETPERF,   "--merge", p[0],
				      p[1],	    "--",      "-k",
				      "THROUGHPUT", NULL};

		assert_refused(argv, p[1], "not be a finite number");
	}
	spec_default(&s);
	for (i = 0; i < 3; i++) {
		s.lc[MERGE_BYTES_SENT] = (uint64_t)INT64_MAX;
		s.start += 1000;
		put_doc(p[i], mk_doc(&s), 0);
	}
	{
		const char *argv[] = {
		    NP_NETPERF, "--merge",	    p[0], p[1], p[2], "--",
		    "-k",	"LOCAL_BYTES_SENT", NULL};

		assert_refused(argv, p[1], "bytes_sent would pass");
	}
	/* 2^63-1 + 2^63-1 + 7 = 2^64 + 5: wraps to the count, 5. */
	spec_default(&s);
	stats_hist_init(&h);
	for (i = 0; i < 5; i++)
		stats_hist_add(&h, 1);
	s.h = &h;
	d = mk_doc(&s);
	buckets = json_pack("[[I, I, I], [I, I, I], [I, I, I]]", (json_int_t)1,
			    (json_int_t)2, (json_int_t)INT64_MAX, (json_int_t)2,
			    (json_int_t)3, (json_int_t)INT64_MAX, (json_int_t)3,
			    (json_int_t)4, (json_int_t)7);
	json_object_set_new(
	    json_object_get(json_object_get(d, "latency_us"), "exact"),
	    "buckets", buckets);
	put_doc(p[0], d, 0);
	{
		const char *argv[] = {NP_NETPERF, "--merge",	   p[0], "--",
				      "-k",	  "LATENCY_COUNT", NULL};
		char err[4096], *out;
		int st = merge_cmd(argv, &out, err, sizeof(err));

		ck_assert_msg(st != 0, "status 0: %s", out);
		ck_assert_msg(strstr(out, "LATENCY_COUNT=5") == NULL, "%s",
			      out);
		ck_assert_msg(strstr(err, p[0]) != NULL &&
				  strstr(err, "histogram buckets hold more"),
			      "stderr: %s", err);
		free(out);
	}
	for (i = 0; i < 3; i++)
		unlink(p[i]);
}
END_TEST


/*
 * A 64 MB input: one file of runs one a line (the logs of a big
 * fleet), each on its own hosts with CPU measured on both, in reverse
 * order of start. It merges in seconds (insertion into sorted arrays,
 * and a scan of every CPU account for each new one, were quadratic:
 * 20 000 runs took 16 s), every run counts (the 4097th and later were
 * dropped), and each document's tree is freed once merged.
 */
/* Writes about 63 MB of runs, one a line, to path; returns how many.
 * Run in a child of its own, so this process stays small. */
static long
write_big_merge_input(const char *path)
{
	char host[2][32];
	struct spec s;
	long n = 0;
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	spec_default(&s);
	s.lbusy = s.rbusy = 50;
	s.ltotal = s.rtotal = 200;
	s.start += INT64_C(1000000000000);
	while (ftell(f) <= ((long)HARNESS_BIG_MB << 20) - (1L << 20)) {
		json_t *d;
		char *t;

		snprintf(host[0], sizeof(host[0]), "c%ld", n);
		snprintf(host[1], sizeof(host[1]), "s%ld", n);
		s.lhost = host[0];
		s.rhost = host[1];
		s.start -= 100; /* within --max-skew's 10 ms */
		s.end = s.start + INT64_C(10000000000);
		d = mk_doc(&s);
		t = json_dumps(d, JSON_COMPACT);
		json_decref(d);
		if (t == NULL || fprintf(f, "%s\n", t) < 0)
			return -1;
		free(t);
		n++;
	}
	return fclose(f) == 0 ? n : -1;
}

START_TEST(big_input_in_seconds)
{
	char path[64], opath[80], epath[80], val[64];
	static char out[4096], err[4096];
	const char *argv[] = {NP_NETPERF, "--merge",
			      path,	  "--",
			      "-k",	  "RUNS,FAILED_RUNS,LOCAL_CPU_SECONDS",
			      NULL};
	struct stat st;
	long n = 0, rss;
	double secs;
	int rc, fd[2];
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/np_mbig_%d.json", (int)getpid());
	snprintf(opath, sizeof(opath), "%s.out", path);
	snprintf(epath, sizeof(epath), "%s.err", path);
	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		n = write_big_merge_input(path);
		_exit(write(fd[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	ck_assert_int_eq(read(fd[0], &n, sizeof(n)), sizeof(n));
	ck_assert_int_eq(harness_wait_status(pid, harness_now() + 120), 0);
	close(fd[0]);
	close(fd[1]);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(stat(path, &st), 0);
	harness_asan_small_quarantine();
	rc = harness_run_measured(argv, opath, epath, 120, &rss, &secs);
	harness_read_file(opath, out, sizeof(out));
	harness_read_file(epath, err, sizeof(err));
	unlink(path);
	unlink(opath);
	unlink(epath);
	ck_assert_msg(rc == 0, "status %d: %s", rc, err);
	ck_assert_int_eq(harness_keyval(out, "RUNS", val, sizeof(val)), 0);
	ck_assert_int_eq(atol(val), n);
	/* 50 ticks at 100 Hz a run, each on its own host. */
	harness_keyval(out, "LOCAL_CPU_SECONDS", val, sizeof(val));
	ck_assert_double_eq_tol(atof(val), 0.5 * (double)n, 1e-3 * n);
	/* Generous: it takes about 3 s here; the old code took hours for
	 * this many runs. */
	ck_assert_msg(secs < 60, "%ld runs (%lld MB) took %.1f s", n,
		      (long long)st.st_size >> 20, secs);
	/* The file's text and what each run keeps, never all the trees
	 * (a tree costs about 20 times its text). */
	ck_assert_msg(rss < 600 * 1024, "peak RSS %ld KB for %lld MB", rss,
		      (long long)st.st_size >> 20);
}
END_TEST

static Suite *
merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("pure");
	TCase *live = tcase_create("live");
	TCase *hostile = tcase_create("hostile");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, order_and_grouping_do_not_matter, 0, 3);
	tcase_add_test(tc, halves_equal_the_whole);
	tcase_add_test(tc, shared_host_cpu_counts_once);
	tcase_add_test(tc, window_and_skew);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, selector_lists);
	suite_add_tcase(s, tc);
	tcase_add_test(hostile, hostile_text_is_escaped);
	tcase_add_test(hostile, totals_that_do_not_fit);
	tcase_add_test(hostile, big_input_in_seconds);
	tcase_set_timeout(hostile, 300);
	suite_add_tcase(s, hostile);
	tcase_add_checked_fixture(live, setup, teardown);
	tcase_set_timeout(live, 60);
	tcase_add_test(live, three_clients_one_start);
	tcase_add_test(live, late_start_waits_for_cpu);
	tcase_add_test(live, failed_client_is_counted);
	tcase_add_test(live, start_at_refused);
	suite_add_tcase(s, live);
	return s;
}

int
main(void)
{
	return harness_run(merge_suite());
}
