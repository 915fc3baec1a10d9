/*
 * Small files of the kernel's (/proc, /sys) read whole in one call, and
 * the files netperf writes, made beside their names and renamed into
 * place so that no symbolic link is ever written through.
 */
#ifndef NP_FILE_H
#define NP_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Reads at most cap - 1 bytes of path into buf, NUL-terminated; returns
 * the length, or -1 when it cannot be opened or read. */
ssize_t file_read_small(const char *path, char *buf, size_t cap);

/* Whether path can be replaced: absent or a regular file (a symbolic
 * link, a FIFO or a device is refused), in a directory this process may
 * write. Returns 0, or -1 with err set ("PATH is a symbolic link..."). */
int file_replace_check(const char *path, char *err);

/*
 * Opens a new file beside path for writing: a fresh name in path's
 * directory (".NAME.XXXXXX"), created with O_EXCL so that nothing there,
 * link or file, is opened in its stead; mode 0666 less the umask, or the
 * permission bits of the regular file at path. Checks path first
 * (file_replace_check). Returns the descriptor with the name in tmp (tmpcap
 * bytes), to be renamed over path (file_replace_commit) or unlinked; or -1
 * with err set.
 */
int file_replace_open(const char *path, char *tmp, size_t tmpcap, char *err);

/*
 * Renames the complete file tmp over path. A link or non-regular file
 * that appeared at path since file_replace_open is refused and tmp
 * removed; one that appears later still is replaced, as rename(2) never
 * follows a link. Returns 0, or -1 with err set (tmp removed).
 */
int file_replace_commit(const char *tmp, const char *path, char *err);

#endif
