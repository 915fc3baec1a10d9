/* Monotonic time as 64-bit nanoseconds; every interval is measured with it. */
#ifndef NP_CLOCK_H
#define NP_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NS_PER_SEC 1000000000ULL

/* Returns CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t
clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Returns CLOCK_REALTIME in seconds, for timestamps a person reads. */
static inline double
clock_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Returns CLOCK_REALTIME in nanoseconds since the epoch (UTC): the one
 * clock hosts share (through NTP or PTP), so it schedules and stamps a
 * start that several hosts must agree on. */
static inline int64_t
clock_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * (int64_t)NS_PER_SEC + (int64_t)ts.tv_nsec;
}

#endif
