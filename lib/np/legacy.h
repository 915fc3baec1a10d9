/*
 * netperf 2.7's control protocol, as a pure codec over buffers (no I/O).
 *
 * Every 2.7 control message is 656 bytes: two 32-bit ints (the type, then
 * the CPU netserver should bind to in a request or serv_errno in a
 * response) and 162 ints of test-specific data. The sender converts only
 * the first 2 + n ints to network order, n being the message's "conversion
 * cutoff" (38 for the omni request, 18 for its response, 27 for its
 * results); the char fields after the cutoff travel as they are. Floats
 * travel as the bit patterns of IEEE-754 singles, 64-bit counts as hi/lo
 * 32-bit halves. doc/protocol.md ("The netperf 2.7 protocol") describes
 * the layout field by field and what we refuse.
 *
 * Decoders check every field they return: types, directions, socket
 * types, families and strings that must end inside their field. Sizes are
 * left to the caller's limits (netserver's struct server_limits).
 */
#ifndef NP_LEGACY_H
#define NP_LEGACY_H

#include <stddef.h>
#include <stdint.h>

/* The fixed message size: (2 + 162) * 4 bytes. */
#define LEGACY_MSG_LEN 656
#define LEGACY_DATA_LEN (LEGACY_MSG_LEN - 8)

/* Message types of the six tests (netlib.h). */
#define LEGACY_CPU_CALIBRATE 5
#define LEGACY_PASSPHRASE 6
#define LEGACY_DO_OMNI 97
#define LEGACY_OMNI_RESPONSE 98
#define LEGACY_OMNI_RESULTS 99
/* 2.7's netserver sends its results with the type of its response word
 * converted twice: 98 in the sender's byte order. We accept both. */
#define LEGACY_OMNI_RESULTS_SWAPPED 0x62000000

/* 2.7's DO_SYSINFO, which its netserver answers at once with a
 * SYSINFO_RESPONSE of fixed text and no change to its state: our netperf's
 * probe is one, with LEGACY_PROBE_TEXT in its data, and our netserver
 * answers that with LEGACY_PROBE_ANSWER. */
#define LEGACY_DO_SYSINFO 600
#define LEGACY_SYSINFO_RESPONSE 601
#define LEGACY_PROBE_ANSWER 3000
#define LEGACY_PROBE_TEXT "netperf 3 probe"
#define LEGACY_PROBE_ANSWER_TEXT "netperf 3 netserver"

/* serv_errno 2.7 sends for a request type it does not know. */
#define LEGACY_ERR_UNKNOWN 998

/* The omni request's direction, from netserver's side (netsh.h). */
#define LEGACY_XMIT 0x2
#define LEGACY_RECV 0x4

/* Families and socket types as 2.7 numbers them on the wire. */
#define LEGACY_NF_UNSPEC 0
#define LEGACY_NF_INET 4
#define LEGACY_NF_INET6 6
#define LEGACY_NST_STREAM 1
#define LEGACY_NST_DGRAM 2

/* Omni flags (nettest_bsd.h) the six tests use. */
#define LEGACY_F_NO_DELAY 0x00000001u
#define LEGACY_F_CONNECT_TEST 0x00000004u
#define LEGACY_F_MEASURE_CPU 0x00000008u
#define LEGACY_F_ROUTING_ALLOWED 0x00000020u
#define LEGACY_F_WANT_KEEPALIVE 0x80000000u

/* 2.7's cpu_method number for /proc/stat ("S"). */
#define LEGACY_CPU_PROC_STAT 8

/* The two words before the data. */
struct legacy_header {
	int32_t type;
	/* A request's CPU binding (-1 for none); a response's serv_errno. */
	int32_t word;
};

/* struct omni_request_struct, in host order. */
struct legacy_omni_request {
	int32_t send_buf_size;
	int32_t send_size; /* -1: netserver picks */
	uint32_t send_alignment, send_offset, send_width;
	int32_t request_size; /* > 0 for RR */
	int32_t recv_buf_size;
	int32_t receive_size; /* -1: netserver picks */
	uint32_t recv_alignment, recv_offset, recv_width;
	int32_t response_size;
	uint32_t flags;
	float cpu_rate;
	int32_t test_length; /* seconds; negative: a count */
	uint32_t so_rcvavoid, so_sndavoid;
	int32_t send_dirty_count, recv_dirty_count, recv_clean_count;
	uint32_t data_port, ipfamily, socket_type, protocol, direction;
	uint32_t netperf_port, interval_burst, interval_usecs;
	uint32_t netperf_ip[4], netserver_ip[4];
	int32_t socket_prio, socket_tos;
	char cong_control[16];
	char fill_file[32];
};

