/* match_subgraph.c — what happens once a rule's op chain matched: the cover
 * (member nodes, external inputs, outputs, intermediates), the subgraph
 * checks (escape, input / output counts), the constraints, the conflict with
 * earlier fusions, the would-cycle check, and firing. */
#include <stdlib.h>
#include <string.h>
#include "match/match_internal.h"

static const fd_graph *G;
static int cmp_node_topo(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return (G->nodes[a].topo > G->nodes[b].topo) - (G->nodes[a].topo < G->nodes[b].topo);
}

static bool is_member(const match_run_state *s, int32_t node)
{
	return node >= 0 && s->node_stamp[node] == s->stamp;
}

/* Whether node p ends a member's chain: the member, or its last own op. */
static bool ends_member(const match_run_state *s, int32_t p)
{
	size_t per = 1 + (size_t)s->pat->n_each;
	for (size_t q = per - 1; q < s->group_units.n; q += per)
		if (s->group_units.items[q] == p)
			return true;
	return false;
}

/* Keeps the tensors of v that no member's chain ends with. */
static void drop_ends(const match_run_state *s, i32_vec *v)
{
	size_t w = 0;
	for (size_t i = 0; i < v->n; i++)
		if (!ends_member(s, s->g->tensors[v->items[i]].producer))
			v->items[w++] = v->items[i];
	v->n = w;
}

/* A group's outputs are its members' chains' ends', in the group's order (a
 * Split's): each end's first output and those of its others that leave. */
static void group_outputs(match_run_state *s)
{
	match_cover *c = &s->cover;
	size_t per = 1 + (size_t)s->pat->n_each;
	c->outputs.n = 0;
	drop_ends(s, &c->intermediates);
	drop_ends(s, &c->escapes);
	for (size_t q = per - 1; q < s->group_units.n; q += per) {
		const fd_node *nd = &s->g->nodes[s->group_units.items[q]];
		for (int k = 0; k < nd->n_outputs; k++) {
			int32_t t = nd->outputs[k];
			if (t < 0)
				continue;
			const fd_tensor *x = &s->g->tensors[t];
			bool outside = x->is_graph_output;
			for (int r = 0; r < x->n_consumers && !outside; r++)
				if (!is_member(s, x->consumers[r]))
					outside = true;
			if (k == 0 || outside)
				vec_push(&c->outputs, t);
		}
	}
}

/* Fills s->cover for units[0..n). */
static void cover_build(match_run_state *s, int n)
{
	match_cover *c = &s->cover;
	const fd_graph *g = s->g;
	c->nodes.n = c->inputs.n = c->outputs.n = c->intermediates.n = c->escapes.n = 0;
	s->stamp++;
	for (int i = 0; i < n; i++) {
		const int32_t *mem;
		if (s->units[i] == FD_NONE)
			continue;   /* an optional op, absent */
		int32_t nm = match_unit_nodes(s->ctx, s->gi, s->units[i], &mem);
		for (int k = 0; k < nm; k++)
			if (s->node_stamp[mem[k]] != s->stamp) {
				s->node_stamp[mem[k]] = s->stamp;
				vec_push(&c->nodes, mem[k]);
			}
	}
	bool group = s->pat->grouped;   /* every member is in, with its own ops */
	for (size_t q = 0; group && q < s->group_units.n; q++)
		if (s->node_stamp[s->group_units.items[q]] != s->stamp) {
			s->node_stamp[s->group_units.items[q]] = s->stamp;
			vec_push(&c->nodes, s->group_units.items[q]);
		}
	G = g;
	qsort(c->nodes.items, c->nodes.n, sizeof *c->nodes.items, cmp_node_topo);
	c->min_topo = g->nodes[c->nodes.items[0]].topo;
	c->max_topo = g->nodes[c->nodes.items[c->nodes.n - 1]].topo;
	/* final outputs: those of the last pattern op present */
	int32_t last = s->units[match_present(s, n - 1)];
	int32_t finals[8];
	int nf = 0;
	for (int k = 0; k < unit_n_outputs(s, last) && nf < 8; k++)
		if (unit_output(s, last, k) >= 0)
			finals[nf++] = unit_output(s, last, k);
	for (size_t i = 0; i < c->nodes.n; i++) {
		const fd_node *nd = &g->nodes[c->nodes.items[i]];
		for (int k = 0; k < nd->n_inputs; k++) {
			int32_t t = nd->inputs[k];
			if (t < 0 || is_member(s, g->tensors[t].producer) || s->tensor_stamp[t] == s->stamp)
				continue;
			s->tensor_stamp[t] = s->stamp;
			vec_push(&c->inputs, t);
		}
	}
	for (size_t i = 0; i < c->nodes.n; i++) {
		const fd_node *nd = &g->nodes[c->nodes.items[i]];
		for (int k = 0; k < nd->n_outputs; k++) {
			int32_t t = nd->outputs[k];
			if (t < 0)
				continue;
			const fd_tensor *x = &g->tensors[t];
			bool outside = x->is_graph_output;
			for (int q = 0; q < x->n_consumers && !outside; q++)
				if (!is_member(s, x->consumers[q]))
					outside = true;
			bool final = false;
			for (int f = 0; f < nf; f++)
				if (finals[f] == t)
					final = true;
			if (final) {
				/* an unused extra output of the last op (Dropout's mask) does not count */
				if (outside || t == finals[0])
					vec_push(&c->outputs, t);
			} else if (outside) {
				vec_push(&c->escapes, t);
			} else {
				vec_push(&c->intermediates, t);
			}
		}
	}
	if (group)
		group_outputs(s);
	if ((s->r->conds & COND_BIT(ALLOW_INTERMEDIATE_OUTPUTS)) == 0)   /* intermediates may escape: outputs */
		for (size_t i = 0; i < c->escapes.n; i++)
			vec_push(&c->outputs, c->escapes.items[i]);
}

