#include "harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef NP_NETSERVER
#define NP_NETSERVER "netserver"
#endif
#ifndef NP_NETPERF
#define NP_NETPERF "netperf"
#endif

static void
sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Where harness_skip records skips: a file the forked tests append to,
 * a line "PID message" each. */
#define HARNESS_SKIP_ENV "NP_HARNESS_SKIPS"

/* Adds pid to the set of up to max in pids, n of them so far; returns
 * the new count. */
static int
pid_set_add(pid_t *pids, int n, int max, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return n;
	if (n < max)
		pids[n++] = pid;
	return n;
}

int
harness_run(Suite *s)
{
	char path[] = "/tmp/np-skips-XXXXXX", line[512], *msg;
	SRunner *sr = srunner_create(s);
	int failed, ran, skipped = 0, skippers = 0, fd = mkstemp(path);
	pid_t pids[256];
	FILE *f;

	if (fd >= 0) {
		close(fd);
		setenv(HARNESS_SKIP_ENV, path, 1);
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	ran = srunner_ntests_run(sr);
	srunner_free(sr);
	f = fd >= 0 ? fopen(path, "r") : NULL;
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			long pid = strtol(line, &msg, 10);

			if (skipped++ == 0)
				fprintf(stderr, "Checks that could not run:\n");
			fprintf(stderr, "  %s", *msg == ' ' ? msg + 1 : msg);
			skippers = pid_set_add(
			    pids, skippers,
			    (int)(sizeof(pids) / sizeof(pids[0])), (pid_t)pid);
		}
		fclose(f);
	}
	if (fd >= 0)
		unlink(path);
	if (failed != 0)
		return EXIT_FAILURE;
	/* Each test runs in a process of its own (Check's fork mode), so
	 * the PIDs that recorded a skip count the tests that did. The
	 * suite is a skip only when every one of them did: what could run
	 * passed, and counts, and each skip is on its own line above and
	 * in ctest's log ("skipped: ..."), where scripts/test shows it. */
	if (skipped != 0 && skippers >= ran) {
		fprintf(stderr, "%d check(s) skipped, in every test: exit 77\n",
			skipped);
		return 77;
	}
	if (skipped != 0)
		fprintf(stderr,
			"%d check(s) skipped, in %d of %d tests; the rest "
			"passed\n",
			skipped, skippers, ran);
	return EXIT_SUCCESS;
}

void
harness_skip(const char *fmt, ...)
{
	const char *path = getenv(HARNESS_SKIP_ENV);
	char msg[400];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "skipped: %s\n", msg);
	/* Forked tests cannot hand a result back through memory: the
	 * parent reads this file once they are all done. */
	f = path != NULL ? fopen(path, "a") : NULL;
	if (f != NULL) {
		fprintf(f, "%ld %s\n", (long)getpid(), msg);
		fclose(f);
	}
}

int
harness_once_more(int *tries, const char *fmt, ...)
{
	va_list ap;

	if ((*tries)++ > 0)
		return 0;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; once more\n", stderr);
	return 1;
}

double
harness_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
harness_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

int
harness_server_start(struct harness_server *s, const char *const *extra)
{
	const char *argv[32];
	char line[512];
	double deadline;
	int n = 0, fd, has_listen = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	snprintf(s->log, sizeof(s->log), "/tmp/np-server-XXXXXX");
	fd = mkstemp(s->log);
	if (fd < 0)
		return -1;
	argv[n++] = NP_NETSERVER;
	argv[n++] = "-D";
	argv[n++] = "-p";
	argv[n++] = "0";
	for (const char *const *e = extra; e != NULL && *e != NULL; e++)
		if (strcmp(*e, "-L") == 0)
			has_listen = 1;
	/* Tests listen on loopback only, unless they say where. */
	if (!has_listen) {
		argv[n++] = "-L";
		argv[n++] = "127.0.0.1";
	}
	for (; extra != NULL && *extra != NULL && n < 30; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		dup2(fd, STDERR_FILENO);
		execv(NP_NETSERVER, (char *const *)argv);
		_exit(127);
	}
	close(fd);
	deadline = harness_now() + 5;
	while (harness_now() < deadline) {
		f = fopen(s->log, "r");
		if (f != NULL) {
			while (fgets(line, sizeof(line), f) != NULL) {
				char *p = strstr(line, "port '");

				if (p != NULL &&
				    sscanf(p, "port '%d'", &s->port) == 1) {
					fclose(f);
					return 0;
				}
			}
			fclose(f);
		}
		sleep_ms(20);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	return -1;
}

int
harness_wait_gone(pid_t pid, double timeout)
{
	double deadline = harness_now() + timeout;
	int status;

	while (harness_now() < deadline) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD && kill(pid, 0) < 0))
			return 1;
		sleep_ms(20);
	}
	return 0;
}

