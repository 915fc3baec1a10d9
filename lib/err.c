#include "np/err.h"

#include <stdarg.h>
#include <stdio.h>

void
err_put(char *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err, ERR_LEN, fmt, ap);
	va_end(ap);
}
