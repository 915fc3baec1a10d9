#include "np/merge.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "np/escape.h"
#include "np/json.h"

/* The largest total a count may reach: JSON carries signed 64 bits. */
#define MERGE_COUNT_MAX ((uint64_t)INT64_MAX)
/* The longest interim interval taken, in seconds (a day): longer is not
 * a sample, and its nanoseconds would not fit with its end's. */
#define MERGE_INTERVAL_MAX 86400.0

void
merge_init(struct merge *m)
{
	memset(m, 0, sizeof(*m));
	m->cpu_all[MERGE_LOCAL] = m->cpu_all[MERGE_REMOTE] = 1;
}

void
merge_free(struct merge *m)
{
	int i;

	for (i = 0; i < m->nruns; i++) {
		free(m->runs[i].samples);
		json_decref(m->runs[i].platform[0]);
		json_decref(m->runs[i].platform[1]);
	}
	free(m->runs);
	free(m->fail);
	free(m->cpu);
	free(m->hist);
	merge_init(m);
}

/* --- reading documents ------------------------------------------------ */

/* Copies src into dst (cap bytes) as text the merged JSON can carry:
 * cut, if it must be, at a character's start; a name that is not UTF-8
 * (a file name is any bytes) escaped, as jansson writes only UTF-8. */
static void
copy_text(char *dst, size_t cap, const char *src)
{
	json_t *probe = json_string(src);

	if (probe == NULL) {
		escape_str(dst, cap, src);
		return;
	}
	json_decref(probe);
	escape_copy_utf8(dst, cap, src);
}

/* The value at a '/'-separated path of object keys, or NULL. */
static json_t *
jat(const json_t *doc, const char *path)
{
	char key[64];
	const char *p = path, *slash;
	json_t *v = (json_t *)doc;
	size_t n;

	while (v != NULL && *p != '\0') {
		slash = strchr(p, '/');
		n = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		v = json_is_object(v) ? json_object_get(v, key) : NULL;
		p += n + (slash != NULL);
	}
	return v;
}

/* A string at path into out, "" when absent; -1 when not a string. */
static int
jstr_at(const json_t *doc, const char *path, char *out, size_t cap)
{
	json_t *v = jat(doc, path);

	out[0] = '\0';
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	/* Cut, if it must be, at a character's start: the state is written
	 * again as JSON, which must be UTF-8. */
	copy_text(out, cap, json_string_value(v));
	return 0;
}

/* A non-negative integer at path; absent or null gives dflt, and
 * *present says which. Returns 0, or -1 with err set. */
static int
jint_at(const json_t *doc, const char *path, int64_t dflt, int64_t *out,
	int *present, const char *name, char *err)
{
	json_t *v = jat(doc, path);

	*out = dflt;
	if (present != NULL)
		*present = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return err_set(err, "%s: %s is not a count", name, path);
	*out = json_integer_value(v);
	if (present != NULL)
		*present = 1;
	return 0;
}

/* A start's wait for a CPU at path in ns, -1 when absent or null (an
 * older netperf, or a start not scheduled). */
static int
jwait_at(const json_t *doc, const char *path, int64_t *out, const char *name,
	 char *err)
{
	int present;

	if (jint_at(doc, path, 0, out, &present, name, err) < 0)
		return -1;
	if (!present)
		*out = -1;
	return 0;
}

/* A finite number at path; -1 with err set when absent or not one. */
static int
jnum_at(const json_t *doc, const char *path, double *out, const char *name,
	char *err)
{
	json_t *v = jat(doc, path);

	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return err_set(err, "%s: %s is missing or not a number", name,
			       path);
	*out = json_number_value(v);
	return 0;
}


/* A histogram's buckets into h, their values' number into *total;
 * returns 0, or -1 with err set. */
static int
parse_hist_buckets(const json_t *b, struct stats_hist *h, uint64_t *total,
		   const char *name, char *err)
{
	json_t *row;
	uint64_t lo, hi;
	size_t i;

	if (!json_is_array(b))
		return err_set(err, "%s: histogram has no buckets", name);
	json_array_foreach(b, i, row)
	{
		json_t *jl = json_array_get(row, 0),
		       *jh = json_array_get(row, 1),
		       *jc = json_array_get(row, 2);
		uint64_t blo, bhi;
		int idx;

		if (json_array_size(row) != 3 || !json_is_integer(jl) ||
		    !json_is_integer(jh) || !json_is_integer(jc) ||
		    json_integer_value(jl) < 0 || json_integer_value(jc) < 0)
			return err_set(err,
				       "%s: histogram bucket %zu is "
				       "malformed",
				       name, i);
		lo = (uint64_t)json_integer_value(jl);
		hi = (uint64_t)json_integer_value(jh);
		idx = stats_bucket_of(lo);
		/* The bounds must be this scheme's: a bucket is added to
		 * its namesake, never spread over others. */
		if (stats_bucket_bounds(idx, &blo, &bhi) != 0 || blo != lo ||
		    (bhi < INT64_MAX ? bhi + 1 : bhi) != hi)
			return err_set(err,
				       "%s: histogram bucket [%llu, %llu) is "
				       "not a bucket of the %s scheme",
				       name, (unsigned long long)lo,
				       (unsigned long long)hi,
				       JSON_HIST_SCHEME);
		/* Checked: buckets that wrap past 2^64 to the count must
		 * not pass for it. */
		if ((uint64_t)json_integer_value(jc) > MERGE_COUNT_MAX - *total)
			return err_set(err,
				       "%s: histogram buckets hold more than "
				       "%llu values",
				       name,
				       (unsigned long long)MERGE_COUNT_MAX);
		h->bucket[idx] += (uint64_t)json_integer_value(jc);
		*total += (uint64_t)json_integer_value(jc);
	}
	return 0;
}

/* Whether h's min and max fall in its lowest and highest non-empty
 * buckets, as a histogram's own values do; h->count > 0. */
static int
hist_bounds_agree(const struct stats_hist *h)
{
	int lo = 0, hi = STATS_NBUCKETS - 1;

	while (lo < STATS_NBUCKETS && h->bucket[lo] == 0)
		lo++;
	while (hi > lo && h->bucket[hi] == 0)
		hi--;
	return h->min <= h->max && stats_bucket_of(h->min) == lo &&
	       stats_bucket_of(h->max) == hi;
}

/* latency_us.exact (or a merge's latency_us.exact) into h; returns 0,
 * -1 when malformed, -2 when of another scheme. */
static int
parse_hist(const json_t *x, struct stats_hist *h, const char *name, char *err)
{
	char scheme[32], unit[16], sq[40];
	int64_t sub, count, mn, mx, sum;
	uint64_t total = 0;

	stats_hist_init(h);
	if (!json_is_object(x))
		return err_set(err,
			       "%s: latency_us has no exact histogram "
			       "(written by an older netperf?)",
			       name);
	if (jstr_at(x, "scheme", scheme, sizeof(scheme)) < 0 ||
	    jstr_at(x, "unit", unit, sizeof(unit)) < 0 ||
	    jint_at(x, "sub_buckets", 0, &sub, NULL, name, err) < 0)
		return -1;
	if (strcmp(scheme, JSON_HIST_SCHEME) != 0 || sub != STATS_SUB_COUNT ||
	    strcmp(unit, "ns") != 0) {
		err_set(err,
			"%s: histogram scheme %s/%lld in %s cannot be mixed "
			"with %s/%d in ns",
			name, scheme, (long long)sub, unit, JSON_HIST_SCHEME,
			STATS_SUB_COUNT);
		return -2;
	}
	if (jint_at(x, "count", 0, &count, NULL, name, err) < 0 ||
	    jint_at(x, "min", 0, &mn, NULL, name, err) < 0 ||
	    jint_at(x, "max", 0, &mx, NULL, name, err) < 0 ||
	    jint_at(x, "sum", 0, &sum, NULL, name, err) < 0 ||
	    jstr_at(x, "sumsq", sq, sizeof(sq)) < 0)
		return -1;
	if (stats_sumsq_parse(sq, &h->sumsq) < 0)
		return err_set(err, "%s: histogram sumsq is not 32 hex digits",
			       name);
	if (parse_hist_buckets(json_object_get(x, "buckets"), h, &total, name,
			       err) < 0)
		return -1;
	if (total != (uint64_t)count)
		return err_set(err,
			       "%s: histogram buckets hold %llu values, its "
			       "count says %lld",
			       name, (unsigned long long)total,
			       (long long)count);
	h->count = total;
	h->sum = (uint64_t)sum;
	if (total > 0) {
		h->min = (uint64_t)mn;
		h->max = (uint64_t)mx;
		if (!hist_bounds_agree(h))
			return err_set(err,
				       "%s: histogram min %lld and max %lld "
				       "disagree with its buckets",
				       name, (long long)mn, (long long)mx);
	}
	return 0;
}

