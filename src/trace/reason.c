/* reason.c — the tables of reason.h's lists, indexed by their enums: a
 * reason's row is reasons[r], no search (the matcher reads the rung of every
 * failure). */
#include "trace/reason.h"
#include <assert.h>
#include <string.h>

#define countof(a) (sizeof(a) / sizeof((a)[0]))

static const fd_reason_def reasons[] = {
	[REASON_NONE] = { REASON_NONE, "", RUNG_NOT_RUN, false, "" },
#define ROW(id, code, rung, warning, summary) [REASON_##id] = { REASON_##id, code, RUNG_##rung, warning, summary },
	FD_REASONS(ROW)
#undef ROW
};
static_assert(countof(reasons) == REASON_COUNT, "one row per reason code");

static const char *const rung_names[] = {
#define NAME(id, name, json) [RUNG_##id] = name,
	FD_RUNGS(NAME)
#undef NAME
};
static const char *const rung_ids[] = {
#define JSON_ID(id, name, json) [RUNG_##id] = json,
	FD_RUNGS(JSON_ID)
#undef JSON_ID
};
static_assert(countof(rung_names) == RUNG_COUNT && countof(rung_ids) == RUNG_COUNT, "one name per rung");

const fd_reason_def *reason_get(fd_reason r)
{
	return r > REASON_NONE && r < REASON_COUNT ? &reasons[r] : NULL;
}

const char *reason_code(fd_reason r)
{
	const fd_reason_def *d = reason_get(r);
	return d ? d->code : "";
}

fd_reason reason_from_code(const char *code)
{
	for (size_t i = REASON_NONE + 1; code && i < countof(reasons); i++)
		if (!strcmp(reasons[i].code, code))
			return reasons[i].reason;
	return REASON_NONE;
}

const char *rung_name(fd_rung r)
{
	return r < RUNG_COUNT ? rung_names[r] : "?";
}

const char *rung_id(fd_rung r)
{
	return r < RUNG_COUNT ? rung_ids[r] : "?";
}
