/*
 * The plain figures of one side's account (struct side_result), each named
 * once in the table below: its declaration, the control protocol's codec,
 * the merge over streams, the JSON writer, the output selectors and
 * netperf's -d dump all iterate it, so a new counter is one line.
 */
#ifndef NP_SIDE_H
#define NP_SIDE_H

#include <stddef.h>
#include <stdint.h>

/* A field's C type; SIDE_STR is a char[SIDE_STR_LEN]. */
enum side_kind { SIDE_U64, SIDE_U32, SIDE_I64, SIDE_I32, SIDE_DBL, SIDE_STR };

#define SIDE_STR_LEN 16

#define SIDE_CTYPE_SIDE_U64 uint64_t
#define SIDE_CTYPE_SIDE_U32 uint32_t
#define SIDE_CTYPE_SIDE_I64 int64_t
#define SIDE_CTYPE_SIDE_I32 int
#define SIDE_CTYPE_SIDE_DBL double
#define SIDE_CTYPE_SIDE_STR char
#define SIDE_DIM_SIDE_U64
#define SIDE_DIM_SIDE_U32
#define SIDE_DIM_SIDE_I64
#define SIDE_DIM_SIDE_I32
#define SIDE_DIM_SIDE_DBL
#define SIDE_DIM_SIDE_STR [SIDE_STR_LEN]

/* Where a field travels in RESULTS: among version 1's required fields,
 * as an optional one added since (an older netserver sends none), or in
 * the "fast" object (all of its fields required there). */
enum side_wire { SIDE_V1, SIDE_OPT, SIDE_FAST };

/* How the JSON document writes it: as it is, null when negative
 * (unknown), or seconds as milliseconds. */
enum side_json { SIDE_JPLAIN, SIDE_JNULLNEG, SIDE_JMS };

/* How streams combine into the sums: added, the largest, the earliest
 * known (0 is unknown), or the first stream's (the same request for
 * every stream). */
enum side_merge { SIDE_SUM, SIDE_MAX, SIDE_EARLIEST, SIDE_FIRST };

/*
 * X(name, kind, wire key, where, min, max, JSON key, JSON form, merge,
 * local selector, remote selector): the member, its wire key and where it
 * travels, the range an incoming value must fall in, its key in the JSON
 * document's "counts" (NULL: not there), how streams merge, and the output
 * selectors that print it as it is (NULL: none, or one that derives it).
 * The order is the JSON document's; the wire keeps version 1's fields
 * first. Not here, because they are not plain figures: cpu_measured and
 * cpu (a CPU account), tcpi (TCP_INFO's own table, np/tcpinfo.h).
 */
