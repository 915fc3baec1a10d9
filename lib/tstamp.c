/* --timestamps: SO_TIMESTAMPING on a data socket, stamps matched to
 * transactions, and the parts of a round trip (see np/tstamp.h). */
#include "np/tstamp.h"

#include <errno.h>
#include <ifaddrs.h>
#include <linux/errqueue.h>
#include <linux/ethtool.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/proto.h"

/* Transactions remembered until their stamps come: a power of two that
 * divides 256, so that UDP_RR's 1-byte tags (the low 8 bits of its
 * sequence numbers) still find their slot. */
#define TSTAMP_RING 256
/* The error queue is read once every this many stamped transactions, in
 * one recvmmsg call: two stamps (SCHED, SND) a send, well inside the
 * socket's receive buffer, which the error queue is charged to. Every
 * TSTAMP_EVERY-th transaction takes a slot of the ring, so a batch must
 * be read before the ring comes round to its first slot again. */
#define TSTAMP_BATCH 4
_Static_assert(TSTAMP_BATCH * TSTAMP_EVERY <= TSTAMP_RING,
	       "a slot is taken again before its stamps are read");
/* Messages one recvmmsg call takes. */
#define TSTAMP_VEC (4 * TSTAMP_BATCH)
#define TSTAMP_CTRL 256
/* Linux 6.2's OPT_ID_TCP: TCP's count starts at the next byte written,
 * not at the first unacknowledged one. Older headers lack its name. */
#ifndef SOF_TIMESTAMPING_OPT_ID_TCP
#define SOF_TIMESTAMPING_OPT_ID_TCP (1 << 16)
#endif

/* One transaction: netperf's (send, SND, RX, read) or netserver's (RX,
 * read, write, SND), CLOCK_REALTIME ns; 0 while unknown. */
struct slot {
	uint32_t key;  /* netperf: the caller's key; netserver: its count */
	uint32_t id;   /* OPT_ID of the send's last byte or datagram */
	int live;      /* waiting for stamps */
	int answered;  /* netperf: the answer was read */
	uint64_t t[4]; /* in the order above */
	uint64_t sched;
	/* The NIC's stamps (its clock), 0 when none: of the wire part's
	 * first stamp (netperf: SND; netserver: RX) and its second. */
	uint64_t hw_a, hw_b;
};

struct tstamp {
	int fd, tcp, server;
	int delay_us;
	uint32_t next_id;  /* OPT_ID of the next byte or datagram sent */
	uint64_t count;	   /* netserver: answers so far */
	uint32_t oldest;   /* a slot index where stamp searches start */
	int since_drain;   /* stamped transactions since the last drain */
	int sample;	   /* the next send is stamped */
	int stamped;	   /* the last send was */
	uint64_t nsend;	   /* netperf: requests begun */
	int want_rx;	   /* stamped transactions waiting for a read */
	uint32_t udp_id;   /* UDP: OPT_ID of the next stamped datagram */
	uint64_t t0;	   /* tstamp_send_begin's */
	uint64_t rx, read; /* the last data read's RX stamp and return */
	uint64_t rx_hw;	   /* the last data read's hardware RX stamp */
	/* The last pass (tstamp_collect): a slot settles with what it
	 * has, not waiting for a hardware SND stamp. */
	int final;
	/* SO_TIMESTAMPING's flags with the reporting ones (SOFTWARE,
	 * RAW_HARDWARE) and without, and whether they are on now: off, a
	 * read takes no look at the stamps (see report). */
	unsigned flags_on, flags_off;
	int reporting;
	struct slot ring[TSTAMP_RING];
	struct tstamp_account acct;
	struct stats_hist hist[TSTAMP_NHIST];
	char rctrl[TSTAMP_CTRL];
	char sctrl[CMSG_SPACE(sizeof(uint32_t))];
	struct mmsghdr vec[TSTAMP_VEC];
	char ctrl[TSTAMP_VEC][TSTAMP_CTRL];
};

/* Whether transaction n (from 0, as each end counts) is stamped. */
static inline int
sampled(uint64_t n)
{
	return n < TSTAMP_FIRST || n % TSTAMP_EVERY == 0;
}

static uint64_t
real_ns(void)
{
	return (uint64_t)clock_real_ns();
}

static uint64_t
ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * NS_PER_SEC + (uint64_t)t->tv_nsec;
}

int
tstamp_pick(const struct timespec ts[3], uint64_t *sw, uint64_t *hw)
{
	int kinds = 0;

	/* ts[1] is the legacy hardware stamp moved to system time, which
	 * no current driver fills: it is never used. */
	*sw = ts[0].tv_sec != 0 || ts[0].tv_nsec != 0 ? ts_ns(&ts[0]) : 0;
	*hw = ts[2].tv_sec != 0 || ts[2].tv_nsec != 0 ? ts_ns(&ts[2]) : 0;
	if (*sw != 0)
		kinds |= TSTAMP_KIND_SW;
	if (*hw != 0)
		kinds |= TSTAMP_KIND_HW;
	return kinds;
}

