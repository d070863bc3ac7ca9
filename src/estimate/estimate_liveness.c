/* estimate_liveness.c — a graph's activation memory by liveness over the
 * topological order, before and after the fusions: the peak and the tensors
 * that make it, in numbers and (where sizes are formulas) in formulas; and
 * the timeline, live bytes step by step, that the memory view and export's
 * chart draw. Formulas: estimate.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/estimate_internal.h"

/* ---- whole graph: liveness --------------------------------------------------- */

typedef struct live_scratch {
	int32_t *start, *end;      /* per tensor; start < 0: not an activation */
	int64_t *bytes;
	int64_t *delta;            /* per step + 1 */
	int32_t *step_of;          /* per node */
	int32_t *order;
	const est_extra *x;        /* what nodes running bodies hold on top, or NULL */
} live_scratch;

static const fd_graph *sort_g;
static const int64_t *sort_bytes;

static int cmp_peak(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	if (sort_bytes[x] != sort_bytes[y])
		return sort_bytes[x] > sort_bytes[y] ? -1 : 1;
	int c = strcmp(sort_g->tensors[x].name, sort_g->tensors[y].name);
	return c ? c : (x > y) - (x < y);
}

/* The tensors live at out->peak_step into out's list, largest first by probe
 * (bytes, or a formula's value at a probe binding; ties by name), each with
 * its figure from size (NULL: its probe bytes). True when a live tensor's
 * size is unknown. */
static bool list_peak_tensors(const fd_graph *g, live_scratch *ls, const int64_t *probe, const fd_sint *size,
                              fd_liveness *out)
{
	int32_t n = 0, at = out->peak_step;
	bool unknown = false;
	for (int32_t t = 0; t < g->n_tensors; t++)
		if (ls->start[t] >= 0 && ls->start[t] <= at && at <= ls->end[t]) {
			ls->order[n++] = t;
			unknown |= size && !sint_defined(size[t]);
		}
	sort_g = g;
	sort_bytes = probe;
	qsort(ls->order, (size_t)n, sizeof *ls->order, cmp_peak);
	out->n_live_at_peak = n;
	out->n_peak_tensors = n < ESTIMATE_PEAK_TENSORS ? n : ESTIMATE_PEAK_TENSORS;
	for (int32_t i = 0; i < out->n_peak_tensors; i++) {
		int32_t t = ls->order[i];
		fd_sint f = size ? size[t] : sint_num(probe[t]);
		int64_t v;
		out->peak_tensors[i] = (fd_peak_tensor){ .tensor = t, .size = f, .bytes = !f.e && sint_value(f, &v) ? v : -1 };
	}
	return unknown;
}

/* delta[k]: the bytes that become live at step k minus those freed after
 * step k - 1, over the tensors with start >= 0. */
static void live_deltas(const fd_graph *g, live_scratch *ls, int32_t n_steps)
{
	memset(ls->delta, 0, ((size_t)n_steps + 1) * sizeof *ls->delta);
	for (int32_t t = 0; t < g->n_tensors; t++) {
		if (ls->start[t] < 0)
			continue;
		ls->delta[ls->start[t]] += ls->bytes[t];
		ls->delta[ls->end[t] + 1] -= ls->bytes[t];
	}
	for (int32_t n = 0; ls->x && n < g->n_nodes; n++)
		if (ls->x->bytes[n] > 0) {
			ls->delta[ls->step_of[n]] += ls->x->bytes[n];
			ls->delta[ls->step_of[n] + 1] -= ls->x->bytes[n];
		}
}

/* The body the node at step k runs, for the report (-1 none). */
static void note_peak_body(const fd_graph *g, const live_scratch *ls, fd_liveness *out)
{
	out->peak_body = -1;
	out->peak_body_size = sint_unknown();
	for (int32_t n = 0; ls->x && n < g->n_nodes; n++)
		if (ls->x->body[n] >= 0 && ls->step_of[n] == out->peak_step) {
			out->peak_body = ls->x->body[n];
			out->peak_body_size = ls->x->peak[n];
		}
}

/* Peak over steps 0..n_steps-1 of the tensors with start >= 0 (raw: the
 * cached sizes, -1 for an unknown one, or NULL). */
