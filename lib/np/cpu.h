/*
 * CPU utilisation from /proc/stat snapshots, and service demand.
 *
 * busy = user + nice + system + irq + softirq; idle = idle + iowait; steal
 * is neither and is reported on its own. guest and guest_nice are already
 * inside user and nice, so they are never added again.
 */
#ifndef NP_CPU_H
#define NP_CPU_H

#include <stddef.h>
#include <stdint.h>

/* The ten counters of one /proc/stat cpu line, in USER_HZ ticks. */
struct cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	uint64_t guest, guest_nice;
};

/*
 * One snapshot. per[] is indexed by Linux CPU number (cpuN); CPUs that were
 * offline have present[N] == 0. ncpu is the highest N seen plus one.
 */
struct cpu_sample {
	struct cpu_times all;
	int ncpu;
	struct cpu_times *per;
	unsigned char *present;
};

/* Utilisation over an interval, in percent of the time available. */
struct cpu_load {
	double util; /* busy share of busy + idle + steal, 0..100 */
	double user, nice, system, irq, softirq, iowait, idle, steal;
};

/* The utilisation between two snapshots, machine-wide and per CPU. */
struct cpu_util {
	struct cpu_load all;  /* over the CPUs online in both samples */
	int ncpu;	      /* CPUs online in both samples */
	int nslots;	      /* length of per[]: highest CPU number plus one */
	struct cpu_load *per; /* per[N] for cpuN; util < 0 when offline */
	double peak;	      /* the busiest CPU's util */
	int peak_id;	      /* its Linux CPU number, -1 when none */
	/* The raw account behind the shares, summed over the CPUs online
	 * in both samples: busy ticks and all ticks (busy, idle, iowait,
	 * steal), and the tick rate (USER_HZ); hz is 0 when unknown. An
	 * exact merge of several results adds these, not percentages. */
	uint64_t busy_ticks, total_ticks;
	int hz;
};

/* Parses /proc/stat text into s (caller frees with cpu_sample_free);
 * returns 0, or -1 with err set. */
int cpu_sample_parse(const char *text, size_t len, struct cpu_sample *s,
		     char *err);

/* Reads /proc/stat into s; returns 0, or -1 with err set. */
int cpu_sample_read(struct cpu_sample *s, char *err);

/* Releases what a sample holds; safe on a zeroed sample. */
void cpu_sample_free(struct cpu_sample *s);

/* Computes u from snapshots a (earlier) and b (later); returns 0, or -1
 * with err set. Caller frees with cpu_util_free. */
int cpu_util_compute(const struct cpu_sample *a, const struct cpu_sample *b,
		     struct cpu_util *u, char *err);

/* Releases what a utilisation holds; safe on a zeroed one. */
void cpu_util_free(struct cpu_util *u);

/*
 * netperf's service demand: microseconds of CPU, summed over ncpu CPUs, per
 * unit of work, where units_per_sec is KB/s (1 KB = 1024 bytes) for streams
 * or transactions/s for RR. Returns -1.0 when it cannot be computed.
 */
double cpu_service_demand(double util_pct, int ncpu, double units_per_sec);

/* The number of online CPUs from sysconf; at least 1. */
int cpu_count(void);

/* What netperf 2.7 calls the CPU rate (-t LOC_CPU, REM_CPU): on Linux,
 * what its /proc/stat method calibrates to, the tick rate of /proc/stat's
 * counts (USER_HZ); at least 1. */
double cpu_rate(void);

/*
 * The calling thread's time spent runnable but waiting for a CPU, in ns,
 * as the scheduler counts it (/proc/thread-self/schedstat, second field);
 * -1 when the kernel does not keep it.
 */
int64_t cpu_run_delay_ns(void);

#endif
