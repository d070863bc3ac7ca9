/* cond_siblings.c — an op that is a group of siblings
 * (match.ops[i].siblings: {input, min, max, cover}): every reader of the
 * tensor the op reads at its input k that is of one of the op's types is a
 * member; each member must meet the op's own conditions (params, inputs,
 * input_sources, outputs, where), and the group the group's: between min
 * and max members and, with cover: axis, slices (Slice, Gather) that
 * together cover one axis of that tensor once, without a gap or an overlap,
 * step 1. Reading it (and, for the pattern, which ops after it each member
 * has its own of), deciding it on the candidate (the first member or any
 * other: each finds the same group), its words and its lint; an op's
 * conditions on a unit, quietly, for the members and their own ops. The
 * search asks it once the candidate's own conditions hold (match.c); each
 * member's own ops are match_group.c's; the fusion is every member with
 * them, its outputs theirs in the group's order (match_subgraph.c). */
#include "match/conditions.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"
#include "match/param_value.h"

/* ---- the schema ----------------------------------------------------------------- */

bool cond_siblings_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	char q[320];
	fd_rule_op *op = at->op;
	if (!schema_kind(s, v, YV_MAP, path))
		return false;
	bool ok = true;
	int input = 0, min = 2, max = FD_RULE_MAX_SIBLINGS;
	const fd_yval *f;
	if ((f = yval_get(v, "input"))) {
		snprintf(q, sizeof q, "%.200s.input", path);
		ok &= schema_small_int(s, f, q, 0, &input);
		if (ok && input >= FD_RULE_MAX_ITEMS) {
			ERR(s, f, "%s: %d is beyond the inputs an op may have (%d)", q, input, FD_RULE_MAX_ITEMS - 1);
			ok = false;
		}
	}
	if ((f = yval_get(v, "min"))) {
		snprintf(q, sizeof q, "%.200s.min", path);
		ok &= schema_small_int(s, f, q, 1, &min);
	}
	if ((f = yval_get(v, "max"))) {
		snprintf(q, sizeof q, "%.200s.max", path);
		if (schema_small_int(s, f, q, 1, &max) && max > FD_RULE_MAX_SIBLINGS) {
			ERR(s, f, "%s: %d is beyond the members a group may have (%d)", q, max, FD_RULE_MAX_SIBLINGS);
			ok = false;
		} else if (max < 1) {
			ok = false;
		}
	}
	if (ok && min > max) {
		ERR(s, yval_get(v, "min") ? yval_get(v, "min") : v, "%s: min %d > max %d", path, min, max);
		ok = false;
	}
	bool cover = false;
	if ((f = yval_get(v, "cover"))) {
		snprintf(q, sizeof q, "%.200s.cover", path);
		const char *c = NULL;
		if (schema_str(s, f, q, &c)) {
			if (!strcmp(c, "axis"))
				cover = true;
			else if (strcmp(c, "none")) {
				ERR(s, f, "%s: expected axis or none, got '%s'", q, c);
				ok = false;
			}
		} else {
			ok = false;
		}
	}
	if (yval_get(at->map, "optional")) {
		ERR(s, v, "%s: a group cannot be optional", path);
		ok = false;
	}
	if (yval_get(at->map, "feeds")) {
		ERR(s, v, "%s: a group is the readers of one tensor, not a producer (feeds)", path);
		ok = false;
	}
	if (!ok)
		return false;
	op->siblings = true;
	op->siblings_input = input;
	op->siblings_min = min;
	op->siblings_max = max;
	op->siblings_cover = cover;
	op->siblings_where = v;
	return true;
}

/* The op an op reads through in the chain: its feeds, its latest from_op,
 * or the op before it. */
static int link_of(const fd_rule_op *op, int j)
{
	if ((op->conds & COND_BIT(FEEDS)) && op->feeds_op < j)
		return op->feeds_op;
	int l = -1;
	for (int k = 0; k < op->n_sources; k++)
		if ((op->sources[k].conds & COND_BIT(FROM_OP)) && op->sources[k].from_op < j && op->sources[k].from_op > l)
			l = op->sources[k].from_op;
	return l >= 0 ? l : j - 1;
}

