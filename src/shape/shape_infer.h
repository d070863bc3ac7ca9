/* shape_infer.h — internals of shape inference; other modules call
 * shape_infer() (shape.h) only. The files, lowest first, each calling only
 * the ones above it:
 *   shape_dims.c   identical dim arrays shared (dims_cache)
 *   const_fold.c   small constant values: make, read, convert, index
 *   shape_util.c   what an op fn uses: dims arithmetic, broadcasting, the
 *                  node's inputs and attributes (sh_in*, sh_attr*), writing
 *                  its outputs (sh_set*, sh_same)
 *   shape_onnx_mode.c  the values and shapes ONNX's own inference keeps
 *                  (--shapes onnx)
 *   shape_elementwise.c, shape_nn.c, shape_tensor.c, shape_gen.c,
 *   shape_misc.c, shape_contrib.c, shape_control.c   the op families
 *   shape_infer.c  the driver: the merged table, graphs in order, bodies
 *
 * An op family is a table of {domain, op_type, fn, arg} rows; the driver
 * merges the tables once, sorts them and finds a node's row by binary search.
 * An fn reads the node's inputs through the sh_in* helpers and writes its
 * outputs through sh_set*, which never replace a declared shape with a
 * different one. Everything an fn allocates lives in the model arena. */
#ifndef FD_SHAPE_INFER_H
#define FD_SHAPE_INFER_H
#include "ir/graph.h"
#include "shape/shape.h"

/* Ranks above this are left to the model's declared shapes. */
#define SHAPE_MAX_RANK 64

/* Identical dim arrays, shared (shape_dims.c). */
typedef struct dims_cache {
	struct dims_slot *slots;
	size_t cap, n;
} dims_cache;
/* The canonical copy of dims (in arena a); never write through it. */
fd_dim *shape_dims_shared(dims_cache *c, fd_arena *a, int32_t rank, const fd_dim *dims);
void shape_dims_cache_release(dims_cache *c);

typedef struct shape_ctx {
	fd_model *m;
	dims_cache *dims;
	const bool *input_symbol;  /* by symbol: a dim of a main-graph input */
	fd_graph *g;
	const fd_node *n;
	fd_diags *d;
	int64_t opset;          /* version of the node's domain in the model */
	int arg;                /* the table row's arg (which variant of the fn) */
} shape_ctx;

typedef void (*shape_fn)(shape_ctx *c);

typedef struct shape_op {
	const char *domain;     /* "" (ai.onnx) or "com.microsoft" */
	const char *op_type;
	shape_fn fn;
	int arg;
} shape_op;

/* After a node's fn, under --shapes onnx: drops the values ONNX's own
 * inference would not know (shape_onnx_mode.c). */
void shape_onnx_mode_settle(shape_ctx *c);
/* Under --shapes onnx: node c->n's inference, as ONNX's function of its
 * version has it, reads input i only as a folded constant, and it is not
 * one: the node's output shapes are unknown (shape_onnx_mode.c). */
bool shape_onnx_mode_reads_folded_only(const shape_ctx *c, int i);
/* After every graph: fresh dims unknown (shape_onnx_mode.c). */
void shape_onnx_mode_finish(fd_model *m);

/* The family tables, each ended by a row whose op_type is NULL. */
extern const shape_op shape_ops_elementwise[];
extern const shape_op shape_ops_nn[];
extern const shape_op shape_ops_tensor[];
extern const shape_op shape_ops_gen[];
extern const shape_op shape_ops_contrib[];
extern const shape_op shape_ops_misc[];
extern const shape_op shape_ops_control[];

/* ---- dims (shape_util.c; the arithmetic is ir/dim.h's) ---------------------- */
/* memcpy of n dims; a rank-0 shape may have NULL dims. */
static inline void dims_copy(fd_dim *dst, const fd_dim *src, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		dst[i] = src[i];
}
bool    shape_is_known(const fd_shape *s);         /* rank and every dim a number at the bindings */
/* Product of dims[from, to); -1 when a dim is unknown or it overflows. */
int64_t shape_dims_product(const fd_dim *dims, int32_t from, int32_t to);
/* A fresh symbol ("unk__N"): what a dim no rule can express becomes. */
/* One broadcast dim from two (numpy rules; symbols equal by expression). */
/* Numpy broadcast of n shapes into out (SHAPE_MAX_RANK dims); false when a
 * rank is unknown. A clash of two known dims gives an unknown dim. */
bool    sh_broadcast(const fd_shape *const *s, int n, int32_t *rank, fd_dim *out);
/* Normalises a possibly negative axis against rank; false when out of range. */
bool    shape_axis_norm(int64_t axis, int32_t rank, int32_t *out);

