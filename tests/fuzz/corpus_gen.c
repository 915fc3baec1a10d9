/*
 * Writes fuzz_proto's seed corpus into a directory: messages as the
 * programs send them (packed by lib/proto itself, so the seeds follow the
 * protocol as it changes) and a few malformed inputs. Inputs starting
 * with a zero byte are framed streams; the rest are bare JSON payloads
 * (see fuzz_proto.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np/err.h"
#include "np/proto.h"
#include "np/stats.h"

static const char *dir;

static void
put(const char *name, const void *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* Frames msg (and frees it); returns the frame's length in buf. */
static size_t
frame(json_t *msg, char *buf, size_t cap)
{
	char err[ERR_LEN];
	ssize_t n;

	n = proto_encode(msg, buf, cap, err);
	json_decref(msg);
	if (n < 0) {
		fprintf(stderr, "fuzz_corpus_gen: %s\n", err);
		exit(1);
	}
	return (size_t)n;
}

static void
put_framed(const char *name, json_t *msg)
{
	static char buf[PROTO_MAX_MSG + PROTO_HDR_LEN];

	put(name, buf, frame(msg, buf, sizeof(buf)));
}

static void
put_text(const char *name, const char *text)
{
	put(name, text, strlen(text));
}

static json_t *
tcp_rr_request(void)
{
	struct test_params p;

	memset(&p, 0, sizeof(p));
	snprintf(p.test, sizeof(p.test), "TCP_RR");
	p.duration = 10;
	p.req_size = 1;
	p.rsp_size = 1;
	p.lsndbuf = p.lrcvbuf = p.rsndbuf = p.rrcvbuf = -1;
	p.nodelay = 1;
	p.remote_cpu = 1;
	p.streams = 1;
	return proto_request_pack(&p);
}

static json_t *
result_with_cpu(void)
{
	struct cpu_load per[2];
	struct side_result r;

	memset(&r, 0, sizeof(r));
	memset(per, 0, sizeof(per));
	r.elapsed = 10.001;
	r.bytes_sent = r.bytes_recv = 123456;
	r.send_calls = r.recv_calls = r.trans = 123456;
	r.sndbuf = r.rcvbuf = 131072;
	r.sndbuf_end = r.rcvbuf_end = 131072;
	r.send_size = r.recv_size = 1;
	r.mss = 65483;
	r.cpu_id = 1;
	r.cpu_measured = 1;
	r.cpu.all = (struct cpu_load){
	    .util = 12.5, .user = 2.5, .system = 10, .idle = 87.5};
	per[0] = r.cpu.all;
	per[1] = (struct cpu_load){.util = -1};
	r.cpu.ncpu = 1;
	r.cpu.nslots = 2;
	r.cpu.per = per;
	r.cpu.peak = 12.5;
	r.cpu.peak_id = 0;
	return proto_result_pack(&r);
}

/* A TCP side's results with its TCP_INFO, one figure unknown. */
static json_t *
result_with_tcpinfo(void)
{
	struct side_result r;
	int i;

	memset(&r, 0, sizeof(r));
	r.elapsed = 10.0;
	r.bytes_sent = 1000000;
	r.send_calls = 100;
	r.send_size = 10000;
	r.recv_size = 10000;
	r.sndbuf = r.rcvbuf = 16384;
	r.mss = 1448;
	r.cpu_id = 0;
	tcpinfo_clear(&r.tcpi);
	r.tcpi.n = 2;
	for (i = 0; i < TCPINFO_NFIELDS; i++)
		r.tcpi.v[i] = 1000 * (i + 1);
	r.tcpi.v[TCPINFO_BUSY] = -1;
	return proto_result_pack(&r);
}

static json_t *
hist_small(void)
{
	static struct stats_hist h;

	stats_hist_init(&h);
	stats_hist_add(&h, 17);
	stats_hist_add(&h, 18);
	stats_hist_add(&h, 25000);
	stats_hist_add(&h, 1000000);
	return proto_hist_pack(&h);
}

/* A platform record as a netserver on a PCI NIC sends it. */
static json_t *
platform_sample(void)
{
	struct platform p;

	platform_init(&p);
	snprintf(p.cpu_model, sizeof(p.cpu_model), "AMD EPYC 7B13");
	p.ncpu = 8;
	p.smt = 1;
	p.cpu_mhz = 2450;
	snprintf(p.governor, sizeof(p.governor), "performance");
	snprintf(p.release, sizeof(p.release), "6.1.0-18-amd64");
	p.numa_nodes = 1;
	snprintf(p.nic.name, sizeof(p.nic.name), "eth0");
	snprintf(p.nic.driver, sizeof(p.nic.driver), "virtio_net");
	p.nic.vendor = 0x1af4;
	p.nic.tso = 1;
	p.nic.gro = 0;
	snprintf(p.nic.irq_cpus, sizeof(p.nic.irq_cpus), "0-7");
	p.nvulns = 1;
	snprintf(p.vuln[0].name, sizeof(p.vuln[0].name), "mds");
	snprintf(p.vuln[0].state, sizeof(p.vuln[0].state), "Not affected");
	return proto_platform_pack(&p);
}

