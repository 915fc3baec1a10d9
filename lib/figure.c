#include "np/figure.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include "np/transport.h"

/* The local side when loc, else the remote one. */
const struct result_side *
figure_side(const struct result *res, int loc)
{
	return &res->side[loc ? RESULT_LOCAL : RESULT_REMOTE];
}

/* The counts of that side, summed over its streams. */
const struct side_result *
figure_counts(const struct result *res, int loc)
{
	return &figure_side(res, loc)->sum;
}

/* CPU was asked for on that side (-c/-C) and measured there. */
int
figure_cpu_on(const struct result *res, int loc)
{
	return figure_side(res, loc)->util >= 0;
}

/* The CPUs measured over, or the side's online count when unmeasured:
 * netperf prints its CPU count either way. */
int
figure_cpu_count(const struct result *res, int loc)
{
	int n = figure_side(res, loc)->ncpu;

	if (n > 0)
		return n;
	return figure_side(res, loc)->env.ncpu;
}

/* The busiest CPU's utilisation, -1 when CPU was not measured. */
double
figure_cpu_peak(const struct result *res, int loc)
{
	if (!figure_cpu_on(res, loc))
		return -1;
	return figure_side(res, loc)->peak;
}

/* The busiest CPU's number, -1 when CPU was not measured. */
int
figure_cpu_peak_id(const struct result *res, int loc)
{
	if (!figure_cpu_on(res, loc))
		return -1;
	return figure_side(res, loc)->peak_id;
}

/* The service demand's unit as netperf's selectors name it. */
const char *
figure_sd_units(const struct result *res)
{
	return result_sd_per_trans(res) ? "usec/Tran" : "usec/KB";
}

/* The -f unit's name, "units" for one netperf has no name for. */
const char *
figure_unit_label(const struct result *res)
{
	const char *u = units_label(res->fmt);

	return u != NULL ? u : "units";
}

/* The data connections: 1 without --streams. */
int
figure_nstreams(const struct result *res)
{
	return res->nstreams > 1 ? res->nstreams : 1;
}

/* netperf's direction: Send, Receive or Send|Recv. */
const char *
figure_direction(const struct result *res)
{
	switch (res->m->flow) {
	case MODULE_TO_SERVER:
		return "Send";
	case MODULE_TO_CLIENT:
		return "Receive";
	case MODULE_BOTH:
		break;
	}
	return "Send|Recv";
}

/* "TCP", "UDP" or "MPTCP": the transport's name for reports. */
const char *
figure_protocol(const struct result *res)
{
	return transport_of(res->m, &res->p)->report;
}

/* "SOCK_STREAM" or "SOCK_DGRAM", as the JSON names it. */
const char *
figure_socket_type(const struct result *res)
{
	return transport_socktype_name(transport_of(res->m, &res->p));
}

/* "uname -sr" split into netperf's sysname (part 0) and release (1). */
void
figure_kernel_part(const char *kernel, int part, char *b, size_t cap)
{
	const char *s = kernel;
	size_t len;

	/* env.kernel is "sysname release machine", as uname -srm. */
	for (; part > 0 && *s != '\0'; part--) {
		s += strcspn(s, " ");
		s += strspn(s, " ");
	}
	len = strcspn(s, " ");
	snprintf(b, cap, "%.*s", (int)len, s);
}

/* One side's send or receive rate in the result's units: bytes in the
 * -f unit, or transactions with -f x. */
double
figure_side_thruput(const struct result *res, int loc, int send)
{
	const struct side_result *s = figure_counts(res, loc);

	if (s->elapsed <= 0)
		return 0;
	/* As 2.7, which reports these in 10^6bits/s when the test's own
	 * unit is transactions. */
	return units_from_bytes((double)(send ? s->bytes_sent : s->bytes_recv) /
				    s->elapsed,
				res->fmt == 'x' ? 'm' : res->fmt);
}
