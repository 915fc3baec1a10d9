/*
 * --timestamps: each round trip split into client stack, network and
 * server from SO_TIMESTAMPING stamps (lib/tstamp.c).
 *
 * - units: the codec of netserver's account, the network part derived;
 *   which stamps a transaction's wire part takes (synthetic
 *   SCM_TIMESTAMPING messages: the NIC's when both of a pair have one,
 *   never one of each clock) and the kind the report names;
 * - loopback: the parts add up exactly where they are defined to (the
 *   server's residence is its three parts, netperf's round trip its stack
 *   and the rest) for TCP_RR and UDP_RR, the selectors, the refusals;
 * - ground truth: two namespaces joined by the TUN delay line
 *   (tests/delayline, 10 ms each way): the network part is the line's
 *   20 ms within 10 %, each stack part under 1 ms; a 5 ms sleep in
 *   netserver's application path (the test-only request field
 *   serve_delay_us, from NETPERF_TEST_SERVE_DELAY_US) moves the server
 *   application part by 5 ms within 10 % and the network by under 1 ms.
 */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "np/err.h"
#include "np/stats.h"
#include "np/tstamp.h"

#define CMD_TIMEOUT 60.0

static struct harness_server srv;
static char srv_port[16];
static pid_t runner;

static double
num(json_t *doc, const char *path)
{
	double v = harness_json_num(doc, path);

	ck_assert_msg(!isnan(v), "%s is missing or not a number", path);
	return v;
}

/* ------------------------------------------------------------ units */

START_TEST(account_round_trip)
{
	struct tstamp_account a, b;
	char err[ERR_LEN];
	json_t *j;
	int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.stamps = 7;
	a.errq_calls = 2;
	a.incomplete = 1;
	a.h[TSTAMP_SERVER] = malloc(sizeof(struct stats_hist));
	stats_hist_init(a.h[TSTAMP_SERVER]);
	for (i = 1; i <= 100; i++)
		stats_hist_add(a.h[TSTAMP_SERVER], (uint64_t)i * 1000);
	j = tstamp_pack(&a);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(tstamp_unpack(j, &b, err), 0);
	ck_assert_uint_eq(b.stamps, 7);
	ck_assert_uint_eq(b.errq_calls, 2);
	ck_assert_uint_eq(b.incomplete, 1);
	ck_assert_ptr_nonnull(b.h[TSTAMP_SERVER]);
	ck_assert_ptr_null(b.h[TSTAMP_CLIENT_OUT]);
	ck_assert_uint_eq(b.h[TSTAMP_SERVER]->count, 100);
	ck_assert_uint_eq(b.h[TSTAMP_SERVER]->sum, a.h[TSTAMP_SERVER]->sum);
	json_decref(j);
	/* A hostile account is refused, not believed. */
	j = json_pack("{s:i, s:i, s:i, s:i}", "stamps", -1, "errq_calls", 0,
		      "incomplete", 0, "hw", 0);
	ck_assert_int_eq(tstamp_unpack(j, &b, err), -1);
	json_decref(j);
	ck_assert_int_eq(tstamp_unpack(NULL, &b, err), -1);
	tstamp_account_free(&a);
	tstamp_account_free(&b);
}
END_TEST

/* A control message as the kernel writes it: SCM_TIMESTAMPING with the
 * software stamp in ts[0] and the NIC's raw one in ts[2], each left 0
 * when absent; tstamp_pick reads it back from buf. */
static int
pick_from(uint64_t sw, uint64_t hw, uint64_t *got_sw, uint64_t *got_hw)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec) * 3)];
		struct cmsghdr align;
	} u;
	struct msghdr m = {.msg_control = u.buf,
			   .msg_controllen = sizeof(u.buf)};
	struct timespec ts[3] = {{0, 0}, {0, 0}, {0, 0}};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(u.buf, 0, sizeof(u.buf));
	ts[0].tv_sec = (time_t)(sw / 1000000000ULL);
	ts[0].tv_nsec = (long)(sw % 1000000000ULL);
	ts[2].tv_sec = (time_t)(hw / 1000000000ULL);
	ts[2].tv_nsec = (long)(hw % 1000000000ULL);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TIMESTAMPING;
	c->cmsg_len = CMSG_LEN(sizeof(ts));
	memcpy(CMSG_DATA(c), ts, sizeof(ts));
	c = CMSG_FIRSTHDR(&m);
	ck_assert_int_eq(c->cmsg_type, SCM_TIMESTAMPING);
	return tstamp_pick((const struct timespec *)CMSG_DATA(c), got_sw,
			   got_hw);
}

