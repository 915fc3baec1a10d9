/*
 * The wire counter: a socket filter on the capture's packet socket that
 * counts the flow's ordinary packets in the kernel and hands the capture
 * only those it must judge itself.
 *
 * A packet socket copies every packet its filter accepts into the ring
 * (the first 128 bytes, a timestamp, the ring's bookkeeping), which on a
 * 1-byte TCP_RR costs about 0.5 us a packet. Here a packet of the flow is
 * counted as the capture would count it (packets, bytes, payload, largest
 * length) and refused, so nothing is copied. Handed over instead, to be
 * parsed and judged by wire.c exactly as before:
 *
 *   - a TCP segment that does not start where its direction's data ended
 *     (a retransmission, a late or early segment), and from then on every
 *     data segment of that direction: the sequence word records the end
 *     at the moment of the hand-over, which the capture starts from. At
 *     the tc hook the capture gives the direction back once it has filled
 *     every gap and judged every segment handed to it (wire_bpf_give_back).
 *     A packet socket's capture never gives one back (it reads the packets
 *     a block at a time, up to 50 ms after they were handed over, and
 *     while data flows would never catch up with the word's count);
 *   - anything this parser does not read to the end: VLAN tags left in
 *     the frame, IPv6 extension headers, fragments, odd header lengths,
 *     packets cut short.
 *
 * Everything else (other flows, other protocols) is refused uncounted.
 *
 * The same judge runs at a loopback interface's tc hook (wire_count_tc),
 * where no packet socket is open at all: there it hands what the capture
 * would have judged to a ring that wire.c reads, and lets every packet go
 * on untouched.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ebpf/wire_count.h"

/* The flow this counter counts, written by the loader before the kernel
 * checks the program. The kernel then knows it for a constant and drops
 * the code of the other family, protocol and sequence table, so the code
 * a packet runs through is shorter and denser. */
const volatile struct wire_bpf_conf flow = {};

/*
 * The counts, an entry for each CPU (the loader sizes it), indexed by the
 * CPU the program runs on. A per-CPU array would do the same, but its
 * lookup reads the entry's address from the map before it reaches the
 * entry: two cache lines where this is one, and in place the caches are
 * cold between packets. Mappable, so the entries start on a page and
 * each is a line of its own.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wire_bpf_cpu);
} counts SEC(".maps");

/* The packets the tc program could not hand on (the ring was full). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* The table of the directions of a flow with a port unknown (netserver's,
 * for all the client's connections): the slot in words of each. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WIRE_BPF_FLOWS);
	__type(key, struct wire_bpf_key);
	__type(value, __u32);
} seqs SEC(".maps");

/* The sequence words (wire_count.h says where each is), WIRE_BPF_SEEN set
 * in one once its direction's first segment has been seen. This runs for
 * every data segment, and a one-connection flow's words are found by
 * direction alone: an array's lookup is a few instructions where the hash
 * table's hashes the key and walks a bucket. Mappable: the capture gives
 * a direction back with a compare-and-swap of its own. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, WIRE_BPF_WORDS);
	__type(key, __u32);
	__type(value, __u64);
} words SEC(".maps");

/* What the tc program hands the reader: the packets the capture would
 * have judged. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, WIRE_BPF_RING);
} handed SEC(".maps");

/* Not counted here, not the capture's either. */
#define REFUSE 0

/* tcx's "go on to the next program" (TC_ACT_UNSPEC in older headers). */
#define WIRE_TCX_NEXT (-1)

static __always_inline int
same_addr(const __u8 *a, const volatile __u8 *b, int words)
{
	const __u32 *x = (const __u32 *)a;
	const volatile __u32 *y = (const volatile __u32 *)b;
	int i;

	for (i = 0; i < words; i++)
		if (x[i] != y[i])
			return 0;
	return 1;
}

