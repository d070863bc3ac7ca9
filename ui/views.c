/* views.c — the views' names, titles and Tab cycle, from TUI_VIEWS (views.h). */
#include <assert.h>
#include "views.h"

static const struct view_def {
	const char *name, *title;
	bool tab;
} views[] = {
#define VIEW_ROW(X, id, ops, name, title, tab, help) [VIEW_##id] = { name, title, tab },
	TUI_VIEWS(VIEW_ROW, )
#undef VIEW_ROW
};
static_assert(sizeof views / sizeof *views == VIEW_COUNT, "one row per view");

const char *view_name(enum tui_view v)
{
	return v >= 0 && v < VIEW_COUNT ? views[v].name : "?";
}

const char *view_title(enum tui_view v)
{
	return v >= 0 && v < VIEW_COUNT ? views[v].title : "?";
}

bool view_in_tab_cycle(enum tui_view v)
{
	return v >= 0 && v < VIEW_COUNT && views[v].tab;
}
