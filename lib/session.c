#include "np/session.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "np/clock.h"
#include "np/err.h"
#include "np/escape.h"
#include "np/proto.h"

/* Waits until fd is ready for events or the deadline passes; returns 1
 * when ready, 0 on time-out, -1 on error. */
static int
wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	uint64_t now;
	int rc;

	for (;;) {
		now = clock_ns();
		if (now >= deadline)
			return 0;
		rc = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

int
session_send_raw(int fd, const void *data, size_t len, int timeout_ms,
		 char *err)
{
	const char *buf = data;
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = send(fd, buf + off, (size_t)(len - off),
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return err_set(err, "control connection: %s",
				       strerror(errno));
		if (wait_fd(fd, POLLOUT, deadline) <= 0)
			return err_set(err,
				       "control connection: peer did not "
				       "take a message within %d ms",
				       timeout_ms);
	}
	return 0;
}

int
session_send(int fd, const json_t *msg, int timeout_ms, char *err)
{
	char *buf;
	ssize_t len;
	int rc;

	len = proto_encode_new(msg, &buf, err);
	if (len < 0)
		return -1;
	rc = session_send_raw(fd, buf, (size_t)len, timeout_ms, err);
	free(buf);
	return rc;
}

int
session_send_new(int fd, json_t *msg, int timeout_ms, char *err)
{
	int rc;

	if (msg == NULL)
		return err_set(err, "out of memory");
	rc = session_send(fd, msg, timeout_ms, err);
	json_decref(msg);
	return rc;
}

int
session_offer(int fd, const json_t *msg, int timeout_ms, char *err)
{
	static char buf[PROTO_MAX_MSG + PROTO_HDR_LEN];
	int sndbuf = 0, queued = 0;
	socklen_t sl = sizeof(sndbuf);
	ssize_t len, n;
	long budget;

	/* Interim reports and the like: never a results message. */
	len = proto_encode(msg, buf, sizeof(buf), err);
	if (len < 0)
		return -1;
	/* What the peer has not yet taken (sent or not, unacknowledged)
	 * may be a quarter of the send buffer: far below the point where a
	 * write would block, and a reader that keeps up never nears it. */
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl) < 0 ||
	    ioctl(fd, SIOCOUTQ, &queued) < 0)
		return err_set(err, "control connection: %s", strerror(errno));
	budget = sndbuf / 4;
	if (budget < 2048)
		budget = 2048;
	if ((long)queued + len > budget)
		return 1;
	n = send(fd, buf, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n == len)
		return 0;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n < 0)
		return err_set(err, "control connection: %s", strerror(errno));
	/* Part of the frame is out: the rest must follow, or the stream
	 * is no longer framed. */
	return session_send_raw(fd, buf + n, (size_t)(len - n), timeout_ms,
				err);
}

int
session_take(int fd, const char *type, size_t max, json_t **msg, char *err)
{
	static char buf[PROTO_MAX_MSG + PROTO_HDR_LEN];
	char why[ERR_LEN];
	ssize_t n;
	long len;

	*msg = NULL;
	if (max > PROTO_MAX_MSG)
		max = PROTO_MAX_MSG;
	n = recv(fd, buf, max + PROTO_HDR_LEN, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	/* A close, an error or a header that is no frame's: for the
	 * reader that comes next to report. */
	if (n <= 0)
		return 2;
	if (n < PROTO_HDR_LEN)
		return 0;
	len = proto_frame_len((unsigned char *)buf, why);
	if (len < 0 || (size_t)len > max)
		return 2;
	if (n < PROTO_HDR_LEN + len)
		return 0;
	if (proto_decode(buf, (size_t)(PROTO_HDR_LEN + len), msg, err) < 0)
		return -1;
	if (strcmp(proto_type(*msg), type) != 0) {
		json_decref(*msg);
		*msg = NULL;
		return 2;
	}
	/* This thread alone reads fd: the bytes peeked are still there. */
	n = recv(fd, buf, (size_t)(PROTO_HDR_LEN + len), MSG_DONTWAIT);
	if (n != PROTO_HDR_LEN + len) {
		json_decref(*msg);
		*msg = NULL;
		return err_set(err, "control connection: a message peeked "
				    "could not be read");
	}
	return 1;
}

/* Reads exactly len bytes by the deadline; returns 0, 1 on a clean EOF
 * before the first byte, or -1 with err set. */
static int
read_full(int fd, char *buf, size_t len, uint64_t deadline, int timeout_ms,
	  char *err)
{
	size_t off = 0;
	ssize_t n;
	int rc;

	while (off < len) {
		n = recv(fd, buf + off, len - off, MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0) {
			if (off == 0)
				return 1;
			return err_set(err, "control connection closed in the "
					    "middle of a message");
		}
		if (errno != EAGAIN && errno != EINTR)
			return err_set(err, "control connection: %s",
				       strerror(errno));
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc < 0)
			return err_set(err, "control connection: %s",
				       strerror(errno));
		if (rc == 0)
			return err_set(err,
				       "control connection: no message "
				       "within %d ms",
				       timeout_ms);
	}
	return 0;
}

