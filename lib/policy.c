/*
 * What netserver allows, whatever a client asks, and the check that
 * holds each request to it: one policy for a session in our protocol
 * (server.c) and one in netperf 2.7's (server_legacy.c), which both call
 * here and not each other.
 */
#include "np/policy.h"

#include <stdio.h>

#include "np/clock.h"
#include "np/escape.h"
#include "np/fast.h"
#include "np/flows.h"
#include "np/oneway.h"
#include "np/transport.h"
#include "np/underload.h"

void
server_limits_default(struct server_limits *lim)
{
	lim->max_duration = 3600;
	lim->max_count = (int64_t)1 << 50;
	lim->max_msg = (int64_t)64 << 20;
	lim->max_buf = 256 << 20;
	lim->idle_ms = 60000;
	lim->accept_ms = 10000;
	/* 0: as many as --max-session-memory holds (server_max_streams). */
	lim->max_streams = 0;
	lim->max_sessions = 64;
	lim->max_per_addr = 16;
	lim->legacy = 1;
	lim->legacy_pass[0] = '\0';
	lim->max_session_mem = (int64_t)256 << 20;
	lim->hello_ms = 5000;
	lim->max_session_time = 7200;
	lim->ipv6_prefix = 64;
	lim->allow_low_ports = 0;
	lim->max_start_ahead = 300;
	lim->report = NULL;
}

int
server_max_streams(const struct server_limits *lim, int flows)
{
	int64_t n;

	/* A thread a stream: 64 unless told, and never past a thread
	 * count a host can take; the results of each must also fit in
	 * one message (PROTO_MAX_RESULTS). */
	if (!flows)
		return lim->max_streams > 0 &&
			       lim->max_streams < FLOWS_THREAD_EACH_MAX
			   ? lim->max_streams
		       : lim->max_streams > 0 ? FLOWS_THREAD_EACH_MAX
					      : 64;
	if (lim->max_streams > 0)
		return lim->max_streams;
	n = lim->max_session_mem / (int64_t)flows_mem_per_flow();
	if (n > FLOWS_MAX)
		n = FLOWS_MAX;
	return n < 1 ? 1 : (int)n;
}

void
server_report(const struct server_limits *lim, enum metrics_kind kind,
	      const char *test, uint64_t bytes, uint64_t transactions,
	      int streams, enum metrics_refusal refusal)
{
	struct metrics_event ev;

	if (lim->report == NULL)
		return;
	metrics_event_make(&ev, kind, test, bytes, transactions, streams,
			   refusal);
	lim->report(&ev);
}

static int
check_size(const char *what, int64_t v, int64_t max, char *err)
{
	if (v > max)
		return err_set(err,
			       "%s of %lld bytes exceeds this server's limit "
			       "of %lld bytes",
			       what, (long long)v, (long long)max);
	return 0;
}

/* The sizes the test itself allows: requests and responses of a byte at
 * least, datagrams no larger than a datagram can be. */
static int
check_shape(const struct test_module *m, const struct test_params *p,
	    char *err)
{
	if (module_is_rr(m) && (p->req_size < 1 || p->rsp_size < 1))
		return err_set(err, "request and response sizes must be at "
				    "least 1 byte");
	if (m->rr_max > 0 &&
	    (p->req_size > m->rr_max || p->rsp_size > m->rr_max))
		return err_set(err,
			       "%s sizes of %lld,%lld exceed the %lld-byte "
			       "datagram limit",
			       m->name, (long long)p->req_size,
			       (long long)p->rsp_size, (long long)m->rr_max);
	if (m->send_max > 0 && p->send_size > m->send_max)
		return err_set(err,
			       "datagrams of %lld bytes exceed the %lld-byte "
			       "limit",
			       (long long)p->send_size, (long long)m->send_max);
	return 0;
}

