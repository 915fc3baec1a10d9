/* Shared helpers for the Check suites: running a suite, starting netserver. */
#ifndef NP_HARNESS_H
#define NP_HARNESS_H

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

/* Runs suite s with Check's normal verbosity; returns the process exit code
 * (0 when every test passed). */
int harness_run(Suite *s);

#endif
