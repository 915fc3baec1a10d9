#include "np/topo.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "np/err.h"

/* The hwloc object types a spec may name, with the word used in messages. */
struct topo_type_name {
	const char *word;
	hwloc_obj_type_t type;
	const char *plural;
};

static const struct topo_type_name topo_types[] = {
    {"pu", HWLOC_OBJ_PU, "PUs"},
    {"core", HWLOC_OBJ_CORE, "cores"},
    {"l2", HWLOC_OBJ_L2CACHE, "L2 caches"},
    {"l3", HWLOC_OBJ_L3CACHE, "L3 caches"},
    {"numa", HWLOC_OBJ_NUMANODE, "NUMA nodes"},
    {"node", HWLOC_OBJ_NUMANODE, "NUMA nodes"},
    {"package", HWLOC_OBJ_PACKAGE, "packages"},
    {"socket", HWLOC_OBJ_PACKAGE, "packages"},
    {NULL, HWLOC_OBJ_PU, NULL},
};

/*
 * Discovery components we do without. Linux's own component finds PCI
 * devices and NICs in sysfs; the "pci" plugin would only add libpciaccess,
 * which keeps memory past hwloc_topology_destroy (hwloc issue #636, seen
 * as a leak under AddressSanitizer). The GPU ones start GPU runtimes,
 * which can take seconds, for devices a network benchmark never uses.
 */
static const char *const topo_skipped[] = {
    "pci", "opencl", "gl", "cuda", "nvml", "rsmi", "levelzero", NULL,
};

static void
topo_skip_components(hwloc_topology_t t)
{
	const char *const *name;

	/* A component this build of hwloc lacks is refused, which is just
	 * as good. */
	for (name = topo_skipped; *name != NULL; name++)
		(void)hwloc_topology_set_components(
		    t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, *name);
}

