/*
 * Accuracy against things no one here wrote: a busy loop the test itself
 * pins to a CPU must read as that CPU at 100 %, an idle machine must read
 * as idle, and repeated runs must agree with each other.
 * A check that cannot run here says why (harness_skip), on a line of
 * its own; the suite passes on what could run (harness_run).
 */
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "np/stats.h"

/* Runs netperf with --json and returns the parsed document. */
static json_t *
run_json(const char *const *args)
{
	struct harness_out o;
	json_error_t jerr;
	json_t *doc;

	ck_assert_int_eq(harness_netperf(args, 60, &o), 0);
	ck_assert_msg(o.status == 0, "netperf failed: %.300s", o.err);
	doc = json_loads(o.out, 0, &jerr);
	ck_assert_msg(doc != NULL, "not JSON (%s): %.300s", jerr.text, o.out);
	return doc;
}

static double
num(const json_t *doc, const char *path)
{
	char buf[256], *save = NULL, *key;
	const json_t *j = doc;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key != NULL;
	     key = strtok_r(NULL, ".", &save))
		j = json_object_get(j, key);
	ck_assert_msg(json_is_number(j), "%s is not a number", path);
	return json_number_value(j);
}

/* The utilisation of one CPU from a side's per-CPU list. */
static double
cpu_util(const json_t *doc, const char *side, int cpu)
{
	const json_t *per = json_object_get(
	    json_object_get(json_object_get(doc, side), "cpu"), "per_cpu");
	size_t i;
	json_t *c;

	json_array_foreach(per, i, c)
	{
		if (json_integer_value(json_object_get(c, "cpu")) == cpu)
			return json_number_value(json_object_get(c, "util"));
	}
	ck_abort_msg("cpu%d not in the %s per-CPU list", cpu, side);
	return -1;
}

/* The kernel's own machine-wide busy and total ticks from /proc/stat's
 * "cpu" line: everything but idle and iowait is busy (guest time is
 * already inside user and nice). */
static void
proc_stat_ticks(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
				&v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
				&v[6], &v[7]),
			 4);
	fclose(f);
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
}

/*
 * The kernel's busy and total ticks around a run and inside it: "outer"
 * from just before netperf starts to just after it ends (it holds
 * netperf's measured interval), "inner" from 1 s to 3 s into a 4 s run
 * (inside that interval), read by a thread while the test blocks on
 * netperf. Whatever else runs, and however bursty, netperf's busy ticks
 * over its interval must lie between the two: that is the check.
 */
struct window {
	unsigned long long ob0, ot0, ob1, ot1; /* outer */
	unsigned long long ib0, it0, ib1, it1; /* inner */
	pthread_t thread;
};

static void *
window_main(void *arg)
{
	struct window *w = arg;

	usleep(1000000);
	proc_stat_ticks(&w->ib0, &w->it0);
	usleep(2000000);
	proc_stat_ticks(&w->ib1, &w->it1);
	return NULL;
}

/* Runs netperf with args (a 4 s test) inside the window; returns its
 * JSON. */
static json_t *
run_windowed(const char *const *args, struct window *w)
{
	json_t *doc;

	memset(w, 0, sizeof(*w));
	proc_stat_ticks(&w->ob0, &w->ot0);
	ck_assert_int_eq(pthread_create(&w->thread, NULL, window_main, w), 0);
	doc = run_json(args);
	proc_stat_ticks(&w->ob1, &w->ot1);
	ck_assert_int_eq(pthread_join(w->thread, NULL), 0);
	return doc;
}

/* Holds netperf's busy ticks (local.cpu.ticks) between the kernel's
 * inner and outer counts, a tick a CPU either way for the edges; returns
 * the kernel's machine-wide utilisation in percent, the larger of the two
 * windows' (the outer also holds netperf's start and end, when little
 * else may run: inside the test is what to set beside netperf's). */
