/*
 * One side's streams of a test, as netperf and netserver both hold them:
 * a context, a data socket (or listener), a port and counts for each,
 * and where each runs. Both programs allocate, open and free them here,
 * and take their size defaults from here, so the two sides cannot drift.
 */
#ifndef NP_STREAMS_H
#define NP_STREAMS_H

#include <signal.h>

#include "np/module.h"
#include "np/result.h"
#include "np/topo.h"

struct streams {
	const struct test_module *m;
	int is_server;
	int n;
	struct test_ctx *ctx;	   /* n */
	int *fds;		   /* n sockets or listeners, -1 for none */
	int *ports;		   /* n, netserver's data ports */
	struct side_result *r;	   /* n, each stream's counts */
	struct topo_place *places; /* n, or NULL when unbound */
	int own_r;		   /* r is ours to free */
};

/*
 * Allocates n streams of m for one side (is_server: netserver's), every
 * descriptor -1; their counts go to r (n of them, the caller's) or, when
 * r is NULL, to an array of the set's own. Returns 0, or -1 with err set
 * (the set is then safe to free).
 */
int streams_alloc(struct streams *s, const struct test_module *m, int n,
		  int is_server, struct side_result *r, char *err);

/* Gives the set n places to bind its streams to (all zero, for the caller
 * to fill). Returns 0, or -1 with err set. */
int streams_want_places(struct streams *s, char *err);

/*
 * Places the set's streams on t, both sides alike: bind's place (near
 * ifname) whole for one stream, a CPU each of it for several, round-robin
 * over cores; and rp says where (what was asked, every CPU, the NUMA
 * node, the NIC's side, the note). Returns 0, or -1 with err set.
 */
int streams_place(struct streams *s, struct topo *t, const char *bind,
		  const char *ifname, struct result_place *rp, char *err);

/*
 * A side's bytes per send and receive: what was asked (0 for the default),
 * else its socket buffer as created (4096 when unknown). Over UDP a send
 * is capped at the largest datagram unless asked, and a receive always
 * holds the largest datagram, whose tail would be lost otherwise.
 */
void streams_sizes(const struct test_module *m, int64_t send, int64_t recv,
		   int sndbuf, int rcvbuf, struct side_result *r);

/*
 * Makes fd stream i's data socket for test p: TCP_NODELAY when asked, the
 * socket time-outs the loops rely on (TCP_RR's none: the coordinator
 * watches it, test_ctx.watched), the kernel's fast paths (which may
 * fail with err naming the option), and the context's links to p, the
 * counts, stop and the token (NULL for none). Returns 0, or -1 with err
 * set.
 */
int streams_open(struct streams *s, int i, int fd, const struct test_params *p,
		 volatile sig_atomic_t *stop, const unsigned char *token,
		 char *err);

/* The largest of n sizes: a buffer that holds any of them. */
size_t streams_max(const int64_t *sizes, int n);

/* Frees the set: buffers (shared, when not NULL, is one buffer several
 * contexts point into and is freed once), histograms, the sockets still
 * open, places. */
void streams_free(struct streams *s, char *shared);

#endif
