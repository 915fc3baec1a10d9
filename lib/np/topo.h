/*
 * CPU placement with hwloc: load the topology once, resolve what a user
 * asks for ("3", "core:2", "numa:1", "auto") into CPUs, bind a thread,
 * and describe where it really ran.
 *
 * CPU numbers in specs and reports are Linux CPU numbers (the N of cpuN in
 * /proc/stat), which are hwloc's os_index of a PU, never its logical_index.
 */
#ifndef NP_TOPO_H
#define NP_TOPO_H

#include <hwloc.h>

struct topo {
	hwloc_topology_t t;
	int synthetic; /* loaded from XML or a synthetic string: binding
			* succeeds and does nothing */
};

/* Where a thread is to run, and what is known of it. */
struct topo_place {
	char spec[64];	    /* as the user wrote it, "" for none */
	hwloc_bitmap_t set; /* the CPUs (os_index), NULL for anywhere */
	char cpus[256];	    /* the set as a list, "0-3,8" */
	int numa;	    /* the NUMA node holding them, -1 if several
			     * or unknown */
	int nic_local;	    /* 1 on the NIC's side, 0 not, -1 unknown */
	char note[160];	    /* e.g. "lo has no PCI device: whole machine" */
};

/*
 * Loads a topology: this machine's when xml and synthetic are both NULL,
 * else from an XML file or a synthetic description ("pack:2 core:2 pu:2").
 * I/O objects (NICs) are kept. Returns 0, or -1 with err set.
 */
int topo_load(struct topo *t, const char *xml, const char *synthetic,
	      char *err);

/* Releases the topology. */
void topo_free(struct topo *t);

/*
 * Resolves a placement spec into p: a Linux CPU number ("3"), or an hwloc
 * location TYPE:INDEX with TYPE one of pu, core, l2, l3, numa, package
 * ("core:2", "numa:1"), or "auto" for the CPUs local to interface ifname
 * (the whole machine, with a note, when the interface has no PCI device,
 * as lo and veth do). A CPU or object that does not exist is an error.
 * Returns 0, or -1 with err set. Caller frees p with topo_place_free.
 */
int topo_resolve(struct topo *t, const char *spec, const char *ifname,
		 struct topo_place *p, char *err);

/* Releases a place's set; safe on a zeroed place. */
void topo_place_free(struct topo_place *p);

/*
 * Several streams' places taken together: the union of their CPUs as a
 * list into cpus ("" when none is bound), its NUMA node (-1 if several
 * or none), and whether all are on the NIC's side (1), any is not (0),
 * or it is not known (-1).
 */
void topo_places_describe(struct topo *t, const struct topo_place *pl, int n,
			  char *cpus, size_t cap, int *numa, int *nic_local);

/*
 * Chooses the CPU for stream i of n within base (or the whole machine when
 * base->set is NULL): one PU of each core in turn, round-robin over cores
 * before using a core's second thread. Fills out with that single CPU.
 * Returns 0, or -1 with err set.
 */
int topo_pick(struct topo *t, const struct topo_place *base, int i,
	      struct topo_place *out, char *err);

/* Binds the calling thread to p's CPUs (nothing to do when p->set is
 * NULL); returns 0, or -1 with err naming the CPUs and the reason. */
int topo_bind_thread(struct topo *t, const struct topo_place *p, char *err);

/* The Linux CPU number the calling thread last ran on, -1 if unknown. */
int topo_current_cpu(struct topo *t);

/* The NUMA node of Linux CPU cpu, -1 if unknown. */
int topo_cpu_numa(struct topo *t, int cpu);

/* The number of PUs in the topology. */
int topo_npus(struct topo *t);

/* The number of NUMA nodes, -1 if unknown. */
int topo_numa_count(struct topo *t);

#endif
