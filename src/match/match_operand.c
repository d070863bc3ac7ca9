/* match_operand.c — the dims conditions read (match.h: match_dim): the one
 * place that knows how a dim is stored. */
#include <stdio.h>
#include <string.h>
#include "match/match_internal.h"

/* ---- dims ------------------------------------------------------------------- */

fd_dimv match_dim(const fd_shape *sh, int i)
{
	fd_dimv d = { DIMV_UNKNOWN, -1, NULL };
	if (!sh || i < 0 || i >= sh->rank || !sh->dims)
		return d;
	const fd_dim *x = &sh->dims[i];
	if (x->expr) {   /* a symbol or an expression over symbols, bound or not: its canonical text */
		d.kind = DIMV_SYMBOL;
		d.sym = dexpr_text(x->expr);
	} else if (x->value >= 0) {
		d.kind = DIMV_NUMBER;
		d.value = x->value;
	}
	return d;
}

bool match_dim_equal(fd_dimv a, fd_dimv b)
{
	if (a.kind == DIMV_NUMBER && b.kind == DIMV_NUMBER)
		return a.value == b.value;
	return a.kind == DIMV_SYMBOL && b.kind == DIMV_SYMBOL && (a.sym == b.sym || !strcmp(a.sym, b.sym));
}

char *match_dim_text(fd_dimv d, char *buf, size_t size)
{
	if (d.kind == DIMV_NUMBER)
		snprintf(buf, size, "%lld", (long long)d.value);
	else if (d.kind == DIMV_SYMBOL)
		snprintf(buf, size, "%s", d.sym);
	else
		snprintf(buf, size, "?");
	return buf;
}

bool match_shape_static(const fd_shape *sh)
{
	if (sh->rank < 0)
		return false;
	for (int i = 0; i < sh->rank; i++)
		if (match_dim(sh, i).kind != DIMV_NUMBER)
			return false;
	return true;
}
