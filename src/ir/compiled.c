/* compiled.c — the replaced nodes of a compiler's fused nodes (compiled.h
 * says the method): one original graph O against its optimized counterpart
 * P at a time, bodies after their owners. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/strbuf.h"
#include "base/strmap.h"
#include "ir/compiled.h"

static const char *const gone_names[] = {
#define NAME(id, name) [GONE_##id] = name,
	FD_COMPILED_GONE(NAME)
#undef NAME
};

const char *compiled_gone_name(fd_compiled_gone g)
{
	return g < GONE_COUNT ? gone_names[g] : "?";
}

static const char *const nondeterministic[] = {
	"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli",
};

enum { T_CONST = 1, T_PURE = 2, T_CSE = 4 };
enum { CLAIM_NONE = -1, CLAIM_KEPT = -2 };   /* an O node no group replaced; the one node of a unit that is it */

typedef struct pair {
	fd_compiled *out;
	fd_arena a;                /* this pair's scratch */
	const fd_model *om, *pm;
	const fd_graph *O, *P;
	int32_t og;
	const struct pair *parent; /* the owners' pair, for outer-scope constants */
	const char **pname;        /* P tensor → its name with the renames undone */
	strmap pby;                /* that name → P tensor */
	int32_t *ident_o, *ident_p;/* O node ↔ P node, -1 */
	uint8_t *tflag;            /* O tensor: T_* */
	bool *const_node;
	int32_t *cse;              /* O node → the twin it was merged into, -1 */
	int32_t *topo;             /* O node → its topological position */
} pair;

/* ---- small queries ------------------------------------------------------------------ */

static bool same_op(const fd_node *a, const fd_node *b)
{
	return !strcmp(a->op_type, b->op_type) && !strcmp(a->domain, b->domain);
}

static bool has_body(const fd_node *n)
{
	return n->n_subgraphs > 0;
}

static int32_t p_tensor(const pair *p, const char *name)
{
	return name ? strmap_get(&p->pby, name) : -1;
}

static bool in_o(const pair *p, const char *name)
{
	return graph_find_tensor(p->O, name) >= 0;
}

static bool p_init(const pair *p, const char *name)
{
	int32_t t = p_tensor(p, name);
	return t >= 0 && p->P->tensors[t].kind == TENSOR_INITIALIZER;
}

static bool p_produced(const pair *p, const char *name)
{
	int32_t t = p_tensor(p, name);
	return t >= 0 && p->P->tensors[t].producer >= 0;
}

static const char *oname(const pair *p, int32_t t)
{
	return p->O->tensors[t].name;
}

/* ---- 1. identity and renames ------------------------------------------------------------ */

static int32_t o_node_by_outputs(const pair *p, const fd_node *pn)
{
	if (pn->n_outputs == 0 || pn->outputs[0] < 0)
		return -1;
	int32_t t = graph_find_tensor(p->O, p->P->tensors[pn->outputs[0]].name);
	int32_t oi = t >= 0 ? p->O->tensors[t].producer : -1;
	if (oi < 0 || p->O->nodes[oi].n_outputs != pn->n_outputs)
		return -1;
	for (int32_t k = 0; k < pn->n_outputs; k++) {
		int32_t a = pn->outputs[k], b = p->O->nodes[oi].outputs[k];
		if ((a < 0) != (b < 0) || (a >= 0 && strcmp(p->P->tensors[a].name, oname(p, b))))
			return -1;
	}
	return oi;
}

