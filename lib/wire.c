#include "np/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np/be.h"
#include "np/err.h"
#include "np/wire_bpf.h"

/* Linux 4.20's; older headers lack the name, and older kernels refuse
 * the option, which is then simply not used. */
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

/* Enough for Ethernet + VLAN + IPv6 + TCP with options: we never need the
 * payload, only the headers and the lengths they announce. */
#define WIRE_SNAPLEN 128

/* A few MB of ring so a burst at line rate survives a slow wake-up. */
#define WIRE_BUFSIZE (4 << 20)

/* How often the capture thread looks at its stop flag. */
#define WIRE_POLL_MS 100

/* No sane packet chains more IPv6 extension headers than this; the bound
 * keeps a hostile packet from making us loop. */
#define WIRE_MAX_EXT 8

#define WIRE_ETH_IPV4 0x0800
#define WIRE_ETH_IPV6 0x86dd

enum wire_side {
	WIRE_OUT = 0,
	WIRE_IN = 1,
};

/* One end of a flow, normalised: v4-mapped IPv6 is taken as IPv4. */
struct wire_end {
	int af;
	uint8_t addr[16];
	uint16_t port; /* host order */
};

/* What the counting callback compares packets against. */
struct wire_match {
	int af;
	int proto;
	struct wire_end local, remote;
};

/* The headers of one packet, as far as the capture holds them. */
struct wire_pkt {
	int af;
	int proto;
	const uint8_t *src, *dst;
	uint16_t sport, dport;
	int fragment; /* a non-first fragment: no ports */
	int has_seq;
	uint32_t seq;
	uint32_t payload;
};

/* The TCP connections one capture tells apart (netserver's capture takes
 * every stream of a test), and the gaps it remembers in each. */
#define WIRE_FLOWS 128
#define WIRE_HOLES 64

/* One direction of one TCP connection: the furthest byte seen, and the
 * ranges below it not seen yet, so a late segment that fills a gap is
 * told from one that carries old data again. */
struct wire_seq {
	int used, side;
	uint16_t sport, dport;
	uint32_t hi_end;
	/* The kernel's counter's word for it, once looked up, and the
	 * segments its judge handed over in it that have been taken here
	 * (see wire_bpf_give_back). */
	uint64_t *word;
	uint32_t judged;
	/* New data seen here while the direction was the kernel's (in a
	 * packet it handed over for its form, not its place): [lo, hi). */
	int early;
	uint32_t early_lo, early_hi;
	int nholes;
	uint32_t hole_lo[WIRE_HOLES], hole_hi[WIRE_HOLES]; /* [lo, hi) */
};

/* Everything the callback touches: one per capture, owned by its thread. */
struct wire_state {
	struct wire_match m;
	int linktype;
	struct wire_counts c;
	struct wire_seq seq[WIRE_FLOWS];
	/* The counter in the kernel, when it took the socket's filter:
	 * what it counted is not in c, a connection it handed over
	 * starts from where it had got to, and goes back to it once
	 * judged. */
	struct wire_bpf *bpf;
};

struct wire_capture {
	pcap_t *p; /* NULL when the counter sits at the tc hook */
	pthread_t thread;
	atomic_int stop;
	int failed;
	char err[ERR_LEN];
	char ifname[IF_NAMESIZE];
	struct wire_state st;
	/* Drops counted before the flow's filter was in place. */
	uint64_t drop_base;
	/* Set up, not yet counting: what the tc counter hands on is
	 * dropped. */
	int flushing;
};

static int
wire_end_from(const struct sockaddr_storage *ss, struct wire_end *e,
	      const char *which, char *err)
{
	memset(e, 0, sizeof(*e));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		e->af = AF_INET;
		memcpy(e->addr, &sin->sin_addr, 4);
		e->port = ntohs(sin->sin_port);
		return 0;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 =
		    (const struct sockaddr_in6 *)ss;

		e->port = ntohs(sin6->sin6_port);
		/* A dual-stack socket talking to an IPv4 peer: the packets on
		 * the wire are IPv4, so the filter must be too. */
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			e->af = AF_INET;
			memcpy(e->addr, &sin6->sin6_addr.s6_addr[12], 4);
		} else {
			e->af = AF_INET6;
			memcpy(e->addr, &sin6->sin6_addr, 16);
		}
		return 0;
	}
	return err_set(err, "%s address: unsupported family %d", which,
		       (int)ss->ss_family);
}

static int
wire_match_init(const struct wire_flow *f, struct wire_match *m, char *err)
{
	memset(m, 0, sizeof(*m));
	if (f->protocol != IPPROTO_TCP && f->protocol != IPPROTO_UDP)
		return err_set(err, "wire: unsupported protocol %d",
			       f->protocol);
	m->proto = f->protocol;
	if (wire_end_from(&f->local, &m->local, "local", err) < 0 ||
	    wire_end_from(&f->remote, &m->remote, "remote", err) < 0)
		return -1;
	if (m->local.af != m->remote.af)
		return err_set(err,
			       "wire: the flow's two ends are of different "
			       "address families");
	m->af = m->local.af;
	return 0;
}

/*
 * Finds the network header behind the link header: sets *off to its offset
 * and *ethertype to its type. Returns 0, or -1 when the packet is not IP or
 * is cut short.
 */
static int
wire_link(int dlt, const uint8_t *p, uint32_t caplen, uint32_t *off,
	  uint16_t *type)
{
	uint32_t o;
	uint16_t t;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		o = 14;
		t = be16_get(p + 12);
		break;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		o = 16;
		t = be16_get(p + 14);
		break;
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return -1;
		o = 20;
		t = be16_get(p);
		break;
	case DLT_NULL:
	case DLT_LOOP:
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
#endif
#ifdef DLT_IPV6
	case DLT_IPV6:
#endif
		/* The family word of NULL/LOOP is in host or network order
		 * and its AF_INET6 value differs between systems; the IP
		 * version nibble says the same thing without the guessing. */
		o = (dlt == DLT_NULL || dlt == DLT_LOOP) ? 4 : 0;
		if (caplen < o + 1)
			return -1;
		if (p[o] >> 4 == 4)
			t = WIRE_ETH_IPV4;
		else if (p[o] >> 4 == 6)
			t = WIRE_ETH_IPV6;
		else
			return -1;
		break;
	default:
		return -1;
	}
	/* 802.1Q/802.1ad tags: TCI then the inner type. libpcap puts the tag
	 * back into SLL headers too, where it sits in the same place. */
	while (t == 0x8100 || t == 0x88a8 || t == 0x9100) {
		if (caplen < o + 4)
			return -1;
		t = be16_get(p + o + 2);
		o += 4;
	}
	*off = o;
	*type = t;
	return 0;
}

