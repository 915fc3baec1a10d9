/*
 * The platform record: what one side's machine was when it ran a test
 * (CPU, frequency policy, kernel, mitigations, virtualisation, NUMA, the
 * data path's interface and its offloads, congestion control, qdisc, and
 * this program's build), so two results can be told apart by more than
 * their figures.
 *
 * It is collected outside the measured interval, so it costs the test
 * nothing: the host's part while the control conversation goes on, in a
 * thread (platform_job_*) waited for before the interval, the data path's
 * once the test is over. Every source is read by a
 * parser over text or a buffer, so each can be unit-tested with literals;
 * platform_collect does the reading.
 */
#ifndef NP_PLATFORM_H
#define NP_PLATFORM_H

#include <net/if.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/socket.h>

#include "np/topo.h"

#define PLATFORM_MAX_VULNS 32
/* Room for a CPU list such as "0-3,8,10-11". */
#define PLATFORM_CPUS_LEN 256

/* One entry of /sys/devices/system/cpu/vulnerabilities. */
struct platform_vuln {
	char name[40];	 /* "spectre_v2" */
	char state[200]; /* "Mitigation: Retpolines; ..." */
};

/* The interface that carries the data connection. Unknown numbers are
 * -1 and unknown strings "". */
struct platform_nic {
	char name[IF_NAMESIZE];
	char driver[32], driver_version[32], firmware[32], bus[32];
	char slot[32]; /* the PCI slot that holds it, "" for none */
	int vendor, device, subvendor, subdevice; /* PCI ids */
	int speed_mbps;
	int mtu;
	/* Offloads: 1 on, 0 off, -1 unknown. */
	int tso, gso, gro, lro, rx_csum, tx_csum;
	int nirqs;			  /* IRQs of its queues */
	char irq_cpus[PLATFORM_CPUS_LEN]; /* the CPUs they may run on */
	char qdisc[32];			  /* the root qdisc's kind */
};

struct platform {
	char cpu_model[128];
	int ncpu;	      /* online CPUs */
	int smt;	      /* 1 active, 0 not, -1 unknown */
	char smt_control[24]; /* "on", "off", "notsupported", "" */
	int cpu_mhz;	      /* current frequency, -1 unknown */
	int cpu_max_mhz;      /* cpufreq's maximum, -1 unknown */
	char governor[32];    /* cpufreq governor, "" without cpufreq */
	char sysname[65], release[65], version[65], machine[65];
	char cmdline_mitigations[256]; /* the mitigation words of
					* /proc/cmdline, "" for none */
	int nvulns;
	struct platform_vuln vuln[PLATFORM_MAX_VULNS];
	char hypervisor[32]; /* "KVM", "VMware"...; "none" on bare metal */
	char container[32];  /* "docker", "podman", "lxc"...; "none" */
	int numa_nodes;	     /* -1 unknown */
	char system_vendor[64], system_model[128]; /* /sys/class/dmi/id */
	char congestion[16]; /* the data socket's, else the default */
	char program[64];    /* "netperf 3.0.0" */
	char build[256];     /* build type, compiler and flags */
	struct platform_nic nic;
};

/* What platform_collect needs to know of the test. */
struct platform_inputs {
	const char *program;	     /* "netperf" or "netserver" */
	const char *congestion;	     /* the data socket's congestion
				      * control (platform_congestion_of),
				      * NULL or "" for the default */
	const struct sockaddr *peer; /* the data connection's other end, to
				      * find the interface; NULL for none */
	struct topo *topo;	     /* NUMA nodes from hwloc; NULL: /sys */
};

/* The congestion control of TCP socket fd into out; returns 0, or -1
 * (not TCP, closed) with out "". */
int platform_congestion_of(int fd, char *out, size_t cap);

/* Sets every field of p to unknown. */
void platform_init(struct platform *p);

/* Reads this machine's record; what cannot be read stays unknown, so it
 * never fails. Call it outside the measured interval. */
void platform_collect(struct platform *p, const struct platform_inputs *in);

