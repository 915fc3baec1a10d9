#include "np/interval.h"

#include <stdlib.h>
#include <string.h>

#include "np/transport.h"

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
	if (run->n == 0 || run->ctx[0].transport == NULL ||
	    !transport_has_tcpinfo(run->ctx[0].transport, run->m))
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
	int i, hists = 0;

	memset(t, 0, sizeof(*t));
	t->n = run->n;
	/* The connections are new: their counters start at zero. */
	tcpinfo_clear(&t->ti_prev);
	/* Flows on threads keep a histogram a thread, in the first streams'
	 * contexts, not one a flow. */
	for (i = 0; i < run->n; i++)
		if (run->ctx[i].hist != NULL)
			hists = 1;
	t->prev = calloc((size_t)(run->n > 0 ? run->n : 1), sizeof(*t->prev));
	t->stream =
	    calloc((size_t)(run->n > 0 ? run->n : 1), sizeof(*t->stream));
	/* Three histograms whatever the streams: the sum of what was read
	 * at the last boundary, at this one, and their difference. The
	 * baseline is zero, as the streams' histograms start: anything
	 * counted before the gate is in the first interval. */
	if (hists) {
		t->prev_hist = calloc(1, sizeof(*t->prev_hist));
		t->cur_hist = calloc(1, sizeof(*t->cur_hist));
		t->hist = calloc(1, sizeof(*t->hist));
	}
	if (t->prev == NULL || t->stream == NULL ||
	    (hists && (t->prev_hist == NULL || t->cur_hist == NULL ||
		       t->hist == NULL))) {
		interval_track_free(t);
		return err_set(err, "out of memory");
	}
	t->out.n = run->n;
	t->out.stream = t->stream;
	/* Only netperf's loops keep a mix's classes apart. */
	if (run->n > 0 && run->ctx[0].mix != NULL) {
		size_t k = (size_t)run->ctx[0].p->mix.n;

		t->nclasses = (int)k;
		t->class_prev = calloc(k, sizeof(*t->class_prev));
		t->class_count = calloc(k, sizeof(*t->class_count));
		t->class_to_prev = calloc(k, sizeof(*t->class_to_prev));
		t->class_timeouts = calloc(k, sizeof(*t->class_timeouts));
		t->class_late_prev = calloc(k, sizeof(*t->class_late_prev));
		t->class_late = calloc(k, sizeof(*t->class_late));
		t->class_prev_hist = calloc(k, sizeof(*t->class_prev_hist));
		t->class_cur_hist = calloc(k, sizeof(*t->class_cur_hist));
		t->class_hist = calloc(k, sizeof(*t->class_hist));
		if (t->class_prev == NULL || t->class_count == NULL ||
		    t->class_to_prev == NULL || t->class_timeouts == NULL ||
		    t->class_late_prev == NULL || t->class_late == NULL ||
		    t->class_prev_hist == NULL || t->class_cur_hist == NULL ||
		    t->class_hist == NULL) {
			interval_track_free(t);
			return err_set(err, "out of memory");
		}
		t->out.nclasses = t->nclasses;
		t->out.class_count = t->class_count;
		t->out.class_timeouts = t->class_timeouts;
		t->out.class_late = t->class_late;
		t->out.class_hist = t->class_hist;
	}
	return 0;
}

/*
 * Adds stream histogram h, as it reads now, into sum. The loop writes h
 * as this runs, without a lock: each bucket is one 8-byte load, and
 * only the buckets between the stream's least and greatest value can
 * hold anything (a few hundred loads, not all 7424). min and max only
 * move outwards and the loop moves them after the bucket, so a value
 * whose bucket lies outside the range read here, or that came after its
 * bucket was read, is in no read yet: a later boundary's sum has it.
 * Every bucket's read only grows from one boundary to the next, so the
 * differences of the sums are never negative, and once the loops have
 * ended (the tail) the reads are the totals.
 */
static void
hist_read(struct stats_hist *sum, const struct stats_hist *h)
{
	uint64_t lo, hi;
	int b, last;

	lo = __atomic_load_n(&h->min, __ATOMIC_RELAXED);
	hi = __atomic_load_n(&h->max, __ATOMIC_RELAXED);
	if (lo > hi)
		return;
	last = stats_bucket_of(hi);
	for (b = stats_bucket_of(lo); b <= last; b++)
		sum->bucket[b] +=
		    __atomic_load_n(&h->bucket[b], __ATOMIC_RELAXED);
	sum->sum += __atomic_load_n(&h->sum, __ATOMIC_RELAXED);
}

