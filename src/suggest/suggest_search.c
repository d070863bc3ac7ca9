/* suggest_search.c — the unfused chains of a graph and their grouping by
 * pattern (suggest.h says the rules). Every node seeds one piece; a piece
 * takes the consumers of a tensor it makes only all together, so that the
 * tensor stays inside, and stops at max_ops nodes or before a heavy op
 * past max_heavy; every prefix of it a rule can match is a candidate: the
 * work is linear in the graph, the memory a few ints per node. */
#include <stdlib.h>
#include <string.h>
#include "base/strbuf.h"
#include "match/param_value.h"
#include "rounds/fuse.h"
#include "rules/optable.h"
#include "suggest/suggest_internal.h"

int suggest_node_op(const fd_graph *g, const fd_node *n)
{
	int ids[16];
	int k = optable_ids_for_onnx_type(n->op_type, ids, 16);
	for (int i = 0; i < k; i++)
		if (!strcmp(optable_get(ids[i])->name, n->op_type) && optable_node_matches(ids[i], g, n))
			return ids[i];
	for (int i = 0; i < k; i++)
		if (optable_node_matches(ids[i], g, n))
			return ids[i];
	return -1;
}

bool suggest_node_eligible(const fd_match_ctx *ctx, int32_t gi, int32_t i)
{
	const fd_graph *g = &ctx->model->graphs[gi];
	const fd_node *n = &g->nodes[i];
	if (!strcmp(n->domain, FD_FUSED_DOMAIN) || n->n_subgraphs > 0 || optable_not_fusible(n->op_type))
		return false;
	if (suggest_node_op(g, n) < 0)
		return false;   /* a rule cannot name it */
	/* an output that is not constant-foldable, nor shape arithmetic whose
	 * values inference knows (Shape -> Gather -> Concat of symbolic dims) */
	bool computes = false;
	for (int k = 0; k < n->n_outputs; k++)
		if (n->outputs[k] >= 0 && !(ctx->graphs[gi].tflags[n->outputs[k]] & TF_CONST) &&
		    !g->tensors[n->outputs[k]].value)
			computes = true;
	return computes;
}

/* The kind of a tensor outside the piece, one letter for the key. */
static char source_kind(const fd_graph_index *ix, int32_t t)
{
	if (t < 0)
		return '-';
	uint8_t f = ix->tflags[t];
	return f & TF_CONST ? 'c' : f & TF_INPUT ? 'p' : f & TF_OUTER ? 'o' : 'a';
}

typedef struct search {
	const fd_match_ctx *ctx;
	const fd_graph *g;
	int32_t gi;
	int max_ops, max_heavy;
	bool *eligible;
	bool *heavy;              /* suggest_op_is_heavy */
	int64_t *out_bytes;       /* node_bytes, -1 not yet known */
	int32_t *pos;             /* position + 1 in the piece being grown, 0 none */
} search;

static int cmp_topo_g(const fd_graph *g, int32_t a, int32_t b)
{
	return (g->nodes[a].topo > g->nodes[b].topo) - (g->nodes[a].topo < g->nodes[b].topo);
}

