/*
 * The registry of named tests. A test module is one table entry: its name,
 * banner, socket type and the two halves of its data path, one run by
 * netperf and one by netserver. Both programs link the same loops.
 */
#ifndef NP_MODULE_H
#define NP_MODULE_H

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np/cpu.h"
#include "np/err.h"
#include "np/mix.h"
#include "np/oneway.h"
#include "np/side.h"
#include "np/sock.h"
#include "np/stats.h"
#include "np/tcpinfo.h"
#include "np/topo.h"

struct transport;
struct tstamp;

/* Who moves a test's data. */
enum module_flow {
	MODULE_TO_SERVER, /* netperf sends, netserver receives */
	MODULE_TO_CLIENT, /* netserver sends, netperf receives */
	MODULE_BOTH,	  /* requests one way, responses the other */
};

/* What a test counts as its work, and so what its headline is. */
enum module_unit {
	MODULE_BYTES, /* throughput */
	MODULE_TRANS, /* transactions per second */
};

/* What a test is and allows, test_module.flags. */
/* A connection (or, over UDP, a source port) per transaction: no data
 * connection is opened up front, and none lasts to report TCP_INFO. */
#define MODULE_F_PER_TRANS 0x001
/* Datagrams carry sequence numbers and send times: loss, duplicates,
 * reordering and jitter are counted. */
#define MODULE_F_SEQ 0x002
/* Transactions given up on after a time-out (-e) count as lost. */
#define MODULE_F_RETRY 0x004
/* --bidir runs half the streams the other way. */
#define MODULE_F_BIDIR 0x008
/* --rate paces the sender. */
#define MODULE_F_RATE 0x010
/* --batch, --udp-gso and --udp-gro. */
#define MODULE_F_UDP_FAST 0x020
/* --zerocopy and -V (splice). */
#define MODULE_F_TCP_BULK 0x040
/* --busy-poll. */
#define MODULE_F_BUSY_POLL 0x080
/* As 2.7, the data does not route through a gateway unless -R 1. */
#define MODULE_F_DONTROUTE 0x100
/* The connection is the transaction: no request or response crosses it,
 * netserver accepts and closes (2.7's TCP_CC, an omni test of direction
 * 0). */
#define MODULE_F_NO_DATA 0x200
/* --one-way: requests and answers carry send and receive times. */
#define MODULE_F_ONE_WAY 0x4000
/* --rate offers transactions per second on an open loop, and --timeout
 * and --reconnect apply (rr_open.c). */
#define MODULE_F_OPEN 0x400
/* --timestamps splits each round trip with SO_TIMESTAMPING. */
#define MODULE_F_TSTAMP 0x8000
/* The sender's data comes from a file, sendfile(2) (2.7's TCP_SENDFILE). */
#define MODULE_F_SENDFILE 0x800
/* -r takes a request mix (np/mix.h): each request's class, and netserver
 * answers with the class's response size. */
#define MODULE_F_MIX 0x20000
/* --io-uring: the loops move their data through io_uring (uring.c). */
#define MODULE_F_IO_URING 0x100000

/*
 * Which of netperf 2.7's layouts a test prints (report.c), with 2.7's
 * quirks, which differ from test to test and which scripts parse.
 */
enum module_table {
	MODULE_TABLE_STREAM,	 /* TCP_STREAM's, or TCP_MAERTS's */
	MODULE_TABLE_DATAGRAMS, /* UDP_STREAM's, a line per side */
	MODULE_TABLE_RR,	 /* the request/response table */
	MODULE_TABLE_MSS,	 /* TCP_MSS's one figure, at every -v */
};
enum module_single {
	MODULE_SINGLE_BRANDED, /* "%7.2f %s" / "%6.3f %c %s" */
	MODULE_SINGLE_BARE,    /* "%7.2f" / "%6.3f": no letter, no brand */
	MODULE_SINGLE_LOCAL,   /* "%7.2f" / "%6.2f %c": local's letter */
};
enum module_verbose {
	MODULE_V2_BLOCKS,    /* alignments, offsets, calls, histogram */
	MODULE_V2_HISTOGRAM, /* the histogram alone */
	MODULE_V2_ALIGNMENT, /* the alignments, then the histogram */
};
struct module_layout {
	enum module_table table;
	enum module_single single;
	enum module_verbose verbose;
	/* The banner says " : first burst N". */
	int burst_banner;
	/* The -c -C title carries the S/U method letters. */
	int title_methods;
	/* Spaces before the CPU columns of the -c -C line. */
	const char *cpu_gap;
	/* -v 2's histogram title. */
	const char *hist_title;
	/* 2.7 runs the test with its classic code (nettest_bsd.c), never
	 * migrated to omni: the banner has no "MIGRATED", -v 2's bytes
	 * transferred are "%6.4g", and its alignment line prints the remote
	 * offset where the remote alignment belongs. */
	int classic;
};

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