int32_t match_outside_consumer(const match_run_state *s, int32_t t)
{
	const fd_tensor *x = &s->g->tensors[t];
	for (int q = 0; q < x->n_consumers; q++)
		if (!is_member(s, x->consumers[q]))
			return x->consumers[q];
	return FD_NONE;
}

/* Queues the consumers of node v's outputs that are outside the match, not
 * yet visited and before its last member in topo order (later ones cannot
 * lead back), with v as their parent. Returns the first consumer that is a
 * member, when members count (v is outside), else FD_NONE. */
static int32_t queue_consumers(match_run_state *s, int32_t v, bool members_count)
{
	const fd_graph *g = s->g;
	const fd_node *nd = &g->nodes[v];
	for (int k = 0; k < nd->n_outputs; k++) {
		if (nd->outputs[k] < 0)
			continue;
		const fd_tensor *x = &g->tensors[nd->outputs[k]];
		for (int j = 0; j < x->n_consumers; j++) {
			int32_t y = x->consumers[j];
			if (is_member(s, y)) {
				if (members_count)
					return y;
				continue;
			}
			if (s->visit[y] == s->stamp || g->nodes[y].topo >= s->cover.max_topo || match_node_folds(s->ix, y))
				continue;
			s->visit[y] = s->stamp;
			s->parent[y] = v;
			vec_push(&s->queue, y);
		}
	}
	return FD_NONE;
}

/* Forward search from the match's outside consumers. Fills path (member,
 * outside…, member) and returns its length, 0 when no cycle. */
static int would_cycle(match_run_state *s, i32_vec *path)
{
	match_cover *c = &s->cover;
	i32_vec *q = &s->queue;
	q->n = 0;
	path->n = 0;
	for (size_t i = 0; i < c->nodes.n; i++)
		queue_consumers(s, c->nodes.items[i], false);
	for (size_t h = 0; h < q->n; h++) {
		int32_t v = q->items[h];
		int32_t y = queue_consumers(s, v, true);
		if (y == FD_NONE)
			continue;
		/* back into the match: the path is y <- v <- … <- member */
		vec_push(path, y);
		for (int32_t p = v; ; p = s->parent[p]) {
			vec_push(path, p);
			if (is_member(s, p))
				break;
		}
		for (size_t a = 0, b = path->n - 1; a < b; a++, b--) {
			int32_t t = path->items[a];
			path->items[a] = path->items[b];
			path->items[b] = t;
		}
		return (int)path->n;
	}
	return 0;
}

static uint32_t pool_put(fd_match_result *r, const int32_t *ids, size_t n)
{
	if (r->n_pool + n > r->cap_pool) {
		size_t cap = r->cap_pool ? r->cap_pool : 1024;
		while (cap < r->n_pool + n)
			cap *= 2;
		r->pool = xrealloc(r->pool, cap * sizeof *r->pool);
		r->cap_pool = cap;
	}
	if (n)   /* a one-op rule's fusion has no inner tensors: ids may be NULL */
		memcpy(r->pool + r->n_pool, ids, n * sizeof *ids);
	uint32_t off = (uint32_t)r->n_pool;
	r->n_pool += n;
	return off;
}

