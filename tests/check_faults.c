/*
 * A real netserver against clients that misbehave: 200 that vanish at
 * every step of the protocol, random bytes, a client dribbling a byte a
 * second, netperf killed mid-test. Afterwards the daemon must still serve,
 * with no children left (zombies or orphans) and the descriptors it
 * started with. Then the limits and access controls: each refusal is one
 * error line from netperf and one log line from netserver.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np/auth.h"
#include "harness.h"
#include "np/proto.h"

static struct harness_server srv;
static char port_text[16];

static void
start(const char *const *extra)
{
	ck_assert_int_eq(harness_server_start(&srv, extra), 0);
	snprintf(port_text, sizeof(port_text), "%d", srv.port);
}

static void
stop(void)
{
	ck_assert_int_eq(harness_server_stop(&srv), 0);
}

/* The fault storms' server: a short idle deadline, room for many
 * sessions from loopback. */
static void
setup_storm(void)
{
	const char *extra[] = {"--idle-timeout",
			       "2",
			       "--accept-timeout",
			       "3",
			       "--max-per-address",
			       "64",
			       NULL};

	start(extra);
}

/* Waits until the server has no children; returns how many remain. A
 * zombie is a child too, so none left means none unreaped. */
static int
settle(double timeout)
{
	double deadline = harness_now() + timeout;
	pid_t kids[64];
	int n;

	do {
		n = harness_server_children(&srv, kids, 64);
		if (n == 0)
			return 0;
		usleep(50000);
	} while (harness_now() < deadline);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "left: child %d in state %c\n", (int)kids[i],
			harness_proc_state(kids[i]));
	return n;
}

/* Waits for the server's descriptors to come back to want (refused
 * clients linger up to 2 s); returns the last count. */
static int
fds_back_to(int want, double timeout)
{
	double deadline = harness_now() + timeout;
	int n;

	do {
		n = harness_fd_count(srv.pid);
		if (n == want)
			return n;
		usleep(50000);
	} while (harness_now() < deadline);
	return n;
}

static void
serves_a_test(const char *test)
{
	const char *args[] = {"-H", "127.0.0.1", "-p", port_text, "-t",
			      test, "-l",	 "1",  NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s after the storm: %s", test, o.err);
}

/* Everything a storm must leave as it found it. */
static void
after_storm(int fds)
{
	ck_assert_int_eq(settle(15), 0);
	ck_assert_int_eq(fds_back_to(fds, 5), fds);
	ck_assert_int_eq(harness_proc_state(srv.pid) != 'Z', 1);
	serves_a_test("TCP_RR");
	serves_a_test("UDP_STREAM");
	ck_assert_int_eq(settle(10), 0);
	ck_assert_int_eq(fds_back_to(fds, 5), fds);
}

/* A request for test, as netperf would send it, as JSON text. */
static char *
request_text(const char *test, double duration)
{
	struct test_params p;
	json_t *j;
	char *s;

	memset(&p, 0, sizeof(p));
	snprintf(p.test, sizeof(p.test), "%s", test);
	p.duration = duration;
	p.req_size = p.rsp_size = 1;
	p.lsndbuf = p.lrcvbuf = p.rsndbuf = p.rrcvbuf = -1;
	p.streams = 1;
	j = proto_request_pack(&p);
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

static void
hello(int fd)
{
	char buf[4096];

	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"hello\","
					       "\"version\":1}"),
			 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "\"hello\"") != NULL, "reply: %s", buf);
}

/* Asks for test and reads ready: the data port and the token. */
static void
request(int fd, const char *test, int *port, unsigned char *token)
{
	char buf[4096], *req = request_text(test, 5);
	json_t *ready;

	ck_assert_int_eq(harness_send_json(fd, req), 0);
	free(req);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ready = json_loads(buf, 0, NULL);
	ck_assert_msg(ready != NULL && strcmp(proto_type(ready), "ready") == 0,
		      "reply: %s", buf);
	*port = (int)json_integer_value(json_object_get(ready, "data_port"));
	ck_assert_int_eq(
	    auth_unhex(json_string_value(json_object_get(ready, "token")),
		       token, AUTH_TOKEN_LEN),
	    0);
	json_decref(ready);
}

static void
expect_go(int fd)
{
	char buf[256];

	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "\"go\"") != NULL, "reply: %s", buf);
}