/* Reads the TCP or UDP header at p (cap bytes captured, l4len announced by
 * IP); returns 0, or -1 when even the ports are missing. */
static int
wire_l4(const uint8_t *p, uint32_t cap, uint32_t l4len, struct wire_pkt *k)
{
	uint32_t doff;

	if (cap < 4 || l4len < 4)
		return -1;
	k->sport = be16_get(p);
	k->dport = be16_get(p + 2);
	if (k->proto == IPPROTO_UDP) {
		/* The header is 8 bytes whatever the capture holds. */
		k->payload = l4len >= 8 ? l4len - 8 : 0;
		return 0;
	}
	/* TCP: without the data offset the payload is unknown; count the
	 * packet but claim no payload rather than guess. */
	if (cap < 13)
		return 0;
	doff = (uint32_t)(p[12] >> 4) * 4;
	if (doff < 20)
		return 0;
	k->seq = be32_get(p + 4);
	k->has_seq = 1;
	k->payload = l4len >= doff ? l4len - doff : 0;
	return 0;
}

static int
wire_ipv4(const uint8_t *p, uint32_t cap, uint32_t wirelen, struct wire_pkt *k)
{
	uint32_t ihl, tot;

	if (cap < 20 || p[0] >> 4 != 4)
		return -1;
	ihl = (uint32_t)(p[0] & 0x0f) * 4;
	tot = be16_get(p + 2);
	/* TSO and BIG TCP hand the capture super-packets whose length field
	 * is 0 (above 64 KB) or meaningless; the wire length is what was
	 * seen. A field larger than the packet is a lie as well. */
	if (tot == 0 || tot > wirelen)
		tot = wirelen;
	if (ihl < 20 || tot < ihl)
		return -1;
	k->af = AF_INET;
	k->proto = p[9];
	k->src = p + 12;
	k->dst = p + 16;
	if ((be16_get(p + 6) & 0x1fff) != 0) {
		k->fragment = 1;
		k->payload = tot - ihl;
		return 0;
	}
	if (cap < ihl)
		return -1;
	return wire_l4(p + ihl, cap - ihl, tot - ihl, k);
}

static int
wire_ipv6(const uint8_t *p, uint32_t cap, uint32_t wirelen, struct wire_pkt *k)
{
	uint32_t pos = 40, rest, hl;
	uint8_t nh;
	int i;

	if (cap < 40 || p[0] >> 4 != 6 || wirelen < 40)
		return -1;
	rest = be16_get(p + 4);
	/* 0 is a jumbogram or a GSO/BIG TCP super-packet. */
	if (rest == 0 || rest > wirelen - 40)
		rest = wirelen - 40;
	nh = p[6];
	k->af = AF_INET6;
	k->src = p + 8;
	k->dst = p + 24;
	for (i = 0; i < WIRE_MAX_EXT; i++) {
		switch (nh) {
		case 0:	 /* hop-by-hop */
		case 43: /* routing */
		case 60: /* destination options */
		case 51: /* authentication header */
			if (cap < pos + 2)
				return -1;
			hl = nh == 51 ? ((uint32_t)p[pos + 1] + 2) * 4
				      : ((uint32_t)p[pos + 1] + 1) * 8;
			break;
		case 44: /* fragment */
			if (cap < pos + 8 || rest < 8)
				return -1;
			if ((be16_get(p + pos + 2) & 0xfff8) != 0) {
				k->proto = p[pos];
				k->fragment = 1;
				k->payload = rest - 8;
				return 0;
			}
			hl = 8;
			break;
		default:
			k->proto = nh;
			if (cap < pos)
				return -1;
			return wire_l4(p + pos, cap - pos, rest, k);
		}
		if (hl > rest)
			return -1;
		nh = p[pos];
		pos += hl;
		rest -= hl;
	}
	return -1;
}

/*
 * Parses one captured packet of link type dlt: buf holds caplen bytes of a
 * packet len bytes long. Returns 0 with k filled, or -1 when it is not a
 * TCP/UDP packet over IP or its headers are cut short.
 */
static int
wire_parse(int dlt, const uint8_t *buf, uint32_t caplen, uint32_t len,
	   struct wire_pkt *k)
{
	uint32_t off;
	uint16_t type;

	memset(k, 0, sizeof(*k));
	if (caplen > len)
		len = caplen;
	if (wire_link(dlt, buf, caplen, &off, &type) < 0 || off > caplen)
		return -1;
	if (type == WIRE_ETH_IPV4)
		return wire_ipv4(buf + off, caplen - off, len - off, k);
	if (type == WIRE_ETH_IPV6)
		return wire_ipv6(buf + off, caplen - off, len - off, k);
	return -1;
}

/* Which way k goes relative to m, or -1 when it is not m's. */
static int
wire_side_of(const struct wire_match *m, const struct wire_pkt *k)
{
	size_t alen = m->af == AF_INET ? 4 : 16;
	const struct wire_end *l = &m->local, *r = &m->remote;

	if (k->af != m->af || k->proto != m->proto)
		return -1;
	if (k->fragment) {
		/* Later fragments carry no ports; the filter only lets
		 * through those of UDP between the two hosts. */
		if (m->proto != IPPROTO_UDP)
			return -1;
		if (memcmp(k->src, l->addr, alen) == 0 &&
		    memcmp(k->dst, r->addr, alen) == 0)
			return WIRE_OUT;
		if (memcmp(k->src, r->addr, alen) == 0 &&
		    memcmp(k->dst, l->addr, alen) == 0)
			return WIRE_IN;
		return -1;
	}
	/* A remote port of 0 stands for any: netserver counts every data
	 * connection its listener takes from the client's host. */
	if (k->sport == l->port && (r->port == 0 || k->dport == r->port) &&
	    memcmp(k->src, l->addr, alen) == 0 &&
	    memcmp(k->dst, r->addr, alen) == 0)
		return WIRE_OUT;
	if ((r->port == 0 || k->sport == r->port) && k->dport == l->port &&
	    memcmp(k->src, r->addr, alen) == 0 &&
	    memcmp(k->dst, l->addr, alen) == 0)
		return WIRE_IN;
	return -1;
}

