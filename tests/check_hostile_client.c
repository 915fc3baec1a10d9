/*
 * Peers that do not play by the protocol, scripted from raw sockets: fake
 * netservers that netperf talks to, and hostile clients of a real
 * netserver. Whatever the peer does, a timed test ends at its length plus
 * a bounded grace, with one line that names what the peer did. Not run
 * as root, the one check that needs --wire's capture says so
 * (harness_skip), and the suite passes on what could run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "np/legacy.h"
#include "np/result.h"

/* The test's token, as a fake netserver hands it out. */
#define TOKEN_HEX "000102030405060708090a0b0c0d0e0f"
#define TOKEN_LEN 16

/* Seconds any scripted flood runs at most: far past the bound under
 * test, so a peer that is not cut off shows as a failure, not a hang. */
#define FLOOD_MAX 20.0

/* The bound every timed test must end by, past its length: 5 s of grace
 * plus the 2 s a sender's last call and the control round trip may add
 * (MODULE_HARD_END_SEC), and room for a loaded machine. */
#define HARD_END 7.0
#define SLACK 3.0

static void
set_timeout(int fd, int ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A TCP or UDP socket bound to 127.0.0.1 on a free port; sets *port. */
static int
bound_socket(int type, int *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 16) < 0) ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

/* Accepts one connection within ms; returns it, or -1. */
static int
accept_within(int lfd, int ms)
{
	struct pollfd pfd = {.fd = lfd, .events = POLLIN};
	int fd;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		set_timeout(fd, 1000);
	return fd;
}

/* netperf's probe (which netserver is this?) and our netserver's answer;
 * returns 0, or -1 when no probe came. */
static int
answer_probe(int ctl)
{
	unsigned char msg[LEGACY_MSG_LEN];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(msg)) {
		n = recv(ctl, msg + got, sizeof(msg) - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	if (!legacy_is_probe(msg, got))
		return -1;
	legacy_probe_answer_encode(msg);
	return harness_send(ctl, msg, sizeof(msg));
}

static int
hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
				      : -1;
}

/* The field key of the JSON text, or NULL; the caller frees it. */
static json_t *
parse(const char *text)
{
	return json_loads(text, 0, NULL);
}