static void identify(pair *p)
{
	const fd_graph *O = p->O, *P = p->P;
	for (int32_t pi = 0; pi < P->n_nodes; pi++) {
		const fd_node *pn = &P->nodes[pi];
		int32_t oi = !pn->name_synthesized ? graph_find_node(O, pn->name) : o_node_by_outputs(p, pn);
		if (oi >= 0 && O->nodes[oi].name_synthesized != pn->name_synthesized)
			oi = -1;
		if (oi >= 0 && same_op(&O->nodes[oi], pn) && p->ident_o[oi] < 0) {
			p->ident_p[pi] = oi;
			p->ident_o[oi] = pi;
		}
	}
	/* a kept node's outputs it renamed (the TransposeOptimizer does) */
	for (int32_t t = 0; t < P->n_tensors; t++)
		p->pname[t] = P->tensors[t].name;
	for (int32_t pi = 0; pi < P->n_nodes; pi++) {
		int32_t oi = p->ident_p[pi];
		if (oi < 0 || P->nodes[pi].n_outputs != O->nodes[oi].n_outputs)
			continue;
		for (int32_t k = 0; k < P->nodes[pi].n_outputs; k++) {
			int32_t pt = P->nodes[pi].outputs[k], ot = O->nodes[oi].outputs[k];
			if (pt < 0 || ot < 0 || !strcmp(P->tensors[pt].name, oname(p, ot)))
				continue;
			if (!in_o(p, P->tensors[pt].name) && graph_find_tensor(P, oname(p, ot)) < 0)
				p->pname[pt] = oname(p, ot);
		}
	}
	strmap_reserve(&p->pby, (size_t)P->n_tensors);
	for (int32_t t = 0; t < P->n_tensors; t++)
		strmap_put(&p->pby, p->pname[t], t);
}

/* ---- 2. constants and common subexpressions ------------------------------------------------ */

static bool is_nondeterministic(const fd_node *n)
{
	for (size_t k = 0; k < sizeof nondeterministic / sizeof *nondeterministic; k++)
		if (!strcmp(n->op_type, nondeterministic[k]))
			return true;
	return false;
}

static void find_constants(pair *p)
{
	const fd_graph *O = p->O;
	for (int32_t t = 0; t < O->n_tensors; t++) {
		const fd_tensor *x = &O->tensors[t];
		bool c = x->kind == TENSOR_INITIALIZER ||
		         (x->kind == TENSOR_OUTER_SCOPE && p->parent && x->outer >= 0 && (p->parent->tflag[x->outer] & T_CONST)) ||
		         (x->producer >= 0 && p_init(p, x->name));
		p->tflag[t] = c ? T_CONST | T_PURE : 0;
	}
	/* topological order: a node's producers are decided before it */
	for (int32_t k = 0; k < O->n_nodes; k++) {
		int32_t i = O->topo_order[k];
		const fd_node *n = &O->nodes[i];
		if (is_nondeterministic(n) || has_body(n))
			continue;
		bool outs = n->n_outputs > 0, ins = true, pure = true;
		for (int32_t s = 0; s < n->n_outputs; s++)
			outs = outs && (n->outputs[s] < 0 || (p->tflag[n->outputs[s]] & T_CONST));
		bool shape = !strcmp(n->op_type, "Shape") || !strcmp(n->op_type, "Size");
		for (int32_t s = 0; s < n->n_inputs; s++) {
			int32_t x = n->inputs[s];
			ins = ins && (x < 0 || (p->tflag[x] & T_CONST));
			pure = pure && (x < 0 || (p->tflag[x] & T_PURE));
		}
		if (!outs && !shape && !ins)
			continue;
		p->const_node[i] = true;
		for (int32_t s = 0; s < n->n_outputs; s++)
			if (n->outputs[s] >= 0 && !(p->tflag[n->outputs[s]] & T_CONST))
				p->tflag[n->outputs[s]] |= T_CONST | (pure && !shape ? T_PURE : 0);
	}
}

