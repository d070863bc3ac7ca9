/* yaml_value.c — reading the values of a YAML tree (yaml_tree.h): lookups
 * in maps, conversions of scalars to integers, numbers, booleans and byte
 * counts (YAML 1.1 spellings, the C locale), what a value is in words, and
 * messages at a value's position. Conversions never report: the schema
 * does. */
#include "rules/yaml_tree.h"
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

long yval_index(const fd_yval *map, const char *key)
{
	if (!map || map->kind != YV_MAP)
		return -1;
	for (size_t i = 0; i < map->n; i++)
		if (map->keys[i] && map->keys[i]->text && !strcmp(map->keys[i]->text, key))
			return (long)i;
	return -1;
}

const fd_yval *yval_key(const fd_yval *map, const char *key)
{
	long i = yval_index(map, key);
	return i >= 0 ? map->keys[i] : NULL;
}

const fd_yval *yval_get(const fd_yval *map, const char *key)
{
	long i = yval_index(map, key);
	return i >= 0 ? map->items[i] : NULL;
}

fd_srcpos yval_pos(const fd_yval *v)
{
	return v ? v->pos : (fd_srcpos){ 0 };
}

void yval_vdiag(fd_diags *d, fd_severity sev, const fd_yval *at, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	diag_add(d, sev, yval_pos(at), "%s", msg);
}

bool yval_is_null(const fd_yval *v)
{
	return !v || v->kind == YV_NULL;
}

/* strtod in the C locale: the TUI sets LC_ALL from the environment, and a
 * decimal comma must not turn 0.1 into 0. */
static double c_strtod(const char *s, char **end)
{
	static locale_t c_locale;
	if (!c_locale)
		c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
	double x = strtod(s, end);
	if (c_locale)
		uselocale(old);
	return x;
}

static bool plain_scalar(const fd_yval *v)
{
	return v && v->kind == YV_SCALAR && !v->quoted && v->text && *v->text;
}

bool yval_int(const fd_yval *v, int64_t *out)
{
	if (!plain_scalar(v))
		return false;
	const char *s = v->text;
	int base = 10;
	const char *digits = s + (*s == '-' || *s == '+');
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		base = 16;
	else if (digits[0] == '0' && digits[1] == 'o')
		base = 8;
	if (base != 10 && *s == '+')
		return false;
	const char *p = base == 10 ? s : digits + 2;
	const char *q = base == 10 ? digits : p;
	if (!*q)
		return false;
	for (; *q; q++)
		if (base == 16 ? !isxdigit((unsigned char)*q) : (*q < '0' || *q > (base == 8 ? '7' : '9')))
			return false;
	char *end;
	errno = 0;
	long long x = strtoll(p, &end, base);
	if (errno || *end || end == p)
		return false;
	if (base != 10 && *s == '-')
		x = -x;
	*out = x;
	return true;
}

/* s (t: past its sign) as a decimal number, all of it; *range when it
 * does not fit a double. Decimal only: strtod alone would also take "inf",
 * "nan", hex floats. */
static bool decimal(const char *s, const char *t, double *x, bool *range)
{
	for (const char *p = t; *p; p++)
		if (!strchr("0123456789.eE+-", *p))
			return false;
	char *end;
	errno = 0;
	*x = c_strtod(s, &end);
	*range = errno == ERANGE;
	return !*end && end != s;
}

bool yval_float(const fd_yval *v, double *out)
{
	if (!plain_scalar(v))
		return false;
	const char *s = v->text;
	const char *t = s + (*s == '-' || *s == '+');
	if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF")) {
		*out = *s == '-' ? -__builtin_inf() : __builtin_inf();
		return true;
	}
	if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")) {
		*out = __builtin_nan("");
		return true;
	}
	int64_t i;
	if (yval_int(v, &i)) {
		*out = (double)i;
		return true;
	}
	bool range;
	double x;
	if (!decimal(s, t, &x, &range) || range)
		return false;
	*out = x;
	return true;
}

