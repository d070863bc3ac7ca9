/* rounds.c — the loop of rounds.h: passes in order, rounds within a pass
 * until nothing new can fire, each round's fusions made into fused nodes
 * and, when another round will run, into the graph it matches. */
#include <stdlib.h>
#include <string.h>
#include "rounds/fuse.h"
#include "rounds/rounds.h"

void rounds_init(fd_rounds *rd)
{
	memset(rd, 0, sizeof *rd);
	arena_init(&rd->arena);
	rd->unsettled = -1;
}

static void round_free(fd_round *r)
{
	rewrite_release(&r->made);
	free(r->made_of);
	free(r->ran);
	for (int32_t g = 0; r->made_by && g < r->model->n_graphs; g++)
		free(r->made_by[g]);
	free(r->made_by);
	if (r->number > 1)
		match_result_release(&r->own_result);
	if (r->built_own) {
		match_ctx_release(&r->own_ctx);
		model_release(&r->own_model);
	}
	free(r);
}

static void rounds_clear(fd_rounds *rd)
{
	for (int32_t i = 0; i < rd->n; i++)
		round_free(rd->items[i]);
	free(rd->items);
	for (int32_t p = 0; p < rd->n_passes; p++)
		free(rd->passes[p].rules);
	free(rd->passes);
	free(rd->rule_pass);
	vec_release(&rd->keep_firing);
	arena_release(&rd->arena);
	fuse_names_free(rd->names);   /* after the rounds: their fused nodes' names are here */
	rounds_init(rd);
}

void rounds_release(fd_rounds *rd)
{
	rounds_clear(rd);
	arena_release(&rd->arena);
}

/* ---- one round ------------------------------------------------------------------ */

static fd_round *new_round(fd_rounds *rd, int32_t pass, int32_t step)
{
	fd_round *r = xcalloc(1, sizeof *r);
	r->number = rd->n + 1;
	r->pass = pass;
	r->step = step;
	rewrite_init(&r->made);
	r->ran = xcalloc((size_t)rd->rules->n_rules + 1, sizeof *r->ran);
	rd->items = xrealloc(rd->items, (size_t)(rd->n + 1) * sizeof *rd->items);
	rd->items[rd->n++] = r;
	return r;
}

/* The round's fusions as fused nodes, and fusion → fused node: made when
 * the next round needs its graph, or for the composed rewrite, not by
 * every run (a what-if re-run of one round makes none). */
static void make_fused(fd_rounds *rd, fd_round *r, fd_diags *d)
{
	if (r->made_of)
		return;
	if (!rd->names)
		rd->names = fuse_names_new();
	fuse_rewrite(r->result, r->number, &r->made, rd->names, d);
	r->made_of = xmalloc((r->result->n_fusions + 1) * sizeof *r->made_of);
	for (size_t k = 0; k < r->made.nodes.n; k++)
		r->made_of[r->made.nodes.items[k].fusion] = (int32_t)k;
}

/* The op type a rule's fusions get (fuse.h). */
static const char *made_type(const fd_rule *r)
{
	return r->target_op && *r->target_op ? r->target_op : "FusedOp";
}

/* The rules of pass p (enabled) that can match a node the round made: those
 * the next round runs. Returns how many. */
static int32_t rules_that_see(const fd_rounds *rd, const fd_round *r, int32_t p, bool *out)
{
	const fd_ruleset *rs = rd->rules;
	int32_t n = 0;
	const fd_pass *ps = &rd->passes[p];
	for (int32_t k = 0; k < ps->n_rules; k++) {
		int32_t rule = ps->rules[k];
		out[rule] = false;
		for (int32_t f = 0; rs->rules[rule].enabled && f < rs->n_rules && !out[rule]; f++)
			out[rule] = r->result->stats[f].effect_times - r->result->stats[f].unchanged > 0 &&
			            rounds_rule_sees(rs, rule, made_type(&rs->rules[f]));
		n += out[rule];
	}
	return n;
}

/* The graph after round r, and round r + 1's context over it; when r fused
 * nothing, r's graph and context themselves (map.from stays NULL). */
static int build_next(fd_rounds *rd, fd_round *r, fd_round *next, bool canonicalize, fd_diags *d)
{
	match_result_init(&next->own_result);
	next->result = &next->own_result;
	r->built = true;
	make_fused(rd, r, d);
	if (r->made.nodes.n == 0) {
		next->model = r->model;
		next->ctx = r->ctx;
		return 0;
	}
	if (rewrite_build_model(r->model, &r->made, &next->own_model, &next->map, d) < 0) {
		r->built = false;
		return -1;
	}
	next->built_own = true;
	next->model = &next->own_model;
	match_ctx_init_types(&next->own_ctx, next->model, canonicalize, rd->rules->fused_types,
	                     rd->rules->n_fused_types, d);
	next->ctx = &next->own_ctx;
	return 0;
}

/* The pass did not settle: the rules that fired in its rounds after the
 * first keep firing on what the rounds make (a rule that undoes another
 * fires every other round, so the last round alone would name one). */
