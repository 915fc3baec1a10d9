#include "np/transport.h"

#include <errno.h>
#include <linux/mptcp.h>
#include <linux/sctp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/err.h"
#include "np/escape.h"
#include "np/module.h"
#include "np/sock.h"

#ifndef SOL_MPTCP
#define SOL_MPTCP 284
#endif

/* MPTCP_INFO fails with EOPNOTSUPP on a socket that fell back to plain
 * TCP (the peer's SYN-ACK carried no MP_CAPABLE), and says so in its
 * flags on kernels that keep the MPTCP state. */
static int
mptcp_connected(int fd, char *err)
{
	struct mptcp_info mi;
	socklen_t len = sizeof(mi);

	memset(&mi, 0, sizeof(mi));
	if (getsockopt(fd, SOL_MPTCP, MPTCP_INFO, &mi, &len) == 0) {
		if ((mi.mptcpi_flags & MPTCP_INFO_FLAG_FALLBACK) == 0)
			return 0;
	} else if (errno != EOPNOTSUPP) {
		return err_set(err, "MPTCP: cannot read MPTCP_INFO: %s",
			       strerror(errno));
	}
	return err_set(err, "MPTCP: the data connection fell back to plain "
			    "TCP: the peer's host has MPTCP off "
			    "(net.mptcp.enabled=0), or the peer takes no "
			    "MPTCP (a netserver older than --mptcp, a -N "
			    "service)");
}

/* MPTCP_TCPINFO counts the subflows the connection holds, the initial
 * one included (MPTCP_INFO's mptcpi_subflows counts the added ones
 * only); no per-subflow records are asked for. The most of the
 * readings is kept. */
static void
mptcp_account(int fd, struct side_result *r)
{
	struct mptcp_subflow_data d;
	socklen_t len = sizeof(d);

	memset(&d, 0, sizeof(d));
	d.size_subflow_data = sizeof(d);
	if (getsockopt(fd, SOL_MPTCP, MPTCP_TCPINFO, &d, &len) == 0 &&
	    (int)d.num_subflows > r->subflows)
		r->subflows = (int)d.num_subflows;
}

/* IP's endpoints: netserver listens on the address the control
 * connection reached; a datagram socket queues the control client's
 * host's datagrams only (the token keeps the rest out of the test, and
 * this keeps them out of the queue). */
