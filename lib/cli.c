#include "np/cli.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/fast.h"
#include "np/oneway.h"
#include "np/search.h"
#include "np/flows.h"
#include "np/mix.h"
#include "np/opt.h"
#include "np/transport.h"
#include "np/underload.h"
#include "np/tstamp.h"
#include "np/units.h"

/* The largest message or buffer size netperf will ask for: 1 GiB. */
#define CLI_SIZE_MAX ((int64_t)1 << 30)

int
cli_family(const char *s, int *family, char *err)
{
	if (strcmp(s, "4") == 0 || strcmp(s, "inet") == 0)
		*family = AF_INET;
	else if (strcmp(s, "6") == 0 || strcmp(s, "inet6") == 0)
		*family = AF_INET6;
	else if (strcmp(s, "0") == 0 || strcmp(s, "unspec") == 0)
		*family = AF_UNSPEC;
	else
		return err_set(err, "unknown address family \"%s\"", s);
	return 0;
}

/* "host[,family]" as -H and -L take it. */
static int
host_family(const char *arg, char opt, char *host, int *family, char *err)
{
	char a[CLI_HOST_LEN], b[CLI_HOST_LEN];

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0)
		return -1;
	if (a[0] != '\0')
		snprintf(host, CLI_HOST_LEN, "%s", a);
	if (b[0] != '\0' && cli_family(b, family, err) < 0)
		return err_set(err, "-%c: unknown address family \"%s\"", opt,
			       b);
	return 0;
}

/* A size option value, with the option letter in any error. */
static int
size_arg(const char *s, char opt, int64_t min, int64_t *out, char *err)
{
	char why[ERR_LEN];

	if (units_parse_size(s, CLI_SIZE_MAX, out, why) < 0)
		return err_set(err, "-%c: %s", opt, why);
	if (*out < min)
		return err_set(err, "-%c: \"%s\" is below the minimum of %lld",
			       opt, s, (long long)min);
	return 0;
}

/* "x[,y]" of sizes; an empty part leaves its value alone. */
static int
size_pair(const char *arg, char opt, int64_t min, int64_t *x, int64_t *y,
	  int both, char *err)
{
	char a[64], b[64];

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0)
		return err_set(err, "-%c: \"%s\" is not a size pair", opt, arg);
	if (a[0] == '\0' && b[0] == '\0')
		return err_set(err, "-%c needs a value", opt);
	if (a[0] != '\0' && size_arg(a, opt, min, x, err) < 0)
		return -1;
	if (b[0] != '\0' && size_arg(b, opt, min, y, err) < 0)
		return -1;
	if (both && b[0] == '\0' && strchr(arg, ',') == NULL)
		*y = *x;
	return 0;
}

static int
buf_pair(const char *arg, char opt, int *x, int *y, char *err)
{
	int64_t a = *x, b = *y;

	if (size_pair(arg, opt, 0, &a, &b, 1, err) < 0)
		return -1;
	if (a > INT32_MAX / 2 || b > INT32_MAX / 2)
		return err_set(err, "-%c: \"%s\" is too large", opt, arg);
	*x = (int)a;
	*y = (int)b;
	return 0;
}

static int
port_pair(const char *arg, char opt, int *x, int *y, int both, char *err)
{
	char a[64], b[64];
	int64_t v;

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 ||
	    (a[0] == '\0' && b[0] == '\0'))
		return err_set(err, "-%c: \"%s\" is not a port", opt, arg);
	if (a[0] != '\0') {
		if (units_parse_int(a, 0, 65535, &v, err) < 0)
			return err_set(
			    err, "-%c: \"%s\" is not a port 0..65535", opt, a);
		*x = (int)v;
		if (both && strchr(arg, ',') == NULL)
			*y = (int)v;
	}
	if (b[0] != '\0') {
		if (units_parse_int(b, 0, 65535, &v, err) < 0)
			return err_set(
			    err, "-%c: \"%s\" is not a port 0..65535", opt, b);
		*y = (int)v;
	}
	return 0;
}

/* -T lcpu[,rcpu]: one value binds both, "l," only netperf, ",r" only
 * netserver. */
static int
split_cpus(const char *arg, struct netperf_opts *o, char *err)
{
	if (units_split_pair(arg, o->lcpu, o->rcpu, sizeof(o->lcpu), err) < 0)
		return err_set(err, "-T: \"%s\" is too long", arg);
	if (o->lcpu[0] == '\0' && o->rcpu[0] == '\0')
		return err_set(err, "-T needs a CPU");
	/* As netperf's break_args: one value binds both sides. */
	if (strchr(arg, ',') == NULL)
		snprintf(o->rcpu, sizeof(o->rcpu), "%s", o->lcpu);
	return 0;
}

/* Drops one trailing 's' (seconds) after a digit: "300s" is what 2.7's
 * atof() and convert() read as 300, and what was meant. */
static void
drop_seconds(char *a)
{
	size_t n = strlen(a);

	if (n > 1 && a[n - 1] == 's' && isdigit((unsigned char)a[n - 2]))
		a[n - 1] = '\0';
}

/* -D secs[,units]: the units part (netperf's first guess of work per
 * interval) is accepted and not needed: intervals here are timed. */
static int
interim_arg(const char *arg, struct netperf_opts *o, char *err)
{
	char a[64], b[64], why[ERR_LEN];
	double d;

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0)
		return err_set(err, "-D: \"%s\" is not an interval in seconds",
			       arg);
	drop_seconds(a);
	if (units_parse_double(a, -INFINITY, INFINITY, &d, why) < 0)
		return err_set(err, "-D: \"%s\" is not an interval in seconds",
			       arg);
	if (fabs(d) > 86400)
		return err_set(err,
			       "-D: \"%s\" is over a day (86400 s), the "
			       "longest interval",
			       arg);
	if (d < 0)
		d = -d;
	if (d < 0.001)
		return err_set(err, "-D: intervals shorter than 1 ms are "
				    "not reported");
	o->interim = d;
	return 0;
}

/* A run count of -i held to 2.7's 3..30. */
static int
runs_held(int v)
{
	return v < 3 ? 3 : v > 30 ? 30 : v;
}

/* -i max[,min], as 2.7's netsh.c: break_args ("-i 10" sets both), a max
 * below the min raised to it, then each held to 3..30, silently. */
static int
iterations_arg(const char *arg, struct netperf_opts *o, char *err)
{
	char a[32], b[32], why[ERR_LEN];
	int64_t v;

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 ||
	    (a[0] == '\0' && b[0] == '\0'))
		return err_set(err, "-i: \"%s\" is not max[,min]", arg);
	if (a[0] != '\0') {
		if (units_parse_int(a, 0, INT32_MAX, &v, why) < 0)
			return err_set(err, "-i: %s", why);
		o->iter_max = (int)v;
		if (strchr(arg, ',') == NULL)
			o->iter_min = o->iter_max;
	}
	if (b[0] != '\0') {
		if (units_parse_int(b, 0, INT32_MAX, &v, why) < 0)
			return err_set(err, "-i: %s", why);
		o->iter_min = (int)v;
	}
	if (o->iter_max < o->iter_min)
		o->iter_max = o->iter_min;
	o->iter_max = runs_held(o->iter_max);
	o->iter_min = runs_held(o->iter_min);
	if (o->conf_level == 0) {
		o->conf_level = 99;
		o->conf_width = 5;
	}
	return 0;
}

/* -I level[,width]: 95 or 99, and the full width in percent. */
static int
confidence_arg(const char *arg, struct netperf_opts *o, char *err)
{
	char a[32], b[32], why[ERR_LEN];
	int64_t v;
	double w;

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 || a[0] == '\0')
		return err_set(err, "-I: \"%s\" is not level[,width]", arg);
	if (units_parse_int(a, 0, 100, &v, why) < 0 || (v != 95 && v != 99)) {
		o->fatal_error = 1;
		return err_set(err, "-I: only 95%% and 99%% confidence levels "
				    "are supported");
	}
	o->conf_level = (int)v;
	/* As 2.7's break_args: "-I 95" sets the width to 95 too; "-I 95,"
	 * keeps the default 5. */
	o->conf_width = strchr(arg, ',') == NULL ? (double)v : 5;
	if (b[0] != '\0') {
		if (units_parse_double(b, 0.01, 100, &w, why) < 0)
			return err_set(err, "-I: %s", why);
		o->conf_width = w;
	}
	if (o->iter_max <= 1) {
		o->iter_max = 10;
		o->iter_min = 3;
	}
	return 0;
}

/* The DiffServ and TOS names 2.7's -Y takes (RFC 2474, RFC 1349), with
 * their IP_TOS byte. */
static const struct {
	const char *name;
	int tos;
} tos_names[] = {
    {"af11", 0x28}, {"af12", 0x30}, {"af13", 0x38},	 {"af21", 0x48},
    {"af22", 0x50}, {"af23", 0x58}, {"af31", 0x68},	 {"af32", 0x70},
    {"af33", 0x78}, {"af41", 0x88}, {"af42", 0x90},	 {"af43", 0x98},
    {"cs0", 0x00},  {"cs1", 0x20},  {"cs2", 0x40},	 {"cs3", 0x60},
    {"cs4", 0x80},  {"cs5", 0xa0},  {"cs6", 0xc0},	 {"cs7", 0xe0},
    {"ef", 0xb8},   {"be", 0x00},   {"lowdelay", 0x10}, {"throughput", 0x08},
    {"reliability", 0x04},
};

/* One -Y value: a name above, or a number (0x.. hex, 0.. octal, else
 * decimal, as strtol's base 0) from 0 to 255. */
static int
tos_value(const char *s, int *tos, char *err)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(tos_names) / sizeof(tos_names[0]); i++)
		if (strcasecmp(s, tos_names[i].name) == 0) {
			*tos = tos_names[i].tos;
			return 0;
		}
	errno = 0;
	v = strtol(s, &end, 0);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || v < 0 || v > 255)
		return err_set(err,
			       "-Y: \"%s\" is neither a DSCP name (EF, AF11..AF43, "
			       "CS0..CS7) nor a TOS byte 0..255",
			       s);
	*tos = (int)v;
	return 0;
}

static int
tos_pair(const char *arg, struct netperf_opts *o, char *err)
{
	char a[64], b[64];

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 ||
	    (a[0] == '\0' && b[0] == '\0'))
		return err_set(err, "-Y: \"%s\" is not local[,remote]", arg);
	if (a[0] != '\0' && tos_value(a, &o->lx.tos, err) < 0)
		return -1;
	if (a[0] != '\0' && strchr(arg, ',') == NULL)
		o->rx.tos = o->lx.tos;
	if (b[0] != '\0' && tos_value(b, &o->rx.tos, err) < 0)
		return -1;
	return 0;
}

/* -F local[,remote]: netperf reads the local file; the remote name is
 * accepted and never sent, netserver uses its own pattern. */