static void sig_attr(strbuf *b, const fd_attr *a)
{
	sb_printf(b, "%s=%d:", a->name, (int)a->type);
	switch (a->type) {
	case ATTR_FLOAT: sb_printf(b, "%a", a->u.f); break;
	case ATTR_INT: sb_printf(b, "%lld", (long long)a->u.i); break;
	case ATTR_STRING: sb_printf(b, "%zu:%s", strlen(a->u.s ? a->u.s : ""), a->u.s ? a->u.s : ""); break;
	case ATTR_INTS:
		for (int64_t k = 0; k < a->count; k++)
			sb_printf(b, "%lld,", (long long)a->u.ints[k]);
		break;
	case ATTR_FLOATS:
		for (int64_t k = 0; k < a->count; k++)
			sb_printf(b, "%a,", a->u.floats[k]);
		break;
	case ATTR_STRINGS:
		for (int64_t k = 0; k < a->count; k++)
			sb_printf(b, "%zu:%s,", strlen(a->u.strings[k]), a->u.strings[k]);
		break;
	case ATTR_TENSOR:
		if (a->u.t && a->u.t->value) {
			const fd_const *c = a->u.t->value;
			sb_printf(b, "t%d:", (int)c->dtype);
			for (int32_t k = 0; k < a->u.t->shape.rank; k++)
				sb_printf(b, "%lldx", (long long)a->u.t->shape.dims[k].value);
			for (int64_t k = 0; k < c->count; k++)
				c->i64 ? sb_printf(b, "%lld,", (long long)c->i64[k]) : sb_printf(b, "%a,", c->f64 ? c->f64[k] : 0.0);
		} else {
			sb_printf(b, "<tensor %p>", (const void *)a);   /* unknown content: equal only to itself */
		}
		break;
	default: sb_puts(b, "<graph>"); break;
	}
	sb_puts(b, ";");
}

static int cmp_attr_name(const void *x, const void *y)
{
	return strcmp((*(const fd_attr *const *)x)->name, (*(const fd_attr *const *)y)->name);
}

/* A tensor's part of a node's signature: an initializer by its small value
 * when known (else its name), a produced tensor by its producer's signature. */
static void sig_input(strbuf *b, const pair *p, const int32_t *sig, int32_t t)
{
	if (t < 0) {
		sb_puts(b, "-|");
		return;
	}
	const fd_tensor *x = &p->O->tensors[t];
	if (x->producer >= 0) {
		sb_printf(b, "o%d.%d|", (int)sig[x->producer], (int)x->producer_port);
	} else if (x->kind == TENSOR_INITIALIZER && x->value) {
		sb_printf(b, "v%d:", (int)x->dtype);
		for (int32_t k = 0; k < x->shape.rank; k++)
			sb_printf(b, "%lldx", (long long)x->shape.dims[k].value);
		for (int64_t k = 0; k < x->value->count; k++)
			x->value->i64 ? sb_printf(b, "%lld,", (long long)x->value->i64[k])
			              : sb_printf(b, "%a,", x->value->f64 ? x->value->f64[k] : 0.0);
		sb_puts(b, "|");
	} else {
		sb_printf(b, "n%zu:%s|", strlen(x->name), x->name);
	}
}

/* Hash-consed signatures: equal ids, equal computations. */
static int32_t *signatures(pair *p)
{
	const fd_graph *O = p->O;
	int32_t *sig = arena_array(&p->a, (size_t)O->n_nodes + 1, sizeof *sig);
	strmap ids = { 0 };
	strbuf b = { 0 };
	const fd_attr **sorted = NULL;
	size_t cap = 0;
	for (int32_t k = 0; k < O->n_nodes; k++) {
		int32_t i = O->topo_order[k];
		const fd_node *n = &O->nodes[i];
		sb_clear(&b);
		sb_printf(&b, "%s|%s|", n->domain, n->op_type);
		if ((size_t)n->n_attrs > cap) {
			cap = (size_t)n->n_attrs;
			sorted = xrealloc(sorted, cap * sizeof *sorted);
		}
		for (int32_t a = 0; a < n->n_attrs; a++)
			sorted[a] = &n->attrs[a];
		if (n->n_attrs > 1)
			qsort(sorted, (size_t)n->n_attrs, sizeof *sorted, cmp_attr_name);
		for (int32_t a = 0; a < n->n_attrs; a++)
			sig_attr(&b, sorted[a]);
		sb_puts(&b, "#");
		for (int32_t s = 0; s < n->n_inputs; s++)
			sig_input(&b, p, sig, n->inputs[s]);
		const char *key = arena_strdup(&p->a, sb_str(&b));
		sig[i] = strmap_put(&ids, key, (int32_t)ids.n);
	}
	free(sorted);
	sb_release(&b);
	strmap_release(&ids);
	return sig;
}

