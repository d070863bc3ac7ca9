/* param_value.h — a node's (or composite's) value for a rule param, found
 * through the op table (attribute, constant input, derived value, ONNX
 * default — optable.h says the order), and the comparison with the value a
 * rule writes: floats with a relative tolerance (1e-5 in YAML equals float32
 * 9.99999975e-06), ints / bools / lists / strings compared sensibly ("none"
 * equals an absent string, a scalar equals a list of that scalar, a dtype name
 * equals its number). An fd_pval points into the graph or into its own buf;
 * copy it only with pval_ints() in mind. Nothing here allocates. */
#ifndef FD_PARAM_VALUE_H
#define FD_PARAM_VALUE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "match/canon.h"
#include "ir/graph.h"
#include "rules/optable.h"
#include "rules/yaml_tree.h"

typedef enum fd_pv_kind {
	PV_ABSENT = 0,     /* the op has the param but the node carries no value for it */
	PV_NO_SUCH,        /* the op has no such param at all */
	PV_UNKNOWN,        /* present but not known here (non-constant input, big tensor) */
	PV_INT, PV_FLOAT, PV_BOOL, PV_STRING, PV_INTS, PV_FLOATS,
} fd_pv_kind;

/* Where a value came from: X(id, name). */
#define FD_PV_SOURCES(X) \
	X(NONE, "") X(ATTR, "attribute") X(INPUT, "input") X(DERIVED, "derived") X(DEFAULT, "default") \
	X(COMPOSITE, "composite")

typedef enum fd_pv_source {
#define FD_PV_SOURCE_ENUM(id, name) PVS_##id,
	FD_PV_SOURCES(FD_PV_SOURCE_ENUM)
#undef FD_PV_SOURCE_ENUM
	PVS_COUNT
} fd_pv_source;

#define PVAL_INLINE 8

typedef struct fd_pval {
	fd_pv_kind kind;
	fd_pv_source source;
	int64_t i;             /* PV_INT, PV_BOOL */
	double f;              /* PV_FLOAT */
	const char *s;         /* PV_STRING */
	int64_t n;             /* PV_INTS / PV_FLOATS element count */
	int32_t axis_rank;     /* an axis param: rank of the input it indexes, 0 unknown */
	const int64_t *ints;   /* NULL: the values are in buf */
	const double *floats;  /* NULL: the values are in fbuf */
	int64_t buf[PVAL_INLINE];
	double fbuf[PVAL_INLINE];
} fd_pval;

static inline const int64_t *pval_ints(const fd_pval *v) { return v->ints ? v->ints : v->buf; }
static inline const double *pval_floats(const fd_pval *v) { return v->floats ? v->floats : v->fbuf; }

/* The value of param `name` (any alias) of op `op` on node n, or on the
 * composite c when c is not NULL (then n is its last member). */
void param_unit_value(const fd_graph *g, const fd_node *n, const fd_composite_rec *c,
                      const int32_t *canon_pool, int op, const char *name, fd_pval *out);
/* The same with the param's definition already looked up (optable_param(op,
 * name), NULL when op has no such param): the matcher needs it twice. */
void param_def_value(const fd_graph *g, const fd_node *n, const fd_composite_rec *c, const int32_t *canon_pool,
                     int op, const fd_param_def *def, const char *name, fd_pval *out);

/* Relative tolerance used for floats. */
#define PARAM_REL_TOL 1e-6
bool param_float_eq(double a, double b);

/* Does the value written in the rule equal the node's? */
bool param_matches(const fd_yval *expected, const fd_param_def *def, const fd_pval *actual);

/* Their text forms are explain_pval / explain_yval (explain/explain.h). */
const char *param_source_name(fd_pv_source s);   /* "attribute", "input", "derived", "default", … */

#endif
