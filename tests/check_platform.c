/*
 * The platform record: its parsers fed with literal /proc and /sys text
 * and netlink replies, its wire codec, and one real run whose record must
 * match what this machine's /proc/cpuinfo and uname(2) say.
 */
#include <jansson.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "np/err.h"
#include "harness.h"
#include "np/platform.h"
#include "np/proto.h"

/* An x86 guest's /proc/cpuinfo, cut to two CPUs. */
static const char cpuinfo_x86[] =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 85\n"
    "model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\n"
    "stepping\t: 4\n"
    "cpu MHz\t\t: 2394.374\n"
    "cache size\t: 28160 KB\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor "
    "lahf_lm\n"
    "\n"
    "processor\t: 1\n"
    "model name\t: something else entirely\n"
    "cpu MHz\t\t: 1000.000\n"
    "flags\t\t: fpu vme hypervisor\n";

/* An arm64 host's: no model name, no MHz, no hypervisor flag. */
static const char cpuinfo_arm[] =
    "processor\t: 0\n"
    "BogoMIPS\t: 50.00\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x3\n"
    "CPU part\t: 0xd0c\n"
    "CPU revision\t: 1\n";

START_TEST(test_cpuinfo_x86)
{
	struct platform p;

	platform_init(&p);
	ck_assert_int_eq(platform_parse_cpuinfo(cpuinfo_x86, &p), 1);
	ck_assert_str_eq(p.cpu_model,
			 "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
	/* netperf 2.6's find_cpu_freq: rint() of the first "cpu MHz". */
	ck_assert_int_eq(p.cpu_mhz, 2394);
}
END_TEST

START_TEST(test_cpuinfo_arm)
{
	struct platform p;

	platform_init(&p);
	ck_assert_int_eq(platform_parse_cpuinfo(cpuinfo_arm, &p), 0);
	ck_assert_str_eq(p.cpu_model, "implementer 0x41 part 0xd0c");
	ck_assert_int_eq(p.cpu_mhz, -1);
	/* A "flags" word that merely contains "hypervisor" is not it. */
	platform_init(&p);
	ck_assert_int_eq(
	    platform_parse_cpuinfo("flags\t: nohypervisor fpu\n", &p), 0);
	ck_assert_str_eq(p.cpu_model, "");
	/* A frequency already known (from cpufreq) is kept. */
	p.cpu_mhz = 3000;
	platform_parse_cpuinfo(cpuinfo_x86, &p);
	ck_assert_int_eq(p.cpu_mhz, 3000);
}
END_TEST

START_TEST(test_cpulist)
{
	char acc[64] = "";

	ck_assert_int_eq(platform_cpulist_count("0\n"), 1);
	ck_assert_int_eq(platform_cpulist_count("0-3,8,10-11\n"), 7);
	ck_assert_int_eq(platform_cpulist_count(""), 0);
	ck_assert_int_eq(platform_cpulist_count("0-"), -1);
	ck_assert_int_eq(platform_cpulist_count("3-1"), -1);
	ck_assert_int_eq(platform_cpulist_count("x"), -1);
	ck_assert_int_eq(platform_cpulist_count("4096"), -1);
	/* IRQ affinities of four queues, merged. */
	ck_assert_int_eq(platform_cpulist_union(acc, sizeof(acc), "2\n"), 0);
	ck_assert_int_eq(platform_cpulist_union(acc, sizeof(acc), "0\n"), 0);
	ck_assert_int_eq(platform_cpulist_union(acc, sizeof(acc), "1\n"), 0);
	ck_assert_int_eq(platform_cpulist_union(acc, sizeof(acc), "7-9\n"), 0);
	ck_assert_str_eq(acc, "0-2,7-9");
	ck_assert_int_eq(platform_cpulist_union(acc, sizeof(acc), "bad"), -1);
	ck_assert_str_eq(acc, "0-2,7-9");
	{
		char tiny[4] = "";

		ck_assert_int_eq(
		    platform_cpulist_union(tiny, sizeof(tiny), "0,2,4,6"), -1);
	}
}
END_TEST

START_TEST(test_cmdline)
{
	char out[256];

	platform_parse_cmdline(
	    "BOOT_IMAGE=/vmlinuz root=/dev/sda1 mitigations=off nopti "
	    "spectre_v2=retpoline nospectre_v1x quiet -- pti=on\n",
	    out, sizeof(out));
	ck_assert_str_eq(out, "mitigations=off nopti spectre_v2=retpoline");
	platform_parse_cmdline("root=/dev/vda quiet\n", out, sizeof(out));
	ck_assert_str_eq(out, "");
	/* A word too long for the room left is dropped, not cut. */
	platform_parse_cmdline("nopti mitigations=auto,nosmt", out, 12);
	ck_assert_str_eq(out, "nopti");
}
END_TEST

START_TEST(test_hypervisor_container)
{
	char out[32];

	platform_hypervisor_name("KVMKVMKVM\0\0\0", out, sizeof(out));
	ck_assert_str_eq(out, "KVM");
	platform_hypervisor_name("Microsoft Hv", out, sizeof(out));
	ck_assert_str_eq(out, "Hyper-V");
	platform_hypervisor_name("VMwareVMware", out, sizeof(out));
	ck_assert_str_eq(out, "VMware");
	platform_hypervisor_name("  NewVisor  ", out, sizeof(out));
	ck_assert_str_eq(out, "NewVisor");

	platform_container_of("0::/\n", 0, 0, NULL, out, sizeof(out));
	ck_assert_str_eq(out, "none");
	platform_container_of("0::/\n", 1, 0, NULL, out, sizeof(out));
	ck_assert_str_eq(out, "docker");
	platform_container_of(
	    "12:pids:/docker/3f1c0a9e\n0::/system.slice/docker-3f1c.scope\n", 0,
	    0, NULL, out, sizeof(out));
	ck_assert_str_eq(out, "docker");
	platform_container_of("0::/kubepods/besteffort/pod1234/abcd\n", 1, 0,
			      NULL, out, sizeof(out));
	ck_assert_str_eq(out, "kubernetes");
	platform_container_of("0::/lxc.payload.web\n", 0, 0, NULL, out,
			      sizeof(out));
	ck_assert_str_eq(out, "lxc");
	platform_container_of("0::/\n", 0, 1, NULL, out, sizeof(out));
	ck_assert_str_eq(out, "podman");
	platform_container_of("0::/\n", 1, 0, "systemd-nspawn", out,
			      sizeof(out));
	ck_assert_str_eq(out, "systemd-nspawn");
}
END_TEST

START_TEST(test_numbers)
{
	ck_assert_int_eq(platform_parse_khz("2100000\n"), 2100);
	ck_assert_int_eq(platform_parse_khz("3499999\n"), 3500);
	ck_assert_int_eq(platform_parse_khz("<unknown>\n"), -1);
	ck_assert_int_eq(platform_parse_khz("12x"), -1);
	ck_assert_int_eq(platform_parse_hex("0x8086\n"), 0x8086);
	ck_assert_int_eq(platform_parse_hex("0x1af4"), 0x1af4);
	ck_assert_int_eq(platform_parse_hex("8086\n"), -1);
	ck_assert_int_eq(platform_parse_hex("0x123456"), -1);
	ck_assert_int_eq(platform_parse_hex("0xzz"), -1);
}
END_TEST

/* Appends one RTM_NEWQDISC message for ifindex with the given parent and
 * kind to buf at *off. */
static void
put_qdisc(char *buf, size_t *off, int ifindex, unsigned parent,
	  const char *kind)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(buf + *off);
	struct tcmsg *t = NLMSG_DATA(h);
	struct rtattr *a =
	    (struct rtattr *)((char *)t + NLMSG_ALIGN(sizeof(*t)));
	size_t klen = strlen(kind) + 1;

	memset(h, 0, NLMSG_SPACE(sizeof(*t) + RTA_SPACE(klen)));
	a->rta_type = TCA_KIND;
	a->rta_len = (unsigned short)RTA_LENGTH(klen);
	memcpy(RTA_DATA(a), kind, klen);
	t->tcm_ifindex = ifindex;
	t->tcm_parent = parent;
	h->nlmsg_type = RTM_NEWQDISC;
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*t) + RTA_SPACE(klen));
	*off += NLMSG_ALIGN(h->nlmsg_len);
}

