/*
 * Sweeps: parsing and rendering as units, and against a real netserver a
 * three-point sweep matches three separate runs, a streams sweep runs
 * that many streams, the plot is a real SVG/PNG, and -G sets the MSS
 * both kernels report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
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
		ck_assert_msg(v[0] > (n[i] - 1) * 20.6, "%d streams: %.2f",
			      n[i], v[0]);
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
	suite_add_tcase(s, unit);
	tcase_add_checked_fixture(live, harness_setup, harness_teardown);
	tcase_set_timeout(live, 120);
	tcase_add_test(live, sweep_matches_runs);
	tcase_add_test(live, sweep_streams_adds_streams);
	tcase_add_test(live, sweep_failed_point_goes_on);
	tcase_add_test(live, plot_without_sweep);
	tcase_add_test(live, plot_bad_paths);
	tcase_add_test(live, mss_on_both_ends);
	suite_add_tcase(s, live);
	return s;
}

int
main(void)
{
	return harness_run(sweep_suite());
}
