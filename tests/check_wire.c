/* Tests for lib/wire: flow filters, packet counting from pcap files built
 * by hand, interface counters and a live capture on loopback. */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/err.h"
#include "np/iface.h"
#include "np/wire.h"

#define PKT_MAX 70000

/* One packet to write: link framing comes from the file, the rest from
 * here. Zero fields take their obvious default. */
struct spec {
	int vlan;	 /* an 802.1Q tag after the Ethernet header */
	int proto;	 /* IPPROTO_TCP or IPPROTO_UDP */
	const char *src; /* IPv4 or IPv6 literal */
	const char *dst;
	uint16_t sport, dport;
	uint32_t seq;	  /* TCP */
	uint32_t payload; /* bytes after the TCP/UDP header */
	int tcpopts;	  /* 12 bytes of TCP options (NOP NOP timestamps) */
	int pad;	  /* pad the Ethernet frame to 60 bytes */
	int frag;	  /* a fragment (IPv6: adds a fragment header) */
	uint16_t fragoff; /* fragment offset, in 8-byte units */
	int mf;		  /* more fragments */
	int nolen;	  /* IP length field 0, as in GSO/BIG TCP packets */
	uint32_t caplen;  /* bytes to store; 0 for the whole packet */
};

/* A savefile being written. */
struct dump {
	pcap_t *p;
	pcap_dumper_t *d;
	int link;
	char path[64];
};

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* Builds packet s framed for link type link into buf; returns its
 * length. */
static uint32_t
build(int link, const struct spec *s, uint8_t *buf)
{
	int v6 = strchr(s->src, ':') != NULL;
	uint32_t off = 0, ip, l4len, iplen, n;
	uint16_t etype = v6 ? 0x86dd : 0x0800;

	memset(buf, 0, PKT_MAX);
	switch (link) {
	case DLT_EN10MB:
		memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01",
		       12);
		if (s->vlan) {
			put16(buf + 12, 0x8100);
			put16(buf + 14, 42);
			off = 16;
		} else {
			off = 12;
		}
		put16(buf + off, etype);
		off += 2;
		break;
	case DLT_LINUX_SLL:
		put16(buf, 4); /* PACKET_OUTGOING */
		put16(buf + 2, 1);
		put16(buf + 4, 6);
		put16(buf + 14, etype);
		off = 16;
		break;
	case DLT_LINUX_SLL2:
		put16(buf, etype);
		put32(buf + 4, 1);
		put16(buf + 8, 1);
		buf[11] = 6;
		off = 20;
		break;
	case DLT_NULL:
		/* Host order, as BSD writes it. */
		n = v6 ? 30 : 2;
		memcpy(buf, &n, 4);
		off = 4;
		break;
	default: /* DLT_RAW */
		break;
	}
	ip = off;
	if (s->frag && s->fragoff != 0)
		l4len = 0;
	else if (s->proto == IPPROTO_TCP)
		l4len = s->tcpopts ? 32 : 20;
	else
		l4len = 8;
	if (v6) {
		uint32_t fh = s->frag ? 8 : 0;

		buf[ip] = 0x60;
		put16(buf + ip + 4, s->nolen ? 0 : fh + l4len + s->payload);
		buf[ip + 6] = s->frag ? 44 : (uint8_t)s->proto;
		buf[ip + 7] = 64;
		ck_assert_int_eq(inet_pton(AF_INET6, s->src, buf + ip + 8), 1);
		ck_assert_int_eq(inet_pton(AF_INET6, s->dst, buf + ip + 24), 1);
		off = ip + 40;
		if (s->frag) {
			buf[off] = (uint8_t)s->proto;
			put16(buf + off + 2,
			      (uint32_t)s->fragoff << 3 | (s->mf ? 1 : 0));
			put32(buf + off + 4, 0x1234);
			off += 8;
		}
	} else {
		iplen = 20 + l4len + s->payload;
		buf[ip] = 0x45;
		put16(buf + ip + 2, s->nolen ? 0 : iplen);
		put16(buf + ip + 6,
		      s->frag ? (s->mf ? 0x2000u : 0) | s->fragoff : 0x4000);
		buf[ip + 8] = 64;
		buf[ip + 9] = (uint8_t)s->proto;
		ck_assert_int_eq(inet_pton(AF_INET, s->src, buf + ip + 12), 1);
		ck_assert_int_eq(inet_pton(AF_INET, s->dst, buf + ip + 16), 1);
		off = ip + 20;
	}
	if (l4len > 0) {
		put16(buf + off, s->sport);
		put16(buf + off + 2, s->dport);
		if (s->proto == IPPROTO_TCP) {
			put32(buf + off + 4, s->seq);
			put32(buf + off + 8, 777);
			buf[off + 12] = (uint8_t)((l4len / 4) << 4);
			buf[off + 13] = 0x10; /* ACK */
			put16(buf + off + 14, 512);
			if (s->tcpopts) {
				buf[off + 20] = 1;
				buf[off + 21] = 1;
				buf[off + 22] = 8;
				buf[off + 23] = 10;
			}
		} else {
			put16(buf + off + 4, 8 + s->payload);
		}
	}
	off += l4len;
	/* Payload bytes that would pass for headers if read by mistake. */
	memset(buf + off, 0xff, s->payload);
	off += s->payload;
	if (s->pad && link == DLT_EN10MB && off < 60)
		off = 60;
	return off;
}

