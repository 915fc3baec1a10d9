#include "np/err.h"

#include <stdarg.h>
#include <stdio.h>

int
err_set(char *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, ERR_LEN, fmt, ap);
	va_end(ap);
	return -1;
}
