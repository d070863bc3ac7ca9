/* ge.h — GE's graph dumps (what DUMP_GE_GRAPH writes, ge_proto_*.txt:
 * GE's ModelDef in protobuf text format) loaded into the IR (ir/graph.h)
 * as a model like any other: the ge/ folder's entry point.
 *
 * What a dump becomes: graph[0] the main graph, every other graph the body
 * of the op naming it in subgraph_name; each op a node with its GE type as
 * written (Conv2D, BatchNorm, Data, NetOutput: no ONNX names), its
 * attributes, and an output tensor per output_desc named "op:index" (the
 * way GE writes an input, so that inputs name tensors directly), with the
 * dtype and dims of the desc; an input "op:-1" is a control edge, kept in
 * the node's record, not a data input. The compiler's own record of each
 * node (fusion_scope, pass_name_ub, fusion_failed, the original op names
 * and types, pass_name) is typed in node->origin (ir/node_origin.h);
 * ge_record.h lists the UB groups and absorbed nodes from it. No shape
 * inference runs: the shapes are the compiler's.
 *
 * The loaded model owns all it holds; model_release frees it. */
#ifndef FD_GE_H
#define FD_GE_H
#include <stdbool.h>
#include <stddef.h>
#include "base/diag.h"
#include "ir/graph.h"
#include "ir/load_options.h"

/* What a file's first bytes say it is: a GE ModelDef in text format, a
 * ge.onnx ModelProto in text format (ge_onnx_*.pbtxt, not read here yet),
 * or neither (then an ONNX protobuf is the likely reading). */
typedef enum ge_format {
	GE_FORMAT_NONE,
	GE_FORMAT_MODELDEF,
	GE_FORMAT_ONNX_TEXT,
} ge_format;
ge_format ge_detect(const void *data, size_t size);
/* The same from a file's first 64 KiB; GE_FORMAT_NONE when it cannot be read. */
ge_format ge_detect_file(const char *path);

/* The words a model of this format says it is (fd_model.format). */
#define GE_MODELDEF_FORMAT "GE graph dump (ModelDef, protobuf text)"

/* Loads path into m (m need not be initialised), with the contract of
 * onnx_load_model: on failure returns -1, leaves m released and adds one
 * error, file:line:col where the dump says what is wrong. Of opt only what
 * applies to a dump is taken: its shapes are the compiler's, so --dim and
 * --input-shape get one warning each and change nothing. */
int ge_load_model(fd_model *m, const char *path, const fd_load_options *opt, fd_diags *d);
/* The same from memory (fuzzers, tests); name is used in messages. */
int ge_load_model_buffer(fd_model *m, const char *name, const void *data, size_t size,
                         const fd_load_options *opt, fd_diags *d);

#endif
