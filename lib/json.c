#include "np/json.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np/err.h"
#include "np/figure.h"
#include "np/proto.h"
#include "np/underload.h"
#include "np/tstamp.h"

/*
 * JSON. Builders record a failed allocation in *bad instead of checking
 * each call, and the document is dropped whole when one failed.
 */

static void
jput(json_t *o, const char *key, json_t *v, int *bad)
{
	if (v == NULL || json_object_set_new(o, key, v) != 0)
		*bad = 1;
}

static void
jpush(json_t *a, json_t *v, int *bad)
{
	if (v == NULL || json_array_append_new(a, v) != 0)
		*bad = 1;
}

static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A figure where -1 means "not measured": null in JSON. */
static json_t *
jopt(double v)
{
	return v < 0 ? json_null() : jnum(v);
}

static json_t *
jint(long long v)
{
	return json_integer((json_int_t)v);
}

static json_t *
juint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX
						    : (json_int_t)v);
}

/* A string; bytes that are not UTF-8 become '?' rather than losing the
 * document. */
static json_t *
jstr(const char *s)
{
	json_t *v = json_string(s);
	char *c;
	size_t i;

	if (v != NULL)
		return v;
	c = strdup(s);
	if (c == NULL)
		return NULL;
	for (i = 0; c[i] != '\0'; i++)
		if ((unsigned char)c[i] >= 0x80)
			c[i] = '?';
	v = json_string(c);
	free(c);
	return v;
}

/* "" for "not set" becomes null. */
static json_t *
jstr_opt(const char *s)
{
	return s[0] != '\0' ? jstr(s) : json_null();
}

/* UTC nanoseconds, null when unknown. */
static json_t *
jns(int64_t ns)
{
	return ns > 0 ? json_integer((json_int_t)ns) : json_null();
}

static json_t *
json_request(const struct result *res, int *bad)
{
	const struct test_params *p = &res->p;
	char fmt[2] = {res->fmt, '\0'};
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "test", jstr(p->test), bad);
	jput(o, "duration_s", jnum(p->duration), bad);
	jput(o, "count", jint(p->count), bad);
	jput(o, "send_size", jint(p->send_size), bad);
	jput(o, "recv_size", jint(p->recv_size), bad);
	jput(o, "remote_send_size", jint(p->rsend_size), bad);
	jput(o, "remote_recv_size", jint(p->rrecv_size), bad);
	jput(o, "request_size", jint(p->req_size), bad);
	jput(o, "response_size", jint(p->rsp_size), bad);
	jput(o, "local_send_buffer", jint(p->lsndbuf), bad);
	jput(o, "local_recv_buffer", jint(p->lrcvbuf), bad);
	jput(o, "remote_send_buffer", jint(p->rsndbuf), bad);
	jput(o, "remote_recv_buffer", jint(p->rrcvbuf), bad);
	jput(o, "nodelay", json_boolean(p->nodelay), bad);
	jput(o, "burst", jint(p->burst), bad);
	jput(o, "local_cpu", json_boolean(res->side[RESULT_LOCAL].cpu_wanted),
	     bad);
	jput(o, "remote_cpu", json_boolean(res->side[RESULT_REMOTE].cpu_wanted),
	     bad);
	jput(o, "data_port", jint(p->data_port), bad);
	jput(o, "rto_s", jnum(p->rto), bad);
	jput(o, "rate_bps", jnum(p->rate), bad);
	jput(o, "streams", jint(p->streams > 0 ? p->streams : 1), bad);
	jput(o, "cpu_bind", jstr(p->cpu_bind), bad);
	jput(o, "wire", json_boolean(p->wire), bad);
	jput(o, "batch", jint(p->batch > 1 ? p->batch : 1), bad);
	jput(o, "udp_gso", json_boolean(p->udp_gso), bad);
	jput(o, "udp_gro", json_boolean(p->udp_gro), bad);
	jput(o, "zerocopy", json_boolean(p->zerocopy), bad);
	jput(o, "busy_poll_us", jint(p->busy_poll), bad);
	jput(o, "format", jstr(fmt), bad);
	return o;
}

static json_t *
json_env(const struct result_env *e, int *bad)
{
	char part[sizeof(e->kernel)];
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "hostname", jstr_opt(e->hostname), bad);
	jput(o, "kernel", jstr_opt(e->kernel), bad);
	figure_kernel_part(e->kernel, 0, part, sizeof(part));
	jput(o, "sysname", jstr_opt(part), bad);
	figure_kernel_part(e->kernel, 1, part, sizeof(part));
	jput(o, "release", jstr_opt(part), bad);
	figure_kernel_part(e->kernel, 2, part, sizeof(part));
	jput(o, "machine", jstr_opt(part), bad);
	jput(o, "cpu_model", jstr_opt(e->cpu_model), bad);
	jput(o, "ncpu", jint(e->ncpu), bad);
	jput(o, "program", jstr_opt(e->program), bad);
	return o;
}