/* Failures sort by name, then reason. */
static int
fail_qcmp(const void *a, const void *b)
{
	const struct merge_failure *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->why, y->why);
}

static int
add_fail(struct merge *m, const char *name, const char *why)
{
	struct merge_failure *f;
	int i;

	if (m->nfail == m->cap_fail) {
		int cap = m->cap_fail ? 2 * m->cap_fail : 8;

		f = realloc(m->fail, (size_t)cap * sizeof(*f));
		if (f == NULL)
			return -1;
		m->fail = f;
		m->cap_fail = cap;
	}
	/* Appended; merge_figures sorts them once, in O(n log n). */
	i = m->nfail;
	copy_text(m->fail[i].name, sizeof(m->fail[i].name), name);
	copy_text(m->fail[i].why, sizeof(m->fail[i].why), why);
	m->nfail++;
	m->sorted = 0;
	return 0;
}

void
merge_add_failure(struct merge *m, const char *name, const char *why)
{
	add_fail(m, name, why);
}

/* Runs sort by actual start, then name, then throughput, so the merged
 * state is the same whatever order the inputs came in. */
static int
run_cmp(const struct merge_run *a, const struct merge_run *b)
{
	int c;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c != 0)
		return c;
	if (a->thruput != b->thruput)
		return a->thruput < b->thruput ? -1 : 1;
	return a->end_ns < b->end_ns ? -1 : a->end_ns > b->end_ns;
}

static int
run_qcmp(const void *a, const void *b)
{
	return run_cmp(a, b);
}

/* Takes ownership of r's samples; returns 0, or -1 out of memory. Runs
 * are appended and sorted once by merge_figures: inserting each in order
 * was quadratic over a big fleet. */
static int
add_run(struct merge *m, struct merge_run *r)
{
	struct merge_run *g;

	if (m->nruns == m->cap_runs) {
		int cap = m->cap_runs ? 2 * m->cap_runs : 8;

		g = realloc(m->runs, (size_t)cap * sizeof(*g));
		if (g == NULL)
			return -1;
		m->runs = g;
		m->cap_runs = cap;
	}
	m->runs[m->nruns++] = *r;
	m->sorted = 0;
	r->samples = NULL;
	r->nsamples = 0;
	r->platform[0] = r->platform[1] = NULL;
	return 0;
}

