#include "np/streams.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np/err.h"
#include "np/fast.h"
#include "np/sock.h"
#include "np/transport.h"
#include "np/underload.h"
#include "np/tstamp.h"

int
streams_alloc(struct streams *s, const struct test_module *m, int n,
	      int is_server, struct side_result *r, char *err)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->m = m;
	s->is_server = is_server;
	s->ctx = calloc((size_t)n, sizeof(*s->ctx));
	s->fds = calloc((size_t)n, sizeof(*s->fds));
	s->ports = calloc((size_t)n, sizeof(*s->ports));
	s->r = r != NULL ? r : calloc((size_t)n, sizeof(*s->r));
	s->own_r = r == NULL;
	if (s->ctx == NULL || s->fds == NULL || s->ports == NULL ||
	    s->r == NULL)
		return err_set(err, "out of memory");
	s->n = n;
	for (i = 0; i < n; i++)
		s->fds[i] = s->ctx[i].fd = s->ctx[i].ctl = -1;
	return 0;
}

int
streams_want_places(struct streams *s, char *err)
{
	s->places = calloc((size_t)s->n, sizeof(*s->places));
	return s->places == NULL ? err_set(err, "out of memory") : 0;
}

int
streams_place(struct streams *s, struct topo *t, const char *bind,
	      const char *ifname, struct result_place *rp, char *err)
{
	struct topo_place base;
	int i;

	if (streams_want_places(s, err) < 0)
		return -1;
	memset(&base, 0, sizeof(base));
	if (topo_resolve(t, bind, ifname, &base, err) < 0)
		return -1;
	for (i = 0; s->n > 1 && i < s->n; i++) {
		if (topo_pick(t, &base, i, &s->places[i], err) < 0) {
			topo_place_free(&base);
			return -1;
		}
	}
	if (s->n == 1) {
		/* One stream takes the whole place asked for. */
		s->places[0] = base;
		memset(&base, 0, sizeof(base));
	}
	topo_place_free(&base);
	snprintf(rp->requested, sizeof(rp->requested), "%s", bind);
	/* Every CPU the streams were bound to. */
	topo_places_describe(t, s->places, s->n, rp->cpus, sizeof(rp->cpus),
			     &rp->numa, &rp->nic_local);
	snprintf(rp->note, sizeof(rp->note), "%s", s->places[0].note);
	return 0;
}

void
streams_sizes(const struct test_module *m, int64_t send, int64_t recv,
	      int sndbuf, int rcvbuf, struct side_result *r)
{
	r->send_size = send ? send : sndbuf > 0 ? sndbuf : 4096;
	r->recv_size = recv ? recv : rcvbuf > 0 ? rcvbuf : 4096;
	if (m->socktype != SOCK_DGRAM)
		return;
	if (send == 0 && r->send_size > MODULE_UDP_MAX)
		r->send_size = MODULE_UDP_MAX;
	if (r->recv_size < MODULE_UDP_MAX + 1)
		r->recv_size = MODULE_UDP_MAX + 1;
}

int
streams_open(struct streams *s, int i, int fd, const struct test_params *p,
	     volatile sig_atomic_t *stop, const unsigned char *token,
	     char *err)
{
	/* A bulk flow beside a probe (--under-load) is TCP_STREAM's. */
	int role = underload_role(p, i);
	const struct test_module *m = underload_module(s->m, role);
	struct test_ctx *c = &s->ctx[i];
	int per_trans = module_has(m, MODULE_F_PER_TRANS);

	c->fd = fd;
	c->p = p;
	c->stop = stop;
	c->r = &s->r[i];
	c->token = token;
	c->reverse = module_stream_reversed(p, i);
	c->transport = transport_of(m, p);
	c->role = role;
	/* TCP_RR blocks in every transaction, where a socket time-out
	 * would arm a kernel timer each time (2 % of same-CPU TCP_RR on
	 * this project's VMs): the coordinator watches it instead. */
	c->watched = c->transport->admit == TRANSPORT_ACCEPT &&
		     module_is_rr(m) && !per_trans;
	c->wd_state = MODULE_WD_RUNNING;
	c->wd_seen = c->wd_any_at = c->wd_trans = c->wd_at = 0;
	/* netserver's UDP loops look for the client's "stop" when a
	 * receive times out, so theirs is short. */
	if ((p->nodelay && !per_trans &&
	     transport_nodelay(c->transport, fd, err) < 0) ||
	    (!c->watched &&
	     sock_set_timeouts(fd,
			       s->is_server && c->transport->admit ==
						   TRANSPORT_DATAGRAM
				   ? 100
				   : 1000,
			       err) < 0))
		return -1;
	/* A reversed --bidir stream runs the peer's half, so its data path
	 * is the peer's too; so does a bulk flow down. */
	if (per_trans)
		return 0;
	if (fast_setup(m, p, fd,
		       s->is_server != (c->reverse || role == UNDERLOAD_DOWN),
		       c->r, &c->dp, err) < 0)
		return -1;
	/* --timestamps: after the token, so its bytes are not counted. */
	if (p->timestamps && module_has(m, MODULE_F_TSTAMP)) {
		c->ts = tstamp_open(fd, c->transport->admit == TRANSPORT_ACCEPT,
				    s->is_server,
				    s->is_server ? p->serve_delay_us : 0, err);
		if (c->ts == NULL)
			return -1;
	}
	return 0;
}

size_t
streams_max(const int64_t *sizes, int n)
{
	size_t len = 0;

	while (n-- > 0)
		if (sizes[n] > 0 && (size_t)sizes[n] > len)
			len = (size_t)sizes[n];
	return len;
}

void
streams_free(struct streams *s, char *shared)
{
	int i;

	for (i = 0; s->ctx != NULL && i < s->n; i++) {
		if (s->ctx[i].mem != NULL)
			module_ctx_buffer_free(&s->ctx[i]);
		else if (s->ctx[i].buf != shared)
			free(s->ctx[i].buf);
		free(s->ctx[i].hist);
		free(s->ctx[i].ow);
		free(s->ctx[i].svc_hist);
		free(s->ctx[i].mix);
		free(s->ctx[i].mix_hist);
		tstamp_free(s->ctx[i].ts);
	}
	for (i = 0; s->fds != NULL && i < s->n; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	for (i = 0; s->places != NULL && i < s->n; i++)
		topo_place_free(&s->places[i]);
	free(shared);
	free(s->places);
	free(s->ports);
	free(s->fds);
	free(s->ctx);
	if (s->own_r)
		free(s->r);
	memset(s, 0, sizeof(*s));
}