#define SIDE_FIELDS(X)                                                         \
	/* Seconds over the measured interval. */                              \
	X(elapsed, SIDE_DBL, "elapsed", SIDE_V1, 0, 1000000000, "elapsed_s",   \
	  SIDE_JPLAIN, SIDE_MAX, NULL, NULL)                                   \
	X(bytes_sent, SIDE_U64, "bytes_sent", SIDE_V1, 0, INT64_MAX,           \
	  "bytes_sent", SIDE_JPLAIN, SIDE_SUM, "LOCAL_BYTES_SENT",             \
	  "REMOTE_BYTES_SENT")                                                 \
	X(bytes_recv, SIDE_U64, "bytes_recv", SIDE_V1, 0, INT64_MAX,           \
	  "bytes_recv", SIDE_JPLAIN, SIDE_SUM, "LOCAL_BYTES_RECVD",            \
	  "REMOTE_BYTES_RECVD")                                                \
	X(send_calls, SIDE_U64, "send_calls", SIDE_V1, 0, INT64_MAX,           \
	  "send_calls", SIDE_JPLAIN, SIDE_SUM, "LOCAL_SEND_CALLS",             \
	  "REMOTE_SEND_CALLS")                                                 \
	X(recv_calls, SIDE_U64, "recv_calls", SIDE_V1, 0, INT64_MAX,           \
	  "recv_calls", SIDE_JPLAIN, SIDE_SUM, "LOCAL_RECV_CALLS",             \
	  "REMOTE_RECV_CALLS")                                                 \
	/* Completed transactions. */                                          \
	X(trans, SIDE_U64, "trans", SIDE_V1, 0, INT64_MAX, "transactions",     \
	  SIDE_JPLAIN, SIDE_SUM, NULL, NULL)                                   \
	/* SO_SNDBUF/SO_RCVBUF as the socket was created, and at the end. */   \
	X(sndbuf, SIDE_I32, "sndbuf", SIDE_V1, -1, INT32_MAX, "sndbuf",        \
	  SIDE_JPLAIN, SIDE_FIRST, "LSS_SIZE", "RSS_SIZE")                     \
	X(rcvbuf, SIDE_I32, "rcvbuf", SIDE_V1, -1, INT32_MAX, "rcvbuf",        \
	  SIDE_JPLAIN, SIDE_FIRST, "LSR_SIZE", "RSR_SIZE")                     \
	X(sndbuf_end, SIDE_I32, "sndbuf_end", SIDE_V1, -1, INT32_MAX,          \
	  "sndbuf_end", SIDE_JPLAIN, SIDE_FIRST, "LSS_SIZE_END",               \
	  "RSS_SIZE_END")                                                      \
	X(rcvbuf_end, SIDE_I32, "rcvbuf_end", SIDE_V1, -1, INT32_MAX,          \
	  "rcvbuf_end", SIDE_JPLAIN, SIDE_FIRST, "LSR_SIZE_END",               \
	  "RSR_SIZE_END")                                                      \
	/* Bytes per call actually used. */                                    \
	X(send_size, SIDE_I64, "send_size", SIDE_V1, 0, SIDE_SIZE_MAX,         \
	  "send_size", SIDE_JPLAIN, SIDE_FIRST, "LOCAL_SEND_SIZE", NULL)       \
	X(recv_size, SIDE_I64, "recv_size", SIDE_V1, 0, SIDE_SIZE_MAX,         \
	  "recv_size", SIDE_JPLAIN, SIDE_FIRST, NULL, "REMOTE_RECV_SIZE")      \
	/* TCP_MAXSEG at the end, -1 unknown. */                               \
	X(mss, SIDE_I32, "mss", SIDE_V1, -1, INT32_MAX, "mss", SIDE_JNULLNEG,  \
	  SIDE_FIRST, "TRANSPORT_MSS", NULL)                                   \
	/* TCP_INFO's total retransmissions. */                                \
	X(retrans, SIDE_U32, "retrans", SIDE_V1, 0, UINT32_MAX,                \
	  "retransmissions", SIDE_JPLAIN, SIDE_SUM, NULL, NULL)                \
	/* Sends the kernel refused (ENOBUFS), counted, not fatal. */          \
	X(send_errors, SIDE_U64, "send_errors", SIDE_OPT, 0, INT64_MAX,        \
	  "send_errors", SIDE_JPLAIN, SIDE_SUM, "LOCAL_SEND_ERRORS", NULL)     \
	/* UDP_STREAM's receiver: datagrams seen twice, and datagrams that     \
	 * arrived after a later one; UDP_RR's client: late answers. */        \
	X(dups, SIDE_U64, "dups", SIDE_OPT, 0, INT64_MAX, "duplicates",        \
	  SIDE_JPLAIN, SIDE_SUM, NULL, NULL)                                   \
	X(reordered, SIDE_U64, "reordered", SIDE_OPT, 0, INT64_MAX,            \
	  "reordered", SIDE_JPLAIN, SIDE_SUM, NULL, NULL)                      \
	/* UDP_RR transactions given up on after the time-out. */              \
	X(lost, SIDE_U64, "lost", SIDE_OPT, 0, INT64_MAX, "lost", SIDE_JPLAIN, \
	  SIDE_SUM, NULL, NULL)                                                \
	/* RFC 3550 interarrival jitter, seconds. */                           \
	X(jitter, SIDE_DBL, "jitter", SIDE_OPT, 0, 1000000, "jitter_ms",       \
	  SIDE_JMS, SIDE_MAX, NULL, NULL)                                      \
	/* The CPU the test thread ended on. */                                \
	X(cpu_id, SIDE_I32, "cpu_id", SIDE_V1, -1, INT32_MAX, "cpu_id",        \
	  SIDE_JNULLNEG, SIDE_FIRST, NULL, NULL)                               \
	/* The data path this side's loop took, its name in datapath_table    \
	 * ("send", "gso", "zerocopy", "sendfile", "recv", "gro", "splice",    \
	 * ...); "none" for TCP_MSS, "" for none in particular (RR tests). */  \
	X(path, SIDE_STR, "path", SIDE_FAST, 0, 0, "data_path", SIDE_JPLAIN,   \
	  SIDE_FIRST, "LOCAL_DATA_PATH", "REMOTE_DATA_PATH")                   \
	/* System calls that moved the data: fewer than send_calls or          \
	 * recv_calls (datagrams) with --batch, GSO and GRO. */                \
	X(syscalls, SIDE_U64, "syscalls", SIDE_FAST, 0, INT64_MAX, "syscalls", \
	  SIDE_JPLAIN, SIDE_SUM, "LOCAL_DATA_SYSCALLS",                        \
	  "REMOTE_DATA_SYSCALLS")                                              \
	/* --udp-gro: receives that returned more than one datagram. */        \
	X(coalesced, SIDE_U64, "coalesced", SIDE_FAST, 0, INT64_MAX,           \
	  "gro_coalesced", SIDE_JPLAIN, SIDE_SUM, NULL,                        \
	  "REMOTE_GRO_COALESCED")                                              \
	/* UDP_STREAM's receiver: the naps it took off the socket when its     \
	 * queue ran dry, and those in which the socket dropped a datagram.    \
	 */                                                                    \
	X(naps, SIDE_U64, "naps", SIDE_FAST, 0, INT64_MAX, "recv_naps",        \
	  SIDE_JPLAIN, SIDE_SUM, "LOCAL_RECV_NAPS", "REMOTE_RECV_NAPS")        \
	X(nap_drops, SIDE_U64, "nap_drops", SIDE_FAST, 0, INT64_MAX,           \
	  "recv_nap_drops", SIDE_JPLAIN, SIDE_SUM, "LOCAL_RECV_NAP_DROPS",     \
	  "REMOTE_RECV_NAP_DROPS")                                             \
	/* --zerocopy: sends the error queue reported complete, and how many   \
	 * of them the kernel copied after all. */                             \
	X(zc_done, SIDE_U64, "zc_done", SIDE_FAST, 0, INT64_MAX,               \
	  "zerocopy_completions", SIDE_JPLAIN, SIDE_SUM,                       \
	  "LOCAL_ZEROCOPY_DONE", "REMOTE_ZEROCOPY_DONE")                       \
	X(zc_copied, SIDE_U64, "zc_copied", SIDE_FAST, 0, INT64_MAX,           \
	  "zerocopy_copied", SIDE_JPLAIN, SIDE_SUM, "LOCAL_ZEROCOPY_COPIED",   \
	  "REMOTE_ZEROCOPY_COPIED")                                            \
	/* --busy-poll: SO_BUSY_POLL as read back from the socket, us. */      \
	X(busy_poll, SIDE_I32, "busy_poll", SIDE_FAST, 0, INT32_MAX,           \
	  "busy_poll_us", SIDE_JPLAIN, SIDE_FIRST, "LOCAL_BUSY_POLL",          \
	  "REMOTE_BUSY_POLL")                                                  \
	/* CLOCK_REALTIME nanoseconds (UTC) at which this side's measured      \
	 * interval began and ended; 0 when unknown (an older peer). */        \
	X(wall_start_ns, SIDE_I64, "wall_start_ns", SIDE_OPT, 0, INT64_MAX,    \
	  NULL, SIDE_JPLAIN, SIDE_EARLIEST, NULL, NULL)                        \
	X(wall_end_ns, SIDE_I64, "wall_end_ns", SIDE_OPT, 0, INT64_MAX, NULL,  \
	  SIDE_JPLAIN, SIDE_MAX, NULL, NULL)                                   \
	/* Of a --start-at start, the ns its thread waited for a CPU after     \
	 * the wake-up (schedstat's run delay); -1 when not scheduled or not   \
	 * kept by the kernel, and when an older peer sends none. One value    \
	 * for the run, so the first stream's (a sum from 0 would lose -1). */ \
	X(start_cpu_wait_ns, SIDE_I64, "start_cpu_wait_ns", SIDE_OPT, -1,      \
	  INT64_MAX, NULL, SIDE_JPLAIN, SIDE_FIRST, NULL, NULL)                \
	/* TCP_CONGESTION of the data socket at the end, "" for UDP. */        \
	X(cong, SIDE_STR, "cong", SIDE_OPT, 0, 0, NULL, SIDE_JPLAIN,           \
	  SIDE_FIRST, "LOCAL_CONG_CONTROL", "REMOTE_CONG_CONTROL")             \
	/* MPTCP: the most subflows each data connection held (read as the     \
	 * interval began and at its end), summed over streams; 0 for any      \
	 * other transport. */                                                 \
	X(subflows, SIDE_I32, "subflows", SIDE_OPT, 0, 1 << 20,                \
	  "mptcp_subflows", SIDE_JPLAIN, SIDE_SUM, "LOCAL_MPTCP_SUBFLOWS",     \
	  "REMOTE_MPTCP_SUBFLOWS")                                             \
	/* UDP_RR and UDP_CRR: requests netperf sent, and netserver            \
	 * received (-1: an older netserver counts none); answers that came    \
	 * after their request was given up on (oneway.c splits the lost).     \
	 */                                                                    \
	X(requests, SIDE_I64, "requests", SIDE_OPT, -1, INT64_MAX, "requests", \
	  SIDE_JNULLNEG, SIDE_SUM, NULL, NULL)                                 \
	X(late, SIDE_U64, "late", SIDE_OPT, 0, INT64_MAX, "late_answers",      \
	  SIDE_JPLAIN, SIDE_SUM, "LATE_ANSWERS", NULL)                         \
	/* The open loop (--rate, --timeout): transactions answered after      \
	 * --timeout or never, connection errors, and streams they ended. */   \
	X(timeouts, SIDE_U64, "timeouts", SIDE_OPT, 0, INT64_MAX, "timeouts",  \
	  SIDE_JPLAIN, SIDE_SUM, "TIMEOUTS", NULL)                             \
	X(errors, SIDE_U64, "errors", SIDE_OPT, 0, INT64_MAX,                  \
	  "connection_errors",                                                 \
	  SIDE_JPLAIN, SIDE_SUM, "ERRORS", NULL)                               \
	X(ended, SIDE_U64, "ended", SIDE_OPT, 0, INT64_MAX, "streams_ended",   \
	  SIDE_JPLAIN, SIDE_SUM, NULL, NULL)                                   \
	/* The open loop's requests sent are the requests above; the ns their  \
	 * sends lagged behind their due time with the stream free (netperf's  \
	 * own lateness), the most of it, and the ns they waited for a busy    \
	 * stream. */                                                          \
	X(lag_ns, SIDE_U64, "lag_ns", SIDE_OPT, 0, INT64_MAX, "send_lag_ns",   \
	  SIDE_JPLAIN, SIDE_SUM, NULL, NULL)                                   \
	X(lag_max_ns, SIDE_U64, "lag_max_ns", SIDE_OPT, 0, INT64_MAX,          \
	  "send_lag_max_ns", SIDE_JPLAIN, SIDE_MAX, NULL, NULL)                \
	X(wait_ns, SIDE_U64, "wait_ns", SIDE_OPT, 0, INT64_MAX,                \
	  "busy_wait_ns", SIDE_JPLAIN, SIDE_SUM, NULL, NULL)

