/*
 * Small files of the kernel's (/proc, /sys) read whole in one call.
 */
#ifndef NP_FILE_H
#define NP_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Reads at most cap - 1 bytes of path into buf, NUL-terminated; returns
 * the length, or -1 when it cannot be opened or read. */
ssize_t file_read_small(const char *path, char *buf, size_t cap);

#endif
