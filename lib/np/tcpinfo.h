/*
 * The kernel's own view of a TCP connection (TCP_INFO): read outside the
 * data loops, merged over streams, carried in RESULTS, and named once in
 * the table below so the codec, the selectors, JSON and the reports all
 * iterate the same list.
 */
#ifndef NP_TCPINFO_H
#define NP_TCPINFO_H

#include <stddef.h>
#include <stdint.h>

/* How one figure combines over streams. */
enum tcpinfo_merge {
	TCPINFO_SUM,  /* counters, and windows and rates that add up */
	TCPINFO_MEAN, /* round-trip times: the streams' mean */
	TCPINFO_MIN,
	TCPINFO_MAX,
};

/*
 * X(ID, key, merge, counter, title, unit): the figure's index name, its
 * JSON and wire key, how streams merge, 1 when it counts events over the
 * connection's life (an interval reports the difference) or 0 for a
 * state at the moment it is read, and its column title and unit.
 * LOCAL_TCP_<ID> and REMOTE_TCP_<ID> are its output selectors.
 */
#define TCPINFO_FIELDS(F, X)                                                   \
	F(X, RETRANS, "retrans", TCPINFO_SUM, 1, "Retrans", "segments")        \
	F(X, BYTES_RETRANS, "bytes_retrans", TCPINFO_SUM, 1, "Retrans",        \
	  "bytes")                                                             \
	F(X, CWND, "cwnd", TCPINFO_SUM, 0, "Cwnd", "segments")                 \
	F(X, SSTHRESH, "snd_ssthresh", TCPINFO_MAX, 0, "Ssthresh", "segments") \
	F(X, RTT, "rtt_us", TCPINFO_MEAN, 0, "sRTT", "usec")                   \
	F(X, RTT_MAX, "rtt_max_us", TCPINFO_MAX, 0, "sRTTmax", "usec")        \
	F(X, RTTVAR, "rttvar_us", TCPINFO_MEAN, 0, "RTTvar", "usec")           \
	F(X, MIN_RTT, "min_rtt_us", TCPINFO_MIN, 0, "MinRTT", "usec")         \
	F(X, RCV_RTT, "rcv_rtt_us", TCPINFO_MEAN, 0, "RcvRTT", "usec")        \
	F(X, RTO, "rto_us", TCPINFO_MAX, 0, "RTO", "usec")                     \
	F(X, ATO, "ato_us", TCPINFO_MAX, 0, "ATO", "usec")                     \
	F(X, PMTU, "pmtu", TCPINFO_MIN, 0, "PMTU", "bytes")                    \
	F(X, RCV_SSTHRESH, "rcv_ssthresh", TCPINFO_MAX, 0, "RcvSsthresh",     \
	  "bytes")                                                             \
	F(X, DELIVERY_RATE, "delivery_rate", TCPINFO_SUM, 0, "Delivery",       \
	  "bytes/s")                                                           \
	F(X, PACING_RATE, "pacing_rate", TCPINFO_SUM, 0, "Pacing", "bytes/s")  \
	F(X, REORDERING, "reordering", TCPINFO_MAX, 0, "Reordering",           \
	  "segments")                                                          \
	F(X, BUSY, "busy_us", TCPINFO_SUM, 1, "Busy", "usec")                  \
	F(X, RWND_LIMITED, "rwnd_limited_us", TCPINFO_SUM, 1, "RwndLimited",  \
	  "usec")                                                              \
	F(X, SNDBUF_LIMITED, "sndbuf_limited_us", TCPINFO_SUM, 1,              \
	  "SndbufLimited", "usec")

enum tcpinfo_id {
#define TCPINFO_ENUM(X, id, key, merge, counter, title, unit) TCPINFO_##id,
	TCPINFO_FIELDS(TCPINFO_ENUM, )
#undef TCPINFO_ENUM
	    TCPINFO_NFIELDS
};

/* One figure's description, from the table. */
struct tcpinfo_field {
	const char *id;	 /* "RTT" */
	const char *key; /* "rtt_us" */
	enum tcpinfo_merge merge;
	int counter;
	const char *title, *unit;
};

extern const struct tcpinfo_field tcpinfo_fields[TCPINFO_NFIELDS];

/* One connection's figures, or several merged. A value of -1 is one this
 * kernel does not report (its TCP_INFO is shorter). */
struct tcpinfo {
	int n; /* connections merged; 0 when nothing was read */
	int64_t v[TCPINFO_NFIELDS];
};

/* Marks every figure unknown and n 0. */
void tcpinfo_clear(struct tcpinfo *t);

/* Reads fd's TCP_INFO into t (n = 1); returns 0, or -1 with err set and
 * t cleared. */
int tcpinfo_read(int fd, struct tcpinfo *t, char *err);

/* Adds src's connections into dst by each field's merge rule. */
void tcpinfo_merge(struct tcpinfo *dst, const struct tcpinfo *src);

/* What happened between before and after (the same connections read
 * twice): counters as differences, states as after has them. */
void tcpinfo_delta(const struct tcpinfo *after, const struct tcpinfo *before,
		   struct tcpinfo *out);

/*
 * Formats one connection's figures as netperf 2.7's DUMP_TCP_INFO prints
 * them: three lines of "tcpi_<name> <value>", its misspelt "tpci_snd_cwnd"
 * included, since scripts match it. Returns the length written (the text
 * is cut at cap - 1 bytes).
 */
size_t tcpinfo_format_dump(const struct tcpinfo *t, char *buf, size_t cap);

#endif
