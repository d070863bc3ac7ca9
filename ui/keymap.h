/* keymap.h — key names and bindings. Bindings are read from text in the
 * keys-file syntax, tig's:  bind SCOPE KEY ACTION   (# comments), where SCOPE
 * is generic or a view name, KEY a character or a name in angle brackets
 * (<Up>, <PgDown>, <C-r>, <Space>, <Hash>, <F1>) and ACTION an action name
 * (actions.h) or "none" to unbind. The compiled-in defaults come first, the
 * user's file ($XDG_CONFIG_HOME/fusiondbg/keys) after: the last binding of a
 * key wins, a view's binding before a generic one. The keymap owns its array.
 * No curses in this header. */
#ifndef FD_UI_KEYMAP_H
#define FD_UI_KEYMAP_H
#include <stddef.h>
#include "actions.h"
#include "base/diag.h"
#include "base/vec.h"

/* Scopes: generic, then one per view in the order of enum tui_view (views.h). */
#define SCOPE_ENUM(X, id, ops, name, title, tab, help) SCOPE_##id,
enum keymap_scope { SCOPE_GENERIC, TUI_VIEWS(SCOPE_ENUM, ) SCOPE_COUNT };
#undef SCOPE_ENUM

/* The scope of view v's own bindings. */
static inline int keymap_scope_of(enum tui_view v)
{
	return SCOPE_GENERIC + 1 + (int)v;
}

typedef struct keymap_binding {
	int scope;
	int key;
	enum tui_action action;
} keymap_binding;

typedef VEC(keymap_binding) keymap;   /* in binding order: the last binding of a key wins */

void keymap_init(keymap *km);
void keymap_release(keymap *km);
/* Adds every binding of text; a bad line is reported in d as
 * file:line:col and skipped. Returns the number of bad lines. */
int  keymap_parse(keymap *km, const char *text, const char *file, fd_diags *d);
/* Defaults, then the user's file when there is one (its errors go to d). */
void keymap_load(keymap *km, fd_diags *d);
enum tui_action keymap_lookup(const keymap *km, int scope, int key);
/* The keys bound to action in scope (generic ones too, unless a view binding
 * shadows them), as "j, <Down>". Returns the count. */
int  keymap_keys_for(const keymap *km, int scope, enum tui_action a, char *buf, size_t size);

/* One key name at s (a character, or <Name>); sets *key and returns the
 * characters used, or 0 when it is not a key. */
size_t key_parse(const char *s, int *key);
char *key_label(int key, char *buf, size_t size);
/* '\r' and KEY_ENTER → '\n', DEL / ^H → KEY_BACKSPACE. */
int  key_normalize(int key);
const char *scope_name(int scope);       /* "generic", else the view's name */
int  scope_from_name(const char *name);  /* -1 when unknown */

/* The compiled-in defaults (keys_default.c, kept equal to ui/keys.default). */
extern const char keys_default_text[];

#endif
