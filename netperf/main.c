/* netperf: options in, one test against a netserver, results out. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np/auth.h"
#include "np/cli.h"
#include "np/merge.h"
#include "np/clock.h"
#include "np/compare.h"
#include "np/complete.h"
#include "np/escape.h"
#include "np/select.h"
#include "np/json.h"
#include "np/proto.h"
#include "np/sock.h"
#include "np/topo.h"
#include "np/tstamp.h"
#include "np/client.h"
#include "np/report.h"
#include "np/result.h"
#include "np/rr_open.h"
#include "np/runplot.h"
#include "np/stats.h"
#include "np/search.h"
#include "np/sweep.h"
#include "np/iface.h"
#include "np/underload.h"

static volatile sig_atomic_t stop_requested;

static void
on_sigint(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* -d: both sides' raw counts, so a surprising figure can be traced. */
static void
debug_side(const char *who, const struct side_result *s)
{
	char text[ESCAPE_LEN];
	int i;

	fprintf(stderr, "netperf: debug: %s:", who);
	for (i = 0; i < SIDE_NFIELDS; i++) {
		const struct side_field *f = &side_fields[i];

		switch (f->kind) {
		case SIDE_U64:
		case SIDE_U32:
			fprintf(stderr, " %s %llu", f->wire,
				(unsigned long long)side_get_u64(s, f));
			break;
		case SIDE_DBL:
			fprintf(stderr, " %s %.6f", f->wire,
				side_get_dbl(s, f));
			break;
		case SIDE_STR:
			/* netserver's text, never printed raw */
			fprintf(
			    stderr, " %s \"%s\"", f->wire,
			    escape_str(text, sizeof(text), side_get_str(s, f)));
			break;
		default:
			fprintf(stderr, " %s %lld", f->wire,
				(long long)side_get_i64(s, f));
			break;
		}
	}
	fputc('\n', stderr);
	if (s->cpu_measured)
		fprintf(stderr,
			"netperf: debug: %s: cpu %.2f %% (user %.2f, system "
			"%.2f, irq %.2f, softirq %.2f, steal %.2f) over %d "
			"CPUs, busiest cpu%d at %.2f %%\n",
			who, s->cpu.all.util, s->cpu.all.user,
			s->cpu.all.system, s->cpu.all.irq, s->cpu.all.softirq,
			s->cpu.all.steal, s->cpu.ncpu, s->cpu.peak_id,
			s->cpu.peak);
}

static void
debug_sides(const struct result *res)
{
	int i;

	for (i = 0; i < RESULT_NSIDES; i++)
		debug_side(result_side_name(i), &res->side[i].sum);
}

/* What the interim callback needs to print and keep a sample. */
struct interim_ctx {
	const struct netperf_opts *o;
	struct result *res;
};

/* count over secs in the result's units. */
static double
interim_value(const struct result *res, double count, double secs)
{
	double per_sec = secs > 0 ? count / secs : 0;

	if (module_is_rr(res->m))
		return res->fmt == 'x'
			   ? per_sec
			   : units_from_bytes(per_sec *
						  (double)(res->p.req_size +
							   res->p.rsp_size),
					      res->fmt);
	return units_from_bytes(per_sec, res->fmt);
}

/* A request mix's classes over the interval: each one's transactions,
 * time-outs, late answers and latency. Returns 0, or -1 without memory. */
static int
interim_classes(struct result_interim *iv, const struct module_interval *ivl)
{
	iv->classes = calloc((size_t)ivl->nclasses, sizeof(*iv->classes));
	if (iv->classes == NULL)
		return -1;
	iv->nclasses = ivl->nclasses;
	for (int k = 0; k < ivl->nclasses; k++) {
		struct result_class_iv *c = &iv->classes[k];
		const struct stats_hist *h = &ivl->class_hist[k];

		c->count = ivl->class_count[k];
		c->timeouts = ivl->class_timeouts[k];
		c->late = ivl->class_late[k];
		c->lat_count = h->count;
		c->p50 = c->p99 = c->p999 = -1;
		if (h->count == 0)
			continue;
		c->p50 = stats_hist_percentile(h, 50) / 1e3;
		c->p99 = stats_hist_percentile(h, 99) / 1e3;
		c->p999 = stats_hist_percentile(h, 99.9) / 1e3;
	}
	return 0;
}

/* What the runner knew of the interval beyond its sum: latency
 * percentiles, each stream's figure, time-outs, errors, late answers and
 * active streams. Returns 0, or -1 without memory. */
static int
interim_detail(const struct result *res, struct result_interim *iv,
	       const struct module_interval *ivl)
{
	iv->p50 = iv->p99 = iv->p999 = -1;
	iv->lat_count = 0;
	iv->partial = ivl != NULL && ivl->partial;
	iv->nstreams = 0;
	iv->stream = NULL;
	iv->nclasses = 0;
	iv->classes = NULL;
	iv->timeouts = iv->errors = iv->late = 0;
	iv->flows = res->p.streams > 0 ? res->p.streams : 1;
	iv->lost_split = 0;
	iv->lost_req = iv->lost_rsp = 0;
	if (ivl == NULL)
		return 0;
	iv->timeouts = ivl->timeouts;
	iv->errors = ivl->errors;
	iv->late = ivl->late;
	iv->flows = ivl->flows;
	iv->lost_split = ivl->lost_split;
	iv->lost_req = ivl->lost_req;
	iv->lost_rsp = ivl->lost_rsp;
	/* A stream test's histogram times its calls, not round trips:
	 * the interval's latency is an RR test's. */
	if (module_is_rr(res->m) && ivl->hist != NULL &&
	    ivl->hist->count > 0) {
		iv->lat_count = ivl->hist->count;
		iv->p50 = stats_hist_percentile(ivl->hist, 50) / 1e3;
		iv->p99 = stats_hist_percentile(ivl->hist, 99) / 1e3;
		iv->p999 = stats_hist_percentile(ivl->hist, 99.9) / 1e3;
	}
	if (ivl->nclasses > 0 && interim_classes(iv, ivl) < 0)
		return -1;
	if (ivl->n > 1 && ivl->stream != NULL) {
		iv->stream = calloc((size_t)ivl->n, sizeof(*iv->stream));
		if (iv->stream == NULL) {
			free(iv->classes);
			return -1;
		}
		iv->nstreams = ivl->n;
		for (int i = 0; i < ivl->n; i++)
			iv->stream[i] = interim_value(
			    res, (double)ivl->stream[i], iv->interval);
	}
	return 0;
}

/* One interval n of res, printed as the options ask. */
static void
interim_print(const struct interim_ctx *ic, const struct result *res,
	      const struct result_interim *iv, int n)
{
	if (ic->o->json_stream)
		json_doc_interim(stdout, res, iv);
	else if (!ic->o->json && ic->o->interval_lines &&
		 ic->o->output_mode == 'k')
		runplot_keyval(stdout, res, iv, n);
	else if (!ic->o->json && ic->o->interval_lines)
		runplot_line(stdout, res, iv, n);
	else if (!ic->o->json && !iv->partial) {
		/* netperf 2.7's lines stay as they are, for the scripts
		 * that read every line with "Interim" in it (2.7's
		 * bloat.sh): each a whole interval, as 2.7's, so the tail
		 * is in the JSON and --interval-lines only. */
		select_interim(stdout, res, iv, n,
			       ic->o->output_mode == 'o'   ? 'o'
			       : ic->o->output_mode == 'k' ? 'k'
							   : 'l');
		/* --interim-tcp, which 2.7 lacks, adds the kernel's view
		 * below each. */
		if (ic->o->interim_tcp && ic->o->output_mode != 'o' &&
		    ic->o->output_mode != 'k')
			select_interim_tcp(stdout, iv);
	}
}

