/* pbtxt_lex.c — tokens of the protobuf text format (pbtxt_lex.h): blanks
 * and '#' comments skipped, identifiers, numbers checked for their form,
 * strings decoded with their escapes, punctuation. Every read is checked
 * against the end of the buffer. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "ge/pbtxt_lex.h"

void pbtxt_lex_init(pbtxt_lexer *lx, const char *file, const char *data, size_t size, fd_diags *d)
{
	memset(lx, 0, sizeof *lx);
	lx->p = lx->line_start = data;
	lx->end = data + size;
	lx->line = 1;
	lx->file = file;
	lx->d = d;
}

void pbtxt_lex_release(pbtxt_lexer *lx)
{
	sb_release(&lx->str);
}

static int32_t col_of(const pbtxt_lexer *lx, const char *at)
{
	return (int32_t)(at - lx->line_start) + 1;
}

static int fail(pbtxt_lexer *lx, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(pbtxt_lexer *lx, const char *at, const char *fmt, ...)
{
	fd_srcpos pos = { lx->file, lx->line, col_of(lx, at) };
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(lx->d, DIAG_ERROR, pos, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int hex_value(int c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

static void skip_blanks(pbtxt_lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;
		if (c == '\n') {
			lx->p++;
			lx->line++;
			lx->line_start = lx->p;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
			lx->p++;
		} else if (c == '#') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else {
			break;
		}
	}
}

/* The number's form, as protobuf's tokenizer takes it: 0x hex, 0 octal,
 * decimal, or a float (digits with a '.', an exponent, an f suffix). */
static bool number_valid(const char *s, size_t n)
{
	size_t i = 0;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (!is_hex(s[i]))
				return false;
		return true;
	}
	size_t digits = 0;
	bool octal = n > 1 && s[0] == '0', fraction = false;
	for (; i < n && is_digit(s[i]); i++, digits++)
		octal = octal && s[i] <= '7';
	if (i < n && s[i] == '.') {
		fraction = true;
		for (i++; i < n && is_digit(s[i]); i++)
			digits++;
	}
	if (!digits)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		fraction = true;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t e = i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == e)
			return false;
	}
	if (i < n && (s[i] == 'f' || s[i] == 'F')) {
		fraction = true;
		i++;
	}
	if (i != n)
		return false;
	return fraction || n == 1 || s[0] != '0' || octal;   /* 012 is octal, 089 nothing */
}

static int lex_number(pbtxt_lexer *lx, pbtxt_token *t)
{
	const char *s = lx->p;
	bool hex = lx->end - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = s;
	while (p < lx->end) {
		char c = *p;
		if (is_alpha(c) || is_digit(c) || c == '.')
			p++;
		else if ((c == '+' || c == '-') && !hex && p > s && (p[-1] == 'e' || p[-1] == 'E'))
			p++;
		else
			break;
	}
	if (!number_valid(s, (size_t)(p - s)))
		return fail(lx, s, "'%.*s' is not a number", (int)((p - s) > 40 ? 40 : p - s), s);
	t->kind = TOK_NUMBER;
	t->s = s;
	t->n = (size_t)(p - s);
	lx->p = p;
	return 0;
}

static void put_utf8(strbuf *b, uint32_t c)
{
	char u[4];
	size_t n;
	if (c < 0x80) {
		u[0] = (char)c, n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xC0 | c >> 6), u[1] = (char)(0x80 | (c & 0x3F)), n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xE0 | c >> 12), u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[2] = (char)(0x80 | (c & 0x3F)), n = 3;
	} else {
		u[0] = (char)(0xF0 | c >> 18), u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3F)), u[3] = (char)(0x80 | (c & 0x3F)), n = 4;
	}
	sb_add(b, u, n);
}

