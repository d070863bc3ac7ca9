/* cond_operand.c — the operand conditions of an input_sources entry: rank,
 * shape (patterns with names), static, dtype (its list; a dtype tied by
 * same_as is cond_dtype_same_as.c's), value (with its tolerance) and
 * qdq_dtype (what the data runs as is cond_qdq_dtype.c's), each a row that
 * cond_check_event runs in list order in one OPERAND event, the first that
 * fails deciding (conditions.h); the event's begin and end are here.
 *
 * Shape names unify over the whole attempt: the first use of C binds it to
 * that dim (of that tensor), every later use must be the same dim — equal
 * numbers, or the same symbol. The bindings are a stack in the run state,
 * cut back when the search backtracks (match.c). An event records the
 * first name of the patterns bound before it (or by it), so its words can
 * say "with C = 64 (dim 0 of conv1.weight)". */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "base/strbuf.h"
#include "base/text.h"
#include "ir/dtype.h"
#include "match/cond_operand.h"
#include "match/conditions.h"
#include "match/cond_qdq_dtype.h"
#include "match/match_internal.h"

/* ---- the family: one event for every operand condition of an entry ------------ */

/* A condition's verdict when explaining: the event's. */
fd_reason cond_operand_recorded(const fd_cond_check *c, fd_reason own)
{
	return c->ev->status == ST_FAIL && c->ev->reason == own ? own : REASON_NONE;
}

/* Adds a stated condition's words: its expected part, what it shows of the
 * operand, and — the first stated one, then the failing one — its key. */
void cond_operand_note(const fd_cond_check *c, fd_cond_facts *f, fd_reason r, const char *key, unsigned shows,
                       const char *expected)
{
	size_t at = strlen(f->expected);
	text_appendf(f->expected, sizeof f->expected, at, "%s%s", at ? ", " : "", expected);
	f->shows |= shows;
	if (f->reason || (f->path[0] && !r))
		return;
	/* a passing event points at the inputK map, a failing one at the key */
	const fd_yval *k = r ? yval_get(c->input->where, key) : NULL;
	f->decided = k ? k : c->input->where;
	snprintf(f->path, sizeof f->path, "input_sources.input%d.%s", c->input->input, key);
	f->reason = r;
}

/* ---- rank ------------------------------------------------------------------------ */

static bool parse_ints(fd_schema *s, const fd_yval *v, const char *path, int **out, int *n);

bool cond_rank_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	return parse_ints(s, v, path, &at->input->ranks, &at->input->n_ranks);
}

void cond_rank_describe(const fd_cond_check *c, char *buf, size_t size)
{
	size_t at = text_appendf(buf, size, 0, "rank ");
	for (int k = 0; k < c->input->n_ranks; k++)
		at = text_appendf(buf, size, at, "%s%d", k ? " | " : "", c->input->ranks[k]);
}

fd_reason cond_rank_check(fd_cond_check *c, fd_cond_facts *w)
{
	const fd_input_source *src = c->input;
	fd_reason r = REASON_NONE;
	if (c->ev) {
		r = cond_operand_recorded(c, REASON_NM08_RANK);
	} else {
		bool ok = false;
		for (int k = 0; k < src->n_ranks && !ok; k++)
			ok = c->g->tensors[c->tensor].shape.rank == src->ranks[k];
		r = ok ? REASON_NONE : REASON_NM08_RANK;
	}
	if (w) {
		char e[128];
		cond_rank_describe(c, e, sizeof e);
		cond_operand_note(c, w, r, "rank", SHOW_SHAPE, e);
	}
	return r;
}

/* ---- shape ------------------------------------------------------------------------ */

/* The index of dim name `name` in the rule's table, added when new. */
static int dimvar(fd_schema *s, const char *name)
{
	fd_rule *r = s->r;
	for (int i = 0; i < r->n_dimvars; i++)
		if (!strcmp(r->dimvars[i], name))
			return i;
	const char **grown = arena_array(&s->rs->arena, (size_t)r->n_dimvars + 1, sizeof *grown);
	if (r->n_dimvars)
		memcpy(grown, r->dimvars, (size_t)r->n_dimvars * sizeof *grown);
	grown[r->n_dimvars] = name;
	r->dimvars = grown;
	return r->n_dimvars++;
}

