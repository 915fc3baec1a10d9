/*
 * netserver as a service: its options, detaching with a pidfile, SIGTERM
 * in the middle of tests, SIGHUP and its log file, dropping to another
 * user, syslog. Each test runs in its own process, which is made a child
 * subreaper so that a detached netserver is still its child and its exit
 * status can be read.
 * A check that cannot run here says why (harness_skip), on a line of
 * its own; the suite passes on what could run (harness_run).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np/cli.h"
#include "np/err.h"
#include "harness.h"

static void
subreaper(void)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
}

/* Parses a netserver command line (without argv[0]). */
static int
parse(const char *const *args, struct netserver_opts *o, char *err)
{
	char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)"netserver";
	for (; *args != NULL && argc < 63; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return cli_netserver_parse(argc, argv, o, err);
}

START_TEST(options)
{
	const char *all[] = {"--pidfile",
			     "/run/ns.pid",
			     "--log",
			     "/var/log/ns.log",
			     "-u",
			     "nobody",
			     "--auth-file",
			     "/etc/ns.key",
			     "--allow",
			     "10.0.0.0/8,::1",
			     "--allow",
			     "192.0.2.0/24",
			     "--max-sessions",
			     "8",
			     "--max-per-address",
			     "2",
			     "--max-duration",
			     "600",
			     "--max-message",
			     "1M",
			     "--max-buffer",
			     "4M",
			     "--max-streams",
			     "4",
			     "--idle-timeout",
			     "5",
			     "--accept-timeout",
			     "2.5",
			     "--max-session-memory",
			     "32M",
			     "--hello-timeout",
			     "1.5",
			     "--max-session-time",
			     "900",
			     "--ipv6-prefix",
			     "56",
			     "--allow-privileged-ports",
			     NULL};
	struct netserver_opts o;
	char err[ERR_LEN];

	ck_assert_int_eq(parse(all, &o, err), 0);
	ck_assert_str_eq(o.pidfile, "/run/ns.pid");
	ck_assert_str_eq(o.log, "/var/log/ns.log");
	ck_assert_str_eq(o.user, "nobody");
	ck_assert_str_eq(o.auth_file, "/etc/ns.key");
	ck_assert_int_eq(o.allow.n, 3);
	ck_assert_int_eq(o.max_sessions, 8);
	ck_assert_int_eq(o.max_per_addr, 2);
	ck_assert_double_eq(o.max_duration, 600);
	ck_assert_int_eq(o.max_message, 1 << 20);
	ck_assert_int_eq(o.max_buffer, 4 << 20);
	ck_assert_int_eq(o.max_streams, 4);
	ck_assert_double_eq(o.idle_timeout, 5);
	ck_assert_double_eq(o.accept_timeout, 2.5);
	ck_assert_int_eq(o.max_session_memory, 32 << 20);
	ck_assert_double_eq(o.hello_timeout, 1.5);
	ck_assert_double_eq(o.max_session_time, 900);
	ck_assert_int_eq(o.ipv6_prefix, 56);
	ck_assert_int_eq(o.allow_privileged_ports, 1);
	ck_assert_int_eq(o.syslog, 0);

	{
		const char *a[] = {"--syslog", "--user", "daemon", NULL};

		ck_assert_int_eq(parse(a, &o, err), 0);
		ck_assert_int_eq(o.syslog, 1);
		ck_assert_str_eq(o.user, "daemon");
		ck_assert_int_eq(o.allow.n, 0);
		ck_assert_int_eq(o.max_sessions, 0);
		ck_assert_int_eq(o.max_session_memory, 0);
		ck_assert_int_eq(o.ipv6_prefix, 0);
		ck_assert_int_eq(o.allow_privileged_ports, 0);
	}
}
END_TEST