int
topo_load(struct topo *t, const char *xml, const char *synthetic, char *err)
{
	memset(t, 0, sizeof(*t));
	if (hwloc_topology_init(&t->t) < 0) {
		t->t = NULL;
		return err_set(err, "cannot initialise hwloc: %s",
			       strerror(errno));
	}
	/* Without this hwloc drops every PCI and OS device, and "auto" could
	 * never find the NIC. */
	if (hwloc_topology_set_io_types_filter(
		t->t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0) {
		err_set(err, "cannot keep I/O devices in the topology: %s",
			strerror(errno));
		goto destroy;
	}
	topo_skip_components(t->t);
	if (xml != NULL) {
		if (hwloc_topology_set_xml(t->t, xml) < 0) {
			err_set(err, "cannot read topology from %s: %s", xml,
				strerror(errno));
			goto destroy;
		}
		t->synthetic = 1;
	} else if (synthetic != NULL) {
		if (hwloc_topology_set_synthetic(t->t, synthetic) < 0) {
			err_set(err, "invalid synthetic topology \"%s\"",
				synthetic);
			goto destroy;
		}
		t->synthetic = 1;
	}
	if (hwloc_topology_load(t->t) < 0) {
		err_set(err, "cannot load the topology: %s", strerror(errno));
		goto destroy;
	}
	return 0;

destroy:
	hwloc_topology_destroy(t->t);
	t->t = NULL;
	t->synthetic = 0;
	return -1;
}

void
topo_free(struct topo *t)
{
	if (t->t != NULL)
		hwloc_topology_destroy(t->t);
	t->t = NULL;
}

void
topo_place_free(struct topo_place *p)
{
	if (p->set != NULL)
		hwloc_bitmap_free(p->set);
	p->set = NULL;
}

/* Writes set as a list ("0-3,8"), marking a list too long to hold. */
static void
topo_list(char *buf, size_t len, hwloc_const_bitmap_t set)
{
	int n = hwloc_bitmap_list_snprintf(buf, len, set);

	if (n < 0)
		buf[0] = '\0';
	else if ((size_t)n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/*
 * The Linux number of the NUMA node whose CPUs include all of set, -1 when
 * the set spans several nodes. When several nodes cover it (DRAM beside HBM
 * or a sub-NUMA cluster inside a package), the one with the fewest CPUs is
 * the most local; on a tie the first in hwloc's order, which is usually
 * the ordinary DRAM node.
 */
static int
topo_set_numa(struct topo *t, hwloc_const_bitmap_t set)
{
	hwloc_obj_t node = NULL, best = NULL;

	if (set == NULL || hwloc_bitmap_iszero(set))
		return -1;
	while ((node = hwloc_get_next_obj_by_type(t->t, HWLOC_OBJ_NUMANODE,
						  node)) != NULL) {
		if (node->cpuset == NULL ||
		    !hwloc_bitmap_isincluded(set, node->cpuset))
			continue;
		if (best == NULL || hwloc_bitmap_weight(node->cpuset) <
					hwloc_bitmap_weight(best->cpuset))
			best = node;
	}
	return best != NULL ? (int)best->os_index : -1;
}

/* Parses a whole string of decimal digits into *v; returns 0, or -1. */
static int
topo_parse_uint(const char *s, unsigned *v)
{
	unsigned long n = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (unsigned long)(*s - '0');
		if (n > INT_MAX)
			return -1;
	}
	*v = (unsigned)n;
	return 0;
}

/* Fills in what follows from p->set: the list and the NUMA node. */
static void
topo_describe(struct topo *t, struct topo_place *p)
{
	topo_list(p->cpus, sizeof(p->cpus), p->set);
	p->numa = topo_set_numa(t, p->set);
}

void
topo_places_describe(struct topo *t, const struct topo_place *pl, int n,
		     char *cpus, size_t cap, int *numa, int *nic_local)
{
	hwloc_bitmap_t all = hwloc_bitmap_alloc();
	int any = 0, local = 1;

	cpus[0] = '\0';
	*numa = -1;
	*nic_local = -1;
	if (all == NULL)
		return;
	for (int i = 0; i < n; i++) {
		if (pl[i].set == NULL)
			continue;
		hwloc_bitmap_or(all, all, pl[i].set);
		any = 1;
		if (pl[i].nic_local == 0)
			local = 0;
		else if (pl[i].nic_local < 0 && local == 1)
			local = -1;
	}
	if (any) {
		topo_list(cpus, cap, all);
		*numa = topo_set_numa(t, all);
		*nic_local = local;
	}
	hwloc_bitmap_free(all);
}

/* A Linux CPU number: the PU with that os_index. */
static int
topo_resolve_cpu(struct topo *t, const char *spec, struct topo_place *p,
		 char *err)
{
	char all[128];
	hwloc_obj_t pu = NULL;
	unsigned n;

	if (topo_parse_uint(spec, &n) == 0)
		pu = hwloc_get_pu_obj_by_os_index(t->t, n);
	if (pu == NULL) {
		topo_list(all, sizeof(all),
			  hwloc_topology_get_topology_cpuset(t->t));
		return err_set(err,
			       "CPU %s does not exist (this machine has CPUs "
			       "%s)",
			       spec, all);
	}
	p->set = hwloc_bitmap_dup(pu->cpuset);
	if (p->set == NULL)
		return err_set(err, "out of memory");
	return 0;
}

/*
 * TYPE:INDEX. The index is hwloc's logical index within the type, not an
 * OS number: "core:2" is the third core in hwloc's order and "pu:1" the
 * second PU, whatever Linux numbers them. NUMA nodes are counted the same
 * way ("numa:1" is the second node hwloc lists), which is the Linux node
 * number on ordinary machines but need not be when nodes are missing.
 */
static int
topo_resolve_obj(struct topo *t, const char *spec, const char *colon,
		 struct topo_place *p, char *err)
{
	const struct topo_type_name *tn;
	size_t wlen = (size_t)(colon - spec);
	hwloc_obj_t obj;
	unsigned idx;
	int nb;

	for (tn = topo_types; tn->word != NULL; tn++)
		if (strlen(tn->word) == wlen &&
		    strncasecmp(tn->word, spec, wlen) == 0)
			break;
	if (tn->word == NULL)
		return err_set(err,
			       "unknown CPU location type \"%.*s\" in \"%s\" "
			       "(use a CPU number, or pu, core, l2, l3, numa "
			       "or package with :INDEX)",
			       (int)wlen, spec, spec);
	if (topo_parse_uint(colon + 1, &idx) < 0)
		return err_set(err,
			       "bad index \"%s\" in \"%s\" (want a number from "
			       "0)",
			       colon + 1, spec);
	nb = hwloc_get_nbobjs_by_type(t->t, tn->type);
	if (nb < 0)
		return err_set(err,
			       "%s: %s are at several levels on this "
			       "machine",
			       spec, tn->plural);
	if (nb == 0)
		return err_set(err,
			       "%s does not exist (this machine has no %s)",
			       spec, tn->plural);
	obj = hwloc_get_obj_by_type(t->t, tn->type, idx);
	if (obj == NULL)
		return err_set(err,
			       "%s does not exist (this machine has %d %s: "
			       "%s:0-%d)",
			       spec, nb, tn->plural, tn->word, nb - 1);
	/* A memory-only NUMA node (CXL, some HBM) has no CPUs to run on. */
	if (obj->cpuset == NULL || hwloc_bitmap_iszero(obj->cpuset))
		return err_set(err, "%s has no CPUs", spec);
	p->set = hwloc_bitmap_dup(obj->cpuset);
	if (p->set == NULL)
		return err_set(err, "out of memory");
	return 0;
}

/*
 * "auto": the CPUs nearest the NIC behind ifname, that is those of the
 * first ordinary object above its PCI device. Virtual interfaces have no
 * such device, and then nothing is known: the whole machine.
 */
static int
topo_resolve_auto(struct topo *t, const char *ifname, struct topo_place *p,
		  char *err)
{
	hwloc_obj_t dev = NULL, anc;

	if (ifname != NULL && ifname[0] != '\0')
		while ((dev = hwloc_get_next_osdev(t->t, dev)) != NULL)
			if (dev->name != NULL && strcmp(dev->name, ifname) == 0)
				break;
	if (dev != NULL) {
		anc = hwloc_get_non_io_ancestor_obj(t->t, dev);
		if (anc != NULL && anc->cpuset != NULL &&
		    !hwloc_bitmap_iszero(anc->cpuset)) {
			p->set = hwloc_bitmap_dup(anc->cpuset);
			if (p->set == NULL)
				return err_set(err, "out of memory");
			p->nic_local = 1;
			return 0;
		}
	}
	p->set = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->t));
	if (p->set == NULL)
		return err_set(err, "out of memory");
	if (ifname != NULL && ifname[0] != '\0')
		snprintf(p->note, sizeof(p->note),
			 "%s has no PCI device: whole machine", ifname);
	else
		snprintf(p->note, sizeof(p->note),
			 "no interface to place by: whole machine");
	return 0;
}