struct harness_server harness_srv;
char harness_port[16];

void
harness_setup(void)
{
	ck_assert_int_eq(harness_server_start(&harness_srv, NULL), 0);
	snprintf(harness_port, sizeof(harness_port), "%d", harness_srv.port);
}

void
harness_teardown(void)
{
	ck_assert_int_eq(harness_server_stop(&harness_srv), 0);
}

int
harness_server_stop(struct harness_server *s)
{
	double deadline = harness_now() + 5;
	int status;

	if (s->pid <= 0)
		return -1;
	kill(s->pid, SIGTERM);
	while (harness_now() < deadline) {
		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			s->pid = 0;
			unlink(s->log);
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
		sleep_ms(20);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
	return -1;
}

int
harness_server_children(const struct harness_server *s, pid_t *pids, int max)
{
	char path[64], buf[4096];
	int n = 0, fd;
	ssize_t len;
	char *p, *end;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)s->pid,
		 (int)s->pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (p = buf; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		pids[n++] = (pid_t)v;
	}
	return n;
}

int
harness_fd_count(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (dir == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

void
harness_read_file(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, cap - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static pid_t
spawn(const char *const *args, int outfd, int errfd)
{
	const char *argv[64];
	int n = 0;
	pid_t pid;

	argv[n++] = NP_NETPERF;
	for (; *args != NULL && n < 63; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		dup2(outfd, STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		execv(NP_NETPERF, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

pid_t
harness_socat(const char *const *args)
{
	const char *argv[12] = {"socat"};
	int n = 1, fd;
	pid_t pid;

	for (; *args != NULL && n < 11; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execvp("socat", (char *const *)argv);
		_exit(127);
	}
	return pid;
}

int
harness_wait_status(pid_t pid, double deadline)
{
	int status;

	while (harness_now() < deadline) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status)
						 : 128 + WTERMSIG(status);
		sleep_ms(5);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* How often the threads of a run are read while it runs, in ms. */
#define SCHED_POLL_MS 5

/* One thread's schedstat, first and last seen. */
struct sched_thread {
	pid_t tid;
	int remote;			/* a thread of a netserver child */
	int done;			/* read at its exit: no tail unseen */
	unsigned long long run0, wait0; /* at the first read */
	unsigned long long run, wait;	/* at the last */
};

/* A reading of netperf's main thread: the CLOCK_REALTIME ns just before
 * and just after it, and its run-queue wait so far (ns). */
struct sched_mark {
	long long pre, post, wait;
};

/* Room for a minute of readings every 5 ms. */
#define SCHED_MARKS 16384

/* The threads seen during one run, and the main thread's readings. */
struct sched_watch {
	struct sched_thread t[512];
	int n;
	pid_t old[64]; /* netserver children alive before the run */
	int nold;
	struct sched_mark mark[SCHED_MARKS];
	int nmark;
};

static struct harness_sched last_sched;
static struct sched_mark last_mark[SCHED_MARKS];
static int last_nmark;

static long long
real_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Reads /proc/PID/task/TID/schedstat into *run, *wait (ns); 0, or -1. */
static int
sched_read(pid_t pid, pid_t tid, unsigned long long *run,
	   unsigned long long *wait)
{
	char path[64], buf[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
		 (int)tid);
	harness_read_file(path, buf, sizeof(buf));
	return sscanf(buf, "%llu %llu", run, wait) == 2 ? 0 : -1;
}

/* Reads the main thread (pid) and notes it with the times around. */
static void
sched_mark(struct sched_watch *w, pid_t pid)
{
	unsigned long long run, wait;
	long long pre = real_now_ns();

	if (w->nmark < SCHED_MARKS && sched_read(pid, pid, &run, &wait) == 0) {
		w->mark[w->nmark].pre = pre;
		w->mark[w->nmark].post = real_now_ns();
		w->mark[w->nmark].wait = (long long)wait;
		w->nmark++;
	}
}

/* The netserver whose children the account watches; 0: harness_srv. */
static pid_t sched_server;

void
harness_sched_server(pid_t pid)
{
	sched_server = pid;
}

static pid_t
watched_server(void)
{
	return sched_server > 0 ? sched_server : harness_srv.pid;
}

/* Notes one reading of a thread; a thread first seen now starts from 0
 * (born in the run), or from this reading when base says so. */
static void
sched_note(struct sched_watch *w, pid_t tid, int remote, int base,
	   unsigned long long run, unsigned long long wait)
{
	struct sched_thread *t = NULL;

	for (int i = 0; i < w->n; i++)
		if (w->t[i].tid == tid)
			t = &w->t[i];
	if (t == NULL) {
		if (w->n == (int)(sizeof(w->t) / sizeof(w->t[0])))
			return;
		t = &w->t[w->n++];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->remote = remote;
		if (base) {
			t->run0 = run;
			t->wait0 = wait;
		}
	}
	if (run >= t->run && wait >= t->wait) {
		t->run = run;
		t->wait = wait;
	}
}

/* Reads every thread of process pid. */
static void
sched_poll_proc(struct sched_watch *w, pid_t pid, int remote, int base)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		unsigned long long run, wait;
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0 && sched_read(pid, tid, &run, &wait) == 0)
			sched_note(w, tid, remote, base, run, wait);
	}
	closedir(d);
}

/* The PIDs of process pid's children, up to max; returns how many. */
static int
children_of(pid_t pid, pid_t *out, int max)
{
	char path[64], buf[1024], *p, *end;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	harness_read_file(path, buf, sizeof(buf));
	for (p = buf; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		out[n++] = (pid_t)v;
	}
	return n;
}

/* Reads the threads of netperf (pid) and of the fixture netserver's
 * children that were not there before the run. */
static void
sched_poll(struct sched_watch *w, pid_t pid)
{
	pid_t kids[64];
	int n, old;

	sched_mark(w, pid);
	sched_poll_proc(w, pid, 0, 0);
	if (watched_server() <= 0)
		return;
	n = children_of(watched_server(), kids, 64);
	for (int i = 0; i < n; i++) {
		old = 0;
		for (int j = 0; j < w->nold; j++)
			old |= w->old[j] == kids[i];
		sched_poll_proc(w, kids[i], 1, old);
	}
}

static void
sched_begin(struct sched_watch *w)
{
	memset(w, 0, sizeof(*w));
	if (watched_server() > 0)
		w->nold = children_of(watched_server(), w->old, 64);
}

/* Sums what the watch saw into last_sched. */
static void
sched_end(struct sched_watch *w, pid_t pid)
{
	struct harness_sched *s = &last_sched;

	memset(s, 0, sizeof(*s));
	memcpy(last_mark, w->mark, (size_t)w->nmark * sizeof(w->mark[0]));
	last_nmark = w->nmark;
	for (int i = 0; i < w->n; i++) {
		const struct sched_thread *t = &w->t[i];
		double run = (double)(t->run - t->run0) / 1e9;
		double wait = (double)(t->wait - t->wait0) / 1e9;
		double tail = t->done ? 0 : SCHED_POLL_MS / 1e3;

		if (t->remote) {
			s->remote_run += run;
			s->remote_wait_lo += wait;
			s->remote_wait_hi += wait + tail;
		} else {
			s->local_run += run;
			s->local_wait_lo += wait;
			s->local_wait_hi += wait + tail;
			if (t->tid == pid)
				s->main_wait = wait;
		}
	}
}

/*
 * Waits for netperf (pid) as harness_wait_status does, reading its
 * threads' schedstat every few ms, and its main thread's once more when
 * it has exited but is not yet reaped (its last count, exact).
 */
static int
wait_watched(pid_t pid, double deadline)
{
	struct sched_watch *w = calloc(1, sizeof(*w));
	int status, rc = -1;

	if (w != NULL)
		sched_begin(w);
	while (harness_now() < deadline) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si,
			   WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid) {
			unsigned long long run, wait;

			if (w != NULL &&
			    sched_read(pid, pid, &run, &wait) == 0) {
				sched_mark(w, pid);
				sched_note(w, pid, 0, 0, run, wait);
				for (int i = 0; i < w->n; i++)
					if (w->t[i].tid == pid)
						w->t[i].done = 1;
			}
			if (waitpid(pid, &status, 0) == pid)
				rc = WIFEXITED(status) ? WEXITSTATUS(status)
						       : 128 + WTERMSIG(status);
			break;
		}
		if (w != NULL)
			sched_poll(w, pid);
		sleep_ms(SCHED_POLL_MS);
	}
	if (w != NULL) {
		sched_end(w, pid);
		free(w);
	}
	if (rc == -1 && harness_now() >= deadline) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return rc;
}

int
harness_wait_watched(pid_t pid, double deadline)
{
	return wait_watched(pid, deadline);
}

void
harness_last_sched(struct harness_sched *s)
{
	*s = last_sched;
}

double
harness_sched_main_wait_between(double t0, double t1)
{
	long long a = (long long)(t0 * 1e9), b = (long long)(t1 * 1e9);
	int i, j;

	/* The last reading done by t0, which holds no wait that ended
	 * after it; the first begun after t1, which holds every wait that
	 * ended by then. A wait is counted when it ends. */
	for (i = last_nmark - 1; i >= 0 && last_mark[i].post > a; i--)
		;
	for (j = 0; j < last_nmark && last_mark[j].pre < b; j++)
		;
	if (i < 0 || j >= last_nmark)
		return -1;
	return (double)(last_mark[j].wait - last_mark[i].wait) / 1e9;
}

double
harness_sched_wait(const struct harness_sched *s)
{
	return s->local_wait_hi + s->remote_wait_hi;
}

int
harness_netperf(const char *const *args, double timeout, struct harness_out *o)
{
	char outp[] = "/tmp/np-out-XXXXXX", errp[] = "/tmp/np-err-XXXXXX";
	int outfd = mkstemp(outp), errfd = mkstemp(errp);
	double start = harness_now();
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (outfd < 0 || errfd < 0)
		return -1;
	pid = spawn(args, outfd, errfd);
	close(outfd);
	close(errfd);
	if (pid < 0)
		return -1;
	o->status = wait_watched(pid, start + timeout);
	o->seconds = harness_now() - start;
	harness_read_file(outp, o->out, sizeof(o->out));
	harness_read_file(errp, o->err, sizeof(o->err));
	unlink(outp);
	unlink(errp);
	return 0;
}

pid_t
harness_netperf_spawn(const char *const *args)
{
	int fd = open("/dev/null", O_WRONLY);
	pid_t pid = spawn(args, fd, fd);

	close(fd);
	return pid;
}

int
harness_connect(int port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
harness_send(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
harness_send_json(int fd, const char *json)
{
	size_t len = strlen(json);
	unsigned char hdr[4] = {(unsigned char)(len >> 24),
				(unsigned char)(len >> 16),
				(unsigned char)(len >> 8), (unsigned char)len};

	if (harness_send(fd, hdr, 4) < 0)
		return -1;
	return harness_send(fd, json, len);
}

/* Reads exactly len bytes by the deadline; returns len, 0 on EOF, -1. */
static long
read_exact(int fd, char *buf, size_t len, double deadline)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		int ms = (int)((deadline - harness_now()) * 1000);

		if (ms <= 0 || poll(&pfd, 1, ms) <= 0)
			return -1;
		n = recv(fd, buf + off, len - off, 0);
		if (n == 0)
			return off == 0 ? 0 : -1;
		if (n < 0)
			return -1;
		off += (size_t)n;
	}
	return (long)len;
}

long
harness_recv_frame(int fd, char *buf, size_t cap, int timeout_ms)
{
	double deadline = harness_now() + timeout_ms / 1000.0;
	unsigned char hdr[4];
	size_t len;
	long rc;

	rc = read_exact(fd, (char *)hdr, 4, deadline);
	if (rc <= 0)
		return rc;
	len = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 |
	      (size_t)hdr[2] << 8 | hdr[3];
	if (len >= cap)
		return -1;
	if (read_exact(fd, buf, len, deadline) != (long)len)
		return -1;
	buf[len] = '\0';
	return (long)len;
}

int
harness_free_port(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int port = 0;

	/* A port the kernel picks for TCP, kept only if UDP can bind it
	 * too: a test may serve both on one number (discard). */
	for (int tries = 0; tries < 20; tries++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0), u, ok;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		bind(fd, (struct sockaddr *)&sin, sizeof(sin));
		getsockname(fd, (struct sockaddr *)&sin, &len);
		port = ntohs(sin.sin_port);
		close(fd);
		u = socket(AF_INET, SOCK_DGRAM, 0);
		ok = u >= 0 &&
		     bind(u, (struct sockaddr *)&sin, sizeof(sin)) == 0;
		if (u >= 0)
			close(u);
		if (ok)
			break;
	}
	return port;
}

/* The measurement suites' helpers: big outputs, JSON, KEY=value. */
#include <math.h>
#include <sys/prctl.h>

/* Reads the whole file into a malloc'd NUL-terminated buffer, or NULL. */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *grown;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap);
			if (grown == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = grown;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

int
harness_exec_capture(const char *const *argv, double timeout, char **out,
		     char *err, size_t cap)
{
	char outp[] = "/tmp/np-cap-out-XXXXXX",
	     errp[] = "/tmp/np-cap-err-XXXXXX";
	int outfd = mkstemp(outp), errfd = mkstemp(errp), rc = -1;
	double start = harness_now();
	pid_t parent = getpid(), pid = -1;

	*out = NULL;
	if (cap > 0)
		err[0] = '\0';
	if (outfd < 0 || errfd < 0)
		goto files;
	pid = fork();
	if (pid == 0) {
		/* A failed or timed-out test leaves nothing running. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(outfd, STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		goto files;
	rc = wait_watched(pid, start + timeout);
	*out = slurp(outp);
	if (cap > 0)
		harness_read_file(errp, err, cap);
files:
	if (outfd >= 0) {
		close(outfd);
		unlink(outp);
	}
	if (errfd >= 0) {
		close(errfd);
		unlink(errp);
	}
	if (*out == NULL)
		*out = calloc(1, 1);
	return rc;
}

json_t *
harness_json_parse(const char *text)
{
	json_error_t e;

	return json_loads(text, JSON_DISABLE_EOF_CHECK, &e);
}

json_t *
harness_json_at(json_t *doc, const char *path)
{
	char key[128];
	size_t len;
	char *end;

	while (doc != NULL && *path != '\0') {
		len = strcspn(path, ".");
		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		path += len;
		if (*path == '.')
			path++;
		if (json_is_array(doc)) {
			unsigned long i = strtoul(key, &end, 10);

			if (end == key || *end != '\0')
				return NULL;
			doc = json_array_get(doc, i);
		} else {
			doc = json_object_get(doc, key);
		}
	}
	return json_is_null(doc) ? NULL : doc;
}

double
harness_json_num(json_t *doc, const char *path)
{
	json_t *v = harness_json_at(doc, path);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

int
harness_keyval(const char *text, const char *key, char *val, size_t cap)
{
	size_t klen = strlen(key), n;
	const char *p;

	for (p = text; p != NULL && *p != '\0';) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			p += klen + 1;
			n = strcspn(p, "\n");
			if (n >= cap)
				n = cap - 1;
			memcpy(val, p, n);
			val[n] = '\0';
			return 0;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return -1;
}

long
harness_udp_drops(int port)
{
	static const char *const files[] = {"/proc/net/udp", "/proc/net/udp6"};
	static const char *const addrs[] = {"0100007F",
					    "0000000000000000FFFF00000100007F"};
	char line[512], want[64], *last;
	long drops = -1;
	FILE *f;

	for (int i = 0; i < 2; i++) {
		f = fopen(files[i], "r");
		if (f == NULL)
			continue;
		snprintf(want, sizeof(want), " %s:%04X ", addrs[i], port);
		while (fgets(line, sizeof(line), f) != NULL) {
			if (strstr(line, want) == NULL)
				continue;
			/* The drops are the line's last column. */
			last = strrchr(line, ' ');
			if (last != NULL)
				drops = strtol(last + 1, NULL, 10);
		}
		fclose(f);
	}
	return drops;
}

