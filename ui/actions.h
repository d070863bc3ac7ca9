/* actions.h — every user action of the TUI, declared once. The X-macro below
 * generates the action enum, the name lookup (keys file, test scripts), the
 * help view and the man page's key list (`fusiondbg --print-keys-roff`); the
 * view-NAME actions come from the list of views (views.h). Default keys are
 * not here: they are written in the keys-file syntax in ui/keys.default and
 * compiled in (keys_default.c). No curses. */
#ifndef FD_UI_ACTIONS_H
#define FD_UI_ACTIONS_H
#include <stddef.h>
#include "views.h"

/* _(ID, "name", section, "hint", "help") — sections group the help view; the
 * hint is the status line's short label. A view's action is view-NAME, its
 * hint the view's name. */
#define VIEW_ACTION(_, id, ops, name, title, tab, help) _(VIEW_##id, "view-" name, SEC_VIEW, name, help)
#define TUI_ACTIONS(_) \
	_(MOVE_UP,          "move-up",          SEC_MOVE, "up",  "Move the cursor up one line") \
	_(MOVE_DOWN,        "move-down",        SEC_MOVE, "down",  "Move the cursor down one line") \
	_(MOVE_PAGE_UP,     "move-page-up",     SEC_MOVE, "page up",  "Move up one page") \
	_(MOVE_PAGE_DOWN,   "move-page-down",   SEC_MOVE, "page",  "Move down one page") \
	_(MOVE_FIRST,       "move-first-line",  SEC_MOVE, "top",  "Go to the first line") \
	_(MOVE_LAST,        "move-last-line",   SEC_MOVE, "bottom",  "Go to the last line") \
	_(SCROLL_LEFT,      "scroll-left",      SEC_MOVE, "left",  "Scroll the view left (back to the row starts)") \
	_(SCROLL_RIGHT,     "scroll-right",     SEC_MOVE, "right",  "Scroll the view right, to read what a narrow pane cuts") \
	_(SEARCH,           "search",           SEC_MOVE, "search",  "Search the view (smartcase substring)") \
	_(SEARCH_BACK,      "search-back",      SEC_MOVE, "search back",  "Search the view backwards") \
	_(FIND_NEXT,        "find-next",        SEC_MOVE, "next match",  "Go to the next search match") \
	_(FIND_PREV,        "find-prev",        SEC_MOVE, "prev match",  "Go to the previous search match") \
	_(ENTER,            "enter",            SEC_VIEW, "open",  "Open what is under the cursor") \
	_(BACK,             "back",             SEC_VIEW, "back",  "Go back to the previous view; quit from the first") \
	_(QUIT,             "quit",             SEC_VIEW, "quit",  "Quit (asks first when edits are unsaved)") \
	_(VIEW_NEXT,        "view-next",        SEC_VIEW, "views",  "Switch to the next view") \
	_(VIEW_PREV,        "view-prev",        SEC_VIEW, "views",  "Switch to the previous view") \
	TUI_VIEWS(VIEW_ACTION, _) \
	_(REDRAW,           "redraw",           SEC_VIEW, "redraw",  "Redraw the screen") \
	_(STEP_NEXT,        "step-next",        SEC_STEP, "step",  "Next event") \
	_(STEP_PREV,        "step-prev",        SEC_STEP, "back",  "Previous event") \
	_(NEXT_ATTEMPT,     "next-attempt",     SEC_STEP, "attempt",  "Next attempt (rule x anchor)") \
	_(PREV_ATTEMPT,     "prev-attempt",     SEC_STEP, "attempt",  "Previous attempt") \
	_(NEXT_FIRE,        "next-fire",        SEC_STEP, "fire",  "Next rule that fired") \
	_(PREV_FIRE,        "prev-fire",        SEC_STEP, "fire back",  "Previous rule that fired") \
	_(NEXT_FAILURE,     "next-failure",     SEC_STEP, "failure",  "Next failure (the check that decided an attempt)") \
	_(PREV_FAILURE,     "prev-failure",     SEC_STEP, "failure back",  "Previous failure") \
	_(CONTINUE,         "continue",         SEC_STEP, "continue",  "Run forward to the next breakpoint") \
	_(REVERSE_CONTINUE, "reverse-continue", SEC_STEP, "reverse",  "Run backward to the previous breakpoint") \
	_(STEP_START,       "step-start",       SEC_STEP, "start",  "First event of the trace") \
	_(STEP_END,         "step-end",         SEC_STEP, "end",  "Last event of the trace") \
	_(NEXT_ROUND,       "next-round",       SEC_STEP, "round",  "Step the next round of the rules (rules that name another rule's target_op fire in a later round)") \
	_(PREV_ROUND,       "prev-round",       SEC_STEP, "round back",  "Step the previous round of the rules") \
	_(BREAKPOINT,       "toggle-breakpoint",SEC_STEP, "break",  "Toggle a breakpoint on the rule, node or reason code under the cursor") \
	_(ADD_BREAKPOINT,   "add-breakpoint",   SEC_STEP, "add",  "Set a breakpoint by name: rule NAME, node NAME or reason CODE") \
	_(WHY_NOT,          "why-not",          SEC_WHY, "why-not",   "Why did a rule not fire here? Land on the deciding check") \
	_(PRIORITY_UP,      "priority-up",      SEC_EDIT, "prio+",  "Raise the rule's priority by 10 (re-runs)") \
	_(PRIORITY_DOWN,    "priority-down",    SEC_EDIT, "prio-",  "Lower the rule's priority by 10 (re-runs)") \
	_(TOGGLE_ENABLED,   "toggle-enabled",   SEC_EDIT, "on/off",  "Enable or disable the rule (re-runs)") \
	_(EDIT,             "edit",             SEC_EDIT, "edit",  "Edit a value of the rule: RULE.PATH=VALUE, validated (re-runs)") \
	_(UNDO,             "undo",             SEC_EDIT, "undo",  "Undo the last edit") \
	_(REDO,             "redo",             SEC_EDIT, "redo",  "Redo the edit undone last") \
	_(WRITE_RULE,       "write-rule",       SEC_EDIT, "write rule",  "Add the rule of the suggested pattern under the cursor, or of the chain marked in the graph (there why-not does it too), as a new rule file: a what-if") \
	_(MARK_CHAIN,       "mark-chain",       SEC_EDIT, "mark",  "Mark the node as a chain's start, then its end (again: clear), for write-rule") \
	_(SAVE,             "save",             SEC_EDIT, "save",  "Write the edits back to the rule files (atomic, keeps FILE.orig)") \
	_(EXPORT,           "export",           SEC_EDIT, "export",  "Export the graph before or after fusion to DOT, PNG or SVG") \
	_(WRITE_SWITCH,     "write-switch",     SEC_EDIT, "switch file",  "Write the rules' on/off as CANN's fusion switch file (ATC's --fusion_switch_file; scripts: :write-switch FILE)") \
	_(BIND_DIM,         "bind-dim",         SEC_EDIT, "bind dim",  "Bind a symbolic dim (NAME=V, NAME= unbinds) and re-run: a what-if on the shapes") \
	_(SAVE_DISPLAY,     "save-display",     SEC_TEST, "save screen",  "Write the screen as text to a file (scripts: :save-display FILE)")

