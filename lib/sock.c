#include "np/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "np/err.h"

int
sock_resolve(const char *host, int port, int family, int socktype,
	     struct addrinfo **res, char *err)
{
	struct addrinfo hints;
	char service[16];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = socktype;
	hints.ai_flags = AI_NUMERICSERV | (host == NULL ? AI_PASSIVE : 0);
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, res);
	if (rc != 0)
		return err_set(err, "cannot resolve %s: %s",
			       host ? host : "the wildcard address",
			       gai_strerror(rc));
	return 0;
}

/* Binds (and for TCP listens) on the first address of host that works;
 * dual 1 makes an IPv6 socket take IPv4 too, -1 leaves the system's
 * default. */
static int
listen_on(const char *host, int port, int family, int socktype, int protocol,
	  int backlog, int dual, char *err)
{
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, zero = 0, saved = 0;

	if (sock_resolve(host, port, family, socktype, &res, err) < 0)
		return -1;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    protocol != 0 ? protocol : ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		/* TCP: a restarted netserver binds past its old connections
		 * in TIME_WAIT. Never UDP: there two sockets that both set it
		 * may hold one port, even one the kernel picked for port 0,
		 * and the later one takes the other's datagrams. */
		if (socktype == SOCK_STREAM)
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
		/* The wildcard with no family is dual-stack; the wildcard
		 * asked for as IPv6 (-6) is left to net.ipv6.bindv6only, as
		 * netperf 2.7 leaves it, and so is a specific address,
		 * v4-mapped ones included. */
		if (ai->ai_family == AF_INET6 && dual >= 0)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY,
				   dual ? &zero : &one, sizeof(int));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    (socktype != SOCK_STREAM || listen(fd, backlog) == 0))
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return err_set(err, "cannot listen on %s port %d: %s",
			       host ? host : "any address", port,
			       strerror(saved));
	return fd;
}

int
sock_listen(const char *host, int port, int family, int socktype, int backlog,
	    char *err)
{
	return sock_listen_proto(host, port, family, socktype, 0, backlog, err);
}

int
sock_listen_proto(const char *host, int port, int family, int socktype,
		  int protocol, int backlog, char *err)
{
	int fd;

	if (host != NULL && host[0] == '\0')
		host = NULL;
	/* The wildcard with no family asked: one IPv6 socket that also takes
	 * IPv4, falling back to IPv4 alone where IPv6 is off. */
	if (host == NULL && family == AF_UNSPEC) {
		fd = listen_on(NULL, port, AF_INET6, socktype, protocol,
			       backlog, 1, err);
		if (fd >= 0)
			return fd;
		family = AF_INET;
	}
	return listen_on(host, port, family, socktype, protocol, backlog, -1,
			 err);
}

int
sock_connect_addr(const struct sockaddr *sa, socklen_t salen, int socktype,
		  const struct addrinfo *local, struct sock_setup *setup,
		  int timeout_ms, char *err)
{
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, flags, soerr = 0, rc;

	fd = socket(sa->sa_family, socktype | SOCK_CLOEXEC,
		    setup != NULL ? setup->protocol : 0);
	if (fd < 0)
		return err_set(err, "socket: %s", strerror(errno));
	if (local != NULL && bind(fd, local->ai_addr, local->ai_addrlen) < 0) {
		soerr = errno;
		close(fd);
		return err_set(err, "cannot bind the local address: %s",
			       strerror(soerr));
	}
	/* Buffer sizes are set, and read back, before connecting: that is
	 * when they decide the window, and the size netperf reports. */
	if (setup != NULL) {
		if (sock_set_buffers(fd, setup->sndbuf, setup->rcvbuf, err) <
		    0) {
			close(fd);
			return -1;
		}
		sock_get_buffers(fd, &setup->got_sndbuf, &setup->got_rcvbuf);
		/* The MSS this side announces in its SYN bounds both ends'
		 * segments, so setting it here is enough for both. */
		if (setup->mss > 0 && socktype == SOCK_STREAM &&
		    setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &setup->mss,
			       sizeof(setup->mss)) < 0) {
			soerr = errno;
			close(fd);
			return err_set(err, "TCP_MAXSEG %d: %s", setup->mss,
				       strerror(soerr));
		}
	}
	if (setup != NULL && setup->extra != NULL &&
	    sock_apply_extra(fd, sa->sa_family, socktype, 0, setup->extra,
			     err) < 0) {
		close(fd);
		return -1;
	}
	flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	rc = connect(fd, sa, salen);
	if (rc < 0 && errno != EINPROGRESS) {
		soerr = errno;
		goto fail;
	}
	/* The caller waits for it, beside others (flows_connect). */
	if (timeout_ms < 0)
		return fd;
	if (rc < 0) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do
			rc = poll(&pfd, 1, timeout_ms);
		while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			soerr = ETIMEDOUT;
			goto fail;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			soerr = errno;
		if (soerr != 0)
			goto fail;
	}
	fcntl(fd, F_SETFL, flags);
	return fd;
