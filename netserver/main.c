/* netserver: accept control connections, fork a child for each. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "np/acl.h"
#include "np/auth.h"
#include "np/cli.h"
#include "np/clock.h"
#include "np/err.h"
#include "np/escape.h"
#include "np/guard.h"
#include "np/metrics.h"
#include "np/proto.h"
#include "np/server.h"
#include "np/server_legacy.h"
#include "np/session.h"
#include "np/sock.h"

/* How long the parent waits for its children after SIGTERM before it
 * kills them. */
#define STOP_WAIT_MS 3000
/* Refused clients whose hello is read and dropped before the close, so
 * the error they were sent is not lost to a reset; each for at most
 * LINGER_MS. */
#define LINGER_MAX 64
#define LINGER_MS 2000
/* The back-off after failed authentications: an address (an IPv6
 * network, counted as --max-per-address counts it) is refused for
 * BACKOFF_FIRST_MS after a failure, twice as long after each further
 * one, at most BACKOFF_CAP_MS; a success clears it, and an address quiet
 * for BACKOFF_FORGET_S past its refusal is forgotten. */
#define BACKOFF_MAX 4096
#define BACKOFF_FIRST_MS 1000
#define BACKOFF_CAP_MS 60000
#define BACKOFF_FORGET_S 600
/* How long a refused client's first bytes are waited for, which say in
 * which protocol it is to be told (a silent one is told in ours). */
#define REFUSE_LISTEN_MS 250

static volatile sig_atomic_t stop_requested, reopen_requested;
/* The self-pipe SIGCHLD writes to, so the parent's poll wakes as soon as
 * a session ends and its child is reaped at once, not on a tick. */
static int child_pipe[2] = {-1, -1};
/* --metrics: the counts, the endpoint, and the pipe on which children
 * send their events (written without blocking; read by the parent). */
static struct metrics counts;
static struct metrics_server metrics_srv = {.lfd = -1};
static int event_pipe[2] = {-1, -1};
/* The pipe the children report their clients' authentications on, to
 * the parent, which keeps the back-off; each report is one write of a
 * struct auth_report, so reports never interleave. */
static int report_pipe[2] = {-1, -1};
static int debug_level;
static int use_syslog;
static char log_path[PATH_MAX];
static char pid_path[PATH_MAX];

static void
on_signal(int sig)
{
	if (sig == SIGHUP) {
		reopen_requested = 1;
	} else {
		stop_requested = 1;
		/* A session's guard cuts it now, not at its next limit. */
		guard_kick();
	}
}

static void
on_child(int sig)
{
	int saved = errno;
	char c = (char)sig;

	/* Non-blocking: a full pipe already says "reap". */
	if (write(child_pipe[1], &c, 1) < 0) {
		/* nothing to do */
	}
	errno = saved;
}

/* Empties the self-pipe after poll saw it readable. */
static void
child_pipe_drain(void)
{
	char buf[64];

	while (read(child_pipe[0], buf, sizeof(buf)) > 0)
		;
}

