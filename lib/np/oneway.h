/*
 * Which way a request/response test's time and losses went: --one-way's
 * delay in each direction, from send and receive times carried in the
 * payload, with iperf2's check that the two hosts' clocks agree; and
 * UDP_RR's and UDP_CRR's lost transactions split into requests that
 * never reached netserver and answers that never reached netperf.
 */
#ifndef NP_ONEWAY_H
#define NP_ONEWAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "np/stats.h"

struct result;
struct test_ctx;
struct test_module;
struct test_params;

/*
 * Where the stamps sit, as 64-bit big-endian CLOCK_REALTIME nanoseconds:
 * a request carries its send time after UDP_RR's 8-byte tag; the answer
 * keeps it and adds netserver's receive and send times.
 */
#define ONEWAY_T1_OFF 8
#define ONEWAY_T2_OFF 16
#define ONEWAY_T3_OFF 24
#define ONEWAY_REQ_MIN 16
#define ONEWAY_RSP_MIN 32

/* The clock the stamps are read from, as the reports name it. */
#define ONEWAY_CLOCK_NAME "CLOCK_REALTIME"

/* One stream's (or, merged, a test's) one-way account. */
struct oneway {
	struct stats_hist out, in; /* ns; a negative delay counts as 0 */
	uint64_t n;		   /* answers that carried the stamps */
	/* Transactions whose four times were out of order: client send <
	 * server receive <= server send < client receive. */
	uint64_t bad;
	/* The smallest delay measured each way, ns; may be negative when
	 * the clocks disagree. INT64_MAX while none. */
	int64_t min_out, min_in;
	/* The largest step back of one host's own clock within a
	 * transaction (server receive to send, client send to receive). */
	int64_t own_back;
};

/* Empties w. */
void oneway_init(struct oneway *w);

/* Adds src's counts into dst. */
void oneway_merge(struct oneway *dst, const struct oneway *src);

/* netperf: writes the send time into a request of at least
 * ONEWAY_REQ_MIN bytes, just before it is sent. */
void oneway_stamp_request(char *buf);

/* netserver: writes the receive time into the answer being built (a
 * buffer of at least ONEWAY_RSP_MIN bytes), as the request is read. */
void oneway_stamp_received(char *buf);

/* netserver: writes the send time into the answer, just before it goes. */
void oneway_stamp_reply(char *buf);

/* netperf: takes an answer of n bytes just received; one too short to
 * carry the stamps is passed over. */
void oneway_answer(struct oneway *w, const char *buf, size_t n);

/* Whether --one-way can run test m with requests of req bytes and
 * answers of rsp: 0, or -1 with a one-line err saying why not. */
int oneway_refuses(const struct test_module *m, int64_t req, int64_t rsp,
		   char *err);

/* The check of the clocks: 1 when every transaction's times were in
 * order (and there was one), else 0. */
int oneway_valid(const struct oneway *w);

/* The server clock's offset from the client's that the measured delays
 * allow, ns: it lies in [*lo, *hi]; with a failed check, the interval
 * is empty or the worst violation is its bound. */
void oneway_offset_bound(const struct oneway *w, double *lo, double *hi);

/* A one-line warning of a failed check into msg (naming the clock, the
 * bound on the offset and that NTP or PTP is needed); returns 0 when the
 * check passed (msg ""), -1 when it failed. */
int oneway_verdict(const struct oneway *w, char *msg, size_t cap);

/* A one-way figure of res in microseconds: direction 0 outbound
 * (netperf to netserver), 1 inbound; pct the percentile. Returns -1 when
 * not measured or when the clock check failed. */
double oneway_latency_us(const struct result *res, int inbound, double pct);

/* Loss direction: UDP_RR's and UDP_CRR's requests that never reached
 * netserver and answers that never reached netperf; returns 0, or -1
 * when not measured (another test, an older or 2.7 netserver). */
int oneway_lost(const struct result *res, uint64_t *requests,
		uint64_t *responses);

/* -v 2's block: the lost requests and answers (UDP_RR, UDP_CRR), and
 * --one-way's delays each way with the clock check. Prints nothing when
 * neither was measured. */
void oneway_report(FILE *out, const struct result *res);

/* The JSON document's "one_way" object of res: the clock, the check, the
 * bound on the offset and each direction's delays in microseconds (null
 * when the check failed); json null without --one-way, NULL without
 * memory. */
json_t *oneway_json(const struct result *res);

/* Loss direction for the JSON document: the count, or json null when not
 * measured; responses 1 for the answers, 0 for the requests. */
json_t *oneway_json_lost(const struct result *res, int responses);

/*
 * Loss direction per interval (-D on UDP_RR): netserver writes its count
 * of the requests it has received on the stream so far, this one among
 * them, into each answer, ONEWAY_COUNT_LEN bytes big-endian at
 * oneway_count_off. The answer to request t carrying count c shows that
 * t - c of the requests up to t never reached netserver (tags count
 * from 1), as soon as that answer arrives.
 */
#define ONEWAY_COUNT_LEN 8

/* Whether -D on test m with params p splits each interval's losses
 * (UDP_RR's and UDP_CRR's closed loop on a thread a stream): 1 or 0.
 * UDP_CRR's client counts its own requests in place of the tag. */
int oneway_splits_intervals(const struct test_module *m,
			    const struct test_params *p);

/* Where the count sits in an answer under p (past --one-way's stamps),
 * or 0 when p does not ask for it or the sizes leave no room. */
size_t oneway_count_off(const struct test_params *p);

/* netperf: an answer in time to the request tagged tag, n bytes in buf;
 * updates ctx's lost_req and lost_all for the interval reader. */
void oneway_lost_answer(struct test_ctx *ctx, uint64_t tag, const char *buf,
			size_t n);

/* The same, with unanswered the requests given up on so far and never
 * answered since (UDP_CRR's, whose lost count holds handshakes too). */
void oneway_lost_seen(struct test_ctx *ctx, uint64_t tag, const char *buf,
		      size_t n, uint64_t unanswered);

/* The tail's share of the losses once the totals are known: sets the
 * last interval of res (a partial one) so that the intervals add up to
 * oneway_lost's totals; returns 0, or -1 when res has no split
 * intervals or no totals. */
int oneway_lost_tail(struct result *res);

#endif
