/* suggest_rule.c — a pattern's rule, written from its instances in the
 * rule format (fusiondbg-rules(5)): what holds for every instance is a
 * condition, what varies is left free and named in a comment. The rule
 * joins the set in a pass after every pass of it, below every rule that
 * competes for its op types, so it takes only what the set leaves. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/strbuf.h"
#include "base/text.h"
#include "match/param_value.h"
#include "rounds/fuse.h"
#include "rules/optable.h"
#include "ruleset/ruleset.h"
#include "suggest/suggest_internal.h"

#define SG_MAX_INPUTS 64        /* input slots described per op */
#define SG_MAX_LIST 16          /* list params written as conditions up to this many elements */

/* A plain string YAML may carry as it is, quoted. */
static bool plain_text(const char *s)
{
	if (!s || strlen(s) > 64)
		return false;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_-. ", *c))
			return false;
	return true;
}

static void put_float(strbuf *b, double f)
{
	char t[40];
	snprintf(t, sizeof t, "%.9g", f);
	sb_puts(b, t);
	if (!strpbrk(t, ".eEn"))   /* 1 -> 1.0: a float, not an int */
		sb_puts(b, ".0");
}

/* The value as YAML text of the param's type; false when it cannot be
 * written as a condition (absent, unknown, too long). */
static bool pval_yaml(const fd_pval *v, const fd_param_def *def, strbuf *b)
{
	sb_clear(b);
	switch (v->kind) {
	case PV_INT:
	case PV_BOOL:
		if (def->type == PT_BOOL)
			sb_puts(b, v->i ? "true" : "false");
		else if (def->type == PT_FLOAT)
			put_float(b, (double)v->i);
		else if (def->type == PT_INTS || def->type == PT_FLOATS)
			sb_printf(b, "[%lld]", (long long)v->i);
		else if (def->type == PT_INT || def->type == PT_ANY)
			sb_printf(b, "%lld", (long long)v->i);
		else
			return false;
		return true;
	case PV_FLOAT:
		if (def->type != PT_FLOAT && def->type != PT_ANY)
			return false;
		put_float(b, v->f);
		return true;
	case PV_STRING:
		if (def->type != PT_STRING && def->type != PT_ANY)
			return false;
		if (!plain_text(v->s))
			return false;
		sb_printf(b, "\"%s\"", v->s);
		return true;
	case PV_INTS:
	case PV_FLOATS:
		if (v->n > SG_MAX_LIST || (def->type != PT_INTS && def->type != PT_FLOATS && def->type != PT_ANY))
			return false;
		sb_puts(b, "[");
		for (int64_t k = 0; k < v->n; k++) {
			if (k)
				sb_puts(b, ", ");
			if (v->kind == PV_INTS && def->type != PT_FLOATS)
				sb_printf(b, "%lld", (long long)pval_ints(v)[k]);
			else
				put_float(b, v->kind == PV_INTS ? (double)pval_ints(v)[k] : pval_floats(v)[k]);
		}
		sb_puts(b, "]");
		return true;
	default:
		return false;
	}
}

/* What an input of one instance is: from position j (>= 0), or a source. */
typedef struct slot_view {
	int from;                   /* position, -1 external, -2 absent */
	char kind;                  /* external: c const, p param, a activation, o outer */
	int32_t tensor;
} slot_view;

static slot_view view_slot(const suggest_rule_in *in, int32_t inst, int pos, int k)
{
	const suggest_piece *p = &in->inst[inst];
	const fd_graph *g = &in->ctx->model->graphs[p->graph];
	const fd_node *n = &g->nodes[p->nodes[pos]];
	slot_view v = { -2, '-', FD_NONE };
	if (k >= n->n_inputs || n->inputs[k] < 0)
		return v;
	int32_t t = n->inputs[k];
	v.tensor = t;
	int32_t pr = g->tensors[t].producer;
	for (int j = 0; j < pos; j++)
		if (p->nodes[j] == pr)
			v.from = j;
	if (v.from >= 0)
		return v;
	v.from = -1;
	uint8_t f = in->ctx->graphs[p->graph].tflags[t];
	v.kind = f & TF_CONST ? 'c' : f & TF_INPUT ? 'p' : f & TF_OUTER ? 'o' : 'a';
	return v;
}

static bool same_view(slot_view a, slot_view b)
{
	return a.from == b.from && (a.from != -1 || a.kind == b.kind);
}

