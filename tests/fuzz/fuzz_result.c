/*
 * libFuzzer target for the result-file readers: the input is a file
 * --merge or --compare was given (from hosts the reader does not
 * control). It goes through compare's reader and comparison, and through
 * merge's documents one by one as netperf --merge takes them. Whatever
 * is printed must hold no terminal control byte, and whatever is written
 * as JSON must be written.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np/compare.h"
#include "np/err.h"
#include "np/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c)                                                         \
	do {                                                                   \
		if (!(c))                                                      \
			__builtin_trap();                                      \
	} while (0)

/* Printed text holds no control byte but newline (UTF-8 of our own
 * "±" and "∞" is above 0x7f). */
static void
assert_printable(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		FUZZ_ASSERT(c == '\n' || (c >= 0x20 && c != 0x7f));
	}
}

/* Runs a printer into memory and checks its text. */
#define CHECK_PRINT(call)                                                      \
	do {                                                                   \
		char *text_ = NULL;                                            \
		size_t len_ = 0;                                               \
		FILE *out = open_memstream(&text_, &len_);                     \
		if (out != NULL) {                                             \
			call;                                                  \
			fclose(out);                                           \
			assert_printable(text_, len_);                         \
		}                                                              \
		free(text_);                                                   \
	} while (0)

static void
fuzz_compare(const char *text, size_t len)
{
	struct compare_side s;
	struct compare_report r;
	char err[ERR_LEN];

	if (compare_side_begin(&s, "OLD") < 0)
		return;
	if (compare_side_add_text(&s, text, len, "fuzz.json", err) > 0 &&
	    compare_run(&s, &s, 0.05, 1, &r, err) == 0) {
		json_t *doc = compare_json(&r);
		char *dump = doc != NULL ? json_dumps(doc, 0) : NULL;

		FUZZ_ASSERT(dump != NULL);
		free(dump);
		json_decref(doc);
		CHECK_PRINT(compare_print(out, &r));
		/* The same samples on both sides: nothing has changed. */
		for (int i = 0; i < r.nrows; i++)
			FUZZ_ASSERT(!r.row[i].significant);
		compare_report_free(&r);
	}
	compare_side_free(&s);
}

static void
fuzz_merge(const char *text, size_t len)
{
	struct merge m;
	struct merge_figures f;
	char err[ERR_LEN];
	size_t off = 0;
	int n = 0;

	merge_init(&m);
	while (off < len && n < 64) {
		json_error_t je;
		json_t *doc;

		while (off < len && strchr(" \t\r\n", text[off]) != NULL &&
		       text[off] != '\0')
			off++;
		if (off >= len)
			break;
		doc = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK,
				 &je);
		if (doc == NULL)
			break;
		off += je.position;
		n++;
		if (merge_add_doc(&m, doc, "fuzz.json", err) < 0)
			merge_add_failure(&m, "fuzz.json", err);
		json_decref(doc);
	}
	if (merge_figures(&m, &f, err) == 0) {
		json_t *doc = merge_json(&m, &f, 0.01);
		char *dump = doc != NULL ? json_dumps(doc, 0) : NULL;

		FUZZ_ASSERT(dump != NULL);
		free(dump);
		json_decref(doc);
		CHECK_PRINT(merge_print_table(out, &m, &f, 1, 2, 0.01));
		CHECK_PRINT(merge_print_list(out, &m, &f, 'k', "", 1));
		CHECK_PRINT(merge_print_list(out, &m, &f, 'O', "", 1));
	}
	merge_free(&m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_compare((const char *)data, size);
	fuzz_merge((const char *)data, size);
	return 0;
}