int
session_recv_raw(int fd, void *buf, size_t len, int timeout_ms, char *err)
{
	return read_full(fd, buf, len,
			 clock_ns() + (uint64_t)timeout_ms * 1000000,
			 timeout_ms, err);
}

int
session_recv(int fd, json_t **msg, int timeout_ms, char *err)
{
	static char small[PROTO_MAX_MSG + PROTO_HDR_LEN];
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;
	char *buf = small;
	long len;
	int rc;

	*msg = NULL;
	rc = read_full(fd, buf, PROTO_HDR_LEN, deadline, timeout_ms, err);
	if (rc != 0)
		return rc;
	len = proto_frame_len((unsigned char *)buf, err);
	if (len < 0)
		return -1;
	/* Only a process that raised proto_recv_max reads past the
	 * static buffer. */
	if ((size_t)len > PROTO_MAX_MSG) {
		buf = malloc((size_t)len + PROTO_HDR_LEN);
		if (buf == NULL)
			return err_set(err, "out of memory for a message of "
					    "%ld bytes",
				       len);
		memcpy(buf, small, PROTO_HDR_LEN);
	}
	rc = read_full(fd, buf + PROTO_HDR_LEN, (size_t)len, deadline,
		       timeout_ms, err);
	if (rc == 1)
		rc = err_set(err, "control connection closed in the middle "
				  "of a message");
	else if (rc == 0 &&
		 proto_decode(buf, (size_t)len + PROTO_HDR_LEN, msg, err) < 0)
		rc = -1;
	if (buf != small)
		free(buf);
	return rc;
}

int
session_expect_past(int fd, const char *type, const char *skip,
		    session_skip_fn on_skip, void *arg, json_t **msg,
		    int timeout_ms, char *err)
{
	char safe[ESCAPE_LEN];
	const char *t;
	int rc;

	for (;;) {
		rc = session_recv(fd, msg, timeout_ms, err);
		if (rc == 1)
			return err_set(
			    err, "the peer closed the control connection");
		if (rc < 0)
			return -1;
		t = proto_type(*msg);
		if (skip == NULL || strcmp(t, skip) != 0)
			break;
		rc = on_skip(arg, *msg, err);
		json_decref(*msg);
		*msg = NULL;
		if (rc < 0)
			return -1;
	}
	if (strcmp(t, type) == 0)
		return 0;
	if (strcmp(t, "error") == 0) {
		const char *text =
		    json_string_value(json_object_get(*msg, "message"));

		/* The peer's words, made printable: they reach a log or a
		 * terminal. */
		err_set(err, "%s",
			text ? escape_str(safe, sizeof(safe), text)
			     : "unspecified error");
		json_decref(*msg);
		*msg = NULL;
		return SESSION_PEER_ERROR;
	} else {
		err_set(err, "expected a \"%s\" message, got \"%s\"", type,
			escape_str(safe, sizeof(safe), t));
	}
	json_decref(*msg);
	*msg = NULL;
	return -1;
}

int
session_expect(int fd, const char *type, json_t **msg, int timeout_ms,
	       char *err)
{
	return session_expect_past(fd, type, NULL, NULL, NULL, msg, timeout_ms,
				   err);
}