/* _(ID, "title") — the help view's and the man page's groups of actions, in order. */
#define TUI_SECTIONS(_) \
	_(MOVE, "Moving") \
	_(VIEW, "Views") \
	_(STEP, "Stepping through the trace") \
	_(WHY,  "Why-not") \
	_(EDIT, "What-if, save and export") \
	_(TEST, "Scripts and tests")

#define SECTION_ENUM(id, title) SEC_##id,
enum tui_section { TUI_SECTIONS(SECTION_ENUM) SEC_COUNT };
#undef SECTION_ENUM

#define ACTION_ENUM(id, name, sec, hint, help) ACT_##id,
enum tui_action {
	ACT_NONE = 0,
	TUI_ACTIONS(ACTION_ENUM)
	ACT_COUNT
};
#undef ACTION_ENUM

typedef struct tui_action_def {
	enum tui_action action;
	const char *name;
	enum tui_section section;
	const char *hint;
	const char *help;
} tui_action_def;

const tui_action_def *action_get(enum tui_action a);   /* NULL for ACT_NONE / out of range */
enum tui_action action_from_name(const char *name);    /* ACT_NONE when unknown */
/* " (did you mean 'step-next'?)" for a name that is no action, or "". Returns buf. */
char *action_hint(const char *typed, char *buf, size_t size);
const char *section_title(enum tui_section s);

#endif
