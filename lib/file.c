#include "np/file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

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
