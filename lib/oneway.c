#include "np/oneway.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "np/be.h"
#include "np/clock.h"
#include "np/err.h"
#include "np/module.h"
#include "np/result.h"

void
oneway_init(struct oneway *w)
{
	stats_hist_init(&w->out);
	stats_hist_init(&w->in);
	w->n = 0;
	w->bad = 0;
	w->min_out = INT64_MAX;
	w->min_in = INT64_MAX;
	w->own_back = 0;
}

void
oneway_merge(struct oneway *dst, const struct oneway *src)
{
	stats_hist_merge(&dst->out, &src->out);
	stats_hist_merge(&dst->in, &src->in);
	dst->n += src->n;
	dst->bad += src->bad;
	if (src->min_out < dst->min_out)
		dst->min_out = src->min_out;
	if (src->min_in < dst->min_in)
		dst->min_in = src->min_in;
	if (src->own_back > dst->own_back)
		dst->own_back = src->own_back;
}

/*
 * A test build (one with its test suites) lets a test shift netserver's
 * clock, so that the clock check can be seen to fail between two network
 * namespaces, whose CLOCK_REALTIME is one clock (the kernel's time
 * namespaces do not shift it). No other build reads the variable.
 */
#ifdef NP_TEST_HOOKS
static int64_t test_offset;
static pthread_once_t test_offset_once = PTHREAD_ONCE_INIT;

static void
test_offset_read(void)
{
	const char *s = getenv("NETSERVER_TEST_CLOCK_OFFSET_NS");

	if (s != NULL)
		test_offset = strtoll(s, NULL, 10);
}

static int64_t
server_now(void)
{
	pthread_once(&test_offset_once, test_offset_read);
	return clock_real_ns() + test_offset;
}
#else
static int64_t
server_now(void)
{
	return clock_real_ns();
}
#endif

void
oneway_stamp_request(char *buf)
{
	be64_put(buf + ONEWAY_T1_OFF, (uint64_t)clock_real_ns());
}

void
oneway_stamp_received(char *buf)
{
	be64_put(buf + ONEWAY_T2_OFF, (uint64_t)server_now());
}

void
oneway_stamp_reply(char *buf)
{
	be64_put(buf + ONEWAY_T3_OFF, (uint64_t)server_now());
}

/* A delay into its histogram; a negative one (the clocks disagree, and
 * the figures will not be printed) as 0. */
static void
add_delay(struct stats_hist *h, int64_t *min, int64_t d)
{
	stats_hist_add(h, d > 0 ? (uint64_t)d : 0);
	if (d < *min)
		*min = d;
}