bool yval_bool(const fd_yval *v, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF" };
	if (!plain_scalar(v))
		return false;
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
		if (!strcmp(v->text, yes[i])) {
			*out = true;
			return true;
		}
		if (!strcmp(v->text, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

bool yval_str(const fd_yval *v, const char **out)
{
	if (!v || v->kind != YV_SCALAR)
		return false;
	*out = v->text;
	return true;
}

/* A byte count: an integer, or a number with a unit (B, KB/MB/GB/TB powers of
 * 1000, KiB/MiB/GiB/TiB powers of 1024; case-insensitive, blank allowed
 * before the unit). Quoted text is accepted: "64MiB" is never anything else. */
bool yval_bytes(const fd_yval *v, int64_t *out)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "B", 1.0 },
		{ "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 },
	};
	if (!v || v->kind != YV_SCALAR || !v->text || !*v->text)
		return false;
	if (!v->quoted && yval_int(v, out))
		return true;
	const char *s = v->text;
	char *end;
	errno = 0;
	if (!strchr("0123456789.+-", *s))
		return false;
	double x = c_strtod(s, &end);
	if (end == s || errno == ERANGE)
		return false;
	for (const char *p = s; p < end; p++)
		if (!strchr("0123456789.eE+-", *p))
			return false;
	while (*end == ' ')
		end++;
	double scale = 0;
	if (!*end)
		scale = 1.0;
	for (size_t i = 0; !scale && i < sizeof units / sizeof *units; i++)
		if (!strcasecmp(end, units[i].unit))
			scale = units[i].scale;
	if (!scale)
		return false;
	double bytes = x * scale;
	if (bytes != bytes || bytes > 9.2e18 || bytes < -9.2e18)
		return false;
	*out = (int64_t)(bytes + (bytes >= 0 ? 0.5 : -0.5));
	return true;
}

/* Decimal number syntax (what yval_float reads) whose value does not fit. */
bool yval_out_of_range(const fd_yval *v)
{
	if (!plain_scalar(v))
		return false;
	const char *s = v->text, *t = s + (*s == '-' || *s == '+');
	if (!isdigit((unsigned char)*t) && !(*t == '.' && isdigit((unsigned char)t[1])))
		return false;
	double x;
	bool range;
	if (!decimal(s, t, &x, &range))
		return false;
	if (range && (x > 1.0 || x < -1.0))
		return true;   /* 1e309; an underflow (1e-400) reads as 0 elsewhere */
	int64_t i;
	bool digits_only = true;
	for (const char *p = t; *p; p++)
		digits_only = digits_only && isdigit((unsigned char)*p);
	return digits_only && !yval_int(v, &i);   /* 99999999999999999999 */
}

/* ---- what a YAML 1.1 reader makes of a plain scalar -------------------------- */

typedef enum { Y11_STR, Y11_NULL, Y11_BOOL, Y11_INT, Y11_FLOAT } y11_kind;

static bool all_of(const char *s, const char *set)
{
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

/* "1:20:30" after a leading [1-9][0-9_]*: groups of ":[0-5]?[0-9]". */
static bool sexagesimal_tail(const char *s)
{
	if (*s != ':')
		return false;
	while (*s == ':') {
		s++;
		if (!isdigit((unsigned char)*s))
			return false;
		if (isdigit((unsigned char)s[1])) {
			if (*s > '5')
				return false;
			s++;
		}
		s++;
	}
	return *s == '\0';
}

/* PyYAML's implicit resolvers (bool, int, float, null), by hand; the value
 * of an integer or a float in *num. */
static y11_kind yaml11_read(const char *s, long double *num, bool *truth)
{
	static const char *const yes[] = { "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON" };
	static const char *const no[] = { "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF" };
	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
		return Y11_NULL;
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*truth = !strcmp(s, yes[i]);
			return Y11_BOOL;
		}
	const char *t = s + (*s == '-' || *s == '+');
	bool neg = *s == '-';
	char clean[128];
	size_t n = 0;
	for (const char *p = t; *p && n + 1 < sizeof clean; p++)
		if (*p != '_')
			clean[n++] = *p;
	clean[n] = '\0';
	if (strlen(t) >= sizeof clean - 1)
		return Y11_STR;
	/* integers */
	if (t[0] == '0' && t[1] == 'b' && t[2] && all_of(t + 2, "01_")) {
		*num = (long double)strtoull(clean + 2, NULL, 2) * (neg ? -1 : 1);
		return Y11_INT;
	}
	if (t[0] == '0' && t[1] == 'x' && t[2] && all_of(t + 2, "0123456789abcdefABCDEF_")) {
		*num = (long double)strtoull(clean + 2, NULL, 16) * (neg ? -1 : 1);
		return Y11_INT;
	}
	if (t[0] == '0' && t[1] && all_of(t + 1, "01234567_")) {
		*num = (long double)strtoull(clean, NULL, 8) * (neg ? -1 : 1);
		return Y11_INT;
	}
	if (!strcmp(t, "0") || (t[0] >= '1' && t[0] <= '9' && all_of(t, "0123456789_"))) {
		*num = strtold(clean, NULL) * (neg ? -1 : 1);
		return Y11_INT;
	}
	if (t[0] >= '1' && t[0] <= '9') {
		const char *colon = strchr(t, ':');
		if (colon && sexagesimal_tail(colon)) {
			bool lead_ok = true;
			for (const char *p = t; p < colon; p++)
				lead_ok = lead_ok && (isdigit((unsigned char)*p) || *p == '_');
			if (lead_ok) {
				long double v = 0;
				for (const char *p = clean; *p;) {
					v = v * 60 + strtold(p, (char **)&p);
					if (*p == ':')
						p++;
				}
				*num = neg ? -v : v;
				return Y11_INT;
			}
		}
	}
	/* floats: [-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?  |  \.[0-9_]+(...)?  | .inf | .nan */
	if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF")) {
		*num = neg ? -__builtin_infl() : __builtin_infl();
		return Y11_FLOAT;
	}
	if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")) {
		*num = __builtin_nanl("");
		return Y11_FLOAT;
	}
	const char *p = t;
	bool lead = isdigit((unsigned char)*p);
	if (!lead && (*p != '.' || p != s))   /* ".5" only without a sign */
		return Y11_STR;
	while (isdigit((unsigned char)*p) || (lead && *p == '_'))
		p++;
	if (*p != '.')
		return Y11_STR;
	p++;
	const char *frac = p;
	while (isdigit((unsigned char)*p) || *p == '_')
		p++;
	if (!lead && p == frac)
		return Y11_STR;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p != '-' && *p != '+')
			return Y11_STR;
		p++;
		if (!isdigit((unsigned char)*p))
			return Y11_STR;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p)
		return Y11_STR;
	*num = strtold(clean, NULL) * (neg ? -1 : 1);
	return Y11_FLOAT;
}

