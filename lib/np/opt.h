/*
 * A command line as one table, as neper's define_all_flags: each entry
 * names its letter and/or long name, whether it takes a value, its help
 * line and how it is applied. The getopt string, the long options and the
 * usage text all come from the table, and tests/check_cli.c holds it
 * against the man pages, so that none of them can disagree.
 */
#ifndef NP_OPT_H
#define NP_OPT_H

#include <stddef.h>
#include <stdio.h>

struct opt;

/* The command line being parsed, for the options (netperf's -c and -o)
 * that take the next word only when it looks like their value; getopt's
 * optind says where the parse is. */
struct opt_run {
	int argc;
	char **argv;
};

/* Applies one option with its value (NULL when it has none) to dst;
 * returns 0, or -1 with err set. */
typedef int (*opt_fn)(const struct opt *opt, const char *arg, void *dst,
		      struct opt_run *run, char *err);

enum opt_kind {
	OPT_FLAG,      /* the ints at to (and to2) become 1 */
	OPT_COUNT,     /* the int at to counts the option */
	OPT_SET,       /* the int at to becomes val */
	OPT_INT,       /* ints at to (and to2): a whole number in [min, max];
			  with neither, the value is checked and dropped */
	OPT_INT64,     /* an int64_t at to, a whole number in [min, max] */
	OPT_DOUBLE,    /* a double at to, in [min, max] */
	OPT_SIZE,      /* an int64_t at to: a size up to max, at least min */
	OPT_PAIR,      /* "x[,y]", ints in [min, max], at to and to2; one
			  value sets both, "x," the first, ",y" the second */
	OPT_STRING,    /* a char[len] at to, shorter than len */
	OPT_PATH,      /* a char[len] at to, a file name of 1 to len-1 bytes */
	OPT_FN,	       /* fn applies it */
	OPT_ELSEWHERE, /* parsed before this table is; usage and man only */
	OPT_NOP,       /* accepted and ignored */
};

/* Where a field of the options is: its offset plus one, so that 0 can
 * mean "nowhere". */
#define OPT_AT(type, field) (offsetof(type, field) + 1)

struct opt {
	char letter;	  /* the short option, or 0 */
	const char *name; /* the long option, or NULL */
	int arg; /* no_argument, required_argument, optional_argument */
	const char *meta;    /* the value in the usage: "host[,fam]" */
	const char *help;    /* the usage line; '\n' continues it */
	const char *heading; /* a heading printed above this entry, or NULL */
	enum opt_kind kind;
	size_t to, to2;	 /* OPT_AT(...) of the target fields; 0: none */
	size_t len;	 /* OPT_STRING, OPT_PATH: the size of the buffer */
	double min, max; /* the range of a number, the bounds of a size */
	int val;	 /* OPT_SET's value */
	opt_fn fn;	 /* OPT_FN's handler */
};

struct opt_table {
	const struct opt *opts;
	int n;
	const char *what; /* "option" or "test option", in the errors */
};

/* The most entries a table may have. */
#define OPT_MAX 96

/*
 * Parses argv with getopt_long from argv[1] on, stopping at the first
 * word that is not an option (or after "--"), applying each option to
 * dst. Returns optind, -1 with err set for a bad value, or -2 with err set
 * for a usage error (an unknown option, a missing value).
 */
int opt_parse(const struct opt_table *t, int argc, char **argv, void *dst,
	      char *err);

/* The field at (an OPT_AT) in dst. */
void *opt_field(void *dst, size_t at);

/* The option as errors name it: "-H" or "--streams"; returns buf. */
const char *opt_label(const struct opt *opt, char buf[64]);

/* Writes the table's usage lines to out. */
void opt_usage(FILE *out, const struct opt_table *t);

#endif
