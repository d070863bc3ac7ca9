/* conditions.h — the conditions of the rule language, one list that
 * dispatches.
 *
 * Every kind of condition a rule can state — an op's type and params, an
 * input's source and operand conditions, an op's outputs and where
 * expressions, the subgraph's counts, each constraint type — is one entry
 * of FD_CONDITIONS. The entry names its YAML key, where it is written, the
 * trace event it is checked in, its reason code and the prefix of its three
 * functions, which live in a file of this folder (cond_*.c; a family that
 * one event checks together shares one: cond_source.c, cond_operand.c,
 * cond_subgraph.c):
 *   PREFIX_parse     the schema: reads the key's value into the typed rule
 *                    (rules.h), reporting at file:line:col what is wrong;
 *   PREFIX_check     decides it on a unit or a tensor (or a complete match,
 *                    for the subgraph and a constraint) and, when given a
 *                    facts record, says what decided: the YAML value and its
 *                    what-if path, expected and actual, bindings. The matcher
 *                    passes NULL; explain/ and the TUI ask the same function
 *                    with a record instead of deciding again;
 *   PREFIX_describe  the condition as written, in words ("rank 4 | 5").
 * The schema sets a bit per entry a rule states (rules.h: the conds masks);
 * the matcher and explain/ reach the checks only through cond_check_event,
 * one loop over the stated rows of an event kind. The fields a what-if may
 * set below the key are FD_CONDITION_FIELDS.
 *
 * Adding a condition: its entry here (and its fields), its file with the
 * three functions, its section in fusiondbg-rules(5), its tests (the README,
 * "Layout", says it in four steps). */
#ifndef FD_CONDITIONS_H
#define FD_CONDITIONS_H
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include "match/match.h"
#include "rules/schema.h"
#include "trace/trace.h"

/* Where a condition is written:
 *   OP          a key of match.ops[i]
 *   INPUT       a key of match.ops[i].input_sources.inputK
 *   SUBGRAPH    a key of match.subgraph
 *   CONSTRAINT  a constraint type (constraints[k].type) */
typedef enum fd_cond_scope { SCOPE_OP, SCOPE_INPUT, SCOPE_SUBGRAPH, SCOPE_CONSTRAINT, SCOPE_COUNT } fd_cond_scope;

/* X(id, scope, YAML key, event kind, reason code, function prefix). The
 * order is the order of the checks: an op's own conditions, its inputs'
 * (at the place of the INPUT rows: each entry's source, then its operand),
 * its group, then the subgraph's and the constraints; within one event the
 * first that fails decides. It is also the order the schema reads an op's
 * keys in (the order a message lists keys as known is the format's,
 * FD_CONDITION_FIELDS). Two entries may share a key when the value's form
 * tells them apart (dtype: a list of dtypes, or {same_as: …}): each reads
 * only its form. */
