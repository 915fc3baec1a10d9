/*
 * netperf 2.7's Unix domain socket tests (STREAM_STREAM, STREAM_RR,
 * DG_STREAM, DG_RR; lib/transport_unix.c) against a real netserver: both
 * ends count the same, netserver's socket directory is private (0700, its
 * own) and gone after each test, a killed netperf included, a data host
 * of another machine is one line, and the check of the directory a ready
 * names refuses what netserver would never make.
 */
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "np/err.h"
#include "np/transport.h"

/* The runtime directory the suite gives netserver and netperf
 * ($XDG_RUNTIME_DIR), where netserver makes its socket directories. */
static char rundir[64];

/* The first netserver-* entry in rundir into path; 1 when there is one. */
static int
sock_dir(char *path, size_t cap)
{
	DIR *d = opendir(rundir);
	struct dirent *e;
	int found = 0;

	ck_assert_ptr_nonnull(d);
	while (!found && (e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "netserver-", 10) == 0) {
			snprintf(path, cap, "%s/%.32s", rundir, e->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

/* Waits up to timeout seconds for rundir to hold no socket directory;
 * 1 when it holds none. */
static int
sock_dir_gone(double timeout)
{
	double end = harness_now() + timeout;
	char path[128];

	while (sock_dir(path, sizeof(path))) {
		if (harness_now() > end)
			return 0;
		usleep(20000);
	}
	return 1;
}

/* Whether text is one line that holds needle. */
static int
one_line(const char *text, const char *needle)
{
	const char *nl = strchr(text, '\n');

	return strstr(text, needle) != NULL && nl != NULL && nl[1] == '\0';
}

START_TEST(dir_checker)
{
	static const char *const good[] = {"/tmp/netserver-AbC123",
					   "/run/user/1000/netserver-abcdef"};
	static const char *const bad[] = {
	    "tmp/netserver-abcdef",	    /* relative */
	    "netserver-abcdef",		    /* relative */
	    "/tmp/../tmp/netserver-abcdef", /* .. */
	    "/tmp/netserver-abcdef/..",	    /* .. */
	    "/tmp/./netserver-abcdef",	    /* . */
	    "/tmp//netserver-abcdef",	    /* empty component */
	    "/etc/netserver-abcdef",	    /* outside the prefixes */
	    "/run/user/x/netserver-abcdef", /* not a uid */
	    "/netserver-abcdef",	    /* outside the prefixes */
	    "/tmp/netserver-abc",	    /* not mkdtemp's name */
	    "/tmp/netserver-abc/de",	    /* a path inside */
	    "/tmp/netserver-abcd.f",	    /* not mkdtemp's letters */
	    "/tmp/evil-abcdef",		    /* not netserver's name */
	    "/tmp/netserver-abcdef/",	    /* empty last component */
	    "/run/user/1000/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/netserver-abcdef",
	    ""};
	char err[ERR_LEN];

	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(transport_unix_dir_ok(good[i], err) == 0,
			      "%s: %s", good[i], err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(transport_unix_dir_ok(bad[i], err) < 0,
			      "accepted \"%s\"", bad[i]);
		ck_assert_msg(err[0] != '\0' && strchr(err, '\n') == NULL,
			      "%s: \"%s\"", bad[i], err);
	}
	setenv("XDG_RUNTIME_DIR", rundir, 1);
}
END_TEST

/* Each test with -c -C and --json: both ends count what crossed, the
 * service demands are there, and the socket directory is gone after. */
START_TEST(four_tests)
{
	static const char *const tests[] = {"STREAM_STREAM", "STREAM_RR",
					    "DG_STREAM", "DG_RR"};
	struct harness_out *o = malloc(sizeof(*o));

	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *args[] = {"-H", "127.0.0.1", "-p",	   harness_port,
				      "-l", "1",	 "-t",	   tests[i],
				      "-c", "-C",	 "--json", NULL};
		int rr = strstr(tests[i], "_RR") != NULL;
		double sent, got;
		json_t *doc;

		ck_assert_int_eq(harness_netperf(args, 60, o), 0);
		ck_assert_msg(o->status == 0, "%s: %s", tests[i], o->err);
		doc = harness_json_parse(o->out);
		ck_assert_ptr_nonnull(doc);
		ck_assert_str_eq(
		    json_string_value(harness_json_at(doc, "test")), tests[i]);
		ck_assert_str_eq(
		    json_string_value(harness_json_at(doc, "protocol")),
		    "UNIX");
		if (rr) {
			sent =
			    harness_json_num(doc, "local.counts.transactions");
			got =
			    harness_json_num(doc, "remote.counts.transactions");
			/* The last answer may be on its way at the end. */
			ck_assert_msg(
			    sent > 100 && got >= sent && got <= sent + 1,
			    "%s: %g and %g transactions", tests[i], sent, got);
		} else {
			sent = harness_json_num(doc, "local.counts.bytes_sent");
			got = harness_json_num(doc, "remote.counts.bytes_recv");
			/* A datagram test holds to the receiver's count,
			 * which cannot exceed what was sent; a stream's
			 * agree. */
			ck_assert_msg(got > 0 && got <= sent &&
					  (tests[i][0] == 'D' || got == sent),
				      "%s: sent %g, received %g", tests[i],
				      sent, got);
			ck_assert_double_eq_tol(
			    harness_json_num(doc, "result.throughput") * 1e6 /
				8 * harness_json_num(doc, "result.elapsed_s"),
			    got, got * 0.02);
		}
		ck_assert_msg(harness_json_num(doc, "result.local_service_"
						    "demand") > 0 &&
				  harness_json_num(doc, "result.remote_service_"
							"demand") > 0,
			      "%s: no service demand: %s", tests[i], o->out);
		json_decref(doc);
		ck_assert_msg(sock_dir_gone(5), "%s left its socket directory",
			      tests[i]);
	}
	free(o);
}
END_TEST

/* While a test runs its directory is netserver's own, 0700; a netperf
 * killed mid-test, or a session child sent SIGTERM, leaves none behind. A
 * datagram test's file goes as its socket is connected, so its directory may be
 * gone already. */
START_TEST(private_dir_killed)
{
	static const char *const tests[] = {"STREAM_STREAM", "STREAM_RR",
					    "DG_STREAM"};

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *args[] = {"-H",	    "127.0.0.1", "-p",
				      harness_port, "-l",	 "10",
				      "-t",	    tests[i],	 NULL};
		pid_t pid = harness_netperf_spawn(args);
		double end = harness_now() + 5;
		char path[128], file[160];
		struct stat st;
		int found;

		ck_assert_int_gt(pid, 0);
		while (!(found = sock_dir(path, sizeof(path))) &&
		       harness_now() < end)
			usleep(5000);
		ck_assert_msg(found || tests[i][0] == 'D',
			      "%s: no socket directory in %s", tests[i],
			      rundir);
		if (found && lstat(path, &st) == 0) {
			ck_assert_msg(S_ISDIR(st.st_mode) &&
					  (st.st_mode & 0777) == 0700,
				      "%s: %s is %o", tests[i], path,
				      (unsigned)st.st_mode);
			ck_assert_int_eq(st.st_uid, geteuid());
		}
		/* netserver's socket file: named by the port it gave. */
		snprintf(file, sizeof(file), "%.128s/1", path);
		if (found && lstat(file, &st) == 0)
			ck_assert(S_ISSOCK(st.st_mode));
		usleep(500000);
		/* STREAM_RR: the session is cut by SIGTERM to its child
		 * instead, as netserver's own stop does it. */
		if (strcmp(tests[i], "STREAM_RR") == 0) {
			pid_t kids[8];

			ck_assert_int_eq(
			    harness_server_children(&harness_srv, kids, 8), 1);
			kill(kids[0], SIGTERM);
		} else {
			kill(pid, SIGKILL);
		}
		harness_wait_status(pid, harness_now() + 10);
		ck_assert_msg(sock_dir_gone(10),
			      "%s: %s stayed after its session ended", tests[i],
			      path);
	}
}
END_TEST

/* A data host that is not this host's is refused before the test, in
 * one line. */
START_TEST(other_host_refused)
{
	struct harness_out *o = malloc(sizeof(*o));
	const char *args[] = {"-H", "127.0.0.1", "-p",	      harness_port,
			      "-l", "1",	 "-t",	      "STREAM_RR",
			      "--", "-H",	 "192.0.2.1", NULL};

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	ck_assert_int_ne(o->status, 0);
	ck_assert_msg(one_line(o->err, "this host only"), "%s", o->err);
	args[7] = "DG_STREAM";
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	ck_assert_int_ne(o->status, 0);
	ck_assert_msg(one_line(o->err, "this host only"), "%s", o->err);
	ck_assert(sock_dir_gone(5));
	free(o);
}
END_TEST

/* 2.7's -p dirspec names where netserver would make its files: refused,
 * exit 2, in one line, and nothing made there. */
START_TEST(path_prefix_refused)
{
	struct harness_out *o = malloc(sizeof(*o));
	const char *args[] = {"-H", "127.0.0.1", "-p",	 harness_port,
			      "-l", "1",	 "-t",	 "STREAM_STREAM",
			      "--", "-p",	 rundir, NULL};

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	ck_assert_int_eq(o->status, 2);
	ck_assert_msg(one_line(o->err, "private directory"), "%s", o->err);
	ck_assert(sock_dir_gone(0));
	free(o);
}
END_TEST

static Suite *
unix_suite(void)
{
	Suite *s = suite_create("unix");
	TCase *tc = tcase_create("unit");

	tcase_add_test(tc, dir_checker);
	suite_add_tcase(s, tc);
	tc = tcase_create("loopback");
	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, four_tests);
	tcase_add_test(tc, private_dir_killed);
	tcase_add_test(tc, other_host_refused);
	tcase_add_test(tc, path_prefix_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int rc;

	/* netserver and netperf both take it: netserver makes its
	 * directories here, netperf takes it as a prefix. */
	snprintf(rundir, sizeof(rundir), "/tmp/npunix-XXXXXX");
	if (mkdtemp(rundir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	setenv("XDG_RUNTIME_DIR", rundir, 1);
	rc = harness_run(unix_suite());
	rmdir(rundir);
	return rc;
}
