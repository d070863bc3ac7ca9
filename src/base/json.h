/* json.h — the one JSON string writer every JSON output uses (RFC 8259
 * escaping). Writes to a caller-owned stream; owns nothing. */
#ifndef FD_JSON_H
#define FD_JSON_H
#include <stdio.h>

/* Writes s as a JSON string literal, quotes included; NULL writes "". */
void json_write_string(FILE *f, const char *s);

#endif
