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

/* A case's argument, with a service's name turned into ",port". */
static const char *
case_arg(const char *a)
{
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
     {"-t", "TCP_STREAM", "-l", "-30000000", "-P", "0", "-v", "0"},
     0,
     0},
    {"sfm_tcp_maerts",
     {"-t", "TCP_MAERTS", "-l", "-30000000", "-P", "0", "-v", "0"},
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
     {"-t", "TCP_STREAM", "-l", "-30000000", "-P", "0", "-v", "0", "-c", "-C"},
     0,
     0},
    {"sfm_tcp_maerts_c",
     {"-t", "TCP_MAERTS", "-l", "-30000000", "-P", "0", "-v", "0", "-c"},
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
     {"-t", "TCP_STREAM", "-l", "-30000000", "-P", "0", "-B", "run8"},
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
    {"fmt_K", {"-t", "TCP_STREAM", "-l", "-30000000", "-f", "K"}, 0, 0},
    {"fmt_g", {"-t", "TCP_MAERTS", "-l", "1", "-f", "g"}, 0, 0},
    {"fmt_rr_k", {"-t", "TCP_RR", "-l", "-3000", "-f", "k"}, 0, 0},
    {"fmt_x_stream", {"-t", "TCP_STREAM", "-l", "-30000000", "-f", "x"}, 0, 0},
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
     {"-t", "TCP_STREAM", "-l", "-30000000", "-v", "2"},
     DIFF_HISTOGRAM | DIFF_V2_EXTRAS,
     0},
    {"v2_tcp_maerts",
     {"-t", "TCP_MAERTS", "-l", "-30000000", "-v", "2"},
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
     {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-m", "8192", "-M", "4096",
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
    {"opt_4_tcp_stream", {"-4", "-t", "TCP_STREAM", "-l", "-30000000"}, 0, 0},
    {"opt_4_udp_rr", {"-4", "-t", "UDP_RR", "-l", "-3000"}, 0, 0},
    {"test_4_tcp_stream",
     {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-4"},
     0,
     0},
    {"test_4_udp_rr", {"-t", "UDP_RR", "-l", "-3000", "--", "-4"}, 0, 0},
    {"ipv6_tcp_rr", {"-t", "TCP_RR", "-l", "-3000"}, 0, CASE_IPV6},
    {"opt_6_tcp_stream",
     {"-6", "-t", "TCP_STREAM", "-l", "-30000000"},
     0,
     CASE_IPV6},
    {"opt_6_udp_rr", {"-6", "-t", "UDP_RR", "-l", "-3000"}, 0, CASE_IPV6},
    {"test_6_tcp_stream",
     {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-6"},
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
      "-l", "-30000000"},
     0,
     0},
    {"opt_a_rr", {"-a", "64", "-o", "2", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_W", {"-W", "4,4", "-t", "TCP_STREAM", "-l", "-30000000"}, 0, 0},
    {"opt_F_local",
     {"-F", "/etc/hostname", "-t", "TCP_STREAM", "-l", "-30000000"},
     0,
     0},
    {"opt_F_remote",
     {"-F", "/etc/hostname,/etc/passwd", "-t", "TCP_MAERTS", "-l", "1"},
     DIFF_REMOTE_FILL,
     0},
    {"opt_k_K",
     {"-k", "8", "-K", "8", "-t", "TCP_STREAM", "-l", "-30000000"},
     DIFF_NOT_BUILT,
     0},
    {"opt_w_b",
     {"-w", "10", "-b", "2", "-t", "TCP_STREAM", "-l", "1"},
     DIFF_NOT_BUILT,
     CASE_NO_RATIO},
    {"opt_n", {"-n", "4", "-t", "TCP_RR", "-l", "-3000"}, 0, 0},
    {"opt_s", {"-s", "1", "-t", "TCP_RR", "-l", "1"}, 0, 0},
    {"opt_S", {"-S", "-t", "TCP_STREAM", "-l", "-30000000"}, 0, 0},
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
    {"test_C", {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-C"}, 0, 0},
    {"test_K",
     {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-K", "reno"},
     0,
     0},
    {"test_q",
     {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-q", "100M"},
     DIFF_NOT_BUILT,
     0},
    {"test_R", {"-t", "UDP_STREAM", "-l", "1", "--", "-R", "1"}, 0, 0},
    /* -e receive timeout, -G TCP_MAXSEG (the MSS both report), -L and
     * -P the data connection's local address and ports, -h the test's
     * usage. */
    {"test_e", {"-t", "TCP_RR", "-l", "-3000", "--", "-e", "5"}, 0, 0},
    {"test_G",
     {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-G", "1000", "-k",
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
    {"test_V", {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-V"}, 0, 0},
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
     {"-t", "TCP_STREAM", "-l", "-30000000", "--", "-k",
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
     {"-t", "TCP_MAERTS", "-l", "-30000000", "-F", "/etc/hostname", "--", "-K",
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
    /* -t OMNI in every direction this netperf has, by word and by
     * number, with -T and -t. */
    {"omni_default", {"-t", "omni", "-l", "-30000000"}, 0, 0},
    {"omni_send", {"-t", "OMNI", "-l", "-30000000", "--", "-d", "send"}, 0, 0},
    {"omni_stream_tcp",
     {"-t", "OMNI", "-l", "-30000000", "--", "-d", "stream", "-T", "tcp"},
     0,
     0},
    {"omni_recv", {"-t", "omni", "-l", "-30000000", "--", "-d", "recv"}, 0, 0},
    {"omni_maerts",
     {"-t", "omni", "-l", "-30000000", "--", "-d", "maerts"},
     0,
     0},
    {"omni_rr", {"-t", "omni", "-l", "-3000", "--", "-d", "rr"}, 0, 0},
    {"omni_numeric_2",
     {"-t", "omni", "-l", "-30000000", "--", "-d", "2"},
     0,
     0},
    {"omni_numeric_4",
     {"-t", "omni", "-l", "-30000000", "--", "-d", "4"},
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
		rargv[rn++] = case_arg(c->args[i]);
		oargv[on++] = case_arg(c->args[i]);
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
	if (!(diffs & (DIFF_NOT_BUILT | DIFF_REMOTE_FILL)) &&
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

START_TEST(differential)
{
	const struct compat_case *c = &cases[_i];
	struct run ref, ours;
	char msg[400];
	const char *bad;

	double t0 = harness_now();
	const char *only = getenv("NP_COMPAT_CASES");

	/* NP_COMPAT_CASES=a,b runs only those cases, while developing. */
	if (only != NULL && !has_name(only, c->name))
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
		ck_assert_int_eq(harness_netperf(bad, 30, o), 0);
		ck_assert_int_eq(o->status, 1);
		ck_assert_str_eq(o->out, "");
		ck_assert_int_eq(harness_netperf(none, 30, o), 0);
		ck_assert_int_eq(o->status, 1);
		ck_assert_ptr_nonnull(strstr(o->err, "authentication"));
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
	if (start_reference_server("::1,6", &ref_server6, &ref_port6) < 0 ||
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
	tcase_add_test(self, banner_data_ports);
	tcase_set_timeout(self, 60);
	suite_add_tcase(s, self);
	tcase_set_timeout(diff, 90);
	tcase_add_loop_test(diff, differential, 0, NCASES);
	suite_add_tcase(s, diff);
	return s;
}

int
main(void)
{
	int rc = find_reference();

	if (rc != 0)
		return rc;
	if (start_reference_server("127.0.0.1,4", &ref_server, &ref_port) <
	    0) {
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
	stop_reference_server(ref_server);
	stop_reference_server(ref_server6);
	return rc;
}
