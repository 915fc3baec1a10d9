/*
 * Shared-secret authentication: challenge-response with HMAC-SHA-256 from
 * OpenSSL's libcrypto, fresh nonces, constant-time comparison. The secret
 * never travels; each data connection proves it belongs to its control
 * session with a per-test token.
 */
#ifndef NP_AUTH_H
#define NP_AUTH_H

#include <stddef.h>

#define AUTH_KEY_MAX 1024
#define AUTH_NONCE_LEN 32
#define AUTH_MAC_LEN 32
#define AUTH_TOKEN_LEN 16

struct auth_key {
	unsigned char key[AUTH_KEY_MAX];
	size_t len;
};

/*
 * Reads a secret from a file: its bytes up to a final newline, at least
 * 16 of them. A file that others may read is refused, as ssh refuses a
 * private key. Returns 0, or -1 with err set.
 */
int auth_key_load(const char *path, struct auth_key *k, char *err);

/* Takes the secret from a string (for NETPERF_AUTH_KEY); returns 0, or
 * -1 with err set when it is shorter than 16 bytes. */
int auth_key_from_string(const char *s, struct auth_key *k, char *err);

/*
 * netperf 2.7's -Z: the key is PBKDF2-HMAC-SHA-256 of the passphrase
 * (AUTH_PBKDF2_ROUNDS rounds, a fixed salt, 32 bytes), derived the same
 * way by netperf and netserver, so the passphrase never travels; the
 * challenge-response above proves it. Returns 0, or -1 with err set for
 * an empty passphrase or a libcrypto failure.
 */
int auth_key_from_passphrase(const char *pass, struct auth_key *k, char *err);

#define AUTH_PBKDF2_ROUNDS 100000

/* Fills buf with len cryptographically random bytes; returns 0, or -1. */
int auth_random(unsigned char *buf, size_t len, char *err);

/*
 * The proof for a challenge: HMAC-SHA-256 under k of the label, then the
 * server nonce, then the client nonce. Labels differ per direction, so
 * one side's proof is never valid for the other.
 */
void auth_proof(const struct auth_key *k, const char *label,
		const unsigned char *snonce, const unsigned char *cnonce,
		unsigned char mac[AUTH_MAC_LEN]);

/* Compares in constant time; returns 1 when equal. */
int auth_equal(const unsigned char *a, const unsigned char *b, size_t len);

/* Lower-case hex of len bytes into out (2 * len + 1 bytes). */
void auth_hex(const unsigned char *in, size_t len, char *out);

/* Parses exactly len bytes of hex; returns 0, or -1 when s is not that. */
int auth_unhex(const char *s, unsigned char *out, size_t len);

#endif
