/* UDP_CRR's server, as the flows on threads (flows.c) share it: a
 * datagram served from the senders whose token it echoed. */
#ifndef NP_UDP_CRR_H
#define NP_UDP_CRR_H

#include <stddef.h>
#include <sys/socket.h>

struct test_ctx;

/* The senders whose token was echoed and whose request is awaited: cap
 * slots (len 0: free), the oldest given up first (next). */
struct udp_crr_pending {
	struct sockaddr_storage *addr;
	socklen_t *len;
	int cap, next;
};

/*
 * Serves one datagram of n bytes at buf, from a (len bytes), on ctx's
 * socket: the token is echoed and its sender remembered in t, a
 * remembered sender's datagram is its request and is answered (counted
 * in ctx->r); anything else is dropped uncounted.
 */
void udp_crr_serve(struct test_ctx *ctx, struct udp_crr_pending *t, char *buf,
		   size_t n, const struct sockaddr_storage *a, socklen_t len);

#endif
