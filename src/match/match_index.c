/* match_index.c — the per-model matching context (match.h): constant-foldable
 * bits, composites, the anchor index by op id, tensor → composite and
 * node → hosted-composite indexes, and the unit helpers. Built once per model
 * in linear time; read-only while rules run, so a what-if re-run reuses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "match/match_internal.h"
#include "rules/optable.h"
#include "base/arena.h"

/* Ops whose output is not a function of their inputs: never constant. */
static const char *const nondeterministic[] = {
	"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
	"Multinomial", "Bernoulli",
};

/* What the index needs to know of an op type, found once per distinct type:
 * op types are interned, so a small cache keyed by the pointer answers most
 * nodes before the strmap is asked. */
typedef struct op_info {
	bool nondeterministic, constant;
	bool shape_only;       /* Shape, Size: the output is a function of the input's shape */
	int n_ids;
	int ids[8];            /* optable ids for this ONNX type */
} op_info;

#define OP_CACHE 64
#define COMPOSITE_KINDS (COMPOSITE_BIASADD + 1)
typedef struct op_memo {
	const fd_match_ctx *ctx; /* its fused types (match.h) get ids after the table's */
	strmap types;          /* op_type → index in infos */
	VEC(op_info) infos;
	const char *key[OP_CACHE];
	int32_t slot[OP_CACHE];
} op_memo;

static const op_info *op_lookup(op_memo *m, const char *op_type)
{
	size_t h = ((uintptr_t)op_type >> 4) % OP_CACHE;
	if (m->key[h] == op_type)
		return &m->infos.items[m->slot[h]];
	int32_t slot = strmap_get(&m->types, op_type);
	if (slot < 0) {
		op_info x = { 0 };
		for (size_t i = 0; i < sizeof nondeterministic / sizeof *nondeterministic; i++)
			x.nondeterministic |= !strcmp(op_type, nondeterministic[i]);
		x.constant = !strcmp(op_type, "Constant");
		x.shape_only = !strcmp(op_type, "Shape") || !strcmp(op_type, "Size");
		x.n_ids = optable_ids_for_onnx_type(op_type, x.ids, 8);
		for (int32_t k = 0; k < m->ctx->n_types && x.n_ids < 8; k++)
			if (!strcmp(op_type, m->ctx->types[k]))
				x.ids[x.n_ids++] = optable_count() + k;
		vec_push(&m->infos, x);
		slot = (int32_t)m->infos.n - 1;
		strmap_put(&m->types, op_type, slot);
	}
	m->key[h] = op_type;
	m->slot[h] = slot;
	return &m->infos.items[slot];
}

static void op_memo_release(op_memo *m)
{
	strmap_release(&m->types);
	vec_release(&m->infos);
}

/* Constant: initializer, Constant output, an outer constant, or the output of
 * a deterministic node without bodies whose inputs are all constant
 * (ConstantOfShape, Unsqueeze, Cast of constants, …), transitively. An
 * overridable initializer (also a graph input, IR >= 4) is a graph input:
 * the caller may feed another value, so nothing computed from it folds.
 * Shape and Size of a tensor whose shape is static are constants too, as
 * compilers fold them (onnxruntime's ConstantFolding, onnxsim): the Pad
 * amounts and Reshape targets exporters compute from Shape. */
/* Whether a node whose outputs are constants folds away before fusion (the
 * nodes before it in topo order decided): a Shape or Size of a static
 * tensor, or a node reading only stored constants and what folds. A
 * QuantizeLinear or DequantizeLinear does not: the QDQ fusions consume
 * them (onnxruntime's ConstantFolding keeps them), nor what reads one. */
static bool node_folds(const fd_graph *g, const fd_graph_index *ix, const fd_node *n, bool constant, bool shape_of_static)
{
	if (!constant || !n->op_type || !strcmp(n->op_type, "QuantizeLinear") || !strcmp(n->op_type, "DequantizeLinear"))
		return false;
	if (shape_of_static)
		return true;
	for (int k = 0; k < n->n_inputs; k++) {
		int32_t x = n->inputs[k];
		int32_t p = x >= 0 ? g->tensors[x].producer : FD_NONE;
		if (p >= 0 && !ix->node_folds[p])
			return false;
	}
	return true;
}

/* The one reader of tensor t that is not a graph output, or FD_NONE. */
static int32_t only_reader(const fd_graph *g, int32_t t)
{
	const fd_tensor *x = &g->tensors[t];
	return x->is_graph_output || x->n_consumers != 1 ? FD_NONE : x->consumers[0];
}

