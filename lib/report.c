#include "np/report.h"

#include <string.h>

#include "np/transport.h"
#include "np/underload.h"
#include "np/tstamp.h"

void
report_banner(FILE *out, const struct result *res, const struct report_opts *o)
{
	const char *fam = sock_family_name(res->family);
	const struct transport *t = transport_of(res->m, &res->p);

	/* As 2.7's nettest_unix.c: the title alone, as there is no host,
	 * port or IP family to name. */
	if (t != NULL && t->ends != NULL && t->ends->named &&
	    o->omni_dir == NULL) {
		fprintf(out, "%s\n", res->m->title);
		return;
	}
	if (o->omni_dir != NULL)
		fprintf(out, "OMNI %s TEST", o->omni_dir);
	else
		fprintf(out, "%s%s", res->m->layout->classic ? "" : "MIGRATED ",
			res->m->title);
	/* As 2.7: the data ports asked for with "-- -P l,r", 0 for one not
	 * asked for (-N: the service's port). */
	fprintf(out, " from %s (%s) port %d %s to %s (%s) port %d %s",
		res->side[RESULT_LOCAL].name, res->side[RESULT_LOCAL].addr,
		res->p.ldata_port, fam, res->side[RESULT_REMOTE].name,
		res->side[RESULT_REMOTE].addr, res->p.data_port, fam);
	if (o->conf_level > 0)
		fprintf(out, " : +/-%.3f%% @ %2d%% conf. ", o->conf_width / 2,
			o->conf_level);
	if (res->p.nodelay)
		fputs(" : nodelay", out);
	if (res->p.splice)
		fputs(" : copy avoidance", out);
	if (res->p.no_control)
		fputs(" : no control", out);
	if (o->histogram)
		fputs(" : histogram", out);
	/* As 2.7: only the "REQUEST/RESPONSE" tests say it, not CRR, not
	 * OMNI. */
	if (res->m->layout->burst_banner && o->omni_dir == NULL)
		fprintf(out, " : first burst %d", res->p.burst);
	if (o->cpu_bind)
		fputs(" : cpu bind", out);
	fputc('\n', out);
}


/* Either side was asked to measure its CPU (-c, -C). */
static int
cpu_wanted(const struct result *res)
{
	return res->side[RESULT_LOCAL].cpu_wanted ||
	       res->side[RESULT_REMOTE].cpu_wanted;
}

/* -B's text, on the data line with -P 0 of the tests 2.7 brands (not
 * UDP_STREAM, not TCP_CRR). */
static const char *
brand(const struct result *res, const struct report_opts *o)
{
	return o->headers == 0 && o->brand != NULL &&
		       res->m->layout->single == MODULE_SINGLE_BRANDED
		   ? o->brand
		   : "";
}

/* -v 2's block under a stream table: calls, sizes per call, the MSS and
 * the histogram; MAERTS mirrors STREAM's columns, as 2.7's ksink_fmt. */
static void
stream_verbose(FILE *out, const struct result *res)
{
	const struct side_result *l = &res->side[RESULT_LOCAL].sum,
				 *r = &res->side[RESULT_REMOTE].sum;
	int maerts = res->m->flow == MODULE_TO_CLIENT;
	const struct side_result *tx = maerts ? r : l;
	const struct side_result *rx = maerts ? l : r;

	/* STREAM: bytes received, per send, sends, per receive,
	 * receives; MAERTS (2.7's ksink_fmt) mirrors it: bytes
	 * received, per receive, receives, per send, sends. */
	double per_send = tx->send_calls ? (double)tx->bytes_sent /
					       (double)tx->send_calls
					 : 0.0;
	double per_recv = rx->recv_calls ? (double)rx->bytes_recv /
					       (double)rx->recv_calls
					 : 0.0;

	if (!maerts) {
		fprintf(out,
			"\nAlignment      Offset         Bytes    Bytes  "
			"     Sends   Bytes    Recvs\n"
			"Local  Remote  Local  Remote  Xfered   Per     "
			"            Per\n"
			"Send   Recv    Send   Recv             Send "
			"(avg)          Recv (avg)\n"
			"%5d   %5d  %5d   %5d ",
			8, 8, 0, 0);
		/* 2.7's classic code prints the bytes as a double. */
		if (res->m->layout->classic)
			fprintf(out, "%6.4g", (double)rx->bytes_recv);
		else
			fprintf(out, "%6llu",
				(unsigned long long)rx->bytes_recv);
		fprintf(out, "  %6.2f    %6llu  %6.2f %6llu\n", per_send,
			(unsigned long long)tx->send_calls, per_recv,
			(unsigned long long)rx->recv_calls);
	} else
		fprintf(
		    out,
		    "\nAlignment      Offset         Bytes    Bytes  "
		    "     Recvs   Bytes    Sends\n"
		    "Local  Remote  Local  Remote  Xfered   Per     "
		    "            Per\n"
		    "Recv   Send    Recv   Send             Recv "
		    "(avg)          Send (avg)\n"
		    "%5d   %5d  %5d   %5d %6llu  %6.2f    %6llu   "
		    "%6.2f %6llu\n",
		    8, 8, 0, 0, (unsigned long long)rx->bytes_recv,
		    per_recv, (unsigned long long)rx->recv_calls,
		    per_send, (unsigned long long)tx->send_calls);
	if (res->p.bidir)
		fprintf(out, "(--bidir: the block above counts netperf->"
			     "netserver only)\n");
	fprintf(out, "\nMaximum\nSegment\nSize (bytes)\n%6d\n\n\n",
		l->mss);
	if (res->hist != NULL) {
		fprintf(out, "%s\n", res->m->layout->hist_title);
		report_histogram(out, res->hist);
	}
}

