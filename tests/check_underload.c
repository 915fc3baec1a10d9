/*
 * --under-load (lib/underload.c): its SPEC parser, the roles each end
 * gives the streams, the responsiveness arithmetic, and a run over
 * loopback against a real netserver: one invocation, one session, the
 * readable block, the selectors and the JSON telling the same story. The
 * bufferbloat itself is measured through a shaper in check_netns
 * (under_load_*).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "harness.h"
#include "np/err.h"
#include "np/legacy.h"
#include "np/module.h"
#include "np/proto.h"
#include "np/stats.h"
#include "np/underload.h"

START_TEST(parse_good)
{
	char err[ERR_LEN];
	int up = -1, down = -1;

	ck_assert_int_eq(underload_parse("up=4,down=4", &up, &down, err), 0);
	ck_assert_int_eq(up, 4);
	ck_assert_int_eq(down, 4);
	ck_assert_int_eq(underload_parse("down=2", &up, &down, err), 0);
	ck_assert_int_eq(up, 0);
	ck_assert_int_eq(down, 2);
	ck_assert_int_eq(underload_parse("down=1,up=0", &up, &down, err), 0);
	ck_assert_int_eq(up, 0);
	ck_assert_int_eq(down, 1);
	ck_assert_int_eq(underload_parse("up=256", &up, &down, err), 0);
	ck_assert_int_eq(up, UNDERLOAD_MAX);
}
END_TEST

START_TEST(parse_bad)
{
	static const char *const bad[] = {
	    "",
	    "up",
	    "up=",
	    "up=-1",
	    "up=257",
	    "up=1x",
	    "up=+1",
	    "up= 1",
	    "side=1",
	    "up=1,up=2",
	    "up=1,",
	    ",up=1",
	    "up=0",
	    "up=0,down=0",
	    "UP=1",
	    "up=99999999999999999999",
	    "up=1;down=1",
	    "down=1,,up=1",
	};
	char err[ERR_LEN];
	int up, down;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(underload_parse(bad[i], &up, &down, err) < 0,
			      "\"%s\" was taken", bad[i]);
		ck_assert_msg(strncmp(err, "--under-load", 12) == 0 &&
				  strchr(err, '\n') == NULL,
			      "\"%s\": %s", bad[i], err);
	}
}
END_TEST

/* Both ends map an index to a role alone: 0 the probe, then up, then
 * down; a test without load is all probe. */
START_TEST(roles)
{
	struct test_params p;

	memset(&p, 0, sizeof(p));
	p.streams = 3;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(underload_role(&p, i), UNDERLOAD_PROBE);
	p.load_up = 2;
	p.load_down = 3;
	p.streams = 6;
	ck_assert_int_eq(underload_role(&p, 0), UNDERLOAD_PROBE);
	ck_assert_int_eq(underload_role(&p, 1), UNDERLOAD_UP);
	ck_assert_int_eq(underload_role(&p, 2), UNDERLOAD_UP);
	ck_assert_int_eq(underload_role(&p, 3), UNDERLOAD_DOWN);
	ck_assert_int_eq(underload_role(&p, 5), UNDERLOAD_DOWN);
	/* Up: netperf sends; down: netserver does. */
	ck_assert_ptr_eq(underload_loop(UNDERLOAD_UP, 0), stream_send);
	ck_assert_ptr_eq(underload_loop(UNDERLOAD_UP, 1), stream_recv);
	ck_assert_ptr_eq(underload_loop(UNDERLOAD_DOWN, 0), stream_recv);
	ck_assert_ptr_eq(underload_loop(UNDERLOAD_DOWN, 1), stream_send);
}
END_TEST

