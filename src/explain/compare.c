/* compare.c — the compiler's result against fusiondbg's (compare.h): the
 * groups side by side, the pass counts side by side, and both in words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/text.h"
#include "base/json.h"
#include "explain/compare.h"
#include "explain/compare_internal.h"
#include "explain/explain.h"

static const char *const kind_names[] = {
#define NAME(id, name) [CMP_##id] = name,
	FD_CMP_KINDS(NAME)
#undef NAME
};

static const char *compare_kind_name(fd_cmp_kind k)
{
	return k < CMP_KIND_COUNT ? kind_names[k] : "?";
}

void compare_init(fd_comparison *c)
{
	memset(c, 0, sizeof *c);
	c->differences_shapes_onnx = -1;
	arena_init(&c->arena);
	compiled_init(&c->compiled);
	rewrite_init(&c->final);
}

void compare_release(fd_comparison *c)
{
	vec_release(&c->rows);
	vec_release(&c->passes);
	vec_release(&c->graphs);
	vec_release(&c->dump_groups);
	compiled_release(&c->compiled);
	rewrite_release(&c->final);
	arena_release(&c->arena);
	memset(c, 0, sizeof *c);
}

size_t compare_differences(const fd_comparison *c)
{
	return c->record ? c->n_pass_differences : c->rows.n - c->counts[CMP_SAME];
}

/* ---- groups ----------------------------------------------------------------------- */

static bool holds(const int32_t *ids, int32_t n, int32_t x)
{
	for (int32_t k = 0; k < n; k++)
		if (ids[k] == x)
			return true;
	return false;
}

/* a's ids that b lacks */
static int32_t *minus(fd_arena *ar, const int32_t *a, int32_t na, const int32_t *b, int32_t nb, int32_t *n)
{
	int32_t *out = arena_array(ar, (size_t)na + 1, sizeof *out);
	*n = 0;
	for (int32_t k = 0; k < na; k++)
		if (!holds(b, nb, a[k]))
			out[(*n)++] = a[k];
	return out;
}

/* The node a compiler group is named after: the replaced node whose name
 * the fused node kept, else its first. */
static int32_t group_anchor(const fd_model *m, const fd_compiled_group *g)
{
	for (int32_t k = 0; k < g->n_replaced; k++)
		if (!strcmp(m->graphs[g->graph].nodes[g->replaced[k]].name, g->fused_node))
			return g->replaced[k];
	return g->replaced[0];
}

/* fusiondbg's best answer for why node was not fused as the compiler did:
 * over the rules that have an op of the node's type, an attempt that reached
 * it (the deepest), else a rule that did not run, else the first answer. */
static const char *why_text(fd_comparison *c, const fd_rounds *rd, int32_t graph, int32_t node)
{
	const char *type = rd->items[0]->model->graphs[graph].nodes[node].op_type;
	fd_rounds_why best, w;
	int rank_best = -1;
	for (int32_t rule = 0; rule < rd->rules->n_rules; rule++) {
		if (!rounds_rule_sees(rd->rules, rule, type))
			continue;
		explain_rounds_why(rd, rule, graph, node, &w);
		int rank = w.why.kind == WHY_ATTEMPT ? 3 : w.why.kind == WHY_NOT_RUN ? 2 : w.why.kind == WHY_FUSED ? 1 : 0;
		bool deeper = rank == 3 && rank_best == 3 && w.round && best.round &&
		              rd->items[w.round - 1]->result->trace.attempts[w.why.attempt].score >
		              rd->items[best.round - 1]->result->trace.attempts[best.why.attempt].score;
		if (rank > rank_best || deeper) {
			best = w;
			rank_best = rank;
		}
	}
	if (rank_best < 0) {
		explain_rounds_why(rd, -1, graph, node, &best);
		if (!best.line[0])
			snprintf(best.line, sizeof best.line, "no rule has an op of type %s", type);
	}
	return arena_strdup(&c->arena, strncmp(best.line, "why: ", 5) ? best.line : best.line + 5);
}

static int32_t fused_rule(const fd_rounds *rd, const fd_fused_node *fn)
{
	const fd_round *r = rounds_get(rd, fn->round);
	return r && fn->fusion >= 0 ? r->result->fusions[fn->fusion].rule : -1;
}

