/* info_compiler.c — info on a compiler's graph dump: what the compiler
 * itself recorded (ge/ge_record.h): its UB-fusion groups (id, pass, members,
 * the failed ones) and the nodes that absorbed original nodes in graph
 * fusion, with those originals and the chain of passes. Text and JSON. */
#include <stdio.h>
#include "base/json.h"
#include "base/text.h"
#include "cli.h"
#include "ge/ge_record.h"
#include "ir/node_origin.h"

static const fd_node *node_at(const fd_model *m, int32_t graph, int32_t node)
{
	return &m->graphs[graph].nodes[node];
}

static void text_list(FILE *f, const fd_name_list *l, const char *sep)
{
	for (int32_t i = 0; i < l->n; i++)
		txt_fprintf(f, "%s%s", i ? sep : "", l->items[i]);
}

static void text_groups(FILE *f, const fd_model *m, const ge_record *r)
{
	txt_fprintf(f, "\nUB fusion groups (the compiler's): %d, %d failed\n", r->n_groups, r->n_failed);
	for (int32_t i = 0; i < r->n_groups; i++) {
		const ge_ub_group *g = &r->groups[i];
		txt_fprintf(f, "  %s %lld", g->failed ? "failed" : "scope", (long long)g->id);
		if (g->graph)
			txt_fprintf(f, " (graph %s)", m->graphs[g->graph].name);
		txt_fprintf(f, "  %s%s  %d nodes:", g->pass_name_ub ? g->pass_name_ub : "(no pass named)",
		            g->passes_differ ? " (members name other passes too)" : "", g->n_nodes);
		for (int32_t k = 0; k < g->n_nodes; k++)
			txt_fprintf(f, " %s", node_at(m, g->graph, g->nodes[k])->name);
		fputc('\n', f);
	}
}

static void text_absorbing(FILE *f, const fd_model *m, const ge_record *r)
{
	txt_fprintf(f, "\nnodes with absorbed originals: %d (%lld original names, %d with a pass chain)\n",
	            r->n_absorbing, (long long)r->n_originals, r->n_with_passes);
	for (int32_t i = 0; i < r->n_absorbing; i++) {
		const fd_node *n = node_at(m, r->absorbing[i].graph, r->absorbing[i].node);
		const fd_node_origin *o = n->origin;
		txt_fprintf(f, "  %s (%s)\n    originals: ", n->name, n->op_type);
		for (int32_t k = 0; k < o->original_names.n; k++) {
			txt_fprintf(f, "%s%s", k ? ", " : "", o->original_names.items[k]);
			if (k < o->original_types.n)
				txt_fprintf(f, " (%s)", o->original_types.items[k]);
		}
		if (o->pass_names.n) {
			txt_fprintf(f, "\n    passes: ");
			text_list(f, &o->pass_names, " -> ");
		}
		fputc('\n', f);
	}
}

void cli_info_compiler_text(FILE *f, const fd_model *m)
{
	ge_record r;
	ge_record_compute(m, &r);
	text_groups(f, m, &r);
	text_absorbing(f, m, &r);
	ge_record_release(&r);
}

static void json_list(FILE *f, const fd_name_list *l)
{
	fputc('[', f);
	for (int32_t i = 0; i < l->n; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, l->items[i]);
	}
	fputc(']', f);
}

static void json_groups(FILE *f, const fd_model *m, const ge_record *r)
{
	fprintf(f, "    \"ub_groups\": %d,\n    \"ub_groups_failed\": %d,\n    \"groups\": [", r->n_groups,
	        r->n_failed);
	for (int32_t i = 0; i < r->n_groups; i++) {
		const ge_ub_group *g = &r->groups[i];
		fprintf(f, "%s\n      {\"graph\": ", i ? "," : "");
		json_write_string(f, m->graphs[g->graph].name);
		fprintf(f, ", \"id\": %lld, \"failed\": %s, \"pass_name_ub\": ", (long long)g->id,
		        g->failed ? "true" : "false");
		if (g->pass_name_ub)
			json_write_string(f, g->pass_name_ub);
		else
			fputs("null", f);
		fprintf(f, ", \"passes_differ\": %s, \"nodes\": [", g->passes_differ ? "true" : "false");
		for (int32_t k = 0; k < g->n_nodes; k++) {
			fputs(k ? ", " : "", f);
			json_write_string(f, node_at(m, g->graph, g->nodes[k])->name);
		}
		fputs("]}", f);
	}
	fprintf(f, "%s],\n", r->n_groups ? "\n    " : "");
}

static void json_absorbing(FILE *f, const fd_model *m, const ge_record *r)
{
	fprintf(f, "    \"nodes_with_originals\": %d,\n    \"original_names\": %lld,\n    \"absorbing\": [",
	        r->n_absorbing, (long long)r->n_originals);
	for (int32_t i = 0; i < r->n_absorbing; i++) {
		const fd_node *n = node_at(m, r->absorbing[i].graph, r->absorbing[i].node);
		fprintf(f, "%s\n      {\"node\": ", i ? "," : "");
		json_write_string(f, n->name);
		fputs(", \"op_type\": ", f);
		json_write_string(f, n->op_type);
		fputs(", \"original_names\": ", f);
		json_list(f, &n->origin->original_names);
		fputs(", \"original_types\": ", f);
		json_list(f, &n->origin->original_types);
		fputs(", \"pass_names\": ", f);
		json_list(f, &n->origin->pass_names);
		fputc('}', f);
	}
	fprintf(f, "%s]\n", r->n_absorbing ? "\n    " : "");
}

void cli_info_compiler_json(FILE *f, const fd_model *m)
{
	ge_record r;
	ge_record_compute(m, &r);
	fputs(",\n  \"format\": ", f);
	json_write_string(f, m->format);
	fputs(",\n  \"compiler_record\": {\n", f);
	json_groups(f, m, &r);
	json_absorbing(f, m, &r);
	fputs("  }", f);
	ge_record_release(&r);
}
