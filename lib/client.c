#include "np/client.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "np/auth.h"
#include "np/client_legacy.h"
#include "np/clock.h"
#include "np/escape.h"
#include "np/fast.h"
#include "np/flows.h"
#include "np/interim.h"
#include "np/oneway.h"
#include "np/proto.h"
#include "np/rr_open.h"
#include "np/session.h"
#include "np/streams.h"
#include "np/sock.h"
#include "np/transport.h"
#include "np/underload.h"
#include "np/tstamp.h"
#include "np/wire.h"

/* Milliseconds to wait for a connection to netserver. */
#define CLIENT_CONNECT_MS 5000

static int readable_within(int fd, int ms);

/* Makes a string netserver sent printable, in place (escape_peer: any
 * byte outside printable ASCII as \xNN, at most ESCAPE_MAX characters),
 * before anything prints it. */
static void
peer_text(char *s, size_t cap)
{
	char raw[512];

	snprintf(raw, sizeof(raw), "%.*s", (int)(cap - 1), s);
	escape_str(s, cap, raw);
}

/* Makes the strings of netserver's figures (its data path, its
 * congestion control) printable, in place. */
static void
peer_side(struct side_result *r)
{
	for (int i = 0; i < SIDE_NFIELDS; i++)
		if (side_fields[i].kind == SIDE_STR)
			peer_text(side_str_buf(r, &side_fields[i]),
				  SIDE_STR_LEN);
}

/* What netserver says of its host; absent fields stay empty. */
static void
read_env(const json_t *msg, struct result_env *e)
{
	char err[ERR_LEN], version[32] = "";
	int64_t n;

	memset(e, 0, sizeof(*e));
	proto_get_string(msg, "hostname", e->hostname, sizeof(e->hostname),
			 err);
	proto_get_string(msg, "kernel", e->kernel, sizeof(e->kernel), err);
	proto_get_string(msg, "cpu_model", e->cpu_model, sizeof(e->cpu_model),
			 err);
	proto_get_string(msg, "program_version", version, sizeof(version), err);
	peer_text(e->hostname, sizeof(e->hostname));
	peer_text(e->kernel, sizeof(e->kernel));
	peer_text(e->cpu_model, sizeof(e->cpu_model));
	peer_text(version, sizeof(version));
	snprintf(e->program, sizeof(e->program), "netserver %s", version);
	if (proto_get_int(msg, "ncpu", 1, 1 << 20, &n, err) == 0)
		e->ncpu = (int)n;
}

/* The key netperf proves itself with: --auth KEYFILE, else the
 * NETPERF_AUTH_KEY environment variable. Returns 1 with k filled, 0 when
 * there is none, or -1 with err set. */
static int
load_key(const struct netperf_opts *o, struct auth_key *k, char *err)
{
	const char *env = getenv("NETPERF_AUTH_KEY");
	char why[ERR_LEN];

	if (o->passphrase[0] != '\0') {
		if (auth_key_from_passphrase(o->passphrase, k, why) < 0)
			return err_set(err, "-Z: %s", why);
		return 1;
	}
	if (o->auth_file[0] != '\0') {
		if (auth_key_load(o->auth_file, k, why) < 0)
			return err_set(err, "--auth: %s", why);
		return 1;
	}
	if (env != NULL && env[0] != '\0') {
		if (auth_key_from_string(env, k, why) < 0)
			return err_set(err, "NETPERF_AUTH_KEY: %s", why);
		return 1;
	}
	return 0;
}

/*
 * Answers netserver's challenge (the nonce in its hello) and checks its
 * proof in return, so netperf also knows it reached a server that holds
 * the key. On success *ok is netserver's auth_ok message, which carries
 * what it says of its host. Returns 0, or -1 with err set.
 */
static int
client_auth(int ctl, const json_t *hello, const struct auth_key *k, json_t **ok,
	    char *err)
{
	unsigned char snonce[AUTH_NONCE_LEN], cnonce[AUTH_NONCE_LEN];
	unsigned char mac[AUTH_MAC_LEN], theirs[AUTH_MAC_LEN];
	char chex[2 * AUTH_NONCE_LEN + 1], phex[2 * AUTH_MAC_LEN + 1];
	const char *method = json_string_value(json_object_get(hello, "auth"));
	char safe[ESCAPE_LEN];
	int rc;

	*ok = NULL;
	if (method == NULL || strcmp(method, "hmac-sha256") != 0)
		return err_set(err,
			       "netserver asks for authentication by \"%s\", "
			       "which this netperf does not know",
			       method != NULL
				   ? escape_str(safe, sizeof(safe), method)
				   : "?");
	if (auth_unhex(json_string_value(json_object_get(hello, "nonce")),
		       snonce, sizeof(snonce)) < 0)
		return err_set(err, "netserver sent a malformed challenge");
	if (auth_random(cnonce, sizeof(cnonce), err) < 0)
		return -1;
	auth_proof(k, "netperf client v1", snonce, cnonce, mac);
	auth_hex(cnonce, sizeof(cnonce), chex);
	auth_hex(mac, sizeof(mac), phex);
	if (session_send_new(ctl,
			     json_pack("{s:s, s:s, s:s}", "type", "auth",
				       "cnonce", chex, "proof", phex),
			     SESSION_TIMEOUT_MS, err) < 0)
		return -1;
	rc = session_expect(ctl, "auth_ok", ok, SESSION_TIMEOUT_MS, err);
	if (rc == SESSION_PEER_ERROR &&
	    strcmp(err, "authentication failed") == 0)
		return err_set(err, "authentication failed: wrong key");
	if (rc < 0)
		return -1;
	auth_proof(k, "netserver v1", snonce, cnonce, mac);
	if (auth_unhex(json_string_value(json_object_get(*ok, "proof")), theirs,
		       sizeof(theirs)) < 0 ||
	    !auth_equal(mac, theirs, sizeof(mac))) {
		json_decref(*ok);
		*ok = NULL;
		return err_set(err, "authentication failed: netserver did "
				    "not prove it holds the key");
	}
	return 0;
}

/* The most of a fill file (-F) that is read: buffers repeat it. */
#define CLIENT_FILL_MAX (4 << 20)

/* Reads up to CLIENT_FILL_MAX bytes of path; returns 0, or -1 with err
 * set when it cannot be read or is empty. */