/* The 16 bytes of a ready message's hex token; returns 0, or -1. */
static int
ready_token(json_t *ready, unsigned char *token)
{
	const char *hex = json_string_value(json_object_get(ready, "token"));
	int i;

	if (hex == NULL || strlen(hex) != 2 * TOKEN_LEN)
		return -1;
	for (i = 0; i < TOKEN_LEN; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		token[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* ---- Fake netservers, for netperf to meet ---- */

enum fake_act {
	/* TCP_MAERTS that never stops sending. */
	FAKE_MAERTS_FLOOD,
	/* TCP_STREAM that takes the data, then floods instead of
	 * closing. */
	FAKE_DRAIN_FLOOD,
	/* TCP_STREAM that ends well and reports results (see below). */
	FAKE_RESULTS,
	/* Refuses the request with the error text in say->extra. */
	FAKE_ERROR,
	/* FAKE_RESULTS, having sent the interim messages right after
	 * go. */
	FAKE_INTERIM,
};

/* What a FAKE_RESULTS netserver says: its elapsed time as JSON text (NULL
 * for the time it really took), bytes_recv as what it got plus delta, or
 * the largest count when max is set, and any more fields. */
struct fake_say {
	const char *elapsed;
	long long delta;
	int max;
	const char *extra;
};

struct fake {
	enum fake_act act;
	const struct fake_say *say;
	/* Its hello, NULL for a plain one. */
	const char *hello;
	/* FAKE_INTERIM's messages, ended by NULL. */
	const char *const *interim;
	/* FAKE_RESULTS: a wire object that says netperf counted for it
	 * (WIRE_SHARED), with peer_ports: 0 none at all, 1 a port not
	 * netperf's, 2 the data connection's own client port. */
	int wire_ports;
	int lfd, port;
	pthread_t tid;
	/* What the fake saw, for the test to check afterwards. */
	int reached_go;
	unsigned long long got, flooded;
};

static void
fake_flood(int d, struct fake *f)
{
	static char junk[65536];
	double until = harness_now() + FLOOD_MAX;
	ssize_t n;

	while (harness_now() < until) {
		n = send(d, junk, sizeof(junk), MSG_NOSIGNAL);
		if (n > 0)
			f->flooded += (unsigned long long)n;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			return;
	}
}

/* Takes what netperf sends until it half-closes (or FLOOD_MAX). */
static void
fake_drink(int d, struct fake *f)
{
	static char buf[65536];
	double until = harness_now() + FLOOD_MAX;
	ssize_t n;

	while (harness_now() < until) {
		n = recv(d, buf, sizeof(buf), 0);
		if (n > 0)
			f->got += (unsigned long long)n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return;
	}
}

/* A wire object from netserver, its "shared" as given, still open for
 * more fields. */
#define WIRE_DIR                                                               \
	"{\"packets\":0,\"bytes\":0,\"payload\":0,\"retrans\":0,"              \
	"\"max_len\":0}"
#define WIRE_SHARED(b)                                                         \
	",\"wire\":{\"ifname\":\"lo\",\"captured\":false,\"out\":" WIRE_DIR    \
	",\"in\":" WIRE_DIR ",\"dropped\":0,\"have_ifstat\":false,"            \
	"\"ifstat\":{\"rx_packets\":0,\"tx_packets\":0,\"rx_bytes\":0,"        \
	"\"tx_bytes\":0,\"rx_dropped\":0,\"tx_dropped\":0,\"rx_errors\":0,"    \
	"\"tx_errors\":0},\"mtu\":-1,\"offloads\":\"\",\"warning\":\"\","      \
	"\"shared\":" b

/* The port of d's peer, 0 when it has none. */
static int
peer_port(int d)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getpeername(d, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	return ss.ss_family == AF_INET
		   ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
		   : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* Takes TCP_STREAM's data to its end, closes, and reports. */
static void
fake_results(int ctl, int d, struct fake *f)
{
	const struct fake_say *say = f->say;
	double t0 = harness_now();
	unsigned long long bytes;
	char msg[2048], took[32], wire[1024] = "";
	int port;

	fake_drink(d, f);
	if (f->wire_ports > 0) {
		port = f->wire_ports == 1 ? 1 : peer_port(d);
		snprintf(wire, sizeof(wire),
			 WIRE_SHARED("true") ",\"peer_ports\":[%d]}", port);
	}
	close(d);
	snprintf(took, sizeof(took), "%.6f", harness_now() - t0);
	bytes = say->max ? 9223372036854775807ULL
			 : (unsigned long long)((long long)f->got + say->delta);
	snprintf(msg, sizeof(msg),
		 "{\"type\":\"results\",\"elapsed\":%s,\"bytes_sent\":0,"
		 "\"bytes_recv\":%llu,\"send_calls\":0,\"recv_calls\":1,"
		 "\"trans\":0,\"sndbuf\":-1,\"rcvbuf\":-1,\"sndbuf_end\":-1,"
		 "\"rcvbuf_end\":-1,\"send_size\":65536,\"recv_size\":65536,"
		 "\"mss\":-1,\"retrans\":0,\"cpu_id\":0%s%s}",
		 say->elapsed != NULL ? say->elapsed : took, bytes,
		 say->extra != NULL ? say->extra : "", wire);
	if (harness_send_json(ctl, msg) == 0)
		harness_recv_frame(ctl, msg, sizeof(msg), 5000);
}

static void *
fake_main(void *arg)
{
	struct fake *f = arg;
	char buf[8192], msg[1024];
	unsigned char tok[TOKEN_LEN];
	int ctl, dl = -1, d = -1, dport;

	ctl = accept_within(f->lfd, 10000);
	if (ctl < 0)
		return NULL;
	if (answer_probe(ctl) < 0 ||
	    harness_recv_frame(ctl, buf, sizeof(buf), 5000) <= 0 ||
	    harness_send_json(ctl, f->hello != NULL
				       ? f->hello
				       : "{\"type\":\"hello\",\"version\":1,"
					 "\"program\":\"netserver\","
					 "\"program_version\":\"fake\"}") < 0 ||
	    harness_recv_frame(ctl, buf, sizeof(buf), 5000) <= 0)
		goto out;
	if (f->act == FAKE_ERROR) {
		harness_send_json(ctl, f->say->extra);
		goto out;
	}
	dl = bound_socket(SOCK_STREAM, &dport);
	if (dl < 0)
		goto out;
	snprintf(msg, sizeof(msg),
		 "{\"type\":\"ready\",\"data_port\":%d,\"data_ports\":[%d],"
		 "\"sndbuf\":-1,\"rcvbuf\":-1,\"send_size\":65536,"
		 "\"recv_size\":65536,\"token\":\"" TOKEN_HEX "\"}",
		 dport, dport);
	if (harness_send_json(ctl, msg) < 0)
		goto out;
	d = accept_within(dl, 10000);
	if (d < 0 || recv(d, tok, sizeof(tok), MSG_WAITALL) != TOKEN_LEN ||
	    harness_send_json(ctl, "{\"type\":\"go\"}") < 0)
		goto out;
	f->reached_go = 1;
	switch (f->act) {
	case FAKE_MAERTS_FLOOD:
		fake_flood(d, f);
		break;
	case FAKE_DRAIN_FLOOD:
		fake_drink(d, f);
		fake_flood(d, f);
		break;
	case FAKE_INTERIM:
		for (int i = 0; f->interim[i] != NULL; i++)
			if (harness_send_json(ctl, f->interim[i]) < 0)
				goto out;
		fake_results(ctl, d, f);
		d = -1;
		break;
	case FAKE_RESULTS:
		fake_results(ctl, d, f);
		d = -1;
		break;
	case FAKE_ERROR:
		break;
	}
out:
	if (d >= 0)
		close(d);
	if (dl >= 0)
		close(dl);
	close(ctl);
	return NULL;
}

static void
fake_start(struct fake *f, enum fake_act act)
{
	memset(f, 0, sizeof(*f));
	f->act = act;
	f->lfd = bound_socket(SOCK_STREAM, &f->port);
	ck_assert_int_ge(f->lfd, 0);
	ck_assert_int_eq(pthread_create(&f->tid, NULL, fake_main, f), 0);
}

static void
fake_join(struct fake *f)
{
	pthread_join(f->tid, NULL);
	close(f->lfd);
}

/* Runs netperf -t test -l 1 against the fake, within timeout seconds. */
static void
netperf_vs(struct fake *f, const char *test, double timeout,
	   struct harness_out *o)
{
	char port[16];
	const char *args[] = {"-H", "127.0.0.1", "-p", port, "-t",
			      test, "-l",	 "1",  NULL};

	snprintf(port, sizeof(port), "%d", f->port);
	ck_assert_int_eq(harness_netperf(args, timeout, o), 0);
}

/* netperf failed with exactly one line on stderr, containing what. */
static void
one_error_line(const struct harness_out *o, const char *what)
{
	const char *nl = strchr(o->err, '\n');

	ck_assert_msg(o->status != 0, "netperf exited 0 after %.1f s",
		      o->seconds);
	ck_assert_msg(strstr(o->err, what) != NULL,
		      "expected \"%s\", got: %s", what, o->err);
	ck_assert_msg(nl != NULL && nl[1] == '\0', "not one line: %s",
		      o->err);
}

/* A netserver that never stops a TCP_MAERTS holds netperf no longer than
 * the test's length and the grace. */
START_TEST(maerts_never_stops)
{
	struct harness_out o;
	struct fake f;

	fake_start(&f, FAKE_MAERTS_FLOOD);
	netperf_vs(&f, "TCP_MAERTS", 1 + FLOOD_MAX, &o);
	fake_join(&f);
	ck_assert_int_eq(f.reached_go, 1);
	one_error_line(&o, "netperf: the peer kept sending data 7 s past "
			   "the end of the test");
	/* The test's second, the hard end, and remote_reason's 1 s wait
	 * for netserver's own words. */
	ck_assert_msg(o.seconds < 1 + HARD_END + 1 + SLACK,
		      "netperf took %.1f s", o.seconds);
	ck_assert_msg(o.seconds >= 1 + HARD_END, "netperf took %.1f s",
		      o.seconds);
}
END_TEST

/* A netserver that floods back while TCP_STREAM waits for its close: the
 * receiver of a one-way test sends nothing, so netperf stops at once. */
START_TEST(stream_drain_flood)
{
	struct harness_out o;
	struct fake f;

	fake_start(&f, FAKE_DRAIN_FLOOD);
	netperf_vs(&f, "TCP_STREAM", 1 + FLOOD_MAX, &o);
	fake_join(&f);
	ck_assert_int_eq(f.reached_go, 1);
	ck_assert_msg(f.got > 0, "netperf sent nothing");
	one_error_line(&o, "netperf: the peer sent data back on the one-way "
			   "data connection");
	ck_assert_msg(o.seconds < 1 + 1 + SLACK, "netperf took %.1f s",
		      o.seconds);
}
END_TEST

/* CPU figures whose machine-wide utilisation is the given JSON number. */
#define CPU_UTIL(u)                                                            \
	",\"cpu\":{\"all\":{\"util\":" u ",\"user\":0.0,\"nice\":0.0,"      \
	"\"system\":0.0,\"irq\":0.0,\"softirq\":0.0,\"iowait\":0.0,"          \
	"\"idle\":100.0,\"steal\":0.0},\"ncpu\":1,\"peak\":0.0,"              \
	"\"peak_id\":0,\"per\":[]}"

/* Results netserver could not have measured are refused, with the field
 * and the reason; the same exchange with true figures is printed. */
START_TEST(implausible_results)
{
	static const struct {
		struct fake_say say;
		const char *want;
	} cases[] = {
	    {{NULL, 0, 0, NULL}, NULL},
	    {{"0.0", 0, 0, NULL}, "elapsed is 0 s (a test takes time)"},
	    {{"1000000.0", 0, 0, NULL},
	     "elapsed is 1e+06 s, longer than the "},
	    {{NULL, 0, 1, NULL},
	     "bytes_recv is 9223372036854775807, more than 10^12 a second"},
	    {{NULL, 1, 0, NULL}, "bytes_recv is "},
	    {{NULL, 0, 0, CPU_UTIL("-1.0")},
	     "cpu.all.util is -1 %, outside 0..100"},
	    {{NULL, 0, 0, CPU_UTIL("50.0")},
	     "cpu.all.util is 50 %, but its parts add up to 0 %"},
	};
	struct harness_out o;
	struct fake f;
	char port[16];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = {"-H", "127.0.0.1",  "-p", port, "-t",
				      "TCP_STREAM", "-l", "-100000", NULL};

		fake_start(&f, FAKE_RESULTS);
		f.say = &cases[i].say;
		snprintf(port, sizeof(port), "%d", f.port);
		ck_assert_int_eq(harness_netperf(args, 20, &o), 0);
		fake_join(&f);
		ck_assert_msg(f.got == 100000, "case %zu: netperf sent %llu", i,
			      f.got);
		if (cases[i].want == NULL) {
			ck_assert_msg(o.status == 0, "true figures refused: %s",
				      o.err);
			ck_assert_msg(strstr(o.out, "TCP STREAM TEST") != NULL,
				      "%s", o.out);
			continue;
		}
		one_error_line(&o, "netperf: netserver's results are "
				   "implausible: ");
		ck_assert_msg(strstr(o.err, cases[i].want) != NULL,
			      "case %zu: expected \"%s\", got: %s", i,
			      cases[i].want, o.err);
		if (cases[i].say.delta != 0)
			ck_assert_msg(strstr(o.err, "but netperf sent 100000 "
						    "bytes") != NULL,
				      "%s", o.err);
	}
}
END_TEST

/* A netserver may leave its wire count to netperf only when netperf
 * offered it (--wire, both on loopback): one that says it did otherwise
 * is refused, and the same results without the claim are printed. */
START_TEST(unoffered_shared_wire)
{
	static const struct fake_say claims[] = {
	    {NULL, 0, 0, WIRE_SHARED("false") "}"},
	    {NULL, 0, 0, WIRE_SHARED("true") "}"},
	};
	struct harness_out o;
	struct fake f;
	char port[16];
	size_t i;

	for (i = 0; i < 2; i++) {
		const char *args[] = {"-H", "127.0.0.1",  "-p", port, "-t",
				      "TCP_STREAM", "-l", "-100000", NULL};

		fake_start(&f, FAKE_RESULTS);
		f.say = &claims[i];
		snprintf(port, sizeof(port), "%d", f.port);
		ck_assert_int_eq(harness_netperf(args, 20, &o), 0);
		fake_join(&f);
		if (i == 0) {
			ck_assert_msg(o.status == 0, "refused: %s", o.err);
			continue;
		}
		one_error_line(&o, "netperf: netserver's wire figures say "
				   "netperf counted for it, which it did not "
				   "offer");
	}
}
END_TEST

/*
 * netperf offered (--wire, as root, on lo): netserver's claim stands when
 * its data connection is netperf's own, and netperf's counts are printed
 * for it; a connection that is not (as through a tunnel) leaves its side
 * uncounted, said in its row, and the test still reports.
 */
START_TEST(offered_shared_wire)
{
	static const struct fake_say plain = {NULL, 0, 0, NULL};
	static const char *const want[] = {
	    "counted once for both ends: netperf's counter on lo",
	    "no capture: netserver left the count to netperf, but its data "
	    "connections are not netperf's (a tunnel?): not counted"};
	struct harness_out o;
	struct fake f;
	char port[16];
	size_t i;

	if (geteuid() != 0) {
		harness_skip("offered_shared_wire: --wire needs root");
		return;
	}
	for (i = 0; i < 2; i++) {
		const char *args[] = {"-H",	"127.0.0.1",  "-p", port,
				      "-t",	"TCP_STREAM", "-l", "-100000",
				      "--wire", NULL};

		fake_start(&f, FAKE_RESULTS);
		f.say = &plain;
		f.wire_ports = i == 0 ? 2 : 1;
		snprintf(port, sizeof(port), "%d", f.port);
		ck_assert_int_eq(harness_netperf(args, 20, &o), 0);
		fake_join(&f);
		ck_assert_msg(o.status == 0, "case %zu: %s", i, o.err);
		ck_assert_msg(strstr(o.out, want[i]) != NULL,
			      "case %zu: no \"%s\" in:\n%s", i, want[i], o.out);
	}
}
END_TEST

/* True when text has no byte outside printable ASCII but newlines. */
static int
printable(const char *text)
{
	for (; *text != '\0'; text++)
		if (*text != '\n' && (*text < 0x20 || *text > 0x7e))
			return 0;
	return 1;
}

/* Every string netserver sends reaches the terminal escaped: its error
 * text (ESC sequences, a newline forging a second line, 300 characters)
 * and what its hello says of its host. */
START_TEST(server_strings_escaped)
{
	static const struct fake_say error = {
	    NULL, 0, 0,
	    "{\"type\":\"error\",\"message\":\"\\u001b]0;owned\\u0007"
	    "\\u001b[2Jbad\\nnetperf: forged line\\r"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "\"}"};
	static const struct fake_say truth = {NULL, 0, 0, NULL};
	struct harness_out o;
	struct fake f;
	char port[16];
	const char *args[] = {"-H", "127.0.0.1",	"-p", port,
			      "-t", "TCP_STREAM",	"-l", "-100000",
			      "--", "-o",		"REMOTE_HOSTNAME", NULL};

	fake_start(&f, FAKE_ERROR);
	f.say = &error;
	snprintf(port, sizeof(port), "%d", f.port);
	ck_assert_int_eq(harness_netperf(args, 20, &o), 0);
	fake_join(&f);
	one_error_line(&o, "netperf: netserver: \\x1b]0;owned\\x07\\x1b[2J"
			   "bad\\nnetperf: forged line\\rxxx");
	ck_assert_msg(printable(o.err), "raw bytes reached stderr: %s", o.err);
	ck_assert_msg(strlen(o.err) < 240, "%zu bytes: %s", strlen(o.err),
		      o.err);

	fake_start(&f, FAKE_RESULTS);
	f.say = &truth;
	f.hello = "{\"type\":\"hello\",\"version\":1,\"program\":"
		  "\"netserver\\u001b[31m\",\"program_version\":\"1\\n2\","
		  "\"hostname\":\"evil\\u001b[31mhost\\nforged\","
		  "\"kernel\":\"k\\u0007\",\"cpu_model\":\"\\u009b\","
		  "\"ncpu\":1}";
	snprintf(port, sizeof(port), "%d", f.port);
	ck_assert_int_eq(harness_netperf(args, 20, &o), 0);
	fake_join(&f);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(strstr(o.out, "evil\\x1b[31mhost\\nforged") != NULL,
		      "%s", o.out);
	ck_assert_msg(printable(o.out), "raw bytes reached stdout: %s", o.out);
}
END_TEST

/* The strings of netserver's platform record and of its figures (its
 * congestion control) reach -k's lines and the JSON escaped: no ESC or
 * BEL, no line a newline forged, and the JSON still parses, holding the
 * escaped text (cut, marked "...", where it outgrows its field). */
#define PLATFORM_HOSTILE                                                       \
	",\"cong\":\"c\\u001b\\nnetperf: x\","                                 \
	"\"platform\":{\"system_model\":\"M\\u001b]0;pwn\\u0007\","            \
	"\"system_vendor\":\"V\\nnetperf: forged vendor\","                    \
	"\"cpu_model\":\"C\\u0007\\r\\u009b\","                                \
	"\"interface\":{\"driver\":\"d\\u001b[31m\\nnetperf: forged driver\","  \
	"\"qdisc\":\"q\\\\x1b\"},"                                             \
	"\"vulnerabilities\":{\"spectre\\u001b[2J\":\"Vulnerable\\u0007\\n"    \
	"netperf: forged vuln\"}}"

START_TEST(platform_strings_escaped)
{
	static const struct fake_say say = {NULL, 0, 0, PLATFORM_HOSTILE};
	static const char *const want[] = {
	    "REMOTE_SYSTEM_MODEL=M\\x1b]0;pwn\\x07\n",
	    "REMOTE_SYSTEM_VENDOR=V\\nnetperf: forged vendor\n",
	    "REMOTE_DRIVER_NAME=d\\x1b[31m\\nnetperf: forged d...\n",
	    "REMOTE_QDISC=q\\\\x1b\n",
	    "REMOTE_CONG_CONTROL=c\\x1b\\nnetpe...\n",
	    "REMOTE_VULNERABLE=spectre\\x1b[2J",
	};
	struct harness_out o;
	struct fake f;
	char port[16];
	const char *k[] = {"-H", "127.0.0.1", "-p", port, "-t", "TCP_STREAM",
			   "-l", "-100000", "--", "-k",
			   "REMOTE_SYSTEM_MODEL,REMOTE_SYSTEM_VENDOR,"
			   "REMOTE_DRIVER_NAME,REMOTE_QDISC,REMOTE_CONG_CONTROL,"
			   "REMOTE_VULNERABLE",
			   NULL};
	const char *js[] = {"-H", "127.0.0.1",  "-p", port,	 "-t",
			    "TCP_STREAM", "-l", "-100000", "--json", NULL};
	json_error_t je;
	json_t *doc, *pl;

	fake_start(&f, FAKE_RESULTS);
	f.say = &say;
	snprintf(port, sizeof(port), "%d", f.port);
	ck_assert_int_eq(harness_netperf(k, 20, &o), 0);
	fake_join(&f);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(printable(o.out), "raw bytes reached stdout: %s", o.out);
	ck_assert_msg(printable(o.err), "raw bytes reached stderr: %s", o.err);
	ck_assert_msg(strstr(o.out, "\nnetperf:") == NULL &&
			  strncmp(o.out, "netperf:", 8) != 0,
		      "a forged line: %s", o.out);
	ck_assert_msg(strstr(o.err, "forged") == NULL, "%s", o.err);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(o.out, want[i]) != NULL,
			      "no \"%s\" in: %s", want[i], o.out);

	fake_start(&f, FAKE_RESULTS);
	f.say = &say;
	snprintf(port, sizeof(port), "%d", f.port);
	ck_assert_int_eq(harness_netperf(js, 20, &o), 0);
	fake_join(&f);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(printable(o.out), "raw bytes reached stdout: %s", o.out);
	doc = json_loads(o.out, 0, &je);
	ck_assert_msg(doc != NULL, "not JSON (%s): %s", je.text, o.out);
	pl = json_object_get(json_object_get(doc, "remote"), "platform");
	ck_assert_msg(pl != NULL, "no remote platform: %s", o.out);
	ck_assert_str_eq(
	    json_string_value(json_object_get(pl, "system_model")),
	    "M\\x1b]0;pwn\\x07");
	ck_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(pl, "interface"), "driver")),
			 "d\\x1b[31m\\nnetperf: forged d...");
	json_decref(doc);
}
END_TEST

