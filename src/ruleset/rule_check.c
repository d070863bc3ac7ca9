/* rule_check.c — `check`: the lint over a loaded rule set, after the schema.
 * It reads the op table (optable.c) for op types and params, and looks across
 * rules for duplicate names and priority ties. Every finding points at the
 * value that causes it. Warnings become errors under strict.
 *
 * Findings (E = error, W = warning):
 *   E unknown op type; param the op does not have; param value of the wrong
 *     type or length (from_op out of range or not before its own op is the
 *     schema's, so verify says it too); inputK
 *     beyond max_inputs or the op's arity; output_names used twice; duplicate
 *     rule names; rewrite.inputs from_op out of range; constraints that can
 *     never pass (empty allowed_dtypes, max_intermediate_size 0 with two ops
 *     or more, max_output_size 0, channel_dim beyond the output rank,
 *     input_count_range above what the ops can read)
 *   W unknown constraint type; equal priorities on overlapping anchors
 *     ("rules shadowed by priority"); the same pattern as another rule;
 *     missing priority; empty scope; max_inputs above the op's arity
 *   note (verbose): what each op type and param resolved to.
 * The findings across rules are rule_check_across.c's.
 * Every command that runs rules lints each rule as it loads
 * (ruleset_lint_loaded): the same findings per rule, all as warnings, since
 * the rule still runs (an unknown op type makes it not run, FD-NR03). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/nearest.h"
#include "match/cond_constraint.h"
#include "rules/optable.h"
#include "ruleset/rule_check_internal.h"
#include "ruleset/ruleset.h"
#include "base/arena.h"

/* A finding at a place (a warning is an error under strict). */
void rule_check_say_at(checker *c, fd_severity sev, fd_srcpos pos, const char *fmt, ...)
{
	if (sev == DIAG_WARNING && c->opt && c->opt->strict)
		sev = DIAG_ERROR;
	if (sev == DIAG_ERROR && c->opt && c->opt->as_warnings)
		sev = DIAG_WARNING;
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(c->d, sev, pos, fmt, ap);
	va_end(ap);
}

void rule_check_say(checker *c, fd_severity sev, const fd_yval *at, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rule_check_say_at(c, sev, yval_pos(at), "%s", msg);
}

/* ---- spelling suggestions --------------------------------------------------------- */

/* The op names and aliases nearest to typed (base/nearest.h). */
static void suggest_op(const char *typed, fd_nearest *nn)
{
	nearest_init(nn, typed);
	for (int id = 0; id < optable_count(); id++) {
		const fd_op_def *op = optable_get(id);
		nearest_add(nn, op->name);
		for (int a = 0; a < 8 && op->aliases[a]; a++)
			nearest_add(nn, op->aliases[a]);
	}
}


/* The first op (other than id) that has a param of this name, for the hint. */
static const fd_op_def *op_with_param(int id, const char *name, const fd_param_def **def)
{
	for (int other = 0; other < optable_count(); other++)
		if (other != id && (*def = optable_param(other, name)))
			return optable_get(other);
	return NULL;
}

/* ---- positions ------------------------------------------------------------------ */

/* The key of value in the op's map `section` (params, input_sources): a
 * finding about a param or a source points at its name. Else the value. */
static const fd_yval *rule_check_key_of(const fd_rule_op *op, const char *section, const fd_yval *value)
{
	const fd_yval *map = yval_get(op->where, section);
	for (size_t i = 0; map && map->kind == YV_MAP && i < map->n; i++)
		if (map->items[i] == value)
			return map->keys[i];
	return value;
}


/* What a derived param is computed from (optable.h, fd_derived), in words. */
static const char *derived_words(fd_derived how)
{
	switch (how) {
	case DERIVED_BROADCAST: return "true when the inputs' shapes differ";
	case DERIVED_ACTIVATION_TYPE: return "\"none\" unless the node carries a fused activation";
	case DERIVED_NORMALIZED_SHAPE: return "the shape of the scale input";
	case DERIVED_ELEMENTWISE_AFFINE: return "true when the scale and bias inputs are there";
	case DERIVED_KERNEL_SIZE: return "the weight's spatial dims";
	case DERIVED_FALSE: return "false on every ONNX node of the op";
	case DERIVED_APPROXIMATE: return "\"none\" unless the node says its approximation";
	case DERIVED_FORM: return "\"decomposed\" for a canonical form, else \"node\"";
	case DERIVED_NONE: break;
	}
	return "from the node and its tensors";
}

