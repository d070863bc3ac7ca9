/* cond_type.c — an op's type (match.ops[i].type): one op type, or a list of
 * alternatives a node matches the first of. Reading it, deciding it on a
 * unit (which alternative, and so which op id its params and where
 * expressions are read as), and its words. */
#include "match/conditions.h"
#include <stdio.h>
#include <string.h>
#include "base/strbuf.h"
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"
#include "rules/optable.h"

/* ---- parse ------------------------------------------------------------------ */

/* An op type's id: the op table's, else a fused op type the set already
 * knows (a what-if's rule derived again; ruleset_resolve_types settles every
 * op after a load), else -1. */
static int type_id(const fd_schema *s, const char *type)
{
	int id = optable_lookup(type);
	for (int k = 0; id < 0 && k < s->rs->n_fused_types; k++)
		if (!strcmp(s->rs->fused_types[k], type))
			id = optable_count() + k;
	return id;
}

bool cond_type_parse(fd_schema *s, fd_cond_site *at, const fd_yval *type, const char *p)
{
	fd_rule_op *op = at->op;
	char b[128];
	int before = s->errors;
	op->type_where = type;
	if (type->kind == YV_SCALAR) {
		op->type = type->text;
		op->op = type_id(s, op->type);
		op->n_types = 1;
		op->types = &op->type;
		op->ops = &op->op;
		if (!*op->type)
			ERR(s, type, "%s: must not be empty", p);
		return s->errors == before;
	}
	if (type->kind != YV_SEQ) {
		ERR(s, type, "%s: expected an op type or a list of op types, got %s", p, schema_describe(type, b, sizeof b));
		return false;
	}
	if (type->n == 0) {
		ERR(s, type, "%s: the list of op types is empty", p);
		return false;
	}
	op->types = arena_array(&s->rs->arena, type->n, sizeof *op->types);
	op->ops = arena_array(&s->rs->arena, type->n, sizeof *op->ops);
	for (size_t i = 0; i < type->n; i++) {
		const fd_yval *t = type->items[i];
		char q[300];
		snprintf(q, sizeof q, "%.200s[%zu]", p, i);
		if (t->kind != YV_SCALAR || !*t->text) {
			ERR(s, t, "%s: expected an op type, got %s", q, schema_describe(t, b, sizeof b));
			continue;
		}
		for (int j = 0; j < op->n_types; j++)
			if (!strcmp(op->types[j], t->text))
				ERR(s, t, "%s: '%s' is listed twice", q, t->text);
		op->types[op->n_types] = t->text;
		op->ops[op->n_types++] = type_id(s, t->text);
	}
	if (op->n_types) {
		op->type = op->types[0];
		op->op = op->ops[0];
	}
	return s->errors == before;
}

/* ---- check ------------------------------------------------------------------ */

void cond_type_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_rule_op *op = c->op;
	if (op->n_types > 1) {
		char list[120];
		cond_types_text(op, list, sizeof list);
		text_cutf(buf, size, "one of %s", list);
		return;
	}
	const fd_op_def *d = optable_get(op->op);
	if (d && strcmp(d->name, op->type))
		text_cutf(buf, size, "%s (%s)", op->type, d->name);
	else
		text_cut(buf, size, op->type);
}

/* What the unit is: "Relu", "Mul domain com.x", "Swish (composite silu)". */
static void unit_type_text(const fd_cond_check *c, char *buf, size_t size)
{
	int32_t k = c->unit - c->g->n_nodes;
	if (k >= 0) {
		const fd_composite_rec *comp = &c->ix->canon.items[k];
		text_cutf(buf, size, "%s (composite %s)", cond_composite_name(comp->kind),
		          canon_recogniser_name((fd_recogniser)comp->recogniser));
		return;
	}
	const fd_node *n = &c->g->nodes[c->unit];
	if (c->op->n_types > 1)   /* a list names the op type alone */
		text_cut(buf, size, n->op_type);
	else
		text_cutf(buf, size, "%s%s%s", n->op_type, n->domain && *n->domain ? " domain " : "",
		          n->domain ? n->domain : "");
}

/* Decides which alternative the unit is: c->sub (-1: none), c->op_id (the
 * first type's id when none). In a run, the index's bits inline; explaining,
 * the same bits through match_type_alt. */
fd_reason cond_type_check(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_rule_op *op = c->op;
	int alt = c->run ? unit_type_alt(c->ix, c->unit, op) : match_type_alt(c->ix, c->unit, op);
	c->sub = alt;
	c->op_id = alt >= 0 ? op->ops[alt] : op->op;
	fd_reason why = cond_type_verdict(op, alt);
	if (!facts)
		return why;
	cond_facts_clear(facts);
	facts->reason = why;
	snprintf(facts->path, sizeof facts->path, "type");
	cond_type_describe(c, facts->expected, sizeof facts->expected);
	unit_type_text(c, facts->actual, sizeof facts->actual);
	const fd_yval *w = op->type_where;
	if (op->n_types > 1) {
		if (alt >= 0)
			text_appendf(facts->reason_text, sizeof facts->reason_text, 0, "type[%d] %s", alt, op->types[alt]);
		else
			text_appendf(facts->reason_text, sizeof facts->reason_text, 0, "none of the listed types");
		facts->decided = alt >= 0 && w && w->kind == YV_SEQ && (size_t)alt < w->n ? w->items[alt] : w;
	} else {
		if (why)
			text_cut(facts->reason_text, sizeof facts->reason_text, "op type differs");
		facts->decided = w ? w : op->where;
	}
	return why;
}