/* The largest send or receive size that travels: 2^40 bytes. */
#define SIDE_SIZE_MAX ((int64_t)1 << 40)

/* A member of struct side_result, from its table row. */
#define SIDE_DECL(name, kind, wire, where, min, max, json, jform, merge, lsel, \
		  rsel)                                                        \
	SIDE_CTYPE_##kind name SIDE_DIM_##kind;

enum side_id {
#define SIDE_ENUM(name, kind, wire, where, min, max, json, jform, merge, lsel, \
		  rsel)                                                        \
	SIDE_##name,
	SIDE_FIELDS(SIDE_ENUM)
#undef SIDE_ENUM
	    SIDE_NFIELDS
};

/* One row of the table. */
struct side_field {
	const char *name;
	enum side_kind kind;
	size_t off; /* in struct side_result */
	const char *wire;
	enum side_wire where;
	int64_t min, max; /* what an incoming value may be; STR: none */
	const char *json; /* NULL: not in the JSON document's counts */
	enum side_json jform;
	enum side_merge merge;
	const char *sel[2]; /* LOCAL_ and REMOTE_ selectors, or NULL */
};

extern const struct side_field side_fields[SIDE_NFIELDS];

struct side_result;

/* Field f of r as an unsigned count (SIDE_U64, SIDE_U32). */
uint64_t side_get_u64(const struct side_result *r, const struct side_field *f);

/* Field f of r as a signed integer (any integer kind). */
int64_t side_get_i64(const struct side_result *r, const struct side_field *f);

/* Field f of r as a number (any kind but SIDE_STR). */
double side_get_dbl(const struct side_result *r, const struct side_field *f);

/* Field f of r as text (SIDE_STR). */
const char *side_get_str(const struct side_result *r,
			 const struct side_field *f);

/* Stores v in field f of r, converted to the field's kind (not SIDE_STR). */
void side_set_num(struct side_result *r, const struct side_field *f, double v);

/* Stores the integer v in field f of r (an integer kind). */
void side_set_int(struct side_result *r, const struct side_field *f, int64_t v);

/* Text field f of r, for writing: SIDE_STR_LEN bytes. */
char *side_str_buf(struct side_result *r, const struct side_field *f);

/* Merges one stream's r into sum by each field's rule; first is 1 for the
 * first stream. */
void side_merge(struct side_result *sum, const struct side_result *r,
		int first);

/* The row one of whose selectors is name, with *loc 1 when it is the
 * local one, 0 the remote; NULL when none is. */
const struct side_field *side_by_selector(const char *name, int *loc);

#endif
