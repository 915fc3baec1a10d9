/*
 * netserver's interim reports (-D on a TCP test), as netperf takes them:
 * read from the control connection between netperf's own intervals
 * without disturbing the test, checked, and paired with netperf's interval
 * of the same number.
 */
#ifndef NP_INTERIM_H
#define NP_INTERIM_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "np/err.h"
#include "np/tcpinfo.h"

/* How far ahead of netperf's interval netserver's reports may be: their
 * starts differ by the go message's trip and netperf's setting up its
 * threads, and their wake-ups by the schedulers', so by some intervals,
 * or for short ones by some time. Beyond that a report is one more than
 * was asked for. */
#define INTERIM_AHEAD 4
#define INTERIM_AHEAD_SEC 2.0
/* Reports kept for pairing: one further ahead than this goes unpaired. */
#define INTERIM_RING 64
/* The largest interim message taken; one is some 600 bytes. */
#define INTERIM_MSG_MAX 4096

struct interim_peer {
	int fd;	       /* the control connection */
	int asked;     /* the request asked for reports */
	int streams;   /* connections a report may merge */
	int64_t ahead; /* how far ahead a report's number may be */
	int64_t last;  /* the last report's number, -1 before the first */
	int64_t local; /* netperf's interval to pair next */
	/* The next message is another (results, error): none is read
	 * during the test after it. */
	int other;
	int failed; /* err says why */
	char err[ERR_LEN];
	struct {
		int64_t n;
		struct tcpinfo t;
	} ring[INTERIM_RING];
	struct tcpinfo found;
};

/* Starts reading fd's reports for a test of streams connections, every
 * interval seconds, when asked (else any report is an error). */
void interim_peer_init(struct interim_peer *ip, int fd, int asked, int streams,
		       double interval);

/*
 * netserver's report for netperf's interval n (the boundary's number,
 * module_run's interim_k), waiting for it at most wait_ns (or until
 * *stop); NULL when it did not come, or reading failed (ip->failed,
 * ip->err). Never reads anything but whole interim messages.
 */
const struct tcpinfo *interim_peer_match(struct interim_peer *ip, int64_t n,
					 uint64_t wait_ns,
					 volatile sig_atomic_t *stop);

/* A report read after the test, on the way to the results (a
 * session_skip_fn on an interim_peer): 0 when it is in order, -1 with err
 * set otherwise. */
int interim_peer_skip(void *arg, const json_t *msg, char *err);

#endif
