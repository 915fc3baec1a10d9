/*
 * A run drawn over time (--plot on a -D run): each interval's throughput
 * or transactions/s, one line per stream and their sum; for RR tests the
 * interval's P50 and P99 latency on a second axis; for TCP, each
 * interval's retransmits and srtt from TCP_INFO. And a fleet's runs
 * (--merge ... --plot) on one time axis, the window in which all were
 * active shaded. Also -D's readable line per interval.
 */
#ifndef NP_RUNPLOT_H
#define NP_RUNPLOT_H

#include <stdio.h>

#include "np/merge.h"
#include "np/result.h"

/* The most intervals, over all runs, a plot draws: a longer run is a
 * one-line error rather than a script gnuplot chews on for minutes. */
#define RUNPLOT_MAX_POINTS 200000
/* Runs of a merge named in the key; the rest are drawn unnamed. */
#define RUNPLOT_KEY_RUNS 12

/* Interval n (from 0) of res as one readable line (--interval-lines):
 * "interval 3  2.00-3.00 s  tps 19998  p50 41 us  p99 88 us ...". */
void runplot_line(FILE *out, const struct result *res,
		  const struct result_interim *iv, int n);

/* Interval n (from 0) of res as --interval-lines gives it under -k:
 * netperf 2.7's four NETPERF_INTERIM keys, then NETPERF_INTERIM_PARTIAL,
 * the latency percentiles (RR), retransmits and srtt (TCP), each
 * stream's figure (--streams), time-outs and errors (RR) and the active
 * streams. */
void runplot_keyval(FILE *out, const struct result *res,
		    const struct result_interim *iv, int n);

/* Writes the gnuplot commands that draw res's intervals into path (whose
 * extension picks the terminal; NULL to leave it), data inline, every
 * text a quoted literal (escape_gnuplot); returns 0, or -1 when it has
 * no interval or too many (err says which). */
int runplot_script(FILE *f, const struct result *res, const char *path,
		   char *err);

/* Draws res's intervals into path (.svg or .png) with gnuplot. Returns 0;
 * 1 when gnuplot is not installed; -1 with err set. */
int runplot_plot(const char *path, const struct result *res, char *err);

/* Writes the gnuplot commands that draw a merge's runs on one time axis,
 * the window where all were active (f) shaded; returns 0, or -1 with err
 * set (no run with intervals, or too many). */
int runplot_merge_script(FILE *f, const struct merge *m,
			 const struct merge_figures *fig, char *err);

/* Draws a merge's runs into path with gnuplot; as runplot_plot. */
int runplot_merge_plot(const char *path, const struct merge *m,
		       const struct merge_figures *fig, char *err);

#endif
