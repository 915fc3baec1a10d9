#include "np/platform.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "np/cpu.h"
#include "np/err.h"
#include "np/file.h"
#include "np/iface.h"

#ifndef NP_BUILD
#define NP_BUILD "unknown"
#endif

/* The highest CPU number a list may name (4096 CPUs). */
#define PLATFORM_MAX_CPU 4095

void
platform_init(struct platform *p)
{
	memset(p, 0, sizeof(*p));
	p->ncpu = -1;
	p->smt = -1;
	p->cpu_mhz = -1;
	p->cpu_max_mhz = -1;
	p->numa_nodes = -1;
	p->nic.vendor = p->nic.device = -1;
	p->nic.subvendor = p->nic.subdevice = -1;
	p->nic.speed_mbps = -1;
	p->nic.mtu = -1;
	p->nic.tso = p->nic.gso = p->nic.gro = -1;
	p->nic.lro = p->nic.rx_csum = p->nic.tx_csum = -1;
}

/* Copies s into out, cut to cap - 1 bytes. */
static void
copy_str(char *out, size_t cap, const char *s)
{
	size_t n = strnlen(s, cap - 1);

	memcpy(out, s, n);
	out[n] = '\0';
}

/* Copies a value into out with surrounding blanks and the newline cut. */
static void
trimmed(const char *s, size_t len, char *out, size_t cap)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len >= cap)
		len = cap - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

/* The value of a "key : value" line of cpuinfo whose key is exactly key,
 * into out; returns 1 when the line matched. */
static int
cpuinfo_value(const char *line, size_t len, const char *key, char *out,
	      size_t cap)
{
	const char *colon = memchr(line, ':', len);
	size_t klen = strlen(key), n;

	if (colon == NULL)
		return 0;
	n = (size_t)(colon - line);
	while (n > 0 && isspace((unsigned char)line[n - 1]))
		n--;
	if (n != klen || strncmp(line, key, klen) != 0)
		return 0;
	trimmed(colon + 1, len - (size_t)(colon + 1 - line), out, cap);
	return 1;
}

int
platform_parse_cpuinfo(const char *text, struct platform *p)
{
	char v[256], impl[32] = "", part[32] = "", other[128] = "";
	const char *line = text, *end;
	int hv = 0;

	while (line != NULL && *line != '\0') {
		size_t len;

		end = strchr(line, '\n');
		len = end != NULL ? (size_t)(end - line) : strlen(line);
		if (p->cpu_model[0] == '\0' &&
		    cpuinfo_value(line, len, "model name", v, sizeof(v)))
			copy_str(p->cpu_model, sizeof(p->cpu_model), v);
		else if (p->cpu_mhz < 0 &&
			 cpuinfo_value(line, len, "cpu MHz", v, sizeof(v)))
			p->cpu_mhz = (int)lrint(strtod(v, NULL));
		else if (cpuinfo_value(line, len, "flags", v, sizeof(v))) {
			char *w, *save = NULL;

			for (w = strtok_r(v, " \t", &save); w != NULL;
			     w = strtok_r(NULL, " \t", &save))
				if (strcmp(w, "hypervisor") == 0)
					hv = 1;
		} else if (impl[0] == '\0' &&
			   cpuinfo_value(line, len, "CPU implementer", v,
					 sizeof(v)))
			copy_str(impl, sizeof(impl), v);
		else if (part[0] == '\0' &&
			 cpuinfo_value(line, len, "CPU part", v, sizeof(v)))
			copy_str(part, sizeof(part), v);
		else if (other[0] == '\0' &&
			 (cpuinfo_value(line, len, "cpu model", v, sizeof(v)) ||
			  cpuinfo_value(line, len, "uarch", v, sizeof(v)) ||
			  cpuinfo_value(line, len, "cpu", v, sizeof(v))))
			copy_str(other, sizeof(other), v);
		line = end != NULL ? end + 1 : NULL;
	}
	/* arm64 names no model: its implementer and part identify it. */
	if (p->cpu_model[0] == '\0' && impl[0] != '\0')
		snprintf(p->cpu_model, sizeof(p->cpu_model),
			 "implementer %s part %s", impl,
			 part[0] != '\0' ? part : "?");
	else if (p->cpu_model[0] == '\0' && other[0] != '\0')
		copy_str(p->cpu_model, sizeof(p->cpu_model), other);
	return hv;
}