static bool gone(const pair *p, int32_t oi)
{
	if (p->ident_o[oi] >= 0)
		return false;
	const fd_node *n = &p->O->nodes[oi];
	for (int32_t s = 0; s < n->n_outputs; s++)
		if (n->outputs[s] >= 0 && p_produced(p, oname(p, n->outputs[s])))
			return false;
	return true;
}

static bool alive(const pair *p, int32_t oi)
{
	const fd_node *n = &p->O->nodes[oi];
	if (!gone(p, oi) || (!n->name_synthesized && graph_find_node(p->P, n->name) >= 0))
		return true;
	for (int32_t s = 0; s < n->n_outputs; s++)
		if (n->outputs[s] >= 0 && p_init(p, oname(p, n->outputs[s])))
			return true;
	return false;
}

static const fd_node *counterpart(const pair *p, int32_t oi)
{
	if (p->ident_o[oi] >= 0)
		return &p->P->nodes[p->ident_o[oi]];
	const fd_node *n = &p->O->nodes[oi];
	int32_t pi = n->name_synthesized ? -1 : graph_find_node(p->P, n->name);
	return pi >= 0 ? &p->P->nodes[pi] : NULL;
}

static bool outputs_all(const pair *p, const fd_node *n, uint8_t flag)
{
	for (int32_t s = 0; s < n->n_outputs; s++)
		if (n->outputs[s] >= 0 && !(p->tflag[n->outputs[s]] & flag))
			return false;
	return true;
}

/* The twin a gone member of a signature group was merged into: the one whose
 * output a surviving consumer now reads; weak when none shows it. */
static int32_t twin_of(const pair *p, int32_t m, const int32_t *alive_m, int32_t n_alive, bool *strong)
{
	const fd_node *n = &p->O->nodes[m];
	*strong = false;
	int32_t twin = alive_m[0];
	for (int32_t oidx = 0; oidx < n->n_outputs; oidx++) {
		int32_t o = n->outputs[oidx];
		if (o < 0)
			continue;
		const fd_tensor *x = &p->O->tensors[o];
		for (int32_t c = 0; c < x->n_consumers; c++) {
			const fd_node *cn = &p->O->nodes[x->consumers[c]];
			const fd_node *pc = counterpart(p, x->consumers[c]);
			for (int32_t s = 0; pc && s < cn->n_inputs && s < pc->n_inputs; s++) {
				if (cn->inputs[s] != o || pc->inputs[s] < 0)
					continue;
				for (int32_t k = 0; k < n_alive; k++) {
					const fd_node *kn = &p->O->nodes[alive_m[k]];
					if (oidx < kn->n_outputs && kn->outputs[oidx] >= 0 &&
					    !strcmp(oname(p, kn->outputs[oidx]), p->pname[pc->inputs[s]])) {
						twin = alive_m[k];
						*strong = true;
					}
				}
			}
		}
	}
	return twin;
}

static const int32_t *cmp_sig;
static int cmp_by_sig(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	if (cmp_sig[a] != cmp_sig[b])
		return cmp_sig[a] < cmp_sig[b] ? -1 : 1;
	return (a > b) - (a < b);
}