int
tstamp_wire(uint64_t a_sw, uint64_t a_hw, uint64_t b_sw, uint64_t b_hw,
	    uint64_t *ns)
{
	/* The NIC's clock is not the kernel's: a pair is taken whole from
	 * one of them. */
	if (a_hw != 0 && b_hw != 0 && b_hw >= a_hw) {
		*ns = b_hw - a_hw;
		return TSTAMP_KIND_HW;
	}
	if (a_sw != 0 && b_sw != 0 && b_sw >= a_sw) {
		*ns = b_sw - a_sw;
		return TSTAMP_KIND_SW;
	}
	*ns = 0;
	return 0;
}

/* The name of the interface that holds the socket's local address, into
 * name (IFNAMSIZ); 0, or -1 when none does. */
static int
local_ifname(int fd, char *name)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct ifaddrs *ifa, *i;
	int rc = -1;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
	    getifaddrs(&ifa) < 0)
		return -1;
	for (i = ifa; i != NULL && rc < 0; i = i->ifa_next) {
		if (i->ifa_addr == NULL ||
		    i->ifa_addr->sa_family != ss.ss_family)
			continue;
		if ((ss.ss_family == AF_INET &&
		     ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
			 ((struct sockaddr_in *)&ss)->sin_addr.s_addr) ||
		    (ss.ss_family == AF_INET6 &&
		     memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			    &((struct sockaddr_in6 *)&ss)->sin6_addr,
			    sizeof(struct in6_addr)) == 0)) {
			snprintf(name, IFNAMSIZ, "%s", i->ifa_name);
			rc = 0;
		}
	}
	freeifaddrs(ifa);
	return rc;
}

void
tstamp_hw_reason(int fd, char *why, size_t cap)
{
	struct ethtool_ts_info info = {.cmd = ETHTOOL_GET_TS_INFO};
	struct hwtstamp_config cfg;
	char name[IFNAMSIZ];
	struct ifreq ifr;

	if (local_ifname(fd, name) < 0) {
		snprintf(why, cap, "no interface holds the socket's address");
		return;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0 &&
	    !(info.so_timestamping & SOF_TIMESTAMPING_RAW_HARDWARE)) {
		snprintf(why, cap,
			 "%s makes no hardware stamps (ethtool: "
			 "software only)",
			 name);
		return;
	}
	memset(&cfg, 0, sizeof(cfg));
	ifr.ifr_data = (void *)&cfg;
	if (ioctl(fd, SIOCGHWTSTAMP, &ifr) < 0) {
		snprintf(why, cap,
			 "%s makes no hardware stamps "
			 "(SIOCGHWTSTAMP: %s)",
			 name, strerror(errno));
		return;
	}
	if (cfg.tx_type == HWTSTAMP_TX_OFF ||
	    cfg.rx_filter == HWTSTAMP_FILTER_NONE) {
		snprintf(why, cap,
			 "%s has hardware stamps turned off (tx %s, "
			 "rx %s); netperf never turns them on "
			 "(hwstamp_ctl or ptp4l do)",
			 name, cfg.tx_type == HWTSTAMP_TX_OFF ? "off" : "on",
			 cfg.rx_filter == HWTSTAMP_FILTER_NONE ? "off" : "on");
		return;
	}
	why[0] = '\0';
}