/* For a commutative two-input op: does this instance read its inputs the
 * other way round from the first instance (the matcher tries both)? */
static bool swapped(const suggest_rule_in *in, int32_t inst, int pos, const fd_op_def *d)
{
	if (!d || !d->commutative || inst == 0)
		return false;
	slot_view a0 = view_slot(in, 0, pos, 0), a1 = view_slot(in, 0, pos, 1);
	slot_view b0 = view_slot(in, inst, pos, 0), b1 = view_slot(in, inst, pos, 1);
	return !(same_view(a0, b0) && same_view(a1, b1)) && same_view(a0, b1) && same_view(a1, b0);
}

static const char *source_name(char kind)
{
	return kind == 'c' ? "const" : kind == 'p' ? "param" : kind == 'a' ? "activation" : NULL;
}

/* A shape every instance's tensor has, all of its dims numbers: "[1, 64, 1, 1]". */
static bool common_shape(const suggest_rule_in *in, const slot_view *views, strbuf *b, int32_t *rank)
{
	*rank = -2;
	bool same = true;
	const fd_shape *first = NULL;
	for (int32_t s = 0; s < in->n_inst; s++) {
		const fd_shape *sh = &in->ctx->model->graphs[in->inst[s].graph].tensors[views[s].tensor].shape;
		if (sh->rank < 0)
			return *rank = -2, false;
		if (*rank == -2)
			*rank = sh->rank;
		else if (*rank != sh->rank)
			return *rank = -2, false;
		if (!first) {
			first = sh;
			for (int i = 0; i < sh->rank; i++)
				if (match_dim(sh, i).kind != DIMV_NUMBER)
					same = false;
			continue;
		}
		for (int i = 0; i < sh->rank && same; i++)
			if (match_dim(sh, i).kind != DIMV_NUMBER || match_dim(sh, i).value != match_dim(first, i).value)
				same = false;
	}
	if (!same || !first || first->rank > 8)
		return false;
	sb_clear(b);
	sb_puts(b, "[");
	for (int i = 0; i < first->rank; i++)
		sb_printf(b, "%s%lld", i ? ", " : "", (long long)match_dim(first, i).value);
	sb_puts(b, "]");
	return true;
}

static void write_input(const suggest_rule_in *in, int pos, int k, const fd_op_def *d, strbuf *y, strbuf *tmp)
{
	slot_view *views = xcalloc((size_t)in->n_inst, sizeof *views);
	bool same = true;
	for (int32_t s = 0; s < in->n_inst; s++) {
		int kk = swapped(in, s, pos, d) ? 1 - k : k;
		views[s] = view_slot(in, s, pos, kk);
		if (!same_view(views[s], views[0]))
			same = false;
	}
	if (!same || views[0].from == -2) {
		free(views);
		return;   /* free: the instances differ here */
	}
	if (views[0].from >= 0) {
		sb_printf(y, "          input%d: {from_op: %d}\n", k, views[0].from);
		free(views);
		return;
	}
	strbuf cond = { 0 };
	const char *src = source_name(views[0].kind);
	if (src)
		sb_printf(&cond, "source_type: \"%s\"", src);
	int32_t dt = in->ctx->model->graphs[in->inst[0].graph].tensors[views[0].tensor].dtype;
	for (int32_t s = 1; s < in->n_inst && dt != DT_UNDEFINED; s++)
		if (in->ctx->model->graphs[in->inst[s].graph].tensors[views[s].tensor].dtype != dt)
			dt = DT_UNDEFINED;
	if (dt != DT_UNDEFINED)
		sb_printf(&cond, "%sdtype: \"%s\"", cond.n ? ", " : "", dtype_name(dt));
	int32_t rank;
	if (common_shape(in, views, tmp, &rank))
		sb_printf(&cond, "%sshape: %s", cond.n ? ", " : "", sb_str(tmp));
	else if (rank >= 0)
		sb_printf(&cond, "%srank: %d", cond.n ? ", " : "", rank);
	if (cond.n)
		sb_printf(y, "          input%d: {%s}\n", k, sb_str(&cond));
	sb_release(&cond);
	free(views);
}