static int
read_fill(const char *path, struct client *c, char *err)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		return err_set(err, "-F: cannot open %s: %s", path,
			       strerror(errno));
	c->fill = malloc(CLIENT_FILL_MAX);
	if (c->fill == NULL) {
		fclose(f);
		return err_set(err, "out of memory");
	}
	n = fread(c->fill, 1, CLIENT_FILL_MAX, f);
	fclose(f);
	if (n == 0) {
		free(c->fill);
		c->fill = NULL;
		return err_set(err, "-F: %s holds no data", path);
	}
	c->fill_len = n;
	return 0;
}

/* netserver's hello: our protocol's version, its program, and, when it
 * asks, the answer to its challenge with key (NULL: none given), then
 * what it says of its host. Returns 0, or -1 with err set. */
static int
read_hello(struct client *c, const struct auth_key *key, char *err)
{
	json_t *msg, *ok = NULL;
	int64_t ver;
	int rc = -1;

	if (session_expect(c->ctl, "hello", &msg, SESSION_TIMEOUT_MS, err) < 0)
		return -1;
	if (proto_get_int(msg, "version", 0, INT32_MAX, &ver, err) < 0 ||
	    proto_get_string(msg, "program", c->server_program,
			     sizeof(c->server_program), err) < 0)
		goto out;
	peer_text(c->server_program, sizeof(c->server_program));
	if (ver != PROTO_VERSION) {
		err_set(err,
			"netserver speaks protocol version %lld, this "
			"netperf speaks %d",
			(long long)ver, PROTO_VERSION);
		goto out;
	}
	/* A server that asks for no key gets none, even when netperf has
	 * one: the key only ever answers a challenge. */
	if (json_object_get(msg, "auth") != NULL) {
		if (key == NULL) {
			err_set(err, "netserver requires authentication (use "
				     "--auth KEYFILE or NETPERF_AUTH_KEY)");
			goto out;
		}
		if (client_auth(c->ctl, msg, key, &ok, err) < 0)
			goto out;
	}
	read_env(ok != NULL ? ok : msg, &c->remote_env);
	rc = 0;
out:
	json_decref(ok);
	json_decref(msg);
	return rc;
}

/* The control connection to -H and -p, from -L; returns 0, or -1 with
 * err set and c->unreached (2.7 exits 255 on it). */
int
client_connect_control(struct client *c, const struct netperf_opts *o,
		       char *err)
{
	struct sock_setup setup = {o->local, o->lport, -1, -1, 0, 0, 0, NULL, 0};
	char why[ERR_LEN];
	socklen_t len;

	c->ctl = sock_connect(o->host, o->port, o->family, SOCK_STREAM, &setup,
			      CLIENT_CONNECT_MS, err);
	if (c->ctl < 0) {
		c->unreached = 1;
		return -1;
	}
	/* Small messages that follow one another: no Nagle delay (best
	 * effort). */
	sock_set_nodelay(c->ctl, 1, why);
	len = sizeof(c->peer);
	getpeername(c->ctl, (struct sockaddr *)&c->peer, &len);
	len = sizeof(c->self);
	getsockname(c->ctl, (struct sockaddr *)&c->self, &len);
	return 0;
}

/* Waits for the platform record's host part, if one is being read, and
 * lets it go. */
static void
plat_free(struct client *c)
{
	if (c->plat == NULL)
		return;
	platform_job_wait(c->plat);
	free(c->plat);
	c->plat = NULL;
}

int
client_open(struct client *c, const struct netperf_opts *o, char *err)
{
	struct auth_key key;
	int have_key, rc;

	memset(c, 0, sizeof(*c));
	c->ctl = -1;
	if (o->fill_file[0] != '\0' && read_fill(o->fill_file, c, err) < 0)
		return -1;
	if (o->legacy) {
		if (client_legacy_open(c, o, err) == 0)
			return 0;
		free(c->fill);
		c->fill = NULL;
		return -1;
	}
	if (o->no_control)
		return client_nocontrol_open(c, o, err);
	have_key = load_key(o, &key, err);
	if (have_key < 0)
		return -1;
	/* The platform record's host part is read while the control
	 * connection is made and the test is set up, not after it. */
	c->plat = malloc(sizeof(*c->plat));
	if (c->plat != NULL)
		platform_job_start(c->plat, "netperf");
	if (client_connect_control(c, o, err) < 0)
		goto wipe;
	rc = client_legacy_probe(c, err);
	if (rc < 0)
		goto fail;
	if (rc == 0) {
		/* A 2.7 netserver: start again in its protocol, on a new
		 * connection (the passphrase, when there is one, must be
		 * its first message). */
		close(c->ctl);
		c->ctl = -1;
		/* 2.7's protocol carries no platform record. */
		plat_free(c);
		/* Nor bulk flows beside a probe: refused now, before an
		 * idle phase it could run is spent for nothing (--legacy
		 * itself is refused with the options). */
		if (o->load_up + o->load_down > 0) {
			err_set(err, "netserver is too old for --under-load: "
				     "it speaks netperf 2.7's protocol");
			goto wipe;
		}
		if (client_legacy_open(c, o, err) < 0)
			goto wipe;
		explicit_bzero(&key, sizeof(key));
		c->detected = 1;
		return 0;
	}
	if (session_send_new(c->ctl,
			     json_pack("{s:s, s:i, s:s, s:s}", "type", "hello",
				       "version", PROTO_VERSION, "program",
				       "netperf", "program_version",
				       NP_VERSION),
			     SESSION_TIMEOUT_MS, err) < 0)
		goto fail;
	if (read_hello(c, have_key ? &key : NULL, err) < 0)
		goto fail;
	explicit_bzero(&key, sizeof(key));
	return 0;
fail:
	close(c->ctl);
	c->ctl = -1;
wipe:
	explicit_bzero(&key, sizeof(key));
	free(c->fill);
	c->fill = NULL;
	plat_free(c);
	return -1;
}

/* Returns 1 when fd has something to read (or has closed) within ms. */
static int
readable_within(int fd, int ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	uint64_t end = clock_ns() + (uint64_t)ms * 1000000, now;
	int rc;

	for (;;) {
		now = clock_ns();
		if (now >= end)
			return 0;
		rc = poll(&pfd, 1, (int)((end - now) / 1000000 + 1));
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR)
			return 1; /* let the read say what is wrong */
	}
}

/* Each side's n streams, zeroed; returns 0, or -1 out of memory. */
static int
alloc_streams(struct result *res, int n)
{
	int i;

	for (i = 0; i < RESULT_NSIDES; i++) {
		res->side[i].stream =
		    calloc((size_t)n, sizeof(struct side_result));
		if (res->side[i].stream == NULL)
			return -1;
	}
	return 0;
}

