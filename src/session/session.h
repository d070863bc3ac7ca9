/* session.h — the one mutation API: a model, its rules and the match, with
 * what-if edits, re-run, undo / redo, the diff against the rules as loaded,
 * safe write-back to the YAML files and a recovery file. Both `--set` on the
 * command line and the TUI change rules only through this.
 *
 * Ownership: an fd_session owns everything it holds — the model, the rule set
 * (and its YAML files), the match context, the baseline result (rules as
 * loaded, computed once, at the first edit: one run only when nothing is
 * edited) and the current result, their estimates, and the
 * edit list. Pointers returned by the getters stay valid until the next
 * session_run / edit / undo / redo / save / close.
 *
 * Edits. A path names one value of a rule's YAML document; the fields a
 * what-if may set, and what each takes, are one table
 * (ruleset/rule_format.c, the conditions' own fields from
 * match/conditions.h). For example:
 *   priority  enabled  description  scope  pass
 *   match.ops.<i>.type | params.<name> | inputs.min_inputs | where | optional | outputs.count | …
 *   match.ops.<i>.input_sources.input<K>.from_op | source_type | rank | shape | dtype | …
 *   match.branches.<b>.ops.<i>.…                                (the same under a branch)
 *   match.subgraph.input_count_range | output_count | allow_intermediate_outputs
 *                                          (subgraph.…, ops.…, branches.… are accepted too)
 *   rewrite.target_op           rewrite.attributes.<name>      (tile_policy, chunk_size, …)
 *   constraints.<type>.<field>  constraints.<index>.<field>    (memory_limit.max_intermediate_size)
 *   output.<field>
 * A path is read once per edit (session_path.c: its one spelling, its
 * field, its op) and the rule is derived and linted once, again as it was
 * only when it has findings of its own (session_apply.c).
 * A value is YAML text: 250, true, 64MiB, "a string", [float16, float32].
 * It is checked before it is taken: the path must name a field of the format
 * (a param must be one the op has), the type and range must be what the
 * schema wants (sizes take units: 64MiB, 1.5GiB, 33554432); an error leaves
 * everything as it was and fills d with one line naming the path.
 * A key that the document does not have (a param or an `enabled:`) may be
 * added; a missing constraint entry or a missing parent map may not (the
 * message says so). `enabled` is an edit like any other: it lives in memory
 * until saved, and is then written as `enabled: false` (a key of the
 * document, after `priority:`). An edit of `enabled` overrides
 * GRAPH_AUTOFUSION_ENABLE / GRAPH_AUTOFUSION_RULES for that rule.
 *
 * Save. session_save writes every file whose values differ from disk,
 * changing nothing but the edited values (session_save.c says how): only
 * the bytes of each edited value are replaced (an added key is one new line
 * with the map's indentation and the file's line end; a value set back to
 * "absent" removes its lines); comments, order, anchors, merges, block
 * scalars and layout elsewhere are untouched. A value that is an alias is
 * written out as its own value, a key that came from a merge becomes a key
 * of its map (a note says so). A scalar is written as typed when every
 * reader (this one and a YAML 1.1 one) reads it the same, quoted otherwise.
 * The new text is parsed again before writing and must read as the file did
 * with the edited values put in, every other value unchanged; a value that
 * cannot be saved so is refused on its own (the others are saved). The file
 * keeps its identity (a symbolic link is written through, hard links, mode,
 * owner and group are kept), the original bytes are kept once as FILE.orig
 * (never more permissive than FILE), and the new bytes replace the old
 * atomically. A file changed on disk since it was read is not overwritten.
 * A value not saved stays in memory (still unsaved) and d says why. After a
 * save the file is read again, so later edits and saves stay exact. */
#ifndef FD_SESSION_H
#define FD_SESSION_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "base/diag.h"
#include "estimate/estimate.h"
#include "ir/graph.h"
#include "match/match.h"
#include "ruleset/ruleset.h"
#include "onnx/onnx.h"
#include "rounds/rounds.h"
#include "cse/cse.h"
#include "transpose/transpose.h"

