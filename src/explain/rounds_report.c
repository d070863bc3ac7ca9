/* rounds_report.c — reading the rounds of a run (rounds/rounds.h): the
 * `match` summary, the text trace and the JSON over every round, and the
 * words for a node made in a round. A run of one round reads exactly as
 * match_report.c and trace_write.c write it (the JSON adds "round" and
 * "rounds"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/text.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "explain/explain.h"

/* ---- words --------------------------------------------------------------------- */

/* The fused node that made node (of round number), following kept nodes
 * back: *made_in its round (the round whose fusion made it), or NULL. */
static const fd_fused_node *made_node(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node,
                                      int32_t *made_in)
{
	for (int32_t k = number; k > 1; k--) {
		int32_t prev;
		const fd_fused_node *fn = rounds_made_by(rd, k, graph, node, &prev);
		if (fn) {
			*made_in = k - 1;
			return fn;
		}
		node = prev;
	}
	return NULL;
}

const char *explain_rounds_node(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node, char *buf,
                                size_t size)
{
	const fd_round *r = rounds_get(rd, number);
	if (!r || graph < 0 || graph >= r->model->n_graphs || node < 0 || node >= r->model->graphs[graph].n_nodes) {
		snprintf(buf, size, "-");
		return buf;
	}
	const fd_node *n = &r->model->graphs[graph].nodes[node];
	int32_t made_in;
	if (!made_node(rd, number, graph, node, &made_in)) {
		snprintf(buf, size, "%s", n->name);
		return buf;
	}
	fd_id_vec orig = { 0 };
	rounds_original_nodes(rd, number, graph, node, &orig);
	const fd_graph *g0 = &rd->items[0]->model->graphs[graph];
	size_t at = (size_t)snprintf(buf, size, "%s (%s of ", n->name, n->op_type);
	for (size_t k = 0; k < orig.n && at < size; k++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? ", " : "", g0->nodes[orig.items[k]].name);
	if (at < size)
		snprintf(buf + at, size - at, ")");
	vec_release(&orig);
	return buf;
}

const char *explain_rounds_origin(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node, char *buf,
                                  size_t size)
{
	int32_t made_in;
	buf[0] = '\0';
	const fd_fused_node *fn = made_node(rd, number, graph, node, &made_in);
	if (!fn)
		return NULL;
	const fd_round *by = rounds_get(rd, made_in);
	const fd_graph *g = &by->model->graphs[graph];
	const fd_fusion *fu = &by->result->fusions[fn->fusion];
	size_t at = (size_t)snprintf(buf, size, "%s (%s) was made from ", fn->name, fn->op_type);
	for (int32_t k = 0; k < fn->n_members && at < size; k++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? ", " : "", g->nodes[fn->members[k]].name);
	if (at < size)
		snprintf(buf + at, size - at, " by %s in round %d", rd->rules->rules[fu->rule].name, (int)made_in);
	return buf;
}

/* ---- text ----------------------------------------------------------------------- */

typedef struct round_arg {
	const fd_rounds *rd;
	int32_t number;
} round_arg;

static const char *round_node_words(const void *arg, int32_t graph, int32_t node, char *buf, size_t size)
{
	const round_arg *a = arg;
	return explain_rounds_node(a->rd, a->number, graph, node, buf, size);
}

static void sum_stats(const fd_rounds *rd, fd_rule_stats *sum)
{
	for (int32_t i = 0; i < rd->n; i++) {
		const fd_match_result *r = rd->items[i]->result;
		for (int32_t k = 0; k < r->n_rules; k++) {
			sum[k].attempts += r->stats[k].attempts;
			sum[k].match_times += r->stats[k].match_times;
			sum[k].effect_times += r->stats[k].effect_times;
			sum[k].declined += r->stats[k].declined;
			sum[k].unchanged += r->stats[k].unchanged;
			for (int g = 0; g < RUNG_COUNT; g++)
				sum[k].by_rung[g] += r->stats[k].by_rung[g];
		}
	}
}

