#include "np/interval.h"

#include <stdlib.h>
#include <string.h>

uint64_t
interval_stream_count(const struct module_run *run, int i)
{
	const struct side_result *r = run->ctx[i].r;

	/* The loops update their counters without locks; an 8-byte aligned
	 * load sees either the old or the new value, which is all an
	 * interim figure needs. */
	if (module_is_rr(run->m))
		return __atomic_load_n(&r->trans, __ATOMIC_RELAXED);
	if (run->m->flow == MODULE_TO_CLIENT || run->ctx[i].reverse)
		return __atomic_load_n(&r->bytes_recv, __ATOMIC_RELAXED);
	return __atomic_load_n(&r->bytes_sent, __ATOMIC_RELAXED);
}

/* The streams' TCP_INFO merged, read by the coordinator at a boundary;
 * t->n is 0 for a test without it. */
static void
interval_tcpinfo(const struct module_run *run, struct tcpinfo *t)
{
	struct tcpinfo one;
	char ignored[ERR_LEN];
	int i;

	tcpinfo_clear(t);
	if (!module_has_tcpinfo(run->m))
		return;
	/* getsockopt on another thread's socket is safe; it takes the
	 * socket lock for a moment, once an interval. */
	for (i = 0; i < run->n; i++)
		if (run->ctx[i].fd >= 0 &&
		    tcpinfo_read(run->ctx[i].fd, &one, ignored) == 0)
			tcpinfo_merge(t, &one);
}

int
interval_track_init(struct interval_track *t, const struct module_run *run,
		    char *err)
{
	int i, hists = run->n > 0;

	memset(t, 0, sizeof(*t));
	t->n = run->n;
	/* The connections are new: their counters start at zero. */
	tcpinfo_clear(&t->ti_prev);
	for (i = 0; i < run->n; i++)
		if (run->ctx[i].hist == NULL)
			hists = 0;
	t->prev = calloc((size_t)(run->n > 0 ? run->n : 1), sizeof(*t->prev));
	t->stream =
	    calloc((size_t)(run->n > 0 ? run->n : 1), sizeof(*t->stream));
	if (hists) {
		t->prev_hist = calloc((size_t)run->n, sizeof(*t->prev_hist));
		t->hist = malloc(sizeof(*t->hist));
	}
	if (t->prev == NULL || t->stream == NULL ||
	    (hists && (t->prev_hist == NULL || t->hist == NULL))) {
		interval_track_free(t);
		return err_set(err, "out of memory");
	}
	/* The baseline is zero (calloc), as the streams' counts and
	 * histograms start: anything counted before the gate is in the
	 * first interval. */
	t->out.n = run->n;
	t->out.stream = t->stream;
	return 0;
}

/* Adds what stream histogram h gained since *prev into iv, and moves
 * *prev up to it. The loop writes h as this runs: each bucket is read
 * once, and a value counted after its bucket was read is the next
 * interval's. */
static void
hist_take(struct stats_hist *iv, struct stats_hist *prev,
	  const struct stats_hist *h)
{
	uint64_t now, sum, lo, hi;
	int b, first, last;

	/* Only the buckets between the stream's least and greatest value
	 * can have grown: a few hundred loads, not every bucket, at each
	 * boundary. min and max only move outwards, and the loop moves
	 * them after the bucket, so a value whose bucket lies outside the
	 * range read here is left in that bucket for a later interval,
	 * whose own difference takes it; after the loops end (the tail)
	 * the range is final. (The count cannot tell that nothing moved:
	 * it is written before min and max.) */
	lo = __atomic_load_n(&h->min, __ATOMIC_RELAXED);
	hi = __atomic_load_n(&h->max, __ATOMIC_RELAXED);
	if (lo > hi)
		return;
	first = stats_bucket_of(lo);
	last = stats_bucket_of(hi);
	for (b = first; b <= last; b++) {
		now = __atomic_load_n(&h->bucket[b], __ATOMIC_RELAXED);
		if (now == prev->bucket[b])
			continue;
		iv->bucket[b] += now - prev->bucket[b];
		iv->count += now - prev->bucket[b];
		prev->bucket[b] = now;
	}
	sum = __atomic_load_n(&h->sum, __ATOMIC_RELAXED);
	iv->sum += sum - prev->sum;
	prev->sum = sum;
}

/* The interval histogram's bounds from its buckets: min and max are
 * not differences, so they are its lowest and highest buckets' edges. */
static void
hist_bounds(struct stats_hist *h)
{
	uint64_t lo, hi;
	int b;

	h->min = UINT64_MAX;
	h->max = 0;
	for (b = 0; b < STATS_NBUCKETS; b++)
		if (h->bucket[b] != 0 &&
		    stats_bucket_bounds(b, &lo, &hi) == 0) {
			h->min = lo;
			break;
		}
	for (b = STATS_NBUCKETS - 1; b >= 0; b--)
		if (h->bucket[b] != 0 &&
		    stats_bucket_bounds(b, &lo, &hi) == 0) {
			h->max = hi;
			break;
		}
}

uint64_t
interval_track_take(struct interval_track *t, const struct module_run *run,
		    int partial)
{
	struct tcpinfo ti_now;
	uint64_t c, sum = 0;
	int i;

	if (t->hist != NULL)
		stats_hist_init(t->hist);
	for (i = 0; i < t->n; i++) {
		c = interval_stream_count(run, i);
		t->stream[i] = c - t->prev[i];
		t->prev[i] = c;
		sum += t->stream[i];
		if (t->hist != NULL)
			hist_take(t->hist, &t->prev_hist[i], run->ctx[i].hist);
	}
	if (t->hist != NULL)
		hist_bounds(t->hist);
	interval_tcpinfo(run, &ti_now);
	tcpinfo_delta(&ti_now, &t->ti_prev, &t->ti_iv);
	t->ti_prev = ti_now;
	t->out.partial = partial;
	t->out.hist = t->hist;
	return sum;
}

void
interval_track_free(struct interval_track *t)
{
	free(t->prev);
	free(t->stream);
	free(t->prev_hist);
	free(t->hist);
	memset(t, 0, sizeof(*t));
}
