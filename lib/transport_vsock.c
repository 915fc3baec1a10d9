/*
 * VSOCK's endpoints (AF_VSOCK, between a virtual machine and its host): a
 * context ID and a port. The control connection stays TCP; the data
 * connection goes to the CID the user names after "--" with -H (a
 * number, "local" for this host's loopback, "host" for the hypervisor),
 * and netserver listens on every CID it has. A VSOCK peer has no IP
 * address to hold against the control client's, so the test's token
 * alone admits it.
 */
#include "np/transport.h"

#include <errno.h>
#include <linux/vm_sockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "np/err.h"
#include "np/sock.h"

/* Ports netserver picks from: the READY message carries 16-bit ports,
 * and the kernel's own pick (VMADDR_PORT_ANY) is any 32-bit number. */
#define VSOCK_PORT_LO 1024
#define VSOCK_PORT_SPAN (65536 - VSOCK_PORT_LO)
#define VSOCK_PORT_TRIES 64

/* The CID host names ("local", "host" or a number) into *cid; returns 0,
 * or -1 with err saying what -H takes. */
static int
vsock_cid(const char *host, unsigned *cid, char *err)
{
	char *end;
	unsigned long v;

	if (strcasecmp(host, "local") == 0) {
		*cid = VMADDR_CID_LOCAL;
		return 0;
	}
	if (strcasecmp(host, "host") == 0) {
		*cid = VMADDR_CID_HOST;
		return 0;
	}
	errno = 0;
	v = strtoul(host, &end, 10);
	if (host[0] < '0' || host[0] > '9' || *end != '\0' || errno != 0 ||
	    v >= VMADDR_CID_ANY)
		return err_set(
		    err,
		    "VSOCK: \"%.64s\" is not a CID: name netserver's "
		    "with -- -H cid (a number, local or host)",
		    host);
	*cid = (unsigned)v;
	return 0;
}

static void
vsock_addr(struct sockaddr_vm *a, unsigned cid, unsigned port)
{
	memset(a, 0, sizeof(*a));
	a->svm_family = AF_VSOCK;
	a->svm_cid = cid;
	a->svm_port = port;
}

/* Binds a VSOCK socket to every CID this host has, on port, or when port
 * is 0 on a 16-bit port of its own pick; listens. */
static int
vsock_listen(const struct transport *t, const struct sockaddr *self,
	     const struct sockaddr *peer, int port, int backlog, char *err)
{
	struct sockaddr_vm a;
	unsigned first = (unsigned)time(NULL) ^ (unsigned)getpid();
	int fd, i, e = 0;

	(void)self;
	(void)peer;
	fd = socket(AF_VSOCK, t->socktype | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, "VSOCK: socket: %s", strerror(errno));
	for (i = 0; i < (port != 0 ? 1 : VSOCK_PORT_TRIES); i++) {
		unsigned p =
		    port != 0 ? (unsigned)port
			      : VSOCK_PORT_LO + (first + (unsigned)i * 7919u) %
						    VSOCK_PORT_SPAN;

		vsock_addr(&a, VMADDR_CID_ANY, p);
		e = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
		if (e != EADDRINUSE)
			break;
	}
	if (e != 0) {
		close(fd);
		return err_set(err, "VSOCK: cannot bind port %d: %s", port,
			       strerror(e));
	}
	if (listen(fd, backlog) < 0) {
		e = errno;
		close(fd);
		return err_set(err, "VSOCK: listen: %s", strerror(e));
	}
	return fd;
}

static int
vsock_connect(const struct transport *t, const char *host, int port, int family,
	      struct sock_setup *setup, int timeout_ms, char *err)
{
	struct sockaddr_vm a;
	char why[ERR_LEN];
	unsigned cid;
	int fd;

	(void)family;
	if (vsock_cid(host, &cid, err) < 0)
		return -1;
	if (setup->mss > 0 || (setup->local != NULL && setup->local[0]))
		return err_set(err, "VSOCK: no MSS (-G) and no local address "
				    "(-L) for a VSOCK socket");
	setup->protocol = t->protocol;
	vsock_addr(&a, cid, (unsigned)port);
	fd = sock_connect_addr((struct sockaddr *)&a, sizeof(a), t->socktype,
			       NULL, setup, timeout_ms, why);
	if (fd < 0)
		return err_set(err,
			       "cannot connect to VSOCK CID %u port %d: %s",
			       cid, port, why);
	return fd;
}

/* The CID, and for this host's loopback whether the kernel has it: a
 * socket binds to CID 1 only when the vsock_loopback transport is
 * there, where a connection to it would wait out its time-out. */
static int
vsock_check(const char *host, int family, int ctl_family, char *err)
{
	struct sockaddr_vm a;
	unsigned cid;
	int fd, e = 0;

	(void)family;
	(void)ctl_family;
	if (vsock_cid(host, &cid, err) < 0)
		return -1;
	if (cid != VMADDR_CID_LOCAL)
		return 0;
	fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, "VSOCK: socket: %s", strerror(errno));
	vsock_addr(&a, VMADDR_CID_LOCAL, VMADDR_PORT_ANY);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		e = errno;
	close(fd);
	if (e == 0)
		return 0;
	return err_set(err,
		       "VSOCK: this kernel has no loopback transport for CID "
		       "1 (%s): vsock_loopback (CONFIG_VSOCKETS_LOOPBACK)",
		       strerror(e));
}

/* The token admits: a VSOCK peer has no address to hold against the
 * control client's. */
static int
vsock_same_host(const struct sockaddr *ctl_peer, const struct sockaddr *from)
{
	(void)ctl_peer;
	return from->sa_family == AF_VSOCK;
}

static int
vsock_format(const struct sockaddr *sa, char *buf)
{
	const struct sockaddr_vm *a = (const struct sockaddr_vm *)sa;

	if (sa->sa_family != AF_VSOCK) {
		buf[0] = '\0';
		return -1;
	}
	snprintf(buf, SOCK_ADDR_LEN, "cid %u", a->svm_cid);
	return a->svm_port > 65535 ? -1 : (int)a->svm_port;
}

const struct transport_ends transport_ends_vsock = {
    .listen = vsock_listen,
    .connect = vsock_connect,
    .check = vsock_check,
    .same_host = vsock_same_host,
    .format = vsock_format,
};