/* Each kind of stamp is taken from where the kernel puts it, the legacy
 * ts[1] never. */
START_TEST(stamp_pick)
{
	uint64_t sw, hw;

	ck_assert_int_eq(pick_from(5000000123ULL, 0, &sw, &hw), TSTAMP_KIND_SW);
	ck_assert_uint_eq(sw, 5000000123ULL);
	ck_assert_uint_eq(hw, 0);
	/* A NIC's TX stamp comes alone, ts[0] empty. */
	ck_assert_int_eq(pick_from(0, 7000000456ULL, &sw, &hw), TSTAMP_KIND_HW);
	ck_assert_uint_eq(sw, 0);
	ck_assert_uint_eq(hw, 7000000456ULL);
	/* An RX stamp with both. */
	ck_assert_int_eq(pick_from(5000000123ULL, 7000000456ULL, &sw, &hw),
			 TSTAMP_KIND_SW | TSTAMP_KIND_HW);
	ck_assert_uint_eq(sw, 5000000123ULL);
	ck_assert_uint_eq(hw, 7000000456ULL);
	ck_assert_int_eq(pick_from(0, 0, &sw, &hw), 0);
}
END_TEST

/* A transaction's wire part: the NIC's pair when both stamps are its,
 * else the kernel's pair, never one of each (two clocks). */
START_TEST(wire_prefers_hardware)
{
	uint64_t ns;

	/* Both of the pair from the NIC: its clock, though the kernel's
	 * stamps are there too. */
	ck_assert_int_eq(tstamp_wire(1000, 50000, 9000, 56000, &ns),
			 TSTAMP_KIND_HW);
	ck_assert_uint_eq(ns, 6000);
	/* The NIC stamped the receive only: the kernel's pair. */
	ck_assert_int_eq(tstamp_wire(1000, 0, 9000, 56000, &ns),
			 TSTAMP_KIND_SW);
	ck_assert_uint_eq(ns, 8000);
	ck_assert_int_eq(tstamp_wire(1000, 50000, 9000, 0, &ns),
			 TSTAMP_KIND_SW);
	ck_assert_uint_eq(ns, 8000);
	/* A hardware pair that runs backwards is no pair. */
	ck_assert_int_eq(tstamp_wire(1000, 56000, 9000, 50000, &ns),
			 TSTAMP_KIND_SW);
	ck_assert_uint_eq(ns, 8000);
	/* One stamp of each clock and nothing else: no part. */
	ck_assert_int_eq(tstamp_wire(1000, 0, 0, 56000, &ns), 0);
	ck_assert_int_eq(tstamp_wire(0, 0, 0, 0, &ns), 0);
}
END_TEST

/* An account whose wire part is count transactions, hw of them from the
 * NIC's stamps. */
static void
wire_account(struct tstamp_account *a, int part, uint64_t count, uint64_t hw)
{
	uint64_t i;

	memset(a, 0, sizeof(*a));
	a->h[part] = malloc(sizeof(struct stats_hist));
	ck_assert_ptr_nonnull(a->h[part]);
	stats_hist_init(a->h[part]);
	for (i = 0; i < count; i++)
		stats_hist_add(a->h[part], 20000);
	a->hw_wire = hw;
	if (hw == 0)
		snprintf(a->hw_why, sizeof(a->hw_why),
			 "eth9 has hardware "
			 "stamps turned off");
}