static int
fill_arg(const char *arg, struct netperf_opts *o, char *err)
{
	char a[CLI_PATH_LEN], b[CLI_PATH_LEN];

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 ||
	    (a[0] == '\0' && b[0] == '\0'))
		return err_set(err, "-F: \"%s\" is not lfile[,rfile]", arg);
	snprintf(o->fill_file, sizeof(o->fill_file), "%s", a);
	o->fill_remote = b[0] != '\0';
	return 0;
}

/* Whether host names this machine's loopback: localhost, 127/8, ::1. */
static int
is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (strcasecmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* Adds a line to o's warnings (the first CLI_WARN_MAX are kept). */
static void __attribute__((format(printf, 2, 3)))
cli_warn(struct netperf_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nwarn >= CLI_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(o->warn[o->nwarn++], sizeof(o->warn[0]), fmt, ap);
	va_end(ap);
}

/* -d as 2.7's parse_direction: words joined by '|' (send, xmit,
 * transmit, stream; recv, receive, maerts; rr) or a number. A word that
 * is neither 2.7 reads with strtol() as 0 and runs a send test
 * (PerfKitBenchmarker's "-d CRR"): so does this, and -t OMNI says so
 * (omni_module). */
static int
direction_arg(const char *arg, struct netperf_opts *o, char *err)
{
	char buf[128], *save = NULL, *w;
	int d = 0;

	if (strlen(arg) >= sizeof(buf) || arg[0] == '\0')
		return err_set(err, "-d: \"%s\" is not a direction", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	o->omni_dir_unknown[0] = '\0'; /* the last -d counts, as in 2.7 */
	for (w = strtok_r(buf, "|", &save); w != NULL;
	     w = strtok_r(NULL, "|", &save)) {
		char *end;
		long v;

		if (strcasecmp(w, "send") == 0 || strcasecmp(w, "xmit") == 0 ||
		    strcasecmp(w, "transmit") == 0 ||
		    strcasecmp(w, "stream") == 0)
			d |= CLI_DIR_XMIT;
		else if (strcasecmp(w, "recv") == 0 ||
			 strcasecmp(w, "receive") == 0 ||
			 strcasecmp(w, "maerts") == 0)
			d |= CLI_DIR_RECV;
		else if (strcasecmp(w, "rr") == 0)
			d |= CLI_DIR_XMIT | CLI_DIR_RECV;
		else {
			v = strtol(w, &end, 0);
			if (end == w) {
				/* No number at all: 2.7's 0. */
				if (o->omni_dir_unknown[0] == '\0')
					snprintf(o->omni_dir_unknown,
						 sizeof(o->omni_dir_unknown),
						 "%s", w);
				continue;
			}
			if (*end != '\0' || v < 0 ||
			    (v & ~(CLI_DIR_XMIT | CLI_DIR_RECV)) != 0)
				return err_set(err,
					       "-d: \"%s\" is not send, recv, "
					       "rr, stream, maerts or 2, 4, 6",
					       w);
			d |= (int)v;
		}
	}
	o->omni_dir = d;
	o->omni_dir_set = 1;
	return 0;
}

static void
netperf_defaults(struct netperf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->host_family = AF_UNSPEC;
	o->port = 12865;
	snprintf(o->test, sizeof(o->test), "TCP_STREAM");
	o->duration = 10;
	o->headers = 1;
	o->verbosity = 1;
	o->family = AF_UNSPEC;
	o->lsndbuf = o->lrcvbuf = o->rsndbuf = o->rrcvbuf = -1;
	o->req_size = o->rsp_size = 1;
	o->data_family = AF_UNSPEC;
	o->streams = 1;
	o->batch = 1;
	o->iter_max = o->iter_min = 1;
	sock_extra_init(&o->lx);
	sock_extra_init(&o->rx);
	o->routing = -1;
}

/* Whole seconds and up to nine decimals, as exact nanoseconds; returns 0,
 * or -1 when s is not such a number. */
static int
parse_seconds_ns(const char *s, int64_t *out)
{
	int64_t whole = 0, frac = 0;
	int digits = 0, nfrac = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > (INT64_MAX / (int64_t)NS_PER_SEC - 9) / 10)
			return -1;
		whole = whole * 10 + (*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, nfrac++) {
			if (nfrac >= 9)
				return -1;
			frac = frac * 10 + (*s - '0');
		}
		if (nfrac == 0)
			return -1;
	}
	if (*s != '\0' || digits == 0)
		return -1;
	for (; nfrac < 9; nfrac++)
		frac *= 10;
	*out = whole * (int64_t)NS_PER_SEC + frac;
	return 0;
}

int
cli_start_at(const char *arg, int64_t now_ns, int64_t *out, char *err)
{
	const int64_t hour = (int64_t)3600 * (int64_t)NS_PER_SEC;
	int rel = arg[0] == '+';
	int64_t t;

	if (parse_seconds_ns(arg + rel, &t) < 0)
		return err_set(err,
			       "--start-at: \"%s\" is neither Unix seconds "
			       "(1767225600.25) nor +seconds from now",
			       arg);
	if (rel) {
		if (t == 0 || t > hour)
			return err_set(err,
				       "--start-at: %s must be more than 0 "
				       "and at most 3600 seconds from now",
				       arg);
		t += now_ns;
	}
	if (t <= now_ns)
		return err_set(err,
			       "--start-at: %s is %.3f s in the past (the "
			       "clock says %.3f)",
			       arg, (double)(now_ns - t) / 1e9,
			       (double)now_ns / 1e9);
	if (t - now_ns > hour)
		return err_set(err,
			       "--start-at: %s is %.0f s ahead; at most an "
			       "hour is allowed",
			       arg, (double)(t - now_ns) / 1e9);
	*out = t;
	return 0;
}

/* Where a field of netperf's and netserver's options is, for the tables. */
#define NP(f) OPT_AT(struct netperf_opts, f)
#define NS(f) OPT_AT(struct netserver_opts, f)

/* -H, -L host[,family] into the host at to and the family at to2. */
static int
h_host(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	(void)run;
	return host_family(arg, opt->letter, opt_field(dst, opt->to),
			   opt_field(dst, opt->to2), err);
}

/* -p port[,lport], test -P lport[,rport]: val says whether one value
 * sets both. */
static int
h_port(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	(void)run;
	return port_pair(arg, opt->letter, opt_field(dst, opt->to),
			 opt_field(dst, opt->to2), opt->val, err);
}

/* Text copied, cut to the buffer's size as netperf does with -B. */
static int
h_text(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	(void)run;
	(void)err;
	snprintf(opt_field(dst, opt->to), opt->len, "%s", arg);
	return 0;
}

/* An interface name (--ifstat, --wire=IF): no '/', so it cannot climb
 * out of /sys/class/net. */
static int
h_ifname(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	 char *err)
{
	char label[64];

	(void)run;
	if (arg[0] == '\0' || strlen(arg) >= IF_NAMESIZE ||
	    strchr(arg, '/') != NULL)
		return err_set(err, "%s: \"%s\" is not an interface name",
			       opt_label(opt, label), arg);
	snprintf(opt_field(dst, opt->to), IF_NAMESIZE, "%s", arg);
	return 0;
}

