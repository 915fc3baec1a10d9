/*
 * Tests for lib/sock: the sockets netserver binds for a test's data.
 * A check that cannot run here says why (harness_skip), on a line of
 * its own; the suite passes on what could run (harness_run).
 */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/err.h"
#include "np/sock.h"

/* As many UDP sockets as --streams 64 binds, and rounds enough that a
 * shared port (about one socket in 350 when SO_REUSEADDR was set) shows. */
#define STREAMS 64
#define ROUNDS 40

static int
port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	return ss.ss_family == AF_INET
		   ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
		   : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

struct bind_case {
	const char *host;
	int family;
};

/* netserver binds each stream's UDP socket to the control connection's
 * own address; on a dual-stack listener that is a v4-mapped one. */
static const struct bind_case udp_binds[] = {
    {"127.0.0.1", AF_INET},
    {"::ffff:127.0.0.1", AF_INET6},
    {NULL, AF_UNSPEC},
};

/*
 * Every UDP socket bound to port 0 gets a port of its own. With
 * SO_REUSEADDR set the kernel gave two of them one port now and then,
 * and the later took the earlier's datagrams: one stream of 64 never
 * saw its token and the test failed after 10 s.
 */
START_TEST(udp_ports_distinct)
{
	const struct bind_case *c = &udp_binds[_i];
	char err[ERR_LEN];
	int fds[STREAMS], ports[STREAMS];

	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < STREAMS; i++) {
			fds[i] = sock_listen(c->host, 0, c->family, SOCK_DGRAM,
					     0, err);
			if (fds[i] < 0 && c->family == AF_INET6) {
				harness_skip("no IPv6: v4-mapped binds");
				return;
			}
			ck_assert_msg(fds[i] >= 0, "%s", err);
			ports[i] = port_of(fds[i]);
			for (int k = 0; k < i; k++)
				ck_assert_msg(ports[k] != ports[i],
					      "round %d: sockets %d and %d "
					      "both hold port %d",
					      r, k, i, ports[i]);
		}
		for (int i = 0; i < STREAMS; i++)
			close(fds[i]);
	}
}
END_TEST

/* A TCP listener still takes a port whose old connections linger. */
START_TEST(tcp_listener_reuses)
{
	char err[ERR_LEN];
	int fd = sock_listen("127.0.0.1", 0, AF_INET, SOCK_STREAM, 4, err);
	int v = 0;
	socklen_t len = sizeof(v);

	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert_int_eq(getsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &v, &len),
			 0);
	ck_assert_int_ne(v, 0);
	close(fd);
}
END_TEST

/* addr (IPv4 or IPv6 text) and port as a socket address; its length. */
static socklen_t
addr_of(const char *addr, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		return sizeof(*s4);
	}
	ck_assert_int_eq(inet_pton(AF_INET6, addr, &s6->sin6_addr), 1);
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons((uint16_t)port);
	return sizeof(*s6);
}

/* Sends len bytes of text from address src to loopback's port in its
 * family; 0, or -1 when src cannot be bound here. */
static int
send_from(const char *src, int port, const char *text, size_t len)
{
	struct sockaddr_storage a, b;
	socklen_t alen = addr_of(src, 0, &a),
		  blen = addr_of(a.ss_family == AF_INET ? "127.0.0.1" : "::1",
				 port, &b);
	int fd = socket(a.ss_family, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	if (bind(fd, (struct sockaddr *)&a, alen) < 0) {
		close(fd);
		return -1;
	}
	ck_assert_int_eq(sendto(fd, text, len, 0, (struct sockaddr *)&b, blen),
			 (ssize_t)len);
	close(fd);
	return 0;
}

struct filter_case {
	int family;	    /* the socket's */
	const char *bound;  /* its address */
	const char *peer;   /* the host let in */
	const char *good;   /* a sender on the peer's host */
	const char *bad[3]; /* senders on other hosts */
};

static const struct filter_case filter_cases[] = {
    {AF_INET,
     "127.0.0.1",
     "127.0.0.1",
     "127.0.0.1",
     {"127.0.0.2", "127.0.0.3", NULL}},
    /* A dual-stack socket: IPv4 datagrams arrive v4-mapped. */
    {AF_INET6,
     "::",
     "::ffff:127.0.0.1",
     "127.0.0.1",
     {"127.0.0.2", "127.0.0.3", "::1"}},
    {AF_INET6, "::", "127.0.0.1", "127.0.0.1", {"127.0.0.2", "::1", NULL}},
    {AF_INET6, "::", "::1", "::1", {"127.0.0.1", NULL, NULL}},
};

/*
 * sock_filter_host: a datagram queued before it is thrown away, and after
 * it only those from the peer's host are queued, whatever the socket's
 * family and the other senders' (issue 29, item 9).
 */
START_TEST(filter_host_only)
{
	const struct filter_case *c = &filter_cases[_i];
	struct sockaddr_storage self, peer, from;
	socklen_t len = addr_of(c->bound, 0, &self);
	char err[ERR_LEN], buf[16];
	int fd = socket(c->family, SOCK_DGRAM, 0), port, i;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	if (c->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &(int){0},
			   sizeof(int));
	if (bind(fd, (struct sockaddr *)&self, len) < 0) {
		harness_skip("cannot bind a UDP socket to %s", c->bound);
		close(fd);
		return;
	}
	port = port_of(fd);
	if (send_from(c->bad[0], port, "early", 5) < 0 ||
	    send_from(c->good, port, "early", 5) < 0) {
		harness_skip("cannot send from %s and %s", c->bad[0], c->good);
		close(fd);
		return;
	}
	addr_of(c->peer, 9, &peer);
	ck_assert_msg(sock_filter_host(fd, (struct sockaddr *)&peer, err) == 0,
		      "%s", err);
	for (i = 0; i < 3 && c->bad[i] != NULL; i++) {
		ck_assert_int_eq(send_from(c->bad[i], port, "junk", 4), 0);
		ck_assert_int_eq(send_from(c->bad[i], port, "", 0), 0);
	}
	ck_assert_int_eq(send_from(c->good, port, "good", 4), 0);
	/* Loopback delivers within the send: the queue is complete. */
	len = sizeof(from);
	n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
		     (struct sockaddr *)&from, &len);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(memcmp(buf, "good", 4), 0);
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	ck_assert_msg(n < 0 && errno == EAGAIN,
		      "a second datagram (%zd bytes) was queued", n);
	close(fd);
}
END_TEST

/* A peer of a family that carries no IP address is refused in words. */
START_TEST(filter_host_family)
{
	struct sockaddr_storage peer;
	char err[ERR_LEN] = "";
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(&peer, 0, sizeof(peer));
	peer.ss_family = AF_UNIX;
	ck_assert_int_eq(sock_filter_host(fd, (struct sockaddr *)&peer, err),
			 -1);
	ck_assert_msg(strstr(err, "AF_UNSPEC") != NULL ||
			  strstr(err, "address") != NULL,
		      "%s", err);
	close(fd);
}
END_TEST

static Suite *
sock_suite(void)
{
	Suite *s = suite_create("sock");
	TCase *tc = tcase_create("listen");

	tcase_add_loop_test(tc, udp_ports_distinct, 0,
			    (int)(sizeof(udp_binds) / sizeof(udp_binds[0])));
	tcase_add_test(tc, tcp_listener_reuses);
	suite_add_tcase(s, tc);
	tc = tcase_create("filter");
	tcase_add_loop_test(
	    tc, filter_host_only, 0,
	    (int)(sizeof(filter_cases) / sizeof(filter_cases[0])));
	tcase_add_test(tc, filter_host_family);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(sock_suite());
}