long
harness_udp_drops_settled(int port)
{
	long was = harness_udp_drops(port), now = was;

	/* Loopback hands a datagram over in a softirq, which a busy
	 * machine may run late, in ksoftirqd. */
	for (int i = 0; i < 50; i++) {
		usleep(20000);
		now = harness_udp_drops(port);
		if (now == was)
			break;
		was = now;
	}
	return now;
}

char
harness_proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' ? p[2] : 0;
}

long
harness_proc_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Uid: %ld", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

int
harness_text_count(const char *text, const char *needle)
{
	const char *p, *nl;
	int n = 0;

	for (p = text; *p != '\0'; p = *nl != '\0' ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		if (memmem(p, (size_t)(nl - p), needle, strlen(needle)) != NULL)
			n++;
	}
	return n;
}

int
harness_log_count(const char *path, const char *needle)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	int n = 0;

	if (f == NULL)
		return -1;
	/* The whole file (logs hold no NUL), however long its lines. */
	if (getdelim(&text, &len, '\0', f) > 0)
		n = harness_text_count(text, needle);
	free(text);
	fclose(f);
	return n;
}

int
harness_line_numbers(const char *p, double *v, int max)
{
	int n = 0;
	char *end;

	while (n < max && *p != '\n' && *p != '\0') {
		double x = strtod(p, &end);

		if (end == p)
			break;
		v[n++] = x;
		p = end;
		while (*p == ' ')
			p++;
	}
	return n;
}