static void log_line(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
log_line(int level, const char *fmt, ...)
{
	char line[1024], stamp[32];
	time_t now;
	va_list ap;
	int n, m;

	if (level > debug_level)
		return;
	now = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", localtime(&now));
	n = use_syslog ? 0
		       : snprintf(line, sizeof(line), "%s netserver[%ld]: ",
				  stamp, (long)getpid());
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	if ((size_t)(n + m) > sizeof(line) - 2)
		m = (int)sizeof(line) - 2 - n;
	line[n + m] = '\0';
	/* Peer text is escaped where it enters a message; this catches
	 * whatever was missed, so no byte from a client can end the line
	 * or reach the reader's terminal. */
	escape_line(line + n);
	if (use_syslog) {
		syslog(level == 0 ? LOG_NOTICE : LOG_INFO, "%s", line);
		return;
	}
	line[n + m] = '\n';
	/* One write per line, so lines from the parent and its children
	 * never interleave in a shared log file. */
	if (write(STDERR_FILENO, line, (size_t)(n + m + 1)) < 0)
		return;
}

/*
 * Refusals and failed authentications are what a flood of hostile
 * clients produces, so their lines are rate-limited: the first
 * LIMITED_BURST of each second are logged in full, the rest are counted
 * and summed up in one line once the second is over. The counters live in memory shared with
 * the children, which log their own sessions' failed authentications.
 */
enum {
	LIMITED_REFUSAL,
	LIMITED_AUTH,
	LIMITED_BACKOFF,
	LIMITED_REQUEST,
	LIMITED_KINDS
};
#define LIMITED_BURST 3
struct limited {
	uint64_t second; /* the window of the last line logged */
	uint64_t shown;	 /* lines logged in it */
	uint64_t held;	 /* lines held back since */
};
static struct limited *limited;
static const char *const limited_what[LIMITED_KINDS] = {
    "clients refused", "clients failed authentication",
    "addresses backed off", "requests refused"};

/* Logs the summary of what kind k held back, when its second is over. */
static void
limited_flush(int k, uint64_t second)
{
	uint64_t held;

	if (__atomic_load_n(&limited[k].second, __ATOMIC_RELAXED) == second)
		return;
	held = __atomic_exchange_n(&limited[k].held, 0, __ATOMIC_RELAXED);
	if (held > 0)
		log_line(0, "%llu more %s in the last second",
			 (unsigned long long)held, limited_what[k]);
}

static void limited_line(int k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Logs a line of kind k unless LIMITED_BURST were logged this second
 * already (then it is counted). The counters are shared between
 * processes, so they are updated atomically; a race at a second's edge
 * costs at most a line more or less, never a lost count. */
static void
limited_line(int k, const char *fmt, ...)
{
	uint64_t now = clock_ns() / NS_PER_SEC, seen;
	char line[512];
	va_list ap;

	seen = __atomic_load_n(&limited[k].second, __ATOMIC_RELAXED);
	if (seen != now &&
	    __atomic_compare_exchange_n(&limited[k].second, &seen, now, 0,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		/* First of a new second: what the last one held back. */
		__atomic_store_n(&limited[k].shown, 1, __ATOMIC_RELAXED);
		seen = __atomic_exchange_n(&limited[k].held, 0,
					   __ATOMIC_RELAXED);
		if (seen > 0)
			log_line(0, "%llu more %s in the last second",
				 (unsigned long long)seen, limited_what[k]);
	} else if (__atomic_add_fetch(&limited[k].shown, 1,
				      __ATOMIC_RELAXED) > LIMITED_BURST) {
		__atomic_add_fetch(&limited[k].held, 1, __ATOMIC_RELAXED);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_line(0, "%s", line);
}

/* What a child tells the parent of its client's credentials. */
struct auth_report {
	unsigned char addr[16]; /* the client, as the parent counts it */
	unsigned char ok;
};

/* The client this process serves, for its report. */
static unsigned char serving_addr[16];

/* server_session's on_auth: the verdict, to the parent's back-off, before
 * the client hears it. A full pipe (a parent that cannot keep up) loses
 * the report rather than holding the session. */
static void
report_auth(int ok)
{
	struct auth_report r;

	memcpy(r.addr, serving_addr, sizeof(r.addr));
	r.ok = (unsigned char)(ok != 0);
	if (write(report_pipe[1], &r, sizeof(r)) < 0) {
		/* lost: see above */
	}
}

static void session_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A session's log: its refusals of what a client may repeat at will
 * (SERVER_LOG_LIMITED) go through the rate limit, the rest as they are. */
static void
session_log(int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (level == SERVER_LOG_LIMITED)
		limited_line(LIMITED_REQUEST, "%s", line);
	else
		log_line(level, "%s", line);
}

/* Serves one control connection in this process. */
static void
serve(int fd, const char *who, const unsigned char addr[16],
      const struct server_limits *lim, const struct auth_key *key)
{
	char err[ERR_LEN];

	int rc;

	log_line(1, "control connection from %s", who);
	memcpy(serving_addr, addr, sizeof(serving_addr));
	rc = server_session(fd, lim, key, session_log, report_auth,
			    &stop_requested, err);
	if (rc == SERVER_AUTH_FAILED) {
		server_report(lim, METRICS_EV_REFUSED, NULL, 0, 0, 0,
			      METRICS_REFUSED_AUTH);
		limited_line(LIMITED_AUTH, "client %s: %s", who, err);
	} else if (rc < 0)
		log_line(0, "client %s: %s", who, err);
	else
		log_line(1, "client %s done", who);
	close(fd);
}

/* The children serving clients, with the address each serves, so that
 * only they are ever signalled and sessions per address can be counted. */
struct child {
	pid_t pid;
	unsigned char addr[16];
	int streams; /* its test's running data connections (--metrics) */
};
static struct child *children;
static int nchildren;

static void
forget(pid_t pid)
{
	int i;

	for (i = 0; i < nchildren; i++)
		if (children[i].pid == pid) {
			children[i] = children[--nchildren];
			return;
		}
}

static void
reap(void)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		forget(pid);
}

static int
sessions_from(const unsigned char addr[16])
{
	int i, n = 0;

	for (i = 0; i < nchildren; i++)
		if (memcmp(children[i].addr, addr, 16) == 0)
			n++;
	return n;
}

/* The data connections of every session's running test. */
static int
streams_running(void)
{
	int i, n = 0;

	for (i = 0; i < nchildren; i++)
		n += children[i].streams;
	return n;
}

/* A child's event, onto the parent's pipe in one write; dropped when the
 * pipe is full (the parent has fallen behind by hundreds). */
static void
report_event(const struct metrics_event *ev)
{
	if (event_pipe[1] >= 0)
		(void)!write(event_pipe[1], ev, sizeof(*ev));
}

/* Takes every event the children have sent into the counts. */
static void
events_drain(void)
{
	struct metrics_event ev;
	ssize_t n;
	pid_t pid;
	int delta, i;

	while ((n = read(event_pipe[0], &ev, sizeof(ev))) > 0) {
		if (metrics_apply(&counts, &ev, (size_t)n, &pid, &delta) < 0)
			continue;
		for (i = 0; i < nchildren; i++)
			if (children[i].pid == pid) {
				children[i].streams += delta;
				if (children[i].streams < 0)
					children[i].streams = 0;
			}
	}
}

/* An address that failed to authenticate: how often in a row, and until
 * when (CLOCK_MONOTONIC ns) it is refused. */
struct backoff {
	unsigned char addr[16];
	int fails;
	uint64_t until;
};
static struct backoff backoffs[BACKOFF_MAX];
static int nbackoff;

/* The entry of addr, or NULL; entries long past their refusal go. */
static struct backoff *
backoff_find(const unsigned char addr[16], uint64_t now)
{
	int i;

	for (i = 0; i < nbackoff; i++) {
		if (memcmp(backoffs[i].addr, addr, 16) != 0)
			continue;
		if (now > backoffs[i].until + BACKOFF_FORGET_S * NS_PER_SEC) {
			backoffs[i] = backoffs[--nbackoff];
			return NULL;
		}
		return &backoffs[i];
	}
	return NULL;
}

/* A new entry for addr: a free one, or the one whose refusal ended
 * first (the least to lose), when all are taken. */
static struct backoff *
backoff_new(const unsigned char addr[16])
{
	struct backoff *b = &backoffs[0];
	int i;

	if (nbackoff < BACKOFF_MAX) {
		b = &backoffs[nbackoff++];
	} else {
		for (i = 1; i < nbackoff; i++)
			if (backoffs[i].until < b->until)
				b = &backoffs[i];
	}
	memset(b, 0, sizeof(*b));
	memcpy(b->addr, addr, 16);
	return b;
}

/* Takes one child's report: a failure doubles the address's refusal, a
 * success clears it. */
static void
backoff_note(const struct auth_report *r, int ipv6_prefix)
{
	uint64_t now = clock_ns(), ms;
	struct backoff *b = backoff_find(r->addr, now);
	char net[ACL_ADDR_LEN];
	int shift;

	if (r->ok) {
		if (b != NULL)
			*b = backoffs[--nbackoff];
		return;
	}
	if (b == NULL)
		b = backoff_new(r->addr);
	if (b->fails < INT_MAX)
		b->fails++;
	shift = b->fails - 1 < 16 ? b->fails - 1 : 16;
	ms = (uint64_t)BACKOFF_FIRST_MS << shift;
	if (ms > BACKOFF_CAP_MS)
		ms = BACKOFF_CAP_MS;
	b->until = now + ms * 1000000;
	acl_key_text(r->addr, ipv6_prefix, net);
	limited_line(LIMITED_BACKOFF,
		     "%s: %d failed authentication%s in a row; refusing it "
		     "for %llu s",
		     net, b->fails, b->fails > 1 ? "s" : "",
		     (unsigned long long)((ms + 999) / 1000));
}

/* Reads every report the children have written so far. */
static void
backoff_drain(int ipv6_prefix)
{
	struct auth_report r[64];
	ssize_t n;
	int i;

	while ((n = read(report_pipe[0], r, sizeof(r))) > 0)
		for (i = 0; i < n / (ssize_t)sizeof(r[0]); i++)
			backoff_note(&r[i], ipv6_prefix);
}

/* The whole seconds addr is still refused for, 0 when it is not. */
static int
backoff_left(const unsigned char addr[16])
{
	uint64_t now = clock_ns();
	struct backoff *b = backoff_find(addr, now);

	if (b == NULL || now >= b->until)
		return 0;
	return (int)((b->until - now + NS_PER_SEC - 1) / NS_PER_SEC);
}

struct refused {
	int fd;
	uint64_t until; /* the answer's deadline, then the linger's */
	int answered;
	int serv_errno; /* what a 2.7 client is told */
	char why[ERR_LEN];
};
static struct refused lingering[LINGER_MAX];
static int nlinger;

static void
linger_drop(int i)
{
	close(lingering[i].fd);
	lingering[i] = lingering[--nlinger];
}

/*
 * Turns a client away in the parent, without forking: one log line, then,
 * once its first bytes say which protocol it speaks (or REFUSE_LISTEN_MS
 * pass), the reason in that protocol (server_refusal: our error frame, or
 * 2.7's error response with serv_errno); then the socket lingers,
 * half-closed, until the client closes it, so the parent never waits on a
 * client.
 */
static void
refuse(int fd, const char *who, const char *why, int serv_errno)
{
	char err[ERR_LEN];
	struct refused *r;

	limited_line(LIMITED_REFUSAL, "refused %s: %s", who, why);
	if (nlinger == LINGER_MAX) {
		server_refusal(fd, why, serv_errno, err);
		close(fd);
		return;
	}
	r = &lingering[nlinger++];
	r->fd = fd;
	r->until = clock_ns() + REFUSE_LISTEN_MS * 1000000ULL;
	r->answered = 0;
	r->serv_errno = serv_errno;
	snprintf(r->why, sizeof(r->why), "%s", why);
}

/* Tells a refused client why, once it has spoken or its time is up;
 * then drops what it still sends, and closes it at its end or at its
 * deadline. */
static void
linger_step(int i, short revents, uint64_t now)
{
	struct refused *r = &lingering[i];
	char buf[512], err[ERR_LEN];
	ssize_t n;

	if (!r->answered) {
		if (revents == 0 && now < r->until)
			return;
		server_refusal(r->fd, r->why, r->serv_errno, err);
		shutdown(r->fd, SHUT_WR);
		r->answered = 1;
		r->until = now + LINGER_MS * 1000000ULL;
		return;
	}
	if (revents != 0) {
		n = recv(lingering[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			linger_drop(i);
			return;
		}
	}
	if (now >= lingering[i].until)
		linger_drop(i);
}

/* A client that came while a session limit was reached. It waits up to
 * LIMIT_GRACE_MS for a session to end, since a client that has just had
 * its results may already be back for its next test while its last
 * session's child is still on its way out; then it is refused. */
struct waiter {
	int fd;
	uint64_t until;
	unsigned char addr[16];
	char who[ACL_ADDR_LEN], net[ACL_ADDR_LEN];
};
#define WAIT_MAX 16
#define LIMIT_GRACE_MS 300
static struct waiter waiting[WAIT_MAX];
static int nwaiting;

/* Forks a session for w's client; the child serves it and exits. */
static void
start_session(int lfd, const struct waiter *w,
	      const struct server_limits *lim, const struct auth_key *key)
{
	pid_t pid;
	int i;

	pid = fork();
	if (pid < 0) {
		log_line(0, "fork: %s", strerror(errno));
		close(w->fd);
		return;
	}
	if (pid == 0) {
		close(lfd);
		for (i = 0; i < nlinger; i++)
			close(lingering[i].fd);
		for (i = 0; i < nwaiting; i++)
			if (waiting[i].fd != w->fd)
				close(waiting[i].fd);
		signal(SIGCHLD, SIG_DFL);
		close(child_pipe[0]);
		close(child_pipe[1]);
		if (event_pipe[0] >= 0)
			close(event_pipe[0]);
		metrics_server_close(&metrics_srv);
		close(report_pipe[0]);
		/* SIGTERM and SIGINT keep the parent's handler: the
		 * session's guard sees the flag, cuts the session and the
		 * client is told. A log reopen is the parent's business. */
		signal(SIGHUP, SIG_IGN);
		serve(w->fd, w->who, w->addr, lim, key);
		_exit(EXIT_SUCCESS);
	}
	children[nchildren].pid = pid;
	memcpy(children[nchildren].addr, w->addr, sizeof(w->addr));
	children[nchildren].streams = 0;
	nchildren++;
	counts.accepted++;
	close(w->fd);
}

/* Starts w's session when the limits allow it now. Otherwise, when final,
 * refuses it naming the limit; returns 1 when w is done with, 0 when it
 * is to wait. */
static int
admit_or_wait(int lfd, const struct waiter *w, int final,
	      const struct server_limits *lim, const struct auth_key *key)
{
	char why[ERR_LEN];

	/* A session that has just ended no longer counts, even when its
	 * SIGCHLD is still on its way. */
	reap();
	if (nchildren < lim->max_sessions &&
	    sessions_from(w->addr) < lim->max_per_addr) {
		start_session(lfd, w, lim, key);
		return 1;
	}
	if (!final)
		return 0;
	if (nchildren >= lim->max_sessions) {
		snprintf(why, sizeof(why),
			 "this server is busy: its limit of %d concurrent "
			 "sessions is reached",
			 lim->max_sessions);
		counts.refused[METRICS_REFUSED_BUSY]++;
	} else {
		snprintf(why, sizeof(why),
			 "this server's limit of %d concurrent sessions from "
			 "%s is reached",
			 lim->max_per_addr, w->net);
		counts.refused[METRICS_REFUSED_PER_ADDR]++;
	}
	refuse(w->fd, w->who, why, EUSERS);
	return 1;
}

/* The waiting clients: started when a session has ended, refused at
 * their deadline (or all at once with final, at the end). */
static void
waiting_step(int lfd, const struct server_limits *lim,
	     const struct auth_key *key, int final)
{
	uint64_t now = clock_ns();
	int i;

	/* In order of arrival: the first to come gets the first slot. */
	for (i = 0; i < nwaiting;) {
		if (admit_or_wait(lfd, &waiting[i],
				  final || now >= waiting[i].until, lim, key)) {
			memmove(&waiting[i], &waiting[i + 1],
				(size_t)(nwaiting - i - 1) * sizeof(*waiting));
			nwaiting--;
		} else {
			i++;
		}
	}
}

/* Accepts one control connection: refused here, served here (-f), or
 * handed to a new child, at once or after a short wait for a slot. */
static void
accept_one(int lfd, const struct netserver_opts *o,
	   const struct server_limits *lim, const struct auth_key *key)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);
	struct waiter w;
	char why[ERR_LEN];
	int left;

	memset(&w, 0, sizeof(w));
	w.fd = accept4(lfd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
	if (w.fd < 0)
		return;
	acl_addr_text((struct sockaddr *)&peer, w.who);
	acl_addr_key((struct sockaddr *)&peer, w.addr);
	/* One host usually holds a whole IPv6 /64: counted per address,
	 * it would have endless slots. */
	acl_key_prefix(w.addr, lim->ipv6_prefix);
	acl_key_text(w.addr, lim->ipv6_prefix, w.net);
	if (!acl_allows(&o->allow, (struct sockaddr *)&peer)) {
		snprintf(why, sizeof(why),
			 "your address %s is not allowed by this server",
			 w.who);
		counts.refused[METRICS_REFUSED_ALLOW]++;
		refuse(w.fd, w.who, why, EACCES);
		return;
	}
	/* The verdicts on every proof checked so far, the last one
	 * included: its client may only just have heard it. */
	backoff_drain(lim->ipv6_prefix);
	if ((left = backoff_left(w.addr)) > 0) {
		snprintf(why, sizeof(why),
			 "too many failed authentications from %s: try again "
			 "in %d s",
			 w.net, left);
		counts.refused[METRICS_REFUSED_AUTH]++;
		refuse(w.fd, w.who, why, EACCES);
		return;
	}
	if (o->nofork) {
		counts.accepted++;
		serve(w.fd, w.who, w.addr, lim, key);
		return;
	}
	/* Those already waiting go first; with no room to wait, the
	 * verdict is now. */
	waiting_step(lfd, lim, key, 0);
	if (admit_or_wait(lfd, &w, nwaiting == WAIT_MAX, lim, key))
		return;
	w.until = clock_ns() + LIMIT_GRACE_MS * 1000000ULL;
	waiting[nwaiting++] = w;
}

/* Makes path absolute against the working directory, since a daemon
 * moves to "/"; returns 0, or -1 with err set. */
static int
absolute(const char *path, char *out, char *err)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		if (strlen(path) >= PATH_MAX)
			return err_set(err, "%s: path too long", path);
		snprintf(out, PATH_MAX, "%s", path);
		return 0;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return err_set(err, "getcwd: %s", strerror(errno));
	if (snprintf(out, PATH_MAX, "%s/%s", cwd, path) >= PATH_MAX)
		return err_set(err, "%s: path too long", path);
	return 0;
}

/*
 * Points standard error at the log file; returns 0, or -1 with err. A
 * symlink is never followed and only a regular file is written to, so a
 * link planted in a writable log directory cannot turn the root daemon's
 * appends against another file, and a FIFO cannot hang it.
 */
static int
open_log(const char *path, char *err)
{
	struct stat st;
	int fd = open(path,
		      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY |
			  O_NOFOLLOW | O_NONBLOCK,
		      0640);

	if (fd < 0 && errno == ELOOP)
		return err_set(err,
			       "log file %s is a symbolic link: refusing to "
			       "follow it",
			       path);
	if (fd < 0 && errno == ENXIO)
		return err_set(err,
			       "log file %s is not a regular file: refusing it",
			       path);
	if (fd < 0)
		return err_set(err, "cannot open log file %s: %s", path,
			       strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err,
			       "log file %s is not a regular file: refusing it",
			       path);
	}
	/* Appends block as they always did; O_NONBLOCK only kept a FIFO
	 * from stopping the open itself. */
	fcntl(fd, F_SETFL, O_APPEND);
	if (fd != STDERR_FILENO) {
		if (dup2(fd, STDERR_FILENO) < 0) {
			err_set(err, "dup2: %s", strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* SIGHUP: a rotated log file is let go and the configured one reopened;
 * syslog is reconnected. Sessions already running keep what they had. */
static void
reopen_log(void)
{
	char err[ERR_LEN];

	if (use_syslog) {
		closelog();
		openlog("netserver", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	} else if (log_path[0] != '\0' && open_log(log_path, err) < 0) {
		log_line(0, "SIGHUP: %s; logging on to the old file", err);
		return;
	}
	log_line(0, "log reopened on SIGHUP");
}

/*
 * Refuses a pidfile that names a running process (another netserver, most
 * likely); one naming a dead process is stale and is overwritten later.
 * Returns 0, or -1 with err set.
 */
static int
pidfile_check(const char *path, char *err)
{
	char buf[32];
	ssize_t n;
	long pid;
	char *end;
	int fd;
	struct stat st;

	/* O_NONBLOCK: a FIFO in its place must not hang the start. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, "cannot read pidfile %s: %s", path,
			       strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, "pidfile %s is not a regular file", path);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	if (end == buf || pid <= 0 || pid > INT32_MAX)
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
		return err_set(err,
			       "pidfile %s names process %ld, which is "
			       "running: is netserver already running?",
			       path, pid);
	return 0;
}

static int
pidfile_write(const char *path, char *err)
{
	char buf[32];
	int fd, n;

	fd = open(path,
		  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW |
		      O_NONBLOCK,
		  0644);
	if (fd < 0)
		return err_set(err, "cannot write pidfile %s: %s", path,
			       strerror(errno));
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (write(fd, buf, (size_t)n) != n) {
		err_set(err, "cannot write pidfile %s: %s", path,
			strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

/* The write end of the pipe the detached daemon reports its start on. */
static int ready_fd = -1;

/* The standard error netserver was started with, kept for announce:
 * --log and --syslog take stderr over before netserver is ready. */
static int announce_fd = -1;

/*
 * Detaches: the process that started stays until the daemon says it is
 * ready (pidfile written, privileges dropped), so its exit status tells
 * whether the daemon runs and the pidfile exists once it has exited.
 */
static void
daemonize(int quiet_stderr)
{
	int pfd[2], fd;
	pid_t pid;
	char c;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		perror("netserver: pipe");
		exit(EXIT_FAILURE);
	}
	pid = fork();
	if (pid < 0) {
		perror("netserver: fork");
		exit(EXIT_FAILURE);
	}
	if (pid > 0) {
		close(pfd[1]);
		do
			n = read(pfd[0], &c, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
	}
	close(pfd[0]);
	ready_fd = pfd[1];
	setsid();
	if (chdir("/") < 0)
		exit(EXIT_FAILURE);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (quiet_stderr)
			dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

static void
daemon_ready(void)
{
	if (ready_fd < 0)
		return;
	if (write(ready_fd, "", 1) < 0)
		log_line(0, "cannot report the start: %s", strerror(errno));
	close(ready_fd);
	ready_fd = -1;
}

/* Becomes user's uid and gid, with no supplementary groups; returns 0,
 * or -1 with err set. */
static int
drop_privileges(const char *user, uid_t uid, gid_t gid, char *err)
{
	if (setgroups(1, &gid) < 0)
		return err_set(err, "setgroups: %s", strerror(errno));
	if (setgid(gid) < 0)
		return err_set(err, "setgid %ld: %s", (long)gid,
			       strerror(errno));
	if (setuid(uid) < 0)
		return err_set(err, "setuid %ld: %s", (long)uid,
			       strerror(errno));
	if (uid != 0 && setuid(0) == 0)
		return err_set(err, "could regain root after becoming %s",
			       user);
	return 0;
}

/* Stops the children: SIGTERM (each tells its client), a bounded wait,
 * then SIGKILL for any still there. */
static void
stop_children(void)
{
	uint64_t deadline = clock_ns() + STOP_WAIT_MS * 1000000ULL;
	struct timespec tick = {0, 20000000};
	pid_t pid;
	int i;

	for (i = 0; i < nchildren; i++)
		kill(children[i].pid, SIGTERM);
	while (nchildren > 0 && clock_ns() < deadline) {
		reap();
		if (nchildren > 0)
			nanosleep(&tick, NULL);
	}
	if (nchildren == 0)
		return;
	log_line(0,
		 "%d session%s did not end within %d s of SIGTERM; "
		 "killing",
		 nchildren, nchildren > 1 ? "s" : "", STOP_WAIT_MS / 1000);
	for (i = 0; i < nchildren; i++)
		kill(children[i].pid, SIGKILL);
	while (nchildren > 0) {
		pid = waitpid(-1, NULL, 0);
		if (pid > 0)
			forget(pid);
		else if (errno != EINTR)
			break;
	}
}

/* Applies the limit options over the defaults. */
static void
set_limits(const struct netserver_opts *o, struct server_limits *lim)
{
	server_limits_default(lim);
	if (o->idle_timeout > 0)
		lim->idle_ms = (int)(o->idle_timeout * 1000);
	if (o->accept_timeout > 0)
		lim->accept_ms = (int)(o->accept_timeout * 1000);
	if (o->max_duration > 0)
		lim->max_duration = o->max_duration;
	if (o->max_sessions > 0)
		lim->max_sessions = o->max_sessions;
	if (o->max_per_addr > 0)
		lim->max_per_addr = o->max_per_addr;
	if (o->max_streams > 0)
		lim->max_streams = o->max_streams;
	if (o->max_message > 0)
		lim->max_msg = o->max_message;
	if (o->max_buffer > 0)
		lim->max_buf = (int)o->max_buffer;
	if (o->max_session_memory > 0)
		lim->max_session_mem = o->max_session_memory;
	if (o->hello_timeout > 0)
		lim->hello_ms = (int)(o->hello_timeout * 1000);
	/* A session outlives its longest test twice over by default. */
	if (o->max_session_time > 0)
		lim->max_session_time = o->max_session_time;
	else if (2 * lim->max_duration > lim->max_session_time)
		lim->max_session_time = 2 * lim->max_duration;
	if (o->ipv6_prefix > 0)
		lim->ipv6_prefix = o->ipv6_prefix;
	lim->allow_low_ports = o->allow_privileged_ports;
	if (o->max_start_ahead > 0)
		lim->max_start_ahead = o->max_start_ahead;
}

/* -u USER: the uid and gid to drop to, and whether to (as root); returns
 * 0, or an exit status after saying why not. */
static int
resolve_user(const char *user, uid_t *uid, gid_t *gid, int *drop)
{
	struct passwd *pw = getpwnam(user);

	if (pw == NULL) {
		fprintf(stderr, "netserver: no such user \"%s\"\n", user);
		return EXIT_FAILURE;
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	if (geteuid() != 0 && *uid != geteuid()) {
		fprintf(stderr,
			"netserver: -u %s needs root (this is uid %ld)\n", user,
			(long)geteuid());
		return EXIT_FAILURE;
	}
	*drop = geteuid() == 0;
	return 0;
}

/* --legacy-passphrase FILE into lim; returns 0, or an exit status after
 * saying why not. */
static int
load_legacy_pass(const struct netserver_opts *o, struct server_limits *lim)
{
	struct auth_key pk;
	char err[ERR_LEN];

	/* Read as a key file is (private, at least 16 bytes), then held as
	 * the text a 2.7 client sends. */
	if (auth_key_load(o->legacy_pass_file, &pk, err) < 0) {
		fprintf(stderr, "netserver: --legacy-passphrase: %s\n", err);
		return EXIT_FAILURE;
	}
	if (pk.len >= sizeof(lim->legacy_pass) ||
	    memchr(pk.key, '\0', pk.len) != NULL) {
		explicit_bzero(&pk, sizeof(pk));
		fprintf(stderr,
			"netserver: --legacy-passphrase: at most %zu bytes of "
			"text\n",
			sizeof(lim->legacy_pass) - 1);
		return EXIT_FAILURE;
	}
	memcpy(lim->legacy_pass, pk.key, pk.len);
	lim->legacy_pass[pk.len] = '\0';
	explicit_bzero(&pk, sizeof(pk));
	return 0;
}

/* The key clients must prove (--auth-file or -Z) and 2.7's passphrase,
 * read while still privileged: they may be readable by root only.
 * Returns 0, or an exit status after saying why not. */
static int
load_keys(struct netserver_opts *o, struct server_limits *lim,
	  struct auth_key *key, int *have_key)
{
	char err[ERR_LEN];

	if (o->auth_file[0] != '\0') {
		if (auth_key_load(o->auth_file, key, err) < 0) {
			fprintf(stderr, "netserver: --auth-file: %s\n", err);
			return EXIT_FAILURE;
		}
		*have_key = 1;
	}
	/* -Z: netperf 2.7's passphrase, made a key on both sides; only
	 * the challenge-response crosses the wire. */
	if (o->passphrase[0] != '\0') {
		if (auth_key_from_passphrase(o->passphrase, key, err) < 0) {
			fprintf(stderr, "netserver: -Z: %s\n", err);
			return EXIT_FAILURE;
		}
		explicit_bzero(o->passphrase, sizeof(o->passphrase));
		*have_key = 1;
	}
	if (o->legacy_pass_file[0] != '\0')
		return load_legacy_pass(o, lim);
	return 0;
}

/* SIGTERM, SIGINT, SIGHUP and SIGCHLD's self-pipe; returns 0, or an exit
 * status after saying why not. */
static int
install_signals(void)
{
	struct sigaction sa;

	signal(SIGPIPE, SIG_IGN);
	/* No SA_RESTART: a signal ends the parent's poll at once. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (pipe2(child_pipe, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(report_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "netserver: pipe: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	return 0;
}

/* Listens and makes room for the children; returns the listening socket
 * with *port set, or -1 after saying why not. */
static int
start_listening(const struct netserver_opts *o, const struct server_limits *lim,
		int *port)
{
	char err[ERR_LEN];
	int lfd;

	lfd =
	    sock_listen(o->listen, o->port, o->family, SOCK_STREAM, 1024, err);
	if (lfd < 0) {
		fprintf(stderr, "netserver: %s\n", err);
		return -1;
	}
	*port = sock_local_port(lfd);
	announce_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	children = calloc((size_t)lim->max_sessions, sizeof(*children));
	limited = mmap(NULL, LIMITED_KINDS * sizeof(*limited),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (children == NULL || limited == MAP_FAILED) {
		fprintf(stderr, "netserver: out of memory\n");
		return -1;
	}
	return lfd;
}

/* What -u drops to: whether to, and who. */
struct drop_to {
	int drop;
	uid_t uid;
	gid_t gid;
};

/* netserver 2.7's line, which scripts read the port from, on the
 * original stderr. */
static void
announce(const struct netserver_opts *o, int port)
{
	int fd = announce_fd >= 0 ? announce_fd : STDERR_FILENO;

	if (dprintf(fd,
		    "Starting netserver with host '%s' port '%d' and family "
		    "%s\n",
		    o->listen[0] ? o->listen : "IN(6)ADDR_ANY", port,
		    sock_family_name(o->family)) < 0)
		log_line(0, "cannot announce the port: %s", strerror(errno));
	if (announce_fd >= 0)
		close(announce_fd);
	announce_fd = -1;
}

/*
 * Logging, detaching, the pidfile and the drop of privileges, then the
 * word that the daemon is ready; returns 0, or an exit status. The port
 * is announced only then, so that whoever reads it finds the pidfile
 * written; a daemon's first process leaves after that.
 */
static int
become_daemon(const struct netserver_opts *o, const struct drop_to *d, int port,
	      int have_key)
{
	char err[ERR_LEN];

	if (log_path[0] != '\0' && open_log(log_path, err) < 0) {
		fprintf(stderr, "netserver: %s\n", err);
		return EXIT_FAILURE;
	}
	if (o->syslog) {
		openlog("netserver", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		use_syslog = 1;
	}
	if (!o->foreground && !o->nofork)
		daemonize(use_syslog);
	if (pid_path[0] != '\0' && pidfile_write(pid_path, err) < 0) {
		log_line(0, "%s", err);
		return EXIT_FAILURE;
	}
	if (d->drop && drop_privileges(o->user, d->uid, d->gid, err) < 0) {
		log_line(0, "-u %s: %s", o->user, err);
		if (pid_path[0] != '\0')
			unlink(pid_path);
		return EXIT_FAILURE;
	}
	if (use_syslog || log_path[0] != '\0')
		log_line(0, "netserver %s listening on %s port %d%s%s",
			 NP_VERSION, o->listen[0] ? o->listen : "any address",
			 port, have_key ? ", authentication required" : "",
			 o->allow.n > 0 ? ", allow-list on" : "");
	announce(o, port);
	daemon_ready();
	return 0;
}

/* --metrics: the endpoint and the children's event pipe, before the
 * daemon detaches, so that a port in use is said on stderr. Returns 0, or
 * -1 after saying why not. */
static int
start_metrics(const struct netserver_opts *o, struct server_limits *lim)
{
	char err[ERR_LEN];

	if (o->metrics[0] == '\0')
		return 0;
	if (metrics_server_open(&metrics_srv, o->metrics, err) < 0) {
		fprintf(stderr, "netserver: %s\n", err);
		return -1;
	}
	if (pipe2(event_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "netserver: --metrics: pipe: %s\n",
			strerror(errno));
		return -1;
	}
	metrics_init(&counts, clock_wall());
	lim->report = report_event;
	return 0;
}

/* The parent's loop: new clients, ended children and refused clients
 * lingering, until SIGTERM or SIGINT. */
static void
serve_loop(int lfd, const struct netserver_opts *o,
	   const struct server_limits *lim, const struct auth_key *key)
{
	struct pollfd pfd[3 + LINGER_MAX + 1 + METRICS_CONN_MAX];
	int i, n, ev_at = -1, m_at = -1, m_n = 0;

	while (!stop_requested) {
		uint64_t now;

		if (reopen_requested) {
			reopen_requested = 0;
			reopen_log();
		}
		reap();
		pfd[0].fd = lfd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		pfd[1].fd = child_pipe[0];
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		pfd[2].fd = report_pipe[0];
		pfd[2].events = POLLIN;
		pfd[2].revents = 0;
		for (i = 0; i < nlinger; i++) {
			pfd[3 + i].fd = lingering[i].fd;
			pfd[3 + i].events = POLLIN;
			pfd[3 + i].revents = 0;
		}
		n = nlinger;
		if (event_pipe[0] >= 0) {
			ev_at = 3 + n;
			pfd[ev_at].fd = event_pipe[0];
			pfd[ev_at].events = POLLIN;
			pfd[ev_at].revents = 0;
			m_at = ev_at + 1;
			m_n = metrics_server_fds(&metrics_srv, &pfd[m_at]);
		}
		/* Children are reaped when their SIGCHLD wakes the poll;
		 * the timeout lets lingerers and waiters go. */
		if (poll(pfd, (nfds_t)(3 + n + (ev_at >= 0 ? 1 + m_n : 0)),
			 nwaiting > 0		  ? 20
			 : n > 0 || m_n > 1 ? 100
					      : 1000) < 0)
			for (i = 0; i < 3 + n + (ev_at >= 0 ? 1 + m_n : 0); i++)
				pfd[i].revents = 0;
		for (i = 0; i < LIMITED_KINDS; i++)
			limited_flush(i, clock_ns() / NS_PER_SEC);
		/* A child's last events are in the pipe before its
		 * SIGCHLD: they are read first, so its streams are known
		 * before it is forgotten. */
		if (ev_at >= 0 && pfd[ev_at].revents != 0)
			events_drain();
		if (pfd[1].revents & POLLIN) {
			child_pipe_drain();
			if (ev_at >= 0)
				events_drain();
			reap();
		}
		if (pfd[2].revents & POLLIN)
			backoff_drain(lim->ipv6_prefix);
		if (ev_at >= 0)
			metrics_server_step(&metrics_srv, &pfd[m_at], m_n,
					    &o->allow, &counts, nchildren,
					    streams_running());
		now = clock_ns();
		/* Backwards: linger_drop moves the last entry into i. */
		for (i = n - 1; i >= 0; i--)
			linger_step(i, pfd[3 + i].revents, now);
		waiting_step(lfd, lim, key, 0);
		if (pfd[0].revents & POLLIN)
			accept_one(lfd, o, lim, key);
	}
	/* Those still waiting for a slot are told why they get none. */
	for (i = 0; i < nwaiting; i++)
		refuse(waiting[i].fd, waiting[i].who, SERVER_SHUTDOWN_TEXT,
		       ESHUTDOWN);
	nwaiting = 0;
}

/* After the loop: the listener, lingerers and children go, then the
 * pidfile and the log. */
static void
stop_serving(int lfd)
{
	close(lfd);
	metrics_server_close(&metrics_srv);
	while (nlinger > 0)
		linger_drop(nlinger - 1);
	log_line(1, "stopping; %d children", nchildren);
	stop_children();
	if (pid_path[0] != '\0' && unlink(pid_path) < 0 && errno != ENOENT)
		log_line(0, "cannot remove pidfile %s: %s", pid_path,
			 strerror(errno));
	if (use_syslog || log_path[0] != '\0')
		log_line(0, "netserver stopped");
	if (use_syslog)
		closelog();
}

int
main(int argc, char **argv)
{
	struct netserver_opts o;
	struct server_limits lim;
	struct auth_key key;
	struct drop_to d = {0, 0, 0};
	char err[ERR_LEN];
	int lfd, port, rc, have_key = 0;

	if (cli_netserver_parse(argc, argv, &o, err) < 0) {
		fprintf(stderr, "netserver: %s\n", err);
		fprintf(stderr, "Try 'netserver -h' for usage.\n");
		return 2;
	}
	if (o.want_help) {
		cli_netserver_usage(stdout);
		return EXIT_SUCCESS;
	}
	if (o.want_version) {
		printf("netserver %s (control protocol %d)\n", NP_VERSION,
		       PROTO_VERSION);
		return EXIT_SUCCESS;
	}
	debug_level = o.debug;
	set_limits(&o, &lim);
	if (o.user[0] != '\0' &&
	    (rc = resolve_user(o.user, &d.uid, &d.gid, &d.drop)) != 0)
		return rc;
	rc = load_keys(&o, &lim, &key, &have_key);
	if (rc != 0)
		return rc;
	lim.legacy = o.legacy;
	if ((o.pidfile[0] != '\0' && (absolute(o.pidfile, pid_path, err) < 0 ||
				      pidfile_check(pid_path, err) < 0)) ||
	    (o.log[0] != '\0' && absolute(o.log, log_path, err) < 0)) {
		fprintf(stderr, "netserver: %s\n", err);
		return EXIT_FAILURE;
	}
	if (install_signals() != 0)
		return EXIT_FAILURE;
	lfd = start_listening(&o, &lim, &port);
	if (lfd < 0 || start_metrics(&o, &lim) < 0)
		return EXIT_FAILURE;
	rc = become_daemon(&o, &d, port, have_key);
	if (rc != 0)
		return rc;
	if (metrics_srv.lfd >= 0)
		log_line(0, "metrics served at /metrics on port %d",
			 metrics_srv.port);
	serve_loop(lfd, &o, &lim, have_key ? &key : NULL);
	stop_serving(lfd);
	explicit_bzero(&key, sizeof(key));
	free(children);
	return EXIT_SUCCESS;
}