#define FD_CONDITIONS(X) \
	X(TYPE,           OP,         "type",             TYPE,       NM01_TYPE,           cond_type)          \
	X(INPUTS,         OP,         "inputs",           ARITY,      NM02_ARITY,          cond_inputs)        \
	X(PARAMS,         OP,         "params",           PARAM,      NM03_PARAM,          cond_params)        \
	X(OPTIONAL_OP,    OP,         "optional",         OPTIONAL,   IN01_ABSENT,         cond_optional_op)   \
	X(FEEDS,          OP,         "feeds",            FEEDS,      NM04_SOURCE,         cond_feeds)         \
	X(OUTPUTS,        OP,         "outputs",          OUTPUT,     NM15_OUTPUT,         cond_outputs)       \
	X(WHERE,          OP,         "where",            WHERE,      NM16_WHERE,          cond_where)         \
	X(FROM_OP,        INPUT,      "from_op",          SOURCE,     NM04_SOURCE,         cond_from_op)       \
	X(SOURCE_TYPE,    INPUT,      "source_type",      SOURCE,     NM04_SOURCE,         cond_source_type)   \
	X(SAME_AS,        INPUT,      "same_as",          SOURCE,     NM12_SAME_AS,        cond_same_as)       \
	X(SAME_VALUE_AS,  INPUT,      "same_value_as",    SOURCE,     NM21_SAME_VALUE,     cond_same_value_as) \
	X(FROM_TYPE,      INPUT,      "from_type",        SOURCE,     NM04_SOURCE,         cond_from_type)     \
	X(POSITION,       INPUT,      "position",         ORDER,      NM14_POSITION,       cond_position)      \
	X(OPTIONAL_INPUT, INPUT,      "optional",         SOURCE,     NM13_OPTIONAL_INPUT, cond_optional_input) \
	X(RANK,           INPUT,      "rank",             OPERAND,    NM08_RANK,           cond_rank)          \
	X(SHAPE,          INPUT,      "shape",            OPERAND,    NM09_SHAPE,          cond_shape)         \
	X(STATIC,         INPUT,      "static",           OPERAND,    NM10_STATIC,         cond_static)        \
	X(DTYPE,          INPUT,      "dtype",            OPERAND,    NM11_DTYPE,          cond_dtype)         \
	X(DTYPE_SAME_AS,  INPUT,      "dtype",            OPERAND,    NM23_DTYPE_SAME_AS,  cond_dtype_same_as) \
	X(VALUE,          INPUT,      "value",            OPERAND,    NM17_VALUE,          cond_value)         \
	X(QDQ_DTYPE,      INPUT,      "qdq_dtype",        OPERAND,    NM20_QDQ_DTYPE,      cond_qdq_dtype)     \
	X(SIBLINGS,       OP,         "siblings",         SIBLINGS,   NM24_SIBLINGS,       cond_siblings)      \
	X(ALLOW_INTERMEDIATE_OUTPUTS, SUBGRAPH, "allow_intermediate_outputs", ESCAPE, NM05_ESCAPE, cond_intermediate_outputs) \
	X(INPUT_COUNT_RANGE, SUBGRAPH, "input_count_range", INPUTS,   NM06_COUNTS,         cond_input_count)   \
	X(OUTPUT_COUNT,   SUBGRAPH,   "output_count",     OUTPUTS,    NM06_COUNTS,         cond_output_count)  \
	X(DTYPE_MATCH,    CONSTRAINT, "dtype_match",      CONSTRAINT, CF01_DTYPE,          cond_dtype_match)   \
	X(SHAPE_CONSTRAINT, CONSTRAINT, "shape_constraint", CONSTRAINT, CF02_SHAPE,        cond_shape_constraint) \
	X(MEMORY_LIMIT,   CONSTRAINT, "memory_limit",     CONSTRAINT, CF03_MEMORY,         cond_memory_limit)  \
	X(WORKSPACE_SIZE, CONSTRAINT, "workspace_size",   CONSTRAINT, CF04_WORKSPACE,      cond_workspace_size) \
	X(CHANNEL_DIVISIBILITY, CONSTRAINT, "channel_divisibility", CONSTRAINT, CF05_CHANNEL, cond_channel_divisibility)

typedef enum fd_cond_kind {
#define FD_COND_ENUM(id, scope, key, event, reason, fn) COND_##id,
	FD_CONDITIONS(FD_COND_ENUM)
#undef FD_COND_ENUM
	COND_COUNT
} fd_cond_kind;

/* The conditions a rule op, an input entry or a rule's subgraph states: a
 * bit each (the masks of rules.h, set by the schema where it reads the key). */
#define COND_BIT(id) ((uint64_t)1 << COND_##id)
static_assert(COND_COUNT <= 64, "a condition's presence is one bit of a uint64_t");

/* The paths below a condition's place that a what-if may set, with the
 * type of value each takes (ruleset/rule_format.h: the field types):
 * X(id, its scope, path, type). A constraint's paths are those of its map. */
