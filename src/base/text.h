/* text.h — foreign text (names from a model or a rule file, paths, values)
 * made safe for where it is printed, and long text cut visibly.
 *
 * The one mechanism: foreign text is escaped where it enters output, by the
 * helper of that output's kind, and nowhere else.
 *   plain text (stdout, stderr, the TUI): text_escape — every control byte
 *     (C0, DEL, the C1 range as UTF-8), each byte of invalid UTF-8 and the
 *     bidirectional overrides become visible escapes (\n, \t, \r, \e, \xNN,
 *     \u202e); everything else is kept. It leaves backslashes alone, so it is
 *     idempotent: escaping twice is escaping once, and text built from
 *     escaped pieces stays safe. The printers reach it through txt_fprintf /
 *     txt_sb_printf, which escape every %s argument (the format is the
 *     program's own text), and diagnostics are escaped as they are made
 *     (diag.c): a diagnostic is one line by contract, so an LF in a name
 *     can never forge another "error:" line.
 *   JSON: json_write_string (json.h) — RFC 8259 escapes, \u escapes for
 *     every control character, and a byte of invalid UTF-8 as the text \xNN.
 *   DOT / SVG: text_dot_escape for escString attributes and text_html_escape
 *     for HTML-like labels — the text escapes first (no control byte reaches
 *     the XML an SVG is), then what each syntax needs ("\\", "\"", "&lt;").
 *
 * Cutting: text_cut keeps the head and the tail of text that is too long for
 * a fixed buffer, "head…tail", on UTF-8 boundaries: nothing is cut silently
 * and nothing overflows. */
#ifndef FD_TEXT_H
#define FD_TEXT_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/strbuf.h"

/* Appends s escaped for plain text (see above); NULL appends nothing. */
void text_escape(strbuf *b, const char *s);
/* The same for n bytes (may hold NULs, shown as \x00). */
void text_escape_n(strbuf *b, const char *s, size_t n);
/* How many leading bytes of s (n bytes) need no escape at all: printable
 * ASCII, and for JSON (json) neither a quote nor a backslash. Looked at
 * eight bytes at a time; the printers copy that much as it is. */
size_t text_plain_run(const char *s, size_t n, bool json);
/* True when s needs no escape (text_escape would copy it unchanged). */
bool text_is_safe(const char *s);
/* Whether s..s+n is valid UTF-8 (no overlong forms, no surrogates). */
bool text_utf8_valid(const char *s, size_t n);
/* Code points that change how a terminal shows what follows: the C1
 * controls, the bidirectional embeddings, overrides, isolates and marks,
 * the line and paragraph separators. */
bool text_hostile_code_point(uint32_t cp);
/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid. */
size_t text_utf8_seq(const unsigned char *s, size_t n);

/* The columns s takes on a terminal: its code points (UTF-8 continuation
 * bytes take none). */
size_t text_columns(const char *s);
/* The printf field width ("%-*s") that pads s to width columns: bytes
 * beyond columns (a "×") widen the field by as much. */
static inline int text_pad(const char *s, int width)
{
	size_t bytes = 0;
	for (const char *p = s; *p; p++)
		bytes++;
	return width + (int)(bytes - text_columns(s));
}

/* Copies src into dst (size bytes, NUL included), as "head…tail" when it is
 * longer; returns dst. size must be at least 16. */
char *text_cut(char *dst, size_t size, const char *src);
/* Formats into dst, cut as text_cut when the result is longer; returns dst. */
char *text_cutf(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* text_cutf(dst, size, "%s%s…", …) of n texts (at most TEXT_JOIN_MAX)
 * joined without a format: the common fields of a big trace. */
#define TEXT_JOIN_MAX 12
void text_join(char *dst, size_t size, int n, ...);
char *text_vcutf(char *dst, size_t size, const char *fmt, va_list ap);
/* After n bytes were wanted at dst (size bytes, NUL included) by an
 * appending snprintf: when they did not fit, the text ends in "…" (on a
 * UTF-8 boundary) so the cut shows. Returns dst. */
char *text_mark_cut(char *dst, size_t size, size_t n);
/* snprintf(dst + at, size - at, "%s%s", a, b) without the printf: appends
 * as much as fits (NUL-terminated when at < size) and returns at plus the
 * whole length, so a join of names goes on as with snprintf and ends with
 * text_mark_cut. */
size_t text_append(char *dst, size_t size, size_t at, const char *a, const char *b);
/* Formats at offset at of dst (size bytes) as much as fits, never past its
 * end (text that does not fit ends in "…", text_mark_cut), and returns the
 * offset after what it wrote (at most size): a list built piece by piece. */
size_t text_appendf(char *dst, size_t size, size_t at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The decimal digits of m written backwards into d (24 bytes, NUL-terminated
 * at d[23]); returns the first. The one digit loop of every formatter here. */
char *text_digits(unsigned long long m, char d[24]);
/* The same of a signed number; returns its first digit or sign. */
static inline const char *text_decimal(long long v, char d[24])
{
	char *s = text_digits(v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, d);
	if (v < 0)
		*--s = '-';
	return s;
}
/* text_appendf(dst, size, at, "%s", s) (strbuf.h) without the format: s
 * from at, a cut marked "…"; returns the end, at most size. */
size_t text_put_at(char *dst, size_t size, size_t at, const char *s);
/* The same of a decimal number. */
size_t text_put_int_at(char *dst, size_t size, size_t at, long long v);
/* The same as text_cutf, every %s argument escaped with text_escape first. */
char *txt_cutf(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* printf whose %s arguments are escaped with text_escape; every other
 * conversion is printf's. For every printer of plain text that shows foreign
 * text. */
int  txt_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int  txt_vfprintf(FILE *f, const char *fmt, va_list ap);
void txt_sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fputs of foreign text, escaped. */

/* DOT escString (tooltips, plain labels): text_escape, then a backslash
 * doubled so that it starts no escape (\N, \l). Quotes are the DOT
 * writer's to escape (cgraph does), and a value must not end in a
 * backslash (the writer's caller sees to that). */
void text_dot_escape(strbuf *b, const char *s);
/* Text inside a Graphviz HTML-like label (and so inside SVG): text_escape,
 * then & < > " as entities. */
void text_html_escape(strbuf *b, const char *s);

#endif