static json_t *
json_place(const struct result_place *pl, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "requested", jstr_opt(pl->requested), bad);
	jput(o, "cpus", jstr_opt(pl->cpus), bad);
	jput(o, "cpu_actual",
	     pl->cpu_actual >= 0 ? jint(pl->cpu_actual) : json_null(), bad);
	jput(o, "numa_node", pl->numa >= 0 ? jint(pl->numa) : json_null(), bad);
	jput(o, "nic_local",
	     pl->nic_local >= 0 ? json_boolean(pl->nic_local) : json_null(),
	     bad);
	jput(o, "note", jstr_opt(pl->note), bad);
	return o;
}

/* One of a side's plain figures, as its row says. */
static json_t *
json_field(const struct side_result *s, const struct side_field *f)
{
	switch (f->kind) {
	case SIDE_U64:
	case SIDE_U32:
		return juint(side_get_u64(s, f));
	case SIDE_DBL:
		return jnum(side_get_dbl(s, f) *
			    (f->jform == SIDE_JMS ? 1e3 : 1));
	case SIDE_STR:
		return jstr(side_get_str(s, f));
	default:
		if (f->jform == SIDE_JNULLNEG && side_get_i64(s, f) < 0)
			return json_null();
		return jint(side_get_i64(s, f));
	}
}

static json_t *
json_counts(const struct side_result *s, int *bad)
{
	const struct side_field *f;
	json_t *o = json_object();
	int i;

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	for (i = 0; i < SIDE_NFIELDS; i++) {
		f = &side_fields[i];
		if (f->json != NULL)
			jput(o, f->json, json_field(s, f), bad);
	}
	return o;
}

/* The shares of one cpu_load, all in percent. */
static void
json_load(json_t *o, const struct cpu_load *l, int *bad)
{
	jput(o, "util", jnum(l->util), bad);
	jput(o, "user", jnum(l->user), bad);
	jput(o, "nice", jnum(l->nice), bad);
	jput(o, "system", jnum(l->system), bad);
	jput(o, "irq", jnum(l->irq), bad);
	jput(o, "softirq", jnum(l->softirq), bad);
	jput(o, "iowait", jnum(l->iowait), bad);
	jput(o, "steal", jnum(l->steal), bad);
	jput(o, "idle", jnum(l->idle), bad);
}

static json_t *
json_cpu(const struct result *res, int loc, int *bad)
{
	const struct cpu_util *u = &figure_counts(res, loc)->cpu;
	json_t *o, *per, *c;
	int i;

	if (!figure_cpu_on(res, loc))
		return json_null();
	o = json_object();
	per = json_array();
	if (o == NULL || per == NULL) {
		json_decref(o);
		json_decref(per);
		*bad = 1;
		return NULL;
	}
	jput(o, "method", jstr("S"), bad);
	json_load(o, &u->all, bad);
	jput(o, "count", jint(figure_cpu_count(res, loc)), bad);
	/* The raw account an exact merge adds up (netperf --merge). */
	jput(o, "ticks",
	     json_pack("{s:I, s:I, s:i}", "busy", (json_int_t)u->busy_ticks,
		       "total", (json_int_t)u->total_ticks, "hz", u->hz),
	     bad);
	jput(o, "peak_util", jopt(figure_cpu_peak(res, loc)), bad);
	jput(o, "peak_id",
	     figure_cpu_peak_id(res, loc) >= 0
		 ? jint(figure_cpu_peak_id(res, loc))
		 : json_null(),
	     bad);
	for (i = 0; u->per != NULL && i < u->nslots; i++) {
		if (u->per[i].util < 0)
			continue; /* offline in one of the samples */
		c = json_object();
		if (c == NULL) {
			*bad = 1;
			break;
		}
		jput(c, "cpu", jint(i), bad);
		json_load(c, &u->per[i], bad);
		jpush(per, c, bad);
	}
	jput(o, "per_cpu", per, bad);
	return o;
}

/* TCP_INFO as the control protocol carries it, or null without. */
static json_t *
json_tcpinfo(const struct tcpinfo *t, int *bad)
{
	json_t *o;

	if (t->n <= 0)
		return json_null();
	o = proto_tcpinfo_pack(t);
	if (o == NULL)
		*bad = 1;
	return o;
}

