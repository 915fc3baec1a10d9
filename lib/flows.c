/* Flows on threads: many data connections a thread, from one epoll set. */
#include "np/flows.h"

#include <errno.h>
#include <netinet/in.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/clock.h"
#include "np/be.h"
#include "np/err.h"
#include "np/sock.h"
#include "np/streams.h"
#include "np/tcpinfo.h"
#include "np/transport.h"

/* What a flow does on this end. */
enum flow_role {
	ROLE_RR_CLIENT,	 /* sends requests, reads responses */
	ROLE_RR_SERVER,	 /* reads requests, sends responses */
	ROLE_SEND,	 /* sends until the end, then half-closes */
	ROLE_RECV,	 /* reads until the peer half-closes */
	ROLE_UDP_CLIENT, /* UDP_RR: tagged requests, lost ones timed out */
	ROLE_UDP_SERVER, /* UDP_RR: answers until the client's "stop" */
};

enum flow_state { FLOW_RUN, FLOW_CLOSING, FLOW_DONE };

/* One flow's state, owned by its thread. */
struct flow {
	struct test_ctx *ctx;
	uint64_t tosend; /* bytes owed to the socket */
	uint64_t got;	 /* bytes of the message being read */
	uint64_t sent;	 /* requests sent (a counted RR test) */
	uint32_t head, inflight;
	uint8_t state, want_out;
};

/* One thread and its flows. */
struct flows_job {
	struct module_run *run;
	int t, nflows, depth;
	enum flow_role role;
	struct flow *f;
	uint64_t *stamps; /* depth a flow: RR send times, oldest at head */
	uint64_t *tags;	  /* depth a flow: UDP_RR's tags in flight */
	size_t taglen;
	struct module_rto rto;
	uint64_t expired_at;
	struct stats_hist *hist;
	char *buf;
	size_t buflen;
	int ep, open, ending;
	uint64_t end_ns;
	int rc;
	char err[ERR_LEN];
};

/* Sends and receives per readiness event: enough to fill a socket, few
 * enough that one busy flow cannot starve the others of its thread. */
#define FLOWS_CALLS_PER_EVENT 4
#define FLOWS_EVENTS 256

/* The runner's context and counts on this side (the client keeps the
 * peer's too), the descriptor and port slots, a place and its CPU set,
 * this file's state with one send time, the guard's slot, with room for
 * the allocator's headers: the bound the man page states. */
_Static_assert(sizeof(struct test_ctx) + 2 * sizeof(struct side_result) +
		       sizeof(struct topo_place) + sizeof(struct flow) +
		       2 * sizeof(uint64_t) + 4 * sizeof(int) + 1024 <=
		   FLOWS_MEM_PER_FLOW,
	       "a flow's state outgrew FLOWS_MEM_PER_FLOW");

size_t
flows_mem_per_flow(void)
{
	return FLOWS_MEM_PER_FLOW;
}

int
flows_default_threads(int n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (n <= FLOWS_EACH_DEFAULT)
		return n;
	if (cpus < 1)
		cpus = 1;
	return cpus < n ? (int)cpus : n;
}

int
flows_check(const struct test_module *m, const struct test_params *p, char *err)
{
	if (module_has(m, MODULE_F_PER_TRANS) ||
	    module_has(m, MODULE_F_NO_DATA) ||
	    (m->flow == MODULE_BOTH) != module_is_rr(m) ||
	    (m->protocol != IPPROTO_TCP && !module_is_rr(m)))
		return err_set(err,
			       "--threads: %s runs a thread a stream; flows "
			       "on fewer threads are for TCP_RR, TCP_STREAM, "
			       "TCP_MAERTS and UDP_RR",
			       m->name);
	if (m->client == NULL || m->server == NULL || p->bidir || p->zerocopy ||
	    p->splice || p->skip_rx_copy || p->interval_burst > 0 ||
	    p->use_write)
		return err_set(err, "--threads with fewer threads than "
				    "streams takes none of --bidir, "
				    "--zerocopy, -V, --skip-rx-copy, -w/-b "
				    "pacing or -I");
	/* The open loop, the stamps and the time-outs are the thread-a-
	 * stream loops' (rr_open.c, oneway.c, tstamp.c). */
	if ((module_is_rr(m) && p->rate > 0) || p->timeout > 0 ||
	    p->reconnect || p->one_way || p->timestamps || p->load_up > 0 ||
	    p->load_down > 0)
		return err_set(err, "--threads with fewer threads than "
				    "streams takes none of --rate, --timeout, "
				    "--reconnect, --one-way, --timestamps or "
				    "--under-load");
	return 0;
}