void cond_siblings_pattern(fd_schema *s, fd_rule_pattern *pat, const char *path)
{
	pat->grouped = false;
	pat->group = -1;
	pat->n_each = 0;
	for (int i = 0; i < pat->n_ops; i++) {
		if (!pat->ops[i].siblings)
			continue;
		if (pat->grouped) {
			ERR(s, pat->ops[i].siblings_where, "%s[%d].siblings: a pattern has one group; op %d is one already", path,
			    i, pat->group);
			continue;
		}
		pat->grouped = true;
		pat->group = i;
	}
	if (!pat->grouped)
		return;
	int g = pat->group;
	for (int j = g + 1; j < pat->n_ops; j++) {
		fd_rule_op *op = &pat->ops[j];
		if (op->conds & COND_BIT(FEEDS)) {   /* a producer: of the tensor every member reads, one for the group */
			if (op->feeds_op == g && op->feeds_input != pat->ops[g].siblings_input)
				ERR(s, op->feeds_where, "%s[%d].feeds: the group's producer is that of the tensor its members read "
				    "(input%d), not of input%d", path, j, pat->ops[g].siblings_input, op->feeds_input);
			else if (pat->ops[op->feeds_op].each_member)
				ERR(s, op->feeds_where, "%s[%d].feeds: op %d is each member's own; its producer is not one op", path,
				    j, op->feeds_op);
			continue;
		}
		int l = link_of(op, j);
		if (l != g && !(l >= 0 && pat->ops[l].each_member))
			continue;
		if (op->optional)
			ERR(s, yval_get(op->where, "optional"), "%s[%d].optional: each member of the group has its own op %d, "
			    "which cannot be optional", path, j, j);
		op->each_member = true;
		pat->n_each++;
	}
}

/* "every reader of input0's tensor of type [Slice, Gather], 2 to 256, covering one axis". */
void cond_siblings_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_rule_op *op = c->op;
	char types[96];
	text_cutf(buf, size, "every reader of input%d's tensor of type %s, %d to %d of them%s", op->siblings_input,
	          cond_op_types_name(op, types, sizeof types), op->siblings_min, op->siblings_max,
	          op->siblings_cover ? ", their slices covering one axis once" : "");
}

/* ---- the group ------------------------------------------------------------------- */

/* A group being judged: its members in the tensor's reader order, then (cover)
 * in the order of their slices. */
typedef struct sib_group {
	int32_t t;
	int n;
	int32_t members[FD_RULE_MAX_SIBLINGS + 1];
	int64_t start[FD_RULE_MAX_SIBLINGS + 1], end[FD_RULE_MAX_SIBLINGS + 1];
	int what;
	int32_t who, other;      /* the member that decided, and the one it overlaps */
	int64_t detail;          /* a member's reason, an index */
	int axis, other_axis;
	int64_t dim;
} sib_group;

/* The readers of t at slot k that are of one of op's types, at most max + 1. */
static void gather_members(const fd_cond_check *c, sib_group *gr, int k)
{
	const fd_tensor *x = &c->g->tensors[gr->t];
	for (int q = 0; q < x->n_consumers && gr->n <= c->op->siblings_max; q++) {
		int32_t m = x->consumers[q];
		if ((gr->n && gr->members[gr->n - 1] == m) || match_unit_input(c->ix, m, k) != gr->t
		    || match_type_alt(c->ix, m, c->op) < 0)
			continue;
		gr->members[gr->n++] = m;
	}
}

