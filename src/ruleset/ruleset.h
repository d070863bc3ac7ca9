/* ruleset.h — rule sets from files: loading files and directories of rule
 * documents (each document through the schema into a typed rule, rules.h),
 * the settings document, the environment, the default location, lookups,
 * and the lint (`check`). The typed rules and the YAML they point into are
 * rules/'s; the conditions of the language each parse themselves
 * (match/conditions.h), which is why this layer sits above the matcher.
 *
 * Files: ruleset.c the set; ruleset_settings.c the settings document;
 * rule_schema.c one document -> one rule; rule_sources.c its notes on where
 * its parts come from; rule_format.c the format's fields (rule_format.h); rule_check.c, rule_check_ext.c, rule_check_across.c the
 * lint. */
#ifndef FD_RULESET_H
#define FD_RULESET_H
#include "rules/rules.h"

void ruleset_init(fd_ruleset *rs);
void ruleset_release(fd_ruleset *rs);
/* Loads a file or a directory (*.yaml, *.yml, sorted by name) and appends its
 * rules. Schema errors go to d; returns -1 when any error was added. */
int  ruleset_load(fd_ruleset *rs, const char *path, fd_diags *d);
/* Derive one typed rule from a YAML document (rule_schema.c). Fills *out from
 * scratch (enabled = true); a what-if edit re-derives and restores enabled. */
int  rule_from_yaml(fd_ruleset *rs, fd_rule *out, const fd_ydoc *doc, fd_diags *d);
/* A rule's `sources:` map into r->sources, each key a path in the rule
 * (rule_sources.c; the schema's). */
struct fd_schema;
void rule_schema_sources(struct fd_schema *s, fd_rule *r, const fd_yval *v);
/* The note on the part of rule r written at pos: the narrowest `sources`
 * entry holding it, else the rule's `source`; NULL when none, or when pos
 * is no place in the rule (rule_sources.c). */
const char *rule_source_at(const fd_rule *r, fd_srcpos pos);
/* Lint (rule_check.c): `check`. With strict, check's own warnings are added as
 * errors; the warnings ruleset_load added (unknown keys, …) stay warnings in d
 * and the caller promotes them (cmd_check.c does). */
typedef struct fd_check_options {
	bool strict, verbose;
	bool as_warnings;          /* every finding a warning (the lint at load) */
} fd_check_options;
void ruleset_check(const fd_ruleset *rs, const fd_check_options *opt, fd_diags *d);
/* `check --seed-only` (rule_check_seed.c): an error for every key and
 * value form of the rules beyond the article's format, which CANN's
 * graph-autofusion documents (where, outputs, op alternatives, sizes with
 * units, pass, …), at its file:line:col. */
void ruleset_check_seed(const fd_ruleset *rs, fd_diags *d);
/* The per-rule part of the lint for one rule (not the findings across
 * rules): what a what-if edit must pass, with check's own messages. */
void ruleset_check_rule(const fd_ruleset *rs, const fd_rule *r, const fd_check_options *opt, fd_diags *d);
/* The rules whose schema failed, as far as the schema made them (their parts
 * live in the ruleset's arena and files): check lints them too, so that a
 * file is fixed in one round. ruleset_check_rejected resolves their op types
 * against the loaded set and lints each (ruleset_check_rule). */
typedef struct fd_rejected_rules {
	int n;
	fd_rule *rules;
} fd_rejected_rules;
int  ruleset_load_keeping_rejected(fd_ruleset *rs, const char *path, fd_rejected_rules *rej, fd_diags *d);
void ruleset_check_rejected(const fd_ruleset *rs, fd_rejected_rules *rej, const fd_check_options *opt, fd_diags *d);
void ruleset_rejected_release(fd_rejected_rules *rej);
/* check's message for a param the op (optable id) does not have, at the
 * op's path ("match.ops[2]"); NULL when it has it. */
const char *rule_check_unknown_param(int op_id, const char *name, const char *path, char *buf, size_t size);
/* The lint at load, for the commands that run rules: check's findings about
 * each rule on its own (unknown op types and params with their did-you-mean,
 * values of the wrong type, from_op out of range, constraints that can
 * never pass, …) as warnings; not the findings across rules (duplicates,
 * priority ties), which are check's. Return the warnings added. */
size_t ruleset_lint_rule(const fd_ruleset *rs, int32_t rule, fd_diags *d);
size_t ruleset_lint_loaded(const fd_ruleset *rs, fd_diags *d);

int32_t ruleset_find(const fd_ruleset *rs, const char *name);  /* rule index or -1 */
/* Fills fused_types from the rules' target_ops and gives each rule op of
 * such a type its id (every other op keeps its op table id or -1).
 * ruleset_load calls it; call it again after changing a rule. */