static void liveness_peak(const fd_graph *g, live_scratch *ls, int32_t n_steps, const int64_t *raw,
                          fd_liveness *out)
{
	memset(out, 0, sizeof *out);
	out->peak_step = -1;
	out->peak_body = -1;
	if (n_steps <= 0)
		return;
	live_deltas(g, ls, n_steps);
	int64_t live = 0, best = -1;
	for (int32_t k = 0; k < n_steps; k++) {
		live += ls->delta[k];
		if (live > best) {
			best = live;
			out->peak_step = k;
		}
	}
	out->peak_bytes = best > 0 ? best : 0;
	out->peak_lower = sint_unknown();
	list_peak_tensors(g, ls, ls->bytes, NULL, out);
	int32_t n = out->n_live_at_peak;
	out->peak_f = sint_num(out->peak_bytes);
	note_peak_body(g, ls, out);
	/* a tensor of unknown size live at the peak (or a body's peak not a
	 * number): the peak is not known */
	bool body_unknown = false;
	for (int32_t k = 0; ls->x && k < g->n_nodes; k++)
		body_unknown |= ls->x->bytes[k] < 0 && ls->step_of[k] == out->peak_step;
	for (int32_t i = 0; raw && i <= n; i++)
		if (i == n ? body_unknown : raw[ls->order[i]] < 0) {
			out->peak_f = sint_unknown();
			out->peak_at_least = out->peak_bytes;
			out->peak_lower = sint_num(out->peak_bytes);
			out->peak_bytes = -1;
			break;
		}
}

/* A size's value with every unbound symbol at 64: what orders formulas
 * (the candidate peak, the tensors that make it) before they are proven. */
static int64_t probe(fd_sint s)
{
	int64_t v;
	if (!s.e)
		return s.n == SINT_UNKNOWN ? 0 : s.n;
	return dexpr_value_with(s.e, 64, &v) ? v : 0;
}

/* A peak no one step makes for every binding: the few step formulas it is
 * the max of (those no other is always at least), best first; none when
 * more than ESTIMATE_PEAK_MAX would be needed. */
bool est_max_insert(fd_sint *c, int *n, fd_sint f, int keep)
{
	for (int i = 0; i < *n; i++)
		if (sint_ge_always(c[i], f))
			return true;   /* covered */
	/* f replaces the candidates it is always at least */
	int m = 0;
	for (int i = 0; i < *n; i++)
		if (i < keep || !sint_ge_always(f, c[i]))
			c[m++] = c[i];
	if (m == ESTIMATE_PEAK_MAX)
		return false;
	c[m++] = f;
	*n = m;
	return true;
}

static void peak_candidates(const fd_sint *lives, int32_t n_steps, int32_t best, fd_liveness *out)
{
	fd_sint c[ESTIMATE_PEAK_MAX];
	int n = 0;
	c[n++] = lives[best];
	for (int32_t k = 0; k < n_steps; k++)
		if (!sint_defined(lives[k]) || !est_max_insert(c, &n, lives[k], 1))
			return;
	out->n_peak_max = n;
	memcpy(out->peak_max, c, (size_t)n * sizeof *c);
}

/* The same over sizes that are formulas: the live bytes of each step as a
 * formula; the peak is the step whose formula is at least every other's for
 * any binding (sint_ge_always), else it depends on the values. */
/* Every defined size is a number or k × M for one monomial M of symbols
 * alone (no floor, so M >= 1): then a + b × M per step, in integers, is all
 * liveness_formula needs. ka, kb per tensor; false when not so. */
static bool one_monomial(const fd_graph *g, const live_scratch *ls, const fd_sint *size, int64_t *ka, int64_t *kb,
                         const fd_dexpr **unit)
{
	*unit = NULL;
	for (int32_t t = 0; t < g->n_tensors; t++) {
		ka[t] = kb[t] = 0;
		if (ls->start[t] < 0 || !sint_defined(size[t]))
			continue;
		if (!size[t].e) {
			ka[t] = size[t].n;
			continue;
		}
		int64_t num, den;
		const fd_dexpr *m;
		if (!dexpr_monomial(size[t].e, &num, &den, &m) || den != 1 || (*unit && m != *unit))
			return false;
		if (!*unit && (dexpr_has_fresh(m) || strstr(dexpr_text(m), "floor(")))
			return false;
		*unit = m;
		kb[t] = num;
	}
	return *unit != NULL;
}

/* a1 + b1·M >= a2 + b2·M for every M >= 1 */
static bool pair_ge(int64_t a1, int64_t b1, int64_t a2, int64_t b2)
{
	return b1 >= b2 && (a1 - a2) + (b1 - b2) >= 0;
}