bool yval_yaml11_typed(const char *plain)
{
	long double num;
	bool truth;
	return yaml11_read(plain ? plain : "", &num, &truth) != Y11_STR;
}

bool yval_yaml11_agrees(const char *plain)
{
	fd_yval v = { .kind = YV_SCALAR, .text = plain ? plain : "", .text_len = plain ? strlen(plain) : 0 };
	long double num = 0;
	bool truth = false, b;
	int64_t i;
	double f;
	y11_kind k = yaml11_read(v.text, &num, &truth);
	if (!*v.text || !strcmp(v.text, "~") || !strcmp(v.text, "null") || !strcmp(v.text, "Null") ||
	    !strcmp(v.text, "NULL"))
		return k == Y11_NULL;
	if (yval_bool(&v, &b))
		return k == Y11_BOOL && b == truth;
	if (yval_int(&v, &i))
		return (k == Y11_INT || k == Y11_FLOAT) && num == (long double)i;
	if (yval_float(&v, &f))
		return (k == Y11_FLOAT || k == Y11_INT) && ((f != f && num != num) || (long double)f == num ||
		                                            (double)num == f);
	return k == Y11_STR;
}

const char *yval_kind_name(const fd_yval *v)
{
	if (!v || v->kind == YV_NULL)
		return "null";
	if (v->kind == YV_SEQ)
		return "list";
	if (v->kind == YV_MAP)
		return "map";
	int64_t i;
	double f;
	bool b;
	if (v->quoted)
		return "string";
	if (yval_int(v, &i))
		return "integer";
	if (yval_float(v, &f))
		return "number";
	if (yval_bool(v, &b))
		return "boolean";
	if (yval_out_of_range(v))
		return "number out of range";
	return "string";
}

fd_srcpos yval_text_pos(const fd_yval *v, size_t at)
{
	fd_srcpos pos = yval_pos(v);
	if (!v)
		return pos;
	size_t span = v->end - v->start, quotes = v->quoted ? 2 : 0;
	if (!v->text || memchr(v->text, '\n', v->text_len) || span != v->text_len + quotes || at > v->text_len)
		return pos;
	int chars = 0;
	for (size_t i = 0; i < at; i++)
		chars += ((unsigned char)v->text[i] & 0xc0) != 0x80;   /* columns count characters */
	pos.col += chars + (v->quoted ? 1 : 0);
	return pos;
}
