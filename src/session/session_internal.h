/* session_internal.h — what the session's files share. Who owns what:
 *   session.c            open / run / close, the baseline run before the
 *                        first change, a rule's document and a value's text
 *   session_first_run.c  the first run on a thread (opt.background)
 *   session_steps.c      the steps before the rules: CSE, the transpose
 *                        optimizer (session_transpose.c), CSE again
 *   session_edit.c       the edit list: set, undo / redo, and the slots (every
 *                        (rule, path) edited: its text on disk)
 *   session_path.c       a what-if path read once: its spelling, its field,
 *                        its op, the words refusing it
 *   session_apply.c      one value into a rule at such a path: the tree, the
 *                        rule derived again and judged, the enabled rule
 *   session_add.c        a rule file added as a what-if: in and out of the set
 *                        by undo / redo, written by save as a new file
 *   session_bind.c       the dims what-if: a binding changed, the model loaded
 *                        again, what changed against the run before
 *   session_diff.c       the rules as loaded against the current ones, as
 *                        text and JSON
 *   session_compare.c    the differences from a compiler's optimized graph
 *                        under ONNX's own shape inference
 *   session_save.c       write-back to the YAML files
 *   session_recovery.c   the recovery file: its path and lock, writing it,
 *                        reading and replaying one
 *   session_render.c     a value as the text a save writes
 *   session_yaml.c       YAML values as canonical text, paths in a document,
 *                        changes to a tree
 * An edit goes session_edit.c -> session_path.c -> session_apply.c ->
 * session_yaml.c; undo, redo, save and recovery put values back through
 * session_apply.c too. */
#ifndef FD_SESSION_INTERNAL_H
#define FD_SESSION_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include "base/strbuf.h"
#include "ruleset/rule_format.h"
#include "session/session.h"

/* session.c: what session_open does after the rules are loaded — the match
 * context and the first run; -1 with d (s not closed). */
int session_open_run(fd_session *s, fd_diags *d);
/* Initializers are constants (model_set_initializer_policy): the command
 * line's word, else the rule set's; as open set it, so does a rebind. */
bool session_initializers_constant(const fd_session *s);
/* The steps before the rules over s->model, which becomes the rewrite of
 * each that changed anything (session_steps.c); release after the model. */
int session_steps(fd_session *s, fd_diags *d);
void session_steps_release(fd_session *s);
/* s->model behind the step's rewrite, which becomes s->model. */
void session_adopt_rewrite(fd_session *s, fd_model *rewritten);
/* The rule set's transpose optimizer, one of the steps (session_transpose.c). */
int session_transpose(fd_session *s, fd_diags *d);
/* session_bind.c: what stat says of a file (device, inode, size, change and
 * modification times), taken without reading it, so that a large model costs
 * nothing more to open; false (stamp unknown) when it cannot be stat'ed. An
 * exporter's save in place or a rename over it changes the stamp. */
bool session_file_stamp(const char *path, fd_file_stamp *st);
bool session_same_stamp(const fd_file_stamp *a, const fd_file_stamp *b);
/* session_first_run.c: starts it on a thread (or runs it here when no
 * thread can be made); the wait frees what the thread used. */
int session_first_run_start(fd_session *s, fd_diags *d);

/* A value as YAML text that parses back to the same value: plain scalars as
 * written, quoted ones double-quoted, collections in flow style. */
char *session_yval_canon_dup(const fd_yval *v);          /* heap; NULL for v == NULL */
bool session_scalar_plain_safe(const char *s);           /* writable unquoted after "key: " */
bool session_plain_is_typed(const char *text);           /* unquoted, it reads as a number, bool or null */
/* s (NULL: "") with the escapes of a YAML double-quoted scalar — \\, \n, \t,
 * \r, \xNN for the other control bytes and DEL — so that it stays one line;
 * in_quotes also escapes '"', for the inside of "…". The recovery file's
 * lines use it without the quotes. */
void session_yaml_escape(strbuf *b, const char *s, bool in_quotes);
void session_yaml_quote(strbuf *b, const char *s);       /* "…" with session_yaml_escape */

