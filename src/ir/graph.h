/* graph.h — the model IR that every other module reads: graphs (main and
 * subgraph bodies), nodes, tensors, attributes, small constant values.
 *
 * Ownership: an fd_model owns everything reachable from it; all of it lives in
 * model->arena (big arrays adopted by it). Tensor names, op types, domains,
 * attribute names and symbolic dims are interned in model->names (equal names
 * are equal pointers); node names, unique in practice, are plain copies.
 * Indices, never pointers, link nodes and tensors, so that the matcher and
 * the trace can store 32-bit ids. Nothing here prints or exits. */
#ifndef FD_GRAPH_H
#define FD_GRAPH_H
#include <stdbool.h>
#include <stdint.h>
#include "base/arena.h"
#include "base/diag.h"
#include "ir/dim.h"
#include "ir/dtype.h"
#include "base/strmap.h"

#define FD_NONE (-1)  /* absent node / tensor / graph index */

typedef struct fd_shape {
	int32_t rank;          /* -1: rank unknown (then dims is NULL) */
	fd_dim *dims;
} fd_shape;

/* A constant's values, converted once on load or fold: integers (and bool) as
 * int64, floating types as double. Kept only for small tensors
 * (FD_CONST_MAX elements) — shapes, axes, scalars — never for weights.
 * Shape arithmetic makes integer values with symbolic elements (Shape of
 * [batch, 128] is [batch, 128]): sym then holds every element as an fd_sint,
 * and i64 is there only when every element has a number at the bindings —
 * a reader of i64 never sees an element that is not a number. */
#define FD_CONST_MAX 4096
typedef struct fd_const {
	int32_t dtype;
	int64_t count;
	int64_t *i64;          /* integer dtypes (each element a number), else NULL */
	double *f64;           /* floating dtypes, else NULL */
	fd_sint *sym;          /* integer values with a symbolic or unknown element, else NULL */
	bool propagated;       /* shapes onnx: known by data propagation (from a dynamic Shape), not folded */
} fd_const;

typedef enum fd_tensor_kind {
	TENSOR_ACTIVATION,     /* produced by a node of this graph */
	TENSOR_GRAPH_INPUT,    /* graph input (not an initializer) */
	TENSOR_INITIALIZER,    /* initializer; when also listed as a graph input, see overridable */
	TENSOR_CONSTANT,       /* output of a Constant node */
	TENSOR_OUTER_SCOPE,    /* a subgraph body reads it from an enclosing graph */
} fd_tensor_kind;

/* 64 bytes, one cache line: a million-node model has ~1.7 M of these. */
typedef struct fd_tensor {
	const char *name;
	fd_shape shape;
	int32_t *consumers;    /* node indices; the owner node of a body counts for outer reads */
	fd_const *value;       /* known small constant value, or NULL */
	int32_t dtype;         /* DT_*, DT_UNDEFINED when not known */
	int32_t producer;      /* node index or FD_NONE */
	int32_t producer_port; /* output slot of the producer */
	int32_t n_consumers;   /* one entry per (node, input slot) use, in topological order */
	int32_t outer;         /* TENSOR_OUTER_SCOPE: tensor index in the parent graph */
	uint8_t kind;          /* fd_tensor_kind */
	bool is_graph_output : 1;
	bool shape_declared : 1; /* shape came from the model (input, value_info, …), not inference */
	bool external_data : 1;  /* initializer whose bytes live in another file */
	/* An initializer also declared in the graph's inputs. From IR 4 on that
	 * makes it a default the caller may override, not a constant (ONNX IR
	 * spec, "Graphs"); before IR 4 every initializer had to be listed and
	 * stays a constant. overridable is that verdict under the model's
	 * initializer policy (model_set_initializer_policy). */
	bool listed_input : 1;
	bool overridable : 1;
} fd_tensor;

/* Attribute kinds use ONNX AttributeProto.AttributeType numbers. */
typedef enum fd_attr_type {
	ATTR_UNDEFINED = 0, ATTR_FLOAT = 1, ATTR_INT = 2, ATTR_STRING = 3, ATTR_TENSOR = 4,
	ATTR_GRAPH = 5, ATTR_FLOATS = 6, ATTR_INTS = 7, ATTR_STRINGS = 8, ATTR_TENSORS = 9,
	ATTR_GRAPHS = 10, ATTR_SPARSE_TENSOR = 11, ATTR_SPARSE_TENSORS = 12,
	ATTR_TYPE_PROTO = 13, ATTR_TYPE_PROTOS = 14,
} fd_attr_type;

