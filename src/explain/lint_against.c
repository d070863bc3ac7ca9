/* lint_against.c — the lint that needs a model (`check RULES --against
 * MODEL`): what the rules alone cannot show. A rule that never fires on the
 * model is a warning with its nearest miss (the attempt that got furthest,
 * in why's one line), or, with no anchor at all, what comes nearest to one.
 * A param the op table derives from the node and its tensors (broadcast,
 * activation_type, normalized_shape, …) is no ONNX attribute: a note says
 * what it derives to on the model's nodes of that op, and a warning when the
 * value the rule writes holds on none of them. Owns nothing; fills d. */
#include <stdio.h>
#include <string.h>
#include "explain/explain.h"
#include "base/text.h"

/* The distinct derived values of one param over the model's nodes. */
#define MAX_VALUES 6
typedef struct derived_tally {
	char text[MAX_VALUES][64];
	int count[MAX_VALUES];
	int n_values, n_nodes, n_match, n_more;   /* n_more: nodes whose value did not fit the table */
} derived_tally;

static void tally_add(derived_tally *t, const char *text)
{
	for (int i = 0; i < t->n_values; i++)
		if (!strcmp(t->text[i], text)) {
			t->count[i]++;
			return;
		}
	if (t->n_values == MAX_VALUES) {
		t->n_more++;
		return;
	}
	snprintf(t->text[t->n_values], sizeof t->text[0], "%s", text);
	t->count[t->n_values++] = 1;
}

/* Every unit of the main graph that is an instance of op: the value the
 * param takes on it when the op table derives it (no attribute, no input). */
static void tally_param(const fd_match_ctx *ctx, int op, const fd_param_def *pd, const fd_yval *want,
                        derived_tally *t)
{
	const fd_graph_index *ix = &ctx->graphs[0];
	memset(t, 0, sizeof *t);
	/* the op's anchor units: its nodes and its decomposed forms alike */
	for (int32_t k = ix->anchor_off[op]; k < ix->anchor_off[op + 1]; k++) {
		int32_t u = ix->anchor_units[k];
		fd_pval v;
		param_def_value(ix->g, &ix->g->nodes[match_unit_node(ctx, 0, u)], match_composite(ctx, 0, u),
		                ix->canon.pool, op, pd, pd->name, &v);
		if (v.source != PVS_DERIVED)
			continue;
		char b[64];
		tally_add(t, explain_pval(&v, b, sizeof b));
		t->n_nodes++;
		if (param_matches(want, pd, &v))
			t->n_match++;
	}
}

/* "false on 6 Add nodes, true on 1" */
static const char *tally_text(const derived_tally *t, const char *type, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < t->n_values && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, i ? ", %s on %d" : "%s on %d %s node%s", t->text[i],
		                        t->count[i], type, t->count[i] == 1 ? "" : "s");
	if (t->n_more && len < size)
		snprintf(buf + len, size - len, ", other values on %d", t->n_more);
	return buf;
}

static void lint_params(const fd_match_result *r, const fd_rule_pattern *p, const char *where, const char *model,
                        fd_diags *d)
{
	for (int k = 0; k < p->n_ops; k++) {
		const fd_rule_op *op = &p->ops[k];
		if (op->n_types != 1 || op->op < 0 || op->op >= optable_count())
			continue;
		for (int j = 0; j < op->n_params; j++) {
			const fd_rule_param *rp = &op->params[j];
			const fd_param_def *pd = optable_param(op->op, rp->name);
			if (!pd || pd->derived == DERIVED_NONE)
				continue;
			derived_tally t;
			tally_param(r->ctx, op->op, pd, rp->value, &t);
			fd_srcpos at = yval_pos(rp->value);
			char vals[400], want[64];
			snprintf(want, sizeof want, "%s", rp->value && rp->value->text ? rp->value->text : "~");
			if (!t.n_nodes)   /* no node of the op: the rule's own warning says so */
				continue;
			if (!t.n_match)
				diag_add(d, DIAG_WARNING, at, "%s[%d].params.%s: %s never holds on %s: derived, not an ONNX "
				         "attribute, it is %s", where, k, rp->name, want, model,
				         tally_text(&t, op->type, vals, sizeof vals));
			else
				diag_add(d, DIAG_NOTE, at, "%s[%d].params.%s: derived, not an ONNX attribute; on %s it is %s "
				         "(%s holds on %d of %d)", where, k, rp->name, model,
				         tally_text(&t, op->type, vals, sizeof vals), want, t.n_match, t.n_nodes);
		}
	}
}

void explain_lint_against(const fd_match_result *r, const char *model, fd_diags *d)
{
	const fd_ruleset *rs = r->rules;
	for (int32_t i = 0; i < rs->n_rules; i++) {
		const fd_rule *rule = &rs->rules[i];
		fd_srcpos at = yval_pos(yval_get(rule->root, "name"));
		if (!at.file)
			at = srcpos_file(rule->file);
		const fd_rule_stats *st = &r->stats[i];
		if (st->effect_times == 0) {
			uint32_t a = explain_closest_miss(r, i);
			if (a != UINT32_MAX) {
				char line[2048];
				const char *l = explain_why_line(r, a, line, sizeof line);
				diag_add(d, DIAG_WARNING, at, "rule '%s' never fires on %s (%lld attempts); the nearest miss: %s",
				         rule->name, model, (long long)st->attempts, !strncmp(l, "why: ", 5) ? l + 5 : l);
			} else {
				char lines[1][320];
				size_t n = explain_anchor_candidates(r, i, lines, 1);
				diag_add(d, DIAG_WARNING, at, "rule '%s' never fires on %s: no node is its anchor%s%s", rule->name,
				         model, n ? "; " : "", n ? lines[0] : "");
			}
		}
		lint_params(r, &rule->match, "match.ops", model, d);
		for (int b = 0; b < rule->n_branches; b++) {
			char where[48];
			snprintf(where, sizeof where, "match.branches[%d].ops", b);
			lint_params(r, &rule->branches[b], where, model, d);
		}
	}
}