fd_reason cond_siblings_unit_fails(match_run_state *s, int i, int32_t u)
{
	const fd_rule_op *op = &s->pat->ops[i];
	int alt = match_type_alt(s->ix, u, op);
	if (alt < 0)
		return cond_type_verdict(op, alt);
	fd_cond_check mc = s->op_checks[i];
	mc.op = op;
	mc.op_index = i;
	mc.unit = u;
	mc.sub = alt;
	mc.op_id = op->ops[alt];
	/* the op's own rows before its inputs', but its type (decided above) and
	 * feeds (a member is found among the readers, not as a producer) */
	uint64_t own = op->conds & cond_rows_before(SCOPE_OP, SCOPE_INPUT) & ~(COND_BIT(TYPE) | COND_BIT(FEEDS));
	fd_reason r = REASON_NONE;
	for (int k = 0; k < COND_COUNT && !r; k++)
		if (own >> k & 1)
			r = cond_check_event(cond_def((fd_cond_kind)k)->event, (uint64_t)1 << k, &mc, NULL);
	size_t mark = s->binds.n;
	uint64_t source = cond_rows(SCOPE_INPUT, EV_SOURCE) & ~COND_BIT(OPTIONAL_INPUT);
	for (int k = 0; k < op->n_sources && !r; k++) {
		const fd_input_source *src = &op->sources[k];
		int32_t t = unit_input(s, u, src->input);
		if (t == FD_NONE && (src->conds & COND_BIT(OPTIONAL_INPUT)))
			continue;
		fd_cond_check ic = mc;
		ic.input = src;
		ic.source_index = k;
		ic.tensor = t;
		ic.slot = src->input;
		ic.bound = -1;
		if ((src->conds & source) || t == FD_NONE)
			r = cond_check_event(EV_SOURCE, src->conds, &ic, NULL);
		if (!r && (src->conds & cond_rows(SCOPE_INPUT, EV_OPERAND)))
			r = cond_check_event(EV_OPERAND, src->conds, &ic, NULL);
	}
	s->binds.n = mark;
	return r;
}

/* One scalar of a member's slice, from its param (Slice's starts, ends,
 * axes, steps): false when it is not one constant integer; absent is dflt. */
static bool scalar_param(const fd_cond_check *c, int32_t m, int op_id, const char *name, int64_t dflt, int64_t *out)
{
	fd_pval v;
	param_unit_value(c->g, &c->g->nodes[m], NULL, c->ix->canon.pool, op_id, name, &v);
	if (v.kind == PV_ABSENT) {
		*out = dflt;
		return dflt != INT64_MIN;
	}
	if (v.kind == PV_INT) {
		*out = v.i;
		return true;
	}
	if (v.kind == PV_INTS && v.n == 1) {
		*out = pval_ints(&v)[0];
		return true;
	}
	return false;
}

/* Member q's slice as [start, end) of its axis, the ends clamped as ONNX's
 * Slice does, a Gather's index one element; false with gr->what set. */
static bool member_slice(const fd_cond_check *c, sib_group *gr, int q, int rank, const fd_shape *sh)
{
	int32_t m = gr->members[q];
	int op_id = c->op->ops[match_type_alt(c->ix, m, c->op)];
	const fd_op_def *def = optable_get(op_id);
	const char *name = def ? def->name : "";
	int64_t axis = 0, start = 0, end = 0;
	gr->who = m;
	if (!strcmp(name, "Slice")) {
		int64_t step = 1;
		if (!scalar_param(c, m, op_id, "starts", INT64_MIN, &start) || !scalar_param(c, m, op_id, "ends", INT64_MIN, &end)
		    || !scalar_param(c, m, op_id, "axes", 0, &axis) || !scalar_param(c, m, op_id, "steps", 1, &step)) {
			gr->what = SIB_NOT_SLICE;
			return false;
		}
		if (step != 1) {
			gr->what = SIB_STEP;
			gr->detail = step;
			return false;
		}
	} else if (!strcmp(name, "Gather")) {
		int32_t idx = match_unit_input(c->ix, m, 1);
		const fd_const *v = idx >= 0 ? c->g->tensors[idx].value : NULL;
		if (!v || !v->i64 || v->count != 1 || !scalar_param(c, m, op_id, "axis", 0, &axis)) {
			gr->what = SIB_NOT_SLICE;
			return false;
		}
		start = v->i64[0];
		end = INT64_MIN;   /* one element, once the dim is known */
	} else {
		gr->what = SIB_NOT_SLICE;
		return false;
	}
	if (axis < -rank || axis >= rank) {
		gr->what = SIB_AXIS;
		gr->other_axis = axis < INT32_MIN ? INT32_MIN : axis > INT32_MAX ? INT32_MAX : (int)axis;
		return false;
	}
	if (axis < 0)
		axis += rank;
	if (q == 0) {
		gr->axis = (int)axis;
		fd_dimv d = match_dim(sh, (int)axis);
		if (d.kind != DIMV_NUMBER) {
			gr->what = SIB_DIM;
			return false;
		}
		gr->dim = d.value;
	} else if (axis != gr->axis) {
		gr->what = SIB_AXIS;
		gr->other_axis = (int)axis;
		return false;
	}
	int64_t dim = gr->dim;
	if (end == INT64_MIN) {   /* Gather: an index in [-dim, dim) */
		if (start < 0)
			start += dim;
		if (start < 0 || start >= dim) {
			gr->what = SIB_EMPTY;
			return false;
		}
		end = start + 1;
	} else {
		if (start < 0)
			start = start < -dim ? 0 : start + dim;
		if (end < 0)
			end = end < -dim ? 0 : end + dim;
		start = start > dim ? dim : start;
		end = end > dim ? dim : end;
		if (start >= end) {
			gr->what = SIB_EMPTY;
			return false;
		}
	}
	gr->start[q] = start;
	gr->end[q] = end;
	return true;
}