/* TF_DQ_KEPT: a DequantizeLinear of constants stays a node to onnxruntime's
 * ConstantFolding, which keeps the QDQ node units its quantized fusions read
 * (skip_dequantize_linear, on unless QDQ is disabled), so a weight behind
 * one is no initializer to its float fusions (ConvBN's NodeArgIsConstant).
 * It folds only as the start of a whole unit DQ -> X -> Q that folds with
 * it: the DQ's one reader X has one input and one output, and X's one
 * reader is a QuantizeLinear. */
static bool dq_stays(const fd_graph *g, const fd_node *dq, op_memo *memo)
{
	if (dq->n_outputs < 1 || dq->outputs[0] == FD_NONE)
		return true;
	int32_t xi = only_reader(g, dq->outputs[0]);
	if (xi < 0)
		return true;
	const fd_node *x = &g->nodes[xi];
	const op_info *op = x->op_type ? op_lookup(memo, x->op_type) : NULL;
	if (!op || op->nondeterministic || x->n_subgraphs || x->n_inputs != 1 || x->n_outputs != 1 ||
	    x->outputs[0] == FD_NONE)
		return true;
	int32_t qi = only_reader(g, x->outputs[0]);
	return qi < 0 || !g->nodes[qi].op_type || strcmp(g->nodes[qi].op_type, "QuantizeLinear") != 0;
}

static void compute_tflags(fd_match_ctx *ctx, fd_graph_index *ix, op_memo *memo)
{
	const fd_graph *g = ix->g;
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		uint8_t f = 0;
		if (x->kind == TENSOR_INITIALIZER && x->overridable)
			f |= TF_INPUT;
		else if (x->kind == TENSOR_INITIALIZER || x->kind == TENSOR_CONSTANT)
			f |= TF_CONST;
		else if (x->kind == TENSOR_GRAPH_INPUT)
			f |= TF_INPUT;
		else if (x->kind == TENSOR_OUTER_SCOPE) {
			f |= TF_OUTER;
			if (g->parent >= 0 && x->outer >= 0 && (ctx->graphs[g->parent].tflags[x->outer] & TF_CONST))
				f |= TF_CONST;
		}
		ix->tflags[t] = f;
	}
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node *n = &g->nodes[g->topo_order[i]];
		const op_info *op = n->op_type ? op_lookup(memo, n->op_type) : NULL;
		if (n->n_subgraphs || (op && op->nondeterministic))
			continue;
		int nonempty = 0;
		bool all = true;
		for (int k = 0; k < n->n_inputs; k++) {
			if (n->inputs[k] == FD_NONE)
				continue;
			nonempty++;
			if (!(ix->tflags[n->inputs[k]] & TF_CONST))
				all = false;
		}
		bool is_const = op && op->constant;
		bool shape_of_static = false;
		if (op && op->shape_only && n->n_inputs > 0 && n->inputs[0] != FD_NONE)
			is_const = shape_of_static = shape_is_static(ctx->model, &g->tensors[n->inputs[0]].shape);
		uint8_t kept = 0;
		if (nonempty > 0 && all) {
			for (int k = 0; k < n->n_inputs; k++)
				if (n->inputs[k] != FD_NONE)
					kept |= ix->tflags[n->inputs[k]] & TF_DQ_KEPT;
			if (n->op_type && !strcmp(n->op_type, "DequantizeLinear") && dq_stays(g, n, memo))
				kept = TF_DQ_KEPT;
		}
		if (is_const || (nonempty > 0 && all))
			for (int o = 0; o < n->n_outputs; o++)
				if (n->outputs[o] != FD_NONE)
					ix->tflags[n->outputs[o]] |= (uint8_t)(TF_CONST | (is_const ? 0 : kept));
		ix->node_folds[g->topo_order[i]] = (uint8_t)node_folds(g, ix, n, is_const || (nonempty > 0 && all),
		                                                        shape_of_static);
	}
}

