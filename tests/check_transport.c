/*
 * The transports (lib/transport.c) and what rides on them: MPTCP for the
 * TCP tests (--mptcp, OMNI's -T mptcp), over loopback and over two
 * shaped paths between namespaces of the test's own, where it must beat
 * one path; and --skip-rx-copy's MSG_TRUNC receiver, which must count
 * what the sender sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/vm_sockets.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "np/cli.h"
#include "np/module.h"
#include "np/proto.h"
#include "np/transport.h"

/* The process that runs the suite: namespace names carry its PID so the
 * sweep after a test case finds what a crashed test left behind. */
static pid_t runner;

/* Why this kernel cannot make an MPTCP socket in the runner's
 * namespace (the loopback checks), or "" when it can; and why it cannot
 * in any namespace (built without MPTCP: the namespace checks, which
 * turn it on in their own). */
static char no_mptcp[128], no_kernel_mptcp[128];
/* Why this process cannot make network namespaces, or "". */
static char no_netns[128];

/* Runs netperf against the fixture netserver with args, then "-- -k
 * keys"; fails unless it exits 0. */
static void
run_keys(const char *const *opts, const char *keys, struct harness_out *o)
{
	const char *args[32] = {"-H", "127.0.0.1", "-p", harness_port};
	int n = 4;

	for (; *opts != NULL && n < 28; opts++)
		args[n++] = *opts;
	args[n++] = "--";
	args[n++] = "-k";
	args[n++] = keys;
	args[n] = NULL;
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
	ck_assert_msg(o->status == 0, "netperf exit %d: %s", o->status, o->err);
}

/* The value of KEY= in text as a number; fails the test when absent. */
static double
key_num(const char *text, const char *key)
{
	char v[64];

	ck_assert_msg(harness_keyval(text, key, v, sizeof(v)) == 0,
		      "no %s in: %s", key, text);
	return strtod(v, NULL);
}

/* The value of KEY= in text, into v (cap bytes); fails when absent. */
static void
key_str(const char *text, const char *key, char *v, size_t cap)
{
	ck_assert_msg(harness_keyval(text, key, v, cap) == 0, "no %s in: %s",
		      key, text);
}

START_TEST(table_and_checks)
{
	const struct test_module *stream = module_find("TCP_STREAM"),
				 *udp = module_find("UDP_STREAM");
	struct test_params p;
	char err[ERR_LEN];

	ck_assert_ptr_nonnull(transport_find("MPTCP"));
	ck_assert_ptr_null(transport_find("dccp"));
	memset(&p, 0, sizeof(p));
	/* No word: the test's own. */
	ck_assert_str_eq(transport_of(stream, &p)->report, "TCP");
	ck_assert_str_eq(transport_of(udp, &p)->report, "UDP");
	ck_assert_int_eq(transport_check(stream, &p, err), 0);
	snprintf(p.transport, sizeof(p.transport), "mptcp");
	ck_assert_int_eq(transport_check(stream, &p, err), 0);
	ck_assert_str_eq(transport_of(stream, &p)->report, "MPTCP");
	ck_assert_int_eq(transport_changed(stream, &p), 1);
	/* MPTCP carries TCP's tests only. */
	ck_assert_int_eq(transport_check(udp, &p, err), -1);
	ck_assert_msg(strstr(err, "UDP_STREAM") != NULL, "%s", err);
	/* --wire counts one flow a connection. */
	p.wire = 1;
	ck_assert_int_eq(transport_check(stream, &p, err), -1);
	ck_assert_msg(strstr(err, "--wire") != NULL, "%s", err);
	p.wire = 0;
	snprintf(p.transport, sizeof(p.transport), "dccp");
	ck_assert_int_eq(transport_check(stream, &p, err), -1);
	ck_assert_msg(strstr(err, "unknown transport") != NULL, "%s", err);
	/* A peer's word is shown escaped. */
	snprintf(p.transport, sizeof(p.transport), "\033[2J");
	ck_assert_int_eq(transport_check(stream, &p, err), -1);
	ck_assert_msg(strchr(err, '\033') == NULL, "%s", err);
}
END_TEST

/* The transport and --skip-rx-copy travel in the request, and a request
 * without them (an older netperf's) reads as the test's own transport
 * with copying receivers. */
START_TEST(request_carries_them)
{
	struct test_params p, q;
	char err[ERR_LEN];
	json_t *msg;

	memset(&p, 0, sizeof(p));
	snprintf(p.test, sizeof(p.test), "TCP_STREAM");
	p.duration = 1;
	p.streams = 1;
	sock_extra_init(&p.lx);
	sock_extra_init(&p.rx);
	msg = proto_request_pack(&p);
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_null(json_object_get(msg, "transport"));
	ck_assert_ptr_null(json_object_get(msg, "skip_rx_copy"));
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), 0);
	ck_assert_str_eq(q.transport, "");
	ck_assert_int_eq(q.skip_rx_copy, 0);
	json_decref(msg);

	snprintf(p.transport, sizeof(p.transport), "mptcp");
	p.skip_rx_copy = 1;
	msg = proto_request_pack(&p);
	ck_assert_ptr_nonnull(msg);
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), 0);
	ck_assert_str_eq(q.transport, "mptcp");
	ck_assert_int_eq(q.skip_rx_copy, 1);
	/* A word too long for the field is refused, not cut. */
	json_object_set_new(msg, "transport",
			    json_string("mptcpmptcpmptcpmptcp"));
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), -1);
	json_decref(msg);
}
END_TEST

/* The command line: --mptcp and -T mptcp name the transport; -T takes
 * no word the table lacks; --mptcp on a UDP test and with --wire is a
 * usage error. */