int
server_check_request(const struct test_params *p,
		     const struct server_limits *lim, char *err)
{
	const struct test_module *m = module_find(p->test);
	char text[ESCAPE_LEN];
	const char *c;

	if (m == NULL)
		return err_set(err, "unknown test \"%s\"",
			       escape_str(text, sizeof(text), p->test));
	/* The binding is quoted back in topology errors: printable only. */
	for (c = p->cpu_bind; *c != '\0'; c++)
		if (*c < 0x20 || *c >= 0x7f)
			return err_set(
			    err,
			    "CPU binding \"%s\" holds a byte outside "
			    "printable ASCII",
			    escape_str(text, sizeof(text), p->cpu_bind));
	if (p->bidir && !module_has(m, MODULE_F_BIDIR)) {
		char names[128];

		module_names_with(MODULE_F_BIDIR, names, sizeof(names));
		return err_set(err, "bidir is for %s, not %s", names, m->name);
	}
	if (p->bidir && m->send_max > 0 && p->rsend_size > m->send_max)
		return err_set(err,
			       "datagrams of %lld bytes exceed the %lld-byte "
			       "limit",
			       (long long)p->rsend_size,
			       (long long)m->send_max);
	if (p->bidir && p->duration <= 0)
		return err_set(err, "bidir runs for a time, not a count");
	if (p->one_way && oneway_refuses(m, p->req_size, p->rsp_size, err) < 0)
		return -1;
	/* Only these loops read a request's class (rr.c, and flows.c's
	 * on threads). */
	if (p->mix.n > 0 && !module_has(m, MODULE_F_MIX)) {
		char names[128];

		module_names_with(MODULE_F_MIX, names, sizeof(names));
		return err_set(err, "a request mix applies to %s only, not %s",
			       names, m->name);
	}
	if (p->mix.n > 0 &&
	    (p->one_way || p->timestamps || p->load_up + p->load_down > 0))
		return err_set(err, "a request mix cannot be combined with %s",
			       p->one_way      ? "one-way stamps"
			       : p->timestamps ? "timestamps"
					       : "--under-load");
	if (p->duration > lim->max_duration)
		return err_set(err,
			       "test length %.0f s exceeds this server's limit "
			       "of %.0f s",
			       p->duration, lim->max_duration);
	if (p->count > lim->max_count)
		return err_set(err,
			       "test count %lld exceeds this server's limit of "
			       "%lld",
			       (long long)p->count, (long long)lim->max_count);
	/* A scheduled start holds a session slot until it comes: a start
	 * far ahead would hold it idle. */
	if (p->start_at_ns > 0 && (double)(p->start_at_ns - clock_real_ns()) >
				      lim->max_start_ahead * 1e9)
		return err_set(err,
			       "the scheduled start is %.0f s ahead of this "
			       "server's clock, past its limit of %.0f s "
			       "(--max-start-ahead)",
			       (double)(p->start_at_ns - clock_real_ns()) / 1e9,
			       lim->max_start_ahead);
	if (p->threads < 0 || p->threads > p->streams)
		return err_set(err,
			       "%d threads for %d streams: more threads "
			       "than streams",
			       p->threads, p->streams);
	if (p->streams > server_max_streams(lim, module_flows(p)))
		return err_set(
		    err, "%d streams exceed this server's limit of %d",
		    p->streams, server_max_streams(lim, module_flows(p)));
	if (module_flows(p) && flows_check(m, p, err) < 0)
		return -1;
	if (flows_nofile((long)p->streams + FLOWS_FD_SLACK, err) < 0)
		return -1;
	if (p->data_port != 0 && p->data_port < 1024 && !lim->allow_low_ports)
		return err_set(
		    err,
		    "data port %d is a privileged port, which this "
		    "server does not bind (--allow-privileged-ports)",
		    p->data_port);
	/* UDP takes a port per stream, from data_port up. */
	if (p->data_port != 0 &&
	    transport_of(m, p)->admit == TRANSPORT_DATAGRAM &&
	    p->data_port + p->streams - 1 > 65535)
		return err_set(err,
			       "data port %d with %d streams runs past port "
			       "65535",
			       p->data_port, p->streams);
	if (check_size("send size", p->rsend_size, lim->max_msg, err) ||
	    check_size("receive size", p->rrecv_size, lim->max_msg, err) ||
	    check_size("request size", p->req_size, lim->max_msg, err) ||
	    check_size("response size", p->rsp_size, lim->max_msg, err) ||
	    check_size("send buffer", p->rsndbuf, lim->max_buf, err) ||
	    check_size("receive buffer", p->rrcvbuf, lim->max_buf, err))
		return -1;
	if (underload_check(m, p, err) < 0)
		return -1;
	return check_shape(m, p, err) < 0 || transport_check(m, p, err) < 0
		   ? -1
		   : fast_check(m, p, err);
}