struct tstamp *
tstamp_open(int fd, int tcp, int server, int delay_us, char *err)
{
	/* Software stamps for receives, and hardware ones where the NIC was
	 * set to make them; OPT_ID numbers sends' stamps, OPT_TSONLY leaves
	 * the packet out of the error queue, OPT_CMSG gives its control
	 * messages. Sends ask for theirs one at a time (tstamp_send). */
	unsigned flags =
	    SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
	    SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE |
	    SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY |
	    SOF_TIMESTAMPING_OPT_CMSG;
	struct cmsghdr *c;
	struct tstamp *ts;
	int i;

	ts = calloc(1, sizeof(*ts));
	if (ts == NULL) {
		err_set(err, "out of memory");
		return NULL;
	}
	/* Over TCP, OPT_ID alone counts from the first byte not yet
	 * acknowledged (the test's token may still be in flight): OPT_ID_TCP
	 * counts from the next byte written. A kernel without it (before
	 * 6.2) counts from snd_una, and what is unacknowledged is added. */
	if (tcp && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING,
			      &(unsigned){flags | SOF_TIMESTAMPING_OPT_ID_TCP},
			      sizeof(flags)) == 0) {
		flags |= SOF_TIMESTAMPING_OPT_ID_TCP;
		ts->next_id = 0;
	} else if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags,
			      sizeof(flags)) < 0) {
		err_set(err, "--timestamps: SO_TIMESTAMPING: %s",
			strerror(errno));
		free(ts);
		return NULL;
	} else if (tcp) {
		int outq = 0;

		if (ioctl(fd, SIOCOUTQ, &outq) == 0 && outq > 0)
			ts->next_id = (uint32_t)outq;
	}
	ts->fd = fd;
	ts->tcp = tcp;
	ts->server = server;
	ts->delay_us = delay_us;
	ts->flags_on = flags;
	ts->flags_off = flags & ~(SOF_TIMESTAMPING_SOFTWARE |
				  SOF_TIMESTAMPING_RAW_HARDWARE);
	ts->reporting = 1;
	/* Once, before the data path: reported when no hardware stamp
	 * came. */
	tstamp_hw_reason(fd, ts->acct.hw_why, sizeof(ts->acct.hw_why));
	for (i = 0; i < TSTAMP_NHIST; i++)
		stats_hist_init(&ts->hist[i]);
	for (i = 0; i < TSTAMP_VEC; i++) {
		ts->vec[i].msg_hdr.msg_control = ts->ctrl[i];
		ts->vec[i].msg_hdr.msg_controllen = TSTAMP_CTRL;
	}
	/* A stamped send's control message: entering the qdisc, leaving
	 * for the driver, and the NIC's own stamp where it makes one. */
	c = (struct cmsghdr *)ts->sctrl;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SO_TIMESTAMPING;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	*(uint32_t *)CMSG_DATA(c) = SOF_TIMESTAMPING_TX_SCHED |
				    SOF_TIMESTAMPING_TX_SOFTWARE |
				    SOF_TIMESTAMPING_TX_HARDWARE;
	return ts;
}

void
tstamp_free(struct tstamp *ts)
{
	free(ts);
}

static void
add(struct tstamp *ts, int part, uint64_t v)
{
	stats_hist_add(&ts->hist[part], v);
}

/* A slot with every time it needs becomes its parts; one whose times run
 * backwards (the clock was stepped) is dropped as incomplete. */
static void
settle(struct tstamp *ts, struct slot *s)
{
	uint64_t *t = s->t, wire;
	int kind;

	if (!s->live || t[0] == 0 || t[1] == 0 || t[2] == 0 || t[3] == 0)
		return;
	/* A NIC that stamped the receive stamps the send too, a little
	 * after the kernel's SND stamp: wait for it, until the last pass. */
	if (!ts->final && (ts->server ? s->hw_a : s->hw_b) != 0 &&
	    (ts->server ? s->hw_b : s->hw_a) == 0)
		return;
	s->live = 0;
	if (!ts->server) {
		/* send, SND, RX, read */
		if (t[1] < t[0] || t[3] < t[2] || t[3] < t[0] ||
		    t[3] - t[0] < (t[1] - t[0]) + (t[3] - t[2])) {
			ts->acct.incomplete++;
			return;
		}
		add(ts, TSTAMP_RTT, t[3] - t[0]);
		add(ts, TSTAMP_CLIENT_OUT, t[1] - t[0]);
		add(ts, TSTAMP_CLIENT_IN, t[3] - t[2]);
		add(ts, TSTAMP_CLIENT_STACK, (t[1] - t[0]) + (t[3] - t[2]));
		/* SND to RX: the network and netserver's residence, from
		 * the NIC's stamps when both are its. The stack parts pair
		 * an application's time with a stamp, so they take the
		 * kernel's (the application's clock) whatever the NIC
		 * does. */
		kind = tstamp_wire(t[1], s->hw_a, t[2], s->hw_b, &wire);
		if (kind == TSTAMP_KIND_HW)
			ts->acct.hw_wire++;
		add(ts, TSTAMP_CLIENT_REST, wire);
		return;
	}
	/* RX, read, write, SND */
	if (t[1] < t[0] || t[2] < t[1] || t[3] < t[2]) {
		ts->acct.incomplete++;
		return;
	}
	kind = tstamp_wire(t[0], s->hw_a, t[3], s->hw_b, &wire);
	if (kind == TSTAMP_KIND_HW)
		ts->acct.hw_wire++;
	add(ts, TSTAMP_SERVER, wire);
	add(ts, TSTAMP_SERVER_IN, t[1] - t[0]);
	add(ts, TSTAMP_SERVER_APP, t[2] - t[1]);
	add(ts, TSTAMP_SERVER_OUT, t[3] - t[2]);
}

/* Takes slot i for a new transaction; one still waiting there never got
 * its stamps. */
