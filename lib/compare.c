#include "np/compare.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "np/escape.h"
#include "np/stats.h"
#include "np/sweep.h"

/* The largest result file --compare reads. */
#define COMPARE_MAX_FILE (64L << 20)
/* The most files a directory may hold for one side. */
#define COMPARE_MAX_FILES 4096

/* Each figure: its name in the table and JSON, its units (NULL: the
 * document's), where an iteration keeps it, and where a document
 * without iterations does. */
static const struct {
	const char *name;
	const char *key;
	const char *units;
	const char *iter_key;
	const char *doc_path;
} figs[COMPARE_NFIG] = {
    {"throughput", "throughput", NULL, "throughput", "result/throughput"},
    {"local CPU", "local_cpu_util", "%", "local_cpu_util", "local/cpu/util"},
    {"remote CPU", "remote_cpu_util", "%", "remote_cpu_util",
     "remote/cpu/util"},
    {"local SD", "local_service_demand", NULL, "local_service_demand",
     "result/local_service_demand"},
    {"remote SD", "remote_service_demand", NULL, "remote_service_demand",
     "result/remote_service_demand"},
    {"P50 latency", "p50_latency", "us", "p50_latency_us", "latency_us/p50"},
    {"P99 latency", "p99_latency", "us", "p99_latency_us", "latency_us/p99"},
    {"P99.9 latency", "p999_latency", "us", "p999_latency_us",
     "latency_us/p99.9"},
    {"loss", "loss_percent", "%", "loss_percent", "result/loss_percent"},
};

int
compare_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--compare") == 0)
			return 1;
	return 0;
}

int
compare_opts_parse(int argc, char **argv, struct compare_opts *o, char *err)
{
	int i, npaths = 0;

	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--compare") == 0) {
			if (i + 2 >= argc)
				return err_set(err,
					       "--compare needs two result "
					       "files or directories, OLD "
					       "and NEW");
			o->old_path = argv[++i];
			o->new_path = argv[++i];
			npaths += 2;
		} else if (strcmp(a, "--alpha") == 0 ||
			   strncmp(a, "--alpha=", 8) == 0) {
			const char *v = a[7] == '=' ? a + 8 : NULL;
			char *end;

			if (v == NULL) {
				if (i + 1 >= argc)
					return err_set(err, "--alpha needs a "
							    "level");
				v = argv[++i];
			}
			errno = 0;
			o->alpha = strtod(v, &end);
			if (errno != 0 || end == v || *end != '\0' ||
			    !(o->alpha > 0 && o->alpha < 1))
				return err_set(err,
					       "--alpha: \"%s\" is not a level "
					       "between 0 and 1 (e.g. 0.05)",
					       v);
		} else if (strcmp(a, "--force") == 0) {
			o->force = 1;
		} else if (strcmp(a, "--json") == 0 || strcmp(a, "-J") == 0) {
			o->json = 1;
		} else if (strcmp(a, "--plot") == 0 ||
			   strncmp(a, "--plot=", 7) == 0) {
			if (a[6] == '=') {
				o->plot = a + 7;
			} else {
				if (i + 1 >= argc)
					return err_set(err, "--plot needs a "
							    "file name");
				o->plot = argv[++i];
			}
			if (sweep_plot_check(o->plot, err) < 0)
				return -1;
		} else {
			return err_set(err,
				       "--compare: \"%s\" is not one of its "
				       "options (--alpha, --force, --json, "
				       "--plot)",
				       a);
		}
	}
	if (npaths != 2)
		return err_set(err, "--compare takes one OLD and one NEW");
	return 0;
}

/* Follows a '/' path through objects; NULL when missing or null. */
static json_t *
jpath(json_t *doc, const char *path)
{
	char key[64];
	const char *s = path;

	while (doc != NULL && *s != '\0') {
		size_t n = strcspn(s, "/");

		if (!json_is_object(doc) || n >= sizeof(key))
			return NULL;
		memcpy(key, s, n);
		key[n] = '\0';
		doc = json_object_get(doc, key);
		s += n + (s[n] == '/');
	}
	return json_is_null(doc) ? NULL : doc;
}

static const char *
jtext(json_t *doc, const char *path)
{
	const char *s = json_string_value(jpath(doc, path));

	return s != NULL ? s : "";
}

/* Takes one document (a reference to it) into ctx; returns 0, or -1
 * with err set. */