static int
cpu_cmp(const struct merge_cpu *a, const struct merge_cpu *b)
{
	int c;

	if (a->role != b->role)
		return a->role - b->role;
	c = strcmp(a->host, b->host);
	if (c != 0)
		return c;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

static int
cpu_qcmp(const void *a, const void *b)
{
	return cpu_cmp(a, b);
}

/* One CPU account, appended; merge_settle joins the overlapping ones. */
static int
add_cpu(struct merge *m, const struct merge_cpu *in)
{
	struct merge_cpu *g;

	if (m->ncpu == m->cap_cpu) {
		int cap = m->cap_cpu ? 2 * m->cap_cpu : 8;

		g = realloc(m->cpu, (size_t)cap * sizeof(*g));
		if (g == NULL)
			return -1;
		m->cpu = g;
		m->cap_cpu = cap;
	}
	m->cpu[m->ncpu] = *in;
	/* An empty interval overlaps nothing; give it a nanosecond so that
	 * the sweep below sees it as what it measured. */
	if (m->cpu[m->ncpu].end_ns <= m->cpu[m->ncpu].start_ns)
		m->cpu[m->ncpu].end_ns = m->cpu[m->ncpu].start_ns < INT64_MAX
					     ? m->cpu[m->ncpu].start_ns + 1
					     : INT64_MAX;
	m->ncpu++;
	m->sorted = 0;
	return 0;
}

/* Whether account a measured more than b: more ticks, then more busy
 * ones, then the rest, so the choice does not depend on input order. */
static int
cpu_more(const struct merge_cpu *a, const struct merge_cpu *b)
{
	if (a->total != b->total)
		return a->total > b->total;
	if (a->busy != b->busy)
		return a->busy > b->busy;
	if (a->hz != b->hz)
		return a->hz > b->hz;
	return a->ncpu > b->ncpu;
}

/*
 * Sorts runs (start, name), failures (name) and CPU accounts (role,
 * host, start), and makes the accounts of one host and role whose
 * intervals overlap one, the longest measurement over the union of
 * them: the connected groups of overlapping intervals, found by one
 * sweep in start order. O(n log n) in all.
 */
static void
merge_settle(struct merge *m)
{
	int i, out = 0;

	if (m->sorted)
		return;
	if (m->nruns > 1)
		qsort(m->runs, (size_t)m->nruns, sizeof(*m->runs), run_qcmp);
	if (m->nfail > 1)
		qsort(m->fail, (size_t)m->nfail, sizeof(*m->fail), fail_qcmp);
	if (m->ncpu > 1)
		qsort(m->cpu, (size_t)m->ncpu, sizeof(*m->cpu), cpu_qcmp);
	for (i = 0; i < m->ncpu; i++) {
		struct merge_cpu *g = out > 0 ? &m->cpu[out - 1] : NULL;
		const struct merge_cpu *e = &m->cpu[i];

		if (g != NULL && g->role == e->role &&
		    strcmp(g->host, e->host) == 0 && e->start_ns < g->end_ns) {
			int64_t end =
			    g->end_ns > e->end_ns ? g->end_ns : e->end_ns;

			if (cpu_more(e, g)) {
				g->busy = e->busy;
				g->total = e->total;
				g->hz = e->hz;
				g->ncpu = e->ncpu;
			}
			g->end_ns = end;
			continue;
		}
		if (out != i)
			m->cpu[out] = *e;
		out++;
	}
	m->ncpu = out;
	m->sorted = 1;
}

static const char *const count_key[MERGE_NCOUNTS] = {
    "bytes_sent", "bytes_recv", "send_calls", "recv_calls", "transactions",
};
static const char *const role_key[2] = {"local", "remote"};

/* A side's CPU account (cpu.ticks) over [start, end], or none. */
static int
parse_side_cpu(const json_t *doc, int role, const char *host, int64_t start,
	       int64_t end, struct merge *one, const char *name, char *err)
{
	char path[64];
	json_t *cpu;
	struct merge_cpu c;
	int64_t busy, total, hz, ncpu;

	snprintf(path, sizeof(path), "%s/cpu", role_key[role]);
	cpu = jat(doc, path);
	if (cpu == NULL || json_is_null(cpu)) {
		one->cpu_all[role] = 0;
		return 0;
	}
	if (jint_at(cpu, "ticks/busy", -1, &busy, NULL, name, err) < 0 ||
	    jint_at(cpu, "ticks/total", -1, &total, NULL, name, err) < 0 ||
	    jint_at(cpu, "ticks/hz", 0, &hz, NULL, name, err) < 0 ||
	    jint_at(cpu, "count", 0, &ncpu, NULL, name, err) < 0)
		return -1;
	if (hz > INT_MAX || ncpu > INT_MAX)
		return err_set(err, "%s: %s.cpu has a count past %d", name,
			       role_key[role], INT_MAX);
	if (busy < 0 || total < busy || hz <= 0)
		return err_set(err,
			       "%s: %s.cpu has no ticks (written by an older "
			       "netperf or netserver?)",
			       name, role_key[role]);
	memset(&c, 0, sizeof(c));
	c.role = role;
	snprintf(c.host, sizeof(c.host), "%s", host);
	c.start_ns = start;
	c.end_ns = end; /* add_cpu makes an empty interval 1 ns long */
	c.busy = (uint64_t)busy;
	c.total = (uint64_t)total;
	c.hz = (int)hz;
	c.ncpu = (int)ncpu;
	return add_cpu(one, &c) < 0 ? err_set(err, "out of memory") : 0;
}

/* A sample's figures must be a rate and a length that a window can
 * weigh: finite, not negative, the interval at most a day. */
static int
sample_check(const struct merge_sample *x, const char *name, char *err)
{
	if (!(x->value >= 0 && x->value <= DBL_MAX) ||
	    !(x->interval >= 0 && x->interval <= MERGE_INTERVAL_MAX) ||
	    x->end_ns < 0)
		return err_set(err,
			       "%s: interim sample (%g over %g s) is not a "
			       "rate over an interval",
			       name, x->value, x->interval);
	return 0;
}

static int
parse_samples(const json_t *a, struct merge_run *r, const char *name, char *err)
{
	json_t *s;
	size_t i;

	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return err_set(err, "%s: interim is not a list", name);
	if (json_array_size(a) == 0)
		return 0;
	r->samples = calloc(json_array_size(a), sizeof(*r->samples));
	if (r->samples == NULL)
		return err_set(err, "out of memory");
	json_array_foreach(a, i, s)
	{
		struct merge_sample *x = &r->samples[i];
		int64_t end;
		int have;
		double ending;

		if (jnum_at(s, "value", &x->value, name, err) < 0 ||
		    jnum_at(s, "interval", &x->interval, name, err) < 0 ||
		    jint_at(s, "ending_ns", 0, &end, &have, name, err) < 0)
			return -1;
		if (!have) {
			if (jnum_at(s, "ending", &ending, name, err) < 0)
				return -1;
			if (!(ending >= 0 && ending < 9.2e9))
				return err_set(err,
					       "%s: interim ending is not a "
					       "time",
					       name);
			end = (int64_t)llround(ending * 1e9);
		}
		x->end_ns = end;
		if (sample_check(x, name, err) < 0)
			return -1;
		r->nsamples++;
	}
	return 0;
}

/* A document's latency_us, when it has one, into one->hist; returns 0, or
 * what parse_hist returns. */
static int
parse_latency(const json_t *doc, struct merge *one, const char *name, char *err)
{
	json_t *lat = jat(doc, "latency_us");

	if (lat == NULL || json_is_null(lat))
		return 0;
	one->hist = malloc(sizeof(*one->hist));
	if (one->hist == NULL)
		return err_set(err, "out of memory");
	return parse_hist(json_object_get(lat, "exact"), one->hist, name, err);
}

/* Both sides' host names of a netperf --json result into host. */
static int
parse_result_hosts(const json_t *doc, char host[2][MERGE_NAME_LEN],
		   const char *name, char *err)
{
	int role;

	for (role = 0; role < 2; role++) {
		char path[64];

		snprintf(path, sizeof(path), "%s/env/hostname", role_key[role]);
		if (jstr_at(doc, path, host[role], sizeof(host[role])) < 0)
			return err_set(err, "%s: malformed %s", name, path);
		if (host[role][0] == '\0') {
			snprintf(path, sizeof(path), "%s/name", role_key[role]);
			jstr_at(doc, path, host[role], sizeof(host[role]));
		}
	}
	return 0;
}

/* A netperf --json result's timing into r, and the remote side's window
 * (the local one's when it has none) into *rstart and *rend. */
static int
parse_result_timing(const json_t *doc, struct merge_run *r, int64_t *rstart,
		    int64_t *rend, const char *name, char *err)
{
	if (jint_at(doc, "timing/start_scheduled_ns", 0, &r->scheduled_ns, NULL,
		    name, err) < 0 ||
	    jint_at(doc, "timing/start_actual_ns", 0, &r->start_ns, NULL, name,
		    err) < 0 ||
	    jint_at(doc, "timing/end_ns", 0, &r->end_ns, NULL, name, err) < 0 ||
	    jint_at(doc, "timing/remote_start_ns", 0, rstart, NULL, name, err) <
		0 ||
	    jint_at(doc, "timing/remote_end_ns", 0, rend, NULL, name, err) < 0)
		return -1;
	if (jwait_at(doc, "timing/start_cpu_wait_ns", &r->cpu_wait_ns, name,
		     err) < 0)
		return -1;
	if (r->start_ns == 0 || r->end_ns < r->start_ns)
		return err_set(err,
			       "%s: no start and end times (written by an "
			       "older netperf?)",
			       name);
	if (*rstart == 0 || *rend < *rstart) {
		*rstart = r->start_ns;
		*rend = r->end_ns;
	}
	return 0;
}

/* A netperf --json result into one. */
static int
parse_result(const json_t *doc, const char *name, struct merge *one, char *err)
{
	struct merge_run r;
	char host[2][MERGE_NAME_LEN];
	int64_t it, v, rstart, rend;
	int role, k, rc;

	memset(&r, 0, sizeof(r));
	copy_text(r.name, sizeof(r.name), name);
	if (jint_at(doc, "confidence/iterations", 1, &it, NULL, name, err) < 0)
		return -1;
	if (it > 1)
		return err_set(err,
			       "%s: the mean of %lld iterations (-i) cannot be "
			       "merged exactly; merge single runs",
			       name, (long long)it);
	if (jstr_at(doc, "test", one->test, sizeof(one->test)) < 0 ||
	    jstr_at(doc, "result/throughput_units", one->units,
		    sizeof(one->units)) < 0 ||
	    jstr_at(doc, "result/service_demand_units", one->sd_units,
		    sizeof(one->sd_units)) < 0)
		return err_set(err, "%s: malformed result", name);
	if (one->test[0] == '\0' || one->units[0] == '\0')
		return err_set(err, "%s: no test or throughput units", name);
	if (parse_result_hosts(doc, host, name, err) < 0)
		return -1;
	snprintf(r.local_host, sizeof(r.local_host), "%s", host[0]);
	snprintf(r.remote_host, sizeof(r.remote_host), "%s", host[1]);
	if (parse_result_timing(doc, &r, &rstart, &rend, name, err) < 0)
		return -1;
	if (jnum_at(doc, "result/throughput", &r.thruput, name, err) < 0)
		return -1;
	if (r.thruput < 0)
		return err_set(err, "%s: result/throughput is negative", name);
	for (role = 0; role < 2; role++)
		for (k = 0; k < MERGE_NCOUNTS; k++) {
			char path[64];

			snprintf(path, sizeof(path), "%s/counts/%s",
				 role_key[role], count_key[k]);
			if (jint_at(doc, path, 0, &v, NULL, name, err) < 0)
				return -1;
			one->counts[role][k] = (uint64_t)v;
		}
	if (parse_side_cpu(doc, MERGE_LOCAL, host[0], r.start_ns, r.end_ns, one,
			   name, err) < 0 ||
	    parse_side_cpu(doc, MERGE_REMOTE, host[1], rstart, rend, one, name,
			   err) < 0)
		return -1;
	rc = parse_latency(doc, one, name, err);
	if (rc < 0)
		return rc;
	for (role = 0; role < 2; role++) {
		char path[64];
		json_t *pl;

		snprintf(path, sizeof(path), "%s/platform", role_key[role]);
		pl = jat(doc, path);
		r.platform[role] =
		    json_is_object(pl) ? json_deep_copy(pl) : NULL;
	}
	if (parse_samples(jat(doc, "interim"), &r, name, err) < 0 ||
	    add_run(one, &r) < 0) {
		free(r.samples);
		json_decref(r.platform[0]);
		json_decref(r.platform[1]);
		return err[0] ? -1 : err_set(err, "out of memory");
	}
	return 0;
}

/* A merge state's samples of one input, [end_ns, interval, value] rows,
 * into r. */
static int
parse_state_samples(const json_t *s, struct merge_run *r, const char *name,
		    char *err)
{
	json_t *row;
	size_t j;

	if (!json_is_array(s) || json_array_size(s) == 0)
		return 0;
	r->samples = calloc(json_array_size(s), sizeof(*r->samples));
	if (r->samples == NULL)
		return err_set(err, "out of memory");
	json_array_foreach(s, j, row)
	{
		json_t *a0 = json_array_get(row, 0),
		       *a1 = json_array_get(row, 1),
		       *a2 = json_array_get(row, 2);

		if (!json_is_integer(a0) || !json_is_number(a1) ||
		    !json_is_number(a2))
			return err_set(err, "%s: malformed sample", name);
		r->samples[j].end_ns = json_integer_value(a0);
		r->samples[j].interval = json_number_value(a1);
		r->samples[j].value = json_number_value(a2);
		if (sample_check(&r->samples[j], name, err) < 0)
			return -1;
		r->nsamples++;
	}
	return 0;
}

/* Input i of a merge state, e, into one. */
static int
parse_state_input(const json_t *e, size_t i, struct merge *one,
		  const char *name, char *err)
{
	struct merge_run r;
	int role;

	memset(&r, 0, sizeof(r));
	if (jstr_at(e, "name", r.name, sizeof(r.name)) < 0 ||
	    jstr_at(e, "local_host", r.local_host, sizeof(r.local_host)) < 0 ||
	    jstr_at(e, "remote_host", r.remote_host, sizeof(r.remote_host)) <
		0 ||
	    jint_at(e, "scheduled_ns", 0, &r.scheduled_ns, NULL, name, err) <
		0 ||
	    jint_at(e, "start_ns", 0, &r.start_ns, NULL, name, err) < 0 ||
	    jint_at(e, "end_ns", 0, &r.end_ns, NULL, name, err) < 0 ||
	    jwait_at(e, "start_cpu_wait_ns", &r.cpu_wait_ns, name, err) < 0 ||
	    jnum_at(e, "throughput", &r.thruput, name, err) < 0)
		return err[0]
			   ? -1
			   : err_set(err, "%s: malformed input %zu", name, i);
	if (r.thruput < 0)
		return err_set(err, "%s: input %zu's throughput is negative",
			       name, i);
	for (role = 0; role < 2; role++) {
		json_t *pl = json_object_get(e, role ? "remote_platform"
						     : "local_platform");

		r.platform[role] =
		    json_is_object(pl) ? json_deep_copy(pl) : NULL;
	}
	if (parse_state_samples(json_object_get(e, "samples"), &r, name, err) <
	    0)
		goto free_run;
	if (add_run(one, &r) < 0) {
		err_set(err, "out of memory");
		goto free_run;
	}
	return 0;
free_run:
	free(r.samples);
	json_decref(r.platform[0]);
	json_decref(r.platform[1]);
	return -1;
}

/* One of a merge state's CPU windows, e, into one. */
static int
parse_state_cpu(const json_t *e, struct merge *one, const char *name, char *err)
{
	struct merge_cpu c;
	char rname[16];
	int64_t busy, total, hz, ncpu;

	memset(&c, 0, sizeof(c));
	if (jstr_at(e, "role", rname, sizeof(rname)) < 0 ||
	    jstr_at(e, "host", c.host, sizeof(c.host)) < 0 ||
	    jint_at(e, "start_ns", 0, &c.start_ns, NULL, name, err) < 0 ||
	    jint_at(e, "end_ns", 0, &c.end_ns, NULL, name, err) < 0 ||
	    jint_at(e, "busy", 0, &busy, NULL, name, err) < 0 ||
	    jint_at(e, "total", 0, &total, NULL, name, err) < 0 ||
	    jint_at(e, "hz", 0, &hz, NULL, name, err) < 0 ||
	    jint_at(e, "ncpu", 0, &ncpu, NULL, name, err) < 0)
		return -1;
	if (hz > INT_MAX || ncpu > INT_MAX || total < busy)
		return err_set(err, "%s: malformed CPU account", name);
	c.role = strcmp(rname, "remote") == 0;
	c.busy = (uint64_t)busy;
	c.total = (uint64_t)total;
	c.hz = (int)hz;
	c.ncpu = (int)ncpu;
	if (add_cpu(one, &c) < 0)
		return err_set(err, "out of memory");
	return 0;
}

/* A netperf-merge state into one. */
static int
parse_state(const json_t *doc, const char *name, struct merge *one, char *err)
{
	json_t *a, *e;
	size_t i;
	int role, k;
	int64_t v;

	if (jstr_at(doc, "test", one->test, sizeof(one->test)) < 0 ||
	    jstr_at(doc, "throughput/units", one->units, sizeof(one->units)) <
		0 ||
	    jstr_at(doc, "service_demand/units", one->sd_units,
		    sizeof(one->sd_units)) < 0 ||
	    one->test[0] == '\0' || one->units[0] == '\0')
		return err_set(err, "%s: malformed merge document", name);
	for (role = 0; role < 2; role++) {
		char path[64];

		for (k = 0; k < MERGE_NCOUNTS; k++) {
			snprintf(path, sizeof(path), "counts/%s/%s",
				 role_key[role], count_key[k]);
			if (jint_at(doc, path, 0, &v, NULL, name, err) < 0)
				return -1;
			one->counts[role][k] = (uint64_t)v;
		}
		snprintf(path, sizeof(path), "cpu_measured/%s", role_key[role]);
		one->cpu_all[role] = json_is_true(jat(doc, path));
	}
	a = json_object_get(doc, "inputs");
	if (!json_is_array(a))
		return err_set(err, "%s: merge document has no inputs", name);
	json_array_foreach(a, i, e)
	{
		if (parse_state_input(e, i, one, name, err) < 0)
			return -1;
	}
	a = json_object_get(doc, "cpu");
	json_array_foreach(a, i, e)
	{
		if (parse_state_cpu(e, one, name, err) < 0)
			return -1;
	}
	a = json_object_get(doc, "failed");
	json_array_foreach(a, i, e)
	{
		char fname[MERGE_NAME_LEN], why[ERR_LEN];

		jstr_at(e, "name", fname, sizeof(fname));
		jstr_at(e, "error", why, sizeof(why));
		if (add_fail(one, fname, why) < 0)
			return err_set(err, "out of memory");
	}
	return parse_latency(doc, one, name, err);
}

/* Whether one's totals fit with m's: every count within 64 signed bits,
 * the throughput a finite double, the histograms' totals within theirs;
 * returns 0, or -2 with err naming the input. */
static int
combine_fits(const struct merge *m, const struct merge *one, const char *name,
	     char *err)
{
	double t = m->thruput_total;
	int i, k;

	for (i = 0; i < 2; i++)
		for (k = 0; k < MERGE_NCOUNTS; k++)
			if (m->counts[i][k] > MERGE_COUNT_MAX ||
			    one->counts[i][k] >
				MERGE_COUNT_MAX - m->counts[i][k])
				return err_set(
					   err,
					   "%s: the total of %s %s would "
					   "pass %llu",
					   name, role_key[i], count_key[k],
					   (unsigned long long)MERGE_COUNT_MAX),
				       -2;
	for (i = 0; i < one->nruns; i++)
		t += one->runs[i].thruput;
	if (!isfinite(t))
		return err_set(err,
			       "%s: the sum of the throughput would not be a "
			       "finite number",
			       name),
		       -2;
	if (m->hist != NULL && one->hist != NULL &&
	    !stats_hist_merge_fits(m->hist, one->hist, MERGE_COUNT_MAX))
		return err_set(err,
			       "%s: the latency histogram's totals would pass "
			       "%llu",
			       name, (unsigned long long)MERGE_COUNT_MAX),
		       -2;
	return 0;
}

/* Moves everything of one into m; one is left empty. */
static int
combine(struct merge *m, struct merge *one, const char *name, char *err)
{
	int i, k;

	if (m->test[0] != '\0') {
		if (strcmp(m->test, one->test) != 0)
			return err_set(err,
				       "%s: a %s result cannot be merged with "
				       "%s results",
				       name, one->test, m->test),
			       -2;
		if (strcmp(m->units, one->units) != 0 ||
		    strcmp(m->sd_units, one->sd_units) != 0)
			return err_set(err,
				       "%s: results in %s (%s) cannot be "
				       "merged with results in %s (%s)",
				       name, one->units, one->sd_units,
				       m->units, m->sd_units),
			       -2;
	} else {
		snprintf(m->test, sizeof(m->test), "%s", one->test);
		snprintf(m->units, sizeof(m->units), "%s", one->units);
		snprintf(m->sd_units, sizeof(m->sd_units), "%s", one->sd_units);
	}
	if (combine_fits(m, one, name, err) < 0)
		return -2;
	for (i = 0; i < one->nruns; i++) {
		if (add_run(m, &one->runs[i]) < 0)
			return err_set(err, "out of memory");
		m->thruput_total += m->runs[m->nruns - 1].thruput;
	}
	for (i = 0; i < one->ncpu; i++)
		if (add_cpu(m, &one->cpu[i]) < 0)
			return err_set(err, "out of memory");
	for (i = 0; i < one->nfail; i++)
		if (add_fail(m, one->fail[i].name, one->fail[i].why) < 0)
			return err_set(err, "out of memory");
	for (i = 0; i < 2; i++) {
		for (k = 0; k < MERGE_NCOUNTS; k++)
			m->counts[i][k] += one->counts[i][k];
		m->cpu_all[i] = m->cpu_all[i] && one->cpu_all[i];
	}
	if (one->hist != NULL) {
		if (m->hist == NULL) {
			m->hist = one->hist;
			one->hist = NULL;
		} else {
			stats_hist_merge(m->hist, one->hist);
		}
	}
	return 0;
}

int
merge_add_doc(struct merge *m, const json_t *doc, const char *name, char *err)
{
	struct merge one;
	char schema[32];
	json_t *errs;
	int rc;

	err[0] = '\0';
	if (!json_is_object(doc) ||
	    jstr_at(doc, "schema", schema, sizeof(schema)) < 0)
		return err_set(err, "%s: not a netperf result", name);
	errs = json_object_get(doc, "errors");
	if (strcmp(schema, "netperf-result") == 0 && json_is_array(errs) &&
	    json_array_size(errs) > 0) {
		const char *why = json_string_value(json_array_get(errs, 0));

		err_set(err, "%s: the run failed: %s", name,
			why != NULL ? why : "(no reason given)");
		add_fail(m, name, why != NULL ? why : "(no reason given)");
		return 1;
	}
	merge_init(&one);
	if (strcmp(schema, "netperf-result") == 0)
		rc = parse_result(doc, name, &one, err);
	else if (strcmp(schema, "netperf-merge") == 0)
		rc = parse_state(doc, name, &one, err);
	else
		rc = err_set(err,
			     "%s: not a netperf result (schema \"%s\"; a "
			     "sweep cannot be merged)",
			     name, schema);
	if (rc == 0)
		rc = combine(m, &one, name, err);
	merge_free(&one);
	return rc;
}

/* --- the merged figures ----------------------------------------------- */

/* Work of one role in the service demand's unit. */
static double
role_work(const struct merge *m, int role)
{
	if (strcmp(m->sd_units, "usec/Tran") == 0)
		return (double)m->counts[role][MERGE_TRANS];
	return (double)(m->counts[role][MERGE_BYTES_SENT] +
			m->counts[role][MERGE_BYTES_RECV]) /
	       1024.0;
}

static void
window(const struct merge *m, struct merge_figures *f)
{
	int64_t ws = 0, we = INT64_MAX;
	double work = 0;
	int i, j;

	f->thruput_window = -1;
	f->window_s = 0;
	for (i = 0; i < m->nruns; i++) {
		const struct merge_run *r = &m->runs[i];

		if (r->nsamples == 0) {
			snprintf(f->window_note, sizeof(f->window_note),
				 "needs -D interim samples from every run; "
				 "%.100s has none",
				 r->name);
			return;
		}
		if (r->start_ns > ws)
			ws = r->start_ns;
		if (r->samples[r->nsamples - 1].end_ns < we)
			we = r->samples[r->nsamples - 1].end_ns;
	}
	if (m->nruns == 0 || we <= ws) {
		snprintf(f->window_note, sizeof(f->window_note),
			 "the runs were never all active at once");
		return;
	}
	/* Each run's work inside [ws, we): its samples' rates times the
	 * part of each sample that falls inside. */
	for (i = 0; i < m->nruns; i++) {
		const struct merge_run *r = &m->runs[i];

		for (j = 0; j < r->nsamples; j++) {
			const struct merge_sample *s = &r->samples[j];
			int64_t se = s->end_ns,
				ss = se - (int64_t)llround(s->interval * 1e9);
			int64_t a = ss > ws ? ss : ws, b = se < we ? se : we;

			if (b > a)
				work += s->value * (double)(b - a) / 1e9;
		}
	}
	f->window_s = (double)(we - ws) / 1e9;
	f->thruput_window = work / f->window_s;
	f->window_start_ns = ws;
	f->window_end_ns = we;
}

int
merge_figures(struct merge *m, struct merge_figures *f, char *err)
{
	const struct stats_hist *h = m->hist;
	int i, role, sched_same = 1;

	memset(f, 0, sizeof(*f));
	merge_settle(m);
	if (m->nruns == 0)
		return err_set(err, "nothing to merge: no run succeeded");
	f->late_max_s = f->late_wait_s = -1;
	f->first_start_ns = m->runs[0].start_ns;
	f->last_start_ns = m->runs[m->nruns - 1].start_ns;
	f->scheduled_ns = m->runs[0].scheduled_ns;
	for (i = 0; i < m->nruns; i++) {
		const struct merge_run *r = &m->runs[i];

		/* Runs are sorted, so the sum is the same in any order
		 * of the inputs, to the last bit. */
		f->thruput_sum += r->thruput;
		if (r->end_ns > f->last_end_ns)
			f->last_end_ns = r->end_ns;
		if (r->scheduled_ns != f->scheduled_ns)
			sched_same = 0;
		if (r->scheduled_ns > 0) {
			double late =
			    (double)(r->start_ns - r->scheduled_ns) / 1e9;

			if (late > f->late_max_s) {
				f->late_max_s = late;
				f->late_wait_s =
				    r->cpu_wait_ns >= 0
					? (double)r->cpu_wait_ns / 1e9
					: -1;
			}
		}
	}
	if (!sched_same)
		f->scheduled_ns = 0;
	f->skew_s = (double)(f->last_start_ns - f->first_start_ns) / 1e9;
	window(m, f);
	/* Each input was checked as it came; a window's weighed sum of
	 * rates near the double's limit is the last that could overflow. */
	if (!isfinite(f->thruput_sum) || !isfinite(f->thruput_window))
		return err_set(err, "the merged throughput is not a finite "
				    "number");
	for (role = 0; role < 2; role++) {
		double secs = 0, work = role_work(m, role);
		int n = 0;

		f->cpu_s[role] = f->sd[role] = -1;
		for (i = 0; i < m->ncpu; i++) {
			if (m->cpu[i].role != role || m->cpu[i].hz <= 0)
				continue;
			secs += (double)m->cpu[i].busy / m->cpu[i].hz;
			n++;
		}
		if (!m->cpu_all[role] || n == 0)
			continue;
		f->cpu_s[role] = secs;
		if (work > 0)
			f->sd[role] = secs * 1e6 / work;
	}
	if (h != NULL && h->count > 0) {
		f->lat.count = h->count;
		f->lat.min = (double)h->min / 1e3;
		f->lat.max = (double)h->max / 1e3;
		f->lat.mean = stats_hist_mean(h) / 1e3;
		f->lat.stddev = stats_hist_stddev(h) / 1e3;
		f->lat.p50 = stats_hist_percentile(h, 50) / 1e3;
		f->lat.p90 = stats_hist_percentile(h, 90) / 1e3;
		f->lat.p99 = stats_hist_percentile(h, 99) / 1e3;
		f->lat.p999 = stats_hist_percentile(h, 99.9) / 1e3;
		f->lat.p9999 = stats_hist_percentile(h, 99.99) / 1e3;
	}
	return 0;
}

/* --- the merged document ---------------------------------------------- */

static json_t *
jopt(double v)
{
	return v < 0 || !isfinite(v) ? json_null() : json_real(v);
}

static json_t *
jns(int64_t v)
{
	return v > 0 ? json_integer((json_int_t)v) : json_null();
}

static json_t *
ju(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX
						    : (json_int_t)v);
}

