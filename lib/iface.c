#include "np/iface.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "np/err.h"
#include "np/file.h"

/* An interface name that is safe to put in a /sys path and an ifreq. */
static int
iface_name_ok(const char *ifname)
{
	size_t n;

	if (ifname == NULL)
		return 0;
	n = strlen(ifname);
	if (n == 0 || n >= IF_NAMESIZE || strchr(ifname, '/') != NULL ||
	    strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0)
		return 0;
	return 1;
}

static int
iface_read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	char *end;

	if (file_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0'))
		return -1;
	return 0;
}

int
iface_stat_read(const char *ifname, struct iface_stat *s, char *err)
{
	static const char *const names[] = {
	    "rx_packets", "tx_packets", "rx_bytes",  "tx_bytes",
	    "rx_dropped", "tx_dropped", "rx_errors", "tx_errors",
	};
	uint64_t *const dst[] = {
	    &s->rx_packets, &s->tx_packets, &s->rx_bytes,  &s->tx_bytes,
	    &s->rx_dropped, &s->tx_dropped, &s->rx_errors, &s->tx_errors,
	};
	char path[PATH_MAX];
	size_t i;

	if (!iface_name_ok(ifname))
		return err_set(err, "bad interface name \"%s\"",
			       ifname ? ifname : "");
	snprintf(path, sizeof(path), "/sys/class/net/%s", ifname);
	if (access(path, F_OK) != 0)
		return err_set(err, "no interface %s (%s: %s)", ifname, path,
			       strerror(errno));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s",
			 ifname, names[i]);
		if (iface_read_u64(path, dst[i]) < 0)
			return err_set(err, "interface %s: cannot read %s",
				       ifname, path);
	}
	return 0;
}

/* An address with v4-mapped IPv6 folded to IPv4, as the interfaces hold it. */
struct iface_addr {
	int af;
	uint8_t addr[16];
};

/* Folds sa into a; returns 0, or -1 for a family that is not IP. */
static int
iface_addr_from(const struct sockaddr *sa, struct iface_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		a->af = AF_INET;
		memcpy(a->addr, &sin->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 =
		    (const struct sockaddr_in6 *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			a->af = AF_INET;
			memcpy(a->addr, &sin6->sin6_addr.s6_addr[12], 4);
		} else {
			a->af = AF_INET6;
			memcpy(a->addr, &sin6->sin6_addr, 16);
		}
		return 0;
	}
	return -1;
}

/* Whether the interface address a is e (v4-mapped already folded). */
static int
iface_addr_is(const struct sockaddr *a, const struct iface_addr *e)
{
	struct iface_addr x;

	if (a == NULL || iface_addr_from(a, &x) < 0 || x.af != e->af)
		return 0;
	return memcmp(x.addr, e->addr, e->af == AF_INET ? 4 : 16) == 0;
}

/*
 * The interface among ifa that carries traffic from our address me to
 * dst; NULL when none holds me.
 */
static const char *
iface_pick(const struct ifaddrs *ifa, const struct iface_addr *dst,
	   const struct iface_addr *me)
{
	const struct ifaddrs *i;
	const char *found = NULL, *loop = NULL;

	/*
	 * A destination that is one of our own addresses is reached through
	 * the loopback device, whichever interface holds that address.
	 */
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if ((i->ifa_flags & IFF_LOOPBACK) && loop == NULL)
			loop = i->ifa_name;
		if (found == NULL && iface_addr_is(i->ifa_addr, dst))
			found = "local";
	}
	if (found != NULL) {
		found = loop;
	} else {
		for (i = ifa; i != NULL && found == NULL; i = i->ifa_next)
			if (iface_addr_is(i->ifa_addr, me))
				found = i->ifa_name;
	}
	/* 127.0.0.2 and its like answer from 127.0.0.1 or not at all. */
	if (found == NULL && me->af == AF_INET && me->addr[0] == 127)
		found = loop;
	return found;
}

