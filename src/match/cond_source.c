/* cond_source.c — where an input_sources entry's tensor comes from: from_op
 * (an output of an earlier op of the match), source_type (constant, graph
 * input, activation …), same_as (the very tensor another op of the match
 * reads), same_value_as (its check here, the rest in cond_same_value_as.c)
 * and optional (the input may be absent; what is given holds when it is
 * present). Each a row that cond_check_event runs in list order in one
 * SOURCE event, the first that fails deciding; the event's begin and end
 * (an absent input, the words) are here. The operand conditions of the
 * entry follow in their own event (cond_operand.c). */
#include <string.h>
#include "base/strbuf.h"
#include "base/text.h"
#include "match/cond_text.h"
#include "match/conditions.h"
#include "match/cond_same_value_as.h"
#include "match/match_internal.h"

/* ---- parse --------------------------------------------------------------------- */

bool cond_from_op_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	fd_input_source *is = at->input;
	if (!schema_small_int(s, v, path, 0, &is->from_op))
		return false;
	if (is->from_op >= at->n_ops) {
		ERR(s, v, "%s: %d is out of range (the pattern has ops 0..%d)", path, is->from_op, at->n_ops - 1);
		return false;
	}
	if (is->from_op >= at->index) {
		ERR(s, v, "%s: %d does not come before op %d (from_op must name an earlier op)", path, is->from_op,
		    at->index);
		return false;
	}
	return true;
}

bool cond_source_type_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	const char *name;
	if (!schema_str(s, v, path, &name))
		return false;
	at->input->source_type = rules_source_type_from_name(name);
	if (at->input->source_type == SRC_UNSET) {
		ERR(s, v, "%s: unknown source_type '%s' (known: %s)", path, name, FD_NAMES(FD_SOURCE_TYPES));
		return false;
	}
	return true;
}

bool cond_op_input_parse(fd_schema *s, const fd_yval *v, const char *path, const char *what, int *j, int *k)
{
	char q[320];
	if (!schema_kind(s, v, YV_MAP, path))
		return false;
	const fd_yval *op = yval_get(v, "op"), *in = yval_get(v, "input");
	if (!op || !in) {
		ERR(s, v, "%s: needs 'op' and 'input' (%s: {op: j, input: k})", path, what);
		return false;
	}
	snprintf(q, sizeof q, "%.200s.op", path);
	bool ok = schema_small_int(s, op, q, 0, j);
	snprintf(q, sizeof q, "%.200s.input", path);
	return schema_small_int(s, in, q, 0, k) && ok;
}

bool cond_same_as_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	return cond_op_input_parse(s, v, path, "the tensor op j reads at input k", &at->input->same_op,
	                           &at->input->same_input);
}

bool cond_optional_input_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	bool ok = schema_bool(s, v, path, &at->input->optional);
	at->states = at->input->optional;   /* optional: false is the default, stated */
	return ok;
}

/* ---- the words ---------------------------------------------------------------------- */

void cond_from_op_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "from op%d", c->input->from_op);
}

void cond_source_type_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "source_type %s", rules_source_type_name(c->input->source_type));
}

void cond_same_as_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "the tensor op%d reads at input%d", c->input->same_op, c->input->same_input);
}

void cond_optional_input_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "when present");
}


/* ---- the rows ------------------------------------------------------------------- */

/* Each row adds its words to the event's expected (with facts) and, in a
 * run, decides its own part on c->tensor (present: the event's begin says
 * an absent one); explaining, the event decides (cond_source_end). */
bool cond_source_words(const fd_cond_check *c, fd_cond_facts *f,
                       void (*describe)(const fd_cond_check *c, char *buf, size_t size))
{
	if (f) {
		char part[160];
		describe(c, part, sizeof part);
		size_t at = strlen(f->expected);
		text_appendf(f->expected, sizeof f->expected, at, "%s%s", at ? ", " : "", part);
	}
	return c->ev != NULL;
}

