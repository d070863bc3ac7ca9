/* suggest_verify.c — a pattern's rule made, run beside the rules of the
 * patterns taken before it, and made again from where it fired until the
 * two agree; then the bytes, the speed-up and the nearest rules (suggest.h
 * says why it is done so: the instances of a pattern are where its rule
 * fires); and the graph as the rules leave it, which all of it runs on. */
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "base/strbuf.h"
#include "explain/explain.h"
#include "ruleset/ruleset.h"
#include "suggest/suggest_internal.h"

void suggest_init(fd_suggest *sg)
{
	memset(sg, 0, sizeof *sg);
	arena_init(&sg->arena);
}

void suggest_release(fd_suggest *sg)
{
	arena_release(&sg->arena);
	memset(sg, 0, sizeof *sg);
}

/* A rule set of the documents of text (each rule checked as a file's
 * would be); -1 + d when one does not load. */
static int load_text(fd_ruleset *rs, const char *name, const char *text, fd_diags *d)
{
	ruleset_init(rs);
	fd_yfile *f = xmalloc(sizeof *f);
	if (yfile_load_buffer(f, name, text, strlen(text), d) < 0) {
		free(f);
		return -1;
	}
	rs->files = xmalloc(sizeof *rs->files);
	rs->files[rs->n_files++] = f;
	if (f->n_docs < 1)
		return -1;
	rs->rules = xcalloc((size_t)f->n_docs, sizeof *rs->rules);
	for (int i = 0; i < f->n_docs; i++) {
		if (rule_from_yaml(rs, &rs->rules[i], &f->docs[i], d) < 0)
			return -1;
		rs->n_rules++;
	}
	ruleset_resolve_types(rs);
	return 0;
}

void suggest_verify_init(suggest_verify *vs, const fd_match_ctx *ctx, const fd_ruleset *rs,
                         const fd_suggest_options *opt, fd_suggest *sg, fd_diags *d)
{
	memset(vs, 0, sizeof *vs);
	vs->ctx = ctx;
	vs->rs = rs;
	vs->opt = opt;
	vs->sg = sg;
	vs->d = d;
	strmap_init(&vs->names);
	ruleset_init(&vs->above);
}

void suggest_verify_release(suggest_verify *vs)
{
	strmap_release(&vs->names);
	sb_release(&vs->above_yaml);
	ruleset_release(&vs->above);
}

void suggest_verify_take(suggest_verify *vs, const fd_suggest_pattern *pat)
{
	if (vs->above_yaml.n)
		sb_puts(&vs->above_yaml, "---\n");
	sb_puts(&vs->above_yaml, pat->rule_yaml);
	vs->n_above++;
	ruleset_release(&vs->above);
	fd_diags d1;
	diags_init(&d1);
	if (load_text(&vs->above, "suggested", sb_str(&vs->above_yaml), &d1) < 0) {
		/* each loaded alone before: cannot happen, but then say so */
		ruleset_release(&vs->above);
		ruleset_init(&vs->above);
	}
	diags_release(&d1);
}

static int cmp_piece(const void *pa, const void *pb)
{
	const suggest_piece *a = pa, *b = pb;
	if (a->graph != b->graph)
		return (a->graph > b->graph) - (a->graph < b->graph);
	for (int i = 0; i < a->n && i < b->n; i++)
		if (a->nodes[i] != b->nodes[i])
			return (a->nodes[i] > b->nodes[i]) - (a->nodes[i] < b->nodes[i]);
	return (a->n > b->n) - (a->n < b->n);
}

static bool same_sets(const suggest_piece *a, int32_t na, const suggest_piece *b, int32_t nb)
{
	if (na != nb)
		return false;
	for (int32_t i = 0; i < na; i++)
		if (cmp_piece(&a[i], &b[i]))
			return false;
	return true;
}

/* The instances where rule `rule` fired, by position; sorted. */
static int32_t firings(const fd_match_result *res, int32_t rule, int32_t n_ops, suggest_piece **out)
{
	suggest_piece *v = xcalloc(res->n_fusions + 1, sizeof *v);
	int32_t n = 0;
	for (size_t f = 0; f < res->n_fusions; f++) {
		const fd_fusion *fu = &res->fusions[f];
		if (fu->rule != rule)
			continue;
		suggest_piece p = { fu->graph, n_ops, { 0 } };
		bool ok = fu->n_ops == n_ops;
		for (int i = 0; ok && i < n_ops; i++) {
			int32_t u = match_fusion_unit(res, fu, i);
			ok = unit_is_node(&res->ctx->model->graphs[fu->graph], u);
			p.nodes[i] = ok ? u : 0;
		}
		if (ok)
			v[n++] = p;
	}
	qsort(v, (size_t)n, sizeof *v, cmp_piece);
	*out = v;
	return n;
}