static void find_cse(pair *p)
{
	const fd_graph *O = p->O;
	int32_t *sig = signatures(p);
	int32_t *order = arena_array(&p->a, (size_t)O->n_nodes + 1, sizeof *order);
	int32_t n = 0;
	for (int32_t i = 0; i < O->n_nodes; i++)
		if (!has_body(&O->nodes[i]))
			order[n++] = i;
	cmp_sig = sig;
	qsort(order, (size_t)n, sizeof *order, cmp_by_sig);
	int32_t *alive_m = arena_array(&p->a, (size_t)n + 1, sizeof *alive_m);
	for (int32_t s = 0; s < n;) {
		int32_t e = s;
		while (e < n && sig[order[e]] == sig[order[s]])
			e++;
		int32_t n_alive = 0;
		for (int32_t k = s; e - s > 1 && k < e; k++)
			if (alive(p, order[k]))
				alive_m[n_alive++] = order[k];
		for (int32_t k = s; n_alive && k < e; k++) {
			int32_t m = order[k];
			if (alive(p, m))
				continue;
			bool strong;
			int32_t twin = twin_of(p, m, alive_m, n_alive, &strong);
			const fd_node *tn = &O->nodes[twin];
			bool twin_folded = false;
			for (int32_t q = 0; q < tn->n_outputs; q++)
				twin_folded = twin_folded || (tn->outputs[q] >= 0 && p_init(p, oname(p, tn->outputs[q])));
			/* two constants may just both have been folded: CSE only with evidence */
			if (!strong && p->const_node[m] && (outputs_all(p, &O->nodes[m], T_PURE) || twin_folded))
				continue;
			p->cse[m] = twin;
			for (int32_t q = 0; q < O->nodes[m].n_outputs; q++)
				if (O->nodes[m].outputs[q] >= 0)
					p->tflag[O->nodes[m].outputs[q]] |= T_CSE;
		}
		s = e;
	}
}

/* ---- 3. units and what each replaced ---------------------------------------------------- */

static int32_t find(int32_t *parent, int32_t a)
{
	while (parent[a] != a) {
		parent[a] = parent[parent[a]];
		a = parent[a];
	}
	return a;
}

/* An Add or Sub of 0, a Mul or Div by 1 (Sub and Div with it at input 1):
 * a constant of one element, of no higher rank than the other operand,
 * which onnxruntime's NoopElimination removes. */
static bool noop_arithmetic(const pair *p, const fd_node *n)
{
	const char *op = n->op_type;
	bool add = !strcmp(op, "Add"), sub = !strcmp(op, "Sub"), mul = !strcmp(op, "Mul"), div = !strcmp(op, "Div");
	if (!(add || sub || mul || div) || n->n_inputs != 2)
		return false;
	double identity = add || sub ? 0.0 : 1.0;
	for (int s = sub || div ? 1 : 0; s < 2; s++) {
		int32_t c = n->inputs[s], x = n->inputs[1 - s];
		if (c < 0 || x < 0 || !(p->tflag[c] & T_CONST))
			continue;
		const fd_tensor *ct = &p->O->tensors[c];
		const fd_const *v = ct->value;
		if (!v || v->count != 1 || (!v->f64 && !v->i64))
			continue;
		int32_t rank = p->O->tensors[x].shape.rank;
		if ((v->f64 ? v->f64[0] : (double)v->i64[0]) == identity && (rank < 0 || ct->shape.rank <= rank))
			return true;
	}
	return false;
}

static fd_compiled_gone elimination(const pair *p, int32_t oi, bool keeps_transpose)
{
	const fd_node *n = &p->O->nodes[oi];
	if (noop_arithmetic(p, n))
		return GONE_NOOP;
	if (!strcmp(n->op_type, "Dropout"))
		return GONE_DROPOUT;
	if (!strcmp(n->op_type, "Identity"))
		return GONE_IDENTITY;
	if (!strcmp(n->op_type, "Transpose") && !keeps_transpose)
		return GONE_TRANSPOSE;
	if (!strcmp(n->op_type, "Cast") && n->n_inputs > 0 && n->inputs[0] >= 0) {
		const fd_attr *to = node_attr(n, "to");
		int32_t src = p->O->tensors[n->inputs[0]].dtype;
		if (to && to->type == ATTR_INT && src != DT_UNDEFINED && src == to->u.i)
			return GONE_CAST;
	}
	return GONE_COUNT;
}