static int32_t record_fusion(match_run_state *s, int n)
{
	fd_match_result *r = s->res;
	match_cover *c = &s->cover;
	if (r->n_fusions == r->cap_fusions) {
		r->cap_fusions = r->cap_fusions ? r->cap_fusions * 2 : 64;
		r->fusions = xrealloc(r->fusions, r->cap_fusions * sizeof *r->fusions);
	}
	fd_fusion *f = &r->fusions[r->n_fusions];
	memset(f, 0, sizeof *f);
	f->rule = s->rule;
	f->graph = s->gi;
	f->anchor = s->anchor;
	f->attempt = -1;
	f->branch = s->branch;
	f->n_ops = (int16_t)n;
	f->units = pool_put(r, s->units, (size_t)n);
	f->nodes = pool_put(r, c->nodes.items, c->nodes.n);
	f->n_nodes = (int32_t)c->nodes.n;
	f->inputs = pool_put(r, c->inputs.items, c->inputs.n);
	f->n_inputs = (int32_t)c->inputs.n;
	f->outputs = pool_put(r, c->outputs.items, c->outputs.n);
	f->n_outputs = (int32_t)c->outputs.n;
	f->intermediates = pool_put(r, c->intermediates.items, c->intermediates.n);
	f->n_intermediates = (int32_t)c->intermediates.n;
	int64_t ws = 0;
	for (size_t i = 0; i < c->nodes.n && ws >= 0; i++) {
		bool known = true;
		int64_t w = workspace_estimate(s->g, &s->g->nodes[c->nodes.items[i]], &known);
		ws = known ? ws + w : -1;
	}
	f->workspace_bytes = ws;
	int32_t idx = (int32_t)r->n_fusions++;
	for (size_t i = 0; i < c->nodes.n; i++)
		r->claim[s->gi][c->nodes.items[i]] = idx;
	return idx;
}

int32_t match_unit_of_node(const match_run_state *s, int n_ops, int32_t node)
{
	for (int i = 0; i < n_ops; i++) {
		const int32_t *mem;
		if (s->units[i] == FD_NONE)
			continue;
		int32_t nm = match_unit_nodes(s->ctx, s->gi, s->units[i], &mem);
		for (int k = 0; k < nm; k++)
			if (mem[k] == node)
				return s->units[i];
	}
	return node;
}

/* The conditions a compiler checks after the match (rules.h: fd_rule.effect,
 * .change), on the units matched, with the events of branch `branch`: each
 * op's own rows, its inputs' in the order it matched, the rows after them.
 * False at the first that fails, recorded as the attempt's deepest failure. */
static bool check_stage(match_run_state *s, const fd_rule_pattern *stage, int8_t branch, int n, uint32_t *passed)
{
	const fd_rule_pattern *pat = s->pat;
	int8_t was = s->branch;
	s->pat = stage;
	s->branch = branch;
	bool ok = true;
	for (int i = 0; i < n && i < stage->n_ops && ok; i++) {
		const fd_rule_op *op = &stage->ops[i];
		int32_t u = s->units[i];
		if (u == FD_NONE || (!op->conds && !op->n_sources))
			continue;
		fd_cond_check cc = s->op_checks[i];
		cc.op = op;
		cc.unit = u;
		cc.sub = s->type_alt[i];
		cc.op_id = s->type_alt[i] >= 0 && s->type_alt[i] < op->n_types ? op->ops[s->type_alt[i]] : op->op;
		ok = !(op->conds & s->rows.op_before) || match_check_rows(s, op->conds & s->rows.op_before, i, n, &cc, passed);
		for (int k = 0; ok && k < op->n_sources; k++)
			ok = match_check_source(s, i, u, k, s->swapped[i], passed, false);
		ok = ok && (!(op->conds & s->rows.op_after) || match_check_rows(s, op->conds & s->rows.op_after, i, n, &cc, passed));
	}
	s->pat = pat;
	s->branch = was;
	return ok;
}

/* Rule a runs before rule b in a round: the higher priority, then the name
 * (match_run.c's order). */
static bool runs_before(const fd_rule *a, const fd_rule *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority;
	return strcmp(a->name ? a->name : "", b->name ? b->name : "") < 0;
}

/* A run_once rule in a later round of its pass: some node of the match was
 * made in the round before by a rule that runs before it (match.h:
 * made_by) — a pass meets what the passes before it made, never its own
 * nodes nor those of a pass after it. */