/* The kind the report names: each side's wire part and the network. */
static const char *
kind_of(uint64_t local_hw, uint64_t remote_hw, char *local_kind, size_t cap)
{
	static char k[16];
	struct tstamp_result t;
	json_t *j;

	wire_account(&t.side[0], TSTAMP_CLIENT_REST, 10, local_hw);
	wire_account(&t.side[1], TSTAMP_SERVER, 10, remote_hw);
	j = tstamp_json(&t);
	ck_assert_ptr_nonnull(j);
	snprintf(k, sizeof(k), "%s",
		 json_string_value(json_object_get(j, "kind")));
	snprintf(local_kind, cap, "%s",
		 json_string_value(json_object_get(json_object_get(j, "local"),
						   "wire_kind")));
	json_decref(j);
	tstamp_result_free(&t);
	return k;
}

START_TEST(report_names_kind)
{
	struct tstamp_account a, b;
	char lk[16], err[ERR_LEN];
	json_t *j;

	ck_assert_str_eq(kind_of(10, 10, lk, sizeof(lk)), "hardware");
	ck_assert_str_eq(lk, "hardware");
	ck_assert_str_eq(kind_of(0, 0, lk, sizeof(lk)), "software");
	ck_assert_str_eq(kind_of(10, 0, lk, sizeof(lk)), "mixed");
	ck_assert_str_eq(lk, "hardware");
	ck_assert_str_eq(kind_of(4, 10, lk, sizeof(lk)), "mixed");
	ck_assert_str_eq(lk, "mixed");
	/* netserver's count and reason travel with its account; a reason
	 * is printed, so what is not printable ASCII is replaced. */
	wire_account(&a, TSTAMP_SERVER, 3, 0);
	snprintf(a.hw_why, sizeof(a.hw_why), "eth9\x1b[2J off");
	a.hw_wire = 2;
	j = tstamp_pack(&a);
	ck_assert_ptr_nonnull(j);
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(tstamp_unpack(j, &b, err), 0);
	ck_assert_uint_eq(b.hw_wire, 2);
	ck_assert_str_eq(b.hw_why, "eth9?[2J off");
	json_decref(j);
	/* An older netserver's account has neither. */
	j = json_pack("{s:i, s:i, s:i, s:i}", "stamps", 1, "errq_calls", 0,
		      "incomplete", 0, "hw", 0);
	ck_assert_int_eq(tstamp_unpack(j, &b, err), 0);
	ck_assert_uint_eq(b.hw_wire, 0);
	ck_assert_str_eq(b.hw_why, "");
	json_decref(j);
	tstamp_account_free(&a);
	tstamp_account_free(&b);
}
END_TEST

/* A histogram spread over thousands of buckets is coarsened to fit a
 * results message beside three more, its totals exact, its median
 * within 3 %. */
START_TEST(wide_histogram_fits)
{
	struct tstamp_account a, b;
	char err[ERR_LEN], *text;
	double p0, p1;
	json_t *j;
	int i, k;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (k = TSTAMP_SERVER; k <= TSTAMP_SERVER_OUT; k++) {
		a.h[k] = malloc(sizeof(struct stats_hist));
		stats_hist_init(a.h[k]);
		for (i = 0; i < 200000; i++)
			stats_hist_add(a.h[k], 1000 + (uint64_t)i * i / 4);
	}
	j = tstamp_pack(&a);
	ck_assert_ptr_nonnull(j);
	text = json_dumps(j, JSON_COMPACT);
	ck_assert_msg(strlen(text) < 40000, "%zu bytes", strlen(text));
	free(text);
	ck_assert_int_eq(tstamp_unpack(j, &b, err), 0);
	ck_assert_uint_eq(b.h[TSTAMP_SERVER_APP]->count, 200000);
	ck_assert_uint_eq(b.h[TSTAMP_SERVER_APP]->sum,
			  a.h[TSTAMP_SERVER_APP]->sum);
	p0 = stats_hist_percentile(a.h[TSTAMP_SERVER_APP], 50);
	p1 = stats_hist_percentile(b.h[TSTAMP_SERVER_APP], 50);
	ck_assert_double_eq_tol(p1, p0, 0.03 * p0);
	json_decref(j);
	tstamp_account_free(&a);
	tstamp_account_free(&b);
}
END_TEST