void compare_optimized(fd_comparison *c, const fd_rounds *rd, const fd_model *opt, const char *with)
{
	const fd_model *m = rd->items[0]->model;
	c->with = with;
	c->record = false;
	compiled_groups(m, opt, &c->compiled);
	compare_rows(c, rd);
}

void compare_rows(fd_comparison *c, const fd_rounds *rd)
{
	const fd_model *m = rd->items[0]->model;
	rounds_final_rewrite(rd, &c->final);
	int32_t **pred = arena_array(&c->arena, (size_t)m->n_graphs + 1, sizeof *pred);
	for (int32_t g = 0; g < m->n_graphs; g++) {
		pred[g] = arena_array(&c->arena, (size_t)m->graphs[g].n_nodes + 1, sizeof **pred);
		for (int32_t i = 0; i < m->graphs[g].n_nodes; i++)
			pred[g][i] = -1;
	}
	for (size_t k = 0; k < c->final.nodes.n; k++) {
		const fd_fused_node *fn = &c->final.nodes.items[k];
		for (int32_t j = 0; j < fn->n_members; j++)
			pred[fn->graph][fn->members[j]] = (int32_t)k;
	}
	bool *reported = arena_array(&c->arena, c->final.nodes.n + 1, sizeof *reported);
	for (size_t gi = 0; gi < c->compiled.groups.n; gi++) {
		const fd_compiled_group *g = &c->compiled.groups.items[gi];
		int32_t p = -1;
		bool several = false;
		for (int32_t k = 0; k < g->n_replaced; k++) {
			int32_t q = pred[g->graph][g->replaced[k]];
			if (q >= 0 && p >= 0 && q != p)
				several = true;
			if (q >= 0 && p < 0)
				p = q;
		}
		fd_cmp_row row = { .graph = g->graph, .group = (int32_t)gi, .predicted = p,
		                   .node = group_anchor(m, g) };
		if (p < 0) {
			row.kind = CMP_COMPILER_ONLY;
			row.why = why_text(c, rd, g->graph, row.node);
		} else {
			const fd_fused_node *fn = &c->final.nodes.items[p];
			reported[p] = true;
			row.only_compiler = minus(&c->arena, g->replaced, g->n_replaced, fn->members, fn->n_members,
			                          &row.n_only_compiler);
			row.only_predicted = minus(&c->arena, fn->members, fn->n_members, g->replaced, g->n_replaced,
			                           &row.n_only_predicted);
			row.kind = !several && !row.n_only_compiler && !row.n_only_predicted ? CMP_SAME : CMP_DIFFERENT;
			if (row.kind == CMP_DIFFERENT && row.n_only_compiler)
				row.why = why_text(c, rd, g->graph, row.only_compiler[0]);
		}
		c->counts[row.kind]++;
		vec_push(&c->rows, row);
	}
	for (size_t k = 0; k < c->final.nodes.n; k++) {
		if (reported[k])
			continue;
		const fd_fused_node *fn = &c->final.nodes.items[k];
		int32_t gi = -1;
		for (int32_t j = 0; j < fn->n_members && gi < 0; j++)
			gi = c->compiled.group_of[fn->graph][fn->members[j]];
		fd_cmp_row row = { .kind = gi >= 0 ? CMP_DIFFERENT : CMP_PREDICTED_ONLY, .graph = fn->graph, .group = gi,
		                   .predicted = (int32_t)k, .node = fn->members[0] };
		if (gi >= 0) {   /* a compiler group that another of fusiondbg's fusions was set against */
			const fd_compiled_group *g = &c->compiled.groups.items[gi];
			row.only_compiler = minus(&c->arena, g->replaced, g->n_replaced, fn->members, fn->n_members,
			                          &row.n_only_compiler);
			row.only_predicted = minus(&c->arena, fn->members, fn->n_members, g->replaced, g->n_replaced,
			                           &row.n_only_predicted);
		}
		c->counts[row.kind]++;
		vec_push(&c->rows, row);
	}
}

/* ---- words -------------------------------------------------------------------------- */

static void node_list(FILE *f, const fd_graph *g, const int32_t *ids, int32_t n)
{
	for (int32_t k = 0; k < n; k++)
		txt_fprintf(f, "%s%s", k ? ", " : "", g->nodes[ids[k]].name);
	if (!n)
		fputc('-', f);
}

