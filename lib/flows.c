/* Flows on threads: many data connections a thread, from one epoll set. */
#include "np/flows.h"

#include <errno.h>
#include <fcntl.h>
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

#include "np/auth.h"
#include "np/clock.h"
#include "np/be.h"
#include "np/err.h"
#include "np/gone.h"
#include "np/mix.h"
#include "np/rr_open.h"
#include "np/sock.h"
#include "np/streams.h"
#include "np/tcpinfo.h"
#include "np/transport.h"
#include "np/udp_crr.h"

/* What a flow does on this end. */
enum flow_role {
	ROLE_RR_CLIENT,	 /* sends requests, reads responses */
	ROLE_RR_SERVER,	 /* reads requests, sends responses */
	ROLE_SEND,	 /* sends until the end, then half-closes */
	ROLE_RECV,	 /* reads until the peer half-closes */
	ROLE_UDP_CLIENT, /* UDP_RR: tagged requests, lost ones timed out */
	ROLE_UDP_SERVER, /* UDP_RR: answers until the client's "stop" */
	ROLE_CRR_CLIENT, /* TCP_CRR: a connection a transaction */
	ROLE_CRR_SERVER, /* TCP_CRR: the thread's connections, accepted */
	ROLE_UDP_CRR_CLIENT, /* UDP_CRR: a socket a transaction */
	ROLE_UDP_CRR_SERVER, /* UDP_CRR: a flow's socket, its senders */
};

enum flow_state { FLOW_RUN, FLOW_CLOSING, FLOW_DONE };

/* Where a CRR client's flow is in its transaction. */
enum { CRR_IDLE, CRR_CONNECTING, CRR_TOKEN, CRR_ANSWER };

/* One flow's state, owned by its thread. */
struct flow {
	struct test_ctx *ctx;
	uint64_t tosend; /* bytes owed to the socket */
	uint64_t got;	 /* bytes of the message being read */
	uint64_t sent;	 /* requests sent (a counted RR test) */
	uint64_t last;	 /* an RR client's last answer, 0 before the first */
	uint32_t head, inflight;
	/* A mix over TCP: the client's bytes left of the request being
	 * written, and the slot of the next one to begin (mix_chunk). */
	uint32_t wleft, wnext;
	int sock; /* a CRR client's transaction's socket, -1 for none */
	uint8_t state, want_out;
	uint8_t phase;	/* CRR_*, a CRR client's */
	uint8_t queued; /* in its thread's queue of due times */
	/* A mix over TCP: the class of the request being written (the
	 * client) or read (the server). */
	uint8_t cls;
};

/* A connection a TCP_CRR server's thread accepted: its token and
 * request as they come, then its answer. */
