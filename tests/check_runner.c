/*
 * The runner of runner.c (module_run_all), driven directly with a loop of
 * the test's own: what both programs do between the gate and the results,
 * without sockets. The end of a test is an event: the coordinator returns
 * when the last stream does, not at the next slice of a sleep.
 */
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "np/module.h"
#include "np/clock.h"

/* Well under the coordinator's old 50 ms slice, which the loop below
 * cannot beat however fast the machine; well over a wake-up's cost. */
#define RUNNER_END_MS 25
/* Runs a check gets before its best is judged: a busy machine can stall
 * one wake-up, not every one. */
#define RUNNER_TRIES 7

/* When the loop below returned, CLOCK_MONOTONIC ns. */
static uint64_t loop_end_ns;

/* A stream that runs 2 ms and ends. */
static int
short_loop(struct test_ctx *ctx)
{
	struct timespec ts = {0, 2000000};

	(void)ctx;
	nanosleep(&ts, NULL);
	loop_end_ns = clock_ns();
	return 0;
}

static const struct test_module short_module = {
    .name = "SHORT",
    .title = "SHORT TEST",
    .socktype = SOCK_DGRAM,
    .protocol = IPPROTO_UDP,
    .flow = MODULE_TO_SERVER,
    .unit = MODULE_BYTES,
    .client = short_loop,
    .server = short_loop,
};

static void
on_stop(void *arg)
{
	(void)arg;
}

static void
on_interim(void *arg, double count, double secs, double since_start,
	   const struct tcpinfo *tcpi, const struct module_interval *ivl)
{
	(void)ivl;
	(void)arg;
	(void)count;
	(void)secs;
	(void)since_start;
	(void)tcpi;
}

/*
 * One run of a stream of short_loop with the coordinator watching (a
 * Ctrl-C to pass on, or interim reports every 10 s): the ns from the
 * loop's end to module_run_all's return.
 */
static uint64_t
end_to_return(int interim)
{
	static volatile sig_atomic_t stop;
	struct test_params p;
	struct side_result r;
	struct test_ctx ctx;
	struct module_run run;
	char err[ERR_LEN];
	uint64_t back;

	memset(&p, 0, sizeof(p));
	memset(&r, 0, sizeof(r));
	memset(&ctx, 0, sizeof(ctx));
	memset(&run, 0, sizeof(run));
	ctx.p = &p;
	ctx.fd = -1;
	ctx.ctl = -1;
	ctx.stop = &stop;
	ctx.r = &r;
	run.m = &short_module;
	run.n = 1;
	run.ctx = &ctx;
	if (interim) {
		run.interim_sec = 10;
		run.on_interim = on_interim;
	} else {
		run.on_stop = on_stop;
	}
	ck_assert_msg(module_run_all(&run, err) == 0, "%s", err);
	back = clock_ns();
	ck_assert(back >= loop_end_ns);
	return back - loop_end_ns;
}

/* The best of RUNNER_TRIES runs, in ms, stopping at one under the
 * bound. */
static double
best_end_ms(int interim)
{
	double best = 1e9, ms;

	for (int i = 0; i < RUNNER_TRIES && best >= RUNNER_END_MS; i++) {
		ms = (double)end_to_return(interim) / 1e6;
		if (ms < best)
			best = ms;
	}
	return best;
}

START_TEST(end_wakes_coordinator)
{
	double ms = best_end_ms(0);

	ck_assert_msg(ms < RUNNER_END_MS,
		      "the runner returned %.1f ms after its stream ended "
		      "(best of %d)",
		      ms, RUNNER_TRIES);
}
END_TEST

START_TEST(end_wakes_interim_wait)
{
	double ms = best_end_ms(1);

	ck_assert_msg(ms < RUNNER_END_MS,
		      "with -D 10, the runner returned %.1f ms after its "
		      "stream ended (best of %d)",
		      ms, RUNNER_TRIES);
}
END_TEST

static Suite *
runner_suite(void)
{
	Suite *s = suite_create("runner");
	TCase *tc = tcase_create("end");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, end_wakes_coordinator);
	tcase_add_test(tc, end_wakes_interim_wait);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(runner_suite());
}
