/*
 * Command lines of netperf and netserver, parsed strictly: a bad number, an
 * unknown option or a missing argument is an error, never a silent zero.
 */
#ifndef NP_CLI_H
#define NP_CLI_H

#include <net/if.h>
#include <stdint.h>
#include <stdio.h>

#include "np/acl.h"
#include "np/err.h"
#include "np/module.h"
#include "np/opt.h"

#define CLI_HOST_LEN 256
#define CLI_PATH_LEN 1024
#define CLI_WARN_MAX 8
#define CLI_BURST_MAX (1 << 20) /* global -b: sends a pacing burst */

struct netperf_opts {
	/* Global options, before "--". */
	char host[CLI_HOST_LEN];  /* -H; localhost, or ::1 with -6 */
	int host_family;	  /* from -H host,fam */
	char local[CLI_HOST_LEN]; /* -L, control local address */
	int port;		  /* -p port[,lport] */
	int lport;
	char test[32];		   /* -t */
	double duration;	   /* -l > 0 */
	int64_t count;		   /* -l < 0 */
	int local_cpu, remote_cpu; /* -c, -C */
	char fmt;		   /* -f; 0 until defaulted */
	int headers;		   /* -P */
	int verbosity;		   /* -v */
	char brand[128];	   /* -B */
	int family;		   /* -4, -6 */
	int debug;		   /* -d */
	int want_help, want_version;
	/* -t LOC_CPU: print what 2.7 called the local CPU rate, and stop;
	 * -t REM_CPU: netserver's. */
	int want_loc_cpu, want_rem_cpu;
	/* Set with an error that 2.7 treats as a usage error (exit 1): an
	 * unknown option, a missing value, an unknown test. */
	int usage_error;
	/* Set with an error that 2.7 refuses too, but with its exit(-1)
	 * (255): -I at a level other than 95 or 99. */
	int fatal_error;
	/* -T lcpu[,rcpu]: where netperf's and netserver's threads run. */
	char lcpu[64], rcpu[64];
	/* --streams N: parallel data connections. */
	int streams;
	int bidir; /* --bidir: both directions at once */
	/* --threads T: threads that run the streams on each end; 0 for the
	 * default (flows_default_threads). */
	int threads;
	/* -D secs[,units]: interim results every secs seconds (a negative
	 * value is accepted as netperf 2.6+ does and means its magnitude). */
	double interim;
	/* -i max,min and -I level,width: repeat until the confidence
	 * interval is this narrow; -r: judge the throughput only. */
	int iter_max, iter_min;
	int conf_level;
	double conf_width;
	int conf_result_only;
	/* -j: keep latency statistics. */
	int keep_stats;
	/* --wire[=IF]: count the data flow's packets on both sides; IF
	 * overrides the interface found from the route. */
	int wire;
	/* --sweep param=v1,v2,... and --plot FILE (.svg or .png). */
	char sweep[256];
	char plot[256];
	/* --ifstat IF: watch an interface's packet and byte rates. */
	char ifstat[IF_NAMESIZE];
	char wire_if[IF_NAMESIZE];
	/* --json (-J) and --json-stream. */
	int json, json_stream;
	/* --interim-tcp: with -D, both ends' TCP_INFO under each interim
	 * line (not at -v 2, whose lines are netperf 2.7's). */
	int interim_tcp;
	/* --auth KEYFILE; "" for NETPERF_AUTH_KEY, or no key at all. */
	char auth_file[CLI_PATH_LEN];
	/* netperf 2.7's other global letters: -a/-A alignments, -o/-O
	 * offsets, -W ring widths, -k/-K dirty and clean words (netperf's
	 * lbuf and netserver's rbuf); -S, -y, -Y socket options (lx, rx,
	 * also set by test options); -F fill file (fill_remote: a remote
	 * name was given, which is never sent); -s wait; -N no control
	 * connection; -w/-b pacing; -Z passphrase; -n is accepted and
	 * ignored, as 2.7 on Linux does. */
	struct module_bufs lbuf, rbuf;
	struct sock_extra lx, rx;
	char fill_file[CLI_PATH_LEN];
	int fill_remote;
	double wait;
	int no_control;
	double interval_ms;
	int interval_burst;
	/* Fast paths: --batch N, --udp-gso, --udp-gro, --zerocopy,
	 * --busy-poll USEC. */
	int batch;
	int udp_gso, udp_gro, zerocopy;
	/* Test-specific -V: receive with splice(2), both sides. */
	int splice;
	int busy_poll;
	/* --start-at TIME: CLOCK_REALTIME ns of the measured interval's
	 * start; 0 to start as soon as the test is set up. */
	int64_t start_at_ns;

