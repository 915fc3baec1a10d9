/*
 * End to end: a real netserver on a free loopback port, the real netperf
 * binary against it, and the bad-input cases a user meets.
 * A check that cannot run here says why (harness_skip), on a line of
 * its own; the suite passes on what could run (harness_run).
 */
#include <arpa/inet.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"


/* The kernel's account of run_ok's last run. */
static struct harness_sched run_sched;

static void
run_ok(const char *test, double *v, int want)
{
	const char *args[] = {"-H", "127.0.0.1", "-p", harness_port, "-t", test,
			      "-l", "1",	 "-c", "-C",	  NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s failed: %s", test, o.err);
	ck_assert_str_eq(o.err, "");
	ck_assert_ptr_nonnull(strstr(o.out, "to 127.0.0.1 (127.0.0.1)"));
	ck_assert_int_eq(harness_data_numbers(o.out, 0, v, want), want);
	for (int i = 0; i < want; i++)
		ck_assert_msg(isfinite(v[i]), "field %d not finite", i);
	harness_last_sched(&run_sched);
}

/* A -l 1 test's elapsed time, at least 0.99 s: less by no more than the
 * kernel counted the run's threads, both ends, waiting for a CPU (a
 * receiver that got its CPU late starts its clock late). */
static void
elapsed_ok(double secs)
{
	double wait = harness_sched_wait(&run_sched);

	ck_assert_msg(secs >= 0.99 - wait,
		      "elapsed %.3f s; the run waited %.1f ms for a CPU", secs,
		      wait * 1e3);
	ck_assert_double_lt(secs, 1.5);
}

/* Utilisation in (0, 100] and service demand positive, for both sides. */
static void
check_cpu(const double *util, const double *sd)
{
	ck_assert_double_gt(util[0], 0);
	ck_assert_double_le(util[0], 100);
	ck_assert_double_gt(util[1], 0);
	ck_assert_double_le(util[1], 100);
	ck_assert_double_gt(sd[0], 0);
	ck_assert_double_gt(sd[1], 0);
}

START_TEST(tcp_stream)
{
	double v[9];

	run_ok("TCP_STREAM", v, 9);
	/* recv sock, send sock, message, elapsed, Mbit/s, util x2, sd x2 */
	ck_assert_double_gt(v[0], 0);
	ck_assert_double_gt(v[1], 0);
	ck_assert_double_eq(v[2], v[1]); /* -m defaults to SO_SNDBUF */
	elapsed_ok(v[3]);
	ck_assert_double_gt(v[4], 10); /* loopback beats 10 Mbit/s */
	check_cpu(v + 5, v + 7);
}
END_TEST

START_TEST(tcp_maerts)
{
	double v[9];

	run_ok("TCP_MAERTS", v, 9);
	elapsed_ok(v[3]);
	ck_assert_double_gt(v[4], 10);
	check_cpu(v + 5, v + 7);
}
END_TEST

/* A request/response test's -c -C line of 1-byte transactions for a
 * second: send buf, recv buf, req, rsp, elapsed, trans/s, util x2, sd x2
 * into v[10], each checked. */
static void
rr_line_ok(const char *test, double *v)
{
	run_ok(test, v, 10);
	ck_assert_double_eq(v[2], 1);
	ck_assert_double_eq(v[3], 1);
	elapsed_ok(v[4]);
	ck_assert_double_gt(v[5], 100);
	check_cpu(v + 6, v + 8);
}

START_TEST(tcp_rr)
{
	double v[10];

	rr_line_ok("TCP_RR", v);
	/* Service demand is CPU time per transaction: util x 10^4 x CPUs /
	 * rate, so it can be checked against the columns beside it. */
	ck_assert_double_eq_tol(v[8] * v[5] / (v[6] * 1e4),
				(double)sysconf(_SC_NPROCESSORS_ONLN), 0.25);
}
END_TEST

START_TEST(udp_stream)
{
	const char *args[] = {"-H", "127.0.0.1",  "-p",	    harness_port,
			      "-t", "UDP_STREAM", "-l",	    "1",
			      "-c", "-C",	  "--rate", "20M",
			      "-v", "2", /* the loss line */
			      "--", "-m",	  "1000",   NULL};
	double sent[8], recvd[6];
	unsigned long long lost, of;
	struct harness_out o;
	struct harness_sched k;
	const char *line2;
	double short_by;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	harness_last_sched(&k);
	/* netperf's line: socket, size, elapsed, sent, errors, rate, util,
	 * sd; netserver's: socket, elapsed, received, rate, util, sd. */
	ck_assert_int_eq(harness_data_numbers(o.out, 0, sent, 8), 8);
	line2 = strchr(strstr(o.out, "\n\n") + 2, '\n');
	ck_assert_int_eq(sscanf(line2, "%lf %lf %lf %lf %lf %lf", &recvd[0],
				&recvd[1], &recvd[2], &recvd[3], &recvd[4],
				&recvd[5]),
			 6);
	ck_assert_double_eq(sent[1], 1000);
	/* Paced at 20 Mbit/s of payload: 2500 datagrams in a second, never
	 * more, within 2 %; below that, no more than were due while
	 * netperf's threads waited for a CPU, as the kernel counted it (a
	 * stall at the end of the second loses what was due in it). */
	ck_assert_double_le(sent[3], 2550);
	ck_assert_double_le(sent[5], 20.5);
	short_by = 2500 * k.local_wait_hi;
	ck_assert_msg(sent[3] >= 2450 - short_by &&
			  sent[5] >= 19.5 - short_by * 8e3 / 1e6,
		      "%.0f datagrams, %.2f Mbit/s; netperf waited %.1f ms for "
		      "a CPU, which allows %.0f fewer than 2450",
		      sent[3], sent[5], k.local_wait_hi * 1e3, short_by);
	ck_assert_double_le(recvd[2], sent[3]);
	ck_assert_int_eq(
	    sscanf(strstr(o.out, "Lost: "), "Lost: %llu of %llu", &lost, &of),
	    2);
	ck_assert_double_eq(of, sent[3]);
	ck_assert_double_eq((double)lost, sent[3] - recvd[2]);
	/* At 2 % load a 1 s interval holds a handful of 10 ms ticks, which
	 * can be none: service demand is present and not negative. */
	ck_assert_msg(recvd[4] >= 0 && recvd[4] <= 100 && recvd[5] >= 0,
		      "bad remote CPU figures: %s", o.out);
}
END_TEST

START_TEST(udp_rr_and_crr)
{
	const char *udp[] = {"-H",     "127.0.0.1", "-p",     harness_port, "-t",
			     "UDP_RR", "-l",	    "1",      "-c",	 "-C",
			     "-v",     "2", /* the loss line */
			     "--",     "-r",	    "32,512", NULL};
	const char *crr[] = {"-H", "127.0.0.1", "-p", harness_port,
			     "-t", "TCP_CRR",	"-l", "1",
			     "-c", "-C",	NULL};
	struct harness_out o;
	double v[10];

	ck_assert_int_eq(harness_netperf(udp, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_int_eq(harness_data_numbers(o.out, 0, v, 10), 10);
	ck_assert_double_eq(v[2], 32);
	ck_assert_double_eq(v[3], 512);
	ck_assert_double_gt(v[5], 100);
	check_cpu(v + 6, v + 8);
	ck_assert_ptr_nonnull(strstr(o.out, "Lost transactions: "));

	ck_assert_int_eq(harness_netperf(crr, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_int_eq(harness_data_numbers(o.out, 0, v, 10), 10);
	ck_assert_double_gt(v[5], 50);
	check_cpu(v + 6, v + 8);
	/* Honest remote CPU: never above 100 %, unlike netperf 2.7's. */
	ck_assert_double_le(v[7], 100);
}
END_TEST

/* Runs netperf with args after -H and -p and --json; fails unless it
 * exits 0, and returns the document. */
static json_t *
json_run(const char *const *args, struct harness_out *o)
{
	const char *argv[32] = {"-H", "127.0.0.1", "-p", harness_port,
				"--json"};
	int n = 5;
	json_t *doc;

	while (*args != NULL && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	ck_assert_int_eq(harness_netperf(argv, 60, o), 0);
	ck_assert_msg(o->status == 0, "netperf failed: %s", o->err);
	doc = harness_json_parse(o->out);
	ck_assert_msg(doc != NULL, "no JSON: %.2000s", o->out);
	return doc;
}

/* TCP_CC: connections alone, counted alike on both ends, no byte moved;
 * its -c -C line is TCP_CRR's, with -r's sizes reported as 2.7 does. */
START_TEST(tcp_cc)
{
	const char *args[] = {"-t", "TCP_CC", "-l", "-300", NULL};
	struct harness_out o;
	json_t *doc = json_run(args, &o);
	double v[10];

	ck_assert_double_eq(harness_json_num(doc, "local.counts.transactions"),
			    300);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.transactions"),
			    300);
	ck_assert_double_eq(harness_json_num(doc, "local.counts.bytes_sent"),
			    0);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.bytes_recv"),
			    0);
	json_decref(doc);
	rr_line_ok("TCP_CC", v);
	ck_assert_double_le(v[7], 100);
}
END_TEST

/* TCP_MSS prints the data connection's MSS: what TCP_MAXSEG (-G) set,
 * less the options of each segment. */
START_TEST(tcp_mss)
{
	const char *plain[] = {"-H",	  "127.0.0.1", "-p", harness_port, "-t",
			       "TCP_MSS", "-P",	       "0",  NULL};
	const char *set[] = {"-H", "127.0.0.1", "-p",	harness_port,
			     "-t", "TCP_MSS",	"-P",	"0",
			     "--", "-G",	"1000", NULL};
	struct harness_out o;
	double mss;

	ck_assert_int_eq(harness_netperf(plain, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_int_eq(harness_line_numbers(o.out, &mss, 1), 1);
	ck_assert_msg(mss > 1000 && mss <= 65495, "MSS %g on loopback", mss);
	ck_assert_int_eq(harness_netperf(set, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_int_eq(harness_line_numbers(o.out, &mss, 1), 1);
	ck_assert_msg(mss > 900 && mss <= 1000, "MSS %g with -G 1000", mss);
}
END_TEST

/* TCP_SENDFILE: every byte sendfile(2) sent arrived, from a file of
 * netperf's own and from -F's, counted and timed; with -c -C its own
 * service demand. */
START_TEST(tcp_sendfile)
{
	char path[64];
	const char *counted[] = {"-t", "TCP_SENDFILE", "-l", "-10000000", NULL};
	const char *timed[] = {"-t", "TCP_SENDFILE", "-l", "1",	  "-F",
			       path, "--",	     "-m", "10K", NULL};
	const char *const *runs[] = {counted, timed};
	static char block[1 << 20];
	struct harness_out o;
	double v[9];

	snprintf(path, sizeof(path), "/tmp/np-int-sf-%d", (int)getpid());
	memset(block, 'x', sizeof(block));
	harness_write_file(path, block, sizeof(block), 0600);
	for (int i = 0; i < 2; i++) {
		json_t *doc = json_run(runs[i], &o);
		double sent = harness_json_num(doc, "local.counts.bytes_sent");
		double calls = harness_json_num(doc, "local.counts.send_calls");

		ck_assert_msg(
		    sent > 0 && sent == harness_json_num(doc, "remote.counts."
							      "bytes_recv"),
		    "sent %.0f, received %.0f", sent,
		    harness_json_num(doc, "remote.counts.bytes_recv"));
		if (i == 0)
			ck_assert_double_eq(sent, 10000000);
		else
			ck_assert_double_le(sent / calls, 10240);
		ck_assert_str_eq(
		    json_string_value(json_object_get(
			json_object_get(json_object_get(doc, "local"),
					"counts"),
			"data_path")),
		    "sendfile");
		json_decref(doc);
	}
	unlink(path);
	run_ok("TCP_SENDFILE", v, 9);
	elapsed_ok(v[3]);
	ck_assert_double_gt(v[4], 10);
	check_cpu(v + 5, v + 7);
}
END_TEST

/* A -F file smaller than TCP_SENDFILE's ring, or none: one line saying
 * so, a failure status, and netserver serves the next test. */
START_TEST(tcp_sendfile_bad_file)
{
	char path[64];
	const char *small[] = {"-H", "127.0.0.1",    "-p", harness_port,
			       "-t", "TCP_SENDFILE", "-l", "1",
			       "-F", path,	     NULL};
	const char *none[] = {"-H", "127.0.0.1",
			      "-p", harness_port,
			      "-t", "TCP_SENDFILE",
			      "-l", "1",
			      "-F", "/nonexistent/np-file",
			      NULL};
	const char *after[] = {"-H",	     "127.0.0.1", "-p",
			       harness_port, "-t",	  "TCP_SENDFILE",
			       "-l",	     "-1000000",  NULL};
	static char block[1000];
	struct harness_out o;

	snprintf(path, sizeof(path), "/tmp/np-int-sf-small-%d", (int)getpid());
	harness_write_file(path, block, sizeof(block), 0600);
	ck_assert_int_eq(harness_netperf(small, 30, &o), 0);
	unlink(path);
	ck_assert_int_eq(o.status, 1);
	ck_assert_msg(strstr(o.err, path) != NULL &&
			  strstr(o.err, "too small: 1000 bytes") != NULL &&
			  strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
		      "stderr: %s", o.err);
	ck_assert_int_eq(harness_netperf(none, 30, &o), 0);
	ck_assert_int_ne(o.status, 0);
	ck_assert_msg(strstr(o.err, "/nonexistent/np-file") != NULL &&
			  strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
		      "stderr: %s", o.err);
	ck_assert_int_eq(harness_netperf(after, 30, &o), 0);
	ck_assert_msg(o.status == 0, "netserver after the refusals: %s", o.err);
}
END_TEST

/* UDP_CRR: a new socket per transaction, with CPU figures both sides. */
START_TEST(udp_crr)
{
	double v[10];

	rr_line_ok("UDP_CRR", v);
	ck_assert_double_le(v[7], 100);
}
END_TEST

/* Runs UDP_CRR for count transactions with --json and extra options;
 * returns the document. */
static json_t *
udp_crr_json(const char *count, const char *const *extra, struct harness_out *o)
{
	const char *args[24] = {"-H",	      "127.0.0.1", "-p",
				harness_port, "-t",	   "UDP_CRR",
				"-l",	      count,	   "--json"};
	int n = 9;
	json_t *doc;

	while (extra != NULL && *extra != NULL && n < 23)
		args[n++] = *extra++;
	args[n] = NULL;
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
	ck_assert_msg(o->status == 0, "UDP_CRR failed: %s", o->err);
	doc = harness_json_parse(o->out);
	ck_assert_msg(doc != NULL, "no JSON: %.2000s", o->out);
	return doc;
}

/* -l -N: exactly N transactions, each answered (the time-out, -e 2, is
 * far beyond loopback's round trip), netserver counting the same ones
 * and their bytes. */
START_TEST(udp_crr_count)
{
	const char *extra[] = {"--", "-r", "32,512", "-e", "2", NULL};
	struct harness_out o;
	json_t *doc = udp_crr_json("-1000", extra, &o);

	ck_assert_double_eq(harness_json_num(doc, "local.counts.transactions"),
			    1000);
	ck_assert_double_eq(harness_json_num(doc, "local.counts.lost"), 0);
	ck_assert_double_eq(harness_json_num(doc, "local.counts.bytes_sent"),
			    32000);
	ck_assert_double_eq(harness_json_num(doc, "local.counts.bytes_recv"),
			    512000);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.transactions"),
			    1000);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.bytes_recv"),
			    32000);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.bytes_sent"),
			    512000);
	json_decref(doc);
}
END_TEST

/* A port of socktype (SOCK_STREAM, SOCK_DGRAM) no one holds now on
 * 127.0.0.1, from the kernel. */
static int
free_port(int socktype)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, socktype, 0), port;

	ck_assert_int_ge(fd, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* In a child: sends garbage at 127.0.0.1:port until killed, from one
 * socket and from new ones (none ever sends the test's token), a few
 * thousand datagrams a second. */
static void
udp_garbage(int port)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	char junk[1500];
	unsigned seed = 7;
	int g = socket(AF_INET, SOCK_DGRAM, 0);

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (;;) {
		size_t n = (size_t)rand_r(&seed) % sizeof(junk);
		int fresh = socket(AF_INET, SOCK_DGRAM, 0);

		for (size_t j = 0; j < n; j++)
			junk[j] = (char)rand_r(&seed);
		sendto(g, junk, n, 0, (struct sockaddr *)&to, sizeof(to));
		/* A token's length, then a request, from a new port. */
		sendto(fresh, junk, 16, 0, (struct sockaddr *)&to, sizeof(to));
		sendto(fresh, "q", 1, 0, (struct sockaddr *)&to, sizeof(to));
		close(fresh);
		usleep(300);
	}
}

/* UDP_CRR while garbage and tokenless requests hit netserver's data
 * port (-P ,port): the test completes its count, and neither side
 * counts a datagram of the garbage. */
START_TEST(udp_crr_under_garbage)
{
	char pflag[24];
	const char *extra[] = {"--", "-P", pflag, "-e", "2", NULL};
	struct harness_out o;
	json_t *doc;
	pid_t pid;
	int port = free_port(SOCK_DGRAM);

	snprintf(pflag, sizeof(pflag), ",%d", port);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Dies with the test, whatever becomes of it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		udp_garbage(port);
		_exit(0);
	}
	doc = udp_crr_json("-2000", extra, &o);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_double_eq(harness_json_num(doc, "local.counts.transactions"),
			    2000);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.transactions"),
			    2000);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.bytes_recv"),
			    2000);
	ck_assert_double_eq(harness_json_num(doc, "remote.counts.recv_calls"),
			    2000);
	json_decref(doc);
}
END_TEST

/*
 * TCP_CRR -- -p min,max: every connection's local port comes from
 * [min, max), as 2.7's. The kernel's ground truth: netserver closes
 * first, so each port netperf used stays in netserver's TIME_WAIT table
 * (/proc/net/tcp and tcp6) under the data port -P fixed.
 */
START_TEST(crr_port_range)
{
	char dport[16], pflag[24];
	const char *args[] = {"-H", "127.0.0.1", "-p",	   harness_port,
			      "-t", "TCP_CRR",	 "-l",	   "1",
			      "--", "-p",	 "41000,41050", "-P",
			      pflag, "-k",	"THROUGHPUT", NULL};
	const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	struct harness_out o;
	int seen[50] = {0}, nseen = 0, outside = 0;
	char line[512];
	double rate;

	snprintf(dport, sizeof(dport), "%d", free_port(SOCK_STREAM));
	snprintf(pflag, sizeof(pflag), ",%s", dport);
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(sscanf(strstr(o.out, "THROUGHPUT=") + 11, "%lf",
			     &rate) == 1 && rate > 100,
		      "%s", o.out);
	for (int f = 0; f < 2; f++) {
		FILE *in = fopen(files[f], "r");

		if (in == NULL)
			continue;
		while (fgets(line, sizeof(line), in) != NULL) {
			char local[64], remote[64];
			unsigned lp, rp, st;
			const char *c1, *c2;

			if (sscanf(line, " %*s %63s %63s %x", local, remote,
				   &st) != 3 ||
			    (c1 = strrchr(local, ':')) == NULL ||
			    (c2 = strrchr(remote, ':')) == NULL ||
			    sscanf(c1 + 1, "%x", &lp) != 1 ||
			    sscanf(c2 + 1, "%x", &rp) != 1 ||
			    (int)lp != atoi(dport) || st != 6 /* TIME_WAIT */)
				continue;
			if (rp < 41000 || rp >= 41050) {
				outside++;
				continue;
			}
			nseen += !seen[rp - 41000];
			seen[rp - 41000] = 1;
		}
		fclose(in);
	}
	ck_assert_msg(outside == 0, "%d connections from outside -p's range",
		      outside);
	/* Over 100 transactions on 50 ports: the walk moved on from port
	 * to port (a port still closing on this side is passed over, so
	 * not every one need be left in TIME_WAIT at the end). */
	ck_assert_msg(nseen >= 10,
		      "only %d of -p's 50 ports seen in TIME_WAIT after %.0f "
		      "transactions a second",
		      nseen, rate);
}
END_TEST

/* Waits up to 3 s for a socket bound to port in /proc/net/<table>
 * ("tcp": listening; "udp": bound); returns 1 when there is one. */
static int
port_bound(const char *table, int port)
{
	char path[64], line[512];
	int tcp = strcmp(table, "tcp") == 0;

	snprintf(path, sizeof(path), "/proc/net/%s", table);
	for (double end = harness_now() + 3; harness_now() < end;) {
		FILE *f = fopen(path, "r");
		unsigned lp, st;
		char local[64];
		const char *c;
		int found = 0;

		while (f != NULL && fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, " %*s %63s %*s %x", local, &st) == 2 &&
			    (c = strrchr(local, ':')) != NULL &&
			    sscanf(c + 1, "%x", &lp) == 1 && (int)lp == port &&
			    (!tcp || st == 0x0A))
				found = 1;
		if (f != NULL)
			fclose(f);
		if (found)
			return 1;
		usleep(20000);
	}
	return 0;
}

static void
socat_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* netperf -N against the service at port; returns its output. */
static void
nocontrol_run(const char *test, int port, const char *length,
	      const char *keys, struct harness_out *o)
{
	char pflag[24];
	const char *args[] = {"-N", "-H", "127.0.0.1", "-t", test, "-l",
			      length, "--", "-P", pflag, "-k", keys, NULL};

	snprintf(pflag, sizeof(pflag), ",%d", port);
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	ck_assert_msg(o->status == 0, "%s -N: exit %d: %s", test, o->status,
		      o->err);
	ck_assert_msg(strstr(o->out, " : no control") != NULL, "%s: %s",
		      test, o->out);
}

static double
keyval(const struct harness_out *o, const char *key)
{
	char v[64];

	ck_assert_msg(harness_keyval(o->out, key, v, sizeof(v)) == 0,
		      "no %s in: %s", key, o->out);
	return strtod(v, NULL);
}

/* -N keeps --start-at as it does with a netserver: the measured
 * interval begins at the time, not before, and the start's wait for a
 * CPU is reported. */
static void
nocontrol_start_at(const char *listen, int port)
{
	const char *a[] = {listen, "PIPE", NULL};
	char pflag[24], at[32];
	const char *args[] = {"-N", "-H",  "127.0.0.1", "-t",	      "TCP_RR",
			      "-l", "0.5", "--json",	"--start-at", at,
			      "--", "-P",  pflag,	NULL};
	struct harness_out *o = malloc(sizeof(*o));
	struct timespec ts;
	json_t *doc;
	double sched, start, wait;
	pid_t s;

	ck_assert_ptr_nonnull(o);
	snprintf(pflag, sizeof(pflag), ",%d", port);
	s = harness_socat(a);
	ck_assert_msg(port_bound("tcp", port), "socat did not listen");
	/* Whole seconds, 2 to 3 ahead of netperf's start, not of socat's,
	 * which on a loaded machine took the 3 s once: time for netperf to
	 * set up. */
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(at, sizeof(at), "%lld", (long long)ts.tv_sec + 3);
	sched = (double)(ts.tv_sec + 3) * 1e9;
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	socat_stop(s);
	ck_assert_msg(o->status == 0, "-N --start-at: exit %d: %s", o->status,
		      o->err);
	doc = harness_json_parse(o->out);
	ck_assert_ptr_nonnull(doc);
	start = harness_json_num(doc, "timing.start_actual_ns");
	ck_assert_double_eq(harness_json_num(doc, "timing.start_scheduled_ns"),
			    sched);
	/* Late by 200 ms at most, and by what netperf's thread waited for
	 * a CPU after waking, as the kernel counted it. */
	wait = harness_json_num(doc, "timing.start_cpu_wait_ns");
	ck_assert_msg(start >= sched &&
			  start < sched + 2e8 + (isnan(wait) ? 0 : wait),
		      "started %+.3f ms from the schedule, %.3f ms of it "
		      "waiting for a CPU",
		      (start - sched) / 1e6, wait / 1e6);
	if (harness_have_schedstat())
		ck_assert_double_ge(wait, 0);
	else
		harness_skip("-N --start-at: no /proc/thread-self/schedstat, "
			     "so no wait for a CPU to check");
	json_decref(doc);
	free(o);
}

/*
 * -N, no control connection: each test against the standard service
 * 2.7 picks for it, here socat on a port of its own. Ground truth for
 * TCP_STREAM: the bytes socat wrote to its file are the bytes netperf
 * says it sent.
 */
START_TEST(no_control_services)
{
	char listen[96], out[] = "/tmp/np-discard-XXXXXX", file[160];
	struct harness_out o;
	struct stat st;
	pid_t s;
	int p = free_port(SOCK_STREAM), fd;

	if (access("/usr/bin/socat", X_OK) != 0) {
		harness_skip("no_control_services: socat not found "
			     "(scripts/deps)");
		return;
	}
	fd = mkstemp(out);
	ck_assert_int_ge(fd, 0);
	close(fd);

	/* discard, writing what it takes to a file: 1 MB sent. */
	snprintf(listen, sizeof(listen), "TCP4-LISTEN:%d,bind=127.0.0.1", p);
	snprintf(file, sizeof(file), "OPEN:%s,trunc", out);
	{
		const char *a[] = {"-u", listen, file, NULL};

		s = harness_socat(a);
	}
	ck_assert_msg(port_bound("tcp", p), "socat did not listen");
	nocontrol_run("TCP_STREAM", p, "-1000000", "LOCAL_BYTES_SENT", &o);
	socat_stop(s);
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_int_eq(st.st_size, 1000000);
	ck_assert_double_eq(keyval(&o, "LOCAL_BYTES_SENT"), 1000000);
	unlink(out);

	/* echo: request and response of one size. */
	snprintf(listen, sizeof(listen),
		 "TCP4-LISTEN:%d,bind=127.0.0.1,reuseaddr", p);
	{
		const char *a[] = {listen, "PIPE", NULL};

		s = harness_socat(a);
	}
	ck_assert_msg(port_bound("tcp", p), "socat did not listen");
	nocontrol_run("TCP_RR", p, "1", "THROUGHPUT,RESPONSE_SIZE", &o);
	socat_stop(s);
	ck_assert_double_gt(keyval(&o, "THROUGHPUT"), 100);
	ck_assert_double_eq(keyval(&o, "RESPONSE_SIZE"), 1);
	nocontrol_start_at(listen, p);

	/* chargen sends for ever: netperf ends its own interval. */
	{
		const char *a[] = {"-u", "EXEC:yes chargen", listen, NULL};

		s = harness_socat(a);
	}
	ck_assert_msg(port_bound("tcp", p), "socat did not listen");
	nocontrol_run("TCP_MAERTS", p, "1", "LOCAL_BYTES_RECVD,ELAPSED_TIME",
		      &o);
	socat_stop(s);
	ck_assert_double_gt(keyval(&o, "LOCAL_BYTES_RECVD"), 0);
	ck_assert_double_lt(o.seconds, 6);

	/* UDP echo answers every request. */
	snprintf(listen, sizeof(listen), "UDP4-LISTEN:%d,bind=127.0.0.1", p);
	{
		const char *a[] = {listen, "PIPE", NULL};

		s = harness_socat(a);
	}
	ck_assert_msg(port_bound("udp", p), "socat did not bind");
	nocontrol_run("UDP_RR", p, "1", "THROUGHPUT", &o);
	socat_stop(s);
	ck_assert_double_gt(keyval(&o, "THROUGHPUT"), 100);
}
END_TEST

/* -N with no port named: 2.7's pick, echo (7) for TCP_RR. Binding port 7
 * needs root, as CI is. */
START_TEST(no_control_default_port)
{
	const char *args[] = {"-N", "-H", "127.0.0.1", "-t", "TCP_RR",
			      "-l", "0.5", NULL};
	const char *echo[] = {"TCP4-LISTEN:7,bind=127.0.0.1,reuseaddr,fork",
			      "PIPE", NULL};
	struct harness_out o;
	double v[8];
	pid_t s;

	if (geteuid() != 0 || access("/usr/bin/socat", X_OK) != 0) {
		harness_skip("no_control_default_port: needs root to bind the "
			     "echo port and socat (scripts/deps)");
		return;
	}
	s = harness_socat(echo);
	ck_assert_msg(port_bound("tcp", 7), "socat did not listen on port 7");
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	socat_stop(s);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.out, "(127.0.0.1) port 7 AF_INET : no control") !=
			  NULL,
		      "%s", o.out);
	ck_assert_int_eq(harness_data_numbers(o.out, 0, v, 8), 6);
	ck_assert_msg(v[5] > 100, "%.2f transactions a second", v[5]);
}
END_TEST

