/* Tests for lib/escape: peer text made printable, bounded and unforgeable. */
#include "harness.h"

#include <string.h>

#include "np/escape.h"
#include "plot_lint.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

struct esc_case {
	const char *in;
	size_t len;
	const char *want;
};

static const struct esc_case cases[] = {
    {"hello", 5, "hello"},
    {"", 0, ""},
    {"a\nFORGED line", 13, "a\\nFORGED line"},
    {"\x1b]0;title\x07", 10, "\\x1b]0;title\\x07"},
    {"tab\there\r", 9, "tab\\there\\r"},
    {"back\\slash", 10, "back\\\\slash"},
    {"nul\0byte", 8, "nul\\x00byte"},
    {"\x7f\x80\xff", 3, "\\x7f\\x80\\xff"},
    {"~ !\"", 4, "~ !\""},
};

START_TEST(test_escape_cases)
{
	const struct esc_case *c = &cases[_i];
	char out[ESCAPE_LEN];

	ck_assert_ptr_eq(escape_peer(out, sizeof(out), c->in, c->len), out);
	ck_assert_str_eq(out, c->want);
}
END_TEST

/* Every byte value, escaped, leaves only printable ASCII and decodes back
 * to what came in: the escape is unambiguous. */
START_TEST(test_escape_every_byte)
{
	char in[256], out[ESCAPE_LEN * 8], back[256];
	size_t i, j = 0, n = 0;
	unsigned int v;

	for (i = 0; i < 40; i++)
		in[i] = (char)(i * 7 + 1);
	for (int start = 0; start < 256; start += 40) {
		n = 0;
		for (i = 0; i < 40 && start + (int)i < 256; i++)
			in[n++] = (char)(start + (int)i);
		escape_peer(out, sizeof(out), in, n);
		ck_assert_msg(strstr(out, "...") == NULL || n * 4 > ESCAPE_MAX,
			      "cut early: %s", out);
		for (i = 0; out[i] != '\0'; i++)
			ck_assert_msg(out[i] >= 0x20 && out[i] < 0x7f,
				      "byte 0x%02x left raw",
				      (unsigned char)out[i]);
		/* Decode it again. */
		j = 0;
		for (i = 0; out[i] != '\0';) {
			if (out[i] != '\\') {
				back[j++] = out[i++];
				continue;
			}
			switch (out[i + 1]) {
			case 'n':
				back[j++] = '\n';
				i += 2;
				break;
			case 'r':
				back[j++] = '\r';
				i += 2;
				break;
			case 't':
				back[j++] = '\t';
				i += 2;
				break;
			case '\\':
				back[j++] = '\\';
				i += 2;
				break;
			case 'x':
				ck_assert(sscanf(out + i + 2, "%2x", &v) == 1);
				back[j++] = (char)v;
				i += 4;
				break;
			default:
				ck_abort_msg("bad escape in %s", out);
			}
		}
		ck_assert_uint_eq(j, n);
		ck_assert(memcmp(back, in, n) == 0);
	}
}
END_TEST

/* A long string is cut at ESCAPE_MAX characters, marked, and an escape is
 * never split. */
START_TEST(test_escape_cap)
{
	char in[1000], out[1000];
	size_t len;

	memset(in, 'A', sizeof(in));
	escape_peer(out, sizeof(out), in, sizeof(in));
	len = strlen(out);
	ck_assert_uint_eq(len, ESCAPE_MAX);
	ck_assert_str_eq(out + len - 3, "...");

	memset(in, '\n', sizeof(in));
	escape_peer(out, sizeof(out), in, sizeof(in));
	len = strlen(out);
	ck_assert_uint_le(len, ESCAPE_MAX);
	ck_assert_str_eq(out + len - 3, "...");
	/* Whole "\n" pairs only before the mark. */
	ck_assert_uint_eq((len - 3) % 2, 0);
	ck_assert_int_eq(out[len - 4], 'n');

	memset(in, 0x1b, sizeof(in));
	escape_peer(out, sizeof(out), in, sizeof(in));
	len = strlen(out);
	ck_assert_uint_eq((len - 3) % 4, 0);
	ck_assert_str_eq(out + len - 3, "...");

	/* Exactly ESCAPE_MAX characters fit uncut. */
	memset(in, 'B', ESCAPE_MAX);
	escape_peer(out, sizeof(out), in, ESCAPE_MAX);
	ck_assert_uint_eq(strlen(out), ESCAPE_MAX);
	ck_assert_ptr_null(strstr(out, "..."));
}
END_TEST

