/* detail.h — the detail view's rows for a subject (detail.c): what
 * view_detail.c shows and makes again on RES_DETAIL. The rows belong to the
 * caller; no curses. */
#ifndef FD_UI_DETAIL_H
#define FD_UI_DETAIL_H
#include "tui.h"

/* One row. rule: the rule it is about, or -1; path: the rule's edit path
 * ("priority") when the row shows an editable value, else empty. */
typedef struct detail_row {
	char text[256];
	int role;
	int32_t rule;
	char path[128];
} detail_row;

typedef VEC(detail_row) detail_rows;

/* rows made again for subject s from the session as it is now. */
void tui_detail_rows(tui *t, const detail_subject *s, detail_rows *rows);

#endif