void
client_describe(const struct client *c, const struct netperf_opts *o,
		struct result *res)
{
	struct result_side *l = &res->side[RESULT_LOCAL];
	struct result_side *r = &res->side[RESULT_REMOTE];

	sock_addr_text((const struct sockaddr *)&c->self, l->addr);
	sock_addr_text((const struct sockaddr *)&c->peer, r->addr);
	snprintf(l->name, sizeof(l->name), "%s",
		 o->data_local[0] ? o->data_local : l->addr);
	snprintf(r->name, sizeof(r->name), "%s",
		 o->data_host[0] ? o->data_host : o->host);
	res->family = c->peer.ss_family;
	/* An IPv4 peer reached through an IPv6 socket is an IPv4 test. */
	if (res->family == AF_INET6 && strncmp(r->addr, "::ffff:", 7) == 0 &&
	    strchr(r->addr, '.') != NULL) {
		memmove(r->addr, r->addr + 7, strlen(r->addr + 7) + 1);
		res->family = AF_INET;
	}
}

/* Where the data connection goes: -H after "--", else the address the
 * control connection reached. */
static const char *
data_host(const struct netperf_opts *o, const struct result *res)
{
	return o->data_host[0] ? o->data_host : res->side[RESULT_REMOTE].addr;
}

int
client_check_data(struct client *c, const struct netperf_opts *o,
		  const struct result *res, char *err)
{
	/* A 2.7 netserver listens where it is told to, and -N has none:
	 * the host is checked, not its family. */
	int ctl_family =
	    c->legacy || c->no_control ? AF_UNSPEC : res->family;

	if (transport_check_host(transport_of(res->m, &res->p),
				 data_host(o, res), o->data_family, ctl_family,
				 err) < 0) {
		c->unreached = 1;
		return -1;
	}
	return 0;
}

/* Opens the data connection of test m (the test's own, or a bulk flow's
 * beside an --under-load probe) to the port netserver gave, recording the
 * socket buffer sizes it had before connecting. */
