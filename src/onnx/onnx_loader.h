/* onnx_loader.h — the ONNX loader's working state and the functions its
 * files share; private to the loader, whose files are, lowest first:
 *   onnx_wire.c    wire-format checks and scanning, protobuf-c's scratch arena
 *   onnx_const.c   tensor values → fd_const (no protobuf type)
 *   onnx_decode.c  NodeProto and TensorProto read in place as views (onnx_msg.h)
 *   onnx_msg.c     the same views of protobuf-c's messages; which of the two
 *   onnx_loader.c  the state: interned names, tensors by name, body graphs
 *   onnx_stream.c  the main graph's initializers and nodes unpacked on a second thread
 *   onnx_node.c    one NodeProto (attributes, tensors, declared types)
 *   onnx_bind.c    unnamed input dims named, --dim and --input-shape bound
 *                  (the built model only, no protobuf)
 *   onnx_load.c    files, the model, graphs in order, outer-scope captures
 * Each calls only the ones above it. This header and onnx_write.c are the
 * only ones that bring in the protobuf-c types generated from onnx.proto.
 * The loader owns its vectors until finalize() moves them into the model's
 * arena. */
#ifndef FD_ONNX_LOADER_H
#define FD_ONNX_LOADER_H
#include <string.h>
#include "onnx.pb-c.h"
#include "ir/graph.h"
#include "onnx/onnx_wire.h"
#include "base/vec.h"
#include "onnx/onnx.h"
#include "onnx/onnx_msg.h"

typedef struct msg_stream msg_stream;

#define MAX_GRAPH_DEPTH 64      /* nested If / Loop / Scan bodies */

#define S(x) ((x) ? (x) : "")

static inline onnx_str onnx_strv(const char *s)   /* a C string as a view */
{
	return (onnx_str){ S(s), s ? strlen(s) : 0 };
}

static inline bool onnx_str_empty(onnx_str s)
{
	return !s.n || !s.s[0];
}

/* Where a graph's messages come from: an unpacked GraphProto (a body, which
 * arrives inside its owner's NodeProto), or the wire bytes of the main graph,
 * unpacked one message at a time into the scratch arena. */
#define GRAPH_FIELDS 16           /* GraphProto field numbers are below this */
typedef struct graph_src {
	const Onnx__GraphProto *proto;
	const uint8_t *wire;
	size_t len;
	wire_span span[GRAPH_FIELDS];  /* wire: where each field's entries lie */
} graph_src;

typedef struct graph_build {
	graph_src src;
	VEC(fd_tensor) tensors;
	VEC(int32_t) inputs;
	VEC(int32_t) outputs;
	int32_t n_initializers;
	int32_t n_declared_inputs;  /* the input list's entries, initializers included */
} graph_build;

/* An initializer's fingerprint as it was first listed (identical_duplicates). */
typedef struct onnx_init_print {
	int32_t graph, tensor;
	uint64_t print;
} onnx_init_print;

typedef struct loader {
	fd_model *m;
	fd_diags *d;
	fd_srcpos pos;
	const uint8_t *file;      /* the whole file, for byte offsets in messages */
	size_t file_size;
	pb_arena scratch;         /* one main-graph message at a time */
	msg_stream *stream;       /* or the main graph's initializers and nodes, unpacked ahead */
	VEC(fd_graph) graphs;
	VEC(graph_build) build;   /* parallel to graphs */
	VEC(int32_t) main_tensor;  /* string id (model->names) → tensor of graph 0, or -1 */
	int64_t bad_dim;          /* what onnx_tensor_read refused, for the message */
	size_t bad_axis;
	/* identical_duplicates (fd_load_options): each initializer's fingerprint,
	 * so that a second listing can be told identical or not */
	bool identical_duplicates;
	VEC(onnx_init_print) prints;
} loader;

/* onnx_loader.c */
const char *onnx_loader_intern(loader *L, const char *s);
const char *onnx_loader_internv(loader *L, onnx_str s);
/* Names to tensors. The main graph's index is an array by string id, so a
 * name costs one hash probe (the interning); bodies use their strmap. */
int32_t onnx_loader_tensor_find(loader *L, int32_t gi, onnx_str name);
/* A new tensor, or FD_NONE when the graph has one of that name already. */
int32_t onnx_loader_tensor_add(loader *L, int32_t gi, onnx_str name, fd_tensor_kind kind);
/* The tensor named name, created as an activation when new. */
int32_t onnx_loader_tensor_get(loader *L, int32_t gi, onnx_str name);
/* A node's tensors: ids[i] the one named names[i] (FD_NONE for ""). */
void onnx_loader_node_tensors(loader *L, int32_t gi, const onnx_str *names, size_t n, int32_t *ids);
static inline fd_tensor *loader_tensor(loader *L, int32_t gi, int32_t t)
{
	return &L->build.items[gi].tensors.items[t];
}
/* Reserves the next graph index for a body (onnx_load.c converts it). */
int32_t onnx_loader_body(loader *L, int32_t parent, int32_t node, const char *attr,
                    const Onnx__GraphProto *proto);

/* onnx_stream.c: the messages of a few field ranges of a graph (the main
 * graph's initializers, then its nodes) checked and unpacked ahead on a
 * second thread, and by the caller's while it would wait, for graphs of
 * STREAM_MIN_NODES messages and more. start
 * returns NULL when no thread can be made (or may be used: thread_budget);
 * next gives the messages of the first range, then NULL at its end, then
 * those of the next range, and so on (*failed: a message is malformed, *bad
 * says why (NULL: protobuf-c refused it) and where in the file). A message
 * lives until the next call. */
#define STREAM_MIN_NODES 4096
#define STREAM_RANGES 4
/* onnx_msg_node or onnx_msg_tensor, as the stream calls them */
typedef const void *(*msg_decoder)(pb_arena *a, const uint8_t *p, size_t len, size_t base, int depth,
                                   wire_error *err);
typedef struct stream_range {
	const uint8_t *wire;                       /* the graph's bytes from the range's first entry */
	size_t len;
	unsigned field;                            /* the GraphProto field number */
	msg_decoder decode;                        /* its messages' */
} stream_range;
msg_stream *onnx_stream_start(const stream_range *ranges, int n, const uint8_t *file);
const void *onnx_stream_next(msg_stream *s, bool *failed, wire_error *bad);
void onnx_stream_stop(msg_stream *s);     /* NULL is fine */

/* onnx_bind.c: names the unnamed input dims, applies --dim and
 * --input-shape, fills model->symdims; -1 with an error in d. */
int onnx_loader_bind(fd_model *m, const fd_load_options *opt, fd_diags *d, fd_srcpos pos);

/* onnx_node.c */
int onnx_tensor_read(loader *L, const onnx_tensor_msg *p, int32_t *dtype, fd_shape *shape,
                     fd_const **value, bool *external);
int onnx_apply_type(loader *L, int32_t gi, int32_t t, const Onnx__ValueInfoProto *vi);
/* Converts node i of graph gi; its bodies get graph indices (n->subgraphs)
 * for the caller to convert while p is alive. */
int onnx_node_convert(loader *L, int32_t gi, int32_t i, const onnx_node_msg *p);
/* "<op_type>_<index>" names for the nodes that had none, unique in the graph. */
void onnx_name_nodes(loader *L, int32_t gi);

#endif
