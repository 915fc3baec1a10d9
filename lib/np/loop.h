/* The data loops (one family a file: stream.c, rr.c, rr_open.c, udp_crr.c)
 * and the helpers they share. */
#ifndef NP_LOOP_H
#define NP_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "np/test_ctx.h"
#include "np/test_params.h"

/* The loops, one family a file. */
int stream_send(struct test_ctx *ctx);
int stream_recv(struct test_ctx *ctx);
int rr_client(struct test_ctx *ctx);
int rr_server(struct test_ctx *ctx);
int udp_stream_send(struct test_ctx *ctx);
int udp_stream_recv(struct test_ctx *ctx);
int udp_rr_client(struct test_ctx *ctx);
int udp_rr_server(struct test_ctx *ctx);
int crr_client(struct test_ctx *ctx);
int crr_server(struct test_ctx *ctx);
int udp_crr_client(struct test_ctx *ctx);
int udp_crr_server(struct test_ctx *ctx);
int cc_client(struct test_ctx *ctx);
int cc_server(struct test_ctx *ctx);
int mss_client(struct test_ctx *ctx);
/* The open loop of TCP_RR and UDP_RR's clients (rr_open.c). */
int rr_open_client(struct test_ctx *ctx);
int udp_rr_open_client(struct test_ctx *ctx);
/* The open loop of a loop with one transaction at a time (TCP_CRR):
 * rr_pacer_new gives one for ctx (NULL without memory); rr_pacer_next
 * waits for the next request's intended send time and returns it, or 0
 * when the test ends first; rr_pacer_done counts the transaction it
 * began as answered at now (a time-out past --timeout), and
 * rr_pacer_failed counts a connection error in its place. */
struct rr_pacer;
struct rr_pacer *rr_pacer_new(struct test_ctx *ctx);
uint64_t rr_pacer_next(struct rr_pacer *pc);
void rr_pacer_done(struct rr_pacer *pc, uint64_t now);
void rr_pacer_failed(struct rr_pacer *pc);
void rr_pacer_free(struct rr_pacer *pc);

/* A UDP client's receive time-out: -e's fixed one, or TCP's rule (srtt +
 * 4 rttvar, within 20 ms and 3 s; 1 s before any answer). */
struct module_rto {
	double srtt, rttvar;
	uint64_t ns; /* the time-out now */
	int fixed;
};

/* Starts t at rto seconds (-e), or adaptive when rto is 0. */
void module_rto_init(struct module_rto *t, double rto);

/* Takes an answer's round trip of rtt ns into t; a fixed one stays. */
void module_rto_sample(struct module_rto *t, uint64_t rtt);

/* The largest UDP payload over IPv4: 65535 - 8 (UDP) - 20 (IP). */
#define MODULE_UDP_MAX 65507
/* UDP_STREAM's per-datagram header: sequence number and send time,
 * each 64 bits big-endian (be.h). */
#define MODULE_UDP_HDR 16

/* Ends a netserver loop that has no end of its own (UDP, CRR) when the
 * client's "stop" message is waiting on the control socket; returns 1
 * when it is. */
int module_stop_requested(struct test_ctx *ctx);

/*
 * UDP: the datagram of n bytes at p is the test's token, which the client
 * sends again until it hears it echoed (the first echo may be lost).
 * Returns 1 when it is, having echoed it once more when echo is set
 * (netserver's side); it is never data. Returns 0 otherwise.
 */
int module_udp_token(struct test_ctx *ctx, const char *p, size_t n,
		     int echo);

/* UDP_RR tags each request with up to 8 bytes of its sequence number
 * (be.h's ben_put); the server echoes them, so a late answer to a request
 * given up on is never taken for the answer to a newer one. None for
 * netperf 2.7's netserver, which answers from a buffer of its own: any
 * answer then completes the oldest request in flight. Returns the tag's
 * length for ctx's sizes. */
size_t module_udp_tag_len(const struct test_ctx *ctx);

/* The TCP congestion control of fd (or, when fd is closed, the one p asks
 * for on that side, else the system's default) into out. */
void module_cong_of(int fd, const struct test_params *p, int is_server,
		    char *out, size_t cap);

/* Sends a UDP client's end markers on its data socket. */
void module_udp_end(struct test_ctx *ctx);

#endif