/* -N at a UDP port where nothing listens: the kernel refuses each
 * datagram (ICMP port unreachable), and every send path says so and
 * stops, sendmmsg's included, whose short returns hide the error. */
START_TEST(no_control_udp_refused)
{
	static const char *const paths[][2] = {
	    {"--batch", "1"}, {"--batch", "4"}, {"--batch", "64"}};
	struct harness_out o;
	char pflag[24];

	snprintf(pflag, sizeof(pflag), ",%d", harness_free_port());
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *args[] = {
		    "-N", "-H",	 "127.0.0.1", "-t",	   "UDP_STREAM",
		    "-l", "2",	 paths[i][0], paths[i][1], "--",
		    "-P", pflag, "-m",	      "1000",	   NULL};

		ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
		ck_assert_msg(o.status == 1, "%s %s: exit %d: %s", paths[i][0],
			      paths[i][1], o.status, o.out);
		ck_assert_msg(strstr(o.err, "Connection refused") != NULL,
			      "%s %s: %s", paths[i][0], paths[i][1], o.err);
	}
}
END_TEST

/* -N and what needs netserver: one line naming it, status 2. */
START_TEST(no_control_refusals)
{
	static const char *const cases[][8] = {
	    {"-N", "-t", "TCP_CRR", "-l", "1", NULL},
	    {"-N", "-t", "UDP_CRR", "-l", "1", NULL},
	    {"-N", "-C", "-t", "TCP_STREAM", "-l", "1", NULL},
	    {"-N", "-t", "TCP_STREAM", "-l", "1", "--streams", "2", NULL},
	};
	struct harness_out o;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[10] = {"-H", "127.0.0.1"};
		int n = 2;

		for (int j = 0; j < 8 && cases[i][j] != NULL; j++)
			args[n++] = cases[i][j];
		args[n] = NULL;
		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
		ck_assert_msg(o.status == 2, "case %zu: exit %d", i, o.status);
		ck_assert_msg(strncmp(o.err, "netperf: -N: ", 13) == 0 &&
				  strchr(o.err, '\n') ==
				      o.err + strlen(o.err) - 1,
			      "case %zu: %s", i, o.err);
	}
}
END_TEST

