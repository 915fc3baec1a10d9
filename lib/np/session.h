/*
 * A control conversation over a socket: framed messages with a deadline on
 * every read and write, the version handshake, and the typed exchanges.
 */
#ifndef NP_SESSION_H
#define NP_SESSION_H

#include <jansson.h>

/* Milliseconds any single control read or write may take by default. */
#define SESSION_TIMEOUT_MS 10000

/* Sends msg as one frame within timeout_ms; returns 0, or -1 with err. */
int session_send(int fd, const json_t *msg, int timeout_ms, char *err);

/* Sends len raw bytes (a netperf 2.7 message) within timeout_ms; returns
 * 0, or -1 with err set. */
int session_send_raw(int fd, const void *buf, size_t len, int timeout_ms,
		     char *err);

/* Receives exactly len raw bytes within timeout_ms; returns 0, 1 when the
 * peer closed before the first byte, or -1 with err set (time-out, a close
 * inside the message, reset). */
int session_recv_raw(int fd, void *buf, size_t len, int timeout_ms,
		     char *err);

/* Sends msg and releases it; returns as session_send. */
int session_send_new(int fd, json_t *msg, int timeout_ms, char *err);

/*
 * Sends msg only if it can go at once: returns 0 when sent, 1 when it was
 * dropped instead (the peer is not taking what it was sent), or -1 with
 * err set. Nothing blocks but the rest of a frame the kernel took in part,
 * within timeout_ms.
 */
int session_offer(int fd, const json_t *msg, int timeout_ms, char *err);

/*
 * Takes the next message without waiting, when it is whole, of the given
 * type and at most max bytes. Returns 1 with *msg set (the caller owns
 * it); 0 when nothing whole is waiting yet; 2 when the next message is
 * another (left unread, as is a close); or -1 with err set (garbage).
 */
int session_take(int fd, const char *type, size_t max, json_t **msg, char *err);

/*
 * Receives one message within timeout_ms into *msg (the caller owns it).
 * Returns 0; 1 when the peer closed the connection cleanly before a new
 * frame; or -1 with err set (time-out, garbage, oversize, reset).
 */
int session_recv(int fd, json_t **msg, int timeout_ms, char *err);

/* session_expect's answer when the peer sent an error message. */
#define SESSION_PEER_ERROR (-2)

/*
 * Receives a message that must be of the given type. Returns 0 with *msg
 * set; SESSION_PEER_ERROR with the peer's own words in err when it sent
 * an "error" message; -1 with err set for any other type, the connection
 * closing, or a time-out.
 */
int session_expect(int fd, const char *type, json_t **msg, int timeout_ms,
		   char *err);

/* What session_expect_past does with a message it skips: 0 to go on, -1
 * with err set to fail. */
typedef int (*session_skip_fn)(void *arg, const json_t *msg, char *err);

/* session_expect, taking every message of type skip on the way to it by
 * on_skip (each within its own timeout_ms). */
int session_expect_past(int fd, const char *type, const char *skip,
			session_skip_fn on_skip, void *arg, json_t **msg,
			int timeout_ms, char *err);

#endif
