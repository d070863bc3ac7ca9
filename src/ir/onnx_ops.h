/* onnx_ops.h — names of the standard ONNX operators (ai.onnx, ai.onnx.ml), as
 * data, so `info` can list the op types no standard defines (unknown_ops). */
#ifndef FD_ONNX_OPS_H
#define FD_ONNX_OPS_H
#include <stdbool.h>

bool onnx_op_is_standard(const char *domain, const char *op_type);

#endif