/* struct omni_response_struct, in host order. */
struct legacy_omni_response {
	int32_t recv_buf_size;
	int32_t receive_size;
	int32_t recv_width;
	int32_t send_buf_size;
	int32_t send_size;
	int32_t send_width;
	uint32_t flags;
	float cpu_rate;
	uint32_t test_length, so_rcvavoid, so_sndavoid;
	uint32_t data_port;
	uint32_t interval_burst, interval_usecs;
	uint32_t cpu_frequency, security_info;
	int32_t socket_prio, socket_tos;
	char system_model[33];
	char cpu_model[80];
	char security_string[16];
};

/* struct omni_results_struct, in host order; the hi/lo halves joined. */
struct legacy_omni_results {
	uint64_t bytes_received;
	uint32_t recv_calls;
	int32_t recv_buf_size;
	uint64_t bytes_sent;
	uint32_t send_calls;
	int32_t send_buf_size;
	uint32_t failed_sends, trans_received;
	float elapsed_time;
	float cpu_util; /* percent of the whole machine */
	float cpu_user, cpu_system, cpu_iowait, cpu_irq, cpu_swintr;
	float serv_dem;
	uint32_t cpu_method, num_cpus;
	int32_t peak_cpu_id;
	float peak_cpu_util;
	int32_t vendor, device, subvendor, subdevice;
	int32_t transport_retrans;
	char ifname[16];
	char driver[32];
	char version[32];
	char firmware[32];
	char bus[32];
	char ifslot[16];
	char cong_control[16];
};

/* Reads the two leading words; returns 0, or -1 with err set unless len
 * is exactly LEGACY_MSG_LEN. */
int legacy_header_decode(const unsigned char *buf, size_t len,
			 struct legacy_header *h, char *err);

/* Writes a DO_OMNI request binding netserver to cpu (-1 for none). */
void legacy_request_encode(const struct legacy_omni_request *r, int32_t cpu,
			   unsigned char buf[LEGACY_MSG_LEN]);

/*
 * Decodes a DO_OMNI request into r. Returns 0, or -1 with err naming the
 * first field that is not one the six tests can carry: a wrong type, a
 * direction, socket type, protocol or family 2.7 never sends, or a string
 * that does not end inside its field.
 */
int legacy_request_decode(const unsigned char *buf, size_t len,
			  struct legacy_omni_request *r, char *err);

/* Writes an OMNI_RESPONSE with serv_errno 0. */
void legacy_response_encode(const struct legacy_omni_response *r,
			    unsigned char buf[LEGACY_MSG_LEN]);

/*
 * Decodes an omni response into r. Returns 0; a positive serv_errno when
 * the server refused (r untouched); or -1 with err set for a wrong length
 * or type, a data port outside 1..65535 or a string without its end.
 */
int legacy_response_decode(const unsigned char *buf, size_t len,
			   struct legacy_omni_response *r, char *err);

/* Writes the results with the given type word (LEGACY_OMNI_RESPONSE as
 * our netserver sends it, or LEGACY_OMNI_RESULTS_SWAPPED as 2.7's). */
void legacy_results_encode(const struct legacy_omni_results *r, int32_t type,
			   unsigned char buf[LEGACY_MSG_LEN]);

/*
 * Decodes results into r. Returns 0; a positive serv_errno when the server
 * reports a failure; or -1 with err set for a wrong length or type, a
 * figure that is not finite where one is needed (elapsed time), or a
 * string without its end.
 */
int legacy_results_decode(const unsigned char *buf, size_t len,
			  struct legacy_omni_results *r, char *err);

/* Writes 2.7's error response: the type word and serv_errno, no data. */
void legacy_error_encode(int32_t type, int32_t serv_errno,
			 unsigned char buf[LEGACY_MSG_LEN]);

/* Writes a PASSPHRASE request carrying pass (at most LEGACY_DATA_LEN - 1
 * bytes; longer is cut, as 2.7 cuts it); returns 0, or -1 with err set
 * when pass is too long to send whole. */