static bool made_by_another(const match_run_state *s, int n)
{
	const int32_t *made = s->opt->made_by[s->gi];
	for (int i = 0; i < n; i++) {
		const int32_t *mem;
		if (s->units[i] == FD_NONE)
			continue;
		int32_t nm = match_unit_nodes(s->ctx, s->gi, s->units[i], &mem);
		for (int k = 0; k < nm; k++)
			if (made[mem[k]] >= 0 && made[mem[k]] != s->rule && runs_before(&s->rs->rules[made[mem[k]]], s->r))
				return true;
	}
	return false;
}

/* A node of the cover is claimed by a fusion that fired earlier: FD-CL01. */
static bool lost_a_node(match_run_state *s, int n, uint32_t passed)
{
	const match_cover *c = &s->cover;
	for (size_t i = 0; i < c->nodes.n; i++) {
		int32_t node = c->nodes.items[i];
		int32_t winner = s->res->claim[s->gi][node];
		if (winner < 0)
			continue;
		uint32_t ev = match_emit(s, EV_CONFLICT, ST_FAIL, REASON_CL01_CONFLICT, -1, -1, node, winner,
		                         s->res->fusions[winner].rule, 0);
		match_fail(s, ev, REASON_CL01_CONFLICT, n, passed);
		return true;
	}
	return false;
}

bool match_complete(match_run_state *s, int n)
{
	const fd_rule *r = s->r;
	uint32_t passed = 0, ev;
	/* the pass saw these nodes when it ran: no match, as it runs once */
	if (r->run_once && s->opt->made_by && !made_by_another(s, n)) {
		ev = match_emit(s, EV_ANCHOR, ST_FAIL, REASON_NM25_RAN_ONCE, -1, -1, s->anchor, FD_NONE, 0, 0);
		match_fail(s, ev, REASON_NM25_RAN_ONCE, n, passed);
		return false;
	}
	/* a run_once rule (a CANN pass) counts a match only on nodes still there:
	 * one an earlier rule claimed is gone for it, which meets the fused
	 * node in the next round (the conflict is checked first) */
	if (!r->run_once)
		s->matched_once = true;
	if (s->pat->grouped && !match_group_complete(s, n, passed))
		return false;
	cover_build(s, n);
	if (r->run_once) {
		if (lost_a_node(s, n, passed))
			return false;
		s->matched_once = true;
	}

	/* the subgraph's rows, on the cover (cond_subgraph.c) */
	fd_cond_check sc = { .ctx = s->ctx, .graph = s->gi, .g = s->g, .ix = s->ix, .rule = r, .op_index = n,
	                     .unit = FD_NONE, .run = s };
	if ((r->conds & s->rows.subgraph) && !match_check_rows(s, r->conds & s->rows.subgraph, -1, n, &sc, &passed))
		return false;
	for (int k = 0; k < r->n_constraints; k++) {
		if (!match_constraint(s, k, n, passed))
			return false;
		passed++;
	}
	/* what the pass checks once it matched: a failure ends the attempt
	 * (the compiler calls its Fusion() once on a match) */
	if (s->branch == -1 && r->effect.n_ops && !check_stage(s, &r->effect, FD_BRANCH_EFFECT, n, &passed)) {
		s->settled = true;
		return false;
	}
	if (s->branch == -1 && r->change.n_ops && !check_stage(s, &r->change, FD_BRANCH_CHANGE, n, &passed)) {
		s->settled = s->unchanged = true;
		return false;
	}
	if (lost_a_node(s, n, passed))
		return false;
	i32_vec path = { 0 };
	int len = would_cycle(s, &path);
	if (len) {
		uint32_t off = s->opt->no_events ? 0 : s->sink.path(s->sink.ctx, path.items, (uint32_t)len);
		ev = match_emit(s, EV_CYCLE, ST_FAIL, REASON_WC01_CYCLE, -1, -1, path.items[0], FD_NONE, off, len);
		vec_release(&path);
		match_fail(s, ev, REASON_WC01_CYCLE, n, passed);
		return false;
	}
	vec_release(&path);
	int32_t f = record_fusion(s, n);
	match_emit(s, EV_FIRE, ST_PASS, REASON_OK_FIRED, -1, -1, s->anchor, FD_NONE, f, 0);
	match_emit(s, EV_REWRITE, ST_INFO, REASON_NONE, -1, -1, s->anchor, FD_NONE, f, 0);
	s->fired = true;
	return true;
}
