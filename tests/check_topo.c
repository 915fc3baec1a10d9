/* Tests for lib/topo: resolving placement specs, picking stream CPUs and
 * binding, on synthetic and XML topologies and on this machine. */
#include "harness.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np/err.h"
#include "np/topo.h"

#ifndef NP_TEST_DATA
#define NP_TEST_DATA "tests/data"
#endif

/*
 * Two packages, each with its own NUMA node and L3, two cores per package
 * with an L2 each, two PUs per core numbered as Linux does on Intel: the
 * hyperthread siblings are N and N+4, so core 0 holds CPUs 0 and 4. A NIC
 * "eth7" hangs off a PCI bridge in the second package.
 */
#define XML_2PACK NP_TEST_DATA "/topo-2pack-eth7.xml"

/* Eight PUs numbered in hwloc's order: core c holds CPUs 2c and 2c+1. */
#define SYN_2PACK "pack:2 numa:1 core:2 pu:2"

static void
load_xml(struct topo *t)
{
	char err[ERR_LEN] = "";

	ck_assert_msg(topo_load(t, XML_2PACK, NULL, err) == 0, "load: %s", err);
}

static void
load_syn(struct topo *t, const char *desc)
{
	char err[ERR_LEN] = "";

	ck_assert_msg(topo_load(t, NULL, desc, err) == 0, "load: %s", err);
}

/* Resolves spec and checks the CPU list and NUMA node it comes to. */
static void
resolve_ok(struct topo *t, const char *spec, const char *cpus, int numa)
{
	struct topo_place p;
	char err[ERR_LEN] = "";

	ck_assert_msg(topo_resolve(t, spec, NULL, &p, err) == 0,
		      "resolve %s: %s", spec, err);
	ck_assert_ptr_nonnull(p.set);
	ck_assert_str_eq(p.spec, spec);
	ck_assert_msg(strcmp(p.cpus, cpus) == 0, "%s: cpus %s, want %s", spec,
		      p.cpus, cpus);
	ck_assert_msg(p.numa == numa, "%s: numa %d, want %d", spec, p.numa,
		      numa);
	ck_assert_int_eq(p.nic_local, -1);
	ck_assert_str_eq(p.note, "");
	topo_place_free(&p);
	ck_assert_ptr_null(p.set);
}

/* Resolves spec, expects failure, and returns the message in err. */
static void
resolve_fails(struct topo *t, const char *spec, char *err)
{
	struct topo_place p;

	err[0] = '\0';
	ck_assert_msg(topo_resolve(t, spec, NULL, &p, err) < 0,
		      "%s resolved to %s", spec, p.cpus);
	ck_assert_ptr_null(p.set);
	ck_assert_msg(err[0] != '\0', "%s: no message", spec);
	topo_place_free(&p);
}

/* Picks streams 0..n-1 within base and checks the CPUs they get. */
static void
pick_order(struct topo *t, const struct topo_place *base, const int *want,
	   int n)
{
	struct topo_place out;
	char err[ERR_LEN] = "", cpu[16], spec[32];
	int i;

	for (i = 0; i < n; i++) {
		ck_assert_msg(topo_pick(t, base, i, &out, err) == 0,
			      "pick %d: %s", i, err);
		snprintf(cpu, sizeof(cpu), "%d", want[i]);
		snprintf(spec, sizeof(spec), "stream %d", i);
		ck_assert_msg(strcmp(out.cpus, cpu) == 0,
			      "stream %d got CPU %s, want %s", i, out.cpus,
			      cpu);
		ck_assert_str_eq(out.spec, spec);
		ck_assert_int_eq(hwloc_bitmap_weight(out.set), 1);
		topo_place_free(&out);
	}
}

START_TEST(test_load_synthetic)
{
	struct topo t;

	load_syn(&t, SYN_2PACK);
	ck_assert_int_eq(t.synthetic, 1);
	ck_assert_int_eq(topo_npus(&t), 8);
	topo_free(&t);
	ck_assert_ptr_null(t.t);
	topo_free(&t);
}
END_TEST

