/*
 * netserver against a hostile client: every attack is scripted the way an
 * attacker would send it, with raw sockets and hand-written frames, never
 * through the project's own encoder. Each test starts its own netserver.
 * A check that cannot run here says why (harness_skip), on a line of
 * its own; the suite passes on what could run (harness_run).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sched.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#include <jansson.h>

#include "np/auth.h"
#include "np/module.h"

/* Reads a whole file into a NUL-terminated malloc'd buffer (NULL when it
 * cannot); *len gets its size. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Waits until the file at path holds needle n times; returns the count. */
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

/* Sends one raw frame (4-byte length, then body) and waits for the
 * answer or the close; the answer is not judged. */
static void
send_raw_frame(int port, const char *hello, const char *body, size_t len)
{
	unsigned char hdr[4] = {(unsigned char)(len >> 24),
				(unsigned char)(len >> 16),
				(unsigned char)(len >> 8), (unsigned char)len};
	char buf[4096];
	int fd = harness_connect(port);

	ck_assert_int_ge(fd, 0);
	if (hello != NULL) {
		ck_assert_int_eq(harness_send_json(fd, hello), 0);
		ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000),
				 0);
	}
	ck_assert_int_eq(harness_send(fd, hdr, 4), 0);
	ck_assert_int_eq(harness_send(fd, body, len), 0);
	harness_recv_frame(fd, buf, sizeof(buf), 5000);
	close(fd);
}

#define HELLO "{\"type\":\"hello\",\"version\":1}"

/*
 * Each attack puts a newline, an ESC sequence and a BEL into a string the
 * server quotes in its log: a message type before hello, after it, a test
 * name, a CPU binding, and jansson's own error text about raw bytes.
 */
struct forge {
	const char *hello; /* sent first, or NULL */
	const char *body;
	size_t len;
	const char *marker; /* what the log must show, escaped */
};

#define S(x) x, sizeof(x) - 1
/* A request netserver would accept but for the fields in x; REQ_SIZED
 * leaves rrecv_size and req_size to x, REQ_PORT data_port. */
#define REQ_BASE(x)                                                            \
	"{\"type\":\"request\",\"duration\":1,\"count\":0,\"send_size\":0,"  \
	"\"recv_size\":0,\"rsend_size\":0,"                                    \
	"\"rsp_size\":1,\"lsndbuf\":-1,\"lrcvbuf\":-1,\"rsndbuf\":-1,"        \
	"\"rrcvbuf\":-1,\"nodelay\":false,\"burst\":0,\"remote_cpu\":false," x \
	"}"
#define REQ_SIZED(x) REQ_BASE("\"data_port\":0," x)
#define REQ_PORT(x) REQ_BASE("\"rrecv_size\":0,\"req_size\":1," x)
#define REQ(x) REQ_SIZED("\"rrecv_size\":0,\"req_size\":1," x)
static const struct forge forges[] = {
    {NULL, S("{\"type\":\"x\\nFORGED0 \\u001b]0;pwn\\u0007\"}"),
     "x\\nFORGED0 \\x1b]0;pwn\\x07"},
    {HELLO, S("{\"type\":\"y\\nFORGED1\\u001b[2J\"}"), "y\\nFORGED1\\x1b[2J"},
    {HELLO, S(REQ("\"test\":\"T\\nFORGED2\\u001b\"")), "T\\nFORGED2\\x1b"},
    {HELLO,
     S(REQ("\"test\":\"TCP_STREAM\",\"cpu_bind\":\"0\\nFORGED3\\u001b\"")),
     "0\\nFORGED3\\x1b"},
    /* jansson quotes the token it stopped at. */
    {NULL, S("{\"type\":\"a\"} \x1b]0;\nFORGED4 * * * * root /tmp/x\n"),
     "near '\\x1b'"},
};

START_TEST(log_cannot_be_forged)
{
	const struct forge *f = &forges[_i];
	struct harness_server s;
	char *log, *p, *line;
	size_t len;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	send_raw_frame(s.port, f->hello, f->body, f->len);
	/* The line that quotes it is written by the child as it ends. */
	ck_assert_int_ge(wait_lines(s.log, "client 127.0.0.1", 1), 1);
	log = slurp(s.log, &len);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	ck_assert_ptr_nonnull(log);
	/* Nothing raw: every byte printable ASCII or a line's end. */
	for (size_t i = 0; i < len; i++)
		ck_assert_msg((log[i] >= 0x20 && log[i] < 0x7f) ||
				  log[i] == '\n',
			      "raw byte 0x%02x in the log:\n%s",
			      (unsigned char)log[i], log);
	/* No line the client wrote: each starts as netserver starts its
	 * lines, with the date, or is the start-up banner. */
	for (line = log; *line != '\0'; line = p + 1) {
		p = strchr(line, '\n');
		ck_assert_ptr_nonnull(p);
		ck_assert_msg(strncmp(line, "20", 2) == 0 ||
				  strncmp(line, "Starting netserver", 18) == 0,
			      "forged line in the log: %.*s", (int)(p - line),
			      line);
	}
	ck_assert_msg(strstr(log, f->marker) != NULL,
		      "log does not show %s escaped:\n%s", f->marker, log);
	free(log);
}
END_TEST

/*
 * netserver started with --log path: it must exit at once (within 3 s),
 * non-zero, with why in exactly one line of its stderr and no start-up
 * line, since it never became ready.
 */
static void
log_refused(const char *path, const char *why)
{
	const char *argv[] = {NP_NETSERVER, "-D",    "-p", "0", "-L",
			      "127.0.0.1",  "--log", path, NULL};
	char err[1024], *out = NULL;
	double t0 = harness_now();
	int rc, lines;

	rc = harness_exec_capture(argv, 5, &out, err, sizeof(err));
	free(out);
	ck_assert_double_lt(harness_now() - t0, 3);
	ck_assert_msg(rc > 0, "netserver exited %d: %s", rc, err);
	lines = harness_text_count(err, why);
	ck_assert_msg(lines == 1, "'%s' in %d lines: %s", why, lines, err);
	ck_assert_msg(strstr(err, "Starting netserver") == NULL, "%s", err);
}

/* A log that is a symlink is refused at start-up, and the file it points
 * to is left alone. */
