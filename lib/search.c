#include "np/search.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "np/sweep.h"

/* One objective at p: "P99<=200us"; returns the bytes it took, or -1. */
static int
obj_parse(const char *p, size_t len, struct search_obj *o, char *err)
{
	static const struct {
		const char *name, *canon;
		int which;
	} pct[] = {{"P99.9", "P99.9", 999},
		   {"P999", "P99.9", 999},
		   {"P50", "P50", 50},
		   {"P90", "P90", 90},
		   {"P99", "P99", 99}};
	char word[48], *le, *end;
	size_t i, nl;
	double v, mult;

	if (len == 0 || len >= sizeof(word))
		return err_set(err, "--search: empty or overlong objective");
	memcpy(word, p, len);
	word[len] = '\0';
	le = strstr(word, "<=");
	if (le == NULL)
		return err_set(err,
			       "--search: \"%s\" is not PERCENTILE<=BOUND, "
			       "e.g. P99<=200us",
			       word);
	nl = (size_t)(le - word);
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		if (strlen(pct[i].name) == nl &&
		    strncasecmp(word, pct[i].name, nl) == 0)
			break;
	if (i == sizeof(pct) / sizeof(pct[0]))
		return err_set(err,
			       "--search: unknown percentile \"%.*s\" (P50, "
			       "P90, P99 or P99.9)",
			       (int)nl, word);
	snprintf(o->name, sizeof(o->name), "%s", pct[i].canon);
	o->which = pct[i].which;
	p = le + 2;
	if (!isdigit((unsigned char)*p) && *p != '.')
		return err_set(err,
			       "--search: \"%s\" has no bound after <=", word);
	v = strtod(p, &end);
	if (strcmp(end, "us") == 0)
		mult = 1;
	else if (strcmp(end, "ms") == 0)
		mult = 1e3;
	else
		return err_set(err,
			       "--search: the bound in \"%s\" needs a unit, "
			       "us or ms",
			       word);
	if (!isfinite(v) || v <= 0 || v * mult > 1e9)
		return err_set(err,
			       "--search: the bound in \"%s\" must be over 0 "
			       "and at most 1000 s",
			       word);
	o->bound_us = v * mult;
	return 0;
}

int
search_parse(const char *arg, struct search_spec *s, char *err)
{
	const char *p, *comma;
	size_t len;

	memset(s, 0, sizeof(*s));
	if (strlen(arg) >= sizeof(s->text))
		return err_set(err, "--search: \"%.20s...\" is too long", arg);
	snprintf(s->text, sizeof(s->text), "%s", arg);
	for (p = arg;; p = comma + 1) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (s->n == SEARCH_OBJ_MAX)
			return err_set(err, "--search: more than %d objectives",
				       SEARCH_OBJ_MAX);
		if (obj_parse(p, len, &s->obj[s->n], err) < 0)
			return -1;
		s->n++;
		if (comma == NULL)
			break;
	}
	return 0;
}

int
search_precision_parse(const char *arg, double *out, char *err)
{
	char *end;
	double v;

	if (!isdigit((unsigned char)*arg) && *arg != '.')
		return err_set(err,
			       "--search-precision: \"%s\" is not a "
			       "percentage",
			       arg);
	v = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (*end != '\0' || !isfinite(v) || v < 0.1 || v > 50)
		return err_set(err,
			       "--search-precision: \"%s\" is not a "
			       "percentage from 0.1 to 50",
			       arg);
	*out = v / 100;
	return 0;
}

void
search_init(struct search *s, double start, double precision)
{
	memset(s, 0, sizeof(*s));
	s->precision = precision;
	s->next = start;
}

static double
obj_value(const struct result_latency *l, int which)
{
	switch (which) {
	case 50:
		return l->p50;
	case 90:
		return l->p90;
	case 99:
		return l->p99;
	default:
		return l->p999;
	}
}

int
search_meets(const struct search_spec *sp, const struct result *r, char *why,
	     size_t cap)
{
	double offered = r->p.rate;

	if (r->trans_rate < SEARCH_ACHIEVED_MIN * offered) {
		snprintf(why, cap, "achieved %.0f/s, under %.0f %% of %.0f/s",
			 r->trans_rate, SEARCH_ACHIEVED_MIN * 100, offered);
		return 0;
	}
	if (r->lat.count == 0) {
		snprintf(why, cap, "no transaction timed");
		return 0;
	}
	for (int i = 0; i < sp->n; i++) {
		double v = obj_value(&r->lat, sp->obj[i].which);

		if (v > sp->obj[i].bound_us) {
			snprintf(why, cap, "%s %.1f us > %g us",
				 sp->obj[i].name, v, sp->obj[i].bound_us);
			return 0;
		}
	}
	snprintf(why, cap, "met");
	return 1;
}

void
search_record(struct search *s, double rate, int met)
{
	double mid;

	s->runs++;
	if (met)
		s->lo = rate;
	else
		s->hi = rate;
	s->next = 0;
	if (s->lo == 0)
		return; /* even the lowest rate missed */
	if (s->runs >= SEARCH_RUNS_MAX)
		return;
	if (s->hi == 0) {
		/* Still climbing: double until a run misses. */
		if (s->lo >= SWEEP_RATE_MAX) {
			s->capped = 1;
			return;
		}
		s->next = fmin(s->lo * 2, SWEEP_RATE_MAX);
		return;
	}
	/* Bracketed: done once the gap is within the precision of what was
	 * met; rates are whole transactions/s. */
	if (s->hi - s->lo <= s->precision * s->lo)
		return;
	mid = floor((s->lo + s->hi) / 2);
	if (mid <= s->lo || mid >= s->hi)
		return;
	s->next = mid;
}
