/*
 * --one-way (lib/oneway): each direction's delay, checked three ways:
 * - the arithmetic and the clock check, from answers built here;
 * - over loopback: sizes too small refused, the selectors and JSON, and a
 *   netserver whose clock the test build shifts (NETSERVER_TEST_CLOCK_
 *   OFFSET_NS): the check fails, a warning names the clock and NTP/PTP,
 *   and no one-way figure is printed;
 * - ground truth: two namespaces joined by tests/delayline holding 5 ms
 *   one way and 15 ms the other; each direction must be reported within
 *   10 %. Both namespaces read one CLOCK_REALTIME, so the clocks agree.
 * The namespace part needs root and /dev/net/tun; without them it is
 * skipped on a line that says why, and the suite passes on the rest.
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "harness.h"
#include "np/be.h"
#include "np/clock.h"
#include "np/module.h"
#include "np/oneway.h"

#define CMD_TIMEOUT 60.0

/* ---------------------------------------------------------------- units */

/* An answer whose request left out_ns + in_ns + 1 ms ago, reached
 * netserver out_ns later by a clock shifted by skew_ns, and left it 1 ms
 * after that. */
static void
answer(char *buf, int64_t out_ns, int64_t in_ns, int64_t skew_ns)
{
	int64_t now = clock_real_ns(), t1 = now - out_ns - in_ns - 1000000;

	memset(buf, 0, ONEWAY_RSP_MIN);
	be64_put(buf + ONEWAY_T1_OFF, (uint64_t)t1);
	be64_put(buf + ONEWAY_T2_OFF, (uint64_t)(t1 + out_ns + skew_ns));
	be64_put(buf + ONEWAY_T3_OFF,
		 (uint64_t)(t1 + out_ns + skew_ns + 1000000));
}

START_TEST(delays_each_way)
{
	struct oneway w;
	char buf[ONEWAY_RSP_MIN], msg[ERR_LEN];
	double lo, hi;
	int i;

	oneway_init(&w);
	for (i = 0; i < 100; i++) {
		answer(buf, 5000000, 15000000, 0);
		oneway_answer(&w, buf, sizeof(buf));
	}
	/* Too short to carry the stamps: passed over. */
	oneway_answer(&w, buf, ONEWAY_RSP_MIN - 1);
	ck_assert_uint_eq(w.n, 100);
	ck_assert_int_eq(oneway_valid(&w), 1);
	ck_assert_int_eq(oneway_verdict(&w, msg, sizeof(msg)), 0);
	ck_assert_double_eq_tol(stats_hist_percentile(&w.out, 50) / 1e6, 5.0,
				0.1);
	/* The answer is stamped here a few us after it was built. */
	ck_assert_double_eq_tol(stats_hist_percentile(&w.in, 50) / 1e6, 15.0,
				0.2);
	oneway_offset_bound(&w, &lo, &hi);
	ck_assert_double_le(lo, 0);
	ck_assert_double_ge(hi, 0);
	ck_assert_double_eq_tol(hi, 5e6, 1e5);
}
END_TEST

/* netserver's clock 50 ms behind: every request arrives before it left;
 * 50 ms ahead: every answer does. The verdict bounds the offset by the
 * worst violation and names the clock and the cure. */
START_TEST(clock_check_fails)
{
	struct oneway w;
	char buf[ONEWAY_RSP_MIN], msg[ERR_LEN];
	double lo, hi;
	int64_t skew[2] = {-50000000, 50000000};

	for (int k = 0; k < 2; k++) {
		oneway_init(&w);
		answer(buf, 5000000, 15000000, 0);
		oneway_answer(&w, buf, sizeof(buf));
		answer(buf, 5000000, 15000000, skew[k]);
		oneway_answer(&w, buf, sizeof(buf));
		ck_assert_uint_eq(w.bad, 1);
		ck_assert_int_eq(oneway_valid(&w), 0);
		ck_assert_int_eq(oneway_verdict(&w, msg, sizeof(msg)), -1);
		ck_assert_msg(strstr(msg, "CLOCK_REALTIME") != NULL &&
				  strstr(msg, "NTP or PTP") != NULL,
			      "%s", msg);
		oneway_offset_bound(&w, &lo, &hi);
		if (skew[k] < 0) {
			ck_assert_msg(strstr(msg, "behind by at least 45") !=
					  NULL,
				      "%s", msg);
			ck_assert_double_eq_tol(hi, -45e6, 1e5);
		} else {
			ck_assert_msg(strstr(msg, "ahead by at least 35") !=
					  NULL,
				      "%s", msg);
			ck_assert_double_eq_tol(lo, 35e6, 2e5);
		}
	}
	/* Garbled stamps (a hostile netserver's) are a failed check, not
	 * an overflow. */
	oneway_init(&w);
	memset(buf, 0xff, sizeof(buf));
	be64_put(buf + ONEWAY_T2_OFF, (uint64_t)INT64_MAX);
	oneway_answer(&w, buf, sizeof(buf));
	be64_put(buf + ONEWAY_T1_OFF, (uint64_t)INT64_MAX);
	be64_put(buf + ONEWAY_T3_OFF, (uint64_t)INT64_MIN);
	oneway_answer(&w, buf, sizeof(buf));
	ck_assert_int_eq(oneway_valid(&w), 0);
	ck_assert_int_eq(oneway_verdict(&w, msg, sizeof(msg)), -1);
	/* No answer at all is no measurement either. */
	oneway_init(&w);
	ck_assert_int_eq(oneway_valid(&w), 0);
}
END_TEST