/* The direction of a packet from src:sport to dst:dport, or -1. */
static __always_inline int
side_of(const volatile struct wire_bpf_conf *c, const __u8 *src,
	const __u8 *dst, __u16 sport, __u16 dport, int words)
{
	if (sport == c->lport && (c->rport == 0 || dport == c->rport) &&
	    same_addr(src, c->laddr, words) && same_addr(dst, c->raddr, words))
		return 0;
	if ((c->rport == 0 || sport == c->rport) && dport == c->lport &&
	    same_addr(src, c->raddr, words) && same_addr(dst, c->laddr, words))
		return 1;
	return -1;
}

/* What the judge made of a data segment. */
enum wire_order {
	WIRE_NEXT,   /* the next one of its direction, counted here */
	WIRE_JUDGED, /* handed over, counted in the word */
	WIRE_KEPT,   /* handed over, the direction the capture's for good */
};

/*
 * Judges a data segment of seq..seq+len: the next one of its direction
 * advances the word; any other, or any while the direction is the
 * capture's, is handed over and counted in the word, in one
 * compare-and-swap, so that the capture can tell when none is still on
 * its way to it. The first segment seen only sets where the data has got
 * to, as in the capture; a connection the table has no room for is
 * counted and never judged, as there.
 */
static __always_inline enum wire_order
in_order(const volatile struct wire_bpf_conf *c, int side, __u16 sport,
	 __u16 dport, __u32 seq, __u32 len)
{
	struct wire_bpf_key key = {
	    .side = side, .sport = sport, .dport = dport};
	__u64 first = (__u32)(seq + len) | WIRE_BPF_SEEN, cur, old, next, *w;
	__u32 k = side, *slot;
	__u64 *n, taken;
	int i;

	if (c->rport == 0) {
		slot = bpf_map_lookup_elem(&seqs, &key);
		if (slot != 0) {
			k = *slot;
		} else {
			k = WIRE_BPF_WORD_NEXT;
			n = bpf_map_lookup_elem(&words, &k);
			if (n == 0)
				return WIRE_NEXT;
			taken = __sync_fetch_and_add(n, 1);
			/* No room: counted, never judged. */
			if (taken >= WIRE_BPF_WORDS - WIRE_BPF_WORD0)
				return WIRE_NEXT;
			k = (__u32)taken + WIRE_BPF_WORD0;
			if (bpf_map_update_elem(&seqs, &key, &k, BPF_NOEXIST)) {
				/* Another CPU's slot, or a full table. */
				slot = bpf_map_lookup_elem(&seqs, &key);
				if (slot == 0)
					return WIRE_NEXT;
				k = *slot;
			}
		}
	}
	w = bpf_map_lookup_elem(&words, &k);
	if (w == 0)
		return WIRE_NEXT;
	cur = *(volatile __u64 *)w;
	if (!(cur & WIRE_BPF_SEEN)) {
		old = __sync_val_compare_and_swap(w, cur, first);
		if (old == cur)
			return WIRE_NEXT;
		cur = old; /* another CPU's first */
	}
	/* Each try fails only when another CPU changed the word between
	 * the read and the swap. */
#pragma unroll
	for (i = 0; i < 4; i++) {
		if (!(cur & WIRE_BPF_HANDED) && (__u32)cur == seq)
			next = (cur & ~0xffffffffULL) | (__u32)(seq + len);
		else
			next = (cur | WIRE_BPF_HANDED) + WIRE_BPF_HAND_ONE;
		old = __sync_val_compare_and_swap(w, cur, next);
		if (old == cur)
			return next & WIRE_BPF_HANDED ? WIRE_JUDGED : WIRE_NEXT;
		cur = old;
	}
	__sync_fetch_and_or(w, WIRE_BPF_HANDED | WIRE_BPF_KEPT);
	return WIRE_KEPT;
}

/*
 * Copies len bytes at off of skb's packet to dst; returns 0, or < 0 when
 * the packet has no such bytes. direct (a constant where it is inlined)
 * says the program may read the packet in place, as tc programs may: a
 * bounds check and a copy where the helper is a call. Where the headers
 * are not in the packet's first buffer, the helper reads them.
 */