START_TEST(test_load_xml)
{
	struct topo t;

	load_xml(&t);
	ck_assert_int_eq(t.synthetic, 1);
	ck_assert_int_eq(topo_npus(&t), 8);
	topo_free(&t);
}
END_TEST

START_TEST(test_load_errors)
{
	struct topo t;
	char err[ERR_LEN] = "";

	ck_assert_int_lt(topo_load(&t, NULL, "pack:two", err), 0);
	ck_assert_ptr_nonnull(strstr(err, "pack:two"));
	ck_assert_ptr_null(t.t);
	err[0] = '\0';
	ck_assert_int_lt(
	    topo_load(&t, NP_TEST_DATA "/topo-missing.xml", NULL, err), 0);
	ck_assert_ptr_nonnull(strstr(err, "topo-missing.xml"));
	ck_assert_ptr_null(t.t);
}
END_TEST

START_TEST(test_resolve_empty)
{
	struct topo t;
	struct topo_place p;
	char err[ERR_LEN] = "";

	load_syn(&t, SYN_2PACK);
	ck_assert_int_eq(topo_resolve(&t, "", "eth0", &p, err), 0);
	ck_assert_ptr_null(p.set);
	ck_assert_str_eq(p.cpus, "");
	ck_assert_str_eq(p.spec, "");
	ck_assert_int_eq(p.numa, -1);
	ck_assert_int_eq(p.nic_local, -1);
	topo_place_free(&p);
	ck_assert_int_eq(topo_resolve(&t, NULL, NULL, &p, err), 0);
	ck_assert_ptr_null(p.set);
	topo_place_free(&p);
	topo_free(&t);

	/* With a single node, even "anywhere" is on node 0. */
	load_syn(&t, "pack:1 core:2 pu:1");
	ck_assert_int_eq(topo_resolve(&t, "", NULL, &p, err), 0);
	ck_assert_int_eq(p.numa, 0);
	topo_place_free(&p);
	topo_free(&t);
}
END_TEST

START_TEST(test_resolve_cpu_number)
{
	struct topo t;

	load_xml(&t);
	resolve_ok(&t, "0", "0", 0);
	resolve_ok(&t, "4", "4", 0);
	resolve_ok(&t, "2", "2", 1);
	resolve_ok(&t, "7", "7", 1);
	topo_free(&t);
}
END_TEST

START_TEST(test_resolve_objects)
{
	struct topo t;

	load_xml(&t);
	/* Logical indexes, not Linux numbers: the second PU is CPU 4. */
	resolve_ok(&t, "pu:0", "0", 0);
	resolve_ok(&t, "pu:1", "4", 0);
	resolve_ok(&t, "PU:2", "1", 0);
	resolve_ok(&t, "core:0", "0,4", 0);
	resolve_ok(&t, "core:2", "2,6", 1);
	resolve_ok(&t, "Core:3", "3,7", 1);
	resolve_ok(&t, "l2:1", "1,5", 0);
	resolve_ok(&t, "L3:1", "2-3,6-7", 1);
	resolve_ok(&t, "numa:0", "0-1,4-5", 0);
	resolve_ok(&t, "numa:1", "2-3,6-7", 1);
	resolve_ok(&t, "node:1", "2-3,6-7", 1);
	resolve_ok(&t, "package:0", "0-1,4-5", 0);
	resolve_ok(&t, "package:1", "2-3,6-7", 1);
	resolve_ok(&t, "SOCKET:1", "2-3,6-7", 1);
	topo_free(&t);

	load_syn(&t, SYN_2PACK);
	resolve_ok(&t, "core:2", "4-5", 1);
	resolve_ok(&t, "pu:5", "5", 1);
	resolve_ok(&t, "numa:0", "0-3", 0);
	topo_free(&t);
}
END_TEST

