/*
 * netperf 2.7's control protocol against the real thing: Debian's netperf
 * 2.7.0 (scripts/refnetperf, unpacked into the build tree). Our netperf
 * runs the six tests against its netserver; its netperf runs them against
 * our netserver --legacy. Counts are checked across the two sides (what
 * one sent the other received), figures against the same test run
 * natively, and hostile 2.7 messages against a daemon that must go on
 * serving. Skips (77) only when the reference cannot be had.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "legacy.h"

static char ref_bin[1024]; /* the directory of 2.7's two binaries */

/* Unpacks the reference once, before forking any test; 77 when it
 * cannot be had. */
static int
find_reference(void)
{
	const char *argv[] = {"sh", NP_REFNETPERF, NP_REF_DIR, NULL};
	char err[4096];
	char *out = NULL;
	int rc;

	rc = harness_exec_capture(argv, 600, &out, err, sizeof(err));
	if (rc == 0 && out != NULL) {
		out[strcspn(out, "\n")] = '\0';
		snprintf(ref_bin, sizeof(ref_bin), "%s", out);
	}
	free(out);
	if (rc != 0)
		fprintf(stderr, "check_interop: no reference netperf 2.7: %s",
			err);
	return rc;
}

/* Starts the reference netserver on a free loopback port with extra
 * arguments (or NULL); returns 0, or -1. */
static int
ref_server_start(struct harness_server *s, const char *extra1,
		 const char *extra2)
{
	char path[1100], port[16], line[512];
	double deadline;
	FILE *f;
	int fd;

	memset(s, 0, sizeof(*s));
	s->port = harness_free_port();
	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(path, sizeof(path), "%s/netserver", ref_bin);
	snprintf(s->log, sizeof(s->log), "/tmp/np-ref-XXXXXX");
	fd = mkstemp(s->log);
	if (fd < 0)
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execl(path, path, "-D", "-L", "127.0.0.1,inet", "-p", port,
		      extra1, extra2, (char *)NULL);
		_exit(127);
	}
	close(fd);
	deadline = harness_now() + 5;
	while (harness_now() < deadline) {
		f = fopen(s->log, "r");
		if (f != NULL) {
			while (fgets(line, sizeof(line), f) != NULL)
				if (strstr(line, "Starting netserver") !=
				    NULL) {
					fclose(f);
					return 0;
				}
			fclose(f);
		}
		usleep(20000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	return -1;
}

static void
ref_server_stop(struct harness_server *s)
{
	kill(s->pid, SIGTERM);
	harness_wait_status(s->pid, harness_now() + 5);
	unlink(s->log);
}

/* Our netperf --legacy --json against port; returns the document, with
 * the run's output in o. */
static json_t *
run_legacy_json(int port, const char *test, const char *extra,
		struct harness_out *o)
{
	char port_text[16];
	const char *args[16];
	int n = 0;

	snprintf(port_text, sizeof(port_text), "%d", port);
	args[n++] = "--legacy";
	args[n++] = "-H";
	args[n++] = "127.0.0.1";
	args[n++] = "-p";
	args[n++] = port_text;
	args[n++] = "-t";
	args[n++] = test;
	args[n++] = "-l";
	args[n++] = "1";
	args[n++] = "-C";
	args[n++] = "--json";
	if (extra != NULL) {
		args[n++] = "--";
		args[n++] = extra;
	}
	args[n] = NULL;
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
	ck_assert_msg(o->status == 0, "%s failed: %s", test, o->err);
	return harness_json_parse(o->out);
}

static struct harness_out out;

/* The six tests with 2.7's netserver: what one side counted, the other
 * must have counted too. */
START_TEST(ours_to_ref_six)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS",
					    "TCP_RR",	  "TCP_CRR",
					    "UDP_STREAM", "UDP_RR"};
	struct harness_server ref;
	const char *t = tests[_i];
	json_t *doc, *na;
	double ls, lr, rs, rr, lt, rt, util;

	ck_assert_int_eq(ref_server_start(&ref, NULL, NULL), 0);
	doc = run_legacy_json(ref.port, t, NULL, &out);
	ref_server_stop(&ref);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(
	    json_string_value(harness_json_at(doc, "remote.protocol")),
	    "netperf 2.7");
	/* What the old server cannot give is named, not invented. */
	na = harness_json_at(doc, "remote.unavailable");
	ck_assert_ptr_nonnull(na);
	ck_assert_int_ge(json_array_size(na), 4);
	ck_assert_ptr_null(harness_json_at(doc, "remote.counts.mss"));
	ls = harness_json_num(doc, "local.counts.bytes_sent");
	lr = harness_json_num(doc, "local.counts.bytes_recv");
	rs = harness_json_num(doc, "remote.counts.bytes_sent");
	rr = harness_json_num(doc, "remote.counts.bytes_recv");
	lt = harness_json_num(doc, "local.counts.transactions");
	rt = harness_json_num(doc, "remote.counts.transactions");
	if (strcmp(t, "TCP_STREAM") == 0) {
		ck_assert_double_gt(ls, 1e6);
		ck_assert_double_eq(rr, ls);
	} else if (strcmp(t, "TCP_MAERTS") == 0) {
		ck_assert_double_gt(rs, 1e6);
		ck_assert_double_eq(lr, rs);
	} else if (strcmp(t, "UDP_STREAM") == 0) {
		ck_assert_double_gt(rr, 0);
		ck_assert_double_le(rr, ls);
	} else if (strcmp(t, "UDP_RR") == 0) {
		ck_assert_double_gt(lt, 10);
		ck_assert_double_ge(rt, lt);
	} else {
		ck_assert_double_gt(lt, 10);
		ck_assert_double_eq(rt, lt);
		ck_assert_double_eq(rr, ls);
		ck_assert_double_eq(rs, lr);
	}
	util = harness_json_num(doc, "remote.cpu.util");
	/* 2.7's netserver takes its padded timer off TCP_CRR's elapsed time
	 * but not off its CPU time, so its utilisation there can pass 100. */
	ck_assert_msg(util > 0 && (util <= 100 || strcmp(t, "TCP_CRR") == 0),
		      "%s: remote util %g", t, util);
	ck_assert_double_gt(harness_json_num(doc, "result.throughput"), 0);
	json_decref(doc);
}
END_TEST

