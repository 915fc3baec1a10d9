#include "np/transport.h"

#include <errno.h>
#include <linux/mptcp.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/err.h"
#include "np/escape.h"
#include "np/module.h"

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

static const struct transport transports[] = {
    {.name = "tcp",
     .report = "TCP",
     .family = AF_UNSPEC,
     .socktype = SOCK_STREAM,
     .protocol = IPPROTO_TCP,
     .carries = IPPROTO_TCP,
     .nodelay = 1,
     .wire = 1},
    {.name = "udp",
     .report = "UDP",
     .family = AF_UNSPEC,
     .socktype = SOCK_DGRAM,
     .protocol = IPPROTO_UDP,
     .carries = IPPROTO_UDP,
     .wire = 1},
    {.name = "mptcp",
     .report = "MPTCP",
     .family = AF_UNSPEC,
     .socktype = SOCK_STREAM,
     .protocol = IPPROTO_MPTCP,
     .carries = IPPROTO_TCP,
     .nodelay = 1,
     .missing = "net.mptcp.enabled is 0, or the kernel was built "
		"without MPTCP",
     .connected = mptcp_connected,
     .account = mptcp_account},
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

/* The transport a test of m runs over when the request names none. */
static const struct transport *
own(const struct test_module *m)
{
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
	const struct transport *t;
	char text[ESCAPE_LEN];

	if (p->transport[0] == '\0')
		return 0;
	t = transport_find(p->transport);
	/* The word may come from a peer: printable before it is shown. */
	if (t == NULL)
		return err_set(err,
			       "unknown transport \"%s\" (tcp, udp, "
			       "mptcp)",
			       escape_str(text, sizeof(text), p->transport));
	if (t->carries != m->protocol || t->socktype != m->socktype)
		return err_set(err, "%s does not carry %s, a %s test",
			       t->report, m->name, own(m)->report);
	if (p->wire && !t->wire)
		return err_set(err,
			       "--wire counts one flow a connection, and an "
			       "%s connection is several subflows: --wire "
			       "does not count %s",
			       t->report, t->report);
	return 0;
}

int
transport_probe(const struct transport *t, int family, char *err)
{
	int fd, e;

	if (t->missing == NULL)
		return 0;
	fd = socket(family == AF_INET6 ? AF_INET6 : AF_INET,
		    t->socktype | SOCK_CLOEXEC, t->protocol);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	e = errno;
	/* A host without IPv6 says nothing about the protocol. */
	if (e == EAFNOSUPPORT)
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