/* Parses a CPU list into a bitmap of PLATFORM_MAX_CPU + 1 bits; returns
 * 0, or -1 when it is not one. An empty list is valid and empty. */
static int
cpulist_bits(const char *s, uint64_t *bits)
{
	while (*s != '\0') {
		char *e;
		long a, b;

		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == ',')
			s++;
		if (*s == '\0')
			break;
		if (!isdigit((unsigned char)*s))
			return -1;
		a = strtol(s, &e, 10);
		b = a;
		if (*e == '-') {
			if (!isdigit((unsigned char)e[1]))
				return -1;
			b = strtol(e + 1, &e, 10);
		}
		if (a < 0 || b < a || b > PLATFORM_MAX_CPU)
			return -1;
		if (*e != '\0' && *e != ',' && *e != '\n' && *e != ' ')
			return -1;
		for (long i = a; i <= b; i++)
			bits[i / 64] |= (uint64_t)1 << (i % 64);
		s = e;
	}
	return 0;
}

int
platform_cpulist_count(const char *text)
{
	uint64_t bits[(PLATFORM_MAX_CPU + 1) / 64] = {0};
	int n = 0;

	if (text == NULL || cpulist_bits(text, bits) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		n += __builtin_popcountll(bits[i]);
	return n;
}

int
platform_cpulist_union(char *acc, size_t cap, const char *add)
{
	uint64_t bits[(PLATFORM_MAX_CPU + 1) / 64] = {0};
	size_t used = 0;
	int i = 0;

	if (cap == 0 || cpulist_bits(acc, bits) < 0 ||
	    cpulist_bits(add, bits) < 0)
		return -1;
	acc[0] = '\0';
	while (i <= PLATFORM_MAX_CPU) {
		int j;
		int n;

		if (!(bits[i / 64] & ((uint64_t)1 << (i % 64)))) {
			i++;
			continue;
		}
		for (j = i;
		     j + 1 <= PLATFORM_MAX_CPU &&
		     (bits[(j + 1) / 64] & ((uint64_t)1 << ((j + 1) % 64)));
		     j++)
			;
		if (j == i)
			n = snprintf(acc + used, cap - used, "%s%d",
				     used ? "," : "", i);
		else
			n = snprintf(acc + used, cap - used, "%s%d-%d",
				     used ? "," : "", i, j);
		if (n < 0 || (size_t)n >= cap - used) {
			acc[used] = '\0';
			return -1;
		}
		used += (size_t)n;
		i = j + 1;
	}
	return 0;
}

void
platform_parse_cmdline(const char *text, char *out, size_t cap)
{
	/* Words that switch a mitigation on or off, by prefix; a prefix
	 * ending in '=' must be followed by a value. */
	static const char *const words[] = {"mitigations=",
					    "nospectre_v1",
					    "nospectre_v2",
					    "spectre_v2=",
					    "spectre_v2_user=",
					    "spectre_bhi=",
					    "spec_store_bypass_disable=",
					    "nospec_store_bypass_disable",
					    "ssbd=",
					    "pti=",
					    "nopti",
					    "kpti=",
					    "mds=",
					    "tsx=",
					    "tsx_async_abort=",
					    "l1tf=",
					    "retbleed=",
					    "srbds=",
					    "mmio_stale_data=",
					    "gather_data_sampling=",
					    "spec_rstack_overflow=",
					    "reg_file_data_sampling=",
					    "nosmt",
					    "nospectre_bhb",
					    "nox2apic",
					    "spectre_v1=",
					    "kvm.nx_huge_pages=",
					    "ibrs=",
					    "noibrs",
					    "noibpb",
					    "l1d_flush=",
					    "its=",
					    "tsa=",
					    "vmscape=",
					    "indirect_target_selection="};
	size_t used = 0;
	const char *s = text;

	if (cap == 0)
		return;
	out[0] = '\0';
	while (s != NULL && *s != '\0') {
		size_t len;

		s += strspn(s, " \t\n");
		len = strcspn(s, " \t\n");
		if (len == 0)
			break;
		if (len == 2 && strncmp(s, "--", 2) == 0)
			break; /* what follows is init's */
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			size_t wl = strlen(words[i]);
			int eq = words[i][wl - 1] == '=';

			if (len < wl || strncmp(s, words[i], wl) != 0 ||
			    (!eq && len != wl))
				continue;
			if (used + len + 2 > cap)
				return;
			if (used)
				out[used++] = ' ';
			memcpy(out + used, s, len);
			used += len;
			out[used] = '\0';
			break;
		}
		s += len;
	}
}