/* The same test natively and with 2.7's netserver, on one loopback:
 * within a plausible ratio of each other. */
START_TEST(ours_to_ref_vs_native)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_RR"};
	struct harness_server ref, srv;
	double legacy, native;
	json_t *doc;

	ck_assert_int_eq(ref_server_start(&ref, NULL, NULL), 0);
	doc = run_legacy_json(ref.port, tests[_i], NULL, &out);
	ref_server_stop(&ref);
	ck_assert_ptr_nonnull(doc);
	legacy = harness_json_num(doc, "result.throughput");
	json_decref(doc);
	{
		char port_text[16];
		const char *args[] = {"-H",	   "127.0.0.1", "-p", port_text,
				      "-t",	   tests[_i],	"-l", "1",
				      "--json", NULL};

		ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
		snprintf(port_text, sizeof(port_text), "%d", srv.port);
		ck_assert_int_eq(harness_netperf(args, 60, &out), 0);
		harness_server_stop(&srv);
		ck_assert_msg(out.status == 0, "%s", out.err);
	}
	doc = harness_json_parse(out.out);
	ck_assert_ptr_nonnull(doc);
	native = harness_json_num(doc, "result.throughput");
	json_decref(doc);
	ck_assert_msg(legacy > native / 5 && legacy < native * 5,
		      "%s: %g with 2.7's netserver, %g natively", tests[_i],
		      legacy, native);
}
END_TEST

/* Without --legacy: our hello gets no answer from 2.7's netserver, and
 * netperf says so and speaks 2.7's protocol. */
