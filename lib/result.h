/*
 * A test's outcome: both sides' accounts merged, and the figures derived
 * from them (throughput, utilisation, service demand) computed once here so
 * every output format prints the same numbers.
 */
#ifndef NP_RESULT_H
#define NP_RESULT_H

#include "module.h"
#include "sock.h"
#include "stats.h"
#include "units.h"

struct result {
	const struct test_module *m;
	struct test_params p;
	struct side_result local, remote;
	int local_cpu, remote_cpu; /* -c and -C were given */
	char fmt;		   /* -f letter */
	int family;		   /* of the data connection */
	char local_addr[SOCK_ADDR_LEN], remote_addr[SOCK_ADDR_LEN];
	char local_name[256], remote_name[256]; /* as given, or resolved */
	struct stats_hist *hist; /* netperf's per-operation latency */

	/* Derived by result_compute. */
	double elapsed;	     /* of the side whose count is the headline */
	double thruput;	     /* in units of fmt, per second */
	double trans_rate;   /* transactions/s (RR) */
	double send_thruput; /* UDP_STREAM: what netperf offered, fmt/s */
	uint64_t lost;	     /* UDP_STREAM datagrams or UDP_RR transactions */
	double loss_pct;     /* of those sent, 0..100 */
	double local_util, remote_util; /* machine-wide %, -1 unmeasured */
	double local_sd, remote_sd;	/* service demand, -1 unmeasured */
	int local_ncpu, remote_ncpu;
};

/* Derives the headline figures from the two sides' counts. */
void result_compute(struct result *res);

/* "us/KB" for streams (and RR under a byte -f), "us/Tr" for RR. */
const char *result_sd_units(const struct result *res);

/* Releases what a result holds. */
void result_free(struct result *res);

#endif