void
platform_hypervisor_name(const char sig[12], char *out, size_t cap)
{
	static const struct {
		const char *sig;
		const char *name;
	} known[] = {
	    {"KVMKVMKVM", "KVM"},
	    {"Microsoft Hv", "Hyper-V"},
	    {"VMwareVMware", "VMware"},
	    {"XenVMMXenVMM", "Xen"},
	    {"TCGTCGTCGTCG", "QEMU TCG"},
	    {"ACRNACRNACRN", "ACRN"},
	    {" lrpepyh  vr", "Parallels"},
	    {"bhyve bhyve ", "bhyve"},
	    {"QNXQVMBSQG", "QNX"},
	    {"VBoxVBoxVBox", "VirtualBox"},
	    {"Linux KVM Hv", "KVM (Hyper-V enlightened)"},
	    {"EVMMEVMMEVMM", "Intel EVMM"},
	    {"Jailhouse", "Jailhouse"},
	};
	char s[13];

	memcpy(s, sig, 12);
	s[12] = '\0';
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(s, known[i].sig) == 0) {
			snprintf(out, cap, "%s", known[i].name);
			return;
		}
	trimmed(s, strlen(s), out, cap);
}

void
platform_container_of(const char *cgroup, int dockerenv, int containerenv,
		      const char *env_container, char *out, size_t cap)
{
	if (env_container != NULL && env_container[0] != '\0') {
		snprintf(out, cap, "%s", env_container);
		return;
	}
	if (containerenv) {
		snprintf(out, cap, "podman");
		return;
	}
	if (cgroup != NULL && strstr(cgroup, "kubepods") != NULL) {
		snprintf(out, cap, "kubernetes");
		return;
	}
	if (dockerenv ||
	    (cgroup != NULL && (strstr(cgroup, "/docker") != NULL ||
				strstr(cgroup, "docker-") != NULL))) {
		snprintf(out, cap, "docker");
		return;
	}
	if (cgroup != NULL && (strstr(cgroup, "/lxc") != NULL ||
			       strstr(cgroup, "lxc.payload") != NULL)) {
		snprintf(out, cap, "lxc");
		return;
	}
	snprintf(out, cap, "none");
}

int
platform_parse_khz(const char *text)
{
	char *end;
	long v;

	if (text == NULL || !isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || (*end != '\0' && !isspace((unsigned char)*end)) ||
	    v < 0 || v > 1000000000L)
		return -1;
	return (int)((v + 500) / 1000);
}

int
platform_parse_hex(const char *text)
{
	char *end;
	long v;

	if (text == NULL || strncmp(text, "0x", 2) != 0 ||
	    !isxdigit((unsigned char)text[2]))
		return -1;
	errno = 0;
	v = strtol(text + 2, &end, 16);
	if (errno != 0 || (*end != '\0' && !isspace((unsigned char)*end)) ||
	    v < 0 || v > 0xffff)
		return -1;
	return (int)v;
}

int
platform_parse_qdisc(const void *buf, size_t len, int ifindex, char *kind,
		     size_t cap)
{
	const struct nlmsghdr *h;
	size_t left = len;

	for (h = buf; left >= sizeof(*h);) {
		size_t mlen = h->nlmsg_len;
		const struct tcmsg *tc;
		const struct rtattr *a;
		size_t alen;

		if (mlen < sizeof(*h) || mlen > left)
			return -1;
		if (h->nlmsg_type == NLMSG_DONE)
			return 2;
		if (h->nlmsg_type == NLMSG_ERROR)
			return -1;
		if (h->nlmsg_type != RTM_NEWQDISC ||
		    mlen < NLMSG_LENGTH(sizeof(*tc)))
			goto next;
		tc = NLMSG_DATA(h);
		if (tc->tcm_ifindex != ifindex || tc->tcm_parent != TC_H_ROOT)
			goto next;
		alen = mlen - NLMSG_LENGTH(sizeof(*tc));
		for (a = (const struct rtattr *)((const char *)tc +
						 NLMSG_ALIGN(sizeof(*tc)));
		     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			size_t vlen;

			if (a->rta_type != TCA_KIND)
				continue;
			vlen = RTA_PAYLOAD(a);
			trimmed(RTA_DATA(a), strnlen(RTA_DATA(a), vlen), kind,
				cap);
			return 1;
		}
	next:
		if (NLMSG_ALIGN(mlen) >= left)
			break;
		left -= NLMSG_ALIGN(mlen);
		h = (const struct nlmsghdr *)((const char *)h +
					      NLMSG_ALIGN(mlen));
	}
	return 0;
}

