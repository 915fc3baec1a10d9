/*
 * A run over time: the runner's per-interval accounts add up exactly to
 * the totals (histograms bucket by bucket, counts stream by stream,
 * the tail included); against a real netserver, the JSON intervals
 * carry P50/P99 and add up to the result, --plot draws a -D run and
 * --merge --plot a fleet's runs as real SVG with the expected series,
 * every text in their scripts a quoted literal; bad uses are one-line
 * errors.
 */
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "np/clock.h"
#include "np/merge.h"
#include "np/module.h"
#include "np/runplot.h"
#include "plot_lint.h"

/* Values the tail adds after the test's end, so there is one. */
#define TAIL_VALUES 1000

/* A request/response loop without sockets: a "round trip" of a
 * pseudo-random 1 us..10 ms until the end, then TAIL_VALUES more. */
static int
fake_rr(struct test_ctx *ctx)
{
	uint64_t x = 88172645463325252ULL + (uint64_t)ctx->slot, n = 0;
	int i;

	while (clock_ns() < ctx->end_ns) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		stats_hist_add(ctx->hist, 1000 + x % 10000000);
		__atomic_store_n(&ctx->r->trans, ctx->r->trans + 1,
				 __ATOMIC_RELAXED);
		/* Two streams and the coordinator on two CPUs, shared with
		 * whatever else runs: the streams leave the coordinator
		 * room to take its boundaries. */
		if (++n % 1024 == 0)
			nanosleep(&(struct timespec){0, 100000}, NULL);
	}
	for (i = 0; i < TAIL_VALUES; i++) {
		stats_hist_add(ctx->hist, 5000 + (uint64_t)i);
		__atomic_store_n(&ctx->r->trans, ctx->r->trans + 1,
				 __ATOMIC_RELAXED);
	}
	return 0;
}

static const struct test_module fake_module = {
    .name = "FAKE_RR",
    .title = "FAKE RR TEST",
    .socktype = SOCK_DGRAM,
    .protocol = IPPROTO_UDP,
    .flow = MODULE_TO_SERVER,
    .unit = MODULE_TRANS,
    .client = fake_rr,
    .server = fake_rr,
};

#define FAKE_STREAMS 2

/* What the intervals reported, summed. */
struct tally {
	struct stats_hist hist;
	uint64_t count, stream[FAKE_STREAMS];
	int intervals, partials, partial_last, stream_sums_ok;
};

static void
tally_interval(void *arg, double count, double secs, double since_start,
	       const struct tcpinfo *tcpi, const struct module_interval *ivl)
{
	struct tally *t = arg;
	uint64_t s = 0;

	(void)secs;
	(void)since_start;
	(void)tcpi;
	ck_assert_ptr_nonnull(ivl);
	ck_assert_ptr_nonnull(ivl->hist);
	ck_assert_int_eq(ivl->n, FAKE_STREAMS);
	stats_hist_merge(&t->hist, ivl->hist);
	for (int i = 0; i < ivl->n; i++) {
		t->stream[i] += ivl->stream[i];
		s += ivl->stream[i];
	}
	if (s != (uint64_t)count)
		t->stream_sums_ok = 0;
	t->count += (uint64_t)count;
	t->intervals++;
	t->partial_last = ivl->partial;
	t->partials += ivl->partial;
}