START_TEST(test_qdisc)
{
	static char buf[4096];
	struct nlmsghdr *h;
	char kind[32];
	size_t off = 0;

	/* A dump holds every device's qdiscs: only ifindex 3's root. */
	put_qdisc(buf, &off, 2, TC_H_ROOT, "pfifo_fast");
	put_qdisc(buf, &off, 3, 0x10001, "fq_codel");
	put_qdisc(buf, &off, 3, TC_H_ROOT, "mq");
	ck_assert_int_eq(platform_parse_qdisc(buf, off, 3, kind, sizeof(kind)),
			 1);
	ck_assert_str_eq(kind, "mq");
	ck_assert_int_eq(platform_parse_qdisc(buf, off, 2, kind, sizeof(kind)),
			 1);
	ck_assert_str_eq(kind, "pfifo_fast");
	/* Not in this part of the dump: read on. */
	ck_assert_int_eq(platform_parse_qdisc(buf, off, 9, kind, sizeof(kind)),
			 0);
	/* The end of the dump. */
	h = (struct nlmsghdr *)(buf + off);
	memset(h, 0, NLMSG_SPACE(4));
	h->nlmsg_type = NLMSG_DONE;
	h->nlmsg_len = NLMSG_LENGTH(4);
	ck_assert_int_eq(platform_parse_qdisc(buf,
					      off + NLMSG_ALIGN(h->nlmsg_len),
					      9, kind, sizeof(kind)),
			 2);
	/* A length that runs past the buffer is malformed. */
	((struct nlmsghdr *)buf)->nlmsg_len = 10000;
	ck_assert_int_eq(platform_parse_qdisc(buf, off, 3, kind, sizeof(kind)),
			 -1);
}
END_TEST

