/*
 * The registry of named tests. A test module is one table entry: its name,
 * banner, socket type and the two halves of its data path, one run by
 * netperf and one by netserver. Both programs link the same loops.
 */
#ifndef NP_MODULE_H
#define NP_MODULE_H

#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cpu.h"
#include "err.h"
#include "stats.h"

enum module_kind {
	MODULE_STREAM, /* netperf sends, netserver receives */
	MODULE_MAERTS, /* netserver sends, netperf receives */
	MODULE_RR,     /* request/response over one connection */
};

/* What netperf asks for; travels in the REQUEST message. */
struct test_params {
	char test[32];
	double duration;    /* seconds; 0 when the test is count-limited */
	int64_t count;	    /* bytes (streams) or transactions (RR) */
	int64_t send_size;  /* netperf's bytes per send(), -m */
	int64_t recv_size;  /* netperf's bytes per recv(), -M */
	int64_t rsend_size; /* netserver's bytes per send() */
	int64_t rrecv_size; /* netserver's bytes per recv() */
	int64_t req_size, rsp_size; /* RR sizes, -r */
	int lsndbuf,
	    lrcvbuf; /* netperf's SO_SNDBUF/SO_RCVBUF, -s; -1 default */
	int rsndbuf, rrcvbuf; /* netserver's, -S; -1 default */
	int nodelay;	      /* TCP_NODELAY on both ends, -D */
	int burst;	      /* extra transactions in flight, -b */
	int remote_cpu;	      /* netserver measures its CPU, -C */
	int data_port;	      /* netserver's data port, 0 for any, -P */
};

/* One side's account of a test: what it did and what it cost. */
struct side_result {
	double elapsed; /* seconds over the measured interval */
	uint64_t bytes_sent, bytes_recv;
	uint64_t send_calls, recv_calls;
	uint64_t trans;		    /* completed transactions */
	int sndbuf, rcvbuf;	    /* SO_SNDBUF/SO_RCVBUF at socket creation */
	int sndbuf_end, rcvbuf_end; /* and at the end of the test */
	int64_t send_size, recv_size; /* bytes per call actually used */
	int mss;		      /* TCP_MAXSEG at the end, -1 unknown */
	uint32_t retrans;	      /* TCP_INFO total retransmissions */
	int cpu_measured;
	struct cpu_util cpu;
	int cpu_id; /* the CPU the test thread ended on */
};

/* The state a data loop runs with. */
struct test_ctx {
	const struct test_params *p;
	int fd;	   /* the connected data socket */
	char *buf; /* scratch of buflen bytes */
	size_t buflen;
	uint64_t end_ns; /* CLOCK_MONOTONIC deadline; 0 when counting */
	volatile sig_atomic_t *stop; /* set by SIGINT to end early */
	struct stats_hist *hist;     /* per-operation latency, or NULL */
	struct side_result *r;
	char err[ERR_LEN];
};

typedef int (*module_loop_fn)(struct test_ctx *ctx);

struct test_module {
	const char *name;  /* TCP_STREAM */
	const char *title; /* TCP STREAM TEST, for the banner */
	int socktype;	   /* SOCK_STREAM or SOCK_DGRAM */
	int protocol;	   /* IPPROTO_TCP or IPPROTO_UDP */
	enum module_kind kind;
	module_loop_fn client; /* netperf's half */
	module_loop_fn server; /* netserver's half */
};

/* Seconds a silent peer is given past the end of a test before it is
 * declared gone. */
#define MODULE_GRACE_SEC 5
/* Seconds without progress after which a count-limited test gives up. */
#define MODULE_IDLE_SEC 10

/* Finds a test by name, case-insensitively; NULL when unknown. */
const struct test_module *module_find(const char *name);

/* The table of every test module, ended by a NULL name. */
extern const struct test_module module_table[];

/*
 * Runs one side's loop, bracketing it with CPU snapshots and monotonic
 * timestamps when measure_cpu is set. Returns 0, or -1 with ctx->err set.
 */
int module_run(const struct test_module *m, int is_server, int measure_cpu,
	       struct test_ctx *ctx);

/*
 * Decides what a call that timed out (SO_RCVTIMEO/SO_SNDTIMEO) means for
 * a loop last making progress at last_progress: 0 to keep waiting, -1 with
 * ctx->err set when the peer has been silent too long (MODULE_IDLE_SEC
 * during the test, MODULE_GRACE_SEC past its end).
 */
int module_stalled(struct test_ctx *ctx, uint64_t now, uint64_t last_progress);

/* The loops, one family a file. */
int stream_send(struct test_ctx *ctx);
int stream_recv(struct test_ctx *ctx);
int rr_client(struct test_ctx *ctx);
int rr_server(struct test_ctx *ctx);

#endif
