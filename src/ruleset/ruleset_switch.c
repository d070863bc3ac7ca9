/* ruleset_switch.c — CANN's fusion switch file, the JSON that ATC takes as
 * --fusion_switch_file:
 *   {"Switch": {"GraphFusion": {"PassName": "on" | "off", …, "ALL": "on"},
 *               "UBFusion": {…}}}
 * Reading it turns the rules it names on or off; ALL is the default for the
 * rules it does not name. Writing it gives the rule set's enabled states
 * back as such a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/input_file.h"
#include "base/json.h"
#include "base/json_read.h"
#include "base/nearest.h"
#include "ruleset/ruleset.h"

static const char *const sections[] = { "GraphFusion", "UBFusion" };

/* "on" → 1, "off" → 0, anything else -1 (a message in d). */
static int switch_value(const char *path, const char *key, const fd_jval *v, fd_diags *d)
{
	if (v->kind == JV_STRING && !strcasecmp(v->str, "on"))
		return 1;
	if (v->kind == JV_STRING && !strcasecmp(v->str, "off"))
		return 0;
	diag_error(d, (fd_srcpos){ path, v->line, v->col }, "'%s': expected \"on\" or \"off\"", key);
	return -1;
}

/* Rule i turned off by the file: noted as the environment notes it, so
 * that a save does not write it into the rule file. */
static void set_enabled(fd_ruleset *rs, int i, bool on)
{
	if (!on && rs->env_off)
		rs->env_off[i] |= rs->rules[i].enabled;
	rs->rules[i].enabled = on;
}

int ruleset_apply_switch_file(fd_ruleset *rs, const char *path, fd_diags *d)
{
	size_t size;
	char *text = input_read(path, &INPUT_LIMIT_PASSES, &size, d);
	if (!text)
		return -1;
	fd_jdoc doc;
	int rc = jdoc_parse(&doc, path, text, size, d);
	free(text);
	if (rc < 0)
		return -1;
	const fd_jval *sw = jval_get(doc.root, "Switch");
	if (!sw || sw->kind != JV_OBJECT) {
		diag_error(d, (fd_srcpos){ path, doc.root ? doc.root->line : 1, doc.root ? doc.root->col : 1 },
		           "not a fusion switch file: expected {\"Switch\": {\"GraphFusion\": {…}, \"UBFusion\": {…}}}");
		jdoc_release(&doc);
		return -1;
	}
	if (!rs->env_off)
		rs->env_off = xcalloc((size_t)rs->n_rules + 1, sizeof *rs->env_off);
	int all = -1;                 /* the default: GraphFusion's ALL, else UBFusion's */
	signed char *named = xcalloc((size_t)rs->n_rules + 1, sizeof *named);
	memset(named, -1, (size_t)rs->n_rules + 1);
	for (size_t s = 0; s < sw->n; s++) {
		const fd_jval *sec = sw->items[s];
		bool known = !strcmp(sw->keys[s], sections[0]) || !strcmp(sw->keys[s], sections[1]);
		if (!known) {
			diag_warning(d, (fd_srcpos){ path, sec->line, sec->col }, "unknown section '%s' in Switch "
			             "(known: GraphFusion, UBFusion): ignored", sw->keys[s]);
			continue;
		}
		if (sec->kind != JV_OBJECT) {
			diag_error(d, (fd_srcpos){ path, sec->line, sec->col }, "Switch.%s: expected an object of "
			           "\"PassName\": \"on\" | \"off\"", sw->keys[s]);
			rc = -1;
			continue;
		}
		for (size_t k = 0; k < sec->n; k++) {
			const char *key = sec->keys[k];
			int on = switch_value(path, key, sec->items[k], d);
			if (on < 0) {
				rc = -1;
				continue;
			}
			if (!strcmp(key, "ALL")) {
				if (all < 0 || !strcmp(sw->keys[s], sections[0]))
					all = on;
				continue;
			}
			int32_t i = ruleset_find(rs, key);
			if (i >= 0) {
				named[i] = (signed char)on;
				continue;
			}
			/* a pass of the compiler's own, or a slip: say which rule is near */
			char hint[600];
			fd_nearest nn;
			nearest_init(&nn, key);
			for (int r = 0; r < rs->n_rules; r++)
				nearest_add(&nn, rs->rules[r].name);
			diag_warning(d, (fd_srcpos){ path, sec->items[k]->line, sec->items[k]->col },
			             "Switch.%s names '%s', which no loaded rule is%s", sw->keys[s], key,
			             nearest_hint(&nn, hint, sizeof hint));
		}
	}
	if (rc == 0)
		for (int i = 0; i < rs->n_rules; i++)
			if (named[i] >= 0 || all >= 0)
				set_enabled(rs, i, named[i] >= 0 ? named[i] == 1 : all == 1);
	free(named);
	jdoc_release(&doc);
	return rc;
}

char *ruleset_switch_json(const fd_ruleset *rs, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return NULL;
	/* every rule named, so that ALL (the compiler's own passes) stays as the
	 * compiler has it */
	fputs("{\n  \"Switch\": {\n    \"GraphFusion\": {", f);
	for (int i = 0; i < rs->n_rules; i++) {
		fputs(i ? ",\n      " : "\n      ", f);
		json_write_string(f, rs->rules[i].name);
		fprintf(f, ": \"%s\"", rs->rules[i].enabled ? "on" : "off");
	}
	fputs(rs->n_rules ? "\n    },\n" : "},\n", f);
	fputs("    \"UBFusion\": {}\n  }\n}\n", f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	*len = n;
	return text;
}