/* iv = cur - prev, bucket by bucket, with its count, and its bounds from
 * its buckets (min and max are not differences: they are its lowest and
 * highest buckets' edges). */
static void
hist_diff(struct stats_hist *iv, const struct stats_hist *cur,
	  const struct stats_hist *prev)
{
	uint64_t lo, hi;
	int b;

	stats_hist_init(iv);
	iv->max = 0;
	for (b = 0; b < STATS_NBUCKETS; b++) {
		uint64_t d = cur->bucket[b] - prev->bucket[b];

		if (d == 0)
			continue;
		iv->bucket[b] = d;
		iv->count += d;
		if (stats_bucket_bounds(b, &lo, &hi) == 0) {
			if (lo < iv->min)
				iv->min = lo;
			iv->max = hi;
		}
	}
	/* The sum is read apart from the buckets, so it may run a value
	 * ahead of them or behind; it is no more than a mean's guide. */
	iv->sum = cur->sum >= prev->sum ? cur->sum - prev->sum : 0;
}

/*
 * The open loop's counts over the interval that began at t->prev_t, into
 * t->out: time-outs and connection errors as the difference of their sums
 * (each stream's only grows, so the sum does, and the last read, after
 * the loops ended, is the total), and the streams active in it: those
 * not ended on a connection error by now and, for a whole interval, not
 * done before it began. The tail counts every stream that ran to the
 * end, even one that ended between the last boundary and its reading.
 * The late answers (UDP) as the time-outs. With a mix, the time-outs and
 * late answers are the sums of the classes' as class_read read them
 * (class_to and class_lt, each class's over the streams), so that the
 * classes add up to the interval's exactly.
 */
static void
interval_flows(struct interval_track *t, const struct module_run *run,
	       int partial, const uint64_t *class_to, const uint64_t *class_lt)
{
	uint64_t to = 0, errs = 0, lt = 0, done;
	int i, flows = 0;

	for (i = 0; class_to != NULL && i < t->nclasses; i++) {
		to += class_to[i];
		lt += class_lt[i];
	}
	for (i = 0; i < t->n; i++) {
		const struct side_result *r = run->ctx[i].r;

		if (class_to == NULL) {
			to += __atomic_load_n(&r->timeouts, __ATOMIC_RELAXED);
			lt += __atomic_load_n(&r->late, __ATOMIC_RELAXED);
		}
		errs += __atomic_load_n(&r->errors, __ATOMIC_RELAXED);
		done = __atomic_load_n(&run->ctx[i].done_ns, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->ended, __ATOMIC_RELAXED) == 0 &&
		    (partial || done == 0 || done > t->prev_t))
			flows++;
	}
	t->out.timeouts = to - t->timeouts_prev;
	t->out.errors = errs - t->errors_prev;
	t->out.flows = flows;
	t->out.late = lt - t->late_prev;
	t->timeouts_prev = to;
	t->errors_prev = errs;
	t->late_prev = lt;
}

/*
 * Stream i's count as the sum of its mix's classes' transactions, each
 * read once and added into sums (and its classes' time-outs into to,
 * their late answers into lt):
 * the interval's classes then add up to its count exactly, as the loop's
 * two counters, read apart, would not. A flow's classes are its own; the
 * histograms are read where they are kept, a stream's or (flows) its
 * thread's, in the thread's first flow's context.
 */
static uint64_t
class_read(struct interval_track *t, const struct module_run *run, int i,
	   uint64_t *sums, uint64_t *to, uint64_t *lt)
{
	const struct mix_acct *a = run->ctx[i].mix;
	const struct stats_hist *h = run->ctx[i].mix_hist;
	uint64_t c, total = 0;

	for (int k = 0; k < t->nclasses; k++) {
		c = __atomic_load_n(&a[k].trans, __ATOMIC_RELAXED);
		sums[k] += c;
		total += c;
		to[k] += __atomic_load_n(&a[k].timeouts, __ATOMIC_RELAXED);
		lt[k] += __atomic_load_n(&a[k].late, __ATOMIC_RELAXED);
		if (h != NULL)
			hist_read(&t->class_cur_hist[k], &h[k]);
	}
	return total;
}

