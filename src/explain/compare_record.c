/* compare_record.c — CANN's fusion_result.json against fusiondbg's counts
 * (compare.h): per graph of the record, its passes and the rules by name,
 * each told as same, differs, unlisted (agreement) or no_rule, in the words
 * the text, the JSON and the TUI share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/text.h"
#include "explain/compare.h"
#include "explain/explain.h"
#include "rounds/rounds.h"

static const char *const pass_kind_names[] = {
#define NAME(id, name) [CMP_PASS_##id] = name,
	FD_CMP_PASS_KINDS(NAME)
#undef NAME
};

const char *compare_pass_kind_name(fd_cmp_pass_kind k)
{
	return k < CMP_PASS_KIND_COUNT ? pass_kind_names[k] : "?";
}

/* Why a pass's effect may fall short of its match, from how CANN counts. */
#define DECLINED_WHY "the pass matched, then did not fuse: its Fusion() returned NOT_CHANGED, the match did " \
	"not meet the pass's own requirements, or fusing would have made a cycle (CANN counts effect_times " \
	"only for the fusions made)"

static fd_cmp_pass *pass_in(fd_comparison *c, size_t first, const char *name)
{
	for (size_t k = first; k < c->passes.n; k++)
		if (!strcmp(c->passes.items[k].name, name))
			return &c->passes.items[k];
	return NULL;
}

static int kind_order(fd_cmp_pass_kind k)
{
	static const int order[] = { [CMP_PASS_DIFFERS] = 0, [CMP_PASS_SAME] = 1, [CMP_PASS_NO_RULE] = 2,
	                             [CMP_PASS_UNLISTED] = 3 };
	return order[k];
}

/* Within one graph: differences first, then the same, the passes without a
 * rule, the rules the record does not list (stable). */
static void order_graph(fd_cmp_pass *p, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		fd_cmp_pass x = p[i];
		size_t j = i;
		for (; j > 0 && kind_order(p[j - 1].kind) > kind_order(x.kind); j--)
			p[j] = p[j - 1];
		p[j] = x;
	}
}

/* The condition after the match that decided rule i's first declined (or
 * unchanged) match, in words with its place: "op0 Conv outputs: consumers
 * <= 1 (rules.yaml:12:7)"; NULL when none decided one. */
static const char *stage_condition(fd_comparison *c, const fd_rounds *rd, int32_t rule)
{
	for (int32_t k = 0; k < rd->n; k++) {
		const fd_match_result *r = rd->items[k]->result;
		for (size_t a = 0; a < r->trace.n_attempts; a++) {
			const fd_attempt *at = &r->trace.attempts[a];
			if (at->rule != rule || at->decisive == UINT32_MAX)
				continue;
			fd_event ev = trace_event(&r->trace, at->decisive);
			if (ev.branch != FD_BRANCH_EFFECT && ev.branch != FD_BRANCH_CHANGE)
				continue;
			fd_event_text t;
			explain_event(r, at->decisive, &t);
			char where[256], words[1024];
			explain_where(&t.where, where, sizeof where);
			snprintf(words, sizeof words, "%s: expected %s, actual %s (%s)", t.check, t.expected, t.actual, where);
			return arena_strdup(&c->arena, words);
		}
	}
	return NULL;
}