void
platform_offloads_text(const struct platform_nic *n, char *buf, size_t cap)
{
	const struct {
		int v;
		const char *name;
	} f[] = {{n->tso, "tso"},	  {n->gso, "gso"},
		 {n->gro, "gro"},	  {n->lro, "lro"},
		 {n->rx_csum, "rx-csum"}, {n->tx_csum, "tx-csum"}};
	size_t used = 0;

	if (cap == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		int w;

		if (f[i].v != 1)
			continue;
		w = snprintf(buf + used, cap - used, "%s%s", used ? " " : "",
			     f[i].name);
		if (w < 0 || (size_t)w >= cap - used) {
			buf[used] = '\0';
			return;
		}
		used += (size_t)w;
	}
}

void
platform_vulnerable_text(const struct platform *p, char *buf, size_t cap)
{
	size_t used = 0;

	if (cap == 0)
		return;
	buf[0] = '\0';
	if (p->nvulns == 0)
		return;
	for (int i = 0; i < p->nvulns; i++) {
		int w;

		if (strncmp(p->vuln[i].state, "Vulnerable", 10) != 0)
			continue;
		w = snprintf(buf + used, cap - used, "%s%s", used ? " " : "",
			     p->vuln[i].name);
		if (w < 0 || (size_t)w >= cap - used) {
			buf[used] = '\0';
			return;
		}
		used += (size_t)w;
	}
	if (used == 0)
		snprintf(buf, cap, "none");
}

/* A one-line file's value, trimmed, into out; "" when unreadable. */
static void
read_line(const char *path, char *out, size_t cap)
{
	char buf[512];

	out[0] = '\0';
	if (file_read_small(path, buf, sizeof(buf)) > 0)
		trimmed(buf, strlen(buf), out, cap);
}

static void
collect_cpu(struct platform *p)
{
	static char text[1 << 16];
	char v[64];
	int hv;

	p->ncpu = cpu_count();
	if (file_read_small(
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", v,
		sizeof(v)) > 0)
		p->cpu_mhz = platform_parse_khz(v);
	if (file_read_small(
		"/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", v,
		sizeof(v)) > 0)
		p->cpu_max_mhz = platform_parse_khz(v);
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		  p->governor, sizeof(p->governor));
	if (file_read_small("/sys/devices/system/cpu/smt/active", v,
			    sizeof(v)) > 0)
		p->smt = v[0] == '1' ? 1 : v[0] == '0' ? 0 : -1;
	read_line("/sys/devices/system/cpu/smt/control", p->smt_control,
		  sizeof(p->smt_control));
	hv = 0;
	if (file_read_small("/proc/cpuinfo", text, sizeof(text)) > 0)
		hv = platform_parse_cpuinfo(text, p);
	p->hypervisor[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int a, b, c, d;
		char sig[12];

		if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31))) {
			__cpuid(0x40000000, a, b, c, d);
			memcpy(sig, &b, 4);
			memcpy(sig + 4, &c, 4);
			memcpy(sig + 8, &d, 4);
			platform_hypervisor_name(sig, p->hypervisor,
						 sizeof(p->hypervisor));
		} else {
			snprintf(p->hypervisor, sizeof(p->hypervisor), "none");
		}
	}
#endif
	if (p->hypervisor[0] == '\0') {
		char type[32];

		read_line("/sys/hypervisor/type", type, sizeof(type));
		if (type[0] != '\0')
			copy_str(p->hypervisor, sizeof(p->hypervisor), type);
		else if (hv)
			snprintf(p->hypervisor, sizeof(p->hypervisor),
				 "unknown");
		else
			snprintf(p->hypervisor, sizeof(p->hypervisor), "none");
	}
}

