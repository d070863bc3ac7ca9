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

/* How many elements each typed data field of a TensorProto holds: every
 * tensor's, a weight's too (the wire decoder counts them without reading
 * the values). */
typedef struct onnx_data_counts {
	size_t f32, i32, strings, i64, f64, u64;
} onnx_data_counts;

/* A tensor's data that does not fit its dims: the field, what it holds and
 * what dims and dtype need (bytes for raw_data, else elements). */
typedef struct onnx_data_mismatch {
	const char *field;     /* "raw_data", "float_data", … */
	uint64_t have, want;
	bool bytes;
} onnx_data_mismatch;

/* The check onnxruntime makes of a tensor embedded in the model: raw_data
 * must be exactly count elements of dtype wide, else the typed field the
 * dtype uses must hold count values (two a complex, half a 4-bit one); -1
 * and *out when it does not. Tensors of an unknown or undefined dtype and a
 * count that overflowed (-1) are not checked; external ones are not passed. */
int onnx_data_check(int32_t dtype, int64_t count, const onnx_tensor_src *src, const onnx_data_counts *c,
                    onnx_data_mismatch *out);

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