bool suggest_verify_pieces(suggest_verify *vs, const char *key, const suggest_piece *pieces, int32_t n,
                           int rounds, fd_suggest_pattern *pat)
{
	int32_t n_inst = n;
	suggest_piece *inst = xcalloc((size_t)n_inst + 1, sizeof *inst);
	memcpy(inst, pieces, (size_t)n * sizeof *inst);
	qsort(inst, (size_t)n_inst, sizeof *inst, cmp_piece);
	const fd_graph *g = &vs->ctx->model->graphs[inst[0].graph];
	if (!pat->rule_name)
		suggest_rule_names(g, &inst[0], vs->rs, &vs->names, &vs->sg->arena, &pat->rule_name, &pat->target_op);
	pat->key = key;
	pat->n_ops = inst[0].n;
	pat->n_found = n_inst;
	fd_match_options mopt = { .target = vs->opt->target, .no_events = true };
	fd_match_result res;
	match_result_init(&res);
	bool fired = false;
	fd_ruleset one;              /* the rules the last run ran: res refers to them */
	ruleset_init(&one);
	strbuf text = { 0 };
	for (int round = 0; round <= rounds; round++) {
		suggest_rule_in in = { vs->ctx, vs->rs, &vs->above, vs->opt->target, pat->rule_name, pat->target_op,
		                       pat->n_ops, n_inst, inst, n };
		pat->rule_yaml = suggest_rule_yaml(&in, &vs->sg->arena, &pat->free_params);
		pat->n_swapped = suggest_rule_swapped(&in, &vs->sg->arena, &pat->swapped_ops);
		/* the rules of the patterns taken, then this one, last */
		sb_clear(&text);
		if (vs->above_yaml.n)
			sb_printf(&text, "%s---\n", sb_str(&vs->above_yaml));
		sb_puts(&text, pat->rule_yaml);
		ruleset_release(&one);
		fd_diags d1;
		diags_init(&d1);
		int rc = load_text(&one, pat->rule_name, sb_str(&text), &d1);
		if (rc < 0 && vs->d) {
			char line[1024];
			diag_warning(vs->d, (fd_srcpos){ 0 }, "the rule made for the pattern of %s does not load (%s): left out",
			             pat->rule_name, d1.n ? diag_format(&d1.items[0], line, sizeof line) : "no document");
		}
		diags_release(&d1);
		if (rc < 0)
			break;
		match_run(vs->ctx, &one, &mopt, &res);
		suggest_piece *got;
		int32_t n_got = firings(&res, one.n_rules - 1, pat->n_ops, &got);
		fired = n_got > 0;
		bool same = same_sets(inst, n_inst, got, n_got);
		free(inst);
		inst = got;
		n_inst = n_got;
		/* the last round only runs the rule made from the round before's
		 * firings: those are then the instances, verified or not */
		pat->verified = same && fired;
		if (same || !fired)
			break;
	}
	if (fired && n_inst > 0) {
		pat->n_instances = n_inst;
		pat->instances = arena_array(&vs->sg->arena, (size_t)n_inst, sizeof *pat->instances);
		for (int32_t i = 0; i < n_inst; i++) {
			pat->instances[i].graph = inst[i].graph;
			pat->instances[i].nodes = arena_array(&vs->sg->arena, (size_t)pat->n_ops, sizeof(int32_t));
			memcpy(pat->instances[i].nodes, inst[i].nodes, (size_t)pat->n_ops * sizeof(int32_t));
		}
		fd_estimate e;
		estimate_init(&e);
		estimate_compute(&e, &res, &vs->opt->est);
		fd_sint sum = sint_num(0);
		double tu = 0, tf = 0;
		bool times = true;
		for (size_t f = 0; f < e.n_fusions; f++) {
			if (res.fusions[f].rule != one.n_rules - 1)
				continue;   /* a pattern's taken before */
			sum = sint_add(sum, e.fusions[f].removed_f);
			pat->bytes += e.fusions[f].intermediate_bytes_removed;
			tu += e.fusions[f].time_unfused_s;
			tf += e.fusions[f].time_fused_s;
			times &= e.fusions[f].speedup > 0;
		}
		pat->bytes_f = sum;
		pat->speedup = times && tf > 0 ? tu / tf : 0;
		estimate_release(&e);
	}
	match_result_release(&res);
	ruleset_release(&one);
	sb_release(&text);
	free(inst);
	return fired && n_inst > 0;
}

/* The rules that came nearest on the first instance's nodes (original
 * ids), deepest first: the why-not across rounds of each rule. */
