#include "np/mix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np/err.h"
#include "np/units.h"

/* The largest size a class may ask for: -r's own bound is the test's
 * (module rr_max) and the control protocol's; this only keeps the text
 * sane. */
#define MIX_SIZE_MAX (1LL << 30)

/* One class, "W%REQ[,RSP]", the k-th (from 1) of arg. */
static int
class_parse(const char *s, struct mix_class *c, int k, char *err)
{
	char a[64], b[64], why[ERR_LEN];
	const char *pct = strchr(s, '%');
	char *end;

	if (pct == NULL || pct == s)
		return err_set(err,
			       "-r: class %d \"%s\" of the mix has no weight "
			       "(W%%REQ[,RSP])",
			       k, s);
	c->weight = strtod(s, &end);
	if (end != pct || !isfinite(c->weight) || c->weight <= 0 ||
	    c->weight > 100)
		return err_set(err,
			       "-r: class %d \"%s\": the weight is a percent "
			       "over 0, at most 100",
			       k, s);
	if (pct[1] == '\0')
		return err_set(err, "-r: class %d \"%s\" needs a request size",
			       k, s);
	if (units_split_pair(pct + 1, a, b, sizeof(a), why) < 0 || a[0] == '\0')
		return err_set(err, "-r: class %d \"%s\" is not W%%REQ[,RSP]",
			       k, s);
	if (units_parse_size(a, MIX_SIZE_MAX, &c->req, why) < 0)
		return err_set(err, "-r: class %d: %s", k, why);
	c->rsp = c->req;
	if (b[0] != '\0' && units_parse_size(b, MIX_SIZE_MAX, &c->rsp, why) < 0)
		return err_set(err, "-r: class %d: %s", k, why);
	if (c->req < 1 || c->rsp < 1)
		return err_set(err,
			       "-r: class %d \"%s\": a mix's requests and "
			       "responses carry at least 1 byte",
			       k, s);
	return 0;
}

int
mix_parse(const char *arg, struct mix *m, char *err)
{
	struct mix out;
	char part[128];
	const char *s = arg, *slash;
	double sum = 0;
	size_t len;

	if (strchr(arg, '%') == NULL)
		return 0;
	memset(&out, 0, sizeof(out));
	for (;;) {
		slash = strchr(s, '/');
		len = slash != NULL ? (size_t)(slash - s) : strlen(s);
		if (out.n == MIX_MAX)
			return err_set(err, "-r: a mix has at most %d classes",
				       MIX_MAX);
		if (len == 0 || len >= sizeof(part))
			return err_set(
			    err, "-r: class %d of the mix \"%s\" is %s",
			    out.n + 1, arg, len == 0 ? "empty" : "too long");
		memcpy(part, s, len);
		part[len] = '\0';
		if (class_parse(part, &out.c[out.n], out.n + 1, err) < 0)
			return -1;
		sum += out.c[out.n].weight;
		out.n++;
		if (slash == NULL)
			break;
		s = slash + 1;
	}
	/* Percents as written: 33.3/33.3/33.4 is a mix, 90/5 is not. */
	if (fabs(sum - 100) > 1e-6)
		return err_set(err,
			       "-r: the mix's weights add up to %g%%, not "
			       "100%%",
			       sum);
	out.seed = m->seed;
	*m = out;
	return 1;
}

void
mix_max(const struct mix *m, int64_t *req, int64_t *rsp)
{
	*req = *rsp = 0;
	for (int i = 0; i < m->n; i++) {
		if (m->c[i].req > *req)
			*req = m->c[i].req;
		if (m->c[i].rsp > *rsp)
			*rsp = m->c[i].rsp;
	}
}

/* splitmix64: spreads one seed into well separated starting states. */
static uint64_t
splitmix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

uint64_t
mix_stream_seed(const struct mix *m, int i)
{
	/* xorshift's state must never be 0. */
	return splitmix(m->seed + (uint64_t)i * 0xD1B54A32D192ED03ULL) | 1;
}

int
mix_pick(const struct mix *m, uint64_t *s)
{
	double u, at = 0;
	int i;

	/* xorshift64*, as the open loop's arrivals. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	u = (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0 *
	    100;
	for (i = 0; i < m->n - 1; i++) {
		at += m->c[i].weight;
		if (u < at)
			return i;
	}
	return m->n - 1;
}

int
mix_class_of(const struct mix *m, const char *buf, size_t n, size_t off,
	     int exact)
{
	int c;

	if (n <= off)
		return -1;
	c = (unsigned char)buf[off];
	if (c >= m->n)
		return -1;
	if (exact && n != (size_t)m->c[c].req)
		return -1;
	return c;
}

int
mix_request(const struct mix *m, struct mix_acct *a, uint64_t *state, char *buf,
	    size_t off)
{
	int c = mix_pick(m, state);

	buf[off] = (char)c;
	a[c].requests++;
	return c;
}

void
mix_answer(struct mix_acct *a, struct stats_hist *h, int c, uint64_t bytes,
	   uint64_t ns)
{
	a[c].trans++;
	a[c].bytes_recv += bytes;
	if (h != NULL)
		stats_hist_add(&h[c], ns);
}

void
mix_acct_init(struct mix_acct *a, int n)
{
	memset(a, 0, (size_t)n * sizeof(*a));
}

void
mix_acct_merge(struct mix_acct *dst, const struct mix_acct *src, int n)
{
	for (int i = 0; i < n; i++) {
		dst[i].requests += src[i].requests;
		dst[i].trans += src[i].trans;
		dst[i].bytes_sent += src[i].bytes_sent;
		dst[i].bytes_recv += src[i].bytes_recv;
		dst[i].timeouts += src[i].timeouts;
		dst[i].late += src[i].late;
	}
}

struct stats_hist *
mix_hist_new(int n)
{
	struct stats_hist *h = malloc((size_t)n * sizeof(*h));

	for (int i = 0; h != NULL && i < n; i++)
		stats_hist_init(&h[i]);
	return h;
}

void
mix_hist_merge(struct stats_hist *dst, const struct stats_hist *src, int n)
{
	for (int i = 0; i < n; i++)
		stats_hist_merge(&dst[i], &src[i]);
}
