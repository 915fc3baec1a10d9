/* Tests for lib/cpu: /proc/stat parsing, utilisation, service demand. */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np/clock.h"
#include "np/cpu.h"
#include "np/err.h"

#define TOL 1e-9

/*
 * The parser is handed an exact-length heap copy with no NUL, so that under
 * AddressSanitizer any read past len is caught rather than hidden by the
 * string literal's terminator.
 */
static int
parse_exact(const char *text, size_t len, struct cpu_sample *s, char *err)
{
	char *buf = malloc(len > 0 ? len : 1);
	int rc;

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, text, len);
	rc = cpu_sample_parse(buf, len, s, err);
	free(buf);
	return rc;
}

static void
parse_ok(const char *text, struct cpu_sample *s)
{
	char err[ERR_LEN] = "";

	ck_assert_msg(parse_exact(text, strlen(text), s, err) == 0,
		      "parse failed: %s", err);
}

static void
util_from(const char *ta, const char *tb, struct cpu_util *u)
{
	struct cpu_sample a, b;
	char err[ERR_LEN] = "";

	parse_ok(ta, &a);
	parse_ok(tb, &b);
	ck_assert_msg(cpu_util_compute(&a, &b, u, err) == 0,
		      "compute failed: %s", err);
	cpu_sample_free(&a);
	cpu_sample_free(&b);
}

static const char stat_modern[] = "cpu  1708 10 1322 39339 283 5 73 3 7 1\n"
				  "cpu0 662 4 447 20212 10 2 22 1 3 0\n"
				  "cpu1 1046 6 875 19127 273 3 51 2 4 1\n"
				  "intr 123456 9 0 0 0\n"
				  "ctxt 987654\n"
				  "btime 1700000000\n"
				  "processes 4321\n"
				  "procs_running 2\n"
				  "procs_blocked 0\n"
				  "softirq 5000 1 2 3 4 5 6 7 8 9\n";

START_TEST(test_parse_modern)
{
	struct cpu_sample s;

	parse_ok(stat_modern, &s);
	ck_assert_int_eq(s.ncpu, 2);
	ck_assert_int_eq(s.present[0], 1);
	ck_assert_int_eq(s.present[1], 1);

	ck_assert_uint_eq(s.all.user, 1708);
	ck_assert_uint_eq(s.all.nice, 10);
	ck_assert_uint_eq(s.all.system, 1322);
	ck_assert_uint_eq(s.all.idle, 39339);
	ck_assert_uint_eq(s.all.iowait, 283);
	ck_assert_uint_eq(s.all.irq, 5);
	ck_assert_uint_eq(s.all.softirq, 73);
	ck_assert_uint_eq(s.all.steal, 3);
	ck_assert_uint_eq(s.all.guest, 7);
	ck_assert_uint_eq(s.all.guest_nice, 1);

	ck_assert_uint_eq(s.per[0].user, 662);
	ck_assert_uint_eq(s.per[0].idle, 20212);
	ck_assert_uint_eq(s.per[0].guest_nice, 0);
	ck_assert_uint_eq(s.per[1].user, 1046);
	ck_assert_uint_eq(s.per[1].nice, 6);
	ck_assert_uint_eq(s.per[1].system, 875);
	ck_assert_uint_eq(s.per[1].idle, 19127);
	ck_assert_uint_eq(s.per[1].iowait, 273);
	ck_assert_uint_eq(s.per[1].irq, 3);
	ck_assert_uint_eq(s.per[1].softirq, 51);
	ck_assert_uint_eq(s.per[1].steal, 2);
	ck_assert_uint_eq(s.per[1].guest, 4);
	ck_assert_uint_eq(s.per[1].guest_nice, 1);

	cpu_sample_free(&s);
	ck_assert_ptr_null(s.per);
	ck_assert_ptr_null(s.present);
	ck_assert_int_eq(s.ncpu, 0);
}
END_TEST