static bool is_name(const char *t)
{
	if (!((t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z')))
		return false;
	for (const char *c = t; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

/* "1...": an integer >= 0 written with "..." after it, into *x. */
static bool repeated_literal(const fd_yval *d, int64_t *x)
{
	if (d->kind != YV_SCALAR)   /* quoted or not alike, as every dim */
		return false;
	size_t n = strlen(d->text);
	if (n < 4 || strcmp(d->text + n - 3, "..."))
		return false;
	int64_t v = 0;
	for (size_t k = 0; k + 3 < n; k++) {
		if (d->text[k] < '0' || d->text[k] > '9' || v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (d->text[k] - '0');
	}
	*x = v;
	return true;
}

/* One pattern: `scalar`, or a list of dims. */
static bool parse_shape_pattern(fd_schema *s, fd_shape_pattern *sp, const fd_yval *v, const char *path)
{
	char b[128];
	memset(sp, 0, sizeof *sp);
	sp->where = v;
	/* quoted or not alike: the seed's style quotes every string */
	if (v->kind == YV_SCALAR && !strcmp(v->text, "scalar")) {
		sp->scalar = true;
		return true;
	}
	if (v->kind != YV_SEQ) {
		ERR(s, v, "%s: expected a shape ([C, 1, 1], [], scalar), got %s", path, schema_describe(v, b, sizeof b));
		return false;
	}
	if (!schema_count(s, v, path, FD_RULE_MAX_ITEMS, "dims"))
		return false;
	sp->dims = arena_array(&s->rs->arena, v->n ? v->n : 1, sizeof *sp->dims);
	bool ok = true, rest = false;
	for (size_t i = 0; i < v->n; i++) {
		const fd_yval *d = v->items[i];
		fd_sdim *sd = &sp->dims[sp->n_dims];
		int64_t x;
		if (yval_int(d, &x) && x >= 0) {
			*sd = (fd_sdim){ SDIM_EXACT, -1, x };
		} else if (d->kind == YV_SCALAR && !strcmp(d->text, "_")) {
			*sd = (fd_sdim){ SDIM_ANY, -1, 0 };
		} else if (d->kind == YV_SCALAR && !strcmp(d->text, "...")) {
			if (rest || (sp->n_dims && sp->dims[sp->n_dims - 1].kind == SDIM_REPEAT)) {
				ERR(s, d, "%s[%zu]: '...' is written twice in one shape", path, i);
				ok = false;
				continue;
			}
			rest = true;
			*sd = (fd_sdim){ SDIM_REST, -1, 0 };
		} else if (repeated_literal(d, &x)) {
			if (i + 1 != v->n || rest) {
				ERR(s, d, "%s[%zu]: '%s' repeats its dim for every dim left, so it is the last dim of a shape "
				    "without '...'", path, i, d->text);
				ok = false;
				continue;
			}
			*sd = (fd_sdim){ SDIM_REPEAT, -1, x };
		} else if (d->kind == YV_SCALAR && is_name(d->text) && strcmp(d->text, "scalar")) {
			*sd = (fd_sdim){ SDIM_VAR, dimvar(s, d->text), 0 };
		} else {
			ERR(s, d, "%s[%zu]: expected a dim (an integer >= 0, _ for any, ... for any number of dims, 1... for "
			    "every dim left 1, or a name such as C), got %s", path, i, schema_describe(d, b, sizeof b));
			ok = false;
			continue;
		}
		sp->n_dims++;
	}
	return ok;
}

/* shape: one pattern, or a list of patterns. */
bool cond_shape_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	fd_input_source *is = at->input;
	bool list = v->kind == YV_SEQ && v->n > 0;
	size_t lists = 0;
	for (size_t i = 0; list && i < v->n; i++)
		lists += v->items[i]->kind == YV_SEQ ||
		         (v->items[i]->kind == YV_SCALAR && !strcmp(v->items[i]->text, "scalar"));
	if (list && lists && lists != v->n) {
		ERR(s, v, "%s: mixes dims and shapes; write one shape [C, 1, 1] or a list of shapes [[C, 1, 1], [1, C, 1, 1]]",
		    path);
		return false;
	}
	bool alternatives = list && lists == v->n;
	if (alternatives && !schema_count(s, v, path, FD_RULE_MAX_ITEMS, "shapes"))
		return false;
	size_t n = alternatives ? v->n : 1;
	bool ok = true;
	is->shapes = arena_array(&s->rs->arena, n, sizeof *is->shapes);
	for (size_t i = 0; i < n; i++) {
		char q[320];
		snprintf(q, sizeof q, alternatives ? "%.200s[%zu]" : "%.200s", path, i);
		if (parse_shape_pattern(s, &is->shapes[is->n_shapes], alternatives ? v->items[i] : v, q))
			is->n_shapes++;
		else
			ok = false;
	}
	return ok;
}

static const dim_binding *bound(const binding_vec *binds, int var)
{
	for (size_t k = binds->n; k-- > 0;)
		if (binds->items[k].var == var)
			return &binds->items[k];
	return NULL;
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
	case SDIM_REPEAT:
		return d.kind == DIMV_NUMBER && d.value == p->value;
	case SDIM_VAR: {
		const dim_binding *b = bound(&s->binds, p->var);
		if (b)
			return match_dim_equal(match_dim(&s->g->tensors[b->tensor].shape, b->dim), d);
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
	bool repeat = sp->n_dims && sp->dims[sp->n_dims - 1].kind == SDIM_REPEAT;
	if (rest < 0 && !repeat ? sh->rank != sp->n_dims : sh->rank < sp->n_dims - 1)
		return false;
	/* the repeated dim is every dim from its place on */
	for (int i = sp->n_dims - 1; repeat && i < sh->rank; i++)
		if (!dim_fits(s, &sp->dims[sp->n_dims - 1], t, i))
			return false;
	size_t mark = s->binds.n;
	for (int k = 0; k < sp->n_dims; k++) {
		if (k == rest || (repeat && k == sp->n_dims - 1))
			continue;
		int i = rest >= 0 && k > rest ? sh->rank - (sp->n_dims - k) : k;
		if (!dim_fits(s, &sp->dims[k], t, i)) {
			s->binds.n = mark;
			return false;
		}
	}
	return true;
}

/* The first name of the patterns that is bound now, as an event's b. */
static int64_t first_bound(const match_run_state *s, const fd_input_source *src)
{
	for (int p = 0; p < src->n_shapes; p++)
		for (int k = 0; k < src->shapes[p].n_dims; k++) {
			const fd_sdim *d = &src->shapes[p].dims[k];
			const dim_binding *b = d->kind == SDIM_VAR ? bound(&s->binds, d->var) : NULL;
			if (b && b->dim <= 0xffff && d->var <= 0xffff)
				return match_bound_pack(b->tensor, d->var, b->dim);
		}
	return -1;
}

static void pattern_text(const fd_rule *rule, const fd_shape_pattern *sp, char *buf, size_t size, size_t *at)
{
	if (sp->scalar) {
		*at = text_appendf(buf, size, *at, "scalar");
		return;
	}
	*at = text_appendf(buf, size, *at, "[");
	for (int k = 0; k < sp->n_dims; k++) {
		const fd_sdim *d = &sp->dims[k];
		const char *sep = k ? ", " : "";
		switch (d->kind) {
		case SDIM_EXACT: *at = text_appendf(buf, size, *at, "%s%lld", sep, (long long)d->value); break;
		case SDIM_ANY: *at = text_appendf(buf, size, *at, "%s_", sep); break;
		case SDIM_REST: *at = text_appendf(buf, size, *at, "%s...", sep); break;
		case SDIM_REPEAT: *at = text_appendf(buf, size, *at, "%s%lld...", sep, (long long)d->value); break;
		case SDIM_VAR: *at = text_appendf(buf, size, *at, "%s%s", sep, d->var < rule->n_dimvars ? rule->dimvars[d->var] : "?"); break;
		}
	}
	*at = text_appendf(buf, size, *at, "]");
}

void cond_shape_describe(const fd_cond_check *c, char *buf, size_t size)
{
	size_t at = text_appendf(buf, size, 0, "shape ");
	for (int p = 0; p < c->input->n_shapes; p++) {
		if (p)
			at = text_appendf(buf, size, at, " | ");
		pattern_text(c->rule, &c->input->shapes[p], buf, size, &at);
	}
}

/* "C = 64 (dim 0 of conv1.weight)": the name c->bound records. */
static void binding_text(const fd_cond_check *c, char *buf, size_t size)
{
	int32_t t;
	int var, dim;
	buf[0] = '\0';
	if (!match_bound_unpack(c->bound, &t, &var, &dim))
		return;
	char d[64];
	snprintf(buf, size, "%s = %s (dim %d of %s)", var < c->rule->n_dimvars ? c->rule->dimvars[var] : "?",
	         match_dim_text(match_dim(&c->g->tensors[t].shape, dim), d, sizeof d), dim,
	         t >= 0 && t < c->g->n_tensors ? c->g->tensors[t].name : "-");
}

fd_reason cond_shape_check(fd_cond_check *c, fd_cond_facts *w)
{
	const fd_input_source *src = c->input;
	fd_reason r = REASON_NONE;
	if (c->ev) {
		r = cond_operand_recorded(c, REASON_NM09_SHAPE);
	} else {
		match_run_state *s = c->run;
		/* the event names a name's dim: bound before, else bound here */
		c->bound = first_bound(s, src);
		bool ok = false;
		for (int p = 0; p < src->n_shapes && !ok; p++)
			ok = pattern_fits(s, &src->shapes[p], c->tensor);
		r = ok ? REASON_NONE : REASON_NM09_SHAPE;
		if (ok && c->bound < 0)
			c->bound = first_bound(s, src);
	}
	if (w) {
		char e[128];
		size_t size = sizeof e;
		cond_shape_describe(c, e, size);
		if (!(c->ev && c->ev->reason == REASON_NM23_DTYPE_SAME_AS))   /* then bound is the tied tensor */
			binding_text(c, w->binding, sizeof w->binding);
		if (w->binding[0])
			text_appendf(e, size, strlen(e), " with %s", w->binding);
		cond_operand_note(c, w, r, "shape", SHOW_SHAPE, e);
	}
	return r;
}

/* ---- static ------------------------------------------------------------------------ */

bool cond_static_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	bool flag;
	if (!schema_bool(s, v, path, &flag))
		return false;
	at->input->is_static = flag;
	return true;
}

void cond_static_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s", c->input->is_static ? "static dims" : "a dynamic dim");
}

fd_reason cond_static_check(fd_cond_check *c, fd_cond_facts *w)
{
	const fd_input_source *src = c->input;
	fd_reason r = c->ev ? cond_operand_recorded(c, REASON_NM10_STATIC)
	            : match_shape_static(&c->g->tensors[c->tensor].shape) != src->is_static ? REASON_NM10_STATIC
	                                                                                        : REASON_NONE;
	if (w) {
		char e[64];
		cond_static_describe(c, e, sizeof e);
		cond_operand_note(c, w, r, "static", SHOW_SHAPE | SHOW_STATIC, e);
	}
	return r;
}

/* ---- dtype ------------------------------------------------------------------------- */

/* A value that may be one item or a list of them: how many items (0 on an
 * error, reported). */
static size_t items_of(fd_schema *s, const fd_yval *v, const char *path, const char *what)
{
	size_t n = v->kind == YV_SEQ ? v->n : 1;
	if (v->kind == YV_SEQ && n == 0)
		ERR(s, v, "%s: the list is empty", path);
	if (n == 0 || (v->kind == YV_SEQ && !schema_count(s, v, path, FD_RULE_MAX_ITEMS, what)))
		return 0;
	return n;
}

/* Item i of such a value, and its path. */
static const fd_yval *item_at(const fd_yval *v, size_t i, const char *path, char *q, size_t size)
{
	snprintf(q, size, v->kind == YV_SEQ ? "%.200s[%zu]" : "%.200s", path, i);
	return v->kind == YV_SEQ ? v->items[i] : v;
}

/* An integer >= 0, or a list of them. */
static bool parse_ints(fd_schema *s, const fd_yval *v, const char *path, int **out, int *count)
{
	size_t n = items_of(s, v, path, "values");
	if (!n)
		return false;
	*out = arena_array(&s->rs->arena, n, sizeof **out);
	bool ok = true;
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		char q[320];
		if (schema_small_int(s, item_at(v, i, path, q, sizeof q), q, 0, &(*out)[*count]))
			++*count;
		else
			ok = false;
	}
	return ok;
}

bool cond_dtype_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	if (v->kind == YV_MAP) {
		at->states = false;   /* {same_as: …}: its own entry's (cond_dtype_same_as.c) */
		return true;
	}
	return cond_dtype_list_parse(s, v, path, &at->input->dtypes, &at->input->n_dtypes);
}

bool cond_dtype_list_parse(fd_schema *s, const fd_yval *v, const char *path, int32_t **out, int *count)
{
	size_t n = items_of(s, v, path, "dtypes");
	if (!n)
		return false;
	bool ok = true;
	*out = arena_array(&s->rs->arena, n, sizeof **out);
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		char q[320];
		const char *name;
		const fd_yval *d = item_at(v, i, path, q, sizeof q);
		if (!schema_str(s, d, q, &name)) {
			ok = false;
			continue;
		}
		int32_t dt = dtype_from_name(name);
		if (dt < 0 || dt == DT_UNDEFINED) {
			char hint[300];
			ERR(s, d, "%s: unknown dtype '%s'%s (known: float32, float16, bfloat16, float64, int8, uint8, int16, "
			    "int32, int64, bool, …)", q, name, dtype_hint(name, hint, sizeof hint));
			ok = false;
			continue;
		}
		(*out)[(*count)++] = dt;
	}
	return ok;
}

void cond_dtype_describe(const fd_cond_check *c, char *buf, size_t size)
{
	size_t at = text_appendf(buf, size, 0, "dtype ");
	for (int k = 0; k < c->input->n_dtypes; k++)
		at = text_appendf(buf, size, at, "%s%s", k ? " | " : "", dtype_name(c->input->dtypes[k]));
}

fd_reason cond_dtype_check(fd_cond_check *c, fd_cond_facts *w)
{
	const fd_input_source *src = c->input;
	fd_reason r = REASON_NONE;
	if (c->ev) {
		r = cond_operand_recorded(c, REASON_NM11_DTYPE);
	} else {
		bool ok = false;
		for (int k = 0; k < src->n_dtypes && !ok; k++)
			ok = c->g->tensors[c->tensor].dtype == src->dtypes[k];
		r = ok ? REASON_NONE : REASON_NM11_DTYPE;
	}
	if (w) {
		char e[128];
		cond_dtype_describe(c, e, sizeof e);
		cond_operand_note(c, w, r, "dtype", SHOW_DTYPE, e);
	}
	return r;
}

/* ---- qdq_dtype ------------------------------------------------------------------------ */

/* The node the operand is read by: the unit, when it is a node. */
static int32_t operand_node(const fd_cond_check *c)
{
	return c->unit >= 0 && c->unit < c->g->n_nodes ? c->unit : FD_NONE;
}

fd_reason cond_qdq_dtype_check(fd_cond_check *c, fd_cond_facts *w)
{
	const fd_input_source *src = c->input;
	char why[256];
	int32_t data;
	int32_t dt = cond_qdq_dtype_of(c->ix, c->ctx->model, operand_node(c), c->slot, c->tensor, &data, why, sizeof why);
	fd_reason r = REASON_NONE;
	if (c->ev) {
		r = cond_operand_recorded(c, REASON_NM20_QDQ_DTYPE);
	} else {
		bool ok = false;
		for (int k = 0; k < src->n_qdq_dtypes && !ok; k++)
			ok = dt == src->qdq_dtypes[k];
		r = ok ? REASON_NONE : REASON_NM20_QDQ_DTYPE;
	}
	if (w) {
		char e[128];
		cond_qdq_dtype_describe(c, e, sizeof e);
		cond_operand_note(c, w, r, "qdq_dtype", SHOW_QDQ, e);
		/* a failure says why the data runs as it does, naming the data a zero point belongs to */
		if (r && w->reason == r)
			text_cutf(w->reason_text, sizeof w->reason_text, "%s runs as %s%s%s%s",
			          data >= 0 ? c->g->tensors[data].name : "the data", dtype_name(dt),
			          why[0] && dt == DT_INT8 ? ", QDQS8ToU8Transformer leaves it" : "", why[0] ? ": " : "", why);
	}
	return r;
}

/* ---- value --------------------------------------------------------------------------- */

/* value, and tolerance beside it (relative; 1e-5 when not given; path is
 * value's, the tolerance's is beside it). */
bool cond_value_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	fd_input_source *is = at->input;
	char b[128], q[320];
	size_t n = items_of(s, v, path, "values");
	if (!n)
		return false;
	bool ok = true;
	is->values = arena_array(&s->rs->arena, n, sizeof *is->values);
	for (size_t i = 0; i < n; i++) {
		const fd_yval *x = item_at(v, i, path, q, sizeof q);
		if (!yval_float(x, &is->values[is->n_values])) {
			ERR(s, x, "%s: expected a number, got %s", q, schema_describe(x, b, sizeof b));
			ok = false;
			continue;
		}
		is->n_values++;
	}
	const fd_yval *t = yval_get(at->map, "tolerance");
	is->tolerance = 1e-5;   /* relative, when not given */
	if (t && (!yval_float(t, &is->tolerance) || is->tolerance < 0)) {
		char tp[320];
		snprintf(tp, sizeof tp, "%.*s.tolerance", (int)(strrchr(path, '.') - path), path);
		ERR(s, t, "%s: expected a number >= 0 (relative), got %s", tp, schema_describe(t, b, sizeof b));
		ok = false;
	}
	return ok;
}

