/* actions.c — the action table generated from TUI_ACTIONS (actions.h), its
 * name lookup, and the section titles of the help view. */
#include <assert.h>
#include <string.h>
#include "actions.h"
#include "base/nearest.h"

#define ACTION_ROW(id, name, sec, hint, help) { ACT_##id, name, sec, hint, help },
static const tui_action_def actions[] = {
	{ ACT_NONE, "none", SEC_VIEW, "", "" },
	TUI_ACTIONS(ACTION_ROW)
};
#undef ACTION_ROW
static_assert(sizeof actions / sizeof *actions == ACT_COUNT, "one row per action");

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

char *action_hint(const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int a = ACT_NONE + 1; a < ACT_COUNT; a++)
		nearest_add(&nn, actions[a].name);
	return nearest_hint(&nn, buf, size);
}

static const char *const sections[] = {
#define SECTION_TITLE(id, title) [SEC_##id] = title,
	TUI_SECTIONS(SECTION_TITLE)
#undef SECTION_TITLE
};
static_assert(sizeof sections / sizeof *sections == SEC_COUNT, "one title per section");

const char *section_title(enum tui_section s)
{
	return s >= 0 && s < SEC_COUNT ? sections[s] : "";
}