static __always_inline int
load(struct __sk_buff *skb, __u32 off, void *dst, __u32 len, int direct)
{
	if (direct) {
		void *data = (void *)(long)skb->data;
		void *end = (void *)(long)skb->data_end;

		if (off <= 128 && data + off + len <= end) {
			__builtin_memcpy(dst, data + off, len);
			return 0;
		}
	}
	return bpf_skb_load_bytes(skb, off, dst, len);
}

/* What the judge made of a packet. */
enum wire_verdict {
	WIRE_NOT_OURS,	    /* another flow or protocol: not counted */
	WIRE_COUNTED,	    /* counted here */
	WIRE_HANDED,	    /* the capture's, to parse and judge */
	WIRE_HANDED_JUDGED, /* the same, counted in its sequence word */
};

/*
 * Counts skb if it is one of the flow's ordinary packets, or says it is
 * another flow's or one the capture must judge. skb's data starts at its
 * Ethernet header, on a packet socket and at the tc hooks alike.
 */
static __always_inline enum wire_verdict
wire_judge(struct __sk_buff *skb, const volatile struct wire_bpf_conf *c,
	   int direct)
{
	__u32 len = skb->len, nlen, tot, ihl, l4len, cpu;
	__u32 payload, doff, seq = 0;
	struct wire_bpf_cpu *pc;
	struct wire_bpf_dir *d;
	__u8 ip[40], l4[14];
	__u16 type, sport, dport;
	enum wire_order order;
	int side, words;

	if (load(skb, 12, &type, 2, direct) < 0 || len < ETH_HLEN)
		return WIRE_HANDED;
	type = bpf_ntohs(type);
	if (type == ETH_P_8021Q || type == ETH_P_8021AD || type == 0x9100)
		return WIRE_HANDED;
	nlen = len - ETH_HLEN;
	if (type == ETH_P_IP && c->af == 4) {
		if (load(skb, ETH_HLEN, ip, 20, direct) < 0)
			return WIRE_HANDED;
		if (ip[0] >> 4 != 4 || ip[9] != c->proto)
			return WIRE_NOT_OURS;
		ihl = (__u32)(ip[0] & 0x0f) * 4;
		tot = (__u32)ip[2] << 8 | ip[3];
		/* TSO and BIG TCP super-packets: the length seen. */
		if (tot == 0 || tot > nlen)
			tot = nlen;
		if (ihl < 20 || tot < ihl || (ip[6] & 0x3f) || ip[7])
			return WIRE_HANDED; /* options cut short, a fragment */
		words = 1;
		l4len = tot - ihl;
		if (load(skb, ETH_HLEN + (ihl & 0x3c), l4, sizeof(l4),
			 direct) < 0 &&
		    load(skb, ETH_HLEN + (ihl & 0x3c), l4, 8, direct) < 0)
			return WIRE_HANDED;
		side = side_of(c, ip + 12, ip + 16, *(__u16 *)l4,
			       *(__u16 *)(l4 + 2), words);
	} else if (type == ETH_P_IPV6 && c->af == 6) {
		if (load(skb, ETH_HLEN, ip, 40, direct) < 0)
			return WIRE_HANDED;
		if (ip[0] >> 4 != 6 || nlen < 40)
			return WIRE_HANDED;
		if (ip[6] != c->proto) {
			/* Extension headers the capture walks; anything
			 * else is another protocol. */
			if (ip[6] == 0 || ip[6] == 43 || ip[6] == 44 ||
			    ip[6] == 51 || ip[6] == 60)
				return WIRE_HANDED;
			return WIRE_NOT_OURS;
		}
		tot = (__u32)ip[4] << 8 | ip[5];
		if (tot == 0 || tot > nlen - 40)
			tot = nlen - 40;
		words = 4;
		l4len = tot;
		if (load(skb, ETH_HLEN + 40, l4, sizeof(l4), direct) < 0 &&
		    load(skb, ETH_HLEN + 40, l4, 8, direct) < 0)
			return WIRE_HANDED;
		side = side_of(c, ip + 8, ip + 24, *(__u16 *)l4,
			       *(__u16 *)(l4 + 2), words);
	} else {
		return WIRE_NOT_OURS;
	}
	if (side < 0)
		return WIRE_NOT_OURS;
	if (l4len < 4)
		return WIRE_HANDED;
	if (c->proto == IPPROTO_UDP) {
		payload = l4len >= 8 ? l4len - 8 : 0;
		/* netperf's zero-length end markers are not the test's. */
		if (payload == 0)
			return WIRE_NOT_OURS;
	} else {
		if (l4len < 14)
			return WIRE_HANDED;
		doff = (__u32)(l4[12] >> 4) * 4;
		if (doff < 20)
			return WIRE_HANDED;
		payload = l4len >= doff ? l4len - doff : 0;
		seq = (__u32)l4[4] << 24 | (__u32)l4[5] << 16 |
		      (__u32)l4[6] << 8 | l4[7];
	}
	sport = bpf_ntohs(*(__u16 *)l4);
	dport = bpf_ntohs(*(__u16 *)(l4 + 2));
	if (c->proto == IPPROTO_TCP && payload > 0) {
		order = in_order(c, side, sport, dport, seq, payload);
		if (order == WIRE_JUDGED)
			return WIRE_HANDED_JUDGED;
		if (order == WIRE_KEPT)
			return WIRE_HANDED;
	}
	/* A tag the kernel took into metadata is put back by libpcap, and
	 * counted in the length it reports. */
	if (skb->vlan_present)
		len += 4;
	cpu = bpf_get_smp_processor_id();
	pc = bpf_map_lookup_elem(&counts, &cpu);
	if (pc == 0)
		return WIRE_HANDED;
	d = &pc->dir[side & 1];
	d->packets++;
	d->bytes += len;
	d->payload += payload;
	if (len > d->max_len)
		d->max_len = len;
	return WIRE_COUNTED;
}