static void sort_topo(const fd_graph *g, int32_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cmp_topo_g(g, v[j - 1], v[j]) > 0; j--) {
			int32_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* Adds every consumer of t when all may join and fit; true when it did. */
static bool take_consumers(search *s, suggest_piece *p, int32_t t)
{
	const fd_tensor *x = &s->g->tensors[t];
	if (x->is_graph_output || x->n_consumers == 0)
		return false;
	int32_t add[SUGGEST_MAX_OPS_LIMIT];
	int na = 0, heavy = 0;
	for (int i = 0; i < p->n; i++)
		heavy += s->heavy[p->nodes[i]];
	for (int q = 0; q < x->n_consumers; q++) {
		int32_t c = x->consumers[q];
		if (s->pos[c])
			continue;
		bool dup = false;
		for (int k = 0; k < na; k++)
			dup |= add[k] == c;
		if (dup)
			continue;
		if (!s->eligible[c] || p->n + na + 1 > s->max_ops || heavy + s->heavy[c] > s->max_heavy)
			return false;
		heavy += s->heavy[c];
		add[na++] = c;
	}
	for (int k = 0; k < na; k++) {
		p->nodes[p->n++] = add[k];
		s->pos[add[k]] = p->n;
	}
	return na > 0;
}

/* Do the first m nodes make a piece a rule can match: each after the first
 * reads one before it, and only the last has outputs that leave? */
static bool prefix_valid(const search *s, const suggest_piece *p, int m)
{
	for (int i = 0; i < m; i++) {
		const fd_node *n = &s->g->nodes[p->nodes[i]];
		if (i > 0) {
			bool reads = false;
			for (int k = 0; k < n->n_inputs && !reads; k++) {
				int32_t t = n->inputs[k];
				int32_t pr = t >= 0 ? s->g->tensors[t].producer : FD_NONE;
				reads = pr >= 0 && s->pos[pr] && s->pos[pr] <= i;
			}
			if (!reads)
				return false;
		}
		if (i == m - 1)
			break;
		for (int k = 0; k < n->n_outputs; k++) {
			int32_t t = n->outputs[k];
			if (t < 0)
				continue;
			const fd_tensor *x = &s->g->tensors[t];
			if (x->is_graph_output)
				return false;
			for (int q = 0; q < x->n_consumers; q++) {
				int32_t c = x->consumers[q];
				if (!s->pos[c] || s->pos[c] > m)
					return false;
			}
		}
	}
	return true;
}

/* Are the ops before the piece's first heavy op a prologue of it: none
 * reads a tensor a heavy op outside makes? Those are that op's epilogue
 * (MatMul -> Add -> GELU ops is one kernel; the GELU ops are not the
 * prologue of the MatMul after them). */
static bool prologue_ok(const search *s, const suggest_piece *p)
{
	int h = 0;
	while (h < p->n && !s->heavy[p->nodes[h]])
		h++;
	if (h == p->n)
		return true;   /* no heavy op: nothing to be a prologue of */
	for (int i = 0; i < h; i++) {
		const fd_node *n = &s->g->nodes[p->nodes[i]];
		for (int k = 0; k < n->n_inputs; k++) {
			int32_t t = n->inputs[k];
			int32_t pr = t >= 0 ? s->g->tensors[t].producer : FD_NONE;
			if (pr >= 0 && !s->pos[pr] && s->heavy[pr] && s->eligible[pr])
				return false;
		}
	}
	return true;
}

/* The key: per position the op type and domain, the inputs (fK: from
 * position K, else the kind of source), and the params a kernel is chosen
 * by (strings and booleans: modes, layouts, transposes). */
static void piece_key(const search *s, const suggest_piece *p, strbuf *b, size_t *ends)
{
	sb_clear(b);
	const fd_graph_index *ix = &s->ctx->graphs[s->gi];
	for (int i = 0; i < p->n; i++) {
		const fd_node *n = &s->g->nodes[p->nodes[i]];
		sb_printf(b, "%s%s@%s(", i ? "|" : "", n->op_type, n->domain);
		int op = suggest_node_op(s->g, n);
		const fd_op_def *d = optable_get(op);
		char in[2][16];
		for (int k = 0; k < n->n_inputs; k++) {
			char one[16];
			int32_t t = n->inputs[k];
			int32_t pr = t >= 0 ? s->g->tensors[t].producer : FD_NONE;
			int j = -1;
			for (int q = 0; q < i && pr >= 0; q++)
				if (p->nodes[q] == pr)
					j = q;
			if (j >= 0)
				snprintf(one, sizeof one, "f%d", j);
			else
				snprintf(one, sizeof one, "%c", source_kind(ix, t));
			if (d && d->commutative && n->n_inputs == 2) {
				memcpy(in[k], one, sizeof one);
				continue;
			}
			sb_printf(b, "%s%s", k ? "," : "", one);
		}
		if (d && d->commutative && n->n_inputs == 2) {
			/* one order for both: the matcher tries both (the rule reads
			 * the first instance's, suggest_rule.c) */
			bool flip = strcmp(in[0], in[1]) > 0;
			sb_printf(b, "%s,%s", in[flip], in[!flip]);
		}
		sb_puts(b, ")");
		for (int q = 0; d && q < d->n_params; q++) {
			const fd_param_def *def = &d->params[q];
			if (def->type != PT_STRING && def->type != PT_BOOL)
				continue;
			if (def->derived == DERIVED_FORM)
				continue;
			fd_pval v;
			param_def_value(s->g, n, NULL, NULL, op, def, def->name, &v);
			if (v.kind == PV_STRING)
				sb_printf(b, " %s=%s", def->name, v.s);
			else if (v.kind == PV_BOOL || v.kind == PV_INT)
				sb_printf(b, " %s=%lld", def->name, (long long)(v.i != 0));
		}
		ends[i] = b->n;
	}
}

/* The bytes of node i's outputs that something reads, as the ranking
 * counts them: a size's formula with every unbound symbol 1, an unknown
 * size 0; worked out once per node. */
static int64_t node_bytes(search *s, int32_t i)
{
	if (s->out_bytes[i] >= 0)
		return s->out_bytes[i];
	const fd_node *n = &s->g->nodes[i];
	int64_t sum = 0;
	for (int k = 0; k < n->n_outputs; k++) {
		if (n->outputs[k] < 0 || s->g->tensors[n->outputs[k]].n_consumers == 0)
			continue;
		fd_sint b = tensor_bytes_sym(&s->g->tensors[n->outputs[k]]);
		int64_t v;
		if ((b.e && dexpr_value_with(b.e, 1, &v)) || sint_value(b, &v))
			sum += v;
	}
	return s->out_bytes[i] = sum;
}

/* Grows a piece from seed and gives each of its prefixes a rule can match
 * (two nodes or more), longest first, to found() with its key and bytes
 * (a prefix's key is the start of the whole piece's, its bytes those of
 * its nodes but the last); the count. */
static int grow(search *s, int32_t seed, strbuf *key,
                void (*found)(search *s, const suggest_piece *p, const char *key, int64_t bytes, void *arg), void *arg)
{
	suggest_piece piece, *p = &piece;
	p->graph = s->gi;
	p->n = 1;
	p->nodes[0] = seed;
	s->pos[seed] = 1;
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < p->n; i++) {
			const fd_node *n = &s->g->nodes[p->nodes[i]];
			for (int k = 0; k < n->n_outputs; k++)
				if (n->outputs[k] >= 0 && take_consumers(s, p, n->outputs[k]))
					changed = true;
		}
	}
	sort_topo(s->g, p->nodes, p->n);
	for (int i = 0; i < p->n; i++)
		s->pos[p->nodes[i]] = i + 1;
	int count = 0;
	size_t ends[SUGGEST_MAX_OPS_LIMIT];
	int64_t before[SUGGEST_MAX_OPS_LIMIT + 1];   /* bytes of the first i nodes' outputs */
	if (p->n >= 2) {
		piece_key(s, p, key, ends);
		before[0] = 0;
		for (int i = 0; i < p->n; i++)
			before[i + 1] = before[i] + node_bytes(s, p->nodes[i]);
	}
	for (int m = p->n; m >= 2; m--) {
		suggest_piece q = *p;
		q.n = m;
		if (!prefix_valid(s, p, m) || !prologue_ok(s, &q))
			continue;
		char *text = (char *)sb_str(key), saved = text[ends[m - 1]];
		text[ends[m - 1]] = '\0';   /* the prefix's key, for the call */
		found(s, &q, text, before[m - 1], arg);
		text[ends[m - 1]] = saved;
		count++;
	}
	for (int i = 0; i < p->n; i++)
		s->pos[p->nodes[i]] = 0;
	return count;
}

