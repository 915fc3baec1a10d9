/* Tests for lib/output: selector parsing, netperf's -o/-O/-k layouts and
 * interim lines, and the JSON document agreeing with all three. */
#include "harness.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/err.h"
#include "np/select.h"
#include "np/json.h"
#include "np/mix.h"

/* A buffer of everything written to a memory stream. */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *
mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
	return m->f;
}

static char *
mem_close(struct mem *m)
{
	ck_assert_int_eq(fclose(m->f), 0);
	return m->buf;
}

static void
fill_load(struct cpu_load *l, double user, double system, double irq,
	  double softirq, double iowait, double steal)
{
	l->user = user;
	l->nice = 0.5;
	l->system = system;
	l->irq = irq;
	l->softirq = softirq;
	l->iowait = iowait;
	l->steal = steal;
	l->util = user + l->nice + system + irq + softirq;
	l->idle = 100 - l->util - iowait - steal;
}

/* Four CPU slots, cpu2 offline in one sample. */
static void
fill_cpu(struct side_result *s, double scale)
{
	struct cpu_util *u = &s->cpu;
	int i;

	s->cpu_measured = 1;
	u->nslots = 4;
	u->ncpu = 3;
	u->per = calloc(4, sizeof(*u->per));
	ck_assert_ptr_nonnull(u->per);
	for (i = 0; i < 4; i++)
		fill_load(&u->per[i], 10 * scale + i, 5 + i, 1, 2, 0.25, 0.125);
	u->per[2].util = -1;
	fill_load(&u->all, 10 * scale + 1.25, 6.5, 1, 2, 0.25, 0.125);
	u->peak = u->per[3].util;
	u->peak_id = 3;
}

static void
fill_side(struct side_result *s, uint64_t trans, int sndbuf, int rcvbuf)
{
	s->elapsed = 10.0;
	s->trans = trans;
	s->bytes_sent = trans * 64;
	s->bytes_recv = trans * 1024;
	s->send_calls = trans;
	s->recv_calls = trans + 17;
	s->sndbuf = sndbuf;
	s->rcvbuf = rcvbuf;
	s->sndbuf_end = sndbuf * 2;
	s->rcvbuf_end = rcvbuf * 3;
	s->send_size = 64;
	s->recv_size = 1024;
	s->mss = 65483;
	s->retrans = 7;
	s->dups = 2;
	s->reordered = 3;
	s->late = 5;
	s->jitter = 0.000125;
	s->cpu_id = 1;
}

/* A TCP_RR result as netperf would hold it after a run with -c -C, two
 * streams, -D interim results and -i repetitions. */
static void
build_rr(struct result *res, int cpu)
{
	static const uint64_t lat_ns[] = {11000, 12000, 12500,	13000,
					  15000, 54000, 2985000};
	static const int lat_n[] = {100, 500, 250, 100, 40, 9, 1};
	size_t i;
	int k;

	memset(res, 0, sizeof(*res));
	res->m = module_find("TCP_RR");
	ck_assert_ptr_nonnull(res->m);
	snprintf(res->p.test, sizeof(res->p.test), "TCP_RR");
	/* -B, so that -k prints every field it is given. */
	snprintf(res->brand, sizeof(res->brand), "run8");
	res->p.duration = 10;
	res->p.send_size = 64;
	res->p.recv_size = 1024;
	res->p.rsend_size = 1024;
	res->p.rrecv_size = 64;
	res->p.req_size = 64;
	res->p.rsp_size = 1024;
	res->p.lsndbuf = -1;
	res->p.lrcvbuf = 65536;
	res->p.rsndbuf = -1;
	res->p.rrcvbuf = 131072;
	res->p.nodelay = 1;
	res->p.burst = 1;
	res->p.remote_cpu = cpu;
	res->fmt = 'x';
	res->side[RESULT_LOCAL].cpu_wanted = cpu;
	res->side[RESULT_REMOTE].cpu_wanted = cpu;
	res->family = AF_INET;
	snprintf(res->side[RESULT_LOCAL].addr,
		 sizeof(res->side[RESULT_LOCAL].addr), "10.0.0.1");
	snprintf(res->side[RESULT_REMOTE].addr,
		 sizeof(res->side[RESULT_REMOTE].addr), "10.0.0.2");
	snprintf(res->side[RESULT_LOCAL].name,
		 sizeof(res->side[RESULT_LOCAL].name), "alpha");
	snprintf(res->side[RESULT_REMOTE].name,
		 sizeof(res->side[RESULT_REMOTE].name), "beta");
	snprintf(res->side[RESULT_LOCAL].env.hostname, 256, "alpha.example");
	snprintf(res->side[RESULT_LOCAL].env.kernel, 128,
		 "Linux 6.1.0-18-amd64");
	snprintf(res->side[RESULT_LOCAL].env.cpu_model, 128,
		 "Intel(R) Xeon(R) CPU E5");
	res->side[RESULT_LOCAL].env.ncpu = 4;
	snprintf(res->side[RESULT_LOCAL].env.program, 64, "netperf 3.0.0");
	snprintf(res->side[RESULT_REMOTE].env.hostname, 256, "beta.example");
	snprintf(res->side[RESULT_REMOTE].env.kernel, 128, "Linux 6.8.0");
	snprintf(res->side[RESULT_REMOTE].env.cpu_model, 128, "AMD EPYC 7B13");
	res->side[RESULT_REMOTE].env.ncpu = 8;
	snprintf(res->side[RESULT_REMOTE].env.program, 64, "netserver 3.0.0");
	/* Platform records: netperf's known in part, netserver's on a
	 * PCI NIC; what is left unknown must print as unknown. */
	platform_init(&res->side[RESULT_LOCAL].platform);
	platform_init(&res->side[RESULT_REMOTE].platform);
	res->side[RESULT_LOCAL].platform.cpu_mhz = 2394;
	snprintf(res->side[RESULT_LOCAL].platform.version, 65,
		 "#1 SMP Debian 6.1.76-1");
	snprintf(res->side[RESULT_LOCAL].platform.nic.name, IF_NAMESIZE, "lo");
	res->side[RESULT_LOCAL].platform.nic.mtu = 65536;
	res->side[RESULT_LOCAL].platform.smt = 0;
	snprintf(res->side[RESULT_REMOTE].platform.machine, 65, "x86_64");
	snprintf(res->side[RESULT_REMOTE].platform.governor, 32, "performance");
	snprintf(res->side[RESULT_REMOTE].platform.nic.name, IF_NAMESIZE,
		 "eth0");
	snprintf(res->side[RESULT_REMOTE].platform.nic.driver, 32, "mlx5_core");
	snprintf(res->side[RESULT_REMOTE].platform.nic.bus, 32, "0000:3b:00.0");
	res->side[RESULT_REMOTE].platform.nic.vendor = 0x15b3;
	res->side[RESULT_REMOTE].platform.nic.device = 0x1017;
	res->side[RESULT_REMOTE].platform.nic.speed_mbps = 25000;
	res->side[RESULT_REMOTE].platform.smt = 1;
	res->side[RESULT_REMOTE].platform.numa_nodes = 2;
	snprintf(res->side[RESULT_LOCAL].place.requested, 64, "1");
	snprintf(res->side[RESULT_LOCAL].place.cpus, 256, "1");
	res->side[RESULT_LOCAL].place.cpu_actual = 1;
	res->side[RESULT_LOCAL].place.numa = 0;
	res->side[RESULT_LOCAL].place.nic_local = 1;
	res->side[RESULT_REMOTE].place.cpu_actual = -1;
	res->side[RESULT_REMOTE].place.numa = -1;
	res->side[RESULT_REMOTE].place.nic_local = -1;

	fill_side(&res->side[RESULT_LOCAL].sum, 727136, 16384, 131072);
	fill_side(&res->side[RESULT_REMOTE].sum, 727136, 32768, 262144);
	res->side[RESULT_REMOTE].sum.mss = -1;
	/* netperf's side has TCP_INFO, one figure unknown; netserver's
	 * none, so both the values and the -1 for null are checked. */
	tcpinfo_clear(&res->side[RESULT_LOCAL].sum.tcpi);
	res->side[RESULT_LOCAL].sum.tcpi.n = 2;
	for (int f = 0; f < TCPINFO_NFIELDS; f++)
		res->side[RESULT_LOCAL].sum.tcpi.v[f] = 100 * f + 7;
	res->side[RESULT_LOCAL].sum.tcpi.v[TCPINFO_BUSY] = -1;
	if (cpu) {
		fill_cpu(&res->side[RESULT_LOCAL].sum, 4);
		fill_cpu(&res->side[RESULT_REMOTE].sum, 2);
	}

	res->nstreams = 2;
	res->side[RESULT_LOCAL].stream =
	    calloc(2, sizeof(*res->side[RESULT_LOCAL].stream));
	res->side[RESULT_REMOTE].stream =
	    calloc(2, sizeof(*res->side[RESULT_REMOTE].stream));
	ck_assert_ptr_nonnull(res->side[RESULT_LOCAL].stream);
	ck_assert_ptr_nonnull(res->side[RESULT_REMOTE].stream);
	fill_side(&res->side[RESULT_LOCAL].stream[0], 400000, 16384, 131072);
	fill_side(&res->side[RESULT_LOCAL].stream[1], 327136, 16384, 131072);
	fill_side(&res->side[RESULT_REMOTE].stream[0], 400000, 32768, 262144);
	fill_side(&res->side[RESULT_REMOTE].stream[1], 327136, 32768, 262144);

	res->hist = malloc(sizeof(*res->hist));
	ck_assert_ptr_nonnull(res->hist);
	stats_hist_init(res->hist);
	for (i = 0; i < sizeof(lat_n) / sizeof(lat_n[0]); i++)
		for (k = 0; k < lat_n[i]; k++)
			stats_hist_add(res->hist, lat_ns[i]);

	res->interim_cap = 2;
	res->ninterim = 2;
	res->interim = calloc(2, sizeof(*res->interim));
	ck_assert_ptr_nonnull(res->interim);
	res->interim[0] =
	    (struct result_interim){.value = 72000.5, .interval = 1.0, .ending = 1795981240.25, .since_start = 1.0, .count = 72000, .ending_ns = 1795981240250000000};
	res->interim[1] =
	    (struct result_interim){.value = 73000.25, .interval = 1.001, .ending = 1795981241.251, .since_start = 2.001, .count = 73073, .ending_ns = 1795981241251000000};

	res->conf.iterations = 3;
	res->conf.level = 99;
	res->conf.width = 5;
	res->conf.thruput = 2.5;
	res->conf.local_cpu = cpu ? 3.25 : -1;
	res->conf.remote_cpu = cpu ? 1.125 : -1;
	res->conf.met = 1;
	snprintf(res->uuid, sizeof(res->uuid),
		 "5a0b6d2e-1c1f-4e7e-9d3a-2f1b0c9e8d7a");
	snprintf(res->command_line, sizeof(res->command_line),
		 "netperf -t TCP_RR -c -C -- -o \"THROUGHPUT,P99_LATENCY\"");
	result_compute(res);
	/* result_compute derives the latency figures from the histogram;
	 * fill them here if it did not, so the formats have them to print */
	if (res->lat.count == 0) {
		res->lat.count = res->hist->count;
		res->lat.min = stats_hist_percentile(res->hist, 0) / 1e3;
		res->lat.max = (double)res->hist->max / 1e3;
		res->lat.mean = stats_hist_mean(res->hist) / 1e3;
		res->lat.stddev = stats_hist_stddev(res->hist) / 1e3;
		res->lat.p50 = stats_hist_percentile(res->hist, 50) / 1e3;
		res->lat.p90 = stats_hist_percentile(res->hist, 90) / 1e3;
		res->lat.p99 = stats_hist_percentile(res->hist, 99) / 1e3;
		res->lat.p999 = stats_hist_percentile(res->hist, 99.9) / 1e3;
		res->lat.p9999 = stats_hist_percentile(res->hist, 99.99) / 1e3;
	}
}

