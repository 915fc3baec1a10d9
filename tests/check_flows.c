/*
 * Flows on threads (--streams N --threads T): ten thousand TCP_RR flows on
 * two threads each way, each of which must complete transactions, with
 * netserver's session within the memory its man page states a flow; the
 * bulk tests and UDP_RR as flows; and the usage errors, netperf's and
 * netserver's.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np/flows.h"
#include "harness.h"

/* A field of /proc/PID/status in kB, or -1. */
static long
status_kb(pid_t pid, const char *key)
{
	char path[64], buf[4096], *p;
	long v = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, key);
	if (p != NULL)
		v = strtol(p + strlen(key) + 1, NULL, 10);
	return v;
}

/*
 * Runs netperf with args, its stdout into out_path, and watches the
 * session child of s all along: its peak resident memory (VmHWM, the
 * largest seen; the child is gone once the test ends) into *hwm_kb.
 * Returns netperf's exit status, -1 when it had to be killed.
 */
static int
run_watched(struct harness_server *s, const char *const *args,
	    const char *out_path, double timeout, long *hwm_kb)
{
	const char *argv[64];
	double deadline = harness_now() + timeout;
	int n = 0, status;
	pid_t pid, kids[8];

	argv[n++] = NP_NETPERF;
	for (; *args != NULL && n < 63; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	*hwm_kb = -1;
	pid = fork();
	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		struct timespec ts = {0, 20000000};

		if (w == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (harness_now() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		for (int i = 0, k = harness_server_children(s, kids, 8); i < k;
		     i++) {
			long h = status_kb(kids[i], "VmHWM:");

			if (h > *hwm_kb)
				*hwm_kb = h;
		}
		nanosleep(&ts, NULL);
	}
}

/* The newlines in text: an error of one line has one. */
static int
newlines(const char *text)
{
	int n = 0;

	for (; *text != '\0'; text++)
		n += *text == '\n';
	return n;
}

/* The whole of a file, malloc'd (the caller frees it). */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* Runs netperf with args (which ask for -J) against harness_srv, watched
 * as run_watched does (netserver's peak into *hwm_kb), and returns its
 * JSON document, which the caller releases. */
static json_t *
run_json(const char *const *args, double timeout, long *hwm_kb)
{
	char path[64], *text;
	json_t *doc;

	snprintf(path, sizeof(path), "/tmp/check_flows.%d.json", (int)getpid());
	ck_assert_int_eq(run_watched(&harness_srv, args, path, timeout, hwm_kb),
			 0);
	text = slurp(path);
	unlink(path);
	doc = harness_json_parse(text);
	free(text);
	ck_assert_ptr_nonnull(doc);
	return doc;
}

/* The sum of field over doc's n streams, each of which must be at least
 * least (what names the test in a failure); and it must be the total at
 * total, the document's own sum. */
static double
streams_sum(json_t *doc, size_t n, const char *field, double least,
	    const char *total, const char *what)
{
	json_t *streams = harness_json_at(doc, "streams");
	double sum = 0;

	ck_assert_ptr_nonnull(streams);
	ck_assert_int_eq(json_array_size(streams), n);
	for (size_t i = 0; i < n; i++) {
		double v = harness_json_num(json_array_get(streams, i), field);

		ck_assert_msg(v >= least, "%s: stream %zu's %s is %g", what, i,
			      field, v);
		sum += v;
	}
	ck_assert_msg(fabs(sum - harness_json_num(doc, total)) < 0.5,
		      "%s: the streams' %s add up to %g, %s is %g", what, field,
		      sum, total, harness_json_num(doc, total));
	return sum;
}

/*
 * The ground truth: TCP_RR with 10 000 flows on 2 threads for
 * 3 s. Every flow completes a transaction at least, by its own count in
 * the JSON; the flows took their set-up time apart from the interval;
 * and netserver's session grew, from 64 flows to 10 000, by no more than
 * the FLOWS_MEM_PER_FLOW a flow that netserver(8) states.
 */
START_TEST(ten_thousand_flows)
{
	const char *small[] = {
	    "-H", "127.0.0.1", "-p", harness_port, "-t", "TCP_RR", "-l",
	    "1",  "--streams", "64", "--threads",  "2",	 NULL};
	const char *big[] = {
	    "-H", "127.0.0.1", "-p",	harness_port, "-t", "TCP_RR", "-l",
	    "3",  "--streams", "10000", "--threads",  "2",  "-J",     NULL};
	char path[64];
	long hwm64, hwm, parent = status_kb(harness_srv.pid, "VmRSS:");
	json_t *doc;

	if (flows_nofile(10000 + FLOWS_FD_SLACK, NULL) < 0)
		harness_skip("ten_thousand_flows: RLIMIT_NOFILE's hard limit "
			     "is under 10064 descriptors");
	snprintf(path, sizeof(path), "/tmp/check_flows.%d.json", (int)getpid());
	ck_assert_int_eq(run_watched(&harness_srv, small, path, 30, &hwm64), 0);
	unlink(path);
	doc = run_json(big, 60, &hwm);
	/* Every flow completed a transaction, the flows are the sum, and
	 * the set-up time is apart from it. */
	streams_sum(doc, 10000, "local.transactions", 1,
		    "local.counts.transactions", "TCP_RR");
	ck_assert(harness_json_num(doc, "flows.setup_seconds") > 0);
	ck_assert(harness_json_num(doc, "flows.threads") == 2);
	ck_assert(harness_json_num(doc, "flows.min") > 0);
	ck_assert(harness_json_num(doc, "flows.jain") > 0.5);
	json_decref(doc);
	/* Seen at all, and within the stated memory a flow. */
	ck_assert_msg(hwm64 > 0 && hwm > 0, "no session child seen (%ld, %ld)",
		      hwm64, hwm);
	ck_assert_msg((hwm - hwm64) * 1024 <=
			  (long)(10000 - 64) * FLOWS_MEM_PER_FLOW,
		      "netserver's session grew by %ld kB for 9936 more flows, "
		      "over %d bytes a flow",
		      hwm - hwm64, FLOWS_MEM_PER_FLOW);
	/* And within its --max-session-memory (256 MiB) over the daemon. */
	ck_assert_msg(hwm - parent <= 256 * 1024, "session at %ld kB", hwm);
}
END_TEST

/* TCP_STREAM and TCP_MAERTS as flows: every flow moves data, and the
 * flows add up to the headline. */
START_TEST(bulk_flows)
{
	const char *tests[] = {"TCP_STREAM", "TCP_MAERTS"};

	for (int k = 0; k < 2; k++) {
		const char *args[] = {
		    "-H",	 "127.0.0.1", "-p", harness_port, "-t",
		    tests[k],	 "-l",	      "1",  "--streams",  "300",
		    "--threads", "2",	      "-J", NULL};
		const char *key = k == 0 ? "bytes_sent" : "bytes_recv";
		char fkey[64], sumkey[64];
		json_t *doc;
		long hwm;

		snprintf(fkey, sizeof(fkey), "local.%s", key);
		snprintf(sumkey, sizeof(sumkey), "local.counts.%s", key);
		doc = run_json(args, 30, &hwm);
		/* Every flow moved a byte at least. */
		streams_sum(doc, 300, fkey, 1, sumkey, tests[k]);
		json_decref(doc);
	}
}
END_TEST

/* UDP_RR as flows: 2000 flows on 2 threads, each answered, none lost on
 * loopback, and the flows add up to the sum. */
START_TEST(udp_rr_flows)
{
	const char *args[] = {
	    "-H", "127.0.0.1", "-p",   harness_port, "-t", "UDP_RR", "-l",
	    "2",  "--streams", "2000", "--threads",  "2",  "-J",     NULL};
	json_t *doc;
	long hwm;

	doc = run_json(args, 60, &hwm);
	streams_sum(doc, 2000, "local.transactions", 1,
		    "local.counts.transactions", "UDP_RR");
	ck_assert(harness_json_num(doc, "local.counts.lost") == 0);
	json_decref(doc);
}
END_TEST

/* TCP_CRR and UDP_CRR as flows: 200 flows on 2 threads, a connection (or
 * a socket) a transaction, each flow's transactions done and counted, none
 * in error, and the flows add up to the sum. */
START_TEST(crr_flows)
{
	const char *tests[] = {"TCP_CRR", "UDP_CRR"};

	for (int k = 0; k < 2; k++) {
		const char *args[] = {
		    "-H",	 "127.0.0.1", "-p", harness_port, "-t",
		    tests[k],	 "-l",	      "2",  "--streams",  "200",
		    "--threads", "2",	      "-J", NULL};
		json_t *doc;
		double total;
		long hwm;

		doc = run_json(args, 40, &hwm);
		ck_assert(harness_json_num(doc, "flows.threads") == 2);
		total = streams_sum(doc, 200, "local.transactions", 1,
				    "local.counts.transactions", tests[k]);
		ck_assert_msg(total > 1000, "%s: %g transactions", tests[k],
			      total);
		ck_assert_msg(harness_json_num(doc, "local.counts.connection_errors") ==
				  0,
			      "%s: %g connection errors", tests[k],
			      harness_json_num(doc, "local.counts.connection_errors"));
		json_decref(doc);
	}
}
END_TEST

/* A thread a stream at 64 streams: netserver's results, a record a
 * stream, are over the 64 KiB of every other message (67 KB here), and
 * arrive whole, each stream's remote figures its own. */
START_TEST(thread_each_64)
{
	const char *args[] = {"-H", "127.0.0.1", "-p",	      harness_port,
			      "-t", "TCP_RR",	 "-l",	      "1",
			      "-J", "--streams", "64",	      "--threads",
			      "64", NULL};
	json_t *doc;
	long hwm;

	doc = run_json(args, 60, &hwm);
	/* Each stream's remote figures its own: netserver counted each. */
	streams_sum(doc, 64, "remote.transactions", 1,
		    "remote.counts.transactions", "TCP_RR, a thread each");
	json_decref(doc);
}
END_TEST

/* Count-limited (-l -N): every flow makes its N transactions and ends,
 * over TCP and UDP alike. */
START_TEST(counted_flows)
{
	const char *tests[] = {"TCP_RR", "UDP_RR"};

	for (int k = 0; k < 2; k++) {
		const char *args[] = {
		    "-H",	 "127.0.0.1", "-p",  harness_port, "-t",
		    tests[k],	 "-l",	      "-50", "--streams",  "300",
		    "--threads", "2",	      "-J",  NULL};
		json_t *doc;
		long hwm;

		doc = run_json(args, 30, &hwm);
		ck_assert_msg(
		    harness_json_num(doc, "local.counts.transactions") ==
			300 * 50,
		    "%s: %g transactions", tests[k],
		    harness_json_num(doc, "local.counts.transactions"));
		json_decref(doc);
	}
}
END_TEST

/* Bad values: one line each, status 2. */
START_TEST(usage_errors)
{
	static const struct {
		const char *args[4];
		const char *err;
	} bad[] = {
	    {{"--threads", "0", "--streams", "4"}, "netperf: --threads: "},
	    {{"--threads", "5", "--streams", "2"},
	     "netperf: --threads 5: more threads than the 2 streams\n"},
	    {{"--streams", "2000", "--threads", "2000"},
	     "netperf: --streams 2000 on a thread each: at most 1024; give "
	     "--threads\n"},
	};
	struct harness_out *o = malloc(sizeof(*o));

	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = {"-H",
				      "127.0.0.1",
				      "-p",
				      harness_port,
				      "-t",
				      "TCP_RR",
				      bad[i].args[0],
				      bad[i].args[1],
				      bad[i].args[2],
				      bad[i].args[3],
				      NULL};

		ck_assert_int_eq(harness_netperf(args, 10, o), 0);
		ck_assert_int_eq(o->status, 2);
		ck_assert_msg(
		    strncmp(o->err, bad[i].err, strlen(bad[i].err)) == 0,
		    "%s %s: \"%s\"", bad[i].args[0], bad[i].args[1], o->err);
		ck_assert_int_eq(newlines(o->err), 1);
	}
	free(o);
}
END_TEST

/* More flows than a process may open: netperf says so with the limit
 * (status 2), and netserver, whose limit is lower, refuses in one line. */
START_TEST(open_file_limit)
{
	const char *args[] = {
	    "-H", "127.0.0.1", "-p",   harness_port, "-t", "TCP_RR", "-l",
	    "1",  "--streams", "3000", "--threads",  "2",  NULL};
	struct rlimit low = {1000, 1000};
	struct harness_out *o = malloc(sizeof(*o));

	ck_assert_ptr_nonnull(o);
	/* netserver's own limit lowered under it: it refuses the test. */
	ck_assert_int_eq(prlimit(harness_srv.pid, RLIMIT_NOFILE, &low, NULL),
			 0);
	ck_assert_int_eq(harness_netperf(args, 20, o), 0);
	ck_assert_msg(o->status != 0, "netserver took 3000 flows at 1000 fds");
	ck_assert_msg(strstr(o->err, "limit of 1000 (RLIMIT_NOFILE)") != NULL,
		      "\"%s\"", o->err);
	ck_assert_int_eq(newlines(o->err), 1);
	/* This process's (a test's own: Check forks one each), which the
	 * netperf it starts inherits. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	ck_assert_int_eq(harness_netperf(args, 20, o), 0);
	ck_assert_int_eq(o->status, 2);
	ck_assert_str_eq(o->err, "netperf: 3000 streams need 3064 open files, "
				 "over this process's limit of 1000 "
				 "(RLIMIT_NOFILE)\n");
	free(o);
}
END_TEST

static Suite *
flows_suite(void)
{
	Suite *s = suite_create("flows");
	TCase *tc = tcase_create("flows");

	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, ten_thousand_flows);
	tcase_add_test(tc, bulk_flows);
	tcase_add_test(tc, udp_rr_flows);
	tcase_add_test(tc, counted_flows);
	tcase_add_test(tc, crr_flows);
	tcase_add_test(tc, thread_each_64);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, open_file_limit);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(flows_suite());
}