static int
ip_listen(const struct transport *t, const struct sockaddr *self,
	  const struct sockaddr *peer, int port, int backlog, char *err)
{
	char addr[SOCK_ADDR_LEN];
	int fd;

	sock_addr_text(self, addr);
	fd = sock_listen_proto(addr, port, self->sa_family, t->socktype,
			       t->protocol, backlog, err);
	if (fd >= 0 && t->admit == TRANSPORT_DATAGRAM &&
	    sock_filter_host(fd, peer, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
ip_connect(const struct transport *t, const char *host, int port, int family,
	   struct sock_setup *setup, int timeout_ms, char *err)
{
	setup->protocol = t->protocol;
	return sock_connect(host, port, family, t->socktype, setup, timeout_ms,
			    err);
}

/* "IPv4" or "IPv6", for messages. */
static const char *
ip_family_name(int af)
{
	return af == AF_INET6 ? "IPv6" : "IPv4";
}

/* netserver opens data sockets only on the address netperf reached it
 * at: a data host of the other IP version cannot be reached. */
static int
ip_check(const char *host, int family, int ctl_family, char *err)
{
	struct addrinfo *ai, *a;
	int af = -1;

	if (sock_resolve(host, 0, family, SOCK_STREAM, &ai, err) < 0)
		return -1;
	for (a = ai; a != NULL; a = a->ai_next)
		if (af < 0 || a->ai_family == ctl_family)
			af = a->ai_family;
	freeaddrinfo(ai);
	if (ctl_family == AF_UNSPEC || af == ctl_family)
		return 0;
	return err_set(err,
		       "the data connection to %s would be %s over an %s "
		       "control connection; netserver opens data sockets "
		       "only on the address netperf reached it at",
		       host, ip_family_name(af), ip_family_name(ctl_family));
}

const struct transport_ends transport_ends_ip = {
    .listen = ip_listen,
    .connect = ip_connect,
    .check = ip_check,
    .same_host = sock_same_host,
    .format = sock_addr_text,
};

static const struct transport transports[] = {
    {.name = "tcp",
     .report = "TCP",
     .family = AF_UNSPEC,
     .socktype = SOCK_STREAM,
     .protocol = IPPROTO_TCP,
     .carries = IPPROTO_TCP,
     .admit = TRANSPORT_ACCEPT,
     .ends = &transport_ends_ip,
     .nodelay_level = IPPROTO_TCP,
     .nodelay_opt = TCP_NODELAY,
     .nodelay_name = "TCP_NODELAY",
     .tcp_info = 1,
     .legacy = 1,
     .per_trans = 1,
     .flows = 1},
    {.name = "udp",
     .report = "UDP",
     .family = AF_UNSPEC,
     .socktype = SOCK_DGRAM,
     .protocol = IPPROTO_UDP,
     .carries = IPPROTO_UDP,
     .admit = TRANSPORT_DATAGRAM,
     .ends = &transport_ends_ip,
     .legacy = 1,
     .per_trans = 1,
     .flows = 1},
    {.name = "mptcp",
     .report = "MPTCP",
     .family = AF_UNSPEC,
     .socktype = SOCK_STREAM,
     .protocol = IPPROTO_MPTCP,
     .carries = IPPROTO_TCP,
     .admit = TRANSPORT_ACCEPT,
     .ends = &transport_ends_ip,
     .nodelay_level = IPPROTO_TCP,
     .nodelay_opt = TCP_NODELAY,
     .nodelay_name = "TCP_NODELAY",
     .tcp_info = 1,
     .per_trans = 1,
     .flows = 1,
     .no_wire = "counts one flow a connection, and an MPTCP connection is "
		"several subflows",
     .missing = "net.mptcp.enabled is 0, or the kernel was built "
		"without MPTCP",
     .connected = mptcp_connected,
     .account = mptcp_account},
    {.name = "sctp",
     .report = "SCTP",
     .family = AF_UNSPEC,
     .socktype = SOCK_STREAM,
     .protocol = IPPROTO_SCTP,
     .carries = IPPROTO_TCP,
     .admit = TRANSPORT_ACCEPT,
     .ends = &transport_ends_ip,
     .nodelay_level = IPPROTO_SCTP,
     .nodelay_opt = SCTP_NODELAY,
     .nodelay_name = "SCTP_NODELAY",
     .no_wire = "counts TCP and UDP flows",
     .missing = "the kernel has no SCTP (CONFIG_IP_SCTP, modprobe sctp)"},
    {.name = "vsock",
     .report = "VSOCK",
     .family = AF_VSOCK,
     .socktype = SOCK_STREAM,
     .carries = IPPROTO_TCP,
     .admit = TRANSPORT_ACCEPT,
     .ends = &transport_ends_vsock,
     .no_wire = "counts TCP and UDP flows",
     .missing = "the kernel has no AF_VSOCK (CONFIG_VSOCKETS, modprobe "
		"vsock)"},
    {.name = "unix",
     .report = "UNIX",
     .family = AF_UNIX,
     .socktype = SOCK_STREAM,
     .carries = IPPROTO_TCP,
     .admit = TRANSPORT_ACCEPT,
     .ends = &transport_ends_unix,
     .no_wire = "counts TCP and UDP flows"},
    {.name = "unix_dgram",
     .report = "UNIX",
     .family = AF_UNIX,
     .socktype = SOCK_DGRAM,
     .carries = IPPROTO_UDP,
     .admit = TRANSPORT_DATAGRAM,
     .ends = &transport_ends_unix,
     .no_wire = "counts TCP and UDP flows"},
};

#define NTRANSPORTS (sizeof(transports) / sizeof(transports[0]))

const struct transport *
transport_find(const char *name)
{
	for (size_t i = 0; i < NTRANSPORTS; i++)
		if (strcasecmp(transports[i].name, name) == 0)
			return &transports[i];
	return NULL;
}

void
transport_names(char *out, size_t cap, const char *last)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < NTRANSPORTS && used < cap; i++) {
		int n = snprintf(out + used, cap - used, "%s%s",
				 i == 0			? ""
				 : i + 1 == NTRANSPORTS ? last
							: ", ",
				 transports[i].name);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}

/* The transport a test of m runs over when the request names none: the
 * one its row names, else the one of its protocol. */
static const struct transport *
own(const struct test_module *m)
{
	const struct transport *t =
	    m->transport != NULL ? transport_find(m->transport) : NULL;

	if (t != NULL)
		return t;
	for (size_t i = 0; i < NTRANSPORTS; i++)
		if (transports[i].protocol == m->protocol &&
		    transports[i].socktype == m->socktype)
			return &transports[i];
	return &transports[0];
}

const struct transport *
transport_of(const struct test_module *m, const struct test_params *p)
{
	const struct transport *t =
	    p->transport[0] != '\0' ? transport_find(p->transport) : NULL;

	return t != NULL ? t : own(m);
}

int
transport_changed(const struct test_module *m, const struct test_params *p)
{
	return transport_of(m, p) != own(m);
}

int
transport_check(const struct test_module *m, const struct test_params *p,
		char *err)
{
	const struct transport *t = transport_of(m, p);
	char text[ESCAPE_LEN], names[128];

	if (p->transport[0] != '\0' && transport_find(p->transport) == NULL) {
		transport_names(names, sizeof(names), ", ");
		/* The word may come from a peer: printable before it is
		 * shown. */
		return err_set(err, "unknown transport \"%s\" (%s)",
			       escape_str(text, sizeof(text), p->transport),
			       names);
	}
	if (t->carries != m->protocol || t->socktype != m->socktype)
		return err_set(err, "%s does not carry %s, a %s test",
			       t->report, m->name, own(m)->report);
	if (p->wire && t->no_wire != NULL)
		return err_set(err, "--wire %s: --wire does not count %s",
			       t->no_wire, t->report);
	if (module_has(m, MODULE_F_PER_TRANS) && !t->per_trans)
		return err_set(err,
			       "%s: %s opens no connection per transaction",
			       m->name, t->report);
	if (module_flows(p) && !t->flows)
		return err_set(err,
			       "--threads: flows run over TCP and UDP, "
			       "not %s",
			       t->report);
	return 0;
}

int
transport_probe(const struct transport *t, int family, char *err)
{
	int fd, e;

	if (t->missing == NULL)
		return 0;
	if (t->family != AF_UNSPEC)
		family = t->family;
	else if (family != AF_INET6)
		family = AF_INET;
	fd = socket(family, t->socktype | SOCK_CLOEXEC, t->protocol);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	e = errno;
	/* A host without IPv6 says nothing about the protocol; a
	 * transport of its own family (VSOCK) is missing. */
	if (e == EAFNOSUPPORT && t->family == AF_UNSPEC)
		return 0;
	return err_set(err, "%s: this kernel refuses %s sockets (%s): %s",
		       t->report, t->report, strerror(e), t->missing);
}

int
transport_connected(const struct transport *t, int fd, char *err)
{
	return t->connected != NULL ? t->connected(fd, err) : 0;
}

void
transport_account(const struct transport *t, int fd, struct side_result *r)
{
	if (t != NULL && t->account != NULL && fd >= 0)
		t->account(fd, r);
}

int
transport_listen(const struct transport *t, int ctl, int port, int backlog,
		 char *err)
{
	struct sockaddr_storage self, peer;
	socklen_t len = sizeof(self), plen = sizeof(peer);

	if (getsockname(ctl, (struct sockaddr *)&self, &len) < 0 ||
	    getpeername(ctl, (struct sockaddr *)&peer, &plen) < 0)
		return err_set(err, "control connection: %s", strerror(errno));
	if (transport_probe(t, self.ss_family, err) < 0)
		return -1;
	return t->ends->listen(t, (struct sockaddr *)&self,
			       (struct sockaddr *)&peer, port, backlog, err);
}

int
transport_connect(const struct transport *t, const char *host, int port,
		  int family, struct sock_setup *setup, int timeout_ms,
		  char *err)
{
	return t->ends->connect(t, host, port, family, setup, timeout_ms, err);
}

int
transport_check_host(const struct transport *t, const char *host, int family,
		     int ctl_family, char *err)
{
	return t->ends->check(host, family, ctl_family, err);
}

void
transport_release(const struct transport *t, int fd)
{
	if (fd >= 0 && t->ends->release != NULL)
		t->ends->release(fd);
}

int
transport_port(const struct transport *t, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char text[SOCK_ADDR_LEN];

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	return t->ends->format((struct sockaddr *)&ss, text);
}

int
transport_nodelay(const struct transport *t, int fd, char *err)
{
	int on = 1;

	if (t->nodelay_level == 0)
		return 0;
	if (setsockopt(fd, t->nodelay_level, t->nodelay_opt, &on, sizeof(on)) <
	    0)
		return err_set(err, "%s: %s", t->nodelay_name, strerror(errno));
	return 0;
}

int
transport_has_tcpinfo(const struct transport *t, const struct test_module *m)
{
	return t->tcp_info && !module_has(m, MODULE_F_PER_TRANS);
}

const char *
transport_socktype_name(const struct transport *t)
{
	return t->socktype == SOCK_DGRAM ? "SOCK_DGRAM" : "SOCK_STREAM";
}

const char *
transport_socktype_word(const struct transport *t)
{
	return t->socktype == SOCK_DGRAM ? "Datagram" : "Stream";
}
