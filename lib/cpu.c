#include "np/cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np/err.h"
#include "np/file.h"

/* No machine has this many CPUs; a larger N is a corrupt line, and taking it
 * at its word would make us calloc gigabytes. */
#define CPU_MAX_ID (1L << 20)

/* Fewer than four fields predates even Linux 2.4 and is not /proc/stat. */
#define CPU_MIN_FIELDS 4
#define CPU_NFIELDS 10

/* /proc/stat is a few hundred bytes per CPU; start big enough for most
 * machines so the common case is a single read. */
#define CPU_READ_CHUNK 16384

enum cpu_line_kind {
	CPU_LINE_OTHER,
	CPU_LINE_ALL,
	CPU_LINE_ONE,
};

static int
cpu_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int
cpu_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
cpu_parse_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	uint64_t n = 0;

	if (p == end || !cpu_is_digit(*p))
		return -1;
	while (p < end && cpu_is_digit(*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (n > (UINT64_MAX - d) / 10)
			return -1;
		n = n * 10 + d;
		p++;
	}
	/* "12a" must not read as 12 followed by a stray token. */
	if (p < end && !cpu_is_blank(*p))
		return -1;
	*pp = p;
	*v = n;
	return 0;
}

static int
cpu_line_parse(const char *p, const char *end, int lineno,
	       enum cpu_line_kind *kind, long *id, struct cpu_times *t,
	       char *err)
{
	uint64_t v[CPU_NFIELDS] = {0};
	uint64_t n;
	int nf = 0;

	*kind = CPU_LINE_OTHER;
	if (end - p < 3 || memcmp(p, "cpu", 3) != 0)
		return 0;
	p += 3;
	if (p == end || cpu_is_blank(*p)) {
		*kind = CPU_LINE_ALL;
		*id = -1;
	} else if (cpu_is_digit(*p)) {
		if (cpu_parse_u64(&p, end, &n) < 0 || n > CPU_MAX_ID)
			return err_set(
			    err, "/proc/stat line %d: bad CPU number", lineno);
		*kind = CPU_LINE_ONE;
		*id = (long)n;
	} else {
		return err_set(err, "/proc/stat line %d: unknown cpu line",
			       lineno);
	}

	for (;;) {
		while (p < end && cpu_is_blank(*p))
			p++;
		if (p == end)
			break;
		if (cpu_parse_u64(&p, end, &n) < 0)
			return err_set(err,
				       "/proc/stat line %d: field %d is not "
				       "a number",
				       lineno, nf + 1);
		/* Later kernels may append counters; the first ten keep
		 * their meaning, so extra ones are ignored, not refused. */
		if (nf < CPU_NFIELDS)
			v[nf] = n;
		nf++;
	}
	if (nf < CPU_MIN_FIELDS)
		return err_set(err,
			       "/proc/stat line %d: %d fields, need at least "
			       "%d",
			       lineno, nf, CPU_MIN_FIELDS);

	t->user = v[0];
	t->nice = v[1];
	t->system = v[2];
	t->idle = v[3];
	t->iowait = v[4];
	t->irq = v[5];
	t->softirq = v[6];
	t->steal = v[7];
	t->guest = v[8];
	t->guest_nice = v[9];
	return 0;
}

/*
 * Two passes over the text: the first validates every line and finds the
 * highest CPU number, so per[] is allocated once at its final size.
 */
int
cpu_sample_parse(const char *text, size_t len, struct cpu_sample *s, char *err)
{
	const char *end, *p, *eol, *next;
	enum cpu_line_kind kind;
	struct cpu_times t;
	long id, max_id = -1;
	int lineno, have_all = 0;

	memset(s, 0, sizeof(*s));
	if (text == NULL)
		return err_set(err, "/proc/stat: no text");
	end = text + len;

	for (p = text, lineno = 1; p < end; p = next, lineno++) {
		eol = memchr(p, '\n', (size_t)(end - p));
		next = eol != NULL ? eol + 1 : end;
		if (eol == NULL)
			eol = end;
		if (cpu_line_parse(p, eol, lineno, &kind, &id, &t, err) < 0)
			return -1;
		if (kind == CPU_LINE_ALL) {
			if (have_all)
				return err_set(err,
					       "/proc/stat line %d: second "
					       "aggregate cpu line",
					       lineno);
			s->all = t;
			have_all = 1;
		} else if (kind == CPU_LINE_ONE && id > max_id) {
			max_id = id;
		}
	}
	if (!have_all)
		return err_set(err, "/proc/stat: no aggregate \"cpu\" line");
	if (max_id < 0)
		return 0;

	s->ncpu = (int)(max_id + 1);
	s->per = calloc((size_t)s->ncpu, sizeof(*s->per));
	s->present = calloc((size_t)s->ncpu, sizeof(*s->present));
	if (s->per == NULL || s->present == NULL) {
		cpu_sample_free(s);
		return err_set(err, "/proc/stat: out of memory for %ld CPUs",
			       max_id + 1);
	}

	for (p = text, lineno = 1; p < end; p = next, lineno++) {
		eol = memchr(p, '\n', (size_t)(end - p));
		next = eol != NULL ? eol + 1 : end;
		if (eol == NULL)
			eol = end;
		if (cpu_line_parse(p, eol, lineno, &kind, &id, &t, err) < 0)
			goto fail;
		if (kind != CPU_LINE_ONE)
			continue;
		if (s->present[id]) {
			err_set(err, "/proc/stat line %d: cpu%ld seen twice",
				lineno, id);
			goto fail;
		}
		s->per[id] = t;
		s->present[id] = 1;
	}
	return 0;

fail:
	cpu_sample_free(s);
	return -1;
}

