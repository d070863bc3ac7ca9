/* fuzz_switch_write.c — libFuzzer harness for the fusion switch file's
 * round trip: any bytes are a switch file, read by CANN's reader
 * (cann_switch_read, for its form) and applied to a fixed rule set as
 * --fusion-switch applies it (ruleset_apply_switch_file: CANN's rules in
 * rules/cann, or $FUZZ_RULES); the rule set's on/off is then written as the
 * TUI's W writes it, in the form that was read (ruleset_switch_form, which
 * must agree; ruleset_switch_text), read again and applied to the rule set as loaded. What must hold: the
 * written text reads, in that form, and gives every rule the state the
 * first file gave it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/cann_switch.h"
#include "ruleset/ruleset.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_switch_write: %s\n%s\n", what, text ? text : "");
	abort();
}

static const char *rules_path(void)
{
	const char *r = getenv("FUZZ_RULES");
	return r && *r ? r : "rules/cann";
}

/* The rules as loaded with the switch file at path applied; -1 when it does not apply. */
static int switched(fd_ruleset *rs, const char *path)
{
	fd_diags d;
	diags_init(&d);
	ruleset_init(rs);
	if (ruleset_load(rs, rules_path(), &d) < 0) {
		fprintf(stderr, "fuzz_switch_write: cannot load %s (run from the repository root)\n", rules_path());
		abort();
	}
	int rc = ruleset_apply_switch_file(rs, path, &d);
	diags_release(&d);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fd_diags d;
	diags_init(&d);
	fd_cann_switch sw;
	if (cann_switch_read(&sw, "fuzz.cfg", (const char *)data, size, false, &d) < 0) {
		diags_release(&d);
		return 0;
	}
	bool lines = sw.form == CANN_SWITCH_LINES;
	cann_switch_release(&sw);
	diags_release(&d);

	char buf[512];
	const char *path = fuzz_write("switch.cfg", data, size, buf, sizeof buf);
	/* the form the TUI's W writes in is the one ruleset_switch_form reads */
	if (ruleset_switch_form(path) != (lines ? CANN_SWITCH_LINES : CANN_SWITCH_JSON))
		fail("the two readers see different forms", NULL);
	fd_ruleset first, again;
	if (switched(&first, path) < 0)
		fail("a file the reader reads does not apply", NULL);
	size_t len;
	char *text = ruleset_switch_text(&first, lines, &len);
	if (!text)
		fail("no text written", NULL);
	diags_init(&d);
	if (cann_switch_read(&sw, "written.cfg", text, len, false, &d) < 0 || (sw.form == CANN_SWITCH_LINES) != lines)
		fail("the written file does not read in the form read", text);
	cann_switch_release(&sw);
	diags_release(&d);
	if (switched(&again, fuzz_write("written.cfg", text, len, buf, sizeof buf)) < 0)
		fail("the written file does not apply", text);
	if (again.n_rules != first.n_rules)
		fail("the rule sets differ", NULL);
	for (int i = 0; i < first.n_rules; i++)
		if (first.rules[i].enabled != again.rules[i].enabled)
			fail(first.rules[i].name, text);
	free(text);
	ruleset_release(&first);
	ruleset_release(&again);
	return 0;
}