/* A counted TCP_MAERTS from a netserver that sends more than asked. */
START_TEST(maerts_more_than_asked)
{
	struct harness_out o;
	struct fake f;
	char port[16];
	const char *args[] = {"-H", "127.0.0.1",  "-p", port,	   "-t",
			      "TCP_MAERTS", "-l", "-100000", NULL};

	fake_start(&f, FAKE_MAERTS_FLOOD);
	snprintf(port, sizeof(port), "%d", f.port);
	ck_assert_int_eq(harness_netperf(args, 1 + FLOOD_MAX, &o), 0);
	fake_join(&f);
	one_error_line(&o, "netperf: the peer sent more than the 100000 "
			   "bytes asked for");
	ck_assert_msg(o.seconds < 1 + SLACK, "netperf took %.1f s",
		      o.seconds);
}
END_TEST

/* An interim report of interval n with these tcp_info members. */
#define INTERIM(n, ti)                                                         \
	"{\"type\":\"interim\",\"n\":" #n ",\"interval\":0.2,"               \
	"\"since_start\":0.2,\"tcp_info\":{\"connections\":1" ti "}}"

/* netserver's interim reports (-D): taken when asked for and in order,
 * paired with netperf's interval of the same number; one not asked for,
 * out of order, too far ahead, too large or out of range fails the test
 * in one line. */