static void compiler_words(FILE *f, const fd_comparison *c, const fd_model *m, const fd_compiled_group *g)
{
	if (c->dump) {
		compare_dump_group_words(f, c, m, (size_t)(g - c->compiled.groups.items));
		return;
	}
	txt_fprintf(f, "%s (%s%s%s%s%s%s) replaced ", g->fused_node, *g->domain ? g->domain : "", *g->domain ? "." : "",
	        g->op_type, g->activation ? ", activation " : "", g->activation ? g->activation : "", "");
	node_list(f, &m->graphs[g->graph], g->replaced, g->n_replaced);
}

static void predicted_words(FILE *f, const fd_rounds *rd, const fd_model *m, const fd_fused_node *fn)
{
	int32_t rule = fused_rule(rd, fn);
	txt_fprintf(f, "%s", rule >= 0 ? rd->rules->rules[rule].name : "?");
	if (rd->n > 1)
		txt_fprintf(f, " (round %d)", (int)fn->round);
	fputs(": ", f);
	node_list(f, &m->graphs[fn->graph], fn->members, fn->n_members);
	txt_fprintf(f, " -> %s", fn->op_type);
}

static void row_text(FILE *f, const fd_comparison *c, const fd_rounds *rd, const fd_cmp_row *r)
{
	const fd_model *m = rd->items[0]->model;
	const fd_compiled_group *g = r->group >= 0 ? &c->compiled.groups.items[r->group] : NULL;
	const fd_fused_node *fn = r->predicted >= 0 ? &c->final.nodes.items[r->predicted] : NULL;
	if (g) {
		fputs("compiler ", f);
		compiler_words(f, c, m, g);
	}
	if (g && fn)
		fputs("; ", f);
	if (fn) {
		fputs("fusiondbg ", f);
		predicted_words(f, rd, m, fn);
	}
	if (r->graph > 0)
		txt_fprintf(f, " [graph %s]", m->graphs[r->graph].name ? m->graphs[r->graph].name : "?");
}

char *compare_row_text(const fd_comparison *c, const fd_rounds *rd, size_t row, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");
	if (!f) {
		snprintf(buf, size, "?");
		return buf;
	}
	const fd_cmp_row *r = &c->rows.items[row];
	txt_fprintf(f, "%-14s ", compare_kind_name(r->kind));
	row_text(f, c, rd, r);
	fclose(f);
	buf[size - 1] = '\0';
	return buf;
}

static bool row_failed(const fd_comparison *c, const fd_cmp_row *r)
{
	return c->dump && r->group >= 0 && c->dump_groups.items[r->group].failed;
}

/* A dump's header: what its record holds, what could not be compared and why. */
static void dump_head(FILE *f, const fd_comparison *c, const char *model)
{
	txt_fprintf(f, "compare %s with %s (GE graph dump, its nodes found %s): the compiler's record holds %d UB "
	            "group%s (%d failed to compile) and %d graph fusion%s; %zu compared, fusiondbg predicts %zu\n",
	            model, c->with, c->by_name ? "by name" : "through their original names", (int)c->dump_ub,
	            c->dump_ub == 1 ? "" : "s", (int)c->dump_ub_failed, (int)c->dump_fusions,
	            c->dump_fusions == 1 ? "" : "s", c->compiled.groups.n, c->final.nodes.n);
	for (int k = 0; k < CMP_UNMAPPED_COUNT; k++)
		if (c->unmapped[k])
			txt_fprintf(f, "  not compared: %d group%s: %s\n", (int)c->unmapped[k], c->unmapped[k] == 1 ? "" : "s",
			            compare_unmapped_words(k));
	int32_t partial = 0, absent = 0;
	for (size_t k = 0; k < c->dump_groups.n; k++) {
		partial += c->dump_groups.items[k].n_absent > 0;
		absent += c->dump_groups.items[k].n_absent;
	}
	if (partial)
		txt_fprintf(f, "  compared on the nodes that map: %d group%s with %d node%s not in the model (the "
		            "compiler's own)\n", (int)partial, partial == 1 ? "" : "s", (int)absent, absent == 1 ? "" : "s");
}

static const char *const headings[] = {
	[CMP_COMPILER_ONLY] = "the compiler fused, fusiondbg predicts no fusion",
	[CMP_PREDICTED_ONLY] = "fusiondbg predicts a fusion the compiler did not make",
	[CMP_DIFFERENT] = "both fused, not the same nodes",
	[CMP_SAME] = "the same nodes",
};

