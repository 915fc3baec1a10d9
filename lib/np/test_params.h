/* The request: what netperf asks of a test, most of it sent to netserver
 * (proto.c), the rest the client's own. */
#ifndef NP_TEST_PARAMS_H
#define NP_TEST_PARAMS_H

#include <stdint.h>

#include "np/mix.h"
#include "np/sock.h"

/* What netperf asks for; travels in the REQUEST message. */
struct test_params {
	char test[32];
	/* Seconds; 0 when the test is count-limited. */
	double duration;
	/* Bytes (streams) or transactions (RR) when duration is 0. */
	int64_t count;
	/* Bytes per send() and recv(): netperf's (-m, -M) and netserver's. */
	int64_t send_size, recv_size;
	int64_t rsend_size, rrecv_size;
	/* Request and response sizes, -r. */
	int64_t req_size, rsp_size;
	/* SO_SNDBUF/SO_RCVBUF of netperf (-s) and netserver (-S); -1 for
	 * the system default. */
	int lsndbuf, lrcvbuf;
	int rsndbuf, rrcvbuf;
	/* TCP_NODELAY on both ends, -D. */
	int nodelay;
	/* Extra transactions in flight, -b. */
	int burst;
	/* netserver measures its CPU, -C. */
	int remote_cpu;
	/* netserver's data port, 0 for any, -P. */
	int data_port;
	/* UDP_RR receive time-out in seconds, -e; 0 for adaptive. */
	double rto;
	/* UDP_STREAM offered load in bits/s, --rate; 0 for as fast as
	 * possible. */
	double rate;
	/* Parallel data connections, --streams. */
	int streams;
	/* Where netserver binds its test threads, -T's second part; "" for
	 * nowhere in particular. */
	char cpu_bind[64];
	/* Both sides count the data flow's packets on the wire, --wire. */
	int wire;
	/* --wire: netperf offers to count for netserver too, where both
	 * are on one loopback interface (wire_share_offer). */
	int wire_share;
	/* netperf 2.7's data socket options for netperf's sockets (lx)
	 * and netserver's (rx); rx travels in the request. */
	struct sock_extra lx, rx;
	/* The buffers, -a/-A (alignment of the send and receive buffers),
	 * -o/-O (their offsets from it) and -W (how many send buffers a
	 * stream cycles through), netperf's and netserver's; the remote
	 * ones travel in the request. 0 = the default. */
	struct module_bufs {
		int salign, ralign, soff, roff, width;
		/* -k/-K: words written and read before each send. */
		int dirty, clean;
	} lbuf, rbuf;
	/* Client only: -w/-b pacing (a burst of b sends every w ms), -I
	 * write() for send(). Never sent to netserver. */
	double interval_ms;
	int interval_burst;
	int use_write;
	/* Client only, for the selectors: -P's local port, -F's file. */
	int ldata_port;
	/* Client only: -N, no control connection (the banner says so). */
	int no_control;
	/* Client only, TCP_CRR: -p, the range its connections' local ports
	 * come from, [min, max) as 2.7 takes them (0, 0: the kernel's
	 * choice); -U, a connect that fails for any reason is retried. */
	int lport_min, lport_max;
	int retry_connect;
	char fill_file[256];
	/* UDP_STREAM's fast paths: datagrams per sendmmsg/recvmmsg call on
	 * both ends, --batch (1: a call a datagram); UDP_SEGMENT on the
	 * sender, --udp-gso; UDP_GRO on the receiver, --udp-gro. */
	int batch;
	int udp_gso, udp_gro;
	/* TCP_STREAM and TCP_MAERTS: the sender uses MSG_ZEROCOPY,
	 * --zerocopy. */
	int zerocopy;
	/* TCP_STREAM and TCP_MAERTS, -V (2.7's copy avoidance): the
	 * receiver moves the data with splice(2) into /dev/null, never
	 * into its own memory. */
	int splice;
	/* TCP_RR and UDP_RR: SO_BUSY_POLL in microseconds on both ends,
	 * --busy-poll; 0 for none. */
	int busy_poll;
	/* --start-at: CLOCK_REALTIME nanoseconds at which both sides begin
	 * the measured interval; 0 to begin at once. */
	int64_t start_at_ns;
	/* --bidir (TCP_STREAM, UDP_STREAM): the second half of the streams
	 * run the other way, netserver sending to netperf. */
	int bidir;
	/* -D on a TCP test: netserver sends its own TCP_INFO every interim
	 * seconds during the test (an "interim" message); 0 for never. */
	double interim;
	/* The data sockets' transport (np/transport.h), --mptcp or OMNI's
	 * -T: "" for the test's own. */
	char transport[16];
	/* TCP_STREAM and TCP_MAERTS, --skip-rx-copy: the receiver reads
	 * with MSG_TRUNC, so the kernel drops the data without copying it
	 * out. */
	int skip_rx_copy;
	/* --one-way (TCP_RR, UDP_RR): requests carry netperf's send time,
	 * answers netserver's receive and send times (oneway.c). */
	int one_way;
	/* Client only, the open loop (rr_open.c): --arrivals, gaps drawn
	 * from an exponential (MODULE_ARRIVALS_POISSON) or constant; the
	 * --timeout in seconds (0: none); --reconnect after a connection
	 * error. --rate (rate above) is then transactions/s over all
	 * streams. */
	int arrivals;
	double timeout;
	int reconnect;
	/* --under-load: bulk flows beside the probe (stream 0), up from
	 * netperf then down to it, streams 1.. (underload.h); 0 for none. */
	int load_up, load_down;
	/* --timestamps (TCP_RR, UDP_RR): both ends split each round trip
	 * with SO_TIMESTAMPING (tstamp.c); serve_delay_us, a test-only
	 * sleep netserver takes between a request's read and its answer
	 * (NETPERF_TEST_SERVE_DELAY_US, at most TSTAMP_DELAY_MAX_US). */
	int timestamps;
	int serve_delay_us;
	/* --threads: the threads that serve the streams on each end, each
	 * from one epoll set (flows.c); 0, or as many as the streams, for
	 * a thread a stream. */
	int threads;
	/* -r's request mix, n 0 for none: then req_size and rsp_size are
	 * its largest sizes (the buffers' bounds). netserver is told the
	 * sizes only; the weights and the seed are netperf's. */
	struct mix mix;
	/* -D on UDP_RR: netserver writes its count of requests received
	 * so far into each answer (oneway.h, ONEWAY_COUNT_LEN), so that
	 * netperf splits each interval's lost transactions into requests
	 * and answers as they happen. */
	int lost_iv;
	/* --io-uring (TCP_STREAM, TCP_MAERTS, TCP_RR, UDP_RR): the data
	 * moves through an io_uring ring of each loop's own (uring.c). */
	int io_uring;
};

enum { MODULE_ARRIVALS_POISSON, MODULE_ARRIVALS_FIXED };

/* The RR client takes the open loop (rr_open.c) in place of its closed
 * one: with --rate, --timeout or --reconnect. */
#define module_open_loop(p)                                                    \
	((p)->rate > 0 || (p)->timeout > 0 || (p)->reconnect)

/* Stream i of n runs the other way (--bidir). */
#define module_stream_reversed(p, i) ((p)->bidir && (i) >= (p)->streams / 2)

/* The streams run as flows on fewer threads (flows.c). */
#define module_flows(p) ((p)->threads > 0 && (p)->threads < (p)->streams)

#endif