static int
open_data_as(const struct netperf_opts *o, struct result *res,
	     const struct test_module *m, int port, char *err)
{
	const struct transport *t = transport_of(m, &res->p);
	const char *host = t->ends->named ? res->data_at : data_host(o, res);
	struct sock_setup setup = {
	    o->data_local, o->ldata_port, o->lsndbuf, o->lrcvbuf, -1, -1,
	    (int)o->mss, &res->p.lx, t->protocol};
	int fd;

	fd = transport_connect(t, host, port, o->data_family, &setup,
			       CLIENT_CONNECT_MS, err);
	res->side[RESULT_LOCAL].sum.sndbuf = setup.got_sndbuf;
	res->side[RESULT_LOCAL].sum.rcvbuf = setup.got_rcvbuf;
	if (fd >= 0 && transport_connected(t, fd, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The test's own data connection. */
static int
open_data(const struct netperf_opts *o, struct result *res, int port, char *err)
{
	return open_data_as(o, res, res->m, port, err);
}

/* A test with a connection (or source port) per transaction: resolve
 * netserver's data address once, and read the buffer sizes a fresh socket
 * gets. Returns a socket
 * that is only used for those figures. */
static int
crr_target(const struct netperf_opts *o, struct result *res, int port,
	   struct test_ctx *ctx, char *err)
{
	const char *host = data_host(o, res);
	struct addrinfo *ai;
	int fd;

	if (sock_resolve(host, port, o->data_family, res->m->socktype, &ai,
			 err) < 0)
		return -1;
	memcpy(&ctx->peer, ai->ai_addr, ai->ai_addrlen);
	ctx->peerlen = ai->ai_addrlen;
	fd = socket(ai->ai_family, res->m->socktype | SOCK_CLOEXEC,
		    transport_of(res->m, &res->p)->protocol);
	freeaddrinfo(ai);
	if (fd < 0)
		return err_set(err, "socket: %s", strerror(errno));
	if (sock_set_buffers(fd, o->lsndbuf, o->lrcvbuf, err) < 0) {
		close(fd);
		return -1;
	}
	sock_get_buffers(fd, &res->side[RESULT_LOCAL].sum.sndbuf,
			 &res->side[RESULT_LOCAL].sum.rcvbuf);
	return fd;
}

/* Marks err as netserver's own words: it refused or ended the test,
 * which 2.7 exits 255 on. */
static void
remote_words(struct client *c, char *err)
{
	char text[ERR_LEN];

	c->remote_error = 1;
	snprintf(text, sizeof(text), "%s", err);
	err_set(err, "netserver: %s", text);
}

/* After a local failure, netserver may have said why; prefer its words
 * (past the interim reports peer takes, when it asked for them). */
static void
remote_reason(struct client *c, struct interim_peer *peer, char *err)
{
	char why[ERR_LEN];
	json_t *msg;

	if (session_expect_past(c->ctl, "results", "interim", interim_peer_skip,
				peer, &msg, 1000, why) == SESSION_PEER_ERROR) {
		remote_words(c, why);
		snprintf(err, ERR_LEN, "%s", why);
	} else if (msg != NULL) {
		json_decref(msg);
	}
}

/* Reads the ready message: data ports, netserver's sizes. */
static int
read_ready(const json_t *msg, struct result *res, int *ports, int n, char *err)
{
	json_t *list = json_object_get(msg, "data_ports");
	int64_t v;
	int i;

	if (proto_get_int(msg, "data_port", 1, 65535, &v, err) < 0)
		return -1;
	for (i = 0; i < n; i++)
		ports[i] = (int)v;
	/* UDP streams get a port each; TCP streams share one listener. */
	if (json_is_array(list) && json_array_size(list) > 1) {
		if ((int)json_array_size(list) != n)
			return err_set(err,
				       "netserver offered %zu data ports "
				       "for %d streams",
				       json_array_size(list), n);
		for (i = 0; i < n; i++) {
			json_t *p = json_array_get(list, (size_t)i);

			if (!json_is_integer(p) || json_integer_value(p) < 1 ||
			    json_integer_value(p) > 65535)
				return err_set(err, "bad data port in list");
			ports[i] = (int)json_integer_value(p);
		}
	}
	if (transport_of(res->m, &res->p)->ends->named &&
	    proto_get_string(msg, "data_at", res->data_at, sizeof(res->data_at),
			     err) < 0)
		return -1;
	if (proto_get_int(msg, "sndbuf", -1, INT32_MAX, &v, err) < 0)
		return -1;
	res->side[RESULT_REMOTE].sum.sndbuf = (int)v;
	if (proto_get_int(msg, "rcvbuf", -1, INT32_MAX, &v, err) < 0)
		return -1;
	res->side[RESULT_REMOTE].sum.rcvbuf = (int)v;
	if (proto_get_int(msg, "send_size", 0, INT64_MAX,
			  &res->side[RESULT_REMOTE].sum.send_size, err) < 0 ||
	    proto_get_int(msg, "recv_size", 0, INT64_MAX,
			  &res->side[RESULT_REMOTE].sum.recv_size, err) < 0)
		return -1;
	return 0;
}

/* Reads netserver's results: the sums, each stream, its placement. */
static int
read_results(const json_t *msg, struct result *res, char *err)
{
	json_t *streams = json_object_get(msg, "streams");
	json_t *place = json_object_get(msg, "place");
	json_t *wire = json_object_get(msg, "wire");
	json_t *plat = json_object_get(msg, "platform");
	struct result_side *r = &res->side[RESULT_REMOTE];
	int i;

	if (proto_result_unpack(msg, &r->sum, err) < 0)
		return -1;
	if (res->tstamp != NULL &&
	    tstamp_unpack(json_object_get(msg, "timestamps"),
			  &res->tstamp->side[RESULT_REMOTE], err) < 0)
		return -1;
	if (wire != NULL && proto_wire_unpack(wire, &r->wire, err) < 0)
		return -1;
	if (r->wire.shared && !res->p.wire_share)
		return err_set(err, "netserver's wire figures say netperf "
				    "counted for it, which it did not offer");
	if (place != NULL && proto_place_unpack(place, &r->place, err) < 0)
		return -1;
	if (plat != NULL && proto_platform_unpack(plat, &r->platform, err) < 0)
		return -1;
	/* Every text netserver sent is escaped here, where it enters, so
	 * that no output form (-k, -v 2, the tables, JSON) prints it raw. */
	proto_platform_escape(&r->platform);
	peer_side(&r->sum);
	peer_text(r->wire.ifname, sizeof(r->wire.ifname));
	peer_text(r->wire.offloads, sizeof(r->wire.offloads));
	peer_text(r->wire.warning, sizeof(r->wire.warning));
	peer_text(r->place.requested, sizeof(r->place.requested));
	peer_text(r->place.cpus, sizeof(r->place.cpus));
	peer_text(r->place.note, sizeof(r->place.note));
	/* Flows on threads: netserver's sums only, a list of thousands
	 * would not fit in a message; each flow's counts are netperf's. */
	if (res->nstreams > 1 && !module_flows(&res->p)) {
		if (!json_is_array(streams) ||
		    (int)json_array_size(streams) != res->nstreams)
			return err_set(err,
				       "netserver's results lack its "
				       "%d streams",
				       res->nstreams);
		for (i = 0; i < res->nstreams; i++) {
			if (proto_result_unpack(
				json_array_get(streams, (size_t)i),
				&r->stream[i], err) < 0)
				return -1;
			peer_side(&r->stream[i]);
		}
	}
	return 0;
}

/* Ctrl-C during a test: ask netserver to end its side too, so a test it
 * drives (MAERTS) stops early with results instead of an error. */
static void
send_stop(void *arg)
{
	struct client *c = arg;
	char err[ERR_LEN];

	session_send_new(c->ctl, proto_new("stop"), 1000, err);
}

/* --wire: capture each data connection's flow (none for CRR, whose
 * connections come and go). */
static int
start_wire(struct wire_session *ws, struct result *res,
	   const struct netperf_opts *o, const int *fds, int n, char *err)
{
	struct wire_flow *flows = calloc((size_t)n, sizeof(*flows));
	int i, nflows = 0;

	if (flows == NULL)
		return err_set(err, "out of memory");
	for (i = 0; !module_has(res->m, MODULE_F_PER_TRANS) && i < n; i++)
		if (wire_flow_of(fds[i], res->m->protocol, 0, &flows[nflows]) ==
		    0)
			nflows++;
	wire_session_start(ws, &res->side[RESULT_LOCAL].wire, o->wire_if, flows,
			   nflows);
	free(flows);
	return 0;
}

/* What the platform record needs of the data connection, read before
 * its token lets netserver start: the congestion control and the peer. */
struct data_path {
	char congestion[16];
	struct sockaddr_storage peer;
	int have_peer;
};

static void
note_data_path(struct data_path *dp, int fd)
{
	socklen_t len = sizeof(dp->peer);

	platform_congestion_of(fd, dp->congestion, sizeof(dp->congestion));
	dp->have_peer =
	    getpeername(fd, (struct sockaddr *)&dp->peer, &len) == 0;
}

/* This side's platform record, once both sides' intervals are over: the
 * host's part, read during the set-up, and the data path's. */
static void
collect_platform(const struct client *c, struct result *res,
		 const struct data_path *dp)
{
	struct platform_inputs in = {"netperf", dp->congestion, NULL, c->topo};

	in.peer = dp->have_peer ? (const struct sockaddr *)&dp->peer
				: (const struct sockaddr *)&c->peer;
	if (c->plat != NULL)
		platform_job_record(c->plat, &res->side[RESULT_LOCAL].platform,
				    &in);
	else
		platform_collect(&res->side[RESULT_LOCAL].platform, &in);
}

/* The longest netperf waits for netserver to take a data socket's token,
 * as long as netserver waits for the data connection by default. */
#define CLIENT_TOKEN_MS 10000

/*
 * Binds a fresh data socket to the test: the 16 bytes of ready's token go
 * first on a TCP connection; over UDP a datagram holding just the token is
 * sent until netserver echoes it, which it does once its socket is tied to
 * this one (so a lost datagram costs a retry, not the test). Returns 0,
 * or -1 with err set.
 */
static int
send_token(int fd, const struct transport *tr, const unsigned char *token,
	   char *err)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	unsigned char echo[AUTH_TOKEN_LEN + 1];
	int waited = 0, wait = 250;
	ssize_t n;

	if (tr->admit == TRANSPORT_ACCEPT) {
		/* A new connection's send buffer is empty: one call. */
		n = send(fd, token, AUTH_TOKEN_LEN, MSG_NOSIGNAL);
		if (n != AUTH_TOKEN_LEN)
			return err_set(err, "data connection: send: %s",
				       n < 0 ? strerror(errno) : "short send");
		return 0;
	}
	while (waited < CLIENT_TOKEN_MS) {
		send(fd, token, AUTH_TOKEN_LEN, MSG_DONTWAIT);
		if (poll(&pfd, 1, wait) > 0) {
			n = recv(fd, echo, sizeof(echo), MSG_DONTWAIT);
			if (n == AUTH_TOKEN_LEN &&
			    auth_equal(echo, token, AUTH_TOKEN_LEN))
				return 0;
		}
		waited += wait;
		wait = wait < 1000 ? wait * 2 : 1000;
	}
	return err_set(err,
		       "netserver did not take the data socket within "
		       "%d s",
		       CLIENT_TOKEN_MS / 1000);
}

/* -D without netserver's reports (netperf 2.7's, or none): netperf's
 * interval alone. */
static void
local_interim(void *arg, double count, double secs, double since_start,
	      const struct tcpinfo *tcpi, const struct module_interval *ivl)
{
	const struct client *c = arg;

	c->on_interim(c->arg, count, secs, since_start, tcpi, NULL, ivl);
}

/* --start-at: set up in time or not at all; a late start would be a run
 * out of step with the others, reported as if it were not. Returns 1
 * with err set when the time has passed. */
static int
start_at_missed(const struct result *res, char *err)
{
	int64_t now = clock_real_ns();

	if (res->p.start_at_ns <= 0 || now < res->p.start_at_ns)
		return 0;
	err_set(err,
		"--start-at: the scheduled start passed %.3f s before the "
		"test was set up",
		(double)(now - res->p.start_at_ns) / 1e9);
	return 1;
}

/* netperf's side of a run of n streams in ctx, placed by places (or
 * not, when NULL), with -D's interim reports. */
static void
run_setup(struct module_run *run, const struct client *c,
	  const struct netperf_opts *o, const struct test_module *m, int n,
	  struct test_ctx *ctx, struct topo_place *places)
{
	run->m = m;
	run->measure_cpu = o->local_cpu;
	run->n = n;
	run->ctx = ctx;
	run->topo = places != NULL ? c->topo : NULL;
	run->places = places;
	run->interim_sec = c->interim_sec;
	run->on_interim = local_interim;
	run->interim_tail = 1;
	run->arg = (void *)c;
}

/* A stream's own latency histogram, merged into the result's at the
 * end; returns 0, or -1 with err set. */
static int
stream_hist(struct test_ctx *ctx, char *err)
{
	ctx->hist = malloc(sizeof(*ctx->hist));
	if (ctx->hist == NULL)
		return err_set(err, "out of memory");
	stats_hist_init(ctx->hist);
	return 0;
}

/* The open loop's service-time histogram of a stream, as stream_hist. */
static int
stream_svc_hist(struct test_ctx *ctx, char *err)
{
	ctx->svc_hist = malloc(sizeof(*ctx->svc_hist));
	if (ctx->svc_hist == NULL)
		return err_set(err, "out of memory");
	stats_hist_init(ctx->svc_hist);
	return 0;
}

/* netperf's side of one test over our protocol, from the request to the
 * results. */
struct client_run {
	struct client *c;
	const struct netperf_opts *o;
	struct result *res;
	volatile sig_atomic_t *stop;
	const struct test_module *m;
	struct streams set;
	unsigned char token[AUTH_TOKEN_LEN];
	struct wire_session ws;
	int wire_on;
	struct data_path dp;
	struct module_run run;
	/* When the request went: netserver's interval lies inside the
	 * exchange from here to its results. */
	uint64_t asked;
	/* -D: netserver's interim reports. */
	struct interim_peer peer;
};

/* -D over our protocol: netperf's interval, with netserver's report of
 * the same number when one was asked for. The report left netserver
 * about when this interval ended here (its streams started a trip of go
 * earlier), so it is waited for a little: half an interval, at most
 * 200 ms. */
static void
test_interim(void *arg, double count, double secs, double since_start,
	     const struct tcpinfo *tcpi, const struct module_interval *ivl)
{
	struct client_run *t = arg;
	const struct tcpinfo *remote = NULL;
	uint64_t wait = (uint64_t)(t->c->interim_sec * 0.5e9);

	if (wait > 200000000)
		wait = 200000000;
	/* netserver reports no tail: its part after the last boundary
	 * is in its results. */
	if (t->peer.asked && !ivl->partial)
		remote = interim_peer_match(&t->peer, t->run.interim_k, wait,
					    t->stop);
	t->c->on_interim(t->c->arg, count, secs, since_start, tcpi, remote,
			 ivl);
}

/* Where this side's streams run: bound when -T says so, and several
 * streams a CPU each even without it, on the CPUs this process may use
 * (hwloc leaves out the others). */
static int
place_streams_here(struct client *c, struct result *res, struct streams *set,
		   char *err)
{
	if (c->cpu_bind[0] == '\0' && (set->n == 1 || c->topo == NULL))
		return 0;
	return streams_place(set, c->topo, c->cpu_bind, c->ifname,
			     &res->side[RESULT_LOCAL].place, err);
}

/* -s: 2.7 waits between setting a test up and starting it; here, before
 * the request, so that netserver's data socket does not wait for a
 * connection meanwhile. Ctrl-C ends the wait. */
static void
test_wait(double secs, volatile sig_atomic_t *stop)
{
	uint64_t until = clock_ns() + (uint64_t)(secs * 1e9);

	while (secs > 0 && !*stop && clock_ns() < until) {
		struct timespec ts = {0, 20000000};

		nanosleep(&ts, NULL);
	}
}

/* The streams allocated and placed, the request sent, and netserver's
 * "ready" read: its ports, sizes and the test's token. */
static int
test_negotiate(struct client_run *t, char *err)
{
	struct result *res = t->res;
	int n = res->p.streams > 0 ? res->p.streams : 1, prc, rc = -1;
	json_t *msg = NULL;

	res->nstreams = n;
	if (alloc_streams(res, n) < 0)
		return err_set(err, "out of memory");
	if (streams_alloc(&t->set, t->m, n, 0, res->side[RESULT_LOCAL].stream,
			  err) < 0 ||
	    place_streams_here(t->c, res, &t->set, err) < 0)
		return -1;
	test_wait(t->o->wait, t->stop);
	/* -D on a TCP test: netserver's TCP_INFO each interval too. */
	if (t->c->interim_sec > 0 &&
	    transport_has_tcpinfo(transport_of(t->m, &t->res->p), t->m))
		res->p.interim = t->c->interim_sec;
	/* -D on UDP_RR: netserver's count in each answer, to split each
	 * interval's losses by direction. */
	res->p.lost_iv =
	    t->c->interim_sec > 0 && oneway_splits_intervals(t->m, &res->p);
	interim_peer_init(&t->peer, t->c->ctl, res->p.interim > 0, n,
			  res->p.interim);
	res->p.wire_share = res->p.wire &&
			    !module_has(t->m, MODULE_F_PER_TRANS) &&
			    wire_share_offer(t->o->wire_if);
	t->asked = clock_ns();
	if (session_send_new(t->c->ctl, proto_request_pack(&res->p),
			     SESSION_TIMEOUT_MS, err) < 0)
		return -1;
	prc = session_expect(t->c->ctl, "ready", &msg, SESSION_TIMEOUT_MS,
			     err);
	if (prc == SESSION_PEER_ERROR)
		remote_words(t->c, err);
	/* What an older netserver ignores, it does not confirm. */
	if (prc < 0 || read_ready(msg, res, t->set.ports, n, err) < 0 ||
	    proto_ready_check(msg, &res->p, err) < 0)
		goto out;
	/* An older netserver writes no count into its answers: the
	 * intervals' losses go unsplit, the totals are as ever. */
	if (!json_is_true(json_object_get(msg, "lost_iv")))
		res->p.lost_iv = 0;
	if (auth_unhex(json_string_value(json_object_get(msg, "token")),
		       t->token, sizeof(t->token)) < 0) {
		err_set(err, "netserver's ready message has no valid token");
		goto out;
	}
	rc = 0;
out:
	json_decref(msg);
	return rc;
}

/* Flows on threads: every data connection, FLOWS_CONNECT_WINDOW in
 * progress at a time, as open_data sets each up. */
static int
connect_flows(struct client_run *t, char *err)
{
	const struct netperf_opts *o = t->o;
	struct result *res = t->res;
	struct sock_setup setup = {
	    o->data_local, 0,	       o->lsndbuf,
	    o->lrcvbuf,	   -1,	       -1,
	    (int)o->mss,   &res->p.lx, transport_of(res->m, &res->p)->protocol};
	struct addrinfo *ai, *local = NULL;
	int rc;

	if (sock_resolve(data_host(o, res), t->set.ports[0], o->data_family,
			 SOCK_STREAM, &ai, err) < 0)
		return -1;
	if (o->data_local[0] != '\0' &&
	    sock_resolve(o->data_local, 0, ai->ai_family, SOCK_STREAM, &local,
			 err) < 0) {
		freeaddrinfo(ai);
		return -1;
	}
	rc = flows_connect(ai->ai_addr, ai->ai_addrlen, local, &setup, t->token,
			   AUTH_TOKEN_LEN, t->set.n, t->set.fds,
			   CLIENT_CONNECT_MS, err);
	res->side[RESULT_LOCAL].sum.sndbuf = setup.got_sndbuf;
	res->side[RESULT_LOCAL].sum.rcvbuf = setup.got_rcvbuf;
	if (rc == 0)
		note_data_path(&t->dp, t->set.fds[0]);
	if (local != NULL)
		freeaddrinfo(local);
	freeaddrinfo(ai);
	return rc;
}

/* Every stream's data connection, bound to the test by its token (CRR's
 * loop sends it on each of its connections), with its buffer. */
/* This side's sizes, from -m and -M and the socket buffers in its sum
 * (streams_sizes): into the sum, each of set's streams, and sizes, what
 * a buffer must hold (send, receive, request, response). */
static void
local_sizes(const struct netperf_opts *o, struct result *res,
	    struct streams *set, int64_t sizes[4])
{
	struct side_result *sum = &res->side[RESULT_LOCAL].sum;
	int i;

	streams_sizes(res->m, o->send_size, o->recv_size, sum->sndbuf,
		      sum->rcvbuf, sum);
	sizes[0] = sum->send_size;
	sizes[1] = sum->recv_size;
	sizes[2] = res->p.req_size;
	sizes[3] = res->p.rsp_size;
	for (i = 0; i < set->n; i++) {
		set->r[i].sndbuf = sum->sndbuf;
		set->r[i].rcvbuf = sum->rcvbuf;
		set->r[i].send_size = sum->send_size;
		set->r[i].recv_size = sum->recv_size;
	}
}

static int
test_connect(struct client_run *t, char *err)
{
	struct result *res = t->res;
	int per_trans = module_has(t->m, MODULE_F_PER_TRANS), i, fd;
	int flows = module_flows(&res->p);
	int tcp_flows = flows && t->m->socktype == SOCK_STREAM && !per_trans;
	uint64_t t0 = clock_ns();
	int64_t sizes[4];

	/* Flows: many connections in progress at once, each sending its
	 * token as it opens. */
	if (tcp_flows && connect_flows(t, err) < 0) {
		remote_reason(t->c, &t->peer, err);
		return -1;
	}
	for (i = 0; !tcp_flows && i < t->set.n; i++) {
		/* A bulk flow beside a probe (--under-load) is TCP's. */
		const struct test_module *m =
		    underload_module(t->m, underload_role(&res->p, i));

		fd = per_trans ? crr_target(t->o, res, t->set.ports[i],
					    &t->set.ctx[i], err)
			       : open_data_as(t->o, res, m, t->set.ports[i],
					      err);
		t->set.fds[i] = fd;
		if (fd < 0)
			return -1;
		if (i == 0)
			note_data_path(&t->dp, fd);
		if (!per_trans &&
		    send_token(fd, transport_of(m, &res->p), t->token, err) <
			0) {
			remote_reason(t->c, &t->peer, err);
			return -1;
		}
	}
	res->setup_sec = (double)(clock_ns() - t0) / 1e9;
	local_sizes(t->o, res, &t->set, sizes);
	for (i = 0; i < t->set.n; i++) {
		struct test_ctx *ctx = &t->set.ctx[i];

		if (streams_open(&t->set, i, t->set.fds[i], &res->p, t->stop,
				 t->token, err) < 0)
			return -1;
		/* A mix's counts and draws are each stream's, each flow's
		 * too: the intervals read a flow's classes as its count. */
		if (res->mix != NULL) {
			ctx->mix =
			    malloc((size_t)res->p.mix.n * sizeof(*ctx->mix));
			if (ctx->mix == NULL)
				return err_set(err, "out of memory");
			mix_acct_init(ctx->mix, res->p.mix.n);
			ctx->mix_rng = mix_stream_seed(&res->p.mix, i);
		}
		/* Flows share their thread's buffer and histograms: the
		 * first flow of each thread holds them (flows.c). */
		if (flows && i >= res->p.threads)
			continue;
		if (module_ctx_buffer(ctx, sizes, 4, &res->p.lbuf, t->c->fill,
				      t->c->fill_len) < 0)
			return err_set(err, "cannot allocate a %zu-byte buffer",
				       streams_max(sizes, 4));
		/* --under-load: the probe's round trips only. */
		if (res->hist != NULL && ctx->role == UNDERLOAD_PROBE &&
		    stream_hist(ctx, err) < 0)
			return -1;
		if (res->oneway != NULL) {
			ctx->ow = malloc(sizeof(*ctx->ow));
			if (ctx->ow == NULL)
				return err_set(err, "out of memory");
			oneway_init(ctx->ow);
		}
		if (res->svc_hist != NULL && stream_svc_hist(ctx, err) < 0)
			return -1;
		if (res->mix_hist != NULL &&
		    (ctx->mix_hist = mix_hist_new(res->p.mix.n)) == NULL)
			return err_set(err, "out of memory");
	}
	return 0;
}

/* The capture, "go" (netserver holds every data connection, tokens
 * checked, and its capture runs; nothing of the test is sent before it),
 * the test, and "stop" where netserver's loops have no end of their
 * own. */
static int
test_run(struct client_run *t, char *err)
{
	struct result *res = t->res;
	json_t *go;
	int prc;

	if (res->p.wire &&
	    start_wire(&t->ws, res, t->o, t->set.fds, t->set.n, err) < 0)
		return -1;
	t->wire_on = res->p.wire;
	prc = session_expect(t->c->ctl, "go", &go, 2 * SESSION_TIMEOUT_MS, err);
	if (prc == SESSION_PEER_ERROR)
		remote_words(t->c, err);
	if (prc < 0)
		return -1;
	json_decref(go);
	if (start_at_missed(res, err))
		return -1;
	t->run.start_at_ns = res->p.start_at_ns;
	run_setup(&t->run, t->c, t->o, t->m, t->set.n, t->set.ctx,
		  t->set.places);
	t->run.threads = module_flows(&res->p) ? res->p.threads : 0;
	t->run.on_stop = send_stop;
	t->run.stop_arg = t->c;
	t->run.on_interim = test_interim;
	t->run.arg = t;
	/* The platform record's host part is read by now, or waited for:
	 * nothing of it runs inside the measured interval. */
	if (t->c->plat != NULL)
		platform_job_wait(t->c->plat);
	prc = module_run_all(&t->run, err);
	if (t->wire_on) {
		wire_session_stop(&t->ws, &res->side[RESULT_LOCAL].wire);
		t->wire_on = 0;
	}
	if (prc < 0) {
		remote_reason(t->c, &t->peer, err);
		return -1;
	}
	if (t->peer.failed)
		return err_set(err, "%s", t->peer.err);
	/* Unless Ctrl-C already said it. */
	if (module_needs_stop(t->m) && !t->run.stop_sent &&
	    session_send_new(t->c->ctl, proto_new("stop"), SESSION_TIMEOUT_MS,
			     err) < 0)
		return -1;
	return 0;
}

static int
port_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * netserver left its wire count to netperf's counter (both on one
 * loopback interface): netperf's counts stand for its, out and in
 * swapped, if its data connections' client ports (peer_ports in msg's
 * wire) are netperf's own, lports[0..n-1], in any order. Two hosts
 * joined by a tunnel (ssh -L, a port forward) each see the other on lo,
 * but not the same connections; then netserver's side is left uncounted,
 * and says why.
 */