static json_t *
json_side(const struct result *res, int loc, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "name", jstr_opt(figure_side(res, loc)->name), bad);
	jput(o, "address", jstr_opt(figure_side(res, loc)->addr), bad);
	jput(o, "family", jstr(sock_family_name(res->family)), bad);
	/* A 2.7 netserver gives only the figures of its results message;
	 * what it cannot give is named, never filled in. */
	if (!loc && res->legacy) {
		json_t *na = json_array();

		jput(o, "protocol", jstr("netperf 2.7"), bad);
		jpush(na, jstr("env"), bad);
		jpush(na, jstr("placement"), bad);
		jpush(na, jstr("mss"), bad);
		jpush(na, jstr("tcp_info"), bad);
		jpush(na, jstr("per_cpu"), bad);
		jpush(na, jstr("wire"), bad);
		jpush(na, jstr("platform"), bad);
		jput(o, "unavailable", na, bad);
	}
	jput(o, "env", json_env(&figure_side(res, loc)->env, bad), bad);
	jput(o, "placement", json_place(&figure_side(res, loc)->place, bad),
	     bad);
	jput(o, "platform",
	     proto_platform_pack(&figure_side(res, loc)->platform), bad);
	jput(o, "counts", json_counts(figure_counts(res, loc), bad), bad);
	jput(o, "cpu", json_cpu(res, loc, bad), bad);
	{
		const struct wire_report *w = &figure_side(res, loc)->wire;

		/* The same fields the control protocol carries. */
		jput(o, "wire", w->enabled ? proto_wire_pack(w) : json_null(),
		     bad);
	}
	jput(o, "tcp_info", json_tcpinfo(&figure_counts(res, loc)->tcpi, bad),
	     bad);
	return o;
}

/* --bidir: each direction's figures, or null. */
static json_t *
json_bidir(const struct result *res, int *bad)
{
	static const char *const key[2] = {"local_to_remote",
					   "remote_to_local"};
	int udp = module_has(res->m, MODULE_F_SEQ), d;
	json_t *o, *one;

	if (!res->p.bidir)
		return json_null();
	o = json_object();
	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	for (d = 0; d < 2; d++) {
		const struct result_dir *rd = &res->dir[d];

		one = json_object();
		if (one == NULL) {
			*bad = 1;
			break;
		}
		jput(one, "streams", jint(res->nstreams / 2), bad);
		jput(one, "throughput", jnum(rd->thruput), bad);
		jput(one, "elapsed_s", jnum(rd->elapsed), bad);
		jput(one, "bytes", juint(rd->bytes), bad);
		jput(one, "sent", udp ? juint(rd->sent) : json_null(), bad);
		jput(one, "received", udp ? juint(rd->got) : json_null(), bad);
		jput(one, "lost", udp ? juint(rd->lost) : json_null(), bad);
		jput(one, "loss_percent",
		     udp ? jnum(rd->loss_pct) : json_null(), bad);
		jput(one, "duplicates", udp ? juint(rd->dups) : json_null(),
		     bad);
		jput(one, "out_of_order",
		     udp ? juint(rd->reordered) : json_null(), bad);
		jput(one, "jitter_ms", udp ? jnum(rd->jitter * 1e3) : json_null(),
		     bad);
		jput(o, key[d], one, bad);
	}
	return o;
}

/* --under-load: the probe idle and loaded, and the bulk flows; null
 * without it. */
static json_t *
json_underload(const struct result *res, int *bad)
{
	const struct underload *u = res->load;
	json_t *o;

	if (u == NULL)
		return json_null();
	o = json_object();
	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "up_flows", jint(u->up), bad);
	jput(o, "down_flows", jint(u->down), bad);
	jput(o, "idle_p50_us", jopt(u->idle_p50), bad);
	jput(o, "idle_p99_us", jopt(u->idle_p99), bad);
	jput(o, "loaded_p50_us", jopt(u->loaded_p50), bad);
	jput(o, "loaded_p99_us", jopt(u->loaded_p99), bad);
	jput(o, "p50_ratio", jopt(u->ratio), bad);
	jput(o, "added_delay_ms", jnum(u->added_ms), bad);
	jput(o, "idle_transaction_rate", jnum(u->idle_rate), bad);
	jput(o, "loaded_transaction_rate", jnum(u->loaded_rate), bad);
	jput(o, "idle_rpm", jnum(u->idle_rpm), bad);
	jput(o, "loaded_rpm", jnum(u->loaded_rpm), bad);
	jput(o, "up_throughput_mbps", jnum(u->up_mbps), bad);
	jput(o, "down_throughput_mbps", jnum(u->down_mbps), bad);
	jput(o, "throughput_mbps", jnum(u->total_mbps), bad);
	return o;
}

