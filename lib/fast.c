#include "np/fast.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "np/datapath.h"
#include "np/err.h"

/* Older headers lack these; the values are the kernel's ABI. */
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

/* "--opt applies to A and B only" when m lacks property f. */
static int
applies(const struct test_module *m, unsigned f, const char *opt, char *err)
{
	char names[128];

	if (module_has(m, f))
		return 0;
	module_names_with(f, names, sizeof(names));
	return err_set(err, "%s applies to %s only", opt, names);
}

/* --io-uring is a data path of its own, for the closed loops of the
 * tests that have it: every option that picks another path, or a loop
 * that moves its data its own way, is refused by name. */
static int
uring_check(const struct test_module *m, const struct test_params *p, char *err)
{
	const struct {
		int on;
		const char *opt;
	} no[] = {
	    {p->batch > 1, "--batch"},
	    {p->udp_gso, "--udp-gso"},
	    {p->udp_gro, "--udp-gro"},
	    {p->splice, "-V"},
	    {p->skip_rx_copy, "--skip-rx-copy"},
	    {p->use_write, "-I"},
	    {p->busy_poll > 0, "--busy-poll"},
	    {p->one_way, "--one-way"},
	    {p->timestamps, "--timestamps"},
	    {module_open_loop(p), "--rate, --timeout or --reconnect"},
	    {p->load_up + p->load_down > 0, "--under-load"},
	    {p->threads > 0 && p->threads < p->streams, "--threads"},
	};
	size_t i;

	if (applies(m, MODULE_F_IO_URING, "--io-uring", err) < 0)
		return -1;
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (no[i].on)
			return err_set(err,
				       "--io-uring is a data path of its own: "
				       "not with %s",
				       no[i].opt);
	return 0;
}

int
fast_check(const struct test_module *m, const struct test_params *p, char *err)
{
	if (p->io_uring && uring_check(m, p, err) < 0)
		return -1;
	if (p->batch < 0 || p->batch > FAST_BATCH_MAX)
		return err_set(err, "--batch: %d is not 1 to %d", p->batch,
			       FAST_BATCH_MAX);
	if ((p->batch > 1 &&
	     applies(m, MODULE_F_UDP_FAST, "--batch", err) < 0) ||
	    (p->udp_gso &&
	     applies(m, MODULE_F_UDP_FAST, "--udp-gso", err) < 0) ||
	    (p->udp_gro && applies(m, MODULE_F_UDP_FAST, "--udp-gro", err) < 0))
		return -1;
	/* Each is its own path: a GSO send is already one call for many
	 * datagrams, and a GRO receive one call for a coalesced buffer. */
	if (p->batch > 1 && (p->udp_gso || p->udp_gro))
		return err_set(err, "--batch is a path of its own: not with "
				    "--udp-gso or --udp-gro");
	if (p->zerocopy &&
	    applies(m, MODULE_F_TCP_BULK, "--zerocopy", err) < 0)
		return -1;
	/* -I asks for write(2), which none of these paths makes. */
	if (p->use_write && (p->zerocopy || p->batch > 1 || p->udp_gso))
		return err_set(err,
			       "-I sends with write(2): not with %s, "
			       "which sends its own way",
			       p->zerocopy    ? "--zerocopy"
			       : p->batch > 1 ? "--batch"
					      : "--udp-gso");
	if (p->splice && !module_has(m, MODULE_F_TCP_BULK)) {
		char names[128];

		module_names_with(MODULE_F_TCP_BULK, names, sizeof(names));
		return err_set(err, "-V: copy avoidance (splice to /dev/null) "
				    "applies to %s only",
			       names);
	}
	if (p->skip_rx_copy &&
	    applies(m, MODULE_F_TCP_BULK, "--skip-rx-copy", err) < 0)
		return -1;
	if (p->skip_rx_copy && p->splice)
		return err_set(err, "--skip-rx-copy and -V are two ways to "
				    "receive without copying: one or the "
				    "other");
	if (p->busy_poll < 0 || p->busy_poll > 1000000)
		return err_set(err, "--busy-poll: %d is not 1 to 1000000 us",
			       p->busy_poll);
	if (p->busy_poll > 0 &&
	    applies(m, MODULE_F_BUSY_POLL, "--busy-poll", err) < 0)
		return -1;
	return 0;
}

/* "--busy-poll: the kernel refused X (EINVAL: ...)". */
static int
refused(char *err, const char *what, int e)
{
	const char *name = strerrorname_np(e);

	return err_set(err, "--busy-poll: the kernel refused %s (%s: %s)", what,
		       name != NULL ? name : "?", strerror(e));
}

int
fast_setup(const struct test_module *m, const struct test_params *p, int fd,
	   int is_server, struct side_result *r, const struct data_path **dp,
	   char *err)
{
	/* Who sends the data: netserver when it flows to netperf. */
	int sender = m->flow == MODULE_TO_CLIENT ? is_server : !is_server;
	socklen_t len;
	int v;

	r->path[0] = '\0';
	*dp = datapath_pick(m, p, sender);
	if (*dp != NULL) {
		if ((*dp)->setup != NULL && (*dp)->setup(fd, p, r, err) < 0)
			return -1;
		snprintf(r->path, sizeof(r->path), "%s", (*dp)->name);
	}
	if (module_has(m, MODULE_F_BUSY_POLL) && p->busy_poll > 0) {
		v = p->busy_poll;
		len = sizeof(v);
		if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v)) < 0)
			return refused(err, "SO_BUSY_POLL", errno);
		/* What the socket holds, not what was asked. */
		if (getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, &len) < 0)
			return refused(err, "reading SO_BUSY_POLL back", errno);
		r->busy_poll = v;
	}
	return 0;
}

uint64_t
fast_zc_reap(int fd, struct side_result *r)
{
	char control[256];
	struct msghdr msg;
	struct cmsghdr *cm;
	uint64_t got = 0;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		for (cm = CMSG_FIRSTHDR(&msg); cm != NULL;
		     cm = CMSG_NXTHDR(&msg, cm)) {
			struct sock_extended_err ee;
			uint64_t n;

			if (!((cm->cmsg_level == SOL_IP &&
			       cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 &&
			       cm->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY ||
			    ee.ee_errno != 0)
				continue;
			/* One notice covers the sends numbered ee_info to
			 * ee_data, both included (32-bit, wrapping). */
			n = (uint64_t)(uint32_t)(ee.ee_data - ee.ee_info) + 1;
			got += n;
			r->zc_done += n;
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				r->zc_copied += n;
		}
	}
	return got;
}