static void
dump_open(struct dump *d, int link)
{
	int fd;
	FILE *fp;

	d->link = link;
	snprintf(d->path, sizeof(d->path), "/tmp/check_wire_XXXXXX");
	fd = mkstemp(d->path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(fp);
	d->p = pcap_open_dead(link, 65535);
	ck_assert_ptr_nonnull(d->p);
	d->d = pcap_dump_fopen(d->p, fp);
	ck_assert_msg(d->d != NULL, "pcap_dump_fopen: %s", pcap_geterr(d->p));
}

/* Writes s n times; returns the length of one. */
static uint32_t
dump_add_n(struct dump *d, const struct spec *s, int n)
{
	static uint8_t buf[PKT_MAX];
	struct pcap_pkthdr h;
	uint32_t len = build(d->link, s, buf);
	int i;

	memset(&h, 0, sizeof(h));
	h.len = len;
	h.caplen = s->caplen && s->caplen < len ? s->caplen : len;
	for (i = 0; i < n; i++) {
		h.ts.tv_sec = 1700000000;
		h.ts.tv_usec = i;
		pcap_dump((u_char *)d->d, &h, buf);
	}
	return len;
}

static uint32_t
dump_add(struct dump *d, const struct spec *s)
{
	return dump_add_n(d, s, 1);
}

/* Closes the file and counts flow f in it, then removes it. */
static void
dump_count(struct dump *d, const struct wire_flow *f, struct wire_counts *c)
{
	char err[ERR_LEN] = "";
	int rc;

	pcap_dump_close(d->d);
	pcap_close(d->p);
	memset(c, 0xa5, sizeof(*c));
	rc = wire_count_file(d->path, f, c, err);
	unlink(d->path);
	ck_assert_msg(rc == 0, "wire_count_file: %s", err);
}

static void
set_addr(struct sockaddr_storage *ss, const char *addr, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(addr, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		ck_assert_int_eq(inet_pton(AF_INET6, addr, &s6->sin6_addr), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		ck_assert_int_eq(inet_pton(AF_INET, addr, &s4->sin_addr), 1);
	}
}

static struct wire_flow
flow(int proto, const char *la, uint16_t lp, const char *ra, uint16_t rp)
{
	struct wire_flow f;

	memset(&f, 0, sizeof(f));
	f.protocol = proto;
	set_addr(&f.local, la, lp);
	set_addr(&f.remote, ra, rp);
	return f;
}

static void
dir_eq(const struct wire_dir *d, uint64_t packets, uint64_t bytes,
       uint64_t payload, uint64_t retrans, uint32_t max_len)
{
	ck_assert_uint_eq(d->packets, packets);
	ck_assert_uint_eq(d->bytes, bytes);
	ck_assert_uint_eq(d->payload, payload);
	ck_assert_uint_eq(d->retrans, retrans);
	ck_assert_uint_eq(d->max_len, max_len);
}

#define L4 "10.0.0.1"
#define R4 "10.0.0.2"
#define L6 "fd00::1"
#define R6 "fd00::2"

START_TEST(test_udp4_directions)
{
	struct wire_flow f = flow(IPPROTO_UDP, L4, 5001, R4, 40000);
	struct wire_counts c;
	struct dump d;

	dump_open(&d, DLT_EN10MB);
	/* 14 + 20 + 8 + 100 = 142 bytes each way out. */
	dump_add_n(&d,
		   &(struct spec){.proto = IPPROTO_UDP,
				  .src = L4,
				  .dst = R4,
				  .sport = 5001,
				  .dport = 40000,
				  .payload = 100},
		   3);
	dump_add_n(&d,
		   &(struct spec){.proto = IPPROTO_UDP,
				  .src = R4,
				  .dst = L4,
				  .sport = 40000,
				  .dport = 5001,
				  .payload = 50},
		   2);
	/* 46 bytes padded to the Ethernet minimum of 60: the payload is
	 * what IP says, 4, not what the frame holds. */
	dump_add(&d, &(struct spec){.proto = IPPROTO_UDP,
				    .src = R4,
				    .dst = L4,
				    .sport = 40000,
				    .dport = 5001,
				    .payload = 4,
				    .pad = 1});
	/* Not the flow: another port, another host, another protocol,
	 * the right ports the wrong way round. */
	dump_add(&d, &(struct spec){.proto = IPPROTO_UDP,
				    .src = L4,
				    .dst = R4,
				    .sport = 5002,
				    .dport = 40000,
				    .payload = 100});
	dump_add(&d, &(struct spec){.proto = IPPROTO_UDP,
				    .src = L4,
				    .dst = "10.0.0.3",
				    .sport = 5001,
				    .dport = 40000,
				    .payload = 100});
	dump_add(&d, &(struct spec){.proto = IPPROTO_TCP,
				    .src = L4,
				    .dst = R4,
				    .sport = 5001,
				    .dport = 40000,
				    .payload = 100});
	dump_add(&d, &(struct spec){.proto = IPPROTO_UDP,
				    .src = L4,
				    .dst = R4,
				    .sport = 40000,
				    .dport = 5001,
				    .payload = 100});
	dump_count(&d, &f, &c);
	dir_eq(&c.out, 3, 3 * 142, 300, 0, 142);
	dir_eq(&c.in, 3, 2 * 92 + 60, 104, 0, 92);
	ck_assert_int_eq(c.linktype, DLT_EN10MB);
	ck_assert_uint_eq(c.dropped, 0);
}
END_TEST

/* Writes a TCP segment of the flow L4:5001 <-> R4:12865. */
static void
add_tcp4(struct dump *d, int out, uint32_t seq, uint32_t payload)
{
	dump_add(d, &(struct spec){.proto = IPPROTO_TCP,
				   .src = out ? L4 : R4,
				   .dst = out ? R4 : L4,
				   .sport = out ? 5001 : 12865,
				   .dport = out ? 12865 : 5001,
				   .seq = seq,
				   .payload = payload,
				   .tcpopts = 1});
}

START_TEST(test_tcp4_retrans)
{
	struct wire_flow f = flow(IPPROTO_TCP, L4, 5001, R4, 12865);
	struct wire_counts c;
	struct dump d;

	dump_open(&d, DLT_EN10MB);
	/* 14 + 20 + 32 (12 bytes of options) + 100 = 166. */
	add_tcp4(&d, 1, 1000, 100);
	add_tcp4(&d, 0, 5000, 0);
	add_tcp4(&d, 1, 1100, 100);
	add_tcp4(&d, 0, 5000, 0);
	add_tcp4(&d, 1, 1000, 100); /* the same data again */
	/* Pure ACKs repeat their sequence number and are not resent data. */
	add_tcp4(&d, 0, 5000, 0);
	/* 50 old bytes then 50 new: TCP repacketised a retransmission with
	 * new data; it still carries old data again, and moves the edge. */
	add_tcp4(&d, 1, 1150, 100);
	add_tcp4(&d, 1, 1200, 50); /* inside what was sent: retrans */
	dump_count(&d, &f, &c);
	dir_eq(&c.out, 5, 4 * 166 + 116, 450, 3, 166);
	ck_assert_uint_eq(c.out.retrans_bytes, 100 + 50 + 50);
	ck_assert_uint_eq(c.out.reordered, 0);
	dir_eq(&c.in, 3, 3 * 66, 0, 0, 66);
}
END_TEST

/* A segment that arrives after a later one fills a gap: reordering, not a
 * retransmission; the same bytes once more are one. */
START_TEST(test_tcp_reordering)
{
	struct wire_flow f = flow(IPPROTO_TCP, L4, 5001, R4, 12865);
	struct wire_counts c;
	struct dump d;

	dump_open(&d, DLT_EN10MB);
	add_tcp4(&d, 1, 1000, 100);
	add_tcp4(&d, 1, 1200, 100); /* leaves [1100, 1200) open */
	add_tcp4(&d, 1, 1400, 100); /* and [1300, 1400) */
	add_tcp4(&d, 1, 1150, 50);  /* the gap's upper half, late */
	add_tcp4(&d, 1, 1100, 50);  /* its lower half, late */
	add_tcp4(&d, 1, 1100, 50);  /* the same again: old data */
	add_tcp4(&d, 1, 1320, 40);  /* the middle of the second gap */
	add_tcp4(&d, 1, 1300, 20);
	add_tcp4(&d, 1, 1360, 40);
	dump_count(&d, &f, &c);
	ck_assert_uint_eq(c.out.packets, 9);
	ck_assert_uint_eq(c.out.reordered, 5);
	ck_assert_uint_eq(c.out.retrans, 1);
	ck_assert_uint_eq(c.out.retrans_bytes, 50);
}
END_TEST

START_TEST(test_tcp_seq_wrap)
{
	struct wire_flow f = flow(IPPROTO_TCP, L4, 5001, R4, 12865);
	struct wire_counts c;
	struct dump d;

	dump_open(&d, DLT_EN10MB);
	add_tcp4(&d, 1, 0xfffffe00u, 0x100); /* ends at 0xffffff00 */
	add_tcp4(&d, 1, 0xffffff00u, 0x100); /* new: ends at 0, past it */
	add_tcp4(&d, 1, 0, 100);	     /* new */
	add_tcp4(&d, 1, 0xffffff80u, 0x80);  /* old: ends at 0 */
	add_tcp4(&d, 1, 0xfffffe00u, 0x100); /* old, from before the wrap */
	add_tcp4(&d, 1, 100, 100);	     /* new */
	/* The other direction keeps its own edge. */
	add_tcp4(&d, 0, 0x7fffffffu, 10);
	add_tcp4(&d, 0, 0x80000009u, 10);
	dump_count(&d, &f, &c);
	ck_assert_uint_eq(c.out.packets, 6);
	ck_assert_uint_eq(c.out.payload, 3 * 0x100 + 100 + 0x80 + 100);
	ck_assert_uint_eq(c.out.retrans, 2);
	ck_assert_uint_eq(c.in.packets, 2);
	ck_assert_uint_eq(c.in.retrans, 0);
}
END_TEST

START_TEST(test_ipv6_tcp_udp)
{
	struct wire_flow ft = flow(IPPROTO_TCP, L6, 33000, R6, 5001);
	struct wire_flow fu = flow(IPPROTO_UDP, L6, 33000, R6, 5001);
	struct spec out = {.proto = IPPROTO_TCP,
			   .src = L6,
			   .dst = R6,
			   .sport = 33000,
			   .dport = 5001,
			   .seq = 1,
			   .payload = 1000,
			   .caplen = 128};
	struct spec in = {.proto = IPPROTO_TCP,
			  .src = R6,
			  .dst = L6,
			  .sport = 5001,
			  .dport = 33000,
			  .seq = 9};
	struct wire_counts c;
	struct dump d;

	/* Stored short, as a 128-byte snaplen stores them: payload comes from
	 * the IPv6 payload length. 14 + 40 + 20 + 1000 = 1074. */
	dump_open(&d, DLT_EN10MB);
	dump_add(&d, &out);
	out.seq += 1000;
	dump_add(&d, &out);
	dump_add(&d, &in);
	out.sport = 33001; /* another flow */
	dump_add(&d, &out);
	dump_count(&d, &ft, &c);
	dir_eq(&c.out, 2, 2 * 1074, 2000, 0, 1074);
	dir_eq(&c.in, 1, 74, 0, 0, 74);

	dump_open(&d, DLT_EN10MB);
	out.proto = in.proto = IPPROTO_UDP;
	out.sport = 33000;
	dump_add_n(&d, &out, 4); /* 14 + 40 + 8 + 1000 = 1062 */
	in.payload = 1;
	dump_add(&d, &in);
	out.dport = 5002;
	dump_add(&d, &out);
	dump_count(&d, &fu, &c);
	dir_eq(&c.out, 4, 4 * 1062, 4000, 0, 1062);
	dir_eq(&c.in, 1, 63, 1, 0, 63);
}
END_TEST

/* A segmentation-offload super-packet larger than IP's 16-bit length
 * field says 0 there: the length is the wire's. */
START_TEST(test_big_tcp)
{
	struct wire_flow f4 = flow(IPPROTO_TCP, L4, 5001, R4, 12865);
	struct wire_flow f6 = flow(IPPROTO_TCP, L6, 5001, R6, 12865);
	struct spec s = {.proto = IPPROTO_TCP,
			 .src = L4,
			 .dst = R4,
			 .sport = 5001,
			 .dport = 12865,
			 .payload = 65536,
			 .nolen = 1,
			 .caplen = 128};
	struct wire_counts c;
	struct dump d;

	dump_open(&d, DLT_EN10MB);
	ck_assert_uint_eq(dump_add(&d, &s), 14 + 20 + 20 + 65536);
	dump_count(&d, &f4, &c);
	dir_eq(&c.out, 1, 65590, 65536, 0, 65590);

	dump_open(&d, DLT_EN10MB);
	s.src = L6;
	s.dst = R6;
	ck_assert_uint_eq(dump_add(&d, &s), 14 + 40 + 20 + 65536);
	dump_count(&d, &f6, &c);
	dir_eq(&c.out, 1, 65610, 65536, 0, 65610);
}
END_TEST

START_TEST(test_vlan)
{
	struct wire_flow f = flow(IPPROTO_UDP, L4, 5001, R4, 40000);
	struct spec s = {.vlan = 1,
			 .proto = IPPROTO_UDP,
			 .src = L4,
			 .dst = R4,
			 .sport = 5001,
			 .dport = 40000,
			 .payload = 100};
	struct wire_counts c;
	struct dump d;

	dump_open(&d, DLT_EN10MB);
	ck_assert_uint_eq(dump_add(&d, &s), 146);
	s.vlan = 0;
	ck_assert_uint_eq(dump_add(&d, &s), 142);
	s.vlan = 1;
	s.sport = 5002;
	dump_add(&d, &s);
	dump_count(&d, &f, &c);
	dir_eq(&c.out, 2, 146 + 142, 200, 0, 146);
	ck_assert_uint_eq(c.in.packets, 0);
}
END_TEST

/* The same small exchange, framed for link type link: 2 out, 1 in. */
static void
check_link(int link, uint32_t hdr)
{
	struct wire_flow f4 = flow(IPPROTO_UDP, L4, 5001, R4, 40000);
	struct wire_flow f6 = flow(IPPROTO_TCP, L6, 33000, R6, 5001);
	struct spec u = {.proto = IPPROTO_UDP,
			 .src = L4,
			 .dst = R4,
			 .sport = 5001,
			 .dport = 40000,
			 .payload = 300};
	struct spec t = {.proto = IPPROTO_TCP,
			 .src = R6,
			 .dst = L6,
			 .sport = 5001,
			 .dport = 33000,
			 .payload = 200};
	struct wire_counts c;
	struct dump d;

	dump_open(&d, link);
	dump_add_n(&d, &u, 2);
	u.src = R4;
	u.dst = L4;
	u.sport = 40000;
	u.dport = 5001;
	dump_add(&d, &u);
	u.dport = 1;
	dump_add(&d, &u);
	dump_count(&d, &f4, &c);
	ck_assert_int_eq(c.linktype, link);
	dir_eq(&c.out, 2, 2 * (hdr + 328), 600, 0, hdr + 328);
	dir_eq(&c.in, 1, hdr + 328, 300, 0, hdr + 328);

	dump_open(&d, link);
	dump_add(&d, &t);
	t.seq = 200;
	dump_add(&d, &t);
	t.seq = 0;
	dump_add(&d, &t);
	dump_count(&d, &f6, &c);
	dir_eq(&c.in, 3, 3 * (hdr + 260), 600, 1, hdr + 260);
	ck_assert_uint_eq(c.out.packets, 0);
}

START_TEST(test_sll)
{
	check_link(DLT_LINUX_SLL, 16);
}
END_TEST

START_TEST(test_sll2)
{
	check_link(DLT_LINUX_SLL2, 20);
}
END_TEST

START_TEST(test_raw)
{
	check_link(DLT_RAW, 0);
}
END_TEST

START_TEST(test_null)
{
	check_link(DLT_NULL, 4);
}
END_TEST

START_TEST(test_truncated)
{
	struct wire_flow f = flow(IPPROTO_TCP, L4, 5001, R4, 12865);
	struct spec s = {.proto = IPPROTO_TCP,
			 .src = L4,
			 .dst = R4,
			 .sport = 5001,
			 .dport = 12865,
			 .seq = 1,
			 .payload = 500};
	struct wire_counts c;
	struct dump d;

	dump_open(&d, DLT_EN10MB);
	/* A whole packet first, so that a reader running past the next
	 * packets' caplen would find its plausible headers still there. */
	dump_add(&d, &s);
	/* Ports captured but not the data offset: counted, no payload. */
	s.seq = 501;
	s.caplen = 14 + 20 + 4;
	dump_add(&d, &s);
	/* Every cut short of the ports: not even attributable. */
	for (s.caplen = 1; s.caplen < 14 + 20 + 4; s.caplen++)
		dump_add(&d, &s);
	/* Stored down to the TCP header: complete for us. */
	s.seq = 1001;
	s.caplen = 14 + 20 + 20;
	dump_add(&d, &s);
	dump_count(&d, &f, &c);
	dir_eq(&c.out, 3, 3 * 554, 1000, 0, 554);
	ck_assert_uint_eq(c.in.packets, 0);
}
END_TEST

START_TEST(test_ipv4_fragments)
{
	struct wire_flow f = flow(IPPROTO_UDP, L4, 5001, R4, 40000);
	struct spec s = {.proto = IPPROTO_UDP,
			 .src = L4,
			 .dst = R4,
			 .sport = 5001,
			 .dport = 40000,
			 .frag = 1,
			 .mf = 1};
	struct wire_counts c;
	struct dump d;

	/* A 3000-byte datagram through a 1500 MTU: 8 + 1472, 1480, 48. */
	dump_open(&d, DLT_EN10MB);
	s.payload = 1472;
	ck_assert_uint_eq(dump_add(&d, &s), 1514);
	s.fragoff = 185;
	s.payload = 1480;
	ck_assert_uint_eq(dump_add(&d, &s), 1514);
	s.fragoff = 370;
	s.payload = 48;
	s.mf = 0;
	ck_assert_uint_eq(dump_add(&d, &s), 82);
	/* A fragment between other hosts. */
	s.dst = "10.0.0.9";
	dump_add(&d, &s);
	dump_count(&d, &f, &c);
	dir_eq(&c.out, 3, 1514 + 1514 + 82, 3000, 0, 1514);
	ck_assert_uint_eq(c.in.packets, 0);
}
END_TEST

START_TEST(test_ipv6_fragments)
{
	struct wire_flow f = flow(IPPROTO_UDP, L6, 5001, R6, 40000);
	struct spec s = {.proto = IPPROTO_UDP,
			 .src = R6,
			 .dst = L6,
			 .sport = 40000,
			 .dport = 5001,
			 .frag = 1,
			 .mf = 1};
	struct wire_counts c;
	struct dump d;

	/* 2000 bytes: 8 + 1440, then 552. */
	dump_open(&d, DLT_EN10MB);
	s.payload = 1440;
	ck_assert_uint_eq(dump_add(&d, &s), 14 + 40 + 8 + 8 + 1440);
	s.fragoff = 181;
	s.payload = 552;
	s.mf = 0;
	ck_assert_uint_eq(dump_add(&d, &s), 14 + 40 + 8 + 552);
	dump_count(&d, &f, &c);
	dir_eq(&c.in, 2, 1510 + 614, 1992, 0, 1510);
	ck_assert_uint_eq(c.out.packets, 0);
}
END_TEST

START_TEST(test_count_file_errors)
{
	struct wire_flow f = flow(IPPROTO_UDP, L4, 5001, R4, 40000);
	char path[] = "/tmp/check_wire_XXXXXX";
	struct wire_counts c;
	char err[ERR_LEN] = "";
	int fd;

	ck_assert_int_eq(wire_count_file("/nonexistent/x.pcap", &f, &c, err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.pcap"));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "not a pcap file at all", 22), 22);
	close(fd);
	err[0] = '\0';
	ck_assert_int_eq(wire_count_file(path, &f, &c, err), -1);
	ck_assert_str_ne(err, "");
	unlink(path);
	f.protocol = IPPROTO_SCTP;
	err[0] = '\0';
	ck_assert_int_eq(wire_count_file(path, &f, &c, err), -1);
	ck_assert_str_ne(err, "");
}
END_TEST

/* Compiles text for link type link; returns pcap_compile's result. */
static int
compiles(const char *text, int link)
{
	pcap_t *p = pcap_open_dead(link, 65535);
	struct bpf_program prog;
	int rc;

	ck_assert_ptr_nonnull(p);
	rc = pcap_compile(p, &prog, text, 1, PCAP_NETMASK_UNKNOWN);
	if (rc == 0)
		pcap_freecode(&prog);
	else
		fprintf(stderr, "%s: %s\n", text, pcap_geterr(p));
	pcap_close(p);
	return rc;
}

static void
compiles_everywhere(const char *text)
{
	static const int links[] = {DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2,
				    DLT_RAW, DLT_NULL};
	size_t i;

	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		ck_assert_msg(compiles(text, links[i]) == 0,
			      "filter does not compile for %d", links[i]);
}

START_TEST(test_filter_ipv4)
{
	struct wire_flow f = flow(IPPROTO_UDP, L4, 5001, R4, 40000);
	char buf[2048], err[ERR_LEN] = "";

	ck_assert_msg(wire_filter(&f, buf, sizeof(buf), err) == 0, "%s", err);
	ck_assert_msg(strncmp(buf, "(udp and ", 9) == 0, "%s", buf);
	ck_assert_ptr_nonnull(
	    strstr(buf, "src host 10.0.0.1 and src port 5001 and dst host "
			"10.0.0.2 and dst port 40000"));
	ck_assert_ptr_nonnull(
	    strstr(buf, "src host 10.0.0.2 and src port 40000 and dst host "
			"10.0.0.1 and dst port 5001"));
	compiles_everywhere(buf);

	f.protocol = IPPROTO_TCP;
	ck_assert_msg(wire_filter(&f, buf, sizeof(buf), err) == 0, "%s", err);
	ck_assert_msg(strncmp(buf, "(tcp and ", 9) == 0, "%s", buf);
	ck_assert_ptr_null(strstr(buf, "udp"));
	ck_assert_ptr_null(strstr(buf, "ip[6:2]")); /* fragments: UDP only */
	compiles_everywhere(buf);
}
END_TEST

START_TEST(test_filter_ipv6)
{
	struct wire_flow f =
	    flow(IPPROTO_TCP, "2001:db8::10", 12865, "2001:db8:0:1::20", 33000);
	char buf[2048], err[ERR_LEN] = "";

	ck_assert_msg(wire_filter(&f, buf, sizeof(buf), err) == 0, "%s", err);
	ck_assert_ptr_nonnull(
	    strstr(buf, "src host 2001:db8::10 and src port 12865 and dst "
			"host 2001:db8:0:1::20 and dst port 33000"));
	ck_assert_ptr_nonnull(
	    strstr(buf, "src host 2001:db8:0:1::20 and src port 33000 and dst "
			"host 2001:db8::10 and dst port 12865"));
	compiles_everywhere(buf);
	f.protocol = IPPROTO_UDP;
	ck_assert_msg(wire_filter(&f, buf, sizeof(buf), err) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(buf, "ip6[6] = 44"));
	compiles_everywhere(buf);
}
END_TEST

START_TEST(test_filter_v4mapped)
{
	struct wire_flow f = flow(IPPROTO_UDP, "::ffff:10.0.0.1", 5001,
				  "::ffff:10.0.0.2", 40000);
	struct spec s = {.proto = IPPROTO_UDP,
			 .src = R4,
			 .dst = L4,
			 .sport = 40000,
			 .dport = 5001,
			 .payload = 10};
	char buf[2048], err[ERR_LEN] = "";
	struct wire_counts c;
	struct dump d;

	ck_assert_msg(wire_filter(&f, buf, sizeof(buf), err) == 0, "%s", err);
	ck_assert_ptr_null(strstr(buf, "ffff"));
	ck_assert_ptr_nonnull(
	    strstr(buf, "src host 10.0.0.1 and src port 5001 and dst host "
			"10.0.0.2 and dst port 40000"));
	compiles_everywhere(buf);
	/* And the packets, IPv4 on the wire, are the flow's. */
	dump_open(&d, DLT_EN10MB);
	dump_add(&d, &s);
	dump_count(&d, &f, &c);
	dir_eq(&c.in, 1, 52, 10, 0, 52);
	/* A mapped end and a plain IPv4 one are the same family. */
	f = flow(IPPROTO_UDP, "::ffff:10.0.0.1", 5001, R4, 40000);
	ck_assert_msg(wire_filter(&f, buf, sizeof(buf), err) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(buf, "dst host 10.0.0.2"));
}
END_TEST

START_TEST(test_filter_errors)
{
	struct wire_flow f = flow(IPPROTO_UDP, L4, 5001, R6, 40000);
	char buf[2048], err[ERR_LEN] = "";

	ck_assert_int_eq(wire_filter(&f, buf, sizeof(buf), err), -1);
	ck_assert_str_ne(err, "");
	f = flow(IPPROTO_ICMP, L4, 5001, R4, 40000);
	err[0] = '\0';
	ck_assert_int_eq(wire_filter(&f, buf, sizeof(buf), err), -1);
	ck_assert_str_ne(err, "");
	f = flow(IPPROTO_UDP, L4, 5001, R4, 40000);
	err[0] = '\0';
	ck_assert_int_eq(wire_filter(&f, buf, 40, err), -1);
	ck_assert_str_ne(err, "");
	f.local.ss_family = AF_UNIX;
	err[0] = '\0';
	ck_assert_int_eq(wire_filter(&f, buf, sizeof(buf), err), -1);
	ck_assert_str_ne(err, "");
}
END_TEST

/* Sends one datagram to ourselves on 127.0.0.1. */
static void
send_loopback(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	ck_assert_int_eq(sendto(fd, "x", 1, 0, (struct sockaddr *)&a, alen), 1);
	close(fd);
}

START_TEST(test_ifstat)
{
	struct iface_stat a, b;
	char err[ERR_LEN] = "";

	ck_assert_msg(iface_stat_read("lo", &a, err) == 0, "%s", err);
	send_loopback();
	ck_assert_msg(iface_stat_read("lo", &b, err) == 0, "%s", err);
	ck_assert_uint_ge(b.tx_packets, a.tx_packets + 1);
	ck_assert_uint_ge(b.rx_bytes, a.rx_bytes + 29);

	ck_assert_int_eq(iface_stat_read("nosuchif0", &a, err), -1);
	ck_assert_msg(strstr(err, "nosuchif0") != NULL, "%s", err);
	err[0] = '\0';
	ck_assert_int_eq(iface_stat_read("../lo", &a, err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(iface_stat_read("", &a, err), -1);
	ck_assert_str_ne(err, "");
}
END_TEST

static int
route(const char *addr, char *ifname, char *err)
{
	struct sockaddr_storage ss;

	set_addr(&ss, addr, 0);
	return iface_route((struct sockaddr *)&ss, ifname, err);
}

START_TEST(test_route)
{
	char ifname[IF_NAMESIZE], err[ERR_LEN] = "";
	struct sockaddr_storage ss;
	struct ifaddrs *ifa, *i;
	char own[INET_ADDRSTRLEN] = "";

	ck_assert_msg(route("127.0.0.1", ifname, err) == 0, "%s", err);
	ck_assert_str_eq(ifname, "lo");
	ck_assert_msg(route("127.0.0.2", ifname, err) == 0, "%s", err);
	ck_assert_str_eq(ifname, "lo");
	if (route("::1", ifname, err) == 0) {
		ck_assert_str_eq(ifname, "lo");
		ck_assert_msg(route("::ffff:127.0.0.1", ifname, err) == 0, "%s",
			      err);
		ck_assert_str_eq(ifname, "lo");
	} else {
		fprintf(stderr, "check_wire: no IPv6 loopback here: %s\n", err);
	}

	/* Our own address on another interface is reached through lo. */
	ck_assert_int_eq(getifaddrs(&ifa), 0);
	for (i = ifa; i != NULL; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    !(i->ifa_flags & IFF_LOOPBACK)) {
			inet_ntop(
			    AF_INET,
			    &((struct sockaddr_in *)i->ifa_addr)->sin_addr, own,
			    sizeof(own));
			break;
		}
	freeifaddrs(ifa);
	if (own[0] != '\0') {
		ck_assert_msg(route(own, ifname, err) == 0, "%s", err);
		ck_assert_str_eq(ifname, "lo");
	}

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	err[0] = '\0';
	ck_assert_int_eq(iface_route((struct sockaddr *)&ss, ifname, err),
			 -1);
	ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(test_mtu_offloads)
{
	char buf[64], copy[64];
	char *tok, *save;

	ck_assert_int_gt(iface_mtu("lo"), 0);
	ck_assert_int_eq(iface_mtu("nosuchif0"), -1);
	ck_assert_int_eq(iface_mtu("a-name-far-too-long-for-linux"), -1);

	iface_offloads("lo", buf, sizeof(buf));
	fprintf(stderr, "check_wire: offloads on lo: \"%s\"\n", buf);
	snprintf(copy, sizeof(copy), "%s", buf);
	for (tok = strtok_r(copy, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save))
		ck_assert_msg(strcmp(tok, "tso") == 0 ||
				  strcmp(tok, "gso") == 0 ||
				  strcmp(tok, "gro") == 0,
			      "unexpected \"%s\"", tok);
	iface_offloads("nosuchif0", buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	/* Too small for even one name: empty, not cut. */
	iface_offloads("lo", buf, 3);
	ck_assert_int_lt(strlen(buf), 3);
}
END_TEST

static int
udp_socket(struct sockaddr_storage *addr)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(*addr);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)addr, &alen), 0);
	return fd;
}

/*
 * The same flow counted live on lo by each counter: the eBPF counter at
 * lo's tc hook (_i 0), the capture alone (_i 1, NETPERF_WIRE_PCAP=1) and
 * the eBPF counter on the capture's socket (_i 2, NETPERF_WIRE_TC=0).
 * The same counts.
 */
START_TEST(test_live_loopback)
{
	struct sockaddr_storage sa, ra, oa;
	struct wire_capture *cap;
	struct wire_counts c;
	struct wire_flow f;
	char err[ERR_LEN] = "", msg[100], got[200];
	int s, r, o, i, rc;

	if (geteuid() != 0) {
		harness_skip("live capture: needs root");
		return;
	}
	r = udp_socket(&ra);
	s = udp_socket(&sa);
	o = udp_socket(&oa);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&ra, sizeof(ra)), 0);
	memset(&f, 0, sizeof(f));
	f.protocol = IPPROTO_UDP;
	f.local = sa;
	f.remote = ra;
	if (_i == 1)
		setenv("NETPERF_WIRE_PCAP", "1", 1);
	if (_i == 2)
		setenv("NETPERF_WIRE_TC", "0", 1);
	rc = wire_capture_start(&cap, "lo", &f, err);
	unsetenv("NETPERF_WIRE_PCAP");
	unsetenv("NETPERF_WIRE_TC");
	if (rc == 1) {
		harness_skip("live capture: %s", err);
		goto close;
	}
	ck_assert_msg(rc == 0, "wire_capture_start: %s", err);
	memset(msg, 'm', sizeof(msg));
	for (i = 0; i < 50; i++) {
		ck_assert_int_eq(send(s, msg, sizeof(msg), 0), 100);
		/* Another flow to the same socket: must not count. */
		ck_assert_int_eq(
		    sendto(o, msg, 10, 0, (struct sockaddr *)&ra, sizeof(ra)),
		    10);
	}
	/*
	 * The capture tap sees a received packet before the socket does, so
	 * once all 100 datagrams are read every one of ours is in the ring.
	 */
	for (i = 0; i < 100; i++) {
		struct pollfd pfd = {.fd = r, .events = POLLIN};

		ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
		ck_assert_int_gt(recv(r, got, sizeof(got), 0), 0);
	}
	ck_assert_msg(wire_capture_stop(cap, &c, err) == 0,
		      "wire_capture_stop: %s", err);
	/*
	 * lo's packets cross the packet socket twice, once outgoing and once
	 * incoming; libpcap drops the outgoing copy on loopback, so each
	 * datagram is counted once, from the local end. Its length is lo's
	 * 14-byte fake Ethernet header + 20 IPv4 + 8 UDP + 100 = 142.
	 */
	ck_assert_int_eq(c.linktype, DLT_EN10MB);
	{
		/* Before Linux 6.6 there is no tcx: the socket's. */
		const int want[3] = {harness_kernel_at_least(6, 6)
					 ? WIRE_BY_TC
					 : WIRE_BY_SOCKET,
				     WIRE_BY_CAPTURE, WIRE_BY_SOCKET};

		ck_assert_msg(c.counter == want[_i] &&
				  c.in_kernel == (want[_i] != WIRE_BY_CAPTURE),
			      "counted by %s, not %s",
			      wire_counter_name(c.counter),
			      wire_counter_name(want[_i]));
	}
	dir_eq(&c.out, 50, 50 * (100 + 8 + 20 + 14), 5000, 0, 142);
	dir_eq(&c.in, 0, 0, 0, 0, 0);
	ck_assert_uint_eq(c.dropped, 0);
close:
	close(o);
	close(s);
	close(r);
}
END_TEST

START_TEST(test_live_errors)
{
	struct wire_flow f = flow(IPPROTO_UDP, "127.0.0.1", 1, "127.0.0.1", 2);
	struct wire_capture *cap = (struct wire_capture *)&f;
	struct wire_counts c;
	char err[ERR_LEN] = "";
	int rc;

	rc = wire_capture_start(&cap, "nosuchif0", &f, err);
	ck_assert_msg(rc == -1 || rc == 1, "rc %d", rc);
	ck_assert_ptr_null(cap);
	ck_assert_msg(strstr(err, "nosuchif0") != NULL, "%s", err);
	err[0] = '\0';
	ck_assert_int_eq(wire_capture_start(&cap, "", &f, err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(wire_capture_stop(NULL, &c, err), -1);
	ck_assert_str_ne(err, "");
}
END_TEST

static Suite *
wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc;

	tc = tcase_create("count");
	tcase_add_test(tc, test_udp4_directions);
	tcase_add_test(tc, test_tcp4_retrans);
	tcase_add_test(tc, test_tcp_reordering);
	tcase_add_test(tc, test_tcp_seq_wrap);
	tcase_add_test(tc, test_ipv6_tcp_udp);
	tcase_add_test(tc, test_big_tcp);
	tcase_add_test(tc, test_vlan);
	tcase_add_test(tc, test_sll);
	tcase_add_test(tc, test_sll2);
	tcase_add_test(tc, test_raw);
	tcase_add_test(tc, test_null);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_ipv4_fragments);
	tcase_add_test(tc, test_ipv6_fragments);
	tcase_add_test(tc, test_count_file_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("filter");
	tcase_add_test(tc, test_filter_ipv4);
	tcase_add_test(tc, test_filter_ipv6);
	tcase_add_test(tc, test_filter_v4mapped);
	tcase_add_test(tc, test_filter_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("interface");
	tcase_add_test(tc, test_ifstat);
	tcase_add_test(tc, test_route);
	tcase_add_test(tc, test_mtu_offloads);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_add_loop_test(tc, test_live_loopback, 0, 3);
	tcase_add_test(tc, test_live_errors);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(wire_suite());
}
