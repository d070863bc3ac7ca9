/* suggest_select.c — suggest_run: the graph as the rules leave it, the
 * search over it, and the patterns taken one by one, greedily by the bytes
 * they keep off memory, no node in two (suggest.h).
 *
 * A step: every key's worth is the bytes of its candidates on free nodes,
 * taken in topological order, none overlapping another (the estimate), or
 * the bytes its rule was verified to keep beside the patterns taken so far
 * (exact). The key of the most is verified when its worth is only an
 * estimate, and looked at again (lazy greedy: a verified worth is exact
 * until the next pattern is taken); when exact, its pattern is taken, its
 * rule joins the rules the next patterns are verified beside (above them),
 * and its instances' nodes are no longer free. */
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "suggest/suggest_internal.h"

/* What the selection keeps per key. */
typedef struct key_state {
	bool dead;                   /* its rule fires nowhere beside the taken ones, or taken */
	int32_t exact_gen;           /* pat holds its verification beside this many taken patterns; -1 none */
	int64_t worth;
	fd_suggest_pattern pat;      /* names kept across verifications */
} key_state;

typedef struct selection {
	const suggest_found *found;
	const fd_model *fm;
	bool **taken;                /* per graph, per node of the fused model */
	int32_t **mark;              /* per graph: the key whose estimate last used the node + 1 */
	key_state *keys;
	int32_t n_taken;
} selection;

/* The ranking's order: a formula as at 1 for every unbound symbol (per
 * sample: batch 1, sequence 1), an unknown size by its known part. */
static int64_t rank_bytes(const fd_suggest_pattern *p)
{
	int64_t v;
	if (p->bytes_f.e && dexpr_value_with(p->bytes_f.e, 1, &v))
		return v;
	return sint_value(p->bytes_f, &v) ? v : p->bytes;
}

/* The key's candidates on free nodes, none overlapping another, in the
 * order the search found them: their count, their bytes, and themselves in
 * out when out is not NULL. */
static int32_t free_candidates(selection *se, int32_t k, suggest_piece *out, int64_t *bytes)
{
	const suggest_group *grp = &se->found->groups.items[k];
	int32_t n = 0;
	*bytes = 0;
	for (size_t c = 0; c < grp->pieces.n; c++) {
		int32_t pi = grp->pieces.items[c];
		const suggest_piece *p = &se->found->pieces.items[pi];
		bool ok = true;
		for (int i = 0; i < p->n && ok; i++)
			ok = !se->taken[p->graph][p->nodes[i]] && se->mark[p->graph][p->nodes[i]] != k + 1;
		if (!ok)
			continue;
		for (int i = 0; i < p->n; i++)
			se->mark[p->graph][p->nodes[i]] = k + 1;
		if (out)
			out[n] = *p;
		n++;
		*bytes += se->found->piece_bytes.items[pi];
	}
	/* the marks of this key go, so that the next estimate of it starts clean */
	for (size_t c = 0; c < grp->pieces.n; c++) {
		const suggest_piece *p = &se->found->pieces.items[grp->pieces.items[c]];
		for (int i = 0; i < p->n; i++)
			if (se->mark[p->graph][p->nodes[i]] == k + 1)
				se->mark[p->graph][p->nodes[i]] = 0;
	}
	return n;
}

/* The live key worth the most (ties: more candidates, then the key); -1 none. */
static int32_t best_key(selection *se)
{
	int32_t best = -1;
	int64_t best_worth = -1;
	int32_t best_n = 0;
	for (size_t k = 0; k < se->found->groups.n; k++) {
		key_state *ks = &se->keys[k];
		if (ks->dead)
			continue;
		int64_t w;
		int32_t n;
		if (ks->exact_gen == se->n_taken) {
			w = ks->worth;
			n = ks->pat.n_instances;
		} else {
			n = free_candidates(se, (int32_t)k, NULL, &w);
			if (n == 0) {
				ks->dead = true;   /* every candidate's nodes are taken: for good */
				continue;
			}
		}
		if (best < 0 || w > best_worth || (w == best_worth && n > best_n) ||
		    (w == best_worth && n == best_n && strcmp(se->found->groups.items[k].key,
		                                              se->found->groups.items[best].key) < 0)) {
			best = (int32_t)k;
			best_worth = w;
			best_n = n;
		}
	}
	return best;
}