START_TEST(bad_options)
{
	static const struct {
		const char *args[4];
		const char *err;
	} bad[] = {
	    {{"--max-sessions", "0"}, "--max-sessions: "},
	    {{"--max-sessions", "5000"}, "--max-sessions: "},
	    {{"--max-per-address", "x"}, "--max-per-address: "},
	    {{"--max-duration", "0.5"}, "--max-duration: "},
	    {{"--max-message", "2G"}, "--max-message: "},
	    {{"--max-message", "0"}, "--max-message: must be at least 1"},
	    {{"--max-buffer", "3G"}, "--max-buffer: "},
	    {{"--max-streams", "1000001"}, "--max-streams: "},
	    {{"--accept-timeout", "0"}, "--accept-timeout: "},
	    {{"--max-session-memory", "0"},
	     "--max-session-memory: must be at least 1"},
	    {{"--max-session-memory", "2T"}, "--max-session-memory: "},
	    {{"--hello-timeout", "0"}, "--hello-timeout: "},
	    {{"--max-session-time", "0.5"}, "--max-session-time: "},
	    {{"--ipv6-prefix", "0"}, "--ipv6-prefix: "},
	    {{"--ipv6-prefix", "129"}, "--ipv6-prefix: "},
	    {{"--allow", "10.0.0.1/8"},
	     "--allow: \"10.0.0.1/8\" has bits set past its prefix length"},
	    {{"--allow", "example.com"}, "--allow: \"example.com\" is not"},
	    {{"--log", "/tmp/x", "--syslog"},
	     "--log and --syslog cannot be combined"},
	    {{"--pidfile", ""}, "--pidfile: bad file name"},
	    {{"-u", ""}, "-u: bad user name"},
	    {{"--max-sessions"}, "option --max-sessions needs a value"},
	    {{"--auth-file"}, "option --auth-file needs a value"},
	    {{"-u"}, "option -u needs a value"},
	    {{"--no-such"}, "unknown option --no-such"},
	};
	struct netserver_opts o;
	char err[ERR_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i].args, &o, err) == -1,
			      "accepted %s %s", bad[i].args[0],
			      bad[i].args[1] ? bad[i].args[1] : "");
		ck_assert_msg(strncmp(err, bad[i].err, strlen(bad[i].err)) == 0,
			      "%s: \"%s\"", bad[i].args[0], err);
	}
}
END_TEST

/* A netperf run in the background, its stderr kept. */
struct bg {
	pid_t pid;
	char errpath[32];
};

