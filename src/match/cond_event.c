/* cond_event.c — a recorded event back into the check that made it: the
 * one reader of an event's payload for the conditions, and its writer (the
 * run stores a check's payload with match_emit_cond, match_internal.h),
 * both made from FD_COND_EVENT_FIELDS. explain/ asks the event's rows with
 * the check this gives (cond_check_event) instead of deciding again. */
#include <string.h>
#include "match/conditions.h"
#include "match/match_internal.h"

const fd_rule_pattern *cond_event_pattern(const fd_rule *r, int branch)
{
	if (branch == FD_BRANCH_EFFECT && r->effect.n_ops)
		return &r->effect;
	if (branch == FD_BRANCH_CHANGE && r->change.n_ops)
		return &r->change;
	return branch >= 0 && branch < r->n_branches ? &r->branches[branch] : &r->match;
}

/* Both directions are made from FD_COND_EVENT_FIELDS, the one map. */
void cond_event_write(fd_event *ev, fd_event_kind kind, const cond_event_payload *p)
{
#define WRITE(k, member, name, stored) \
	if (kind == EV_##k)            \
		ev->stored = p->member.name;
	FD_COND_EVENT_FIELDS(WRITE)
#undef WRITE
}

cond_event_payload cond_event_read(const fd_event *ev)
{
	cond_event_payload p;
	memset(&p, 0, sizeof p);
#define READ(k, member, name, stored) \
	if (ev->kind == EV_##k)        \
		p.member.name = ev->stored;
	FD_COND_EVENT_FIELDS(READ)
#undef READ
	return p;
}

cond_event_payload cond_event_empty(fd_event_kind kind)
{
	fd_event defaults = { .kind = (uint8_t)kind, .other = FD_NONE };
	return cond_event_read(&defaults);
}

bool cond_event_decode(const fd_match_ctx *ctx, const fd_ruleset *rules, const fd_trace *trace, const fd_event *ev,
                       fd_cond_check *c, uint64_t *stated)
{
	if (ev->rule < 0 || ev->rule >= rules->n_rules || ev->graph < 0 || ev->graph >= ctx->n_graphs)
		return false;
	const fd_rule *rule = &rules->rules[ev->rule];
	const fd_graph_index *ix = &ctx->graphs[ev->graph];
	cond_event_payload p = cond_event_read(ev);
	*c = (fd_cond_check){ .ctx = ctx, .graph = ev->graph, .g = ix->g, .ix = ix, .rule = rule, .source_index = -1,
	                      .constraint_index = -1, .unit = ev->unit, .tensor = FD_NONE, .slot = -1, .bound = -1,
	                      .sub = ev->sub, .payload = p, .ev = ev };
	if (ev->kind == EV_SOURCE) {
		c->tensor = (int32_t)p.source.tensor;
		c->slot = (int)p.source.slot;
	} else if (ev->kind == EV_OPERAND) {
		c->tensor = (int32_t)p.operand.tensor;
		c->slot = p.operand.slot;
		c->bound = p.operand.bound;
	}
	if (ev->kind == EV_CONSTRAINT) {
		if (ev->sub < 0 || ev->sub >= rule->n_constraints)
			return false;
		c->constraint = &rule->constraints[ev->sub];
		c->constraint_index = ev->sub;
		*stated = c->constraint->kind < COND_COUNT ? (uint64_t)1 << c->constraint->kind : 0;
		return true;
	}
	fd_cond_kind kind = cond_of_event(SCOPE_SUBGRAPH, (fd_event_kind)ev->kind);
	if (kind != COND_COUNT) {
		*stated = (uint64_t)1 << kind;
		return true;
	}
	const fd_rule_pattern *pat = cond_event_pattern(rule, ev->branch);
	if (ev->op < 0 || ev->op >= pat->n_ops || ev->unit < 0 || ev->unit >= ix->n_units)
		return false;
	const fd_rule_op *op = &pat->ops[ev->op];
	c->op = op;
	c->op_index = ev->op;
	/* read as the type it matched */
	int alt = op->n_types > 1 ? match_type_alt(ix, ev->unit, op) : 0;
	c->op_id = alt >= 0 ? op->ops[alt] : op->op;
	kind = cond_of_event(SCOPE_OP, (fd_event_kind)ev->kind);
	if (kind != COND_COUNT) {
		if (kind == COND_TYPE)
			c->op_id = op->op;
		int64_t at = p.where.path_at, n = p.where.n_path;
		if (ev->kind == EV_WHERE && op->where_ops && n > 0 && at >= 0 && (uint64_t)at <= trace->n_paths &&
		    (uint64_t)n <= trace->n_paths - (uint64_t)at) {
			c->where_path = trace->paths + at;   /* the earlier ops' units the event recorded */
			c->n_where_path = (int32_t)n;
		}
		*stated = (uint64_t)1 << kind;
		return true;
	}
	if (ev->kind == EV_ORDER) {
		*stated = COND_BIT(POSITION);
		return true;
	}
	if ((ev->kind != EV_SOURCE && ev->kind != EV_OPERAND) || ev->sub < 0 || ev->sub >= op->n_sources)
		return false;
	c->input = &op->sources[ev->sub];
	c->source_index = ev->sub;
	*stated = c->input->conds;
	return true;
}
