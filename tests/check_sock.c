/*
 * Tests for lib/sock: the sockets netserver binds for a test's data.
 * A check that cannot run here says why (harness_skip), on a line of
 * its own; the suite passes on what could run (harness_run).
 */
#include "harness.h"

#include <netinet/in.h>
#include <stdio.h>
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

static Suite *
sock_suite(void)
{
	Suite *s = suite_create("sock");
	TCase *tc = tcase_create("listen");

	tcase_add_loop_test(tc, udp_ports_distinct, 0,
			    (int)(sizeof(udp_binds) / sizeof(udp_binds[0])));
	tcase_add_test(tc, tcp_listener_reuses);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(sock_suite());
}