START_TEST(log_symlink_refused)
{
	char dir[] = "/tmp/np-hostile-XXXXXX", target[64], link_path[64];
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/crontab", dir);
	snprintf(link_path, sizeof(link_path), "%s/netserver.log", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(symlink(target, link_path), 0);
	log_refused(link_path, "symbolic link");
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	unlink(link_path);
	unlink(target);
	rmdir(dir);
}
END_TEST

/* A FIFO as the log neither hangs start-up nor is written to. */
START_TEST(log_fifo_refused)
{
	char dir[] = "/tmp/np-hostile-XXXXXX", fifo[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/log", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	log_refused(fifo, "not a regular file");
	unlink(fifo);
	rmdir(dir);
}
END_TEST

/* The SIGHUP reopen refuses a symlink put where the log was, and logging
 * goes on to the old file. */
START_TEST(log_reopen_symlink_refused)
{
	char dir[] = "/tmp/np-hostile-XXXXXX", target[64], log[64], old[64];
	const char *extra[] = {"--log", log, NULL};
	struct harness_server s;
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/crontab", dir);
	snprintf(log, sizeof(log), "%s/netserver.log", dir);
	snprintf(old, sizeof(old), "%s/netserver.log.1", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	ck_assert_int_eq(wait_lines(log, "listening on", 1), 1);
	ck_assert_int_eq(rename(log, old), 0);
	ck_assert_int_eq(symlink(target, log), 0);
	kill(s.pid, SIGHUP);
	ck_assert_int_eq(wait_lines(old, "symbolic link", 1), 1);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	unlink(log);
	unlink(old);
	unlink(target);
	rmdir(dir);
	unlink(s.log);
}
END_TEST

/* A process's resident set (VmRSS) in KiB, or -1 when it is gone. */
static long
rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* Says hello on a new control connection; returns it. */
static int
hello(int port)
{
	char buf[4096];
	int fd = harness_connect(port);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(harness_send_json(fd, HELLO), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	return fd;
}

/*
 * 16 streams of 64 MiB receive buffers, each within the per-message
 * limit, would be a GiB in one child (and seconds of CPU to fill): the
 * request is refused before anything is allocated, with the limit named,
 * and logged once.
 */
START_TEST(session_memory_bounded)
{
	struct harness_server s;
	char buf[4096];
	double t0;
	int fd;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	fd = hello(s.port);
	t0 = harness_now();
	ck_assert_int_eq(
	    harness_send_json(fd, REQ_SIZED("\"test\":\"TCP_STREAM\","
				      "\"streams\":16,\"req_size\":1,"
				      "\"rrecv_size\":67108864")),
	    0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_double_lt(harness_now() - t0, 2);
	ck_assert_msg(strstr(buf, "\"error\"") != NULL &&
			  strstr(buf, "1024 MiB") != NULL &&
			  strstr(buf, "256 MiB per session") != NULL &&
			  strstr(buf, "--max-session-memory") != NULL,
		      "not refused: %s", buf);
	close(fd);
	ck_assert_int_eq(wait_lines(s.log, "--max-session-memory", 1), 1);
	usleep(200000);
	ck_assert_int_eq(harness_log_count(s.log, "--max-session-memory"), 1);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Where the limit is set lower, a request over it is refused in its
 * words. */
START_TEST(session_memory_option)
{
	const char *extra[] = {"--max-session-memory", "1M", NULL};
	struct harness_server s;
	char buf[4096];
	int fd;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	fd = hello(s.port);
	ck_assert_int_eq(
	    harness_send_json(fd, REQ_SIZED("\"test\":\"TCP_RR\",\"streams\":2,"
				      "\"rrecv_size\":0,\"req_size\":1048576")),
	    0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "needs 2 MiB of data buffers (2 streams)") !=
			      NULL &&
			  strstr(buf, "limit of 1 MiB per session") != NULL,
		      "not refused: %s", buf);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/*
 * A legal large test still runs, and its streams share what they only
 * send from: 16 TCP_MAERTS streams of 16 MiB sends hold one 16 MiB
 * buffer in the child, not 256 MiB.
 */
START_TEST(send_buffers_shared)
{
	struct harness_server s;
	char port[16];
	const char *args[] = {"-H", "127.0.0.1", "-p", port,
			      "-t", "TCP_MAERTS", "-l", "3",
			      "--streams", "16", "--", "-m",
			      "64K,16M", NULL};
	pid_t np, kids[4];
	long rss, peak = 0;
	double end;
	int status;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	snprintf(port, sizeof(port), "%d", s.port);
	np = harness_netperf_spawn(args);
	ck_assert_int_gt(np, 0);
	end = harness_now() + 15;
	while (harness_now() < end && waitpid(np, &status, WNOHANG) == 0) {
		if (harness_server_children(&s, kids, 4) == 1) {
			rss = rss_kib(kids[0]);
			if (rss > peak)
				peak = rss;
		}
		usleep(100000);
	}
	ck_assert_msg(harness_now() < end, "netperf did not finish");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "netperf failed");
	/* The shared buffer is 16 MiB; per-stream copies were 256. */
	ck_assert_msg(peak > 16 * 1024 && peak < 64 * 1024,
		      "child RSS peaked at %ld KiB", peak);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* One stream at the message limit is within the session limit, and runs;
 * it fills its 64 MiB buffer in well under a second. */
START_TEST(large_legal_request_runs)
{
	struct harness_server s;
	struct harness_out *o = malloc(sizeof(*o));
	char port[16];
	const char *args[] = {"-H", "127.0.0.1", "-p", port, "-t",
			      "TCP_STREAM", "-l", "1", "--", "-M",
			      "64M", NULL};

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	snprintf(port, sizeof(port), "%d", s.port);
	ck_assert_int_eq(harness_netperf(args, 20, o), 0);
	ck_assert_msg(o->status == 0, "netperf failed: %s", o->err);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	free(o);
}
END_TEST

/* Buffers are filled by doubling block copies of netperf's pattern; the
 * pattern comes out the same at every size, odd ones included. */
START_TEST(buffer_fill_pattern)
{
	static const int64_t sizes[] = {1, 7, 8, 9, 15, 17, 4097,
					(int64_t)64 << 20};
	size_t len;
	char *buf;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		buf = module_buffer(&sizes[k], 1, &len);
		ck_assert_ptr_nonnull(buf);
		ck_assert_uint_eq(len, (size_t)sizes[k]);
		for (size_t i = 0; i < len; i += len > 100000 ? 4093 : 1)
			ck_assert_int_eq(buf[i], "netperf"[i % 8]);
		ck_assert_int_eq(buf[len - 1], "netperf"[(len - 1) % 8]);
		free(buf);
	}
}
END_TEST

/* Sends one request on a fresh session and reads the answer into buf. */
static void
ask(int port, const char *req, char *buf, size_t cap)
{
	int fd = hello(port);

	ck_assert_int_eq(harness_send_json(fd, req), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, cap, 5000), 0);
	close(fd);
}

/* UDP takes a port per stream from data_port up: 65535 and 2 streams
 * would put the second on port 65536, which wraps to a random port. */
START_TEST(data_port_overflow_refused)
{
	struct harness_server s;
	char buf[4096];

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	ask(s.port,
	    REQ_PORT("\"test\":\"UDP_STREAM\",\"streams\":2,\"data_port\":65535"),
	    buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "\"error\"") != NULL &&
			  strstr(buf, "data port 65535 with 2 streams runs "
				      "past port 65535") != NULL,
		      "not refused: %s", buf);
	ask(s.port,
	    REQ_PORT("\"test\":\"UDP_STREAM\",\"streams\":2,\"data_port\":65533"),
	    buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "\"ready\"") != NULL &&
			  strstr(buf, "[65533,65534]") != NULL,
		      "a fitting range refused: %s", buf);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* A client cannot make a root netserver bind a privileged port, unless
 * the option lets it. */
START_TEST(privileged_data_port_refused)
{
	const char *allow[] = {"--allow-privileged-ports", NULL};
	struct harness_server s;
	char buf[4096];

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	ask(s.port, REQ_PORT("\"test\":\"TCP_STREAM\",\"data_port\":1000"), buf,
	    sizeof(buf));
	ck_assert_msg(strstr(buf, "\"error\"") != NULL &&
			  strstr(buf, "data port 1000 is a privileged port") !=
			      NULL,
		      "not refused: %s", buf);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	if (geteuid() != 0) {
		harness_skip("privileged_data_port_refused: the allowed case "
			     "needs root");
		return;
	}
	ck_assert_int_eq(harness_server_start(&s, allow), 0);
	ask(s.port, REQ_PORT("\"test\":\"TCP_STREAM\",\"data_port\":1000"), buf,
	    sizeof(buf));
	ck_assert_msg(strstr(buf, "\"ready\"") != NULL &&
			  strstr(buf, "\"data_port\":1000") != NULL,
		      "refused with the option: %s", buf);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Runs netserver with args, its stderr into err; returns its exit status,
 * or -1 when it had to be killed after timeout seconds. */
static int
netserver_status(const char *const *args, double timeout, char *err,
		 size_t cap)
{
	char path[] = "/tmp/np-hostile-err-XXXXXX";
	const char *argv[16];
	int fd = mkstemp(path), n = 0, status;
	ssize_t got;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	argv[n++] = NP_NETSERVER;
	for (; *args != NULL && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd, STDERR_FILENO);
		execv(NP_NETSERVER, (char *const *)argv);
		_exit(127);
	}
	status = harness_wait_status(pid, harness_now() + timeout);
	got = pread(fd, err, cap - 1, 0);
	err[got > 0 ? got : 0] = '\0';
	close(fd);
	unlink(path);
	return status;
}

/* A FIFO, a symlink or a key another user owns is refused at once. */
START_TEST(key_file_checked_before_open)
{
	char dir[] = "/tmp/np-hostile-XXXXXX", path[64], real[64], err[1024];
	const char *args[] = {"-D", "-p", "0", "-L", "127.0.0.1",
			      "--auth-file", path, NULL};
	double t0;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	snprintf(real, sizeof(real), "%s/real", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	t0 = harness_now();
	ck_assert_int_eq(netserver_status(args, 5, err, sizeof(err)), 1);
	ck_assert_double_lt(harness_now() - t0, 3);
	ck_assert_msg(strstr(err, "is not a regular file") != NULL, "%s", err);
	unlink(path);

	fd = open(real, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0123456789abcdef0123\n", 21), 21);
	close(fd);
	ck_assert_int_eq(symlink(real, path), 0);
	ck_assert_int_eq(netserver_status(args, 5, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "is a symbolic link") != NULL, "%s", err);
	unlink(path);

	if (geteuid() == 0) {
		ck_assert_int_eq(rename(real, path), 0);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(netserver_status(args, 5, err, sizeof(err)),
				 1);
		ck_assert_msg(strstr(err, "belongs to uid 65534") != NULL,
			      "%s", err);
		unlink(path);
		/* A FIFO as the pidfile does not hang the start either. */
		{
			const char *pid_args[] = {"-D", "-p", "0", "-L",
						  "127.0.0.1", "--pidfile",
						  path, NULL};

			ck_assert_int_eq(mkfifo(path, 0600), 0);
			ck_assert_int_eq(netserver_status(pid_args, 5, err,
							  sizeof(err)),
					 1);
			ck_assert_msg(strstr(err, "is not a regular file") !=
					  NULL,
				      "%s", err);
			unlink(path);
		}
	} else {
		harness_skip("key_file_checked_before_open: the owner case "
			     "needs root");
		unlink(real);
	}
	rmdir(dir);
}
END_TEST

/* Sends a request on the session fd and reads its "ready": the data port
 * and the token. */
static void
ready_for(int fd, const char *req, int *port, unsigned char *token)
{
	char buf[4096];
	json_t *ready;

	ck_assert_int_eq(harness_send_json(fd, req), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ready = json_loads(buf, 0, NULL);
	ck_assert_msg(ready != NULL && strstr(buf, "\"ready\"") != NULL,
		      "reply: %s", buf);
	*port = (int)json_integer_value(json_object_get(ready, "data_port"));
	ck_assert_int_eq(
	    auth_unhex(json_string_value(json_object_get(ready, "token")),
		       token, AUTH_TOKEN_LEN),
	    0);
	json_decref(ready);
}

/* Five local connections that never send a byte, made before the
 * client's own, cost it nothing: their tokens are awaited side by side,
 * not one after another for 2 s each (which used up the 10 s window). */
START_TEST(silent_connections_do_not_stop_a_test)
{
	struct harness_server s;
	unsigned char token[AUTH_TOKEN_LEN];
	int fd, d, silent[5], port;
	char buf[4096];
	double t0;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	fd = hello(s.port);
	ready_for(fd, REQ("\"test\":\"TCP_STREAM\""), &port, token);
	for (int i = 0; i < 5; i++) {
		silent[i] = harness_connect(port);
		ck_assert_int_ge(silent[i], 0);
	}
	/* The server has accepted them before the real one arrives. */
	usleep(300000);
	t0 = harness_now();
	d = harness_connect(port);
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(harness_send(d, token, sizeof(token)), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 8000), 0);
	ck_assert_msg(strstr(buf, "\"go\"") != NULL, "reply: %s", buf);
	ck_assert_double_lt(harness_now() - t0, 1.5);
	for (int i = 0; i < 5; i++)
		close(silent[i]);
	close(d);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Connects to 127.0.0.1:port; returns the socket. */
static int
connect_to(int port)
{
	int fd = harness_connect(port);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/*
 * TCP_CRR as a client would run it, by hand, with one silent connection
 * opened first: netserver's loop goes on serving while that one waits
 * for a token that never comes (it used to block the loop, and the test
 * made one transaction instead of thousands).
 */
START_TEST(crr_silent_connection_does_not_stall)
{
	struct harness_server s;
	unsigned char token[AUTH_TOKEN_LEN];
	char buf[8192], msg[64];
	int fd, d, quiet, port, trans = 0;
	double end;
	json_t *res;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	fd = hello(s.port);
	ready_for(fd, REQ("\"test\":\"TCP_CRR\""), &port, token);
	quiet = connect_to(port);
	/* CRR starts at "go", sent as soon as the listener is up. */
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "\"go\"") != NULL, "reply: %s", buf);
	memcpy(msg, token, sizeof(token));
	msg[sizeof(token)] = 'q';
	end = harness_now() + 1.5;
	while (harness_now() < end && trans < 100000) {
		d = connect_to(port);
		ck_assert_int_eq(harness_send(d, msg, sizeof(token) + 1), 0);
		/* The answer, then the server's close; a stalled loop
		 * answers nothing before the deadline. */
		struct timeval tv = {2, 0};

		setsockopt(d, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (recv(d, buf, 1, 0) == 1 && recv(d, buf, 1, 0) == 0)
			trans++;
		close(d);
	}
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"stop\"}"), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 8000), 0);
	res = json_loads(buf, 0, NULL);
	ck_assert_msg(res != NULL && strstr(buf, "\"results\"") != NULL,
		      "reply: %s", buf);
	/* Ground truth is what this client completed; the server counted
	 * the same transactions. */
	fprintf(stderr, "TCP_CRR: %d transactions in 1.5 s beside a silent "
			"connection\n", trans);
	/* A stalled loop answers none; 13000-18000 is usual, with or
	 * without the sanitizers, so a floor far below that holds on a
	 * loaded machine too. */
	ck_assert_msg(trans >= 200, "%d transactions in 1.5 s", trans);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "trans")),
			 trans);
	json_decref(res);
	close(quiet);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* A UDP socket connected to 127.0.0.1:port, bound to src first when it
 * is not NULL, that waits ms for an answer. */
static int
udp_to(const char *src, int port, int ms)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	struct timeval tv = {ms / 1000, ms % 1000 * 1000};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	if (src != NULL) {
		struct sockaddr_in from = {.sin_family = AF_INET};

		ck_assert_int_eq(inet_pton(AF_INET, src, &from.sin_addr), 1);
		ck_assert_int_eq(
		    bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	}
	ck_assert_int_eq(inet_pton(AF_INET, "127.0.0.1", &to.sin_addr), 1);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* One UDP_CRR transaction as netperf makes it, on a new socket: the
 * token, its echo, a 1-byte request, the 1-byte answer. Returns the
 * socket, still open, or -1 when it did not complete. */
static int
udp_crr_once(int port, const unsigned char *token)
{
	char buf[2048];
	int fd = udp_to(NULL, port, 2000);

	if (send(fd, token, AUTH_TOKEN_LEN, 0) == AUTH_TOKEN_LEN &&
	    recv(fd, buf, sizeof(buf), 0) == AUTH_TOKEN_LEN &&
	    memcmp(buf, token, AUTH_TOKEN_LEN) == 0 &&
	    send(fd, "q", 1, 0) == 1 && recv(fd, buf, sizeof(buf), 0) == 1)
		return fd;
	close(fd);
	return -1;
}

/* Nothing has come back on fd (already waiting, so never blocks). */
static int
udp_silent(int fd)
{
	char buf[2048];

	return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0 &&
	       (errno == EAGAIN || errno == EWOULDBLOCK);
}

/*
 * More token holders than UDP_CRR's netserver remembers, none asking: the
 * first is forgotten (its request later goes unanswered), and the honest
 * transactions go on. Returns how many of those it made.
 */
static int
udp_crr_flood(int port, const unsigned char *token)
{
	char buf[2048];
	int flood[100], trans = 0, d;

	for (int i = 0; i < 100; i++) {
		flood[i] = udp_to(NULL, port, 2000);
		send(flood[i], token, AUTH_TOKEN_LEN, 0);
		ck_assert_int_eq(recv(flood[i], buf, sizeof(buf), 0),
				 AUTH_TOKEN_LEN);
	}
	for (int i = 0; i < 10; i++) {
		d = udp_crr_once(port, token);
		ck_assert_int_ge(d, 0);
		trans++;
		close(d);
	}
	send(flood[0], "q", 1, 0);
	d = udp_crr_once(port, token);
	ck_assert_int_ge(d, 0);
	trans++;
	close(d);
	ck_assert_msg(udp_silent(flood[0]), "a forgotten sender answered");
	for (int i = 0; i < 100; i++)
		close(flood[i]);
	return trans;
}

/*
 * UDP_CRR's netserver among hostile datagrams on its data port: garbage
 * of every length, a wrong token and then a request, a request with no
 * token, the right token from another host, a second request on a
 * socket already served, and more token holders than it remembers that
 * never ask. None is answered (but the tokens' echoes) or counted, and
 * the honest transactions between them all complete: netserver counts
 * exactly those.
 */
START_TEST(udp_crr_hostile_datagrams)
{
	struct harness_server s;
	unsigned char token[AUTH_TOKEN_LEN], wrong[AUTH_TOKEN_LEN];
	char buf[8192], junk[1500];
	int fd, port, g, trans = 0, hostile[4];
	unsigned seed = 1;
	json_t *res;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	fd = hello(s.port);
	ready_for(fd, REQ("\"test\":\"UDP_CRR\""), &port, token);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "\"go\"") != NULL, "reply: %s", buf);
	memcpy(wrong, token, sizeof(wrong));
	wrong[5] ^= 1;
	g = udp_to(NULL, port, 100);
	for (int i = 0; i < 200; i++) {
		size_t n = (size_t)rand_r(&seed) % sizeof(junk);
		int d;

		for (size_t j = 0; j < n; j++)
			junk[j] = (char)rand_r(&seed);
		send(g, junk, i % 10 == 0 ? 0 : n, 0);
		hostile[0] = udp_to(NULL, port, 100);
		send(hostile[0], wrong, sizeof(wrong), 0);
		send(hostile[0], "q", 1, 0);
		hostile[1] = udp_to(NULL, port, 100);
		send(hostile[1], "q", 1, 0);
		hostile[2] = udp_to("127.0.0.2", port, 100);
		send(hostile[2], token, sizeof(token), 0);
		send(hostile[2], "q", 1, 0);
		hostile[3] = udp_crr_once(port, token);
		ck_assert_int_ge(hostile[3], 0);
		trans++;
		send(hostile[3], "q", 1, 0);
		/* netserver reads its one socket in order: once this answer
		 * is back, it has seen every datagram sent before. */
		d = udp_crr_once(port, token);
		ck_assert_msg(d >= 0, "transaction %d failed", trans);
		trans++;
		close(d);
		for (int k = 0; k < 4; k++) {
			ck_assert_msg(udp_silent(hostile[k]),
				      "hostile sender %d answered", k);
			close(hostile[k]);
		}
	}
	ck_assert_msg(udp_silent(g), "garbage answered");
	close(g);
	trans += udp_crr_flood(port, token);
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"stop\"}"), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 8000), 0);
	res = json_loads(buf, 0, NULL);
	ck_assert_msg(res != NULL && strstr(buf, "\"results\"") != NULL,
		      "reply: %s", buf);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "trans")),
			 trans);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "bytes_recv")),
			 trans);
	json_decref(res);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Writes v big-endian into p. */
