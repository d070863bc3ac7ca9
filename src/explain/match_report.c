/* match_report.c — reading a match result: the `match` summary as text and
 * JSON (the keys of fusiondbg(1), OPTIONS --format). The graph-level `memory`
 * object of the JSON belongs to the estimates module; explain_match_json
 * leaves it out and writes per-fusion byte counts it can honestly compute. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/ordered_write.h"
#include "base/outbuf.h"
#include "match/match.h"
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "base/text.h"

static void explain_match_json_fields(FILE *f, const fd_match_result *r);

static void names_json(outbuf *o, const fd_graph *g, const int32_t *ids, int32_t n, bool tensors)
{
	ob_char(o, '[');
	for (int32_t k = 0; k < n; k++) {
		if (k)
			ob_add(o, ", ", 2);
		ob_json(o, tensors ? g->tensors[ids[k]].name : g->nodes[ids[k]].name);
	}
	ob_char(o, ']');
}

/* Sum of known sizes; -1 when any is unknown. */
static int64_t sum_bytes(const fd_graph *g, const int32_t *ids, int32_t n)
{
	int64_t total = 0;
	for (int32_t k = 0; k < n; k++) {
		int64_t b;
		if (!tensor_bytes(&g->tensors[ids[k]], &b) || g->tensors[ids[k]].dtype == DT_UNDEFINED)
			return -1;
		total += b;
	}
	return total;
}

void explain_match_json(FILE *f, const fd_match_result *r)
{
	fputs("{\n", f);
	explain_match_json_fields(f, r);
	fputs("\n}\n", f);
}

void explain_rule_json(FILE *f, const fd_rule *rule, const fd_rule_stats *st)
{
	fputs("{\"name\": ", f);
	json_write_string(f, rule->name);
	fprintf(f, ", \"priority\": %lld, \"enabled\": %s, \"attempts\": %lld, \"match_times\": %lld, \"effect_times\": %lld",
	        (long long)rule->priority, rule->enabled ? "true" : "false", (long long)st->attempts,
	        (long long)st->match_times, (long long)st->effect_times);
	if (st->declined || st->unchanged)   /* said only by rules that state conditions after the match */
		fprintf(f, ", \"declined\": %lld, \"unchanged\": %lld", (long long)st->declined, (long long)st->unchanged);
}

static void explain_fusion_json(FILE *f, const fd_match_result *r, size_t i, const char *keys, explain_nodes_json_fn nodes,
                         const void *arg)
{
	const fd_fusion *fu = &r->fusions[i];
	const fd_rule *rule = &r->rules->rules[fu->rule];
	const fd_graph *g = r->ctx->graphs[fu->graph].g;
	outbuf o;   /* flushed before a hook writes to f itself */
	ob_init(&o, f);
	ob_lit(&o, "{\"rule\": ");
	ob_json(&o, rule->name);
	ob_lit(&o, ", ");
	ob_lit(&o, keys ? keys : "");
	ob_lit(&o, "\"priority\": ");
	ob_int(&o, rule->priority);
	if (rule->refuses_model) {   /* only then: the key is absent from every other fusion */
		ob_lit(&o, ", \"refuses_model\": ");
		ob_json(&o, rule->refuses_model);
	}
	ob_lit(&o, ", \"graph\": ");
	ob_int(&o, fu->graph);
	ob_lit(&o, ", \"nodes\": ");
	if (nodes) {
		ob_flush(&o);
		nodes(f, arg, r, i);
	} else {
		names_json(&o, g, r->pool + fu->nodes, fu->n_nodes, false);
	}
	ob_lit(&o, ", \"target_op\": ");
	ob_json(&o, rule->target_op);
	ob_lit(&o, ", \"kernel_name\": ");
	ob_json(&o, rule->kernel_name);
	ob_lit(&o, ", \"inputs\": ");
	names_json(&o, g, r->pool + fu->inputs, fu->n_inputs, true);
	ob_lit(&o, ", \"outputs\": ");
	names_json(&o, g, r->pool + fu->outputs, fu->n_outputs, true);
	if (r->memory_json) {
		ob_lit(&o, ", \"memory\": ");
		ob_flush(&o);
		r->memory_json(f, r, i, r->memory_json_arg);
		fputc('}', f);
		return;
	}
	ob_lit(&o, ", \"memory\": {\"inputs_bytes\": ");
	ob_int(&o, sum_bytes(g, r->pool + fu->inputs, fu->n_inputs));
	ob_lit(&o, ", \"outputs_bytes\": ");
	ob_int(&o, sum_bytes(g, r->pool + fu->outputs, fu->n_outputs));
	ob_lit(&o, ", \"intermediates_bytes\": ");
	ob_int(&o, sum_bytes(g, r->pool + fu->intermediates, fu->n_intermediates));
	ob_lit(&o, ", \"workspace_bytes\": ");
	ob_int(&o, fu->workspace_bytes);
	ob_lit(&o, "}}");
	ob_flush(&o);
}

