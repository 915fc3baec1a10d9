/*
 * A checker of the gnuplot scripts netperf writes (--plot), shared by the
 * Check suites and the fuzz target: gnuplot's string syntax as far as
 * it matters for text coming from outside, where a quote that closes a
 * string early lets the rest of the text run as commands (system(...)).
 *
 * plot_lint() walks a script line by line. A line "$name << END" opens a
 * datablock: its lines up to "END" are data, which may hold numbers and
 * words but no quote. On any other line a single-quoted string runs to
 * the next quote that is not doubled ('' is a quote inside it), a
 * double-quoted one to the next quote not after a backslash; each must
 * end on its line. Outside strings there may be no comment (#), which our
 * writers never make. Anywhere: printable ASCII and newlines only, and no
 * backquote (gnuplot runs `command` outside single quotes).
 *
 * The shape of a script is the script with every string's contents
 * removed: two scripts made from the same numbers with different texts
 * have the same shape exactly when no text got out of its string.
 */
#ifndef NP_PLOT_LINT_H
#define NP_PLOT_LINT_H

#include <stdio.h>
#include <string.h>

/* Appends c to shape (cap bytes, kept NUL-terminated), dropping what
 * does not fit; *len is its length. */
static void
plot_lint_put(char *shape, size_t cap, size_t *len, char c)
{
	if (shape == NULL || *len + 1 >= cap)
		return;
	shape[(*len)++] = c;
	shape[*len] = '\0';
}

/*
 * Checks script; returns NULL when it keeps every text inside its string,
 * else what is wrong, with the line number in why (whycap bytes). Writes
 * its shape into shape (cap bytes) unless shape is NULL.
 */
static const char *
plot_lint(const char *script, char *shape, size_t cap, char *why, size_t whycap)
{
	const char *p = script, *eol;
	char end[64] = "";
	size_t len = 0;
	int line = 0;

	if (shape != NULL && cap > 0)
		shape[0] = '\0';
	for (; *p != '\0'; p = *eol == '\n' ? eol + 1 : eol) {
		const char *q;

		line++;
		eol = strchr(p, '\n');
		if (eol == NULL)
			eol = p + strlen(p);
		for (q = p; q < eol; q++)
			if ((unsigned char)*q < 0x20 ||
			    (unsigned char)*q >= 0x7f || *q == '`') {
				snprintf(why, whycap, "line %d: byte 0x%02x",
					 line, (unsigned char)*q);
				return why;
			}
		if (end[0] != '\0') {
			/* A datablock's line: copied, quotes refused. */
			if ((size_t)(eol - p) == strlen(end) &&
			    memcmp(p, end, strlen(end)) == 0)
				end[0] = '\0';
			else if (memchr(p, '\'', (size_t)(eol - p)) != NULL ||
				 memchr(p, '"', (size_t)(eol - p)) != NULL) {
				snprintf(why, whycap,
					 "line %d: a quote in a datablock",
					 line);
				return why;
			}
			for (q = p; q < eol; q++)
				plot_lint_put(shape, cap, &len, *q);
			plot_lint_put(shape, cap, &len, '\n');
			continue;
		}
		if (p[0] == '$') {
			const char *m = strstr(p, " << ");

			if (m != NULL && m < eol) {
				size_t n = (size_t)(eol - (m + 4));

				if (n == 0 || n >= sizeof(end)) {
					snprintf(why, whycap,
						 "line %d: a bad datablock",
						 line);
					return why;
				}
				memcpy(end, m + 4, n);
				end[n] = '\0';
			}
		}
		for (q = p; q < eol; q++) {
			char open = *q;

			if (open == '#') {
				snprintf(why, whycap,
					 "line %d: a comment outside strings",
					 line);
				return why;
			}
			plot_lint_put(shape, cap, &len, open);
			if (open != '\'' && open != '"')
				continue;
			for (q++;; q++) {
				if (q >= eol) {
					snprintf(why, whycap,
						 "line %d: a string that does "
						 "not end",
						 line);
					return why;
				}
				if (open == '"' && *q == '\\') {
					q++;
					continue;
				}
				if (*q != open)
					continue;
				if (open == '\'' && q + 1 < eol &&
				    q[1] == '\'') {
					q++;
					continue;
				}
				break;
			}
			plot_lint_put(shape, cap, &len, open);
		}
		plot_lint_put(shape, cap, &len, '\n');
	}
	if (end[0] != '\0') {
		snprintf(why, whycap, "a datablock that does not end");
		return why;
	}
	return NULL;
}

#endif
