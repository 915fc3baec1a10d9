/*
 * netserver's metrics for --metrics: what its sessions did, counted in the
 * parent from events the children send it once per test (never from the
 * data path), and served as the Prometheus text exposition format to
 * "GET /metrics" and nothing else.
 */
#ifndef NP_METRICS_H
#define NP_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Why a session was refused, as the label says it. */
enum metrics_refusal {
	METRICS_REFUSED_ALLOW,	   /* the allow-list */
	METRICS_REFUSED_BUSY,	   /* --max-sessions */
	METRICS_REFUSED_PER_ADDR,  /* --max-per-address */
	METRICS_REFUSED_AUTH,	   /* the proof of --auth-file's key */
	METRICS_REFUSED_VERSION,   /* a control protocol it does not speak */
	METRICS_REFUSED_LEGACY,	   /* a netperf 2.7 client it may not serve */
	METRICS_REFUSALS
};

/* What a child tells the parent. */
enum metrics_kind {
	METRICS_EV_TEST_START, /* a test's streams are running */
	METRICS_EV_TEST_END,   /* a test ended, with what it moved */
	METRICS_EV_REFUSED,    /* the session was refused (refusal) */
	METRICS_EV_CUT,	       /* a limit ended the session */
};

/* The longest test name an event carries, with its NUL. */
#define METRICS_TEST_LEN 24

/* One event, written whole in one write(2) (it is under PIPE_BUF). */
struct metrics_event {
	uint32_t magic;
	uint32_t kind;	   /* enum metrics_kind */
	int32_t pid;	   /* the child's */
	uint32_t refusal;  /* enum metrics_refusal, for METRICS_EV_REFUSED */
	uint32_t streams;  /* the test's data connections */
	uint32_t pad;
	uint64_t bytes;	   /* bytes the test moved, both ways */
	uint64_t transactions;
	char test[METRICS_TEST_LEN];
};

#define METRICS_MAGIC 0x6e706d31u /* "npm1" */

/* The most test names the counters keep apart; later ones count as one
 * "other". */
#define METRICS_TESTS_MAX 32

/* The parent's counts. */
struct metrics {
	uint64_t accepted;
	uint64_t refused[METRICS_REFUSALS];
	uint64_t cut;
	uint64_t bytes, transactions;
	uint64_t lost; /* events a child could not send (pipe full) */
	uint64_t bad;  /* events that did not parse */
	int ntests;
	char test[METRICS_TESTS_MAX][METRICS_TEST_LEN];
	uint64_t tests[METRICS_TESTS_MAX];
	uint64_t tests_other;
	double start_time; /* the Unix time netserver started */
};

/* Starts the counts, every test of the module table at zero. */
void metrics_init(struct metrics *m, double start_time);

/* Fills an event; test may be NULL. */
void metrics_event_make(struct metrics_event *ev, enum metrics_kind kind,
			const char *test, uint64_t bytes,
			uint64_t transactions, int streams,
			enum metrics_refusal refusal);

/*
 * Applies an event read from a child to the counts; *streams_delta gets
 * the change in the child's running streams (START: +streams, END:
 * -streams) for the caller's gauge. Returns 0, or -1 when the bytes are no
 * event (counted as bad).
 */
int metrics_apply(struct metrics *m, const void *buf, size_t len,
		  pid_t *pid, int *streams_delta);

/*
 * Writes the exposition text into buf (cap bytes, NUL-terminated) with
 * the gauges given. Returns its length, or -1 when cap is too small.
 */
int metrics_render(const struct metrics *m, int sessions_active,
		   int streams_active, char *buf, size_t cap);

/* What a request asks, as metrics_request says. */
enum metrics_answer {
	METRICS_HTTP_MORE = 0,	  /* not whole yet */
	METRICS_HTTP_OK,	  /* GET (or HEAD) /metrics */
	METRICS_HTTP_NOT_FOUND,	  /* another path */
	METRICS_HTTP_NOT_ALLOWED, /* another method */
	METRICS_HTTP_BAD,	  /* not HTTP/1.x, or too long */
};

/* The largest request read; past it the answer is METRICS_HTTP_BAD. */
#define METRICS_REQUEST_MAX 2048

/*
 * Reads the request in buf[0..len) (its request line and headers, up to
 * the blank line); *head is set for HEAD. A pure function, fuzzed.
 */
enum metrics_answer metrics_request(const char *buf, size_t len, int *head);

/*
 * Writes the whole HTTP/1.1 response for answer into out (cap bytes):
 * the status line, headers and, unless head, the body (the exposition
 * for OK, a line of text otherwise). Returns its length, or -1.
 */
int metrics_response(enum metrics_answer answer, const char *body, int head,
		     char *out, size_t cap);

/* Scrapes served at once; another waits in the listen queue. */
#define METRICS_CONN_MAX 4
/* A scrape's whole life: request read and answer written. */
#define METRICS_CONN_MS 2000

struct pollfd;
struct acl;

/* The endpoint: a listener and the scrapes being served. */
struct metrics_server {
	int lfd;
	int port;
	int n;
	struct metrics_conn {
		int fd;
		uint64_t deadline; /* CLOCK_MONOTONIC ns */
		size_t len;
		char req[METRICS_REQUEST_MAX];
	} conn[METRICS_CONN_MAX];
};

/*
 * Listens for --metrics SPEC: "PORT", "ADDRESS:PORT" or "[IPv6]:PORT";
 * a port alone listens on 127.0.0.1. Returns 0 with ms->port set, or -1
 * with err set.
 */
int metrics_server_open(struct metrics_server *ms, const char *spec,
			char *err);

/* Fills pfd (room for 1 + METRICS_CONN_MAX) with what the endpoint
 * waits for; returns how many. */
int metrics_server_fds(const struct metrics_server *ms, struct pollfd *pfd);

/*
 * Acts on what poll said of the n entries metrics_server_fds filled:
 * accepts a scrape (closed at once when allow has entries and does not
 * allow its address), reads requests without blocking, answers whole
 * ones with the counts and gauges, and closes scrapes past their
 * deadline. Never blocks.
 */
void metrics_server_step(struct metrics_server *ms, const struct pollfd *pfd,
			 int n, const struct acl *allow,
			 const struct metrics *m, int sessions_active,
			 int streams_active);

/* Closes the listener and every scrape. */
void metrics_server_close(struct metrics_server *ms);

#endif
