/*
 * Unix domain sockets' endpoints: netperf 2.7's STREAM_STREAM, STREAM_RR,
 * DG_STREAM and DG_RR, between a netperf and a netserver on one host. The
 * control connection stays TCP, and must reach an address of this host.
 *
 * netserver makes its socket files in a directory of its own, one a
 * session (mkdtemp under $XDG_RUNTIME_DIR, else /tmp; mode 0700), each
 * file named by the port it stands for in the ready message; the ready's
 * "data_at" carries the directory, which netperf checks (absolute, under
 * a runtime prefix, named as netserver names it, no "." or "..", a
 * directory of netperf's own user) before it connects. The client never
 * names a path. A file goes when its listener closes or its datagram
 * socket is connected to netperf's (transport_release), and the directory
 * with the last file; a session cut by SIGTERM or a client that left
 * closes its listeners the same way. netperf's datagram socket takes an
 * abstract address the kernel picks (autobind: no file to remove), and
 * once connected receives from netserver's socket only.
 */
#include "np/transport.h"

#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "np/err.h"
#include "np/sock.h"

#define UNIX_DIR_NAME "netserver-"
/* mkdtemp's six letters. */
#define UNIX_DIR_RAND 6
/* The runtime directory's longest path taken, so that the directory,
 * "/" and a five-digit port fit SOCK_ADDR_LEN (and sun_path). */
#define UNIX_BASE_MAX 32
#define UNIX_PORT_TRIES 64

/* The session's directory, its files and the next port to name one. */
static pthread_mutex_t unix_lock = PTHREAD_MUTEX_INITIALIZER;
static char unix_dir[SOCK_ADDR_LEN];
static int unix_files;
static unsigned unix_next = 1;

/* Where netserver makes its directory: $XDG_RUNTIME_DIR when it is an
 * absolute path short enough, else /tmp. */
static const char *
unix_base(void)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (x != NULL && x[0] == '/' && strlen(x) <= UNIX_BASE_MAX &&
	    strstr(x, "/.") == NULL)
		return x;
	return "/tmp";
}

/* Whether parent (len bytes) is a runtime prefix netserver may use:
 * /tmp, /run/user/<uid>, or netperf's own $XDG_RUNTIME_DIR. */
static int
unix_prefix_ok(const char *parent, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	size_t i;

	if (len == 4 && memcmp(parent, "/tmp", 4) == 0)
		return 1;
	if (x != NULL && x[0] == '/' && strlen(x) == len &&
	    memcmp(parent, x, len) == 0)
		return 1;
	if (len <= 10 || memcmp(parent, "/run/user/", 10) != 0)
		return 0;
	for (i = 10; i < len; i++)
		if (parent[i] < '0' || parent[i] > '9')
			return 0;
	return 1;
}

int
transport_unix_dir_ok(const char *dir, char *err)
{
	const char *base = strrchr(dir, '/'), *c;
	size_t n = strlen(dir), i;

	if (dir[0] != '/' || n + 7 > SOCK_ADDR_LEN)
		return err_set(err,
			       "netserver's socket directory \"%.64s\" is not "
			       "an absolute path that fits",
			       dir);
	/* Every component: not empty, not "." or "..". */
	for (c = dir; c != NULL && *c != '\0'; c = strchr(c + 1, '/')) {
		size_t len = strcspn(c + 1, "/");

		if (len == 0 || (len == 1 && c[1] == '.') ||
		    (len == 2 && c[1] == '.' && c[2] == '.'))
			return err_set(
			    err,
			    "netserver's socket directory \"%.64s\" "
			    "has an empty, \".\" or \"..\" component",
			    dir);
	}
	if (strncmp(base + 1, UNIX_DIR_NAME, strlen(UNIX_DIR_NAME)) != 0 ||
	    strlen(base + 1) != strlen(UNIX_DIR_NAME) + UNIX_DIR_RAND)
		return err_set(err,
			       "netserver's socket directory \"%.64s\" is not "
			       "named " UNIX_DIR_NAME "XXXXXX",
			       dir);
	for (i = strlen(UNIX_DIR_NAME) + 1; base[i] != '\0'; i++)
		if (!((base[i] >= 'a' && base[i] <= 'z') ||
		      (base[i] >= 'A' && base[i] <= 'Z') ||
		      (base[i] >= '0' && base[i] <= '9')))
			return err_set(err,
				       "netserver's socket directory \"%.64s\" "
				       "is not named " UNIX_DIR_NAME "XXXXXX",
				       dir);
	if (!unix_prefix_ok(dir, (size_t)(base - dir)))
		return err_set(err,
			       "netserver's socket directory \"%.64s\" is "
			       "not under /tmp, /run/user/<uid> or "
			       "$XDG_RUNTIME_DIR",
			       dir);
	return 0;
}