static struct slot *
take(struct tstamp *ts, uint32_t key)
{
	struct slot *s = &ts->ring[key % TSTAMP_RING];

	if (s->live) {
		ts->acct.incomplete++;
		/* netperf's request never answered (UDP, lost) */
		if (!ts->server && !s->answered && ts->want_rx > 0)
			ts->want_rx--;
	}
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->live = 1;
	return s;
}

/* A send's stamp: its slot is found by OPT_ID, searching from the oldest
 * slot still waiting, as stamps come in order. */
static void
tx_stamp(struct tstamp *ts, uint32_t id, uint32_t kind, uint64_t ns, int hw)
{
	int snd = ts->server ? 3 : 1;
	uint32_t i, k;

	for (i = 0; i < TSTAMP_RING; i++) {
		struct slot *s;

		k = (ts->oldest + i) % TSTAMP_RING;
		s = &ts->ring[k];
		if (!s->live || s->id != id)
			continue;
		ts->oldest = k;
		if (hw) {
			/* The NIC's stamp of the packet leaving it. */
			if (kind == SCM_TSTAMP_SND) {
				*(ts->server ? &s->hw_b : &s->hw_a) = ns;
				if (s->t[snd] != 0 &&
				    (ts->server || s->answered))
					settle(ts, s);
			}
		} else if (kind == SCM_TSTAMP_SCHED) {
			s->sched = ns;
		} else if (kind == SCM_TSTAMP_SND && s->t[snd] == 0) {
			s->t[snd] = ns;
			if (ts->server || s->answered)
				settle(ts, s);
		}
		return;
	}
}

/*
 * Turns the stamps' reporting on or off. With a reporting flag set, the
 * kernel takes every read of the socket through its control-message
 * code (sock_recv_cmsgs: the stamp looked up and a control message
 * built, then dropped for a plain recv), the larger part of what an
 * unstamped transaction paid. The generating flags stay as they are:
 * packets are still stamped on arrival and sends on request, OPT_ID's
 * count goes on (it restarts only when OPT_ID itself is set anew), and
 * no kernel-wide switch is flipped. Reporting is on for the reads of
 * stamped transactions and the error queue's, two calls a stamped
 * transaction at most.
 */
static void
report(struct tstamp *ts, int on)
{
	unsigned f = on ? ts->flags_on : ts->flags_off;

	if (ts->reporting == on)
		return;
	if (setsockopt(ts->fd, SOL_SOCKET, SO_TIMESTAMPING, &f, sizeof(f)) == 0)
		ts->reporting = on;
}

/* Reads the error queue: whatever stamps are there, in one call a batch
 * of TSTAMP_VEC. */
static void
drain(struct tstamp *ts)
{
	int n, i;

	ts->since_drain = 0;
	/* Its stamps come as control messages: reported. */
	report(ts, 1);
	do {
		for (i = 0; i < TSTAMP_VEC; i++) {
			ts->vec[i].msg_hdr.msg_controllen = TSTAMP_CTRL;
			ts->vec[i].msg_hdr.msg_flags = 0;
		}
		n = recvmmsg(ts->fd, ts->vec, TSTAMP_VEC,
			     MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
		ts->acct.errq_calls++;
		for (i = 0; i < n; i++) {
			struct msghdr *m = &ts->vec[i].msg_hdr;
			struct scm_timestamping *st = NULL;
			struct sock_extended_err *ee = NULL;
			struct cmsghdr *c;
			uint64_t sw, hw;
			int kinds;

			for (c = CMSG_FIRSTHDR(m); c != NULL;
			     c = CMSG_NXTHDR(m, c)) {
				if (c->cmsg_level == SOL_SOCKET &&
				    c->cmsg_type == SCM_TIMESTAMPING)
					st = (void *)CMSG_DATA(c);
				else if ((c->cmsg_level == SOL_IP &&
					  c->cmsg_type == IP_RECVERR) ||
					 (c->cmsg_level == SOL_IPV6 &&
					  c->cmsg_type == IPV6_RECVERR))
					ee = (void *)CMSG_DATA(c);
			}
			if (st == NULL || ee == NULL ||
			    ee->ee_origin != SO_EE_ORIGIN_TIMESTAMPING)
				continue;
			ts->acct.stamps++;
			kinds = tstamp_pick(st->ts, &sw, &hw);
			if (kinds & TSTAMP_KIND_SW)
				tx_stamp(ts, ee->ee_data, ee->ee_info, sw, 0);
			if (kinds & TSTAMP_KIND_HW) {
				ts->acct.hw++;
				tx_stamp(ts, ee->ee_data, ee->ee_info, hw, 1);
			}
		}
	} while (n == TSTAMP_VEC);
}

void
tstamp_drain(struct tstamp *ts)
{
	drain(ts);
}

void
tstamp_send_begin(struct tstamp *ts)
{
	ts->sample = sampled(ts->nsend++);
	if (ts->sample)
		ts->t0 = real_ns();
	ts->stamped = 0;
}

ssize_t
tstamp_send(struct tstamp *ts, const void *buf, size_t len, int flags)
{
	struct iovec iov = {(void *)buf, len};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ts->sctrl,
			   .msg_controllen = sizeof(ts->sctrl)};

	if (!ts->sample)
		return send(ts->fd, buf, len, flags);
	/* One call is stamped, at its last byte: what a partial send
	 * leaves goes unstamped, and the transaction stays incomplete. */
	ts->sample = 0;
	ts->stamped = 1;
	return sendmsg(ts->fd, &m, flags);
}