static void compare_one(fd_comparison *c, const fd_rounds *rd, const fd_cann_record *r)
{
	int32_t gi = (int32_t)c->graphs.n;
	fd_cmp_graph g = { r->id, r->layout, r->line, r->col, r->copies, 0, { 0 } };
	vec_push(&c->graphs, g);
	size_t first = c->passes.n;
	for (int s = 0; s < CANN_SECTION_COUNT; s++)
		for (size_t k = 0; k < r->n_passes[s]; k++) {
			const fd_cann_pass *cp = &r->passes[s][k];
			if (pass_in(c, first, cp->name))
				continue;   /* in both sections: the first says it */
			fd_cmp_pass p = { CMP_PASS_NO_RULE, cp->name, gi, s, -1, cp->match, cp->effect, cp->repository_hit, -1, -1, 0, 0, NULL };
			vec_push(&c->passes, p);
		}
	const fd_ruleset *rs = rd->rules;
	for (int32_t i = 0; i < rs->n_rules; i++) {
		long long m = 0, e = 0, declined = 0, unchanged = 0;
		for (int32_t k = 0; k < rd->n; k++) {
			m += rd->items[k]->result->stats[i].match_times;
			e += rd->items[k]->result->stats[i].effect_times;
			declined += rd->items[k]->result->stats[i].declined;
			unchanged += rd->items[k]->result->stats[i].unchanged;
		}
		fd_cmp_pass *p = pass_in(c, first, rs->rules[i].name);
		if (!p) {
			fd_cmp_pass q = { CMP_PASS_UNLISTED, rs->rules[i].name, gi, -1, i, -1, -1, -1, m, e, 0, 0, NULL };
			vec_push(&c->passes, q);
			p = &c->passes.items[c->passes.n - 1];
		}
		if (p->rule >= 0 && p->section >= 0)
			continue;   /* two rules of one name: the first is compared */
		p->rule = i;
		p->match_predicted = m;
		p->effect_predicted = e;
		p->declined_predicted = declined;
		p->unchanged_predicted = unchanged;
		p->decided_by = declined || unchanged ? stage_condition(c, rd, i) : NULL;
		if (p->section < 0)
			p->kind = m == 0 ? CMP_PASS_UNLISTED : CMP_PASS_DIFFERS;
		else
			p->kind = p->match_compiler == m && p->effect_compiler == e ? CMP_PASS_SAME : CMP_PASS_DIFFERS;
	}
	order_graph(c->passes.items + first, c->passes.n - first);
	fd_cmp_graph *gp = &c->graphs.items[gi];
	for (size_t k = first; k < c->passes.n; k++)
		gp->counts[c->passes.items[k].kind]++;
	gp->differences = gp->counts[CMP_PASS_DIFFERS];
	c->n_pass_differences += gp->differences;
}

/* The record named by graph: its id, or "#N" the Nth. */
static bool picked(const fd_cann_records *recs, size_t k, const char *graph)
{
	if (!graph)
		return true;
	if (graph[0] == '#')
		return strtoul(graph + 1, NULL, 10) == k + 1;
	return !strcmp(recs->items[k].id, graph);
}

int compare_record(fd_comparison *c, const fd_rounds *rd, const fd_cann_records *recs, const char *graph,
                   fd_diags *d)
{
	c->with = recs->path;
	c->record = true;
	char ids[1024];
	cann_records_ids(recs, ids, sizeof ids);
	c->graph_ids = arena_strdup(&c->arena, ids);
	c->n_graphs_in_file = cann_records_graphs(recs);
	for (size_t k = 0; k < recs->n; k++)
		if (picked(recs, k, graph))
			compare_one(c, rd, &recs->items[k]);
	if (!c->graphs.n) {
		diag_error(d, srcpos_file(recs->path), "--graph %s: the record holds no such graph (it holds %s; "
		           "#N picks the Nth record)", graph, ids);
		return -1;
	}
	return 0;
}

/* ---- words ---------------------------------------------------------------------------- */

static const char *graph_name(const fd_comparison *c, int32_t g, char *buf, size_t size)
{
	if (*c->graphs.items[g].id)
		return c->graphs.items[g].id;
	snprintf(buf, size, "#%d", (int)g + 1);
	return buf;
}