/* One side's account of a test: what it did and what it cost. Its plain
 * figures are the rows of SIDE_FIELDS (np/side.h); the rest are here. */
struct side_result {
	SIDE_FIELDS(SIDE_DECL)
	int cpu_measured;
	struct cpu_util cpu;
	/* TCP_INFO of the data connection at the end (n 0 for UDP and
	 * TCP_CRR); over streams, merged by each field's rule. */
	struct tcpinfo tcpi;
	/* --under-load, a bulk flow: the bytes its connection had
	 * delivered when the probe's interval ended (TCP_INFO's bytes
	 * acknowledged, or received, as this side sends or receives), and
	 * the seconds from the start to that reading (the coordinator may
	 * wake late on a busy host); not sent to the peer. */
	uint64_t load_bytes;
	double load_secs;
};

/* The state a data loop runs with. */
struct data_path;

struct test_ctx {
	const struct test_params *p;
	/* The connected data socket; a CRR server's listener. */
	int fd;
	/* netserver: the control socket, to see the client's "stop"; -1
	 * on netperf's side. */
	int ctl;
	/* CRR: where to connect (netperf), or who may (netserver). */
	struct sockaddr_storage peer;
	socklen_t peerlen;
	/* -N: the peer never ends the test (chargen sends for ever), so a
	 * receiving loop ends its interval at end_ns itself. */
	int end_own;
	/* The test's token (AUTH_TOKEN_LEN bytes): CRR's starts every
	 * connection; UDP's may come again, and is never data. NULL for
	 * none. */
	const unsigned char *token;
	/* The peer speaks netperf 2.7's protocol: its datagrams carry none
	 * of our sequence tags or headers, and it echoes none. */
	int untagged;
	/* Scratch of buflen bytes, aligned and offset as asked; mem is what
	 * to free. With a ring (-W) it holds width copies, stride apart. */
	char *buf;
	size_t buflen;
	void *mem;
	size_t stride;
	int width, slot;
	const struct module_bufs *bufs;
	/* When the loop ended (CLOCK_MONOTONIC), 0 while it runs: no
	 * interim boundary after every stream's end is reported. */
	uint64_t done_ns;
	/* -w/-b pacing: the next interval's start, and sends left in it. */
	uint64_t pace_next;
	int pace_left;
	/* CLOCK_MONOTONIC end of the test; 0 when counting. */
	uint64_t end_ns;
	/* Round trips that end before this go uncounted in hist: the
	 * --under-load probe beside its bulk flows measures once they have
	 * filled the path (underload.c); 0 for from the start. */
	uint64_t warm_ns;
	/* Set by SIGINT to end early. */
	volatile sig_atomic_t *stop;
	/* Per-operation latency, or NULL. */
	struct stats_hist *hist;
	/* --one-way's account (netperf's side), or NULL. */
	struct oneway *ow;
	/* --bidir: this stream runs the test's other half (netperf
	 * receives what netserver sends). */
	int reverse;
	struct side_result *r;
	char err[ERR_LEN];
	/* The coordinator watches this stream for a silent peer in place of
	 * socket time-outs, which arm a kernel timer at every blocking
	 * wait (TCP_RR's every transaction): wd_state goes from
	 * MODULE_WD_RUNNING to MODULE_WD_DONE when the loop ends, or to
	 * MODULE_WD_FIRED when the coordinator gave up on the peer (wd_err
	 * says why) and shut the socket down to wake the loop. */
	int watched;
	int wd_state;
	/* The coordinator's: bytes moving (calls and the send queue) and
	 * when they last did; transactions, and when they last grew. */
	uint64_t wd_seen, wd_any_at, wd_trans, wd_at;
	char wd_err[ERR_LEN];
	/* What the data sockets are (np/transport.h): the test's own, or
	 * the one the request names. */
	const struct transport *transport;
	/* The open loop's service time (from the actual send; hist then
	 * counts from the intended send time), or NULL. */
	struct stats_hist *svc_hist;
	/* --under-load: this stream's part, enum underload_role (0: the
	 * test's own loop). */
	int role;
	/* --timestamps: the data socket's stamps (tstamp.c), or NULL. */
	struct tstamp *ts;
	/* The data path this side's loop takes (np/datapath.h), NULL for
	 * none: fast_setup picks it. */
	const struct data_path *dp;
	/* A request mix (p->mix.n > 0), netperf's side: each class's
	 * account, p->mix.n of them, and the stream's draws; NULL for no
	 * mix. */
	struct mix_acct *mix;
	uint64_t mix_rng;
	/* -D on UDP_RR, netperf's side (p->lost_iv): lost_split is set
	 * when this stream's answers carry netserver's count; as of the
	 * last answer in time, the requests it shows netserver never saw
	 * (lost_req) and the transactions given up on and never answered
	 * (lost_all), stored as the loop runs and read by the
	 * coordinator at each boundary (interval.c). */
	int lost_split;
	uint64_t lost_req, lost_all;
	/* A request/response loop's open use of dp, for the helpers that
	 * take only the context (rr.c's); NULL when it takes none. */
	struct datapath_io *io;
};

