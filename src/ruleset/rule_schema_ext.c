/* rule_schema_ext.c — the schema of the language beyond the seed
 * (fusiondbg-rules(5), BEYOND THE SEED): an op's extensions (optional,
 * outputs, where) and the conditions of an inputK map (from_op,
 * source_type, same_as, position, optional, rank, shape, static, dtype,
 * value), each read by its entry of the condition list (cond_*.c), then what
 * the matcher derives from them. Each reports what is wrong at the value,
 * with file:line:col — inside an expression, at the character where it goes
 * wrong. Whether a name or a param exists for the
 * op is `check`'s (rule_check_ext.c). */
#include <stdio.h>
#include <string.h>
#include "ir/dtype.h"
#include "rules/optable.h"
#include "rules/rule_expr.h"
#include "match/conditions.h"
#include "ruleset/rule_schema_internal.h"

/* ---- the op's extensions ------------------------------------------------------ */

void rule_schema_op_ext(fd_schema *s, fd_cond_site *at, const char *path)
{
	fd_rule_op *op = at->op;
	rule_schema_op_conditions(s, at, SCOPE_OP_EXT, path);
	op->has_op_conditions = op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0 || op->n_where
	                        || op->feeds_op >= 0;
	for (int k = 0; k < op->n_types; k++) {
		const fd_op_def *def = optable_get(op->ops[k]);
		if (def && def->composite != COMPOSITE_NONE)
			op->composite_mask |= 1u << def->composite;
	}
}

/* ---- an input's conditions -------------------------------------------------- */

/* Each condition of an input written in the inputK map src, by its entry
 * of the list (match/conditions.h), in the list's order. */
bool rule_schema_source_conditions(fd_schema *s, fd_rule_op *op, fd_input_source *is, const fd_yval *src, const char *path,
                             int index, int n_ops)
{
	fd_cond_site at = { .op = op, .index = index, .n_ops = n_ops, .input = is, .map = src };
	bool ok = true;
	for (int k = 0; k < COND_COUNT; k++) {
		const fd_cond_def *d = cond_def((fd_cond_kind)k);
		const fd_yval *v = d->scope == SCOPE_INPUT ? yval_get(src, d->key) : NULL;
		if (!v)
			continue;
		char q[320];
		snprintf(q, sizeof q, "%.200s.%s", path, d->key);
		ok &= d->parse(s, &at, v, q);
		/* a map's own keys (same_as: {op, input}) are the format's */
		if (v->kind == YV_MAP) {
			char section[96];
			snprintf(section, sizeof section, "match.ops.#.input_sources.*.%s", d->key);
			rule_schema_unknown_keys(s, v, q, section);
		}
	}
	const fd_yval *f = yval_get(src, "tolerance");
	char q[320];
	snprintf(q, sizeof q, "%.200s.tolerance", path);
	if (f) {
		char b[128];
		if (!yval_float(f, &is->tolerance) || is->tolerance < 0) {
			ERR(s, f, "%s: expected a number >= 0 (relative), got %s", q, schema_describe(f, b, sizeof b));
			ok = false;
		} else if (!yval_get(src, "value")) {
			WARN(s, f, "%s: has no meaning without 'value'", q);
		}
	}
	is->has_operand = is->n_ranks || is->n_shapes || is->is_static >= 0 || is->n_dtypes || is->n_values;
	is->has_source = is->from_op >= 0 || is->source_type != SRC_UNSET || is->same_op >= 0;
	if (is->from_op < 0 && is->source_type == SRC_UNSET && is->same_op < 0 && !is->fixed && !is->either &&
	    !is->has_operand && ok) {
		ERR(s, src, "%s: needs a condition (from_op, source_type, same_as, position, rank, shape, static, dtype or "
		    "value)", path);
		ok = false;
	}
	return ok;
}