START_TEST(test_parse_old_kernel)
{
	/* Linux 2.4: user nice system idle only. */
	static const char text[] = "cpu  300 20 100 9000\n"
				   "cpu0 150 10 50 4500\n"
				   "cpu1 150 10 50 4500\n"
				   "page 5741 1808\n"
				   "swap 1 0\n";
	struct cpu_sample s;

	parse_ok(text, &s);
	ck_assert_int_eq(s.ncpu, 2);
	ck_assert_uint_eq(s.all.user, 300);
	ck_assert_uint_eq(s.all.nice, 20);
	ck_assert_uint_eq(s.all.system, 100);
	ck_assert_uint_eq(s.all.idle, 9000);
	ck_assert_uint_eq(s.all.iowait, 0);
	ck_assert_uint_eq(s.all.irq, 0);
	ck_assert_uint_eq(s.all.softirq, 0);
	ck_assert_uint_eq(s.all.steal, 0);
	ck_assert_uint_eq(s.all.guest, 0);
	ck_assert_uint_eq(s.all.guest_nice, 0);
	ck_assert_uint_eq(s.per[1].system, 50);
	ck_assert_uint_eq(s.per[1].iowait, 0);
	cpu_sample_free(&s);
}
END_TEST

START_TEST(test_parse_seven_fields)
{
	/* Linux 2.6.0..2.6.10: no steal, no guest. */
	struct cpu_sample s;

	parse_ok("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7", &s);
	ck_assert_int_eq(s.ncpu, 1);
	ck_assert_uint_eq(s.per[0].softirq, 7);
	ck_assert_uint_eq(s.per[0].steal, 0);
	cpu_sample_free(&s);
}
END_TEST

START_TEST(test_parse_hotplug_gap)
{
	static const char text[] = "cpu  40 0 0 400 0 0 0 0 0 0\n"
				   "cpu0 10 0 0 100 0 0 0 0 0 0\n"
				   "cpu2 20 0 0 100 0 0 0 0 0 0\n"
				   "cpu3 10 0 0 200 0 0 0 0 0 0\n"
				   "intr 1\n";
	struct cpu_sample s;

	parse_ok(text, &s);
	ck_assert_int_eq(s.ncpu, 4);
	ck_assert_int_eq(s.present[0], 1);
	ck_assert_int_eq(s.present[1], 0);
	ck_assert_int_eq(s.present[2], 1);
	ck_assert_int_eq(s.present[3], 1);
	ck_assert_uint_eq(s.per[1].user, 0);
	ck_assert_uint_eq(s.per[1].idle, 0);
	ck_assert_uint_eq(s.per[2].user, 20);
	ck_assert_uint_eq(s.per[3].idle, 200);
	cpu_sample_free(&s);
}
END_TEST

START_TEST(test_parse_respects_len)
{
	/* Only "cpu  1 2 3 4" is inside len; the rest must not be read. */
	static const char text[] = "cpu  1 2 3 4 99 99\ncpu0 1 2 3 4\n";
	struct cpu_sample s;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(parse_exact(text, strlen("cpu  1 2 3 4"), &s, err), 0);
	ck_assert_int_eq(s.ncpu, 0);
	ck_assert_ptr_null(s.per);
	ck_assert_uint_eq(s.all.idle, 4);
	ck_assert_uint_eq(s.all.iowait, 0);
	cpu_sample_free(&s);
}
END_TEST

START_TEST(test_parse_extra_fields_ignored)
{
	struct cpu_sample s;

	parse_ok("cpu  1 2 3 4 5 6 7 8 9 10 11 12\n", &s);
	ck_assert_uint_eq(s.all.user, 1);
	ck_assert_uint_eq(s.all.guest_nice, 10);
	cpu_sample_free(&s);
}
END_TEST

static const char *const bad_texts[] = {
    "",
    "\n\n",
    "hello world\n",
    "intr 1 2 3\nctxt 4\n",
    "cpu0 1 2 3 4\n",
    "cpu\n",
    "cpu  1 2 3\n",
    "cpu  1 2 3 4\ncpu0 1 2\n",
    "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1",
    "cpu  1 2 x 4\n",
    "cpu  1 2 3 4a\n",
    "cpu  -1 2 3 4\n",
    "cpu  1 2 3 4.5\n",
    "cpu  18446744073709551616 2 3 4\n",
    "cpu  1 2 3 4\ncpu1048577 1 2 3 4\n",
    "cpu  1 2 3 4\ncpu99999999999999999999999 1 2 3 4\n",
    "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu0 1 2 3 4\n",
    "cpu  1 2 3 4\ncpu  1 2 3 4\n",
    "cpux 1 2 3 4\ncpu  1 2 3 4\n",
    "cpu  1 2 3 4\ncpu0x 1 2 3 4\n",
};