START_TEST(interim_reports)
{
	static const char *const good[] = {
	    INTERIM(0, ",\"rtt_us\":1234,\"cwnd\":77"), NULL};
	static const char *const again[] = {INTERIM(0, ""), INTERIM(0, ""),
					    NULL};
	static const char *const ahead[] = {INTERIM(99, ""), NULL};
	static const char *const conns[] = {
	    "{\"type\":\"interim\",\"n\":0,\"interval\":0.2,"
	    "\"since_start\":0.2,\"tcp_info\":{\"connections\":2}}",
	    NULL};
	static const char *const negative[] = {INTERIM(0, ",\"rtt_us\":-5"),
					       NULL};
	static char big[6000];
	static const char *const large[] = {big, NULL};
	static const struct {
		const char *const *say;
		int asked;
		const char *want; /* NULL: passes */
	} cases[] = {
	    {good, 1, NULL},
	    {good, 0, "netperf: netserver sent an interim report that was "
		      "not asked for"},
	    {again, 1, "netperf: netserver's interim report 0 came after "
		       "report 0"},
	    {ahead, 1, "netperf: netserver sent interim report 99 during "
		       "netperf's interval 0: more than were asked for"},
	    {conns, 1, "netperf: netserver's interim report: interim report "
		       "merges 2 connections of 1"},
	    {negative, 1, "netperf: netserver's interim report: field "
			  "\"rtt_us\""},
	    {large, 1, "netperf: netserver's interim report is over 4096 "
		       "bytes"},
	};
	static const struct fake_say say = {NULL, 0, 0, NULL};
	struct harness_out o;
	struct fake f;
	char port[16];
	size_t i;

	snprintf(big, sizeof(big), INTERIM(0, ",\"pad\":\"%05000d\""), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = {"-H", "127.0.0.1", "-p", port,
				      "-t", "TCP_STREAM", "-l", "1",
				      "--json-stream", cases[i].asked ? "-D" : NULL,
				      "0.3", NULL};

		fake_start(&f, FAKE_INTERIM);
		f.say = &say;
		f.interim = cases[i].say;
		snprintf(port, sizeof(port), "%d", f.port);
		ck_assert_int_eq(harness_netperf(args, 20, &o), 0);
		fake_join(&f);
		ck_assert_int_eq(f.reached_go, 1);
		if (cases[i].want != NULL) {
			one_error_line(&o, cases[i].want);
			continue;
		}
		ck_assert_msg(o.status == 0, "case %zu: %s", i, o.err);
		/* Interval 0 carries the fake's figures; the others none. */
		ck_assert_msg(strstr(o.out, "\"n\":0,") != NULL, "%s", o.out);
		ck_assert_msg(strstr(o.out, "\"remote_tcp_info\":{\"connections"
					    "\":1,\"retrans\":null,\"bytes_"
					    "retrans\":null,\"cwnd\":77,") !=
				  NULL,
			      "%s", o.out);
		ck_assert_msg(strstr(o.out, "\"rtt_us\":1234,") != NULL, "%s",
			      o.out);
		ck_assert_msg(strstr(o.out, "\"n\":1,") != NULL, "%s", o.out);
		ck_assert_msg(strstr(strstr(o.out, "\"n\":1,"),
				     "\"remote_tcp_info\":null") != NULL,
			      "%s", o.out);
	}
}
END_TEST