static int
g_test(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	struct netperf_opts *o = dst;

	(void)opt;
	(void)run;
	if (strlen(arg) >= sizeof(o->test))
		return err_set(err, "-t: test name too long");
	snprintf(o->test, sizeof(o->test), "%s", arg);
	for (char *s = o->test; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
	return 0;
}

static int
g_length(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	 char *err)
{
	struct netperf_opts *o = dst;
	char why[ERR_LEN], num[64];
	double d;
	int64_t n;

	(void)opt;
	(void)run;
	/* As 2.7's convert(): "300s" is 300 seconds, "-1M" a count of
	 * 2^20. A multiplier on a time stays an error: 2.7 reads "-l 5m"
	 * as five million seconds. */
	snprintf(num, sizeof(num), "%s", arg);
	drop_seconds(num);
	if (num[0] == '-' &&
	    units_parse_count(num, -INT64_MAX, -1, &n, why) == 0 &&
	    strpbrk(num, "KMGkmgBb") != NULL) {
		o->count = -n;
		o->duration = 0;
		return 0;
	}
	if (units_parse_double(num, -1e15, 1e9, &d, why) < 0)
		return err_set(err, "-l: %s", why);
	if (d < 0) {
		if (d != (double)(int64_t)d)
			return err_set(err,
				       "-l: a count must be a whole number");
		o->count = (int64_t)-d;
		o->duration = 0;
		return 0;
	}
	/* netperf's "until interrupted" (0): an hour, the longest a
	 * default netserver allows; Ctrl-C ends it sooner, with results. */
	o->duration = d == 0 ? 3600 : d;
	o->count = 0;
	return 0;
}

/*
 * -v, -P and the global -b, which 2.7 reads with convert(): -P 2 is its
 * -P 1 (it tests for 0 alone); -v above 2 stays an error. A -b
 * too large for any pacing (Phoronix's "-b 10G", a rate to its author)
 * runs unpaced, as 2.7 built without --enable-intervals runs it. Each
 * says so in a warning.
 */
static int
g_level(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	char *err)
{
	struct netperf_opts *o = dst;
	char why[ERR_LEN];
	int64_t v;

	(void)run;
	if (units_parse_count(arg,
			      opt->letter == 'v'   ? 0
			      : opt->letter == 'P' ? INT32_MIN
						   : -INT64_MAX,
			      opt->letter == 'b' ? INT64_MAX : INT32_MAX, &v,
			      why) < 0)
		return err_set(err, "-%c: %s", opt->letter, why);
	switch (opt->letter) {
	case 'v':
		/* 2.7 prints no table above 2, only -v 2's blocks: not a
		 * level a script can read the same here. */
		if (v > 2)
			return err_set(
			    err,
			    "-v: \"%s\" is outside 0..2 (netperf 2.7 "
			    "prints -v 2's blocks alone there, "
			    "without the table)",
			    arg);
		o->verbosity = (int)v;
		break;
	case 'P':
		o->headers = v != 0;
		if (v != 0 && v != 1)
			cli_warn(o,
				 "-P %s: read as -P 1, as netperf 2.7 "
				 "reads any value but 0",
				 arg);
		break;
	default:
		if (v >= 1 && v <= CLI_BURST_MAX) {
			o->interval_burst = (int)v;
			break;
		}
		o->interval_burst = 0;
		cli_warn(o,
			 "-b %s: a burst of %lld sends is no pacing (netperf "
			 "2.7 without --enable-intervals ignores -b too), so "
			 "this runs unpaced; a rate is --rate",
			 arg, (long long)v);
		break;
	}
	return 0;
}

/* -c, -C: netperf's optional rate is eaten only when the next word
 * starts with a digit, and /proc/stat ignores it. */
static int
g_cpu(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
      char *err)
{
	(void)arg;
	(void)err;
	if (optind < run->argc && run->argv[optind][0] >= '0' &&
	    run->argv[optind][0] <= '9')
		optind++;
	*(int *)opt_field(dst, opt->to) = 1;
	return 0;
}

static int
g_fmt(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
      char *err)
{
	(void)opt;
	(void)run;
	if (strlen(arg) != 1 || units_label(arg[0]) == NULL)
		return err_set(err, "-f: \"%s\" is not one of G M K B g m k x",
			       arg);
	((struct netperf_opts *)dst)->fmt = arg[0];
	return 0;
}

/* The global options that take their value apart themselves. */
static int
g_parts(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	char *err)
{
	struct netperf_opts *o = dst;

	(void)run;
	switch (opt->letter) {
	case 'T':
		return split_cpus(arg, o, err);
	case 'D':
		return interim_arg(arg, o, err);
	case 'i':
		return iterations_arg(arg, o, err);
	case 'I':
		return confidence_arg(arg, o, err);
	case 'F':
		return fill_arg(arg, o, err);
	default:
		return tos_pair(arg, o, err);
	}
}

static int
g_wire(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	struct netperf_opts *o = dst;

	o->wire = 1;
	return arg != NULL ? h_ifname(opt, arg, dst, run, err) : 0;
}

static int
g_mptcp(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	char *err)
{
	struct netperf_opts *o = dst;

	(void)opt;
	(void)arg;
	(void)run;
	(void)err;
	snprintf(o->transport, sizeof(o->transport), "mptcp");
	return 0;
}

static int
g_auth(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	struct netperf_opts *o = dst;

	(void)opt;
	(void)run;
	if (arg[0] == '\0' || strlen(arg) >= sizeof(o->auth_file))
		return err_set(err, "--auth: bad key file name");
	snprintf(o->auth_file, sizeof(o->auth_file), "%s", arg);
	return 0;
}

/* netperf 2.7 cuts a longer passphrase to what fits in a message; we
 * refuse it instead. */
static int
g_passphrase(const struct opt *opt, const char *arg, void *dst,
	     struct opt_run *run, char *err)
{
	struct netperf_opts *o = dst;

	(void)opt;
	(void)run;
	if (arg[0] == '\0' || strlen(arg) >= sizeof(o->passphrase))
		return err_set(err, "-Z: a passphrase of 1 to %zu bytes",
			       sizeof(o->passphrase) - 1);
	snprintf(o->passphrase, sizeof(o->passphrase), "%s", arg);
	return 0;
}

static int
g_start_at(const struct opt *opt, const char *arg, void *dst,
	   struct opt_run *run, char *err)
{
	(void)opt;
	(void)run;
	return cli_start_at(arg, clock_real_ns(),
			    &((struct netperf_opts *)dst)->start_at_ns, err);
}

/* --under-load SPEC: the bulk flows of the loaded phase. */
static int
g_under_load(const struct opt *opt, const char *arg, void *dst,
	     struct opt_run *run, char *err)
{
	struct netperf_opts *o = dst;

	(void)opt;
	(void)run;
	return underload_parse(arg, &o->load_up, &o->load_down, err);
}

static int
g_rate(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	char why[ERR_LEN];

	(void)opt;
	(void)run;
	if (units_parse_rate(arg, &((struct netperf_opts *)dst)->rate, why) < 0)
		return err_set(err, "--rate: %s", why);
	return 0;
}

/* --search-precision PCT. */
static int
g_search_precision(const struct opt *opt, const char *arg, void *dst,
		   struct opt_run *run, char *err)
{
	(void)opt;
	(void)run;
	return search_precision_parse(
	    arg, &((struct netperf_opts *)dst)->search_precision, err);
}

/* --mix-seed N: the request mix's draws, as a run printed them. */
static int
g_mix_seed(const struct opt *opt, const char *arg, void *dst,
	   struct opt_run *run, char *err)
{
	struct netperf_opts *o = dst;
	unsigned long long v;
	char *end;

	(void)opt;
	(void)run;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (arg[0] == '\0' || arg[0] == '-' || *end != '\0' || errno != 0)
		return err_set(err,
			       "--mix-seed: \"%s\" is not a whole number "
			       "from 0 to 2^64 - 1",
			       arg);
	o->mix.seed = v;
	o->mix_seed_set = 1;
	return 0;
}

/* --arrivals poisson|fixed. */
static int
g_arrivals(const struct opt *opt, const char *arg, void *dst,
	   struct opt_run *run, char *err)
{
	struct netperf_opts *o = dst;

	(void)opt;
	(void)run;
	if (strcmp(arg, "poisson") == 0)
		o->arrivals = MODULE_ARRIVALS_POISSON;
	else if (strcmp(arg, "fixed") == 0)
		o->arrivals = MODULE_ARRIVALS_FIXED;
	else
		return err_set(err, "--arrivals: \"%s\" is neither poisson "
				    "nor fixed",
			       arg);
	o->arrivals_set = 1;
	return 0;
}

/* --timeout MS, kept in seconds. */
static int
g_timeout(const struct opt *opt, const char *arg, void *dst,
	  struct opt_run *run, char *err)
{
	char why[ERR_LEN];
	double ms;

	(void)opt;
	(void)run;
	if (units_parse_double(arg, 0.001, 3600000, &ms, why) < 0)
		return err_set(err, "--timeout: %s", why);
	((struct netperf_opts *)dst)->timeout = ms / 1e3;
	return 0;
}

/* netperf's options before "--", in the order of its usage text. */
static const struct opt global_opts[] = {
    {'H', NULL, required_argument, "host[,fam]",
     "netserver's host (localhost); fam 4 or 6", "Global options:", OPT_FN,
     .to = NP(host), .to2 = NP(host_family), .fn = h_host},
    {'L', NULL, required_argument, "host[,fam]",
     "local address of the control connection", NULL, OPT_FN, .to = NP(local),
     .to2 = NP(host_family), .fn = h_host},
    {'p', NULL, required_argument, "port[,lport]",
     "netserver's port (12865), local port", NULL, OPT_FN, .to = NP(port),
     .to2 = NP(lport), .fn = h_port},
    {'t', NULL, required_argument, "test",
     "TCP_STREAM (default), TCP_MAERTS, TCP_RR,\n"
     "TCP_CRR, TCP_CC, TCP_SENDFILE, TCP_MSS,\n"
     "UDP_STREAM, UDP_RR, UDP_CRR, OMNI",
     NULL, OPT_FN, .fn = g_test},
    {'l', NULL, required_argument, "secs",
     "test length; negative: bytes or transactions", NULL, OPT_FN,
     .fn = g_length},
    {'c', NULL, no_argument, "[rate]", "measure local CPU utilisation", NULL,
     OPT_FN, .to = NP(local_cpu), .fn = g_cpu},
    {'C', NULL, no_argument, "[rate]", "measure remote CPU utilisation", NULL,
     OPT_FN, .to = NP(remote_cpu), .fn = g_cpu},
    {'f', NULL, required_argument, "G|M|K|B|g|m|k|x",
     "output units (bytes, bits, trans)", NULL, OPT_FN, .fn = g_fmt},
    {'P', NULL, required_argument, "0|1", "no banner and titles, or with them",
     NULL, OPT_FN, .fn = g_level},
    {'v', NULL, required_argument, "0|1|2", "verbosity", NULL, OPT_FN,
     .fn = g_level},
    {'B', NULL, required_argument, "brand",
     "text appended to the result (with -P 0)", NULL, OPT_FN, .to = NP(brand),
     .len = sizeof(((struct netperf_opts *)0)->brand), .fn = h_text},
    {'T', NULL, required_argument, "lcpu[,rcpu]",
     "bind netperf's and netserver's test threads:\n"
     "a CPU number, core:N, pu:N, numa:N, package:N\n"
     "or auto (the CPUs near the NIC)",
     NULL, OPT_FN, .fn = g_parts},
    {'D', NULL, required_argument, "secs[,units]",
     "interim results every secs seconds", NULL, OPT_FN, .fn = g_parts},
    {'i', NULL, required_argument, "max[,min]",
     "repeat the test up to max (at least min) times", NULL, OPT_FN,
     .fn = g_parts},
    {'I', NULL, required_argument, "lvl[,width]",
     "...until the 95 or 99 % interval is width % wide", NULL, OPT_FN,
     .fn = g_parts},
    {'r', NULL, no_argument, NULL, "judge that interval on throughput only",
     NULL, OPT_FLAG, .to = NP(conf_result_only)},
    {'j', NULL, no_argument, NULL, "keep latency statistics (always kept here)",
     NULL, OPT_FLAG, .to = NP(keep_stats)},
    {'4', NULL, no_argument, NULL, "use IPv4", NULL, OPT_SET, .to = NP(family),
     .val = AF_INET},
    {'6', NULL, no_argument, NULL, "use IPv6", NULL, OPT_SET, .to = NP(family),
     .val = AF_INET6},
    {'d', NULL, no_argument, NULL, "debug output on stderr", NULL, OPT_COUNT,
     .to = NP(debug)},
    {'V', "version", no_argument, NULL, "print the version", NULL, OPT_FLAG,
     .to = NP(want_version)},
    {'h', "help", no_argument, NULL, "this help (exit status 1)", NULL,
     OPT_FLAG, .to = NP(want_help)},
    {'a', NULL, required_argument, "s[,r]", "local buffer alignment", NULL,
     OPT_PAIR, .to = NP(lbuf.salign), .to2 = NP(lbuf.ralign), .min = 1,
     .max = 65536},
    {'A', NULL, required_argument, "s[,r]", "remote buffer alignment", NULL,
     OPT_PAIR, .to = NP(rbuf.salign), .to2 = NP(rbuf.ralign), .min = 1,
     .max = 65536},
    {'o', NULL, required_argument, "s[,r]", "local buffer offset", NULL,
     OPT_PAIR, .to = NP(lbuf.soff), .to2 = NP(lbuf.roff), .min = 0,
     .max = 65536},
    {'O', NULL, required_argument, "s[,r]", "remote buffer offset", NULL,
     OPT_PAIR, .to = NP(rbuf.soff), .to2 = NP(rbuf.roff), .min = 0,
     .max = 65536},
    /* The send ring's width on each side (the receive width is
     * accepted: one buffer receives). */
    {'W', NULL, required_argument, "l[,r]", "send ring width", NULL, OPT_PAIR,
     .to = NP(lbuf.width), .to2 = NP(rbuf.width), .min = 1, .max = 64},
    {'k', NULL, required_argument, "n[,r]",
     "dirty words written before each send", NULL, OPT_PAIR,
     .to = NP(lbuf.dirty), .to2 = NP(rbuf.dirty), .min = 0, .max = 1 << 24},
    {'K', NULL, required_argument, "n[,r]", "clean words read before each send",
     NULL, OPT_PAIR, .to = NP(lbuf.clean), .to2 = NP(rbuf.clean), .min = 0,
     .max = 1 << 24},
    {'F', NULL, required_argument, "lfile[,rfile]",
     "fill netperf's buffers from lfile", NULL, OPT_FN, .fn = g_parts},
    /* Up to 50 s: netserver gives an idle control connection 60. */
    {'s', NULL, required_argument, "secs", "wait before the test", NULL,
     OPT_DOUBLE, .to = NP(wait), .min = 0, .max = 50},
    {'S', NULL, no_argument, NULL, "SO_KEEPALIVE on the data sockets", NULL,
     OPT_FLAG, .to = NP(lx.keepalive), .to2 = NP(rx.keepalive)},
    {'y', NULL, required_argument, "l[,r]", "SO_PRIORITY of the data sockets",
     NULL, OPT_PAIR, .to = NP(lx.prio), .to2 = NP(rx.prio), .min = 0,
     .max = 255},
    {'Y', NULL, required_argument, "l[,r]",
     "IP_TOS: EF, AF11..AF43, CS0..CS7 or 0..255", NULL, OPT_FN, .fn = g_parts},
    {'w', NULL, required_argument, "ms",
     "pace the sends: a burst every ms milliseconds", NULL, OPT_DOUBLE,
     .to = NP(interval_ms), .min = 0.001, .max = 3600000},
    {'b', NULL, required_argument, "n", "...of n sends", NULL, OPT_FN,
     .fn = g_level},
    /* As 2.7 on Linux: the CPU count comes from the system. */
    {'n', NULL, required_argument, "ncpu", "ignored, as netperf 2.7 on Linux",
     NULL, OPT_INT, .min = 1, .max = 1 << 20},
    {'N', NULL, no_argument, NULL,
     "no netserver: test against discard, chargen or echo", NULL, OPT_FLAG,
     .to = NP(no_control)},
    {'Z', NULL, required_argument, "passphrase",
     "authenticate (a key derived from it); with\n"
     "--legacy, 2.7's passphrase, sent in plain text",
     NULL, OPT_FN, .fn = g_passphrase},
    {0, "streams", required_argument, "n", "n parallel data connections", NULL,
     OPT_INT, .to = NP(streams), .min = 1, .max = FLOWS_MAX},
    {0, "bidir", no_argument, NULL,
     "TCP_STREAM, UDP_STREAM: as many again the other\n"
     "way, at the same time",
     NULL, OPT_FLAG, .to = NP(bidir)},
    {0, "rate", required_argument, "bits/s",
     "UDP_STREAM: offer this rate per stream;\n"
     "TCP_RR, UDP_RR, TCP_CRR, UDP_CRR: transactions/s\n"
     "over all streams, open loop (k, M, G: 10^3,\n"
     "10^6, 10^9)",
     NULL, OPT_FN, .fn = g_rate},
    {0, "batch", required_argument, "n", "send and receive n datagrams a call",
     NULL, OPT_INT, .to = NP(batch), .min = 1, .max = FAST_BATCH_MAX},
    {0, "udp-gso", no_argument, NULL, "UDP_STREAM: send with UDP_SEGMENT", NULL,
     OPT_FLAG, .to = NP(udp_gso)},
    {0, "udp-gro", no_argument, NULL, "UDP_STREAM: netserver receives with GRO",
     NULL, OPT_FLAG, .to = NP(udp_gro)},
    {0, "zerocopy", no_argument, NULL, "send with MSG_ZEROCOPY", NULL, OPT_FLAG,
     .to = NP(zerocopy)},
    {0, "busy-poll", required_argument, "usec",
     "SO_BUSY_POLL on the data sockets", NULL, OPT_INT, .to = NP(busy_poll),
     .min = 1, .max = 1000000},
    {'J', "json", no_argument, NULL, "one JSON document instead of tables",
     NULL, OPT_FLAG, .to = NP(json)},
    {0, "json-stream", no_argument, NULL,
     "JSON lines: interim results, then the document", NULL, OPT_FLAG,
     .to = NP(json_stream)},
    {0, "interim-tcp", no_argument, NULL,
     "with -D, both ends' TCP_INFO under each interim\nline", NULL, OPT_FLAG,
     .to = NP(interim_tcp)},
    {0, "wire", optional_argument, "[=IF]",
     "count the data flow's packets with libpcap on\n"
     "both sides (needs CAP_NET_RAW)",
     NULL, OPT_FN, .to = NP(wire_if), .fn = g_wire},
    {0, "sweep", required_argument, "p=v,...",
     "one run per value of m, r, s or streams", NULL, OPT_STRING,
     .to = NP(sweep), .len = sizeof(((struct netperf_opts *)0)->sweep)},
    {0, "plot", required_argument, "FILE",
     "draw the sweep, or a -D run, with gnuplot\n"
     "(.svg or .png)",
     NULL, OPT_STRING,
     .to = NP(plot), .len = sizeof(((struct netperf_opts *)0)->plot)},
    {0, "compare", required_argument, "OLD NEW",
     "compare two sets of JSON results (files or\n"
     "directories): means, 95 % intervals, change,\n"
     "Mann-Whitney p; with --alpha A, --force,\n"
     "--json, --plot FILE",
     NULL, OPT_ELSEWHERE, .to = 0},
    {0, "ifstat", required_argument, "IF",
     "watch IF's packet and byte rates (-D, -l)", NULL, OPT_FN,
     .to = NP(ifstat), .fn = h_ifname},
    {0, "auth", required_argument, "KEYFILE",
     "prove the shared secret netserver asks for\n"
     "(or NETPERF_AUTH_KEY)",
     NULL, OPT_FN, .fn = g_auth},
    {0, "legacy", no_argument, NULL,
     "speak netperf 2.7's protocol (a 2.7 netserver)", NULL, OPT_FLAG,
     .to = NP(legacy)},
    {0, "start-at", required_argument, "TIME",
     "begin the measured interval at TIME: Unix\n"
     "seconds (1767225600.5) or +S from now",
     NULL, OPT_FN, .fn = g_start_at},
    {0, "merge", required_argument, "FILE...",
     "merge --json results exactly (-P, -v, --json,\n"
     "--max-skew, --plot FILE, -- -o/-O/-k)",
     NULL, OPT_ELSEWHERE, .to = 0},
    {0, "max-skew", required_argument, "SECS",
     "--merge: warn above this start skew (0.01)", NULL, OPT_ELSEWHERE,
     .to = 0},
    {0, "completion", required_argument, "bash",
     "print a shell completion script (alone)", NULL, OPT_ELSEWHERE, .to = 0},
    {0, "mptcp", no_argument, NULL, "TCP tests: the data connections are MPTCP",
     NULL, OPT_FN, .fn = g_mptcp},
    {0, "skip-rx-copy", no_argument, NULL,
     "TCP_STREAM, TCP_MAERTS: receive with MSG_TRUNC\n"
     "(the kernel drops the data uncopied)",
     NULL, OPT_FLAG, .to = NP(skip_rx_copy)},
    {0, "one-way", no_argument, NULL,
     "TCP_RR, UDP_RR: each direction's delay (the\n"
     "hosts' clocks in sync; -r 16,32 at least)",
     NULL, OPT_FLAG, .to = NP(one_way)},
    {0, "arrivals", required_argument, "poisson|fixed",
     "--rate on RR tests: exponential (default) or\n"
     "constant gaps between requests",
     NULL, OPT_FN, .fn = g_arrivals},
    {0, "timeout", required_argument, "ms",
     "RR tests: an answer later than this (or none)\n"
     "is a time-out",
     NULL, OPT_FN, .fn = g_timeout},
    {0, "reconnect", no_argument, NULL,
     "UDP_RR, TCP_CRR: a stream goes on after a\n"
     "connection error (else it ends)",
     NULL, OPT_FLAG, .to = NP(reconnect)},
    {0, "interval-lines", no_argument, NULL,
     "with -D, one readable line per interval (rate,\n"
     "latency percentiles, retransmits, srtt)",
     NULL, OPT_FLAG, .to = NP(interval_lines)},
    {0, "under-load", required_argument, "up=N,down=N",
     "TCP_RR, UDP_RR: the probe alone, then beside\n"
     "N bulk flows up (TCP_STREAM) and down (TCP_MAERTS)",
     NULL, OPT_FN, .fn = g_under_load},
    {0, "timestamps", no_argument, NULL,
     "TCP_RR, UDP_RR: split each round trip into\n"
     "client stack, network and server (SO_TIMESTAMPING)",
     NULL, OPT_FLAG, .to = NP(timestamps)},
    {0, "threads", required_argument, "T",
     "run --streams on T threads a side, each\n"
     "driving its flows from one epoll set",
     NULL, OPT_INT, .to = NP(threads), .min = 1, .max = FLOWS_MAX},
    {0, "search", required_argument, "P99<=200us",
     "TCP_RR, UDP_RR, TCP_CRR, UDP_CRR: the highest\n"
     "--rate "
     "that meets the objective, by bisection",
     NULL, OPT_STRING, .to = NP(search),
     .len = sizeof(((struct netperf_opts *)0)->search)},
    {0, "search-precision", required_argument, "PCT",
     "--search stops within PCT % (default 2)", NULL, OPT_FN,
     .fn = g_search_precision},
    {0, "mix-seed", required_argument, "N",
     "-r's request mix draws its classes from seed N\n"
     "(default: a new one each run, printed)",
     NULL, OPT_FN, .fn = g_mix_seed},
    {0, "io-uring", no_argument, NULL,
     "TCP_STREAM, TCP_MAERTS, TCP_RR, UDP_RR: move\n"
     "the data through io_uring, both ends",
     NULL, OPT_FLAG, .to = NP(io_uring)},
};

const struct opt_table cli_netperf_options = {
    global_opts, (int)(sizeof(global_opts) / sizeof(global_opts[0])), "option"};

/* -m, -M "x[,y]" sizes into the int64s at to and to2; val says whether
 * one value sets both. A send or receive size of 0 is the default, as in
 * 2.7 (-m 0 sends the socket buffer's size); a request of 0 bytes, which
 * 2.7 would run as nothing, is an error. */
static int
t_sizes(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	char *err)
{
	(void)run;
	return size_pair(arg, opt->letter, opt->letter == 'r' ? 1 : 0,
			 opt_field(dst, opt->to), opt_field(dst, opt->to2),
			 opt->val, err);
}

/* -r req[,rsp], or a request mix, W%REQ[,RSP]/... (np/mix.h): no size
 * 2.7 takes is written with a '%', so a 2.7 command line never reads as
 * a mix. Also what makes -t OMNI a request/response test. */
static int
t_rr(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
     char *err)
{
	struct netperf_opts *o = dst;
	int rc = mix_parse(arg, &o->mix, err);

	if (rc < 0)
		return -1;
	if (rc > 0)
		mix_max(&o->mix, &o->req_size, &o->rsp_size);
	else if (t_sizes(opt, arg, dst, run, err) < 0)
		return -1;
	else
		o->mix.n = 0;
	o->omni_rr = 1;
	return 0;
}

/* -s, -S snd[,rcv]: socket buffers into the ints at to and to2. */
static int
t_bufs(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	(void)run;
	return buf_pair(arg, opt->letter, opt_field(dst, opt->to),
			opt_field(dst, opt->to2), err);
}

/* -o, -O, -k [list]: as netperf, the list is optional, and the next word
 * is taken as the list unless it is an option. */
static int
t_output(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	 char *err)
{
	struct netperf_opts *o = dst;

	(void)arg;
	o->output_mode = opt->letter;
	o->output_arg[0] = '\0';
	if (optind < run->argc && run->argv[optind][0] != '-') {
		if (strlen(run->argv[optind]) >= sizeof(o->output_arg))
			return err_set(err, "-%c: list too long", opt->letter);
		snprintf(o->output_arg, sizeof(o->output_arg), "%s",
			 run->argv[optind]);
		optind++;
	}
	return 0;
}

static int
t_cong(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	struct netperf_opts *o = dst;
	char a[64], b[64];

	(void)opt;
	(void)run;
	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 ||
	    strlen(a) >= sizeof(o->lx.cong) ||
	    strlen(b) >= sizeof(o->rx.cong) || (a[0] == '\0' && b[0] == '\0'))
		return err_set(
		    err, "-K: \"%s\" is not an algorithm name[,name]", arg);
	if (a[0] != '\0')
		snprintf(o->lx.cong, sizeof(o->lx.cong), "%.15s", a);
	if (b[0] != '\0')
		snprintf(o->rx.cong, sizeof(o->rx.cong), "%.15s", b);
	else if (strchr(arg, ',') == NULL)
		snprintf(o->rx.cong, sizeof(o->rx.cong), "%.15s", a);
	return 0;
}

