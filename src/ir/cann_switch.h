/* cann_switch.h — CANN's fusion switch file (ATC's --fusion_switch_file,
 * TorchAir's fusion_switch_file) read as CANN's FE reads it (fusiondbg(1),
 * FUSION SWITCH FILE), and the table of passes FE never lets a user switch
 * off (cann_passes.c).
 *
 * FE reads one JSON value from the file; when that fails it reads lines:
 *   lines   "Pass:on" or "Pass:off", one a line; the key is what comes
 *           before the first ':', the value what follows, both trimmed;
 *           the value exactly "on" or "off"; an empty line is skipped, any
 *           other line without ':' (a comment too) is an error; a name
 *           given twice is an error; every entry counts for graph and UB
 *           fusion both.
 *   JSON    an object whose keys are "Switch", "Priority" and
 *           "ExceptionalPassOfO1Level" (an array of names) only; below
 *           Switch and Priority only "GraphFusion" and "UBFusion"; a
 *           switch value a string, "on" or "off"; "ALL" is the default of
 *           its section, a named pass beats it; Priority's levels "Top",
 *           "Main", "Down", each pass's priority an integer string within
 *           the level's range (user and built-in files differ), a pass
 *           named twice an error; any key given twice in an object (a
 *           pass, a section, Switch) is an error naming both places.
 * Where FE checks a key or value trimmed but applies it as written, the
 * entry keeps what FE applies and a warning says so.
 *
 * Ownership: fd_cann_switch owns its entries and strings (arena). */
#ifndef FD_CANN_SWITCH_H
#define FD_CANN_SWITCH_H
#include <stdbool.h>
#include <stddef.h>
#include "base/arena.h"
#include "base/diag.h"
#include "ir/cann_record.h"

typedef enum fd_cann_switch_form { CANN_SWITCH_LINES, CANN_SWITCH_JSON } fd_cann_switch_form;

typedef struct fd_cann_switch_entry {
	const char *name;
	int section;               /* fd_cann_section, or -1: both (the line form) */
	bool on;
	int line, col;
} fd_cann_switch_entry;

typedef struct fd_cann_priority {
	const char *name, *level;  /* "Top", "Main", "Down" */
	int section;
	long value;
	int line, col;
} fd_cann_priority;

typedef struct fd_cann_switch {
	fd_arena arena;
	const char *path;
	fd_cann_switch_form form;
	size_t n_entries, n_priorities, n_exceptional;
	fd_cann_switch_entry *entries;       /* ALL included, in file order */
	fd_cann_priority *priorities;
	fd_cann_switch_entry *exceptional;   /* ExceptionalPassOfO1Level: forced on */
} fd_cann_switch;

/* Reads text (size bytes) named path. builtin: the ranges of CANN's own
 * fusion_config.json, else a user's. -1 and one error in d when FE refuses
 * the file (sw then holds nothing, no release needed); warnings for what FE
 * takes otherwise than it looks. */
int  cann_switch_read(fd_cann_switch *sw, const char *path, const char *text, size_t size, bool builtin,
                      fd_diags *d);
void cann_switch_release(fd_cann_switch *sw);
/* The entry for name in section (an entry of both sections counts), NULL. */
const fd_cann_switch_entry *cann_switch_find(const fd_cann_switch *sw, const char *name, fd_cann_section section);

/* A pass FE always runs, whatever a switch file says (cann_passes.c). */
bool cann_pass_forbidden_closed(const char *name);

#endif