/* The checks of netserver's figures, one implausible field at a time,
 * for every kind of test; each case starts from figures that pass. */
START_TEST(result_checks)
{
	static const struct {
		const char *test;
		const char *field; /* set to value in remote, or NULL */
		double value;
		const char *want; /* NULL: passes */
	} cases[] = {
	    {"TCP_STREAM", NULL, 0, NULL},
	    {"TCP_MAERTS", NULL, 0, NULL},
	    {"TCP_RR", NULL, 0, NULL},
	    {"TCP_CRR", NULL, 0, NULL},
	    {"UDP_STREAM", NULL, 0, NULL},
	    {"UDP_RR", NULL, 0, NULL},
	    {"TCP_STREAM", "elapsed", NAN, "elapsed is nan s"},
	    {"TCP_STREAM", "elapsed", -1, "elapsed is -1 s"},
	    {"TCP_STREAM", "elapsed", 2.1, "elapsed is 2.1 s, longer than "
					   "the 2.000 s"},
	    {"TCP_STREAM", "elapsed", 2.0015, NULL},
	    {"TCP_STREAM", "bytes_recv", 999, "bytes_recv is 999, but "
					      "netperf sent 1000 bytes"},
	    {"TCP_MAERTS", "bytes_sent", 1001, "bytes_sent is 1001, but "
					       "netperf received 1000"},
	    {"TCP_RR", "trans", 11, "trans is 11, but netperf completed 10"},
	    {"TCP_CRR", "trans", 9, "trans is 9, but netperf completed 10"},
	    {"UDP_RR", "trans", 9, "trans is 9, but netperf had 10 answers"},
	    {"UDP_RR", "trans", 12, NULL},
	    {"UDP_STREAM", "recv_calls", 11, "recv_calls is 11, but netperf "
					     "sent 10 datagrams"},
	    {"UDP_STREAM", "dups", 11, "dups is 11, more than the 10"},
	    {"UDP_STREAM", "reordered", 11, "reordered is 11, more than"},
	    {"UDP_STREAM", "jitter", 3, "jitter is 3 s, outside 0..2.000 s"},
	    {"TCP_RR", "send_calls", 1001, "send_calls is 1001, more than "
					   "the 1000 bytes sent"},
	    {"TCP_RR", "recv_calls", 1001, "recv_calls is 1001, more than "
					   "the 1000 bytes received"},
	    {"TCP_RR", "lost", 3e12, "lost is 3000000000000, more than 10^12 "
				     "a second over the 2.000 s"},
	    {"TCP_RR", "cpu.peak", 10, "cpu.peak is 10 %, below the "
				       "machine's mean of 20 %"},
	    {"UDP_RR", "requests", 11, "requests is 11, more than the 10 "
				       "datagrams received"},
	    {"UDP_RR", "requests", -1, NULL},
	    {"UDP_STREAM", "coalesced", 11, "coalesced is 11, more than the "
					    "10 datagrams received"},
	    {"UDP_STREAM", "nap_drops", 1, "nap_drops is 1, more than the 0 "
					   "naps"},
	    {"TCP_STREAM", "zc_copied", 1, "zc_copied is 1, more than the 0 "
					   "zerocopy completions"},
	    {"TCP_STREAM", "syscalls", 3e12, "syscalls is 3000000000000, "
					     "more than 10^12 a second"},
	    {"TCP_RR", "timeouts", 3e12, "timeouts is 3000000000000, more "
					 "than 10^12 a second"},
	    {"TCP_RR", "cpu.idle", 90, "cpu.all: its shares add up to 110 %"},
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result res;
		struct side_result *l = &res.side[RESULT_LOCAL].sum,
				   *r = &res.side[RESULT_REMOTE].sum;
		const char *f = cases[i].field;
		double v = cases[i].value;
		int rc;

		memset(&res, 0, sizeof(res));
		res.m = module_find(cases[i].test);
		ck_assert_ptr_nonnull(res.m);
		res.nstreams = 1;
		l->elapsed = r->elapsed = 1.5;
		l->bytes_sent = l->bytes_recv = 1000;
		r->bytes_sent = r->bytes_recv = 1000;
		l->send_calls = l->recv_calls = 10;
		r->send_calls = r->recv_calls = 10;
		l->trans = r->trans = 10;
		r->cpu_measured = 1;
		r->cpu.all.util = 20;
		r->cpu.all.user = 15;
		r->cpu.all.system = 5;
		r->cpu.all.idle = 80;
		r->cpu.ncpu = 2;
		r->cpu.peak = 30;
#define SET(name)                                                              \
	if (f != NULL && strcmp(f, #name) == 0)                                \
		r->name = (uint64_t)v;
		SET(bytes_sent)
		SET(bytes_recv)
		SET(send_calls)
		SET(recv_calls)
		SET(trans)
		SET(dups)
		SET(reordered)
		SET(lost)
		SET(syscalls)
		SET(coalesced)
		SET(nap_drops)
		SET(zc_copied)
		SET(timeouts)
#undef SET
		if (f != NULL && strcmp(f, "requests") == 0)
			r->requests = (int64_t)v;
		if (f != NULL && strcmp(f, "elapsed") == 0)
			r->elapsed = v;
		if (f != NULL && strcmp(f, "jitter") == 0)
			r->jitter = v;
		if (f != NULL && strcmp(f, "cpu.peak") == 0)
			r->cpu.peak = v;
		if (f != NULL && strcmp(f, "cpu.idle") == 0)
			r->cpu.all.idle = v;
		err[0] = '\0';
		rc = result_check_remote(&res, 2.0, err);
		if (cases[i].want == NULL) {
			ck_assert_msg(rc == 0, "case %zu (%s %s): %s", i,
				      cases[i].test, f ? f : "-", err);
			continue;
		}
		ck_assert_msg(rc == -1, "case %zu (%s %s) passed", i,
			      cases[i].test, f);
		ck_assert_msg(strncmp(err,
				      "netserver's results are implausible: ",
				      37) == 0 &&
				  strstr(err, cases[i].want) != NULL,
			      "case %zu: expected \"%s\", got \"%s\"", i,
			      cases[i].want, err);
	}
}
END_TEST

/* ---- Hostile clients of a real netserver ---- */

static struct harness_server srv;

static void
srv_start(void)
{
	ck_assert_int_eq(harness_server_start(&srv, NULL), 0);
}

static void
srv_stop(void)
{
	ck_assert_int_eq(harness_server_stop(&srv), 0);
}

/* A request as a hostile client writes it, by hand. */
static void
request_text(char *buf, size_t cap, const char *test, double duration,
	     int size)
{
	snprintf(buf, cap,
		 "{\"type\":\"request\",\"test\":\"%s\",\"duration\":%.1f,"
		 "\"count\":%d,\"send_size\":0,\"recv_size\":0,"
		 "\"rsend_size\":0,\"rrecv_size\":0,\"req_size\":%d,"
		 "\"rsp_size\":%d,\"lsndbuf\":-1,\"lrcvbuf\":-1,"
		 "\"rsndbuf\":-1,\"rrcvbuf\":-1,\"nodelay\":false,"
		 "\"burst\":0,\"remote_cpu\":false,\"data_port\":0}",
		 test, duration, duration > 0 ? 0 : 1000, size, size);
}

/* One hostile session: its control socket and data socket. */
struct session {
	/* A counted test of 1000 bytes or transactions, not 1 s. */
	int counted;
	int ctl, data, port;
	unsigned char token[TOKEN_LEN];
};

/* hello and request; fills port and token from ready. Returns 0, or -1
 * with why set. */
static int
session_ready(struct session *s, const char *test, int size, char *why,
	      size_t cap)
{
	char buf[8192];
	json_t *j;

	s->data = -1;
	s->ctl = harness_connect(srv.port);
	if (s->ctl < 0)
		return snprintf(why, cap, "cannot connect"), -1;
	if (harness_send_json(s->ctl, "{\"type\":\"hello\",\"version\":1}") <
		0 ||
	    harness_recv_frame(s->ctl, buf, sizeof(buf), 5000) <= 0)
		return snprintf(why, cap, "no hello"), -1;
	request_text(buf, sizeof(buf), test, s->counted ? 0 : 1, size);
	if (harness_send_json(s->ctl, buf) < 0 ||
	    harness_recv_frame(s->ctl, buf, sizeof(buf), 5000) <= 0)
		return snprintf(why, cap, "no ready"), -1;
	j = parse(buf);
	if (j == NULL ||
	    strcmp(json_string_value(json_object_get(j, "type")), "ready") !=
		0 ||
	    ready_token(j, s->token) < 0) {
		snprintf(why, cap, "not a ready: %.200s", buf);
		json_decref(j);
		return -1;
	}
	s->port = (int)json_integer_value(json_object_get(j, "data_port"));
	json_decref(j);
	return 0;
}

/* Waits for go on the control connection; returns 0, or -1. */
static int
session_go(struct session *s, char *why, size_t cap)
{
	char buf[4096];

	if (harness_recv_frame(s->ctl, buf, sizeof(buf), 5000) <= 0 ||
	    strstr(buf, "\"go\"") == NULL)
		return snprintf(why, cap, "no go: %.200s", buf), -1;
	return 0;
}

static int session_udp_open(struct session *s, char *why, size_t cap);

/* Connects the TCP data connection and presents the token. */
static int
session_tcp_data(struct session *s, char *why, size_t cap)
{
	s->data = harness_connect(s->port);
	if (s->data < 0 || harness_send(s->data, s->token, TOKEN_LEN) < 0)
		return snprintf(why, cap, "no data connection"), -1;
	set_timeout(s->data, 200);
	return session_go(s, why, cap);
}

/* A connected UDP socket to the data port, the token echoed. */
static int
session_udp_data(struct session *s, char *why, size_t cap)
{
	if (session_udp_open(s, why, cap) < 0)
		return -1;
	return session_go(s, why, cap);
}

/* A connected UDP socket to the data port, the token echoed; returns 0,
 * or -1 with why set. */
static int
session_udp_open(struct session *s, char *why, size_t cap)
{
	struct sockaddr_in sin;
	unsigned char echo[64];
	int i;

	s->data = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)s->port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s->data < 0 ||
	    connect(s->data, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return snprintf(why, cap, "no UDP socket"), -1;
	set_timeout(s->data, 500);
	for (i = 0; i < 10; i++) {
		send(s->data, s->token, TOKEN_LEN, 0);
		if (recv(s->data, echo, sizeof(echo), 0) == TOKEN_LEN &&
		    memcmp(echo, s->token, TOKEN_LEN) == 0)
			break;
	}
	if (i == 10)
		return snprintf(why, cap, "no token echo"), -1;
	set_timeout(s->data, 200);
	return 0;
}

static void
session_close(struct session *s)
{
	if (s->data >= 0)
		close(s->data);
	if (s->ctl >= 0)
		close(s->ctl);
}

/* The ways a hostile client keeps a test going after its end. */
enum hostile_act {
	HOSTILE_STREAM_FLOOD, /* TCP_STREAM: never stops sending */
	HOSTILE_RR_FOREVER,   /* TCP_RR: never stops asking */
	HOSTILE_UDP_FLOOD,    /* UDP_STREAM: floods, never says stop */
	NHOSTILE
};

struct hostile {
	enum hostile_act act;
	pthread_t tid;
	/* Seconds from go to netserver's error, -1 when none came. */
	double cut_after;
	char error[512];
	char why[256];
};

/* Keeps the test going until netserver speaks on the control connection
 * or cuts the data path, FLOOD_MAX at most. */
static void
keep_going(struct hostile *h, struct session *s)
{
	static char junk[16384];
	struct pollfd pfd = {.fd = s->ctl, .events = POLLIN};
	double until = harness_now() + FLOOD_MAX;
	char one;
	ssize_t n;

	memset(junk, 'x', sizeof(junk));
	while (harness_now() < until && poll(&pfd, 1, 0) == 0) {
		switch (h->act) {
		case HOSTILE_STREAM_FLOOD:
			n = send(s->data, junk, sizeof(junk), MSG_NOSIGNAL);
			break;
		case HOSTILE_RR_FOREVER:
			n = send(s->data, junk, 1, MSG_NOSIGNAL);
			if (n == 1)
				n = recv(s->data, &one, 1, 0);
			if (n == 0)
				return;
			break;
		case HOSTILE_UDP_FLOOD:
		default:
			/* Datagrams of the 16-byte header and more, as
			 * UDP_STREAM's; paced so loopback keeps up. */
			n = send(s->data, junk, 64, 0);
			usleep(100);
			break;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR &&
		    errno != ECONNREFUSED)
			return;
	}
}

static void *
hostile_main(void *arg)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_RR",
					    "UDP_STREAM"};
	struct hostile *h = arg;
	struct session s = {0, -1, -1, 0, {0}};
	char buf[4096];
	double go;
	int rc;

	h->cut_after = -1;
	if (session_ready(&s, tests[h->act], 1, h->why, sizeof(h->why)) < 0)
		goto out;
	rc = h->act == HOSTILE_UDP_FLOOD
		 ? session_udp_data(&s, h->why, sizeof(h->why))
		 : session_tcp_data(&s, h->why, sizeof(h->why));
	if (rc < 0)
		goto out;
	go = harness_now();
	keep_going(h, &s);
	if (harness_recv_frame(s.ctl, buf, sizeof(buf), 3000) > 0) {
		h->cut_after = harness_now() - go;
		snprintf(h->error, sizeof(h->error), "%.500s", buf);
	} else {
		snprintf(h->why, sizeof(h->why),
			 "no word from netserver after %.1f s",
			 harness_now() - go);
	}
out:
	session_close(&s);
	return NULL;
}