/* A tensor-valued attribute (Constant's value, ConstantOfShape's value). */
typedef struct fd_attr_tensor {
	int32_t dtype;
	fd_shape shape;
	fd_const *value;       /* NULL when larger than FD_CONST_MAX or external */
} fd_attr_tensor;

typedef struct fd_attr {
	const char *name;
	fd_attr_type type;
	const char *ref_attr_name; /* function attribute reference, or NULL */
	int64_t count;         /* element count of list kinds (1 for scalars) */
	union {
		double f;          /* ATTR_FLOAT */
		int64_t i;         /* ATTR_INT */
		const char *s;     /* ATTR_STRING (bytes, NUL-terminated) */
		fd_attr_tensor *t; /* ATTR_TENSOR / ATTR_SPARSE_TENSOR (values) */
		int32_t g;         /* ATTR_GRAPH: index into model->graphs */
		double *floats;    /* ATTR_FLOATS */
		int64_t *ints;     /* ATTR_INTS */
		const char **strings;  /* ATTR_STRINGS */
		fd_attr_tensor **tensors; /* ATTR_TENSORS / ATTR_SPARSE_TENSORS */
		int32_t *graphs;   /* ATTR_GRAPHS */
	} u;
} fd_attr;

typedef struct fd_node {
	const char *name;      /* the model's name, or "<op_type>_<index>" when it had none */
	bool name_synthesized;
	const char *op_type;
	const char *domain;    /* "" for the default ONNX domain, however the model spelled it (onnx_ops.h) */
	int32_t n_inputs, n_outputs;
	int32_t *inputs;       /* tensor indices; FD_NONE for an omitted optional input ("") */
	int32_t *outputs;      /* tensor indices; FD_NONE for an omitted optional output */
	int32_t n_attrs;
	fd_attr *attrs;
	int32_t topo;          /* position in graph->topo_order */
	int32_t n_subgraphs;   /* bodies owned by this node (If/Loop/Scan), graph indices */
	int32_t *subgraphs;
	/* the compiler's own record of the node (ir/node_origin.h) when the
	 * model is a compiler's graph dump; NULL for an ONNX model */
	const struct fd_node_origin *origin;
} fd_node;

typedef struct fd_graph {
	const char *name;
	int32_t index;         /* in model->graphs; 0 is the main graph */
	int32_t parent;        /* enclosing graph, FD_NONE for the main graph */
	int32_t owner_node;    /* node of the parent graph owning this body, or FD_NONE */
	const char *owner_attr;/* "then_branch", "body", … */
	int32_t depth;         /* nesting depth, 0 for main */
	int32_t n_nodes, n_tensors;
	fd_node *nodes;        /* in file order */
	fd_tensor *tensors;
	int32_t n_inputs, n_outputs, n_initializers;
	int32_t *inputs;       /* graph inputs that are not initializers (values the caller must feed) */
	int32_t n_declared_inputs; /* every entry of the graph's input list, initializers included */
	int32_t *outputs;
	int32_t *topo_order;   /* node indices, producers before consumers, stable */
	/* name → index, built on the first graph_find_tensor / graph_find_node
	 * (a pipeline that never asks by name never pays for them) */
	strmap tensor_by_name;
	strmap node_by_name;
} fd_graph;

typedef struct fd_opset {
	const char *domain;    /* "" = ai.onnx */
	int64_t version;
} fd_opset;

/* A symbol of the model (a dim_param, or the name given to an unnamed dim
 * of a graph input), and what it was bound to. */
typedef struct fd_symdim {
	const char *name;
	int64_t value;
	bool bound;            /* by --dim or --input-shape; otherwise its value is unknown */
	bool used;             /* some tensor's shape depends on it (after inference) */
} fd_symdim;

typedef struct fd_model {
	fd_arena arena;
	strpool names;
	const char *path;
	/* what the file was when it was not an ONNX protobuf ("GE graph dump
	 * (ModelDef, protobuf text)"); NULL for ONNX */
	const char *format;
	int64_t ir_version;
	int64_t model_version;
	const char *producer_name, *producer_version, *domain, *doc_string;
	int32_t n_opsets;
	fd_opset *opsets;
	int32_t n_graphs;
	fd_graph *graphs;      /* [0] is the main graph; bodies follow in discovery order */
	int32_t n_symdims;
	fd_symdim *symdims;
	fd_dimtab *dimtab;     /* symbols and dim expressions (ir/dim.h) */
	bool dimtab_borrowed;  /* another model's (a rewritten model's): not released with this one */
	int64_t file_size;
	/* The initializer policy: false follows ONNX (an initializer listed as a
	 * graph input is overridable from IR 4 on); true treats every
	 * initializer as a weight, as toolchains that freeze the graph do
	 * (`--initializers constant`, fusiondbg(1)). */
	bool initializers_constant;
	/* Shapes as ONNX's own inference derives them (`--shapes onnx`): values
	 * computed from a dynamic Shape pass only through the ops ONNX
	 * propagates data through; set before shape inference. */
	bool shapes_onnx;
} fd_model;

