/*
 * A delay line between two network namespaces, for kernels without
 * sch_netem: a TUN device in each namespace, and this relay between them
 * holding every packet a fixed time on CLOCK_MONOTONIC before it writes it
 * out of the other device. Packets keep their order; none is dropped
 * unless a queue overflows (counted, and reported on exit).
 *
 *   delayline NS_A IF_A NS_B IF_B DELAY_US[,DELAY_US] MAX_SECONDS
 *
 * One DELAY_US holds packets that long each way; two, the first from A
 * to B and the second from B to A (an asymmetric line, for one-way
 * delay).
 * NS_A and NS_B are names under /run/netns. The devices exist while the
 * relay runs and vanish with it. It prints "ready" on stdout once both
 * are open, and exits at SIGTERM, when stdin closes (the test that
 * started it is gone), or after MAX_SECONDS, whichever comes first.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* Packets one direction may hold: at 20 ms and 1500 bytes, 4096 are
 * 300 MB/s, far more than the tests send. */
#define DL_SLOTS 4096
#define DL_MTU 2048
/* How long before a packet is due the relay stops sleeping, in ns, when
 * it holds at most DL_SPIN_MAX packets. */
#define DL_EARLY 300000u
#define DL_SPIN_MAX 4u

struct slot {
	uint64_t due;
	uint16_t len;
	unsigned char data[DL_MTU];
};

/* One direction: packets read from one device, due for the other. */
struct dir {
	int in, out;
	struct slot *ring;
	unsigned head, count;
	uint64_t relayed, overflow;
};

static volatile sig_atomic_t done;

static void
on_term(int sig)
{
	(void)sig;
	done = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Opens TUN device name inside namespace ns; returns its descriptor, or
 * -1 with a message on stderr. */
static int
tun_open(const char *ns, const char *name)
{
	char path[300];
	struct ifreq ifr;
	int nsfd, fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "delayline: namespace %s: %s\n", ns,
			strerror(errno));
		if (nsfd >= 0)
			close(nsfd);
		return -1;
	}
	close(nsfd);
	/* The device is created in the namespace the opener is in. */
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "delayline: /dev/net/tun: %s\n",
			strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		fprintf(stderr, "delayline: TUNSETIFF %s: %s\n", name,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads every packet waiting on d->in and queues it, due at now + delay. */
static void
take(struct dir *d, uint64_t delay)
{
	unsigned char scratch[DL_MTU];
	struct slot *s;
	ssize_t n;

	for (;;) {
		if (d->count == DL_SLOTS) {
			n = read(d->in, scratch, sizeof(scratch));
			if (n < 0)
				return;
			d->overflow++;
			continue;
		}
		s = &d->ring[(d->head + d->count) % DL_SLOTS];
		n = read(d->in, s->data, sizeof(s->data));
		if (n <= 0)
			return;
		/* Stamped as it is read: a packet the relay was late to
		 * read is late by that much more, never early. */
		s->due = now_ns() + delay;
		s->len = (uint16_t)n;
		d->count++;
	}
}

/* Writes out every queued packet whose time has come. */
static void
give(struct dir *d, uint64_t now)
{
	struct slot *s;

	while (d->count > 0) {
		s = &d->ring[d->head];
		if (s->due > now)
			return;
		if (write(d->out, s->data, s->len) == (ssize_t)s->len)
			d->relayed++;
		else
			d->overflow++;
		d->head = (d->head + 1) % DL_SLOTS;
		d->count--;
	}
}

int
main(int argc, char **argv)
{
	struct dir dirs[2];
	struct pollfd pfd[3];
	struct sched_param sp = {.sched_priority = 10};
	uint64_t delay[2], end, now, next;
	char *rest;
	struct timespec ts;
	int a, b, i;

	if (argc != 7) {
		fprintf(stderr, "usage: delayline NS_A IF_A NS_B IF_B "
				"DELAY_US[,DELAY_US] MAX_SECONDS\n");
		return 2;
	}
	delay[0] = strtoull(argv[5], &rest, 10) * 1000u;
	delay[1] =
	    *rest == ',' ? strtoull(rest + 1, NULL, 10) * 1000u : delay[0];
	end = now_ns() + strtoull(argv[6], NULL, 10) * 1000000000u;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* Wake when a packet is due, not 50 us later. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	a = tun_open(argv[1], argv[2]);
	b = a < 0 ? -1 : tun_open(argv[3], argv[4]);
	if (a < 0 || b < 0)
		return 1;
	/* A real-time class keeps the delay exact on a loaded machine; the
	 * relay sleeps between packets (polls for at most DL_EARLY before
	 * each, when it holds few) and dies at MAX_SECONDS, and the
	 * kernel's RT throttling bounds it anyway. Without it, the test's
	 * own ping-pong check says whether the line is still good. */
	sched_setscheduler(0, SCHED_FIFO, &sp);
	memset(dirs, 0, sizeof(dirs));
	dirs[0].in = a;
	dirs[0].out = b;
	dirs[1].in = b;
	dirs[1].out = a;
	for (i = 0; i < 2; i++) {
		dirs[i].ring = calloc(DL_SLOTS, sizeof(struct slot));
		if (dirs[i].ring == NULL) {
			fprintf(stderr, "delayline: out of memory\n");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	pfd[0].fd = a;
	pfd[1].fd = b;
	pfd[2].fd = STDIN_FILENO;
	for (i = 0; i < 3; i++)
		pfd[i].events = POLLIN;
	while (!done) {
		now = now_ns();
		if (now >= end)
			break;
		give(&dirs[0], now);
		give(&dirs[1], now);
		next = end;
		for (i = 0; i < 2; i++)
			if (dirs[i].count > 0 &&
			    dirs[i].ring[dirs[i].head].due < next)
				next = dirs[i].ring[dirs[i].head].due;
		/* A timer wakes this VM's relay 100 to 500 us late: with a
		 * few packets held (request/response, pings), sleep until
		 * DL_EARLY before the next is due, then poll without
		 * sleeping (still reading) until it is. A bulk flow keeps
		 * many in flight, and would keep the relay polling at its
		 * real-time priority: it sleeps to each due time instead. */
		if (dirs[0].count + dirs[1].count <= DL_SPIN_MAX)
			next = next > now + DL_EARLY ? next - now - DL_EARLY
						     : 0;
		else
			next = next > now ? next - now : 0;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		if (ppoll(pfd, 3, &ts, NULL) < 0 && errno != EINTR)
			break;
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR)) {
			char c;

			/* The test holds the other end; EOF means it died. */
			if (read(STDIN_FILENO, &c, 1) <= 0)
				break;
		}
		if (pfd[0].revents & POLLIN)
			take(&dirs[0], delay[0]);
		if (pfd[1].revents & POLLIN)
			take(&dirs[1], delay[1]);
	}
	fprintf(stderr,
		"delayline: relayed %llu a->b, %llu b->a; overflow %llu, %llu\n",
		(unsigned long long)dirs[0].relayed,
		(unsigned long long)dirs[1].relayed,
		(unsigned long long)dirs[0].overflow,
		(unsigned long long)dirs[1].overflow);
	free(dirs[0].ring);
	free(dirs[1].ring);
	return 0;
}