START_TEST(test_resolve_errors)
{
	struct topo t;
	char err[ERR_LEN];

	load_xml(&t);
	resolve_fails(&t, "99", err);
	ck_assert_str_eq(err, "CPU 99 does not exist (this machine has CPUs "
			      "0-7)");
	resolve_fails(&t, "8", err);
	ck_assert_ptr_nonnull(strstr(err, "CPU 8 does not exist"));
	resolve_fails(&t, "-1", err);
	ck_assert_ptr_nonnull(strstr(err, "CPU -1 does not exist"));
	resolve_fails(&t, "1a", err);
	resolve_fails(&t, "99999999999999999999", err);
	resolve_fails(&t, "core:99", err);
	ck_assert_str_eq(err, "core:99 does not exist (this machine has 4 "
			      "cores: core:0-3)");
	resolve_fails(&t, "numa:2", err);
	ck_assert_ptr_nonnull(strstr(err, "2 NUMA nodes"));
	resolve_fails(&t, "bogus:1", err);
	ck_assert_ptr_nonnull(strstr(err, "\"bogus\""));
	resolve_fails(&t, "core:x", err);
	ck_assert_ptr_nonnull(strstr(err, "\"x\""));
	ck_assert_ptr_nonnull(strstr(err, "core:x"));
	resolve_fails(&t, "core:", err);
	resolve_fails(&t, "core:-1", err);
	resolve_fails(&t, ":1", err);
	topo_free(&t);

	/* A level the machine lacks is named as missing. */
	load_syn(&t, SYN_2PACK);
	resolve_fails(&t, "l3:0", err);
	ck_assert_str_eq(err, "l3:0 does not exist (this machine has no L3 "
			      "caches)");
	topo_free(&t);
}
END_TEST

START_TEST(test_resolve_auto_nic)
{
	struct topo t;
	struct topo_place p;
	char err[ERR_LEN] = "";

	load_xml(&t);
	ck_assert_msg(topo_resolve(&t, "auto", "eth7", &p, err) == 0, "%s",
		      err);
	ck_assert_str_eq(p.cpus, "2-3,6-7");
	ck_assert_int_eq(p.nic_local, 1);
	ck_assert_int_eq(p.numa, 1);
	ck_assert_str_eq(p.spec, "auto");
	ck_assert_str_eq(p.note, "");
	topo_place_free(&p);

	ck_assert_int_eq(topo_resolve(&t, "AUTO", "eth7", &p, err), 0);
	ck_assert_str_eq(p.cpus, "2-3,6-7");
	topo_place_free(&p);
	topo_free(&t);
}
END_TEST

START_TEST(test_resolve_auto_virtual)
{
	struct topo t;
	struct topo_place p;
	char err[ERR_LEN] = "";

	load_xml(&t);
	ck_assert_int_eq(topo_resolve(&t, "auto", "lo", &p, err), 0);
	ck_assert_str_eq(p.cpus, "0-7");
	ck_assert_int_eq(p.nic_local, -1);
	ck_assert_int_eq(p.numa, -1);
	ck_assert_str_eq(p.note, "lo has no PCI device: whole machine");
	topo_place_free(&p);

	ck_assert_int_eq(topo_resolve(&t, "auto", "veth0a", &p, err), 0);
	ck_assert_str_eq(p.cpus, "0-7");
	ck_assert_str_eq(p.note, "veth0a has no PCI device: whole machine");
	topo_place_free(&p);

	ck_assert_int_eq(topo_resolve(&t, "auto", NULL, &p, err), 0);
	ck_assert_str_eq(p.cpus, "0-7");
	ck_assert_int_eq(p.nic_local, -1);
	ck_assert_ptr_nonnull(strstr(p.note, "whole machine"));
	topo_place_free(&p);
	topo_free(&t);
}
END_TEST

