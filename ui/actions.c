/* actions.c — the action table generated from TUI_ACTIONS (actions.h), its
 * name lookup, and the section titles of the help view. */
#include <string.h>
#include "actions.h"

#define ACTION_ROW(id, name, sec, hint, help) { ACT_##id, name, sec, hint, help },
static const tui_action_def actions[] = {
	{ ACT_NONE, "none", SEC_VIEW, "", "" },
	TUI_ACTIONS(ACTION_ROW)
};
#undef ACTION_ROW

const tui_action_def *action_get(enum tui_action a)
{
	return a > ACT_NONE && a < ACT_COUNT ? &actions[a] : NULL;
}

enum tui_action action_from_name(const char *name)
{
	for (int a = ACT_NONE + 1; a < ACT_COUNT; a++)
		if (!strcmp(actions[a].name, name))
			return (enum tui_action)a;
	return ACT_NONE;
}

static const char *const sections[SEC_COUNT] = {
	"Moving", "Views", "Stepping through the trace", "Why-not", "What-if, save and export",
	"Scripts and tests",
};

const char *section_title(enum tui_section s)
{
	return s >= 0 && s < SEC_COUNT ? sections[s] : "";
}