static int
udp_to(int port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* Drops a connection with a reset rather than a close, as a crashed or
 * unplugged client would look from close by. */
static void
reset(int fd)
{
	struct linger l = {1, 0};

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

enum stage {
	BEFORE_HELLO,
	MID_HELLO,
	AFTER_HELLO,
	MID_REQUEST,
	AFTER_READY,
	MID_TEST_TCP,
	MID_TEST_UDP,
	BEFORE_RESULTS,
	NSTAGES
};

/*
 * One client that goes as far as stage and vanishes there; its sockets are
 * left in fds (at most 2) for the caller to drop. Returns how many.
 */
static int
go_to(enum stage st, int *fds)
{
	unsigned char token[AUTH_TOKEN_LEN];
	char *req, big[65536];
	int fd, d, port, n = 1;
	size_t len;

	fd = harness_connect(srv.port);
	ck_assert_int_ge(fd, 0);
	fds[0] = fd;
	switch (st) {
	case BEFORE_HELLO:
	case NSTAGES:
		break;
	case MID_HELLO:
		ck_assert_int_eq(
		    harness_send(fd, "\0\0\0\x30{\"type\":\"he", 15), 0);
		break;
	case AFTER_HELLO:
		hello(fd);
		break;
	case MID_REQUEST:
		hello(fd);
		req = request_text("TCP_STREAM", 5);
		len = strlen(req);
		big[0] = (char)(len >> 24);
		big[1] = (char)(len >> 16);
		big[2] = (char)(len >> 8);
		big[3] = (char)len;
		memcpy(big + 4, req, len / 2);
		ck_assert_int_eq(harness_send(fd, big, 4 + len / 2), 0);
		free(req);
		break;
	case AFTER_READY:
		hello(fd);
		request(fd, "TCP_STREAM", &port, token);
		break;
	case MID_TEST_TCP:
		hello(fd);
		request(fd, "TCP_RR", &port, token);
		d = harness_connect(port);
		ck_assert_int_ge(d, 0);
		ck_assert_int_eq(harness_send(d, token, sizeof(token)), 0);
		expect_go(fd);
		ck_assert_int_eq(harness_send(d, "x", 1), 0);
		fds[n++] = d;
		break;
	case MID_TEST_UDP:
		hello(fd);
		request(fd, "UDP_RR", &port, token);
		d = udp_to(port);
		ck_assert_int_eq(send(d, token, sizeof(token), 0),
				 (ssize_t)sizeof(token));
		expect_go(fd);
		send(d, "xxxxxxxx", 8, 0);
		fds[n++] = d;
		break;
	case BEFORE_RESULTS:
		hello(fd);
		request(fd, "TCP_STREAM", &port, token);
		d = harness_connect(port);
		ck_assert_int_ge(d, 0);
		ck_assert_int_eq(harness_send(d, token, sizeof(token)), 0);
		expect_go(fd);
		memset(big, 'x', sizeof(big));
		ck_assert_int_eq(harness_send(d, big, sizeof(big)), 0);
		/* The end of the data ends the test; the client leaves
		 * before the results come. */
		shutdown(d, SHUT_WR);
		fds[n++] = d;
		break;
	}
	return n;
}

/* 200 clients, 25 at every stage, vanishing ten at a time (closed or
 * reset), so several sessions die at once. */
START_TEST(vanishing_clients)
{
	int fds = harness_fd_count(srv.pid), held[20], nheld = 0, i, j;

	for (i = 0; i < 200; i++) {
		nheld += go_to((enum stage)(i % NSTAGES), held + nheld);
		if (nheld >= 18 || i == 199) {
			for (j = 0; j < nheld; j++)
				if ((i / 10) % 2)
					reset(held[j]);
				else
					close(held[j]);
			nheld = 0;
		}
	}
	after_storm(fds);
}
END_TEST

/* xorshift64: the same bytes on every run. */
static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Reads until the server closes, at most timeout_ms; returns 1 when it
 * did. */
static int
drains(int fd, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	double deadline = harness_now() + timeout_ms / 1000.0;
	char buf[4096];
	ssize_t n;

	while (harness_now() < deadline) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return 1;
	}
	return 0;
}

/* 300 random buffers from a fixed seed: raw, behind a plausible frame
 * header, and after a proper hello. Every one ends its session. */
START_TEST(random_bytes)
{
	int fds = harness_fd_count(srv.pid), fd, mode, i;
	uint64_t seed = 0x6e6574706572660aULL;
	unsigned char buf[2048];
	size_t len, k;

	for (i = 0; i < 300; i++) {
		mode = i % 3;
		len = 1 + next_rand(&seed) % 1500;
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)next_rand(&seed);
		if (mode == 1 && len > 4) {
			/* A header announcing up to what follows, so the
			 * payload reaches the decoder. */
			size_t want = 1 + next_rand(&seed) % (len - 4);

			buf[0] = buf[1] = 0;
			buf[2] = (unsigned char)(want >> 8);
			buf[3] = (unsigned char)want;
			buf[4] = '{';
		}
		fd = harness_connect(srv.port);
		ck_assert_int_ge(fd, 0);
		if (mode == 2)
			hello(fd);
		harness_send(fd, buf, len);
		shutdown(fd, SHUT_WR);
		ck_assert_msg(drains(fd, 5000), "buffer %d kept its session",
			      i);
		close(fd);
	}
	after_storm(fds);
}
END_TEST