static void
bg_start(struct bg *b, const char *const *args)
{
	const char *argv[32];
	int n = 0, fd;

	argv[n++] = NP_NETPERF;
	for (; *args != NULL && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	snprintf(b->errpath, sizeof(b->errpath), "/tmp/np-bg-XXXXXX");
	fd = mkstemp(b->errpath);
	ck_assert_int_ge(fd, 0);
	b->pid = fork();
	ck_assert_int_ge(b->pid, 0);
	if (b->pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv(NP_NETPERF, (char *const *)argv);
		_exit(127);
	}
	close(fd);
}

/* Waits for it at most timeout seconds; returns its exit status (-1 when
 * it had to be killed), its stderr in err. */
static int
bg_wait(struct bg *b, double timeout, char *err, size_t cap)
{
	double deadline = harness_now() + timeout;
	int status = -1, st;
	ssize_t n;
	int fd;

	while (harness_now() < deadline) {
		if (waitpid(b->pid, &st, WNOHANG) == b->pid) {
			status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
			break;
		}
		usleep(20000);
	}
	if (status == -1) {
		kill(b->pid, SIGKILL);
		waitpid(b->pid, NULL, 0);
	}
	fd = open(b->errpath, O_RDONLY);
	n = fd >= 0 ? read(fd, err, cap - 1) : 0;
	err[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	unlink(b->errpath);
	return status;
}

/* Waits until srv has a child; returns its PID, or 0. */
static pid_t
first_child(const struct harness_server *s)
{
	pid_t kids[4];

	for (int i = 0; i < 250; i++) {
		if (harness_server_children(s, kids, 4) > 0)
			return kids[0];
		usleep(20000);
	}
	return 0;
}

/* Waits for our child pid to exit; returns its status, -1 on time-out. */
static int
exit_status(pid_t pid, double timeout)
{
	double deadline = harness_now() + timeout;
	int st;

	while (harness_now() < deadline) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		usleep(20000);
	}
	return -1;
}

static int
file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static long
read_pid(const char *path)
{
	FILE *f = fopen(path, "r");
	long pid = -1;

	if (f != NULL) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

/*
 * Runs netserver without -D, so it detaches, with a pidfile; the first
 * process's exit status is returned, with its stderr in err. The port
 * from the start-up line goes into *port.
 */
static int
start_detached(const char *pidfile, const char *const *extra, int *port,
	       char *err, size_t cap)
{
	const char *argv[32];
	char path[] = "/tmp/np-ds-XXXXXX";
	int n = 0, fd, status;
	ssize_t len;
	pid_t pid;
	char *p;

	argv[n++] = NP_NETSERVER;
	argv[n++] = "-p";
	argv[n++] = "0";
	argv[n++] = "-L";
	argv[n++] = "127.0.0.1";
	argv[n++] = "--pidfile";
	argv[n++] = pidfile;
	for (; extra != NULL && *extra != NULL && n < 31; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd, STDERR_FILENO);
		execv(NP_NETSERVER, (char *const *)argv);
		_exit(127);
	}
	status = exit_status(pid, 10);
	lseek(fd, 0, SEEK_SET);
	len = read(fd, err, cap - 1);
	err[len > 0 ? len : 0] = '\0';
	close(fd);
	unlink(path);
	p = strstr(err, "port '");
	*port = p != NULL ? atoi(p + 6) : 0;
	return status;
}

START_TEST(detached_with_pidfile)
{
	char pidfile[] = "/tmp/np-pid-XXXXXX", err[1024], port_text[16];
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l",	     "1",  NULL};
	struct harness_out o;
	int port, port2, fd;
	long pid;
	pid_t dead;

	subreaper();
	fd = mkstemp(pidfile);
	close(fd);
	/* A pidfile left by a process that is gone is stale: taken over. */
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	fd = open(pidfile, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(dprintf(fd, "%ld\n", (long)dead) > 0, 1);
	close(fd);

	ck_assert_int_eq(start_detached(pidfile, NULL, &port, err, sizeof(err)),
			 0);
	ck_assert_int_gt(port, 0);
	/* The first process has left only once the pidfile is there. */
	pid = read_pid(pidfile);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_ne(pid, dead);
	ck_assert_int_eq(kill((pid_t)pid, 0), 0);
	ck_assert_int_eq(getsid((pid_t)pid), (pid_t)pid);
	snprintf(port_text, sizeof(port_text), "%d", port);
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);

	/* A second netserver on the same pidfile refuses to start. */
	ck_assert_int_eq(
	    start_detached(pidfile, NULL, &port2, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "which is running: is netserver already "
				  "running?") != NULL,
		      "%s", err);
	ck_assert_int_eq(read_pid(pidfile), pid);

	kill((pid_t)pid, SIGTERM);
	ck_assert_int_eq(exit_status((pid_t)pid, 10), 0);
	ck_assert(!file_exists(pidfile));
}
END_TEST

/* SIGTERM while tests run: every client hears why, in one line, and the
 * daemon exits 0 without its pidfile. */
START_TEST(sigterm_mid_test)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS",
					    "TCP_RR",	  "UDP_STREAM",
					    "UDP_RR",	  "TCP_CRR"};
	char pidfile[] = "/tmp/np-pid-XXXXXX", port_text[16], err[1024];
	const char *extra[] = {"--pidfile", pidfile, NULL};
	struct harness_server s;
	struct bg b;
	int status;
	double t0;

	close(mkstemp(pidfile));
	unlink(pidfile);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *args[] = {"-H",	 "127.0.0.1", "-p",
				      port_text, "-t",	      tests[i],
				      "-l",	 "20",	      NULL};

		ck_assert_int_eq(harness_server_start(&s, extra), 0);
		ck_assert(file_exists(pidfile));
		snprintf(port_text, sizeof(port_text), "%d", s.port);
		bg_start(&b, args);
		ck_assert_int_gt(first_child(&s), 0);
		usleep(500000);
		t0 = harness_now();
		kill(s.pid, SIGTERM);
		ck_assert_int_eq(exit_status(s.pid, 10), 0);
		status = bg_wait(&b, 10, err, sizeof(err));
		ck_assert_msg(harness_now() - t0 < 6,
			      "%s: netperf ended %.1f s after SIGTERM: %s",
			      tests[i], harness_now() - t0, err);
		/* netserver's own words end the test: 2.7's 255. */
		ck_assert_msg(status == 255, "%s: status %d: %s", tests[i],
			      status, err);
		ck_assert_msg(strstr(err, "netserver is shutting down") != NULL,
			      "%s: %s", tests[i], err);
		ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1,
			      "%s: not one line: %s", tests[i], err);
		ck_assert(!file_exists(pidfile));
		unlink(s.log);
	}
}
END_TEST