START_TEST(test_pick_whole_machine)
{
	static const int syn[] = {0, 2, 4, 6, 1, 3, 5, 7, 0, 2};
	static const int xml[] = {0, 1, 2, 3, 4, 5, 6, 7, 0};
	struct topo t;
	struct topo_place any;
	char err[ERR_LEN] = "";

	/* One thread of each core before any core's second thread. */
	load_syn(&t, SYN_2PACK);
	pick_order(&t, NULL, syn, 10);
	ck_assert_int_eq(topo_resolve(&t, "", NULL, &any, err), 0);
	pick_order(&t, &any, syn, 10);
	topo_place_free(&any);
	topo_free(&t);

	/* Siblings numbered N and N+4: the same rule gives 0-3 first. */
	load_xml(&t);
	pick_order(&t, NULL, xml, 9);
	topo_free(&t);

	/* No cores in the topology: each PU stands alone. */
	load_syn(&t, "pack:2 pu:3");
	{
		static const int flat[] = {0, 1, 2, 3, 4, 5, 0};

		pick_order(&t, NULL, flat, 7);
	}
	topo_free(&t);
}
END_TEST

START_TEST(test_pick_within_place)
{
	static const int numa1[] = {4, 6, 5, 7, 4};
	static const int pack1[] = {2, 3, 6, 7, 2};
	static const int partial[] = {1, 2, 3, 1};
	struct topo t;
	struct topo_place base, out;
	char err[ERR_LEN] = "";

	load_syn(&t, SYN_2PACK);
	ck_assert_int_eq(topo_resolve(&t, "numa:1", NULL, &base, err), 0);
	pick_order(&t, &base, numa1, 5);
	ck_assert_int_eq(topo_pick(&t, &base, 1, &out, err), 0);
	ck_assert_int_eq(out.numa, 1);
	topo_place_free(&out);
	topo_place_free(&base);

	/* CPUs 1, 2 and 3: core 0 contributes only its second thread, which
	 * counts as that core's first within the place. */
	memset(&base, 0, sizeof(base));
	base.set = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(base.set, 1, 3);
	pick_order(&t, &base, partial, 4);
	topo_place_free(&base);
	topo_free(&t);

	load_xml(&t);
	ck_assert_int_eq(topo_resolve(&t, "package:1", NULL, &base, err), 0);
	pick_order(&t, &base, pack1, 5);
	topo_place_free(&base);

	/* The NIC's side is kept, and the NUMA node is the PU's own. */
	ck_assert_int_eq(topo_resolve(&t, "auto", "eth7", &base, err), 0);
	ck_assert_int_eq(topo_pick(&t, &base, 3, &out, err), 0);
	ck_assert_str_eq(out.cpus, "7");
	ck_assert_int_eq(out.nic_local, 1);
	ck_assert_int_eq(out.numa, 1);
	topo_place_free(&out);
	topo_place_free(&base);

	ck_assert_int_eq(topo_resolve(&t, "auto", "lo", &base, err), 0);
	ck_assert_int_eq(topo_pick(&t, &base, 0, &out, err), 0);
	ck_assert_str_eq(out.cpus, "0");
	ck_assert_int_eq(out.nic_local, -1);
	ck_assert_int_eq(out.numa, 0);
	ck_assert_str_eq(out.note, "lo has no PCI device: whole machine");
	topo_place_free(&out);
	topo_place_free(&base);
	topo_free(&t);
}
END_TEST

START_TEST(test_pick_errors)
{
	struct topo t;
	struct topo_place base, out;
	char err[ERR_LEN] = "";

	load_syn(&t, SYN_2PACK);
	ck_assert_int_lt(topo_pick(&t, NULL, -1, &out, err), 0);
	ck_assert_ptr_null(out.set);

	/* A set with no CPU of this topology leaves nothing to pick. */
	memset(&base, 0, sizeof(base));
	base.set = hwloc_bitmap_alloc();
	hwloc_bitmap_only(base.set, 100);
	snprintf(base.cpus, sizeof(base.cpus), "100");
	err[0] = '\0';
	ck_assert_int_lt(topo_pick(&t, &base, 0, &out, err), 0);
	ck_assert_ptr_nonnull(strstr(err, "100"));
	ck_assert_ptr_null(out.set);
	topo_place_free(&base);
	topo_free(&t);
}
END_TEST

