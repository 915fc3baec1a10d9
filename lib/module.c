#include "np/module.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* netperf 2.7's layouts, quirks and all (report.c prints them). */
static const struct module_layout layout_stream = {
    .table = MODULE_TABLE_STREAM,
    .single = MODULE_SINGLE_BRANDED,
    .verbose = MODULE_V2_BLOCKS,
    .title_methods = 1,
    .cpu_gap = "",
    .hist_title = "Histogram of time spent in send() call.",
};
static const struct module_layout layout_maerts = {
    .table = MODULE_TABLE_STREAM,
    .single = MODULE_SINGLE_BRANDED,
    .verbose = MODULE_V2_BLOCKS,
    .title_methods = 1,
    .cpu_gap = "",
    .hist_title = "Histogram of time spent in recv() call.",
};
/* 2.7's UDP_STREAM histogram title has no full stop. */
static const struct module_layout layout_datagrams = {
    .table = MODULE_TABLE_DATAGRAMS,
    .single = MODULE_SINGLE_LOCAL,
    .verbose = MODULE_V2_BLOCKS,
    .title_methods = 1,
    .cpu_gap = "",
    .hist_title = "Histogram of time spent in send() call",
};
static const struct module_layout layout_rr = {
    .table = MODULE_TABLE_RR,
    .single = MODULE_SINGLE_BRANDED,
    .verbose = MODULE_V2_BLOCKS,
    .burst_banner = 1,
    .title_methods = 1,
    .cpu_gap = "",
    .hist_title = "Histogram of request/response times",
};
/* UDP_RR's -c -C line has one more space after the rate, and its
 * histogram title 2.7's typo. */
static const struct module_layout layout_udp_rr = {
    .table = MODULE_TABLE_RR,
    .single = MODULE_SINGLE_BRANDED,
    .verbose = MODULE_V2_HISTOGRAM,
    .burst_banner = 1,
    .title_methods = 1,
    .cpu_gap = " ",
    .hist_title = "Histogram of request/reponse times.",
};
/* TCP_CRR: no burst, no method letters, no brand, the alignments alone,
 * and UDP_RR's wider -c -C line. */
static const struct module_layout layout_crr = {
    .table = MODULE_TABLE_RR,
    .single = MODULE_SINGLE_BARE,
    .verbose = MODULE_V2_ALIGNMENT,
    .cpu_gap = " ",
    .hist_title = "Histogram of request/response times",
};

/* 2.7's classic tests (nettest_bsd.c), which it never migrated to omni.
 * TCP_SENDFILE prints TCP_STREAM's table; TCP_CC TCP_CRR's. */
static const struct module_layout layout_sendfile = {
    .table = MODULE_TABLE_STREAM,
    .single = MODULE_SINGLE_BRANDED,
    .verbose = MODULE_V2_BLOCKS,
    .title_methods = 1,
    .cpu_gap = "",
    .hist_title = "Histogram of time spent in send() call.",
    .classic = 1,
};
static const struct module_layout layout_cc = {
    .table = MODULE_TABLE_RR,
    .single = MODULE_SINGLE_BARE,
    .verbose = MODULE_V2_ALIGNMENT,
    .cpu_gap = " ",
    .hist_title = "Histogram of request/response times",
    .classic = 1,
};
static const struct module_layout layout_mss = {
    .table = MODULE_TABLE_MSS,
    .single = MODULE_SINGLE_BRANDED,
    .verbose = MODULE_V2_BLOCKS,
    .cpu_gap = "",
    .hist_title = "",
    .classic = 1,
};

#define TCP .socktype = SOCK_STREAM, .protocol = IPPROTO_TCP
#define UDP .socktype = SOCK_DGRAM, .protocol = IPPROTO_UDP

/* The tests, a row each; a field left out is 0 (no flags, no -m bounds,
 * no -r limit, no -N service). */
