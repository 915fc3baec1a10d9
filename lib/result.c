#include "np/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <string.h>

#include "np/transport.h"
#include "np/tstamp.h"

/* Work done by one side per second: KB (1024 bytes) of everything it sent
 * and received, or its transactions when service demand is per trans. */
static double
side_units_per_sec(const struct result *res, const struct side_result *s)
{
	if (s->elapsed <= 0)
		return 0;
	if (module_is_rr(res->m) && res->fmt == 'x')
		return (double)s->trans / s->elapsed;
	return (double)(s->bytes_sent + s->bytes_recv) / 1024.0 / s->elapsed;
}

/* One side's CPU figures from its sum: utilisation, service demand and
 * the busiest CPU, -1 where it was not asked to or could not measure. */
static void
side_cpu(const struct result *res, struct result_side *side)
{
	const struct side_result *s = &side->sum;

	side->util = -1;
	side->sd = -1;
	side->ncpu = 0;
	side->peak_id = -1;
	side->peak = -1;
	if (!side->cpu_wanted || !s->cpu_measured)
		return;
	side->util = s->cpu.all.util;
	side->ncpu = s->cpu.ncpu;
	side->sd = cpu_service_demand(side->util, side->ncpu,
				      side_units_per_sec(res, s));
	if (side->util >= 0) {
		side->peak = s->cpu.peak;
		side->peak_id = s->cpu.peak_id;
	}
}

/* Latency in microseconds from netperf's histogram h into l. */
static void
latency_of(const struct stats_hist *h, struct result_latency *l)
{

	memset(l, 0, sizeof(*l));
	if (h == NULL || h->count == 0)
		return;
	l->count = h->count;
	l->min = (double)h->min / 1e3;
	l->max = (double)h->max / 1e3;
	l->mean = stats_hist_mean(h) / 1e3;
	l->stddev = stats_hist_stddev(h) / 1e3;
	l->p50 = stats_hist_percentile(h, 50) / 1e3;
	l->p90 = stats_hist_percentile(h, 90) / 1e3;
	l->p99 = stats_hist_percentile(h, 99) / 1e3;
	l->p999 = stats_hist_percentile(h, 99.9) / 1e3;
	l->p9999 = stats_hist_percentile(h, 99.99) / 1e3;
}

static void
latency(struct result *res)
{
	latency_of(res->hist, &res->lat);
	latency_of(res->svc_hist, &res->svc);
}

/* Jain's index: (sum x)^2 / (n sum x^2); 1 when every stream got the
 * same, 1/n when one got everything. */