START_TEST(test_parse_rejects)
{
	const char *text = bad_texts[_i];
	struct cpu_sample s;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(parse_exact(text, strlen(text), &s, err), -1);
	ck_assert_msg(err[0] != '\0', "no message for \"%s\"", text);
	ck_assert_ptr_null(s.per);
	ck_assert_ptr_null(s.present);
	ck_assert_int_eq(s.ncpu, 0);
}
END_TEST

START_TEST(test_parse_null_text)
{
	struct cpu_sample s;
	char err[ERR_LEN] = "";

	ck_assert_int_eq(cpu_sample_parse(NULL, 0, &s, err), -1);
	ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(test_free_zeroed)
{
	struct cpu_sample s;
	struct cpu_util u;

	memset(&s, 0, sizeof(s));
	memset(&u, 0, sizeof(u));
	cpu_sample_free(&s);
	cpu_sample_free(&s);
	cpu_util_free(&u);
	cpu_util_free(&u);
	cpu_sample_free(NULL);
	cpu_util_free(NULL);
	ck_assert_ptr_null(s.per);
	ck_assert_ptr_null(u.per);
}
END_TEST

START_TEST(test_util_one_cpu_busy)
{
	/* cpu0: 50 user + 25 system + 25 idle; cpu1: 100 idle. */
	static const char a[] = "cpu  0 0 0 200 0 0 0 0 0 0\n"
				"cpu0 0 0 0 100 0 0 0 0 0 0\n"
				"cpu1 0 0 0 100 0 0 0 0 0 0\n";
	static const char b[] = "cpu  50 0 25 325 0 0 0 0 0 0\n"
				"cpu0 50 0 25 125 0 0 0 0 0 0\n"
				"cpu1 0 0 0 200 0 0 0 0 0 0\n";
	struct cpu_util u;

	util_from(a, b, &u);
	ck_assert_int_eq(u.ncpu, 2);
	ck_assert_int_eq(u.nslots, 2);
	ck_assert_double_eq_tol(u.per[0].util, 75.0, TOL);
	ck_assert_double_eq_tol(u.per[0].user, 50.0, TOL);
	ck_assert_double_eq_tol(u.per[0].system, 25.0, TOL);
	ck_assert_double_eq_tol(u.per[0].idle, 25.0, TOL);
	ck_assert_double_eq_tol(u.per[1].util, 0.0, TOL);
	ck_assert_double_eq_tol(u.per[1].idle, 100.0, TOL);
	ck_assert_double_eq_tol(u.all.util, 37.5, TOL);
	ck_assert_double_eq_tol(u.all.user, 25.0, TOL);
	ck_assert_double_eq_tol(u.all.system, 12.5, TOL);
	ck_assert_double_eq_tol(u.all.idle, 62.5, TOL);
	ck_assert_double_eq_tol(u.peak, 75.0, TOL);
	ck_assert_int_eq(u.peak_id, 0);
	cpu_util_free(&u);
	ck_assert_ptr_null(u.per);
}
END_TEST

START_TEST(test_util_peak_not_first)
{
	static const char a[] = "cpu  0 0 0 0\n"
				"cpu0 0 0 0 0\n"
				"cpu1 0 0 0 0\n"
				"cpu2 0 0 0 0\n";
	static const char b[] = "cpu  190 0 0 110\n"
				"cpu0 10 0 0 90\n"
				"cpu1 90 0 0 10\n"
				"cpu2 90 0 0 10\n";
	struct cpu_util u;

	util_from(a, b, &u);
	ck_assert_double_eq_tol(u.all.util, 190.0 / 3.0, TOL);
	ck_assert_double_eq_tol(u.peak, 90.0, TOL);
	/* A tie goes to the lowest CPU number. */
	ck_assert_int_eq(u.peak_id, 1);
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_steal)
{
	/* 100 ticks: 50 user, 5 irq, 5 softirq, 30 idle, 10 stolen. */
	static const char a[] = "cpu  0 0 0 0 0 0 0 0 0 0\n"
				"cpu0 0 0 0 0 0 0 0 0 0 0\n";
	static const char b[] = "cpu  50 0 0 30 0 5 5 10 0 0\n"
				"cpu0 50 0 0 30 0 5 5 10 0 0\n";
	struct cpu_util u;

	util_from(a, b, &u);
	ck_assert_double_eq_tol(u.per[0].util, 60.0, TOL);
	ck_assert_double_eq_tol(u.per[0].steal, 10.0, TOL);
	ck_assert_double_eq_tol(u.per[0].irq, 5.0, TOL);
	ck_assert_double_eq_tol(u.per[0].softirq, 5.0, TOL);
	ck_assert_double_eq_tol(u.per[0].idle, 30.0, TOL);
	ck_assert_double_eq_tol(u.all.util, 60.0, TOL);
	ck_assert_double_eq_tol(u.all.steal, 10.0, TOL);
	/* The raw account an exact merge adds: 60 busy of 100 ticks. */
	ck_assert_uint_eq(u.busy_ticks, 60);
	ck_assert_uint_eq(u.total_ticks, 100);
	ck_assert_int_eq(u.hz, (int)sysconf(_SC_CLK_TCK));
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_guest_not_counted_twice)
{
	/*
	 * +40 user of which 40 guest, +10 nice of which 10 guest_nice, +50
	 * idle: 100 ticks, 50 busy. Adding guest again would give 100 of 150.
	 */
	static const char a[] = "cpu  100 10 0 100 0 0 0 0 50 5\n"
				"cpu0 100 10 0 100 0 0 0 0 50 5\n";
	static const char b[] = "cpu  140 20 0 150 0 0 0 0 90 15\n"
				"cpu0 140 20 0 150 0 0 0 0 90 15\n";
	struct cpu_util u;

	util_from(a, b, &u);
	ck_assert_double_eq_tol(u.per[0].util, 50.0, TOL);
	ck_assert_double_eq_tol(u.per[0].user, 40.0, TOL);
	ck_assert_double_eq_tol(u.per[0].nice, 10.0, TOL);
	ck_assert_double_eq_tol(u.per[0].idle, 50.0, TOL);
	ck_assert_double_eq_tol(u.all.util, 50.0, TOL);
	/* guest ticks are inside user and nice: 50 busy of 100. */
	ck_assert_uint_eq(u.busy_ticks, 50);
	ck_assert_uint_eq(u.total_ticks, 100);
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_hotplug_excluded)
{
	/* cpu1 goes offline and cpu2 comes online between the samples. */
	static const char a[] = "cpu  0 0 0 200\n"
				"cpu0 0 0 0 100\n"
				"cpu1 0 0 0 100\n";
	static const char b[] = "cpu  520 0 0 180\n"
				"cpu0 20 0 0 180\n"
				"cpu2 500 0 0 0\n";
	struct cpu_util u;

	util_from(a, b, &u);
	ck_assert_int_eq(u.ncpu, 1);
	ck_assert_int_eq(u.nslots, 3);
	ck_assert_double_eq_tol(u.per[0].util, 20.0, TOL);
	ck_assert_double_eq_tol(u.per[1].util, -1.0, TOL);
	ck_assert_double_eq_tol(u.per[2].util, -1.0, TOL);
	ck_assert_double_eq_tol(u.all.util, 20.0, TOL);
	ck_assert_double_eq_tol(u.all.idle, 80.0, TOL);
	ck_assert_double_eq_tol(u.peak, 20.0, TOL);
	ck_assert_int_eq(u.peak_id, 0);
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_iowait_is_idle)
{
	static const char a[] = "cpu  0 0 0 0 0 0 0 0 0 0\n"
				"cpu0 0 0 0 0 0 0 0 0 0 0\n";
	static const char b[] = "cpu  20 0 0 50 30 0 0 0 0 0\n"
				"cpu0 20 0 0 50 30 0 0 0 0 0\n";
	struct cpu_util u;

	util_from(a, b, &u);
	ck_assert_double_eq_tol(u.per[0].util, 20.0, TOL);
	ck_assert_double_eq_tol(u.per[0].iowait, 30.0, TOL);
	ck_assert_double_eq_tol(u.per[0].idle, 50.0, TOL);
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_backwards_counter)
{
	/* iowait drops 50 -> 40: a zero delta, not 2^64 - 10 ticks. */
	static const char a[] = "cpu  100 0 0 100 50\n"
				"cpu0 100 0 0 100 50\n";
	static const char b[] = "cpu  150 0 0 150 40\n"
				"cpu0 150 0 0 150 40\n";
	struct cpu_util u;

	util_from(a, b, &u);
	ck_assert_double_eq_tol(u.per[0].util, 50.0, TOL);
	ck_assert_double_eq_tol(u.per[0].iowait, 0.0, TOL);
	ck_assert_double_eq_tol(u.per[0].idle, 50.0, TOL);
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_zero_interval)
{
	struct cpu_util u;

	util_from(stat_modern, stat_modern, &u);
	ck_assert_int_eq(u.ncpu, 2);
	ck_assert_double_eq_tol(u.per[0].util, 0.0, TOL);
	ck_assert_double_eq_tol(u.per[0].idle, 0.0, TOL);
	ck_assert_double_eq_tol(u.per[1].util, 0.0, TOL);
	ck_assert_double_eq_tol(u.all.util, 0.0, TOL);
	ck_assert_double_eq_tol(u.all.idle, 0.0, TOL);
	ck_assert_double_eq_tol(u.peak, 0.0, TOL);
	ck_assert_int_eq(u.peak_id, 0);
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_aggregate_only)
{
	struct cpu_util u;

	util_from("cpu  0 0 0 0\n", "cpu  30 0 10 60\n", &u);
	ck_assert_int_eq(u.ncpu, 0);
	ck_assert_int_eq(u.nslots, 0);
	ck_assert_ptr_null(u.per);
	ck_assert_double_eq_tol(u.all.util, 40.0, TOL);
	ck_assert_double_eq_tol(u.all.system, 10.0, TOL);
	ck_assert_int_eq(u.peak_id, -1);
	cpu_util_free(&u);
}
END_TEST

START_TEST(test_util_no_common_cpu)
{
	struct cpu_sample a, b;
	struct cpu_util u;
	char err[ERR_LEN] = "";

	parse_ok("cpu  0 0 0 0\ncpu0 0 0 0 0\n", &a);
	parse_ok("cpu  1 0 0 1\ncpu1 1 0 0 1\n", &b);
	ck_assert_int_eq(cpu_util_compute(&a, &b, &u, err), -1);
	ck_assert_str_ne(err, "");
	ck_assert_ptr_null(u.per);
	cpu_sample_free(&a);
	cpu_sample_free(&b);
}
END_TEST

START_TEST(test_sd_tcp_stream)
{
	/* netperf: 23537.20 10^6bits/s, 100 % on 2 CPUs, 0.696 us/KB. */
	double kb_per_sec = 23537.20e6 / 8.0 / 1024.0;
	double sd = cpu_service_demand(100.0, 2, kb_per_sec);

	ck_assert_double_eq_tol(sd, 0.696, 0.0005);
	ck_assert_double_eq_tol(sd, 2e6 / kb_per_sec, TOL);
}
END_TEST

START_TEST(test_sd_tcp_rr)
{
	/* netperf: 67055.50 trans/s, 100 % on 2 CPUs, 29.826 us/Tr. */
	double sd = cpu_service_demand(100.0, 2, 67055.50);

	ck_assert_double_eq_tol(sd, 29.826, 0.0005);
}
END_TEST

START_TEST(test_sd_scaling)
{
	/* 25 % of 4 CPUs for 1000 units/s: one CPU-second over 1000 units. */
	ck_assert_double_eq_tol(cpu_service_demand(25.0, 4, 1000.0), 1000.0,
				TOL);
	ck_assert_double_eq_tol(cpu_service_demand(0.0, 4, 1000.0), 0.0, TOL);
}
END_TEST

START_TEST(test_sd_errors)
{
	ck_assert_double_eq(cpu_service_demand(50.0, 2, 0.0), -1.0);
	ck_assert_double_eq(cpu_service_demand(50.0, 2, -10.0), -1.0);
	ck_assert_double_eq(cpu_service_demand(-0.5, 2, 100.0), -1.0);
	ck_assert_double_eq(cpu_service_demand(50.0, 0, 100.0), -1.0);
	ck_assert_double_eq(cpu_service_demand(50.0, -3, 100.0), -1.0);
	ck_assert_double_eq(cpu_service_demand(NAN, 2, 100.0), -1.0);
	ck_assert_double_eq(cpu_service_demand(50.0, 2, NAN), -1.0);
	ck_assert_double_eq(cpu_service_demand(INFINITY, 2, 100.0), -1.0);
	ck_assert_double_eq(cpu_service_demand(50.0, 2, INFINITY), -1.0);
}
END_TEST

START_TEST(test_count)
{
	int n = cpu_count();

	ck_assert_int_ge(n, 1);
	ck_assert_int_eq(n, (int)sysconf(_SC_NPROCESSORS_ONLN));
}
END_TEST

START_TEST(test_read_real)
{
	struct cpu_sample s;
	char err[ERR_LEN] = "";
	int i, present = 0;

	ck_assert_msg(cpu_sample_read(&s, err) == 0, "read failed: %s", err);
	ck_assert_int_ge(s.ncpu, cpu_count());
	for (i = 0; i < s.ncpu; i++)
		present += s.present[i];
	ck_assert_int_ge(present, 1);
	ck_assert_uint_gt(s.all.user + s.all.system + s.all.idle, 0);
	cpu_sample_free(&s);
}
END_TEST

START_TEST(test_read_real_interval)
{
	struct cpu_sample a, b;
	struct cpu_util u;
	char err[ERR_LEN] = "";
	volatile uint64_t spin = 0;
	uint64_t start;
	int i;

	ck_assert_msg(cpu_sample_read(&a, err) == 0, "read failed: %s", err);
	start = clock_ns();
	while (clock_ns() - start < 100 * 1000 * 1000ULL)
		spin++;
	ck_assert_msg(cpu_sample_read(&b, err) == 0, "read failed: %s", err);
	ck_assert_msg(cpu_util_compute(&a, &b, &u, err) == 0,
		      "compute failed: %s", err);

	ck_assert_int_ge(u.ncpu, 1);
	for (i = 0; i < u.nslots; i++) {
		if (i < a.ncpu && i < b.ncpu && a.present[i] && b.present[i]) {
			ck_assert_double_ge(u.per[i].util, 0.0);
			ck_assert_double_le(u.per[i].util, 100.0);
		} else {
			ck_assert_double_eq(u.per[i].util, -1.0);
		}
	}
	ck_assert_double_gt(u.all.util, 0.0);
	ck_assert_double_le(u.all.util, 100.0);
	ck_assert_double_le(u.peak, 100.0);
	ck_assert_double_ge(u.peak, u.all.util);
	cpu_util_free(&u);
	cpu_sample_free(&a);
	cpu_sample_free(&b);
}
END_TEST

static Suite *
cpu_suite(void)
{
	Suite *s = suite_create("cpu");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_modern);
	tcase_add_test(tc, test_parse_old_kernel);
	tcase_add_test(tc, test_parse_seven_fields);
	tcase_add_test(tc, test_parse_hotplug_gap);
	tcase_add_test(tc, test_parse_respects_len);
	tcase_add_test(tc, test_parse_extra_fields_ignored);
	tcase_add_loop_test(tc, test_parse_rejects, 0,
			    (int)(sizeof(bad_texts) / sizeof(bad_texts[0])));
	tcase_add_test(tc, test_parse_null_text);
	tcase_add_test(tc, test_free_zeroed);
	suite_add_tcase(s, tc);

	tc = tcase_create("util");
	tcase_add_test(tc, test_util_one_cpu_busy);
	tcase_add_test(tc, test_util_peak_not_first);
	tcase_add_test(tc, test_util_steal);
	tcase_add_test(tc, test_util_guest_not_counted_twice);
	tcase_add_test(tc, test_util_hotplug_excluded);
	tcase_add_test(tc, test_util_iowait_is_idle);
	tcase_add_test(tc, test_util_backwards_counter);
	tcase_add_test(tc, test_util_zero_interval);
	tcase_add_test(tc, test_util_aggregate_only);
	tcase_add_test(tc, test_util_no_common_cpu);
	suite_add_tcase(s, tc);

	tc = tcase_create("service_demand");
	tcase_add_test(tc, test_sd_tcp_stream);
	tcase_add_test(tc, test_sd_tcp_rr);
	tcase_add_test(tc, test_sd_scaling);
	tcase_add_test(tc, test_sd_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_add_test(tc, test_count);
	tcase_add_test(tc, test_read_real);
	tcase_add_test(tc, test_read_real_interval);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return harness_run(cpu_suite());
}