START_TEST(udp_bad_sizes)
{
	const char *big[] = {"-p", harness_port, "-t",    "UDP_STREAM",
			     "--", "-m",      "70000", NULL};
	const char *rr[] = {"-p", harness_port, "-t",	"UDP_RR",
			    "--", "-r",	     "1,65508", NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(big, 10, &o), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "65507"));
	ck_assert_int_eq(harness_netperf(rr, 10, &o), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "65507"));
}
END_TEST

/* Whether ::1 is configured: /proc/net/if_inet6 lists it. */
static int
has_ipv6_loopback(void)
{
	char line[256];
	FILE *f = fopen("/proc/net/if_inet6", "r");
	int found = 0;

	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strncmp(line, "00000000000000000000000000000001", 32) ==
			0;
	fclose(f);
	return found;
}

START_TEST(ipv6_and_counts)
{
	struct harness_server s6;
	const char *extra[] = {"-L", "::1", NULL};
	struct harness_out o;
	char port[16];
	double v[6];

	if (!has_ipv6_loopback()) {
		harness_skip("ipv6_and_counts: this machine has no ::1");
		return;
	}
	ck_assert_msg(harness_server_start(&s6, extra) == 0,
		      "netserver -L ::1 did not start though ::1 exists");
	snprintf(port, sizeof(port), "%d", s6.port);
	{
		const char *args[] = {"-H", "::1",  "-p", port, "-t", "TCP_RR",
				      "-l", "-500", "-P", "0",	NULL};

		ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
		ck_assert_msg(o.status == 0, "%s", o.err);
		/* -P 0: no banner, no titles, the data line first. */
		ck_assert_int_eq(sscanf(o.out, "%lf %lf %lf %lf %lf %lf", &v[0],
					&v[1], &v[2], &v[3], &v[4], &v[5]),
				 6);
		ck_assert_double_gt(v[5], 0);
	}
	{
		const char *args[] = {"-H", "::1,6",	  "-p",	  port,
				      "-t", "TCP_STREAM", "-l",	  "-1000000",
				      "-v", "0",	  "-P",	  "0",
				      "--", "-m",	  "1000", NULL};

		ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
		ck_assert_msg(o.status == 0, "%s", o.err);
		ck_assert_double_gt(strtod(o.out, NULL), 0);
	}
	ck_assert_int_eq(harness_server_stop(&s6), 0);
}
END_TEST

