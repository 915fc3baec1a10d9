/* Error messages written into a caller's buffer, as anet and libpcap do. */
#ifndef NP_ERR_H
#define NP_ERR_H

#include <stddef.h>

/* Every error buffer handed to lib/ holds at least this many bytes. */
#define ERR_LEN 256

/* Formats a message into err (ERR_LEN bytes); always returns -1. */
int err_set(char *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