static void
put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

/*
 * Datagrams from other hosts that land behind the client's token, before
 * netserver connects its UDP socket to the client, were counted as the
 * test's (1000 sent, 1012-1218 counted), and an empty one ended the loop.
 * The landing is made certain: netserver's child is stopped while the
 * token and then 40 datagrams and an empty one from two other addresses
 * are queued, and let go. The counts stay exact: UDP_RR's transactions
 * are the 200 this client made; UDP_STREAM's datagrams are the 1000 it
 * sent, less those the kernel says it dropped after the flood, with no
 * duplicates and none out of order.
 */
START_TEST(udp_setup_flood_not_counted)
{
	int stream = _i == 1;
	struct harness_server s;
	unsigned char token[AUTH_TOKEN_LEN], d[64];
	char buf[8192];
	int fd, u, port, made = 0;
	long drops0 = 0, drops = 0;
	pid_t kid;
	json_t *res;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	fd = hello(s.port);
	ck_assert_int_eq(harness_server_children(&s, &kid, 1), 1);
	ready_for(fd,
		  stream ? REQ("\"test\":\"UDP_STREAM\"")
			 : REQ("\"test\":\"UDP_RR\""),
		  &port, token);
	ck_assert_int_eq(kill(kid, SIGSTOP), 0);
	for (int i = 0; i < 200 && harness_proc_state(kid) != 'T'; i++)
		usleep(5000);
	ck_assert_int_eq(harness_proc_state(kid), 'T');
	u = udp_to(NULL, port, 2000);
	ck_assert_int_eq(send(u, token, sizeof(token), 0), AUTH_TOKEN_LEN);
	harness_udp_junk("127.0.0.2", port, 20);
	harness_udp_junk("127.0.0.3", port, 20);
	/* Some kernels count the filter's refusals among the drops:
	 * they are not the client's. */
	drops0 = harness_udp_drops_settled(port);
	ck_assert_int_ge(drops0, 0);
	ck_assert_int_eq(kill(kid, SIGCONT), 0);
	ck_assert_int_eq(recv(u, buf, sizeof(buf), 0), AUTH_TOKEN_LEN);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "\"go\"") != NULL, "reply: %s", buf);
	if (stream) {
		memset(d, 'x', sizeof(d));
		for (int i = 0; i < 1000; i++) {
			put_be64(d, (uint64_t)i);
			put_be64(d + 8, (uint64_t)(harness_now() * 1e9));
			ck_assert_int_eq(send(u, d, sizeof(d), 0), sizeof(d));
			made++;
			if (i % 20 == 19)
				usleep(500);
		}
		/* What the loop has not taken yet stays queued: the
		 * kernel's drops are final once the sends are done. */
		usleep(200000);
		drops = harness_udp_drops(port) - drops0;
		ck_assert_int_ge(drops, 0);
		ck_assert_int_eq(send(u, d, 0, 0), 0);
	} else {
		struct timeval tv = {0, 500000};

		setsockopt(u, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		for (int i = 0; i < 200; i++) {
			if (send(u, "q", 1, 0) != 1 ||
			    recv(u, buf, sizeof(buf), 0) != 1)
				break;
			made++;
		}
		ck_assert_int_eq(made, 200);
	}
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"stop\"}"), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 8000), 0);
	res = json_loads(buf, 0, NULL);
	ck_assert_msg(res != NULL && strstr(buf, "\"results\"") != NULL,
		      "reply: %s", buf);
	if (stream) {
		ck_assert_msg(
		    json_integer_value(json_object_get(res, "recv_calls")) ==
			    made - drops &&
			json_integer_value(json_object_get(res, "dups")) == 0 &&
			json_integer_value(json_object_get(res, "reordered")) ==
			    0,
		    "%d sent, the kernel dropped %ld: %s", made, drops, buf);
	} else {
		ck_assert_msg(
		    json_integer_value(json_object_get(res, "trans")) == made,
		    "%d transactions made: %s", made, buf);
	}
	json_decref(res);
	close(u);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Two streams, one connected late: the wait for both ends at one
 * deadline from "ready", not at a new one per stream. */