START_TEST(rr_sizes_and_verbose)
{
	const char *args[] = {
	    "-H",	"127.0.0.1", "-p", harness_port, "-t", "TCP_RR",
	    "-l",	"1",	     "-v", "2",	      "--", "-r",
	    "100,2000", "-b",	     "2",  "-D",      NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_ptr_nonnull(strstr(o.out, " : nodelay"));
	ck_assert_ptr_nonnull(strstr(o.out, " : first burst 2"));
	ck_assert_ptr_nonnull(strstr(o.out, "100      2000"));
	ck_assert_ptr_nonnull(strstr(o.out, "HIST_TOTAL:"));
}
END_TEST

START_TEST(no_server)
{
	char port[16], want[128];
	struct harness_out o;

	snprintf(port, sizeof(port), "%d", harness_free_port());
	{
		const char *args[] = {"-H", "127.0.0.1", "-p", port,
				      "-l", "1",	 NULL};

		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
	}
	/* As 2.7, which exits -1 when the control connection fails. */
	ck_assert_int_eq(o.status, 255);
	ck_assert_double_lt(o.seconds, 1.0);
	snprintf(want, sizeof(want),
		 "netperf: cannot connect to 127.0.0.1 port %s: Connection "
		 "refused\n",
		 port);
	ck_assert_str_eq(o.err, want);
	ck_assert_str_eq(o.out, "");
}
END_TEST

START_TEST(bad_options)
{
	static const char *const cases[][6] = {
	    {"-m", "abc"}, {"-l", "-"},	  {"-m", "99999999999"},
	    {"-Q"},	   {"-t", "FOO"}, {"-f", "q"},
	};
	struct harness_out o;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[8] = {"-p", harness_port};
		int n = 2;

		if (strcmp(cases[i][0], "-m") == 0)
			args[n++] = "--";
		args[n++] = cases[i][0];
		if (cases[i][1] != NULL)
			args[n++] = cases[i][1];
		args[n] = NULL;
		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
		/* As 2.7, a usage error (an unknown option or test) is 1;
		 * a bad value, which 2.7 would take, is 2. */
		int want = strcmp(cases[i][0], "-Q") == 0 ||
				   strcmp(cases[i][0], "-t") == 0
			       ? 1
			       : 2;

		ck_assert_msg(o.status == want, "case %zu exited %d", i,
			      o.status);
		ck_assert_msg(strncmp(o.err, "netperf: ", 9) == 0, "%s", o.err);
		ck_assert_str_eq(o.out, "");
	}
}
END_TEST