/* One escape after the backslash at esc; lx->p is just past the backslash. */
static int lex_escape(pbtxt_lexer *lx, const char *esc)
{
	static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\''\"\"??";
	char c = *lx->p;
	for (size_t k = 0; simple[k]; k += 2)
		if (simple[k] == c) {
			sb_add(&lx->str, &simple[k + 1], 1);
			lx->p++;
			return 0;
		}
	if (c >= '0' && c <= '7') {
		unsigned v = 0;
		for (int k = 0; k < 3 && lx->p < lx->end && *lx->p >= '0' && *lx->p <= '7'; k++)
			v = v * 8 + (unsigned)(*lx->p++ - '0');
		if (v > 0xFF)
			return fail(lx, esc, "octal escape '%.*s' in a string is above \\377", (int)(lx->p - esc), esc);
		char byte = (char)v;
		sb_add(&lx->str, &byte, 1);
		return 0;
	}
	if (c == 'x' || c == 'X') {
		lx->p++;
		unsigned v = 0;
		int k = 0;
		for (; k < 2 && lx->p < lx->end && is_hex(*lx->p); k++)
			v = v * 16 + (unsigned)hex_value(*lx->p++);
		if (!k)
			return fail(lx, esc, "hex escape '\\%c' in a string has no hex digit", c);
		char byte = (char)v;
		sb_add(&lx->str, &byte, 1);
		return 0;
	}
	if (c == 'u' || c == 'U') {
		int want = c == 'u' ? 4 : 8;
		lx->p++;
		uint32_t v = 0;
		for (int k = 0; k < want; k++) {
			if (lx->p >= lx->end || !is_hex(*lx->p))
				return fail(lx, esc, "'\\%c' escape in a string needs %d hex digits", c, want);
			v = v * 16 + (uint32_t)hex_value(*lx->p++);
		}
		if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
			return fail(lx, esc, "'%.*s' in a string is not a Unicode character", (int)(lx->p - esc), esc);
		put_utf8(&lx->str, v);
		return 0;
	}
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7F)
		return fail(lx, esc, "invalid escape: a backslash before byte 0x%02x in a string", (unsigned char)c);
	return fail(lx, esc, "invalid escape '\\%c' in a string", c);
}

static int lex_string(pbtxt_lexer *lx, pbtxt_token *t)
{
	char quote = *lx->p;
	const char *start = lx->p++;
	sb_clear(&lx->str);
	sb_add(&lx->str, "", 0);
	for (;;) {
		if (lx->p >= lx->end || *lx->p == '\n')
			return fail(lx, start, "string not closed before the end of the %s",
			            lx->p >= lx->end ? "file" : "line");
		char c = *lx->p;
		if (c == quote) {
			lx->p++;
			break;
		}
		if (c != '\\') {
			const char *run = lx->p;
			while (lx->p < lx->end && *lx->p != quote && *lx->p != '\\' && *lx->p != '\n')
				lx->p++;
			sb_add(&lx->str, run, (size_t)(lx->p - run));
			continue;
		}
		const char *esc = lx->p++;
		if (lx->p >= lx->end || *lx->p == '\n')
			return fail(lx, start, "string not closed before the end of the %s",
			            lx->p >= lx->end ? "file" : "line");
		if (lex_escape(lx, esc))
			return -1;
	}
	t->kind = TOK_STRING;
	t->s = lx->str.s;
	t->n = lx->str.n;
	return 0;
}

int pbtxt_lex_next(pbtxt_lexer *lx, pbtxt_token *t)
{
	skip_blanks(lx);
	memset(t, 0, sizeof *t);
	t->line = lx->line;
	t->col = col_of(lx, lx->p);
	if (lx->p >= lx->end) {
		t->kind = TOK_EOF;
		return 0;
	}
	unsigned char c = (unsigned char)*lx->p;
	if (is_alpha(c)) {
		const char *s = lx->p;
		while (lx->p < lx->end && (is_alpha(*lx->p) || is_digit(*lx->p)))
			lx->p++;
		t->kind = TOK_IDENT;
		t->s = s;
		t->n = (size_t)(lx->p - s);
		return 0;
	}
	if (is_digit(c) || (c == '.' && lx->end - lx->p > 1 && is_digit(lx->p[1])))
		return lex_number(lx, t);
	if (c == '"' || c == '\'')
		return lex_string(lx, t);
	if (strchr("{}<>[]:,;-/.", c) && c) {
		t->kind = TOK_PUNCT;
		t->punct = (char)c;
		t->s = lx->p++;
		t->n = 1;
		return 0;
	}
	if (c >= 0x20 && c < 0x7F)
		return fail(lx, lx->p, "unexpected character '%c'", c);
	return fail(lx, lx->p, "unexpected byte 0x%02x", c);
}

const char *pbtxt_lex_describe(const pbtxt_token *t, char *buf, size_t size)
{
	switch (t->kind) {
	case TOK_EOF: snprintf(buf, size, "the end of the file"); break;
	case TOK_STRING: snprintf(buf, size, "a string"); break;
	case TOK_PUNCT: snprintf(buf, size, "'%c'", t->punct); break;
	default: snprintf(buf, size, "'%.*s'", (int)(t->n > 40 ? 40 : t->n), t->s); break;
	}
	return buf;
}