/* -p min[,max]: TCP_CRR's local ports, 2.7's bounds (5000 and 65535)
 * where a part is left out. */
static int
t_ports(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	char *err)
{
	struct netperf_opts *o = dst;

	(void)opt;
	(void)run;
	o->port_min = 5000;
	o->port_max = 65535;
	/* 2.7's Unix domain socket tests take -p dirspec, where netserver
	 * would make its socket files: ours makes its own directory. */
	if (arg[0] == '/' || arg[0] == '.')
		return err_set(err,
			       "-p %.64s: netserver makes its Unix socket "
			       "files in a private directory of its own and "
			       "takes no path from netperf (2.7's -p dirspec)",
			       arg);
	if (port_pair(arg, 'p', &o->port_min, &o->port_max, 0, err) < 0)
		return -1;
	if (o->port_min < 1 || o->port_min > o->port_max)
		return err_set(err,
			       "-p: \"%s\" is not a port range "
			       "min[,max] with 1 <= min <= max",
			       arg);
	return 0;
}

/* -t stream|dgram: as 2.7, the word holds "stream" or "dgram". */
static int
t_socktype(const struct opt *opt, const char *arg, void *dst,
	   struct opt_run *run, char *err)
{
	struct netperf_opts *o = dst;
	char a[64];