static double
window_check(const json_t *doc, const struct window *w, long ncpu)
{
	double busy = num(doc, "local.cpu.ticks.busy");
	double outer = (double)(w->ob1 - w->ob0), inner = (double)(w->ib1 - w->ib0);

	ck_assert_msg(busy <= outer + 2.0 * (double)ncpu,
		      "netperf counted %.0f busy ticks, the kernel %.0f in a "
		      "window holding netperf's interval",
		      busy, outer);
	ck_assert_msg(busy >= inner - 2.0 * (double)ncpu,
		      "netperf counted %.0f busy ticks, the kernel %.0f in a "
		      "window inside netperf's interval",
		      busy, inner);
	return fmax(100.0 * outer / (double)(w->ot1 - w->ot0),
		    100.0 * inner / (double)(w->it1 - w->it0));
}

/* A process that spins on one CPU until killed. */
static pid_t
busy_on(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;
		volatile unsigned long x = 0;

		/* Never outlive the test: die with it, and after 30 s. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			_exit(1);
		for (;;)
			x++;
	}
	return pid;
}

START_TEST(busy_cpu_reads_100)
{
	/* A paced, light test on CPU 0 beside a busy loop on CPU 1. */
	const char *args[] = {
	    "-H",     "127.0.0.1", "-p",  harness_port, "-t", "UDP_STREAM", "-l",
	    "4",      "-T",	   "0,0", "--rate",  "1M", "-c",	 "-C",
	    "--json", "--",	   "-m",  "1000",    NULL};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct window w;
	double u1, all, kernel, want = 100.0 / (double)ncpu;
	json_t *doc;
	pid_t busy;

	if (ncpu < 2) {
		harness_skip("busy_cpu_reads_100: one CPU, nothing to pin the "
			     "load apart from the test");
		return;
	}
	busy = busy_on(1);
	ck_assert_int_gt(busy, 0);
	usleep(200000);
	doc = run_windowed(args, &w);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	u1 = cpu_util(doc, "local", 1);
	ck_assert_msg(u1 >= 97 && u1 <= 100.0001,
		      "the busy CPU read %.2f %%, not 100 within 3 points", u1);
	all = num(doc, "local.cpu.util");
	kernel = window_check(doc, &w, ncpu);
	/* Machine-wide: one CPU of ncpu busy, so never under 100 / ncpu
	 * by more than 3 points; and over it by no more than the kernel saw
	 * around and inside the test. With nothing else running (the test
	 * itself costs a point or two) that is 6 points above 100 / ncpu;
	 * where other work ran (right after a build its files are still
	 * being written back, and CI's machine runs other jobs) netperf's
	 * busy ticks are held between the kernel's (window_check). */
	ck_assert_msg(all >= want - 3,
		      "machine-wide %.2f %% with one of %ld CPUs busy", all,
		      ncpu);
	if (kernel <= want + 5)
		ck_assert_msg(all <= want + 6,
			      "machine-wide %.2f %% with one of %ld CPUs "
			      "busy, the kernel saw %.2f %%",
			      all, ncpu, kernel);
	/* Both sides read the same host over the same interval. */
	ck_assert_double_eq_tol(cpu_util(doc, "remote", 1), u1, 3);
	json_decref(doc);
}
END_TEST

START_TEST(idle_machine_reads_idle)
{
	const char *args[] = {
	    "-H",     "127.0.0.1", "-p",     harness_port, "-t", "UDP_STREAM",
	    "-l",     "4",	   "--rate", "100k",	"-c", "-C",
	    "--json", "--",	   "-m",     "100",	NULL};
	struct window w;
	double all, kernel;
	json_t *doc;

	doc = run_windowed(args, &w);
	all = num(doc, "local.cpu.util");
	/* Whatever else runs, netperf's busy ticks lie between the
	 * kernel's inside and around its interval. */
	kernel = window_check(doc, &w, sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert_double_ge(all, 0);
	ck_assert_double_le(all, 100);
	/* 125 datagrams a second cost next to nothing: when the kernel saw
	 * the machine idle but for them, below 2 %, as on a quiet CI
	 * machine. */
	if (kernel < 2.0)
		ck_assert_msg(all < 2.0,
			      "an idle machine read %.2f %% busy, the kernel "
			      "saw %.2f %%",
			      all, kernel);
	json_decref(doc);
}
END_TEST

/* The relative standard deviation README states for TCP_RR pinned to one
 * CPU on loopback: five 1 s runs. */
#define RR_RSD_LIMIT 15.0

/* How much the machine's own ping-pong may vary over the same five runs
 * for netperf's variation to be netperf's. */
#define RR_MACHINE_RSD_LIMIT 7.5

static double
rsd(const double *x, int n)
{
	double mean = 0, var = 0;
	int i;

	for (i = 0; i < n; i++)
		mean += x[i] / n;
	for (i = 0; i < n; i++)
		var += (x[i] - mean) * (x[i] - mean) / (n - 1);
	return mean > 0 ? 100 * sqrt(var) / mean : 0;
}

static void
pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ck_assert_int_eq(pthread_setaffinity_np(pthread_self(), sizeof(set),
						&set),
			 0);
}

