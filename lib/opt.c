#include "np/opt.h"

#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "np/err.h"
#include "np/units.h"

/* The getopt value of a long option that has no letter: past every
 * char, so that it can never be mistaken for one. */
#define OPT_LONG_BASE 256

const char *
opt_label(const struct opt *opt, char buf[64])
{
	if (opt->letter != 0)
		snprintf(buf, 64, "-%c", opt->letter);
	else
		snprintf(buf, 64, "--%s", opt->name);
	return buf;
}

void *
opt_field(void *dst, size_t at)
{
	return (char *)dst + at - 1;
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
		if (units_parse_count(a, min, max, &v, why) < 0)
			return err_set(err, "-%c: %s", opt, why);
		*x = (int)v;
		if (strchr(arg, ',') == NULL)
			*y = (int)v;
	}
	if (b[0] != '\0') {
		if (units_parse_count(b, min, max, &v, why) < 0)
			return err_set(err, "-%c: %s", opt, why);
		*y = (int)v;
	}
	return 0;
}

/* Stores v in the ints at to and to2, those that are set. */
static void
set_ints(const struct opt *opt, void *dst, int v)
{
	if (opt->to != 0)
		*(int *)opt_field(dst, opt->to) = v;
	if (opt->to2 != 0)
		*(int *)opt_field(dst, opt->to2) = v;
}

/* The numbers: parsed into the range the entry gives. */
static int
apply_number(const struct opt *opt, const char *arg, void *dst, char *err)
{
	char label[64], why[ERR_LEN];
	int64_t v;
	double d;

	opt_label(opt, label);
	switch (opt->kind) {
	case OPT_INT:
	case OPT_INT64:
		if (units_parse_count(arg, (int64_t)opt->min, (int64_t)opt->max,
				      &v, why) < 0)
			return err_set(err, "%s: %s", label, why);
		if (opt->kind == OPT_INT64)
			*(int64_t *)opt_field(dst, opt->to) = v;
		else
			set_ints(opt, dst, (int)v);
		return 0;
	case OPT_DOUBLE:
		if (units_parse_double(arg, opt->min, opt->max, &d, why) < 0)
			return err_set(err, "%s: %s", label, why);
		*(double *)opt_field(dst, opt->to) = d;
		return 0;
	case OPT_SIZE:
		if (units_parse_size(arg, (int64_t)opt->max, &v, why) < 0)
			return err_set(err, "%s: %s", label, why);
		if (v < (int64_t)opt->min)
			return err_set(err, "%s: must be at least %lld", label,
				       (long long)opt->min);
		*(int64_t *)opt_field(dst, opt->to) = v;
		return 0;
	default:
		return int_pair(arg, opt->letter, (int64_t)opt->min,
				(int64_t)opt->max, opt_field(dst, opt->to),
				opt_field(dst, opt->to2), err);
	}
}

static int
apply(const struct opt *opt, const char *arg, void *dst, struct opt_run *run,
      char *err)
{
	char label[64];

	switch (opt->kind) {
	case OPT_FLAG:
		set_ints(opt, dst, 1);
		return 0;
	case OPT_COUNT:
		(*(int *)opt_field(dst, opt->to))++;
		return 0;
	case OPT_SET:
		set_ints(opt, dst, opt->val);
		return 0;
	case OPT_STRING:
		if (strlen(arg) >= opt->len)
			return err_set(err, "%s: \"%s\" is too long",
				       opt_label(opt, label), arg);
		snprintf(opt_field(dst, opt->to), opt->len, "%s", arg);
		return 0;
	case OPT_PATH:
		if (arg[0] == '\0' || strlen(arg) >= opt->len)
			return err_set(err, "%s: bad file name",
				       opt_label(opt, label));
		snprintf(opt_field(dst, opt->to), opt->len, "%s", arg);
		return 0;
	case OPT_FN:
		return opt->fn(opt, arg, dst, run, err);
	case OPT_ELSEWHERE:
	case OPT_NOP:
		return 0;
	default:
		return apply_number(opt, arg, dst, err);
	}
}

