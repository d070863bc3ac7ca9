/* match_operand.c — the operand conditions of an input_sources entry (rank,
 * shape patterns with their names, static, dtype, value), and the dims they read
 * (match.h: match_dim): the one place that knows how a dim is stored.
 *
 * Shape names unify over the whole attempt: the first use of C binds it to
 * that dim (of that tensor), every later use must be the same dim — equal
 * numbers, or the same symbol. The bindings are a stack in the run state,
 * cut back when the search backtracks (match.c). */
#include <math.h>
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

/* ---- shape patterns ------------------------------------------------------------ */

static const dim_binding *bound(const match_run_state *s, int var)
{
	for (size_t k = s->binds.n; k-- > 0;)
		if (s->binds.items[k].var == var)
			return &s->binds.items[k];
	return NULL;
}

static fd_dimv bound_dim(const match_run_state *s, const dim_binding *b)
{
	return match_dim(&s->g->tensors[b->tensor].shape, b->dim);
}

/* Pattern dim p against dim i of tensor t; binds a new name. */
static bool dim_fits(match_run_state *s, const fd_sdim *p, int32_t t, int i)
{
	fd_dimv d = match_dim(&s->g->tensors[t].shape, i);
	switch (p->kind) {
	case SDIM_ANY:
	case SDIM_REST:
		return true;
	case SDIM_EXACT:
		return d.kind == DIMV_NUMBER && d.value == p->value;
	case SDIM_VAR: {
		const dim_binding *b = bound(s, p->var);
		if (b)
			return match_dim_equal(bound_dim(s, b), d);
		if (d.kind == DIMV_UNKNOWN)
			return false;
		vec_push(&s->binds, ((dim_binding){ p->var, t, i }));
		return true;
	}
	}
	return false;
}

static bool pattern_fits(match_run_state *s, const fd_shape_pattern *sp, int32_t t)
{
	const fd_shape *sh = &s->g->tensors[t].shape;
	if (sh->rank < 0)
		return false;
	if (sp->scalar) {
		for (int i = 0; i < sh->rank; i++) {
			fd_dimv d = match_dim(sh, i);
			if (d.kind != DIMV_NUMBER || d.value != 1)
				return false;
		}
		return true;
	}
	int rest = -1;
	for (int k = 0; k < sp->n_dims; k++)
		if (sp->dims[k].kind == SDIM_REST)
			rest = k;
	if (rest < 0 ? sh->rank != sp->n_dims : sh->rank < sp->n_dims - 1)
		return false;
	size_t mark = s->binds.n;
	for (int k = 0; k < sp->n_dims; k++) {
		if (k == rest)
			continue;
		int i = rest >= 0 && k > rest ? sh->rank - (sp->n_dims - k) : k;
		if (!dim_fits(s, &sp->dims[k], t, i)) {
			s->binds.n = mark;
			return false;
		}
	}
	return true;
}

/* The first name of the patterns that was bound before this check, as an
 * event's b (the text of a failure names its value and where it came from). */
static int64_t first_bound(const match_run_state *s, const fd_input_source *src)
{
	for (int p = 0; p < src->n_shapes; p++)
		for (int k = 0; k < src->shapes[p].n_dims; k++) {
			const fd_sdim *d = &src->shapes[p].dims[k];
			const dim_binding *b = d->kind == SDIM_VAR ? bound(s, d->var) : NULL;
			if (b && b->dim <= 0xffff && d->var <= 0xffff)
				return match_bound_pack(b->tensor, d->var, b->dim);
		}
	return -1;
}

/* ---- the conditions --------------------------------------------------------------- */

static bool value_equal(double have, double want, double rtol)
{
	return fabs(have - want) <= 1e-8 + rtol * fabs(want);
}

static bool values_fit(const fd_input_source *src, const fd_tensor *x)
{
	const fd_const *c = x->value;
	if (!c || (!c->i64 && !c->f64) || c->count < 1)
		return false;
	if (src->n_values > 1 && c->count != src->n_values)
		return false;
	for (int64_t k = 0; k < c->count; k++) {
		double have = c->f64 ? c->f64[k] : (double)c->i64[k];
		if (!value_equal(have, src->values[src->n_values > 1 ? k : 0], src->tolerance))
			return false;
	}
	return true;
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

fd_reason match_operand(match_run_state *s, const fd_input_source *src, int32_t t, int64_t *bound_out)
{
	const fd_tensor *x = &s->g->tensors[t];
	*bound_out = -1;
	if (src->n_ranks) {
		bool ok = false;
		for (int k = 0; k < src->n_ranks && !ok; k++)
			ok = x->shape.rank == src->ranks[k];
		if (!ok)
			return REASON_NM08_RANK;
	}
	if (src->n_shapes) {
		/* the event names a name's dim: bound before, else bound here */
		*bound_out = first_bound(s, src);
		bool ok = false;
		for (int p = 0; p < src->n_shapes && !ok; p++)
			ok = pattern_fits(s, &src->shapes[p], t);
		if (!ok)
			return REASON_NM09_SHAPE;
		if (*bound_out < 0)
			*bound_out = first_bound(s, src);
	}
	if (src->is_static >= 0 && match_shape_static(&x->shape) != (src->is_static == 1))
		return REASON_NM10_STATIC;
	if (src->n_dtypes) {
		bool ok = false;
		for (int k = 0; k < src->n_dtypes && !ok; k++)
			ok = x->dtype == src->dtypes[k];
		if (!ok)
			return REASON_NM11_DTYPE;
	}
	if (src->n_values && !values_fit(src, x))
		return REASON_NM17_VALUE;
	return REASON_NONE;
}