static void nearest_rules(fd_suggest *sg, const fd_rounds *rd, const fd_ruleset *rs, fd_suggest_pattern *pat)
{
	uint32_t best_score[SUGGEST_NEAR] = { 0 };
	const fd_suggest_instance *in = &pat->instances[0];
	fd_rounds_why *w = xmalloc(sizeof *w);
	for (int32_t r = 0; r < rs->n_rules; r++) {
		bool seen = false;
		for (int i = 0; i < pat->n_ops && !seen; i++)
			seen = rounds_rule_sees(rs, r, pat->op_types[i]);
		if (!seen)
			continue;
		uint32_t score = 0;
		bool have = false;
		fd_suggest_near cand = { r, 0, NULL };
		for (int i = 0; i < pat->n_ops; i++) {
			explain_rounds_why(rd, r, in->graph, in->nodes[i], w);
			if (w->fired || w->why.kind != WHY_ATTEMPT || w->round < 1)
				continue;
			const fd_round *rr = rounds_get(rd, w->round);
			uint32_t sc = w->why.attempt < rr->result->trace.n_attempts
			                  ? rr->result->trace.attempts[w->why.attempt].score + 1 : 1;
			if (!have || sc > score) {
				have = true;
				score = sc;
				cand.round = w->round;
				cand.line = arena_strdup(&sg->arena, w->line);
			}
		}
		if (!have)
			continue;
		int at = pat->n_near;
		while (at > 0 && best_score[at - 1] < score)
			at--;
		if (at >= SUGGEST_NEAR)
			continue;
		int last = pat->n_near < SUGGEST_NEAR ? pat->n_near : SUGGEST_NEAR - 1;
		for (int k = last; k > at; k--) {
			pat->near[k] = pat->near[k - 1];
			best_score[k] = best_score[k - 1];
		}
		pat->near[at] = cand;
		best_score[at] = score;
		if (pat->n_near < SUGGEST_NEAR)
			pat->n_near++;
	}
	free(w);
}

static void describe(fd_suggest *sg, const fd_model *m, fd_suggest_pattern *pat)
{
	const fd_graph *g = &m->graphs[pat->instances[0].graph];
	pat->op_types = arena_array(&sg->arena, (size_t)pat->n_ops, sizeof *pat->op_types);
	strbuf t = { 0 };
	for (int i = 0; i < pat->n_ops; i++) {
		pat->op_types[i] = g->nodes[pat->instances[0].nodes[i]].op_type;
		sb_printf(&t, "%s%s", i ? " -> " : "", pat->op_types[i]);
	}
	pat->title = arena_strdup(&sg->arena, sb_str(&t));
	sb_release(&t);
}

int suggest_fused_open(suggest_fused *fz, fd_rounds *rd, fd_diags *d)
{
	memset(fz, 0, sizeof *fz);
	const fd_model *m = rd->items[0]->model;
	rounds_make_all(rd, d);
	rewrite_init(&fz->rw);
	rounds_final_rewrite(rd, &fz->rw);
	if (rewrite_build_model(m, &fz->rw, &fz->fm, &fz->map, d) < 0) {
		rewrite_release(&fz->rw);
		return -1;
	}
	if (match_ctx_init(&fz->ctx, &fz->fm, rd->items[0]->ctx->canonicalize, d) < 0) {
		model_release(&fz->fm);
		rewrite_release(&fz->rw);
		return -1;
	}
	return 0;
}

void suggest_fused_close(suggest_fused *fz)
{
	match_ctx_release(&fz->ctx);
	model_release(&fz->fm);
	rewrite_release(&fz->rw);
}

void suggest_options_settle(fd_suggest_options *o)
{
	if (o->max_ops <= 0)
		o->max_ops = SUGGEST_MAX_OPS_DEFAULT;
	if (o->max_ops > SUGGEST_MAX_OPS_LIMIT)
		o->max_ops = SUGGEST_MAX_OPS_LIMIT;
	if (o->max_heavy <= 0)
		o->max_heavy = SUGGEST_MAX_HEAVY_DEFAULT;
	if (o->max_heavy > SUGGEST_MAX_OPS_LIMIT)
		o->max_heavy = SUGGEST_MAX_OPS_LIMIT;
	if (o->top <= 0)
		o->top = SUGGEST_TOP_DEFAULT;
}

void suggest_finish(fd_suggest *sg, fd_rounds *rd, const fd_ruleset *rs, const suggest_fused *fz,
                    fd_suggest_pattern *pats, int32_t n)
{
	const fd_model *m = rd->items[0]->model;
	/* back to the model's own node ids */
	for (int32_t k = 0; k < n; k++)
		for (int32_t i = 0; i < pats[k].n_instances; i++)
			for (int j = 0; j < pats[k].n_ops; j++)
				pats[k].instances[i].nodes[j] = fz->map.from[pats[k].instances[i].graph][pats[k].instances[i].nodes[j]];
	for (int32_t k = 0; k < n; k++) {
		describe(sg, m, &pats[k]);
		nearest_rules(sg, rd, rs, &pats[k]);
	}
	sg->patterns = pats;
	sg->n = n;
}
