/*
 * bench/wakeprobe: how late this machine wakes a sleeping thread. Sleeps
 * to every millisecond on an absolute CLOCK_MONOTONIC schedule for the
 * seconds given (default 3, at most 60) and prints, as key=value, the
 * wake-ups, the latest one's lateness and how many were over 1, 10 and
 * 100 ms late. bench/sockul runs it beside its tools, pinned and at the
 * priority they run at, so that a result says how much of a tail is the
 * machine's own. Built by bench/sockul with cc; it uses no project code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define WAKEPROBE_PERIOD_NS 1000000ULL
#define WAKEPROBE_NS_PER_SEC 1000000000ULL

/* Now on CLOCK_MONOTONIC, in ns. */
static uint64_t
wakeprobe_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * WAKEPROBE_NS_PER_SEC + (uint64_t)t.tv_nsec;
}

int
main(int argc, char **argv)
{
	long secs = argc > 1 ? strtol(argv[1], NULL, 10) : 3;
	uint64_t t, end, late, max = 0;
	unsigned long wakes = 0, over1 = 0, over10 = 0, over100 = 0;
	struct timespec ts;

	if (argc > 2 || secs < 1 || secs > 60) {
		fprintf(stderr, "usage: wakeprobe [seconds, 1 to 60]\n");
		return 2;
	}
	/* The kernel's default 50 us of slack would be counted as lateness. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	t = wakeprobe_now();
	end = t + (uint64_t)secs * WAKEPROBE_NS_PER_SEC;
	while (t < end) {
		t += WAKEPROBE_PERIOD_NS;
		ts.tv_sec = (time_t)(t / WAKEPROBE_NS_PER_SEC);
		ts.tv_nsec = (long)(t % WAKEPROBE_NS_PER_SEC);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		late = wakeprobe_now() - t;
		wakes++;
		if (late > max)
			max = late;
		over1 += late > 1000000ULL;
		over10 += late > 10000000ULL;
		over100 += late > 100000000ULL;
	}
	printf("wakes=%lu max_late_us=%.1f over_1ms=%lu over_10ms=%lu "
	       "over_100ms=%lu\n",
	       wakes, (double)max / 1e3, over1, over10, over100);
	return 0;
}