/* The runs that failed, [{name, error}]. */
static json_t *
merge_doc_failed(const struct merge *m)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < m->nfail; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "name",
						   m->fail[i].name, "error",
						   m->fail[i].why));
	return a;
}

static json_t *
merge_doc_throughput(const struct merge *m, const struct merge_figures *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "sum", json_real(f->thruput_sum));
	json_object_set_new(o, "window", jopt(f->thruput_window));
	json_object_set_new(o, "window_s",
			    f->thruput_window >= 0 ? json_real(f->window_s)
						   : json_null());
	json_object_set_new(o, "window_note",
			    f->window_note[0] ? json_string(f->window_note)
					      : json_null());
	json_object_set_new(o, "units", json_string(m->units));
	return o;
}

static json_t *
merge_doc_timing(const struct merge_figures *f, double max_skew_s)
{
	json_t *o = json_object();

	json_object_set_new(o, "start_skew_ms", json_real(f->skew_s * 1e3));
	json_object_set_new(o, "max_skew_ms", json_real(max_skew_s * 1e3));
	json_object_set_new(o, "exceeded",
			    json_boolean(f->skew_s > max_skew_s));
	json_object_set_new(o, "scheduled_ns", jns(f->scheduled_ns));
	json_object_set_new(o, "first_start_ns", jns(f->first_start_ns));
	json_object_set_new(o, "last_start_ns", jns(f->last_start_ns));
	json_object_set_new(o, "last_end_ns", jns(f->last_end_ns));
	json_object_set_new(o, "late_max_ms",
			    f->late_max_s > -1 ? json_real(f->late_max_s * 1e3)
					       : json_null());
	json_object_set_new(o, "late_max_cpu_wait_ms",
			    f->late_max_s > -1 && f->late_wait_s >= 0
				? json_real(f->late_wait_s * 1e3)
				: json_null());
	return o;
}