enum { MODULE_WD_RUNNING, MODULE_WD_DONE, MODULE_WD_FIRED };

typedef int (*module_loop_fn)(struct test_ctx *ctx);

/*
 * A test: what it is (properties) and its two halves (hooks). One file a
 * family owns the loops; module.c's table names every test, and nothing
 * outside those files asks which test it is, only what it is.
 */
struct test_module {
	const char *name;  /* TCP_STREAM */
	const char *title; /* TCP STREAM TEST, for the banner */
	int socktype;	   /* SOCK_STREAM or SOCK_DGRAM */
	int protocol;	   /* IPPROTO_TCP or IPPROTO_UDP */
	/* The transport its data sockets are (np/transport.h: "sctp"); NULL
	 * for the one of its protocol. */
	const char *transport;
	enum module_flow flow;
	enum module_unit unit;
	unsigned flags; /* MODULE_F_* */
	/* -m's bounds in bytes (0: none), and the largest -r size. */
	int64_t send_min, send_max, rr_max;
	/* -N's standard service: discard 9, chargen 19, echo 7; 0 when the
	 * test needs netserver, and then why. */
	int nc_port;
	const char *nc_refusal;
	const struct module_layout *layout;
	module_loop_fn client; /* netperf's half */
	module_loop_fn server; /* netserver's half */
};

/* Stream i of n runs the other way (--bidir). */
#define module_stream_reversed(p, i) ((p)->bidir && (i) >= (p)->streams / 2)

/* The streams run as flows on fewer threads (flows.c). */
#define module_flows(p) ((p)->threads > 0 && (p)->threads < (p)->streams)

/* The test has property f, MODULE_F_*. */
#define module_has(m, f) (((m)->flags & (f)) != 0)

/* A request/response test: results in transactions per second. */
#define module_is_rr(m) ((m)->unit == MODULE_TRANS)

/* The test's data connections are accepted before the loop runs. */
#define module_accepts(m)                                                      \
	((m)->socktype == SOCK_STREAM && !module_has(m, MODULE_F_PER_TRANS))

/* The client tells netserver on the control socket when it is done: the
 * tests whose server loop has no end of its own. */
#define module_needs_stop(m)                                                   \
	((m)->socktype == SOCK_DGRAM || module_has(m, MODULE_F_PER_TRANS))