#define FD_CONDITION_FIELDS(X) \
	X(TYPE,                 OP,         "type",                    OPTYPE) \
	X(PARAMS,               OP,         "params.*",                PARAM) \
	X(INPUTS,               OP,         "inputs.min_inputs",       UINT) \
	X(INPUTS,               OP,         "inputs.max_inputs",       UINT) \
	X(FROM_OP,              INPUT,      "from_op",                 UINT) \
	X(SOURCE_TYPE,          INPUT,      "source_type",             SOURCE) \
	X(SAME_AS,              INPUT,      "same_as",                 SAMEAS) \
	X(SAME_AS,              INPUT,      "same_as.op",              UINT) \
	X(SAME_AS,              INPUT,      "same_as.input",           UINT) \
	X(SAME_VALUE_AS,        INPUT,      "same_value_as.op",        UINT) \
	X(SAME_VALUE_AS,        INPUT,      "same_value_as.input",     UINT) \
	X(FROM_TYPE,            INPUT,      "from_type",               LIST) \
	X(POSITION,             INPUT,      "position",                POSITION) \
	X(OPTIONAL_INPUT,       INPUT,      "optional",                BOOL) \
	X(RANK,                 INPUT,      "rank",                    INTS) \
	X(SHAPE,                INPUT,      "shape",                   SHAPE) \
	X(STATIC,               INPUT,      "static",                  BOOL) \
	X(DTYPE,                INPUT,      "dtype",                   DTYPES) \
	X(DTYPE_SAME_AS,        INPUT,      "dtype.same_as",           SAMEAS) \
	X(DTYPE_SAME_AS,        INPUT,      "dtype.same_as.op",        UINT) \
	X(DTYPE_SAME_AS,        INPUT,      "dtype.same_as.input",     UINT) \
	X(DTYPE_SAME_AS,        INPUT,      "dtype.same_as.output",    UINT) \
	X(VALUE,                INPUT,      "value",                   NUMBERS) \
	X(VALUE,                INPUT,      "tolerance",               NUMBER) \
	X(QDQ_DTYPE,            INPUT,      "qdq_dtype",               DTYPES) \
	X(OPTIONAL_OP,          OP,         "optional",                BOOL) \
	X(OUTPUTS,              OP,         "outputs.graph_output",    BOOL) \
	X(OUTPUTS,              OP,         "outputs.min_consumers",   UINT) \
	X(OUTPUTS,              OP,         "outputs.max_consumers",   UINT) \
	X(OUTPUTS,              OP,         "outputs.count",           UINT) \
	X(OUTPUTS,              OP,         "outputs.not_read_by",     LIST) \
	X(WHERE,                OP,         "where",                   EXPR) \
	X(FEEDS,                OP,         "feeds.op",                UINT) \
	X(FEEDS,                OP,         "feeds.input",             UINT) \
	X(FEEDS,                OP,         "feeds.first_reader",      BOOL) \
	X(SIBLINGS,             OP,         "siblings.input",          UINT) \
	X(SIBLINGS,             OP,         "siblings.min",            POSINT) \
	X(SIBLINGS,             OP,         "siblings.max",            POSINT) \
	X(SIBLINGS,             OP,         "siblings.cover",          STR) \
	X(INPUT_COUNT_RANGE,    SUBGRAPH,   "input_count_range",       RANGE) \
	X(OUTPUT_COUNT,         SUBGRAPH,   "output_count",            UINT) \
	X(ALLOW_INTERMEDIATE_OUTPUTS, SUBGRAPH, "allow_intermediate_outputs", BOOL) \
	X(DTYPE_MATCH,          CONSTRAINT, "allowed_dtypes",          LIST) \
	X(MEMORY_LIMIT,         CONSTRAINT, "max_intermediate_size",   BYTES) \
	X(MEMORY_LIMIT,         CONSTRAINT, "max_output_size",         BYTES) \
	X(WORKSPACE_SIZE,       CONSTRAINT, "max_workspace",           BYTES) \
	X(WORKSPACE_SIZE,       CONSTRAINT, "spill_to_l2",             BOOL) \
	X(CHANNEL_DIVISIBILITY, CONSTRAINT, "channel_dim",             INT) \
	X(CHANNEL_DIVISIBILITY, CONSTRAINT, "divisor",                 POSINT)


typedef struct fd_cond_def fd_cond_def;
const fd_cond_def *cond_def(fd_cond_kind k);                      /* NULL out of range */
/* The condition of scope written under key ("rank" of an input), or
 * COND_COUNT; a constraint by its type name. */