fail:
	close(fd);
	err_set(err, "%s", strerror(soerr));
	errno = soerr;
	return -1;
}

int
sock_connect(const char *host, int port, int family, int socktype,
	     struct sock_setup *setup, int timeout_ms, char *err)
{
	const char *local = setup ? setup->local : NULL;
	int lport = setup ? setup->lport : 0;
	struct addrinfo *res, *ai, *lres;
	char why[ERR_LEN] = "no usable address";
	int fd = -1;

	if (sock_resolve(host, port, family, socktype, &res, err) < 0)
		return -1;
	for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
		lres = NULL;
		if (local != NULL && local[0] == '\0')
			local = NULL;
		if ((local != NULL || lport != 0) &&
		    sock_resolve(local, lport, ai->ai_family, socktype, &lres,
				 why) < 0)
			continue;
		fd = sock_connect_addr(ai->ai_addr, ai->ai_addrlen, socktype,
				       lres, setup, timeout_ms, why);
		if (lres != NULL)
			freeaddrinfo(lres);
	}
	freeaddrinfo(res);
	if (fd < 0)
		return err_set(err, "cannot connect to %s port %d: %s", host,
			       port, why);
	return fd;
}

int
sock_set_buffers(int fd, int sndbuf, int rcvbuf, char *err)
{
	if (sndbuf >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
		return err_set(err, "SO_SNDBUF %d: %s", sndbuf,
			       strerror(errno));
	if (rcvbuf >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
		return err_set(err, "SO_RCVBUF %d: %s", rcvbuf,
			       strerror(errno));
	return 0;
}

void
sock_get_buffers(int fd, int *sndbuf, int *rcvbuf)
{
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, sndbuf, &len) < 0)
		*sndbuf = -1;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, rcvbuf, &len) < 0)
		*rcvbuf = -1;
}

int
sock_set_nodelay(int fd, int on, char *err)
{
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)) < 0)
		return err_set(err, "TCP_NODELAY: %s", strerror(errno));
	return 0;
}

int
sock_set_timeouts(int fd, int ms, char *err)
{
	struct timeval tv = {.tv_sec = ms / 1000,
			     .tv_usec = (ms % 1000) * 1000};

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return err_set(err, "socket time-outs: %s", strerror(errno));
	return 0;
}

void
sock_tcp_stats(int fd, int *mss, uint32_t *retrans)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	*mss = -1;
	*retrans = 0;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return;
	*mss = (int)ti.tcpi_snd_mss;
	*retrans = ti.tcpi_total_retrans;
}

int
sock_addr_text(const struct sockaddr *sa, char *buf)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	switch (sa->sa_family) {
	case AF_INET:
		inet_ntop(AF_INET, &s4->sin_addr, buf, SOCK_ADDR_LEN);
		return ntohs(s4->sin_port);
	case AF_INET6:
		inet_ntop(AF_INET6, &s6->sin6_addr, buf, SOCK_ADDR_LEN);
		return ntohs(s6->sin6_port);
	default:
		snprintf(buf, SOCK_ADDR_LEN, "unknown");
		return -1;
	}
}

