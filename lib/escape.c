#include "np/escape.h"

#include <stdio.h>
#include <string.h>

/* Writes the escaped form of byte c into out (at least 5 bytes); returns
 * its length. */
static size_t
escape_byte(unsigned char c, char *out)
{
	switch (c) {
	case '\n':
		memcpy(out, "\\n", 2);
		return 2;
	case '\r':
		memcpy(out, "\\r", 2);
		return 2;
	case '\t':
		memcpy(out, "\\t", 2);
		return 2;
	case '\\':
		memcpy(out, "\\\\", 2);
		return 2;
	default:
		break;
	}
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		return 1;
	}
	snprintf(out, 5, "\\x%02x", c);
	return 4;
}

char *
escape_peer(char *dst, size_t cap, const char *src, size_t len)
{
	size_t max = cap - 1 < ESCAPE_MAX ? cap - 1 : ESCAPE_MAX;
	size_t out = 0, keep = 0, i, n;
	char e[5];

	for (i = 0; i < len; i++) {
		n = escape_byte((unsigned char)src[i], e);
		if (out + n > max)
			break;
		memcpy(dst + out, e, n);
		out += n;
		/* The last escape boundary that leaves room for "...". */
		if (out + 3 <= max)
			keep = out;
	}
	if (i < len) {
		/* Cut at a boundary; a cap too small for "..." gets what
		 * of it fits. */
		out = keep;
		n = max - out < 3 ? max - out : 3;
		memcpy(dst + out, "...", n);
		out += n;
	}
	dst[out] = '\0';
	return dst;
}

char *
escape_str(char *dst, size_t cap, const char *src)
{
	if (src == NULL)
		src = "";
	return escape_peer(dst, cap, src, strlen(src));
}

char *
escape_copy_utf8(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return dst;
}

char *
escape_gnuplot(char *dst, size_t cap, const char *src)
{
	/* Where the text may end: before the closing quote and the NUL,
	 * at most ESCAPE_MAX characters past the opening quote. */
	size_t max = cap - 2 < ESCAPE_MAX + 1 ? cap - 2 : ESCAPE_MAX + 1;
	size_t out = 1, keep = 1, n;
	const unsigned char *p;
	char e[5];

	dst[0] = '\'';
	for (p = (const unsigned char *)(src ? src : ""); *p != '\0'; p++) {
		if (*p == '\'') {
			memcpy(e, "''", 2);
			n = 2;
		} else if (*p == '`') {
			memcpy(e, "\\x60", 4);
			n = 4;
		} else {
			n = escape_byte(*p, e);
		}
		if (out + n > max)
			break;
		memcpy(dst + out, e, n);
		out += n;
		if (out + 3 <= max)
			keep = out;
	}
	if (*p != '\0') {
		out = keep;
		n = max - out < 3 ? max - out : 3;
		memcpy(dst + out, "...", n);
		out += n;
	}
	dst[out++] = '\'';
	dst[out] = '\0';
	return dst;
}

char *
escape_line(char *s)
{
	unsigned char *p;

	for (p = (unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p >= 0x7f)
			*p = '?';
	return s;
}