/* Where each selector's figure sits in the JSON document; b and op
 * derive it from two figures ('/' or '+'), or name where to look when
 * the first is null ('|'). NULL path: checked apart. */
struct jmap {
	const char *name;
	const char *path;
	char op;
	const char *b;
};

static const struct jmap jmaps[] = {
    /* 2.7's "Stream"/"Datagram"; the JSON says SOCK_STREAM */
    {"SOCKET_TYPE", NULL, 0, NULL},
    {"PROTOCOL", "protocol", 0, NULL},
    {"DIRECTION", "direction", 0, NULL},
    {"ELAPSED_TIME", "result/elapsed_s", 0, NULL},
    {"THROUGHPUT", "result/throughput", 0, NULL},
    {"THROUGHPUT_UNITS", "result/throughput_units", 0, NULL},
    {"LSS_SIZE_REQ", "request/local_send_buffer", 0, NULL},
    {"LSS_SIZE", "local/counts/sndbuf", 0, NULL},
    {"LSS_SIZE_END", "local/counts/sndbuf_end", 0, NULL},
    {"LSR_SIZE_REQ", "request/local_recv_buffer", 0, NULL},
    {"LSR_SIZE", "local/counts/rcvbuf", 0, NULL},
    {"LSR_SIZE_END", "local/counts/rcvbuf_end", 0, NULL},
    {"RSS_SIZE_REQ", "request/remote_send_buffer", 0, NULL},
    {"RSS_SIZE", "remote/counts/sndbuf", 0, NULL},
    {"RSS_SIZE_END", "remote/counts/sndbuf_end", 0, NULL},
    {"RSR_SIZE_REQ", "request/remote_recv_buffer", 0, NULL},
    {"RSR_SIZE", "remote/counts/rcvbuf", 0, NULL},
    {"RSR_SIZE_END", "remote/counts/rcvbuf_end", 0, NULL},
    {"LOCAL_SEND_SIZE", "local/counts/send_size", 0, NULL},
    /* 2.7: 0 and -1 in a test netperf sends in */
    {"LOCAL_RECV_SIZE", NULL, 0, NULL},
    /* 2.7: 0 and -1 in a test netperf sends in */
    {"REMOTE_SEND_SIZE", NULL, 0, NULL},
    {"REMOTE_RECV_SIZE", "remote/counts/recv_size", 0, NULL},
    /* 2.7's -1 where the test has none */
    {"REQUEST_SIZE", NULL, 0, NULL},
    /* 2.7's -1 where the test has none */
    {"RESPONSE_SIZE", NULL, 0, NULL},
    {"LOCAL_CPU_UTIL", "local/cpu/util", 0, NULL},
    {"LOCAL_CPU_PERCENT_USER", "local/cpu/user", 0, NULL},
    {"LOCAL_CPU_PERCENT_SYSTEM", "local/cpu/system", 0, NULL},
    {"LOCAL_CPU_PERCENT_IOWAIT", "local/cpu/iowait", 0, NULL},
    {"LOCAL_CPU_PERCENT_IRQ", "local/cpu/irq", 0, NULL},
    {"LOCAL_CPU_PERCENT_SWINTR", "local/cpu/softirq", 0, NULL},
    {"LOCAL_CPU_PERCENT_STEAL", "local/cpu/steal", 0, NULL},
    {"LOCAL_CPU_METHOD", "local/cpu/method", 0, NULL},
    {"LOCAL_SD", "result/local_service_demand", 0, NULL},
    {"REMOTE_CPU_UTIL", "remote/cpu/util", 0, NULL},
    {"REMOTE_CPU_PERCENT_USER", "remote/cpu/user", 0, NULL},
    {"REMOTE_CPU_PERCENT_SYSTEM", "remote/cpu/system", 0, NULL},
    {"REMOTE_CPU_PERCENT_IOWAIT", "remote/cpu/iowait", 0, NULL},
    {"REMOTE_CPU_PERCENT_IRQ", "remote/cpu/irq", 0, NULL},
    {"REMOTE_CPU_PERCENT_SWINTR", "remote/cpu/softirq", 0, NULL},
    {"REMOTE_CPU_PERCENT_STEAL", "remote/cpu/steal", 0, NULL},
    {"REMOTE_CPU_METHOD", "remote/cpu/method", 0, NULL},
    {"REMOTE_SD", "result/remote_service_demand", 0, NULL},
    {"SD_UNITS", "result/service_demand_units", 0, NULL},
    {"CONFIDENCE_LEVEL", "confidence/level", 0, NULL},
    {"CONFIDENCE_INTERVAL", "confidence/requested_width", 0, NULL},
    {"CONFIDENCE_ITERATION", "confidence/iterations", 0, NULL},
    {"THROUGHPUT_CONFID", "confidence/achieved/throughput", 0, NULL},
    {"LOCAL_CPU_CONFID", "confidence/achieved/local_cpu", 0, NULL},
    {"REMOTE_CPU_CONFID", "confidence/achieved/remote_cpu", 0, NULL},
    {"TRANSACTION_RATE", "result/transaction_rate", 0, NULL},
    {"RT_LATENCY", "result/round_trip_latency_us", 0, NULL},
    {"BURST_SIZE", "request/burst", 0, NULL},
    /* 2.7's -1 where the test has none */
    {"LOCAL_TRANSPORT_RETRANS", NULL, 0, NULL},
    /* 2.7's -1 where the test has none */
    {"REMOTE_TRANSPORT_RETRANS", NULL, 0, NULL},
    {"TRANSPORT_MSS", "local/counts/mss", 0, NULL},
    {"LOCAL_SEND_THROUGHPUT", "result/local_send_throughput", 0, NULL},
    {"LOCAL_RECV_THROUGHPUT", "result/local_recv_throughput", 0, NULL},
    {"REMOTE_SEND_THROUGHPUT", "result/remote_send_throughput", 0, NULL},
    {"REMOTE_RECV_THROUGHPUT", "result/remote_recv_throughput", 0, NULL},
    {"LOCAL_CPU_BIND", "local/placement/requested", 0, NULL},
    {"LOCAL_CPU_COUNT", "local/cpu/count", '|', "local/env/ncpu"},
    {"LOCAL_CPU_PEAK_UTIL", "local/cpu/peak_util", 0, NULL},
    {"LOCAL_CPU_PEAK_ID", "local/cpu/peak_id", 0, NULL},
    {"REMOTE_CPU_BIND", "remote/placement/requested", 0, NULL},
    {"REMOTE_CPU_COUNT", "remote/cpu/count", '|', "remote/env/ncpu"},
    {"REMOTE_CPU_PEAK_UTIL", "remote/cpu/peak_util", 0, NULL},
    {"REMOTE_CPU_PEAK_ID", "remote/cpu/peak_id", 0, NULL},
    {"SOURCE_ADDR", "local/address", 0, NULL},
    {"SOURCE_FAMILY", NULL, 0, NULL},
    {"DEST_ADDR", "remote/address", 0, NULL},
    {"DEST_FAMILY", NULL, 0, NULL},
    {"LOCAL_SEND_CALLS", "local/counts/send_calls", 0, NULL},
    {"LOCAL_RECV_CALLS", "local/counts/recv_calls", 0, NULL},
    {"LOCAL_BYTES_PER_RECV", "local/counts/bytes_recv", '/',
     "local/counts/recv_calls"},
    {"LOCAL_BYTES_PER_SEND", "local/counts/bytes_sent", '/',
     "local/counts/send_calls"},
    {"LOCAL_BYTES_SENT", "local/counts/bytes_sent", 0, NULL},
    {"LOCAL_BYTES_RECVD", "local/counts/bytes_recv", 0, NULL},
    {"LOCAL_BYTES_XFERD", "local/counts/bytes_sent", '+',
     "local/counts/bytes_recv"},
    {"LOCAL_NODELAY", "request/nodelay", 0, NULL},
    {"REMOTE_SEND_CALLS", "remote/counts/send_calls", 0, NULL},
    {"REMOTE_RECV_CALLS", "remote/counts/recv_calls", 0, NULL},
    {"REMOTE_BYTES_PER_RECV", "remote/counts/bytes_recv", '/',
     "remote/counts/recv_calls"},
    {"REMOTE_BYTES_PER_SEND", "remote/counts/bytes_sent", '/',
     "remote/counts/send_calls"},
    {"REMOTE_BYTES_SENT", "remote/counts/bytes_sent", 0, NULL},
    {"REMOTE_BYTES_RECVD", "remote/counts/bytes_recv", 0, NULL},
    {"REMOTE_BYTES_XFERD", "remote/counts/bytes_sent", '+',
     "remote/counts/bytes_recv"},
    {"REMOTE_NODELAY", "request/nodelay", 0, NULL},
    {"LOCAL_SYSNAME", "local/env/sysname", 0, NULL},
    {"LOCAL_RELEASE", "local/env/release", 0, NULL},
    {"LOCAL_CPU_MODEL", "local/env/cpu_model", 0, NULL},
    {"LOCAL_HOSTNAME", "local/env/hostname", 0, NULL},
    {"REMOTE_SYSNAME", "remote/env/sysname", 0, NULL},
    {"REMOTE_RELEASE", "remote/env/release", 0, NULL},
    {"REMOTE_CPU_MODEL", "remote/env/cpu_model", 0, NULL},
    {"REMOTE_HOSTNAME", "remote/env/hostname", 0, NULL},
    {"LOCAL_CPU_FREQUENCY", "local/platform/cpu_mhz", 0, NULL},
    {"LOCAL_VERSION", "local/platform/version", 0, NULL},
    {"LOCAL_MACHINE", "local/platform/machine", '|', "local/env/machine"},
    {"LOCAL_SYSTEM_MODEL", "local/platform/system_model", 0, NULL},
    {"LOCAL_INTERFACE_NAME", "local/platform/interface/name", 0, NULL},
    {"LOCAL_INTERFACE_VENDOR", "local/platform/interface/pci_vendor", 'h', NULL},
    {"LOCAL_INTERFACE_DEVICE", "local/platform/interface/pci_device", 'h', NULL},
    {"LOCAL_INTERFACE_SUBVENDOR", "local/platform/interface/pci_subvendor", 'h', NULL},
    {"LOCAL_INTERFACE_SUBDEVICE", "local/platform/interface/pci_subdevice", 'h', NULL},
    {"LOCAL_DRIVER_NAME", "local/platform/interface/driver", 0, NULL},
    {"LOCAL_DRIVER_VERSION", "local/platform/interface/driver_version", 0, NULL},
    {"LOCAL_DRIVER_FIRMWARE", "local/platform/interface/firmware", 0, NULL},
    {"LOCAL_DRIVER_BUS", "local/platform/interface/bus_info", 0, NULL},
    {"LOCAL_INTERFACE_SLOT", "local/platform/interface/pci_slot", 0, NULL},
    {"LOCAL_CPU_MAX_FREQUENCY", "local/platform/cpu_max_mhz", 0, NULL},
    {"LOCAL_CPU_GOVERNOR", "local/platform/governor", 0, NULL},
    {"LOCAL_SMT", "local/platform/smt", 'b', NULL},
    /* Derived texts, checked in check_platform. */
    {"LOCAL_VULNERABLE", NULL, 0, NULL},
    {"LOCAL_MITIGATION_OPTIONS", "local/platform/cmdline_mitigations", 0, NULL},
    {"LOCAL_HYPERVISOR", "local/platform/hypervisor", 0, NULL},
    {"LOCAL_CONTAINER", "local/platform/container", 0, NULL},
    {"LOCAL_NUMA_NODES", "local/platform/numa_nodes", 0, NULL},
    {"LOCAL_SYSTEM_VENDOR", "local/platform/system_vendor", 0, NULL},
    {"LOCAL_INTERFACE_SPEED", "local/platform/interface/speed_mbps", 0, NULL},
    {"LOCAL_INTERFACE_MTU", "local/platform/interface/mtu", 0, NULL},
    /* Derived texts, checked in check_platform. */
    {"LOCAL_INTERFACE_OFFLOADS", NULL, 0, NULL},
    {"LOCAL_INTERFACE_IRQ_CPUS", "local/platform/interface/irq_cpus", 0, NULL},
    {"LOCAL_QDISC", "local/platform/interface/qdisc", 0, NULL},
    {"LOCAL_BUILD", "local/platform/build", 0, NULL},
    {"REMOTE_CPU_FREQUENCY", "remote/platform/cpu_mhz", 0, NULL},
    {"REMOTE_VERSION", "remote/platform/version", 0, NULL},
    {"REMOTE_MACHINE", "remote/platform/machine", '|', "remote/env/machine"},
    {"REMOTE_SYSTEM_MODEL", "remote/platform/system_model", 0, NULL},
    {"REMOTE_INTERFACE_NAME", "remote/platform/interface/name", 0, NULL},
    {"REMOTE_INTERFACE_VENDOR", "remote/platform/interface/pci_vendor", 'h', NULL},
    {"REMOTE_INTERFACE_DEVICE", "remote/platform/interface/pci_device", 'h', NULL},
    {"REMOTE_INTERFACE_SUBVENDOR", "remote/platform/interface/pci_subvendor", 'h', NULL},
    {"REMOTE_INTERFACE_SUBDEVICE", "remote/platform/interface/pci_subdevice", 'h', NULL},
    {"REMOTE_DRIVER_NAME", "remote/platform/interface/driver", 0, NULL},
    {"REMOTE_DRIVER_VERSION", "remote/platform/interface/driver_version", 0, NULL},
    {"REMOTE_DRIVER_FIRMWARE", "remote/platform/interface/firmware", 0, NULL},
    {"REMOTE_DRIVER_BUS", "remote/platform/interface/bus_info", 0, NULL},
    {"REMOTE_INTERFACE_SLOT", "remote/platform/interface/pci_slot", 0,
     NULL},
    {"REMOTE_CPU_MAX_FREQUENCY", "remote/platform/cpu_max_mhz", 0, NULL},
    {"REMOTE_CPU_GOVERNOR", "remote/platform/governor", 0, NULL},
    {"REMOTE_SMT", "remote/platform/smt", 'b', NULL},
    /* Derived texts, checked in check_platform. */
    {"REMOTE_VULNERABLE", NULL, 0, NULL},
    {"REMOTE_MITIGATION_OPTIONS", "remote/platform/cmdline_mitigations", 0, NULL},
    {"REMOTE_HYPERVISOR", "remote/platform/hypervisor", 0, NULL},
    {"REMOTE_CONTAINER", "remote/platform/container", 0, NULL},
    {"REMOTE_NUMA_NODES", "remote/platform/numa_nodes", 0, NULL},
    {"REMOTE_SYSTEM_VENDOR", "remote/platform/system_vendor", 0, NULL},
    {"REMOTE_INTERFACE_SPEED", "remote/platform/interface/speed_mbps", 0, NULL},
    {"REMOTE_INTERFACE_MTU", "remote/platform/interface/mtu", 0, NULL},
    /* Derived texts, checked in check_platform. */
    {"REMOTE_INTERFACE_OFFLOADS", NULL, 0, NULL},
    {"REMOTE_INTERFACE_IRQ_CPUS", "remote/platform/interface/irq_cpus", 0, NULL},
    {"REMOTE_QDISC", "remote/platform/interface/qdisc", 0, NULL},
    {"REMOTE_BUILD", "remote/platform/build", 0, NULL},
    {"UUID", "uuid", 0, NULL},
    {"TEST", "test", 0, NULL},
    {"MIN_LATENCY", "latency_us/min", 0, NULL},
    {"MAX_LATENCY", "latency_us/max", 0, NULL},
    {"P50_LATENCY", "latency_us/p50", 0, NULL},
    {"P90_LATENCY", "latency_us/p90", 0, NULL},
    {"P99_LATENCY", "latency_us/p99", 0, NULL},
    {"MEAN_LATENCY", "latency_us/mean", 0, NULL},
    {"STDDEV_LATENCY", "latency_us/stddev", 0, NULL},
    {"P999_LATENCY", "latency_us/p99.9", 0, NULL},
    {"P9999_LATENCY", "latency_us/p99.99", 0, NULL},
    {"LOSS_COUNT", "result/lost", 0, NULL},
    {"LOSS_PERCENT", "result/loss_percent", 0, NULL},
    {"JITTER_MS", "result/jitter_ms", 0, NULL},
    {"DUPLICATES", "result/duplicates", 0, NULL},
    {"OUT_OF_ORDER", "result/out_of_order", 0, NULL},
    {"LOCAL_SEND_ERRORS", "local/counts/send_errors", 0, NULL},
    {"LOCAL_DATA_PATH", "local/counts/data_path", 0, NULL},
    {"REMOTE_DATA_PATH", "remote/counts/data_path", 0, NULL},
    {"LOCAL_DATA_SYSCALLS", "local/counts/syscalls", 0, NULL},
    {"REMOTE_DATA_SYSCALLS", "remote/counts/syscalls", 0, NULL},
    {"REMOTE_GRO_COALESCED", "remote/counts/gro_coalesced", 0, NULL},
    {"LOCAL_RECV_NAPS", "local/counts/recv_naps", 0, NULL},
    {"REMOTE_RECV_NAPS", "remote/counts/recv_naps", 0, NULL},
    {"LOCAL_RECV_NAP_DROPS", "local/counts/recv_nap_drops", 0, NULL},
    {"REMOTE_RECV_NAP_DROPS", "remote/counts/recv_nap_drops", 0, NULL},
    {"LOCAL_ZEROCOPY_DONE", "local/counts/zerocopy_completions", 0, NULL},
    {"LOCAL_ZEROCOPY_COPIED", "local/counts/zerocopy_copied", 0, NULL},
    {"REMOTE_ZEROCOPY_DONE", "remote/counts/zerocopy_completions", 0, NULL},
    {"REMOTE_ZEROCOPY_COPIED", "remote/counts/zerocopy_copied", 0, NULL},
    {"LOCAL_BUSY_POLL", "local/counts/busy_poll_us", 0, NULL},
    {"REMOTE_BUSY_POLL", "remote/counts/busy_poll_us", 0, NULL},
    {"STREAMS", "result/stream_count", 0, NULL},
    {"FAIRNESS", "fairness", 0, NULL},
    {"START_SCHEDULED", "timing/start_scheduled_ns", 0, NULL},
    {"START_ACTUAL", "timing/start_actual_ns", 0, NULL},
    {"END_TIME", "timing/end_ns", 0, NULL},
    {"COMMAND_LINE", "command_line", 0, NULL},
    {"LOCAL_MPTCP_SUBFLOWS", "local/counts/mptcp_subflows", 0, NULL},
    {"REMOTE_MPTCP_SUBFLOWS", "remote/counts/mptcp_subflows", 0, NULL},
    /* netperf 2.7's option settings: not in the JSON document; their
     * values are compared with netperf 2.7's own by check_compat. */
    {"OUTPUT_NONE", NULL, 0, NULL},
    {"SOURCE_PORT", NULL, 0, NULL},
    {"DEST_PORT", NULL, 0, NULL},
    {"LOCAL_SEND_WIDTH", NULL, 0, NULL},
    {"LOCAL_RECV_WIDTH", NULL, 0, NULL},
    {"LOCAL_SEND_OFFSET", NULL, 0, NULL},
    {"LOCAL_RECV_OFFSET", NULL, 0, NULL},
    {"LOCAL_RECV_ALIGN", NULL, 0, NULL},
    {"LOCAL_SEND_ALIGN", NULL, 0, NULL},
    {"LOCAL_SEND_DIRTY_COUNT", NULL, 0, NULL},
    {"LOCAL_RECV_DIRTY_COUNT", NULL, 0, NULL},
    {"LOCAL_RECV_CLEAN_COUNT", NULL, 0, NULL},
    {"LOCAL_CORK", NULL, 0, NULL},
    {"REMOTE_SEND_WIDTH", NULL, 0, NULL},
    {"REMOTE_RECV_WIDTH", NULL, 0, NULL},
    {"REMOTE_SEND_OFFSET", NULL, 0, NULL},
    {"REMOTE_RECV_OFFSET", NULL, 0, NULL},
    {"REMOTE_RECV_ALIGN", NULL, 0, NULL},
    {"REMOTE_SEND_ALIGN", NULL, 0, NULL},
    {"REMOTE_SEND_DIRTY_COUNT", NULL, 0, NULL},
    {"REMOTE_RECV_DIRTY_COUNT", NULL, 0, NULL},
    {"REMOTE_RECV_CLEAN_COUNT", NULL, 0, NULL},
    {"REMOTE_CORK", NULL, 0, NULL},
    {"LOCAL_INTERVAL_USECS", NULL, 0, NULL},
    {"LOCAL_INTERVAL_BURST", NULL, 0, NULL},
    {"REMOTE_INTERVAL_USECS", NULL, 0, NULL},
    {"REMOTE_INTERVAL_BURST", NULL, 0, NULL},
    {"LOCAL_SECURITY_TYPE_ID", NULL, 0, NULL},
    {"LOCAL_SECURITY_TYPE", NULL, 0, NULL},
    {"LOCAL_SECURITY_ENABLED_NUM", NULL, 0, NULL},
    {"LOCAL_SECURITY_ENABLED", NULL, 0, NULL},
    {"LOCAL_SECURITY_SPECIFIC", NULL, 0, NULL},
    {"REMOTE_SECURITY_TYPE_ID", NULL, 0, NULL},
    {"REMOTE_SECURITY_TYPE", NULL, 0, NULL},
    {"REMOTE_SECURITY_ENABLED_NUM", NULL, 0, NULL},
    {"REMOTE_SECURITY_ENABLED", NULL, 0, NULL},
    {"REMOTE_SECURITY_SPECIFIC", NULL, 0, NULL},
    {"RESULT_BRAND", NULL, 0, NULL},
    {"LOCAL_SOCKET_PRIO", NULL, 0, NULL},
    {"REMOTE_SOCKET_PRIO", NULL, 0, NULL},
    {"LOCAL_SOCKET_TOS", NULL, 0, NULL},
    {"REMOTE_SOCKET_TOS", NULL, 0, NULL},
    {"LOCAL_CONG_CONTROL", NULL, 0, NULL},
    {"REMOTE_CONG_CONTROL", NULL, 0, NULL},
    {"LOCAL_FILL_FILE", NULL, 0, NULL},
    {"REMOTE_FILL_FILE", NULL, 0, NULL},
    {"BIDIR_L2R_THROUGHPUT", "result/bidir/local_to_remote/throughput", 0,
     NULL},
    {"BIDIR_R2L_THROUGHPUT", "result/bidir/remote_to_local/throughput", 0,
     NULL},
    {"BIDIR_L2R_LOST", "result/bidir/local_to_remote/lost", 0, NULL},
    {"BIDIR_R2L_LOST", "result/bidir/remote_to_local/lost", 0, NULL},
    {"BIDIR_L2R_LOSS_PERCENT", "result/bidir/local_to_remote/loss_percent",
     0, NULL},
    {"BIDIR_R2L_LOSS_PERCENT", "result/bidir/remote_to_local/loss_percent",
     0, NULL},
    {"LOST_REQUESTS", "result/lost_requests", 0, NULL},
    {"LOST_RESPONSES", "result/lost_responses", 0, NULL},
    {"OUTBOUND_P50_LATENCY", "one_way/outbound_us/p50", 0, NULL},
    {"OUTBOUND_P99_LATENCY", "one_way/outbound_us/p99", 0, NULL},
    {"INBOUND_P50_LATENCY", "one_way/inbound_us/p50", 0, NULL},
    {"INBOUND_P99_LATENCY", "one_way/inbound_us/p99", 0, NULL},
    {"OFFERED_RATE", "open_loop/offered_rate", 0, NULL},
    {"ACHIEVED_RATE", "open_loop/achieved_rate", 0, NULL},
    {"SERVICE_P50_LATENCY", "open_loop/service_latency_us/p50", 0, NULL},
    {"SERVICE_P99_LATENCY", "open_loop/service_latency_us/p99", 0, NULL},
    {"SERVICE_P999_LATENCY", "open_loop/service_latency_us/p99.9", 0, NULL},
    {"SERVICE_MEAN_LATENCY", "open_loop/service_latency_us/mean", 0, NULL},
    {"TIMEOUTS", "local/counts/timeouts", 0, NULL},
    {"ERRORS", "local/counts/connection_errors", 0, NULL},
    {"SEND_LAG_MEAN", "open_loop/send_lag_mean_us", 0, NULL},
    {"SEND_LAG_MAX", "open_loop/send_lag_max_us", 0, NULL},
    {"IDLE_P50_LATENCY", "under_load/idle_p50_us", 0, NULL},
    {"IDLE_P99_LATENCY", "under_load/idle_p99_us", 0, NULL},
    {"LOADED_P50_LATENCY", "under_load/loaded_p50_us", 0, NULL},
    {"LOADED_P99_LATENCY", "under_load/loaded_p99_us", 0, NULL},
    {"LOADED_LATENCY_RATIO", "under_load/p50_ratio", 0, NULL},
    {"LOADED_ADDED_DELAY", "under_load/added_delay_ms", 0, NULL},
    {"LOAD_UP_THROUGHPUT", "under_load/up_throughput_mbps", 0, NULL},
    {"LOAD_DOWN_THROUGHPUT", "under_load/down_throughput_mbps", 0, NULL},
    {"IDLE_RPM", "under_load/idle_rpm", 0, NULL},
    {"LOADED_RPM", "under_load/loaded_rpm", 0, NULL},
    /* A request mix's lists, checked in check_mix. */
    {"MIX_CLASSES", NULL, 0, NULL},
    {"MIX_SEED", NULL, 0, NULL},
    {"MIX_TRANSACTIONS", NULL, 0, NULL},
    {"MIX_P99_LATENCY", NULL, 0, NULL},
    {"MIX_TIMEOUTS", NULL, 0, NULL},
    {"LATE_ANSWERS", "local/counts/late_answers", 0, NULL},
    {"MIX_LATE_ANSWERS", NULL, 0, NULL},
    /* --timestamps' parts (null, and -1, without it) */
    {"NETWORK_P50_LATENCY", "timestamps/parts/network/p50_us", 0, NULL},
    {"NETWORK_P99_LATENCY", "timestamps/parts/network/p99_us", 0, NULL},
    {"NETWORK_MEAN_LATENCY", "timestamps/parts/network/mean_us", 0, NULL},
    {"SERVER_P50_LATENCY", "timestamps/parts/server/p50_us", 0, NULL},
    {"SERVER_P99_LATENCY", "timestamps/parts/server/p99_us", 0, NULL},
    {"SERVER_MEAN_LATENCY", "timestamps/parts/server/mean_us", 0, NULL},
    {"CLIENT_STACK_P50_LATENCY", "timestamps/parts/client_stack/p50_us", 0, NULL},
    {"CLIENT_STACK_P99_LATENCY", "timestamps/parts/client_stack/p99_us", 0, NULL},
    {"CLIENT_STACK_MEAN_LATENCY", "timestamps/parts/client_stack/mean_us", 0, NULL},
    {"CLIENT_STACK_OUT_P50_LATENCY", "timestamps/parts/client_stack_out/p50_us", 0, NULL},
    {"CLIENT_STACK_OUT_P99_LATENCY", "timestamps/parts/client_stack_out/p99_us", 0, NULL},
    {"CLIENT_STACK_IN_P50_LATENCY", "timestamps/parts/client_stack_in/p50_us", 0, NULL},
    {"CLIENT_STACK_IN_P99_LATENCY", "timestamps/parts/client_stack_in/p99_us", 0, NULL},
    {"SERVER_STACK_IN_P50_LATENCY", "timestamps/parts/server_stack_in/p50_us", 0, NULL},
    {"SERVER_STACK_IN_P99_LATENCY", "timestamps/parts/server_stack_in/p99_us", 0, NULL},
    {"SERVER_APP_P50_LATENCY", "timestamps/parts/server_app/p50_us", 0, NULL},
    {"SERVER_APP_P99_LATENCY", "timestamps/parts/server_app/p99_us", 0, NULL},
    {"SERVER_STACK_OUT_P50_LATENCY", "timestamps/parts/server_stack_out/p50_us", 0, NULL},
    {"SERVER_STACK_OUT_P99_LATENCY", "timestamps/parts/server_stack_out/p99_us", 0, NULL},
};