START_TEST(refusals)
{
	char err[ERR_LEN];

	ck_assert_int_eq(oneway_refuses(module_find("TCP_RR"), 16, 32, err), 0);
	ck_assert_int_eq(oneway_refuses(module_find("UDP_RR"), 16, 32, err), 0);
	ck_assert_int_eq(oneway_refuses(module_find("UDP_RR"), 15, 32, err),
			 -1);
	ck_assert_msg(strstr(err, "-r 16,32 at least") != NULL, "%s", err);
	ck_assert_int_eq(oneway_refuses(module_find("TCP_RR"), 16, 31, err),
			 -1);
	ck_assert_int_eq(oneway_refuses(module_find("TCP_STREAM"), 16, 32, err),
			 -1);
	ck_assert_msg(strstr(err, "TCP_RR and UDP_RR") != NULL, "%s", err);
	ck_assert_int_eq(oneway_refuses(module_find("TCP_CRR"), 16, 32, err),
			 -1);
}
END_TEST

/* ------------------------------------------------------------- loopback */

/* The numbers of the -o line under its titles, whose last ends in
 * "Microseconds"; returns how many. */
static int
csv_numbers(const char *out, double *v, int max)
{
	const char *p = strstr(out, "Microseconds\n");
	char *end;
	int n;

	if (p == NULL)
		return 0;
	p += strlen("Microseconds\n");
	for (n = 0; n < max && *p != '\0' && *p != '\n'; n++) {
		v[n] = strtod(p, &end);
		if (end == p)
			break;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

START_TEST(too_small_refused)
{
	const char *args[] = {"-H",	"127.0.0.1", "-p", harness_port, "-t",
			      "UDP_RR", "-l",	     "1",  "--one-way",	 "--",
			      "-r",	"8,32",	     NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "-r 16,32 at least") != NULL &&
			  strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
		      "%s", o.err);
}
END_TEST

/* Over loopback the one-way delays are a few microseconds, and their
 * selectors print them; without --one-way the same selectors say -1. */
static void
selectors_run(const char *test, int one_way)
{
	const char *args[] = {"-H",
			      "127.0.0.1",
			      "-p",
			      harness_port,
			      "-t",
			      test,
			      "-l",
			      "1",
			      one_way ? "--one-way" : "-c",
			      "--",
			      "-r",
			      "16,32",
			      "-o",
			      "OUTBOUND_P50_LATENCY,OUTBOUND_P99_LATENCY,"
			      "INBOUND_P50_LATENCY,INBOUND_P99_LATENCY",
			      NULL};
	struct harness_out o;
	double v[4];
	int i;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s: %s", test, o.err);
	ck_assert_msg(csv_numbers(o.out, v, 4) == 4, "%s", o.out);
	for (i = 0; i < 4; i++) {
		if (one_way)
			ck_assert_msg(v[i] >= 0 && v[i] < 100000, "%s: %s",
				      test, o.out);
		else
			ck_assert_msg(v[i] == -1, "%s: %s", test, o.out);
	}
}

START_TEST(loopback_selectors)
{
	selectors_run("TCP_RR", 1);
	selectors_run("UDP_RR", 1);
	selectors_run("UDP_RR", 0);
}
END_TEST

/* netperf's JSON document, run against srv; fails unless it exits 0. */
static json_t *
run_json(int port, const char *test, char *err, size_t cap)
{
	char p[16];
	const char *args[] = {"-H", "127.0.0.1", "-p",	  p,	"-t",
			      test, "-l",	 "1",	  "-J", "--one-way",
			      "--", "-r",	 "16,32", NULL};
	struct harness_out o;
	json_t *doc;

	snprintf(p, sizeof(p), "%d", port);
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s: %s", test, o.err);
	snprintf(err, cap, "%s", o.err);
	doc = harness_json_parse(o.out);
	ck_assert_msg(doc != NULL, "not JSON: %.2000s", o.out);
	return doc;
}

START_TEST(loopback_json)
{
	char err[4096];
	json_t *doc = run_json(harness_srv.port, "UDP_RR", err, sizeof(err));

	ck_assert_str_eq(err, "");
	ck_assert_msg(json_is_true(harness_json_at(doc, "one_way."
							"clock_check_passed")),
		      "check failed on one clock");
	ck_assert_str_eq(
	    json_string_value(harness_json_at(doc, "one_way.clock")),
	    "CLOCK_REALTIME");
	ck_assert_double_gt(harness_json_num(doc, "one_way.transactions"), 0);
	ck_assert_double_ge(harness_json_num(doc, "one_way.outbound_us.p50"),
			    0);
	ck_assert_double_ge(harness_json_num(doc, "one_way.inbound_us.p99"), 0);
	/* One clock: the offset's interval holds 0. */
	ck_assert_double_le(harness_json_num(doc, "one_way.offset_min_us"), 0);
	ck_assert_double_ge(harness_json_num(doc, "one_way.offset_max_us"), 0);
	json_decref(doc);
}
END_TEST

/*
 * A netserver whose clock the test build puts 50 ms behind: the check
 * fails, netperf warns naming the clock, the bound and NTP or PTP, the
 * JSON's one-way figures are null and the selectors print -1.
 */
START_TEST(skewed_clock_refused)
{
	const char *sel[] = {
	    "-H",	 "127.0.0.1",
	    "-p",	 NULL,
	    "-t",	 "TCP_RR",
	    "-l",	 "1",
	    "--one-way", "--",
	    "-r",	 "16,32",
	    "-o",	 "OUTBOUND_P50_LATENCY,INBOUND_P50_LATENCY",
	    NULL};
	struct harness_server srv;
	struct harness_out o;
	char err[4096], port[16];
	double v[2];
	json_t *doc;

	setenv("NETSERVER_TEST_CLOCK_OFFSET_NS", "-50000000", 1);
	ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
	unsetenv("NETSERVER_TEST_CLOCK_OFFSET_NS");
	doc = run_json(srv.port, "UDP_RR", err, sizeof(err));
	ck_assert_msg(strstr(err, "warning: --one-way") != NULL &&
			  strstr(err, "CLOCK_REALTIME") != NULL &&
			  strstr(err, "NTP or PTP") != NULL &&
			  strstr(err, "behind by at least") != NULL,
		      "%s", err);
	ck_assert_msg(json_is_false(harness_json_at(doc, "one_way."
							 "clock_check_passed")),
		      "the check passed with a 50 ms offset");
	ck_assert_ptr_null(harness_json_at(doc, "one_way.outbound_us"));
	ck_assert_ptr_null(harness_json_at(doc, "one_way.inbound_us"));
	/* The bound: at least 50 ms less the loopback's few us. */
	ck_assert_double_lt(harness_json_num(doc, "one_way.offset_max_us"),
			    -49000);
	json_decref(doc);
	snprintf(port, sizeof(port), "%d", srv.port);
	sel[3] = port;
	ck_assert_int_eq(harness_netperf(sel, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(csv_numbers(o.out, v, 2) == 2 && v[0] == -1 && v[1] == -1,
		      "%s", o.out);
	ck_assert_msg(strstr(o.err, "NTP or PTP") != NULL, "%s", o.err);
	harness_server_stop(&srv);
}
END_TEST

/* ---------------------------------------------------- the delay line */

static struct harness_line line;
static pid_t runner;

/* Two namespaces joined by the relay, 5 ms from a (netperf) to b
 * (netserver) and 15 ms back. */
static void
line_up(void)
{
	harness_line_up(&line, NP_DELAYLINE, "5000,15000", "np-o", runner,
			"npo", "10.202", "np-ow");
}

static void
line_down(void)
{
	harness_line_down(&line);
}

static void
sweep(void)
{
	char pt[32];

	harness_netns_sweep("np-o", runner);
	snprintf(pt, sizeof(pt), "np-ow-%d-", (int)runner);
	harness_tmp_sweep(pt);
}

/* netperf --one-way -J inside a, real-time as the relay; rto: -e's
 * value, or NULL for the adaptive time-out. */
static json_t *
line_json(const char *test, const char *rto)
{
	const char *argv[32] = {
	    "ip",	    "netns", "exec",	     line.ns.a, "chrt",
	    "-f",	    "5",     NP_NETPERF,     "-J",	"-H",
	    line.ns.addr_b, "-p",    line.port_text, "-t",	test,
	    "-l",	    "2",     "--one-way",    "--",	"-r",
	    "16,32",	    NULL};
	char *out, err[4096];
	json_t *doc;
	int rc;

	if (rto != NULL) {
		argv[21] = "-e";
		argv[22] = rto;
	}

	rc = harness_exec_capture(argv, CMD_TIMEOUT, &out, err, sizeof(err));
	ck_assert_msg(rc == 0, "netperf exited %d: %s%s", rc, out ? out : "",
		      err);
	doc = harness_json_parse(out);
	ck_assert_msg(doc != NULL, "not JSON: %s", out);
	free(out);
	return doc;
}

/* Each direction's median within 10 % of what the line holds; the round
 * trip's is their sum and netserver's few microseconds. */
START_TEST(asymmetric_line)
{
	const char *tests[] = {"UDP_RR", "TCP_RR"};
	double out, in;
	json_t *doc;

	for (int i = 0; i < 2; i++) {
		doc = line_json(tests[i], NULL);
		ck_assert_msg(json_is_true(harness_json_at(
				  doc, "one_way.clock_check_passed")),
			      "%s: the check failed on one clock", tests[i]);
		out = harness_json_num(doc, "one_way.outbound_us.p50");
		in = harness_json_num(doc, "one_way.inbound_us.p50");
		fprintf(stderr,
			"asymmetric_line: %s outbound %.0f us, inbound %.0f "
			"us (the line: 5000 and 15000)\n",
			tests[i], out, in);
		ck_assert_msg(fabs(out - 5000) <= 500,
			      "%s: outbound %.0f us, the line holds 5000",
			      tests[i], out);
		ck_assert_msg(fabs(in - 15000) <= 1500,
			      "%s: inbound %.0f us, the line holds 15000",
			      tests[i], in);
		json_decref(doc);
	}
}
END_TEST

/*
 * A time-out (10 ms) shorter than the line's 20 ms round trip: netperf
 * gives up on every request, and every answer comes after it did. None
 * was lost on the way: each is a late answer, counted as neither a lost
 * request nor a lost response, the last ones among them too (netperf
 * waits a time-out for them after its last request).
 */
START_TEST(late_answers_not_lost)
{
	json_t *doc = line_json("UDP_RR", "0.01");
	double lost = harness_json_num(doc, "local.counts.lost"),
	       late = harness_json_num(doc, "local.counts.late_answers"),
	       req = harness_json_num(doc, "result.lost_requests"),
	       rsp = harness_json_num(doc, "result.lost_responses");

	json_decref(doc);
	ck_assert_msg(lost > 50 && late == lost && req == 0 && rsp == 0,
		      "given up on %.0f, late answers %.0f, lost requests "
		      "%.0f, lost responses %.0f",
		      lost, late, req, rsp);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("oneway");
	TCase *unit = tcase_create("units");
	TCase *lo = tcase_create("loopback");
	TCase *ns = tcase_create("delay_line");
	int can_ns;

	runner = getpid();
	tcase_add_test(unit, delays_each_way);
	tcase_add_test(unit, clock_check_fails);
	tcase_add_test(unit, refusals);
	suite_add_tcase(s, unit);

	tcase_add_checked_fixture(lo, harness_setup, harness_teardown);
	tcase_set_timeout(lo, 60);
	tcase_add_test(lo, too_small_refused);
	tcase_add_test(lo, loopback_selectors);
	tcase_add_test(lo, loopback_json);
	tcase_add_test(lo, skewed_clock_refused);
	suite_add_tcase(s, lo);

	can_ns = harness_line_possible();
	if (can_ns) {
		tcase_add_checked_fixture(ns, line_up, line_down);
		tcase_add_unchecked_fixture(ns, NULL, sweep);
		tcase_set_timeout(ns, 90);
		tcase_add_test(ns, asymmetric_line);
		tcase_add_test(ns, late_answers_not_lost);
		suite_add_tcase(s, ns);
	}
	return harness_run_line(s, can_ns);
}