static void
on_interim(void *arg, double count, double secs, double since_start,
	   const struct tcpinfo *tcpi, const struct tcpinfo *remote,
	   const struct module_interval *ivl)
{
	struct interim_ctx *ic = arg;
	struct result *res = ic->res;
	struct result_interim iv, *grown;

	iv.value = interim_value(res, count, secs);
	iv.interval = secs;
	iv.count = count > 0 ? (uint64_t)count : 0;
	iv.ending_ns = clock_real_ns();
	iv.ending = (double)iv.ending_ns / 1e9;
	iv.since_start = since_start;
	if (tcpi != NULL)
		iv.tcpi = *tcpi;
	else
		tcpinfo_clear(&iv.tcpi);
	if (remote != NULL)
		iv.rtcpi = *remote;
	else
		tcpinfo_clear(&iv.rtcpi);
	if (res->ninterim == res->interim_cap) {
		int cap = res->interim_cap ? 2 * res->interim_cap : 64;

		grown = realloc(res->interim, (size_t)cap * sizeof(*grown));
		if (grown == NULL)
			return;
		res->interim = grown;
		res->interim_cap = cap;
	}
	if (interim_detail(res, &iv, ivl) < 0)
		return;
	res->interim[res->ninterim] = iv;
	/* The tail's lost requests are known once netserver's count has
	 * come with the results: it is printed then (interim_tail). */
	if (!(iv.partial && iv.lost_split))
		interim_print(ic, res, &res->interim[res->ninterim],
			      res->ninterim);
	res->ninterim++;
	fflush(stdout);
}

/* The tail of a run whose intervals split their losses, once the
 * totals are in: its share set and printed as the others were. */
static void
interim_tail(struct interim_ctx *ic, struct result *res)
{
	if (oneway_lost_tail(res) == 0)
		interim_print(ic, res, &res->interim[res->ninterim - 1],
			      res->ninterim - 1);
	fflush(stdout);
}

/* A fresh result for one run, from the options. */
static int
result_init(struct result *res, const struct netperf_opts *o,
	    const struct client *c, int argc, char **argv)
{
	unsigned char id[16];
	size_t len = 0;
	int i;

	memset(res, 0, sizeof(*res));
	res->m = module_find(o->test);
	cli_netperf_request(o, &res->p);
	res->side[RESULT_LOCAL].cpu_wanted = o->local_cpu;
	res->side[RESULT_REMOTE].cpu_wanted = o->remote_cpu;
	res->fmt = o->fmt;
	for (i = 0; i < RESULT_NSIDES; i++) {
		res->side[i].place.cpu_actual = -1;
		res->side[i].place.numa = -1;
		res->side[i].place.nic_local = -1;
		platform_init(&res->side[i].platform);
	}
	result_env_self(&res->side[RESULT_LOCAL].env, "netperf");
	res->side[RESULT_REMOTE].env = c->remote_env;
	client_describe(c, o, res);
	/* Latency is always kept: it costs one clock read per operation. */
	res->hist = malloc(sizeof(*res->hist));
	if (res->hist == NULL)
		return -1;
	stats_hist_init(res->hist);
	if (o->one_way) {
		res->oneway = malloc(sizeof(*res->oneway));
		if (res->oneway == NULL)
			return -1;
		oneway_init(res->oneway);
	}
	/* The open loop's service times, beside latency from the intended
	 * send time. */
	if (res->m != NULL && module_has(res->m, MODULE_F_OPEN) &&
	    module_open_loop(&res->p)) {
		res->svc_hist = malloc(sizeof(*res->svc_hist));
		if (res->svc_hist == NULL)
			return -1;
		stats_hist_init(res->svc_hist);
	}
	if (res->p.mix.n > 0) {
		res->mix = malloc((size_t)res->p.mix.n * sizeof(*res->mix));
		res->mix_hist = mix_hist_new(res->p.mix.n);
		if (res->mix == NULL || res->mix_hist == NULL)
			return -1;
		mix_acct_init(res->mix, res->p.mix.n);
	}
	if (o->timestamps) {
		res->tstamp = calloc(1, sizeof(*res->tstamp));
		if (res->tstamp == NULL)
			return -1;
	}
	for (i = 0; i < argc && len + 1 < sizeof(res->command_line); i++)
		len += (size_t)snprintf(res->command_line + len,
					sizeof(res->command_line) - len, "%s%s",
					i ? " " : "", argv[i]);
	snprintf(res->brand, sizeof(res->brand), "%s", o->brand);
	if (o->uuid[0] != '\0')
		/* -u: the caller's own, as 2.7 takes it. */
		snprintf(res->uuid, sizeof(res->uuid), "%s", o->uuid);
	else if (auth_random(id, sizeof(id), NULL) == 0) {
		/* A version 4 UUID, as netperf's UUID selector gives. */
		id[6] = (unsigned char)((id[6] & 0x0f) | 0x40);
		id[8] = (unsigned char)((id[8] & 0x3f) | 0x80);
		snprintf(res->uuid, sizeof(res->uuid),
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
			 "%02x%02x%02x%02x%02x%02x",
			 id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
			 id[8], id[9], id[10], id[11], id[12], id[13], id[14],
			 id[15]);
	}
	return 0;
}

/* The full width of the confidence interval of x[0..n-1], in percent of
 * the mean; -1 when the figure was not measured. */
static double
width_of(const double *x, int n, int level)
{
	struct stats_ci ci;

	if (x[0] < 0)
		return -1;
	if (stats_ci_compute(x, n, level / 100.0, &ci) < 0)
		return 0;
	return ci.width_pct;
}

static double
mean_of(const double *x, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += x[i];
	return n > 0 ? s / n : 0;
}

/* netperf's warning when the interval was not reached, before results. */
static void
confidence_warning(FILE *out, const struct result_confidence *cf)
{
	fprintf(out,
		"!!! WARNING\n"
		"!!! Desired confidence was not achieved within the specified "
		"iterations.\n"
		"!!! This implies that there was variability in the test "
		"environment that\n"
		"!!! must be investigated before going further.\n"
		"!!! Confidence intervals: Throughput      : %6.3f%%\n"
		"!!!                       Local CPU util  : %6.3f%%\n"
		"!!!                       Remote CPU util : %6.3f%%\n\n",
		cf->thruput, cf->local_cpu > 0 ? cf->local_cpu : 0,
		cf->remote_cpu > 0 ? cf->remote_cpu : 0);
}

/* DUMP_TCP_INFO in the environment: each data connection's TCP_INFO on
 * stderr at the end of a run, in netperf 2.7's lines, which some
 * wrappers read. */
static void
dump_tcp_info(const struct result *res)
{
	char text[512];
	int i;

	if (getenv("DUMP_TCP_INFO") == NULL ||
	    res->side[RESULT_LOCAL].stream == NULL)
		return;
	for (i = 0; i < res->nstreams; i++) {
		if (res->side[RESULT_LOCAL].stream[i].tcpi.n <= 0)
			continue;
		tcpinfo_format_dump(&res->side[RESULT_LOCAL].stream[i].tcpi,
				    text, sizeof(text));
		fputs(text, stderr);
	}
	fflush(stderr);
}

/*
 * --under-load: the probe again, in the same control session, now as
 * stream 0 of one request whose other streams are the bulk flows; res,
 * the probe's idle run (computed), gets the figures of both.
 */