START_TEST(command_line)
{
	static const char *const bad[][8] = {
	    {"netperf", "--mptcp", "-t", "UDP_STREAM", NULL},
	    {"netperf", "--mptcp", "--wire", NULL},
	    {"netperf", "-t", "OMNI", "--", "-T", "dccp", NULL},
	    {"netperf", "--skip-rx-copy", "-t", "TCP_RR", NULL},
	    {"netperf", "--skip-rx-copy", "--", "-V", NULL},
	};
	struct netperf_opts *o;
	char err[ERR_LEN];
	const char *mp[] = {"netperf", "--mptcp", "-t", "TCP_RR", NULL};
	const char *omni[] = {"netperf", "-t", "OMNI", "--", "-T",
			      "MPTCP",	 "-d", "rr",   NULL};

	o = calloc(1, sizeof(*o));
	ck_assert_ptr_nonnull(o);
	ck_assert_msg(cli_netperf_parse(4, (char **)mp, o, err) == 0, "%s",
		      err);
	ck_assert_str_eq(o->transport, "mptcp");
	ck_assert_str_eq(o->test, "TCP_RR");
	free(o);
	o = calloc(1, sizeof(*o));
	ck_assert_ptr_nonnull(o);
	ck_assert_msg(cli_netperf_parse(8, (char **)omni, o, err) == 0, "%s",
		      err);
	ck_assert_str_eq(o->transport, "mptcp");
	ck_assert_str_eq(o->test, "TCP_RR");
	free(o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = 0;

		while (bad[i][argc] != NULL)
			argc++;
		o = calloc(1, sizeof(*o));
		ck_assert_ptr_nonnull(o);
		ck_assert_msg(cli_netperf_parse(argc, (char **)bad[i], o, err) <
				  0,
			      "case %zu passed", i);
		free(o);
	}
}
END_TEST

/* Over loopback every TCP test runs over MPTCP, both ends' sockets are
 * MPTCP (each reads its subflows from the kernel), and the report says
 * so: the selectors, the protocol and the JSON document. */
START_TEST(mptcp_loopback)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS",
					    "TCP_RR", "TCP_CRR"};
	struct harness_out *o = malloc(sizeof(*o));
	char v[64];

	ck_assert_ptr_nonnull(o);
	if (no_mptcp[0] != '\0') {
		harness_skip("mptcp_loopback: %s", no_mptcp);
		free(o);
		return;
	}
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *opts[] = {"-l", "1",      "--mptcp",
				      "-t", tests[i], NULL};
		int lasting = strcmp(tests[i], "TCP_CRR") != 0;

		run_keys(opts,
			 "PROTOCOL,THROUGHPUT,LOCAL_MPTCP_SUBFLOWS,"
			 "REMOTE_MPTCP_SUBFLOWS",
			 o);
		key_str(o->out, "PROTOCOL", v, sizeof(v));
		ck_assert_str_eq(v, "MPTCP");
		ck_assert_msg(key_num(o->out, "THROUGHPUT") > 0, "%s", o->out);
		/* One path, one subflow; TCP_CRR's connections are gone
		 * when the test ends, and counted as none. */
		ck_assert_int_eq((int)key_num(o->out, "LOCAL_MPTCP_SUBFLOWS"),
				 lasting);
		ck_assert_int_eq((int)key_num(o->out, "REMOTE_MPTCP_SUBFLOWS"),
				 lasting);
	}
	{
		const char *args[] = {
		    "-H",   "127.0.0.1", "-p", harness_port, "-l",    "1", "-t",
		    "OMNI", "-J",	 "--", "-T",	     "mptcp", NULL};
		json_t *doc;

		ck_assert_int_eq(harness_netperf(args, 60, o), 0);
		ck_assert_msg(o->status == 0, "%s", o->err);
		doc = harness_json_parse(o->out);
		ck_assert_ptr_nonnull(doc);
		ck_assert_str_eq(
		    json_string_value(harness_json_at(doc, "protocol")),
		    "MPTCP");
		ck_assert_msg(harness_json_num(doc, "local.counts."
						    "mptcp_subflows") == 1 &&
				  harness_json_num(doc, "remote.counts."
							"mptcp_subflows") == 1,
			      "%s", o->out);
		json_decref(doc);
	}
	/* Without it the same figures say TCP and no subflows. */
	{
		const char *opts[] = {"-l", "1", NULL};

		run_keys(opts, "PROTOCOL,LOCAL_MPTCP_SUBFLOWS", o);
		key_str(o->out, "PROTOCOL", v, sizeof(v));
		ck_assert_str_eq(v, "TCP");
		ck_assert_int_eq((int)key_num(o->out, "LOCAL_MPTCP_SUBFLOWS"),
				 0);
	}
	free(o);
}
END_TEST

/* A peer that takes no MPTCP (here a plain TCP discard service under
 * -N; an older netserver alike) makes the connection fall back to TCP:
 * a one-line error, never a TCP result labelled MPTCP. */
