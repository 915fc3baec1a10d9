/*
 * Admitting a test's data connections: accepted on the test's listener,
 * only from the control client's host, and only once they have presented
 * the test's token. Pending connections' tokens are read side by side
 * with poll(), each to its own short deadline, so a connection that stays
 * silent delays nobody: it is closed when its deadline passes while the
 * others go on. netserver's TCP tests and TCP_CRR's loop both use it.
 */
#ifndef NP_ADMIT_H
#define NP_ADMIT_H

#include <stdint.h>
#include <sys/socket.h>

#include "np/auth.h"

/* How long an accepted connection has to present its token. */
#define ADMIT_TOKEN_MS 2000
/* Connections waiting for their token at once; a further one pushes out
 * the one that has waited longest. */
#define ADMIT_PENDING 64
/* Refusals logged one by one per admission; the rest are counted. */
#define ADMIT_LOG_MAX 8

/* What admit_next returns when it admits nobody. */
#define ADMIT_TIMEOUT (-2) /* the deadline passed */
#define ADMIT_CONTROL (-3) /* the control connection is readable */

/* Logs one line, as server_log_fn does. */
typedef void (*admit_log_fn)(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct admit_pending {
	int fd;
	size_t got;
	unsigned char token[AUTH_TOKEN_LEN];
	uint64_t until; /* CLOCK_MONOTONIC ns */
	char from[64];
};

struct admit {
	int lfd;
	int ctl; /* watched for the client's next word; -1 for none */
	struct sockaddr_storage peer;
	const unsigned char *token; /* AUTH_TOKEN_LEN bytes */
	admit_log_fn log;	    /* NULL in a data loop: count only */
	/* Whether a connection from `from` is the control client's host's
	 * (the transport's test; admit_init sets IP's). */
	int (*same_host)(const struct sockaddr *ctl_peer,
			 const struct sockaddr *from);
	struct admit_pending pend[ADMIT_PENDING];
	int npend;
	/* Refused: from another host, with a wrong or no token. */
	uint64_t refused_host, refused_token;
	uint64_t logged, unlogged;
};

/*
 * Sets up admission on listener lfd for the client at the other end of
 * ctl (whose readiness also ends a wait when watch_ctl is set), with the
 * test's token (NULL for none: a netperf 2.7 client's connections carry
 * none, and only their host is checked); log may be NULL. Returns 0, or
 * -1 with err set.
 */
int admit_init(struct admit *a, int lfd, int ctl, int watch_ctl,
	       const unsigned char *token, admit_log_fn log, char *err);

/*
 * Waits, until the CLOCK_MONOTONIC deadline, for a connection from the
 * client's host that presents the token, and returns it (blocking, its
 * token read). Returns ADMIT_TIMEOUT at the deadline, ADMIT_CONTROL when
 * the control connection has something to say, or -1 with err set.
 */
int admit_next(struct admit *a, uint64_t deadline, char *err);

/* Closes the connections still pending and logs how many refusals went
 * unlogged. */
void admit_close(struct admit *a);

#endif
