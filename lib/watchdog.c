#include "np/watchdog.h"

#include <linux/sockios.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "np/clock.h"
#include "np/err.h"

/* module_overtime's rule for a test ending at end_ns (0: counted), with
 * its message in err. */
static int
overtime_rule(uint64_t end_ns, uint64_t now, const char *what, char *err)
{
	if (end_ns == 0 || now < end_ns + MODULE_HARD_END_SEC * NS_PER_SEC)
		return 0;
	return err_set(err, "the peer %s %d s past the end of the test", what,
		       MODULE_HARD_END_SEC);
}

/* module_stalled's rule, the same way: the loops apply it to their own
 * context, the coordinator's watch to a stream it watches. */
static int
stall_rule(uint64_t end_ns, uint64_t now, uint64_t last_progress,
	   const char *what, char *err)
{
	if (end_ns != 0 && now >= end_ns) {
		/* A peer still busy after the end is not silent: it is held
		 * to the hard end, and told what it did. */
		if (last_progress > end_ns)
			return overtime_rule(end_ns, now, what, err);
		if (now >= end_ns + MODULE_GRACE_SEC * NS_PER_SEC)
			return err_set(err,
				       "the peer stopped responding "
				       "(nothing for %d s after the "
				       "end of the test)",
				       MODULE_GRACE_SEC);
		return 0;
	}
	if (now - last_progress >= MODULE_IDLE_SEC * NS_PER_SEC)
		return err_set(err,
			       "the peer stopped responding (no progress for "
			       "%d s)",
			       MODULE_IDLE_SEC);
	return 0;
}

/*
 * The watch on a stream without socket time-outs, from the coordinator:
 * stall_rule, as the loops apply it, on the stream's progress (its calls,
 * send queue and transactions). A stream whose peer
 * broke them is marked, and its socket shut down so that the loop's
 * blocked call returns.
 */
void
watch_stream(const struct module_run *run, struct test_ctx *c, uint64_t now)
{
	const struct side_result *r = c->r;
	uint64_t moved, trans, end = 0;
	int running = MODULE_WD_RUNNING, outq = 0;

	if (__atomic_load_n(&c->wd_state, __ATOMIC_ACQUIRE) !=
	    MODULE_WD_RUNNING)
		return;
	/* Bytes moving (a call returned, or the send queue changed as the
	 * peer takes a long message), and whole transactions. */
	if (ioctl(c->fd, SIOCOUTQ, &outq) < 0)
		outq = 0;
	moved = __atomic_load_n(&r->recv_calls, __ATOMIC_RELAXED) +
		__atomic_load_n(&r->send_calls, __ATOMIC_RELAXED) +
		(uint64_t)(unsigned)outq;
	trans = __atomic_load_n(&r->trans, __ATOMIC_RELAXED);
	if (c->wd_at == 0 || moved != c->wd_seen) {
		c->wd_seen = moved;
		c->wd_any_at = now;
	}
	if (c->wd_at == 0 || trans != c->wd_trans) {
		c->wd_trans = trans;
		c->wd_at = now;
	}
	/* As the loops did when a socket time-out of 1 s woke them: judged
	 * only after a wait of 1 s in which nothing moved, by the time since
	 * the last whole transaction. */
	if (now - c->wd_any_at < NS_PER_SEC)
		return;
	if (c->p->duration > 0)
		end = run->start_ns + (uint64_t)(c->p->duration * 1e9);
	/* Idle during the test with data still queued: the peer stopped
	 * taking it, as send_full says. */
	if (outq > 0 && (end == 0 || now < end) &&
	    now - c->wd_at >= MODULE_IDLE_SEC * NS_PER_SEC)
		snprintf(c->wd_err, sizeof(c->wd_err),
			 "the peer stopped reading requests for %d s",
			 MODULE_IDLE_SEC);
	else if (stall_rule(end, now, c->wd_at,
			    run->is_server ? "kept sending requests"
					   : "kept the test going",
			    c->wd_err) == 0)
		return;
	if (__atomic_compare_exchange_n(&c->wd_state, &running,
					MODULE_WD_FIRED, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		shutdown(c->fd, SHUT_RDWR);
}

int
module_stalled(struct test_ctx *ctx, uint64_t now, uint64_t last_progress,
	       const char *what)
{
	return stall_rule(ctx->end_ns, now, last_progress, what, ctx->err);
}

int
module_overtime(struct test_ctx *ctx, uint64_t now, const char *what)
{
	return overtime_rule(ctx->end_ns, now, what, ctx->err);
}
