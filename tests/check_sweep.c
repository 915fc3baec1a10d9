/*
 * Sweeps: parsing and rendering as units, and against a real netserver a
 * three-point sweep matches three separate runs, a streams sweep runs
 * that many streams, the plot is a real SVG/PNG, and -G sets the MSS
 * both kernels report.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "np/search.h"
#include "np/sweep.h"
#include "plot_lint.h"

START_TEST(parse_good)
{
	struct sweep s;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(sweep_parse("m=1K,2K,4K,8K,16K,32K", &s, err), 0);
	ck_assert_str_eq(s.param, "m");
	ck_assert_int_eq(s.n, 6);
	ck_assert_int_eq(s.value[0], 1024);
	ck_assert_int_eq(s.value[5], 32768);
	ck_assert_str_eq(s.label[2], "4K");
	ck_assert_int_eq(sweep_parse("r=1,64,512,4096", &s, err), 0);
	ck_assert_int_eq(s.n, 4);
	ck_assert_int_eq(s.value[3], 4096);
	ck_assert_int_eq(sweep_parse("streams=1,2,4", &s, err), 0);
	ck_assert_int_eq(s.value[2], 4);
	ck_assert_int_eq(sweep_parse("s=64k", &s, err), 0);
	ck_assert_int_eq(s.value[0], 64000);
}
END_TEST

START_TEST(parse_bad)
{
	static const char *const bad[] = {
	    "m",	 "=1,2",       "q=1",		"m=",
	    "m=1,,2",	 "m=abc",      "m=0",		"m=1,2,",
	    "streams=0", "streams=2K", "m=99999999999",
	};
	struct sweep s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[ERR_LEN] = "";

		ck_assert_msg(sweep_parse(bad[i], &s, err) == -1, "%s", bad[i]);
		ck_assert_msg(strncmp(err, "--sweep", 7) == 0, "%s: %s", bad[i],
			      err);
	}
}
END_TEST

START_TEST(check_and_apply)
{
	struct netperf_opts o;
	struct sweep s;
	char err[ERR_LEN] = "";

	sweep_parse("r=64", &s, err);
	ck_assert_int_eq(sweep_check(&s, "TCP_STREAM", err), -1);
	ck_assert_ptr_nonnull(strstr(err, "request/response"));
	ck_assert_int_eq(sweep_check(&s, "UDP_RR", err), 0);
	sweep_parse("m=8", &s, err);
	ck_assert_int_eq(sweep_check(&s, "UDP_STREAM", err), -1);
	ck_assert_int_eq(sweep_check(&s, "TCP_RR", err), -1);
	memset(&o, 0, sizeof(o));
	sweep_parse("r=100,200", &s, err);
	sweep_apply(&s, 1, &o);
	ck_assert_int_eq(o.req_size, 200);
	ck_assert_int_eq(o.rsp_size, 200);
	sweep_parse("streams=3", &s, err);
	sweep_apply(&s, 0, &o);
	ck_assert_int_eq(o.streams, 3);
	sweep_parse("s=1M", &s, err);
	sweep_apply(&s, 0, &o);
	ck_assert_int_eq(o.lsndbuf, 1 << 20);
	ck_assert_int_eq(o.rrcvbuf, 1 << 20);
}
END_TEST

/* Two points, the second failed: the table has a row for each. */
START_TEST(table_and_csv)
{
	struct sweep_point pts[2];
	struct sweep s;
	char err[ERR_LEN], *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(pts, 0, sizeof(pts));
	sweep_parse("m=1K,2K", &s, err);
	pts[0].ok = 1;
	pts[0].res.m = module_find("TCP_STREAM");
	pts[0].res.fmt = 'm';
	pts[0].res.thruput = 1234.5;
	pts[0].res.side[RESULT_LOCAL].util = 50;
	pts[0].res.side[RESULT_REMOTE].util = 25;
	pts[0].res.side[RESULT_LOCAL].sd = 1.5;
	pts[0].res.side[RESULT_REMOTE].sd = 0.75;
	snprintf(pts[1].err, sizeof(pts[1].err), "netserver: gone, \"bye\"");
	f = open_memstream(&buf, &len);
	sweep_table(f, &s, pts, 1);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "1K"));
	ck_assert_ptr_nonnull(strstr(buf, "1234.50"));
	ck_assert_ptr_nonnull(
	    strstr(buf, "2K         failed: netserver: gone"));
	free(buf);
	f = open_memstream(&buf, &len);
	sweep_csv(f, &s, pts, 1);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\n1K,1024,1234.50,10^6bits/s,"
					  "50.00,25.00,1.500,0.750,us/KB,"));
	ck_assert_ptr_nonnull(strstr(buf,
				     "\n2K,2048,,,,,,,,,,,\"netserver: gone, "
				     "\"\"bye\"\"\"\n"));
	free(buf);
}
END_TEST

/* The plot's script holds its texts only inside strings, whatever they
 * are, and its numbers (NaN and infinity among them) only as data. */
