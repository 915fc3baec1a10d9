/* The runner: one side's streams, each on a thread of its own (or as flows
 * on fewer, flows.c), released together and watched until they end. */
#ifndef NP_RUNNER_H
#define NP_RUNNER_H

#include <pthread.h>
#include <stdint.h>

#include "np/cpu.h"
#include "np/stats.h"
#include "np/tcpinfo.h"
#include "np/test_ctx.h"
#include "np/topo.h"

struct test_module;

/* What an interim report knows beyond the sum (struct module_run's
 * on_interim): each stream's count over the interval and, for a test
 * that keeps latency (RR), every stream's latency over it merged. */
struct module_interval {
	/* The tail: what the streams did after the last boundary, reported
	 * once they ended (module_run's interim_tail). */
	int partial;
	int n;
	const uint64_t *stream;	       /* n counts over the interval */
	const struct stats_hist *hist; /* ns; NULL without histograms */
	/* The open loop's time-outs and connection errors over the
	 * interval, summed over the streams, and the streams that ran in
	 * it and had not ended on a connection error by its end. */
	uint64_t timeouts, errors;
	int flows;
	/* UDP_RR and UDP_CRR: the answers that came in the interval after
	 * their request was given up on (late answers), summed over the
	 * streams. */
	uint64_t late;
	/* A request mix: each class's transactions, time-outs and late
	 * answers over the interval and its round trips' histogram
	 * (nclasses of each; the time-outs add up to timeouts, the late
	 * answers to late); 0 and NULL without one. */
	int nclasses;
	const uint64_t *class_count, *class_timeouts, *class_late;
	const struct stats_hist *class_hist;
	/* -D on UDP_RR (test_ctx's lost_split on every stream): the lost
	 * requests and answers found in the interval; lost_split 0 when
	 * not measured. */
	int lost_split;
	int64_t lost_req, lost_rsp;
};

struct interval_track;

/* One side's run of a test: n streams, each a thread with its context. */
struct module_run {
	const struct test_module *m;
	int is_server;
	int measure_cpu;
	int n;
	struct test_ctx *ctx;	   /* n contexts, each with its own r */
	struct topo *topo;	   /* for binding, or NULL */
	struct topo_place *places; /* n places, or NULL for no binding */
	/* Interim reports: every interim_sec seconds on exact boundaries,
	 * on_interim gets the count moved (bytes or transactions), the
	 * seconds it took, the seconds since the start, and the streams'
	 * TCP_INFO over the interval (NULL when there is none). A boundary
	 * the coordinator was too late for is merged into the next, so
	 * interim_k, the number of the boundary being reported (0 for the
	 * first, start + interim_sec), may skip; both ends number alike. */
	double interim_sec;
	int64_t interim_k;
	void (*on_interim)(void *arg, double count, double secs,
			   double since_start, const struct tcpinfo *tcpi,
			   const struct module_interval *iv);
	void *arg;
	/* Report the tail too: once the streams end, what they did after
	 * the last boundary goes to on_interim as a partial interval, so
	 * the intervals add up to the totals (netperf's side only). */
	int interim_tail;
	struct interval_track *track; /* module_run_all's, while it runs */
	/* Called once, from the coordinating thread, when ctx[0].stop is
	 * set during the test (Ctrl-C), or NULL. */
	void (*on_stop)(void *stop_arg);
	void *stop_arg;
	int stop_sent;
	/* Called once, from the coordinating thread, the moment the gate
	 * has opened (every stream is running), or NULL: netserver's "go",
	 * when it receives, so that its interval begins before the sender's
	 * first byte. Returns 0, or -1 to end the test (err set). */
	int (*gate_opened)(void *gate_arg, char *err);
	void *gate_arg;
	/* Filled by module_run_all. */
	struct cpu_util cpu;
	int cpu_measured;
	pthread_mutex_t lock; /* the start gate, and each stream's end */
	pthread_cond_t cond;  /* CLOCK_MONOTONIC for timed waits */
	int ready, go, finished, abort;
	uint64_t start_ns; /* when the gate opened */
	/* CLOCK_REALTIME ns to sleep until before opening the gate (0: open
	 * at once), and the CLOCK_REALTIME ns at which it opened. */
	int64_t start_at_ns;
	int64_t wall_start_ns;
	/* ns the gate's thread waited for a CPU between its last sleep
	 * for start_at_ns and wall_start_ns, at most the lateness; -1
	 * without start_at_ns. */
	int64_t start_cpu_wait_ns;
	/* Flows on threads (flows.c): threads, each driving n / threads of
	 * the contexts from one epoll set; 0 for a thread a stream. The
	 * threads' own state, flows.c's between start and finish. */
	int threads;
	void *flows;
};

/*
 * Runs every stream at once: one thread each, bound to its place, all
 * released together from a barrier; the CPU snapshots bracket them all.
 * Returns 0, or -1 with err set (the first stream's failure).
 */
int module_run_all(struct module_run *run, char *err);

/* The runner's threads have been created, started of the want asked for
 * (what names them in the error): fewer aborts the run with err set. Waits
 * until every one started is ready at the gate; returns started. */
int module_threads_ready(struct module_run *run, int started, int want,
			 const char *what, char *err);

/* A runner's thread (a stream's, or flows.c's) at the start: bound to
 * place when it names CPUs, counted ready, then waiting until the gate
 * opens. Returns 0, or -1 with err set when it could not be bound (it
 * waits at the gate all the same, so that no failure strands the rest). */
int module_thread_at_gate(struct module_run *run,
			  const struct topo_place *place, char *err);

/* Sums the streams' counts into sum, with the run's CPU figures (which
 * sum now owns). */
void module_merge(const struct module_run *run, struct side_result *sum);

#endif