int
flows_nofile(long need, char *err)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return err_set(err, "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && need > 0 &&
	    (rlim_t)need > rl.rlim_cur)
		return err_set(err,
			       "%ld streams need %ld open files, over this "
			       "process's limit of %llu (RLIMIT_NOFILE)",
			       need - FLOWS_FD_SLACK, need,
			       (unsigned long long)rl.rlim_cur);
	return 0;
}

/* The thread's first failure: kept, the thread then stops. */
static int
fail(struct flows_job *j, struct flow *f, const char *what, int e)
{
	if (j->rc == 0) {
		j->rc = -1;
		snprintf(j->err, sizeof(j->err), "flow %d: %s%s%s",
			 (int)(f->ctx - j->run->ctx), what, e ? ": " : "",
			 e ? strerror(e) : "");
	}
	return -1;
}

/* Which events the flow waits for, told to epoll when it changed. */
static void
want(struct flows_job *j, struct flow *f, int out)
{
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0)};

	if (f->want_out == out)
		return;
	f->want_out = (uint8_t)out;
	ev.data.u32 = (uint32_t)(f - j->f);
	epoll_ctl(j->ep, EPOLL_CTL_MOD, f->ctx->fd, &ev);
}

/* The flow's end on this side: counted as the runner's loops count it. */
static void
flow_done(struct flows_job *j, struct flow *f, uint64_t now)
{
	struct module_run *run = j->run;
	struct side_result *r = f->ctx->r;

	f->state = FLOW_DONE;
	j->open--;
	epoll_ctl(j->ep, EPOLL_CTL_DEL, f->ctx->fd, NULL);
	r->elapsed = (double)(now - run->start_ns) / 1e9;
	r->wall_start_ns = run->wall_start_ns;
	r->wall_end_ns = run->wall_start_ns + (int64_t)(now - run->start_ns);
	r->start_cpu_wait_ns = run->start_cpu_wait_ns;
	r->syscalls = r->send_calls + r->recv_calls;
	__atomic_store_n(&f->ctx->done_ns, now, __ATOMIC_RELEASE);
}

/* Half-closes the flow after its last message: the peer's close then
 * ends it. */
static void
half_close(struct flows_job *j, struct flow *f)
{
	f->state = FLOW_CLOSING;
	shutdown(f->ctx->fd, SHUT_WR);
	want(j, f, 0);
}