/* The classes' counts, time-outs, late answers and histograms over the
 * interval, from sums, to and lt (what the streams' classes add up to
 * now). */
static void
class_take(struct interval_track *t, const uint64_t *sums, const uint64_t *to,
	   const uint64_t *lt)
{
	struct stats_hist *swap;

	for (int k = 0; k < t->nclasses; k++) {
		t->class_count[k] = sums[k] - t->class_prev[k];
		t->class_prev[k] = sums[k];
		t->class_timeouts[k] = to[k] - t->class_to_prev[k];
		t->class_to_prev[k] = to[k];
		t->class_late[k] = lt[k] - t->class_late_prev[k];
		t->class_late_prev[k] = lt[k];
		hist_diff(&t->class_hist[k], &t->class_cur_hist[k],
			  &t->class_prev_hist[k]);
	}
	swap = t->class_prev_hist;
	t->class_prev_hist = t->class_cur_hist;
	t->class_cur_hist = swap;
}

/*
 * t->out's lost requests and answers (-D on UDP_RR): what the streams
 * found since the last boundary, when every stream's answers carry
 * netserver's count. A late answer to a request given up on in an
 * earlier interval takes one from the answers lost.
 */
static void
interval_lost(struct interval_track *t, const struct module_run *run)
{
	int64_t req = 0, all = 0;
	int i;

	t->out.lost_split = t->n > 0;
	for (i = 0; i < t->n; i++) {
		const struct test_ctx *c = &run->ctx[i];

		if (!__atomic_load_n(&c->lost_split, __ATOMIC_RELAXED))
			t->out.lost_split = 0;
		req += (int64_t)__atomic_load_n(&c->lost_req, __ATOMIC_RELAXED);
		all += (int64_t)__atomic_load_n(&c->lost_all, __ATOMIC_RELAXED);
	}
	t->out.lost_req = req - t->lost_req_prev;
	t->out.lost_rsp = (all - req) - t->lost_rsp_prev;
	t->lost_req_prev = req;
	t->lost_rsp_prev = all - req;
}

uint64_t
interval_track_take(struct interval_track *t, const struct module_run *run,
		    int partial)
{
	uint64_t sums[MIX_MAX] = {0}, to[MIX_MAX] = {0}, lt[MIX_MAX] = {0};
	struct stats_hist *swap;
	struct tcpinfo ti_now;
	uint64_t c, sum = 0;
	int i;

	if (t->hist != NULL)
		memset(t->cur_hist, 0, sizeof(*t->cur_hist));
	if (t->nclasses > 0)
		memset(t->class_cur_hist, 0,
		       (size_t)t->nclasses * sizeof(*t->class_cur_hist));
	for (i = 0; i < t->n; i++) {
		c = t->nclasses > 0 && run->ctx[i].mix != NULL
			? class_read(t, run, i, sums, to, lt)
			: interval_stream_count(run, i);
		t->stream[i] = c - t->prev[i];
		t->prev[i] = c;
		sum += t->stream[i];
		if (t->hist != NULL && run->ctx[i].hist != NULL)
			hist_read(t->cur_hist, run->ctx[i].hist);
	}
	if (t->hist != NULL) {
		hist_diff(t->hist, t->cur_hist, t->prev_hist);
		swap = t->prev_hist;
		t->prev_hist = t->cur_hist;
		t->cur_hist = swap;
	}
	if (t->nclasses > 0)
		class_take(t, sums, to, lt);
	interval_tcpinfo(run, &ti_now);
	tcpinfo_delta(&ti_now, &t->ti_prev, &t->ti_iv);
	t->ti_prev = ti_now;
	interval_flows(t, run, partial, t->nclasses > 0 ? to : NULL,
		       t->nclasses > 0 ? lt : NULL);
	interval_lost(t, run);
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
	free(t->cur_hist);
	free(t->hist);
	free(t->class_prev);
	free(t->class_count);
	free(t->class_to_prev);
	free(t->class_timeouts);
	free(t->class_late_prev);
	free(t->class_late);
	free(t->class_prev_hist);
	free(t->class_cur_hist);
	free(t->class_hist);
	memset(t, 0, sizeof(*t));
}