START_TEST(plot_script_quotes)
{
	static char a[16384], b[16384], sa[16384], sb[16384];
	static struct sweep_point pts[3];
	static const double odd[] = {NAN, INFINITY, -1e308};
	struct sweep s, plain;
	char err[ERR_LEN], why[128], *buf;
	size_t len;
	FILE *f;

	memset(pts, 0, sizeof(pts));
	ck_assert_int_eq(sweep_parse("r=1,2,3", &plain, err), 0);
	for (int i = 0; i < 3; i++) {
		pts[i].ok = i != 1;
		pts[i].res.m = module_find("TCP_RR");
		pts[i].res.fmt = 'x';
		pts[i].res.thruput = odd[i];
		pts[i].res.side[RESULT_LOCAL].sd = i;
		pts[i].res.side[RESULT_REMOTE].sd = odd[(i + 1) % 3];
	}
	s = plain;
	snprintf(s.param, sizeof(s.param), "r';system('id')");
	for (int k = 0; k < 2; k++) {
		f = open_memstream(&buf, &len);
		ck_assert_int_eq(sweep_plot_script(f, k ? &s : &plain, pts), 0);
		fclose(f);
		ck_assert_uint_lt(len, sizeof(a));
		memcpy(k ? a : b, buf, len + 1);
		free(buf);
	}
	ck_assert_msg(plot_lint(b, sb, sizeof(sb), why, sizeof(why)) == NULL,
		      "%s\n%s", why, b);
	ck_assert_msg(plot_lint(a, sa, sizeof(sa), why, sizeof(why)) == NULL,
		      "%s\n%s", why, a);
	ck_assert_msg(strcmp(sa, sb) == 0, "a text left its string:\n%s", a);
	ck_assert_ptr_nonnull(strstr(a, "'TCP_RR: transactions/s against "
					"r'';system(''id'')'"));
	/* No point succeeded: no script. */
	pts[0].ok = pts[2].ok = 0;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sweep_plot_script(f, &s, pts), -1);
	fclose(f);
	free(buf);
}
END_TEST

/* A rate sweep takes rates as --rate does, on the open-loop tests only,
 * and sets each run's --rate. */
START_TEST(rate_parse_check_apply)
{
	static const char *const bad[] = {"rate=0", "rate=abc", "rate=2G",
					  "rate=1k,", "rate=-5"};
	struct netperf_opts o;
	struct sweep s;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(sweep_parse("rate=5k,10k,20000,1.5M", &s, err), 0);
	ck_assert_int_eq(sweep_is_rate(&s), 1);
	ck_assert_int_eq(s.n, 4);
	ck_assert_int_eq(s.value[0], 5000);
	ck_assert_int_eq(s.value[2], 20000);
	ck_assert_int_eq(s.value[3], 1500000);
	ck_assert_str_eq(s.label[1], "10k");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(sweep_parse(bad[i], &s, err) == -1, "%s", bad[i]);
		ck_assert_msg(strncmp(err, "--sweep", 7) == 0, "%s: %s", bad[i],
			      err);
	}
	sweep_parse("rate=5k", &s, err);
	ck_assert_int_eq(sweep_check(&s, "TCP_STREAM", err), -1);
	ck_assert_ptr_nonnull(strstr(err, "rate applies to"));
	ck_assert_int_eq(sweep_check(&s, "UDP_RR", err), 0);
	ck_assert_int_eq(sweep_check(&s, "TCP_CRR", err), 0);
	memset(&o, 0, sizeof(o));
	sweep_apply(&s, 0, &o);
	ck_assert_double_eq(o.rate, 5000);
}
END_TEST

/* A rate sweep's table and CSV carry offered and achieved rate and the
 * three percentiles; its plot puts latency on a log scale against the
 * achieved rate, every text in a string. */
START_TEST(rate_table_csv_plot)
{
	static char sa[16384];
	struct sweep_point pts[2];
	struct sweep s;
	char err[ERR_LEN], why[128], *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(pts, 0, sizeof(pts));
	sweep_parse("rate=5k,10k", &s, err);
	pts[0].ok = 1;
	pts[0].res.m = module_find("TCP_RR");
	pts[0].res.fmt = 'x';
	pts[0].res.p.rate = 5000;
	pts[0].res.trans_rate = 4987.5;
	pts[0].res.lat.p50 = 21.5;
	pts[0].res.lat.p99 = 88.25;
	pts[0].res.lat.p999 = 140;
	pts[0].res.side[RESULT_LOCAL].util = 12.5;
	pts[0].res.side[RESULT_REMOTE].util = 10;
	pts[0].res.side[RESULT_LOCAL].sd = 50;
	pts[0].res.side[RESULT_REMOTE].sd = 40;
	snprintf(pts[1].err, sizeof(pts[1].err), "netserver: gone");
	f = open_memstream(&buf, &len);
	sweep_table(f, &s, pts, 1);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "Offered"));
	ck_assert_ptr_nonnull(strstr(buf, "Achieved"));
	ck_assert_ptr_nonnull(strstr(buf, "P99.9"));
	ck_assert_ptr_nonnull(
	    strstr(buf, "\n5k             5000.00     4987.50       21.5 "
			"     88.2     140.0    12.50   10.00     50.000    "
			"40.000\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n10k        failed: netserver"));
	free(buf);
	f = open_memstream(&buf, &len);
	sweep_csv(f, &s, pts, 1);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "rate,Value,Offered Rate,Achieved "
					  "Rate,P50 Latency Microseconds,"));
	ck_assert_ptr_nonnull(strstr(buf, "\n5k,5000,5000.00,4987.50,21.50,"
					  "88.25,140.00,12.50,10.00,50.000,"
					  "40.000,"));
	ck_assert_ptr_nonnull(
	    strstr(buf, "\n10k,10000,,,,,,,,,,,\"netserver: gone\"\n"));
	free(buf);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sweep_plot_script(f, &s, pts), 0);
	fclose(f);
	ck_assert_msg(plot_lint(buf, sa, sizeof(sa), why, sizeof(why)) == NULL,
		      "%s\n%s", why, buf);
	ck_assert_ptr_nonnull(strstr(buf, "set logscale y"));
	ck_assert_ptr_nonnull(strstr(buf, "\n5000 4987.5 21.5 88.25 140\n"));
	ck_assert_ptr_nonnull(strstr(buf, "using 2:"));
	free(buf);
}
END_TEST