int
cpu_sample_read(struct cpu_sample *s, char *err)
{
	size_t cap = CPU_READ_CHUNK, len = 0;
	char *buf, *nbuf;
	ssize_t n;
	int fd, rc = -1;

	memset(s, 0, sizeof(*s));
	fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, "cannot open /proc/stat: %s",
			       strerror(errno));
	buf = malloc(cap);
	if (buf == NULL) {
		err_set(err, "/proc/stat: out of memory");
		goto close_fd;
	}
	/* procfs hands the file out in pieces on big machines, so one read
	 * (netperf's way) can silently miss the last CPUs. */
	for (;;) {
		if (len == cap) {
			nbuf = realloc(buf, cap * 2);
			if (nbuf == NULL) {
				err_set(err, "/proc/stat: out of memory");
				goto free_buf;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_set(err, "cannot read /proc/stat: %s",
				strerror(errno));
			goto free_buf;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = cpu_sample_parse(buf, len, s, err);

free_buf:
	free(buf);
close_fd:
	close(fd);
	return rc;
}

void
cpu_sample_free(struct cpu_sample *s)
{
	if (s == NULL)
		return;
	free(s->per);
	free(s->present);
	s->per = NULL;
	s->present = NULL;
	s->ncpu = 0;
}

/* A counter can read lower the second time (a CPU's idle time is
 * re-estimated across hotplug and NO_HZ); no time passed, not 2^64 ticks. */
static uint64_t
cpu_delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static void
cpu_times_delta(const struct cpu_times *a, const struct cpu_times *b,
		struct cpu_times *d)
{
	d->user = cpu_delta(a->user, b->user);
	d->nice = cpu_delta(a->nice, b->nice);
	d->system = cpu_delta(a->system, b->system);
	d->idle = cpu_delta(a->idle, b->idle);
	d->iowait = cpu_delta(a->iowait, b->iowait);
	d->irq = cpu_delta(a->irq, b->irq);
	d->softirq = cpu_delta(a->softirq, b->softirq);
	d->steal = cpu_delta(a->steal, b->steal);
	d->guest = cpu_delta(a->guest, b->guest);
	d->guest_nice = cpu_delta(a->guest_nice, b->guest_nice);
}

static void
cpu_times_add(struct cpu_times *sum, const struct cpu_times *d)
{
	sum->user += d->user;
	sum->nice += d->nice;
	sum->system += d->system;
	sum->idle += d->idle;
	sum->iowait += d->iowait;
	sum->irq += d->irq;
	sum->softirq += d->softirq;
	sum->steal += d->steal;
	sum->guest += d->guest;
	sum->guest_nice += d->guest_nice;
}

/* guest and guest_nice stay out of the total: the kernel already counted
 * those ticks in user and nice, and adding them again (as HP netperf does)
 * understates utilisation on hypervisor hosts. */
static void
cpu_load_from(const struct cpu_times *d, struct cpu_load *l)
{
	uint64_t busy, total;
	double t;

	memset(l, 0, sizeof(*l));
	busy = d->user + d->nice + d->system + d->irq + d->softirq;
	total = busy + d->idle + d->iowait + d->steal;
	if (total == 0)
		return;
	t = (double)total;
	l->util = 100.0 * (double)busy / t;
	l->user = 100.0 * (double)d->user / t;
	l->nice = 100.0 * (double)d->nice / t;
	l->system = 100.0 * (double)d->system / t;
	l->irq = 100.0 * (double)d->irq / t;
	l->softirq = 100.0 * (double)d->softirq / t;
	l->iowait = 100.0 * (double)d->iowait / t;
	l->idle = 100.0 * (double)d->idle / t;
	l->steal = 100.0 * (double)d->steal / t;
}

/*
 * The machine-wide figure is the mean of the per-CPU figures, as netperf's
 * is (CPU_UTIL = sum of util_i / n): every CPU saw the same wall time, but
 * a tickless idle CPU's counters lag, and weighting by ticks would let that
 * lag count as busy time elsewhere. It is taken over the CPUs online in
 * both samples, never from the aggregate line, which also moves with CPUs
 * that came or went.
 */
int
cpu_util_compute(const struct cpu_sample *a, const struct cpu_sample *b,
		 struct cpu_util *u, char *err)
{
	struct cpu_times d, sum;
	int i, nboth = 0;

	memset(u, 0, sizeof(*u));
	u->peak_id = -1;
	if (a == NULL || b == NULL)
		return err_set(err, "cpu utilisation: missing sample");
	if (a->ncpu < 0 || b->ncpu < 0)
		return err_set(err, "cpu utilisation: corrupt sample");

	u->nslots = a->ncpu > b->ncpu ? a->ncpu : b->ncpu;
	if (u->nslots > 0) {
		u->per = calloc((size_t)u->nslots, sizeof(*u->per));
		if (u->per == NULL) {
			u->nslots = 0;
			return err_set(err,
				       "cpu utilisation: out of memory for "
				       "%d CPUs",
				       a->ncpu > b->ncpu ? a->ncpu : b->ncpu);
		}
	}

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < u->nslots; i++) {
		if (i >= a->ncpu || i >= b->ncpu || !a->present[i] ||
		    !b->present[i]) {
			u->per[i].util = -1.0;
			continue;
		}
		cpu_times_delta(&a->per[i], &b->per[i], &d);
		cpu_load_from(&d, &u->per[i]);
		cpu_times_add(&sum, &d);
		nboth++;
		if (u->peak_id < 0 || u->per[i].util > u->peak) {
			u->peak = u->per[i].util;
			u->peak_id = i;
		}
	}

	if (nboth == 0) {
		/* Per-CPU lines that never overlap mean the samples do not
		 * describe the same CPUs; a zero would be a lie. */
		if (u->nslots > 0) {
			cpu_util_free(u);
			return err_set(err, "cpu utilisation: no CPU is online "
					    "in both samples");
		}
		cpu_times_delta(&a->all, &b->all, &sum);
	}
	u->ncpu = nboth;
	u->busy_ticks =
	    sum.user + sum.nice + sum.system + sum.irq + sum.softirq;
	u->total_ticks = u->busy_ticks + sum.idle + sum.iowait + sum.steal;
	{
		long hz = sysconf(_SC_CLK_TCK);

		u->hz = hz > 0 && hz < 1000000 ? (int)hz : 0;
	}
	if (nboth == 0) {
		cpu_load_from(&sum, &u->all);
		return 0;
	}
	for (i = 0; i < u->nslots; i++) {
		const struct cpu_load *l = &u->per[i];

		if (l->util < 0)
			continue;
		u->all.util += l->util / nboth;
		u->all.user += l->user / nboth;
		u->all.nice += l->nice / nboth;
		u->all.system += l->system / nboth;
		u->all.irq += l->irq / nboth;
		u->all.softirq += l->softirq / nboth;
		u->all.iowait += l->iowait / nboth;
		u->all.idle += l->idle / nboth;
		u->all.steal += l->steal / nboth;
	}
	return 0;
}

void
cpu_util_free(struct cpu_util *u)
{
	if (u == NULL)
		return;
	free(u->per);
	u->per = NULL;
	u->nslots = 0;
	u->ncpu = 0;
}

double
cpu_service_demand(double util_pct, int ncpu, double units_per_sec)
{
	double sd;

	if (!isfinite(util_pct) || !isfinite(units_per_sec) || util_pct < 0.0 ||
	    ncpu < 1 || units_per_sec <= 0.0)
		return -1.0;
	sd = util_pct * 10000.0 * (double)ncpu / units_per_sec;
	return isfinite(sd) ? sd : -1.0;
}

int
cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if (n > INT_MAX)
		return INT_MAX;
	return (int)n;
}

double
cpu_rate(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz < 1 ? 1.0 : (double)hz;
}

int64_t
cpu_run_delay_ns(void)
{
	char buf[96];
	unsigned long long run, wait;

	/* "on-CPU ns, waiting ns, slices". */
	if (file_read_small("/proc/thread-self/schedstat", buf, sizeof(buf)) <=
	    0)
		return -1;
	/* A kernel that keeps no count shows "0 0 0"; a running thread has
	 * always run. */
	if (sscanf(buf, "%llu %llu", &run, &wait) != 2 || run == 0 ||
	    wait > INT64_MAX)
		return -1;
	return (int64_t)wait;
}