static void
stream_table(FILE *out, const struct result *res, const struct report_opts *o)
{
	const struct side_result *l = &res->side[RESULT_LOCAL].sum,
				 *r = &res->side[RESULT_REMOTE].sum;
	int maerts = res->m->flow == MODULE_TO_CLIENT;
	int cpu = res->side[RESULT_LOCAL].cpu_wanted ||
		  res->side[RESULT_REMOTE].cpu_wanted;
	/* Receiver's buffer, sender's buffer, sender's message size. */
	int rbuf = maerts ? l->rcvbuf : r->rcvbuf;
	int sbuf = maerts ? r->sndbuf : l->sndbuf;
	int msg = (int)(maerts ? r->send_size : l->send_size);

	if (o->headers && !cpu)
		fprintf(out,
			"Recv   Send    Send                          \n"
			"Socket Socket  Message  Elapsed              \n"
			"Size   Size    Size     Time     Throughput  \n"
			"bytes  bytes   bytes    secs.    %s/sec  \n\n",
			units_label(res->fmt));
	if (o->headers && cpu)
		fprintf(out,
			"Recv   Send    Send                          "
			"Utilization       Service Demand\n"
			"Socket Socket  Message  Elapsed              "
			"%s     %s     %s    %s\n"
			"Size   Size    Size     Time     Throughput  "
			"local    remote   local   remote\n"
			"bytes  bytes   bytes    secs.    %-8.8s/s  "
			"%% %c      %% %c      us/KB   us/KB\n\n",
			maerts ? "Recv" : "Send", maerts ? "Send" : "Recv",
			maerts ? "Recv" : "Send", maerts ? "Send" : "Recv",
			units_label(res->fmt), result_cpu_method(res, RESULT_LOCAL),
			result_cpu_method(res, RESULT_REMOTE));
	if (!cpu)
		fprintf(out, "%6d %6d %6d    %-6.2f   %7.2f   %s\n", rbuf, sbuf,
			msg, res->elapsed, res->thruput, brand(res, o));
	else
		fprintf(out,
			"%6d %6d %6d    %-6.2f     %7.2f   %-6.2f   %-6.2f   "
			"%-6.3f  %-6.3f %s\n",
			rbuf, sbuf, msg, res->elapsed, res->thruput,
			res->side[RESULT_LOCAL].util,
			res->side[RESULT_REMOTE].util,
			res->side[RESULT_LOCAL].sd, res->side[RESULT_REMOTE].sd,
			brand(res, o));
	if (o->verbosity >= 2)
		stream_verbose(out, res);
}

/* The request/response table's title, as 2.7 prints it for each -f and
 * whether CPU was measured. */
static void
rr_title(FILE *out, const struct result *res, int cpu, int trans)
{
	/* 2.7's TCP_CRR -c -C title has no method letters, and reads as
	 * transactions whatever -f says (its figures follow -f). */
	int methods = res->m->layout->title_methods, tr = trans || !methods;

	if (!cpu && trans)
		fprintf(out, "Local /Remote\n"
			     "Socket Size   Request  Resp.   Elapsed  Trans.\n"
			     "Send   Recv   Size     Size    Time     Rate    "
			     "     \n"
			     "bytes  Bytes  bytes    bytes   secs.    per sec "
			     "  \n\n");
	if (!cpu && !trans)
		fprintf(out,
			"Local /Remote\n"
			"Socket Size   Request  Resp.   Elapsed  \n"
			"Send   Recv   Size     Size    Time     Throughput \n"
			"bytes  Bytes  bytes    bytes   secs.    %s/sec   \n\n",
			units_label(res->fmt));
	if (cpu)
		fprintf(out,
			"Local /Remote\n"
			"Socket Size   Request Resp.  Elapsed %-8.8s CPU    "
			"CPU    S.dem   S.dem\n"
			"Send   Recv   Size    Size   Time    %-8.8s local  "
			"remote local   remote\n"
			"bytes  bytes  bytes   bytes  secs.   %-8.8s %% %c    "
			"%% %c    %s   %s\n\n",
			tr ? "Trans." : "Tput",
			tr ? "Rate" : units_label(res->fmt), "per sec",
			methods ? result_cpu_method(res, RESULT_LOCAL) : ' ',
			methods ? result_cpu_method(res, RESULT_REMOTE) : ' ',
			tr ? "us/Tr" : result_sd_units(res),
			tr ? "us/Tr" : result_sd_units(res));
}

/* -v 2's block under the table, which differs per test in 2.7: UDP_RR
 * has none but the histogram (its title's typo is 2.7's), TCP_CRR the
 * alignments alone. */
