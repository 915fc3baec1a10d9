/* Shared helpers for the Check suites: running a suite, starting netserver,
 * running netperf, talking raw protocol. */
#ifndef NP_HARNESS_H
#define NP_HARNESS_H

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

/* Runs suite s with Check's normal verbosity; returns the process exit code:
 * 1 when a test failed; 77 (CTest's skip) when none failed but every test
 * recorded a skip (harness_skip), so that nothing could run; else 0, with
 * each skip listed and counted on stderr. */
int harness_run(Suite *s);

/* harness_run for a suite from which the cases that need a delay line
 * were left out when harness_line_possible said no (can_line 0): they
 * are a skip, said on a "skipped:" line naming the program, as
 * scripts/test shows it. The rest ran and count, so this exits 77 only as
 * harness_run does, when none of them could run. */
int harness_run_line(Suite *s, int can_line);

/*
 * Records that the calling test could not check something and why (the
 * format names the check first: "check: why"), and prints "skipped: ..."
 * on stderr, a line that scripts/test shows. The test goes on with what
 * it can check, or returns. A skip is per check: the suite passes on what
 * could run, and exits 77 only when every test skipped (harness_run).
 */
void harness_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 1 in a build under AddressSanitizer (SANITIZE=ON), which runs several
 * times slower: a claim about rates that only the machine's speed can
 * break is checked in the plain build. */
#ifdef __SANITIZE_ADDRESS__
#define HARNESS_SANITIZED 1
#else
#define HARNESS_SANITIZED 0
#endif

/*
 * Whether a timing claim that just failed gets one more run: the first
 * time (*tries counts them, start it at 0), says so on stderr with the
 * failure (printf format) and returns 1; after that returns 0, and the
 * caller fails. For a claim a short stall inside the run can break.
 */
int harness_once_more(int *tries, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The kernel's account of the last netperf that harness_netperf or
 * harness_exec_capture ran, from its threads' schedstat (run time and
 * run-queue wait, read every 5 ms while it ran and once more at its exit)
 * and from those of the fixture netserver's children (harness_srv: its
 * sessions) born during the run. A thread that ended between two reads
 * may have waited up to 5 ms more than was seen: wait_hi counts that,
 * wait_lo does not. Times in seconds; all 0 where the kernel keeps no
 * such count (harness_have_schedstat).
 */
struct harness_sched {
	double local_run, local_wait_lo, local_wait_hi;	   /* netperf */
	double remote_run, remote_wait_lo, remote_wait_hi; /* its sessions */
	double main_wait; /* netperf's main thread, exact, at its exit */
};

/* Copies the account of the last run into s. */
void harness_last_sched(struct harness_sched *s);

/* Waits for a child that runs netperf (directly, or as "ip netns exec"
 * does, in place) as harness_wait_status does, and keeps the kernel's
 * account of it for harness_last_sched. */
int harness_wait_watched(pid_t pid, double deadline);

/* Makes the account's remote side the children of the netserver pid
 * from now on, instead of harness_srv's (0: back to harness_srv). */
void harness_sched_server(pid_t pid);

/*
 * How long netperf's main thread waited for a CPU in the last run between
 * wall-clock times t0 and t1 (CLOCK_REALTIME, s), at most: the difference
 * of its counts read before t0 and after t1 (every 5 ms, later on a busy
 * machine). -1 when no reading was taken before t0 or after t1.
 */
double harness_sched_main_wait_between(double t0, double t1);

/* How long the threads of a run may have waited for a CPU, at most:
 * local_wait_hi + remote_wait_hi. The allowance a timing claim takes on a
 * loaded machine, from the kernel's own count of the same run. */
double harness_sched_wait(const struct harness_sched *s);

/* Whether the kernel counts a thread's wait for a CPU
 * (/proc/thread-self/schedstat), which a --start-at start reports. */
int harness_have_schedstat(void);

/* Whether process pid holds an established TCP connection other than
 * one to ctl_port (the control connection): a test's data connection,
 * from /proc/net/tcp's lines for the inodes of its sockets. */