/* The tests with property f, as "A, B and C", into out. */
void module_names_with(unsigned f, char *out, size_t cap);

/* Seconds a silent peer is given past the end of a test before it is
 * declared gone. */
#define MODULE_GRACE_SEC 5
/* Seconds without progress after which a count-limited test gives up. */
#define MODULE_IDLE_SEC 10
/* Seconds past a timed test's end by which both ends have finished,
 * whatever the peer does. A sender's last call may block for the 1 s of
 * its socket time-out, and it then gives its receiver MODULE_GRACE_SEC to
 * drain and close; a peer still busy after that is not playing by the
 * protocol. */
#define MODULE_HARD_END_SEC (MODULE_GRACE_SEC + 2)

/* Finds a test by name, case-insensitively; NULL when unknown. */
const struct test_module *module_find(const char *name);

/* netperf 2.7's omni test as one of ours: UDP or TCP, data to netserver,
 * to netperf (both: request/response), a connection per transaction.
 * The test's name, or NULL when none of ours is that (UDP's connect
 * tests, a receive test over UDP, a connect test with data one way). */
const char *module_omni_test(int udp, int to_server, int to_client,
			     int per_trans);

/* The table of every test module, ended by a NULL name. */
extern const struct test_module module_table[];

/* What an interim report knows beyond the sum (struct module_run's
 * on_interim): each stream's count over the interval and, for a test
 * that keeps latency (RR), every stream's latency over it merged. */
struct module_interval {
	/* The tail: what the streams did after the last boundary, reported
	 * once they ended (module_run's interim_tail). */
	int partial;
	int n;
	const uint64_t *stream;	       /* n counts over the interval */
	const struct stats_hist *hist; /* ns; NULL without histograms */
	/* The open loop's time-outs and connection errors over the
	 * interval, summed over the streams, and the streams that ran in
	 * it and had not ended on a connection error by its end. */
	uint64_t timeouts, errors;
	int flows;
	/* A request mix: each class's transactions over the interval and
	 * its round trips' histogram (nclasses of each); 0 and NULL
	 * without one. */
	int nclasses;
	const uint64_t *class_count;
	const struct stats_hist *class_hist;
	/* -D on UDP_RR (test_ctx's lost_split on every stream): the lost
	 * requests and answers found in the interval; lost_split 0 when
	 * not measured. */
	int lost_split;
	int64_t lost_req, lost_rsp;
};

struct interval_track;

/* One side's run of a test: n streams, each a thread with its context. */
struct module_run {
	const struct test_module *m;
	int is_server;
	int measure_cpu;
	int n;
	struct test_ctx *ctx;	   /* n contexts, each with its own r */
	struct topo *topo;	   /* for binding, or NULL */
	struct topo_place *places; /* n places, or NULL for no binding */
	/* Interim reports: every interim_sec seconds on exact boundaries,
	 * on_interim gets the count moved (bytes or transactions), the
	 * seconds it took, the seconds since the start, and the streams'
	 * TCP_INFO over the interval (NULL when there is none). A boundary
	 * the coordinator was too late for is merged into the next, so
	 * interim_k, the number of the boundary being reported (0 for the
	 * first, start + interim_sec), may skip; both ends number alike. */
	double interim_sec;
	int64_t interim_k;
	void (*on_interim)(void *arg, double count, double secs,
			   double since_start, const struct tcpinfo *tcpi,
			   const struct module_interval *iv);
	void *arg;
	/* Report the tail too: once the streams end, what they did after
	 * the last boundary goes to on_interim as a partial interval, so
	 * the intervals add up to the totals (netperf's side only). */
	int interim_tail;
	struct interval_track *track; /* module_run_all's, while it runs */
	/* Called once, from the coordinating thread, when ctx[0].stop is
	 * set during the test (Ctrl-C), or NULL. */
	void (*on_stop)(void *stop_arg);
	void *stop_arg;
	int stop_sent;
	/* Called once, from the coordinating thread, the moment the gate
	 * has opened (every stream is running), or NULL: netserver's "go",
	 * when it receives, so that its interval begins before the sender's
	 * first byte. Returns 0, or -1 to end the test (err set). */
	int (*gate_opened)(void *gate_arg, char *err);
	void *gate_arg;
	/* Filled by module_run_all. */
	struct cpu_util cpu;
	int cpu_measured;
	pthread_mutex_t lock; /* the start gate, and each stream's end */
	pthread_cond_t cond;  /* CLOCK_MONOTONIC for timed waits */
	int ready, go, finished, abort;
	uint64_t start_ns; /* when the gate opened */
	/* CLOCK_REALTIME ns to sleep until before opening the gate (0: open
	 * at once), and the CLOCK_REALTIME ns at which it opened. */
	int64_t start_at_ns;
	int64_t wall_start_ns;
	/* ns the gate's thread waited for a CPU between its last sleep
	 * for start_at_ns and wall_start_ns, at most the lateness; -1
	 * without start_at_ns. */
	int64_t start_cpu_wait_ns;
	/* Flows on threads (flows.c): threads, each driving n / threads of
	 * the contexts from one epoll set; 0 for a thread a stream. The
	 * threads' own state, flows.c's between start and finish. */
	int threads;
	void *flows;
};