static void
rr_verbose(FILE *out, const struct result *res)
{
	if (res->m->layout->verbose == MODULE_V2_HISTOGRAM) {
		if (res->hist != NULL) {
			fprintf(out, "\n%s\n", res->m->layout->hist_title);
			report_histogram(out, res->hist);
		}
		return;
	}
	if (res->m->layout->verbose == MODULE_V2_ALIGNMENT) {
		fprintf(out,
			"\nAlignment      Offset\n"
			"Local  Remote  Local  Remote\n"
			"Send   Recv    Send   Recv\n"
			"%5d  %5d   %5d  %5d\n",
			8, res->m->layout->classic ? 0 : 8, 0, 0);
		if (res->hist != NULL) {
			fprintf(out, "\n%s\n", res->m->layout->hist_title);
			report_histogram(out, res->hist);
		}
		return;
	}
	{
		double bits = res->trans_rate * 8 / 1e6;

		fprintf(out,
			"Alignment      Offset         RoundTrip  Trans    "
			"Throughput\n"
			"Local  Remote  Local  Remote  Latency    Rate     "
			"10^6bits/s\n"
			"Send   Recv    Send   Recv    usec/Tran  per sec  "
			"Outbound   Inbound\n"
			"%5d  %5d   %5d  %5d   %-6.3f   %-6.3f %-6.3f    "
			"%-6.3f\n",
			8, 8, 0, 0,
			result_rt_latency(res) > 0 ? result_rt_latency(res)
						   : 0.0,
			res->trans_rate, bits * (double)res->p.req_size,
			bits * (double)res->p.rsp_size);
		if (res->hist != NULL) {
			fprintf(out, "\n%s\n", res->m->layout->hist_title);
			report_histogram(out, res->hist);
		}
	}
}

static void
rr_table(FILE *out, const struct result *res, const struct report_opts *o)
{
	const struct side_result *l = &res->side[RESULT_LOCAL].sum,
				 *r = &res->side[RESULT_REMOTE].sum;
	int cpu = cpu_wanted(res);

	if (o->headers)
		rr_title(out, res, cpu, res->fmt == 'x');
	if (!cpu)
		fprintf(out, "%-6d %-6d %-6lld   %-6lld  %-6.2f   %7.2f   %s\n",
			l->sndbuf, l->rcvbuf, (long long)res->p.req_size,
			(long long)res->p.rsp_size, res->elapsed, res->thruput,
			brand(res, o));
	else
		fprintf(out,
			"%-6d %-6d %-6lld  %-6lld %-6.2f  %-6.2f %s %-6.2f "
			"%-6.2f %-6.3f  %-6.3f%s%s\n",
			l->sndbuf, l->rcvbuf, (long long)res->p.req_size,
			(long long)res->p.rsp_size, res->elapsed, res->thruput,
			/* netperf's UDP_RR and TCP_CRR lines have 3 spaces
			 * after the rate, TCP_RR's 2 */
			res->m->layout->cpu_gap, res->side[RESULT_LOCAL].util,
			res->side[RESULT_REMOTE].util,
			res->side[RESULT_LOCAL].sd, res->side[RESULT_REMOTE].sd,
			/* and TCP_CRR's ends at the last figure */
			res->m->layout->single == MODULE_SINGLE_BRANDED ? " "
									: "",
			brand(res, o));
	fprintf(out, "%-6d %-6d\n", r->sndbuf, r->rcvbuf);
	if (module_has(res->m, MODULE_F_RETRY) && o->headers &&
	    o->verbosity >= 2)
		fprintf(out,
			"\nLost transactions: %llu of %llu (%.2f %%), late "
			"answers: %llu, time-out: %s\n",
			(unsigned long long)res->lost,
			(unsigned long long)(res->lost + l->trans),
			res->loss_pct, (unsigned long long)l->late,
			res->p.rto > 0 ? "fixed (-e)" : "adaptive");
	if (o->verbosity >= 2) {
		rr_verbose(out, res);
		oneway_report(out, res);
	}
	if (o->verbosity >= 2 && res->tstamp != NULL)
		tstamp_print(out, res->tstamp);
}

