/*
 * Shell completion for netperf and netserver, written from the same option
 * tables that drive the usage text and the man-page check, so that a new
 * option completes the day it is added.
 */
#ifndef NP_COMPLETE_H
#define NP_COMPLETE_H

#include <stdio.h>

/*
 * Writes a completion script for shell (only "bash" so far) to out.
 * Returns 0, or -1 with err set for a shell it cannot serve.
 */
int complete_script(FILE *out, const char *shell, char *err);

#endif