typedef struct fd_session_options {
	const char *model_path;
	fd_load_options load;          /* --dim bindings */
	const char *const *rule_paths; /* files or directories, in order */
	int n_rule_paths;              /* 0: GRAPH_AUTOFUSION_RULES_DIR */
	const char *target;            /* NULL: ai_core */
	bool no_canonicalize;
	fd_init_policy initializers;   /* --initializers; UNSET: the rule set's setting, else onnx */
	fd_shapes_mode shapes;         /* --shapes; UNSET: the rule set's setting, else full */
	bool no_env;                   /* do not apply GRAPH_AUTOFUSION_ENABLE / _RULES */
	const char *fusion_switch;     /* CANN's fusion switch file, applied after the environment, or NULL */
	bool no_events;                /* record attempts only (faster; `why` and the stepper need events) */
	bool defer_run;                /* session_set / undo / redo do not re-run; call session_run */
	bool no_estimates;             /* runs make no memory estimates (a command that prints none):
	                                * session_estimate and the like are empty */
	bool background;               /* session_open returns once the model and rules are loaded;
	                                * shape inference, the index and the first run go on a thread
	                                * (session_first_run_*) */
	fd_estimate_options est;
	fd_rounds_options rounds;      /* --max-rounds, --passes */
} fd_session_options;

/* One applied what-if edit. Text is owned by the session. */
typedef struct fd_edit {
	int32_t rule;                  /* index in the rule set */
	const char *path;              /* "constraints.memory_limit.max_intermediate_size" */
	const char *old_text;          /* the value before, as YAML text; NULL when absent */
	const char *new_text;          /* the value after, as YAML text; NULL when the edit removed
	                                * the key (an "unset" line of a recovery file) */
	int32_t added;                 /* 1 + the rule file this edit adds (session_add_rule_file;
	                                * path "file", new_text the file's path); 0: a value */
} fd_edit;

/* What the rules as loaded (baseline) and the current rules do differently. */
typedef enum fd_change_kind { CHANGE_GAINED, CHANGE_LOST, CHANGE_CHANGED } fd_change_kind;

/* With rounds (rounds/rounds.h), the final fusions are compared — those no
 * later round fused again — by their original nodes; before / after index
 * the result of round round_before / round_after. */
typedef struct fd_fusion_change {
	fd_change_kind kind;
	int32_t graph;
	int32_t node;                  /* the node naming it: anchor (or first member), an original node */
	int32_t before;                /* fusion index in the baseline result, -1 when gained */
	int32_t after;                 /* fusion index in the current result, -1 when lost */
	int32_t round_before, round_after;  /* their rounds (1 when the rules run one round), 0 for none */
} fd_fusion_change;

typedef struct fd_rule_change {
	int32_t rule;
	int64_t priority_before, priority_after;
	bool enabled_before, enabled_after;
	int64_t effect_before, effect_after;   /* effect_times */
} fd_rule_change;

typedef struct fd_session_diff {
	fd_fusion_change *changes;     /* by graph, then topo order of node */
	size_t n_changes;
	size_t n_gained, n_lost, n_changed, n_unchanged;
	fd_rule_change *rules;         /* rules whose priority, enabled or effect changed */
	size_t n_rules;
	/* main graph, activations only */
	int64_t peak_unfused_bytes;    /* no fusion at all */
	int64_t peak_before_bytes;     /* with the baseline's fusions */
	int64_t peak_after_bytes;      /* with the current fusions */
} fd_session_diff;

/* What a change of the bindings did (session_rebind): the fusions gained,
 * lost and changed against the run before it, each with the reason its
 * attempt ends on now (lost) or ended on before (gained), and the main
 * graph's peak before -> after fusion, under the old and the new binding. */
typedef struct fd_binding_change {
	fd_change_kind kind;
	int32_t graph;
	int32_t node;                  /* the anchor's node */
	int32_t rule_before, rule_after;   /* -1 when none */
	fd_reason why;                 /* lost: how the attempt ends now; gained: how it ended before */
} fd_binding_change;

