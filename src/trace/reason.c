/* reason.c — the reason-code table (reason.h): one row per code, with the
 * rung it ends an attempt on and a one-line description. The man page's
 * table in fusiondbg(1), section THE TRACE, is this table in roff. Owned by the matcher. */
#include "trace/reason.h"
#include <string.h>

#define countof(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const fd_reason_def reasons[] = {
	{ REASON_NR01_DISABLED,   "FD-NR01", RUNG_NOT_RUN, false, "rule disabled (GRAPH_AUTOFUSION_ENABLE, GRAPH_AUTOFUSION_RULES or an edit)" },
	{ REASON_NR02_SCOPE,      "FD-NR02", RUNG_NOT_RUN, false, "target not in the rule's scope" },
	{ REASON_NR03_NO_PATTERN, "FD-NR03", RUNG_NOT_RUN, false, "pattern cannot run: no ops, or an op type the op table does not know" },
	{ REASON_NM01_TYPE,       "FD-NM01", RUNG_NO_MATCH, false, "op type differs" },
	{ REASON_NM02_ARITY,      "FD-NM02", RUNG_NO_MATCH, false, "input count outside min_inputs..max_inputs" },
	{ REASON_NM03_PARAM,      "FD-NM03", RUNG_NO_MATCH, false, "param differs, or the node has no such param" },
	{ REASON_NM04_SOURCE,     "FD-NM04", RUNG_NO_MATCH, false, "input does not come from where the rule says (from_op, source_type, chain link)" },
	{ REASON_NM05_ESCAPE,     "FD-NM05", RUNG_NO_MATCH, false, "an intermediate tensor is used outside the match or is a graph output" },
	{ REASON_NM06_COUNTS,     "FD-NM06", RUNG_NO_MATCH, false, "subgraph external input count or output count differs" },
	{ REASON_CF01_DTYPE,      "FD-CF01", RUNG_CONDITION, false, "dtype_match: a tensor's dtype is not allowed" },
	{ REASON_CF02_SHAPE,      "FD-CF02", RUNG_CONDITION, false, "shape_constraint: elementwise inputs do not broadcast" },
	{ REASON_CF03_MEMORY,     "FD-CF03", RUNG_CONDITION, false, "memory_limit: an intermediate or output is over the limit" },
	{ REASON_CF04_WORKSPACE,  "FD-CF04", RUNG_CONDITION, false, "workspace_size: estimated workspace over max_workspace" },
	{ REASON_CF05_CHANNEL,    "FD-CF05", RUNG_CONDITION, false, "channel_divisibility: channel dim not divisible" },
	{ REASON_CL01_CONFLICT,   "FD-CL01", RUNG_CONFLICT, false, "a node is already claimed by a rule that fired earlier" },
	{ REASON_WC01_CYCLE,      "FD-WC01", RUNG_CYCLE, false, "fusing would create a cycle (a path leaves the match and comes back)" },
	{ REASON_OK_FIRED,        "FD-OK",   RUNG_FIRED, false, "fired" },
	{ REASON_WN01_UNKNOWN_CONSTRAINT, "FD-WN01", RUNG_FIRED, true, "unknown constraint type, ignored (an error under check --strict)" },
	{ REASON_WN02_UNDECIDED,  "FD-WN02", RUNG_FIRED, true, "size, dtype or shape unknown: constraint passed undecided" },
	{ REASON_WN03_SPILL,      "FD-WN03", RUNG_FIRED, true, "workspace over max_workspace, passes because spill_to_l2 is set" },
};

static const char *const rung_names[RUNG_COUNT] = {
	"not run", "no match", "condition failed", "conflict lost", "would cycle", "fired",
};
static const char *const rung_ids[RUNG_COUNT] = {
	"not_run", "no_match", "condition_failed", "conflict_lost", "would_cycle", "fired",
};

const fd_reason_def *reason_get(fd_reason r)
{
	for (int i = 0; i < countof(reasons); i++)
		if (reasons[i].reason == r)
			return &reasons[i];
	return NULL;
}

const char *reason_code(fd_reason r)
{
	const fd_reason_def *d = reason_get(r);
	return d ? d->code : "";
}

fd_reason reason_from_code(const char *code)
{
	for (int i = 0; code && i < countof(reasons); i++)
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
