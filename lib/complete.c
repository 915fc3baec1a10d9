#include "np/complete.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "np/cli.h"
#include "np/err.h"
#include "np/module.h"
#include "np/select.h"

/* What the word after an option is, as the shell can offer it. */
enum complete_value {
	VALUE_NONE,	 /* the option takes no value */
	VALUE_FREE,	 /* a number, a host, a size: nothing to offer */
	VALUE_FILE,	 /* a file name */
	VALUE_TEST,	 /* a test name */
	VALUE_SELECTORS, /* a comma-separated list of output selectors */
	VALUE_USER,	 /* a user name */
	VALUE_CHOICE,	 /* one of the words of the option's meta, a|b|c */
};

/* The tests -t knows beyond the table of modules: OMNI picks a module from
 * its test options, and LOC_CPU prints a rate and runs nothing. */
static const char *const pseudo_tests[] = {"OMNI", "LOC_CPU"};

/* A meta of words joined by '|' and nothing else ("0|1|2"). */
static int
is_choice(const char *meta)
{
	if (meta == NULL || strchr(meta, '|') == NULL)
		return 0;
	for (const char *p = meta; *p; p++)
		if (strchr("|abcdefghijklmnopqrstuvwxyz"
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-",
			   *p) == NULL)
			return 0;
	return 1;
}

/* The kind of value o takes, judged from its table entry alone. */
static enum complete_value
value_of(const struct opt *o)
{
	const char *meta = o->meta != NULL ? o->meta : "";

	/* -o, -O and -k take the next word when it looks like a list. */
	if (strcmp(meta, "[list]") == 0)
		return VALUE_SELECTORS;
	if (o->arg == no_argument)
		return VALUE_NONE;
	if (o->kind == OPT_PATH || strstr(meta, "FILE") != NULL ||
	    strstr(meta, "file") != NULL || strcmp(meta, "OLD NEW") == 0)
		return VALUE_FILE;
	if (strcmp(meta, "test") == 0)
		return VALUE_TEST;
	if (strcmp(meta, "USER") == 0)
		return VALUE_USER;
	if (is_choice(meta))
		return VALUE_CHOICE;
	return VALUE_FREE;
}

/* The spellings of o, "-x|--name", as a case pattern; returns buf. */
static const char *
spellings(const struct opt *o, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", o->letter ? "-" : "",
		 o->letter ? (char[]){o->letter, '\0'} : "",
		 o->letter && o->name ? "|" : "", o->name ? "--" : "",
		 o->name ? o->name : "");
	return buf;
}

/* A shell variable holding every spelling of the table's options. */
static void
option_words(FILE *out, const char *var, const struct opt_table *t,
	     const char *extra)
{
	fprintf(out, "%s='%s", var, extra);
	for (int i = 0; i < t->n; i++) {
		const struct opt *o = &t->opts[i];

		if (o->letter)
			fprintf(out, " -%c", o->letter);
		if (o->name)
			fprintf(out, " --%s", o->name);
	}
	fputs("'\n", out);
}

/* The case arms that complete the word after each option taking a value:
 * one arm per kind, joined, and one per choice option. */
static void
value_arms(FILE *out, const struct opt_table *t, const char *indent)
{
	static const struct {
		enum complete_value v;
		const char *action;
	} kinds[] = {
	    {VALUE_FILE, "_np_files \"$cur\"; return"},
	    {VALUE_TEST, "_np_words \"$_netperf_tests\" \"$cur\"; return"},
	    {VALUE_USER, "_np_users \"$cur\"; return"},
	    /* The list is optional: a word that starts with '-' is the
	     * next option. */
	    {VALUE_SELECTORS, "if [[ $cur != -* ]]; then _np_list "
			      "\"$_netperf_selectors\" \"$cur\"; return; fi"},
	    {VALUE_FREE, "return"},
	};
	char pat[128];

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		int n = 0;

		for (int i = 0; i < t->n; i++) {
			if (value_of(&t->opts[i]) != kinds[k].v)
				continue;
			fprintf(out, "%s%s", n++ ? "|" : indent,
				spellings(&t->opts[i], pat, sizeof(pat)));
		}
		if (n > 0)
			fprintf(out, ")\n%s\t%s ;;\n", indent, kinds[k].action);
	}
	for (int i = 0; i < t->n; i++) {
		const struct opt *o = &t->opts[i];
		char words[128];

		if (value_of(o) != VALUE_CHOICE)
			continue;
		snprintf(words, sizeof(words), "%s", o->meta);
		for (char *p = words; *p; p++)
			if (*p == '|')
				*p = ' ';
		fprintf(out, "%s%s)\n%s\t_np_words '%s' \"$cur\"; return ;;\n",
			indent, spellings(o, pat, sizeof(pat)), indent, words);
	}
}

/* The test names, from the module table. */
static void
test_words(FILE *out)
{
	fputs("_netperf_tests='", out);
	for (const struct test_module *m = module_table; m->name != NULL; m++)
		fprintf(out, "%s%s", m == module_table ? "" : " ", m->name);
	for (size_t i = 0; i < sizeof(pseudo_tests) / sizeof(pseudo_tests[0]);
	     i++)
		fprintf(out, " %s", pseudo_tests[i]);
	fputs("'\n", out);
}

