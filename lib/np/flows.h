/*
 * Flows on threads: a test's N data connections (flows) served by T
 * threads on each end, each thread driving its flows from one epoll set,
 * as neper does. The runner (runner.c) starts these threads in place of a
 * thread a stream when the test asks for fewer threads than streams
 * (module_flows); the gate, the interim reports and the CPU snapshots are
 * the runner's as before. TCP_RR, TCP_CRR, TCP_STREAM, TCP_MAERTS,
 * UDP_RR and UDP_CRR, closed or on the open loop (rr_open.c's pacers).
 */
#ifndef NP_FLOWS_H
#define NP_FLOWS_H

#include <pthread.h>
#include <stddef.h>

#include "np/module.h"
#include "np/sock.h"

/* The most flows a test may ask for (--streams). */
#define FLOWS_MAX 1000000
/* The most streams that run on a thread each: past it, --threads. */
#define FLOWS_THREAD_EACH_MAX 1024
/* Descriptors a process needs besides its flows' sockets. */
#define FLOWS_FD_SLACK 64
/* Up to this many flows, a thread each is the default (measured:
 * bench/README.md, "Flow scaling"). */
#define FLOWS_EACH_DEFAULT 64

/* Bytes of netserver's own memory a flow may cost at most, socket
 * buffers (the kernel's) aside; doc/netserver.8 states it. */
#define FLOWS_MEM_PER_FLOW 4096

/* The bytes of a process's memory that one flow costs in flows mode (its
 * context, counts, place and state), socket buffers aside. */
size_t flows_mem_per_flow(void);

/* The threads --streams n runs on when --threads is not given. */
int flows_default_threads(int n);

/*
 * Whether test m with params p can run as flows; returns 0, or -1 with
 * err naming what cannot.
 */
int flows_check(const struct test_module *m, const struct test_params *p,
		char *err);

/*
 * Raises RLIMIT_NOFILE to its hard limit and checks that need
 * descriptors fit under it. Returns 0, or -1 with err naming the limit.
 */
int flows_nofile(long need, char *err);

/*
 * Starts run->threads threads, each with flows t, t + T, t + 2T... of the
 * run's contexts, bound to run->places[t] when there are places; they
 * wait at the run's gate. Fills tids; returns how many started (all, or
 * run->abort is set and err says why).
 */
int flows_start(struct module_run *run, pthread_t *tids, char *err);

/* Connections in progress at once while flows are set up. */
#define FLOWS_CONNECT_WINDOW 64

/*
 * Opens n TCP connections to sa (from local when not NULL, with setup's
 * socket options), FLOWS_CONNECT_WINDOW in progress at a time, each
 * within timeout_ms, and sends token (len bytes) on each as it opens.
 * fds[i] gets connection i (non-blocking), -1 where none was opened.
 * Returns 0, or -1 with err set.
 */
int flows_connect(const struct sockaddr *sa, socklen_t salen,
		  const struct addrinfo *local, struct sock_setup *setup,
		  const unsigned char *token, size_t len, int n, int *fds,
		  int timeout_ms, char *err);

/* After the threads are joined: 0, or -1 with err set to the first
 * failure. Frees the threads' state either way. */
int flows_finish(struct module_run *run, char *err);

#endif