static void rule_names(FILE *f, const fd_ruleset *rs, const int32_t *rules, size_t n)
{
	for (size_t k = 0; k < n; k++)
		txt_fprintf(f, "%s%s", k ? ", " : "", rs->rules[rules[k]].name);
}

void explain_rounds_settle_text(FILE *f, const fd_rounds *rd)
{
	if (rd->settled || rd->unsettled < 0)
		return;
	const fd_pass *p = &rd->passes[rd->unsettled];
	if (rd->repeated) {
		txt_fprintf(f, "not settled: %s%s%sround %d only re-fused what round %d made (it would repeat up to "
		            "--max-rounds %d): ", *p->name ? "pass " : "", p->name, *p->name ? " " : "", (int)rd->repeated,
		            (int)rd->repeated - 1, (int)rd->max_rounds);
		rule_names(f, rd->rules, rd->keep_firing.items, rd->keep_firing.n);
		txt_fprintf(f, " keep%s re-fusing %s own output\n", rd->keep_firing.n == 1 ? "s" : "",
		            rd->keep_firing.n == 1 ? "its" : "their");
		return;
	}
	txt_fprintf(f, "not settled: %s%s%sstill fired in round %d, the last of %d allowed (--max-rounds): ",
	        *p->name ? "pass " : "", p->name, *p->name ? " " : "", (int)(p->first_round + p->n_rounds), (int)rd->max_rounds);
	rule_names(f, rd->rules, rd->keep_firing.items, rd->keep_firing.n);
	txt_fprintf(f, " keep%s firing\n", rd->keep_firing.n == 1 ? "s" : "");
}

static void passes_text(FILE *f, const fd_rounds *rd)
{
	if (rd->n_passes < 2 && !rd->pass_file)
		return;
	txt_fprintf(f, "passes%s%s:\n", rd->pass_file ? " from " : "", rd->pass_file ? rd->pass_file : "");
	for (int32_t p = 0; p < rd->n_passes; p++) {
		const fd_pass *ps = &rd->passes[p];
		txt_fprintf(f, "  %s: ", ps->name);
		rule_names(f, rd->rules, ps->rules, (size_t)ps->n_rules);
		txt_fprintf(f, " — round%s %d", ps->n_rounds == 1 ? "" : "s", (int)ps->first_round + 1);
		if (ps->n_rounds > 1)
			txt_fprintf(f, "-%d", (int)(ps->first_round + ps->n_rounds));
		txt_fprintf(f, "%s\n", ps->settled ? "" : ", not settled");
	}
	int32_t left = 0;
	for (int32_t i = 0; i < rd->rules->n_rules; i++)
		left += rd->rule_pass[i] < 0;
	if (left) {
		txt_fprintf(f, "  not in any pass (not run):");
		for (int32_t i = 0, k = 0; i < rd->rules->n_rules; i++)
			if (rd->rule_pass[i] < 0)
				txt_fprintf(f, "%s %s", k++ ? "," : "", rd->rules->rules[i].name);
		fputc('\n', f);
	}
}

static const char *round_title(const fd_rounds *rd, const fd_round *r, char *buf, size_t size)
{
	const fd_pass *p = &rd->passes[r->pass];
	if (*p->name)
		snprintf(buf, size, "round %d (%s, step %d)", (int)r->number, p->name, (int)r->step);
	else
		snprintf(buf, size, "round %d", (int)r->number);
	return buf;
}