START_TEST(search_parse_good_bad)
{
	static const char *const bad[] = {
	    "",
	    "P99",
	    "P98<=1ms",
	    "P99<200us",
	    "P99<=",
	    "P99<=200",
	    "P99<=200s",
	    "P99<=0us",
	    "P99<=-1us",
	    "P99<=xus",
	    "P99<=1ms,",
	    "P99<=1msx",
	    "<=1ms",
	    "P99<=nanus",
	    "P50<=1us,P90<=1us,P99<=1us,P99.9<=1us,P50<=2us",
	};
	struct search_spec sp;
	char err[ERR_LEN] = "";
	double prec;

	ck_assert_int_eq(search_parse("P99<=200us", &sp, err), 0);
	ck_assert_int_eq(sp.n, 1);
	ck_assert_int_eq(sp.obj[0].which, 99);
	ck_assert_double_eq(sp.obj[0].bound_us, 200);
	ck_assert_int_eq(search_parse("p99.9<=1.5ms,P50<=50us,P90<=2ms,P999<="
				      "3ms",
				      &sp, err),
			 0);
	ck_assert_int_eq(sp.n, 4);
	ck_assert_int_eq(sp.obj[0].which, 999);
	ck_assert_str_eq(sp.obj[0].name, "P99.9");
	ck_assert_double_eq(sp.obj[0].bound_us, 1500);
	ck_assert_int_eq(sp.obj[1].which, 50);
	ck_assert_int_eq(sp.obj[2].which, 90);
	ck_assert_int_eq(sp.obj[3].which, 999);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(search_parse(bad[i], &sp, err) == -1, "%s",
			      bad[i]);
		ck_assert_msg(strncmp(err, "--search: ", 10) == 0, "%s: %s",
			      bad[i], err);
	}
	ck_assert_int_eq(search_precision_parse("2%", &prec, err), 0);
	ck_assert_double_eq_tol(prec, 0.02, 1e-12);
	ck_assert_int_eq(search_precision_parse("0.5", &prec, err), 0);
	ck_assert_double_eq_tol(prec, 0.005, 1e-12);
	ck_assert_int_eq(search_precision_parse("0", &prec, err), -1);
	ck_assert_int_eq(search_precision_parse("51%", &prec, err), -1);
	ck_assert_int_eq(search_precision_parse("2%%", &prec, err), -1);
	ck_assert_int_eq(search_precision_parse("x", &prec, err), -1);
	ck_assert_int_eq(search_precision_parse("-2", &prec, err), -1);
}
END_TEST

/* Against a service that holds any rate up to its capacity: the search
 * brackets the capacity to the precision, within the run bound; one
 * that holds nothing ends after the first run; one that holds everything
 * stops at the highest rate searched. */
START_TEST(search_brackets)
{
	static const double cap[] = {12345, 1000, 1001, 999, 3.5e6, 77};
	static const double prec[] = {0.02, 0.001, 0.5};
	struct search s;

	for (size_t c = 0; c < sizeof(cap) / sizeof(cap[0]); c++)
		for (size_t k = 0; k < sizeof(prec) / sizeof(prec[0]); k++) {
			search_init(&s, 1000, prec[k]);
			while (s.next > 0)
				search_record(&s, s.next, s.next <= cap[c]);
			ck_assert_int_le(s.runs, SEARCH_RUNS_MAX);
			if (cap[c] < 1000) {
				ck_assert_int_eq(s.runs, 1);
				ck_assert_double_eq(s.lo, 0);
				continue;
			}
			ck_assert_double_le(s.lo, cap[c]);
			ck_assert_double_gt(s.hi, cap[c]);
			ck_assert_msg(s.hi - s.lo <= prec[k] * s.lo ||
					  s.hi - s.lo <= 1,
				      "cap %g prec %g: %g..%g", cap[c], prec[k],
				      s.lo, s.hi);
		}
	search_init(&s, 1000, 0.02);
	while (s.next > 0)
		search_record(&s, s.next, 1);
	ck_assert_int_eq(s.capped, 1);
	ck_assert_double_eq(s.lo, SWEEP_RATE_MAX);
	ck_assert_int_le(s.runs, SEARCH_RUNS_MAX);
	/* A service that misses at random still ends within the bound. */
	srand(7);
	search_init(&s, 1, 0.001);
	while (s.next > 0)
		search_record(&s, s.next, rand() % 8 != 0);
	ck_assert_int_le(s.runs, SEARCH_RUNS_MAX);
}
END_TEST

/* A run meets the objective when it achieved 99 % of the offer and every
 * percentile is within its bound; why names the first shortfall. */
