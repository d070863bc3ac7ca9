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

void parse_op_ext(fd_schema *s, fd_cond_site *at, const char *path)
{
	fd_rule_op *op = at->op;
	rule_schema_op_conditions(s, at, SCOPE_OP_EXT, path);
	op->has_op_conditions = op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0 || op->n_where;
	for (int k = 0; k < op->n_types; k++) {
		const fd_op_def *def = optable_get(op->ops[k]);
		if (def && def->composite != COMPOSITE_NONE)
			op->composite_mask |= 1u << def->composite;
	}
}

/* ---- an input's conditions -------------------------------------------------- */

/* Each condition of an input written in the inputK map src, by its entry
 * of the list (match/conditions.h), in the list's order. */
bool parse_source_conditions(fd_schema *s, fd_rule_op *op, fd_input_source *is, const fd_yval *src, const char *path,
                             int index, int n_ops)
{
	static const struct { const char *key; bool (*parse)(fd_schema *, fd_cond_site *, const fd_yval *, const char *); }
	entries[] = {
#define INPUT_ENTRY(id, scope, key, event, reason, fn) IF_INPUT_##scope(key, fn##_parse)
#define IF_INPUT_INPUT(key, parse) { key, parse },
#define IF_INPUT_OP(key, parse)
#define IF_INPUT_OP_EXT(key, parse)
#define IF_INPUT_CONSTRAINT(key, parse)
		FD_CONDITIONS(INPUT_ENTRY)
#undef INPUT_ENTRY
#undef IF_INPUT_INPUT
#undef IF_INPUT_OP
#undef IF_INPUT_OP_EXT
#undef IF_INPUT_CONSTRAINT
	};
	fd_cond_site at = { .op = op, .index = index, .n_ops = n_ops, .input = is, .map = src };
	bool ok = true;
	for (size_t e = 0; e < sizeof entries / sizeof *entries; e++) {
		const fd_yval *v = yval_get(src, entries[e].key);
		if (!v)
			continue;
		char q[320];
		snprintf(q, sizeof q, "%.200s.%s", path, entries[e].key);
		ok &= entries[e].parse(s, &at, v, q);
		/* a map's own keys (same_as: {op, input}) are the format's */
		if (v->kind == YV_MAP) {
			char section[96];
			snprintf(section, sizeof section, "match.ops.#.input_sources.*.%s", entries[e].key);
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
