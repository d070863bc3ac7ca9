/* schema.c — reading a rule document's values with the schema's messages
 * (schema.h): each reader reports its own error at the value, with the
 * field's path, and returns false. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/arena.h"
#include "rules/schema.h"

void schema_say(fd_schema *s, fd_severity sev, const fd_yval *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	yval_vdiag(s->d, sev, at, fmt, ap);
	va_end(ap);
	s->errors += sev == DIAG_ERROR;
}

void schema_say_at(fd_schema *s, fd_srcpos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(s->d, DIAG_ERROR, pos, fmt, ap);
	va_end(ap);
	s->errors++;
}

const char *schema_describe(const fd_yval *v, char *buf, size_t size)
{
	if (!v || v->kind == YV_NULL)
		snprintf(buf, size, "nothing (null)");
	else if (v->kind == YV_SEQ)
		snprintf(buf, size, "a list");
	else if (v->kind == YV_MAP)
		snprintf(buf, size, "a map");
	else
		snprintf(buf, size, "%s '%.60s%s'", yval_kind_name(v), v->text, strlen(v->text) > 60 ? "…" : "");
	return buf;
}

/* ---- typed readers: each reports its own error and returns false ---------- */

bool schema_str(fd_schema *s, const fd_yval *v, const char *path, const char **out)
{
	char b[128];
	if (v && v->kind == YV_SCALAR) {
		*out = v->text;
		return true;
	}
	ERR(s, v, "%s: expected a string, got %s", path, schema_describe(v, b, sizeof b));
	return false;
}

bool schema_int(fd_schema *s, const fd_yval *v, const char *path, int64_t min, int64_t *out)
{
	char b[128];
	int64_t x;
	if (yval_out_of_range(v)) {
		ERR(s, v, "%s: %s is out of range (integers are 64-bit)", path, v->text);
		return false;
	}
	if (!yval_int(v, &x)) {
		ERR(s, v, "%s: expected an integer, got %s", path, schema_describe(v, b, sizeof b));
		return false;
	}
	if (x < min) {
		ERR(s, v, "%s: must be >= %lld, got %lld", path, (long long)min, (long long)x);
		return false;
	}
	*out = x;
	return true;
}

bool schema_small_int(fd_schema *s, const fd_yval *v, const char *path, int64_t min, int *out)
{
	int64_t x;
	if (!schema_int(s, v, path, min, &x))
		return false;
	if (x > 1 << 30) {
		ERR(s, v, "%s: %lld is too large", path, (long long)x);
		return false;
	}
	*out = (int)x;
	return true;
}

bool schema_bool(fd_schema *s, const fd_yval *v, const char *path, bool *out)
{
	char b[128];
	if (yval_bool(v, out))
		return true;
	ERR(s, v, "%s: expected true or false, got %s", path, schema_describe(v, b, sizeof b));
	return false;
}

bool schema_bytes(fd_schema *s, const fd_yval *v, const char *path, int64_t *out)
{
	char b[128];
	double f;
	if (yval_out_of_range(v) || (yval_float(v, &f) && (f > 9.2e18 || f < -9.2e18))) {
		ERR(s, v, "%s: %s is out of range (a byte count is below 8 EiB)", path, v->text);
		return false;
	}
	if (!yval_bytes(v, out)) {
		ERR(s, v, "%s: expected a byte count (33554432, 32MiB, 64MB), got %s", path, schema_describe(v, b, sizeof b));
		return false;
	}
	/* judged on the text as written: -0.5 is negative, though it rounds to -1 or 0 */
	if (*out < 0 || (v->text[0] == '-' && strpbrk(v->text, "123456789"))) {
		ERR(s, v, "%s: must be >= 0, got %s", path, v->text);
		return false;
	}
	return true;
}

bool schema_kind(fd_schema *s, const fd_yval *v, fd_yval_kind kind, const char *path)
{
	char b[128];
	if (v && v->kind == kind)
		return true;
	ERR(s, v, "%s: expected %s, got %s", path, kind == YV_MAP ? "a map" : "a list", schema_describe(v, b, sizeof b));
	return false;
}

bool schema_count(fd_schema *s, const fd_yval *v, const char *path, size_t max, const char *what)
{
	if (!v || v->n <= max)
		return true;
	ERR(s, v, "%s: %zu %s; fusiondbg takes at most %zu (see fusiondbg-rules(5), LIMITS)", path, v->n, what, max);
	return false;
}

/* A list of strings; a single string counts as a list of one. */
int schema_strings(fd_schema *s, const fd_yval *v, const char *path, const char ***out)
{
	char b[128];
	if (v && v->kind == YV_SCALAR) {
		*out = arena_alloc(&s->rs->arena, sizeof **out);
		(*out)[0] = v->text;
		return 1;
	}
	if (!v || v->kind != YV_SEQ) {
		ERR(s, v, "%s: expected a list of strings, got %s", path, schema_describe(v, b, sizeof b));
		return 0;
	}
	*out = arena_array(&s->rs->arena, v->n ? v->n : 1, sizeof **out);
	int n = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i]->kind != YV_SCALAR) {
			ERR(s, v->items[i], "%s[%zu]: expected a string, got %s", path, i, schema_describe(v->items[i], b, sizeof b));
			continue;
		}
		(*out)[n++] = v->items[i]->text;
	}
	return n;
}

