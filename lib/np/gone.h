/* The UDP requests given up on whose answers may still come: a ring of
 * the last GONE_LEN of them, so that an answer after its request's
 * time-out counts as late (it reached netperf), not as a duplicate. The
 * closed and the open loop of UDP_RR share it (rr.c, rr_open.c), and
 * the flows' (flows.c), whose thread holds one for all its flows: who
 * tells the flows apart (0 where a ring has one stream). */
#ifndef NP_GONE_H
#define NP_GONE_H

#include <stdint.h>
#include <stdlib.h>

#define GONE_LEN 512

struct gone_entry {
	uint64_t tag;
	uint64_t at; /* when given up on; 0: answered since, or free */
	uint32_t who;
	int cls; /* its request's class in a mix, 0 without one */
};

struct gone {
	struct gone_entry *e; /* GONE_LEN of them */
	int next;
};

/* 0, or -1 when out of memory. */
static inline int
gone_init(struct gone *g)
{
	g->next = 0;
	g->e = calloc(GONE_LEN, sizeof(*g->e));
	return g->e != NULL ? 0 : -1;
}

static inline void
gone_free(struct gone *g)
{
	free(g->e);
	g->e = NULL;
}

/* who's request tagged tag, of class cls (a mix's; 0 without one), was
 * given up on at now (a clock_ns() time), in place of the oldest
 * remembered. */
static inline void
gone_add(struct gone *g, uint32_t who, uint64_t tag, int cls, uint64_t now)
{
	g->e[g->next].who = who;
	g->e[g->next].tag = tag;
	g->e[g->next].cls = cls;
	g->e[g->next].at = now;
	g->next = (g->next + 1) % GONE_LEN;
}

/* An answer tagged tag to none of who's requests in flight: when its
 * request was given up on, that request's class (then it is forgotten,
 * so a second copy is a duplicate), else -1. */
static inline int
gone_take(struct gone *g, uint32_t who, uint64_t tag)
{
	int i;

	for (i = 0; i < GONE_LEN; i++) {
		if (g->e[i].at != 0 && g->e[i].tag == tag &&
		    g->e[i].who == who) {
			g->e[i].at = 0;
			return g->e[i].cls;
		}
	}
	return -1;
}

/* When the last request still remembered was given up on; 0 for none. */
static inline uint64_t
gone_last(const struct gone *g)
{
	uint64_t last = 0;
	int i;

	for (i = 0; i < GONE_LEN; i++)
		if (g->e[i].at > last)
			last = g->e[i].at;
	return last;
}

#endif
