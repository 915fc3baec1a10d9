#include "np/interim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "np/clock.h"
#include "np/proto.h"
#include "np/session.h"

void
interim_peer_init(struct interim_peer *ip, int fd, int asked, int streams,
		  double interval)
{
	int i;

	memset(ip, 0, sizeof(*ip));
	ip->fd = fd;
	ip->asked = asked;
	ip->streams = streams;
	ip->ahead = INTERIM_AHEAD;
	if (interval > 0)
		ip->ahead += (int64_t)ceil(INTERIM_AHEAD_SEC / interval);
	ip->last = -1;
	for (i = 0; i < INTERIM_RING; i++)
		ip->ring[i].n = -1;
}

/* Checks one report and keeps it for its interval; returns 0, or -1 with
 * err set. */
static int
interim_keep(struct interim_peer *ip, const json_t *msg, char *err)
{
	struct proto_interim iv;
	char why[ERR_LEN];

	if (!ip->asked)
		return err_set(err, "netserver sent an interim report that "
				    "was not asked for");
	/* One read after the test has not been through session_take's
	 * bound: its size, as sent compactly. */
	if (json_dumpb(msg, NULL, 0, JSON_COMPACT) > INTERIM_MSG_MAX)
		return err_set(err,
			       "netserver's interim report is over %d bytes",
			       INTERIM_MSG_MAX);
	if (proto_interim_unpack(msg, ip->streams, &iv, why) < 0)
		return err_set(err, "netserver's interim report: %s", why);
	if (iv.n <= ip->last)
		return err_set(err,
			       "netserver's interim report %lld came after "
			       "report %lld",
			       (long long)iv.n, (long long)ip->last);
	/* A count bound: a peer cannot make netperf take more reports
	 * than there are intervals, give or take ip->ahead. */
	if (iv.n >= ip->local + ip->ahead)
		return err_set(err,
			       "netserver sent interim report %lld during "
			       "netperf's interval %lld: more than were asked "
			       "for",
			       (long long)iv.n, (long long)ip->local);
	ip->last = iv.n;
	ip->ring[iv.n % INTERIM_RING].n = iv.n;
	ip->ring[iv.n % INTERIM_RING].t = iv.tcpi;
	return 0;
}

/* Takes every whole report waiting; stops at anything else. */
static void
interim_drain(struct interim_peer *ip)
{
	json_t *msg;
	int rc;

	while (!ip->failed && !ip->other) {
		rc = session_take(ip->fd, "interim", INTERIM_MSG_MAX, &msg,
				  ip->err);
		if (rc == 0)
			return;
		if (rc == 2) {
			ip->other = 1;
			return;
		}
		if (rc < 0 || interim_keep(ip, msg, ip->err) < 0)
			ip->failed = 1;
		json_decref(msg);
	}
}

const struct tcpinfo *
interim_peer_match(struct interim_peer *ip, int64_t n, uint64_t wait_ns,
		   volatile sig_atomic_t *stop)
{
	uint64_t deadline = clock_ns() + wait_ns;
	int64_t want = n;
	int slot = (int)(want % INTERIM_RING), found = 0;

	ip->local = n;

	for (;;) {
		interim_drain(ip);
		if (ip->ring[slot].n == want) {
			found = 1;
			break;
		}
		if (ip->failed || ip->other || (stop != NULL && *stop) ||
		    clock_ns() >= deadline)
			break;
		/* A report in the making: look again in a millisecond. */
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	ip->local = n + 1;
	if (!found)
		return NULL;
	ip->found = ip->ring[slot].t;
	return &ip->found;
}

int
interim_peer_skip(void *arg, const json_t *msg, char *err)
{
	return interim_keep(arg, msg, err);
}