	(void)opt;
	(void)run;
	snprintf(a, sizeof(a), "%s", arg);
	for (char *s = a; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	if (strstr(a, "stream") != NULL)
		o->omni_socktype = SOCK_STREAM;
	else if (strstr(a, "dgram") != NULL)
		o->omni_socktype = SOCK_DGRAM;
	else
		return err_set(
		    err, "-t: socket type \"%s\" is not stream or dgram", arg);
	return 0;
}

/* The test-specific letters of 2.7's omni parser that take a word. */
static int
t_word(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	struct netperf_opts *o = dst;

	(void)run;
	switch (opt->letter) {
	case 'd':
		return direction_arg(arg, o, err);
	case 'i':
		/* 2.7 prints this and carries on. */
		fputs("The support for check_interval has been removed "
		      "because the contributing editor no longer knew what "
		      "it was for\n",
		      stderr);
		return 0;
	case 'T': {
		const struct transport *t = transport_find(arg);
		char names[128];

		transport_names(names, sizeof(names), " and ");
		if (t == NULL)
			return err_set(err, "-T: %s are supported, not \"%s\"",
				       names, arg);
		/* The test is picked by what the transport carries; a
		 * transport of its own (mptcp) goes in the request. */
		o->omni_proto = t->carries;
		if (t->protocol != t->carries)
			snprintf(o->transport, sizeof(o->transport), "%s",
				 t->name);
		return 0;
	}
	default:
		if (strlen(arg) >= sizeof(o->uuid))
			return err_set(err,
				       "-u: a UUID has at most %zu characters",
				       sizeof(o->uuid) - 1);
		snprintf(o->uuid, sizeof(o->uuid), "%s", arg);
		return 0;
	}
}

/* netperf's test-specific options, after "--". */
static const struct opt test_opts[] = {
    /* "x" sets only netperf's size, as in netperf. */
    {'m', NULL, required_argument, "send[,rsend]",
     "bytes per send (default: socket buffer)", "Test options (after --):",
     OPT_FN, .to = NP(send_size), .to2 = NP(rsend_size), .fn = t_sizes},
    /* The first value is netserver's receive size. */
    {'M', NULL, required_argument, "rrecv[,recv]",
     "bytes per receive, netserver's first", NULL, OPT_FN, .to = NP(rrecv_size),
     .to2 = NP(recv_size), .fn = t_sizes},
    {'s', NULL, required_argument, "snd[,rcv]", "local socket buffers", NULL,
     OPT_FN, .to = NP(lsndbuf), .to2 = NP(lrcvbuf), .fn = t_bufs},
    {'S', NULL, required_argument, "snd[,rcv]", "remote socket buffers", NULL,
     OPT_FN, .to = NP(rsndbuf), .to2 = NP(rrcvbuf), .fn = t_bufs},
    {'r', NULL, required_argument, "req[,rsp]",
     "request and response sizes (RR)", NULL, OPT_FN, .to = NP(req_size),
     .to2 = NP(rsp_size), .val = 1, .fn = t_rr},
    {'b', NULL, required_argument, "n", "n extra transactions in flight (RR)",
     NULL, OPT_INT, .to = NP(burst), .min = 0, .max = 1024},
    {'e', NULL, required_argument, "secs",
     "UDP_RR, UDP_CRR: give up on an answer after secs\n"
     "(default: adaptive, as TCP's RTO)",
     NULL, OPT_DOUBLE, .to = NP(rto), .min = 0.001, .max = 3600},
    {'D', NULL, no_argument, NULL, "TCP_NODELAY on both ends", NULL, OPT_FLAG,
     .to = NP(nodelay)},
    {'P', NULL, required_argument, "lport[,rport]", "data connection ports",
     NULL, OPT_FN, .to = NP(ldata_port), .to2 = NP(rdata_port), .val = 1,
     .fn = h_port},
    {'H', NULL, required_argument, "host[,fam]",
     "data connection's remote address", NULL, OPT_FN, .to = NP(data_host),
     .to2 = NP(data_family), .fn = h_host},
    {'L', NULL, required_argument, "host[,fam]",
     "data connection's local address", NULL, OPT_FN, .to = NP(data_local),
     .to2 = NP(data_family), .fn = h_host},
    {'4', NULL, no_argument, NULL, "IPv4 data connection", NULL, OPT_SET,
     .to = NP(data_family), .val = AF_INET},
    {'6', NULL, no_argument, NULL, "IPv6 data connection", NULL, OPT_SET,
     .to = NP(data_family), .val = AF_INET6},
    /* Linux accepts 88..32767 for TCP_MAXSEG. */
    {'G', NULL, required_argument, "mss", "TCP_MAXSEG for the data connection",
     NULL, OPT_INT64, .to = NP(mss), .min = 88, .max = 32767},
    {'C', NULL, no_argument, NULL, "TCP_CORK on both sides", NULL, OPT_FLAG,
     .to = NP(lx.cork), .to2 = NP(rx.cork)},
    {'K', NULL, required_argument, "cc[,rcc]", "TCP congestion control", NULL,
     OPT_FN, .fn = t_cong},
    {'q', NULL, required_argument, "rate", "SO_MAX_PACING_RATE, bytes/s", NULL,
     OPT_SIZE, .to = NP(lx.pacing), .min = 0,
     .max = (double)((int64_t)1 << 50)},
    {'R', NULL, required_argument, "0|1",
     "routing allowed (UDP_STREAM: 0 by default)", NULL, OPT_INT,
     .to = NP(routing), .min = 0, .max = 1},
    {'u', NULL, required_argument, "uuid", "the test's UUID", NULL, OPT_FN,
     .fn = t_word},
    {'d', NULL, required_argument, "dir", "-t OMNI: send|recv|rr", NULL, OPT_FN,
     .fn = t_word},
    {'T', NULL, required_argument, "proto", "-t OMNI: tcp|udp|mptcp", NULL,
     OPT_FN, .fn = t_word},
    {'t', NULL, required_argument, "type", "-t OMNI: stream|dgram", NULL,
     OPT_FN, .fn = t_socktype},
    {'c', NULL, no_argument, NULL, "-t OMNI: a connection per transaction",
     NULL, OPT_FLAG, .to = NP(conn_test)},
    {'F', NULL, no_argument, NULL, "TCP Fast Open", NULL, OPT_FLAG,
     .to = NP(lx.fastopen), .to2 = NP(rx.fastopen)},
    {'a', NULL, no_argument, NULL, "TCP_DEFER_ACCEPT on netserver's listener",
     NULL, OPT_FLAG, .to = NP(rx.defer_accept)},
    {'f', NULL, no_argument, NULL, "path MTU discovery \"do\"", NULL, OPT_FLAG,
     .to = NP(lx.mtu_do), .to2 = NP(rx.mtu_do)},
    {'g', NULL, no_argument, NULL, "SO_DEBUG on the data sockets", NULL,
     OPT_FLAG, .to = NP(lx.debug), .to2 = NP(rx.debug)},
    {'I', NULL, no_argument, NULL, "write() for send()", NULL, OPT_FLAG,
     .to = NP(use_write)},
    {'l', NULL, required_argument, "ttl", "multicast TTL", NULL, OPT_INT,
     .to = NP(lx.mcast_ttl), .to2 = NP(rx.mcast_ttl), .min = 0, .max = 255},
    {'p', NULL, required_argument, "min[,max]", "TCP_CRR's local port range",
     NULL, OPT_FN, .fn = t_ports},
    {'U', NULL, no_argument, NULL, "TCP_CRR: retry a failed connection", NULL,
     OPT_FLAG, .to = NP(retry_connect)},
    /* 2.7 on Linux: each receiver splices into /dev/null. */
    {'V', NULL, no_argument, NULL, "receive with splice(2) (copy avoidance)",
     NULL, OPT_FLAG, .to = NP(splice)},
    {'W', NULL, required_argument, "width", "the local send ring's width", NULL,
     OPT_INT, .to = NP(lbuf.width), .min = 1, .max = 64},
    {'o', NULL, no_argument, "[list]",
     "CSV of output selectors ('?' lists them)", NULL, OPT_FN, .fn = t_output},
    {'O', NULL, no_argument, "[list]", "columns of output selectors", NULL,
     OPT_FN, .fn = t_output},
    {'k', NULL, no_argument, "[list]", "KEY=value lines of output selectors",
     NULL, OPT_FN, .fn = t_output},
    /* IP_PKTINFO for a UDP receiver bound to many addresses: netserver
     * binds the one the control connection used. */
    {'B', NULL, no_argument, NULL, "accepted, as 2.7 (no effect here)", NULL,
     OPT_NOP, .to = 0},
    /* Connected UDP sockets on either side: ours always are. */
    {'n', NULL, no_argument, NULL, "accepted, as 2.7 (no effect here)", NULL,
     OPT_NOP, .to = 0},
    {'N', NULL, no_argument, NULL, "accepted, as 2.7 (no effect here)", NULL,
     OPT_NOP, .to = 0},
    {'i', NULL, required_argument, "n", "accepted, as 2.7 (no effect here)",
     NULL, OPT_FN, .fn = t_word},
    /* Parsed and never used by 2.7; --streams runs parallel
     * connections here. */
    {'j', NULL, required_argument, "n", "accepted, as 2.7 (no effect here)",
     NULL, OPT_INT, .min = 0, .max = 1 << 20},
    /* In 2.7's option string with no case: accepted, unused. */
    {'w', NULL, required_argument, "arg", "accepted, as 2.7 (no effect here)",
     NULL, OPT_NOP, .to = 0},
};

const struct opt_table cli_test_options = {
    test_opts, (int)(sizeof(test_opts) / sizeof(test_opts[0])), "test option"};

/* Parses netperf's options before "--" into o; returns the index of the
 * first test option, or -1 with err set. */
static int
parse_global(int argc, char **argv, struct netperf_opts *o, char *err)
{
	int n = opt_parse(&cli_netperf_options, argc, argv, o, err);

	if (n == -2)
		o->usage_error = 1;
	if (n < 0)
		return -1;
	if (n < argc && strcmp(argv[n - 1], "--") != 0)
		return err_set(err, "unexpected argument \"%s\"", argv[n]);
	return n;
}

/* Parses the test options, after "--"; returns 0, or -1 with err set. */
static int
parse_test(int argc, char **argv, struct netperf_opts *o, char *err)
{
	int n = opt_parse(&cli_test_options, argc, argv, o, err);

	if (n == -2)
		o->usage_error = 1;
	if (n < 0)
		return -1;
	if (n < argc)
		return err_set(err, "unexpected argument \"%s\"", argv[n]);
	return 0;
}

/*
 * -t OMNI: picks the test module from -d (send, recv, rr), -T or -t
 * (tcp, udp) and -c (a connection per transaction), as 2.7's omni test
 * does; without -d the direction is send, or rr when -r was given.
 * Returns 0, or -1 with err saying which combination is not available.
 */
static int
omni_module(struct netperf_opts *o, char *err)
{
	int udp = o->omni_proto == IPPROTO_UDP ||
		  (o->omni_proto == 0 && o->omni_socktype == SOCK_DGRAM);
	int dir = o->omni_dir;
	const char *name;

	/* 2.7: -r implies rr only without -d, and a -d of 0 sends. */
	if (dir == 0)
		dir = o->omni_rr && !o->omni_dir_set
			  ? CLI_DIR_XMIT | CLI_DIR_RECV
			  : CLI_DIR_XMIT;
	if (o->omni_dir_unknown[0] != '\0') {
		const char *w = o->omni_dir_unknown;
		int crr =
		    strcasecmp(w, "CRR") == 0 || strcasecmp(w, "TCP_CRR") == 0;

		cli_warn(o,
			 "-d: netperf 2.7 knows no direction \"%s\" and "
			 "reads it as 0, %s, as there%s",
			 w,
			 o->omni_dir == 0 ? "so this is a send test"
					  : "adding nothing to the direction",
			 crr ? "; for TCP_CRR give -t TCP_CRR, or -t OMNI "
			       "-- -d rr -c"
			     : " (directions: send, recv, rr, stream, maerts, "
			       "2, 4, 6)");
	}
	name = module_omni_test(udp, (dir & CLI_DIR_XMIT) != 0,
				(dir & CLI_DIR_RECV) != 0, o->conn_test);
	if (name == NULL)
		return err_set(err,
			       "-t OMNI: %s%s is not available (TCP send, "
			       "receive, rr and connect/rr, UDP send and rr "
			       "are)",
			       udp ? "UDP " : "TCP ",
			       o->conn_test		? "connect tests other than rr"
			       : dir == CLI_DIR_RECV ? "receive"
						     : "this direction");
	snprintf(o->test, sizeof(o->test), "%s", name);
	o->omni = 1;
	o->omni_dir = dir;
	return 0;
}

/* --under-load: a request/response probe of one stream, timed, over our
 * protocol, once per run. Returns 0, or -1 with err set. */
static int
under_load_check(const struct netperf_opts *o, const struct test_module *m,
		 char *err)
{
	if (!module_is_rr(m) || module_has(m, MODULE_F_PER_TRANS))
		return err_set(err,
			       "--under-load probes with TCP_RR or UDP_RR, "
			       "not %s",
			       m->name);
	if (o->streams > 1 || o->bidir || o->wire)
		return err_set(err, "--under-load runs one probe: --streams, "
				    "--bidir and --wire do not apply");
	if (o->count > 0)
		return err_set(err, "--under-load runs for a time: give -l in "
				    "seconds, not a count");
	if (o->no_control || o->legacy)
		return err_set(err,
			       "--under-load needs our netserver: not with "
			       "-N or --legacy");
	if (o->sweep[0] != '\0' || o->start_at_ns > 0 || o->interim != 0)
		return err_set(err, "--under-load runs two phases: not with "
				    "--sweep, --start-at or -D");
	return 0;
}

/* --search: a valid objective, on a test with an open loop, one search
 * a command. */
static int
search_opts_check(const struct netperf_opts *o, const struct test_module *m,
		  char *err)
{
	struct search_spec sp;

	if (o->search[0] == '\0')
		return err_set(err, "--search-precision needs --search");
	if (search_parse(o->search, &sp, err) < 0)
		return -1;
	if (!module_has(m, MODULE_F_OPEN)) {
		char names[128];

		module_names_with(MODULE_F_OPEN, names, sizeof(names));
		return err_set(err, "--search applies to %s only, not %s",
			       names, m->name);
	}
	if (o->sweep[0] != '\0' || o->start_at_ns > 0 ||
	    o->load_up + o->load_down > 0)
		return err_set(err,
			       "--search chooses the rate of each run: not "
			       "with --sweep, --start-at or --under-load");
	if (o->output_mode != 0)
		return err_set(err, "--search prints a table or a JSON "
				    "document: not with -o, -O or -k");
	if (o->count > 0)
		return err_set(err, "--search runs for a time: give -l in "
				    "seconds, not a count");
	if (o->rate > 0 && o->rate < o->streams)
		return err_set(err,
			       "--search: the start, --rate %g, is under "
			       "one transaction a second per stream",
			       o->rate);
	return 0;
}

/*
 * -N: no netserver. As netperf 2.7, the data port defaults to the
 * standard service for the test (discard, chargen or echo) and an RR
 * test's response is its request echoed. What needs netserver is an
 * error saying so.
 */
static int
no_control_check(struct netperf_opts *o, const struct test_module *m,
		 char *err)
{
	if (m->nc_port == 0)
		return err_set(err, "-N: %s %s", m->name, m->nc_refusal);
	if (o->remote_cpu)
		return err_set(err, "-N: -C measures netserver's CPU, and -N "
				    "runs without one");
	if (o->streams > 1 || o->bidir || o->wire || o->one_way)
		return err_set(err, "-N: --streams, --bidir, --wire and "
				    "--one-way need netserver");
	if (o->io_uring)
		return err_set(err, "-N: --io-uring is asked of both ends, and "
				    "-N runs without netserver");
	if (o->rdata_port == 0)
		o->rdata_port = m->nc_port;
	if (module_is_rr(m))
		o->rsp_size = o->req_size;
	return 0;
}

/* --streams on --threads: threads for the flows, a flow engine for the
 * test, descriptors for the connections. */
static int
flows_opts_check(struct netperf_opts *o, const struct test_module *m, char *err)
{
	struct test_params p;

	if (o->threads > o->streams)
		return err_set(err,
			       "--threads %d: more threads than the %d "
			       "stream%s",
			       o->threads, o->streams,
			       o->streams > 1 ? "s" : "");
	cli_netperf_request(o, &p);
	if (module_flows(&p) && flows_check(m, &p, err) < 0)
		return -1;
	if (!module_flows(&p) && p.streams > FLOWS_THREAD_EACH_MAX)
		return err_set(err,
			       "--streams %d on a thread each: at most %d; "
			       "give --threads",
			       p.streams, FLOWS_THREAD_EACH_MAX);
	return flows_nofile((long)p.streams + FLOWS_FD_SLACK, err);
}

/* -r's request mix: a test that carries one, on a thread a stream or as
 * flows on threads, without the loops that do not read a request's
 * class; its seed drawn once when none is given. */
static int
mix_opts_check(struct netperf_opts *o, const struct test_module *m, char *err)
{
	const char *with = NULL;

	if (o->mix.n == 0)
		return err_set(err, "--mix-seed needs a request mix (-r "
				    "W%%REQ[,RSP]/...)");
	if (!module_has(m, MODULE_F_MIX)) {
		char names[128];

		module_names_with(MODULE_F_MIX, names, sizeof(names));
		return err_set(err, "-r: a request mix applies to %s only, "
				    "not %s",
			       names, m->name);
	}
	if (o->one_way)
		with = "--one-way";
	else if (o->timestamps)
		with = "--timestamps";
	else if (o->load_up + o->load_down > 0)
		with = "--under-load";
	else if (o->no_control)
		with = "-N";
	else if (o->legacy)
		with = "--legacy";
	if (with != NULL)
		return err_set(err, "-r: a request mix cannot be combined "
				    "with %s",
			       with);
	if (!o->mix_seed_set) {
		if (getrandom(&o->mix.seed, sizeof(o->mix.seed), 0) !=
		    (ssize_t)sizeof(o->mix.seed))
			o->mix.seed = clock_ns() ^ (uint64_t)getpid();
		o->mix_seed_set = 1;
	}
	return 0;
}

/* The checks on the options and the test module together. */
static int
check_test(struct netperf_opts *o, const struct test_module *m, char *err)
{
	/* A test that moves no data has no bytes to give -f's units: 2.7's
	 * TCP_CC reports transactions whatever -f says. */
	if (o->fmt == 0 || module_has(m, MODULE_F_NO_DATA))
		o->fmt = module_is_rr(m) ? 'x' : 'm';
	else if (o->fmt == 'x' && !module_is_rr(m))
		o->fmt = 'm';
	if (m->send_max > 0 && o->send_size != 0 &&
	    (o->send_size < m->send_min || o->send_size > m->send_max))
		return err_set(err,
			       "-m: %s datagrams carry %lld to %lld bytes, "
			       "not %lld",
			       m->name, (long long)m->send_min,
			       (long long)m->send_max, (long long)o->send_size);
	if (m->rr_max > 0 &&
	    (o->req_size > m->rr_max || o->rsp_size > m->rr_max))
		return err_set(err, "-r: %s datagrams carry at most %lld bytes",
			       m->name, (long long)m->rr_max);
	if (strncmp(o->sweep, "streams=", 8) == 0 && o->streams > 1)
		return err_set(err,
			       "--sweep streams= sets the streams of each "
			       "run: not with --streams %d",
			       o->streams);
	if (o->ldata_port != 0 && o->streams > 1)
		return err_set(err,
			       "-P: one local data port cannot serve %d "
			       "streams",
			       o->streams);
	/* MMTests' "-- -P 15895" against netserver on this host: both ends
	 * cannot have the port (2.7's share it and measure nothing over
	 * TCP); netserver's end is what a firewall sees, so netperf's
	 * takes another. */
	if (o->ldata_port != 0 && o->ldata_port == o->rdata_port &&
	    is_loopback(o->data_host[0] ? o->data_host : o->host)) {
		cli_warn(o,
			 "-P %d: netserver on this host listens on port %d, "
			 "so netperf's end of the data connection takes "
			 "another",
			 o->ldata_port, o->rdata_port);
		o->ldata_port = 0;
	}
	if (o->rate > 0 && !module_has(m, MODULE_F_RATE) &&
	    !module_has(m, MODULE_F_OPEN)) {
		char names[128], open[128];

		module_names_with(MODULE_F_RATE, names, sizeof(names));
		module_names_with(MODULE_F_OPEN, open, sizeof(open));
		return err_set(err,
			       "--rate applies to %s (bits/s) and %s "
			       "(transactions/s) only",
			       names, open);
	}
	if ((o->timeout > 0 || o->reconnect || o->arrivals_set) &&
	    !module_has(m, MODULE_F_OPEN)) {
		char names[128];

		module_names_with(MODULE_F_OPEN, names, sizeof(names));
		return err_set(err, "--%s applies to %s only",
			       o->timeout > 0 ? "timeout"
			       : o->reconnect ? "reconnect"
					      : "arrivals",
			       names);
	}
	if (o->arrivals_set && o->rate <= 0 &&
	    strncmp(o->sweep, "rate=", 5) != 0 && o->search[0] == '\0')
		return err_set(err, "--arrivals needs --rate");
	/* Both ends take a data connection silent for MODULE_IDLE_SEC for a
	 * dead peer: a stream's arrivals must not leave it that quiet. */
	if (o->rate > 0 && module_has(m, MODULE_F_OPEN) &&
	    o->rate < o->streams)
		return err_set(err,
			       "--rate %g over %d streams is under one "
			       "transaction a second per stream; a peer silent "
			       "for %d s is taken for gone",
			       o->rate, o->streams, MODULE_IDLE_SEC);
	/* A TCP_RR stream's connection is netserver's stream too: it ends
	 * with it. */
	if (o->reconnect && m->socktype != SOCK_DGRAM &&
	    !module_has(m, MODULE_F_PER_TRANS))
		return err_set(err, "--reconnect applies to UDP_RR, TCP_CRR and "
				    "UDP_CRR only; a TCP_RR stream ends with "
				    "its connection");
	{
		struct test_params p;

		cli_netperf_request(o, &p);
		if (transport_check(m, &p, err) < 0 ||
		    fast_check(m, &p, err) < 0)
			return -1;
	}
	/* One scheduled start is one measured interval: repeated runs would
	 * start at once after the first, unsynchronised. */
	if (o->start_at_ns > 0 && (o->iter_max > 1 || o->sweep[0] != '\0' ||
				   o->ifstat[0] != '\0'))
		return err_set(err, "--start-at schedules one run; it cannot "
				    "be combined with -i, -I, --sweep or "
				    "--ifstat");
	if (o->bidir && !module_has(m, MODULE_F_BIDIR)) {
		char names[128];

		module_names_with(MODULE_F_BIDIR, names, sizeof(names));
		return err_set(err, "--bidir applies to %s only, not %s", names,
			       m->name);
	}
	if (o->timestamps && !module_has(m, MODULE_F_TSTAMP)) {
		char names[128];

		module_names_with(MODULE_F_TSTAMP, names, sizeof(names));
		return err_set(err, "--timestamps applies to %s only, not %s",
			       names, m->name);
	}
	if (o->timestamps && (o->legacy || o->no_control))
		return err_set(err, "--timestamps needs netserver's own "
				    "stamps: not with --legacy or -N");
	if (o->bidir && o->count > 0)
		return err_set(err, "--bidir runs for a time: give -l in "
				    "seconds, not a count");
	if (o->one_way && oneway_refuses(m, o->req_size, o->rsp_size, err) < 0)
		return -1;
	if ((o->mix.n > 0 || o->mix_seed_set) && mix_opts_check(o, m, err) < 0)
		return -1;
	if (o->load_up + o->load_down > 0 && under_load_check(o, m, err) < 0)
		return -1;
	if ((o->search[0] != '\0' || o->search_precision > 0) &&
	    search_opts_check(o, m, err) < 0)
		return -1;
	if (strncmp(o->sweep, "rate=", 5) == 0 && o->rate > 0)
		return err_set(err, "--sweep rate= sets the rate of each run: "
				    "not with --rate");
	if (o->data_family == AF_UNSPEC)
		o->data_family =
		    o->family != AF_UNSPEC ? o->family : o->host_family;
	if (o->family == AF_UNSPEC)
		o->family = o->host_family;
	/* As 2.7: UDP_STREAM does not route through a gateway unless
	 * -R 1 says it may (SO_DONTROUTE); -R 0 forbids it for any test. */
	if (o->routing == 0 ||
	    (o->routing < 0 && module_has(m, MODULE_F_DONTROUTE)))
		o->lx.dontroute = o->rx.dontroute = 1;
	if (o->no_control)
		return no_control_check(o, m, err);
	return flows_opts_check(o, m, err);
}

/* As 2.7 (netsh.c): with no -H, netserver is on this host, "::1" when
 * the family asked for (-6, -H ,6 or -L ,6) is IPv6, else "localhost". */
static void
default_host(struct netperf_opts *o)
{
	int fam = o->family != AF_UNSPEC ? o->family : o->host_family;

	if (o->host[0] == '\0')
		snprintf(o->host, sizeof(o->host), "%s",
			 fam == AF_INET6 ? "::1" : "localhost");
}

int
cli_netperf_parse(int argc, char **argv, struct netperf_opts *o, char *err)
{
	const struct test_module *m;
	int split;

	netperf_defaults(o);
	split = parse_global(argc, argv, o, err);
	/* getopt wants argv[0] to be a program name. */
	if (split >= 0 && split < argc &&
	    parse_test(argc - split + 1, argv + split - 1, o, err) < 0)
		split = -1;
	default_host(o);
	if (split < 0)
		return -1;
	if (o->want_help || o->want_version)
		return 0;
	/* 2.7's LOC_CPU is no test: it prints a rate and ignores every
	 * other argument. */
	if (strcmp(o->test, "LOC_CPU") == 0) {
		o->want_loc_cpu = 1;
		return 0;
	}
	if (strcmp(o->test, "REM_CPU") == 0) {
		o->want_rem_cpu = 1;
		return 0;
	}
	if (strcmp(o->test, "OMNI") == 0 && omni_module(o, err) < 0)
		return -1;
	m = module_find(o->test);
	if (m == NULL) {
		o->usage_error = 1;
		return err_set(err, "unknown test \"%s\"", o->test);
	}
	return check_test(o, m, err);
}

void
cli_netperf_usage(FILE *out)
{
	fputs("Usage: netperf [global options] -- [test options]\n", out);
	opt_usage(out, &cli_netperf_options);
	opt_usage(out, &cli_test_options);
	fputs("\nSizes take K, M, G (2^10, 2^20, 2^30) or k, m, g "
	      "(10^3...).\n",
	      out);
}

int
cli_is_merge(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--merge") == 0)
			return 1;
	return 0;
}

int
cli_merge_parse(int argc, char **argv, struct merge_opts *o, char *err)
{
	char why[ERR_LEN];
	int64_t v;
	int i;

	memset(o, 0, sizeof(*o));
	o->headers = 1;
	o->verbosity = 1;
	o->max_skew = 0.01;
	o->files = calloc((size_t)argc, sizeof(*o->files));
	if (o->files == NULL)
		return err_set(err, "out of memory");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--merge") == 0)
			continue;
		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "--json") == 0 || strcmp(a, "-J") == 0) {
			o->json = 1;
		} else if (strcmp(a, "-P") == 0 || strcmp(a, "-v") == 0) {
			if (val == NULL)
				return err_set(err, "option %s needs a value",
					       a);
			if (units_parse_int(val, 0, a[1] == 'P' ? 1 : 2, &v,
					    why) < 0)
				return err_set(err, "%s: %s", a, why);
			if (a[1] == 'P')
				o->headers = (int)v;
			else
				o->verbosity = (int)v;
			i++;
		} else if (strcmp(a, "--plot") == 0) {
			if (val == NULL)
				return err_set(err, "option %s needs a value",
					       a);
			o->plot = val;
			i++;
		} else if (strcmp(a, "--max-skew") == 0) {
			if (val == NULL)
				return err_set(err, "option %s needs a value",
					       a);
			if (units_parse_double(val, 0, 3600, &o->max_skew,
					       why) < 0)
				return err_set(err, "--max-skew: %s", why);
			i++;
		} else if (a[0] == '-' && a[1] != '\0') {
			return err_set(err,
				       "--merge takes -P, -v, --json, "
				       "--max-skew, --plot and files, not %s",
				       a);
		} else {
			o->files[o->nfiles++] = argv[i];
		}
	}
	for (i++; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-o") != 0 && strcmp(a, "-O") != 0 &&
		    strcmp(a, "-k") != 0)
			return err_set(err,
				       "--merge takes -o, -O or -k after --, "
				       "not %s",
				       a);
		o->mode = a[1];
		o->list[0] = '\0';
		if (i + 1 < argc && argv[i + 1][0] != '-') {
			if (strlen(argv[i + 1]) >= sizeof(o->list))
				return err_set(err, "%s: list too long", a);
			snprintf(o->list, sizeof(o->list), "%s", argv[++i]);
		}
	}
	if (o->nfiles == 0 && strcmp(o->list, "?") != 0)
		return err_set(err, "--merge needs at least one result file");
	return 0;
}