/* One byte a second: the idle deadline (2 s) covers a whole message, so
 * the dribbler is cut off on time, not kept alive by each byte. */
START_TEST(slow_client)
{
	static const char msg[] =
	    "\0\0\0\x1c{\"type\":\"hello\",\"version\":1}";
	struct pollfd pfd;
	char buf[512];
	double t0;
	int fd, fds = harness_fd_count(srv.pid);
	size_t i;

	fd = harness_connect(srv.port);
	ck_assert_int_ge(fd, 0);
	pfd.fd = fd;
	pfd.events = POLLIN;
	t0 = harness_now();
	for (i = 0; i < sizeof(msg) - 1; i++) {
		if (send(fd, msg + i, 1, MSG_NOSIGNAL) != 1)
			break;
		if (poll(&pfd, 1, 1000) > 0)
			break;
	}
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "no message within 2000 ms") != NULL, "%s",
		      buf);
	/* Then the end: a close, or a reset when a byte crossed it. */
	ck_assert_int_le(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_double_lt(harness_now() - t0, 4);
	ck_assert_uint_lt(i, 5);
	close(fd);
	after_storm(fds);
}
END_TEST

/* Real netperf runs of every kind killed with SIGKILL in the middle. */
START_TEST(netperf_killed_mid_test)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS",
					    "TCP_RR",	  "TCP_CRR",
					    "UDP_STREAM", "UDP_RR"};
	int fds = harness_fd_count(srv.pid);
	pid_t kids[8], np;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *args[] = {"-H",	 "127.0.0.1", "-p",
				      port_text, "-t",	      tests[i],
				      "-l",	 "10",	      NULL};

		np = harness_netperf_spawn(args);
		ck_assert_int_gt(np, 0);
		for (int j = 0; j < 100; j++) {
			if (harness_server_children(&srv, kids, 8) > 0)
				break;
			usleep(20000);
		}
		usleep(500000);
		kill(np, SIGKILL);
		waitpid(np, NULL, 0);
	}
	after_storm(fds);
}
END_TEST

static void
run_np(const char *const *args, struct harness_out *o)
{
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
}

/* netperf failed with status (1: netserver turned the session away; 255:
 * it refused or ended the test, as 2.7 exits on its netserver's error)
 * and exactly one line on stderr holding want. */
static void
one_error_line(const struct harness_out *o, int status, const char *want)
{
	ck_assert_msg(o->status == status, "status %d, not %d: %s", o->status,
		      status, o->err);
	ck_assert_msg(strstr(o->err, want) != NULL, "expected \"%s\" in: %s",
		      want, o->err);
	ck_assert_msg(strncmp(o->err, "netperf: ", 9) == 0 &&
			  strchr(o->err, '\n') == o->err + strlen(o->err) - 1,
		      "not one line: %s", o->err);
}

/* The server logged exactly one line holding want (waiting a moment for
 * a child's line). */
