/*
 * What the wire counter in the kernel (wire_count.bpf.c) and its loader
 * (lib/wire_bpf.c) share: the flow it counts, its counters and the key of
 * its sequence table. Kernel types only: both compilers read this.
 */
#ifndef NP_BPF_WIRE_COUNT_H
#define NP_BPF_WIRE_COUNT_H

#include <linux/types.h>

/* The connections' directions one counter tells apart, as the capture's
 * table. */
#define WIRE_BPF_FLOWS 128

/*
 * The sequence words, in one mappable array: a one-connection flow's two
 * (a direction each) first, then the next free slot, then the table's
 * words, room for each of its entries twice over (CPUs that meet a new
 * direction at once each take a slot, and all but one go unused; once
 * the slots are gone, a new direction is counted and never judged).
 */
#define WIRE_BPF_WORD_NEXT 2
#define WIRE_BPF_WORD0 3
#define WIRE_BPF_WORDS (WIRE_BPF_WORD0 + 2 * WIRE_BPF_FLOWS)

/* In a sequence word, above the 32 bits of the next byte expected: the
 * connection's direction is the capture's to judge. The low 32 bits
 * then say where its data had got to at the hand-over. */
#define WIRE_BPF_HANDED (1ULL << 32)

/* In a sequence word: its direction's first segment has been seen, so
 * the low 32 bits say where its data has got to. Every word starts at
 * zero. */
#define WIRE_BPF_SEEN (1ULL << 33)

/* In a sequence word: the direction is the capture's for good, because
 * a hand-over could not be counted (see WIRE_BPF_HAND_ONE). */
#define WIRE_BPF_KEPT (1ULL << 34)

/*
 * The top 29 bits of a sequence word count the data segments the judge
 * handed over in its direction, in the same compare-and-swap that decided
 * each. The capture counts those it has taken (wire_bpf_rec.judged), and
 * gives the direction back to the kernel only when the two agree and it
 * has no gap open: then no segment judged against the word is still on
 * its way to it. The count wraps; only its 29 bits are compared.
 */
#define WIRE_BPF_HAND_SHIFT 35
#define WIRE_BPF_HAND_ONE (1ULL << WIRE_BPF_HAND_SHIFT)
#define WIRE_BPF_HAND_MASK ((1U << (64 - WIRE_BPF_HAND_SHIFT)) - 1)

/* The flow, as wire_match has it; addresses and ports in network order. */
struct wire_bpf_conf {
	__u32 af;	/* 4 or 6 */
	__u32 proto;	/* IPPROTO_TCP or IPPROTO_UDP */
	__u32 snaplen;	/* what a packet handed to the capture keeps */
	__u16 lport;	/* this side's port */
	__u16 rport;	/* the peer's, 0 for any */
	__u8 laddr[16]; /* IPv4 in the first 4 bytes */
	__u8 raddr[16];
};

/* What the tc program keeps of a packet it hands on: Ethernet + VLAN +
 * IPv6 + TCP with options, as the capture's snap length. */
#define WIRE_BPF_SNAP 128

/* The hand-over ring's size in bytes: a power of two pages, room for
 * some 7,000 packets between two reads (10 ms). */
#define WIRE_BPF_RING (1 << 20)

/* One packet handed on from the tc hook. */
struct wire_bpf_rec {
	__u32 len;    /* on the wire, a tag in metadata counted */
	__u32 caplen; /* of data kept, 0 when it could not be read */
	__u32 judged; /* counted in its direction's sequence word */
	__u32 pad;
	__u8 data[WIRE_BPF_SNAP];
};

/* One direction's counts. */
struct wire_bpf_dir {
	__u64 packets;
	__u64 bytes;
	__u64 payload;
	__u64 max_len;
};

/* One CPU's counts, a direction each (0 out, 1 in): 64 bytes, one cache
 * line of the counts table, which only that CPU writes. */
struct wire_bpf_cpu {
	struct wire_bpf_dir dir[2];
};

/* A TCP connection's direction in the sequence table; ports in host
 * order, as the capture keys its own table. */
struct wire_bpf_key {
	__u32 side; /* 0 out, 1 in */
	__u16 sport;
	__u16 dport;
};

#endif