/* On a capture's packet socket: what it returns is what the capture
 * keeps of the packet, none of one counted here. */
SEC("socket")
int
wire_count(struct __sk_buff *skb)
{
	enum wire_verdict v = wire_judge(skb, &flow, 0);

	return v == WIRE_HANDED || v == WIRE_HANDED_JUDGED ? flow.snaplen
							   : REFUSE;
}

/* A packet handed on from the tc hook, as the capture would have seen it:
 * its length (a tag in metadata counted, as libpcap counts it) and its
 * first bytes. */
static __always_inline void
wire_hand(struct __sk_buff *skb, __u32 judged)
{
	struct wire_bpf_rec *r;
	__u32 zero = 0, caplen = skb->len;
	__u64 *n;

	r = bpf_ringbuf_reserve(&handed, sizeof(*r), 0);
	if (r == 0) {
		n = bpf_map_lookup_elem(&lost, &zero);
		if (n != 0)
			__sync_fetch_and_add(n, 1);
		return;
	}
	if (caplen > WIRE_BPF_SNAP)
		caplen = WIRE_BPF_SNAP;
	r->len = skb->len + (skb->vlan_present ? 4 : 0);
	r->caplen = caplen;
	r->judged = judged;
	r->pad = 0;
	if (caplen > 0 && bpf_skb_load_bytes(skb, 0, r->data, caplen) < 0)
		r->caplen = 0;
	/* The reader looks every few milliseconds; waking it for each
	 * packet would cost the test a wake-up a packet. */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* At an interface's tc hook (tcx): no packet socket on the path at all.
 * The packet always goes on, to the next program or the stack. */
SEC("tc")
int
wire_count_tc(struct __sk_buff *skb)
{
	enum wire_verdict v = wire_judge(skb, &flow, 1);

	if (v == WIRE_HANDED || v == WIRE_HANDED_JUDGED)
		wire_hand(skb, v == WIRE_HANDED_JUDGED);
	return WIRE_TCX_NEXT;
}

/* What the kernel asks of every program; none of the helpers used here
 * is reserved to GPL programs. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