/* Where a path leads in a document. */
typedef struct ypath_step {
	fd_yval *parent;       /* the collection a segment indexes */
	size_t index;          /* the item it names */
} ypath_step;
typedef struct ypath_ref {
	fd_yval *parent;       /* map or list holding the value */
	size_t index;          /* in parent (when present) */
	fd_yval *value;        /* NULL when the last key is absent */
	const char *key;       /* the last segment (map keys) */
	ypath_step steps[YAML_MAX_DEPTH + 1];   /* every segment that was found, from the root */
	int n_steps;
	char err[256];
} ypath_ref;
/* Path segments are map keys, list indices, or (in a list of maps with a
 * `type:` key, the constraints) a type name. Only the last key may be absent.
 * Returns 0, or -1 with ref->err. */
int session_ypath_resolve(fd_yval *root, const char *path, ypath_ref *ref);
/* Makes each collection on the way to the value a copy of its own (in a)
 * where it is shared with another place — an alias, a pair a merge brought,
 * an anchored value other places use — so that a change made there stays at
 * this path, as a what-if edit means. Returns session_ypath_resolve's result. */
int session_ypath_unshare(fd_arena *a, fd_yval *root, const char *path, ypath_ref *ref);
/* Whether two values read the same: scalars by text and typedness, lists in
 * order, maps as sets of pairs. When they differ and where is given, the
 * path (below prefix) of the first difference goes there. */
bool session_yval_differ_at(const fd_yval *a, const fd_yval *b, const char *prefix, strbuf *where);
/* Puts v at ref (replaces, or adds key ref->key to the map; new arrays in
 * a); returns what was there. */
fd_yval *session_ytree_put(fd_arena *a, ypath_ref *ref, fd_yval *v);
/* Takes pair index out of map p; session_ytree_restore puts it back. */
void session_ytree_remove(fd_yval *p, size_t index);
void session_ytree_restore(fd_yval *p, size_t index, fd_yval *key, fd_yval *value, fd_yplace place);
/* Sets path in root to v (NULL: removes the key), shared structure copied
 * first (session_ypath_unshare); -1 when the path does not resolve. */
int  session_ytree_set(fd_arena *a, fd_yval *root, const char *path, fd_yval *v);

/* session_render.c: v as the text written into a file at path (normalised:
 * its field decides whether a scalar is a string); disk: the value the file
 * has there, whose style is kept (NULL: none). */
typedef struct render_ctx {
	const char *text;      /* the file's text (disk values point into it) */
	const char *eol;       /* the line end new lines get: "\n" or "\r\n" */
} render_ctx;
void session_render_value(strbuf *b, const fd_yval *v, const fd_yval *disk, const char *path, const render_ctx *rc);
void session_render_key(strbuf *b, const char *key);
/* Whether the field at path (normalised) holds strings: a string, an op
 * type, a source type, a list of names (rule_format.h). There a plain yes
 * and a quoted "yes" are the same value. */
bool session_field_holds_strings(const char *path);
/* The line end of the line holding pos (else of the line before): "\r\n" or "\n". */
const char *session_eol_at(const char *text, size_t size, size_t pos);
/* "subgraph.x" → "match.subgraph.x"; returns a heap copy. */
char *session_ypath_normalize(const char *path);
/* Normalised, and "constraints.<i>" written "constraints.<type>" when item i
 * is the first of its type: one spelling per value (slots, edits, recovery). */
char *session_ypath_canonical(fd_yval *root, const char *path);

struct fd_session_slot {
	int32_t rule;
	char *path;
	char *disk;            /* canonical text on disk; NULL when absent there */
};

/* session.c: the document a rule comes from, and its file index in
 * rs->files; a value's canonical text (heap, NULL when absent); the rules as
 * loaded run once, before the first change to them. */
const fd_ydoc *session_rule_doc(const fd_session *s, int32_t rule, int *file_index);
char *session_current_text(const fd_session *s, int32_t rule, const char *path);
void session_ensure_baseline(fd_session *s);