START_TEST(accept_has_one_deadline)
{
	const char *extra[] = {"--accept-timeout", "2", NULL};
	struct harness_server s;
	unsigned char token[AUTH_TOKEN_LEN];
	char buf[4096];
	int fd, d, port;
	double t0;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	fd = hello(s.port);
	ready_for(fd, REQ("\"test\":\"TCP_STREAM\",\"streams\":2"), &port,
		  token);
	t0 = harness_now();
	usleep(1500000);
	d = connect_to(port);
	ck_assert_int_eq(harness_send(d, token, sizeof(token)), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 8000), 0);
	ck_assert_msg(strstr(buf, "no data connection within 2000 ms") != NULL,
		      "reply: %s", buf);
	/* One deadline: 2 s after ready; per stream it was 3.5 s. */
	ck_assert_double_lt(harness_now() - t0, 2.9);
	close(d);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/*
 * A burst of short sessions up to --max-sessions: once they have ended,
 * another client is admitted at once, and no zombie is left to count
 * against the limit (children were reaped on a 1 s tick, so a client
 * arriving just after a burst was told the server was busy).
 */
START_TEST(ended_sessions_free_their_slots)
{
	const char *extra[] = {"--max-sessions", "4", NULL};
	struct harness_server s;
	pid_t kids[8];
	char buf[4096];
	int fds[4], fd, n;
	double until;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++)
			fds[i] = hello(s.port);
		n = harness_server_children(&s, kids, 8);
		ck_assert_int_eq(n, 4);
		for (int i = 0; i < 4; i++) {
			ck_assert_int_eq(
			    harness_send_json(fds[i], "{\"type\":\"bye\"}"), 0);
			close(fds[i]);
		}
		/* Each child ends, and is reaped the moment it is a
		 * zombie: gone from the process table at once. */
		for (int i = 0; i < n; i++) {
			double zombie;

			until = harness_now() + 3;
			while (harness_proc_state(kids[i]) != 0 &&
			       harness_proc_state(kids[i]) != 'Z' &&
			       harness_now() < until)
				usleep(1000);
			zombie = harness_now();
			while (harness_proc_state(kids[i]) == 'Z' &&
			       harness_now() < until)
				usleep(1000);
			ck_assert_msg(harness_proc_state(kids[i]) == 0,
				      "child %d did not end", (int)kids[i]);
			ck_assert_msg(harness_now() - zombie < 0.3,
				      "child %d was a zombie for %.2f s",
				      (int)kids[i], harness_now() - zombie);
		}
		/* And its slot is free. */
		fd = harness_connect(s.port);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(harness_send_json(fd, HELLO), 0);
		ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000),
				 0);
		ck_assert_msg(strstr(buf, "\"hello\"") != NULL,
			      "round %d: not admitted: %s", round, buf);
		close(fd);
		/* Let the admitted one end too before the next burst. */
		until = harness_now() + 3;
		while (harness_server_children(&s, kids + 4, 4) > 0 &&
		       harness_now() < until)
			usleep(5000);
	}
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* A connection that never says hello holds its slot for the 5 s hello
 * deadline, not for the 60 s idle limit between tests. */
