/* onnx_write_internal.h — what the two writers share (onnx_write.c, which
 * writes a rewrite and owns this, and onnx_write_shapes.c, which writes the
 * inferred shapes): finding each fd graph's GraphProto in the model decoded
 * again. Private to src/onnx/. */
#ifndef FD_ONNX_WRITE_INTERNAL_H
#define FD_ONNX_WRITE_INTERNAL_H
#include "onnx.pb-c.h"
#include "onnx/onnx_write.h"

/* out[g] = the GraphProto of fd graph g, for gi and every body under it
 * (through the GRAPH / GRAPHS attributes the loader resolved); -1 + d when
 * the file no longer matches the loaded model. */
int onnx_map_graphs(const fd_model *m, int32_t gi, Onnx__GraphProto *gp, Onnx__GraphProto **out, fd_diags *d);
/* m's file read and decoded again: the ModelProto (free it with
 * onnx__model_proto__free_unpacked, then free *bytes), or NULL + d. */
Onnx__ModelProto *onnx_read_again(const fd_model *m, char **bytes, fd_diags *d);
/* mp packed and written to path atomically; 0, or -1 + d. */
int onnx_pack_write(const Onnx__ModelProto *mp, const char *path, fd_diags *d);

#endif
