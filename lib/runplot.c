#include "np/runplot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np/err.h"
#include "np/escape.h"
#include "np/figure.h"
#include "np/select.h"
#include "np/sweep.h"
#include "np/units.h"

/* "Trans" for transactions/s, else the -f units. */
static const char *
unit_word(const struct result *res)
{
	return module_is_rr(res->m) && res->fmt == 'x' ? "Trans"
						       : units_label(res->fmt);
}

void
runplot_line(FILE *out, const struct result *res,
	     const struct result_interim *iv, int n)
{
	double t1 = iv->since_start, t0 = t1 - iv->interval;
	int i;

	fprintf(out, "interval %d  %.2f-%.2f s%s", n + 1, t0 < 0 ? 0 : t0, t1,
		iv->partial ? " (partial)" : "");
	if (module_is_rr(res->m) && res->fmt == 'x')
		fprintf(out, "  tps %.0f", iv->value);
	else
		fprintf(out, "  %.2f %s/s", iv->value, figure_unit_label(res));
	if (iv->lat_count > 0)
		fprintf(out, "  p50 %.0f us  p99 %.0f us  p99.9 %.0f us",
			iv->p50, iv->p99, iv->p999);
	/* Time-outs and errors are the request/response tests' counts;
	 * every test has its streams. */
	if (module_is_rr(res->m))
		fprintf(out, "  timeouts %llu  errors %llu",
			(unsigned long long)iv->timeouts,
			(unsigned long long)iv->errors);
	if (iv->lost_split)
		fprintf(out, "  lost requests %lld  lost responses %lld",
			(long long)iv->lost_req, (long long)iv->lost_rsp);
	fprintf(out, "  flows %d", iv->flows);
	/* UDP_RR's and UDP_CRR's late answers, after the figures that
	 * scripts already read in their places. */
	if (module_has(res->m, MODULE_F_RETRY))
		fprintf(out, "  late %llu", (unsigned long long)iv->late);
	if (iv->tcpi.n > 0) {
		if (iv->tcpi.v[TCPINFO_RETRANS] >= 0)
			fprintf(out, "  retrans %lld",
				(long long)iv->tcpi.v[TCPINFO_RETRANS]);
		if (iv->tcpi.v[TCPINFO_RTT] >= 0)
			fprintf(out, "  srtt %lld us",
				(long long)iv->tcpi.v[TCPINFO_RTT]);
	}
	if (iv->nstreams > 1 && iv->stream != NULL) {
		fputs("  streams", out);
		for (i = 0; i < iv->nstreams; i++)
			fprintf(out, " %.2f", iv->stream[i]);
	}
	/* A request mix: each class's transactions (and with --timeout
	 * its time-outs; UDP_RR, its late answers) and latency. */
	for (i = 0; iv->classes != NULL && i < iv->nclasses; i++) {
		fprintf(out, "  class%d %llu", i,
			(unsigned long long)iv->classes[i].count);
		if (res->p.timeout > 0)
			fprintf(out, " timeouts %llu",
				(unsigned long long)iv->classes[i].timeouts);
		if (module_has(res->m, MODULE_F_RETRY))
			fprintf(out, " late %llu",
				(unsigned long long)iv->classes[i].late);
		if (iv->classes[i].lat_count > 0)
			fprintf(out, " p50 %.0f us p99 %.0f us p99.9 %.0f us",
				iv->classes[i].p50, iv->classes[i].p99,
				iv->classes[i].p999);
	}
	fputc('\n', out);
	fflush(out);
}

