/* The open loop of the RR clients (--rate, --arrivals, --timeout,
 * --reconnect); the loops themselves are declared in np/loop.h. */
#ifndef NP_RR_OPEN_H
#define NP_RR_OPEN_H

#include <stddef.h>
#include <stdint.h>

struct result;

/*
 * What a finished open-loop test has to say: into warn (cap bytes) why
 * the achieved rate fell under 99 % of the offer, and into fail the
 * connection errors and the streams they ended. Returns a mask: 1 when
 * warn was written, 2 when fail was (the test then exits non-zero); 0
 * when neither.
 */
int rr_open_notes(const struct result *res, char *warn, char *fail, size_t cap);

/* netserver went away after the test's streams ran: appends to err (an
 * ERR_LEN buffer saying so) the connection errors netperf's streams
 * counted in res's local sum, when there were any. */
void rr_open_peer_gone(const struct result *res, char *err);

/*
 * The open loop of flows on threads (flows.c): each flow's own arrivals
 * and in-flight requests in a pacer that never waits, and one waiter a
 * thread for the earliest intended send time of its flows.
 */
struct rr_pacer;
struct rr_waiter;
struct test_ctx;
struct stats_hist;

/* A pacer for ctx with depth requests in flight at most, its latencies
 * into hist and svc_hist, and with a mix each class's into mix_hist (its
 * thread's; any may be NULL); NULL without memory. rr_pacer_free frees
 * it. */
struct rr_pacer *rr_pacer_flow(struct test_ctx *ctx, int depth,
			       struct stats_hist *hist,
			       struct stats_hist *svc_hist,
			       struct stats_hist *mix_hist);

/* A mix: draws the class of the flow's next request, counts it in the
 * flow's classes and writes its class byte into buf after a tag of
 * taglen bytes; returns the class (0 without a mix). Call it before the
 * request's rr_pacer_sent, which records the class with the request. */
int rr_pacer_pick(struct rr_pacer *pc, char *buf, size_t taglen);

/* The intended send time of the flow's next request (now or before:
 * due), or UINT64_MAX when it may send none (in flight to its depth, or
 * the test is over for new requests). */
uint64_t rr_pacer_due(const struct rr_pacer *pc, uint64_t now);

/* The flow's requests in flight. */
int rr_pacer_inflight(const struct rr_pacer *pc);

/* A request went at now: its intended time is taken, the next drawn. */
void rr_pacer_sent(struct rr_pacer *pc, uint64_t now);

/* The oldest request in flight was answered at now: a transaction, from
 * its intended time into hist and from its send into svc_hist (a time-out
 * past --timeout). */
void rr_pacer_answered(struct rr_pacer *pc, uint64_t now);

/* The oldest request in flight was given up on: a time-out with
 * --timeout, else lost. */
void rr_pacer_lost(struct rr_pacer *pc);

/* The same for the request i of those in flight, in the order they were
 * sent with the last moved into a removed one's place (UDP_RR's answers,
 * which come in any order): answered at now, or given up on. Use these
 * or the two above for a pacer, not both. */
void rr_pacer_answered_at(struct rr_pacer *pc, int i, uint64_t now);
void rr_pacer_lost_at(struct rr_pacer *pc, int i);

/* A waiter for a thread whose sends come gap_ns apart on average (0: no
 * pace), with the calling thread's timer slack made 1 ns; NULL without
 * memory. Free it with free(). */
struct rr_waiter *rr_waiter_new(double gap_ns);

/* Waits until t, or until fd (-1: none) is readable: sleeps to a little
 * before t, then spins. Returns 1 when fd is readable, 0 otherwise (t
 * reached, or a nap of 20 ms done). */
int rr_waiter_wait(struct rr_waiter *w, int fd, uint64_t t);

#endif
