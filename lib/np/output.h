/*
 * Structured output: netperf's omni output selectors (-o CSV, -O columns,
 * -k KEY=value) over a result, and one JSON document (--json, -J).
 */
#ifndef NP_OUTPUT_H
#define NP_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "np/result.h"

/* The largest number of selectors one list may name. */
#define OUTPUT_MAX_FIELDS 512

/* A parsed selector list; block[] starts a new -O block (after ';'). */
struct output_list {
	int n;
	int field[OUTPUT_MAX_FIELDS]; /* indexes into the selector table */
	unsigned char block[OUTPUT_MAX_FIELDS];
};

/*
 * Parses a selector argument as netperf does: a ','/';' separated list of
 * names, "all", or the path of a file holding such a list (up to four
 * lines). An unknown name is an error naming it, never a blank column.
 * Returns 0, or -1 with err set. "?" is handled by output_list_names.
 */
int output_parse(const char *arg, struct output_list *l, char *err);

/* Prints every selector name, one a line, as netperf's -O '?' does. */
void output_list_names(FILE *out);

/* Prints every selector name on one line, joined by commas and ended by
 * OUTPUT_END, as netperf's -o '?' and -k '?' do. */
void output_list_names_line(FILE *out);

/* The list netperf 2.7 prints when -o/-O/-k is given no argument. */
void output_default_list(const struct result *res, struct output_list *l);

/* -o: one CSV header row (unless headers is 0) and one row of values. */
void output_csv(FILE *out, const struct result *res,
		const struct output_list *l, int headers);

/* -O: columns with netperf's multi-line titles, one block per ';'. */
void output_columns(FILE *out, const struct result *res,
		    const struct output_list *l, int headers);

/* -k: KEY=value, one a line. */
void output_keyval(FILE *out, const struct result *res,
		   const struct output_list *l);

/* --json: the whole result as one JSON document, schema in doc/output.md;
 * compact puts it on one line (--json-stream). Returns 0, or -1 when out
 * of memory or the document could not be written. */
int output_json(FILE *out, const struct result *res, int compact);

/* The JSON document of a result, to embed in a larger one (a sweep);
 * NULL when out of memory. */
json_t *output_json_doc(const struct result *res);

/* The name of the histogram's bucket scheme in latency_us.exact: an
 * exact merge refuses to add buckets of different schemes. */
#define OUTPUT_HIST_SCHEME "log-linear"

/* A histogram as self-describing buckets: scheme, sub_buckets, unit
 * ("ns"), count, min, max, sum, sumsq (32 hex digits) and buckets
 * [[lo, hi, count]...] for lo <= t < hi; NULL when out of memory. */
json_t *output_hist_exact(const struct stats_hist *h);

/* --json when the run failed: a document with the test, the server as
 * given and the reason in "errors", so a fleet's merge can count and
 * name the failure; returns 0, or -1. */
int output_json_error(FILE *out, const char *test, const char *host,
		      const char *why, int compact);

/* Writes a JSON value as output_json does; returns 0, or -1. */
int output_json_write(FILE *out, json_t *doc, int compact);

/* --json-stream: one JSON line for one interim result. */
void output_json_interim(FILE *out, const struct result *res,
			 const struct result_interim *iv);

/* Interim lines in netperf's three forms: legacy/-O ("Interim result:
 * ..."), -o CSV, and -k indexed (NETPERF_INTERIM_RESULT[n] ...). mode is
 * 'l', 'o' or 'k'; n is the interval's index. */
void output_interim(FILE *out, const struct result *res,
		    const struct result_interim *iv, int n, char mode);

/* -D at -v 2: the interval's TCP_INFO on one line under netperf's
 * "Interim result:" line; prints nothing when it has none. */
void output_interim_tcp(FILE *out, const struct result_interim *iv);

#endif