/*
 * Runs every stream at once: one thread each, bound to its place, all
 * released together from a barrier; the CPU snapshots bracket them all.
 * Returns 0, or -1 with err set (the first stream's failure).
 */
int module_run_all(struct module_run *run, char *err);

/* The runner's threads have been created, started of the want asked for
 * (what names them in the error): fewer aborts the run with err set. Waits
 * until every one started is ready at the gate; returns started. */
int module_threads_ready(struct module_run *run, int started, int want,
			 const char *what, char *err);

/* Sums the streams' counts into sum, with the run's CPU figures (which
 * sum now owns). */
void module_merge(const struct module_run *run, struct side_result *sum);

/*
 * Decides what a call that timed out (SO_RCVTIMEO/SO_SNDTIMEO) means for
 * a loop last making progress at last_progress: 0 to keep waiting, -1 with
 * ctx->err set when the peer has been silent too long (MODULE_IDLE_SEC
 * during the test, MODULE_GRACE_SEC past its end), or, when it made
 * progress after the end, has kept the test going past the hard end (the
 * message says it WHAT, as module_overtime's).
 */
int module_stalled(struct test_ctx *ctx, uint64_t now, uint64_t last_progress,
		   const char *what);

/* The loops, one family a file. */
int stream_send(struct test_ctx *ctx);
int stream_recv(struct test_ctx *ctx);
int rr_client(struct test_ctx *ctx);
int rr_server(struct test_ctx *ctx);
int udp_stream_send(struct test_ctx *ctx);
int udp_stream_recv(struct test_ctx *ctx);
int udp_rr_client(struct test_ctx *ctx);
int udp_rr_server(struct test_ctx *ctx);
int crr_client(struct test_ctx *ctx);
int crr_server(struct test_ctx *ctx);
int udp_crr_client(struct test_ctx *ctx);
int udp_crr_server(struct test_ctx *ctx);
int cc_client(struct test_ctx *ctx);
int cc_server(struct test_ctx *ctx);
int mss_client(struct test_ctx *ctx);
/* The open loop of TCP_RR and UDP_RR's clients (rr_open.c). */
int rr_open_client(struct test_ctx *ctx);
int udp_rr_open_client(struct test_ctx *ctx);
/* The open loop of a loop with one transaction at a time (TCP_CRR):
 * rr_pacer_new gives one for ctx (NULL without memory); rr_pacer_next
 * waits for the next request's intended send time and returns it, or 0
 * when the test ends first; rr_pacer_done counts the transaction it
 * began as answered at now (a time-out past --timeout), and
 * rr_pacer_failed counts a connection error in its place. */
struct rr_pacer;
struct rr_pacer *rr_pacer_new(struct test_ctx *ctx);
uint64_t rr_pacer_next(struct rr_pacer *pc);
void rr_pacer_done(struct rr_pacer *pc, uint64_t now);
void rr_pacer_failed(struct rr_pacer *pc);
void rr_pacer_free(struct rr_pacer *pc);

