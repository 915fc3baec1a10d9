/*
 * Sweeps: the same test once per value of one parameter (--sweep
 * m=1K,2K,4K), everything else fixed, and a plot of the figures.
 */
#ifndef NP_SWEEP_H
#define NP_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "np/cli.h"
#include "np/result.h"

#define SWEEP_MAX 64
/* The highest rate a rate sweep or a search offers, transactions/s. */
#define SWEEP_RATE_MAX 1e9

struct sweep {
	char param[16]; /* "m", "r", "s", "streams", "rate" */
	int n;
	int64_t value[SWEEP_MAX];
	char label[SWEEP_MAX][24]; /* as the user wrote each value */
};

/*
 * Parses "param=v1,v2,...": m (bytes per send), r (request and response
 * size), s (both sides' socket buffers) take sizes with K/M/G suffixes;
 * streams takes counts; rate (the open loop's transactions/s) takes
 * rates as --rate does (k, M, G: powers of 10). Returns 0, or -1 with err
 * set.
 */
int sweep_parse(const char *arg, struct sweep *s, char *err);

/* Returns 1 when the sweep is over --rate (the latency-vs-load curve). */
int sweep_is_rate(const struct sweep *s);

/* Checks that the sweep's parameter means something for the test;
 * returns 0, or -1 with err set ("r applies to request/response
 * tests"). */
int sweep_check(const struct sweep *s, const char *test, char *err);

/* Sets point i's value in o. */
void sweep_apply(const struct sweep *s, int i, struct netperf_opts *o);

/* One point's outcome: its result, or why it failed. */
struct sweep_point {
	int ok;
	struct result res;
	char err[ERR_LEN];
};

/* Prints the table: a row per value with the headline figure, both
 * sides' CPU and service demand, latency percentiles for RR tests and,
 * when repeating, the achieved interval. */
void sweep_table(FILE *out, const struct sweep *s,
		 const struct sweep_point *pts, int headers);

/* The rate table's two title lines and the blank line after them (the
 * service demand's units from first, "" when NULL). */
void sweep_rate_header(FILE *out, const char *param,
		       const struct result *first);

/* One row of the rate table, no newline: label, offered and achieved
 * rate, P50/P99/P99.9 from the intended send, both sides' CPU and
 * service demand. */
void sweep_rate_row(FILE *out, const char *label, const struct result *r);

/* The same as CSV, with a header row unless headers is 0. */
void sweep_csv(FILE *out, const struct sweep *s, const struct sweep_point *pts,
	       int headers);

/* Writes the data gnuplot reads: value, figure, local and remote SD; for
 * a rate sweep, value, achieved rate, P50, P99 and P99.9. */
void sweep_data(FILE *out, const struct sweep *s,
		const struct sweep_point *pts);

/* Checks a plot file name before any test runs: .svg or .png, not a
 * symbolic link or other than a regular file, in a writable directory
 * (file_replace_check); returns 0, or -1 with err set. */
int sweep_plot_check(const char *path, char *err);

/* Writes the gnuplot commands that sweep_plot draws with, data inline,
 * every text in them a quoted literal (escape_gnuplot); returns 0, or -1
 * when no point succeeded. */
int sweep_plot_script(FILE *f, const struct sweep *s,
		      const struct sweep_point *pts);

/*
 * Draws the figure and the service demand against the swept value into
 * path (.svg or .png) with gnuplot. Returns 0; 1 when gnuplot is not
 * installed (err says what to install); -1 with err set on failure.
 */
int sweep_plot(const char *path, const struct sweep *s,
	       const struct sweep_point *pts, char *err);

/*
 * Runs gnuplot on body (its commands, data inline, any text in them made
 * with escape_gnuplot) after the terminal line for path (.svg or .png),
 * with no shell in between: the plotting every --plot shares. The picture
 * goes to a new file beside path, renamed over it once gnuplot succeeded
 * (file_replace_open): a symbolic link at path is refused, never
 * followed. Returns 0; 1 when gnuplot is not installed (err says what to
 * install); -1 with err set.
 */
int sweep_gnuplot(const char *path, const char *body, char *err);

/* What writes a script for sweep_draw: its commands into f, from what ctx
 * points at; 0, or -1 with err set. */
typedef int (*sweep_script_fn)(FILE *f, const void *ctx, char *err);

/*
 * Writes a script with write into memory and draws it into path with
 * sweep_gnuplot: the one driver of every --plot. Returns as
 * sweep_gnuplot, and -1 with write's err when it failed.
 */
int sweep_draw(const char *path, sweep_script_fn write, const void *ctx,
	       char *err);

#endif
