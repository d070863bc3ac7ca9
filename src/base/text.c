/* text.c — escaping foreign text for plain text, DOT and HTML-like labels,
 * and visible cuts (text.h); the printf family is text_format.c. */
#include "base/text.h"
#include <stdint.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include "base/arena.h"

/* ---- UTF-8 ------------------------------------------------------------------ */

size_t text_utf8_seq(const unsigned char *s, size_t n)
{
	if (!n)
		return 0;
	unsigned char c = s[0];
	size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	if (!len || len > n)
		return 0;
	uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1fu : len == 3 ? c & 0x0fu : c & 0x07u;
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3fu);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

bool text_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = text_utf8_seq(p + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

/* The code point of a valid sequence of len bytes. */
static uint32_t code_point(const unsigned char *s, size_t len)
{
	uint32_t cp = len == 1 ? s[0] : len == 2 ? s[0] & 0x1fu : len == 3 ? s[0] & 0x0fu : s[0] & 0x07u;
	for (size_t k = 1; k < len; k++)
		cp = cp << 6 | (s[k] & 0x3fu);
	return cp;
}

/* Code points that change how a terminal shows what follows: C1 controls,
 * the bidirectional embeddings, overrides and isolates, line and paragraph
 * separators. */
bool text_hostile_code_point(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

/* ---- plain text --------------------------------------------------------------- */

void text_escape_n(strbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t run = 0;   /* bytes copied as they are, flushed before an escape */
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len = c >= 0x20 && c < 0x7f ? 1 : text_utf8_seq(p + i, n - i);
		const char *esc = NULL;
		char hex[16];
		if (len == 1 && c < 0x20) {
			esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == 0x1b ? "\\e" : NULL;
			if (!esc)
				snprintf(hex, sizeof hex, "\\x%02x", c), esc = hex;
		} else if (len == 1 && c == 0x7f) {
			esc = "\\x7f";
		} else if (len == 0) {
			snprintf(hex, sizeof hex, "\\x%02x", c), esc = hex;
			len = 1;
		} else if (len > 1 && text_hostile_code_point(code_point(p + i, len))) {
			snprintf(hex, sizeof hex, "\\u%04x", (unsigned)code_point(p + i, len)), esc = hex;
		}
		if (esc) {
			if (run)
				sb_add(b, (const char *)p + i - run, run);
			run = 0;
			sb_puts(b, esc);
		} else {
			run += len;
		}
		i += len;
	}
	if (run)
		sb_add(b, (const char *)p + n - run, run);
	else
		sb_add(b, "", 0);
}

void text_escape(strbuf *b, const char *s)
{
	if (s)
		text_escape_n(b, s, strlen(s));
}

bool text_is_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			i++;
			continue;
		}
		size_t len = text_utf8_seq(p + i, n - i);
		if (len <= 1 || text_hostile_code_point(code_point(p + i, len)))
			return false;
		i += len;
	}
	return true;
}

/* ---- cuts ----------------------------------------------------------------------- */

#define ELLIPSIS "\xe2\x80\xa6"   /* … */

char *text_cut(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);
	if (n < size) {
		memcpy(dst, src, n + 1);
		return dst;
	}
	if (size < sizeof ELLIPSIS) {   /* no room for the mark: the head that fits */
		size_t head = size ? size - 1 : 0;
		while (head > 0 && ((unsigned char)src[head] & 0xc0) == 0x80)
			head--;
		if (size) {
			memcpy(dst, src, head);
			dst[head] = '\0';
		}
		return dst;
	}
	/* head + "…" + tail in size - 1 bytes: a third of the room for the tail */
	size_t room = size - 1 - (sizeof ELLIPSIS - 1);
	size_t tail_len = room / 3, head = room - tail_len, tail = n - tail_len;
	while (head > 0 && ((unsigned char)src[head] & 0xc0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)src[tail] & 0xc0) == 0x80)
		tail++;
	memcpy(dst, src, head);
	memcpy(dst + head, ELLIPSIS, sizeof ELLIPSIS - 1);
	memcpy(dst + head + sizeof ELLIPSIS - 1, src + tail, n - tail + 1);
	return dst;
}

