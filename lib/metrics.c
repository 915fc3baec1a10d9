#include "np/metrics.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/acl.h"
#include "np/clock.h"
#include "np/err.h"
#include "np/module.h"
#include "np/sock.h"

/* The label each refusal is counted under. */
static const char *const refusal_label[METRICS_REFUSALS] = {
    [METRICS_REFUSED_ALLOW] = "allow_list",
    [METRICS_REFUSED_BUSY] = "busy",
    [METRICS_REFUSED_PER_ADDR] = "per_address",
    [METRICS_REFUSED_AUTH] = "authentication",
    [METRICS_REFUSED_VERSION] = "version",
    [METRICS_REFUSED_LEGACY] = "legacy",
};

void
metrics_init(struct metrics *m, double start_time)
{
	const struct test_module *t;

	memset(m, 0, sizeof(*m));
	m->start_time = start_time;
	for (t = module_table; t->name != NULL && m->ntests < METRICS_TESTS_MAX;
	     t++)
		snprintf(m->test[m->ntests++], METRICS_TEST_LEN, "%s",
			 t->name);
}

void
metrics_event_make(struct metrics_event *ev, enum metrics_kind kind,
		   const char *test, uint64_t bytes, uint64_t transactions,
		   int streams, enum metrics_refusal refusal)
{
	memset(ev, 0, sizeof(*ev));
	ev->magic = METRICS_MAGIC;
	ev->kind = (uint32_t)kind;
	ev->pid = (int32_t)getpid();
	ev->refusal = (uint32_t)refusal;
	ev->streams = streams > 0 ? (uint32_t)streams : 0;
	ev->bytes = bytes;
	ev->transactions = transactions;
	if (test != NULL)
		snprintf(ev->test, sizeof(ev->test), "%s", test);
}

/* A sum that saturates rather than wraps: a counter never goes back. */
static void
add(uint64_t *to, uint64_t v)
{
	*to = *to > UINT64_MAX - v ? UINT64_MAX : *to + v;
}

int
metrics_apply(struct metrics *m, const void *buf, size_t len, pid_t *pid,
	      int *streams_delta)
{
	struct metrics_event ev;
	int i;

	*streams_delta = 0;
	*pid = 0;
	if (len != sizeof(ev)) {
		m->bad++;
		return -1;
	}
	memcpy(&ev, buf, sizeof(ev));
	if (ev.magic != METRICS_MAGIC || ev.streams > 1u << 20 ||
	    memchr(ev.test, '\0', sizeof(ev.test)) == NULL) {
		m->bad++;
		return -1;
	}
	*pid = (pid_t)ev.pid;
	switch (ev.kind) {
	case METRICS_EV_TEST_START:
		*streams_delta = (int)ev.streams;
		return 0;
	case METRICS_EV_TEST_END:
		*streams_delta = -(int)ev.streams;
		add(&m->bytes, ev.bytes);
		add(&m->transactions, ev.transactions);
		/* Only the table's names become labels: a child's text is
		 * never printed as it came. */
		for (i = 0; i < m->ntests; i++)
			if (strcasecmp(m->test[i], ev.test) == 0)
				break;
		add(i < m->ntests ? &m->tests[i] : &m->tests_other, 1);
		return 0;
	case METRICS_EV_REFUSED:
		if (ev.refusal >= METRICS_REFUSALS)
			break;
		add(&m->refused[ev.refusal], 1);
		return 0;
	case METRICS_EV_CUT:
		add(&m->cut, 1);
		return 0;
	default:
		break;
	}
	m->bad++;
	return -1;
}

/* Appends to buf as snprintf does, keeping *len; a short buffer sets
 * *len past cap, which the caller reads as failure. */
__attribute__((format(printf, 4, 5))) static void
put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	*len += n < 0 ? cap : (size_t)n;
}

/* HELP and TYPE lines of one family. */
static void
family(char *buf, size_t cap, size_t *len, const char *name,
       const char *type, const char *help)
{
	put(buf, cap, len, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
	    type);
}

/* A family of one sample with no labels. */
static void
scalar(char *buf, size_t cap, size_t *len, const char *name,
       const char *type, const char *help, unsigned long long v)
{
	family(buf, cap, len, name, type, help);
	put(buf, cap, len, "%s %llu\n", name, v);
}

