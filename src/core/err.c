/*
 * A message longer than struct pe_error holds is shortened where it is
 * longest, not at its end: the end says what went wrong ("...: No such file
 * or directory"), while the long part is almost always one value, a path
 * or a quoted string.  So the longest run of non-blank bytes loses its
 * middle to "...", then the next longest, until the message fits; only a
 * message of many short words is cut at its end.  Cuts fall between UTF-8
 * sequences, never inside one.
 */
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD_MIN 24	/* a word is never cut shorter: 10 bytes, "...", 11 */

static int continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

void pe_utf8_trim(char *s)
{
	size_t n = strlen(s), k = n, need;
	unsigned char lead;

	while (k > 0 && n - k < 3 && continuation((unsigned char)s[k - 1]))
		k--;
	if (k == 0)
		return;
	lead = (unsigned char)s[k - 1];
	if (lead < 0xc0)
		return;
	need = lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
	if (n - (k - 1) < need)
		s[k - 1] = '\0';
}

/* The longest run of non-blank bytes in s[0, n): its start, its length. */
static size_t longest_word(const char *s, size_t n, size_t *start)
{
	size_t i = 0, j, best = 0;

	while (i < n) {
		while (i < n && s[i] == ' ')
			i++;
		for (j = i; j < n && s[j] != ' '; j++)
			;
		if (j - i > best) {
			best = j - i;
			*start = i;
		}
		i = j;
	}
	return best;
}

/* s holds n bytes (and room for them); make it fit in max bytes, as the
 * top of this file says.  Returns the new length. */
static size_t fit(char *s, size_t n, size_t max)
{
	size_t a = 0, len, keep, head, tail, cut;

	while (n > max) {
		len = longest_word(s, n, &a);
		if (len <= WORD_MIN)
			break;
		keep = len - (n - max);
		if (keep < WORD_MIN || keep > len)
			keep = WORD_MIN;
		/* a head and a tail around "...", each ending and starting on a
		 * sequence boundary */
		head = (keep - 3) / 2;
		tail = keep - 3 - head;
		while (head > 0 && continuation((unsigned char)s[a + head]))
			head--;
		cut = a + len - tail;
		while (cut < a + len && continuation((unsigned char)s[cut]))
			cut++;
		memcpy(s + a + head, "...", 3);
		memmove(s + a + head + 3, s + cut, n - cut);
		n -= cut - (a + head + 3);
	}
	if (n > max) {
		n = max - 3;
		while (n > 0 && continuation((unsigned char)s[n]))
			n--;
		memcpy(s + n, "...", 3);
		n += 3;
	}
	return n;
}

int pe_fail(struct pe_error *err, enum pe_err code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pe_vfail(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int pe_vfail(struct pe_error *err, enum pe_err code, const char *fmt, va_list ap)
{
	char small[4 * sizeof err->msg], *s = small, *big = NULL;
	va_list aq;
	size_t n;
	int w;

	if (!err)
		return -1;
	err->code = code;
	va_copy(aq, ap);
	w = vsnprintf(small, sizeof small, fmt, ap);
	if (w < 0) {
		va_end(aq);
		snprintf(err->msg, sizeof err->msg, "(a message that could not be written)");
		return -1;
	}
	n = (size_t)w;
	if (n >= sizeof small) {
		big = malloc(n + 1);
		if (big) {
			vsnprintf(big, n + 1, fmt, aq);
			s = big;
		} else {
			n = sizeof small - 1;	/* what small holds: its end is lost */
		}
	}
	va_end(aq);
	n = fit(s, n, sizeof err->msg - 1);
	memcpy(err->msg, s, n);
	err->msg[n] = '\0';
	free(big);
	return -1;
}