START_TEST(mptcp_fallback_refused)
{
	struct harness_out *o = malloc(sizeof(*o));
	char listen[96], port_arg[16];
	const char *discard[] = {"-u", listen, "OPEN:/dev/null", NULL};
	const char *args[] = {"-N", "-H",	  "127.0.0.1", "--mptcp",
			      "-t", "TCP_STREAM", "-l",	       "1",
			      "--", "-P",	  port_arg,    NULL};
	int port = harness_free_port(), fd = -1;
	pid_t svc;

	ck_assert_ptr_nonnull(o);
	if (no_mptcp[0] != '\0') {
		harness_skip("mptcp_fallback_refused: %s", no_mptcp);
		free(o);
		return;
	}
	snprintf(listen, sizeof(listen),
		 "TCP4-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork", port);
	snprintf(port_arg, sizeof(port_arg), ",%d", port);
	svc = harness_socat(discard);
	ck_assert_int_gt(svc, 0);
	for (int i = 0; i < 200 && fd < 0; i++) {
		fd = harness_connect(port);
		if (fd < 0)
			usleep(10000);
	}
	if (fd < 0) {
		kill(svc, SIGTERM);
		waitpid(svc, NULL, 0);
		harness_skip("mptcp_fallback_refused: no socat service");
		free(o);
		return;
	}
	close(fd);
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
	kill(svc, SIGTERM);
	waitpid(svc, NULL, 0);
	ck_assert_msg(o->status != 0 &&
			  strstr(o->err, "fell back to plain TCP") != NULL,
		      "exit %d: %s", o->status, o->err);
	free(o);
}
END_TEST

/*
 * --skip-rx-copy: the receiver (netserver for TCP_STREAM, netperf for
 * TCP_MAERTS) reads with MSG_TRUNC, says so as its data path, and counts
 * exactly what the sender sent, in a timed and in a counted test (where
 * a byte too many or too few would show).
 */
START_TEST(skip_rx_copy_counts)
{
	struct harness_out *o = malloc(sizeof(*o));
	char v[64];

	ck_assert_ptr_nonnull(o);
	for (int maerts = 0; maerts < 2; maerts++) {
		const char *timed[] = {"-l",
				       "1",
				       "--skip-rx-copy",
				       "-t",
				       maerts ? "TCP_MAERTS" : "TCP_STREAM",
				       NULL};
		const char *counted[] = {"-l",
					 "-50000000",
					 "--skip-rx-copy",
					 "-t",
					 maerts ? "TCP_MAERTS" : "TCP_STREAM",
					 NULL};
		const char *keys =
		    "LOCAL_DATA_PATH,REMOTE_DATA_PATH,LOCAL_BYTES_SENT,"
		    "REMOTE_BYTES_RECVD,LOCAL_BYTES_RECVD,REMOTE_BYTES_SENT";
		const char *rx_path =
		    maerts ? "LOCAL_DATA_PATH" : "REMOTE_DATA_PATH";
		const char *sent =
		    maerts ? "REMOTE_BYTES_SENT" : "LOCAL_BYTES_SENT";
		const char *got =
		    maerts ? "LOCAL_BYTES_RECVD" : "REMOTE_BYTES_RECVD";

		run_keys(timed, keys, o);
		key_str(o->out, rx_path, v, sizeof(v));
		ck_assert_str_eq(v, "trunc");
		ck_assert_msg(key_num(o->out, sent) > 0 &&
				  key_num(o->out, sent) == key_num(o->out, got),
			      "%s", o->out);
		run_keys(counted, keys, o);
		ck_assert_msg(key_num(o->out, got) == 50000000 &&
				  key_num(o->out, sent) == 50000000,
			      "%s", o->out);
	}
	/* Without the flag the receiver copies, as before. */
	{
		const char *plain[] = {"-l", "1", NULL};

		run_keys(plain, "REMOTE_DATA_PATH", o);
		key_str(o->out, "REMOTE_DATA_PATH", v, sizeof(v));
		ck_assert_str_eq(v, "recv");
	}
	free(o);
}
END_TEST

/* Namespace tests: a pair of namespaces, joined by one veth pair or two. */
struct mp_env {
	struct harness_netns ns;
	/* The test process's own namespace, to go back to before the
	 * pair (and every process in it) is deleted. */
	int home;
	/* The second path: devices and addresses. */
	char dev2_a[16], dev2_b[16], addr2_a[16], addr2_b[16];
	struct harness_server srv;
};

static struct mp_env env;

/* Moves the calling process into namespace name (sockets and children
 * made after live there); fails the test when it cannot. */
static void
enter(const char *name)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_msg(setns(fd, CLONE_NEWNET) == 0, "setns %s: %s", name,
		      strerror(errno));
	close(fd);
}

static void
mp_setup(void)
{
	memset(&env, 0, sizeof(env));
	env.home = -1;
	if (no_netns[0] != '\0' || no_kernel_mptcp[0] != '\0')
		return;
	env.home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ck_assert_msg(env.home >= 0, "/proc/self/ns/net: %s", strerror(errno));
	harness_netns_name(&env.ns, "np-m", runner, "npm", "10.205");
	harness_netns_add(&env.ns);
	harness_netns_veth(&env.ns);
}

static void
mp_teardown(void)
{
	if (env.srv.pid > 0)
		harness_server_stop(&env.srv);
	/* Out of the pair first: deleting it kills what is inside. */
	if (env.home >= 0) {
		ck_assert_int_eq(setns(env.home, CLONE_NEWNET), 0);
		close(env.home);
	}
	harness_netns_del(&env.ns);
}

static void
mp_sweep(void)
{
	harness_netns_sweep("np-m", runner);
}

/* Starts netserver inside b on addr_b; fails the test when it cannot. */
static void
server_in_b(void)
{
	const char *extra[] = {"-L", env.ns.addr_b, NULL};

	enter(env.ns.b);
	ck_assert_msg(harness_server_start(&env.srv, extra) == 0,
		      "netserver did not start in %s", env.ns.b);
}

/* Runs netperf inside a against netserver in b: args, then "-- -k
 * keys" when keys is not NULL. Returns its exit status. */
