/*
 * netperf's omni output selectors over a result: -o CSV, -O columns,
 * -k KEY=value, and the interim lines of -D in those forms.
 */
#ifndef NP_SELECT_H
#define NP_SELECT_H

#include <stdio.h>

#include "np/result.h"

/* The largest number of selectors one list may name. */
#define SELECT_MAX_FIELDS 512

/* A parsed selector list; block[] starts a new -O block (after ';'). */
struct select_list {
	int n;
	int field[SELECT_MAX_FIELDS]; /* indexes into the selector table */
	unsigned char block[SELECT_MAX_FIELDS];
};

/*
 * Parses a selector argument as netperf does: a ','/';' separated list of
 * names, "all", or the path of a file holding such a list (up to four
 * lines). An unknown name is an error naming it, never a blank column.
 * Returns 0, or -1 with err set. "?" is handled by select_list_names.
 */
int select_parse(const char *arg, struct select_list *l, char *err);

/* Prints every selector name, one a line, as netperf's -O '?' does. */
void select_list_names(FILE *out);

/* Prints every selector name on one line, joined by commas and ended by
 * OUTPUT_END, as netperf's -o '?' and -k '?' do. */
void select_list_names_line(FILE *out);

/* The list netperf 2.7 prints when -o/-O/-k is given no argument. */
void select_default_list(const struct result *res, struct select_list *l);

/* -o: one CSV header row (unless headers is 0) and one row of values. */
void select_csv(FILE *out, const struct result *res,
		const struct select_list *l, int headers);

/* -O: columns with netperf's multi-line titles, one block per ';'. */
void select_columns(FILE *out, const struct result *res,
		    const struct select_list *l, int headers);

/* -k: KEY=value, one a line. */
void select_keyval(FILE *out, const struct result *res,
		   const struct select_list *l);

/* Interim lines in netperf's three forms: legacy/-O ("Interim result:
 * ..."), -o CSV, and -k indexed (NETPERF_INTERIM_RESULT[n] ...). mode is
 * 'l', 'o' or 'k'; n is the interval's index. */
void select_interim(FILE *out, const struct result *res,
		    const struct result_interim *iv, int n, char mode);

/* -D with --interim-tcp: the interval's TCP_INFO under netperf's
 * "Interim result:" line, a line for each side that has it ("Interim
 * TCP", then "Interim remote TCP"); prints nothing for a side without. */
void select_interim_tcp(FILE *out, const struct result_interim *iv);

#endif
