/* cond.c — the condition list as data (conditions.h): each entry's scope,
 * key, event, reason and functions, and the lookup by key. Every reader of
 * a condition reaches its functions through this table. */
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