void compare_write_text(FILE *f, const fd_comparison *c, const fd_rounds *rd)
{
	if (c->record) {
		compare_record_write_text(f, c);
		return;
	}
	const fd_model *m = rd->items[0]->model;
	const char *base = strrchr(m->path, '/');
	if (c->dump)
		dump_head(f, c, base ? base + 1 : m->path);
	else
		txt_fprintf(f, "compare %s with %s: the compiler made %zu fused node%s, fusiondbg predicts %zu\n",
		        base ? base + 1 : m->path, c->with, c->compiled.groups.n, c->compiled.groups.n == 1 ? "" : "s",
		        c->final.nodes.n);
	txt_fprintf(f, "  same %zu, compiler only %zu, fusiondbg only %zu, different %zu\n", c->counts[CMP_SAME],
	        c->counts[CMP_COMPILER_ONLY], c->counts[CMP_PREDICTED_ONLY], c->counts[CMP_DIFFERENT]);
	bool any = false;
	for (int k = 0; k < GONE_COUNT; k++)
		if (c->compiled.gone[k]) {
			txt_fprintf(f, "%s%s %lld", any ? ", " : "  the compiler also removed (not fusions): ", compiled_gone_name(k),
			        (long long)c->compiled.gone[k]);
			any = true;
		}
	if (any)
		fputc('\n', f);
	if (c->differences_shapes_onnx >= 0)
		txt_fprintf(f, "  with --shapes onnx (the shapes ONNX's own inference derives, which is what onnxruntime "
		            "knows) %lld of these %zu differences remain: try it\n", (long long)c->differences_shapes_onnx,
		            compare_differences(c));
	static const fd_cmp_kind order[] = { CMP_COMPILER_ONLY, CMP_PREDICTED_ONLY, CMP_DIFFERENT, CMP_SAME };
	/* a dump's groups that failed to compile are listed apart, last */
	size_t failed[CMP_KIND_COUNT] = { 0 }, n_failed = 0;
	for (size_t k = 0; k < c->rows.n; k++)
		if (row_failed(c, &c->rows.items[k]) && !(c->differences_only && c->rows.items[k].kind == CMP_SAME)) {
			failed[c->rows.items[k].kind]++;
			n_failed++;
		}
	for (size_t o = 0; o <= sizeof order / sizeof *order; o++) {
		bool apart = o == sizeof order / sizeof *order;
		size_t n = apart ? n_failed : c->counts[order[o]] - failed[order[o]];
		if (!n || (!apart && c->differences_only && order[o] == CMP_SAME))
			continue;
		txt_fprintf(f, "\n%s (%zu)\n", apart ? "matched, failed to compile (the compiler's UB groups)" :
		            headings[order[o]], n);
		for (size_t k = 0; k < c->rows.n; k++) {
			const fd_cmp_row *r = &c->rows.items[k];
			if (apart ? !row_failed(c, r) || (c->differences_only && r->kind == CMP_SAME) :
			            r->kind != order[o] || row_failed(c, r))
				continue;
			fputs("  ", f);
			if (apart)
				txt_fprintf(f, "%s: ", compare_kind_name(r->kind));
			row_text(f, c, rd, r);
			fputc('\n', f);
			const fd_graph *g = &m->graphs[r->graph];
			if (r->kind == CMP_DIFFERENT) {
				fputs("    only the compiler: ", f);
				node_list(f, g, r->only_compiler, r->n_only_compiler);
				fputs("; only fusiondbg: ", f);
				node_list(f, g, r->only_predicted, r->n_only_predicted);
				fputc('\n', f);
			}
			if (r->why)
				txt_fprintf(f, "    why: %s\n", r->why);
		}
	}
}

static void ids_json(FILE *f, const fd_graph *g, const int32_t *ids, int32_t n)
{
	fputc('[', f);
	for (int32_t k = 0; k < n; k++) {
		fputs(k ? ", " : "", f);
		json_write_string(f, g->nodes[ids[k]].name);
	}
	fputc(']', f);
}