/* Sets doc's "counts" and "cpu_measured", both per side. */
static void
merge_doc_counts(const struct merge *m, json_t *doc)
{
	json_t *o = json_object(), *c = json_object();
	int role, k;

	for (role = 0; role < 2; role++) {
		json_t *s = json_object();

		for (k = 0; k < MERGE_NCOUNTS; k++)
			json_object_set_new(s, count_key[k],
					    ju(m->counts[role][k]));
		json_object_set_new(o, role_key[role], s);
		json_object_set_new(c, role_key[role],
				    json_boolean(m->cpu_all[role]));
	}
	json_object_set_new(doc, "counts", o);
	json_object_set_new(doc, "cpu_measured", c);
}

static json_t *
merge_doc_service_demand(const struct merge *m, const struct merge_figures *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "local", jopt(f->sd[0]));
	json_object_set_new(o, "remote", jopt(f->sd[1]));
	json_object_set_new(o, "local_cpu_s", jopt(f->cpu_s[0]));
	json_object_set_new(o, "remote_cpu_s", jopt(f->cpu_s[1]));
	json_object_set_new(o, "units", json_string(m->sd_units));
	return o;
}

/* The merged latency with its exact histogram, or null for none. */
static json_t *
merge_doc_latency(const struct merge *m, const struct merge_figures *f)
{
	const struct result_latency *l = &f->lat;
	json_t *o;

	if (m->hist == NULL || m->hist->count == 0)
		return json_null();
	o = json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
		      "s:f}",
		      "count", (json_int_t)l->count, "min", l->min, "max",
		      l->max, "mean", l->mean, "stddev", l->stddev, "p50",
		      l->p50, "p90", l->p90, "p99", l->p99, "p99.9", l->p999,
		      "p99.99", l->p9999);
	if (o != NULL)
		json_object_set_new(o, "exact", json_hist_exact(m->hist));
	return o;
}