START_TEST(interval_hists_add_up)
{
	static volatile sig_atomic_t stop;
	static struct stats_hist h[FAKE_STREAMS], total;
	static struct tally t;
	struct test_params p;
	struct side_result r[FAKE_STREAMS];
	struct test_ctx ctx[FAKE_STREAMS];
	struct module_run run;
	char err[ERR_LEN];
	int i, b;

	memset(&p, 0, sizeof(p));
	memset(r, 0, sizeof(r));
	memset(ctx, 0, sizeof(ctx));
	memset(&run, 0, sizeof(run));
	memset(&t, 0, sizeof(t));
	stats_hist_init(&t.hist);
	stats_hist_init(&total);
	t.stream_sums_ok = 1;
	p.duration = 0.45;
	for (i = 0; i < FAKE_STREAMS; i++) {
		stats_hist_init(&h[i]);
		ctx[i].p = &p;
		ctx[i].fd = -1;
		ctx[i].ctl = -1;
		ctx[i].stop = &stop;
		ctx[i].r = &r[i];
		ctx[i].hist = &h[i];
		ctx[i].slot = i;
	}
	run.m = &fake_module;
	run.n = FAKE_STREAMS;
	run.ctx = ctx;
	run.interim_sec = 0.1;
	run.interim_tail = 1;
	run.on_interim = tally_interval;
	run.arg = &t;
	ck_assert_msg(module_run_all(&run, err) == 0, "%s", err);

	for (i = 0; i < FAKE_STREAMS; i++) {
		stats_hist_merge(&total, &h[i]);
		ck_assert_uint_eq(t.stream[i], r[i].trans);
	}
	/* Two whole intervals at least (four on an idle machine) and the
	 * tail. */
	ck_assert_msg(t.intervals >= 3, "%d intervals", t.intervals);
	/* The tail, reported once and last: there is one unless the
	 * coordinator, late for the last boundary (50 ms before the end),
	 * took it after the streams had ended. */
	ck_assert_int_le(t.partials, 1);
	ck_assert_int_eq(t.partial_last, t.partials);
	ck_assert(t.stream_sums_ok);
	ck_assert_uint_eq(t.count, r[0].trans + r[1].trans);
	ck_assert_uint_eq(t.hist.count, total.count);
	ck_assert_uint_eq(t.hist.sum, total.sum);
	for (b = 0; b < STATS_NBUCKETS; b++)
		ck_assert_msg(t.hist.bucket[b] == total.bucket[b],
			      "bucket %d: intervals %llu, total %llu", b,
			      (unsigned long long)t.hist.bucket[b],
			      (unsigned long long)total.bucket[b]);
}
END_TEST

/* A run's result with n intervals and a remote host named name, enough
 * for runplot_script. */
static void
fake_result(struct result *res, struct result_interim *iv, int n,
	    const char *name)
{
	memset(res, 0, sizeof(*res));
	res->m = module_find("TCP_RR");
	res->fmt = 'x';
	snprintf(res->side[RESULT_REMOTE].name,
		 sizeof(res->side[RESULT_REMOTE].name), "%s", name);
	for (int i = 0; i < n; i++) {
		memset(&iv[i], 0, sizeof(iv[i]));
		iv[i].value = 1000 + i;
		iv[i].interval = 1;
		iv[i].since_start = i + 1;
		iv[i].lat_count = 10;
		iv[i].p50 = 40;
		iv[i].p99 = 90;
		iv[i].p999 = 120;
		tcpinfo_clear(&iv[i].tcpi);
		iv[i].tcpi.n = 1;
		iv[i].tcpi.v[TCPINFO_RTT] = 30;
		iv[i].tcpi.v[TCPINFO_RETRANS] = i;
		tcpinfo_clear(&iv[i].rtcpi);
	}
	res->interim = iv;
	res->ninterim = n;
}

