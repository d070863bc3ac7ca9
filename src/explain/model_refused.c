/* model_refused.c — a fusion the compiler makes and then refuses the whole
 * model for (rewrite.refuses_model, rules.h): the line `match`, `why` and the
 * TUI's title give it. onnxruntime, e.g., fuses a QDQ Add into QLinearAdd and
 * then fails the session in that node's type inference when a scale is not
 * of rank 0. */
#include <stdio.h>
#include "base/text.h"
#include "explain/explain.h"

bool explain_fusion_refuses_model(const fd_match_result *r, size_t fusion)
{
	return fusion < r->n_fusions && r->rules->rules[r->fusions[fusion].rule].refuses_model != NULL;
}

bool explain_refused_model(const fd_match_result *r, char *buf, size_t size)
{
	for (size_t i = 0; i < r->n_fusions; i++) {
		if (!explain_fusion_refuses_model(r, i))
			continue;
		const fd_fusion *fu = &r->fusions[i];
		const fd_rule *rule = &r->rules->rules[fu->rule];
		const fd_graph *g = r->ctx->graphs[fu->graph].g;
		int32_t node = match_unit_node(r->ctx, fu->graph, fusion_ids(r, fu->units)[0]);
		size_t more = 0;
		for (size_t k = i + 1; k < r->n_fusions; k++)
			more += explain_fusion_refuses_model(r, k);
		char others[64] = "";
		if (more)
			snprintf(others, sizeof others, " (and %zu more such fusion%s)", more, more == 1 ? "" : "s");
		text_cutf(buf, size, "the compiler refuses the model: %s on %s makes %s, then \"%s\"%s", rule->name,
		          node >= 0 ? g->nodes[node].name : "?", rule->target_op ? rule->target_op : "?",
		          rule->refuses_model, others);
		return true;
	}
	return false;
}

bool explain_rounds_refused_model(const fd_rounds *rd, char *buf, size_t size)
{
	for (int32_t i = 0; i < rd->n; i++)
		if (explain_refused_model(rd->items[i]->result, buf, size))
			return true;
	return false;
}
