/* netserver's side of a control connection: one child serves one client. */
#ifndef NP_SERVER_H
#define NP_SERVER_H

#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np/auth.h"
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

/* server_session's answer when the client failed to authenticate. */
#define SERVER_AUTH_FAILED (-2)

/* What a child tells its client when SIGTERM ends the session. */
#define SERVER_SHUTDOWN_TEXT "netserver is shutting down"

/* Told whether a client's credentials were right (1) or wrong (0), once
 * they are checked and before the client is answered. */
typedef void (*server_auth_fn)(int ok);

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

/*
 * Serves one control connection until the client says goodbye or goes
 * away: handshake (with the challenge-response when key is not NULL),
 * then any number of tests. When *stop becomes nonzero (SIGTERM), or a
 * test runs past lim->max_duration, the session is cut within a tenth of
 * a second and the client told why. on_auth (or NULL) hears the verdict
 * on the client's credentials. Returns 0 on a clean end,
 * SERVER_AUTH_FAILED with err set when the client did not prove the key,
 * or -1 with err set (the client was also told where possible).
 */
int server_session(int ctl, const struct server_limits *lim,
		   const struct auth_key *key, server_log_fn log,
		   server_auth_fn on_auth, volatile sig_atomic_t *stop,
		   char *err);

/* server_legacy_session's answer to our netperf's probe. */
#define SERVER_PROBED 1

/* Refused requests after which a 2.7 session is ended: 2.7's netperf
 * stops at its first, so only a hostile client reaches this. */
#define SERVER_LEGACY_REFUSALS 8

/*
 * Serves a control connection whose first bytes are netperf 2.7's
 * (legacy_sniff): the passphrase when one is set, then DO_OMNI requests
 * for the six tests under the same limits as ours, each answered with
 * 2.7's response and results, or with its error response (serv_errno) and
 * one rate-limited log line when refused; a session ends after
 * SERVER_LEGACY_REFUSALS refusals. Without lim->legacy, or with a key and
 * no legacy passphrase, the client gets an error response and nothing
 * else. Returns 0 when the client ends the session (or it was ended after
 * its refusals, which is logged); SERVER_PROBED when the first message was
 * our netperf's probe, answered (the session goes on in our protocol); or
 * -1 with err set.
 */
int server_legacy_session(int ctl, const struct server_limits *lim,
			  const struct auth_key *key, server_log_fn log,
			  volatile sig_atomic_t *stop, char *err);

/*
 * Answers a client the daemon turns away before any session (--allow, the
 * session limits) in the words it understands, from the bytes it has sent
 * (peeked, without waiting): 2.7's error response with serv_errno for a
 * 2.7 client, the probe's answer and then our error frame with why for
 * our netperf's probe, our error frame otherwise. Waits at most 100 ms to
 * send. Returns 0, or -1 with err set.
 */
int server_refusal(int fd, const char *why, int serv_errno, char *err);

#endif
