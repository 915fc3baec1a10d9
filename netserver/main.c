/* netserver: accept control connections, fork a child for each. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "server.h"
#include "proto.h"
#include "session.h"
#include "sock.h"

static volatile sig_atomic_t stop_requested;
static int debug_level;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void
log_line(int level, const char *fmt, ...)
{
	char stamp[32];
	time_t now;
	va_list ap;

	if (level > debug_level)
		return;
	now = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", localtime(&now));
	fprintf(stderr, "%s netserver[%ld]: ", stamp, (long)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
usage(FILE *out)
{
	fputs(
	    "Usage: netserver [options]\n"
	    "\n"
	    "    -p port          listen on port (12865; 0 picks a free one)\n"
	    "    -L addr[,fam]    listen on this address only\n"
	    "    -4, -6           IPv4 or IPv6 only\n"
	    "    -D               stay in the foreground (for systemd)\n"
	    "    -f               do not fork: serve clients one at a time\n"
	    "    -d               more log lines on stderr\n"
	    "    -V, -h           version, this help\n",
	    out);
}

/* Serves one control connection in this process. */
static void
serve(int fd, const struct sockaddr_storage *peer,
      const struct server_limits *lim)
{
	char err[ERR_LEN], who[SOCK_ADDR_LEN];

	sock_addr_text((const struct sockaddr *)peer, who);
	log_line(1, "control connection from %s", who);
	if (server_session(fd, lim, log_line, &stop_requested, err) < 0)
		log_line(0, "client %s: %s", who, err);
	else
		log_line(1, "client %s done", who);
	close(fd);
}

/* The children serving clients, so that only they are ever signalled. */
#define MAX_CHILDREN 256
static pid_t children[MAX_CHILDREN];
static int nchildren;

static void
forget(pid_t pid)
{
	int i;

	for (i = 0; i < nchildren; i++)
		if (children[i] == pid) {
			children[i] = children[--nchildren];
			return;
		}
}

static void
reap(void)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		forget(pid);
}

/* Turns a client away with a reason it can print, without forking. */
static void
refuse(int fd, const char *why)
{
	char err[ERR_LEN];
	json_t *msg;

	/* The client speaks first; take its hello so the error is read as
	 * the answer to it. */
	if (session_recv(fd, &msg, 1000, err) == 0)
		json_decref(msg);
	session_send_new(fd, proto_error(why), 1000, err);
	close(fd);
}

static void
daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0) {
		perror("netserver: fork");
		exit(EXIT_FAILURE);
	}
	if (pid > 0)
		exit(EXIT_SUCCESS);
	setsid();
	if (chdir("/") < 0)
		exit(EXIT_FAILURE);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

int
main(int argc, char **argv)
{
	struct netserver_opts o;
	struct server_limits lim;
	struct sockaddr_storage peer;
	struct sigaction sa;
	struct pollfd pfd;
	char err[ERR_LEN];
	int lfd, fd, port, i;
	pid_t pid;

	if (cli_netserver_parse(argc, argv, &o, err) < 0) {
		fprintf(stderr, "netserver: %s\n", err);
		fprintf(stderr, "Try 'netserver -h' for usage.\n");
		return 2;
	}
	if (o.want_help) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	if (o.want_version) {
		printf("netserver %s (control protocol %d)\n", NP_VERSION, 1);
		return EXIT_SUCCESS;
	}
	debug_level = o.debug;
	server_limits_default(&lim);
	if (o.idle_timeout > 0)
		lim.idle_ms = (int)(o.idle_timeout * 1000);
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	lfd = sock_listen(o.listen, o.port, o.family, SOCK_STREAM, 1024, err);
	if (lfd < 0) {
		fprintf(stderr, "netserver: %s\n", err);
		return EXIT_FAILURE;
	}
	port = sock_local_port(lfd);
	fprintf(stderr,
		"Starting netserver with host '%s' port '%d' and family %s\n",
		o.listen[0] ? o.listen : "IN(6)ADDR_ANY", port,
		sock_family_name(o.family));
	fflush(stderr);
	if (!o.foreground && !o.nofork)
		daemonize();

	pfd.fd = lfd;
	pfd.events = POLLIN;
	while (!stop_requested) {
		socklen_t len = sizeof(peer);

		reap();
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		fd = accept4(lfd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (o.nofork) {
			serve(fd, &peer, &lim);
			continue;
		}
		if (nchildren == MAX_CHILDREN) {
			snprintf(err, sizeof(err),
				 "this server is busy: %d sessions are running",
				 MAX_CHILDREN);
			log_line(0, "%s", err);
			refuse(fd, err);
			continue;
		}
		pid = fork();
		if (pid < 0) {
			log_line(0, "fork: %s", strerror(errno));
			close(fd);
			continue;
		}
		if (pid == 0) {
			close(lfd);
			/* A child ends on SIGTERM at once; its peer sees
			 * the connection close. */
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			serve(fd, &peer, &lim);
			_exit(EXIT_SUCCESS);
		}
		children[nchildren++] = pid;
		close(fd);
	}
	close(lfd);
	log_line(1, "stopping; %d children", nchildren);
	for (i = 0; i < nchildren; i++)
		kill(children[i], SIGTERM);
	while (nchildren > 0) {
		pid = waitpid(-1, NULL, 0);
		if (pid > 0)
			forget(pid);
		else if (errno != EINTR)
			break;
	}
	return EXIT_SUCCESS;
}
