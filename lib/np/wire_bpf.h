/*
 * The wire counter in the kernel: an eBPF socket filter on a capture's
 * packet socket that counts the flow's ordinary packets itself and hands
 * the capture only those it must judge (lib/ebpf/wire_count.bpf.c).
 */
#ifndef NP_WIRE_BPF_H
#define NP_WIRE_BPF_H

#include <stdint.h>

struct wire_bpf;

/* The flow as the counter compares it; addresses in network order, IPv4
 * in the first 4 bytes, ports in host order (remote 0 for any). */
struct wire_bpf_flow {
	int af; /* AF_INET or AF_INET6 */
	int proto;
	uint8_t laddr[16], raddr[16];
	uint16_t lport, rport;
	uint32_t snaplen;
};

/*
 * Loads a counter for f and attaches it to packet socket fd in place of
 * its filter. Returns 0 with *out set, or -1 with err set (no kernel
 * support, no CAP_BPF): the socket's filter is then untouched.
 */
int wire_bpf_attach(int fd, const struct wire_bpf_flow *f,
		    struct wire_bpf **out, char *err);

/* Takes one packet handed on by the counter at the tc hook: its first
 * caplen bytes, from the Ethernet header, and its length. judged is 1
 * when the counter's judge handed it over, a TCP data segment counted in
 * its direction's sequence word (see wire_bpf_give_back). */
typedef void (*wire_bpf_hand_fn)(void *ctx, const uint8_t *data,
				 uint32_t caplen, uint32_t len, int judged);

/*
 * Loads a counter for f and links it to interface ifindex's tc hook on the
 * way in (tcx, Linux 6.6). No packet socket is then on the path; what the
 * capture would have judged is handed to hand(ctx, ...) from
 * wire_bpf_take. The link goes with b (or the process). Returns 0 with
 * *out set, or -1 with err set.
 */
int wire_bpf_attach_tc(int ifindex, const struct wire_bpf_flow *f,
		       wire_bpf_hand_fn hand, void *ctx, struct wire_bpf **out,
		       char *err);

/* Takes the tc counter off its hook (nothing on a socket filter): no
 * packet is counted or handed over after it. */
void wire_bpf_detach(struct wire_bpf *b);

/* Hands on what the tc counter has handed over since the last call (none
 * on a socket filter); returns how many, or -1 with err set. */
int wire_bpf_take(struct wire_bpf *b, char *err);

/* The counts of one direction (0 out, 1 in), summed over the CPUs. */
struct wire_bpf_counts {
	uint64_t packets, bytes, payload;
	uint32_t max_len;
};

/* Sets both directions' counts to 0 (what came before the test is not
 * its own); returns 0, or -1 with err set. */
int wire_bpf_reset(const struct wire_bpf *b, char *err);

/* Reads both directions' counts, and in *lost the packets the tc counter
 * could not hand on (its ring full); returns 0, or -1 with err set. */
int wire_bpf_read(const struct wire_bpf *b, struct wire_bpf_counts dir[2],
		  uint64_t *lost, char *err);

/*
 * The sequence word of a TCP connection's direction (0 out, 1 in), in
 * the counter's mapping of its words; NULL when the counter has none for
 * it (its table was full).
 */
uint64_t *wire_bpf_word(const struct wire_bpf *b, int side, uint16_t sport,
			uint16_t dport);

/* Where the direction's data had got to when the counter handed it over:
 * returns 1 with *next set; 0 when the direction is the counter's, with
 * *next where its data has got to; -1 when it has seen none of it. */
int wire_bpf_handed(const uint64_t *word, uint32_t *next);

/*
 * Gives a direction handed over back to the counter, its data having got
 * to next. The caller has no gap open in it and has taken judged of the
 * segments the counter's judge handed over in it (see wire_bpf_hand_fn:
 * only the tc counter says which). Returns 1 when the direction is the
 * counter's again, or 0 when it stays the caller's: a segment is still on its
 * way, or a hand-over could not be counted.
 */
int wire_bpf_give_back(uint64_t *word, uint32_t judged, uint32_t next);

/* Frees b and takes it off the tc hook; a socket keeps the program until
 * it is closed. */
void wire_bpf_free(struct wire_bpf *b);

#endif