/* The network part is netperf's rest less netserver's residence: with
 * a constant residence, exactly the rest shifted. */
START_TEST(network_derived)
{
	struct tstamp_result t;
	struct tstamp_fig f;
	char b[32];
	int i;

	memset(&t, 0, sizeof(t));
	t.side[0].h[TSTAMP_CLIENT_REST] = malloc(sizeof(struct stats_hist));
	t.side[1].h[TSTAMP_SERVER] = malloc(sizeof(struct stats_hist));
	stats_hist_init(t.side[0].h[TSTAMP_CLIENT_REST]);
	stats_hist_init(t.side[1].h[TSTAMP_SERVER]);
	ck_assert_int_eq(tstamp_figure(&t, TSTAMP_NETWORK, &f), -1);
	tstamp_select(&t, TSTAMP_NETWORK, TSTAMP_P50, b, sizeof(b));
	ck_assert_str_eq(b, "-1");
	for (i = 0; i < 1000; i++) {
		/* network 20 ms + up to 1 ms, residence 5 ms */
		stats_hist_add(t.side[0].h[TSTAMP_CLIENT_REST],
			       25000000 + (uint64_t)i * 1000);
		stats_hist_add(t.side[1].h[TSTAMP_SERVER], 5000000);
	}
	ck_assert_int_eq(tstamp_figure(&t, TSTAMP_NETWORK, &f), 0);
	ck_assert_double_eq_tol(f.mean, 20499.5, 0.01);
	ck_assert_double_eq_tol(f.p50, 20500, 20500 * 0.01);
	ck_assert_double_eq_tol(f.p99, 20990, 20990 * 0.01);
	tstamp_result_free(&t);
}
END_TEST

/* ------------------------------------------------------- loopback */

static void
lo_setup(void)
{
	ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
	snprintf(srv_port, sizeof(srv_port), "%d", srv.port);
}

static void
lo_teardown(void)
{
	harness_server_stop(&srv);
}

/* Runs netperf against the loopback netserver; returns its exit status,
 * stdout in *out (the caller frees it). */
