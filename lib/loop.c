#include "np/loop.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "np/auth.h"

void
module_cong_of(int fd, const struct test_params *p, int is_server, char *out,
	       size_t cap)
{
	const char *asked = is_server ? p->rx.cong : p->lx.cong;
	socklen_t len = (socklen_t)cap;
	FILE *f;

	out[0] = '\0';
	if (fd >= 0 && getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, out,
				  &len) == 0) {
		out[cap - 1] = '\0';
		return;
	}
	/* TCP_CRR's connections are gone by now: what was asked for, or
	 * what a new socket gets. */
	if (asked[0] != '\0') {
		snprintf(out, cap, "%s", asked);
		return;
	}
	f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");
	if (f == NULL)
		return;
	if (fgets(out, (int)cap, f) == NULL)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
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

int
module_udp_token(struct test_ctx *ctx, const char *p, size_t n, int echo)
{
	if (n != AUTH_TOKEN_LEN || ctx->token == NULL ||
	    memcmp(p, ctx->token, AUTH_TOKEN_LEN) != 0)
		return 0;
	if (echo)
		send(ctx->fd, ctx->token, AUTH_TOKEN_LEN, MSG_DONTWAIT);
	return 1;
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
