/* Tests for lib/auth: key files, proofs, hex and randomness. */
#include "harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np/auth.h"
#include "np/err.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- key files ---- */

/* A private directory per test, removed with its key file at the end. */
static char key_dir[64];
static char key_path[128];

static void
key_setup(void)
{
	snprintf(key_dir, sizeof(key_dir), "/tmp/check_auth.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(key_dir));
	snprintf(key_path, sizeof(key_path), "%s/key", key_dir);
}

static void
key_teardown(void)
{
	unlink(key_path);
	rmdir(key_dir);
}

START_TEST(test_load_good)
{
	static const char text[] = "correct horse battery staple";
	struct auth_key k;
	char err[ERR_LEN] = "";

	harness_write_file(key_path, text, strlen(text), 0600);
	ck_assert_msg(auth_key_load(key_path, &k, err) == 0, "%s", err);
	ck_assert_uint_eq(k.len, strlen(text));
	ck_assert_mem_eq(k.key, text, k.len);
}
END_TEST

START_TEST(test_load_owner_only_modes)
{
	static const char text[] = "0123456789abcdef";
	static const mode_t modes[] = {0400, 0600, 0700, 0710, 0611};
	struct auth_key k;
	char err[ERR_LEN] = "";
	int i;

	/* Execute bits give nothing away. */
	for (i = 0; i < N(modes); i++) {
		harness_write_file(key_path, text, strlen(text), modes[i]);
		ck_assert_msg(auth_key_load(key_path, &k, err) == 0,
			      "mode %04o: %s", (unsigned)modes[i], err);
	}
}
END_TEST

START_TEST(test_load_readable_refused)
{
	static const char text[] = "0123456789abcdef0123";
	struct auth_key k;
	char err[ERR_LEN] = "", want[ERR_LEN];

	harness_write_file(key_path, text, strlen(text), 0644);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	snprintf(want, sizeof(want),
		 "key file %s is readable by others (mode 0644); chmod 600 it",
		 key_path);
	ck_assert_str_eq(err, want);

	harness_write_file(key_path, text, strlen(text), 0640);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "(mode 0640)"));

	harness_write_file(key_path, text, strlen(text), 0604);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "(mode 0604)"));
}
END_TEST

START_TEST(test_load_writable_refused)
{
	static const char text[] = "0123456789abcdef0123";
	struct auth_key k;
	char err[ERR_LEN] = "", want[ERR_LEN];

	/* Whoever can write the key can choose it. */
	harness_write_file(key_path, text, strlen(text), 0620);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	snprintf(want, sizeof(want),
		 "key file %s is writable by others (mode 0620); chmod 600 it",
		 key_path);
	ck_assert_str_eq(err, want);

	harness_write_file(key_path, text, strlen(text), 0602);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by others (mode 0602)"));

	harness_write_file(key_path, text, strlen(text), 0666);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "readable by others (mode 0666)"));
}
END_TEST

START_TEST(test_load_too_short)
{
	struct auth_key k;
	char err[ERR_LEN] = "";

	/* 15 bytes, and the newline does not count towards 16. */
	harness_write_file(key_path, "0123456789abcde\n", 16, 0600);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "15 bytes"));

	harness_write_file(key_path, "", 0, 0600);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "0 bytes"));

	harness_write_file(key_path, "0123456789abcdef", 16, 0600);
	ck_assert_msg(auth_key_load(key_path, &k, err) == 0, "%s", err);
	ck_assert_uint_eq(k.len, 16);
}
END_TEST

/* How each file ends, and the key it must give. */
static const struct {
	const char *file;
	const char *key;
} endings[] = {
    {"0123456789abcdefXYZ\n", "0123456789abcdefXYZ"},
    {"0123456789abcdefXYZ\r\n", "0123456789abcdefXYZ"},
    /* Only one newline goes: the rest is the key. */
    {"0123456789abcdefXYZ\n\n", "0123456789abcdefXYZ\n"},
    {"0123456789abcdefXYZ\r", "0123456789abcdefXYZ\r"},
    {"0123456789abcdefXYZ\n\r", "0123456789abcdefXYZ\n\r"},
    {"0123456789abcdefXYZ \n", "0123456789abcdefXYZ "},
    {"\n0123456789abcdefXYZ", "\n0123456789abcdefXYZ"},
};

