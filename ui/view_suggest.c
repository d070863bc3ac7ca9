/* view_suggest.c — the fusions the rules leave out (suggest.h): a heading,
 * then the patterns ranked by the bytes a fusion of every instance would
 * keep off memory, each with its count, the estimated speed-up and the
 * rule that makes it. Enter shows the first instance's first node in the
 * graph; w adds the pattern's rule to the session as a new rule file
 * (suggest_write.c). Made again after every run, when first drawn: a rule
 * just added takes its pattern off the list.
 * State: its own suggest_view (t->views[VIEW_SUGGEST].data). */
#include <stdio.h>
#include <stdlib.h>
#include "view.h"
#include "estimate/estimate.h"

/* The view's own state: the patterns after the last run (suggest.h), made
 * when the view is first drawn after it (error: why there are none). */
typedef struct suggest_view {
	fd_suggest sg;
	bool valid;
	unsigned built_gen;
	char error[512];
} suggest_view;

static void *open_view(tui *t)
{
	(void)t;
	suggest_view *sv = xcalloc(1, sizeof *sv);
	suggest_init(&sv->sg);
	return sv;
}

static void close_view(void *data)
{
	suggest_view *sv = data;
	suggest_release(&sv->sg);
	free(sv);
}

/* The patterns of the last run. */
static suggest_view *ensure(tui *t)
{
	suggest_view *sv = t->views[VIEW_SUGGEST].data;
	if (sv->valid && sv->built_gen == t->run_gen)
		return sv;
	suggest_release(&sv->sg);
	suggest_init(&sv->sg);
	sv->error[0] = '\0';
	fd_diags d;
	diags_init(&d);
	fd_suggest_options so = { .target = t->s.opt.target };
	if (suggest_run(&sv->sg, &t->s.current_rounds, &t->s.rules, &so, &d) < 0)
		snprintf(sv->error, sizeof sv->error, "no suggestions: %s",
		         d.n ? diag_format(&d.items[0], (char[512]){ 0 }, 512) : "the graph after fusion cannot be built");
	diags_release(&d);
	sv->valid = true;
	sv->built_gen = t->run_gen;
	return sv;
}

/* Row 0 is the heading; row k the pattern ranked k. */
static size_t rows(tui *t)
{
	suggest_view *sv = ensure(t);
	return 1 + (size_t)(sv->sg.n ? sv->sg.n : 1);
}

static const fd_suggest_pattern *pattern_at(tui *t, size_t row)
{
	suggest_view *sv = ensure(t);
	return row >= 1 && row <= (size_t)sv->sg.n ? &sv->sg.patterns[row - 1] : NULL;
}

static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	suggest_view *sv = ensure(t);
	const fd_suggest *sg = &sv->sg;
	*role = ROLE_NORMAL;
	if (row == 0) {
		*role = ROLE_HEADER;
		snprintf(buf, size, "%d pattern%s the rules leave unfused (%lld chains, %lld nodes a fusion could take); "
		         "Enter shows one, w adds its rule", sg->n, sg->n == 1 ? "" : "s", (long long)sg->n_pieces,
		         (long long)sg->n_eligible);
		return buf;
	}
	const fd_suggest_pattern *p = pattern_at(t, row);
	if (!p) {
		*role = sv->error[0] ? ROLE_ERROR : ROLE_DIM;
		snprintf(buf, size, "  %s", sv->error[0] ? sv->error : "none: every chain a fusion could take is fused already");
		return buf;
	}
	char bytes[160], sp[32];
	estimate_format_size(p->bytes_f, bytes, sizeof bytes);
	estimate_format_speedup(p->speedup, sp, sizeof sp);
	snprintf(buf, size, "#%zu  %s  x%d  saves %s  %s  %s%s", row, p->title, p->n_instances, bytes, sp, p->rule_name,
	         p->verified ? "" : " (fires elsewhere too)");
	return buf;
}

static void select_row(tui *t)
{
	const fd_suggest_pattern *p = pattern_at(t, t->views[VIEW_SUGGEST].list.cursor);
	if (p)
		tui_set_detail_node(t, p->instances[0].graph, p->instances[0].nodes[0]);
}

static unsigned action(tui *t, enum tui_action a)
{
	if (a != ACT_ENTER && a != ACT_WRITE_RULE)
		return RES_UNHANDLED;
	const fd_suggest_pattern *p = pattern_at(t, t->views[VIEW_SUGGEST].list.cursor);
	if (!p) {
		tui_message(t, ROLE_WARN, "no pattern here: move to one (#1, #2, …)");
		return RES_REDRAW;
	}
	if (a == ACT_ENTER)
		return tui_show_node(t, p->instances[0].graph, p->instances[0].nodes[0]);
	return tui_write_pattern_rule(t, p);
}

static const enum tui_action hints[] = {
	ACT_ENTER, ACT_WRITE_RULE, ACT_VIEW_DIFF, ACT_UNDO, ACT_SAVE, ACT_BACK, ACT_VIEW_HELP, ACT_NONE
};

const view_ops view_suggest_ops = {
	.rows = rows, .text = row_text, .action = action, .select = select_row,
	.hints = hints, .open = open_view, .close = close_view,
};
