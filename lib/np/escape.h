/*
 * Text that came from a peer, made safe to log or print: a client or a
 * server can put any byte into a string, and a newline would forge a log
 * line, an ESC sequence would drive the reader's terminal.
 */
#ifndef NP_ESCAPE_H
#define NP_ESCAPE_H

#include <stddef.h>

/* The most characters escape_peer writes, "..." included. */
#define ESCAPE_MAX 200
/* A buffer that holds any escape_peer output with its NUL. */
#define ESCAPE_LEN (ESCAPE_MAX + 1)

/*
 * Copies len bytes of src into dst (cap bytes, cap >= 1) as printable
 * ASCII: a byte outside 0x20..0x7e becomes \xNN (newline \n, CR \r, tab
 * \t), a backslash \\; at most ESCAPE_MAX characters (and cap - 1), a cut
 * marked by "..." and never inside an escape. Returns dst.
 */
char *escape_peer(char *dst, size_t cap, const char *src, size_t len);

/* escape_peer over the NUL-terminated src ("" for NULL); returns dst. */
char *escape_str(char *dst, size_t cap, const char *src);

/* Copies src into dst (cap bytes), cut, if it must be, at a character's
 * start, so that UTF-8 text stays UTF-8 (jansson writes nothing else);
 * returns dst. */
char *escape_copy_utf8(char *dst, size_t cap, const char *src);

/* A buffer that holds any escape_gnuplot output: ESCAPE_MAX characters
 * between the quotes, the quotes and the NUL. */
#define ESCAPE_GNUPLOT_LEN (ESCAPE_MAX + 3)

/*
 * Writes src ("" for NULL) into dst (cap >= 3 bytes) as one gnuplot
 * single-quoted string literal, quotes included, for a plot's script: what
 * escape_peer makes of it (so no control byte, no newline), with a quote
 * doubled, gnuplot's one escape between single quotes, and a backquote as
 * \x60 (gnuplot substitutes commands in backquotes outside them); at most
 * ESCAPE_MAX characters between the quotes, a cut marked by "...". Text from a
 * file, a peer or the command line reaches a script only through this. Returns
 * dst.
 */
char *escape_gnuplot(char *dst, size_t cap, const char *src);

/* Replaces, in place, every byte of s outside printable ASCII with '?':
 * the last defence of a line about to be logged. Returns s. */
char *escape_line(char *s);

#endif
