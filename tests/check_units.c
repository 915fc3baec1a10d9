/* Tests for lib/units: strict sizes and numbers, pairs, -f units. */
#include "harness.h"

#include <stdint.h>
#include <string.h>

#include "np/err.h"
#include "np/units.h"

#define TOL 1e-12

struct size_case {
	const char *s;
	int64_t want;
};

static const struct size_case good_sizes[] = {
    {"0", 0},
    {"1024", 1024},
    {"1K", 1024},
    {"1k", 1000},
    {"2M", 2 * 1048576},
    {"3m", 3000000},
    {"1G", 1073741824},
    {"1g", 1000000000},
    {"64K", 65536},
    {"007", 7},
    {"8589934592", INT64_C(8589934592)},
    /* A B for bytes, as 2.7's convert() reads it (PKB's -G 1400b). */
    {"64KB", 65536},
    {"1400b", 1400},
    {"2B", 2},
};

START_TEST(test_size_good)
{
	const struct size_case *c = &good_sizes[_i];
	char err[ERR_LEN] = "";
	int64_t v = -12345;

	ck_assert_msg(units_parse_size(c->s, INT64_MAX, &v, err) == 0,
		      "\"%s\" rejected: %s", c->s, err);
	ck_assert_int_eq(v, c->want);
}
END_TEST

static const char *const bad_sizes[] = {
    "",	   "abc", "1KK", "1.5K", "-1",	  "1 K", " 1",	"+1",
    "K",   "1T",  "1Kb", "0x10", "1,000", "1e3", "1K ", "99999999999999999999",
    "1BB", "1bK", "b",
};

START_TEST(test_size_bad)
{
	const char *s = bad_sizes[_i];
	char err[ERR_LEN] = "";
	int64_t v = -12345;

	ck_assert_int_eq(units_parse_size(s, INT64_MAX, &v, err), -1);
	ck_assert_msg(err[0] != '\0', "no message for \"%s\"", s);
	ck_assert_int_eq(v, -12345);
}
END_TEST

START_TEST(test_size_null)
{
	char err[ERR_LEN] = "";
	int64_t v = -12345;

	ck_assert_int_eq(units_parse_size(NULL, INT64_MAX, &v, err), -1);
	ck_assert_str_ne(err, "");
	ck_assert_int_eq(v, -12345);
}
END_TEST