/* What the search hands each candidate to: the groups by key. */
typedef struct grouping {
	suggest_found *out;
	strmap *keys;
	fd_arena *a;
} grouping;

static void add_candidate(search *s, const suggest_piece *p, const char *key, int64_t bytes, void *arg)
{
	(void)s;
	grouping *gr = arg;
	suggest_found *out = gr->out;
	vec_push(&out->pieces, *p);
	vec_push(&out->piece_bytes, bytes);
	int32_t pi = (int32_t)out->pieces.n - 1;
	int32_t gk = strmap_get(gr->keys, key);
	if (gk < 0) {
		suggest_group grp = { arena_strdup(gr->a, key), { 0 } };
		vec_push(&out->groups, grp);
		gk = (int32_t)out->groups.n - 1;
		strmap_put(gr->keys, out->groups.items[gk].key, gk);
	}
	vec_push(&out->groups.items[gk].pieces, pi);
}

void suggest_search(const fd_match_ctx *ctx, int max_ops, int max_heavy, fd_arena *a, suggest_found *out)
{
	memset(out, 0, sizeof *out);
	strmap keys;
	strmap_init(&keys);
	strbuf key = { 0 };
	grouping gr = { out, &keys, a };
	for (int32_t gi = 0; gi < ctx->model->n_graphs; gi++) {
		const fd_graph *g = &ctx->model->graphs[gi];
		search s = { ctx, g, gi, max_ops, max_heavy, xcalloc((size_t)g->n_nodes + 1, sizeof(bool)),
		             xcalloc((size_t)g->n_nodes + 1, sizeof(bool)), xmalloc(((size_t)g->n_nodes + 1) * sizeof(int64_t)),
		             xcalloc((size_t)g->n_nodes + 1, sizeof(int32_t)) };
		memset(s.out_bytes, 0xff, ((size_t)g->n_nodes + 1) * sizeof(int64_t));   /* -1: not yet known */
		size_t bytes = (size_t)g->n_nodes * (2 * sizeof(bool) + sizeof(int64_t) + sizeof(int32_t));
		if (bytes > out->bytes)
			out->bytes = bytes;
		for (int32_t i = 0; i < g->n_nodes; i++) {
			if ((s.eligible[i] = suggest_node_eligible(ctx, gi, i)))
				out->n_eligible++;
			s.heavy[i] = suggest_op_is_heavy(g->nodes[i].op_type);
		}
		for (int32_t t = 0; t < g->n_nodes; t++) {
			int32_t seed = g->topo_order[t];
			if (s.eligible[seed] && (max_heavy > 0 || !s.heavy[seed]))
				grow(&s, seed, &key, add_candidate, &gr);
		}
		free(s.eligible);
		free(s.heavy);
		free(s.out_bytes);
		free(s.pos);
	}
	size_t sz = out->pieces.cap * sizeof(suggest_piece) + out->piece_bytes.cap * sizeof(int64_t) +
	            out->groups.cap * sizeof(suggest_group);
	out->bytes += sz;
	sb_release(&key);
	strmap_release(&keys);
}

void suggest_found_release(suggest_found *f)
{
	for (size_t i = 0; i < f->groups.n; i++)
		vec_release(&f->groups.items[i].pieces);
	vec_release(&f->groups);
	vec_release(&f->pieces);
	vec_release(&f->piece_bytes);
}
