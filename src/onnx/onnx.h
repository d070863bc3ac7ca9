/* onnx.h — loading an ONNX ModelProto into the IR (ir/graph.h): the onnx/
 * folder's entry point (onnx_write.h, writing a rewritten model, is the only
 * other). Everything protobuf-c lives behind these functions. The loaded
 * model owns all it holds; model_release frees it. */
#ifndef FD_ONNX_H
#define FD_ONNX_H
#include "base/diag.h"
#include "ir/graph.h"
#include "ir/load_options.h"

/* fd_load_options: ir/load_options.h, shared with the GE dump loader (ge/ge.h) */

/* Loads path into m (m need not be initialised). On failure returns -1,
 * leaves m released, and adds one error naming the file and the node or field. */
int  onnx_load_model(fd_model *m, const char *path, const fd_load_options *opt, fd_diags *d);
/* What the load does last unless opt->no_shape_inference: shapes and dtypes
 * inferred (shape_infer), the symbols in use marked. A session whose first
 * run is behind the screen calls it on the run's thread. */
int  onnx_infer_shapes(fd_model *m, fd_diags *d);
/* Test hook: main graphs of n messages and more are unpacked on two threads
 * (onnx_stream.c), so that small real models take that path too; 0 restores
 * the default. */
void onnx_test_stream_min(size_t n);
/* Test hook: false has protobuf-c unpack every node and initializer instead
 * of the in-place decoder (onnx_decode.c), so that the two loads can be
 * compared field by field; true restores the decoder. */
void onnx_test_wire_decoder(bool on);
/* Test hook: fn(fd, arg) runs once the model file is open and its size
 * taken, before its bytes are read (a test truncates it there, as an
 * exporter saving in place would); NULL removes it. */
void onnx_test_on_open(void (*fn)(int fd, void *arg), void *arg);
/* Same from memory (fuzzers, tests); name is used in messages. */
int  onnx_load_model_buffer(fd_model *m, const char *name, const void *data, size_t size,
                            const fd_load_options *opt, fd_diags *d);
#endif