int harness_has_data_conn(pid_t pid, int ctl_port);

/* Starts socat with args (up to 10, NULL-ended), its output to
 * /dev/null, as a service a test talks to; returns its PID (the child
 * exits 127 when there is no socat), or -1 when fork fails. */
pid_t harness_socat(const char *const *args);

/* A netserver started for one test. */
struct harness_server {
	pid_t pid;
	int port;
	char log[64]; /* its stderr, a file under /tmp */
};

/* The netserver of the plain checked fixture, and its port as text. */
extern struct harness_server harness_srv;
extern char harness_port[16];

/* The plain checked fixture: starts harness_srv with no extra options,
 * failing the test when it cannot. */
void harness_setup(void);

/* Stops harness_srv, failing the test when it had to be killed. */
void harness_teardown(void);

/* Starts "netserver -D -p 0 extra..." and waits for its start-up line;
 * extra is a NULL-terminated list or NULL. Returns 0, or -1. */
int harness_server_start(struct harness_server *s, const char *const *extra);

/* Stops the server with SIGTERM (SIGKILL after 5 s) and reaps it;
 * returns its exit status, or -1 when it had to be killed. */
int harness_server_stop(struct harness_server *s);

/* The PIDs of the server's children, up to max; returns how many. */
int harness_server_children(const struct harness_server *s, pid_t *pids,
			    int max);

/* The number of open descriptors of a process, -1 on error. */
int harness_fd_count(pid_t pid);

/* The output of one netperf run. */
struct harness_out {
	int status;	   /* exit status; -1 when killed on time-out */
	double seconds;	   /* wall time it took */
	char out[1 << 19]; /* stdout */
	char err[4096];	   /* stderr */
};

/*
 * Runs netperf with args (NULL-terminated, without argv[0]) and waits at
 * most timeout seconds, killing it after. Returns 0 when it ran (whatever
 * its status), -1 when it could not be started.
 */
int harness_netperf(const char *const *args, double timeout,
		    struct harness_out *o);

/* Reads the numbers at the start of the line at p, separated by spaces,
 * into v (at most max); returns how many were read. */
int harness_line_numbers(const char *p, double *v, int max);

/* The i-th line (0 first) after the blank line that ends the column
 * titles of a classic table, or NULL. */
const char *harness_data_line(const char *out, int i);

/* Reads the numbers of the i-th data line into v (at most max); returns
 * how many were read, 0 when there is no such line. */
int harness_data_numbers(const char *out, int i, double *v, int max);

/* Writes len bytes to path, created or truncated, and gives it mode
 * whatever the umask; fails the test when it cannot. */
void harness_write_file(const char *path, const void *buf, size_t len,
			mode_t mode);

/* Waits for child pid until the monotonic deadline (harness_now()
 * seconds), killing it then; returns its exit status (128 + signal when
 * killed by one), or -1 when the deadline passed. */
int harness_wait_status(pid_t pid, double deadline);

/* Starts netperf in the background; returns its PID, or -1. Its output
 * goes to /dev/null. */
pid_t harness_netperf_spawn(const char *const *args);

/* Connects a TCP socket to 127.0.0.1:port; returns it, or -1. */
int harness_connect(int port);

/* Sends raw bytes in full; returns 0, or -1. */
int harness_send(int fd, const void *buf, size_t len);

/* Sends one framed JSON text; returns 0, or -1. */
int harness_send_json(int fd, const char *json);

/* Reads one frame's JSON text into buf within timeout_ms; returns its
 * length, 0 on EOF, or -1 on error or time-out. */
long harness_recv_frame(int fd, char *buf, size_t cap, int timeout_ms);

/* Waits until the process has exited (it is our child) or timeout
 * seconds pass; returns 1 when it is gone. */
int harness_wait_gone(pid_t pid, double timeout);

/* A port on 127.0.0.1 that nothing holds, for TCP or UDP. */
int harness_free_port(void);

/* Reads up to cap - 1 bytes of the file at path into buf, NUL-ended;
 * an empty string when it cannot be read. */