typedef struct fd_binding_diff {
	char what[160];                /* "batch: unbound -> 32" */
	fd_binding_change *changes;    /* by graph, then the anchor's topo order */
	size_t n_changes, n_gained, n_lost, n_changed;
	char peak_old[2][160];         /* before, after fusion; under the old binding ("768 KiB × batch") */
	char peak_new[2][160];         /* the same under the new one */
	int64_t peak_old_bytes, peak_new_bytes;   /* after fusion, -1 when not a number */
} fd_binding_diff;

/* Opaque parts (session_internal.h). */
struct fd_session_slot;
struct fd_session_file;
struct fd_session_first_run;
struct fd_session_added;

/* A file as stat saw it (session_file_stamp); known false: not seen. */
typedef struct fd_file_stamp {
	bool known;
	uint64_t dev, ino;
	int64_t size, mtime_ns, ctime_ns;
} fd_file_stamp;

typedef struct fd_session {
	fd_session_options opt;
	fd_model model;                /* the graph the rules see: as read, or after the steps of session_steps.c */
	fd_model loaded;               /* as read, when a step before the rules changed it (model borrows
	                                * from it, through the models between); else empty */
	fd_model between[2];           /* after a step, when a later step changed that too */
	int n_between;
	fd_cse_result cse_first;       /* the rule set's common-subexpression elimination, before and
	                                * after the transpose optimizer (session_steps.c) */
	fd_cse_result cse;
	fd_transpose_result tpose;     /* the rule set's transpose optimizer: its events (session_transpose.c) */
	fd_ruleset rules;
	fd_match_ctx ctx;
	fd_match_options mopt;
	fd_match_result baseline, current;   /* round 1 of each */
	fd_rounds baseline_rounds, current_rounds;
	/* with more than one round: the final fusions over the model (rounds_final_result)
	 * and their estimates, which the graph's peak after fusion comes from */
	fd_match_result baseline_final, current_final;
	fd_estimate baseline_final_est, current_final_est;
	fd_diags run_diags;            /* what the last run of the current rules said (fused nodes' warnings) */
	fd_estimate baseline_est, current_est;
	bool stale;                    /* edits since the last run */
	double last_run_ms;            /* matching + estimates of the last session_run */
	/* edits: [0, n_applied) applied; [n_applied, n_edits) redoable */
	fd_edit *edits;
	size_t n_edits, n_applied, cap_edits;
	/* private */
	struct fd_session_slot *slots;  /* every (rule, path) ever edited: disk vs memory */
	size_t n_slots, cap_slots;
	int64_t *prio0;                 /* per rule: as loaded */
	bool *enabled0;
	fd_arena arena;                 /* edit texts, parsed values */
	fd_yfile **retired;             /* YAML trees replaced by a save (rules pointed into them) */
	size_t n_retired;
	bool open;
	bool shapes_pending;            /* opt.background: the model's shapes are inferred by the first run */
	bool has_baseline;              /* baseline is run at the first edit; until then it is current */
	int recovery_lock;              /* 1 + the fd holding this session's recovery lock; 0: none */
	/* the bindings as the session holds them once one is changed (session_bind.c) */
	fd_dim_binding *binds;
	int n_binds, cap_binds;
	/* the model file as opened: a rebind reads it again only while it is
	 * still that file (session_file_stamp) */
	fd_file_stamp model_stamp;
	fd_binding_diff *bdiff;         /* the last session_rebind's, NULL before one */
	struct fd_session_first_run *first_run;   /* opt.background: the thread, until waited for */
	struct fd_session_added *added;  /* rule files added as what-ifs (session_add.c), in edit order */
	size_t n_added;
	/* what edits cost, for the tests to see: what-if paths read
	 * (session_path.c), rules derived from their document and rules linted
	 * by an edit's checks (session_apply.c) */
	struct {
		size_t paths, derives, lints;
	} work;
} fd_session;