struct crr_conn {
	int fd; /* -1: a free slot */
	uint32_t got;
	uint64_t tosend, since;
	unsigned char tok[AUTH_TOKEN_LEN];
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
	struct gone gone; /* UDP_RR's given up on, answers still awaited */
	struct module_rto rto;
	uint64_t expired_at;
	struct stats_hist *hist, *svc_hist;
	/* A request mix (-r W%REQ[,RSP]/...), NULL for none: each request
	 * carries its class in a byte (np/mix.h), whose sizes both ends
	 * take. netperf keeps each flow's requests' classes in flight
	 * (depth a flow, beside stamps and tags), each flow's counts in
	 * its context's mix, and the classes' round trips in the thread's
	 * histograms (its first flow's context's mix_hist); netserver reads
	 * the class of each request and answers with its class's size. */
	const struct mix *mix;
	uint8_t *cls;
	struct stats_hist *mix_hist;
	/* The open loop (--rate, --timeout, --reconnect): each flow's
	 * pacer, the flows waiting for their next intended send time as a
	 * heap (earliest first), and the thread's waiter; NULL, closed. */
	struct rr_pacer **pc;
	uint64_t *hkey;
	uint32_t *hidx;
	int hn;
	struct rr_waiter *w;
	/* CRR clients: each transaction's socket options. */
	struct sock_setup setup;
	/* TCP_CRR's server: the listener all flows share, whether this
	 * thread's epoll set holds it, and the connections it accepted. */
	int lfd, listening;
	struct crr_conn *conns;
	int *cfree, ncap, ncfree;
	uint64_t conns_at;
	/* UDP_CRR's server: each flow's sender awaited. */
	struct sockaddr_storage *pend;
	socklen_t *pendlen;
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
/* epoll's tags besides a flow's index: TCP_CRR's listener, and its
 * accepted connections (the slot's index below the bit). */
#define FLOWS_TAG_LISTENER UINT32_MAX
#define FLOWS_TAG_CONN 0x80000000u
/* A TCP_CRR server's connection silent this long is dropped, as the
 * thread-a-stream server's socket time-out drops it. */
#define FLOWS_CONN_IDLE_NS (1000 * 1000000ULL)

/* The runner's context and counts on this side (the client keeps the
 * peer's too), the descriptor and port slots, a place and its CPU set,
 * this file's state with one send time, the guard's slot, TCP_CRR's two
 * connection slots or UDP_CRR's sender, with room for the allocator's
 * headers: the bound the man page states. */
_Static_assert(sizeof(struct test_ctx) + 2 * sizeof(struct side_result) +
		       sizeof(struct topo_place) + sizeof(struct flow) +
		       2 * sizeof(uint64_t) + 4 * sizeof(int) +
		       2 * (sizeof(struct crr_conn) + sizeof(int)) +
		       sizeof(struct sockaddr_storage) + sizeof(socklen_t) +
		       1024 <=
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
	if (module_has(m, MODULE_F_NO_DATA) ||
	    (m->flow == MODULE_BOTH) != module_is_rr(m) ||
	    (m->protocol != IPPROTO_TCP && !module_is_rr(m)))
		return err_set(err,
			       "--threads: %s runs a thread a stream; flows "
			       "on fewer threads are for TCP_RR, TCP_CRR, "
			       "TCP_STREAM, TCP_MAERTS, UDP_RR and UDP_CRR",
			       m->name);
	if (m->client == NULL || m->server == NULL || p->bidir || p->zerocopy ||
	    p->splice || p->skip_rx_copy || p->interval_burst > 0 ||
	    p->use_write || p->lport_max > 0 || p->retry_connect)
		return err_set(err, "--threads with fewer threads than "
				    "streams takes none of --bidir, "
				    "--zerocopy, -V, --skip-rx-copy, -w/-b "
				    "pacing, -I, or TCP_CRR's -p and -U");
	/* The stamps and the bulk flows are the thread-a-stream loops'
	 * (oneway.c, tstamp.c, underload.c). */
	if (p->one_way || p->timestamps || p->load_up > 0 || p->load_down > 0)
		return err_set(err, "--threads with fewer threads than "
				    "streams takes none of --one-way, "
				    "--timestamps or --under-load");
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

/* The flow's socket: its connection, or a CRR client's transaction's. */
static int
flow_fd(const struct flow *f)
{
	return f->sock >= 0 ? f->sock : f->ctx->fd;
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
	epoll_ctl(j->ep, EPOLL_CTL_MOD, flow_fd(f), &ev);
}

/* The flow's end on this side: counted as the runner's loops count it. */
static void
flow_done(struct flows_job *j, struct flow *f, uint64_t now)
{
	struct module_run *run = j->run;
	struct side_result *r = f->ctx->r;

	/* An RR client's interval ends with its last answer: closing ten
	 * thousand connections after it is no more part of the measured
	 * interval than opening them was. */
	if (j->role == ROLE_RR_CLIENT && f->last > run->start_ns)
		now = f->last;
	f->state = FLOW_DONE;
	j->open--;
	if (f->sock >= 0) {
		close(f->sock);
		f->sock = -1;
	} else if (j->role != ROLE_CRR_SERVER &&
		   j->role != ROLE_CRR_CLIENT &&
		   j->role != ROLE_UDP_CRR_CLIENT) {
		epoll_ctl(j->ep, EPOLL_CTL_DEL, f->ctx->fd, NULL);
	}
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
	shutdown(flow_fd(f), SHUT_WR);
	want(j, f, 0);
}

static int broken(struct flows_job *j, struct flow *f, uint64_t now);
static void pace(struct flows_job *j, struct flow *f, uint64_t now);

/* Whether a connection error ends the flow, counted (the open loop's
 * and the CRR clients'), rather than the test. */
static int
counts_errors(const struct flows_job *j)
{
	return j->role == ROLE_CRR_CLIENT || j->role == ROLE_UDP_CRR_CLIENT ||
	       ((j->role == ROLE_RR_CLIENT || j->role == ROLE_UDP_CLIENT) &&
		j->pc != NULL);
}

/* The flow's class slot i: its requests' classes in flight. */
static uint8_t *
cls_at(const struct flows_job *j, const struct flow *f, uint32_t i)
{
	return &j->cls[(size_t)(f - j->f) * (size_t)j->depth + i];
}

/* Whether the flow's writes are a mix's requests (over TCP), which go
 * one at a time with their class in their first byte, as rr.c's loop
 * sends them: the thread's buffer serves every write, so the byte is put
 * there as its request starts. */
static int
writes_classes(const struct flows_job *j)
{
	return j->mix != NULL && j->role == ROLE_RR_CLIENT;
}

/* At most len bytes of the request being written: the next one begins
 * where the last ended, its class byte put in the buffer. */
static size_t
mix_chunk(struct flows_job *j, struct flow *f, size_t len)
{
	if (f->wleft == 0) {
		f->cls = *cls_at(j, f, f->wnext);
		f->wnext = (f->wnext + 1) % (uint32_t)j->depth;
		f->wleft = (uint32_t)j->mix->c[f->cls].req;
	}
	if (f->wleft == (uint64_t)j->mix->c[f->cls].req)
		j->buf[mix_class_off(0)] = (char)f->cls;
	return len < f->wleft ? len : f->wleft;
}

/* Writes what the flow owes; returns 0, or -1 on failure. */
static int
flush(struct flows_job *j, struct flow *f)
{
	ssize_t n;
	size_t len;

	while (f->tosend > 0) {
		len = f->tosend < j->buflen ? (size_t)f->tosend : j->buflen;
		if (writes_classes(j))
			len = mix_chunk(j, f, len);
		n = send(flow_fd(f), j->buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			f->tosend -= (uint64_t)n;
			if (writes_classes(j))
				f->wleft -= (uint32_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			want(j, f, 1);
			return 0;
		}
		if (n < 0 && (errno == ECONNRESET || errno == EPIPE) &&
		    counts_errors(j))
			return broken(j, f, clock_ns());
		return fail(j, f, "data connection: send", errno);
	}
	want(j, f, 0);
	return 0;
}

/* A mix's client: the class of the flow's next request, drawn from the
 * flow's own draws (on the open loop, by its pacer, which keeps it with
 * the request), counted, and written after a tag of taglen bytes in the
 * thread's buffer. */
static int
class_draw(struct flows_job *j, struct flow *f, size_t taglen)
{
	struct test_ctx *c = f->ctx;

	if (j->pc != NULL)
		return rr_pacer_pick(j->pc[f - j->f], j->buf, taglen);
	return mix_request(j->mix, c->mix, &c->mix_rng, j->buf,
			   mix_class_off(taglen));
}

/* A mix's client: the answer of bytes to the flow's request in slot i,
 * ns after it was sent: its class's bytes and, on the closed loop, its
 * transaction and round trip (on the open loop its pacer counts those,
 * from the intended send time). */
static void
class_answered(struct flows_job *j, struct flow *f, uint32_t i, uint64_t bytes,
	       uint64_t ns)
{
	int c = *cls_at(j, f, i);

	if (j->pc != NULL)
		f->ctx->mix[c].bytes_recv += bytes;
	else
		mix_answer(f->ctx->mix, j->mix_hist, c, bytes, ns);
}

/* The response size of the flow's request in slot i. */
static uint64_t
rsp_of(const struct flows_job *j, const struct flow *f, uint32_t i)
{
	if (j->mix == NULL)
		return (uint64_t)f->ctx->p->rsp_size;
	return (uint64_t)j->mix->c[*cls_at(j, f, i)].rsp;
}

/* An RR client's next request, stamped now (on the open loop, its
 * pacer takes its intended time). */
static int
issue(struct flows_job *j, struct flow *f, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	size_t k = (size_t)(f - j->f);
	uint64_t *st = j->stamps + k * (size_t)j->depth;
	uint32_t slot = (f->head + f->inflight) % (uint32_t)j->depth;
	uint64_t req = (uint64_t)p->req_size;
	int rc, c;

	if (j->mix != NULL) {
		/* The class byte goes into the buffer as the request is
		 * written (mix_chunk). */
		c = class_draw(j, f, 0);
		*cls_at(j, f, slot) = (uint8_t)c;
		req = (uint64_t)j->mix->c[c].req;
		f->ctx->mix[c].bytes_sent += req;
	}
	if (j->pc != NULL)
		rr_pacer_sent(j->pc[k], now);
	else
		st[slot] = now;
	f->inflight++;
	f->sent++;
	f->tosend += req;
	r->bytes_sent += req;
	r->send_calls++;
	rc = flush(j, f);
	if (rc == 0 && j->pc != NULL && f->state == FLOW_RUN)
		pace(j, f, now);
	return rc;
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
	struct side_result *r = f->ctx->r;
	uint64_t rsp;
	size_t k = (size_t)(f - j->f);
	uint64_t *st = j->stamps + k * (size_t)j->depth;
	uint32_t at;

	if (f->state != FLOW_RUN)
		return fail(j, f, "the peer sent more than it was asked", 0);
	f->got += n;
	while (f->inflight > 0 && f->got >= (rsp = rsp_of(j, f, f->head))) {
		f->got -= rsp;
		f->inflight--;
		f->last = now;
		r->bytes_recv += rsp;
		at = f->head;
		f->head = (f->head + 1) % (uint32_t)j->depth;
		if (f->ctx->mix != NULL)
			class_answered(j, f, at, rsp, now - st[at]);
		if (j->pc != NULL) {
			/* Counted from its intended send time. */
			rr_pacer_answered(j->pc[k], now);
			continue;
		}
		if (j->hist != NULL)
			stats_hist_add(j->hist, now - st[at]);
		r->trans++;
		if (may_issue(j, f) && issue(j, f, now) < 0)
			return -1;
	}
	if (f->got > 0 && f->inflight == 0)
		return fail(j, f, "the peer sent more than it was asked", 0);
	if (j->pc != NULL)
		pace(j, f, now);
	/* Nothing in flight and nothing more to ask: done. */
	if (f->inflight == 0 && (j->pc == NULL || !f->queued))
		half_close(j, f);
	return 0;
}

/* An RR server's whole request of req bytes: counted, and its answer of
 * rsp bytes owed. */
static int
rr_serve(struct flows_job *j, struct flow *f, uint64_t req, uint64_t rsp)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;

	if (f->ctx->end_ns == 0 && p->count > 0 &&
	    r->trans >= (uint64_t)p->count)
		return fail(j, f,
			    "the peer asked for more than the transactions "
			    "of the test",
			    0);
	r->bytes_recv += req;
	r->trans++;
	r->bytes_sent += rsp;
	r->send_calls++;
	f->tosend += rsp;
	return 0;
}

/* A mix's requests in the n bytes at the thread's buffer: the first byte
 * of each names its class, and so its size and its answer's (rr.c's
 * mix_recv_req, read as the bytes come). */
static int
mix_requests(struct flows_job *j, struct flow *f, size_t n)
{
	const struct mix *m = j->mix;
	const char *b = j->buf;
	char what[64];
	uint64_t need;
	int c;

	while (n > 0) {
		if (f->got == 0) {
			c = mix_class_of(m, b, n, mix_class_off(0), 0);
			if (c < 0) {
				snprintf(what, sizeof(what),
					 "a request names class %u; the mix "
					 "has %d",
					 (unsigned char)b[0], m->n);
				return fail(j, f, what, 0);
			}
			f->cls = (uint8_t)c;
		}
		need = (uint64_t)m->c[f->cls].req - f->got;
		if (need > n)
			need = n;
		f->got += need;
		b += need;
		n -= (size_t)need;
		if (f->got < (uint64_t)m->c[f->cls].req)
			break;
		f->got = 0;
		if (rr_serve(j, f, (uint64_t)m->c[f->cls].req,
			     (uint64_t)m->c[f->cls].rsp) < 0)
			return -1;
	}
	return 0;
}

/* An RR server's bytes of requests: each whole one is answered. */
static int
rr_server_read(struct flows_job *j, struct flow *f, size_t n, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	uint64_t req = (uint64_t)p->req_size;

	if (j->mix != NULL) {
		if (mix_requests(j, f, n) < 0)
			return -1;
	} else {
		f->got += n;
		for (; f->got >= req; f->got -= req)
			if (rr_serve(j, f, req, (uint64_t)p->rsp_size) < 0)
				return -1;
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

/* A UDP_RR client's request, tagged, sent now; on the open loop its
 * pacer takes its intended time. */
static int
udp_send_one(struct flows_job *j, struct flow *f, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	size_t k = (size_t)(f - j->f), base = k * (size_t)j->depth;
	uint64_t mask =
	    j->taglen == 8 ? UINT64_MAX : ((1ULL << (8 * j->taglen)) - 1);
	size_t req = (size_t)p->req_size;
	ssize_t n;
	int c = 0;

	ben_put(j->buf, f->sent + 1, j->taglen);
	if (j->mix != NULL) {
		c = class_draw(j, f, j->taglen);
		req = (size_t)j->mix->c[c].req;
	}
	n = send(f->ctx->fd, j->buf, req, MSG_DONTWAIT);
	if (n < 0 && errno == ECONNREFUSED)
		return counts_errors(j)
			   ? broken(j, f, now)
			   : fail(j, f, "netserver's data socket is gone",
				  ECONNREFUSED);
	if (n < 0) {
		r->send_errors++; /* it will time out */
	} else {
		r->bytes_sent += (uint64_t)n;
		r->send_calls++;
		if (f->ctx->mix != NULL)
			f->ctx->mix[c].bytes_sent += (uint64_t)n;
	}
	if (j->pc != NULL)
		rr_pacer_sent(j->pc[k], now);
	if (j->cls != NULL)
		j->cls[base + f->inflight] = (uint8_t)c;
	j->tags[base + f->inflight] = (f->sent + 1) & mask;
	j->stamps[base + f->inflight] = now;
	f->inflight++;
	f->sent++;
	return 0;
}

/* A UDP_RR client's requests, up to the depth in flight (on the open
 * loop, queued for the next one's time). */
static int
udp_fill(struct flows_job *j, struct flow *f, uint64_t now)
{
	if (j->pc != NULL) {
		if (f->state != FLOW_RUN)
			return 0;
		pace(j, f, now);
		if (f->inflight == 0 && !f->queued)
			udp_done(j, f, now);
		return 0;
	}
	while (f->state == FLOW_RUN && f->inflight < (uint32_t)j->depth &&
	       may_issue(j, f))
		if (udp_send_one(j, f, now) < 0)
			return -1;
	/* Ended (or counted out) with every answer in: done. */
	if (f->state == FLOW_RUN && f->inflight == 0 && !may_issue(j, f))
		udp_done(j, f, now);
	return 0;
}

/* A UDP_RR client's request in flight at from takes the place of the
 * one at to, which is gone: the pacer's order (rr_pacer_answered_at). */
static void
slot_move(struct flows_job *j, size_t to, size_t from)
{
	j->tags[to] = j->tags[from];
	j->stamps[to] = j->stamps[from];
	if (j->cls != NULL)
		j->cls[to] = j->cls[from];
}

/* A UDP_RR datagram of n bytes in the thread's buffer. */
static int
udp_datagram(struct flows_job *j, struct flow *f, size_t n, uint64_t now)
{
	struct test_ctx *c = f->ctx;
	struct side_result *r = c->r;
	size_t base = (size_t)(f - j->f) * (size_t)j->depth;
	size_t rsp = (size_t)c->p->rsp_size;
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
		/* A mix's request says its class, and so its answer's
		 * size; one that names none, or is not its class's size,
		 * is no request of the test's and goes unanswered (rr.c's
		 * udp_rr_serve_one). */
		if (j->mix != NULL) {
			int k = mix_class_of(j->mix, j->buf, n,
					     mix_class_off(j->taglen), 1);

			if (k < 0)
				return 0;
			rsp = (size_t)j->mix->c[k].rsp;
		}
		r->bytes_recv += n;
		f->got = now; /* the last request, which ends its interval */
		/* The request's tag is still at the start of the buffer. */
		if (send(c->fd, j->buf, rsp, MSG_DONTWAIT) < 0) {
			r->send_errors++;
		} else {
			r->bytes_sent += (uint64_t)rsp;
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
	if (n < j->taglen) {
		r->dups++;
		return 0;
	}
	if (i == f->inflight) {
		/* The answer to one given up on, or a copy. */
		int was = gone_take(&j->gone, (uint32_t)(f - j->f), tag);

		if (was < 0) {
			r->dups++;
			return 0;
		}
		r->late++;
		if (c->mix != NULL)
			c->mix[was].late++;
		return 0;
	}
	rtt = now - j->stamps[base + i];
	if (c->mix != NULL)
		class_answered(j, f, i, n, rtt);
	if (j->pc != NULL) {
		/* Counted from its intended send time. */
		rr_pacer_answered_at(j->pc[f - j->f], (int)i, now);
	} else {
		r->trans++;
		if (j->hist != NULL)
			stats_hist_add(j->hist, rtt);
	}
	f->inflight--;
	slot_move(j, base + i, base + f->inflight);
	r->bytes_recv += n;
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
			/* A time-out under --timeout, else lost; its
			 * answer, should it come, is late. */
			gone_add(&j->gone, (uint32_t)k, j->tags[base + i],
				 j->cls != NULL ? j->cls[base + i] : 0, now);
			if (j->pc != NULL)
				rr_pacer_lost_at(j->pc[k], (int)i);
			else
				f->ctx->r->lost++;
			f->inflight--;
			slot_move(j, base + i, base + f->inflight);
		}
		if (udp_fill(j, f, now) < 0)
			return -1;
	}
	return 0;
}

/* The open loop's queue of flows by their next intended send time: a
 * binary heap, earliest first. */
static void
heap_push(struct flows_job *j, struct flow *f, uint64_t key)
{
	int i = j->hn++, up;

	while (i > 0) {
		up = (i - 1) / 2;
		if (j->hkey[up] <= key)
			break;
		j->hkey[i] = j->hkey[up];
		j->hidx[i] = j->hidx[up];
		i = up;
	}
	j->hkey[i] = key;
	j->hidx[i] = (uint32_t)(f - j->f);
	f->queued = 1;
}

static struct flow *
heap_pop(struct flows_job *j)
{
	struct flow *f = &j->f[j->hidx[0]];
	uint64_t key;
	uint32_t idx;
	int i = 0, c;

	j->hn--;
	key = j->hkey[j->hn];
	idx = j->hidx[j->hn];
	while (j->hn > 0 && (c = 2 * i + 1) < j->hn) {
		if (c + 1 < j->hn && j->hkey[c + 1] < j->hkey[c])
			c++;
		if (key <= j->hkey[c])
			break;
		j->hkey[i] = j->hkey[c];
		j->hidx[i] = j->hidx[c];
		i = c;
	}
	if (j->hn > 0) {
		j->hkey[i] = key;
		j->hidx[i] = idx;
	}
	f->queued = 0;
	return f;
}

/* Queues an open-loop flow for its next request's intended send time,
 * when it may send one (a slot free, the test not over). */
static void
pace(struct flows_job *j, struct flow *f, uint64_t now)
{
	uint64_t due;

	if (f->queued || f->state != FLOW_RUN || j->ending)
		return;
	if (j->role == ROLE_CRR_CLIENT || j->role == ROLE_UDP_CRR_CLIENT) {
		if (f->phase != CRR_IDLE)
			return;
	}
	due = rr_pacer_due(j->pc[f - j->f], now);
	if (due != UINT64_MAX)
		heap_push(j, f, due);
}

static int crr_begin(struct flows_job *j, struct flow *f, uint64_t now);

/* A CRR client's flow between transactions: its socket closed; on the
 * open loop queued for its next one; done when the test is over for it.
 * A closed loop's flow idle here waits for the scan (crr_scan) to start
 * it again. */
static void
crr_idle(struct flows_job *j, struct flow *f, uint64_t now)
{
	if (f->sock >= 0) {
		close(f->sock); /* which takes it out of the epoll set */
		f->sock = -1;
	}
	f->phase = CRR_IDLE;
	f->inflight = 0;
	f->want_out = 0;
	f->tosend = 0;
	if (f->state != FLOW_RUN)
		return;
	if (j->pc != NULL)
		pace(j, f, now);
	if (j->ending || (j->pc != NULL && !f->queued) ||
	    (j->pc == NULL && !may_issue(j, f)))
		flow_done(j, f, now);
}

/* The transaction is over: the flow's next begins (on the closed loop at
 * once, on the open one at its time). */
static int
crr_next(struct flows_job *j, struct flow *f, uint64_t now)
{
	crr_idle(j, f, now);
	if (f->state == FLOW_RUN && j->pc == NULL)
		return crr_begin(j, f, now);
	return 0;
}

/* A CRR client's transaction got no answer in time, or found no local
 * port: lost (a time-out under --timeout). */
static void
crr_lost(struct flows_job *j, struct flow *f, uint64_t now)
{
	if (j->pc != NULL)
		rr_pacer_lost(j->pc[f - j->f]);
	else
		f->ctx->r->lost++;
	crr_idle(j, f, now);
}

/* A CRR client's transaction failed on its connection (refused, reset,
 * closed before the answer): counted; with --reconnect the flow goes on,
 * else it ends, and the test goes on. */
static int
crr_broken(struct flows_job *j, struct flow *f, uint64_t now)
{
	struct side_result *r = f->ctx->r;

	if (j->pc != NULL) {
		rr_pacer_failed(j->pc[f - j->f]);
	} else {
		r->errors++;
		r->lost += f->inflight;
	}
	f->inflight = 0;
	if (!f->ctx->p->reconnect && f->state == FLOW_RUN) {
		r->ended++;
		if (f->sock >= 0) {
			close(f->sock);
			f->sock = -1;
		}
		flow_done(j, f, now);
		return 0;
	}
	crr_idle(j, f, now);
	return 0;
}

static int
broken(struct flows_job *j, struct flow *f, uint64_t now)
{
	if (j->role == ROLE_CRR_CLIENT || j->role == ROLE_UDP_CRR_CLIENT)
		return crr_broken(j, f, now);
	/* UDP_RR with --reconnect: counted, and the flow goes on sending
	 * (its requests in flight time out), as a thread-a-stream one. */
	if (j->role == ROLE_UDP_CLIENT && f->ctx->p->reconnect) {
		f->ctx->r->errors++;
		return 0;
	}
	/* An open-loop RR flow ends on its connection's error, counted;
	 * the others go on. */
	rr_pacer_failed(j->pc[f - j->f]);
	f->ctx->r->ended++;
	f->inflight = 0;
	flow_done(j, f, now);
	return 0;
}

/* A CRR client's flow begins a transaction: a new connection (over UDP
 * a new socket, so a new source port) and the test's token on it. */
static int
crr_begin(struct flows_job *j, struct flow *f, uint64_t now)
{
	struct test_ctx *c = f->ctx;
	size_t k = (size_t)(f - j->f);
	int udp = j->role == ROLE_UDP_CRR_CLIENT;
	struct epoll_event ev = {.events = EPOLLIN | (udp ? 0 : EPOLLOUT)};
	char why[ERR_LEN];
	int fd;

	if (j->pc != NULL)
		rr_pacer_sent(j->pc[k], now);
	j->stamps[k] = now;
	f->sent++;
	f->inflight = 1;
	f->got = 0;
	f->tosend = 0;
	fd = sock_connect_addr((struct sockaddr *)&c->peer, c->peerlen,
			       udp ? SOCK_DGRAM : SOCK_STREAM, NULL, &j->setup,
			       -1, why);
	if (fd < 0) {
		/* Out of local ports or buffers for a moment: the
		 * transaction is lost, the flow tries again. */
		if (errno == EADDRNOTAVAIL || errno == EADDRINUSE ||
		    errno == ENOBUFS || errno == ENOMEM) {
			c->r->send_errors++;
			crr_lost(j, f, now);
			return 0;
		}
		if (errno == ECONNREFUSED || errno == ECONNRESET)
			return crr_broken(j, f, now);
		if (j->rc == 0) {
			j->rc = -1;
			snprintf(j->err, sizeof(j->err), "flow %d: %.200s",
				 (int)(c - j->run->ctx), why);
		}
		return -1;
	}
	f->sock = fd;
	f->want_out = (uint8_t)!udp;
	ev.data.u32 = (uint32_t)k;
	if (epoll_ctl(j->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		return fail(j, f, "epoll_ctl", errno);
	if (!udp) {
		f->phase = CRR_CONNECTING;
		return 0;
	}
	if (send(fd, c->token, AUTH_TOKEN_LEN, MSG_DONTWAIT) !=
	    AUTH_TOKEN_LEN)
		c->r->send_errors++; /* it will time out */
	f->phase = CRR_TOKEN;
	return 0;
}

/* A CRR client's transaction answered at now: counted, and the next. */
static int
crr_answered(struct flows_job *j, struct flow *f, uint64_t now)
{
	size_t k = (size_t)(f - j->f);

	if (j->pc != NULL) {
		rr_pacer_answered(j->pc[k], now);
	} else {
		f->ctx->r->trans++;
		if (j->hist != NULL)
			stats_hist_add(j->hist, now - j->stamps[k]);
	}
	f->inflight = 0;
	return crr_next(j, f, now);
}

/* TCP_CRR's client: the connection made, the token and the request
 * sent, the answer read, and netserver's close, which it makes first so
 * that TIME_WAIT stays on its side. */
static int
crr_event(struct flows_job *j, struct flow *f, uint32_t events, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	uint64_t rsp = (uint64_t)p->rsp_size;
	socklen_t elen = sizeof(int);
	char why[ERR_LEN];
	int soerr = 0, i;
	ssize_t n;

	if (f->phase == CRR_CONNECTING) {
		if (getsockopt(f->sock, SOL_SOCKET, SO_ERROR, &soerr, &elen) <
		    0)
			soerr = errno;
		if (soerr == 0 && !(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return 0;
		if (soerr != 0 || (events & (EPOLLERR | EPOLLHUP)))
			return crr_broken(j, f, now);
		if (p->nodelay)
			sock_set_nodelay(f->sock, 1, why);
		/* A new connection's send buffer is empty: the token goes
		 * in one call. */
		n = send(f->sock, f->ctx->token, AUTH_TOKEN_LEN,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n != AUTH_TOKEN_LEN)
			return crr_broken(j, f, now);
		f->phase = CRR_ANSWER;
		f->tosend = (uint64_t)p->req_size;
		r->bytes_sent += (uint64_t)p->req_size;
		if (p->req_size > 0)
			r->send_calls++;
		return flush(j, f);
	}
	if ((events & EPOLLOUT) && f->tosend > 0 && flush(j, f) < 0)
		return -1;
	if (f->sock < 0 || !(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return 0;
	for (i = 0; i < FLOWS_CALLS_PER_EVENT; i++) {
		n = recv(f->sock, j->buf, j->buflen, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return crr_broken(j, f, now);
		if (n == 0) {
			if (f->got == rsp && f->tosend == 0) {
				r->bytes_recv += rsp;
				return crr_answered(j, f, now);
			}
			return crr_broken(j, f, now);
		}
		r->recv_calls++;
		f->got += (uint64_t)n;
		if (f->got > rsp)
			return fail(j, f, "netserver sent more than asked", 0);
	}
	return 0;
}

/* UDP_CRR's client: the token's echo, then the request, then its
 * answer. */
static int
udp_crr_event(struct flows_job *j, struct flow *f, uint64_t now)
{
	const struct test_params *p = f->ctx->p;
	struct side_result *r = f->ctx->r;
	int i, is_token;
	ssize_t n;

	for (i = 0; i < FLOWS_CALLS_PER_EVENT && f->sock >= 0; i++) {
		n = recv(f->sock, j->buf, j->buflen, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0 && errno == ECONNREFUSED)
			return crr_broken(j, f, now); /* netserver's socket */
		if (n < 0)
			return fail(j, f, "data socket: recv", errno);
		is_token = module_udp_token(f->ctx, j->buf, (size_t)n, 0);
		if (f->phase == CRR_TOKEN && is_token) {
			if (j->pc == NULL)
				r->requests++; /* else the pacer counted it */
			n = send(f->sock, j->buf, (size_t)p->req_size,
				 MSG_DONTWAIT);
			if (n < 0) {
				r->send_errors++;
			} else {
				r->bytes_sent += (uint64_t)n;
				r->send_calls++;
			}
			f->phase = CRR_ANSWER;
			continue;
		}
		if (f->phase == CRR_ANSWER && !is_token) {
			r->recv_calls++;
			r->bytes_recv += (uint64_t)n;
			return crr_answered(j, f, now);
		}
	}
	return 0;
}

/* The CRR clients every few milliseconds: a UDP transaction unanswered
 * past the time-out is lost; a closed loop's idle flow begins again; a
 * transaction still open a second past the end is given up. */
static int
crr_scan(struct flows_job *j, uint64_t now)
{
	int k;

	for (k = 0; k < j->nflows; k++) {
		struct flow *f = &j->f[k];

		if (f->state != FLOW_RUN)
			continue;
		if (f->phase == CRR_IDLE) {
			if (j->pc == NULL && !j->ending && may_issue(j, f) &&
			    crr_begin(j, f, now) < 0)
				return -1;
			else if (j->ending || (j->pc == NULL &&
					       !may_issue(j, f)))
				flow_done(j, f, now);
			continue;
		}
		if ((j->role == ROLE_UDP_CRR_CLIENT &&
		     now - j->stamps[k] >= j->rto.ns) ||
		    (j->ending && now - j->stamps[k] >= NS_PER_SEC))
			crr_lost(j, f, now);
	}
	return 0;
}

/* TCP_CRR's server: whether its thread takes new connections from the
 * shared listener (each thread's set holds it with EPOLLEXCLUSIVE, so
 * one thread wakes a connection). */
static void
listen_on(struct flows_job *j, int on)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE,
				 .data.u32 = FLOWS_TAG_LISTENER};

	if (on == j->listening)
		return;
	if (on && epoll_ctl(j->ep, EPOLL_CTL_ADD, j->lfd, &ev) == 0)
		j->listening = 1;
	else if (!on && epoll_ctl(j->ep, EPOLL_CTL_DEL, j->lfd, NULL) == 0)
		j->listening = 0;
}

static void
conn_close(struct flows_job *j, int k)
{
	close(j->conns[k].fd);
	j->conns[k].fd = -1;
	j->cfree[j->ncfree++] = k;
	if (!j->ending)
		listen_on(j, 1);
}

/* The connections waiting on the listener, from the control client's
 * host only, as many as the thread has slots for. */
static int
crr_accept(struct flows_job *j, uint64_t now)
{
	struct test_ctx *c0 = j->f[0].ctx;
	struct epoll_event ev = {.events = EPOLLIN};
	struct sockaddr_storage a;
	char why[ERR_LEN];
	socklen_t alen;
	int i, fd, k;

	for (i = 0; i < 16; i++) {
		if (j->ncfree == 0) {
			listen_on(j, 0);
			return 0;
		}
		alen = sizeof(a);
		fd = accept4(j->lfd, (struct sockaddr *)&a, &alen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EMFILE || errno == ENFILE ||
			       errno == ENOBUFS || errno == ENOMEM))
			return 0;
		if (fd < 0)
			return fail(j, &j->f[0], "accept", errno);
		if (!sock_same_host((struct sockaddr *)&a,
				    (struct sockaddr *)&c0->peer)) {
			close(fd);
			continue;
		}
		if (c0->p->nodelay)
			sock_set_nodelay(fd, 1, why);
		k = j->cfree[--j->ncfree];
		j->conns[k] = (struct crr_conn){.fd = fd, .since = now};
		ev.data.u32 = FLOWS_TAG_CONN | (uint32_t)k;
		if (epoll_ctl(j->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			conn_close(j, k);
	}
	return 0;
}

/* Sends what connection k owes: its answer, then the close. */
static void
conn_flush(struct flows_job *j, int k)
{
	struct crr_conn *cn = &j->conns[k];
	struct side_result *r = j->f[0].ctx->r;
	struct epoll_event ev = {.events = EPOLLOUT,
				 .data.u32 = FLOWS_TAG_CONN | (uint32_t)k};
	size_t len;
	ssize_t n;

	while (cn->tosend > 0) {
		len = cn->tosend < j->buflen ? (size_t)cn->tosend : j->buflen;
		n = send(cn->fd, j->buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			cn->tosend -= (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			epoll_ctl(j->ep, EPOLL_CTL_MOD, cn->fd, &ev);
			return;
		}
		conn_close(j, k); /* the client gave up on it */
		return;
	}
	r->bytes_sent += (uint64_t)j->f[0].ctx->p->rsp_size;
	if (j->f[0].ctx->p->rsp_size > 0)
		r->send_calls++;
	r->trans++;
	conn_close(j, k);
}

/* A TCP_CRR connection's token and request: a connection whose token is
 * not the test's is dropped unserved and uncounted. The thread's counts
 * are its first flow's. */
static void
conn_event(struct flows_job *j, int k, uint32_t events)
{
	struct crr_conn *cn = &j->conns[k];
	struct test_ctx *c0 = j->f[0].ctx;
	struct side_result *r = c0->r;
	size_t need = AUTH_TOKEN_LEN + (size_t)c0->p->req_size, len, t;
	ssize_t n;

	if (cn->tosend > 0) {
		if (events & EPOLLOUT)
			conn_flush(j, k);
		else if (events & (EPOLLHUP | EPOLLERR))
			conn_close(j, k);
		return;
	}
	while (cn->got < need) {
		len = need - cn->got < j->buflen ? need - cn->got : j->buflen;
		n = recv(cn->fd, j->buf, len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			conn_close(j, k);
			return;
		}
		if (cn->got < AUTH_TOKEN_LEN) {
			t = AUTH_TOKEN_LEN - cn->got;
			memcpy(cn->tok + cn->got, j->buf,
			       (size_t)n < t ? (size_t)n : t);
		}
		/* The token is not data: a call counts when it brought
		 * the request's bytes. */
		if (cn->got + (size_t)n > AUTH_TOKEN_LEN)
			r->recv_calls++;
		cn->got += (uint32_t)n;
		if (cn->got >= AUTH_TOKEN_LEN &&
		    (c0->token == NULL ||
		     !auth_equal(cn->tok, c0->token, AUTH_TOKEN_LEN))) {
			conn_close(j, k);
			return;
		}
	}
	r->bytes_recv += (uint64_t)c0->p->req_size;
	cn->tosend = (uint64_t)c0->p->rsp_size;
	conn_flush(j, k);
}

/* TCP_CRR's server every 100 ms: a connection silent for a second is
 * dropped. */
static void
conns_expire(struct flows_job *j, uint64_t now)
{
	for (int k = 0; k < j->ncap; k++)
		if (j->conns[k].fd >= 0 &&
		    now - j->conns[k].since > FLOWS_CONN_IDLE_NS)
			conn_close(j, k);
}

/* UDP_CRR's server: up to max datagrams on the flow's socket, each
 * served as the thread-a-stream server serves it, with the one sender
 * the flow awaits (a client's flow has one transaction at a time). */
static int
udp_crr_readable(struct flows_job *j, struct flow *f, uint64_t now, int max)
{
	size_t k = (size_t)(f - j->f);
	struct udp_crr_pending t = {&j->pend[k], &j->pendlen[k], 1, 0};
	struct side_result *r = f->ctx->r;
	struct sockaddr_storage from;
	socklen_t len;
	uint64_t before;
	ssize_t n;
	int i;

	for (i = 0; i < max; i++) {
		len = sizeof(from);
		n = recvfrom(f->ctx->fd, j->buf, j->buflen, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &len);
		if (n < 0 && (errno == EINTR || errno == ECONNREFUSED))
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return fail(j, f, "data socket: recv", errno);
		before = r->trans;
		udp_crr_serve(f->ctx, &t, j->buf, (size_t)n, &from, len);
		if (r->trans != before)
			f->got = now; /* the last one ends its interval */
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

	if (j->role == ROLE_UDP_CRR_SERVER)
		return udp_crr_readable(j, f, now, FLOWS_CALLS_PER_EVENT);
	for (i = 0; i < FLOWS_CALLS_PER_EVENT && f->state != FLOW_DONE; i++) {
		n = recv(flow_fd(f), j->buf, j->buflen, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0 && j->role == ROLE_UDP_CLIENT &&
		    errno == ECONNREFUSED)
			return counts_errors(j)
				   ? broken(j, f, now)
				   : fail(j, f,
					  "netserver's data socket is gone",
					  errno);
		if (n < 0 && j->role == ROLE_UDP_SERVER &&
		    errno == ECONNREFUSED)
			return 0;
		if (n < 0 && errno == ECONNRESET && counts_errors(j))
			return broken(j, f, now);
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
			if (j->role == ROLE_RR_CLIENT && counts_errors(j))
				return broken(j, f, now);
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
		case ROLE_CRR_CLIENT:
		case ROLE_CRR_SERVER:
		case ROLE_UDP_CRR_CLIENT:
		case ROLE_UDP_CRR_SERVER:
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
		n = send(flow_fd(f), j->buf, want_len,
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
 * half-close, RR clients stop asking and half-close once answered, CRR
 * clients end between transactions, servers that have no end of their
 * own end. */
static void
begin_end(struct flows_job *j)
{
	uint64_t now = clock_ns();
	int i, k;

	j->ending = 1;
	/* The open loop asks for nothing more. */
	for (i = 0; i < j->hn; i++)
		j->f[j->hidx[i]].queued = 0;
	j->hn = 0;
	if (j->role == ROLE_CRR_SERVER) {
		listen_on(j, 0);
		for (k = 0; k < j->ncap; k++)
			if (j->conns[k].fd >= 0)
				conn_close(j, k);
	}
	for (i = 0; i < j->nflows; i++) {
		struct flow *f = &j->f[i];

		if (f->state != FLOW_RUN)
			continue;
		if ((j->role == ROLE_SEND && f->tosend == 0) ||
		    (j->role == ROLE_RR_CLIENT && f->inflight == 0))
			half_close(j, f);
		else if (j->role == ROLE_UDP_CLIENT && f->inflight == 0)
			udp_done(j, f, now);
		else if (j->role == ROLE_UDP_SERVER ||
			 j->role == ROLE_CRR_SERVER)
			flow_done(j, f, now);
		else if (j->role == ROLE_UDP_CRR_SERVER) {
			/* The requests its socket still holds reached
			 * netserver, and are served as ever. */
			udp_crr_readable(j, f, now, 64);
			flow_done(j, f, now);
		} else if ((j->role == ROLE_CRR_CLIENT ||
			    j->role == ROLE_UDP_CRR_CLIENT) &&
			   f->phase == CRR_IDLE)
			flow_done(j, f, now);
	}
}

/* Whether this side ends the interval by its own clock. */
static int
ends_itself(const struct flows_job *j)
{
	return j->role == ROLE_SEND || j->role == ROLE_RR_CLIENT ||
	       j->role == ROLE_UDP_CLIENT || j->role == ROLE_CRR_CLIENT ||
	       j->role == ROLE_UDP_CRR_CLIENT;
}

/* Whether this side ends on the client's "stop" (or the sender's
 * end), looking every few milliseconds. */
static int
ends_on_stop(const struct flows_job *j)
{
	return j->role == ROLE_SEND || j->role == ROLE_UDP_SERVER ||
	       j->role == ROLE_CRR_SERVER || j->role == ROLE_UDP_CRR_SERVER;
}

/* An open-loop flow's intended send time has come. */
static int
due_now(struct flows_job *j, struct flow *f, uint64_t now)
{
	uint64_t due;

	if (f->state != FLOW_RUN || j->ending)
		return 0;
	due = rr_pacer_due(j->pc[f - j->f], now);
	if (due == UINT64_MAX) {
		/* The test is over for it (a counted one): done once
		 * answered. */
		if (j->role == ROLE_RR_CLIENT && f->inflight == 0)
			half_close(j, f);
		else if (j->role == ROLE_UDP_CLIENT && f->inflight == 0)
			udp_done(j, f, now);
		else if (j->role != ROLE_RR_CLIENT &&
			 j->role != ROLE_UDP_CLIENT && f->phase == CRR_IDLE)
			flow_done(j, f, now);
		return 0;
	}
	if (due > now) {
		heap_push(j, f, due);
		return 0;
	}
	if (j->role == ROLE_RR_CLIENT)
		return issue(j, f, now);
	if (j->role == ROLE_UDP_CLIENT) {
		if (udp_send_one(j, f, now) < 0)
			return -1;
		if (f->state == FLOW_RUN)
			pace(j, f, now);
		return 0;
	}
	return f->phase == CRR_IDLE ? crr_begin(j, f, now) : 0;
}

/* One readiness event of the thread's epoll set. */
static int
dispatch(struct flows_job *j, const struct epoll_event *e, uint64_t now)
{
	uint32_t tag = e->data.u32;
	struct flow *f;

	if (tag == FLOWS_TAG_LISTENER)
		return j->ending ? 0 : crr_accept(j, now);
	if (tag & FLOWS_TAG_CONN) {
		if (j->conns[tag & ~FLOWS_TAG_CONN].fd >= 0)
			conn_event(j, (int)(tag & ~FLOWS_TAG_CONN), e->events);
		return 0;
	}
	f = &j->f[tag];
	if (f->state == FLOW_DONE)
		return 0;
	if (j->role == ROLE_CRR_CLIENT)
		return f->sock >= 0 ? crr_event(j, f, e->events, now) : 0;
	if (j->role == ROLE_UDP_CRR_CLIENT)
		return f->sock >= 0 ? udp_crr_event(j, f, now) : 0;
	if ((e->events & EPOLLOUT) && on_writable(j, f) < 0)
		return -1;
	if ((e->events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
	    on_readable(j, f, now) < 0)
		return -1;
	if (j->ending && f->state == FLOW_RUN && j->role == ROLE_SEND &&
	    f->tosend == 0)
		half_close(j, f);
	return 0;
}

/* The thread's loop over its flows until each has ended. */
static int
drive(struct flows_job *j)
{
	struct epoll_event ev[FLOWS_EVENTS];
	struct test_ctx *c0 = j->f[0].ctx;
	uint64_t now = clock_ns(), check = now, until;
	int i, n, ms, crr;

	crr = j->role == ROLE_CRR_CLIENT || j->role == ROLE_UDP_CRR_CLIENT;
	if (j->pc != NULL)
		for (i = 0; i < j->nflows; i++)
			pace(j, &j->f[i], now);
	else if (j->role == ROLE_RR_CLIENT)
		for (i = 0; i < j->nflows; i++)
			while (j->f[i].inflight < (uint32_t)j->depth &&
			       may_issue(j, &j->f[i]))
				if (issue(j, &j->f[i], now) < 0)
					return -1;
	if (j->pc == NULL && crr)
		for (i = 0; i < j->nflows; i++)
			if (j->f[i].state == FLOW_RUN &&
			    crr_begin(j, &j->f[i], now) < 0)
				return -1;
	if (j->role == ROLE_SEND)
		for (i = 0; i < j->nflows; i++)
			want(j, &j->f[i], 1);
	if (j->role == ROLE_UDP_CLIENT)
		for (i = 0; i < j->nflows; i++)
			if (udp_fill(j, &j->f[i], now) < 0)
				return -1;
	if (j->role == ROLE_CRR_SERVER)
		listen_on(j, 1);
	j->expired_at = now;
	j->conns_at = now;
	while (j->open > 0) {
		now = clock_ns();
		if (!j->ending && ends_itself(j) &&
		    (*c0->stop || (j->end_ns != 0 && now >= j->end_ns)))
			begin_end(j);
		/* Lost UDP requests, and the CRR clients' transactions and
		 * idle flows, every few milliseconds. */
		if ((j->role == ROLE_UDP_CLIENT || crr) &&
		    now - j->expired_at > 10000000) {
			j->expired_at = now;
			if (j->role == ROLE_UDP_CLIENT && udp_expire(j, now) < 0)
				return -1;
			if (crr && crr_scan(j, now) < 0)
				return -1;
		}
		if (j->role == ROLE_CRR_SERVER &&
		    now - j->conns_at > 100000000) {
			j->conns_at = now;
			conns_expire(j, now);
		}
		/* netserver sending (MAERTS) ends early when the client
		 * asks, as do the servers with no end of their own; each
		 * looks every few milliseconds. */
		if (!j->ending && ends_on_stop(j) && c0->ctl >= 0 &&
		    now - check > 5000000) {
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
		/* The open loop's requests whose time has come. */
		while (j->hn > 0 && j->hkey[0] <= now)
			if (due_now(j, heap_pop(j), now) < 0)
				return -1;
		if (j->open == 0)
			break;
		ms = j->role == ROLE_RR_CLIENT || j->role == ROLE_SEND ||
			     j->role == ROLE_RECV || j->role == ROLE_RR_SERVER
			 ? 100
			 : 5;
		if (!j->ending && j->end_ns != 0 && ends_itself(j)) {
			until = j->end_ns > now ? j->end_ns - now : 0;
			if (until < 100000000)
				ms = (int)((until + 999999) / 1000000);
		}
		if (j->hn > 0) {
			/* Sleep to a little before the earliest intended
			 * send time, then spin to it (rr_open.c's waiter);
			 * woken early by any flow's event. */
			until = now + (uint64_t)ms * 1000000;
			if (j->hkey[0] < until)
				until = j->hkey[0];
			n = rr_waiter_wait(j->w, j->ep, until) == 1
				? epoll_wait(j->ep, ev, FLOWS_EVENTS, 0)
				: 0;
		} else {
			n = epoll_wait(j->ep, ev, FLOWS_EVENTS, ms);
		}
		if (n < 0 && errno != EINTR) {
			snprintf(j->err, sizeof(j->err), "epoll_wait: %s",
				 strerror(errno));
			j->rc = -1;
			return -1;
		}
		now = clock_ns();
		for (i = 0; i < n; i++)
			if (dispatch(j, &ev[i], now) < 0)
				return -1;
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
		/* A UDP server's interval ends with its last request. */
		if ((j->role == ROLE_UDP_SERVER ||
		     j->role == ROLE_UDP_CRR_SERVER) &&
		    j->f[i].got > 0)
			r->elapsed =
			    (double)(j->f[i].got - j->run->start_ns) / 1e9;
		/* A CRR flow's sockets are new each transaction: its sizes
		 * at the end are a new socket's, as its loop reports them. */
		if (!module_has(j->run->m, MODULE_F_PER_TRANS))
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

/* The open loop's pacers of the thread's flows, and its waiter; nothing
 * on a closed loop. Returns 0, or -1 with the thread's error set. */
static int
pacers_new(struct flows_job *j)
{
	const struct test_params *p = j->f[0].ctx->p;
	int i;

	if (j->run->is_server || !module_open_loop(p) ||
	    (j->role != ROLE_RR_CLIENT && j->role != ROLE_CRR_CLIENT &&
	     j->role != ROLE_UDP_CRR_CLIENT && j->role != ROLE_UDP_CLIENT))
		return 0;
	j->pc = calloc((size_t)j->nflows, sizeof(*j->pc));
	j->hkey = calloc((size_t)j->nflows, sizeof(*j->hkey));
	j->hidx = calloc((size_t)j->nflows, sizeof(*j->hidx));
	/* The thread's sends come R * its flows / N a second. */
	j->w = rr_waiter_new(p->rate > 0 ? 1e9 * j->run->n / p->rate /
					       j->nflows
					 : 0);
	if (j->pc == NULL || j->hkey == NULL || j->hidx == NULL ||
	    j->w == NULL)
		goto oom;
	for (i = 0; i < j->nflows; i++) {
		j->pc[i] = rr_pacer_flow(j->f[i].ctx, j->depth, j->hist,
					 j->svc_hist, j->mix_hist);
		if (j->pc[i] == NULL)
			goto oom;
	}
	return 0;
oom:
	j->rc = -1;
	snprintf(j->err, sizeof(j->err), "out of memory");
	return -1;
}

static void *
flows_main(void *arg)
{
	struct flows_job *j = arg;
	struct module_run *run = j->run;
	int bound = module_thread_at_gate(
	    run, run->places != NULL ? &run->places[j->t] : NULL, j->err);

	if (bound < 0)
		j->rc = -1;
	if (bound >= 0 && !run->abort) {
		j->end_ns = j->f[0].ctx->p->duration > 0
				? run->start_ns +
				      (uint64_t)(j->f[0].ctx->p->duration * 1e9)
				: 0;
		for (int i = 0; i < j->nflows; i++)
			j->f[i].ctx->end_ns = j->end_ns;
		/* The open loop's arrivals start now, from the gate. */
		if (pacers_new(j) == 0)
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

/* The CRR roles, a connection (or a UDP socket) per transaction. */
static enum flow_role
crr_role_of(const struct module_run *run)
{
	if (run->m->protocol == IPPROTO_TCP)
		return run->is_server ? ROLE_CRR_SERVER : ROLE_CRR_CLIENT;
	return run->is_server ? ROLE_UDP_CRR_SERVER : ROLE_UDP_CRR_CLIENT;
}

/* Thread t's flows, its epoll set and its state. */
static int
job_init(struct flows_job *j, struct module_run *run, int t, char *err)
{
	int T = run->threads, i, k;

	j->run = run;
	j->t = t;
	j->ep = -1;
	j->role = module_has(run->m, MODULE_F_PER_TRANS) ? crr_role_of(run)
							  : role_of(run);
	j->lfd = -1;
	j->nflows = (run->n - t + T - 1) / T;
	j->depth = j->role == ROLE_RR_CLIENT || j->role == ROLE_UDP_CLIENT
		       ? run->ctx[t].p->burst + 1
		       : 1;
	j->svc_hist = run->ctx[t].svc_hist;
	{
		const struct test_params *p = run->ctx[t].p;
		j->taglen = module_udp_tag_len(&run->ctx[t]);
		/* -e, or 3 s (the adaptive rule's ceiling): thousands of
		 * flows wait their turn far longer than a round trip, and an
		 * adaptive time-out learns only from answers in time, so it
		 * would give up on every late one and send again. */
		module_rto_init(&j->rto, p->timeout > 0 ? p->timeout
					 : p->rto > 0	? p->rto
							: 3.0);
		/* UDP_CRR: --timeout abandons a transaction; else -e, or
		 * 1 s, the adaptive rule's start. */
		if (j->role == ROLE_UDP_CRR_CLIENT)
			module_rto_init(&j->rto, p->timeout > 0 ? p->timeout
					 : p->rto > 0	? p->rto
							: 1.0);
		/* -s and netperf 2.7's options (-y, -Y...) on each of a CRR
		 * client's sockets; TCP_CRR's buffers stay the system's, as
		 * its thread-a-stream loop's do. */
		j->setup = (struct sock_setup){
		    .local = NULL,
		    .sndbuf = -1,
		    .rcvbuf = -1,
		    .got_sndbuf = -1,
		    .got_rcvbuf = -1,
		    .extra = &p->lx,
		    .protocol = run->ctx[t].transport != NULL
				    ? run->ctx[t].transport->protocol
				    : 0};
		if (j->role == ROLE_UDP_CRR_CLIENT) {
			j->setup.sndbuf = p->lsndbuf;
			j->setup.rcvbuf = p->lrcvbuf;
			j->setup.protocol = 0;
		}
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
	/* netperf's flows draw classes where they have accounts for them,
	 * as rr.c's loops do. */
	if (run->ctx[t].p->mix.n > 0 &&
	    (run->is_server || run->ctx[t].mix != NULL)) {
		j->mix = &run->ctx[t].p->mix;
		j->mix_hist = run->ctx[t].mix_hist;
		j->cls = calloc((size_t)j->nflows * (size_t)j->depth, 1);
		if (j->cls == NULL)
			return err_set(err, "out of memory");
	}
	for (i = 0; j->f != NULL && i < j->nflows; i++)
		j->f[i].sock = -1;
	if (j->f == NULL || j->stamps == NULL || j->tags == NULL ||
	    gone_init(&j->gone) < 0)
		return err_set(err, "out of memory");
	if (j->buf == NULL || j->buflen == 0)
		return err_set(err, "flows: thread %d has no buffer", t);
	j->ep = epoll_create1(EPOLL_CLOEXEC);
	if (j->ep < 0)
		return err_set(err, "epoll_create1: %s", strerror(errno));
	for (i = 0, k = t; k < run->n; i++, k += T) {
		struct epoll_event ev = {.events = EPOLLIN};

		j->f[i].ctx = &run->ctx[k];
		j->f[i].sock = -1;
		run->ctx[k].watched = 0;
		run->ctx[k].r->mss = -1;
		ev.data.u32 = (uint32_t)i;
		/* A CRR client's sockets come and go with its
		 * transactions; TCP_CRR's server shares one listener. */
		if (j->role == ROLE_CRR_CLIENT ||
		    j->role == ROLE_UDP_CRR_CLIENT ||
		    j->role == ROLE_CRR_SERVER)
			continue;
		if (epoll_ctl(j->ep, EPOLL_CTL_ADD, run->ctx[k].fd, &ev) < 0)
			return err_set(err, "epoll_ctl: %s", strerror(errno));
	}
	if (j->role == ROLE_CRR_SERVER) {
		/* Twice the thread's share of the flows' transactions, so
		 * that the threads together hold every one in flight. */
		int cap = 2 * j->nflows + 64;

		j->lfd = run->ctx[t].fd;
		j->conns = calloc((size_t)cap, sizeof(*j->conns));
		j->cfree = calloc((size_t)cap, sizeof(*j->cfree));
		if (j->conns == NULL || j->cfree == NULL)
			return err_set(err, "out of memory");
		for (i = 0; i < cap; i++) {
			j->conns[i].fd = -1;
			j->cfree[j->ncfree++] = cap - 1 - i;
		}
		j->ncap = cap;
		if (fcntl(j->lfd, F_SETFL,
			  fcntl(j->lfd, F_GETFL) | O_NONBLOCK) < 0)
			return err_set(err, "fcntl: %s", strerror(errno));
	}
	/* A CRR flow's sizes are its request's and answer's, and its
	 * sockets' buffers at the end a new socket's, as its thread-a-stream
	 * loop reports them. */
	for (i = 0; module_has(run->m, MODULE_F_PER_TRANS) && i < j->nflows;
	     i++) {
		const struct test_params *p = j->f[i].ctx->p;
		struct side_result *r = j->f[i].ctx->r;

		r->send_size = run->is_server ? p->rsp_size : p->req_size;
		r->recv_size = run->is_server ? p->req_size : p->rsp_size;
		r->sndbuf_end = r->sndbuf;
		r->rcvbuf_end = r->rcvbuf;
	}
	if (j->role == ROLE_UDP_CRR_SERVER) {
		j->pend = calloc((size_t)j->nflows, sizeof(*j->pend));
		j->pendlen = calloc((size_t)j->nflows, sizeof(*j->pendlen));
		if (j->pend == NULL || j->pendlen == NULL)
			return err_set(err, "out of memory");
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
		for (int i = 0; jobs[t].pc != NULL && i < jobs[t].nflows; i++)
			rr_pacer_free(jobs[t].pc[i]);
		for (int k = 0; k < jobs[t].ncap; k++)
			if (jobs[t].conns[k].fd >= 0)
				close(jobs[t].conns[k].fd);
		for (int i = 0; jobs[t].f != NULL && i < jobs[t].nflows; i++)
			if (jobs[t].f[i].sock >= 0)
				close(jobs[t].f[i].sock);
		free(jobs[t].pc);
		free(jobs[t].hkey);
		free(jobs[t].hidx);
		free(jobs[t].w);
		free(jobs[t].conns);
		free(jobs[t].cfree);
		free(jobs[t].pend);
		free(jobs[t].pendlen);
		free(jobs[t].f);
		free(jobs[t].stamps);
		free(jobs[t].tags);
		free(jobs[t].cls);
		gone_free(&jobs[t].gone);
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
