/*
 * libFuzzer target for netperf 2.7's codec (lib/legacy.c): every decoder
 * over the raw input, and over the input cut or padded to one 656-byte
 * message so that mutations reach the field checks (the probe's answer and
 * CPU_CALIBRATE's too), and that message again under each type of the
 * classic requests, responses and results (TCP_STREAM's, TCP_CC's).
 * Whatever decodes must encode and decode again to the same values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np/be.h"
#include "np/err.h"
#include "np/legacy.h"
#include "np/module.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c)                                                         \
	do {                                                                   \
		if (!(c))                                                      \
			__builtin_trap();                                      \
	} while (0)

/* Strings that came out of a decoder always end inside their fields. */
#define ENDS(s) FUZZ_ASSERT(memchr((s), '\0', sizeof(s)) != NULL)

static void
decode_all(const unsigned char *buf, size_t len)
{
	unsigned char again[LEGACY_MSG_LEN];
	struct legacy_omni_request rq, rq2;
	struct legacy_omni_response rs, rs2;
	struct legacy_omni_results rr, rr2;
	struct legacy_header h;
	struct test_params p;
	char err[ERR_LEN], pass[LEGACY_DATA_LEN];
	float rate, rate2;
	int32_t ncpu, ncpu2;
	int probed;

	if (legacy_header_decode(buf, len, &h, err) < 0)
		FUZZ_ASSERT(len != LEGACY_MSG_LEN);
	if (legacy_request_decode(buf, len, &rq, err) == 0) {
		ENDS(rq.cong_control);
		ENDS(rq.fill_file);
		FUZZ_ASSERT(rq.data_port <= 65535);
		legacy_request_encode(&rq, h.word, again);
		FUZZ_ASSERT(legacy_request_decode(again, sizeof(again), &rq2,
						  err) == 0);
		FUZZ_ASSERT(memcmp(&rq, &rq2, sizeof(rq)) == 0);
		if (legacy_request_params(&rq, &p, err) == 0) {
			FUZZ_ASSERT(module_find(p.test) != NULL);
			FUZZ_ASSERT(p.duration >= 0 && p.count >= 0);
			FUZZ_ASSERT(p.req_size >= 0 && p.rsp_size >= 0);
		}
	}
	if (legacy_response_decode(buf, len, &rs, err) == 0) {
		ENDS(rs.system_model);
		ENDS(rs.cpu_model);
		ENDS(rs.security_string);
		FUZZ_ASSERT(rs.data_port >= 1 && rs.data_port <= 65535);
		legacy_response_encode(&rs, again);
		FUZZ_ASSERT(legacy_response_decode(again, sizeof(again), &rs2,
						   err) == 0);
		FUZZ_ASSERT(memcmp(&rs, &rs2, sizeof(rs)) == 0);
	}
	if (legacy_results_decode(buf, len, &rr, err) == 0) {
		ENDS(rr.ifname);
		ENDS(rr.cong_control);
		legacy_results_encode(&rr, LEGACY_OMNI_RESPONSE, again);
		FUZZ_ASSERT(legacy_results_decode(again, sizeof(again), &rr2,
						  err) == 0);
		FUZZ_ASSERT(memcmp(&rr, &rr2, sizeof(rr)) == 0);
	}
	if (legacy_passphrase_decode(buf, len, pass, sizeof(pass), err) == 0)
		FUZZ_ASSERT(strlen(pass) < sizeof(pass));
	if (legacy_calibrate_answer_decode(buf, len, &rate, &ncpu, err) == 0) {
		FUZZ_ASSERT(rate >= 0 && rate <= 1e9 && ncpu >= 1);
		legacy_calibrate_answer_encode(rate, ncpu, again);
		FUZZ_ASSERT(legacy_calibrate_answer_decode(
				again, sizeof(again), &rate2, &ncpu2, err) == 0);
		FUZZ_ASSERT(rate == rate2 && ncpu == ncpu2);
	}
	probed = legacy_probe_answer(buf, len, err);
	FUZZ_ASSERT(probed >= -1 && probed <= 1);
	if (legacy_is_probe(buf, len))
		FUZZ_ASSERT(legacy_sniff(buf, len) == 1);
	legacy_sniff(buf, len);
}

/* The classic codec's decoders, each under the type in the first word. */
static void
decode_classic(const unsigned char *buf, size_t len)
{
	static const int32_t rsp[] = {LEGACY_TCP_STREAM_RESPONSE,
				      LEGACY_TCP_CC_RESPONSE};
	unsigned char again[LEGACY_MSG_LEN];
	struct legacy_classic_request q, q2;
	struct legacy_classic_response a, a2;
	struct legacy_classic_results z, z2;
	struct legacy_header h;
	struct test_params p;
	char err[ERR_LEN];

	if (legacy_classic_request_decode(buf, len, &q, err) == 0) {
		FUZZ_ASSERT(legacy_header_decode(buf, len, &h, err) == 0);
		FUZZ_ASSERT(q.port >= 0 && q.port <= 65535);
		legacy_classic_request_encode(&q, h.word, again);
		FUZZ_ASSERT(legacy_classic_request_decode(again, sizeof(again),
							  &q2, err) == 0);
		FUZZ_ASSERT(memcmp(&q, &q2, sizeof(q)) == 0);
		if (legacy_classic_params(&q, &p, err) == 0) {
			FUZZ_ASSERT(module_find(p.test) != NULL);
			FUZZ_ASSERT(p.duration > 0 || p.count > 0);
			FUZZ_ASSERT(p.rrecv_size >= 0 && p.req_size >= 0);
			FUZZ_ASSERT(p.rsndbuf >= -1 && p.rrcvbuf >= -1);
		}
	}
	for (size_t i = 0; i < sizeof(rsp) / sizeof(rsp[0]); i++) {
		if (legacy_classic_response_decode(buf, len, rsp[i], &a,
						   err) == 0) {
			FUZZ_ASSERT(a.data_port >= 1 && a.data_port <= 65535);
			legacy_classic_response_encode(&a, again);
			FUZZ_ASSERT(legacy_classic_response_decode(
					again, sizeof(again), rsp[i], &a2,
					err) == 0);
			FUZZ_ASSERT(memcmp(&a, &a2, sizeof(a)) == 0);
		}
		if (legacy_classic_results_decode(buf, len, rsp[i], &z, err) ==
		    0) {
			FUZZ_ASSERT(z.bytes_received >= 0);
			legacy_classic_results_encode(&z, again);
			FUZZ_ASSERT(legacy_classic_results_decode(
					again, sizeof(again), rsp[i], &z2,
					err) == 0);
			FUZZ_ASSERT(memcmp(&z, &z2, sizeof(z)) == 0);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char msg[LEGACY_MSG_LEN];

	decode_all(data, size);
	memset(msg, 0, sizeof(msg));
	memcpy(msg, data, size < sizeof(msg) ? size : sizeof(msg));
	decode_all(msg, sizeof(msg));
	decode_classic(data, size);
	decode_classic(msg, sizeof(msg));
	/* The same bytes as each classic message, with no serv_errno. */
	for (int i = 0; i < 4; i++) {
		static const uint32_t type[] = {
		    LEGACY_DO_TCP_STREAM, LEGACY_DO_TCP_CC,
		    LEGACY_TCP_STREAM_RESPONSE, LEGACY_TCP_CC_RESPONSE};

		be32_put(msg, type[i]);
		if (i >= 2)
			be32_put(msg + 4, 0);
		decode_classic(msg, sizeof(msg));
	}
	return 0;
}