/* Three hostile clients at once, each keeping its test going past its
 * 1 s: netserver cuts each by the hard end, tells it why, and its
 * children are gone. */
START_TEST(clients_that_keep_going)
{
	static const char *const what[] = {"kept sending data",
					   "kept sending requests",
					   "kept sending datagrams"};
	struct hostile h[NHOSTILE];
	pid_t kids[8];
	double until;
	int i;

	for (i = 0; i < NHOSTILE; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].act = (enum hostile_act)i;
		ck_assert_int_eq(
		    pthread_create(&h[i].tid, NULL, hostile_main, &h[i]), 0);
	}
	for (i = 0; i < NHOSTILE; i++)
		pthread_join(h[i].tid, NULL);
	for (i = 0; i < NHOSTILE; i++) {
		ck_assert_msg(h[i].cut_after >= 0, "%s: %s", what[i],
			      h[i].why);
		ck_assert_msg(strstr(h[i].error, "\"error\"") != NULL &&
				  strstr(h[i].error, what[i]) != NULL,
			      "expected \"%s\", got: %s", what[i],
			      h[i].error);
		ck_assert_msg(h[i].cut_after >= 1 + HARD_END - 0.5 &&
				  h[i].cut_after < 1 + HARD_END + SLACK,
			      "%s: cut after %.1f s", what[i],
			      h[i].cut_after);
	}
	until = harness_now() + 5;
	while (harness_server_children(&srv, kids, 8) > 0 &&
	       harness_now() < until)
		usleep(50000);
	ck_assert_int_eq(harness_server_children(&srv, kids, 8), 0);
}
END_TEST