/* The port of a socket's own end (getsockname) or its peer's
 * (getpeername); -1 on error. */
static int
end_port(int fd, int (*get)(int, struct sockaddr *, socklen_t *))
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char text[SOCK_ADDR_LEN];

	if (get(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	return sock_addr_text((struct sockaddr *)&ss, text);
}

int
sock_local_port(int fd)
{
	return end_port(fd, getsockname);
}

int
sock_peer_port(int fd)
{
	return end_port(fd, getpeername);
}

const char *
sock_family_name(int family)
{
	switch (family) {
	case AF_INET:
		return "AF_INET";
	case AF_INET6:
		return "AF_INET6";
	default:
		return "AF_UNSPEC";
	}
}

/* An IPv4 peer on an IPv6 socket arrives as ::ffff:a.b.c.d; compare the
 * IPv4 part so the control and data connections match either way. */
static int
v4_of(const struct sockaddr *sa, struct in_addr *out)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET) {
		*out = ((const struct sockaddr_in *)sa)->sin_addr;
		return 1;
	}
	if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(out, &s6->sin6_addr.s6_addr[12], 4);
		return 1;
	}
	return 0;
}

int
sock_same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	struct in_addr a4, b4;

	if (v4_of(a, &a4) && v4_of(b, &b4))
		return a4.s_addr == b4.s_addr;
	if (a->sa_family == AF_INET6 && b->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr,
			      16) == 0;
	return 0;
}

/* Appends "load the word at SKF_NET_OFF + off; unless it is v, reject"
 * to a filter whose reject is instruction rej; returns the next index. */
static int
filter_word(struct sock_filter *f, int i, uint32_t off, uint32_t v, int rej)
{
	f[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					    (uint32_t)SKF_NET_OFF + off);
	f[i + 1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, v, 0,
						(uint8_t)(rej - i - 2));
	return i + 2;
}

int
sock_filter_host(int fd, const struct sockaddr *peer, char *err)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)peer;
	struct sock_filter f[12];
	struct sock_fprog prog = {.filter = f};
	struct in_addr a4;
	unsigned char junk[1];
	uint32_t w;
	int i, v4 = v4_of(peer, &a4), rej = v4 ? 5 : 11;

	if (!v4 && peer->sa_family != AF_INET6)
		return err_set(err, "cannot filter datagrams by a %s address",
			       sock_family_name(peer->sa_family));
	/* The network header's protocol first: an IPv6 socket takes IPv4
	 * datagrams too, and the source address lies at another offset. */
	f[0] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_H | BPF_ABS, (uint32_t)SKF_AD_OFF + SKF_AD_PROTOCOL);
	f[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					    v4 ? ETH_P_IP : ETH_P_IPV6, 0,
					    (uint8_t)(rej - 2));
	if (v4) {
		i = filter_word(f, 2, 12, ntohl(a4.s_addr), rej);
	} else {
		i = 2;
		for (int k = 0; k < 4; k++) {
			memcpy(&w, &s6->sin6_addr.s6_addr[4 * k], 4);
			i = filter_word(f, i, 8 + 4 * (uint32_t)k, ntohl(w),
					rej);
		}
	}
	f[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffffffffu);
	f[rej] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	prog.len = (unsigned short)(rej + 1);
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) <
	    0)
		return err_set(err, "cannot filter datagrams by source: %s",
			       strerror(errno));
	/* What came before the filter is thrown away: bounded by what the
	 * queue can hold, the loop ends when it is empty. */
	for (i = 0; i < 1000000; i++)
		if (recv(fd, junk, sizeof(junk), MSG_DONTWAIT | MSG_TRUNC) <
			0 &&
		    errno != EINTR && errno != ECONNREFUSED)
			break;
	return 0;
}

