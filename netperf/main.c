/* netperf: options in, one test against a netserver, results out. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "report.h"
#include "result.h"
#include "stats.h"

static volatile sig_atomic_t stop_requested;

static void
on_sigint(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void
usage(FILE *out)
{
	fputs(
	    "Usage: netperf [global options] -- [test options]\n"
	    "\n"
	    "Global options:\n"
	    "    -H host[,fam]     netserver's host (localhost); fam 4 or 6\n"
	    "    -L host[,fam]     local address of the control connection\n"
	    "    -p port[,lport]   netserver's port (12865), local port\n"
	    "    -t test           TCP_STREAM (default), TCP_MAERTS, TCP_RR,\n"
	    "                      TCP_CRR, UDP_STREAM, UDP_RR\n"
	    "    -l secs           test length; negative: bytes or "
	    "transactions\n"
	    "    -c, -C            measure local, remote CPU utilisation\n"
	    "    -f G|M|K|g|m|k|x  output units (bytes, bits, trans)\n"
	    "    -P 0|1            no banner and titles, or with them\n"
	    "    -v 0|1|2          verbosity\n"
	    "    -B brand          text appended to the result (with -P 0)\n"
	    "    -4, -6            use IPv4, IPv6\n"
	    "    -d                debug output on stderr\n"
	    "    -V, -h            version, this help\n"
	    "    --rate bits/s     UDP_STREAM: offer this rate (k, M, G: "
	    "10^3...)\n"
	    "\n"
	    "Test options (after --):\n"
	    "    -m send[,rsend]   bytes per send (default: socket buffer)\n"
	    "    -M rrecv[,recv]   bytes per receive, netserver's first\n"
	    "    -s snd[,rcv]      local socket buffers\n"
	    "    -S snd[,rcv]      remote socket buffers\n"
	    "    -r req[,rsp]      request and response sizes (RR)\n"
	    "    -b n              n extra transactions in flight (RR)\n"
	    "    -e secs           UDP_RR: give up on an answer after secs\n"
	    "                      (default: adaptive, as TCP's RTO)\n"
	    "    -D                TCP_NODELAY on both ends\n"
	    "    -P lport[,rport]  data connection ports\n"
	    "    -H host[,fam]     data connection's remote address\n"
	    "    -L host[,fam]     data connection's local address\n"
	    "    -4, -6            data connection family\n"
	    "\n"
	    "Sizes take K, M, G (2^10, 2^20, 2^30) or k, m, g (10^3...).\n",
	    out);
}

/* -d: both sides' raw counts, so a surprising figure can be traced. */
static void
debug_side(const char *who, const struct side_result *s)
{
	fprintf(stderr,
		"netperf: debug: %s: %.6f s, sent %llu bytes in %llu calls, "
		"received %llu bytes in %llu calls, %llu transactions, "
		"buffers %d/%d (end %d/%d), mss %d, retransmissions %u, "
		"send errors %llu, cpu %d\n",
		who, s->elapsed, (unsigned long long)s->bytes_sent,
		(unsigned long long)s->send_calls,
		(unsigned long long)s->bytes_recv,
		(unsigned long long)s->recv_calls, (unsigned long long)s->trans,
		s->sndbuf, s->rcvbuf, s->sndbuf_end, s->rcvbuf_end, s->mss,
		s->retrans, (unsigned long long)s->send_errors, s->cpu_id);
	if (s->cpu_measured)
		fprintf(stderr,
			"netperf: debug: %s: cpu %.2f %% (user %.2f, system "
			"%.2f, irq %.2f, softirq %.2f, steal %.2f) over %d "
			"CPUs, busiest cpu%d at %.2f %%\n",
			who, s->cpu.all.util, s->cpu.all.user,
			s->cpu.all.system, s->cpu.all.irq, s->cpu.all.softirq,
			s->cpu.all.steal, s->cpu.ncpu, s->cpu.peak_id,
			s->cpu.peak);
}

static void
debug_sides(const struct result *res)
{
	debug_side("local", &res->local);
	debug_side("remote", &res->remote);
}

int
main(int argc, char **argv)
{
	struct netperf_opts o;
	struct report_opts ro;
	struct result res;
	struct client c;
	struct sigaction sa;
	char err[ERR_LEN];
	int rc = EXIT_FAILURE;

	if (cli_netperf_parse(argc, argv, &o, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		fprintf(stderr, "Try 'netperf -h' for usage.\n");
		return 2;
	}
	if (o.want_help) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	if (o.want_version) {
		printf("netperf %s (control protocol %d)\n", NP_VERSION, 1);
		return EXIT_SUCCESS;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(&res, 0, sizeof(res));
	res.m = module_find(o.test);
	cli_netperf_request(&o, &res.p);
	res.local_cpu = o.local_cpu;
	res.remote_cpu = o.remote_cpu;
	res.fmt = o.fmt;
	memset(&ro, 0, sizeof(ro));
	ro.headers = o.headers;
	ro.verbosity = o.verbosity;
	ro.brand = o.brand[0] ? o.brand : NULL;
	ro.histogram = o.verbosity >= 2;
	if (ro.histogram) {
		res.hist = malloc(sizeof(*res.hist));
		if (res.hist == NULL) {
			fprintf(stderr, "netperf: out of memory\n");
			return EXIT_FAILURE;
		}
		stats_hist_init(res.hist);
	}

	if (client_open(&c, &o, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		goto out;
	}
	client_describe(&c, &o, &res);
	if (o.headers) {
		report_banner(stdout, &res, &ro);
		fflush(stdout);
	}
	if (client_test(&c, &o, &res, &stop_requested, err) < 0) {
		fprintf(stderr, "netperf: %s\n", err);
		client_close(&c);
		goto out;
	}
	client_close(&c);
	result_compute(&res);
	if (o.debug)
		debug_sides(&res);
	report_classic(stdout, &res, &ro);
	rc = EXIT_SUCCESS;
out:
	result_free(&res);
	return rc;
}
