#include "np/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/fast.h"
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

/* -D secs[,units]: the units part (netperf's first guess of work per
 * interval) is accepted and not needed: intervals here are timed. */
static int
interim_arg(const char *arg, struct netperf_opts *o, char *err)
{
	char a[64], b[64], why[ERR_LEN];
	double d;

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 ||
	    units_parse_double(a, -86400, 86400, &d, why) < 0)
		return err_set(err, "-D: \"%s\" is not an interval in seconds",
			       arg);
	if (d < 0)
		d = -d;
	if (d < 0.001)
		return err_set(err, "-D: intervals shorter than 1 ms are "
				    "not reported");
	o->interim = d;
	return 0;
}

/* -i max[,min]: 1..30 each; netperf clamps to 3..30 silently, a value
 * outside 1..30 is an error here. */
static int
iterations_arg(const char *arg, struct netperf_opts *o, char *err)
{
	char a[32], b[32], why[ERR_LEN];
	int64_t v;

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 || a[0] == '\0')
		return err_set(err, "-i: \"%s\" is not max[,min]", arg);
	if (units_parse_int(a, 1, 30, &v, why) < 0)
		return err_set(err, "-i: %s", why);
	o->iter_max = (int)v;
	o->iter_min = o->iter_max < 3 ? o->iter_max : 3;
	if (b[0] != '\0') {
		if (units_parse_int(b, 1, 30, &v, why) < 0)
			return err_set(err, "-i: %s", why);
		o->iter_min = (int)v;
	}
	if (o->iter_min > o->iter_max)
		o->iter_min = o->iter_max;
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
	if (units_parse_int(a, 0, 100, &v, why) < 0 || (v != 95 && v != 99))
		return err_set(err, "-I: only 95%% and 99%% confidence levels "
				    "are supported");
	o->conf_level = (int)v;
	o->conf_width = 5;
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

/* "x[,y]" of integers in [min, max], as 2.7's break_args: one value
 * sets both, "x," only the first, ",y" only the second. */