int
metrics_render(const struct metrics *m, int sessions_active,
	       int streams_active, char *buf, size_t cap)
{
	size_t len = 0;
	int i;

	scalar(buf, cap, &len, "netserver_sessions_accepted_total", "counter",
	       "Control connections accepted and handed to a session.",
	       m->accepted);
	family(buf, cap, &len, "netserver_sessions_refused_total", "counter",
	       "Control connections refused, by reason.");
	for (i = 0; i < METRICS_REFUSALS; i++)
		put(buf, cap, &len,
		    "netserver_sessions_refused_total{reason=\"%s\"} %llu\n",
		    refusal_label[i], (unsigned long long)m->refused[i]);
	scalar(buf, cap, &len, "netserver_sessions_cut_total", "counter",
	       "Sessions ended by a limit (--max-duration, "
	       "--max-session-time).",
	       m->cut);
	family(buf, cap, &len, "netserver_tests_total", "counter",
	       "Tests whose data connections ran, by test.");
	for (i = 0; i < m->ntests; i++)
		put(buf, cap, &len, "netserver_tests_total{test=\"%s\"} %llu\n",
		    m->test[i], (unsigned long long)m->tests[i]);
	put(buf, cap, &len, "netserver_tests_total{test=\"other\"} %llu\n",
	    (unsigned long long)m->tests_other);
	scalar(buf, cap, &len, "netserver_bytes_total", "counter",
	       "Bytes the tests moved on data connections, both ways.",
	       m->bytes);
	scalar(buf, cap, &len, "netserver_transactions_total", "counter",
	       "Transactions of the request/response tests.", m->transactions);
	scalar(buf, cap, &len, "netserver_events_lost_total", "counter",
	       "Session events that did not reach the counts.",
	       m->lost + m->bad);
	scalar(buf, cap, &len, "netserver_sessions_active", "gauge",
	       "Sessions being served now.",
	       (unsigned long long)(sessions_active > 0 ? sessions_active : 0));
	scalar(buf, cap, &len, "netserver_streams_active", "gauge",
	       "Data connections of the tests running now.",
	       (unsigned long long)(streams_active > 0 ? streams_active : 0));
	family(buf, cap, &len, "netserver_start_time_seconds", "gauge",
	       "When this netserver started, in Unix seconds.");
	put(buf, cap, &len, "netserver_start_time_seconds %.3f\n",
	    m->start_time);
	return len < cap ? (int)len : -1;
}

/* The end of the request's head (the blank line), or NULL. */
static const char *
head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] == '\n' && buf[i + 1] == '\n')
			return buf + i + 2;
		if (i + 3 < len && memcmp(buf + i, "\r\n\r\n", 4) == 0)
			return buf + i + 4;
	}
	return NULL;
}

enum metrics_answer
metrics_request(const char *buf, size_t len, int *head)
{
	const char *sp1, *sp2, *eol;
	size_t mlen, plen;

	*head = 0;
	if (len > METRICS_REQUEST_MAX)
		return METRICS_HTTP_BAD;
	if (head_end(buf, len) == NULL)
		return len == METRICS_REQUEST_MAX ? METRICS_HTTP_BAD
						  : METRICS_HTTP_MORE;
	eol = memchr(buf, '\n', len);
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (sp1 == NULL)
		return METRICS_HTTP_BAD;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (sp2 == NULL || eol - sp2 < 9 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return METRICS_HTTP_BAD;
	mlen = (size_t)(sp1 - buf);
	plen = (size_t)(sp2 - sp1 - 1);
	for (size_t i = 0; i < (size_t)(eol - buf); i++)
		if ((unsigned char)buf[i] < 0x20 && buf[i] != '\r')
			return METRICS_HTTP_BAD;
	if (mlen == 4 && memcmp(buf, "HEAD", 4) == 0)
		*head = 1;
	else if (mlen != 3 || memcmp(buf, "GET", 3) != 0)
		return METRICS_HTTP_NOT_ALLOWED;
	/* /metrics, with or without a query (Prometheus sends none, but a
	 * probe may). */
	if ((plen == 8 || (plen > 8 && sp1[9] == '?')) &&
	    memcmp(sp1 + 1, "/metrics", 8) == 0)
		return METRICS_HTTP_OK;
	return METRICS_HTTP_NOT_FOUND;
}

int
metrics_response(enum metrics_answer answer, const char *body, int head,
		 char *out, size_t cap)
{
	const char *status, *type = "text/plain; charset=utf-8", *extra = "";
	size_t len = 0;

	switch (answer) {
	case METRICS_HTTP_OK:
		status = "200 OK";
		type = "text/plain; version=0.0.4; charset=utf-8";
		break;
	case METRICS_HTTP_NOT_FOUND:
		status = "404 Not Found";
		body = "only /metrics is served here\n";
		break;
	case METRICS_HTTP_NOT_ALLOWED:
		status = "405 Method Not Allowed";
		body = "only GET and HEAD are served here\n";
		extra = "Allow: GET, HEAD\r\n";
		break;
	default:
		status = "400 Bad Request";
		body = "not a request this endpoint reads\n";
		break;
	}
	put(out, cap, &len,
	    "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	    "%sConnection: close\r\n\r\n%s",
	    status, type, strlen(body), extra, head ? "" : body);
	return len < cap ? (int)len : -1;
}

int
metrics_server_open(struct metrics_server *ms, const char *spec, char *err)
{
	char host[128], why[ERR_LEN];
	const char *colon = strrchr(spec, ':'), *port_text = spec;
	char *end;
	long port;

	memset(ms, 0, sizeof(*ms));
	ms->lfd = -1;
	snprintf(host, sizeof(host), "127.0.0.1");
	if (colon != NULL) {
		size_t hl = (size_t)(colon - spec);

		if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
			spec++;
			hl -= 2;
		}
		if (hl == 0 || hl >= sizeof(host))
			return err_set(err, "--metrics: \"%s\" is not "
					    "ADDRESS:PORT",
				       spec);
		memcpy(host, spec, hl);
		host[hl] = '\0';
		port_text = colon + 1;
	}
	errno = 0;
	port = strtol(port_text, &end, 10);
	if (*port_text == '\0' || *end != '\0' || errno != 0 || port < 0 ||
	    port > 65535)
		return err_set(err, "--metrics: \"%s\" is not a port",
			       port_text);
	ms->lfd = sock_listen(host, (int)port, 0, SOCK_STREAM, 16, why);
	if (ms->lfd < 0)
		return err_set(err, "--metrics: %s", why);
	ms->port = sock_local_port(ms->lfd);
	return 0;
}

