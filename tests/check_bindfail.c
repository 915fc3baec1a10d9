/*
 * A -T placement that cannot be bound must end the test with an error,
 * never hang it. The process runs in a cpuset cgroup that allows only CPU
 * 0 while hwloc is told to ignore that restriction (HWLOC_ALLOW=all), so
 * CPU 1 passes the placement check and the bind itself fails, as it does
 * for a netperf started inside a container whose cpuset shrank. Needs
 * root, a cpuset cgroup and two CPUs; exits 77 when it cannot have them.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The cpuset directory this run made, "" when none. */
static char cpuset_dir[256];
/* Its file taking a PID: "tasks" (v1) or "cgroup.procs" (v2). */
static char cpuset_procs[300];

static int
write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* Makes a cpuset of CPU 0 only; returns 0, or -1 with why in why. */
static int
cpuset_make(char *why, size_t cap)
{
	static const char *const roots[] = {"/sys/fs/cgroup/cpuset",
					    "/sys/fs/cgroup"};
	char path[320];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		struct stat st;
		int v1 = i == 0;

		snprintf(path, sizeof(path), "%s/cpuset.cpus.effective",
			 roots[i]);
		if (stat(path, &st) != 0) {
			snprintf(path, sizeof(path), "%s/cpuset.cpus",
				 roots[i]);
			if (stat(path, &st) != 0)
				continue;
		}
		snprintf(cpuset_dir, sizeof(cpuset_dir), "%s/np-bindfail-%d",
			 roots[i], (int)getpid());
		if (mkdir(cpuset_dir, 0755) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/cpuset.cpus", cpuset_dir);
		if (write_text(path, "0") == 0) {
			snprintf(path, sizeof(path), "%s/cpuset.mems",
				 cpuset_dir);
			if (write_text(path, "0") == 0 || !v1) {
				snprintf(cpuset_procs, sizeof(cpuset_procs),
					 "%s/%s", cpuset_dir,
					 v1 ? "tasks" : "cgroup.procs");
				return 0;
			}
		}
		rmdir(cpuset_dir);
	}
	cpuset_dir[0] = '\0';
	snprintf(why, cap, "cannot make a cpuset cgroup (%s)",
		 geteuid() != 0 ? "not root" : strerror(errno));
	return -1;
}

static void
cpuset_remove(void)
{
	if (cpuset_dir[0] != '\0')
		rmdir(cpuset_dir);
}

/* Moves pid into the cpuset; fails the test when it cannot. */
static void
cpuset_enter(pid_t pid)
{
	char text[32];

	snprintf(text, sizeof(text), "%d", (int)pid);
	ck_assert_msg(write_text(cpuset_procs, text) == 0,
		      "cannot move %d into %s", (int)pid, cpuset_procs);
}

/*
 * Runs netperf with args inside the cpuset and checks that it ends
 * within 15 s, with a non-zero status and an error naming the bind.
 */
static void
netperf_in_cpuset(const char *port, const char *const *args)
{
	char script[512], err[4096], *out = NULL;
	const char *argv[24];
	double t0 = harness_now(), took;
	int n = 0, rc;

	/* The shell moves itself into the cpuset and then becomes
	 * netperf, so netperf and its threads start inside it. */
	snprintf(script, sizeof(script),
		 "echo $$ >%s && HWLOC_ALLOW=all exec \"$0\" \"$@\"",
		 cpuset_procs);
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = NP_NETPERF;
	argv[n++] = "-H";
	argv[n++] = "127.0.0.1";
	argv[n++] = "-p";
	argv[n++] = port;
	for (int i = 0; args[i] != NULL && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	rc = harness_exec_capture(argv, 30, &out, err, sizeof(err));
	took = harness_now() - t0;
	free(out);
	ck_assert_msg(rc != -1, "netperf hung (killed after %.0f s)", took);
	ck_assert_msg(took < 15, "netperf took %.1f s to give up", took);
	ck_assert_msg(rc != 0, "netperf succeeded though its bind failed");
	ck_assert_msg(strstr(err, "cannot bind to CPUs 1") != NULL,
		      "error does not name the bind: %s", err);
}

START_TEST(local_bind_fails)
{
	const char *plain[] = {"-l", "1", "-T", "1,0", NULL};
	const char *interim[] = {"-l", "1", "-T", "1,0", "-D", "0.3", NULL};
	const char *streams[] = {"-l", "1", "-T", "1,0", "--streams", "2",
				 NULL};
	const char *rr[] = {"-t", "TCP_RR", "-l", "1", "-T", "1,0", NULL};

	netperf_in_cpuset(harness_port, plain);
	netperf_in_cpuset(harness_port, interim);
	netperf_in_cpuset(harness_port, streams);
	netperf_in_cpuset(harness_port, rr);
}
END_TEST

START_TEST(remote_bind_fails)
{
	const char *argv[] = {NP_NETPERF, "-H", "127.0.0.1", "-p", harness_port,
			      "-l", "1", "-T", "0,1", "-D", "0.3", NULL};
	char err[4096], *out = NULL;
	double t0, took;
	int rc;

	/* netserver's later children are forked inside the cpuset and,
	 * told to ignore it, accept CPU 1 and fail to bind there. */
	cpuset_enter(harness_srv.pid);
	t0 = harness_now();
	rc = harness_exec_capture(argv, 30, &out, err, sizeof(err));
	took = harness_now() - t0;
	free(out);
	ck_assert_msg(rc != -1, "netperf hung (killed after %.0f s)", took);
	ck_assert_msg(took < 15, "netperf took %.1f s to give up", took);
	ck_assert_msg(rc != 0, "netperf succeeded though netserver's bind "
			       "failed");
	ck_assert_msg(strstr(err, "cannot bind to CPUs 1") != NULL,
		      "error does not name the bind: %s", err);
}
END_TEST

int
main(void)
{
	char why[256];
	Suite *s;
	TCase *tc;
	int rc;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "check_bindfail: skipped: needs 2 CPUs\n");
		return 77;
	}
	if (cpuset_make(why, sizeof(why)) < 0) {
		fprintf(stderr, "check_bindfail: skipped: %s\n", why);
		return 77;
	}
	/* netserver's children inherit it; netperf gets it from the
	 * script. */
	setenv("HWLOC_ALLOW", "all", 1);
	s = suite_create("bindfail");
	tc = tcase_create("bind");
	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, local_bind_fails);
	tcase_add_test(tc, remote_bind_fails);
	suite_add_tcase(s, tc);
	rc = harness_run(s);
	cpuset_remove();
	return rc;
}