void explain_rounds_text(FILE *f, const fd_rounds *rd)
{
	const fd_match_result *r1 = rd->items[0]->result;
	if (rd->n == 1 && rd->n_passes == 1 && !rd->pass_file) {
		explain_match_text(f, r1);
		return;
	}
	const char *path = r1->ctx->model->path ? r1->ctx->model->path : "";
	const char *base = strrchr(path, '/');
	size_t total = rounds_n_fusions(rd);
	txt_fprintf(f, "model %s, target %s, %d rule%s, %zu fusion%s in %d round%s%s\n", base ? base + 1 : path,
	        r1->target, r1->n_rules, r1->n_rules == 1 ? "" : "s", total, total == 1 ? "" : "s", (int)rd->n,
	        rd->n == 1 ? "" : "s", r1->ctx->canonicalize ? "" : ", canonical forms off");
	char refused[512];
	if (explain_rounds_refused_model(rd, refused, sizeof refused))
		txt_fprintf(f, "%s\n", refused);
	explain_rounds_settle_text(f, rd);
	passes_text(f, rd);
	fd_rule_stats *sum = xcalloc((size_t)r1->n_rules + 1, sizeof *sum);
	sum_stats(rd, sum);
	explain_rules_table(f, rd->rules, r1->order, r1->n_rules, sum);
	free(sum);
	char title[128];
	for (int32_t i = 0; i < rd->n; i++) {
		const fd_round *r = rd->items[i];
		round_arg arg = { rd, r->number };
		txt_fprintf(f, "\n%s: %zu fusion%s; ran ", round_title(rd, r, title, sizeof title), r->result->n_fusions,
		        r->result->n_fusions == 1 ? "" : "s");
		for (int32_t k = 0, n = 0; k < r1->n_rules; k++)
			if (r->ran[r1->order[k]])
				txt_fprintf(f, "%s%s", n++ ? ", " : "", rd->rules->rules[r1->order[k]].name);
		fputc('\n', f);
		if (r->result->n_fusions)
			txt_fprintf(f, "  fusions\n");
		explain_fusions_text(f, r->result, "  ", round_node_words, &arg);
		bool header = false;
		explain_rejections_text(f, r->result, "  ", &header);
	}
}

void explain_rounds_trace_text(FILE *f, const fd_rounds *rd)
{
	if (rd->n == 1 && rd->n_passes == 1 && !rd->pass_file) {
		explain_trace_text(f, rd->items[0]->result);
		return;
	}
	char title[128];
	for (int32_t i = 0; i < rd->n; i++) {
		if (i)
			fputc('\n', f);
		txt_fprintf(f, "## %s of %d\n", round_title(rd, rd->items[i], title, sizeof title), (int)rd->n);
		explain_trace_text(f, rd->items[i]->result);
	}
}

/* ---- JSON ------------------------------------------------------------------------- */

static void original_names_json(FILE *f, const void *arg, const fd_match_result *r, size_t fusion)
{
	const round_arg *a = arg;
	const fd_fusion *fu = &r->fusions[fusion];
	const fd_graph *g0 = &a->rd->items[0]->model->graphs[fu->graph];
	const fd_graph *g = r->ctx->graphs[fu->graph].g;
	fd_id_vec all = { 0 }, one = { 0 };
	for (int32_t k = 0; k < fu->n_nodes; k++) {
		rounds_original_nodes(a->rd, a->number, fu->graph, r->pool[fu->nodes + k], &one);
		for (size_t j = 0; j < one.n; j++)
			vec_push(&all, one.items[j]);
	}
	fputc('[', f);
	for (size_t k = 0; k < all.n; k++) {
		fputs(k ? ", " : "", f);
		json_write_string(f, g0->nodes[all.items[k]].name);
	}
	fputs("], \"members\": [", f);
	for (int32_t k = 0; k < fu->n_nodes; k++) {
		fputs(k ? ", " : "", f);
		json_write_string(f, g->nodes[r->pool[fu->nodes + k]].name);
	}
	/* final: no later round fused its node again (a group of the compiled graph) */
	fprintf(f, "], \"final\": %s", rounds_fusion_is_final(a->rd, a->number, fusion) ? "true" : "false");
	vec_release(&all);
	vec_release(&one);
}