static void
one_log_line(const char *want)
{
	int n = 0;

	for (int i = 0; i < 40 && n == 0; i++) {
		n = harness_log_count(srv.log, want);
		if (n == 0)
			usleep(50000);
	}
	ck_assert_msg(n == 1, "%d log lines hold \"%s\"", n, want);
}

START_TEST(max_sessions)
{
	const char *extra[] = {"--max-sessions", "2", NULL};
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l",	     "1",  NULL};
	struct harness_out o;
	int a, b;

	start(extra);
	a = harness_connect(srv.port);
	b = harness_connect(srv.port);
	hello(a);
	hello(b);
	run_np(args, &o);
	one_error_line(&o, 1, "this server is busy: its limit of 2 concurrent "
			   "sessions is reached");
	one_log_line("its limit of 2 concurrent sessions");
	close(a);
	close(b);
	ck_assert_int_eq(settle(5), 0);
	run_np(args, &o);
	ck_assert_msg(o.status == 0, "%s", o.err);
	stop();
}
END_TEST

/*
 * A client that comes back for its next test while its last session's
 * child is still on its way out is served, not told the server is busy:
 * at the limit, a newcomer waits a moment for a slot. Here the slot is
 * held by a session that ends 100 ms after netperf connects.
 */
START_TEST(max_sessions_waits_for_an_ending_session)
{
	const char *extra[] = {"--max-sessions", "1", NULL};
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l",	     "0.2", "-P", "0",
			      "-v",	"0",	     NULL};
	pid_t np;
	int a, status;

	start(extra);
	a = harness_connect(srv.port);
	hello(a);
	np = harness_netperf_spawn(args);
	ck_assert_int_gt(np, 0);
	usleep(100000);
	ck_assert_int_eq(harness_send_json(a, "{\"type\":\"bye\"}"), 0);
	close(a);
	status = harness_wait_status(np, harness_now() + 20);
	ck_assert_msg(status == 0, "netperf exited %d while a slot was "
			      "coming free", status);
	stop();
}
END_TEST

START_TEST(max_per_address)
{
	const char *extra[] = {"--max-per-address", "1", NULL};
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l",	     "1",  NULL};
	struct harness_out o;
	int a;

	start(extra);
	a = harness_connect(srv.port);
	hello(a);
	run_np(args, &o);
	one_error_line(&o, 1, "this server's limit of 1 concurrent sessions "
			   "from 127.0.0.1 is reached");
	one_log_line("from 127.0.0.1 is reached");
	close(a);
	ck_assert_int_eq(settle(5), 0);
	run_np(args, &o);
	ck_assert_msg(o.status == 0, "%s", o.err);
	stop();
}
END_TEST

START_TEST(allow_list)
{
	const char *outside[] = {"--allow", "10.0.0.0/8", NULL};
	const char *inside[] = {"--allow", "10.0.0.0/8,127.0.0.0/8", "--allow",
				"::1/128", NULL};
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l",	     "1",  NULL};
	struct harness_out o;
	pid_t kids[4];

	start(outside);
	run_np(args, &o);
	one_error_line(&o, 1, "netperf: your address 127.0.0.1 is not allowed "
			   "by this server");
	one_log_line("your address 127.0.0.1 is not allowed");
	/* Refused in the parent: no child was ever started. */
	ck_assert_int_eq(harness_server_children(&srv, kids, 4), 0);
	stop();
	start(inside);
	run_np(args, &o);
	ck_assert_msg(o.status == 0, "%s", o.err);
	stop();
}
END_TEST

