/*
 * libFuzzer target for the gnuplot script writers (--plot): the input is
 * cut into the texts and numbers a result file or a sweep can carry (test
 * name, units, figure names, means, intervals, swept values), and each
 * writer's script must pass tests/plot_lint.h: printable ASCII, every
 * string ended on its line, no backquote, no comment, no quote in a
 * datablock. The same report with plain texts must give a script of the
 * same shape, strings aside: a text that got out of its string would
 * change it. escape_gnuplot is also checked on the raw input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plot_lint.h"
#include "np/compare.h"
#include "np/escape.h"
#include "np/merge.h"
#include "np/module.h"
#include "np/runplot.h"
#include "np/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c)                                                         \
	do {                                                                   \
		if (!(c))                                                      \
			__builtin_trap();                                      \
	} while (0)

/* The input, read from the front. */
struct cursor {
	const uint8_t *p;
	size_t left;
};

static uint8_t
take_byte(struct cursor *c)
{
	if (c->left == 0)
		return 0;
	c->left--;
	return *c->p++;
}

/* A text of up to cap - 1 bytes: a length byte, then the bytes (a NUL
 * among them ends it early, as it would in a C string). */
static void
take_text(struct cursor *c, char *out, size_t cap)
{
	size_t n = take_byte(c) % cap;

	if (n > c->left)
		n = c->left;
	memcpy(out, c->p, n);
	out[n] = '\0';
	c->p += n;
	c->left -= n;
}

/* Any double, NaN and infinities included. */
static double
take_double(struct cursor *c)
{
	uint8_t b[sizeof(double)] = {0};
	double d;

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = take_byte(c);
	memcpy(&d, b, sizeof(d));
	return d;
}

/* Any 64-bit count. */
static int64_t
take_i64(struct cursor *c)
{
	uint8_t b[sizeof(int64_t)] = {0};
	int64_t v;

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = take_byte(c);
	memcpy(&v, b, sizeof(v));
	return v;
}

static char *
script_of_compare(const struct compare_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	FUZZ_ASSERT(f != NULL);
	compare_plot_script(f, r);
	FUZZ_ASSERT(fclose(f) == 0 && text != NULL);
	return text;
}

static char *
script_of_sweep(const struct sweep *s, const struct sweep_point *pts, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	FUZZ_ASSERT(f != NULL);
	*rc = sweep_plot_script(f, s, pts);
	FUZZ_ASSERT(fclose(f) == 0 && text != NULL);
	return text;
}

/* a lints, b lints, and both have the same shape. */
static void
same_shape(const char *a, const char *b)
{
	size_t cap = strlen(a) + strlen(b) + 1;
	char *sa = malloc(cap), *sb = malloc(cap), why[128];

	FUZZ_ASSERT(sa != NULL && sb != NULL);
	FUZZ_ASSERT(plot_lint(a, sa, cap, why, sizeof(why)) == NULL);
	FUZZ_ASSERT(plot_lint(b, sb, cap, why, sizeof(why)) == NULL);
	FUZZ_ASSERT(strcmp(sa, sb) == 0);
	free(sa);
	free(sb);
}

static void
fuzz_compare(struct cursor *c)
{
	static struct compare_report r, plain;
	char *a, *b;

	memset(&r, 0, sizeof(r));
	take_text(c, r.test, sizeof(r.test));
	r.nrows = take_byte(c) % (COMPARE_NFIG + 1);
	for (int i = 0; i < r.nrows; i++) {
		struct compare_row *row = &r.row[i];

		take_text(c, row->name, sizeof(row->name));
		take_text(c, row->units, sizeof(row->units));
		row->mean_old = take_double(c);
		row->mean_new = take_double(c);
		row->ci_old = take_double(c);
		row->ci_new = take_double(c);
		row->significant = take_byte(c) & 1;
	}
	plain = r;
	snprintf(plain.test, sizeof(plain.test), "t");
	for (int i = 0; i < r.nrows; i++) {
		snprintf(plain.row[i].name, sizeof(plain.row[i].name), "n");
		snprintf(plain.row[i].units, sizeof(plain.row[i].units), "u");
	}
	a = script_of_compare(&r);
	b = script_of_compare(&plain);
	same_shape(a, b);
	free(a);
	free(b);
}

