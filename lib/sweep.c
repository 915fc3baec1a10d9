#include "np/sweep.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np/err.h"
#include "np/escape.h"
#include "np/file.h"
#include "np/module.h"
#include "np/units.h"

int
sweep_parse(const char *arg, struct sweep *s, char *err)
{
	const char *eq = strchr(arg, '='), *p, *comma;
	char word[24], why[ERR_LEN];
	size_t len;
	int64_t max;

	memset(s, 0, sizeof(*s));
	if (eq == NULL || eq == arg || (size_t)(eq - arg) >= sizeof(s->param))
		return err_set(err, "--sweep: \"%s\" is not param=v1,v2,...",
			       arg);
	memcpy(s->param, arg, (size_t)(eq - arg));
	if (strcmp(s->param, "m") != 0 && strcmp(s->param, "r") != 0 &&
	    strcmp(s->param, "s") != 0 && strcmp(s->param, "streams") != 0 &&
	    strcmp(s->param, "rate") != 0)
		return err_set(err,
			       "--sweep: unknown parameter \"%s\" (m, r, s, "
			       "streams or rate)",
			       s->param);
	max = strcmp(s->param, "streams") == 0 ? 1024 : (int64_t)1 << 30;
	for (p = eq + 1;; p = comma + 1) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(word))
			return err_set(err,
				       "--sweep: empty or overlong value "
				       "in \"%s\"",
				       arg);
		if (s->n == SWEEP_MAX)
			return err_set(err, "--sweep: more than %d values",
				       SWEEP_MAX);
		memcpy(word, p, len);
		word[len] = '\0';
		if (sweep_is_rate(s)) {
			double rate;

			/* Transactions/s as --rate takes them (k, M, G:
			 * powers of 10), whole ones. */
			if (units_parse_rate(word, &rate, why) < 0 ||
			    rate > SWEEP_RATE_MAX)
				return err_set(err,
					       "--sweep: \"%s\" is not a "
					       "rate from 1 to %.0f "
					       "transactions/s",
					       word, SWEEP_RATE_MAX);
			s->value[s->n] = (int64_t)(rate + 0.5);
		} else if (strcmp(s->param, "streams") == 0
			       ? units_parse_int(word, 1, max, &s->value[s->n],
						 why)
			       : units_parse_size(word, max, &s->value[s->n],
						  why)) {
			return err_set(err, "--sweep: %s", why);
		}
		if (s->value[s->n] < 1)
			return err_set(
			    err, "--sweep: \"%s\" must be at least 1", word);
		snprintf(s->label[s->n], sizeof(s->label[0]), "%s", word);
		s->n++;
		if (comma == NULL)
			break;
	}
	return 0;
}

int
sweep_is_rate(const struct sweep *s)
{
	return strcmp(s->param, "rate") == 0;
}

int
sweep_check(const struct sweep *s, const char *test, char *err)
{
	const struct test_module *m = module_find(test);

	if (m == NULL)
		return err_set(err, "unknown test \"%s\"", test);
	if (sweep_is_rate(s) && !module_has(m, MODULE_F_OPEN)) {
		char names[128];

		module_names_with(MODULE_F_OPEN, names, sizeof(names));
		return err_set(err,
			       "--sweep: rate applies to %s (transactions/s, "
			       "open loop), not %s",
			       names, m->name);
	}
	if (strcmp(s->param, "r") == 0 && !module_is_rr(m))
		return err_set(err,
			       "--sweep: r applies to request/response "
			       "tests, not %s",
			       m->name);
	if (strcmp(s->param, "m") == 0 && module_is_rr(m))
		return err_set(err,
			       "--sweep: m applies to stream tests; use "
			       "r for %s",
			       m->name);
	if (strcmp(s->param, "m") == 0 && m->send_max > 0) {
		for (int i = 0; i < s->n; i++)
			if (s->value[i] < m->send_min ||
			    s->value[i] > m->send_max)
				return err_set(err,
					       "--sweep: %s datagrams carry "
					       "%lld to %lld bytes, not %s",
					       m->name, (long long)m->send_min,
					       (long long)m->send_max,
					       s->label[i]);
	}
	return 0;
}

void
sweep_apply(const struct sweep *s, int i, struct netperf_opts *o)
{
	int64_t v = s->value[i];

	if (strcmp(s->param, "m") == 0) {
		o->send_size = v;
	} else if (strcmp(s->param, "r") == 0) {
		o->req_size = v;
		o->rsp_size = v;
	} else if (strcmp(s->param, "s") == 0) {
		o->lsndbuf = o->lrcvbuf = (int)v;
		o->rsndbuf = o->rrcvbuf = (int)v;
	} else if (sweep_is_rate(s)) {
		o->rate = (double)v;
	} else {
		o->streams = (int)v;
	}
}

