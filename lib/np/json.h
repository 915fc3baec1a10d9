/*
 * The JSON document of a result (--json, -J, --json-stream), its schema
 * in doc/output.md.
 */
#ifndef NP_JSON_H
#define NP_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "np/result.h"

/* --json: the whole result as one JSON document, schema in doc/output.md;
 * compact puts it on one line (--json-stream). Returns 0, or -1 when out
 * of memory or the document could not be written. */
int json_doc_print(FILE *out, const struct result *res, int compact);

/* The JSON document of a result, to embed in a larger one (a sweep);
 * NULL when out of memory. */
json_t *json_doc(const struct result *res);

/* The name of the histogram's bucket scheme in latency_us.exact: an
 * exact merge refuses to add buckets of different schemes. */
#define JSON_HIST_SCHEME "log-linear"

/* A histogram as self-describing buckets: scheme, sub_buckets, unit
 * ("ns"), count, min, max, sum, sumsq (32 hex digits) and buckets
 * [[lo, hi, count]...] for lo <= t < hi; NULL when out of memory. */
json_t *json_hist_exact(const struct stats_hist *h);

/* --json when the run failed: a document with the test, the server as
 * given and the reason in "errors", so a fleet's merge can count and
 * name the failure; returns 0, or -1. */
int json_doc_error(FILE *out, const char *test, const char *host,
		   const char *why, int compact);

/* Writes a JSON value as json_doc_print does; returns 0, or -1. */
int json_doc_write(FILE *out, json_t *doc, int compact);

/* --json-stream: one JSON line for one interim result. */
void json_doc_interim(FILE *out, const struct result *res,
		      const struct result_interim *iv);

#endif
