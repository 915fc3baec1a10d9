/*
 * netperf --compare OLD NEW: two sets of results, figure by figure, in the
 * manner of Go's benchstat. Each side's samples are every run's figures
 * (a run with -i keeps each iteration); each figure gets its mean and 95 %
 * interval per side, the change, and a Mann-Whitney U p-value, which needs
 * no assumption of normality. Below the figures, every platform-record,
 * placement and request field that differs between the two sides.
 */
#ifndef NP_COMPARE_H
#define NP_COMPARE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "np/err.h"

/* The figures compared, in table order. */
enum compare_fig {
	COMPARE_THROUGHPUT,
	COMPARE_LOCAL_CPU,
	COMPARE_REMOTE_CPU,
	COMPARE_LOCAL_SD,
	COMPARE_REMOTE_SD,
	COMPARE_P50,
	COMPARE_P99,
	COMPARE_P999,
	COMPARE_LOSS,
	COMPARE_NFIG
};

/* The most bytes of result files one side may hold, all files
 * together; past it --compare refuses the side. */
#define COMPARE_MAX_SIDE ((uint64_t)256 << 20)

/* The samples of one side, from one or more result documents. Each
 * document gives its figures and settings and is freed at once: a side
 * never holds the documents' trees. */
struct compare_side {
	char label[8];	   /* "OLD" or "NEW" */
	char test[32];	   /* of the first document */
	char units[32];	   /* throughput units */
	char sd_units[16]; /* service demand units */
	int ndocs;
	json_t *settings; /* field -> {value: true...}, the values seen */
	uint64_t bytes;	  /* of the files read */
	int n[COMPARE_NFIG], cap[COMPARE_NFIG];
	double *v[COMPARE_NFIG]; /* n[f] measured values of figure f */
};

/* What the command line asked for. */
struct compare_opts {
	const char *old_path, *new_path;
	double alpha;	  /* significance level, 0.05 */
	int force;	  /* compare different tests or units anyway */
	int json;	  /* --json instead of the table */
	const char *plot; /* --plot FILE, or NULL */
};

/* One figure's comparison. */
struct compare_row {
	enum compare_fig fig;
	char name[24]; /* "throughput", "local SD"... */
	char units[32];
	int n_old, n_new;
	double mean_old, mean_new;
	double ci_old, ci_new; /* 95 % half widths; NAN below 2 samples */
	double change_pct;     /* (new - old) / old, NAN when old is 0 */
	double p;	       /* Mann-Whitney U, two-sided */
	int exact;	       /* p from the exact distribution */
	double welch_p;	       /* Welch's t-test, NAN below 2 samples */
	int significant;       /* p < alpha */
};

#define COMPARE_MAX_WARN 8

struct compare_report {
	char test[32];
	double alpha;
	int ndocs_old, ndocs_new;
	int nrows;
	struct compare_row row[COMPARE_NFIG];
	int nwarn;
	char warn[COMPARE_MAX_WARN][200];
	json_t *diffs; /* [{field, old: [...], new: [...]}] */
};

/* True when argv asks for --compare (anywhere on the line). */
int compare_wanted(int argc, char **argv);

/* Parses "--compare OLD NEW [--alpha A] [--force] [--json] [--plot F]";
 * returns 0, or -1 with err set. */
int compare_opts_parse(int argc, char **argv, struct compare_opts *o,
		       char *err);

/*
 * Reads the result documents of text[0..len-1]: one JSON document or
 * several, one after another or one a line (JSON lines; interim lines
 * are skipped). Appends each netperf-result document to docs. Returns
 * how many it added, or -1 with err set (not JSON, a sweep document).
 */
int compare_parse_text(const char *text, size_t len, const char *name,
		       json_t *docs, char *err);

/* An empty side labelled label ("OLD"/"NEW"); returns 0, or -1 without
 * memory. */
int compare_side_begin(struct compare_side *s, const char *label);

/* Adds the result documents of text[0..len-1] (as compare_parse_text
 * reads them, from the file name) to s, each freed once taken; returns
 * how many, or -1 with err set (not JSON, a sweep, another test or
 * units than the side's, a figure that is negative or not finite). */
int compare_side_add_text(struct compare_side *s, const char *text, size_t len,
			  const char *name, char *err);

/* Loads OLD or NEW from a file or a directory of *.json / *.jsonl files
 * into s (label "OLD"/"NEW"); returns 0, or -1 with err set and s empty. */
int compare_load(const char *path, const char *label, struct compare_side *s,
		 char *err);

/* Fills s from documents already parsed; returns 0, or -1 with err set
 * (none, mixed tests or units within the side). */
int compare_side_from_docs(json_t *docs, const char *label,
			   struct compare_side *s, char *err);

/* Releases a side. */
void compare_side_free(struct compare_side *s);

/*
 * Compares old against new at level alpha. Different tests or units are
 * an error unless force. Returns 0 with r filled (free with
 * compare_report_free), or -1 with err set.
 */
int compare_run(const struct compare_side *old, const struct compare_side *nw,
		double alpha, int force, struct compare_report *r, char *err);

/* Prints the benchstat-like table, the warnings and the differences. */
void compare_print(FILE *out, const struct compare_report *r);

/* The report as a JSON document (schema netperf-compare); NULL only
 * without memory. */
json_t *compare_json(const struct compare_report *r);

/* Writes the gnuplot commands compare_plot draws with, data inline and
 * every text from the files a quoted literal (escape_gnuplot). */
void compare_plot_script(FILE *f, const struct compare_report *r);

/* Draws each figure's two means with their intervals into path (.svg
 * or .png) with gnuplot; returns 0, 1 without gnuplot, or -1 with err. */
int compare_plot(const char *path, const struct compare_report *r, char *err);

/* Releases what a report holds. */
void compare_report_free(struct compare_report *r);

#endif