/* Counted TCP_STREAM and TCP_RR of 1000 bytes and transactions whose
 * client sends more: refused at once, and told why. */
START_TEST(counted_more_than_asked)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_RR"};
	static const char *const want[] = {
	    "the peer sent more than the 1000 bytes asked for",
	    "the peer asked for more than the 1000 transactions of the test"};
	char junk[1500], buf[4096], why[256];
	struct session s;
	int i, k;

	memset(junk, 'x', sizeof(junk));
	for (i = 0; i < 2; i++) {
		memset(&s, 0, sizeof(s));
		s.counted = 1;
		ck_assert_msg(session_ready(&s, tests[i], 1, why, sizeof(why)) ==
				      0 &&
				  session_tcp_data(&s, why, sizeof(why)) == 0,
			      "%s", why);
		if (i == 0)
			ck_assert_int_eq(
			    harness_send(s.data, junk, sizeof(junk)), 0);
		for (k = 0; i == 1 && k < 1001; k++)
			send(s.data, junk, 1, MSG_NOSIGNAL);
		ck_assert_int_gt(
		    harness_recv_frame(s.ctl, buf, sizeof(buf), 5000), 0);
		ck_assert_msg(strstr(buf, "\"error\"") != NULL &&
				  strstr(buf, want[i]) != NULL,
			      "%s: %s", tests[i], buf);
		session_close(&s);
	}
}
END_TEST