START_TEST(test_bind_synthetic)
{
	struct topo t;
	struct topo_place p;
	char err[ERR_LEN] = "";

	/* CPU 7 may not exist here: on a synthetic topology binding must
	 * succeed without touching the thread. */
	load_syn(&t, SYN_2PACK);
	ck_assert_int_eq(topo_resolve(&t, "7", NULL, &p, err), 0);
	ck_assert_msg(topo_bind_thread(&t, &p, err) == 0, "%s", err);
	topo_place_free(&p);
	ck_assert_int_eq(topo_resolve(&t, "", NULL, &p, err), 0);
	ck_assert_int_eq(topo_bind_thread(&t, &p, err), 0);
	topo_place_free(&p);
	topo_free(&t);

	load_xml(&t);
	ck_assert_int_eq(topo_resolve(&t, "auto", "eth7", &p, err), 0);
	ck_assert_msg(topo_bind_thread(&t, &p, err) == 0, "%s", err);
	topo_place_free(&p);
	topo_free(&t);
}
END_TEST

START_TEST(test_cpu_numa)
{
	struct topo t;

	load_xml(&t);
	ck_assert_int_eq(topo_cpu_numa(&t, 0), 0);
	ck_assert_int_eq(topo_cpu_numa(&t, 4), 0);
	ck_assert_int_eq(topo_cpu_numa(&t, 2), 1);
	ck_assert_int_eq(topo_cpu_numa(&t, 7), 1);
	ck_assert_int_eq(topo_cpu_numa(&t, 8), -1);
	ck_assert_int_eq(topo_cpu_numa(&t, -1), -1);
	topo_free(&t);
}
END_TEST

START_TEST(test_place_free_zeroed)
{
	struct topo_place p;

	memset(&p, 0, sizeof(p));
	topo_place_free(&p);
	topo_place_free(&p);
	ck_assert_ptr_null(p.set);
}
END_TEST

/* Binds to cpu on this machine and checks the thread then runs there. */
static void
bind_and_check(struct topo *t, int cpu)
{
	struct topo_place p;
	char err[ERR_LEN] = "", spec[16];

	snprintf(spec, sizeof(spec), "%d", cpu);
	ck_assert_msg(topo_resolve(t, spec, NULL, &p, err) == 0, "%s", err);
	ck_assert_msg(topo_bind_thread(t, &p, err) == 0, "%s", err);
	sched_yield();
	ck_assert_int_eq(sched_getcpu(), cpu);
	ck_assert_int_eq(topo_current_cpu(t), cpu);
	topo_place_free(&p);
}

START_TEST(test_real_bind)
{
	struct topo t;
	char err[ERR_LEN] = "";
	hwloc_const_bitmap_t all;

	ck_assert_msg(topo_load(&t, NULL, NULL, err) == 0, "%s", err);
	ck_assert_int_eq(t.synthetic, 0);
	ck_assert_int_ge(topo_npus(&t), 1);
	ck_assert_int_ge(topo_current_cpu(&t), 0);
	/* CPU 0 is the first CPU unless a cgroup hides it; then take the
	 * first one this process may use. */
	all = hwloc_topology_get_topology_cpuset(t.t);
	bind_and_check(&t, hwloc_bitmap_first(all));
	if (topo_npus(&t) > 1)
		bind_and_check(&t, hwloc_bitmap_last(all));
	topo_free(&t);
}
END_TEST

START_TEST(test_real_missing_cpu)
{
	struct topo t;
	struct topo_place p;
	char err[ERR_LEN] = "";

	ck_assert_msg(topo_load(&t, NULL, NULL, err) == 0, "%s", err);
	ck_assert_int_lt(topo_resolve(&t, "99999", NULL, &p, err), 0);
	ck_assert_ptr_nonnull(strstr(err, "CPU 99999 does not exist"));
	ck_assert_ptr_null(p.set);

	/* A set built by hand that names no real CPU fails at the bind. */
	memset(&p, 0, sizeof(p));
	p.set = hwloc_bitmap_alloc();
	hwloc_bitmap_only(p.set, 99999);
	err[0] = '\0';
	ck_assert_int_lt(topo_bind_thread(&t, &p, err), 0);
	ck_assert_str_eq(err, "cannot bind to CPUs 99999: Invalid argument");
	topo_place_free(&p);
	topo_free(&t);
}
END_TEST

