/*
 * libFuzzer target for the control protocol decoder and everything that
 * reads a decoded message: the request, result and histogram codecs,
 * netserver's request validator and the statistics a histogram feeds;
 * and the escaping of peer text, which every error message it makes must
 * already have had (no raw byte of the input reaches a log).
 *
 * An input that starts with a zero byte is a byte stream as it comes off
 * the control socket: frames are decoded from it one after another. Any
 * other input is a payload that gets a correct length header in front,
 * so that mutations reach the JSON parser instead of dying in the framing
 * (a valid header's first byte is always zero, a JSON text's never is).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np/err.h"
#include "np/escape.h"
#include "np/proto.h"
#include "np/server.h"
#include "np/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Invariants are checked with a trap, which libFuzzer reports as a crash
 * with the input that broke it. */
#define FUZZ_ASSERT(c)                                                         \
	do {                                                                   \
		if (!(c))                                                      \
			__builtin_trap();                                      \
	} while (0)

/* An error message holds printable ASCII only, whatever the input. */
static void
check_printable(const char *s)
{
	for (; *s != '\0'; s++)
		FUZZ_ASSERT(*s >= 0x20 && *s < 0x7f);
}

/* escape_peer's promise: printable, bounded, NUL-terminated. */
static void
check_escape(const uint8_t *data, size_t size)
{
	char out[ESCAPE_LEN + 8];

	memset(out, 'Z', sizeof(out));
	escape_peer(out, ESCAPE_LEN, (const char *)data, size);
	FUZZ_ASSERT(strlen(out) <= ESCAPE_MAX);
	FUZZ_ASSERT(out[ESCAPE_LEN] == 'Z');
	check_printable(out);
	if (size * 4 <= ESCAPE_MAX)
		FUZZ_ASSERT(strstr(out, "...") == NULL ||
			    memmem(data, size, "...", 3) != NULL);
}

/* What the encoder gives back must decode to the same message. */
static void
round_trip(const json_t *msg)
{
	static char buf[PROTO_MAX_MSG + PROTO_HDR_LEN];
	char err[ERR_LEN];
	json_t *back = NULL;
	ssize_t n;

	n = proto_encode(msg, buf, sizeof(buf), err);
	if (n < 0)
		return; /* re-encoding may grow: "1e5" becomes "100000.0" */
	FUZZ_ASSERT(proto_decode(buf, (size_t)n, &back, err) == n);
	FUZZ_ASSERT(json_equal(msg, back));
	json_decref(back);
}

static void
check_request(const json_t *msg)
{
	struct server_limits lim;
	struct test_params p, q;
	char err[ERR_LEN];
	json_t *again;

	if (proto_request_unpack(msg, &p, err) < 0) {
		check_printable(err);
		return;
	}
	server_limits_default(&lim);
	if (server_check_request(&p, &lim, err) < 0)
		check_printable(err);
	/* An accepted request survives packing and unpacking unchanged. */
	again = proto_request_pack(&p);
	FUZZ_ASSERT(again != NULL);
	FUZZ_ASSERT(proto_request_unpack(again, &q, err) == 0);
	FUZZ_ASSERT(memcmp(&p, &q, sizeof(p)) == 0);
	json_decref(again);
}

static void
check_result(const json_t *msg)
{
	struct side_result r, s;
	char err[ERR_LEN];
	json_t *again;

	/* Freed on success only: a failed unpack must leave nothing to free,
	 * as netperf's client does not free after one, and LeakSanitizer
	 * holds it to that. */
	if (proto_result_unpack(msg, &r, err) < 0)
		return;
	again = proto_result_pack(&r);
	FUZZ_ASSERT(again != NULL);
	FUZZ_ASSERT(proto_result_unpack(again, &s, err) == 0);
	FUZZ_ASSERT(s.cpu_measured == r.cpu_measured);
	FUZZ_ASSERT(s.cpu.nslots == r.cpu.nslots);
	/* TCP_INFO figures survive the round trip exactly. */
	FUZZ_ASSERT(memcmp(&s.tcpi, &r.tcpi, sizeof(r.tcpi)) == 0);
	cpu_util_free(&s.cpu);
	json_decref(again);
	cpu_util_free(&r.cpu);
}