/* Loads the model (with --dim), the rules (then the environment unless
 * no_env, then the fusion switch file), runs the rule set's transpose
 * optimizer (session_transpose.c), builds the match context and runs the
 * rules as loaded (opt.background: on a thread, session_first_run.c). On
 * error returns -1 with d filled and s released (s need not be
 * initialised). Warnings (schema, env, and the lint of each rule:
 * ruleset_lint_loaded) go to d too. */
int  session_open(fd_session *s, const fd_session_options *opt, fd_diags *d);
void session_close(fd_session *s);

/* With opt.background (session_first_run.c): session_open returned with the
 * model and the rules loaded (s->model, s->rules: their names, priorities
 * and the graph's nodes and tensors may be read, not yet their shapes)
 * while a thread infers the shapes, builds the match context and runs the
 * rules and estimates. Nothing else of the session may be touched
 * until session_first_run_wait has returned 0: it waits for the thread and
 * returns the run's result (-1 with d: the session is to be closed). done:
 * whether the run has finished (wait would not block); run_ms: how long it
 * has been running, or took. The test hook holds the next background run
 * until released, so that a test can see the screen of a run in progress
 * whatever the machine's speed. */
bool session_first_run_done(const fd_session *s);
int  session_first_run_wait(fd_session *s, fd_diags *d);
double session_first_run_ms(const fd_session *s);
void session_test_hold_first_run(bool hold);
void session_test_release_first_run(fd_session *s);

/* Re-runs the rounds of rules (rounds/rounds.h: the match context reused,
 * made again when the rules' fused op types changed) and the estimates.
 * Returns 0, or -1 when the pass list file could not be read (run_diags
 * says why; nothing ran). */
int  session_run(fd_session *s);

/* "RULE.PATH=VALUE" (the --set syntax; the longest rule name that prefixes
 * the text wins). Applies, then re-runs unless opt.defer_run. -1 + d on error. */
int  session_set_spec(fd_session *s, const char *spec, fd_diags *d);
/* The same with the parts apart. */
int  session_set(fd_session *s, int32_t rule, const char *path, const char *value, fd_diags *d);
/* Conveniences for the TUI: priority += delta, saturating at the int64
 * limits (-1 + d when it is already there); enabled = !enabled. */
int  session_bump_priority(fd_session *s, int32_t rule, int64_t delta, fd_diags *d);
int  session_toggle_enabled(fd_session *s, int32_t rule, fd_diags *d);
/* The current value of path as YAML text (for a prompt); false when absent
 * ("enabled" is always present: true / false). */
bool session_get(const fd_session *s, int32_t rule, const char *path, char *buf, size_t size);
/* The same, whole, on the heap (the caller frees it); NULL when absent. */
char *session_get_text(const fd_session *s, int32_t rule, const char *path);
/* What a path wants, in words: "integer", "size (64MiB, 1GiB, bytes)", … or
 * NULL when the path names no field a what-if may set (session_set's
 * refusal of it says why, with the nearest fields). */
const char *session_path_type(const fd_session *s, int32_t rule, const char *path);

/* The lint of rule as it is now (after any edit), as warnings into d
 * (ruleset/ruleset.h: ruleset_lint_rule); d may be NULL to count them. */
size_t session_rule_lint(const fd_session *s, int32_t rule, fd_diags *d);

bool session_can_undo(const fd_session *s);
bool session_can_redo(const fd_session *s);
int  session_undo(fd_session *s, fd_diags *d);   /* -1 when nothing to undo */
int  session_redo(fd_session *s, fd_diags *d);
/* Values that differ from their files (what save would write, what quit asks about). */
size_t session_unsaved(const fd_session *s);

/* Against the baseline. Release with session_diff_release. */
int  session_diff(const fd_session *s, fd_session_diff *out);
/* The result a change's fusion is in: the baseline's (after false) or the
 * current rules' round of it; NULL when the change has no such side. */
