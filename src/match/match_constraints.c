/* match_constraints.c — a rule's constraints, measured on a complete match
 * (s->cover): each by its entry of the condition list (cond_*.c, scope
 * CONSTRAINT), for the matcher (match_constraint) and for explain/
 * (cond_constraint_check with facts). A type the format does not know
 * passes with an FD-WN01 warning event. */
#include "base/text.h"
#include "match/cond_constraint.h"
#include "match/match_internal.h"

static fd_reason check_unknown(fd_cond_check *c, fd_cond_facts *facts)
{
	if (c->run) {
		cond_event_payload none = cond_event_empty(EV_CONSTRAINT);
		match_emit_cond(c->run, EV_CONSTRAINT, ST_WARN, REASON_WN01_UNKNOWN_CONSTRAINT, -1, c->constraint_index,
		                FD_NONE, &none);
	}
	if (facts) {
		*facts = (fd_cond_facts){ .decided = c->constraint->where };
		text_cut(facts->reason_text, sizeof facts->reason_text, "unknown constraint type, ignored");
	}
	return REASON_NONE;
}

fd_reason cond_check_constraint(fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_cond_def *d = cond_def((fd_cond_kind)c->constraint->kind);
	if (!d || d->scope != SCOPE_CONSTRAINT)
		return check_unknown(c, facts);
	return cond_check_event(EV_CONSTRAINT, (uint64_t)1 << d->kind, c, facts);
}

void cond_constraint_label(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_constraint *k = c->constraint;
	const char *type = k->type ? k->type : "unknown";
	if (k->kind == COND_MEMORY_LIMIT)
		text_join(buf, size, 3, "constraint memory_limit ", cond_memory_limit_field(c->ev), "");
	else
		text_join(buf, size, 3, "constraint ", type, "");
}

bool match_constraint(match_run_state *s, int index, int n_ops, uint32_t passed)
{
	fd_cond_check c = {
		.ctx = s->ctx, .graph = s->gi, .g = s->g, .ix = s->ix, .rule = s->r,
		.constraint = &s->r->constraints[index], .constraint_index = index, .run = s,
	};
	fd_reason why = cond_check_constraint(&c, NULL);
	if (why == REASON_NONE)
		return true;
	match_fail(s, s->n_emitted - 1, why, n_ops, passed);   /* the failing event is the last emitted */
	return false;
}
