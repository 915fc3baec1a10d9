/*
 * The registry of named tests. A test module is one table entry: its name,
 * banner, socket type and the two halves of its data path, one run by
 * netperf and one by netserver. Both programs link the same loops.
 * It includes the rest of a test's headers (request, loop context, runner,
 * watchdog, loops, buffers, 2.7's layouts), so that one include brings
 * them all.
 */
#ifndef NP_MODULE_H
#define NP_MODULE_H

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np/buffers.h"
#include "np/cpu.h"
#include "np/err.h"
#include "np/layout.h"
#include "np/loop.h"
#include "np/mix.h"
#include "np/oneway.h"
#include "np/runner.h"
#include "np/side.h"
#include "np/sock.h"
#include "np/stats.h"
#include "np/tcpinfo.h"
#include "np/test_ctx.h"
#include "np/test_params.h"
#include "np/topo.h"
#include "np/watchdog.h"

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

#endif
