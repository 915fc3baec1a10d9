#include "result.h"

#include <stdlib.h>

/* Work done by one side per second: KB (1024 bytes) of everything it sent
 * and received, or its transactions when service demand is per trans. */
static double
side_units_per_sec(const struct result *res, const struct side_result *s)
{
	if (s->elapsed <= 0)
		return 0;
	if (module_is_rr(res->m) && res->fmt == 'x')
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
	case MODULE_UDP_STREAM: {
		uint64_t sent = res->local.send_calls;
		uint64_t got = res->remote.recv_calls - res->remote.dups;

		rx = &res->remote;
		res->elapsed = rx->elapsed;
		if (rx->elapsed > 0)
			bytes_per_sec = (double)rx->bytes_recv / rx->elapsed;
		res->thruput = units_from_bytes(bytes_per_sec, res->fmt);
		res->send_thruput =
		    res->local.elapsed > 0
			? units_from_bytes((double)res->local.bytes_sent /
					       res->local.elapsed,
					   res->fmt)
			: 0;
		/* Loss from the sender's final count, so datagrams lost at
		 * the tail are counted too; never below 0 or above all. */
		res->lost = got >= sent ? 0 : sent - got;
		res->loss_pct =
		    sent ? 100.0 * (double)res->lost / (double)sent : 0;
		break;
	}
	case MODULE_RR:
	case MODULE_UDP_RR:
	case MODULE_CRR:
		res->lost = res->local.lost;
		res->loss_pct =
		    res->local.trans + res->local.lost
			? 100.0 * (double)res->local.lost /
			      (double)(res->local.trans + res->local.lost)
			: 0;
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
	return module_is_rr(res->m) && res->fmt == 'x' ? "us/Tr" : "us/KB";
}

void
result_free(struct result *res)
{
	cpu_util_free(&res->local.cpu);
	cpu_util_free(&res->remote.cpu);
	free(res->hist);
	res->hist = NULL;
}