START_TEST(test_real_auto_lo)
{
	struct topo t;
	struct topo_place p;
	char err[ERR_LEN] = "", all[256];

	/* Loopback never has a PCI device, on any machine. */
	ck_assert_msg(topo_load(&t, NULL, NULL, err) == 0, "%s", err);
	ck_assert_int_eq(topo_resolve(&t, "auto", "lo", &p, err), 0);
	hwloc_bitmap_list_snprintf(all, sizeof(all),
				   hwloc_topology_get_topology_cpuset(t.t));
	ck_assert_str_eq(p.cpus, all);
	ck_assert_int_eq(p.nic_local, -1);
	ck_assert_str_eq(p.note, "lo has no PCI device: whole machine");
	ck_assert_msg(topo_bind_thread(&t, &p, err) == 0, "%s", err);
	topo_place_free(&p);
	topo_free(&t);
}
END_TEST

/*
 * hwloc is loaded only where placement is asked (-T, several streams): a
 * plain test runs, on both sides, with a topology hwloc cannot load
 * (HWLOC_XMLFILE naming a broken file), and -T, which must load it,
 * fails with it, which shows that the variable reaches hwloc.
 */
START_TEST(test_unasked_never_loaded)
{
	static struct harness_out o;
	char xml[] = "/tmp/check_topo_XXXXXX", port[16];
	struct harness_server s;
	int fd;

	fd = mkstemp(xml);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "<broken", 7), 7);
	close(fd);
	ck_assert_int_eq(setenv("HWLOC_XMLFILE", xml, 1), 0);
	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	snprintf(port, sizeof(port), "%d", s.port);
	{
		const char *args[] = {"-H",	"127.0.0.1", "-p",  port, "-t",
				      "TCP_RR", "-l",	     "0.2", NULL};

		ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
		ck_assert_msg(o.status == 0,
			      "a test without placement failed: %s", o.err);
	}
	{
		const char *args[] = {"-H", "127.0.0.1", "-p", port,
				      "-t", "TCP_RR",	 "-l", "0.2",
				      "-T", "0",	 NULL};

		ck_assert_int_eq(harness_netperf(args, 30, &o), 0);
		ck_assert_msg(o.status != 0 && strstr(o.err, "topology"),
			      "-T with a broken topology: status %d: %s",
			      o.status, o.err);
	}
	harness_server_stop(&s);
	unlink(xml);
}
END_TEST

static Suite *
topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc;

	tc = tcase_create("load");
	tcase_add_test(tc, test_load_synthetic);
	tcase_add_test(tc, test_load_xml);
	tcase_add_test(tc, test_load_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("resolve");
	tcase_add_test(tc, test_resolve_empty);
	tcase_add_test(tc, test_resolve_cpu_number);
	tcase_add_test(tc, test_resolve_objects);
	tcase_add_test(tc, test_resolve_errors);
	tcase_add_test(tc, test_resolve_auto_nic);
	tcase_add_test(tc, test_resolve_auto_virtual);
	tcase_add_test(tc, test_cpu_numa);
	tcase_add_test(tc, test_place_free_zeroed);
	suite_add_tcase(s, tc);

	tc = tcase_create("pick");
	tcase_add_test(tc, test_pick_whole_machine);
	tcase_add_test(tc, test_pick_within_place);
	tcase_add_test(tc, test_pick_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("bind");
	tcase_add_test(tc, test_bind_synthetic);
	tcase_add_test(tc, test_real_bind);
	tcase_add_test(tc, test_real_missing_cpu);
	tcase_add_test(tc, test_real_auto_lo);
	suite_add_tcase(s, tc);

	tc = tcase_create("lazy");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_unasked_never_loaded);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(topo_suite());
}