#define NJMAPS (int)(sizeof(jmaps) / sizeof(jmaps[0]))

static const struct jmap *
jmap_find(const char *name)
{
	static char tcp_path[96];
	static struct jmap tcp_map;
	int i, local = strncmp(name, "LOCAL_TCP_", 10) == 0;

	/* The TCP_INFO pairs map onto the side's tcp_info object. */
	if (local || strncmp(name, "REMOTE_TCP_", 11) == 0) {
		for (i = 0; i < TCPINFO_NFIELDS; i++)
			if (strcmp(name + (local ? 10 : 11),
				   tcpinfo_fields[i].id) == 0) {
				snprintf(tcp_path, sizeof(tcp_path),
					 "%s/tcp_info/%s",
					 local ? "local" : "remote",
					 tcpinfo_fields[i].key);
				tcp_map.name = name;
				tcp_map.path = tcp_path;
				return &tcp_map;
			}
		return NULL;
	}

	for (i = 0; i < NJMAPS; i++)
		if (strcmp(jmaps[i].name, name) == 0)
			return &jmaps[i];
	return NULL;
}

/* Follows a '/' path; NULL when a step is missing or null. */
static json_t *
jpath(json_t *doc, const char *path)
{
	char key[64];
	const char *s = path;
	size_t n;

	while (doc != NULL && *s != '\0') {
		if (!json_is_object(doc))
			return NULL;
		n = strcspn(s, "/");
		ck_assert_uint_lt(n, sizeof(key));
		memcpy(key, s, n);
		key[n] = '\0';
		doc = json_object_get(doc, key);
		s += n + (s[n] == '/');
	}
	return json_is_null(doc) ? NULL : doc;
}

