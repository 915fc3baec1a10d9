#include "np/tcpinfo.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
/* The kernel's own struct, not glibc's shorter copy in netinet/tcp.h:
 * min_rtt, delivery_rate, the limited times and bytes_retrans are only
 * here. The two headers cannot meet in one file. */
#include <linux/tcp.h>

#include "np/err.h"

const struct tcpinfo_field tcpinfo_fields[TCPINFO_NFIELDS] = {
#define TCPINFO_DESC(X, id, key, merge, counter, title, unit)                  \
	[TCPINFO_##id] = {#id, key, merge, counter, title, unit},
    TCPINFO_FIELDS(TCPINFO_DESC, )
#undef TCPINFO_DESC
};

void
tcpinfo_clear(struct tcpinfo *t)
{
	int i;

	t->n = 0;
	for (i = 0; i < TCPINFO_NFIELDS; i++)
		t->v[i] = -1;
}

/* The value of member f when the kernel's answer of len bytes reaches
 * it, else -1: an older kernel fills a shorter struct. */
#define TI_GET(ti, len, f)                                                     \
	((size_t)(len) >= offsetof(struct tcp_info, f) + sizeof((ti).f)        \
	     ? (int64_t)(ti).f                                                 \
	     : -1)

int
tcpinfo_read(int fd, struct tcpinfo *t, char *err)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int64_t *v = t->v;

	tcpinfo_clear(t);
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return err_set(err, "TCP_INFO: %s", strerror(errno));
	t->n = 1;
	v[TCPINFO_RETRANS] = TI_GET(ti, len, tcpi_total_retrans);
	v[TCPINFO_BYTES_RETRANS] = TI_GET(ti, len, tcpi_bytes_retrans);
	v[TCPINFO_CWND] = TI_GET(ti, len, tcpi_snd_cwnd);
	v[TCPINFO_SSTHRESH] = TI_GET(ti, len, tcpi_snd_ssthresh);
	v[TCPINFO_RTT] = TI_GET(ti, len, tcpi_rtt);
	v[TCPINFO_RTT_MAX] = v[TCPINFO_RTT];
	v[TCPINFO_RTTVAR] = TI_GET(ti, len, tcpi_rttvar);
	v[TCPINFO_MIN_RTT] = TI_GET(ti, len, tcpi_min_rtt);
	v[TCPINFO_RCV_RTT] = TI_GET(ti, len, tcpi_rcv_rtt);
	v[TCPINFO_RTO] = TI_GET(ti, len, tcpi_rto);
	v[TCPINFO_ATO] = TI_GET(ti, len, tcpi_ato);
	v[TCPINFO_PMTU] = TI_GET(ti, len, tcpi_pmtu);
	v[TCPINFO_RCV_SSTHRESH] = TI_GET(ti, len, tcpi_rcv_ssthresh);
	v[TCPINFO_DELIVERY_RATE] = TI_GET(ti, len, tcpi_delivery_rate);
	/* ~0 means "no limit" and would swamp a sum. */
	v[TCPINFO_PACING_RATE] = ti.tcpi_pacing_rate == ~(__u64)0
				     ? -1
				     : TI_GET(ti, len, tcpi_pacing_rate);
	v[TCPINFO_REORDERING] = TI_GET(ti, len, tcpi_reordering);
	v[TCPINFO_BUSY] = TI_GET(ti, len, tcpi_busy_time);
	v[TCPINFO_RWND_LIMITED] = TI_GET(ti, len, tcpi_rwnd_limited);
	v[TCPINFO_SNDBUF_LIMITED] = TI_GET(ti, len, tcpi_sndbuf_limited);
	/* A receiver that has never timed a round trip reports 0 for
	 * rcv_rtt; that is "not measured", not a zero delay. */
	if (v[TCPINFO_RCV_RTT] == 0)
		v[TCPINFO_RCV_RTT] = -1;
	return 0;
}

void
tcpinfo_merge(struct tcpinfo *dst, const struct tcpinfo *src)
{
	int i;

	if (src->n <= 0)
		return;
	if (dst->n <= 0) {
		*dst = *src;
		return;
	}
	for (i = 0; i < TCPINFO_NFIELDS; i++) {
		int64_t a = dst->v[i], b = src->v[i];

		if (b < 0)
			continue;
		if (a < 0) {
			dst->v[i] = b;
			continue;
		}
		switch (tcpinfo_fields[i].merge) {
		case TCPINFO_SUM:
			/* Saturates: a peer's figures are not trusted to
			 * stay small. */
			dst->v[i] = a > INT64_MAX - b ? INT64_MAX : a + b;
			break;
		case TCPINFO_MEAN:
			/* Weighted by the connections each side stands for,
			 * so merging in any order gives the same mean. */
			dst->v[i] = (int64_t)(((double)a * dst->n +
					       (double)b * src->n) /
						  (dst->n + src->n) +
					      0.5);
			break;
		case TCPINFO_MIN:
			dst->v[i] = a < b ? a : b;
			break;
		case TCPINFO_MAX:
			dst->v[i] = a > b ? a : b;
			break;
		}
	}
	dst->n = dst->n > INT32_MAX - src->n ? INT32_MAX : dst->n + src->n;
}

void
tcpinfo_delta(const struct tcpinfo *after, const struct tcpinfo *before,
	      struct tcpinfo *out)
{
	int i;

	*out = *after;
	for (i = 0; i < TCPINFO_NFIELDS; i++) {
		if (!tcpinfo_fields[i].counter || after->v[i] < 0)
			continue;
		/* A connection counted only in after (or a counter that
		 * went back, which a kernel never does) keeps its whole
		 * count. */
		if (before->n > 0 && before->v[i] >= 0 &&
		    before->v[i] <= after->v[i])
			out->v[i] = after->v[i] - before->v[i];
	}
}

size_t
tcpinfo_format_dump(const struct tcpinfo *t, char *buf, size_t cap)
{
	const int64_t *v = t->v;
	int n;

	/* netperf 2.7 prints the unsigned fields with %d. */
	n = snprintf(buf, cap,
		     "tcpi_rto %d tcpi_ato %d tcpi_pmtu %d tcpi_rcv_ssthresh "
		     "%d\n"
		     "tcpi_rtt %d tcpi_rttvar %d tcpi_snd_ssthresh %d "
		     "tpci_snd_cwnd %d\n"
		     "tcpi_reordering %d tcpi_total_retrans %d\n",
		     (int)v[TCPINFO_RTO], (int)v[TCPINFO_ATO],
		     (int)v[TCPINFO_PMTU], (int)v[TCPINFO_RCV_SSTHRESH],
		     (int)v[TCPINFO_RTT], (int)v[TCPINFO_RTTVAR],
		     (int)v[TCPINFO_SSTHRESH], (int)v[TCPINFO_CWND],
		     (int)v[TCPINFO_REORDERING], (int)v[TCPINFO_RETRANS]);
	if (n < 0)
		n = 0;
	if (cap > 0 && (size_t)n >= cap)
		n = (int)cap - 1;
	return (size_t)n;
}
