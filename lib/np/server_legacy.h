/* netserver's side of netperf 2.7's control protocol. */
#ifndef NP_SERVER_LEGACY_H
#define NP_SERVER_LEGACY_H

#include <signal.h>

#include "np/auth.h"
#include "np/policy.h"

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
