/*
 * The fast paths over loopback, against a real netserver: MSG_ZEROCOPY
 * with the kernel's completions counted, SO_BUSY_POLL read back from both
 * sockets, UDP batching, the placement of --streams on the CPUs there
 * are, and the errors for options a test cannot take. Loss with the UDP
 * fast paths is checked against nftables in check_netns.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "np/datapath.h"

static struct harness_server srv;
static char port_text[16];

static void
setup(void)
{
	ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
	snprintf(port_text, sizeof(port_text), "%d", srv.port);
}

static void
teardown(void)
{
	ck_assert_int_eq(harness_server_stop(&srv), 0);
}

/* Runs netperf with the test options opts (after the global ones), then
 * "--", -m size (when size is not NULL) and -k keys; fails unless it
 * exits 0. */
static void
run_keys_m(const char *const *opts, const char *size, const char *keys,
	   struct harness_out *o)
{
	const char *args[32] = {"-H", "127.0.0.1", "-p", port_text, "-l", "1"};
	int n = 6;

	for (; *opts != NULL && n < 26; opts++)
		args[n++] = *opts;
	args[n++] = "--";
	if (size != NULL) {
		args[n++] = "-m";
		args[n++] = size;
	}
	args[n++] = "-k";
	args[n++] = keys;
	args[n] = NULL;
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	ck_assert_msg(o->status == 0, "exit %d: %s%s", o->status, o->out,
		      o->err);
}

static void
run_keys(const char *const *opts, const char *keys, struct harness_out *o)
{
	run_keys_m(opts, NULL, keys, o);
}

static unsigned long long
key_u(const struct harness_out *o, const char *key)
{
	char v[64];

	ck_assert_msg(harness_keyval(o->out, key, v, sizeof(v)) == 0,
		      "no %s in: %s", key, o->out);
	return strtoull(v, NULL, 10);
}

static void
key_is(const struct harness_out *o, const char *key, const char *want)
{
	char v[64];

	ck_assert_msg(harness_keyval(o->out, key, v, sizeof(v)) == 0,
		      "no %s in: %s", key, o->out);
	ck_assert_msg(strcmp(v, want) == 0, "%s is %s, not %s", key, v, want);
}

/*
 * Every MSG_ZEROCOPY send is reported complete on the error queue, by
 * the kernel: completions equal sends. Over loopback the kernel copies
 * the data all the same (it cannot hand pinned pages to a local socket)
 * and says so in each notice, so copied equals completions here.
 */
START_TEST(zerocopy_stream)
{
	const char *opts[] = {"-t", "TCP_STREAM", "--zerocopy", NULL};
	struct harness_out o;
	unsigned long long sends, done, copied;

	run_keys(opts,
		 "LOCAL_DATA_PATH,LOCAL_SEND_CALLS,LOCAL_ZEROCOPY_DONE,"
		 "LOCAL_ZEROCOPY_COPIED,REMOTE_DATA_PATH",
		 &o);
	key_is(&o, "LOCAL_DATA_PATH", "zerocopy");
	key_is(&o, "REMOTE_DATA_PATH", "recv");
	sends = key_u(&o, "LOCAL_SEND_CALLS");
	done = key_u(&o, "LOCAL_ZEROCOPY_DONE");
	copied = key_u(&o, "LOCAL_ZEROCOPY_COPIED");
	ck_assert_msg(sends > 0 && done == sends,
		      "%llu sends, %llu completions", sends, done);
	ck_assert_msg(copied <= done, "%llu copied of %llu", copied, done);
}
END_TEST

/* TCP_MAERTS: netserver sends with MSG_ZEROCOPY and counts. */
START_TEST(zerocopy_maerts)
{
	const char *opts[] = {"-t", "TCP_MAERTS", "--zerocopy", NULL};
	struct harness_out o;
	unsigned long long sends, done;

	run_keys(opts,
		 "REMOTE_DATA_PATH,REMOTE_SEND_CALLS,REMOTE_ZEROCOPY_DONE,"
		 "REMOTE_ZEROCOPY_COPIED,LOCAL_ZEROCOPY_DONE",
		 &o);
	key_is(&o, "REMOTE_DATA_PATH", "zerocopy");
	sends = key_u(&o, "REMOTE_SEND_CALLS");
	done = key_u(&o, "REMOTE_ZEROCOPY_DONE");
	ck_assert_msg(sends > 0 && done == sends,
		      "%llu sends, %llu completions", sends, done);
	ck_assert_uint_le(key_u(&o, "REMOTE_ZEROCOPY_COPIED"), done);
	ck_assert_uint_eq(key_u(&o, "LOCAL_ZEROCOPY_DONE"), 0);
}
END_TEST