/* What a swept parameter is, for the plot's axis. */
static const char *
param_text(const char *param)
{
	if (strcmp(param, "m") == 0)
		return "bytes per send (-m)";
	if (strcmp(param, "r") == 0)
		return "request and response size, bytes (-r)";
	if (strcmp(param, "s") == 0)
		return "socket buffer size, bytes (-s, -S)";
	if (strcmp(param, "rate") == 0)
		return "achieved transactions/s";
	return "parallel streams (--streams)";
}

static const char *
units_of(const struct result *res)
{
	return module_is_rr(res->m) && res->fmt == 'x' ? "Trans"
						       : units_label(res->fmt);
}

void
sweep_rate_header(FILE *out, const char *param, const struct result *first)
{
	const char *sdu = first ? result_sd_units(first) : "";

	fprintf(out, "%-10s %11s %11s  %9s %9s %9s  %7s %7s  %9s %9s\n", param,
		"Offered", "Achieved", "P50", "P99", "P99.9", "Local", "Remote",
		"Local", "Remote");
	fprintf(out, "%-10s %11s %11s  %9s %9s %9s  %7s %7s  %9s %9s\n\n", "",
		"Trans/s", "Trans/s", "us", "us", "us", "CPU %", "CPU %", sdu,
		sdu);
}

void
sweep_rate_row(FILE *out, const char *label, const struct result *r)
{
	fprintf(out,
		"%-10s %11.2f %11.2f  %9.1f %9.1f %9.1f  %7.2f %7.2f  %9.3f "
		"%9.3f",
		label, r->p.rate, r->trans_rate, r->lat.p50, r->lat.p99,
		r->lat.p999, r->side[RESULT_LOCAL].util,
		r->side[RESULT_REMOTE].util, r->side[RESULT_LOCAL].sd,
		r->side[RESULT_REMOTE].sd);
}

void
sweep_table(FILE *out, const struct sweep *s, const struct sweep_point *pts,
	    int headers)
{
	const struct result *first = NULL;
	int i, rr;

	for (i = 0; i < s->n && first == NULL; i++)
		if (pts[i].ok)
			first = &pts[i].res;
	if (sweep_is_rate(s)) {
		/* The latency-vs-load curve: what was offered, what came
		 * of it, and the tail at that load. */
		if (headers)
			sweep_rate_header(out, s->param, first);
		for (i = 0; i < s->n; i++) {
			if (!pts[i].ok) {
				fprintf(out, "%-10s failed: %s\n", s->label[i],
					pts[i].err);
				continue;
			}
			sweep_rate_row(out, s->label[i], &pts[i].res);
			fputc('\n', out);
		}
		return;
	}
	rr = first != NULL && module_is_rr(first->m);
	if (headers) {
		char units[32];
		int conf = first != NULL && first->conf.iterations > 1;
		const char *sdu = first ? result_sd_units(first) : "";

		snprintf(units, sizeof(units), "%s/s",
			 first ? units_of(first) : "");
		fprintf(out, "%-10s %12s  %7s %7s  %9s %9s", s->param,
			"Throughput", "Local", "Remote", "Local", "Remote");
		if (rr)
			fprintf(out, " %8s %8s", "P50", "P99");
		if (conf)
			fprintf(out, "  %7s", "Conf.");
		fprintf(out, "\n%-10s %12s  %7s %7s  %9s %9s", "", units,
			"CPU %", "CPU %", sdu, sdu);
		if (rr)
			fprintf(out, " %8s %8s", "us", "us");
		if (conf)
			fprintf(out, "  %7s", "width %");
		fputs("\n\n", out);
	}
	for (i = 0; i < s->n; i++) {
		const struct result *r = &pts[i].res;

		if (!pts[i].ok) {
			fprintf(out, "%-10s failed: %s\n", s->label[i],
				pts[i].err);
			continue;
		}
		fprintf(out, "%-10s %12.2f  %7.2f %7.2f  %9.3f %9.3f",
			s->label[i], r->thruput, r->side[RESULT_LOCAL].util,
			r->side[RESULT_REMOTE].util, r->side[RESULT_LOCAL].sd,
			r->side[RESULT_REMOTE].sd);
		if (rr)
			fprintf(out, " %8.1f %8.1f", r->lat.p50, r->lat.p99);
		if (r->conf.iterations > 1)
			fprintf(out, "  %7.3f", r->conf.thruput);
		fputc('\n', out);
	}
}