int
main(int argc, char **argv)
{
	static char buf[2 * (PROTO_MAX_MSG + PROTO_HDR_LEN)];
	static const char oversized[] = "\x00\x01\x00\x01{\"type\":\"bye\"}";
	static const char zero_len[] = "\x00\x00\x00\x00{}";
	static const char garbage[] = "\x00\x00\x00\x10\xff\xfe\x01{\"\x80\x81"
				      "\\u12\x00\x00\x00\x00\x00";
	json_t *m;
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_corpus_gen DIR\n");
		return 2;
	}
	dir = argv[1];

	put_framed("hello-client",
		   json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version",
			     PROTO_VERSION, "program", "netperf",
			     "program_version", NP_VERSION));
	put_framed("hello-server",
		   json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:i}", "type",
			     "hello", "version", PROTO_VERSION, "program",
			     "netserver", "program_version", NP_VERSION,
			     "hostname", "host1", "kernel", "6.1.0-18-amd64",
			     "cpu_model", "Intel(R) Xeon(R)", "ncpu", 8));
	put_framed("request-tcp-rr", tcp_rr_request());
	put_framed("ready",
		   json_pack("{s:s, s:i, s:[i], s:i, s:i, s:I, s:I}", "type",
			     "ready", "data_port", 40001, "data_ports", 40001,
			     "sndbuf", 16384, "rcvbuf", 131072, "send_size",
			     (json_int_t)1, "recv_size", (json_int_t)1));
	put_framed("results-cpu", result_with_cpu());
	put_framed("results-tcpinfo", result_with_tcpinfo());
	m = result_with_cpu();
	json_object_del(m, "cpu");
	json_object_set_new(m, "hist", hist_small());
	put_framed("results-hist", m);
	m = result_with_cpu();
	json_object_set_new(m, "platform", platform_sample());
	put_framed("results-platform", m);
	put_framed("error", proto_error("unknown test \"TCP_XX\""));
	put_framed("stop", proto_new("stop"));
	put_framed("bye", proto_new("bye"));

	/* A stream of two frames, and one cut short. */
	n = frame(tcp_rr_request(), buf, sizeof(buf));
	n += frame(proto_new("bye"), buf + n, sizeof(buf) - n);
	put("stream-request-bye", buf, n);
	n = frame(tcp_rr_request(), buf, sizeof(buf));
	put("truncated-request", buf, n / 2);

	put("oversized-header", oversized, sizeof(oversized) - 1);
	put("zero-length", zero_len, sizeof(zero_len) - 1);
	put("garbage", garbage, sizeof(garbage) - 1);

	/* Bare payloads: the fuzzer frames them. */
	put_text("json-hist", "{\"type\":\"hist\",\"buckets\":[[1,2],[300,1]],"
			      "\"min\":1,\"max\":9000,\"sum\":9002,\"sumsq\":"
			      "\"00000000000000000000000004d3e4a5\"}");
	put_text(
	    "json-nested",
	    "{\"type\":\"request\",\"test\":{\"a\":[[[[[[[[[[{\"b\":"
	    "[null,true,false,-0.0,1e308,\"\\ud834\\udd1e\"]}]]]]]]]]]]}}");
	/* Two pairs for one bucket that together exceed a JSON integer: the
	 * first finding of fuzz_proto (doc/fuzzing.md). */
	put_text("json-hist-bucket-overflow",
		 "{\"type\":\"h\",\"buckets\":[[1,9223372036854775807],"
		 "[1,9223372036854775807]],\"min\":0,\"max\":0,\"sum\":0,"
		 "\"sumsq\":\"00000000000000000000000000000000\"}");
	put_text("json-duplicate", "{\"type\":\"bye\",\"type\":\"bye\"}");
	put_text("json-request-udp",
		 "{\"type\":\"request\",\"test\":\"UDP_RR\",\"duration\":1,"
		 "\"count\":0,\"send_size\":0,\"recv_size\":0,\"rsend_size\":0,"
		 "\"rrecv_size\":0,\"req_size\":65508,\"rsp_size\":1,"
		 "\"lsndbuf\":-1,\"lrcvbuf\":-1,\"rsndbuf\":-1,\"rrcvbuf\":-1,"
		 "\"nodelay\":false,\"burst\":0,\"remote_cpu\":false,"
		 "\"data_port\":0,\"rto\":0.5,\"rate\":1e9}");
	return 0;
}
