/* cond.c — the condition list as data (conditions.h): each entry's scope,
 * key, event, reason and functions, and the lookup by key. Every reader of
 * a condition reaches its functions through this table. */
#include <assert.h>
#include <string.h>
#include "match/conditions.h"

static const fd_cond_def defs[] = {
#define FD_COND_DEF(id, scope, key, event, reason, fn) \
	{ COND_##id, SCOPE_##scope, key, EV_##event, REASON_##reason, fn##_parse, fn##_check, fn##_describe },
	FD_CONDITIONS(FD_COND_DEF)
#undef FD_COND_DEF
};
static_assert(sizeof defs / sizeof *defs == COND_COUNT, "an entry for every condition");

const fd_cond_def *cond_def(fd_cond_kind k)
{
	return (unsigned)k < COND_COUNT ? &defs[k] : NULL;
}

fd_cond_kind cond_by_key(fd_cond_scope scope, const char *key)
{
	for (int k = 0; key && k < COND_COUNT; k++)
		if (defs[k].scope == scope && !strcmp(defs[k].key, key))
			return (fd_cond_kind)k;
	return COND_COUNT;
}