/* A UDP client's receive time-out: -e's fixed one, or TCP's rule (srtt +
 * 4 rttvar, within 20 ms and 3 s; 1 s before any answer). */
struct module_rto {
	double srtt, rttvar;
	uint64_t ns; /* the time-out now */
	int fixed;
};

/* Starts t at rto seconds (-e), or adaptive when rto is 0. */
void module_rto_init(struct module_rto *t, double rto);

/* Takes an answer's round trip of rtt ns into t; a fixed one stays. */
void module_rto_sample(struct module_rto *t, uint64_t rtt);

/* The largest UDP payload over IPv4: 65535 - 8 (UDP) - 20 (IP). */
#define MODULE_UDP_MAX 65507
/* UDP_STREAM's per-datagram header: sequence number and send time,
 * each 64 bits big-endian (be.h). */
#define MODULE_UDP_HDR 16

/*
 * Ends a timed test that a peer keeps going: returns -1 with ctx->err set
 * ("the peer WHAT N s past the end of the test") once now is
 * MODULE_HARD_END_SEC past ctx->end_ns, else 0 (always 0 when counting).
 */
int module_overtime(struct test_ctx *ctx, uint64_t now, const char *what);

/* Ends a netserver loop that has no end of its own (UDP, CRR) when the
 * client's "stop" message is waiting on the control socket; returns 1
 * when it is. */
int module_stop_requested(struct test_ctx *ctx);

/* A scratch buffer as large as the largest of sizes[0..n-1], filled with
 * netperf's pattern; NULL without memory. */
char *module_buffer(const int64_t *sizes, int nsizes, size_t *len);

/*
 * Gives ctx its buffer: as large as the largest of sizes, at offset bytes
 * past an align boundary (0: a page), width copies of it (0 or 1: one),
 * each filled with fill[0..fill_len) repeated, or netperf's pattern when
 * fill is NULL. Returns 0, or -1 without memory.
 */
int module_ctx_buffer(struct test_ctx *ctx, const int64_t *sizes, int nsizes,
		      const struct module_bufs *b, const char *fill,
		      size_t fill_len);

/* Frees what module_ctx_buffer gave ctx. */
void module_ctx_buffer_free(struct test_ctx *ctx);

/*
 * The buffer the next send uses: the next of the ring, its dirty words
 * written and clean words read (-k/-K), after waiting for the next -w
 * interval when this one's -b sends are spent. Returns NULL when the test
 * should stop while waiting.
 */
char *module_send_buffer(struct test_ctx *ctx);

/*
 * UDP: the datagram of n bytes at p is the test's token, which the client
 * sends again until it hears it echoed (the first echo may be lost).
 * Returns 1 when it is, having echoed it once more when echo is set
 * (netserver's side); it is never data. Returns 0 otherwise.
 */
int module_udp_token(struct test_ctx *ctx, const char *p, size_t n,
		     int echo);

/* UDP_RR tags each request with up to 8 bytes of its sequence number
 * (be.h's ben_put); the server echoes them, so a late answer to a request
 * given up on is never taken for the answer to a newer one. None for
 * netperf 2.7's netserver, which answers from a buffer of its own: any
 * answer then completes the oldest request in flight. Returns the tag's
 * length for ctx's sizes. */
size_t module_udp_tag_len(const struct test_ctx *ctx);

/*
 * The data buffers netserver's half of m needs for a test with these
 * sizes: *shared bytes that every stream only sends from (one buffer for
 * all), and *each bytes that every stream receives into (its own).
 */
void module_server_buffers(const struct test_module *m, int64_t send_size,
			   int64_t recv_size, int64_t req_size,
			   int64_t rsp_size, int64_t *shared, int64_t *each);

/* The TCP congestion control of fd (or, when fd is closed, the one p asks
 * for on that side, else the system's default) into out. */
void module_cong_of(int fd, const struct test_params *p, int is_server,
		    char *out, size_t cap);

/* Sends a UDP client's end markers on its data socket. */
void module_udp_end(struct test_ctx *ctx);

#endif
