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
#include <sys/socket.h>

struct side_result;
struct sock_setup;
struct test_module;
struct test_params;
struct transport;

/* How a data socket is tied to its test once it is open. */
enum transport_admit {
	/* One listener; each connection is accepted from the control
	 * client's host and sends the test's token first. */
	TRANSPORT_ACCEPT,
	/* A bound socket a stream; the token comes in a datagram, which
	 * netserver echoes once it has connected the socket to its
	 * sender. */
	TRANSPORT_DATAGRAM,
};

/*
 * How a transport names a data endpoint and reaches it. An endpoint is a
 * struct sockaddr tagged by its family (an IP host and port, a VSOCK CID
 * and port); the user names it as text (-H after "--"), which only the
 * transport reads.
 */
struct transport_ends {
	/* Opens t's data listener (or a datagram transport's bound socket)
	 * on port (0: any) where the control connection arrived (self,
	 * from its client peer). Returns the descriptor, or -1 with err
	 * set. */
	int (*listen)(const struct transport *t, const struct sockaddr *self,
		      const struct sockaddr *peer, int port, int backlog,
		      char *err);
	/* Connects a data socket of t to host (as the user named it) and
	 * port within timeout_ms, set up as setup asks (family: -4/-6).
	 * Returns the descriptor, or -1 with err set. */
	int (*connect)(const struct transport *t, const char *host, int port,
		       int family, struct sock_setup *setup, int timeout_ms,
		       char *err);
	/* Checks, before a test, that host names a data endpoint in the
	 * control connection's family (AF_UNSPEC: any). Returns 0, or -1
	 * with err set. */
	int (*check)(const char *host, int family, int ctl_family, char *err);
	/* Whether a connection from `from` may be the control client's, at
	 * ctl_peer; 1 or 0. */
	int (*same_host)(const struct sockaddr *ctl_peer,
			 const struct sockaddr *from);
	/* Writes sa as text into buf (SOCK_ADDR_LEN bytes); returns its
	 * port, or -1 when it is not an endpoint of these. */
	int (*format)(const struct sockaddr *sa, char *buf);
	/* Removes what listen left outside the socket for listener fd (a
	 * Unix socket's file and its directory), before fd closes or
	 * becomes a stream's; NULL: nothing is left. */
	void (*release)(int fd);
	/* A port alone does not name the endpoint: netserver's ready
	 * carries format's text of its listener as "data_at", and netperf
	 * connects to that (checked by connect) instead of the data
	 * host, which only check reads. */
	int named;
};

/* IP's endpoints: a host resolved to IPv4 or IPv6, and a port. */
extern const struct transport_ends transport_ends_ip;
/* VSOCK's: a CID (-- -H: a number, local or host) and a port. */
extern const struct transport_ends transport_ends_vsock;
/* Unix domain sockets': a file in netserver's own directory, on this
 * host only. */
extern const struct transport_ends transport_ends_unix;

/* Whether dir, a netserver's ready "data_at", may be its directory of
 * Unix sockets: absolute, under /tmp, /run/user/<uid> or
 * $XDG_RUNTIME_DIR, named netserver-XXXXXX, no empty, "." or ".."
 * component. Returns 0, or -1 with err set. */
int transport_unix_dir_ok(const char *dir, char *err);

struct transport {
	const char *name;   /* "tcp": OMNI's -T word, the request's */
	const char *report; /* "TCP": the PROTOCOL selector, JSON */
	int family;	    /* AF_UNSPEC: IPv4 or IPv6, as resolved */
	int socktype;	    /* SOCK_STREAM or SOCK_DGRAM */
	int protocol;	    /* what socket(2) is given */
	/* The protocol of the tests (module_table's) it can carry. */
	int carries;
	enum transport_admit admit;
	const struct transport_ends *ends;
	/* -D's option (TCP_NODELAY and its kin): level and name; level 0
	 * when the transport has none. */
	int nodelay_level, nodelay_opt;
	const char *nodelay_name; /* "TCP_NODELAY", for messages */
	/* Its sockets answer TCP's options: TCP_INFO, TCP_MAXSEG,
	 * TCP_CONGESTION. */
	int tcp_info;
	/* netperf 2.7's protocol can ask a 2.7 netserver for it. */
	int legacy;
	/* It carries a connection per transaction, and --threads' flows. */
	int per_trans, flows;
	/* Why --wire cannot count it ("counts ..."); NULL when it can. */
	const char *no_wire;
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

/* Every transport's name, as "tcp, udp" and last "mptcp", into out. */
void transport_names(char *out, size_t cap, const char *last);

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

/* Opens t's data listener where the control connection ctl arrived, at
 * port (0: any); returns the descriptor, or -1 with err set. */
int transport_listen(const struct transport *t, int ctl, int port, int backlog,
		     char *err);

/* Connects a data socket of t to host and port (see transport_ends);
 * returns the descriptor, or -1 with err set. */
int transport_connect(const struct transport *t, const char *host, int port,
		      int family, struct sock_setup *setup, int timeout_ms,
		      char *err);

/* Checks that host names a data endpoint of t (see transport_ends);
 * returns 0, or -1 with err set. */
int transport_check_host(const struct transport *t, const char *host,
			 int family, int ctl_family, char *err);

/* Removes what t's listen left for listener fd (see release); before
 * fd closes or becomes a stream's. */
void transport_release(const struct transport *t, int fd);

/* The port of data socket fd's own end; -1 on error. */
int transport_port(const struct transport *t, int fd);

/* Sets -D's option on data socket fd where t has one; returns 0, or -1
 * with err set. */
int transport_nodelay(const struct transport *t, int fd, char *err);

/* Whether the data sockets of test m over t report TCP_INFO at their
 * end: those of a TCP-like transport that last the test; 1 or 0. */
int transport_has_tcpinfo(const struct transport *t,
			  const struct test_module *m);

/* "SOCK_STREAM" or "SOCK_DGRAM", as the JSON names t's sockets. */
const char *transport_socktype_name(const struct transport *t);

/* "Stream" or "Datagram", as netperf 2.7's selectors name them. */
const char *transport_socktype_word(const struct transport *t);

#endif