/*
 * -V, 2.7's copy avoidance: the receiver splices the data into
 * /dev/null, on netserver's side for TCP_STREAM and on netperf's for
 * TCP_MAERTS, counts every byte the sender sent, and the banner says so
 * as 2.7's does.
 */
START_TEST(splice_receivers)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS"};
	struct harness_out o;

	for (int i = 0; i < 2; i++) {
		const char *args[] = {"-H", "127.0.0.1", "-p", port_text,
				      "-l", "1", "-t", tests[i], "--", "-V",
				      "-k",
				      "LOCAL_DATA_PATH,REMOTE_DATA_PATH,"
				      "LOCAL_BYTES_SENT,REMOTE_BYTES_RECVD,"
				      "LOCAL_BYTES_RECVD,REMOTE_BYTES_SENT",
				      NULL};
		int maerts = i == 1;

		ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
		ck_assert_msg(o.status == 0, "%s: exit %d: %s", tests[i],
			      o.status, o.err);
		ck_assert_msg(strstr(o.out, " : copy avoidance\n") != NULL,
			      "%s: banner: %s", tests[i], o.out);
		key_is(&o, maerts ? "LOCAL_DATA_PATH" : "REMOTE_DATA_PATH",
		       "splice");
		key_is(&o, maerts ? "REMOTE_DATA_PATH" : "LOCAL_DATA_PATH",
		       "send");
		if (maerts)
			ck_assert_uint_eq(key_u(&o, "LOCAL_BYTES_RECVD"),
					  key_u(&o, "REMOTE_BYTES_SENT"));
		else
			ck_assert_uint_eq(key_u(&o, "REMOTE_BYTES_RECVD"),
					  key_u(&o, "LOCAL_BYTES_SENT"));
		ck_assert_uint_gt(key_u(&o, maerts ? "LOCAL_BYTES_RECVD"
						   : "REMOTE_BYTES_RECVD"),
				  0);
	}
}
END_TEST

/* SO_BUSY_POLL as the kernel holds it on both sockets, TCP and UDP. */
START_TEST(busy_poll_read_back)
{
	const char *tests[] = {"TCP_RR", "UDP_RR"};
	struct harness_out o;

	for (int i = 0; i < 2; i++) {
		const char *opts[] = {"-t", tests[i], "--busy-poll", "50",
				      NULL};

		run_keys(opts, "LOCAL_BUSY_POLL,REMOTE_BUSY_POLL,THROUGHPUT",
			 &o);
		key_is(&o, "LOCAL_BUSY_POLL", "50");
		key_is(&o, "REMOTE_BUSY_POLL", "50");
		ck_assert_uint_gt(key_u(&o, "THROUGHPUT"), 0);
	}
}
END_TEST

/* --batch: the datagrams a side counts are more than its calls, and
 * what was received was sent. */
START_TEST(udp_batch_counts)
{
	const char *opts[] = {"-t",	"UDP_STREAM", "--batch", "8",
			      "--rate", "100M",	      NULL};
	struct harness_out o;
	unsigned long long sent, scalls, recvd, rcalls;

	run_keys(opts,
		 "LOCAL_DATA_PATH,REMOTE_DATA_PATH,LOCAL_SEND_CALLS,"
		 "LOCAL_DATA_SYSCALLS,REMOTE_RECV_CALLS,REMOTE_DATA_SYSCALLS,"
		 "LOSS_COUNT",
		 &o);
	key_is(&o, "LOCAL_DATA_PATH", "sendmmsg");
	key_is(&o, "REMOTE_DATA_PATH", "recvmmsg");
	sent = key_u(&o, "LOCAL_SEND_CALLS");
	scalls = key_u(&o, "LOCAL_DATA_SYSCALLS");
	recvd = key_u(&o, "REMOTE_RECV_CALLS");
	rcalls = key_u(&o, "REMOTE_DATA_SYSCALLS");
	ck_assert_msg(sent > 0 && scalls * 8 >= sent && scalls * 4 < sent,
		      "%llu datagrams in %llu sendmmsg calls", sent, scalls);
	ck_assert_msg(rcalls > 0 && rcalls <= recvd + 3,
		      "%llu datagrams in %llu recvmmsg calls", recvd, rcalls);
	ck_assert_uint_eq(recvd + key_u(&o, "LOSS_COUNT"), sent);
}
END_TEST

