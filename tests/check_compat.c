/*
 * The differential test: netperf 2.7.0 (Debian's build, unpacked into the
 * build tree by scripts/refnetperf) against its own netserver, and ours
 * against ours, with the same arguments. What is compared is what a
 * script reads: the exit status, whether stderr is empty, which lines
 * appear and in which order, the words on them, the shape of every number
 * (integer, or how many decimals) and the numbers themselves within a
 * plausible ratio. Exact values never: the two runs measure different
 * moments of a shared machine.
 *
 * The deliberate differences (doc/netperf.1 "DIFFERENCES FROM NETPERF
 * 2.7", README) are the table diffs[] below, and only those are exempted.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <math.h>
#include <netinet/in.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifndef NP_SOURCE_DIR
#define NP_SOURCE_DIR "."
#endif
#ifndef NP_BUILD_DIR
#define NP_BUILD_DIR "."
#endif

/* A selector file (up to four lines) both netperfs read; its name holds
 * the PID so that parallel runs cannot collide. */
static char sel_file[64];
#define SEL_FILE sel_file

/* TCP_SENDFILE's -F files, written by main: one large enough for any
 * ring, one smaller than the least (two sends of 16 KB). */
static char sf_big[64], sf_small[64];

/* The reference's bin directory, and the two servers' control ports:
 * on 127.0.0.1, and on ::1 for the IPv6 cases (when loopback has it). */
static char ref_bin[1024];
static char ref_netperf[1100];
static pid_t ref_server = -1, ref_server6 = -1;
static int ref_port, ref_port6;
static struct harness_server our_server, our_server6;
static int ipv6_up;

/*
 * The deliberate differences, each a rewrite applied to one side's output
 * before the comparison (or a rule of the comparison). Every one is listed
 * with the same words in doc/netperf.1 and README.
 */
enum diff_id {
	/* 2.7 prints the remote address through inet_ntop(..., 8), so
	 * "127.0.0.1 ()", and its local address as the unbound wildcard;
	 * we print both addresses the data connection really used. */
	DIFF_BANNER_ADDR = 1 << 0,
	/* Debian's build is configured with --enable-demo and says so in
	 * every banner (" : demo"); ours offers -D without advertising it. */
	DIFF_BANNER_DEMO = 1 << 1,
	/* -V: our own version number in 2.7's "Netperf version X.Y.Z". */
	DIFF_VERSION = 1 << 2,
	/* Usage (-h, a bad option): our text is ours; the exit status is
	 * 2.7's. */
	DIFF_USAGE_TEXT = 1 << 3,
	/* An unknown test-specific option: 2.7 warns, forces IPv4 and runs;
	 * ours is an error naming the option. */
	DIFF_UNKNOWN_TEST_OPT = 1 << 4,
	/* Debian's build has no --enable-histogram: at -v 2 ours adds the
	 * histogram 2.7 prints when built with it (its row format is
	 * checked on our side alone). */
	DIFF_HISTOGRAM = 1 << 5,
	/* Error messages: the same exit status, our own wording. */
	DIFF_ERROR_TEXT = 1 << 6,
	/* -v 2: after 2.7's blocks ours adds where each side ran, the
	 * latency summary and a finer histogram; 2.7's lines come first
	 * and unchanged. */
	DIFF_V2_EXTRAS = 1 << 7,
	/* Debian's build has neither --enable-dirty nor --enable-intervals
	 * and says so on stdout ("I don't know how to get dirty.", "Packet
	 * rate control is not compiled in."); 2.7.0 predates -q and warns
	 * on stderr. Ours does them: those lines of 2.7's are dropped, its
	 * stderr is not compared. */
	DIFF_NOT_BUILT = 1 << 8, /* also -f, which 2.7.0 lacks */
	/* -F l,r: netserver never opens a path a client names; netperf says
	 * on stderr (one line) that netserver uses its own pattern. */
	DIFF_REMOTE_FILL = 1 << 9,
	/* -d: our debug lines are raw counts on stderr, 2.7's a trace. */
	DIFF_DEBUG = 1 << 11,
	/* The '?' lists: ours names our additions too (doc/output.md);
	 * every name 2.7 lists must be in ours, in the same form. */
	DIFF_SELECTOR_NAMES = 1 << 12,
	/* Latency is always kept: from a selector file 2.7 does not notice
	 * latency selectors, keeps no statistics and prints -1. */
	DIFF_LATENCY_ALWAYS = 1 << 13,
	/* A test-specific -H of the other family than the control
	 * connection's: 2.7 runs the data connection over it; ours stops
	 * before printing anything, with exit status 255 and one line
	 * saying that netserver opens data sockets only on the address
	 * netperf reached it at. */
	DIFF_DATA_FAMILY = 1 << 15,
	/* The platform selectors: Debian's 2.7.0 looks none of them up on
	 * Linux and prints a placeholder (Deprecated, 0, 0xfffffffe); ours
	 * are read from the system (check_platform holds them to it). The
	 * keys are compared, and 2.7's values must be its placeholders. */
	DIFF_PLATFORM = 1 << 14,
	/* What 2.7 reads in a way that was probably not meant (-P 2,
	 * -b 10G, -d CRR, -P port on loopback): the same run, and one line
	 * on stderr ("netperf: warning: ...") saying how it was read. */
	DIFF_WARNING = 1 << 16,
};

/* netperf 2.7's platform selectors (doc/output.md). */
static const char *const platform_keys[] = {
    "CPU_FREQUENCY",	"SYSTEM_MODEL",	      "VERSION",
    "MACHINE",		"INTERFACE_NAME",     "INTERFACE_VENDOR",
    "INTERFACE_DEVICE", "INTERFACE_SUBVENDOR", "INTERFACE_SUBDEVICE",
    "INTERFACE_SLOT",	"DRIVER_NAME",	      "DRIVER_VERSION",
    "DRIVER_FIRMWARE",	"DRIVER_BUS",
};

/* Whether key is LOCAL_ or REMOTE_ and one of platform_keys. */
static int
platform_key(const char *key, size_t len)
{
	const char *k = key;

	if (len > 6 && strncmp(k, "LOCAL_", 6) == 0)
		k += 6;
	else if (len > 7 && strncmp(k, "REMOTE_", 7) == 0)
		k += 7;
	else
		return 0;
	len -= (size_t)(k - key);
	for (size_t i = 0; i < sizeof(platform_keys) / sizeof(platform_keys[0]);
	     i++)
		if (strlen(platform_keys[i]) == len &&
		    strncmp(k, platform_keys[i], len) == 0)
			return 1;
	return 0;
}

/* DIFF_PLATFORM: every platform line of 2.7's keyval output holds one
 * of its placeholders; returns NULL, or a message. */
