/* Sockets: resolve, listen, connect with a timeout, socket options. */
#ifndef NP_SOCK_H
#define NP_SOCK_H

#include <netdb.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* An address in text form, "127.0.0.1" or "::1". */
#define SOCK_ADDR_LEN 64

/* Resolves host and port for family (AF_UNSPEC, AF_INET, AF_INET6);
 * host NULL means the wildcard. Returns 0, or -1 with err set. */
int sock_resolve(const char *host, int port, int family, int socktype,
		 struct addrinfo **res, char *err);

/* Opens a listening (TCP) or bound (UDP) socket on host:port; host NULL
 * or "" is the wildcard. Returns the descriptor, or -1 with err set. */
int sock_listen(const char *host, int port, int family, int socktype,
		int backlog, char *err);

/* sock_listen with socket(2)'s protocol (IPPROTO_MPTCP), 0 for the
 * socket type's own. */
int sock_listen_proto(const char *host, int port, int family, int socktype,
		      int protocol, int backlog, char *err);

/*
 * netperf 2.7's per-socket options for one side's data sockets: -S, -y,
 * -Y globally, -C, -K, -q, -R, -f, -g, -l, -F, -a after "--". Zero (or
 * -1 where 0 is a value) leaves the system's default.
 */
struct sock_extra {
	int keepalive;	    /* SO_KEEPALIVE, -S */
	int prio;	    /* SO_PRIORITY, -y; -1 leaves it */
	int tos;	    /* IP_TOS or IPV6_TCLASS, -Y; -1 leaves it */
	int cork;	    /* TCP_CORK, -C */
	char cong[16];	    /* TCP_CONGESTION, -K; "" leaves it */
	int dontroute;	    /* SO_DONTROUTE, -R 0 */
	uint64_t pacing;    /* SO_MAX_PACING_RATE bytes/s, -q; 0 leaves it */
	int mtu_do;	    /* IP_MTU_DISCOVER = DO, -f */
	int debug;	    /* SO_DEBUG, -g */
	int mcast_ttl;	    /* IP_MULTICAST_TTL, -l; -1 leaves it */
	int fastopen;	    /* TCP Fast Open, -F */
	int defer_accept;   /* TCP_DEFER_ACCEPT on a listener, -a */
};

/* A sock_extra that changes nothing. */
void sock_extra_init(struct sock_extra *x);

/*
 * Applies x to fd, a socket of family and socktype; listening is 1 for a
 * TCP listener (which takes Fast Open's queue and TCP_DEFER_ACCEPT, and
 * passes the rest to the connections it accepts). Returns 0, or -1 with
 * err naming the option the kernel refused and why.
 */
int sock_apply_extra(int fd, int family, int socktype, int listening,
		     const struct sock_extra *x, char *err);

/* How to set up a socket before it connects. */
struct sock_setup {
	const char *local;  /* address to bind, NULL or "" for any */
	int lport;	    /* port to bind, 0 for any */
	int sndbuf, rcvbuf; /* SO_SNDBUF/SO_RCVBUF to ask for, -1 none */
	int got_sndbuf, got_rcvbuf; /* what the socket had before connect */
	int mss;		    /* TCP_MAXSEG to set, 0 for the default */
	const struct sock_extra *extra; /* or NULL */
	int protocol; /* socket(2)'s protocol, 0 for the type's own */
};

/*
 * Connects to host:port, trying each address in turn, each within
 * timeout_ms, after applying setup (which may be NULL). Returns the
 * descriptor, or -1 with err set as "cannot connect to H port P: why".
 */
int sock_connect(const char *host, int port, int family, int socktype,
		 struct sock_setup *setup, int timeout_ms, char *err);

/* Connects to a resolved address within timeout_ms, first binding local
 * when it is not NULL and applying setup's buffer sizes; returns the
 * descriptor, or -1 with err set. A timeout_ms below 0 returns at once,
 * the connection in progress on a non-blocking descriptor. */
int sock_connect_addr(const struct sockaddr *sa, socklen_t salen, int socktype,
		      const struct addrinfo *local, struct sock_setup *setup,
		      int timeout_ms, char *err);


/* Sets SO_SNDBUF and SO_RCVBUF where they are >= 0; returns 0, or -1
 * with err set. */
int sock_set_buffers(int fd, int sndbuf, int rcvbuf, char *err);

/* Reads SO_SNDBUF and SO_RCVBUF; each is -1 when it cannot be read. */
void sock_get_buffers(int fd, int *sndbuf, int *rcvbuf);

/* Sets TCP_NODELAY; returns 0, or -1 with err set. */
int sock_set_nodelay(int fd, int on, char *err);

/* Bounds every blocking send and receive on fd to ms milliseconds, so a
 * silent peer can never hang a loop; returns 0, or -1 with err set. */
int sock_set_timeouts(int fd, int ms, char *err);

/* The MSS and total retransmissions from TCP_INFO; -1 and 0 when the
 * socket is not TCP. */
void sock_tcp_stats(int fd, int *mss, uint32_t *retrans);

/* Formats the address of sa into buf (SOCK_ADDR_LEN bytes); returns its
 * port, or -1 for an unknown family. */
int sock_addr_text(const struct sockaddr *sa, char *buf);

/* The local port a socket is bound to; -1 on error. */
int sock_local_port(int fd);

/* The port of a connected socket's peer; -1 on error. */
int sock_peer_port(int fd);

/* The interface that holds local address addr (the one a connection's
 * traffic uses); fills ifname (IF_NAMESIZE bytes) and returns 0, or -1
 * with err set. */
int sock_ifname_of(const struct sockaddr *addr, char *ifname, char *err);

/* "AF_INET", "AF_INET6" or "AF_UNSPEC". */
const char *sock_family_name(int family);

/* Compares the address parts (not ports) of two socket addresses; returns
 * 1 when they are the same host. */
int sock_same_host(const struct sockaddr *a, const struct sockaddr *b);

/*
 * Lets UDP socket fd queue only datagrams from peer's host (its address,
 * IPv4, IPv6 or v4-mapped; not its port), by a socket filter the kernel
 * runs before queueing, and discards what was queued before. For a socket
 * whose port its peer has not yet been told. Returns 0, or -1 with err
 * set.
 */
int sock_filter_host(int fd, const struct sockaddr *peer, char *err);

#endif