void ruleset_resolve_types(fd_ruleset *rs);
/* The rule index whose target_op is fused type id (>= optable_count()), the
 * first in load order, or -1. */
int32_t ruleset_fused_type_rule(const fd_ruleset *rs, int id);
/* The settings document (ruleset_settings.c): is doc one (its map has the
 * key `ruleset`), and read it into rs (-1 on an error, reported in d). */
bool ruleset_settings_doc(const fd_ydoc *doc);
int  ruleset_settings_from_yaml(fd_ruleset *rs, const fd_ydoc *doc, fd_diags *d);
fd_init_policy ruleset_init_policy_from_name(const char *name);  /* INIT_POLICY_UNSET when neither */
fd_shapes_mode ruleset_shapes_from_name(const char *name);        /* SHAPES_UNSET when neither full nor onnx */
/* The environment, as CANN graph-autofusion has it: GRAPH_AUTOFUSION_ENABLE=0 (or false /
 * off / no) disables every rule; GRAPH_AUTOFUSION_RULES="A,B" enables only the
 * named rules. Callers choose when to apply it (after loading, before --set).
 * The _diags form also warns about names in GRAPH_AUTOFUSION_RULES that no
 * loaded rule has (d may be NULL). */
void ruleset_apply_env(fd_ruleset *rs);
void ruleset_apply_env_diags(fd_ruleset *rs, fd_diags *d);
/* Rule i's on/off as the environment and the switch file left it
 * (rs->enabled_by), put over r derived again from its document; nothing
 * when neither decided it. */
void ruleset_enabled_settle(const fd_ruleset *rs, int i, fd_rule *r);
/* CANN's fusion switch file (ATC's --fusion_switch_file, ruleset_switch.c),
 * read in either of its forms exactly as CANN's FE reads it
 * (ir/cann_switch.h) and applied as FE applies it: a rule named in
 * GraphFusion (or on a line) takes that, else its entry in UBFusion, else
 * ALL of GraphFusion, else of UBFusion; the others keep their state.
 * ExceptionalPassOfO1Level turns its rules on; a pass FE never lets a user
 * switch off is warned about and keeps its state. A name no loaded rule has
 * is a warning with did-you-mean over the rules and CANN's catalogue, or a
 * note when the catalogue has it; Priority is checked, not applied (a
 * warning when it names a rule). A file FE refuses: -1 with one error at
 * file:line:col, and no rule changes. A rule the file decides is noted
 * in enabled_by (on or off), over the environment's word. Apply it after
 * the environment. */
int  ruleset_apply_switch_file(fd_ruleset *rs, const char *path, fd_diags *d);
/* CANN's catalogue of its own passes (a built-in fusion_config.json):
 * FUSIONDBG_CANN_CATALOGUE, else $ASCEND_OPP_PATH/built-in/fusion_pass/
 * config/fusion_config.json when it exists (buf holds that path), else NULL. */
const char *ruleset_cann_catalogue_path(char *buf, size_t size);
/* The form of the switch file at path (fd_cann_switch_form: 0 lines, 1
 * JSON), -1 when there is none or it does not read. */
int  ruleset_switch_form(const char *path);
/* The rule set's enabled states as a switch file: lines "Rule:on|off", or
 * JSON with every rule in GraphFusion and no ALL (the compiler's own
 * passes keep their default). Heap text, its length in *len; NULL when out
 * of memory. */
char *ruleset_switch_text(const fd_ruleset *rs, bool lines, size_t *len);
/* The rules a command names: every path in order, or, when n is 0,
 * ruleset_default_path() (the error RULESET_NONE_MESSAGE when that is NULL
 * too); then, with env and when all of them loaded, the environment. Every
 * message goes to d. Returns -1 when a path did not load or there was none. */
int  ruleset_load_paths(fd_ruleset *rs, const char *const *paths, int n, bool env, fd_diags *d);
/* Where the rules come from when none are named: GRAPH_AUTOFUSION_RULES_DIR
 * when set, else the installed library (FUSIONDBG_RULES_DIR, set by the
 * build to $(PREFIX)/share/fusiondbg/rules) when that directory exists, else
 * NULL. *origin (may be NULL) says which, for the user: "GRAPH_AUTOFUSION_RULES_DIR"
 * or "installed rules". */
const char *ruleset_default_path(const char **origin);
/* The message for "no rules given and none found". */
#define RULESET_NONE_MESSAGE "no rules: give -r RULES, set GRAPH_AUTOFUSION_RULES_DIR, or install the shipped rules (make install)"

#endif