/* dir, checked, and on this host a directory of netperf's own user
 * (or root's netperf: anyone's) that no other user may enter. */
static int
unix_dir_here(const char *dir, char *err)
{
	struct stat st;

	if (transport_unix_dir_ok(dir, err) < 0)
		return -1;
	if (lstat(dir, &st) < 0)
		return err_set(err,
			       "netserver's socket directory %s: %s (is "
			       "netserver on this host?)",
			       dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || (st.st_mode & 077) != 0 ||
	    (geteuid() != 0 && st.st_uid != geteuid()))
		return err_set(err,
			       "netserver's socket directory %s is not a "
			       "private directory (0700) of this user: a Unix "
			       "domain socket test runs netperf as netserver's "
			       "user or root",
			       dir);
	return 0;
}

static void
unix_addr(struct sockaddr_un *a, const char *dir, unsigned port)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "%s/%u", dir, port);
}

/* Binds a socket of t at port's file in the session's directory (made
 * on first use), or when port is 0 at the next free one; a stream
 * socket listens. */
static int
unix_listen(const struct transport *t, const struct sockaddr *self,
	    const struct sockaddr *peer, int port, int backlog, char *err)
{
	struct sockaddr_un a;
	int fd, i, e = 0;

	(void)self;
	(void)peer;
	if (port < 0 || port > 65535)
		return err_set(err, "Unix socket: no port %d", port);
	fd = socket(AF_UNIX, t->socktype | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, "Unix socket: %s", strerror(errno));
	pthread_mutex_lock(&unix_lock);
	if (unix_dir[0] == '\0') {
		snprintf(unix_dir, sizeof(unix_dir),
			 "%s/" UNIX_DIR_NAME "XXXXXX", unix_base());
		/* mkdtemp makes it 0700. */
		if (mkdtemp(unix_dir) == NULL) {
			e = errno;
			pthread_mutex_unlock(&unix_lock);
			err_set(err,
				"cannot make a directory for Unix sockets "
				"under %s: %s",
				unix_base(), strerror(e));
			unix_dir[0] = '\0';
			close(fd);
			return -1;
		}
	}
	for (i = 0; i < (port != 0 ? 1 : UNIX_PORT_TRIES); i++) {
		unsigned p = port != 0 ? (unsigned)port : unix_next;

		if (port == 0)
			unix_next = unix_next % 65535 + 1;
		unix_addr(&a, unix_dir, p);
		e = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
		if (e != EADDRINUSE)
			break;
	}
	if (e == 0)
		unix_files++;
	else if (unix_files == 0 && rmdir(unix_dir) == 0)
		unix_dir[0] = '\0';
	pthread_mutex_unlock(&unix_lock);
	if (e != 0) {
		close(fd);
		return err_set(err, "Unix socket: cannot bind %s: %s",
			       a.sun_path, strerror(e));
	}
	if (t->socktype == SOCK_STREAM && listen(fd, backlog) < 0) {
		e = errno;
		transport_release(t, fd);
		close(fd);
		return err_set(err, "Unix socket: listen: %s", strerror(e));
	}
	return fd;
}

/* Removes listener fd's file, and the directory with the last. */
static void
unix_release(int fd)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	size_t n;

	memset(&a, 0, sizeof(a));
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0 ||
	    a.sun_family != AF_UNIX)
		return;
	pthread_mutex_lock(&unix_lock);
	n = strlen(unix_dir);
	if (n > 0 && strncmp(a.sun_path, unix_dir, n) == 0 &&
	    a.sun_path[n] == '/' && unlink(a.sun_path) == 0 &&
	    --unix_files == 0) {
		rmdir(unix_dir);
		unix_dir[0] = '\0';
	}
	pthread_mutex_unlock(&unix_lock);
}