typedef int (*compare_take_fn)(void *ctx, json_t *doc, const char *name,
			       char *err);

/* Each netperf-result document of text[0..len-1] to take, one at a time,
 * so that no more than one tree is held; returns how many were taken, or
 * -1 with err set. */
static int
parse_docs(const char *text, size_t len, const char *name, compare_take_fn take,
	   void *ctx, char *err)
{
	size_t off = 0;
	int added = 0;

	for (;;) {
		json_error_t je;
		json_t *d;
		const char *schema;

		while (off < len && (text[off] == ' ' || text[off] == '\n' ||
				     text[off] == '\t' || text[off] == '\r'))
			off++;
		if (off >= len)
			break;
		d = json_loadb(text + off, len - off,
			       JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &je);
		if (d == NULL)
			return err_set(err, "%s: not JSON at line %d: %s", name,
				       je.line, je.text);
		off += je.position;
		schema = json_string_value(json_object_get(d, "schema"));
		if (schema != NULL && strcmp(schema, "netperf-sweep") == 0) {
			json_decref(d);
			return err_set(err,
				       "%s is a sweep; --compare takes "
				       "results of one test (save each point "
				       "with --json)",
				       name);
		}
		/* Interim lines and the like are not results. */
		if (schema == NULL || strcmp(schema, "netperf-result") != 0) {
			json_decref(d);
			continue;
		}
		if (take(ctx, d, name, err) < 0) {
			json_decref(d);
			return -1;
		}
		json_decref(d);
		added++;
	}
	return added;
}

static int
take_append(void *ctx, json_t *doc, const char *name, char *err)
{
	(void)name;
	if (json_array_append(ctx, doc) != 0)
		return err_set(err, "out of memory");
	return 0;
}

int
compare_parse_text(const char *text, size_t len, const char *name, json_t *docs,
		   char *err)
{
	return parse_docs(text, len, name, take_append, docs, err);
}

/* Reads one file's documents into s; returns how many, or -1. */
static int
load_file(const char *path, struct compare_side *s, char *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;
	int rc;

	if (f == NULL)
		return err_set(err, "cannot open %s: %s", path,
			       strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return err_set(err, "cannot read %s", path);
	}
	if (len > COMPARE_MAX_FILE) {
		fclose(f);
		return err_set(err, "%s is larger than %ld MB", path,
			       COMPARE_MAX_FILE >> 20);
	}
	if ((uint64_t)len > COMPARE_MAX_SIDE - s->bytes) {
		fclose(f);
		return err_set(err,
			       "the files pass %llu MB in all at %s; compare "
			       "fewer results",
			       (unsigned long long)(COMPARE_MAX_SIDE >> 20),
			       path);
	}
	s->bytes += (uint64_t)len;
	buf = malloc((size_t)len + 1);
	if (buf == NULL) {
		fclose(f);
		return err_set(err, "out of memory");
	}
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return err_set(err, "cannot read %s", path);
	}
	fclose(f);
	rc = compare_side_add_text(s, buf, (size_t)len, path, err);
	free(buf);
	return rc;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's *.json and *.jsonl files, in name order. */