void
runplot_keyval(FILE *out, const struct result *res,
	       const struct result_interim *iv, int n)
{
	int i;

	select_interim(out, res, iv, n, 'k');
	fprintf(out, "NETPERF_INTERIM_PARTIAL[%d]=%d\n", n, iv->partial);
	if (iv->lat_count > 0)
		fprintf(out,
			"NETPERF_INTERIM_P50_LATENCY[%d]=%.2f\n"
			"NETPERF_INTERIM_P99_LATENCY[%d]=%.2f\n"
			"NETPERF_INTERIM_P999_LATENCY[%d]=%.2f\n",
			n, iv->p50, n, iv->p99, n, iv->p999);
	if (iv->tcpi.n > 0 && iv->tcpi.v[TCPINFO_RETRANS] >= 0)
		fprintf(out, "NETPERF_INTERIM_RETRANS[%d]=%lld\n", n,
			(long long)iv->tcpi.v[TCPINFO_RETRANS]);
	if (iv->tcpi.n > 0 && iv->tcpi.v[TCPINFO_RTT] >= 0)
		fprintf(out, "NETPERF_INTERIM_SRTT[%d]=%lld\n", n,
			(long long)iv->tcpi.v[TCPINFO_RTT]);
	if (iv->nstreams > 1 && iv->stream != NULL) {
		fprintf(out, "NETPERF_INTERIM_STREAMS[%d]=", n);
		for (i = 0; i < iv->nstreams; i++)
			fprintf(out, "%s%.2f", i ? "," : "", iv->stream[i]);
		fputc('\n', out);
	}
	if (module_is_rr(res->m))
		fprintf(out,
			"NETPERF_INTERIM_TIMEOUTS[%d]=%llu\n"
			"NETPERF_INTERIM_ERRORS[%d]=%llu\n",
			n, (unsigned long long)iv->timeouts, n,
			(unsigned long long)iv->errors);
	if (module_has(res->m, MODULE_F_RETRY))
		fprintf(out, "NETPERF_INTERIM_LATE_ANSWERS[%d]=%llu\n", n,
			(unsigned long long)iv->late);
	fprintf(out, "NETPERF_INTERIM_FLOWS[%d]=%d\n", n, iv->flows);
	/* A request mix: each class's transactions, P99 and time-outs
	 * (and UDP_RR's late answers), in class order, comma-separated as
	 * the streams' figures. */
	if (iv->nclasses > 0 && iv->classes != NULL) {
		fprintf(out, "NETPERF_INTERIM_CLASS_TRANS[%d]=", n);
		for (i = 0; i < iv->nclasses; i++)
			fprintf(out, "%s%llu", i ? "," : "",
				(unsigned long long)iv->classes[i].count);
		fprintf(out, "\nNETPERF_INTERIM_CLASS_P99_LATENCY[%d]=", n);
		for (i = 0; i < iv->nclasses; i++)
			fprintf(out, "%s%.2f", i ? "," : "",
				iv->classes[i].p99);
		fprintf(out, "\nNETPERF_INTERIM_CLASS_TIMEOUTS[%d]=", n);
		for (i = 0; i < iv->nclasses; i++)
			fprintf(out, "%s%llu", i ? "," : "",
				(unsigned long long)iv->classes[i].timeouts);
		if (module_has(res->m, MODULE_F_RETRY)) {
			fprintf(out,
				"\nNETPERF_INTERIM_CLASS_LATE_ANSWERS[%d]=", n);
			for (i = 0; i < iv->nclasses; i++)
				fprintf(
				    out, "%s%llu", i ? "," : "",
				    (unsigned long long)iv->classes[i].late);
		}
		fputc('\n', out);
	}
	if (iv->lost_split)
		fprintf(out,
			"NETPERF_INTERIM_LOST_REQUESTS[%d]=%lld\n"
			"NETPERF_INTERIM_LOST_RESPONSES[%d]=%lld\n",
			n, (long long)iv->lost_req, n, (long long)iv->lost_rsp);
	fflush(out);
}

/* A figure for a datablock: "?" (gnuplot's missing value) when v < 0 or
 * not a finite number. */
static void
put_num(FILE *f, double v)
{
	if (!isfinite(v) || v < 0)
		fputs(" ?", f);
	else
		fprintf(f, " %.6g", v);
}

/* What the run's intervals hold beyond the rate. */
struct runplot_has {
	int lat, tcp, streams;
};

static void
run_has(const struct result *res, struct runplot_has *h)
{
	int i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < res->ninterim; i++) {
		const struct result_interim *iv = &res->interim[i];

		if (iv->lat_count > 0)
			h->lat = 1;
		if (iv->tcpi.n > 0 && iv->tcpi.v[TCPINFO_RTT] >= 0)
			h->tcp = 1;
		if (iv->nstreams > h->streams)
			h->streams = iv->nstreams;
	}
}

/* The longest whole interval: what -D asked for, give or take. */
static double
whole_interval(const struct result *res)
{
	double len = 0;
	int i;

	for (i = 0; i < res->ninterim; i++)
		if (!res->interim[i].partial && res->interim[i].interval > len)
			len = res->interim[i].interval;
	return len;
}

/* The datablock: time, rate, p50, p99, retransmits, srtt, then each
 * stream's rate; one row per interval, at its end. A tail shorter than
 * half an interval is left out: its rate over a few milliseconds is
 * noise, not a change the picture should show. */
static void
run_data(FILE *f, const struct result *res, const struct runplot_has *h)
{
	double whole = whole_interval(res);
	int i, s;

	fputs("$run << EOD\n", f);
	for (i = 0; i < res->ninterim; i++) {
		const struct result_interim *iv = &res->interim[i];
		int tcp = iv->tcpi.n > 0;

		if (iv->partial && iv->interval < whole / 2)
			continue;

		fprintf(f, "%.6f", iv->since_start);
		put_num(f, iv->value);
		put_num(f, iv->lat_count > 0 ? iv->p50 : -1);
		put_num(f, iv->lat_count > 0 ? iv->p99 : -1);
		put_num(f, tcp ? (double)iv->tcpi.v[TCPINFO_RETRANS] : -1);
		put_num(f, tcp ? (double)iv->tcpi.v[TCPINFO_RTT] : -1);
		for (s = 0; s < h->streams; s++)
			put_num(f, iv->stream != NULL && s < iv->nstreams
				       ? iv->stream[s]
				       : -1);
		fputc('\n', f);
	}
	fputs("EOD\n", f);
}