	/* --legacy: speak netperf 2.7's control protocol (also chosen when
	 * netserver does not answer our hello). */
	int legacy;
	/* -Z: 2.7's passphrase, sent in plain text before the first test
	 * (the size of a 2.7 message's data, with its NUL). */
	char passphrase[648];
	/* Test-specific options, after "--". */
	int64_t send_size, rsend_size; /* -m l[,r]; 0 = default */
	int64_t recv_size, rrecv_size; /* -M r[,l] */
	int lsndbuf, lrcvbuf;	       /* -s */
	int rsndbuf, rrcvbuf;	       /* -S */
	int64_t req_size, rsp_size;    /* -r */
	int nodelay;		       /* -D */
	int burst;		       /* -b */
	double rto;		       /* -e secs, UDP_RR time-out */
	double rate; /* --rate bits/s (UDP_STREAM), transactions/s (RR) */
	int ldata_port, rdata_port;    /* -P l[,r] */
	char data_host[CLI_HOST_LEN];  /* -H */
	char data_local[CLI_HOST_LEN]; /* -L */
	int data_family;	       /* -4, -6 after "--" */
	int64_t mss;		       /* -G, TCP_MAXSEG; 0 = default */
	/* -o, -O, -k: structured output, 0 when none; the selector list
	 * as given ("" for netperf's default list). */
	char output_mode;
	char output_arg[8192];
	/* -u UUID (else one is made up), -I write(), -R routing (-1 when
	 * not given), -p CRR port range, -U retry connect. */
	char uuid[40];
	int use_write;
	int routing;
	int port_min, port_max;
	int retry_connect;
	/* -t OMNI: -d direction (NETPERF_XMIT 2 | NETPERF_RECV 4, 0 when
	 * not given), -T protocol, -t socket type, -c connection test. */
	int omni, omni_dir, omni_proto, omni_socktype, conn_test, omni_rr;
	/* -d was given (then -r no longer implies rr, as in 2.7), and the
	 * first word of it that 2.7 reads as 0, or "". */
	int omni_dir_set;
	char omni_dir_unknown[32];
	/* Where a value is read as netperf 2.7 reads it, which is probably
	 * not what was meant: one line each, for main to print on stderr. */
	char warn[CLI_WARN_MAX][ERR_LEN];
	int nwarn;
	/* The data sockets' transport: --mptcp or OMNI's -T mptcp; "" for
	 * the test's own. */
	char transport[16];
	/* --skip-rx-copy: the receivers read with MSG_TRUNC. */
	int skip_rx_copy;
	/* --io-uring: the data moves through io_uring (uring.c). */
	int io_uring;
	/* --one-way: each direction's delay (TCP_RR, UDP_RR). */
	int one_way;
	/* The open loop: --arrivals (and whether it was given), --timeout
	 * in seconds (0: none), --reconnect. */
	int arrivals, arrivals_set;
	double timeout;
	int reconnect;
	/* --interval-lines: with -D, one readable line per interval in
	 * place of netperf 2.7's "Interim result:" lines. */
	int interval_lines;
	/* --under-load up=N,down=N: bulk flows beside a second run of the
	 * RR test (underload.h); both 0 without it. */
	int load_up, load_down;
	/* --timestamps: split each round trip (TCP_RR, UDP_RR). */
	int timestamps;
	/* --search OBJECTIVE (search.h), "" without; --search-precision as
	 * a fraction, 0 for the default. */
	char search[64];
	double search_precision;
	/* -r's request mix (np/mix.h), n 0 for none; --mix-seed, which
	 * sets mix.seed (else drawn once per netperf run). */
	struct mix mix;
	int mix_seed_set;
};

/* netperf 2.7's direction bits (-d). */
#define CLI_DIR_XMIT 2
#define CLI_DIR_RECV 4