static void
fairness(struct result *res)
{
	double sum = 0, sq = 0, x;
	int i;

	res->fairness = 1;
	if (res->nstreams < 2 || res->side[RESULT_LOCAL].stream == NULL ||
	    res->side[RESULT_REMOTE].stream == NULL)
		return;
	for (i = 0; i < res->nstreams; i++) {
		x = result_stream_thruput(res, i);
		sum += x;
		sq += x * x;
	}
	res->fairness = sq > 0 ? sum * sum / (res->nstreams * sq) : 1;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Flows on threads: the flows' smallest, median and largest figures,
 * which the table gives in place of a row a flow. */
static void
flow_spread(struct result *res)
{
	double *x;
	int i, n = res->nstreams;

	res->flow_min = res->flow_median = res->flow_max = 0;
	if (n < 2 || res->side[RESULT_LOCAL].stream == NULL ||
	    (x = malloc((size_t)n * sizeof(*x))) == NULL)
		return;
	for (i = 0; i < n; i++)
		x[i] = result_stream_thruput(res, i);
	qsort(x, (size_t)n, sizeof(*x), dbl_cmp);
	res->flow_min = x[0];
	res->flow_max = x[n - 1];
	res->flow_median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	free(x);
}

/* --bidir: each direction from its own streams (the first half netperf
 * to netserver, the second back), the headline their sum. The sums over
 * all streams mix the two, but each side's bytes received are one
 * direction's alone, which is what the service demand divides by. */
static void
bidir(struct result *res)
{
	int n = res->nstreams / 2, d, i;

	memset(res->dir, 0, sizeof(res->dir));
	if (res->side[RESULT_LOCAL].stream == NULL ||
	    res->side[RESULT_REMOTE].stream == NULL || n < 1)
		return;
	res->send_thruput = 0;
	for (d = 0; d < 2; d++) {
		struct result_dir *rd = &res->dir[d];
		uint64_t tx_bytes = 0;
		double tx_secs = 0;

		for (i = d * n; i < (d + 1) * n; i++) {
			/* Direction d is sent by side d. */
			const struct side_result *tx = &res->side[d].stream[i];
			const struct side_result *rx =
			    &res->side[1 - d].stream[i];

			tx_bytes += tx->bytes_sent;
			if (tx->elapsed > tx_secs)
				tx_secs = tx->elapsed;

			rd->bytes += rx->bytes_recv;
			rd->sent += tx->send_calls;
			rd->got += rx->recv_calls - rx->dups;
			rd->dups += rx->dups;
			rd->reordered += rx->reordered;
			if (rx->jitter > rd->jitter)
				rd->jitter = rx->jitter;
			if (rx->elapsed > rd->elapsed)
				rd->elapsed = rx->elapsed;
		}
		rd->thruput = rd->elapsed > 0
				  ? units_from_bytes((double)rd->bytes /
							 rd->elapsed,
						     res->fmt)
				  : 0;
		/* The classic table's send line sums both hosts' senders. */
		if (tx_secs > 0)
			res->send_thruput += units_from_bytes(
			    (double)tx_bytes / tx_secs, res->fmt);
		if (module_has(res->m, MODULE_F_SEQ)) {
			rd->lost = rd->got >= rd->sent ? 0 : rd->sent - rd->got;
			rd->loss_pct = rd->sent ? 100.0 * (double)rd->lost /
						      (double)rd->sent
						: 0;
		} else {
			rd->sent = rd->got = 0;
		}
	}
	res->thruput = res->dir[0].thruput + res->dir[1].thruput;
	res->elapsed = res->dir[0].elapsed > res->dir[1].elapsed
			   ? res->dir[0].elapsed
			   : res->dir[1].elapsed;
	res->lost = res->dir[0].lost + res->dir[1].lost;
	res->dups = res->dir[0].dups + res->dir[1].dups;
	res->reordered = res->dir[0].reordered + res->dir[1].reordered;
	res->jitter = res->dir[0].jitter > res->dir[1].jitter
			  ? res->dir[0].jitter
			  : res->dir[1].jitter;
	res->loss_pct =
	    res->dir[0].sent + res->dir[1].sent
		? 100.0 * (double)res->lost /
		      (double)(res->dir[0].sent + res->dir[1].sent)
		: 0;
}

/* A one-way datagram test's loss, from the sender's final count, so
 * datagrams lost at the tail are counted too; never below 0 or above
 * all. -N: no one counted what arrived, and loss is not measured. */
static void
datagram_loss(struct result *res)
{
	uint64_t sent = res->side[RESULT_LOCAL].sum.send_calls;
	uint64_t got = res->side[RESULT_REMOTE].sum.recv_calls -
		       res->side[RESULT_REMOTE].sum.dups;

	res->send_thruput =
	    res->side[RESULT_LOCAL].sum.elapsed > 0
		? units_from_bytes(
		      (double)res->side[RESULT_LOCAL].sum.bytes_sent /
			  res->side[RESULT_LOCAL].sum.elapsed,
		      res->fmt)
		: 0;
	res->lost = got >= sent ? 0 : sent - got;
	res->loss_pct = sent ? 100.0 * (double)res->lost / (double)sent : 0;
	if (res->p.no_control) {
		res->lost = 0;
		res->loss_pct = -1;
	}
}

void
result_compute(struct result *res)
{
	const struct side_result *rx;
	double bytes_per_sec = 0;
	int i;

	if (res->m->unit == MODULE_BYTES) {
		rx = res->m->flow == MODULE_TO_SERVER
			 ? &res->side[RESULT_REMOTE].sum
			 : &res->side[RESULT_LOCAL].sum;
		res->elapsed = rx->elapsed;
		if (rx->elapsed > 0)
			bytes_per_sec = (double)rx->bytes_recv / rx->elapsed;
		res->thruput = units_from_bytes(bytes_per_sec, res->fmt);
		if (module_has(res->m, MODULE_F_SEQ))
			datagram_loss(res);
	} else {
		res->lost = res->side[RESULT_LOCAL].sum.lost;
		res->loss_pct =
		    res->side[RESULT_LOCAL].sum.trans +
			    res->side[RESULT_LOCAL].sum.lost
			? 100.0 * (double)res->side[RESULT_LOCAL].sum.lost /
			      (double)(res->side[RESULT_LOCAL].sum.trans +
				       res->side[RESULT_LOCAL].sum.lost)
			: 0;
		res->elapsed = res->side[RESULT_LOCAL].sum.elapsed;
		res->trans_rate =
		    res->elapsed > 0
			? (double)res->side[RESULT_LOCAL].sum.trans /
			      res->elapsed
			: 0;
		bytes_per_sec = res->trans_rate *
				(double)(res->p.req_size + res->p.rsp_size);
		res->thruput = res->fmt == 'x'
				   ? res->trans_rate
				   : units_from_bytes(bytes_per_sec, res->fmt);
	}
	rx = module_has(res->m, MODULE_F_SEQ) ? &res->side[RESULT_REMOTE].sum
					      : &res->side[RESULT_LOCAL].sum;
	res->dups = rx->dups;
	res->reordered = rx->reordered;
	res->jitter = rx->jitter;
	if (res->p.bidir)
		bidir(res);
	for (i = 0; i < RESULT_NSIDES; i++)
		side_cpu(res, &res->side[i]);
	latency(res);
	fairness(res);
	flow_spread(res);
}

const char *
result_side_name(int side)
{
	return side == RESULT_LOCAL ? "local" : "remote";
}

int
result_sd_per_trans(const struct result *res)
{
	return module_is_rr(res->m) && res->fmt == 'x';
}

const char *
result_sd_units(const struct result *res)
{
	return result_sd_per_trans(res) ? "us/Tr" : "us/KB";
}

char
result_cpu_method(const struct result *res, int side)
{
	return res->side[side].util >= 0 ? 'S' : 'U';
}

void
result_sample_of(const struct result *res, struct result_sample *s)
{
	int lat = res->lat.count > 0;

	s->thruput = res->thruput;
	s->trans_rate = res->trans_rate;
	s->elapsed = res->elapsed;
	s->local_util = res->side[RESULT_LOCAL].util;
	s->remote_util = res->side[RESULT_REMOTE].util;
	s->local_sd = res->side[RESULT_LOCAL].sd;
	s->remote_sd = res->side[RESULT_REMOTE].sd;
	s->p50 = lat ? res->lat.p50 : -1;
	s->p99 = lat ? res->lat.p99 : -1;
	s->p999 = lat ? res->lat.p999 : -1;
	s->loss_pct = res->loss_pct;
}

void
result_free(struct result *res)
{
	int i;

	for (i = 0; i < RESULT_NSIDES; i++) {
		cpu_util_free(&res->side[i].sum.cpu);
		free(res->side[i].stream);
		res->side[i].stream = NULL;
	}
	free(res->hist);
	free(res->oneway);
	res->oneway = NULL;
	free(res->svc_hist);
	res->svc_hist = NULL;
	free(res->mix);
	res->mix = NULL;
	free(res->mix_hist);
	res->mix_hist = NULL;
	for (i = 0; res->interim != NULL && i < res->ninterim; i++) {
		free(res->interim[i].stream);
		free(res->interim[i].classes);
	}
	if (res->tstamp != NULL) {
		tstamp_result_free(res->tstamp);
		free(res->tstamp);
		res->tstamp = NULL;
	}
	free(res->interim);
	free(res->samples);
	free(res->load);
	res->load = NULL;
	res->samples = NULL;
	res->nsamples = 0;
	res->hist = NULL;
	res->interim = NULL;
	res->ninterim = res->interim_cap = 0;
}

/* The counts that make one side's headline figure for stream i: the
 * receiver's for streams, netperf's for request/response, over the
 * interval the headline divides by (the longest stream's), so the
 * streams' figures add up to the headline however unevenly they ended:
 * a stream whose CPU was busy and that ended late does not look faster
 * or slower than the bytes it moved in the test's time. */
double
result_stream_thruput(const struct result *res, int i)
{
	const struct side_result *l = &res->side[RESULT_LOCAL].stream[i],
				 *r = &res->side[RESULT_REMOTE].stream[i];
	double bytes = 0, secs = 0;

	switch (res->m->flow) {
	case MODULE_TO_SERVER:
		/* --bidir: the second half's receiver is netperf. Each
		 * direction's streams divide by that direction's time, as
		 * the Bidirectional table does, not by the side's, which
		 * holds its senders of the other direction too. */
		if (res->p.bidir) {
			int d = module_stream_reversed(&res->p, i);

			bytes = (double)(d ? l->bytes_recv : r->bytes_recv);
			secs = res->dir[d].elapsed;
			break;
		}
		/* Flows on threads: netserver sends its sums only, so a
		 * flow's figure is what netperf sent of it. */
		if (module_flows(&res->p)) {
			bytes = (double)l->bytes_sent;
			secs = res->side[RESULT_LOCAL].sum.elapsed;
			break;
		}
		bytes = (double)r->bytes_recv;
		secs = res->side[RESULT_REMOTE].sum.elapsed;
		break;
	case MODULE_TO_CLIENT:
		bytes = (double)l->bytes_recv;
		secs = res->side[RESULT_LOCAL].sum.elapsed;
		break;
	case MODULE_BOTH:
		secs = res->side[RESULT_LOCAL].sum.elapsed;
		if (secs <= 0)
			return 0;
		if (res->fmt == 'x')
			return (double)l->trans / secs;
		bytes = (double)l->trans *
			(double)(res->p.req_size + res->p.rsp_size);
		break;
	}
	return secs > 0 ? units_from_bytes(bytes / secs, res->fmt) : 0;
}

void
result_env_self(struct result_env *e, const char *program)
{
	struct utsname u;
	char line[512];
	FILE *f;

	memset(e, 0, sizeof(*e));
	gethostname(e->hostname, sizeof(e->hostname) - 1);
	if (uname(&u) == 0)
		snprintf(e->kernel, sizeof(e->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	e->ncpu = cpu_count();
	snprintf(e->program, sizeof(e->program), "%s %s", program, NP_VERSION);
	f = fopen("/proc/cpuinfo", "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(e->cpu_model, sizeof(e->cpu_model), "%s", colon);
		break;
	}
	fclose(f);
}

double
result_rt_latency(const struct result *res)
{
	int streams = res->nstreams > 0 ? res->nstreams : 1;

	/* Little's law: streams x (1 + burst) transactions are in flight,
	 * so each takes that many times the mean gap between completions. */
	if (!module_is_rr(res->m) || res->trans_rate <= 0)
		return -1;
	return 1e6 * streams * (1 + res->p.burst) / res->trans_rate;
}

#define IMPLAUSIBLE "netserver's results are implausible: "

/* What a figure of netserver's may be, beyond its range on the wire
 * (SIDE_FIELDS' min and max), keyed by SIDE_FIELDS' ids; a field left out
 * is bounded by the wire alone. */
enum plaus_span {
	PLAUS_ANY,
	PLAUS_ELAPSED, /* seconds, above 0, inside the exchange timed here */
	PLAUS_WITHIN,  /* seconds, 0 to the exchange's span */
};

struct plaus {
	enum plaus_span span;
	/* A count of at most RESULT_MAX_PER_SEC a second of the test. */
	int rate;
	/* A count of at most field `le` of the same side (a negative
	 * figure, unknown, is not compared), which le_what names; NULL:
	 * none. */
	enum side_id le;
	const char *le_what;
};

static const struct plaus plaus_table[SIDE_NFIELDS] = {
    [SIDE_elapsed] = {.span = PLAUS_ELAPSED},
    [SIDE_bytes_sent] = {.rate = 1},
    [SIDE_bytes_recv] = {.rate = 1},
    /* Every call counted moved at least one byte. */
    [SIDE_send_calls] = {.rate = 1,
			 .le = SIDE_bytes_sent,
			 .le_what = "bytes sent"},
    [SIDE_recv_calls] = {.rate = 1,
			 .le = SIDE_bytes_recv,
			 .le_what = "bytes received"},
    [SIDE_trans] = {.rate = 1},
    [SIDE_send_errors] = {.rate = 1},
    [SIDE_dups] = {.rate = 1,
		   .le = SIDE_recv_calls,
		   .le_what = "datagrams received"},
    [SIDE_reordered] = {.rate = 1,
			.le = SIDE_recv_calls,
			.le_what = "datagrams received"},
    [SIDE_lost] = {.rate = 1},
    [SIDE_jitter] = {.span = PLAUS_WITHIN},
    [SIDE_syscalls] = {.rate = 1},
    /* A receive that coalesced held two datagrams or more. */
    [SIDE_coalesced] = {.rate = 1,
			.le = SIDE_recv_calls,
			.le_what = "datagrams received"},
    [SIDE_naps] = {.rate = 1},
    [SIDE_nap_drops] = {.rate = 1, .le = SIDE_naps, .le_what = "naps"},
    [SIDE_zc_done] = {.rate = 1},
    [SIDE_zc_copied] = {.rate = 1,
			.le = SIDE_zc_done,
			.le_what = "zerocopy completions"},
    /* Each request netserver counts is a datagram it received. */
    [SIDE_requests] = {.le = SIDE_recv_calls,
		       .le_what = "datagrams received"},
    [SIDE_late] = {.rate = 1},
    [SIDE_timeouts] = {.rate = 1},
    [SIDE_errors] = {.rate = 1},
    [SIDE_ended] = {.rate = 1},
};

/* Seconds field f of r against the span of the exchange timed here. */
static int
check_seconds(const struct side_result *r, const struct side_field *f,
	      enum plaus_span span_rule, const char *pre, double span,
	      char *err)
{
	double v = side_get_dbl(r, f);

	/* !(x > 0) also takes NaN. */
	if (span_rule == PLAUS_ELAPSED && !(v > 0))
		return err_set(err, IMPLAUSIBLE "%s%s is %g s (a test "
				    "takes time)",
			       pre, f->name, v);
	/* The interval lies inside the exchange this side timed, from its
	 * request to its results; the clocks may differ in rate by NTP's
	 * 500 ppm at most. */
	if (span_rule == PLAUS_ELAPSED && v > span * 1.001 + 0.01)
		return err_set(err,
			       IMPLAUSIBLE "%s%s is %g s, longer than the "
					   "%.3f s the whole test took here",
			       pre, f->name, v, span);
	if (span_rule == PLAUS_WITHIN && (!(v >= 0) || v > span))
		return err_set(err,
			       IMPLAUSIBLE "%s%s is %g s, outside 0..%.3f "
					   "s",
			       pre, f->name, v, span);
	return 0;
}

/* Integer field f of r into *v and as text into b; returns -1 for a
 * negative figure (unknown), 0 otherwise. */
static int
count_of(const struct side_result *r, const struct side_field *f,
	 uint64_t *v, char *b, size_t cap)
{
	int64_t i;

	if (f->kind == SIDE_U64 || f->kind == SIDE_U32) {
		*v = side_get_u64(r, f);
		snprintf(b, cap, "%llu", (unsigned long long)*v);
		return 0;
	}
	i = side_get_i64(r, f);
	*v = i < 0 ? 0 : (uint64_t)i;
	snprintf(b, cap, "%lld", (long long)i);
	return i < 0 ? -1 : 0;
}

/* The figures of one side that stand on their own, by plaus_table; pre
 * names the stream ("" for the sums, "streams[2]." for one). */
static int
check_side(const struct side_result *r, const char *pre, double span,
	   char *err)
{
	double cap = span * RESULT_MAX_PER_SEC;
	uint64_t n;
	char v[32];
	size_t i;
	int known;

	for (i = 0; i < SIDE_NFIELDS; i++) {
		const struct plaus *b = &plaus_table[i];
		const struct side_field *f = &side_fields[i];

		if (b->span != PLAUS_ANY &&
		    check_seconds(r, f, b->span, pre, span, err) < 0)
			return -1;
		if (b->span != PLAUS_ANY || f->kind == SIDE_STR)
			continue;
		known = count_of(r, f, &n, v, sizeof(v)) == 0;
		if (b->rate && side_get_dbl(r, f) > cap)
			return err_set(err,
				       IMPLAUSIBLE "%s%s is %s, more than "
						   "10^12 a second over the "
						   "%.3f s of the test",
				       pre, f->name, v, span);
		if (b->le_what != NULL && known &&
		    n > side_get_u64(r, &side_fields[b->le]))
			return err_set(err,
				       IMPLAUSIBLE "%s%s is %s, more than the "
						   "%llu %s",
				       pre, f->name, v,
				       (unsigned long long)side_get_u64(
					   r, &side_fields[b->le]),
				       b->le_what);
	}
	return 0;
}

/* Whether the transport of res delivers every byte it takes, in order
 * (a byte stream), or may lose what it carries (datagrams). */
static int
delivers_all(const struct result *res)
{
	return transport_of(res->m, &res->p)->socktype == SOCK_STREAM;
}

/* What netserver says it moved against what netperf moved: equal where
 * the transport delivers everything, bounded where it may not. */
static int
check_pair(const struct result *res, const struct side_result *l,
	   const struct side_result *r, const char *pre, char *err)
{
	const struct test_module *m = res->m;
	int all = delivers_all(res);

	if (m->flow == MODULE_TO_SERVER && all &&
	    r->bytes_recv != l->bytes_sent)
		return err_set(err,
			       IMPLAUSIBLE "%sbytes_recv is %llu, but netperf "
					   "sent %llu bytes",
			       pre, (unsigned long long)r->bytes_recv,
			       (unsigned long long)l->bytes_sent);
	if (m->flow == MODULE_TO_CLIENT && all &&
	    r->bytes_sent != l->bytes_recv)
		return err_set(err,
			       IMPLAUSIBLE "%sbytes_sent is %llu, but netperf "
					   "received %llu bytes",
			       pre, (unsigned long long)r->bytes_sent,
			       (unsigned long long)l->bytes_recv);
	/* The open loop's late answers (TIMEOUTS) were given too; a stream
	 * that ended on a connection error may have left some unread. */
	if (m->unit == MODULE_TRANS && all &&
	    (l->errors == 0 ? r->trans != l->trans + l->timeouts
			    : r->trans < l->trans ||
				  r->trans > l->trans + l->timeouts + l->lost))
		return err_set(err,
			       IMPLAUSIBLE "%strans is %llu, but netperf "
					   "completed %llu",
			       pre, (unsigned long long)r->trans,
			       (unsigned long long)l->trans);
	/* Datagrams may be lost; a datagram received is one sent, or the
	 * network's copy of one (counted as a duplicate, or as late when it
	 * falls outside the window). */
	if (m->flow == MODULE_TO_SERVER && !all &&
	    r->recv_calls > l->send_calls + r->dups + r->reordered)
		return err_set(err,
			       IMPLAUSIBLE "%srecv_calls is %llu, but netperf "
					   "sent %llu datagrams",
			       pre, (unsigned long long)r->recv_calls,
			       (unsigned long long)l->send_calls);
	/* Every answer netperf counted, netserver gave. */
	if (m->unit == MODULE_TRANS && !all &&
	    r->trans < l->trans)
		return err_set(err,
			       IMPLAUSIBLE "%strans is %llu, but netperf had "
					   "%llu answers",
			       pre, (unsigned long long)r->trans,
			       (unsigned long long)l->trans);
	return 0;
}

static int
check_load(const struct cpu_load *l, const char *what, char *err)
{
	double busy = l->user + l->nice + l->system + l->irq + l->softirq;
	double all = busy + l->iowait + l->idle + l->steal;

	if (!(l->util >= 0 && l->util <= 100.0001))
		return err_set(err,
			       IMPLAUSIBLE "%s.util is %g %%, outside 0..100",
			       what, l->util);
	/* The parts are shares of one total: busy is their sum, and all of
	 * them together are at most the whole. */
	if (fabs(l->util - busy) > 0.01)
		return err_set(err,
			       IMPLAUSIBLE
			       "%s.util is %g %%, but its parts add "
			       "up to %g %%",
			       what, l->util, busy);
	if (all > 100.01)
		return err_set(err,
			       IMPLAUSIBLE
			       "%s: its shares add up to %g %%, more "
			       "than the whole",
			       what, all);
	return 0;
}

static int
check_cpu(const struct cpu_util *u, char *err)
{
	char what[32];
	int i;

	if (check_load(&u->all, "cpu.all", err) < 0)
		return -1;
	for (i = 0; i < u->nslots; i++) {
		/* -1: offline in either snapshot, and nothing else. */
		if (u->per[i].util == -1)
			continue;
		snprintf(what, sizeof(what), "cpu.per[%d]", i);
		if (check_load(&u->per[i], what, err) < 0)
			return -1;
	}
	/* The machine's figure is the mean of the CPUs': none is above the
	 * busiest. */
	if (u->ncpu > 0 && u->all.util > u->peak + 0.01)
		return err_set(err,
			       IMPLAUSIBLE "cpu.peak is %g %%, below the "
					   "machine's mean of %g %%",
			       u->peak, u->all.util);
	return 0;
}

int
result_check_remote(const struct result *res, double span, char *err)
{
	char pre[32];
	int i;

	if (check_side(&res->side[RESULT_REMOTE].sum, "", span, err) < 0 ||
	    check_pair(res, &res->side[RESULT_LOCAL].sum,
		       &res->side[RESULT_REMOTE].sum, "", err) < 0)
		return -1;
	for (i = 0;
	     res->nstreams > 1 && !module_flows(&res->p) && i < res->nstreams;
	     i++) {
		snprintf(pre, sizeof(pre), "streams[%d].", i);
		/* Pairs only for the sums: which of netserver's streams
		 * took which of netperf's connections is its own affair. */
		if (check_side(&res->side[RESULT_REMOTE].stream[i], pre, span,
			       err) < 0)
			return -1;
	}
	if (res->side[RESULT_REMOTE].sum.cpu_measured &&
	    check_cpu(&res->side[RESULT_REMOTE].sum.cpu, err) < 0)
		return -1;
	return 0;
}
