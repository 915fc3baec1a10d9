/*
 * A test's outcome: both sides' accounts merged, and the figures derived
 * from them (throughput, utilisation, service demand) computed once here so
 * every output format prints the same numbers.
 */
#ifndef NP_RESULT_H
#define NP_RESULT_H

#include "np/module.h"
#include "np/oneway.h"
#include "np/platform.h"
#include "np/sock.h"
#include "np/stats.h"
#include "np/units.h"
#include "np/wire.h"

struct tstamp_result;

/* The two sides of a test, the index of struct result's side[]. */
enum { RESULT_LOCAL, RESULT_REMOTE, RESULT_NSIDES };

/* What one side says of itself: printed in JSON and -v 2. */
struct result_env {
	char hostname[256];
	char kernel[256];    /* uname -srm */
	char cpu_model[128]; /* /proc/cpuinfo's "model name" */
	int ncpu;	     /* online CPUs */
	char program[64];    /* "netperf 3.0.0" */
};

/* Where one side's test threads ran. */
struct result_place {
	char requested[64]; /* -T as given, "" when not bound */
	char cpus[256];	    /* the CPUs bound to, "" when unbound */
	int cpu_actual;	    /* where the thread ran at the end, -1 */
	int numa;	    /* its NUMA node, -1 unknown */
	int nic_local;	    /* 1 local to the NIC, 0 not, -1 unknown */
	char note[160];
};

/* One interim result (-D): the headline figure over one interval. */
struct result_interim {
	double value;	    /* in the result's units */
	double interval;    /* seconds it covers */
	double ending;	    /* wall-clock time it ended, seconds */
	double since_start; /* seconds from the test's start to its end */
	/* netperf's data connections over the interval: counters as what
	 * they added, states as read at its end; n 0 when not TCP. */
	struct tcpinfo tcpi;
	/* netserver's, from its report of the same interval; n 0 when
	 * none came. */
	struct tcpinfo rtcpi;
	uint64_t count;	    /* bytes or transactions moved in it */
	int64_t ending_ns;  /* its end, CLOCK_REALTIME ns (UTC) */
	/* The tail: what the streams did after the last whole interval,
	 * reported when they ended (interval shorter than -D's). */
	int partial;
	/* RR: netperf's latency over the interval in microseconds, from
	 * the histogram of the round trips timed in it (lat_count); -1
	 * when none were. */
	double p50, p99, p999;
	uint64_t lat_count;
	/* --streams: each stream's figure over the interval, in the
	 * result's units (nstreams of them, owned); NULL for one. */
	int nstreams;
	double *stream;
	/* The open loop's time-outs and connection errors in the interval
	 * (the TIMEOUTS and ERRORS counted in it), and the streams active
	 * in it (module_interval's flows); 0, 0 and the streams when the
	 * runner said nothing. */
	uint64_t timeouts, errors;
	int flows;
	/* UDP_RR and UDP_CRR: the late answers counted in the interval
	 * (module_interval's late); 0 when the runner said nothing. */
	uint64_t late;
	/* A request mix: each class's transactions, time-outs, late
	 * answers and latency over the interval (nclasses of them, owned);
	 * NULL without one. */
	int nclasses;
	struct result_class_iv {
		uint64_t count, lat_count, timeouts, late;
		double p50, p99, p999; /* us, -1 when none timed */
	} *classes;
	/* -D on UDP_RR: the requests that never reached netserver and
	 * the answers that never reached netperf, found in the interval
	 * (the tail's set from the totals, oneway_lost_tail, so that the
	 * intervals add up to them); lost_split 0 when not measured. */
	int lost_split;
	int64_t lost_req, lost_rsp;
};

/* Repeated runs (-i, -I): the means and how wide their intervals are. */
struct result_confidence {
	int iterations; /* runs averaged, 1 when not repeating */
	int level;	/* 95 or 99 */
	double width;	/* requested full width, percent of mean */
	/* Achieved full widths in percent of the mean; -1 when not
	 * measured (CPU without -c/-C). */
	double thruput, local_cpu, remote_cpu;
	int met; /* every measured width <= width */
};

/* One run's figures, kept for each iteration of -i/-I so a result can be
 * compared as samples (--compare), not only as a mean. */
struct result_sample {
	double thruput;		   /* in the result's units */
	double trans_rate;	   /* transactions/s (RR), else 0 */
	double elapsed;		   /* seconds */
	double local_util, remote_util; /* %, -1 unmeasured */
	double local_sd, remote_sd;	/* -1 unmeasured */
	double p50, p99, p999;		/* us, -1 without a histogram */
	double loss_pct;
};

/* Latency in microseconds, from the histogram; all 0 when none. */
struct result_latency {
	uint64_t count;
	double min, max, mean, stddev;
	double p50, p90, p99, p999, p9999;
};

/* --bidir: one direction's figures, from its streams alone. */
struct result_dir {
	double thruput;	    /* received, in units of fmt per second */
	double elapsed;	    /* the receivers' longest interval */
	uint64_t bytes;	    /* received */
	uint64_t sent, got; /* UDP: datagrams sent and received once */
	uint64_t lost;	    /* UDP: sent but never received */
	double loss_pct;
	/* UDP: its receivers' duplicates and reorderings, and the largest
	 * of their jitters, seconds. */
	uint64_t dups, reordered;
	double jitter;
};

/* The two directions of a --bidir test, each named by the side that
 * sends it. */
enum { RESULT_L2R = RESULT_LOCAL, RESULT_R2L = RESULT_REMOTE };