/* A small destination bounds the output too, NUL included. */
START_TEST(test_escape_small_cap)
{
	char out[16];

	memset(out, 'Z', sizeof(out));
	escape_peer(out, 8, "abcdefghijkl", 12);
	ck_assert_str_eq(out, "abcd...");
	ck_assert_int_eq(out[8], 'Z');
	escape_peer(out, 8, "\n\n\n\n", 4);
	ck_assert_str_eq(out, "\\n\\n...");
	escape_peer(out, 3, "abcdef", 6);
	ck_assert_str_eq(out, "..");
	escape_peer(out, 1, "abc", 3);
	ck_assert_str_eq(out, "");
	escape_peer(out, 8, "abcdefg", 7);
	ck_assert_str_eq(out, "abcdefg");
}
END_TEST

START_TEST(test_escape_str_and_line)
{
	char out[ESCAPE_LEN];
	char line[] = "ok \x1b[2J\nnext\x7f\xc3\xa9";

	ck_assert_str_eq(escape_str(out, sizeof(out), NULL), "");
	ck_assert_str_eq(escape_str(out, sizeof(out), "a\nb"), "a\\nb");
	ck_assert_str_eq(escape_line(line), "ok ?[2J?next???");
}
END_TEST

/* Text for a gnuplot script: one single-quoted literal that keeps every
 * quote, newline and backquote inside it. */
START_TEST(test_escape_gnuplot)
{
	static const struct {
		const char *in, *want;
	} g[] = {
	    {"throughput", "'throughput'"},
	    {"", "''"},
	    {NULL, "''"},
	    {"it's", "'it''s'"},
	    {"x';system('id>pwn');#", "'x'';system(''id>pwn'');#'"},
	    {"'", "''''"},
	    {"a`id`b", "'a\\x60id\\x60b'"},
	    {"l1\nl2 \x1b[2J\x07", "'l1\\nl2 \\x1b[2J\\x07'"},
	    {"back\\slash @x", "'back\\\\slash @x'"},
	};
	char out[ESCAPE_GNUPLOT_LEN], script[ESCAPE_GNUPLOT_LEN + 16];
	char why[64];

	for (int i = 0; i < N(g); i++) {
		ck_assert_str_eq(escape_gnuplot(out, sizeof(out), g[i].in),
				 g[i].want);
		snprintf(script, sizeof(script), "set title %s\n", out);
		ck_assert_msg(plot_lint(script, NULL, 0, why, sizeof(why)) ==
				  NULL,
			      "%s: %s", script, why);
	}
}
END_TEST

/* A long text is cut inside the quotes, never between the two quotes of
 * a doubled one, and a small buffer still gets a whole literal. */
START_TEST(test_escape_gnuplot_cap)
{
	char in[1000], out[ESCAPE_GNUPLOT_LEN], script[ESCAPE_GNUPLOT_LEN + 8];
	char why[64];
	size_t len;

	for (int odd = 0; odd < 2; odd++) {
		memset(in, '\'', sizeof(in));
		in[0] = odd ? 'a' : '\'';
		in[sizeof(in) - 1] = '\0';
		escape_gnuplot(out, sizeof(out), in);
		len = strlen(out);
		ck_assert_uint_le(len, ESCAPE_MAX + 2);
		ck_assert_str_eq(out + len - 4, "...'");
		snprintf(script, sizeof(script), "%s\n", out);
		ck_assert_msg(plot_lint(script, NULL, 0, why, sizeof(why)) ==
				  NULL,
			      "%s: %s", out, why);
	}
	memset(in, 'q', sizeof(in));
	in[sizeof(in) - 1] = '\0';
	ck_assert_str_eq(escape_gnuplot(out, 8, in), "'qq...'");
	ck_assert_str_eq(escape_gnuplot(out, 3, in), "''");
	ck_assert_str_eq(escape_gnuplot(out, 6, "'''"), "'...'");
	ck_assert_str_eq(escape_gnuplot(out, 7, "''"), "''''''");
}
END_TEST

static Suite *
escape_suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("escape");

	tcase_add_loop_test(tc, test_escape_cases, 0, N(cases));
	tcase_add_test(tc, test_escape_every_byte);
	tcase_add_test(tc, test_escape_cap);
	tcase_add_test(tc, test_escape_small_cap);
	tcase_add_test(tc, test_escape_str_and_line);
	tcase_add_test(tc, test_escape_gnuplot);
	tcase_add_test(tc, test_escape_gnuplot_cap);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(escape_suite());
}
