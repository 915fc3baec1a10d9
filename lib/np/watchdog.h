/* The watch on a silent or overrunning peer: the loops' own checks after a
 * socket time-out, and the coordinator's on a stream without one. */
#ifndef NP_WATCHDOG_H
#define NP_WATCHDOG_H

#include <stdint.h>

#include "np/runner.h"
#include "np/test_ctx.h"

/* test_ctx.wd_state: the loop runs, it ended, or the watch gave up on
 * its peer. */
enum { MODULE_WD_RUNNING, MODULE_WD_DONE, MODULE_WD_FIRED };

/* Seconds a silent peer is given past the end of a test before it is
 * declared gone. */
#define MODULE_GRACE_SEC 5
/* Seconds without progress after which a count-limited test gives up. */
#define MODULE_IDLE_SEC 10
/* Seconds past a timed test's end by which both ends have finished,
 * whatever the peer does. A sender's last call may block for the 1 s of
 * its socket time-out, and it then gives its receiver MODULE_GRACE_SEC to
 * drain and close; a peer still busy after that is not playing by the
 * protocol. */
#define MODULE_HARD_END_SEC (MODULE_GRACE_SEC + 2)

/*
 * Decides what a call that timed out (SO_RCVTIMEO/SO_SNDTIMEO) means for
 * a loop last making progress at last_progress: 0 to keep waiting, -1 with
 * ctx->err set when the peer has been silent too long (MODULE_IDLE_SEC
 * during the test, MODULE_GRACE_SEC past its end), or, when it made
 * progress after the end, has kept the test going past the hard end (the
 * message says it WHAT, as module_overtime's).
 */
int module_stalled(struct test_ctx *ctx, uint64_t now, uint64_t last_progress,
		   const char *what);

/*
 * Ends a timed test that a peer keeps going: returns -1 with ctx->err set
 * ("the peer WHAT N s past the end of the test") once now is
 * MODULE_HARD_END_SEC past ctx->end_ns, else 0 (always 0 when counting).
 */
int module_overtime(struct test_ctx *ctx, uint64_t now, const char *what);

/* The coordinator's watch on stream c at now (test_ctx.watched): fires
 * its watchdog, and shuts its socket down, when its peer has gone quiet. */
void watch_stream(const struct module_run *run, struct test_ctx *c,
		  uint64_t now);

#endif