/* The echo end of machine_rr: answers each byte until the peer closes. */
static void *
echo_main(void *arg)
{
	int fd = *(int *)arg;
	char c;

	pin_cpu0();
	while (recv(fd, &c, 1, 0) == 1 && send(fd, &c, 1, 0) == 1)
		;
	return NULL;
}

/*
 * What this machine does without netperf, at the moment: a plain 1-byte
 * TCP ping-pong over loopback for secs, both ends on CPU 0 as -T 0,0
 * puts them. Returns transactions a second.
 */
static double
machine_rr(double secs)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int l, c, e, one = 1;
	cpu_set_t saved;
	pthread_t echo;
	double start, end;
	long n = 0;
	char b = 'x';

	ck_assert_int_eq(pthread_getaffinity_np(pthread_self(), sizeof(saved),
						&saved),
			 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &alen), 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(c, 0);
	ck_assert_int_eq(connect(c, (struct sockaddr *)&a, sizeof(a)), 0);
	e = accept(l, NULL, NULL);
	ck_assert_int_ge(e, 0);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(e, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ck_assert_int_eq(pthread_create(&echo, NULL, echo_main, &e), 0);
	pin_cpu0();
	start = harness_now();
	end = start + secs;
	do {
		/* A batch between clock reads keeps the clock out of it. */
		for (int i = 0; i < 100; i++, n++)
			ck_assert(send(c, &b, 1, 0) == 1 &&
				  recv(c, &b, 1, 0) == 1);
	} while (harness_now() < end);
	end = harness_now();
	close(c);
	pthread_join(echo, NULL);
	close(e);
	close(l);
	pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return (double)n / (end - start);
}

START_TEST(rr_repeatable)
{
	const char *args[] = {"-H", "127.0.0.1", "-p",	   harness_port,
			      "-t", "TCP_RR",	 "-l",	   "1",
			      "-T", "0,0",	 "--json", NULL};
	double x[5], m[5], share = 0;

	for (int i = 0; i < 5; i++) {
		json_t *doc = run_json(args);
		struct harness_sched k;

		harness_last_sched(&k);
		x[i] = num(doc, "result.throughput");
		ck_assert_double_gt(x[i], 0);
		/* The most any run's threads, both ends, waited for a CPU,
		 * as a share of that run's time (the kernel's count). */
		share = fmax(share, (k.local_wait_lo + k.remote_wait_lo) /
					num(doc, "result.elapsed_s"));
		json_decref(doc);
		m[i] = machine_rr(0.3);
	}
	/* Other work on CPU 0 takes what it takes from each run: a run
	 * whose threads waited for it 5 % of its time or more can be that
	 * much off the others, which the kernel's count tells. */
	if (rsd(x, 5) >= RR_RSD_LIMIT && share >= 0.05) {
		harness_skip("rr_repeatable: TCP_RR -T 0,0 varied by %.1f %%, "
			     "with a run's threads waiting for a CPU %.0f %% "
			     "of its time",
			     rsd(x, 5), 100 * share);
		return;
	}
	/* A VM's host can slow all it runs by a fifth from one second to
	 * the next with the guest idle (seen: 49448 then 38610 a second);
	 * the machine's own ping-pong, after each run, tells. */
	if (rsd(m, 5) >= RR_MACHINE_RSD_LIMIT) {
		harness_skip("rr_repeatable: a plain ping-pong varied by %.1f "
			     "%% itself over the runs (%.0f %.0f %.0f %.0f "
			     "%.0f a second)",
			     rsd(m, 5), m[0], m[1], m[2], m[3], m[4]);
		return;
	}
	ck_assert_msg(rsd(x, 5) < RR_RSD_LIMIT,
		      "TCP_RR -T 0,0 varied by %.1f %% (runs %.0f %.0f %.0f "
		      "%.0f %.0f), a plain ping-pong by %.1f %%; a run's "
		      "threads waited for a CPU %.1f %% of its time at most",
		      rsd(x, 5), x[0], x[1], x[2], x[3], x[4], rsd(m, 5),
		      100 * share);
}
END_TEST

