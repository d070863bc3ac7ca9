/* model_load.h — the one way a command, a session or the TUI reads a model
 * file: it picks the reader by what the file holds (a GE graph dump in
 * protobuf text, ge/ge.h; otherwise an ONNX protobuf, onnx/onnx.h), so a
 * dump opens wherever an ONNX model does. It lives above both readers,
 * which include neither each other. */
#ifndef FD_MODEL_LOAD_H
#define FD_MODEL_LOAD_H
#include "base/diag.h"
#include "ir/graph.h"
#include "ir/load_options.h"

/* Loads path into m with the contract of onnx_load_model (on failure -1,
 * m released, one error in d). */
int session_load_model(fd_model *m, const char *path, const fd_load_options *opt, fd_diags *d);

#endif
