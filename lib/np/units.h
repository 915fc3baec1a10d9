/* Strict parsing of numbers and sizes as netperf's options write them. */
#ifndef NP_UNITS_H
#define NP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses a size: decimal digits and at most one suffix, K/M/G for 2^10,
 * 2^20, 2^30 and k/m/g for 10^3, 10^6, 10^9, as netperf's convert() does,
 * then an optional B (bytes, which convert() passes over), or b after
 * the digits alone ("1400b"; "1Kb" may mean kilobits and is refused).
 * Returns 0 with *out set, or -1 with err set when s is not such a number
 * or the value exceeds max.
 */
int units_parse_size(const char *s, int64_t max, int64_t *out, char *err);

/* Parses a rate in bits per second: digits with an optional fraction and
 * k/K, m/M or g/G for 10^3, 10^6, 10^9 (rates are decimal, as iperf3's
 * are); returns 0, or -1 with err set. */
int units_parse_rate(const char *s, double *out, char *err);

/* Parses a whole number in [min, max], with no suffix; returns 0, or -1
 * with err set. */
int units_parse_int(const char *s, int64_t min, int64_t max, int64_t *out,
		    char *err);

/* Parses a whole number in [min, max] as netperf 2.7's convert() reads
 * one: units_parse_int's, or a size of units_parse_size's (a suffix, a
 * B for bytes) after an optional '-'; returns 0, or -1 with err set. */
int units_parse_count(const char *s, int64_t min, int64_t max, int64_t *out,
		      char *err);

/* Parses a finite decimal number in [min, max]; returns 0, or -1 with err. */
int units_parse_double(const char *s, double min, double max, double *out,
		       char *err);

/*
 * Splits netperf's "x,y" argument: "x" sets only the first, "x," the
 * first, ",y" the second, "x,y" both. Each part is copied into a buffer
 * of cap bytes; an absent part is "". Returns 0, or -1 with err set when
 * a part does not fit.
 */
int units_split_pair(const char *s, char *a, char *b, size_t cap, char *err);

/* The label netperf prints for a -f format letter: "10^6bits", "MBytes",
 * "Bytes" (B, as 2.7's), "Trans"; NULL for an unknown letter. */
const char *units_label(char fmt);

/* Converts bytes per second to the -f unit (bits or bytes per second);
 * 'x' is not a byte unit and returns the input unchanged. */
double units_from_bytes(double bytes_per_sec, char fmt);

#endif