/* netserver refuses a request whose load it cannot run, whatever sent it. */
START_TEST(check_request)
{
	struct test_params p;
	char err[ERR_LEN];

	memset(&p, 0, sizeof(p));
	p.duration = 2;
	p.streams = 1;
	ck_assert_int_eq(underload_check(module_find("UDP_RR"), &p, err), 0);
	p.load_up = 1;
	p.streams = 2;
	ck_assert_int_eq(underload_check(module_find("TCP_RR"), &p, err), 0);
	ck_assert_int_eq(underload_check(module_find("UDP_RR"), &p, err), 0);
	ck_assert_int_lt(underload_check(module_find("TCP_CRR"), &p, err), 0);
	ck_assert_int_lt(underload_check(module_find("UDP_CRR"), &p, err), 0);
	ck_assert_int_lt(underload_check(module_find("TCP_STREAM"), &p, err),
			 0);
	p.streams = 3;
	ck_assert_int_lt(underload_check(module_find("TCP_RR"), &p, err), 0);
	ck_assert_msg(strstr(err, "streams") != NULL, "%s", err);
	p.streams = 2;
	p.duration = 0;
	p.count = 100;
	ck_assert_int_lt(underload_check(module_find("TCP_RR"), &p, err), 0);
	p.duration = 2;
	p.wire = 1;
	ck_assert_int_lt(underload_check(module_find("TCP_RR"), &p, err), 0);
	p.wire = 0;
	p.load_up = UNDERLOAD_MAX + 1;
	p.streams = UNDERLOAD_MAX + 2;
	ck_assert_int_lt(underload_check(module_find("TCP_RR"), &p, err), 0);
}
END_TEST

/*
 * An older netserver ignores load_up and load_down and would run every
 * stream as a probe; its ready then says nothing of them, and netperf
 * refuses it, as it does a ready whose counts are not the ones asked.
 */
START_TEST(ready_confirms_load)
{
	static const char *const old_ready =
	    "{\"type\":\"ready\",\"data_port\":5001,\"data_ports\":[5001],"
	    "\"sndbuf\":16384,\"rcvbuf\":131072,\"send_size\":16384,"
	    "\"recv_size\":131072,\"token\":\"00\"}";
	struct test_params p, asked;
	char err[ERR_LEN];
	json_t *ready;

	memset(&p, 0, sizeof(p));
	p.duration = 2;
	p.streams = 1;
	ready = json_loads(old_ready, 0, NULL);
	ck_assert_ptr_nonnull(ready);
	/* Without load, an old ready is all there is to say. */
	ck_assert_int_eq(proto_ready_check(ready, &p, err), 0);
	p.load_up = 2;
	p.load_down = 1;
	p.streams = 4;
	ck_assert_int_lt(proto_ready_check(ready, &p, err), 0);
	ck_assert_msg(strstr(err, "netserver is too old for --under-load") ==
			      err &&
			  strstr(err, "2 up and 1 down") != NULL &&
			  strchr(err, '\n') == NULL,
		      "%s", err);
	/* What our netserver adds is what netperf checks. */
	proto_ready_confirm(ready, &p);
	ck_assert_int_eq(proto_ready_check(ready, &p, err), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(ready, "load_up")),
			 2);
	/* Counts that differ, either way, or are not numbers. */
	asked = p;
	asked.load_down = 2;
	asked.streams = 5;
	ck_assert_int_lt(proto_ready_check(ready, &asked, err), 0);
	asked = p;
	asked.load_up = 1;
	asked.streams = 3;
	ck_assert_int_lt(proto_ready_check(ready, &asked, err), 0);
	json_object_set_new(ready, "load_down", json_string("1"));
	ck_assert_int_lt(proto_ready_check(ready, &p, err), 0);
	json_object_del(ready, "load_down");
	ck_assert_int_lt(proto_ready_check(ready, &p, err), 0);
	/* --one-way's confirmation goes through the same pair. */
	memset(&asked, 0, sizeof(asked));
	asked.one_way = 1;
	ck_assert_int_lt(proto_ready_check(ready, &asked, err), 0);
	ck_assert_msg(strstr(err, "--one-way") == err, "%s", err);
	proto_ready_confirm(ready, &asked);
	ck_assert_int_eq(proto_ready_check(ready, &asked, err), 0);
	json_decref(ready);
}
END_TEST

/* 60 s over the mean of the fastest 95 %: 100 round trips of 10 ms and
 * none slower is 6000 RPM; 95 of 10 ms and 5 of a second leaves the
 * seconds out. */
START_TEST(rpm)
{
	struct stats_hist h;
	int i;

	stats_hist_init(&h);
	ck_assert(underload_rpm(&h) == 0);
	for (i = 0; i < 100; i++)
		stats_hist_add(&h, 10000000);
	ck_assert_msg(fabs(underload_rpm(&h) - 6000) < 6000 * 0.008, "%g",
		      underload_rpm(&h));
	stats_hist_init(&h);
	for (i = 0; i < 95; i++)
		stats_hist_add(&h, 10000000);
	for (i = 0; i < 5; i++)
		stats_hist_add(&h, 1000000000);
	ck_assert_msg(fabs(underload_rpm(&h) - 6000) < 6000 * 0.008, "%g",
		      underload_rpm(&h));
}
END_TEST

