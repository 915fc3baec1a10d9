/*
 * Facts about a network interface: which one carries the route to a host,
 * its MTU and offloads, and its own counters from
 * /sys/class/net/IF/statistics.
 */
#ifndef NP_IFACE_H
#define NP_IFACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* An interface's counters. */
struct iface_stat {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
	uint64_t rx_dropped, tx_dropped, rx_errors, tx_errors;
};

/* Reads ifname's counters; returns 0, or -1 with err set. */
int iface_stat_read(const char *ifname, struct iface_stat *s, char *err);

/* The counts from a (earlier) to b (later) into d. */
void iface_stat_delta(const struct iface_stat *a, const struct iface_stat *b,
		      struct iface_stat *d);

/* The interface that carries traffic to dst (from the routing table, by
 * asking the kernel which local address it would use); returns 0 with
 * ifname (IF_NAMESIZE bytes) set, or -1 with err set. */
int iface_route(const struct sockaddr *dst, char *ifname, char *err);

/* The segmentation offloads switched on for ifname ("tso gso gro"), ""
 * for none or unknown. */
void iface_offloads(const char *ifname, char *buf, size_t len);

/* The interface's MTU, -1 if unknown. */
int iface_mtu(const char *ifname);

#endif
