/*
 * --io-uring (lib/uring.c): the rows of the data path table, the
 * request and netserver's confirmation, the refusals; and against a real
 * netserver, TCP_STREAM, TCP_MAERTS, TCP_RR and UDP_RR over the rings,
 * whose byte counts must be the kernel's (the --wire counter's payload,
 * retransmissions taken off, and a counted test's exact bytes), with
 * -c -C, the path each end took named in the report, and --zerocopy's
 * SEND_ZC notices counted.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "np/cli.h"
#include "np/datapath.h"
#include "np/fast.h"
#include "np/module.h"
#include "np/proto.h"
#include "np/uring.h"

/* Why this kernel runs no io_uring, or "". */
static char no_uring[160];

/* The receive row this kernel takes. */
static const char *
rx_path(void)
{
	return uring_caps()->multishot ? "io_uring_mshot" : "io_uring";
}

/* Every test that has the flag takes an io_uring row on both sides, no
 * other test takes one, and without the flag nothing changes. */
START_TEST(table_rows)
{
	static const char *const with[] = {"TCP_STREAM", "TCP_MAERTS", "TCP_RR",
					   "UDP_RR"};
	static const char *const without[] = {"UDP_STREAM", "TCP_CRR", "TCP_CC",
					      "UDP_CRR", "TCP_SENDFILE"};
	struct test_params p;
	const struct data_path *dp;
	char err[ERR_LEN];
	size_t i;

	for (i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
		const struct test_module *m = module_find(with[i]);

		ck_assert_ptr_nonnull(m);
		memset(&p, 0, sizeof(p));
		p.streams = 1;
		p.io_uring = 1;
		ck_assert_msg(fast_check(m, &p, err) == 0, "%s: %s", with[i],
			      err);
		for (int sender = 0; sender < 2; sender++) {
			dp = datapath_pick(m, &p, sender);
			ck_assert_ptr_nonnull(dp);
			ck_assert_msg(strncmp(dp->name, "io_uring", 8) == 0,
				      "%s side %d: %s", with[i], sender,
				      dp->name);
			ck_assert_ptr_nonnull(dp->close);
		}
		/* Without it: the plain rows, none for RR. */
		p.io_uring = 0;
		dp = datapath_pick(m, &p, 1);
		ck_assert(dp == NULL || strncmp(dp->name, "io_uring", 8) != 0);
	}
	memset(&p, 0, sizeof(p));
	p.streams = 1;
	p.io_uring = 1;
	p.zerocopy = 1;
	ck_assert_str_eq(datapath_pick(module_find("TCP_STREAM"), &p, 1)->name,
			 "io_uring_sendzc");
	ck_assert_str_eq(datapath_pick(module_find("TCP_STREAM"), &p, 0)->name,
			 rx_path());
	p.zerocopy = 0;
	for (i = 0; i < sizeof(without) / sizeof(without[0]); i++) {
		const struct test_module *m = module_find(without[i]);

		ck_assert_ptr_nonnull(m);
		ck_assert_msg(fast_check(m, &p, err) < 0, "%s took it",
			      without[i]);
		ck_assert_msg(strstr(err, "--io-uring applies to") != NULL,
			      "%s", err);
	}
}
END_TEST

/* The request says io_uring only when asked; netserver's ready confirms
 * it, and a ready that does not (an older netserver) is refused. */
START_TEST(request_and_ready)
{
	struct test_params p, q;
	char err[ERR_LEN];
	json_t *msg, *ready;

	memset(&p, 0, sizeof(p));
	snprintf(p.test, sizeof(p.test), "TCP_RR");
	p.duration = 1;
	p.streams = 1;
	msg = proto_request_pack(&p);
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_null(json_object_get(msg, "io_uring"));
	json_decref(msg);
	p.io_uring = 1;
	msg = proto_request_pack(&p);
	ck_assert(json_is_true(json_object_get(msg, "io_uring")));
	ck_assert_msg(proto_request_unpack(msg, &q, err) == 0, "%s", err);
	ck_assert_int_eq(q.io_uring, 1);
	json_decref(msg);

	ready = json_pack("{s:s}", "type", "ready");
	ck_assert_int_lt(proto_ready_check(ready, &p, err), 0);
	ck_assert_msg(strstr(err, "--io-uring") != NULL &&
			  strstr(err, "older netserver") != NULL,
		      "%s", err);
	proto_ready_confirm(ready, &q);
	ck_assert_msg(proto_ready_check(ready, &p, err) == 0, "%s", err);
	json_decref(ready);
}
END_TEST

