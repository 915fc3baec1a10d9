/* The open loop of the RR clients (--rate, --arrivals, --timeout,
 * --reconnect); the loops themselves are declared in np/module.h. */
#ifndef NP_RR_OPEN_H
#define NP_RR_OPEN_H

#include <stddef.h>

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

#endif