static void
fuzz_sweep(struct cursor *c)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_RR",
					    "UDP_STREAM", "TCP_CRR"};
	static const char fmts[] = {'m', 'g', 'k', 'x', 'K', 'M'};
	static struct sweep s, plain;
	static struct sweep_point pts[SWEEP_MAX];
	const struct test_module *m = module_find(tests[take_byte(c) % 4]);
	char fmt = fmts[take_byte(c) % sizeof(fmts)];
	char *a, *b;
	int ra, rb;

	FUZZ_ASSERT(m != NULL);
	memset(&s, 0, sizeof(s));
	take_text(c, s.param, sizeof(s.param));
	s.n = 1 + take_byte(c) % SWEEP_MAX;
	memset(pts, 0, sizeof(pts[0]) * (size_t)s.n);
	for (int i = 0; i < s.n; i++) {
		take_text(c, s.label[i], sizeof(s.label[i]));
		s.value[i] = take_i64(c);
		pts[i].ok = take_byte(c) & 1;
		pts[i].res.m = m;
		pts[i].res.fmt = fmt;
		pts[i].res.thruput = take_double(c);
		pts[i].res.side[RESULT_LOCAL].sd = take_double(c);
		pts[i].res.side[RESULT_REMOTE].sd = take_double(c);
	}
	/* The same script with a harmless name in place of the fuzzed
	 * one; a rate sweep (issue 32's latency against load) stays one,
	 * as it draws another plot. */
	plain = s;
	snprintf(plain.param, sizeof(plain.param), "%s",
		 sweep_is_rate(&s) ? "rate" : "m");
	a = script_of_sweep(&s, pts, &ra);
	b = script_of_sweep(&plain, pts, &rb);
	FUZZ_ASSERT(ra == rb);
	if (ra == 0)
		same_shape(a, b);
	free(a);
	free(b);
}

/* A -D run's plot: any figures in its intervals (NaN, infinities,
 * negatives), any remote host name; and a merge's, any run names and
 * samples. */
