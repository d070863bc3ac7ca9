/* cond_dtype_match.c — constraint dtype_match: every data tensor of the
 * match (external activation inputs, intermediates, outputs) has one of
 * allowed_dtypes. Weights (overridable initializers too) and argument
 * inputs are not data: an int64 Reshape shape is not checked. An unknown
 * dtype passes undecided. Its parse, check and words. */
#include "base/arena.h"
#include "base/text.h"
#include "ir/dtype.h"
#include "match/cond_constraint.h"
#include "match/match_internal.h"
#include "rules/optable.h"

bool cond_dtype_match_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	fd_constraint *c = at->constraint;
	const fd_yval *f = yval_get(v, "allowed_dtypes");
	if (!f) {
		ERR(s, v, "%s: dtype_match needs 'allowed_dtypes'", path);
		return false;
	}
	char p[256];
	snprintf(p, sizeof p, "%.200s.allowed_dtypes", path);
	if (!schema_kind(s, f, YV_SEQ, p))
		return false;
	bool ok = true;
	c->allowed_dtypes = arena_array(&s->rs->arena, f->n ? f->n : 1, sizeof *c->allowed_dtypes);
	for (size_t i = 0; i < f->n; i++) {
		const char *name;
		char q[320];
		snprintf(q, sizeof q, "%.200s[%zu]", p, i);
		if (!schema_str(s, f->items[i], q, &name)) {
			ok = false;
			continue;
		}
		int32_t dt = dtype_from_name(name);
		if (dt < 0 || dt == DT_UNDEFINED) {
			char hint[300];
			ERR(s, f->items[i], "%s: unknown dtype '%s'%s (known: float32, float16, bfloat16, float64, int8, "
			    "uint8, int16, int32, int64, bool, …)", q, name, dtype_hint(name, hint, sizeof hint));
			ok = false;
		} else {
			c->allowed_dtypes[c->n_allowed_dtypes++] = dt;
		}
	}
	return ok;
}

/* True when every use of t inside the match is at a slot the op table lists
 * as a param input (Reshape's shape, Slice's starts, Dropout's ratio): such a
 * tensor is an argument, not data, even when computed at run time. */
static bool param_input_only(const match_run_state *s, int32_t t)
{
	bool any = false;
	const fd_graph_index *ix = s->ix;
	for (size_t i = 0; i < s->cover.nodes.n; i++) {
		int32_t nd = s->cover.nodes.items[i];
		const fd_node *n = &s->g->nodes[nd];
		for (int k = 0; k < n->n_inputs; k++) {
			if (n->inputs[k] != t)
				continue;
			/* the node's op ids, from the index's bitset */
			bool param = false;
			for (int w = 0; w < ix->ops_words && !param; w++)
				for (uint64_t bits = ix->node_ops[(size_t)nd * (size_t)ix->ops_words + (size_t)w]; bits && !param;
				     bits &= bits - 1) {
					const fd_op_def *d = optable_get(w * 64 + __builtin_ctzll(bits));
					for (int p = 0; d && p < d->n_params && !param; p++)
						param = d->params[p].input == k;
				}
			if (!param)
				return false;
			any = true;
		}
	}
	return any;
}

/* The run: the first tensor of a dtype not allowed fails (a = its dtype),
 * else the first of unknown dtype passes undecided, else a = how many
 * tensors were checked. */
static fd_event measure(fd_cond_check *c)
{
	const match_run_state *s = c->run;
	const fd_constraint *k = c->constraint;
	const match_cover *cv = &s->cover;
	const i32_vec *sets[3] = { &cv->inputs, &cv->intermediates, &cv->outputs };
	int32_t unknown = FD_NONE, checked = 0;
	for (int q = 0; q < 3; q++)
		for (size_t i = 0; i < sets[q]->n; i++) {
			int32_t t = sets[q]->items[i];
			if ((s->ix->tflags[t] & TF_CONST) || s->g->tensors[t].kind == TENSOR_INITIALIZER ||
			    (q == 0 && param_input_only(s, t)))
				continue;
			int32_t dt = s->g->tensors[t].dtype;
			if (dt == DT_UNDEFINED) {
				if (unknown == FD_NONE)
					unknown = t;
				continue;
			}
			bool ok = false;
			for (int a = 0; a < k->n_allowed_dtypes; a++)
				if (k->allowed_dtypes[a] == dt)
					ok = true;
			if (!ok)
				return cond_constraint_emit(c, ST_FAIL, REASON_CF01_DTYPE, -1, s->g->tensors[t].producer, t, dt,
				                            -1);
			checked++;
		}
	if (unknown != FD_NONE)
		return cond_constraint_pass(c, true, -1, FD_NONE, unknown, DT_UNDEFINED, -1);
	return cond_constraint_pass(c, false, -1, FD_NONE, FD_NONE, checked, -1);
}

static void words(const fd_cond_check *c, fd_cond_facts *facts)
{
	const int32_t tensor = c->payload.constraint.tensor;
	const int64_t measured = c->payload.constraint.measured;   /* its dtype, or the tensors checked */
	char num[24];
	cond_dtype_match_describe(c, facts->expected, sizeof facts->expected);
	if (tensor >= 0)
		text_cutf(facts->actual, sizeof facts->actual, "%s is %s", cond_tensor_name(c->g, tensor),
		          dtype_name((int32_t)measured));
	else
		text_join(facts->actual, sizeof facts->actual, 3, text_decimal(measured, num), " tensors checked", "");
}

fd_reason cond_dtype_match_check(fd_cond_check *c, fd_cond_facts *facts)
{
	fd_event ran;
	const fd_event *ev = c->run ? (ran = measure(c), &ran) : c->ev;
	return cond_constraint_decided(c, ev, facts, "allowed_dtypes", words);
}

/* "one of [float32, float16]" */
void cond_dtype_match_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_constraint *k = c->constraint;
	size_t at = text_append(buf, size, 0, "one of [", "");
	for (int i = 0; i < k->n_allowed_dtypes && at < size; i++)
		at = text_append(buf, size, at, i ? ", " : "", dtype_name(k->allowed_dtypes[i]));
	if (at < size)
		text_append(buf, size, at, "]", "");
}

/* ---- lint ------------------------------------------------------------------------ */

void cond_dtype_match_lint(const fd_cond_lint *l)
{
	const fd_constraint *k = l->constraint;
	if (k->n_allowed_dtypes == 0)
		cond_lint_say(l, DIAG_ERROR, yval_get(k->where, "allowed_dtypes"), "%s.allowed_dtypes: empty list; the "
		              "constraint can never pass", l->path);
}
