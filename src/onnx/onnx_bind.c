/* onnx_bind.c — binding the model's symbols once its graphs are built and
 * before shape inference runs:
 *  1. every unnamed dim of a main-graph input (neither dim_value nor
 *     dim_param) gets a symbol of its own, "<input>_dim<k>", so that it can
 *     be bound and shows in formulas instead of being a dead end;
 *  2. --dim NAME=V binds a symbol;
 *  3. --input-shape "x:1,3,224,224;mask:1,128", the form of CANN ATC's
 *     --input_shape, gives inputs their shapes: a dim that is a symbol binds
 *     it, an unnamed one is bound through its new symbol, a number that
 *     differs replaces the model's (with a warning, as ATC does), -1 leaves
 *     the dim as it is; an input without a declared shape takes the given
 *     one;
 *  4. the model's list of symbols (model->symdims) and the value of every
 *     declared dim follow.
 * Nothing here knows protobuf: it works on the model the loader built. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "onnx/onnx_loader.h"
#include "base/vec.h"

/* A symbol name for dim k of input t that names nothing else. */
static const char *unnamed_symbol(fd_model *m, const char *input, int32_t k)
{
	const char *name = arena_printf(&m->arena, "%s_dim%d", input, k);
	while (dimtab_find_symbol(m->dimtab, name) >= 0)
		name = arena_printf(&m->arena, "%s_", name);
	return name;
}

static void name_unnamed_dims(fd_model *m)
{
	fd_graph *g = &m->graphs[0];
	for (int32_t i = 0; i < g->n_inputs; i++) {
		fd_tensor *t = &g->tensors[g->inputs[i]];
		for (int32_t k = 0; k < t->shape.rank; k++)
			if (!dim_defined(t->shape.dims[k]))
				t->shape.dims[k] = dimtab_symbol(m->dimtab, unnamed_symbol(m, t->name, k));
	}
}

/* With opt->dims_win, a symbol --dim names stays as --dim says. */
static bool named_by_dim(const fd_load_options *opt, const char *name)
{
	for (int k = 0; opt && opt->dims_win && k < opt->n_dims; k++)
		if (opt->dims[k].name && !strcmp(opt->dims[k].name, name))
			return true;
	return false;
}

/* Binds symbol i to v unless it is bound to something else already. */
static int bind_checked(fd_model *m, const fd_load_options *opt, fd_diags *d, fd_srcpos pos, const char *name,
                        int64_t v, const char *what)
{
	int64_t have;
	if (named_by_dim(opt, name))
		return 0;
	int32_t i = dimtab_find_symbol(m->dimtab, name);
	if (i >= 0 && dimtab_symbol_bound(m->dimtab, i, &have) && have != v) {
		diag_error(d, pos, "%s binds %s to %lld, but it is bound to %lld already", what, name, (long long)v,
		           (long long)have);
		return -1;
	}
	dimtab_bind(m->dimtab, name, v);
	return 0;
}

/* ---- --input-shape ---------------------------------------------------------------- */

/* One "NAME:D,D,..." item: the name splits off at its last ':' (names such
 * as "onnx::Shape_18" keep theirs); "NAME:" is a scalar. -1 + why when
 * malformed, -2 when a dim is out of range. */
static int parse_item(const char *item, size_t len, char **name, int64_t *dims, int32_t *rank,
                      char *why, size_t why_size)
{
	const char *colon = NULL;
	for (size_t i = 0; i < len; i++)
		if (item[i] == ':')
			colon = item + i;
	while (len && (item[0] == ' ' || item[0] == '\t'))
		item++, len--;
	if (!colon || colon == item) {
		snprintf(why, why_size, "'%.*s' is not NAME:DIMS", (int)len, item);
		return -1;
	}
	size_t nlen = (size_t)(colon - item);
	while (nlen && (item[nlen - 1] == ' ' || item[nlen - 1] == '\t'))
		nlen--;
	*name = strndup(item, nlen);
	*rank = 0;
	const char *p = colon + 1, *end = item + len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return 0;
	for (;;) {
		char *stop;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		errno = 0;
		long long v = strtoll(p, &stop, 10);
		if (errno == ERANGE && stop <= end) {
			/* strtoll clamps: that would be a different shape than the one asked for */
			snprintf(why, why_size, "in '%.*s', the dim %.*s is out of range (at most %lld)", (int)len, item,
			         (int)(stop - p), p, LLONG_MAX);
			return -2;
		}
		if (stop == p || stop > end || v < -1) {
			snprintf(why, why_size, "in '%.*s', a dim is an integer >= 0, or -1 to leave it unbound",
			         (int)len, item);
			return -1;
		}
		if (*rank == 64) {
			snprintf(why, why_size, "'%.*s' has more than 64 dims", (int)len, item);
			return -1;
		}
		dims[(*rank)++] = v;
		p = stop;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			return 0;
		if (*p != ',') {
			snprintf(why, why_size, "in '%.*s', dims are separated by ','", (int)len, item);
			return -1;
		}
		p++;
	}
}

