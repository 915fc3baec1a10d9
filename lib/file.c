#include "np/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "np/err.h"

ssize_t
file_read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || cap == 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((size_t)got + 1 < cap) {
		n = read(fd, buf + got, cap - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* The directory part of path into dir ("." for a bare name); returns 0,
 * or -1 when it does not fit. */
static int
dir_of(const char *path, char *dir, size_t cap)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (slash == NULL)
		n = snprintf(dir, cap, ".");
	else if (slash == path)
		n = snprintf(dir, cap, "/");
	else
		n = snprintf(dir, cap, "%.*s", (int)(slash - path), path);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* What is at path, lstat'ed: 0 absent or a regular file (st filled, or
 * st_mode 0 when absent), -1 with err set otherwise. */
static int
replaceable(const char *path, struct stat *st, char *err)
{
	if (lstat(path, st) < 0) {
		if (errno != ENOENT)
			return err_set(err, "cannot write %s: %s", path,
				       strerror(errno));
		st->st_mode = 0;
		return 0;
	}
	if (S_ISLNK(st->st_mode))
		return err_set(err,
			       "%s is a symbolic link: refusing to write "
			       "through it",
			       path);
	if (!S_ISREG(st->st_mode))
		return err_set(err, "%s is not a regular file: refusing it",
			       path);
	return 0;
}

int
file_replace_check(const char *path, char *err)
{
	char dir[4096];
	struct stat st;

	if (replaceable(path, &st, err) < 0)
		return -1;
	if (dir_of(path, dir, sizeof(dir)) < 0)
		return err_set(err, "%s: path too long", path);
	if (access(dir, W_OK | X_OK) != 0)
		return err_set(err, "cannot write %s: %s", path,
			       strerror(errno));
	return 0;
}

int
file_replace_open(const char *path, char *tmp, size_t tmpcap, char *err)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	const char *slash = strrchr(path, '/');
	int dlen = slash == NULL ? 0 : (int)(slash - path) + 1;
	unsigned char rnd[6];
	struct stat st;
	int fd = -1, tries, n;

	if (replaceable(path, &st, err) < 0)
		return -1;
	for (tries = 0; tries < 100; tries++) {
		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) !=
		    (ssize_t)sizeof(rnd)) {
			/* No entropy yet: O_EXCL keeps a guessed name
			 * safe, only a retry away. */
			uint64_t t = (uint64_t)time(NULL) ^
				     ((uint64_t)getpid() << 16) ^
				     ((uint64_t)tries << 40);

			memcpy(rnd, &t, sizeof(rnd));
		}
		n = snprintf(tmp, tmpcap, "%.*s.%s.%c%c%c%c%c%c", dlen, path,
			     path + dlen, abc[rnd[0] % 36], abc[rnd[1] % 36],
			     abc[rnd[2] % 36], abc[rnd[3] % 36],
			     abc[rnd[4] % 36], abc[rnd[5] % 36]);
		if (n < 0 || (size_t)n >= tmpcap)
			return err_set(err, "%s: path too long", path);
		fd = open(tmp,
			  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
			      O_NOCTTY,
			  0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return err_set(err, "cannot write %s: %s", path,
			       strerror(errno));
	/* A file replaced keeps its permissions. */
	if (S_ISREG(st.st_mode))
		fchmod(fd, st.st_mode & 0777);
	return fd;
}

int
file_replace_commit(const char *tmp, const char *path, char *err)
{
	struct stat st;
	int e;

	if (replaceable(path, &st, err) < 0) {
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		return err_set(err, "cannot write %s: %s", path, strerror(e));
	}
	return 0;
}