static const char *
platform_placeholders(const char *ref, char *msg, size_t cap)
{
	for (const char *p = ref; *p != '\0';) {
		size_t len = strcspn(p, "\n");
		const char *eq = memchr(p, '=', len);

		if (eq != NULL && platform_key(p, (size_t)(eq - p))) {
			size_t vlen = len - (size_t)(eq + 1 - p);
			const char *v = eq + 1;

			if (!((vlen == 10 && strncmp(v, "Deprecated", 10) == 0) ||
			      (vlen == 1 && v[0] == '0') ||
			      (vlen == 10 && strncmp(v, "0xfffffffe", 10) == 0))) {
				snprintf(msg, cap,
					 "2.7 gave \"%.*s\", not a placeholder",
					 (int)len, p);
				return msg;
			}
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return NULL;
}

/* Applied to every case. */
#define DIFF_ALWAYS (DIFF_BANNER_ADDR | DIFF_BANNER_DEMO)

/* How a case runs and what else it may differ in. */
enum case_flag {
	/* No -H/-p prefix: -V, -h. */
	CASE_BARE = 1 << 0,
	/* Runs of lines of the same shape (interim results) count as one:
	 * how many intervals fit in a run depends on the machine. */
	CASE_REPEATS = 1 << 1,
	/* Numbers are not compared by ratio (only their shape). */
	CASE_NO_RATIO = 1 << 2,
	/* -N: both talk to socat's discard, chargen or echo service, which
	 * main starts at the ports below. */
	CASE_SERVICES = 1 << 3,
	/* "-H ::1 -p" the servers main starts on ::1, not 127.0.0.1. */
	CASE_IPV6 = 1 << 4,
	/* "-p" alone: each netperf finds netserver at its default host. */
	CASE_NO_HOST = 1 << 5,
	/* Talks to the servers on 127.0.0.1, but needs ::1 on loopback. */
	CASE_NEEDS_V6 = 1 << 6,
};

/* -N's services for both netperfs: socat on loopback ports picked when
 * they start (so two runs of this suite do not meet), which a case names
 * as "@discard", "@echo" or "@chargen" in place of test -P's ",port". */
enum { SVC_DISCARD, SVC_ECHO, SVC_CHARGEN, SVC_N };
static const char *const svc_names[SVC_N] = {"@discard", "@echo", "@chargen"};
static int svc_port[SVC_N]; /* discard: TCP and UDP */
static char svc_arg[SVC_N][16];
static pid_t services[4];
static int services_up;

/* "@dataport": a free port for test -P's ",port", one for each side, as
 * both run at once and each netserver listens on it. */
static char data_port_arg[2][16];

/* A case's argument for 2.7's netperf or ours, with a service's name
 * turned into ",port". */
static const char *
case_arg(const char *a, int ours)
{
	if (strcmp(a, "@dataport") == 0)
		return data_port_arg[ours];
	/* "@port": the same port, both ends' (MMTests' -P 15895). */
	if (strcmp(a, "@port") == 0)
		return data_port_arg[ours] + 1;
	for (int k = 0; k < SVC_N; k++)
		if (strcmp(a, svc_names[k]) == 0)
			return svc_arg[k];
	return a;
}


struct compat_case {
	const char *name;
	const char *args[24];
	unsigned diffs;
	unsigned flags;
};

/* UDP runs one after the other, not side by side: two floods on one
 * loopback drop each other's datagrams, and what arrives is compared. */
static int
is_udp_case(const struct compat_case *c)
{
	for (int i = 0; c->args[i] != NULL; i++)
		if (strncasecmp(c->args[i], "UDP", 3) == 0)
			return 1;
	return 0;
}

/* The loose bound on how far one figure may be from the other's: a
 * factor of 50 catches a wrong unit (bits for bytes, 10^3 for 2^10 is
 * too close to catch: the units words do that) or a wrong field. */
#define RATIO_MAX 50.0

static const struct compat_case cases[] = {
    /* Default output of the six tests, with and without CPU. */
    {"tcp_stream", {"-t", "TCP_STREAM", "-l", "1"}, 0, 0},
    {"tcp_maerts", {"-t", "TCP_MAERTS", "-l", "1"}, 0, 0},
    {"udp_stream", {"-t", "UDP_STREAM", "-l", "1"}, 0, 0},
    {"tcp_rr", {"-t", "TCP_RR", "-l", "1"}, 0, 0},
    {"udp_rr", {"-t", "UDP_RR", "-l", "1"}, 0, 0},
    {"tcp_crr", {"-t", "TCP_CRR", "-l", "1"}, 0, 0},
    {"tcp_stream_cpu", {"-t", "TCP_STREAM", "-l", "1", "-c", "-C"}, 0, 0},
    {"tcp_maerts_cpu", {"-t", "TCP_MAERTS", "-l", "1", "-c", "-C"}, 0, 0},
    {"udp_stream_cpu", {"-t", "UDP_STREAM", "-l", "1", "-c", "-C"}, 0, 0},
    {"tcp_rr_cpu", {"-t", "TCP_RR", "-l", "1", "-c", "-C"}, 0, 0},
    {"udp_rr_cpu", {"-t", "UDP_RR", "-l", "1", "-c", "-C"}, 0, 0},
    /* TCP_CRR's remote CPU is inflated fivefold by 2.7's padded timer
     * (reference §2.5): only the shape of the figures is compared. */
    {"tcp_crr_cpu", {"-t", "TCP_CRR", "-l", "1", "-c", "-C"}, 0, CASE_NO_RATIO},
    /* Single figures of merit, -P 0 -v 0, with and without CPU. */
    {"sfm_tcp_stream",
     {"-t", "TCP_STREAM", "-l", "-300000000", "-P", "0", "-v", "0"},
     0,
     0},
    {"sfm_tcp_maerts",
     {"-t", "TCP_MAERTS", "-l", "-300000000", "-P", "0", "-v", "0"},
     0,
     0},
    {"sfm_udp_stream",
     {"-t", "UDP_STREAM", "-l", "1", "-P", "0", "-v", "0"},
     0,
     0},
    {"sfm_tcp_rr", {"-t", "TCP_RR", "-l", "-3000", "-P", "0", "-v", "0"}, 0, 0},
    {"sfm_udp_rr", {"-t", "UDP_RR", "-l", "-3000", "-P", "0", "-v", "0"}, 0, 0},
    {"sfm_tcp_crr",
     {"-t", "TCP_CRR", "-l", "-1000", "-P", "0", "-v", "0"},
     0,
     0},
    {"sfm_tcp_stream_cc",
     {"-t", "TCP_STREAM", "-l", "-300000000", "-P", "0", "-v", "0", "-c", "-C"},
     0,
     0},
    {"sfm_tcp_maerts_c",
     {"-t", "TCP_MAERTS", "-l", "-300000000", "-P", "0", "-v", "0", "-c"},
     0,
     0},
    {"sfm_udp_stream_cc",
     {"-t", "UDP_STREAM", "-l", "1", "-P", "0", "-v", "0", "-c", "-C"},
     0,
     0},
    {"sfm_tcp_rr_C",
     {"-t", "TCP_RR", "-l", "-3000", "-P", "0", "-v", "0", "-C"},
     0,
     0},
    {"sfm_udp_rr_c",
     {"-t", "UDP_RR", "-l", "-3000", "-P", "0", "-v", "0", "-c"},
     0,
     0},
    {"sfm_tcp_crr_cc",
     {"-t", "TCP_CRR", "-l", "-1000", "-P", "0", "-v", "0", "-c", "-C"},
     0,
     CASE_NO_RATIO},
    /* -P 0 alone, and the brand. */
    {"noheaders_tcp_rr", {"-t", "TCP_RR", "-l", "-3000", "-P", "0"}, 0, 0},
    {"brand",
     {"-t", "TCP_STREAM", "-l", "-300000000", "-P", "0", "-B", "run8"},
     0,
     0},
    /* 2.7 brands neither UDP_STREAM's lines nor TCP_CRR's. */
    {"brand_udp_stream",
     {"-t", "UDP_STREAM", "-l", "1", "-P", "0", "-c", "-B", "run8"},
     0,
     0},
    {"brand_tcp_crr",
     {"-t", "TCP_CRR", "-l", "-1000", "-P", "0", "-B", "run8"},
     0,
     CASE_NO_RATIO},
    /* LOC_CPU: 2.7's local CPU rate, /proc/stat's tick rate, no newline;
     * -v 2 adds the number of CPUs. */
    {"loc_cpu", {"-t", "LOC_CPU"}, 0, 0},
    {"loc_cpu_v2", {"-t", "loc_cpu", "-v", "2", "-l", "5"}, 0, 0},
    /* REM_CPU: netserver's, asked over the control connection. */
    {"rem_cpu", {"-t", "REM_CPU"}, 0, 0},
    {"rem_cpu_v2", {"-t", "rem_cpu", "-v", "2"}, 0, 0},
    /* Units, -f. */
    {"fmt_K", {"-t", "TCP_STREAM", "-l", "-300000000", "-f", "K"}, 0, 0},
    {"fmt_g", {"-t", "TCP_MAERTS", "-l", "1", "-f", "g"}, 0, 0},
    {"fmt_rr_k", {"-t", "TCP_RR", "-l", "-3000", "-f", "k"}, 0, 0},
    {"fmt_x_stream", {"-t", "TCP_STREAM", "-l", "-300000000", "-f", "x"}, 0, 0},
    /* The -c -C titles with -f: the units on the Send row, per sec below;
     * TCP_CRR's reads as transactions whatever -f says. */
    {"fmt_rr_cpu_m",
     {"-t", "TCP_RR", "-l", "-3000", "-c", "-C", "-f", "m"},
     0,
     0},
    {"fmt_udp_rr_cpu_k",
     {"-t", "UDP_RR", "-l", "-3000", "-c", "-C", "-f", "k"},
     0,
     0},
    {"fmt_crr_cpu_m",
     {"-t", "TCP_CRR", "-l", "-1000", "-c", "-C", "-f", "m"},
     0,
     CASE_NO_RATIO},
    /* -v 1 and -v 2 extras. */
    {"v2_tcp_stream",
     {"-t", "TCP_STREAM", "-l", "-300000000", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    {"v2_tcp_maerts",
     {"-t", "TCP_MAERTS", "-l", "-300000000", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    {"v2_tcp_rr",
     {"-t", "TCP_RR", "-l", "-3000", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    {"v2_udp_rr",
     {"-t", "UDP_RR", "-l", "-3000", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    {"v2_udp_stream",
     {"-t", "UDP_STREAM", "-l", "1", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    {"v2_tcp_crr",
     {"-t", "TCP_CRR", "-l", "-1000", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    /* 2.7's classic tests: TCP_CC (TCP_CRR's table), TCP_MSS and
     * TCP_SENDFILE (TCP_STREAM's), none MIGRATED. TCP_CC's remote CPU is
     * inflated by 2.7's padded timer as TCP_CRR's. */
    {"tcp_cc", {"-t", "TCP_CC", "-l", "-1000"}, 0, 0},
    {"tcp_cc_cpu", {"-t", "TCP_CC", "-l", "1", "-c", "-C"}, 0, CASE_NO_RATIO},
    {"sfm_tcp_cc", {"-t", "TCP_CC", "-l", "-1000", "-P", "0", "-v", "0"}, 0, 0},
    {"sfm_tcp_cc_c",
     {"-t", "TCP_CC", "-l", "-1000", "-P", "0", "-v", "0", "-c"},
     0,
     0},
    /* 2.7 neither brands TCP_CC nor gives it -f's units. */
    {"brand_tcp_cc",
     {"-t", "TCP_CC", "-l", "-1000", "-P", "0", "-B", "run8", "-f", "m"},
     0,
     0},
    {"v2_tcp_cc",
     {"-t", "TCP_CC", "-l", "-1000", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    {"tcp_mss", {"-t", "TCP_MSS"}, 0, 0},
    {"tcp_mss_v0_cpu", {"-t", "TCP_MSS", "-v", "0", "-c", "-C"}, 0, 0},
    {"tcp_mss_v2", {"-t", "TCP_MSS", "-v", "2"}, DIFF_HISTOGRAM, 0},
    {"brand_tcp_mss", {"-t", "TCP_MSS", "-P", "0", "-B", "run8"}, 0, 0},
    {"tcp_sendfile", {"-t", "TCP_SENDFILE", "-l", "1"}, 0, 0},
    {"tcp_sendfile_cpu",
     {"-t", "TCP_SENDFILE", "-l", "1", "-c", "-C", "-F", sf_big},
     0,
     0},
    {"sfm_tcp_sendfile",
     {"-t", "TCP_SENDFILE", "-l", "-300000000", "-P", "0", "-v", "0", "-B",
      "run8"},
     0,
     0},
    {"sfm_tcp_sendfile_c",
     {"-t", "TCP_SENDFILE", "-l", "-300000000", "-P", "0", "-v", "0", "-c", "-F",
      sf_big, "--", "-m", "8192"},
     0,
     0},
    /* Timed: a count ends exactly here ("3e+07" bytes), past it in
     * 2.7 ("3.002e+07"), which the exponent form shows. */
    {"v2_tcp_sendfile",
     {"-t", "TCP_SENDFILE", "-l", "1", "-v", "2", "-F", sf_big},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    /* A file smaller than the ring: the banner, then an error. */
    {"tcp_sendfile_small",
     {"-t", "TCP_SENDFILE", "-l", "1", "-F", sf_small},
     DIFF_ERROR_TEXT,
     0},
    /* Interim results, -D. */
    {"interim_rr", {"-t", "TCP_RR", "-l", "1", "-D", "0.3"}, 0, CASE_REPEATS},
    {"interim_stream",
     {"-t", "TCP_STREAM", "-l", "1", "-D", "0.3"},
     0,
     CASE_REPEATS},
    /* The version and usage. */
    {"version", {"-V"}, DIFF_VERSION, CASE_BARE},
    {"help", {"-h"}, DIFF_USAGE_TEXT, CASE_BARE},
    {"bad_global_option", {"-Q"}, DIFF_USAGE_TEXT, CASE_BARE},
    {"unknown_test", {"-t", "NO_SUCH_TEST"}, DIFF_ERROR_TEXT, 0},
    {"unknown_test_option",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-Q"},
     DIFF_UNKNOWN_TEST_OPT,
     0},
    {"sfm_udp_stream_C",
     {"-t", "UDP_STREAM", "-l", "1", "-P", "0", "-v", "0", "-C"},
     0,
     0},
    /* Global letters. */
    {"opt_4", {"-4", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_T", {"-T", "0,1", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_d_count", {"-t", "TCP_RR", "-l", "-2000"}, 0, CASE_NO_RATIO},
    {"opt_stream_bytes",
     {"-t", "TCP_STREAM", "-l", "-1000000"},
     0,
     CASE_NO_RATIO},
    /* Test-specific letters shared by all tests. */
    {"test_m_M_s_S",
     {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-m", "8192", "-M", "4096",
      "-s", "64k", "-S", "128k"},
     0,
     0},
    {"test_r_D",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-r", "64,1024", "-D"},
     0,
     0},
    /* Timed: 2.7 dies of SIGPIPE when a count ends with a burst in flight. */
    {"test_b", {"-t", "TCP_RR", "-l", "1", "--", "-b", "4"}, 0, 0},
    {"test_udp_m", {"-t", "UDP_STREAM", "-l", "1", "--", "-m", "1472"}, 0, 0},
    {"test_H_4",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-H", "127.0.0.1", "-4"},
     0,
     0},
    /* The address family, global (control and data) and test-specific
     * (data), IPv4 against the servers on 127.0.0.1 and IPv6 against
     * the ones on ::1 (2.7's netserver -L ::1,6). */
    {"opt_4_tcp_stream", {"-4", "-t", "TCP_STREAM", "-l", "-300000000"}, 0, 0},
    {"opt_4_udp_rr", {"-4", "-t", "UDP_RR", "-l", "-3000"}, 0, 0},
    {"test_4_tcp_stream",
     {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-4"},
     0,
     0},
    {"test_4_udp_rr", {"-t", "UDP_RR", "-l", "-3000", "--", "-4"}, 0, 0},
    {"ipv6_tcp_rr", {"-t", "TCP_RR", "-l", "-3000"}, 0, CASE_IPV6},
    {"opt_6_tcp_stream",
     {"-6", "-t", "TCP_STREAM", "-l", "-300000000"},
     0,
     CASE_IPV6},
    {"opt_6_udp_rr", {"-6", "-t", "UDP_RR", "-l", "-3000"}, 0, CASE_IPV6},
    {"test_6_tcp_stream",
     {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-6"},
     0,
     CASE_IPV6},
    {"test_6_udp_rr",
     {"-t", "UDP_RR", "-l", "-3000", "--", "-6"},
     0,
     CASE_IPV6},
    {"test_H_6",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-H", "::1", "-6"},
     0,
     CASE_IPV6},
    /* -6 with no -H: netserver on ::1, as 2.7 takes it. */
    {"opt_6_no_host",
     {"-6", "-t", "TCP_RR", "-l", "-3000"},
     0,
     CASE_IPV6 | CASE_NO_HOST},
    /* The family that cannot be had: both stop before printing anything,
     * with 2.7's exit status (255) for a name that does not resolve and
     * a control connection that cannot be made. */
    {"err_4_host_6",
     {"-4", "-H", "::1", "-t", "TCP_RR"},
     DIFF_ERROR_TEXT,
     CASE_BARE},
    {"err_6_host_4",
     {"-6", "-H", "127.0.0.1", "-t", "TCP_RR"},
     DIFF_ERROR_TEXT,
     CASE_BARE},
    {"err_unresolvable",
     {"-H", "no-such-host.invalid", "-t", "TCP_RR"},
     DIFF_ERROR_TEXT,
     CASE_BARE},
    {"err_refused",
     {"-H", "127.0.0.1", "-p", "1", "-t", "TCP_RR"},
     DIFF_ERROR_TEXT,
     CASE_BARE},
    {"err_test_6_host_4",
     {"-t", "TCP_STREAM", "-l", "1", "--", "-6"},
     DIFF_ERROR_TEXT,
     0},
    {"err_test_6_crr",
     {"-t", "TCP_CRR", "-l", "-100", "--", "-6"},
     DIFF_ERROR_TEXT,
     0},
    {"err_test_host_unresolvable",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-H", "no-such-host.invalid"},
     DIFF_ERROR_TEXT,
     0},
    /* A confidence level 2.7 does not have: its exit(-1) too. */
    {"err_I_level",
     {"-t", "TCP_RR", "-l", "-100", "-I", "90"},
     DIFF_ERROR_TEXT,
     0},
    /* Data over IPv6 with control over IPv4: 2.7 runs it, ours says why
     * it will not, at once (DIFF_DATA_FAMILY). */
    {"test_H_other_family",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-6", "-H", "::1"},
     DIFF_DATA_FAMILY,
     CASE_NEEDS_V6},
    {"test_H_other_family_udp",
     {"-t", "UDP_RR", "-l", "-3000", "--", "-6", "-H", "::1"},
     DIFF_DATA_FAMILY,
     CASE_NEEDS_V6},
    /* The rest of 2.7's global letters. */
    {"opt_a_A_o_O",
     {"-a", "16,16", "-A", "32", "-o", "4,4", "-O", ",8", "-t", "TCP_STREAM",
      "-l", "-300000000"},
     0,
     0},
    {"opt_a_rr", {"-a", "64", "-o", "2", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_W", {"-W", "4,4", "-t", "TCP_STREAM", "-l", "-300000000"}, 0, 0},
    {"opt_F_local",
     {"-F", "/etc/hostname", "-t", "TCP_STREAM", "-l", "-300000000"},
     0,
     0},
    {"opt_F_remote",
     {"-F", "/etc/hostname,/etc/passwd", "-t", "TCP_MAERTS", "-l", "1"},
     DIFF_REMOTE_FILL,
     0},
    {"opt_k_K",
     {"-k", "8", "-K", "8", "-t", "TCP_STREAM", "-l", "-300000000"},
     DIFF_NOT_BUILT,
     0},
    {"opt_w_b",
     {"-w", "10", "-b", "2", "-t", "TCP_STREAM", "-l", "1"},
     DIFF_NOT_BUILT,
     CASE_NO_RATIO},
    {"opt_n", {"-n", "4", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_s", {"-s", "1", "-t", "TCP_RR", "-l", "1"}, 0, 0},
    {"opt_S", {"-S", "-t", "TCP_STREAM", "-l", "-300000000"}, 0, 0},
    {"opt_y", {"-y", "1,2", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_Y_names", {"-Y", "EF,AF41", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_Y_hex", {"-Y", "0x10", "-t", "UDP_RR", "-l", "-3000"}, 0, 0},
    {"opt_r_i", {"-t", "TCP_RR", "-l", "1", "-i", "3,2", "-I", "99,0.1"}, 0, 0},
    {"opt_c_rate",
     {"-t", "TCP_RR", "-l", "-3000", "-c", "100", "-C", "100"},
     0,
     0},
    {"opt_d", {"-d", "-t", "TCP_RR", "-l", "-3000", "-P", "0"}, DIFF_DEBUG, 0},
    {"opt_j", {"-j", "-t", "TCP_RR", "-l", "-3000"}, DIFF_HISTOGRAM, 0},
    {"opt_L", {"-L", "127.0.0.1", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    /* Against a netserver that asks for none, both go ahead. */
    {"opt_Z", {"-Z", "sesame", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    /* The rest of the omni test-specific letters. */
    {"test_C", {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-C"}, 0, 0},
    {"test_K",
     {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-K", "reno"},
     0,
     0},
    {"test_q",
     {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-q", "100M"},
     DIFF_NOT_BUILT,
     0},
    {"test_R", {"-t", "UDP_STREAM", "-l", "1", "--", "-R", "1"}, 0, 0},
    /* -e receive timeout, -G TCP_MAXSEG (the MSS both report), -L and
     * -P the data connection's local address and ports, -h the test's
     * usage. */
    {"test_e", {"-t", "TCP_RR", "-l", "-3000", "--", "-e", "5"}, 0, 0},
    {"test_G",
     {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-G", "1000", "-k",
      "THROUGHPUT,TRANSPORT_MSS"},
     0,
     0},
    {"test_L_P",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-L", "127.0.0.1", "-P", "0,0"},
     0,
     0},
    {"test_h", {"-t", "TCP_STREAM", "--", "-h"}, DIFF_USAGE_TEXT, 0},
    {"test_u",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-u",
      "11111111-2222-3333-4444-555555555555", "-k", "UUID,THROUGHPUT"},
     0,
     0},
    {"test_a_f_g",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-a", "-f", "-g", "-B", "-I", "-U"},
     DIFF_NOT_BUILT,
     0},
    {"test_F_fastopen", {"-t", "TCP_CRR", "-l", "-1000", "--", "-F"}, 0, 0},
    {"test_p_crr",
     {"-t", "TCP_CRR", "-l", "-1000", "--", "-p", "20000,30000"},
     0,
     0},
    {"test_i_j_w",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-i", "1", "-j", "2", "-w", "3"},
     0,
     0},
    {"test_l_n_N_W",
     {"-t", "UDP_STREAM", "-l", "1", "--", "-l", "4", "-n", "-N", "-W", "4"},
     0,
     0},
    /* Copy avoidance: both receivers splice into /dev/null. */
    {"test_V", {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-V"}, 0, 0},
    {"test_V_maerts", {"-t", "TCP_MAERTS", "-l", "1", "--", "-V"}, 0, 0},
    /* -N: no control connection, the same services for both. Not
     * UDP_RR: socat's UDP echo answers the first peer it hears only,
     * and check_integration runs ours against one of its own. */
    {"nc_tcp_stream",
     {"-N", "-H", "127.0.0.1", "-t", "TCP_STREAM", "-l", "-1000000", "--", "-P",
      "@discard"},
     0,
     CASE_BARE | CASE_SERVICES},
    {"nc_tcp_maerts",
     {"-N", "-H", "127.0.0.1", "-t", "TCP_MAERTS", "-l", "1", "--", "-P",
      "@chargen"},
     0,
     CASE_BARE | CASE_SERVICES},
    {"nc_tcp_rr",
     {"-N", "-H", "127.0.0.1", "-t", "TCP_RR", "-l", "-3000", "--", "-P",
      "@echo", "-r", "32"},
     0,
     CASE_BARE | CASE_SERVICES},
    {"nc_udp_stream",
     {"-N", "-H", "127.0.0.1", "-t", "UDP_STREAM", "-l", "1", "--", "-P",
      "@discard", "-m", "1000"},
     0,
     CASE_BARE | CASE_SERVICES},
    /* 2.7's platform selectors, both sides: keys compared, values
     * the system's (DIFF_PLATFORM). */
    {"sel_platform",
     {"-t", "TCP_STREAM", "-l", "1", "--", "-k",
      "LOCAL_CPU_FREQUENCY,REMOTE_CPU_FREQUENCY,LOCAL_SYSTEM_MODEL,"
      "REMOTE_SYSTEM_MODEL,LOCAL_VERSION,REMOTE_VERSION,LOCAL_MACHINE,"
      "REMOTE_MACHINE,LOCAL_INTERFACE_NAME,REMOTE_INTERFACE_NAME,"
      "LOCAL_INTERFACE_VENDOR,REMOTE_INTERFACE_VENDOR,"
      "LOCAL_INTERFACE_DEVICE,REMOTE_INTERFACE_DEVICE,"
      "LOCAL_INTERFACE_SUBVENDOR,REMOTE_INTERFACE_SUBVENDOR,"
      "LOCAL_INTERFACE_SUBDEVICE,REMOTE_INTERFACE_SUBDEVICE,"
      "LOCAL_INTERFACE_SLOT,REMOTE_INTERFACE_SLOT,LOCAL_DRIVER_NAME,"
      "REMOTE_DRIVER_NAME,LOCAL_DRIVER_VERSION,REMOTE_DRIVER_VERSION,"
      "LOCAL_DRIVER_FIRMWARE,REMOTE_DRIVER_FIRMWARE,LOCAL_DRIVER_BUS,"
      "REMOTE_DRIVER_BUS"},
     DIFF_PLATFORM,
     0},
    /* Every other selector of 2.7 but UUID and COMMAND_LINE, which
     * differ by nature, in KEY=value form with a stream and an RR test
     * each. */
    {"sel_tcp_stream",
     {"-t", "TCP_STREAM", "-l", "1", "-c", "-C", "-B", "tag", "--", "-k",
      "SOCKET_TYPE,PROTOCOL,DIRECTION,ELAPSED_TIME,THROUGHPUT,"
      "THROUGHPUT_UNITS,LSS_SIZE_REQ,LSS_SIZE,LSS_SIZE_END,"
      "LSR_SIZE_REQ,LSR_SIZE,LSR_SIZE_END,RSS_SIZE_REQ,RSS_SIZE,"
      "RSS_SIZE_END,RSR_SIZE_REQ,RSR_SIZE,RSR_SIZE_END,"
      "LOCAL_SEND_SIZE,LOCAL_RECV_SIZE,REMOTE_SEND_SIZE,"
      "REMOTE_RECV_SIZE,REQUEST_SIZE,RESPONSE_SIZE,LOCAL_CPU_UTIL,"
      "LOCAL_CPU_PERCENT_USER,LOCAL_CPU_PERCENT_SYSTEM,"
      "LOCAL_CPU_PERCENT_IOWAIT,LOCAL_CPU_PERCENT_IRQ,"
      "LOCAL_CPU_PERCENT_SWINTR,LOCAL_CPU_METHOD,LOCAL_SD,"
      "REMOTE_CPU_UTIL,REMOTE_CPU_PERCENT_USER,"
      "REMOTE_CPU_PERCENT_SYSTEM,REMOTE_CPU_PERCENT_IOWAIT,"
      "REMOTE_CPU_PERCENT_IRQ,REMOTE_CPU_PERCENT_SWINTR,"
      "REMOTE_CPU_METHOD,REMOTE_SD,SD_UNITS,CONFIDENCE_LEVEL,"
      "CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID,"
      "LOCAL_CPU_CONFID,REMOTE_CPU_CONFID,TRANSACTION_RATE,"
      "RT_LATENCY,BURST_SIZE,LOCAL_TRANSPORT_RETRANS,"
      "REMOTE_TRANSPORT_RETRANS,TRANSPORT_MSS,"
      "LOCAL_SEND_THROUGHPUT,LOCAL_RECV_THROUGHPUT,"
      "REMOTE_SEND_THROUGHPUT,REMOTE_RECV_THROUGHPUT,"
      "LOCAL_CPU_BIND,LOCAL_CPU_COUNT,LOCAL_CPU_PEAK_UTIL,"
      "LOCAL_CPU_PEAK_ID,REMOTE_CPU_BIND,REMOTE_CPU_COUNT,"
      "REMOTE_CPU_PEAK_UTIL,REMOTE_CPU_PEAK_ID,SOURCE_PORT,"
      "SOURCE_ADDR,SOURCE_FAMILY,DEST_PORT,DEST_ADDR,DEST_FAMILY,"
      "LOCAL_SEND_CALLS,LOCAL_RECV_CALLS,LOCAL_BYTES_PER_RECV"},
     0,
     0},
    {"sel_tcp_rr",
     {"-t", "TCP_RR", "-l", "1", "-c", "-C", "-B", "tag", "--", "-k",
      "REMOTE_CPU_METHOD,REMOTE_SD,SD_UNITS,CONFIDENCE_LEVEL,"
      "CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID,"
      "LOCAL_CPU_CONFID,REMOTE_CPU_CONFID,TRANSACTION_RATE,"
      "RT_LATENCY,BURST_SIZE,LOCAL_TRANSPORT_RETRANS,"
      "REMOTE_TRANSPORT_RETRANS,TRANSPORT_MSS,"
      "LOCAL_SEND_THROUGHPUT,LOCAL_RECV_THROUGHPUT,"
      "REMOTE_SEND_THROUGHPUT,REMOTE_RECV_THROUGHPUT,"
      "LOCAL_CPU_BIND,LOCAL_CPU_COUNT,LOCAL_CPU_PEAK_UTIL,"
      "LOCAL_CPU_PEAK_ID,REMOTE_CPU_BIND,REMOTE_CPU_COUNT,"
      "REMOTE_CPU_PEAK_UTIL,REMOTE_CPU_PEAK_ID,SOURCE_PORT,"
      "SOURCE_ADDR,SOURCE_FAMILY,DEST_PORT,DEST_ADDR,DEST_FAMILY,"
      "LOCAL_SEND_CALLS,LOCAL_RECV_CALLS,LOCAL_BYTES_PER_RECV,"
      "LOCAL_BYTES_PER_SEND,LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,"
      "LOCAL_BYTES_XFERD,LOCAL_SEND_OFFSET,LOCAL_RECV_OFFSET,"
      "LOCAL_SEND_ALIGN,LOCAL_RECV_ALIGN,LOCAL_SEND_WIDTH,"
      "LOCAL_RECV_WIDTH,LOCAL_SEND_DIRTY_COUNT,"
      "LOCAL_RECV_DIRTY_COUNT,LOCAL_RECV_CLEAN_COUNT,LOCAL_NODELAY,"
      "LOCAL_CORK,REMOTE_SEND_CALLS,REMOTE_RECV_CALLS,"
      "REMOTE_BYTES_PER_RECV,REMOTE_BYTES_PER_SEND,"
      "REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD,REMOTE_BYTES_XFERD,"
      "REMOTE_SEND_OFFSET,REMOTE_RECV_OFFSET,REMOTE_SEND_ALIGN,"
      "REMOTE_RECV_ALIGN,REMOTE_SEND_WIDTH,REMOTE_RECV_WIDTH,"
      "REMOTE_SEND_DIRTY_COUNT,REMOTE_RECV_DIRTY_COUNT,"
      "REMOTE_RECV_CLEAN_COUNT"},
     0,
     0},
    {"sel_udp_stream",
     {"-t", "UDP_STREAM", "-l", "1", "-c", "-C", "-B", "tag", "--", "-k",
      "LOCAL_BYTES_PER_SEND,LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,"
      "LOCAL_BYTES_XFERD,LOCAL_SEND_OFFSET,LOCAL_RECV_OFFSET,"
      "LOCAL_SEND_ALIGN,LOCAL_RECV_ALIGN,LOCAL_SEND_WIDTH,"
      "LOCAL_RECV_WIDTH,LOCAL_SEND_DIRTY_COUNT,"
      "LOCAL_RECV_DIRTY_COUNT,LOCAL_RECV_CLEAN_COUNT,LOCAL_NODELAY,"
      "LOCAL_CORK,REMOTE_SEND_CALLS,REMOTE_RECV_CALLS,"
      "REMOTE_BYTES_PER_RECV,REMOTE_BYTES_PER_SEND,"
      "REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD,REMOTE_BYTES_XFERD,"
      "REMOTE_SEND_OFFSET,REMOTE_RECV_OFFSET,REMOTE_SEND_ALIGN,"
      "REMOTE_RECV_ALIGN,REMOTE_SEND_WIDTH,REMOTE_RECV_WIDTH,"
      "REMOTE_SEND_DIRTY_COUNT,REMOTE_RECV_DIRTY_COUNT,"
      "REMOTE_RECV_CLEAN_COUNT,REMOTE_NODELAY,REMOTE_CORK,"
      "LOCAL_INTERVAL_USECS,LOCAL_INTERVAL_BURST,"
      "REMOTE_INTERVAL_USECS,REMOTE_INTERVAL_BURST,"
      "LOCAL_SECURITY_TYPE_ID,LOCAL_SECURITY_TYPE,"
      "LOCAL_SECURITY_ENABLED_NUM,LOCAL_SECURITY_ENABLED,"
      "LOCAL_SECURITY_SPECIFIC,REMOTE_SECURITY_TYPE_ID,"
      "REMOTE_SECURITY_TYPE,REMOTE_SECURITY_ENABLED_NUM,"
      "REMOTE_SECURITY_ENABLED,REMOTE_SECURITY_SPECIFIC,"
      "RESULT_BRAND,MIN_LATENCY,MAX_LATENCY,P50_LATENCY,"
      "P90_LATENCY,P99_LATENCY,MEAN_LATENCY,STDDEV_LATENCY,"
      "LOCAL_SOCKET_PRIO,REMOTE_SOCKET_PRIO,LOCAL_SOCKET_TOS,"
      "REMOTE_SOCKET_TOS,LOCAL_CONG_CONTROL,REMOTE_CONG_CONTROL,"
      "LOCAL_FILL_FILE,REMOTE_FILL_FILE"},
     0,
     0},
    {"sel_udp_rr",
     {"-t", "UDP_RR", "-l", "1", "-c", "-C", "-B", "tag", "--", "-k",
      "REMOTE_NODELAY,REMOTE_CORK,LOCAL_INTERVAL_USECS,"
      "LOCAL_INTERVAL_BURST,REMOTE_INTERVAL_USECS,"
      "REMOTE_INTERVAL_BURST,LOCAL_SECURITY_TYPE_ID,"
      "LOCAL_SECURITY_TYPE,LOCAL_SECURITY_ENABLED_NUM,"
      "LOCAL_SECURITY_ENABLED,LOCAL_SECURITY_SPECIFIC,"
      "REMOTE_SECURITY_TYPE_ID,REMOTE_SECURITY_TYPE,"
      "REMOTE_SECURITY_ENABLED_NUM,REMOTE_SECURITY_ENABLED,"
      "REMOTE_SECURITY_SPECIFIC,RESULT_BRAND,MIN_LATENCY,"
      "MAX_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,"
      "MEAN_LATENCY,STDDEV_LATENCY,LOCAL_SOCKET_PRIO,"
      "REMOTE_SOCKET_PRIO,LOCAL_SOCKET_TOS,REMOTE_SOCKET_TOS,"
      "LOCAL_CONG_CONTROL,REMOTE_CONG_CONTROL,LOCAL_FILL_FILE,"
      "REMOTE_FILL_FILE,SOCKET_TYPE,PROTOCOL,DIRECTION,"
      "ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS,LSS_SIZE_REQ,"
      "LSS_SIZE,LSS_SIZE_END,LSR_SIZE_REQ,LSR_SIZE,LSR_SIZE_END,"
      "RSS_SIZE_REQ,RSS_SIZE,RSS_SIZE_END,RSR_SIZE_REQ,RSR_SIZE,"
      "RSR_SIZE_END,LOCAL_SEND_SIZE,LOCAL_RECV_SIZE,"
      "REMOTE_SEND_SIZE,REMOTE_RECV_SIZE,REQUEST_SIZE,"
      "RESPONSE_SIZE,LOCAL_CPU_UTIL,LOCAL_CPU_PERCENT_USER,"
      "LOCAL_CPU_PERCENT_SYSTEM,LOCAL_CPU_PERCENT_IOWAIT,"
      "LOCAL_CPU_PERCENT_IRQ,LOCAL_CPU_PERCENT_SWINTR,"
      "LOCAL_CPU_METHOD,LOCAL_SD,REMOTE_CPU_UTIL,"
      "REMOTE_CPU_PERCENT_USER,REMOTE_CPU_PERCENT_SYSTEM,"
      "REMOTE_CPU_PERCENT_IOWAIT,REMOTE_CPU_PERCENT_IRQ,"
      "REMOTE_CPU_PERCENT_SWINTR"},
     0,
     0},
    /* Selector forms: CSV with its header row and without, columns in
     * blocks, names in any case, a selector file. */
    {"sel_csv",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-o",
      "THROUGHPUT,THROUGHPUT_UNITS,MEAN_LATENCY,P50_LATENCY,P90_LATENCY,"
      "P99_LATENCY,LOCAL_CPU_UTIL,LOCAL_SD,RT_LATENCY,SOCKET_TYPE"},
     0,
     0},
    {"sel_csv_P0",
     {"-t", "TCP_RR", "-l", "-3000", "-P", "0", "--", "-o",
      "THROUGHPUT,P99_LATENCY,DIRECTION,PROTOCOL"},
     0,
     0},
    {"sel_columns",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-O",
      "THROUGHPUT,THROUGHPUT_UNITS;MEAN_LATENCY,P99_LATENCY"},
     0,
     0},
    {"sel_lower_case",
     {"-t", "TCP_STREAM", "-l", "-300000000", "--", "-k",
      "throughput,Throughput_Units,socket_type,local_socket_tos,"
      "rt_latency,local_cong_control"},
     0,
     0},
    {"sel_file",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-k", SEL_FILE},
     DIFF_LATENCY_ALWAYS,
     0},
    {"sel_output_end",
     {"-t", "TCP_RR", "-l", "-3000", "--", "-k",
      "OUTPUT_NONE,THROUGHPUT,OUTPUT_END,MEAN_LATENCY"},
     0,
     0},
    {"sel_udp_values",
     {"-t", "UDP_RR", "-l", "-3000", "-Y", "EF", "-y", "3", "-B", "brandx",
      "--", "-K", "reno", "-k",
      "LOCAL_CONG_CONTROL,REMOTE_CONG_CONTROL,LOCAL_SOCKET_TOS,"
      "REMOTE_SOCKET_TOS,LOCAL_SOCKET_PRIO,REMOTE_SOCKET_PRIO,RESULT_BRAND,"
      "LOCAL_TRANSPORT_RETRANS,RT_LATENCY,SOCKET_TYPE,DIRECTION"},
     0,
     0},
    {"sel_stream_values",
     {"-t", "TCP_MAERTS", "-l", "-300000000", "-F", "/etc/hostname", "--", "-K",
      "reno", "-C", "-k",
      "LOCAL_CONG_CONTROL,REMOTE_CONG_CONTROL,LOCAL_CORK,REMOTE_CORK,"
      "LOCAL_FILL_FILE,RT_LATENCY,DIRECTION,SOCKET_TYPE,LOCAL_CPU_UTIL,"
      "REMOTE_SD"},
     0,
     0},
    /* The lists of names: -O '?' one a line, -o/-k '?' one line; the
     * names differ by our additions and the platform selectors. */
    {"sel_list_O",
     {"-t", "omni", "--", "-O", "?"},
     DIFF_SELECTOR_NAMES,
     CASE_BARE},
    {"sel_list_k",
     {"-t", "omni", "--", "-k", "?"},
     DIFF_SELECTOR_NAMES,
     CASE_BARE},
    /* What 2.7 runs as it reads it (convert(), atof()): suffixes, a B
     * for bytes, s for seconds; and what it reads as a level it lacks,
     * with a warning here. */
    {"lenient_m_KB", {"-t", "TCP_STREAM", "-l", "1", "--", "-m", "64KB"}, 0, 0},
    {"lenient_G_b",
     {"-t", "TCP_STREAM", "-l", "1", "--", "-G", "1400b", "-k",
      "THROUGHPUT,TRANSPORT_MSS"},
     0,
     0},
    {"lenient_l_s", {"-t", "TCP_RR", "-l", "1s"}, 0, 0},
    {"lenient_D_s", {"-t", "TCP_RR", "-l", "1", "-D", "0.3s"}, 0, CASE_REPEATS},
    {"lenient_l_count_M", {"-t", "TCP_STREAM", "-l", "-10M"}, 0, 0},
    {"lenient_l_count_k", {"-t", "TCP_RR", "-l", "-3k"}, 0, 0},
    {"lenient_a_K", {"-a", "4K", "-t", "TCP_STREAM", "-l", "1"}, 0, 0},
    {"lenient_m_0", {"-t", "TCP_STREAM", "-l", "1", "--", "-m", "0"}, 0, 0},
    {"lenient_f_B", {"-t", "TCP_STREAM", "-l", "1", "-f", "B"}, 0, 0},
    {"lenient_f_B_rr", {"-t", "TCP_RR", "-l", "1", "-f", "B"}, 0, 0},
    {"lenient_P_2", {"-t", "TCP_RR", "-l", "1", "-P", "2"}, DIFF_WARNING, 0},
    {"lenient_b_10G",
     {"-t", "UDP_STREAM", "-l", "1", "-b", "10G"},
     DIFF_NOT_BUILT | DIFF_WARNING,
     CASE_NO_RATIO},
    /* -t OMNI in every direction this netperf has, by word and by
     * number, with -T and -t. */
    {"omni_default", {"-t", "omni", "-l", "-300000000"}, 0, 0},
    {"omni_send", {"-t", "OMNI", "-l", "-300000000", "--", "-d", "send"}, 0, 0},
    {"omni_stream_tcp",
     {"-t", "OMNI", "-l", "-300000000", "--", "-d", "stream", "-T", "tcp"},
     0,
     0},
    {"omni_recv", {"-t", "omni", "-l", "-300000000", "--", "-d", "recv"}, 0, 0},
    {"omni_maerts",
     {"-t", "omni", "-l", "-300000000", "--", "-d", "maerts"},
     0,
     0},
    {"omni_rr", {"-t", "omni", "-l", "-3000", "--", "-d", "rr"}, 0, 0},
    {"omni_numeric_2",
     {"-t", "omni", "-l", "-300000000", "--", "-d", "2"},
     0,
     0},
    {"omni_numeric_4",
     {"-t", "omni", "-l", "-300000000", "--", "-d", "4"},
     0,
     0},
    {"omni_numeric_6", {"-t", "omni", "-l", "-3000", "--", "-d", "6"}, 0, 0},
    {"omni_or", {"-t", "omni", "-l", "-3000", "--", "-d", "send|recv"}, 0, 0},
    {"omni_udp_send",
     {"-t", "omni", "-l", "1", "--", "-d", "send", "-T", "udp"},
     0,
     0},
    {"omni_udp_rr",
     {"-t", "omni", "-l", "-3000", "--", "-d", "rr", "-T", "UDP"},
     0,
     0},
    /* (-t dgram without -T udp hangs 2.7: not compared.) */
    {"omni_t_stream",
     {"-t", "omni", "-l", "-3000", "--", "-d", "rr", "-t", "stream"},
     0,
     0},
    {"omni_crr", {"-t", "omni", "-l", "-1000", "--", "-c", "-d", "rr"}, 0, 0},
    {"omni_r_implies_rr",
     {"-t", "omni", "-l", "-3000", "--", "-r", "32"},
     0,
     0},
    {"omni_cpu", {"-t", "omni", "-l", "1", "-c", "-C"}, 0, 0},
    {"omni_P0",
     {"-t", "omni", "-l", "-3000", "-P", "0", "--", "-d", "rr"},
     0,
     0},
    {"omni_keyval",
     {"-t", "omni", "-l", "-3000", "--", "-d", "rr", "-k",
      "THROUGHPUT,THROUGHPUT_UNITS,DIRECTION,PROTOCOL"},
     0,
     0},
};

#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* One run's output. */
struct run {
	int status;
	char *out;
	char err[8192];
};

/* The lines of one output as atoms: words, and numbers with their
 * decimals, after the case's rewrites. */
#define MAX_LINES 400
#define MAX_ATOMS 64

struct atom {
	char word[96];	/* the literal word, "" for a number */
	int decimals;	/* -1 for an integer */
	double value;
};

struct line {
	int n;
	struct atom a[MAX_ATOMS];
	char text[200]; /* for messages */
};

struct shape {
	int n;
	struct line *l;
};

static pid_t
start(const char *const *argv, const char *outp, const char *errp)
{
	pid_t pid = fork();

	if (pid == 0) {
		int o = open(outp, O_WRONLY | O_TRUNC | O_CREAT, 0600);
		int e = open(errp, O_WRONLY | O_TRUNC | O_CREAT, 0600);

		if (o < 0 || e < 0)
			_exit(127);
		dup2(o, STDOUT_FILENO);
		dup2(e, STDERR_FILENO);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (f == NULL)
		return calloc(1, 1);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)(len < 0 ? 0 : len) + 1);
	if (buf != NULL && len > 0 && fread(buf, 1, (size_t)len, f) == 0)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/* 1 when netperf 2.7 could not be had (scripts/refnetperf's skip), so
 * that what needs it skips, per check; what does not need it runs. */
static int ref_missing;

/* For a check that needs the reference: 1, the check's skip said, when
 * there is none. */
static int
no_reference(const char *check)
{
	if (!ref_missing)
		return 0;
	harness_skip("%s: no netperf 2.7 to compare with", check);
	return 1;
}

/* Runs the reference and ours at once, each against its own netserver,
 * with the same arguments. */
static void
run_both(const struct compat_case *c, struct run *ref, struct run *ours)
{
	const char *rargv[40], *oargv[40];
	char rport[16], oport[16], p[4][64];
	int rn = 0, on = 0, v6 = (c->flags & CASE_IPV6) != 0;
	pid_t rp, op;

	snprintf(rport, sizeof(rport), "%d", v6 ? ref_port6 : ref_port);
	snprintf(oport, sizeof(oport), "%d",
		 v6 ? our_server6.port : our_server.port);
	rargv[rn++] = ref_netperf;
	oargv[on++] = NP_NETPERF;
	if (!(c->flags & CASE_BARE)) {
		const char *pre[] = {"-H", v6 ? "::1" : "127.0.0.1", "-p"};

		for (int i = c->flags & CASE_NO_HOST ? 2 : 0; i < 3; i++) {
			rargv[rn++] = pre[i];
			oargv[on++] = pre[i];
		}
		rargv[rn++] = rport;
		oargv[on++] = oport;
	}
	for (int i = 0; c->args[i] != NULL; i++) {
		rargv[rn++] = case_arg(c->args[i], 0);
		oargv[on++] = case_arg(c->args[i], 1);
	}
	rargv[rn] = NULL;
	oargv[on] = NULL;
	for (int i = 0; i < 4; i++)
		snprintf(p[i], sizeof(p[i]), "/tmp/np-compat-%d-%d",
			 (int)getpid(), i);
	rp = start(rargv, p[0], p[1]);
	ck_assert_int_gt(rp, 0);
	if (is_udp_case(c))
		ref->status = harness_wait_status(rp, harness_now() + 60);
	op = start(oargv, p[2], p[3]);
	ck_assert_int_gt(op, 0);
	if (!is_udp_case(c))
		ref->status = harness_wait_status(rp, harness_now() + 60);
	ours->status = harness_wait_status(op, harness_now() + 60);
	ref->out = slurp(p[0]);
	ours->out = slurp(p[2]);
	{
		char *e = slurp(p[1]);

		snprintf(ref->err, sizeof(ref->err), "%s", e ? e : "");
		free(e);
		e = slurp(p[3]);
		snprintf(ours->err, sizeof(ours->err), "%s", e ? e : "");
		free(e);
	}
	for (int i = 0; i < 4; i++)
		unlink(p[i]);
}

/* A number as netperf prints one: [-]digits[.digits]. */
static int
number_of(const char *s, int *decimals, double *v)
{
	const char *p = s;
	int digits = 0;

	if (*p == '-')
		p++;
	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	if (digits == 0)
		return 0;
	*decimals = -1;
	if (*p == '.') {
		const char *q = ++p;

		while (isdigit((unsigned char)*p))
			p++;
		if (p == q)
			return 0;
		*decimals = (int)(p - q);
	}
	/* %g's exponent form (2.7's classic byte counts), a shape of its
	 * own, whatever its digits: %g drops trailing zeros, so 2.350e+09
	 * prints as 2.35e+09 beside 1.901e+09. */
	if (*p == 'e' || *p == 'E') {
		const char *q;

		p++;
		if (*p == '+' || *p == '-')
			p++;
		q = p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == q)
			return 0;
		*decimals = 100;
	}
	if (*p != '\0')
		return 0;
	*v = strtod(s, NULL);
	return 1;
}

/* A version string: digits with two or more dots. */
static int
is_version(const char *s)
{
	int dots = 0;

	for (; *s; s++) {
		if (*s == '.')
			dots++;
		else if (!isdigit((unsigned char)*s))
			return 0;
	}
	return dots >= 2;
}

static void
add_atom(struct line *l, const char *tok, size_t len, unsigned diffs)
{
	struct atom *a;
	char t[96];

	if (len == 0 || l->n >= MAX_ATOMS)
		return;
	if (len >= sizeof(t))
		len = sizeof(t) - 1;
	memcpy(t, tok, len);
	t[len] = '\0';
	a = &l->a[l->n++];
	memset(a, 0, sizeof(*a));
	if ((diffs & DIFF_VERSION) && is_version(t)) {
		snprintf(a->word, sizeof(a->word), "<version>");
		return;
	}
	if (number_of(t, &a->decimals, &a->value))
		return;
	snprintf(a->word, sizeof(a->word), "%s", t);
}

/* Splits one line into atoms: on blanks, and around ',', '=', '%', ':'
 * and parentheses, which are atoms of their own. */
static void
split_line(struct line *l, const char *s, size_t len, unsigned diffs)
{
	size_t i = 0, startp;

	l->n = 0;
	snprintf(l->text, sizeof(l->text), "%.*s", (int)len, s);
	while (i < len) {
		if (isspace((unsigned char)s[i])) {
			i++;
			continue;
		}
		if (strchr(",=%:()", s[i]) != NULL) {
			add_atom(l, s + i, 1, diffs);
			i++;
			continue;
		}
		startp = i;
		while (i < len && !isspace((unsigned char)s[i]) &&
		       strchr(",=%:()", s[i]) == NULL)
			i++;
		add_atom(l, s + startp, i - startp, diffs);
	}
}

/* The banner's addresses: "from A (B) port" and "to C (D) port" become
 * "from <addr> port". */
static void
rewrite_banner(struct line *l)
{
	for (int i = 0; i + 1 < l->n; i++) {
		if (strcmp(l->a[i].word, "from") != 0 &&
		    strcmp(l->a[i].word, "to") != 0)
			continue;
		int j = i + 1;

		while (j < l->n && strcmp(l->a[j].word, "port") != 0)
			j++;
		if (j >= l->n)
			return;
		snprintf(l->a[i + 1].word, sizeof(l->a[i + 1].word), "<addr>");
		memmove(&l->a[i + 2], &l->a[j],
			(size_t)(l->n - j) * sizeof(l->a[0]));
		l->n -= j - (i + 2);
	}
}

/* Drops " : word" from a banner. */
static void
drop_suffix(struct line *l, const char *word)
{
	for (int i = 0; i + 1 < l->n; i++)
		if (strcmp(l->a[i].word, ":") == 0 &&
		    strcmp(l->a[i + 1].word, word) == 0) {
			memmove(&l->a[i], &l->a[i + 2],
				(size_t)(l->n - i - 2) * sizeof(l->a[0]));
			l->n -= 2;
			return;
		}
}

static int
is_banner(const struct line *l)
{
	return strstr(l->text, " TEST from ") != NULL;
}

static int
same_shape(const struct line *a, const struct line *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++) {
		if (strcmp(a->a[i].word, b->a[i].word) != 0)
			return 0;
		if (a->a[i].word[0] == '\0' &&
		    a->a[i].decimals != b->a[i].decimals)
			return 0;
	}
	return 1;
}

/* Checks a histogram row of ours ("UNIT_USEC     :    0: ...",
 * ">100_SECS: 0", "HIST_TOTAL:      75129"); returns 1 when it is one. */
static int
histogram_row(const struct line *l)
{
	static const char *const decades[] = {
	    "UNIT_USEC", "TEN_USEC", "HUNDRED_USEC", "UNIT_MSEC",
	    "TEN_MSEC",	 "HUNDRED_MSEC", "UNIT_SEC", "TEN_SEC"};

	if (l->n == 3 && strcmp(l->a[1].word, ":") == 0 &&
	    l->a[2].word[0] == '\0' &&
	    (strcmp(l->a[0].word, ">100_SECS") == 0 ||
	     strcmp(l->a[0].word, "HIST_TOTAL") == 0))
		return 1;
	for (size_t d = 0; d < sizeof(decades) / sizeof(decades[0]); d++) {
		if (l->n != 21 || strcmp(l->a[0].word, decades[d]) != 0)
			continue;
		for (int i = 1; i < 21; i += 2)
			if (strcmp(l->a[i].word, ":") != 0 ||
			    l->a[i + 1].word[0] != '\0' ||
			    l->a[i + 1].decimals != -1)
				return 0;
		return 1;
	}
	return 0;
}

/* Cuts ours's histogram (the "Histogram of ..." title, its rows and the
 * blank lines around it) out, checking every row's shape. */
static void
cut_histogram(struct shape *s, const char *name)
{
	int w = 0;

	for (int i = 0; i < s->n; i++) {
		if (strncmp(s->l[i].text, "Histogram of ", 13) == 0) {
			int j = i + 1, rows = 0;

			while (j < s->n && histogram_row(&s->l[j])) {
				j++;
				rows++;
			}
			ck_assert_msg(rows == 10,
				      "%s: histogram has %d of 10 rows", name,
				      rows);
			i = j - 1;
			continue;
		}
		s->l[w++] = s->l[i];
	}
	s->n = w;
}

static void
shape_of(const char *text, unsigned diffs, unsigned flags, struct shape *s,
	 const char *name)
{
	const char *p = text;
	int w;

	s->l = calloc(MAX_LINES, sizeof(*s->l));
	ck_assert_ptr_nonnull(s->l);
	s->n = 0;
	while (*p != '\0' && s->n < MAX_LINES) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		struct line *l = &s->l[s->n++];

		split_line(l, p, len, diffs);
		/* Platform values are the system's: the key and "=" only. */
		if ((diffs & DIFF_PLATFORM) && l->n > 2 &&
		    platform_key(l->a[0].word, strlen(l->a[0].word)))
			l->n = 2;
		/* The addresses used, as in the banner (2.7: the wildcard). */
		if ((diffs & DIFF_BANNER_ADDR) && l->n >= 3 &&
		    (strcmp(l->a[0].word, "SOURCE_ADDR") == 0 ||
		     strcmp(l->a[0].word, "DEST_ADDR") == 0)) {
			l->n = 3;
			snprintf(l->a[2].word, sizeof(l->a[2].word), "<addr>");
		}
		/* 2.7's own complaint when its end-of-test alarm comes
		 * after the loop already stopped (a late signal on a busy
		 * machine, seen in CI); not part of its output format. */
		if (strncmp(l->text, "catcher: timer popped with times_up",
			    35) == 0 ||
		    ((diffs & DIFF_NOT_BUILT) &&
		     (strstr(l->text, "how to get dirty") != NULL ||
		      strstr(l->text, "is not compiled in") != NULL))) {
			s->n--;
			p = e ? e + 1 : p + len;
			continue;
		}
		if (is_banner(l)) {
			if (diffs & DIFF_BANNER_ADDR)
				rewrite_banner(l);
			if (diffs & DIFF_BANNER_DEMO)
				drop_suffix(l, "demo");
			if (diffs & DIFF_HISTOGRAM)
				drop_suffix(l, "histogram");
		}
		p = e ? e + 1 : p + len;
	}
	if (diffs & DIFF_HISTOGRAM)
		cut_histogram(s, name);
	/* Trailing blank lines are not something a parser can rely on. */
	while (s->n > 0 && s->l[s->n - 1].n == 0)
		s->n--;
	if (!(flags & CASE_REPEATS))
		return;
	w = 0;
	for (int i = 0; i < s->n; i++)
		if (w == 0 || s->l[i].n == 0 || !same_shape(&s->l[i],
							     &s->l[w - 1]))
			s->l[w++] = s->l[i];
	s->n = w;
}

/* Figures the moment decides, not the tool: TCP's retransmissions on
 * loopback are 0, or dozens when the machine is short of memory or CPU
 * for a moment (2.7 once saw 58 beside our 0), and the longest latency of
 * a run is one stall of the machine's. Only their shape is compared. */
static int
by_chance(const struct line *x)
{
	return strstr(x->text, "_RETRANS=") != NULL ||
	       strncmp(x->text, "MAX_LATENCY=", 12) == 0;
}

/* So is a socket buffer's size at the end of a TCP test: the kernel's
 * autotuning, anywhere from tcp_rmem's default to its maximum (32 MB
 * here; 2.7 once ended at 491288 beside our 31048619). In KEY=value form
 * that is *_SIZE_END; in OMNI's table the first two figures of the line
 * under the "Final  Final" header. */
static int
by_chance_field(const struct line *l, int i, int k)
{
	if (by_chance(&l[i]) || strstr(l[i].text, "_SIZE_END=") != NULL)
		return 1;
	return k < 2 && i > 0 && strncmp(l[i - 1].text, "Final", 5) == 0;
}

static int
plausible(double a, double b)
{
	double r;

	if (a < 0 || b < 0)
		return a == b; /* -1 is netperf's "not measured" */
	r = (fabs(a) + 1) / (fabs(b) + 1);
	return r <= RATIO_MAX && r >= 1 / RATIO_MAX;
}

static void
dump(const char *name, const struct run *ref, const struct run *ours)
{
	fprintf(stderr,
		"--- %s: reference (status %d)\n%s--- stderr\n%s"
		"--- %s: ours (status %d)\n%s--- stderr\n%s---\n",
		name, ref->status, ref->out, ref->err, name, ours->status,
		ours->out, ours->err);
}

/* Whether word is one of the names in list (split on commas and
 * newlines). */
static int
has_name(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p != '\0';) {
		size_t len = strcspn(p, ",\n");

		if (len == n && strncmp(p, word, n) == 0)
			return 1;
		p += len;
		if (*p != '\0')
			p++;
	}
	return 0;
}

/* Every name of 2.7's '?' list must be in ours, and ours must have the
 * same form: one line, or one name a line. */
static const char *
names_missing(const char *ref, const char *ours, char *msg, size_t cap)
{
	char *copy = strdup(ref), *save = NULL, *w;
	int ref_lines = 0, our_lines = 0;

	ck_assert_ptr_nonnull(copy);
	for (const char *p = ref; *p; p++)
		ref_lines += *p == '\n';
	for (const char *p = ours; *p; p++)
		our_lines += *p == '\n';
	if ((ref_lines == 1) != (our_lines == 1)) {
		free(copy);
		snprintf(msg, cap, "the list has %d lines, 2.7's %d",
			 our_lines, ref_lines);
		return msg;
	}
	for (w = strtok_r(copy, ",\n", &save); w != NULL;
	     w = strtok_r(NULL, ",\n", &save))
		if (!has_name(ours, w)) {
			snprintf(msg, cap, "selector %s is missing", w);
			free(copy);
			return msg;
		}
	free(copy);
	return NULL;
}

/* Compares two outputs; returns NULL when they agree, or a message. */
static const char *
compare(const struct compat_case *c, const struct run *ref,
	const struct run *ours, char *msg, size_t cap)
{
	unsigned diffs = c->diffs | DIFF_ALWAYS;
	struct shape a, b;
	const char *bad = NULL;

	if (diffs & DIFF_DATA_FAMILY) {
		const char *nl = strchr(ours->err, '\n');

		if (ref->status != 0 || ours->status != 255 ||
		    ours->out[0] != '\0' || nl == NULL || nl[1] != '\0' ||
		    strstr(ours->err, "netserver opens data sockets only on "
				      "the address netperf reached it at") ==
			NULL) {
			snprintf(msg, cap, "data of the other family: status "
				 "%d (2.7: %d), stdout %s, stderr \"%.80s\"",
				 ours->status, ref->status,
				 ours->out[0] ? "written" : "empty", ours->err);
			return msg;
		}
		return NULL;
	}
	if (ref->status != ours->status && !(diffs & DIFF_UNKNOWN_TEST_OPT)) {
		snprintf(msg, cap, "exit status %d, 2.7 gives %d",
			 ours->status, ref->status);
		return msg;
	}
	/* An error 2.7 gives before printing anything is given before
	 * printing anything here too. */
	if ((diffs & DIFF_ERROR_TEXT) && ref->out[0] == '\0' &&
	    ours->out[0] != '\0') {
		snprintf(msg, cap, "stdout \"%.80s\" before the error, 2.7 "
			 "prints nothing", ours->out);
		return msg;
	}
	if (diffs & (DIFF_USAGE_TEXT | DIFF_ERROR_TEXT | DIFF_DEBUG))
		return NULL;
	if (diffs & DIFF_SELECTOR_NAMES)
		return names_missing(ref->out, ours->out, msg, cap);
	if (diffs & DIFF_REMOTE_FILL) {
		const char *nl = strchr(ours->err, '\n');

		if (strstr(ours->err, "netserver fills its buffers with its "
				      "own pattern") == NULL ||
		    nl == NULL || nl[1] != '\0') {
			snprintf(msg, cap, "-F l,r: stderr \"%.80s\" is not the "
				 "one line saying so", ours->err);
			return msg;
		}
	}
	if (diffs & DIFF_UNKNOWN_TEST_OPT) {
		if (ref->status != 0 || ours->status != 1 ||
		    strstr(ours->err, "unknown test option") == NULL) {
			snprintf(msg, cap, "an unknown test option: status %d "
				 "(2.7: %d), stderr \"%.60s\"", ours->status,
				 ref->status, ours->err);
			return msg;
		}
		return NULL;
	}
	if (diffs & DIFF_WARNING) {
		const char *nl = strchr(ours->err, '\n');

		if (strncmp(ours->err, "netperf: warning: ", 18) != 0 ||
		    nl == NULL || nl[1] != '\0' || ref->err[0] != '\0') {
			snprintf(msg, cap,
				 "stderr \"%.80s\" is not one "
				 "warning (2.7's: \"%.40s\")",
				 ours->err, ref->err);
			return msg;
		}
	} else if (!(diffs & (DIFF_NOT_BUILT | DIFF_REMOTE_FILL)) &&
		   (ref->err[0] == '\0') != (ours->err[0] == '\0')) {
		snprintf(msg, cap, "stderr %s, 2.7's %s",
			 ours->err[0] ? "written" : "empty",
			 ref->err[0] ? "written" : "empty");
		return msg;
	}
	if ((diffs & DIFF_PLATFORM) &&
	    platform_placeholders(ref->out, msg, cap) != NULL)
		return msg;
	shape_of(ref->out, diffs & ~DIFF_HISTOGRAM, c->flags, &a, c->name);
	shape_of(ours->out, diffs, c->flags, &b, c->name);
	for (int i = 0; i < a.n || i < b.n; i++) {
		const struct line *x = i < a.n ? &a.l[i] : NULL;
		const struct line *y = i < b.n ? &b.l[i] : NULL;

		if (x == NULL && (diffs & DIFF_V2_EXTRAS))
			break;
		if (x == NULL || y == NULL || !same_shape(x, y)) {
			snprintf(msg, cap, "line %d: \"%.70s\", 2.7: \"%.70s\"",
				 i + 1, y ? y->text : "(none)",
				 x ? x->text : "(none)");
			bad = msg;
			break;
		}
		if (c->flags & CASE_NO_RATIO)
			continue;
		for (int k = 0; k < x->n; k++)
			if (x->a[k].word[0] == '\0' &&
			    !((diffs & DIFF_LATENCY_ALWAYS) && x->a[k].value == -1 &&
			      strstr(x->text, "LATENCY=") != NULL) &&
			    !by_chance_field(a.l, i, k) &&
			    !plausible(x->a[k].value, y->a[k].value)) {
				snprintf(msg, cap,
					 "line %d field %d: %g, 2.7: %g "
					 "(\"%.60s\")",
					 i + 1, k + 1, y->a[k].value,
					 x->a[k].value, y->text);
				bad = msg;
				break;
			}
		if (bad)
			break;
	}
	free(a.l);
	free(b.l);
	return bad;
}

/* NP_COMPAT_CASES=a,b runs only those cases, while developing. */
static int
case_wanted(const char *name)
{
	const char *only = getenv("NP_COMPAT_CASES");

	return only == NULL || has_name(only, name);
}

START_TEST(differential)
{
	const struct compat_case *c = &cases[_i];
	struct run ref, ours;
	char msg[400];
	const char *bad;
	if (no_reference("differential"))
		return;

	double t0 = harness_now();

	if (!case_wanted(c->name))
		return;
	if ((c->flags & CASE_SERVICES) && !services_up) {
		harness_skip("%s: socat is not installed (scripts/deps), so "
			     "-N has no service to talk to",
			     c->name);
		return;
	}
	if ((c->flags & (CASE_IPV6 | CASE_NEEDS_V6)) && !ipv6_up) {
		harness_skip("%s: loopback has no ::1 here", c->name);
		return;
	}
	run_both(c, &ref, &ours);
	fprintf(stderr, "check_compat: %s: %.1f s\n", c->name,
		harness_now() - t0);
	bad = compare(c, &ref, &ours, msg, sizeof(msg));
	if (bad != NULL)
		dump(c->name, &ref, &ours);
	free(ref.out);
	free(ours.out);
	ck_assert_msg(bad == NULL, "%s: %s", c->name, bad);
}
END_TEST

/* Whether line matches the extended regular expression re. */
static int
matches(const char *re, const char *line)
{
	regex_t r;
	int hit;

	ck_assert_int_eq(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	hit = regexec(&r, line, 0, NULL, 0) == 0;
	regfree(&r);
	return hit;
}

/* The index of word in line's blank-separated words, or -1. */
static int
word_index(const char *line, const char *word)
{
	char buf[512], *save = NULL, *w;
	int i = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save), i++)
		if (strcmp(w, word) == 0)
			return i;
	return -1;
}

/* Word i of line as a number (Ruby's to_f: 0 when it is none). */
static double
word_value(const char *line, int i)
{
	char buf[512], *save = NULL, *w;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " \t", &save); w != NULL && i > 0; i--)
		w = strtok_r(NULL, " \t", &save);
	return w != NULL ? strtod(w, NULL) : 0;
}

/*
 * LKP's netperf parser (intel/lkp-tests, programs/netperf/parse), line by
 * line as its Ruby "case" takes them, first match wins: the unit from the
 * title's last line, the columns of "Message", "Elapsed" and
 * "Throughput" (or "Rate") from the lines above it, then the data line.
 * Returns how many data lines it summed; *thr is their throughput, *secs
 * the last one's time, *pkt its message size, unit "Mbps" or "tps".
 */
static int
lkp_parse(const char *out, double *thr, double *secs, double *pkt, char unit[8])
{
	int num = 0, thp = 0, tm = 0, pk = 0;
	char line[512];

	*thr = *secs = *pkt = 0;
	unit[0] = '\0';
	for (const char *p = out; *p != '\0';) {
		size_t len = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		if (matches("^bytes.*secs.*10\\^6bits", line)) {
			snprintf(unit, 8, "Mbps");
		} else if (matches("^bytes.*secs.[[:space:]]+per sec", line)) {
			snprintf(unit, 8, "tps");
		} else if (matches("^Socket.*Elapsed.*", line)) {
			pk = word_index(line, "Message");
			tm = word_index(line, "Elapsed");
		} else if (matches("^Send[[:space:]]+Recv[[:space:]]+", line)) {
			if (word_index(line, "Rate") >= 0)
				thp = word_index(line, "Rate");
		} else if (matches("^Size[[:space:]]+Size[[:space:]]+", line)) {
			if (word_index(line, "Throughput") >= 0)
				thp = word_index(line, "Throughput");
		} else if (matches("[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9]+"
				   "[[:space:]]+[0-9].*$",
				   line)) {
			*thr += word_value(line, thp);
			*secs = word_value(line, tm);
			if (strcmp(unit, "Mbps") == 0)
				*pkt = word_value(line, pk);
			num++;
		}
	}
	return num;
}

/* LKP's TCP_SENDFILE job (jobs/netperf.yaml, programs/netperf/run): its
 * command line, parsed by its parser, gives the same kind of figure from
 * ours as from 2.7. */
START_TEST(wrapper_lkp_sendfile)
{
	struct compat_case c = {"lkp_sendfile",
				{"-4", "-t", "TCP_SENDFILE", "-c", "-C", "-l",
				 "1", "--", "-m", "10K"},
				0,
				0};
	struct run ref, ours;
	double rthr, rsecs, rpkt, othr, osecs, opkt;
	char runit[8], ounit[8];
	int rn, on;
	if (no_reference("wrapper_lkp_sendfile"))
		return;

	run_both(&c, &ref, &ours);
	rn = lkp_parse(ref.out, &rthr, &rsecs, &rpkt, runit);
	on = lkp_parse(ours.out, &othr, &osecs, &opkt, ounit);
	if (on != 1 || ours.status != 0)
		dump(c.name, &ref, &ours);
	ck_assert_int_eq(ref.status, 0);
	ck_assert_int_eq(rn, 1);
	ck_assert_int_eq(ours.status, 0);
	ck_assert_msg(on == rn, "LKP read %d data lines, from 2.7 %d", on, rn);
	ck_assert_str_eq(ounit, runit);
	ck_assert_msg(osecs > 0.9 && osecs < 1.2 && rsecs > 0.9,
		      "LKP read a time of %g s (2.7: %g)", osecs, rsecs);
	ck_assert_msg(opkt == 10240 && rpkt == 10240,
		      "LKP read a message size of %g (2.7: %g)", opkt, rpkt);
	ck_assert_msg(othr > 0 && plausible(rthr, othr),
		      "LKP read a throughput of %g Mb/s, from 2.7 %g", othr,
		      rthr);
	free(ref.out);
	free(ours.out);
}
END_TEST

/*
 * The Phoronix Test Suite's pts/netperf profile runs "netperf -P 0 -v 0
 * $@ | grep -v is" and reads the whole log as the result
 * (results-definition.xml: #_RESULT_#, for _SENDFILE as for _STREAM):
 * one line, a number and nothing else but blanks. Returns the number, or
 * -1 when the log is not that.
 */
static double
phoronix_parse(const char *out)
{
	double v = -1;
	int lines = 0;
	char line[512], *end;

	for (const char *p = out; *p != '\0';) {
		size_t len = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		if (strstr(line, "is") != NULL)
			continue;
		lines++;
		v = strtod(line, &end);
		if (end == line)
			return -1;
		while (*end == ' ')
			end++;
		if (*end != '\0')
			return -1;
	}
	return lines == 1 ? v : -1;
}

START_TEST(wrapper_phoronix_sendfile)
{
	struct compat_case c = {
	    "phoronix_sendfile",
	    {"-P", "0", "-v", "0", "-t", "TCP_SENDFILE", "-l", "1"},
	    0,
	    0};
	struct run ref, ours;
	double r, o;
	if (no_reference("wrapper_phoronix_sendfile"))
		return;

	run_both(&c, &ref, &ours);
	r = phoronix_parse(ref.out);
	o = phoronix_parse(ours.out);
	if (o < 0 || ours.status != 0)
		dump(c.name, &ref, &ours);
	ck_assert_int_eq(ref.status, 0);
	ck_assert_msg(r > 0, "Phoronix reads no result from 2.7's \"%s\"",
		      ref.out);
	ck_assert_int_eq(ours.status, 0);
	ck_assert_msg(o > 0 && plausible(r, o),
		      "Phoronix reads %g from \"%s\" (2.7: %g)", o, ours.out,
		      r);
	free(ref.out);
	free(ours.out);
}
END_TEST

/* The comparison itself: it must see a difference where there is one. */
START_TEST(comparison_catches_differences)
{
	struct compat_case c = {"self", {NULL}, 0, 0};
	struct run a = {0, NULL, ""}, b = {0, NULL, ""};
	char msg[400];

	a.out = "Socket Size\n\n131072  16384  1.00     7639.03   \n";
	b.out = "Socket Size\n\n131072  16384  1.00     7639.033   \n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "Socket Size\n\n131072  16384  1.00     9.03   \n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "Socket Size\n\n131072  16384  1.00     5639.03   \n"
		"Lost: 0\n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "Socket Sizes\n\n131072  16384  1.00     5639.03   \n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "Socket Size\n\n131072  16384  1.00     5639.03\n\n";
	ck_assert_ptr_null(compare(&c, &a, &b, msg, sizeof(msg)));
	b.status = 1;
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	a.out = "X TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () "
		"port 0 AF_INET : demo\n";
	b.out = "X TEST from 127.0.0.1 (127.0.0.1) port 0 AF_INET to 127.0.0.1 "
		"(127.0.0.1) port 0 AF_INET\n";
	b.status = 0;
	ck_assert_ptr_null(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "X TEST from 127.0.0.1 (127.0.0.1) port 0 AF_INET to 127.0.0.1 "
		"(127.0.0.1) port 0 AF_INET : nodelay\n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	a.out = "-1.00\n";
	b.out = "0.00\n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	/* IPv6 addresses are atoms of ':' but the family is still read. */
	a.out = "X TEST from ::0 (::) port 0 AF_INET6 to ::1 (::1) port 0 "
		"AF_INET6 : demo\n";
	b.out = "X TEST from ::1 (::1) port 0 AF_INET6 to ::1 (::1) port 0 "
		"AF_INET6\n";
	ck_assert_ptr_null(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "X TEST from ::1 (::1) port 0 AF_INET6 to ::1 (::1) port 0 "
		"AF_INET\n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	/* Autotuned end sizes are compared by shape, the rest by value. */
	a.out = "Final       Final\n4194304     491288     16384  0.01    "
		"18170.77   10^6bits/s\nRSR_SIZE_END=491288\n";
	b.out = "Final       Final\n4194304     31048619     16384  0.01    "
		"18170.77   10^6bits/s\nRSR_SIZE_END=31048619\n";
	ck_assert_ptr_null(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "Final       Final\n4194304     31048619     16384  0.01    "
		"18.77   10^6bits/s\nRSR_SIZE_END=31048619\n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
	b.out = "Final       Final\n4194304     491288     1638400  0.01    "
		"18170.77   10^6bits/s\nRSR_SIZE_END=491288\n";
	ck_assert_ptr_nonnull(compare(&c, &a, &b, msg, sizeof(msg)));
}
END_TEST

/* The fields of one CSV line as a script's CSV reader takes them (Python's
 * csv module: ',' separates, '"' quotes, '""' is a quote); returns their
 * number, each copied into f[] (truncated to its width). */
#define CSV_MAX 400
static int
csv_fields(const char *line, size_t len, char f[][64], int max)
{
	int n = 0, quoted = 0;
	size_t w = 0;

	for (size_t i = 0; i <= len && n < max; i++) {
		char c = i < len ? line[i] : ',';

		if (quoted) {
			if (c == '"' && i + 1 < len && line[i + 1] == '"')
				i++;
			else if (c == '"') {
				quoted = 0;
				continue;
			}
		} else if (c == '"') {
			quoted = 1;
			continue;
		} else if (c == ',') {
			f[n][w < 64 ? w : 63] = '\0';
			n++;
			w = 0;
			continue;
		}
		if (w < 63)
			f[n][w] = c;
		w++;
	}
	return n;
}

/* The n-th line (from 0) of text, and its length; NULL past the end. */
static const char *
nth_line(const char *text, int n, size_t *len)
{
	const char *p = text;

	for (; n > 0 && p != NULL; n--) {
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	if (p == NULL || *p == '\0')
		return NULL;
	*len = strcspn(p, "\n");
	return p;
}

/*
 * -o all (runemomniaggdemo.sh's post_proc.py, and any script that zips
 * 2.7's titles with its values): the same 173 titles as 2.7, in its order,
 * and a row of as many fields.
 */
START_TEST(all_csv)
{
	static const struct compat_case c = {
	    "all_csv",
	    {"-t", "TCP_STREAM", "-l", "1", "--", "-o", "all"},
	    0,
	    0};
	static char rf[CSV_MAX][64], of[CSV_MAX][64];
	struct run ref, ours;
	const char *rl, *ol;
	size_t rn, on;
	int nr, no;
	if (no_reference("all_csv"))
		return;

	if (!case_wanted(c.name))
		return;
	run_both(&c, &ref, &ours);
	ck_assert_int_eq(ref.status, 0);
	ck_assert_msg(ours.status == 0, "%s", ours.err);
	for (int line = 1; line <= 2; line++) {
		rl = nth_line(ref.out, line, &rn);
		ol = nth_line(ours.out, line, &on);
		ck_assert_ptr_nonnull(rl);
		ck_assert_msg(ol != NULL, "-o all: no line %d", line + 1);
		nr = csv_fields(rl, rn, rf, CSV_MAX);
		no = csv_fields(ol, on, of, CSV_MAX);
		ck_assert_int_eq(nr, 173);
		ck_assert_msg(no == nr,
			      "-o all: %d fields on line %d, 2.7's %d", no,
			      line + 1, nr);
		for (int i = 0; line == 1 && i < nr; i++)
			ck_assert_msg(
			    strcmp(rf[i], of[i]) == 0,
			    "-o all: title %d is \"%s\", 2.7's \"%s\"", i + 1,
			    of[i], rf[i]);
	}
	free(ref.out);
	free(ours.out);
}
END_TEST

/* Whether 2.7 prints key as 0 when its side's CPU was not measured. */
static int
zero_when_unmeasured(const char *key, size_t len)
{
	static const char *const keys[] = {
	    "LOCAL_CPU_PERCENT_USER",
	    "LOCAL_CPU_PERCENT_SYSTEM",
	    "LOCAL_CPU_PERCENT_IOWAIT",
	    "LOCAL_CPU_PERCENT_IRQ",
	    "LOCAL_CPU_PERCENT_SWINTR",
	    "REMOTE_CPU_PERCENT_USER",
	    "REMOTE_CPU_PERCENT_SYSTEM",
	    "REMOTE_CPU_PERCENT_IOWAIT",
	    "REMOTE_CPU_PERCENT_IRQ",
	    "REMOTE_CPU_PERCENT_SWINTR",
	    "REMOTE_CPU_PEAK_UTIL",
	    "REMOTE_CPU_PEAK_ID",
	    "LOCAL_CPU_UTIL",
	    "LOCAL_CPU_PEAK_UTIL",
	    "LOCAL_CPU_PEAK_ID",
	    "LOCAL_SD",
	    "REMOTE_CPU_UTIL",
	    "REMOTE_SD",
	    "LOCAL_CPU_METHOD",
	    "REMOTE_CPU_METHOD",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i]) == len && strncmp(key, keys[i], len) == 0)
			return 1;
	return 0;
}

/*
 * -k all without -c or -C: 2.7's keys in 2.7's order, and the CPU
 * figures nobody measured as 2.7 prints them (0.00 for the shares and
 * netserver's peak, -1 for the rest), since that is what a 2.7 script
 * reads. 2.7's netserver leaves one share uninitialised (-nan): ours
 * prints 0.00 there.
 */
START_TEST(all_keyval)
{
	static const struct compat_case c = {
	    "all_keyval", {"-t", "TCP_RR", "-l", "1", "--", "-k", "all"}, 0, 0};
	struct run ref, ours;
	int n = 0;
	if (no_reference("all_keyval"))
		return;

	if (!case_wanted(c.name))
		return;
	run_both(&c, &ref, &ours);
	ck_assert_int_eq(ref.status, 0);
	ck_assert_msg(ours.status == 0, "%s", ours.err);
	for (int line = 1;; line++) {
		size_t rn, on, rk, ok;
		const char *rl = nth_line(ref.out, line, &rn);
		const char *ol = nth_line(ours.out, line, &on);

		if (rl == NULL) {
			ck_assert_msg(ol == NULL, "-k all: extra line \"%.*s\"",
				      (int)on, ol);
			break;
		}
		ck_assert_msg(ol != NULL, "-k all: no line for \"%.*s\"",
			      (int)rn, rl);
		rk = strcspn(rl, "=");
		ok = strcspn(ol, "=");
		ck_assert_msg(rk == ok && strncmp(rl, ol, rk) == 0,
			      "-k all: line %d is \"%.*s\", 2.7's \"%.*s\"",
			      line + 1, (int)on, ol, (int)rn, rl);
		if (zero_when_unmeasured(rl, rk)) {
			const char *rv = rl + rk + 1, *ov = ol + ok + 1;
			size_t rvl = rn - rk - 1, ovl = on - ok - 1;
			int nan = rvl == 4 && strncmp(rv, "-nan", 4) == 0;

			ck_assert_msg(
			    nan ? ovl == 4 && strncmp(ov, "0.00", 4) == 0
				: rvl == ovl && strncmp(rv, ov, rvl) == 0,
			    "-k all: \"%.*s\", 2.7's \"%.*s\"", (int)on, ol,
			    (int)rn, rl);
		}
		n++;
	}
	/* 173 but RESULT_BRAND, which 2.7 leaves out without -B. */
	ck_assert_int_eq(n, 172);
	free(ref.out);
	free(ours.out);
}
END_TEST

/*
 * PerfKitBenchmarker (perfkitbenchmarker/linux_benchmarks/
 * netperf_benchmark.py, RunNetperf): for TCP_RR, UDP_RR and TCP_CRR it runs
 *
 *   netperf -p PORT -j -v2 -t OMNI -H host -L host -l N [-I 99,5 -i N,3]
 *           -- -T PROTO -d DIR -P ,PORT -o OUTPUT_SELECTOR
 *
 * with PROTO and DIR split from the benchmark's name ("-d CRR" for
 * TCP_CRR), and parses stdout as ParseNetperfOutput and
 * linux_packages/netperf.py's ParseHistogram do, reproduced below.
 */
#define PKB_SELECTORS                                                          \
	"THROUGHPUT,THROUGHPUT_UNITS,P50_LATENCY,P90_LATENCY,"                 \
	"P99_LATENCY,STDDEV_LATENCY,MIN_LATENCY,MAX_LATENCY,"                  \
	"CONFIDENCE_ITERATION,THROUGHPUT_CONFID,"                              \
	"LOCAL_TRANSPORT_RETRANS,REMOTE_TRANSPORT_RETRANS,"                    \
	"TRANSPORT_MSS"

struct pkb_case {
	struct compat_case c; /* its name is its recording's too */
	const char *benchmark;
};

static const struct pkb_case pkb_cases[] = {
    {{"pkb_tcp_rr",
      {"-j", "-v2", "-t", "OMNI", "-L", "127.0.0.1", "-l", "1", "--", "-T",
       "TCP", "-d", "RR", "-P", "@dataport", "-o", PKB_SELECTORS},
      0,
      0},
     "TCP_RR"},
    {{"pkb_udp_rr",
      {"-j", "-v2", "-t", "OMNI", "-L", "127.0.0.1", "-l", "1", "--", "-T",
       "UDP", "-d", "RR", "-P", "@dataport", "-o", PKB_SELECTORS},
      0,
      0},
     "UDP_RR"},
    {{"pkb_tcp_rr_confidence",
      {"-j",  "-v2", "-t",   "OMNI", "-L",	  "127.0.0.1", "-l",
       "1",   "-I",  "99,5", "-i",   "3,3",	  "--",	       "-T",
       "TCP", "-d",  "RR",   "-P",   "@dataport", "-o",	       PKB_SELECTORS},
      0,
      0},
     "TCP_RR"},
    {{"pkb_tcp_crr",
      {"-j", "-v2", "-t", "OMNI", "-L", "127.0.0.1", "-l", "1", "--", "-T",
       "TCP", "-d", "CRR", "-P", "@dataport", "-o", PKB_SELECTORS},
      0,
      0},
     "TCP_CRR"},
};

#define NPKB ((int)(sizeof(pkb_cases) / sizeof(pkb_cases[0])))

/* What PKB takes from one netperf's stdout. */
struct pkb_parse {
	char units[32]; /* results['Throughput Units'] */
	double throughput;
	int rows; /* histogram rows, and buckets in each */
	int buckets;
	long total;	/* the histogram's counts summed */
	char title[64]; /* the line before UNIT_USEC */
};

/* Python's float() and int(): surrounding white space, then all of it a
 * number; returns 0 when Python would raise ValueError. */
static int
py_number(const char *s, size_t len, int integer, double *v)
{
	char buf[64], *end;

	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (integer) {
		long long n = strtoll(buf, &end, 10);

		*v = (double)n;
		return *end == '\0' && (isdigit((unsigned char)buf[0]) ||
					((buf[0] == '-' || buf[0] == '+') &&
					 isdigit((unsigned char)buf[1])));
	}
	*v = strtod(buf, &end);
	return *end == '\0';
}

/* The value of column name in PKB's csv.DictReader row, or NULL (its
 * KeyError). */
static const char *
pkb_field(char hdr[][64], int nh, char row[][64], int nr, const char *name)
{
	for (int i = 0; i < nh; i++)
		if (strcmp(hdr[i], name) == 0)
			return i < nr ? row[i] : NULL;
	return NULL;
}

/* netperf.py's ParseHistogram: regex_util.ExtractGroup('(UNIT_USEC.*?)
 * >100_SECS', stdout, flags=re.S), then a row a line, l.split(':')[1:] as
 * ints, each row ten times the one before; into p's rows, buckets,
 * total and title (the line before). Returns NULL, or what PKB raises. */
static const char *
pkb_parse_histogram(const char *out, struct pkb_parse *p, char *msg,
		    size_t cap)
{
	const char *start, *end;
	double x, row_size = 10.0;

	start = strstr(out, "UNIT_USEC");
	end = start ? strstr(start, ">100_SECS") : NULL;
	if (end == NULL) {
		snprintf(msg, cap,
			 "NoMatchError: (UNIT_USEC.*?)"
			 ">100_SECS");
		return msg;
	}
	{
		const char *t = start;
		size_t tl;

		while (t > out && t[-1] != '\n')
			t--;
		if (t > out) {
			const char *q = t - 1;

			while (q > out && q[-1] != '\n')
				q--;
			tl = (size_t)(t - 1 - q);
			snprintf(p->title, sizeof(p->title), "%.*s",
				 (int)tl, q);
		}
	}
	for (const char *q = start; q < end;) {
		size_t ll = strcspn(q, "\n");
		const char *c = memchr(q, ':', ll);
		int n = 0;

		if (q + ll > end)
			ll = (size_t)(end - q);
		while (c != NULL && c < q + ll) {
			const char *e = c + 1;
			size_t bl;

			while (e < q + ll && *e != ':')
				e++;
			bl = (size_t)(e - c - 1);
			if (!py_number(c + 1, bl, 1, &x)) {
				snprintf(msg, cap,
					 "ValueError: int('%.*s') in "
					 "\"%.60s\"",
					 (int)bl, c + 1, q);
				return msg;
			}
			p->total += (long)x;
			n++;
			c = e < q + ll ? e : NULL;
		}
		if (ll > 0 || q + ll < end) {
			if (n == 0) {
				/* int() of nothing: a row with no ':'
				 * gives no buckets, and a division by
				 * zero in bucket_size. */
				snprintf(msg, cap,
					 "ZeroDivisionError: \"%.60s\"",
					 q);
				return msg;
			}
			if (p->rows == 0)
				p->buckets = n;
			else if (n != p->buckets)
				p->buckets = -1;
			p->rows++;
			row_size *= 10;
		}
		q += ll;
		if (q < end && *q == '\n')
			q++;
	}
	return NULL;
}

/*
 * ParseNetperfOutput with enable_latency_histograms (PKB's default for
 * every benchmark but the STREAMs): returns NULL, or what PKB would raise.
 * hist 0 stops after the CSV row (for Debian's 2.7.0, which has no
 * histogram to show).
 */
static const char *
pkb_parse(const char *out, const char *benchmark, int hist, struct pkb_parse *p,
	  char *msg, size_t cap)
{
	static char hdr[CSV_MAX][64], row[CSV_MAX][64];
	static const char *const meta[] = {
	    "Confidence Iterations Run", "Throughput Confidence Width (%)",
	    "Local Transport Retransmissions",
	    "Remote Transport Retransmissions", "Transport MSS bytes"};
	static const char *const lat[] = {
	    "50th Percentile Latency Microseconds",
	    "90th Percentile Latency Microseconds",
	    "99th Percentile Latency Microseconds",
	    "Minimum Latency Microseconds",
	    "Maximum Latency Microseconds",
	    "Stddev Latency Microseconds"};
	const char *l, *v;
	size_t len;
	int nh, nr;
	double x;

	memset(p, 0, sizeof(*p));
	/* banner = next(fp), which must start OMNI or MIGRATED */
	l = nth_line(out, 0, &len);
	if (l == NULL ||
	    (strncmp(l, "OMNI", 4) != 0 && strncmp(l, "MIGRATED", 8) != 0)) {
		snprintf(msg, cap, "KnownIntermittentError: banner \"%.60s\"",
			 l ? l : "");
		return msg;
	}
	/* results = next(csv.DictReader(fp)) */
	l = nth_line(out, 1, &len);
	if (l == NULL) {
		snprintf(msg, cap, "KnownIntermittentError: no CSV header");
		return msg;
	}
	nh = csv_fields(l, len, hdr, CSV_MAX);
	l = nth_line(out, 2, &len);
	if (l == NULL) {
		snprintf(msg, cap, "KnownIntermittentError: no CSV row");
		return msg;
	}
	nr = csv_fields(l, len, row, CSV_MAX);
	if (pkb_field(hdr, nh, row, nr, "Throughput") == NULL) {
		snprintf(msg, cap, "KnownIntermittentError: no Throughput");
		return msg;
	}
	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
		if ((i < 2 || strstr(benchmark, "TCP") != NULL) &&
		    pkb_field(hdr, nh, row, nr, meta[i]) == NULL) {
			snprintf(msg, cap, "KeyError: '%s'", meta[i]);
			return msg;
		}
	v = pkb_field(hdr, nh, row, nr, "Throughput");
	if (!py_number(v, strlen(v), 0, &p->throughput)) {
		snprintf(msg, cap, "ValueError: float('%s')", v);
		return msg;
	}
	v = pkb_field(hdr, nh, row, nr, "Throughput Units");
	if (v == NULL) {
		snprintf(msg, cap, "KeyError: 'Throughput Units'");
		return msg;
	}
	snprintf(p->units, sizeof(p->units), "%s", v);
	if (strcmp(v, "10^6bits/s") != 0 && strcmp(v, "Trans/s") != 0) {
		snprintf(msg, cap, "ValueError: unrecognized units %s", v);
		return msg;
	}
	if (hist && pkb_parse_histogram(out, p, msg, cap) != NULL)
		return msg;
	if (strcmp(p->units, "Trans/s") == 0)
		for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
			v = pkb_field(hdr, nh, row, nr, lat[i]);
			if (v != NULL && !py_number(v, strlen(v), 0, &x)) {
				snprintf(msg, cap, "ValueError: float('%s')",
					 v);
				return msg;
			}
		}
	return NULL;
}

/* PKB's parse of netperf 2.7 built with --enable-histogram (recorded in
 * tests/data/hist27, whose README says how), of Debian's 2.7.0 run now
 * (no histogram there, so its CSV alone), and of ours, which must give
 * PKB all of it, in 2.7's shape. */
/* With -i, 2.7 keeps one histogram over the runs: three runs of 1000
 * transactions hold 3000 (tests/data/hist27/tcp_rr_count_i3.out). */
START_TEST(histogram_all_runs)
{
	static const struct compat_case c = {
	    "histogram_all_runs",
	    {"-t", "TCP_RR", "-l", "-1000", "-i", "3,3", "-v", "2", "--", "-o",
	     "THROUGHPUT,CONFIDENCE_ITERATION,MIN_LATENCY"},
	    0,
	    0};
	struct pkb_parse rec, mine;
	struct run r, o;
	char path[1200], msg[300];
	const char *bad;
	char *recorded;
	if (no_reference("histogram_all_runs"))
		return;

	if (!case_wanted(c.name))
		return;
	memset(&rec, 0, sizeof(rec));
	memset(&mine, 0, sizeof(mine));
	snprintf(path, sizeof(path), "%s/tests/data/hist27/tcp_rr_count_i3.out",
		 NP_SOURCE_DIR);
	recorded = slurp(path);
	bad = pkb_parse_histogram(recorded, &rec, msg, sizeof(msg));
	ck_assert_msg(bad == NULL, "%s: %s", path, bad);
	free(recorded);
	ck_assert_int_eq(rec.total, 3000);
	run_both(&c, &r, &o);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	bad = pkb_parse_histogram(o.out, &mine, msg, sizeof(msg));
	ck_assert_msg(bad == NULL, "ours: %s", bad);
	ck_assert_int_eq(mine.total, rec.total);
	ck_assert_str_eq(mine.title, rec.title);
	free(r.out);
	free(o.out);
}
END_TEST

START_TEST(pkb)
{
	const struct pkb_case *k = &pkb_cases[_i];
	struct pkb_parse rec, ref, mine;
	struct run r, o;
	char path[1200], msg[300];
	const char *bad;
	char *recorded;
	if (no_reference("pkb"))
		return;

	if (!case_wanted(k->c.name))
		return;
	snprintf(path, sizeof(path), "%s/tests/data/hist27/%s.out",
		 NP_SOURCE_DIR, k->c.name);
	recorded = slurp(path);
	ck_assert_msg(recorded[0] != '\0', "%s is missing", path);
	bad = pkb_parse(recorded, k->benchmark, 1, &rec, msg, sizeof(msg));
	ck_assert_msg(bad == NULL, "%s: PKB's parse of 2.7's: %s", path, bad);
	ck_assert_int_eq(rec.rows, 8);
	ck_assert_int_eq(rec.buckets, 10);
	free(recorded);

	run_both(&k->c, &r, &o);
	if (o.status != 0 || r.status != 0)
		dump(k->c.name, &r, &o);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(o.status, 0);
	bad = pkb_parse(r.out, k->benchmark, 0, &ref, msg, sizeof(msg));
	ck_assert_msg(bad == NULL, "%s: PKB's parse of Debian's: %s", k->c.name,
		      bad);
	bad = pkb_parse(o.out, k->benchmark, 1, &mine, msg, sizeof(msg));
	if (bad != NULL)
		dump(k->c.name, &r, &o);
	ck_assert_msg(bad == NULL, "%s: PKB's parse of ours: %s", k->c.name,
		      bad);
	ck_assert_str_eq(mine.units, rec.units);
	ck_assert_str_eq(mine.units, ref.units);
	ck_assert_str_eq(mine.title, rec.title);
	ck_assert_int_eq(mine.rows, rec.rows);
	ck_assert_int_eq(mine.buckets, rec.buckets);
	ck_assert_int_gt(mine.total, 0);
	ck_assert_msg(plausible(mine.throughput, ref.throughput),
		      "%s: throughput %g, 2.7's %g", k->c.name, mine.throughput,
		      ref.throughput);
	/* -d CRR: 2.7 says nothing; ours one line on what it did. */
	if (strcmp(k->benchmark, "TCP_CRR") == 0) {
		const char *nl = strchr(o.err, '\n');

		ck_assert_msg(nl != NULL && nl[1] == '\0' &&
				  strstr(o.err, "-t TCP_CRR") != NULL,
			      "-d CRR: stderr \"%s\"", o.err);
	} else
		ck_assert_msg(o.err[0] == '\0', "stderr \"%s\"", o.err);
	free(r.out);
	free(o.out);
}
END_TEST

/*
 * netperf 2.7's doc/examples/bloat.sh runs
 *
 *   netperf -H $1 -l 7200 -t TCP_RR -D -0.5 -v 2 -- -r 1
 *   netperf -H $1 -l 120 -t TCP_STREAM -D 0.25 -v 2 -- -m 1K
 *
 * (here for a second each) and reads their stdout with
 *
 *   grep Interim | head -1 | awk '{print int($10)}'      first timestamp
 *   grep Interim | awk '($6 > max) {max = $6} ...'       longest interval
 *   awk '($1 == "Interim"){printf("%.3f:%f\n", $10, $3)}' rrdtool updates
 *
 * so every line with "Interim" in it must be one of 2.7's: $1 "Interim",
 * $3 the rate, $6 the interval, $10 the time, all numbers (awk would take
 * a word for 0 and plot it).
 */
static const struct compat_case bloat_cases[] = {
    {"bloat_rr",
     {"-l", "1", "-t", "TCP_RR", "-D", "-0.5", "-v", "2", "--", "-r", "1"},
     0,
     0},
    {"bloat_stream",
     {"-l", "1", "-t", "TCP_STREAM", "-D", "0.25", "-v", "2", "--", "-m", "1K"},
     0,
     0},
};

/* bloat.sh's reading of one stdout: returns how many lines it took, or
 * -1 with msg saying which line it would misread. */
static int
bloat_read(const char *out, char *msg, size_t cap)
{
	int n = 0;

	for (const char *p = out; *p != '\0';) {
		size_t len = strcspn(p, "\n");
		char line[512], *f[16], *save = NULL, *end;
		int nf = 0;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		if (strstr(line, "Interim") == NULL)
			continue;
		for (char *w = strtok_r(line, " \t", &save); w && nf < 16;
		     w = strtok_r(NULL, " \t", &save))
			f[nf++] = w;
		if (nf < 10 || strcmp(f[0], "Interim") != 0) {
			snprintf(msg, cap,
				 "\"%.*s\": not $1 Interim with 10 "
				 "fields",
				 (int)len, p - len - 1);
			return -1;
		}
		for (int k = 2; k <= 9; k += k == 2 ? 3 : 4) {
			double v = strtod(f[k], &end);

			if (*end != '\0' || end == f[k] ||
			    (k == 9 && v < 1e9)) {
				snprintf(msg, cap, "\"%.*s\": $%d is \"%s\"",
					 (int)len, p - len - 1, k + 1, f[k]);
				return -1;
			}
		}
		n++;
	}
	return n;
}

/* bloat.sh starts its TCP_RR for 7200 s and ends it with "pkill -ALRM
 * netperf": 2.7 ends the test there with results (status 0), and so
 * must ours, its Interim lines read as before. */
START_TEST(bloat_alarm)
{
	static const struct compat_case c = {
	    "bloat_alarm",
	    {"-l", "30", "-t", "TCP_RR", "-D", "-0.5", "-v", "2", "--", "-r",
	     "1"},
	    0,
	    0};
	const char *argv[2][24];
	char port[2][16], p[4][64], msg[700];
	struct run r[2];
	pid_t pid[2];
	int n[2];
	if (no_reference("bloat_alarm"))
		return;

	if (!case_wanted(c.name))
		return;
	snprintf(port[0], sizeof(port[0]), "%d", ref_port);
	snprintf(port[1], sizeof(port[1]), "%d", our_server.port);
	for (int k = 0; k < 2; k++) {
		int a = 0;

		argv[k][a++] = k ? NP_NETPERF : ref_netperf;
		argv[k][a++] = "-H";
		argv[k][a++] = "127.0.0.1";
		argv[k][a++] = "-p";
		argv[k][a++] = port[k];
		for (int i = 0; c.args[i] != NULL; i++)
			argv[k][a++] = c.args[i];
		argv[k][a] = NULL;
		snprintf(p[2 * k], sizeof(p[0]), "/tmp/np-compat-alrm-%d-%d",
			 (int)getpid(), 2 * k);
		snprintf(p[2 * k + 1], sizeof(p[0]), "/tmp/np-compat-alrm-%d-%d",
			 (int)getpid(), 2 * k + 1);
		pid[k] = start(argv[k], p[2 * k], p[2 * k + 1]);
		ck_assert_int_gt(pid[k], 0);
	}
	usleep(2500 * 1000);
	for (int k = 0; k < 2; k++)
		kill(pid[k], SIGALRM);
	for (int k = 0; k < 2; k++) {
		r[k].status = harness_wait_status(pid[k], harness_now() + 20);
		r[k].out = slurp(p[2 * k]);
		r[k].err[0] = '\0';
		unlink(p[2 * k]);
		unlink(p[2 * k + 1]);
	}
	ck_assert_int_eq(r[0].status, 0);
	if (r[1].status != 0)
		dump(c.name, &r[0], &r[1]);
	ck_assert_msg(r[1].status == 0, "ours: status %d after SIGALRM",
		      r[1].status);
	for (int k = 0; k < 2; k++) {
		n[k] = bloat_read(r[k].out, msg, sizeof(msg));
		ck_assert_msg(n[k] > 0, "%s: %s", k ? "ours" : "2.7's",
			      n[k] < 0 ? msg : "no Interim lines");
		/* The results follow, as at the end of a full test. */
		ck_assert_msg(strstr(r[k].out, "Trans.") != NULL,
			      "%s: no result table after SIGALRM",
			      k ? "ours" : "2.7's");
		free(r[k].out);
	}
}
END_TEST

START_TEST(bloat)
{
	const struct compat_case *c = &bloat_cases[_i];
	struct run r, o;
	char msg[700];
	int nr, no;
	if (no_reference("bloat"))
		return;

	if (!case_wanted(c->name))
		return;
	run_both(c, &r, &o);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	nr = bloat_read(r.out, msg, sizeof(msg));
	ck_assert_msg(nr > 0, "%s: 2.7's: %s", c->name,
		      nr < 0 ? msg : "no Interim lines");
	no = bloat_read(o.out, msg, sizeof(msg));
	if (no <= 0)
		dump(c->name, &r, &o);
	ck_assert_msg(no > 0, "%s: ours: %s", c->name,
		      no < 0 ? msg : "no Interim lines");
	free(r.out);
	free(o.out);
}
END_TEST

/*
 * Wrappers' own command lines, each run under 2.7.0 and ours and read by
 * the wrapper's own parse, reproduced here:
 *
 * - Phoronix Test Suite, pts/netperf-1.0.0: install.sh runs
 *   "netperf -P 0 -v 0 $@ | grep -v is" with -H, one of its tests
 *   (TCP_STREAM, TCP_MAERTS, "UDP_STREAM -b 10G", TCP_RR, UDP_RR) and
 *   -l; results-definition.xml takes the figure from " #_RESULT_#".
 * - LKP (lkp-tests tests/netperf): "netperf $opt_ip -H $server -t $test
 *   -c -C -l $runtime [-- -m $send_size -s $bufsize -S $bufsize]", read
 *   by stats/netperf's Ruby line matcher.
 * - MMTests (shellpack_src/src/netperf/netperf-bench): "netperf -t
 *   $PROTOCOL -i 3,3 -I 95,5 -H $SERVER_HOST -- -m $SIZE -M $SIZE
 *   [-P 15895]",
 *   read by extract-report.pl (here with -l 1 for time).
 */
enum wrapper { W_PHORONIX, W_LKP, W_MMTESTS };

struct wrapper_case {
	struct compat_case c;
	enum wrapper w;
};

static const struct wrapper_case wrapper_cases[] = {
    {{"pts_tcp_stream",
      {"-P", "0", "-v", "0", "-t", "TCP_STREAM", "-l", "1"},
      0,
      0},
     W_PHORONIX},
    {{"pts_tcp_maerts",
      {"-P", "0", "-v", "0", "-t", "TCP_MAERTS", "-l", "1"},
      0,
      0},
     W_PHORONIX},
    {{"pts_udp_stream_b10G",
      {"-P", "0", "-v", "0", "-t", "UDP_STREAM", "-b", "10G", "-l", "1"},
      0,
      0},
     W_PHORONIX},
    {{"pts_tcp_rr", {"-P", "0", "-v", "0", "-t", "TCP_RR", "-l", "1"}, 0, 0},
     W_PHORONIX},
    {{"pts_udp_rr", {"-P", "0", "-v", "0", "-t", "UDP_RR", "-l", "1"}, 0, 0},
     W_PHORONIX},
    {{"lkp_tcp_rr", {"-4", "-t", "TCP_RR", "-c", "-C", "-l", "1"}, 0, 0},
     W_LKP},
    {{"lkp_tcp_crr", {"-4", "-t", "TCP_CRR", "-c", "-C", "-l", "1"}, 0, 0},
     W_LKP},
    {{"lkp_udp_rr", {"-4", "-t", "UDP_RR", "-c", "-C", "-l", "1"}, 0, 0},
     W_LKP},
    {{"lkp_tcp_stream_m10K",
      {"-4", "-t", "TCP_STREAM", "-c", "-C", "-l", "1", "--", "-m", "10K"},
      0,
      0},
     W_LKP},
    {{"lkp_tcp_maerts_s",
      {"-4", "-t", "TCP_MAERTS", "-c", "-C", "-l", "1s", "--", "-s", "64K",
       "-S", "64K"},
      0,
      0},
     W_LKP},
    {{"lkp_udp_stream",
      {"-4", "-t", "UDP_STREAM", "-c", "-C", "-l", "1", "--", "-m", "1K"},
      0,
      0},
     W_LKP},
    {{"mmtests_tcp_stream",
      {"-t", "TCP_STREAM", "-l", "1", "-i", "3,3", "-I", "95,5", "--", "-m",
       "1024", "-M", "1024"},
      0,
      0},
     W_MMTESTS},
    /* netperf-bench adds -P 15895 to UDP_STREAM, even on loopback. */
    {{"mmtests_udp_stream",
      {"-t", "UDP_STREAM", "-l", "1", "-i", "3,3", "-I", "95,5", "--", "-m",
       "1024", "-M", "1024", "-P", "@port"},
      0,
      0},
     W_MMTESTS},
};

#define NWRAPPER ((int)(sizeof(wrapper_cases) / sizeof(wrapper_cases[0])))

/* What a wrapper took from one stdout: its figures, and how many. */
struct wrapper_read {
	double v[3];
	int n;
	char unit[8];
};

/* Splits on white space into at most max words of 64 bytes. */
static int
words_of(const char *line, size_t len, char w[][64], int max)
{
	int n = 0;

	for (size_t i = 0; i < len && n < max;) {
		size_t j;

		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i >= len)
			break;
		j = i;
		while (j < len && !isspace((unsigned char)line[j]))
			j++;
		snprintf(w[n++], 64, "%.*s", (int)(j - i), line + i);
		i = j;
	}
	return n;
}

/* Phoronix: "| grep -v is", then the one line left is the figure. */
static const char *
read_phoronix(const char *out, struct wrapper_read *r, char *msg, size_t cap)
{
	for (int i = 0;; i++) {
		size_t len;
		const char *l = nth_line(out, i, &len);
		char line[256], w[4][64];

		if (l == NULL)
			break;
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (strstr(line, "is") != NULL ||
		    words_of(line, len, w, 4) == 0)
			continue;
		if (r->n > 0 || words_of(line, len, w, 4) != 1 ||
		    !py_number(w[0], strlen(w[0]), 0, &r->v[0])) {
			snprintf(msg, cap,
				 "Phoronix: \"%s\" is not its one "
				 "figure",
				 line);
			return msg;
		}
		r->n = 1;
	}
	if (r->n == 0) {
		snprintf(msg, cap, "Phoronix: no figure");
		return msg;
	}
	return NULL;
}

/* LKP's stats/netperf, its Ruby case ... when over each line. */
static const char *
read_lkp(const char *out, struct wrapper_read *r, char *msg, size_t cap)
{
	static const char *const pat[] = {
	    "^Iterations",
	    "^bytes.*secs.*10\\^6bits",
	    "^bytes.*secs.[[:space:]]+per sec",
	    "^Socket.*Elapsed.*",
	    "^Send[[:space:]]+Recv[[:space:]]+",
	    "^Size[[:space:]]+Size[[:space:]]+",
	    "[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9].*$"};
	regex_t re[7];
	int thp = 0, tix = 0, pix = 0, iterations = 0, num = 0;
	double throughput = 0, t = 0, pkt = 0;

	snprintf(r->unit, sizeof(r->unit), "%s", "");
	for (int k = 0; k < 7; k++)
		ck_assert_int_eq(
		    regcomp(&re[k], pat[k], REG_EXTENDED | REG_NOSUB), 0);
	for (int i = 0;; i++) {
		size_t len;
		const char *l = nth_line(out, i, &len);
		char line[512], w[32][64];
		int k, n;

		if (l == NULL)
			break;
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		for (k = 0; k < 7 && regexec(&re[k], line, 0, NULL, 0) != 0;
		     k++)
			;
		n = words_of(line, strlen(line), w, 32);
		switch (k) {
		case 0:
			iterations++;
			break;
		case 1:
			snprintf(r->unit, sizeof(r->unit), "Mbps");
			break;
		case 2:
			snprintf(r->unit, sizeof(r->unit), "tps");
			break;
		case 3:
			for (int j = 0; j < n; j++) {
				if (strcmp(w[j], "Message") == 0)
					pix = j;
				if (strcmp(w[j], "Elapsed") == 0)
					tix = j;
			}
			break;
		case 4:
		case 5:
			for (int j = 0; j < n; j++)
				if (strcmp(w[j],
					   k == 4 ? "Rate" : "Throughput") == 0)
					thp = j;
			break;
		case 6:
			/* Ruby's nil.to_f is 0: a missing word reads 0. */
			throughput += thp < n ? strtod(w[thp], NULL) : 0;
			t = tix < n ? strtod(w[tix], NULL) : 0;
			if (strcmp(r->unit, "Mbps") == 0)
				pkt = pix < n ? strtod(w[pix], NULL) : 0;
			num++;
			break;
		}
	}
	for (int k = 0; k < 7; k++)
		regfree(&re[k]);
	if (num == 0) {
		snprintf(msg, cap, "LKP: no data line");
		return msg;
	}
	r->v[0] = throughput / num;
	if (iterations > 0)
		throughput /= iterations;
	r->v[1] = throughput * t;
	if (strcmp(r->unit, "Mbps") == 0)
		r->v[1] = pkt > 0 ? r->v[1] * 1e6 / 8.0 / pkt : NAN;
	r->n = 2;
	if (!(r->v[0] > 0) || !isfinite(r->v[1]) || !(r->v[1] > 0)) {
		snprintf(msg, cap,
			 "LKP: throughput %g, workload %g (unit "
			 "\"%s\")",
			 r->v[0], r->v[1], r->unit);
		return msg;
	}
	return NULL;
}

/* MMTests' extract-report.pl: lines with no letter, split on white
 * space; UDP_STREAM's of 6 words are the send rate, of 4 the receive. */
static const char *
read_mmtests(const char *out, int udp, struct wrapper_read *r, char *msg,
	     size_t cap)
{
	for (int i = 0;; i++) {
		size_t len;
		const char *l = nth_line(out, i, &len);
		char w[16][64];
		int n, letters = 0;

		if (l == NULL)
			break;
		for (size_t j = 0; j < len; j++)
			letters += isalpha((unsigned char)l[j]) != 0;
		n = words_of(l, len, w, 16);
		if (letters > 0 || n == 0)
			continue;
		if (!udp && n > 4)
			r->v[0] = strtod(w[n - 1], NULL);
		if (udp && n == 6)
			r->v[0] = strtod(w[n - 1], NULL);
		if (udp && n == 4)
			r->v[1] = strtod(w[n - 1], NULL);
	}
	r->n = udp ? 2 : 1;
	if (!(r->v[0] > 0) || (udp && !(r->v[1] > 0))) {
		snprintf(msg, cap, "MMTests: send %g, receive %g", r->v[0],
			 r->v[1]);
		return msg;
	}
	return NULL;
}

START_TEST(wrapper)
{
	const struct wrapper_case *k = &wrapper_cases[_i];
	struct wrapper_read a, b;
	struct run r, o;
	char msg[300];
	const char *bad = NULL;
	int udp = is_udp_case(&k->c);
	if (no_reference("wrapper"))
		return;

	if (!case_wanted(k->c.name))
		return;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	run_both(&k->c, &r, &o);
	ck_assert_int_eq(r.status, 0);
	if (o.status != 0)
		dump(k->c.name, &r, &o);
	ck_assert_msg(o.status == 0, "%s: status %d", k->c.name, o.status);
	for (int side = 0; side < 2 && bad == NULL; side++) {
		const char *out = side ? o.out : r.out;
		struct wrapper_read *w = side ? &b : &a;

		bad = k->w == W_PHORONIX
			  ? read_phoronix(out, w, msg, sizeof(msg))
		      : k->w == W_LKP
			  ? read_lkp(out, w, msg, sizeof(msg))
			  : read_mmtests(out, udp, w, msg, sizeof(msg));
		if (bad != NULL) {
			dump(k->c.name, &r, &o);
			ck_abort_msg("%s: %s's read: %s", k->c.name,
				     side ? "ours" : "2.7", bad);
		}
	}
	ck_assert_str_eq(b.unit, a.unit);
	ck_assert_int_eq(b.n, a.n);
	for (int i = 0; i < a.n; i++)
		ck_assert_msg(plausible(a.v[i], b.v[i]),
			      "%s: figure %d is %g, 2.7's %g", k->c.name, i + 1,
			      b.v[i], a.v[i]);
	free(r.out);
	free(o.out);
}
END_TEST

/* -Z against our netserver: the same passphrase on both sides runs the
 * test, another one or none is refused; the key is derived on each side,
 * so the passphrase itself is not what netserver checks. */
START_TEST(passphrase)
{
	const char *extra[] = {"-Z", "open sesame", NULL};
	struct harness_server s;
	struct harness_out *o = malloc(sizeof(*o));
	char port[16];

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	snprintf(port, sizeof(port), "%d", s.port);
	{
		const char *good[] = {"-H", "127.0.0.1", "-p",	  port,
				      "-Z", "open sesame", "-t", "TCP_RR",
				      "-l", "-1000",	   "-P", "0",
				      NULL};
		const char *bad[] = {"-H", "127.0.0.1", "-p",	  port,
				     "-Z", "open sesamE", "-t", "TCP_RR",
				     "-l", "-1000",	  NULL};
		const char *none[] = {"-H",	"127.0.0.1", "-p", port, "-t",
				      "TCP_RR", "-l",	     "-1000", NULL};

		ck_assert_int_eq(harness_netperf(good, 30, o), 0);
		ck_assert_msg(o->status == 0, "%s", o->err);
		ck_assert_ptr_nonnull(strstr(o->out, "1        1"));
		/* No key before a wrong one: a wrong one backs its
		 * address off for a second. */
		ck_assert_int_eq(harness_netperf(none, 30, o), 0);
		ck_assert_int_eq(o->status, 1);
		ck_assert_ptr_nonnull(strstr(o->err, "authentication"));
		ck_assert_int_eq(harness_netperf(bad, 30, o), 0);
		ck_assert_int_eq(o->status, 1);
		ck_assert_str_eq(o->out, "");
	}
	ck_assert_int_eq(harness_server_stop(&s), 0);
	free(o);
}
END_TEST

/* Runs netperf (path) against port with "-- -P ports"; returns the first
 * line of its output. */
static char *
banner_with(const char *path, int port, const char *ports)
{
	char port_text[16], out[64], err[64], *text;
	const char *argv[] = {path, "-H", "127.0.0.1", "-p", port_text, "-t",
			      "TCP_RR", "-l", "-100", "--", "-P", ports,
			      NULL};
	pid_t pid;

	snprintf(port_text, sizeof(port_text), "%d", port);
	snprintf(out, sizeof(out), "/tmp/np-compat-banner-%d", (int)getpid());
	snprintf(err, sizeof(err), "/tmp/np-compat-banner-%d.err",
		 (int)getpid());
	pid = start(argv, out, err);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(harness_wait_status(pid, harness_now() + 30), 0);
	text = slurp(out);
	unlink(out);
	unlink(err);
	ck_assert_ptr_nonnull(text);
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* The banner's ports: those "-- -P l,r" asked for, 0 for one not asked
 * for, as 2.7 prints them (each side against its own netserver, one after
 * the other, on ports of their own). */
START_TEST(banner_data_ports)
{
	const char *path[2] = {ref_netperf, NP_NETPERF};
	int port[2] = {ref_port, our_server.port};
	char ports[32], want[64], *text;
	int l, r;
	if (no_reference("banner_data_ports"))
		return;

	for (int f = 0; f < 3; f++)
		for (int side = 0; side < 2; side++) {
			l = harness_free_port();
			r = harness_free_port();
			if (f == 1)
				l = 0;
			if (f == 2)
				r = 0;
			/* "l,r", ",r" and "l,". */
			if (f == 0)
				snprintf(ports, sizeof(ports), "%d,%d", l, r);
			else if (f == 1)
				snprintf(ports, sizeof(ports), ",%d", r);
			else
				snprintf(ports, sizeof(ports), "%d,", l);
			text = banner_with(path[side], port[side], ports);
			snprintf(want, sizeof(want), " port %d AF_INET to ",
				 l);
			ck_assert_msg(strstr(text, want) != NULL,
				      "%s -P %s: %s", side ? "ours" : "2.7",
				      ports, text);
			snprintf(want, sizeof(want), " port %d AF_INET", r);
			ck_assert_msg(strstr(strstr(text, " to "), want) !=
					  NULL,
				      "%s -P %s: %s", side ? "ours" : "2.7",
				      ports, text);
			free(text);
		}
}
END_TEST

/* Whether some UDP socket is bound to port, by /proc/net/udp: read, not
 * probed by binding, so it cannot race the service's own bind. */
static int
udp_port_bound(int port)
{
	FILE *f = fopen("/proc/net/udp", "r");
	char line[256];
	unsigned addr, p;
	int found = 0;

	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, " %*u: %8x:%4x", &addr, &p) == 2 &&
		    (int)p == port)
			found = 1;
	fclose(f);
	return found;
}

/* discard (TCP and UDP), echo and chargen at free loopback ports. */
static void
services_start(void)
{
	char l[4][96];

	if (access("/usr/bin/socat", X_OK) != 0)
		return;
	for (int k = 0; k < SVC_N; k++) {
		svc_port[k] = harness_free_port();
		snprintf(svc_arg[k], sizeof(svc_arg[k]), ",%d", svc_port[k]);
	}
	snprintf(l[0], sizeof(l[0]),
		 "TCP4-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork",
		 svc_port[SVC_DISCARD]);
	snprintf(l[1], sizeof(l[1]), "UDP4-RECV:%d,bind=127.0.0.1",
		 svc_port[SVC_DISCARD]);
	snprintf(l[2], sizeof(l[2]),
		 "TCP4-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork",
		 svc_port[SVC_ECHO]);
	snprintf(l[3], sizeof(l[3]),
		 "TCP4-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork",
		 svc_port[SVC_CHARGEN]);
	{
		const char *discard[] = {"-u", l[0], "OPEN:/dev/null", NULL};
		const char *udp[] = {"-u", l[1], "OPEN:/dev/null", NULL};
		const char *echo[] = {l[2], "PIPE", NULL};
		const char *chargen[] = {"-u", "EXEC:yes chargen", l[3], NULL};

		services[0] = harness_socat(discard);
		services[1] = harness_socat(udp);
		services[2] = harness_socat(echo);
		services[3] = harness_socat(chargen);
	}
	for (int i = 0; i < 200; i++) {
		int up = 0;
		for (int k = 0; k < SVC_N; k++) {
			int fd = harness_connect(svc_port[k]);

			if (fd >= 0) {
				close(fd);
				up++;
			}
		}
		/* The UDP discard is up once its port is bound. */
		if (up == SVC_N && udp_port_bound(svc_port[SVC_DISCARD])) {
			services_up = 1;
			return;
		}
		usleep(10000);
	}
}

static void
services_stop(void)
{
	for (int i = 0; i < 4; i++)
		if (services[i] > 0) {
			kill(services[i], SIGTERM);
			waitpid(services[i], NULL, 0);
		}
}

/* Connects to port on ::1; returns the socket, or -1. */
static int
connect6(int port)
{
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6,
				    .sin6_port = htons((uint16_t)port),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 &&
	    connect(fd, (struct sockaddr *)&sin6, sizeof(sin6)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether loopback has ::1: a socket bound to it. */
static int
have_ipv6_loopback(void)
{
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6,
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	ok = bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)) == 0;
	close(fd);
	return ok;
}

/* Starts 2.7's netserver with its -L listen, "127.0.0.1,4" or "::1,6",
 * or with -6 alone when listen is NULL (the IPv6 wildcard); returns 0, or
 * -1. */
static int
start_reference_server(const char *listen, pid_t *pid, int *portp)
{
	int v6 = listen == NULL || strchr(listen, ':') != NULL;
	char bin[1100], port[16];
	const char *argv[8];

	snprintf(bin, sizeof(bin), "%s/netserver", ref_bin);
	*portp = harness_free_port();
	snprintf(port, sizeof(port), "%d", *portp);
	argv[0] = bin;
	argv[1] = "-D";
	argv[2] = "-p";
	argv[3] = port;
	argv[4] = listen != NULL ? "-L" : "-6";
	argv[5] = listen;
	argv[6] = NULL;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		int fd = v6 ? connect6(*portp) : harness_connect(*portp);

		if (fd >= 0) {
			close(fd);
			return 0;
		}
		usleep(10000);
	}
	return -1;
}

/* The pair on ::1 for the CASE_IPV6 cases; sets ipv6_up, or leaves it
 * 0 (those cases skip) when loopback has no ::1. Returns 0, or -1. */
static int
start_ipv6_servers(void)
{
	const char *extra[] = {"-L", "::1", NULL};

	if (!have_ipv6_loopback())
		return 0;
	if ((!ref_missing &&
	     start_reference_server("::1,6", &ref_server6, &ref_port6) < 0) ||
	    harness_server_start(&our_server6, extra) < 0)
		return -1;
	ipv6_up = 1;
	return 0;
}

static void
stop_reference_server(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
}

/* Unpacks the reference with scripts/refnetperf; returns 0, 77 when it
 * cannot be had, or 1 on another failure. */
static int
find_reference(void)
{
	const char *argv[] = {"sh", NP_SOURCE_DIR "/scripts/refnetperf",
			      NP_BUILD_DIR "/refnetperf", NULL};
	char err[1024];
	char *out = NULL;
	int rc = harness_exec_capture(argv, 600, &out, err, sizeof(err));
	size_t n;

	if (rc != 0) {
		fprintf(stderr, "check_compat: no reference netperf: %s", err);
		free(out);
		return rc == 77 ? 77 : 1;
	}
	n = strcspn(out, "\n");
	snprintf(ref_bin, sizeof(ref_bin), "%.*s", (int)n, out);
	free(out);
	snprintf(ref_netperf, sizeof(ref_netperf), "%s/netperf", ref_bin);
	return access(ref_netperf, X_OK) == 0 ? 0 : 1;
}

/* A netperf's exit status for "-4 -H 127.0.0.1 -p port" TCP_RR: argv0 is
 * 2.7's netperf, or NULL for ours. */
static int
ipv4_client_status(const char *argv0, int port)
{
	char p[16], err[1024];
	const char *argv[] = {argv0,	 "-4",	   "-H",    "127.0.0.1", "-p",
			      p,	 "-t",	   "TCP_RR", "-l",	 "-1000",
			      "-P",	 "0",	   NULL};
	struct harness_out *o;
	char *out = NULL;
	int status;

	snprintf(p, sizeof(p), "%d", port);
	if (argv0 != NULL) {
		status = harness_exec_capture(argv, 30, &out, err, sizeof(err));
		free(out);
		return status;
	}
	o = malloc(sizeof(*o));
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(harness_netperf(argv + 1, 30, o), 0);
	status = o->status;
	free(o);
	return status;
}

/*
 * netserver -6 on the wildcard: as 2.7's, whether it also takes IPv4 is
 * left to net.ipv6.bindv6only, so an IPv4 client fares the same with
 * either (and with Linux's default, 0, both run). In a network namespace
 * of this test's own, so that the wildcard is this test's loopback alone.
 */
START_TEST(netserver_6_wildcard)
{
	const char *extra[] = {"-6", "-L", "", NULL};
	struct harness_server s;
	pid_t ref = -1;
	int ref_port6w, theirs, ours, v6only = -1;
	FILE *f;
	if (no_reference("netserver_6_wildcard"))
		return;

	if (unshare(CLONE_NEWNET) < 0) {
		harness_skip("netserver_6_wildcard: no network namespace (%s)",
			     strerror(errno));
		ck_assert_int_ne(geteuid(), 0);
		return;
	}
	/* This process's own namespace: it goes away with it. 2.7 resolves
	 * with AI_ADDRCONFIG, which wants an address other than loopback's
	 * of each family: two on lo, reachable from nowhere else. */
	ck_assert_int_eq(system("ip link set lo up && "
				"ip addr add 192.0.2.1/32 dev lo && "
				"ip -6 addr add fd00:13::1/128 dev lo nodad"),
			 0);
	if (!have_ipv6_loopback()) {
		harness_skip("netserver_6_wildcard: loopback has no ::1 here");
		return;
	}
	f = fopen("/proc/sys/net/ipv6/bindv6only", "r");
	if (f != NULL) {
		if (fscanf(f, "%d", &v6only) != 1)
			v6only = -1;
		fclose(f);
	}
	ck_assert_int_eq(start_reference_server(NULL, &ref, &ref_port6w), 0);
	ck_assert_int_eq(harness_server_start(&s, extra), 0);
	theirs = ipv4_client_status(ref_netperf, ref_port6w);
	ours = ipv4_client_status(NULL, s.port);
	stop_reference_server(ref);
	ck_assert_int_eq(harness_server_stop(&s), 0);
	ck_assert_msg(ours == theirs, "-4 client of netserver -6: status %d, "
		      "2.7's %d", ours, theirs);
	if (v6only == 0)
		ck_assert_int_eq(ours, 0);
}
END_TEST

static Suite *
compat_suite(void)
{
	Suite *s = suite_create("compat");
	TCase *self = tcase_create("comparison");
	TCase *diff = tcase_create("differential");

	tcase_add_test(self, comparison_catches_differences);
	tcase_add_test(self, passphrase);
	tcase_add_test(self, netserver_6_wildcard);
	tcase_add_test(self, wrapper_lkp_sendfile);
	tcase_add_test(self, wrapper_phoronix_sendfile);
	tcase_add_test(self, banner_data_ports);
	tcase_set_timeout(self, 60);
	suite_add_tcase(s, self);
	tcase_set_timeout(diff, 90);
	tcase_add_loop_test(diff, differential, 0, NCASES);
	tcase_add_test(diff, all_csv);
	tcase_add_loop_test(diff, pkb, 0, NPKB);
	tcase_add_test(diff, histogram_all_runs);
	tcase_add_loop_test(diff, wrapper, 0, NWRAPPER);
	tcase_add_test(diff, bloat_alarm);
	tcase_add_loop_test(
	    diff, bloat, 0,
	    (int)(sizeof(bloat_cases) / sizeof(bloat_cases[0])));
	tcase_add_test(diff, all_keyval);
	suite_add_tcase(s, diff);
	return s;
}

/* Writes n bytes of text to path; returns 0, or -1. */
static int
write_file(const char *path, size_t n)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (f == NULL)
		return -1;
	for (i = 0; i < n; i++)
		fputc("netperf\n"[i % 8], f);
	return fclose(f) == 0 ? 0 : -1;
}

int
main(void)
{
	int rc = find_reference();

	/* Without the reference, the checks of ours alone still run. */
	if (rc == 77)
		ref_missing = 1;
	else if (rc != 0)
		return rc;
	if (!ref_missing &&
	    start_reference_server("127.0.0.1,4", &ref_server, &ref_port) < 0) {
		fprintf(stderr, "check_compat: reference netserver did not "
				"start\n");
		rc = 1;
		goto out;
	}
	if (start_ipv6_servers() < 0) {
		fprintf(stderr, "check_compat: the netservers on ::1 did not "
				"start\n");
		rc = 1;
		goto out;
	}
	{
		int dp[2] = {harness_free_port(), harness_free_port()};

		for (int i = 0; i < 20 && dp[1] == dp[0]; i++)
			dp[1] = harness_free_port();
		for (int i = 0; i < 2; i++)
			snprintf(data_port_arg[i], sizeof(data_port_arg[i]),
				 ",%d", dp[i]);
	}
	snprintf(sel_file, sizeof(sel_file), "/tmp/np-compat-sel-%d",
		 (int)getpid());
	{
		FILE *f = fopen(SEL_FILE, "w");

		if (f == NULL) {
			rc = 1;
			goto out;
		}
		fputs("THROUGHPUT,THROUGHPUT_UNITS\nMEAN_LATENCY\n"
		      "P50_LATENCY,P99_LATENCY\nRT_LATENCY\n",
		      f);
		fclose(f);
	}
	snprintf(sf_big, sizeof(sf_big), "/tmp/np-compat-sf-%d", (int)getpid());
	snprintf(sf_small, sizeof(sf_small), "/tmp/np-compat-sf-small-%d",
		 (int)getpid());
	if (write_file(sf_big, 4 << 20) < 0 || write_file(sf_small, 1000) < 0) {
		rc = 1;
		goto out;
	}
	if (harness_server_start(&our_server, NULL) < 0) {
		fprintf(stderr, "check_compat: our netserver did not start\n");
		rc = 1;
		goto out;
	}
	services_start();
	rc = harness_run(compat_suite());
	services_stop();
	harness_server_stop(&our_server);
out:
	if (our_server6.pid > 0)
		harness_server_stop(&our_server6);
	unlink(SEL_FILE);
	unlink(sf_big);
	unlink(sf_small);
	stop_reference_server(ref_server);
	stop_reference_server(ref_server6);
	return rc;
}