/* ---- per op ------------------------------------------------------------------------ */

static const char *type_word(fd_param_type t)
{
	static const char *const words[] = {
		[PT_INT] = "an integer", [PT_FLOAT] = "a number", [PT_BOOL] = "true or false", [PT_STRING] = "a string",
		[PT_INTS] = "a list of integers", [PT_FLOATS] = "a list of numbers", [PT_ANY] = "any value",
	};
	return words[t];
}

static bool scalar_fits(const fd_yval *v, fd_param_type t)
{
	int64_t i;
	double f;
	bool b;
	switch (t) {
	case PT_INT: return yval_int(v, &i);
	case PT_FLOAT: return yval_float(v, &f);
	case PT_BOOL: return yval_bool(v, &b) || (yval_int(v, &i) && (i == 0 || i == 1));
	case PT_STRING: return v->kind == YV_SCALAR;
	default: return true;
	}
}

static bool value_fits(const fd_yval *v, fd_param_type t)
{
	if (t == PT_ANY)
		return true;
	if (!v || v->kind == YV_NULL || v->kind == YV_MAP)
		return false;
	if (t == PT_INTS || t == PT_FLOATS) {
		fd_param_type elem = t == PT_INTS ? PT_INT : PT_FLOAT;
		if (v->kind == YV_SCALAR)
			return scalar_fits(v, elem);
		for (size_t i = 0; i < v->n; i++)
			if (v->items[i]->kind != YV_SCALAR || !scalar_fits(v->items[i], elem))
				return false;
		return true;
	}
	return v->kind == YV_SCALAR && scalar_fits(v, t);
}

const char *rule_check_unknown_param(int op_id, const char *name, const char *path, char *buf, size_t size)
{
	const fd_op_def *def = optable_get(op_id);
	if (!def || optable_param(op_id, name))
		return NULL;
	const fd_param_def *other_def;
	const fd_op_def *other = op_with_param(op_id, name, &other_def);
	char hint[160] = "", list[512], near[600] = "", names[512];
	if (other)
		snprintf(hint, sizeof hint, "; '%.60s' is a param of %s", name, other->name);
	fd_nearest nn;   /* did you mean: the op's params and their aliases */
	nearest_init(&nn, name);
	for (int k = 0; k < def->n_params; k++) {
		nearest_add(&nn, def->params[k].name);
		for (int a = 0; a < 4 && def->params[k].aliases[a]; a++)
			nearest_add(&nn, def->params[k].aliases[a]);
	}
	if (nn.n)
		snprintf(near, sizeof near, "did you mean %s? ", nearest_list(&nn, names, sizeof names));
	if (def->n_params == 0)
		snprintf(buf, size, "%s.params: %s has no param '%s' (%s has no params%s)", path, def->name, name, def->name,
		         hint);
	else
		snprintf(buf, size, "%s.params: %s has no param '%s' (%sits params: %s%s)", path, def->name, name, near,
		         optable_param_list(def, list, sizeof list), hint);
	return buf;
}