/* The selector names, one a line from select.c, as one word list. */
static int
selector_words(FILE *out, char *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (mem == NULL)
		return err_set(err, "--completion: out of memory");
	select_list_names(mem);
	if (fclose(mem) != 0) {
		free(buf);
		return err_set(err, "--completion: out of memory");
	}
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fprintf(out, "_netperf_selectors='%s'\n", buf);
	free(buf);
	return 0;
}

/* The shell functions themselves; the word lists are above them. */
static const char helpers[] =
    "\n"
    "_np_words()\n"
    "{\n"
    "\tlocal IFS=$' \\t\\n'\n"
    "\tCOMPREPLY=($(compgen -W \"$1\" -- \"$2\"))\n"
    "}\n"
    "\n"
    "# A comma-separated list: its last item is the one completed.\n"
    "_np_list()\n"
    "{\n"
    "\tlocal IFS=$' \\t\\n' pre= last=$2\n"
    "\tcase $2 in *,*) pre=${2%,*},; last=${2##*,} ;; esac\n"
    "\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$1\" -- \"$last\"))\n"
    "\tcompopt -o nospace 2>/dev/null\n"
    "}\n"
    "\n"
    "_np_files()\n"
    "{\n"
    "\tlocal IFS=$'\\n'\n"
    "\tCOMPREPLY=($(compgen -f -- \"$1\"))\n"
    "\tcompopt -o filenames 2>/dev/null\n"
    "}\n"
    "\n"
    "_np_users()\n"
    "{\n"
    "\tlocal IFS=$'\\n'\n"
    "\tCOMPREPLY=($(compgen -u -- \"$1\"))\n"
    "}\n"
    "\n"
    "# The word before the one completed, past a '=' that bash splits "
    "off.\n"
    "_np_prev()\n"
    "{\n"
    "\tprev=\n"
    "\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "\tif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
    "\t\tprev=${COMP_WORDS[COMP_CWORD - 2]}\n"
    "\tfi\n"
    "\t[[ $cur == = ]] && cur=\n"
    "}\n";

int
complete_script(FILE *out, const char *shell, char *err)
{
	/* zsh's bashcompinit indexes COMP_WORDS from 1, which this script
	 * does not expect: bash only, until zsh has a script of its own. */
	if (strcmp(shell, "bash") != 0)
		return err_set(err, "--completion: \"%s\" is not bash",
			       shell);
	fputs("# Completion for netperf(1) and netserver(8), written by\n"
	      "# \"netperf --completion\" from the option tables that make "
	      "their usage.\n",
	      out);
	test_words(out);
	if (selector_words(out, err) < 0)
		return -1;
	option_words(out, "_netperf_global", &cli_netperf_options, "--");
	option_words(out, "_netperf_test", &cli_test_options, "");
	option_words(out, "_netserver_opts", &cli_netserver_options, "");
	fputs(helpers, out);

	fputs("\n"
	      "_netperf()\n"
	      "{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev i part=global "
	      "files=\n"
	      "\t_np_prev\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t--) part=test ;;\n"
	      "\t\t--compare | --merge) [[ $part == global ]] && files=1 "
	      ";;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tif [[ $part == global ]]; then\n"
	      "\t\tcase $prev in\n",
	      out);
	value_arms(out, &cli_netperf_options, "\t\t");
	fputs("\t\tesac\n"
	      "\t\tif [[ $cur == -* ]]; then\n"
	      "\t\t\t_np_words \"$_netperf_global\" \"$cur\"\n"
	      "\t\t\treturn\n"
	      "\t\tfi\n"
	      "\telse\n"
	      "\t\tcase $prev in\n",
	      out);
	value_arms(out, &cli_test_options, "\t\t");
	fputs("\t\tesac\n"
	      "\t\tif [[ $cur == -* ]]; then\n"
	      "\t\t\t_np_words \"$_netperf_test\" \"$cur\"\n"
	      "\t\t\treturn\n"
	      "\t\tfi\n"
	      "\tfi\n"
	      "\t# --compare OLD NEW and --merge FILE... take files (or\n"
	      "\t# directories) as plain words.\n"
	      "\t[[ -n $files ]] && _np_files \"$cur\"\n"
	      "\treturn 0\n"
	      "}\n"
	      "\n"
	      "_netserver()\n"
	      "{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev\n"
	      "\t_np_prev\n"
	      "\tcase $prev in\n",
	      out);
	value_arms(out, &cli_netserver_options, "\t");
	fputs("\tesac\n"
	      "\t[[ $cur == -* ]] && _np_words \"$_netserver_opts\" \"$cur\"\n"
	      "\treturn 0\n"
	      "}\n"
	      "\n"
	      "complete -F _netperf netperf\n"
	      "complete -F _netserver netserver\n",
	      out);
	return ferror(out) ? err_set(err, "--completion: cannot write") : 0;
}