/* The getopt string and long options of t; returns 0, or -1 with err. */
static int
build(const struct opt_table *t, char *shorts, size_t cap, struct option *longs,
      int *nlong, char *err)
{
	size_t k = 0;
	int i;

	if (t->n > OPT_MAX || cap < 3 + 3 * (size_t)t->n)
		return err_set(err, "too many options in one table");
	/* '+': stop at the first non-option, so "--" ends the global part
	 * exactly as netperf's getopt loop does; ':': report a missing
	 * value apart from an unknown option. */
	shorts[k++] = '+';
	shorts[k++] = ':';
	*nlong = 0;
	for (i = 0; i < t->n; i++) {
		const struct opt *o = &t->opts[i];

		if (o->kind == OPT_ELSEWHERE)
			continue;
		if (o->letter != 0) {
			shorts[k++] = o->letter;
			if (o->arg != no_argument)
				shorts[k++] = ':';
			if (o->arg == optional_argument)
				shorts[k++] = ':';
		}
		if (o->name != NULL)
			longs[(*nlong)++] = (struct option){
			    o->name, o->arg, NULL,
			    o->letter != 0 ? o->letter : OPT_LONG_BASE + i};
	}
	shorts[k] = '\0';
	longs[*nlong] = (struct option){NULL, 0, NULL, 0};
	return 0;
}

/* The entry getopt's c stands for, or NULL. */
static const struct opt *
lookup(const struct opt_table *t, int c)
{
	int i;

	if (c >= OPT_LONG_BASE)
		return c - OPT_LONG_BASE < t->n ? &t->opts[c - OPT_LONG_BASE]
						: NULL;
	for (i = 0; i < t->n; i++)
		if (t->opts[i].letter == c && t->opts[i].kind != OPT_ELSEWHERE)
			return &t->opts[i];
	return NULL;
}

/* getopt's complaint about argv, as an error naming the option. */
static int
usage_error(const struct opt_table *t, int c, char **argv, char *err)
{
	/* A long option has no letter for %c to print. */
	if (c == ':' && (optopt == 0 || optopt >= OPT_LONG_BASE))
		err_set(err, "%s %s needs a value", t->what, argv[optind - 1]);
	else if (c == ':')
		err_set(err, "%s -%c needs a value", t->what, optopt);
	else if (optopt != 0 && optopt < OPT_LONG_BASE)
		err_set(err, "unknown %s -%c", t->what, optopt);
	else
		err_set(err, "unknown %s %s", t->what, argv[optind - 1]);
	return -2;
}

int
opt_parse(const struct opt_table *t, int argc, char **argv, void *dst,
	  char *err)
{
	struct option longs[OPT_MAX + 1];
	struct opt_run run = {argc, argv};
	char shorts[3 + 3 * OPT_MAX];
	int c, nlong = 0;

	if (build(t, shorts, sizeof(shorts), longs, &nlong, err) < 0)
		return -1;
	opterr = 0;
	optind = 0;
	/* Without long options, "--x" is the letters it is made of, as
	 * getopt(3) reads it. */
	while ((c = getopt_long(argc, argv, shorts, nlong > 0 ? longs : NULL,
				NULL)) != -1) {
		const struct opt *o = lookup(t, c);

		if (c == ':' || c == '?' || o == NULL)
			return usage_error(t, c == ':' ? ':' : '?', argv, err);
		if (apply(o, optarg, dst, &run, err) < 0)
			return -1;
	}
	return optind;
}

/* "-H host[,fam]", "--streams n", "-J, --json", "--wire[=IF]". */
static void
left_column(const struct opt *o, char *buf, size_t cap)
{
	size_t k = 0;

	if (o->letter != 0)
		k += (size_t)snprintf(buf + k, cap - k, "-%c", o->letter);
	if (o->name != NULL)
		k += (size_t)snprintf(buf + k, cap - k, "%s--%s",
				      o->letter != 0 ? ", " : "", o->name);
	if (o->meta != NULL && k < cap)
		snprintf(buf + k, cap - k, "%s%s",
			 strncmp(o->meta, "[=", 2) == 0 ? "" : " ", o->meta);
}

void
opt_usage(FILE *out, const struct opt_table *t)
{
	/* The help starts in this column, or on the next line when the
	 * option is too wide for it. */
	const int col = 22;
	char left[128];
	int i;

	for (i = 0; i < t->n; i++) {
		const struct opt *o = &t->opts[i];
		const char *h = o->help, *nl;
		int w;

		if (o->heading != NULL)
			fprintf(out, "\n%s\n", o->heading);
		left_column(o, left, sizeof(left));
		w = fprintf(out, "  %s", left);
		if (w > col - 2) {
			fputc('\n', out);
			w = 0;
		}
		fprintf(out, "%*s", col - w, "");
		while ((nl = strchr(h, '\n')) != NULL) {
			fprintf(out, "%.*s\n%*s", (int)(nl - h), h, col, "");
			h = nl + 1;
		}
		fprintf(out, "%s\n", h);
	}
}