static void build_anchor_index(fd_match_ctx *ctx, fd_graph_index *ix, op_memo *memo)
{
	const fd_graph *g = ix->g;
	int n_table = optable_count(), n_ops = n_table + ctx->n_types;
	ix->n_ops = n_ops;
	/* per node: which ids match (node_ids CSR) */
	int32_t *nid_off = xcalloc((size_t)g->n_nodes + 1, sizeof *nid_off);
	i32_vec nid = { 0 };
	int32_t *count = xcalloc((size_t)n_ops + 1, sizeof *count);
	ix->ops_words = (n_ops + 63) / 64;
	ix->node_ops = arena_array(&ctx->arena, g->n_nodes ? (size_t)g->n_nodes * (size_t)ix->ops_words : 1,
	                           sizeof *ix->node_ops);
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node *n = &g->nodes[i];
		nid_off[i] = (int32_t)nid.n;
		if (!n->op_type)
			continue;
		const op_info *t = op_lookup(memo, n->op_type);
		for (int k = 0; k < t->n_ids; k++)
			if (t->ids[k] >= n_table || optable_node_matches(t->ids[k], g, n)) {
				ix->node_ops[(size_t)i * (size_t)ix->ops_words + (size_t)t->ids[k] / 64] |= 1ull << (t->ids[k] % 64);
				vec_push(&nid, t->ids[k]);
				count[t->ids[k]]++;
			}
	}
	nid_off[g->n_nodes] = (int32_t)nid.n;
	/* composites: the op ids whose composite kind is theirs */
	VEC(int) kind_ids[COMPOSITE_KINDS] = { { 0 } };
	for (int id = 0; id < n_table; id++) {
		int k = (int)optable_get(id)->composite;
		if (k != COMPOSITE_NONE && k < COMPOSITE_KINDS)
			vec_push(&kind_ids[k], id);
	}
	for (int32_t c = 0; c < ix->canon.n; c++) {
		int k = (int)ix->canon.items[c].kind;
		for (size_t j = 0; k >= 0 && k < COMPOSITE_KINDS && j < kind_ids[k].n; j++)
			count[kind_ids[k].items[j]]++;
	}
	ix->anchor_off = arena_array(&ctx->arena, (size_t)n_ops + 1, sizeof *ix->anchor_off);
	int32_t total = 0;
	for (int id = 0; id < n_ops; id++) {
		ix->anchor_off[id] = total;
		total += count[id];
	}
	ix->anchor_off[n_ops] = total;
	ix->anchor_units = arena_array(&ctx->arena, total ? (size_t)total : 1, sizeof *ix->anchor_units);
	memset(count, 0, ((size_t)n_ops + 1) * sizeof *count);
	/* fill in topo order; a composite comes right after its last member */
	int32_t c = 0;
	for (int32_t i = 0; i < g->n_nodes; i++) {
		int32_t node = g->topo_order[i];
		for (int32_t k = nid_off[node]; k < nid_off[node + 1]; k++) {
			int id = nid.items[k];
			ix->anchor_units[ix->anchor_off[id] + count[id]++] = node;
		}
		for (; c < ix->canon.n && g->nodes[ix->canon.items[c].last].topo == i; c++) {
			int k = (int)ix->canon.items[c].kind;
			for (size_t j = 0; k >= 0 && k < COMPOSITE_KINDS && j < kind_ids[k].n; j++) {
				int id = kind_ids[k].items[j];
				ix->anchor_units[ix->anchor_off[id] + count[id]++] = g->n_nodes + c;
			}
		}
	}
	for (int k = 0; k < COMPOSITE_KINDS; k++)
		vec_release(&kind_ids[k]);
	free(count);
	free(nid_off);
	vec_release(&nid);
}

