/*
 * What the wire counter in the kernel (wire_count.bpf.c) and its loader
 * (lib/wire_bpf.c) share: the flow it counts, its counters and the key of
 * its sequence table. Kernel types only: both compilers read this.
 */
#ifndef NP_BPF_WIRE_COUNT_H
#define NP_BPF_WIRE_COUNT_H

#include <linux/types.h>

/* The connections one counter tells apart, as the capture's table. */
#define WIRE_BPF_FLOWS 128

/* In a sequence word, above the 32 bits of the next byte expected: the
 * connection's direction has been handed to the capture for good. */
#define WIRE_BPF_HANDED (1ULL << 32)

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

/* One direction's counts, one copy per CPU. */
struct wire_bpf_dir {
	__u64 packets;
	__u64 bytes;
	__u64 payload;
	__u64 max_len;
};

/* A TCP connection's direction in the sequence table; ports in host
 * order, as the capture keys its own table. */
struct wire_bpf_key {
	__u32 side; /* 0 out, 1 in */
	__u16 sport;
	__u16 dport;
};

#endif
