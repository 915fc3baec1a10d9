/* The loops' data buffers: their sizes, alignment, ring and fill, and
 * the pacing of the next send. */
#ifndef NP_BUFFERS_H
#define NP_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "np/test_ctx.h"

struct test_module;

/* A scratch buffer as large as the largest of sizes[0..n-1], filled with
 * netperf's pattern; NULL without memory. */
char *module_buffer(const int64_t *sizes, int nsizes, size_t *len);

/*
 * Gives ctx its buffer: as large as the largest of sizes, at offset bytes
 * past an align boundary (0: a page), width copies of it (0 or 1: one),
 * each filled with fill[0..fill_len) repeated, or netperf's pattern when
 * fill is NULL. Returns 0, or -1 without memory.
 */
int module_ctx_buffer(struct test_ctx *ctx, const int64_t *sizes, int nsizes,
		      const struct module_bufs *b, const char *fill,
		      size_t fill_len);

/* Frees what module_ctx_buffer gave ctx. */
void module_ctx_buffer_free(struct test_ctx *ctx);

/*
 * The buffer the next send uses: the next of the ring, its dirty words
 * written and clean words read (-k/-K), after waiting for the next -w
 * interval when this one's -b sends are spent. Returns NULL when the test
 * should stop while waiting.
 */
char *module_send_buffer(struct test_ctx *ctx);

/*
 * The data buffers netserver's half of m needs for a test with these
 * sizes: *shared bytes that every stream only sends from (one buffer for
 * all), and *each bytes that every stream receives into (its own).
 */
void module_server_buffers(const struct test_module *m, int64_t send_size,
			   int64_t recv_size, int64_t req_size,
			   int64_t rsp_size, int64_t *shared, int64_t *each);

#endif