static void
mirror_wire(struct result *res, const json_t *msg, int *lports, int n)
{
	struct wire_report *rw = &res->side[RESULT_REMOTE].wire;
	json_t *pp =
	    json_object_get(json_object_get(msg, "wire"), "peer_ports");
	int *theirs = NULL, same = 0, i;

	if (!rw->shared)
		return;
	if (lports != NULL && json_is_array(pp) &&
	    json_array_size(pp) == (size_t)n &&
	    (theirs = calloc((size_t)n, sizeof(*theirs))) != NULL) {
		for (i = 0; i < n; i++)
			theirs[i] = (int)json_integer_value(
			    json_array_get(pp, (size_t)i));
		qsort(theirs, (size_t)n, sizeof(*theirs), port_cmp);
		qsort(lports, (size_t)n, sizeof(*lports), port_cmp);
		same = memcmp(theirs, lports, (size_t)n * sizeof(*theirs)) == 0;
		free(theirs);
	}
	if (!same) {
		rw->captured = 0;
		snprintf(rw->warning, sizeof(rw->warning),
			 "netserver left the count to netperf, but its data "
			 "connections are not netperf's (a tunnel?): not "
			 "counted");
		return;
	}
	wire_report_mirror(rw, &res->side[RESULT_LOCAL].wire);
}