static void
udp_stream_table(FILE *out, const struct result *res,
		 const struct report_opts *o)
{
	const struct side_result *l = &res->side[RESULT_LOCAL].sum,
				 *r = &res->side[RESULT_REMOTE].sum;
	int cpu = cpu_wanted(res);
	/* --bidir: both lines sum both directions, as the throughput
	 * does: both hosts' sends, and both hosts' receives. */
	unsigned long long sent = l->send_calls, errs = l->send_errors,
			   got = r->recv_calls;

	if (res->p.bidir) {
		sent += r->send_calls;
		errs += r->send_errors;
		got += l->recv_calls;
	}
	if (o->headers && !cpu)
		fprintf(
		    out,
		    "Socket  Message  Elapsed      Messages                \n"
		    "Size    Size     Time         Okay Errors   Throughput\n"
		    "bytes   bytes    secs            #      #   %s/sec\n\n",
		    units_label(res->fmt));
	if (o->headers && cpu)
		fprintf(out,
			"Socket  Message  Elapsed      Messages                "
			"   CPU      Service\n"
			"Size    Size     Time         Okay Errors   Throughput"
			"   Util     Demand\n"
			"bytes   bytes    secs            #      #   %-8.8s/sec"
			" %% %c%c     us/KB\n\n",
			units_label(res->fmt), result_cpu_method(res, RESULT_LOCAL),
			result_cpu_method(res, RESULT_REMOTE));
	if (!cpu) {
		fprintf(out, "%6d  %6lld   %-7.2f   %7llu %6llu    %7.2f\n",
			l->sndbuf, (long long)l->send_size, l->elapsed, sent,
			errs, res->send_thruput);
		fprintf(out, "%6d           %-7.2f   %7llu           %7.2f\n\n",
			r->rcvbuf, r->elapsed, got, res->thruput);
	} else {
		fprintf(out,
			"%6d  %6lld   %-7.2f   %7llu %6llu    %7.1f     "
			"%-6.2f   %-6.3f\n",
			l->sndbuf, (long long)l->send_size, l->elapsed, sent,
			errs, res->send_thruput, res->side[RESULT_LOCAL].util,
			res->side[RESULT_LOCAL].sd);
		fprintf(out,
			"%6d           %-7.2f   %7llu           %7.1f     "
			"%-6.2f   %-6.3f\n\n",
			r->rcvbuf, r->elapsed, got, res->thruput,
			res->side[RESULT_REMOTE].util,
			res->side[RESULT_REMOTE].sd);
	}
	/* Not in 2.7's table: only at -v 2 (and in the selectors); with
	 * -N no one counted what arrived. */
	if (o->headers && o->verbosity >= 2 && !res->p.no_control)
		fprintf(
		    out,
		    "Lost: %llu of %llu datagrams (%.2f %%), duplicated: %llu, "
		    "out of order: %llu, jitter: %.3f ms\n",
		    (unsigned long long)res->lost,
		    /* --bidir: both directions' datagrams */
		    (unsigned long long)(res->p.bidir ? res->dir[0].sent +
							    res->dir[1].sent
						      : sent),
		    res->loss_pct, (unsigned long long)res->dups,
		    (unsigned long long)res->reordered, res->jitter * 1e3);
	if (o->verbosity >= 2 && res->hist != NULL) {
		fprintf(out, "\n%s\n", res->m->layout->hist_title);
		report_histogram(out, res->hist);
	}
}

/* --streams: each stream's own figure, and how evenly they shared. */
static void
streams_table(FILE *out, const struct result *res)
{
	const char *units = module_is_rr(res->m) && res->fmt == 'x'
				? "Trans"
				: units_label(res->fmt);
	double sum = 0;
	int i;

	/* Flows on threads: thousands of rows say less than their spread. */
	if (module_flows(&res->p)) {
		fprintf(out,
			"\nFlows   Threads  Set-up  Min         Median      "
			"Max         Jain's\n"
			"                 secs    %s/s\n"
			"%-6d  %-7d  %6.3f  %10.2f  %10.2f  %10.2f  %.4f\n",
			units, res->nstreams, res->p.threads, res->setup_sec,
			res->flow_min, res->flow_median, res->flow_max,
			res->fairness);
		return;
	}
	fprintf(out,
		"\nStream  Throughput    Local CPU  Remote CPU\n"
		"        %s/s\n",
		units);
	for (i = 0; i < res->nstreams; i++) {
		double x = result_stream_thruput(res, i);

		fprintf(out, "%-6d  %10.2f    %-9d  %-9d\n", i, x,
			res->side[RESULT_LOCAL].stream[i].cpu_id,
			res->side[RESULT_REMOTE].stream[i].cpu_id);
		sum += x;
	}
	/* The rows' own sum: the headline, but for -i's runs, whose
	 * headline is their mean and whose rows are the last run's. */
	fprintf(out, "Sum     %10.2f    Jain's fairness index %.4f\n", sum,
		res->fairness);
}

static void
place_line(FILE *out, const char *side, const struct result_place *pl,
	   const struct side_result *s)
{
	double util = -1;

	if (s->cpu_measured && pl->cpu_actual >= 0 &&
	    pl->cpu_actual < s->cpu.nslots)
		util = s->cpu.per[pl->cpu_actual].util;
	fprintf(out, "%-6s  %-12s  %-10s  cpu%-4d  %4d  %-9s  ", side,
		pl->requested[0] ? pl->requested : "-",
		pl->cpus[0] ? pl->cpus : "any", pl->cpu_actual, pl->numa,
		pl->nic_local == 1   ? "yes"
		: pl->nic_local == 0 ? "no"
				     : "unknown");
	if (util >= 0)
		fprintf(out, "%6.2f", util);
	else
		fprintf(out, "%6s", "-");
	fprintf(out, "%s%s\n", pl->note[0] ? "  " : "", pl->note);
}

/* -v 2: where each side ran, and how busy that CPU was; a one-core test
 * on a many-core host hides in the machine-wide figure. */
static void
placement(FILE *out, const struct result *res)
{
	int i;

	fprintf(out, "\nSide    Requested     Bound to    Ran on   NUMA  "
		     "NIC local  CPU %%\n");
	for (i = 0; i < RESULT_NSIDES; i++)
		place_line(out, result_side_name(i), &res->side[i].place,
			   &res->side[i].sum);
	if (res->lat.count > 0)
		fprintf(out,
			"\nLatency (us): min %.2f  mean %.2f  stddev %.2f  "
			"p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  p99.99 "
			"%.2f  max %.2f  (%llu samples)\n",
			res->lat.min, res->lat.mean, res->lat.stddev,
			res->lat.p50, res->lat.p90, res->lat.p99, res->lat.p999,
			res->lat.p9999, res->lat.max,
			(unsigned long long)res->lat.count);
}