/* One side's part of a result: netperf's (RESULT_LOCAL) or netserver's. */
struct result_side {
	/* Its counts, summed over all streams. */
	struct side_result sum;
	/* With --streams: each stream's own counts (CPU is in the sum). */
	struct side_result *stream;
	int cpu_wanted;		  /* -c (local) or -C (remote) was given */
	char addr[SOCK_ADDR_LEN]; /* of its end of the data connection */
	char name[256];		  /* as given, or resolved */
	struct result_env env;
	struct result_place place;
	struct wire_report wire;
	/* Its machine, read after its measured interval. */
	struct platform platform;

	/* Derived by result_compute. */
	double util; /* machine-wide %, -1 unmeasured */
	double sd;   /* service demand, -1 unmeasured */
	int ncpu;
	/* The busiest CPU and its utilisation, -1 unmeasured; on a
	 * many-core host this is the figure that saturates first. */
	int peak_id;
	double peak;
};

struct underload;

struct result {
	const struct test_module *m;
	struct test_params p;
	struct result_side side[RESULT_NSIDES];
	int nstreams; /* how many each side's stream[] holds, 0 for none */
	char fmt;		   /* -f letter */
	int family;		   /* of the data connection */
	/* Where a named endpoint is (a Unix socket's directory), from
	 * netserver's ready; "" for a host and port. */
	char data_at[SOCK_ADDR_LEN];
	/* netperf's per-operation latency, all streams merged. */
	struct stats_hist *hist;
	/* --one-way: the delays each way, all streams merged; NULL
	 * without it. */
	struct oneway *oneway;
	struct result_interim *interim;
	int ninterim, interim_cap;
	struct result_confidence conf;
	/* The remote side was a netperf 2.7 netserver: it gives no TCP_INFO
	 * figures (MSS), placement, environment or platform record. */
	int legacy;
	/* Every run's figures (-i), in order; one for a plain run. */
	struct result_sample *samples;
	int nsamples;
	char uuid[40];
	char command_line[1024];
	char brand[128]; /* -B, for RESULT_BRAND */

	/* Derived by result_compute. */
	double elapsed;	     /* of the side whose count is the headline */
	double thruput;	     /* in units of fmt, per second */
	double trans_rate;   /* transactions/s (RR) */
	double send_thruput; /* UDP_STREAM: what netperf offered, fmt/s;
			      * --bidir: what both hosts offered */
	uint64_t lost;	     /* UDP_STREAM datagrams or UDP_RR transactions */
	double loss_pct;     /* of those sent, 0..100 */
	/* The receivers of the datagrams whose order and timing are
	 * measured (netserver's for UDP_STREAM, netperf's otherwise; both
	 * directions' under --bidir): duplicates and reorderings summed,
	 * the largest jitter, seconds. */
	uint64_t dups, reordered;
	double jitter;
	struct result_latency lat;
	/* Jain's fairness index over the streams' throughput, 1 for one. */
	double fairness;
	/* --bidir: netperf to netserver, and back; thruput is their sum. */
	struct result_dir dir[2];
	/* The open loop (--rate): netperf's service times, from each
	 * request's actual send (hist counts from its intended send time),
	 * or NULL; and their figures, derived by result_compute. */
	struct stats_hist *svc_hist;
	struct result_latency svc;
	/* --under-load: the probe idle (this result) against the probe
	 * beside bulk flows; NULL without it. */
	struct underload *load;
	/* --timestamps: both sides' parts of the round trip (tstamp.c), or
	 * NULL; with -i, the last run's. */
	struct tstamp_result *tstamp;
	/* Flows on threads (--threads): seconds netperf took to open every
	 * data connection, apart from the measured interval; and the flows'
	 * smallest, median and largest figures in the headline's units. */
	double setup_sec;
	double flow_min, flow_median, flow_max;
	/* A request mix (p.mix.n > 0): each class's account over all
	 * streams, netperf's side, and its round trips' histogram, p.mix.n
	 * of each; NULL without one. */
	struct mix_acct *mix;
	struct stats_hist *mix_hist;
};

/* The mean round trip in microseconds implied by the transaction rate
 * (netperf's RT_LATENCY), or -1 for a stream test. */
double result_rt_latency(const struct result *res);

/* The headline figure of one stream's counts, in the result's units. */
double result_stream_thruput(const struct result *res, int i);

/* Derives the headline figures from the two sides' counts. */
void result_compute(struct result *res);

/* "us/KB" for streams (and RR under a byte -f), "us/Tr" for RR. */
const char *result_sd_units(const struct result *res);

/* Service demand is per transaction (RR under -f x), not per KB: the one
 * decision behind the tables' "us/Tr" and the selectors' "usec/Tran". */
int result_sd_per_trans(const struct result *res);

/* netperf 2.7's letter for how side's CPU was measured: S (/proc/stat),
 * or U when it was not. */
char result_cpu_method(const struct result *res, int side);

/* "local" or "remote": a side's name in the reports and JSON keys. */
const char *result_side_name(int side);

/* Describes this host: name, kernel, CPU model and count, program. */
void result_env_self(struct result_env *e, const char *program);

/* The headline figures of a computed result as one sample. */
void result_sample_of(const struct result *res, struct result_sample *s);

/*
 * Sanity-checks every figure netserver reported (its side's sum, each
 * of its streams, its CPU) against what cannot be otherwise: a test takes
 * time, but no longer than the span seconds the whole exchange took here;
 * no count grows faster than RESULT_MAX_PER_SEC; what one side received
 * is what the other sent. Returns 0, or -1 with err naming the field that
 * is implausible and why.
 */
int result_check_remote(const struct result *res, double span, char *err);

/* A rate no count of a test reaches: 10^12 a second (8 Tbit/s of bytes). */
#define RESULT_MAX_PER_SEC 1e12

/* Releases what a result holds. */
void result_free(struct result *res);

#endif