/* What makes no sense with it is a usage error naming the option. */
START_TEST(refusals)
{
	static const char *const bad[][10] = {
	    {"netperf", "--io-uring", "-t", "UDP_STREAM", NULL},
	    {"netperf", "--io-uring", "-t", "TCP_CRR", NULL},
	    {"netperf", "--io-uring", "-t", "UDP_RR", "--batch", "8", NULL},
	    {"netperf", "--io-uring", "-t", "UDP_RR", "--udp-gso", NULL},
	    {"netperf", "--io-uring", "--", "-V", NULL},
	    {"netperf", "--io-uring", "--skip-rx-copy", NULL},
	    {"netperf", "--io-uring", "-t", "TCP_RR", "--rate", "100", NULL},
	    {"netperf", "--io-uring", "-t", "TCP_RR", "--timestamps", NULL},
	    {"netperf", "--io-uring", "-N", "-t", "TCP_RR", NULL},
	    {"netperf", "--io-uring", "--streams", "4", "--threads", "2", NULL},
	};
	static const char *const why[] = {
	    "applies to", "applies to",	    "--batch", "--udp-gso",
	    "-V",	  "--skip-rx-copy", "--rate",  "--timestamps",
	    "-N",	  "--threads",
	};
	struct netperf_opts *o;
	char err[ERR_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = 0;

		while (bad[i][argc] != NULL)
			argc++;
		o = calloc(1, sizeof(*o));
		ck_assert_ptr_nonnull(o);
		ck_assert_msg(cli_netperf_parse(argc, (char **)bad[i], o, err) <
				  0,
			      "case %zu passed", i);
		ck_assert_msg(strstr(err, why[i]) != NULL &&
				  strchr(err, '\n') == NULL,
			      "case %zu: %s", i, err);
		free(o);
	}
}
END_TEST

/* Runs netperf against the netserver on port with opts, --json; returns
 * the document (the caller frees it), failing unless it exits 0. */
static json_t *
run_json_at(const char *port, const char *const *opts, struct harness_out *o)
{
	const char *args[32] = {"-H", "127.0.0.1", "-p", port, "--json"};
	int n = 5;
	json_t *doc;

	for (; *opts != NULL && n < 30; opts++)
		args[n++] = *opts;
	args[n] = NULL;
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
	ck_assert_msg(o->status == 0, "netperf exit %d: %s", o->status, o->err);
	doc = harness_json_parse(o->out);
	ck_assert_msg(doc != NULL, "no JSON: %s", o->out);
	return doc;
}

/* The same against the fixture netserver. */
static json_t *
run_json(const char *const *opts, struct harness_out *o)
{
	return run_json_at(harness_port, opts, o);
}

static const char *
str_at(json_t *doc, const char *path)
{
	const char *s = json_string_value(harness_json_at(doc, path));

	ck_assert_msg(s != NULL, "no %s", path);
	return s;
}

/* The kernel's count of one direction's TCP or UDP payload, what it sent
 * again taken off: --wire's counter. */
static double
wire(json_t *doc, const char *dir)
{
	char a[64], b[64];

	snprintf(a, sizeof(a), "local.wire.%s.payload", dir);
	snprintf(b, sizeof(b), "local.wire.%s.retrans_bytes", dir);
	return harness_json_num(doc, a) - harness_json_num(doc, b);
}

/*
 * Each of the four tests over io_uring, -c -C: both ends took the
 * io_uring row (the receive side the multishot one where the kernel has
 * it), the bytes each end counted are the other's and the kernel's
 * (TCP_MAERTS: the ends', since the capture starts after netserver's
 * first sends), both CPUs were measured, and the RR tests took one
 * io_uring_enter a transaction, not two.
 */
