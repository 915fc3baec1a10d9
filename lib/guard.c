#include "np/guard.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/module.h"
#include "np/server.h"

#define GUARD_TICK_NS (100 * 1000000ULL)

/* Shuts a data socket of a cut session, and makes its close a reset: a
 * peer still sending into a full window would otherwise only learn of
 * the end from a zero-window probe seconds later, its data unread. */
static void
guard_cut(int fd)
{
	struct linger abort = {.l_onoff = 1, .l_linger = 0};

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
	shutdown(fd, SHUT_RDWR);
}

/* Shuts the session's sockets; called with the guard's lock held. */
static void
guard_fire(struct guard *g, enum guard_cause cause)
{
	int i;

	g->fired = cause;
	/* Reading only: the session thread still sends its error. */
	shutdown(g->ctl, SHUT_RD);
	for (i = 0; i < g->nfds; i++)
		guard_cut(g->fds[i]);
}

static void *
guard_main(void *arg)
{
	struct guard *g = arg;
	struct timespec ts;
	uint64_t now;

	pthread_mutex_lock(&g->lock);
	while (!g->done) {
		now = clock_ns();
		if (g->fired == GUARD_NONE && *g->stop)
			guard_fire(g, GUARD_STOP);
		else if (g->fired == GUARD_NONE && g->deadline != 0 &&
			 now >= g->deadline)
			guard_fire(g, GUARD_OVERTIME);
		else if (g->fired == GUARD_NONE && now >= g->session_end)
			guard_fire(g, GUARD_LIFETIME);
		now += GUARD_TICK_NS;
		ts.tv_sec = (time_t)(now / NS_PER_SEC);
		ts.tv_nsec = (long)(now % NS_PER_SEC);
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* Starts the guard of a session on ctl, which may live lim's session
 * time; returns 0, or -1 with err set. */
int
guard_start(struct guard *g, int ctl, double session_sec,
	    volatile sig_atomic_t *stop, char *err)
{
	pthread_condattr_t ca;

	memset(g, 0, sizeof(*g));
	g->ctl = ctl;
	g->stop = stop;
	g->session_limit = session_sec;
	g->session_end = clock_ns() + (uint64_t)(session_sec * 1e9);
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&g->tid, NULL, guard_main, g) != 0) {
		pthread_cond_destroy(&g->cond);
		pthread_mutex_destroy(&g->lock);
		return err_set(err, "cannot start the session's guard thread");
	}
	g->running = 1;
	return 0;
}

void
guard_finish(struct guard *g)
{
	if (!g->running)
		return;
	pthread_mutex_lock(&g->lock);
	g->done = 1;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->tid, NULL);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	free(g->fds);
	g->running = 0;
}

/* Makes room for a test's cap data sockets; returns 0, or -1 with err. */
int
guard_test_begin(struct guard *g, int cap, char *err)
{
	int *fds = calloc((size_t)cap, sizeof(*fds));

	if (fds == NULL)
		return err_set(err, "out of memory");
	pthread_mutex_lock(&g->lock);
	g->fds = fds;
	g->cap = cap;
	g->nfds = 0;
	pthread_mutex_unlock(&g->lock);
	return 0;
}

/* Hands the guard a data socket to shut when it fires (at once if it has
 * fired already, so no socket slips past it). */
void
guard_track(struct guard *g, int fd)
{
	pthread_mutex_lock(&g->lock);
	if (g->nfds < g->cap)
		g->fds[g->nfds++] = fd;
	if (g->fired != GUARD_NONE)
		guard_cut(fd);
	pthread_mutex_unlock(&g->lock);
}

/* Arms the wall-clock limit of the test about to run. */
void
guard_test_deadline(struct guard *g, double limit_sec, int64_t start_at_ns)
{
	int64_t wait = start_at_ns > 0 ? start_at_ns - clock_real_ns() : 0;

	pthread_mutex_lock(&g->lock);
	g->limit = limit_sec;
	/* A timed test ends at its own length plus the grace the loops give
	 * a silent peer; a counted one is held to the same limit. A
	 * scheduled start (--start-at) moves the whole window. */
	g->deadline =
	    clock_ns() + (uint64_t)(wait > 0 ? wait : 0) +
	    (uint64_t)((limit_sec + 2 * MODULE_GRACE_SEC) * 1e9);
	pthread_mutex_unlock(&g->lock);
}

/* Forgets the test's sockets (before they are closed) and its deadline. */
void
guard_test_end(struct guard *g)
{
	pthread_mutex_lock(&g->lock);
	free(g->fds);
	g->fds = NULL;
	g->nfds = g->cap = 0;
	g->deadline = 0;
	pthread_mutex_unlock(&g->lock);
}

/* When the session has been cut (or SIGTERM is on its way to cutting it),
 * puts the reason into err and returns 1; otherwise returns 0. */
enum guard_cause
guard_cause_of(struct guard *g)
{
	enum guard_cause cause;

	if (!g->running)
		return GUARD_NONE;
	pthread_mutex_lock(&g->lock);
	cause = g->fired;
	if (cause == GUARD_NONE && *g->stop)
		cause = GUARD_STOP;
	pthread_mutex_unlock(&g->lock);
	return cause;
}

int
guard_reason(struct guard *g, char *err)
{
	enum guard_cause cause;
	double limit, life;

	if (!g->running)
		return 0;
	pthread_mutex_lock(&g->lock);
	cause = g->fired;
	limit = g->limit;
	life = g->session_limit;
	if (cause == GUARD_NONE && *g->stop)
		cause = GUARD_STOP;
	pthread_mutex_unlock(&g->lock);
	if (cause == GUARD_STOP)
		err_set(err, SERVER_SHUTDOWN_TEXT);
	else if (cause == GUARD_OVERTIME)
		err_set(err, "the test ran past this server's limit of %.0f s",
			limit);
	else if (cause == GUARD_LIFETIME)
		err_set(err,
			"the session ran past this server's limit of %.0f s "
			"per session (--max-session-time)",
			life);
	return cause != GUARD_NONE;
}