/* This side's sums, netserver's results checked against them, and this
 * host's platform record. */
static int
test_collect(struct client_run *t, char *err)
{
	struct result *res = t->res;
	struct result_place *rp = &res->side[RESULT_LOCAL].place;
	json_t *msg = NULL;
	int *lports = NULL, i, prc, rc = -1;

	/* A shared wire count is checked against these (mirror_wire). */
	if (res->p.wire_share)
		lports = calloc((size_t)t->set.n, sizeof(*lports));
	for (i = 0; i < t->set.n; i++) {
		if (lports != NULL)
			lports[i] = sock_local_port(t->set.fds[i]);
		/* The stamps still queued are read before the close. */
		if (t->set.ctx[i].ts != NULL &&
		    tstamp_collect(t->set.ctx[i].ts,
				   &res->tstamp->side[RESULT_LOCAL], err) < 0)
			goto out;
		close(t->set.fds[i]);
		t->set.fds[i] = -1;
		if (t->set.ctx[i].hist != NULL)
			stats_hist_merge(res->hist, t->set.ctx[i].hist);
		if (t->set.ctx[i].ow != NULL && res->oneway != NULL)
			oneway_merge(res->oneway, t->set.ctx[i].ow);
		if (t->set.ctx[i].svc_hist != NULL)
			stats_hist_merge(res->svc_hist, t->set.ctx[i].svc_hist);
		if (t->set.ctx[i].mix != NULL && res->mix != NULL)
			mix_acct_merge(res->mix, t->set.ctx[i].mix,
				       res->p.mix.n);
		if (t->set.ctx[i].mix_hist != NULL && res->mix_hist != NULL)
			mix_hist_merge(res->mix_hist, t->set.ctx[i].mix_hist,
				       res->p.mix.n);
	}
	module_merge(&t->run, &res->side[RESULT_LOCAL].sum);
	rp->cpu_actual = t->set.r[0].cpu_id;
	if (t->set.places != NULL && rp->numa < 0)
		rp->numa = topo_cpu_numa(t->c->topo, rp->cpu_actual);
	/* netserver's last reports may come after netperf's last interval
	 * (its streams end later): taken, checked, and not printed. */
	prc = session_expect_past(t->c->ctl, "results", "interim",
				  interim_peer_skip, &t->peer, &msg,
				  (MODULE_GRACE_SEC + 5) * 1000, err);
	if (prc == SESSION_PEER_ERROR)
		remote_words(t->c, err);
	if (prc < 0)
		rr_open_peer_gone(res, err);
	if (prc < 0 || read_results(msg, res, err) < 0 ||
	    result_check_remote(res, (double)(clock_ns() - t->asked) / 1e9,
				err) < 0)
		goto out;
	mirror_wire(res, msg, lports, t->set.n);
	collect_platform(t->c, res, &t->dp);
	rc = 0;
out:
	free(lports);
	json_decref(msg);
	return rc;
}

