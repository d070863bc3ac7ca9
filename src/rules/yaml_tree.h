/* yaml_tree.h — a YAML document as a tree of values that remember where they
 * were written (file:line:col and byte offsets), built with libyaml by
 * yaml_tree.c (the only file that includes <yaml.h>) and read by
 * yaml_value.c. Aliases are expanded with a bound so an alias bomb fails
 * fast. The tree set owns its values (arena). */
#ifndef FD_YAML_TREE_H
#define FD_YAML_TREE_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"
#include "base/diag.h"

typedef enum fd_yval_kind { YV_NULL, YV_SCALAR, YV_SEQ, YV_MAP } fd_yval_kind;

/* How an item of a collection got there: written in place, as an alias
 * ("*name": the item is the anchored value itself, shared), or (a map's
 * pair) by a merge key ("<<: *base": key and value are the base map's). */
typedef enum fd_yplace_kind { YP_HERE, YP_ALIAS, YP_MERGED } fd_yplace_kind;

typedef struct fd_yplace {
	fd_yplace_kind kind;
	size_t start, end;      /* YP_ALIAS: the "*name" text; YP_MERGED: the "<<" key to the end
	                         * of its value (the text that brought the pair) */
} fd_yplace;

typedef struct fd_yval fd_yval;
struct fd_yval {
	fd_yval_kind kind;
	fd_srcpos pos;          /* where the value starts */
	size_t start, end;      /* byte offsets of its text in the file [start, end) */
	size_t tail;            /* end of the lines it owns: a block scalar's trailing lines (its
	                         * chomping may keep them), a block collection's last item's
	                         * tail; else end. Text added after the value goes here. */
	const char *text;       /* YV_SCALAR: the scalar's value (NUL-terminated) */
	size_t text_len;
	bool quoted;            /* scalar was quoted: never a number / bool / null */
	const char *anchor;     /* "&name" written on it, or NULL */
	uint32_t n_aliases;     /* aliases naming that anchor (0: not shared) */
	size_t n;               /* YV_SEQ: items; YV_MAP: pairs */
	fd_yval **items;        /* YV_SEQ items, YV_MAP values */
	fd_yval **keys;         /* YV_MAP keys (scalars) */
	fd_yplace *places;      /* per item, how it got there; NULL when every item is YP_HERE */
};

/* How item i of collection v got there (YP_HERE when v->places is NULL). */
static inline fd_yplace yval_place(const fd_yval *v, size_t i)
{
	return v->places ? v->places[i] : (fd_yplace){ YP_HERE, 0, 0 };
}

/* One file's documents. */
typedef struct fd_ydoc {
	const char *file;
	int index;              /* 0-based document number in the file */
	fd_yval *root;
} fd_ydoc;

typedef struct fd_yfile {
	fd_arena arena;
	const char *path;
	char *text;             /* the file's bytes (for write-back), NUL-terminated */
	size_t size;
	int n_docs;
	fd_ydoc *docs;
} fd_yfile;

/* Limits that keep hostile input bounded. */
#define YAML_MAX_NODES   1000000   /* values after alias expansion, per file */
#define YAML_MAX_DEPTH   64

int  yfile_load(fd_yfile *f, const char *path, fd_diags *d);
int  yfile_load_buffer(fd_yfile *f, const char *name, const char *data, size_t size, fd_diags *d);
void yfile_release(fd_yfile *f);

/* Lookups and conversions (yaml_value.c). Conversions return false (and
 * leave *out) when the value is absent or not of that type; they never
 * report — the schema does. */
long yval_index(const fd_yval *map, const char *key);         /* pair index in map, -1 when absent */
const fd_yval *yval_get(const fd_yval *map, const char *key);
const fd_yval *yval_key(const fd_yval *map, const char *key); /* the key scalar itself */
bool yval_is_null(const fd_yval *v);
bool yval_int(const fd_yval *v, int64_t *out);     /* 12, 0x10, 0o17, -3 (no units: yval_bytes) */
bool yval_float(const fd_yval *v, double *out);    /* any number: 1e-5, 0.1, 3 */
bool yval_bool(const fd_yval *v, bool *out);       /* true/false/yes/no/on/off */
bool yval_str(const fd_yval *v, const char **out); /* any scalar */
bool yval_bytes(const fd_yval *v, int64_t *out);   /* 33554432, 32MiB, 64MB, 1.5GiB */
const char *yval_kind_name(const fd_yval *v);      /* "integer", "string", "list", "map", …,
                                                    * "number out of range" (1e309) */
bool yval_out_of_range(const fd_yval *v);          /* a plain number too large for int64 / double */
/* Whether a YAML 1.1 reader (PyYAML's resolver, as CANN's tools read rule
 * files: yes / on are booleans, 0b101, 017 and 1_000 integers, 1e3 a string)
 * reads the plain scalar text as the same type and value as yval_int /
 * yval_float / yval_bool / null here. */
bool yval_yaml11_agrees(const char *plain);
/* Whether a YAML 1.1 reader reads it as anything but a string. */
bool yval_yaml11_typed(const char *plain);
fd_srcpos yval_pos(const fd_yval *v);              /* position or {0} */
/* The position of byte `at` of a scalar's text: exact when the scalar is on
 * one line and its text is its bytes (plain, or quoted without escapes),
 * else the scalar's own position. */
fd_srcpos yval_text_pos(const fd_yval *v, size_t at);
/* A message at v's position (unknown when v is NULL), as diag_add. */
void yval_vdiag(fd_diags *d, fd_severity sev, const fd_yval *at, const char *fmt, va_list ap);

#endif