fd_cond_kind cond_by_key(fd_cond_scope scope, const char *key);

/* ---- parse ------------------------------------------------------------------ */

/* Where a condition is being read: the op (OP and INPUT) at its place in a
 * pattern of n_ops, the inputK map's typed source (INPUT), the rule
 * (SUBGRAPH), the constraint (CONSTRAINT); map is the map holding the key. */
typedef struct fd_cond_site {
	fd_rule *rule;
	fd_rule_op *op;
	int index, n_ops;
	fd_input_source *input;
	fd_constraint *constraint;
	const fd_yval *map;
	bool states;               /* set before the parse; cleared by one whose key states nothing
	                            * (position: any, allow_intermediate_outputs: true, {} or the
	                            * other entry's form of a shared key): then its bit is not set */
} fd_cond_site;

/* After a pattern's ops are read: its group op (siblings, one at most) and
 * the ops each member has its own of (each_member: after the group op,
 * reading it or such an op), with errors at their place. */
void cond_siblings_pattern(fd_schema *s, fd_rule_pattern *pat, const char *path);

/* What an event of a condition says besides its rule, op, sub and unit, by the
 * names its kind gives the fields (trace.h says the same of the stored
 * fields): one member per kind. A check fills its kind's member in a run
 * (fd_cond_check.payload) and match_emit_cond stores it; cond_event_read
 * gives it back. A name in an anonymous union is another meaning of the
 * same stored field, for the events that say which. */
typedef struct cond_event_payload {
	union {
		struct { int32_t follows; int64_t reached_by; } type;   /* the unit it follows, the tensor it reads it by */
		struct { int64_t swapped; } order;                      /* 1: the inputs swapped, 0: as written */
		struct { int64_t given; } arity;                        /* the inputs the unit is given */
		struct {
			union { int32_t producer;        /* the tensor's producer unit, or FD_NONE */
			        int32_t named_tensor; }; /* FD-NM12: the tensor same_as names */
			union { int64_t tensor;          /* the input's tensor, or FD_NONE: absent */
			        int64_t linked_op; };    /* item -2, no candidate: the op it links to */
			int64_t slot;                    /* the input slot it was read at */
		} source;
		struct {
			int32_t slot;                    /* the input slot it was read at */
			int64_t tensor;                  /* the operand */
			union { int64_t bound;           /* a shape name bound before (match_bound_pack), or -1 */
			        int64_t tied; };         /* FD-NM23: the tensor dtype.same_as names */
		} operand;
		struct { int64_t consumers, graph_output; } output;     /* its consumers; a graph output or FD_NONE */
		struct { int64_t path_at, n_path; } where;              /* opJ.NAME: the earlier ops' units and op ids,
		                                                         * their offset in trace->paths and count */
		struct { int32_t owner; int64_t tensor, produces; } feeds;   /* the unit of the op fed, its input
		                                                              * (FD_NONE: absent), 1: the candidate makes it */
		struct {
			int32_t who;                     /* the member that decided, or FD_NONE */
			union { int64_t members;         /* the members */
			        int64_t follower_op; };  /* a follower's failure: the op it has none of */
			int64_t detail;                  /* a member's reason, an index (cond_siblings.c) */
		} siblings;
		struct { int32_t consumer; int64_t tensor; } escape;     /* the outside consumer (FD_NONE: a graph
		                                                          * output), the tensor */
		struct { int64_t external; } inputs;                     /* the external inputs that are no constant */
		struct { int64_t counted, written; } outputs;            /* the outputs counted, the count written */
		struct {
			int32_t tensor;                  /* the tensor measured, or FD_NONE */
			union { int64_t measured;        /* bytes, a dim, a dtype, a count; -1 unknown */
			        int64_t pair_first; };   /* shape_constraint's failure: the pair that does not broadcast */
			union { int64_t limit;
			        int64_t pair_second; };
		} constraint;
	};
} cond_event_payload;