START_TEST(test_limits)
{
	const char *extra[] = {"--max-duration",
			       "5",
			       "--max-message",
			       "1K",
			       "--max-buffer",
			       "64K",
			       "--max-streams",
			       "2",
			       NULL};
	const char *too_long[] = {"-H", "127.0.0.1", "-p", port_text,
				  "-l", "10",	     NULL};
	const char *big_request[] = {"-H", "127.0.0.1", "-p",	  port_text,
				     "-t", "TCP_RR",	"-l",	  "1",
				     "--", "-r",	"2048,1", NULL};
	const char *big_buffer[] = {"-H", "127.0.0.1", "-p", port_text, "-l",
				    "1",  "--",	       "-S", "128K",	NULL};
	const char *streams[] = {"-H", "127.0.0.1", "-p", port_text, "-l",
				 "1",  "--streams", "3",  NULL};
	const char *fine[] = {"-H",	   "127.0.0.1", "-p", port_text,
			      "-t",	   "TCP_RR",	"-l", "1",
			      "--streams", "2",		NULL};
	struct harness_out o;

	start(extra);
	run_np(too_long, &o);
	one_error_line(&o, 255, "test length 10 s exceeds this server's limit of "
			   "5 s");
	one_log_line("test length 10 s exceeds this server's limit of 5 s");
	run_np(big_request, &o);
	one_error_line(&o, 255, "request size of 2048 bytes exceeds this server's "
			   "limit of 1024 bytes");
	run_np(big_buffer, &o);
	one_error_line(&o, 255, "send buffer of 131072 bytes exceeds this "
			   "server's limit of 65536 bytes");
	run_np(streams, &o);
	one_error_line(&o, 255, "3 streams exceed this server's limit of 2");
	run_np(fine, &o);
	ck_assert_msg(o.status == 0, "%s", o.err);
	stop();
}
END_TEST

/* A client that never opens its data connection: told after the accept
 * deadline, with the control connection still open. */
START_TEST(accept_deadline)
{
	const char *extra[] = {"--accept-timeout", "1", NULL};
	unsigned char token[AUTH_TOKEN_LEN];
	char buf[512];
	double t0;
	int fd, port;

	start(extra);
	fd = harness_connect(srv.port);
	hello(fd);
	t0 = harness_now();
	request(fd, "TCP_STREAM", &port, token);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "no data connection within 1000 ms") != NULL,
		      "%s", buf);
	ck_assert_double_lt(harness_now() - t0, 3);
	close(fd);
	stop();
}
END_TEST

/* Connections and datagrams without the test's token are turned away,
 * and the client's own still gets through before the deadline. */
START_TEST(wrong_tokens)
{
	unsigned char token[AUTH_TOKEN_LEN], bad[AUTH_TOKEN_LEN];
	char buf[4096];
	int fd, d, x, port;

	start(NULL);
	fd = harness_connect(srv.port);
	hello(fd);
	request(fd, "TCP_RR", &port, token);
	memcpy(bad, token, sizeof(bad));
	bad[0] ^= 1;
	x = harness_connect(port);
	ck_assert_int_eq(harness_send(x, bad, sizeof(bad)), 0);
	ck_assert_int_eq(drains(x, 3000), 1); /* closed unserved */
	close(x);
	one_log_line("refused a data connection from");
	d = harness_connect(port);
	ck_assert_int_eq(harness_send(d, token, sizeof(token)), 0);
	expect_go(fd);
	ck_assert_int_eq(harness_send(d, "q", 1), 0);
	ck_assert_int_eq(recv(d, buf, 1, 0), 1);
	shutdown(d, SHUT_WR);
	ck_assert_int_eq(drains(d, 3000), 1);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_msg(strstr(buf, "\"results\"") != NULL, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "\"trans\":1"));
	close(d);

	/* UDP: a wrong token and a short datagram are dropped, the right
	 * token is echoed. */
	request(fd, "UDP_RR", &port, token);
	d = udp_to(port);
	memcpy(bad, token, sizeof(bad));
	bad[15] ^= 0x80;
	send(d, bad, sizeof(bad), 0);
	send(d, token, sizeof(token) - 1, 0);
	ck_assert_int_eq(send(d, token, sizeof(token), 0),
			 (ssize_t)sizeof(token));
	ck_assert_int_eq(recv(d, buf, sizeof(buf), 0), (ssize_t)sizeof(token));
	ck_assert_int_eq(memcmp(buf, token, sizeof(token)), 0);
	expect_go(fd);
	close(d);
	close(fd);
	stop();
}
END_TEST

/* A counted test that would run for ages is cut at the duration limit
 * (plus the grace for a silent peer), and netperf says why. */
START_TEST(overtime)
{
	const char *extra[] = {"--max-duration", "1", NULL};
	const char *args[] = {"-H", "127.0.0.1",  "-p", port_text,
			      "-t", "TCP_STREAM", "-l", "-1000000000000000",
			      "--", "-m",	  "1",	NULL};
	struct harness_out o;

	start(extra);
	run_np(args, &o);
	one_error_line(&o, 255, "the test ran past this server's limit of 1 s");
	ck_assert_double_lt(o.seconds, 1 + 10 + 5);
	one_log_line("the test ran past this server's limit of 1 s");
	stop();
}
END_TEST

