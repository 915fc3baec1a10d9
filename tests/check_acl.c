/* The allow-list parser and matcher, over literals. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "np/acl.h"
#include "np/err.h"
#include "harness.h"

static struct sockaddr_storage
addr_of(const char *text)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(text, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		ck_assert_int_eq(inet_pton(AF_INET6, text, &s6->sin6_addr), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		ck_assert_int_eq(inet_pton(AF_INET, text, &s4->sin_addr), 1);
	}
	return ss;
}

static int
allows(const struct acl *a, const char *text)
{
	struct sockaddr_storage ss = addr_of(text);

	return acl_allows(a, (struct sockaddr *)&ss);
}

START_TEST(test_empty_allows_all)
{
	struct acl a;

	memset(&a, 0, sizeof(a));
	ck_assert(allows(&a, "192.0.2.1"));
	ck_assert(allows(&a, "2001:db8::1"));
}
END_TEST

START_TEST(test_ipv4_networks)
{
	struct acl a;
	char err[ERR_LEN];

	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(acl_parse(&a, "127.0.0.0/8,10.0.0.0/8", err), 0);
	ck_assert_int_eq(a.n, 2);
	ck_assert(allows(&a, "127.0.0.1"));
	ck_assert(allows(&a, "127.255.255.255"));
	ck_assert(allows(&a, "10.1.2.3"));
	ck_assert(!allows(&a, "11.0.0.1"));
	ck_assert(!allows(&a, "192.0.2.1"));
	/* An IPv4 client that reached an IPv6 socket. */
	ck_assert(allows(&a, "::ffff:10.9.9.9"));
	ck_assert(!allows(&a, "::ffff:192.0.2.1"));
	/* Not an IPv4 address at all. */
	ck_assert(!allows(&a, "::1"));
	ck_assert(!allows(&a, "2001:db8::1"));
}
END_TEST

START_TEST(test_odd_prefixes)
{
	struct acl a;
	char err[ERR_LEN];

	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(acl_parse(&a, "192.168.4.0/22", err), 0);
	ck_assert(allows(&a, "192.168.4.0"));
	ck_assert(allows(&a, "192.168.7.255"));
	ck_assert(!allows(&a, "192.168.8.0"));
	ck_assert(!allows(&a, "192.168.3.255"));
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(acl_parse(&a, "0.0.0.0/0", err), 0);
	ck_assert(allows(&a, "203.0.113.7"));
	ck_assert(!allows(&a, "2001:db8::1"));
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(acl_parse(&a, "203.0.113.7", err), 0);
	ck_assert_int_eq(a.net[0].prefix, 128);
	ck_assert(allows(&a, "203.0.113.7"));
	ck_assert(!allows(&a, "203.0.113.6"));
}
END_TEST

START_TEST(test_ipv6_networks)
{
	struct acl a;
	char err[ERR_LEN];

	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(acl_parse(&a, "::1/128", err), 0);
	ck_assert_int_eq(acl_parse(&a, "2001:db8:8000::/33", err), 0);
	ck_assert_int_eq(a.n, 2);
	ck_assert(allows(&a, "::1"));
	ck_assert(!allows(&a, "::2"));
	ck_assert(allows(&a, "2001:db8:8000::1"));
	ck_assert(allows(&a, "2001:db8:ffff:ffff::1"));
	ck_assert(!allows(&a, "2001:db8:7fff::1"));
	ck_assert(!allows(&a, "127.0.0.1"));
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(acl_parse(&a, "::/0", err), 0);
	ck_assert(allows(&a, "2001:db8::1"));
	/* ::/0 holds the IPv4-mapped block too. */
	ck_assert(allows(&a, "192.0.2.1"));
}
END_TEST

START_TEST(test_bad_lists)
{
	static const char *const bad[] = {
	    "",
	    "10.0.0.0/33",
	    "10.0.0.1/8",
	    "::1/129",
	    "10.0.0.0/",
	    "10.0.0.0/-1",
	    "10.0.0.0/+8",
	    "10.0.0.0/8x",
	    "10.0.0",
	    "host.example",
	    "10.0.0.0/8,",
	    ",10.0.0.0/8",
	    "10.0.0.0 /8",
	    "2001:db8::1/64",
	    "fe80::1%lo",
	    "1.2.3.4/8/8",
	};
	char err[ERR_LEN];
	struct acl a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&a, 0, sizeof(a));
		err[0] = '\0';
		ck_assert_msg(acl_parse(&a, bad[i], err) == -1,
			      "accepted \"%s\"", bad[i]);
		ck_assert_msg(err[0] != '\0', "no message for \"%s\"", bad[i]);
	}
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(acl_parse(&a, "10.0.0.1/8", err), -1);
	ck_assert_ptr_nonnull(strstr(err, "bits set past its prefix"));
	ck_assert_int_eq(acl_parse(&a, "10.0.0.0/40", err), -1);
	ck_assert_ptr_nonnull(strstr(err, "0 to 32"));
	ck_assert_int_eq(acl_parse(&a, "bogus", err), -1);
	ck_assert_str_eq(err, "\"bogus\" is not an IPv4 or IPv6 network");
}
END_TEST