/* One TCP_INFO figure scaled into a column, "-" when unknown. */
static void
tcp_cell(FILE *out, const struct tcpinfo *t, int f, double div, int width,
	 int prec)
{
	if (t->n <= 0 || t->v[f] < 0)
		fprintf(out, " %*s", width, "-");
	else
		fprintf(out, " %*.*f", width, prec, (double)t->v[f] / div);
}

static void
tcp_side(FILE *out, const char *side, const struct tcpinfo *t)
{
	fprintf(out, "%-6s %5d", side, t->n);
	tcp_cell(out, t, TCPINFO_RETRANS, 1, 8, 0);
	tcp_cell(out, t, TCPINFO_BYTES_RETRANS, 1, 10, 0);
	tcp_cell(out, t, TCPINFO_CWND, 1, 6, 0);
	tcp_cell(out, t, TCPINFO_RTT, 1e3, 8, 3);
	tcp_cell(out, t, TCPINFO_RTTVAR, 1e3, 7, 3);
	tcp_cell(out, t, TCPINFO_MIN_RTT, 1e3, 8, 3);
	tcp_cell(out, t, TCPINFO_PMTU, 1, 5, 0);
	tcp_cell(out, t, TCPINFO_DELIVERY_RATE, 1e6 / 8, 9, 2);
	tcp_cell(out, t, TCPINFO_PACING_RATE, 1e6 / 8, 9, 2);
	tcp_cell(out, t, TCPINFO_REORDERING, 1, 5, 0);
	tcp_cell(out, t, TCPINFO_BUSY, 1e3, 9, 1);
	tcp_cell(out, t, TCPINFO_RWND_LIMITED, 1e3, 9, 1);
	tcp_cell(out, t, TCPINFO_SNDBUF_LIMITED, 1e3, 9, 1);
	fputc('\n', out);
}

/* -v 2: the kernel's view of the data connections on each end, streams
 * merged (counters and windows summed, round trips averaged, min_rtt and
 * pmtu the least, reordering the most). */
static void
tcp_table(FILE *out, const struct result *res)
{
	int i;

	if (res->side[RESULT_LOCAL].sum.tcpi.n <= 0 &&
	    res->side[RESULT_REMOTE].sum.tcpi.n <= 0)
		return;
	fprintf(out, "\nTCP_INFO Conns Retrans    Retrans   Cwnd     sRTT  "
		     "RTTvar  Min RTT  PMTU  Delivery    Pacing Reord      "
		     "Busy  Rwnd lim Sndbuf lim\n"
		     "                 segs      bytes   segs       ms      "
		     "ms       ms bytes    Mbit/s    Mbit/s  segs        ms "
		     "       ms        ms\n");
	for (i = 0; i < RESULT_NSIDES; i++)
		tcp_side(out, result_side_name(i), &res->side[i].sum.tcpi);
}

static void
wire_side(FILE *out, const char *side, const struct wire_report *w, double secs)
{
	const struct wire_dir *o = &w->c.out, *i = &w->c.in;

	if (!w->captured) {
		fprintf(out, "%-6s  %-8s  no capture: %s\n", side,
			w->ifname[0] ? w->ifname : "-", w->warning);
	} else {
		fprintf(out,
			"%-6s  %-8s  %10llu %10llu  %12llu %12llu  %10.0f "
			"%10.0f  %7.1f %7.1f  %7llu %7llu\n",
			side, w->ifname, (unsigned long long)o->packets,
			(unsigned long long)i->packets,
			(unsigned long long)o->bytes,
			(unsigned long long)i->bytes,
			secs > 0 ? (double)o->packets / secs : 0,
			secs > 0 ? (double)i->packets / secs : 0,
			o->packets ? (double)o->bytes / (double)o->packets : 0,
			i->packets ? (double)i->bytes / (double)i->packets : 0,
			(unsigned long long)o->retrans,
			(unsigned long long)i->retrans);
		if (w->shared)
			fprintf(out,
				"        counted once for both ends: netperf's "
				"counter on %s, out and in swapped\n",
				w->ifname);
		if (w->c.dropped)
			fprintf(out,
				"        warning: the capture dropped %llu "
				"packets; the counts are low\n",
				(unsigned long long)w->c.dropped);
		if (w->mtu > 0 && (o->max_len > (uint32_t)w->mtu + 18 ||
				   i->max_len > (uint32_t)w->mtu + 18))
			fprintf(
			    out,
			    "        note: packets of up to %u bytes exceed "
			    "the MTU of %d: segmentation offload (%s) "
			    "merges them, so the NIC sends more, smaller "
			    "packets than counted here\n",
			    o->max_len > i->max_len ? o->max_len : i->max_len,
			    w->mtu, w->offloads[0] ? w->offloads : "on");
	}
	if (w->have_ifstat)
		fprintf(out,
			"        %s counters: tx %llu packets (%.0f/s) %llu "
			"bytes, rx %llu packets (%.0f/s) %llu bytes, drops "
			"%llu/%llu, errors %llu/%llu (tx/rx)\n",
			w->ifname, (unsigned long long)w->ifstat.tx_packets,
			secs > 0 ? (double)w->ifstat.tx_packets / secs : 0,
			(unsigned long long)w->ifstat.tx_bytes,
			(unsigned long long)w->ifstat.rx_packets,
			secs > 0 ? (double)w->ifstat.rx_packets / secs : 0,
			(unsigned long long)w->ifstat.rx_bytes,
			(unsigned long long)w->ifstat.tx_dropped,
			(unsigned long long)w->ifstat.rx_dropped,
			(unsigned long long)w->ifstat.tx_errors,
			(unsigned long long)w->ifstat.rx_errors);
}

