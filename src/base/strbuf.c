/* strbuf.c — see strbuf.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/strbuf.h"
#include "base/text.h"

void sb_add(strbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

void sb_puts(strbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_vprintf(strbuf *b, const char *fmt, va_list ap)
{
	char small[256];
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(small, sizeof small, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		sb_add(b, small, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	sb_add(b, big, (size_t)n);
	free(big);
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

const char *sb_str(strbuf *b)
{
	if (!b->s)
		sb_add(b, "", 0);
	return b->s;
}

void sb_clear(strbuf *b)
{
	b->n = 0;
	if (b->s)
		b->s[0] = '\0';
}

char *sb_take(strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->n = b->cap = 0;
	return s;
}

void sb_release(strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}