int
metrics_server_fds(const struct metrics_server *ms, struct pollfd *pfd)
{
	int i;

	pfd[0].fd = ms->lfd;
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	for (i = 0; i < ms->n; i++) {
		pfd[1 + i].fd = ms->conn[i].fd;
		pfd[1 + i].events = POLLIN;
		pfd[1 + i].revents = 0;
	}
	return 1 + ms->n;
}

static void
conn_drop(struct metrics_server *ms, int i)
{
	close(ms->conn[i].fd);
	ms->conn[i] = ms->conn[--ms->n];
}

/* Reads what a scrape sent; answers and closes it once its request is
 * whole (or bad), or when it goes away. */
static void
conn_step(struct metrics_server *ms, int i, const struct metrics *m,
	  int sessions, int streams)
{
	struct metrics_conn *c = &ms->conn[i];
	char body[8192], out[8192 + 512];
	enum metrics_answer a;
	ssize_t got;
	int head, len;

	got = recv(c->fd, c->req + c->len, sizeof(c->req) - c->len,
		   MSG_DONTWAIT);
	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_drop(ms, i);
		return;
	}
	if (got > 0)
		c->len += (size_t)got;
	a = metrics_request(c->req, c->len, &head);
	if (a == METRICS_HTTP_MORE)
		return;
	body[0] = '\0';
	if (a == METRICS_HTTP_OK &&
	    metrics_render(m, sessions, streams, body, sizeof(body)) < 0)
		a = METRICS_HTTP_BAD;
	len = metrics_response(a, body, head, out, sizeof(out));
	/* The answer fits a fresh socket's buffer; a reader that cannot
	 * take it at once loses it. */
	if (len > 0)
		(void)send(c->fd, out, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
	shutdown(c->fd, SHUT_WR);
	conn_drop(ms, i);
}

void
metrics_server_step(struct metrics_server *ms, const struct pollfd *pfd,
		    int n, const struct acl *allow, const struct metrics *m,
		    int sessions_active, int streams_active)
{
	uint64_t now = clock_ns();
	int i, count = n - 1 < ms->n ? n - 1 : ms->n;

	/* Backwards: conn_drop moves the last scrape into i. */
	for (i = count - 1; i >= 0; i--) {
		if (pfd[1 + i].revents != 0)
			conn_step(ms, i, m, sessions_active, streams_active);
		else if (now >= ms->conn[i].deadline)
			conn_drop(ms, i);
	}
	if (n > 0 && (pfd[0].revents & POLLIN)) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = accept4(ms->lfd, (struct sockaddr *)&peer, &plen,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		if ((allow != NULL && !acl_allows(allow,
						  (struct sockaddr *)&peer)) ||
		    ms->n == METRICS_CONN_MAX) {
			close(fd);
			return;
		}
		ms->conn[ms->n].fd = fd;
		ms->conn[ms->n].len = 0;
		ms->conn[ms->n].deadline =
		    now + (uint64_t)METRICS_CONN_MS * 1000000ULL;
		ms->n++;
	}
}

void
metrics_server_close(struct metrics_server *ms)
{
	while (ms->n > 0)
		conn_drop(ms, ms->n - 1);
	if (ms->lfd >= 0)
		close(ms->lfd);
	ms->lfd = -1;
}