static int
under_load(struct client *c, const struct netperf_opts *o, struct result *res,
	   int argc, char **argv, char *err)
{
	struct result loaded;
	int rc = -1;

	if (c->legacy)
		return err_set(err, "--under-load needs our netserver; this "
				    "one speaks netperf 2.7's protocol");
	res->load = calloc(1, sizeof(*res->load));
	if (res->load == NULL || result_init(&loaded, o, c, argc, argv) < 0) {
		memset(&loaded, 0, sizeof(loaded));
		err_set(err, "out of memory");
		goto out;
	}
	loaded.p.load_up = o->load_up;
	loaded.p.load_down = o->load_down;
	loaded.p.streams = 1 + o->load_up + o->load_down;
	/* A thread a stream: each stream's role picks its loop, which flows
	 * on fewer threads (flows.c) do not. */
	loaded.p.threads = 0;
	/* A UDP probe waits for its answers through the loaded queue: its
	 * adaptive time-out (-e 0), which learns from the idle round trips,
	 * would give up on the slowest and leave them out of the latency,
	 * the figure this phase is for. Without -e, 2 s. */
	if (loaded.p.rto == 0 && loaded.m->socktype == SOCK_DGRAM)
		loaded.p.rto = 2.0;
	if (client_test(c, o, &loaded, &stop_requested, err) < 0)
		goto out;
	result_compute(&loaded);
	underload_compute(res, &loaded, res->load);
	rc = 0;
out:
	result_free(&loaded);
	return rc;
}

/* Runs the test once, or until the confidence interval is narrow enough;
 * leaves in *res the last run with its headline figures replaced by the
 * means over all runs, as netperf prints them. */
static int
run_iterations(struct client *c, const struct netperf_opts *o,
	       struct result *res, struct interim_ctx *ic, int argc,
	       char **argv, char *err)
{
	double tput[30], cpu[RESULT_NSIDES][30], sd[RESULT_NSIDES][30], el[30];
	struct result_sample *samples;
	struct result_confidence cf;
	struct stats_hist *all;
	int n = 0, side;

	samples = calloc(30, sizeof(*samples));
	all = malloc(sizeof(*all));
	if (samples == NULL || all == NULL) {
		free(samples);
		free(all);
		return err_set(err, "out of memory");
	}
	stats_hist_init(all);

	memset(&cf, 0, sizeof(cf));
	cf.level = o->conf_level;
	cf.width = o->conf_width;
	for (;;) {
		result_free(res);
		if (result_init(res, o, c, argc, argv) < 0) {
			free(samples);
			return err_set(err, "out of memory");
		}
		ic->res = res;
		if (client_test(c, o, res, &stop_requested, err) < 0) {
			free(samples);
			free(all);
			return -1;
		}
		dump_tcp_info(res);
		result_compute(res);
		interim_tail(ic, res);
		if (o->load_up + o->load_down > 0 &&
		    under_load(c, o, res, argc, argv, err) < 0) {
			free(samples);
			free(all);
			return -1;
		}
		result_sample_of(res, &samples[n]);
		if (res->hist != NULL)
			stats_hist_merge(all, res->hist);
		tput[n] = res->thruput;
		for (side = 0; side < RESULT_NSIDES; side++) {
			cpu[side][n] = res->side[side].util;
			sd[side][n] = res->side[side].sd;
		}
		el[n] = res->elapsed;
		n++;
		cf.iterations = n;
		if (n >= 2) {
			cf.thruput = width_of(tput, n, cf.level);
			cf.local_cpu =
			    o->conf_result_only
				? -1
				: width_of(cpu[RESULT_LOCAL], n, cf.level);
			cf.remote_cpu =
			    o->conf_result_only
				? -1
				: width_of(cpu[RESULT_REMOTE], n, cf.level);
			cf.met = cf.thruput <= cf.width &&
				 cf.local_cpu <= cf.width &&
				 cf.remote_cpu <= cf.width;
		}
		if (n >= o->iter_max || stop_requested ||
		    (n >= o->iter_min && cf.met))
			break;
	}
	if (n > 1) {
		/* As 2.7's one histogram kept over the runs: the latency
		 * figures and the histogram cover them all (each run's own
		 * are in samples). */
		if (res->hist != NULL) {
			*res->hist = *all;
			result_compute(res);
		}
		res->thruput = mean_of(tput, n);
		res->elapsed = mean_of(el, n);
		for (side = 0; side < RESULT_NSIDES; side++) {
			if (cpu[side][0] < 0)
				continue;
			res->side[side].util = mean_of(cpu[side], n);
			res->side[side].sd = mean_of(sd[side], n);
		}
		if (module_is_rr(res->m) && res->fmt == 'x')
			res->trans_rate = res->thruput;
	} else {
		cf.thruput = cf.local_cpu = cf.remote_cpu = -1;
		cf.met = 1;
	}
	res->conf = cf;
	/* Each run's own figures, beside the means above. */
	res->samples = samples;
	res->nsamples = n;
	free(all);
	return 0;
}

/* Connects and prepares placement; returns 0, or -1 with err set. */
static int
setup_client(struct client *c, const struct netperf_opts *o, struct topo *topo,
	     int *have_topo, char *err)
{
	if (client_open(c, o, err) < 0)
		return -1;
	if (c->detected && !o->legacy)
		fprintf(stderr, "netperf: netserver is netperf 2.7's; "
				"speaking netperf 2.7's protocol\n");
	/* --streams N (and --bidir's two or more): the topology places one
	 * stream a CPU, -T or not, as netserver does its own. */
	if (o->lcpu[0] == '\0' && (o->streams > 1 || o->bidir)) {
		if (!*have_topo) {
			if (topo_load(topo, NULL, NULL, err) < 0) {
				client_close(c);
				return -1;
			}
			*have_topo = 1;
		}
		c->topo = topo;
	}
	if (o->lcpu[0] != '\0') {
		if (!*have_topo) {
			if (topo_load(topo, NULL, NULL, err) < 0) {
				client_close(c);
				return -1;
			}
			*have_topo = 1;
		}
		snprintf(c->cpu_bind, sizeof(c->cpu_bind), "%s", o->lcpu);
		c->topo = topo;
		/* A CPU this host does not have is an error now, before the
		 * banner, not after it. */
		{
			struct topo_place p;

			memset(&p, 0, sizeof(p));
			if (topo_resolve(topo, o->lcpu, "", &p, err) < 0) {
				client_close(c);
				return -1;
			}
			topo_place_free(&p);
		}
		sock_ifname_of((struct sockaddr *)&c->self, c->ifname, err);
	}
	return 0;
}

/* --ifstat's titles, for the table and CSV forms. */
static void
ifstat_header(const struct netperf_opts *o, double interval)
{
	if (o->output_mode == 'o' && o->headers)
		printf("time,interface,interval,tx_packets_per_sec,"
		       "rx_packets_per_sec,tx_kB_per_sec,rx_kB_per_sec,"
		       "tx_dropped,rx_dropped,tx_errors,rx_errors\n");
	else if (o->output_mode == 0 && !o->json && !o->json_stream &&
		 o->headers)
		printf("Interface %s every %.3f s\n"
		       "    Time   TX pkt/s   RX pkt/s    TX kB/s    RX kB/s "
		       " TX drop  RX drop\n",
		       o->ifstat, interval);
	fflush(stdout);
}

/* One --ifstat interval of secs, since seconds after the start: the
 * counts in d as rates, in JSON, CSV or a table row. */