static json_t *
json_result(const struct result *res, int *bad)
{
	char units[32];
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	snprintf(units, sizeof(units), "%s/s", figure_unit_label(res));
	jput(o, "throughput", jnum(res->thruput), bad);
	jput(o, "throughput_units", jstr(units), bad);
	jput(o, "elapsed_s", jnum(res->elapsed), bad);
	jput(o, "transaction_rate", jnum(res->trans_rate), bad);
	jput(o, "round_trip_latency_us", jopt(result_rt_latency(res)), bad);
	jput(o, "local_send_throughput", jnum(figure_side_thruput(res, 1, 1)),
	     bad);
	jput(o, "local_recv_throughput", jnum(figure_side_thruput(res, 1, 0)),
	     bad);
	jput(o, "remote_send_throughput", jnum(figure_side_thruput(res, 0, 1)),
	     bad);
	jput(o, "remote_recv_throughput", jnum(figure_side_thruput(res, 0, 0)),
	     bad);
	jput(o, "local_service_demand", jopt(res->side[RESULT_LOCAL].sd), bad);
	jput(o, "remote_service_demand", jopt(res->side[RESULT_REMOTE].sd),
	     bad);
	jput(o, "service_demand_units", jstr(figure_sd_units(res)), bad);
	jput(o, "lost", juint(res->lost), bad);
	jput(o, "loss_percent", jnum(res->loss_pct), bad);
	jput(o, "jitter_ms", jnum(res->jitter * 1e3), bad);
	jput(o, "duplicates", juint(res->dups), bad);
	jput(o, "out_of_order", juint(res->reordered), bad);
	jput(o, "stream_count", jint(figure_nstreams(res)), bad);
	jput(o, "bidir", json_bidir(res, bad), bad);
	jput(o, "lost_requests", oneway_json_lost(res, 0), bad);
	jput(o, "lost_responses", oneway_json_lost(res, 1), bad);
	return o;
}

json_t *
json_hist_exact(const struct stats_hist *h)
{
	json_t *o, *b;
	uint64_t lo, hi;
	char sq[STATS_SUMSQ_HEX];
	int i;

	b = json_array();
	if (b == NULL)
		return NULL;
	for (i = 0; i < STATS_NBUCKETS; i++) {
		if (h->bucket[i] == 0 || stats_bucket_bounds(i, &lo, &hi) != 0)
			continue;
		/* [lo, hi) in integer nanoseconds: hi is the next bucket's
		 * lo, except past the top of the scale */
		if (json_array_append_new(
			b, json_pack("[I, I, I]", (json_int_t)lo,
				     (json_int_t)(hi < INT64_MAX ? hi + 1 : hi),
				     (json_int_t)h->bucket[i])) != 0) {
			json_decref(b);
			return NULL;
		}
	}
	stats_sumsq_hex(h->sumsq, sq);
	o = json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:I, s:s, s:o}", "scheme",
		      JSON_HIST_SCHEME, "sub_buckets", STATS_SUB_COUNT, "unit",
		      "ns", "count", (json_int_t)h->count, "min",
		      (json_int_t)(h->count ? h->min : 0), "max",
		      (json_int_t)h->max, "sum", (json_int_t)h->sum, "sumsq",
		      sq, "buckets", b);
	return o;
}

/* The open loop (--rate, --timeout, --reconnect): the offer, what came
 * of it, and the service times from the actual sends; null otherwise. */
static json_t *
json_open_loop(const struct result *res, int *bad)
{
	const struct result_latency *l = &res->svc;
	const struct side_result *s = &res->side[RESULT_LOCAL].sum;
	json_t *o, *svc;

	if (!module_has(res->m, MODULE_F_OPEN) || !module_open_loop(&res->p))
		return json_null();
	o = json_object();
	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "offered_rate",
	     res->p.rate > 0 ? jnum(res->p.rate) : json_null(), bad);
	jput(o, "achieved_rate", jnum(res->trans_rate), bad);
	jput(o, "arrivals",
	     jstr(res->p.rate <= 0 ? "closed"
		  : res->p.arrivals == MODULE_ARRIVALS_FIXED ? "fixed"
							      : "poisson"),
	     bad);
	jput(o, "timeout_ms",
	     res->p.timeout > 0 ? jnum(res->p.timeout * 1e3) : json_null(),
	     bad);
	jput(o, "reconnect", json_boolean(res->p.reconnect), bad);
	jput(o, "send_lag_mean_us",
	     res->p.rate > 0 && s->requests > 0
		 ? jnum((double)s->lag_ns / (double)s->requests / 1e3)
		 : json_null(),
	     bad);
	jput(o, "send_lag_max_us",
	     res->p.rate > 0 ? jnum((double)s->lag_max_ns / 1e3) : json_null(),
	     bad);
	if (l->count == 0) {
		jput(o, "service_latency_us", json_null(), bad);
		return o;
	}
	svc = json_object();
	if (svc == NULL) {
		*bad = 1;
		return o;
	}
	jput(svc, "count", juint(l->count), bad);
	jput(svc, "min", jnum(l->min), bad);
	jput(svc, "max", jnum(l->max), bad);
	jput(svc, "mean", jnum(l->mean), bad);
	jput(svc, "p50", jnum(l->p50), bad);
	jput(svc, "p90", jnum(l->p90), bad);
	jput(svc, "p99", jnum(l->p99), bad);
	jput(svc, "p99.9", jnum(l->p999), bad);
	jput(o, "service_latency_us", svc, bad);
	return o;
}