START_TEST(hello_has_its_own_deadline)
{
	struct harness_server s;
	char buf[4096];
	double t0;
	int fd;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	t0 = harness_now();
	fd = connect_to(s.port);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 9000), 0);
	ck_assert_msg(strstr(buf, "no message within 5000 ms") != NULL,
		      "reply: %s", buf);
	ck_assert_double_gt(harness_now() - t0, 4.5);
	ck_assert_double_lt(harness_now() - t0, 8);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* --hello-timeout sets it, and leaves the idle limit between tests
 * alone. */
START_TEST(hello_timeout_option)
{
	const char *extra[] = {"--hello-timeout", "0.5", NULL};
	struct harness_server s;
	char buf[4096];
	double t0;
	int fd;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	t0 = harness_now();
	fd = connect_to(s.port);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "no message within 500 ms") != NULL,
		      "reply: %s", buf);
	ck_assert_double_lt(harness_now() - t0, 3);
	close(fd);
	/* After hello, silence is the idle limit's business (60 s). */
	fd = hello(s.port);
	usleep(1200000);
	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"stop\"}"), 0);
	usleep(200000);
	ck_assert_int_eq(recv(fd, buf, 1, MSG_DONTWAIT), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* A "stop" between tests resets the idle timer, but not the session's
 * lifetime: a client that keeps sending one is cut at the limit. */
START_TEST(session_lifetime_cannot_be_reset)
{
	const char *extra[] = {"--max-session-time", "2", NULL};
	struct harness_server s;
	char buf[4096];
	double t0;
	int fd;
	long n = 0;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	t0 = harness_now();
	fd = hello(s.port);
	while (harness_now() - t0 < 6) {
		if (harness_send_json(fd, "{\"type\":\"stop\"}") < 0)
			break;
		n = harness_recv_frame(fd, buf, sizeof(buf), 300);
		if (n != -1)
			break;
	}
	ck_assert_msg(n > 0, "no word from the server (%ld)", n);
	ck_assert_msg(strstr(buf, "the session ran past this server's limit "
				  "of 2 s per session") != NULL,
		      "reply: %s", buf);
	ck_assert_double_gt(harness_now() - t0, 1.8);
	ck_assert_double_lt(harness_now() - t0, 4);
	close(fd);
	ck_assert_int_eq(wait_lines(s.log, "--max-session-time", 1), 1);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Connects to [dst]:port from the address src (IPv6); returns it. */
static int
connect6_from(const char *src, const char *dst, int port)
{
	struct sockaddr_in6 a;
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	ck_assert_int_eq(inet_pton(AF_INET6, src, &a.sin6_addr), 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(inet_pton(AF_INET6, dst, &a.sin6_addr), 1);
	a.sin6_port = htons((uint16_t)port);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Says hello from src; returns the answer's text in buf. */
static int
hello6(const char *src, const char *dst, int port, char *buf, size_t cap)
{
	int fd = connect6_from(src, dst, port);

	ck_assert_int_eq(harness_send_json(fd, HELLO), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, cap, 5000), 0);
	return fd;
}

/*
 * One host holds a whole IPv6 /64: counted per address, it had endless
 * session slots. In a network namespace of this test's own, with three
 * addresses of one /64 on its loopback, the third session is refused at
 * --max-per-address 2, naming the network; with --ipv6-prefix 128 it is
 * not.
 */
START_TEST(ipv6_counted_per_prefix)
{
	const char *ns64[] = {"-L", "fd00:12::1,6", "--max-per-address", "2",
			      NULL};
	const char *ns128[] = {"-L", "fd00:12::1,6", "--max-per-address", "2",
			       "--ipv6-prefix", "128", NULL};
	const char *const *cfg[] = {ns64, ns128};
	struct harness_server s;
	char buf[4096];
	int a, b, c;

	if (unshare(CLONE_NEWNET) < 0) {
		harness_skip("ipv6_counted_per_prefix: no network namespace "
			     "(%s)",
			     strerror(errno));
		ck_assert_int_ne(geteuid(), 0);
		return;
	}
	/* This process's own namespace: it goes away with it. */
	ck_assert_int_eq(system("ip link set lo up && "
				"ip -6 addr add fd00:12::1/64 dev lo nodad && "
				"ip -6 addr add fd00:12::2/64 dev lo nodad && "
				"ip -6 addr add fd00:12::3/64 dev lo nodad && "
				"ip -6 addr add fd00:12::4/64 dev lo nodad"),
			 0);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(harness_server_start(&s, cfg[k]), 0);
		a = hello6("fd00:12::2", "fd00:12::1", s.port, buf,
			   sizeof(buf));
		ck_assert_msg(strstr(buf, "\"hello\"") != NULL, "%s", buf);
		b = hello6("fd00:12::3", "fd00:12::1", s.port, buf,
			   sizeof(buf));
		ck_assert_msg(strstr(buf, "\"hello\"") != NULL, "%s", buf);
		c = hello6("fd00:12::4", "fd00:12::1", s.port, buf,
			   sizeof(buf));
		if (k == 0)
			ck_assert_msg(strstr(buf, "limit of 2 concurrent "
						  "sessions from fd00:12::/64 "
						  "is reached") != NULL,
				      "not refused: %s", buf);
		else
			ck_assert_msg(strstr(buf, "\"hello\"") != NULL,
				      "refused per address: %s", buf);
		close(a);
		close(b);
		close(c);
		ck_assert_int_eq(harness_server_stop(&s), 0);
	}
}
END_TEST

/* A TCP_STREAM request that starts at CLOCK_REALTIME + ahead seconds. */
static void
scheduled_request(char *buf, size_t cap, double ahead)
{
	struct timespec ts;
	long long at;

	clock_gettime(CLOCK_REALTIME, &ts);
	at = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec +
	     (long long)(ahead * 1e9);
	snprintf(buf, cap, REQ("\"test\":\"TCP_STREAM\",\"start_at_ns\":%lld"),
		 at);
}

/*
 * Clients that schedule a start minutes ahead, get "go" and close: their
 * sessions used to wait for the time with the slot held, so two of them
 * locked a --max-sessions 2 server out. The wait watches the control
 * connection now: their slots come free at once and a third client is
 * served.
 */
START_TEST(abandoned_scheduled_starts_free_their_slots)
{
	const char *extra[] = {"--max-sessions", "2", NULL};
	struct harness_server s;
	unsigned char token[AUTH_TOKEN_LEN];
	char req[1024], buf[4096];
	int fd, d, port;
	double t0;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	for (int i = 0; i < 2; i++) {
		fd = hello(s.port);
		scheduled_request(req, sizeof(req), 200);
		ready_for(fd, req, &port, token);
		d = connect_to(port);
		ck_assert_int_eq(harness_send(d, token, sizeof(token)), 0);
		ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000),
				 0);
		ck_assert_msg(strstr(buf, "\"go\"") != NULL, "reply: %s", buf);
		close(d);
		close(fd);
	}
	/* Both slots were taken while they waited; now both are free. */
	t0 = harness_now();
	for (;;) {
		fd = harness_connect(s.port);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(harness_send_json(fd, HELLO), 0);
		ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000),
				 0);
		close(fd);
		if (strstr(buf, "\"hello\"") != NULL || harness_now() - t0 > 2)
			break;
		usleep(50000);
	}
	ck_assert_msg(strstr(buf, "\"hello\"") != NULL,
		      "a third client not served %.1f s after two scheduled "
		      "starts were abandoned: %s",
		      harness_now() - t0, buf);
	ck_assert_int_eq(
	    wait_lines(s.log,
		       "closed its control connection before the scheduled "
		       "start",
		       2),
	    2);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* A start further ahead than --max-start-ahead is refused, and netperf
 * prints why in one line; one within it is taken. */
