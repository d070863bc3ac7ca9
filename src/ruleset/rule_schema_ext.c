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
#include "ruleset/rule_format.h"
#include "ruleset/rule_schema_internal.h"

/* ---- the op's extensions ------------------------------------------------------ */

void rule_schema_op_ext(fd_schema *s, fd_cond_site *at, const char *path)
{
	fd_rule_op *op = at->op;
	rule_schema_op_conditions(s, at, SCOPE_OP_EXT, path);
	op->has_op_conditions = op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0 || op->n_where
	                        || op->n_not_read_by || op->output_count >= 0
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
		/* a map's own keys (same_as: {op, input}) are the format's; a key two
		 * entries read (dtype) is checked once */
		if (v->kind == YV_MAP && cond_by_key(SCOPE_INPUT, d->key) == (fd_cond_kind)k) {
			char section[96];
			snprintf(section, sizeof section, "match.ops.#.input_sources.*.%s", d->key);
			rule_schema_unknown_keys(s, v, q, section);
			/* and a map inside it the format knows (dtype: {same_as: {op, input}}) */
			for (size_t i = 0; i < v->n; i++) {
				const char *key = v->keys[i]->text;
				char inner[160], ip[400];
				snprintf(inner, sizeof inner, "%s.%s", section, key ? key : "");
				if (!key || v->items[i]->kind != YV_MAP || !rule_field_key(inner, "op"))
					continue;
				snprintf(ip, sizeof ip, "%s.%s", q, key);
				rule_schema_unknown_keys(s, v->items[i], ip, inner);
			}
		}
	}
	/* a field beside an entry's key (value's tolerance) without the key */
	static const struct { int kind; const char *path; } beside[] = {
#define BESIDE_INPUT(id, scope, path, type) IF_BESIDE_##scope(id, path)
#define IF_BESIDE_INPUT(id, path) { COND_##id, path },
#define IF_BESIDE_OP(id, path)
#define IF_BESIDE_OP_EXT(id, path)
#define IF_BESIDE_CONSTRAINT(id, path)
		FD_CONDITION_FIELDS(BESIDE_INPUT)
#undef BESIDE_INPUT
#undef IF_BESIDE_INPUT
#undef IF_BESIDE_OP
#undef IF_BESIDE_OP_EXT
#undef IF_BESIDE_CONSTRAINT
	};
	for (size_t k = 0; k < sizeof beside / sizeof *beside; k++) {
		const char *key = cond_def((fd_cond_kind)beside[k].kind)->key;
		const fd_yval *f = strchr(beside[k].path, '.') || !strcmp(beside[k].path, key) ? NULL
		                 : yval_get(src, beside[k].path);
		if (f && !yval_get(src, key))
			WARN(s, f, "%.200s.%s: has no meaning without '%s'", path, beside[k].path, key);
	}
	is->has_operand = is->n_ranks || is->n_shapes || is->is_static >= 0 || is->n_dtypes || is->dtype_op >= 0 ||
	                  is->n_values || is->n_qdq_dtypes;
	is->has_source = is->from_op >= 0 || is->source_type != SRC_UNSET || is->same_op >= 0 || is->value_op >= 0;
	if (!is->has_source && !is->fixed && !is->either &&
	    !is->has_operand && ok) {
		ERR(s, src, "%s: needs a condition (from_op, source_type, same_as, same_value_as, position, rank, "
		    "shape, static, dtype, value or qdq_dtype)", path);
		ok = false;
	}
	return ok;
}