/* a - b without overflow: the times come from the peer, any 64 bits. */
static int64_t
since(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

void
oneway_answer(struct oneway *w, const char *buf, size_t n)
{
	int64_t t4 = clock_real_ns(), t1, t2, t3;

	if (n < ONEWAY_RSP_MIN)
		return;
	t1 = (int64_t)be64_get(buf + ONEWAY_T1_OFF);
	t2 = (int64_t)be64_get(buf + ONEWAY_T2_OFF);
	t3 = (int64_t)be64_get(buf + ONEWAY_T3_OFF);
	w->n++;
	add_delay(&w->out, &w->min_out, since(t2, t1));
	add_delay(&w->in, &w->min_in, since(t4, t3));
	/* Each host's own clock must not run backwards within a
	 * transaction (a step of NTP, or a garbled answer). */
	if (t3 < t2 && since(t2, t3) > w->own_back)
		w->own_back = since(t2, t3);
	if (t4 < t1 && since(t1, t4) > w->own_back)
		w->own_back = since(t1, t4);
	if (t2 <= t1 || t3 < t2 || t4 <= t3)
		w->bad++;
}

int
oneway_refuses(const struct test_module *m, int64_t req, int64_t rsp, char *err)
{
	char names[128];

	if (!module_has(m, MODULE_F_ONE_WAY)) {
		module_names_with(MODULE_F_ONE_WAY, names, sizeof(names));
		return err_set(err, "--one-way applies to %s only, not %s",
			       names, m->name);
	}
	if (req < ONEWAY_REQ_MIN || rsp < ONEWAY_RSP_MIN)
		return err_set(err,
			       "--one-way: a request carries its send time in "
			       "%d bytes and an answer three times in %d: "
			       "-r %lld,%lld is too small (-r %d,%d at least)",
			       ONEWAY_REQ_MIN, ONEWAY_RSP_MIN, (long long)req,
			       (long long)rsp, ONEWAY_REQ_MIN, ONEWAY_RSP_MIN);
	return 0;
}

int
oneway_valid(const struct oneway *w)
{
	return w->n > 0 && w->bad == 0;
}

/*
 * With the server's clock ahead of the client's by theta, the measured
 * delays are out = d_out + theta and in = d_in - theta, each true delay
 * at least 0: theta <= min(out) and theta >= -min(in).
 */
void
oneway_offset_bound(const struct oneway *w, double *lo, double *hi)
{
	*lo = w->n > 0 ? -(double)w->min_in : 0;
	*hi = w->n > 0 ? (double)w->min_out : 0;
}

int
oneway_verdict(const struct oneway *w, char *msg, size_t cap)
{
	double lo, hi;

	msg[0] = '\0';
	if (oneway_valid(w))
		return 0;
	if (w->n == 0) {
		snprintf(msg, cap,
			 "--one-way: no answer carried the stamps; no one-way "
			 "delay is reported");
		return -1;
	}
	oneway_offset_bound(w, &lo, &hi);
	if (w->own_back > 0)
		snprintf(msg, cap,
			 "--one-way: a clock (%s) stepped back by %.0f us "
			 "within a transaction; no one-way delay is reported",
			 ONEWAY_CLOCK_NAME, (double)w->own_back / 1e3);
	else if (hi <= 0)
		snprintf(msg, cap,
			 "--one-way: %llu of %llu transactions arrived at "
			 "netserver before they left netperf: netserver's "
			 "clock (%s) is behind by at least %.0f us; one-way "
			 "delay needs the clocks in sync (NTP or PTP) and is "
			 "not reported",
			 (unsigned long long)w->bad, (unsigned long long)w->n,
			 ONEWAY_CLOCK_NAME, -hi / 1e3);
	else
		snprintf(msg, cap,
			 "--one-way: %llu of %llu answers arrived at netperf "
			 "before they left netserver: netserver's clock (%s) "
			 "is ahead by at least %.0f us; one-way delay needs "
			 "the clocks in sync (NTP or PTP) and is not reported",
			 (unsigned long long)w->bad, (unsigned long long)w->n,
			 ONEWAY_CLOCK_NAME, lo / 1e3);
	return -1;
}

double
oneway_latency_us(const struct result *res, int inbound, double pct)
{
	const struct oneway *w = res->oneway;

	if (w == NULL || !oneway_valid(w))
		return -1;
	return stats_hist_percentile(inbound ? &w->in : &w->out, pct) / 1e3;
}

/*
 * netperf counts the requests it sent and the answers it received (those
 * that came after their request was given up on among them); netserver
 * counts the requests it received. A request netserver never saw was
 * lost on the way there; one it saw and netperf never heard the answer
 * to was lost on the way back.
 */
int
oneway_lost(const struct result *res, uint64_t *requests, uint64_t *responses)
{
	const struct side_result *l = &res->side[RESULT_LOCAL].sum,
				 *r = &res->side[RESULT_REMOTE].sum;
	uint64_t sent, seen, answered;

	*requests = *responses = 0;
	if (!module_has(res->m, MODULE_F_RETRY) || res->legacy ||
	    r->requests < 0 || l->requests < 0)
		return -1;
	sent = (uint64_t)l->requests;
	seen = (uint64_t)r->requests;
	answered = l->trans + l->late;
	/* A network that duplicates a datagram may make either negative:
	 * none is lost then. */
	*requests = sent > seen ? sent - seen : 0;
	*responses = seen > answered ? seen - answered : 0;
	return 0;
}

/* One direction's delays, us: null when the check failed. */
static json_t *
direction_json(const struct oneway *w, const struct stats_hist *h)
{
	if (!oneway_valid(w))
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "min",
			 (double)h->min / 1e3, "mean", stats_hist_mean(h) / 1e3,
			 "p50", stats_hist_percentile(h, 50) / 1e3, "p99",
			 stats_hist_percentile(h, 99) / 1e3, "max",
			 (double)h->max / 1e3);
}

json_t *
oneway_json(const struct result *res)
{
	const struct oneway *w = res->oneway;
	double lo, hi;

	if (w == NULL)
		return json_null();
	oneway_offset_bound(w, &lo, &hi);
	return json_pack("{s:s, s:I, s:b, s:I, s:o, s:o, s:o, s:o}", "clock",
			 ONEWAY_CLOCK_NAME, "transactions", (json_int_t)w->n,
			 "clock_check_passed", oneway_valid(w), "violations",
			 (json_int_t)w->bad, "offset_min_us",
			 w->n > 0 ? json_real(lo / 1e3) : json_null(),
			 "offset_max_us",
			 w->n > 0 ? json_real(hi / 1e3) : json_null(),
			 "outbound_us", direction_json(w, &w->out),
			 "inbound_us", direction_json(w, &w->in));
}

json_t *
oneway_json_lost(const struct result *res, int responses)
{
	uint64_t req, rsp;

	if (oneway_lost(res, &req, &rsp) < 0)
		return json_null();
	return json_integer((json_int_t)(responses ? rsp : req));
}