static void
collect_kernel(struct platform *p)
{
	static const char vdir[] = "/sys/devices/system/cpu/vulnerabilities";
	struct dirent *de;
	struct utsname u;
	char text[4096];
	DIR *d;

	if (uname(&u) == 0) {
		snprintf(p->sysname, sizeof(p->sysname), "%s", u.sysname);
		snprintf(p->release, sizeof(p->release), "%s", u.release);
		snprintf(p->version, sizeof(p->version), "%s", u.version);
		snprintf(p->machine, sizeof(p->machine), "%s", u.machine);
	}
	if (file_read_small("/proc/cmdline", text, sizeof(text)) > 0)
		platform_parse_cmdline(text, p->cmdline_mitigations,
				       sizeof(p->cmdline_mitigations));
	d = opendir(vdir);
	while (d != NULL && (de = readdir(d)) != NULL &&
	       p->nvulns < PLATFORM_MAX_VULNS) {
		struct platform_vuln *v = &p->vuln[p->nvulns];
		char path[512];

		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(v->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", vdir, de->d_name);
		read_line(path, v->state, sizeof(v->state));
		if (v->state[0] == '\0')
			continue;
		copy_str(v->name, sizeof(v->name), de->d_name);
		p->nvulns++;
	}
	if (d != NULL)
		closedir(d);
	/* readdir's order is the filesystem's: sort, so two records list
	 * them alike. */
	for (int i = 1; i < p->nvulns; i++)
		for (int j = i;
		     j > 0 && strcmp(p->vuln[j - 1].name, p->vuln[j].name) > 0;
		     j--) {
			struct platform_vuln t = p->vuln[j];

			p->vuln[j] = p->vuln[j - 1];
			p->vuln[j - 1] = t;
		}
}

static void
collect_machine(struct platform *p, struct topo *topo)
{
	static char cgroup[8192];
	char env[4096], v[64];
	const char *envc = NULL;
	ssize_t n;
	struct stat st;

	read_line("/sys/class/dmi/id/sys_vendor", p->system_vendor,
		  sizeof(p->system_vendor));
	read_line("/sys/class/dmi/id/product_name", p->system_model,
		  sizeof(p->system_model));
	if (p->system_model[0] == '\0')
		read_line("/proc/device-tree/model", p->system_model,
			  sizeof(p->system_model));
	if (topo != NULL)
		p->numa_nodes = topo_numa_count(topo);
	if (p->numa_nodes < 1 &&
	    file_read_small("/sys/devices/system/node/online", v, sizeof(v)) >
		0)
		p->numa_nodes = platform_cpulist_count(v);
	/* pid 1's environment names systemd-nspawn and friends; only root
	 * may read it, and the cgroup and marker files serve otherwise. */
	n = file_read_small("/proc/1/environ", env, sizeof(env));
	for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(env + i) + 1)
		if (strncmp(env + i, "container=", 10) == 0)
			envc = env + i + 10;
	if (file_read_small("/proc/1/cgroup", cgroup, sizeof(cgroup)) < 0)
		cgroup[0] = '\0';
	platform_container_of(cgroup, stat("/.dockerenv", &st) == 0,
			      stat("/run/.containerenv", &st) == 0, envc,
			      p->container, sizeof(p->container));
}

/* An ethtool value (1 on, 0 off), or -1 when the driver does not say. */
static int
ethtool_value(int fd, const char *ifname, uint32_t cmd)
{
	struct ethtool_value ev = {.cmd = cmd};
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	copy_str(ifr.ifr_name, sizeof(ifr.ifr_name), ifname);
	ifr.ifr_data = (char *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -1;
	return ev.data != 0;
}

/* The root qdisc of ifindex by a netlink dump; "" when not found. */
static void
collect_qdisc(int ifindex, char *kind, size_t cap)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} req;
	struct timeval tv = {0, 500000};
	static char buf[32768];
	int fd, rc = 0;

	kind[0] = '\0';
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.t));
	req.h.nlmsg_type = RTM_GETQDISC;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = 1;
	req.t.tcm_family = AF_UNSPEC;
	req.t.tcm_ifindex = ifindex;
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0)
		goto out;
	/* A dump is bounded by the number of qdiscs; the cap keeps a
	 * misbehaving reply from holding us. */
	for (int i = 0; rc == 0 && i < 1000; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0)
			break;
		rc = platform_parse_qdisc(buf, (size_t)n, ifindex, kind, cap);
	}
	/* Drain nothing more: closing the socket discards the rest. */