START_TEST(test_texts)
{
	struct platform p;
	char b[128];

	platform_init(&p);
	platform_offloads_text(&p.nic, b, sizeof(b));
	ck_assert_str_eq(b, "");
	p.nic.tso = 1;
	p.nic.gso = 0;
	p.nic.gro = 1;
	p.nic.tx_csum = 1;
	platform_offloads_text(&p.nic, b, sizeof(b));
	ck_assert_str_eq(b, "tso gro tx-csum");
	platform_vulnerable_text(&p, b, sizeof(b));
	ck_assert_str_eq(b, "");
	p.nvulns = 3;
	snprintf(p.vuln[0].name, sizeof(p.vuln[0].name), "meltdown");
	snprintf(p.vuln[0].state, sizeof(p.vuln[0].state), "Mitigation: PTI");
	snprintf(p.vuln[1].name, sizeof(p.vuln[1].name), "l1tf");
	snprintf(p.vuln[1].state, sizeof(p.vuln[1].state), "Not affected");
	snprintf(p.vuln[2].name, sizeof(p.vuln[2].name), "mds");
	snprintf(p.vuln[2].state, sizeof(p.vuln[2].state),
		 "Vulnerable: Clear CPU buffers attempted, no microcode");
	platform_vulnerable_text(&p, b, sizeof(b));
	ck_assert_str_eq(b, "mds");
	p.nvulns = 2;
	platform_vulnerable_text(&p, b, sizeof(b));
	ck_assert_str_eq(b, "none");
}
END_TEST

/* The PCI slot of an address, from a slots directory laid out as
 * /sys/bus/pci/slots is: "<slot>/address" holds domain:bus:device. */
START_TEST(test_slot)
{
	char dir[] = "/tmp/np-slots-XXXXXX", path[128], out[32];
	static const char *const slots[][2] = {
	    {"3", "0000:00:03\n"}, {"0", "0000:00:0\n"}, {"7-1", "0000:3b:00"}};

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, slots[i][0]);
		ck_assert_int_eq(mkdir(path, 0700), 0);
		snprintf(path, sizeof(path), "%s/%s/address", dir, slots[i][0]);
		harness_write_file(path, slots[i][1], strlen(slots[i][1]), 0600);
	}
	ck_assert_int_eq(platform_slot_of(dir, "0000:00:03.0", out,
					  sizeof(out)),
			 0);
	ck_assert_str_eq(out, "3");
	ck_assert_int_eq(platform_slot_of(dir, "0000:3b:00.1", out,
					  sizeof(out)),
			 0);
	ck_assert_str_eq(out, "7-1");
	/* Slot "0" (0000:00:0) is a prefix of 0000:00:03.0's text, not its
	 * device; and an address in no slot has none. */
	ck_assert_int_eq(platform_slot_of(dir, "0000:00:04.0", out,
					  sizeof(out)),
			 -1);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(platform_slot_of("/nonexistent", "0000:00:03.0", out,
					  sizeof(out)),
			 -1);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s/address", dir, slots[i][0]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, slots[i][0]);
		rmdir(path);
	}
	rmdir(dir);
}
END_TEST