/* Every CPU window the merge holds. */
static json_t *
merge_doc_cpu(const struct merge *m)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < m->ncpu; i++) {
		const struct merge_cpu *e = &m->cpu[i];

		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:i, s:i}",
				 "role", role_key[e->role], "host", e->host,
				 "start_ns", (json_int_t)e->start_ns, "end_ns",
				 (json_int_t)e->end_ns, "busy",
				 (json_int_t)e->busy, "total",
				 (json_int_t)e->total, "hz", e->hz, "ncpu",
				 e->ncpu));
	}
	return a;
}

/* One input run, its samples and both sides' platforms. */
static json_t *
merge_doc_input(const struct merge_run *r)
{
	json_t *s = json_array(), *in;
	int j;

	for (j = 0; j < r->nsamples; j++)
		json_array_append_new(
		    s, json_pack("[I, f, f]", (json_int_t)r->samples[j].end_ns,
				 r->samples[j].interval, r->samples[j].value));
	in = json_pack("{s:s, s:s, s:s, s:o, s:I, s:I, s:f, s:o}", "name",
		       r->name, "local_host", r->local_host, "remote_host",
		       r->remote_host, "scheduled_ns", jns(r->scheduled_ns),
		       "start_ns", (json_int_t)r->start_ns, "end_ns",
		       (json_int_t)r->end_ns, "throughput", r->thruput,
		       "samples", s);
	json_object_set_new(in, "start_cpu_wait_ns",
			    r->cpu_wait_ns >= 0
				? json_integer((json_int_t)r->cpu_wait_ns)
				: json_null());
	json_object_set(in, "local_platform",
			r->platform[0] ? r->platform[0] : json_null());
	json_object_set(in, "remote_platform",
			r->platform[1] ? r->platform[1] : json_null());
	return in;
}

json_t *
merge_json(const struct merge *m, const struct merge_figures *f,
	   double max_skew_s)
{
	json_t *doc, *a;
	int i;

	doc = json_object();
	if (doc == NULL)
		return NULL;
	json_object_set_new(doc, "schema", json_string("netperf-merge"));
	json_object_set_new(doc, "schema_version", json_integer(1));
	json_object_set_new(doc, "test", json_string(m->test));
	json_object_set_new(doc, "runs", json_integer(m->nruns));
	json_object_set_new(doc, "failed_runs", json_integer(m->nfail));
	json_object_set_new(doc, "failed", merge_doc_failed(m));
	json_object_set_new(doc, "throughput", merge_doc_throughput(m, f));
	json_object_set_new(doc, "timing", merge_doc_timing(f, max_skew_s));
	merge_doc_counts(m, doc);
	json_object_set_new(doc, "service_demand",
			    merge_doc_service_demand(m, f));
	json_object_set_new(doc, "latency_us", merge_doc_latency(m, f));
	json_object_set_new(doc, "cpu", merge_doc_cpu(m));
	a = json_array();
	for (i = 0; i < m->nruns; i++)
		json_array_append_new(a, merge_doc_input(&m->runs[i]));
	json_object_set_new(doc, "inputs", a);
	return doc;
}

/* --- selectors -------------------------------------------------------- */

