/* text.c — escaping foreign text for plain text, DOT and HTML-like labels,
 * printf with escaped %s arguments, and visible cuts (text.h). */
#include "base/text.h"
#include <stdint.h>
#include <stdlib.h>
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

char *text_vcutf(char *dst, size_t size, const char *fmt, va_list ap)
{
	strbuf b = { 0 };
	sb_vprintf(&b, fmt, ap);
	text_cut(dst, size, sb_str(&b));
	sb_release(&b);
	return dst;
}

char *text_cutf(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vcutf(dst, size, fmt, ap);
	va_end(ap);
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

char *txt_cutf(char *dst, size_t size, const char *fmt, ...)
{
	strbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	txt_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	text_cut(dst, size, sb_str(&b));
	sb_release(&b);
	return dst;
}

/* ---- printf with escaped strings ----------------------------------------------- */

/* One conversion of fmt at p (just past '%'), its argument taken from ap,
 * appended to b; '*' widths and precisions are read and written back as
 * numbers. Returns the position after the conversion. */
static const char *one_conversion(strbuf *b, const char *p, va_list *ap)
{
	char flags[8] = "";
	size_t nf = 0;
	while (*p && strchr("-+ #0'", *p)) {
		if (nf < sizeof flags - 1)
			flags[nf++] = *p;
		p++;
	}
	bool left = strchr(flags, '-') != NULL;
	long width = -1, prec = -1;
	if (*p == '*') {
		int w = va_arg(*ap, int);
		left = left || w < 0;
		width = w < 0 ? -(long)w : w;
		p++;
	} else if (*p >= '0' && *p <= '9') {
		width = strtol(p, (char **)&p, 10);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			int q = va_arg(*ap, int);
			prec = q < 0 ? -1 : q;
			p++;
		} else {
			prec = strtol(p, (char **)&p, 10);
		}
	}
	char len[3] = "";
	size_t ln = 0;
	while (*p && strchr("hljztL", *p) && ln < 2)
		len[ln++] = *p++;
	char conv = *p ? *p++ : '\0';
	if (width > 4096)
		width = 4096;
	if (prec > 4096 && conv != 's')
		prec = 4096;
	if (conv == '%') {
		sb_add(b, "%", 1);
		return p;
	}
	if (conv == 's') {
		const char *s = va_arg(*ap, const char *);
		strbuf e = { 0 };
		text_escape(&e, s ? s : "(null)");
		size_t shown = e.n;
		if (prec >= 0 && (size_t)prec < shown) {
			shown = (size_t)prec;
			while (shown > 0 && ((unsigned char)e.s[shown] & 0xc0) == 0x80)
				shown--;
		}
		size_t pad = width > 0 && (size_t)width > shown ? (size_t)width - shown : 0;
		for (size_t i = 0; !left && i < pad; i++)
			sb_add(b, " ", 1);
		sb_add(b, e.s, shown);
		for (size_t i = 0; left && i < pad; i++)
			sb_add(b, " ", 1);
		sb_release(&e);
		return p;
	}
	char spec[48];
	int k = snprintf(spec, sizeof spec, "%%%s%s", flags, left && !strchr(flags, '-') ? "-" : "");
	if (width >= 0)
		k += snprintf(spec + k, sizeof spec - (size_t)k, "%ld", width);
	if (prec >= 0)
		k += snprintf(spec + k, sizeof spec - (size_t)k, ".%ld", prec);
	snprintf(spec + k, sizeof spec - (size_t)k, "%s%c", len, conv);
	char tmp[4200];
	int n = -1;
#define EMIT(T) n = snprintf(tmp, sizeof tmp, spec, va_arg(*ap, T))
	bool ll = !strcmp(len, "ll"), l = !strcmp(len, "l"), j = !strcmp(len, "j"), zt = len[0] == 'z' || len[0] == 't';
	switch (conv) {
	case 'd': case 'i':
		if (ll) EMIT(long long); else if (l) EMIT(long); else if (j) EMIT(intmax_t);
		else if (zt) EMIT(ptrdiff_t); else EMIT(int);
		break;
	case 'u': case 'o': case 'x': case 'X':
		if (ll) EMIT(unsigned long long); else if (l) EMIT(unsigned long); else if (j) EMIT(uintmax_t);
		else if (zt) EMIT(size_t); else EMIT(unsigned);
		break;
	case 'c': EMIT(int); break;
	case 'p': EMIT(void *); break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		if (!strcmp(len, "L")) EMIT(long double); else EMIT(double);
		break;
	default:
		return p;   /* %n and unknown conversions print nothing */
	}
#undef EMIT
	if (conv == 'c' && n == 1)
		text_escape_n(b, tmp, 1);   /* a %c of a control byte is foreign too */
	else if (n > 0)
		sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
	return p;
}

void txt_sb_vprintf(strbuf *b, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	const char *p = fmt;
	sb_add(b, "", 0);
	while (*p) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			sb_puts(b, p);
			break;
		}
		sb_add(b, p, (size_t)(pct - p));
		p = one_conversion(b, pct + 1, &copy);
	}
	va_end(copy);
}

void txt_sb_printf(strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	txt_sb_vprintf(b, fmt, ap);
	va_end(ap);
}

int txt_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	strbuf b = { 0 };
	txt_sb_vprintf(&b, fmt, ap);
	size_t n = fwrite(b.s, 1, b.n, f);
	sb_release(&b);
	return (int)n;
}

int txt_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = txt_vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

void txt_fputs(const char *s, FILE *f)
{
	strbuf b = { 0 };
	text_escape(&b, s);
	fwrite(b.s, 1, b.n, f);
	sb_release(&b);
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