int legacy_passphrase_encode(const char *pass, int32_t cpu,
			     unsigned char buf[LEGACY_MSG_LEN], char *err);

/* Decodes a PASSPHRASE request's text into out (cap bytes); returns 0, or
 * -1 with err set for another type or a text that does not end. */
int legacy_passphrase_decode(const unsigned char *buf, size_t len, char *out,
			     size_t cap, char *err);

/* Writes a CPU_CALIBRATE request (netperf -t REM_CPU) binding netserver to
 * cpu (-1 for none). */
void legacy_calibrate_encode(int32_t cpu, unsigned char buf[LEGACY_MSG_LEN]);

/* Writes the answer: the CPU rate as a float's bits, then the number of
 * CPUs, both converted, as 2.7's netserver sends them. */
void legacy_calibrate_answer_encode(float rate, int32_t ncpu,
				    unsigned char buf[LEGACY_MSG_LEN]);

/* Decodes the answer into *rate and *ncpu. Returns 0; a positive
 * serv_errno when the server refused; or -1 with err set for a wrong
 * length or type, a rate that is not a finite number from 0 to 10^9, or
 * a CPU count outside 1..2^20. */
int legacy_calibrate_answer_decode(const unsigned char *buf, size_t len,
				   float *rate, int32_t *ncpu, char *err);

/* Writes our netperf's probe: a DO_SYSINFO carrying LEGACY_PROBE_TEXT. */
void legacy_probe_encode(unsigned char buf[LEGACY_MSG_LEN]);

/* Returns 1 when buf (len bytes) is our netperf's probe, 0 otherwise. */
int legacy_is_probe(const unsigned char *buf, size_t len);

/* Writes our netserver's answer to the probe. */
void legacy_probe_answer_encode(unsigned char buf[LEGACY_MSG_LEN]);

/*
 * Reads the answer to the probe: 1 when it is our netserver's, 0 when it
 * is a 2.7 netserver's (its SYSINFO_RESPONSE, 998 from one without
 * DO_SYSINFO, or a passphrase refusal), or -1 with err set for another
 * error response (a refusal: "remote error N (text)") or bytes that are
 * neither.
 */
int legacy_probe_answer(const unsigned char *buf, size_t len, char *err);

/* 2.7's classic requests our netserver serves (netlib.h): TCP_STREAM's,
 * which 2.7's -t TCP_SENDFILE and -t TCP_MSS send too, and TCP_CC's. The
 * response and the results both carry the response type. */
#define LEGACY_DO_TCP_STREAM 10
#define LEGACY_TCP_STREAM_RESPONSE 11
#define LEGACY_DO_TCP_CC 300
#define LEGACY_TCP_CC_RESPONSE 301

/*
 * struct tcp_stream_request_struct or tcp_cc_request_struct, in host
 * order: type says which; a field the type lacks is 0. Every word is
 * converted on the wire, floats as their bits.
 */
struct legacy_classic_request {
	int32_t type; /* LEGACY_DO_TCP_STREAM or LEGACY_DO_TCP_CC */
	int32_t send_buf_size, recv_buf_size;
	int32_t receive_size; /* stream; 0: netserver picks */
	int32_t recv_alignment, recv_offset;
	int32_t send_alignment, send_offset; /* TCP_CC */
	int32_t request_size, response_size; /* TCP_CC, only reported */
	int32_t no_delay, measure_cpu;
	float cpu_rate;
	/* Seconds; TCP_CC: negative for a count of connections. */
	int32_t test_length;
	int32_t so_rcvavoid, so_sndavoid;
	int32_t dirty_count, clean_count; /* stream */
	int32_t port, ipfamily;
	int32_t recv_aio; /* stream */
};

/* struct tcp_stream_response_struct or tcp_cc_response_struct (which has
 * no receive_size), in host order. */
struct legacy_classic_response {
	int32_t type; /* LEGACY_TCP_STREAM_RESPONSE or LEGACY_TCP_CC_RESPONSE */
	int32_t recv_buf_size, receive_size;
	int32_t no_delay, measure_cpu, test_length;
	int32_t send_buf_size;
	int32_t data_port;
	float cpu_rate;
	int32_t so_rcvavoid, so_sndavoid;
};