/* The members in the order of their slices (insertion sort: at most 257). */
static void sort_by_start(sib_group *gr)
{
	for (int i = 1; i < gr->n; i++) {
		int32_t m = gr->members[i];
		int64_t a = gr->start[i], b = gr->end[i];
		int j = i;
		for (; j > 0 && gr->start[j - 1] > a; j--) {
			gr->members[j] = gr->members[j - 1];
			gr->start[j] = gr->start[j - 1];
			gr->end[j] = gr->end[j - 1];
		}
		gr->members[j] = m;
		gr->start[j] = a;
		gr->end[j] = b;
	}
}

/* cover: axis — every member a slice of one axis, together [0, dim) once. */
static void judge_cover(const fd_cond_check *c, sib_group *gr)
{
	const fd_shape *sh = &c->g->tensors[gr->t].shape;
	if (sh->rank < 0) {
		gr->what = SIB_DIM;
		gr->who = FD_NONE;
		return;
	}
	for (int q = 0; q < gr->n; q++)
		if (!member_slice(c, gr, q, sh->rank, sh))
			return;
	sort_by_start(gr);
	int64_t at = 0;
	for (int q = 0; q < gr->n; q++) {
		if (gr->start[q] > at) {
			gr->what = SIB_GAP;
			gr->detail = at;
			gr->who = gr->members[q];
			return;
		}
		if (gr->start[q] < at) {
			gr->what = SIB_OVERLAP;
			gr->detail = gr->start[q];
			gr->who = gr->members[q];
			gr->other = gr->members[q - 1];
			return;
		}
		at = gr->end[q];
	}
	if (at < gr->dim) {
		gr->what = SIB_GAP;
		gr->detail = at;
		gr->who = FD_NONE;
	}
}

/* The group of c's unit, judged. Explaining, a member's failure is the
 * event's (the run checked it with the names bound then). */
