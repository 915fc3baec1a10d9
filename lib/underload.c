#include "np/underload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <linux/tcp.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/result.h"
#include "np/stats.h"

/* One "key=N" of the spec, at s (len bytes): which count it sets. */
static int
parse_one(const char *s, size_t len, int *up, int *down, int *seen, char *err)
{
	const char *eq = memchr(s, '=', len);
	char num[16];
	size_t klen, nlen;
	char *end;
	long v;
	int *to, bit;

	if (eq == NULL)
		return err_set(err,
			       "--under-load: \"%.*s\" is not up=N or down=N",
			       (int)(len < 32 ? len : 32), s);
	klen = (size_t)(eq - s);
	nlen = len - klen - 1;
	if (klen == 2 && strncmp(s, "up", 2) == 0) {
		to = up;
		bit = 1;
	} else if (klen == 4 && strncmp(s, "down", 4) == 0) {
		to = down;
		bit = 2;
	} else
		return err_set(err,
			       "--under-load: unknown key \"%.*s\" (up or "
			       "down)",
			       (int)(klen < 32 ? klen : 32), s);
	if (*seen & bit)
		return err_set(err, "--under-load: %s given twice",
			       bit == 1 ? "up" : "down");
	*seen |= bit;
	if (nlen == 0 || nlen >= sizeof(num))
		return err_set(err,
			       "--under-load: %s needs a count from 0 to %d",
			       bit == 1 ? "up" : "down", UNDERLOAD_MAX);
	memcpy(num, eq + 1, nlen);
	num[nlen] = '\0';
	errno = 0;
	v = strtol(num, &end, 10);
	if (errno != 0 || *end != '\0' || num[0] < '0' || num[0] > '9' ||
	    v < 0 || v > UNDERLOAD_MAX)
		return err_set(err,
			       "--under-load: %s=%s: the count must be a "
			       "whole number from 0 to %d",
			       bit == 1 ? "up" : "down", num, UNDERLOAD_MAX);
	*to = (int)v;
	return 0;
}

int
underload_parse(const char *spec, int *up, int *down, char *err)
{
	const char *s = spec;
	int seen = 0;

	*up = *down = 0;
	if (*s == '\0')
		return err_set(err, "--under-load: empty; give up=N, down=N "
				    "or both (up=4,down=4)");
	for (;;) {
		size_t len = strcspn(s, ",");

		if (len == 0)
			return err_set(err,
				       "--under-load: an empty part in "
				       "\"%.64s\"",
				       spec);
		if (parse_one(s, len, up, down, &seen, err) < 0)
			return -1;
		if (s[len] == '\0')
			break;
		s += len + 1;
	}
	if (*up + *down == 0)
		return err_set(err, "--under-load: no bulk flow (up and down "
				    "are both 0)");
	return 0;
}

int
underload_role(const struct test_params *p, int i)
{
	if (p->load_up + p->load_down == 0 || i == 0)
		return UNDERLOAD_PROBE;
	return i <= p->load_up ? UNDERLOAD_UP : UNDERLOAD_DOWN;
}

const struct test_module *
underload_module(const struct test_module *m, int role)
{
	static const struct test_module *bulk;

	if (role == UNDERLOAD_PROBE)
		return m;
	if (bulk == NULL)
		bulk = module_find("TCP_STREAM");
	return bulk;
}

int
underload_mixed(const struct test_module *m, const struct test_params *p)
{
	return p->load_up + p->load_down > 0 && m->socktype != SOCK_STREAM;
}

module_loop_fn
underload_loop(int role, int is_server)
{
	/* Up: netperf sends, as TCP_STREAM; down: netserver sends, as
	 * TCP_MAERTS, whose receiver ends at the sender's close. */
	int sends = role == UNDERLOAD_UP ? !is_server : is_server;

	return sends ? stream_send : stream_recv;
}

int
underload_check(const struct test_module *m, const struct test_params *p,
		char *err)
{
	if (p->load_up + p->load_down == 0)
		return 0;
	if (!module_is_rr(m) || module_has(m, MODULE_F_PER_TRANS))
		return err_set(err,
			       "--under-load probes with TCP_RR or UDP_RR, "
			       "not %s",
			       m->name);
	if (p->load_up < 0 || p->load_down < 0 || p->load_up > UNDERLOAD_MAX ||
	    p->load_down > UNDERLOAD_MAX)
		return err_set(err,
			       "--under-load: %d up and %d down flows, "
			       "outside 0..%d",
			       p->load_up, p->load_down, UNDERLOAD_MAX);
	if (p->streams != 1 + p->load_up + p->load_down)
		return err_set(err,
			       "--under-load: %d streams, where one probe and "
			       "%d bulk flows make %d",
			       p->streams, p->load_up + p->load_down,
			       1 + p->load_up + p->load_down);
	if (p->bidir || p->wire)
		return err_set(err, "--under-load does not mix with --bidir or "
				    "--wire");
	if (p->duration <= 0)
		return err_set(err, "--under-load runs for a time: give -l in "
				    "seconds, not a count");
	return 0;
}

void
underload_snapshot(const struct module_run *run)
{
	struct tcp_info ti;
	socklen_t len;
	int i, role, sends;
	double secs = (double)(clock_ns() - run->start_ns) / 1e9;

	for (i = 0; i < run->n; i++) {
		const struct test_ctx *c = &run->ctx[i];

		role = c->role;
		if (role == UNDERLOAD_PROBE || c->fd < 0)
			continue;
		sends = role == UNDERLOAD_UP ? !run->is_server : run->is_server;
		memset(&ti, 0, sizeof(ti));
		len = sizeof(ti);
		/* Another thread's socket: TCP_INFO takes its lock for a
		 * moment, once. */
		if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
			continue;
		c->r->load_bytes =
		    sends ? ti.tcpi_bytes_acked : ti.tcpi_bytes_received;
		c->r->load_secs = secs;
	}
}