void
tstamp_sent(struct tstamp *ts, uint32_t key, size_t len)
{
	struct slot *s;

	/* TCP numbers every byte, and a send is stamped at its last; UDP
	 * numbers only the datagrams that ask for a stamp. */
	if (ts->tcp)
		ts->next_id += (uint32_t)len;
	if (!ts->stamped)
		return;
	ts->stamped = 0;
	s = take(ts, key);
	s->id = ts->tcp ? ts->next_id - 1 : ts->udp_id++;
	s->t[0] = ts->t0;
	ts->since_drain++;
	ts->want_rx++;
}

ssize_t
tstamp_recv(struct tstamp *ts, void *buf, size_t len, int flags)
{
	struct iovec iov = {buf, len};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ts->rctrl,
			   .msg_controllen = sizeof(ts->rctrl)};
	struct cmsghdr *c;
	ssize_t n;

	/* netserver reads its stamps here, after an answer has gone and
	 * before the next request is read: in none of its parts. */
	if (ts->server && ts->since_drain >= TSTAMP_BATCH)
		drain(ts);
	/* A read no stamped transaction waits for takes no stamp: a
	 * control message costs about as much as a stamped send, and
	 * with the reporting off the kernel does not build one. */
	if (ts->server ? !sampled(ts->count) : ts->want_rx == 0) {
		report(ts, 0);
		return recv(ts->fd, buf, len, flags);
	}
	report(ts, 1);
	n = recvmsg(ts->fd, &m, flags);
	if (n <= 0)
		return n;
	ts->read = real_ns();
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_TIMESTAMPING) {
			const struct scm_timestamping *st =
			    (const void *)CMSG_DATA(c);
			uint64_t sw, hw;
			int kinds = tstamp_pick(st->ts, &sw, &hw);

			if (kinds & TSTAMP_KIND_HW) {
				ts->rx_hw = hw;
				ts->acct.hw++;
			}
			if (kinds & TSTAMP_KIND_SW) {
				ts->rx = sw;
				ts->acct.stamps++;
			}
		}
	return n;
}

void
tstamp_answered(struct tstamp *ts, uint32_t key)
{
	struct slot *s = &ts->ring[key % TSTAMP_RING];

	if (s->live && s->key == key && !s->answered) {
		if (ts->want_rx > 0)
			ts->want_rx--;
		s->answered = 1;
		s->t[2] = ts->rx;
		s->t[3] = ts->read;
		s->hw_b = ts->rx_hw;
		/* The request's SND stamp is usually read below, a batch
		 * at a time; without one a SCHED stamp stands in. */
		if (s->t[1] != 0)
			settle(ts, s);
	}
	ts->rx = ts->rx_hw = 0;
	if (ts->since_drain >= TSTAMP_BATCH)
		drain(ts);
}

void
tstamp_request(struct tstamp *ts)
{
	struct slot *s;

	ts->sample = sampled(ts->count);
	if (ts->sample) {
		s = take(ts, (uint32_t)ts->count);
		s->t[0] = ts->rx;
		s->t[1] = ts->read;
		s->hw_a = ts->rx_hw;
	}
	ts->rx = ts->rx_hw = 0;
	if (ts->delay_us > 0) {
		struct timespec d = {0, (long)ts->delay_us * 1000};

		while (nanosleep(&d, &d) < 0 && errno == EINTR)
			;
	}
}

void
tstamp_answer(struct tstamp *ts, size_t len)
{
	struct slot *s = &ts->ring[ts->count % TSTAMP_RING];

	ts->count++;
	if (ts->tcp)
		ts->next_id += (uint32_t)len;
	if (!ts->sample)
		return;
	s->id = ts->tcp ? ts->next_id - 1 : ts->udp_id++;
	s->t[2] = real_ns();
	ts->since_drain++;
}

/* Slots that only lack a SND stamp take their SCHED stamp: a device that
 * never stamps at the driver still splits the round trip at its qdisc. */
static void
settle_sched(struct tstamp *ts)
{
	int snd = ts->server ? 3 : 1, i;

	for (i = 0; i < TSTAMP_RING; i++) {
		struct slot *s = &ts->ring[i];

		if (s->live && s->t[snd] == 0 && s->sched != 0 &&
		    (ts->server || s->answered)) {
			s->t[snd] = s->sched;
			settle(ts, s);
		}
	}
}

