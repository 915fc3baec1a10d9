#include "np/admit.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/sock.h"

int
admit_init(struct admit *a, int lfd, int ctl, int watch_ctl,
	   const unsigned char *token, admit_log_fn log, char *err)
{
	socklen_t len = sizeof(a->peer);

	memset(a, 0, sizeof(*a));
	a->lfd = lfd;
	a->ctl = watch_ctl ? ctl : -1;
	a->token = token;
	a->log = log;
	a->same_host = sock_same_host;
	if (getpeername(ctl, (struct sockaddr *)&a->peer, &len) < 0)
		return err_set(err, "getpeername: %s", strerror(errno));
	return 0;
}

/* One refusal: logged while few, counted always. */
static void
refused(struct admit *a, const char *from, const char *why)
{
	if (a->log == NULL)
		return;
	if (a->logged < ADMIT_LOG_MAX) {
		a->logged++;
		a->log(0, "refused a data connection from %s: %s", from, why);
	} else {
		a->unlogged++;
	}
}

/* Drops pending connection i (closing it unless it is handed out). */
static void
drop(struct admit *a, int i, int close_it)
{
	if (close_it)
		close(a->pend[i].fd);
	a->pend[i] = a->pend[--a->npend];
}

/* Reads what pending connection i has sent of its token; returns 1 when
 * it is whole and right, 0 to wait for more, -1 when it is refused (and
 * already closed). */
static int
read_token(struct admit *a, int i)
{
	struct admit_pending *p = &a->pend[i];
	ssize_t n;

	/* No token (a netperf 2.7 client has none): the host is all. */
	if (a->token == NULL)
		return 1;
	for (;;) {
		n = recv(p->fd, p->token + p->got, sizeof(p->token) - p->got,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0) {
		a->refused_token++;
		refused(a, p->from, "closed before its token");
		drop(a, i, 1);
		return -1;
	}
	p->got += (size_t)n;
	if (p->got < sizeof(p->token))
		return 0;
	if (auth_equal(p->token, a->token, sizeof(p->token)))
		return 1;
	a->refused_token++;
	refused(a, p->from, "wrong token");
	drop(a, i, 1);
	return -1;
}

/* Accepts one connection waiting on the listener into the pending set;
 * returns its index, or -1 when there was none to keep. */
static int
take(struct admit *a, uint64_t now)
{
	struct sockaddr_storage from;
	socklen_t len = sizeof(from);
	struct admit_pending *p;
	char text[SOCK_ADDR_LEN];
	int fd, i, oldest = 0;

	fd = accept4(a->lfd, (struct sockaddr *)&from, &len, SOCK_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!a->same_host((struct sockaddr *)&a->peer,
			  (struct sockaddr *)&from)) {
		a->refused_host++;
		sock_addr_text((struct sockaddr *)&from, text);
		refused(a, text, "not the control client");
		close(fd);
		return -1;
	}
	if (a->npend == ADMIT_PENDING) {
		for (i = 1; i < a->npend; i++)
			if (a->pend[i].until < a->pend[oldest].until)
				oldest = i;
		a->refused_token++;
		refused(a, a->pend[oldest].from, "no token, pushed out");
		drop(a, oldest, 1);
	}
	p = &a->pend[a->npend];
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->until = now + (uint64_t)ADMIT_TOKEN_MS * 1000000;
	sock_addr_text((struct sockaddr *)&from, p->from);
	return a->npend++;
}

int
admit_next(struct admit *a, uint64_t deadline, char *err)
{
	struct pollfd pfd[2 + ADMIT_PENDING];
	uint64_t now, wake;
	int i, n, fixed, rc;

	for (;;) {
		now = clock_ns();
		/* Backwards: drop moves the last entry into i. */
		for (i = a->npend - 1; i >= 0; i--)
			if (now >= a->pend[i].until) {
				a->refused_token++;
				refused(a, a->pend[i].from,
					"no token in time");
				drop(a, i, 1);
			}
		if (now >= deadline)
			return ADMIT_TIMEOUT;
		wake = deadline;
		n = 0;
		pfd[n++] = (struct pollfd){.fd = a->lfd, .events = POLLIN};
		if (a->ctl >= 0)
			pfd[n++] =
			    (struct pollfd){.fd = a->ctl, .events = POLLIN};
		fixed = n;
		for (i = 0; i < a->npend; i++) {
			pfd[n++] = (struct pollfd){.fd = a->pend[i].fd,
						   .events = POLLIN};
			if (a->pend[i].until < wake)
				wake = a->pend[i].until;
		}
		rc = poll(pfd, (nfds_t)n, (int)((wake - now) / 1000000 + 1));
		if (rc < 0 && errno != EINTR)
			return err_set(err, "poll: %s", strerror(errno));
		if (rc <= 0)
			continue;
		if (a->ctl >= 0 && pfd[1].revents != 0)
			return ADMIT_CONTROL;
		/* Backwards, as above; pfd[fixed + i] is pend[i] as it was
		 * when poll began, and entries past i do not move. */
		for (i = a->npend - 1; i >= 0; i--) {
			if (pfd[fixed + i].revents == 0)
				continue;
			if (read_token(a, i) == 1) {
				int fd = a->pend[i].fd;

				drop(a, i, 0);
				return fd;
			}
		}
		if (pfd[0].revents & POLLIN) {
			i = take(a, now);
			/* The client sends its token right after connecting:
			 * it is often here already. */
			if (i >= 0 && read_token(a, i) == 1) {
				int fd = a->pend[i].fd;

				drop(a, i, 0);
				return fd;
			}
		}
	}
}

void
admit_close(struct admit *a)
{
	while (a->npend > 0)
		drop(a, a->npend - 1, 1);
	if (a->log != NULL && a->unlogged > 0)
		a->log(0, "refused %llu more data connections",
		       (unsigned long long)a->unlogged);
	a->unlogged = 0;
}