/* The formula pass decides the lower bound the numbers pass guessed (it
 * counted every formula as nothing): with a tensor of unknown size live at
 * the peak, the known sizes live at that step, which no binding makes
 * larger than the peak; none otherwise. */
static void set_lower(fd_liveness *out, bool unknown, fd_sint known)
{
	out->peak_at_least = 0;
	out->peak_lower = unknown && sint_defined(known) ? known : sint_unknown();
	int64_t v;
	if (unknown && !known.e && sint_value(known, &v))
		out->peak_at_least = v;
}

/* liveness_formula when every size is a number or a multiple of one
 * monomial: the same answer in integer arithmetic; false when it cannot
 * decide alone (sums overflow, or no step is the peak for every value). */
static bool liveness_one_monomial(const fd_graph *g, live_scratch *ls, int32_t n_steps, const fd_sint *size,
                                  fd_liveness *out)
{
	size_t nt = (size_t)g->n_tensors + 1;
	int64_t *ka = xmalloc(nt * sizeof *ka), *kb = xmalloc(nt * sizeof *kb);
	int64_t *da = xcalloc((size_t)n_steps + 1, sizeof *da), *db = xcalloc((size_t)n_steps + 1, sizeof *db);
	const fd_dexpr *unit;
	bool ok = !ls->x && one_monomial(g, ls, size, ka, kb, &unit);   /* bodies: the general path */
	int64_t pm = 0;
	ok = ok && dexpr_value_with(unit, 64, &pm);
	for (int32_t t = 0; ok && t < g->n_tensors; t++) {
		if (ls->start[t] < 0 || !sint_defined(size[t]))
			continue;
		ok = !__builtin_add_overflow(da[ls->start[t]], ka[t], &da[ls->start[t]]) &&
		     !__builtin_add_overflow(db[ls->start[t]], kb[t], &db[ls->start[t]]) &&
		     !__builtin_sub_overflow(da[ls->end[t] + 1], ka[t], &da[ls->end[t] + 1]) &&
		     !__builtin_sub_overflow(db[ls->end[t] + 1], kb[t], &db[ls->end[t] + 1]);
	}
	int64_t a = 0, b = 0, ba = 0, bb = 0, bp = 0;
	int32_t best = 0;
	for (int32_t k = 0; ok && k < n_steps; k++) {
		a += da[k];
		b += db[k];
		int64_t p;
		ok = !__builtin_mul_overflow(b, pm, &p) && !__builtin_add_overflow(p, a, &p);
		if (ok && (k == 0 || p > bp)) {
			best = k;
			bp = p;
			ba = a;
			bb = b;
		}
		da[k] = a;   /* the step's live bytes, kept for the check below */
		db[k] = b;
	}
	for (int32_t k = 0; ok && k < n_steps; k++)
		ok = pair_ge(ba, bb, da[k], db[k]);
	if (ok) {
		for (int32_t t = 0; t < g->n_tensors; t++)
			ka[t] += kb[t] * pm;   /* the probe of each tensor, for the order */
		out->peak_step = best;
		bool unknown = list_peak_tensors(g, ls, ka, size, out);
		fd_sint unit_s = { 0, unit };
		out->peak_depends = false;
		fd_sint known = sint_add(sint_num(ba), sint_mul(sint_num(bb), unit_s));
		out->peak_f = unknown ? sint_unknown() : known;
		set_lower(out, unknown, known);
		int64_t v;
		out->peak_bytes = !out->peak_f.e && sint_value(out->peak_f, &v) ? v : -1;
	}
	free(ka);
	free(kb);
	free(da);
	free(db);
	return ok;
}

/* A step whose node runs a body of a few peak formulas (est_extra's alt) is
 * that many candidates for the peak: its live bytes with each. */
typedef struct body_cands {
	fd_sint *cand;
	int32_t *step, *alt;   /* per candidate: its step, the formula (-1 none) */
	int32_t *node;         /* per step: the node with formulas, -1 */
} body_cands;