/* ---- The token datagram, sent again ---- */

static void
put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

static uint64_t
get_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Sends the token again, as netperf does when the first echo is lost;
 * returns 1 when netserver echoes it within ms. */
static int
token_again(struct session *s, int ms)
{
	struct pollfd pfd = {.fd = s->data, .events = POLLIN};
	unsigned char echo[128];

	send(s->data, s->token, TOKEN_LEN, 0);
	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	return recv(s->data, echo, sizeof(echo), MSG_DONTWAIT) == TOKEN_LEN &&
	       memcmp(echo, s->token, TOKEN_LEN) == 0;
}

/* Ends a UDP test as netperf does (three empty datagrams, then stop) and
 * reads netserver's results into doc. */
static json_t *
udp_results(struct session *s)
{
	char buf[65536];
	json_t *doc;

	for (int i = 0; i < 3; i++)
		send(s->data, buf, 0, 0);
	ck_assert_int_eq(harness_send_json(s->ctl, "{\"type\":\"stop\"}"), 0);
	ck_assert_int_gt(harness_recv_frame(s->ctl, buf, sizeof(buf), 5000),
			 0);
	doc = parse(buf);
	ck_assert_msg(doc != NULL &&
			  strcmp(json_string_value(json_object_get(doc, "type")),
				 "results") == 0,
		      "not results: %.300s", buf);
	return doc;
}

static long long
count_of(json_t *doc, const char *key)
{
	json_t *v = json_object_get(doc, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/*
 * UDP_STREAM whose first token echo was lost: the client sends the token
 * again (once before its data and once, delayed on the way, in the
 * middle of it). netserver echoes it and counts it as nothing. The data
 * is 199 datagrams of sequence numbers 0..199 without 50, 100 twice, 151
 * before 150: netserver must count exactly 200 received, 1 duplicate and
 * 1 reordered.
 */
START_TEST(udp_stream_token_again)
{
	unsigned char dg[100];
	struct session s;
	char why[256];
	json_t *doc;
	int echoed, i, seq, sent = 0;

	memset(dg, 'd', sizeof(dg));
	memset(&s, 0, sizeof(s));
	ck_assert_msg(session_ready(&s, "UDP_STREAM", 1, why, sizeof(why)) ==
			      0 &&
			  session_udp_open(&s, why, sizeof(why)) == 0 &&
			  session_go(&s, why, sizeof(why)) == 0,
		      "%s", why);
	/* The first echo counts as lost: the token goes again. */
	echoed = token_again(&s, 2000);
	for (i = 0; i <= 200; i++) {
		seq = i == 151 ? 150 : i == 150 ? 151 : i;
		if (seq == 50)
			continue;
		if (i == 120)
			send(s.data, s.token, TOKEN_LEN, 0);
		put_be64(dg, (uint64_t)(i == 200 ? 100 : seq));
		put_be64(dg + 8, mono_ns());
		ck_assert_int_eq(send(s.data, dg, sizeof(dg), 0), sizeof(dg));
		sent++;
		usleep(200);
	}
	ck_assert_int_eq(sent, 200);
	doc = udp_results(&s);
	ck_assert_int_eq(count_of(doc, "recv_calls"), 200);
	ck_assert_int_eq(count_of(doc, "bytes_recv"), 200 * sizeof(dg));
	ck_assert_int_eq(count_of(doc, "dups"), 1);
	ck_assert_int_eq(count_of(doc, "reordered"), 1);
	ck_assert_msg(echoed, "the token sent again was not echoed");
	json_decref(doc);
	session_close(&s);
}
END_TEST

/*
 * UDP_RR whose first token echo was lost: the token sent again is echoed,
 * not answered as a request; 50 transactions are 50, each answer the
 * echo of its own request.
 */
START_TEST(udp_rr_token_again)
{
	unsigned char req[32], rsp[128];
	struct session s;
	char why[256];
	json_t *doc;
	int echoed, k, wrong = 0;
	ssize_t n;

	memset(req, 'r', sizeof(req));
	memset(&s, 0, sizeof(s));
	ck_assert_msg(session_ready(&s, "UDP_RR", 32, why, sizeof(why)) == 0 &&
			  session_udp_open(&s, why, sizeof(why)) == 0 &&
			  session_go(&s, why, sizeof(why)) == 0,
		      "%s", why);
	set_timeout(s.data, 1000);
	echoed = token_again(&s, 2000);
	for (k = 1; k <= 50; k++) {
		put_be64(req, (uint64_t)k);
		ck_assert_int_eq(send(s.data, req, sizeof(req), 0),
				 sizeof(req));
		n = recv(s.data, rsp, sizeof(rsp), 0);
		if (n != (ssize_t)sizeof(req) || get_be64(rsp) != (uint64_t)k)
			wrong++;
	}
	doc = udp_results(&s);
	ck_assert_int_eq(count_of(doc, "trans"), 50);
	ck_assert_int_eq(count_of(doc, "recv_calls"), 50);
	ck_assert_int_eq(count_of(doc, "bytes_recv"), 50 * sizeof(req));
	ck_assert_msg(echoed, "the token sent again was not echoed");
	ck_assert_int_eq(wrong, 0);
	json_decref(doc);
	session_close(&s);
}
END_TEST

static Suite *
hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *fakes = tcase_create("fake netservers");
	TCase *clients = tcase_create("hostile clients");

	tcase_set_timeout(fakes, 60);
	tcase_add_test(fakes, maerts_never_stops);
	tcase_add_test(fakes, stream_drain_flood);
	tcase_add_test(fakes, implausible_results);
	tcase_add_test(fakes, unoffered_shared_wire);
	tcase_add_test(fakes, offered_shared_wire);
	tcase_add_test(fakes, server_strings_escaped);
	tcase_add_test(fakes, platform_strings_escaped);
	tcase_add_test(fakes, maerts_more_than_asked);
	tcase_add_test(fakes, result_checks);
	tcase_add_test(fakes, interim_reports);
	suite_add_tcase(s, fakes);

	tcase_add_checked_fixture(clients, srv_start, srv_stop);
	tcase_set_timeout(clients, 60);
	tcase_add_test(clients, clients_that_keep_going);
	tcase_add_test(clients, counted_more_than_asked);
	tcase_add_test(clients, udp_stream_token_again);
	tcase_add_test(clients, udp_rr_token_again);
	suite_add_tcase(s, clients);
	return s;
}

int
main(void)
{
	return harness_run(hostile_suite());
}