int suggest_run(fd_suggest *sg, fd_rounds *rd, const fd_ruleset *rs, const fd_suggest_options *opt, fd_diags *d)
{
	fd_suggest_options o = *opt;
	suggest_options_settle(&o);
	sg->max_ops = o.max_ops;
	sg->max_heavy = o.max_heavy;
	double t0 = clock_ms();
	suggest_fused fz;
	if (suggest_fused_open(&fz, rd, d) < 0)
		return -1;
	suggest_found found;
	suggest_search(&fz.ctx, o.max_ops, o.max_heavy, &sg->arena, &found);
	sg->n_eligible = found.n_eligible;
	sg->n_pieces = (int64_t)found.pieces.n;
	sg->n_keys = (int32_t)found.groups.n;
	sg->peak_search_bytes = found.bytes;
	double t1 = clock_ms();
	sg->search_ms = t1 - t0;

	const fd_model *fm = &fz.fm;
	selection se = { &found, fm, xcalloc((size_t)fm->n_graphs + 1, sizeof(bool *)),
	                 xcalloc((size_t)fm->n_graphs + 1, sizeof(int32_t *)),
	                 xcalloc(found.groups.n + 1, sizeof(key_state)), 0 };
	for (int32_t gi = 0; gi < fm->n_graphs; gi++) {
		se.taken[gi] = xcalloc((size_t)fm->graphs[gi].n_nodes + 1, sizeof(bool));
		se.mark[gi] = xcalloc((size_t)fm->graphs[gi].n_nodes + 1, sizeof(int32_t));
	}
	for (size_t k = 0; k < found.groups.n; k++)
		se.keys[k].exact_gen = -1;
	fd_suggest_pattern *pats = arena_array(&sg->arena, (size_t)o.top + 1, sizeof *pats);
	suggest_verify vs;
	suggest_verify_init(&vs, &fz.ctx, rs, &o, sg, d);
	suggest_piece *pieces = xcalloc(found.pieces.n + 1, sizeof *pieces);
	while (se.n_taken < o.top) {
		int32_t k = best_key(&se);
		if (k < 0)
			break;
		key_state *ks = &se.keys[k];
		if (ks->exact_gen != se.n_taken) {
			int64_t est;
			int32_t n = free_candidates(&se, k, pieces, &est);
			fd_suggest_pattern p = { 0 };
			p.rule_name = ks->pat.rule_name;
			p.target_op = ks->pat.target_op;
			if (!suggest_verify_pieces(&vs, found.groups.items[k].key, pieces, n, SUGGEST_ROUNDS, &p)) {
				ks->dead = true;
				sg->n_fire_nowhere++;
				continue;
			}
			ks->pat = p;
			ks->worth = rank_bytes(&p);
			ks->exact_gen = se.n_taken;
			continue;   /* its worth may now be below another's */
		}
		/* taken: its rule goes above the next ones, its nodes are no longer free */
		pats[se.n_taken++] = ks->pat;
		ks->dead = true;
		suggest_verify_take(&vs, &ks->pat);
		for (int32_t i = 0; i < ks->pat.n_instances; i++)
			for (int j = 0; j < ks->pat.n_ops; j++)
				se.taken[ks->pat.instances[i].graph][ks->pat.instances[i].nodes[j]] = true;
	}
	free(pieces);
	suggest_verify_release(&vs);
	for (int32_t gi = 0; gi < fm->n_graphs; gi++) {
		free(se.taken[gi]);
		free(se.mark[gi]);
	}
	free(se.taken);
	free(se.mark);
	free(se.keys);
	suggest_finish(sg, rd, rs, &fz, pats, se.n_taken);
	sg->verify_ms = clock_ms() - t1;
	suggest_found_release(&found);
	suggest_fused_close(&fz);
	return 0;
}