static const int32_t *cmp_topo_g;
static int cmp_topo(const void *x, const void *y)
{
	int32_t a = cmp_topo_g[*(const int32_t *)x], b = cmp_topo_g[*(const int32_t *)y];
	return (a > b) - (a < b);
}

typedef VEC(int32_t) ivec;

/* One unit of optimized nodes: what it replaced; adds its group. */
static void unit(pair *p, const int32_t *members, int32_t n_members, int32_t *claim, int32_t *stamp, int32_t mark,
                 ivec *stack, ivec *region)
{
	const fd_graph *O = p->O, *P = p->P;
	/* made by the unit, and read by it from outside */
	for (int32_t k = 0; k < n_members; k++) {
		const fd_node *pn = &P->nodes[members[k]];
		for (int32_t s = 0; s < pn->n_outputs; s++)
			if (pn->outputs[s] >= 0)
				stamp[pn->outputs[s]] = mark;
	}
	/* stop(tensor): in P and not made by the unit (so also the unit's inputs), or an
	 * original input, outer value, constant or merged copy */
	stack->n = region->n = 0;
	for (int32_t k = 0; k < n_members; k++) {
		const fd_node *pn = &P->nodes[members[k]];
		for (int32_t s = 0; s < pn->n_outputs; s++) {
			int32_t t = pn->outputs[s];
			int32_t ot = t >= 0 ? graph_find_tensor(O, p->pname[t]) : -1;
			if (ot >= 0 && O->tensors[ot].producer >= 0)
				vec_push(stack, ot);
		}
	}
	int32_t *seen = claim + O->n_nodes;   /* per O tensor, then per O node: the walk's stamp */
	while (stack->n) {
		int32_t t = stack->items[--stack->n];
		if (seen[t] == mark)
			continue;
		seen[t] = mark;
		int32_t oi = O->tensors[t].producer;
		if (oi < 0 || p->const_node[oi] || p->cse[oi] >= 0 || seen[O->n_tensors + oi] == mark)
			continue;
		seen[O->n_tensors + oi] = mark;   /* in this region */
		vec_push(region, oi);
		const fd_node *n = &O->nodes[oi];
		for (int32_t s = 0; s < n->n_inputs; s++) {
			int32_t x = n->inputs[s];
			if (x < 0)
				continue;
			const fd_tensor *xt = &O->tensors[x];
			int32_t pt = p_tensor(p, xt->name);
			bool stop = (pt >= 0 && stamp[pt] != mark) || (p->tflag[x] & (T_CONST | T_CSE)) ||
			            xt->kind == TENSOR_GRAPH_INPUT || xt->kind == TENSOR_OUTER_SCOPE;
			if (!stop)
				vec_push(stack, x);
		}
	}
	int32_t anchor = members[0];
	bool keeps_transpose = false;
	for (int32_t k = n_members - 1; k >= 0; k--) {
		const char *op = P->nodes[members[k]].op_type;
		if (strcmp(op, "Reshape"))
			anchor = members[k];
		keeps_transpose = keeps_transpose || !strcmp(op, "Gemm") || !strcmp(op, "FusedGemm") || !strcmp(op, "FusedMatMul");
	}
	/* removed, not fused: counted with the other gone nodes (gone_others) */
	int32_t n_core = 0, n_extra = 0;
	for (size_t k = 0; k < region->n; k++) {
		fd_compiled_gone e = region->n > 1 ? elimination(p, region->items[k], keeps_transpose) : GONE_COUNT;
		if (e == GONE_COUNT)
			region->items[n_core++] = region->items[k];
		else {
			claim[region->items[k]] = -1;
			n_extra++;
		}
	}
	const fd_node *pa = &P->nodes[anchor];
	bool fusion = n_core > 1 || (n_core == 1 && (!same_op(&O->nodes[region->items[0]], pa) || n_members > 1));
	for (int32_t k = 0; k < n_core; k++)
		claim[region->items[k]] = fusion ? (int32_t)p->out->groups.n : CLAIM_KEPT;
	if (!fusion)
		return;
	cmp_topo_g = p->topo;
	qsort(region->items, (size_t)n_core, sizeof *region->items, cmp_topo);
	const fd_attr *act = node_attr(pa, "activation");
	fd_compiled_group g = {
		.graph = p->og, .fused_node = pa->name, .op_type = pa->op_type, .domain = pa->domain,
		.activation = act && act->type == ATTR_STRING ? act->u.s : NULL,
		.n_replaced = n_core, .n_optimized = n_members, .n_removed = n_extra,
		.replaced = arena_memdup(&p->out->arena, region->items, (size_t)n_core * sizeof *region->items),
	};
	vec_push(&p->out->groups, g);
}