static void rejection_json(outbuf *o, describe_cache *dc, const fd_match_result *r, uint32_t attempt,
                           const char *keys)
{
	const fd_attempt *a = &r->trace.attempts[attempt];
	char line[1024];
	ob_lit(o, "{\"rule\": ");
	ob_json(o, r->rules->rules[a->rule].name);
	ob_lit(o, ", ");
	ob_lit(o, keys ? keys : "");
	ob_lit(o, "\"anchor\": ");
	if (a->anchor >= 0)
		ob_json(o, r->ctx->graphs[a->graph].g->nodes[match_unit_node(r->ctx, a->graph, a->anchor)].name);
	else
		ob_lit(o, "null");
	ob_lit(o, ", \"rung\": \"");
	ob_lit(o, rung_id((fd_rung)a->rung));
	ob_lit(o, "\", \"code\": \"");
	ob_lit(o, reason_code((fd_reason)a->reason));
	ob_lit(o, "\", \"reason\": ");
	explain_why_line_cached(r, dc, attempt, line, sizeof line);
	ob_json(o, strncmp(line, "why: ", 5) ? line : line + 5);
	ob_char(o, '}');
}

/* The fusions in pieces of FUSION_PIECE, on every core: each one's object
 * has its memory figures (the estimates' hook) and, over rounds, its
 * original nodes. */
#define FUSION_PIECE 1024

typedef struct fusion_pieces {
	const fd_match_result *r;
	const char *keys;
	explain_nodes_json_fn nodes;
	const void *arg;
	bool first;
} fusion_pieces;

static void fusions_piece(void *arg, size_t piece, FILE *f)
{
	const fusion_pieces *fp = arg;
	size_t n = fp->r->n_fusions, end = (piece + 1) * FUSION_PIECE < n ? (piece + 1) * FUSION_PIECE : n;
	for (size_t i = piece * FUSION_PIECE; i < end; i++) {
		fputs(i == 0 && fp->first ? "\n    " : ",\n    ", f);
		explain_fusion_json(f, fp->r, i, fp->keys, fp->nodes, fp->arg);
	}
}

void explain_fusions_json(FILE *f, const fd_match_result *r, const char *keys, explain_nodes_json_fn nodes,
                          const void *arg, bool *first)
{
	fusion_pieces fp = { r, keys, nodes, arg, *first };
	ordered_write(f, (r->n_fusions + FUSION_PIECE - 1) / FUSION_PIECE, fusions_piece, &fp);
	if (r->n_fusions)
		*first = false;
}

/* The rejections in pieces of REJECTION_PIECE attempts, on every core: each
 * one's line is an explain_why_line. */
#define REJECTION_PIECE 2048

typedef struct rejection_pieces {
	const fd_match_result *r;
	const char *keys;
	size_t first;    /* the attempt written first, without the comma (SIZE_MAX: none) */
} rejection_pieces;

static void rejections_piece(void *arg, size_t piece, FILE *f)
{
	const rejection_pieces *rp = arg;
	const fd_trace *t = &rp->r->trace;
	size_t end = (piece + 1) * REJECTION_PIECE < t->n_attempts ? (piece + 1) * REJECTION_PIECE : t->n_attempts;
	outbuf o;
	describe_cache dc;
	explain_cache_init(&dc);
	ob_init(&o, f);
	for (size_t i = piece * REJECTION_PIECE; i < end; i++) {
		if (t->attempts[i].rung == RUNG_FIRED)
			continue;
		ob_lit(&o, i == rp->first ? "\n    " : ",\n    ");
		rejection_json(&o, &dc, rp->r, (uint32_t)i, rp->keys);
	}
	ob_flush(&o);
}

void explain_rejections_json(FILE *f, const fd_match_result *r, const char *keys, bool *first)
{
	size_t n = r->trace.n_attempts, i = 0;
	while (i < n && r->trace.attempts[i].rung == RUNG_FIRED)
		i++;
	rejection_pieces rp = { r, keys, *first ? i : SIZE_MAX };
	ordered_write(f, (n + REJECTION_PIECE - 1) / REJECTION_PIECE, rejections_piece, &rp);
	if (i < n)
		*first = false;
}

static void explain_match_json_fields(FILE *f, const fd_match_result *r)
{
	const fd_ruleset *rs = r->rules;
	fputs("  \"model\": ", f);
	json_write_string(f, r->ctx->model->path);
	fputs(",\n  \"target\": ", f);
	json_write_string(f, r->target);
	fprintf(f, ",\n  \"canonicalize\": %s,\n  \"rules\": [", r->ctx->canonicalize ? "true" : "false");
	for (int32_t i = 0; i < r->n_rules; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		explain_rule_json(f, &rs->rules[r->order[i]], &r->stats[r->order[i]]);
		fputc('}', f);
	}
	fputs("\n  ],\n  \"fusions\": [", f);
	bool first = true;
	explain_fusions_json(f, r, NULL, NULL, NULL, &first);
	fputs("\n  ],\n  \"rejections\": [", f);
	first = true;
	explain_rejections_json(f, r, NULL, &first);
	fputs("\n  ]", f);
}