START_TEST(test_load_newline)
{
	struct auth_key k;
	char err[ERR_LEN] = "";

	harness_write_file(key_path, endings[_i].file, strlen(endings[_i].file), 0600);
	ck_assert_msg(auth_key_load(key_path, &k, err) == 0, "%s", err);
	ck_assert_uint_eq(k.len, strlen(endings[_i].key));
	ck_assert_mem_eq(k.key, endings[_i].key, k.len);
}
END_TEST

START_TEST(test_load_binary)
{
	unsigned char bin[64];
	struct auth_key k;
	char err[ERR_LEN] = "";
	int i;

	/* A key is bytes, NULs included. */
	for (i = 0; i < N(bin); i++)
		bin[i] = (unsigned char)(i * 37);
	harness_write_file(key_path, bin, sizeof(bin), 0600);
	ck_assert_msg(auth_key_load(key_path, &k, err) == 0, "%s", err);
	ck_assert_uint_eq(k.len, sizeof(bin));
	ck_assert_mem_eq(k.key, bin, sizeof(bin));
}
END_TEST

START_TEST(test_load_size_limit)
{
	char *buf = malloc(AUTH_KEY_MAX + 4);
	struct auth_key k;
	char err[ERR_LEN] = "";

	ck_assert_ptr_nonnull(buf);
	memset(buf, 'k', AUTH_KEY_MAX + 4);
	harness_write_file(key_path, buf, AUTH_KEY_MAX, 0600);
	ck_assert_msg(auth_key_load(key_path, &k, err) == 0, "%s", err);
	ck_assert_uint_eq(k.len, AUTH_KEY_MAX);

	/* A full-length key still has room for its line end. */
	buf[AUTH_KEY_MAX] = '\r';
	buf[AUTH_KEY_MAX + 1] = '\n';
	harness_write_file(key_path, buf, AUTH_KEY_MAX + 2, 0600);
	ck_assert_msg(auth_key_load(key_path, &k, err) == 0, "%s", err);
	ck_assert_uint_eq(k.len, AUTH_KEY_MAX);

	/* One byte more is refused, not silently cut. */
	memset(buf, 'k', AUTH_KEY_MAX + 4);
	harness_write_file(key_path, buf, AUTH_KEY_MAX + 1, 0600);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "longer than"));
	buf[AUTH_KEY_MAX + 1] = '\n';
	harness_write_file(key_path, buf, AUTH_KEY_MAX + 2, 0600);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	harness_write_file(key_path, buf, AUTH_KEY_MAX + 4, 0600);
	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	free(buf);
}
END_TEST