/*
 * Parses netperf's argv into o, starting from defaults. Returns 0, or -1
 * with err set to a one-line message naming the bad option or value.
 */
int cli_netperf_parse(int argc, char **argv, struct netperf_opts *o, char *err);

/*
 * Parses --start-at's TIME, Unix seconds with up to nine decimals or "+S"
 * seconds from now_ns, into CLOCK_REALTIME ns; a time not after now_ns or
 * more than an hour after it is an error. Returns 0, or -1 with err set.
 */
int cli_start_at(const char *arg, int64_t now_ns, int64_t *out, char *err);

/* netperf --merge [options] FILE... [-- -o|-O|-k [list]] */
struct merge_opts {
	int headers;	 /* -P */
	int verbosity;	 /* -v */
	int json;	 /* --json, -J */
	double max_skew; /* --max-skew SECS: warn above it */
	char mode;	 /* -o, -O, -k, or 0 */
	char list[1024]; /* their selector list, "" for the default */
	int nfiles;
	char **files; /* into argv */
	/* --plot FILE: the runs' intervals on one time axis; NULL none. */
	const char *plot;
};

/* Whether argv asks for --merge. */
int cli_is_merge(int argc, char **argv);

/* Parses a --merge command line; returns 0, or -1 with err set. The
 * caller frees o->files. */
int cli_merge_parse(int argc, char **argv, struct merge_opts *o, char *err);

/* Fills a test request from parsed options and the module's defaults. */
void cli_netperf_request(const struct netperf_opts *o, struct test_params *p);

struct netserver_opts {
	int port;		   /* -p, 12865 */
	char listen[CLI_HOST_LEN]; /* -L addr[,family]; "" = any */
	int family;		   /* -4, -6, or from -L */
	int foreground;		   /* -D */
	int nofork;		   /* -f */
	int debug;		   /* -d */
	double idle_timeout;	   /* --idle-timeout secs; 0 = default */
	int want_help, want_version;
	/* Service: --pidfile, --log FILE, --syslog, -u/--user. */
	char pidfile[CLI_PATH_LEN];
	char log[CLI_PATH_LEN];
	int syslog;
	char user[64];
	/* --metrics [ADDRESS:]PORT: the Prometheus endpoint; "" = none. */
	char metrics[CLI_HOST_LEN];
	/* Access: --auth-file or -Z passphrase (the key is derived from
	 * it), --allow (repeatable; empty allows all). */
	char auth_file[CLI_PATH_LEN];
	char passphrase[256];
	/* Serve netperf 2.7 clients too: on unless --no-legacy (--legacy
	 * is accepted and changes nothing); --legacy-passphrase FILE, the
	 * plaintext passphrase they must send first. */
	int legacy, no_legacy;
	char legacy_pass_file[CLI_PATH_LEN];
	struct acl allow;
	/* Limits; 0 keeps server_limits_default's value. */
	int max_sessions, max_per_addr, max_streams;
	double max_duration, accept_timeout;
	int64_t max_message, max_buffer;
	int64_t max_session_memory;	 /* --max-session-memory */
	double hello_timeout;		 /* --hello-timeout secs */
	double max_session_time;	 /* --max-session-time secs */
	int ipv6_prefix;		 /* --ipv6-prefix bits */
	int allow_privileged_ports;	 /* --allow-privileged-ports */
	double max_start_ahead;		 /* --max-start-ahead secs */
};

/* Parses netserver's argv into o; returns 0, or -1 with err set. */
int cli_netserver_parse(int argc, char **argv, struct netserver_opts *o,
			char *err);

/* The option tables: netperf's before "--", its test options after it,
 * and netserver's; tests hold them against the man pages. */
extern const struct opt_table cli_netperf_options, cli_test_options,
    cli_netserver_options;

/* Writes netperf's usage text, made from its two tables, to out. */
void cli_netperf_usage(FILE *out);

/* Writes netserver's usage text, made from its table, to out. */
void cli_netserver_usage(FILE *out);

/* Parses a family word: 4/inet, 6/inet6, 0/unspec; returns 0, or -1. */
int cli_family(const char *s, int *family, char *err);

#endif