const char *
harness_data_line(const char *out, int i)
{
	const char *p = strstr(out, "\n\n");

	if (p == NULL)
		return NULL;
	for (p += 2; i > 0; i--) {
		p = strchr(p, '\n');
		if (p == NULL)
			return NULL;
		p++;
	}
	return p;
}

int
harness_data_numbers(const char *out, int i, double *v, int max)
{
	const char *l = harness_data_line(out, i);

	return l != NULL ? harness_line_numbers(l, v, max) : 0;
}

void
harness_write_file(const char *path, const void *buf, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_msg(fd >= 0, "cannot create %s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* --- network namespaces ---------------------------------------------- */

int
harness_cmd(char *out, size_t cap, ...)
{
	const char *argv[32];
	char err[2048], *o = NULL;
	int n = 0, rc;
	va_list ap;

	va_start(ap, cap);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	rc = harness_exec_capture(argv, HARNESS_CMD_TIMEOUT, &o, err,
				  sizeof(err));
	snprintf(out, cap, "%s%s", o ? o : "", err);
	free(o);
	return rc;
}

void
harness_netns_name(struct harness_netns *n, const char *tag, pid_t runner,
		   const char *dev, const char *net)
{
	int me = (int)getpid(), x = me % 250 + 1;

	memset(n, 0, sizeof(*n));
	snprintf(n->a, sizeof(n->a), "%sa-%d-%d", tag, (int)runner, me);
	snprintf(n->b, sizeof(n->b), "%sb-%d-%d", tag, (int)runner, me);
	snprintf(n->dev_a, sizeof(n->dev_a), "%sa%d", dev, me);
	snprintf(n->dev_b, sizeof(n->dev_b), "%sb%d", dev, me);
	snprintf(n->addr_a, sizeof(n->addr_a), "%s.%d.1", net, x);
	snprintf(n->addr_b, sizeof(n->addr_b), "%s.%d.2", net, x);
}

void
harness_netns_add(struct harness_netns *n)
{
	HARNESS_MUST("ip", "netns", "add", n->a);
	HARNESS_MUST("ip", "netns", "add", n->b);
	HARNESS_MUST("ip", "-n", n->a, "link", "set", "lo", "up");
	HARNESS_MUST("ip", "-n", n->b, "link", "set", "lo", "up");
}

void
harness_netns_veth(struct harness_netns *n)
{
	char cidr_a[24], cidr_b[24];

	snprintf(cidr_a, sizeof(cidr_a), "%s/24", n->addr_a);
	snprintf(cidr_b, sizeof(cidr_b), "%s/24", n->addr_b);
	/* Both ends are born inside their namespaces: the host never sees
	 * the pair, not even for a moment. */
	HARNESS_MUST("ip", "link", "add", n->dev_a, "netns", n->a, "type",
		     "veth", "peer", "name", n->dev_b, "netns", n->b);
	HARNESS_MUST("ip", "-n", n->a, "addr", "add", cidr_a, "dev", n->dev_a);
	HARNESS_MUST("ip", "-n", n->b, "addr", "add", cidr_b, "dev", n->dev_b);
	HARNESS_MUST("ip", "-n", n->a, "link", "set", n->dev_a, "up");
	HARNESS_MUST("ip", "-n", n->b, "link", "set", n->dev_b, "up");
}

/* SIGKILLs every process inside namespace ns, then deletes it. */
static void
netns_remove(const char *ns)
{
	char out[4096], *p, *end;

	if (harness_cmd(out, sizeof(out), "ip", "netns", "pids", ns, NULL) == 0)
		for (p = out;; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			if (pid > 1)
				kill((pid_t)pid, SIGKILL);
		}
	harness_cmd(out, sizeof(out), "ip", "netns", "del", ns, NULL);
}

void
harness_netns_del(struct harness_netns *n)
{
	/* Deleting a namespace deletes the device inside it, a veth's peer,
	 * and whatever qdisc or nft table was put on them. */
	if (n->b[0] != '\0') {
		netns_remove(n->b);
		n->b[0] = '\0';
	}
	if (n->a[0] != '\0') {
		netns_remove(n->a);
		n->a[0] = '\0';
	}
}

void
harness_netns_sweep(const char *tag, pid_t runner)
{
	char pa[32], pb[32];
	struct dirent *d;
	DIR *dir;

	snprintf(pa, sizeof(pa), "%sa-%d-", tag, (int)runner);
	snprintf(pb, sizeof(pb), "%sb-%d-", tag, (int)runner);
	dir = opendir("/run/netns");
	if (dir == NULL)
		return;
	while ((d = readdir(dir)) != NULL)
		if (strncmp(d->d_name, pa, strlen(pa)) == 0 ||
		    strncmp(d->d_name, pb, strlen(pb)) == 0)
			netns_remove(d->d_name);
	closedir(dir);
}

void
harness_tmp_sweep(const char *prefix)
{
	char path[300];
	struct dirent *d;
	DIR *dir;

	dir = opendir("/tmp");
	if (dir == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", d->d_name);
		unlink(path);
	}
	closedir(dir);
}

int
harness_netns_possible(void)
{
	char out[4096], name[48];

	if (geteuid() != 0)
		return 0;
	snprintf(name, sizeof(name), "np-probe-%d", (int)getpid());
	if (harness_cmd(out, sizeof(out), "ip", "netns", "add", name, NULL) !=
	    0)
		return 0;
	harness_cmd(out, sizeof(out), "ip", "netns", "del", name, NULL);
	return 1;
}

int
harness_has_data_conn(pid_t pid, int ctl_port)
{
	char path[64], link[64], line[256];
	unsigned long inodes[64], ino;
	unsigned lport, state;
	int n = 0, found = 0;
	FILE *f;

	for (int fd = 0; fd < 256 && n < 64; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%lu]", &ino) == 1)
			inodes[n++] = ino;
	}
	f = fopen("/proc/net/tcp", "r");
	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line,
			   "%*d: %*x:%x %*x:%*x %x %*s %*s %*s %*s %*s "
			   "%lu",
			   &lport, &state, &ino) != 3 ||
		    state != 1 || lport == (unsigned)ctl_port)
			continue;
		for (int i = 0; i < n && !found; i++)
			found = inodes[i] == ino;
	}
	fclose(f);
	return found;
}