int
tstamp_collect(struct tstamp *ts, struct tstamp_account *a, char *err)
{
	int i;

	drain(ts);
	ts->final = 1;
	for (i = 0; i < TSTAMP_RING; i++)
		settle(ts, &ts->ring[i]);
	settle_sched(ts);
	for (i = 0; i < TSTAMP_RING; i++)
		if (ts->ring[i].live) {
			ts->ring[i].live = 0;
			ts->acct.incomplete++;
		}
	for (i = 0; i < TSTAMP_NHIST; i++) {
		if (ts->hist[i].count == 0 && a->h[i] == NULL)
			continue;
		if (a->h[i] == NULL) {
			a->h[i] = malloc(sizeof(*a->h[i]));
			if (a->h[i] == NULL)
				return err_set(err, "out of memory");
			stats_hist_init(a->h[i]);
		}
		stats_hist_merge(a->h[i], &ts->hist[i]);
		stats_hist_init(&ts->hist[i]);
	}
	a->stamps += ts->acct.stamps;
	a->errq_calls += ts->acct.errq_calls;
	a->incomplete += ts->acct.incomplete;
	a->hw += ts->acct.hw;
	a->hw_wire += ts->acct.hw_wire;
	if (a->hw_why[0] == '\0')
		snprintf(a->hw_why, sizeof(a->hw_why), "%s", ts->acct.hw_why);
	memset(&ts->acct, 0, sizeof(ts->acct));
	return 0;
}

void
tstamp_account_free(struct tstamp_account *a)
{
	int i;

	for (i = 0; i < TSTAMP_NHIST; i++) {
		free(a->h[i]);
		a->h[i] = NULL;
	}
}

void
tstamp_result_free(struct tstamp_result *t)
{
	tstamp_account_free(&t->side[0]);
	tstamp_account_free(&t->side[1]);
}

/* The parts' names: JSON keys and the -v 2 table's rows. */
static const char *const part_name[TSTAMP_NPARTS] = {
    "round_trip",	"client_stack_out", "client_stack_in", "client_stack",
    "client_rest",	"server",	    "server_stack_in", "server_app",
    "server_stack_out", "network",
};

/* Buckets a packed histogram may have before it is coarsened: four of
 * them must fit a results message (PROTO_MAX_MSG) with room to spare. */
#define TSTAMP_PACK_BUCKETS 600

/* h, or where it has too many buckets for a message, a copy of it with
 * each run of 8 buckets moved to its middle one (16 a power of two, each
 * value known to within 3 %; count, sum, min and max stay exact). */
static const struct stats_hist *
packable(const struct stats_hist *h, struct stats_hist *tmp)
{
	int i, n = 0;

	for (i = 0; i < STATS_NBUCKETS; i++)
		n += h->bucket[i] != 0;
	if (n <= TSTAMP_PACK_BUCKETS)
		return h;
	*tmp = *h;
	memset(tmp->bucket, 0, sizeof(tmp->bucket));
	for (i = 0; i < STATS_NBUCKETS; i++)
		tmp->bucket[(i & ~7) + 4] += h->bucket[i];
	return tmp;
}

json_t *
tstamp_pack(const struct tstamp_account *a)
{
	struct stats_hist *tmp = malloc(sizeof(*tmp));
	json_t *o =
	    json_pack("{s:I, s:I, s:I, s:I}", "stamps", (json_int_t)a->stamps,
		      "errq_calls", (json_int_t)a->errq_calls, "incomplete",
		      (json_int_t)a->incomplete, "hw", (json_int_t)a->hw);
	json_t *h;
	int i;

	if (o == NULL || tmp == NULL ||
	    json_object_set_new(o, "hw_wire",
				json_integer((json_int_t)a->hw_wire)) < 0 ||
	    json_object_set_new(o, "hw_why", json_string(a->hw_why)) < 0)
		goto fail;
	for (i = 0; i < TSTAMP_NHIST; i++) {
		if (a->h[i] == NULL)
			continue;
		h = proto_hist_pack(packable(a->h[i], tmp));
		if (h == NULL || json_object_set_new(o, part_name[i], h) < 0)
			goto fail;
	}
	free(tmp);
	return o;
fail:
	free(tmp);
	json_decref(o);
	return NULL;
}

