/*
 * netperf's side where the peer is no netserver of ours: netperf 2.7's
 * control protocol (--legacy, or a 2.7 netserver found by the probe) and
 * -N's standard services at the data port.
 */
#ifndef NP_CLIENT_LEGACY_H
#define NP_CLIENT_LEGACY_H

#include <signal.h>

#include "np/client.h"
#include "np/streams.h"

/* Which netserver answers on c's control connection: 1 for ours, 0 for a
 * 2.7 netserver, or -1 with err set. */
int client_legacy_probe(struct client *c, char *err);

/* Connects to a 2.7 netserver (-Z's passphrase first); keeps c's -F
 * bytes. Returns 0, or -1 with err set. */
int client_legacy_open(struct client *c, const struct netperf_opts *o,
		       char *err);

/* One test with a 2.7 netserver into res; returns 0, or -1 with err
 * set (an option it cannot honour is refused). */
int client_legacy_test(struct client *c, const struct netperf_opts *o,
		       struct result *res, volatile sig_atomic_t *stop,
		       char *err);

/* REM_CPU from a 2.7 netserver; returns 0, or -1 with err set. */
int client_legacy_cpu_rate(struct client *c, const struct netperf_opts *o,
			   double *rate, int *ncpu, char *err);

/* -N: no control connection, the peer -H's first address. Returns 0, or
 * -1 with err set. */
int client_nocontrol_open(struct client *c, const struct netperf_opts *o,
			  char *err);

/* -N's test against a standard service; returns 0, or -1 with err
 * set. */
int client_nocontrol_test(struct client *c, const struct netperf_opts *o,
			  struct result *res, volatile sig_atomic_t *stop,
			  char *err);

/* client.c's, for the sides above. */

/* The control connection to -H and -p, from -L; returns 0, or -1 with
 * err set and c->unreached. */
int client_connect_control(struct client *c, const struct netperf_opts *o,
			   char *err);

/* The one stream of a test whose peer runs none of our loops, in set;
 * returns 0, or -1 with err set. */
int client_one_stream(struct client *c, struct result *res,
		      struct streams *set, char *err);

/* Our loop for that stream on a data connection to port, nothing of ours
 * on the wire; returns 0, or -1 with err set. */
int client_run_untagged(struct client *c, const struct netperf_opts *o,
			struct result *res, int port, struct streams *set,
			volatile sig_atomic_t *stop, char *err);

#endif