START_TEST(start_too_far_ahead_refused)
{
	const char *extra[] = {"--max-start-ahead", "20", NULL};
	const char *args[] = {"-H",	    "127.0.0.1",  "-p",
			      harness_port, "--start-at", "+60",
			      "-l",	    "1",	  NULL};
	struct harness_server s;
	struct harness_out *o = calloc(1, sizeof(*o));
	unsigned char token[AUTH_TOKEN_LEN];
	char req[1024], buf[4096], *nl;
	int fd, port;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	snprintf(harness_port, sizeof(harness_port), "%d", s.port);
	ck_assert_int_eq(harness_netperf(args, 20, o), 0);
	ck_assert_int_ne(o->status, 0);
	ck_assert_msg(strstr(o->err, "the scheduled start is 6") != NULL &&
			  strstr(o->err, "past its limit of 20 s "
					 "(--max-start-ahead)") != NULL,
		      "stderr: %s", o->err);
	/* One line, and netperf's. */
	nl = strchr(o->err, '\n');
	ck_assert_msg(strncmp(o->err, "netperf: ", 9) == 0 && nl != NULL &&
			  nl[1] == '\0',
		      "stderr: %s", o->err);
	/* The default is 300 s. */
	ck_assert_int_eq(harness_server_stop(&s), 0);
	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	fd = hello(s.port);
	scheduled_request(req, sizeof(req), 310);
	ck_assert_int_eq(harness_send_json(fd, req), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "past its limit of 300 s") != NULL,
		      "reply: %s", buf);
	close(fd);
	fd = hello(s.port);
	scheduled_request(req, sizeof(req), 290);
	ready_for(fd, req, &port, token);
	close(fd);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	free(o);
}
END_TEST

