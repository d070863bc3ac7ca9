/* constraint_path.c — a CONSTRAINT event's facts: its constraint's check
 * asked with the recorded event (match/cond_constraint.h), which the
 * trace's words (trace_report.c) and the TUI's edit (explain_constraint_path:
 * the what-if path of the value that decided) read instead of deciding
 * again. */
#include <string.h>
#include "explain/explain.h"
#include "explain/explain_internal.h"

bool explain_constraint_facts(const fd_match_result *r, const fd_event *ev, cond_size_cache *sizes, fd_cond_check *c,
                      fd_cond_facts *facts)
{
	uint64_t stated;
	if (ev->kind != EV_CONSTRAINT || !cond_event_decode(r->ctx, r->rules, &r->trace, ev, c, &stated))
		return false;
	c->sizes = sizes;
	cond_check_constraint(c, facts);
	return true;
}

bool explain_constraint_path(const fd_match_result *r, const fd_event *ev, char *buf, size_t size)
{
	fd_cond_check c;
	fd_cond_facts facts;
	if (size)
		buf[0] = '\0';
	if (!explain_constraint_facts(r, ev, NULL, &c, &facts) || !facts.path[0])
		return false;
	size_t n = strlen(facts.path);
	if (n >= size)   /* a path cut would name another value */
		return false;
	memcpy(buf, facts.path, n + 1);
	return true;
}