/* Microseconds from the histogram's nanoseconds. */
static json_t *
json_latency(const struct result *res, int *bad)
{
	const struct result_latency *l = &res->lat;
	json_t *o, *h, *row;
	uint64_t lo, hi;
	int i;

	if (l->count == 0)
		return json_null();
	o = json_object();
	h = json_array();
	if (o == NULL || h == NULL) {
		json_decref(o);
		json_decref(h);
		*bad = 1;
		return NULL;
	}
	jput(o, "count", juint(l->count), bad);
	jput(o, "min", jnum(l->min), bad);
	jput(o, "max", jnum(l->max), bad);
	jput(o, "mean", jnum(l->mean), bad);
	jput(o, "stddev", jnum(l->stddev), bad);
	jput(o, "p50", jnum(l->p50), bad);
	jput(o, "p90", jnum(l->p90), bad);
	jput(o, "p99", jnum(l->p99), bad);
	jput(o, "p99.9", jnum(l->p999), bad);
	jput(o, "p99.99", jnum(l->p9999), bad);
	for (i = 0; res->hist != NULL && i < STATS_NBUCKETS; i++) {
		if (res->hist->bucket[i] == 0 ||
		    stats_bucket_bounds(i, &lo, &hi) != 0)
			continue;
		row = json_array();
		if (row == NULL) {
			*bad = 1;
			break;
		}
		/* [lo, hi) in microseconds: hi is the next bucket's lo */
		jpush(row, jnum((double)lo / 1e3), bad);
		jpush(row, jnum(((double)hi + 1) / 1e3), bad);
		jpush(row, juint(res->hist->bucket[i]), bad);
		jpush(h, row, bad);
	}
	jput(o, "histogram", h, bad);
	if (res->hist != NULL)
		jput(o, "exact", json_hist_exact(res->hist), bad);
	return o;
}

/* A request mix: its seed (a string, for it may not fit a JSON number's
 * signed 64 bits), and each class's weight, sizes, counts, bytes each
 * way and latency, with its exact histogram (the totals' are their
 * sums); null without a mix. */
static json_t *
json_mix(const struct result *res, int *bad)
{
	json_t *o, *a, *c, *l;
	char seed[24];
	int i;

	if (res->p.mix.n == 0 || res->mix == NULL || res->mix_hist == NULL)
		return json_null();
	o = json_object();
	a = json_array();
	if (o == NULL || a == NULL) {
		json_decref(o);
		json_decref(a);
		*bad = 1;
		return NULL;
	}
	snprintf(seed, sizeof(seed), "%llu",
		 (unsigned long long)res->p.mix.seed);
	jput(o, "seed", jstr(seed), bad);
	for (i = 0; i < res->p.mix.n; i++) {
		const struct mix_acct *m = &res->mix[i];
		const struct stats_hist *h = &res->mix_hist[i];

		c = json_object();
		l = json_object();
		if (c == NULL || l == NULL) {
			json_decref(c);
			json_decref(l);
			*bad = 1;
			break;
		}
		jput(c, "class", jint(i), bad);
		jput(c, "weight_pct", jnum(res->p.mix.c[i].weight), bad);
		jput(c, "request_size", jint(res->p.mix.c[i].req), bad);
		jput(c, "response_size", jint(res->p.mix.c[i].rsp), bad);
		jput(c, "requests", juint(m->requests), bad);
		jput(c, "transactions", juint(m->trans), bad);
		jput(c, "bytes_sent", juint(m->bytes_sent), bad);
		jput(c, "bytes_received", juint(m->bytes_recv), bad);
		jput(c, "timeouts", juint(m->timeouts), bad);
		jput(c, "late_answers", juint(m->late), bad);
		jput(c, "trans_rate",
		     jnum(res->elapsed > 0 ? (double)m->trans / res->elapsed
					   : 0),
		     bad);
		jput(l, "count", juint(h->count), bad);
		jput(l, "mean", h->count ? jnum(stats_hist_mean(h) / 1e3)
					 : json_null(),
		     bad);
		jput(l, "p50",
		     h->count ? jnum(stats_hist_percentile(h, 50) / 1e3)
			      : json_null(),
		     bad);
		jput(l, "p99",
		     h->count ? jnum(stats_hist_percentile(h, 99) / 1e3)
			      : json_null(),
		     bad);
		jput(l, "p99.9",
		     h->count ? jnum(stats_hist_percentile(h, 99.9) / 1e3)
			      : json_null(),
		     bad);
		jput(l, "exact", json_hist_exact(h), bad);
		jput(c, "latency_us", l, bad);
		jpush(a, c, bad);
	}
	jput(o, "classes", a, bad);
	return o;
}