static int
netperf_in_a(const char *const *opts, const char *keys, struct harness_out *o)
{
	char port[16];
	const char *args[32] = {"-H", env.ns.addr_b, "-p", port};
	int n = 4;

	snprintf(port, sizeof(port), "%d", env.srv.port);
	for (; *opts != NULL && n < 28; opts++)
		args[n++] = *opts;
	if (keys != NULL) {
		args[n++] = "--";
		args[n++] = "-k";
		args[n++] = keys;
	}
	args[n] = NULL;
	enter(env.ns.a);
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
	return o->status;
}

/* A kernel with MPTCP off (net.mptcp.enabled=0, per namespace) on
 * either side gives one line that says so, and a failed exit. */
START_TEST(mptcp_off_is_one_line)
{
	const char *opts[] = {"-l", "1", "--mptcp", NULL};
	struct harness_out *o = malloc(sizeof(*o));

	ck_assert_ptr_nonnull(o);
	if (no_netns[0] != '\0' || no_kernel_mptcp[0] != '\0') {
		harness_skip("mptcp_off_is_one_line: %s",
			     no_kernel_mptcp[0] != '\0' ? no_kernel_mptcp
							: no_netns);
		free(o);
		return;
	}
	server_in_b();
	for (int side = 0; side < 2; side++) {
		const char *ns = side == 0 ? env.ns.a : env.ns.b;

		HARNESS_MUST("ip", "netns", "exec", ns, "sysctl", "-qw",
			     "net.mptcp.enabled=0");
		ck_assert_int_ne(netperf_in_a(opts, NULL, o), 0);
		ck_assert_msg(strstr(o->err, "net.mptcp.enabled") != NULL &&
				  strchr(o->err, '\n') ==
				      o->err + strlen(o->err) - 1,
			      "side %d: %s", side, o->err);
		HARNESS_MUST("ip", "netns", "exec", ns, "sysctl", "-qw",
			     "net.mptcp.enabled=1");
	}
	/* And on again, it runs. */
	ck_assert_int_eq(netperf_in_a(opts, NULL, o), 0);
	free(o);
}
END_TEST

/* The kernel's count of MPTcpExt's field key in the calling process's
 * namespace (/proc/net/netstat); -1 when absent. */
static long
mptcp_ext(const char *key)
{
	static char text[65536];
	char *names, *values, *n, *v, *sn, *sv;

	harness_read_file("/proc/net/netstat", text, sizeof(text));
	names = strstr(text, "MPTcpExt: ");
	if (names == NULL)
		return -1;
	values = strstr(names + 1, "MPTcpExt: ");
	if (values == NULL)
		return -1;
	names[strcspn(names, "\n")] = '\0';
	values[strcspn(values, "\n")] = '\0';
	n = strtok_r(names + 10, " ", &sn);
	v = strtok_r(values + 10, " ", &sv);
	for (; n != NULL && v != NULL;
	     n = strtok_r(NULL, " ", &sn), v = strtok_r(NULL, " ", &sv))
		if (strcmp(n, key) == 0)
			return strtol(v, NULL, 10);
	return -1;
}

/* Bytes device dev of the calling process's namespace has sent, from
 * /proc/net/dev (sysfs shows the namespace it was mounted in); -1 when
 * it is not there. */
static double
tx_bytes(const char *dev)
{
	static char text[16384];
	char key[24], *p;
	double v[9];

	harness_read_file("/proc/net/dev", text, sizeof(text));
	/* "%6s:": a long name starts its line. */
	snprintf(key, sizeof(key), "%s:", dev);
	for (p = strstr(text, key);
	     p != NULL && p > text && p[-1] != ' ' && p[-1] != '\n';
	     p = strstr(p + 1, key))
		;
	if (p == NULL)
		return -1;
	/* Eight receive figures, then the bytes sent. */
	if (harness_line_numbers(p + strlen(key), v, 9) != 9)
		return -1;
	return v[8];
}

/* Shapes dev's egress in namespace ns to 50 Mbit/s. */
static void
shape(const char *ns, const char *dev)
{
	HARNESS_MUST("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev",
		     dev, "root", "tbf", "rate", "50mbit", "burst", "64kb",
		     "latency", "50ms");
}

/*
 * The ground truth: two paths of 50 Mbit/s each between the namespaces,
 * an MPTCP subflow endpoint on netperf's side of the second. Plain TCP
 * gets one path; TCP_STREAM --mptcp gets at least 1.6 times as much, the
 * kernel's join counters show the second subflow on both ends, the
 * second path carries a share of the bytes, and both ends report two
 * subflows.
 */