const struct test_module module_table[] = {
    {.name = "TCP_STREAM",
     .title = "TCP STREAM TEST",
     TCP,
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .flags = MODULE_F_BIDIR | MODULE_F_TCP_BULK | MODULE_F_IO_URING,
     .nc_port = 9,
     .layout = &layout_stream,
     .client = stream_send,
     .server = stream_recv},
    {.name = "TCP_MAERTS",
     .title = "TCP MAERTS TEST",
     TCP,
     .flow = MODULE_TO_CLIENT,
     .unit = MODULE_BYTES,
     .flags = MODULE_F_TCP_BULK | MODULE_F_IO_URING,
     .nc_port = 19,
     .layout = &layout_maerts,
     .client = stream_recv,
     .server = stream_send},
    {.name = "TCP_RR",
     .title = "TCP REQUEST/RESPONSE TEST",
     TCP,
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .flags = MODULE_F_BUSY_POLL | MODULE_F_ONE_WAY | MODULE_F_OPEN |
	      MODULE_F_TSTAMP | MODULE_F_MIX | MODULE_F_IO_URING,
     .nc_port = 7,
     .layout = &layout_rr,
     .client = rr_client,
     .server = rr_server},
    {.name = "TCP_CRR",
     .title = "TCP Connect/Request/Response TEST",
     TCP,
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .flags = MODULE_F_PER_TRANS | MODULE_F_OPEN,
     .nc_refusal =
	 "needs netserver to close each connection; an echo service does not",
     .layout = &layout_crr,
     .client = crr_client,
     .server = crr_server},
    {.name = "UDP_STREAM",
     .title = "UDP STREAM TEST",
     UDP,
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .flags = MODULE_F_SEQ | MODULE_F_BIDIR | MODULE_F_RATE |
	      MODULE_F_UDP_FAST | MODULE_F_DONTROUTE,
     .send_min = MODULE_UDP_HDR,
     .send_max = MODULE_UDP_MAX,
     .nc_port = 9,
     .layout = &layout_datagrams,
     .client = udp_stream_send,
     .server = udp_stream_recv},
    {.name = "UDP_RR",
     .title = "UDP REQUEST/RESPONSE TEST",
     UDP,
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .flags = MODULE_F_RETRY | MODULE_F_BUSY_POLL | MODULE_F_ONE_WAY |
	      MODULE_F_OPEN | MODULE_F_TSTAMP | MODULE_F_MIX |
		  MODULE_F_IO_URING,
     .rr_max = MODULE_UDP_MAX,
     .nc_port = 7,
     .layout = &layout_udp_rr,
     .client = udp_rr_client,
     .server = udp_rr_server},
    {.name = "UDP_CRR",
     .title = "UDP Connect/Request/Response TEST",
     UDP,
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .flags = MODULE_F_PER_TRANS | MODULE_F_RETRY | MODULE_F_OPEN,
     .rr_max = MODULE_UDP_MAX,
     .nc_refusal = "needs netserver to answer each new socket's token; an "
		   "echo service does not",
     .layout = &layout_rr,
     .client = udp_crr_client,
     .server = udp_crr_server},
    {.name = "TCP_CC",
     .title = "TCP Connect/Close TEST",
     TCP,
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .flags = MODULE_F_PER_TRANS | MODULE_F_NO_DATA,
     .nc_refusal =
	 "needs netserver to close each connection; a standard service does "
	 "not",
     .layout = &layout_cc,
     .client = cc_client,
     .server = cc_server},
    {.name = "TCP_MSS",
     .title = "TCP MSS TEST",
     TCP,
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .nc_port = 9,
     .layout = &layout_mss,
     .client = mss_client,
     .server = stream_recv},
    {.name = "TCP_SENDFILE",
     .title = "TCP SENDFILE TEST",
     TCP,
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .flags = MODULE_F_SENDFILE,
     .nc_port = 9,
     .layout = &layout_sendfile,
     .client = stream_send,
     .server = stream_recv},
    {.name = "SCTP_STREAM",
     .title = "SCTP STREAM TEST",
     TCP,
     .transport = "sctp",
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .nc_refusal = "runs over SCTP, which no -N service speaks",
     .layout = &layout_stream,
     .client = stream_send,
     .server = stream_recv},
    {.name = "SCTP_RR",
     .title = "SCTP REQUEST/RESPONSE TEST",
     TCP,
     .transport = "sctp",
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .nc_refusal = "runs over SCTP, which no -N service speaks",
     .layout = &layout_rr,
     .client = rr_client,
     .server = rr_server},
    {.name = "VSOCK_STREAM",
     .title = "VSOCK STREAM TEST",
     TCP,
     .transport = "vsock",
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .nc_refusal = "runs over VSOCK, which no -N service speaks",
     .layout = &layout_stream,
     .client = stream_send,
     .server = stream_recv},
    {.name = "VSOCK_RR",
     .title = "VSOCK REQUEST/RESPONSE TEST",
     TCP,
     .transport = "vsock",
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .nc_refusal = "runs over VSOCK, which no -N service speaks",
     .layout = &layout_rr,
     .client = rr_client,
     .server = rr_server},
    {.name = "STREAM_STREAM",
     .title = "STREAM STREAM TEST",
     TCP,
     .transport = "unix",
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .nc_refusal = "runs over a Unix domain socket, which no -N service "
		   "speaks",
     .layout = &layout_stream,
     .client = stream_send,
     .server = stream_recv},
    {.name = "STREAM_RR",
     .title = "STREAM REQUEST/RESPONSE TEST",
     TCP,
     .transport = "unix",
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .nc_refusal = "runs over a Unix domain socket, which no -N service "
		   "speaks",
     .layout = &layout_rr,
     .client = rr_client,
     .server = rr_server},
    {.name = "DG_STREAM",
     .title = "DG UNIDIRECTIONAL SEND TEST",
     UDP,
     .transport = "unix_dgram",
     .flow = MODULE_TO_SERVER,
     .unit = MODULE_BYTES,
     .flags = MODULE_F_SEQ | MODULE_F_UDP_FAST,
     .send_min = MODULE_UDP_HDR,
     .send_max = MODULE_UDP_MAX,
     .nc_refusal = "runs over a Unix domain socket, which no -N service "
		   "speaks",
     .layout = &layout_datagrams,
     .client = udp_stream_send,
     .server = udp_stream_recv},
    {.name = "DG_RR",
     .title = "DG REQUEST/RESPONSE TEST",
     UDP,
     .transport = "unix_dgram",
     .flow = MODULE_BOTH,
     .unit = MODULE_TRANS,
     .rr_max = MODULE_UDP_MAX,
     .nc_refusal = "runs over a Unix domain socket, which no -N service "
		   "speaks",
     .layout = &layout_udp_rr,
     .client = udp_rr_client,
     .server = udp_rr_server},
    {.name = NULL},
};

