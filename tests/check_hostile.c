/*
 * netserver against a hostile client: every attack is scripted the way an
 * attacker would send it, with raw sockets and hand-written frames, never
 * through the project's own encoder. Each test starts its own netserver.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

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
/* A request netserver would accept but for the fields in x. */
#define REQ(x)                                                                 \
	"{\"type\":\"request\",\"duration\":1,\"count\":0,\"send_size\":0,"  \
	"\"recv_size\":0,\"rsend_size\":0,\"rrecv_size\":0,\"req_size\":1,"  \
	"\"rsp_size\":1,\"lsndbuf\":-1,\"lrcvbuf\":-1,\"rsndbuf\":-1,"        \
	"\"rrcvbuf\":-1,\"nodelay\":false,\"burst\":0,\"remote_cpu\":false," \
	"\"data_port\":0," x "}"
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

/* A log that is a symlink is refused at start-up, and the file it points
 * to is left alone. */
START_TEST(log_symlink_refused)
{
	char dir[] = "/tmp/np-hostile-XXXXXX", target[64], link_path[64];
	const char *extra[] = {"--log", link_path, NULL};
	struct harness_server s;
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/crontab", dir);
	snprintf(link_path, sizeof(link_path), "%s/netserver.log", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(symlink(target, link_path), 0);
	/* It exits at once with its reason; the start-up line came first. */
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	ck_assert(harness_wait_gone(s.pid, 5));
	ck_assert_int_eq(harness_log_count(s.log, "symbolic link"), 1);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	unlink(link_path);
	unlink(target);
	rmdir(dir);
	unlink(s.log);
}
END_TEST

/* A FIFO as the log neither hangs start-up nor is written to. */
START_TEST(log_fifo_refused)
{
	char dir[] = "/tmp/np-hostile-XXXXXX", fifo[64];
	const char *extra[] = {"--log", fifo, NULL};
	struct harness_server s;
	double t0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/log", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	t0 = harness_now();
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	ck_assert(harness_wait_gone(s.pid, 5));
	ck_assert_double_lt(harness_now() - t0, 3);
	ck_assert_int_eq(harness_log_count(s.log, "not a regular file"), 1);
	unlink(fifo);
	rmdir(dir);
	unlink(s.log);
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
	return s;
}

int
main(void)
{
	return harness_run(hostile_suite());
}