static void expand_body_cands(const fd_graph *g, const live_scratch *ls, int32_t n_steps, int32_t n_cand,
                              const fd_sint *lives, body_cands *bc)
{
	bc->cand = xmalloc((size_t)n_cand * sizeof *bc->cand);
	bc->step = xmalloc((size_t)n_cand * sizeof *bc->step);
	bc->alt = xmalloc((size_t)n_cand * sizeof *bc->alt);
	bc->node = xmalloc((size_t)n_steps * sizeof *bc->node);
	for (int32_t k = 0; k < n_steps; k++)
		bc->node[k] = -1;
	for (int32_t n = 0; n < g->n_nodes; n++)
		if (!sint_defined(ls->x->size[n]) && ls->x->n_alt[n] > 1)
			bc->node[ls->step_of[n]] = n;
	int32_t m = 0;
	for (int32_t k = 0; k < n_steps; k++) {
		int32_t n = bc->node[k];
		for (int a = 0; a < (n >= 0 ? ls->x->n_alt[n] : 1); a++, m++) {
			bc->cand[m] = n >= 0 ? sint_add(lives[k], ls->x->alt[ls->x->alt_row[n]][a]) : lives[k];
			bc->step[m] = k;
			bc->alt[m] = n >= 0 ? a : -1;
		}
	}
}

static void liveness_formula(const fd_graph *g, live_scratch *ls, int32_t n_steps, const fd_sint *size,
                             fd_liveness *out)
{
	if (n_steps <= 0)
		return;
	if (liveness_one_monomial(g, ls, n_steps, size, out))
		return;
	fd_sint *delta = xcalloc((size_t)n_steps + 1, sizeof *delta), *lives = xmalloc((size_t)n_steps * sizeof *lives);
	int64_t *pv = xmalloc((size_t)g->n_tensors * sizeof *pv);
	/* a size in a fresh symbol is one no binding gives: unknown, left out of
	 * the formulas (they are then lower bounds) */
	fd_sint *known = xmalloc(((size_t)g->n_tensors + 1) * sizeof *known);
	bool partial = false;
	for (int32_t t = 0; t < g->n_tensors; t++) {
		known[t] = size[t].e && dexpr_has_fresh(size[t].e) ? sint_unknown() : size[t];
		partial |= ls->start[t] >= 0 && !sint_defined(known[t]);
	}
	size = known;
	for (int32_t t = 0; t < g->n_tensors; t++) {
		pv[t] = probe(size[t]);
		if (ls->start[t] < 0 || !sint_defined(size[t]))
			continue;
		delta[ls->start[t]] = sint_add(delta[ls->start[t]], size[t]);
		delta[ls->end[t] + 1] = sint_sub(delta[ls->end[t] + 1], size[t]);
	}
	int32_t n_cand = n_steps;   /* candidates: a step each, more for a body peak of a few formulas */
	for (int32_t n = 0; ls->x && n < g->n_nodes; n++) {
		int32_t k = ls->step_of[n];
		if (!sint_defined(ls->x->size[n])) {
			if (ls->x->n_alt[n] > 1)
				n_cand += ls->x->n_alt[n] - 1;
			else
				partial = true;   /* a body whose peak is not known */
			continue;
		}
		delta[k] = sint_add(delta[k], ls->x->size[n]);
		delta[k + 1] = sint_sub(delta[k + 1], ls->x->size[n]);
	}
	fd_sint live = sint_num(0);
	for (int32_t k = 0; k < n_steps; k++) {
		live = sint_add(live, delta[k]);
		lives[k] = live;
	}
	/* the candidates: each step's live bytes; only when a node runs a body
	 * of a few peak formulas, its step once with each (cand_step, cand_alt) */
	body_cands bc = { lives, NULL, NULL, NULL };
	if (n_cand > n_steps)
		expand_body_cands(g, ls, n_steps, n_cand, lives, &bc);
	const fd_sint *cand = bc.cand;
	int32_t best = 0;
	for (int32_t k = 1; k < n_cand; k++)
		if (probe(cand[k]) > probe(cand[best]))
			best = k;
	bool depends = !sint_defined(cand[best]);
	for (int32_t k = 0; k < n_cand && !depends; k++)
		depends = !sint_ge_always(cand[best], cand[k]);
	if (depends && sint_defined(cand[best]))
		peak_candidates(cand, n_cand, best, out);
	out->peak_max_lower = (partial || !sint_defined(cand[best])) && out->n_peak_max > 1;
	out->peak_step = bc.step ? bc.step[best] : best;
	note_peak_body(g, ls, out);
	if (bc.alt && bc.alt[best] >= 0)   /* the body's peak formula that makes this candidate */
		out->peak_body_size = ls->x->alt_peak[ls->x->alt_row[bc.node[out->peak_step]]][bc.alt[best]];
	bool unknown = list_peak_tensors(g, ls, pv, size, out);
	/* a size nobody knows live at any step: the formula is only a lower bound */
	unknown |= partial;
	out->peak_depends = depends;
	out->peak_f = depends || unknown ? sint_unknown() : cand[best];
	set_lower(out, unknown, cand[best]);   /* any step's known part is at most the peak */
	int64_t v;
	out->peak_bytes = !out->peak_f.e && sint_value(out->peak_f, &v) ? v : -1;
	if (bc.cand != lives)
		free(bc.cand);
	free(bc.step);
	free(bc.alt);
	free(bc.node);
	free(delta);
	free(lives);
	free(pv);
	free(known);
}