static bool source_type_ok(const fd_cond_check *c, int32_t t, fd_source_type st)
{
	uint8_t f = c->ix->tflags[t];
	switch (st) {
	case SRC_CONST_OR_PARAM: return (f & (TF_CONST | TF_INPUT)) != 0;
	case SRC_CONST:          return (f & TF_CONST) != 0;
	case SRC_INITIALIZER:    return (f & (TF_CONST | TF_DQ_KEPT)) == TF_CONST;
	case SRC_PARAM:          return (f & TF_INPUT) != 0;
	case SRC_ACTIVATION:     return !(f & TF_CONST);
	default:                 return true;
	}
}

fd_reason cond_from_op_check(fd_cond_check *c, fd_cond_facts *f)
{
	const fd_input_source *src = c->input;
	if (cond_source_words(c, f, cond_from_op_describe))
		return REASON_NONE;
	match_run_state *s = c->run;
	int j = src->from_op < c->op_index ? match_present(s, src->from_op) : -1;
	return j >= 0 && unit_produces(s, s->units[j], c->tensor) ? REASON_NONE : REASON_NM04_SOURCE;
}

fd_reason cond_source_type_check(fd_cond_check *c, fd_cond_facts *f)
{
	if (cond_source_words(c, f, cond_source_type_describe))
		return REASON_NONE;
	return source_type_ok(c, c->tensor, c->input->source_type) ? REASON_NONE : REASON_NM04_SOURCE;
}

fd_reason cond_same_as_check(fd_cond_check *c, fd_cond_facts *f)
{
	const fd_input_source *src = c->input;
	if (cond_source_words(c, f, cond_same_as_describe))
		return REASON_NONE;
	match_run_state *s = c->run;
	int i = c->op_index, j = src->same_op, slot = src->same_input;
	if (j < i && s->swapped[j] && slot < 2)
		slot ^= 1;   /* op j's input k as op j was matched */
	int32_t want = j < i && s->units[j] != FD_NONE ? unit_input(s, s->units[j], slot) : FD_NONE;
	if (want != FD_NONE && want == c->tensor)
		return REASON_NONE;
	c->payload.source.named_tensor = want;
	return REASON_NM12_SAME_AS;
}

/* The tensor op j reads at its input k, for same_value_as. Op j absent
 * because it feeds an op whose input another match keeps (a DQ read by
 * several nodes: each other reader fuses a copy with the same inputs), the
 * input k of the node that produces that op's input. */
static int32_t value_source(const match_run_state *s, int j, int k)
{
	const fd_rule_op *oj = &s->pat->ops[j];
	if (s->units[j] != FD_NONE)
		return unit_input(s, s->units[j], s->swapped[j] && k < 2 ? k ^ 1 : k);
	if (!(oj->conds & COND_BIT(FEEDS)))
		return FD_NONE;
	int m = oj->feeds_op;
	if (s->units[m] == FD_NONE)
		return FD_NONE;
	int slot = s->swapped[m] && oj->feeds_input < 2 ? oj->feeds_input ^ 1 : oj->feeds_input;
	int32_t x = unit_input(s, s->units[m], slot);
	int32_t p = x >= 0 ? s->g->tensors[x].producer : FD_NONE;
	return p >= 0 && k < s->g->nodes[p].n_inputs ? s->g->nodes[p].inputs[k] : FD_NONE;
}

fd_reason cond_same_value_as_check(fd_cond_check *c, fd_cond_facts *f)
{
	const fd_input_source *src = c->input;
	if (cond_source_words(c, f, cond_same_value_as_describe) || src->value_op >= c->op_index)
		return REASON_NONE;
	int32_t want = value_source(c->run, src->value_op, src->value_input);
	if (cond_same_values(c->g, c->tensor, want))
		return REASON_NONE;
	c->payload.source.named_tensor = want;
	return REASON_NM21_SAME_VALUE;
}