static void
check_interim(const json_t *msg)
{
	struct proto_interim a, b;
	char err[ERR_LEN];
	json_t *again;

	if (proto_interim_unpack(msg, 64, &a, err) < 0) {
		check_printable(err);
		return;
	}
	/* An accepted report survives packing and unpacking unchanged. */
	again = proto_interim_pack(&a);
	FUZZ_ASSERT(again != NULL);
	FUZZ_ASSERT(proto_interim_unpack(again, 64, &b, err) == 0);
	FUZZ_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
	json_decref(again);
}

static void
check_hist(const json_t *j)
{
	static struct stats_hist h, g;
	char err[ERR_LEN];
	json_t *again;

	if (j == NULL || proto_hist_unpack(j, &h, err) < 0)
		return;
	/* What a peer's histogram is used for: none of it may misbehave,
	 * however inconsistent min, max, sum and the buckets are. */
	stats_hist_percentile(&h, 0);
	stats_hist_percentile(&h, 50);
	stats_hist_percentile(&h, 99.9);
	stats_hist_percentile(&h, 100);
	stats_hist_mean(&h);
	stats_hist_stddev(&h);
	again = proto_hist_pack(&h);
	FUZZ_ASSERT(again != NULL);
	FUZZ_ASSERT(proto_hist_unpack(again, &g, err) == 0);
	FUZZ_ASSERT(g.count == h.count && g.sum == h.sum && g.sumsq == h.sumsq);
	FUZZ_ASSERT(memcmp(g.bucket, h.bucket, sizeof(h.bucket)) == 0);
	json_decref(again);
}

static void
check_platform(const json_t *j)
{
	static struct platform p, q;
	char err[ERR_LEN], b[512];
	json_t *again;

	if (j == NULL || proto_platform_unpack(j, &p, err) < 0)
		return;
	platform_offloads_text(&p.nic, b, sizeof(b));
	platform_vulnerable_text(&p, b, sizeof(b));
	/* An accepted record survives packing and unpacking unchanged. */
	again = proto_platform_pack(&p);
	FUZZ_ASSERT(again != NULL);
	FUZZ_ASSERT(proto_platform_unpack(again, &q, err) == 0);
	FUZZ_ASSERT(memcmp(&p, &q, sizeof(p)) == 0);
	json_decref(again);
}

static void
exercise(const json_t *msg)
{
	round_trip(msg);
	check_request(msg);
	check_result(msg);
	check_interim(msg);
	check_hist(msg);
	check_hist(json_object_get(msg, "hist"));
	check_platform(msg);
	check_platform(json_object_get(msg, "platform"));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[ERR_LEN];
	const char *buf;
	char *framed = NULL;
	json_t *msg;
	ssize_t n;
	size_t off = 0;

	if (size == 0)
		return 0;
	check_escape(data, size);
	if (data[0] == 0) {
		buf = (const char *)data;
	} else {
		/* An exact-length copy, so AddressSanitizer sees any read past
		 * the end. */
		framed = malloc(size + PROTO_HDR_LEN);
		if (framed == NULL)
			return 0;
		framed[0] = (char)(size >> 24);
		framed[1] = (char)(size >> 16);
		framed[2] = (char)(size >> 8);
		framed[3] = (char)size;
		memcpy(framed + PROTO_HDR_LEN, data, size);
		buf = framed;
		size += PROTO_HDR_LEN;
	}
	while (off < size) {
		n = proto_decode(buf + off, size - off, &msg, err);
		FUZZ_ASSERT(n == -1 || n == -2 || n > PROTO_HDR_LEN);
		FUZZ_ASSERT((n > 0) == (msg != NULL));
		if (n == -1)
			check_printable(err);
		if (n < 0)
			break;
		FUZZ_ASSERT((size_t)n <= size - off);
		FUZZ_ASSERT(proto_type(msg) != NULL);
		exercise(msg);
		json_decref(msg);
		off += (size_t)n;
	}
	free(framed);
	return 0;
}