/* The one map of a payload onto the stored event: X(event kind, its member,
 * the name, the fd_event field that holds it). A field a kind does not name
 * holds its default (FD_NONE, 0), which costs nothing in the recording. */
#define FD_COND_EVENT_FIELDS(X) \
	X(TYPE,       type,       follows,      other) \
	X(TYPE,       type,       reached_by,   a)     \
	X(ORDER,      order,      swapped,      a)     \
	X(ARITY,      arity,      given,        a)     \
	X(SOURCE,     source,     producer,     other) \
	X(SOURCE,     source,     tensor,       a)     \
	X(SOURCE,     source,     slot,         b)     \
	X(OPERAND,    operand,    slot,         other) \
	X(OPERAND,    operand,    tensor,       a)     \
	X(OPERAND,    operand,    bound,        b)     \
	X(OUTPUT,     output,     consumers,    a)     \
	X(OUTPUT,     output,     graph_output, b)     \
	X(WHERE,      where,      path_at,      a)     \
	X(WHERE,      where,      n_path,       b)     \
	X(FEEDS,      feeds,      owner,        other) \
	X(FEEDS,      feeds,      tensor,       a)     \
	X(FEEDS,      feeds,      produces,     b)     \
	X(SIBLINGS,   siblings,   who,          other) \
	X(SIBLINGS,   siblings,   members,      a)     \
	X(SIBLINGS,   siblings,   detail,       b)     \
	X(ESCAPE,     escape,     consumer,     other) \
	X(ESCAPE,     escape,     tensor,       a)     \
	X(INPUTS,     inputs,     external,     a)     \
	X(OUTPUTS,    outputs,    counted,      a)     \
	X(OUTPUTS,    outputs,    written,      b)     \
	X(CONSTRAINT, constraint, tensor,       other) \
	X(CONSTRAINT, constraint, measured,     a)     \
	X(CONSTRAINT, constraint, limit,        b)

/* ---- check and facts ----------------------------------------------------------- */

/* What decided a check, for the words and the TUI's edit (explain/). */
typedef struct fd_cond_facts {
	fd_reason reason;          /* REASON_NONE: it holds */
	const fd_yval *decided;    /* the value that decided, or the place it belongs (file:line:col) */
	int32_t decided_at;        /* a byte of decided's text that decided (where: the part that could not
	                            * be evaluated), -1 the value itself */
	char path[96];             /* that value's what-if path below the op ("input_sources.input1.rank")
	                            * or the rule ("constraints.memory_limit.max_output_size"); "" none */
	char expected[128];        /* the condition as written, in words */
	char actual[128];          /* what the graph has, in words */
	char binding[128];         /* names bound: "C = 64 (dim 0 of conv1.weight)", or "" */
	char reason_text[256];     /* one line of its own, or "" (the reason code's summary then) */
	unsigned shows;            /* OPERAND: what of the operand the conditions ask show in actual */
} fd_cond_facts;

struct match_run_state;
struct fd_event;
struct cond_size_cache;

/* A condition being checked: in a run (run set: the matcher's state) or to
 * explain an event (ev set: the recorded event, run NULL). */
typedef struct fd_cond_check {
	const fd_match_ctx *ctx;
	int32_t graph;
	const fd_graph *g;
	const fd_graph_index *ix;
	const fd_rule *rule;
	const fd_rule_op *op;      /* the pattern op (not for a constraint) */
	int op_index;              /* its position */
	int op_id;                 /* the op id the unit matched as (its type alternative) */
	const fd_input_source *input;  /* INPUT scope */
	int source_index;
	const fd_constraint *constraint;   /* CONSTRAINT scope, its index in the rule */
	int constraint_index;
	int32_t unit;              /* the candidate unit */
	int32_t tensor;            /* INPUT scope: the operand, or FD_NONE (absent) */
	int slot;                  /* the input slot it was read at */
	int64_t bound;             /* OPERAND: a shape name bound before (match_bound_pack), or -1 */
	uint32_t passed;           /* ORDER: after a run's check, the checks the swapped order passes */
	int sub;                   /* the item of a condition of several (PARAMS: a param, WHERE: an
	                            * expression): explaining, the event's; in a run, set by the check
	                            * to the one that failed (their count when all hold); TYPE: the
	                            * alternative matched, set by the check */
	cond_event_payload payload;   /* its event's, by name: in a run the check fills what it measured
	                               * (the member of its event kind); explaining, the event's */
	int held;                  /* in a run, a condition of several items (PARAMS, WHERE): the items
	                            * that held before the one that decided, each an event of its own */
	struct match_run_state *run;
	const struct fd_event *ev;
	struct cond_size_cache *sizes;  /* explaining: a writer's cache of a constraint's size words, or NULL */
	const int32_t *where_path;  /* explaining a WHERE event of an op reading earlier ops: the units of
	                             * ops 0..op_index-1 then their op ids, as the event recorded them */
	int32_t n_where_path;
} fd_cond_check;