static void find_units(pair *p, int32_t *claim)
{
	const fd_graph *P = p->P;
	int32_t *parent = arena_array(&p->a, (size_t)P->n_nodes + 1, sizeof *parent);
	for (int32_t i = 0; i < P->n_nodes; i++)
		parent[i] = i;
	for (int32_t t = 0; t < P->n_tensors; t++) {
		const fd_tensor *x = &P->tensors[t];
		if (x->producer < 0 || in_o(p, p->pname[t]) || x->kind == TENSOR_INITIALIZER)
			continue;
		for (int32_t c = 0; c < x->n_consumers; c++) {
			int32_t ra = find(parent, x->consumers[c]), rb = find(parent, x->producer);
			if (ra != rb)
				parent[ra] = rb;
		}
	}
	/* each unit's members in index order (a list per root), units in the order of their first member */
	int32_t *next = arena_array(&p->a, (size_t)P->n_nodes + 1, sizeof *next);
	int32_t *tail = arena_array(&p->a, (size_t)P->n_nodes + 1, sizeof *tail);
	int32_t *members = arena_array(&p->a, (size_t)P->n_nodes + 1, sizeof *members);
	int32_t *stamp = arena_array(&p->a, (size_t)P->n_tensors + 1, sizeof *stamp);
	for (int32_t i = 0; i < P->n_nodes; i++)
		next[i] = tail[i] = -1;
	for (int32_t i = 0; i < P->n_nodes; i++) {
		int32_t r = find(parent, i);
		if (tail[r] >= 0)
			next[tail[r]] = i;
		tail[r] = i;
		parent[i] = r;   /* flattened: the root now holds its first member's index below */
	}
	ivec stack = { 0 }, region = { 0 };
	bool *done = arena_array(&p->a, (size_t)P->n_nodes + 1, sizeof *done);
	for (int32_t i = 0; i < P->n_nodes; i++) {
		if (done[parent[i]])
			continue;
		done[parent[i]] = true;
		int32_t n = 0;
		for (int32_t j = i; j >= 0; j = next[j])
			members[n++] = j;
		unit(p, members, n, claim, stamp, i + 1, &stack, &region);
	}
	vec_release(&stack);
	vec_release(&region);
}

/* ---- the pair, and its bodies ----------------------------------------------------------- */

static void gone_others(pair *p, const int32_t *claim)
{
	for (int32_t oi = 0; oi < p->O->n_nodes; oi++) {
		if (claim[oi] != CLAIM_NONE || !gone(p, oi))
			continue;
		fd_compiled_gone e = elimination(p, oi, false);
		if (e == GONE_DROPOUT || e == GONE_IDENTITY || e == GONE_CAST || e == GONE_NOOP)
			p->out->gone[e]++;
		else if (p->cse[oi] >= 0)
			p->out->gone[GONE_CSE]++;
		else if (p->const_node[oi])
			p->out->gone[GONE_FOLDED]++;
		else
			p->out->gone[e != GONE_COUNT ? e : GONE_OTHER]++;
	}
}

static void analyse(fd_compiled *c, const fd_model *om, const fd_model *pm, int32_t og, int32_t pg,
                    const pair *parent);

