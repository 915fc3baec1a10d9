#include "np/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np/err.h"

int
units_parse_size(const char *s, int64_t max, int64_t *out, char *err)
{
	unsigned long long v;
	int64_t mult = 1;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return err_set(err, "\"%s\" is not a size", s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return err_set(err, "\"%s\" is too large", s);
	switch (*end) {
	case '\0':
		break;
	case 'K':
		mult = 1LL << 10;
		end++;
		break;
	case 'M':
		mult = 1LL << 20;
		end++;
		break;
	case 'G':
		mult = 1LL << 30;
		end++;
		break;
	case 'k':
		mult = 1000;
		end++;
		break;
	case 'm':
		mult = 1000000;
		end++;
		break;
	case 'g':
		mult = 1000000000;
		end++;
		break;
	default:
		break;
	}
	/* "64KB", "1400b": a B for bytes, which 2.7's convert() passes
	 * over (PerfKitBenchmarker's -G 1400b). Not "64Kb", which may mean
	 * kilobits. */
	if (*end == 'B' || (*end == 'b' && mult == 1))
		end++;
	if (*end != '\0')
		return err_set(err, "\"%s\" is not a size", s);
	if (v > (unsigned long long)(max / mult))
		return err_set(err, "\"%s\" exceeds the limit of %lld", s,
			       (long long)max);
	*out = (int64_t)v * mult;
	return 0;
}

int
units_parse_int(const char *s, int64_t min, int64_t max, int64_t *out,
		char *err)
{
	long long v;
	char *end;

	if (s == NULL || *s == '\0')
		return err_set(err, "\"\" is not a number");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || end == s)
		return err_set(err, "\"%s\" is not a whole number", s);
	if (errno == ERANGE || v < min || v > max)
		return err_set(err, "\"%s\" is outside %lld..%lld", s,
			       (long long)min, (long long)max);
	*out = v;
	return 0;
}

int
units_parse_count(const char *s, int64_t min, int64_t max, int64_t *out,
		  char *err)
{
	int64_t v;
	char why[ERR_LEN];
	int neg = s != NULL && *s == '-';

	if (units_parse_int(s, min, max, out, err) == 0)
		return 0;
	if (s == NULL || units_parse_size(s + neg, INT64_MAX, &v, why) < 0)
		return -1; /* units_parse_int's message */
	if (neg)
		v = -v;
	if (v < min || v > max)
		return err_set(err, "\"%s\" is %lld, outside %lld..%lld", s,
			       (long long)v, (long long)min, (long long)max);
	*out = v;
	return 0;
}

int
units_parse_double(const char *s, double min, double max, double *out,
		   char *err)
{
	double v;
	char *end;

	if (s == NULL || *s == '\0')
		return err_set(err, "\"\" is not a number");
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || end == s || !isfinite(v))
		return err_set(err, "\"%s\" is not a number", s);
	if (errno == ERANGE || v < min || v > max)
		return err_set(err, "\"%s\" is outside %g..%g", s, min, max);
	*out = v;
	return 0;
}

int
units_split_pair(const char *s, char *a, char *b, size_t cap, char *err)
{
	const char *comma = strchr(s, ',');
	size_t la = comma ? (size_t)(comma - s) : strlen(s);
	size_t lb = comma ? strlen(comma + 1) : 0;

	if (la >= cap || lb >= cap)
		return err_set(err, "\"%s\" is too long", s);
	memcpy(a, s, la);
	a[la] = '\0';
	if (comma)
		memcpy(b, comma + 1, lb);
	b[lb] = '\0';
	return 0;
}

const char *
units_label(char fmt)
{
	switch (fmt) {
	case 'G':
		return "GBytes";
	case 'M':
		return "MBytes";
	case 'K':
		return "KBytes";
	case 'B':
		return "Bytes";
	case 'g':
		return "10^9bits";
	case 'm':
		return "10^6bits";
	case 'k':
		return "10^3bits";
	case 'x':
		return "Trans";
	default:
		return NULL;
	}
}

double
units_from_bytes(double bytes_per_sec, char fmt)
{
	switch (fmt) {
	case 'G':
		return bytes_per_sec / (1024.0 * 1024.0 * 1024.0);
	case 'M':
		return bytes_per_sec / (1024.0 * 1024.0);
	case 'K':
		return bytes_per_sec / 1024.0;
	case 'g':
		return bytes_per_sec * 8 / 1e9;
	case 'm':
		return bytes_per_sec * 8 / 1e6;
	case 'k':
		return bytes_per_sec * 8 / 1e3;
	default:
		return bytes_per_sec;
	}
}

int
units_parse_rate(const char *s, double *out, char *err)
{
	double v, mult = 1;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return err_set(err, "\"%s\" is not a rate", s ? s : "");
	v = strtod(s, &end);
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1e3;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1e6;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1e9;
		end++;
		break;
	default:
		return err_set(err, "\"%s\" is not a rate", s);
	}
	if (*end != '\0' || !isfinite(v) || v * mult < 1 || v * mult > 1e15)
		return err_set(err,
			       "\"%s\" is not a rate from 1 to 10^15 "
			       "bits/s",
			       s);
	*out = v * mult;
	return 0;
}
