/*
 * What crossed the wire: packets of one flow counted with libpcap, beside
 * the interface's own counters (iface.h) over the same interval.
 */
#ifndef NP_WIRE_H
#define NP_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <sys/socket.h>

#include "np/iface.h"

/* One flow: the data connection's two endpoints, ports included. */
struct wire_flow {
	int protocol;			/* IPPROTO_TCP or IPPROTO_UDP */
	struct sockaddr_storage local;	/* this side's end */
	struct sockaddr_storage remote; /* the peer's end */
};

/* Counts per direction, as seen from this side. */
struct wire_dir {
	uint64_t packets;
	uint64_t bytes;		/* sum of the captured packets' len */
	uint64_t payload;	/* TCP or UDP payload bytes */
	uint64_t retrans;	/* TCP segments carrying old data again */
	uint64_t retrans_bytes; /* of which payload bytes were old */
	uint64_t reordered;	/* TCP segments filling a gap late */
	uint32_t max_len;	/* largest packet seen, to spot offloads */
};

/* Who counted the ordinary packets, from the costliest way to the
 * cheapest. */
enum wire_counter {
	WIRE_BY_CAPTURE = 0, /* libpcap's capture, every packet */
	WIRE_BY_SOCKET = 1,  /* the eBPF counter on the capture's socket */
	WIRE_BY_TC = 2,	     /* the eBPF counter at the tc hook, no socket */
};

struct wire_counts {
	struct wire_dir out, in;
	uint64_t dropped; /* by the capture (pcap_stats) or, at the tc hook,
			     for want of room in its ring; not the net */
	int linktype;	  /* DLT_ of the capture */
	int in_kernel;	  /* the eBPF counter counted the ordinary packets */
	int counter;	  /* enum wire_counter */
	/* The packets user space parsed and judged itself: those the eBPF
	 * counter handed on, or all of them without it; -1 when the peer
	 * did not say. */
	int64_t handed;
};

/* The counter's name in the JSON and the protocol: "tc", "socket" or
 * "capture"; wire_counter_of reads one back (-1 when it is none of
 * them). */
const char *wire_counter_name(int counter);
int wire_counter_of(const char *name);

/* Writes the BPF filter that matches exactly flow f, both directions,
 * into buf; returns 0, or -1 with err set. */
int wire_filter(const struct wire_flow *f, char *buf, size_t len, char *err);

/*
 * Counts the packets of f in a pcap savefile (the offline twin of a live
 * capture, for tests and for users' own captures). Returns 0, or -1 with
 * err set.
 */
int wire_count_file(const char *path, const struct wire_flow *f,
		    struct wire_counts *c, char *err);

/* A live capture of one flow, on its own thread. */
struct wire_capture;

/*
 * Starts capturing f on interface ifname (snaplen small, filter exact).
 * Returns 0; 1 when capture is not permitted here (no CAP_NET_RAW), with
 * err holding a warning to show; or -1 with err set.
 */
int wire_capture_start(struct wire_capture **cap, const char *ifname,
		       const struct wire_flow *f, char *err);

/* Stops the capture, waits for its thread, fills c and frees cap;
 * returns 0, or -1 with err set. */
int wire_capture_stop(struct wire_capture *cap, struct wire_counts *c,
		      char *err);

/* One side's wire figures for a test (--wire): capture and interface. */
struct wire_report {
	int enabled; /* asked for */
	char ifname[IF_NAMESIZE];
	int captured; /* capture ran (else see warning) */
	struct wire_counts c;
	int have_ifstat; /* interface counters over the interval */
	struct iface_stat ifstat;
	int mtu;
	char offloads[64]; /* "tso gso gro" when on */
	char warning[256]; /* why something is missing */
	/* netserver's side: both ends are on one loopback interface, where
	 * netperf's counter sees every packet of the flow, so netserver
	 * counted nothing and netperf's counts stand for its too (out and
	 * in swapped; wire_report_mirror). */
	int shared;
};

/* The captures of one test's data connections. */
struct wire_session {
	struct wire_capture **cap;
	int ncap;
	struct iface_stat before;
};

/*
 * Starts counting flows[0..n-1] on ifname (or, when it is NULL or "", the
 * interface that carries traffic to the first flow's remote end) and
 * notes the interface's counters. It never fails the test: what cannot
 * be done is said in w->warning.
 */
void wire_session_start(struct wire_session *ws, struct wire_report *w,
			const char *ifname, const struct wire_flow *flows,
			int n);

/*
 * The flow of a socket: its two ends as bound and connected. With
 * any_peer_port, the peer's port is 0, which matches any port (how
 * netserver counts what its listener takes from one host). Returns 0, or
 * -1 when the socket has no peer.
 */
int wire_flow_of(int fd, int protocol, int any_peer_port, struct wire_flow *f);

/* Stops the captures and fills w with the counts over the interval. */
void wire_session_stop(struct wire_session *ws, struct wire_report *w);

/*
 * netperf's offer to count for netserver too, should both be on one
 * loopback interface (netserver decides that, by its route to the
 * client): whether this process may capture (a packet socket opens,
 * which the tc counter's fallback needs), ifname (--wire=IF) is NULL, ""
 * or a loopback interface, and NETPERF_WIRE_SHARE is not 0.
 */
int wire_share_offer(const char *ifname);

/*
 * netserver's side of a shared count: when the interface that carries
 * traffic to flows[0]'s remote end is a loopback one, notes it and its
 * counters, counts nothing, sets w->shared and returns 1 (stop it with
 * wire_session_stop as any); otherwise returns 0 and does nothing.
 */
int wire_session_share(struct wire_session *ws, struct wire_report *w,
		       const struct wire_flow *flows, int n);

/*
 * netperf's side: fills remote (which netserver marked shared) from
 * local, the count of the same interface, out and in swapped. Where
 * local counted nothing, or on another interface, remote says why in
 * its warning.
 */
void wire_report_mirror(struct wire_report *remote,
			const struct wire_report *local);

#endif