/* Live intervals with each node at step_of[node]; skip marks tensors never
 * materialised (fusion intermediates). */
static void intervals(const fd_graph *g, const uint8_t *tflags, live_scratch *ls, const uint8_t *skip,
                      int32_t n_steps)
{
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		ls->start[t] = ls->end[t] = -1;
		if (is_weight(x, tflags[t]) || x->kind == TENSOR_OUTER_SCOPE || (skip && skip[t]))
			continue;
		int32_t s = x->producer >= 0 ? ls->step_of[x->producer] : 0;
		int32_t e = s;
		for (int32_t c = 0; c < x->n_consumers; c++)
			if (ls->step_of[x->consumers[c]] > e)
				e = ls->step_of[x->consumers[c]];
		if (x->is_graph_output)
			e = n_steps - 1;
		ls->start[t] = s;
		ls->end[t] = e;
	}
}

/* Carves the scratch arrays of one graph out of e's reusable buffer. */
static void *carve(char **p, size_t n, size_t size)
{
	void *at = *p;
	*p += (n * size + 15) & ~(size_t)15;
	return at;
}

/* What one side (0: before the fusions, 1: after) of a graph's liveness is
 * handed: the intervals in ls, each tensor's bytes (ls->bytes; raw: -1 for
 * an unknown one) and, where sizes are formulas, sizes. */
typedef void (*side_fn)(void *arg, int side, const fd_graph *g, live_scratch *ls, int32_t n_steps,
                        const int64_t *raw, const fd_sint *sizes);

/* The intervals of graph gi before and after the fusions of r, each side
 * handed to fn; ge gets the weights and the activation counts. The scratch
 * buffer (*scratch, *scratch_size) is reused and grown as needed. */