/* After each abuse, the daemon must still run a normal test. */
static void
still_serving(void)
{
	const char *args[] = {"-H", "127.0.0.1", "-p", harness_port,
			      "-t", "TCP_RR",	 "-l", "0.3",
			      "-P", "0",	 NULL};
	struct harness_out o;

	ck_assert_int_eq(kill(harness_srv.pid, 0), 0);
	ck_assert_int_eq(harness_netperf(args, 20, &o), 0);
	ck_assert_msg(o.status == 0, "follow-up test failed: %s", o.err);
}

static void
expect_error(int fd, const char *needle)
{
	char buf[4096];

	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "\"error\"") != NULL, "reply: %s", buf);
	ck_assert_msg(strstr(buf, needle) != NULL, "reply: %s", buf);
}

START_TEST(garbage_and_oversize)
{
	static const unsigned char huge[4] = {0xff, 0xff, 0xff, 0xff};
	char buf[256];
	int fd;

	fd = harness_connect(harness_srv.port);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(harness_send(fd, huge, 4), 0);
	expect_error(fd, "message of 4294967295 bytes exceeds the 65536-byte "
			 "limit");
	ck_assert_int_eq(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	close(fd);

	fd = harness_connect(harness_srv.port);
	ck_assert_int_eq(harness_send_json(fd, "hello\n{{{"), 0);
	expect_error(fd, "malformed message");
	close(fd);

	fd = harness_connect(harness_srv.port);
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"hello\","
					       "\"version\":99}"),
			 0);
	expect_error(fd, "protocol version 99 is not supported");
	close(fd);

	fd = harness_connect(harness_srv.port);
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"hello\","
					       "\"version\":1}"),
			 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\"netserver\""));
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"request\","
					       "\"test\":\"FOO\"}"),
			 0);
	expect_error(fd, "missing field");
	close(fd);

	/* A request that is well formed but names no test this server has. */
	fd = harness_connect(harness_srv.port);
	harness_send_json(fd, "{\"type\":\"hello\",\"version\":1}");
	harness_recv_frame(fd, buf, sizeof(buf), 5000);
	harness_send_json(
	    fd, "{\"type\":\"request\",\"test\":\"FOO\",\"duration\":1,"
		"\"count\":0,\"send_size\":0,\"recv_size\":0,"
		"\"rsend_size\":0,\"rrecv_size\":0,\"req_size\":1,"
		"\"rsp_size\":1,\"lsndbuf\":-1,\"lrcvbuf\":-1,"
		"\"rsndbuf\":-1,\"rrcvbuf\":-1,\"nodelay\":false,"
		"\"burst\":0,\"remote_cpu\":false,\"data_port\":0}");
	expect_error(fd, "unknown test \\\"FOO\\\"");
	close(fd);

	/* A truncated frame, then the client vanishes. */
	fd = harness_connect(harness_srv.port);
	ck_assert_int_eq(harness_send(fd, "\0\0\0\x40{\"type\"", 12), 0);
	close(fd);
	still_serving();
}
END_TEST