/*
 * struct tcp_stream_results_struct or tcp_cc_results_struct, in host
 * order. The stream's byte count is a double, sent by 2.7 as its eight
 * bytes in network order (htond); TCP_CC's is an unsigned int, and it
 * alone has trans_received, the stream alone the buffer sizes.
 */
struct legacy_classic_results {
	int32_t type; /* LEGACY_TCP_STREAM_RESPONSE or LEGACY_TCP_CC_RESPONSE */
	double bytes_received;
	uint32_t recv_calls;
	uint32_t trans_received;
	float elapsed_time;
	float cpu_util; /* percent; -1 when not measured */
	float serv_dem;
	int32_t cpu_method, num_cpus;
	int32_t recv_buf_size, send_buf_size;
};

/* Writes a classic request (r->type says which) binding netserver to cpu
 * (-1 for none). */
void legacy_classic_request_encode(const struct legacy_classic_request *r,
				   int32_t cpu,
				   unsigned char buf[LEGACY_MSG_LEN]);

/*
 * Decodes DO_TCP_STREAM or DO_TCP_CC into r. Returns 0, or -1 with err set
 * for a wrong length or type, or an address family 2.7 never sends.
 * Sizes and lengths are legacy_classic_params's to judge.
 */
int legacy_classic_request_decode(const unsigned char *buf, size_t len,
				  struct legacy_classic_request *r, char *err);

/* Writes the response (r->type says which) with serv_errno 0. */
void legacy_classic_response_encode(const struct legacy_classic_response *r,
				    unsigned char buf[LEGACY_MSG_LEN]);

/*
 * Decodes a classic response of the given type into r. Returns 0; a
 * positive serv_errno when the server refused (r untouched); or -1 with
 * err set for a wrong length or type or a data port outside 1..65535.
 */
int legacy_classic_response_decode(const unsigned char *buf, size_t len,
				   int32_t type,
				   struct legacy_classic_response *r,
				   char *err);

/* Writes the results (r->type says which) with serv_errno 0. */
void legacy_classic_results_encode(const struct legacy_classic_results *r,
				   unsigned char buf[LEGACY_MSG_LEN]);

/*
 * Decodes classic results of the given type (or that type byte-swapped, as
 * 2.7's netserver sends it) into r. Returns 0; a positive
 * serv_errno when the server reports a failure; or -1 with err set for a
 * wrong length or type, or a byte count or elapsed time that is not a
 * finite, non-negative number.
 */
int legacy_classic_results_decode(const unsigned char *buf, size_t len,
				  int32_t type,
				  struct legacy_classic_results *r, char *err);

struct test_params;

/*
 * Turns a decoded request into the test our netserver runs: one of the six
 * by its direction, socket type and flags, with its sizes and length.
 * Returns 0; or, with err set, the errno 2.7's client is to be told: for a
 * fill file (netserver never opens a path a client names: EACCES), flags,
 * congestion control, intervals, priority or TOS we do not serve
 * (EOPNOTSUPP), an unbounded test or a negative size (EINVAL). Limits are
 * the caller's to check (server_check_request).
 */
int legacy_request_params(const struct legacy_omni_request *r,
			  struct test_params *p, char *err);

/*
 * Turns a decoded classic request into the test our netserver runs:
 * TCP_STREAM (whose receiver serves 2.7's TCP_STREAM, TCP_SENDFILE and
 * TCP_MSS) or TCP_CC. Returns 0; or, with err set, the errno 2.7's client
 * is to be told: asynchronous receives (EOPNOTSUPP), a length that is not
 * a bounded test or a negative size (EINVAL). Limits are the caller's.
 */
int legacy_classic_params(const struct legacy_classic_request *r,
			  struct test_params *p, char *err);

/* The largest request type 2.7 has (DO_SYSINFO is 600). */
#define LEGACY_TYPE_MAX 1000

/*
 * Tells the first n bytes of a connection apart. Ours begin with a frame
 * length and then the JSON object's '{'; 2.7's with a request type (1 to
 * LEGACY_TYPE_MAX) and then the CPU word, whose first byte is 0x00 or
 * 0xff (-1). Returns 1 for 2.7's, 0 for ours (or neither: our decoder then
 * says what is wrong), -1 when more bytes are needed to tell.
 */
int legacy_sniff(const unsigned char *buf, size_t n);

#endif