static void graph_sides(const fd_estimate *e, void **scratch, size_t *scratch_size, const est_cache *c,
                        const fd_match_result *r, int32_t gi, fd_graph_est *ge, side_fn fn, void *arg)
{
	est_extra x[2];
	bool has_x = est_body_extras(e, c, gi, 0, &x[0]);
	if (has_x)
		est_body_extras(e, c, gi, 1, &x[1]);
	const fd_graph_index *gx = &r->ctx->graphs[gi];
	const fd_graph *g = gx->g;
	memset(ge, 0, sizeof *ge);
	ge->graph = gi;
	size_t nt = g->n_tensors ? (size_t)g->n_tensors : 1, nn = g->n_nodes ? (size_t)g->n_nodes : 1;
	size_t nf = r->n_fusions + 1;
	size_t need = nt * (3 * sizeof(int32_t) + sizeof(int64_t) + 1) + (nn + 1) * (sizeof(int64_t) + sizeof(int32_t)) +
	              nf * sizeof(int32_t) + 8 * 16;
	if (need > *scratch_size) {
		free(*scratch);
		*scratch = xmalloc(need);
		*scratch_size = need;
	}
	char *p = *scratch;
	live_scratch ls;
	ls.start = carve(&p, nt, sizeof *ls.start);
	ls.end = carve(&p, nt, sizeof *ls.end);
	ls.bytes = carve(&p, nt, sizeof *ls.bytes);
	ls.order = carve(&p, nt, sizeof *ls.order);
	ls.delta = carve(&p, nn + 1, sizeof *ls.delta);
	ls.step_of = carve(&p, nn, sizeof *ls.step_of);
	uint8_t *skip = carve(&p, nt, 1);
	int32_t *fstep = carve(&p, nf, sizeof *fstep);
	memset(ls.bytes, 0, nt * sizeof *ls.bytes);
	memset(skip, 0, nt);

	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		int32_t unk = 0;
		int64_t b = est_cached_bytes(c, gi, g, t, &unk);
		if (is_weight(x, gx->tflags[t])) {
			ge->weight_bytes = est_add_sat(ge->weight_bytes, b);
			continue;
		}
		if (x->kind == TENSOR_OUTER_SCOPE)
			continue;
		ge->n_activations++;
		ge->n_unknown += unk;
		ls.bytes[t] = b;
	}
	/* before */
	for (int32_t i = 0; i < g->n_nodes; i++)
		ls.step_of[i] = g->nodes[i].topo;
	const int64_t *raw = c ? c->tbytes[gi] : NULL;
	const fd_sint *sizes = c ? c->tsize[gi] : NULL;
	intervals(g, gx->tflags, &ls, NULL, g->n_nodes);
	ls.x = has_x ? &x[0] : NULL;
	fn(arg, 0, g, &ls, g->n_nodes, raw, sizes);
	/* after: a fusion runs at its last member's step */
	const int32_t *claim = r->claim ? r->claim[gi] : NULL;
	for (size_t f = 0; f < r->n_fusions; f++) {
		const fd_fusion *fu = &r->fusions[f];
		if (fu->graph != gi)
			continue;
		const int32_t *ids = fusion_ids(r, fu->intermediates);
		for (int32_t i = 0; i < fu->n_intermediates; i++)
			if (ids[i] >= 0)
				skip[ids[i]] = 1;
	}
	if (claim && r->n_fusions) {
		for (size_t f = 0; f < r->n_fusions; f++) {
			const fd_fusion *fu = &r->fusions[f];
			fstep[f] = -1;
			const int32_t *nodes = fusion_ids(r, fu->nodes);
			for (int32_t i = 0; fu->graph == gi && i < fu->n_nodes; i++)
				if (g->nodes[nodes[i]].topo > fstep[f])
					fstep[f] = g->nodes[nodes[i]].topo;
		}
		for (int32_t i = 0; i < g->n_nodes; i++)
			if (claim[i] >= 0 && (size_t)claim[i] < r->n_fusions && fstep[claim[i]] >= 0)
				ls.step_of[i] = fstep[claim[i]];
	}
	intervals(g, gx->tflags, &ls, skip, g->n_nodes);
	ls.x = has_x ? &x[1] : NULL;
	fn(arg, 1, g, &ls, g->n_nodes, raw, sizes);
	if (has_x) {
		est_body_extras_release(&x[0]);
		est_body_extras_release(&x[1]);
	}
}

static void peak_side(void *arg, int side, const fd_graph *g, live_scratch *ls, int32_t n_steps,
                      const int64_t *raw, const fd_sint *sizes)
{
	fd_graph_est *ge = arg;
	fd_liveness *lv = side ? &ge->after : &ge->before;
	liveness_peak(g, ls, n_steps, raw, lv);
	if (sizes)
		liveness_formula(g, ls, n_steps, sizes, lv);
}

void est_graph(fd_estimate *e, const est_cache *c, const fd_match_result *r, int32_t gi, fd_graph_est *ge)
{
	graph_sides(e, &e->scratch, &e->scratch_size, c, r, gi, ge, peak_side, ge);
}

/* ---- the timeline ------------------------------------------------------------- */

typedef struct timeline_state {
	fd_timeline *t;
	const fd_dexpr *unit;      /* the monomial every formula step is a multiple of */
} timeline_state;

/* A step's live bytes as a multiple of the state's unit (plain bytes when
 * there is none); false when it is not one (a number beside formulas, or a
 * formula of another shape). */
static bool in_units(const timeline_state *st, fd_sint live, double *out)
{
	int64_t v;
	if (!live.e) {
		if (!sint_value(live, &v))
			return false;
		*out = (double)v;
		return v == 0 || !st->unit;
	}
	fd_sint u = { 0, st->unit };
	return st->unit && sint_ratio(live, u, out);
}