static double
jnumber(json_t *v)
{
	if (json_is_boolean(v))
		return json_is_true(v) ? 1 : 0;
	ck_assert_msg(json_is_number(v), "not a number");
	return json_number_value(v);
}

/* Half a unit in the last decimal printed, plus rounding noise. */
static double
text_tolerance(const char *text)
{
	const char *dot = strchr(text, '.');
	int decimals = dot ? (int)strlen(dot + 1) : 0;

	return 0.5 * pow(10, -decimals) * 1.0001 + 1e-9;
}

/* netperf's "not measured": -1 however it is formatted, or method U. */
static int
is_unmeasured(const char *text)
{
	char *end;
	double v = strtod(text, &end);

	return strcmp(text, "U") == 0 ||
	       (*end == '\0' && end != text && v == -1);
}

/* The selectors 2.7 prints as 0 when that side's CPU was not measured:
 * the five shares of either side, and netserver's peak. */
static int
zero_unmeasured(const char *name)
{
	return (strstr(name, "_CPU_PERCENT_") != NULL &&
		strstr(name, "_STEAL") == NULL) ||
	       strncmp(name, "REMOTE_CPU_PEAK_", 16) == 0;
}

/* Strips netperf's quotes from the command line and undoes doubling. */
static void
unquote(const char *in, char *out, size_t cap)
{
	size_t n = 0, len = strlen(in);

	ck_assert_uint_ge(len, 2);
	ck_assert_int_eq(in[0], '"');
	ck_assert_int_eq(in[len - 1], '"');
	for (in++, len -= 2; len > 0 && n + 1 < cap; in++, len--) {
		if (*in == '"' && len > 1 && in[1] == '"') {
			in++;
			len--;
		}
		out[n++] = *in;
	}
	out[n] = '\0';
}

