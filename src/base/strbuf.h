/* strbuf.h — a growing string on the heap, always NUL-terminated once
 * anything was added. The strbuf owns s until sb_take hands it over or
 * sb_release frees it; a zeroed strbuf is empty and ready. */
#ifndef FD_STRBUF_H
#define FD_STRBUF_H
#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
	char *s;
	size_t n, cap;
} strbuf;

void sb_add(strbuf *b, const char *s, size_t n);
void sb_puts(strbuf *b, const char *s);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf *b, const char *fmt, va_list ap);
const char *sb_str(strbuf *b);   /* the text so far ("" when empty); b keeps it */
void sb_clear(strbuf *b);        /* empty again, keeps the buffer */
char *sb_take(strbuf *b);        /* the text, now the caller's; b is emptied */
void sb_release(strbuf *b);

#endif