/* --wire: what the capture and the interfaces saw, beside the
 * application's own counts above. */
static void
wire_table(FILE *out, const struct result *res)
{
	int i;

	fprintf(out, "\nWire    Interface    Packets    Packets         Bytes "
		     "       Bytes   Packets/s  Packets/s  Mean size      "
		     "Retransmitted\n"
		     "                          out         in           out "
		     "          in         out         in   out     in     "
		     "out     in\n");
	/* Shared counts are netperf's, over netperf's time. */
	for (i = 0; i < RESULT_NSIDES; i++)
		wire_side(out, result_side_name(i), &res->side[i].wire,
			  res->side[res->side[i].wire.shared ? RESULT_LOCAL : i]
			      .sum.elapsed);
}

/*
 * netperf's single figure of merit (-v 0): the service demand when CPU
 * was measured, the throughput otherwise, in each test's own 2.7 format:
 * TCP_CRR prints neither method letter nor brand, UDP_STREAM two
 * decimals of service demand with the local method letter and no brand.
 */
static void
single_figure(FILE *out, const struct result *res, const struct report_opts *o)
{
	/* The local figure when -c was given, else the remote one. */
	int side =
	    res->side[RESULT_LOCAL].cpu_wanted ? RESULT_LOCAL : RESULT_REMOTE;
	double sd = res->side[side].sd;
	enum module_single style = res->m->layout->single;

	if (!cpu_wanted(res)) {
		if (style != MODULE_SINGLE_BRANDED)
			fprintf(out, "%7.2f\n", res->thruput);
		else
			fprintf(out, "%7.2f %s\n", res->thruput, brand(res, o));
	} else if (style == MODULE_SINGLE_BARE) {
		fprintf(out, "%6.3f\n", sd);
	} else if (style == MODULE_SINGLE_LOCAL) {
		fprintf(out, "%6.2f %c\n", sd, result_cpu_method(res, RESULT_LOCAL));
	} else {
		fprintf(out, "%6.3f %c %s\n", sd, result_cpu_method(res, side),
			brand(res, o));
	}
}

/* The fast paths a test asked for, and what the kernel made of them; only
 * when one was asked for, so netperf's own layout stays as it was. */
static void
fast_lines(FILE *out, const struct result *res)
{
	const struct test_params *p = &res->p;
	const struct side_result *l = &res->side[RESULT_LOCAL].sum,
				 *r = &res->side[RESULT_REMOTE].sum;
	const struct side_result *tx = res->m->flow == MODULE_TO_CLIENT ? r : l;

	if (p->batch > 1 || p->udp_gso || p->udp_gro)
		fprintf(out,
			"Data path: netperf %s, %llu calls for %llu "
			"datagrams; netserver %s, %llu calls for %llu, %llu "
			"of them coalesced by GRO\n",
			l->path, (unsigned long long)l->syscalls,
			(unsigned long long)l->send_calls, r->path,
			(unsigned long long)r->syscalls,
			(unsigned long long)r->recv_calls,
			(unsigned long long)r->coalesced);
	if (p->io_uring)
		fprintf(out,
			"io_uring: netperf %s, %llu io_uring_enter calls; "
			"netserver %s, %llu\n",
			l->path, (unsigned long long)l->syscalls, r->path,
			(unsigned long long)r->syscalls);
	if (p->zerocopy)
		fprintf(out,
			"Zero-copy: %s sent with %s: %llu sends, "
			"%llu completions, %llu of them copied by the "
			"kernel after all\n",
			tx == l ? "netperf" : "netserver",
			p->io_uring ? "IORING_OP_SEND_ZC" : "MSG_ZEROCOPY",
			(unsigned long long)tx->send_calls,
			(unsigned long long)tx->zc_done,
			(unsigned long long)tx->zc_copied);
	if (p->busy_poll > 0)
		fprintf(out,
			"Busy poll: SO_BUSY_POLL %d us asked, %d us on "
			"netperf's socket, %d us on netserver's\n",
			p->busy_poll, l->busy_poll, r->busy_poll);
	if (l->subflows > 0 || r->subflows > 0)
		fprintf(out,
			"MPTCP: %d subflows on netperf's side, %d on "
			"netserver's\n",
			l->subflows, r->subflows);
}

/* --bidir: the table above sums both directions; this splits them, each
 * from its own streams, with each host's CPU over the whole test. */