static int
load_dir(const char *path, struct compare_side *s, char *err)
{
	char **names = NULL;
	struct dirent *de;
	int n = 0, cap = 0, total = 0, rc = 0;
	DIR *d = opendir(path);

	if (d == NULL)
		return err_set(err, "cannot open %s: %s", path,
			       strerror(errno));
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		char **grown;

		if (!((l > 5 && strcmp(de->d_name + l - 5, ".json") == 0) ||
		      (l > 6 && strcmp(de->d_name + l - 6, ".jsonl") == 0)))
			continue;
		if (n == COMPARE_MAX_FILES) {
			rc = err_set(err, "%s holds more than %d result files",
				     path, COMPARE_MAX_FILES);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			grown = realloc(names, (size_t)cap * sizeof(*names));
			if (grown == NULL) {
				rc = err_set(err, "out of memory");
				break;
			}
			names = grown;
		}
		names[n] = strdup(de->d_name);
		if (names[n] == NULL) {
			rc = err_set(err, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (rc == 0 && n == 0)
		rc = err_set(err, "%s holds no *.json or *.jsonl files", path);
	if (rc == 0)
		qsort(names, (size_t)n, sizeof(*names), name_cmp);
	for (int i = 0; rc == 0 && i < n; i++) {
		char *full;
		int k;

		if (asprintf(&full, "%s/%s", path, names[i]) < 0) {
			rc = err_set(err, "out of memory");
			break;
		}
		k = load_file(full, s, err);
		free(full);
		if (k < 0)
			rc = -1;
		else
			total += k;
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc < 0 ? -1 : total;
}

/* Appends v to figure f of s, doubling its room as it fills. */
static int
side_add(struct compare_side *s, int f, double v)
{
	if (s->n[f] == s->cap[f]) {
		int cap = s->cap[f] ? 2 * s->cap[f] : 16;
		double *grown;

		if (cap < s->cap[f])
			return -1;
		grown = realloc(s->v[f], (size_t)cap * sizeof(v));
		if (grown == NULL)
			return -1;
		s->v[f] = grown;
		s->cap[f] = cap;
	}
	s->v[f][s->n[f]++] = v;
	return 0;
}

/* One figure's value v of a document named name into s: a rate, a
 * share or a time, so finite and not negative. */
static int
side_add_value(struct compare_side *s, int f, json_t *v, const char *name,
	       char *err)
{
	double x;

	if (!json_is_number(v))
		return 0;
	x = json_number_value(v);
	if (!isfinite(x) || x < 0)
		return err_set(err, "%s: %s %g is not a figure", name,
			       figs[f].key, x);
	if (side_add(s, f, x) < 0)
		return err_set(err, "out of memory");
	return 0;
}

/* A document's samples: each iteration it kept, or the run itself. */
static int
side_add_doc(struct compare_side *s, json_t *doc, const char *name, char *err)
{
	json_t *it = json_object_get(doc, "iterations");
	size_t i;

	if (json_is_array(it) && json_array_size(it) > 0) {
		for (i = 0; i < json_array_size(it); i++)
			for (int f = 0; f < COMPARE_NFIG; f++)
				if (side_add_value(
					s, f,
					json_object_get(json_array_get(it, i),
							figs[f].iter_key),
					name, err) < 0)
					return -1;
		return 0;
	}
	for (int f = 0; f < COMPARE_NFIG; f++)
		if (side_add_value(s, f, jpath(doc, figs[f].doc_path), name,
				   err) < 0)
			return -1;
	return 0;
}

static json_t *setting_of(json_t *doc);

/* The values of a document's settings into the side's sets. */
static int
side_add_settings(struct compare_side *s, json_t *doc)
{
	json_t *one = setting_of(doc), *v;
	const char *k;

	if (one == NULL)
		return -1;
	json_object_foreach(one, k, v)
	{
		json_t *vals = json_object_get(s->settings, k);

		if (vals == NULL) {
			vals = json_object();
			if (json_object_set_new(s->settings, k, vals) != 0) {
				json_decref(one);
				return -1;
			}
		}
		if (json_object_set_new(vals, json_string_value(v),
					json_true()) != 0) {
			json_decref(one);
			return -1;
		}
	}
	json_decref(one);
	return 0;
}

/* Takes what the side needs of one document: its test and units (the
 * first's, which the rest must share), its samples and its settings. */
static int
side_take(void *ctx, json_t *d, const char *name, char *err)
{
	struct compare_side *s = ctx;
	char test[sizeof(s->test)], units[sizeof(s->units)];

	escape_copy_utf8(test, sizeof(test), jtext(d, "test"));
	escape_copy_utf8(units, sizeof(units), jtext(d, "result/throughput_units"));
	if (s->ndocs == 0) {
		memcpy(s->test, test, sizeof(test));
		memcpy(s->units, units, sizeof(units));
		escape_copy_utf8(s->sd_units, sizeof(s->sd_units),
			  jtext(d, "result/service_demand_units"));
	} else if (strcmp(test, s->test) != 0) {
		return err_set(err,
			       "%s mixes tests: %s and %s (compare one test "
			       "at a time)",
			       s->label, s->test, test);
	} else if (strcmp(units, s->units) != 0) {
		return err_set(err, "%s mixes units: %s and %s", s->label,
			       s->units, units);
	}
	if (s->ndocs == INT32_MAX)
		return err_set(err, "%s: too many results", s->label);
	if (side_add_doc(s, d, name, err) < 0)
		return -1;
	if (side_add_settings(s, d) < 0)
		return err_set(err, "out of memory");
	s->ndocs++;
	return 0;
}

int
compare_side_begin(struct compare_side *s, const char *label)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", label);
	s->settings = json_object();
	return s->settings != NULL ? 0 : -1;
}

int
compare_side_add_text(struct compare_side *s, const char *text, size_t len,
		      const char *name, char *err)
{
	return parse_docs(text, len, name, side_take, s, err);
}

int
compare_side_from_docs(json_t *docs, const char *label, struct compare_side *s,
		       char *err)
{
	size_t i;

	if (compare_side_begin(s, label) < 0)
		return err_set(err, "out of memory");
	if (!json_is_array(docs) || json_array_size(docs) == 0)
		return err_set(err, "%s holds no netperf results", label);
	for (i = 0; i < json_array_size(docs); i++)
		if (side_take(s, json_array_get(docs, i), label, err) < 0)
			return -1;
	return 0;
}

int
compare_load(const char *path, const char *label, struct compare_side *s,
	     char *err)
{
	struct stat st;
	char why[ERR_LEN];
	int k;

	if (compare_side_begin(s, label) < 0)
		return err_set(err, "out of memory");
	if (stat(path, &st) < 0) {
		err_set(err, "%s: cannot read %s: %s", label, path,
			strerror(errno));
		goto free_side;
	}
	k = S_ISDIR(st.st_mode) ? load_dir(path, s, why)
				: load_file(path, s, why);
	if (k < 0) {
		err_set(err, "%s: %s", label, why);
		goto free_side;
	}
	if (k == 0) {
		err_set(err,
			"%s: %s holds no netperf results (save them with "
			"--json)",
			label, path);
		goto free_side;
	}
	return 0;
free_side:
	compare_side_free(s);
	return -1;
}

void
compare_side_free(struct compare_side *s)
{
	for (int f = 0; f < COMPARE_NFIG; f++)
		free(s->v[f]);
	json_decref(s->settings);
	memset(s, 0, sizeof(*s));
}

/* The mean, summed in long double so that values near the double's
 * limit do not overflow it. */
static double
mean_of(const double *v, int n)
{
	long double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return n > 0 ? (double)(s / n) : NAN;
}

/* The smallest two-sided p-value an exact Mann-Whitney test of n1
 * against n2 values can give: both orderings at the extremes, 2 / C(n1 +
 * n2, n1). */
static double
min_p(int n1, int n2)
{
	double c = 1;

	for (int i = 1; i <= n1; i++)
		c = c * (n2 + i) / i;
	return fmin(1.0, 2.0 / c);
}

static void
add_warn(struct compare_report *r, const char *text)
{
	if (r->nwarn < COMPARE_MAX_WARN)
		snprintf(r->warn[r->nwarn++], sizeof(r->warn[0]), "%s", text);
}

/* How deep flatten follows objects, and the longest field name it
 * makes: a platform record is shallow, and a hostile one nested 2000
 * deep with long keys would otherwise cost depth^2 of names. */
#define FLATTEN_DEPTH 8
#define FLATTEN_NAME 512

/* Flattens a JSON value into prefix-named scalar fields of out (an
 * object of field -> value text). */
static void
flatten(json_t *v, const char *prefix, json_t *out, int depth)
{
	const char *k;
	json_t *x;
	char *text;

	if (depth > FLATTEN_DEPTH || strlen(prefix) > FLATTEN_NAME)
		return;
	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
		{
			char *name;

			if (asprintf(&name, "%s.%s", prefix, k) < 0)
				return;
			flatten(x, name, out, depth + 1);
			free(name);
		}
		return;
	}
	if (json_is_string(v))
		text = strdup(json_string_value(v));
	else if (json_is_null(v))
		text = strdup("unknown");
	else
		text = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
	if (text != NULL)
		json_object_set_new(out, prefix, json_string(text));
	free(text);
}

/* What a document says of its setting, beyond its figures: each side's
 * platform record and placement, and the request. */
static json_t *
setting_of(json_t *doc)
{
	json_t *out = json_object();
	static const char *const sides[] = {"local", "remote"};

	for (int i = 0; i < 2; i++) {
		json_t *side = json_object_get(doc, sides[i]);
		char p[32];

		snprintf(p, sizeof(p), "%s", sides[i]);
		flatten(json_object_get(side, "platform"), p, out, 0);
		snprintf(p, sizeof(p), "%s.placement", sides[i]);
		flatten(json_object_get(side, "placement"), p, out, 0);
	}
	flatten(json_object_get(doc, "request"), "request", out, 0);
	/* Where a thread happened to end is an outcome, not a setting; a
	 * note only explains the placement. */
	json_object_del(out, "local.placement.cpu_actual");
	json_object_del(out, "remote.placement.cpu_actual");
	json_object_del(out, "local.placement.note");
	json_object_del(out, "remote.placement.note");
	return out;
}

/* Both sides' values of a field (sets: objects of value -> true) as
 * one set each, order aside. */
static int
same_values(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;

	if (json_object_size(a) != json_object_size(b))
		return 0;
	json_object_foreach(a, k, v)
	{
		if (json_object_get(b, k) == NULL)
			return 0;
	}
	return 1;
}

/* The current CPU frequency is a reading that wanders: it differs only
 * when the two sides' means are more than 5 % apart. */
static int
freq_differs(json_t *a, json_t *b)
{
	double sa = 0, sb = 0;
	const char *k;
	json_t *v;

	json_object_foreach(a, k, v)
	{
		sa += atof(k);
	}
	json_object_foreach(b, k, v)
	{
		sb += atof(k);
	}
	sa /= (double)json_object_size(a);
	sb /= (double)json_object_size(b);
	return !(sa > 0) || !isfinite(sa) || !isfinite(sb) ||
	       fabs(sb - sa) / sa > 0.05;
}

/* A set's values as an array, in the order they were first seen. */
static json_t *
values_of(json_t *set)
{
	json_t *a = json_array(), *v;
	const char *k;

	json_object_foreach(set, k, v)
	{
		json_array_append_new(a, json_string(k));
	}
	return a;
}

/* Every field whose values differ between the sides. */
static json_t *
diff_settings(json_t *a, json_t *b)
{
	json_t *out = json_array(), *none = json_object();
	const char *k;
	json_t *va;

	if (out == NULL || none == NULL || a == NULL || b == NULL) {
		json_decref(out);
		json_decref(none);
		return NULL;
	}
	json_object_set_new(none, "absent", json_true());
	json_object_foreach(a, k, va)
	{
		json_t *vb = json_object_get(b, k);
		size_t kl = strlen(k);

		if (vb == NULL)
			vb = none;
		if (same_values(va, vb))
			continue;
		if (kl > 8 && strcmp(k + kl - 8, ".cpu_mhz") == 0 &&
		    vb != none && !freq_differs(va, vb))
			continue;
		json_array_append_new(out, json_pack("{s:s, s:o, s:o}", "field",
						     k, "old", values_of(va),
						     "new", values_of(vb)));
	}
	json_object_foreach(b, k, va)
	{
		if (json_object_get(a, k) == NULL)
			json_array_append_new(
			    out,
			    json_pack("{s:s, s:o, s:o}", "field", k, "old",
				      values_of(none), "new", values_of(va)));
	}
	json_decref(none);
	return out;
}

/* Every value of a figure is 0 on both sides (loss over TCP). */
static int
all_zero(const struct compare_side *o, const struct compare_side *n, int f)
{
	for (int i = 0; i < o->n[f]; i++)
		if (o->v[f][i] != 0)
			return 0;
	for (int i = 0; i < n->n[f]; i++)
		if (n->v[f][i] != 0)
			return 0;
	return 1;
}

static void
figure_units(const struct compare_side *s, int f, char *out, size_t cap)
{
	if (figs[f].units != NULL)
		snprintf(out, cap, "%s", figs[f].units);
	else if (f == COMPARE_THROUGHPUT)
		snprintf(out, cap, "%s", s->units);
	else
		snprintf(out, cap, "%s", s->sd_units);
}

/* Figure f of both sides into row; returns 0, or -1 with err set. */
static int
compare_figure(const struct compare_side *old, const struct compare_side *nw,
	       int f, double alpha, struct compare_row *row, char *err)
{
	struct stats_ci ci;
	struct stats_mwu mw;
	struct stats_welch w;

	row->fig = (enum compare_fig)f;
	snprintf(row->name, sizeof(row->name), "%s", figs[f].name);
	figure_units(old, f, row->units, sizeof(row->units));
	row->n_old = old->n[f];
	row->n_new = nw->n[f];
	row->mean_old = mean_of(old->v[f], old->n[f]);
	row->mean_new = mean_of(nw->v[f], nw->n[f]);
	row->ci_old = stats_ci_compute(old->v[f], old->n[f], 0.95, &ci) == 0
			  ? ci.half_width
			  : NAN;
	row->ci_new = stats_ci_compute(nw->v[f], nw->n[f], 0.95, &ci) == 0
			  ? ci.half_width
			  : NAN;
	row->change_pct =
	    row->mean_old != 0
		? 100.0 * (row->mean_new - row->mean_old) / fabs(row->mean_old)
		: NAN;
	if (stats_mann_whitney(old->v[f], old->n[f], nw->v[f], nw->n[f], &mw) <
	    0)
		return err_set(err, "out of memory");
	row->p = mw.p;
	row->exact = mw.exact;
	row->welch_p =
	    stats_welch(old->v[f], old->n[f], nw->v[f], nw->n[f], &w) == 0
		? w.p
		: NAN;
	row->significant = row->p < alpha;
	/* Values near the double's limit: an interval that overflows is no
	 * figure to print; a change past it is only "changed". */
	if (isinf(row->ci_old) || isinf(row->ci_new))
		return err_set(err,
			       "the %s values are too far apart for an "
			       "interval",
			       row->name);
	if (isinf(row->change_pct))
		row->change_pct = NAN;
	return 0;
}

/* Warns when a figure has too few samples for its interval, and when no
 * p-value the test can give is below alpha. */
static void
compare_warn_samples(struct compare_report *r, double alpha)
{
	const struct compare_row *row;
	double mp;
	char w[200];

	for (int i = 0; i < r->nrows; i++) {
		row = &r->row[i];
		if (row->n_old >= 3 && row->n_new >= 3)
			continue;
		snprintf(w, sizeof(w),
			 "OLD has %d and NEW %d samples of %s: with fewer "
			 "than 3 a side the intervals are wide or unknown",
			 row->n_old, row->n_new, row->name);
		add_warn(r, w);
		break;
	}
	row = &r->row[0];
	mp = min_p(row->n_old, row->n_new);
	if (mp >= alpha) {
		snprintf(w, sizeof(w),
			 "with %d+%d samples the smallest p-value the "
			 "test can give is %.3f, not below %.3g: "
			 "nothing can come out significant (repeat "
			 "more, -i)",
			 row->n_old, row->n_new, mp, alpha);
		add_warn(r, w);
	}
}

int
compare_run(const struct compare_side *old, const struct compare_side *nw,
	    double alpha, int force, struct compare_report *r, char *err)
{
	memset(r, 0, sizeof(*r));
	if (!force && strcmp(old->test, nw->test) != 0)
		return err_set(err,
			       "OLD is %s and NEW is %s: different tests "
			       "(give --force to compare them anyway)",
			       old->test, nw->test);
	if (!force && (strcmp(old->units, nw->units) != 0 ||
		       strcmp(old->sd_units, nw->sd_units) != 0))
		return err_set(err,
			       "OLD is in %s (%s) and NEW in %s (%s): "
			       "different units (run both with the same -f, "
			       "or give --force)",
			       old->units, old->sd_units, nw->units,
			       nw->sd_units);
	snprintf(r->test, sizeof(r->test), "%s", old->test);
	r->alpha = alpha;
	r->ndocs_old = old->ndocs;
	r->ndocs_new = nw->ndocs;
	for (int f = 0; f < COMPARE_NFIG; f++) {
		if (old->n[f] == 0 || nw->n[f] == 0 || all_zero(old, nw, f))
			continue;
		if (compare_figure(old, nw, f, alpha, &r->row[r->nrows], err) <
		    0)
			return -1;
		r->nrows++;
	}
	if (r->nrows == 0)
		return err_set(err, "OLD and NEW have no figure in common");
	compare_warn_samples(r, alpha);
	r->diffs = diff_settings(old->settings, nw->settings);
	if (r->diffs == NULL)
		return err_set(err, "out of memory");
	return 0;
}

void
compare_report_free(struct compare_report *r)
{
	json_decref(r->diffs);
	r->diffs = NULL;
}

/* A value with its interval, "25123 ± 2%" (the interval as a share of
 * the mean, as benchstat prints it), or "25123 ± ∞" for one sample. */
static void
with_interval(char *b, size_t cap, double mean, double half)
{
	char v[32];

	if (fabs(mean) >= 1000)
		snprintf(v, sizeof(v), "%.0f", mean);
	else if (fabs(mean) >= 100)
		snprintf(v, sizeof(v), "%.1f", mean);
	else if (fabs(mean) >= 10)
		snprintf(v, sizeof(v), "%.2f", mean);
	else
		snprintf(v, sizeof(v), "%.3g", mean);
	if (isnan(half))
		snprintf(b, cap, "%s ± ∞", v);
	else if (mean != 0)
		snprintf(b, cap, "%s ± %.0f%%", v, 100.0 * half / fabs(mean));
	else
		snprintf(b, cap, "%s ± %.3g", v, half);
}

/* The columns' width in characters (± and ∞ take two bytes each but
 * one column). */
static void
pad(FILE *out, const char *s, int width)
{
	int cols = 0;

	for (const char *c = s; *c != '\0'; c++)
		if (((unsigned char)*c & 0xc0) != 0x80)
			cols++;
	fputs(s, out);
	for (; cols < width; cols++)
		fputc(' ', out);
}

/* A list of values as text, "a, b" ("absent" for a field a side lacks),
 * each escaped: they are the files' text. */
static void
values_text(json_t *vals, char *b, size_t cap)
{
	size_t used = 0;

	b[0] = '\0';
	for (size_t i = 0; i < json_array_size(vals); i++) {
		char e[ESCAPE_LEN];
		int n = snprintf(
		    b + used, cap - used, "%s%s", i ? ", " : "",
		    escape_str(e, sizeof(e),
			       json_string_value(json_array_get(vals, i))));

		if (n < 0 || (size_t)n >= cap - used)
			return;
		used += (size_t)n;
	}
}

void
compare_print(FILE *out, const struct compare_report *r)
{
	char e[ESCAPE_LEN];
	int i;

	/* The test, units and settings are the files' text: escaped, as a
	 * hostile file could otherwise drive the terminal or forge lines. */
	fprintf(out, "%s: OLD %d result%s, NEW %d result%s\n\n",
		escape_str(e, sizeof(e), r->test), r->ndocs_old,
		r->ndocs_old == 1 ? "" : "s", r->ndocs_new,
		r->ndocs_new == 1 ? "" : "s");
	pad(out, "figure", 26);
	pad(out, "OLD", 20);
	pad(out, "NEW", 20);
	fputs("delta\n", out);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->row[i];
		char name[64], a[48], b[48], d[32];

		snprintf(name, sizeof(name), "%s %s", row->name,
			 escape_str(e, sizeof(e), row->units));
		with_interval(a, sizeof(a), row->mean_old, row->ci_old);
		with_interval(b, sizeof(b), row->mean_new, row->ci_new);
		if (!row->significant)
			snprintf(d, sizeof(d), "~");
		else if (isnan(row->change_pct))
			snprintf(d, sizeof(d), "changed");
		else if (fabs(row->change_pct) >= 1000)
			snprintf(d, sizeof(d), "%+.0f%%", row->change_pct);
		else
			snprintf(d, sizeof(d), "%+.2f%%", row->change_pct);
		pad(out, name, 26);
		pad(out, a, 20);
		pad(out, b, 20);
		pad(out, d, 10);
		fprintf(out, "(p=%.3f%s n=%d+%d)\n", row->p,
			row->exact ? "" : "*", row->n_old, row->n_new);
	}
	fprintf(out,
		"\n± is the 95 %% confidence interval of the mean (Student's "
		"t), as a share of it.\np: two-sided Mann-Whitney U test, "
		"exact; * the normal approximation with tie and\ncontinuity "
		"corrections (ties, or 50 samples or more a side). ~ where p "
		">= %.3g.\n",
		r->alpha);
	for (i = 0; i < r->nwarn; i++)
		fprintf(out, "warning: %s\n", r->warn[i]);
	if (json_array_size(r->diffs) == 0) {
		fputs("\nNo difference in the platform records, placement or "
		      "request.\n",
		      out);
		return;
	}
	fputs("\nWhat else differs:\n", out);
	for (size_t k = 0; k < json_array_size(r->diffs); k++) {
		json_t *d = json_array_get(r->diffs, k);
		char a[512], b[512];

		values_text(json_object_get(d, "old"), a, sizeof(a));
		values_text(json_object_get(d, "new"), b, sizeof(b));
		fprintf(
		    out, "  %s: %s -> %s\n",
		    escape_str(e, sizeof(e),
			       json_string_value(json_object_get(d, "field"))),
		    a, b);
	}
}

