/* keymap.c — key names, the keys-file parser and binding lookup. See
 * keymap.h for the syntax. */
#include <assert.h>
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "keymap.h"

static_assert(SCOPE_COUNT == VIEW_COUNT + 1, "generic, then one scope per view");

const char *scope_name(int scope)
{
	if (scope == SCOPE_GENERIC)
		return "generic";
	return scope > SCOPE_GENERIC && scope < SCOPE_COUNT ? view_name((enum tui_view)(scope - SCOPE_GENERIC - 1)) : "?";
}

int scope_from_name(const char *name)
{
	for (int i = 0; i < SCOPE_COUNT; i++)
		if (!strcmp(name, scope_name(i)))
			return i;
	return -1;
}

/* "generic, rules, graph, …": the scopes, for the keys file's error message */
#define SCOPE_LIST(X, id, ops, name, title, tab, help) ", " name
static const char scope_list[] = "generic" TUI_VIEWS(SCOPE_LIST, );
#undef SCOPE_LIST

/* Named keys, as data. The first name of a key is the one printed. */
static const struct key_def {
	const char *name;
	int key;
} key_names[] = {
	{ "Up", KEY_UP }, { "Down", KEY_DOWN }, { "Left", KEY_LEFT }, { "Right", KEY_RIGHT },
	{ "PgUp", KEY_PPAGE }, { "PageUp", KEY_PPAGE }, { "PgDown", KEY_NPAGE }, { "PageDown", KEY_NPAGE },
	{ "Home", KEY_HOME }, { "End", KEY_END }, { "Enter", '\n' }, { "Return", '\n' },
	{ "Tab", '\t' }, { "BackTab", KEY_BTAB }, { "S-Tab", KEY_BTAB }, { "Esc", 27 }, { "Escape", 27 },
	{ "Space", ' ' }, { "Backspace", KEY_BACKSPACE }, { "Del", KEY_DC }, { "Delete", KEY_DC },
	{ "Ins", KEY_IC }, { "Insert", KEY_IC }, { "Hash", '#' }, { "LessThan", '<' }, { "Lt", '<' },
	{ "Resize", KEY_RESIZE },
};

int key_normalize(int key)
{
	if (key == '\r' || key == KEY_ENTER)
		return '\n';
	if (key == 127 || key == 8)
		return KEY_BACKSPACE;
	return key;
}

size_t key_parse(const char *s, int *key)
{
	if (!s || !*s)
		return 0;
	if (s[0] != '<' || !strchr(s, '>') || s[1] == '>') {
		if ((unsigned char)s[0] < 0x20)
			return 0;
		*key = (unsigned char)s[0];
		return 1;
	}
	const char *end = strchr(s, '>');
	size_t len = (size_t)(end - s - 1);
	char name[32];
	if (len == 0 || len >= sizeof name)
		return 0;
	memcpy(name, s + 1, len);
	name[len] = 0;
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (!strcasecmp(name, key_names[i].name)) {
			*key = key_names[i].key;
			return len + 2;
		}
	/* <C-r>, <Ctrl-r>, <^R> */
	const char *c = NULL;
	if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-' && name[2] && !name[3])
		c = name + 2;
	else if (!strncasecmp(name, "Ctrl-", 5) && name[5] && !name[6])
		c = name + 5;
	else if (name[0] == '^' && name[1] && !name[2])
		c = name + 1;
	if (c && isalpha((unsigned char)*c)) {
		*key = tolower((unsigned char)*c) - 'a' + 1;
		return len + 2;
	}
	if ((name[0] == 'F' || name[0] == 'f') && isdigit((unsigned char)name[1])) {
		int n = atoi(name + 1);
		if (n >= 1 && n <= 12) {
			*key = KEY_F(n);
			return len + 2;
		}
	}
	return 0;
}

char *key_label(int key, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (key_names[i].key == key) {
			snprintf(buf, size, "<%s>", key_names[i].name);
			return buf;
		}
	if (key >= 1 && key <= 26)
		snprintf(buf, size, "<C-%c>", 'a' + key - 1);
	else if (key >= KEY_F(1) && key <= KEY_F(12))
		snprintf(buf, size, "<F%d>", key - KEY_F(0));
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "<%d>", key);
	return buf;
}

void keymap_init(keymap *km)
{
	*km = (keymap){ 0 };
}

void keymap_release(keymap *km)
{
	vec_release(km);
}

/* The next word of a line: start column (1-based) and length. */
static const char *word(const char *p, const char *end, size_t *len)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *w = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*len = (size_t)(p - w);
	return w;
}