/* optional states nothing of a present tensor: an absent one holds (the
 * search's), a failing one says so (cond_source_end). */
fd_reason cond_optional_input_check(fd_cond_check *c, fd_cond_facts *f)
{
	(void)c;
	if (f)
		text_appendf(f->expected, sizeof f->expected, strlen(f->expected), "%s",
		             f->expected[0] ? ", when present" : "any, when present");
	return REASON_NONE;
}

/* ---- the event ------------------------------------------------------------------- */

/* A run: an absent input fails before any row; the payload's producer is
 * the tensor's (a row that names another tensor puts that in its place). */
fd_reason cond_source_begin(fd_cond_check *c, fd_cond_facts *f)
{
	(void)f;
	if (c->ev)
		return REASON_NONE;
	int32_t t = c->tensor;
	c->payload.source.producer = t >= 0 ? c->g->tensors[t].producer : FD_NONE;
	return t == FD_NONE ? REASON_NM04_SOURCE : REASON_NONE;
}

/* The key a passing event's words point at: the first stated of the rows
 * the event checks, in list order (none: the entry's position). */
static const char *source_key(const fd_input_source *src)
{
	fd_cond_kind k = cond_first(src->conds & cond_rows(SCOPE_INPUT, EV_SOURCE));
	return k < COND_COUNT ? cond_def(k)->key : "position";
}

fd_reason cond_source_end(fd_cond_check *c, fd_cond_facts *f, fd_reason r)
{
	const fd_input_source *src = c->input;
	if (!c->ev)   /* a run: an optional input that fails says so */
		return r && (src->conds & COND_BIT(OPTIONAL_INPUT)) ? REASON_NM13_OPTIONAL_INPUT : r;
	const fd_event *ev = c->ev;
	const int64_t tensor = c->payload.source.tensor, slot = c->payload.source.slot;
	const int32_t named = c->payload.source.named_tensor;   /* what same_as / same_value_as named */
	r = ev->status == ST_FAIL ? (fd_reason)ev->reason : REASON_NONE;
	if (!f)
		return r;
	const fd_graph *g = c->g;
	/* the language beyond the seed's words */
	bool ext = src->conds & (COND_BIT(OPTIONAL_INPUT) | COND_BIT(SAME_AS) | COND_BIT(SAME_VALUE_AS));
	char origin[160];
	if (tensor < 0 && ext) {
		text_cut(f->actual, sizeof f->actual, "absent");
		if (ev->status == ST_PASS)
			text_cut(f->reason_text, sizeof f->reason_text, "optional input, absent");
	} else {
		cond_tensor_origin(c->ctx, c->graph, tensor, origin, sizeof origin);
		if (slot != src->input && tensor >= 0)
			text_cutf(f->actual, sizeof f->actual, "%s (slot %lld, inputs swapped)", origin, (long long)slot);
		else
			text_cut(f->actual, sizeof f->actual, origin);
	}
	const char *key = source_key(src);
	f->decided = src->where;
	if (ev->status == ST_FAIL) {
		f->reason = r;
		if (r == REASON_NM12_SAME_AS) {
			key = "same_as";
			const fd_yval *k = yval_get(src->where, "same_as");
			f->decided = k ? k : src->where;
			text_cutf(f->reason_text, sizeof f->reason_text,
			          named >= 0 ? "op%d reads %s there, another tensor" : "op%d has no such input", src->same_op,
			          named >= 0 && named < g->n_tensors ? g->tensors[named].name : "-");
		} else if (r == REASON_NM21_SAME_VALUE) {
			key = "same_value_as";
			const fd_yval *k = yval_get(src->where, "same_value_as");
			f->decided = k ? k : src->where;
			char mine[96], theirs[96];
			cond_values_text(g, tensor >= 0 ? (int32_t)tensor : FD_NONE, mine, sizeof mine);
			cond_values_text(g, named >= 0 && named < g->n_tensors ? named : FD_NONE, theirs, sizeof theirs);
			text_cutf(f->reason_text, sizeof f->reason_text, named >= 0 ? "%s, but op%d reads %s" : "%s; op%d is absent "
			          "or has no such input", mine, src->value_op, theirs);
		} else if (r == REASON_NM13_OPTIONAL_INPUT) {
			text_cutf(f->reason_text, sizeof f->reason_text, "input%d is present, and then must be as the rule says",
			          src->input);
		} else if (!ext && !(src->conds & COND_BIT(FROM_OP)) && (src->conds & COND_BIT(SOURCE_TYPE)) &&
		           src->source_type == SRC_INITIALIZER && tensor >= 0 && tensor < g->n_tensors &&
		           (c->ix->tflags[tensor] & TF_DQ_KEPT)) {
			text_cutf(f->reason_text, sizeof f->reason_text, "input%d is computed by a DequantizeLinear of "
			          "constants, which constant folding keeps as a node (a QDQ unit): not an initializer",
			          src->input);
		} else if (!ext && !(src->conds & COND_BIT(FROM_OP)) && (src->conds & COND_BIT(SOURCE_TYPE)) &&
		           (src->source_type == SRC_CONST || src->source_type == SRC_INITIALIZER) && tensor >= 0 && tensor < g->n_tensors && g->tensors[tensor].overridable) {
			text_cutf(f->reason_text, sizeof f->reason_text, "input%d is an overridable initializer (also a graph "
			          "input, IR >= 4): the caller may feed another value, so it is not a constant", src->input);
		} else {
			text_cutf(f->reason_text, sizeof f->reason_text,
			          tensor < 0 ? "the node has no input%d" : "input%d comes from elsewhere", src->input);
		}
	}
	snprintf(f->path, sizeof f->path, "input_sources.input%d.%s", src->input, key);
	return r;
}