static void judge(const fd_cond_check *c, sib_group *gr)
{
	const fd_rule_op *op = c->op;
	int k = op->siblings_input;
	gr->n = 0;
	gr->what = SIB_HOLDS;
	gr->who = gr->other = FD_NONE;
	gr->detail = 0;
	gr->axis = gr->other_axis = -1;
	gr->dim = -1;
	gr->t = match_unit_input(c->ix, c->unit, k);
	if (gr->t < 0) {
		gr->what = SIB_NO_INPUT;
		return;
	}
	if (c->g->tensors[gr->t].n_consumers > FD_RULE_MAX_SIBLING_READERS) {
		gr->what = SIB_READERS;
		return;
	}
	gather_members(c, gr, k);
	if (gr->n > op->siblings_max) {
		gr->what = SIB_MAX;
		return;
	}
	if (c->run) {
		for (int q = 0; q < gr->n; q++) {
			fd_reason r = gr->members[q] == c->unit ? REASON_NONE : cond_siblings_unit_fails(c->run, c->op_index, gr->members[q]);
			if (r) {
				gr->what = SIB_MEMBER;
				gr->who = gr->members[q];
				gr->detail = r;
				return;
			}
		}
	} else if (c->ev->sub == SIB_MEMBER || c->ev->sub == SIB_FOLLOWER) {
		gr->what = c->ev->sub;
		gr->who = c->payload.siblings.who;
		gr->detail = c->payload.siblings.detail;
		gr->other_axis = (int)c->payload.siblings.follower_op;
		return;
	}
	if (gr->n < op->siblings_min) {
		gr->what = SIB_MIN;
		return;
	}
	if (op->siblings_cover)
		judge_cover(c, gr);
}

/* ---- the check and its words ------------------------------------------------------ */

static const char *node_name(const fd_graph *g, int32_t n)
{
	return n >= 0 && n < g->n_nodes ? g->nodes[n].name : "-";
}

static void say(const fd_cond_check *c, const sib_group *gr, fd_cond_facts *f)
{
	const fd_rule_op *op = c->op;
	const fd_graph *g = c->g;
	const char *t = cond_tensor_name(g, gr->t), *who = node_name(g, gr->who);
	const char *key = NULL;
	f->decided = op->siblings_where;
	cond_siblings_describe(c, f->expected, sizeof f->expected);
	if (gr->t >= 0)
		text_cutf(f->actual, sizeof f->actual, "%d member%s reading %s", gr->n, gr->n == 1 ? "" : "s", t);
	switch (gr->what) {
	case SIB_HOLDS:
		break;
	case SIB_NO_INPUT:
		text_cutf(f->actual, sizeof f->actual, "no input%d", op->siblings_input);
		text_cutf(f->reason_text, sizeof f->reason_text, "the op reads nothing at input%d, so it has no siblings",
		          op->siblings_input);
		key = "input";
		break;
	case SIB_READERS:
		text_cutf(f->actual, sizeof f->actual, "%s read %d times", t, g->tensors[gr->t].n_consumers);
		text_cutf(f->reason_text, sizeof f->reason_text, "%s has %d readers, more than the %d a group is looked "
		          "for among", t, g->tensors[gr->t].n_consumers, FD_RULE_MAX_SIBLING_READERS);
		break;
	case SIB_MAX:
		text_cutf(f->actual, sizeof f->actual, "more than %d members reading %s", op->siblings_max, t);
		text_cutf(f->reason_text, sizeof f->reason_text, "more than %d readers of %s are of the op's types",
		          op->siblings_max, t);
		key = "max";
		break;
	case SIB_MEMBER: {
		const fd_reason_def *d = reason_get((fd_reason)gr->detail);
		text_cutf(f->reason_text, sizeof f->reason_text, "member %s fails the op's own conditions (%s: %s)", who,
		          d ? d->code : "?", d ? d->summary : "?");
		break;
	}
	case SIB_FOLLOWER: {
		const fd_reason_def *d = reason_get((fd_reason)gr->detail);
		int j = gr->other_axis;
		text_cutf(f->reason_text, sizeof f->reason_text, "member %s has no op%d of its own that meets op%d's "
		          "conditions (%s: %s)", who, j, j, d ? d->code : "?", d ? d->summary : "?");
		break;
	}
	case SIB_MIN:
		text_cutf(f->reason_text, sizeof f->reason_text, "%d reader%s of %s %s of the op's types, fewer than %d",
		          gr->n, gr->n == 1 ? "" : "s", t, gr->n == 1 ? "is" : "are", op->siblings_min);
		key = "min";
		break;
	case SIB_NOT_SLICE:
		text_cutf(f->reason_text, sizeof f->reason_text, "member %s is no slice of one constant range (a Slice's "
		          "starts, ends, axes and steps, a Gather's index: one constant integer each)", who);
		key = "cover";
		break;
	case SIB_STEP:
		text_cutf(f->reason_text, sizeof f->reason_text, "member %s slices with step %lld, not 1", who,
		          (long long)gr->detail);
		key = "cover";
		break;
	case SIB_AXIS:
		if (gr->axis >= 0)
			text_cutf(f->reason_text, sizeof f->reason_text, "member %s slices axis %d, the first member axis %d",
			          who, gr->other_axis, gr->axis);
		else
			text_cutf(f->reason_text, sizeof f->reason_text, "member %s slices axis %d, beyond %s's rank %d", who,
			          gr->other_axis, t, g->tensors[gr->t].shape.rank);
		key = "cover";
		break;
	case SIB_DIM:
		if (gr->axis >= 0)
			text_cutf(f->reason_text, sizeof f->reason_text, "the size of axis %d of %s is not known", gr->axis, t);
		else
			text_cutf(f->reason_text, sizeof f->reason_text, "the rank of %s is not known", t);
		key = "cover";
		break;
	case SIB_EMPTY:
		text_cutf(f->reason_text, sizeof f->reason_text, "member %s slices nothing of axis %d (size %lld)", who,
		          gr->axis, (long long)gr->dim);
		key = "cover";
		break;
	case SIB_OVERLAP:
		text_cutf(f->reason_text, sizeof f->reason_text, "members %s and %s both slice index %lld of axis %d", who,
		          node_name(g, gr->other), (long long)gr->detail, gr->axis);
		key = "cover";
		break;
	case SIB_GAP:
		text_cutf(f->reason_text, sizeof f->reason_text, "no member slices index %lld of axis %d (size %lld)%s%s",
		          (long long)gr->detail, gr->axis, (long long)gr->dim, gr->who >= 0 ? ": the next starts at " : "",
		          gr->who >= 0 ? who : "");
		key = "cover";
		break;
	}
	snprintf(f->path, sizeof f->path, key ? "siblings.%s" : "siblings", key);
	if (key && yval_get(op->siblings_where, key))
		f->decided = yval_get(op->siblings_where, key);
}