void
cli_netperf_request(const struct netperf_opts *o, struct test_params *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->test, sizeof(p->test), "%s", o->test);
	p->duration = o->duration;
	p->count = o->count;
	p->send_size = o->send_size;
	p->recv_size = o->recv_size;
	p->rsend_size = o->rsend_size;
	p->rrecv_size = o->rrecv_size;
	p->req_size = o->req_size;
	p->rsp_size = o->rsp_size;
	p->mix = o->mix;
	p->lsndbuf = o->lsndbuf;
	p->lrcvbuf = o->lrcvbuf;
	p->rsndbuf = o->rsndbuf;
	p->rrcvbuf = o->rrcvbuf;
	p->nodelay = o->nodelay;
	p->burst = o->burst;
	p->remote_cpu = o->remote_cpu;
	p->data_port = o->rdata_port;
	p->rto = o->rto;
	p->rate = o->rate;
	/* --bidir: as many streams again, the other way. */
	p->streams = o->bidir ? 2 * o->streams : o->streams;
	p->bidir = o->bidir;
	/* Both directions send alike unless -m's second part says how
	 * netserver should. */
	if (o->bidir && p->rsend_size == 0)
		p->rsend_size = o->send_size;
	p->wire = o->wire;
	p->batch = o->batch;
	p->udp_gso = o->udp_gso;
	p->udp_gro = o->udp_gro;
	p->zerocopy = o->zerocopy;
	p->splice = o->splice;
	p->busy_poll = o->busy_poll;
	p->one_way = o->one_way;
	p->start_at_ns = o->start_at_ns;
	snprintf(p->cpu_bind, sizeof(p->cpu_bind), "%s", o->rcpu);
	p->lx = o->lx;
	p->rx = o->rx;
	p->lbuf = o->lbuf;
	p->rbuf = o->rbuf;
	p->interval_ms = o->interval_ms;
	p->interval_burst = o->interval_burst;
	p->use_write = o->use_write;
	p->ldata_port = o->ldata_port;
	p->no_control = o->no_control;
	p->lport_min = o->port_min;
	p->lport_max = o->port_max;
	p->retry_connect = o->retry_connect;
	snprintf(p->fill_file, sizeof(p->fill_file), "%.255s", o->fill_file);
	snprintf(p->transport, sizeof(p->transport), "%s", o->transport);
	p->skip_rx_copy = o->skip_rx_copy;
	p->io_uring = o->io_uring;
	p->arrivals = o->arrivals;
	p->timeout = o->timeout;
	p->reconnect = o->reconnect;
	p->timestamps = o->timestamps;
	/* A test's hook (tests/check_tstamp.c): netserver sleeps this long
	 * between a request's read and its answer's write. */
	if (o->timestamps && getenv("NETPERF_TEST_SERVE_DELAY_US") != NULL) {
		long d = strtol(getenv("NETPERF_TEST_SERVE_DELAY_US"), NULL,
				10);

		if (d > 0 && d <= TSTAMP_DELAY_MAX_US)
			p->serve_delay_us = (int)d;
	}
	/* --threads, or what runs the streams fastest (flows.h), where the
	 * test runs as flows at all. */
	p->threads = o->threads;
	if (p->threads == 0) {
		const struct test_module *m = module_find(o->test);

		p->threads = flows_default_threads(p->streams);
		if (module_flows(p) &&
		    (m == NULL || flows_check(m, p, NULL) < 0))
			p->threads = 0;
	}
}