int
tstamp_unpack(const json_t *j, struct tstamp_account *a, char *err)
{
	static const char *const counts[] = {"stamps", "errq_calls",
					     "incomplete", "hw"};
	uint64_t *dst[] = {&a->stamps, &a->errq_calls, &a->incomplete, &a->hw};
	int64_t v;
	json_t *h;
	int i;

	tstamp_account_free(a);
	memset(a, 0, sizeof(*a));
	if (!json_is_object(j))
		return err_set(err, "timestamps: not an object");
	for (i = 0; i < 4; i++) {
		if (proto_get_int(j, counts[i], 0, INT64_MAX, &v, err) < 0)
			return -1;
		*dst[i] = (uint64_t)v;
	}
	/* What an older netserver does not send: no hardware used, and
	 * no reason given. */
	if (json_object_get(j, "hw_wire") != NULL) {
		if (proto_get_int(j, "hw_wire", 0, INT64_MAX, &v, err) < 0)
			return -1;
		a->hw_wire = (uint64_t)v;
	}
	if (json_object_get(j, "hw_why") != NULL) {
		if (proto_get_string(j, "hw_why", a->hw_why, sizeof(a->hw_why),
				     err) < 0)
			return -1;
		/* It is printed: nothing but printable ASCII. */
		for (i = 0; a->hw_why[i] != '\0'; i++)
			if (a->hw_why[i] < 0x20 || a->hw_why[i] > 0x7e)
				a->hw_why[i] = '?';
	}
	for (i = 0; i < TSTAMP_NHIST; i++) {
		h = json_object_get(j, part_name[i]);
		if (h == NULL)
			continue;
		a->h[i] = malloc(sizeof(*a->h[i]));
		if (a->h[i] == NULL)
			return err_set(err, "out of memory");
		if (proto_hist_unpack(h, a->h[i], err) < 0)
			return -1;
	}
	return 0;
}

static const struct stats_hist *
hist_of(const struct tstamp_result *t, int p)
{
	const struct stats_hist *h = t->side[0].h[p];

	if (h == NULL)
		h = t->side[1].h[p];
	return h != NULL && h->count > 0 ? h : NULL;
}

int
tstamp_figure(const struct tstamp_result *t, int p, struct tstamp_fig *f)
{
	const struct stats_hist *h, *srv;
	double shift;

	memset(f, 0, sizeof(*f));
	if (t == NULL || p < 0 || p >= TSTAMP_NPARTS)
		return -1;
	if (p != TSTAMP_NETWORK) {
		h = hist_of(t, p);
		if (h == NULL)
			return -1;
		f->count = h->count;
		f->sum_ns = h->sum;
		f->mean = stats_hist_mean(h) / 1e3;
		f->p50 = stats_hist_percentile(h, 50) / 1e3;
		f->p99 = stats_hist_percentile(h, 99) / 1e3;
		return 0;
	}
	/* netperf's round trip less its stack, less netserver's residence
	 * (which netperf never sees a transaction at a time): the mean
	 * exactly; a percentile as the difference of the two percentiles,
	 * exact when either part is constant. */
	h = hist_of(t, TSTAMP_CLIENT_REST);
	srv = hist_of(t, TSTAMP_SERVER);
	if (h == NULL || srv == NULL)
		return -1;
	shift = stats_hist_mean(srv);
	f->count = h->count;
	f->mean = (stats_hist_mean(h) - shift) / 1e3;
	f->p50 =
	    (stats_hist_percentile(h, 50) - stats_hist_percentile(srv, 50)) /
	    1e3;
	f->p99 =
	    (stats_hist_percentile(h, 99) - stats_hist_percentile(srv, 99)) /
	    1e3;
	if (f->p50 < 0)
		f->p50 = 0;
	if (f->p99 < 0)
		f->p99 = 0;
	if (f->mean < 0)
		f->mean = 0;
	return 0;
}

void
tstamp_select(const struct tstamp_result *t, int p, int stat, char *b,
	      size_t cap)
{
	struct tstamp_fig f;

	if (tstamp_figure(t, p, &f) < 0) {
		snprintf(b, cap, "-1");
		return;
	}
	snprintf(b, cap, "%.2f",
		 stat == TSTAMP_P50   ? f.p50
		 : stat == TSTAMP_P99 ? f.p99
				      : f.mean);
}

/* Which stamps one side's wire part (netperf's SND to RX, netserver's
 * residence) came from: hw of its count n from the NIC's. */
static const char *
wire_kind(const struct tstamp_account *a, int part)
{
	uint64_t n = a->h[part] != NULL ? a->h[part]->count : 0;

	if (a->hw_wire == 0)
		return "software";
	return a->hw_wire >= n ? "hardware" : "mixed";
}

/* Which stamps the network part came from: both sides' wire parts. The
 * stack parts pair an application's time with a stamp, and always take
 * the kernel's software stamps. */
static const char *
kind(const struct tstamp_result *t)
{
	const char *c = wire_kind(&t->side[0], TSTAMP_CLIENT_REST),
		   *s = wire_kind(&t->side[1], TSTAMP_SERVER);

	return strcmp(c, s) == 0 ? c : "mixed";
}