START_TEST(search_meets_rules)
{
	struct search_spec sp;
	struct result r;
	char err[ERR_LEN], why[128];

	ck_assert_int_eq(search_parse("P50<=50us,P99<=200us", &sp, err), 0);
	memset(&r, 0, sizeof(r));
	r.p.rate = 1000;
	r.trans_rate = 995;
	r.lat.count = 995;
	r.lat.p50 = 40;
	r.lat.p99 = 200;
	ck_assert_int_eq(search_meets(&sp, &r, why, sizeof(why)), 1);
	r.lat.p99 = 200.5;
	ck_assert_int_eq(search_meets(&sp, &r, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "P99 200.5 us > 200 us"));
	r.lat.p99 = 100;
	r.lat.p50 = 51;
	ck_assert_int_eq(search_meets(&sp, &r, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "P50"));
	r.lat.p50 = 10;
	r.trans_rate = 989;
	ck_assert_int_eq(search_meets(&sp, &r, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "under 99 %"));
	r.trans_rate = 1000;
	r.lat.count = 0;
	ck_assert_int_eq(search_meets(&sp, &r, why, sizeof(why)), 0);
}
END_TEST

/* The received rate of a paced UDP_STREAM with -P 0 (second line, last
 * field). */
static double
udp_rate(const char *out)
{
	const char *line2 = strchr(out, '\n');
	double v[4];

	ck_assert_ptr_nonnull(line2);
	ck_assert_int_eq(
	    sscanf(line2 + 1, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]),
	    4);
	return v[3];
}

