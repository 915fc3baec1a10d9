#include "np/runner.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/flows.h"
#include "np/interval.h"
#include "np/loop.h"
#include "np/module.h"
#include "np/sock.h"
#include "np/transport.h"
#include "np/underload.h"
#include "np/watchdog.h"

/* One stream's thread: bind, wait for the others, run, record. */
struct stream_job {
	struct module_run *run;
	struct test_ctx *ctx;
	struct topo_place *place;
	int rc;
};

/* A stream's transport: the one it was opened with, else its test's own
 * (a stream never opened has no socket to ask). */
static const struct transport *
ctx_transport(const struct test_ctx *ctx, const struct test_module *m)
{
	return ctx->transport != NULL ? ctx->transport : transport_of(m, ctx->p);
}

/* A stream is done: counted, and the coordinator woken at once, so the
 * end of the test is an event and not the next slice of a sleep. */
static void
stream_finished(struct module_run *run)
{
	pthread_mutex_lock(&run->lock);
	__atomic_add_fetch(&run->finished, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&run->cond);
	pthread_mutex_unlock(&run->lock);
}

static void *
stream_main(void *arg)
{
	struct stream_job *job = arg;
	struct module_run *run = job->run;
	struct test_ctx *ctx = job->ctx;
	struct side_result *r = ctx->r;
	/* A bulk flow beside a probe (--under-load) is TCP_STREAM's. */
	const struct test_module *m = underload_module(run->m, ctx->role);
	uint64_t t0, t1;

	if (module_thread_at_gate(run, job->place, ctx->err) < 0 ||
	    run->abort) {
		job->rc = -1;
		__atomic_store_n(&ctx->done_ns, clock_ns(), __ATOMIC_RELEASE);
		/* Not a stream to watch: it never ran. */
		__atomic_store_n(&ctx->wd_state, MODULE_WD_DONE,
				 __ATOMIC_RELEASE);
		/* Counted as finished like any other ending: the interim
		 * loop waits for every stream to be done. */
		stream_finished(run);
		return NULL;
	}
	r->mss = -1;
	/* Every stream measures from the one start the coordinator took
	 * when it opened the gate, and ends at the same moment. */
	t0 = run->start_ns;
	ctx->end_ns =
	    ctx->p->duration > 0 ? t0 + (uint64_t)(ctx->p->duration * 1e9) : 0;
	ctx->warm_ns = underload_warm_ns(ctx, t0);
	/* The transport's figures as the interval begins, and again at its
	 * end (below): a receiver's end comes after both ends have shut
	 * down, when MPTCP may already be closing its subflows. */
	if (transport_has_tcpinfo(ctx_transport(ctx, m), m))
		transport_account(ctx->transport, ctx->fd, r);
	/* A reversed stream (--bidir) runs the half the peer would; a bulk
	 * flow beside a probe (--under-load), a stream test's. */
	if (ctx->role != UNDERLOAD_PROBE)
		job->rc = underload_loop(ctx->role, run->is_server)(ctx);
	else
		job->rc = (run->is_server != ctx->reverse ? m->server
							  : m->client)(ctx);
	t1 = clock_ns();
	__atomic_store_n(&ctx->done_ns, t1, __ATOMIC_RELEASE);
	/* Ended, unless the coordinator gave up on the peer first: then its
	 * reason is the stream's, whatever the woken loop made of it. */
	if (ctx->watched) {
		int running = MODULE_WD_RUNNING;

		if (!__atomic_compare_exchange_n(&ctx->wd_state, &running,
						 MODULE_WD_DONE, 0,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			snprintf(ctx->err, sizeof(ctx->err), "%s",
				 ctx->wd_err);
			job->rc = -1;
		}
	}
	/* A loop that knows its interval better (a UDP receiver ends at its
	 * last datagram, not when it noticed the end) has set it already. */
	if (r->elapsed <= 0)
		r->elapsed = (double)(t1 - t0) / 1e9;
	/* Wall-clock stamps from the one reading at the gate plus monotonic
	 * time, so a clock step during the test cannot bend the interval. */
	r->wall_start_ns = run->wall_start_ns;
	r->wall_end_ns = run->wall_start_ns + (int64_t)(t1 - t0);
	r->start_cpu_wait_ns = run->start_cpu_wait_ns;
	r->cpu_id =
	    run->topo != NULL ? topo_current_cpu(run->topo) : sched_getcpu();
	if (ctx->fd >= 0)
		sock_get_buffers(ctx->fd, &r->sndbuf_end, &r->rcvbuf_end);
	if (transport_has_tcpinfo(ctx_transport(ctx, m), m) && ctx->fd >= 0) {
		char ignored[ERR_LEN];
		int mss = r->mss;

		sock_tcp_stats(ctx->fd, &r->mss, &r->retrans);
		/* A loop that read the MSS itself keeps it (TCP_MSS's, as
		 * the connection was made). */
		if (mss > 0)
			r->mss = mss;
		/* Read once, after the loop: TCP_INFO takes the socket
		 * lock, which the data path should never wait for. */
		if (tcpinfo_read(ctx->fd, &r->tcpi, ignored) == 0 &&
		    r->tcpi.v[TCPINFO_RETRANS] >= 0)
			r->retrans = (uint32_t)r->tcpi.v[TCPINFO_RETRANS];
		transport_account(ctx->transport, ctx->fd, r);
	}
	if (ctx_transport(ctx, m)->tcp_info)
		module_cong_of(ctx->fd, ctx->p, run->is_server, r->cong,
			       sizeof(r->cong));
	stream_finished(run);
	return NULL;
}

/* Whether any stream is watched (test_ctx.watched). */
static int
any_watched(const struct module_run *run)
{
	for (int i = 0; i < run->n; i++)
		if (run->ctx[i].watched)
			return 1;
	return 0;
}

/* Whether some stream was still running at the boundary: the interval
 * ending there is then one of the test's. */
static int
running_at(const struct module_run *run, uint64_t boundary)
{
	for (int i = 0; i < run->n; i++) {
		uint64_t done =
		    __atomic_load_n(&run->ctx[i].done_ns, __ATOMIC_ACQUIRE);

		if (done == 0 || done >= boundary)
			return 1;
	}
	return 0;
}

/* Sleeps to the next interim boundary or until every stream is done;
 * returns 1 at a boundary, 0 when the streams finished. */
static int
wait_boundary(struct module_run *run, uint64_t boundary)
{
	struct timespec ts;
	uint64_t now, until;

	for (;;) {
		for (int i = 0; i < run->n; i++)
			if (run->ctx[i].watched)
				watch_stream(run, &run->ctx[i], clock_ns());
		/* A boundary reached is reported when the streams ended at
		 * or after it (the last whole interval counts too), never
		 * when they all ended before it. */
		if (clock_ns() >= boundary)
			return running_at(run, boundary);
		if (__atomic_load_n(&run->finished, __ATOMIC_ACQUIRE) == run->n)
			return 0;
		/* Ctrl-C: tell the peer once, so a test it drives (MAERTS)
		 * ends too, with results. */
		if (run->on_stop != NULL && !run->stop_sent &&
		    *run->ctx[0].stop) {
			run->stop_sent = 1;
			run->on_stop(run->stop_arg);
		}
		now = clock_ns();
		if (now >= boundary)
			return running_at(run, boundary);
		/* Wake at the boundary, when a stream ends (stream_finished
		 * signals the condition), or within 50 ms to pass on a
		 * Ctrl-C and watch the streams. The count is read under the
		 * lock that the signal is sent under, so no end is missed. */
		until = boundary - now > 50000000 ? now + 50000000 : boundary;
		ts.tv_sec = (time_t)(until / NS_PER_SEC);
		ts.tv_nsec = (long)(until % NS_PER_SEC);
		pthread_mutex_lock(&run->lock);
		if (__atomic_load_n(&run->finished, __ATOMIC_ACQUIRE) < run->n)
			pthread_cond_timedwait(&run->cond, &run->lock, &ts);
		pthread_mutex_unlock(&run->lock);
	}
}

/* netserver: whether the client has closed (or reset) the control
 * connection, waiting up to ms for it. Only the hang-up is watched, not
 * the data: a "stop" sent early is the loops' to read. */
static int
control_closed(int ctl, int ms)
{
	struct pollfd pfd = {.fd = ctl, .events = POLLRDHUP};

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	return (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/*
 * Sleeps until CLOCK_REALTIME reaches at (TIMER_ABSTIME, so the wake-up
 * is exact whatever the scheduling delay of the call), in slices of at
 * most 100 ms to notice a stop request. On netserver's side the control
 * connection is watched all along: a client that schedules a start and
 * goes away must not hold its session slot until the time comes.
 * Returns 0 at the time, or -1 with err set when stopped first. *delay0
 * is the thread's run-queue wait (cpu_run_delay_ns) just before its last
 * sleep, so that the wait added after it is what the scheduler cost the
 * wake-up.
 */
static int
wait_start_at(struct module_run *run, int64_t at, int64_t *delay0, char *err)
{
	int ctl = run->n > 0 ? run->ctx[0].ctl : -1;
	struct timespec ts;
	int64_t now, until;
	int far;

	*delay0 = cpu_run_delay_ns();
	for (;;) {
		now = clock_real_ns();
		if (now >= at)
			return 0;
		if (run->n > 0 && run->ctx[0].stop != NULL &&
		    *run->ctx[0].stop)
			return err_set(err, "interrupted before the scheduled "
					    "start");
		/* Far from the time, a slice is spent in poll on the
		 * control connection; the last ones sleep to the exact
		 * moment. */
		far = ctl >= 0 && at - now > 200000000;
		if (ctl >= 0 && control_closed(ctl, far ? 100 : 0))
			return err_set(err, "the client closed its control "
					    "connection before the scheduled "
					    "start");
		if (far)
			continue;
		until = at - now > 100000000 ? now + 100000000 : at;
		ts.tv_sec = (time_t)(until / (int64_t)NS_PER_SEC);
		ts.tv_nsec = (long)(until % (int64_t)NS_PER_SEC);
		*delay0 = cpu_run_delay_ns();
		clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
	}
}

/* Starts a thread a stream and waits until every one is at the gate;
 * returns how many started (all of them, or run->abort is set). */
static int
start_streams(struct module_run *run, struct stream_job *jobs,
	      pthread_t *tids, char *err)
{
	int i, started = 0;

	for (i = 0; i < run->n; i++) {
		jobs[i].run = run;
		jobs[i].ctx = &run->ctx[i];
		jobs[i].place = run->places ? &run->places[i] : NULL;
		if (pthread_create(&tids[i], NULL, stream_main, &jobs[i]))
			break;
		started++;
	}
	return module_threads_ready(run, started, run->n, "stream", err);
}

int
module_thread_at_gate(struct module_run *run, const struct topo_place *place,
		      char *err)
{
	int rc = 0;

	if (place != NULL && place->set != NULL)
		rc = topo_bind_thread(run->topo, place, err);
	/* Everyone waits at the gate, bound or not, so all streams start
	 * together and a failure strands nobody. */
	pthread_mutex_lock(&run->lock);
	run->ready++;
	pthread_cond_broadcast(&run->cond);
	while (!run->go)
		pthread_cond_wait(&run->cond, &run->lock);
	pthread_mutex_unlock(&run->lock);
	return rc < 0 ? -1 : 0;
}

int
module_threads_ready(struct module_run *run, int started, int want,
		     const char *what, char *err)
{
	if (started < want) {
		err_set(err, "cannot start %d %s threads", want, what);
		run->abort = 1;
	}
	pthread_mutex_lock(&run->lock);
	while (run->ready < started)
		pthread_cond_wait(&run->cond, &run->lock);
	pthread_mutex_unlock(&run->lock);
	return started;
}

/* Opens the gate: at --start-at's moment when there is one, after the
 * CPU snapshot that brackets all the streams with the one after them. */
static void
open_gate(struct module_run *run, struct cpu_sample *before, char *err)
{
	int64_t delay0 = -1, delay1;

	if (!run->abort && run->start_at_ns > 0 &&
	    wait_start_at(run, run->start_at_ns, &delay0, err) < 0)
		run->abort = 1;
	if (!run->abort && run->measure_cpu && cpu_sample_read(before, err) < 0)
		run->abort = 1;
	/* How much of a late start was the wake-up's wait for a CPU: what
	 * a busy host costs, as against clocks that disagree. Read before
	 * the stamps, so that it is all inside the lateness. */
	delay1 = delay0 >= 0 ? cpu_run_delay_ns() : -1;
	run->start_ns = clock_ns();
	run->wall_start_ns = clock_real_ns();
	run->start_cpu_wait_ns =
	    delay1 >= delay0 && delay0 >= 0 ? delay1 - delay0 : -1;
	/* A wait that began before the time (woken from an earlier slice
	 * while the CPU was taken) delayed the start by no more than the
	 * lateness: that is the part which counts. */
	if (run->start_cpu_wait_ns > run->wall_start_ns - run->start_at_ns)
		run->start_cpu_wait_ns = run->wall_start_ns - run->start_at_ns;
	pthread_mutex_lock(&run->lock);
	run->go = 1;
	pthread_cond_broadcast(&run->cond);
	pthread_mutex_unlock(&run->lock);
	run->stop_sent = 0;
}

/* The coordinator's watch while the streams run: interim reports on
 * exact boundaries, and, without them, a wake-up every 50 ms to pass on
 * a Ctrl-C; the last stream's end wakes it at once. */
static void
coordinate(struct module_run *run)
{
	struct interval_track *t = run->track;
	uint64_t start = run->start_ns, boundary, step, now, c;

	if (run->abort || (run->interim_sec <= 0 && run->on_stop == NULL &&
			   !any_watched(run)))
		return;
	step = t != NULL ? (uint64_t)(run->interim_sec * 1e9) : UINT64_MAX / 2;
	/* --under-load: what the bulk flows delivered while the probe ran,
	 * read at its end (no -D with it: this is the only boundary). */
	if (run->ctx[0].p != NULL &&
	    underload_role(run->ctx[0].p, run->n - 1) != UNDERLOAD_PROBE &&
	    run->ctx[0].p->duration > 0) {
		wait_boundary(
		    run, start + (uint64_t)(run->ctx[0].p->duration * 1e9));
		underload_snapshot(run);
	}
	run->interim_k = 0;
	if (t != NULL)
		t->prev_t = start;
	for (boundary = start + step; wait_boundary(run, boundary);) {
		/* Boundaries are start + k * step, so intervals never drift
		 * with the time it takes to report one. */
		now = clock_ns();
		c = interval_track_take(t, run, 0);
		run->on_interim(run->arg, (double)c,
				(double)(now - t->prev_t) / 1e9,
				(double)(now - start) / 1e9,
				t->ti_iv.n > 0 ? &t->ti_iv : NULL, &t->out);
		t->prev_t = now;
		/* Boundaries already past (an interval shorter than a
		 * report takes) go into the next interval, rather than
		 * each being reported as an interval of next to nothing. */
		do {
			boundary += step;
			run->interim_k++;
		} while (boundary <= clock_ns());
	}
}

/* After the streams, when asked (interim_tail): what they did after the
 * last boundary, as a partial interval ending with the last of them, so
 * that the intervals add up to the totals. Nothing when they did
 * nothing: no transfer, no round trip, no time-out, no error, no late
 * answer and no losses to split. */
static void
report_tail(struct module_run *run)
{
	struct interval_track *t = run->track;
	uint64_t end = t->prev_t, c;
	int i;

	for (i = 0; i < run->n; i++)
		if (run->ctx[i].done_ns > end)
			end = run->ctx[i].done_ns;
	c = interval_track_take(t, run, 1);
	/* A split of the losses (UDP_RR) always has its tail: the requests
	 * lost after the last answer are found from netserver's total. */
	if (c == 0 && (t->hist == NULL || t->hist->count == 0) &&
	    t->out.timeouts == 0 && t->out.errors == 0 && t->out.late == 0 &&
	    !t->out.lost_split)
		return;
	/* interim_k is already the number of the boundary after the last
	 * one reported: the tail's. */
	run->on_interim(run->arg, (double)c, (double)(end - t->prev_t) / 1e9,
			(double)(end - run->start_ns) / 1e9,
			t->ti_iv.n > 0 ? &t->ti_iv : NULL, &t->out);
}

/* After the streams: the first failure, and the CPU over the run. */
static int
finish_run(struct module_run *run, const struct stream_job *jobs,
	   struct cpu_sample *before, struct cpu_sample *after, char *err)
{
	int i;

	if (run->abort)
		return -1;
	for (i = 0; i < run->n; i++)
		if (jobs[i].rc < 0)
			return err_set(err, "%s%s",
				       run->n > 1 ? "a stream failed: " : "",
				       run->ctx[i].err);
	if (!run->measure_cpu)
		return 0;
	if (cpu_sample_read(after, err) < 0 ||
	    cpu_util_compute(before, after, &run->cpu, err) < 0)
		return -1;
	run->cpu_measured = 1;
	return 0;
}

int
module_run_all(struct module_run *run, char *err)
{
	struct cpu_sample before = {0}, after = {0};
	struct interval_track *track = NULL;
	struct stream_job *jobs;
	pthread_condattr_t ca;
	pthread_t *tids;
	int i, started, rc = -1;

	run->finished = 0;
	run->abort = 0;
	run->ready = 0;
	run->go = 0;
	run->cpu_measured = 0;
	/* No loop has ended yet, whoever set the contexts up. */
	for (i = 0; i < run->n; i++)
		run->ctx[i].done_ns = 0;
	pthread_mutex_init(&run->lock, NULL);
	/* The coordinator's timed waits on it are CLOCK_MONOTONIC
	 * deadlines, as every interval here. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&run->cond, &ca);
	pthread_condattr_destroy(&ca);
	jobs = calloc((size_t)run->n, sizeof(*jobs));
	tids = calloc((size_t)run->n, sizeof(*tids));
	if (jobs == NULL || tids == NULL) {
		err_set(err, "out of memory");
		goto out;
	}
	/* -D: the intervals' accounts, set up before any stream runs. */
	if (run->interim_sec > 0 && run->on_interim != NULL) {
		track = malloc(sizeof(*track));
		if (track == NULL ||
		    interval_track_init(track, run, err) < 0) {
			free(track);
			track = NULL;
			err_set(err, "out of memory");
			goto out;
		}
		run->track = track;
	}
	/* Flows on fewer threads than streams: flows.c's threads, at the
	 * same gate. */
	started = run->threads > 0 ? flows_start(run, tids, err)
				   : start_streams(run, jobs, tids, err);
	open_gate(run, &before, err);
	/* A control connection that failed ends the running streams
	 * through netserver's guard, as a client that dies does. */
	if (!run->abort && run->gate_opened != NULL &&
	    run->gate_opened(run->gate_arg, err) < 0)
		run->abort = 1;
	coordinate(run);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (track != NULL && run->interim_tail && !run->abort)
		report_tail(run);
	rc = finish_run(run, jobs, &before, &after, err);
	if (run->threads > 0 && flows_finish(run, rc < 0 ? NULL : err) < 0)
		rc = -1;
out:
	if (track != NULL)
		interval_track_free(track);
	free(track);
	run->track = NULL;
	cpu_sample_free(&after);
	cpu_sample_free(&before);
	pthread_cond_destroy(&run->cond);
	pthread_mutex_destroy(&run->lock);
	free(tids);
	free(jobs);
	return rc;
}

void
module_merge(const struct module_run *run, struct side_result *sum)
{
	int i;

	memset(sum, 0, sizeof(*sum));
	tcpinfo_clear(&sum->tcpi);
	for (i = 0; i < run->n; i++) {
		const struct side_result *r = run->ctx[i].r;

		tcpinfo_merge(&sum->tcpi, &r->tcpi);
		/* All streams ran over the same interval; the headline
		 * divides by the longest (elapsed's rule, SIDE_MAX). */
		side_merge(sum, r, i == 0);
	}
	if (run->cpu_measured) {
		sum->cpu = run->cpu;
		sum->cpu_measured = 1;
	}
}