START_TEST(four_tests_count)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS",
					    "TCP_RR", "UDP_RR"};
	const char *test = tests[_i];
	const char *opts[] = {
	    "-t",	  test, "-l", "1",
	    "--io-uring", "-c", "-C", geteuid() == 0 ? "--wire" : NULL,
	    NULL};
	int maerts = _i == 1, rr = _i >= 2;
	struct harness_out *o;
	json_t *doc;
	double ls, lr, rs, rcv, trans;

	if (no_uring[0] != '\0') {
		harness_skip("%s over io_uring: %s", test, no_uring);
		return;
	}
	o = malloc(sizeof(*o));
	ck_assert_ptr_nonnull(o);
	doc = run_json(opts, o);
	ls = harness_json_num(doc, "local.counts.bytes_sent");
	lr = harness_json_num(doc, "local.counts.bytes_recv");
	rs = harness_json_num(doc, "remote.counts.bytes_sent");
	rcv = harness_json_num(doc, "remote.counts.bytes_recv");
	/* The paths: the sender's write row, the receiver's. */
	if (rr) {
		ck_assert_str_eq(str_at(doc, "local.counts.data_path"),
				 rx_path());
		ck_assert_str_eq(str_at(doc, "remote.counts.data_path"),
				 rx_path());
	} else {
		ck_assert_str_eq(str_at(doc, maerts ? "remote.counts.data_path"
						    : "local.counts.data_path"),
				 "io_uring");
		ck_assert_str_eq(str_at(doc, maerts
						 ? "local.counts.data_path"
						 : "remote.counts.data_path"),
				 rx_path());
	}
	/* What one end sent the other received, and some. */
	ck_assert_msg(ls == rcv && rs == lr, "%s: %.0f/%.0f, %.0f/%.0f", test,
		      ls, rcv, rs, lr);
	ck_assert_msg((maerts ? rs : ls) > 0, "%s moved nothing", test);
	if (geteuid() != 0 ||
	    !json_is_true(harness_json_at(doc, "local.wire.captured"))) {
		harness_skip("%s: the kernel's count (--wire) needs root",
			     test);
	} else if (!maerts) {
		ck_assert_msg(wire(doc, "out") == ls && wire(doc, "in") == lr,
			      "%s: the kernel carried %.0f and %.0f bytes, "
			      "netperf counted %.0f and %.0f",
			      test, wire(doc, "out"), wire(doc, "in"), ls, lr);
	}
	ck_assert_msg(harness_json_num(doc, "local.cpu.util") > 0 &&
			  harness_json_num(doc, "remote.cpu.util") > 0,
		      "%s: -c -C measured no CPU", test);
	ck_assert_msg(
	    harness_json_num(doc, "result.local_service_demand") > 0 &&
		harness_json_num(doc, "result.remote_service_demand") > 0,
	    "%s: no service demand", test);
	if (rr) {
		trans = harness_json_num(doc, "local.counts.transactions");
		ck_assert_msg(
		    trans > 100 &&
			harness_json_num(doc, "local.counts.syscalls") >
			    0.5 * trans &&
			harness_json_num(doc, "local.counts.syscalls") <
			    1.5 * trans &&
			harness_json_num(doc, "remote.counts.syscalls") <
			    1.5 * trans,
		    "%s: %.0f transactions took %.0f and %.0f "
		    "io_uring_enter calls",
		    test, trans, harness_json_num(doc, "local.counts.syscalls"),
		    harness_json_num(doc, "remote.counts.syscalls"));
	}
	json_decref(doc);
	free(o);
}
END_TEST

/* A counted test: exactly the bytes asked for, each way, where a byte
 * too many or too few in a ring's accounting would show. */
START_TEST(counted_exact)
{
	const char *test = _i ? "TCP_MAERTS" : "TCP_STREAM";
	const char *opts[] = {"-t",	   test,	 "-l",
			      "-30000000", "--io-uring", NULL};
	struct harness_out *o;
	json_t *doc;

	if (no_uring[0] != '\0') {
		harness_skip("counted %s over io_uring: %s", test, no_uring);
		return;
	}
	o = malloc(sizeof(*o));
	ck_assert_ptr_nonnull(o);
	doc = run_json(opts, o);
	ck_assert_double_eq(
	    harness_json_num(doc, _i ? "remote.counts.bytes_sent"
				     : "local.counts.bytes_sent"),
	    30000000);
	ck_assert_double_eq(
	    harness_json_num(doc, _i ? "local.counts.bytes_recv"
				     : "remote.counts.bytes_recv"),
	    30000000);
	json_decref(doc);
	free(o);
}
END_TEST

/*
 * --zerocopy over io_uring: the sender (netperf for TCP_STREAM, netserver
 * for TCP_MAERTS) sends with SEND_ZC, every send's notice is counted
 * (copied ones among them: loopback copies), and the bytes are the
 * kernel's; -v 1 names IORING_OP_SEND_ZC.
 */