/* Runs netperf with "-H 127.0.0.1 -p port" and args. */
static void
np_run_at(const char *port, const char *const *args, struct harness_out *o)
{
	const char *argv[40] = {"-H", "127.0.0.1", "-p", port};
	int n = 4;

	for (; *args != NULL && n < 39; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	ck_assert_int_eq(harness_netperf(argv, 60, o), 0);
}

/* The same against the fixture's netserver. */
static void
np_run(const char *const *args, struct harness_out *o)
{
	np_run_at(harness_port, args, o);
}

/* A bad SPEC or a test it does not fit: one line, status 2, no run. */
START_TEST(usage_errors)
{
	static const char *const specs[] = {"up=x", "sideways=1", "up=0",
					    "up=1,up=1"};
	const char *args[] = {"-t",	      "TCP_RR", "-l", "1",
			      "--under-load", NULL,	NULL};
	const char *crr[] = {"-t",	     "TCP_CRR", "-l", "1",
			     "--under-load", "up=1",	NULL};
	const char *cnt[] = {"-t",	     "TCP_RR", "-l", "-100",
			     "--under-load", "up=1",   NULL};
	const char *streams[] = {"-t", "TCP_RR",       "-l",   "1", "--streams",
				 "2",  "--under-load", "up=1", NULL};
	struct harness_out o;

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		args[5] = specs[i];
		np_run(args, &o);
		ck_assert_msg(o.status == 2, "%s: exit %d: %s", specs[i],
			      o.status, o.err);
		ck_assert_msg(
		    strncmp(o.err, "netperf: --under-load", 21) == 0 &&
			strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
		    "%s: %s", specs[i], o.err);
		ck_assert_str_eq(o.out, "");
	}
	np_run(crr, &o);
	ck_assert_msg(o.status == 2 && strstr(o.err, "TCP_CRR") != NULL,
		      "exit %d: %s", o.status, o.err);
	np_run(cnt, &o);
	ck_assert_msg(o.status == 2 && strstr(o.err, "-l") != NULL,
		      "exit %d: %s", o.status, o.err);
	np_run(streams, &o);
	ck_assert_msg(o.status == 2 && strstr(o.err, "--streams") != NULL,
		      "exit %d: %s", o.status, o.err);
}
END_TEST

/*
 * Over loopback: the idle phase and the loaded phase in one session of
 * the fixture's netserver (its log says one session, two tests), the
 * block after the table, the selectors and the JSON agreeing, and bulk
 * flows in both directions moving data.
 */
