/* Tests for lib/proto: framing, decoding and the message codecs. */
#include "harness.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np/err.h"
#include "np/proto.h"
#include "np/server.h"
#include "np/session.h"
#include "np/stats.h"
#include "np/wire.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * The decoder is handed an exact-length heap copy, so that under
 * AddressSanitizer any read past len is caught rather than hidden by
 * whatever follows in a larger buffer.
 */
static ssize_t
decode_exact(const char *buf, size_t len, json_t **msg, char *err)
{
	char *copy = malloc(len > 0 ? len : 1);
	ssize_t rc;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, buf, len);
	rc = proto_decode(copy, len, msg, err);
	free(copy);
	return rc;
}

/* A frame around an arbitrary payload, header computed from its length. */
static char *
frame_of(const char *payload, size_t plen, size_t *flen)
{
	char *f = malloc(plen + PROTO_HDR_LEN);

	ck_assert_ptr_nonnull(f);
	f[0] = (char)(plen >> 24);
	f[1] = (char)(plen >> 16);
	f[2] = (char)(plen >> 8);
	f[3] = (char)plen;
	memcpy(f + PROTO_HDR_LEN, payload, plen);
	*flen = plen + PROTO_HDR_LEN;
	return f;
}

/* Encodes msg into a fresh buffer of exactly the frame's length. */
static char *
encode_ok(const json_t *msg, size_t *flen)
{
	char *buf = malloc(PROTO_MAX_MSG + PROTO_HDR_LEN);
	char err[ERR_LEN] = "";
	ssize_t n;

	ck_assert_ptr_nonnull(buf);
	n = proto_encode(msg, buf, PROTO_MAX_MSG + PROTO_HDR_LEN, err);
	ck_assert_msg(n > 0, "encode failed: %s", err);
	*flen = (size_t)n;
	return buf;
}

/* Sends msg through encode and decode and returns what came out. */
static json_t *
wire(const json_t *msg)
{
	char err[ERR_LEN] = "";
	json_t *out = NULL;
	size_t flen;
	char *buf = encode_ok(msg, &flen);

	ck_assert_int_eq(decode_exact(buf, flen, &out, err), (ssize_t)flen);
	ck_assert_ptr_nonnull(out);
	free(buf);
	return out;
}

/* ---- framing ---- */

START_TEST(test_encode_decode)
{
	json_t *msg = json_pack("{s:s, s:i, s:s}", "type", "hello", "version",
				PROTO_VERSION, "note", "caf\xc3\xa9");
	json_t *out = NULL;
	char err[ERR_LEN] = "";
	char *buf;
	size_t flen, plen;

	ck_assert_ptr_nonnull(msg);
	buf = encode_ok(msg, &flen);
	plen = (size_t)(unsigned char)buf[0] << 24 |
	       (size_t)(unsigned char)buf[1] << 16 |
	       (size_t)(unsigned char)buf[2] << 8 | (unsigned char)buf[3];
	ck_assert_uint_eq(plen + PROTO_HDR_LEN, flen);
	ck_assert_uint_eq(plen, json_dumpb(msg, NULL, 0, JSON_COMPACT));
	ck_assert_int_eq(proto_frame_len((const unsigned char *)buf, err),
			 (long)plen);

	ck_assert_int_eq(decode_exact(buf, flen, &out, err), (ssize_t)flen);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(proto_type(out), "hello");
	ck_assert_msg(json_equal(msg, out), "decoded message differs");
	json_decref(out);
	json_decref(msg);
	free(buf);
}
END_TEST

START_TEST(test_decode_truncated)
{
	json_t *msg =
	    json_pack("{s:s, s:s}", "type", "request", "test", "TCP_STREAM");
	json_t *out;
	char err[ERR_LEN];
	size_t flen, len;
	char *buf;

	buf = encode_ok(msg, &flen);
	for (len = 0; len < flen; len++) {
		out = (json_t *)1;
		ck_assert_msg(decode_exact(buf, len, &out, err) == -2,
			      "%zu of %zu bytes did not ask for more", len,
			      flen);
		ck_assert_ptr_null(out);
	}
	json_decref(msg);
	free(buf);
}
END_TEST

START_TEST(test_decode_two_frames)
{
	json_t *a = proto_new("first"), *b = proto_error("second one");
	json_t *out = NULL;
	char err[ERR_LEN] = "";
	size_t la, lb;
	char *fa = encode_ok(a, &la), *fb = encode_ok(b, &lb);
	char *both = malloc(la + lb);
	ssize_t n;

	ck_assert_ptr_nonnull(both);
	memcpy(both, fa, la);
	memcpy(both + la, fb, lb);

	n = decode_exact(both, la + lb, &out, err);
	ck_assert_int_eq(n, (ssize_t)la);
	ck_assert_str_eq(proto_type(out), "first");
	json_decref(out);

	n = decode_exact(both + la, lb, &out, err);
	ck_assert_int_eq(n, (ssize_t)lb);
	ck_assert_str_eq(proto_type(out), "error");
	ck_assert_str_eq(json_string_value(json_object_get(out, "message")),
			 "second one");
	json_decref(out);

	/* The first frame plus part of the second is still one frame. */
	n = decode_exact(both, la + 3, &out, err);
	ck_assert_int_eq(n, (ssize_t)la);
	json_decref(out);

	json_decref(a);
	json_decref(b);
	free(fa);
	free(fb);
	free(both);
}
END_TEST

START_TEST(test_decode_oversize)
{
	static const char hdr[] = {'\xff', '\xff', '\xff', '\xff'};
	json_t *out = (json_t *)1;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(decode_exact(hdr, sizeof(hdr), &out, err), -1);
	ck_assert_ptr_null(out);
	ck_assert_msg(strstr(err, "4294967295 bytes exceeds the 65536-byte "
				  "limit") != NULL,
		      "err is \"%s\"", err);
}
END_TEST