void harness_read_file(const char *path, char *buf, size_t cap);

/* Monotonic seconds. */
double harness_now(void);

/* Whether the running kernel's release is at least major.minor. */
int harness_kernel_at_least(int major, int minor);

/* Helpers for the measurement suites (check_measure, check_netns). */

#include <jansson.h>

/*
 * Runs argv (argv[0] looked up in PATH) with its whole stdout captured
 * into *out (malloc'd, NUL-terminated; the caller frees it) and its
 * stderr into err (cap bytes), killing it after timeout seconds; the
 * child dies with the caller. Returns its exit status, -1 when it was
 * killed on time-out or could not be started.
 */
int harness_exec_capture(const char *const *argv, double timeout, char **out,
			 char *err, size_t cap);

/* Parses the first JSON document in text (anything after it, such as a
 * trailing newline, is ignored); returns it, or NULL. */
json_t *harness_json_parse(const char *text);

/* The value at a dotted path ("local.wire.out.payload"; a number
 * indexes an array), or NULL when absent or null. */
json_t *harness_json_at(json_t *doc, const char *path);

/* The number at path (integer or real), or NAN when absent, null or
 * not a number. */
double harness_json_num(json_t *doc, const char *path);

/* Finds the line "KEY=value" in text and copies value into val (cap
 * bytes); returns 0, or -1 when there is no such line. */
int harness_keyval(const char *text, const char *key, char *val, size_t cap);

/* Helpers for the service and fault suites (check_service, check_faults). */

/* A process's state letter from /proc/PID/stat ('R', 'S', 'Z'...), or 0
 * when it is gone. */
char harness_proc_state(pid_t pid);

/* The kernel's count of datagrams dropped on the UDP socket bound to
 * 127.0.0.1:port, plain or v4-mapped (/proc/net/udp, udp6): for want of
 * room, and on some kernels those its filter refused. -1 when there is
 * no such socket. */
long harness_udp_drops(int port);

/* The same once datagrams already sent have all been delivered or
 * dropped: two readings 20 ms apart agree (within a second). */
long harness_udp_drops_settled(int port);

/* A process's real uid from /proc/PID/status, or -1 when it is gone. */
long harness_proc_uid(pid_t pid);

/* Counts the lines of text that contain needle. */
int harness_text_count(const char *text, const char *needle);

/* Counts the lines of file path that contain needle; -1 when it cannot
 * be read. */
int harness_log_count(const char *path, const char *needle);

/* Helpers for the namespace suites (check_netns, check_tcpinfo). */

/* How long one harness_cmd may take, in seconds. */
#define HARNESS_CMD_TIMEOUT 60.0

/* Runs the words of a NULL-terminated list (the first looked up in PATH);
 * returns the exit status, -1 when killed or not started, with its
 * stdout and then its stderr in out (cap bytes). */
int harness_cmd(char *out, size_t cap, ...);

/* Runs the words given (no NULL) and fails the test with the command and
 * its output unless it exited 0. */
#define HARNESS_MUST(...)                                                      \
	do {                                                                   \
		char out_[4096];                                               \
		int rc_ = harness_cmd(out_, sizeof(out_), __VA_ARGS__, NULL);  \
		ck_assert_msg(rc_ == 0, "%s (exit %d): %s", #__VA_ARGS__, rc_, \
			      out_);                                           \
	} while (0)

/* Two network namespaces and a device in each that joins them. */
struct harness_netns {
	char a[48], b[48];	   /* the namespaces: netperf's, netserver's */
	char dev_a[16], dev_b[16]; /* the devices between them, one in each */
	char addr_a[16], addr_b[16];
};

/*
 * Names a pair for the calling test process, making nothing: namespaces
 * TAGa-RUNNER-PID and TAGb-RUNNER-PID (runner is the suite's process, so
 * harness_netns_sweep finds them), devices DEVaPID and DEVbPID, addresses
 * NET.X.1 and NET.X.2 with X from the PID.
 */