START_TEST(test_load_missing)
{
	struct auth_key k;
	char err[ERR_LEN] = "", want[ERR_LEN];

	ck_assert_int_eq(auth_key_load(key_path, &k, err), -1);
	snprintf(want, sizeof(want),
		 "cannot open key file %s: No such file or directory",
		 key_path);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(test_load_directory)
{
	struct auth_key k;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(chmod(key_dir, 0700), 0);
	ck_assert_int_eq(auth_key_load(key_dir, &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
}
END_TEST

START_TEST(test_from_string)
{
	struct auth_key k;
	char err[ERR_LEN] = "";
	char *longer = malloc(AUTH_KEY_MAX + 2);

	ck_assert_int_eq(auth_key_from_string("0123456789abcde", &k, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "15 bytes"));
	ck_assert_int_eq(auth_key_from_string("", &k, err), -1);

	ck_assert_int_eq(auth_key_from_string("0123456789abcdef", &k, err), 0);
	ck_assert_uint_eq(k.len, 16);
	ck_assert_mem_eq(k.key, "0123456789abcdef", 16);

	ck_assert_ptr_nonnull(longer);
	memset(longer, 's', AUTH_KEY_MAX + 1);
	longer[AUTH_KEY_MAX + 1] = '\0';
	ck_assert_int_eq(auth_key_from_string(longer, &k, err), -1);
	longer[AUTH_KEY_MAX] = '\0';
	ck_assert_int_eq(auth_key_from_string(longer, &k, err), 0);
	ck_assert_uint_eq(k.len, AUTH_KEY_MAX);
	free(longer);
}
END_TEST

/* ---- proofs ---- */

static void
nonces(unsigned char s[AUTH_NONCE_LEN], unsigned char c[AUTH_NONCE_LEN])
{
	int i;

	for (i = 0; i < AUTH_NONCE_LEN; i++) {
		s[i] = (unsigned char)i;
		c[i] = (unsigned char)(AUTH_NONCE_LEN + i);
	}
}

static void
test_key(struct auth_key *k)
{
	char err[ERR_LEN] = "";

	ck_assert_int_eq(
	    auth_key_from_string("netperf-test-key-0123456789abcdef", k, err),
	    0);
}

/*
 * RFC 4231 test case 7: a 131-byte key and 152 bytes of data. The data is
 * cut into label (88 bytes), server nonce and client nonce (32 each), so
 * that what auth_proof signs is exactly the RFC's message.
 */
START_TEST(test_proof_rfc4231)
{
	static const char data[] =
	    "This is a test using a larger than block-size key and a larger "
	    "than block-size data. The key needs to be hashed before being "
	    "used by the HMAC algorithm.";
	static const char want[] =
	    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2";
	size_t llen = strlen(data) - 2 * AUTH_NONCE_LEN;
	unsigned char mac[AUTH_MAC_LEN];
	char label[128], hex[2 * AUTH_MAC_LEN + 1];
	struct auth_key k;

	ck_assert_uint_eq(strlen(data), 152);
	memset(k.key, 0xaa, 131);
	k.len = 131;
	memcpy(label, data, llen);
	label[llen] = '\0';
	auth_proof(&k, label, (const unsigned char *)data + llen,
		   (const unsigned char *)data + llen + AUTH_NONCE_LEN, mac);
	auth_hex(mac, sizeof(mac), hex);
	ck_assert_str_eq(hex, want);
}
END_TEST

/*
 * Expected values computed outside this code, with
 *   { printf 'LABEL'; for i in $(seq 0 63); do
 *       printf "\\$(printf %03o $i)"; done; } |
 *   openssl dgst -sha256 -mac HMAC \
 *       -macopt key:netperf-test-key-0123456789abcdef
 * (bytes 0..31 are the server nonce, 32..63 the client nonce), and
 * checked against Python's hmac module.
 */
static const struct {
	const char *label;
	const char *mac;
} proofs[] = {
    {"netperf client proof",
     "ff6a0b00b4292d538a732cc9a734b459659638512caccc7e648abc826fb7fd6c"},
    {"", "3c9f79f6c45422ef74fcf119bb346b8e9f4346e5b4eebe1ba8510fe3c1dd6033"},
};

START_TEST(test_proof_known)
{
	unsigned char s[AUTH_NONCE_LEN], c[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN];
	char hex[2 * AUTH_MAC_LEN + 1];
	struct auth_key k;

	test_key(&k);
	nonces(s, c);
	auth_proof(&k, proofs[_i].label, s, c, mac);
	auth_hex(mac, sizeof(mac), hex);
	ck_assert_str_eq(hex, proofs[_i].mac);
}
END_TEST

START_TEST(test_proof_inputs_matter)
{
	unsigned char s[AUTH_NONCE_LEN], c[AUTH_NONCE_LEN];
	unsigned char a[AUTH_MAC_LEN], b[AUTH_MAC_LEN];
	struct auth_key k, k2;

	test_key(&k);
	nonces(s, c);
	auth_proof(&k, "netperf client proof", s, c, a);
	auth_proof(&k, "netperf client proof", s, c, b);
	ck_assert(auth_equal(a, b, AUTH_MAC_LEN));

	/* One side's proof is never the other's. */
	auth_proof(&k, "netperf server proof", s, c, b);
	ck_assert(!auth_equal(a, b, AUTH_MAC_LEN));
	/* Swapping the nonces changes the proof. */
	auth_proof(&k, "netperf client proof", c, s, b);
	ck_assert(!auth_equal(a, b, AUTH_MAC_LEN));
	/* So does one bit of either nonce. */
	s[AUTH_NONCE_LEN - 1] ^= 1;
	auth_proof(&k, "netperf client proof", s, c, b);
	ck_assert(!auth_equal(a, b, AUTH_MAC_LEN));
	s[AUTH_NONCE_LEN - 1] ^= 1;
	c[0] ^= 0x80;
	auth_proof(&k, "netperf client proof", s, c, b);
	ck_assert(!auth_equal(a, b, AUTH_MAC_LEN));
	c[0] ^= 0x80;
	/* And the key, by one byte or by its length. */
	k2 = k;
	k2.key[0] ^= 1;
	auth_proof(&k2, "netperf client proof", s, c, b);
	ck_assert(!auth_equal(a, b, AUTH_MAC_LEN));
	k2 = k;
	k2.key[k2.len++] = 'x';
	auth_proof(&k2, "netperf client proof", s, c, b);
	ck_assert(!auth_equal(a, b, AUTH_MAC_LEN));
	/* HMAC pads a short key with zeros, so one NUL more is the same key
	 * (RFC 2104); harmless, as only someone holding it can add one. */
	k2 = k;
	k2.key[k2.len++] = '\0';
	auth_proof(&k2, "netperf client proof", s, c, b);
	ck_assert(auth_equal(a, b, AUTH_MAC_LEN));
}
END_TEST

START_TEST(test_equal)
{
	unsigned char a[AUTH_MAC_LEN], b[AUTH_MAC_LEN];
	int i;

	memset(a, 0x5a, sizeof(a));
	memcpy(b, a, sizeof(b));
	ck_assert_int_eq(auth_equal(a, b, sizeof(a)), 1);
	for (i = 0; i < AUTH_MAC_LEN; i++) {
		b[i] ^= 0x01;
		ck_assert_int_eq(auth_equal(a, b, sizeof(a)), 0);
		b[i] ^= 0x81;
		ck_assert_int_eq(auth_equal(a, b, sizeof(a)), 0);
		b[i] ^= 0x80;
	}
	ck_assert_int_eq(auth_equal(a, b, 0), 1);
}
END_TEST

/* ---- hex ---- */

START_TEST(test_hex_round_trip)
{
	unsigned char in[256], out[256];
	char hex[2 * sizeof(in) + 1];
	int i;

	for (i = 0; i < N(in); i++)
		in[i] = (unsigned char)i;
	auth_hex(in, sizeof(in), hex);
	ck_assert_uint_eq(strlen(hex), 2 * sizeof(in));
	ck_assert_int_eq(strncmp(hex, "000102", 6), 0);
	ck_assert_str_eq(hex + 2 * 250, "fafbfcfdfeff");
	ck_assert_int_eq(auth_unhex(hex, out, sizeof(out)), 0);
	ck_assert_mem_eq(in, out, sizeof(in));

	auth_hex(in, 0, hex);
	ck_assert_str_eq(hex, "");
	ck_assert_int_eq(auth_unhex("", out, 0), 0);
}
END_TEST

START_TEST(test_unhex_upper)
{
	unsigned char out[4];

	ck_assert_int_eq(auth_unhex("DEADbeef", out, 4), 0);
	ck_assert_mem_eq(out, "\xde\xad\xbe\xef", 4);
}
END_TEST

/* Strings that are not exactly 4 bytes of hex. */
static const char *const bad_hex[] = {
    "",		  /* empty */
    "0",	  /* odd length */
    "0011223",	  /* odd length, one short */
    "001122334",  /* odd length, one over */
    "001122",	  /* too short */
    "0011223344", /* too long */
    "00112g33",	  /* not a digit */
    "0011 233",	  /* space inside */
    " 0011223",	  /* leading space */
    "0011223 ",	  /* trailing space */
    "00112233\n", /* trailing newline */
    "0x112233",	  /* prefix */
    "+0112233",	  /* sign */
    "-0112233",	  /* sign */
    "00112233 ",  /* right digits, then more */
    ("\xc3\xa9"
     "112233"), /* not ASCII; split so \xa9 ends the escape */
};

START_TEST(test_unhex_rejects)
{
	unsigned char out[4] = {0xa5, 0xa5, 0xa5, 0xa5};

	ck_assert_msg(auth_unhex(bad_hex[_i], out, sizeof(out)) == -1,
		      "accepted \"%s\"", bad_hex[_i]);
	/* A refused string leaves out alone. */
	ck_assert_mem_eq(out, "\xa5\xa5\xa5\xa5", 4);
}
END_TEST

START_TEST(test_unhex_embedded_nul)
{
	static const char s[] = "0011\0"
				"2233";
	unsigned char out[4];

	ck_assert_int_eq(auth_unhex(s, out, sizeof(out)), -1);
	ck_assert_int_eq(auth_unhex(NULL, out, sizeof(out)), -1);
}
END_TEST

/* ---- randomness ---- */

START_TEST(test_random)
{
	unsigned char a[AUTH_NONCE_LEN], b[AUTH_NONCE_LEN], z[AUTH_NONCE_LEN];
	char err[ERR_LEN] = "";

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(z, 0, sizeof(z));
	ck_assert_msg(auth_random(a, sizeof(a), err) == 0, "%s", err);
	ck_assert_msg(auth_random(b, sizeof(b), err) == 0, "%s", err);
	/* 2^-256 odds of a false failure. */
	ck_assert(memcmp(a, b, sizeof(a)) != 0);
	ck_assert(memcmp(a, z, sizeof(a)) != 0);
	ck_assert(memcmp(b, z, sizeof(b)) != 0);
	ck_assert_int_eq(auth_random(a, 0, err), 0);
}
END_TEST

START_TEST(test_random_after_fork)
{
	unsigned char mine[AUTH_NONCE_LEN], theirs[AUTH_NONCE_LEN];
	char err[ERR_LEN] = "";
	int fds[2];
	pid_t pid;

	/* netserver forks a child per client: each must draw its own
	 * nonces, not replay the parent's generator state. */
	ck_assert_int_eq(auth_random(mine, sizeof(mine), err), 0);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (auth_random(theirs, sizeof(theirs), err) < 0 ||
		    write(fds[1], theirs, sizeof(theirs)) !=
			(ssize_t)sizeof(theirs))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], theirs, sizeof(theirs)),
			 (ssize_t)sizeof(theirs));
	close(fds[0]);
	ck_assert_int_eq(auth_random(mine, sizeof(mine), err), 0);
	ck_assert(memcmp(mine, theirs, sizeof(mine)) != 0);
}
END_TEST