/*
 * The host's part of a record (CPU, kernel, machine: some 40 files under
 * /sys and /proc), read by a thread of its own while the control
 * conversation goes on, so that no test waits for it; the data path's
 * part (congestion control, interface) is read when the record is made.
 */
struct platform_job {
	pthread_t tid;
	int running; /* the thread is to be joined */
	int done;    /* host holds the host's part */
	const char *program;
	struct platform host;
};

/* Starts reading the host's part for program ("netperf", "netserver");
 * where no thread can start, platform_job_wait reads it. Never fails. */
void platform_job_start(struct platform_job *j, const char *program);

/* Waits until the host's part is read (at once when it is). */
void platform_job_wait(struct platform_job *j);

/* The record into p: the host's part (waited for) and, from in, the data
 * path's; in->program is not read. Call it outside the measured
 * interval. */
void platform_job_record(struct platform_job *j, struct platform *p,
			 const struct platform_inputs *in);

/* /proc/cpuinfo: the CPU model (x86's "model name", or another arch's
 * nearest line), "cpu MHz" into p->cpu_mhz when p has none yet; returns 1
 * when the "hypervisor" CPU flag is set, else 0. */
int platform_parse_cpuinfo(const char *text, struct platform *p);

/* The number of CPUs (or nodes) in a list such as "0-3,8\n"; -1 when the
 * text is not such a list. */
int platform_cpulist_count(const char *text);

/* Adds the CPU list add ("0-1,4") to the list in acc (cap bytes, "" for
 * empty), keeping it sorted and merged; returns 0, or -1 when add is not
 * a list or a CPU is above 4095. */
int platform_cpulist_union(char *acc, size_t cap, const char *add);

/* The mitigation words of a kernel command line (mitigations=, nopti,
 * spectre_v2=...), space-separated into out; stops at "--". */
void platform_parse_cmdline(const char *text, char *out, size_t cap);

/* The hypervisor named by a 12-byte CPUID 0x40000000 vendor signature
 * ("KVMKVMKVM\0\0\0" -> "KVM"); the signature itself, trimmed, when it is
 * not one we know. */
void platform_hypervisor_name(const char sig[12], char *out, size_t cap);

/* The container runtime from /proc/1/cgroup text and marker files
 * (/.dockerenv, /run/.containerenv) and pid 1's $container (NULL when
 * unknown): "docker", "podman", "kubernetes", "lxc", a named runtime, or
 * "none". */
void platform_container_of(const char *cgroup, int dockerenv, int containerenv,
			   const char *env_container, char *out, size_t cap);

/* A frequency file in kHz ("2100000\n") as MHz; -1 when not a number. */
int platform_parse_khz(const char *text);

/* A sysfs hex id ("0x8086\n"); -1 when not one. */
int platform_parse_hex(const char *text);

/*
 * The PCI slot that holds the device at PCI address pci ("0000:00:03.0"),
 * as netperf 2.7 finds it: the entry of slots_dir (/sys/bus/pci/slots)
 * whose address file ("0000:00:03") names pci's domain, bus and device.
 * Fills out with the slot's name and returns 0, or leaves out "" and
 * returns -1 when no slot holds it.
 */
int platform_slot_of(const char *slots_dir, const char *pci, char *out,
		     size_t cap);

/*
 * One netlink reply to an RTM_GETQDISC dump: the kind of ifindex's root
 * qdisc into kind (cap bytes). Returns 1 when found, 2 at the end of the
 * dump, 0 when this buffer held neither (read on), -1 on an error reply
 * or a malformed buffer.
 */
int platform_parse_qdisc(const void *buf, size_t len, int ifindex, char *kind,
			 size_t cap);

/* The offloads as text, "tso gso gro" (those on), "" when none known. */
void platform_offloads_text(const struct platform_nic *n, char *buf,
			    size_t cap);

/* The vulnerabilities whose state starts "Vulnerable", space-separated,
 * "none" when there are none, "" when none were read. */
void platform_vulnerable_text(const struct platform *p, char *buf, size_t cap);

#endif
