#include "np/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/module.h"
#include "np/server.h"

/* The write end of the running guard's wake pipe, for guard_kick; -1
 * when none runs. A session process has one guard. */
static volatile sig_atomic_t guard_wake_fd = -1;

/* Wakes the guard: one byte down its pipe (a full pipe has one already). */
static void
guard_wake(int fd)
{
	int saved = errno;

	if (write(fd, "", 1) < 0) {
		/* full: the guard wakes anyway */
	}
	errno = saved;
}

void
guard_kick(void)
{
	int fd = guard_wake_fd;

	if (fd >= 0)
		guard_wake(fd);
}

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

/* How long the guard may sleep from now: until the test's deadline or the
 * session's end, whichever is first, in whole milliseconds rounded up;
 * -1 (until woken) once it has fired. */
static int
guard_sleep_ms(const struct guard *g, uint64_t now)
{
	uint64_t until = g->session_end, ms;

	if (g->fired != GUARD_NONE)
		return -1;
	if (g->deadline != 0 && g->deadline < until)
		until = g->deadline;
	if (until <= now)
		return 0;
	ms = (until - now + 999999) / 1000000;
	return ms > 60000 ? 60000 : (int)ms;
}

/* Sleeps until a limit falls due or it is woken (guard_kick from the
 * SIGTERM handler, a new deadline, guard_finish), never on a tick: a
 * thread that woke ten times a second beside a receiver moved where the
 * scheduler put it against its sender (bench/README.md, "Flows that
 * outnumber the CPUs"). */
static void *
guard_main(void *arg)
{
	struct guard *g = arg;
	char junk[64];
	uint64_t now;
	int ms;

	/* Named for top -H and ps -L, and for check_service. */
	pthread_setname_np(pthread_self(), "netserver-guard");
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
		ms = guard_sleep_ms(g, now);
		pthread_mutex_unlock(&g->lock);
		if (poll(&(struct pollfd){.fd = g->wake[0], .events = POLLIN},
			 1, ms) > 0)
			while (read(g->wake[0], junk, sizeof(junk)) > 0)
				;
		pthread_mutex_lock(&g->lock);
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
	memset(g, 0, sizeof(*g));
	g->ctl = ctl;
	g->stop = stop;
	g->session_limit = session_sec;
	g->session_end = clock_ns() + (uint64_t)(session_sec * 1e9);
	if (pipe2(g->wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return err_set(err, "the session's guard: pipe: %s",
			       strerror(errno));
	pthread_mutex_init(&g->lock, NULL);
	/* A SIGTERM from here on leaves a byte that wakes the thread; one
	 * before set *stop, which its first look sees. */
	guard_wake_fd = g->wake[1];
	if (pthread_create(&g->tid, NULL, guard_main, g) != 0) {
		guard_wake_fd = -1;
		pthread_mutex_destroy(&g->lock);
		close(g->wake[0]);
		close(g->wake[1]);
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
	pthread_mutex_unlock(&g->lock);
	guard_wake(g->wake[1]);
	pthread_join(g->tid, NULL);
	guard_wake_fd = -1;
	close(g->wake[0]);
	close(g->wake[1]);
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
	/* It may sleep until the session's end: it wakes to the new limit. */
	guard_wake(g->wake[1]);
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