static int
int_pair(const char *arg, char opt, int64_t min, int64_t max, int *x, int *y,
	 char *err)
{
	char a[64], b[64], why[ERR_LEN];
	int64_t v;

	if (units_split_pair(arg, a, b, sizeof(a), err) < 0 ||
	    (a[0] == '\0' && b[0] == '\0'))
		return err_set(err, "-%c: \"%s\" is not a pair of numbers", opt,
			       arg);
	if (a[0] != '\0') {
		if (units_parse_int(a, min, max, &v, why) < 0)
			return err_set(err, "-%c: %s", opt, why);
		*x = (int)v;
		if (strchr(arg, ',') == NULL)
			*y = (int)v;
	}
	if (b[0] != '\0') {
		if (units_parse_int(b, min, max, &v, why) < 0)
			return err_set(err, "-%c: %s", opt, why);
		*y = (int)v;
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

/* -d as 2.7's parse_direction: words joined by '|' (send, xmit,
 * transmit, stream; recv, receive, maerts; rr) or a number. */
static int
direction_arg(const char *arg, int *dir, char *err)
{
	char buf[128], *save = NULL, *w;
	int d = 0;

	if (strlen(arg) >= sizeof(buf) || arg[0] == '\0')
		return err_set(err, "-d: \"%s\" is not a direction", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
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
			if (*end != '\0' || v < 0 ||
			    (v & ~(CLI_DIR_XMIT | CLI_DIR_RECV)) != 0)
				return err_set(err,
					       "-d: \"%s\" is not send, recv, "
					       "rr, stream, maerts or 2, 4, 6",
					       w);
			d |= (int)v;
		}
	}
	*dir = d;
	return 0;
}

static void
netperf_defaults(struct netperf_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->host, sizeof(o->host), "localhost");
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

/* netperf's long options that have no short letter. */
enum {
	OPT_RATE = 256,
	OPT_STREAMS,
	OPT_JSON,
	OPT_JSON_STREAM,
	OPT_WIRE,
	OPT_SWEEP,
	OPT_PLOT,
	OPT_IFSTAT,
	OPT_AUTH,
	OPT_LEGACY,
	OPT_BATCH,
	OPT_UDP_GSO,
	OPT_UDP_GRO,
	OPT_ZEROCOPY,
	OPT_BUSY_POLL,
	OPT_START_AT,
	OPT_BIDIR,
};

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

static int
parse_global(int argc, char **argv, struct netperf_opts *o, char *err)
{
	static const struct option longopts[] = {
	    {"rate", required_argument, NULL, OPT_RATE},
	    {"streams", required_argument, NULL, OPT_STREAMS},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"json-stream", no_argument, NULL, OPT_JSON_STREAM},
	    {"wire", optional_argument, NULL, OPT_WIRE},
	    {"sweep", required_argument, NULL, OPT_SWEEP},
	    {"plot", required_argument, NULL, OPT_PLOT},
	    {"ifstat", required_argument, NULL, OPT_IFSTAT},
	    {"auth", required_argument, NULL, OPT_AUTH},
	    {"legacy", no_argument, NULL, OPT_LEGACY},
	    {"batch", required_argument, NULL, OPT_BATCH},
	    {"udp-gso", no_argument, NULL, OPT_UDP_GSO},
	    {"udp-gro", no_argument, NULL, OPT_UDP_GRO},
	    {"zerocopy", no_argument, NULL, OPT_ZEROCOPY},
	    {"busy-poll", required_argument, NULL, OPT_BUSY_POLL},
	    {"start-at", required_argument, NULL, OPT_START_AT},
	    {"bidir", no_argument, NULL, OPT_BIDIR},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	char why[ERR_LEN];
	double d;
	int64_t v;
	int c;

	opterr = 0;
	optind = 0;
	/* '+': stop at the first non-option, so "--" ends the global part
	 * exactly as netperf's getopt loop does. */
	while ((c = getopt_long(argc, argv,
				"+:H:L:p:t:l:cCf:P:v:B:46dhVT:D:i:I:rjJ"
				"a:A:o:O:F:k:K:n:Ns:SW:w:b:y:Y:Z:",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (host_family(optarg, 'H', o->host, &o->host_family,
					err) < 0)
				return -1;
			break;
		case 'L':
			if (host_family(optarg, 'L', o->local, &o->host_family,
					err) < 0)
				return -1;
			break;
		case 'p':
			if (port_pair(optarg, 'p', &o->port, &o->lport, 0,
				      err) < 0)
				return -1;
			break;
		case 't':
			if (strlen(optarg) >= sizeof(o->test))
				return err_set(err, "-t: test name too long");
			snprintf(o->test, sizeof(o->test), "%s", optarg);
			for (char *s = o->test; *s; s++)
				if (*s >= 'a' && *s <= 'z')
					*s = (char)(*s - 'a' + 'A');
			break;
		case 'l':
			if (units_parse_double(optarg, -1e15, 1e9, &d, why) < 0)
				return err_set(err, "-l: %s", why);
			if (d < 0) {
				if (d != (double)(int64_t)d)
					return err_set(err,
						       "-l: a count must be "
						       "a whole number");
				o->count = (int64_t)-d;
				o->duration = 0;
			} else if (d == 0) {
				/* netperf's "until interrupted": an hour,
				 * the longest a default netserver allows;
				 * Ctrl-C ends it sooner, with results. */
				o->duration = 3600;
				o->count = 0;
			} else {
				o->duration = d;
				o->count = 0;
			}
			break;
		case 'c':
		case 'C':
			/* netperf's optional rate: eaten only when the next
			 * word starts with a digit, and /proc/stat ignores
			 * it. */
			if (optind < argc && argv[optind][0] >= '0' &&
			    argv[optind][0] <= '9')
				optind++;
			if (c == 'c')
				o->local_cpu = 1;
			else
				o->remote_cpu = 1;
			break;
		case 'f':
			if (strlen(optarg) != 1 ||
			    units_label(optarg[0]) == NULL)
				return err_set(err,
					       "-f: \"%s\" is not one of "
					       "G M K g m k x",
					       optarg);
			o->fmt = optarg[0];
			break;
		case 'P':
			if (units_parse_int(optarg, 0, 1, &v, why) < 0)
				return err_set(err, "-P: %s", why);
			o->headers = (int)v;
			break;
		case 'v':
			if (units_parse_int(optarg, 0, 2, &v, why) < 0)
				return err_set(err, "-v: %s", why);
			o->verbosity = (int)v;
			break;
		case 'B':
			snprintf(o->brand, sizeof(o->brand), "%s", optarg);
			break;
		case 'T':
			if (split_cpus(optarg, o, err) < 0)
				return -1;
			break;
		case OPT_STREAMS:
			if (units_parse_int(optarg, 1, 1024, &v, why) < 0)
				return err_set(err, "--streams: %s", why);
			o->streams = (int)v;
			break;
		case OPT_BIDIR:
			o->bidir = 1;
			break;
		case 'D':
			if (interim_arg(optarg, o, err) < 0)
				return -1;
			break;
		case 'i':
			if (iterations_arg(optarg, o, err) < 0)
				return -1;
			break;
		case 'I':
			if (confidence_arg(optarg, o, err) < 0)
				return -1;
			break;
		case 'r':
			o->conf_result_only = 1;
			break;
		case 'j':
			o->keep_stats = 1;
			break;
		case 'a':
			if (int_pair(optarg, 'a', 1, 65536, &o->lbuf.salign,
				     &o->lbuf.ralign, err) < 0)
				return -1;
			break;
		case 'A':
			if (int_pair(optarg, 'A', 1, 65536, &o->rbuf.salign,
				     &o->rbuf.ralign, err) < 0)
				return -1;
			break;
		case 'o':
			if (int_pair(optarg, 'o', 0, 65536, &o->lbuf.soff,
				     &o->lbuf.roff, err) < 0)
				return -1;
			break;
		case 'O':
			if (int_pair(optarg, 'O', 0, 65536, &o->rbuf.soff,
				     &o->rbuf.roff, err) < 0)
				return -1;
			break;
		case 'W':
			/* The send ring's width on each side (the receive
			 * width is accepted: one buffer receives). */
			if (int_pair(optarg, 'W', 1, 64, &o->lbuf.width,
				     &o->rbuf.width, err) < 0)
				return -1;
			break;
		case 'k':
			if (int_pair(optarg, 'k', 0, 1 << 24, &o->lbuf.dirty,
				     &o->rbuf.dirty, err) < 0)
				return -1;
			break;
		case 'K':
			if (int_pair(optarg, 'K', 0, 1 << 24, &o->lbuf.clean,
				     &o->rbuf.clean, err) < 0)
				return -1;
			break;
		case 'F':
			if (fill_arg(optarg, o, err) < 0)
				return -1;
			break;
		case 'n':
			/* As 2.7 on Linux: the CPU count comes from the
			 * system, and -n is ignored. */
			if (units_parse_int(optarg, 1, 1 << 20, &v, why) < 0)
				return err_set(err, "-n: %s", why);
			break;
		case 'N':
			o->no_control = 1;
			break;
		case 's':
			/* Up to 50 s: netserver gives an idle control
			 * connection 60. */
			if (units_parse_double(optarg, 0, 50, &o->wait, why) <
			    0)
				return err_set(err, "-s: %s", why);
			break;
		case 'S':
			o->lx.keepalive = o->rx.keepalive = 1;
			break;
		case 'w':
			if (units_parse_double(optarg, 0.001, 3600000,
					       &o->interval_ms, why) < 0)
				return err_set(err, "-w: %s", why);
			break;
		case 'b':
			if (units_parse_int(optarg, 1, 1 << 20, &v, why) < 0)
				return err_set(err, "-b: %s", why);
			o->interval_burst = (int)v;
			break;
		case 'y':
			if (int_pair(optarg, 'y', 0, 255, &o->lx.prio,
				     &o->rx.prio, err) < 0)
				return -1;
			break;
		case 'Y':
			if (tos_pair(optarg, o, err) < 0)
				return -1;
			break;
		case 'J':
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_JSON_STREAM:
			o->json_stream = 1;
			break;
		case OPT_SWEEP:
		case OPT_PLOT:
			if (strlen(optarg) >= sizeof(o->sweep))
				return err_set(
				    err, "--%s: \"%s\" is too long",
				    c == OPT_SWEEP ? "sweep" : "plot", optarg);
			snprintf(c == OPT_SWEEP ? o->sweep : o->plot,
				 sizeof(o->sweep), "%s", optarg);
			break;
		case OPT_IFSTAT:
			if (optarg[0] == '\0' ||
			    strlen(optarg) >= sizeof(o->ifstat) ||
			    strchr(optarg, '/') != NULL)
				return err_set(err,
					       "--ifstat: \"%s\" is not an "
					       "interface name",
					       optarg);
			snprintf(o->ifstat, sizeof(o->ifstat), "%s", optarg);
			break;
		case OPT_WIRE:
			o->wire = 1;
			if (optarg != NULL) {
				if (optarg[0] == '\0' ||
				    strlen(optarg) >= sizeof(o->wire_if) ||
				    strchr(optarg, '/') != NULL)
					return err_set(err,
						       "--wire: \"%s\" is not "
						       "an interface name",
						       optarg);
				snprintf(o->wire_if, sizeof(o->wire_if), "%s",
					 optarg);
			}
			break;
		case OPT_AUTH:
			if (optarg[0] == '\0' ||
			    strlen(optarg) >= sizeof(o->auth_file))
				return err_set(err,
					       "--auth: bad key file name");
			snprintf(o->auth_file, sizeof(o->auth_file), "%s",
				 optarg);
			break;
		case OPT_LEGACY:
			o->legacy = 1;
			break;
		case 'Z':
			/* netperf 2.7 cuts a longer one to what fits in a
			 * message; we refuse it instead. */
			if (optarg[0] == '\0' ||
			    strlen(optarg) >= sizeof(o->passphrase))
				return err_set(err,
					       "-Z: a passphrase of 1 to %zu "
					       "bytes",
					       sizeof(o->passphrase) - 1);
			snprintf(o->passphrase, sizeof(o->passphrase), "%s",
				 optarg);
			break;
		case OPT_BATCH:
			if (units_parse_int(optarg, 1, FAST_BATCH_MAX, &v,
					    why) < 0)
				return err_set(err, "--batch: %s", why);
			o->batch = (int)v;
			break;
		case OPT_BUSY_POLL:
			if (units_parse_int(optarg, 1, 1000000, &v, why) < 0)
				return err_set(err, "--busy-poll: %s", why);
			o->busy_poll = (int)v;
			break;
		case OPT_UDP_GSO:
			o->udp_gso = 1;
			break;
		case OPT_UDP_GRO:
			o->udp_gro = 1;
			break;
		case OPT_ZEROCOPY:
			o->zerocopy = 1;
			break;
		case OPT_START_AT:
			if (cli_start_at(optarg, clock_real_ns(),
					 &o->start_at_ns, err) < 0)
				return -1;
			break;
		case OPT_RATE:
			if (units_parse_rate(optarg, &d, why) < 0)
				return err_set(err, "--rate: %s", why);
			o->rate = d;
			break;
		case '4':
			o->family = AF_INET;
			break;
		case '6':
			o->family = AF_INET6;
			break;
		case 'd':
			o->debug++;
			break;
		case 'h':
			o->want_help = 1;
			break;
		case 'V':
			o->want_version = 1;
			break;
		case ':':
			o->usage_error = 1;
			/* A long option has no letter for %c to print. */
			if (optopt >= OPT_RATE)
				return err_set(err, "option %s needs a value",
					       argv[optind - 1]);
			return err_set(err, "option -%c needs a value", optopt);
		default:
			o->usage_error = 1;
			if (optopt != 0)
				return err_set(err, "unknown option -%c",
					       optopt);
			return err_set(err, "unknown option %s",
				       argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
		return err_set(err, "unexpected argument \"%s\"", argv[optind]);
	return optind;
}

/* The test-specific letters of 2.7's omni parser beyond the classic
 * ones; returns 0, or -1 with err set. */
static int
test_letter(int c, struct netperf_opts *o, char *err)
{
	char why[ERR_LEN], a[64], b[64];
	int64_t v;

	switch (c) {
	case 'a':
		o->rx.defer_accept = 1;
		return 0;
	case 'B':
		/* IP_PKTINFO for a UDP receiver bound to many addresses;
		 * netserver binds the one the control connection used. */
		return 0;
	case 'c':
		o->conn_test = 1;
		return 0;
	case 'C':
		o->lx.cork = o->rx.cork = 1;
		return 0;
	case 'd':
		return direction_arg(optarg, &o->omni_dir, err);
	case 'f':
		o->lx.mtu_do = o->rx.mtu_do = 1;
		return 0;
	case 'F':
		o->lx.fastopen = o->rx.fastopen = 1;
		return 0;
	case 'g':
		o->lx.debug = o->rx.debug = 1;
		return 0;
	case 'i':
		/* 2.7 prints this and carries on. */
		fputs("The support for check_interval has been removed "
		      "because the contributing editor no longer knew what "
		      "it was for\n",
		      stderr);
		return 0;
	case 'I':
		o->use_write = 1;
		return 0;
	case 'j':
		/* Parsed and never used by 2.7; --streams runs parallel
		 * connections here. */
		if (units_parse_int(optarg, 0, 1 << 20, &v, why) < 0)
			return err_set(err, "-j: %s", why);
		return 0;
	case 'K':
		if (units_split_pair(optarg, a, b, sizeof(a), err) < 0 ||
		    strlen(a) >= sizeof(o->lx.cong) ||
		    strlen(b) >= sizeof(o->rx.cong) ||
		    (a[0] == '\0' && b[0] == '\0'))
			return err_set(err, "-K: \"%s\" is not an algorithm "
					    "name[,name]",
				       optarg);
		if (a[0] != '\0')
			snprintf(o->lx.cong, sizeof(o->lx.cong), "%.15s", a);
		if (b[0] != '\0')
			snprintf(o->rx.cong, sizeof(o->rx.cong), "%.15s", b);
		else if (strchr(optarg, ',') == NULL)
			snprintf(o->rx.cong, sizeof(o->rx.cong), "%.15s", a);
		return 0;
	case 'l':
		if (units_parse_int(optarg, 0, 255, &v, why) < 0)
			return err_set(err, "-l: %s", why);
		o->lx.mcast_ttl = o->rx.mcast_ttl = (int)v;
		return 0;
	case 'n':
	case 'N':
		/* Connected UDP sockets on either side: ours always are. */
		return 0;
	case 'p':
		/* 2.7's bounds where a part is left out: 5000 and 65535. */
		o->port_min = 5000;
		o->port_max = 65535;
		if (port_pair(optarg, 'p', &o->port_min, &o->port_max, 0,
			      err) < 0)
			return -1;
		if (o->port_min < 1 || o->port_min > o->port_max)
			return err_set(err, "-p: \"%s\" is not a port range "
					    "min[,max] with 1 <= min <= max",
				       optarg);
		return 0;
	case 'q':
		if (units_parse_size(optarg, (int64_t)1 << 50, &v, why) < 0)
			return err_set(err, "-q: %s", why);
		o->lx.pacing = (uint64_t)v;
		return 0;
	case 'R':
		if (units_parse_int(optarg, 0, 1, &v, why) < 0)
			return err_set(err, "-R: %s", why);
		o->routing = (int)v;
		return 0;
	case 't':
		/* As 2.7: the word holds "stream" or "dgram". */
		snprintf(a, sizeof(a), "%s", optarg);
		for (char *s = a; *s; s++)
			*s = (char)tolower((unsigned char)*s);
		if (strstr(a, "stream") != NULL)
			o->omni_socktype = SOCK_STREAM;
		else if (strstr(a, "dgram") != NULL)
			o->omni_socktype = SOCK_DGRAM;
		else
			return err_set(err, "-t: socket type \"%s\" is not "
					    "stream or dgram",
				       optarg);
		return 0;
	case 'T':
		if (strcasecmp(optarg, "tcp") == 0)
			o->omni_proto = IPPROTO_TCP;
		else if (strcasecmp(optarg, "udp") == 0)
			o->omni_proto = IPPROTO_UDP;
		else
			return err_set(err,
				       "-T: only tcp and udp are supported, "
				       "not \"%s\"",
				       optarg);
		return 0;
	case 'u':
		if (strlen(optarg) >= sizeof(o->uuid))
			return err_set(err, "-u: a UUID has at most %zu "
					    "characters",
				       sizeof(o->uuid) - 1);
		snprintf(o->uuid, sizeof(o->uuid), "%s", optarg);
		return 0;
	case 'U':
		o->retry_connect = 1;
		return 0;
	case 'V':
		/* 2.7 on Linux: each receiver splices into /dev/null. */
		o->splice = 1;
		return 0;
	case 'w':
		/* In 2.7's option string with no case: accepted, unused. */
		return 0;
	case 'W':
		if (units_parse_int(optarg, 1, 64, &v, why) < 0)
			return err_set(err, "-W: %s", why);
		o->lbuf.width = (int)v;
		return 0;
	default:
		o->usage_error = 1;
		return err_set(err, "unknown test option -%c", optopt);
	}
}

static int
parse_test(int argc, char **argv, struct netperf_opts *o, char *err)
{
	char why[ERR_LEN];
	int64_t v;
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt(argc, argv,
			   "+:m:M:s:S:r:DP:H:L:46b:e:oOkG:"
			   "aBcCd:fFgi:Ij:K:l:nNp:q:R:t:T:u:UVw:W:")) != -1) {
		switch (c) {
		case 'm':
			/* "x" sets only netperf's size, as in netperf. */
			if (size_pair(optarg, 'm', 1, &o->send_size,
				      &o->rsend_size, 0, err) < 0)
				return -1;
			break;
		case 'M':
			/* The first value is netserver's receive size. */
			if (size_pair(optarg, 'M', 1, &o->rrecv_size,
				      &o->recv_size, 0, err) < 0)
				return -1;
			break;
		case 's':
			if (buf_pair(optarg, 's', &o->lsndbuf, &o->lrcvbuf,
				     err) < 0)
				return -1;
			break;
		case 'S':
			if (buf_pair(optarg, 'S', &o->rsndbuf, &o->rrcvbuf,
				     err) < 0)
				return -1;
			break;
		case 'r':
			if (size_pair(optarg, 'r', 1, &o->req_size,
				      &o->rsp_size, 1, err) < 0)
				return -1;
			o->omni_rr = 1;
			break;
		case 'D':
			o->nodelay = 1;
			break;
		case 'P':
			if (port_pair(optarg, 'P', &o->ldata_port,
				      &o->rdata_port, 1, err) < 0)
				return -1;
			break;
		case 'H':
			if (host_family(optarg, 'H', o->data_host,
					&o->data_family, err) < 0)
				return -1;
			break;
		case 'L':
			if (host_family(optarg, 'L', o->data_local,
					&o->data_family, err) < 0)
				return -1;
			break;
		case '4':
			o->data_family = AF_INET;
			break;
		case '6':
			o->data_family = AF_INET6;
			break;
		case 'b':
			if (units_parse_int(optarg, 0, 1024, &v, why) < 0)
				return err_set(err, "-b: %s", why);
			o->burst = (int)v;
			break;
		case 'o':
		case 'O':
		case 'k':
			/* As netperf: the list is optional, and the next word
			 * is taken as the list unless it is an option. */
			o->output_mode = (char)c;
			o->output_arg[0] = '\0';
			if (optind < argc && argv[optind][0] != '-') {
				if (strlen(argv[optind]) >=
				    sizeof(o->output_arg))
					return err_set(err,
						       "-%c: list too long", c);
				snprintf(o->output_arg, sizeof(o->output_arg),
					 "%s", argv[optind]);
				optind++;
			}
			break;
		case 'G':
			/* Linux accepts 88..32767 for TCP_MAXSEG. */
			if (units_parse_int(optarg, 88, 32767, &o->mss, why) <
			    0)
				return err_set(err, "-G: %s", why);
			break;
		case 'e':
			if (units_parse_double(optarg, 0.001, 3600, &o->rto,
					       why) < 0)
				return err_set(err, "-e: %s", why);
			break;
		default:
			if (test_letter(c, o, err) < 0)
				return -1;
			break;
		case ':':
			o->usage_error = 1;
			return err_set(err, "test option -%c needs a value",
				       optopt);
		case '?':
			o->usage_error = 1;
			return err_set(err, "unknown test option -%c", optopt);
		}
	}
	if (optind < argc)
		return err_set(err, "unexpected argument \"%s\"", argv[optind]);
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

	if (dir == 0)
		dir = o->omni_rr ? CLI_DIR_XMIT | CLI_DIR_RECV : CLI_DIR_XMIT;
	if (dir == (CLI_DIR_XMIT | CLI_DIR_RECV))
		name = o->conn_test ? (udp ? NULL : "TCP_CRR")
				    : (udp ? "UDP_RR" : "TCP_RR");
	else if (o->conn_test)
		name = NULL;
	else if (dir == CLI_DIR_XMIT)
		name = udp ? "UDP_STREAM" : "TCP_STREAM";
	else
		name = udp ? NULL : "TCP_MAERTS";
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
	if (o->streams > 1 || o->bidir || o->wire)
		return err_set(err, "-N: --streams, --bidir and --wire need "
				    "netserver");
	if (o->rdata_port == 0)
		o->rdata_port = m->nc_port;
	if (module_is_rr(m))
		o->rsp_size = o->req_size;
	return 0;
}

int
cli_netperf_parse(int argc, char **argv, struct netperf_opts *o, char *err)
{
	const struct test_module *m;
	int split;

	netperf_defaults(o);
	split = parse_global(argc, argv, o, err);
	if (split < 0)
		return -1;
	if (split < argc) {
		/* getopt wants argv[0] to be a program name. */
		char **rest = argv + split - 1;

		if (parse_test(argc - split + 1, rest, o, err) < 0)
			return -1;
	}
	if (o->want_help || o->want_version)
		return 0;
	if (strcmp(o->test, "OMNI") == 0 && omni_module(o, err) < 0)
		return -1;
	m = module_find(o->test);
	if (m == NULL) {
		o->usage_error = 1;
		return err_set(err, "unknown test \"%s\"", o->test);
	}
	if (o->fmt == 0)
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
	if (o->ldata_port != 0 && o->streams > 1)
		return err_set(err,
			       "-P: one local data port cannot serve %d "
			       "streams",
			       o->streams);
	if (o->rate > 0 && !module_has(m, MODULE_F_RATE)) {
		char names[128];

		module_names_with(MODULE_F_RATE, names, sizeof(names));
		return err_set(err, "--rate applies to %s only", names);
	}
	{
		struct test_params p;

		cli_netperf_request(o, &p);
		if (fast_check(m, &p, err) < 0)
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
	if (o->bidir && o->count > 0)
		return err_set(err, "--bidir runs for a time: give -l in "
				    "seconds, not a count");
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
	return 0;
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
				       "--max-skew and files, not %s",
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
}

/* netserver's long options that have no short letter. */
enum {
	OPT_IDLE_TIMEOUT = 256,
	OPT_PIDFILE,
	OPT_LOG,
	OPT_SYSLOG,
	OPT_AUTH_FILE,
	OPT_LEGACY_SERVER,
	OPT_LEGACY_PASS,
	OPT_ALLOW,
	OPT_MAX_SESSIONS,
	OPT_MAX_PER_ADDR,
	OPT_MAX_DURATION,
	OPT_MAX_MESSAGE,
	OPT_MAX_BUFFER,
	OPT_MAX_STREAMS,
	OPT_ACCEPT_TIMEOUT,
	OPT_MAX_SESSION_MEMORY,
	OPT_HELLO_TIMEOUT,
	OPT_MAX_SESSION_TIME,
	OPT_IPV6_PREFIX,
	OPT_ALLOW_PRIVILEGED_PORTS,
};

/* Copies a path option's value; returns 0, or -1 with err set. */
static int
path_arg(const char *name, const char *arg, char *out, char *err)
{
	if (arg[0] == '\0' || strlen(arg) >= CLI_PATH_LEN)
		return err_set(err, "--%s: bad file name", name);
	snprintf(out, CLI_PATH_LEN, "%s", arg);
	return 0;
}

/* One netserver option that sets a limit or a service setting; returns
 * 0, or -1 with err set. */
static int
netserver_long(int c, const char *arg, struct netserver_opts *o, char *err)
{
	char why[ERR_LEN];
	double d;
	int64_t v;

	switch (c) {
	case OPT_IDLE_TIMEOUT:
		if (units_parse_double(arg, 0.1, 86400, &d, why) < 0)
			return err_set(err, "--idle-timeout: %s", why);
		o->idle_timeout = d;
		return 0;
	case OPT_ACCEPT_TIMEOUT:
		if (units_parse_double(arg, 0.1, 3600, &d, why) < 0)
			return err_set(err, "--accept-timeout: %s", why);
		o->accept_timeout = d;
		return 0;
	case OPT_MAX_DURATION:
		if (units_parse_double(arg, 1, 31536000, &d, why) < 0)
			return err_set(err, "--max-duration: %s", why);
		o->max_duration = d;
		return 0;
	case OPT_MAX_SESSIONS:
		if (units_parse_int(arg, 1, 4096, &v, why) < 0)
			return err_set(err, "--max-sessions: %s", why);
		o->max_sessions = (int)v;
		return 0;
	case OPT_MAX_PER_ADDR:
		if (units_parse_int(arg, 1, 4096, &v, why) < 0)
			return err_set(err, "--max-per-address: %s", why);
		o->max_per_addr = (int)v;
		return 0;
	case OPT_MAX_STREAMS:
		if (units_parse_int(arg, 1, 1024, &v, why) < 0)
			return err_set(err, "--max-streams: %s", why);
		o->max_streams = (int)v;
		return 0;
	case OPT_MAX_MESSAGE:
		if (units_parse_size(arg, CLI_SIZE_MAX, &v, why) < 0)
			return err_set(err, "--max-message: %s", why);
		if (v < 1)
			return err_set(err,
				       "--max-message: must be at least 1");
		o->max_message = v;
		return 0;
	case OPT_MAX_BUFFER:
		if (units_parse_size(arg, INT32_MAX, &v, why) < 0)
			return err_set(err, "--max-buffer: %s", why);
		if (v < 1)
			return err_set(err, "--max-buffer: must be at least 1");
		o->max_buffer = v;
		return 0;
	case OPT_MAX_SESSION_MEMORY:
		if (units_parse_size(arg, INT64_C(1) << 40, &v, why) < 0)
			return err_set(err, "--max-session-memory: %s", why);
		if (v < 1)
			return err_set(err, "--max-session-memory: must be at "
					    "least 1");
		o->max_session_memory = v;
		return 0;
	case OPT_HELLO_TIMEOUT:
		if (units_parse_double(arg, 0.1, 3600, &d, why) < 0)
			return err_set(err, "--hello-timeout: %s", why);
		o->hello_timeout = d;
		return 0;
	case OPT_MAX_SESSION_TIME:
		if (units_parse_double(arg, 1, 31536000, &d, why) < 0)
			return err_set(err, "--max-session-time: %s", why);
		o->max_session_time = d;
		return 0;
	case OPT_IPV6_PREFIX:
		if (units_parse_int(arg, 1, 128, &v, why) < 0)
			return err_set(err, "--ipv6-prefix: %s", why);
		o->ipv6_prefix = (int)v;
		return 0;
	case OPT_ALLOW_PRIVILEGED_PORTS:
		o->allow_privileged_ports = 1;
		return 0;
	case OPT_PIDFILE:
		return path_arg("pidfile", arg, o->pidfile, err);
	case OPT_LOG:
		return path_arg("log", arg, o->log, err);
	case OPT_AUTH_FILE:
		return path_arg("auth-file", arg, o->auth_file, err);
	case OPT_LEGACY_SERVER:
		o->legacy = 1;
		return 0;
	case OPT_LEGACY_PASS:
		return path_arg("legacy-passphrase", arg, o->legacy_pass_file,
				err);
	case OPT_SYSLOG:
		o->syslog = 1;
		return 0;
	case OPT_ALLOW:
		if (acl_parse(&o->allow, arg, why) < 0)
			return err_set(err, "--allow: %s", why);
		return 0;
	default:
		return err_set(err, "unknown option %d", c);
	}
}

int
cli_netserver_parse(int argc, char **argv, struct netserver_opts *o, char *err)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {"user", required_argument, NULL, 'u'},
	    {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
	    {"pidfile", required_argument, NULL, OPT_PIDFILE},
	    {"log", required_argument, NULL, OPT_LOG},
	    {"syslog", no_argument, NULL, OPT_SYSLOG},
	    {"auth-file", required_argument, NULL, OPT_AUTH_FILE},
	    {"legacy", no_argument, NULL, OPT_LEGACY_SERVER},
	    {"legacy-passphrase", required_argument, NULL, OPT_LEGACY_PASS},
	    {"allow", required_argument, NULL, OPT_ALLOW},
	    {"max-sessions", required_argument, NULL, OPT_MAX_SESSIONS},
	    {"max-per-address", required_argument, NULL, OPT_MAX_PER_ADDR},
	    {"max-duration", required_argument, NULL, OPT_MAX_DURATION},
	    {"max-message", required_argument, NULL, OPT_MAX_MESSAGE},
	    {"max-buffer", required_argument, NULL, OPT_MAX_BUFFER},
	    {"max-streams", required_argument, NULL, OPT_MAX_STREAMS},
	    {"accept-timeout", required_argument, NULL, OPT_ACCEPT_TIMEOUT},
	    {"max-session-memory", required_argument, NULL,
	     OPT_MAX_SESSION_MEMORY},
	    {"hello-timeout", required_argument, NULL, OPT_HELLO_TIMEOUT},
	    {"max-session-time", required_argument, NULL,
	     OPT_MAX_SESSION_TIME},
	    {"ipv6-prefix", required_argument, NULL, OPT_IPV6_PREFIX},
	    {"allow-privileged-ports", no_argument, NULL,
	     OPT_ALLOW_PRIVILEGED_PORTS},
	    {NULL, 0, NULL, 0},
	};
	char why[ERR_LEN];
	int64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->port = 12865;
	o->family = AF_UNSPEC;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:p:L:46Dfdu:hVZ:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			if (units_parse_int(optarg, 0, 65535, &v, why) < 0)
				return err_set(err, "-p: %s", why);
			o->port = (int)v;
			break;
		case 'L':
			if (host_family(optarg, 'L', o->listen, &o->family,
					err) < 0)
				return -1;
			break;
		case '4':
			o->family = AF_INET;
			break;
		case '6':
			o->family = AF_INET6;
			break;
		case 'D':
			o->foreground = 1;
			break;
		case 'f':
			o->nofork = 1;
			break;
		case 'd':
			o->debug++;
			break;
		case 'Z':
			if (optarg[0] == '\0' ||
			    strlen(optarg) >= sizeof(o->passphrase))
				return err_set(err, "-Z: the passphrase must "
						    "have 1 to 255 characters");
			snprintf(o->passphrase, sizeof(o->passphrase), "%s",
				 optarg);
			break;
		case 'u':
			if (optarg[0] == '\0' ||
			    strlen(optarg) >= sizeof(o->user))
				return err_set(err, "-u: bad user name");
			snprintf(o->user, sizeof(o->user), "%s", optarg);
			break;
		case 'h':
			o->want_help = 1;
			break;
		case 'V':
			o->want_version = 1;
			break;
		case ':':
			if (optopt == 0 || optopt >= OPT_IDLE_TIMEOUT)
				return err_set(err, "option %s needs a value",
					       argv[optind - 1]);
			return err_set(err, "option -%c needs a value", optopt);
		case '?':
			if (optopt != 0)
				return err_set(err, "unknown option -%c",
					       optopt);
			return err_set(err, "unknown option %s",
				       argv[optind - 1]);
		default:
			if (netserver_long(c, optarg, o, err) < 0)
				return -1;
			break;
		}
	}
	if (optind < argc)
		return err_set(err, "unexpected argument \"%s\"", argv[optind]);
	if (o->syslog && o->log[0] != '\0')
		return err_set(err, "--log and --syslog cannot be combined");
	if (o->passphrase[0] != '\0' && o->auth_file[0] != '\0')
		return err_set(err, "-Z and --auth-file cannot be combined");
	return 0;
}