static int
unix_connect(const struct transport *t, const char *host, int port, int family,
	     struct sock_setup *setup, int timeout_ms, char *err)
{
	struct sockaddr_un a;
	/* A datagram socket binds first, to an abstract address the kernel
	 * picks, so that netserver can connect its socket back. */
	sa_family_t any = AF_UNIX;
	struct addrinfo local = {.ai_family = AF_UNIX,
				 .ai_addr = (struct sockaddr *)&any,
				 .ai_addrlen = sizeof(any)};
	char why[ERR_LEN];
	int fd;

	(void)family;
	if (unix_dir_here(host, err) < 0)
		return -1;
	if (setup->mss > 0 || (setup->local != NULL && setup->local[0]) ||
	    setup->lport != 0)
		return err_set(err, "Unix socket: no MSS (-G), local address "
				    "(-L) or local port for a Unix domain "
				    "socket");
	setup->protocol = 0;
	unix_addr(&a, host, (unsigned)port);
	fd = sock_connect_addr((struct sockaddr *)&a, sizeof(a), t->socktype,
			       t->socktype == SOCK_DGRAM ? &local : NULL, setup,
			       timeout_ms, why);
	if (fd < 0)
		return err_set(err, "cannot connect to Unix socket %s: %s",
			       a.sun_path, why);
	return fd;
}

/* Whether sa is loopback or an address of one of this host's
 * interfaces. */
static int
unix_addr_local(const struct sockaddr *sa, const struct ifaddrs *ifs)
{
	const struct ifaddrs *i;

	if (sa->sa_family == AF_INET &&
	    (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) ==
		127)
		return 1;
	if (sa->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr))
		return 1;
	for (i = ifs; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL && sock_same_host(sa, i->ifa_addr))
			return 1;
	return 0;
}

/* The data host (the address netperf's control connection reached, or
 * -- -H) must be this host's: a Unix domain socket reaches no other. */
static int
unix_check(const char *host, int family, int ctl_family, char *err)
{
	struct addrinfo *ai, *p;
	struct ifaddrs *ifs = NULL;
	int local = 1;

	(void)ctl_family;
	if (sock_resolve(host, 0, family, SOCK_STREAM, &ai, err) < 0)
		return -1;
	if (getifaddrs(&ifs) < 0)
		ifs = NULL;
	for (p = ai; p != NULL && local; p = p->ai_next)
		local = unix_addr_local(p->ai_addr, ifs);
	if (ifs != NULL)
		freeifaddrs(ifs);
	freeaddrinfo(ai);
	if (local)
		return 0;
	return err_set(err,
		       "Unix domain sockets reach a netserver on this host "
		       "only, and %.64s is not an address of this host",
		       host);
}

/* The token admits: a Unix peer is on this host, and has no address to
 * hold against the control client's. */
static int
unix_same_host(const struct sockaddr *ctl_peer, const struct sockaddr *from)
{
	(void)ctl_peer;
	return from->sa_family == AF_UNIX;
}

/* A socket file's directory into buf, and the port its name stands for;
 * -1 for any other address (netperf's abstract one, an unnamed one). */
static int
unix_format(const struct sockaddr *sa, char *buf)
{
	const struct sockaddr_un *a = (const struct sockaddr_un *)sa;
	const char *slash;
	char *end;
	unsigned long port;

	snprintf(buf, SOCK_ADDR_LEN, "local");
	if (sa->sa_family != AF_UNIX || a->sun_path[0] != '/')
		return -1;
	slash = strrchr(a->sun_path, '/');
	port = strtoul(slash + 1, &end, 10);
	if (slash[1] == '\0' || *end != '\0' || port < 1 || port > 65535 ||
	    slash - a->sun_path >= SOCK_ADDR_LEN)
		return -1;
	snprintf(buf, SOCK_ADDR_LEN, "%.*s", (int)(slash - a->sun_path),
		 a->sun_path);
	return (int)port;
}

const struct transport_ends transport_ends_unix = {
    .listen = unix_listen,
    .connect = unix_connect,
    .check = unix_check,
    .same_host = unix_same_host,
    .format = unix_format,
    .release = unix_release,
    .named = 1,
};