static void
fuzz_runplot(struct cursor *c)
{
	static const char *const tests[] = {"TCP_STREAM", "TCP_RR",
					    "UDP_STREAM", "UDP_RR"};
	static struct result_interim iv[16];
	static double streams[16][4];
	static struct merge_run runs[4], plain_runs[4];
	static struct merge_sample samples[4][16];
	struct result res, plain;
	struct merge m, pm;
	struct merge_figures fig;
	char err[ERR_LEN], *a, *b;
	size_t len;
	FILE *f;
	int n, ra, rb;

	memset(&res, 0, sizeof(res));
	res.m = module_find(tests[take_byte(c) % 4]);
	res.fmt = take_byte(c) & 1 ? 'x' : 'm';
	take_text(c, res.side[RESULT_REMOTE].name,
		  sizeof(res.side[RESULT_REMOTE].name));
	n = take_byte(c) % 17;
	for (int i = 0; i < n; i++) {
		memset(&iv[i], 0, sizeof(iv[i]));
		iv[i].value = take_double(c);
		iv[i].interval = take_double(c);
		iv[i].since_start = take_double(c);
		iv[i].partial = take_byte(c) & 1;
		iv[i].lat_count = take_byte(c);
		iv[i].p50 = take_double(c);
		iv[i].p99 = take_double(c);
		tcpinfo_clear(&iv[i].tcpi);
		iv[i].tcpi.n = take_byte(c) & 1;
		iv[i].tcpi.v[TCPINFO_RTT] = take_i64(c);
		iv[i].tcpi.v[TCPINFO_RETRANS] = take_i64(c);
		iv[i].nstreams = take_byte(c) % 5;
		for (int s = 0; s < iv[i].nstreams; s++)
			streams[i][s] = take_double(c);
		iv[i].stream = iv[i].nstreams > 0 ? streams[i] : NULL;
	}
	res.interim = iv;
	res.ninterim = n;
	plain = res;
	snprintf(plain.side[RESULT_REMOTE].name,
		 sizeof(plain.side[RESULT_REMOTE].name), "h");
	f = open_memstream(&a, &len);
	FUZZ_ASSERT(f != NULL);
	ra = runplot_script(f, &res, "x.svg", err);
	FUZZ_ASSERT(fclose(f) == 0 && a != NULL);
	f = open_memstream(&b, &len);
	FUZZ_ASSERT(f != NULL);
	rb = runplot_script(f, &plain, "x.svg", err);
	FUZZ_ASSERT(fclose(f) == 0 && b != NULL);
	FUZZ_ASSERT(ra == rb);
	if (ra == 0)
		same_shape(a, b);
	free(a);
	free(b);

	/* A merge as --merge leaves it: its samples checked (finite, not
	 * negative, at most a day long), any names. */
	memset(&m, 0, sizeof(m));
	memset(&fig, 0, sizeof(fig));
	take_text(c, m.test, sizeof(m.test));
	take_text(c, m.units, sizeof(m.units));
	m.nruns = take_byte(c) % 5;
	m.runs = runs;
	for (int r = 0; r < m.nruns; r++) {
		memset(&runs[r], 0, sizeof(runs[r]));
		take_text(c, runs[r].name, sizeof(runs[r].name));
		runs[r].start_ns = take_i64(c);
		if (runs[r].start_ns < 0)
			runs[r].start_ns = -(runs[r].start_ns + 1);
		runs[r].nsamples = take_byte(c) % 17;
		runs[r].samples = samples[r];
		for (int i = 0; i < runs[r].nsamples; i++) {
			double v = take_double(c), l = take_double(c);

			samples[r][i].value = isfinite(v) ? fabs(v) : 0;
			samples[r][i].interval =
			    isfinite(l) ? fmod(fabs(l), 86400) : 0;
			samples[r][i].end_ns = take_i64(c);
			if (samples[r][i].end_ns < 0)
				samples[r][i].end_ns =
				    -(samples[r][i].end_ns + 1);
		}
		plain_runs[r] = runs[r];
		snprintf(plain_runs[r].name, sizeof(plain_runs[r].name), "r");
	}
	fig.thruput_window = take_byte(c) & 1 ? 1 : -1;
	fig.window_start_ns = take_i64(c);
	fig.window_end_ns = take_i64(c);
	pm = m;
	pm.runs = plain_runs;
	snprintf(pm.test, sizeof(pm.test), "t");
	snprintf(pm.units, sizeof(pm.units), "u");
	f = open_memstream(&a, &len);
	FUZZ_ASSERT(f != NULL);
	ra = runplot_merge_script(f, &m, &fig, err);
	FUZZ_ASSERT(fclose(f) == 0 && a != NULL);
	f = open_memstream(&b, &len);
	FUZZ_ASSERT(f != NULL);
	rb = runplot_merge_script(f, &pm, &fig, err);
	FUZZ_ASSERT(fclose(f) == 0 && b != NULL);
	FUZZ_ASSERT(ra == rb);
	if (ra == 0)
		same_shape(a, b);
	free(a);
	free(b);
}

/* The raw input as one text: a whole literal, and when the text is plain
 * (printable, no backslash or backquote, short enough) its exact copy. */
static void
fuzz_escape(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), out[ESCAPE_GNUPLOT_LEN];
	char script[ESCAPE_GNUPLOT_LEN + 16], why[128], back[ESCAPE_MAX + 1];
	size_t len, n = 0, plain = 1;

	FUZZ_ASSERT(in != NULL);
	memcpy(in, data, size);
	in[size] = '\0';
	escape_gnuplot(out, sizeof(out), in);
	len = strlen(out);
	FUZZ_ASSERT(len >= 2 && len <= ESCAPE_MAX + 2);
	FUZZ_ASSERT(out[0] == '\'' && out[len - 1] == '\'');
	snprintf(script, sizeof(script), "set title %s\n", out);
	FUZZ_ASSERT(plot_lint(script, NULL, 0, why, sizeof(why)) == NULL);
	for (size_t i = 1; i + 1 < len; i++) {
		back[n++] = out[i];
		if (out[i] == '\'')
			i++;
	}
	back[n] = '\0';
	for (const unsigned char *p = (const unsigned char *)in; *p != '\0';
	     p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '\\' || *p == '`')
			plain = 0;
	if (plain && strlen(in) + strlen(in) <= ESCAPE_MAX)
		FUZZ_ASSERT(strcmp(back, in) == 0);
	free(in);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = {data, size};

	fuzz_escape(data, size);
	switch (take_byte(&c) % 4) {
	case 1:
	case 3:
		fuzz_sweep(&c);
		break;
	case 2:
		fuzz_runplot(&c);
		break;
	default:
		fuzz_compare(&c);
	}
	return 0;
}