START_TEST(test_codec)
{
	struct platform p, q;
	char err[ERR_LEN];
	json_t *j;

	platform_init(&p);
	snprintf(p.cpu_model, sizeof(p.cpu_model), "AMD EPYC 7B13");
	p.ncpu = 64;
	p.smt = 1;
	p.cpu_mhz = 2450;
	snprintf(p.governor, sizeof(p.governor), "performance");
	snprintf(p.release, sizeof(p.release), "6.1.0-18-amd64");
	p.numa_nodes = 2;
	snprintf(p.nic.name, sizeof(p.nic.name), "eth0");
	snprintf(p.nic.driver, sizeof(p.nic.driver), "mlx5_core");
	p.nic.vendor = 0x15b3;
	p.nic.device = 0x101d;
	p.nic.tso = 1;
	p.nic.lro = 0;
	p.nic.speed_mbps = 100000;
	p.nvulns = 1;
	snprintf(p.vuln[0].name, sizeof(p.vuln[0].name), "retbleed");
	snprintf(p.vuln[0].state, sizeof(p.vuln[0].state), "Not affected");
	j = proto_platform_pack(&p);
	ck_assert_ptr_nonnull(j);
	/* Unknowns travel as null. */
	ck_assert(json_is_null(json_object_get(j, "cpu_max_mhz")));
	ck_assert(json_is_null(
	    json_object_get(json_object_get(j, "interface"), "gro")));
	ck_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(j, "interface"), "pci_vendor")),
			 "0x15b3");
	ck_assert_int_eq(proto_platform_unpack(j, &q, err), 0);
	ck_assert_mem_eq(&p, &q, sizeof(p));
	json_decref(j);

	/* An older netserver's empty record is all unknown. */
	j = json_object();
	ck_assert_int_eq(proto_platform_unpack(j, &q, err), 0);
	ck_assert_int_eq(q.ncpu, -1);
	ck_assert_int_eq(q.nic.tso, -1);
	json_decref(j);
	/* Wrong types are named. */
	j = json_pack("{s:s}", "ncpu", "many");
	ck_assert_int_eq(proto_platform_unpack(j, &q, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "ncpu"));
	json_decref(j);
	j = json_pack("{s:{s:i}}", "interface", "tso", 1);
	ck_assert_int_eq(proto_platform_unpack(j, &q, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "tso"));
	json_decref(j);
	j = json_pack("{s:{s:s}}", "interface", "pci_vendor", "8086");
	ck_assert_int_eq(proto_platform_unpack(j, &q, err), -1);
	json_decref(j);
	j = json_pack("{s:{s:i}}", "vulnerabilities", "mds", 3);
	ck_assert_int_eq(proto_platform_unpack(j, &q, err), -1);
	json_decref(j);
	j = json_string("x");
	ck_assert_int_eq(proto_platform_unpack(j, &q, err), -1);
	json_decref(j);
}
END_TEST

/* The first "model name" of this machine's /proc/cpuinfo, read here
 * without lib/platform. */
static void
real_model(char *out, size_t cap)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	out[0] = '\0';
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *c = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || c == NULL)
			continue;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		c[strcspn(c, "\n")] = '\0';
		snprintf(out, cap, "%s", c);
		break;
	}
	if (f != NULL)
		fclose(f);
}

