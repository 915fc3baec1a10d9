/*
 * The figures every structured format takes from a result, so -o, -O, -k
 * and --json cannot disagree. loc is 1 for netperf's side, 0 for
 * netserver's.
 */
#ifndef NP_FIGURE_H
#define NP_FIGURE_H

#include "np/result.h"

/* The local side when loc, else the remote one. */
const struct result_side *figure_side(const struct result *res, int loc);

/* The counts of that side, summed over its streams. */
const struct side_result *figure_counts(const struct result *res, int loc);

/* CPU was asked for on that side (-c/-C) and measured there. */
int figure_cpu_on(const struct result *res, int loc);

/* The CPUs measured over, or the side's online count when unmeasured:
 * netperf prints its CPU count either way. */
int figure_cpu_count(const struct result *res, int loc);

/* The busiest CPU's utilisation, -1 when CPU was not measured. */
double figure_cpu_peak(const struct result *res, int loc);

/* The busiest CPU's number, -1 when CPU was not measured. */
int figure_cpu_peak_id(const struct result *res, int loc);

/* The service demand's unit as netperf's selectors name it. */
const char *figure_sd_units(const struct result *res);

/* The -f unit's name, "units" for one netperf has no name for. */
const char *figure_unit_label(const struct result *res);

/* The data connections: 1 without --streams. */
int figure_nstreams(const struct result *res);

/* netperf's direction: Send, Receive or Send|Recv. */
const char *figure_direction(const struct result *res);

/* "TCP" or "UDP". */
const char *figure_protocol(const struct result *res);

/* "SOCK_STREAM" or "SOCK_DGRAM", as the JSON names it. */
const char *figure_socket_type(const struct result *res);

/* "uname -sr" split into netperf's sysname (part 0) and release (1). */
void figure_kernel_part(const char *kernel, int part, char *b, size_t cap);

/* One side's send or receive rate in the result's units: bytes in the
 * -f unit, or transactions with -f x. */
double figure_side_thruput(const struct result *res, int loc, int send);

#endif
