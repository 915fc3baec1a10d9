#include "module.h"

#include <netinet/in.h>
#include <sched.h>
#include <strings.h>

#include "clock.h"
#include "err.h"
#include "sock.h"

const struct test_module module_table[] = {
    {"TCP_STREAM", "TCP STREAM TEST", SOCK_STREAM, IPPROTO_TCP, MODULE_STREAM,
     stream_send, stream_recv},
    {"TCP_MAERTS", "TCP MAERTS TEST", SOCK_STREAM, IPPROTO_TCP, MODULE_MAERTS,
     stream_recv, stream_send},
    {"TCP_RR", "TCP REQUEST/RESPONSE TEST", SOCK_STREAM, IPPROTO_TCP, MODULE_RR,
     rr_client, rr_server},
    {"TCP_CRR", "TCP Connect/Request/Response TEST", SOCK_STREAM, IPPROTO_TCP,
     MODULE_CRR, crr_client, crr_server},
    {"UDP_STREAM", "UDP STREAM TEST", SOCK_DGRAM, IPPROTO_UDP,
     MODULE_UDP_STREAM, udp_stream_send, udp_stream_recv},
    {"UDP_RR", "UDP REQUEST/RESPONSE TEST", SOCK_DGRAM, IPPROTO_UDP,
     MODULE_UDP_RR, udp_rr_client, udp_rr_server},
    {NULL, NULL, 0, 0, 0, NULL, NULL},
};

const struct test_module *
module_find(const char *name)
{
	const struct test_module *m;

	for (m = module_table; m->name != NULL; m++)
		if (strcasecmp(m->name, name) == 0)
			return m;
	return NULL;
}

int
module_run(const struct test_module *m, int is_server, int measure_cpu,
	   struct test_ctx *ctx)
{
	struct cpu_sample before = {0}, after = {0};
	struct side_result *r = ctx->r;
	uint64_t t0, t1;
	int rc = -1;

	if (measure_cpu && cpu_sample_read(&before, ctx->err) < 0)
		return -1;
	t0 = clock_ns();
	ctx->end_ns =
	    ctx->p->duration > 0 ? t0 + (uint64_t)(ctx->p->duration * 1e9) : 0;
	if ((is_server ? m->server : m->client)(ctx) < 0)
		goto out;
	t1 = clock_ns();
	if (measure_cpu) {
		if (cpu_sample_read(&after, ctx->err) < 0 ||
		    cpu_util_compute(&before, &after, &r->cpu, ctx->err) < 0)
			goto out;
		r->cpu_measured = 1;
	}
	/* A loop that knows its interval better (a UDP receiver ends at its
	 * last datagram, not when it noticed the end) has set it already. */
	if (r->elapsed <= 0)
		r->elapsed = (double)(t1 - t0) / 1e9;
	r->cpu_id = sched_getcpu();
	if (ctx->fd >= 0)
		sock_get_buffers(ctx->fd, &r->sndbuf_end, &r->rcvbuf_end);
	if (m->protocol == IPPROTO_TCP && ctx->fd >= 0 && m->kind != MODULE_CRR)
		sock_tcp_stats(ctx->fd, &r->mss, &r->retrans);
	rc = 0;
out:
	cpu_sample_free(&after);
	cpu_sample_free(&before);
	return rc;
}

/*
 * Decides what a call that timed out (SO_RCVTIMEO/SO_SNDTIMEO) means:
 * returns 1 when the test may simply end, 0 to keep waiting, -1 with err
 * set when the peer has been silent too long.
 */
int
module_stalled(struct test_ctx *ctx, uint64_t now, uint64_t last_progress)
{
	if (ctx->end_ns != 0 && now >= ctx->end_ns) {
		if (now >= ctx->end_ns + MODULE_GRACE_SEC * NS_PER_SEC)
			return err_set(ctx->err,
				       "the peer stopped responding "
				       "(nothing for %d s after the "
				       "end of the test)",
				       MODULE_GRACE_SEC);
		return 0;
	}
	if (now - last_progress >= MODULE_IDLE_SEC * NS_PER_SEC)
		return err_set(ctx->err,
			       "the peer stopped responding (no progress for "
			       "%d s)",
			       MODULE_IDLE_SEC);
	return 0;
}

int
module_stop_requested(struct test_ctx *ctx)
{
	char c;

	/* Any byte waiting means the client spoke: its "stop", or a close
	 * that ends the test just the same. */
	return ctx->ctl >= 0 &&
	       recv(ctx->ctl, &c, 1, MSG_PEEK | MSG_DONTWAIT) >= 0;
}

void
module_udp_end(struct test_ctx *ctx)
{
	int i;

	/* Zero-length datagrams never carry data, so they mark the end;
	 * three, since any one may be lost. The "stop" message on the
	 * control connection is the reliable signal behind them. */
	for (i = 0; i < 3; i++)
		send(ctx->fd, ctx->buf, 0, MSG_DONTWAIT);
}