static void
bidir_table(FILE *out, const struct result *res)
{
	static const char *const name[2] = {"netperf->netserver",
					     "netserver->netperf"};
	int udp = module_has(res->m, MODULE_F_SEQ), d;
	char units[32];

	snprintf(units, sizeof(units), "%s/s", units_label(res->fmt));
	fprintf(out,
		"\nBidirectional       Streams  Elapsed  Throughput%s\n"
		"                               secs.  %10s%s\n",
		udp ? "       Sent   Received       Lost  Lost %" : "", units,
		udp ? "  datagrams  datagrams  datagrams" : "");
	for (d = 0; d < 2; d++) {
		const struct result_dir *rd = &res->dir[d];

		fprintf(out, "%-18s  %7d  %7.2f  %10.2f", name[d],
			res->nstreams / 2, rd->elapsed, rd->thruput);
		if (udp)
			fprintf(out, " %10llu %10llu %10llu  %6.2f",
				(unsigned long long)rd->sent,
				(unsigned long long)rd->got,
				(unsigned long long)rd->lost, rd->loss_pct);
		fputc('\n', out);
	}
	/* As the classic tables, CPU figures only when -c or -C asked. */
	if (!cpu_wanted(res))
		return;
	fprintf(
	    out,
	    "\nHost    CPU util %%  Service demand us/KB (both directions)\n"
	    "local   %10.2f  %10.3f\n"
	    "remote  %10.2f  %10.3f\n",
	    res->side[RESULT_LOCAL].util, res->side[RESULT_LOCAL].sd,
	    res->side[RESULT_REMOTE].util, res->side[RESULT_REMOTE].sd);
}

/* TCP_MSS: 2.7's title at -v 1 and 2, and the MSS alone at every -v,
 * branded as its other tests' figures. */
static void
mss_table(FILE *out, const struct result *res, const struct report_opts *o)
{
	if (o->headers && o->verbosity > 0)
		fputs("Maximum\nSegment\nSize (bytes)\n\n", out);
	fprintf(out, "%d %s\n", res->side[RESULT_LOCAL].sum.mss, brand(res, o));
}

/* A request mix: a row a class (its weight and sizes, its requests and
 * transactions, its rate, the bytes each way, with --timeout its
 * time-outs, its late answers, its latency), then the sum, which is the
 * totals'; the seed that draws the same classes. The late answers are
 * UDP_RR's (TCP reads its late answers as time-outs), shown with
 * --timeout or when a class has any (the closed loop's own time-out). */
static void
mix_table(FILE *out, const struct result *res)
{
	const struct mix *m = &res->p.mix;
	uint64_t rq = 0, tr = 0, bs = 0, br = 0, to = 0, lt = 0;
	int i, timed = res->p.timeout > 0, late = 0;

	for (i = 0; module_has(res->m, MODULE_F_RETRY) && i < m->n; i++)
		if (timed || res->mix[i].late > 0)
			late = 1;
	fprintf(
	    out,
	    "\nRequest mix, seed %llu (--mix-seed repeats its draws)\n"
	    "Class Weight Request Resp.  Requests   Trans.     Trans.    "
	    "Bytes        Bytes        %s%sP50      P99      P99.9    Mean\n"
	    "      %%      Size    Size                         per sec   "
	    "sent         received     %s%sus       us       us       us\n",
	    (unsigned long long)m->seed, timed ? "Time-outs  " : "",
	    late ? "Late       " : "", timed ? "           " : "",
	    late ? "answers    " : "");
	for (i = 0; i < m->n; i++) {
		const struct mix_acct *a = &res->mix[i];
		const struct stats_hist *h = &res->mix_hist[i];

		fprintf(out,
			"%-5d %-6g %-7lld %-6lld %-10llu %-10llu %-9.2f "
			"%-12llu %-12llu",
			i, m->c[i].weight, (long long)m->c[i].req,
			(long long)m->c[i].rsp,
			(unsigned long long)a->requests,
			(unsigned long long)a->trans,
			res->elapsed > 0 ? (double)a->trans / res->elapsed : 0,
			(unsigned long long)a->bytes_sent,
			(unsigned long long)a->bytes_recv);
		if (timed)
			fprintf(out, " %-10llu",
				(unsigned long long)a->timeouts);
		if (late)
			fprintf(out, " %-10llu", (unsigned long long)a->late);
		if (h->count > 0)
			fprintf(out, " %-8.1f %-8.1f %-8.1f %.1f",
				stats_hist_percentile(h, 50) / 1e3,
				stats_hist_percentile(h, 99) / 1e3,
				stats_hist_percentile(h, 99.9) / 1e3,
				stats_hist_mean(h) / 1e3);
		fputc('\n', out);
		rq += a->requests;
		tr += a->trans;
		bs += a->bytes_sent;
		br += a->bytes_recv;
		to += a->timeouts;
		lt += a->late;
	}
	fprintf(
	    out, "%-5s %-6d %-7s %-6s %-10llu %-10llu %-9.2f %-12llu %-12llu",
	    "Sum", 100, "", "", (unsigned long long)rq, (unsigned long long)tr,
	    res->elapsed > 0 ? (double)tr / res->elapsed : 0,
	    (unsigned long long)bs, (unsigned long long)br);
	if (timed)
		fprintf(out, late ? " %-10llu" : " %llu",
			(unsigned long long)to);
	if (late)
		fprintf(out, " %llu", (unsigned long long)lt);
	fputc('\n', out);
}