void cond_value_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_input_source *src = c->input;
	size_t at = text_appendf(buf, size, 0, "value ");
	for (int k = 0; k < src->n_values && k < 8; k++)
		at = text_appendf(buf, size, at, "%s%.9g", k ? ", " : "", src->values[k]);
	text_appendf(buf, size, at, " (±%g)", src->tolerance);
}

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

fd_reason cond_value_check(fd_cond_check *c, fd_cond_facts *w)
{
	const fd_input_source *src = c->input;
	fd_reason r = c->ev ? cond_operand_recorded(c, REASON_NM17_VALUE)
	            : values_fit(src, &c->g->tensors[c->tensor]) ? REASON_NONE : REASON_NM17_VALUE;
	if (w) {
		char e[128];
		cond_value_describe(c, e, sizeof e);
		cond_operand_note(c, w, r, "value", SHOW_VALUE, e);
	}
	return r;
}

/* ---- the event ------------------------------------------------------------------------ */

/* The operand's actual, as the conditions present show it: its name, rank
 * and dims (static or dynamic), dtype, value. */
static void actual_text(const fd_cond_check *c, unsigned shows, char *buf, size_t size)
{
	const fd_tensor *x = &c->g->tensors[c->tensor];
	char sh[96];
	size_t at = text_appendf(buf, size, 0, "%s", x->name);
	if (shows & SHOW_SHAPE) {
		if (x->shape.rank < 0)
			at = text_appendf(buf, size, at, " shape unknown");
		else
			at = text_appendf(buf, size, at, " rank %d [%s]%s", x->shape.rank, shape_format(&x->shape, sh, sizeof sh),
			    shows & SHOW_STATIC ? (match_shape_static(&x->shape) ? " static" : " dynamic") : "");
	}
	/* which shapes decided: ONNX's inference, not fusiondbg's own */
	if ((shows & (SHOW_SHAPE | SHOW_STATIC)) && c->ctx && c->ctx->model && c->ctx->model->shapes_onnx)
		at = text_appendf(buf, size, at, " (shapes: onnx)");
	if (shows & SHOW_DTYPE)
		at = text_appendf(buf, size, at, " %s", dtype_name(x->dtype));
	if (shows & SHOW_VALUE) {
		const fd_const *v = x->value;
		if (!v || (!v->i64 && !v->f64)) {
			at = text_appendf(buf, size, at, " value not known");
		} else {
			at = text_appendf(buf, size, at, " value ");
			for (int64_t k = 0; k < v->count && k < 8; k++)
				at = text_appendf(buf, size, at, "%s%.9g", k ? ", " : "", v->f64 ? v->f64[k] : (double)v->i64[k]);
			if (v->count > 8)
				at = text_appendf(buf, size, at, ", … (%lld values)", (long long)v->count);
		}
	}
	if (shows & SHOW_QDQ) {
		char why[256];
		int32_t data;
		int32_t dt = cond_qdq_dtype_of(c->ix, c->ctx->model, operand_node(c), c->slot, c->tensor, &data, why, sizeof why);
		if (data >= 0 && data != c->tensor)
			at = text_appendf(buf, size, at, " (its data %s)", c->g->tensors[data].name);
		at = text_appendf(buf, size, at, " runs as %s", dtype_name(dt));
	}
	if (c->slot != c->input->input && c->slot >= 0 && c->slot < 2)
		text_appendf(buf, size, strlen(buf), " (slot %d, inputs swapped)", c->slot);
}