/* Checks one selector's text against the JSON document. */
static void
check_against_json(json_t *doc, const char *name, const char *text)
{
	const struct jmap *m = jmap_find(name);
	json_t *a, *b;
	double want, got;
	char *end;
	char cmd[1200];

	ck_assert_msg(m != NULL, "selector %s has no JSON counterpart", name);
	if (m->path == NULL)
		return;
	a = jpath(doc, m->path);
	if (a == NULL && m->op == '|')
		a = jpath(doc, m->b);
	if (a == NULL) {
		/* Unknown: -1 or U, an empty string, a PCI id printed
		 * as netperf 2.6 printed an unreadable one, or 2.7's 0.00
		 * for a CPU share or netserver's peak not measured. */
		ck_assert_msg(
		    is_unmeasured(text) || text[0] == '\0' ||
			(m->op == 'h' && strcmp(text, "0xffffffff") == 0) ||
			(zero_unmeasured(name) && strtod(text, NULL) == 0),
		    "%s: JSON null but text \"%s\"", name, text);
		return;
	}
	if (m->op == 'b') {
		ck_assert_msg(json_is_boolean(a), "%s: not a boolean", name);
		ck_assert_str_eq(text, json_is_true(a) ? "on" : "off");
		return;
	}
	if (json_is_string(a)) {
		if (strcmp(name, "COMMAND_LINE") == 0) {
			unquote(text, cmd, sizeof(cmd));
			text = cmd;
		}
		ck_assert_msg(strcmp(json_string_value(a), text) == 0,
			      "%s: JSON \"%s\" text \"%s\"", name,
			      json_string_value(a), text);
		return;
	}
	want = jnumber(a);
	if (m->op == '/' || m->op == '+') {
		b = jpath(doc, m->b);
		ck_assert_ptr_nonnull(b);
		want = m->op == '/' ? want / jnumber(b) : want + jnumber(b);
	}
	got = strtod(text, &end);
	ck_assert_msg(*end == '\0' && end != text, "%s: \"%s\" not a number",
		      name, text);
	ck_assert_msg(fabs(got - want) <=
			  text_tolerance(text) + 1e-12 * fabs(want),
		      "%s: text %s, JSON %.9g", name, text, want);
}

static json_t *
render_json(const struct result *res)
{
	struct mem m;
	json_error_t je;
	json_t *doc;
	char *text;

	ck_assert_int_eq(json_doc_print(mem_open(&m), res, 0), 0);
	text = mem_close(&m);
	doc = json_loads(text, 0, &je);
	ck_assert_msg(doc != NULL, "JSON does not parse: %s at line %d",
		      je.text, je.line);
	free(text);
	return doc;
}

/* Splits one CSV row into fields (quotes understood); returns how many. */
static int
csv_split(const char *line, char fields[][1200], int max)
{
	int n = 0, quoted;
	size_t k;

	for (;;) {
		ck_assert_int_lt(n, max);
		k = 0;
		quoted = *line == '"';
		if (quoted)
			line++;
		while (*line != '\0') {
			if (quoted && *line == '"') {
				if (line[1] == '"') {
					fields[n][k++] = '"';
					line += 2;
					continue;
				}
				quoted = 0;
				line++;
				continue;
			}
			if (!quoted && (*line == ',' || *line == '\n'))
				break;
			fields[n][k++] = *line++;
		}
		fields[n++][k] = '\0';
		if (*line != ',')
			return n;
		line++;
	}
}

static char fields_a[SELECT_MAX_FIELDS][1200];
static char fields_b[SELECT_MAX_FIELDS][1200];
static char kv_name[SELECT_MAX_FIELDS][64];
static char kv_val[SELECT_MAX_FIELDS][1200];

/* -k output as parallel arrays; returns the number of lines. */
static int
keyval_split(char *text)
{
	char *line, *save = NULL, *eq;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		ck_assert_int_lt(n, SELECT_MAX_FIELDS);
		eq = strchr(line, '=');
		ck_assert_ptr_nonnull(eq);
		*eq = '\0';
		snprintf(kv_name[n], sizeof(kv_name[n]), "%s", line);
		snprintf(kv_val[n], sizeof(kv_val[n]), "%s", eq + 1);
		n++;
	}
	return n;
}

/* Whether the list names the selector called name. */
static int
has_field(const struct select_list *l, const char *name)
{
	struct select_list one;
	char err[ERR_LEN];

	if (select_parse(name, &one, err) != 0)
		return 0;
	for (int i = 0; i < l->n; i++)
		if (l->field[i] == one.field[0])
			return 1;
	return 0;
}

static int
keyval_of(const struct result *res, const struct select_list *l)
{
	static char *text;
	struct mem m;
	int n;

	free(text);
	select_keyval(mem_open(&m), res, l);
	text = mem_close(&m);
	n = keyval_split(text);
	/* Without -B there is no RESULT_BRAND line, as in 2.7. */
	ck_assert_int_eq(
	    n, l->n - (res->brand[0] == '\0' && has_field(l, "RESULT_BRAND")));
	return n;
}

/* One text line of a -O block, or "" past its end. */
static const char *
line_at(const char *line, size_t len, size_t pos, size_t *out_len)
{
	if (pos >= len) {
		*out_len = 0;
		return "";
	}
	*out_len = len - pos;
	return line + pos;
}

static int
all_spaces(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ')
			return 0;
	return 1;
}

static size_t
rtrim_len(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}

/*
 * Walks one -O block (4 title lines and a value line) column by column,
 * knowing each value from -k: a column must be exactly as wide as its
 * longest title line or its value plus one, then one more space, as
 * netperf lays it out. Returns the titles joined with spaces in title[].
 */
static void
check_block(char *const lines[5], int first, int count, char title[][1200])
{
	size_t len[5], pos = 0, w, end, tl, k, n, maxt;
	const char *seg;
	int i;

	for (k = 0; k < 5; k++)
		len[k] = strlen(lines[k]);
	for (i = first; i < first + count; i++) {
		const char *v = kv_val[i];
		size_t vl = strlen(v);

		ck_assert_msg(
		    len[4] >= pos + vl && memcmp(lines[4] + pos, v, vl) == 0,
		    "%s: value \"%s\" not at column %zu", kv_name[i], v, pos);
		/* the narrowest width that the titles and value agree on */
		for (w = vl + 1;; w++) {
			ck_assert_msg(w < 200, "%s: no column width fits",
				      kv_name[i]);
			end = pos + w + 1;
			maxt = 0;
			for (k = 0; k < 4; k++) {
				seg = line_at(lines[k], len[k], pos, &n);
				n = n < w + 1 ? n : w + 1;
				tl = rtrim_len(seg, n);
				if (tl > maxt)
					maxt = tl;
			}
			if ((maxt > vl + 1 ? maxt : vl + 1) != w)
				continue;
			for (k = 0; k < 4; k++) {
				seg = line_at(lines[k], len[k], pos, &n);
				if (n > w + 1)
					n = w + 1;
				if (!all_spaces(seg + rtrim_len(seg, n),
						n - rtrim_len(seg, n)))
					break;
				if (n == w + 1 && seg[w] != ' ')
					break;
			}
			if (k == 4)
				break;
		}
		ck_assert(all_spaces(lines[4] + pos + vl, end - pos - vl));
		title[i][0] = '\0';
		for (k = 0; k < 4; k++) {
			seg = line_at(lines[k], len[k], pos, &n);
			tl = rtrim_len(seg, n < w + 1 ? n : w + 1);
			if (tl == 0)
				break;
			snprintf(title[i] + strlen(title[i]),
				 1200 - strlen(title[i]), "%s%.*s",
				 k ? " " : "", (int)tl, seg);
		}
		pos = end;
	}
	for (k = 0; k < 5; k++)
		ck_assert_msg(len[k] == pos, "line %zu is %zu long, not %zu", k,
			      len[k], pos);
}

