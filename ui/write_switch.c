/* write_switch.c — the rule toggles back as CANN's fusion switch file (ATC's
 * --fusion_switch_file): W asks for the file, a script says ":write-switch
 * FILE". Every rule is written "on" or "off" as it is now, edits included,
 * in the form of the switch file the session read (lines or JSON; JSON when
 * it read none); the file is written atomically. */
#include <stdlib.h>
#include "loop.h"
#include "base/atomic_file.h"
#include "ir/cann_switch.h"
#include "ruleset/ruleset.h"

unsigned tui_write_switch(tui *t, const char *path)
{
	char asked[1024];
	if (!path || !*path) {
		if (!prompt_line(t, "write the rules' on/off as a fusion switch file: ", "fusion_switch.cfg", asked,
		                 sizeof asked) || !asked[0]) {
			tui_message(t, ROLE_NORMAL, "no switch file written");
			return RES_REDRAW;
		}
		path = asked;
	}
	const fd_ruleset *rs = session_rules(&t->s);
	size_t len = 0;
	bool lines = ruleset_switch_form(t->s.opt.fusion_switch) == CANN_SWITCH_LINES;
	char *text = ruleset_switch_text(rs, lines, &len);
	fd_diags d;
	diags_init(&d);
	int off = 0;
	for (int32_t i = 0; i < rs->n_rules; i++)
		off += !rs->rules[i].enabled;
	char line[1024];
	if (!text || file_write_output(path, text, len, &d) < 0)
		tui_message(t, ROLE_ERROR, "%s", d.n ? diag_format(&d.items[0], line, sizeof line) : "out of memory");
	else
		tui_message(t, ROLE_INFO, "wrote %s: %d rules on, %d off (ATC: --fusion_switch_file %s; fusiondbg: "
		            "--fusion-switch %s)", path, (int)rs->n_rules - off, off, path, path);
	free(text);
	diags_release(&d);
	return RES_REDRAW;
}
