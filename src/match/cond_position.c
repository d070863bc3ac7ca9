/* cond_position.c — input_sources.inputK.position: in which order a binary
 * op's two operands may be matched. `any` (the default): as the op allows,
 * both orders for a commutative op (Add, Mul, …), as written otherwise;
 * `fixed`: as written, never swapped; `either`: both orders even for an op
 * that is not commutative (LayerNorm's Sub(mean, x) against Sub(x, mean)).
 * The matcher asks cond_position_swaps which orders to try; when a fixed
 * op's sources fail as written but would hold swapped, that is the reason
 * (FD-NM14), deeper than the failure seen. An ORDER event's words (the
 * swap tried, or NM14) come from cond_position_check too. */
#include <string.h>
#include "base/text.h"
#include "match/conditions.h"
#include "match/match_internal.h"
#include "rules/optable.h"
#include "match/cond_text.h"

bool cond_position_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	char b[128];
	const char *pos;
	if (!schema_str(s, v, path, &pos))
		return false;
	if (!strcmp(pos, "fixed")) {
		at->input->fixed = true;
		at->op->has_fixed = true;
	} else if (!strcmp(pos, "either")) {
		at->input->either = true;
		at->op->has_either = true;
	} else if (strcmp(pos, "any")) {
		ERR(s, v, "%s: expected fixed, either or any, got %s", path, schema_describe(v, b, sizeof b));
		return false;
	} else {
		at->states = false;   /* the default, stated */
	}
	return true;
}

void cond_position_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s", c->op->has_fixed ? "the inputs in the order written (position: fixed)"
	                                           : "the inputs in either order (position: either)");
}

bool cond_position_swaps(const fd_rule_op *op, bool commutative)
{
	return (commutative || op->has_either) && !op->has_fixed;
}

/* The source that says position: fixed. */
static const fd_input_source *fixed_source(const fd_rule_op *op)
{
	for (int k = 0; k < op->n_sources; k++)
		if (op->sources[k].fixed)
			return &op->sources[k];
	return NULL;
}

/* A run: do the op's sources, failed as written, hold swapped? Then the
 * swap is what position: fixed forbids (NM14). An event: its words. */
fd_reason cond_position_check(fd_cond_check *c, fd_cond_facts *f)
{
	const fd_rule_op *op = c->op;
	const fd_input_source *fixed = fixed_source(op);
	if (!c->ev) {
		match_run_state *s = c->run;
		uint32_t quiet_passed = 0;
		size_t mark = s->binds.n;
		bool swapped_holds = fixed != NULL;
		for (int k = 0; k < op->n_sources && swapped_holds; k++)
			swapped_holds = match_check_source(s, c->op_index, c->unit, k, true, &quiet_passed, true);
		s->binds.n = mark;
		c->passed = quiet_passed;
		return swapped_holds ? REASON_NM14_POSITION : REASON_NONE;
	}
	fd_reason r = c->ev->reason == REASON_NM14_POSITION ? REASON_NM14_POSITION : REASON_NONE;
	if (f) {
		memset(f, 0, sizeof *f);
		f->reason = r;
		if (r == REASON_NONE) {   /* the other order tried: what allowed it */
			text_cut(f->reason_text, sizeof f->reason_text, op->has_either ? "position: either: inputs tried swapped"
			                                                                : "commutative: inputs tried swapped");
			return r;
		}
		cond_position_describe(c, f->expected, sizeof f->expected);
		text_cut(f->actual, sizeof f->actual, "they fit only swapped");
		if (fixed)
			text_cutf(f->reason_text, sizeof f->reason_text, "what the rule wants at input%d is at input%d; "
			          "position: fixed does not try the swap", fixed->input, fixed->input < 2 ? fixed->input ^ 1
			                                                                                  : fixed->input);
		const fd_yval *k = fixed ? yval_get(fixed->where, "position") : NULL;
		f->decided = k ? k : op->where;
		if (fixed)
			snprintf(f->path, sizeof f->path, "input_sources.input%d.position", fixed->input);
	}
	return r;
}

/* ---- lint ------------------------------------------------------------------------ */

static bool any_commutative(const fd_rule_op *op)
{
	for (int t = 0; t < op->n_types; t++)
		if (optable_get(op->ops[t])->commutative)
			return true;
	return false;
}

/* fixed on an op never swapped, either on one always tried both ways. */
void cond_position_lint(const fd_cond_lint *l)
{
	const fd_input_source *src = l->input;
	const fd_rule_op *op = &l->pat->ops[l->op_index];
	char name[128];
	if (src->fixed && !any_commutative(op))
		cond_lint_say(l, DIAG_WARNING, yval_get(src->where, "position"), "%s.input_sources.input%d.position: fixed has "
		              "no effect: %s is not commutative (its inputs are never tried swapped)", l->path, src->input,
		              cond_op_types_name(op, name, sizeof name));
	if (src->either && any_commutative(op))
		cond_lint_say(l, DIAG_WARNING, yval_get(src->where, "position"), "%s.input_sources.input%d.position: either has "
		              "no effect: %s is commutative (its inputs are tried in both orders anyway)", l->path, src->input,
		              cond_op_types_name(op, name, sizeof name));
}