static json_t *
json_streams(const struct result *res, int *bad)
{
	json_t *a = json_array(), *s;
	char key[32];
	int i, side;

	if (a == NULL) {
		*bad = 1;
		return NULL;
	}
	if (res->nstreams < 2 || res->side[RESULT_LOCAL].stream == NULL ||
	    res->side[RESULT_REMOTE].stream == NULL)
		return a;
	for (i = 0; i < res->nstreams; i++) {
		s = json_object();
		if (s == NULL) {
			*bad = 1;
			break;
		}
		jput(s, "index", jint(i), bad);
		jput(s, "throughput", jnum(result_stream_thruput(res, i)), bad);
		/* Flows on threads: netserver's per-flow counts stay with
		 * it (its sums came), so a flow has netperf's alone. */
		if (module_flows(&res->p)) {
			jput(s, "local",
			     json_counts(&res->side[RESULT_LOCAL].stream[i],
					 bad),
			     bad);
			jpush(a, s, bad);
			continue;
		}
		/* "local", "remote", then "local_tcp_info", "remote_...". */
		for (side = 0; side < RESULT_NSIDES; side++)
			jput(s, result_side_name(side),
			     json_counts(&res->side[side].stream[i], bad), bad);
		for (side = 0; side < RESULT_NSIDES; side++) {
			snprintf(key, sizeof(key), "%s_tcp_info",
				 result_side_name(side));
			jput(s, key,
			     json_tcpinfo(&res->side[side].stream[i].tcpi, bad),
			     bad);
		}
		jpush(a, s, bad);
	}
	return a;
}

/* What an interval adds to its rate (--json and --json-stream alike):
 * whether it is the tail, its latency percentiles (null without timed
 * round trips), its time-outs, errors, late answers and active streams
 * and, with --streams, each stream's figure. */
static void
json_interval_detail(json_t *o, const struct result_interim *iv, int *bad)
{
	json_t *a;
	int i;

	jput(o, "partial", json_boolean(iv->partial), bad);
	jput(o, "latency_count", juint(iv->lat_count), bad);
	jput(o, "p50_us", iv->lat_count > 0 ? jnum(iv->p50) : json_null(),
	     bad);
	jput(o, "p99_us", iv->lat_count > 0 ? jnum(iv->p99) : json_null(),
	     bad);
	jput(o, "p999_us", iv->lat_count > 0 ? jnum(iv->p999) : json_null(),
	     bad);
	jput(o, "timeouts", juint(iv->timeouts), bad);
	jput(o, "errors", juint(iv->errors), bad);
	jput(o, "late_answers", juint(iv->late), bad);
	jput(o, "flows", jint(iv->flows), bad);
	if (iv->nclasses > 0 && iv->classes != NULL) {
		a = json_array();
		for (i = 0; a != NULL && i < iv->nclasses; i++) {
			const struct result_class_iv *c = &iv->classes[i];
			json_t *co = json_object();

			if (co == NULL) {
				*bad = 1;
				break;
			}
			jput(co, "count", juint(c->count), bad);
			jput(co, "timeouts", juint(c->timeouts), bad);
			jput(co, "late_answers", juint(c->late), bad);
			jput(co, "latency_count", juint(c->lat_count), bad);
			jput(co, "p50_us",
			     c->lat_count > 0 ? jnum(c->p50) : json_null(),
			     bad);
			jput(co, "p99_us",
			     c->lat_count > 0 ? jnum(c->p99) : json_null(),
			     bad);
			jput(co, "p999_us",
			     c->lat_count > 0 ? jnum(c->p999) : json_null(),
			     bad);
			jpush(a, co, bad);
		}
		jput(o, "classes", a, bad);
	}
	jput(o, "lost_requests",
	     iv->lost_split ? json_integer(iv->lost_req) : json_null(), bad);
	jput(o, "lost_responses",
	     iv->lost_split ? json_integer(iv->lost_rsp) : json_null(), bad);
	if (iv->nstreams < 2 || iv->stream == NULL)
		return;
	a = json_array();
	for (i = 0; a != NULL && i < iv->nstreams; i++)
		jpush(a, jnum(iv->stream[i]), bad);
	jput(o, "streams", a, bad);
}

/* Flows on threads: how many on how many threads, the set-up time
 * apart from the measured interval, and the flows' spread. */
static json_t *
json_flows(const struct result *res, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "flows", jint(res->nstreams), bad);
	jput(o, "threads", jint(res->p.threads), bad);
	jput(o, "setup_seconds", jnum(res->setup_sec), bad);
	jput(o, "min", jnum(res->flow_min), bad);
	jput(o, "median", jnum(res->flow_median), bad);
	jput(o, "max", jnum(res->flow_max), bad);
	jput(o, "jain", jnum(res->fairness), bad);
	return o;
}