START_TEST(test_full_list)
{
	char err[ERR_LEN], item[32];
	struct acl a;
	int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < ACL_MAX; i++) {
		snprintf(item, sizeof(item), "10.%d.0.0/16", i);
		ck_assert_int_eq(acl_parse(&a, item, err), 0);
	}
	ck_assert_int_eq(acl_parse(&a, "192.0.2.0/24", err), -1);
	ck_assert_ptr_nonnull(strstr(err, "more than 64"));
	ck_assert(allows(&a, "10.63.1.1"));
	ck_assert(!allows(&a, "10.64.1.1"));
}
END_TEST

START_TEST(test_addr_text)
{
	struct sockaddr_storage ss;
	char buf[ACL_ADDR_LEN];

	ss = addr_of("::ffff:192.0.2.1");
	acl_addr_text((struct sockaddr *)&ss, buf);
	ck_assert_str_eq(buf, "192.0.2.1");
	ss = addr_of("192.0.2.9");
	acl_addr_text((struct sockaddr *)&ss, buf);
	ck_assert_str_eq(buf, "192.0.2.9");
	ss = addr_of("2001:db8::1");
	acl_addr_text((struct sockaddr *)&ss, buf);
	ck_assert_str_eq(buf, "2001:db8::1");
	ss.ss_family = AF_UNIX;
	acl_addr_text((struct sockaddr *)&ss, buf);
	ck_assert_str_eq(buf, "unknown");
}
END_TEST

/* Keys cut to a prefix: IPv6 per network, IPv4 whole. */
START_TEST(test_key_prefix)
{
	static const struct {
		const char *addr;
		int bits;
		const char *want;
	} cases[] = {
	    {"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64, "2001:db8:1:2::/64"},
	    {"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 48, "2001:db8:1::/48"},
	    {"2001:db8:1:2:aaaa:bbbb:cccc:dddd", 60, "2001:db8:1::/60"},
	    {"2001:db8:1:1f:aaaa::", 60, "2001:db8:1:10::/60"},
	    {"2001:db8::7", 128, "2001:db8::7"},
	    {"ffff::1", 1, "8000::/1"},
	    {"192.0.2.77", 64, "192.0.2.77"},
	    {"::ffff:192.0.2.78", 8, "192.0.2.78"},
	};
	struct sockaddr_storage ss;
	unsigned char key[16], other[16];
	char buf[ACL_ADDR_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss = addr_of(cases[i].addr);
		ck_assert_int_eq(acl_addr_key((struct sockaddr *)&ss, key), 0);
		acl_key_prefix(key, cases[i].bits);
		acl_key_text(key, cases[i].bits, buf);
		ck_assert_str_eq(buf, cases[i].want);
	}
	/* Two hosts of one /64 share a key; of two /64s, they do not. */
	ss = addr_of("2001:db8::1");
	acl_addr_key((struct sockaddr *)&ss, key);
	acl_key_prefix(key, 64);
	ss = addr_of("2001:db8::ffff:2");
	acl_addr_key((struct sockaddr *)&ss, other);
	acl_key_prefix(other, 64);
	ck_assert(memcmp(key, other, 16) == 0);
	ss = addr_of("2001:db8:0:1::1");
	acl_addr_key((struct sockaddr *)&ss, other);
	acl_key_prefix(other, 64);
	ck_assert(memcmp(key, other, 16) != 0);
}
END_TEST

static Suite *
acl_suite(void)
{
	Suite *s = suite_create("acl");
	TCase *tc = tcase_create("parse and match");

	tcase_add_test(tc, test_empty_allows_all);
	tcase_add_test(tc, test_ipv4_networks);
	tcase_add_test(tc, test_odd_prefixes);
	tcase_add_test(tc, test_ipv6_networks);
	tcase_add_test(tc, test_bad_lists);
	tcase_add_test(tc, test_full_list);
	tcase_add_test(tc, test_addr_text);
	tcase_add_test(tc, test_key_prefix);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(acl_suite());
}