/* params: the same in every instance as conditions; the others named in free. */
static void write_params(const suggest_rule_in *in, int pos, int op, strbuf *y, strbuf *free_list)
{
	const fd_op_def *d = optable_get(op);
	strbuf first = { 0 }, other = { 0 }, lines = { 0 };
	bool any_free = false;
	for (int q = 0; d && q < d->n_params; q++) {
		const fd_param_def *def = &d->params[q];
		if (def->derived == DERIVED_FORM)
			continue;
		bool ok = true;
		for (int32_t s = 0; s < in->n_inst && ok; s++) {
			const fd_graph *g = &in->ctx->model->graphs[in->inst[s].graph];
			fd_pval v;
			param_def_value(g, &g->nodes[in->inst[s].nodes[pos]], NULL, NULL, op, def, def->name, &v);
			if (!pval_yaml(&v, def, s ? &other : &first))
				ok = false;
			else if (s && strcmp(sb_str(&first), sb_str(&other)))
				ok = false;
		}
		if (ok) {
			sb_printf(&lines, "          %s: %s\n", def->name, sb_str(&first));
		} else {
			fd_pval v;
			const fd_graph *g = &in->ctx->model->graphs[in->inst[0].graph];
			param_def_value(g, &g->nodes[in->inst[0].nodes[pos]], NULL, NULL, op, def, def->name, &v);
			if (v.kind == PV_ABSENT)
				continue;   /* not there at all: nothing varies */
			sb_printf(free_list, "%s%s", any_free ? ", " : "", def->name);
			any_free = true;
		}
	}
	if (lines.n)
		sb_printf(y, "      params:\n%s", sb_str(&lines));
	sb_release(&first);
	sb_release(&other);
	sb_release(&lines);
}

/* A name from the model or a rule file in a YAML comment: escaped as plain
 * text is (base/text.h), so that no line break or control byte ends the
 * comment, and every character of it visible. */
static void comment_name(strbuf *b, const char *name)
{
	text_escape(b, name);
}

/* Do fused nodes of the set look like op (a target_op the op's row matches)? */
static bool fused_lookalike(const fd_ruleset *rs, const fd_op_def *d)
{
	for (int r = 0; r < rs->n_rules; r++)
		for (int t = 0; rs->rules[r].target_op && t < 6 && d->onnx_types[t]; t++)
			if (!strcmp(rs->rules[r].target_op, d->onnx_types[t]))
				return true;
	return false;
}

/* Does rule r of rs compete for the instances' op types? Counts it, and
 * names it in why. */
static bool competes(const suggest_rule_in *in, const fd_ruleset *rs, int r, int *n_comp, strbuf *why)
{
	const fd_graph *g = &in->ctx->model->graphs[in->inst[0].graph];
	bool sees = false;
	for (int i = 0; i < in->n_ops && !sees; i++)
		sees = rounds_rule_sees(rs, r, g->nodes[in->inst[0].nodes[i]].op_type);
	if (!sees)
		return false;
	if ((*n_comp)++ < 4) {
		sb_puts(why, *n_comp > 1 ? ", " : "");
		comment_name(why, rs->rules[r].name);
		sb_printf(why, " (%lld)", (long long)rs->rules[r].priority);
	}
	return true;
}

static bool priority_taken(const fd_ruleset *rs, int64_t prio)
{
	for (int r = 0; rs && r < rs->n_rules; r++)
		if (rs->rules[r].priority == prio)
			return true;
	return false;
}

/* The priority: below the lowest rule that competes for the op types, of
 * the set and of the patterns taken before (and unlike any rule's), in the
 * pass after the set's last. */
static void placement(const suggest_rule_in *in, int64_t *prio, int64_t *pass, strbuf *why)
{
	int64_t low = INT64_MAX;
	*pass = 0;
	int n_comp = 0;
	for (int r = 0; r < in->rs->n_rules; r++) {
		const fd_rule *rule = &in->rs->rules[r];
		if (rule->pass > *pass)
			*pass = rule->pass;
		if (competes(in, in->rs, r, &n_comp, why) && rule->priority < low)
			low = rule->priority;
	}
	for (int r = 0; in->above && r < in->above->n_rules; r++)
		if (competes(in, in->above, r, &n_comp, why) && in->above->rules[r].priority < low)
			low = in->above->rules[r].priority;
	if (n_comp > 4)
		sb_printf(why, " and %d more", n_comp - 4);
	*prio = low == INT64_MAX ? 100 : low > INT64_MIN + 10 ? low - 10 : low;
	while (*prio > INT64_MIN && (priority_taken(in->rs, *prio) || priority_taken(in->above, *prio)))
		(*prio)--;
	(*pass)++;
}

