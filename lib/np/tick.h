/* A receive loop's own clock: a periodic signal in place of a socket's
 * receive time-out, so that a blocking read arms no kernel timer. */
#ifndef NP_TICK_H
#define NP_TICK_H

#include <signal.h>
#include <sys/time.h>
#include <time.h>

/* The signal of every tick; its handler does nothing, so that a blocking
 * call it interrupts returns EINTR. */
#define TICK_SIGNAL (SIGRTMIN + 1)

struct tick {
	timer_t id;
	int fd;		   /* the socket whose time-out the tick replaces */
	struct timeval tv; /* that time-out, put back by tick_stop */
	int on;
};

/*
 * Moves fd's receive time-out (SO_RCVTIMEO) to a tick of the same period
 * for the calling thread: the socket is left without one, and a blocked
 * read on it ends with EINTR each period instead of EAGAIN once. Returns
 * 1 when the tick runs, 0 when the socket keeps its time-out (it has
 * none, or the system gave no timer).
 */
int tick_start(struct tick *t, int fd);

/* Stops the tick and gives the socket its time-out back. */
void tick_stop(struct tick *t);

#endif