START_TEST(send_zc)
{
	const char *test = _i ? "TCP_MAERTS" : "TCP_STREAM";
	const char *side = _i ? "remote" : "local";
	const char *opts[] = {"-t",	    test,	  "-l", "1",
			      "--io-uring", "--zerocopy", NULL};
	const char *text[] = {"-H",	    "127.0.0.1",  "-p", harness_port,
			      "-t",	    test,	  "-l", "1",
			      "--io-uring", "--zerocopy", NULL};
	struct harness_out *o;
	char path[64];
	double calls, done, copied;
	json_t *doc;

	if (no_uring[0] != '\0') {
		harness_skip("SEND_ZC: %s", no_uring);
		return;
	}
	o = malloc(sizeof(*o));
	ck_assert_ptr_nonnull(o);
	if (!uring_caps()->send_zc) {
		/* The kernel lacks it: one line that says so. */
		const char *args[] = {
		    "-H", "127.0.0.1", "-p",	     harness_port, "-t", test,
		    "-l", "1",	       "--io-uring", "--zerocopy", NULL};

		ck_assert_int_eq(harness_netperf(args, 60, o), 0);
		ck_assert_int_ne(o->status, 0);
		ck_assert_msg(strstr(o->err, "SEND_ZC") != NULL, "%s", o->err);
		harness_skip("SEND_ZC: this kernel has none");
		free(o);
		return;
	}
	doc = run_json(opts, o);
	snprintf(path, sizeof(path), "%s.counts.data_path", side);
	ck_assert_str_eq(str_at(doc, path), "io_uring_sendzc");
	snprintf(path, sizeof(path), "%s.counts.send_calls", side);
	calls = harness_json_num(doc, path);
	snprintf(path, sizeof(path), "%s.counts.zerocopy_completions", side);
	done = harness_json_num(doc, path);
	snprintf(path, sizeof(path), "%s.counts.zerocopy_copied", side);
	copied = harness_json_num(doc, path);
	ck_assert_msg(calls > 0 && done == calls && copied <= done,
		      "%.0f sends, %.0f notices, %.0f copied", calls, done,
		      copied);
	ck_assert_double_eq(harness_json_num(doc, "local.counts.bytes_sent"),
			    harness_json_num(doc, "remote.counts.bytes_recv"));
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.bytes_sent"),
			    harness_json_num(doc, "local.counts.bytes_recv"));
	json_decref(doc);
	ck_assert_int_eq(harness_netperf(text, 60, o), 0);
	ck_assert_int_eq(o->status, 0);
	ck_assert_msg(strstr(o->out, "with IORING_OP_SEND_ZC") != NULL &&
			  strstr(o->out, "io_uring: netperf ") != NULL,
		      "%s", o->out);
	free(o);
}
END_TEST

/* Without the flag the RR tests take no path, and the bulk ones the
 * plain rows, as before. */
START_TEST(plain_unchanged)
{
	const char *rr[] = {"-t", "TCP_RR", "-l", "1", NULL};
	const char *bulk[] = {"-t", "TCP_STREAM", "-l", "1", NULL};
	struct harness_out *o = malloc(sizeof(*o));
	json_t *doc;

	ck_assert_ptr_nonnull(o);
	doc = run_json(rr, o);
	ck_assert_str_eq(str_at(doc, "local.counts.data_path"), "");
	ck_assert_str_eq(str_at(doc, "remote.counts.data_path"), "");
	json_decref(doc);
	doc = run_json(bulk, o);
	ck_assert_str_eq(str_at(doc, "local.counts.data_path"), "send");
	ck_assert_str_eq(str_at(doc, "remote.counts.data_path"), "recv");
	json_decref(doc);
	free(o);
}
END_TEST

/*
 * A kernel without multishot receive (NETPERF_TEST_URING_NO_MULTISHOT,
 * on both ends): every receiver takes the READ_FIXED row, named
 * io_uring, and counts as exactly: each end's bytes the other's, and a
 * counted test's the bytes asked for.
 */