int32_t suggest_rule_swapped(const suggest_rule_in *in, fd_arena *a, const char **ops)
{
	const fd_graph *g = &in->ctx->model->graphs[in->inst[0].graph];
	strbuf names = { 0 };
	int32_t n = 0;
	for (int32_t s = 1; s < in->n_inst; s++) {
		bool any = false;
		for (int i = 0; i < in->n_ops; i++) {
			const fd_op_def *d = optable_get(suggest_node_op(g, &g->nodes[in->inst[0].nodes[i]]));
			if (!swapped(in, s, i, d))
				continue;
			any = true;
			const char *ty = g->nodes[in->inst[0].nodes[i]].op_type;
			if (!strstr(sb_str(&names), ty))
				sb_printf(&names, "%s%s", names.n ? ", " : "", ty);
		}
		n += any;
	}
	*ops = arena_strdup(a, sb_str(&names));
	sb_release(&names);
	return n;
}

const char *suggest_rule_yaml(const suggest_rule_in *in, fd_arena *a, const char **free_params)
{
	strbuf y = { 0 }, tmp = { 0 }, frees = { 0 }, comp = { 0 }, one = { 0 };
	const fd_model *m = in->ctx->model;
	const fd_graph *g = &m->graphs[in->inst[0].graph];
	int64_t prio, pass;
	placement(in, &prio, &pass, &comp);
	sb_printf(&y, "# %s — written by fusiondbg suggest from %d instance%s", in->name, in->n_inst,
	          in->n_inst == 1 ? "" : "s");
	if (in->n_found && in->n_found != in->n_inst)
		sb_printf(&y, " (the search grouped %d)", in->n_found);
	sb_puts(&y, ":\n");
	for (int32_t s = 0; s < in->n_inst && s < 8; s++) {
		sb_puts(&y, "#   ");
		for (int i = 0; i < in->n_ops; i++) {
			sb_puts(&y, i ? ", " : "");
			comment_name(&y, m->graphs[in->inst[s].graph].nodes[in->inst[s].nodes[i]].name);
		}
		sb_puts(&y, "\n");
	}
	if (in->n_inst > 8)
		sb_printf(&y, "#   and %d more\n", in->n_inst - 8);
	const char *sw_ops;
	int32_t n_sw = suggest_rule_swapped(in, a, &sw_ops);
	if (n_sw)
		sb_printf(&y, "# %d of them read %s's two inputs the other way round from the first; the\n"
		              "# matcher tries both orders, so this one rule takes them all.\n", n_sw, sw_ops);
	if (in->above && in->above->n_rules)
		sb_printf(&y, "# The instances are where it fires beside the rule%s of the %d pattern%s suggest\n"
		              "# ranks above it, which take their nodes first; alone it may also take some of those.\n",
		          in->above->n_rules == 1 ? "" : "s", in->above->n_rules, in->above->n_rules == 1 ? "" : "s");
	sb_printf(&y, "# It runs in pass %lld, after every pass of the rules it was made against, so it\n"
	              "# takes only what they leave; priority %lld is below the rules that compete for\n"
	              "# its op types%s%s.\n",
	          (long long)pass, (long long)prio, comp.n ? ": " : " (none does)", sb_str(&comp));
	sb_printf(&y, "version: \"1.0\"\nname: \"%s\"\npriority: %lld\npass: %lld\n", in->name, (long long)prio,
	          (long long)pass);
	sb_printf(&y, "scope:\n  - \"%s\"\ndescription: \"", in->target ? in->target : "ai_core");
	for (int i = 0; i < in->n_ops; i++)
		sb_printf(&y, "%s%s", i ? " + " : "", g->nodes[in->inst[0].nodes[i]].op_type);
	sb_puts(&y, " as one kernel (suggested).\"\nmatch:\n  ops:\n");
	for (int i = 0; i < in->n_ops; i++) {
		const fd_node *n = &g->nodes[in->inst[0].nodes[i]];
		int op = suggest_node_op(g, n);
		const fd_op_def *d = optable_get(op);
		sb_printf(&y, "    - type: \"%s\"\n", d->name);
		int nwhere = 0;
		sb_clear(&tmp);
		int n_types = 0;
		while (n_types < 6 && d->onnx_types[n_types])
			n_types++;
		if (n_types > 1 || strcmp(d->onnx_types[0], n->op_type))
			sb_printf(&tmp, "op_type == '%s'", n->op_type), nwhere++;
		if (fused_lookalike(in->rs, d) || (d->domain == NULL && n->domain[0]))
			sb_printf(&tmp, "%sdomain == '%s'", nwhere++ ? " && " : "", n->domain);
		if (nwhere)
			sb_printf(&y, "      where: \"%s\"\n", sb_str(&tmp));
		sb_clear(&one);
		write_params(in, i, op, &y, &one);
		if (one.n)
			sb_printf(&frees, "%sop%d %s: %s", frees.n ? "; " : "", i, d->name, sb_str(&one));
		bool arity = true;
		for (int32_t s = 1; s < in->n_inst; s++)
			if (m->graphs[in->inst[s].graph].nodes[in->inst[s].nodes[i]].n_inputs != n->n_inputs)
				arity = false;
		if (arity)
			sb_printf(&y, "      inputs: {min_inputs: %d, max_inputs: %d}\n", n->n_inputs, n->n_inputs);
		strbuf srcs = { 0 };
		for (int k = 0; k < n->n_inputs && k < SG_MAX_INPUTS; k++)
			write_input(in, i, k, d, &srcs, &tmp);
		if (srcs.n)
			sb_printf(&y, "      input_sources:\n%s", sb_str(&srcs));
		sb_release(&srcs);
		if (i == in->n_ops - 1) {
			int lo = INT32_MAX, hi = 0, gout = -1;
			for (int32_t s = 0; s < in->n_inst; s++) {
				const fd_graph *gs = &m->graphs[in->inst[s].graph];
				const fd_node *ns = &gs->nodes[in->inst[s].nodes[i]];
				int c = 0, o = 0;
				for (int k = 0; k < ns->n_outputs; k++)
					if (ns->outputs[k] >= 0) {
						c += gs->tensors[ns->outputs[k]].n_consumers;
						o |= gs->tensors[ns->outputs[k]].is_graph_output;
					}
				lo = c < lo ? c : lo;
				hi = c > hi ? c : hi;
				gout = s == 0 ? o : gout == o ? gout : -1;
			}
			sb_printf(&y, "      outputs: {min_consumers: %d, max_consumers: %d", lo, hi);
			if (gout >= 0)
				sb_printf(&y, ", graph_output: %s", gout ? "true" : "false");
			sb_puts(&y, "}\n");
		}
	}
	sb_printf(&y, "  subgraph:\n    allow_intermediate_outputs: false\nrewrite:\n  target_op: \"%s\"\n",
	          in->target_op);
	sb_puts(&y, "output:\n  kernel_name: \"");
	for (const char *c = in->name; *c; c++)
		sb_printf(&y, "%c", (char)tolower((unsigned char)*c));
	sb_puts(&y, "\"\n");
	if (frees.n) {
		/* the params that vary, in a comment of their own at the end */
		sb_printf(&y, "# Left free (they vary across the instances): %s.\n", sb_str(&frees));
	}
	*free_params = arena_strdup(a, sb_str(&frees));
	const char *out = arena_strdup(a, sb_str(&y));
	sb_release(&y);
	sb_release(&tmp);
	sb_release(&frees);
	sb_release(&comp);
	sb_release(&one);
	return out;
}