/* Renders l in all four forms and checks each against the JSON. */
static void
cross_check(const struct result *res, const struct select_list *l)
{
	struct mem m;
	char *csv, *cols, *nl, *lines[5], *save = NULL, *p;
	json_t *doc = render_json(res);
	int n, i, first, count, k;

	/* -k against JSON */
	n = keyval_of(res, l);
	for (i = 0; i < n; i++)
		check_against_json(doc, kv_name[i], kv_val[i]);

	/* -o: header and values, the values the same as -k's */
	select_csv(mem_open(&m), res, l, 1);
	csv = mem_close(&m);
	nl = strchr(csv, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_int_eq(csv_split(csv, fields_a, SELECT_MAX_FIELDS), n);
	ck_assert_int_eq(csv_split(nl + 1, fields_b, SELECT_MAX_FIELDS), n);
	for (i = 0; i < n; i++) {
		if (strcmp(kv_name[i], "COMMAND_LINE") == 0) {
			char cmd[1200];

			/* the CSV reader took netperf's quotes off */
			unquote(kv_val[i], cmd, sizeof(cmd));
			ck_assert_str_eq(fields_b[i], cmd);
			continue;
		}
		ck_assert_str_eq(fields_b[i], kv_val[i]);
		check_against_json(doc, kv_name[i], fields_b[i]);
	}

	/* -O: every block's columns, titles equal to -o's header */
	select_columns(mem_open(&m), res, l, 1);
	cols = mem_close(&m);
	p = cols;
	for (first = 0; first < l->n; first += count) {
		for (count = 1;
		     first + count < l->n && !l->block[first + count]; count++)
			;
		if (first > 0) {
			ck_assert_int_eq(*p, '\n');
			p++;
		}
		for (k = 0; k < 5; k++) {
			lines[k] = strtok_r(k == 0 ? p : NULL, "\n", &save);
			ck_assert_ptr_nonnull(lines[k]);
		}
		p = lines[4] + strlen(lines[4]) + 1;
		save = NULL;
		check_block(lines, first, count, fields_b);
		/* OUTPUT_NONE's blank column reads back empty */
		for (i = first; i < first + count; i++)
			if (strcmp(fields_a[i], " ") != 0)
				ck_assert_str_eq(fields_b[i], fields_a[i]);
	}
	ck_assert_int_eq(*p, '\0');
	free(csv);
	free(cols);
	json_decref(doc);
}

START_TEST(test_all_agree_with_json)
{
	struct result res;
	struct select_list l;
	char err[ERR_LEN] = "";
	int i;

	build_rr(&res, 1);
	ck_assert_int_eq(select_parse("all+", &l, err), 0);
	cross_check(&res, &l);
	/* every selector is accounted for in the JSON map */
	keyval_of(&res, &l);
	for (i = 0; i < l.n; i++)
		ck_assert_msg(jmap_find(kv_name[i]) != NULL, "%s unmapped",
			      kv_name[i]);
	ck_assert_str_eq(kv_val[0], "Stream");
	/* "all" is netperf 2.7's 173, from SOCKET_TYPE to COMMAND_LINE in
	 * its four blocks; ours are "all+". */
	ck_assert_int_gt(l.n, 173);
	ck_assert_int_eq(select_parse("all", &l, err), 0);
	ck_assert_int_eq(l.n, 173);
	keyval_of(&res, &l);
	ck_assert_str_eq(kv_name[0], "SOCKET_TYPE");
	ck_assert_str_eq(kv_name[24], "LOCAL_CPU_UTIL");
	ck_assert_int_eq(l.block[24], 1);
	ck_assert_str_eq(kv_name[172], "COMMAND_LINE");
	result_free(&res);
}
END_TEST

/* A mix's per-class lists (MIX_TIMEOUTS, MIX_LATE_ANSWERS) are its
 * JSON classes' figures joined by '/', and LATE_ANSWERS the total's. */
START_TEST(test_mix_lists_agree_with_json)
{
	static const char *const key[] = {"timeouts", "late_answers"};
	struct result res;
	struct select_list l;
	char err[ERR_LEN] = "", want[64];
	json_t *doc;
	int n, k;

	build_rr(&res, 0);
	ck_assert_int_eq(mix_parse("90%64,1400/10%1400,64", &res.p.mix, err),
			 1);
	res.mix = calloc(2, sizeof(*res.mix));
	res.mix_hist = mix_hist_new(2);
	ck_assert(res.mix != NULL && res.mix_hist != NULL);
	mix_acct_init(res.mix, 2);
	res.mix[0].timeouts = 41;
	res.mix[1].timeouts = 5;
	res.mix[0].late = 3;
	res.mix[1].late = 2;
	doc = render_json(&res);
	ck_assert_int_eq(
	    select_parse("MIX_TIMEOUTS,MIX_LATE_ANSWERS,LATE_ANSWERS", &l, err),
	    0);
	n = keyval_of(&res, &l);
	ck_assert_int_eq(n, 3);
	for (k = 0; k < 2; k++) {
		json_t *c = json_object_get(jpath(doc, "mix"), "classes");

		snprintf(want, sizeof(want), "%lld/%lld",
			 (long long)json_integer_value(
			     json_object_get(json_array_get(c, 0), key[k])),
			 (long long)json_integer_value(
			     json_object_get(json_array_get(c, 1), key[k])));
		ck_assert_str_eq(kv_val[k], want);
	}
	ck_assert_str_eq(kv_val[1], "3/2");
	ck_assert_str_eq(kv_val[2], "5");
	check_against_json(doc, kv_name[2], kv_val[2]);
	json_decref(doc);
	result_free(&res);
}
END_TEST

START_TEST(test_unmeasured_cpu)
{
	struct result res;
	struct select_list l;
	char err[ERR_LEN] = "";
	json_t *doc;
	int i;

	build_rr(&res, 0);
	res.side[RESULT_LOCAL].place.requested[0] = '\0';
	res.side[RESULT_LOCAL].sum.mss = -1;
	ck_assert_int_eq(
	    select_parse("LOCAL_CPU_UTIL,LOCAL_SD,LOCAL_CPU_METHOD,"
			 "REMOTE_CPU_UTIL,REMOTE_SD,REMOTE_CPU_METHOD,"
			 "LOCAL_CPU_PEAK_UTIL,LOCAL_CPU_PEAK_ID,"
			 "LOCAL_CPU_PERCENT_USER,LOCAL_CPU_CONFID,"
			 "LOCAL_CPU_BIND,TRANSPORT_MSS,LOCAL_CPU_COUNT",
			 &l, err),
	    0);
	keyval_of(&res, &l);
	ck_assert_str_eq(kv_val[0], "-1.00");
	ck_assert_str_eq(kv_val[1], "-1.000");
	ck_assert_str_eq(kv_val[2], "U");
	ck_assert_str_eq(kv_val[3], "-1.00");
	ck_assert_str_eq(kv_val[4], "-1.000");
	ck_assert_str_eq(kv_val[5], "U");
	ck_assert_str_eq(kv_val[6], "-1.00");
	ck_assert_str_eq(kv_val[7], "-1");
	ck_assert_str_eq(kv_val[8], "0.00"); /* 2.7's share unmeasured */
	ck_assert_str_eq(kv_val[9], "-1.000");
	ck_assert_str_eq(kv_val[10], "-1");
	ck_assert_str_eq(kv_val[11], "-1");
	ck_assert_str_eq(kv_val[12], "4"); /* the online count, as netperf */
	doc = render_json(&res);
	ck_assert(json_is_null(
	    json_object_get(json_object_get(doc, "local"), "cpu")));
	ck_assert_ptr_null(jpath(doc, "result/local_service_demand"));
	json_decref(doc);
	for (i = 0; i < l.n; i++)
		if (strcmp(kv_name[i], "LOCAL_CPU_COUNT") != 0 &&
		    !zero_unmeasured(kv_name[i]))
			ck_assert_msg(is_unmeasured(kv_val[i]), "%s=%s",
				      kv_name[i], kv_val[i]);
	ck_assert_int_eq(select_parse("all+", &l, err), 0);
	cross_check(&res, &l);
	result_free(&res);
}
END_TEST

/* The other tests' shapes: a stream test with a -f unit, and UDP. */
START_TEST(test_stream_and_udp_agree)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_MAERTS",
					    "UDP_STREAM", "UDP_RR", "TCP_CRR"};
	struct result res;
	struct select_list l;
	char err[ERR_LEN] = "";
	json_t *doc;
	size_t t;

	for (t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		build_rr(&res, 1);
		res.m = module_find(tests[t]);
		ck_assert_ptr_nonnull(res.m);
		res.fmt = t % 2 ? 'M' : 'm';
		res.side[RESULT_REMOTE].sum.lost = 5;
		res.side[RESULT_LOCAL].sum.send_errors = 9;
		result_compute(&res);
		ck_assert_int_eq(select_parse("all+", &l, err), 0);
		cross_check(&res, &l);
		doc = render_json(&res);
		ck_assert_str_eq(
		    json_string_value(jpath(doc, "result/throughput_units")),
		    t % 2 ? "MBytes/s" : "10^6bits/s");
		json_decref(doc);
		result_free(&res);
	}
}
END_TEST

