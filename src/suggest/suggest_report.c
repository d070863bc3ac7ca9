/* suggest_report.c — the patterns in words and as JSON (fusiondbg(1),
 * SUGGEST: the keys). Names from the model go through the escapes of
 * base/text.h and base/json.h. */
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "base/text.h"
#include "suggest/suggest.h"

static const char *node_name(const fd_model *m, const fd_suggest_instance *in, int j)
{
	return m->graphs[in->graph].nodes[in->nodes[j]].name;
}

static const char *plural(long long n)
{
	return n == 1 ? "" : "s";
}

const char *suggest_none_reason(const fd_suggest *sg, char *buf, size_t size)
{
	if (sg->n_eligible == 0)
		snprintf(buf, size, "no node is left that a fusion could take");
	else if (sg->n_keys == 0)
		snprintf(buf, size, "every chain a fusion could take is fused already");
	else
		snprintf(buf, size, "the rule made for each of the %d candidate pattern%s fires nowhere", sg->n_keys,
		         plural(sg->n_keys));
	return buf;
}

/* Where two patterns of the same op types differ, from their keys
 * (suggest_search.c: per op "Type@domain(inputs) params", '|' between
 * ops): the first op whose part differs, and whether in the kinds of its
 * inputs or in its params. */
static void say_difference(FILE *f, const fd_suggest_pattern *p, int32_t other, const fd_suggest_pattern *q)
{
	const char *a = p->key, *b = q->key;
	for (int i = 0; i < p->n_ops && *a && *b; i++) {
		size_t la = strcspn(a, "|"), lb = strcspn(b, "|");
		if (la != lb || memcmp(a, b, la)) {
			size_t ia = strcspn(a, ")"), ib = strcspn(b, ")");
			bool inputs = ia != ib || memcmp(a, b, ia < la ? ia : la);
			txt_fprintf(f, "    same ops as #%d; differs at op%d (%s): %s\n", other + 1, i, p->op_types[i],
			            inputs ? "where its inputs come from (a constant, a graph input, an activation, an op "
			                     "of the pattern)" : "its string or boolean params");
			return;
		}
		a += la + (a[la] == '|');
		b += lb + (b[lb] == '|');
	}
}

void suggest_write_text(FILE *f, const fd_suggest *sg, const fd_model *m, const fd_ruleset *rs)
{
	txt_fprintf(f, "%lld node%s a fusion could take; %d candidate pattern%s (%lld chain%s of 2 to %d nodes, "
	            "at most %d heavy op%s each: %s)",
	            (long long)sg->n_eligible, plural(sg->n_eligible), sg->n_keys, plural(sg->n_keys),
	            (long long)sg->n_pieces, plural(sg->n_pieces), sg->max_ops, sg->max_heavy, plural(sg->max_heavy),
	            suggest_heavy_list());
	if (sg->n == 0) {
		char why[256];
		txt_fprintf(f, ".\nNothing to suggest: %s.\n", suggest_none_reason(sg, why, sizeof why));
		(void)rs;
		return;
	}
	if (sg->n == 1)
		txt_fprintf(f, ".\nThe 1 pattern kept, by the bytes it keeps off memory (estimates):\n");
	else
		txt_fprintf(f, ".\nThe %d patterns kept, ranked by the bytes they keep off memory (estimates; no node in "
		            "two, so the bytes add up):\n", sg->n);
	for (int32_t k = 0; k < sg->n; k++) {
		const fd_suggest_pattern *p = &sg->patterns[k];
		char bytes[160], sp[32];
		estimate_format_size(p->bytes_f, bytes, sizeof bytes);
		estimate_format_speedup(p->speedup, sp, sizeof sp);
		txt_fprintf(f, "\n#%d  %s  x%d  saves %s  %s\n", k + 1, p->title, p->n_instances, bytes, sp);
		txt_fprintf(f, "    rule %s -> %s%s\n", p->rule_name, p->target_op,
		            p->verified ? "" : " (its firings differ from the chains found: they are the instances)");
		txt_fprintf(f, "    first at ");
		for (int j = 0; j < p->n_ops; j++)
			txt_fprintf(f, "%s%s", j ? ", " : "", node_name(m, &p->instances[0], j));
		txt_fprintf(f, "\n");
		if (p->free_params[0])
			txt_fprintf(f, "    varies: %s\n", p->free_params);
		for (int32_t j = 0; j < k; j++)
			if (!strcmp(sg->patterns[j].title, p->title)) {
				say_difference(f, p, j, &sg->patterns[j]);
				break;
			}
		if (p->n_swapped)
			txt_fprintf(f, "    operand order: %d of the %d instance%s read %s's two inputs the other way round "
			            "(one rule takes both orders)\n", p->n_swapped, p->n_instances, plural(p->n_instances),
			            p->swapped_ops);
		for (int32_t q = 0; q < p->n_near; q++)
			txt_fprintf(f, "    nearest: %s\n", p->near[q].line);
		if (p->n_near == 0)
			txt_fprintf(f, "    nearest: no rule has an attempt on these nodes\n");
	}
	txt_fprintf(f, "\nfusiondbg suggest MODEL -r RULES --write N -o RULE.yaml writes the rule of pattern N "
	            "(its instances count those of 1..N-1 taken first).\n");
	(void)rs;
}