static int
lo_run(const char *const *args, char **out, char *err, size_t cap)
{
	const char *argv[48] = {NP_NETPERF, "-H", "127.0.0.1", "-p", srv_port};
	int n = 5;

	for (; *args != NULL && n < 47; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	return harness_exec_capture(argv, CMD_TIMEOUT, out, err, cap);
}

static json_t *
lo_json(const char *const *args)
{
	char err[4096], *out = NULL;
	int rc = lo_run(args, &out, err, sizeof(err));
	json_t *doc;

	ck_assert_msg(rc == 0, "netperf exited %d: %s%s", rc, out ? out : "",
		      err);
	doc = harness_json_parse(out);
	ck_assert_msg(doc != NULL, "not JSON: %s", out);
	free(out);
	return doc;
}

static uint64_t
unum(json_t *doc, const char *path)
{
	json_t *v = harness_json_at(doc, path);

	ck_assert_msg(json_is_integer(v), "%s is missing or not an integer",
		      path);
	return (uint64_t)json_integer_value(v);
}

/* How many of the first trans transactions are stamped. */
static double
stamped(double trans)
{
	if (trans <= TSTAMP_FIRST)
		return trans;
	return TSTAMP_FIRST + ceil((trans - TSTAMP_FIRST) / TSTAMP_EVERY);
}

/* The parts add up where they are defined to, to the nanosecond, and
 * nearly every transaction has all its stamps. */
static void
parts_add_up(const char *test, const char *rate)
{
	const char *args[] = {"--json",	      "-t",	test, "-l", "2",
			      "--timestamps", "--rate", rate, NULL};
	json_t *doc;
	double trans, n, mean;
	uint64_t cs, sv;

	if (rate == NULL)
		args[6] = NULL;
	doc = lo_json(args);
	trans = num(doc, "latency_us.count");

	ck_assert_str_eq(
	    json_string_value(harness_json_at(doc, "timestamps.kind")),
	    "software");
	/* Loopback makes no hardware stamps, and the report says why. */
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(harness_json_at(
		       doc, "timestamps.remote.hardware_reason")),
		   "lo makes no hardware stamps"));
	ck_assert_str_eq(json_string_value(harness_json_at(
			     doc, "timestamps.local.wire_kind")),
			 "software");
	/* The first TSTAMP_FIRST transactions, then one in TSTAMP_EVERY,
	 * are stamped, the same ones on both ends. */
	n = num(doc, "timestamps.parts.round_trip.count");
	ck_assert_msg(n >= 0.95 * stamped(trans) && n <= stamped(trans) + 1,
		      "%s: %.0f of %.0f transactions split (%.0f stamped)",
		      test, n, trans, stamped(trans));
	ck_assert_msg(num(doc, "timestamps.parts.server.count") >= 0.95 * n &&
			  num(doc, "timestamps.parts.server.count") <= n + 1,
		      "%s: netserver split %.0f, netperf %.0f", test,
		      num(doc, "timestamps.parts.server.count"), n);
	/* netperf: out + in is its stack; its stack and the rest are its
	 * round trip. */
	cs = unum(doc, "timestamps.parts.client_stack.sum_ns");
	ck_assert_uint_eq(
	    unum(doc, "timestamps.parts.client_stack_out.sum_ns") +
		unum(doc, "timestamps.parts.client_stack_in.sum_ns"),
	    cs);
	ck_assert_uint_eq(cs + unum(doc, "timestamps.parts.client_rest.sum_ns"),
			  unum(doc, "timestamps.parts.round_trip.sum_ns"));
	/* netserver: in, application, out are its residence. */
	sv = unum(doc, "timestamps.parts.server.sum_ns");
	ck_assert_uint_eq(
	    unum(doc, "timestamps.parts.server_stack_in.sum_ns") +
		unum(doc, "timestamps.parts.server_app.sum_ns") +
		unum(doc, "timestamps.parts.server_stack_out.sum_ns"),
	    sv);
	/* And the means: client stack + server + network = round trip. */
	mean = num(doc, "timestamps.parts.client_stack.mean_us") +
	       num(doc, "timestamps.parts.server.mean_us") +
	       num(doc, "timestamps.parts.network.mean_us");
	ck_assert_double_eq_tol(
	    mean, num(doc, "timestamps.parts.round_trip.mean_us"), 1e-3);
	/* On loopback the network is a few microseconds at most, and the
	 * stamped round trip is the application's. */
	ck_assert_double_lt(num(doc, "timestamps.parts.network.p50_us"), 50);
	ck_assert_double_lt(
	    num(doc, "timestamps.parts.client_stack_out.p50_us"), 1000);
	/* The open loop's netperf polls, and its poll wakes for a stamped
	 * request's stamps, read within that transaction's round trip:
	 * 10 to 40 us more on this loaded loopback, which puts its stamped
	 * transactions in the tail of all of them, not past it. */
	if (rate == NULL)
		ck_assert_double_le(
		    num(doc, "timestamps.parts.round_trip.p50_us"),
		    1.1 * num(doc, "latency_us.p50") + 5);
	else
		ck_assert_double_le(
		    num(doc, "timestamps.parts.round_trip.p50_us"),
		    1.1 * num(doc, "latency_us.p99") + 5);
	/* The stamps are read 4 stamped transactions at a time (the open
	 * loop's netperf as they come: its poll wakes for them). */
	ck_assert_double_le(num(doc, "timestamps.local.errqueue_calls"),
			    rate != NULL ? 2 * stamped(trans) + 3
					 : stamped(trans) / 4 + 3);
	ck_assert_double_le(num(doc, "timestamps.remote.errqueue_calls"),
			    stamped(trans) / 4 + 3);
	json_decref(doc);
}

START_TEST(tcp_rr_parts_add_up)
{
	parts_add_up("TCP_RR", NULL);
}
END_TEST

START_TEST(udp_rr_parts_add_up)
{
	parts_add_up("UDP_RR", NULL);
}
END_TEST

