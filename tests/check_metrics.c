/*
 * netserver --metrics: the request reader and the exposition as pure
 * functions; then a real netserver's endpoint under real tests, checked by
 * Debian's promtool and scraped by a real Prometheus, whose query API must
 * give back exactly the tests this suite ran and the refusals it caused;
 * and the endpoint against clients that misbehave.
 */
#include "harness.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np/metrics.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

struct req_case {
	const char *req;
	enum metrics_answer want;
	int head;
};

static const struct req_case reqs[] = {
    {"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", METRICS_HTTP_OK, 0},
    {"GET /metrics HTTP/1.0\n\n", METRICS_HTTP_OK, 0},
    {"HEAD /metrics HTTP/1.1\r\n\r\n", METRICS_HTTP_OK, 1},
    {"GET /metrics?x=1 HTTP/1.1\r\n\r\n", METRICS_HTTP_OK, 0},
    {"GET /metricsx HTTP/1.1\r\n\r\n", METRICS_HTTP_NOT_FOUND, 0},
    {"GET / HTTP/1.1\r\n\r\n", METRICS_HTTP_NOT_FOUND, 0},
    {"POST /metrics HTTP/1.1\r\n\r\n", METRICS_HTTP_NOT_ALLOWED, 0},
    {"DELETE /metrics HTTP/1.1\r\n\r\n", METRICS_HTTP_NOT_ALLOWED, 0},
    {"GET /metrics\r\n\r\n", METRICS_HTTP_BAD, 0},
    {"GET /metrics SMTP/1.1\r\n\r\n", METRICS_HTTP_BAD, 0},
    {"GET /met\x01rics HTTP/1.1\r\n\r\n", METRICS_HTTP_BAD, 0},
    {"GET /metrics HTTP/1.1\r\nHost: x\r\n", METRICS_HTTP_MORE, 0},
    {"", METRICS_HTTP_MORE, 0},
};

START_TEST(test_request)
{
	const struct req_case *c = &reqs[_i];
	int head = -1;

	ck_assert_int_eq(metrics_request(c->req, strlen(c->req), &head),
			 c->want);
	if (c->want == METRICS_HTTP_OK)
		ck_assert_int_eq(head, c->head);
}
END_TEST

/* A request that never ends its head is refused at the limit, not read
 * for ever. */
START_TEST(test_request_too_long)
{
	static char big[METRICS_REQUEST_MAX + 10];
	int head;

	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	ck_assert_int_eq(metrics_request(big, METRICS_REQUEST_MAX, &head),
			 METRICS_HTTP_BAD);
	ck_assert_int_eq(metrics_request(big, sizeof(big), &head),
			 METRICS_HTTP_BAD);
}
END_TEST

/* Events in, counts out: a test's end adds its bytes and transactions
 * and its name's count; an unknown name counts as "other" and is never
 * printed; garbage is counted as lost, never applied. */