START_TEST(loopback_both_ways)
{
	const char *text[] = {"-t",	      "TCP_RR",	     "-l", "1",
			      "--under-load", "up=1,down=1", NULL};
	const char *sel[] = {"-t",
			     "TCP_RR",
			     "-l",
			     "1",
			     "--under-load",
			     "up=2,down=1",
			     "--",
			     "-k",
			     "IDLE_P50_LATENCY,LOADED_P50_LATENCY,"
			     "IDLE_P99_LATENCY,LOADED_P99_LATENCY,"
			     "LOAD_UP_THROUGHPUT,LOAD_DOWN_THROUGHPUT,"
			     "LOADED_ADDED_DELAY,LOADED_LATENCY_RATIO,"
			     "IDLE_RPM,LOADED_RPM",
			     NULL};
	const char *json[] = {"-t",	      "TCP_RR", "-l",	  "1",
			      "--under-load", "down=2", "--json", NULL};
	const char *debug[] = {"-d", NULL};
	struct harness_server dbg;
	struct harness_out o;
	char log[1 << 14], port[16], pid[32];
	const char *b, *p, *q;
	double v[10];
	json_t *doc, *u;

	/* A netserver that logs each test with its session's PID. */
	ck_assert_int_eq(harness_server_start(&dbg, debug), 0);
	snprintf(port, sizeof(port), "%d", dbg.port);
	np_run_at(port, text, &o);
	harness_read_file(dbg.log, log, sizeof(log));
	harness_server_stop(&dbg);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	b = strstr(o.out, "\nLatency under load (the probe alone, then beside "
			  "1 bulk flow up, 1 down)\n");
	ck_assert_msg(b != NULL, "%s", o.out);
	ck_assert_msg(
	    strstr(b, "\nidle ") != NULL && strstr(b, "\nloaded ") != NULL &&
		strstr(b, "\nAdded delay ") != NULL &&
		strstr(b, "\nBulk goodput during the probe: ") != NULL,
	    "%s", b);
	/* One control session (one child of netserver) ran both phases:
	 * the probe alone, then with the two flows. */
	p = strstr(log, ": running TCP_RR, 1 stream,");
	q = p != NULL ? strstr(p, ": running TCP_RR, 3 streams,") : NULL;
	ck_assert_msg(p != NULL && q != NULL, "%s", log);
	while (p > log && p[-1] != '[')
		p--;
	snprintf(pid, sizeof(pid), "%.*s]: running TCP_RR, 3",
		 (int)strcspn(p, "]"), p);
	ck_assert_msg(strstr(log, pid) != NULL, "not one session: %s", log);

	np_run(sel, &o);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	{
		static const char *const names[] = {
		    "IDLE_P50_LATENCY",	  "LOADED_P50_LATENCY",
		    "IDLE_P99_LATENCY",	  "LOADED_P99_LATENCY",
		    "LOAD_UP_THROUGHPUT", "LOAD_DOWN_THROUGHPUT",
		    "LOADED_ADDED_DELAY", "LOADED_LATENCY_RATIO",
		    "IDLE_RPM",		  "LOADED_RPM"};
		char key[64];

		for (int i = 0; i < 10; i++) {
			snprintf(key, sizeof(key), "\n%s=", names[i]);
			p = strstr(o.out, key);
			ck_assert_msg(p != NULL && sscanf(p + strlen(key),
							  "%lf", &v[i]) == 1,
				      "%s: %s", names[i], o.out);
		}
	}
	/* Round trips happened in both phases; the flows moved data both
	 * ways; the ratio and the added delay are the two P50s'. */
	ck_assert(v[0] >= 0 && v[1] > 0 && v[2] >= v[0] && v[3] >= v[1]);
	ck_assert_msg(v[4] > 0 && v[5] > 0, "%s", o.out);
	/* As bulk flows: TCP_STREAM's loops move hundreds of Mbit/s on
	 * loopback even on a loaded 2-CPU machine, where flows that ran
	 * the probe's loop (its 1-byte transactions, as when the loaded
	 * phase fell to flows on threads) moved under 1. */
	ck_assert_msg(v[4] > 50 && v[5] > 50, "bulk flows moved %.2f up and "
					      "%.2f down: %s",
		      v[4], v[5], o.out);
	ck_assert_msg(fabs(v[6] - (v[1] - v[0]) / 1e3) < 0.002, "%s", o.out);
	ck_assert(v[8] > 0 && v[9] > 0);

	np_run(json, &o);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	doc = harness_json_parse(o.out);
	ck_assert_ptr_nonnull(doc);
	u = json_object_get(doc, "under_load");
	ck_assert_msg(json_is_object(u), "%s", o.out);
	ck_assert_int_eq(json_integer_value(json_object_get(u, "up_flows")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(u, "down_flows")),
			 2);
	ck_assert(json_real_value(json_object_get(u, "up_throughput_mbps")) ==
		  0);
	ck_assert(json_real_value(json_object_get(u, "down_throughput_mbps")) >
		  0);
	ck_assert(
	    json_real_value(json_object_get(u, "loaded_transaction_rate")) > 0);
	/* The document's own test is the idle phase: one stream. */
	ck_assert_int_eq((int)harness_json_num(doc, "result.stream_count"), 1);
	json_decref(doc);
}
END_TEST

/* UDP_RR as the probe: its datagram socket beside the flows' TCP
 * connections, in one session. */
START_TEST(loopback_udp_probe)
{
	const char *json[] = {"-t",	      "UDP_RR",	     "-l",     "1",
			      "--under-load", "up=1,down=1", "--json", NULL};
	struct harness_out o;
	json_t *doc, *u;

	np_run(json, &o);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	doc = harness_json_parse(o.out);
	ck_assert_ptr_nonnull(doc);
	u = json_object_get(doc, "under_load");
	ck_assert_msg(json_is_object(u), "%s", o.out);
	ck_assert(json_real_value(json_object_get(u, "up_throughput_mbps")) >
		  0);
	ck_assert(json_real_value(json_object_get(u, "down_throughput_mbps")) >
		  0);
	ck_assert(
	    json_real_value(json_object_get(u, "loaded_transaction_rate")) > 0);
	ck_assert(json_real_value(json_object_get(u, "loaded_p50_us")) > 0);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "test")),
			 "UDP_RR");
	json_decref(doc);
}
END_TEST

