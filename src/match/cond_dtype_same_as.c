/* cond_dtype_same_as.c — an operand's dtype tied to another tensor of the
 * match (input_sources.inputK.dtype: {same_as: {op: j, input: k}}, or
 * {op: j, output: k}): the operand's element type is that tensor's,
 * whatever it is. A compiler that folds a constant into a kernel needs
 * both in one type (onnxruntime's Conv+Add folding: the Add's constant of
 * the Conv bias's type); a list of dtypes cannot say "the same as". One
 * check of the OPERAND event (cond_operand.h), after dtype. When it fails
 * in a run, the event's b is the tied tensor, so the words name it. */
#include <stdio.h>
#include <string.h>
#include "base/text.h"
#include "ir/dtype.h"
#include "match/cond_operand.h"
#include "match/cond_text.h"
#include "match/conditions.h"
#include "match/match_internal.h"

/* ---- parse --------------------------------------------------------------------- */

bool cond_dtype_same_as_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	if (v->kind != YV_MAP) {
		at->states = false;   /* a list of dtypes: dtype's own (cond_operand.c) */
		return true;
	}
	char q[320], b[128];
	const fd_yval *sa = yval_get(v, "same_as");
	snprintf(q, sizeof q, "%.200s.same_as", path);
	if (!sa) {
		ERR(s, v, "%s: expected a dtype, a list of them, or {same_as: {op: j, input: k}}, got %s", path,
		    schema_describe(v, b, sizeof b));
		return false;
	}
	if (!schema_kind(s, sa, YV_MAP, q))
		return false;
	const fd_yval *op = yval_get(sa, "op"), *in = yval_get(sa, "input"), *out = yval_get(sa, "output");
	if (!op || (!in) == (!out)) {
		ERR(s, sa, "%s: needs 'op' and one of 'input' or 'output' (the tensor op j reads at input k, or makes at "
		    "output k: {op: j, input: k})", q);
		return false;
	}
	fd_input_source *is = at->input;
	char f[352];
	snprintf(f, sizeof f, "%s.op", q);
	bool ok = schema_small_int(s, op, f, 0, &is->dtype_op);
	snprintf(f, sizeof f, "%s.%s", q, in ? "input" : "output");
	ok = schema_small_int(s, in ? in : out, f, 0, &is->dtype_slot) && ok;
	if (ok && is->dtype_op >= at->n_ops) {
		ERR(s, op, "%s.op: %d is out of range (the pattern has ops 0..%d)", q, is->dtype_op, at->n_ops - 1);
		ok = false;
	}
	if (!ok)
		return false;
	is->dtype_output = out != NULL;
	is->dtype_where = sa;
	return true;
}

/* ---- words ----------------------------------------------------------------------- */

/* "dtype of op0's input2", "dtype of op1's output0". */
void cond_dtype_same_as_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_input_source *src = c->input;
	snprintf(buf, size, "dtype of op%d's %s%d", src->dtype_op, src->dtype_output ? "output" : "input", src->dtype_slot);
}

/* ---- check ----------------------------------------------------------------------- */

/* The tensor the entry names, in a run: op j's input k as op j was matched
 * (its operands swapped or not), or its output k; FD_NONE when op j is
 * absent or has no such tensor. Op j may be this op (another of its
 * inputs) or an earlier one. */
static int32_t tied_tensor(const fd_cond_check *c)
{
	const fd_input_source *src = c->input;
	const match_run_state *s = c->run;
	int j = src->dtype_op, slot = src->dtype_slot;
	int32_t owner = j == c->op_index ? c->unit : j < c->op_index ? s->units[j] : FD_NONE;
	if (owner == FD_NONE)
		return FD_NONE;
	if (src->dtype_output)
		return unit_output(s, owner, slot);
	bool swapped = j == c->op_index ? c->slot != src->input : s->swapped[j];
	if (swapped && slot < 2)
		slot ^= 1;
	return unit_input(s, owner, slot);
}

/* A row of the OPERAND event (cond_operand.h): with w, its words added to the event's. */
fd_reason cond_dtype_same_as_check(fd_cond_check *c, fd_cond_facts *w)
{
	const fd_input_source *src = c->input;
	fd_reason r;
	int32_t tied = FD_NONE;
	if (c->ev) {
		r = cond_operand_recorded(c, REASON_NM23_DTYPE_SAME_AS);
		int64_t named = c->payload.operand.tied;
		if (r && named >= 0 && named < c->g->n_tensors)
			tied = (int32_t)named;
	} else {
		tied = tied_tensor(c);
		bool ok = tied != FD_NONE && c->g->tensors[tied].dtype != DT_UNDEFINED &&
		          c->g->tensors[tied].dtype == c->g->tensors[c->tensor].dtype;
		r = ok ? REASON_NONE : REASON_NM23_DTYPE_SAME_AS;
		if (r)
			c->bound = tied;   /* the event's operand.tied: the words name it */
	}
	if (w) {
		char e[128];
		cond_dtype_same_as_describe(c, e, sizeof e);
		if (tied != FD_NONE)
			text_appendf(e, sizeof e, strlen(e), " (%s %s)", cond_tensor_name(c->g, tied),
			             dtype_name(c->g->tensors[tied].dtype));
		cond_operand_note(c, w, r, "dtype", SHOW_DTYPE, e);
		if (r && w->path[0])
			snprintf(w->path, sizeof w->path, "input_sources.input%d.dtype.same_as", src->input);
		if (r) {
			const fd_yval *k = src->dtype_where;
			w->decided = k ? k : w->decided;
		}
	}
	return r;
}

/* ---- lint ------------------------------------------------------------------------ */

/* The op named is this one or an earlier one that is always there, and it
 * has the input named; this op's own input is another one. */
void cond_dtype_same_as_lint(const fd_cond_lint *l)
{
	const fd_input_source *src = l->input;
	if (!src || !(src->conds & COND_BIT(DTYPE_SAME_AS)))
		return;
	const fd_rule_pattern *pat = l->pat;
	int i = l->op_index, j = src->dtype_op;
	const fd_yval *at = yval_get(src->dtype_where, "op");
	const char *p = l->path;
	const char *what = src->dtype_output ? "output" : "input";
	if (j > i)
		cond_lint_say(l, DIAG_ERROR, at, "%s.input_sources.input%d.dtype.same_as.op: %d does not come before op %d "
		              "(dtype same_as names this op or an earlier one)", p, src->input, j, i);
	else if (j == i && !src->dtype_output && src->dtype_slot == src->input)
		cond_lint_say(l, DIAG_ERROR, at, "%s.input_sources.input%d.dtype.same_as: names this very input; it always "
		              "holds", p, src->input);
	else if (j < i && pat->ops[j].optional)
		cond_lint_say(l, DIAG_ERROR, at, "%s.input_sources.input%d.dtype.same_as.op: op %d is optional; it must name "
		              "an op that is always present", p, src->input, j);
	else if (!src->dtype_output) {
		int arity = cond_op_max_inputs(&pat->ops[j]);
		char name[128];
		if (arity >= 0 && src->dtype_slot >= arity)
			cond_lint_say(l, DIAG_ERROR, yval_get(src->dtype_where, what), "%s.input_sources.input%d.dtype.same_as."
			              "input: %s (op %d) takes %d input%s", p, src->input,
			              cond_op_types_name(&pat->ops[j], name, sizeof name), j, arity, arity == 1 ? "" : "s");
	}
}