/* The open loop (--rate) splits its transactions alike. */
START_TEST(tcp_rr_open_parts_add_up)
{
	parts_add_up("TCP_RR", "2000");
}
END_TEST

START_TEST(udp_rr_open_parts_add_up)
{
	parts_add_up("UDP_RR", "2000");
}
END_TEST

/* The selectors give the parts; without --timestamps, -1. */
START_TEST(selectors)
{
	const char *on[] = {"-t",
			    "TCP_RR",
			    "-l",
			    "1",
			    "--timestamps",
			    "--",
			    "-k",
			    "NETWORK_P50_LATENCY,SERVER_P99_LATENCY,"
			    "CLIENT_STACK_P50_LATENCY,SERVER_APP_P50_LATENCY",
			    NULL};
	const char *off[] = {"-t",
			     "TCP_RR",
			     "-l",
			     "1",
			     "--",
			     "-k",
			     "NETWORK_P50_LATENCY,CLIENT_STACK_P99_LATENCY",
			     NULL};
	char err[4096], *out = NULL, v[64];

	ck_assert_int_eq(lo_run(on, &out, err, sizeof(err)), 0);
	ck_assert_int_eq(
	    harness_keyval(out, "CLIENT_STACK_P50_LATENCY", v, sizeof(v)), 0);
	ck_assert_msg(atof(v) > 0, "CLIENT_STACK_P50_LATENCY=%s", v);
	ck_assert_int_eq(
	    harness_keyval(out, "SERVER_P99_LATENCY", v, sizeof(v)), 0);
	ck_assert_msg(atof(v) > 0, "SERVER_P99_LATENCY=%s", v);
	ck_assert_int_eq(
	    harness_keyval(out, "NETWORK_P50_LATENCY", v, sizeof(v)), 0);
	ck_assert_msg(atof(v) >= 0, "NETWORK_P50_LATENCY=%s", v);
	free(out);
	out = NULL;
	ck_assert_int_eq(lo_run(off, &out, err, sizeof(err)), 0);
	ck_assert_int_eq(
	    harness_keyval(out, "NETWORK_P50_LATENCY", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "-1");
	free(out);
}
END_TEST

/* -v 2 prints the table of parts. */
START_TEST(verbose_table)
{
	const char *args[] = {"-t", "UDP_RR", "-l",	      "1",
			      "-v", "2",      "--timestamps", NULL};
	char err[4096], *out = NULL;

	ck_assert_int_eq(lo_run(args, &out, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(out, "Round trip split (--timestamps, "
					  "software stamps"));
	ck_assert_ptr_nonnull(strstr(out, "network (both ways)"));
	ck_assert_ptr_nonnull(
	    strstr(out, "netperf: software wire part (SND to RX), lo makes "
			"no hardware stamps"));
	ck_assert_ptr_nonnull(strstr(out, "server app"));
	free(out);
}
END_TEST

/* Tests without the property refuse the option, naming those with it. */
START_TEST(refused_elsewhere)
{
	const char *args[] = {"-t", "TCP_STREAM",   "-l",
			      "1",  "--timestamps", NULL};
	char err[4096], *out = NULL;
	int rc = lo_run(args, &out, err, sizeof(err));

	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "--timestamps applies to TCP_RR and UDP_RR "
				  "only") != NULL,
		      "%s", err);
	free(out);
}
END_TEST

/* ---------------------------------------------------- the delay line */

static struct harness_line line;

#define MUST HARNESS_MUST

/* Two namespaces joined by the relay, 10 ms each way. */
static void
line_up(void)
{
	harness_line_up(&line, NP_DELAYLINE, "10000", "np-s", runner, "nps",
			"10.203", "np-ts");
}

static void
line_teardown(void)
{
	harness_line_down(&line);
}

static void
sweep(void)
{
	char pt[32];

	harness_netns_sweep("np-s", runner);
	snprintf(pt, sizeof(pt), "np-ts-%d-", (int)runner);
	harness_tmp_sweep(pt);
}

