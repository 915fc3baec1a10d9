/* netserver's side of a control connection: one child serves one client. */
#ifndef NP_SERVER_H
#define NP_SERVER_H

#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np/auth.h"
#include "np/policy.h"

/* server_session's answer when the client failed to authenticate. */
#define SERVER_AUTH_FAILED (-2)

/* Told whether a client's credentials were right (1) or wrong (0), once
 * they are checked and before the client is answered. */
typedef void (*server_auth_fn)(int ok);

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

#endif