static json_t *
json_interims(const struct result *res, int *bad)
{
	json_t *a = json_array(), *o;
	int i;

	if (a == NULL) {
		*bad = 1;
		return NULL;
	}
	for (i = 0; res->interim != NULL && i < res->ninterim; i++) {
		o = json_object();
		if (o == NULL) {
			*bad = 1;
			break;
		}
		jput(o, "value", jnum(res->interim[i].value), bad);
		jput(o, "interval", jnum(res->interim[i].interval), bad);
		jput(o, "ending", jnum(res->interim[i].ending), bad);
		jput(o, "since_start", jnum(res->interim[i].since_start), bad);
		jput(o, "count", juint(res->interim[i].count), bad);
		jput(o, "ending_ns", jns(res->interim[i].ending_ns), bad);
		jput(o, "local_tcp_info",
		     json_tcpinfo(&res->interim[i].tcpi, bad), bad);
		jput(o, "remote_tcp_info",
		     json_tcpinfo(&res->interim[i].rtcpi, bad), bad);
		json_interval_detail(o, &res->interim[i], bad);
		jpush(a, o, bad);
	}
	return a;
}

/* Of a side's scheduled start, the ns its thread waited for a CPU after
 * waking (null when not scheduled, or not known). */
static json_t *
cpu_wait(const struct result *res, const struct side_result *s)
{
	return res->p.start_at_ns > 0 && s->wall_start_ns > 0 &&
		       s->start_cpu_wait_ns >= 0
		   ? json_integer((json_int_t)s->start_cpu_wait_ns)
		   : json_null();
}

/* When the measured interval was scheduled to start, and when each side
 * began and ended it, on each host's CLOCK_REALTIME; how long each waited
 * for a CPU at that start. */
static json_t *
json_timing(const struct result *res, int *bad)
{
	json_t *o = json_object();

	if (o == NULL) {
		*bad = 1;
		return NULL;
	}
	jput(o, "start_scheduled_ns", jns(res->p.start_at_ns), bad);
	jput(o, "start_actual_ns",
	     jns(res->side[RESULT_LOCAL].sum.wall_start_ns), bad);
	jput(o, "end_ns", jns(res->side[RESULT_LOCAL].sum.wall_end_ns), bad);
	jput(o, "remote_start_ns",
	     jns(res->side[RESULT_REMOTE].sum.wall_start_ns), bad);
	jput(o, "remote_end_ns", jns(res->side[RESULT_REMOTE].sum.wall_end_ns),
	     bad);
	jput(o, "start_cpu_wait_ns",
	     cpu_wait(res, &res->side[RESULT_LOCAL].sum), bad);
	jput(o, "remote_start_cpu_wait_ns",
	     cpu_wait(res, &res->side[RESULT_REMOTE].sum), bad);
	return o;
}

static json_t *
json_confidence(const struct result *res, int *bad)
{
	const struct result_confidence *c = &res->conf;
	json_t *o = json_object(), *a = json_object();

	if (o == NULL || a == NULL) {
		json_decref(o);
		json_decref(a);
		*bad = 1;
		return NULL;
	}
	jput(o, "iterations", jint(c->iterations), bad);
	jput(o, "level", jint(c->level), bad);
	jput(o, "requested_width", c->width > 0 ? jnum(c->width) : json_null(),
	     bad);
	jput(a, "throughput", jopt(c->thruput), bad);
	jput(a, "local_cpu", jopt(c->local_cpu), bad);
	jput(a, "remote_cpu", jopt(c->remote_cpu), bad);
	jput(o, "achieved", a, bad);
	jput(o, "met", json_boolean(c->met), bad);
	return o;
}

/* Every run's figures (-i): the samples --compare reads. A result that
 * kept none (built by hand) is its own one sample. */
static json_t *
json_iterations(const struct result *res, int *bad)
{
	json_t *a = json_array(), *o;
	struct result_sample one;
	const struct result_sample *s = res->samples;
	int n = res->nsamples;

	if (a == NULL) {
		*bad = 1;
		return NULL;
	}
	if (s == NULL || n < 1) {
		result_sample_of(res, &one);
		s = &one;
		n = 1;
	}
	for (int i = 0; i < n; i++) {
		o = json_object();
		if (o == NULL) {
			*bad = 1;
			break;
		}
		jput(o, "throughput", jnum(s[i].thruput), bad);
		jput(o, "transaction_rate", jnum(s[i].trans_rate), bad);
		jput(o, "elapsed_s", jnum(s[i].elapsed), bad);
		jput(o, "local_cpu_util", jopt(s[i].local_util), bad);
		jput(o, "remote_cpu_util", jopt(s[i].remote_util), bad);
		jput(o, "local_service_demand", jopt(s[i].local_sd), bad);
		jput(o, "remote_service_demand", jopt(s[i].remote_sd), bad);
		jput(o, "p50_latency_us", jopt(s[i].p50), bad);
		jput(o, "p99_latency_us", jopt(s[i].p99), bad);
		jput(o, "p999_latency_us", jopt(s[i].p999), bad);
		jput(o, "loss_percent", jnum(s[i].loss_pct), bad);
		jpush(a, o, bad);
	}
	return a;
}

