/*
 * Exact merging of results (netperf --merge): several runs' JSON
 * documents, taken at once by a fleet, into one account. Work, calls and
 * histogram buckets are added; percentiles come from the merged
 * histogram, never from averaging percentiles; service demand is total
 * CPU time over total work per host role; throughput is given as the
 * plain sum and over the window in which every run was active.
 *
 * The state is itself a document (schema "netperf-merge"), so merged
 * results merge again: the operation is associative and commutative, and
 * its output does not depend on the order of the inputs. Everything here
 * is pure over parsed documents; reading files is the caller's.
 */
#ifndef NP_MERGE_H
#define NP_MERGE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "np/err.h"
#include "np/result.h"
#include "np/stats.h"

#define MERGE_NAME_LEN 256
/* The most bytes --merge reads from all its inputs together: each
 * document's tree is freed once merged, but what it holds is kept. */
#define MERGE_MAX_INPUT ((uint64_t)256 << 20)

/* One interim sample of a run (-D): its end, length and rate. */
struct merge_sample {
	int64_t end_ns;	 /* CLOCK_REALTIME ns */
	double interval; /* seconds */
	double value;	 /* in the merge's throughput units */
};

/* One run that was merged. */
struct merge_run {
	char name[MERGE_NAME_LEN]; /* the file it came from */
	char local_host[MERGE_NAME_LEN], remote_host[MERGE_NAME_LEN];
	int64_t scheduled_ns;	  /* --start-at, 0 when not scheduled */
	int64_t start_ns, end_ns; /* netperf's actual start and end */
	/* Of a scheduled start, ns netperf waited for a CPU after waking
	 * (timing/start_cpu_wait_ns); -1 unknown. */
	int64_t cpu_wait_ns;
	double thruput;
	int nsamples;
	struct merge_sample *samples;
	/* Each side's platform record as the result carried it (a JSON
	 * object, owned), or NULL: carried through, never merged. */
	json_t *platform[2];
};

enum merge_role { MERGE_LOCAL, MERGE_REMOTE };

/* One host's CPU account in one role. /proc/stat is machine-wide, so
 * accounts of one host whose intervals overlap measured the same CPU
 * time: they are one entry, the longest measurement, spanning both. */
struct merge_cpu {
	int role;
	char host[MERGE_NAME_LEN];
	int64_t start_ns, end_ns;
	uint64_t busy, total; /* ticks over all CPUs measured */
	int hz, ncpu;
};

/* An input that could not be merged, and why. */
struct merge_failure {
	char name[MERGE_NAME_LEN];
	char why[ERR_LEN];
};

enum merge_count {
	MERGE_BYTES_SENT,
	MERGE_BYTES_RECV,
	MERGE_SEND_CALLS,
	MERGE_RECV_CALLS,
	MERGE_TRANS,
	MERGE_NCOUNTS
};

struct merge {
	char test[32];
	char units[32];	   /* the throughput units, "10^6bits/s" */
	char sd_units[16]; /* "usec/KB" or "usec/Tran" */
	int nruns, cap_runs;
	struct merge_run *runs; /* sorted (start, then name) once settled */
	int nfail, cap_fail;
	struct merge_failure *fail;	   /* sorted by name once settled */
	uint64_t counts[2][MERGE_NCOUNTS]; /* [role][count] */
	int cpu_all[2]; /* every run measured that role's CPU */
	int ncpu, cap_cpu;
	struct merge_cpu *cpu;	 /* sorted: role, host, start */
	struct stats_hist *hist; /* netperf's latency; NULL until one */
	double thruput_total;	 /* the runs' throughput so far, any order */
	int sorted; /* runs, fail and cpu sorted (merge_figures does it) */
};

/* What a merge works out from its state. */
struct merge_figures {
	double thruput_sum;
	double thruput_window; /* -1 when it cannot be had: see note */
	double window_s;
	char window_note[160];
	double skew_s; /* last actual start - first actual start */
	int64_t first_start_ns, last_start_ns, last_end_ns;
	int64_t scheduled_ns; /* the one scheduled start, 0 when none */
	double late_max_s;    /* latest start after its schedule, -1 */
	double late_wait_s;   /* of it, waiting for a CPU; -1 unknown */
	double cpu_s[2];      /* CPU seconds per role, -1 unmeasured */
	double sd[2];	      /* service demand per role, -1 unmeasured */
	struct result_latency lat;
	/* The window in which every run was active, CLOCK_REALTIME ns;
	 * both 0 when there is none (thruput_window -1). */
	int64_t window_start_ns, window_end_ns;
};

/* An empty merge. */
void merge_init(struct merge *m);

/* Releases what a merge holds. */
void merge_free(struct merge *m);

/*
 * Adds one document (a netperf --json result or a netperf-merge state)
 * named name. Returns 0 when merged; 1 when it is a failed run's result
 * (it is counted as a failure, err says why); -1 when it is not a
 * mergeable document, -2 when it cannot be mixed with what was merged
 * (another test, units or histogram scheme); err says why.
 */
int merge_add_doc(struct merge *m, const json_t *doc, const char *name,
		  char *err);

/* Counts an input that could not be read as a failure. */
void merge_add_failure(struct merge *m, const char *name, const char *why);

/* Sorts what was merged (once, O(n log n)) and works out the merged
 * figures; returns 0, or -1 with err set when nothing was merged or a
 * figure does not fit a double. */
int merge_figures(struct merge *m, struct merge_figures *f, char *err);

/* The merged state and figures as a netperf-merge document (schema in
 * doc/output.md); NULL when out of memory. */
json_t *merge_json(const struct merge *m, const struct merge_figures *f,
		   double max_skew_s);

/* Checks a -o/-O/-k list of merge selectors; '?' is not handled here.
 * Returns 0, or -1 with err naming the unknown selector. */
int merge_list_check(const char *list, char *err);

/* Prints every merge selector name, one a line. */
void merge_list_names(FILE *out);

/* -o, -O or -k (mode) with a selector list ("" for the default one);
 * headers 0 drops the CSV header row and the -O titles. */
void merge_print_list(FILE *out, const struct merge *m,
		      const struct merge_figures *f, char mode,
		      const char *list, int headers);

/* The human-readable summary: verbosity 2 adds one line per run. */
void merge_print_table(FILE *out, const struct merge *m,
		       const struct merge_figures *f, int headers,
		       int verbosity, double max_skew_s);

#endif