static int
s_passphrase(const struct opt *opt, const char *arg, void *dst,
	     struct opt_run *run, char *err)
{
	struct netserver_opts *o = dst;

	(void)opt;
	(void)run;
	if (arg[0] == '\0' || strlen(arg) >= sizeof(o->passphrase))
		return err_set(err, "-Z: the passphrase must have 1 to 255 "
				    "characters");
	snprintf(o->passphrase, sizeof(o->passphrase), "%s", arg);
	return 0;
}

static int
s_user(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
       char *err)
{
	struct netserver_opts *o = dst;

	(void)opt;
	(void)run;
	if (arg[0] == '\0' || strlen(arg) >= sizeof(o->user))
		return err_set(err, "-u: bad user name");
	snprintf(o->user, sizeof(o->user), "%s", arg);
	return 0;
}

static int
s_allow(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
	char *err)
{
	char why[ERR_LEN];

	(void)opt;
	(void)run;
	if (acl_parse(&((struct netserver_opts *)dst)->allow, arg, why) < 0)
		return err_set(err, "--allow: %s", why);
	return 0;
}

/* netserver's options, in the order of its usage text. */
static const struct opt netserver_opts[] = {
    {'p', NULL, required_argument, "port",
     "listen on port (12865; 0 picks a free one)", "Options:", OPT_INT,
     .to = NS(port), .min = 0, .max = 65535},
    {'L', NULL, required_argument, "addr[,fam]", "listen on this address only",
     NULL, OPT_FN, .to = NS(listen), .to2 = NS(family), .fn = h_host},
    {'4', NULL, no_argument, NULL, "IPv4 only", NULL, OPT_SET, .to = NS(family),
     .val = AF_INET},
    {'6', NULL, no_argument, NULL, "IPv6 only", NULL, OPT_SET, .to = NS(family),
     .val = AF_INET6},
    {'D', NULL, no_argument, NULL, "stay in the foreground (for systemd)", NULL,
     OPT_FLAG, .to = NS(foreground)},
    {'f', NULL, no_argument, NULL, "do not fork: serve clients one at a time",
     NULL, OPT_FLAG, .to = NS(nofork)},
    {'d', NULL, no_argument, NULL, "more log lines", NULL, OPT_COUNT,
     .to = NS(debug)},
    {'V', "version", no_argument, NULL, "print the version", NULL, OPT_FLAG,
     .to = NS(want_version)},
    {'h', "help", no_argument, NULL, "this help", NULL, OPT_FLAG,
     .to = NS(want_help)},
    {0, "pidfile", required_argument, "FILE", "write the daemon's PID to FILE",
     "Service:", OPT_PATH, .to = NS(pidfile), .len = CLI_PATH_LEN},
    {0, "log", required_argument, "FILE", "log to FILE (reopened on SIGHUP)",
     NULL, OPT_PATH, .to = NS(log), .len = CLI_PATH_LEN},
    {0, "syslog", no_argument, NULL, "log to syslog, facility daemon", NULL,
     OPT_FLAG, .to = NS(syslog)},
    {0, "metrics", required_argument, "[ADDR:]PORT",
     "serve Prometheus metrics at /metrics there\n"
     "(127.0.0.1 when only a port is given)",
     NULL, OPT_STRING, .to = NS(metrics),
     .len = sizeof(((struct netserver_opts *)0)->metrics)},
    {'u', "user", required_argument, "USER",
     "drop to USER after binding (as root)", NULL, OPT_FN, .fn = s_user},
    {0, "auth-file", required_argument, "FILE",
     "require clients to prove the key in FILE", "Access:", OPT_PATH,
     .to = NS(auth_file), .len = CLI_PATH_LEN},
    {'Z', NULL, required_argument, "passphrase",
     "...or the key derived from passphrase", NULL, OPT_FN, .fn = s_passphrase},
    {0, "legacy", no_argument, NULL,
     "serve netperf 2.7 clients (the default; kept for old command lines)",
     NULL, OPT_FLAG, .to = NS(legacy)},
    {0, "no-legacy", no_argument, NULL, "refuse netperf 2.7 clients", NULL,
     OPT_FLAG, .to = NS(no_legacy)},
    {0, "legacy-passphrase", required_argument, "FILE",
     "2.7 clients must send it first (plaintext)", NULL, OPT_PATH,
     .to = NS(legacy_pass_file), .len = CLI_PATH_LEN},
    {0, "allow", required_argument, "CIDR[,CIDR]",
     "serve only these client networks", NULL, OPT_FN, .fn = s_allow},
    {0, "allow-privileged-ports", no_argument, NULL,
     "let clients ask for data ports below 1024", NULL, OPT_FLAG,
     .to = NS(allow_privileged_ports)},
    {0, "max-sessions", required_argument, "N", "sessions at once (64)",
     "Limits:", OPT_INT, .to = NS(max_sessions), .min = 1, .max = 4096},
    {0, "max-per-address", required_argument, "N",
     "sessions at once from one address (16)", NULL, OPT_INT,
     .to = NS(max_per_addr), .min = 1, .max = 4096},
    {0, "max-duration", required_argument, "SECS", "longest test (3600)", NULL,
     OPT_DOUBLE, .to = NS(max_duration), .min = 1, .max = 31536000},
    {0, "max-message", required_argument, "BYTES",
     "largest send/receive/request/response (64M)", NULL, OPT_SIZE,
     .to = NS(max_message), .min = 1, .max = (double)CLI_SIZE_MAX},
    {0, "max-buffer", required_argument, "BYTES",
     "largest socket buffer (256M)", NULL, OPT_SIZE, .to = NS(max_buffer),
     .min = 1, .max = INT32_MAX},
    {0, "max-streams", required_argument, "N",
     "data connections per test (what\n"
     "--max-session-memory holds)",
     NULL, OPT_INT, .to = NS(max_streams), .min = 1, .max = FLOWS_MAX},
    {0, "max-session-memory", required_argument, "BYTES",
     "data buffers of one session (256M)", NULL, OPT_SIZE,
     .to = NS(max_session_memory), .min = 1, .max = (double)(INT64_C(1) << 40)},
    {0, "idle-timeout", required_argument, "SECS",
     "control silence allowed between tests (60)", NULL, OPT_DOUBLE,
     .to = NS(idle_timeout), .min = 0.1, .max = 86400},
    {0, "hello-timeout", required_argument, "SECS",
     "wait for a new client's hello (5)", NULL, OPT_DOUBLE,
     .to = NS(hello_timeout), .min = 0.1, .max = 3600},
    {0, "max-session-time", required_argument, "SECS",
     "a session's whole life (7200, or twice\n"
     "--max-duration if that is more)",
     NULL, OPT_DOUBLE, .to = NS(max_session_time), .min = 1, .max = 31536000},
    {0, "ipv6-prefix", required_argument, "BITS",
     "count IPv6 clients per network of this prefix\n(64)", NULL, OPT_INT,
     .to = NS(ipv6_prefix), .min = 1, .max = 128},
    {0, "accept-timeout", required_argument, "SECS",
     "wait for the data connection (10)", NULL, OPT_DOUBLE,
     .to = NS(accept_timeout), .min = 0.1, .max = 3600},
    {0, "max-start-ahead", required_argument, "SECS",
     "furthest ahead a --start-at may be (300)", NULL, OPT_DOUBLE,
     .to = NS(max_start_ahead), .min = 1, .max = 3600},
};