/*
 * A client that freezes mid-TCP_RR (SIGSTOP): netserver's loop, blocked
 * waiting for the next request with no socket time-out, is woken by its
 * coordinator's watch once the grace past the test's end is over; the
 * session ends with the reason logged, and the daemon serves on.
 */
START_TEST(client_freezes_mid_rr)
{
	const char *args[] = {"-H", "127.0.0.1", "-p", port_text,
			      "-t", "TCP_RR",	 "-l", "2",	  NULL};
	const char *want = "the peer stopped responding (nothing for 5 s "
			   "after the end of the test)";
	pid_t kids[4], np;
	double t0, gone = -1;
	int n = 0;

	start(NULL);
	np = harness_netperf_spawn(args);
	ck_assert_int_gt(np, 0);
	t0 = harness_now();
	for (int i = 0; i < 100 && n == 0; i++) {
		usleep(20000);
		n = harness_server_children(&srv, kids, 4);
	}
	ck_assert_int_gt(n, 0);
	/* Mid-test: once the child holds the data connection (a loaded
	 * machine may take a while to set the test up), and a moment more. */
	for (int i = 0; i < 250 && !harness_has_data_conn(kids[0], srv.port);
	     i++)
		usleep(20000);
	usleep(500000);
	kill(np, SIGSTOP);
	/* 2 s of test, 5 s of grace, and slack for a loaded machine. */
	while (harness_now() - t0 < 2 + 5 + 8) {
		if (harness_server_children(&srv, kids, 4) == 0) {
			gone = harness_now() - t0;
			break;
		}
		usleep(50000);
	}
	kill(np, SIGKILL);
	kill(np, SIGCONT);
	waitpid(np, NULL, 0);
	ck_assert_msg(gone > 0, "the session still ran %.0f s in",
		      2.0 + 5 + 8);
	ck_assert_msg(gone >= 2 + 5 - 0.5,
		      "the session ended %.1f s in, before the grace was over",
		      gone);
	one_log_line(want);
	serves_a_test("TCP_RR");
	stop();
}
END_TEST

static char key_path[64], wrong_path[64];

