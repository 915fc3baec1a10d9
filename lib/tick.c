#include "np/tick.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * A socket with SO_RCVTIMEO makes every read that sleeps arm a kernel
 * timer and cancel it on wake-up. A receiver of 64 KB datagrams sleeps
 * once a datagram when the CPUs are shared, and the timer cost it 3 % of
 * what it receives (bench/README.md, "Flows that outnumber the CPUs"). A
 * read on a socket without a time-out sleeps with no timer; a POSIX timer
 * signalling the thread each period still wakes it when nothing comes.
 */

static void
on_tick(int sig)
{
	(void)sig;
}

static pthread_once_t tick_once = PTHREAD_ONCE_INIT;
/* Whether the handler is in place: without it the first tick would end
 * the process (a real-time signal's default). */
static int tick_handled;

/* The handler, process-wide and without SA_RESTART: a read the tick
 * interrupts returns, rather than sleeping on. */
static void
tick_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sigemptyset(&sa.sa_mask);
	tick_handled = sigaction(TICK_SIGNAL, &sa, NULL) == 0;
}

int
tick_start(struct tick *t, int fd)
{
	struct sigevent ev;
	struct itimerspec its;
	socklen_t len = sizeof(t->tv);
	sigset_t set;

	memset(t, 0, sizeof(*t));
	t->fd = fd;
	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t->tv, &len) < 0 ||
	    (t->tv.tv_sec == 0 && t->tv.tv_usec == 0))
		return 0;
	pthread_once(&tick_once, tick_install);
	if (!tick_handled)
		return 0;
	sigemptyset(&set);
	sigaddset(&set, TICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = TICK_SIGNAL;
	/* glibc 2.36 names no field for it (sigev_notify_thread_id). */
	ev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &ev, &t->id) < 0)
		return 0;
	its.it_interval.tv_sec = t->tv.tv_sec;
	its.it_interval.tv_nsec = (long)t->tv.tv_usec * 1000;
	its.it_value = its.it_interval;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){0, 0},
		       sizeof(struct timeval)) < 0 ||
	    timer_settime(t->id, 0, &its, NULL) < 0) {
		timer_delete(t->id);
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t->tv, sizeof(t->tv));
		return 0;
	}
	t->on = 1;
	return 1;
}

void
tick_stop(struct tick *t)
{
	if (!t->on)
		return;
	timer_delete(t->id);
	setsockopt(t->fd, SOL_SOCKET, SO_RCVTIMEO, &t->tv, sizeof(t->tv));
	t->on = 0;
}
