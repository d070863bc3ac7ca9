/* text_format.c — the printf family of text.h: txt_* (every %s argument
 * escaped with text_escape) and the cutting formatters (text_cutf,
 * text_vcutf, txt_cutf) and the appending one (text_appendf).
 *
 * The writers of a big run print millions of names, so the common
 * conversions are done here without the C library's printf: %s (with
 * width, precision and '-'), %d %i %u %c and %% (with width, '-' and '0',
 * every length modifier). Foreign text is copied as it is when no byte of
 * it needs an escape, checked sixteen bytes at a time; only text that does
 * goes through text_escape_n. Anything else (floats, hex, '+', an integer
 * precision) is handed to snprintf. Output goes into a buffer that is
 * flushed into the FILE, grown in the strbuf or, for a fixed buffer,
 * counts what did not fit. */
#include <math.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/outbuf.h"
#include "base/text.h"

/* ---- where the text goes -------------------------------------------------------- */

typedef enum { OUT_FILE, OUT_STRBUF, OUT_FIXED } out_kind;

typedef struct out {
	char *s;
	size_t n, cap;   /* cap: bytes usable, the NUL of a strbuf or fixed buffer excluded */
	size_t lost;     /* OUT_FIXED: bytes that did not fit */
	size_t total;    /* OUT_FILE: bytes handed to the FILE */
	out_kind kind;
	FILE *f;
	strbuf *sb;
} out;

static void out_spill(out *o, const char *p, size_t len)
{
	switch (o->kind) {
	case OUT_FILE:
		if (o->n) {
			fwrite_unlocked(o->s, 1, o->n, o->f);
			o->total += o->n;
			o->n = 0;
		}
		if (len >= o->cap) {
			fwrite_unlocked(p, 1, len, o->f);
			o->total += len;
			return;
		}
		break;
	case OUT_STRBUF: {
		size_t cap = o->sb->cap ? o->sb->cap : 64;
		while (cap < o->n + len + 1)
			cap *= 2;
		o->sb->s = xrealloc(o->sb->s, cap);
		o->sb->cap = cap;
		o->s = o->sb->s;
		o->cap = cap - 1;
		break;
	}
	case OUT_FIXED: {
		size_t room = o->cap - o->n;
		memcpy(o->s + o->n, p, room);
		o->n += room;
		o->lost += len - room;
		return;
	}
	}
	memcpy(o->s + o->n, p, len);
	o->n += len;
}

static inline void out_add(out *o, const char *p, size_t len)
{
	if (len <= o->cap - o->n) {
		memcpy(o->s + o->n, p, len);
		o->n += len;
	} else {
		out_spill(o, p, len);
	}
}

static void out_pad(out *o, size_t n, char c)
{
	if (!n)
		return;
	char sp[64];
	memset(sp, c, sizeof sp);
	for (; n > sizeof sp; n -= sizeof sp)
		out_add(o, sp, sizeof sp);
	out_add(o, sp, n);
}

/* ---- escaping, fast when nothing needs it -------------------------------------- */

#ifdef __SSE2__
/* Sixteen bytes at a time: a byte is bad when, read as signed, it is below
 * 0x20 (0x80..0xff are negative) or is DEL, or for JSON a quote or a
 * backslash. Returns the mask of the bad bytes. */
static inline unsigned block_bad(__m128i v, bool json)
{
	__m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
	if (json)
		bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
		                                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
	return (unsigned)_mm_movemask_epi8(bad);
}

size_t text_plain_run(const char *s, size_t n, bool json)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		unsigned m = block_bad(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), json);
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
	if (i == n)
		return n;
	if (n >= 16) {   /* the last sixteen, overlapping bytes found plain */
		unsigned m = block_bad(_mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)), json);
		return m ? n - 16 + (size_t)__builtin_ctz(m) : n;
	}
	/* a short text: its first and last eight (or four) bytes, overlapping,
	 * side by side in one block */
	unsigned m, half;
	if (n >= 8) {
		uint64_t head8, tail8;
		memcpy(&head8, s, 8);
		memcpy(&tail8, s + n - 8, 8);
		m = block_bad(_mm_set_epi64x((long long)tail8, (long long)head8), json);
		half = 8;
	} else if (n >= 4) {
		uint32_t head4, tail4;
		memcpy(&head4, s, 4);
		memcpy(&tail4, s + n - 4, 4);
		m = block_bad(_mm_set_epi32(0x61616161, 0x61616161, (int)tail4, (int)head4), json);   /* 'a': plain */
		half = 4;
	} else {
		for (; i < n; i++) {
			unsigned char c = (unsigned char)s[i];
			if (c < 0x20 || c >= 0x7f || (json && (c == '"' || c == '\\')))
				return i;
		}
		return n;
	}
	unsigned low = m & ((1u << half) - 1), high = m >> half & ((1u << half) - 1);
	if (low)
		return (size_t)__builtin_ctz(low);
	return high ? n - half + (size_t)__builtin_ctz(high) : n;
}
#else
/* Eight bytes at a time: a word has a byte below 0x20 or at or above 0x7f
 * when one of the first three terms sets its high bit, a quote or backslash
 * (for JSON) when the xor with it has a zero byte (a borrow or carry may
 * flag a good word too; its bytes are then looked at one by one). */
