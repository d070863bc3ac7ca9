/* pbtxt_value.c — a field's value read as the type its schema gives it
 * (pbtxt.h): integers in decimal, hex and octal with overflow checked,
 * floats, booleans, enums by name, strings and messages; a value of the
 * wrong kind is one error at the value naming the field. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ge/pbtxt.h"

static int wrong(const pbtxt_doc *doc, const pbtxt_node *f, fd_diags *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int wrong(const pbtxt_doc *doc, const pbtxt_node *f, fd_diags *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, DIAG_ERROR, pbtxt_value_pos(doc, f), fmt, ap);
	va_end(ap);
	return -1;
}

/* What a field holds, for a message: "a message", "a string", "'abc'". */
static const char *holds(const pbtxt_node *f, char *buf, size_t size)
{
	if (f->kind == PBTXT_MESSAGE)
		return "a message";
	if (f->kind == PBTXT_STRING)
		return "a string";
	snprintf(buf, size, "'%.*s'", (int)(f->len > 40 ? 40 : f->len), f->text);
	return buf;
}

const pbtxt_node *pbtxt_find(const pbtxt_node *msg, const char *name)
{
	const pbtxt_node *last = NULL;
	for (const pbtxt_node *f = msg ? msg->first : NULL; f; f = f->next)
		if (!strcmp(f->name, name))
			last = f;
	return last;
}

int pbtxt_int(const pbtxt_doc *doc, const pbtxt_node *f, int64_t *out, fd_diags *d)
{
	char what[64];
	if (f->kind != PBTXT_NUMBER)
		return wrong(doc, f, d, "'%s' should be an integer, not %s", f->name, holds(f, what, sizeof what));
	const char *s = f->text;
	bool neg = s[0] == '-';
	const char *digits = s + neg;
	int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : digits[0] == '0' && digits[1] ? 8 : 10;
	if (base != 16 && strpbrk(digits, ".eEfF"))
		return wrong(doc, f, d, "'%s' should be an integer, not %s", f->name, holds(f, what, sizeof what));
	errno = 0;
	char *end;
	unsigned long long v = strtoull(base == 16 ? digits + 2 : digits, &end, base);
	if (errno || *end || v > (unsigned long long)INT64_MAX + neg)
		return wrong(doc, f, d, "'%s' is %s, outside the 64-bit integers", f->name, holds(f, what, sizeof what));
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int pbtxt_float(const pbtxt_doc *doc, const pbtxt_node *f, double *out, fd_diags *d)
{
	char what[64];
	if (f->kind == PBTXT_IDENT) {
		const char *w = f->text + (f->text[0] == '-');
		double sign = f->text[0] == '-' ? -1 : 1;
		if (!strcasecmp(w, "inf") || !strcasecmp(w, "infinity")) {
			*out = sign * INFINITY;
			return 0;
		}
		if (!strcasecmp(w, "nan")) {
			*out = NAN;
			return 0;
		}
	}
	if (f->kind != PBTXT_NUMBER)
		return wrong(doc, f, d, "'%s' should be a number, not %s", f->name, holds(f, what, sizeof what));
	const char *digits = f->text + (f->text[0] == '-');
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X' || (digits[1] >= '0' && digits[1] <= '7'))) {
		int64_t v;   /* hex and octal are integers, taken as such */
		if (pbtxt_int(doc, f, &v, d))
			return -1;
		*out = (double)v;
		return 0;
	}
	char *end;
	*out = strtod(f->text, &end);   /* the lexer checked the form; an f suffix is left */
	if (*end && *end != 'f' && *end != 'F')
		return wrong(doc, f, d, "'%s' should be a number, not %s", f->name, holds(f, what, sizeof what));
	return 0;
}

int pbtxt_bool(const pbtxt_doc *doc, const pbtxt_node *f, bool *out, fd_diags *d)
{
	static const char *const yes[] = { "true", "True", "t", "1" }, *const no[] = { "false", "False", "f", "0" };
	char what[64];
	for (size_t k = 0; f->kind != PBTXT_STRING && f->kind != PBTXT_MESSAGE && k < 4; k++) {
		if (!strcmp(f->text, yes[k])) {
			*out = true;
			return 0;
		}
		if (!strcmp(f->text, no[k])) {
			*out = false;
			return 0;
		}
	}
	return wrong(doc, f, d, "'%s' should be true or false, not %s", f->name, holds(f, what, sizeof what));
}

int pbtxt_string(const pbtxt_doc *doc, const pbtxt_node *f, const char **out, size_t *len, fd_diags *d)
{
	char what[64];
	if (f->kind != PBTXT_STRING)
		return wrong(doc, f, d, "'%s' should be a string, not %s", f->name, holds(f, what, sizeof what));
	*out = f->text;
	if (len)
		*len = f->len;
	return 0;
}

int pbtxt_message(const pbtxt_doc *doc, const pbtxt_node *f, fd_diags *d)
{
	char what[64];
	if (f->kind != PBTXT_MESSAGE)
		return wrong(doc, f, d, "'%s' should be a message, not %s", f->name, holds(f, what, sizeof what));
	return 0;
}

int pbtxt_enum(const pbtxt_doc *doc, const pbtxt_node *f, const char *const *names, int n, int64_t *out,
               fd_diags *d)
{
	char what[64];
	if (f->kind == PBTXT_NUMBER)
		return pbtxt_int(doc, f, out, d);
	if (f->kind != PBTXT_IDENT)
		return wrong(doc, f, d, "'%s' should be an enum value, not %s", f->name, holds(f, what, sizeof what));
	for (int k = 0; k < n; k++)
		if (names[k] && !strcmp(names[k], f->text)) {
			*out = k;
			return 0;
		}
	return wrong(doc, f, d, "'%s' has no value named %s", f->name, holds(f, what, sizeof what));
}