START_TEST(test_events)
{
	struct metrics m;
	struct metrics_event ev;
	char text[8192];
	pid_t pid;
	int delta;

	metrics_init(&m, 1.0);
	metrics_event_make(&ev, METRICS_EV_TEST_START, "TCP_RR", 0, 0, 3, 0);
	ck_assert_int_eq(metrics_apply(&m, &ev, sizeof(ev), &pid, &delta), 0);
	ck_assert_int_eq(delta, 3);
	ck_assert_int_eq(pid, getpid());
	metrics_event_make(&ev, METRICS_EV_TEST_END, "TCP_RR", 100, 50, 3, 0);
	ck_assert_int_eq(metrics_apply(&m, &ev, sizeof(ev), &pid, &delta), 0);
	ck_assert_int_eq(delta, -3);
	metrics_event_make(&ev, METRICS_EV_TEST_END, "x\"}\n evil 1", 7, 0, 1,
			   0);
	ck_assert_int_eq(metrics_apply(&m, &ev, sizeof(ev), &pid, &delta), 0);
	metrics_event_make(&ev, METRICS_EV_REFUSED, NULL, 0, 0, 0,
			   METRICS_REFUSED_VERSION);
	ck_assert_int_eq(metrics_apply(&m, &ev, sizeof(ev), &pid, &delta), 0);
	ev.refusal = 99;
	ck_assert_int_eq(metrics_apply(&m, &ev, sizeof(ev), &pid, &delta),
			 -1);
	ck_assert_int_eq(metrics_apply(&m, "junk", 4, &pid, &delta), -1);
	ck_assert_int_gt(metrics_render(&m, 2, 5, text, sizeof(text)), 0);
	ck_assert_ptr_nonnull(
	    strstr(text, "\nnetserver_tests_total{test=\"TCP_RR\"} 1\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "\nnetserver_tests_total{test=\"other\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nnetserver_bytes_total 107\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "\nnetserver_transactions_total 50\n"));
	ck_assert_ptr_nonnull(strstr(
	    text, "\nnetserver_sessions_refused_total{reason=\"version\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nnetserver_events_lost_total 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nnetserver_sessions_active 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nnetserver_streams_active 5\n"));
	ck_assert_ptr_null(strstr(text, "evil"));
	/* Too small a buffer is a failure, not a cut exposition. */
	ck_assert_int_eq(metrics_render(&m, 0, 0, text, 100), -1);
}
END_TEST

/* One HTTP GET to 127.0.0.1:port; returns the whole response
 * (malloc'd), or NULL when the connection fails. */
static char *
http_get(int port, const char *path)
{
	char req[1024];
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	double deadline = harness_now() + 10;
	int fd = harness_connect(port);
	ssize_t n;

	if (fd < 0) {
		free(buf);
		return NULL;
	}
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: "
		 "close\r\n\r\n",
		 path);
	ck_assert_int_eq(harness_send(fd, req, strlen(req)), 0);
	while (harness_now() < deadline && len + 1 < cap) {
		struct timeval tv = {1, 0};

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n == 0)
			break;
		if (n > 0)
			len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* The value on the line that starts with "name " (a whole sample name,
 * labels included), or -1 when there is none. */
static double
sample(const char *text, const char *name)
{
	char needle[256];
	const char *p;

	snprintf(needle, sizeof(needle), "\n%s ", name);
	p = strstr(text, needle);
	return p != NULL ? strtod(p + strlen(needle), NULL) : -1;
}

/* The metrics port from netserver's log line. */
static int
metrics_port(const struct harness_server *s)
{
	char text[8192], *p;
	double deadline = harness_now() + 5;

	while (harness_now() < deadline) {
		harness_read_file(s->log, text, sizeof(text));
		p = strstr(text, "metrics served at /metrics on port ");
		if (p != NULL)
			return atoi(p + strlen("metrics served at /metrics on "
					       "port "));
		usleep(20000);
	}
	return -1;
}

static char prom_bin[512];

/* Debian's prometheus and promtool, unpacked into the build tree;
 * returns 0, or skips the check. */
static int
find_prometheus(void)
{
	const char *argv[] = {"sh", NP_SOURCE_DIR "/scripts/refprometheus",
			      NP_BUILD_DIR "/refprometheus", NULL};
	char err[1024], *out = NULL;
	int rc = harness_exec_capture(argv, 300, &out, err, sizeof(err));

	if (rc != 0) {
		free(out);
		harness_skip("no Debian prometheus: %s", err);
		return -1;
	}
	snprintf(prom_bin, sizeof(prom_bin), "%.*s", (int)strcspn(out, "\n"),
		 out);
	free(out);
	return 0;
}

/* Runs one netperf test against s; fails the check when it fails. */
static void
run_test(const struct harness_server *s, const char *test, const char *len)
{
	char port[16];
	struct harness_out *o = malloc(sizeof(*o));
	const char *args[] = {"-H", "127.0.0.1", "-p", port, "-t",
			      test, "-l", len,	 "-P", "0",
			      "-v", "0",   NULL};

	snprintf(port, sizeof(port), "%d", s->port);
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	ck_assert_msg(o->status == 0, "%s: %s", test, o->err);
	free(o);
}

/* A real Prometheus scraping a real netserver: promtool checks the
 * exposition, and the query API gives back exactly the tests run (two
 * TCP_RR, one UDP_STREAM), the allow-list refusal and the version
 * refusal that were caused, and the transactions netperf counted. */
START_TEST(test_prometheus)
{
	const char *extra[] = {"--metrics", "0", "--allow", "127.0.0.1/32",
			       NULL};
	struct harness_server s;
	char cfg[] = "/tmp/np-prom-XXXXXX", path[700], web[64], port[16];
	char *text, *reply, err[1024], *out = NULL;
	struct harness_out *o;
	int mport, wport, fd, prom_pid, found = 0;
	double deadline;

	if (find_prometheus() < 0)
		return;
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	mport = metrics_port(&s);
	ck_assert_int_gt(mport, 0);
	run_test(&s, "TCP_RR", "0.5");
	run_test(&s, "TCP_RR", "0.5");
	run_test(&s, "UDP_STREAM", "0.5");
	/* A client from 127.0.0.2, outside the allow-list. */
	o = malloc(sizeof(*o));
	snprintf(port, sizeof(port), "%d", s.port);
	const char *refused[] = {"-H", "127.0.0.1", "-L", "127.0.0.2", "-p",
				 port, "-t",	    "TCP_RR",	 "-l", "0.2",
				 NULL};
	ck_assert_int_eq(harness_netperf(refused, 30, o), 0);
	ck_assert_int_ne(o->status, 0);
	free(o);
	/* A hello of a protocol version this netserver does not speak. */
	fd = harness_connect(s.port);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(
	    harness_send_json(fd, "{\"type\":\"hello\",\"version\":999}"), 0);
	harness_recv_frame(fd, err, sizeof(err), 2000);
	close(fd);

	/* The exposition, as promtool judges it. */
	deadline = harness_now() + 5;
	do {
		text = http_get(mport, "/metrics");
		ck_assert_ptr_nonnull(text);
		if (sample(text, "netserver_sessions_refused_total{reason="
				 "\"version\"}") == 1)
			break;
		free(text);
		text = NULL;
		usleep(50000);
	} while (harness_now() < deadline);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "HTTP/1.1 200 OK\r\n"));
	ck_assert_double_eq(
	    sample(text, "netserver_tests_total{test=\"TCP_RR\"}"), 2);
	ck_assert_double_eq(
	    sample(text, "netserver_tests_total{test=\"UDP_STREAM\"}"), 1);
	ck_assert_double_eq(sample(text, "netserver_sessions_accepted_total"),
			    4);
	ck_assert_double_eq(
	    sample(text, "netserver_sessions_refused_total{reason="
			 "\"allow_list\"}"),
	    1);
	ck_assert_double_gt(sample(text, "netserver_transactions_total"), 0);
	ck_assert_double_gt(sample(text, "netserver_bytes_total"), 0);
	snprintf(path, sizeof(path), "%s.prom", cfg);
	char *body = strstr(text, "\r\n\r\n");
	ck_assert_ptr_nonnull(body);
	harness_write_file(path, body + 4, strlen(body + 4), 0600);
	char cmd[1500];

	snprintf(cmd, sizeof(cmd), "%s/promtool check metrics < %s", prom_bin,
		 path);
	const char *check[] = {"sh", "-c", cmd, NULL};
	char cerr[2048];
	ck_assert_msg(harness_exec_capture(check, 30, &out, cerr,
					   sizeof(cerr)) == 0,
		      "promtool check metrics: %s %s", out, cerr);
	free(out);
	unlink(path);
	free(text);

	/* A Prometheus server scraping it every half second. */
	ck_assert_ptr_nonnull(mkdtemp(cfg));
	wport = harness_free_port();
	snprintf(path, sizeof(path), "%s/prometheus.yml", cfg);
	snprintf(err, sizeof(err),
		 "global:\n  scrape_interval: 500ms\n"
		 "scrape_configs:\n  - job_name: netserver\n"
		 "    static_configs:\n      - targets: ['127.0.0.1:%d']\n",
		 mport);
	harness_write_file(path, err, strlen(err), 0600);
	snprintf(web, sizeof(web), "--web.listen-address=127.0.0.1:%d", wport);
	prom_pid = fork();
	ck_assert_int_ge(prom_pid, 0);
	if (prom_pid == 0) {
		char bin[600], conf[800], data[800];

		snprintf(bin, sizeof(bin), "%s/prometheus", prom_bin);
		snprintf(conf, sizeof(conf), "--config.file=%s", path);
		snprintf(data, sizeof(data), "--storage.tsdb.path=%s/data", cfg);
		setpgid(0, 0);
		if (freopen("/dev/null", "w", stdout) == NULL ||
		    freopen("/dev/null", "w", stderr) == NULL)
			_exit(126);
		execl(bin, bin, conf, data, web, (char *)NULL);
		_exit(127);
	}
	deadline = harness_now() + 40;
	while (harness_now() < deadline && !found) {
		json_t *doc, *res;

		usleep(250000);
		reply = http_get(wport,
				 "/api/v1/query?query=netserver_tests_total"
				 "%7Btest%3D%22TCP_RR%22%7D");
		if (reply == NULL)
			continue;
		body = strstr(reply, "\r\n\r\n");
		doc = body != NULL ? harness_json_parse(body + 4) : NULL;
		res = doc != NULL ? harness_json_at(doc, "data.result") : NULL;
		if (res != NULL && json_array_size(res) == 1) {
			json_t *v = json_array_get(
			    json_object_get(json_array_get(res, 0), "value"),
			    1);

			ck_assert_str_eq(json_string_value(v), "2");
			found = 1;
		}
		json_decref(doc);
		free(reply);
	}
	if (found) {
		reply = http_get(
		    wport, "/api/v1/query?query=netserver_sessions_refused_total"
			   "%7Breason%3D%22allow_list%22%7D");
		ck_assert_ptr_nonnull(reply);
		ck_assert_msg(strstr(reply, "\"1\"]") != NULL,
			      "allow_list refusals: %s", reply);
		free(reply);
	}
	kill(-prom_pid, SIGTERM);
	harness_wait_status(prom_pid, harness_now() + 10);
	snprintf(err, sizeof(err), "rm -rf '%s'", cfg);
	const char *rm[] = {"sh", "-c", err, NULL};
	harness_exec_capture(rm, 30, &out, cerr, sizeof(cerr));
	free(out);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	ck_assert_msg(found, "Prometheus never returned the TCP_RR count");
}
END_TEST

/* Scrapes that misbehave: idle connections past the limit, a request
 * that never ends, a POST; the tests go on meanwhile and the endpoint
 * still answers. */
START_TEST(test_hostile_scrapes)
{
	const char *extra[] = {"--metrics", "0", NULL};
	struct harness_server s;
	int mport, idle[METRICS_CONN_MAX + 2], i, fd;
	char buf[4096], big[METRICS_REQUEST_MAX + 100];
	char *text;
	ssize_t n;
	double t0;

	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	mport = metrics_port(&s);
	ck_assert_int_gt(mport, 0);
	for (i = 0; i < N(idle); i++)
		idle[i] = harness_connect(mport);
	/* The control port still serves while scrapes sit idle. */
	t0 = harness_now();
	run_test(&s, "TCP_RR", "0.3");
	ck_assert_double_lt(harness_now() - t0, 5);
	/* An idle scrape is closed by its deadline. */
	struct timeval tv = {METRICS_CONN_MS / 1000 + 3, 0};
	setsockopt(idle[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t0 = harness_now();
	n = recv(idle[0], buf, sizeof(buf), 0);
	ck_assert_int_le(n, 0);
	ck_assert_double_lt(harness_now() - t0, METRICS_CONN_MS / 1000.0 + 2);
	for (i = 0; i < N(idle); i++)
		close(idle[i]);
	/* A request with no end: 400, and closed. */
	fd = harness_connect(mport);
	memset(big, 'x', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	harness_send(fd, big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_ptr_nonnull(strstr(buf, "HTTP/1.1 400 "));
	close(fd);
	/* A POST: 405. */
	fd = harness_connect(mport);
	harness_send(fd, "POST /metrics HTTP/1.1\r\n\r\n", 26);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_ptr_nonnull(strstr(buf, "HTTP/1.1 405 "));
	close(fd);
	/* And after all that, a scrape that counts the one test. */
	text = http_get(mport, "/metrics");
	ck_assert_ptr_nonnull(text);
	ck_assert_double_eq(
	    sample(text, "netserver_tests_total{test=\"TCP_RR\"}"), 1);
	free(text);
	ck_assert_int_eq(harness_server_stop(&s), 0);
}
END_TEST

/* A port in use, or a bad spec: one line, and netserver does not start. */
START_TEST(test_bad_spec)
{
	const char *bad[][3] = {{"--metrics", "70000", NULL},
				{"--metrics", "127.0.0.1:x", NULL},
				{"--metrics", ":9100", NULL}};
	struct harness_server s;

	for (int i = 0; i < N(bad); i++)
		ck_assert_int_ne(harness_server_start(&s, bad[i]), 0);
}
END_TEST

static Suite *
metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *unit = tcase_create("unit"), *live = tcase_create("live");

	tcase_add_loop_test(unit, test_request, 0, N(reqs));
	tcase_add_test(unit, test_request_too_long);
	tcase_add_test(unit, test_events);
	suite_add_tcase(s, unit);
	tcase_set_timeout(live, 120);
	tcase_add_test(live, test_prometheus);
	tcase_add_test(live, test_hostile_scrapes);
	tcase_add_test(live, test_bad_spec);
	suite_add_tcase(s, live);
	return s;
}

int
main(void)
{
	return harness_run(metrics_suite());
}