/*
 * The plain UDP path: netserver's receiver naps when its queue runs dry
 * (at 200 Mbit/s of 8000-byte datagrams, one every 320 us, it runs dry
 * between any two), never more often than it received data (a nap
 * follows a read that brought some), and every datagram sent is
 * received or lost.
 */
START_TEST(udp_receiver_naps)
{
	const char *opts[] = {"-t", "UDP_STREAM", "--rate", "200M", NULL};
	struct harness_out o;
	unsigned long long naps, recvd;

	run_keys_m(opts, "8000",
		   "REMOTE_DATA_PATH,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,"
		   "REMOTE_RECV_NAPS,LOCAL_RECV_NAPS,LOSS_COUNT",
		   &o);
	key_is(&o, "REMOTE_DATA_PATH", "recv");
	naps = key_u(&o, "REMOTE_RECV_NAPS");
	recvd = key_u(&o, "REMOTE_RECV_CALLS");
	/* The datagrams, and the end markers and token, which are reads
	 * too. */
	ck_assert_msg(naps > 0 && naps <= recvd + 4,
		      "%llu naps for %llu datagrams", naps, recvd);
	/* netperf receives nothing here. */
	ck_assert_uint_eq(key_u(&o, "LOCAL_RECV_NAPS"), 0);
	ck_assert_uint_eq(recvd + key_u(&o, "LOSS_COUNT"),
			  key_u(&o, "LOCAL_SEND_CALLS"));
}
END_TEST

/*
 * Datagrams so large that the receive buffer holds fewer than 16 (the
 * default 65507 bytes: three in the default 208 KB) are read as 2.7
 * reads them, blocking: a nap of even 5 us can overflow such a queue
 * when the CPUs are shared. Still every datagram is received or lost.
 */
START_TEST(udp_big_datagrams_block)
{
	const char *opts[] = {"-t", "UDP_STREAM", "--rate", "200M", NULL};
	struct harness_out o;

	run_keys_m(opts, "65507",
		   "REMOTE_DATA_PATH,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,"
		   "REMOTE_RECV_NAPS,LOSS_COUNT",
		   &o);
	key_is(&o, "REMOTE_DATA_PATH", "recv");
	ck_assert_uint_eq(key_u(&o, "REMOTE_RECV_NAPS"), 0);
	ck_assert_uint_gt(key_u(&o, "REMOTE_RECV_CALLS"), 0);
	ck_assert_uint_eq(key_u(&o, "REMOTE_RECV_CALLS") +
			      key_u(&o, "LOSS_COUNT"),
			  key_u(&o, "LOCAL_SEND_CALLS"));
}
END_TEST

/*
 * --streams 2 without -T: each stream's thread has a CPU of its own on
 * both ends, as sched_getcpu() says where it ended; with one CPU they
 * share it.
 */
START_TEST(streams_spread)
{
	const char *args[] = {"-H",	   "127.0.0.1",	 "-p", port_text,
			      "-t",	   "TCP_STREAM", "-l", "1",
			      "--streams", "2",		 "-J", NULL};
	struct harness_out o;
	cpu_set_t set;
	json_t *doc;
	double l0, l1, r0, r1;

	ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
	ck_assert_msg(o.status == 0, "%s%s", o.out, o.err);
	doc = harness_json_parse(o.out);
	ck_assert_ptr_nonnull(doc);
	l0 = harness_json_num(doc, "streams.0.local.cpu_id");
	l1 = harness_json_num(doc, "streams.1.local.cpu_id");
	r0 = harness_json_num(doc, "streams.0.remote.cpu_id");
	r1 = harness_json_num(doc, "streams.1.remote.cpu_id");
	json_decref(doc);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	if (CPU_COUNT(&set) >= 2) {
		ck_assert_msg(l0 >= 0 && l1 >= 0 && l0 != l1,
			      "netperf's streams on CPUs %g and %g", l0, l1);
		ck_assert_msg(r0 >= 0 && r1 >= 0 && r0 != r1,
			      "netserver's streams on CPUs %g and %g", r0, r1);
	} else {
		ck_assert(l0 == l1 && r0 == r1);
	}
}
END_TEST