START_TEST(single_shot_rows)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS",
					    "TCP_RR", "UDP_RR"};
	struct harness_server srv;
	struct harness_out *o;
	char port[16];
	json_t *doc;
	int udp;

	if (no_uring[0] != '\0') {
		harness_skip("io_uring's single-shot rows: %s", no_uring);
		return;
	}
	o = malloc(sizeof(*o));
	ck_assert_ptr_nonnull(o);
	setenv("NETPERF_TEST_URING_NO_MULTISHOT", "1", 1);
	ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
	snprintf(port, sizeof(port), "%d", srv.port);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *opts[] = {"-t", tests[i],	  "-l",
				      "1",  "--io-uring", NULL};

		doc = run_json_at(port, opts, o);
		ck_assert_msg(strcmp(str_at(doc, "local.counts.data_path"),
				     "io_uring") == 0 &&
				  strcmp(str_at(doc, "remote.counts.data_path"),
					 "io_uring") == 0,
			      "%s: %s and %s", tests[i],
			      str_at(doc, "local.counts.data_path"),
			      str_at(doc, "remote.counts.data_path"));
		/* UDP_RR's 1-byte messages: a request the network lost is
		 * not received, and an answer that came after netperf gave
		 * up on its request (a stall of either end, as on a loaded
		 * machine) is late, not received; every byte is one of
		 * these. */
		udp = strcmp(tests[i], "UDP_RR") == 0;
		ck_assert_double_eq(
		    harness_json_num(doc, "local.counts.bytes_sent"),
		    harness_json_num(doc, "remote.counts.bytes_recv") +
			(udp ? harness_json_num(doc, "result.lost_requests")
			     : 0));
		ck_assert_double_eq(
		    harness_json_num(doc, "remote.counts.bytes_sent"),
		    harness_json_num(doc, "local.counts.bytes_recv") +
			(udp ? harness_json_num(doc,
						"local.counts.late_answers") +
				   harness_json_num(doc,
						    "result.lost_responses")
			     : 0));
		ck_assert_msg(
		    harness_json_num(doc, "local.counts.bytes_sent") +
			    harness_json_num(doc, "remote.counts.bytes_sent") >
			0,
		    "%s moved nothing", tests[i]);
		json_decref(doc);
	}
	{
		const char *opts[] = {"-t",	   "TCP_MAERTS", "-l",
				      "-30000000", "--io-uring", NULL};

		doc = run_json_at(port, opts, o);
		ck_assert_double_eq(
		    harness_json_num(doc, "local.counts.bytes_recv"), 30000000);
		json_decref(doc);
	}
	unsetenv("NETPERF_TEST_URING_NO_MULTISHOT");
	ck_assert_int_eq(harness_server_stop(&srv), 0);
	free(o);
}
END_TEST

/*
 * A kernel without SEND_ZC (NETPERF_TEST_URING_NO_SEND_ZC) refuses
 * --io-uring --zerocopy in one line, on netperf's side (TCP_STREAM) and
 * on netserver's (TCP_MAERTS, netperf saying what netserver said).
 */
START_TEST(no_send_zc_refused)
{
	struct harness_server srv;
	struct harness_out *o;
	char port[16];

	if (no_uring[0] != '\0') {
		harness_skip("SEND_ZC's refusal: %s", no_uring);
		return;
	}
	o = malloc(sizeof(*o));
	ck_assert_ptr_nonnull(o);
	setenv("NETPERF_TEST_URING_NO_SEND_ZC", "1", 1);
	ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
	snprintf(port, sizeof(port), "%d", srv.port);
	for (int maerts = 0; maerts < 2; maerts++) {
		const char *args[] = {
		    "-H",	  "127.0.0.1",
		    "-p",	  port,
		    "-t",	  maerts ? "TCP_MAERTS" : "TCP_STREAM",
		    "-l",	  "1",
		    "--io-uring", "--zerocopy",
		    NULL};

		/* netperf itself has SEND_ZC for TCP_MAERTS: netserver's
		 * refusal is the one that shows. */
		if (maerts)
			unsetenv("NETPERF_TEST_URING_NO_SEND_ZC");
		ck_assert_int_eq(harness_netperf(args, 60, o), 0);
		ck_assert_msg(o->status != 0, "%s ran: %s", args[5], o->out);
		ck_assert_msg(
		    strstr(o->err, "--io-uring --zerocopy: this "
				   "kernel has no IORING_OP_SEND_ZC") != NULL &&
			strchr(o->err, '\n') == o->err + strlen(o->err) - 1,
		    "%s: %s", args[5], o->err);
	}
	unsetenv("NETPERF_TEST_URING_NO_SEND_ZC");
	ck_assert_int_eq(harness_server_stop(&srv), 0);
	free(o);
}
END_TEST

static Suite *
uring_suite(void)
{
	Suite *s = suite_create("uring");
	TCase *tc = tcase_create("unit");

	tcase_add_test(tc, table_rows);
	tcase_add_test(tc, request_and_ready);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);

	tc = tcase_create("loopback");
	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, four_tests_count, 0, 4);
	tcase_add_loop_test(tc, counted_exact, 0, 2);
	tcase_add_loop_test(tc, send_zc, 0, 2);
	tcase_add_test(tc, plain_unchanged);
	tcase_add_test(tc, single_shot_rows);
	tcase_add_test(tc, no_send_zc_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	const struct uring_caps *c = uring_caps();

	if (c->err != 0)
		snprintf(no_uring, sizeof(no_uring),
			 "this kernel refuses io_uring (%s)", strerror(c->err));
	else if (!c->fixed)
		snprintf(no_uring, sizeof(no_uring),
			 "this kernel's io_uring has no READ_FIXED");
	return harness_run(uring_suite());
}
