/*
 * Shell completion: the script "netperf --completion bash" writes, loaded
 * into a real bash, registered with complete(1) and driven the way bash's
 * completion machinery drives it, word by word.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static char script[64] = "";
static char dir[64] = "";

/* Writes the script once, and a directory with two files to complete. */
static void
complete_setup(void)
{
	char *out = NULL, err[512], path[128];
	const char *argv[] = {NP_NETPERF, "--completion", "bash", NULL};
	int fd;

	snprintf(script, sizeof(script), "/tmp/np-complete-XXXXXX");
	fd = mkstemp(script);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(harness_exec_capture(argv, 10, &out, err, sizeof(err)),
			 0);
	ck_assert_int_eq(write(fd, out, strlen(out)), (ssize_t)strlen(out));
	close(fd);
	free(out);
	snprintf(dir, sizeof(dir), "/tmp/np-complete-dir-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/first.json", dir);
	harness_write_file(path, "{}", 2, 0600);
	snprintf(path, sizeof(path), "%s/fish.svg", dir);
	harness_write_file(path, "", 0, 0600);
}

static void
complete_teardown(void)
{
	char path[128];

	unlink(script);
	snprintf(path, sizeof(path), "%s/first.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fish.svg", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * What bash offers for line, completed at its end: the script is sourced,
 * the function that "complete -p" names for the command is called with
 * COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set as readline sets
 * them, and COMPREPLY comes back as its count and its words, each ended by
 * a '|'.
 */
static char *
offers(const char *line)
{
	static const char drive[] =
	    "set -u; source \"$1\"; line=$2\n"
	    "read -ra COMP_WORDS <<<\"$line\"\n"
	    "[[ $line == *' ' ]] && COMP_WORDS+=('')\n"
	    "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
	    "COMP_LINE=$line; COMP_POINT=${#line}\n"
	    "spec=$(complete -p \"${COMP_WORDS[0]}\") || exit 3\n"
	    "fn=${spec#*-F }; fn=${fn%% *}\n"
	    "COMPREPLY=()\n"
	    "\"$fn\" \"${COMP_WORDS[0]}\" \"${COMP_WORDS[COMP_CWORD]}\" "
	    "\"${COMP_WORDS[COMP_CWORD - 1]}\"\n"
	    "printf '%d|' ${#COMPREPLY[@]}; printf '%s|' \"${COMPREPLY[@]}\"; echo\n";
	const char *argv[] = {"bash", "--norc", "--noprofile", "-c", drive,
			      "drive", script, line, NULL};
	char *out = NULL, err[512];
	int rc = harness_exec_capture(argv, 10, &out, err, sizeof(err));

	ck_assert_msg(rc == 0, "bash exited %d on \"%s\": %s", rc, line, err);
	ck_assert_msg(err[0] == '\0', "bash said \"%s\" on \"%s\"", err, line);
	return out;
}

/* Whether the reply holds the word w. */
static int
offered(const char *reply, const char *w)
{
	char needle[256];

	snprintf(needle, sizeof(needle), "|%s|", w);
	/* The count comes first, so every word has a '|' before it. */
	return strstr(reply, needle) != NULL;
}

struct offer_case {
	const char *line;
	const char *yes[4]; /* words that must be offered */
	const char *no[3];  /* words that must not */
	int count;	    /* the number of words offered, or -1 */
};

/* Each context that the issue names: test names, global options, test
 * options after "--", selectors after -o/-O/-k (the last item of a list),
 * files after --plot, --compare and --merge, and netserver's options. */
static const struct offer_case cases[] = {
    {"netperf -t UDP_", {"UDP_STREAM", "UDP_RR", "UDP_CRR"}, {"TCP_RR"}, 3},
        {"netperf -t ", {"TCP_STREAM", "OMNI", "LOC_CPU"}, {"-H"}, -1},
    {"netperf --str", {"--streams"}, {"-m"}, 1},
    {"netperf --js", {"--json", "--json-stream"}, {NULL}, 2},
    {"netperf -H host -", {"-t", "-l", "--", "--compare"}, {"-m", "-M"}, -1},
    {"netperf -t TCP_RR -- -", {"-r", "-m", "-k", "-P"}, {"--streams", "--json"},
     -1},
    {"netperf -t TCP_RR -- -k THROUGHPUT,P99_",
     {"THROUGHPUT,P99_LATENCY"},
     {"P99_LATENCY"},
     1},
    {"netperf -t TCP_RR -- -o MIN_LAT", {"MIN_LATENCY"}, {NULL}, 1},
    {"netperf -t TCP_RR -- -O -", {"-r", "-m"}, {"THROUGHPUT"}, -1},
    {"netperf -v ", {"0", "1", "2"}, {NULL}, 3},
    {"netperf -H ", {NULL}, {"TCP_RR"}, 0},
    {"netserver --max-se", {"--max-sessions", "--max-session-memory",
			    "--max-session-time"}, {"--max-streams"}, 3},
    {"netserver -u ro", {"root"}, {NULL}, -1},
    {"netserver -p ", {NULL}, {"--log"}, 0},
};

START_TEST(test_contexts)
{
	const struct offer_case *c = &cases[_i];
	char *reply = offers(c->line);
	int n = 0;

	for (int k = 0; k < N(c->yes) && c->yes[k] != NULL; k++)
		ck_assert_msg(offered(reply, c->yes[k]),
			      "\"%s\" does not offer %s: %s", c->line,
			      c->yes[k], reply);
	for (int k = 0; k < N(c->no) && c->no[k] != NULL; k++)
		ck_assert_msg(!offered(reply, c->no[k]),
			      "\"%s\" offers %s: %s", c->line, c->no[k],
			      reply);
	n = atoi(reply);
	if (c->count >= 0)
		ck_assert_msg(n == c->count, "\"%s\" offers %d, not %d: %s",
			      c->line, n, c->count, reply);
	free(reply);
}
END_TEST

/* Files where the option takes one, and nothing else there. */
START_TEST(test_files)
{
	char line[256], want[128], *reply;
	const char *heads[] = {"netperf --plot", "netperf --compare X.json",
			       "netperf --merge X.json", "netserver --log"};

	snprintf(line, sizeof(line), "%s %s/fi", heads[_i], dir);
	reply = offers(line);
	snprintf(want, sizeof(want), "%s/first.json", dir);
	ck_assert_msg(offered(reply, want), "\"%s\": %s", line, reply);
	snprintf(want, sizeof(want), "%s/fish.svg", dir);
	ck_assert_msg(offered(reply, want), "\"%s\": %s", line, reply);
	free(reply);
}
END_TEST

/* Every option netperf -h lists completes: the script and the usage text
 * come from one table, and this holds them together. */
START_TEST(test_every_option)
{
	const char *argv[] = {NP_NETPERF, "-h", NULL};
	char *usage = NULL, *reply = offers("netperf -"), err[512];
	int words = 0;

	harness_exec_capture(argv, 10, &usage, err, sizeof(err));
	ck_assert_ptr_nonnull(usage);
	/* The global options are the lines before "Test options". */
	char *end = strstr(usage, "\nTest options");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	for (char *l = strtok(usage, "\n"); l != NULL; l = strtok(NULL, "\n")) {
		char w[64];

		/* "  -H host[,fam]" or "  --streams n", or "  -V, --version". */
		if (sscanf(l, "  %63[-a-zA-Z0-9]", w) != 1 || w[0] != '-')
			continue;
		ck_assert_msg(offered(reply, w), "%s is not offered: %s", w,
			      reply);
		words++;
	}
	ck_assert_int_gt(words, 60);
	free(usage);
	free(reply);
}
END_TEST

/* A shell it does not know, or extra words: one line, status 2. */
START_TEST(test_bad_shell)
{
	const char *a1[] = {NP_NETPERF, "--completion", "fish", NULL};
	const char *a2[] = {NP_NETPERF, "--completion", "bash", "-t", NULL};
	char *out = NULL, err[512];

	ck_assert_int_eq(harness_exec_capture(a1, 10, &out, err, sizeof(err)),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "\"fish\" is not bash"));
	ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
	free(out);
	ck_assert_int_eq(harness_exec_capture(a2, 10, &out, err, sizeof(err)),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "--completion takes a shell"));
	free(out);
}
END_TEST

static Suite *
complete_suite(void)
{
	Suite *s = suite_create("complete");
	TCase *tc = tcase_create("bash");

	tcase_add_unchecked_fixture(tc, complete_setup, complete_teardown);
	tcase_add_loop_test(tc, test_contexts, 0, N(cases));
	tcase_add_loop_test(tc, test_files, 0, 4);
	tcase_add_test(tc, test_every_option);
	tcase_add_test(tc, test_bad_shell);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(complete_suite());
}
