/*
 * floor: the barest loopback loops, with no control protocol, to show how
 * close a benchmark tool gets to the limit of the kernel path.
 *
 *   floor tcp_rr     [-c CPU] [-s CPU] [-t SECS | -n COUNT] [-m SIZE] [-H]
 *   floor udp_rr     ...
 *   floor tcp_stream [-c CPU] [-s CPU] [-t SECS] [-m SIZE]
 *   floor udp_stream ...
 *
 * The client (this process) and the server (a forked child) are separate
 * processes, as netperf and netserver are: two threads of one process
 * would share an address space and switch more cheaply on one CPU than
 * any two-process tool can. Each is pinned with sched_setaffinity. RR
 * loops send SIZE bytes (default 1) and wait for SIZE back; the clock is
 * read once every 64 transactions. Stream loops send SIZE bytes per call
 * (default 128 KiB for TCP, 1472 for UDP) and the receiver counts what
 * arrived between its first and its last byte. One JSON line is printed.
 *
 * -H makes the RR loops time every transaction into lib/stats' histogram
 * exactly as netperf's RR client does, and measure what that costs.
 */
#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "np/clock.h"
#include "np/stats.h"

#define FLOOR_MAX_SECS 3600
#define FLOOR_MAX_SIZE (4 << 20)
#define FLOOR_CLOCK_EVERY 64
/* No loop is unbounded: both processes arm alarm() for the test's length
 * plus this, and SIGALRM's default action ends a process that overstays.
 * A watchdog costs nothing per call, where SO_RCVTIMEO/SO_SNDTIMEO arm a
 * kernel timer at every blocking wait (about 1 % of TCP_RR per side on
 * this VM), so only the UDP stream receiver, which must notice the end
 * of a flow that may have lost its end marker, uses a receive time-out. */
#define FLOOR_GRACE_SECS 10

enum floor_test { TCP_RR, UDP_RR, TCP_STREAM, UDP_STREAM };

struct floor_opts {
	enum floor_test test;
	const char *name;
	int ccpu, scpu; /* -1: not pinned */
	double secs;	/* used when count is 0 */
	uint64_t count; /* RR transactions */
	size_t size;	/* bytes per message or per send */
	int timing;	/* -H: time every transaction as netperf does */
};

/* RR results; the timing fields are filled with -H. */
struct floor_rr {
	uint64_t trans, elapsed_ns;
	uint64_t gap_ns, gaps;	/* the in-loop timing gaps, see rr_top */
	struct stats_hist hist; /* round trips, ns */
};

/* What the server reports back to the client through a pipe. */
struct floor_report {
	uint64_t bytes, msgs, first_ns, last_ns;
};

/* Pins the calling process to cpu; returns 0, or -1 with errno set. */
static int
pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void
set_idle_timeout(int fd, int secs)
{
	struct timeval tv = {secs, 0};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Returns a socket bound to 127.0.0.1 on an ephemeral port, its address
 * in sin; -1 with errno set on failure. */
static int
bound_socket(int type, struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int fd;

	fd = socket(AF_INET, type, 0);
	if (fd < 0)
		return -1;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) < 0 ||
	    getsockname(fd, (struct sockaddr *)sin, &len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Receives exactly len bytes; returns 0, 1 on EOF, -1 on error. */
static int
recv_full(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = recv(fd, buf + off, len - off, 0);
		if (n > 0)
			off += (size_t)n;
		else if (n == 0)
			return 1;
		else if (errno != EINTR)
			return -1;
	}
	return 0;
}

static int
send_full(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/* The server halves. Each runs in the child and returns its exit code. */

static int
serve_tcp_rr(int lfd, size_t size, char *buf)
{
	int fd = accept(lfd, NULL, NULL);

	if (fd < 0)
		return 1;
	for (;;) {
		int rc = recv_full(fd, buf, size);

		if (rc == 1)
			return 0;
		if (rc < 0 || send_full(fd, buf, size) < 0)
			return 1;
	}
}

static int
serve_udp_rr(int fd, size_t size, char *buf)
{
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, size, 0);
		if (n == 0)
			return 0; /* the client's end marker */
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		send(fd, buf, (size_t)n, 0);
	}
}

