#include "result.h"

#include <stdlib.h>

/* Work done by one side per second: KB (1024 bytes) of everything it sent
 * and received, or its transactions when service demand is per trans. */
static double
side_units_per_sec(const struct result *res, const struct side_result *s)
{
	if (s->elapsed <= 0)
		return 0;
	if (res->m->kind == MODULE_RR && res->fmt == 'x')
		return (double)s->trans / s->elapsed;
	return (double)(s->bytes_sent + s->bytes_recv) / 1024.0 / s->elapsed;
}

static void
side_cpu(const struct result *res, const struct side_result *s, int wanted,
	 double *util, double *sd, int *ncpu)
{
	*util = -1;
	*sd = -1;
	*ncpu = 0;
	if (!wanted || !s->cpu_measured)
		return;
	*util = s->cpu.all.util;
	*ncpu = s->cpu.ncpu;
	*sd = cpu_service_demand(*util, *ncpu, side_units_per_sec(res, s));
}

void
result_compute(struct result *res)
{
	const struct side_result *rx;
	double bytes_per_sec = 0;

	switch (res->m->kind) {
	case MODULE_STREAM:
		rx = &res->remote;
		res->elapsed = rx->elapsed;
		if (rx->elapsed > 0)
			bytes_per_sec = (double)rx->bytes_recv / rx->elapsed;
		res->thruput = units_from_bytes(bytes_per_sec, res->fmt);
		break;
	case MODULE_MAERTS:
		rx = &res->local;
		res->elapsed = rx->elapsed;
		if (rx->elapsed > 0)
			bytes_per_sec = (double)rx->bytes_recv / rx->elapsed;
		res->thruput = units_from_bytes(bytes_per_sec, res->fmt);
		break;
	case MODULE_RR:
		res->elapsed = res->local.elapsed;
		res->trans_rate = res->elapsed > 0
				      ? (double)res->local.trans / res->elapsed
				      : 0;
		bytes_per_sec = res->trans_rate *
				(double)(res->p.req_size + res->p.rsp_size);
		res->thruput = res->fmt == 'x'
				   ? res->trans_rate
				   : units_from_bytes(bytes_per_sec, res->fmt);
		break;
	}
	side_cpu(res, &res->local, res->local_cpu, &res->local_util,
		 &res->local_sd, &res->local_ncpu);
	side_cpu(res, &res->remote, res->remote_cpu, &res->remote_util,
		 &res->remote_sd, &res->remote_ncpu);
}

const char *
result_sd_units(const struct result *res)
{
	return res->m->kind == MODULE_RR && res->fmt == 'x' ? "us/Tr" : "us/KB";
}

void
result_free(struct result *res)
{
	cpu_util_free(&res->local.cpu);
	cpu_util_free(&res->remote.cpu);
	free(res->hist);
	res->hist = NULL;
}