static void bodies(pair *p)
{
	for (int32_t oi = 0; oi < p->O->n_nodes; oi++) {
		const fd_node *n = &p->O->nodes[oi];
		const fd_node *pc = n->n_subgraphs ? counterpart(p, oi) : NULL;
		for (int32_t b = 0; b < n->n_subgraphs; b++) {
			const fd_graph *ob = &p->om->graphs[n->subgraphs[b]];
			int32_t pb = -1;
			for (int32_t k = 0; pc && k < pc->n_subgraphs && pb < 0; k++)
				if (ob->owner_attr && p->pm->graphs[pc->subgraphs[k]].owner_attr &&
				    !strcmp(ob->owner_attr, p->pm->graphs[pc->subgraphs[k]].owner_attr))
					pb = pc->subgraphs[k];
			if (pb < 0)
				p->out->graphs_unpaired++;
			else
				analyse(p->out, p->om, p->pm, n->subgraphs[b], pb, p);
		}
	}
}

static void analyse(fd_compiled *c, const fd_model *om, const fd_model *pm, int32_t og, int32_t pg,
                    const pair *parent)
{
	pair p = { .out = c, .om = om, .pm = pm, .O = &om->graphs[og], .P = &pm->graphs[pg], .og = og,
	           .parent = parent };
	arena_init(&p.a);
	int32_t no = p.O->n_nodes, np = p.P->n_nodes;
	p.pname = arena_array(&p.a, (size_t)p.P->n_tensors + 1, sizeof *p.pname);
	p.ident_o = arena_array(&p.a, (size_t)no + 1, sizeof *p.ident_o);
	p.ident_p = arena_array(&p.a, (size_t)np + 1, sizeof *p.ident_p);
	p.tflag = arena_alloc(&p.a, (size_t)p.O->n_tensors + 1);
	p.const_node = arena_array(&p.a, (size_t)no + 1, sizeof *p.const_node);
	p.cse = arena_array(&p.a, (size_t)no + 1, sizeof *p.cse);
	for (int32_t i = 0; i < no; i++)
		p.ident_o[i] = p.cse[i] = -1;
	for (int32_t i = 0; i < np; i++)
		p.ident_p[i] = -1;
	identify(&p);
	find_constants(&p);
	find_cse(&p);
	/* claim: per O node its group (CLAIM_*), then the walk's stamps */
	int32_t *claim = arena_array(&p.a, 2 * (size_t)no + (size_t)p.O->n_tensors + 1, sizeof *claim);
	p.topo = arena_array(&p.a, (size_t)no + 1, sizeof *p.topo);
	for (int32_t i = 0; i < no; i++)
		p.topo[i] = p.O->nodes[i].topo;
	for (int32_t i = 0; i < no; i++)
		claim[i] = -1;
	find_units(&p, claim);
	for (int32_t i = 0; i < no; i++)
		c->group_of[og][i] = claim[i] >= 0 ? claim[i] : -1;
	gone_others(&p, claim);
	bodies(&p);
	strmap_release(&p.pby);
	arena_release(&p.a);
}

void compiled_init(fd_compiled *c)
{
	memset(c, 0, sizeof *c);
	arena_init(&c->arena);
}

void compiled_release(fd_compiled *c)
{
	vec_release(&c->groups);
	arena_release(&c->arena);
	memset(c, 0, sizeof *c);
}

void compiled_groups(const fd_model *orig, const fd_model *opt, fd_compiled *c)
{
	c->n_graphs = orig->n_graphs;
	c->group_of = arena_array(&c->arena, (size_t)orig->n_graphs + 1, sizeof *c->group_of);
	for (int32_t g = 0; g < orig->n_graphs; g++) {
		c->group_of[g] = arena_array(&c->arena, (size_t)orig->graphs[g].n_nodes + 1, sizeof **c->group_of);
		for (int32_t i = 0; i < orig->graphs[g].n_nodes; i++)
			c->group_of[g][i] = -1;
	}
	if (orig->n_graphs && opt->n_graphs)
		analyse(c, orig, opt, 0, 0, NULL);
}