/* SIGTERM reaches an idle session too, and a netserver that serves in
 * its own process (-f). */
START_TEST(sigterm_idle_and_nofork)
{
	const char *nofork[] = {"-f", NULL};
	char buf[512], port_text[16], err[1024];
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l",	     "20", NULL};
	struct harness_server s;
	struct bg b;
	int fd;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	fd = harness_connect(s.port);
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"hello\","
					       "\"version\":1}"),
			 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	kill(s.pid, SIGTERM);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_str_eq(buf, "{\"type\":\"error\",\"message\":"
			      "\"netserver is shutting down\"}");
	ck_assert_int_eq(exit_status(s.pid, 10), 0);
	close(fd);
	unlink(s.log);

	ck_assert_int_eq(harness_server_start(&s, nofork), 0);
	snprintf(port_text, sizeof(port_text), "%d", s.port);
	bg_start(&b, args);
	usleep(1000000);
	kill(s.pid, SIGTERM);
	ck_assert_int_eq(exit_status(s.pid, 10), 0);
	ck_assert_int_eq(bg_wait(&b, 10, err, sizeof(err)), 255);
	ck_assert_msg(strstr(err, "netserver is shutting down") != NULL, "%s",
		      err);
	unlink(s.log);
}
END_TEST

/* The voluntary context switches of pid's thread named name so far, or
 * -1 when it has none of that name. */
static long
thread_switches(pid_t pid, const char *name)
{
	char path[96], buf[4096];
	struct dirent *e;
	const char *p;
	long v = -1;
	DIR *d;
	int tid;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d != NULL && (e = readdir(d)) != NULL) {
		tid = atoi(e->d_name);
		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
			 tid);
		harness_read_file(path, buf, sizeof(buf));
		buf[strcspn(buf, "\n")] = '\0';
		if (strcmp(buf, name) != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status",
			 (int)pid, tid);
		harness_read_file(path, buf, sizeof(buf));
		p = strstr(buf, "\nvoluntary_ctxt_switches:");
		if (p == NULL ||
		    sscanf(p, "\nvoluntary_ctxt_switches: %ld", &v) != 1)
			v = -1;
		break;
	}
	if (d != NULL)
		closedir(d);
	return v;
}

/* A session's guard sleeps until it has something to do: not a wake-up
 * while a test runs within its limits (the old one woke ten times a
 * second, and beside a crowded receiver that cost it its CPU), and yet
 * SIGTERM still ends the session at once. */
START_TEST(guard_sleeps)
{
	char port_text[16], err[1024];
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "UDP_RR", "-l",	     "4",  NULL};
	struct harness_server s;
	struct bg b;
	long v0, v1;
	pid_t kid;
	double t0;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	snprintf(port_text, sizeof(port_text), "%d", s.port);
	bg_start(&b, args);
	kid = first_child(&s);
	ck_assert_int_gt(kid, 0);
	usleep(800000);
	v0 = thread_switches(kid, "netserver-guard");
	ck_assert_msg(v0 >= 0, "session %d has no netserver-guard thread",
		      (int)kid);
	usleep(2000000);
	v1 = thread_switches(kid, "netserver-guard");
	ck_assert_msg(v1 >= 0 && v1 - v0 <= 2,
		      "the guard woke %ld times in 2 s of a test", v1 - v0);
	t0 = harness_now();
	kill(s.pid, SIGTERM);
	ck_assert_int_eq(exit_status(s.pid, 10), 0);
	ck_assert_int_eq(bg_wait(&b, 10, err, sizeof(err)), 255);
	ck_assert_msg(strstr(err, "netserver is shutting down") != NULL, "%s",
		      err);
	ck_assert_msg(harness_now() - t0 < 3,
		      "netperf ended %.1f s after SIGTERM", harness_now() - t0);
	unlink(s.log);
}
END_TEST