static inline bool word_plain(uint64_t x, bool json)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t bad = (x - 0x20 * ones) | x | (x + ones);
	if (json) {
		uint64_t q = x ^ ('"' * ones), b = x ^ ('\\' * ones);
		bad |= ((q - ones) & ~q) | ((b - ones) & ~b);
	}
	return !(bad & high);
}

size_t text_plain_run(const char *s, size_t n, bool json)
{
	size_t i = 0;
	uint64_t x;
	for (; i + 8 <= n; i += 8) {
		memcpy(&x, s + i, 8);
		if (!word_plain(x, json))
			break;
	}
	if (i == n)
		return n;
	if (n >= 8 && i + 8 > n) {   /* the tail: the last eight bytes, overlapping */
		memcpy(&x, s + n - 8, 8);
		if (word_plain(x, json))
			return n;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || (json && (c == '"' || c == '\\')))
			break;
	}
	return i;
}
#endif

/* s (n bytes) as text_escape_n writes it. */
static void out_escaped(out *o, const char *s, size_t n)
{
	size_t safe = text_plain_run(s, n, false);
	out_add(o, s, safe);
	if (safe == n)
		return;
	strbuf e = { 0 };
	text_escape_n(&e, s + safe, n - safe);
	out_add(o, e.s, e.n);
	sb_release(&e);
}

/* ---- conversions ------------------------------------------------------------------ */

typedef struct spec {
	char flags[8];
	bool left, zero, other_flag;   /* other_flag: '+', ' ', '#' or '\'' */
	long width, prec;              /* -1: not given */
	char len[3];
	char conv;
} spec;

static long parse_number(const char **p)
{
	long v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		if (v < 100000)
			v = v * 10 + (**p - '0');
	return v;
}

/* Parses the conversion at p (just past '%'); '*' width and precision come
 * from ap. Returns the position after it. */
static const char *parse_spec(const char *p, va_list *ap, spec *c)
{
	size_t nf = 0;
	c->left = c->zero = c->other_flag = false;
	for (;; p++) {
		switch (*p) {
		case '-': c->left = true; break;
		case '0': c->zero = true; break;
		case '+': case ' ': case '#': case '\'': c->other_flag = true; break;
		default: goto flags_done;
		}
		if (nf < sizeof c->flags - 1)
			c->flags[nf++] = *p;
	}
flags_done:
	c->flags[nf] = '\0';
	c->width = c->prec = -1;
	if (*p == '*') {
		int w = va_arg(*ap, int);
		c->left = c->left || w < 0;
		c->width = w < 0 ? -(long)w : w;
		p++;
	} else if (*p >= '0' && *p <= '9') {
		c->width = parse_number(&p);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			int q = va_arg(*ap, int);
			c->prec = q < 0 ? -1 : q;
			p++;
		} else {
			c->prec = parse_number(&p);
		}
	}
	size_t ln = 0;
	while (ln < 2 && (*p == 'h' || *p == 'l' || *p == 'j' || *p == 'z' || *p == 't' || *p == 'L'))
		c->len[ln++] = *p++;
	c->len[ln] = '\0';
	c->conv = *p ? *p++ : '\0';
	if (c->width > 4096)
		c->width = 4096;
	if (c->prec > 4096 && c->conv != 's')
		c->prec = 4096;
	return p;
}