/* The fixture's netserver, asked on the wire, confirms in its ready the
 * counts it will run (and says nothing of them to a request without). */
static json_t *
ready_for(const char *extra)
{
	char req[1024], buf[4096];
	json_t *ready;
	int fd = harness_connect(atoi(harness_port));

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(
	    harness_send_json(fd, "{\"type\":\"hello\",\"version\":1}"), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	snprintf(req, sizeof(req),
		 "{\"type\":\"request\",\"test\":\"TCP_RR\",\"duration\":1,"
		 "\"count\":0,\"send_size\":0,\"recv_size\":0,"
		 "\"rsend_size\":0,\"rrecv_size\":0,\"req_size\":1,"
		 "\"rsp_size\":1,\"lsndbuf\":-1,\"lrcvbuf\":-1,"
		 "\"rsndbuf\":-1,\"rrcvbuf\":-1,\"nodelay\":false,"
		 "\"burst\":0,\"remote_cpu\":false,\"data_port\":0%s}",
		 extra);
	ck_assert_int_eq(harness_send_json(fd, req), 0);
	ck_assert_int_gt(harness_recv_frame(fd, buf, sizeof(buf), 5000), 0);
	/* No data connection follows: the test ends with the session. */
	close(fd);
	ready = json_loads(buf, 0, NULL);
	ck_assert_msg(ready != NULL && strcmp(proto_type(ready), "ready") == 0,
		      "reply: %s", buf);
	return ready;
}

START_TEST(server_confirms_load)
{
	struct test_params p;
	char err[ERR_LEN];
	json_t *ready;

	memset(&p, 0, sizeof(p));
	p.load_up = 2;
	p.load_down = 1;
	p.streams = 4;
	ready = ready_for(",\"streams\":4,\"load_up\":2,\"load_down\":1");
	ck_assert_int_eq(json_integer_value(json_object_get(ready, "load_up")),
			 2);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(ready, "load_down")), 1);
	ck_assert_msg(proto_ready_check(ready, &p, err) == 0, "%s", err);
	json_decref(ready);
	ready = ready_for(",\"streams\":2,\"load_down\":1");
	ck_assert_int_eq(json_integer_value(json_object_get(ready, "load_up")),
			 0);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(ready, "load_down")), 1);
	json_decref(ready);
	ready = ready_for("");
	ck_assert_ptr_null(json_object_get(ready, "load_up"));
	ck_assert_ptr_null(json_object_get(ready, "load_down"));
	json_decref(ready);
}
END_TEST

/*
 * An older netserver, in effect: a relay in front of the fixture's that
 * passes everything but takes load_up and load_down out of each ready,
 * as a netserver that ignored them would answer. Its first answer (to
 * netperf's probe) is 2.7-sized; then come 4-byte big-endian frames.
 */