int
topo_resolve(struct topo *t, const char *spec, const char *ifname,
	     struct topo_place *p, char *err)
{
	const char *colon;
	int rc;

	memset(p, 0, sizeof(*p));
	p->numa = -1;
	p->nic_local = -1;
	if (spec == NULL)
		spec = "";
	snprintf(p->spec, sizeof(p->spec), "%s", spec);
	if (spec[0] == '\0') {
		/* Anywhere: unbound, but on a one-node machine the node is
		 * known all the same. */
		p->numa =
		    topo_set_numa(t, hwloc_topology_get_topology_cpuset(t->t));
		return 0;
	}
	colon = strchr(spec, ':');
	if (strcasecmp(spec, "auto") == 0)
		rc = topo_resolve_auto(t, ifname, p, err);
	else if (colon != NULL)
		rc = topo_resolve_obj(t, spec, colon, p, err);
	else
		rc = topo_resolve_cpu(t, spec, p, err);
	if (rc < 0) {
		topo_place_free(p);
		return -1;
	}
	topo_describe(t, p);
	return 0;
}

/* The core a PU belongs to, or the PU itself on a topology without cores. */
static hwloc_obj_t
topo_pu_core(struct topo *t, hwloc_obj_t pu)
{
	hwloc_obj_t core =
	    hwloc_get_ancestor_obj_by_type(t->t, HWLOC_OBJ_CORE, pu);

	return core != NULL ? core : pu;
}