START_TEST(ours_to_ref_detected)
{
	struct harness_server ref;
	char port_text[16];
	const char *args[] = {"-H", "127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l", "1", "-P", "0", NULL};
	double v[8];

	ck_assert_int_eq(ref_server_start(&ref, NULL, NULL), 0);
	snprintf(port_text, sizeof(port_text), "%d", ref.port);
	ck_assert_int_eq(harness_netperf(args, 60, &out), 0);
	ref_server_stop(&ref);
	ck_assert_msg(out.status == 0, "%s", out.err);
	ck_assert_ptr_nonnull(strstr(out.err, "netperf 2.7's protocol"));
	ck_assert_int_ge(harness_line_numbers(out.out, v, 6), 6);
	ck_assert_double_gt(v[5], 10); /* transactions per second */
}
END_TEST

/* -Z: the plaintext passphrase 2.7's netserver -Z wants first. */
START_TEST(ours_to_ref_passphrase)
{
	struct harness_server ref;
	char port_text[16];
	const char *good[] = {"--legacy", "-H", "127.0.0.1", "-p", port_text,
			      "-t", "TCP_RR", "-l", "1", "-Z", "s3cret", NULL};
	const char *bad[] = {"--legacy", "-H", "127.0.0.1", "-p", port_text,
			     "-t", "TCP_RR", "-l", "1", "-Z", "wrong", NULL};
	const char *none[] = {"--legacy", "-H",	    "127.0.0.1", "-p",
			      port_text,  "-t",	    "TCP_RR",	 "-l",
			      "1",	  NULL};

	ck_assert_int_eq(ref_server_start(&ref, "-Z", "s3cret"), 0);
	snprintf(port_text, sizeof(port_text), "%d", ref.port);
	ck_assert_int_eq(harness_netperf(good, 60, &out), 0);
	ck_assert_msg(out.status == 0, "%s", out.err);
	ck_assert_int_eq(harness_netperf(bad, 60, &out), 0);
	ck_assert_int_ne(out.status, 0);
	ck_assert_ptr_nonnull(strstr(out.err, "passphrase"));
	/* The netserver waits 20 s for a passphrase that never comes. */
	ck_assert_int_eq(harness_netperf(none, 60, &out), 0);
	ck_assert_int_ne(out.status, 0);
	ref_server_stop(&ref);
}
END_TEST

/* What 2.7's protocol cannot carry is refused with a reason. */
START_TEST(ours_to_ref_refused)
{
	static const char *const extra[][2] = {
	    {"--streams", "2"}, {"--wire", NULL}, {"-T", "0,core:0"}};
	static const char *const want[] = {"--streams", "--wire", "-T"};
	struct harness_server ref;
	char port_text[16];
	const char *args[] = {"--legacy", "-H", "127.0.0.1", "-p", port_text,
			      "-t", "TCP_STREAM", "-l", "1", extra[_i][0],
			      extra[_i][1], NULL};

	ck_assert_int_eq(ref_server_start(&ref, NULL, NULL), 0);
	snprintf(port_text, sizeof(port_text), "%d", ref.port);
	ck_assert_int_eq(harness_netperf(args, 30, &out), 0);
	ref_server_stop(&ref);
	ck_assert_int_ne(out.status, 0);
	ck_assert_msg(strstr(out.err, want[_i]) != NULL, "%s", out.err);
}
END_TEST

static Suite *
interop_suite(void)
{
	Suite *s = suite_create("interop");
	TCase *tc = tcase_create("ours to 2.7");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, ours_to_ref_six, 0, 6);
	tcase_add_loop_test(tc, ours_to_ref_vs_native, 0, 2);
	tcase_add_test(tc, ours_to_ref_detected);
	tcase_add_test(tc, ours_to_ref_passphrase);
	tcase_add_loop_test(tc, ours_to_ref_refused, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int rc = find_reference();

	if (rc != 0)
		return rc == 77 ? 77 : 1;
	return harness_run(interop_suite());
}