static void
relay_run(int lfd)
{
	static char down[1 << 16];
	size_t have = 0, raw = LEGACY_MSG_LEN;
	double deadline = harness_now() + 30;
	int c = accept(lfd, NULL, NULL),
	    s = harness_connect(atoi(harness_port));
	struct pollfd pfd[2] = {{.fd = c, .events = POLLIN},
				{.fd = s, .events = POLLIN}};
	char buf[4096];
	ssize_t n;

	if (c < 0 || s < 0)
		_exit(1);
	while (harness_now() < deadline && poll(pfd, 2, 100) >= 0) {
		if (pfd[0].revents != 0) {
			n = read(c, buf, sizeof(buf));
			if (n <= 0 || harness_send(s, buf, (size_t)n) < 0)
				break;
		}
		if (pfd[1].revents == 0)
			continue;
		n = read(s, down + have, sizeof(down) - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		for (;;) {
			size_t len;
			json_t *msg;
			char *text;

			if (raw > 0) {
				len = have < raw ? have : raw;
				raw -= len;
			} else if (have >= 4) {
				unsigned char *h = (unsigned char *)down;

				len = 4 + ((size_t)h[0] << 24 |
					   (size_t)h[1] << 16 |
					   (size_t)h[2] << 8 | h[3]);
				if (have < len)
					break;
				msg = json_loadb(down + 4, len - 4, 0, NULL);
				if (msg != NULL &&
				    strcmp(proto_type(msg), "ready") == 0) {
					unsigned char hdr[4];
					size_t tl;

					json_object_del(msg, "load_up");
					json_object_del(msg, "load_down");
					text = json_dumps(msg, JSON_COMPACT);
					tl = strlen(text);
					hdr[0] = (unsigned char)(tl >> 24);
					hdr[1] = (unsigned char)(tl >> 16);
					hdr[2] = (unsigned char)(tl >> 8);
					hdr[3] = (unsigned char)tl;
					if (harness_send(c, hdr, 4) < 0 ||
					    harness_send(c, text, tl) < 0)
						_exit(1);
					free(text);
					json_decref(msg);
					memmove(down, down + len, have - len);
					have -= len;
					continue;
				}
				json_decref(msg);
			} else {
				break;
			}
			if (len == 0)
				break;
			if (harness_send(c, down, len) < 0)
				_exit(1);
			memmove(down, down + len, have - len);
			have -= len;
		}
	}
	_exit(0);
}

/* netperf against that netserver: the idle phase runs, the loaded one
 * is refused in one line naming the cause, and no result is printed. */
START_TEST(older_server_refused)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	char port[16];
	const char *args[] = {"-t",	      "TCP_RR", "-l", "1",
			      "--under-load", "up=1",	NULL};
	struct harness_out o;
	pid_t parent = getpid(), relay;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(lfd, 1), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
	snprintf(port, sizeof(port), "%d", ntohs(sin.sin_port));
	relay = fork();
	ck_assert_int_ge(relay, 0);
	if (relay == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		relay_run(lfd);
	}
	close(lfd);
	np_run_at(port, args, &o);
	kill(relay, SIGKILL);
	harness_wait_status(relay, harness_now() + 5);
	ck_assert_msg(o.status == 1, "exit %d: %s", o.status, o.err);
	ck_assert_str_eq(o.err, "netperf: netserver is too old for "
				"--under-load: its ready does not confirm 1 "
				"up and 0 down bulk flows\n");
	/* The banner, printed before the idle phase, and no result. */
	ck_assert_msg(harness_text_count(o.out, "\n") <= 1 &&
			  strstr(o.out, "Latency under load") == NULL,
		      "%s", o.out);
}
END_TEST

/* Without the option, the JSON says null and the selectors nothing. */
START_TEST(absent_without_option)
{
	const char *json[] = {"-t", "TCP_RR", "-l", "1", "--json", NULL};
	const char *sel[] = {"-t",
			     "TCP_RR",
			     "-l",
			     "1",
			     "--",
			     "-k",
			     "IDLE_P50_LATENCY,LOAD_UP_THROUGHPUT",
			     NULL};
	struct harness_out o;
	json_t *doc;

	np_run(json, &o);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	doc = harness_json_parse(o.out);
	ck_assert_ptr_nonnull(doc);
	ck_assert(json_is_null(json_object_get(doc, "under_load")));
	json_decref(doc);
	np_run(sel, &o);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.out, "IDLE_P50_LATENCY=\n") != NULL &&
			  strstr(o.out, "LOAD_UP_THROUGHPUT=\n") != NULL,
		      "%s", o.out);
	ck_assert(strstr(o.out, "Latency under load") == NULL);
}
END_TEST

static Suite *
underload_suite(void)
{
	Suite *s = suite_create("underload");
	TCase *unit = tcase_create("unit");
	TCase *run = tcase_create("loopback");

	tcase_add_test(unit, parse_good);
	tcase_add_test(unit, parse_bad);
	tcase_add_test(unit, roles);
	tcase_add_test(unit, check_request);
	tcase_add_test(unit, rpm);
	tcase_add_test(unit, ready_confirms_load);
	suite_add_tcase(s, unit);
	tcase_add_checked_fixture(run, harness_setup, harness_teardown);
	tcase_set_timeout(run, 120);
	tcase_add_test(run, usage_errors);
	tcase_add_test(run, loopback_both_ways);
	tcase_add_test(run, loopback_udp_probe);
	tcase_add_test(run, absent_without_option);
	tcase_add_test(run, server_confirms_load);
	tcase_add_test(run, older_server_refused);
	suite_add_tcase(s, run);
	return s;
}

int
main(void)
{
	return harness_run(underload_suite());
}