int
topo_pick(struct topo *t, const struct topo_place *base, int i,
	  struct topo_place *out, char *err)
{
	hwloc_const_bitmap_t set;
	hwloc_obj_t pu = NULL, core, prev_core = NULL, chosen = NULL;
	int *rank;
	int n = 0, k, r = 0, max_rank = 0, want, seen;

	memset(out, 0, sizeof(*out));
	out->numa = -1;
	out->nic_local = -1;
	if (i < 0)
		return err_set(err, "bad stream index %d", i);
	set = base != NULL && base->set != NULL
		  ? base->set
		  : hwloc_topology_get_topology_cpuset(t->t);

	/* PUs of one core are consecutive in hwloc's logical order, so a PU's
	 * rank within its core is one more than the previous PU's when they
	 * share the core. */
	k = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_PU);
	rank = calloc(k > 0 ? (size_t)k : 1, sizeof(*rank));
	if (rank == NULL)
		return err_set(err, "out of memory");
	while ((pu = hwloc_get_next_obj_by_type(t->t, HWLOC_OBJ_PU, pu)) !=
	       NULL) {
		if (!hwloc_bitmap_isset(set, pu->os_index))
			continue;
		core = topo_pu_core(t, pu);
		rank[pu->logical_index] =
		    core == prev_core && n > 0 ? r + 1 : 0;
		r = rank[pu->logical_index];
		if (r > max_rank)
			max_rank = r;
		prev_core = core;
		n++;
	}
	if (n == 0) {
		free(rank);
		return err_set(err, "no CPUs of this machine in %s",
			       base != NULL && base->cpus[0] != '\0'
				   ? base->cpus
				   : "the place");
	}

	/* Every core's first PU in core order, then every second PU... */
	want = i % n;
	seen = 0;
	for (r = 0; r <= max_rank && chosen == NULL; r++) {
		pu = NULL;
		while ((pu = hwloc_get_next_obj_by_type(t->t, HWLOC_OBJ_PU,
							pu)) != NULL) {
			if (!hwloc_bitmap_isset(set, pu->os_index) ||
			    rank[pu->logical_index] != r)
				continue;
			if (seen++ == want) {
				chosen = pu;
				break;
			}
		}
	}
	free(rank);
	if (chosen == NULL)
		return err_set(err, "no CPU for stream %d", i);

	out->set = hwloc_bitmap_dup(chosen->cpuset);
	if (out->set == NULL)
		return err_set(err, "out of memory");
	snprintf(out->spec, sizeof(out->spec), "stream %d", i);
	topo_describe(t, out);
	if (base != NULL) {
		out->nic_local = base->nic_local;
		memcpy(out->note, base->note, sizeof(out->note));
	}
	return 0;
}

int
topo_bind_thread(struct topo *t, const struct topo_place *p, char *err)
{
	char list[sizeof(p->cpus)];
	int e;

	if (p == NULL || p->set == NULL)
		return 0;
	/* hwloc refuses to bind on a topology that is not this machine's,
	 * and binding there would mean nothing anyway. */
	if (t->synthetic)
		return 0;
	/* Not HWLOC_CPUBIND_STRICT: Linux cannot promise it and would make
	 * every bind fail. */
	if (hwloc_set_cpubind(t->t, p->set, HWLOC_CPUBIND_THREAD) == 0)
		return 0;
	e = errno;
	topo_list(list, sizeof(list), p->set);
	return err_set(err, "cannot bind to CPUs %s: %s", list, strerror(e));
}

int
topo_current_cpu(struct topo *t)
{
	int cpu;

	(void)t;
	cpu = sched_getcpu();
	return cpu >= 0 ? cpu : -1;
}

int
topo_cpu_numa(struct topo *t, int cpu)
{
	hwloc_obj_t pu;

	if (cpu < 0)
		return -1;
	pu = hwloc_get_pu_obj_by_os_index(t->t, (unsigned)cpu);
	if (pu == NULL)
		return -1;
	return topo_set_numa(t, pu->cpuset);
}

int
topo_npus(struct topo *t)
{
	int n = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_PU);

	return n > 0 ? n : 0;
}

int
topo_numa_count(struct topo *t)
{
	int n = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_NUMANODE);

	return n > 0 ? n : -1;
}