/* ---- node inputs and attributes (shape_util.c) ---------------------------- */
fd_tensor      *sh_in(const shape_ctx *c, int i);       /* NULL when absent */
const fd_shape *sh_in_shape(const shape_ctx *c, int i); /* NULL when absent */
int32_t         sh_in_rank(const shape_ctx *c, int i);  /* -1 unknown or absent */
int32_t         sh_in_dtype(const shape_ctx *c, int i); /* DT_UNDEFINED when absent */
const fd_const *sh_in_const(const shape_ctx *c, int i); /* known value or NULL */
/* Integer constant input: its values and count (count 0 allowed). */
bool sh_in_ints(const shape_ctx *c, int i, const int64_t **v, int64_t *count);
bool sh_in_int(const shape_ctx *c, int i, int64_t *v);  /* one-element integer constant */
/* Integer constant input whose elements may be symbolic (Shape → Gather →
 * Concat): up to max of them as fd_sint; false when the input has no
 * integer value or more than max elements. */
bool sh_in_sints(const shape_ctx *c, int i, fd_sint *out, int64_t max, int64_t *count);
/* The same, each element as a dim (a negative or unknown element is an
 * unknown dim); for inputs that hold a shape. */
bool sh_in_dims(const shape_ctx *c, int i, fd_dim *out, int64_t max, int64_t *count);
/* Numeric constant input of up to max elements, as doubles. */
bool sh_in_nums(const shape_ctx *c, int i, double *out, int64_t max, int64_t *count);

const fd_attr  *sh_attr(const shape_ctx *c, const char *name);
int64_t         sh_attr_int(const shape_ctx *c, const char *name, int64_t def);
const char     *sh_attr_str(const shape_ctx *c, const char *name, const char *def);
const int64_t  *sh_attr_ints(const shape_ctx *c, const char *name, int64_t *count);
const double   *sh_attr_floats(const shape_ctx *c, const char *name, int64_t *count);

/* ---- outputs (shape_util.c) ----------------------------------------------- */
fd_tensor *sh_out(const shape_ctx *c, int i);           /* NULL when absent */
/* Sets dtype (when not DT_UNDEFINED) and shape (rank -1: dtype only) of output
 * i. A dim nobody can compute becomes a fresh symbol. A declared shape wins
 * where it says more: its unknown dims, and symbols that are only a name
 * (declared, unbound, where inference has a number or an expression) take
 * the inferred dim; two numbers that differ are kept as declared with a
 * warning naming the node. */
void sh_set(const shape_ctx *c, int i, int32_t dtype, int32_t rank, const fd_dim *dims);
static inline void sh_set_shape(const shape_ctx *c, int i, int32_t dtype, const fd_shape *s)
{
	sh_set(c, i, dtype, s ? s->rank : -1, s ? s->dims : NULL);
}
/* Output i becomes input j's shape, with dtype dt (DT_UNDEFINED: input j's). */
void sh_same(const shape_ctx *c, int i, int j, int32_t dt);
/* Gives output i the value v (and its dtype when the output has none) unless
 * it has a value already, or its dtype kind or element count disagree.
 * Symbolic elements written by const_store_sint / const_copy_elem are
 * settled first (const_settle). */
void sh_set_value(const shape_ctx *c, int i, fd_const *v);

/* ---- constant values (const_fold.c) ------------------------------------- */
/* A fresh value in the arena (i64 or f64 by dtype); NULL when count exceeds
 * FD_CONST_MAX or the dtype holds no numbers. */
fd_const *const_new(const shape_ctx *c, int32_t dtype, int64_t count);
double const_num(const fd_const *v, int64_t k);          /* element k as double */
int64_t const_int(const fd_const *v, int64_t k);         /* element k as int64 */
/* Stores x into element k converting to v's dtype (float→int truncates). */
void   const_store(fd_const *v, int64_t k, double x, int64_t xi, bool from_int);
/* Stores a symbolic integer into element k of an integer value. */
void   const_store_sint(const shape_ctx *c, fd_const *v, int64_t k, fd_sint s);
/* Element k as a symbolic integer (a number for plain values; unknown for
 * floats). */
fd_sint const_sint(const fd_const *v, int64_t k);
/* Copies element k of src into element j of dst, converting as Cast does
 * (a symbolic element into a float value makes dst unusable: const_settle
 * then says so). */
void   const_copy_elem(const shape_ctx *c, fd_const *dst, int64_t j, const fd_const *src, int64_t k);
/* After the stores: drops sym when every element is a plain number, drops
 * i64 when one has no number; false when dst cannot hold what was stored. */
bool   const_settle(fd_const *v);
/* Any symbolic or unknown element? */
static inline bool const_is_symbolic(const fd_const *v) { return v && v->sym; }
/* Row-major offset of out-index oi (rank r, dims od) into an input of shape s
 * broadcast to it. */
int64_t shape_bcast_offset(const fd_shape *s, int32_t r, const fd_dim *od, const int64_t *oi);
/* Advances a row-major multi-index; false after the last one. */
bool   shape_index_next(int64_t *idx, int32_t rank, const fd_dim *dims);

#endif