static void
check_side(const json_t *side, const struct utsname *u, const char *model)
{
	const json_t *pl = json_object_get(side, "platform");
	const char *m = json_string_value(json_object_get(pl, "cpu_model"));

	ck_assert(json_is_object(pl));
	ck_assert_str_eq(json_string_value(json_object_get(pl, "sysname")),
			 u->sysname);
	ck_assert_str_eq(json_string_value(json_object_get(pl, "release")),
			 u->release);
	ck_assert_str_eq(json_string_value(json_object_get(pl, "version")),
			 u->version);
	ck_assert_str_eq(json_string_value(json_object_get(pl, "machine")),
			 u->machine);
	if (model[0] != '\0')
		ck_assert_str_eq(m != NULL ? m : "(null)", model);
	ck_assert_int_eq(json_integer_value(json_object_get(pl, "ncpu")),
			 sysconf(_SC_NPROCESSORS_ONLN));
	/* Loopback: the data path is lo on both sides. */
	ck_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(pl, "interface"), "name")),
			 "lo");
}

START_TEST(test_real_record)
{
	static struct harness_out o;
	struct harness_server s;
	struct utsname u;
	char port[16], model[256];
	json_error_t je;
	json_t *doc;
	int rc;

	ck_assert_int_eq(harness_server_start(&s, NULL), 0);
	snprintf(port, sizeof(port), "%d", s.port);
	{
		const char *args[] = {"-H",	"127.0.0.1", "-p", port,
				      "-l",	"0.5",	     "-t", "TCP_RR",
				      "--json", NULL};

		rc = harness_netperf(args, 30, &o);
	}
	harness_server_stop(&s);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(o.status == 0, "netperf failed: %s", o.err);
	doc = json_loads(o.out, 0, &je);
	ck_assert_msg(doc != NULL, "not JSON: %s", je.text);
	ck_assert_int_eq(uname(&u), 0);
	real_model(model, sizeof(model));
	check_side(json_object_get(doc, "local"), &u, model);
	check_side(json_object_get(doc, "remote"), &u, model);
	json_decref(doc);
}
END_TEST

/* The host's part read by a thread (platform_job_*) is the record
 * platform_collect reads in one go, for each record made from it. */
START_TEST(test_job_record)
{
	static struct platform_job j;
	static struct platform whole, a, b;
	struct platform_inputs in = {"netperf", "cubic", NULL, NULL};

	platform_job_start(&j, "netperf");
	platform_collect(&whole, &in);
	platform_job_record(&j, &a, &in);
	platform_job_record(&j, &b, &in);
	ck_assert(!j.running && j.done);
	ck_assert_str_eq(a.program, whole.program);
	ck_assert_str_eq(a.build, whole.build);
	ck_assert_str_eq(a.cpu_model, whole.cpu_model);
	ck_assert_int_eq(a.ncpu, whole.ncpu);
	ck_assert_str_eq(a.release, whole.release);
	ck_assert_str_eq(a.hypervisor, whole.hypervisor);
	ck_assert_str_eq(a.container, whole.container);
	ck_assert_int_eq(a.numa_nodes, whole.numa_nodes);
	ck_assert_str_eq(a.congestion, "cubic");
	ck_assert_int_eq(a.nvulns, whole.nvulns);
	for (int i = 0; i < a.nvulns; i++) {
		ck_assert_str_eq(a.vuln[i].name, whole.vuln[i].name);
		ck_assert_str_eq(a.vuln[i].state, whole.vuln[i].state);
	}
	ck_assert_str_eq(b.cpu_model, a.cpu_model);
	ck_assert_int_eq(b.nvulns, a.nvulns);
}
END_TEST

static Suite *
platform_suite(void)
{
	Suite *s = suite_create("platform");
	TCase *tc = tcase_create("parsers");
	TCase *real = tcase_create("real");

	tcase_add_test(tc, test_cpuinfo_x86);
	tcase_add_test(tc, test_cpuinfo_arm);
	tcase_add_test(tc, test_cpulist);
	tcase_add_test(tc, test_cmdline);
	tcase_add_test(tc, test_hypervisor_container);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_qdisc);
	tcase_add_test(tc, test_texts);
	tcase_add_test(tc, test_codec);
	tcase_add_test(tc, test_slot);
	suite_add_tcase(s, tc);
	tcase_add_test(real, test_real_record);
	tcase_add_test(real, test_job_record);
	tcase_set_timeout(real, 60);
	suite_add_tcase(s, real);
	return s;
}

int
main(void)
{
	return harness_run(platform_suite());
}