/* Sums the counts of the summary lines "N more WHAT in the last second"
 * in the log at path. */
static long
held_back(const char *path, const char *what)
{
	char line[2048], tail[128];
	FILE *f = fopen(path, "r");
	long sum = 0, n;
	char *p;

	ck_assert_ptr_nonnull(f);
	snprintf(tail, sizeof(tail), " more %s in the last second", what);
	while (fgets(line, sizeof(line), f) != NULL) {
		p = strstr(line, "]: ");
		if (p != NULL && strstr(line, tail) != NULL &&
		    sscanf(p + 3, "%ld", &n) == 1)
			sum += n;
	}
	fclose(f);
	return sum;
}

/* A flood of refused clients makes a line a second and a count, not a
 * line each. */
START_TEST(refusals_rate_limited)
{
	const char *extra[] = {"--allow", "10.0.0.0/8", NULL};
	struct harness_server s;
	char buf[4096];
	int fd, lines;
	double t0, took;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	t0 = harness_now();
	for (int i = 0; i < 40; i++) {
		fd = connect_to(s.port);
		ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000),
				 0);
		ck_assert_ptr_nonnull(strstr(buf, "not allowed"));
		close(fd);
	}
	took = harness_now() - t0;
	/* The last second's count is logged once it is over. */
	usleep(1500000);
	lines = harness_log_count(s.log, "refused 127.0.0.1: your address");
	/* At most 3 lines for each second the flood touched. */
	ck_assert_int_ge(lines, 1);
	ck_assert_msg(lines <= 3 * ((int)took + 2), "%d lines in %.1f s",
		      lines, took);
	ck_assert_int_eq(lines + held_back(s.log, "clients refused"), 40);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* Connects to 127.0.0.1:port from the address src; returns it. */
static int
connect_from(const char *src, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(inet_pton(AF_INET, src, &a.sin_addr), 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(inet_pton(AF_INET, "127.0.0.1", &a.sin_addr), 1);
	a.sin_port = htons((uint16_t)port);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Says hello from src; the answer's text goes to buf. Returns the
 * connection. */
static int
hello_from(const char *src, int port, char *buf, size_t cap)
{
	int fd = connect_from(src, port);

	ck_assert_int_eq(harness_send_json(fd, HELLO), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, cap, 5000), 0);
	return fd;
}

/* Likewise for failed authentications, which the children log. */
START_TEST(auth_failures_rate_limited)
{
	char key[] = "/tmp/np-hostile-key-XXXXXX";
	const char *extra[] = {"--auth-file", key, NULL};
	const char *auth = "{\"type\":\"auth\",\"cnonce\":"
			   "\"00000000000000000000000000000000\",\"proof\":"
			   "\"0000000000000000000000000000000000000000000000"
			   "000000000000000000\"}";
	struct harness_server s;
	char buf[4096];
	int fd, lines;
	double t0, took;

	fd = mkstemp(key);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "a key of twenty bytes\n", 22), 22);
	close(fd);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	t0 = harness_now();
	/* Each from an address of its own: one address that fails is
	 * refused for a while (auth_guessing_backs_off). */
	for (int i = 0; i < 30; i++) {
		char src[32];

		snprintf(src, sizeof(src), "127.0.1.%d", 10 + i);
		fd = hello_from(src, s.port, buf, sizeof(buf));
		ck_assert_int_eq(harness_send_json(fd, auth), 0);
		ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000),
				 0);
		ck_assert_ptr_nonnull(strstr(buf, "authentication failed"));
		close(fd);
	}
	took = harness_now() - t0;
	usleep(1500000);
	lines = harness_log_count(s.log, ": authentication failed");
	ck_assert_int_ge(lines, 1);
	ck_assert_msg(lines <= 3 * ((int)took + 2), "%d lines in %.1f s",
		      lines, took);
	/* Fewer lines than failures: the point of it. */
	ck_assert_msg(lines < 30, "%d lines for 30 failures", lines);
	ck_assert_int_eq(lines + held_back(s.log,
					   "clients failed authentication"),
			 30);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	unlink(key);
}
END_TEST