START_TEST(test_size_max)
{
	char err[ERR_LEN] = "";
	int64_t v = 0;

	/* The limit is inclusive, with and without a suffix. */
	ck_assert_int_eq(units_parse_size("2048", 2048, &v, err), 0);
	ck_assert_int_eq(v, 2048);
	ck_assert_int_eq(units_parse_size("2K", 2048, &v, err), 0);
	ck_assert_int_eq(v, 2048);
	ck_assert_int_eq(units_parse_size("1G", INT64_C(1) << 30, &v, err), 0);
	ck_assert_int_eq(v, INT64_C(1) << 30);

	v = -1;
	ck_assert_int_eq(units_parse_size("2049", 2048, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "exceeds"));
	ck_assert_ptr_nonnull(strstr(err, "2048"));
	ck_assert_int_eq(v, -1);
	err[0] = '\0';
	ck_assert_int_eq(units_parse_size("3K", 2048, &v, err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(units_parse_size("2k", 1999, &v, err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(
	    units_parse_size("1073741825", INT64_C(1) << 30, &v, err), -1);
	ck_assert_str_ne(err, "");
	/* Fits in unsigned long long, not in int64_t. */
	err[0] = '\0';
	ck_assert_int_eq(
	    units_parse_size("18446744073709551615", INT64_MAX, &v, err), -1);
	ck_assert_str_ne(err, "");
	/* A multiplication that would overflow int64_t. */
	err[0] = '\0';
	ck_assert_int_eq(
	    units_parse_size("9223372036854775807G", INT64_MAX, &v, err), -1);
	ck_assert_str_ne(err, "");
	ck_assert_int_eq(v, -1);
}
END_TEST

START_TEST(test_int_good)
{
	char err[ERR_LEN] = "";
	int64_t v = 0;

	ck_assert_int_eq(units_parse_int("42", 0, 100, &v, err), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(units_parse_int("0", 0, 100, &v, err), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(units_parse_int("100", 0, 100, &v, err), 0);
	ck_assert_int_eq(v, 100);
	ck_assert_int_eq(units_parse_int("-5", -10, 10, &v, err), 0);
	ck_assert_int_eq(v, -5);
	ck_assert_int_eq(units_parse_int("65535", 0, 65535, &v, err), 0);
	ck_assert_int_eq(v, 65535);
	ck_assert_int_eq(
	    units_parse_int("9223372036854775807", 0, INT64_MAX, &v, err), 0);
	ck_assert_int_eq(v, INT64_MAX);
}
END_TEST

static const char *const bad_ints[] = {
    "",
    "abc",
    "4x",
    "1K",
    "1.0",
    "1e3",
    "-",
    "--1",
    "0x10",
    "12 ",
    "101",
    "-1",
    "99999999999999999999",
    "-99999999999999999999",
};

START_TEST(test_int_bad)
{
	const char *s = bad_ints[_i];
	char err[ERR_LEN] = "";
	int64_t v = -12345;

	ck_assert_int_eq(units_parse_int(s, 0, 100, &v, err), -1);
	ck_assert_msg(err[0] != '\0', "no message for \"%s\"", s);
	ck_assert_int_eq(v, -12345);
}
END_TEST

START_TEST(test_int_range_message)
{
	char err[ERR_LEN] = "";
	int64_t v;

	ck_assert_int_eq(units_parse_int("3", 0, 2, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "0..2"));
	ck_assert_int_eq(units_parse_int(NULL, 0, 2, &v, err), -1);
}
END_TEST

START_TEST(test_double_good)
{
	char err[ERR_LEN] = "";
	double v = 0;

	ck_assert_int_eq(units_parse_double("1.5", 0, 10, &v, err), 0);
	ck_assert_double_eq(v, 1.5);
	ck_assert_int_eq(units_parse_double("-2", -10, 10, &v, err), 0);
	ck_assert_double_eq(v, -2.0);
	ck_assert_int_eq(units_parse_double("1e3", 0, 1e9, &v, err), 0);
	ck_assert_double_eq(v, 1000.0);
	ck_assert_int_eq(units_parse_double("10", 0, 10, &v, err), 0);
	ck_assert_double_eq(v, 10.0);
	ck_assert_int_eq(units_parse_double(".25", 0, 10, &v, err), 0);
	ck_assert_double_eq(v, 0.25);
	ck_assert_int_eq(units_parse_double("-1000", -1e15, 1e9, &v, err), 0);
	ck_assert_double_eq(v, -1000.0);
}
END_TEST

static const char *const bad_doubles[] = {
    "",	     "abc", "1.5x", "nan",     "NaN",  "inf", "-inf", "infinity",
    "1e999", "-",   ".",    "10.0001", "-0.5", "1 ",  "1,5",
};

START_TEST(test_double_bad)
{
	const char *s = bad_doubles[_i];
	char err[ERR_LEN] = "";
	double v = -12345;

	ck_assert_int_eq(units_parse_double(s, 0, 10, &v, err), -1);
	ck_assert_msg(err[0] != '\0', "no message for \"%s\"", s);
	ck_assert_double_eq(v, -12345);
}
END_TEST

START_TEST(test_double_null)
{
	char err[ERR_LEN] = "";
	double v = 7;

	ck_assert_int_eq(units_parse_double(NULL, 0, 10, &v, err), -1);
	ck_assert_str_ne(err, "");
	ck_assert_double_eq(v, 7);
}
END_TEST

struct rate_case {
	const char *s;
	double want;
};

static const struct rate_case good_rates[] = {
    {"1", 1},	     {"10M", 1e7},    {"10m", 1e7},
    {"1.5g", 1.5e9}, {"1.5G", 1.5e9}, {"100k", 1e5},
    {"2K", 2000},    {"0.5k", 500},   {"1000000g", 1e15},
};

START_TEST(test_rate_good)
{
	const struct rate_case *c = &good_rates[_i];
	char err[ERR_LEN] = "";
	double v = -1;

	ck_assert_msg(units_parse_rate(c->s, &v, err) == 0,
		      "\"%s\" rejected: %s", c->s, err);
	ck_assert_double_eq_tol(v, c->want, c->want * 1e-15);
}
END_TEST

static const char *const bad_rates[] = {
    "",	  "0",	  "0.5", "abc", "-1",  "+1",	   ".5M",
    "1T", "10Mb", "1 M", "1MM", "1M ", "1000001g", "1e999",
};

START_TEST(test_rate_bad)
{
	const char *s = bad_rates[_i];
	char err[ERR_LEN] = "";
	double v = -12345;

	ck_assert_int_eq(units_parse_rate(s, &v, err), -1);
	ck_assert_msg(err[0] != '\0', "no message for \"%s\"", s);
	ck_assert_double_eq(v, -12345);
	ck_assert_int_eq(units_parse_rate(NULL, &v, err), -1);
}
END_TEST

struct pair_case {
	const char *s, *a, *b;
};

static const struct pair_case pairs[] = {
    {"x", "x", ""},	     {"x,", "x", ""},	    {",y", "", "y"},
    {"x,y", "x", "y"},	     {"", "", ""},	    {",", "", ""},
    {"64K,1M", "64K", "1M"}, {"::1,6", "::1", "6"}, {"a,b,c", "a", "b,c"},
};

START_TEST(test_split_pair)
{
	const struct pair_case *c = &pairs[_i];
	char a[16], b[16], err[ERR_LEN] = "";

	memset(a, 'Z', sizeof(a));
	memset(b, 'Z', sizeof(b));
	ck_assert_int_eq(units_split_pair(c->s, a, b, sizeof(a), err), 0);
	ck_assert_str_eq(a, c->a);
	ck_assert_str_eq(b, c->b);
}
END_TEST

START_TEST(test_split_pair_too_long)
{
	char a[4], b[4], err[ERR_LEN] = "";

	/* Three bytes and a NUL fit in four. */
	ck_assert_int_eq(units_split_pair("abc,def", a, b, sizeof(a), err), 0);
	ck_assert_str_eq(a, "abc");
	ck_assert_str_eq(b, "def");
	ck_assert_int_eq(units_split_pair("abcd", a, b, sizeof(a), err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(units_split_pair("abcd,e", a, b, sizeof(a), err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(units_split_pair("a,bcde", a, b, sizeof(a), err), -1);
	ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(test_label)
{
	ck_assert_pstr_eq(units_label('G'), "GBytes");
	ck_assert_pstr_eq(units_label('M'), "MBytes");
	ck_assert_pstr_eq(units_label('K'), "KBytes");
	ck_assert_pstr_eq(units_label('g'), "10^9bits");
	ck_assert_pstr_eq(units_label('m'), "10^6bits");
	ck_assert_pstr_eq(units_label('k'), "10^3bits");
	ck_assert_pstr_eq(units_label('x'), "Trans");
	ck_assert_ptr_null(units_label('q'));
	ck_assert_ptr_null(units_label('b'));
	ck_assert_ptr_null(units_label('X'));
	ck_assert_ptr_null(units_label('\0'));
}
END_TEST

START_TEST(test_from_bytes)
{
	ck_assert_double_eq_tol(units_from_bytes(1e6, 'm'), 8.0, TOL);
	ck_assert_double_eq_tol(units_from_bytes(1e6, 'M'), 1e6 / 1048576.0,
				TOL);
	ck_assert_double_eq_tol(units_from_bytes(1e6, 'k'), 8000.0, TOL);
	ck_assert_double_eq_tol(units_from_bytes(1e6, 'K'), 1e6 / 1024.0, TOL);
	ck_assert_double_eq_tol(units_from_bytes(1e6, 'g'), 0.008, TOL);
	ck_assert_double_eq_tol(units_from_bytes(1e6, 'G'), 1e6 / 1073741824.0,
				TOL);
	ck_assert_double_eq_tol(units_from_bytes(1e6, 'x'), 1e6, TOL);
	ck_assert_double_eq_tol(units_from_bytes(0.0, 'm'), 0.0, TOL);
	/* netperf's sample line: 2942.15 MB/s is 23537.20 10^6bits/s. */
	ck_assert_double_eq_tol(units_from_bytes(23537.20e6 / 8.0, 'm'),
				23537.20, 1e-9);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *
units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc;

	tc = tcase_create("size");
	tcase_add_loop_test(tc, test_size_good, 0, N(good_sizes));
	tcase_add_loop_test(tc, test_size_bad, 0, N(bad_sizes));
	tcase_add_test(tc, test_size_null);
	tcase_add_test(tc, test_size_max);
	suite_add_tcase(s, tc);

	tc = tcase_create("number");
	tcase_add_test(tc, test_int_good);
	tcase_add_loop_test(tc, test_int_bad, 0, N(bad_ints));
	tcase_add_test(tc, test_int_range_message);
	tcase_add_test(tc, test_double_good);
	tcase_add_loop_test(tc, test_double_bad, 0, N(bad_doubles));
	tcase_add_test(tc, test_double_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("rate");
	tcase_add_loop_test(tc, test_rate_good, 0, N(good_rates));
	tcase_add_loop_test(tc, test_rate_bad, 0, N(bad_rates));
	suite_add_tcase(s, tc);

	tc = tcase_create("pair");
	tcase_add_loop_test(tc, test_split_pair, 0, N(pairs));
	tcase_add_test(tc, test_split_pair_too_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, test_label);
	tcase_add_test(tc, test_from_bytes);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return harness_run(units_suite());
}
