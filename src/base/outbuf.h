/* outbuf.h — a buffered writer onto a FILE for the writers of a big run
 * (the trace, the rejections): pieces are appended to a buffer the caller
 * owns (on its stack) and reach the FILE a buffer-full at a time, with no
 * printf on the common path. Foreign text goes through the same escapes as
 * everywhere else (base/text.h for plain text, base/json.h for JSON): a
 * name with no byte to escape is copied, one that has goes through the
 * escaping. ob_flush before the FILE is used directly again. */
#ifndef FD_OUTBUF_H
#define FD_OUTBUF_H
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "base/text.h"

typedef struct outbuf {
	FILE *f;
	size_t n;
	char buf[8192];
} outbuf;

static inline void ob_init(outbuf *o, FILE *f)
{
	o->f = f;
	o->n = 0;
}

void ob_spill(outbuf *o, const char *s, size_t n);
void ob_flush(outbuf *o);

/* n bytes of the program's own text, as they are. */
static inline void ob_add(outbuf *o, const char *s, size_t n)
{
	if (n <= sizeof o->buf - o->n) {
		memcpy(o->buf + o->n, s, n);
		o->n += n;
	} else {
		ob_spill(o, s, n);
	}
}

static inline void ob_lit(outbuf *o, const char *s)
{
	ob_add(o, s, strlen(s));
}

static inline void ob_char(outbuf *o, char c)
{
	if (o->n < sizeof o->buf)
		o->buf[o->n++] = c;
	else
		ob_spill(o, &c, 1);
}

/* Foreign text escaped as text_escape does (text_format.c); NULL: nothing. */
void ob_text(outbuf *o, const char *s);
/* The same of the text in a char array of cap bytes holding its NUL (an
 * event's field): read sixteen bytes at a time up to cap, the end found,
 * the bytes checked and copied in one pass. */
void ob_field(outbuf *o, const char *s, size_t cap);
/* A decimal number (a trace writes three an event: no call, no format). */
static inline void ob_int(outbuf *o, long long v)
{
	char d[24];
	const char *s = text_decimal(v, d);
	ob_add(o, s, (size_t)(d + 23 - s));
}
/* txt_fprintf into the buffer: every %s argument escaped. */
void ob_printf(outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string literal, quotes included, as json_write_string (json.c). */
void ob_json(outbuf *o, const char *s);

#endif