START_TEST(sweep_matches_runs)
{
	/* Paced, so each figure is known: 20 Mbit/s of payload offered. */
	const char *args[] = {"-H",	 "127.0.0.1",
			      "-p",	 harness_port,
			      "-t",	 "UDP_STREAM",
			      "-l",	 "1",
			      "--rate",	 "20M",
			      "--sweep", "m=500,1000,1400",
			      "--plot",	 "/tmp/np-sweep-test.svg",
			      NULL};
	static const char *const sizes[] = {"500", "1000", "1400"};
	struct harness_out o;
	struct harness_sched k;
	double swept[3], short_by;
	char *p;

	unlink("/tmp/np-sweep-test.svg");
	ck_assert_int_eq(harness_netperf(args, 60, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	/* What a point may fall short of 20 Mbit/s: what was due while the
	 * test's threads, both ends, waited for a CPU, as the kernel counted
	 * it over the whole sweep (each point lasts 1 s). */
	harness_last_sched(&k);
	short_by = 20 * harness_sched_wait(&k);
	for (int i = 0; i < 3; i++) {
		char key[16];

		snprintf(key, sizeof(key), "\n%-10s ", sizes[i]);
		p = strstr(o.out, key);
		ck_assert_msg(p != NULL, "no row for %s: %s", sizes[i], o.out);
		swept[i] = strtod(p + strlen(key), NULL);
		/* Paced at 20 Mbit/s: never above it; as close below as the
		 * machine lets the sender keep up. */
		ck_assert_double_lt(swept[i], 20.6);
		ck_assert_msg(swept[i] > 19.4 - short_by,
			      "%s: %.2f Mbit/s; the test waited %.1f ms for a "
			      "CPU",
			      sizes[i], swept[i], harness_sched_wait(&k) * 1e3);
	}
	for (int i = 0; i < 3; i++) {
		const char *one[] = {
		    "-H", "127.0.0.1", "-p",	 harness_port, "-t", "UDP_STREAM",
		    "-l", "1",	       "--rate", "20M",	    "-P", "0",
		    "--", "-m",	       sizes[i], NULL};
		struct harness_out r;

		struct harness_sched kr;
		double slack;

		ck_assert_int_eq(harness_netperf(one, 30, &r), 0);
		ck_assert_msg(r.status == 0, "%s", r.err);
		harness_last_sched(&kr);
		slack =
		    swept[i] * 0.03 + short_by + 20 * harness_sched_wait(&kr);
		ck_assert_msg(fabs(udp_rate(r.out) - swept[i]) < slack,
			      "%s: %.2f Mbit/s alone, %.2f in the sweep; the "
			      "two waited %.1f and %.1f ms for a CPU",
			      sizes[i], udp_rate(r.out), swept[i],
			      harness_sched_wait(&kr) * 1e3,
			      harness_sched_wait(&k) * 1e3);
	}
	/* The plot is a real SVG document, when gnuplot is installed. */
	if (access("/usr/bin/gnuplot", X_OK) == 0) {
		FILE *f = fopen("/tmp/np-sweep-test.svg", "r");
		static char head[262144];

		ck_assert_ptr_nonnull(f);
		ck_assert_int_gt(fread(head, 1, sizeof(head) - 1, f), 100);
		fclose(f);
		ck_assert_ptr_nonnull(strstr(head, "<svg"));
		ck_assert_ptr_nonnull(strstr(head, "UDP_STREAM"));
	}
	unlink("/tmp/np-sweep-test.svg");
}
END_TEST

/* --sweep streams=: each point runs that many streams, each paced at
 * 20 Mbit/s, so the aggregate is N x 20 where the machine keeps up; one
 * paced stream can never pass 20.6, so a point above (N - 1) x 20.6
 * ran N. -c -C: every point has both CPU figures and service demands,
 * and the plot draws them on its second axis. */
START_TEST(sweep_streams_adds_streams)
{
	const char *args[] = {"-H",	 "127.0.0.1",
			      "-p",	 harness_port,
			      "-t",	 "UDP_STREAM",
			      "-l",	 "1",
			      "-c",	 "-C",
			      "--rate",	 "20M",
			      "--sweep", "streams=1,2,4",
			      "--plot",	 "/tmp/np-sweep-streams.svg",
			      "--",	 "-m",
			      "1400",	 NULL};
	static const int n[] = {1, 2, 4};
	struct harness_out o;
	struct harness_sched k;
	double short_by, busy = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	unlink("/tmp/np-sweep-streams.svg");
	ck_assert_int_eq(harness_netperf(args, 60, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	/* Each stream may fall short of its 20 Mbit/s by what was due while
	 * it, or its receiver, waited for a CPU: all of them together by 20
	 * Mbit/s times the kernel's count of the sweep's waits (a point
	 * lasts 1 s). */
	harness_last_sched(&k);
	short_by = 20 * harness_sched_wait(&k);
	ck_assert_ptr_nonnull(strstr(o.out, "streams "));
	for (int i = 0; i < 3; i++) {
		char key[16];
		double v[5];
		const char *p;

		snprintf(key, sizeof(key), "\n%-10d ", n[i]);
		p = strstr(o.out, key);
		ck_assert_msg(p != NULL, "no row for %d: %s", n[i], o.out);
		ck_assert_int_eq(sscanf(p + strlen(key), "%lf %lf %lf %lf %lf",
					&v[0], &v[1], &v[2], &v[3], &v[4]),
				 5);
		ck_assert_msg(v[0] < n[i] * 20.6, "%d streams: %.2f", n[i],
			      v[0]);
		/* More than n - 1 streams could send, unless the kernel
		 * counted the sweep waiting for a CPU. */
		ck_assert_msg(v[0] > (n[i] - 1) * 20.6 - short_by,
			      "%d streams: %.2f; the test waited %.1f ms for a "
			      "CPU",
			      n[i], v[0], harness_sched_wait(&k) * 1e3);
		ck_assert_msg(v[0] > n[i] * 19.4 - short_by,
			      "%d streams: %.2f Mbit/s; the test waited %.1f "
			      "ms for a CPU",
			      n[i], v[0], harness_sched_wait(&k) * 1e3);
		/* Both CPU figures and service demands were measured, and
		 * each demand is its utilisation spread over its bytes: at
		 * this rate a point may see no busy tick in /proc/stat, so
		 * 0 is a measurement, but the pair must agree. */
		for (int c = 1; c < 3; c++) {
			double kbs = v[0] * 1e6 / 8 / 1024;
			double sd = v[c] / 100 * ncpu * 1e6 / kbs;
			double slack = 0.005 / 100 * ncpu * 1e6 / kbs +
				       0.01 * sd + 0.002;

			ck_assert_msg(v[c] >= 0 && v[c] <= 100,
				      "%d streams: column %d is %g", n[i],
				      c + 1, v[c]);
			/* The receiver's (remote) demand is over the
			 * throughput shown, the datagrams it received in its
			 * own time; the sender's is over the datagrams sent
			 * in the sender's time, which the table does not
			 * show: more datagrams when the receiver could not
			 * take them all, a longer time when the sender waited
			 * for a CPU to start or stop. So the sender's is
			 * held to the same share of CPU, within a quarter. */
			if (c == 2)
				ck_assert_msg(fabs(v[c + 2] - sd) <= slack,
					      "%d streams: receiver's demand "
					      "%g for %.2f%%, expected %g",
					      n[i], v[c + 2], v[c], sd);
			else
				ck_assert_msg(v[c + 2] >= 0 &&
						  v[c + 2] <= 1.25 * sd + slack,
					      "%d streams: sender's demand %g "
					      "for %.2f%%, expected at most "
					      "%g",
					      n[i], v[c + 2], v[c],
					      1.25 * sd + slack);
			busy += v[c];
		}
	}
	/* Across the sweep, 7 streams-seconds of 1400-byte datagrams cost
	 * the kernel some CPU on both sides. */
	ck_assert_msg(busy > 0, "no CPU measured in the whole sweep: %s",
		      o.out);
	if (access("/usr/bin/gnuplot", X_OK) == 0) {
		FILE *f = fopen("/tmp/np-sweep-streams.svg", "r");
		static char svg[262144];
		size_t len;

		ck_assert_ptr_nonnull(f);
		len = fread(svg, 1, sizeof(svg) - 1, f);
		fclose(f);
		svg[len] = '\0';
		ck_assert_ptr_nonnull(strstr(svg, "<svg"));
		ck_assert_ptr_nonnull(strstr(svg, "service demand"));
		ck_assert_ptr_nonnull(strstr(svg, "parallel streams"));
	}
	unlink("/tmp/np-sweep-streams.svg");
}
END_TEST

START_TEST(sweep_failed_point_goes_on)
{
	const char *args[] = {"-H",	 "127.0.0.1",	"-p", harness_port,
			      "-t",	 "TCP_RR",	"-l", "0.3",
			      "--sweep", "r=1,100M,64", NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(args, 60, &o), 0);
	/* One point failed: its row says why, the others ran, and the exit
	 * status says not all did. */
	ck_assert_int_eq(o.status, 1);
	ck_assert_ptr_nonnull(strstr(o.out, "\n100M       failed: netserver: "
					    "request size"));
	ck_assert_ptr_nonnull(strstr(o.out, "\n1   "));
	ck_assert_ptr_nonnull(strstr(o.out, "\n64  "));
	ck_assert_ptr_nonnull(strstr(o.err, "r=100M"));
}
END_TEST

START_TEST(plot_without_sweep)
{
	const char *args[] = {"-p", harness_port, "--plot", "/tmp/x.svg", NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "--plot draws a sweep"));
}
END_TEST

/* A plot that cannot be written, or whose name is a symbolic link (here
 * a dangling one, whose target must not appear), is a usage error in one
 * line, before anything runs. */
START_TEST(plot_bad_paths)
{
	char dir[] = "/tmp/check_sweep_XXXXXX", link[64], gone[64];
	const char *const paths[] = {"/nonexistent/dir/x.svg", link,
				     "/tmp/x.pdf"};
	char want[3][200];
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/x.svg", dir);
	snprintf(gone, sizeof(gone), "%s/created", dir);
	ck_assert_int_eq(symlink(gone, link), 0);
	snprintf(want[0], sizeof(want[0]),
		 "netperf: --plot: cannot write /nonexistent/dir/x.svg: No "
		 "such file or directory\n");
	snprintf(want[1], sizeof(want[1]),
		 "netperf: --plot: %s is a symbolic link: refusing to write "
		 "through it\n",
		 link);
	snprintf(want[2], sizeof(want[2]),
		 "netperf: --plot: \"/tmp/x.pdf\" must end in .svg or .png\n");
	for (int i = 0; i < 3; i++) {
		const char *args[] = {
		    "-H",     "127.0.0.1", "-p",  harness_port, "-t",
		    "TCP_RR", "-l",	   "0.2", "--sweep",	"r=1,2",
		    "--plot", paths[i],	   NULL};
		struct harness_out o;

		ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
		ck_assert_int_eq(o.status, 2);
		ck_assert_str_eq(o.out, "");
		ck_assert_str_eq(o.err, want[i]);
	}
	ck_assert_int_ne(stat(gone, &st), 0);
	unlink(link);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(mss_on_both_ends)
{
	const char *args[] = {"-H",	    "127.0.0.1", "-p",	harness_port, "-t",
			      "TCP_STREAM", "-l",	 "0.5", "--json",  "--",
			      "-G",	    "536",	 NULL};
	struct harness_out o;
	const char *l, *r;
	int lm = 0, rm = 0;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	l = strstr(o.out, "\"local\"");
	r = strstr(o.out, "\"remote\"");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(sscanf(strstr(l, "\"mss\""), "\"mss\": %d", &lm), 1);
	ck_assert_int_eq(sscanf(strstr(r, "\"mss\""), "\"mss\": %d", &rm), 1);
	/* TCP_INFO's snd_mss: 536 less the 12 bytes of the timestamp
	 * option that every segment carries on Linux by default. */
	ck_assert_int_eq(lm, rm);
	ck_assert_int_le(lm, 536);
	ck_assert_int_ge(lm, 536 - 40);
}
END_TEST

/* The row of label in a rate table: its numbers after the label
 * (offered, achieved, P50, P99, P99.9, CPU and SD both ends). */
static int
rate_row(const char *out, const char *label, double *v, int max,
	 const char **line)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), "\n%s ", label);
	p = strstr(out, key);
	ck_assert_msg(p != NULL, "no row %s in:\n%s", label, out);
	if (line != NULL)
		*line = p + 1;
	return harness_line_numbers(p + strlen(key), v, max);
}

/* Well under what loopback holds, each rate is achieved within a few
 * per cent, and its percentiles are in order; CPU is measured on both
 * ends. */
START_TEST(rate_sweep_rows)
{
	const char *args[] = {"-H",	    "127.0.0.1",
			      "-p",	    harness_port,
			      "-t",	    "TCP_RR",
			      "-l",	    "1",
			      "-c",	    "-C",
			      "--arrivals", "fixed",
			      "--sweep",    "rate=500,1k,2k",
			      NULL};
	static const char *const label[] = {"500", "1k", "2k"};
	static const double rate[] = {500, 1000, 2000};
	struct harness_out o;
	struct harness_sched k;
	double v[16], wait, busy = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	ck_assert_int_eq(harness_netperf(args, 60, &o), 0);
	ck_assert_msg(o.status == 0, "%d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.out, "Offered"));
	/* What a point may fall short by: 3 %, and what fell due while the
	 * test's threads, both ends, waited for a CPU over the whole sweep
	 * (each point lasts 1 s), as the kernel counted it. */
	harness_last_sched(&k);
	wait = harness_sched_wait(&k);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(rate_row(o.out, label[i], v, 16, NULL), 9);
		ck_assert_double_eq(v[0], rate[i]);
		ck_assert_msg(v[1] <= rate[i] * 1.03 &&
				  v[1] >= rate[i] * (0.97 - wait),
			      "%s: achieved %g; the test waited %.1f ms for a "
			      "CPU\n%s",
			      label[i], v[1], wait * 1e3, o.out);
		ck_assert_double_gt(v[2], 0);
		ck_assert_double_le(v[2], v[3]);
		ck_assert_double_le(v[3], v[4]);
		/* At 500/s a 1 s point may see no busy tick in /proc/stat,
		 * so 0 % is a measurement; but each demand must be its
		 * utilisation spread over the transactions achieved. The
		 * remote end counts its own transactions in its own time,
		 * so its demand is held within a tenth. */
		for (int c = 5; c < 7; c++) {
			double sd = v[c] / 100 * ncpu * 1e6 / v[1];
			double slack = 0.005 / 100 * ncpu * 1e6 / v[1] +
				       (c == 5 ? 0.01 : 0.1) * sd + 0.002;

			ck_assert_msg(v[c] >= 0 && v[c] <= 100,
				      "%s: CPU column %g\n%s", label[i], v[c],
				      o.out);
			ck_assert_msg(fabs(v[c + 2] - sd) <= slack,
				      "%s: demand %g for %.2f%%, expected "
				      "%g\n%s",
				      label[i], v[c + 2], v[c], sd, o.out);
			busy += v[c];
		}
	}
	/* 3500 round trips cost some CPU on one end or the other. */
	ck_assert_msg(busy > 0, "no CPU measured in the whole sweep:\n%s",
		      o.out);
}
END_TEST

/* A generous objective is met from the start and the search climbs until
 * the machine cannot keep up, then bisects: every run is a row, the
 * answer a rate that met it, within the precision of one that missed. */
START_TEST(search_converges)
{
	const char *args[] = {"-H",
			      "127.0.0.1",
			      "-p",
			      harness_port,
			      "-t",
			      "TCP_RR",
			      "-l",
			      "1",
			      "--rate",
			      "500",
			      "--search",
			      "P99<=1000ms",
			      "--search-precision",
			      "25",
			      NULL};
	static struct harness_out o;
	struct harness_sched k;
	double answer = 0, missed = 0, v[16], wait = 0;
	int runs = 0, rows = 0, met_row = 0, tries;
	const char *p;
	char key[16];

	/* The start, 500/s, must be achieved within 1 %: on a machine so
	 * loaded that the kernel counted the run waiting for a CPU, a
	 * shortfall there is the machine's, and the search is tried again. */
	for (tries = 0; tries < 3; tries++) {
		ck_assert_int_eq(harness_netperf(args, 110, &o), 0);
		harness_last_sched(&k);
		wait = harness_sched_wait(&k);
		if (o.status == 0 ||
		    strstr(o.out, "under 99 % of 500/s") == NULL || wait < 0.01)
			break;
	}
	if (tries == 3) {
		harness_skip("search_converges: 500/s missed by the machine "
			     "three times (it waited %.0f ms for a CPU)",
			     wait * 1e3);
		return;
	}
	ck_assert_msg(o.status == 0, "%d: %s\n%s", o.status, o.err, o.out);
	p = strstr(o.out, "highest rate meeting P99<=1000ms: ");
	ck_assert_msg(p != NULL, "%s", o.out);
	ck_assert_int_eq(sscanf(p,
				"highest rate meeting P99<=1000ms: %lf "
				"Trans/s (missed at %lf, within 25 %%; %d "
				"runs)",
				&answer, &missed, &runs),
			 3);
	ck_assert_double_ge(answer, 500);
	ck_assert_double_gt(missed, answer);
	ck_assert_double_le(missed - answer, 0.25 * answer);
	ck_assert_int_le(runs, SEARCH_RUNS_MAX);
	for (int i = 1; i <= runs; i++) {
		const char *line, *end;

		snprintf(key, sizeof(key), "%d", i);
		ck_assert_int_eq(rate_row(o.out, key, v, 16, &line), 9);
		rows++;
		end = strchr(line, '\n');
		ck_assert_ptr_nonnull(end);
		/* The answer's run met the objective, the bound's missed. */
		if (v[0] == answer)
			met_row +=
			    end - line > 5 && strncmp(end - 5, "  met", 5) == 0;
		if (v[0] == missed)
			ck_assert_msg(strncmp(end - 5, "  met", 5) != 0, "%.*s",
				      (int)(end - line), line);
	}
	snprintf(key, sizeof(key), "\n%d ", runs + 1);
	ck_assert_ptr_null(strstr(o.out, key));
	ck_assert_int_eq(rows, runs);
	ck_assert_int_eq(met_row, 1);
	/* The first run, at the start, met the generous objective. */
	ck_assert_int_eq(rate_row(o.out, "1", v, 16, NULL), 9);
	ck_assert_double_eq(v[0], 500);
}
END_TEST

/* No rate gives a median of 1 us on loopback: the first run misses, the
 * search stops there and says so with status 1. */
START_TEST(search_impossible)
{
	const char *args[] = {
	    "-H",  "127.0.0.1", "-p",  harness_port, "-t",	 "UDP_RR", "-l",
	    "0.3", "--rate",	"200", "--search",   "P50<=1us", NULL};
	struct harness_out o;
	double v[16];

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 1, "%d: %s\n%s", o.status, o.err, o.out);
	ck_assert_ptr_nonnull(
	    strstr(o.out, "\nno rate met P50<=1us: even 200/s missed (1 run)"));
	ck_assert_int_eq(rate_row(o.out, "1", v, 16, NULL), 9);
	ck_assert_ptr_null(strstr(o.out, "\n2 "));
}
END_TEST

