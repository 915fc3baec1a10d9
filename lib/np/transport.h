/*
 * Transports: what a test's data sockets are (family, type, protocol),
 * what each one needs once it is open, and what a report calls it. A test
 * in module.c's table runs over its own transport (TCP or UDP); the
 * request may name another of the same kind (MPTCP for a TCP test,
 * --mptcp or OMNI's -T mptcp), and every place that makes or tunes a data
 * socket asks the transport, never the protocol number.
 */
#ifndef NP_TRANSPORT_H
#define NP_TRANSPORT_H

#include <stddef.h>

struct side_result;
struct test_module;
struct test_params;

struct transport {
	const char *name;   /* "tcp": OMNI's -T word, the request's */
	const char *report; /* "TCP": the PROTOCOL selector, JSON */
	int family;	    /* AF_UNSPEC: IPv4 or IPv6, as resolved */
	int socktype;	    /* SOCK_STREAM or SOCK_DGRAM */
	int protocol;	    /* what socket(2) is given */
	/* The protocol of the tests (module_table's) it can carry. */
	int carries;
	/* TCP_NODELAY (-D) applies to its sockets. */
	int nodelay;
	/* --wire can count it: one flow a connection. */
	int wire;
	/* What the kernel lacks when socket(2) refuses the protocol; NULL
	 * when every kernel has it. */
	const char *missing;
	/* Checks that connected socket fd is carried as asked (MPTCP's
	 * did not fall back to TCP); returns 0, or -1 with err set. NULL:
	 * nothing to check. */
	int (*connected)(int fd, char *err);
	/* Takes r's transport figures from fd (MPTCP's subflows, the most
	 * of its readings), as a stream's interval begins and at its end;
	 * NULL: none. */
	void (*account)(int fd, struct side_result *r);
};

/* The transport named name ("tcp", "udp", "mptcp", any case); NULL when
 * there is none. */
const struct transport *transport_find(const char *name);

/* The transport test m runs over with request p: the one p names, else
 * m's own. Never NULL for a request transport_check passed. */
const struct transport *transport_of(const struct test_module *m,
				     const struct test_params *p);

/* Whether p asks for a transport other than m's own (MPTCP for a TCP
 * test); 1 or 0. */
int transport_changed(const struct test_module *m, const struct test_params *p);

/*
 * Checks that p's transport exists and carries test m, with p's other
 * options; netperf and netserver both ask. Returns 0, or -1 with err
 * naming the problem.
 */
int transport_check(const struct test_module *m, const struct test_params *p,
		    char *err);

/*
 * Whether this host's kernel makes sockets of t in family (AF_UNSPEC:
 * either IP version): opens one and closes it. Returns 0, or -1 with err
 * as "MPTCP: this kernel refuses IPPROTO_MPTCP sockets (why): what it
 * lacks".
 */
int transport_probe(const struct transport *t, int family, char *err);

/* Checks a connected data socket of t (see connected); returns 0, or -1
 * with err set. */
int transport_connected(const struct transport *t, int fd, char *err);

/* Takes r's transport figures from a stream's socket fd, as its
 * interval begins and at its end; nothing when t is NULL (a stream
 * never opened). */
void transport_account(const struct transport *t, int fd,
		       struct side_result *r);

#endif
