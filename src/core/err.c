#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>

int pe_fail(struct pe_error *err, enum pe_err code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}
