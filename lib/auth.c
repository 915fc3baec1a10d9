#include "np/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "np/err.h"

/* The shortest secret accepted, in bytes: 128 bits if they are random. */
#define AUTH_KEY_MIN 16

/* Drops one final "\n" or "\r\n", the way editors and echo end a file. */
static size_t
strip_newline(const unsigned char *buf, size_t len)
{
	if (len > 0 && buf[len - 1] == '\n') {
		len--;
		if (len > 0 && buf[len - 1] == '\r')
			len--;
	}
	return len;
}

/*
 * Whether the open key file fd may hold our key: a regular file that
 * this user or root owns and no one else can read or write. Returns 0, or
 * -1 with err set.
 */
static int
auth_key_file_ok(int fd, const char *path, char *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return err_set(err, "cannot stat key file %s: %s", path,
			       strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(err, "key file %s is not a regular file", path);
	/* Its owner can rewrite it, and so choose the key. */
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return err_set(err,
			       "key file %s belongs to uid %ld, neither this "
			       "user nor root",
			       path, (long)st.st_uid);
	/* Checked on the open descriptor, so the file read is the file
	 * checked. Others who can write the key can choose it, which is as
	 * bad as reading it. */
	if (st.st_mode & (S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH))
		return err_set(err,
			       "key file %s is %s by others (mode %04o); chmod "
			       "600 it",
			       path,
			       st.st_mode & (S_IRGRP | S_IROTH) ? "readable"
								: "writable",
			       (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Reads fd into buf until its end or cap bytes, the count into *len;
 * returns 0, or -1 with err set. */
static int
auth_key_read(int fd, unsigned char *buf, size_t cap, size_t *len,
	      const char *path, char *err)
{
	ssize_t n;

	*len = 0;
	while (*len < cap) {
		n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(err, "cannot read key file %s: %s", path,
				       strerror(errno));
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	return 0;
}

int
auth_key_load(const char *path, struct auth_key *k, char *err)
{
	/* Room for a full key, its "\r\n", and one byte more to see that a
	 * file is too long without reading all of it. */
	unsigned char buf[AUTH_KEY_MAX + 3];
	size_t len = 0;
	int fd, rc = -1;

	/* O_NONBLOCK: a FIFO put where the key should be would hang the
	 * open; it is refused below as not a regular file. */
	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0 && errno == ELOOP)
		return err_set(err,
			       "key file %s is a symbolic link: refusing to "
			       "follow it",
			       path);
	if (fd < 0)
		return err_set(err, "cannot open key file %s: %s", path,
			       strerror(errno));
	if (auth_key_file_ok(fd, path, err) < 0)
		goto close_fd;
	if (auth_key_read(fd, buf, sizeof(buf), &len, path, err) < 0)
		goto wipe;
	len = strip_newline(buf, len);
	if (len > AUTH_KEY_MAX) {
		err_set(err, "key file %s is longer than %d bytes", path,
			AUTH_KEY_MAX);
		goto wipe;
	}
	if (len < AUTH_KEY_MIN) {
		err_set(err,
			"key file %s holds %zu bytes; a key needs at least %d",
			path, len, AUTH_KEY_MIN);
		goto wipe;
	}
	memcpy(k->key, buf, len);
	k->len = len;
	rc = 0;
wipe:
	OPENSSL_cleanse(buf, sizeof(buf));
close_fd:
	close(fd);
	return rc;
}

int
auth_key_from_string(const char *s, struct auth_key *k, char *err)
{
	size_t len = strnlen(s, AUTH_KEY_MAX + 1);

	if (len < AUTH_KEY_MIN)
		return err_set(err,
			       "the key holds %zu bytes; it needs at "
			       "least %d",
			       len, AUTH_KEY_MIN);
	if (len > AUTH_KEY_MAX)
		return err_set(err, "the key is longer than %d bytes",
			       AUTH_KEY_MAX);
	memcpy(k->key, s, len);
	k->len = len;
	return 0;
}

int
auth_random(unsigned char *buf, size_t len, char *err)
{
	size_t got = 0;
	ssize_t n;

	/* The kernel's generator, the one OpenSSL seeds from: a nonce or a
	 * token then costs one system call, not OpenSSL's start-up (its
	 * configuration file read and parsed) on every test's way to
	 * "ready". */
	while (got < len) {
		n = getrandom(buf + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return err_set(err, "no random bytes: %s",
				       n < 0 ? strerror(errno)
					     : "getrandom returned none");
		got += (size_t)n;
	}
	return 0;
}

/* HMAC-SHA-256 of label || snonce || cnonce; returns 0, or -1. */
static int
hmac_proof(const struct auth_key *k, const char *label,
	   const unsigned char *snonce, const unsigned char *cnonce,
	   unsigned char mac[AUTH_MAC_LEN])
{
	OSSL_PARAM params[] = {
	    OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
					     (char *)"SHA256", 0),
	    OSSL_PARAM_construct_end(),
	};
	EVP_MAC *hmac;
	EVP_MAC_CTX *ctx;
	size_t outl = 0;
	int rc = -1;

	hmac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_HMAC, NULL);
	if (hmac == NULL)
		return -1;
	ctx = EVP_MAC_CTX_new(hmac);
	if (ctx == NULL)
		goto free_mac;
	if (EVP_MAC_init(ctx, k->key, k->len, params) == 1 &&
	    EVP_MAC_update(ctx, (const unsigned char *)label, strlen(label)) ==
		1 &&
	    EVP_MAC_update(ctx, snonce, AUTH_NONCE_LEN) == 1 &&
	    EVP_MAC_update(ctx, cnonce, AUTH_NONCE_LEN) == 1 &&
	    EVP_MAC_final(ctx, mac, &outl, AUTH_MAC_LEN) == 1 &&
	    outl == AUTH_MAC_LEN)
		rc = 0;
	EVP_MAC_CTX_free(ctx);
free_mac:
	EVP_MAC_free(hmac);
	return rc;
}

void
auth_proof(const struct auth_key *k, const char *label,
	   const unsigned char *snonce, const unsigned char *cnonce,
	   unsigned char mac[AUTH_MAC_LEN])
{
	if (hmac_proof(k, label ? label : "", snonce, cnonce, mac) == 0)
		return;
	/*
	 * The signature has no way to report a failure (only a broken
	 * OpenSSL setup or no memory causes one), so fail closed: a proof
	 * nobody can predict matches nothing, and the handshake is refused
	 * instead of accepting a fixed value. getrandom() does not depend
	 * on the OpenSSL state that just failed.
	 */
	if (getrandom(mac, AUTH_MAC_LEN, 0) != AUTH_MAC_LEN)
		abort();
}

int
auth_equal(const unsigned char *a, const unsigned char *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

void
auth_hex(const unsigned char *in, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
	out[2 * len] = '\0';
}

/* The value of one hex digit, or -1. */
static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
auth_unhex(const char *s, unsigned char *out, size_t len)
{
	size_t i;

	if (s == NULL || len > (SIZE_MAX - 1) / 2 ||
	    strnlen(s, 2 * len + 1) != 2 * len)
		return -1;
	/* Everything is checked before out is touched, so a bad string
	 * leaves it as it was. */
	for (i = 0; i < 2 * len; i++)
		if (hex_digit(s[i]) < 0)
			return -1;
	for (i = 0; i < len; i++)
		out[i] = (unsigned char)(hex_digit(s[2 * i]) << 4 |
					 hex_digit(s[2 * i + 1]));
	return 0;
}

int
auth_key_from_passphrase(const char *pass, struct auth_key *k, char *err)
{
	static const char salt[] = "netperf -Z passphrase, version 1";

	if (pass == NULL || pass[0] == '\0')
		return err_set(err, "the passphrase is empty");
	if (PKCS5_PBKDF2_HMAC(pass, (int)strlen(pass),
			      (const unsigned char *)salt, sizeof(salt) - 1,
			      AUTH_PBKDF2_ROUNDS, EVP_sha256(), 32,
			      k->key) != 1)
		return err_set(err, "PBKDF2 failed");
	k->len = 32;
	return 0;
}
