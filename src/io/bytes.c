/* Untrusted bytes in messages (io/bytes.h). */
#include "io/bytes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

size_t pe_utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	c = s[0] & (0x7fu >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3fu);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

void pe_quote(char *buf, size_t size, const unsigned char *s, size_t n, size_t max, int utf8)
{
	size_t at = 0, i = 0, k;

	if (max + 4 > size)
		max = size > 4 ? size - 4 : 0;
	while (i < n) {
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			if (at + 1 > max)
				break;
			buf[at++] = (char)s[i++];
		} else if (utf8 && (k = pe_utf8_seq(s + i, n - i)) > 0) {
			if (at + k > max)
				break;
			memcpy(buf + at, s + i, k);
			at += k;
			i += k;
		} else {
			if (at + 4 > max)
				break;
			snprintf(buf + at, 5, "\\x%02x", s[i++]);
			at += 4;
		}
	}
	if (i < n) {
		memcpy(buf + at, "...", 3);
		at += 3;
	}
	buf[at] = '\0';
}

void pe_json_text(const struct cJSON *v, char *buf, size_t size)
{
	char *s = cJSON_PrintUnformatted(v);

	if (!s) {
		snprintf(buf, size, "?");
		return;
	}
	pe_quote(buf, size, (const unsigned char *)s, strlen(s), 40, 1);
	free(s);
}