void compare_write_json(FILE *f, const fd_comparison *c, const fd_rounds *rd)
{
	const fd_model *m = rd->items[0]->model;
	fputs("{\n  \"model\": ", f);
	json_write_string(f, m->path);
	fputs(",\n  \"with\": ", f);
	json_write_string(f, c->with);
	if (c->record) {
		compare_record_write_json(f, c);
		return;
	}
	fprintf(f, ",\n  \"kind\": \"%s\",", c->dump ? "ge_dump" : "optimized");
	if (c->dump) {
		fprintf(f, "\n  \"mapping\": \"%s\",\n  \"record\": {\"ub_groups\": %d, \"ub_failed\": %d, "
		        "\"graph_fusions\": %d, \"compared\": %zu},\n  \"not_compared\": {", c->by_name ? "name" : "original_names",
		        (int)c->dump_ub, (int)c->dump_ub_failed, (int)c->dump_fusions, c->compiled.groups.n);
		for (int k = 0; k < CMP_UNMAPPED_COUNT; k++) {
			fputs(k ? ", " : "", f);
			json_write_string(f, compare_unmapped_key(k));
			fprintf(f, ": %d", (int)c->unmapped[k]);
		}
		fputs("},", f);
	}
	fprintf(f, "\n  \"differences\": %zu,\n  \"counts\": {", compare_differences(c));
	for (int k = 0; k < CMP_KIND_COUNT; k++)
		fprintf(f, "%s\"%s\": %zu", k ? ", " : "", kind_names[k], c->counts[k]);
	fputc('}', f);
	if (c->differences_shapes_onnx >= 0)
		fprintf(f, ",\n  \"differences_shapes_onnx\": %lld", (long long)c->differences_shapes_onnx);
	fputs(",\n  \"removed\": {", f);
	for (int k = 0, n = 0; k < GONE_COUNT; k++)
		if (c->compiled.gone[k])
			fprintf(f, "%s\"%s\": %lld", n++ ? ", " : "", compiled_gone_name(k), (long long)c->compiled.gone[k]);
	fputs("},\n  \"rows\": [", f);
	for (size_t k = 0, shown = 0; k < c->rows.n; k++) {
		const fd_cmp_row *r = &c->rows.items[k];
		const fd_graph *g = &m->graphs[r->graph];
		if (c->differences_only && r->kind == CMP_SAME)
			continue;
		fprintf(f, "%s\n    {\"kind\": \"%s\", \"graph\": %d, \"node\": ", shown++ ? "," : "", kind_names[r->kind],
		        (int)r->graph);
		json_write_string(f, g->nodes[r->node].name);
		fputs(", \"compiler\": ", f);
		if (r->group >= 0) {
			const fd_compiled_group *cg = &c->compiled.groups.items[r->group];
			fputs("{\"fused_node\": ", f);
			json_write_string(f, cg->fused_node);
			fputs(", \"op_type\": ", f);
			json_write_string(f, cg->op_type);
			fputs(", \"domain\": ", f);
			json_write_string(f, cg->domain);
			fputs(", \"nodes\": ", f);
			ids_json(f, g, cg->replaced, cg->n_replaced);
			if (c->dump) {
				const fd_cmp_dump_group *dg = &c->dump_groups.items[r->group];
				fprintf(f, ", \"source\": \"%s\", \"scope\": %lld, \"failed\": %s, \"not_in_model\": %d, \"pass\": ",
				        dg->ub ? "ub" : "graph_fusion", (long long)dg->scope, dg->failed ? "true" : "false",
				        (int)dg->n_absent);
				if (dg->pass)
					json_write_string(f, dg->pass);
				else
					fputs("null", f);
			}
			fputc('}', f);
		} else {
			fputs("null", f);
		}
		fputs(", \"fusiondbg\": ", f);
		if (r->predicted >= 0) {
			const fd_fused_node *fn = &c->final.nodes.items[r->predicted];
			int32_t rule = fused_rule(rd, fn);
			fputs("{\"rule\": ", f);
			json_write_string(f, rule >= 0 ? rd->rules->rules[rule].name : NULL);
			fprintf(f, ", \"round\": %d, \"target_op\": ", (int)fn->round);
			json_write_string(f, fn->op_type);
			fputs(", \"nodes\": ", f);
			ids_json(f, g, fn->members, fn->n_members);
			fputc('}', f);
		} else {
			fputs("null", f);
		}
		fputs(", \"only_compiler\": ", f);
		ids_json(f, g, r->only_compiler, r->n_only_compiler);
		fputs(", \"only_fusiondbg\": ", f);
		ids_json(f, g, r->only_predicted, r->n_only_predicted);
		fputs(", \"why\": ", f);
		if (r->why)
			json_write_string(f, r->why);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs("\n  ]\n}\n", f);
}
