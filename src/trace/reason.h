/* reason.h — the ladder every match attempt ends on, and the stable reason
 * codes (in the manner of GE's NF10xx) that scripts rely on. The codes are one
 * table in reason.c: code text, rung, one-line description. Never renumber a
 * code; add new ones at the end of their rung. */
#ifndef FD_REASON_H
#define FD_REASON_H
#include <stdbool.h>

/* Where an attempt stopped, worst first; a higher rung got further. */
typedef enum fd_rung {
	RUNG_NOT_RUN = 0,      /* disabled, out of scope, cannot run */
	RUNG_NO_MATCH,         /* type, arity, param, input source, boundary */
	RUNG_CONDITION,        /* a constraint failed */
	RUNG_CONFLICT,         /* lost a node to a rule that fired earlier */
	RUNG_CYCLE,            /* fusing would create a cycle */
	RUNG_FIRED,
	RUNG_COUNT
} fd_rung;

/* Every code. REASON_NONE marks a passing check. */
typedef enum fd_reason {
	REASON_NONE = 0,
	REASON_NR01_DISABLED,      /* FD-NR01 rule disabled (env or what-if) */
	REASON_NR02_SCOPE,         /* FD-NR02 target not in the rule's scope */
	REASON_NR03_NO_PATTERN,    /* FD-NR03 pattern cannot run: no ops, or op0's type unknown */
	REASON_NM01_TYPE,          /* FD-NM01 op type differs */
	REASON_NM02_ARITY,         /* FD-NM02 input count outside min_inputs..max_inputs */
	REASON_NM03_PARAM,         /* FD-NM03 param differs or the node has no such param */
	REASON_NM04_SOURCE,        /* FD-NM04 input does not come from where the rule says */
	REASON_NM05_ESCAPE,        /* FD-NM05 an intermediate tensor escapes the match */
	REASON_NM06_COUNTS,        /* FD-NM06 subgraph external inputs / outputs count */
	REASON_CF01_DTYPE,         /* FD-CF01 dtype_match */
	REASON_CF02_SHAPE,         /* FD-CF02 shape_constraint */
	REASON_CF03_MEMORY,        /* FD-CF03 memory_limit */
	REASON_CF04_WORKSPACE,     /* FD-CF04 workspace_size */
	REASON_CF05_CHANNEL,       /* FD-CF05 channel_divisibility */
	REASON_CL01_CONFLICT,      /* FD-CL01 node already claimed by a higher rule */
	REASON_WC01_CYCLE,         /* FD-WC01 would create a cycle */
	REASON_OK_FIRED,           /* FD-OK fired */
	REASON_WN01_UNKNOWN_CONSTRAINT, /* FD-WN01 unknown constraint type, ignored (warning) */
	REASON_WN02_UNDECIDED,     /* FD-WN02 size/dtype/shape unknown, constraint passed (warning) */
	REASON_WN03_SPILL,         /* FD-WN03 workspace over the limit, spills to L2 (warning) */
	REASON_COUNT
} fd_reason;

typedef struct fd_reason_def {
	fd_reason reason;
	const char *code;          /* "FD-NM03" */
	fd_rung rung;              /* for warnings: the rung they do not change (RUNG_FIRED) */
	bool warning;              /* a warning never ends an attempt */
	const char *summary;       /* one line, lowercase: "param differs" */
} fd_reason_def;

const fd_reason_def *reason_get(fd_reason r);   /* NULL for REASON_NONE / out of range */
const char *reason_code(fd_reason r);           /* "FD-NM03", "" for REASON_NONE */
fd_reason reason_from_code(const char *code);   /* REASON_NONE when unknown */
const char *rung_name(fd_rung r);               /* "not run", "no match", … */
const char *rung_id(fd_rung r);                 /* "not_run", "no_match", … (JSON) */

#endif
