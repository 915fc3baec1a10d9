/* Renders a result: netperf 2.7's classic banner and tables. */
#ifndef NP_REPORT_H
#define NP_REPORT_H

#include <stdio.h>

#include "np/result.h"

struct report_opts {
	int headers;	   /* -P: banner and column titles */
	int verbosity;	   /* -v 0, 1 or 2 */
	const char *brand; /* -B, printed with -P 0 only, or NULL */
	int cpu_bind;	   /* -T was given */
	int histogram;	   /* latency was kept (-j or -v 2) */
	int conf_level;	   /* -i/-I: the level, 0 when not repeating */
	double conf_width; /* and the full width asked for, percent */
	const char *omni_dir; /* -t OMNI: "Send", "Receive"...; else NULL */
};

/* Prints the one-line banner netperf prints before a test. */
void report_banner(FILE *out, const struct result *res,
		   const struct report_opts *o);

/* Prints the classic table (or the single figure with -v 0). */
void report_classic(FILE *out, const struct result *res,
		    const struct report_opts *o);

/* Prints the histogram in netperf's decade-per-row layout, then ours. */
void report_histogram(FILE *out, const struct stats_hist *h);

/* -v 2 under -o, -O or -k (and -t OMNI): 2.7's "Histogram of ... times"
 * and its rows alone, after the selectors, as a --enable-histogram 2.7
 * prints them and PerfKitBenchmarker reads them. */
void report_omni_histogram(FILE *out, const struct result *res);

#endif