/* ---- lint ------------------------------------------------------------------------ */

/* same_as names an earlier op that is always there, and an input it has. */
void cond_same_as_lint(const fd_cond_lint *l)
{
	const fd_input_source *src = l->input;
	if (!(src->conds & COND_BIT(SAME_AS)))
		return;
	const fd_rule_pattern *pat = l->pat;
	int i = l->op_index, j = src->same_op;
	const char *path = l->path;
	const fd_yval *sa = yval_get(src->where, "same_as");
	const fd_yval *at = yval_get(sa, "op");
	if (j >= pat->n_ops)
		cond_lint_say(l, DIAG_ERROR, at, "%s.input_sources.input%d.same_as.op: %d is out of range (the pattern has ops "
		              "0..%d)", path, src->input, j, pat->n_ops - 1);
	else if (j == i)
		cond_lint_say(l, DIAG_ERROR, at, "%s.input_sources.input%d.same_as.op: %d is this op; same_as names another "
		              "op's input", path, src->input, j);
	else if (j > i)
		cond_lint_say(l, DIAG_ERROR, at, "%s.input_sources.input%d.same_as.op: %d does not come before op %d (same_as "
		              "must name an earlier op)", path, src->input, j, i);
	else if (pat->ops[j].optional)
		cond_lint_say(l, DIAG_ERROR, at, "%s.input_sources.input%d.same_as.op: op %d is optional; same_as must name an "
		              "op that is always present", path, src->input, j);
	else {
		int arity = cond_op_max_inputs(&pat->ops[j]);
		char name[128];
		if (arity >= 0 && src->same_input >= arity)
			cond_lint_say(l, DIAG_ERROR, yval_get(sa, "input"), "%s.input_sources.input%d.same_as.input: %s (op %d) "
			              "takes %d input%s", path, src->input, cond_op_types_name(&pat->ops[j], name, sizeof name), j,
			              arity, arity == 1 ? "" : "s");
	}
}