/* With --json, one netperf-search document: each run with its result,
 * and the answer, null when no rate met the objective. */
START_TEST(search_json)
{
	const char *args[] = {"-H",	 "127.0.0.1", "-p",	  harness_port,
			      "-t",	 "TCP_RR",    "-l",	  "0.3",
			      "--rate",	 "300",	      "--search", "P50<=1us",
			      "--json",	 NULL};
	static struct harness_out o;
	json_error_t jerr;
	json_t *doc, *runs, *run;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 1, "%d: %s", o.status, o.err);
	doc = json_loads(o.out, 0, &jerr);
	ck_assert_msg(doc != NULL, "%s: %s", jerr.text, o.out);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")),
			 "netperf-search");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "objective")),
			 "P50<=1us");
	ck_assert(json_is_false(json_object_get(doc, "found")));
	ck_assert(json_is_null(json_object_get(doc, "rate")));
	ck_assert_double_eq(json_real_value(json_object_get(doc, "missed_at")),
			    300);
	runs = json_object_get(doc, "runs");
	ck_assert_int_eq(json_array_size(runs), 1);
	run = json_array_get(runs, 0);
	ck_assert_double_eq(json_real_value(json_object_get(run, "rate")), 300);
	ck_assert(json_is_false(json_object_get(run, "met")));
	ck_assert_ptr_nonnull(json_string_value(json_object_get(run, "missed")));
	ck_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(run, "result"), "schema")),
			 "netperf-result");
	json_decref(doc);
}
END_TEST

