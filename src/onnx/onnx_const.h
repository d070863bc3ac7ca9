/* onnx_const.h — decoding the values of a small ONNX tensor into an fd_const,
 * from raw_data (little-endian) or from the typed repeated fields. Kept apart
 * from onnx_load.c so that it needs no protobuf type: the loader passes plain
 * arrays. The result lives in the given arena. */
#ifndef FD_ONNX_CONST_H
#define FD_ONNX_CONST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir/graph.h"

/* Where a TensorProto keeps its values; any field may be empty. */
typedef struct onnx_tensor_src {
	const uint8_t *raw;
	size_t raw_len;
	bool has_raw;
	const float *f32;      size_t n_f32;   /* float_data: FLOAT */
	const int32_t *i32;    size_t n_i32;   /* int32_data: ≤32-bit ints, bool, float16/bfloat16 bits */
	const int64_t *i64;    size_t n_i64;   /* int64_data: INT64 */
	const double *f64;     size_t n_f64;   /* double_data: DOUBLE */
	const uint64_t *u64;   size_t n_u64;   /* uint64_data: UINT32, UINT64 */
} onnx_tensor_src;

/* count elements of dtype, or NULL when the dtype is not decoded (strings,
 * complex, 8- and 4-bit floats/ints) or the data is missing or short. */
fd_const *onnx_const_decode(fd_arena *a, int32_t dtype, int64_t count, const onnx_tensor_src *src);

/* The element count of literal dims (-1 on a negative dim or an overflow),
 * and whether a tensor of them is small enough for its values to be read:
 * a constant shape inference or the rules may look at, inline, of at most
 * FD_CONST_MAX elements. A bigger one is a weight, whose bytes stay unread. */
int64_t onnx_dims_count(const int64_t *dims, size_t n);
bool onnx_tensor_small(const int64_t *dims, size_t n, bool external);

double onnx_half_to_double(uint16_t h);
double onnx_bfloat16_to_double(uint16_t b);

#endif
