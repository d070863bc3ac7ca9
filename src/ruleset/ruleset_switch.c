/* ruleset_switch.c — CANN's fusion switch file applied to the rules as
 * CANN's FE applies it to its passes (ir/cann_switch.h reads both forms),
 * and the rules' on/off written back in the form that was read. The
 * catalogue of CANN's own passes (a built-in fusion_config.json) is read
 * from where the user's CANN keeps it, for did-you-mean only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/input_file.h"
#include "base/json.h"
#include "base/nearest.h"
#include "ir/cann_switch.h"
#include "ruleset/ruleset.h"

/* Rule i as the file decides it: noted, so that an edit of the rule keeps
 * it, a save does not write it into the rule file and the trace names the
 * file. */
static void set_enabled(fd_ruleset *rs, int i, bool on)
{
	rs->enabled_by[i] = (unsigned char)(on ? ENABLED_BY_SWITCH_ON : ENABLED_BY_SWITCH_OFF);
	rs->rules[i].enabled = on;
}

const char *ruleset_cann_catalogue_path(char *buf, size_t size)
{
	const char *env = getenv("FUSIONDBG_CANN_CATALOGUE");
	if (env && *env)
		return env;
	const char *opp = getenv("ASCEND_OPP_PATH");
	struct stat st;
	if (!opp || !*opp)
		return NULL;
	snprintf(buf, size, "%s/built-in/fusion_pass/config/fusion_config.json", opp);
	return stat(buf, &st) == 0 ? buf : NULL;
}

/* The catalogue's pass names (sw zeroed when there is none); a catalogue
 * that does not read is a warning: the switch file still applies. */
static void read_catalogue(fd_cann_switch *cat, fd_diags *d)
{
	char buf[4096];
	memset(cat, 0, sizeof *cat);
	const char *path = ruleset_cann_catalogue_path(buf, sizeof buf);
	if (!path)
		return;
	fd_diags cd;
	diags_init(&cd);
	size_t size;
	char *text = input_read(path, &INPUT_LIMIT_PASSES, &size, &cd);
	if (!text || cann_switch_read(cat, path, text, size, true, &cd) < 0) {
		char line[600];
		diag_warning(d, srcpos_file(path), "CANN's pass catalogue (FUSIONDBG_CANN_CATALOGUE) does not read: %s",
		             cd.n ? diag_format(&cd.items[0], line, sizeof line) : "?");
		memset(cat, 0, sizeof *cat);
	}
	free(text);
	diags_release(&cd);
}

static bool in_catalogue(const fd_cann_switch *cat, const char *name)
{
	for (size_t k = 0; k < cat->n_entries; k++)
		if (!strcmp(cat->entries[k].name, name))
			return true;
	for (size_t k = 0; k < cat->n_priorities; k++)
		if (!strcmp(cat->priorities[k].name, name))
			return true;
	for (size_t k = 0; k < cat->n_exceptional; k++)
		if (!strcmp(cat->exceptional[k].name, name))
			return true;
	return false;
}

static const char *entry_where(const fd_cann_switch *sw, const fd_cann_switch_entry *e)
{
	if (e->section < 0)
		return sw->form == CANN_SWITCH_LINES ? "the switch file" : "ExceptionalPassOfO1Level";
	return e->section == CANN_GRAPH_FUSION ? "Switch.GraphFusion" : "Switch.UBFusion";
}

/* A name no loaded rule has: CANN's own pass, or a slip near a rule's
 * name or a pass's of the catalogue. */
static void unknown_name(const fd_ruleset *rs, const fd_cann_switch *sw, const fd_cann_switch *cat,
                         const fd_cann_switch_entry *e, fd_diags *d)
{
	fd_srcpos pos = { sw->path, e->line, e->col };
	if (!strcmp(e->name, "ALL"))
		return;
	if (in_catalogue(cat, e->name)) {
		diag_add(d, DIAG_NOTE, pos, "%s names '%s', CANN's own pass (in the catalogue %s); no loaded rule is "
		         "named after it", entry_where(sw, e), e->name, cat->path);
		return;
	}
	char hint[600];
	fd_nearest nn;
	nearest_init(&nn, e->name);
	for (int r = 0; r < rs->n_rules; r++)
		nearest_add(&nn, rs->rules[r].name);
	for (size_t k = 0; k < cat->n_entries; k++)
		nearest_add(&nn, cat->entries[k].name);
	for (size_t k = 0; k < cat->n_priorities; k++)
		nearest_add(&nn, cat->priorities[k].name);
	diag_warning(d, pos, "%s names '%s', which no loaded rule is%s", entry_where(sw, e), e->name,
	             nearest_hint(&nn, hint, sizeof hint));
}

/* A pass the file switches off that FE runs all the same: warned, and a
 * rule of that name keeps its state. */