#define MERGE_SELECTORS(X)                                                     \
	X(TEST, "test name")                                                   \
	X(RUNS, "runs merged")                                                 \
	X(FAILED_RUNS, "runs that failed or could not be read")                \
	X(THROUGHPUT, "sum of the runs' throughput")                           \
	X(THROUGHPUT_UNITS, "its units")                                       \
	X(THROUGHPUT_WINDOW, "throughput while every run was active")          \
	X(WINDOW_TIME, "seconds every run was active")                         \
	X(START_SKEW, "last actual start minus first, ms")                     \
	X(START_LATE_MAX, "latest start after its schedule, ms")               \
	X(START_LATE_CPU_WAIT, "of that run's lateness, ms waiting for a CPU") \
	X(START_SCHEDULED, "the scheduled start, UTC ns")                      \
	X(START_FIRST, "first actual start, UTC ns")                           \
	X(START_LAST, "last actual start, UTC ns")                             \
	X(END_TIME, "last end, UTC ns")                                        \
	X(LOCAL_BYTES_SENT, "netperf sides: bytes sent")                       \
	X(LOCAL_BYTES_RECVD, "netperf sides: bytes received")                  \
	X(LOCAL_SEND_CALLS, "netperf sides: send calls")                       \
	X(LOCAL_RECV_CALLS, "netperf sides: receive calls")                    \
	X(LOCAL_TRANSACTIONS, "netperf sides: transactions")                   \
	X(REMOTE_BYTES_SENT, "netserver sides: bytes sent")                    \
	X(REMOTE_BYTES_RECVD, "netserver sides: bytes received")               \
	X(REMOTE_SEND_CALLS, "netserver sides: send calls")                    \
	X(REMOTE_RECV_CALLS, "netserver sides: receive calls")                 \
	X(REMOTE_TRANSACTIONS, "netserver sides: transactions")                \
	X(LOCAL_CPU_SECONDS, "CPU seconds of the netperf hosts")               \
	X(REMOTE_CPU_SECONDS, "CPU seconds of the netserver hosts")            \
	X(LOCAL_SD, "netperf hosts' CPU time over their work")                 \
	X(REMOTE_SD, "netserver hosts' CPU time over their work")              \
	X(SD_UNITS, "usec/KB or usec/Tran")                                    \
	X(LATENCY_COUNT, "operations timed")                                   \
	X(MIN_LATENCY, "us")                                                   \
	X(MEAN_LATENCY, "us")                                                  \
	X(STDDEV_LATENCY, "us")                                                \
	X(P50_LATENCY, "us, from the merged histogram")                        \
	X(P90_LATENCY, "us, from the merged histogram")                        \
	X(P99_LATENCY, "us, from the merged histogram")                        \
	X(P999_LATENCY, "us, from the merged histogram")                       \
	X(P9999_LATENCY, "us, from the merged histogram")                      \
	X(MAX_LATENCY, "us")

enum merge_sel {
#define MS_ENUM(name, what) MS_##name,
	MERGE_SELECTORS(MS_ENUM)
#undef MS_ENUM
	    MS_COUNT
};

static const char *const ms_name[MS_COUNT] = {
#define MS_NAME(name, what) #name,
    MERGE_SELECTORS(MS_NAME)
#undef MS_NAME
};

static const char *const ms_what[MS_COUNT] = {
#define MS_WHAT(name, what) what,
    MERGE_SELECTORS(MS_WHAT)
#undef MS_WHAT
};

static const char merge_default_list[] =
    "TEST,RUNS,FAILED_RUNS,THROUGHPUT,THROUGHPUT_UNITS,THROUGHPUT_WINDOW,"
    "WINDOW_TIME,START_SKEW,LOCAL_SD,REMOTE_SD,SD_UNITS,P50_LATENCY,"
    "P99_LATENCY";

void
merge_list_names(FILE *out)
{
	int i;

	for (i = 0; i < MS_COUNT; i++)
		fprintf(out, "%-20s %s\n", ms_name[i], ms_what[i]);
}

/* The next name of a list; returns its selector, MS_COUNT at the end, or
 * -1 for an unknown name (copied into bad). */
static int
next_sel(const char **p, char *bad, size_t cap)
{
	const char *s = *p, *e;
	size_t n;
	int i;

	while (*s == ',' || *s == ';' || isspace((unsigned char)*s))
		s++;
	if (*s == '\0') {
		*p = s;
		return MS_COUNT;
	}
	for (e = s; *e && *e != ',' && *e != ';' && !isspace((unsigned char)*e);
	     e++)
		;
	n = (size_t)(e - s);
	*p = e;
	for (i = 0; i < MS_COUNT; i++)
		if (strlen(ms_name[i]) == n &&
		    strncasecmp(ms_name[i], s, n) == 0)
			return i;
	snprintf(bad, cap, "%.*s", (int)(n < 64 ? n : 64), s);
	return -1;
}

int
merge_list_check(const char *list, char *err)
{
	const char *p = list;
	char bad[80];
	int id, n = 0;

	while ((id = next_sel(&p, bad, sizeof(bad))) != MS_COUNT) {
		if (id < 0)
			return err_set(err,
				       "unknown merge selector \"%s\" "
				       "(netperf --merge -- -o '?' lists them)",
				       bad);
		n++;
	}
	if (n == 0 && list[0] != '\0')
		return err_set(err, "empty selector list");
	return 0;
}

/* v with prec decimals, or -1 (netperf's "not measured"). */
static void
put_opt(char *b, size_t cap, int prec, double v)
{
	if (v < 0)
		snprintf(b, cap, "-1");
	else
		snprintf(b, cap, "%.*f", prec, v);
}

/* The selectors that print one double of the figures to prec places, -1
 * when it is unknown (negative, or a latency when nothing was timed). */
static const struct ms_real {
	int id;
	size_t off; /* of the double in struct merge_figures */
	int prec;
	int latency;
} ms_real[] = {
#define MS_FIG(x) offsetof(struct merge_figures, x)
    {MS_THROUGHPUT_WINDOW, MS_FIG(thruput_window), 2, 0},
    {MS_LOCAL_CPU_SECONDS, MS_FIG(cpu_s[0]), 3, 0},
    {MS_REMOTE_CPU_SECONDS, MS_FIG(cpu_s[1]), 3, 0},
    {MS_LOCAL_SD, MS_FIG(sd[0]), 3, 0},
    {MS_REMOTE_SD, MS_FIG(sd[1]), 3, 0},
    {MS_MIN_LATENCY, MS_FIG(lat.min), 2, 1},
    {MS_MEAN_LATENCY, MS_FIG(lat.mean), 2, 1},
    {MS_STDDEV_LATENCY, MS_FIG(lat.stddev), 2, 1},
    {MS_P50_LATENCY, MS_FIG(lat.p50), 2, 1},
    {MS_P90_LATENCY, MS_FIG(lat.p90), 2, 1},
    {MS_P99_LATENCY, MS_FIG(lat.p99), 2, 1},
    {MS_P999_LATENCY, MS_FIG(lat.p999), 2, 1},
    {MS_P9999_LATENCY, MS_FIG(lat.p9999), 2, 1},
    {MS_MAX_LATENCY, MS_FIG(lat.max), 2, 1},
};

/* The selectors that print one UTC time in ns of the figures, -1 when
 * there is none. */
static const struct ms_time {
	int id;
	size_t off; /* of the int64_t in struct merge_figures */
} ms_time[] = {
    {MS_START_SCHEDULED, MS_FIG(scheduled_ns)},
    {MS_START_FIRST, MS_FIG(first_start_ns)},
    {MS_START_LAST, MS_FIG(last_start_ns)},
    {MS_END_TIME, MS_FIG(last_end_ns)},
#undef MS_FIG
};

/* Selector id from the tables above into b; returns 1 when it is one of
 * theirs, else 0. */
static int
ms_table_value(const struct merge_figures *f, int id, char *b, size_t cap)
{
	const char *base = (const char *)f;
	size_t i;

	for (i = 0; i < sizeof(ms_real) / sizeof(ms_real[0]); i++) {
		const struct ms_real *r = &ms_real[i];
		double v;

		if (r->id != id)
			continue;
		memcpy(&v, base + r->off, sizeof(v));
		put_opt(b, cap, r->prec,
			r->latency && f->lat.count == 0 ? -1 : v);
		return 1;
	}
	for (i = 0; i < sizeof(ms_time) / sizeof(ms_time[0]); i++) {
		int64_t v;

		if (ms_time[i].id != id)
			continue;
		memcpy(&v, base + ms_time[i].off, sizeof(v));
		snprintf(b, cap, "%lld", v > 0 ? (long long)v : -1LL);
		return 1;
	}
	return 0;
}