int
iface_route(const struct sockaddr *dst, char *ifname, char *err)
{
	struct sockaddr_storage to, me;
	socklen_t len, melen = sizeof(me);
	struct ifaddrs *ifa;
	struct iface_addr dend, mend;
	const char *found;
	int fd, rc = -1;

	memset(&to, 0, sizeof(to));
	if (dst->sa_family == AF_INET) {
		len = sizeof(struct sockaddr_in);
	} else if (dst->sa_family == AF_INET6) {
		len = sizeof(struct sockaddr_in6);
	} else {
		return err_set(err, "route: unsupported address family %d",
			       (int)dst->sa_family);
	}
	memcpy(&to, dst, len);
	/* Port 0 is not a destination; any other will do, since connect()
	 * on a UDP socket only asks the routing table. */
	if (to.ss_family == AF_INET &&
	    ((struct sockaddr_in *)&to)->sin_port == 0)
		((struct sockaddr_in *)&to)->sin_port = htons(9);
	if (to.ss_family == AF_INET6 &&
	    ((struct sockaddr_in6 *)&to)->sin6_port == 0)
		((struct sockaddr_in6 *)&to)->sin6_port = htons(9);
	if (iface_addr_from((struct sockaddr *)&to, &dend) < 0)
		return err_set(err,
			       "destination address: unsupported family %d",
			       (int)to.ss_family);
	fd = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, "route: socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&to, len) < 0) {
		err_set(err, "no route to the destination: %s",
			strerror(errno));
		goto close_fd;
	}
	if (getsockname(fd, (struct sockaddr *)&me, &melen) < 0) {
		err_set(err, "route: getsockname: %s", strerror(errno));
		goto close_fd;
	}
	if (iface_addr_from((struct sockaddr *)&me, &mend) < 0) {
		err_set(err, "local address: unsupported family %d",
			(int)me.ss_family);
		goto close_fd;
	}
	if (getifaddrs(&ifa) < 0) {
		err_set(err, "route: getifaddrs: %s", strerror(errno));
		goto close_fd;
	}
	found = iface_pick(ifa, &dend, &mend);
	if (found == NULL) {
		err_set(err, "no interface holds the local address of the "
			     "route to the destination");
		goto free_ifa;
	}
	snprintf(ifname, IF_NAMESIZE, "%s", found);
	rc = 0;
free_ifa:
	freeifaddrs(ifa);
close_fd:
	close(fd);
	return rc;
}

/* Asks the driver about one ethtool feature; returns 1 on, 0 off or
 * unknown. */
static int
iface_ethtool_get(int fd, const char *ifname, uint32_t cmd)
{
	struct ethtool_value ev = {.cmd = cmd};
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (char *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return 0;
	return ev.data != 0;
}

void
iface_offloads(const char *ifname, char *buf, size_t len)
{
	static const struct {
		uint32_t cmd;
		const char *name;
	} feats[] = {
	    {ETHTOOL_GTSO, "tso"},
	    {ETHTOOL_GGSO, "gso"},
	    {ETHTOOL_GGRO, "gro"},
	};
	size_t i, used = 0;
	int fd;

	if (buf == NULL || len == 0)
		return;
	buf[0] = '\0';
	if (!iface_name_ok(ifname))
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		int n;

		if (!iface_ethtool_get(fd, ifname, feats[i].cmd))
			continue;
		n = snprintf(buf + used, len - used, "%s%s",
			     used > 0 ? " " : "", feats[i].name);
		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0';
			break;
		}
		used += (size_t)n;
	}
	close(fd);
}

int
iface_mtu(const char *ifname)
{
	struct ifreq ifr;
	int fd, mtu = -1;

	if (!iface_name_ok(ifname))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
		mtu = ifr.ifr_mtu;
	close(fd);
	return mtu;
}

void
iface_stat_delta(const struct iface_stat *a, const struct iface_stat *b,
		 struct iface_stat *d)
{
	d->rx_packets = b->rx_packets - a->rx_packets;
	d->tx_packets = b->tx_packets - a->tx_packets;
	d->rx_bytes = b->rx_bytes - a->rx_bytes;
	d->tx_bytes = b->tx_bytes - a->tx_bytes;
	d->rx_dropped = b->rx_dropped - a->rx_dropped;
	d->tx_dropped = b->tx_dropped - a->tx_dropped;
	d->rx_errors = b->rx_errors - a->rx_errors;
	d->tx_errors = b->tx_errors - a->tx_errors;
}