static bool kept_on(const fd_cann_switch *sw, const fd_cann_switch_entry *e, fd_diags *d)
{
	if (e->on)
		return false;
	fd_srcpos pos = { sw->path, e->line, e->col };
	for (size_t k = 0; k < sw->n_exceptional; k++)
		if (!strcmp(sw->exceptional[k].name, e->name)) {
			diag_warning(d, pos, "'%s' is switched off, but the file's ExceptionalPassOfO1Level (%d:%d) keeps it on: "
			             "FE decides that list first", e->name, sw->exceptional[k].line, sw->exceptional[k].col);
			return true;
		}
	if (cann_pass_forbidden_closed(e->name)) {
		diag_warning(d, pos, "'%s' cannot be switched off: CANN's FE always runs it (one of the passes it "
		             "forbids closing), so it stays on", e->name);
		return true;
	}
	return false;
}

/* The entry that decides rule name, FE's way: the name in GraphFusion (or a
 * line), else in UBFusion, else ALL of GraphFusion, else of UBFusion. */
static const fd_cann_switch_entry *deciding(const fd_cann_switch *sw, const char *name)
{
	const fd_cann_switch_entry *e = cann_switch_find(sw, name, CANN_GRAPH_FUSION);
	if (!e)
		e = cann_switch_find(sw, name, CANN_UB_FUSION);
	if (!e)
		e = cann_switch_find(sw, "ALL", CANN_GRAPH_FUSION);
	if (!e)
		e = cann_switch_find(sw, "ALL", CANN_UB_FUSION);
	return e;
}

int ruleset_apply_switch_file(fd_ruleset *rs, const char *path, fd_diags *d)
{
	size_t size;
	char *text = input_read(path, &INPUT_LIMIT_PASSES, &size, d);
	if (!text)
		return -1;
	fd_cann_switch sw;
	int rc = cann_switch_read(&sw, path, text, size, false, d);
	free(text);
	if (rc < 0)
		return -1;
	fd_cann_switch cat;
	read_catalogue(&cat, d);
	if (!rs->enabled_by)
		rs->enabled_by = xcalloc((size_t)rs->n_rules + 1, sizeof *rs->enabled_by);
	for (size_t k = 0; k < sw.n_entries; k++) {
		const fd_cann_switch_entry *e = &sw.entries[k];
		if (ruleset_find(rs, e->name) < 0)
			unknown_name(rs, &sw, &cat, e, d);
		if (ruleset_find(rs, e->name) < 0)
			(void)kept_on(&sw, e, d);   /* CANN's pass: said, nothing to change */
	}
	for (int i = 0; i < rs->n_rules; i++) {
		const char *name = rs->rules[i].name;
		bool exceptional = false;
		for (size_t k = 0; k < sw.n_exceptional; k++)
			exceptional |= !strcmp(sw.exceptional[k].name, name);
		const fd_cann_switch_entry *e = deciding(&sw, name);
		bool named = e && strcmp(e->name, "ALL");
		if (exceptional)
			set_enabled(rs, i, true);
		if (named && kept_on(&sw, e, d))
			continue;
		if (e && !exceptional && !(!named && cann_pass_forbidden_closed(name)))
			set_enabled(rs, i, e->on);
	}
	for (size_t k = 0; k < sw.n_priorities; k++)
		if (ruleset_find(rs, sw.priorities[k].name) >= 0)
			diag_warning(d, (fd_srcpos){ path, sw.priorities[k].line, sw.priorities[k].col }, "Priority gives rule "
			             "'%s' %ld: read and checked as FE does, not applied (fusiondbg orders rules by their own "
			             "priority)", sw.priorities[k].name, sw.priorities[k].value);
	cann_switch_release(&sw);
	cann_switch_release(&cat);
	return 0;
}

int ruleset_switch_form(const char *path)
{
	fd_diags d;
	diags_init(&d);
	size_t size;
	char *text = path ? input_read(path, &INPUT_LIMIT_PASSES, &size, &d) : NULL;
	fd_cann_switch sw;
	int form = text && cann_switch_read(&sw, path, text, size, false, &d) == 0 ? (int)sw.form : -1;
	if (form >= 0)
		cann_switch_release(&sw);
	free(text);
	diags_release(&d);
	return form;
}

char *ruleset_switch_text(const fd_ruleset *rs, bool lines, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return NULL;
	if (lines) {
		/* one line a rule; no ALL, so CANN's own passes keep their default */
		for (int i = 0; i < rs->n_rules; i++)
			fprintf(f, "%s:%s\n", rs->rules[i].name, rs->rules[i].enabled ? "on" : "off");
	} else {
		/* every rule named, so that ALL (the compiler's own passes) stays as
		 * the compiler has it */
		fputs("{\n  \"Switch\": {\n    \"GraphFusion\": {", f);
		for (int i = 0; i < rs->n_rules; i++) {
			fputs(i ? ",\n      " : "\n      ", f);
			json_write_string(f, rs->rules[i].name);
			fprintf(f, ": \"%s\"", rs->rules[i].enabled ? "on" : "off");
		}
		fputs(rs->n_rules ? "\n    },\n" : "},\n", f);
		fputs("    \"UBFusion\": {}\n  }\n}\n", f);
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	*len = n;
	return text;
}