int
client_test(struct client *c, const struct netperf_opts *o, struct result *res,
	    volatile sig_atomic_t *stop, char *err)
{
	struct client_run t;
	int rc;

	/* A kernel without the transport says so here, in one line, not
	 * as a failed connect. */
	if (transport_probe(transport_of(res->m, &res->p), o->data_family,
			    err) < 0)
		return -1;
	if (c->legacy)
		return client_legacy_test(c, o, res, stop, err);
	if (c->no_control)
		return client_nocontrol_test(c, o, res, stop, err);
	memset(&t, 0, sizeof(t));
	t.c = c;
	t.o = o;
	t.res = res;
	t.stop = stop;
	t.m = res->m;
	rc = test_negotiate(&t, err);
	if (rc == 0)
		rc = test_connect(&t, err);
	if (rc == 0)
		rc = test_run(&t, err);
	if (rc == 0)
		rc = test_collect(&t, err);
	if (t.wire_on)
		wire_session_stop(&t.ws, &res->side[RESULT_LOCAL].wire);
	streams_free(&t.set, NULL);
	return rc;
}

void
client_close(struct client *c)
{
	char err[ERR_LEN];

	free(c->fill);
	c->fill = NULL;
	plat_free(c);
	if (c->ctl < 0)
		return;
	if (c->legacy) {
		/* 2.7 ends with a half-close, and its netserver closes. */
		shutdown(c->ctl, SHUT_WR);
		readable_within(c->ctl, 1000);
		close(c->ctl);
		c->ctl = -1;
		return;
	}
	session_send_new(c->ctl, proto_new("bye"), 1000, err);
	close(c->ctl);
	c->ctl = -1;
}