START_TEST(test_json_document)
{
	struct result res;
	json_t *doc, *h, *row, *per;
	uint64_t sum = 0;
	size_t i;

	build_rr(&res, 1);
	doc = render_json(&res);
	ck_assert_str_eq(json_string_value(jpath(doc, "schema")),
			 "netperf-result");
	ck_assert_int_eq(json_integer_value(jpath(doc, "schema_version")), 1);
	ck_assert_str_eq(json_string_value(jpath(doc, "test")), "TCP_RR");
	ck_assert_str_eq(json_string_value(jpath(doc, "request/format")), "x");
	ck_assert(json_is_true(jpath(doc, "request/nodelay")));
	ck_assert(json_is_integer(jpath(doc, "local/counts/bytes_sent")));
	ck_assert(json_is_real(jpath(doc, "result/throughput")));
	ck_assert_str_eq(json_string_value(jpath(doc, "local/family")),
			 "AF_INET");
	ck_assert_str_eq(json_string_value(jpath(doc, "local/env/program")),
			 "netperf 3.0.0");
	ck_assert(json_is_true(jpath(doc, "local/placement/nic_local")));
	ck_assert_ptr_null(jpath(doc, "remote/placement/nic_local"));
	ck_assert_ptr_null(jpath(doc, "remote/counts/mss"));

	/* the histogram: non-empty buckets that add up to the count */
	h = jpath(doc, "latency_us/histogram");
	ck_assert(json_is_array(h));
	ck_assert_uint_gt(json_array_size(h), 0);
	json_array_foreach(h, i, row)
	{
		ck_assert_uint_eq(json_array_size(row), 3);
		ck_assert(jnumber(json_array_get(row, 0)) <
			  jnumber(json_array_get(row, 1)));
		ck_assert_int_gt(json_integer_value(json_array_get(row, 2)), 0);
		sum += (uint64_t)json_integer_value(json_array_get(row, 2));
	}
	ck_assert_uint_eq(sum, 1000);
	ck_assert_int_eq(json_integer_value(jpath(doc, "latency_us/count")),
			 1000);
	ck_assert(fabs(jnumber(jpath(doc, "latency_us/max")) - 2985) < 1e-6);
	ck_assert(fabs(jnumber(jpath(doc, "latency_us/min")) - 11) < 1e-6);

	/* per-CPU: the offline cpu2 left out */
	per = jpath(doc, "local/cpu/per_cpu");
	ck_assert_uint_eq(json_array_size(per), 3);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_array_get(per, 2), "cpu")),
	    3);

	ck_assert_uint_eq(json_array_size(jpath(doc, "streams")), 2);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(
		json_array_get(jpath(doc, "streams"), 1), "index")),
	    1);
	ck_assert_uint_eq(json_array_size(jpath(doc, "interim")), 2);
	ck_assert(
	    fabs(jnumber(json_object_get(
		     json_array_get(jpath(doc, "interim"), 1), "ending")) -
		 1795981241.251) < 1e-6);
	ck_assert(json_is_true(jpath(doc, "confidence/met")));
	ck_assert_int_eq(
	    json_integer_value(jpath(doc, "confidence/iterations")), 3);
	ck_assert(json_is_array(jpath(doc, "errors")));
	ck_assert_uint_eq(json_array_size(jpath(doc, "errors")), 0);
	ck_assert(jnumber(jpath(doc, "fairness")) > 0.9 &&
		  jnumber(jpath(doc, "fairness")) <= 1);
	json_decref(doc);

	/* one stream: an empty list, and no histogram: null latency */
	free(res.hist);
	res.hist = NULL;
	res.nstreams = 1;
	result_compute(&res);
	res.lat.count = 0;
	doc = render_json(&res);
	ck_assert_uint_eq(json_array_size(jpath(doc, "streams")), 0);
	ck_assert(json_is_null(json_object_get(doc, "latency_us")));
	json_decref(doc);
	result_free(&res);
}
END_TEST

/* The examples in the netperf 2.7 reference, byte for byte. */
START_TEST(test_netperf_examples)
{
	struct result res;
	struct select_list l;
	struct mem m;
	char err[ERR_LEN] = "";
	char *text;

	build_rr(&res, 1);
	res.thruput = 71906.66;
	res.lat.mean = 13.84;
	res.lat.p99 = 16;
	ck_assert_int_eq(select_parse("THROUGHPUT,THROUGHPUT_UNITS;"
				      "MEAN_LATENCY,P99_LATENCY",
				      &l, err),
			 0);
	select_columns(mem_open(&m), &res, &l, 1);
	text = mem_close(&m);
	ck_assert_str_eq(text, "Throughput Throughput \n"
			       "           Units      \n"
			       "                      \n"
			       "                      \n"
			       "71906.66   Trans/s    \n"
			       "\n"
			       "Mean         99th         \n"
			       "Latency      Percentile   \n"
			       "Microseconds Latency      \n"
			       "             Microseconds \n"
			       "13.84        16           \n");
	free(text);
	select_columns(mem_open(&m), &res, &l, 0);
	text = mem_close(&m);
	ck_assert_str_eq(text, "71906.66   Trans/s    \n"
			       "\n"
			       "13.84        16           \n");
	free(text);

	res.thruput = 66679.60;
	res.lat.mean = 14.92;
	res.lat.p50 = 13;
	res.lat.p90 = 13.2;
	res.lat.p99 = 39;
	res.side[RESULT_LOCAL].util = 99.5;
	res.side[RESULT_LOCAL].sd = 29.844;
	ck_assert_int_eq(select_parse("THROUGHPUT,THROUGHPUT_UNITS,"
				      "MEAN_LATENCY,P50_LATENCY,P90_LATENCY,"
				      "P99_LATENCY,LOCAL_CPU_UTIL,LOCAL_SD",
				      &l, err),
			 0);
	select_csv(mem_open(&m), &res, &l, 1);
	text = mem_close(&m);
	ck_assert_str_eq(
	    text, "Throughput,Throughput Units,Mean Latency Microseconds,"
		  "50th Percentile Latency Microseconds,90th Percentile "
		  "Latency Microseconds,99th Percentile Latency "
		  "Microseconds,Local CPU Util %,Local Service Demand\n"
		  "66679.60,Trans/s,14.92,13,13,39,99.50,29.844\n");
	free(text);
	select_csv(mem_open(&m), &res, &l, 0);
	text = mem_close(&m);
	ck_assert_str_eq(text,
			 "66679.60,Trans/s,14.92,13,13,39,99.50,29.844\n");
	free(text);

	ck_assert_int_eq(
	    select_parse(
		"THROUGHPUT,THROUGHPUT_UNITS,SD_UNITS,LOCAL_CPU_METHOD,"
		"RT_LATENCY,P99_LATENCY",
		&l, err),
	    0);
	res.trans_rate = 72713.64;
	res.p.burst = 0;
	/* netperf's example is one connection; RT_LATENCY counts every
	 * transaction in flight. */
	res.nstreams = 1;
	select_keyval(mem_open(&m), &res, &l);
	text = mem_close(&m);
	ck_assert_str_eq(text, "THROUGHPUT=66679.60\n"
			       "THROUGHPUT_UNITS=Trans/s\n"
			       "SD_UNITS=usec/Tran\n"
			       "LOCAL_CPU_METHOD=S\n"
			       "RT_LATENCY=13.753\n"
			       "P99_LATENCY=39\n");
	free(text);
	result_free(&res);
}
END_TEST

