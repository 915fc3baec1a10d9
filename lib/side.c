#include "np/side.h"

#include <string.h>

#include "np/module.h"

const struct side_field side_fields[SIDE_NFIELDS] = {
#define SIDE_ROW(n, kind_, wire_, where_, min_, max_, json_, jform_, merge_,   \
		 lsel, rsel)                                                   \
	[SIDE_##n] = {                                                         \
	    .name = #n,                                                        \
	    .kind = kind_,                                                     \
	    .off = offsetof(struct side_result, n),                            \
	    .wire = wire_,                                                     \
	    .where = where_,                                                   \
	    .min = min_,                                                       \
	    .max = max_,                                                       \
	    .json = json_,                                                     \
	    .jform = jform_,                                                   \
	    .merge = merge_,                                                   \
	    .sel = {lsel, rsel},                                               \
	},
    SIDE_FIELDS(SIDE_ROW)
#undef SIDE_ROW
};

/* The field's storage in r. */
static void *
field(const struct side_result *r, const struct side_field *f)
{
	return (char *)r + f->off;
}

uint64_t
side_get_u64(const struct side_result *r, const struct side_field *f)
{
	return f->kind == SIDE_U32 ? *(uint32_t *)field(r, f)
				   : *(uint64_t *)field(r, f);
}

int64_t
side_get_i64(const struct side_result *r, const struct side_field *f)
{
	switch (f->kind) {
	case SIDE_U64:
	case SIDE_U32:
		return (int64_t)side_get_u64(r, f);
	case SIDE_I64:
		return *(int64_t *)field(r, f);
	case SIDE_I32:
		return *(int *)field(r, f);
	default:
		return 0;
	}
}

double
side_get_dbl(const struct side_result *r, const struct side_field *f)
{
	switch (f->kind) {
	case SIDE_DBL:
		return *(double *)field(r, f);
	case SIDE_U64:
	case SIDE_U32:
		return (double)side_get_u64(r, f);
	case SIDE_STR:
		return 0;
	default:
		return (double)side_get_i64(r, f);
	}
}

const char *
side_get_str(const struct side_result *r, const struct side_field *f)
{
	return f->kind == SIDE_STR ? (const char *)field(r, f) : "";
}

char *
side_str_buf(struct side_result *r, const struct side_field *f)
{
	return field(r, f);
}

void
side_set_int(struct side_result *r, const struct side_field *f, int64_t v)
{
	switch (f->kind) {
	case SIDE_U64:
		*(uint64_t *)field(r, f) = (uint64_t)v;
		break;
	case SIDE_U32:
		*(uint32_t *)field(r, f) = (uint32_t)v;
		break;
	case SIDE_I64:
		*(int64_t *)field(r, f) = v;
		break;
	case SIDE_I32:
		*(int *)field(r, f) = (int)v;
		break;
	case SIDE_DBL:
		*(double *)field(r, f) = (double)v;
		break;
	case SIDE_STR:
		break;
	}
}

void
side_set_num(struct side_result *r, const struct side_field *f, double v)
{
	if (f->kind == SIDE_DBL)
		*(double *)field(r, f) = v;
	else
		side_set_int(r, f, (int64_t)v);
}

/* The bytes field f takes. */
static size_t
field_size(const struct side_field *f)
{
	switch (f->kind) {
	case SIDE_U32:
		return sizeof(uint32_t);
	case SIDE_I32:
		return sizeof(int);
	case SIDE_STR:
		return SIDE_STR_LEN;
	default:
		return 8;
	}
}

/* Adds r's field f into sum's, modulo the field's width as the sum of
 * its own type wraps (a uint32_t at 2^32). */
static void
add(struct side_result *sum, const struct side_result *r,
    const struct side_field *f)
{
	if (f->kind == SIDE_DBL)
		side_set_num(sum, f, side_get_dbl(sum, f) + side_get_dbl(r, f));
	else if (f->kind != SIDE_STR)
		side_set_int(sum, f,
			     (int64_t)((uint64_t)side_get_i64(sum, f) +
				       (uint64_t)side_get_i64(r, f)));
}

/* r's field f is larger than sum's (SIDE_STR never is). */
static int
larger(const struct side_result *r, const struct side_result *sum,
       const struct side_field *f)
{
	switch (f->kind) {
	case SIDE_DBL:
		return side_get_dbl(r, f) > side_get_dbl(sum, f);
	case SIDE_U64:
	case SIDE_U32:
		return side_get_u64(r, f) > side_get_u64(sum, f);
	case SIDE_STR:
		return 0;
	default:
		return side_get_i64(r, f) > side_get_i64(sum, f);
	}
}

void
side_merge(struct side_result *sum, const struct side_result *r, int first)
{
	const struct side_field *f;
	int i;

	for (i = 0; i < SIDE_NFIELDS; i++) {
		f = &side_fields[i];
		switch (f->merge) {
		case SIDE_SUM:
			add(sum, r, f);
			break;
		case SIDE_MAX:
			if (larger(r, sum, f))
				memcpy(field(sum, f), field(r, f),
				       field_size(f));
			break;
		case SIDE_EARLIEST:
			/* 0 is unknown: any known time is earlier. */
			if (side_get_i64(sum, f) == 0 ||
			    (side_get_i64(r, f) != 0 && larger(sum, r, f)))
				memcpy(field(sum, f), field(r, f),
				       field_size(f));
			break;
		case SIDE_FIRST:
			if (first)
				memcpy(field(sum, f), field(r, f),
				       field_size(f));
			break;
		}
	}
}

const struct side_field *
side_by_selector(const char *name, int *loc)
{
	int i, j;

	for (i = 0; i < SIDE_NFIELDS; i++) {
		for (j = 0; j < 2; j++) {
			const char *s = side_fields[i].sel[j];

			if (s != NULL && strcmp(s, name) == 0) {
				*loc = j == 0;
				return &side_fields[i];
			}
		}
	}
	return NULL;
}
