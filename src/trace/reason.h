/* reason.h — the ladder every match attempt ends on, and the stable reason
 * codes (in the manner of GE's NF10xx) that scripts rely on. Both are one
 * X-macro list each, below: the enum, the names and the descriptions come
 * from it (reason.c makes the tables). The man page's table in fusiondbg(1),
 * section THE TRACE, is FD_REASONS in roff. Never renumber a code; add new
 * ones at the end of their rung. */
#ifndef FD_REASON_H
#define FD_REASON_H
#include <stdbool.h>

/* Where an attempt stopped, worst first; a higher rung got further.
 *   X(id, name, JSON id)                                  what it covers */
#define FD_RUNGS(X) \
	X(NOT_RUN,   "not run",          "not_run")           /* disabled, out of scope, cannot run */ \
	X(NO_MATCH,  "no match",         "no_match")          /* type, arity, param, input source, boundary */ \
	X(CONDITION, "condition failed", "condition_failed")  /* a constraint failed */ \
	X(CONFLICT,  "conflict lost",    "conflict_lost")     /* lost a node to a rule that fired earlier */ \
	X(CYCLE,     "would cycle",      "would_cycle")       /* fusing would create a cycle */ \
	X(FIRED,     "fired",            "fired")

typedef enum fd_rung {
#define FD_RUNG_ENUM(id, name, json) RUNG_##id,
	FD_RUNGS(FD_RUNG_ENUM)
#undef FD_RUNG_ENUM
	RUNG_COUNT
} fd_rung;

/* Every code: X(id, code, rung, warning, summary). A warning never ends an
 * attempt; its rung is the one it does not change (FIRED). The summary is one
 * line, lowercase. REASON_NONE (before the list) marks a passing check. */