/* session_path.c: a what-if path read once, then handed down (the edit,
 * its checks, its record read it, not the text). */
typedef struct session_path {
	int32_t rule;
	char *text;                /* normalised; as typed (session_set) also canonical
	                            * (session_ypath_canonical) and a param spelt as the
	                            * document spells it (groups: group is its alias); heap */
	const fd_field *field;     /* the field a what-if may set there, NULL when none */
	const fd_rule_op *op;      /* the typed op a match.ops / match.branches path is
	                            * about, NULL when none (parts of the rule as derived
	                            * when the path was read) */
	char at[64];               /* where check's messages put that op: "match.ops[2]" */
	char label[512];           /* RULE.PATH, as messages and a parsed value name it */
} session_path;
/* Reads text as a path of rule: as_typed for a path a user gave (one
 * spelling per value), else one recorded by an edit (normalised only; the
 * label keeps the text as given). Counts in s->work.paths. */
void session_path_init(session_path *p, fd_session *s, int32_t rule, const char *text, bool as_typed);
void session_path_release(session_path *p);
/* p becomes the path of the map holding its value: p->text cut at dot (a
 * '.' in it), its field and label read again. */
void session_path_cut(session_path *p, const fd_session *s, char *dot);
/* Why p names no field a what-if may set, with the nearest ones; returns buf. */
char *session_path_refusal(const session_path *p, char *buf, size_t size);
/* The field a what-if may set at a normalised path, or NULL. */
const fd_field *session_edit_field(const char *path);

/* session_apply.c: sets p to text (NULL removes the key) and re-derives the
 * rule; no edit record, no run. enabled_edit: this sets `enabled` (it
 * overrides the environment). -1 + d when the value is refused. */
int session_apply_path(fd_session *s, const session_path *p, const char *text, bool enabled_edit, fd_diags *d);
/* The same at a recorded path (undo, redo, recovery, a value save kept). */
int session_apply_value(fd_session *s, int32_t rule, const char *path, const char *text, bool enabled_edit,
                        fd_diags *d);
/* Re-derives every rule that came from old_path (the file's previous tree)
 * from file k's tree (after a save re-read it). */
int session_rederive_file(fd_session *s, int k, const char *old_path, fd_diags *d);

/* session_edit.c: the slot of (rule, path), created when create is true
 * (disk = current text); whether its value differs from disk. */
bool session_slot_dirty(const fd_session *s, const struct fd_session_slot *sl);
/* The slot of (rule, path) after an edit applied there, created when new
 * with before (the text before the edit, NULL: absent) as its disk text. */
void session_slot_before(fd_session *s, int32_t rule, const char *path, const char *before);
/* Records an edit already applied (undo / redo see it); texts copied. */
void session_record_edit(fd_session *s, int32_t rule, const char *path, const char *old_text, const char *new_text);

/* session_add.c: one rule file added as a what-if. While in the set its
 * file is rs->files' (and freed with them); while undone, it is here. */
struct fd_session_added {
	char *path;
	fd_yfile *file;
	int32_t first_rule, n_rules;   /* where its rules sit in the set */
	fd_rule *rules;                /* their copies while undone (parts in the set's arena) */
	bool in_set;
	bool written;                  /* save created the file */
};
/* Undo / redo of an add edit; no run. */
void session_added_undo(fd_session *s, const fd_edit *e);
void session_added_redo(fd_session *s, const fd_edit *e);
/* A new edit drops the redo tail: the adds in it go, and the slots of
 * rules past the set's end (they named rules of those files). */
void session_added_drop_tail(fd_session *s);
/* Added files in the set, not yet written (what save would write). */
size_t session_added_unsaved(const fd_session *s);
/* Is file k of the set an added file not yet written (nothing on disk)? */
bool session_file_pending(const fd_session *s, int k);
/* Save: each added file not yet written, created new; the report counts
 * each as a file written (or refused) and one value. */
void session_save_added(fd_session *s, fd_save_report *rep, fd_diags *d);
void session_added_release(fd_session *s);

#endif