static int32_t find_input(const fd_graph *g, const char *name)
{
	for (int32_t i = 0; i < g->n_inputs; i++)
		if (!strcmp(g->tensors[g->inputs[i]].name, name))
			return g->inputs[i];
	return FD_NONE;
}

static void list_inputs(const fd_graph *g, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int32_t i = 0; i < g->n_inputs && at + 1 < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "", g->tensors[g->inputs[i]].name);
}

static int apply_input_shape(fd_model *m, const fd_load_options *opt, fd_diags *d, fd_srcpos pos, const char *name,
                             const int64_t *want, int32_t rank)
{
	fd_graph *g = &m->graphs[0];
	int32_t ti = find_input(g, name);
	char what[300];
	if (ti == FD_NONE) {
		char inputs[512];
		list_inputs(g, inputs, sizeof inputs);
		diag_error(d, pos, "--input-shape %s: the model has no input of that name (inputs: %s)", name,
		           inputs[0] ? inputs : "none");
		return -1;
	}
	fd_tensor *t = &g->tensors[ti];
	if (t->shape.rank >= 0 && t->shape.rank != rank) {
		char have[128];
		diag_error(d, pos, "--input-shape %s: %d dims given, the model declares %d (%s)", name, rank,
		           t->shape.rank, shape_format(&t->shape, have, sizeof have));
		return -1;
	}
	if (t->shape.rank < 0) {
		t->shape.rank = rank;
		t->shape.dims = rank ? arena_array(&m->arena, (size_t)rank, sizeof *t->shape.dims) : NULL;
		for (int32_t k = 0; k < rank; k++)
			t->shape.dims[k] = dimtab_symbol(m->dimtab, unnamed_symbol(m, name, k));
		t->shape_declared = true;
	}
	for (int32_t k = 0; k < rank; k++) {
		fd_dim *dm = &t->shape.dims[k];
		if (want[k] < 0)
			continue;
		snprintf(what, sizeof what, "--input-shape %s (dim %d)", name, k);
		if (dm->expr) {
			const char *sym;
			int64_t num, den;
			if (!dexpr_linear(dm->expr, &sym, &num, &den) || num != 1 || den != 1) {
				diag_error(d, pos, "%s: the model's dim is %s, not one symbol to bind", what,
				           dexpr_text(dm->expr));
				return -1;
			}
			if (bind_checked(m, opt, d, pos, sym, want[k], what))
				return -1;
		} else if (dm->value != want[k]) {
			diag_warning(d, pos, "%s: the model says %lld, using %lld", what, (long long)dm->value,
			             (long long)want[k]);
			*dm = dim_of(want[k]);
		}
	}
	return 0;
}

/* One parsed item of every --input-shape, with its text for messages. */
typedef struct shape_item {
	char *name;
	const char *text;
	int len;
	int32_t rank;
	int64_t dims[64];
} shape_item;

/* Parses every item of every --input-shape into items (heap; *n of them);
 * -1 + d on a malformed item or a name given twice (the last would silently
 * win), naming both items. */