int
harness_have_schedstat(void)
{
	return access("/proc/thread-self/schedstat", R_OK) == 0;
}

int
harness_run_measured(const char *const *argv, const char *out_path,
		     const char *err_path, double timeout, long *maxrss_kb,
		     double *secs)
{
	double t0 = harness_now();
	struct rusage ru;
	int st = 0;
	pid_t pid = fork(), w;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	memset(&ru, 0, sizeof(ru));
	while ((w = wait4(pid, &st, WNOHANG, &ru)) == 0) {
		if (harness_now() - t0 > timeout) {
			kill(pid, SIGKILL);
			w = wait4(pid, &st, 0, &ru);
			*secs = harness_now() - t0;
			*maxrss_kb = ru.ru_maxrss;
			return -1;
		}
		usleep(10000);
	}
	*secs = harness_now() - t0;
	*maxrss_kb = ru.ru_maxrss;
	ck_assert_int_eq(w, pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void
harness_asan_small_quarantine(void)
{
	const char *o = getenv("ASAN_OPTIONS");
	char buf[512];

	snprintf(buf, sizeof(buf), "%s%squarantine_size_mb=16",
		 o != NULL ? o : "", o != NULL && *o != '\0' ? ":" : "");
	setenv("ASAN_OPTIONS", buf, 1);
}

void
harness_udp_junk(const char *src, int port, int n)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	struct sockaddr_in from = {.sin_family = AF_INET};
	unsigned char d[64];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(inet_pton(AF_INET, src, &from.sin_addr), 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	ck_assert_int_eq(inet_pton(AF_INET, "127.0.0.1", &to.sin_addr), 1);
	memset(d, 0, sizeof(d));
	for (int i = 0; i <= n; i++) {
		d[7] = (unsigned char)i;
		ck_assert_int_ge(sendto(fd, d, i < n ? sizeof(d) : 0, 0,
					(struct sockaddr *)&to, sizeof(to)),
				 0);
	}
	close(fd);
}

/* Starts the relay between l's devices, holding datagrams delays (its
 * argument: "A2B_US" or "A2B_US,B2A_US"), and waits for its "ready". */
static void
line_relay(struct harness_line *l, const char *delayline, const char *delays)
{
	char text[64];
	int in[2], out[2];
	ssize_t n;
	pid_t parent = getpid();

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	l->relay = fork();
	if (l->relay == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl(delayline, delayline, l->ns.a, l->ns.dev_a, l->ns.b,
		      l->ns.dev_b, delays, "90", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(l->relay, 0);
	close(in[0]);
	close(out[1]);
	l->relay_in = in[1];
	n = read(out[0], text, sizeof(text) - 1);
	close(out[0]);
	ck_assert_msg(n >= 5 && strncmp(text, "ready", 5) == 0,
		      "the delay line did not start");
}

void
harness_line_server(struct harness_line *l, pid_t runner, const char *logtag)
{
	/* Its loops here block far more than they run (a window-bound
	 * flow, or one transaction each 20 ms), and RT throttling bounds
	 * them anyway. */
	const char *argv[] = {"ip", "netns", "exec",	   l->ns.b, "chrt",
			      "-f", "5",     NP_NETSERVER, "-D",    "-p",
			      "0",  "-L",    l->ns.addr_b, NULL};
	pid_t parent = getpid();
	char text[1024];
	int fd;

	snprintf(l->log, sizeof(l->log), "/tmp/%s-%d-srv-XXXXXX", logtag,
		 (int)runner);
	fd = mkstemp(l->log);
	ck_assert_int_ge(fd, 0);
	l->srv = fork();
	if (l->srv == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd);
	ck_assert_int_gt(l->srv, 0);
	for (double t = harness_now() + 5; harness_now() < t;) {
		char *p;

		harness_read_file(l->log, text, sizeof(text));
		p = strstr(text, "port '");
		if (p != NULL && sscanf(p, "port '%d'", &l->port) == 1) {
			snprintf(l->port_text, sizeof(l->port_text), "%d",
				 l->port);
			return;
		}
		usleep(20000);
	}
	ck_abort_msg("netserver did not start: %s", text);
}

void
harness_line_up(struct harness_line *l, const char *delayline,
		const char *delays, const char *tag, pid_t runner,
		const char *dev, const char *net, const char *logtag)
{
	char pa[160], pb[160];

	memset(l, 0, sizeof(*l));
	harness_netns_name(&l->ns, tag, runner, dev, net);
	snprintf(pa, sizeof(pa), "%s/32", l->ns.addr_b);
	snprintf(pb, sizeof(pb), "%s/32", l->ns.addr_a);
	harness_netns_add(&l->ns);
	line_relay(l, delayline, delays);
	HARNESS_MUST("ip", "-n", l->ns.a, "addr", "add", l->ns.addr_a, "peer",
		     pa, "dev", l->ns.dev_a);
	HARNESS_MUST("ip", "-n", l->ns.b, "addr", "add", l->ns.addr_b, "peer",
		     pb, "dev", l->ns.dev_b);
	HARNESS_MUST("ip", "-n", l->ns.a, "link", "set", l->ns.dev_a, "up");
	HARNESS_MUST("ip", "-n", l->ns.b, "link", "set", l->ns.dev_b, "up");
	harness_line_server(l, runner, logtag);
}

void
harness_line_down(struct harness_line *l)
{
	if (l->srv > 0) {
		kill(l->srv, SIGTERM);
		harness_wait_status(l->srv, harness_now() + 5);
		l->srv = 0;
	}
	if (l->relay > 0) {
		close(l->relay_in);
		kill(l->relay, SIGTERM);
		harness_wait_status(l->relay, harness_now() + 5);
		l->relay = 0;
	}
	harness_netns_del(&l->ns);
	if (l->log[0] != '\0')
		unlink(l->log);
	memset(l, 0, sizeof(*l));
}

int
harness_run_line(Suite *s, int can_line)
{
	int rc = harness_run(s);

	if (!can_line)
		fprintf(stderr,
			"skipped: %s: the delay-line cases: they need root, "
			"/dev/net/tun and \"ip netns add\"\n",
			program_invocation_short_name);
	return rc;
}

int
harness_line_possible(void)
{
	if (access("/dev/net/tun", R_OK | W_OK) != 0)
		return 0;
	return harness_netns_possible();
}
