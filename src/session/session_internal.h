/* session_internal.h — what the session_*.c files share: YAML values as canonical text, path resolution in a rule document, and the
 * edit slots (every (rule, path) edited: its text on disk). */
#ifndef FD_SESSION_INTERNAL_H
#define FD_SESSION_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include "base/strbuf.h"
#include "session/session.h"

/* A value as YAML text that parses back to the same value: plain scalars as
 * written, quoted ones double-quoted, collections in flow style. */
void yval_canon(strbuf *b, const fd_yval *v);
char *yval_canon_dup(const fd_yval *v);          /* heap; NULL for v == NULL */
bool scalar_plain_safe(const char *s);           /* writable unquoted after "key: " */
void yaml_quote(strbuf *b, const char *s);       /* "…" with escapes */

/* Where a path leads in a document. */
typedef struct ypath_ref {
	fd_yval *parent;       /* map or list holding the value */
	size_t index;          /* in parent (when present) */
	fd_yval *value;        /* NULL when the last key is absent */
	const char *key;       /* the last segment (map keys) */
	char err[256];
} ypath_ref;
/* Path segments are map keys, list indices, or (in a list of maps with a
 * `type:` key, the constraints) a type name. Only the last key may be absent.
 * Returns 0, or -1 with ref->err. */
int ypath_resolve(fd_yval *root, const char *path, ypath_ref *ref);
/* "subgraph.x" → "match.subgraph.x"; returns a heap copy. */
char *ypath_normalize(const char *path);
/* Normalised, and "constraints.<i>" written "constraints.<type>" when item i
 * is the first of its type: one spelling per value (slots, edits, recovery). */
char *ypath_canonical(fd_yval *root, const char *path);

struct fd_session_slot {
	int32_t rule;
	char *path;
	char *disk;            /* canonical text on disk; NULL when absent there */
};

/* The document a rule comes from, and its file index in rs->files. */
const fd_ydoc *session_rule_doc(const fd_session *s, int32_t rule, int *file_index);
/* Sets path to text (NULL removes the key) and re-derives the rule; no edit
 * record, no run. -1 + d when the value is refused. */
int session_apply_value(fd_session *s, int32_t rule, const char *path, const char *text, fd_diags *d);
/* Re-derives every rule that came from old_path (the file's previous tree)
 * from file k's tree (after a save re-read it). */
int session_rederive_file(fd_session *s, int k, const char *old_path, fd_diags *d);
/* The slot of (rule, path), created when create is true (disk = current text). */
struct fd_session_slot *session_slot(fd_session *s, int32_t rule, const char *path, bool create);
char *session_current_text(const fd_session *s, int32_t rule, const char *path);  /* heap or NULL */
bool slot_dirty(const fd_session *s, const struct fd_session_slot *sl);

#endif