/* The one stream of a test with a peer that runs none of our loops, in
 * set (the caller frees it): its counts, and where -T places it.
 * Returns 0, or -1 with err set. */
int
client_one_stream(struct client *c, struct result *res, struct streams *set,
		  char *err)
{
	res->nstreams = 1;
	if (alloc_streams(res, 1) < 0)
		return err_set(err, "out of memory");
	if (streams_alloc(set, res->m, 1, 0, res->side[RESULT_LOCAL].stream,
			  err) < 0)
		return -1;
	return place_streams_here(c, res, set, err);
}

/*
 * Our loop for that one stream, on a data connection to port: a 2.7
 * netserver's, or -N's discard, chargen or echo service. Nothing of ours
 * is on the wire (no token, no header). The counts go to
 * res->side[RESULT_LOCAL].sum; what set holds is the caller's to free.
 * Returns 0, or -1 with err set.
 */
int
client_run_untagged(struct client *c, const struct netperf_opts *o,
		    struct result *res, int port, struct streams *set,
		    volatile sig_atomic_t *stop, char *err)
{
	struct side_result *sum = &res->side[RESULT_LOCAL].sum;
	struct test_ctx *ctx = &set->ctx[0];
	struct module_run run;
	int64_t sizes[4];
	int fd;

	memset(&run, 0, sizeof(run));
	fd = module_has(res->m, MODULE_F_PER_TRANS)
		 ? crr_target(o, res, port, ctx, err)
		 : open_data(o, res, port, err);
	set->fds[0] = fd;
	if (fd < 0)
		return -1;
	local_sizes(o, res, set, sizes);
	if (streams_open(set, 0, fd, &res->p, stop, NULL, err) < 0)
		return -1;
	ctx->buf = module_buffer(sizes, 4, &ctx->buflen);
	if (ctx->buf == NULL)
		return err_set(err, "cannot allocate a %zu-byte buffer",
			       streams_max(sizes, 4));
	ctx->untagged = 1;
	if (res->hist != NULL && stream_hist(ctx, err) < 0)
		return -1;
	if (res->svc_hist != NULL && stream_svc_hist(ctx, err) < 0)
		return -1;
	run_setup(&run, c, o, res->m, 1, ctx, set->places);
	if (start_at_missed(res, err))
		return -1;
	run.start_at_ns = res->p.start_at_ns;
	if (module_run_all(&run, err) < 0)
		return -1;
	close(fd);
	set->fds[0] = -1;
	if (ctx->hist != NULL)
		stats_hist_merge(res->hist, ctx->hist);
	if (ctx->svc_hist != NULL)
		stats_hist_merge(res->svc_hist, ctx->svc_hist);
	module_merge(&run, sum);
	res->side[RESULT_LOCAL].place.cpu_actual = set->r[0].cpu_id;
	return 0;
}

int
client_cpu_rate(struct client *c, const struct netperf_opts *o, double *rate,
		int *ncpu, char *err)
{
	json_t *msg;
	int64_t n;
	int rc;

	if (c->no_control)
		return err_set(err, "REM_CPU asks netserver, and -N has none");
	if (c->legacy)
		return client_legacy_cpu_rate(c, o, rate, ncpu, err);
	if (session_send_new(c->ctl, proto_new("cpu_rate"), SESSION_TIMEOUT_MS,
			     err) < 0 ||
	    session_expect(c->ctl, "cpu_rate", &msg, SESSION_TIMEOUT_MS, err) <
		0)
		return -1;
	rc = proto_get_double(msg, "rate", 0, 1e9, rate, err);
	if (rc == 0)
		rc = proto_get_int(msg, "cpus", 1, 1 << 20, &n, err);
	json_decref(msg);
	if (rc == 0)
		*ncpu = (int)n;
	return rc;
}