out:
	close(fd);
}

/* The IRQs of the interface's queues (its device's MSI vectors, or its
 * one legacy IRQ) and the CPUs they may be handled on. */
static void
collect_irqs(struct platform_nic *n)
{
	const char *dirs[] = {"device/msi_irqs", "device/../msi_irqs"};
	char path[512], v[PLATFORM_CPUS_LEN];
	struct dirent *de;
	DIR *d = NULL;

	for (size_t i = 0; d == NULL && i < sizeof(dirs) / sizeof(dirs[0]);
	     i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/%s", n->name,
			 dirs[i]);
		d = opendir(path);
	}
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		n->nirqs++;
		snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list",
			 de->d_name);
		if (file_read_small(path, v, sizeof(v)) > 0)
			platform_cpulist_union(n->irq_cpus, sizeof(n->irq_cpus),
					       v);
	}
	if (d != NULL) {
		closedir(d);
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/irq", n->name);
	if (file_read_small(path, v, sizeof(v)) > 0 && atoi(v) > 0) {
		char irq[16];

		snprintf(irq, sizeof(irq), "%d", atoi(v));
		n->nirqs = 1;
		snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list",
			 irq);
		if (file_read_small(path, v, sizeof(v)) > 0)
			platform_cpulist_union(n->irq_cpus, sizeof(n->irq_cpus),
					       v);
	}
}

int
platform_slot_of(const char *slots_dir, const char *pci, char *out,
		 size_t cap)
{
	char path[512], addr[64];
	struct dirent *e;
	DIR *d;
	size_t len;

	out[0] = '\0';
	d = opendir(slots_dir);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/address", slots_dir,
			 e->d_name);
		if (file_read_small(path, addr, sizeof(addr)) <= 0)
			continue;
		addr[strcspn(addr, " \t\r\n")] = '\0';
		len = strlen(addr);
		/* Up to the function number: slot 0000:00:0 is not the slot
		 * of 0000:00:03.0. */
		if (len > 0 && strncmp(pci, addr, len) == 0 &&
		    pci[len] == '.') {
			snprintf(out, cap, "%s", e->d_name);
			break;
		}
	}
	closedir(d);
	return out[0] != '\0' ? 0 : -1;
}

/* The interface's PCI slot, when it is a PCI device in one. */
static void
collect_slot(struct platform_nic *n)
{
	char path[512], real[4096];
	const char *pci;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device", n->name);
	if (realpath(path, real) == NULL)
		return;
	pci = strrchr(real, '/');
	platform_slot_of("/sys/bus/pci/slots", pci != NULL ? pci + 1 : real,
			 n->slot, sizeof(n->slot));
}