static void check_param(checker *c, const fd_rule_op *op, int id, const fd_rule_param *p, const char *path)
{
	const fd_op_def *def = optable_get(id);
	const fd_yval *key = rule_check_key_of(op, "params", p->value);
	const fd_param_def *pd = optable_param(id, p->name);
	char msg[1024];
	if (!pd) {
		ERR(c, key, "%s", rule_check_unknown_param(id, p->name, path, msg, sizeof msg));
		return;
	}
	char b[96];
	const fd_yval *v = p->value;
	if (!value_fits(v, pd->type)) {
		if (v && v->kind == YV_SCALAR)
			snprintf(b, sizeof b, "%s '%.40s'", yval_kind_name(v), v->text);
		else
			snprintf(b, sizeof b, "%s", yval_kind_name(v));
		ERR(c, v, "%s.params.%s: %s's %s wants %s, got %s", path, p->name, def->name, pd->name, type_word(pd->type), b);
		return;
	}
	/* spatial lists of a rank-specific op: kernel_size [3, 3] for Conv2d; a
	 * single value is one value (a node's kernel_shape is always a list) */
	if (def->spatial_rank > 0 && (v->kind == YV_SEQ || v->kind == YV_SCALAR) && pd->type == PT_INTS) {
		int want = !strcmp(pd->name, "pads") ? 2 * def->spatial_rank : def->spatial_rank;
		size_t got = v->kind == YV_SEQ ? v->n : 1;
		if ((!strcmp(pd->name, "kernel_size") || !strcmp(pd->name, "strides") || !strcmp(pd->name, "dilations") ||
		     !strcmp(pd->name, "pads")) && (int)got != want)
			ERR(c, v, "%s.params.%s: %s wants %d values (%d spatial dims), got %zu", path, p->name, def->name, want,
			    def->spatial_rank, got);
	}
	/* MatMul transpose_b: true — no ONNX MatMul has the attribute */
	bool truth;
	if (pd->derived == DERIVED_FALSE && yval_bool(v, &truth) && truth)
		WARN(c, v, "%s.params.%s: true never holds on an ONNX %s node, which has no transpose attribute (exporters "
		     "write a separate Transpose); only nodes carrying '%s' (com.microsoft FusedMatMul) can match", path,
		     p->name, def->onnx_types[0], pd->attr ? pd->attr : pd->name);
	if (strcmp(p->name, pd->name))
		NOTE(c, key, "%s.params: '%s' is %s's param '%s'", path, p->name, def->name, pd->name);
	if (pd->attr && pd->derived && pd->derived != DERIVED_KERNEL_SIZE)
		/* an attribute only some nodes carry (opset<7 broadcast, FusedConv's
		 * activation): on the others the value is derived */
		NOTE(c, key, "%s.params.%s: derived: %s; ONNX attribute '%s' only on a node that carries it", path,
		     p->name, derived_words(pd->derived), pd->attr);
	else if (pd->attr)
		NOTE(c, key, "%s.params.%s: read from ONNX attribute '%s'%s%s%s", path, p->name, pd->attr,
		     pd->input >= 0 ? " or constant input " : "", pd->input >= 0 ? (snprintf(b, sizeof b, "%d", pd->input), b) : "",
		     pd->default_value ? (pd->derived ? ", else derived" : ", else its default") : "");
	else if (pd->derived)
		NOTE(c, key, "%s.params.%s: derived: %s", path, p->name, derived_words(pd->derived));
	else if (pd->input >= 0)
		NOTE(c, key, "%s.params.%s: read from constant input %d", path, p->name, pd->input);
}

/* Type t of op's list: unknown (with a suggestion), or what it resolved to;
 * true for a type of the op table (a fused op type has no params to check). */