json_t *
json_doc(const struct result *res)
{
	json_t *root = json_object();
	int bad = 0;

	if (root == NULL)
		return NULL;
	jput(root, "schema", jstr("netperf-result"), &bad);
	jput(root, "schema_version", jint(1), &bad);
	jput(root, "test", jstr(res->m->name), &bad);
	jput(root, "protocol", jstr(figure_protocol(res)), &bad);
	jput(root, "socket_type", jstr(figure_socket_type(res)), &bad);
	jput(root, "direction", jstr(figure_direction(res)), &bad);
	jput(root, "uuid", jstr_opt(res->uuid), &bad);
	jput(root, "command_line", jstr_opt(res->command_line), &bad);
	jput(root, "request", json_request(res, &bad), &bad);
	jput(root, "local", json_side(res, 1, &bad), &bad);
	jput(root, "remote", json_side(res, 0, &bad), &bad);
	jput(root, "result", json_result(res, &bad), &bad);
	jput(root, "latency_us", json_latency(res, &bad), &bad);
	jput(root, "streams", json_streams(res, &bad), &bad);
	jput(root, "fairness", jnum(res->fairness), &bad);
	jput(root, "timing", json_timing(res, &bad), &bad);
	jput(root, "interim", json_interims(res, &bad), &bad);
	jput(root, "confidence", json_confidence(res, &bad), &bad);
	jput(root, "iterations", json_iterations(res, &bad), &bad);
	jput(root, "open_loop", json_open_loop(res, &bad), &bad);
	jput(root, "errors", json_array(), &bad);
	jput(root, "one_way", oneway_json(res), &bad);
	jput(root, "under_load", json_underload(res, &bad), &bad);
	if (res->tstamp != NULL)
		jput(root, "timestamps", tstamp_json(res->tstamp), &bad);
	if (module_flows(&res->p))
		jput(root, "flows", json_flows(res, &bad), &bad);
	if (res->p.mix.n > 0)
		jput(root, "mix", json_mix(res, &bad), &bad);
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int
json_doc_write(FILE *out, json_t *doc, int compact)
{
	int rc = json_dumpf(doc, out,
			    (compact ? JSON_COMPACT : JSON_INDENT(2)) |
				JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));

	if (rc != 0)
		return -1;
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}

int
json_doc_error(FILE *out, const char *test, const char *host, const char *why,
	       int compact)
{
	char self[256] = "";
	json_t *doc;
	int rc;

	gethostname(self, sizeof(self) - 1);
	doc = json_pack("{s:s, s:i, s:s, s:{s:{s:s}}, s:{s:s}, s:[s]}",
			"schema", "netperf-result", "schema_version", 1, "test",
			test, "local", "env", "hostname", self, "remote",
			"name", host, "errors", why);
	if (doc == NULL)
		return -1;
	rc = json_doc_write(out, doc, compact);
	json_decref(doc);
	return rc;
}

int
json_doc_print(FILE *out, const struct result *res, int compact)
{
	json_t *root = json_doc(res);
	int rc;

	if (root == NULL)
		return -1;
	rc = json_doc_write(out, root, compact);
	json_decref(root);
	return rc;
}

/* The index of iv in the result's interim list, or the next index when it
 * is not (yet) in it. */
static int
interim_index(const struct result *res, const struct result_interim *iv)
{
	uintptr_t a = (uintptr_t)res->interim, p = (uintptr_t)iv;

	if (res->interim != NULL && p >= a &&
	    p < a + (uintptr_t)res->ninterim * sizeof(*iv))
		return (int)((p - a) / sizeof(*iv));
	return res->ninterim;
}

void
json_doc_interim(FILE *out, const struct result *res,
		 const struct result_interim *iv)
{
	json_t *o = json_object();
	char units[32];
	int bad = 0;

	if (o == NULL)
		return;
	snprintf(units, sizeof(units), "%s/s", figure_unit_label(res));
	jput(o, "type", jstr("interim"), &bad);
	jput(o, "n", jint(interim_index(res, iv)), &bad);
	jput(o, "value", jnum(iv->value), &bad);
	jput(o, "units", jstr(units), &bad);
	jput(o, "interval", jnum(iv->interval), &bad);
	jput(o, "ending", jnum(iv->ending), &bad);
	jput(o, "since_start", jnum(iv->since_start), &bad);
	jput(o, "local_tcp_info", json_tcpinfo(&iv->tcpi, &bad), &bad);
	jput(o, "remote_tcp_info", json_tcpinfo(&iv->rtcpi, &bad), &bad);
	jput(o, "count", juint(iv->count), &bad);
	jput(o, "ending_ns", jns(iv->ending_ns), &bad);
	json_interval_detail(o, iv, &bad);
	if (!bad && json_dumpf(o, out,
			       JSON_COMPACT | JSON_PRESERVE_ORDER |
				   JSON_REAL_PRECISION(15)) == 0) {
		fputc('\n', out);
		fflush(out);
	}
	json_decref(o);
}