void suggest_rule_names(const fd_graph *g, const suggest_piece *p, const fd_ruleset *rs, strmap *taken, fd_arena *a,
                   const char **name, const char **target_op)
{
	strbuf n = { 0 }, t = { 0 };
	sb_puts(&n, "Suggested");
	sb_puts(&t, "Fused");
	for (int i = 0; i < p->n; i++) {
		const char *ty = optable_get(suggest_node_op(g, &g->nodes[p->nodes[i]]))->name;
		sb_printf(&n, "_%s", ty);
		sb_puts(&t, ty);
	}
	sb_puts(&n, "_Fusion");
	char base_n[512], base_t[512];
	snprintf(base_n, sizeof base_n, "%s", sb_str(&n));
	snprintf(base_t, sizeof base_t, "%s", sb_str(&t));
	for (int k = 2; ruleset_find(rs, sb_str(&n)) >= 0 || strmap_get(taken, sb_str(&n)) >= 0 ||
	                optable_lookup(sb_str(&t)) >= 0;
	     k++) {
		sb_clear(&n);
		sb_clear(&t);
		sb_printf(&n, "%s_%d", base_n, k);
		sb_printf(&t, "%s%d", base_t, k);
	}
	*name = arena_strdup(a, sb_str(&n));
	*target_op = arena_strdup(a, sb_str(&t));
	strmap_put(taken, *name, 1);
	sb_release(&n);
	sb_release(&t);
}