static int
serve_tcp_stream(int lfd, size_t size, char *buf, int out)
{
	struct floor_report rep = {0, 0, 0, 0};
	int fd = accept(lfd, NULL, NULL);
	ssize_t n;

	if (fd < 0)
		return 1;
	for (;;) {
		n = recv(fd, buf, size, 0);
		if (n > 0) {
			if (rep.bytes == 0)
				rep.first_ns = clock_ns();
			rep.bytes += (uint64_t)n;
			rep.msgs++;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	rep.last_ns = clock_ns();
	if (write(out, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		return 1;
	return n == 0 ? 0 : 1;
}

static int
serve_udp_stream(int fd, size_t size, char *buf, int out)
{
	struct floor_report rep = {0, 0, 0, 0};
	ssize_t n;

	set_idle_timeout(fd, 1);
	for (;;) {
		n = recv(fd, buf, size, 0);
		if (n > 0) {
			uint64_t now = clock_ns();

			if (rep.msgs == 0)
				rep.first_ns = now;
			rep.last_ns = now;
			rep.bytes += (uint64_t)n;
			rep.msgs++;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break; /* end marker, or a second of silence */
	}
	if (write(out, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		return 1;
	return 0;
}

/* The client halves. */

/*
 * With -H the RR loops do what lib/rr.c's client does per transaction:
 * read the clock before the request (netperf needs that read anyway, for
 * its deadline), read it again when the answer is in, and add the
 * difference to a latency histogram. Without -H the clock is read once
 * every FLOOR_CLOCK_EVERY transactions, for the deadline only.
 *
 * The time from the second read to the next transaction's first read is
 * what timing adds to a transaction: the rest of one clock_gettime, the
 * histogram update and the loop's branch. Summed in gap_ns, it measures
 * the cost in place, with the caches as the network stack leaves them.
 */
struct rr_clock {
	uint64_t start, end, top, after;
};

/* Called before each request; true when the loop should stop. */
static int
rr_top(const struct floor_opts *o, struct floor_rr *r, struct rr_clock *c)
{
	if (o->timing) {
		c->top = clock_ns();
		if (c->after != 0) {
			r->gap_ns += c->top - c->after;
			r->gaps++;
		}
		return o->count ? r->trans >= o->count : c->top >= c->end;
	}
	if (o->count != 0)
		return r->trans >= o->count;
	return r->trans % FLOOR_CLOCK_EVERY == 0 && clock_ns() >= c->end;
}

/* Called when an answer is in. */
static void
rr_answered(const struct floor_opts *o, struct floor_rr *r, struct rr_clock *c)
{
	if (o->timing) {
		c->after = clock_ns();
		stats_hist_add(&r->hist, c->after - c->top);
	}
	r->trans++;
}

static void
rr_begin(const struct floor_opts *o, struct rr_clock *c)
{
	c->start = clock_ns();
	c->end = c->start + (uint64_t)(o->secs * 1e9);
	c->after = 0; /* no gap to count before the first answer */
}

static int
run_tcp_rr(int fd, const struct floor_opts *o, char *buf, struct floor_rr *r)
{
	struct rr_clock c;
	int rc;

	rr_begin(o, &c);
	while (!rr_top(o, r, &c)) {
		if (send_full(fd, buf, o->size) < 0)
			return -1;
		rc = recv_full(fd, buf, o->size);
		if (rc == 1)
			errno = ECONNRESET; /* the server went away */
		if (rc != 0)
			return -1;
		rr_answered(o, r, &c);
	}
	r->elapsed_ns = clock_ns() - c.start;
	shutdown(fd, SHUT_WR);
	return 0;
}

static int
run_udp_rr(int fd, const struct floor_opts *o, char *buf, struct floor_rr *r)
{
	struct rr_clock c;
	ssize_t n;

	/* No time-out: one request in flight on loopback is not lost, and
	 * if it were, the watchdog would end the run as a failure. */
	rr_begin(o, &c);
	while (!rr_top(o, r, &c)) {
		if (send(fd, buf, o->size, 0) < 0 && errno != ENOBUFS)
			return -1;
		do
			n = recv(fd, buf, o->size, 0);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -1;
		rr_answered(o, r, &c);
	}
	r->elapsed_ns = clock_ns() - c.start;
	for (int i = 0; i < 3; i++)
		send(fd, buf, 0, 0);
	return 0;
}

/* Sends for o->secs seconds, counting the bytes sent. */
static int
run_tcp_stream(int fd, const struct floor_opts *o, const char *buf,
	       uint64_t *sent)
{
	uint64_t end = clock_ns() + (uint64_t)(o->secs * 1e9);
	ssize_t n;

	while (clock_ns() < end) {
		n = send(fd, buf, o->size, MSG_NOSIGNAL);
		if (n > 0)
			*sent += (uint64_t)n;
		else if (n < 0 && errno != EINTR)
			return -1;
	}
	shutdown(fd, SHUT_WR);
	return 0;
}

/* Sends datagrams for o->secs seconds, counting them and the failures. */
static int
run_udp_stream(int fd, const struct floor_opts *o, const char *buf,
	       uint64_t *sent, uint64_t *errs)
{
	uint64_t end = clock_ns() + (uint64_t)(o->secs * 1e9);
	struct timespec pause = {0, 10 * 1000 * 1000};

	while (clock_ns() < end) {
		if (send(fd, buf, o->size, 0) == (ssize_t)o->size)
			(*sent)++;
		else
			(*errs)++;
	}
	/* Let the receiver drain its queue before the end marker. */
	nanosleep(&pause, NULL);
	for (int i = 0; i < 3; i++)
		send(fd, buf, 0, 0);
	return 0;
}

/* Waits for the child for at most a few seconds, then kills it: the
 * only process this program ever signals is the one it forked. */
static int
reap(pid_t pid)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	int status, i;

	for (i = 0; i < 100 * FLOOR_GRACE_SECS; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		if (r < 0)
			return 1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 1;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: floor tcp_rr|udp_rr|tcp_stream|udp_stream [-c cpu] "
		"[-s cpu] [-t secs] [-n count] [-m size] [-H]\n");
	exit(2);
}

/* Returns optarg of option ch as a number in [lo, hi]; exits on anything
 * else. Only parse calls it, from main. */
static double
number(int ch, const char *arg, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0')
		errx(2, "-%c: \"%s\" is not a number", ch, arg);
	if (!(v >= lo && v <= hi))
		errx(2, "-%c: %s is outside [%g, %g]", ch, arg, lo, hi);
	return v;
}

static void
parse(int argc, char **argv, struct floor_opts *o)
{
	int ch;

	if (argc < 2)
		usage();
	o->name = argv[1];
	if (strcmp(o->name, "tcp_rr") == 0)
		o->test = TCP_RR;
	else if (strcmp(o->name, "udp_rr") == 0)
		o->test = UDP_RR;
	else if (strcmp(o->name, "tcp_stream") == 0)
		o->test = TCP_STREAM;
	else if (strcmp(o->name, "udp_stream") == 0)
		o->test = UDP_STREAM;
	else
		usage();
	o->ccpu = o->scpu = -1;
	o->secs = 5;
	o->count = 0;
	o->timing = 0;
	o->size = o->test == TCP_STREAM	  ? 131072
		  : o->test == UDP_STREAM ? 1472
					  : 1;
	optind = 2;
	while ((ch = getopt(argc, argv, "c:s:t:n:m:H")) != -1) {
		switch (ch) {
		case 'H':
			o->timing = 1;
			break;
		case 'c':
			o->ccpu = (int)number(ch, optarg, -1, CPU_SETSIZE - 1);
			break;
		case 's':
			o->scpu = (int)number(ch, optarg, -1, CPU_SETSIZE - 1);
			break;
		case 't':
			o->secs = number(ch, optarg, 0.001, FLOOR_MAX_SECS);
			break;
		case 'n':
			o->count = (uint64_t)number(ch, optarg, 1, 1e12);
			break;
		case 'm':
			o->size = (size_t)number(ch, optarg, 1, FLOOR_MAX_SIZE);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (o->timing && o->test != TCP_RR && o->test != UDP_RR)
		errx(2, "-H: only for the RR loops");
	if ((o->test == UDP_RR || o->test == UDP_STREAM) && o->size > 65507)
		errx(2, "-m: a UDP datagram carries at most 65507 bytes");
}

int
main(int argc, char **argv)
{
	struct floor_opts o;
	struct sockaddr_in ssin, csin;
	struct floor_report rep = {0, 0, 0, 0};
	static struct floor_rr rr; /* about 60 KB of histogram */
	uint64_t sent = 0, errs = 0;
	int sfd, cfd, pfd[2], rc = 0, type;
	unsigned limit;
	char *buf;
	pid_t pid;

	parse(argc, argv, &o);
	stats_hist_init(&rr.hist);
	buf = calloc(1, o.size);
	if (buf == NULL)
		err(1, "calloc");
	type =
	    o.test == TCP_RR || o.test == TCP_STREAM ? SOCK_STREAM : SOCK_DGRAM;
	sfd = bound_socket(type, &ssin);
	if (sfd < 0)
		err(1, "server socket");
	if (type == SOCK_STREAM && listen(sfd, 1) < 0)
		err(1, "listen");
	cfd = type == SOCK_STREAM ? socket(AF_INET, SOCK_STREAM, 0)
				  : bound_socket(SOCK_DGRAM, &csin);
	if (cfd < 0)
		err(1, "client socket");
	if (type == SOCK_DGRAM &&
	    connect(sfd, (struct sockaddr *)&csin, sizeof(csin)) < 0)
		err(1, "connect the server's socket");
	if (pipe(pfd) < 0)
		err(1, "pipe");

	/* alarm() is not inherited across fork: each process arms its own. */
	limit = (o.count != 0 ? FLOOR_MAX_SECS : (unsigned)o.secs + 1) +
		FLOOR_GRACE_SECS;
	pid = fork();
	if (pid < 0)
		err(1, "fork");
	alarm(limit);
	if (pid == 0) {
		close(cfd);
		close(pfd[0]);
		if (pin(o.scpu) < 0)
			err(1, "server: pin to CPU %d", o.scpu);
		switch (o.test) {
		case TCP_RR:
			_exit(serve_tcp_rr(sfd, o.size, buf));
		case UDP_RR:
			_exit(serve_udp_rr(sfd, o.size, buf));
		case TCP_STREAM:
			_exit(serve_tcp_stream(sfd, o.size, buf, pfd[1]));
		case UDP_STREAM:
			_exit(serve_udp_stream(sfd, o.size, buf, pfd[1]));
		}
		_exit(1);
	}
	close(sfd);
	close(pfd[1]);
	if (pin(o.ccpu) < 0) {
		warn("client: pin to CPU %d", o.ccpu);
		rc = -1;
		goto out;
	}
	if (connect(cfd, (struct sockaddr *)&ssin, sizeof(ssin)) < 0) {
		warn("connect");
		rc = -1;
		goto out;
	}
	switch (o.test) {
	case TCP_RR:
		rc = run_tcp_rr(cfd, &o, buf, &rr);
		break;
	case UDP_RR:
		rc = run_udp_rr(cfd, &o, buf, &rr);
		break;
	case TCP_STREAM:
		rc = run_tcp_stream(cfd, &o, buf, &sent);
		break;
	case UDP_STREAM:
		rc = run_udp_stream(cfd, &o, buf, &sent, &errs);
		break;
	}
	if (rc < 0)
		warn("%s", o.name);
	if (rc == 0 && (o.test == TCP_STREAM || o.test == UDP_STREAM) &&
	    read(pfd[0], &rep, sizeof(rep)) != (ssize_t)sizeof(rep)) {
		warnx("no report from the receiver");
		rc = -1;
	}
out:
	close(cfd);
	if (reap(pid) != 0 && rc == 0) {
		warnx("the server process failed");
		rc = -1;
	}
	if (rc < 0)
		return 1;

	if (o.test == TCP_RR || o.test == UDP_RR) {
		double s = (double)rr.elapsed_ns / 1e9;

		printf("{\"tool\":\"floor\",\"test\":\"%s\",\"client_cpu\":%d,"
		       "\"server_cpu\":%d,\"size\":%zu,\"seconds\":%.6f,"
		       "\"transactions\":%llu,"
		       "\"rate\":%.3f,\"units\":\"trans/s\",\"timing\":%s",
		       o.name, o.ccpu, o.scpu, o.size, s,
		       (unsigned long long)rr.trans, (double)rr.trans / s,
		       o.timing ? "true" : "false");
		if (o.timing && rr.gaps != 0)
			printf(",\"timing_gap_ns\":%.2f,\"mean_rtt_us\":%.3f,"
			       "\"p50_rtt_us\":%.3f,\"p99_rtt_us\":%.3f",
			       (double)rr.gap_ns / (double)rr.gaps,
			       stats_hist_mean(&rr.hist) / 1e3,
			       stats_hist_percentile(&rr.hist, 50) / 1e3,
			       stats_hist_percentile(&rr.hist, 99) / 1e3);
		printf("}\n");
	} else {
		double s = (double)(rep.last_ns - rep.first_ns) / 1e9;

		if (s <= 0)
			errx(1, "the receiver saw no data");
		printf("{\"tool\":\"floor\",\"test\":\"%s\",\"client_cpu\":%d,"
		       "\"server_cpu\":%d,\"size\":%zu,\"seconds\":%.6f,"
		       "\"bytes_sent\":%llu,\"bytes_received\":%llu,"
		       "\"messages_received\":%llu,\"send_errors\":%llu,"
		       "\"rate\":%.3f,\"units\":\"10^6bits/s\"}\n",
		       o.name, o.ccpu, o.scpu, o.size, s,
		       (unsigned long long)(o.test == UDP_STREAM ? sent * o.size
								 : sent),
		       (unsigned long long)rep.bytes,
		       (unsigned long long)rep.msgs, (unsigned long long)errs,
		       (double)rep.bytes * 8 / s / 1e6);
	}
	free(buf);
	return 0;
}