/* A script into a static buffer. */
static char *
script_of(const struct result *res)
{
	static char buf[2][65536];
	static int which;
	char err[ERR_LEN];
	char *out = buf[which++ % 2];
	FILE *f = fmemopen(out, sizeof(buf[0]), "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_msg(runplot_script(f, res, NULL, err) == 0, "%s", err);
	fclose(f);
	return out;
}

/* A host name that would end its string and run a command, were it not
 * quoted: the script's shape is that of a plain name's. */
START_TEST(run_script_quotes)
{
	static struct result_interim iv[2][4];
	struct result a, b;
	char sa[65536], sb[65536], why[200];
	const char *pa, *pb;

	fake_result(&a, iv[0], 4, "host");
	fake_result(&b, iv[1], 4,
		    "x'\"\n; system('touch /tmp/np-pwned') #`id`");
	pa = script_of(&a);
	pb = script_of(&b);
	ck_assert_msg(plot_lint(pa, sa, sizeof(sa), why, sizeof(why)) == NULL,
		      "%s", why);
	ck_assert_msg(plot_lint(pb, sb, sizeof(sb), why, sizeof(why)) == NULL,
		      "%s", why);
	ck_assert_str_eq(sa, sb);
	/* The series a TCP_RR run has: rate, P50, P99, srtt, retransmits. */
	ck_assert_ptr_nonnull(strstr(pa, "title 'P50'"));
	ck_assert_ptr_nonnull(strstr(pa, "title 'P99'"));
	ck_assert_ptr_nonnull(strstr(pa, "'srtt, us'"));
	ck_assert_ptr_nonnull(strstr(pa, "'retransmits'"));
	/* Too many intervals, or none, is an error, not a script. */
	a.ninterim = 0;
	{
		char err[ERR_LEN];
		FILE *f = fopen("/dev/null", "w");

		ck_assert_int_eq(runplot_script(f, &a, NULL, err), -1);
		ck_assert_str_eq(err, "--plot: the run gave no interval");
		a.ninterim = RUNPLOT_MAX_POINTS + 1;
		ck_assert_int_eq(runplot_script(f, &a, NULL, err), -1);
		fclose(f);
	}
}
END_TEST

/* The file at path, read whole into buf (cap bytes). */
static void
slurp(const char *path, char *buf, size_t cap)
{
	harness_read_file(path, buf, cap);
	ck_assert_msg(buf[0] != '\0', "%s is empty or absent", path);
}

static int
have_gnuplot(void)
{
	return access("/usr/bin/gnuplot", X_OK) == 0;
}

/* TCP_RR with -D: every interval event has P50 <= P99 <= P99.9, and the
 * intervals (the tail among them) add up to the result exactly: the
 * transactions, and the round trips the histogram timed. --plot draws
 * the rate with P50 and P99. */
START_TEST(rr_intervals_json_and_plot)
{
	const char *args[] = {"-H",
			      "127.0.0.1",
			      "-p",
			      harness_port,
			      "-t",
			      "TCP_RR",
			      "-l",
			      "1.2",
			      "-D",
			      "0.25",
			      "--json-stream",
			      "--plot",
			      "/tmp/np-runplot-rr.svg",
			      NULL};
	static struct harness_out o;
	static char svg[1 << 20];
	uint64_t lat = 0, trans = 0, ev_lat = 0;
	int events = 0, partial = 0, with_lat = 0;
	json_t *doc = NULL, *a, *e;
	const char *line;
	size_t i;

	unlink("/tmp/np-runplot-rr.svg");
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	if (!have_gnuplot()) {
		ck_assert_int_eq(o.status, 1);
		ck_assert_ptr_nonnull(strstr(o.err, "--plot needs gnuplot"));
	} else {
		ck_assert_msg(o.status == 0, "%s", o.err);
	}
	for (line = o.out; *line != '\0';) {
		const char *nl = strchr(line, '\n');
		json_t *j = harness_json_parse(line);

		ck_assert_ptr_nonnull(j);
		if (strcmp(json_string_value(json_object_get(j, "type")) != NULL
			       ? json_string_value(json_object_get(j, "type"))
			       : "",
			   "interim") == 0) {
			double p50 = harness_json_num(j, "p50_us"),
			       p99 = harness_json_num(j, "p99_us"),
			       p999 = harness_json_num(j, "p999_us");
			uint64_t lc =
			    (uint64_t)harness_json_num(j, "latency_count");

			/* An interval in which no round trip ended (the
			 * loop waited for a CPU throughout) has none. */
			if (lc > 0) {
				ck_assert_msg(
				    p50 > 0 && p50 <= p99 && p99 <= p999,
				    "p50 %g p99 %g p99.9 %g", p50, p99, p999);
				with_lat++;
			} else {
				ck_assert_msg(isnan(p50) && isnan(p99) &&
						  isnan(p999),
					      "no round trips, p50 %g", p50);
			}
			ev_lat += lc;
			events++;
			json_decref(j);
		} else {
			json_decref(doc);
			doc = j;
		}
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	/* Four boundaries and the tail, less those a busy machine merged
	 * into the next. */
	ck_assert_msg(events >= 2, "%d interval events", events);
	ck_assert_int_ge(with_lat, 1);
	ck_assert_ptr_nonnull(doc);
	a = harness_json_at(doc, "interim");
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq((int)json_array_size(a), events);
	json_array_foreach(a, i, e)
	{
		trans += (uint64_t)harness_json_num(e, "count");
		lat += (uint64_t)harness_json_num(e, "latency_count");
		partial += json_is_true(json_object_get(e, "partial"));
		ck_assert(harness_json_num(e, "ending_ns") > 1e18);
	}
	ck_assert_int_le(partial, 1);
	ck_assert_uint_eq(trans, (uint64_t)harness_json_num(
				     doc, "local.counts.transactions"));
	ck_assert_uint_eq(lat,
			  (uint64_t)harness_json_num(doc, "latency_us.count"));
	ck_assert_uint_eq(ev_lat, lat);
	json_decref(doc);
	if (have_gnuplot()) {
		slurp("/tmp/np-runplot-rr.svg", svg, sizeof(svg));
		ck_assert_ptr_nonnull(strstr(svg, "<svg"));
		ck_assert_ptr_nonnull(strstr(svg, "TCP_RR"));
		ck_assert_ptr_nonnull(strstr(svg, ">P50<"));
		ck_assert_ptr_nonnull(strstr(svg, ">P99<"));
		ck_assert_ptr_nonnull(strstr(svg, "latency, us"));
		ck_assert_ptr_nonnull(strstr(svg, "srtt, us"));
	}
	unlink("/tmp/np-runplot-rr.svg");
}
END_TEST

/* TCP_STREAM --streams 2 with -D: one line per stream and the sum, and
 * TCP_INFO's srtt and retransmits; --interval-lines prints each
 * interval readably and no 2.7 line. */
START_TEST(stream_plot_per_stream)
{
	const char *args[] = {"-H",
			      "127.0.0.1",
			      "-p",
			      harness_port,
			      "-t",
			      "TCP_STREAM",
			      "-l",
			      "1",
			      "-D",
			      "0.25",
			      "--streams",
			      "2",
			      "--plot",
			      "/tmp/np-runplot-st.svg",
			      "--interval-lines",
			      NULL};
	static struct harness_out o;
	static char svg[1 << 20];

	if (!have_gnuplot()) {
		harness_skip("stream plot: gnuplot is not installed");
		return;
	}
	unlink("/tmp/np-runplot-st.svg");
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	/* The first interval starts at the start; it ends at 0.25 s, or
	 * later where a busy machine merged boundaries. */
	ck_assert_msg(strstr(o.out, "\ninterval 1  0.00-") != NULL, "%s",
		      o.out);
	ck_assert_ptr_nonnull(strstr(o.out, "  streams "));
	ck_assert_ptr_nonnull(strstr(o.out, "  srtt "));
	ck_assert_ptr_null(strstr(o.out, "Interim result"));
	slurp("/tmp/np-runplot-st.svg", svg, sizeof(svg));
	ck_assert_ptr_nonnull(strstr(svg, "<svg"));
	ck_assert_ptr_nonnull(strstr(svg, ">sum<"));
	ck_assert_ptr_nonnull(strstr(svg, ">stream 1<"));
	ck_assert_ptr_nonnull(strstr(svg, ">stream 2<"));
	ck_assert_ptr_nonnull(strstr(svg, ">retransmits<"));
	ck_assert_ptr_null(strstr(svg, ">P50<"));
	unlink("/tmp/np-runplot-st.svg");
}
END_TEST

/* Without --interval-lines, -D's lines are 2.7's, the tail left out. */
START_TEST(interim_lines_stay_27)
{
	const char *args[] = {"-H", "127.0.0.1", "-p", harness_port,
			      "-t", "TCP_RR",	 "-l", "0.6",
			      "-D", "0.25",	 NULL};
	static struct harness_out o;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	/* Boundaries at 0.25 and 0.5 s (one may merge into the next on a
	 * busy machine); the tail after 0.5 s is not a 2.7 line. */
	ck_assert_int_ge(harness_text_count(o.out, "Interim result: "), 1);
	ck_assert_int_le(harness_text_count(o.out, "Interim result: "), 2);
	ck_assert_int_eq(harness_text_count(o.out, "Interim result: "),
			 harness_text_count(o.out, " Trans/s over 0."));
	ck_assert_ptr_null(strstr(o.out, "interval "));
	ck_assert_ptr_null(strstr(o.out, "p50"));
}
END_TEST

/* Under -k, --interval-lines keeps 2.7's keys and adds the interval's
 * figures as keys; without it, -k gives 2.7's keys alone. */
START_TEST(interval_keys)
{
	const char *with[] = {"-H",
			      "127.0.0.1",
			      "-p",
			      harness_port,
			      "-t",
			      "TCP_RR",
			      "-l",
			      "0.7",
			      "-D",
			      "0.3",
			      "--interval-lines",
			      "--",
			      "-k",
			      "THROUGHPUT",
			      NULL};
	const char *without[] = {
	    "-H",  "127.0.0.1", "-p",  harness_port, "-t", "TCP_RR",	 "-l",
	    "0.7", "-D",	"0.3", "--",	     "-k", "THROUGHPUT", NULL};
	static struct harness_out o;
	char v[64];
	int n;

	ck_assert_int_eq(harness_netperf(with, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	n = harness_text_count(o.out, "NETPERF_INTERIM_RESULT[");
	ck_assert_int_ge(n, 2);
	ck_assert_int_eq(harness_text_count(o.out, "NETPERF_UNITS["), n);
	ck_assert_int_eq(
	    harness_text_count(o.out, "NETPERF_INTERIM_P99_LATENCY["), n);
	ck_assert_int_eq(harness_text_count(o.out, "NETPERF_INTERIM_SRTT["), n);
	ck_assert_int_eq(
	    harness_keyval(o.out, "NETPERF_INTERIM_PARTIAL[0]", v, sizeof(v)),
	    0);
	ck_assert_str_eq(v, "0");
	ck_assert_int_eq(harness_keyval(o.out, "NETPERF_INTERIM_P50_LATENCY[0]",
					v, sizeof(v)),
			 0);
	ck_assert_double_gt(strtod(v, NULL), 0);
	ck_assert_ptr_nonnull(strstr(o.out, "\nTHROUGHPUT="));

	ck_assert_int_eq(harness_netperf(without, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_int_ge(harness_text_count(o.out, "NETPERF_INTERIM_RESULT["),
			 1);
	ck_assert_ptr_null(strstr(o.out, "NETPERF_INTERIM_P"));
	ck_assert_ptr_null(strstr(o.out, "NETPERF_INTERIM_SRTT"));
}
END_TEST

/* One TCP_STREAM run with -D and --json into path, started at start_at
 * ("+S"), in a child; returns its PID. */
static pid_t
json_run(const char *path, const char *start_at)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *args[] = {
		    "-H",	  "127.0.0.1",	"-p",	  harness_port, "-t",
		    "TCP_STREAM", "-l",		"1",	  "-D",		"0.2",
		    "--json",	  "--start-at", start_at, NULL};
		static struct harness_out o;
		FILE *f;

		if (harness_netperf(args, 30, &o) != 0 || o.status != 0)
			_exit(1);
		f = fopen(path, "w");
		if (f == NULL || fputs(o.out, f) < 0 || fclose(f) != 0)
			_exit(1);
		_exit(0);
	}
	return pid;
}

/* Two runs of a fleet, the second starting half a second later: drawn on
 * one time axis, with the window where both were active shaded. */
START_TEST(merge_plot_two_runs)
{
	const char *args[] = {
	    "--merge", "/tmp/np-runplot-a.json", "/tmp/np-runplot-b.json",
	    "--plot",  "/tmp/np-runplot-m.svg",	 NULL};
	static struct harness_out o;
	static char svg[1 << 20], text[1 << 20];
	struct merge m;
	struct merge_figures fig;
	char err[ERR_LEN], shape[2][65536], why[200];
	const char *names[2] = {"a.json", "x'\n; system('id') #`id`.json"};
	pid_t a, b;

	if (!have_gnuplot()) {
		harness_skip("merge plot: gnuplot is not installed");
		return;
	}
	a = json_run("/tmp/np-runplot-a.json", "+1");
	b = json_run("/tmp/np-runplot-b.json", "+1.5");
	ck_assert_int_eq(harness_wait_status(a, harness_now() + 30), 0);
	ck_assert_int_eq(harness_wait_status(b, harness_now() + 30), 0);
	unlink("/tmp/np-runplot-m.svg");
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	/* 3: the start skew (0.5 s) is over --max-skew, as meant. */
	ck_assert_msg(o.status == 0 || o.status == 3, "%d: %s", o.status,
		      o.err);
	slurp("/tmp/np-runplot-m.svg", svg, sizeof(svg));
	ck_assert_ptr_nonnull(strstr(svg, "<svg"));
	ck_assert_ptr_nonnull(strstr(svg, "all runs active"));
	ck_assert_ptr_nonnull(strstr(svg, "/tmp/np-runplot-a.json"));
	ck_assert_ptr_nonnull(strstr(svg, "/tmp/np-runplot-b.json"));
	ck_assert_ptr_nonnull(strstr(svg, "2 runs on one time axis"));

	/* The file names are the documents' senders' to choose: quoted,
	 * whatever they hold. */
	for (int k = 0; k < 2; k++) {
		json_t *da, *db;
		FILE *f;

		harness_read_file("/tmp/np-runplot-a.json", text, sizeof(text));
		da = harness_json_parse(text);
		harness_read_file("/tmp/np-runplot-b.json", text, sizeof(text));
		db = harness_json_parse(text);
		ck_assert_ptr_nonnull(da);
		ck_assert_ptr_nonnull(db);
		merge_init(&m);
		ck_assert_int_eq(merge_add_doc(&m, da, "b.json", err), 0);
		ck_assert_int_eq(merge_add_doc(&m, db, names[k], err), 0);
		ck_assert_int_eq(merge_figures(&m, &fig, err), 0);
		ck_assert(fig.window_end_ns > fig.window_start_ns);
		f = fmemopen(text, sizeof(text), "w");
		ck_assert_ptr_nonnull(f);
		ck_assert_msg(runplot_merge_script(f, &m, &fig, err) == 0, "%s",
			      err);
		fclose(f);
		ck_assert_ptr_nonnull(strstr(text, "set object 1 rectangle"));
		ck_assert_msg(plot_lint(text, shape[k], sizeof(shape[k]), why,
					sizeof(why)) == NULL,
			      "%s", why);
		merge_free(&m);
		json_decref(da);
		json_decref(db);
	}
	ck_assert_str_eq(shape[0], shape[1]);
	unlink("/tmp/np-runplot-m.svg");
	unlink("/tmp/np-runplot-a.json");
	unlink("/tmp/np-runplot-b.json");
}
END_TEST

/* The misuses: each one line, status 2, before anything runs. */
START_TEST(plot_bad_uses)
{
	static const struct {
		const char *args[12];
		const char *err;
	} bad[] = {
	    {{"-H", "127.0.0.1", "-p", "PORT", "-t", "TCP_RR", "--plot",
	      "/tmp/np-runplot-x.svg", NULL},
	     "netperf: --plot draws a sweep or a -D run; give --sweep or -D "
	     "too\n"},
	    {{"-H", "127.0.0.1", "-p", "PORT", "-t", "TCP_RR", "-D", "1",
	      "--plot", "/tmp/np-runplot-x.pdf", NULL},
	     "netperf: --plot: \"/tmp/np-runplot-x.pdf\" must end in .svg or "
	     ".png\n"},
	    {{"--merge", "/tmp/np-runplot-none.json", "--plot",
	      "/tmp/np-runplot-x.pdf", NULL},
	     "netperf: --plot: \"/tmp/np-runplot-x.pdf\" must end in .svg or "
	     ".png\n"},
	    {{"--merge", "/tmp/np-runplot-none.json", "--plot", NULL},
	     "netperf: option --plot needs a value\n"},
	    {{"-H", "127.0.0.1", "-p", "PORT", "-t", "TCP_RR",
	      "--interval-lines", NULL},
	     "netperf: --interval-lines prints -D's intervals; give -D too\n"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[12];
		static struct harness_out o;

		for (int k = 0; k < 12; k++)
			args[k] = bad[i].args[k] != NULL &&
					  strcmp(bad[i].args[k], "PORT") == 0
				      ? harness_port
				      : bad[i].args[k];
		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
		ck_assert_int_eq(o.status, 2);
		ck_assert_str_eq(o.out, "");
		ck_assert_str_eq(o.err, bad[i].err);
	}
	ck_assert_int_ne(access("/tmp/np-runplot-x.svg", F_OK), 0);
}
END_TEST

/* Runs without -D have nothing to draw: said in one line, status 1,
 * the merged figures printed all the same. */
START_TEST(merge_plot_without_intervals)
{
	const char *run[] = {"-H",     "127.0.0.1", "-p",  harness_port, "-t",
			     "TCP_RR", "-l",	    "0.3", "--json",	 NULL};
	const char *args[] = {"--merge", "/tmp/np-runplot-n.json", "--plot",
			      "/tmp/np-runplot-n.svg", NULL};
	static struct harness_out o;

	ck_assert_int_eq(harness_netperf(run, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	harness_write_file("/tmp/np-runplot-n.json", o.out, strlen(o.out),
			   0644);
	ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
	ck_assert_int_eq(o.status, 1);
	ck_assert_ptr_nonnull(strstr(o.out, "MERGED TCP_RR"));
	ck_assert_str_eq(o.err,
			 "netperf: --plot: no run has -D intervals to draw\n");
	ck_assert_int_ne(access("/tmp/np-runplot-n.svg", F_OK), 0);
	unlink("/tmp/np-runplot-n.json");
}
END_TEST

static Suite *
runplot_suite(void)
{
	Suite *s = suite_create("runplot");
	TCase *unit = tcase_create("unit");
	TCase *live = tcase_create("live");

	tcase_set_timeout(unit, 30);
	tcase_add_test(unit, interval_hists_add_up);
	tcase_add_test(unit, run_script_quotes);
	suite_add_tcase(s, unit);
	tcase_add_checked_fixture(live, harness_setup, harness_teardown);
	tcase_set_timeout(live, 120);
	tcase_add_test(live, rr_intervals_json_and_plot);
	tcase_add_test(live, stream_plot_per_stream);
	tcase_add_test(live, interim_lines_stay_27);
	tcase_add_test(live, interval_keys);
	tcase_add_test(live, merge_plot_two_runs);
	tcase_add_test(live, plot_bad_uses);
	tcase_add_test(live, merge_plot_without_intervals);
	suite_add_tcase(s, live);
	return s;
}

int
main(void)
{
	return harness_run(runplot_suite());
}