START_TEST(mptcp_two_paths)
{
	const char *tcp[] = {"-l", "4", NULL};
	const char *mp[] = {"-l", "4", "--mptcp", NULL};
	const char *keys = "THROUGHPUT,LOCAL_BYTES_SENT,LOCAL_MPTCP_SUBFLOWS,"
			   "REMOTE_MPTCP_SUBFLOWS";
	struct harness_out *o = malloc(sizeof(*o));
	double plain, multi, sent, tx0, tx1;
	long syn_rx, ack_rx, synack_rx;
	char cidr_a[24], cidr_b[24];
	int x = (int)getpid() % 250 + 1, tries = 0;

	ck_assert_ptr_nonnull(o);
	if (no_netns[0] != '\0' || no_kernel_mptcp[0] != '\0') {
		harness_skip("mptcp_two_paths: %s", no_kernel_mptcp[0] != '\0'
							? no_kernel_mptcp
							: no_netns);
		free(o);
		return;
	}
	snprintf(env.dev2_a, sizeof(env.dev2_a), "npn%da", (int)getpid());
	snprintf(env.dev2_b, sizeof(env.dev2_b), "npn%db", (int)getpid());
	snprintf(env.addr2_a, sizeof(env.addr2_a), "10.206.%d.1", x);
	snprintf(env.addr2_b, sizeof(env.addr2_b), "10.206.%d.2", x);
	snprintf(cidr_a, sizeof(cidr_a), "%s/24", env.addr2_a);
	snprintf(cidr_b, sizeof(cidr_b), "%s/24", env.addr2_b);
	HARNESS_MUST("ip", "link", "add", env.dev2_a, "netns", env.ns.a, "type",
		     "veth", "peer", "name", env.dev2_b, "netns", env.ns.b);
	HARNESS_MUST("ip", "-n", env.ns.a, "addr", "add", cidr_a, "dev",
		     env.dev2_a);
	HARNESS_MUST("ip", "-n", env.ns.b, "addr", "add", cidr_b, "dev",
		     env.dev2_b);
	HARNESS_MUST("ip", "-n", env.ns.a, "link", "set", env.dev2_a, "up");
	HARNESS_MUST("ip", "-n", env.ns.b, "link", "set", env.dev2_b, "up");
	shape(env.ns.a, env.ns.dev_a);
	shape(env.ns.a, env.dev2_a);
	shape(env.ns.b, env.ns.dev_b);
	shape(env.ns.b, env.dev2_b);
	HARNESS_MUST("ip", "-n", env.ns.a, "mptcp", "limits", "set", "subflow",
		     "2", "add_addr_accepted", "2");
	HARNESS_MUST("ip", "-n", env.ns.b, "mptcp", "limits", "set", "subflow",
		     "2", "add_addr_accepted", "2");
	HARNESS_MUST("ip", "-n", env.ns.a, "mptcp", "endpoint", "add",
		     env.addr2_a, "dev", env.dev2_a, "subflow");
	server_in_b();
again:
	ck_assert_int_eq(netperf_in_a(tcp, keys, o), 0);
	plain = key_num(o->out, "THROUGHPUT");
	ck_assert_int_eq((int)key_num(o->out, "LOCAL_MPTCP_SUBFLOWS"), 0);
	/* One shaped path: near its 50 Mbit/s, never beyond. */
	ck_assert_msg(plain > 20 && plain < 52, "plain TCP: %.2f Mbit/s",
		      plain);
	tx0 = tx_bytes(env.dev2_a);
	ck_assert_msg(netperf_in_a(mp, keys, o) == 0, "%s", o->err);
	tx1 = tx_bytes(env.dev2_a);
	multi = key_num(o->out, "THROUGHPUT");
	sent = key_num(o->out, "LOCAL_BYTES_SENT");
	ck_assert_int_eq((int)key_num(o->out, "LOCAL_MPTCP_SUBFLOWS"), 2);
	ck_assert_int_eq((int)key_num(o->out, "REMOTE_MPTCP_SUBFLOWS"), 2);
	/* The second path carried at least a quarter of the data. */
	ck_assert_msg(tx1 - tx0 >= 0.25 * sent,
		      "second path sent %.0f bytes of %.0f", tx1 - tx0, sent);
	synack_rx = mptcp_ext("MPJoinSynAckRx");
	enter(env.ns.b);
	syn_rx = mptcp_ext("MPJoinSynRx");
	ack_rx = mptcp_ext("MPJoinAckRx");
	ck_assert_msg(syn_rx >= 1 && ack_rx >= 1 && synack_rx >= 1,
		      "MPTcpExt joins: SynRx %ld AckRx %ld (netserver's), "
		      "SynAckRx %ld (netperf's)",
		      syn_rx, ack_rx, synack_rx);
	if (multi < 1.6 * plain &&
	    harness_once_more(&tries,
			      "MPTCP %.2f Mbit/s is not 1.6 x TCP's %.2f",
			      multi, plain))
		goto again;
	ck_assert_msg(multi >= 1.6 * plain,
		      "MPTCP over two 50 Mbit/s paths: %.2f Mbit/s, plain "
		      "TCP over one: %.2f (%.2fx, not 1.6x)",
		      multi, plain, multi / plain);
	fprintf(stderr,
		"mptcp_two_paths: TCP %.2f, MPTCP %.2f Mbit/s (%.2fx)\n", plain,
		multi, multi / plain);
	free(o);
}
END_TEST

/* Why this kernel makes no SCTP socket, or "". */
static char no_sctp[128];

/* Parses argv (NULL-terminated) into a fresh netperf_opts; returns
 * cli_netperf_parse's answer, the options in *out (freed by the
 * caller). */
static int
parse_args(const char *const *argv, struct netperf_opts **out, char *err)
{
	int argc = 0;

	while (argv[argc] != NULL)
		argc++;
	*out = calloc(1, sizeof(**out));
	ck_assert_ptr_nonnull(*out);
	return cli_netperf_parse(argc, (char **)argv, *out, err);
}

/* SCTP_STREAM and SCTP_RR run over the sctp row with their -c -C, -D and
 * -- -D; OMNI's -T sctp runs a TCP test over it; what SCTP cannot do
 * (--wire, a connection per transaction, -N) is a usage error. */