static int parse_input_shapes(const fd_load_options *opt, fd_diags *d, fd_srcpos pos, shape_item **items, int *n)
{
	VEC(shape_item) v = { 0 };
	int rc = 0;
	for (int k = 0; k < opt->n_input_shapes && !rc; k++) {
		for (const char *p = opt->input_shapes[k]; p && *p && !rc;) {
			size_t len = strcspn(p, ";");
			const char *item = p;
			p += len + (p[len] == ';');
			size_t blank = strspn(item, " \t");
			if (blank >= len)
				continue;
			shape_item it = { .text = item + blank, .len = (int)(len - blank) };
			while (it.len && (it.text[it.len - 1] == ' ' || it.text[it.len - 1] == '\t'))
				it.len--;
			char why[300];
			int bad = parse_item(item, len, &it.name, it.dims, &it.rank, why, sizeof why);
			if (bad) {
				/* -2: well formed, but a number out of range */
				diag_error(d, pos, "--input-shape: %s%s", why,
				           bad == -2 ? "" : " (the form is \"x:1,3,224,224;mask:1,128\")");
				free(it.name);
				rc = -1;
				break;
			}
			for (size_t j = 0; j < v.n && !rc; j++)
				if (!strcmp(v.items[j].name, it.name)) {
					diag_error(d, pos, "--input-shape: %s is given twice ('%.*s' and '%.*s')", it.name,
					           v.items[j].len, v.items[j].text, it.len, it.text);
					rc = -1;
				}
			vec_push(&v, it);
		}
	}
	*items = v.items;
	*n = (int)v.n;
	return rc;
}

static int apply_input_shapes(fd_model *m, const fd_load_options *opt, fd_diags *d, fd_srcpos pos)
{
	shape_item *items;
	int n;
	int rc = parse_input_shapes(opt, d, pos, &items, &n);
	for (int k = 0; k < n && !rc; k++)
		rc = apply_input_shape(m, opt, d, pos, items[k].name, items[k].dims, items[k].rank);
	for (int k = 0; k < n; k++)
		free(items[k].name);
	free(items);
	return rc ? -1 : 0;
}

/* ---- --value ---------------------------------------------------------------------------- */

/* The value of a scalar (or one-element) integer input of the main graph:
 * a constant to inference, so a condition on it folds. */
static int apply_value(fd_model *m, fd_diags *d, fd_srcpos pos, const char *name, int64_t value)
{
	fd_graph *g = &m->graphs[0];
	for (int32_t i = 0; i < g->n_inputs; i++) {
		fd_tensor *t = &g->tensors[g->inputs[i]];
		if (strcmp(t->name, name))
			continue;
		int64_t n = 1;
		for (int32_t k = 0; k < t->shape.rank; k++)
			n = t->shape.dims[k].value == 1 ? n : -1;
		if (!dtype_is_integer(t->dtype) || t->shape.rank < 0 || n != 1) {
			diag_error(d, pos, "--value %s: the input is %s %s, not a scalar integer", name, dtype_name(t->dtype),
			           t->shape.rank < 0 ? "of unknown rank" : "with more than one element");
			return -1;
		}
		fd_const *c = arena_alloc(&m->arena, sizeof *c);
		memset(c, 0, sizeof *c);
		c->dtype = t->dtype;
		c->count = 1;
		c->i64 = arena_alloc(&m->arena, sizeof *c->i64);
		c->i64[0] = value;
		t->value = c;
		return 0;
	}
	diag_error(d, pos, "--value %s: the main graph has no input of that name", name);
	return -1;
}

/* ---- the whole step ------------------------------------------------------------------- */

int onnx_loader_bind(fd_model *m, const fd_load_options *opt, fd_diags *d, fd_srcpos pos)
{
	name_unnamed_dims(m);
	for (int k = 0; opt && k < opt->n_dims; k++) {
		const char *name = opt->dims[k].name;
		if (!name || opt->dims[k].value < 0)
			continue;
		int32_t at = dimtab_find_name_or_alias(m->dimtab, name);   /* an alias (d0) binds its symbol */
		if (at < 0) {
			diag_warning(d, pos, "--dim %s: the model has no symbolic dim of that name", name);
			continue;
		}
		dimtab_bind(m->dimtab, dimtab_symbol_name(m->dimtab, at), opt->dims[k].value);
	}
	if (opt && opt->n_input_shapes && apply_input_shapes(m, opt, d, pos) < 0)
		return -1;
	for (int k = 0; m->n_graphs > 0 && opt && k < opt->n_values; k++)
		if (opt->values[k].name && apply_value(m, d, pos, opt->values[k].name, opt->values[k].value) < 0)
			return -1;
	int32_t n = dimtab_n_symbols(m->dimtab);
	m->n_symdims = n;
	m->symdims = n ? arena_array(&m->arena, (size_t)n, sizeof *m->symdims) : NULL;
	for (int32_t i = 0; i < n; i++) {
		m->symdims[i].name = dimtab_symbol_name(m->dimtab, i);
		m->symdims[i].bound = dimtab_symbol_bound(m->dimtab, i, &m->symdims[i].value);
	}
	model_refresh_dims(m);
	return 0;
}