static bool check_op_type(checker *c, const fd_rule_op *op, int t, const char *path)
{
	const char *type = op->types[t];
	const fd_yval *at = op->type_where && op->type_where->kind == YV_SEQ ? op->type_where->items[t] : op->type_where;
	char tp[160];
	if (op->type_where && op->type_where->kind == YV_SEQ)
		snprintf(tp, sizeof tp, "%s.type[%d]", path, t);
	else
		snprintf(tp, sizeof tp, "%s.type", path);
	const fd_op_def *def = optable_get(op->ops[t]);
	int32_t maker = op->ops[t] >= optable_count() ? ruleset_fused_type_rule(c->rs, op->ops[t]) : -1;
	if (maker >= 0) {
		/* a fused op type: rounds (fusiondbg-rules(5), ROUNDS AND PASSES) */
		NOTE(c, at, "%s: '%s' is the fused op of rule '%s' (its rewrite.target_op): it matches "
		     "the nodes that rule makes, in a later round; its params are those nodes' attributes (conv.pads, …)",
		     tp, type, c->rs->rules[maker].name);
		return false;
	}
	if (!def) {
		fd_nearest nn;
		char hint[600];
		suggest_op(type, &nn);
		if (nn.n)
			ERR(c, at, "%s: unknown op type '%s'%s", tp, type, nearest_hint(&nn, hint, sizeof hint));
		else
			ERR(c, at, "%s: unknown op type '%s' (the op table lists canonical names such as "
			    "Conv2d, BatchNorm, Relu, MatMul; see fusiondbg-rules(5))", tp, type);
		return false;
	}
	char types[128] = "";
	size_t len = 0;
	for (int k = 0; k < 6 && def->onnx_types[k]; k++)
		len += (size_t)snprintf(types + len, sizeof types - len, "%s%s", k ? "/" : "", def->onnx_types[k]);
	NOTE(c, at, "%s: '%s' is %s: matches node types %s%s%s%s", tp, type, def->name, types,
	     def->spatial_rank >= 0 ? " with " : "",
	     def->spatial_rank == 1 ? "1 spatial dim" : def->spatial_rank == 2 ? "2 spatial dims" :
	     def->spatial_rank == 3 ? "3 spatial dims" : "",
	     def->composite ? ", and its decomposed form" : "");
	return true;
}

/* A param of an op with a type list must be one every listed type has. */
static void check_op_param(checker *c, const fd_rule_op *op, const fd_rule_param *p, const char *path)
{
	for (int t = 1; t < op->n_types; t++)
		if (!!optable_param(op->ops[0], p->name) != !!optable_param(op->ops[t], p->name)) {
			int has = optable_param(op->ops[0], p->name) ? 0 : t, lacks = has ? 0 : t;
			ERR(c, rule_check_key_of(op, "params", p->value), "%s.params: '%s' is a param of %s but not of %s; with a list of "
			    "types a param must be one every listed type has (put the others in a branch)", path, p->name,
			    optable_get(op->ops[has])->name, optable_get(op->ops[lacks])->name);
			return;
		}
	check_param(c, op, op->op, p, path);
}

/* ---- the conditions' own findings -------------------------------------------------- */

/* Each condition's findings that need more than its value are its entry's
 * lint (match/conditions.h: FD_CONDITION_LINTS; their words are in its
 * cond_*.c): where names, same_as, position, value on an activation,
 * optional ops, shape names used once, input counts, the constraints that
 * can never pass. */
static void report(void *ctx, fd_severity sev, fd_srcpos pos, const char *msg)
{
	rule_check_say_at(ctx, sev, pos, "%s", msg);
}

static void check_condition(checker *c, fd_cond_kind kind, fd_cond_lint *site)
{
	void (*lint)(const fd_cond_lint *) = cond_lint_of(kind);
	if (!lint)
		return;
	site->verbose = c->opt && c->opt->verbose;
	site->ctx = c;
	site->say = report;
	lint(site);
}

static void check_conditions(checker *c, fd_cond_scope scope, fd_cond_lint *site)
{
	for (int k = 0; k < COND_COUNT; k++)
		if (cond_def((fd_cond_kind)k)->scope == scope)
			check_condition(c, (fd_cond_kind)k, site);
}

/* stage: "" for the op itself, ".effect" or ".change" for its conditions
 * after the match (their types are the op's, said once, for the op). */
