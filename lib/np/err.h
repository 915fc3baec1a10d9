/* Error messages written into a caller's buffer, as anet and libpcap do. */
#ifndef NP_ERR_H
#define NP_ERR_H

#include <stddef.h>

/* Every error buffer handed to lib/ holds at least this many bytes. */
#define ERR_LEN 256

/* Formats a message into err (ERR_LEN bytes); does nothing if err is NULL. */
void err_put(char *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Formats a message into err (ERR_LEN bytes); always returns -1. It is a
 * macro (a GNU statement expression, so it may also stand alone as a
 * statement) so that the compiler sees the -1: a parser that returns
 * err_set(...) on every failure then visibly sets its out-parameters
 * whenever it returns 0, which -O3 otherwise cannot prove and warns
 * about (-Wmaybe-uninitialized) in each caller it inlines into.
 */
#define err_set(err, ...)                                                      \
	({                                                                     \
		err_put((err), __VA_ARGS__);                                   \
		-1;                                                            \
	})

#endif
