/* Core's parameter errors in the user's words (see param.h). */
#include "cli/param.h"

#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 63

void pe_param_explain(struct pe_error *err, const struct pe_args *a,
		      const struct pe_param_file *file)
{
	char out[sizeof err->msg], name[NAME_MAX_LEN + 1], dashed[NAME_MAX_LEN + 1];
	const char *p = err->msg, *end, *opt, *key;
	size_t n = 0, len, k;
	int given, options = 0, keys = 0;

	if (!err || err->code != PE_ERR_PARAM)
		return;
	out[0] = '\0';
	while (*p && n + 1 < sizeof out) {
		end = *p == '{' ? strchr(p, '}') : NULL;
		len = end ? (size_t)(end - p - 1) : 0;
		if (!end || len == 0 || len > NAME_MAX_LEN || strcspn(p + 1, " {") < len) {
			out[n++] = *p++;
			continue;
		}
		memcpy(name, p + 1, len);
		name[len] = '\0';
		p = end + 1;
		opt = a ? pe_args_option_of(a, name, &given) : NULL;
		key = file && file->path && file->key && !(opt && given) ? file->key(file->ctx, name)
									  : NULL;
		if (key) {
			keys++;
			n += (size_t)snprintf(out + n, sizeof out - n, "%s", key);
		} else {
			options += opt && given;
			if (!opt) {	/* no option sets it: the parameter's word, dashed */
				for (k = 0; k <= len; k++)
					dashed[k] = name[k] == '_' ? '-' : name[k];
				opt = dashed;
			}
			n += (size_t)snprintf(out + n, sizeof out - n, "--%s", opt);
		}
		if (n >= sizeof out)
			n = sizeof out - 1;
	}
	out[n] = '\0';
	if (keys && !options) {
		err->code = PE_ERR_DATA;
		/* "FILE: keys", cut at the message's size (by hand: GCC's
		 * -Wformat-truncation flags "%s: %s" into it at -O1) */
		size_t at = strnlen(file->path, sizeof err->msg - 3), m;

		memcpy(err->msg, file->path, at);
		memcpy(err->msg + at, ": ", 2);
		at += 2;
		m = strnlen(out, sizeof err->msg - 1 - at);
		memcpy(err->msg + at, out, m);
		err->msg[at + m] = '\0';
	} else {
		err->code = PE_ERR_USAGE;
		memcpy(err->msg, out, sizeof out);
	}
}