START_TEST(test_parse_lists)
{
	struct select_list l;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(
	    select_parse(" throughput , Mean_Latency ;p99_latency  ", &l, err),
	    0);
	ck_assert_int_eq(l.n, 3);
	ck_assert_int_eq(l.block[0], 0);
	ck_assert_int_eq(l.block[1], 0);
	ck_assert_int_eq(l.block[2], 1);
	/* netperf's strtok(" ,") separates on spaces as well */
	ck_assert_int_eq(select_parse("THROUGHPUT THROUGHPUT_UNITS", &l, err),
			 0);
	ck_assert_int_eq(l.n, 2);
	ck_assert_int_eq(select_parse(";;THROUGHPUT;;;", &l, err), 0);
	ck_assert_int_eq(l.n, 1);
	ck_assert_int_eq(l.block[0], 0);

	ck_assert_int_eq(select_parse("THROUGHPUT,FOO", &l, err), -1);
	ck_assert_str_eq(err, "unknown output selector \"FOO\" (netperf -- -o "
			      "'?' lists them)");
	ck_assert_int_eq(select_parse("?", &l, err), -1);
	ck_assert_int_eq(select_parse("", &l, err), -1);
	ck_assert_str_eq(err, "empty output selector list");
	ck_assert_int_eq(select_parse(" , ; ", &l, err), -1);
	ck_assert_int_eq(select_parse(NULL, &l, err), -1);
	ck_assert_int_eq(select_parse("/nonexistent/selectors", &l, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/selectors"));
}
END_TEST

START_TEST(test_parse_too_many)
{
	struct select_list l;
	char err[ERR_LEN] = "";
	char buf[SELECT_MAX_FIELDS * 12 + 32] = "";
	int i;

	for (i = 0; i <= SELECT_MAX_FIELDS; i++)
		strcat(buf, "THROUGHPUT,");
	ck_assert_int_eq(select_parse(buf, &l, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "more than"));
}
END_TEST

START_TEST(test_all_and_names)
{
	struct select_list l, one;
	struct mem m;
	char err[ERR_LEN] = "";
	char *text, *line, *save = NULL;
	int n = 0, blocks = 0, i;

	ck_assert_int_eq(select_parse(" ALL+ ", &l, err), 0);
	for (i = 0; i < l.n; i++) {
		ck_assert_int_eq(l.field[i], i);
		blocks += l.block[i];
	}
	ck_assert_int_eq(blocks, 3); /* netperf's four blocks */
	select_list_names(mem_open(&m));
	text = mem_close(&m);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		/* The last line, as in 2.7: it ends a list, naming none. */
		if (strcmp(line, "OUTPUT_END") == 0) {
			ck_assert_ptr_null(strtok_r(NULL, "\n", &save));
			break;
		}
		ck_assert_int_eq(select_parse(line, &one, err), 0);
		ck_assert_int_eq(one.n, 1);
		ck_assert_int_eq(one.field[0], n);
		n++;
	}
	ck_assert_int_eq(n, l.n);
	ck_assert_int_ge(n, 100);
	free(text);
}
END_TEST

START_TEST(test_selector_file)
{
	char path[] = "/tmp/check_output_XXXXXX";
	struct select_list l;
	char err[ERR_LEN] = "";
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs("THROUGHPUT,THROUGHPUT_UNITS\r\nmean_latency,P99_LATENCY\n"
	      "\nLOCAL_CPU_UTIL\nREMOTE_CPU_UTIL\nLOCAL_SD\n",
	      f);
	fclose(f);
	ck_assert_int_eq(select_parse(path, &l, err), 0);
	/* four lines read, as netperf does: the empty third counts as one
	 * but adds no block, and the fifth is past the limit */
	ck_assert_int_eq(l.n, 5);
	ck_assert_int_eq(l.block[2], 1);
	ck_assert_int_eq(l.block[4], 1);

	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("THROUGHPUT,BOGUS_NAME\n", f);
	fclose(f);
	ck_assert_int_eq(select_parse(path, &l, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"BOGUS_NAME\""));
	unlink(path);
}
END_TEST

START_TEST(test_default_lists)
{
	struct result res;
	struct select_list l;

	build_rr(&res, 0);
	res.side[RESULT_LOCAL].cpu_wanted = res.side[RESULT_REMOTE].cpu_wanted =
	    0;
	select_default_list(&res, &l);
	keyval_of(&res, &l);
	ck_assert_int_eq(l.n, 9);
	ck_assert_str_eq(kv_name[0], "LSS_SIZE_END");
	ck_assert_str_eq(kv_name[5], "RESPONSE_SIZE");
	ck_assert_str_eq(kv_name[8], "THROUGHPUT_UNITS");

	res.side[RESULT_LOCAL].cpu_wanted = 1;
	select_default_list(&res, &l);
	ck_assert_int_eq(l.n, 26);
	keyval_of(&res, &l);
	ck_assert_str_eq(kv_name[25], "SD_UNITS");

	res.m = module_find("TCP_STREAM");
	res.side[RESULT_LOCAL].cpu_wanted = 0;
	select_default_list(&res, &l);
	keyval_of(&res, &l);
	ck_assert_int_eq(l.n, 6);
	ck_assert_str_eq(kv_name[0], "LSS_SIZE_END");
	ck_assert_str_eq(kv_name[1], "RSR_SIZE_END");
	ck_assert_str_eq(kv_name[2], "LOCAL_SEND_SIZE");
	ck_assert_str_eq(kv_name[4], "THROUGHPUT");

	res.m = module_find("TCP_MAERTS");
	select_default_list(&res, &l);
	keyval_of(&res, &l);
	ck_assert_str_eq(kv_name[0], "RSS_SIZE_END");
	ck_assert_str_eq(kv_name[2], "REMOTE_SEND_SIZE");
	result_free(&res);
}
END_TEST

START_TEST(test_interim_formats)
{
	struct result res;
	struct result_interim iv = {.value = 19900.98, .interval = 0.946, .ending = 1795981239.5, .since_start = 0.946, .count = 18826, .ending_ns = 1795981239500000000};
	struct mem m;
	char *text;
	json_t *j;
	json_error_t je;

	build_rr(&res, 0);
	res.m = module_find("TCP_STREAM");
	res.fmt = 'm';
	select_interim(mem_open(&m), &res, &iv, 0, 'l');
	text = mem_close(&m);
	ck_assert_str_eq(text, "Interim result: 19900.98 10^6bits/s over "
			       "0.946 seconds ending at 1795981239.500\n");
	free(text);

	res.m = module_find("TCP_RR");
	res.fmt = 'x';
	iv = (struct result_interim){.value = 74060.67, .interval = 0.5, .ending = 1795981241.057, .since_start = 1.5, .count = 37030, .ending_ns = 1795981241057000000};
	select_interim(mem_open(&m), &res, &iv, 3, 'o');
	text = mem_close(&m);
	ck_assert_str_eq(text, "74060.67,Trans/s,0.500,1795981241.057\n");
	free(text);

	iv = (struct result_interim){.value = 77249.38, .interval = 0.5, .ending = 1795981242.059, .since_start = 2.0, .count = 38624, .ending_ns = 1795981242059000000};
	select_interim(mem_open(&m), &res, &iv, 0, 'k');
	text = mem_close(&m);
	ck_assert_str_eq(text, "NETPERF_INTERIM_RESULT[0]=77249.38\n"
			       "NETPERF_UNITS[0]=Trans/s\n"
			       "NETPERF_INTERVAL[0]=0.500\n"
			       "NETPERF_ENDING[0]=1795981242.059\n");
	free(text);

	/* a small value is padded to netperf's %7.2f */
	iv.value = 5.5;
	select_interim(mem_open(&m), &res, &iv, 0, 'o');
	text = mem_close(&m);
	ck_assert_str_eq(text, "   5.50,Trans/s,0.500,1795981242.059\n");
	free(text);

	/* --json-stream: one compact line; n is iv's index in the result */
	json_doc_interim(mem_open(&m), &res, &res.interim[1]);
	text = mem_close(&m);
	ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1);
	j = json_loads(text, 0, &je);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(json_string_value(json_object_get(j, "type")),
			 "interim");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "n")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(j, "units")),
			 "Trans/s");
	ck_assert(fabs(json_number_value(json_object_get(j, "value")) -
		       73000.25) < 1e-9);
	ck_assert(fabs(json_number_value(json_object_get(j, "interval")) -
		       1.001) < 1e-9);
	ck_assert(fabs(json_number_value(json_object_get(j, "ending")) -
		       1795981241.251) < 1e-6);
	ck_assert(fabs(json_number_value(json_object_get(j, "since_start")) -
		       2.001) < 1e-9);
	json_decref(j);
	free(text);
	json_doc_interim(mem_open(&m), &res, &iv);
	text = mem_close(&m);
	j = json_loads(text, 0, &je);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "n")), 2);
	json_decref(j);
	free(text);
	result_free(&res);
}
END_TEST

/* --interim-tcp's lines under an interim line: netperf's, then netserver's in
 * the same form; a side without figures prints none. The JSON line
 * carries both, null where a side has none. */
START_TEST(test_interim_tcp_sides)
{
	struct result res;
	struct result_interim iv = {.value = 1.0, .interval = 0.5};
	struct mem m;
	char *text;
	json_t *j;
	int i;

	build_rr(&res, 0);
	tcpinfo_clear(&iv.tcpi);
	tcpinfo_clear(&iv.rtcpi);
	iv.tcpi.n = iv.rtcpi.n = 1;
	for (i = 0; i < TCPINFO_NFIELDS; i++) {
		iv.tcpi.v[i] = 1000;
		iv.rtcpi.v[i] = 2000;
	}
	iv.rtcpi.v[TCPINFO_MIN_RTT] = -1;
	select_interim_tcp(mem_open(&m), &iv);
	text = mem_close(&m);
	ck_assert_str_eq(
	    text,
	    "Interim TCP: retrans 1000 (1000 bytes) cwnd 1000 srtt 1.000 ms "
	    "rttvar 1.000 ms min_rtt 1.000 ms delivery 0.008 Mbit/s pacing "
	    "0.008 Mbit/s reordering 1000 busy 1.000 ms rwnd_limited 1.000 ms "
	    "sndbuf_limited 1.000 ms\n"
	    "Interim remote TCP: retrans 2000 (2000 bytes) cwnd 2000 srtt "
	    "2.000 ms rttvar 2.000 ms min_rtt - ms delivery 0.016 Mbit/s "
	    "pacing 0.016 Mbit/s reordering 2000 busy 2.000 ms rwnd_limited "
	    "2.000 ms sndbuf_limited 2.000 ms\n");
	free(text);
	json_doc_interim(mem_open(&m), &res, &iv);
	text = mem_close(&m);
	j = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(
			     json_object_get(j, "remote_tcp_info"), "cwnd")),
			 2000);
	ck_assert(json_is_null(json_object_get(
	    json_object_get(j, "remote_tcp_info"), "min_rtt_us")));
	json_decref(j);
	free(text);

	/* netserver's report did not come: its line and object are not. */
	tcpinfo_clear(&iv.rtcpi);
	select_interim_tcp(mem_open(&m), &iv);
	text = mem_close(&m);
	ck_assert_ptr_null(strstr(text, "remote"));
	ck_assert_ptr_nonnull(strstr(text, "Interim TCP: retrans 1000 "));
	free(text);
	json_doc_interim(mem_open(&m), &res, &iv);
	text = mem_close(&m);
	j = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert(json_is_null(json_object_get(j, "remote_tcp_info")));
	ck_assert(json_is_object(json_object_get(j, "local_tcp_info")));
	json_decref(j);
	free(text);
	result_free(&res);
}
END_TEST

/* doc/output.md's count of the selectors is the table's: the names the
 * '?' list prints, and of them the TCP_INFO ones. */
START_TEST(test_selector_count_documented)
{
	char path[1100], line[512], *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len), *doc;
	int names = 0, tcp = 0, said_all = -1, said_tcp = -1;

	ck_assert_ptr_nonnull(f);
	select_list_names(f);
	fclose(f);
	for (char *p = strtok(list, "\n"); p != NULL; p = strtok(NULL, "\n")) {
		names++;
		if (strncmp(p, "LOCAL_TCP_", 10) == 0 ||
		    strncmp(p, "REMOTE_TCP_", 11) == 0)
			tcp++;
	}
	free(list);
	snprintf(path, sizeof(path), "%s/doc/output.md", NP_SOURCE_DIR);
	doc = fopen(path, "r");
	ck_assert_msg(doc != NULL, "%s", path);
	while (fgets(line, sizeof(line), doc) != NULL) {
		const char *p = strstr(line, " selectors in all");

		if (p != NULL && said_all < 0)
			ck_assert_int_eq(sscanf(line, "%d", &said_all), 1);
		p = strstr(line, " of them the TCP_INFO");
		if (p != NULL) {
			while (p > line && p[-1] != ' ')
				p--;
			ck_assert_int_eq(sscanf(p, "%d", &said_tcp), 1);
		}
	}
	fclose(doc);
	ck_assert_msg(said_all == names,
		      "output.md says %d selectors, the "
		      "table has %d",
		      said_all, names);
	ck_assert_msg(said_tcp == tcp,
		      "output.md says %d TCP_INFO "
		      "selectors, the table has %d",
		      said_tcp, tcp);
}
END_TEST

static Suite *
output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_lists);
	tcase_add_test(tc, test_parse_too_many);
	tcase_add_test(tc, test_all_and_names);
	tcase_add_test(tc, test_selector_file);
	tcase_add_test(tc, test_default_lists);
	suite_add_tcase(s, tc);

	tc = tcase_create("formats");
	tcase_add_test(tc, test_netperf_examples);
	tcase_add_test(tc, test_interim_formats);
	tcase_add_test(tc, test_interim_tcp_sides);
	tcase_add_test(tc, test_json_document);
	suite_add_tcase(s, tc);

	tc = tcase_create("agree");
	/* Every selector of several results, rendered and cross-checked:
	 * a few seconds under ASan on a loaded machine, past Check's 4. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_all_agree_with_json);
	tcase_add_test(tc, test_mix_lists_agree_with_json);
	tcase_add_test(tc, test_unmeasured_cpu);
	tcase_add_test(tc, test_stream_and_udp_agree);
	tcase_add_test(tc, test_selector_count_documented);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(output_suite());
}