/* Options a test cannot take: one line naming the option, exit 2. */
START_TEST(fast_bad_options)
{
	static const char *const cases[][6] = {
	    {"-t", "TCP_RR", "--zerocopy"},
	    {"-t", "TCP_STREAM", "--busy-poll", "10"},
	    {"-t", "TCP_STREAM", "--udp-gso"},
	    {"-t", "UDP_RR", "--udp-gro"},
	    {"-t", "TCP_STREAM", "--batch", "4"},
	    {"-t", "UDP_STREAM", "--batch", "0"},
	    {"-t", "UDP_STREAM", "--batch", "65"},
	    {"-t", "UDP_STREAM", "--batch", "4", "--udp-gro"},
	    {"-t", "TCP_RR", "--busy-poll", "x"},
	    {"-t", "TCP_RR", "--", "-V"},
	};
	struct harness_out o;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[10] = {"-p", port_text};
		int n = 2;

		for (int j = 0; j < 6 && cases[i][j] != NULL; j++)
			args[n++] = cases[i][j];
		args[n] = NULL;
		ck_assert_int_eq(harness_netperf(args, 10, &o), 0);
		ck_assert_msg(o.status == 2, "case %zu exited %d: %s", i,
			      o.status, o.err);
		ck_assert_msg(strncmp(o.err, "netperf: -", 10) == 0 &&
				  strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
			      "case %zu: %s", i, o.err);
	}
}
END_TEST

/* The name of the path the sender (1) or receiver of test name takes
 * under p, "" for none; every path has the hook its direction calls. */
static const char *
picked(const char *name, const struct test_params *p, int sender)
{
	const struct test_module *m = module_find(name);
	const struct data_path *dp;

	ck_assert_ptr_nonnull(m);
	dp = datapath_pick(m, p, sender);
	if (dp == NULL)
		return "";
	ck_assert_ptr_nonnull(sender ? (void *)dp->send : (void *)dp->recv);
	ck_assert_ptr_nonnull(dp->call);
	return dp->name;
}

/* Every one-way test's two sides take a path with the hook they call,
 * the options pick their own, and request/response tests take none. */
START_TEST(datapath_rows)
{
	struct test_params p;
	const struct test_module *m;

	memset(&p, 0, sizeof(p));
	for (m = module_table; m->name != NULL; m++) {
		int oneway = !module_is_rr(m);

		ck_assert_msg((*picked(m->name, &p, 1) != '\0') == oneway &&
				  (*picked(m->name, &p, 0) != '\0') == oneway,
			      "%s", m->name);
	}
	ck_assert_str_eq(picked("TCP_STREAM", &p, 1), "send");
	ck_assert_str_eq(picked("TCP_SENDFILE", &p, 1), "sendfile");
	ck_assert_str_eq(picked("TCP_SENDFILE", &p, 0), "recv");
	ck_assert_str_eq(picked("UDP_STREAM", &p, 0), "recv");
	p.zerocopy = p.splice = 1;
	ck_assert_str_eq(picked("TCP_MAERTS", &p, 1), "zerocopy");
	ck_assert_str_eq(picked("TCP_STREAM", &p, 0), "splice");
	ck_assert_str_eq(picked("TCP_SENDFILE", &p, 1), "sendfile");
	p.batch = 8;
	ck_assert_str_eq(picked("UDP_STREAM", &p, 1), "sendmmsg");
	ck_assert_str_eq(picked("UDP_STREAM", &p, 0), "recvmmsg");
	p.batch = 0;
	p.udp_gso = p.udp_gro = 1;
	ck_assert_str_eq(picked("UDP_STREAM", &p, 1), "gso");
	ck_assert_str_eq(picked("UDP_STREAM", &p, 0), "gro");
	ck_assert_str_eq(picked("UDP_RR", &p, 1), "");
}
END_TEST

static Suite *
fast_suite(void)
{
	Suite *s = suite_create("fast");
	TCase *tc = tcase_create("loopback");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, zerocopy_stream);
	tcase_add_test(tc, zerocopy_maerts);
	tcase_add_test(tc, splice_receivers);
	tcase_add_test(tc, busy_poll_read_back);
	tcase_add_test(tc, udp_batch_counts);
	tcase_add_test(tc, udp_receiver_naps);
	tcase_add_test(tc, udp_big_datagrams_block);
	tcase_add_test(tc, streams_spread);
	tcase_add_test(tc, fast_bad_options);
	suite_add_tcase(s, tc);
	tc = tcase_create("table");
	tcase_add_test(tc, datapath_rows);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(fast_suite());
}