#undef TCP
#undef UDP

void
module_names_with(unsigned f, char *out, size_t cap)
{
	const struct test_module *m;
	int n = 0, k = 0, len = 0;

	for (m = module_table; m->name != NULL; m++)
		n += module_has(m, f);
	out[0] = '\0';
	for (m = module_table; m->name != NULL && len >= 0 &&
			       (size_t)len < cap;
	     m++) {
		if (!module_has(m, f))
			continue;
		k++;
		len += snprintf(out + len, cap - (size_t)len, "%s%s",
				k == 1	 ? ""
				: k == n ? " and "
					 : ", ",
				m->name);
	}
}

const struct test_module *
module_find(const char *name)
{
	const struct test_module *m;

	for (m = module_table; m->name != NULL; m++)
		if (strcasecmp(m->name, name) == 0)
			return m;
	return NULL;
}

const char *
module_omni_test(int udp, int to_server, int to_client, int per_trans)
{
	if (to_server && to_client)
		return !per_trans ? (udp ? "UDP_RR" : "TCP_RR")
				  : (udp ? NULL : "TCP_CRR");
	if (per_trans)
		/* 2.7's TCP_CC: an omni test of direction 0. */
		return !udp && !to_server && !to_client ? "TCP_CC" : NULL;
	if (to_server)
		return udp ? "UDP_STREAM" : "TCP_STREAM";
	return to_client && !udp ? "TCP_MAERTS" : NULL;
}