START_TEST(idle_client)
{
	struct harness_server s;
	const char *extra[] = {"--idle-timeout", "1", NULL};
	char buf[512];
	double t0;
	int fd;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	fd = harness_connect(s.port);
	ck_assert_int_ge(fd, 0);
	t0 = harness_now();
	/* Silence: the child answers with an error and hangs up. */
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_ptr_nonnull(strstr(buf, "no message within"));
	ck_assert_int_eq(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_double_lt(harness_now() - t0, 3);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Waits until the server has no children left; returns how many remain. */
static int
children_after(double timeout)
{
	double deadline = harness_now() + timeout;
	pid_t kids[16];
	int n;

	do {
		n = harness_server_children(&harness_srv, kids, 16);
		if (n == 0)
			return 0;
		usleep(50000);
	} while (harness_now() < deadline);
	return n;
}

START_TEST(server_stops_mid_test)
{
	const char *args[] = {"-H",	"127.0.0.1", "-p", harness_port, "-t",
			      "TCP_RR", "-l",	     "2",  NULL};
	struct harness_out o;
	pid_t kids[4];
	pid_t np;
	int n, fds;

	fds = harness_fd_count(harness_srv.pid);
	np = fork();
	if (np == 0) {
		/* Stop the test's server child a moment after it starts. */
		pid_t k[4];
		int m = 0;

		for (int i = 0; i < 100 && m == 0; i++) {
			usleep(20000);
			m = harness_server_children(&harness_srv, k, 4);
		}
		/* Mid-test: once the child holds the data connection (a
		 * loaded machine may take a while to set the test up), and
		 * a moment more. */
		for (int i = 0; i < 250 && m > 0 &&
				!harness_has_data_conn(k[0], harness_srv.port);
		     i++)
			usleep(20000);
		usleep(300000);
		if (m > 0)
			kill(k[0], SIGSTOP);
		_exit(0);
	}
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	waitpid(np, NULL, 0);
	/* netperf notices within the grace period after the 2 s test. */
	ck_assert_int_ne(o.status, 0);
	ck_assert_int_ne(o.status, -1);
	ck_assert_double_lt(o.seconds, 2 + 5 + 3);
	ck_assert_msg(strstr(o.err, "stopped responding") != NULL, "%s", o.err);
	n = harness_server_children(&harness_srv, kids, 4);
	for (int i = 0; i < n; i++) {
		kill(kids[i], SIGKILL);
		kill(kids[i], SIGCONT);
	}
	ck_assert_int_eq(children_after(5), 0);
	ck_assert_int_eq(harness_fd_count(harness_srv.pid), fds);
	still_serving();
}
END_TEST

START_TEST(server_vanishes_mid_udp_rr)
{
	const char *args[] = {"-H",	"127.0.0.1", "-p", harness_port, "-t",
			      "UDP_RR", "-l",	     "3",  NULL};
	struct harness_out o;
	pid_t np;

	np = fork();
	if (np == 0) {
		pid_t k[4];
		int m = 0;

		for (int i = 0; i < 100 && m == 0; i++) {
			usleep(20000);
			m = harness_server_children(&harness_srv, k, 4);
		}
		usleep(300000);
		if (m > 0)
			kill(k[0], SIGKILL);
		_exit(0);
	}
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	waitpid(np, NULL, 0);
	ck_assert_int_ne(o.status, 0);
	ck_assert_int_ne(o.status, -1);
	ck_assert_double_lt(o.seconds, 3 + 5 + 3);
	ck_assert_msg(strncmp(o.err, "netperf: ", 9) == 0 &&
			  strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
		      "not one line: %s", o.err);
	ck_assert_int_eq(children_after(5), 0);
	still_serving();
}
END_TEST

START_TEST(client_vanishes_mid_test)
{
	const char *stream[] = {"-H",	   "127.0.0.1", "-p",
				harness_port, "-t",	"TCP_STREAM",
				"-l",	   "20",	NULL};
	const char *rr[] = {"-H",     "127.0.0.1", "-p", harness_port, "-t",
			    "TCP_RR", "-l",	   "20", NULL};
	const char *const *runs[] = {stream, rr};
	pid_t np;
	int fds = harness_fd_count(harness_srv.pid);

	for (int i = 0; i < 2; i++) {
		pid_t kids[4];

		np = harness_netperf_spawn(runs[i]);
		ck_assert_int_gt(np, 0);
		for (int j = 0; j < 100; j++) {
			if (harness_server_children(&harness_srv, kids, 4) > 0)
				break;
			usleep(20000);
		}
		usleep(500000);
		kill(np, i == 0 ? SIGKILL : SIGSTOP);
		if (i == 1) {
			/* A stopped client: the server child gives up on
			 * its own after the idle limit. */
			ck_assert_int_eq(children_after(20), 0);
			kill(np, SIGKILL);
			kill(np, SIGCONT);
		}
		waitpid(np, NULL, 0);
		ck_assert_int_eq(children_after(5), 0);
	}
	ck_assert_int_eq(harness_fd_count(harness_srv.pid), fds);
	still_serving();
}
END_TEST

static Suite *
integration_suite(void)
{
	Suite *s = suite_create("integration");
	TCase *tc = tcase_create("tests");
	TCase *bad = tcase_create("bad input");

	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, tcp_stream);
	tcase_add_test(tc, tcp_maerts);
	tcase_add_test(tc, tcp_rr);
	tcase_add_test(tc, udp_stream);
	tcase_add_test(tc, udp_rr_and_crr);
	tcase_add_test(tc, crr_port_range);
	tcase_add_test(tc, udp_crr);
	tcase_add_test(tc, udp_crr_count);
	tcase_add_test(tc, tcp_cc);
	tcase_add_test(tc, tcp_mss);
	tcase_add_test(tc, tcp_sendfile);
	tcase_add_test(tc, tcp_sendfile_bad_file);
	tcase_add_test(tc, udp_crr_under_garbage);
	tcase_add_test(tc, ipv6_and_counts);
	tcase_add_test(tc, rr_sizes_and_verbose);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(bad, harness_setup, harness_teardown);
	/* A backstop: each check bounds its own waits. */
	tcase_set_timeout(bad, 150);
	tcase_add_test(bad, no_server);
	tcase_add_test(bad, bad_options);
	tcase_add_test(bad, udp_bad_sizes);
	tcase_add_test(bad, server_vanishes_mid_udp_rr);
	tcase_add_test(bad, garbage_and_oversize);
	tcase_add_test(bad, idle_client);
	tcase_add_test(bad, server_stops_mid_test);
	tcase_add_test(bad, client_vanishes_mid_test);
	tcase_add_test(bad, no_control_services);
	tcase_add_test(bad, no_control_refusals);
	tcase_add_test(bad, no_control_udp_refused);
	tcase_add_test(bad, no_control_default_port);
	suite_add_tcase(s, bad);
	return s;
}

int
main(void)
{
	return harness_run(integration_suite());
}