/* Answers the challenge in hello (its text) with a proof under key,
 * right or spoilt; returns the server's reply in buf. */
static void
prove(int fd, const char *hello_text, const struct auth_key *key, int right,
      char *buf, size_t cap)
{
	unsigned char snonce[AUTH_NONCE_LEN], cnonce[AUTH_NONCE_LEN];
	unsigned char mac[AUTH_MAC_LEN];
	char cn[2 * AUTH_NONCE_LEN + 1], pr[2 * AUTH_MAC_LEN + 1], msg[512];
	json_t *h = json_loads(hello_text, 0, NULL);

	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(
	    auth_unhex(json_string_value(json_object_get(h, "nonce")), snonce,
		       sizeof(snonce)),
	    0);
	json_decref(h);
	memset(cnonce, 7, sizeof(cnonce));
	auth_proof(key, "netperf client v1", snonce, cnonce, mac);
	if (!right)
		mac[0] ^= 1;
	auth_hex(cnonce, sizeof(cnonce), cn);
	auth_hex(mac, sizeof(mac), pr);
	snprintf(msg, sizeof(msg),
		 "{\"type\":\"auth\",\"cnonce\":\"%s\",\"proof\":\"%s\"}", cn,
		 pr);
	ck_assert_int_eq(harness_send_json(fd, msg), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, cap, 5000), 0);
}

/*
 * Online guessing of the key: one address that sends wrong proofs as fast
 * as it can had about 100 checked a second. After each failure it is
 * refused, at once and without a fork, for 1 s, then 2, 4... so in 4 s of
 * trying only a handful of its proofs are checked. A client with the key
 * from another address is served all the while, and the back-off is
 * logged, rate-limited.
 */
START_TEST(auth_guessing_backs_off)
{
	char path[] = "/tmp/np-hostile-key-XXXXXX";
	const char *extra[] = {"--auth-file", path, NULL};
	struct harness_server s;
	struct auth_key key;
	char buf[4096], err[256];
	int fd, checked = 0, refused = 0, tries = 0;
	double t0, slowest = 0, t;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "a key of twenty bytes\n", 22), 22);
	close(fd);
	ck_assert_int_eq(auth_key_load(path, &key, err), 0);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	t0 = harness_now();
	while (harness_now() - t0 < 4 && tries < 5000) {
		tries++;
		t = harness_now();
		fd = hello_from("127.0.0.1", s.port, buf, sizeof(buf));
		if (strstr(buf, "\"hello\"") != NULL) {
			prove(fd, buf, &key, 0, buf, sizeof(buf));
			ck_assert_msg(strstr(buf, "authentication failed") !=
					  NULL,
				      "reply: %s", buf);
			checked++;
		} else {
			ck_assert_msg(strstr(buf,
					     "too many failed "
					     "authentications from "
					     "127.0.0.1: try again in") != NULL,
				      "reply: %s", buf);
			refused++;
			if (harness_now() - t > slowest)
				slowest = harness_now() - t;
		}
		close(fd);
		/* Meanwhile, the right key from another address. */
		if (tries % 50 == 1) {
			fd = hello_from("127.0.0.2", s.port, buf, sizeof(buf));
			ck_assert_msg(strstr(buf, "\"hello\"") != NULL,
				      "reply: %s", buf);
			prove(fd, buf, &key, 1, buf, sizeof(buf));
			ck_assert_msg(strstr(buf, "\"auth_ok\"") != NULL,
				      "reply: %s", buf);
			close(fd);
		}
	}
	fprintf(stderr,
		"auth back-off: %d tries in 4 s, %d proofs checked, %d "
		"refused\n",
		tries, checked, refused);
	/* Checked at 0, 1, 3 s (and 7, past the window); one more for a
	 * slow machine. */
	ck_assert_msg(checked >= 2 && checked <= 4, "%d proofs checked in 4 s",
		      checked);
	ck_assert_int_gt(refused, 10 * checked);
	/* Refused by the parent, without the hello timeout or a fork. */
	ck_assert_double_lt(slowest, 0.5);
	ck_assert_int_ge(wait_lines(s.log,
				    "127.0.0.1: 2 failed "
				    "authentications in a row; "
				    "refusing it for 2 s",
				    1),
			 1);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	unlink(path);
}
END_TEST

static Suite *
hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("log");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, log_cannot_be_forged, 0,
			    (int)(sizeof(forges) / sizeof(forges[0])));
	tcase_add_test(tc, log_symlink_refused);
	tcase_add_test(tc, log_fifo_refused);
	tcase_add_test(tc, log_reopen_symlink_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("memory");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, session_memory_bounded);
	tcase_add_test(tc, session_memory_option);
	tcase_add_test(tc, send_buffers_shared);
	tcase_add_test(tc, large_legal_request_runs);
	tcase_add_test(tc, buffer_fill_pattern);
	suite_add_tcase(s, tc);

	tc = tcase_create("smaller");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, data_port_overflow_refused);
	tcase_add_test(tc, privileged_data_port_refused);
	tcase_add_test(tc, key_file_checked_before_open);
	tcase_add_test(tc, accept_has_one_deadline);
	suite_add_tcase(s, tc);

	tc = tcase_create("admission");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, silent_connections_do_not_stop_a_test);
	tcase_add_test(tc, crr_silent_connection_does_not_stall);
	tcase_add_test(tc, udp_crr_hostile_datagrams);
	tcase_add_loop_test(tc, udp_setup_flood_not_counted, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("lockout");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, hello_has_its_own_deadline);
	tcase_add_test(tc, hello_timeout_option);
	tcase_add_test(tc, session_lifetime_cannot_be_reset);
	tcase_add_test(tc, ipv6_counted_per_prefix);
	tcase_add_test(tc, refusals_rate_limited);
	tcase_add_test(tc, auth_failures_rate_limited);
	tcase_add_test(tc, auth_guessing_backs_off);
	tcase_add_test(tc, abandoned_scheduled_starts_free_their_slots);
	tcase_add_test(tc, start_too_far_ahead_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("reaping");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, ended_sessions_free_their_slots);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(hostile_suite());
}