static void timeline_side(void *arg, int side, const fd_graph *g, live_scratch *ls, int32_t n_steps,
                          const int64_t *raw, const fd_sint *sizes)
{
	timeline_state *st = arg;
	fd_timeline *t = st->t;
	double *v = t->live[side];
	if (!sizes) {
		live_deltas(g, ls, n_steps);
		for (int32_t x = 0; raw && x < g->n_tensors; x++)
			if (ls->start[x] >= 0 && raw[x] < 0)
				t->n_unknown++;
		for (int32_t n = 0; ls->x && n < g->n_nodes; n++)
			t->n_unknown += ls->x->bytes[n] < 0;
		int64_t live = 0;
		for (int32_t k = 0; k < n_steps; k++) {
			live += ls->delta[k];
			v[k] = (double)live;
		}
		return;
	}
	fd_sint *delta = xcalloc((size_t)n_steps + 1, sizeof *delta);
	for (int32_t x = 0; x < g->n_tensors; x++) {
		if (ls->start[x] < 0)
			continue;
		if (!sint_defined(sizes[x])) {
			t->n_unknown++;
			continue;
		}
		delta[ls->start[x]] = sint_add(delta[ls->start[x]], sizes[x]);
		delta[ls->end[x] + 1] = sint_sub(delta[ls->end[x] + 1], sizes[x]);
	}
	for (int32_t n = 0; ls->x && n < g->n_nodes; n++) {
		if (!sint_defined(ls->x->size[n])) {
			t->n_unknown++;
			continue;
		}
		delta[ls->step_of[n]] = sint_add(delta[ls->step_of[n]], ls->x->size[n]);
		delta[ls->step_of[n] + 1] = sint_sub(delta[ls->step_of[n] + 1], ls->x->size[n]);
	}
	/* the live bytes of every step as a formula; the first that is one
	 * names the unit (its monomial) all the others must be multiples of */
	fd_sint live = sint_num(0);
	for (int32_t k = 0; k < n_steps; k++) {
		live = sint_add(live, delta[k]);
		delta[k] = live;
		int64_t num, den;
		const fd_dexpr *mono;
		if (!st->unit && live.e && dexpr_monomial(live.e, &num, &den, &mono))
			st->unit = mono;
	}
	for (int32_t k = 0; k < n_steps && t->known; k++) {
		if (delta[k].e && dexpr_has_fresh(delta[k].e)) {
			t->known = false;
			t->unknowable = true;
			break;
		}
		t->known = in_units(st, delta[k], &v[k]);
	}
	free(delta);
}

int estimate_timeline(const fd_estimate *e, int32_t gi, fd_timeline *t)
{
	memset(t, 0, sizeof *t);
	t->graph = gi;
	if (!e->r || !e->r->ctx || gi < 0 || gi >= e->n_graphs)
		return -1;
	const fd_graph *g = e->r->ctx->graphs[gi].g;
	t->n_steps = g->n_nodes;
	t->known = true;
	for (int side = 0; side < 2; side++)
		t->live[side] = xcalloc((size_t)t->n_steps + 1, sizeof *t->live[side]);
	timeline_state st = { t, NULL };
	void *scratch = NULL;
	size_t scratch_size = 0;
	fd_graph_est ge;
	graph_sides(e, &scratch, &scratch_size, e->cache, e->r, gi, &ge, timeline_side, &st);
	free(scratch);
	if (!t->known && t->unknowable) {
		snprintf(t->why, sizeof t->why, "some sizes cannot be known (dims that no binding reaches)");
	} else if (!t->known) {
		const char *names[8];
		int n = model_unbound_symbols(e->r->ctx->model, names, 8);
		size_t at = (size_t)snprintf(t->why, sizeof t->why, "the steps do not scale alike: bind ");
		for (int i = 0; i < n && i < 8 && at < sizeof t->why; i++)
			at += (size_t)snprintf(t->why + at, sizeof t->why - at, "%s%s", i ? ", " : "", names[i]);
		if (at < sizeof t->why)
			snprintf(t->why + at, sizeof t->why - at, " for numbers");
	}
	if (st.unit)
		snprintf(t->unit, sizeof t->unit, "%s", dexpr_text(st.unit));
	for (int side = 0; side < 2; side++) {
		t->peak_step[side] = -1;
		for (int32_t k = 0; k < t->n_steps; k++)
			if (t->peak_step[side] < 0 || t->live[side][k] > t->peak[side]) {
				t->peak[side] = t->live[side][k];
				t->peak_step[side] = k;
			}
	}
	return 0;
}

void estimate_timeline_release(fd_timeline *t)
{
	free(t->live[0]);
	free(t->live[1]);
	memset(t, 0, sizeof *t);
}