void
oneway_report(FILE *out, const struct result *res)
{
	const struct oneway *w = res->oneway;
	uint64_t req, rsp;
	double lo, hi;

	if (oneway_lost(res, &req, &rsp) == 0)
		fprintf(out,
			"\nLost requests (never reached netserver): %llu, "
			"lost answers (never reached netperf): %llu, late "
			"answers: %llu\n",
			(unsigned long long)req, (unsigned long long)rsp,
			(unsigned long long)res->side[RESULT_LOCAL].sum.late);
	if (w == NULL)
		return;
	oneway_offset_bound(w, &lo, &hi);
	fprintf(out, "\nOne-way delay (%s, %llu transactions), clock check %s",
		ONEWAY_CLOCK_NAME, (unsigned long long)w->n,
		oneway_valid(w) ? "passed" : "FAILED");
	if (w->n > 0)
		fprintf(out,
			": netserver's clock minus netperf's is in "
			"[%.1f, %.1f] us",
			lo / 1e3, hi / 1e3);
	fputc('\n', out);
	if (!oneway_valid(w)) {
		fprintf(out, "One-way delay: not measured (the clocks need NTP "
			     "or PTP)\n");
		return;
	}
	fprintf(out,
		"Outbound (netperf to netserver) us: min %.1f mean %.1f "
		"p50 %.1f p99 %.1f max %.1f\n",
		(double)w->out.min / 1e3, stats_hist_mean(&w->out) / 1e3,
		stats_hist_percentile(&w->out, 50) / 1e3,
		stats_hist_percentile(&w->out, 99) / 1e3,
		(double)w->out.max / 1e3);
	fprintf(out,
		"Inbound (netserver to netperf) us:  min %.1f mean %.1f "
		"p50 %.1f p99 %.1f max %.1f\n",
		(double)w->in.min / 1e3, stats_hist_mean(&w->in) / 1e3,
		stats_hist_percentile(&w->in, 50) / 1e3,
		stats_hist_percentile(&w->in, 99) / 1e3,
		(double)w->in.max / 1e3);
}

int
oneway_splits_intervals(const struct test_module *m,
			const struct test_params *p)
{
	/* UDP_CRR counts its own requests in place of a tag; the flows'
	 * have no count on the interval reader's contexts; --timeout's
	 * time-outs are no losses; a mix's class byte sits where the
	 * count would, and its tag may be cut short. UDP_RR's open loop
	 * splits as the closed one does, UDP_CRR's does not (its pacer
	 * counts the losses). */
	return module_has(m, MODULE_F_RETRY) && !module_flows(p) &&
	       p->timeout <= 0 && p->mix.n == 0 &&
	       (!module_open_loop(p) || !module_has(m, MODULE_F_PER_TRANS));
}

size_t
oneway_count_off(const struct test_params *p)
{
	size_t off = p->one_way ? ONEWAY_RSP_MIN : ONEWAY_T1_OFF;

	if (!p->lost_iv || p->req_size < ONEWAY_T1_OFF ||
	    p->rsp_size < (int64_t)(off + ONEWAY_COUNT_LEN))
		return 0;
	return off;
}

void
oneway_lost_answer(struct test_ctx *ctx, uint64_t tag, const char *buf,
		   size_t n)
{
	/* Every request given up on so far was sent before this one, so
	 * the count in the answer has seen it, or its answer came late. */
	oneway_lost_seen(ctx, tag, buf, n, ctx->r->lost - ctx->r->late);
}

void
oneway_lost_seen(struct test_ctx *ctx, uint64_t tag, const char *buf, size_t n,
		 uint64_t unanswered)
{
	size_t off = oneway_count_off(ctx->p);
	uint64_t seen, req;

	if (!ctx->lost_split || n < off + ONEWAY_COUNT_LEN)
		return;
	seen = ben_get(buf + off, ONEWAY_COUNT_LEN);
	req = tag > seen ? tag - seen : 0;
	/* A duplicated request makes netserver's count run ahead: what
	 * was found lost stays lost. */
	if (req > ctx->lost_req)
		__atomic_store_n(&ctx->lost_req, req, __ATOMIC_RELAXED);
	__atomic_store_n(&ctx->lost_all, unanswered, __ATOMIC_RELAXED);
}

int
oneway_lost_tail(struct result *res)
{
	struct result_interim *last;
	int64_t req = 0, rsp = 0;
	uint64_t treq, trsp;
	int i;

	if (res->ninterim == 0 || oneway_lost(res, &treq, &trsp) < 0)
		return -1;
	last = &res->interim[res->ninterim - 1];
	if (!last->partial || !last->lost_split)
		return -1;
	for (i = 0; i < res->ninterim - 1; i++) {
		if (!res->interim[i].lost_split)
			return -1;
		req += res->interim[i].lost_req;
		rsp += res->interim[i].lost_rsp;
	}
	last->lost_req = (int64_t)treq - req;
	last->lost_rsp = (int64_t)trsp - rsp;
	return 0;
}
