/* json.c — JSON string literals. Foreign text may hold anything: every
 * control character (C0, DEL, the C1 range) is a \u escape, as are the
 * bidirectional controls and the line and paragraph separators (the JSON
 * may be read on a terminal); a byte of invalid UTF-8 cannot be a JSON
 * character and becomes the text \xNN (as plain text shows it, base/text.h),
 * so the output is always valid JSON in UTF-8. */
#include "base/json.h"
#include <stdint.h>
#include <string.h>
#include "base/outbuf.h"
#include "base/text.h"

void ob_json(outbuf *o, const char *s)
{
	ob_char(o, '"');
	const char *str = s ? s : "";
	size_t n = strlen(str), plain = text_plain_run(str, n, true);
	ob_add(o, str, plain);
	const unsigned char *p = (const unsigned char *)str + plain;
	char esc[16];
	while (*p) {
		unsigned char c = *p;
		switch (c) {
		case '"': ob_add(o, "\\\"", 2); p++; continue;
		case '\\': ob_add(o, "\\\\", 2); p++; continue;
		case '\n': ob_add(o, "\\n", 2); p++; continue;
		case '\r': ob_add(o, "\\r", 2); p++; continue;
		case '\t': ob_add(o, "\\t", 2); p++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			ob_add(o, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", c));
			p++;
			continue;
		}
		if (c < 0x80) {
			ob_char(o, (char)c);
			p++;
			continue;
		}
		size_t k = 0;
		while (k < 4 && p[k])
			k++;
		size_t len = text_utf8_seq(p, k);
		if (!len) {
			ob_add(o, esc, (size_t)snprintf(esc, sizeof esc, "\\\\x%02x", c));   /* the six characters \xNN */
			p++;
			continue;
		}
		uint32_t cp = len == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu)
		            : len == 3 ? (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu) : 0x10000;
		if (text_hostile_code_point(cp))
			ob_add(o, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp));
		else
			ob_add(o, (const char *)p, len);
		p += len;
	}
	ob_char(o, '"');
}

void json_write_string(FILE *f, const char *s)
{
	outbuf o;
	ob_init(&o, f);
	ob_json(&o, s);
	ob_flush(&o);
}
