/*
 * --under-load: an RR test's round trip measured twice in one control
 * session, alone (idle) and then beside bulk TCP flows (loaded), as
 * flent's RRUL and the IETF responsiveness test measure bufferbloat.
 *
 * The loaded phase is one request of the RR test with 1 + up + down
 * streams: stream 0 is the probe, streams 1..up are bulk flows from
 * netperf to netserver (TCP_STREAM's loops), the next down are bulk flows
 * the other way (TCP_MAERTS's). Each end gives a stream its role from its
 * index alone (underload_role), as --bidir gives a reversed stream.
 */
#ifndef NP_UNDERLOAD_H
#define NP_UNDERLOAD_H

#include <stdio.h>

#include "np/module.h"

struct result;

/* A stream's part in the loaded phase. */
enum underload_role {
	UNDERLOAD_PROBE, /* the test's own loop (every stream without load) */
	UNDERLOAD_UP,	 /* bulk, netperf -> netserver */
	UNDERLOAD_DOWN,	 /* bulk, netserver -> netperf */
};

/* The most bulk flows each way. */
#define UNDERLOAD_MAX 256

/* The figures of --under-load, computed once for every output form.
 * Latencies in microseconds; -1 where there was nothing to measure. */
struct underload {
	int up, down; /* bulk flows each way */
	double idle_p50, idle_p99;
	double loaded_p50, loaded_p99;
	double idle_rate, loaded_rate; /* the probe's transactions/s */
	double ratio;		       /* loaded P50 / idle P50 */
	double added_ms;	       /* loaded P50 - idle P50, in ms */
	/* The bulk flows' goodput while the probe ran, 10^6 bits/s, as
	 * each flow's receiver counted it; total is their sum. */
	double up_mbps, down_mbps, total_mbps;
	/* Round trips per minute: 60 s over the 95 %-trimmed mean of the
	 * probe's round trips (underload_rpm), idle and loaded. */
	double idle_rpm, loaded_rpm;
};

/*
 * Parses --under-load's SPEC: "up=N", "down=N" or both, separated by
 * ',' (each at most once, N in 0..UNDERLOAD_MAX, at least one flow in
 * all). Returns 0, or -1 with err naming the problem.
 */
int underload_parse(const char *spec, int *up, int *down, char *err);

/* Stream i's role in a test asking for p->load_up and p->load_down bulk
 * flows (UNDERLOAD_PROBE for every stream of a test without). */
int underload_role(const struct test_params *p, int i);

/* Where the probe beside bulk flows starts counting its round trips, its
 * loop having started at t0: a quarter of -l in, once the flows have
 * filled the path, as the responsiveness draft measures under working
 * conditions; a closed-loop probe makes thousands of fast round trips
 * while the queue is still empty, which would outweigh the slow ones that
 * follow. 0 for any other stream and test. */
uint64_t underload_warm_ns(const struct test_ctx *ctx, uint64_t t0);

/* The test whose sockets and loops a stream of this role has: m for the
 * probe, TCP_STREAM for a bulk flow. */
const struct test_module *underload_module(const struct test_module *m,
					   int role);

/* Whether p's load makes a test of m open sockets of two types: a UDP
 * probe (UDP_RR) beside the bulk flows' TCP. */
int underload_mixed(const struct test_module *m, const struct test_params *p);

/* The loop that runs a bulk role on one side (is_server: netserver's). */
module_loop_fn underload_loop(int role, int is_server);

/* Whether test m can carry p's bulk flows (a request/response test over
 * one connection or socket a stream, timed, 1 + up + down streams, no
 * --wire or --bidir); returns 0, or -1 with err set. A request without
 * load always passes. */
int underload_check(const struct test_module *m, const struct test_params *p,
		    char *err);

/* The coordinator's reading at the probe's end: each bulk stream's
 * delivered bytes (side_result.load_bytes) from its TCP_INFO. */
void underload_snapshot(const struct module_run *run);

/* Grows *each, the buffer a netserver stream gets, to what a bulk flow
 * of r's send and receive sizes needs, when p asks for load. */
void underload_server_buffer(const struct test_params *p,
			     const struct side_result *r, int64_t *each);

/* 60 s over the mean of the histogram's values at or below its 95th
 * percentile, in round trips per minute; 0 when it is empty. */
double underload_rpm(const struct stats_hist *h);

/* Derives u from the idle run and the loaded run, both computed. */
void underload_compute(const struct result *idle, const struct result *loaded,
		       struct underload *u);

/* The readable block of the default output. */
void underload_print(FILE *out, const struct underload *u);

#endif