/* Writes what the flow owes; returns 0, or -1 on failure. */
static int
flush(struct flows_job *j, struct flow *f)
{
	struct side_result *r = f->ctx->r;
	ssize_t n;
	size_t len;

	while (f->tosend > 0) {
		len = f->tosend < j->buflen ? (size_t)f->tosend : j->buflen;
		n = send(f->ctx->fd, j->buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			f->tosend -= (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			want(j, f, 1);
			return 0;
		}
		return fail(j, f, "data connection: send", errno);
	}
	(void)r;
	want(j, f, 0);
	return 0;
}

/* An RR client's next request, stamped now. */
static int
issue(struct flows_job *j, struct flow *f, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	uint64_t *st = j->stamps + (size_t)(f - j->f) * (size_t)j->depth;

	st[(f->head + f->inflight) % (uint32_t)j->depth] = now;
	f->inflight++;
	f->sent++;
	f->tosend += (uint64_t)p->req_size;
	r->bytes_sent += (uint64_t)p->req_size;
	r->send_calls++;
	return flush(j, f);
}

/* Whether an RR client's flow may send another request. */
static int
may_issue(const struct flows_job *j, const struct flow *f)
{
	const struct test_params *p = f->ctx->p;

	return !j->ending && (j->end_ns != 0 || f->sent < (uint64_t)p->count);
}

/* An RR client's bytes of responses: whole ones complete transactions. */
static int
rr_client_read(struct flows_job *j, struct flow *f, size_t n, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	uint64_t rsp = (uint64_t)p->rsp_size;
	uint64_t *st = j->stamps + (size_t)(f - j->f) * (size_t)j->depth;

	if (f->state != FLOW_RUN)
		return fail(j, f, "the peer sent more than it was asked", 0);
	f->got += n;
	while (f->got >= rsp && f->inflight > 0) {
		f->got -= rsp;
		if (j->hist != NULL)
			stats_hist_add(j->hist, now - st[f->head]);
		f->head = (f->head + 1) % (uint32_t)j->depth;
		f->inflight--;
		r->trans++;
		r->bytes_recv += rsp;
		if (may_issue(j, f) && issue(j, f, now) < 0)
			return -1;
	}
	if (f->got > 0 && f->inflight == 0)
		return fail(j, f, "the peer sent more than it was asked", 0);
	if (f->inflight == 0)
		half_close(j, f);
	return 0;
}

/* An RR server's bytes of requests: each whole one is answered. */
static int
rr_server_read(struct flows_job *j, struct flow *f, size_t n, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	uint64_t req = (uint64_t)p->req_size;

	f->got += n;
	while (f->got >= req) {
		f->got -= req;
		if (f->ctx->end_ns == 0 && p->count > 0 &&
		    r->trans >= (uint64_t)p->count)
			return fail(j, f,
				    "the peer asked for more than the "
				    "transactions of the test",
				    0);
		r->bytes_recv += req;
		r->trans++;
		r->bytes_sent += (uint64_t)p->rsp_size;
		r->send_calls++;
		f->tosend += (uint64_t)p->rsp_size;
	}
	if (f->ctx->end_ns != 0 &&
	    now > f->ctx->end_ns + MODULE_HARD_END_SEC * NS_PER_SEC)
		return fail(j, f, "the peer kept sending requests past the end",
			    0);
	return flush(j, f);
}

/* A UDP_RR client's flow is done: the zero-length end markers (three,
 * any may be lost; the "stop" on the control connection is the reliable
 * end behind them). */
static void
udp_done(struct flows_job *j, struct flow *f, uint64_t now)
{
	for (int i = 0; i < 3; i++)
		send(f->ctx->fd, j->buf, 0, MSG_DONTWAIT);
	flow_done(j, f, now);
}

/* A UDP_RR client's requests, up to the depth in flight. */
static int
udp_fill(struct flows_job *j, struct flow *f, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	size_t base = (size_t)(f - j->f) * (size_t)j->depth;
	uint64_t mask =
	    j->taglen == 8 ? UINT64_MAX : ((1ULL << (8 * j->taglen)) - 1);
	ssize_t n;

	while (f->inflight < (uint32_t)j->depth && may_issue(j, f)) {
		ben_put(j->buf, f->sent + 1, j->taglen);
		n = send(f->ctx->fd, j->buf, (size_t)p->req_size, MSG_DONTWAIT);
		if (n < 0 && errno == ECONNREFUSED)
			return fail(j, f, "netserver's data socket is gone",
				    ECONNREFUSED);
		if (n < 0) {
			r->send_errors++; /* it will time out */
		} else {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
		}
		j->tags[base + f->inflight] = (f->sent + 1) & mask;
		j->stamps[base + f->inflight] = now;
		f->inflight++;
		f->sent++;
	}
	/* Ended (or counted out) with every answer in: done. */
	if (f->inflight == 0 && !may_issue(j, f))
		udp_done(j, f, now);
	return 0;
}

/* A UDP_RR datagram of n bytes in the thread's buffer. */
static int
udp_datagram(struct flows_job *j, struct flow *f, size_t n, uint64_t now)
{
	struct test_ctx *c = f->ctx;
	struct side_result *r = c->r;
	size_t base = (size_t)(f - j->f) * (size_t)j->depth;
	uint64_t tag, rtt;
	uint32_t i;

	if (j->role == ROLE_UDP_SERVER) {
		if (n == 0) {
			/* The client's end marker. */
			flow_done(j, f, now);
			return 0;
		}
		/* The token again, not a request: echoed, not answered. */
		if (module_udp_token(c, j->buf, n, 1))
			return 0;
		r->recv_calls++;
		r->bytes_recv += n;
		f->got = now; /* the last request, which ends its interval */
		/* The request's tag is still at the start of the buffer. */
		if (send(c->fd, j->buf, (size_t)c->p->rsp_size, MSG_DONTWAIT) <
		    0) {
			r->send_errors++;
		} else {
			r->bytes_sent += (uint64_t)c->p->rsp_size;
			r->send_calls++;
			r->trans++;
		}
		return 0;
	}
	if (n == 0 || module_udp_token(c, j->buf, n, 0))
		return 0;
	r->recv_calls++;
	tag = ben_get(j->buf, j->taglen);
	for (i = 0; i < f->inflight && j->tags[base + i] != tag; i++)
		;
	if (i == f->inflight || n < j->taglen) {
		r->dups++;
		return 0;
	}
	rtt = now - j->stamps[base + i];
	f->inflight--;
	j->tags[base + i] = j->tags[base + f->inflight];
	j->stamps[base + i] = j->stamps[base + f->inflight];
	r->trans++;
	r->bytes_recv += n;
	if (j->hist != NULL)
		stats_hist_add(j->hist, rtt);
	module_rto_sample(&j->rto, rtt);
	return udp_fill(j, f, now);
}

/* UDP_RR's client, every few milliseconds: the requests older than the
 * time-out are lost, and new ones go in their place. */
static int
udp_expire(struct flows_job *j, uint64_t now)
{
	int k;

	for (k = 0; k < j->nflows; k++) {
		struct flow *f = &j->f[k];
		size_t base = (size_t)k * (size_t)j->depth;
		uint32_t i;

		if (f->state == FLOW_DONE)
			continue;
		for (i = 0; i < f->inflight;) {
			if (now - j->stamps[base + i] < j->rto.ns) {
				i++;
				continue;
			}
			f->ctx->r->lost++;
			f->inflight--;
			j->tags[base + i] = j->tags[base + f->inflight];
			j->stamps[base + i] = j->stamps[base + f->inflight];
		}
		if (udp_fill(j, f, now) < 0)
			return -1;
	}
	return 0;
}

/* Readable: takes what is there (a few calls at most) and acts on it. */
static int
on_readable(struct flows_job *j, struct flow *f, uint64_t now)
{
	struct side_result *r = f->ctx->r;
	ssize_t n;
	int i;

	for (i = 0; i < FLOWS_CALLS_PER_EVENT && f->state != FLOW_DONE; i++) {
		n = recv(f->ctx->fd, j->buf, j->buflen, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0 && j->role == ROLE_UDP_CLIENT &&
		    errno == ECONNREFUSED)
			return fail(j, f, "netserver's data socket is gone",
				    errno);
		if (n < 0 && j->role == ROLE_UDP_SERVER &&
		    errno == ECONNREFUSED)
			return 0;
		if (n < 0)
			return fail(j, f, "data connection: recv", errno);
		if (j->role == ROLE_UDP_CLIENT || j->role == ROLE_UDP_SERVER) {
			if (udp_datagram(j, f, (size_t)n, now) < 0)
				return -1;
			continue;
		}
		if (n == 0) {
			if (f->state == FLOW_CLOSING) {
				flow_done(j, f, now);
				return 0;
			}
			if (j->role == ROLE_RR_CLIENT)
				return fail(j, f,
					    "the peer closed the data "
					    "connection during the test",
					    0);
			if (f->got != 0)
				return fail(j, f,
					    "data connection closed in the "
					    "middle of a message",
					    0);
			/* The sender is done: so is this end. */
			shutdown(f->ctx->fd, SHUT_WR);
			flow_done(j, f, now);
			return 0;
		}
		r->recv_calls++;
		/* A short read emptied the queue: another call would only
		 * say so (EAGAIN), a system call a transaction. */
		if ((size_t)n < j->buflen && j->role != ROLE_UDP_CLIENT &&
		    j->role != ROLE_UDP_SERVER)
			i = FLOWS_CALLS_PER_EVENT;
		switch (j->role) {
		case ROLE_RR_CLIENT:
			if (rr_client_read(j, f, (size_t)n, now) < 0)
				return -1;
			break;
		case ROLE_RR_SERVER:
			if (rr_server_read(j, f, (size_t)n, now) < 0)
				return -1;
			break;
		case ROLE_RECV:
			r->bytes_recv += (uint64_t)n;
			if (f->ctx->end_ns != 0 &&
			    now > f->ctx->end_ns +
				      MODULE_HARD_END_SEC * NS_PER_SEC)
				return fail(j, f,
					    "the peer kept sending data past "
					    "the end",
					    0);
			break;
		case ROLE_SEND:
			return fail(j, f,
				    "the peer sent data back on the one-way "
				    "data connection",
				    0);
		case ROLE_UDP_CLIENT:
		case ROLE_UDP_SERVER:
			break;
		}
	}
	return 0;
}

/* A sender's flow may take more: a few sends of the test's size. */
static int
on_writable(struct flows_job *j, struct flow *f)
{
	struct side_result *r = f->ctx->r;
	const struct test_params *p = f->ctx->p;
	size_t size = (size_t)r->send_size, want_len;
	ssize_t n;
	int i;

	if (j->role != ROLE_SEND)
		return flush(j, f);
	if (f->state != FLOW_RUN)
		return 0;
	if (size > j->buflen)
		size = j->buflen;
	for (i = 0; i < FLOWS_CALLS_PER_EVENT; i++) {
		want_len = size;
		if (j->end_ns == 0) {
			if (r->bytes_sent >= (uint64_t)p->count) {
				half_close(j, f);
				return 0;
			}
			if ((uint64_t)p->count - r->bytes_sent < want_len)
				want_len = (size_t)((uint64_t)p->count -
						    r->bytes_sent);
		}
		n = send(f->ctx->fd, j->buf, want_len,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			r->bytes_sent += (uint64_t)n;
			r->send_calls++;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return fail(j, f, "data connection: send", errno);
	}
	return 0;
}

/* The end of the interval (or Ctrl-C, or the client's "stop"): senders
 * half-close, RR clients stop asking and half-close once answered. */
static void
begin_end(struct flows_job *j)
{
	int i;

	j->ending = 1;
	for (i = 0; i < j->nflows; i++) {
		struct flow *f = &j->f[i];

		if (f->state != FLOW_RUN)
			continue;
		if ((j->role == ROLE_SEND && f->tosend == 0) ||
		    (j->role == ROLE_RR_CLIENT && f->inflight == 0))
			half_close(j, f);
		else if (j->role == ROLE_UDP_CLIENT && f->inflight == 0)
			udp_done(j, f, clock_ns());
		else if (j->role == ROLE_UDP_SERVER)
			flow_done(j, f, clock_ns());
	}
}

/* Whether this side ends the interval by its own clock. */
static int
ends_itself(const struct flows_job *j)
{
	return j->role == ROLE_SEND || j->role == ROLE_RR_CLIENT ||
	       j->role == ROLE_UDP_CLIENT;
}

/* The thread's loop over its flows until each has ended. */
static int
drive(struct flows_job *j)
{
	struct epoll_event ev[FLOWS_EVENTS];
	struct test_ctx *c0 = j->f[0].ctx;
	uint64_t now = clock_ns(), check = now, until;
	int i, n, ms;

	if (j->role == ROLE_RR_CLIENT)
		for (i = 0; i < j->nflows; i++)
			while (j->f[i].inflight < (uint32_t)j->depth &&
			       may_issue(j, &j->f[i]))
				if (issue(j, &j->f[i], now) < 0)
					return -1;
	if (j->role == ROLE_SEND)
		for (i = 0; i < j->nflows; i++)
			want(j, &j->f[i], 1);
	if (j->role == ROLE_UDP_CLIENT)
		for (i = 0; i < j->nflows; i++)
			if (udp_fill(j, &j->f[i], now) < 0)
				return -1;
	j->expired_at = now;
	while (j->open > 0) {
		now = clock_ns();
		if (!j->ending && ends_itself(j) &&
		    (*c0->stop || (j->end_ns != 0 && now >= j->end_ns)))
			begin_end(j);
		/* netserver sending (MAERTS) ends early when the client
		 * asks; it looks every few milliseconds. */
		if (j->role == ROLE_UDP_CLIENT &&
		    now - j->expired_at > 10000000) {
			j->expired_at = now;
			if (udp_expire(j, now) < 0)
				return -1;
		}
		if (!j->ending &&
		    (j->role == ROLE_SEND || j->role == ROLE_UDP_SERVER) &&
		    c0->ctl >= 0 && now - check > 5000000) {
			check = now;
			if (module_stop_requested(c0))
				begin_end(j);
		}
		if (j->end_ns != 0 &&
		    now > j->end_ns + MODULE_HARD_END_SEC * NS_PER_SEC) {
			snprintf(j->err, sizeof(j->err),
				 "%d flows were still open %d s after the end "
				 "of the test",
				 j->open, MODULE_HARD_END_SEC);
			j->rc = -1;
			return -1;
		}
		ms = j->role == ROLE_UDP_CLIENT || j->role == ROLE_UDP_SERVER
			 ? 5
			 : 100;
		if (!j->ending && j->end_ns != 0 && ends_itself(j)) {
			until = j->end_ns > now ? j->end_ns - now : 0;
			if (until < 100000000)
				ms = (int)((until + 999999) / 1000000);
		}
		n = epoll_wait(j->ep, ev, FLOWS_EVENTS, ms);
		if (n < 0 && errno != EINTR) {
			snprintf(j->err, sizeof(j->err), "epoll_wait: %s",
				 strerror(errno));
			j->rc = -1;
			return -1;
		}
		now = clock_ns();
		for (i = 0; i < n; i++) {
			struct flow *f = &j->f[ev[i].data.u32];

			if (f->state == FLOW_DONE)
				continue;
			if ((ev[i].events & EPOLLOUT) && on_writable(j, f) < 0)
				return -1;
			if ((ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
			    on_readable(j, f, now) < 0)
				return -1;
			if (j->ending && f->state == FLOW_RUN &&
			    j->role == ROLE_SEND && f->tosend == 0)
				half_close(j, f);
		}
	}
	return 0;
}

/* The flows' end-of-test figures, as the runner reads them for a
 * stream: TCP_INFO, retransmissions, congestion control, buffers. */
static void
flows_report(struct flows_job *j)
{
	char ignored[ERR_LEN];
	int i, cpu = sched_getcpu();

	if (j->run->topo != NULL)
		cpu = topo_current_cpu(j->run->topo);
	for (i = 0; i < j->nflows; i++) {
		struct test_ctx *c = j->f[i].ctx;
		struct side_result *r = c->r;

		r->cpu_id = cpu;
		if (j->f[i].state != FLOW_DONE) {
			r->elapsed =
			    (double)(clock_ns() - j->run->start_ns) / 1e9;
			__atomic_store_n(&c->done_ns, clock_ns(),
					 __ATOMIC_RELEASE);
		}
		/* A UDP_RR server's interval ends with its last request. */
		if (j->role == ROLE_UDP_SERVER && j->f[i].got > 0)
			r->elapsed =
			    (double)(j->f[i].got - j->run->start_ns) / 1e9;
		sock_get_buffers(c->fd, &r->sndbuf_end, &r->rcvbuf_end);
		if (c->p == NULL || c->transport == NULL ||
		    !transport_has_tcpinfo(c->transport, j->run->m))
			continue;
		sock_tcp_stats(c->fd, &r->mss, &r->retrans);
		if (tcpinfo_read(c->fd, &r->tcpi, ignored) == 0 &&
		    r->tcpi.v[TCPINFO_RETRANS] >= 0)
			r->retrans = (uint32_t)r->tcpi.v[TCPINFO_RETRANS];
		module_cong_of(c->fd, c->p, j->run->is_server, r->cong,
			       sizeof(r->cong));
	}
}

static void *
flows_main(void *arg)
{
	struct flows_job *j = arg;
	struct module_run *run = j->run;
	int bound = 0;

	if (run->places != NULL && run->places[j->t].set != NULL)
		bound =
		    topo_bind_thread(run->topo, &run->places[j->t], j->err) == 0
			? 1
			: -1;
	pthread_mutex_lock(&run->lock);
	run->ready++;
	pthread_cond_broadcast(&run->cond);
	while (!run->go)
		pthread_cond_wait(&run->cond, &run->lock);
	pthread_mutex_unlock(&run->lock);
	if (bound < 0)
		j->rc = -1;
	if (bound >= 0 && !run->abort) {
		j->end_ns = j->f[0].ctx->p->duration > 0
				? run->start_ns +
				      (uint64_t)(j->f[0].ctx->p->duration * 1e9)
				: 0;
		for (int i = 0; i < j->nflows; i++)
			j->f[i].ctx->end_ns = j->end_ns;
		drive(j);
	}
	flows_report(j);
	pthread_mutex_lock(&run->lock);
	__atomic_add_fetch(&run->finished, j->nflows, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&run->cond);
	pthread_mutex_unlock(&run->lock);
	return NULL;
}

static enum flow_role
role_of(const struct module_run *run)
{
	const struct test_module *m = run->m;

	if (m->flow == MODULE_BOTH && m->protocol != IPPROTO_TCP)
		return run->is_server ? ROLE_UDP_SERVER : ROLE_UDP_CLIENT;
	if (m->flow == MODULE_BOTH)
		return run->is_server ? ROLE_RR_SERVER : ROLE_RR_CLIENT;
	if ((m->flow == MODULE_TO_SERVER) == (run->is_server != 0))
		return ROLE_RECV;
	return ROLE_SEND;
}

/* Thread t's flows, its epoll set and its state. */
static int
job_init(struct flows_job *j, struct module_run *run, int t, char *err)
{
	int T = run->threads, i, k;

	j->run = run;
	j->t = t;
	j->ep = -1;
	j->role = role_of(run);
	j->nflows = (run->n - t + T - 1) / T;
	j->depth = j->role == ROLE_RR_CLIENT || j->role == ROLE_UDP_CLIENT
		       ? run->ctx[t].p->burst + 1
		       : 1;
	{
		const struct test_params *p = run->ctx[t].p;
		j->taglen = module_udp_tag_len(&run->ctx[t]);
		/* -e, or 3 s (the adaptive rule's ceiling): thousands of
		 * flows wait their turn far longer than a round trip, and an
		 * adaptive time-out learns only from answers in time, so it
		 * would give up on every late one and send again. */
		module_rto_init(&j->rto, p->rto > 0 ? p->rto : 3.0);
	}
	/* The thread's buffer is its first flow's: the caller gave the
	 * first T contexts one each, and the others none. */
	j->buf = run->ctx[t].buf;
	j->buflen = run->ctx[t].buflen;
	j->hist = run->ctx[t].hist;
	j->f = calloc((size_t)j->nflows, sizeof(*j->f));
	j->stamps =
	    calloc((size_t)j->nflows * (size_t)j->depth, sizeof(*j->stamps));
	j->tags =
	    calloc((size_t)j->nflows * (size_t)j->depth, sizeof(*j->tags));
	if (j->f == NULL || j->stamps == NULL || j->tags == NULL)
		return err_set(err, "out of memory");
	if (j->buf == NULL || j->buflen == 0)
		return err_set(err, "flows: thread %d has no buffer", t);
	j->ep = epoll_create1(EPOLL_CLOEXEC);
	if (j->ep < 0)
		return err_set(err, "epoll_create1: %s", strerror(errno));
	for (i = 0, k = t; k < run->n; i++, k += T) {
		struct epoll_event ev = {.events = EPOLLIN};

		j->f[i].ctx = &run->ctx[k];
		run->ctx[k].watched = 0;
		run->ctx[k].r->mss = -1;
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(j->ep, EPOLL_CTL_ADD, run->ctx[k].fd, &ev) < 0)
			return err_set(err, "epoll_ctl: %s", strerror(errno));
	}
	j->open = j->nflows;
	return 0;
}

static void
jobs_free(struct module_run *run)
{
	struct flows_job *jobs = run->flows;
	int t;

	for (t = 0; jobs != NULL && t < run->threads; t++) {
		if (jobs[t].ep >= 0)
			close(jobs[t].ep);
		free(jobs[t].f);
		free(jobs[t].stamps);
		free(jobs[t].tags);
	}
	free(jobs);
	run->flows = NULL;
}

int
flows_start(struct module_run *run, pthread_t *tids, char *err)
{
	struct flows_job *jobs;
	int t, started = 0;

	jobs = calloc((size_t)run->threads, sizeof(*jobs));
	run->flows = jobs;
	if (jobs == NULL) {
		err_set(err, "out of memory");
		run->abort = 1;
		return 0;
	}
	for (t = 0; t < run->threads; t++)
		jobs[t].ep = -1;
	for (t = 0; t < run->threads; t++)
		if (job_init(&jobs[t], run, t, err) < 0) {
			run->abort = 1;
			return 0;
		}
	for (t = 0; t < run->threads; t++) {
		if (pthread_create(&tids[t], NULL, flows_main, &jobs[t]))
			break;
		started++;
	}
	return module_threads_ready(run, started, run->threads, "flow", err);
}

int
flows_finish(struct module_run *run, char *err)
{
	struct flows_job *jobs = run->flows;
	int t, rc = 0;

	for (t = 0; jobs != NULL && t < run->threads; t++)
		if (jobs[t].rc < 0) {
			err_set(err, "%s", jobs[t].err);
			rc = -1;
			break;
		}
	jobs_free(run);
	return rc;
}

int
flows_connect(const struct sockaddr *sa, socklen_t salen,
	      const struct addrinfo *local, struct sock_setup *setup,
	      const unsigned char *token, size_t len, int n, int *fds,
	      int timeout_ms, char *err)
{
	struct pollfd pfd[FLOWS_CONNECT_WINDOW];
	uint64_t until[FLOWS_CONNECT_WINDOW], now;
	int who[FLOWS_CONNECT_WINDOW], npend = 0, next = 0, done = 0, k;
	char why[ERR_LEN];
	socklen_t elen;
	int soerr, rc;
	ssize_t sent;

	while (done < n) {
		/* Keep the window full: each connect returns at once. */
		while (npend < FLOWS_CONNECT_WINDOW && next < n) {
			fds[next] = sock_connect_addr(sa, salen, SOCK_STREAM,
						      local, setup, -1, why);
			if (fds[next] < 0)
				return err_set(err, "data connection %d: %s",
					       next, why);
			who[npend] = next++;
			until[npend++] =
			    clock_ns() + (uint64_t)timeout_ms * 1000000;
		}
		for (k = 0; k < npend; k++)
			pfd[k] = (struct pollfd){.fd = fds[who[k]],
						 .events = POLLOUT};
		rc = poll(pfd, (nfds_t)npend, 100);
		if (rc < 0 && errno != EINTR)
			return err_set(err, "poll: %s", strerror(errno));
		now = clock_ns();
		/* Backwards: the last entry moves into a finished one's
		 * place, and it has been looked at already. */
		for (k = npend - 1; k >= 0; k--) {
			if (rc > 0 && pfd[k].revents != 0) {
				soerr = 0;
				elen = sizeof(soerr);
				if (getsockopt(pfd[k].fd, SOL_SOCKET, SO_ERROR,
					       &soerr, &elen) < 0)
					soerr = errno;
				if (soerr != 0)
					return err_set(err,
						       "data connection %d: "
						       "%s",
						       who[k], strerror(soerr));
				/* A new connection's send buffer is empty:
				 * the token goes in one call. */
				sent = send(pfd[k].fd, token, len,
					    MSG_NOSIGNAL | MSG_DONTWAIT);
				if (sent != (ssize_t)len)
					return err_set(err,
						       "data connection %d: "
						       "send: %s",
						       who[k],
						       sent < 0
							   ? strerror(errno)
							   : "short send");
			} else if (now < until[k]) {
				continue;
			} else {
				return err_set(err, "data connection %d: %s",
					       who[k], strerror(ETIMEDOUT));
			}
			done++;
			npend--;
			who[k] = who[npend];
			until[k] = until[npend];
		}
	}
	return 0;
}