/* In a run: the payload's siblings (the member that decided or FD_NONE,
 * the members, the detail), c->sub what decided; the group, when it holds, is the
 * run's (s->group, in the group's order). */
fd_reason cond_siblings_check(fd_cond_check *c, fd_cond_facts *facts)
{
	sib_group *gr = xmalloc(sizeof *gr);   /* big for the stack of a deep search */
	judge(c, gr);
	fd_reason why = gr->what == SIB_HOLDS ? REASON_NONE : REASON_NM24_SIBLINGS;
	c->payload.siblings.who = gr->who;
	c->payload.siblings.members = gr->n;
	c->payload.siblings.detail = gr->detail;
	c->sub = gr->what;
	if (c->run && !why) {
		match_run_state *s = c->run;
		s->group.n = 0;
		for (int q = 0; q < gr->n; q++)
			vec_push(&s->group, gr->members[q]);
	}
	if (facts) {
		cond_facts_clear(facts);
		facts->reason = why;
		say(c, gr, facts);
	}
	free(gr);
	return why;
}

/* ---- the lint ------------------------------------------------------------------------ */

/* cover: axis reads Slices and Gathers only; a type that is neither never
 * covers (each of its nodes fails the group). */
void cond_siblings_lint(const fd_cond_lint *l)
{
	const fd_rule_op *op = &l->pat->ops[l->op_index];
	if (!op->siblings || !op->siblings_cover)
		return;
	for (int k = 0; k < op->n_types; k++) {
		const fd_op_def *def = optable_get(op->ops[k]);
		if (def && strcmp(def->name, "Slice") && strcmp(def->name, "Gather"))
			cond_lint_say(l, DIAG_WARNING, yval_get(op->siblings_where, "cover"), "%s.siblings.cover: axis reads "
			              "the slices of Slice and Gather; a %s member never covers", l->path, op->types[k]);
	}
}
