/* roles.h — what a piece of text is (a pass, a failure, the cursor, a
 * rule's colour …), for the themes (theme.c) to map to curses attributes.
 * No curses. */
#ifndef FD_UI_ROLES_H
#define FD_UI_ROLES_H

enum tui_role {
	ROLE_NORMAL, ROLE_TITLE, ROLE_STATUS, ROLE_CURSOR, ROLE_BORDER, ROLE_BORDER_FOCUS,
	ROLE_HEADER, ROLE_PASS, ROLE_FAIL, ROLE_WARN, ROLE_INFO, ROLE_FIRED, ROLE_DIM,
	ROLE_ERROR, ROLE_MATCH, ROLE_BREAK, ROLE_GAIN, ROLE_LOSS, ROLE_KEY, ROLE_EDITED,
	ROLE_RULE0, ROLE_RULE1, ROLE_RULE2, ROLE_RULE3, ROLE_RULE4, ROLE_RULE5,
	ROLE_COUNT
};
#define ROLE_RULE_COLOURS 6   /* rule i is drawn in ROLE_RULE0 + i % ROLE_RULE_COLOURS */

#endif