static void
ifstat_row(const struct netperf_opts *o, const struct iface_stat *d,
	   double secs, double since)
{
	double tx_pps = (double)d->tx_packets / secs;
	double rx_pps = (double)d->rx_packets / secs;
	double tx_kbps = (double)d->tx_bytes / secs / 1e3;
	double rx_kbps = (double)d->rx_bytes / secs / 1e3;

	if (o->json || o->json_stream)
		printf("{\"type\":\"ifstat\",\"interface\":\"%s\","
		       "\"time\":%.3f,\"since_start\":%.3f,"
		       "\"interval\":%.3f,\"tx_pps\":%.1f,"
		       "\"rx_pps\":%.1f,\"tx_kBps\":%.3f,"
		       "\"rx_kBps\":%.3f,\"tx_dropped\":%llu,"
		       "\"rx_dropped\":%llu,\"tx_errors\":%llu,"
		       "\"rx_errors\":%llu}\n",
		       o->ifstat, clock_wall(), since, secs, tx_pps, rx_pps,
		       tx_kbps, rx_kbps, (unsigned long long)d->tx_dropped,
		       (unsigned long long)d->rx_dropped,
		       (unsigned long long)d->tx_errors,
		       (unsigned long long)d->rx_errors);
	else if (o->output_mode == 'o')
		printf("%.3f,%s,%.3f,%.1f,%.1f,%.3f,%.3f,%llu,%llu,"
		       "%llu,%llu\n",
		       clock_wall(), o->ifstat, secs, tx_pps, rx_pps, tx_kbps,
		       rx_kbps, (unsigned long long)d->tx_dropped,
		       (unsigned long long)d->rx_dropped,
		       (unsigned long long)d->tx_errors,
		       (unsigned long long)d->rx_errors);
	else
		printf("%8.3f %10.0f %10.0f %10.1f %10.1f %8llu %8llu\n", since,
		       tx_pps, rx_pps, tx_kbps, rx_kbps,
		       (unsigned long long)d->tx_dropped,
		       (unsigned long long)d->rx_dropped);
	fflush(stdout);
}

/* --ifstat IF: an interface's packet and byte rates every interval, on
 * exact boundaries, until -l seconds have passed or Ctrl-C. */
static int
ifstat_monitor(const struct netperf_opts *o)
{
	double interval = o->interim > 0 ? o->interim : 1.0;
	struct iface_stat prev, now, d;
	uint64_t start, boundary, t_prev, t;
	struct timespec ts;
	char err[ERR_LEN];
	int k;

	if (o->count > 0) {
		fprintf(stderr, "netperf: --ifstat runs for -l seconds, not a "
				"count\n");
		return 2;
	}
	if (iface_stat_read(o->ifstat, &prev, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		return EXIT_FAILURE;
	}
	start = t_prev = clock_ns();
	ifstat_header(o, interval);
	for (k = 1; !stop_requested; k++) {
		boundary = start + (uint64_t)(k * interval * 1e9);
		if (boundary > start + (uint64_t)(o->duration * 1e9) + 1000)
			break;
		ts.tv_sec = (time_t)(boundary / NS_PER_SEC);
		ts.tv_nsec = (long)(boundary % NS_PER_SEC);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR &&
		       !stop_requested)
			;
		if (stop_requested)
			break;
		/* Woken late (a loaded machine): a boundary already past
		 * would make a sliver of an interval; take the next one. */
		if (clock_ns() > boundary + (uint64_t)(interval * 1e9) / 2)
			continue;
		if (iface_stat_read(o->ifstat, &now, err) < 0) {
			fprintf(stderr, "netperf: %s\n", err);
			return EXIT_FAILURE;
		}
		t = clock_ns();
		iface_stat_delta(&prev, &now, &d);
		ifstat_row(o, &d, (double)(t - t_prev) / 1e9,
			   (double)(t - start) / 1e9);
		prev = now;
		t_prev = t;
	}
	return EXIT_SUCCESS;
}

/* Runs each point of the sweep over one control connection (a new one
 * after a point that failed); returns how many points ran. */
static int
sweep_run(const struct netperf_opts *o, const struct sweep *sw,
	  struct sweep_point *pts, struct topo *topo, int *have_topo, int argc,
	  char **argv)
{
	struct interim_ctx ic;
	struct client c;
	int i, connected = 0, ok = 0;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < sw->n; i++) {
		struct netperf_opts oi = *o;

		if (stop_requested) {
			snprintf(pts[i].err, sizeof(pts[i].err),
				 "not run: interrupted");
			continue;
		}

		sweep_apply(sw, i, &oi);
		if (!connected) {
			if (setup_client(&c, &oi, topo, have_topo, pts[i].err) <
			    0)
				continue;
			connected = 1;
		}
		ic.o = &oi;
		ic.res = &pts[i].res;
		if (oi.interim > 0) {
			c.interim_sec = oi.interim;
			c.on_interim = on_interim;
			c.arg = &ic;
		}
		if (run_iterations(&c, &oi, &pts[i].res, &ic, argc, argv,
				   pts[i].err) < 0) {
			/* netserver ends a session after a failed test:
			 * the next point starts a new one. */
			client_close(&c);
			connected = 0;
			continue;
		}
		pts[i].ok = 1;
		ok++;
	}
	if (connected)
		client_close(&c);
	return ok;
}

/* The sweep as one table, CSV or JSON document; returns an exit status. */
static int
sweep_print(const struct netperf_opts *o, const struct sweep *sw,
	    struct sweep_point *pts)
{
	int i, rc = EXIT_SUCCESS;

	if (o->json || o->json_stream) {
		json_t *doc =
		    json_pack("{s:s, s:i, s:s, s:s, s:[]}", "schema",
			      "netperf-sweep", "schema_version", 1, "test",
			      o->test, "parameter", sw->param, "points");
		json_t *points = json_object_get(doc, "points");

		for (i = 0; i < sw->n; i++) {
			json_t *pt = json_pack(
			    "{s:s, s:I, s:b}", "label", sw->label[i], "value",
			    (json_int_t)sw->value[i], "ok", pts[i].ok);

			if (pts[i].ok)
				json_object_set_new(pt, "result",
						    json_doc(&pts[i].res));
			else
				json_object_set_new(pt, "error",
						    json_string(pts[i].err));
			json_array_append_new(points, pt);
		}
		if (json_doc_write(stdout, doc, o->json_stream) < 0)
			rc = EXIT_FAILURE;
		json_decref(doc);
	} else if (o->output_mode == 'o') {
		sweep_csv(stdout, sw, pts, o->headers);
	} else {
		if (o->headers)
			printf("%s sweep of %s to %s\n\n", o->test, sw->param,
			       o->host);
		sweep_table(stdout, sw, pts, o->headers);
	}
	fflush(stdout);
	return rc;
}