int keymap_parse(keymap *km, const char *text, const char *file, fd_diags *d)
{
	int bad = 0, line = 0;
	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		line++;
		const char *end = eol;
		/* a comment starts with # at a word start */
		for (const char *q = p; q < eol; q++)
			if (*q == '#' && (q == p || q[-1] == ' ' || q[-1] == '\t')) {
				end = q;
				break;
			}
		size_t l1, l2, l3, l4;
		const char *w1 = word(p, end, &l1);
		if (l1 == 0)
			goto next;
		const char *w2 = word(w1 + l1, end, &l2);
		const char *w3 = word(w2 + l2, end, &l3);
		const char *w4 = word(w3 + l3, end, &l4);
		fd_srcpos pos = { file, line, (int)(w1 - p) + 1 };
		char tmp[64];
		if (l1 != 4 || strncmp(w1, "bind", 4)) {
			diag_error(d, pos, "expected 'bind SCOPE KEY ACTION', found '%.*s'", (int)l1, w1);
			bad++;
			goto next;
		}
		if (!l2 || !l3 || !l4) {
			pos.col = (int)((l2 ? (l3 ? w4 : w3) : w2) - p) + 1;
			diag_error(d, pos, "expected 'bind SCOPE KEY ACTION': %s missing",
			           !l2 ? "SCOPE" : !l3 ? "KEY" : "ACTION");
			bad++;
			goto next;
		}
		snprintf(tmp, sizeof tmp, "%.*s", (int)l2, w2);
		int scope = scope_from_name(tmp);
		if (scope < 0) {
			pos.col = (int)(w2 - p) + 1;
			diag_error(d, pos, "unknown scope '%s' (%s)", tmp, scope_list);
			bad++;
			goto next;
		}
		snprintf(tmp, sizeof tmp, "%.*s", (int)l3, w3);
		int key;
		if (key_parse(tmp, &key) != strlen(tmp)) {
			pos.col = (int)(w3 - p) + 1;
			diag_error(d, pos, "unknown key '%s' (a character, or <Up>, <C-r>, <Space>, <Hash>, <F1> …)", tmp);
			bad++;
			goto next;
		}
		snprintf(tmp, sizeof tmp, "%.*s", (int)l4, w4);
		enum tui_action a = strcmp(tmp, "none") ? action_from_name(tmp) : ACT_NONE;
		if (a == ACT_NONE && strcmp(tmp, "none")) {
			pos.col = (int)(w4 - p) + 1;
			char hint[600];
			diag_error(d, pos, "unknown action '%s'%s (see the help view or fusiondbg(1))", tmp,
			           action_hint(tmp, hint, sizeof hint));
			bad++;
			goto next;
		}
		size_t l5;
		const char *w5 = word(w4 + l4, end, &l5);
		if (l5) {
			pos.col = (int)(w5 - p) + 1;
			diag_error(d, pos, "unexpected '%.*s' after the action", (int)l5, w5);
			bad++;
			goto next;
		}
		vec_push(km, ((keymap_binding){ scope, key, a }));
	next:
		p = *eol ? eol + 1 : eol;
	}
	return bad;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0)
			buf = xrealloc(buf, cap *= 2);
	}
	fclose(f);
	buf[n] = 0;
	return buf;
}

void keymap_load(keymap *km, fd_diags *d)
{
	keymap_parse(km, keys_default_text, "ui/keys.default", d);
	char path[4096];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(path, sizeof path, "%s/fusiondbg/keys", xdg);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.config/fusiondbg/keys", home);
	else
		return;
	char *text = read_file(path);
	if (text) {
		keymap_parse(km, text, path, d);
		free(text);
	}
}

enum tui_action keymap_lookup(const keymap *km, int scope, int key)
{
	for (size_t i = km->n; i-- > 0;)
		if (km->items[i].scope == scope && km->items[i].key == key)
			return km->items[i].action;
	if (scope != SCOPE_GENERIC)
		return keymap_lookup(km, SCOPE_GENERIC, key);
	return ACT_NONE;
}

int keymap_keys_for(const keymap *km, int scope, enum tui_action a, char *buf, size_t size)
{
	int count = 0;
	size_t used = 0;
	buf[0] = 0;
	/* every distinct key whose effective binding in scope is a, in binding order */
	for (size_t i = 0; i < km->n; i++) {
		const keymap_binding *b = &km->items[i];
		if (b->action != a || (b->scope != scope && b->scope != SCOPE_GENERIC))
			continue;
		if (keymap_lookup(km, scope, b->key) != a)
			continue;
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			if (km->items[j].key == b->key && km->items[j].action == a &&
			    (km->items[j].scope == scope || km->items[j].scope == SCOPE_GENERIC))
				seen = true;
		if (seen)
			continue;
		char name[32];
		key_label(b->key, name, sizeof name);
		int w = snprintf(buf + used, size - used, "%s%s", count ? ", " : "", name);
		if (w < 0 || (size_t)w >= size - used)
			break;
		used += (size_t)w;
		count++;
	}
	return count;
}