START_TEST(sctp_rows)
{
	static const char *const tests[] = {"SCTP_STREAM", "SCTP_RR"};
	static const char *const bad[][10] = {
	    {"netperf", "-t", "SCTP_STREAM", "--wire", NULL},
	    {"netperf", "-t", "SCTP_RR", "-N", NULL},
	    {"netperf", "-t", "OMNI", "--", "-T", "sctp", "-c", "-d", "rr",
	     NULL},
	    {"netperf", "-t", "OMNI", "--wire", "--", "-T", "sctp", NULL},
	};
	const char *omni[] = {"netperf", "-t", "OMNI", "--", "-T",
			      "SCTP",	 "-d", "rr",   NULL};
	const struct transport *t = transport_find("sctp");
	struct netperf_opts *o;
	struct test_params p;
	char err[ERR_LEN];

	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->report, "SCTP");
	ck_assert_str_eq(t->nodelay_name, "SCTP_NODELAY");
	memset(&p, 0, sizeof(p));
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const struct test_module *m = module_find(tests[i]);
		const char *argv[] = {"netperf", "-t", tests[i], "-c", "-C",
				      "-D",	 "1",  "--json", "--", "-D",
				      NULL};

		ck_assert_ptr_nonnull(m);
		ck_assert_ptr_eq(transport_of(m, &p), t);
		ck_assert_int_eq(transport_check(m, &p, err), 0);
		/* Its sockets answer no TCP_INFO. */
		ck_assert_int_eq(transport_has_tcpinfo(t, m), 0);
		ck_assert_msg(parse_args(argv, &o, err) == 0, "%s: %s",
			      tests[i], err);
		ck_assert_str_eq(o->test, tests[i]);
		free(o);
	}
	ck_assert_msg(parse_args(omni, &o, err) == 0, "%s", err);
	ck_assert_str_eq(o->transport, "sctp");
	ck_assert_str_eq(o->test, "TCP_RR");
	free(o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse_args(bad[i], &o, err) < 0,
			      "case %zu passed", i);
		ck_assert_msg(strstr(err, "SCTP") != NULL, "case %zu: %s", i,
			      err);
		free(o);
	}
}
END_TEST

/* Where this kernel has no SCTP, every way of asking for it says so in
 * one line naming what is missing, and exits 1, before a connection is
 * tried: the tests, OMNI's -T sctp, with -c -C, -D, --json and the
 * selectors. Where it has SCTP, this cannot be shown. */
START_TEST(sctp_refused_one_line)
{
	static const char *const runs[][12] = {
	    {"-t", "SCTP_STREAM", "-c", "-C", NULL},
	    {"-t", "SCTP_RR", "-D", "0.5", "--", "-D", "-k",
	     "PROTOCOL,THROUGHPUT", NULL},
	    {"-t", "OMNI", "--", "-T", "sctp", "-d", "rr", NULL},
	    {"-t", "SCTP_STREAM", "--json", NULL},
	};
	struct harness_out *o = malloc(sizeof(*o));

	ck_assert_ptr_nonnull(o);
	if (no_sctp[0] == '\0') {
		harness_skip("sctp_refused_one_line: this kernel has SCTP, "
			     "so its refusal cannot be shown");
		free(o);
		return;
	}
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const char *args[20] = {"-H", "127.0.0.1", "-p", harness_port,
					"-l", "1"};
		int n = 6;

		for (const char *const *a = runs[i]; *a != NULL; a++)
			args[n++] = *a;
		args[n] = NULL;
		ck_assert_int_eq(harness_netperf(args, 30, o), 0);
		ck_assert_msg(o->status == 1, "case %zu: exit %d: %s", i,
			      o->status, o->err);
		ck_assert_msg(strstr(o->err, "netperf: SCTP: this kernel "
					     "refuses SCTP sockets") ==
				      o->err &&
				  strstr(o->err, "CONFIG_IP_SCTP") != NULL &&
				  strchr(o->err, '\n') ==
				      o->err + strlen(o->err) - 1,
			      "case %zu: %s", i, o->err);
		/* --json says it in the document too. */
		if (i == 3)
			ck_assert_msg(strstr(o->out, "refuses SCTP sockets") !=
					  NULL,
				      "%s", o->out);
	}
	free(o);
}
END_TEST

/* Where this kernel has SCTP, SCTP_STREAM and SCTP_RR run over it on
 * loopback with -c -C, -D and -- -D, and the selectors and the JSON say
 * SCTP; elsewhere a visible skip saying what is missing. */
START_TEST(sctp_loopback)
{
	static const char *const tests[] = {"SCTP_STREAM", "SCTP_RR"};
	struct harness_out *o = malloc(sizeof(*o));
	char v[64];

	ck_assert_ptr_nonnull(o);
	if (no_sctp[0] != '\0') {
		harness_skip("sctp_loopback: %s", no_sctp);
		free(o);
		return;
	}
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *opts[] = {"-l", "1",   "-c",     "-C", "-D",
				      "0.5", "-t", tests[i], NULL};
		const char *args[] = {"-H", "127.0.0.1", "-p", harness_port,
				      "-l", "1",	 "-t", tests[i],
				      "-J", NULL};
		json_t *doc;

		run_keys(opts, "PROTOCOL,THROUGHPUT,LOCAL_CPU_UTIL", o);
		key_str(o->out, "PROTOCOL", v, sizeof(v));
		ck_assert_str_eq(v, "SCTP");
		ck_assert_msg(key_num(o->out, "THROUGHPUT") > 0, "%s", o->out);
		ck_assert_int_eq(harness_netperf(args, 60, o), 0);
		ck_assert_msg(o->status == 0, "%s", o->err);
		doc = harness_json_parse(o->out);
		ck_assert_ptr_nonnull(doc);
		ck_assert_str_eq(
		    json_string_value(harness_json_at(doc, "protocol")),
		    "SCTP");
		json_decref(doc);
	}
	free(o);
}
END_TEST