static void check_op(checker *c, const fd_rule *r, const fd_rule_pattern *pat, int i, const char *pattern_path,
                     const char *stage)
{
	const fd_rule_op *op = &pat->ops[i];
	char path[128], name[128];
	snprintf(path, sizeof path, "%s[%d]%s", pattern_path, i, stage);
	if (!op->type)
		return;
	bool known = true;
	for (int t = 0; t < op->n_types; t++)
		known &= *stage ? optable_get(op->ops[t]) != NULL : check_op_type(c, op, t, path);
	if (known)
		for (int p = 0; p < op->n_params; p++)
			check_op_param(c, op, &op->params[p], path);
	int arity = known ? cond_op_max_inputs(op) : -1;
	cond_op_types_name(op, name, sizeof name);
	if (known) {
		fd_cond_lint site = { .rule = r, .pat = pat, .op_index = i, .path = path };
		check_conditions(c, SCOPE_OP, &site);
	}

	for (int s = 0; s < op->n_sources; s++) {
		const fd_input_source *src = &op->sources[s];
		const fd_yval *key = rule_check_key_of(op, "input_sources", src->where);
		if ((op->conds & COND_BIT(INPUTS)) && op->max_inputs >= 0 && src->input >= op->max_inputs)
			ERR(c, key, "%s.input_sources: input%d is beyond max_inputs %d (inputs are numbered from 0)", path,
			    src->input, op->max_inputs);
		else if (arity >= 0 && src->input >= arity)
			ERR(c, key, "%s.input_sources: input%d is beyond what %s takes (%d input%s)", path, src->input,
			    name, arity, arity == 1 ? "" : "s");
	}
	if (known) {
		fd_cond_lint site = { .rule = r, .pat = pat, .op_index = i, .path = path };
		for (int k = 0; k < op->n_sources; k++) {
			site.input = &op->sources[k];
			check_conditions(c, SCOPE_INPUT, &site);
		}
	}
}

/* output_names: each name once per rule. */
static void check_output_names(checker *c, const fd_rule *r)
{
	for (int p = r->match.n_ops ? -1 : 0; p < r->n_branches; p++) {
		const fd_rule_pattern *pat = p < 0 ? &r->match : &r->branches[p];
		for (int i = 0; i < pat->n_ops; i++) {
			const fd_rule_op *op = &pat->ops[i];
			for (int k = 0; k < op->n_output_names; k++) {
				const fd_yval *at = op->output_names_where && op->output_names_where->kind == YV_SEQ
				                        ? op->output_names_where->items[k] : op->output_names_where;
				/* an earlier use in the same pattern */
				for (int j = 0; j <= i; j++) {
					const fd_rule_op *o2 = &pat->ops[j];
					int upto = j == i ? k : o2->n_output_names;
					for (int m = 0; m < upto; m++)
						if (!strcmp(o2->output_names[m], op->output_names[k])) {
							const fd_yval *first = o2->output_names_where && o2->output_names_where->kind == YV_SEQ
							                           ? o2->output_names_where->items[m] : o2->output_names_where;
							ERR(c, at, "%s[%d].output_names: '%s' is already the output name of op %d (at %d:%d)",
							    p < 0 ? "match.ops" : "match.branches[].ops", i,
							    op->output_names[k], j, yval_pos(first).line, yval_pos(first).col);
							goto next;
						}
				}
next:;
			}
		}
	}
}

/* Where constraint k stands in the file's list: the typed rule keeps only
 * the constraints its schema read, so after one it refused, k's index there
 * is not the one the user sees. */
static int constraint_index(const fd_rule *r, int k)
{
	const fd_yval *list = r->root ? yval_get(r->root, "constraints") : NULL;
	for (size_t i = 0; list && list->kind == YV_SEQ && i < list->n; i++)
		if (list->items[i] == r->constraints[k].where)
			return (int)i;
	return k;
}

static void check_constraints(checker *c, const fd_rule *r)
{
	char known[256];
	cond_keys(cond_rows(SCOPE_CONSTRAINT, EV_KIND_COUNT), ", ", known, sizeof known);
	for (int i = 0; i < r->n_constraints; i++) {
		const fd_constraint *k = &r->constraints[i];
		if (k->kind == COND_COUNT) {
			WARN(c, yval_get(k->where, "type"), "constraints[%d].type: unknown constraint type '%s' (known: %s)",
			     constraint_index(r, i), k->type, known);
			continue;
		}
		char path[48];
		snprintf(path, sizeof path, "constraints[%d]", constraint_index(r, i));
		fd_cond_lint site = { .rule = r, .op_index = -1, .path = path, .constraint = k };
		check_condition(c, (fd_cond_kind)k->kind, &site);
	}
	/* input_count_range above what the chain can read from outside */
	if (r->input_count_min > 0 && r->match.n_ops) {
		int total = 0;
		bool bounded = true;
		for (int j = 0; j < r->match.n_ops && bounded; j++) {
			const fd_rule_op *op = &r->match.ops[j];
			int a = (op->conds & COND_BIT(INPUTS)) && op->max_inputs >= 0 ? op->max_inputs : optable_max_inputs(op->op);
			if (a < 0)
				bounded = false;
			total += a;
		}
		int external = total - (r->match.n_ops - 1);   /* each later op reads at least one earlier op */
		const fd_yval *range = yval_get(r->subgraph_where, "input_count_range");
		if (bounded && r->branches == NULL && r->input_count_min > external)
			ERR(c, range, "match.subgraph.input_count_range: lower bound %d can never be met: the ops can read at "
			    "most %d external tensor%s", r->input_count_min, external < 0 ? 0 : external, external == 1 ? "" : "s");
	}
}