/* The reason a point failed, as one quoted CSV field and the line's end:
 * a comma in it stays in its field. */
static void
csv_reason(FILE *out, const char *err)
{
	fputc('"', out);
	for (const char *c = err; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	fputs("\"\n", out);
}

/* A rate sweep's CSV: the latency-vs-load columns. */
static void
rate_csv(FILE *out, const struct sweep *s, const struct sweep_point *pts,
	 int headers)
{
	if (headers)
		fprintf(out,
			"%s,Value,Offered Rate,Achieved Rate,P50 Latency "
			"Microseconds,P99 Latency Microseconds,P99.9 "
			"Latency Microseconds,Local CPU Util %%,Remote "
			"CPU Util %%,Local Service Demand,Remote Service "
			"Demand,Service Demand Units,Error\n",
			s->param);
	for (int i = 0; i < s->n; i++) {
		const struct result *r = &pts[i].res;

		if (!pts[i].ok) {
			fprintf(out, "%s,%lld,,,,,,,,,,,", s->label[i],
				(long long)s->value[i]);
			csv_reason(out, pts[i].err);
			continue;
		}
		fprintf(out,
			"%s,%lld,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.3f,%.3f,"
			"%s,\n",
			s->label[i], (long long)s->value[i], r->p.rate,
			r->trans_rate, r->lat.p50, r->lat.p99, r->lat.p999,
			r->side[RESULT_LOCAL].util, r->side[RESULT_REMOTE].util,
			r->side[RESULT_LOCAL].sd, r->side[RESULT_REMOTE].sd,
			result_sd_units(r));
	}
}

void
sweep_csv(FILE *out, const struct sweep *s, const struct sweep_point *pts,
	  int headers)
{
	int i;

	if (sweep_is_rate(s)) {
		rate_csv(out, s, pts, headers);
		return;
	}
	if (headers)
		fprintf(out,
			"%s,Value,Throughput,Throughput Units,Local CPU "
			"Util %%,Remote CPU Util %%,Local Service "
			"Demand,Remote Service Demand,Service Demand "
			"Units,P50 Latency Microseconds,P99 Latency "
			"Microseconds,Confidence Interval %%,Error\n",
			s->param);
	for (i = 0; i < s->n; i++) {
		const struct result *r = &pts[i].res;

		if (!pts[i].ok) {
			/* The reason is quoted, so a comma in it stays in
			 * its field. */
			fprintf(out, "%s,%lld,,,,,,,,,,,\"", s->label[i],
				(long long)s->value[i]);
			for (const char *c = pts[i].err; *c; c++) {
				if (*c == '"')
					fputc('"', out);
				fputc(*c, out);
			}
			fputs("\"\n", out);
			continue;
		}
		fprintf(out,
			"%s,%lld,%.2f,%s/s,%.2f,%.2f,%.3f,%.3f,%s,%.2f,%.2f,",
			s->label[i], (long long)s->value[i], r->thruput,
			units_of(r), r->side[RESULT_LOCAL].util,
			r->side[RESULT_REMOTE].util, r->side[RESULT_LOCAL].sd,
			r->side[RESULT_REMOTE].sd, result_sd_units(r),
			r->lat.p50, r->lat.p99);
		if (r->conf.iterations > 1)
			fprintf(out, "%.3f", r->conf.thruput);
		fputs(",\n", out);
	}
}

void
sweep_data(FILE *out, const struct sweep *s, const struct sweep_point *pts)
{
	if (sweep_is_rate(s)) {
		for (int i = 0; i < s->n; i++)
			if (pts[i].ok)
				fprintf(out, "%lld %.6g %.6g %.6g %.6g\n",
					(long long)s->value[i],
					pts[i].res.trans_rate,
					pts[i].res.lat.p50, pts[i].res.lat.p99,
					pts[i].res.lat.p999);
		return;
	}
	for (int i = 0; i < s->n; i++)
		if (pts[i].ok)
			fprintf(out, "%lld %.6g %.6g %.6g\n",
				(long long)s->value[i], pts[i].res.thruput,
				pts[i].res.side[RESULT_LOCAL].sd,
				pts[i].res.side[RESULT_REMOTE].sd);
}

/* Runs gnuplot on script, with no shell in between, its standard output
 * (where the picture goes) on outfd; returns its exit status, 127 when it
 * cannot be run. */
static int
run_gnuplot(const char *script, int outfd, int errfd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 127;
	if (pid == 0) {
		if (dup2(outfd, STDOUT_FILENO) < 0)
			_exit(126);
		if (errfd >= 0)
			dup2(errfd, STDERR_FILENO);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 126;
}

int
sweep_plot_check(const char *path, char *err)
{
	const char *ext = strrchr(path, '.');
	char why[ERR_LEN];

	if (ext == NULL || (strcmp(ext, ".svg") != 0 && strcmp(ext, ".png")))
		return err_set(err, "--plot: \"%s\" must end in .svg or .png",
			       path);
	/* Before the sweep runs: no link in the way, and a directory the
	 * picture can be renamed into. */
	if (file_replace_check(path, why) < 0)
		return err_set(err, "--plot: %s", why);
	return 0;
}

/* The last line gnuplot wrote to fd (its standard error), into line. */
static void
last_line(int fd, char *line, size_t cap)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *p, *end;

	line[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	end = buf + strlen(buf);
	while (end > buf && isspace((unsigned char)end[-1]))
		*--end = '\0';
	p = strrchr(buf, '\n');
	p = p != NULL ? p + 1 : buf;
	while (isspace((unsigned char)*p))
		p++;
	snprintf(line, cap, "%s", p);
	escape_line(line);
}

/*
 * The picture is drawn into a new file beside path, on gnuplot's standard
 * output, and renamed over path only when gnuplot succeeded: gnuplot never
 * opens path itself, so a symbolic link planted there is neither followed
 * nor written through, and a failed plot leaves what was there.
 */
int
sweep_gnuplot(const char *path, const char *body, char *err)
{
	char script[] = "/tmp/np-plot-XXXXXX", errs[] = "/tmp/np-plot-XXXXXX";
	char why[200], tmp[PATH_MAX], ferr[ERR_LEN];
	const char *ext = strrchr(path, '.');
	int sfd, efd, ofd, rc;
	FILE *f;

	/* Where the picture cannot go, say so before gnuplot does. */
	if (sweep_plot_check(path, err) < 0)
		return -1;
	sfd = mkstemp(script);
	if (sfd < 0)
		return err_set(err, "--plot: %s", strerror(errno));
	f = fdopen(sfd, "w");
	if (f == NULL) {
		close(sfd);
		unlink(script);
		return err_set(err, "--plot: %s", strerror(errno));
	}
	fprintf(f,
		"set terminal %s size 900,540 noenhanced\n"
		"set output\n%s",
		strcmp(ext, ".svg") == 0 ? "svg dynamic" : "png", body);
	if (fclose(f) != 0) {
		unlink(script);
		return err_set(err, "--plot: cannot write the script");
	}
	ofd = file_replace_open(path, tmp, sizeof(tmp), ferr);
	if (ofd < 0) {
		unlink(script);
		return err_set(err, "--plot: %s", ferr);
	}
	/* gnuplot's complaints, which name the script, are kept for one
	 * line of the error rather than printed. */
	efd = mkstemp(errs);
	if (efd >= 0)
		unlink(errs);
	rc = run_gnuplot(script, ofd, efd);
	unlink(script);
	why[0] = '\0';
	if (efd >= 0) {
		last_line(efd, why, sizeof(why));
		close(efd);
	}
	if (rc == 0 && close(ofd) < 0) {
		rc = -1;
		snprintf(why, sizeof(why), "%s", strerror(errno));
	} else if (rc != 0) {
		close(ofd);
	}
	if (rc != 0) {
		unlink(tmp);
		if (rc == 127)
			return err_set(err, "--plot needs gnuplot: apt-get "
					    "install gnuplot-nox"),
			       1;
		if (rc < 0)
			return err_set(err, "--plot: cannot write %s: %s", path,
				       why);
		return err_set(err, "--plot: gnuplot failed (exit %d)%s%s", rc,
			       why[0] ? ": " : "", why);
	}
	if (file_replace_commit(tmp, path, ferr) < 0)
		return err_set(err, "--plot: %s", ferr);
	return 0;
}

/*
 * The latency-vs-load curve: each percentile (log scale) against the
 * achieved rate, so the knee shows where the tail leaves the floor. A
 * percentile of 0 (no transaction timed) has no place on a log axis.
 */
static int
rate_plot_script(FILE *f, const struct sweep *s, const struct sweep_point *pts,
		 const struct result *first)
{
	char text[ESCAPE_LEN], q[3][ESCAPE_GNUPLOT_LEN];

	fputs("$sweep << EOD\n", f);
	sweep_data(f, s, pts);
	fputs("EOD\n", f);
	snprintf(text, sizeof(text), "%s: latency against load (open loop)",
		 first->m->name);
	escape_gnuplot(q[0], sizeof(q[0]), text);
	escape_gnuplot(q[1], sizeof(q[1]), param_text(s->param));
	escape_gnuplot(q[2], sizeof(q[2]),
		       "latency from the intended send, us");
	fprintf(f,
		"set title %s\n"
		"set xlabel %s\n"
		"set ylabel %s\n"
		"set logscale y 10\n"
		"set grid\n"
		"set key top left\n"
		"plot $sweep using 2:($3 > 0 ? $3 : 1/0) with linespoints "
		"title 'P50', '' using 2:($4 > 0 ? $4 : 1/0) with linespoints "
		"title 'P99', '' using 2:($5 > 0 ? $5 : 1/0) with linespoints "
		"title 'P99.9'\n",
		q[0], q[1], q[2]);
	return 0;
}

int
sweep_plot_script(FILE *f, const struct sweep *s, const struct sweep_point *pts)
{
	const struct result *first = NULL;
	char text[ESCAPE_LEN], q[3][ESCAPE_GNUPLOT_LEN];
	int i, sd;

	for (i = 0; i < s->n && first == NULL; i++)
		if (pts[i].ok)
			first = &pts[i].res;
	if (first == NULL)
		return -1;
	if (sweep_is_rate(s))
		return rate_plot_script(f, s, pts, first);
	sd = first->side[RESULT_LOCAL].sd >= 0 ||
	     first->side[RESULT_REMOTE].sd >= 0;
	/* The points inline, numbers only, so no file of ours is named. */
	fputs("$sweep << EOD\n", f);
	sweep_data(f, s, pts);
	fputs("EOD\n", f);
	snprintf(text, sizeof(text), "%s: %s against %s", first->m->name,
		 module_is_rr(first->m) && first->fmt == 'x' ? "transactions/s"
							     : "throughput",
		 s->param);
	escape_gnuplot(q[0], sizeof(q[0]), text);
	escape_gnuplot(q[1], sizeof(q[1]), param_text(s->param));
	snprintf(text, sizeof(text), "%s/s", units_of(first));
	escape_gnuplot(q[2], sizeof(q[2]), text);
	fprintf(f,
		"set title %s\n"
		"set xlabel %s\n"
		"set ylabel %s\n"
		"set logscale x 2\n"
		"set grid\n"
		"set key top left\n",
		q[0], q[1], q[2]);
	if (sd) {
		snprintf(text, sizeof(text), "service demand, %s",
			 result_sd_units(first));
		fprintf(f,
			"set y2label %s\n"
			"set y2tics\n"
			"set ytics nomirror\n"
			"plot $sweep using 1:2 with linespoints title "
			"'throughput' axes x1y1, '' using 1:($3 < 0 ? 1/0 : "
			"$3) with linespoints title 'local SD' axes x1y2, '' "
			"using 1:($4 < 0 ? 1/0 : $4) with linespoints title "
			"'remote SD' axes x1y2\n",
			escape_gnuplot(q[0], sizeof(q[0]), text));
	} else {
		fputs("plot $sweep using 1:2 with linespoints title "
		      "'throughput'\n",
		      f);
	}
	return 0;
}

int
sweep_draw(const char *path, sweep_script_fn write, const void *ctx,
	   char *err)
{
	char *body = NULL;
	size_t blen = 0;
	int rc;
	FILE *f;

	f = open_memstream(&body, &blen);
	if (f == NULL)
		return err_set(err, "--plot: out of memory");
	rc = write(f, ctx, err);
	if (fclose(f) != 0 || (rc == 0 && (body == NULL || blen == 0))) {
		free(body);
		return err_set(err, "--plot: out of memory");
	}
	if (rc == 0)
		rc = sweep_gnuplot(path, body, err);
	free(body);
	return rc;
}

/* A sweep and its points, for sweep_draw. */
struct sweep_fig {
	const struct sweep *s;
	const struct sweep_point *pts;
};

static int
sweep_script(FILE *f, const void *ctx, char *err)
{
	const struct sweep_fig *fig = ctx;

	if (sweep_plot_script(f, fig->s, fig->pts) < 0)
		return err_set(err, "--plot: no point succeeded");
	return 0;
}

int
sweep_plot(const char *path, const struct sweep *s,
	   const struct sweep_point *pts, char *err)
{
	const struct sweep_fig fig = {.s = s, .pts = pts};

	return sweep_draw(path, sweep_script, &fig, err);
}