#define FD_REASONS(X) \
	X(NR01_DISABLED,   "FD-NR01", NOT_RUN,   false, "rule disabled (enabled: false, an edit, GRAPH_AUTOFUSION_ENABLE or _RULES, the fusion switch file)") \
	X(NR02_SCOPE,      "FD-NR02", NOT_RUN,   false, "target not in the rule's scope") \
	X(NR03_NO_PATTERN, "FD-NR03", NOT_RUN,   false, "pattern cannot run: no ops, or an op type the op table does not know") \
	X(NM01_TYPE,       "FD-NM01", NO_MATCH,  false, "op type differs") \
	X(NM02_ARITY,      "FD-NM02", NO_MATCH,  false, "input count outside min_inputs..max_inputs") \
	X(NM03_PARAM,      "FD-NM03", NO_MATCH,  false, "param differs, or the node has no such param") \
	X(NM04_SOURCE,     "FD-NM04", NO_MATCH,  false, "input does not come from where the rule says (from_op, source_type, chain link)") \
	X(NM05_ESCAPE,     "FD-NM05", NO_MATCH,  false, "an intermediate tensor is used outside the match or is a graph output") \
	X(NM06_COUNTS,     "FD-NM06", NO_MATCH,  false, "subgraph external input count or output count differs") \
	X(NM07_TYPE_LIST,  "FD-NM07", NO_MATCH,  false, "op type is none of the listed types (type: [A, B])") \
	X(NM08_RANK,       "FD-NM08", NO_MATCH,  false, "operand rank differs (input_sources.inputK.rank)") \
	X(NM09_SHAPE,      "FD-NM09", NO_MATCH,  false, "operand shape fits none of the patterns (input_sources.inputK.shape)") \
	X(NM10_STATIC,     "FD-NM10", NO_MATCH,  false, "operand dims static or dynamic, not as the rule says (input_sources.inputK.static)") \
	X(NM11_DTYPE,      "FD-NM11", NO_MATCH,  false, "operand dtype not allowed (input_sources.inputK.dtype)") \
	X(NM12_SAME_AS,    "FD-NM12", NO_MATCH,  false, "operand is not the same tensor as op j's input k (same_as)") \
	X(NM13_OPTIONAL_INPUT, "FD-NM13", NO_MATCH, false, "an optional input is present but not what the rule says") \
	X(NM14_POSITION,   "FD-NM14", NO_MATCH,  false, "operands fit only in the swapped order, and position: fixed forbids it") \
	X(NM15_OUTPUT,     "FD-NM15", NO_MATCH,  false, "op output condition: a graph output, or the consumer count (outputs)") \
	X(NM16_WHERE,      "FD-NM16", NO_MATCH,  false, "a where expression is false or cannot be decided") \
	X(NM17_VALUE,      "FD-NM17", NO_MATCH,  false, "operand is not a constant of that value (input_sources.inputK.value)") \
	X(NM18_WHERE_EVAL, "FD-NM18", NO_MATCH,  false, "a where expression cannot be evaluated: overflow, division by zero or past the list budget") \
	X(NM19_SEARCH_BUDGET, "FD-NM19", NO_MATCH, false, "search budget exhausted: the attempt tried as many steps as one attempt may") \
	X(NM20_QDQ_DTYPE,  "FD-NM20", NO_MATCH,  false, "quantized data runs as another type on onnxruntime's CPU (input_sources.inputK.qdq_dtype)") \
	X(NM21_SAME_VALUE, "FD-NM21", NO_MATCH,  false, "operand's values are not those of op j's input k (same_value_as)") \
	X(NM22_OUTPUT_COUNT, "FD-NM22", NO_MATCH,  false, "the node declares another number of outputs (outputs.count)") \
	X(NM23_DTYPE_SAME_AS, "FD-NM23", NO_MATCH, false, "operand dtype differs from the tensor it is tied to (dtype: {same_as: ...})") \
	X(NM24_SIBLINGS,   "FD-NM24", NO_MATCH,  false, "the op's sibling group does not hold: a member fails its conditions, too few or too many, or the cover (siblings)") \
	X(NM25_RAN_ONCE,   "FD-NM25", NO_MATCH,  false, "the rule runs once over its pass's graph (run_once): every node of the match was there when it ran") \
	X(CF01_DTYPE,      "FD-CF01", CONDITION, false, "dtype_match: a tensor's dtype is not allowed") \
	X(CF02_SHAPE,      "FD-CF02", CONDITION, false, "shape_constraint: elementwise inputs do not broadcast") \
	X(CF03_MEMORY,     "FD-CF03", CONDITION, false, "memory_limit: an intermediate or output is over the limit") \
	X(CF04_WORKSPACE,  "FD-CF04", CONDITION, false, "workspace_size: estimated workspace over max_workspace") \
	X(CF05_CHANNEL,    "FD-CF05", CONDITION, false, "channel_divisibility: channel dim not divisible") \
	X(CF06_UNBOUND,    "FD-CF06", CONDITION, false, "unknown: the constraint depends on a dim nobody bound (--dim, --input-shape)") \
	X(CL01_CONFLICT,   "FD-CL01", CONFLICT,  false, "a node is already claimed by a rule that fired earlier") \
	X(WC01_CYCLE,      "FD-WC01", CYCLE,     false, "fusing would create a cycle (a path leaves the match and comes back)") \
	X(OK_FIRED,        "FD-OK",   FIRED,     false, "fired") \
	X(WN01_UNKNOWN_CONSTRAINT, "FD-WN01", FIRED, true, "unknown constraint type, ignored (an error under check --strict)") \
	X(WN02_UNDECIDED,  "FD-WN02", FIRED,     true,  "size, dtype or shape unknown: constraint passed undecided") \
	X(WN03_SPILL,      "FD-WN03", FIRED,     true,  "workspace over max_workspace, passes because spill_to_l2 is set") \
	X(WN04_SEARCH_CAP, "FD-WN04", FIRED,     true,  "search stopped: as many complete matches tried from this anchor as the matcher tries") \
	X(IN01_ABSENT,     "FD-IN01", FIRED,     true,  "an optional op is absent: the match covers the ops present")

typedef enum fd_reason {
	REASON_NONE = 0,
#define FD_REASON_ENUM(id, code, rung, warning, summary) REASON_##id,
	FD_REASONS(FD_REASON_ENUM)
#undef FD_REASON_ENUM
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
