/*
 * libFuzzer target for netperf 2.7's codec (lib/legacy.c): every decoder
 * over the raw input, and over the input cut or padded to one 656-byte
 * message so that mutations reach the field checks (the probe's answer and
 * CPU_CALIBRATE's too). Whatever decodes must
 * encode and decode again to the same values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char msg[LEGACY_MSG_LEN];

	decode_all(data, size);
	memset(msg, 0, sizeof(msg));
	memcpy(msg, data, size < sizeof(msg) ? size : sizeof(msg));
	decode_all(msg, sizeof(msg));
	return 0;
}
