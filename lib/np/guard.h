/*
 * A session's guard: a thread of its own that cuts the session short when
 * SIGTERM comes, a test outlives the duration limit, or the session its
 * whole life. It shuts the control socket for reading and the test's data
 * sockets, so every wait of the session and of the data loops ends at
 * once. That is all it does: the session's own thread stays the only one
 * that writes to the control connection, and tells the client why
 * (guard_reason). Both of netserver's protocols, ours and 2.7's, use it.
 */
#ifndef NP_GUARD_H
#define NP_GUARD_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

enum guard_cause { GUARD_NONE, GUARD_STOP, GUARD_OVERTIME, GUARD_LIFETIME };

struct guard {
	pthread_t tid;
	int running;
	pthread_mutex_t lock;
	int wake[2]; /* a pipe: a byte wakes the guard's thread */
	volatile sig_atomic_t *stop;
	int ctl;
	int *fds; /* the running test's data sockets */
	int nfds, cap;
	uint64_t deadline; /* CLOCK_MONOTONIC ns; 0 when no test runs */
	double limit;	   /* seconds, for the message */
	/* The session's whole life ends here, whatever it does: no
	 * message (a "stop" between tests) moves it. */
	uint64_t session_end;
	double session_limit;
	int done;
	enum guard_cause fired;
};

/* Starts the guard of a session on ctl, which may live session_sec
 * seconds; returns 0, or -1 with err set. */
int guard_start(struct guard *g, int ctl, double session_sec,
		volatile sig_atomic_t *stop, char *err);

/* Wakes the running guard, if any, to look at its stop flag at once.
 * Async-signal-safe: SIGTERM's handler calls it after setting the flag. */
void guard_kick(void);

/* Stops the guard's thread and frees what it holds. */
void guard_finish(struct guard *g);

/* Makes room for a test's cap data sockets; returns 0, or -1 with err. */
int guard_test_begin(struct guard *g, int cap, char *err);

/* Hands the guard a data socket to shut when it fires (at once if it has
 * fired already, so no socket slips past it). */
void guard_track(struct guard *g, int fd);

/* Arms the limit of the test about to run: limit_sec seconds plus the
 * grace the loops give a silent peer, from start_at_ns (CLOCK_REALTIME)
 * when it is ahead, else from now. */
void guard_test_deadline(struct guard *g, double limit_sec,
			 int64_t start_at_ns);

/* Forgets the test's sockets (before they are closed) and its deadline. */
void guard_test_end(struct guard *g);

/* When the session has been cut (or SIGTERM is on its way to cutting it),
 * puts the reason into err and returns 1; otherwise returns 0. */
int guard_reason(struct guard *g, char *err);

/* What cut the session, GUARD_NONE when nothing has (or SIGTERM is set but
 * the guard has not seen it yet: GUARD_STOP then). */
enum guard_cause guard_cause_of(struct guard *g);

#endif