/* CSR of tensor → composites reading it, node → biasadd_conv composites. */
static void build_composite_links(fd_match_ctx *ctx, fd_graph_index *ix)
{
	const fd_graph *g = ix->g;
	const fd_canon *cn = &ix->canon;
	ix->tcomp_off = arena_array(&ctx->arena, (size_t)g->n_tensors + 1, sizeof(int32_t));
	ix->hosted_off = arena_array(&ctx->arena, (size_t)g->n_nodes + 1, sizeof(int32_t));
	int32_t nt = 0, nh = 0;
	for (int32_t c = 0; c < cn->n; c++) {
		const fd_composite_rec *r = &cn->items[c];
		for (int k = 0; k < r->n_inputs; k++)
			if (cn->pool[r->inputs + k] >= 0) {
				ix->tcomp_off[cn->pool[r->inputs + k] + 1]++;
				nt++;
			}
		if (r->host >= 0) {
			ix->hosted_off[r->host + 1]++;
			nh++;
		}
	}
	for (int32_t t = 0; t < g->n_tensors; t++)
		ix->tcomp_off[t + 1] += ix->tcomp_off[t];
	for (int32_t n = 0; n < g->n_nodes; n++)
		ix->hosted_off[n + 1] += ix->hosted_off[n];
	ix->tcomp = arena_array(&ctx->arena, nt ? (size_t)nt : 1, sizeof(int32_t));
	ix->hosted = arena_array(&ctx->arena, nh ? (size_t)nh : 1, sizeof(int32_t));
	int32_t *fill_t = xcalloc((size_t)g->n_tensors + 1, sizeof(int32_t));
	int32_t *fill_h = xcalloc((size_t)g->n_nodes + 1, sizeof(int32_t));
	for (int32_t c = 0; c < cn->n; c++) {
		const fd_composite_rec *r = &cn->items[c];
		for (int k = 0; k < r->n_inputs; k++) {
			int32_t t = cn->pool[r->inputs + k];
			if (t < 0)
				continue;
			/* a composite reading one tensor twice is listed once */
			int32_t at = ix->tcomp_off[t] + fill_t[t];
			if (fill_t[t] && ix->tcomp[at - 1] == g->n_nodes + c)
				continue;
			ix->tcomp[at] = g->n_nodes + c;
			fill_t[t]++;
		}
		if (r->host >= 0)
			ix->hosted[ix->hosted_off[r->host] + fill_h[r->host]++] = g->n_nodes + c;
	}
	/* the dedup above may leave holes: mark them */
	for (int32_t t = 0; t < g->n_tensors; t++)
		for (int32_t k = ix->tcomp_off[t] + fill_t[t]; k < ix->tcomp_off[t + 1]; k++)
			ix->tcomp[k] = FD_NONE;
	free(fill_t);
	free(fill_h);
}

static int cmp_type_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each tensor's readers' op types in strcmp order, one sort per tensor for
 * the whole context: a where may ask readers() on every one of a tensor's
 * thousands of readers. */
static void build_reader_types(fd_match_ctx *ctx, fd_graph_index *ix)
{
	const fd_graph *g = ix->g;
	ix->reader_types_off = arena_array(&ctx->arena, (size_t)g->n_tensors + 1, sizeof(int32_t));
	int32_t total = 0;
	for (int32_t t = 0; t < g->n_tensors; t++) {
		ix->reader_types_off[t] = total;
		total += g->tensors[t].n_consumers;
	}
	ix->reader_types_off[g->n_tensors] = total;
	ix->reader_types = arena_array(&ctx->arena, total ? (size_t)total : 1, sizeof *ix->reader_types);
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		const char **out = ix->reader_types + ix->reader_types_off[t];
		for (int32_t k = 0; k < x->n_consumers; k++) {
			const char *op = g->nodes[x->consumers[k]].op_type;
			out[k] = op ? op : "";
		}
		if (x->n_consumers > 1)
			qsort(out, (size_t)x->n_consumers, sizeof *out, cmp_type_names);
	}
}

int match_ctx_init(fd_match_ctx *ctx, const fd_model *m, bool canonicalize, fd_diags *d)
{
	return match_ctx_init_types(ctx, m, canonicalize, NULL, 0, d);
}

int match_ctx_init_types(fd_match_ctx *ctx, const fd_model *m, bool canonicalize, const char *const *types,
                         int n_types, fd_diags *d)
{
	fd_doing("indexing the model for matching");
	(void)d;
	memset(ctx, 0, sizeof *ctx);
	arena_init(&ctx->arena);
	ctx->model = m;
	ctx->canonicalize = canonicalize;
	ctx->n_types = n_types;
	ctx->types = arena_array(&ctx->arena, (size_t)n_types + 1, sizeof *ctx->types);
	for (int k = 0; k < n_types; k++)
		ctx->types[k] = arena_strdup(&ctx->arena, types[k]);
	ctx->n_graphs = m->n_graphs;
	ctx->graphs = arena_array(&ctx->arena, m->n_graphs ? (size_t)m->n_graphs : 1, sizeof *ctx->graphs);
	op_memo memo = { .ctx = ctx };   /* op types are interned model-wide */
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		fd_graph_index *ix = &ctx->graphs[gi];
		const fd_graph *g = &m->graphs[gi];
		ix->g = g;
		ix->tflags = arena_alloc(&ctx->arena, g->n_tensors ? (size_t)g->n_tensors : 1);
		ix->node_folds = arena_alloc(&ctx->arena, g->n_nodes ? (size_t)g->n_nodes : 1);
		compute_tflags(ctx, ix, &memo);
		if (canonicalize)
			canon_find(g, ix->tflags, &ctx->arena, &ix->canon);
		ix->n_units = g->n_nodes + ix->canon.n;
		ix->unit_topo = arena_array(&ctx->arena, ix->n_units ? (size_t)ix->n_units : 1, sizeof(int32_t));
		for (int32_t n = 0; n < g->n_nodes; n++)
			ix->unit_topo[n] = g->nodes[n].topo;
		for (int32_t c = 0; c < ix->canon.n; c++)
			ix->unit_topo[g->n_nodes + c] = g->nodes[ix->canon.items[c].last].topo;
		ix->iota = arena_array(&ctx->arena, g->n_nodes ? (size_t)g->n_nodes : 1, sizeof(int32_t));
		for (int32_t n = 0; n < g->n_nodes; n++)
			ix->iota[n] = n;
		build_anchor_index(ctx, ix, &memo);
		build_composite_links(ctx, ix);
		build_reader_types(ctx, ix);
	}
	op_memo_release(&memo);
	return 0;
}