START_TEST(test_frame_len_limit)
{
	static const unsigned char max[] = {0x00, 0x01, 0x00, 0x00};
	static const unsigned char over[] = {0x00, 0x01, 0x00, 0x01};
	static const unsigned char one[] = {0x00, 0x00, 0x00, 0x01};
	static const unsigned char zero[] = {0x00, 0x00, 0x00, 0x00};
	char err[ERR_LEN] = "";

	ck_assert_int_eq(proto_frame_len(max, err), 65536);
	ck_assert_int_eq(proto_frame_len(one, err), 1);
	ck_assert_int_eq(proto_frame_len(over, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "65537 bytes exceeds"));
	err[0] = '\0';
	ck_assert_int_eq(proto_frame_len(zero, err), -1);
	ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(test_decode_zero_length)
{
	static const char hdr[] = {0, 0, 0, 0};
	json_t *out = (json_t *)1;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(decode_exact(hdr, sizeof(hdr), &out, err), -1);
	ck_assert_ptr_null(out);
	ck_assert_str_ne(err, "");
}
END_TEST

/* Payloads that are complete frames but not acceptable messages. */
static const char *const bad_payloads[] = {
    "hello",
    "[1, 2, 3]",
    "[{\"type\": \"hello\"}]",
    "\"hello\"",
    "42",
    "null",
    "{}",
    "{\"version\": 1}",
    "{\"type\": 5}",
    "{\"type\": null}",
    "{\"type\": [\"hello\"]}",
    "{\"type\": \"a\", \"type\": \"b\"}",
    "{\"type\": \"a\", \"x\": 1, \"x\": 1}",
    "{\"type\": \"hello\"} trailing",
    "{\"type\": \"hello\"}{\"type\": \"hello\"}",
    "{\"type\": \"hello\"",
    "{\"type\": \"\xff\xfe\"}",
    "{\"type\": \"a\\u0000b\"}",
    "{\"type\": \"hello\", \"x\": 1e999}",
    "{\"type\": \"hello\", \"x\": NaN}",
    "{\"type\": \"hello\", \"x\": 99999999999999999999}",
    "{'type': 'hello'}",
};

START_TEST(test_decode_bad_payload)
{
	const char *p = bad_payloads[_i];
	json_t *out = (json_t *)1;
	char err[ERR_LEN] = "";
	size_t flen;
	char *f = frame_of(p, strlen(p), &flen);

	ck_assert_msg(decode_exact(f, flen, &out, err) == -1,
		      "accepted payload %s", p);
	ck_assert_ptr_null(out);
	ck_assert_msg(err[0] != '\0', "no message for payload %s", p);
	free(f);
}
END_TEST

START_TEST(test_decode_whitespace_ok)
{
	static const char p[] = " \n{ \"type\" : \"hello\" , \"v\" : [ ] }\t";
	json_t *out = NULL;
	char err[ERR_LEN] = "";
	size_t flen;
	char *f = frame_of(p, strlen(p), &flen);

	ck_assert_int_eq(decode_exact(f, flen, &out, err), (ssize_t)flen);
	ck_assert_str_eq(proto_type(out), "hello");
	json_decref(out);
	free(f);
}
END_TEST

/* {"type":"x","s":"AAA..."}: 19 bytes of JSON around the string. */
static json_t *
msg_of_size(size_t total)
{
	size_t k = total - 19;
	char *s = malloc(k + 1);
	json_t *m = proto_new("x");

	ck_assert_ptr_nonnull(s);
	memset(s, 'A', k);
	s[k] = '\0';
	json_object_set_new(m, "s", json_string(s));
	free(s);
	ck_assert_uint_eq(json_dumpb(m, NULL, 0, JSON_COMPACT), total);
	return m;
}

START_TEST(test_encode_limit)
{
	char *buf = malloc(PROTO_MAX_MSG + 64);
	json_t *m, *out = NULL;
	char err[ERR_LEN] = "";
	ssize_t n;

	ck_assert_ptr_nonnull(buf);

	/* Exactly the limit is allowed, and decodes. */
	m = msg_of_size(PROTO_MAX_MSG);
	n = proto_encode(m, buf, PROTO_MAX_MSG + 64, err);
	ck_assert_msg(n == PROTO_MAX_MSG + PROTO_HDR_LEN, "encode: %s", err);
	ck_assert_int_eq(decode_exact(buf, (size_t)n, &out, err), n);
	ck_assert_msg(json_equal(m, out), "decoded message differs");
	json_decref(out);
	json_decref(m);

	/* One byte more is refused. */
	m = msg_of_size(PROTO_MAX_MSG + 1);
	n = proto_encode(m, buf, PROTO_MAX_MSG + 64, err);
	ck_assert_int_eq(n, -1);
	ck_assert_msg(strstr(err, "exceeds") != NULL, "err is \"%s\"", err);
	json_decref(m);

	/* And far more. */
	m = msg_of_size(70000);
	err[0] = '\0';
	ck_assert_int_eq(proto_encode(m, buf, PROTO_MAX_MSG + 64, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "exceeds"));
	ck_assert_ptr_nonnull(strstr(err, "65536"));
	json_decref(m);
	free(buf);
}
END_TEST

/* A results message may be PROTO_MAX_RESULTS (a thread a stream's
 * every stream); a process reads one that large only once it raised its
 * limit, as netperf does and netserver never does. */
START_TEST(test_results_limit)
{
	size_t big = 3 * PROTO_MAX_MSG;
	json_t *m = msg_of_size(big), *out = NULL;
	char err[ERR_LEN] = "", *buf = NULL;
	ssize_t n;

	/* Any other type of that size is refused. */
	ck_assert_int_eq(proto_encode_new(m, &buf, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "exceeds"));
	json_object_set_new(m, "type", json_string("results"));
	n = proto_encode_new(m, &buf, err);
	ck_assert_msg(n > (ssize_t)big, "encode: %s", err);
	ck_assert_uint_eq(proto_recv_max(), PROTO_MAX_MSG);
	ck_assert_int_eq(proto_decode(buf, (size_t)n, &out, err), -1);
	ck_assert_msg(strstr(err, "exceeds the 65536-byte limit") != NULL,
		      "%s", err);
	proto_set_recv_max(PROTO_MAX_RESULTS);
	ck_assert_int_eq(proto_decode(buf, (size_t)n, &out, err), n);
	ck_assert(json_equal(m, out));
	proto_set_recv_max(PROTO_MAX_MSG);
	json_decref(out);
	json_decref(m);
	free(buf);
	/* And past PROTO_MAX_RESULTS, not even a results message. */
	m = msg_of_size(PROTO_MAX_RESULTS + 1);
	json_object_set_new(m, "type", json_string("results"));
	ck_assert_int_eq(proto_encode_new(m, &buf, err), -1);
	ck_assert_ptr_null(buf);
	json_decref(m);
}
END_TEST

START_TEST(test_encode_no_room)
{
	json_t *m = proto_new("hello");
	size_t need = json_dumpb(m, NULL, 0, JSON_COMPACT) + PROTO_HDR_LEN;
	char *buf = malloc(need);
	char err[ERR_LEN] = "";

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(proto_encode(m, buf, need - 1, err), -1);
	ck_assert_str_ne(err, "");
	ck_assert_int_eq(proto_encode(m, buf, 0, err), -1);
	ck_assert_int_eq(proto_encode(m, buf, need, err), (ssize_t)need);
	json_decref(m);
	free(buf);
}
END_TEST

START_TEST(test_encode_not_a_message)
{
	char buf[256], err[ERR_LEN];
	json_t *arr = json_pack("[s]", "type");
	json_t *notype = json_pack("{s:i}", "version", 1);
	json_t *numtype = json_pack("{s:i}", "type", 1);

	err[0] = '\0';
	ck_assert_int_eq(proto_encode(arr, buf, sizeof(buf), err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(proto_encode(notype, buf, sizeof(buf), err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(proto_encode(numtype, buf, sizeof(buf), err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(proto_encode(NULL, buf, sizeof(buf), err), -1);
	ck_assert_str_ne(err, "");
	json_decref(arr);
	json_decref(notype);
	json_decref(numtype);
}
END_TEST

START_TEST(test_type_new_error)
{
	json_t *m = proto_new("hello");
	json_t *e = proto_error("it broke");
	json_t *bare = json_object();

	ck_assert_str_eq(proto_type(m), "hello");
	ck_assert_uint_eq(json_object_size(m), 1);
	ck_assert_str_eq(proto_type(e), "error");
	ck_assert_str_eq(json_string_value(json_object_get(e, "message")),
			 "it broke");
	ck_assert_str_eq(proto_type(bare), "");
	ck_assert_str_eq(proto_type(NULL), "");
	json_object_set_new(bare, "type", json_integer(3));
	ck_assert_str_eq(proto_type(bare), "");
	json_decref(m);
	json_decref(e);
	json_decref(bare);
}
END_TEST

/* ---- field getters ---- */

START_TEST(test_get_int)
{
	json_t *o = json_pack("{s:I, s:f, s:s, s:I}", "i", (json_int_t)42, "r",
			      42.0, "s", "42", "big", (json_int_t)INT64_MAX);
	char err[ERR_LEN] = "";
	int64_t v = -7;

	ck_assert_int_eq(proto_get_int(o, "i", 0, 100, &v, err), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(proto_get_int(o, "i", 42, 42, &v, err), 0);
	ck_assert_int_eq(proto_get_int(o, "big", 0, INT64_MAX, &v, err), 0);
	ck_assert_int_eq(v, INT64_MAX);

	v = -7;
	ck_assert_int_eq(proto_get_int(o, "i", 43, 100, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"i\""));
	ck_assert_int_eq(proto_get_int(o, "i", 0, 41, &v, err), -1);
	ck_assert_int_eq(proto_get_int(o, "r", 0, 100, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"r\""));
	ck_assert_int_eq(proto_get_int(o, "s", 0, 100, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"s\""));
	ck_assert_int_eq(proto_get_int(o, "nope", 0, 100, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "missing"));
	ck_assert_ptr_nonnull(strstr(err, "\"nope\""));
	ck_assert_int_eq(v, -7);
	json_decref(o);
}
END_TEST

START_TEST(test_get_double)
{
	json_t *o = json_pack("{s:f, s:I, s:f, s:f, s:s, s:b}", "d", 2.5, "i",
			      (json_int_t)3, "huge", 1e300, "tiny", -1e300, "s",
			      "2.5", "b", 1);
	char err[ERR_LEN] = "";
	double v = -7;

	ck_assert_int_eq(proto_get_double(o, "d", 0, 10, &v, err), 0);
	ck_assert_double_eq(v, 2.5);
	ck_assert_int_eq(proto_get_double(o, "d", 2.5, 2.5, &v, err), 0);
	/* An integer is a number too. */
	ck_assert_int_eq(proto_get_double(o, "i", 0, 10, &v, err), 0);
	ck_assert_double_eq(v, 3.0);

	v = -7;
	ck_assert_int_eq(proto_get_double(o, "huge", 0, 1e9, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"huge\""));
	ck_assert_int_eq(proto_get_double(o, "tiny", 0, 1e9, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"tiny\""));
	ck_assert_int_eq(proto_get_double(o, "d", 3, 10, &v, err), -1);
	ck_assert_int_eq(proto_get_double(o, "d", 0, 2, &v, err), -1);
	ck_assert_int_eq(proto_get_double(o, "s", 0, 10, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"s\""));
	ck_assert_int_eq(proto_get_double(o, "b", 0, 10, &v, err), -1);
	ck_assert_int_eq(proto_get_double(o, "nope", 0, 10, &v, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"nope\""));
	ck_assert_double_eq(v, -7);
	/* jansson cannot hold a NaN or an infinity at all, so range is the
	 * only guard a peer can reach. */
	ck_assert_ptr_null(json_real(NAN));
	ck_assert_ptr_null(json_real(INFINITY));
	json_decref(o);
}
END_TEST

START_TEST(test_get_string)
{
	json_t *o = json_pack("{s:s, s:i}", "s", "abcd", "i", 1);
	char out[8], err[ERR_LEN] = "";

	json_object_set_new(o, "nul", json_stringn("ab\0cd", 5));
	ck_assert_int_eq(proto_get_string(o, "s", out, 5, err), 0);
	ck_assert_str_eq(out, "abcd");
	ck_assert_int_eq(proto_get_string(o, "s", out, 4, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"s\""));
	ck_assert_int_eq(proto_get_string(o, "nul", out, sizeof(out), err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"nul\""));
	ck_assert_int_eq(proto_get_string(o, "i", out, sizeof(out), err), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"i\""));
	ck_assert_int_eq(proto_get_string(o, "nope", out, sizeof(out), err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "\"nope\""));
	json_decref(o);
}
END_TEST

/* ---- request ---- */

static void
request_sample(struct test_params *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->test, sizeof(p->test), "TCP_RR");
	p->duration = 12.625;
	p->count = INT64_C(123456789012);
	p->send_size = 1001;
	p->recv_size = 1002;
	p->rsend_size = 1003;
	p->rrecv_size = 1004;
	p->req_size = 1005;
	p->rsp_size = INT64_C(1) << 33;
	p->lsndbuf = 2001;
	p->lrcvbuf = 2002;
	p->rsndbuf = 2003;
	p->rrcvbuf = 2004;
	p->nodelay = 1;
	p->burst = 7;
	p->remote_cpu = 1;
	p->data_port = 40001;
	p->rto = 0.25;
	p->rate = 1.5e9;
	p->streams = 3;
	snprintf(p->cpu_bind, sizeof(p->cpu_bind), "core:1");
	p->wire = 1;
	p->wire_share = 1;
	p->start_at_ns = INT64_C(1767225600123456789);
}

static void
assert_params_eq(const struct test_params *a, const struct test_params *b)
{
	ck_assert_str_eq(a->test, b->test);
	ck_assert_double_eq(a->duration, b->duration);
	ck_assert_int_eq(a->count, b->count);
	ck_assert_int_eq(a->send_size, b->send_size);
	ck_assert_int_eq(a->recv_size, b->recv_size);
	ck_assert_int_eq(a->rsend_size, b->rsend_size);
	ck_assert_int_eq(a->rrecv_size, b->rrecv_size);
	ck_assert_int_eq(a->req_size, b->req_size);
	ck_assert_int_eq(a->rsp_size, b->rsp_size);
	ck_assert_int_eq(a->lsndbuf, b->lsndbuf);
	ck_assert_int_eq(a->lrcvbuf, b->lrcvbuf);
	ck_assert_int_eq(a->rsndbuf, b->rsndbuf);
	ck_assert_int_eq(a->rrcvbuf, b->rrcvbuf);
	ck_assert_int_eq(a->nodelay, b->nodelay);
	ck_assert_int_eq(a->burst, b->burst);
	ck_assert_int_eq(a->remote_cpu, b->remote_cpu);
	ck_assert_int_eq(a->data_port, b->data_port);
	ck_assert_double_eq(a->rto, b->rto);
	ck_assert_double_eq(a->rate, b->rate);
	ck_assert_int_eq(a->streams, b->streams);
	ck_assert_str_eq(a->cpu_bind, b->cpu_bind);
	ck_assert_int_eq(a->wire, b->wire);
	ck_assert_int_eq(a->wire_share, b->wire_share);
	ck_assert_int_eq(a->start_at_ns, b->start_at_ns);
}

static void
request_ok(const json_t *msg, struct test_params *p)
{
	char err[ERR_LEN] = "";

	ck_assert_msg(proto_request_unpack(msg, p, err) == 0,
		      "request rejected: %s", err);
}

START_TEST(test_request_round_trip)
{
	struct test_params in, out;
	json_t *msg, *back;

	request_sample(&in);
	msg = proto_request_pack(&in);
	ck_assert_ptr_nonnull(msg);
	ck_assert_str_eq(proto_type(msg), "request");
	memset(&out, 0xa5, sizeof(out));
	request_ok(msg, &out);
	assert_params_eq(&in, &out);

	/* And across the wire, where the double is printed and re-read. */
	back = wire(msg);
	memset(&out, 0xa5, sizeof(out));
	request_ok(back, &out);
	assert_params_eq(&in, &out);
	json_decref(back);
	json_decref(msg);
}
END_TEST

START_TEST(test_request_round_trip_defaults)
{
	struct test_params in, out;
	json_t *msg, *back;

	/* Booleans off, buffers at the -1 default, count-limited. */
	memset(&in, 0, sizeof(in));
	snprintf(in.test, sizeof(in.test), "TCP_STREAM");
	in.duration = 0;
	in.count = 1;
	in.lsndbuf = in.lrcvbuf = in.rsndbuf = in.rrcvbuf = -1;
	in.req_size = in.rsp_size = 1;
	in.streams = 1;
	msg = proto_request_pack(&in);
	back = wire(msg);
	memset(&out, 0xa5, sizeof(out));
	request_ok(back, &out);
	assert_params_eq(&in, &out);
	ck_assert_int_eq(out.nodelay, 0);
	ck_assert_int_eq(out.remote_cpu, 0);
	json_decref(back);
	json_decref(msg);

	/* A duration with no count. */
	in.duration = 0.001;
	in.count = 0;
	msg = proto_request_pack(&in);
	back = wire(msg);
	request_ok(back, &out);
	assert_params_eq(&in, &out);
	json_decref(back);
	json_decref(msg);
}
END_TEST

static const char *const request_fields[] = {
    "test",	  "duration",	"count",    "send_size", "recv_size",
    "rsend_size", "rrecv_size", "req_size", "rsp_size",	 "lsndbuf",
    "lrcvbuf",	  "rsndbuf",	"rrcvbuf",  "nodelay",	 "burst",
    "remote_cpu", "data_port",
};

/* Fields added after version 1 shipped: absent means the default. */
START_TEST(test_request_optional_fields)
{
	struct test_params in, out;
	char err[ERR_LEN] = "";
	json_t *msg;

	request_sample(&in);
	in.rto = 0.25;
	in.rate = 5e6;
	msg = proto_request_pack(&in);
	ck_assert_int_eq(json_object_del(msg, "rto"), 0);
	ck_assert_int_eq(json_object_del(msg, "rate"), 0);
	ck_assert_int_eq(json_object_del(msg, "streams"), 0);
	ck_assert_int_eq(json_object_del(msg, "cpu_bind"), 0);
	ck_assert_int_eq(json_object_del(msg, "wire"), 0);
	ck_assert_int_eq(json_object_del(msg, "wire_share"), 0);
	ck_assert_int_eq(proto_request_unpack(msg, &out, err), 0);
	ck_assert_double_eq(out.rto, 0);
	ck_assert_double_eq(out.rate, 0);
	ck_assert_int_eq(out.streams, 1);
	ck_assert_str_eq(out.cpu_bind, "");
	ck_assert_int_eq(out.wire, 0);
	ck_assert_int_eq(out.wire_share, 0);
	ck_assert_int_eq(out.burst, in.burst);
	json_decref(msg);
}
END_TEST

/*
 * A side's wire object: where its packets were counted travels as
 * "counter", read back exactly; a peer without it, or with a name this
 * side does not know, is read from "in_kernel"; a value that is no
 * string, too long, or a known name that contradicts "in_kernel", is
 * refused.
 */
START_TEST(test_wire_counter)
{
	static const int all[] = {WIRE_BY_CAPTURE, WIRE_BY_SOCKET, WIRE_BY_TC};
	struct wire_report in, out;
	char err[ERR_LEN] = "";
	json_t *msg;
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		memset(&in, 0, sizeof(in));
		in.enabled = in.captured = 1;
		snprintf(in.ifname, sizeof(in.ifname), "lo");
		in.c.counter = all[i];
		in.c.in_kernel = all[i] != WIRE_BY_CAPTURE;
		in.c.out.packets = 7;
		msg = proto_wire_pack(&in);
		ck_assert_msg(proto_wire_unpack(msg, &out, err) == 0, "%s", err);
		ck_assert_int_eq(out.c.counter, all[i]);
		ck_assert_int_eq(out.c.in_kernel, in.c.in_kernel);
		ck_assert_uint_eq(out.c.out.packets, 7);
		/* From a netserver before the field. */
		ck_assert_int_eq(json_object_del(msg, "counter"), 0);
		ck_assert_int_eq(proto_wire_unpack(msg, &out, err), 0);
		ck_assert_int_eq(out.c.counter, in.c.in_kernel
						    ? WIRE_BY_SOCKET
						    : WIRE_BY_CAPTURE);
		json_decref(msg);
	}
	in.c.counter = WIRE_BY_TC;
	in.c.in_kernel = 1;
	msg = proto_wire_pack(&in);
	ck_assert_int_eq(
	    json_object_set_new(msg, "counter", json_string("xdp")), 0);
	ck_assert_msg(proto_wire_unpack(msg, &out, err) == 0, "%s", err);
	ck_assert_int_eq(out.c.counter, WIRE_BY_SOCKET);
	ck_assert_int_eq(json_object_set_new(msg, "counter", json_integer(2)),
			 0);
	ck_assert_int_eq(proto_wire_unpack(msg, &out, err), -1);
	ck_assert_int_eq(
	    json_object_set_new(msg, "counter",
				json_string("a-counter-name-too-long")),
	    0);
	ck_assert_int_eq(proto_wire_unpack(msg, &out, err), -1);
	ck_assert_int_eq(json_object_set_new(msg, "counter", json_string("tc")),
			 0);
	ck_assert_int_eq(json_object_set_new(msg, "in_kernel", json_false()),
			 0);
	ck_assert_int_eq(proto_wire_unpack(msg, &out, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "counter"));
	json_decref(msg);

	/* "shared": read back; absent (a netserver before it) is not
	 * shared; anything but a boolean is refused. */
	in.shared = 1;
	msg = proto_wire_pack(&in);
	ck_assert_msg(proto_wire_unpack(msg, &out, err) == 0, "%s", err);
	ck_assert_int_eq(out.shared, 1);
	ck_assert_int_eq(json_object_del(msg, "shared"), 0);
	ck_assert_msg(proto_wire_unpack(msg, &out, err) == 0, "%s", err);
	ck_assert_int_eq(out.shared, 0);
	ck_assert_int_eq(json_object_set_new(msg, "shared", json_integer(1)),
			 0);
	ck_assert_int_eq(proto_wire_unpack(msg, &out, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "shared"));
	json_decref(msg);

	/* "handed": read back; absent or null (a netserver before it, or
	 * one that counted nothing) is unknown, never 0; anything but a
	 * count is refused. */
	in.shared = 0;
	in.c.handed = 5;
	msg = proto_wire_pack(&in);
	ck_assert_msg(proto_wire_unpack(msg, &out, err) == 0, "%s", err);
	ck_assert_int_eq(out.c.handed, 5);
	ck_assert_int_eq(json_object_del(msg, "handed"), 0);
	ck_assert_msg(proto_wire_unpack(msg, &out, err) == 0, "%s", err);
	ck_assert_int_eq(out.c.handed, -1);
	json_decref(msg);
	in.captured = 0;
	msg = proto_wire_pack(&in);
	ck_assert(json_is_null(json_object_get(msg, "handed")));
	ck_assert_msg(proto_wire_unpack(msg, &out, err) == 0, "%s", err);
	ck_assert_int_eq(out.c.handed, -1);
	ck_assert_int_eq(json_object_set_new(msg, "handed", json_integer(-2)),
			 0);
	ck_assert_int_eq(proto_wire_unpack(msg, &out, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "handed"));
	ck_assert_int_eq(json_object_set_new(msg, "handed", json_string("5")),
			 0);
	ck_assert_int_eq(proto_wire_unpack(msg, &out, err), -1);
	json_decref(msg);
}
END_TEST

/* -D's "interim": sent only when set, read back exactly, refused out of
 * -D's own range. */
START_TEST(test_request_interim)
{
	static const char *const bad[] = {"0.0001", "86401.0", "\"1\"", "true"};
	struct test_params in, out;
	char err[ERR_LEN] = "";
	json_t *msg, *back;
	size_t i;

	request_sample(&in);
	in.interim = 0;
	msg = proto_request_pack(&in);
	ck_assert_ptr_null(json_object_get(msg, "interim"));
	request_ok(msg, &out);
	ck_assert_double_eq(out.interim, 0);
	json_decref(msg);

	in.interim = 0.3;
	msg = proto_request_pack(&in);
	back = wire(msg);
	request_ok(back, &out);
	ck_assert_double_eq(out.interim, 0.3);
	json_decref(back);
	for (i = 0; i < N(bad); i++) {
		json_object_set_new(msg, "interim",
				    json_loads(bad[i], JSON_DECODE_ANY, NULL));
		ck_assert_int_eq(proto_request_unpack(msg, &out, err), -1);
		ck_assert_msg(strstr(err, "\"interim\"") != NULL, "%s: %s",
			      bad[i], err);
	}
	json_decref(msg);
}
END_TEST

START_TEST(test_request_missing_field)
{
	const char *key = request_fields[_i];
	struct test_params in, out;
	char err[ERR_LEN] = "", quoted[64];
	json_t *msg;

	request_sample(&in);
	msg = proto_request_pack(&in);
	ck_assert_int_eq(json_object_del(msg, key), 0);
	ck_assert_int_eq(proto_request_unpack(msg, &out, err), -1);
	snprintf(quoted, sizeof(quoted), "\"%s\"", key);
	ck_assert_msg(strstr(err, quoted) != NULL, "err \"%s\" lacks %s", err,
		      quoted);
	ck_assert_ptr_nonnull(strstr(err, "missing"));
	json_decref(msg);
}
END_TEST

/* One field replaced by a JSON value; the error must name want. */
struct mutation {
	const char *key;
	const char *json;
	const char *want;
};

static const struct mutation bad_requests[] = {
    {"type", "\"results\"", "request"},
    {"type", "\"REQUEST\"", "request"},
    {"count", "\"5\"", "\"count\""},
    {"count", "5.0", "\"count\""},
    {"count", "-1", "\"count\""},
    {"send_size", "-1", "\"send_size\""},
    {"recv_size", "-5", "\"recv_size\""},
    {"rsend_size", "true", "\"rsend_size\""},
    {"rrecv_size", "null", "\"rrecv_size\""},
    {"req_size", "1099511627777", "\"req_size\""},
    {"rsp_size", "[1]", "\"rsp_size\""},
    {"lsndbuf", "-2", "\"lsndbuf\""},
    {"lrcvbuf", "2147483648", "\"lrcvbuf\""},
    {"rsndbuf", "\"1\"", "\"rsndbuf\""},
    {"rrcvbuf", "1.5", "\"rrcvbuf\""},
    {"data_port", "70000", "\"data_port\""},
    {"data_port", "-1", "\"data_port\""},
    {"burst", "-1", "\"burst\""},
    {"burst", "1048577", "\"burst\""},
    {"nodelay", "1", "\"nodelay\""},
    {"remote_cpu", "\"yes\"", "\"remote_cpu\""},
    {"test", "5", "\"test\""},
    {"test", "\"ABCDEFGHIJKLMNOPQRSTUVWXYZ012345\"", "\"test\""},
    {"duration", "\"10\"", "\"duration\""},
    {"duration", "-1", "\"duration\""},
    {"duration", "1e10", "\"duration\""},
    {"rto", "-0.5", "\"rto\""},
    {"rto", "3601", "\"rto\""},
    {"rto", "\"1\"", "\"rto\""},
    {"rate", "-1", "\"rate\""},
    {"rate", "1e16", "\"rate\""},
    {"rate", "null", "\"rate\""},
};

START_TEST(test_request_rejects)
{
	const struct mutation *m = &bad_requests[_i];
	struct test_params in, out;
	char err[ERR_LEN] = "";
	json_t *msg, *v;

	request_sample(&in);
	msg = proto_request_pack(&in);
	v = json_loads(m->json, JSON_DECODE_ANY, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(json_object_set_new(msg, m->key, v), 0);
	ck_assert_msg(proto_request_unpack(msg, &out, err) == -1,
		      "accepted %s = %s", m->key, m->json);
	ck_assert_msg(strstr(err, m->want) != NULL,
		      "%s = %s: err \"%s\" lacks %s", m->key, m->json, err,
		      m->want);
	json_decref(msg);
}
END_TEST

START_TEST(test_request_limits_ok)
{
	struct test_params in, out;
	json_t *msg;

	/* The edges of every range are inside it. */
	request_sample(&in);
	in.data_port = 65535;
	in.burst = 1 << 20;
	in.lsndbuf = INT32_MAX;
	in.send_size = INT64_C(1) << 40;
	in.duration = 1e9;
	in.rto = 3600;
	in.rate = 1e15;
	msg = proto_request_pack(&in);
	request_ok(msg, &out);
	assert_params_eq(&in, &out);
	json_decref(msg);

	in.data_port = 0;
	in.burst = 0;
	in.lsndbuf = -1;
	in.send_size = 0;
	in.duration = 0;
	in.count = INT64_MAX;
	in.rto = 0;
	in.rate = 0;
	msg = proto_request_pack(&in);
	request_ok(msg, &out);
	assert_params_eq(&in, &out);
	json_decref(msg);
}
END_TEST

START_TEST(test_request_no_limit)
{
	struct test_params in, out;
	char err[ERR_LEN] = "";
	json_t *msg;

	request_sample(&in);
	in.duration = 0;
	in.count = 0;
	msg = proto_request_pack(&in);
	ck_assert_int_eq(proto_request_unpack(msg, &out, err), -1);
	ck_assert_str_ne(err, "");
	json_decref(msg);
}
END_TEST

/* A scheduled start travels exactly, and netserver refuses one further
 * ahead than its --max-start-ahead (300 s unless set), since the session
 * holds its slot while it waits. */
START_TEST(test_request_start_at_limit)
{
	struct server_limits lim;
	struct test_params in;
	struct timespec ts;
	char err[ERR_LEN] = "";
	int64_t now;

	server_limits_default(&lim);
	request_sample(&in);
	in.streams = 1;
	in.cpu_bind[0] = '\0';
	in.wire = 0;
	in.rsp_size = 1000;
	in.count = 0;
	in.rate = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	in.start_at_ns = now + INT64_C(290) * 1000000000;
	ck_assert_msg(server_check_request(&in, &lim, err) == 0, "%s", err);
	in.start_at_ns = now + INT64_C(310) * 1000000000;
	ck_assert_int_eq(server_check_request(&in, &lim, err), -1);
	ck_assert_ptr_nonnull(
	    strstr(err, "past its limit of 300 s (--max-start-ahead)"));
	lim.max_start_ahead = 3600;
	in.start_at_ns = now + INT64_C(3500) * 1000000000;
	ck_assert_msg(server_check_request(&in, &lim, err) == 0, "%s", err);
	in.start_at_ns = INT64_MAX;
	ck_assert_int_eq(server_check_request(&in, &lim, err), -1);
}
END_TEST

START_TEST(test_request_not_object)
{
	struct test_params out;
	char err[ERR_LEN] = "";
	json_t *arr = json_array();

	ck_assert_int_eq(proto_request_unpack(arr, &out, err), -1);
	ck_assert_str_ne(err, "");
	err[0] = '\0';
	ck_assert_int_eq(proto_request_unpack(NULL, &out, err), -1);
	ck_assert_str_ne(err, "");
	json_decref(arr);
}
END_TEST

/* ---- results ---- */

static void
load_sample(struct cpu_load *l, double base)
{
	l->util = base + 0.5;
	l->user = base + 0.125;
	l->nice = base + 0.25;
	l->system = base + 0.375;
	l->irq = base + 0.0625;
	l->softirq = base + 0.1875;
	l->iowait = base + 0.3125;
	l->idle = base + 0.4375;
	l->steal = base + 0.03125;
}

static void
assert_load_eq(const struct cpu_load *a, const struct cpu_load *b)
{
	ck_assert_double_eq(a->util, b->util);
	ck_assert_double_eq(a->user, b->user);
	ck_assert_double_eq(a->nice, b->nice);
	ck_assert_double_eq(a->system, b->system);
	ck_assert_double_eq(a->irq, b->irq);
	ck_assert_double_eq(a->softirq, b->softirq);
	ck_assert_double_eq(a->iowait, b->iowait);
	ck_assert_double_eq(a->idle, b->idle);
	ck_assert_double_eq(a->steal, b->steal);
}

static void
result_sample(struct side_result *r, int with_cpu)
{
	memset(r, 0, sizeof(*r));
	r->elapsed = 10.0123456789;
	r->bytes_sent = UINT64_C(1) << 50 | 1;
	r->bytes_recv = 3001;
	r->send_calls = 3002;
	r->recv_calls = 3003;
	r->trans = 3004;
	r->sndbuf = 4001;
	r->rcvbuf = 4002;
	r->sndbuf_end = 4003;
	r->rcvbuf_end = 4004;
	r->send_size = 5001;
	r->recv_size = 5002;
	r->mss = 1448;
	r->retrans = 4000000000u;
	r->cpu_id = 17;
	r->send_errors = 6001;
	r->dups = 6002;
	r->reordered = 6003;
	r->lost = UINT64_C(1) << 40;
	r->jitter = 0.000123;
	r->wall_start_ns = INT64_C(1767225600123456789);
	r->wall_end_ns = INT64_C(1767225610123987654);
	r->start_cpu_wait_ns = 20787000;
	if (!with_cpu)
		return;
	r->cpu_measured = 1;
	load_sample(&r->cpu.all, 20.0);
	r->cpu.ncpu = 2;
	r->cpu.nslots = 3;
	r->cpu.per = calloc(3, sizeof(*r->cpu.per));
	ck_assert_ptr_nonnull(r->cpu.per);
	load_sample(&r->cpu.per[0], 10.0);
	r->cpu.per[1].util = -1.0; /* offline */
	load_sample(&r->cpu.per[2], 30.0);
	r->cpu.peak = r->cpu.per[2].util;
	r->cpu.peak_id = 2;
	r->cpu.busy_ticks = 401;
	r->cpu.total_ticks = 2000;
	r->cpu.hz = 100;
}

static void
assert_result_eq(const struct side_result *a, const struct side_result *b)
{
	int i;

	ck_assert_double_eq(a->elapsed, b->elapsed);
	ck_assert_uint_eq(a->bytes_sent, b->bytes_sent);
	ck_assert_uint_eq(a->bytes_recv, b->bytes_recv);
	ck_assert_uint_eq(a->send_calls, b->send_calls);
	ck_assert_uint_eq(a->recv_calls, b->recv_calls);
	ck_assert_uint_eq(a->trans, b->trans);
	ck_assert_int_eq(a->sndbuf, b->sndbuf);
	ck_assert_int_eq(a->rcvbuf, b->rcvbuf);
	ck_assert_int_eq(a->sndbuf_end, b->sndbuf_end);
	ck_assert_int_eq(a->rcvbuf_end, b->rcvbuf_end);
	ck_assert_int_eq(a->send_size, b->send_size);
	ck_assert_int_eq(a->recv_size, b->recv_size);
	ck_assert_int_eq(a->mss, b->mss);
	ck_assert_uint_eq(a->retrans, b->retrans);
	ck_assert_int_eq(a->cpu_id, b->cpu_id);
	ck_assert_uint_eq(a->send_errors, b->send_errors);
	ck_assert_uint_eq(a->dups, b->dups);
	ck_assert_uint_eq(a->reordered, b->reordered);
	ck_assert_uint_eq(a->lost, b->lost);
	ck_assert_double_eq(a->jitter, b->jitter);
	ck_assert_int_eq(a->wall_start_ns, b->wall_start_ns);
	ck_assert_int_eq(a->wall_end_ns, b->wall_end_ns);
	ck_assert_int_eq(a->start_cpu_wait_ns, b->start_cpu_wait_ns);
	ck_assert_int_eq(a->cpu_measured, b->cpu_measured);
	if (!a->cpu_measured) {
		ck_assert_ptr_null(b->cpu.per);
		ck_assert_int_eq(b->cpu.nslots, 0);
		return;
	}
	assert_load_eq(&a->cpu.all, &b->cpu.all);
	ck_assert_int_eq(a->cpu.ncpu, b->cpu.ncpu);
	ck_assert_int_eq(a->cpu.nslots, b->cpu.nslots);
	ck_assert_double_eq(a->cpu.peak, b->cpu.peak);
	ck_assert_int_eq(a->cpu.peak_id, b->cpu.peak_id);
	ck_assert_uint_eq(a->cpu.busy_ticks, b->cpu.busy_ticks);
	ck_assert_uint_eq(a->cpu.total_ticks, b->cpu.total_ticks);
	ck_assert_int_eq(a->cpu.hz, b->cpu.hz);
	for (i = 0; i < a->cpu.nslots; i++)
		assert_load_eq(&a->cpu.per[i], &b->cpu.per[i]);
}

static void
result_ok(const json_t *msg, struct side_result *r)
{
	char err[ERR_LEN] = "";

	ck_assert_msg(proto_result_unpack(msg, r, err) == 0,
		      "results rejected: %s", err);
}

START_TEST(test_result_round_trip_cpu)
{
	struct side_result in, out;
	json_t *msg, *back;

	result_sample(&in, 1);
	msg = proto_result_pack(&in);
	ck_assert_ptr_nonnull(msg);
	ck_assert_str_eq(proto_type(msg), "results");
	ck_assert_ptr_nonnull(json_object_get(msg, "cpu"));
	memset(&out, 0xa5, sizeof(out));
	result_ok(msg, &out);
	assert_result_eq(&in, &out);
	cpu_util_free(&out.cpu);

	back = wire(msg);
	memset(&out, 0xa5, sizeof(out));
	result_ok(back, &out);
	assert_result_eq(&in, &out);
	cpu_util_free(&out.cpu);
	json_decref(back);
	json_decref(msg);
	cpu_util_free(&in.cpu);
}
END_TEST

START_TEST(test_result_round_trip_no_cpu)
{
	struct side_result in, out;
	json_t *msg, *back;

	result_sample(&in, 0);
	in.mss = -1;
	in.sndbuf = -1;
	in.cpu_id = -1;
	in.start_cpu_wait_ns = -1;
	msg = proto_result_pack(&in);
	ck_assert_ptr_null(json_object_get(msg, "cpu"));
	back = wire(msg);
	memset(&out, 0xa5, sizeof(out));
	result_ok(back, &out);
	assert_result_eq(&in, &out);
	ck_assert_int_eq(out.cpu_measured, 0);
	json_decref(back);
	/* A netserver before start_cpu_wait_ns sends none: unknown (-1),
	 * never a wait of 0; optional counters absent read as 0. */
	ck_assert_int_eq(json_object_del(msg, "start_cpu_wait_ns"), 0);
	ck_assert_int_eq(json_object_del(msg, "dups"), 0);
	result_ok(msg, &out);
	ck_assert_int_eq(out.start_cpu_wait_ns, -1);
	ck_assert_uint_eq(out.dups, 0);
	json_decref(msg);
}
END_TEST

/* Streams merge start_cpu_wait_ns as one value for the run: unknown
 * (-1) in every stream stays unknown in the sum, never a wait of 0. */
START_TEST(test_merge_unknown_wait)
{
	struct side_result a, b, sum;

	memset(&a, 0, sizeof(a));
	memset(&sum, 0, sizeof(sum));
	a.start_cpu_wait_ns = -1;
	a.bytes_sent = 10;
	b = a;
	side_merge(&sum, &a, 1);
	side_merge(&sum, &b, 0);
	ck_assert_int_eq(sum.start_cpu_wait_ns, -1);
	ck_assert_uint_eq(sum.bytes_sent, 20);
	a.start_cpu_wait_ns = b.start_cpu_wait_ns = 1234;
	memset(&sum, 0, sizeof(sum));
	side_merge(&sum, &a, 1);
	side_merge(&sum, &b, 0);
	ck_assert_int_eq(sum.start_cpu_wait_ns, 1234);
}
END_TEST

/* A result with a cpu block, then one field of it (or of the message)
 * replaced; path "cpu.x" or "cpu.per.1.x" reaches inside. */
struct result_mutation {
	const char *path;
	const char *json; /* NULL deletes the field */
};

static const struct result_mutation bad_results[] = {
    {"type", "\"request\""},
    {"elapsed", NULL},
    {"elapsed", "-1"},
    {"bytes_sent", "-1"},
    {"trans", "\"7\""},
    {"sndbuf", "-2"},
    {"retrans", "4294967296"},
    {"cpu_id", NULL},
    {"send_errors", "-1"},
    {"dups", "-3"},
    {"reordered", "1.5"},
    {"lost", "\"0\""},
    {"jitter", "-0.001"},
    {"jitter", "1e7"},
    {"start_cpu_wait_ns", "-2"},
    {"start_cpu_wait_ns", "0.5"},
    {"cpu", "[]"},
    {"cpu", "1"},
    {"cpu.ncpu", "-1"},
    {"cpu.ncpu", "8193"},
    {"cpu.peak", "101"},
    {"cpu.peak_id", "-2"},
    {"cpu.all", "7"},
    {"cpu.all", NULL},
    {"cpu.per", NULL},
    {"cpu.per", "{}"},
    {"cpu.per.0", "5"},
    {"cpu.per.2.util", "100.5"},
    {"cpu.per.2.util", "-1.5"},
    {"cpu.per.2.steal", NULL},
    {"cpu.per.2.idle", "-0.5"},
    {"cpu.all.user", "\"1\""},
};

static json_t *
find_parent(json_t *root, const char *path, char *last, size_t cap)
{
	char buf[64], *save = NULL, *tok, *next;
	json_t *cur = root;

	snprintf(buf, sizeof(buf), "%s", path);
	tok = strtok_r(buf, ".", &save);
	while ((next = strtok_r(NULL, ".", &save)) != NULL) {
		if (json_is_array(cur))
			cur = json_array_get(cur, (size_t)atoi(tok));
		else
			cur = json_object_get(cur, tok);
		ck_assert_ptr_nonnull(cur);
		tok = next;
	}
	snprintf(last, cap, "%s", tok);
	return cur;
}

START_TEST(test_result_rejects)
{
	const struct result_mutation *m = &bad_results[_i];
	struct side_result in, out;
	char err[ERR_LEN] = "", key[32];
	json_t *msg, *parent;

	result_sample(&in, 1);
	msg = proto_result_pack(&in);
	parent = find_parent(msg, m->path, key, sizeof(key));
	if (m->json == NULL) {
		ck_assert_int_eq(json_object_del(parent, key), 0);
	} else if (json_is_array(parent)) {
		ck_assert_int_eq(
		    json_array_set_new(
			parent, (size_t)atoi(key),
			json_loads(m->json, JSON_DECODE_ANY, NULL)),
		    0);
	} else {
		ck_assert_int_eq(
		    json_object_set_new(
			parent, key,
			json_loads(m->json, JSON_DECODE_ANY, NULL)),
		    0);
	}
	ck_assert_msg(proto_result_unpack(msg, &out, err) == -1,
		      "accepted %s = %s", m->path,
		      m->json ? m->json : "(gone)");
	ck_assert_msg(err[0] != '\0', "no message for %s", m->path);
	/* Nothing is left for the caller to free after a failure. */
	ck_assert_ptr_null(out.cpu.per);
	json_decref(msg);
	cpu_util_free(&in.cpu);
}
END_TEST

/* ---- histogram ---- */

static void
assert_hist_eq(const struct stats_hist *a, const struct stats_hist *b)
{
	int i;

	ck_assert_uint_eq(a->count, b->count);
	ck_assert_uint_eq(a->sum, b->sum);
	ck_assert_uint_eq((uint64_t)(a->sumsq >> 64),
			  (uint64_t)(b->sumsq >> 64));
	ck_assert_uint_eq((uint64_t)a->sumsq, (uint64_t)b->sumsq);
	ck_assert_uint_eq(a->min, b->min);
	ck_assert_uint_eq(a->max, b->max);
	for (i = 0; i < STATS_NBUCKETS; i++)
		ck_assert_msg(a->bucket[i] == b->bucket[i],
			      "bucket %d: %llu != %llu", i,
			      (unsigned long long)a->bucket[i],
			      (unsigned long long)b->bucket[i]);
}

static void
hist_sample(struct stats_hist *h)
{
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
	int i;

	stats_hist_init(h);
	for (i = 0; i < 400; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		/* Spread over 0..2^41 so sumsq needs its high 64 bits. */
		stats_hist_add(h, (x * UINT64_C(2685821657736338717)) >>
				      (23 + i % 40));
	}
	stats_hist_add(h, 3);
	stats_hist_add(h, 3);
	stats_hist_add(h, UINT64_C(1) << 41);
}

static struct proto_interim
interim_sample(void)
{
	struct proto_interim iv = {
	    .n = 3, .interval = 0.25, .since_start = 1.0000001};

	tcpinfo_clear(&iv.tcpi);
	iv.tcpi.n = 2;
	iv.tcpi.v[TCPINFO_RTT] = 20123;
	iv.tcpi.v[TCPINFO_CWND] = 10;
	iv.tcpi.v[TCPINFO_RETRANS] = 0;
	return iv;
}

START_TEST(test_interim_round_trip)
{
	struct proto_interim in = interim_sample(), out;
	char err[ERR_LEN] = "";
	json_t *msg = proto_interim_pack(&in), *back;
	int i;

	ck_assert_ptr_nonnull(msg);
	ck_assert_str_eq(proto_type(msg), "interim");
	back = wire(msg);
	ck_assert_int_eq(proto_interim_unpack(back, 2, &out, err), 0);
	ck_assert_int_eq(out.n, 3);
	ck_assert_double_eq(out.interval, 0.25);
	ck_assert_double_eq(out.since_start, 1.0000001);
	ck_assert_int_eq(out.tcpi.n, 2);
	for (i = 0; i < TCPINFO_NFIELDS; i++)
		ck_assert_int_eq(out.tcpi.v[i], in.tcpi.v[i]);
	/* More connections merged than the test has. */
	ck_assert_int_eq(proto_interim_unpack(back, 1, &out, err), -1);
	ck_assert_str_eq(err, "interim report merges 2 connections of 1");
	ck_assert_int_eq(out.tcpi.n, 0);
	json_decref(back);
	json_decref(msg);
}
END_TEST

/* Each field out of range or missing is named. */
START_TEST(test_interim_rejects)
{
	static const struct {
		const char *key, *value; /* value NULL: removed */
		const char *want;
	} cases[] = {
	    {"type", "\"results\"",
	     "expected an interim report, got "
	     "\"results\""},
	    {"n", "-1", "\"n\""},
	    {"n", NULL, "missing field \"n\""},
	    {"n", "2147483648", "\"n\""},
	    {"interval", "-0.5", "\"interval\""},
	    {"since_start", "1e10", "\"since_start\""},
	    {"since_start", "\"1\"", "\"since_start\""},
	    {"tcp_info", NULL, "field \"tcp_info\" is not an object"},
	    {"tcp_info", "{\"connections\":0}", "\"connections\""},
	    {"tcp_info", "{\"connections\":1,\"cwnd\":-3}", "\"cwnd\""},
	};
	struct proto_interim in = interim_sample(), out;
	char err[ERR_LEN];
	size_t i;

	for (i = 0; i < N(cases); i++) {
		json_t *msg = proto_interim_pack(&in);

		if (cases[i].value == NULL)
			json_object_del(msg, cases[i].key);
		else
			json_object_set_new(
			    msg, cases[i].key,
			    json_loads(cases[i].value, JSON_DECODE_ANY, NULL));
		err[0] = '\0';
		ck_assert_int_eq(proto_interim_unpack(msg, 4, &out, err), -1);
		ck_assert_msg(strstr(err, cases[i].want) != NULL, "%s=%s: %s",
			      cases[i].key,
			      cases[i].value ? cases[i].value : "(none)", err);
		json_decref(msg);
	}
}
END_TEST

/* A connected pair of TCP sockets over loopback, a[0] and a[1]. */
static void
tcp_pair(int a[2])
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	a[0] = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(connect(a[0], (struct sockaddr *)&sin, sizeof(sin)),
			 0);
	a[1] = accept(l, NULL, NULL);
	ck_assert_int_ge(a[1], 0);
	close(l);
}

/* session_take: only a whole message of the type asked for, never
 * waiting; anything else stays for the next reader. */
START_TEST(test_session_take)
{
	char frame[256], err[ERR_LEN];
	json_t *msg = proto_new("interim"), *got;
	ssize_t len;
	int a[2];

	tcp_pair(a);
	ck_assert_int_eq(session_take(a[1], "interim", 4096, &got, err), 0);
	len = proto_encode(msg, frame, sizeof(frame), err);
	ck_assert_int_gt(len, 5);
	/* Half a frame: not yet. */
	ck_assert_int_eq(send(a[0], frame, 5, 0), 5);
	usleep(20000);
	ck_assert_int_eq(session_take(a[1], "interim", 4096, &got, err), 0);
	ck_assert_int_eq(send(a[0], frame + 5, (size_t)len - 5, 0), len - 5);
	usleep(20000);
	ck_assert_int_eq(session_take(a[1], "interim", 4096, &got, err), 1);
	ck_assert_str_eq(proto_type(got), "interim");
	json_decref(got);
	/* Too large for the bound, or another type: left where it is. */
	ck_assert_int_eq(session_send(a[0], msg, 1000, err), 0);
	usleep(20000);
	ck_assert_int_eq(session_take(a[1], "interim", 8, &got, err), 2);
	ck_assert_int_eq(session_take(a[1], "results", 4096, &got, err), 2);
	ck_assert_int_eq(session_expect(a[1], "interim", &got, 1000, err), 0);
	json_decref(got);
	json_decref(msg);
	close(a[0]);
	usleep(20000);
	/* A close is for the next reader to report. */
	ck_assert_int_eq(session_take(a[1], "interim", 4096, &got, err), 2);
	close(a[1]);
}
END_TEST

/* session_offer never waits for a peer that does not read: it drops
 * instead, and every message it sent arrives whole. */
START_TEST(test_session_offer)
{
	json_t *msg = proto_new("interim"), *got;
	char err[ERR_LEN];
	int a[2], i, sent = 0, dropped = 0, rc;
	double t0 = (double)clock();

	json_object_set_new(msg, "pad",
			    json_string("xxxxxxxxxxxxxxxxxxxxxxxx"
					"xxxxxxxxxxxxxxxxxxxxxxxx"));
	tcp_pair(a);
	for (i = 0; i < 20000; i++) {
		rc = session_offer(a[0], msg, 200, err);
		ck_assert_msg(rc >= 0, "%s", err);
		if (rc == 0)
			sent++;
		else
			dropped++;
	}
	ck_assert_int_gt(sent, 0);
	ck_assert_int_gt(dropped, 0);
	ck_assert_msg(((double)clock() - t0) / CLOCKS_PER_SEC < 5,
		      "offering took too long");
	for (i = 0; i < sent; i++) {
		ck_assert_int_eq(
		    session_expect(a[1], "interim", &got, 1000, err), 0);
		json_decref(got);
	}
	ck_assert_int_eq(session_take(a[1], "interim", 4096, &got, err), 0);
	json_decref(msg);
	close(a[0]);
	close(a[1]);
}
END_TEST

START_TEST(test_hist_round_trip)
{
	struct stats_hist *in = malloc(sizeof(*in));
	struct stats_hist *out = malloc(sizeof(*out));
	char err[ERR_LEN] = "";
	json_t *j, *msg, *back;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	hist_sample(in);
	ck_assert_uint_eq(in->count, 403);
	ck_assert_uint_ne((uint64_t)(in->sumsq >> 64), 0);

	j = proto_hist_pack(in);
	ck_assert_ptr_nonnull(j);
	memset(out, 0xa5, sizeof(*out));
	ck_assert_msg(proto_hist_unpack(j, out, err) == 0, "unpack: %s", err);
	assert_hist_eq(in, out);

	/* Inside a message, across the wire. */
	msg = proto_new("hist");
	json_object_set_new(msg, "hist", j);
	back = wire(msg);
	memset(out, 0xa5, sizeof(*out));
	ck_assert_msg(
	    proto_hist_unpack(json_object_get(back, "hist"), out, err) == 0,
	    "unpack: %s", err);
	assert_hist_eq(in, out);
	ck_assert_double_eq(stats_hist_mean(in), stats_hist_mean(out));
	ck_assert_double_eq(stats_hist_percentile(in, 99.0),
			    stats_hist_percentile(out, 99.0));
	json_decref(back);
	json_decref(msg);
	free(in);
	free(out);
}
END_TEST

START_TEST(test_hist_round_trip_empty)
{
	struct stats_hist *in = malloc(sizeof(*in));
	struct stats_hist *out = malloc(sizeof(*out));
	char err[ERR_LEN] = "";
	json_t *j;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	stats_hist_init(in);
	j = proto_hist_pack(in);
	memset(out, 0xa5, sizeof(*out));
	ck_assert_msg(proto_hist_unpack(j, out, err) == 0, "unpack: %s", err);
	assert_hist_eq(in, out);
	json_decref(j);
	free(in);
	free(out);
}
END_TEST

START_TEST(test_hist_round_trip_one)
{
	struct stats_hist *in = malloc(sizeof(*in));
	struct stats_hist *out = malloc(sizeof(*out));
	char err[ERR_LEN] = "";
	json_t *j;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	stats_hist_init(in);
	stats_hist_add(in, 0);
	j = proto_hist_pack(in);
	ck_assert_msg(proto_hist_unpack(j, out, err) == 0, "unpack: %s", err);
	assert_hist_eq(in, out);
	ck_assert_uint_eq(out->min, 0);
	ck_assert_uint_eq(out->bucket[0], 1);
	json_decref(j);
	free(in);
	free(out);
}
END_TEST

/* A valid packed histogram with one field replaced. */
static const struct mutation bad_hists[] = {
    {"buckets", "[[999999, 1]]", "range"},
    {"buckets", "[[-1, 1]]", "range"},
    {"buckets", "[[3, -1]]", "range"},
    {"buckets", "[[3]]", "malformed"},
    {"buckets", "[[3, 1, 2]]", "malformed"},
    {"buckets", "[[3, \"1\"]]", "malformed"},
    {"buckets", "[[\"3\", 1]]", "malformed"},
    {"buckets", "[[3.0, 1]]", "malformed"},
    {"buckets", "[3]", "malformed"},
    {"buckets", "[{\"3\": 1}]", "malformed"},
    {"buckets",
     "[[1, 9223372036854775807], [2, 9223372036854775807], [3, "
     "9223372036854775807]]",
     "range"},
    {"buckets", "{}", "bucket"},
    {"buckets", "null", "bucket"},
    {"sumsq", "\"xyz\"", "sumsq"},
    {"sumsq", "\"0000000000000000000000000000000\"", "sumsq"},
    {"sumsq", "\"000000000000000000000000000000000\"", "sumsq"},
    {"sumsq", "\"0000000000000000000000000000000G\"", "sumsq"},
    {"sumsq", "\"0000000000000000000000000000000A\"", "sumsq"},
    {"sumsq", "\" 0000000000000000000000000000000\"", "sumsq"},
    {"sumsq", "\"\"", "sumsq"},
    {"sumsq", "1", "sumsq"},
    {"min", "-1", "min"},
    {"max", "\"5\"", "max"},
    {"sum", "-5", "sum"},
};

START_TEST(test_hist_rejects)
{
	const struct mutation *m = &bad_hists[_i];
	struct stats_hist *in = malloc(sizeof(*in));
	struct stats_hist *out = malloc(sizeof(*out));
	char err[ERR_LEN] = "";
	json_t *j, *v;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	hist_sample(in);
	j = proto_hist_pack(in);
	v = json_loads(m->json, JSON_DECODE_ANY, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(json_object_set_new(j, m->key, v), 0);
	ck_assert_msg(proto_hist_unpack(j, out, err) == -1, "accepted %s = %s",
		      m->key, m->json);
	ck_assert_msg(strstr(err, m->want) != NULL,
		      "%s = %s: err \"%s\" lacks \"%s\"", m->key, m->json, err,
		      m->want);
	json_decref(j);
	free(in);
	free(out);
}
END_TEST

static const char *const hist_fields[] = {"buckets", "min", "max", "sum",
					  "sumsq"};

START_TEST(test_hist_missing_field)
{
	struct stats_hist *in = malloc(sizeof(*in));
	struct stats_hist *out = malloc(sizeof(*out));
	char err[ERR_LEN] = "";
	json_t *j;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	hist_sample(in);
	j = proto_hist_pack(in);
	ck_assert_int_eq(json_object_del(j, hist_fields[_i]), 0);
	ck_assert_int_eq(proto_hist_unpack(j, out, err), -1);
	ck_assert_str_ne(err, "");
	json_decref(j);
	ck_assert_int_eq(proto_hist_unpack(NULL, out, err), -1);
	free(in);
	free(out);
}
END_TEST

START_TEST(test_hist_bucket_limit)
{
	struct stats_hist *out = malloc(sizeof(*out));
	char err[ERR_LEN] = "";
	json_t *j;

	/* The highest index is accepted; STATS_NBUCKETS is one past it. */
	ck_assert_ptr_nonnull(out);
	j = json_pack("{s:[[i, i], [i, i]], s:i, s:i, s:i, s:s}", "buckets",
		      STATS_NBUCKETS - 1, 2, 5, 1, "min", 5, "max", 9, "sum",
		      14, "sumsq", "00000000000000000000000000000064");
	ck_assert_msg(proto_hist_unpack(j, out, err) == 0, "unpack: %s", err);
	ck_assert_uint_eq(out->bucket[STATS_NBUCKETS - 1], 2);
	ck_assert_uint_eq(out->bucket[5], 1);
	ck_assert_uint_eq(out->count, 3);
	ck_assert_uint_eq(out->min, 5);
	ck_assert_uint_eq(out->max, 9);
	ck_assert_uint_eq(out->sum, 14);
	ck_assert_uint_eq((uint64_t)out->sumsq, 100);
	json_decref(j);

	j = json_pack("{s:[[i, i]], s:i, s:i, s:i, s:s}", "buckets",
		      STATS_NBUCKETS, 1, "min", 5, "max", 5, "sum", 5, "sumsq",
		      "00000000000000000000000000000019");
	err[0] = '\0';
	ck_assert_int_eq(proto_hist_unpack(j, out, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "range"));
	json_decref(j);
	free(out);
}
END_TEST

static Suite *
proto_suite(void)
{
	Suite *s = suite_create("proto");
	TCase *tc;

	tc = tcase_create("frame");
	tcase_add_test(tc, test_encode_decode);
	tcase_add_test(tc, test_decode_truncated);
	tcase_add_test(tc, test_decode_two_frames);
	tcase_add_test(tc, test_decode_oversize);
	tcase_add_test(tc, test_frame_len_limit);
	tcase_add_test(tc, test_decode_zero_length);
	tcase_add_loop_test(tc, test_decode_bad_payload, 0, N(bad_payloads));
	tcase_add_test(tc, test_decode_whitespace_ok);
	tcase_add_test(tc, test_encode_limit);
	tcase_add_test(tc, test_results_limit);
	tcase_add_test(tc, test_encode_no_room);
	tcase_add_test(tc, test_encode_not_a_message);
	tcase_add_test(tc, test_type_new_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("fields");
	tcase_add_test(tc, test_get_int);
	tcase_add_test(tc, test_get_double);
	tcase_add_test(tc, test_get_string);
	suite_add_tcase(s, tc);

	tc = tcase_create("request");
	tcase_add_test(tc, test_request_round_trip);
	tcase_add_test(tc, test_request_round_trip_defaults);
	tcase_add_test(tc, test_request_optional_fields);
	tcase_add_test(tc, test_wire_counter);
	tcase_add_loop_test(tc, test_request_missing_field, 0,
			    N(request_fields));
	tcase_add_loop_test(tc, test_request_rejects, 0, N(bad_requests));
	tcase_add_test(tc, test_request_limits_ok);
	tcase_add_test(tc, test_request_no_limit);
	tcase_add_test(tc, test_request_not_object);
	tcase_add_test(tc, test_request_start_at_limit);
	tcase_add_test(tc, test_request_interim);
	suite_add_tcase(s, tc);

	tc = tcase_create("results");
	tcase_add_test(tc, test_result_round_trip_cpu);
	tcase_add_test(tc, test_result_round_trip_no_cpu);
	tcase_add_test(tc, test_merge_unknown_wait);
	tcase_add_loop_test(tc, test_result_rejects, 0, N(bad_results));
	suite_add_tcase(s, tc);

	tc = tcase_create("interim");
	tcase_add_test(tc, test_interim_round_trip);
	tcase_add_test(tc, test_interim_rejects);
	tcase_add_test(tc, test_session_take);
	tcase_add_test(tc, test_session_offer);
	suite_add_tcase(s, tc);

	tc = tcase_create("histogram");
	tcase_add_test(tc, test_hist_round_trip);
	tcase_add_test(tc, test_hist_round_trip_empty);
	tcase_add_test(tc, test_hist_round_trip_one);
	tcase_add_loop_test(tc, test_hist_rejects, 0, N(bad_hists));
	tcase_add_loop_test(tc, test_hist_missing_field, 0, N(hist_fields));
	tcase_add_test(tc, test_hist_bucket_limit);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return harness_run(proto_suite());
}