/* netperf in a, real-time, --json --timestamps, test's args after;
 * open loop at rate transactions/s unless rate is NULL, with a 1 s
 * time-out (the adaptive one gives up on some of UDP_RR's 20 ms round
 * trips, whose answers are then duplicates, never split). */
static json_t *
line_json_rate(const struct harness_line *l, const char *test,
	       const char *rate)
{
	const char *argv[] = {
	    "ip",	  "netns", "exec",	   l->ns.a,  "chrt",
	    "-f",	  "5",	   NP_NETPERF,	   "--json", "-H",
	    l->ns.addr_b, "-p",	   l->port_text,   "-t",     test,
	    "-l",	  "3",	   "--timestamps", "--rate", rate,
	    "--timeout",  "1000",  NULL};
	char *out, err[4096];
	json_t *doc;
	int rc;

	if (rate == NULL)
		argv[18] = NULL;
	rc = harness_exec_capture(argv, CMD_TIMEOUT, &out, err, sizeof(err));
	ck_assert_msg(rc == 0, "netperf exited %d: %s%s", rc, out ? out : "",
		      err);
	doc = harness_json_parse(out);
	ck_assert_msg(doc != NULL, "not JSON: %s", out);
	free(out);
	return doc;
}

static json_t *
line_json(const struct harness_line *l, const char *test)
{
	return line_json_rate(l, test, NULL);
}

/* The line's parts: network 20 ms within 10 %, each stack part under
 * 1 ms (the median: a loaded machine's scheduler may hold a few
 * transactions longer, which P99 would show). */
static void
line_parts(json_t *doc, const char *test)
{
	static const char *const stacks[] = {
	    "client_stack_out", "client_stack_in", "server_stack_in",
	    "server_stack_out"};
	char path[96];
	double v;
	size_t i;

	if (isnan(harness_json_num(doc, "timestamps.parts.round_trip.count"))) {
		char *text = json_dumps(harness_json_at(doc, "timestamps"), 0);

		ck_abort_msg("%s: no split: %s", test, text);
	}
	/* 3 s of 20 ms transactions (about 150): the first 64 stamped,
	 * then one in 64 */
	ck_assert_msg(num(doc, "timestamps.parts.round_trip.count") >= 60,
		      "%s: only %.0f of %.0f transactions split (%s local, "
		      "%s remote)",
		      test, num(doc, "timestamps.parts.round_trip.count"),
		      num(doc, "latency_us.count"),
		      json_dumps(harness_json_at(doc, "timestamps.local"), 0),
		      json_dumps(harness_json_at(doc, "timestamps.remote"), 0));
	v = num(doc, "timestamps.parts.network.p50_us");
	fprintf(stderr,
		"check_tstamp: %s over the line: network P50 %.0f us, mean "
		"%.0f; stack P50 client out %.1f in %.1f, server in %.1f "
		"out %.1f us\n",
		test, v, num(doc, "timestamps.parts.network.mean_us"),
		num(doc, "timestamps.parts.client_stack_out.p50_us"),
		num(doc, "timestamps.parts.client_stack_in.p50_us"),
		num(doc, "timestamps.parts.server_stack_in.p50_us"),
		num(doc, "timestamps.parts.server_stack_out.p50_us"));
	ck_assert_msg(v >= 18000 && v <= 22000,
		      "%s: network P50 %.0f us, not 20 ms within 10 %%", test,
		      v);
	v = num(doc, "timestamps.parts.network.mean_us");
	ck_assert_msg(v >= 18000 && v <= 22000,
		      "%s: network mean %.0f us, not 20 ms within 10 %%", test,
		      v);
	for (i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
		snprintf(path, sizeof(path), "timestamps.parts.%s.p50_us",
			 stacks[i]);
		v = num(doc, path);
		ck_assert_msg(v < 1000, "%s: %s is %.0f us, over 1 ms", test,
			      path, v);
	}
}

START_TEST(line_split)
{
	json_t *doc = line_json(&line, "TCP_RR");

	line_parts(doc, "TCP_RR");
	json_decref(doc);
	doc = line_json(&line, "UDP_RR");
	line_parts(doc, "UDP_RR");
	json_decref(doc);
}
END_TEST

