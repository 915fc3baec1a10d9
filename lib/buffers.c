#include "np/buffers.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "np/clock.h"
#include "np/module.h"

char *
module_buffer(const int64_t *sizes, int nsizes, size_t *len)
{
	size_t n = 1;
	char *buf;
	int i;

	for (i = 0; i < nsizes; i++)
		if (sizes[i] > 0 && (size_t)sizes[i] > n)
			n = (size_t)sizes[i];
	/* Page-aligned: the kernel copies into a buffer at an odd multiple
	 * of 16 bytes at half speed on some CPUs, and malloc promises 16. */
	if (posix_memalign((void **)&buf, 4096, n) != 0)
		return NULL;
	/* netperf's fill pattern, so captures look familiar: one block,
	 * then copies of what is filled so far, doubling each time, so a
	 * 64 MiB buffer takes a few memcpy calls, not 64 M stores. */
	memcpy(buf, "netperf", n < 8 ? n : 8);
	for (size_t done = 8; done < n; done *= 2)
		memcpy(buf + done, buf, n - done < done ? n - done : done);
	*len = n;
	return buf;
}

int
module_ctx_buffer(struct test_ctx *ctx, const int64_t *sizes, int nsizes,
		  const struct module_bufs *b, const char *fill,
		  size_t fill_len)
{
	size_t n = 1, align, off, stride, total;
	int width = b != NULL && b->width > 1 ? b->width : 1;
	char *mem, *p;

	for (int i = 0; i < nsizes; i++)
		if (sizes[i] > 0 && (size_t)sizes[i] > n)
			n = (size_t)sizes[i];
	/* netperf 2.7 aligns and offsets each buffer of its ring; the send
	 * and receive buffers are one here, so the send alignment rules
	 * (and the receive one when only it is given). */
	align = b != NULL && b->salign > 0   ? (size_t)b->salign
		: b != NULL && b->ralign > 0 ? (size_t)b->ralign
					     : 4096;
	off = b != NULL && b->soff > 0	 ? (size_t)b->soff
	      : b != NULL && b->roff > 0 ? (size_t)b->roff
					 : 0;
	stride = (n + off + align - 1) / align * align;
	total = stride * (size_t)width + align + off;
	mem = malloc(total);
	if (mem == NULL)
		return -1;
	p = (char *)(((uintptr_t)mem + align - 1) / align * align) + off;
	for (int w = 0; w < width; w++) {
		char *q = p + (size_t)w * stride;

		for (size_t j = 0; j < n; j++)
			q[j] = fill != NULL && fill_len > 0
				   ? fill[j % fill_len]
				   : "netperf"[j % 8];
	}
	ctx->mem = mem;
	ctx->buf = p;
	ctx->buflen = n;
	ctx->stride = stride;
	ctx->width = width;
	ctx->slot = 0;
	ctx->bufs = b;
	return 0;
}

void
module_ctx_buffer_free(struct test_ctx *ctx)
{
	free(ctx->mem);
	ctx->mem = NULL;
	ctx->buf = NULL;
}

char *
module_send_buffer(struct test_ctx *ctx)
{
	const struct test_params *p = ctx->p;
	char *b = ctx->buf;

	if (ctx->width > 1) {
		b = ctx->buf + (size_t)ctx->slot * ctx->stride;
		ctx->slot = (ctx->slot + 1) % ctx->width;
	}
	const struct module_bufs *bf = ctx->bufs;

	if (bf != NULL && (bf->dirty > 0 || bf->clean > 0)) {
		/* As 2.7's access_buffer: write dirty words, read clean
		 * ones, so the send touches memory the cache may not hold. */
		volatile int *w = (volatile int *)(void *)b;
		size_t words = ctx->buflen / sizeof(int);
		unsigned sink = 0;

		for (size_t i = 0; i < (size_t)bf->dirty && i < words; i++)
			w[i] = (int)(i * 2654435761u);
		for (size_t i = (size_t)bf->dirty;
		     i < (size_t)bf->dirty + (size_t)bf->clean && i < words;
		     i++)
			sink += (unsigned)w[i];
		(void)sink;
	}
	if (p->interval_ms > 0 && p->interval_burst > 0) {
		uint64_t now = clock_ns(),
			 gap = (uint64_t)(p->interval_ms * 1e6);

		if (ctx->pace_next == 0) {
			ctx->pace_next = now + gap;
			ctx->pace_left = p->interval_burst;
		}
		if (ctx->pace_left == 0) {
			struct timespec ts;

			if (*ctx->stop || (ctx->end_ns != 0 &&
					   ctx->pace_next >= ctx->end_ns))
				return NULL;
			ts.tv_sec = (time_t)(ctx->pace_next / NS_PER_SEC);
			ts.tv_nsec = (long)(ctx->pace_next % NS_PER_SEC);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
			ctx->pace_next += gap;
			ctx->pace_left = p->interval_burst;
		}
		ctx->pace_left--;
	}
	return b;
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

void
module_server_buffers(const struct test_module *m, int64_t send_size,
		      int64_t recv_size, int64_t req_size, int64_t rsp_size,
		      int64_t *shared, int64_t *each)
{
	*shared = 0;
	*each = 0;
	switch (m->flow) {
	case MODULE_TO_CLIENT:
		/* The sender only sends from its buffer. */
		*shared = max64(send_size, 1);
		break;
	case MODULE_TO_SERVER:
		*each = max64(recv_size, 1);
		break;
	case MODULE_BOTH:
		/* The request is read into the buffer the response goes
		 * from; a datagram is read whole, as large as it comes. */
		*each = max64(max64(req_size, rsp_size), 1);
		if (m->socktype == SOCK_DGRAM)
			*each = max64(*each, recv_size);
		break;
	}
}