/* seq a is before b, in serial number arithmetic (across the 2^32 wrap). */
static int
seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static struct wire_seq *
wire_seq_find(struct wire_state *st, int side, uint16_t sport, uint16_t dport)
{
	int i;

	for (i = 0; i < WIRE_FLOWS; i++) {
		struct wire_seq *s = &st->seq[i];

		if (!s->used) {
			s->used = 1;
			s->side = side;
			s->sport = sport;
			s->dport = dport;
			return s;
		}
		if (s->side == side && s->sport == sport && s->dport == dport)
			return s;
	}
	return NULL; /* more connections than the table: not judged */
}

/* Removes [lo, hi) from hole h, which contains it. */
static void
hole_fill(struct wire_seq *s, int h, uint32_t lo, uint32_t hi)
{
	uint32_t hlo = s->hole_lo[h], hhi = s->hole_hi[h];

	if (lo == hlo && hi == hhi) {
		s->hole_lo[h] = s->hole_lo[s->nholes - 1];
		s->hole_hi[h] = s->hole_hi[s->nholes - 1];
		s->nholes--;
	} else if (lo == hlo) {
		s->hole_lo[h] = hi;
	} else if (hi == hhi) {
		s->hole_hi[h] = lo;
	} else {
		s->hole_hi[h] = lo;
		if (s->nholes < WIRE_HOLES) {
			s->hole_lo[s->nholes] = hi;
			s->hole_hi[s->nholes] = hhi;
			s->nholes++;
		}
	}
}

/* The kernel's counter's word for a direction, looked up once found
 * (NULL without a counter, or when its table had no room). */
static uint64_t *
wire_seq_word(struct wire_state *st, struct wire_seq *s, int side,
	      const struct wire_pkt *k)
{
	if (s->word == NULL && st->bpf != NULL)
		s->word = wire_bpf_word(st->bpf, side, k->sport, k->dport);
	return s->word;
}

/*
 * A data segment of a direction the kernel's counter is judging itself,
 * handed over for its form (a tag left in the frame, an extension
 * header), not its place. Its data below where the kernel's count has got
 * to (at, when seen) was seen: a retransmission. Its new data is
 * remembered, so that should the kernel hand the direction over where that
 * data began (it did not count it), the capture starts from its end.
 */
static void
wire_seq_kernels(struct wire_seq *s, const struct wire_pkt *k,
		 struct wire_dir *d, int seen, uint32_t at)
{
	uint32_t lo = k->seq, hi = k->seq + k->payload;

	if (seen && seq_before(lo, at)) {
		d->retrans++;
		d->retrans_bytes += (seq_before(at, hi) ? at : hi) - lo;
		if (!seq_before(at, hi))
			return;
		lo = at;
	}
	s->early = 1;
	s->early_lo = lo;
	s->early_hi = hi;
}

/*
 * A segment carrying data already seen is a retransmission; one that
 * fills a gap left by a later segment arrived out of order. The gaps
 * remembered are bounded; the oldest is forgotten first, after which a
 * segment filling it would count as a retransmission.
 */
static void
wire_seq_judge(struct wire_state *st, struct wire_seq *s, int side,
	       const struct wire_pkt *k, struct wire_dir *d)
{
	uint32_t lo = k->seq, hi = k->seq + k->payload;
	int h;

	if (s->used == 1) {
		uint32_t at = 0;
		int w = -1;

		if (wire_seq_word(st, s, side, k) != NULL)
			w = wire_bpf_handed(s->word, &at);
		if (s->word != NULL && w <= 0) {
			wire_seq_kernels(s, k, d, w == 0, at);
			return;
		}
		s->used = 2;
		if (s->word == NULL) {
			s->hi_end = hi;
			return;
		}
		/* Handed over where new data seen here began: from its end. */
		s->hi_end = s->early && s->early_lo == at ? s->early_hi : at;
		s->early = 0;
	}
	if (seq_before(s->hi_end, hi)) {
		if (seq_before(s->hi_end, lo)) {
			if (s->nholes == WIRE_HOLES) {
				memmove(s->hole_lo, s->hole_lo + 1,
					(WIRE_HOLES - 1) * sizeof(uint32_t));
				memmove(s->hole_hi, s->hole_hi + 1,
					(WIRE_HOLES - 1) * sizeof(uint32_t));
				s->nholes--;
			}
			s->hole_lo[s->nholes] = s->hi_end;
			s->hole_hi[s->nholes] = lo;
			s->nholes++;
		} else if (seq_before(lo, s->hi_end)) {
			/* Partly old data again, then new. */
			d->retrans++;
			d->retrans_bytes += s->hi_end - lo;
		}
		s->hi_end = hi;
		return;
	}
	for (h = 0; h < s->nholes; h++) {
		if (!seq_before(lo, s->hole_lo[h]) &&
		    !seq_before(s->hole_hi[h], hi)) {
			hole_fill(s, h, lo, hi);
			d->reordered++;
			return;
		}
	}
	d->retrans++;
	d->retrans_bytes += k->payload;
}

/*
 * Judges a data segment in its direction's sequence. judged says the
 * kernel's judge handed it over: once every gap is filled and every such
 * segment taken, the direction goes back to the kernel, which then counts
 * in-order segments again, and a later hand-over starts afresh from where
 * its word says the data had got to.
 */