int
sock_ifname_of(const struct sockaddr *addr, char *ifname, char *err)
{
	struct ifaddrs *ifs, *i;
	int found = 0;

	if (getifaddrs(&ifs) < 0)
		return err_set(err, "getifaddrs: %s", strerror(errno));
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || !sock_same_host(i->ifa_addr, addr))
			continue;
		snprintf(ifname, IF_NAMESIZE, "%s", i->ifa_name);
		found = 1;
	}
	freeifaddrs(ifs);
	if (!found) {
		char text[SOCK_ADDR_LEN];

		sock_addr_text(addr, text);
		return err_set(err, "no interface holds %s", text);
	}
	return 0;
}

void
sock_extra_init(struct sock_extra *x)
{
	memset(x, 0, sizeof(*x));
	x->prio = -1;
	x->tos = -1;
	x->mcast_ttl = -1;
}

/* One setsockopt of an int; returns 0, or -1 with err naming it. */
static int
set_int(int fd, int level, int name, int v, const char *what, char *err)
{
	if (setsockopt(fd, level, name, &v, sizeof(v)) < 0)
		return err_set(err, "%s %d: %s", what, v, strerror(errno));
	return 0;
}

int
sock_apply_extra(int fd, int family, int socktype, int listening,
		 const struct sock_extra *x, char *err)
{
	int tcp = socktype == SOCK_STREAM;
	int v6 = family == AF_INET6;

	if (x->keepalive &&
	    set_int(fd, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE", err) < 0)
		return -1;
	if (x->prio >= 0 &&
	    set_int(fd, SOL_SOCKET, SO_PRIORITY, x->prio, "SO_PRIORITY", err) <
		0)
		return -1;
	if (x->tos >= 0 &&
	    set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
		    v6 ? IPV6_TCLASS : IP_TOS, x->tos,
		    v6 ? "IPV6_TCLASS" : "IP_TOS", err) < 0)
		return -1;
	if (x->dontroute &&
	    set_int(fd, SOL_SOCKET, SO_DONTROUTE, 1, "SO_DONTROUTE", err) < 0)
		return -1;
	if (x->debug &&
	    set_int(fd, SOL_SOCKET, SO_DEBUG, 1, "SO_DEBUG", err) < 0)
		return -1;
	if (x->pacing > 0) {
		unsigned long long rate = x->pacing;

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate,
			       sizeof(rate)) < 0)
			return err_set(err, "SO_MAX_PACING_RATE %llu: %s", rate,
				       strerror(errno));
	}
	if (x->mtu_do && !v6 &&
	    set_int(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO,
		    "IP_MTU_DISCOVER", err) < 0)
		return -1;
	if (x->mtu_do && v6 &&
	    set_int(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO,
		    "IPV6_MTU_DISCOVER", err) < 0)
		return -1;
	if (x->mcast_ttl >= 0 && !tcp &&
	    set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
		    v6 ? IPV6_MULTICAST_HOPS : IP_MULTICAST_TTL, x->mcast_ttl,
		    "IP_MULTICAST_TTL", err) < 0)
		return -1;
	if (!tcp)
		return 0;
	if (x->cork && set_int(fd, IPPROTO_TCP, TCP_CORK, 1, "TCP_CORK", err) < 0)
		return -1;
	if (x->cong[0] != '\0' &&
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, x->cong,
		       (socklen_t)strlen(x->cong)) < 0)
		return err_set(err, "TCP_CONGESTION \"%s\": %s", x->cong,
			       strerror(errno));
	if (x->fastopen && listening &&
	    set_int(fd, IPPROTO_TCP, TCP_FASTOPEN, 16, "TCP_FASTOPEN", err) < 0)
		return -1;
	if (x->fastopen && !listening &&
	    set_int(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, 1,
		    "TCP_FASTOPEN_CONNECT", err) < 0)
		return -1;
	if (x->defer_accept && listening &&
	    set_int(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, 1, "TCP_DEFER_ACCEPT",
		    err) < 0)
		return -1;
	return 0;
}