bool match_ctx_has_types(const fd_match_ctx *ctx, const fd_ruleset *rs)
{
	if (ctx->n_types != rs->n_fused_types)
		return false;
	for (int k = 0; k < ctx->n_types; k++)
		if (strcmp(ctx->types[k], rs->fused_types[k]))
			return false;
	return true;
}

void match_ctx_release(fd_match_ctx *ctx)
{
	arena_release(&ctx->arena);
	memset(ctx, 0, sizeof *ctx);
}

const fd_composite_rec *match_composite(const fd_match_ctx *ctx, int32_t graph, int32_t u)
{
	const fd_graph_index *ix = &ctx->graphs[graph];
	int32_t c = u - ix->g->n_nodes;
	return c >= 0 && c < ix->canon.n ? &ix->canon.items[c] : NULL;
}

int32_t match_unit_nodes(const fd_match_ctx *ctx, int32_t graph, int32_t u, const int32_t **nodes)
{
	const fd_graph_index *ix = &ctx->graphs[graph];
	const fd_composite_rec *c = match_composite(ctx, graph, u);
	if (!c) {
		*nodes = ix->iota + u;
		return 1;
	}
	*nodes = ix->canon.pool + c->members;
	return c->n_members;
}

int32_t match_unit_node(const fd_match_ctx *ctx, int32_t graph, int32_t u)
{
	const fd_composite_rec *c = match_composite(ctx, graph, u);
	return c ? c->last : u;
}

int32_t match_unit_input(const fd_graph_index *ix, int32_t u, int k)
{
	int32_t c = u - ix->g->n_nodes;
	if (u < 0 || c >= ix->canon.n || k < 0)
		return FD_NONE;
	if (c >= 0) {
		const fd_composite_rec *r = &ix->canon.items[c];
		return k < r->n_inputs ? ix->canon.pool[r->inputs + k] : FD_NONE;
	}
	return k < ix->g->nodes[u].n_inputs ? ix->g->nodes[u].inputs[k] : FD_NONE;
}

bool match_node_folds(const fd_graph_index *ix, int32_t n)
{
	return ix->node_folds[n] != 0;
}

int32_t match_unit_output(const fd_graph_index *ix, int32_t u, int k)
{
	int32_t c = u - ix->g->n_nodes;
	if (u < 0 || c >= ix->canon.n || k < 0)
		return FD_NONE;
	if (c >= 0)
		return k == 0 ? ix->canon.items[c].output : FD_NONE;
	return k < ix->g->nodes[u].n_outputs ? ix->g->nodes[u].outputs[k] : FD_NONE;
}

int32_t match_fusion_unit(const fd_match_result *r, const fd_fusion *f, int op)
{
	return op >= 0 && op < f->n_ops ? r->pool[f->units + (uint32_t)op] : FD_NONE;
}

bool match_node_is_constant(const fd_graph_index *ix, int32_t n)
{
	const fd_node *node = &ix->g->nodes[n];
	int outs = 0;
	for (int32_t k = 0; k < node->n_outputs; k++) {
		int32_t t = node->outputs[k];
		if (t == FD_NONE)
			continue;
		if (!(ix->tflags[t] & TF_CONST))
			return false;
		outs++;
	}
	/* a node without outputs (or whose body does the work) is not "a constant" */
	return outs > 0 && node->n_subgraphs == 0;
}
