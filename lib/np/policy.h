/* What netserver allows, whatever a client asks, for a session in either
 * protocol; how such a session logs and reports. */
#ifndef NP_POLICY_H
#define NP_POLICY_H

#include <stdint.h>

#include "np/metrics.h"
#include "np/module.h"

/* What this server allows, whatever a client asks. */
struct server_limits {
	double max_duration; /* seconds */
	int64_t max_count;   /* bytes or transactions of a counted test */
	int64_t max_msg;     /* bytes per send, receive, request, response */
	int max_buf;	     /* SO_SNDBUF / SO_RCVBUF */
	int idle_ms;	     /* control silence before and between tests */
	int accept_ms;	     /* wait for the data connection */
	int max_streams;     /* data connections per test; 0: what
			      * max_session_mem holds */
	int max_sessions;    /* sessions at once (the parent counts them) */
	int max_per_addr;    /* sessions at once from one client address */
	/* --legacy: netperf 2.7 clients are served too; legacy_pass holds
	 * --legacy-passphrase's text ("" for none). */
	int legacy;
	char legacy_pass[648];
	int64_t max_session_mem; /* data buffers of one session, bytes */
	int hello_ms;		 /* wait for the hello (and the proof) */
	double max_session_time; /* a session's whole life, seconds */
	int ipv6_prefix;	 /* IPv6 clients counted per this prefix */
	int allow_low_ports;	 /* data ports below 1024 may be asked for */
	double max_start_ahead;	 /* how far ahead a start may be set, s */
	/* --metrics: where a session tells the parent what it did, once a
	 * test (server_report); NULL for nowhere. */
	void (*report)(const struct metrics_event *ev);
};

/* Hands an event to lim->report when there is one. */
void server_report(const struct server_limits *lim, enum metrics_kind kind,
		   const char *test, uint64_t bytes, uint64_t transactions,
		   int streams, enum metrics_refusal refusal);

/* What a child tells its client when SIGTERM ends the session. */
#define SERVER_SHUTDOWN_TEXT "netserver is shutting down"

/* Logs one line; level 0 always, higher only under -d, and
 * SERVER_LOG_LIMITED (a refusal of what a client may repeat at will)
 * always but rate-limited, as the daemon's own refusals are. */
#define SERVER_LOG_LIMITED (-1)
typedef void (*server_log_fn)(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Fills the defaults: an hour, 64 MiB messages, 256 MiB buffers, 64
 * sessions, 16 from one address, 256 MiB of data buffers a session, a
 * 5 s hello, two hours a session, starts at most 300 s ahead... */
void server_limits_default(struct server_limits *lim);

/* The most data connections a test may have: --max-streams, or, as
 * flows on threads (flows set), as many as --max-session-memory holds,
 * and on a thread each 64. */
int server_max_streams(const struct server_limits *lim, int flows);

/* Checks a decoded request against the limits and the module table;
 * returns 0, or -1 with err naming the limit it breaks. */
int server_check_request(const struct test_params *p,
			 const struct server_limits *lim, char *err);

#endif