static Suite *
auth_suite(void)
{
	Suite *s = suite_create("auth");
	TCase *tc;

	tc = tcase_create("key");
	tcase_add_checked_fixture(tc, key_setup, key_teardown);
	tcase_add_test(tc, test_load_good);
	tcase_add_test(tc, test_load_owner_only_modes);
	tcase_add_test(tc, test_load_readable_refused);
	tcase_add_test(tc, test_load_writable_refused);
	tcase_add_test(tc, test_load_too_short);
	tcase_add_loop_test(tc, test_load_newline, 0, N(endings));
	tcase_add_test(tc, test_load_binary);
	tcase_add_test(tc, test_load_size_limit);
	tcase_add_test(tc, test_load_missing);
	tcase_add_test(tc, test_load_directory);
	tcase_add_test(tc, test_from_string);
	suite_add_tcase(s, tc);

	tc = tcase_create("proof");
	tcase_add_test(tc, test_proof_rfc4231);
	tcase_add_loop_test(tc, test_proof_known, 0, N(proofs));
	tcase_add_test(tc, test_proof_inputs_matter);
	tcase_add_test(tc, test_equal);
	suite_add_tcase(s, tc);

	tc = tcase_create("hex");
	tcase_add_test(tc, test_hex_round_trip);
	tcase_add_test(tc, test_unhex_upper);
	tcase_add_loop_test(tc, test_unhex_rejects, 0, N(bad_hex));
	tcase_add_test(tc, test_unhex_embedded_nul);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_random_after_fork);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return harness_run(auth_suite());
}
