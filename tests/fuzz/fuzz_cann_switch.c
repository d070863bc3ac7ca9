/* fuzz_cann_switch.c — libFuzzer harness for CANN's fusion switch file
 * reader (ir/cann_switch.h): any bytes are read as a user's file and as a
 * built-in one. What must hold: it reads or it fails with exactly one
 * error; a file it reads is one form, its entries named (the line form's
 * for both sections, no name twice), its priorities within FE's widest
 * ranges, and every name it switches findable again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ir/cann_switch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, bool builtin)
{
	fd_diags d;
	diags_init(&d);
	fd_cann_switch sw;
	if (cann_switch_read(&sw, "fuzz.cfg", (const char *)data, size, builtin, &d) < 0) {
		if (d.errors != 1)
			abort();
		diags_release(&d);
		return;
	}
	if (d.errors || (sw.form != CANN_SWITCH_LINES && sw.form != CANN_SWITCH_JSON))
		abort();
	for (size_t k = 0; k < sw.n_entries; k++) {
		const fd_cann_switch_entry *e = &sw.entries[k];
		if (!e->name || !*e->name || (sw.form == CANN_SWITCH_LINES) != (e->section < 0))
			abort();
		const fd_cann_switch_entry *f = cann_switch_find(&sw, e->name, e->section < 0 ? CANN_GRAPH_FUSION :
		                                                 (fd_cann_section)e->section);
		if (!f || (sw.form == CANN_SWITCH_LINES && f != e))
			abort();
	}
	for (size_t k = 0; k < sw.n_priorities; k++)
		if (sw.priorities[k].value < 0 || sw.priorities[k].value >= 6000 || !sw.priorities[k].name)
			abort();
	if (cann_pass_forbidden_closed("ConstToAttrPass") != true || cann_pass_forbidden_closed("") != false)
		abort();
	cann_switch_release(&sw);
	diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, false);
	check(data, size, true);
	return 0;
}