/* Bad objectives, precisions and combinations are one line each, status
 * 2, before anything runs. */
START_TEST(search_bad_specs)
{
	static const char *const bad[][4] = {
	    {"TCP_RR", "--search", "P99<=200", NULL},
	    {"TCP_RR", "--search", "P97<=1ms", NULL},
	    {"TCP_RR", "--search", "P99<=0us", NULL},
	    {"TCP_RR", "--search-precision", "2", NULL},
	    {"TCP_STREAM", "--search", "P99<=1ms", NULL},
	    {"TCP_STREAM", "--sweep", "rate=1k", NULL},
	    {"TCP_RR", "--sweep", "rate=0", NULL},
	};
	static const char *const want[] = {
	    "needs a unit",   "unknown percentile", "must be over 0",
	    "needs --search", "applies to",	    "rate applies to",
	    "not a rate"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[12] = {
		    "-H", "127.0.0.1", "-p",	  harness_port, "-l", "0.2",
		    "-t", bad[i][0],   bad[i][1], bad[i][2],	NULL};
		struct harness_out o;

		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
		ck_assert_msg(o.status == 2, "%s %s: %d", bad[i][1], bad[i][2],
			      o.status);
		ck_assert_msg(strstr(o.err, want[i]) != NULL, "%s %s: %s",
			      bad[i][1], bad[i][2], o.err);
		ck_assert_msg(strncmp(o.err, "netperf: ", 9) == 0 &&
				  strchr(o.err, '\n') ==
				      o.err + strlen(o.err) - 1,
			      "not one line: %s", o.err);
		ck_assert_ptr_null(strstr(o.out, "Trans"));
	}
	{
		const char *args[] = {"-H",
				      "127.0.0.1",
				      "-p",
				      harness_port,
				      "-t",
				      "TCP_RR",
				      "--search",
				      "P99<=1ms",
				      "--search-"
				      "precision",
				      "60",
				      NULL};
		struct harness_out o;

		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
		ck_assert_int_eq(o.status, 2);
		ck_assert_ptr_nonnull(strstr(o.err, "0.1 to 50"));
	}
	{
		const char *args[] = {"-H",	    "127.0.0.1", "-p",
				      harness_port, "-t",	 "UDP_RR",
				      "--streams",  "4",	 "--sweep",
				      "rate=2,100", NULL};
		struct harness_out o;

		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
		ck_assert_int_eq(o.status, 2);
		ck_assert_ptr_nonnull(strstr(o.err, "rate 2 over 4 streams"));
	}
}
END_TEST

