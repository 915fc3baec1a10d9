/* netperf's side of a test: control connection, data connection, run. */
#ifndef NP_CLIENT_H
#define NP_CLIENT_H

#include <signal.h>
#include <net/if.h>
#include <sys/socket.h>

#include "np/cli.h"
#include "np/result.h"
#include "np/topo.h"

struct client {
	int ctl;		      /* control socket, -1 when closed */
	struct sockaddr_storage peer; /* netserver's control address */
	struct sockaddr_storage self; /* our end of it */
	char server_program[64];      /* from netserver's hello */
	/* netserver speaks netperf 2.7's protocol: asked for with --legacy,
	 * or detected (detected is then 1) when our hello got no answer. */
	int legacy, detected;
	/* -N: no control connection and no netserver (ctl stays -1). */
	int no_control;
	struct result_env remote_env; /* netserver\'s host, from its hello */
	/* Placement: -T's first part, resolved against topo (loaded by
	 * the caller when cpu_bind is set); ifname carries the data, for
	 * "auto". */
	char cpu_bind[64];
	struct topo *topo;
	char ifname[IF_NAMESIZE];
	/* Interim reports (-D): see struct module_run; remote is
	 * netserver's TCP_INFO over the same interval, NULL when it sent
	 * none (not a TCP test, an older or 2.7 netserver, late). */
	double interim_sec;
	void (*on_interim)(void *arg, double count, double secs,
			   double since_start, const struct tcpinfo *tcpi,
			   const struct tcpinfo *remote,
			   const struct module_interval *ivl);
	void *arg;
	/* -F: the bytes netperf's buffers are filled with (repeated), or
	 * NULL for netperf's pattern. */
	char *fill;
	size_t fill_len;
	/* The last failure was one netperf 2.7 exits 255 on (its exit(-1)):
	 * a host name or data address that does not resolve in the family
	 * asked for, or a control connection that could not be made. */
	int unreached;
	/* The test failed because netserver said so (an error message of
	 * ours, or 2.7's error response): 2.7 exits 255 on that too. */
	int remote_error;
	/* This host's part of the platform record, read beside the control
	 * conversation (our protocol only); NULL when none is. */
	struct platform_job *plat;
};

/* Connects to netserver and exchanges versions; returns 0, or -1 with err
 * set ("cannot connect to H port P: why", a version mismatch...). */
int client_open(struct client *c, const struct netperf_opts *o, char *err);

/*
 * Fills res's names and addresses for the banner before the test runs
 * (the data connection goes to netserver's control address unless -H was
 * given after "--").
 */
void client_describe(const struct client *c, const struct netperf_opts *o,
		     struct result *res);

/*
 * Resolves the data connection's address as client_test will, before
 * anything is printed (2.7 does so before its banner); res must have been
 * described. Over our protocol it must have the control connection's
 * family, because netserver opens its data sockets only on the address
 * netperf reached it at. Returns 0, or -1 with err set and c->unreached.
 */
int client_check_data(struct client *c, const struct netperf_opts *o,
		      const struct result *res, char *err);

/*
 * Runs one test: request, data connection, both loops, results. res must
 * have been described; both sides' sums (res->side[].sum) are filled.
 * Returns 0, or -1 with err set (the remote's own message where it sent one).
 */
int client_test(struct client *c, const struct netperf_opts *o,
		struct result *res, volatile sig_atomic_t *stop, char *err);

/*
 * -t REM_CPU: netserver's CPU rate as 2.7 defines it (cpu_rate) and its
 * number of CPUs, asked in our protocol or with 2.7's CPU_CALIBRATE.
 * Returns 0, or -1 with err set.
 */
int client_cpu_rate(struct client *c, const struct netperf_opts *o,
		    double *rate, int *ncpu, char *err);

/* Says goodbye and closes the control connection. */
void client_close(struct client *c);

#endif