const struct opt_table cli_netserver_options = {
    netserver_opts, (int)(sizeof(netserver_opts) / sizeof(netserver_opts[0])),
    "option"};

int
cli_netserver_parse(int argc, char **argv, struct netserver_opts *o, char *err)
{
	int n;

	memset(o, 0, sizeof(*o));
	o->port = 12865;
	o->family = AF_UNSPEC;
	n = opt_parse(&cli_netserver_options, argc, argv, o, err);
	if (n < 0)
		return -1;
	if (n < argc)
		return err_set(err, "unexpected argument \"%s\"", argv[n]);
	if (o->syslog && o->log[0] != '\0')
		return err_set(err, "--log and --syslog cannot be combined");
	if (o->passphrase[0] != '\0' && o->auth_file[0] != '\0')
		return err_set(err, "-Z and --auth-file cannot be combined");
	if (o->legacy && o->no_legacy)
		return err_set(err, "--legacy and --no-legacy cannot be "
				    "combined");
	if (o->no_legacy && o->legacy_pass_file[0] != '\0')
		return err_set(err, "--legacy-passphrase and --no-legacy "
				    "cannot be combined");
	/* 2.7's netperf is still in use everywhere: its clients are
	 * served unless refused. */
	o->legacy = !o->no_legacy;
	return 0;
}

void
cli_netserver_usage(FILE *out)
{
	fputs("Usage: netserver [options]\n", out);
	opt_usage(out, &cli_netserver_options);
}