void
report_classic(FILE *out, const struct result *res, const struct report_opts *o)
{
	if (res->m->layout->table == MODULE_TABLE_MSS) {
		mss_table(out, res, o);
		return;
	}
	if (o->verbosity == 0) {
		single_figure(out, res, o);
		return;
	}
	switch (res->m->layout->table) {
	case MODULE_TABLE_RR:
		rr_table(out, res, o);
		break;
	case MODULE_TABLE_DATAGRAMS:
		udp_stream_table(out, res, o);
		break;
	case MODULE_TABLE_STREAM:
		stream_table(out, res, o);
		break;
	case MODULE_TABLE_MSS:
		break;
	}
	if (o->headers && res->nstreams > 1)
		streams_table(out, res);
	if (o->headers && res->p.mix.n > 0 && res->mix != NULL &&
	    res->mix_hist != NULL)
		mix_table(out, res);
	if (o->headers)
		fast_lines(out, res);
	if (o->headers && res->p.bidir)
		bidir_table(out, res);
	if (o->verbosity >= 2) {
		placement(out, res);
		tcp_table(out, res);
	}
	if (res->side[RESULT_LOCAL].wire.enabled ||
	    res->side[RESULT_REMOTE].wire.enabled)
		wire_table(out, res);
	if (res->load != NULL)
		underload_print(out, res->load);
}

/* The finer view netperf's decades hide: percentiles, and the non-empty
 * buckets merged to 8 per power of two, each at most 12.5 % wide. */
static void
histogram_fine(FILE *out, const struct stats_hist *h)
{
	static const double pct[] = {1,	 5,  10, 25,   50,   75,
				     90, 95, 99, 99.9, 99.99};
	uint64_t lo, hi, cum = 0, count = 0, from = 0, to = 0;
	int i, group = -1, g;

	if (h->count == 0)
		return;
	fputs("\nPercentiles (us):", out);
	for (i = 0; i < (int)(sizeof(pct) / sizeof(pct[0])); i++)
		fprintf(out, "%s p%g %.2f",
			i % 6 == 5 ? "\n                 " : "", pct[i],
			stats_hist_percentile(h, pct[i]) / 1e3);
	fputs("\n\nFrom (us)     To (us)        Count  Cumulative %\n", out);
	for (i = 0; i <= STATS_NBUCKETS; i++) {
		/* Buckets 16 apart in a power of two share a group. */
		g = i < STATS_NBUCKETS ? i / (STATS_SUB_COUNT / 8) : -2;
		if (g != group && count > 0) {
			cum += count;
			fprintf(out, "%9.2f  %10.2f  %11llu  %11.4f\n",
				(double)from / 1e3, (double)(to + 1) / 1e3,
				(unsigned long long)count,
				100.0 * (double)cum / (double)h->count);
			count = 0;
		}
		if (i == STATS_NBUCKETS)
			break;
		if (g != group) {
			group = g;
			stats_bucket_bounds(i, &from, &hi);
		}
		if (h->bucket[i] == 0)
			continue;
		stats_bucket_bounds(i, &lo, &hi);
		to = hi;
		count += h->bucket[i];
	}
}

/* netperf's rows: a decade a row, its ten columns, then the two totals. */
static void
histogram_rows(FILE *out, const struct stats_hist *h)
{
	static const char *const rows[] = {
	    "UNIT_USEC", "TEN_USEC",	 "HUNDRED_USEC", "UNIT_MSEC",
	    "TEN_MSEC",	 "HUNDRED_MSEC", "UNIT_SEC",	 "TEN_SEC",
	};
	uint64_t cells[8][10], over = 0, lo, hi;
	double us, decade;
	int i, row, col;

	memset(cells, 0, sizeof(cells));
	for (i = 0; i < STATS_NBUCKETS; i++) {
		if (h->bucket[i] == 0)
			continue;
		stats_bucket_bounds(i, &lo, &hi);
		us = (double)lo / 1000.0;
		for (row = 0, decade = 1; row < 8 && us >= decade * 10;
		     row++, decade *= 10)
			;
		if (row == 8) {
			over += h->bucket[i];
			continue;
		}
		col = (int)(us / decade);
		cells[row][col > 9 ? 9 : col] += h->bucket[i];
	}
	for (row = 0; row < 8; row++) {
		fprintf(out, "%-14s", rows[row]);
		for (col = 0; col < 10; col++)
			fprintf(out, ": %4llu",
				(unsigned long long)cells[row][col]);
		fputc('\n', out);
	}
	fprintf(out, ">100_SECS: %llu\nHIST_TOTAL:      %llu\n",
		(unsigned long long)over, (unsigned long long)h->count);
}

void
report_histogram(FILE *out, const struct stats_hist *h)
{
	histogram_rows(out, h);
	histogram_fine(out, h);
}

/* As 2.7's send_omni_inner at its end: "send" when netperf only sends,
 * "recv" when it only receives, request/response otherwise, and the
 * connection tests' own words; 2.7's rows and nothing after them. */
void
report_omni_histogram(FILE *out, const struct result *res)
{
	const struct test_module *m = res->m;
	const char *what;

	if (res->hist == NULL)
		return;
	if (!module_is_rr(m))
		what = m->flow == MODULE_TO_CLIENT ? "recv" : "send";
	else if (module_has(m, MODULE_F_PER_TRANS) &&
		 m->socktype == SOCK_STREAM)
		what = "connect/request/response/close";
	else
		what = "request/response";
	fprintf(out, "\nHistogram of %s times\n", what);
	histogram_rows(out, res->hist);
}