static void counts_text(char *buf, size_t size, long long match, long long effect)
{
	if (match < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%lld / %lld", match, effect);
}

/* What a row's last column says beyond its kind. */
static void pass_note(const fd_cmp_pass *p, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	if (p->kind == CMP_PASS_DIFFERS && p->section < 0)
		n += (size_t)snprintf(buf, size, ": fusiondbg matched, the record does not list it (CANN did not match it, or the pass was switched off or did not run)");
	if (p->section >= 0 && n < size)
		n += (size_t)snprintf(buf + n, size - n, " (%s)", cann_section_name((fd_cann_section)p->section));
	if (p->match_compiler > 0 && p->effect_compiler < p->match_compiler && n < size)
		n += (size_t)snprintf(buf + n, size - n, "; the compiler declined %lld of %lld",
		                      p->match_compiler - p->effect_compiler, p->match_compiler);
	if (p->declined_predicted > 0 && n < size)   /* the rule says which condition: no guess */
		n += (size_t)snprintf(buf + n, size - n, "; the rule declines %lld of %lld: %s", p->declined_predicted,
		                      p->match_predicted, p->decided_by ? p->decided_by : "?");
	else if (p->unchanged_predicted > 0 && n < size)
		n += (size_t)snprintf(buf + n, size - n, "; %lld of the rule's effects change nothing: %s",
		                      p->unchanged_predicted, p->decided_by ? p->decided_by : "?");
	if (p->kind == CMP_PASS_UNLISTED && n < size)
		snprintf(buf + n, size - n, ": no match, and the record lists only passes that matched");
}

static const char *verdict(const fd_cmp_pass *p)
{
	return p->kind == CMP_PASS_NO_RULE ? "no rule" : p->kind == CMP_PASS_UNLISTED ? "agree" :
	       compare_pass_kind_name(p->kind);
}

/* The passes of graph gi the record lists. */
static size_t listed(const fd_comparison *c, int32_t gi)
{
	size_t n = 0;
	for (size_t k = 0; k < c->passes.n; k++)
		n += c->passes.items[k].graph == gi && c->passes.items[k].section >= 0;
	return n;
}

/* A row of compare's table (the TUI's rows say the same, compare_pass_text). */
static char *pass_row(const fd_comparison *c, size_t pass, bool with_graph, char *buf, size_t size)
{
	const fd_cmp_pass *p = &c->passes.items[pass];
	char a[48], b[48], note[1024], gname[24], name[300];
	counts_text(a, sizeof a, p->match_compiler, p->effect_compiler);
	counts_text(b, sizeof b, p->match_predicted, p->effect_predicted);
	pass_note(p, note, sizeof note);
	if (with_graph)
		snprintf(name, sizeof name, "[%s] %s", graph_name(c, p->graph, gname, sizeof gname), p->name);
	else
		snprintf(name, sizeof name, "%s", p->name);
	text_cutf(buf, size, "%-36s %23s  %23s  %s%s", name, a, b, verdict(p), note);
	return buf;
}

char *compare_pass_text(const fd_comparison *c, size_t pass, char *buf, size_t size)
{
	const fd_cmp_pass *p = &c->passes.items[pass];
	char a[48], b[48], note[1024], gname[24];
	counts_text(a, sizeof a, p->match_compiler, p->effect_compiler);
	counts_text(b, sizeof b, p->match_predicted, p->effect_predicted);
	pass_note(p, note, sizeof note);
	snprintf(buf, size, "%s%s%s%s  compiler %s  fusiondbg %s  %s%s", c->graphs.n > 1 ? "[" : "",
	         c->graphs.n > 1 ? graph_name(c, p->graph, gname, sizeof gname) : "", c->graphs.n > 1 ? "] " : "",
	         p->name, a, b, verdict(p), note);
	return buf;
}

char *compare_record_summary(const fd_comparison *c, char *buf, size_t size)
{
	char gname[24];
	size_t n = c->graphs.n;
	if (n == 1)
		snprintf(buf, size, "%s: graph %s%s%s: %zu pass%s listed, %zu differ%s", c->with,
		         graph_name(c, 0, gname, sizeof gname), c->n_graphs_in_file > 1 ? " of " : "",
		         c->n_graphs_in_file > 1 ? c->graph_ids : "", listed(c, 0), listed(c, 0) == 1 ? "" : "es",
		         c->n_pass_differences, c->n_pass_differences == 1 ? "s" : "");
	else
		snprintf(buf, size, "%s: %zu graphs (%s), each compared (--graph S_G picks one): %zu differ%s", c->with,
		         n, c->graph_ids, c->n_pass_differences, c->n_pass_differences == 1 ? "s" : "");
	return buf;
}

static void graph_text(FILE *f, const fd_comparison *c, int32_t gi)
{
	const fd_cmp_graph *g = &c->graphs.items[gi];
	char gname[24], row[2048];
	size_t n_listed = listed(c, gi);
	txt_fprintf(f, "\ngraph %s (%s layout, at %d:%d", graph_name(c, gi, gname, sizeof gname), g->layout, g->line,
	            g->col);
	if (g->copies > 1)
		txt_fprintf(f, "; written %d times, the same counts each time", g->copies);
	txt_fprintf(f, "): %zu pass%s listed, %zu differ%s from fusiondbg\n", n_listed, n_listed == 1 ? "" : "es",
	            g->differences, g->differences == 1 ? "s" : "");
	txt_fprintf(f, "  %-36s %23s  %23s\n", "pass / rule", "compiler match/effect", "fusiondbg match/effect");
	bool declined = false, heading_no_rule = false;
	for (size_t k = 0; k < c->passes.n; k++) {
		const fd_cmp_pass *p = &c->passes.items[k];
		if (p->graph != gi || p->kind == CMP_PASS_UNLISTED)
			continue;
		if (p->kind == CMP_PASS_NO_RULE && !heading_no_rule) {
			txt_fprintf(f, "  passes no rule is named after (%zu): what the compiler did, not a difference\n",
			            g->counts[CMP_PASS_NO_RULE]);
			heading_no_rule = true;
		}
		declined |= p->match_compiler > 0 && p->effect_compiler < p->match_compiler && !p->declined_predicted;
		txt_fprintf(f, "  %s\n", pass_row(c, k, false, row, sizeof row));
	}
	if (g->counts[CMP_PASS_UNLISTED]) {
		txt_fprintf(f, "  rules with no match that the record does not list (%zu, agreement: CANN lists a pass "
		            "only when it matched):", g->counts[CMP_PASS_UNLISTED]);
		for (size_t k = 0, n = 0; k < c->passes.n; k++)
			if (c->passes.items[k].graph == gi && c->passes.items[k].kind == CMP_PASS_UNLISTED)
				txt_fprintf(f, "%s%s", n++ ? ", " : " ", c->passes.items[k].name);
		fputc('\n', f);
	}
	if (declined)
		txt_fprintf(f, "  declined: " DECLINED_WHY "\n");
}

void compare_record_write_text(FILE *f, const fd_comparison *c)
{
	char head[2048];
	txt_fprintf(f, "compare with %s\n", compare_record_summary(c, head, sizeof head));
	for (size_t g = 0; g < c->graphs.n; g++)
		graph_text(f, c, (int32_t)g);
}

void compare_record_write_json(FILE *f, const fd_comparison *c)
{
	char gname[24];
	fprintf(f, ",\n  \"kind\": \"fusion_result\",\n  \"differences\": %zu,\n  \"graphs_in_file\": %zu,\n"
	        "  \"graphs\": [", c->n_pass_differences, c->n_graphs_in_file);
	for (size_t k = 0; k < c->graphs.n; k++) {
		const fd_cmp_graph *g = &c->graphs.items[k];
		fputs(k ? ",\n    {\"id\": " : "\n    {\"id\": ", f);
		json_write_string(f, graph_name(c, (int32_t)k, gname, sizeof gname));
		fputs(", \"layout\": ", f);
		json_write_string(f, g->layout);
		fprintf(f, ", \"line\": %d, \"col\": %d, \"copies\": %d, \"differences\": %zu, \"counts\": {", g->line,
		        g->col, g->copies, g->differences);
		for (int j = 0; j < CMP_PASS_KIND_COUNT; j++)
			fprintf(f, "%s\"%s\": %zu", j ? ", " : "", pass_kind_names[j], g->counts[j]);
		fputs("}}", f);
	}
	fputs("\n  ],\n  \"passes\": [", f);
	for (size_t k = 0; k < c->passes.n; k++) {
		const fd_cmp_pass *p = &c->passes.items[k];
		fputs(k ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		json_write_string(f, p->name);
		fputs(", \"graph\": ", f);
		json_write_string(f, graph_name(c, p->graph, gname, sizeof gname));
		fprintf(f, ", \"kind\": \"%s\", \"section\": ", pass_kind_names[p->kind]);
		if (p->section >= 0)
			json_write_string(f, cann_section_name((fd_cann_section)p->section));
		else
			fputs("null", f);
		/* -1 for "not there" as before, beside the kind that says it */
		fprintf(f, ", \"compiler\": {\"match_times\": %lld, \"effect_times\": %lld", p->match_compiler,
		        p->effect_compiler);
		if (p->repository_hit >= 0)
			fprintf(f, ", \"repository_hit_times\": %lld", p->repository_hit);
		fprintf(f, "}, \"fusiondbg\": {\"match_times\": %lld, \"effect_times\": %lld", p->match_predicted,
		        p->effect_predicted);
		if (p->declined_predicted || p->unchanged_predicted) {   /* the rule's own conditions after the match */
			fprintf(f, ", \"declined\": %lld, \"unchanged\": %lld, \"decided_by\": ", p->declined_predicted,
			        p->unchanged_predicted);
			if (p->decided_by)
				json_write_string(f, p->decided_by);
			else
				fputs("null", f);
		}
		fprintf(f, "}, \"same\": %s, "
		        "\"declined\": %lld}", p->kind == CMP_PASS_SAME || p->kind == CMP_PASS_UNLISTED ? "true" : "false",
		        p->match_compiler > 0 ? p->match_compiler - p->effect_compiler : 0);
	}
	fputs("\n  ],\n  \"declined\": ", f);
	json_write_string(f, DECLINED_WHY);
	fputs("\n}\n", f);
}