static void check_rewrite(checker *c, const fd_rule *r)
{
	int n_ops = rules_most_ops(r);
	for (int i = 0; i < r->n_rewrite_inputs; i++) {
		const fd_rewrite_input *ri = &r->rewrite_inputs[i];
		if (ri->from_op >= n_ops)
			ERR(c, yval_get(ri->where, "from_op"), "rewrite.inputs[%d].from_op: %d is out of range (the pattern has "
			    "ops 0..%d)", i, ri->from_op, n_ops - 1);
	}
}

static void check_rule(checker *c, const fd_rule *r)
{
	if (!r->priority_where)
		WARN(c, r->root, "rule '%s' has no priority; it runs at priority 0", r->name);
	const fd_yval *scope = yval_get(r->root, "scope");
	if (scope && scope->kind == YV_SEQ && scope->n == 0)
		WARN(c, scope, "scope: empty list; the rule runs on no target");
	for (int i = 0; i < r->match.n_ops; i++)
		check_op(c, r, &r->match, i, "match.ops", "");
	for (int i = 0; i < r->effect.n_ops; i++)   /* an op's conditions after the match, as the op's own */
		if (r->effect.ops[i].conds || r->effect.ops[i].n_sources)
			check_op(c, r, &r->effect, i, "match.ops", ".effect");
	for (int i = 0; i < r->change.n_ops; i++)
		if (r->change.ops[i].conds || r->change.ops[i].n_sources)
			check_op(c, r, &r->change, i, "match.ops", ".change");
	for (int b = 0; b < r->n_branches; b++) {
		char p[48];
		snprintf(p, sizeof p, "match.branches[%d].ops", b);
		for (int i = 0; i < r->branches[b].n_ops; i++)
			check_op(c, r, &r->branches[b], i, p, "");
	}
	check_output_names(c, r);
	fd_cond_lint whole = { .rule = r, .op_index = -1, .path = "" };
	check_condition(c, COND_SHAPE, &whole);   /* a shape name's uses are the whole rule's */
	check_constraints(c, r);
	check_rewrite(c, r);
}

void ruleset_check_rule(const fd_ruleset *rs, const fd_rule *r, const fd_check_options *opt, fd_diags *d)
{
	checker c = { .rs = rs, .opt = opt, .d = d };
	check_rule(&c, r);
}

size_t ruleset_lint_rule(const fd_ruleset *rs, int32_t rule, fd_diags *d)
{
	static const fd_check_options load = { .as_warnings = true };
	if (rule < 0 || rule >= rs->n_rules)
		return 0;
	size_t before = d->warnings;
	ruleset_check_rule(rs, &rs->rules[rule], &load, d);
	return d->warnings - before;
}

size_t ruleset_lint_loaded(const fd_ruleset *rs, fd_diags *d)
{
	size_t n = 0;
	for (int32_t i = 0; i < rs->n_rules; i++)
		n += ruleset_lint_rule(rs, i, d);
	return n;
}

void ruleset_check(const fd_ruleset *rs, const fd_check_options *opt, fd_diags *d)
{
	fd_doing("checking %d rules", rs->n_rules);
	checker c = { .rs = rs, .opt = opt, .d = d };
	for (int i = 0; i < rs->n_rules; i++)
		check_rule(&c, &rs->rules[i]);
	rule_check_across(&c);
}