static void
collect_nic(struct platform_nic *n)
{
	struct ethtool_drvinfo di;
	struct ifreq ifr;
	char path[512], v[64];
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", n->name);
	if (file_read_small(path, v, sizeof(v)) > 0 && atoi(v) > 0)
		n->speed_mbps = atoi(v);
	n->mtu = iface_mtu(n->name);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/vendor",
		 n->name);
	if (file_read_small(path, v, sizeof(v)) > 0)
		n->vendor = platform_parse_hex(v);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/device",
		 n->name);
	if (file_read_small(path, v, sizeof(v)) > 0)
		n->device = platform_parse_hex(v);
	snprintf(path, sizeof(path),
		 "/sys/class/net/%s/device/subsystem_vendor", n->name);
	if (file_read_small(path, v, sizeof(v)) > 0)
		n->subvendor = platform_parse_hex(v);
	snprintf(path, sizeof(path),
		 "/sys/class/net/%s/device/subsystem_device", n->name);
	if (file_read_small(path, v, sizeof(v)) > 0)
		n->subdevice = platform_parse_hex(v);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		memset(&ifr, 0, sizeof(ifr));
		memset(&di, 0, sizeof(di));
		di.cmd = ETHTOOL_GDRVINFO;
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", n->name);
		ifr.ifr_data = (char *)&di;
		if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
			trimmed(di.driver,
				strnlen(di.driver, sizeof(di.driver)),
				n->driver, sizeof(n->driver));
			trimmed(di.version,
				strnlen(di.version, sizeof(di.version)),
				n->driver_version, sizeof(n->driver_version));
			trimmed(di.fw_version,
				strnlen(di.fw_version, sizeof(di.fw_version)),
				n->firmware, sizeof(n->firmware));
			trimmed(di.bus_info,
				strnlen(di.bus_info, sizeof(di.bus_info)),
				n->bus, sizeof(n->bus));
		}
		n->tso = ethtool_value(fd, n->name, ETHTOOL_GTSO);
		n->gso = ethtool_value(fd, n->name, ETHTOOL_GGSO);
		n->gro = ethtool_value(fd, n->name, ETHTOOL_GGRO);
		n->rx_csum = ethtool_value(fd, n->name, ETHTOOL_GRXCSUM);
		n->tx_csum = ethtool_value(fd, n->name, ETHTOOL_GTXCSUM);
		{
			struct ethtool_value ev = {.cmd = ETHTOOL_GFLAGS};

			ifr.ifr_data = (char *)&ev;
			if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
				n->lro = (ev.data & ETH_FLAG_LRO) != 0;
		}
		close(fd);
	}
	collect_slot(n);
	collect_irqs(n);
	collect_qdisc((int)if_nametoindex(n->name), n->qdisc, sizeof(n->qdisc));
}

int
platform_congestion_of(int fd, char *out, size_t cap)
{
	char name[64];
	socklen_t len = sizeof(name);

	out[0] = '\0';
	if (fd < 0 ||
	    getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) < 0)
		return -1;
	name[len < sizeof(name) ? len : sizeof(name) - 1] = '\0';
	copy_str(out, cap, name);
	return 0;
}

/* The host's part of a record: everything but the data path. */
static void
collect_host(struct platform *p, const char *program, struct topo *topo)
{
	platform_init(p);
	snprintf(p->program, sizeof(p->program), "%s %s",
		 program != NULL ? program : "?", NP_VERSION);
	copy_str(p->build, sizeof(p->build), NP_BUILD);
	collect_cpu(p);
	collect_kernel(p);
	collect_machine(p, topo);
}

/* The data path's part: the congestion control and the interface. */
static void
collect_path(struct platform *p, const struct platform_inputs *in)
{
	char err[ERR_LEN];

	if (in->congestion != NULL && in->congestion[0] != '\0')
		copy_str(p->congestion, sizeof(p->congestion), in->congestion);
	else
		read_line("/proc/sys/net/ipv4/tcp_congestion_control",
			  p->congestion, sizeof(p->congestion));
	if (in->peer != NULL &&
	    iface_route(in->peer, p->nic.name, err) == 0)
		collect_nic(&p->nic);
}

void
platform_collect(struct platform *p, const struct platform_inputs *in)
{
	collect_host(p, in->program, in->topo);
	collect_path(p, in);
}

static void *
job_main(void *arg)
{
	struct platform_job *j = arg;

	/* hwloc is not asked: loading it costs more than the record, and
	 * /sys names the NUMA nodes as well (platform_job_record takes
	 * hwloc's count when the test has loaded it). */
	collect_host(&j->host, j->program, NULL);
	return NULL;
}

void
platform_job_start(struct platform_job *j, const char *program)
{
	j->running = 0;
	j->done = 0;
	j->program = program;
	if (pthread_create(&j->tid, NULL, job_main, j) == 0)
		j->running = 1;
}

void
platform_job_wait(struct platform_job *j)
{
	if (j->running) {
		pthread_join(j->tid, NULL);
		j->running = 0;
		j->done = 1;
	}
	if (!j->done) {
		collect_host(&j->host, j->program, NULL);
		j->done = 1;
	}
}

void
platform_job_record(struct platform_job *j, struct platform *p,
		    const struct platform_inputs *in)
{
	int nodes;

	platform_job_wait(j);
	*p = j->host;
	if (in->topo != NULL && (nodes = topo_numa_count(in->topo)) >= 1)
		p->numa_nodes = nodes;
	collect_path(p, in);
}