/* Frees everything the model owns (its arena, names and name indexes). */
void model_release(fd_model *m);
/* *src moved into *dst (a plain struct copy would leave the name pool and
 * the dims table allocating from src's arena); src is left empty. */
void model_move(fd_model *dst, fd_model *src);

/* Graph helpers (graph.c). */
int  graph_link(fd_model *m, fd_graph *g, fd_diags *d);      /* producers, consumers, checks */
int  graph_topo_sort(fd_model *m, fd_graph *g, fd_diags *d); /* fills topo_order, node->topo */
int32_t graph_find_tensor(const fd_graph *g, const char *name);
int32_t graph_find_node(const fd_graph *g, const char *name);
/* The first node named name in the main graph, else in the bodies in order:
 * sets *graph and *node (FD_NONE both, and false, when there is none). */
bool model_find_node(const fd_model *m, const char *name, int32_t *graph, int32_t *node);
const fd_attr *node_attr(const fd_node *n, const char *name);
/* Node n is ONNX's op op_type: that type in the default domain, which every
 * node holds as "" (onnx_ops.h), so no other spelling is looked for. */
bool node_is(const fd_node *n, const char *op_type);
/* node_is for node `node` of g; false for FD_NONE and any index outside g. */
bool graph_node_is(const fd_graph *g, int32_t node, const char *op_type);
int32_t node_spatial_rank(const fd_graph *g, const fd_node *n); /* Conv/Pool: dims - 2, or -1 */
bool tensor_is_constant(const fd_graph *g, int32_t t);          /* non-overridable initializer or Constant */
/* Sets the initializer policy and every tensor's overridable flag from it. */
void model_set_initializer_policy(fd_model *m, bool initializers_constant);
/* What an initializer is, in words for the trace and the TUI: "initializer",
 * "initializer, overridable (also a graph input)", or, listed as an input but
 * held constant, why: IR < 4, or the policy. */
const char *tensor_initializer_words(const fd_model *m, const fd_tensor *x);

/* Static: rank known and every dim a number that holds for every run — a
 * literal, or an expression whose symbols are all bound (--dim,
 * --input-shape); an unbound symbol has no value. */
bool shape_is_static(const fd_model *m, const fd_shape *s);

/* Byte size of a tensor; saturates at INT64_MAX and returns false when any dim
 * is unknown or the product overflows (*bytes then holds what is known). */
bool shape_elements(const fd_shape *s, int64_t *count);
bool tensor_bytes(const fd_tensor *t, int64_t *bytes);
/* The byte size as a symbolic integer: a number (as tensor_bytes), or an
 * expression over the dims' symbols (the formula of a size that depends on
 * unbound symbols; dexpr_format_bytes says it in words); unknown when the
 * dtype has no size, the rank is unknown or a dim is nothing at all. */
fd_sint tensor_bytes_sym(const fd_tensor *t);
/* As the user reads it: "1×64×56×56", "batch×128", "2×(2*L+1)" (ASCII:
 * "1x64x56x56", "batch x 128"); bound dims as numbers, the rest as formulas
 * in what is unbound, long symbols as aliases (dim_display.c); "?" for
 * unknown rank, "scalar" for rank 0. Returns buf. */
char *shape_format(const fd_shape *s, char *buf, size_t size);
/* For JSON: "1x64x56x56", "batchx128", bound dims as numbers, the other
 * symbols by their own names. */
char *shape_format_json(const fd_shape *s, char *buf, size_t size);

/* The model's symbols (model_dims.c): every symbolic dim's value taken
 * again from its expression at the bindings; which symbols some tensor's
 * shape depends on (fd_symdim.used); and the unbound ones among those,
 * sorted by name (returns how many; up to max stored). */
void model_refresh_dims(fd_model *m);
/* The unbound symbols tensor t's shape waits on (fresh ones not included),
 * distinct, sorted; returns how many (up to max stored). */
int  tensor_unbound_symbols(const fd_tensor *t, const char **names, int max);
void model_mark_used_symbols(fd_model *m);
int  model_unbound_symbols(const fd_model *m, const char **names, int max);

/* Counts over intermediate tensors (activations that are not graph outputs). */
typedef struct fd_shape_coverage {
	int64_t known, total;
} fd_shape_coverage;
fd_shape_coverage model_shape_coverage(const fd_model *m);

#endif