static void conv_string(out *o, const spec *c, const char *s, bool escape)
{
	if (!s)
		s = "(null)";
	if (c->width < 0 && c->prec < 0) {
		if (escape)
			out_escaped(o, s, strlen(s));
		else
			out_add(o, s, strlen(s));
		return;
	}
	strbuf e = { 0 };
	const char *t = s;
	size_t shown;
	if (!escape) {
		shown = c->prec >= 0 ? strnlen(s, (size_t)c->prec) : strlen(s);
	} else {
		size_t n = strlen(s);
		if (text_plain_run(s, n, false) < n) {
			text_escape_n(&e, s, n);
			t = e.s;
			n = e.n;
		}
		shown = n;
		/* the precision counts escaped bytes and never cuts a character */
		if (c->prec >= 0 && (size_t)c->prec < shown) {
			shown = (size_t)c->prec;
			while (shown > 0 && ((unsigned char)t[shown] & 0xc0) == 0x80)
				shown--;
		}
	}
	size_t pad = c->width > 0 && (size_t)c->width > shown ? (size_t)c->width - shown : 0;
	if (!c->left)
		out_pad(o, pad, ' ');
	out_add(o, t, shown);
	if (c->left)
		out_pad(o, pad, ' ');
	sb_release(&e);
}

static const spec plain_spec = { .width = -1, .prec = -1 };

/* A decimal integer with optional width, '-' and '0'. */
static void conv_decimal(out *o, const spec *c, unsigned long long mag, bool neg)
{
	char digits[24];
	const char *s = text_digits(mag, digits);
	size_t n = (size_t)(digits + 23 - s), len = n + neg;
	size_t pad = c->width > 0 && (size_t)c->width > len ? (size_t)c->width - len : 0;
	if (!c->left && !c->zero)
		out_pad(o, pad, ' ');
	if (neg)
		out_add(o, "-", 1);
	if (!c->left && c->zero)
		out_pad(o, pad, '0');
	out_add(o, s, n);
	if (c->left)
		out_pad(o, pad, ' ');
}

/* %.Nf (N <= 9) and %g of an integral value, when the result is certain:
 * x scaled by 10^N is far enough from a half that the rounding printf does
 * on x's exact value gives the same digits. False: leave it to snprintf. */
static bool conv_fixed(out *o, const spec *c, double x)
{
	static const double scale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	if (!isfinite(x) || c->width >= 0 || c->other_flag)
		return false;
	bool neg = signbit(x);
	double a = fabs(x);
	if (c->conv == 'g') {   /* an integer of fewer digits than the precision prints as one */
		long prec = c->prec < 0 ? 6 : c->prec ? c->prec : 1;
		if (a != floor(a) || a >= scale[prec < 9 ? prec : 9] || (neg && a == 0))
			return false;
		conv_decimal(o, &plain_spec, (unsigned long long)a, neg);
		return true;
	}
	long prec = c->prec < 0 ? 6 : c->prec;
	if (prec > 9)
		return false;
	double y = a * scale[prec];
	if (y >= 1e12)
		return false;
	double r = floor(y + 0.5), d = y - floor(y);
	if (fabs(d - 0.5) < 1e-3)
		return false;
	unsigned long long v = (unsigned long long)r, div = (unsigned long long)scale[prec];
	conv_decimal(o, &plain_spec, v / div, neg);   /* "-0" too, as printf */
	if (prec) {
		char frac[12];
		unsigned long long f = v % div;
		for (long i = prec - 1; i >= 0; i--, f /= 10)
			frac[i] = (char)('0' + f % 10);
		out_add(o, ".", 1);
		out_add(o, frac, (size_t)prec);
	}
	return true;
}