const fd_match_result *session_change_result(const fd_session *s, const fd_fusion_change *c, bool after);
void session_diff_release(fd_session_diff *df);
/* The main graph's peak in words, as `mem` gives it ("3.7 MiB",
 * "80 KiB × batch", "unknown (…)"): with no fusion (which 0), with the
 * rules as loaded (1), with the rules now (2). Returns buf. */
char *session_diff_peak_words(const fd_session *s, int which, char *buf, size_t size);
void session_write_diff_text(FILE *f, const fd_session *s, const fd_session_diff *df);
/* {"gained": [...], "lost": [...], "changed": [...], "rules": [...],
 *  "peak_before_bytes", "peak_after_bytes"} — each fusion as {"rule", "nodes"}. */
void session_write_diff_json(FILE *f, const fd_session *s, const fd_session_diff *df);

/* session_compare.c: the differences from the compiler's optimized graph
 * opt that remain when the session's model and rules, with its applied
 * edits, run with shapes as ONNX's own inference derives them (`--shapes
 * onnx`); -1 when the session has those shapes already or that run cannot
 * be made the same (bindings changed, a rule file added). */
int64_t session_differences_shapes_onnx(const fd_session *s, const fd_model *opt, const char *with);

/* Writes every unsaved value back (see the header comment). Returns the
 * number of files written, -1 when any value was not saved (other values
 * and files may have been: d names each value not saved as an error, each
 * file written as a note "written (N values)", and each value written other
 * than in place — an alias detached, a merged key made the map's own — as a
 * note). session_save_report counts them. */
typedef struct fd_save_report {
	int files_written;          /* files replaced with new text */
	int files_refused;          /* files with at least one value not saved */
	size_t values_saved, values_refused;
} fd_save_report;
int  session_save(fd_session *s, fd_diags *d);
int  session_save_report(fd_session *s, fd_save_report *rep, fd_diags *d);

/* Recovery (session_recovery.c says how): one file per running session,
 * keyed by the real paths of the model and rule files, holding the unsaved
 * values as "set RULE.PATH=VALUE" / "unset RULE.PATH" lines after a header
 * that records each file's real path, size and content hash; written
 * atomically after every edit. A recovery file is another session's while
 * that session holds its lock; once it does not, it is offered back.
 *
 * session_recovery_path: this session's file, $XDG_STATE_HOME/fusiondbg/
 * recovery-<set-up>-<pid>.txt (~/.local/state when unset; "" when there is
 * no home at all: never a shared directory). session_recovery_claim fills
 * buf with it and takes its lock (-1 + a warning in d when there is none:
 * the session then keeps no recovery file); session_recovery_done lets the
 * lock go, removing the file when remove_file (nothing unsaved). */
char *session_recovery_path(const fd_session *s, char *buf, size_t size);
int  session_recovery_claim(fd_session *s, char *buf, size_t size, fd_diags *d);
void session_recovery_done(fd_session *s, const char *path, bool remove_file);
int  session_write_recovery(const fd_session *s, const char *path, fd_diags *d);
/* The recovery files of this set-up that no running session holds (own:
 * this session's, left out), newest first; *paths is a NULL-terminated heap
 * list (free each and it). Returns how many. */
int  session_find_recovery(const fd_session *s, const char *own, char ***paths);

/* A recovery file read: its files (changed: not the same any more) and its
 * edit lines, for a prompt to list before they are replayed. */
typedef struct fd_recovery_file {
	char *path;                 /* the real path it recorded */
	bool model;                 /* the model, else a rule file */
	int64_t size;
	uint64_t hash;
	bool changed;               /* its size or contents differ now (or it is gone) */
} fd_recovery_file;
typedef struct fd_recovery {
	char *path;
	int version;                /* 2; 1: an older file, without sizes and hashes */
	fd_recovery_file *files;
	size_t n_files;
	char **lines;               /* "set RULE.PATH=VALUE" / "unset RULE.PATH", unescaped */
	size_t n_lines;
} fd_recovery;
int  session_read_recovery(const fd_session *s, const char *path, fd_recovery *rec, fd_diags *d);
/* Replays rec's edits; refuses (-1, nothing replayed, d says which file)
 * when a file it recorded changed or is not one of this session's. Returns
 * the number of edits applied. */
