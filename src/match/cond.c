/* cond.c — the condition list as data (conditions.h): each entry's scope,
 * key, event, reason and functions, the lookups by key and by event, and
 * the dispatch: the one loop that runs an event's stated rows. Every
 * reader of a condition reaches its functions through this table. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "match/conditions.h"

static const fd_cond_def defs[] = {
#define FD_COND_DEF(id, scope, key, event, reason, fn) \
	{ COND_##id, SCOPE_##scope, key, EV_##event, REASON_##reason, fn##_parse, fn##_check, fn##_describe },
	FD_CONDITIONS(FD_COND_DEF)
#undef FD_COND_DEF
};

/* The lints, by kind (FD_CONDITION_LINTS). */
static void (*const lints[COND_COUNT])(const fd_cond_lint *) = {
#define FD_COND_LINT(id, fn) [COND_##id] = fn##_lint,
	FD_CONDITION_LINTS(FD_COND_LINT)
#undef FD_COND_LINT
};
static_assert(sizeof defs / sizeof *defs == COND_COUNT, "an entry for every condition");

/* The events of several rows, their families' hooks (FD_CONDITION_EVENTS). */
typedef struct cond_event_hooks {
	fd_event_kind event;
	fd_reason (*begin)(fd_cond_check *c, fd_cond_facts *facts);
	fd_reason (*end)(fd_cond_check *c, fd_cond_facts *facts, fd_reason r);
} cond_event_hooks;
static const cond_event_hooks families[] = {
#define FD_COND_EVENT(event, fn) { EV_##event, fn##_begin, fn##_end },
	FD_CONDITION_EVENTS(FD_COND_EVENT)
#undef FD_COND_EVENT
};

const fd_cond_def *cond_def(fd_cond_kind k)
{
	return (unsigned)k < COND_COUNT ? &defs[k] : NULL;
}

void (*cond_lint_of(fd_cond_kind k))(const fd_cond_lint *)
{
	return (unsigned)k < COND_COUNT ? lints[k] : NULL;
}

static void lint_say_v(const fd_cond_lint *l, fd_severity sev, fd_srcpos pos, const char *fmt, va_list ap)
{
	if (sev == DIAG_NOTE && !l->verbose)
		return;
	char msg[2048];
	vsnprintf(msg, sizeof msg, fmt, ap);
	l->say(l->ctx, sev, pos, msg);
}

void cond_lint_say_at(const fd_cond_lint *l, fd_severity sev, fd_srcpos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lint_say_v(l, sev, pos, fmt, ap);
	va_end(ap);
}

void cond_lint_say(const fd_cond_lint *l, fd_severity sev, const fd_yval *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lint_say_v(l, sev, yval_pos(at), fmt, ap);
	va_end(ap);
}

fd_cond_kind cond_by_key(fd_cond_scope scope, const char *key)
{
	for (int k = 0; key && k < COND_COUNT; k++)
		if (defs[k].scope == scope && !strcmp(defs[k].key, key))
			return (fd_cond_kind)k;
	return COND_COUNT;
}

fd_cond_kind cond_first(uint64_t mask)
{
	for (int k = 0; k < COND_COUNT; k++)
		if (mask >> k & 1)
			return (fd_cond_kind)k;
	return COND_COUNT;
}

fd_cond_kind cond_of_event(fd_cond_scope scope, fd_event_kind event)
{
	for (int k = 0; k < COND_COUNT; k++)
		if (defs[k].scope == scope && defs[k].event == event)
			return (fd_cond_kind)k;
	return COND_COUNT;
}

uint64_t cond_rows(fd_cond_scope scope, fd_event_kind event)
{
	uint64_t m = 0;
	for (int k = 0; k < COND_COUNT; k++)
		if (defs[k].scope == scope && (event == EV_KIND_COUNT || defs[k].event == event))
			m |= (uint64_t)1 << k;
	return m;
}

uint64_t cond_rows_before(fd_cond_scope scope, fd_cond_scope before)
{
	uint64_t m = 0;
	for (int k = 0; k < COND_COUNT && defs[k].scope != before; k++)
		if (defs[k].scope == scope)
			m |= (uint64_t)1 << k;
	return m;
}

const char *cond_keys(uint64_t mask, const char *last, char *buf, size_t size)
{
	size_t at = 0;
	int n = 0, total = 0;
	const char *prev = NULL;
	for (int k = 0; k < COND_COUNT; k++)   /* a key two rows share is said once */
		if ((mask >> k & 1) && (!prev || strcmp(prev, defs[k].key)) && ++total)
			prev = defs[k].key;
	prev = NULL;
	buf[0] = '\0';
	for (int k = 0; k < COND_COUNT; k++) {
		if (!(mask >> k & 1) || (prev && !strcmp(prev, defs[k].key)))
			continue;
		prev = defs[k].key;
		int w = snprintf(buf + at, at < size ? size - at : 0, "%s%s", n == 0 ? "" : n + 1 == total ? last : ", ",
		                 defs[k].key);
		at += w > 0 ? (size_t)w : 0;
		n++;
	}
	return buf;
}

fd_reason cond_check_event(fd_event_kind event, uint64_t stated, fd_cond_check *c, fd_cond_facts *facts)
{
	const cond_event_hooks *h = NULL;
	for (size_t f = 0; f < sizeof families / sizeof *families; f++)
		if (families[f].event == event)
			h = &families[f];
	if (facts)
		memset(facts, 0, sizeof *facts);
	fd_reason r = h ? h->begin(c, facts) : REASON_NONE;
	for (int k = 0; k < COND_COUNT && (!r || facts); k++) {
		if (defs[k].event != event || !(stated >> k & 1))
			continue;
		fd_reason own = defs[k].check(c, facts);
		if (!r)
			r = own;
	}
	return h ? h->end(c, facts, r) : r;
}