/* The open loop over the line: 40 requests a second on one stream (its
 * round trip, 20 ms, allows 50), split as the closed loop is. */
START_TEST(line_split_open)
{
	json_t *doc = line_json_rate(&line, "TCP_RR", "40");

	line_parts(doc, "TCP_RR --rate 40");
	json_decref(doc);
	doc = line_json_rate(&line, "UDP_RR", "40");
	line_parts(doc, "UDP_RR --rate 40");
	json_decref(doc);
}
END_TEST

/* 5 ms more in netserver's application: the application part takes it
 * all (5 ms within 10 %), the network part moves by under 1 ms. */
START_TEST(line_server_sleep)
{
	const char *tests[] = {"TCP_RR", "UDP_RR"};
	double app0, net0, app1, net1;
	json_t *doc;
	size_t i;

	for (i = 0; i < 2; i++) {
		unsetenv("NETPERF_TEST_SERVE_DELAY_US");
		doc = line_json(&line, tests[i]);
		app0 = num(doc, "timestamps.parts.server_app.p50_us");
		net0 = num(doc, "timestamps.parts.network.p50_us");
		json_decref(doc);
		setenv("NETPERF_TEST_SERVE_DELAY_US", "5000", 1);
		doc = line_json(&line, tests[i]);
		app1 = num(doc, "timestamps.parts.server_app.p50_us");
		net1 = num(doc, "timestamps.parts.network.p50_us");
		json_decref(doc);
		unsetenv("NETPERF_TEST_SERVE_DELAY_US");
		fprintf(stderr,
			"check_tstamp: %s, 5 ms in netserver: application "
			"P50 %.0f -> %.0f us, network P50 %.0f -> %.0f us\n",
			tests[i], app0, app1, net0, net1);
		ck_assert_msg(app1 - app0 >= 4500 && app1 - app0 <= 5500,
			      "%s: the server application part moved %.0f us "
			      "(%.0f to %.0f), not 5 ms within 10 %%",
			      tests[i], app1 - app0, app0, app1);
		ck_assert_msg(fabs(net1 - net0) < 1000,
			      "%s: the network part moved %.0f us (%.0f to "
			      "%.0f)",
			      tests[i], net1 - net0, net0, net1);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tstamp");
	TCase *unit = tcase_create("units");
	TCase *lo = tcase_create("loopback");
	TCase *ns = tcase_create("delay_line");
	int can_ns;

	runner = getpid();
	unsetenv("NETPERF_TEST_SERVE_DELAY_US");
	tcase_add_test(unit, account_round_trip);
	tcase_add_test(unit, network_derived);
	tcase_add_test(unit, wide_histogram_fits);
	tcase_add_test(unit, stamp_pick);
	tcase_add_test(unit, wire_prefers_hardware);
	tcase_add_test(unit, report_names_kind);
	suite_add_tcase(s, unit);

	tcase_add_checked_fixture(lo, lo_setup, lo_teardown);
	tcase_set_timeout(lo, 60);
	tcase_add_test(lo, tcp_rr_parts_add_up);
	tcase_add_test(lo, udp_rr_parts_add_up);
	tcase_add_test(lo, tcp_rr_open_parts_add_up);
	tcase_add_test(lo, udp_rr_open_parts_add_up);
	tcase_add_test(lo, selectors);
	tcase_add_test(lo, verbose_table);
	tcase_add_test(lo, refused_elsewhere);
	suite_add_tcase(s, lo);

	can_ns = harness_line_possible();
	if (can_ns) {
		tcase_add_checked_fixture(ns, line_up, line_teardown);
		tcase_add_unchecked_fixture(ns, NULL, sweep);
		tcase_set_timeout(ns, 90);
		tcase_add_test(ns, line_split);
		tcase_add_test(ns, line_server_sleep);
		tcase_add_test(ns, line_split_open);
		suite_add_tcase(s, ns);
	}
	return harness_run_line(s, can_ns);
}