/* A {op: j, input: k} map (same_as, same_value_as, feeds): both keys there,
 * each a small non-negative integer, errors at their place; what says what
 * the pair names ("the tensor op j reads at input k"). */
bool cond_op_input_parse(fd_schema *s, const fd_yval *v, const char *path, const char *what, int *j, int *k);

/* ---- lint ---------------------------------------------------------------------- */

/* A condition's findings of `check` (ruleset/rule_check.c) that need more
 * than its value: the rest of the rule, the op table. The lint gives the
 * site and a reporter (which makes a warning an error under --strict). The
 * conditions that have such findings are FD_CONDITION_LINTS; the findings
 * that need the whole rule set (unknown op types and params, fused op types
 * of other rules, rules against rules) are the lint's own. */
typedef struct fd_cond_lint {
	const fd_rule *rule;
	const fd_rule_pattern *pat;    /* the pattern op_index is in (not for a constraint) */
	int op_index;
	const char *path;              /* the op's: "match.ops[1]"; a constraint's: "constraints[0]" */
	const fd_input_source *input;  /* INPUT scope */
	const fd_constraint *constraint;
	bool verbose;                  /* notes too */
	void *ctx;
	void (*say)(void *ctx, fd_severity sev, fd_srcpos pos, const char *msg);
} fd_cond_lint;

