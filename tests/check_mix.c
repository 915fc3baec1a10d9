/*
 * Request mixes (-r W%REQ[,RSP]/...; lib/mix.c) against a real netserver
 * on loopback: each class's share of the requests within a 99.999 %
 * binomial interval of its weight; the totals the exact sums of the
 * classes (transactions, bytes each way as both ends count them, and the
 * latency histogram bucket by bucket); each -D interval's classes adding
 * up to its count, and the intervals to each class's total; the same
 * draws from the same --mix-seed; and the usage errors. The same for
 * flows on threads (200 flows on 2 threads each way). With --timeout,
 * each class's time-outs, with netserver stopped for 300 ms: they add up
 * to TIMEOUTS, in the totals and in every interval. The bytes on the
 * wire against nftables' counters are check_netns's (mix case).
 */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "np/err.h"
#include "np/mix.h"
#include "np/module.h"
#include "np/proto.h"

#define MIX_90_10 "90%64,1400/10%1400,64"

/* Runs netperf against the fixture's netserver with args after the host
 * and port, and its JSON document (--json) parsed; fails unless it exits
 * 0. */
static json_t *
run_json(const char *const *args, struct harness_out *o)
{
	const char *argv[48] = {"-H", "127.0.0.1", "-p", harness_port,
				"--json"};
	int n = 5;
	json_t *doc;

	for (; *args != NULL && n < 47; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	ck_assert_int_eq(harness_netperf(argv, 60, o), 0);
	ck_assert_msg(o->status == 0, "netperf exited %d: %.2000s %s",
		      o->status, o->out, o->err);
	doc = harness_json_parse(o->out);
	ck_assert_msg(doc != NULL, "no JSON: %.2000s", o->out);
	return doc;
}

/* The same with the document written to a file: flows' JSON, every
 * flow's counts in it, outgrows harness_out. */
static json_t *
run_json_file(const char *const *args)
{
	const char *argv[48] = {NP_NETPERF, "-H",	  "127.0.0.1",
				"-p",	    harness_port, "--json"};
	char out[64], err[64], text[4096];
	double secs;
	long rss;
	json_t *doc;
	json_error_t jerr;
	int n = 6, rc;

	for (; *args != NULL && n < 47; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	snprintf(out, sizeof(out), "/tmp/check_mix.%d.json", (int)getpid());
	snprintf(err, sizeof(err), "/tmp/check_mix.%d.err", (int)getpid());
	rc = harness_run_measured(argv, out, err, 60, &rss, &secs);
	harness_read_file(err, text, sizeof(text));
	unlink(err);
	doc = json_load_file(out, JSON_DISABLE_EOF_CHECK, &jerr);
	unlink(out);
	ck_assert_msg(rc == 0, "netperf exited %d: %s", rc, text);
	ck_assert_msg(doc != NULL, "no JSON: %s", jerr.text);
	return doc;
}

static uint64_t
u64_at(json_t *doc, const char *path)
{
	json_t *v = harness_json_at(doc, path);

	ck_assert_msg(json_is_integer(v), "%s is not an integer", path);
	return (uint64_t)json_integer_value(v);
}

/* Class k's share of n requests lies within the 99.999 % interval of a
 * binomial of weight w: |k - n w| <= 4.4172 sqrt(n w (1 - w)). The suite
 * makes a few dozen such checks a run, so a 99.9 % interval would fail a
 * correct build every few runs; a weight skewed by 3 points is still 20
 * standard deviations out at 40 000 requests. */
static void
binomial_ok(uint64_t k, uint64_t n, double w, const char *what)
{
	double mean = (double)n * w;
	double half = 4.4172 * sqrt((double)n * w * (1 - w));

	ck_assert_msg(n > 1000, "%s: only %llu requests", what,
		      (unsigned long long)n);
	ck_assert_msg(fabs((double)k - mean) <= half,
		      "%s: %llu of %llu requests, the 99.999 %% interval of "
		      "%.0f %% is %.0f +- %.0f",
		      what, (unsigned long long)k, (unsigned long long)n,
		      w * 100, mean, half);
}

/* Adds an exact histogram's buckets ([lo, hi, count] in ns) into sum, an
 * object keyed by lo; returns its count. */
static uint64_t
buckets_add(json_t *sum, json_t *exact)
{
	json_t *b = json_object_get(exact, "buckets"), *row;
	uint64_t total = 0, was;
	char key[32];
	size_t i;

	ck_assert(json_is_array(b));
	json_array_foreach(b, i, row)
	{
		snprintf(key, sizeof(key), "%lld",
			 (long long)json_integer_value(json_array_get(row, 0)));
		was = json_is_integer(json_object_get(sum, key))
			  ? (uint64_t)json_integer_value(
				json_object_get(sum, key))
			  : 0;
		was += (uint64_t)json_integer_value(json_array_get(row, 2));
		total += (uint64_t)json_integer_value(json_array_get(row, 2));
		json_object_set_new(sum, key, json_integer((json_int_t)was));
	}
	return total;
}

/* netserver's bytes each way against netperf's, bs sent and br
 * received: equal over TCP, and over UDP when no datagram was lost, came
 * late or twice (loopback drops one now and then on a loaded host);
 * otherwise netserver never received more than netperf sent, nor netperf
 * more than netserver sent. */
static void
same_bytes(json_t *doc, uint64_t bs, uint64_t br, const char *what)
{
	uint64_t rr = u64_at(doc, "remote.counts.bytes_recv");
	uint64_t rs = u64_at(doc, "remote.counts.bytes_sent");
	uint64_t odd = u64_at(doc, "local.counts.lost") +
		       u64_at(doc, "local.counts.duplicates") +
		       u64_at(doc, "local.counts.late_answers") +
		       u64_at(doc, "local.counts.timeouts");

	if (strcmp(json_string_value(harness_json_at(doc, "protocol")),
		   "TCP") == 0 ||
	    odd == 0) {
		ck_assert_msg(bs == rr && br == rs,
			      "%s: netperf sent %llu and received %llu; "
			      "netserver received %llu and sent %llu",
			      what, (unsigned long long)bs,
			      (unsigned long long)br, (unsigned long long)rr,
			      (unsigned long long)rs);
		return;
	}
	fprintf(stderr, "%s: %llu datagrams lost, late or twice\n", what,
		(unsigned long long)odd);
	ck_assert_uint_ge(bs, rr);
	ck_assert_uint_ge(rs, br);
}

/*
 * Of figure key ("timeouts", "late_answers"): each interval's classes'
 * add up to the interval's, the intervals' to total, and each class's
 * over the intervals to its total.
 */
static void
mix_intervals_ok(json_t *doc, const char *key, uint64_t total, const char *what)
{
	json_t *classes = harness_json_at(doc, "mix.classes");
	json_t *ivs = harness_json_at(doc, "interim"), *iv, *cl, *t;
	uint64_t byiv[8] = {0}, s, all = 0;
	size_t i, k, n = json_array_size(classes);

	json_array_foreach(ivs, i, iv)
	{
		cl = json_object_get(iv, "classes");
		s = 0;
		ck_assert(json_is_array(cl) && json_array_size(cl) == n);
		for (k = 0; k < n; k++) {
			t = json_object_get(json_array_get(cl, k), key);
			ck_assert_msg(json_is_integer(t),
				      "%s: interval %zu, class %zu: no %s",
				      what, i, k, key);
			s += (uint64_t)json_integer_value(t);
			byiv[k] += (uint64_t)json_integer_value(t);
		}
		t = json_object_get(iv, key);
		ck_assert_msg(json_is_integer(t), "%s: interval %zu: no %s",
			      what, i, key);
		ck_assert_msg(s == (uint64_t)json_integer_value(t),
			      "%s: interval %zu: classes' %s %llu, the "
			      "interval's %lld",
			      what, i, key, (unsigned long long)s,
			      (long long)json_integer_value(t));
		all += s;
	}
	if (json_array_size(ivs) == 0)
		return;
	ck_assert_msg(all == total,
		      "%s: the intervals' %s add up to %llu, the total is "
		      "%llu",
		      what, key, (unsigned long long)all,
		      (unsigned long long)total);
	for (k = 0; k < n; k++)
		ck_assert_uint_eq(byiv[k],
				  (uint64_t)json_integer_value(json_object_get(
				      json_array_get(classes, k), key)));
}

/*
 * A mix's time-outs and late answers: the classes' add up to TIMEOUTS
 * and LATE_ANSWERS, each interval's classes' to the interval's, and the
 * intervals' to the totals and to each class's total. Returns TIMEOUTS.
 */
static uint64_t
mix_timeouts_ok(json_t *doc, const char *what)
{
	json_t *classes = harness_json_at(doc, "mix.classes"), *c;
	uint64_t sum = 0, total = u64_at(doc, "local.counts.timeouts");
	uint64_t late = 0;
	size_t i, n = json_array_size(classes);

	ck_assert(n > 0 && n <= 8);
	json_array_foreach(classes, i, c)
	{
		ck_assert_msg(json_is_integer(json_object_get(c, "timeouts")),
			      "%s: class %zu has no time-outs", what, i);
		sum += (uint64_t)json_integer_value(
		    json_object_get(c, "timeouts"));
		late += (uint64_t)json_integer_value(
		    json_object_get(c, "late_answers"));
	}
	ck_assert_msg(
	    late == u64_at(doc, "local.counts.late_answers"),
	    "%s: the classes' late answers add up to %llu, the "
	    "total is %llu",
	    what, (unsigned long long)late,
	    (unsigned long long)u64_at(doc, "local.counts.late_answers"));
	ck_assert_msg(sum == total,
		      "%s: the classes' time-outs add up to %llu, "
		      "TIMEOUTS is %llu",
		      what, (unsigned long long)sum, (unsigned long long)total);
	mix_intervals_ok(doc, "timeouts", total, what);
	mix_intervals_ok(doc, "late_answers", late, what);
	return total;
}

/*
 * The whole account of a 90/10 mix's run: shares, sums of the classes
 * against the totals (both ends' bytes), the histograms bucket by bucket,
 * and the intervals (-D) against the classes.
 */
static void
mix_account_ok(json_t *doc, const char *what)
{
	json_t *classes = harness_json_at(doc, "mix.classes"), *c, *iv;
	json_t *sum = json_object(), *tot = json_object();
	json_t *ivs = harness_json_at(doc, "interim");
	uint64_t rq = 0, tr = 0, bs = 0, br = 0, hn = 0, ivc[2] = {0, 0};
	const char *key;
	json_t *v;
	size_t i, k;

	ck_assert_msg(json_is_array(classes) && json_array_size(classes) == 2,
		      "%s: no two classes", what);
	json_array_foreach(classes, i, c)
	{
		rq += (uint64_t)json_integer_value(
		    json_object_get(c, "requests"));
		tr += (uint64_t)json_integer_value(
		    json_object_get(c, "transactions"));
		bs += (uint64_t)json_integer_value(
		    json_object_get(c, "bytes_sent"));
		br += (uint64_t)json_integer_value(
		    json_object_get(c, "bytes_received"));
		hn += buckets_add(sum, harness_json_at(c, "latency_us.exact"));
		/* A class's bytes are its sizes times its counts. */
		ck_assert_uint_eq((uint64_t)json_integer_value(
				      json_object_get(c, "bytes_sent")),
				  (uint64_t)json_integer_value(
				      json_object_get(c, "requests")) *
				      (uint64_t)json_integer_value(
					  json_object_get(c, "request_size")));
		ck_assert_uint_eq((uint64_t)json_integer_value(
				      json_object_get(c, "bytes_received")),
				  (uint64_t)json_integer_value(
				      json_object_get(c, "transactions")) *
				      (uint64_t)json_integer_value(
					  json_object_get(c, "response_size")));
	}
	binomial_ok(u64_at(doc, "mix.classes.0.requests"), rq, 0.9, what);
	ck_assert_uint_eq(tr, u64_at(doc, "local.counts.transactions"));
	ck_assert_uint_eq(bs, u64_at(doc, "local.counts.bytes_sent"));
	ck_assert_uint_eq(br, u64_at(doc, "local.counts.bytes_recv"));
	/* netserver counted the same bytes, the other way round (of
	 * datagrams, those that arrived: none lost, late or twice). */
	same_bytes(doc, bs, br, what);
	/* The total histogram is the classes', bucket by bucket. */
	ck_assert_uint_eq(hn, u64_at(doc, "latency_us.exact.count"));
	ck_assert_uint_eq(hn, tr);
	buckets_add(tot, harness_json_at(doc, "latency_us.exact"));
	ck_assert_uint_eq(json_object_size(tot), json_object_size(sum));
	json_object_foreach(tot, key, v) ck_assert_msg(
	    json_equal(v, json_object_get(sum, key)),
	    "%s: bucket at %s ns: total %lld, classes %lld", what, key,
	    (long long)json_integer_value(v),
	    (long long)json_integer_value(json_object_get(sum, key)));
	/* Each interval's classes add up to its count; the intervals add up
	 * to each class's total. */
	ck_assert_msg(json_is_array(ivs) && json_array_size(ivs) >= 3,
		      "%s: too few intervals", what);
	json_array_foreach(ivs, i, iv)
	{
		json_t *cl = json_object_get(iv, "classes");
		uint64_t s = 0;

		ck_assert(json_is_array(cl) && json_array_size(cl) == 2);
		for (k = 0; k < 2; k++) {
			uint64_t n = (uint64_t)json_integer_value(
			    json_object_get(json_array_get(cl, k), "count"));

			s += n;
			ivc[k] += n;
		}
		ck_assert_msg(s == (uint64_t)json_integer_value(
				       json_object_get(iv, "count")),
			      "%s: interval %zu: classes %llu, count %lld",
			      what, i, (unsigned long long)s,
			      (long long)json_integer_value(
				  json_object_get(iv, "count")));
	}
	ck_assert_uint_eq(ivc[0], u64_at(doc, "mix.classes.0.transactions"));
	ck_assert_uint_eq(ivc[1], u64_at(doc, "mix.classes.1.transactions"));
	mix_timeouts_ok(doc, what);
	json_decref(sum);
	json_decref(tot);
}

/* A run of flows on threads: as many flows as asked, on threads fewer. */
static void
flows_ok(json_t *doc, int flows, const char *what)
{
	ck_assert_msg(json_is_object(harness_json_at(doc, "flows")),
		      "%s: not run as flows", what);
	ck_assert_uint_eq(u64_at(doc, "flows.flows"), (uint64_t)flows);
	ck_assert_msg(u64_at(doc, "flows.threads") < (uint64_t)flows,
		      "%s: %llu threads for %d flows", what,
		      (unsigned long long)u64_at(doc, "flows.threads"), flows);
}

START_TEST(tcp_rr_closed)
{
	const char *args[] = {"-t",  "TCP_RR", "-l", "2",	"-D",
			      "0.5", "--",     "-r", MIX_90_10, NULL};
	struct harness_out o;
	json_t *doc = run_json(args, &o);

	mix_account_ok(doc, "TCP_RR");
	json_decref(doc);
}
END_TEST

START_TEST(tcp_rr_streams_burst)
{
	const char *args[] = {"-t",	 "TCP_RR",    "-l", "2",  "-D",
			      "0.5",	 "--streams", "3",  "--", "-r",
			      MIX_90_10, "-b",	      "4",  NULL};
	struct harness_out o;
	json_t *doc = run_json(args, &o);

	mix_account_ok(doc, "TCP_RR --streams 3 -b 4");
	json_decref(doc);
}
END_TEST

START_TEST(tcp_rr_open)
{
	const char *args[] = {"-t",	   "TCP_RR", "-l",     "2",
			      "-D",	   "0.5",    "--rate", "5000",
			      "--streams", "2",	     "--",     "-r",
			      MIX_90_10,   "-b",     "3",      NULL};
	struct harness_out o;
	json_t *doc = run_json(args, &o);

	mix_account_ok(doc, "TCP_RR --rate 5000");
	json_decref(doc);
}
END_TEST

START_TEST(udp_rr_closed)
{
	const char *args[] = {"-t", "UDP_RR", "-l",	   "2",
			      "-D", "0.5",    "--streams", "2",
			      "--", "-r",     MIX_90_10,   NULL};
	struct harness_out o;
	json_t *doc = run_json(args, &o);

	mix_account_ok(doc, "UDP_RR");
	json_decref(doc);
}
END_TEST

START_TEST(udp_rr_open)
{
	const char *args[] = {"-t",	 "UDP_RR", "-l",   "2",	 "-D",
			      "0.5",	 "--rate", "5000", "--", "-r",
			      MIX_90_10, "-b",	   "3",	   NULL};
	struct harness_out o;
	json_t *doc = run_json(args, &o);

	mix_account_ok(doc, "UDP_RR --rate 5000");
	json_decref(doc);
}
END_TEST

/* Flows on threads: a 90/10 mix as 200 flows on 2 threads each way,
 * each flow drawing its own classes, closed and open loop, TCP and UDP,
 * -b, and past 64 streams without --threads, where flows are the
 * default; the same account, summed over flows and threads. */
static const struct {
	const char *what;
	const char *args[20];
} flows_cases[] = {
    {"TCP_RR flows -b 2",
     {"-t", "TCP_RR", "-l", "2", "-D", "0.5", "--streams", "200", "--threads",
      "2", "--", "-r", MIX_90_10, "-b", "2", NULL}},
    {"TCP_RR flows --rate 5000",
     {"-t", "TCP_RR", "-l", "2", "-D", "0.5", "--streams", "200", "--threads",
      "2", "--rate", "5000", "--", "-r", MIX_90_10, NULL}},
    {"UDP_RR flows",
     {"-t", "UDP_RR", "-l", "2", "-D", "0.5", "--streams", "200", "--threads",
      "2", "--", "-r", MIX_90_10, NULL}},
    {"UDP_RR flows --rate 5000 -b 2",
     {"-t", "UDP_RR", "-l", "2", "-D", "0.5", "--streams", "200", "--threads",
      "2", "--rate", "5000", "--", "-r", MIX_90_10, "-b", "2", NULL}},
    {"TCP_RR --streams 200",
     {"-t", "TCP_RR", "-l", "2", "-D", "0.5", "--streams", "200", "--", "-r",
      MIX_90_10, NULL}},
};

START_TEST(flows_mix)
{
	json_t *doc = run_json_file(flows_cases[_i].args);

	flows_ok(doc, 200, flows_cases[_i].what);
	mix_account_ok(doc, flows_cases[_i].what);
	json_decref(doc);
}
END_TEST

/* The sockets process pid holds open. */
static int
sockets_of(pid_t pid)
{
	char path[64], link[64];
	int n = 0;

	for (int fd = 0; fd < 4096; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		n += strncmp(link, "socket:", 7) == 0;
	}
	return n;
}

/* Stops the fixture netserver's session child for 300 ms, 0.8 s after
 * it holds its data sockets (its control connection and two at least:
 * the test is under way, however long a busy machine took to set it
 * up), then continues it. */
struct stall {
	pthread_t thread;
	int done;
};

static void *
stall_main(void *arg)
{
	struct stall *s = arg;
	struct timespec nap = {0, 20000000}, into = {0, 800000000};
	struct timespec stall = {0, 300000000};
	double until = harness_now() + 20;
	pid_t kids[8];

	while (harness_now() < until &&
	       (harness_server_children(&harness_srv, kids, 8) != 1 ||
		sockets_of(kids[0]) < 3))
		nanosleep(&nap, NULL);
	if (harness_server_children(&harness_srv, kids, 8) != 1)
		return NULL;
	nanosleep(&into, NULL);
	kill(kids[0], SIGSTOP);
	nanosleep(&stall, NULL);
	kill(kids[0], SIGCONT);
	s->done = 1;
	return NULL;
}

/* netperf with args into o, netserver stopped for 300 ms in the run;
 * both must have happened and netperf must have exited 0. */
static void
stalled_netperf(const char *const *args, struct harness_out *o)
{
	struct stall st = {0};

	ck_assert_int_eq(pthread_create(&st.thread, NULL, stall_main, &st), 0);
	ck_assert_int_eq(harness_netperf(args, 60, o), 0);
	pthread_join(st.thread, NULL);
	ck_assert_msg(o->status == 0 && st.done, "exit %d: %s", o->status,
		      o->err);
}

/* A run of args (3 s, -D, --timeout 50) with netserver stopped for
 * 300 ms in it: the requests through the stall time out, each class its
 * share of them, and the classes' time-outs add up to TIMEOUTS in the
 * totals and in each interval. Each class's bytes are whole
 * requests and whole answers (a TCP flow reads its late answers). */
static void
class_timeouts_run(const char *const *args, const char *what)
{
	struct stall st = {0};
	json_t *doc, *c;
	uint64_t to;
	size_t i;

	ck_assert_int_eq(pthread_create(&st.thread, NULL, stall_main, &st), 0);
	doc = run_json_file(args);
	pthread_join(st.thread, NULL);
	ck_assert_msg(st.done, "%s: no session child of netserver to stop",
		      what);
	to = mix_timeouts_ok(doc, what);
	fprintf(stderr,
		"%s: %llu time-outs, class 0 %llu, class 1 %llu; late "
		"answers %llu, class 1 %llu\n",
		what, (unsigned long long)to,
		(unsigned long long)u64_at(doc, "mix.classes.0.timeouts"),
		(unsigned long long)u64_at(doc, "mix.classes.1.timeouts"),
		(unsigned long long)u64_at(doc, "local.counts.late_answers"),
		(unsigned long long)u64_at(doc, "mix.classes.1.late_answers"));
	/* UDP gives a request up at its time-out: the answers netserver
	 * sends once it goes on are late, in their classes. */
	if (strcmp(json_string_value(harness_json_at(doc, "protocol")),
		   "UDP") == 0)
		ck_assert_msg(u64_at(doc, "mix.classes.0.late_answers") > 0,
			      "%s: class 0 has no late answer", what);
	ck_assert_msg(to > 0, "%s: the stall timed nothing out", what);
	ck_assert_msg(u64_at(doc, "mix.classes.0.timeouts") > 0,
		      "%s: class 0 timed nothing out", what);
	/* The requests the stall held are drawn as any others: class 1
	 * has its 10 % of them, within the 99.999 % interval. */
	ck_assert_msg(fabs((double)u64_at(doc, "mix.classes.1.timeouts") -
			   0.1 * (double)to) <=
			  4.4172 * sqrt(0.09 * (double)to) + 1,
		      "%s: class 1 has %llu of %llu time-outs", what,
		      (unsigned long long)u64_at(doc, "mix.classes.1.timeouts"),
		      (unsigned long long)to);
	json_array_foreach(harness_json_at(doc, "mix.classes"), i, c)
	{
		uint64_t rq = (uint64_t)json_integer_value(
		    json_object_get(c, "request_size"));
		uint64_t rs = (uint64_t)json_integer_value(
		    json_object_get(c, "response_size"));

		ck_assert_uint_eq((uint64_t)json_integer_value(
				      json_object_get(c, "bytes_sent")) %
				      rq,
				  0);
		ck_assert_uint_eq((uint64_t)json_integer_value(
				      json_object_get(c, "bytes_received")) %
				      rs,
				  0);
		ck_assert_uint_ge((uint64_t)json_integer_value(
				      json_object_get(c, "bytes_received")),
				  rs * (uint64_t)json_integer_value(
					   json_object_get(c, "transactions")));
	}
	json_decref(doc);
}

START_TEST(class_timeouts)
{
	const char *udp_flows[] = {"-t",	"UDP_RR", "-l",	       "3",
				   "-D",	"0.5",	  "--timeout", "50",
				   "--streams", "200",	  "--threads", "2",
				   "--",	"-r",	  MIX_90_10,   NULL};
	const char *tcp_flows[] = {
	    "-t",	 "TCP_RR", "-l",     "3",    "-D",	  "0.5",
	    "--timeout", "50",	   "--rate", "4000", "--streams", "200",
	    "--threads", "2",	   "--",     "-r",   MIX_90_10,	  NULL};
	const char *udp_streams[] = {"-t",	  "UDP_RR", "-l",	 "3",
				     "-D",	  "0.5",    "--timeout", "50",
				     "--streams", "2",	    "--",	 "-r",
				     MIX_90_10,	  "-b",	    "3",	 NULL};

	class_timeouts_run(udp_flows, "UDP_RR flows --timeout 50");
	class_timeouts_run(tcp_flows, "TCP_RR flows --rate --timeout 50");
	class_timeouts_run(udp_streams, "UDP_RR --streams 2 --timeout 50");
}
END_TEST

/* A '/'-joined list of counts (MIX_TIMEOUTS, MIX_LATE_ANSWERS) into v
 * (n of them, at most 8); returns their sum. */
static unsigned long long
slash_list(const char *list, unsigned long long *v, int *n)
{
	char w[128], *p, *save = NULL;
	unsigned long long sum = 0;

	snprintf(w, sizeof(w), "%s", list);
	*n = 0;
	for (p = strtok_r(w, "/", &save); p != NULL && *n < 8;
	     p = strtok_r(NULL, "/", &save)) {
		v[(*n)++] = strtoull(p, NULL, 10);
		sum += v[*n - 1];
	}
	return sum;
}

/* The -k keys of -D's intervals (--interval-lines): every interval's
 * NETPERF_INTERIM_CLASS_LATE_ANSWERS add up to its
 * NETPERF_INTERIM_LATE_ANSWERS, and over the intervals to each class's
 * MIX_LATE_ANSWERS (cls, n of them) and to LATE_ANSWERS (total). */
static void
interval_late_keys_ok(const char *out, const unsigned long long *cls, int n,
		      unsigned long long total)
{
	unsigned long long byiv[8] = {0}, all = 0, v[8], s;
	char key[64], val[128], list[128];
	int iv, k, m;

	for (iv = 0;; iv++) {
		snprintf(key, sizeof(key), "NETPERF_INTERIM_LATE_ANSWERS[%d]",
			 iv);
		if (harness_keyval(out, key, val, sizeof(val)) != 0)
			break;
		snprintf(key, sizeof(key),
			 "NETPERF_INTERIM_CLASS_LATE_ANSWERS[%d]", iv);
		ck_assert_msg(harness_keyval(out, key, list, sizeof(list)) == 0,
			      "no %s: %.3000s", key, out);
		for (k = 0; list[k] != '\0'; k++)
			if (list[k] == ',')
				list[k] = '/';
		s = slash_list(list, v, &m);
		ck_assert_int_eq(m, n);
		ck_assert_msg(s == strtoull(val, NULL, 10),
			      "interval %d: classes' late answers %s, the "
			      "interval's %s",
			      iv, list, val);
		for (k = 0; k < n; k++)
			byiv[k] += v[k];
		all += s;
	}
	ck_assert_msg(iv >= 3, "%d intervals with late answers: %.3000s", iv,
		      out);
	ck_assert_msg(all == total,
		      "the intervals' late answers add up to %llu, "
		      "LATE_ANSWERS is %llu",
		      all, total);
	for (k = 0; k < n; k++)
		ck_assert_msg(byiv[k] == cls[k],
			      "class %d: the intervals' late answers add up "
			      "to %llu, MIX_LATE_ANSWERS has %llu",
			      k, byiv[k], cls[k]);
}

/* Token i (from 0) of the line that starts at line, split at blanks;
 * the number it reads. */
static unsigned long long
row_field(const char *line, int i)
{
	const char *p = line;

	for (int k = 0;; k++) {
		p += strspn(p, " ");
		ck_assert_msg(*p != '\n' && *p != '\0', "short row: %.200s",
			      line);
		if (k == i)
			return strtoull(p, NULL, 10);
		p += strcspn(p, " \n");
	}
}

/*
 * The table of a 90/10 UDP_RR mix under --timeout with --interval-lines:
 * its Late column's class rows add up to the sum row's, which the
 * interval lines' "late N" add up to, and each class's " late N" over
 * the intervals to its row's. Returns the sum row's late answers.
 */
static unsigned long long
table_late_ok(const char *out)
{
	const char *row = strstr(out, "Time-outs  Late       P50"), *p;
	unsigned long long late[2], sum, byiv[2] = {0, 0}, all = 0, v;
	char pat[16];
	int k, lines = 0;

	ck_assert_msg(row != NULL, "no Late column: %.3000s", out);
	row = strchr(row, '\n') + 1; /* the units */
	row = strchr(row, '\n') + 1;
	/* Class Weight Req. Resp. Requests Trans. Rate Sent Received
	 * Time-outs Late ... */
	for (k = 0; k < 2; k++) {
		ck_assert_uint_eq(row_field(row, 0), (unsigned long long)k);
		late[k] = row_field(row, 10);
		row = strchr(row, '\n') + 1;
	}
	ck_assert_msg(strncmp(row, "Sum   100", 9) == 0, "%.3000s", out);
	/* Sum 100 Requests Trans. Rate Sent Received Time-outs Late */
	sum = row_field(row, 8);
	ck_assert_msg(sum == late[0] + late[1],
		      "the Late column: %llu + %llu, the sum row %llu", late[0],
		      late[1], sum);
	for (p = out; (p = strstr(p, "interval ")) != NULL; p++) {
		const char *end = strchr(p, '\n'), *q;

		if (p != out && p[-1] != '\n')
			continue;
		q = strstr(p, "  late ");
		ck_assert_msg(
		    q != NULL && q < end && sscanf(q, "  late %llu", &v) == 1,
		    "an interval line without its late answers: %.300s", p);
		all += v;
		for (k = 0; k < 2; k++) {
			snprintf(pat, sizeof(pat), "  class%d ", k);
			q = strstr(p, pat);
			ck_assert(q != NULL && q < end);
			q = strstr(q, " late ");
			ck_assert(q != NULL && q < end &&
				  sscanf(q, " late %llu", &v) == 1);
			byiv[k] += v;
		}
		lines++;
	}
	ck_assert_int_ge(lines, 3);
	ck_assert_msg(all == sum,
		      "the interval lines' late answers add up to %llu, the "
		      "sum row has %llu",
		      all, sum);
	for (k = 0; k < 2; k++)
		ck_assert_msg(byiv[k] == late[k],
			      "class %d: the interval lines' late answers add "
			      "up to %llu, its row has %llu",
			      k, byiv[k], late[k]);
	return sum;
}

/* MIX_TIMEOUTS and MIX_LATE_ANSWERS: each class's time-outs and late
 * answers, '/' between them, which add up to TIMEOUTS and LATE_ANSWERS,
 * in the totals and in every interval's keys; and the table's columns of
 * them, each with netserver stopped for 300 ms. */
START_TEST(class_timeouts_selector)
{
	const char *k[] = {
	    "-H",
	    "127.0.0.1",
	    "-p",
	    harness_port,
	    "-t",
	    "UDP_RR",
	    "-l",
	    "3",
	    "-D",
	    "0.5",
	    "--interval-lines",
	    "--timeout",
	    "50",
	    "--streams",
	    "200",
	    "--threads",
	    "2",
	    "--",
	    "-r",
	    MIX_90_10,
	    "-k",
	    "MIX_TIMEOUTS,TIMEOUTS,MIX_LATE_ANSWERS,LATE_ANSWERS",
	    NULL};
	const char *table[] = {"-H",
			       "127.0.0.1",
			       "-p",
			       harness_port,
			       "-t",
			       "UDP_RR",
			       "-l",
			       "3",
			       "-D",
			       "0.5",
			       "--interval-lines",
			       "--timeout",
			       "50",
			       "--streams",
			       "2",
			       "--",
			       "-r",
			       MIX_90_10,
			       NULL};
	struct harness_out o;
	char v[128], t[64], lv[128], lt[64];
	unsigned long long cls[8], sum;
	int n;

	stalled_netperf(k, &o);
	ck_assert(harness_keyval(o.out, "MIX_TIMEOUTS", v, sizeof(v)) == 0);
	ck_assert(harness_keyval(o.out, "TIMEOUTS", t, sizeof(t)) == 0);
	ck_assert_msg(strchr(v, '/') != NULL &&
			  strchr(v, '/') == strrchr(v, '/'),
		      "MIX_TIMEOUTS=%s", v);
	sum = slash_list(v, cls, &n);
	ck_assert_msg(sum == strtoull(t, NULL, 10) && sum > 0,
		      "MIX_TIMEOUTS=%s, TIMEOUTS=%s", v, t);
	ck_assert(harness_keyval(o.out, "MIX_LATE_ANSWERS", lv, sizeof(lv)) ==
		  0);
	ck_assert(harness_keyval(o.out, "LATE_ANSWERS", lt, sizeof(lt)) == 0);
	sum = slash_list(lv, cls, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_msg(sum == strtoull(lt, NULL, 10) && sum > 0,
		      "MIX_LATE_ANSWERS=%s, LATE_ANSWERS=%s", lv, lt);
	interval_late_keys_ok(o.out, cls, n, sum);

	stalled_netperf(table, &o);
	ck_assert_msg(table_late_ok(o.out) > 0, "no late answer: %.3000s",
		      o.out);
}
END_TEST

/* Three classes, one of equal sizes to another's request: netserver
 * tells them apart by the class byte, and each answer has its class's
 * size (the bytes received are the responses' sizes times the counts). */
START_TEST(three_classes_same_request)
{
	const char *tcp[] = {"-t", "TCP_RR", "-l",
			     "1",  "-D",     "0.5",
			     "--", "-r",     "50%100,10/30%100,3000/20%7",
			     NULL};
	const char *udp[] = {"-t", "UDP_RR", "-l",
			     "1",  "-D",     "0.5",
			     "--", "-r",     "50%100,10/30%100,3000/20%9",
			     NULL};
	const char *const *runs[] = {tcp, udp};
	struct harness_out o;
	json_t *doc, *c;
	size_t i;
	uint64_t n = 0;

	for (int r = 0; r < 2; r++) {
		doc = run_json(runs[r], &o);
		n = 0;
		json_array_foreach(harness_json_at(doc, "mix.classes"), i, c)
		{
			ck_assert_uint_eq(
			    (uint64_t)json_integer_value(
				json_object_get(c, "bytes_received")),
			    (uint64_t)json_integer_value(
				json_object_get(c, "transactions")) *
				(uint64_t)json_integer_value(
				    json_object_get(c, "response_size")));
			n += (uint64_t)json_integer_value(
			    json_object_get(c, "requests"));
		}
		binomial_ok(u64_at(doc, "mix.classes.1.requests"), n, 0.3,
			    r ? "UDP_RR class 1" : "TCP_RR class 1");
		binomial_ok(u64_at(doc, "mix.classes.2.requests"), n, 0.2,
			    r ? "UDP_RR class 2" : "TCP_RR class 2");
		same_bytes(doc, u64_at(doc, "local.counts.bytes_sent"),
			   u64_at(doc, "local.counts.bytes_recv"),
			   r ? "UDP_RR" : "TCP_RR");
		json_decref(doc);
	}
}
END_TEST

/* The same seed draws the same classes: two runs of 3000 transactions
 * with --mix-seed 42 count the same requests in each class, the seed is
 * the one printed, and a third run's selectors say the same. */
START_TEST(seed_repeats)
{
	const char *args[] = {"-t",    "TCP_RR",     "-l",
			      "-3000", "--mix-seed", "42",
			      "--",    "-r",	     "70%10/20%20/10%30",
			      NULL};
	struct harness_out o;
	json_t *a = run_json(args, &o), *b = run_json(args, &o);
	char path[64];

	ck_assert_str_eq(json_string_value(harness_json_at(a, "mix.seed")),
			 "42");
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "mix.classes.%d.requests", k);
		ck_assert_uint_eq(u64_at(a, path), u64_at(b, path));
	}
	ck_assert_uint_eq(u64_at(a, "local.counts.transactions"), 3000);
	json_decref(b);
	/* The selectors of the same draws: the mix as written, the seed,
	 * and each class's transactions as the JSON has them. */
	{
		const char *k[] = {"-H",
				   "127.0.0.1",
				   "-p",
				   harness_port,
				   "-t",
				   "TCP_RR",
				   "-l",
				   "-3000",
				   "--mix-seed",
				   "42",
				   "--",
				   "-r",
				   "70%10/20%20/10%30",
				   "-k",
				   "MIX_CLASSES,MIX_SEED,MIX_TRANSACTIONS,"
				   "MIX_P99_LATENCY",
				   NULL};
		char v[128], want[128];

		ck_assert_int_eq(harness_netperf(k, 60, &o), 0);
		ck_assert_msg(o.status == 0, "%s", o.err);
		ck_assert(harness_keyval(o.out, "MIX_CLASSES", v, sizeof(v)) ==
			  0);
		ck_assert_str_eq(v, "70%10,10/20%20,20/10%30,30");
		ck_assert(harness_keyval(o.out, "MIX_SEED", v, sizeof(v)) == 0);
		ck_assert_str_eq(v, "42");
		ck_assert(harness_keyval(o.out, "MIX_TRANSACTIONS", v,
					 sizeof(v)) == 0);
		snprintf(
		    want, sizeof(want), "%llu/%llu/%llu",
		    (unsigned long long)u64_at(a, "mix.classes.0.transactions"),
		    (unsigned long long)u64_at(a, "mix.classes.1.transactions"),
		    (unsigned long long)u64_at(a,
					       "mix.classes.2.transactions"));
		ck_assert_str_eq(v, want);
		ck_assert(harness_keyval(o.out, "MIX_P99_LATENCY", v,
					 sizeof(v)) == 0);
		ck_assert_msg(strchr(v, '/') != strrchr(v, '/') &&
				  strtod(v, NULL) > 0,
			      "%s", v);
	}
	json_decref(a);
}
END_TEST

/* The readable forms: a row a class and the sum in the table, the
 * classes in every --interval-lines line and -k's interim lines. */
START_TEST(readable_rows)
{
	const char *table[] = {"-H",
			       "127.0.0.1",
			       "-p",
			       harness_port,
			       "-t",
			       "TCP_RR",
			       "-l",
			       "1",
			       "-D",
			       "0.5",
			       "--interval-lines",
			       "--mix-seed",
			       "7",
			       "--",
			       "-r",
			       MIX_90_10,
			       NULL};
	const char *keyval[] = {"-H",
				"127.0.0.1",
				"-p",
				harness_port,
				"-t",
				"UDP_RR",
				"-l",
				"1",
				"-D",
				"0.5",
				"--interval-lines",
				"--",
				"-r",
				MIX_90_10,
				"-k",
				"THROUGHPUT",
				NULL};
	struct harness_out o;

	ck_assert_int_eq(harness_netperf(table, 60, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(strstr(o.out, "Request mix, seed 7") != NULL &&
			  strstr(o.out, "\n0     90     64      1400") !=
			      NULL &&
			  strstr(o.out, "\n1     10     1400    64") != NULL &&
			  strstr(o.out, "\nSum   100") != NULL,
		      "%.3000s", o.out);
	ck_assert_msg(harness_text_count(o.out, "  class0 ") >= 2 &&
			  harness_text_count(o.out, "  class1 ") ==
			      harness_text_count(o.out, "  class0 "),
		      "%.3000s", o.out);
	ck_assert_int_eq(harness_netperf(keyval, 60, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(
	    strstr(o.out, "NETPERF_INTERIM_CLASS_TRANS[0]=") != NULL &&
		strstr(o.out, "NETPERF_INTERIM_CLASS_P99_LATENCY[1]=") !=
		    NULL &&
		strstr(o.out, "NETPERF_INTERIM_CLASS_TIMEOUTS[1]=0,0\n") !=
		    NULL,
	    "%.3000s", o.out);
}
END_TEST

/* The lines of text. */
static int
lines(const char *text)
{
	int n = 0;

	for (; *text != '\0'; text++)
		n += *text == '\n';
	return n;
}

/* Each mix netperf refuses: exit 2 and one line naming the problem. */
START_TEST(usage_errors)
{
	static const struct {
		const char *args[12];
		const char *says;
	} bad[] = {
	    {{"-t", "TCP_RR", "--", "-r", "90%64,1400/5%1400,64"},
	     "add up to 95%, not 100%"},
	    {{"-t", "TCP_RR", "--", "-r", "90%64/10%"}, "needs a request size"},
	    {{"-t", "TCP_RR", "--", "-r", "0%64/100%1"},
	     "the weight is a percent"},
	    {{"-t", "TCP_RR", "--", "-r", "90%64//10%1"}, "is empty"},
	    {{"-t", "TCP_RR", "--", "-r", "50%0/50%1"}, "at least 1 byte"},
	    {{"-t", "TCP_RR", "--", "-r",
	      "10%1/10%1/10%1/10%1/10%1/10%1/10%1/10%1/10%1/10%1"},
	     "at most 8 classes"},
	    {{"-t", "TCP_CRR", "--", "-r", MIX_90_10},
	     "TCP_RR and UDP_RR only"},
	    {{"-t", "TCP_STREAM", "--", "-r", MIX_90_10},
	     "TCP_RR and UDP_RR only"},
	    {{"-t", "TCP_RR", "--one-way", "--", "-r", MIX_90_10}, "--one-way"},
	    {{"-t", "UDP_RR", "--timestamps", "--", "-r", MIX_90_10},
	     "--timestamps"},
	    {{"-t", "TCP_RR", "--legacy", "--", "-r", MIX_90_10}, "--legacy"},
	    {{"-t", "TCP_RR", "--mix-seed", "5"}, "needs a request mix"},
	    {{"-t", "TCP_RR", "--mix-seed", "x", "--", "-r", MIX_90_10},
	     "not a whole number"},
	    {{"-t", "UDP_RR", "--", "-r", "50%64,70000/50%64"},
	     "at most 65507 bytes"},
	};
	const char *argv[24];
	struct harness_out o;
	size_t i;
	int n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 0;
		argv[n++] = "-H";
		argv[n++] = "127.0.0.1";
		argv[n++] = "-p";
		argv[n++] = harness_port;
		for (int k = 0; bad[i].args[k] != NULL; k++)
			argv[n++] = bad[i].args[k];
		argv[n] = NULL;
		ck_assert_int_eq(harness_netperf(argv, 30, &o), 0);
		ck_assert_msg(o.status == 2 && strstr(o.err, bad[i].says) &&
				  lines(o.err) == 1,
			      "case %zu: exit %d, stderr: %s", i, o.status,
			      o.err);
	}
}
END_TEST

/* The parser, as a pure function: what a mix is, what is not one, and
 * each way a mix is wrong. */
START_TEST(parser)
{
	struct mix m = {.seed = 5};
	char err[ERR_LEN];

	ck_assert_int_eq(mix_parse("64,1400", &m, err), 0);
	ck_assert_int_eq(m.n, 0); /* a plain -r pair leaves m alone */
	ck_assert_int_eq(mix_parse("90%64,1K/10%1400", &m, err), 1);
	ck_assert_int_eq(m.n, 2);
	ck_assert_uint_eq(m.seed, 5); /* --mix-seed stays */
	ck_assert(m.c[0].req == 64 && m.c[0].rsp == 1024);
	ck_assert(m.c[1].req == 1400 && m.c[1].rsp == 1400);
	ck_assert_int_eq(mix_parse("33.3%1/33.3%2/33.4%3", &m, err), 1);
	ck_assert_int_eq(m.n, 3);
	ck_assert_int_eq(mix_parse("100%7,9", &m, err), 1);
	ck_assert_int_eq(mix_parse("90%64/10.1%1", &m, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "100.1%"));
	ck_assert_int_eq(mix_parse("90%64/%1", &m, err), -1);
	ck_assert_int_eq(mix_parse("90%64/10%1,", &m, err), 1);
	ck_assert_int_eq(mix_parse("90%64/10%,1", &m, err), -1);
	ck_assert_int_eq(mix_parse("90%64/10%1,2,3", &m, err), -1);
	ck_assert_int_eq(mix_parse("90%64/10%1/", &m, err), -1);
	ck_assert_int_eq(mix_parse("nan%64/10%1", &m, err), -1);
	ck_assert_int_eq(mix_parse("200%1/-100%1", &m, err), -1);
	ck_assert_int_eq(mix_parse("50%2G/50%1", &m, err), -1);
}
END_TEST

/* The draws: a class per weight, the same from the same seed, other
 * streams' apart; the class byte read back, and refused where it names
 * no class or (a datagram) its size is not the class's. */
START_TEST(draws_and_class_byte)
{
	struct mix m;
	char err[ERR_LEN], buf[8] = {0};
	uint64_t s0, s1, again, n[3] = {0, 0, 0};
	int i, same = 0;

	ck_assert_int_eq(mix_parse("60%10/30%20,5/10%30", &m, err), 1);
	m.seed = 1;
	s0 = mix_stream_seed(&m, 0);
	s1 = mix_stream_seed(&m, 1);
	ck_assert(s0 != s1 && s0 != 0 && s1 != 0);
	again = s0;
	for (i = 0; i < 100000; i++) {
		int c = mix_pick(&m, &s0);

		ck_assert(c >= 0 && c < 3);
		n[c]++;
		same += c == mix_pick(&m, &again);
	}
	ck_assert_int_eq(same, 100000);
	/* 99.9 % intervals of 60 000, 30 000 and 10 000. */
	ck_assert(fabs((double)n[0] - 60000) < 3.2905 * sqrt(24000.0));
	ck_assert(fabs((double)n[1] - 30000) < 3.2905 * sqrt(21000.0));
	ck_assert(fabs((double)n[2] - 10000) < 3.2905 * sqrt(9000.0));
	buf[2] = 1;
	ck_assert_int_eq(mix_class_of(&m, buf, 20, 2, 1), 1);
	ck_assert_int_eq(mix_class_of(&m, buf, 21, 2, 1), -1);
	ck_assert_int_eq(mix_class_of(&m, buf, 3, 2, 0), 1);
	ck_assert_int_eq(mix_class_of(&m, buf, 2, 2, 0), -1);
	buf[2] = 3;
	ck_assert_int_eq(mix_class_of(&m, buf, 30, 2, 0), -1);
	buf[2] = (char)0xff;
	ck_assert_int_eq(mix_class_of(&m, buf, 30, 2, 0), -1);
}
END_TEST

/* The request carries the classes' sizes, not the weights; netserver
 * refuses a class larger than the request's sizes say, or none. */
START_TEST(request_round_trip)
{
	struct test_params p, q;
	char err[ERR_LEN];
	json_t *msg, *bad;

	memset(&p, 0, sizeof(p));
	snprintf(p.test, sizeof(p.test), "TCP_RR");
	p.duration = 1;
	p.streams = 1;
	ck_assert_int_eq(mix_parse("90%64,1400/10%1400,64", &p.mix, err), 1);
	mix_max(&p.mix, &p.req_size, &p.rsp_size);
	msg = proto_request_pack(&p);
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), 0);
	ck_assert_int_eq(q.mix.n, 2);
	ck_assert(q.mix.c[1].req == 1400 && q.mix.c[1].rsp == 64);
	ck_assert(q.req_size == 1400 && q.rsp_size == 1400);
	json_object_set_new(msg, "rsp_size", json_integer(100));
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "mix class 1"));
	json_object_set_new(msg, "rsp_size", json_integer(1400));
	bad = json_array();
	json_object_set_new(msg, "mix", bad);
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), -1);
	json_object_set_new(msg, "mix", json_pack("[[1, 0]]"));
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), -1);
	json_object_set_new(msg, "mix", json_pack("[[1, 2, 3]]"));
	ck_assert_int_eq(proto_request_unpack(msg, &q, err), -1);
	json_decref(msg);
}
END_TEST

static Suite *
mix_suite(void)
{
	Suite *s = suite_create("mix");
	TCase *tc = tcase_create("units");

	tcase_add_test(tc, parser);
	tcase_add_test(tc, draws_and_class_byte);
	tcase_add_test(tc, request_round_trip);
	suite_add_tcase(s, tc);
	tc = tcase_create("loopback");

	tcase_add_checked_fixture(tc, harness_setup, harness_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tcp_rr_closed);
	tcase_add_test(tc, tcp_rr_streams_burst);
	tcase_add_test(tc, tcp_rr_open);
	tcase_add_test(tc, udp_rr_closed);
	tcase_add_test(tc, udp_rr_open);
	tcase_add_loop_test(
	    tc, flows_mix, 0,
	    (int)(sizeof(flows_cases) / sizeof(flows_cases[0])));
	tcase_add_test(tc, class_timeouts);
	tcase_add_test(tc, class_timeouts_selector);
	tcase_add_test(tc, three_classes_same_request);
	tcase_add_test(tc, seed_repeats);
	tcase_add_test(tc, readable_rows);
	tcase_add_test(tc, usage_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return harness_run(mix_suite());
}