/* The OPERAND event's family (conditions.h, FD_CONDITION_EVENTS): its rows
 * are the checks above, run in list order by cond_check_event. Before them,
 * a run's check starts with no name bound; after them, with facts, the
 * operand's actual as the stated conditions show it together. */
fd_reason cond_operand_begin(fd_cond_check *c, fd_cond_facts *f)
{
	(void)f;
	if (!c->ev)
		c->bound = -1;
	return REASON_NONE;
}

fd_reason cond_operand_end(fd_cond_check *c, fd_cond_facts *f, fd_reason r)
{
	if (!f)
		return r;
	actual_text(c, f->shows, f->actual, sizeof f->actual);
	if (f->reason && !f->reason_text[0]) {
		const fd_reason_def *d = reason_get(f->reason);
		snprintf(f->reason_text, sizeof f->reason_text, "%s", d ? d->summary : "operand condition failed");
	}
	return f->reason;
}

/* ---- lint ------------------------------------------------------------------------ */

/* A value on an activation can never hold. */
void cond_value_lint(const fd_cond_lint *l)
{
	const fd_input_source *src = l->input;
	if ((src->conds & COND_BIT(VALUE)) && (src->conds & COND_BIT(SOURCE_TYPE)) && src->source_type == SRC_ACTIVATION)
		cond_lint_say(l, DIAG_ERROR, yval_get(src->where, "value"), "%s.input_sources.input%d.value: can never hold: "
		              "source_type activation is not a constant", l->path, src->input);
}