/* Why this kernel cannot connect a VSOCK socket to CID 1 (its loopback
 * transport), or "". */
static char no_vsock_lo[160];
/* This host's own CID (/dev/vsock), 0 when it cannot be read. */
static unsigned own_cid;

/* VSOCK_STREAM and VSOCK_RR run over the vsock row, to the CID -- -H
 * names, with -c -C, -D and --json; OMNI's -T vsock names it; --wire, a
 * connection per transaction and -N are usage errors. */
START_TEST(vsock_rows)
{
	static const char *const tests[] = {"VSOCK_STREAM", "VSOCK_RR"};
	static const char *const bad[][10] = {
	    {"netperf", "-t", "VSOCK_STREAM", "--wire", NULL},
	    {"netperf", "-t", "VSOCK_RR", "-N", NULL},
	    {"netperf", "-t", "OMNI", "--", "-T", "vsock", "-c", "-d", "rr",
	     NULL},
	};
	const char *omni[] = {"netperf", "-t", "OMNI", "--", "-T", "VSOCK",
			      "-H",	 "1",  "-d", "rr", NULL};
	const struct transport *t = transport_find("vsock");
	struct netperf_opts *o;
	struct test_params p;
	char err[ERR_LEN];

	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->report, "VSOCK");
	memset(&p, 0, sizeof(p));
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const struct test_module *m = module_find(tests[i]);
		const char *argv[] = {"netperf", "-t",	   tests[i], "-c",
				      "-C",	 "-D",	   "1",	     "--json",
				      "--",	 "-H",	   "local",  "-D",
				      NULL};

		ck_assert_ptr_nonnull(m);
		ck_assert_ptr_eq(transport_of(m, &p), t);
		ck_assert_int_eq(transport_check(m, &p, err), 0);
		ck_assert_int_eq(transport_has_tcpinfo(t, m), 0);
		ck_assert_msg(parse_args(argv, &o, err) == 0, "%s: %s",
			      tests[i], err);
		ck_assert_str_eq(o->test, tests[i]);
		ck_assert_str_eq(o->data_host, "local");
		free(o);
	}
	/* A CID is a number, local or host; anything else is named. */
	ck_assert_int_eq(transport_check_host(t, "2", AF_UNSPEC, AF_INET, err),
			 0);
	ck_assert_int_eq(
	    transport_check_host(t, "127.0.0.1", AF_UNSPEC, AF_INET, err), -1);
	ck_assert_msg(strstr(err, "not a CID") != NULL, "%s", err);
	ck_assert_int_eq(
	    transport_check_host(t, "4294967295", AF_UNSPEC, AF_INET, err), -1);
	ck_assert_msg(parse_args(omni, &o, err) == 0, "%s", err);
	ck_assert_str_eq(o->transport, "vsock");
	ck_assert_str_eq(o->test, "TCP_RR");
	free(o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse_args(bad[i], &o, err) < 0,
			      "case %zu passed", i);
		ck_assert_msg(strstr(err, "VSOCK") != NULL, "case %zu: %s", i,
			      err);
		free(o);
	}
}
END_TEST

/* Runs netperf -l 1 against the fixture netserver with args; fails
 * unless it exits non-zero with one line on stderr that holds want. */
static void
one_line_error(const char *const *run, const char *want,
	       struct harness_out *o)
{
	const char *args[24] = {"-H", "127.0.0.1", "-p", harness_port,
				"-l", "1"};
	int n = 6;

	for (; *run != NULL && n < 23; run++)
		args[n++] = *run;
	args[n] = NULL;
	ck_assert_int_eq(harness_netperf(args, 30, o), 0);
	ck_assert_msg(o->status != 0 && strstr(o->err, want) != NULL &&
			  strchr(o->err, '\n') == o->err + strlen(o->err) - 1,
		      "%s: exit %d: %s", args[7], o->status, o->err);
}

/* What can be shown without a VSOCK peer: a data host that is no CID is
 * one line, and so, where this kernel has no loopback transport, is
 * asking for CID 1, with -c -C, -D, the selectors and --json. */
START_TEST(vsock_refused_one_line)
{
	static const char *const no_cid[][8] = {
	    {"-t", "VSOCK_STREAM", NULL},
	    {"-t", "VSOCK_RR", "--", "-H", "7x", NULL},
	    {"-t", "OMNI", "--", "-T", "vsock", NULL},
	};
	static const char *const local[][12] = {
	    {"-t", "VSOCK_STREAM", "-c", "-C", "--", "-H", "local", NULL},
	    {"-t", "VSOCK_RR", "-D", "0.5", "--", "-H", "1", "-D", "-k",
	     "PROTOCOL,THROUGHPUT", NULL},
	    {"-t", "VSOCK_RR", "--json", "--", "-H", "local", NULL},
	};
	struct harness_out *o = malloc(sizeof(*o));

	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < sizeof(no_cid) / sizeof(no_cid[0]); i++)
		one_line_error(no_cid[i], "is not a CID", o);
	if (no_vsock_lo[0] == '\0') {
		harness_skip("vsock_refused_one_line: this kernel has vsock "
			     "loopback, so its absence cannot be shown");
		free(o);
		return;
	}
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		one_line_error(local[i], "no loopback transport for CID 1", o);
	/* A guest's own CID: netserver opened its VSOCK listener and told
	 * its port (a 16-bit one), and the connection, which no transport
	 * here carries, fails at once in one line. */
	if (own_cid > VMADDR_CID_HOST) {
		char cid[16], want[64];
		const char *run[] = {"-t", "VSOCK_STREAM", "--", "-H", cid,
				     NULL};
		const char *at;
		long port;

		snprintf(cid, sizeof(cid), "%u", own_cid);
		snprintf(want, sizeof(want), "cannot connect to VSOCK CID %u "
					     "port ",
			 own_cid);
		one_line_error(run, want, o);
		at = strstr(o->err, want) + strlen(want);
		port = strtol(at, NULL, 10);
		ck_assert_msg(port >= 1024 && port <= 65535, "%s", o->err);
	}
	free(o);
}
END_TEST