static json_t *
side_json(const struct tstamp_account *a, int part)
{
	return json_pack(
	    "{s:I, s:I, s:I, s:I, s:I, s:s, s:o}", "stamps",
	    (json_int_t)a->stamps, "errqueue_calls", (json_int_t)a->errq_calls,
	    "incomplete", (json_int_t)a->incomplete, "hardware_stamps",
	    (json_int_t)a->hw, "hardware_transactions", (json_int_t)a->hw_wire,
	    "wire_kind", wire_kind(a, part), "hardware_reason",
	    a->hw_why[0] != '\0' ? json_string(a->hw_why) : json_null());
}

json_t *
tstamp_json(const struct tstamp_result *t)
{
	json_t *o, *parts, *v;
	struct tstamp_fig f;
	int i;

	o = json_pack("{s:s}", "kind", kind(t));
	parts = json_object();
	if (o == NULL || parts == NULL)
		goto fail;
	for (i = 0; i < TSTAMP_NPARTS; i++) {
		if (tstamp_figure(t, i, &f) < 0)
			v = json_null();
		else if (i == TSTAMP_NETWORK)
			v = json_pack("{s:I, s:f, s:f, s:f}", "count",
				      (json_int_t)f.count, "mean_us", f.mean,
				      "p50_us", f.p50, "p99_us", f.p99);
		else
			v = json_pack("{s:I, s:f, s:f, s:f, s:I}", "count",
				      (json_int_t)f.count, "mean_us", f.mean,
				      "p50_us", f.p50, "p99_us", f.p99,
				      "sum_ns", (json_int_t)f.sum_ns);
		if (v == NULL || json_object_set_new(parts, part_name[i], v))
			goto fail;
	}
	if (json_object_set_new(o, "parts", parts) < 0) {
		parts = NULL;
		goto fail;
	}
	parts = NULL;
	v = side_json(&t->side[0], TSTAMP_CLIENT_REST);
	if (v == NULL || json_object_set_new(o, "local", v) < 0)
		goto fail;
	v = side_json(&t->side[1], TSTAMP_SERVER);
	if (v == NULL || json_object_set_new(o, "remote", v) < 0)
		goto fail;
	return o;
fail:
	json_decref(parts);
	json_decref(o);
	return NULL;
}

void
tstamp_print(FILE *out, const struct tstamp_result *t)
{
	/* The order a request and its answer take. */
	static const int order[] = {
	    TSTAMP_CLIENT_OUT, TSTAMP_NETWORK,	    TSTAMP_SERVER_IN,
	    TSTAMP_SERVER_APP, TSTAMP_SERVER_OUT,   TSTAMP_SERVER,
	    TSTAMP_CLIENT_IN,  TSTAMP_CLIENT_STACK, TSTAMP_RTT,
	};
	static const char *const label[TSTAMP_NPARTS] = {
	    "round trip",
	    "client stack out",
	    "client stack in",
	    "client stack",
	    "",
	    "server (residence)",
	    "server stack in",
	    "server app",
	    "server stack out",
	    "network (both ways)",
	};
	struct tstamp_fig f;
	size_t i;

	fprintf(out,
		"\nRound trip split (--timestamps, %s stamps; netperf: %llu "
		"stamps, %llu error queue reads, %llu incomplete; "
		"netserver: %llu, %llu, %llu)\n",
		kind(t), (unsigned long long)t->side[0].stamps,
		(unsigned long long)t->side[0].errq_calls,
		(unsigned long long)t->side[0].incomplete,
		(unsigned long long)t->side[1].stamps,
		(unsigned long long)t->side[1].errq_calls,
		(unsigned long long)t->side[1].incomplete);
	/* Where the NIC's stamps were used, and why not. */
	for (i = 0; i < 2; i++) {
		const struct tstamp_account *a = &t->side[i];

		fprintf(out, "%s: %s wire part (%s)",
			i ? "; netserver" : "netperf",
			wire_kind(a, i ? TSTAMP_SERVER : TSTAMP_CLIENT_REST),
			i ? "RX to SND" : "SND to RX");
		if (a->hw_wire == 0 && a->hw_why[0] != '\0')
			fprintf(out, ", %s", a->hw_why);
	}
	fprintf(out, "; stack parts software\n%-20s %10s %12s %12s %12s\n",
		"Part (us)", "Count", "Mean", "P50", "P99");
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (tstamp_figure(t, order[i], &f) < 0) {
			fprintf(out, "%-20s %10s\n", label[order[i]], "-");
			continue;
		}
		fprintf(out, "%-20s %10llu %12.2f %12.2f %12.2f\n",
			label[order[i]], (unsigned long long)f.count, f.mean,
			f.p50, f.p99);
	}
}