int  session_apply_recovery(fd_session *s, const fd_recovery *rec, fd_diags *d);
void session_recovery_release(fd_recovery *rec);
/* read + apply. */
int  session_load_recovery(fd_session *s, const char *path, fd_diags *d);

/* Adding a rule file (session_add.c): a what-if like any edit. text is
 * the file's YAML, read as a rule file named path would be; its rules join
 * the set after every rule loaded (the diff counts them as rules that were
 * not there: disabled as loaded), and the rules re-run unless
 * opt.defer_run. Undo takes them out, redo puts them back. Refused (-1 + d,
 * nothing changes) when path exists on disk or is a file of the session,
 * when the text has an error, or a rule's name is taken. Save writes the
 * file as a new one, created only when nothing is at path (never over a
 * file: a file that appeared since is not touched and the rules stay
 * unsaved); later edits of its values save as any. Save never removes a
 * file: undoing an add that was saved takes its rules out of this session
 * only. session_new_rule_path: where an added rule file named NAME.yaml
 * goes: beside the rule set, in the first rules directory (the directory
 * of the first rule file when the first path is a file; the default rules
 * directory when none was named). */
int  session_add_rule_file(fd_session *s, const char *path, const char *text, fd_diags *d);
char *session_new_rule_path(const fd_session *s, const char *name, char *buf, size_t size);

/* Getters. */
static inline const fd_model *session_model(const fd_session *s) { return &s->model; }
static inline const fd_ruleset *session_rules(const fd_session *s) { return &s->rules; }
static inline const fd_match_result *session_result(const fd_session *s) { return &s->current; }
/* Every round of the current rules (round 1's result is session_result). */
static inline const fd_rounds *session_rounds(const fd_session *s) { return &s->current_rounds; }
static inline const fd_rounds *session_baseline_rounds(const fd_session *s)
{
	return s->has_baseline ? &s->baseline_rounds : &s->current_rounds;
}
/* The rules as loaded: run once, at the first edit (until then the current result is it). */
static inline const fd_match_result *session_baseline(const fd_session *s)
{
	return s->has_baseline ? &s->baseline : &s->current;
}
static inline const fd_estimate *session_estimate(const fd_session *s) { return &s->current_est; }
/* The final fusions over the model as loaded (every round composed,
 * rounds_final_result; no trace), or session_result after one round. */
static inline const fd_match_result *session_final_result(const fd_session *s)
{
	return s->current_rounds.n > 1 ? &s->current_final : &s->current;
}
/* The fused graph's estimates: over every round (the final fusions), or
 * session_estimate when the rules ran one round. */
static inline const fd_estimate *session_final_estimate(const fd_session *s)
{
	return s->current_rounds.n > 1 ? &s->current_final_est : &s->current_est;
}
static inline const fd_estimate *session_baseline_final_estimate(const fd_session *s)
{
	if (!s->has_baseline)
		return session_final_estimate(s);
	return s->baseline_rounds.n > 1 ? &s->baseline_final_est : &s->baseline_est;
}
static inline const fd_estimate *session_baseline_estimate(const fd_session *s)
{
	return s->has_baseline ? &s->baseline_est : &s->current_est;
}

/* Dims what-if (session_bind.c): binds symbol name to value (value < 0:
 * unbinds it), loads the model again with it, runs the rules as edited (and
 * the baseline, when there is one), and records what changed
 * (session_binding_diff). The rule edits, undo history and unsaved values
 * stay. On error (the model does not load so) -1 + d and nothing changes. */
int  session_rebind(fd_session *s, const char *name, int64_t value, fd_diags *d);
static inline const fd_binding_diff *session_binding_diff(const fd_session *s) { return s->bdiff; }

/* For tests: make the next n file writes of session_save / recovery fail
 * with errno err (ENOSPC for "disk full"); n = 0 turns it off. */
void session_test_fail_writes(int n, int err);

#endif