static void note_unsettled(fd_rounds *rd, int32_t p)
{
	rd->settled = false;
	if (rd->unsettled >= 0)
		return;
	rd->unsettled = p;
	const fd_pass *ps = &rd->passes[p];
	for (int32_t i = 0; i < rd->rules->n_rules; i++) {
		bool fired = false;
		for (int32_t k = ps->first_round + 1; k < ps->first_round + ps->n_rounds && !fired; k++)
			fired = rd->items[k]->result->stats[i].effect_times - rd->items[k]->result->stats[i].unchanged > 0;
		if (fired)
			vec_push(&rd->keep_firing, i);
	}
}

/* Round r (not the first of its pass, so r->map leads to prev's graph) only
 * re-fused prev's output: each fusion is one node that prev's fusion by the
 * same rule made, so the graph after r is the graph before it, op types and
 * tensors alike, and every further round would do the same again. */
static bool repeats_round_before(const fd_round *prev, const fd_round *r)
{
	if (!r->built_own || !prev->made_of || r->result->n_fusions == 0)
		return false;
	for (size_t k = 0; k < r->result->n_fusions; k++) {
		const fd_fusion *f = &r->result->fusions[k];
		if (f->n_nodes != 1)
			return false;
		int32_t from = r->map.from[f->graph][fusion_ids(r->result, f->nodes)[0]];
		if (from >= 0)
			return false;
		const fd_fused_node *made = &prev->made.nodes.items[-from - 1];
		if (prev->result->fusions[made->fusion].rule != f->rule)
			return false;
	}
	return true;
}

/* Round r, a later round of its pass on the graph prev's fusions made:
 * which rule made each of its nodes (rules.h: run_once). */
static void note_made_by(const fd_round *prev, fd_round *r)
{
	if (!r->built_own || !r->map.from)
		return;
	r->made_by = xcalloc((size_t)r->model->n_graphs + 1, sizeof *r->made_by);
	for (int32_t g = 0; g < r->model->n_graphs; g++) {
		int32_t n = r->model->graphs[g].n_nodes;
		r->made_by[g] = xmalloc(((size_t)n + 1) * sizeof **r->made_by);
		for (int32_t j = 0; j < n; j++) {
			int32_t from = r->map.from[g][j];
			r->made_by[g][j] = from >= 0 ? -1
			                   : prev->result->fusions[prev->made.nodes.items[-from - 1].fusion].rule;
		}
	}
}

/* ---- the loop -------------------------------------------------------------------- */

int rounds_run(fd_rounds *rd, const fd_match_ctx *ctx, const fd_ruleset *rs, const fd_match_options *mopt,
               const fd_rounds_options *ropt, fd_match_result *first, fd_diags *d)
{
	static const fd_rounds_options no_options = { 0 };
	if (!ropt)
		ropt = &no_options;
	rounds_clear(rd);
	rd->rules = rs;
	rd->pass_file = ropt->pass_file;
	rd->max_rounds = ropt->max_rounds > 0 ? ropt->max_rounds : ROUNDS_DEFAULT_MAX;
	rd->settled = true;
	if (rounds_make_passes(rd, rs, ropt->pass_file, d) < 0)
		return -1;
	fd_match_options mo = *mopt;
	bool *want = xcalloc((size_t)rs->n_rules + 1, sizeof *want);
	fd_round *prev = NULL;
	int rc = 0;
	for (int32_t p = 0; p < rd->n_passes && rc == 0; p++) {
		fd_pass *ps = &rd->passes[p];
		ps->first_round = rd->n;
		ps->settled = true;
		memset(want, 0, (size_t)rs->n_rules * sizeof *want);
		for (int32_t k = 0; k < ps->n_rules; k++)
			want[ps->rules[k]] = true;
		for (int32_t step = 1;; step++) {
			fd_round *r = new_round(rd, p, step);
			if (!prev) {
				r->model = ctx->model;
				r->ctx = ctx;
				r->result = first;
			} else if (build_next(rd, prev, r, ctx->canonicalize, d) < 0) {
				rd->n--;
				round_free(r);
				rc = -1;
				break;
			}
			if (step > 1)
				note_made_by(prev, r);
			mo.made_by = (const int32_t *const *)r->made_by;
			memcpy(r->ran, want, (size_t)rs->n_rules * sizeof *want);
			/* one pass of every rule needs no mask: the run is today's run */
			mo.run_rule = rd->n_passes == 1 && step == 1 ? NULL : r->ran;
			match_run(r->ctx, rs, &mo, r->result);
			ps->n_rounds++;
			bool repeat = step > 1 && repeats_round_before(prev, r);
			prev = r;
			if (r->result->n_fusions == 0)
				break;
			if (repeat) {
				ps->settled = false;
				if (rd->unsettled < 0)
					rd->repeated = r->number;
				note_unsettled(rd, p);
				break;
			}
			if (rules_that_see(rd, r, p, want) == 0)
				break;
			if (step == rd->max_rounds) {
				ps->settled = false;
				note_unsettled(rd, p);
				break;
			}
		}
	}
	free(want);
	return rc;
}

void rounds_make_all(fd_rounds *rd, fd_diags *d)
{
	for (int32_t i = 0; i < rd->n; i++)
		make_fused(rd, rd->items[i], d);
}