int
runplot_script(FILE *f, const struct result *res, const char *path, char *err)
{
	char text[ESCAPE_LEN], q[3][ESCAPE_GNUPLOT_LEN];
	struct runplot_has h;
	int s;

	if (res->ninterim == 0)
		return err_set(err, "--plot: the run gave no interval");
	if (res->ninterim > RUNPLOT_MAX_POINTS)
		return err_set(err,
			       "--plot: %d intervals are more than the %d "
			       "drawn; give -D a longer interval",
			       res->ninterim, RUNPLOT_MAX_POINTS);
	run_has(res, &h);
	run_data(f, res, &h);
	fputs("set datafile missing '?'\n"
	      "set grid\n"
	      "set key below horizontal\n"
	      "set bmargin 6\n"
	      "set lmargin 12\n"
	      "set rmargin 12\n"
	      "set xrange [0:*]\n"
	      "set yrange [0:*]\n",
	      f);
	if (h.tcp) {
		/* Two panels: a taller picture, on the terminal that
		 * sweep_gnuplot set for the file's extension. */
		if (path != NULL) {
			const char *ext = strrchr(path, '.');

			fprintf(f, "set terminal %s size 900,800 noenhanced\n",
				ext != NULL && strcmp(ext, ".svg") == 0
				    ? "svg dynamic"
				    : "png");
		}
		fputs("set multiplot layout 2,1\n", f);
	}
	snprintf(text, sizeof(text), "%s to %.100s: %s per interval",
		 res->m->name, res->side[RESULT_REMOTE].name,
		 module_is_rr(res->m) && res->fmt == 'x' ? "transactions/s"
							 : "throughput");
	escape_gnuplot(q[0], sizeof(q[0]), text);
	escape_gnuplot(q[1], sizeof(q[1]), "seconds since the start");
	snprintf(text, sizeof(text), "%s/s", unit_word(res));
	escape_gnuplot(q[2], sizeof(q[2]), text);
	fprintf(f, "set title %s\nset xlabel %s\nset ylabel %s\n", q[0], q[1],
		q[2]);
	if (h.lat)
		fprintf(f,
			"set y2label %s\n"
			"set y2tics\n"
			"set ytics nomirror\n"
			"set logscale y2\n",
			escape_gnuplot(q[0], sizeof(q[0]),
				       "latency, us (log scale)"));
	fprintf(
	    f, "plot $run using 1:2 with linespoints lw 2 title %s",
	    escape_gnuplot(q[0], sizeof(q[0]), h.streams > 1 ? "sum" : "rate"));
	for (s = 0; s < h.streams; s++) {
		snprintf(text, sizeof(text), "stream %d", s + 1);
		fprintf(f, ", '' using 1:%d with lines title %s", 7 + s,
			escape_gnuplot(q[0], sizeof(q[0]), text));
	}
	if (h.lat)
		fputs(", '' using 1:3 with linespoints axes x1y2 title 'P50', "
		      "'' using 1:4 with linespoints axes x1y2 title 'P99'",
		      f);
	fputc('\n', f);
	if (!h.tcp)
		return 0;
	/* The kernel's view of the same intervals, below. */
	fprintf(f,
		"unset y2label\n"
		"unset logscale y2\n"
		"set title %s\n"
		"set ylabel %s\n"
		"set y2label %s\n"
		"set y2tics\n"
		"set ytics nomirror\n"
		"set y2range [0:*]\n"
		"plot $run using 1:6 with linespoints title 'srtt, us', "
		"'' using 1:5 with impulses lw 3 axes x1y2 title "
		"'retransmits'\n"
		"unset multiplot\n",
		escape_gnuplot(q[0], sizeof(q[0]),
			       "TCP_INFO per interval (netperf's end)"),
		escape_gnuplot(q[1], sizeof(q[1]), "srtt, us"),
		escape_gnuplot(q[2], sizeof(q[2]), "retransmits"));
	return 0;
}

/* A run and the file it is drawn into, for sweep_draw. */
struct run_fig {
	const struct result *res;
	const char *path;
};

static int
run_script(FILE *f, const void *ctx, char *err)
{
	const struct run_fig *fig = ctx;

	return runplot_script(f, fig->res, fig->path, err);
}