void harness_netns_name(struct harness_netns *n, const char *tag, pid_t runner,
			const char *dev, const char *net);

/* Makes both namespaces, lo up in each; fails the test when it cannot. */
void harness_netns_add(struct harness_netns *n);

/*
 * Joins the namespaces by a veth pair, dev_a and dev_b, born inside them
 * and addressed addr_a/24 and addr_b/24, both up; fails the test when it
 * cannot.
 */
void harness_netns_veth(struct harness_netns *n);

/* Kills every process inside the namespaces and deletes them, b first;
 * safe after a partial set-up, and twice. */
void harness_netns_del(struct harness_netns *n);

/* In the runner, after a test case: deletes the namespaces that runner's
 * tests named under tag and left behind (a failed assertion in fork mode
 * exits before the teardown), and the processes in them. */
void harness_netns_sweep(const char *tag, pid_t runner);

/* Removes the files in /tmp whose names begin with prefix. */
void harness_tmp_sweep(const char *prefix);

/* Whether this process can make a network namespace: root, and "ip netns
 * add" works (it tries one); 1 or 0. */
int harness_netns_possible(void);

/*
 * A delay line: two namespaces with nothing in them but lo and a TUN
 * device each, tests/delayline relaying between the devices (the binary
 * at path delayline, held "A2B_US" or "A2B_US,B2A_US" each way), and a
 * netserver in b, under SCHED_FIFO as the relay is: on a loaded machine a
 * round trip would otherwise hold the time netserver waited for a CPU.
 * The addresses exist only inside the namespaces.
 */
struct harness_line {
	struct harness_netns ns; /* a netperf's, b netserver's */
	pid_t relay, srv;
	int relay_in; /* the relay's stdin: it exits when this closes */
	int port;     /* netserver's control port, and as text */
	char port_text[16];
	char log[64]; /* netserver's stderr */
};

/* Sets up l as above, names as harness_netns_name's (tag, runner, dev,
 * net), netserver's log /tmp/LOGTAG-RUNNER-srv-XXXXXX; fails the test
 * when it cannot. */
void harness_line_up(struct harness_line *l, const char *delayline,
		     const char *delays, const char *tag, pid_t runner,
		     const char *dev, const char *net, const char *logtag);

/* Starts l's netserver in l->ns.b, listening on addr_b only, and waits
 * for its port; for a pair of namespaces set up otherwise too. */
void harness_line_server(struct harness_line *l, pid_t runner,
			 const char *logtag);

/* Whether a delay line can be set up here: /dev/net/tun and network
 * namespaces (harness_netns_possible); 1 or 0. */
int harness_line_possible(void);

/* Stops netserver and the relay, deletes the namespaces and the log;
 * safe after a partial set-up, and twice. */
void harness_line_down(struct harness_line *l);

/*
 * Runs argv (its program first) with stdout to out_path and stderr to
 * err_path, killing it after timeout s; returns its exit status (-1 when
 * killed) with its own peak RSS in KB and its wall time. wait4 gives
 * this child's figures alone; call it while this process is small, as
 * a fork starts as large as its parent.
 */
int harness_run_measured(const char *const *argv, const char *out_path,
			 const char *err_path, double timeout, long *maxrss_kb,
			 double *secs);

/* The big inputs' size in MB (--merge, --compare): 64, as issue 29 asks;
 * a quarter under ASan, which runs this code several times slower, so
 * the time bounds still hold on a loaded CI machine. */
#if defined(__SANITIZE_ADDRESS__)
#define HARNESS_BIG_MB 16
#else
#define HARNESS_BIG_MB 64
#endif

/* Under ASan freed memory is held back, 256 MB of it by default, which
 * an RSS bound would count against the program: its children are given
 * a small quarantine. Nothing changes without ASan. */
void harness_asan_small_quarantine(void);

/* Sends n datagrams of 64 bytes to 127.0.0.1:port from address src, each
 * starting with a sequence number as ours do (0 up), and one empty one
 * last: what another host could have in flight at a data port. */
void harness_udp_junk(const char *src, int port, int n);

#endif