void cond_lint_say(const fd_cond_lint *l, fd_severity sev, const fd_yval *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void cond_lint_say_at(const fd_cond_lint *l, fd_severity sev, fd_srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The conditions with findings of their own in `check`: X(id, function prefix),
 * each with PREFIX_lint(const fd_cond_lint *). */
#define FD_CONDITION_LINTS(X) \
	X(INPUTS,               cond_inputs)   \
	X(SAME_AS,              cond_same_as)  \
	X(POSITION,             cond_position) \
	X(SHAPE,                cond_shape)    \
	X(DTYPE_SAME_AS,        cond_dtype_same_as) \
	X(VALUE,                cond_value)    \
	X(OPTIONAL_OP,          cond_optional_op) \
	X(WHERE,                cond_where)    \
	X(SIBLINGS,             cond_siblings) \
	X(DTYPE_MATCH,          cond_dtype_match) \
	X(MEMORY_LIMIT,         cond_memory_limit) \
	X(CHANNEL_DIVISIBILITY, cond_channel_divisibility)

#define FD_COND_DECLARE_LINT(id, fn) void fn##_lint(const fd_cond_lint *l);
FD_CONDITION_LINTS(FD_COND_DECLARE_LINT)
#undef FD_COND_DECLARE_LINT
/* Condition k's lint, or NULL when it has no findings of its own. */
void (*cond_lint_of(fd_cond_kind k))(const fd_cond_lint *l);

/* One entry, as data: what the list says of it, and its functions. */
struct fd_cond_def {
	fd_cond_kind kind;
	fd_cond_scope scope;
	const char *key;
	fd_event_kind event;
	fd_reason reason;
	bool (*parse)(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path);
	fd_reason (*check)(fd_cond_check *c, fd_cond_facts *facts);
	void (*describe)(const fd_cond_check *c, char *buf, size_t size);
};

#define FD_COND_DECLARE(id, scope, key, event, reason, fn) \
	bool fn##_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path); \
	fd_reason fn##_check(fd_cond_check *c, fd_cond_facts *facts); \
	void fn##_describe(const fd_cond_check *c, char *buf, size_t size);
FD_CONDITIONS(FD_COND_DECLARE)
#undef FD_COND_DECLARE

/* ---- the dispatch (cond.c) ---------------------------------------------------------- */

/* The mask of the rows of scope whose event is event (EV_KIND_COUNT: any). */
uint64_t cond_rows(fd_cond_scope scope, fd_event_kind event);
/* The rows of scope that come before the rows of scope `before` in the list. */
uint64_t cond_rows_before(fd_cond_scope scope, fd_cond_scope before);
/* The one loop of an event kind: the rows of the event stated in `stated`
 * (a mask of COND_BITs), in list order, each by its check; the first that
 * fails decides. In a run (facts NULL) it stops there; with facts every
 * stated row adds its words. An event that checks several rows together
 * (FD_CONDITION_EVENTS) is begun and ended by its family. */
fd_reason cond_check_event(fd_event_kind event, uint64_t stated, fd_cond_check *c, fd_cond_facts *facts);
/* The first row of mask in list order, or COND_COUNT. */
fd_cond_kind cond_first(uint64_t mask);
/* The row of scope checked in an event of kind event (the first, for an
 * event of several rows), or COND_COUNT. */
fd_cond_kind cond_of_event(fd_cond_scope scope, fd_event_kind event);
/* "from_op, source_type, …, value or qdq_dtype": the keys of the rows in
 * mask, each once, in list order, the last after `last` (", " or " or "). */
const char *cond_keys(uint64_t mask, const char *last, char *buf, size_t size);

/* ---- a recorded event (cond_event.c) -------------------------------------------- */

/* A recorded event's payload (any kind: the fields of one it does not name
 * are left at their defaults). */
cond_event_payload cond_event_read(const fd_event *ev);
/* An empty payload of kind: its fields at the stored defaults. */
cond_event_payload cond_event_empty(fd_event_kind kind);
/* The stored fields of a payload of kind (other, a, b of ev; the rest untouched). */
void cond_event_write(fd_event *ev, fd_event_kind kind, const cond_event_payload *p);
/* The pattern an event of a rule's branch (-1: its match) is of. */
const fd_rule_pattern *cond_event_pattern(const fd_rule *r, int branch);
/* The check a recorded event made, decoded from it and the graph: c as the
 * run had it (the op read as the type it matched, its input entry or
 * constraint, the payload), *stated the rows the event checks; then
 * cond_check_event(ev->kind, *stated, c, facts) says it. false: ev is no
 * event of a condition of its rule. */
bool cond_event_decode(const fd_match_ctx *ctx, const fd_ruleset *rules, const fd_trace *trace,
                       const fd_event *ev, fd_cond_check *c, uint64_t *stated);

/* The events that check several rows together: X(event, function prefix),
 * each with PREFIX_begin (before the rows: a verdict that decides before any
 * of them, as an input absent, or REASON_NONE) and PREFIX_end (after them:
 * the event's verdict from the rows' r; with facts, the event's words). */
#define FD_CONDITION_EVENTS(X) \
	X(SOURCE,  cond_source) \
	X(OPERAND, cond_operand)
#define FD_COND_DECLARE_EVENT(event, fn) \
	fd_reason fn##_begin(fd_cond_check *c, fd_cond_facts *facts); \
	fd_reason fn##_end(fd_cond_check *c, fd_cond_facts *facts, fd_reason r);
FD_CONDITION_EVENTS(FD_COND_DECLARE_EVENT)
#undef FD_COND_DECLARE_EVENT

/* A SOURCE row's first step (cond_source.c): with facts, its words
 * (describe) join the event's expected; true when explaining, where the
 * event decides (cond_source_end) and the row decides nothing. */
bool cond_source_words(const fd_cond_check *c, fd_cond_facts *facts,
                       void (*describe)(const fd_cond_check *c, char *buf, size_t size));

/* Whether op's binary inputs are tried in both orders (position). */
bool cond_position_swaps(const fd_rule_op *op, bool commutative);


#endif