/* A name's uses in the rule: over the operands, the most times one of an
 * operand's shapes names it ([[C], [1, C]] is one use; [N, N] two). */
static void count_uses(const fd_rule *r, const fd_rule_pattern *pat, int *count, const fd_yval **first)
{
	int here[r->n_dimvars], in_this[r->n_dimvars];
	for (int i = 0; i < pat->n_ops; i++)
		for (int s = 0; s < pat->ops[i].n_sources; s++) {
			const fd_input_source *src = &pat->ops[i].sources[s];
			memset(here, 0, sizeof here);
			for (int p = 0; p < src->n_shapes; p++) {
				const fd_shape_pattern *sp = &src->shapes[p];
				memset(in_this, 0, sizeof in_this);
				for (int k = 0; k < sp->n_dims; k++) {
					int v = sp->dims[k].var;
					if (sp->dims[k].kind != SDIM_VAR || v < 0 || v >= r->n_dimvars)
						continue;
					if (!first[v])
						first[v] = sp->where && sp->where->kind == YV_SEQ && (size_t)k < sp->where->n
						               ? sp->where->items[k] : sp->where;
					if (++in_this[v] > here[v])
						here[v] = in_this[v];
				}
			}
			for (int v = 0; v < r->n_dimvars; v++)
				count[v] += here[v];
		}
}

/* A shape name used once in the whole rule constrains nothing. Asked once
 * for the rule (l->input NULL). */
void cond_shape_lint(const fd_cond_lint *l)
{
	const fd_rule *r = l->rule;
	if (l->input || !r->n_dimvars)
		return;
	int count[r->n_dimvars];
	const fd_yval *first[r->n_dimvars];
	memset(count, 0, sizeof count);
	memset(first, 0, sizeof first);
	if (r->match.n_ops)
		count_uses(r, &r->match, count, first);
	for (int b = 0; b < r->n_branches; b++)
		count_uses(r, &r->branches[b], count, first);
	for (int v = 0; v < r->n_dimvars; v++)
		if (count[v] == 1 && first[v])
			cond_lint_say(l, DIAG_WARNING, first[v], "shape name '%s' is used only here, so it constrains nothing "
			              "(write _ for any dim, or use %s again where a dim must be the same)", r->dimvars[v],
			              r->dimvars[v]);
}