/* The rest, through snprintf with the conversion as it was written. */
static void conv_libc(out *o, const spec *c, va_list *ap, bool escape)
{
	char fmt[48];
	int k = snprintf(fmt, sizeof fmt, "%%%s%s", c->flags, c->left && !strchr(c->flags, '-') ? "-" : "");
	if (c->width >= 0)
		k += snprintf(fmt + k, sizeof fmt - (size_t)k, "%ld", c->width);
	if (c->prec >= 0)
		k += snprintf(fmt + k, sizeof fmt - (size_t)k, ".%ld", c->prec);
	snprintf(fmt + k, sizeof fmt - (size_t)k, "%s%c", c->len, c->conv);
	char tmp[4200];
	int n = -1;
#define EMIT(T) n = snprintf(tmp, sizeof tmp, fmt, va_arg(*ap, T))
	bool ll = !strcmp(c->len, "ll"), l = !strcmp(c->len, "l"), j = !strcmp(c->len, "j");
	bool zt = c->len[0] == 'z' || c->len[0] == 't';
	switch (c->conv) {
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
		if (!strcmp(c->len, "L")) EMIT(long double); else EMIT(double);
		break;
	default:
		return;   /* %n and unknown conversions print nothing */
	}
#undef EMIT
	if (escape && c->conv == 'c' && n == 1)
		out_escaped(o, tmp, 1);   /* a %c of a control byte is foreign too */
	else if (n > 0)
		out_add(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* One conversion at p (just past '%'). Returns the position after it. */
static const char *one_conversion(out *o, const char *p, va_list *ap, bool escape)
{
	spec c;
	p = parse_spec(p, ap, &c);
	bool fast_int = !c.other_flag && c.prec < 0;
	switch (c.conv) {
	case '%':
		out_add(o, "%", 1);
		return p;
	case 's':
		conv_string(o, &c, va_arg(*ap, const char *), escape);
		return p;
	case 'd': case 'i':
		if (fast_int && strcmp(c.len, "L")) {
			long long v = !strcmp(c.len, "ll") ? va_arg(*ap, long long)
			            : c.len[0] == 'l' ? va_arg(*ap, long)
			            : c.len[0] == 'j' ? (long long)va_arg(*ap, intmax_t)
			            : c.len[0] == 'z' || c.len[0] == 't' ? (long long)va_arg(*ap, ptrdiff_t)
			            : !strcmp(c.len, "hh") ? (signed char)va_arg(*ap, int)
			            : c.len[0] == 'h' ? (short)va_arg(*ap, int) : va_arg(*ap, int);
			conv_decimal(o, &c, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0);
			return p;
		}
		break;
	case 'u':
		if (fast_int && strcmp(c.len, "L")) {
			unsigned long long v = !strcmp(c.len, "ll") ? va_arg(*ap, unsigned long long)
			                     : c.len[0] == 'l' ? va_arg(*ap, unsigned long)
			                     : c.len[0] == 'j' ? (unsigned long long)va_arg(*ap, uintmax_t)
			                     : c.len[0] == 'z' || c.len[0] == 't' ? (unsigned long long)va_arg(*ap, size_t)
			                     : !strcmp(c.len, "hh") ? (unsigned char)va_arg(*ap, unsigned)
			                     : c.len[0] == 'h' ? (unsigned short)va_arg(*ap, unsigned) : va_arg(*ap, unsigned);
			conv_decimal(o, &c, v, false);
			return p;
		}
		break;
	case 'f': case 'g':
		if (!c.len[0]) {
			va_list peek;
			va_copy(peek, *ap);
			double x = va_arg(peek, double);
			va_end(peek);
			if (conv_fixed(o, &c, x)) {
				(void)va_arg(*ap, double);
				return p;
			}
		}
		break;
	default:
		break;
	}
	conv_libc(o, &c, ap, escape);
	return p;
}

static void format(out *o, bool escape, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	const char *p = fmt;
	while (*p) {
		/* the format's own text: short runs, copied a byte at a time */
		const char *pct = p;
		for (; *pct && *pct != '%'; pct++) {
			if (o->n < o->cap)
				o->s[o->n++] = *pct;
			else
				out_spill(o, pct, 1);
		}
		if (!*pct)
			break;
		/* the conversions the writers use most, without parsing a spec */
		const char *s;
		switch (pct[1]) {
		case 's':
			s = va_arg(copy, const char *);
			if (!s)
				s = "(null)";
			if (escape)
				out_escaped(o, s, strlen(s));
			else
				out_add(o, s, strlen(s));
			p = pct + 2;
			continue;
		case 'd': {
			int v = va_arg(copy, int);
			conv_decimal(o, &plain_spec, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0);
			p = pct + 2;
			continue;
		}
		case 'u':
			conv_decimal(o, &plain_spec, va_arg(copy, unsigned), false);
			p = pct + 2;
			continue;
		default:
			p = one_conversion(o, pct + 1, &copy, escape);
		}
	}
	va_end(copy);
}

static void format_sb(strbuf *b, bool escape, const char *fmt, va_list ap)
{
	sb_add(b, "", 0);
	out o = { .s = b->s, .n = b->n, .cap = b->cap - 1, .kind = OUT_STRBUF, .sb = b };
	format(&o, escape, fmt, ap);
	b->n = o.n;
	b->s[b->n] = '\0';
}

/* ---- the printers ----------------------------------------------------------------- */

static void txt_sb_vprintf(strbuf *b, const char *fmt, va_list ap)
{
	format_sb(b, true, fmt, ap);
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
	char buf[1024];
	out o = { .s = buf, .cap = sizeof buf, .kind = OUT_FILE, .f = f };
	format(&o, true, fmt, ap);
	if (o.n)
		fwrite_unlocked(buf, 1, o.n, f);
	return (int)(o.total + o.n);
}

int txt_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = txt_vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

/* Formats into dst (size bytes); what does not fit is formatted whole and
 * cut as text_cut cuts. */
static char *cut_format(char *dst, size_t size, bool escape, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	out o = { .s = dst, .cap = size - 1, .kind = OUT_FIXED };
	format(&o, escape, fmt, ap);
	dst[o.n] = '\0';
	if (o.lost) {
		strbuf b = { 0 };
		format_sb(&b, escape, fmt, again);
		text_cut(dst, size, b.s);
		sb_release(&b);
	}
	va_end(again);
	return dst;
}

/* Most texts of a trace are words with no conversion ("op type differs")
 * or one name ("%s"): those are cut as they are, without formatting
 * (text_cut is what the formatter does to a text of that length). */
char *text_vcutf(char *dst, size_t size, const char *fmt, va_list ap)
{
	const char *pct = strchr(fmt, '%');
	if (!pct)
		return text_cut(dst, size, fmt);
	if (pct == fmt && fmt[1] == 's' && !fmt[2]) {
		const char *s = va_arg(ap, const char *);
		return text_cut(dst, size, s ? s : "(null)");
	}
	return cut_format(dst, size, false, fmt, ap);
}

char *text_cutf(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vcutf(dst, size, fmt, ap);
	va_end(ap);
	return dst;
}

size_t text_appendf(char *dst, size_t size, size_t at, const char *fmt, ...)
{
	if (at >= size)
		return at;
	va_list ap;
	va_start(ap, fmt);
	out o = { .s = dst + at, .cap = size - at - 1, .kind = OUT_FIXED };
	format(&o, false, fmt, ap);
	va_end(ap);
	dst[at + o.n] = '\0';
	size_t n = o.n + o.lost;
	text_mark_cut(dst, size, at + n);   /* a cut shows: "…" */
	return at + n < size ? at + n : size;
}

char *txt_cutf(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cut_format(dst, size, true, fmt, ap);
	va_end(ap);
	return dst;
}

/* ---- outbuf (outbuf.h) ------------------------------------------------------------ */

void ob_spill(outbuf *o, const char *s, size_t n)
{
	ob_flush(o);
	if (n >= sizeof o->buf) {
		fwrite_unlocked(s, 1, n, o->f);
		return;
	}
	memcpy(o->buf, s, n);
	o->n = n;
}

void ob_flush(outbuf *o)
{
	if (o->n)
		fwrite_unlocked(o->buf, 1, o->n, o->f);
	o->n = 0;
}

void ob_text(outbuf *o, const char *s)
{
	if (!s)
		return;
	size_t n = strlen(s), safe = text_plain_run(s, n, false);
	ob_add(o, s, safe);   /* the common case: all of it */
	if (safe == n)
		return;
	out w = { .s = o->buf, .n = o->n, .cap = sizeof o->buf, .kind = OUT_FILE, .f = o->f };
	out_escaped(&w, s + safe, n - safe);
	o->n = w.n;
}

void ob_field(outbuf *o, const char *s, size_t cap)
{
	size_t i = 0;
#ifdef __SSE2__
	for (; i + 16 <= cap && sizeof o->buf - o->n >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		_mm_storeu_si128((__m128i *)(void *)(o->buf + o->n), v);   /* room for 16; only plain bytes count */
		unsigned m = block_bad(v, false);   /* the NUL is one of them */
		if (!m) {
			o->n += 16;
			continue;
		}
		unsigned k = (unsigned)__builtin_ctz(m);
		o->n += k;
		if (!s[i + k])
			return;
		i += k;   /* a byte to escape: the rest as ob_text writes it */
		break;
	}
#endif
	ob_text(o, s + i);
}

void ob_printf(outbuf *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out w = { .s = o->buf, .n = o->n, .cap = sizeof o->buf, .kind = OUT_FILE, .f = o->f };
	format(&w, true, fmt, ap);
	o->n = w.n;
	va_end(ap);
}