/* Writes a key file of mode 0600; returns its contents' length. */
static void
write_key(char *path, const char *key)
{
	FILE *f;
	int fd;

	snprintf(path, 64, "/tmp/np-key-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fchmod(fd, 0600);
	f = fdopen(fd, "w");
	fprintf(f, "%s\n", key);
	fclose(f);
}

static void
setup_auth(void)
{
	const char *extra[] = {"--auth-file", key_path, NULL};

	write_key(key_path, "correct horse battery staple");
	write_key(wrong_path, "incorrect horse battery staple");
	start(extra);
}

static void
teardown_auth(void)
{
	stop();
	unlink(key_path);
	unlink(wrong_path);
}

START_TEST(auth_right_key)
{
	const char *with_file[] = {"-H",     "127.0.0.1", "-p", port_text,
				   "-t",     "TCP_RR",	  "-l", "1",
				   "--auth", key_path,	  NULL};
	const char *with_env[] = {"-H",	    "127.0.0.1", "-p", port_text, "-t",
				  "UDP_RR", "-l",	 "1",  NULL};
	const char *crr[] = {"-H",     "127.0.0.1", "-p", port_text,
			     "-t",     "TCP_CRR",   "-l", "1",
			     "--auth", key_path,    NULL};
	struct harness_out o;

	run_np(with_file, &o);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_str_eq(o.err, "");
	setenv("NETPERF_AUTH_KEY", "correct horse battery staple", 1);
	run_np(with_env, &o);
	unsetenv("NETPERF_AUTH_KEY");
	ck_assert_msg(o.status == 0, "%s", o.err);
	run_np(crr, &o);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_int_eq(harness_log_count(srv.log, "authentication"), 0);
}
END_TEST

START_TEST(auth_wrong_or_no_key)
{
	const char *wrong[] = {"-H", "127.0.0.1", "-p",	      port_text, "-l",
			       "1",  "--auth",	  wrong_path, NULL};
	/* Each from an address of its own: an address that sent a wrong
	 * proof is refused for a while (netserver's back-off). */
	const char *none[] = {"-H", "127.0.0.1", "-p",	      port_text, "-l",
			      "1",  "-L",	 "127.0.0.3", NULL};
	const char *wrong_env[] = {"-H",      "127.0.0.1", "-p",
				   port_text, "-l",	   "1",
				   "-L",      "127.0.0.2", NULL};
	struct harness_out o;

	run_np(wrong, &o);
	ck_assert_str_eq(o.err, "netperf: authentication failed: wrong key\n");
	ck_assert_int_eq(o.status, 1);
	one_log_line("client 127.0.0.1: authentication failed: wrong key");
	setenv("NETPERF_AUTH_KEY", "incorrect horse battery staple", 1);
	run_np(wrong_env, &o);
	unsetenv("NETPERF_AUTH_KEY");
	ck_assert_str_eq(o.err, "netperf: authentication failed: wrong key\n");
	run_np(none, &o);
	ck_assert_str_eq(o.err, "netperf: netserver requires authentication "
				"(use --auth KEYFILE or NETPERF_AUTH_KEY)\n");
	ck_assert_int_eq(o.status, 1);
	one_log_line("without credentials");
	ck_assert_int_eq(settle(5), 0);
}
END_TEST

/* The hello of a server that wants a key says nothing of its host; a
 * client that skips the handshake is refused. */
START_TEST(auth_raw)
{
	char buf[4096], *req = request_text("TCP_RR", 1);
	int fd = harness_connect(srv.port);

	ck_assert_int_eq(harness_send_json(fd, "{\"type\":\"hello\","
					       "\"version\":1}"),
			 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\"auth\":\"hmac-sha256\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"nonce\":\""));
	ck_assert_ptr_null(strstr(buf, "hostname"));
	ck_assert_int_eq(harness_send_json(fd, req), 0);
	free(req);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	ck_assert_str_eq(buf, "{\"type\":\"error\",\"message\":"
			      "\"authentication failed\"}");
	ck_assert_int_eq(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	close(fd);
	one_log_line("sent \"request\" instead of credentials");
}
END_TEST

/* A key given to a server that asks for none is not used, and the test
 * runs. */
START_TEST(auth_not_asked)
{
	const char *args[] = {"-H",	"127.0.0.1", "-p", port_text,
			      "-t",	"TCP_RR",    "-l", "1",
			      "--auth", key_path,    NULL};
	struct harness_out o;

	stop();
	start(NULL);
	run_np(args, &o);
	ck_assert_msg(o.status == 0, "%s", o.err);
}
END_TEST

static Suite *
faults_suite(void)
{
	Suite *s = suite_create("faults");
	TCase *storm = tcase_create("storms");
	TCase *lim = tcase_create("limits and access");
	TCase *auth = tcase_create("authentication");

	tcase_add_checked_fixture(storm, setup_storm, stop);
	tcase_set_timeout(storm, 120);
	tcase_add_test(storm, vanishing_clients);
	tcase_add_test(storm, random_bytes);
	tcase_add_test(storm, slow_client);
	tcase_add_test(storm, netperf_killed_mid_test);
	suite_add_tcase(s, storm);

	/* Each check bounds its own waits; this is only the backstop, wide
	 * enough for a machine whose other CPU is busy. */
	tcase_set_timeout(lim, 120);
	tcase_add_test(lim, max_sessions);
	tcase_add_test(lim, max_sessions_waits_for_an_ending_session);
	tcase_add_test(lim, max_per_address);
	tcase_add_test(lim, allow_list);
	tcase_add_test(lim, test_limits);
	tcase_add_test(lim, accept_deadline);
	tcase_add_test(lim, wrong_tokens);
	tcase_add_test(lim, overtime);
	tcase_add_test(lim, client_freezes_mid_rr);
	suite_add_tcase(s, lim);

	tcase_add_checked_fixture(auth, setup_auth, teardown_auth);
	tcase_set_timeout(auth, 60);
	tcase_add_test(auth, auth_right_key);
	tcase_add_test(auth, auth_wrong_or_no_key);
	tcase_add_test(auth, auth_raw);
	tcase_add_test(auth, auth_not_asked);
	suite_add_tcase(s, auth);
	return s;
}

int
main(void)
{
	return harness_run(faults_suite());
}