int
runplot_plot(const char *path, const struct result *res, char *err)
{
	const struct run_fig fig = {.res = res, .path = path};

	return sweep_draw(path, run_script, &fig, err);
}

int
runplot_merge_script(FILE *f, const struct merge *m,
		     const struct merge_figures *fig, char *err)
{
	char text[ESCAPE_LEN], q[ESCAPE_GNUPLOT_LEN];
	double t0 = INFINITY, whole;
	long points = 0;
	int i, j, drawn = 0;

	/* Times as doubles: the documents' nanoseconds are checked to be
	 * times, not to be near each other, and no difference of two may
	 * overflow. */
	for (i = 0; i < m->nruns; i++) {
		const struct merge_run *r = &m->runs[i];

		if (r->nsamples == 0)
			continue;
		points += r->nsamples;
		if ((double)r->start_ns < t0)
			t0 = (double)r->start_ns;
	}
	if (points == 0)
		return err_set(err, "--plot: no run has -D intervals to draw");
	if (points > RUNPLOT_MAX_POINTS)
		return err_set(err,
			       "--plot: %ld intervals are more than the %d "
			       "drawn",
			       points, RUNPLOT_MAX_POINTS);
	/* One datablock a run: seconds from the first start, its rate. A
	 * run starts from zero at its start, so its line begins there. */
	for (i = 0; i < m->nruns; i++) {
		const struct merge_run *r = &m->runs[i];

		if (r->nsamples == 0)
			continue;
		/* A run's last sample may be its tail, some milliseconds
		 * long: left out under half its longest interval, as in a
		 * run's own plot. */
		whole = 0;
		for (j = 0; j < r->nsamples; j++)
			if (r->samples[j].interval > whole)
				whole = r->samples[j].interval;
		fprintf(f, "$r%d << EOD\n", i);
		for (j = 0; j < r->nsamples; j++)
			if (j + 1 < r->nsamples ||
			    r->samples[j].interval >= whole / 2)
				fprintf(f, "%.6f %.6g\n",
					((double)r->samples[j].end_ns - t0) /
					    1e9,
					r->samples[j].value);
		fputs("EOD\n", f);
	}
	snprintf(text, sizeof(text), "%s: %d runs on one time axis", m->test,
		 m->nruns);
	fprintf(f, "set title %s\n", escape_gnuplot(q, sizeof(q), text));
	fprintf(f, "set xlabel %s\n",
		escape_gnuplot(q, sizeof(q), "seconds since the first start"));
	snprintf(text, sizeof(text), "%s", m->units);
	fprintf(f,
		"set ylabel %s\n"
		"set grid\n"
		"set key below horizontal\n"
		"set bmargin 6\n"
		"set xrange [0:*]\n"
		"set yrange [0:*]\n",
		escape_gnuplot(q, sizeof(q), text));
	if (fig->thruput_window >= 0 &&
	    fig->window_end_ns > fig->window_start_ns) {
		double a = ((double)fig->window_start_ns - t0) / 1e9,
		       b = ((double)fig->window_end_ns - t0) / 1e9;

		fprintf(f,
			"set object 1 rectangle from %.6f, graph 0 to %.6f, "
			"graph 1 behind fillcolor rgb '#dde8f0' "
			"fillstyle solid 1.0 noborder\n"
			"set label 1 %s at %.6f, graph 0.04 center\n",
			a, b, escape_gnuplot(q, sizeof(q), "all runs active"),
			(a + b) / 2);
	}
	fputs("plot ", f);
	for (i = 0; i < m->nruns; i++) {
		const struct merge_run *r = &m->runs[i];

		if (r->nsamples == 0)
			continue;
		if (drawn < RUNPLOT_KEY_RUNS) {
			snprintf(text, sizeof(text), "%.100s", r->name);
			escape_gnuplot(q, sizeof(q), text);
		} else {
			snprintf(q, sizeof(q), "notitle");
		}
		fprintf(f, "%s$r%d using 1:2 with linespoints %s%s",
			drawn ? ", " : "", i,
			drawn < RUNPLOT_KEY_RUNS ? "title " : "", q);
		drawn++;
	}
	fputc('\n', f);
	return 0;
}

/* A merge and its figures, for sweep_draw. */
struct merge_fig {
	const struct merge *m;
	const struct merge_figures *fig;
};

static int
merge_script(FILE *f, const void *ctx, char *err)
{
	const struct merge_fig *mf = ctx;

	return runplot_merge_script(f, mf->m, mf->fig, err);
}

int
runplot_merge_plot(const char *path, const struct merge *m,
		   const struct merge_figures *fig, char *err)
{
	const struct merge_fig mf = {.m = m, .fig = fig};

	return sweep_draw(path, merge_script, &mf, err);
}