/* One column format for the header and the rows, the name column as wide as
 * the longest name (30 at least), so every heading stands over its numbers. */
void explain_rules_table(FILE *f, const fd_ruleset *rs, const int32_t *order, int32_t n, const fd_rule_stats *stats)
{
	int width = 30;
	for (int32_t i = 0; i < n; i++) {
		int len = (int)strlen(rs->rules[order[i]].name);
		width = len > width ? len : width;
	}
	txt_fprintf(f, "\n%-*s %8s %9s %12s %13s\n", width + 2, "rules (run order)", "priority", "attempts", "match_times",
	            "effect_times");
	for (int32_t i = 0; i < n; i++) {
		int32_t ri = order[i];
		const fd_rule *rule = &rs->rules[ri];
		const fd_rule_stats *st = &stats[ri];
		char stage[96] = "";   /* the matches its conditions after the match decided */
		if (st->declined || st->unchanged)
			snprintf(stage, sizeof stage, "  (%lld declined, %lld without change)", (long long)st->declined,
			         (long long)st->unchanged);
		txt_fprintf(f, "  %-*s %8lld %9lld %12lld %13lld%s%s\n", width, rule->name, (long long)rule->priority,
		        (long long)st->attempts, (long long)st->match_times, (long long)st->effect_times,
		        !rule->enabled ? "  (disabled)" : st->by_rung[RUNG_NOT_RUN] ? "  (not run)" : "", stage);
	}
}

void explain_fusions_text(FILE *f, const fd_match_result *r, const char *indent, explain_node_name_fn name,
                          const void *arg)
{
	const fd_ruleset *rs = r->rules;
	char buf[1024];
	for (size_t i = 0; i < r->n_fusions; i++) {
		const fd_fusion *fu = &r->fusions[i];
		const fd_rule *rule = &rs->rules[fu->rule];
		const fd_graph *g = r->ctx->graphs[fu->graph].g;
		txt_fprintf(f, "%s  %s: ", indent, rule->name);
		for (int32_t k = 0; k < fu->n_nodes; k++) {
			int32_t nd = r->pool[fu->nodes + k];
			txt_fprintf(f, "%s%s", k ? ", " : "", name ? name(arg, fu->graph, nd, buf, sizeof buf) : g->nodes[nd].name);
		}
		txt_fprintf(f, " -> %s", rule->target_op ? rule->target_op : "?");
		if (rule->kernel_name)
			txt_fprintf(f, " (kernel %s)", rule->kernel_name);
		if (fu->graph)
			txt_fprintf(f, " [graph %s]", g->name ? g->name : "?");
		fputc('\n', f);
	}
}

void explain_rejections_text(FILE *f, const fd_match_result *r, const char *indent, bool *header)
{
	const fd_ruleset *rs = r->rules;
	/* rejections: per rule and code, with the first example */
	for (int32_t i = 0; i < r->n_rules; i++) {
		int32_t ri = r->order[i];
		int64_t count[REASON_COUNT] = { 0 };
		uint32_t example[REASON_COUNT];
		for (size_t a = 0; a < r->trace.n_attempts; a++) {
			const fd_attempt *at = &r->trace.attempts[a];
			if (at->rule != ri || at->rung == RUNG_FIRED || at->reason >= REASON_COUNT)
				continue;
			if (!count[at->reason]++)
				example[at->reason] = (uint32_t)a;
		}
		for (int c = 0; c < REASON_COUNT; c++) {
			if (!count[c])
				continue;
			if (!*header) {
				txt_fprintf(f, "\n%srejections (rule, code, count, first)\n", indent);
				*header = true;
			}
			char line[1024];
			explain_why_line(r, example[c], line, sizeof line);
			txt_fprintf(f, "%s  %s %s x%lld: %s\n", indent, rs->rules[ri].name, reason_code((fd_reason)c),
			        (long long)count[c], strncmp(line, "why: ", 5) ? line : line + 5);
		}
	}
}

void explain_match_text(FILE *f, const fd_match_result *r)
{
	const char *path = r->ctx->model->path ? r->ctx->model->path : "";
	const char *base = strrchr(path, '/');
	txt_fprintf(f, "model %s, target %s, %d rule%s, %zu fusion%s%s\n", base ? base + 1 : path, r->target,
	        r->n_rules, r->n_rules == 1 ? "" : "s", r->n_fusions, r->n_fusions == 1 ? "" : "s",
	        r->ctx->canonicalize ? "" : ", canonical forms off");
	char refused[512];
	if (explain_refused_model(r, refused, sizeof refused))
		txt_fprintf(f, "%s\n", refused);
	explain_rules_table(f, r->rules, r->order, r->n_rules, r->stats);
	if (r->n_fusions)
		txt_fprintf(f, "\nfusions\n");
	explain_fusions_text(f, r, "", NULL, NULL);
	bool header = false;
	explain_rejections_text(f, r, "", &header);
}
