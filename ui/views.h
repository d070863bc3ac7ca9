/* views.h — the TUI's views, declared once. TUI_VIEWS generates the view
 * enum, each view's name (its scope in the keys file, keymap.h), the title
 * of its box, whether Tab visits it, its view-NAME action with that action's
 * help (actions.h), and the table of view_ops that run.c wires (view_OPS.c
 * defines view_OPS_ops). No curses, no tui state. */
#ifndef FD_UI_VIEWS_H
#define FD_UI_VIEWS_H
#include <stdbool.h>

/* _(X, ID, OPS, "name", "title", tab, "help of the view-NAME action").
 * X is handed through untouched, so that another list (the actions') can
 * expand this one with a row macro of its own; tab: Tab / BackTab visit it. */
#define TUI_VIEWS(_, X) \
	_(X, RULES,  rules,  "rules",       "rules",                   1, "Show the rules view") \
	_(X, GRAPH,  graph,  "graph",       "graph",                   1, "Show the graph view") \
	_(X, TRACE,  trace,  "trace",       "trace",                   1, "Show the trace view (the stepper)") \
	_(X, DETAIL, detail, "detail",      "detail",                  1, "Show the detail view") \
	_(X, DIFF,   diff,   "diff",        "diff vs rules as loaded", 1, "Show the diff against the rules as loaded") \
	_(X, BREAKS, breaks, "breakpoints", "breakpoints",             0, "Show the breakpoints") \
	_(X, COMPARE, compare, "compare",   "compare with the compiler", 0, "Show where the compiler (--with) differs") \
	_(X, MEMORY, memory, "memory",      "memory timeline",         1, "Show the memory timeline (live bytes per step)") \
	_(X, SUGGEST, suggest, "suggest",   "suggested fusions",       0, "Show the fusions the rules leave out, ranked") \
	_(X, HELP,   help,   "help",        "help",                    0, "Show this help")

#define VIEW_ENUM(X, id, ops, name, title, tab, help) VIEW_##id,
enum tui_view { TUI_VIEWS(VIEW_ENUM, ) VIEW_COUNT };
#undef VIEW_ENUM

const char *view_name(enum tui_view v);    /* "rules", "breakpoints"; "?" when out of range */
const char *view_title(enum tui_view v);   /* "diff vs rules as loaded" */
bool view_in_tab_cycle(enum tui_view v);

#endif