static void
wire_seq_account(struct wire_state *st, int side, const struct wire_pkt *k,
		 struct wire_dir *d, int judged)
{
	struct wire_seq *s = wire_seq_find(st, side, k->sport, k->dport);

	if (s == NULL)
		return;
	wire_seq_judge(st, s, side, k, d);
	if (!judged)
		return;
	s->judged++;
	if (s->nholes == 0 && wire_seq_word(st, s, side, k) != NULL &&
	    wire_bpf_give_back(s->word, s->judged, s->hi_end))
		s->used = 1;
}

/* The data path: parse, attribute, count. No allocation, no output. */
static void
wire_account(struct wire_state *st, const uint8_t *buf, uint32_t caplen,
	     uint32_t len, int judged)
{
	struct wire_pkt k;
	struct wire_dir *d;
	int side;

	if (wire_parse(st->linktype, buf, caplen, len, &k) < 0)
		return;
	side = wire_side_of(&st->m, &k);
	if (side < 0)
		return;
	/* A zero-length datagram carries no data: netperf's end markers,
	 * which are the tool's own, not the test's traffic. */
	if (k.proto == IPPROTO_UDP && k.payload == 0 && !k.fragment)
		return;
	d = side == WIRE_OUT ? &st->c.out : &st->c.in;
	d->packets++;
	d->bytes += len;
	d->payload += k.payload;
	if (len > d->max_len)
		d->max_len = len;
	if (!k.has_seq || k.payload == 0)
		return;
	wire_seq_account(st, side, &k, d, judged);
}

/* Takes a packet that arrived before the filter was set, and counts
 * nothing. */
static void
wire_discard(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	(void)user;
	(void)h;
	(void)bytes;
}

/* A capture's packet: the counter on its socket, if any, does not say
 * which it counted in a sequence word, so none is judged (no direction
 * goes back to it). */
static void
wire_callback(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	wire_account((struct wire_state *)user, bytes, h->caplen, h->len, 0);
}

static int
wire_end_str(const struct wire_end *e, char *buf, size_t len)
{
	return inet_ntop(e->af, e->addr, buf, (socklen_t)len) ? 0 : -1;
}

int
wire_filter(const struct wire_flow *f, char *buf, size_t len, char *err)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	struct wire_match m;
	const char *proto;
	int n, n2 = 0;

	if (wire_match_init(f, &m, err) < 0)
		return -1;
	if (wire_end_str(&m.local, a, sizeof(a)) < 0 ||
	    wire_end_str(&m.remote, b, sizeof(b)) < 0)
		return err_set(err, "wire: cannot format the flow's addresses");
	proto = m.proto == IPPROTO_TCP ? "tcp" : "udp";
	if (m.remote.port == 0)
		n = snprintf(buf, len,
			     "(%s and ((src host %s and src port %u and dst "
			     "host %s) or (src host %s and dst host %s and dst "
			     "port %u)))",
			     proto, a, (unsigned)m.local.port, b, b, a,
			     (unsigned)m.local.port);
	else
		n = snprintf(buf, len,
			     "(%s and ((src host %s and src port %u and dst "
			     "host %s and dst port %u) or (src host %s and src "
			     "port %u and dst host %s and dst port %u)))",
			     proto, a, (unsigned)m.local.port, b,
			     (unsigned)m.remote.port, b,
			     (unsigned)m.remote.port, a,
			     (unsigned)m.local.port);
	if (n < 0 || (size_t)n >= len)
		return err_set(err, "wire: filter longer than %zu bytes", len);
	/*
	 * A UDP datagram larger than the MTU leaves as IP fragments, and only
	 * the first carries the ports: take the others by host pair, or a
	 * UDP_STREAM of 64 KB messages would count one packet in 45.
	 */
	if (m.proto == IPPROTO_UDP) {
		const char *frag = m.af == AF_INET
				       ? "ip[6:2] & 0x1fff != 0 and ip[9] = 17"
				       : "ip6[6] = 44 and ip6[40] = 17";

		n2 = snprintf(buf + n, len - (size_t)n,
			      " or (%s and ((src host %s and dst host %s) or "
			      "(src host %s and dst host %s)))",
			      frag, a, b, b, a);
		if (n2 < 0 || (size_t)n2 >= len - (size_t)n)
			return err_set(
			    err, "wire: filter longer than %zu bytes", len);
	}
	return 0;
}