uint64_t
underload_warm_ns(const struct test_ctx *ctx, uint64_t t0)
{
	const struct test_params *p = ctx->p;

	if (p->load_up + p->load_down == 0 || ctx->role != UNDERLOAD_PROBE ||
	    p->duration <= 0)
		return 0;
	return t0 + (uint64_t)(p->duration * 1e9 / 4);
}

void
underload_server_buffer(const struct test_params *p,
			const struct side_result *r, int64_t *each)
{
	if (p->load_up + p->load_down == 0)
		return;
	if (r->send_size > *each)
		*each = r->send_size;
	if (r->recv_size > *each)
		*each = r->recv_size;
}

double
underload_rpm(const struct stats_hist *h)
{
	uint64_t keep, taken = 0, lo, hi;
	double sum = 0;
	int i;

	if (h == NULL || h->count == 0)
		return 0;
	/* The draft's trimmed mean: the slowest 5 % of the probes left
	 * out. Each value is taken at its bucket's middle, which the
	 * histogram knows to within 0.8 %. */
	keep = (uint64_t)((double)h->count * 0.95);
	if (keep == 0)
		keep = 1;
	for (i = 0; i < STATS_NBUCKETS && taken < keep; i++) {
		uint64_t n = h->bucket[i];

		if (n == 0 || stats_bucket_bounds(i, &lo, &hi) != 0)
			continue;
		if (n > keep - taken)
			n = keep - taken;
		sum += (double)n * ((double)lo + (double)hi) / 2;
		taken += n;
	}
	if (taken == 0 || sum <= 0)
		return 0;
	return 60e9 / (sum / (double)taken);
}

void
underload_compute(const struct result *idle, const struct result *loaded,
		  struct underload *u)
{
	const struct side_result *ls = loaded->side[RESULT_LOCAL].stream;
	uint64_t bytes[2] = {0, 0};
	double secs;
	int i;

	u->up = loaded->p.load_up;
	u->down = loaded->p.load_down;
	u->idle_p50 =
	    idle->hist != NULL && idle->hist->count > 0 ? idle->lat.p50 : -1;
	u->idle_p99 = u->idle_p50 >= 0 ? idle->lat.p99 : -1;
	u->loaded_p50 = loaded->hist != NULL && loaded->hist->count > 0
			    ? loaded->lat.p50
			    : -1;
	u->loaded_p99 = u->loaded_p50 >= 0 ? loaded->lat.p99 : -1;
	u->idle_rate = idle->trans_rate;
	/* The probe's own rate: the bulk flows' ends can outlast it. */
	u->loaded_rate = ls != NULL && ls[0].elapsed > 0
			     ? (double)ls[0].trans / ls[0].elapsed
			     : 0;
	u->ratio = u->idle_p50 > 0 && u->loaded_p50 >= 0
		       ? u->loaded_p50 / u->idle_p50
		       : -1;
	u->added_ms = u->idle_p50 >= 0 && u->loaded_p50 >= 0
			  ? (u->loaded_p50 - u->idle_p50) / 1e3
			  : 0;
	/* What each flow delivered while the probe ran, as netperf's end
	 * of its connection counted it at the probe's end (bytes its peer
	 * acknowledged, or bytes it received): the queue's backlog, which
	 * drains after the probe is done, is not counted. */
	secs = 0;
	for (i = 1; ls != NULL && i < loaded->nstreams; i++) {
		bytes[underload_role(&loaded->p, i) == UNDERLOAD_UP] +=
		    ls[i].load_bytes;
		if (ls[i].load_secs > secs)
			secs = ls[i].load_secs;
	}
	u->up_mbps = secs > 0 ? (double)bytes[1] * 8 / secs / 1e6 : 0;
	u->down_mbps = secs > 0 ? (double)bytes[0] * 8 / secs / 1e6 : 0;
	u->total_mbps = u->up_mbps + u->down_mbps;
	u->idle_rpm = underload_rpm(idle->hist);
	u->loaded_rpm = underload_rpm(loaded->hist);
}

void
underload_print(FILE *out, const struct underload *u)
{
	fprintf(out,
		"\nLatency under load (the probe alone, then beside %d "
		"bulk flow%s up, %d down)\n",
		u->up, u->up == 1 ? "" : "s", u->down);
	fprintf(out, "%-8s %12s %12s %12s %12s\n", "", "P50 us", "P99 us",
		"Trans/s", "RPM");
	fprintf(out, "%-8s %12.0f %12.0f %12.2f %12.0f\n", "idle", u->idle_p50,
		u->idle_p99, u->idle_rate, u->idle_rpm);
	fprintf(out, "%-8s %12.0f %12.0f %12.2f %12.0f\n", "loaded",
		u->loaded_p50, u->loaded_p99, u->loaded_rate, u->loaded_rpm);
	fprintf(out, "Added delay %.3f ms (P50), loaded/idle %.2fx\n",
		u->added_ms, u->ratio);
	fprintf(out,
		"Bulk goodput during the probe: %.2f up + %.2f down = %.2f "
		"10^6bits/s\n",
		u->up_mbps, u->down_mbps, u->total_mbps);
}
