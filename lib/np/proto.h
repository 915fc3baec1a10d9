/*
 * The control protocol: framing and message encode/decode over buffers.
 *
 * A frame is a 4-byte big-endian payload length followed by that many bytes
 * of one JSON object (RFC 8259, UTF-8). Every object has a string "type".
 * No I/O happens here, so every function can be unit-tested and fuzzed.
 * doc/protocol.md is the specification.
 */
#ifndef NP_PROTO_H
#define NP_PROTO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "np/module.h"
#include "np/platform.h"
#include "np/result.h"

#define PROTO_VERSION 1
#define PROTO_HDR_LEN 4
/* The largest payload either side accepts or sends, but for results. */
#define PROTO_MAX_MSG 65536
/* The largest "results" message: a thread a stream sends each stream's
 * result (FLOWS_THREAD_EACH_MAX of them, about 1 KB each), and netperf,
 * having chosen its netserver, reads one that large. netserver never
 * reads more than PROTO_MAX_MSG. */
#define PROTO_MAX_RESULTS (8 << 20)

/* Encodes msg as one frame into buf; returns the frame's length, or -1
 * with err set (not an object, no type, larger than PROTO_MAX_MSG, or
 * PROTO_MAX_RESULTS for a "results" message). */
ssize_t proto_encode(const json_t *msg, char *buf, size_t cap, char *err);

/* The frame msg encodes to, in a new buffer (*out, the caller's to free;
 * NULL on failure); returns its length, or -1 with err set as
 * proto_encode. */
ssize_t proto_encode_new(const json_t *msg, char **out, char *err);

/* The largest payload this process reads: PROTO_MAX_MSG unless raised
 * (netperf raises it to PROTO_MAX_RESULTS). */
void proto_set_recv_max(size_t max);
size_t proto_recv_max(void);

/* The payload length a header announces; returns it, or -1 with err set
 * when it is zero or above proto_recv_max(). */
long proto_frame_len(const unsigned char *hdr, char *err);

/*
 * Decodes one frame at the start of buf. Returns the bytes consumed with
 * *msg set (the caller owns it), -2 when buf holds only part of a frame,
 * or -1 with err set for a frame that is oversized or not a JSON object
 * with a string "type".
 */
ssize_t proto_decode(const char *buf, size_t len, json_t **msg, char *err);

/* The message's type string; "" when it has none. */
const char *proto_type(const json_t *msg);

/* A new message object of the given type; NULL only without memory. */
json_t *proto_new(const char *type);

/* An error message carrying text for a person. */
json_t *proto_error(const char *text);

/* Encodes a test request; NULL only without memory. */
json_t *proto_request_pack(const struct test_params *p);

/* Decodes and range-checks a request into p; returns 0, or -1 with err
 * naming the first bad or missing field. */
int proto_request_unpack(const json_t *msg, struct test_params *p, char *err);

/* Adds to netserver's ready what it will do of p that an older netserver
 * would silently ignore (one_way, load_up, load_down). */
void proto_ready_confirm(json_t *ready, const struct test_params *p);

/* Whether ready confirms all that p asked for of that kind; returns 0, or
 * -1 with err naming the option and an older netserver. */
int proto_ready_check(const json_t *ready, const struct test_params *p,
		      char *err);

/* Encodes one side's result; NULL only without memory. */
json_t *proto_result_pack(const struct side_result *r);

/* Decodes a result into r (caller frees r->cpu with cpu_util_free);
 * returns 0, or -1 with err set. */
int proto_result_unpack(const json_t *msg, struct side_result *r, char *err);

/* Encodes TCP_INFO figures: "connections" and one key a field, null
 * where unknown. NULL only without memory. */
json_t *proto_tcpinfo_pack(const struct tcpinfo *t);

/* Decodes them (absent or null fields unknown); returns 0, or -1 with
 * err set. */
int proto_tcpinfo_unpack(const json_t *j, struct tcpinfo *t, char *err);

/* The request's "interim", seconds: -D's own bounds. */
#define PROTO_INTERIM_MIN 0.001
#define PROTO_INTERIM_MAX 86400.0

/* What an "interim" message carries: netserver's TCP_INFO over its
 * interval n (from 0), interval seconds long, ending since_start seconds
 * after its streams started. */
struct proto_interim {
	int64_t n;
	double interval, since_start;
	struct tcpinfo tcpi;
};

/* Encodes an interim report; NULL only without memory. */
json_t *proto_interim_pack(const struct proto_interim *iv);

/* Decodes and range-checks one, of a test with max_conns connections;
 * returns 0, or -1 with err naming the bad or missing field. */
int proto_interim_unpack(const json_t *msg, int max_conns,
			 struct proto_interim *iv, char *err);

/* Encodes a latency histogram as sparse [index, count] pairs. */
json_t *proto_hist_pack(const struct stats_hist *h);

/* Decodes a histogram packed by proto_hist_pack; returns 0, or -1 with
 * err set. */
int proto_hist_unpack(const json_t *j, struct stats_hist *h, char *err);

/* Encodes where a side's threads ran. */
json_t *proto_place_pack(const struct result_place *pl);

/* Decodes a placement; returns 0, or -1 with err set. */
int proto_place_unpack(const json_t *j, struct result_place *pl, char *err);

/* Encodes one side's wire figures. */
json_t *proto_wire_pack(const struct wire_report *w);

/* Decodes them; returns 0, or -1 with err set. */
int proto_wire_unpack(const json_t *j, struct wire_report *w, char *err);

/* Encodes a side's platform record; NULL only without memory. */
json_t *proto_platform_pack(const struct platform *p);

/* Decodes one (absent fields stay unknown); returns 0, or -1 with err
 * set. */
int proto_platform_unpack(const json_t *j, struct platform *p, char *err);

/* Makes every string of a record a peer sent printable, in place: one
 * with a byte outside printable ASCII or a backslash becomes escape_str's
 * form (\xNN), bounded by its field; a plain one stays whole. */
void proto_platform_escape(struct platform *p);

/* Reads an integer field in [min, max]; returns 0, or -1 with err set. */
int proto_get_int(const json_t *obj, const char *key, int64_t min, int64_t max,
		  int64_t *out, char *err);

/* Reads a finite number field in [min, max]; returns 0, or -1 with err. */
int proto_get_double(const json_t *obj, const char *key, double min, double max,
		     double *out, char *err);

/* Reads a string field of at most cap-1 bytes; returns 0, or -1 with err. */
int proto_get_string(const json_t *obj, const char *key, char *out, size_t cap,
		     char *err);

#endif