/* Compiles and installs f's filter on p; returns 0, or -1 with err set. */
static int
wire_set_filter(pcap_t *p, const struct wire_flow *f, char *err)
{
	char base[2048], text[2 * sizeof(base) + 32];
	struct bpf_program prog;

	if (wire_filter(f, base, sizeof(base), err) < 0)
		return -1;
	/*
	 * On Ethernet a tagged frame only matches after "vlan", which shifts
	 * every later offset by the tag, so the same expression is repeated
	 * behind it, last. Live captures on Linux see most tags stripped into
	 * metadata and match the first half. Other link types have no "vlan"
	 * in pcap and would not compile it.
	 */
	if (pcap_datalink(p) == DLT_EN10MB)
		snprintf(text, sizeof(text), "(%s) or (vlan and (%s))", base,
			 base);
	else
		snprintf(text, sizeof(text), "%s", base);
	if (pcap_compile(p, &prog, text, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return err_set(err, "cannot compile the capture filter: %s",
			       pcap_geterr(p));
	if (pcap_setfilter(p, &prog) < 0) {
		err_set(err, "cannot set filter: %s", pcap_geterr(p));
		pcap_freecode(&prog);
		return -1;
	}
	pcap_freecode(&prog);
	return 0;
}

int
wire_count_file(const char *path, const struct wire_flow *f,
		struct wire_counts *c, char *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct wire_state st;
	pcap_t *p;
	int rc = -1;

	memset(&st, 0, sizeof(st));
	if (wire_match_init(f, &st.m, err) < 0)
		return -1;
	p = pcap_open_offline(path, errbuf);
	if (p == NULL)
		return err_set(err, "cannot read %s: %s", path, errbuf);
	st.linktype = pcap_datalink(p);
	if (wire_set_filter(p, f, err) < 0)
		goto close_pcap;
	if (pcap_loop(p, -1, wire_callback, (u_char *)&st) == PCAP_ERROR) {
		err_set(err, "cannot read %s: %s", path, pcap_geterr(p));
		goto close_pcap;
	}
	*c = st.c;
	c->dropped = 0;
	c->linktype = st.linktype;
	c->handed = (int64_t)(c->out.packets + c->in.packets);
	rc = 0;
close_pcap:
	pcap_close(p);
	return rc;
}

/* How long the kernel may hold captured packets before handing over a
 * block: batching them keeps the capture thread from waking per packet. */
#define WIRE_BLOCK_MS 50

/* How often the reader of the tc counter's ring looks at it: the counter
 * does not wake it, so that no packet costs the test a wake-up. */
#define WIRE_TC_READ_MS 10

/* The thread of a counter at the tc hook: reads its ring every few
 * milliseconds until told to stop, then once more. */
static void *
wire_tc_main(void *arg)
{
	struct wire_capture *cap = arg;
	struct timespec nap = {0, WIRE_TC_READ_MS * 1000000L};
	int stop;

	do {
		stop = atomic_load(&cap->stop);
		if (!stop)
			nanosleep(&nap, NULL);
		if (wire_bpf_take(cap->st.bpf, cap->err) < 0) {
			cap->failed = 1;
			return NULL;
		}
	} while (!stop);
	return NULL;
}

/* Counts until told to stop, then takes what is left in the ring. */
static void *
wire_capture_main(void *arg)
{
	struct wire_capture *cap = arg;
	struct pollfd pfd = {.fd = pcap_get_selectable_fd(cap->p),
			     .events = POLLIN};
	u_char *user = (u_char *)&cap->st;
	int n;

	while (!atomic_load(&cap->stop)) {
		n = poll(&pfd, 1, WIRE_POLL_MS);
		if (n < 0 && errno != EINTR) {
			err_set(cap->err, "capture on %s: poll: %s",
				cap->ifname, strerror(errno));
			cap->failed = 1;
			return NULL;
		}
		if (n <= 0)
			continue;
		if (pcap_dispatch(cap->p, -1, wire_callback, user) ==
		    PCAP_ERROR) {
			err_set(cap->err, "capture on %s: %s", cap->ifname,
				pcap_geterr(cap->p));
			cap->failed = 1;
			return NULL;
		}
	}
	/* Packets are handed over a block at a time (the data path is not
	 * woken per packet); a partly filled block comes only after its
	 * time-out, so wait for that, twice, taking everything each time. */
	for (int round = 0; round < 2; round++) {
		poll(&pfd, 1, 2 * WIRE_BLOCK_MS);
		do {
			n = pcap_dispatch(cap->p, -1, wire_callback, user);
		} while (n > 0);
		if (n == PCAP_ERROR)
			break;
	}
	if (n == PCAP_ERROR) {
		err_set(cap->err, "capture on %s: %s", cap->ifname,
			pcap_geterr(cap->p));
		cap->failed = 1;
	}
	return NULL;
}

/* Whether ifname is a loopback interface (lo, whose framing is
 * Ethernet's with zero addresses); 0 when that cannot be told. */
static int
wire_is_loopback(const char *ifname)
{
	struct ifreq ifr;
	int fd, loop;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	loop = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
	       (ifr.ifr_flags & IFF_LOOPBACK);
	close(fd);
	return loop;
}

/*
 * On a loopback interface the kernel hands a capture every packet twice,
 * once going out and once coming in, and libpcap throws the outgoing copy
 * away. Asking the kernel not to make that copy (PACKET_IGNORE_OUTGOING,
 * Linux 4.20) halves what a capture costs the test there and counts the
 * same; elsewhere, and where the kernel cannot, nothing changes.
 */
static void
wire_skip_loop_copies(pcap_t *p, const char *ifname)
{
	int one = 1;

	if (wire_is_loopback(ifname))
		setsockopt(pcap_fileno(p), SOL_PACKET, PACKET_IGNORE_OUTGOING,
			   &one, sizeof(one));
}

/*
 * Opens and activates a capture on cap->ifname with our options. Returns
 * 0; 1 when capture is not permitted here, with err holding a warning; or
 * -1 with err set. On anything but 0, cap->p is closed.
 */
static int
wire_pcap_open(struct wire_capture *cap, char *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	const char *ifname = cap->ifname;
	int rc;

	cap->p = pcap_create(ifname, errbuf);
	if (cap->p == NULL)
		return err_set(err, "cannot capture on %s: %s", ifname, errbuf);
	if (pcap_set_snaplen(cap->p, WIRE_SNAPLEN) != 0 ||
	    pcap_set_promisc(cap->p, 0) != 0 ||
	    pcap_set_immediate_mode(cap->p, 0) != 0 ||
	    pcap_set_timeout(cap->p, WIRE_BLOCK_MS) != 0 ||
	    pcap_set_buffer_size(cap->p, WIRE_BUFSIZE) != 0) {
		err_set(err, "cannot capture on %s: cannot set options",
			ifname);
		goto close_pcap;
	}
	errno = 0;
	rc = pcap_activate(cap->p);
	if (rc == PCAP_ERROR_PERM_DENIED ||
	    (rc == PCAP_ERROR && errno == EPERM)) {
		err_set(err,
			"cannot capture on %s: permission denied (needs "
			"CAP_NET_RAW); wire counts omitted",
			ifname);
		pcap_close(cap->p);
		return 1;
	}
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
		err_set(err, "cannot capture on %s: no such interface", ifname);
		goto close_pcap;
	}
	if (rc < 0) {
		/* PCAP_ERROR leaves its reason in the handle; the other
		 * codes have only their name. */
		err_set(err, "cannot capture on %s: %s", ifname,
			rc == PCAP_ERROR ? pcap_geterr(cap->p)
					 : pcap_statustostr(rc));
		goto close_pcap;
	}
	wire_skip_loop_copies(cap->p, ifname);
	return 0;
close_pcap:
	pcap_close(cap->p);
	return -1;
}

/* Whether the environment says NAME=anything but 0. */
static int
wire_env_set(const char *name)
{
	const char *env = getenv(name);

	return env != NULL && env[0] != '\0' && strcmp(env, "0") != 0;
}

/* Whether the environment says NAME=0: a default switched off. */
static int
wire_env_off(const char *name)
{
	const char *env = getenv(name);

	return env != NULL && strcmp(env, "0") == 0;
}

/* The flow as the eBPF counter compares it. */
static void
wire_bpf_flow_of(const struct wire_match *m, struct wire_bpf_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->af = m->af;
	f->proto = m->proto;
	memcpy(f->laddr, m->local.addr, sizeof(f->laddr));
	memcpy(f->raddr, m->remote.addr, sizeof(f->raddr));
	f->lport = m->local.port;
	f->rport = m->remote.port;
	f->snaplen = WIRE_SNAPLEN;
}

/*
 * Lets the kernel count the flow's ordinary packets (lib/ebpf) on the
 * capture's socket: the ring then gets only what the capture must judge
 * itself, and a packet the counter keeps costs the test no copy. The
 * counter reads Ethernet framing only. NETPERF_WIRE_PCAP set to anything
 * but 0, or a kernel that refuses the program (no CAP_BPF), leaves every
 * packet to the capture, which counts the same.
 */
static void
wire_use_counter(struct wire_capture *cap)
{
	struct wire_bpf_flow f;
	char err[ERR_LEN];

	if (cap->st.linktype != DLT_EN10MB || wire_env_set("NETPERF_WIRE_PCAP"))
		return;
	wire_bpf_flow_of(&cap->st.m, &f);
	if (wire_bpf_attach(pcap_fileno(cap->p), &f, &cap->st.bpf, err) < 0)
		cap->st.bpf = NULL;
}

/* Hands a packet from the tc counter's ring to the count, or, while the
 * capture is being set up, drops it as wire_discard does. */
static void
wire_tc_take(void *ctx, const uint8_t *data, uint32_t caplen, uint32_t len,
	     int judged)
{
	struct wire_capture *cap = ctx;

	/* A segment the judge handed over and counted, dropped here, leaves
	 * its direction's count short: it is never given back. */
	if (!cap->flushing)
		wire_account(&cap->st, data, caplen, len, judged);
}

/*
 * Puts the counter at a loopback interface's tc hook with no packet socket
 * at all: the kernel then hands no packet to a capture, which on a 1-byte
 * TCP_RR over loopback is most of what --wire cost. Every packet on lo
 * passes its way in, so that way alone is watched, as
 * PACKET_IGNORE_OUTGOING has the capture do. Not elsewhere: on the way out
 * the tc hook sees a packet before the qdisc, which may still drop it, and
 * a capture sees only what the driver was given. Returns 0, or -1 when
 * the capture must count instead (not loopback, no tcx in the kernel, no
 * CAP_BPF, NETPERF_WIRE_PCAP or NETPERF_WIRE_TC=0 set).
 */
static int
wire_tc_open(struct wire_capture *cap)
{
	struct wire_bpf_flow f;
	char err[ERR_LEN];
	int ifindex;

	if (wire_env_set("NETPERF_WIRE_PCAP") ||
	    wire_env_off("NETPERF_WIRE_TC"))
		return -1;
	ifindex = (int)if_nametoindex(cap->ifname);
	if (ifindex == 0 || !wire_is_loopback(cap->ifname))
		return -1;
	wire_bpf_flow_of(&cap->st.m, &f);
	if (wire_bpf_attach_tc(ifindex, &f, wire_tc_take, cap, &cap->st.bpf,
			       err) < 0) {
		cap->st.bpf = NULL;
		return -1;
	}
	cap->st.linktype = DLT_EN10MB;
	return 0;
}

/* Adds what the kernel's counter kept from the capture to c, and what it
 * could not hand on to c's drops. */
static int
wire_add_counter(const struct wire_bpf *b, struct wire_counts *c, char *err)
{
	struct wire_bpf_counts k[2];
	struct wire_dir *d[2] = {&c->out, &c->in};
	uint64_t lost;
	int i;

	if (wire_bpf_read(b, k, &lost, err) < 0)
		return -1;
	c->dropped += lost;
	for (i = 0; i < 2; i++) {
		d[i]->packets += k[i].packets;
		d[i]->bytes += k[i].bytes;
		d[i]->payload += k[i].payload;
		if (k[i].max_len > d[i]->max_len)
			d[i]->max_len = k[i].max_len;
	}
	return 0;
}

/*
 * Between pcap_activate and the filter the socket took every packet on the
 * interface: on a busy one (lo under other tests) they filled the ring, and
 * the flow's own packets would then be dropped. None of them is the test's,
 * which has not started: empty the ring of them, and leave the drops they
 * caused out of the count. Returns 0, or -1 with err set.
 */
static int
wire_capture_flush(struct wire_capture *cap, char *err)
{
	struct pcap_stat ps;

	while (pcap_dispatch(cap->p, -1, wire_discard, NULL) > 0)
		;
	/* The same for what the kernel's counter took meanwhile. */
	if (cap->st.bpf != NULL && wire_bpf_reset(cap->st.bpf, err) < 0)
		return -1;
	if (pcap_stats(cap->p, &ps) == 0)
		cap->drop_base = (uint64_t)ps.ps_drop + ps.ps_ifdrop;
	return 0;
}

/*
 * Opens the capture of cap->ifname with the flow's filter, and the
 * counter on its socket where it can. Returns 0; 1 when capture is not
 * permitted here, with err holding a warning; or -1 with err set.
 */
static int
wire_pcap_start(struct wire_capture *cap, const struct wire_flow *f,
		char *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	int rc;

	rc = wire_pcap_open(cap, err);
	if (rc != 0) {
		cap->p = NULL; /* closed there */
		return rc;
	}
	cap->st.linktype = pcap_datalink(cap->p);
	if (wire_set_filter(cap->p, f, err) < 0)
		return -1;
	wire_use_counter(cap);
	/* pcap_breakloop cannot be trusted to wake a blocked read, so the
	 * thread polls with a timeout and checks a flag instead. */
	if (pcap_setnonblock(cap->p, 1, errbuf) < 0)
		return err_set(err, "cannot capture on %s: %s", cap->ifname,
			       errbuf);
	if (pcap_get_selectable_fd(cap->p) < 0)
		return err_set(err,
			       "cannot capture on %s: no selectable descriptor",
			       cap->ifname);
	return wire_capture_flush(cap, err);
}

/* Frees cap and what it holds, its thread not started or ended. */
static void
wire_capture_free(struct wire_capture *cap)
{
	if (cap->p != NULL)
		pcap_close(cap->p);
	wire_bpf_free(cap->st.bpf);
	free(cap);
}

int
wire_capture_start(struct wire_capture **capp, const char *ifname,
		   const struct wire_flow *f, char *err)
{
	struct wire_capture *cap;
	int rc;

	*capp = NULL;
	if (ifname == NULL || ifname[0] == '\0' ||
	    strlen(ifname) >= IF_NAMESIZE)
		return err_set(err, "cannot capture: bad interface name");
	cap = calloc(1, sizeof(*cap));
	if (cap == NULL)
		return err_set(err, "cannot capture on %s: out of memory",
			       ifname);
	atomic_init(&cap->stop, 0);
	snprintf(cap->ifname, sizeof(cap->ifname), "%s", ifname);
	if (wire_match_init(f, &cap->st.m, err) < 0) {
		free(cap);
		return -1;
	}
	if (wire_tc_open(cap) == 0) {
		/* What came before the test is not its own. */
		cap->flushing = 1;
		rc = wire_bpf_take(cap->st.bpf, err) < 0 ||
				     wire_bpf_reset(cap->st.bpf, err) < 0
			 ? -1
			 : 0;
		cap->flushing = 0;
	} else {
		rc = wire_pcap_start(cap, f, err);
	}
	if (rc == 1) {
		free(cap);
		return 1;
	}
	if (rc == 0) {
		rc = pthread_create(&cap->thread, NULL,
				    cap->p == NULL ? wire_tc_main
						   : wire_capture_main,
				    cap);
		if (rc != 0)
			rc = err_set(err,
				     "cannot capture on %s: cannot start "
				     "thread: %s",
				     ifname, strerror(rc));
	}
	if (rc < 0) {
		wire_capture_free(cap);
		return -1;
	}
	*capp = cap;
	return 0;
}

/* Tells cap's thread to take what is left and end; it does not wait. */
static void
wire_capture_signal(struct wire_capture *cap)
{
	atomic_store(&cap->stop, 1);
}

int
wire_capture_stop(struct wire_capture *cap, struct wire_counts *c, char *err)
{
	struct pcap_stat ps;
	int rc = 0;

	if (cap == NULL)
		return err_set(err, "wire: no capture to stop");
	wire_capture_signal(cap);
	pthread_join(cap->thread, NULL);
	/* The tc counter stays on its hook until here: what it handed over
	 * after the thread's last read is taken now, off the hook. */
	if (cap->p == NULL && cap->st.bpf != NULL && !cap->failed) {
		wire_bpf_detach(cap->st.bpf);
		if (wire_bpf_take(cap->st.bpf, cap->err) < 0)
			cap->failed = 1;
	}
	*c = cap->st.c;
	c->linktype = cap->st.linktype;
	c->dropped = 0;
	/* What the kernel's counter counted is added below. */
	c->handed = (int64_t)(c->out.packets + c->in.packets);
	/* Drops only: pcap_stats' packet count can see both copies of a
	 * loopback packet (where PACKET_IGNORE_OUTGOING was refused), the
	 * callback's does not. */
	if (cap->p != NULL && pcap_stats(cap->p, &ps) == 0 &&
	    (uint64_t)ps.ps_drop + ps.ps_ifdrop > cap->drop_base)
		c->dropped =
		    (uint64_t)ps.ps_drop + ps.ps_ifdrop - cap->drop_base;
	c->counter = cap->st.bpf == NULL ? WIRE_BY_CAPTURE
		     : cap->p == NULL	 ? WIRE_BY_TC
					 : WIRE_BY_SOCKET;
	c->in_kernel = c->counter != WIRE_BY_CAPTURE;
	if (cap->failed) {
		err_set(err, "%s", cap->err);
		rc = -1;
	} else if (cap->st.bpf != NULL &&
		   wire_add_counter(cap->st.bpf, c, err) < 0) {
		rc = -1;
	}
	wire_capture_free(cap);
	return rc;
}

static const char *const wire_counter_names[] = {
    [WIRE_BY_CAPTURE] = "capture",
    [WIRE_BY_SOCKET] = "socket",
    [WIRE_BY_TC] = "tc",
};

const char *
wire_counter_name(int counter)
{
	if (counter < WIRE_BY_CAPTURE || counter > WIRE_BY_TC)
		return "capture";
	return wire_counter_names[counter];
}

int
wire_counter_of(const char *name)
{
	int i;

	for (i = WIRE_BY_CAPTURE; i <= WIRE_BY_TC; i++)
		if (strcmp(name, wire_counter_names[i]) == 0)
			return i;
	return -1;
}

/* The interface of a session (ifname, or the route's to f's remote end),
 * its MTU, offloads and counters at the start; returns 0, or -1 with
 * w->warning set. */
static int
session_iface(struct wire_session *ws, struct wire_report *w,
	      const char *ifname, const struct wire_flow *f)
{
	char err[ERR_LEN];

	if (ifname != NULL && ifname[0] != '\0')
		snprintf(w->ifname, sizeof(w->ifname), "%s", ifname);
	else if (iface_route((const struct sockaddr *)&f->remote, w->ifname,
			     err) < 0) {
		snprintf(w->warning, sizeof(w->warning), "%s", err);
		return -1;
	}
	w->mtu = iface_mtu(w->ifname);
	iface_offloads(w->ifname, w->offloads, sizeof(w->offloads));
	/* The interface's window encloses the capture's, so the NIC never
	 * shows fewer packets than were captured. */
	if (iface_stat_read(w->ifname, &ws->before, err) == 0)
		w->have_ifstat = 1;
	return 0;
}

void
wire_session_start(struct wire_session *ws, struct wire_report *w,
		   const char *ifname, const struct wire_flow *flows, int n)
{
	char err[ERR_LEN];
	int i, rc;

	memset(ws, 0, sizeof(*ws));
	w->enabled = 1;
	if (n < 1) {
		snprintf(w->warning, sizeof(w->warning),
			 "no fixed data connection to capture (the test opens "
			 "a new one per transaction)");
		return;
	}
	if (session_iface(ws, w, ifname, &flows[0]) < 0)
		return;
	ws->cap = calloc((size_t)n, sizeof(*ws->cap));
	if (ws->cap == NULL)
		return;
	for (i = 0; i < n; i++) {
		rc = wire_capture_start(&ws->cap[i], w->ifname, &flows[i], err);
		if (rc != 0) {
			snprintf(w->warning, sizeof(w->warning), "%s", err);
			break;
		}
		ws->ncap++;
	}
}

/*
 * Counting on loopback, where both ends' packets pass one interface: each
 * end's counter would see every packet of the flow, and on a 1-byte
 * TCP_RR the second counter is about half of what --wire costs (bench/wire,
 * tc against tc-both). netperf offers to count for both; netserver takes
 * the offer only where its own route says loopback too.
 */
int
wire_share_offer(const char *ifname)
{
	int fd;

	if (wire_env_off("NETPERF_WIRE_SHARE"))
		return 0;
	if (ifname != NULL && ifname[0] != '\0' && !wire_is_loopback(ifname))
		return 0;
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int
wire_session_share(struct wire_session *ws, struct wire_report *w,
		   const struct wire_flow *flows, int n)
{
	char ifname[IF_NAMESIZE], err[ERR_LEN];

	if (n < 1 ||
	    iface_route((const struct sockaddr *)&flows[0].remote, ifname,
			err) < 0 ||
	    !wire_is_loopback(ifname))
		return 0;
	memset(ws, 0, sizeof(*ws));
	w->enabled = 1;
	w->shared = 1;
	session_iface(ws, w, ifname, &flows[0]);
	return 1;
}

void
wire_report_mirror(struct wire_report *remote, const struct wire_report *local)
{
	if (!remote->shared)
		return;
	if (!local->captured || strcmp(local->ifname, remote->ifname) != 0) {
		snprintf(remote->warning, sizeof(remote->warning),
			 "netserver left the count to netperf's counter on "
			 "%s, which %s%s%.120s",
			 remote->ifname,
			 !local->captured ? "counted nothing"
					  : "counted another interface",
			 local->warning[0] != '\0' ? ": " : "", local->warning);
		remote->captured = 0;
		return;
	}
	remote->captured = 1;
	remote->c = local->c;
	remote->c.out = local->c.in;
	remote->c.in = local->c.out;
	/* What netperf's count lacks, netserver's lacks too. */
	if (local->warning[0] != '\0')
		snprintf(remote->warning, sizeof(remote->warning),
			 "netperf's counter, which counted for both: %.200s",
			 local->warning);
}

int
wire_flow_of(int fd, int protocol, int any_peer_port, struct wire_flow *f)
{
	socklen_t len;

	memset(f, 0, sizeof(*f));
	f->protocol = protocol;
	len = sizeof(f->local);
	if (getsockname(fd, (struct sockaddr *)&f->local, &len) < 0)
		return -1;
	len = sizeof(f->remote);
	if (getpeername(fd, (struct sockaddr *)&f->remote, &len) < 0)
		return -1;
	if (any_peer_port) {
		if (f->remote.ss_family == AF_INET)
			((struct sockaddr_in *)&f->remote)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&f->remote)->sin6_port = 0;
	}
	return 0;
}

void
wire_session_stop(struct wire_session *ws, struct wire_report *w)
{
	struct iface_stat after;
	struct wire_counts c;
	char err[ERR_LEN];
	/* the costliest counter any capture had (the lowest enum
	 * wire_counter): in the kernel only if every one's was */
	int i, counter = WIRE_BY_TC;

	/* Each thread takes up to 300 ms to drain its ring after the flag:
	 * tell them all first, so 70 streams wait 300 ms, not 21 s. */
	for (i = 0; i < ws->ncap; i++)
		wire_capture_signal(ws->cap[i]);
	for (i = 0; i < ws->ncap; i++) {
		memset(&c, 0, sizeof(c));
		if (wire_capture_stop(ws->cap[i], &c, err) < 0) {
			snprintf(w->warning, sizeof(w->warning), "%s", err);
			continue;
		}
		w->captured = 1;
		w->c.out.packets += c.out.packets;
		w->c.out.bytes += c.out.bytes;
		w->c.out.payload += c.out.payload;
		w->c.out.retrans += c.out.retrans;
		w->c.out.retrans_bytes += c.out.retrans_bytes;
		w->c.out.reordered += c.out.reordered;
		if (c.out.max_len > w->c.out.max_len)
			w->c.out.max_len = c.out.max_len;
		w->c.in.packets += c.in.packets;
		w->c.in.bytes += c.in.bytes;
		w->c.in.payload += c.in.payload;
		w->c.in.retrans += c.in.retrans;
		w->c.in.retrans_bytes += c.in.retrans_bytes;
		w->c.in.reordered += c.in.reordered;
		if (c.in.max_len > w->c.in.max_len)
			w->c.in.max_len = c.in.max_len;
		w->c.dropped += c.dropped;
		w->c.handed += c.handed;
		w->c.linktype = c.linktype;
		if (c.counter < counter)
			counter = c.counter;
	}
	w->c.counter = w->captured ? counter : WIRE_BY_CAPTURE;
	w->c.in_kernel = w->c.counter != WIRE_BY_CAPTURE;
	free(ws->cap);
	ws->cap = NULL;
	ws->ncap = 0;
	if (w->have_ifstat) {
		if (iface_stat_read(w->ifname, &after, err) == 0)
			iface_stat_delta(&ws->before, &after, &w->ifstat);
		else
			w->have_ifstat = 0;
	}
}