static void write_names(FILE *f, const fd_model *m, const fd_suggest_instance *in, int n_ops)
{
	fputc('[', f);
	for (int j = 0; j < n_ops; j++) {
		if (j)
			fputs(", ", f);
		json_write_string(f, node_name(m, in, j));
	}
	fputc(']', f);
}

void suggest_write_json(FILE *f, const fd_suggest *sg, const fd_model *m, const fd_ruleset *rs)
{
	fputs("{\n  \"model\": ", f);
	json_write_string(f, m->path ? m->path : "");
	txt_fprintf(f, ",\n  \"max_ops\": %d,\n  \"max_heavy\": %d,\n  \"eligible_nodes\": %lld,\n  \"chains\": %lld,\n"
	            "  \"pattern_keys\": %d,\n  \"fire_nowhere\": %d,\n",
	            sg->max_ops, sg->max_heavy, (long long)sg->n_eligible, (long long)sg->n_pieces, sg->n_keys,
	            sg->n_fire_nowhere);
	fputs("  \"patterns\": [", f);
	for (int32_t k = 0; k < sg->n; k++) {
		const fd_suggest_pattern *p = &sg->patterns[k];
		char bytes[160];
		int64_t v;
		fputs(k ? ",\n" : "\n", f);
		txt_fprintf(f, "    {\"rank\": %d, \"title\": ", k + 1);
		json_write_string(f, p->title);
		fputs(", \"op_types\": [", f);
		for (int j = 0; j < p->n_ops; j++) {
			if (j)
				fputs(", ", f);
			json_write_string(f, p->op_types[j]);
		}
		txt_fprintf(f, "], \"count\": %d, \"found\": %d,\n     \"bytes_saved\": ", p->n_instances, p->n_found);
		if (sint_value(p->bytes_f, &v))
			txt_fprintf(f, "%lld", (long long)v);
		else
			fputs("null", f);
		fputs(", \"bytes_saved_text\": ", f);
		json_write_string(f, estimate_format_size(p->bytes_f, bytes, sizeof bytes));
		txt_fprintf(f, ", \"bytes_saved_known\": %lld, \"speedup_estimate\": ", (long long)p->bytes);
		if (p->speedup > 0)
			txt_fprintf(f, "%.3f", p->speedup);
		else
			fputs("null", f);
		fputs(",\n     \"rule\": ", f);
		json_write_string(f, p->rule_name);
		fputs(", \"target_op\": ", f);
		json_write_string(f, p->target_op);
		txt_fprintf(f, ", \"verified\": %s, \"free_params\": ", p->verified ? "true" : "false");
		json_write_string(f, p->free_params);
		txt_fprintf(f, ", \"swapped\": %d, \"swapped_ops\": ", p->n_swapped);
		json_write_string(f, p->swapped_ops ? p->swapped_ops : "");
		fputs(",\n     \"instances\": [", f);
		for (int32_t i = 0; i < p->n_instances; i++) {
			fputs(i ? ", " : "", f);
			write_names(f, m, &p->instances[i], p->n_ops);
		}
		fputs("],\n     \"nearest\": [", f);
		for (int32_t q = 0; q < p->n_near; q++) {
			fputs(q ? ", " : "", f);
			fputs("{\"rule\": ", f);
			json_write_string(f, rs->rules[p->near[q].rule].name);
			txt_fprintf(f, ", \"round\": %d, \"reason\": ", p->near[q].round);
			json_write_string(f, p->near[q].line);
			fputc('}', f);
		}
		fputs("],\n     \"rule_yaml\": ", f);
		json_write_string(f, p->rule_yaml);
		fputc('}', f);
	}
	fputs(sg->n ? "\n  ]" : "]", f);
	txt_fprintf(f, ",\n  \"search_ms\": %.1f, \"verify_ms\": %.1f, \"search_bytes\": %zu\n}\n", sg->search_ms,
	            sg->verify_ms, sg->peak_search_bytes);
}