START_TEST(confidence_converges)
{
	/*
	 * The confidence loop stops as soon as the interval is met. A paced
	 * UDP_STREAM is steady enough to meet -I 99,5 in a few runs, most
	 * often the fewest -i allows (one run far off on a busy VM takes it
	 * to 7, seen once); TCP_RR -T 0,0 on this VM met it in 15 of 16
	 * sessions, one run sometimes far off the rest, so its convergence
	 * is a bench/ matter, not a test's. Each run's own throughput is in
	 * the JSON's iterations: the interval of the first k of them, by
	 * the library's Student-t, must be wider than asked for every k
	 * before the last, and met at the last.
	 */
	const char *args[] = {
	    "-H",   "127.0.0.1", "-p", harness_port, "-t",	"UDP_STREAM",
	    "-l",   "1",	 "-i", "10,3",	     "-I",	"99,5",
	    "--rate", "10M",	 "--json", "--", "-m", "1000", NULL};
	double x[10], achieved, wait, len;
	struct harness_sched ks;
	struct stats_ci ci;
	json_t *doc, *conf, *its;
	int n, k;

	doc = run_json(args);
	harness_last_sched(&ks);
	conf = json_object_get(doc, "confidence");
	n = (int)json_integer_value(json_object_get(conf, "iterations"));
	/* A paced sender falls behind its rate only while it waits for a
	 * CPU: runs the kernel counted waiting 5 % of their time or more
	 * may be that far apart, and miss a 5 % interval. */
	wait = ks.local_wait_lo + ks.remote_wait_lo;
	len = (double)n * num(doc, "result.elapsed_s");
	if (!json_is_true(json_object_get(conf, "met")) && wait >= 0.05 * len) {
		harness_skip("confidence_converges: -I 99,5 not met in %d "
			     "runs, in which the test waited %.0f ms of %.0f "
			     "ms for a CPU",
			     n, wait * 1e3, len * 1e3);
		json_decref(doc);
		return;
	}
	ck_assert_msg(json_is_true(json_object_get(conf, "met")),
		      "-I 99,5 not met in %d runs; the test waited %.0f ms "
		      "of %.0f ms for a CPU",
		      n, wait * 1e3, len * 1e3);
	its = json_object_get(doc, "iterations");
	ck_assert_msg(n >= 3 && n <= 10 && json_array_size(its) == (size_t)n,
		      "%d runs, %zu in iterations", n, json_array_size(its));
	for (k = 0; k < n; k++)
		x[k] = json_number_value(json_object_get(
		    json_array_get(its, (size_t)k), "throughput"));
	for (k = 3; k <= n; k++) {
		ck_assert_int_eq(stats_ci_compute(x, k, 0.99, &ci), 0);
		if (k < n)
			ck_assert_msg(ci.width_pct > 5,
				      "met after %d runs (%.2f %% wide), "
				      "but ran %d",
				      k, ci.width_pct, n);
	}
	achieved = json_number_value(
	    json_object_get(json_object_get(conf, "achieved"), "throughput"));
	ck_assert_double_le(achieved, 5);
	ck_assert_msg(fabs(achieved - ci.width_pct) < 1e-6 * (1 + achieved),
		      "netperf says %.6f %% wide, its runs %.6f %%", achieved,
		      ci.width_pct);
	if (n > 3)
		fprintf(stderr, "confidence_converges: met after %d runs\n", n);
	json_decref(doc);
}
END_TEST

static Suite *
accuracy_suite(void)
{
	Suite *s = suite_create("accuracy");
	TCase *tc = tcase_create("cpu and repeatability");

	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, busy_cpu_reads_100);
	tcase_add_test(tc, idle_machine_reads_idle);
	tcase_add_test(tc, rr_repeatable);
	tcase_add_test(tc, confidence_converges);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(accuracy_suite());
}
