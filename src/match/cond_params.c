/* cond_params.c — an op's params (match.ops[i].params: name → value or list
 * of values): reading them, deciding each on the unit's value of that param
 * (read as the op id its type matched), and their words. */
#include "match/conditions.h"
#include <stdio.h>
#include <string.h>
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"
#include "match/param_value.h"
#include "rules/optable.h"

bool cond_params_parse(fd_schema *s, fd_cond_site *at, const fd_yval *params, const char *p)
{
	fd_rule_op *op = at->op;
	at->states = false;   /* params: {} states nothing */
	if (yval_is_null(params))
		return true;
	if (!schema_kind(s, params, YV_MAP, p) || !schema_count(s, params, p, FD_RULE_MAX_ITEMS, "params"))
		return false;
	bool ok = true;
	op->params = arena_array(&s->rs->arena, params->n ? params->n : 1, sizeof *op->params);
	for (size_t i = 0; i < params->n; i++) {
		const fd_yval *pv = params->items[i];
		char b[128];
		if (pv->kind == YV_MAP) {
			ERR(s, pv, "%s.%s: expected a value or a list of values, got %s", p, params->keys[i]->text,
			    schema_describe(pv, b, sizeof b));
			ok = false;
			continue;
		}
		op->params[op->n_params++] = (fd_rule_param){ params->keys[i]->text, pv };
	}
	at->states = op->n_params > 0;
	return ok;
}

/* The value the rule writes for param c->sub. */
void cond_params_describe(const fd_cond_check *c, char *buf, size_t size)
{
	buf[0] = '\0';
	if (c->sub >= 0 && c->sub < c->op->n_params)
		cond_yval_text(c->op->params[c->sub].value, buf, size);
}

/* The unit's value v of param p against the rule's, in words. */
static void say(const fd_cond_check *c, const fd_rule_param *p, const fd_pval *v, bool ok, fd_cond_facts *facts)
{
	facts->reason = ok ? REASON_NONE : REASON_NM03_PARAM;
	facts->decided = p->value;
	snprintf(facts->path, sizeof facts->path, "params.%s", p->name);
	cond_params_describe(c, facts->expected, sizeof facts->expected);
	if (v->kind == PV_NO_SUCH || v->kind == PV_ABSENT) {
		text_cut(facts->reason_text, sizeof facts->reason_text,
		         v->kind == PV_NO_SUCH ? "node has no such param" : "node has no value for it");
		return;
	}
	char val[112];
	cond_pval_text(v, val, sizeof val);
	if (v->source == PVS_DEFAULT || v->source == PVS_DERIVED || v->source == PVS_INPUT || v->source == PVS_COMPOSITE)
		text_cutf(facts->actual, sizeof facts->actual, "%s (%s)", val, param_source_name(v->source));
	else
		text_cut(facts->actual, sizeof facts->actual, val);
	int64_t written;
	if (!ok)
		text_cut(facts->reason_text, sizeof facts->reason_text,
		         v->kind == PV_UNKNOWN ? "value not known here" : "value differs");
	else if (v->kind == PV_INT && v->axis_rank > 0 && p->value->kind == YV_SCALAR && yval_int(p->value, &written) &&
	         written != v->i)   /* a pass that reads like a mismatch: say why the two are one axis */
		text_cutf(facts->reason_text, sizeof facts->reason_text,
		          "the same axis once normalised: %lld counts from the end, axis %lld of the rank-%d input",
		          (long long)(written < 0 ? written : v->i), (long long)(written < 0 ? v->i : written),
		          (int)v->axis_rank);
}

/* In a run every param in order, c->sub the first that fails (n_params when
 * none); explaining, param c->sub (the event's). */
fd_reason cond_params_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	int32_t k = c->unit - c->g->n_nodes;
	const fd_composite_rec *comp = k >= 0 ? &c->ix->canon.items[k] : NULL;
	const fd_node *n = &c->g->nodes[comp ? comp->last : c->unit];
	int from = c->run ? 0 : c->sub, to = c->run ? op->n_params : c->sub + 1;
	if (facts)
		cond_facts_clear(facts);
	for (int p = from < 0 ? 0 : from; p < to && p < op->n_params; p++) {
		fd_pval v;
		const fd_param_def *def = optable_param(c->op_id, op->params[p].name);
		param_def_value(c->g, n, comp, c->ix->canon.pool, c->op_id, def, op->params[p].name, &v);
		bool ok = param_matches(op->params[p].value, def, &v);
		if (facts) {
			c->sub = p;
			say(c, &op->params[p], &v, ok, facts);
		}
		if (!ok) {
			c->sub = c->held = p;
			return REASON_NM03_PARAM;
		}
	}
	c->sub = c->held = to;
	return REASON_NONE;
}