static Suite *
sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *unit = tcase_create("unit");
	TCase *live = tcase_create("live");

	tcase_add_test(unit, parse_good);
	tcase_add_test(unit, parse_bad);
	tcase_add_test(unit, check_and_apply);
	tcase_add_test(unit, table_and_csv);
	tcase_add_test(unit, plot_script_quotes);
	tcase_add_test(unit, rate_parse_check_apply);
	tcase_add_test(unit, rate_table_csv_plot);
	tcase_add_test(unit, search_parse_good_bad);
	tcase_add_test(unit, search_brackets);
	tcase_add_test(unit, search_meets_rules);
	suite_add_tcase(s, unit);
	tcase_add_checked_fixture(live, harness_setup, harness_teardown);
	tcase_set_timeout(live, 120);
	tcase_add_test(live, sweep_matches_runs);
	tcase_add_test(live, sweep_streams_adds_streams);
	tcase_add_test(live, sweep_failed_point_goes_on);
	tcase_add_test(live, plot_without_sweep);
	tcase_add_test(live, plot_bad_paths);
	tcase_add_test(live, mss_on_both_ends);
	tcase_add_test(live, rate_sweep_rows);
	tcase_add_test(live, search_converges);
	tcase_add_test(live, search_impossible);
	tcase_add_test(live, search_bad_specs);
	tcase_add_test(live, search_json);
	suite_add_tcase(s, live);
	return s;
}

int
main(void)
{
	return harness_run(sweep_suite());
}