/* --sweep: one run per value, then one table, CSV or JSON document. */
static int
run_sweep(const struct netperf_opts *o, int argc, char **argv)
{
	struct sweep_point *pts;
	struct sweep sw;
	struct topo topo;
	char err[ERR_LEN];
	int i, have_topo = 0, rc, ok;

	if (sweep_parse(o->sweep, &sw, err) < 0 ||
	    sweep_check(&sw, o->test, err) < 0 ||
	    (o->plot[0] != '\0' && sweep_plot_check(o->plot, err) < 0)) {
		fprintf(stderr, "netperf: %s\n", err);
		return 2;
	}
	/* As --rate: every stream's arrivals at least one a second. */
	for (i = 0; sweep_is_rate(&sw) && i < sw.n; i++)
		if (sw.value[i] < o->streams) {
			fprintf(stderr,
				"netperf: --sweep: rate %s over %d streams is "
				"under one transaction a second per stream\n",
				sw.label[i], o->streams);
			return 2;
		}
	pts = calloc((size_t)sw.n, sizeof(*pts));
	if (pts == NULL) {
		fprintf(stderr, "netperf: out of memory\n");
		return EXIT_FAILURE;
	}
	ok = sweep_run(o, &sw, pts, &topo, &have_topo, argc, argv);
	rc = sweep_print(o, &sw, pts);
	if (o->plot[0] != '\0' && sweep_plot(o->plot, &sw, pts, err) != 0) {
		fprintf(stderr, "netperf: %s\n", err);
		rc = EXIT_FAILURE;
	}
	for (i = 0; i < sw.n; i++) {
		if (!pts[i].ok)
			fprintf(stderr, "netperf: %s=%s: %s\n", sw.param,
				sw.label[i], pts[i].err);
		result_free(&pts[i].res);
	}
	free(pts);
	if (have_topo)
		topo_free(&topo);
	/* A failed point is reported in its row and the sweep goes on; the
	 * exit status still says that not every point ran. */
	return ok < sw.n ? EXIT_FAILURE : rc;
}

/* One run of a search at rate, over c (connected when *connected);
 * returns 0 when it ran, -1 with err set. */
static int
search_one(struct client *c, int *connected, const struct netperf_opts *o,
	   double rate, struct result *res, struct topo *topo, int *have_topo,
	   int argc, char **argv, char *err)
{
	struct netperf_opts oi = *o;
	struct interim_ctx ic;

	oi.rate = rate;
	if (!*connected) {
		if (setup_client(c, &oi, topo, have_topo, err) < 0)
			return -1;
		*connected = 1;
	}
	ic.o = &oi;
	ic.res = res;
	if (oi.interim > 0) {
		c->interim_sec = oi.interim;
		c->on_interim = on_interim;
		c->arg = &ic;
	}
	if (run_iterations(c, &oi, res, &ic, argc, argv, err) < 0) {
		/* netserver ends a session after a failed test: the next
		 * run starts a new one. */
		client_close(c);
		*connected = 0;
		return -1;
	}
	return 0;
}

/* --search's answer, the last line of its table: 0 when a rate met the
 * objective, 1 when none did. */
static int
search_answer(const struct search *s, const struct search_spec *sp, char *out,
	      size_t cap)
{
	if (s->lo == 0) {
		snprintf(out, cap, "no rate met %s: even %.0f/s missed (%d run%s)",
			 sp->text, s->hi, s->runs, s->runs == 1 ? "" : "s");
		return 1;
	}
	if (s->capped || s->hi == 0)
		snprintf(out, cap,
			 "highest rate meeting %s: at least %.0f Trans/s, the "
			 "most searched (%d runs)",
			 sp->text, s->lo, s->runs);
	else if (s->hi - s->lo > s->precision * s->lo && s->hi - s->lo > 1)
		snprintf(out, cap,
			 "highest rate meeting %s: %.0f Trans/s (missed at "
			 "%.0f; stopped after %d runs, short of %g %%)",
			 sp->text, s->lo, s->hi, s->runs, s->precision * 100);
	else
		snprintf(out, cap,
			 "highest rate meeting %s: %.0f Trans/s (missed at "
			 "%.0f, within %g %%; %d runs)",
			 sp->text, s->lo, s->hi, s->precision * 100, s->runs);
	return 0;
}

/*
 * --search: doubles the rate from the start (--rate, else 1000/s) until a
 * run misses the objective, then bisects; a row per run as it ends, the
 * answer last (or, with --json, one netperf-search document). Exits 0
 * when a rate met it, 1 when even the first missed.
 */
