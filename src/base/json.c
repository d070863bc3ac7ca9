/* json.c — JSON string literals. Foreign text may hold anything: every
 * control character (C0, DEL, the C1 range) is a \u escape, as are the
 * bidirectional controls and the line and paragraph separators (the JSON
 * may be read on a terminal); a byte of invalid UTF-8 cannot be a JSON
 * character and becomes the text \xNN (as plain text shows it, base/text.h),
 * so the output is always valid JSON in UTF-8. */
#include "base/json.h"
#include <stdint.h>
#include "base/text.h"

void json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		unsigned char c = *p;
		switch (c) {
		case '"': fputs("\\\"", f); p++; continue;
		case '\\': fputs("\\\\", f); p++; continue;
		case '\n': fputs("\\n", f); p++; continue;
		case '\r': fputs("\\r", f); p++; continue;
		case '\t': fputs("\\t", f); p++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc(c, f);
			p++;
			continue;
		}
		size_t n = 0;
		while (n < 4 && p[n])
			n++;
		size_t len = text_utf8_seq(p, n);
		if (!len) {
			fprintf(f, "\\\\x%02x", c);   /* the six characters \xNN */
			p++;
			continue;
		}
		uint32_t cp = len == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu)
		            : len == 3 ? (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu) : 0x10000;
		if (text_hostile_code_point(cp))
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(p, 1, len, f);
		p += len;
	}
	fputc('"', f);
}