static void rounds_object(FILE *f, const fd_rounds *rd)
{
	fprintf(f, ",\n  \"rounds\": {\"count\": %d, \"settled\": %s, \"max_rounds\": %d, \"passes\": [", (int)rd->n,
	        rd->settled ? "true" : "false", (int)rd->max_rounds);
	for (int32_t p = 0; p < rd->n_passes; p++) {
		const fd_pass *ps = &rd->passes[p];
		fputs(p ? ", " : "", f);
		fputs("{\"name\": ", f);
		json_write_string(f, ps->name);
		fputs(", \"rules\": [", f);
		for (int32_t k = 0; k < ps->n_rules; k++) {
			fputs(k ? ", " : "", f);
			json_write_string(f, rd->rules->rules[ps->rules[k]].name);
		}
		fprintf(f, "], \"first_round\": %d, \"rounds\": %d, \"settled\": %s}", (int)ps->first_round + 1,
		        (int)ps->n_rounds, ps->settled ? "true" : "false");
	}
	fputs("], \"keep_firing\": [", f);
	for (size_t k = 0; k < rd->keep_firing.n; k++) {
		fputs(k ? ", " : "", f);
		json_write_string(f, rd->rules->rules[rd->keep_firing.items[k]].name);
	}
	fputs("]}", f);
}

void explain_rounds_json_fields(FILE *f, const fd_rounds *rd)
{
	const fd_match_result *r1 = rd->items[0]->result;
	fd_rule_stats *sum = xcalloc((size_t)r1->n_rules + 1, sizeof *sum);
	sum_stats(rd, sum);
	fputs("  \"model\": ", f);
	json_write_string(f, r1->ctx->model->path);
	fputs(",\n  \"target\": ", f);
	json_write_string(f, r1->target);
	fprintf(f, ",\n  \"canonicalize\": %s,\n  \"rules\": [", r1->ctx->canonicalize ? "true" : "false");
	for (int32_t i = 0; i < r1->n_rules; i++) {
		int32_t ri = r1->order[i];
		fputs(i ? ",\n    " : "\n    ", f);
		explain_rule_json(f, &rd->rules->rules[ri], &sum[ri]);
		fprintf(f, ", \"pass\": ");
		json_write_string(f, rd->rule_pass[ri] >= 0 ? rd->passes[rd->rule_pass[ri]].name : NULL);
		fputs(", \"fired_in_rounds\": [", f);
		for (int32_t k = 0, n = 0; k < rd->n; k++)
			if (rd->items[k]->result->stats[ri].effect_times)
				fprintf(f, "%s%d", n++ ? ", " : "", (int)k + 1);
		fputs("]}", f);
	}
	free(sum);
	char keys[48];
	fputs("\n  ],\n  \"fusions\": [", f);
	bool first = true;
	for (int32_t k = 0; k < rd->n; k++) {
		const fd_match_result *r = rd->items[k]->result;
		round_arg arg = { rd, k + 1 };
		snprintf(keys, sizeof keys, "\"round\": %d, ", (int)k + 1);
		explain_fusions_json(f, r, keys, original_names_json, &arg, &first);
	}
	fputs("\n  ],\n  \"rejections\": [", f);
	first = true;
	for (int32_t k = 0; k < rd->n; k++) {
		const fd_match_result *r = rd->items[k]->result;
		snprintf(keys, sizeof keys, "\"round\": %d, ", (int)k + 1);
		explain_rejections_json(f, r, keys, &first);
	}
	fputs("\n  ]", f);
	rounds_object(f, rd);
}

void explain_rounds_trace_json(FILE *f, const fd_rounds *rd)
{
	bool first = true;
	fputs("{\"composites\": [", f);
	explain_trace_json_composites(f, rd->items[0]->result);
	fputs("], \"attempts\": [", f);
	for (int32_t k = 0; k < rd->n; k++)
		explain_trace_json_attempts(f, rd->items[k]->result, k + 1, &first);
	fputs("]}\n", f);
}
