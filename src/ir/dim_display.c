/* dim_display.c — dims as the user reads them. A dim whose symbols are all
 * bound is its number; a partly bound one is its formula in what is left
 * (floor((W+3)/8) at W=320 is 40, batch*floor((W+3)/8) is 40*batch); a long
 * exporter symbol ("p2o.DynamicDimension.0", a name with '/' in it) reads
 * as a short alias ("d0") that the legends of info, the TUI and pictures
 * spell out. Whether text is ASCII (dim_display_set_ascii) is decided once
 * by the front end from the locale. */
#include <stdio.h>
#include <string.h>
#include "ir/dim_internal.h"

static bool display_ascii;

void dim_display_set_ascii(bool ascii)
{
	display_ascii = ascii;
}

bool dim_display_ascii(void)
{
	return display_ascii;
}

/* Long enough to crowd a shape, or spelled with an operator's character. */
static bool wants_alias(const char *name)
{
	return strlen(name) > 16 || strchr(name, '/') || strchr(name, '.') || strchr(name, ':');
}

bool dimtab_symbol_alias(const fd_dimtab *t, int32_t i, char *buf, size_t size)
{
	if (!t || i < 0 || i >= dimtab_n_symbols(t) || !wants_alias(dimtab_symbol_name(t, i)))
		return false;
	int k = 0;   /* the aliases before i, skipping names the model already has */
	for (int32_t j = 0; j <= i; j++) {
		if (!wants_alias(dimtab_symbol_name(t, j)))
			continue;
		do
			snprintf(buf, size, "d%d", k++);
		while (dimtab_find_symbol(t, buf) >= 0);
	}
	return true;
}

/* A character that can continue a symbol's name: a match ending before one
 * is part of a longer name (DynamicDimension.1 in DynamicDimension.10). */
static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

size_t dim_alias_text(const fd_dimtab *t, const char *in, char *buf, size_t size)
{
	size_t at = 0;
	int32_t n = dimtab_n_symbols(t);
	if (size == 0)
		return 0;
	while (*in && at + 1 < size) {
		int32_t best = -1;
		size_t best_len = 0;
		for (int32_t i = 0; i < n; i++) {
			const char *s = dimtab_symbol_name(t, i);
			size_t len = strlen(s);
			if (len > best_len && wants_alias(s) && !strncmp(in, s, len) && !name_char(in[len])) {
				best = i;
				best_len = len;
			}
		}
		char alias[16];
		if (best >= 0 && dimtab_symbol_alias(t, best, alias, sizeof alias)) {
			at += (size_t)snprintf(buf + at, size - at, "%s", alias);
			in += best_len;
			/* the rest of a name is never matched from its middle */
			continue;
		}
		/* copy one name (or one other character) whole */
		if (name_char(*in)) {
			while (name_char(*in) && at + 1 < size)
				buf[at++] = *in++;
		} else {
			buf[at++] = *in++;
		}
	}
	if (at >= size)
		at = size - 1;
	buf[at] = '\0';
	return at;
}

char *dexpr_display(const fd_dexpr *e, char *buf, size_t size)
{
	fd_sint s = sint_partial((fd_sint){ 0, e });
	int64_t v;
	if (!s.e && sint_value(s, &v)) {
		snprintf(buf, size, "%lld", (long long)v);
		return buf;
	}
	dim_alias_text(e->tab, dexpr_text(s.e ? s.e : e), buf, size);
	return buf;
}

char *dim_format(fd_dim d, char *buf, size_t size)
{
	if (d.value >= 0)
		snprintf(buf, size, "%lld", (long long)d.value);
	else if (d.expr)
		dexpr_display(d.expr, buf, size);
	else
		snprintf(buf, size, "?");
	return buf;
}

int32_t dimtab_find_name_or_alias(const fd_dimtab *t, const char *name)
{
	int32_t i = dimtab_find_symbol(t, name);
	char alias[16];
	for (int32_t k = 0; i < 0 && name && k < dimtab_n_symbols(t); k++)
		if (dimtab_symbol_alias(t, k, alias, sizeof alias) && !strcmp(alias, name))
			i = k;
	return i;
}

const char *dimtab_display_name(const fd_dimtab *t, const char *name, char *buf, size_t size)
{
	if (t && dimtab_symbol_alias(t, dimtab_find_symbol(t, name), buf, size))
		return buf;
	return name;
}