static void
ms_value(const struct merge *m, const struct merge_figures *f, int id, char *b,
	 size_t cap)
{
	if (ms_table_value(f, id, b, cap))
		return;
	if (id >= MS_LOCAL_BYTES_SENT && id <= MS_LOCAL_TRANSACTIONS) {
		snprintf(b, cap, "%llu",
			 (unsigned long long)
			     m->counts[MERGE_LOCAL][id - MS_LOCAL_BYTES_SENT]);
		return;
	}
	if (id >= MS_REMOTE_BYTES_SENT && id <= MS_REMOTE_TRANSACTIONS) {
		snprintf(b, cap, "%llu",
			 (unsigned long long)m
			     ->counts[MERGE_REMOTE][id - MS_REMOTE_BYTES_SENT]);
		return;
	}
	/* The text is the files': escaped, as everything they say. */
	switch (id) {
	case MS_TEST:
		escape_str(b, cap, m->test);
		break;
	case MS_RUNS:
		snprintf(b, cap, "%d", m->nruns);
		break;
	case MS_FAILED_RUNS:
		snprintf(b, cap, "%d", m->nfail);
		break;
	case MS_THROUGHPUT:
		snprintf(b, cap, "%.2f", f->thruput_sum);
		break;
	case MS_THROUGHPUT_UNITS:
		escape_str(b, cap, m->units);
		break;
	case MS_WINDOW_TIME:
		put_opt(b, cap, 3, f->thruput_window >= 0 ? f->window_s : -1);
		break;
	case MS_START_SKEW:
		snprintf(b, cap, "%.3f", f->skew_s * 1e3);
		break;
	case MS_START_LATE_MAX:
		if (f->late_max_s > -1)
			snprintf(b, cap, "%.3f", f->late_max_s * 1e3);
		else
			snprintf(b, cap, "-1");
		break;
	case MS_START_LATE_CPU_WAIT:
		put_opt(b, cap, 3,
			f->late_max_s > -1 && f->late_wait_s >= 0
			    ? f->late_wait_s * 1e3
			    : -1);
		break;
	case MS_SD_UNITS:
		escape_str(b, cap, m->sd_units);
		break;
	case MS_LATENCY_COUNT:
		snprintf(b, cap, "%llu", (unsigned long long)f->lat.count);
		break;
	}
}

void
merge_print_list(FILE *out, const struct merge *m,
		 const struct merge_figures *f, char mode, const char *list,
		 int headers)
{
	const char *p;
	char bad[80], v[MS_COUNT][64];
	int ids[MS_COUNT * 4], n = 0, id, i;

	p = list[0] != '\0' ? list : merge_default_list;
	while (n < (int)(sizeof(ids) / sizeof(ids[0])) &&
	       (id = next_sel(&p, bad, sizeof(bad))) != MS_COUNT)
		if (id >= 0)
			ids[n++] = id;
	for (i = 0; i < MS_COUNT; i++)
		ms_value(m, f, i, v[i], sizeof(v[i]));
	if (mode == 'k') {
		for (i = 0; i < n; i++)
			fprintf(out, "%s=%s\n", ms_name[ids[i]], v[ids[i]]);
		return;
	}
	if (mode == 'o') {
		if (headers) {
			for (i = 0; i < n; i++)
				fprintf(out, "%s%s", i ? "," : "",
					ms_name[ids[i]]);
			fputc('\n', out);
		}
		for (i = 0; i < n; i++) {
			const char *s = v[ids[i]];

			/* Only TEST and units are text, and none holds a
			 * comma; quote anyway if one ever does. */
			fprintf(out, strchr(s, ',') ? "%s\"%s\"" : "%s%s",
				i ? "," : "", s);
		}
		fputc('\n', out);
		return;
	}
	/* -O: a column per field, as wide as its name or value plus one. */
	for (int line = headers ? 0 : 1; line < 2; line++) {
		for (i = 0; i < n; i++) {
			size_t w = strlen(ms_name[ids[i]]);

			if (strlen(v[ids[i]]) > w)
				w = strlen(v[ids[i]]);
			fprintf(out, "%-*s ", (int)w + 1,
				line == 0 ? ms_name[ids[i]] : v[ids[i]]);
		}
		fputc('\n', out);
	}
}

void
merge_print_table(FILE *out, const struct merge *m,
		  const struct merge_figures *f, int headers, int verbosity,
		  double max_skew_s)
{
	const struct result_latency *l = &f->lat;
	/* Every string a file gave, escaped: a hostile one could drive the
	 * reader's terminal or forge a line. */
	char test[ESCAPE_LEN], units[ESCAPE_LEN], sd_units[ESCAPE_LEN];
	char a[ESCAPE_LEN], b[ESCAPE_LEN], c[ESCAPE_LEN];
	int i;

	escape_str(test, sizeof(test), m->test);
	escape_str(units, sizeof(units), m->units);
	escape_str(sd_units, sizeof(sd_units), m->sd_units);
	if (headers)
		fprintf(out, "MERGED %s: %d run%s merged, %d failed\n\n", test,
			m->nruns, m->nruns == 1 ? "" : "s", m->nfail);
	fprintf(out, "Throughput, sum of runs      %14.2f %s\n", f->thruput_sum,
		units);
	if (f->thruput_window >= 0)
		fprintf(out,
			"Throughput, all active       %14.2f %s over %.3f s\n",
			f->thruput_window, units, f->window_s);
	else
		fprintf(out, "Throughput, all active       %14s (%s)\n", "-",
			escape_str(a, sizeof(a), f->window_note));
	fprintf(out, "Start skew                   %14.3f ms (limit %.3f ms)\n",
		f->skew_s * 1e3, max_skew_s * 1e3);
	if (f->late_max_s > -1) {
		fprintf(out, "Latest start after schedule  %14.3f ms",
			f->late_max_s * 1e3);
		if (f->late_wait_s >= 0)
			fprintf(out, " (%.3f ms of it waiting for a CPU)",
				f->late_wait_s * 1e3);
		fputc('\n', out);
	}
	for (i = 0; i < 2; i++) {
		if (f->sd[i] >= 0)
			fprintf(out,
				"%s service demand    %14.3f %s (%.3f CPU s)\n",
				i ? "netserver" : "netperf  ", f->sd[i],
				sd_units, f->cpu_s[i]);
		else if (verbosity > 0)
			fprintf(out,
				"%s service demand    %14s (CPU not "
				"measured on every host)\n",
				i ? "netserver" : "netperf  ", "-");
	}
	if (l->count > 0)
		fprintf(out,
			"Latency us: min %.1f, mean %.2f, p50 %.1f, p90 %.1f, "
			"p99 %.1f, p99.9 %.1f, max %.1f (%llu operations, "
			"from the merged histogram)\n",
			l->min, l->mean, l->p50, l->p90, l->p99, l->p999,
			l->max, (unsigned long long)l->count);
	for (i = 0; i < m->nfail; i++)
		fprintf(out, "Failed: %s: %s\n",
			escape_str(a, sizeof(a), m->fail[i].name),
			escape_str(b, sizeof(b), m->fail[i].why));
	if (verbosity < 2)
		return;
	fprintf(out, "\n%-24s %-16s %-16s %12s %14s\n", "Run", "netperf host",
		"netserver host", "start ms", "throughput");
	for (i = 0; i < m->nruns; i++) {
		const struct merge_run *r = &m->runs[i];

		fprintf(out, "%-24s %-16s %-16s %12.3f %14.2f\n",
			escape_str(a, sizeof(a), r->name),
			escape_str(b, sizeof(b), r->local_host),
			escape_str(c, sizeof(c), r->remote_host),
			(double)(r->start_ns - f->first_start_ns) / 1e6,
			r->thruput);
	}
}