/* Where this kernel has vsock loopback, VSOCK_STREAM and VSOCK_RR run
 * to CID 1 against the fixture netserver, which listens on VSOCK for
 * them (its control connection is TCP), with -c -C and -D, and the
 * selectors and the JSON say VSOCK; elsewhere a visible skip. */
START_TEST(vsock_loopback)
{
	static const char *const tests[] = {"VSOCK_STREAM", "VSOCK_RR"};
	struct harness_out *o = malloc(sizeof(*o));
	char v[64];

	ck_assert_ptr_nonnull(o);
	if (no_vsock_lo[0] != '\0') {
		harness_skip("vsock_loopback: %s", no_vsock_lo);
		free(o);
		return;
	}
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *args[] = {"-H", "127.0.0.1", "-p", harness_port,
				      "-l", "1",	 "-c", "-C",
				      "-D", "0.5",	 "-t", tests[i],
				      "--", "-H",	 "local", "-k",
				      "PROTOCOL,THROUGHPUT", NULL};
		const char *json[] = {"-H", "127.0.0.1", "-p", harness_port,
				      "-l", "1",	 "-t", tests[i],
				      "-J", "--",	 "-H", "local",
				      NULL};
		json_t *doc;

		ck_assert_int_eq(harness_netperf(args, 60, o), 0);
		ck_assert_msg(o->status == 0, "%s", o->err);
		key_str(o->out, "PROTOCOL", v, sizeof(v));
		ck_assert_str_eq(v, "VSOCK");
		ck_assert_msg(key_num(o->out, "THROUGHPUT") > 0, "%s", o->out);
		ck_assert_int_eq(harness_netperf(json, 60, o), 0);
		ck_assert_msg(o->status == 0, "%s", o->err);
		doc = harness_json_parse(o->out);
		ck_assert_ptr_nonnull(doc);
		ck_assert_str_eq(
		    json_string_value(harness_json_at(doc, "protocol")),
		    "VSOCK");
		json_decref(doc);
	}
	free(o);
}
END_TEST

/* Why CID 1 cannot be reached here, into no_vsock_lo; "" when it can: a
 * socket binds to it only where the loopback transport is. */
static void
probe_vsock_loopback(void)
{
	struct sockaddr_vm a;
	int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		snprintf(no_vsock_lo, sizeof(no_vsock_lo),
			 "this kernel makes no VSOCK socket (%s)",
			 strerror(errno));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.svm_family = AF_VSOCK;
	a.svm_cid = VMADDR_CID_LOCAL;
	a.svm_port = VMADDR_PORT_ANY;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		snprintf(no_vsock_lo, sizeof(no_vsock_lo),
			 "this kernel has no vsock loopback transport "
			 "(vsock_loopback): binding CID 1: %s",
			 strerror(errno));
	close(fd);
	fd = open("/dev/vsock", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, IOCTL_VM_SOCKETS_GET_LOCAL_CID, &own_cid) < 0)
			own_cid = 0;
		close(fd);
	}
}

static Suite *
transport_suite(void)
{
	Suite *s = suite_create("transport");
	TCase *tc = tcase_create("unit");

	tcase_add_test(tc, table_and_checks);
	tcase_add_test(tc, request_carries_them);
	tcase_add_test(tc, command_line);
	tcase_add_test(tc, sctp_rows);
	tcase_add_test(tc, vsock_rows);
	suite_add_tcase(s, tc);

	tc = tcase_create("loopback");
	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, mptcp_loopback);
	tcase_add_test(tc, skip_rx_copy_counts);
	tcase_add_test(tc, mptcp_fallback_refused);
	tcase_add_test(tc, sctp_refused_one_line);
	tcase_add_test(tc, sctp_loopback);
	tcase_add_test(tc, vsock_refused_one_line);
	tcase_add_test(tc, vsock_loopback);
	suite_add_tcase(s, tc);

	tc = tcase_create("netns");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, mp_setup, mp_teardown);
	tcase_add_unchecked_fixture(tc, NULL, mp_sweep);
	tcase_add_test(tc, mptcp_off_is_one_line);
	tcase_add_test(tc, mptcp_two_paths);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int fd;

	runner = getpid();
	probe_vsock_loopback();
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	if (fd >= 0)
		close(fd);
	else
		snprintf(no_sctp, sizeof(no_sctp),
			 "this kernel makes no SCTP socket (%s)",
			 strerror(errno));
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
	if (fd >= 0)
		close(fd);
	else
		snprintf(no_mptcp, sizeof(no_mptcp),
			 "this kernel makes no MPTCP socket here (%s)",
			 strerror(errno));
	/* ENOPROTOOPT is net.mptcp.enabled=0 in this namespace alone; a
	 * new one starts with it on. */
	if (fd < 0 && errno != ENOPROTOOPT)
		snprintf(no_kernel_mptcp, sizeof(no_kernel_mptcp), "%s",
			 no_mptcp);
	if (!harness_netns_possible())
		snprintf(no_netns, sizeof(no_netns),
			 "needs root and \"ip netns add\"");
	return harness_run(transport_suite());
}