char *text_mark_cut(char *dst, size_t size, size_t n)
{
	if (n < size || size < sizeof ELLIPSIS)
		return dst;
	size_t at = size - sizeof ELLIPSIS;
	while (at > 0 && ((unsigned char)dst[at] & 0xc0) == 0x80)
		at--;
	memcpy(dst + at, ELLIPSIS, sizeof ELLIPSIS);
	return dst;
}

char *text_digits(unsigned long long m, char d[24])
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	                            "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	                            "8081828384858687888990919293949596979899";
	char *p = d + 23;
	*p = '\0';
	for (; m >= 100; m /= 100) {   /* two digits a division */
		p -= 2;
		memcpy(p, pairs + m % 100 * 2, 2);
	}
	if (m >= 10) {
		p -= 2;
		memcpy(p, pairs + m * 2, 2);
	} else {
		*--p = (char)('0' + m);
	}
	return p;
}

size_t text_append(char *dst, size_t size, size_t at, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (at < size) {
		size_t room = size - at - 1;
		size_t ka = na < room ? na : room, kb = nb < room - ka ? nb : room - ka;
		memcpy(dst + at, a, ka);
		memcpy(dst + at + ka, b, kb);
		dst[at + ka + kb] = '\0';
	}
	return at + na + nb;
}

size_t text_put_at(char *dst, size_t size, size_t at, const char *s)
{
	if (at >= size)
		return at;
	size_t n = strlen(s), room = size - at - 1, k = n < room ? n : room;
	memcpy(dst + at, s, k);
	dst[at + k] = '\0';
	text_mark_cut(dst, size, at + n);
	return at + n < size ? at + n : size;
}

size_t text_put_int_at(char *dst, size_t size, size_t at, long long v)
{
	char d[24];
	return text_put_at(dst, size, at, text_decimal(v, d));
}

/* ---- DOT and HTML-like labels --------------------------------------------------- */

void text_dot_escape(strbuf *b, const char *s)
{
	strbuf e = { 0 };
	text_escape(&e, s);
	sb_add(b, "", 0);
	for (size_t i = 0; i < e.n; i++) {
		if (e.s[i] == '\\')
			sb_puts(b, "\\\\");
		else
			sb_add(b, e.s + i, 1);
	}
	sb_release(&e);
}

void text_html_escape(strbuf *b, const char *s)
{
	strbuf e = { 0 };
	text_escape(&e, s);
	sb_add(b, "", 0);
	for (size_t i = 0; i < e.n; i++) {
		switch (e.s[i]) {
		case '&': sb_puts(b, "&amp;"); break;
		case '<': sb_puts(b, "&lt;"); break;
		case '>': sb_puts(b, "&gt;"); break;
		case '"': sb_puts(b, "&quot;"); break;
		default: sb_add(b, e.s + i, 1);
		}
	}
	sb_release(&e);
}

void text_join(char *buf, size_t size, int n, ...)
{
	const char *p[TEXT_JOIN_MAX];
	size_t len[TEXT_JOIN_MAX], total = 0;
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n && i < TEXT_JOIN_MAX; i++) {
		p[i] = va_arg(ap, const char *);
		if (!p[i])
			p[i] = "(null)";
		len[i] = strlen(p[i]);
		total += len[i];
	}
	va_end(ap);
	char *to = buf, *full = NULL;
	if (total >= size)
		to = full = xmalloc(total + 1);   /* joined whole, then cut as text_cutf cuts */
	size_t at = 0;
	for (int i = 0; i < n && i < TEXT_JOIN_MAX; i++) {
		memcpy(to + at, p[i], len[i]);
		at += len[i];
	}
	to[at] = '\0';
	if (full) {
		text_cut(buf, size, full);
		free(full);
	}
}

size_t text_columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}