/* A number, or null for NAN. */
static json_t *
jnum(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *
compare_json(const struct compare_report *r)
{
	json_t *doc, *rows, *warns;

	doc = json_pack(
	    "{s:s, s:i, s:s, s:f, s:s, s:i, s:i}", "schema", "netperf-compare",
	    "schema_version", 1, "test", r->test, "alpha", r->alpha, "method",
	    "two-sided Mann-Whitney U: exact without ties and below 50 "
	    "samples a side, else the normal approximation with tie and "
	    "continuity corrections; welch_p assumes normal means",
	    "old_results", r->ndocs_old, "new_results", r->ndocs_new);
	rows = json_array();
	warns = json_array();
	if (doc == NULL || rows == NULL || warns == NULL) {
		json_decref(doc);
		json_decref(rows);
		json_decref(warns);
		return NULL;
	}
	for (int i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->row[i];

		json_array_append_new(
		    rows,
		    json_pack(
			"{s:s, s:s, s:{s:i, s:o, s:o}, s:{s:i, s:o, "
			"s:o}, s:o, s:f, s:b, s:o, s:b}",
			"figure", figs[row->fig].key, "units", row->units,
			"old", "n", row->n_old, "mean", jnum(row->mean_old),
			"ci95", jnum(row->ci_old), "new", "n", row->n_new,
			"mean", jnum(row->mean_new), "ci95", jnum(row->ci_new),
			"change_percent", jnum(row->change_pct), "p", row->p,
			"exact", row->exact, "welch_p", jnum(row->welch_p),
			"significant", row->significant));
	}
	for (int i = 0; i < r->nwarn; i++)
		json_array_append_new(warns, json_string(r->warn[i]));
	json_object_set_new(doc, "figures", rows);
	json_object_set_new(doc, "warnings", warns);
	json_object_set(doc, "differences", r->diffs);
	return doc;
}

void
compare_plot_script(FILE *f, const struct compare_report *r)
{
	int cols = r->nrows < 3 ? r->nrows : 3;
	int rows = cols > 0 ? (r->nrows + cols - 1) / cols : 0;
	char text[ESCAPE_LEN], q[ESCAPE_GNUPLOT_LEN];

	/* One panel a figure: OLD and NEW side by side, each mean a box
	 * with its 95 % interval as an error bar. The names and units came
	 * from the files, so they go in only as quoted literals. */
	for (int i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->row[i];

		fprintf(f,
			"$f%d << EOD\n0 OLD %.9g %.9g\n1 NEW %.9g %.9g\nEOD\n",
			i, row->mean_old, isnan(row->ci_old) ? 0 : row->ci_old,
			row->mean_new, isnan(row->ci_new) ? 0 : row->ci_new);
	}
	snprintf(text, sizeof(text), "%s: OLD against NEW (95%% intervals)",
		 r->test);
	fprintf(f,
		"set multiplot layout %d,%d title %s\n"
		"set style fill solid 0.5\n"
		"set boxwidth 0.6\n"
		"set xrange [-0.7:1.7]\n"
		"set yrange [0:*]\n"
		"set grid ytics\n"
		"unset key\n",
		rows, cols, escape_gnuplot(q, sizeof(q), text));
	for (int i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->row[i];

		snprintf(text, sizeof(text), "%s (%s)%s", row->name, row->units,
			 row->significant ? "" : ", not significant");
		fprintf(f,
			"set title %s\n"
			"plot $f%d using 1:3:xtic(2) with boxes, '' using "
			"1:3:4 with yerrorbars lw 2\n",
			escape_gnuplot(q, sizeof(q), text), i);
	}
	fputs("unset multiplot\n", f);
}

static int
compare_script(FILE *f, const void *ctx, char *err)
{
	(void)err;
	compare_plot_script(f, ctx);
	return 0;
}

int
compare_plot(const char *path, const struct compare_report *r, char *err)
{
	return sweep_draw(path, compare_script, r, err);
}
