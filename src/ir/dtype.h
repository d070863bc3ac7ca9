/* dtype.h — element types, numbered as ONNX TensorProto.DataType, as a table. */
#ifndef FD_DTYPE_H
#define FD_DTYPE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	DT_UNDEFINED = 0, DT_FLOAT = 1, DT_UINT8 = 2, DT_INT8 = 3, DT_UINT16 = 4, DT_INT16 = 5,
	DT_INT32 = 6, DT_INT64 = 7, DT_STRING = 8, DT_BOOL = 9, DT_FLOAT16 = 10, DT_DOUBLE = 11,
	DT_UINT32 = 12, DT_UINT64 = 13, DT_COMPLEX64 = 14, DT_COMPLEX128 = 15, DT_BFLOAT16 = 16,
	DT_FLOAT8E4M3FN = 17, DT_FLOAT8E4M3FNUZ = 18, DT_FLOAT8E5M2 = 19, DT_FLOAT8E5M2FNUZ = 20,
	DT_UINT4 = 21, DT_INT4 = 22,
	DT_COUNT
};

const char *dtype_name(int32_t dt);        /* "float32", "float16", …; "undefined" */
int32_t     dtype_from_name(const char *s); /* accepts float32/float/fp32/FLOAT, …; -1 unknown */
/* ", did you mean 'float32'?" for a name dtype_from_name refuses, "" when
 * no dtype name is near it. Returns buf. */
char       *dtype_hint(const char *typed, char *buf, size_t size);
int         dtype_bits(int32_t dt);         /* 0 for string / undefined */
bool        dtype_is_float(int32_t dt);
bool        dtype_is_integer(int32_t dt);   /* bool counts as integer */

#endif