static int
run_search(const struct netperf_opts *o, int argc, char **argv)
{
	struct netperf_opts os = *o;
	struct search_spec sp;
	struct search s;
	struct client c;
	struct topo topo;
	char err[ERR_LEN], why[ERR_LEN], label[24], answer[ERR_LEN];
	int have_topo = 0, connected = 0, header = 0, rc, js;
	json_t *doc = NULL, *runs = NULL;

	if (search_parse(o->search, &sp, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		return 2;
	}
	/* Poisson arrivals in a run of R * l transactions vary by
	 * 1/sqrt(R * l): at 1000/s for 1 s, 3 %, and the 99 % test would
	 * judge the dice. Evenly spaced ones, unless asked otherwise. */
	if (!os.arrivals_set)
		os.arrivals = MODULE_ARRIVALS_FIXED;
	o = &os;
	js = o->json || o->json_stream;
	search_init(&s, o->rate > 0 ? o->rate : SEARCH_START_DEFAULT,
		    o->search_precision > 0 ? o->search_precision
					    : SEARCH_PRECISION_DEFAULT);
	if (js) {
		doc = json_pack("{s:s, s:i, s:s, s:s, s:f, s:f, s:[]}",
				"schema", "netperf-search", "schema_version", 1,
				"test", o->test, "objective", sp.text,
				"precision_pct", s.precision * 100, "start",
				s.next, "runs");
		runs = json_object_get(doc, "runs");
	}
	memset(&c, 0, sizeof(c));
	if (o->headers && !js)
		printf("%s search of the highest rate with %s to %s\n\n",
		       o->test, sp.text, o->host);
	while (s.next > 0 && !stop_requested) {
		struct result res;
		double rate = s.next;
		int met;

		memset(&res, 0, sizeof(res));
		snprintf(label, sizeof(label), "%d", s.runs + 1);
		if (search_one(&c, &connected, o, rate, &res, &topo, &have_topo,
			       argc, argv, err) < 0) {
			/* A run that fails outright meets nothing; the
			 * search goes on below it. */
			fprintf(stderr, "netperf: rate %.0f: %s\n", rate, err);
			met = 0;
			if (js) {
				json_array_append_new(
				    runs, json_pack("{s:f, s:b, s:b, s:s}",
						    "rate", rate, "ok", 0,
						    "met", 0, "error", err));
			} else {
				if (!header && o->headers)
					sweep_rate_header(stdout, "Run", NULL);
				header = 1;
				printf("%-10s %11.2f failed: %s\n", label,
				       rate, err);
			}
		} else {
			met = search_meets(&sp, &res, why, sizeof(why));
			if (js) {
				json_t *run = json_pack(
				    "{s:f, s:b, s:b}", "rate", rate, "ok", 1,
				    "met", met);

				if (!met)
					json_object_set_new(run, "missed",
							    json_string(why));
				json_object_set_new(run, "result",
						    json_doc(&res));
				json_array_append_new(runs, run);
			} else {
				if (!header && o->headers)
					sweep_rate_header(stdout, "Run", &res);
				header = 1;
				sweep_rate_row(stdout, label, &res);
				printf("  %s\n", met ? "met" : why);
			}
		}
		fflush(stdout);
		result_free(&res);
		search_record(&s, rate, met);
	}
	if (connected)
		client_close(&c);
	if (have_topo)
		topo_free(&topo);
	if (stop_requested && s.next > 0) {
		fprintf(stderr, "netperf: --search interrupted after %d runs\n",
			s.runs);
		json_decref(doc);
		return EXIT_FAILURE;
	}
	rc = search_answer(&s, &sp, answer, sizeof(answer)) ? EXIT_FAILURE
							     : EXIT_SUCCESS;
	if (js) {
		json_object_set_new(doc, "found", json_boolean(s.lo > 0));
		json_object_set_new(doc, "rate",
				    s.lo > 0 ? json_real(s.lo) : json_null());
		json_object_set_new(doc, "missed_at",
				    s.hi > 0 ? json_real(s.hi) : json_null());
		json_object_set_new(doc, "answer", json_string(answer));
		if (json_doc_write(stdout, doc, o->json_stream) < 0)
			rc = EXIT_FAILURE;
		json_decref(doc);
	} else {
		printf("\n%s\n", answer);
	}
	fflush(stdout);
	return rc;
}

/* Prints "netperf: err" with every byte outside printable ASCII
 * escaped: the text quotes result files, which came from other hosts. */
static void
print_file_err(const char *err)
{
	char e[8];

	fputs("netperf: ", stderr);
	for (const char *c = err; *c != '\0'; c++)
		fputs(escape_peer(e, sizeof(e), c, 1), stderr);
	fputc('\n', stderr);
}

/* --compare OLD NEW: the figures of two sets of results, and what else
 * differed between them. */
static int
run_compare(int argc, char **argv)
{
	struct compare_side old, nw;
	struct compare_report r;
	struct compare_opts co;
	char err[ERR_LEN];
	int rc = EXIT_FAILURE;

	if (compare_opts_parse(argc, argv, &co, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		return 2;
	}
	if (compare_load(co.old_path, "OLD", &old, err) < 0) {
		print_file_err(err);
		return EXIT_FAILURE;
	}
	if (compare_load(co.new_path, "NEW", &nw, err) < 0) {
		print_file_err(err);
		compare_side_free(&old);
		return EXIT_FAILURE;
	}
	if (compare_run(&old, &nw, co.alpha, co.force, &r, err) < 0) {
		print_file_err(err);
		goto sides;
	}
	if (co.json) {
		json_t *doc = compare_json(&r);

		if (doc == NULL || json_doc_write(stdout, doc, 0) < 0) {
			fprintf(stderr, "netperf: cannot write the JSON "
					"document\n");
			json_decref(doc);
			goto report;
		}
		json_decref(doc);
	} else {
		compare_print(stdout, &r);
	}
	fflush(stdout);
	rc = EXIT_SUCCESS;
	if (co.plot != NULL && compare_plot(co.plot, &r, err) != 0) {
		print_file_err(err);
		rc = EXIT_FAILURE;
	}
report:
	compare_report_free(&r);
sides:
	compare_side_free(&old);
	compare_side_free(&nw);
	return rc;
}

/* Reads a whole file (at most 64 MB) into a malloc'd buffer; returns its
 * length, or -1 with err set. */
static long
read_file(const char *path, char **buf, char *err)
{
	const size_t cap = (size_t)64 << 20;
	size_t len = 0, got;
	char *b = malloc(cap + 1);
	FILE *f;

	if (b == NULL)
		return err_set(err, "out of memory");
	f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (f == NULL) {
		free(b);
		return err_set(err, "%s: cannot read: %s", path,
			       strerror(errno));
	}
	while ((got = fread(b + len, 1, cap - len, f)) > 0 && len < cap)
		len += got;
	if (ferror(f) || len >= cap) {
		err_set(err, "%s: %s", path,
			ferror(f) ? strerror(errno) : "larger than 64 MB");
		if (f != stdin)
			fclose(f);
		free(b);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	b[len] = '\0';
	*buf = b;
	return (long)len;
}

/* err without the "name: " it starts with, for the list of failures. */
static const char *
reason_of(const char *err, const char *name)
{
	size_t n = strlen(name);

	return strncmp(err, name, n) == 0 && err[n] == ':' && err[n + 1] == ' '
		   ? err + n + 2
		   : err;
}

/* What --merge has taken in so far. */
struct merge_tally {
	struct merge m;
	int bad;	/* inputs that failed or did not merge */
	int fatal;	/* an input that stops the merge */
	uint64_t bytes; /* read from every input so far */
};

/* Merges one document named name into t, frees it. */
static void
merge_one(struct merge_tally *t, json_t *doc, const char *name, char *err)
{
	int arc;

	if (!t->fatal) {
		arc = merge_add_doc(&t->m, doc, name, err);
		if (arc != 0)
			print_file_err(err);
		if (arc == -2) {
			t->fatal = 1;
		} else if (arc != 0) {
			if (arc < 0)
				merge_add_failure(&t->m, name,
						  reason_of(err, name));
			t->bad++;
		}
	}
	json_decref(doc);
}

/* Merges the documents of text[0..len-1], those read before a broken
 * one. A file may hold several documents one after the other (the logs
 * of many pods): each is merged, named FILE#N. Each is merged and freed
 * before the next is parsed, so a file's trees are never all held. */
static void
merge_docs(struct merge_tally *t, const char *name, const char *text, long len,
	   char *err)
{
	json_error_t je;
	size_t off = 0;
	int nd = 0, many = 0;

	for (;;) {
		json_t *doc;
		char dname[MERGE_NAME_LEN];

		while (off < (size_t)len &&
		       strchr(" \t\r\n", text[off]) != NULL)
			off++;
		if (off >= (size_t)len || t->fatal)
			break;
		doc = json_loadb(text + off, (size_t)len - off,
				 JSON_DISABLE_EOF_CHECK, &je);
		if (doc == NULL) {
			err_set(err,
				"%s: not a complete JSON document (line %d: "
				"%s)",
				name, je.line, je.text);
			print_file_err(err);
			merge_add_failure(&t->m, name, reason_of(err, name));
			t->bad++;
			break;
		}
		off += je.position;
		nd++;
		if (nd == 1) {
			size_t k = off;

			/* Anything after the first document makes them
			 * FILE#1, FILE#2... */
			while (k < (size_t)len &&
			       strchr(" \t\r\n", text[k]) != NULL)
				k++;
			many = k < (size_t)len;
		}
		if (many)
			snprintf(dname, sizeof(dname), "%.200s#%d", name, nd);
		else
			snprintf(dname, sizeof(dname), "%s", name);
		merge_one(t, doc, dname, err);
	}
}

/* Reads and merges one input file; a bad one is named and counted. */
static void
merge_file(struct merge_tally *t, const char *name, char *err)
{
	char *text = NULL;
	long len = read_file(name, &text, err);

	if (len == 0)
		err_set(err,
			"%s: empty (the run wrote no result; see its "
			"standard error)",
			name);
	if (len <= 0) {
		print_file_err(err);
		merge_add_failure(&t->m, name, reason_of(err, name));
		free(text);
		t->bad++;
		return;
	}
	t->bytes += (uint64_t)len;
	if (t->bytes > MERGE_MAX_INPUT) {
		err_set(err,
			"%s: the inputs pass %llu MB in all; merge them in "
			"groups, then merge the groups' --json",
			name, (unsigned long long)(MERGE_MAX_INPUT >> 20));
		print_file_err(err);
		free(text);
		t->fatal = 1;
		return;
	}
	merge_docs(t, name, text, len, err);
	free(text);
}

/* The merged account as JSON, -o/-O/-k lines or a table, after the
 * warnings; returns 0 with *warn set, or -1 when it could not be
 * written. */
static int
merge_output(const struct merge_opts *o, const struct merge *m,
	     const struct merge_figures *f, int *warn)
{
	*warn = 0;
	if (f->skew_s > o->max_skew) {
		fprintf(stderr,
			"netperf: warning: start skew %.3f ms exceeds "
			"--max-skew %.3f ms\n",
			f->skew_s * 1e3, o->max_skew * 1e3);
		*warn = 1;
	}
	if (f->late_max_s > o->max_skew) {
		/* Its own wait for a CPU tells a busy host from clocks that
		 * disagree; it is known only from a netperf that reports it. */
		char waited[64] = "";
		int busy = f->late_wait_s > f->late_max_s / 2;

		if (f->late_wait_s >= 0)
			snprintf(waited, sizeof(waited),
				 ", %.3f ms of it waiting for a CPU",
				 f->late_wait_s * 1e3);
		fprintf(stderr,
			"netperf: warning: a run started %.3f ms after its "
			"scheduled time%s (%s)\n",
			f->late_max_s * 1e3, waited,
			busy ? "a busy host" : "clocks apart, or a slow host?");
		*warn = 1;
	}
	if (o->json) {
		json_t *doc = merge_json(m, f, o->max_skew);

		/* Full precision, so a merged document merges again to the
		 * same figures as its inputs would. */
		if (doc == NULL ||
		    json_dumpf(doc, stdout,
			       JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				   JSON_REAL_PRECISION(17)) != 0 ||
		    fputc('\n', stdout) == EOF) {
			fprintf(stderr, "netperf: cannot write the merged "
					"document\n");
			json_decref(doc);
			return -1;
		}
		json_decref(doc);
	} else if (o->mode != 0) {
		merge_print_list(stdout, m, f, o->mode, o->list, o->headers);
	} else {
		merge_print_table(stdout, m, f, o->headers, o->verbosity,
				  o->max_skew);
	}
	fflush(stdout);
	return 0;
}

/* netperf --merge: many runs' JSON results into one exact account. A bad
 * or failed input is named on stderr and counted; the rest still merge. */
static int
run_merge(int argc, char **argv)
{
	struct merge_opts o;
	struct merge_tally t = {.bad = 0};
	struct merge_figures f;
	char err[ERR_LEN];
	int i, warn = 0, rc = EXIT_FAILURE;

	if (cli_merge_parse(argc, argv, &o, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		free(o.files);
		return 2;
	}
	if (strcmp(o.list, "?") == 0) {
		merge_list_names(stdout);
		free(o.files);
		return EXIT_SUCCESS;
	}
	if ((o.mode != 0 && merge_list_check(o.list, err) < 0) ||
	    (o.plot != NULL && sweep_plot_check(o.plot, err) < 0)) {
		fprintf(stderr, "netperf: %s\n", err);
		free(o.files);
		return 2;
	}
	merge_init(&t.m);
	for (i = 0; i < o.nfiles && !t.fatal; i++)
		merge_file(&t, o.files[i], err);
	if (t.fatal)
		goto out;
	if (merge_figures(&t.m, &f, err) < 0) {
		print_file_err(err);
		goto out;
	}
	if (merge_output(&o, &t.m, &f, &warn) < 0)
		goto out;
	if (o.plot != NULL && runplot_merge_plot(o.plot, &t.m, &f, err) != 0) {
		print_file_err(err);
		goto out;
	}
	rc = t.bad ? EXIT_FAILURE : warn ? 3 : EXIT_SUCCESS;
out:
	merge_free(&t.m);
	free(o.files);
	return rc;
}

/* netperf 2.7's exit(-1): netserver or the data address cannot be
 * reached, or -I asks for a level it does not have. Other failures of a
 * test are 1. */
#define EXIT_FATAL 255

/* A command line that did not parse: the message, a JSON document naming
 * why where one was asked for, and 2.7's exit status. */
static int
parse_failed(int argc, char **argv, const struct netperf_opts *o,
	     const char *err)
{
	fprintf(stderr, "netperf: %s\n", err);
	/* A fleet's client (--start-at too late, a bad option) still
	 * leaves a document naming why, where its result would be. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0 ||
		    strcmp(argv[i], "-J") == 0 ||
		    strcmp(argv[i], "--json-stream") == 0) {
			json_doc_error(stdout, o->test, o->host, err,
					  strcmp(argv[i], "--json-stream") ==
					      0);
			break;
		}
	if (o->usage_error)
		fprintf(stderr, "Try 'netperf -h' for usage.\n");
	/* 2.7 exits 1 on a usage error (an unknown option, a missing
	 * value, an unknown test) and -1 on the few values it checks; a
	 * bad value, which 2.7 would take silently, is 2. */
	if (o->fatal_error)
		return EXIT_FATAL;
	return o->usage_error ? EXIT_FAILURE : 2;
}

/* -h, -V and a selector list of '?': prints what they ask for and
 * returns the exit status, or -1 when none was given. */
static int
informational(const struct netperf_opts *o)
{
	if (o->want_help) {
		/* As 2.7: the usage text, and exit status 1. */
		cli_netperf_usage(stdout);
		return EXIT_FAILURE;
	}
	if (o->want_version) {
		/* 2.7's shape, which scripts match, with our version. */
		printf("Netperf version %s\n", NP_VERSION);
		return EXIT_SUCCESS;
	}
	if (o->want_loc_cpu) {
		/* 2.7's "CPU rate" on Linux is what its /proc/stat method
		 * calibrates to: the tick rate of /proc/stat's counts
		 * (sysconf(_SC_CLK_TCK)), printed without a newline, so
		 * that scripts pass it back with -c, which ignores it. */
		int n = cpu_count();

		printf("%g", cpu_rate());
		if (o->verbosity > 1)
			printf("\nThere %s %d local %s\n", n > 1 ? "are" : "is",
			       n, n > 1 ? "cpus" : "cpu");
		return EXIT_SUCCESS;
	}
	if (o->output_mode != 0 && strcmp(o->output_arg, "?") == 0) {
		/* As 2.7: one a line for -O, one line for -o and -k,
		 * and exit status 1. */
		if (o->output_mode == 'O')
			select_list_names(stdout);
		else
			select_list_names_line(stdout);
		return EXIT_FAILURE;
	}
	return -1;
}

/* The classic report's options from netperf's. -t OMNI: 2.7's "OMNI Send
 * TEST" banner and, unless -o/-O/-k chose, omni's default columns (as -O
 * with no list). */
static void
report_setup(struct netperf_opts *o, struct report_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->headers = o->headers;
	ro->verbosity = o->verbosity;
	ro->brand = o->brand[0] ? o->brand : NULL;
	ro->histogram = o->verbosity >= 2 || o->keep_stats;
	ro->cpu_bind = o->lcpu[0] != '\0' || o->rcpu[0] != '\0';
	if (o->omni) {
		ro->omni_dir = o->omni_dir == CLI_DIR_XMIT   ? "Send"
			       : o->omni_dir == CLI_DIR_RECV ? "Receive"
			       : o->conn_test ? "Connect|Send|Recv"
					      : "Send|Recv";
		if (o->output_mode == 0)
			o->output_mode = 'O';
	}
	if (o->iter_max > 1) {
		ro->conf_level = o->conf_level;
		ro->conf_width = o->conf_width;
	}
}

/* The result as JSON, selectors or the classic report; returns 0, or -1
 * when the JSON document could not be written. */
static int
print_result(const struct netperf_opts *o, struct result *res,
	     const struct report_opts *ro, struct select_list *list)
{
	char warn[ERR_LEN];

	if (res->oneway != NULL &&
	    oneway_verdict(res->oneway, warn, sizeof(warn)) < 0)
		fprintf(stderr, "netperf: warning: %s\n", warn);
	if (o->json || o->json_stream) {
		if (json_doc_print(stdout, res, o->json_stream) < 0) {
			fprintf(stderr,
				"netperf: cannot write the JSON "
				"document: %s\n",
				errno ? strerror(errno) : "out of memory");
			return -1;
		}
	} else if (o->output_mode != 0) {
		if (o->output_arg[0] == '\0')
			select_default_list(res, list);
		if (o->output_mode == 'o')
			select_csv(stdout, res, list, o->headers);
		else if (o->output_mode == 'O')
			select_columns(stdout, res, list, o->headers);
		else
			select_keyval(stdout, res, list);
		/* 2.7 prints its histogram after them at -v 2. */
		if (o->verbosity >= 2)
			report_omni_histogram(stdout, res);
	} else {
		if (!res->conf.met)
			confidence_warning(stdout, &res->conf);
		report_classic(stdout, res, ro);
	}
	return 0;
}


/* The open loop's warning (a rate under 99 % of the offer) and its
 * connection errors, one line each on stderr; errors make the exit
 * status EXIT_FAILURE, else it stays rc. */
static int
open_loop_notes(const struct result *res, int rc)
{
	char warn[ERR_LEN], fail[ERR_LEN];
	int k = rr_open_notes(res, warn, fail, sizeof(warn));

	if (k & 1)
		fprintf(stderr, "netperf: warning: %s\n", warn);
	if (k & 2) {
		fprintf(stderr, "netperf: %s\n", fail);
		return EXIT_FAILURE;
	}
	return rc;
}

/* A test that failed: the message, and a JSON document naming why where
 * one was asked for. */
static void
test_failed(const struct netperf_opts *o, const char *err)
{
	fprintf(stderr, "netperf: %s\n", err);
	if (o->json || o->json_stream)
		json_doc_error(stdout, o->test, o->host, err,
				  o->json_stream);
}

/* One test (repeated for -i/-I) against netserver, and its report. */
static int
run_test(struct netperf_opts *o, struct select_list *list, int argc,
	 char **argv)
{
	struct report_opts ro;
	struct interim_ctx ic;
	struct result res;
	struct client c;
	struct topo topo;
	char err[ERR_LEN];
	int rc = EXIT_FAILURE, have_topo = 0;

	memset(&res, 0, sizeof(res));
	report_setup(o, &ro);
	if (o->fill_remote)
		fprintf(stderr, "netperf: -F: netserver fills its buffers with "
				"its own pattern; the remote file name is not "
				"sent\n");
	if (setup_client(&c, o, &topo, &have_topo, err) < 0) {
		test_failed(o, err);
		return c.unreached ? EXIT_FATAL : EXIT_FAILURE;
	}
	ic.o = o;
	ic.res = &res;
	if (o->interim > 0) {
		c.interim_sec = o->interim;
		c.on_interim = on_interim;
		c.arg = &ic;
	}
	if (result_init(&res, o, &c, argc, argv) < 0) {
		fprintf(stderr, "netperf: out of memory\n");
		goto out;
	}
	/* As 2.7: a data address that cannot be used fails before the
	 * banner, not after it. */
	if (client_check_data(&c, o, &res, err) < 0) {
		test_failed(o, err);
		rc = EXIT_FATAL;
		goto out;
	}
	if (o->headers && !o->json && !o->json_stream) {
		report_banner(stdout, &res, &ro);
		fflush(stdout);
	}
	if (run_iterations(&c, o, &res, &ic, argc, argv, err) < 0) {
		test_failed(o, err);
		if (c.remote_error)
			rc = EXIT_FATAL;
		goto out;
	}
	if (o->debug)
		debug_sides(&res);
	if (print_result(o, &res, &ro, list) == 0)
		rc = EXIT_SUCCESS;
	if (rc == EXIT_SUCCESS)
		rc = open_loop_notes(&res, rc);
	/* --plot on a -D run: the intervals, drawn after the result is
	 * out, so a plot that fails loses no figure. */
	if (o->plot[0] != '\0' && runplot_plot(o->plot, &res, err) != 0) {
		fprintf(stderr, "netperf: %s\n", err);
		rc = EXIT_FAILURE;
	}
out:
	client_close(&c);
	result_free(&res);
	if (have_topo)
		topo_free(&topo);
	return rc;
}

/* --completion SHELL, alone on the command line: the completion script
 * for netperf and netserver, from their option tables. */
static int
run_completion(int argc, char **argv)
{
	const char *shell = NULL;
	char err[ERR_LEN];

	if (strncmp(argv[1], "--completion=", 13) == 0 && argc == 2)
		shell = argv[1] + 13;
	else if (strcmp(argv[1], "--completion") == 0 && argc == 3)
		shell = argv[2];
	if (shell == NULL) {
		fprintf(stderr, "netperf: --completion takes a shell (bash) "
				"and nothing else\n");
		return 2;
	}
	if (complete_script(stdout, shell, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		return 2;
	}
	return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* -t REM_CPU: netserver's CPU rate as 2.7 prints it, %g without a
 * newline (scripts pass it back with -C), and its CPU count at -v 2. */
static int
run_rem_cpu(const struct netperf_opts *o)
{
	struct client c;
	char err[ERR_LEN];
	double rate;
	int n;

	if (client_open(&c, o, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		return c.unreached ? EXIT_FATAL : EXIT_FAILURE;
	}
	if (client_cpu_rate(&c, o, &rate, &n, err) < 0) {
		client_close(&c);
		fprintf(stderr, "netperf: %s\n", err);
		return EXIT_FAILURE;
	}
	client_close(&c);
	printf("%g", rate);
	if (o->verbosity > 1)
		printf("\nThere %s %d remote %s\n", n > 1 ? "are" : "is", n,
		       n > 1 ? "cpus" : "cpu");
	return EXIT_SUCCESS;
}

int
main(int argc, char **argv)
{
	struct netperf_opts o;
	struct select_list list;
	struct sigaction sa;
	char err[ERR_LEN];
	int rc;

	if (argc >= 2 && strncmp(argv[1], "--completion", 12) == 0)
		return run_completion(argc, argv);
	if (compare_wanted(argc, argv))
		return run_compare(argc, argv);
	if (cli_is_merge(argc, argv))
		return run_merge(argc, argv);
	if (cli_netperf_parse(argc, argv, &o, err) < 0)
		return parse_failed(argc, argv, &o, err);
	/* A thread a stream's results come in one message of up to a
	 * megabyte or so, from the netserver this run chose. */
	proto_set_recv_max(PROTO_MAX_RESULTS);
	/* Read as 2.7 reads it, not as probably meant: one line each. */
	for (int i = 0; i < o.nwarn; i++)
		fprintf(stderr, "netperf: warning: %s\n", o.warn[i]);
	rc = informational(&o);
	if (rc >= 0)
		return rc;
	memset(&list, 0, sizeof(list));
	if (o.output_mode != 0 && o.output_arg[0] != '\0' &&
	    select_parse(o.output_arg, &list, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	/* 2.7 ends a test on SIGALRM, its own timer's signal, with results:
	 * its bloat.sh stops a 7200 s TCP_RR with "pkill -ALRM netperf". */
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.plot[0] != '\0' && o.sweep[0] == '\0' && o.interim <= 0) {
		fprintf(stderr, "netperf: --plot draws a sweep or a -D run; "
				"give --sweep or -D too\n");
		return 2;
	}
	if (o.interval_lines && o.interim <= 0) {
		fprintf(stderr, "netperf: --interval-lines prints -D's "
				"intervals; give -D too\n");
		return 2;
	}
	if (o.plot[0] != '\0' && o.sweep[0] == '\0' &&
	    sweep_plot_check(o.plot, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		return 2;
	}
	if (o.want_rem_cpu)
		return run_rem_cpu(&o);
	if (o.ifstat[0] != '\0')
		return ifstat_monitor(&o);
	if (o.search[0] != '\0')
		return run_search(&o, argc, argv);
	if (o.sweep[0] != '\0')
		return run_sweep(&o, argc, argv);
	return run_test(&o, &list, argc, argv);
}