/* Makes netserver log one line: a client that sends garbage. */
static void
provoke_line(int port)
{
	char buf[256];
	int fd = harness_connect(port);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(harness_send_json(fd, "not json"), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	close(fd);
}

/* Waits until path has n lines holding needle; returns the count. */
static int
wait_lines(const char *path, const char *needle, int n)
{
	int have = -1;

	for (int i = 0; i < 100; i++) {
		have = harness_log_count(path, needle);
		if (have >= n)
			break;
		usleep(50000);
	}
	return have;
}

START_TEST(sighup_reopens_log)
{
	char log[] = "/tmp/np-log-XXXXXX", old[64];
	const char *extra[] = {"--log", log, NULL};
	struct harness_server s;

	close(mkstemp(log));
	snprintf(old, sizeof(old), "%s.1", log);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	ck_assert_int_eq(wait_lines(log, "listening on 127.0.0.1 port", 1), 1);
	provoke_line(s.port);
	ck_assert_int_eq(wait_lines(log, "malformed message", 1), 1);
	/* What logrotate does: rename, then SIGHUP. */
	ck_assert_int_eq(rename(log, old), 0);
	kill(s.pid, SIGHUP);
	ck_assert_int_eq(wait_lines(log, "log reopened on SIGHUP", 1), 1);
	provoke_line(s.port);
	ck_assert_int_eq(wait_lines(log, "malformed message", 1), 1);
	ck_assert_int_eq(harness_log_count(old, "malformed message"), 1);
	ck_assert_int_eq(harness_log_count(old, "log reopened"), 0);
	/* The daemon went on running through it: SIGHUP is not fatal, to
	 * the parent or to a session. */
	ck_assert_int_eq(harness_server_stop(&s), 0);
	ck_assert_int_eq(wait_lines(log, "netserver stopped", 1), 1);
	unlink(log);
	unlink(old);
}
END_TEST

START_TEST(drops_to_user)
{
	const char *extra[] = {"-u", "nobody", NULL};
	const char *unknown[] = {"-u", "no-such-user-np", NULL};
	char buf[512], port_text[16];
	const char *args[] = {"-H", "127.0.0.1", "-p", port_text,
			      "-t", "TCP_RR",	 "-l", "1",
			      "-c", "-C",	 NULL};
	struct harness_server s;
	struct harness_out o;
	struct passwd *pw;
	pid_t child;
	int fd;

	if (geteuid() != 0) {
		harness_skip("drops_to_user: needs root");
		return;
	}
	pw = getpwnam("nobody");
	ck_assert_ptr_nonnull(pw);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	snprintf(port_text, sizeof(port_text), "%d", s.port);
	ck_assert_int_eq(harness_proc_uid(s.pid), (long)pw->pw_uid);
	fd = harness_connect(s.port);
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"hello\","
					       "\"version\":1}"),
			 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	child = first_child(&s);
	ck_assert_int_gt(child, 0);
	ck_assert_int_eq(harness_proc_uid(child), (long)pw->pw_uid);
	close(fd);
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_int_eq(harness_server_stop(&s), 0);

	ck_assert_int_eq(harness_server_start(&s, unknown), -1);
	ck_assert_int_eq(harness_log_count(s.log, "no such user"), 1);
	unlink(s.log);
}
END_TEST

START_TEST(syslog_mode)
{
	const char *extra[] = {"--syslog", NULL};
	char port_text[16];
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "UDP_RR", "-l",	     "1",  NULL};
	struct harness_server s;
	struct harness_out o;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	snprintf(port_text, sizeof(port_text), "%d", s.port);
	provoke_line(s.port);
	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	/* Nothing but the start-up line on stderr: the rest went to
	 * syslog. */
	ck_assert_int_eq(harness_log_count(s.log, "malformed"), 0);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

static Suite *
service_suite(void)
{
	Suite *s = suite_create("service");
	TCase *cli = tcase_create("options");
	TCase *svc = tcase_create("daemon");

	tcase_add_test(cli, options);
	tcase_add_test(cli, bad_options);
	suite_add_tcase(s, cli);

	tcase_set_timeout(svc, 90);
	tcase_add_test(svc, detached_with_pidfile);
	tcase_add_test(svc, sigterm_mid_test);
	tcase_add_test(svc, sigterm_idle_and_nofork);
	tcase_add_test(svc, guard_sleeps);
	tcase_add_test(svc, sighup_reopens_log);
	tcase_add_test(svc, drops_to_user);
	tcase_add_test(svc, syslog_mode);
	suite_add_tcase(s, svc);
	return s;
}

int
main(void)
{
	return harness_run(service_suite());
}
