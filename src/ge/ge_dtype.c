/* ge_dtype.c — GE's DataType enum (ge_ir.proto) as one list: the name of
 * each value as the text format writes it, in the order of the values, and
 * the IR's dtype (ir/dtype.h, ONNX numbering) where the IR has one. */
#include <assert.h>
#include "ge/ge_loader.h"

#define GE_DTYPES(X) \
	X("DT_UNDEFINED", DT_UNDEFINED) X("DT_FLOAT", DT_FLOAT) X("DT_FLOAT16", DT_FLOAT16) \
	X("DT_INT8", DT_INT8) X("DT_UINT8", DT_UINT8) X("DT_INT16", DT_INT16) \
	X("DT_UINT16", DT_UINT16) X("DT_INT32", DT_INT32) X("DT_INT64", DT_INT64) \
	X("DT_UINT32", DT_UINT32) X("DT_UINT64", DT_UINT64) X("DT_BOOL", DT_BOOL) \
	X("DT_DOUBLE", DT_DOUBLE) X("DT_STRING", DT_STRING) X("DT_DUAL_SUB_INT8", DT_UNDEFINED) \
	X("DT_DUAL_SUB_UINT8", DT_UNDEFINED) X("DT_COMPLEX64", DT_COMPLEX64) X("DT_COMPLEX128", DT_COMPLEX128) \
	X("DT_QINT8", DT_UNDEFINED) X("DT_QINT16", DT_UNDEFINED) X("DT_QINT32", DT_UNDEFINED) \
	X("DT_QUINT8", DT_UNDEFINED) X("DT_QUINT16", DT_UNDEFINED) X("DT_RESOURCE", DT_UNDEFINED) \
	X("DT_STRING_REF", DT_UNDEFINED) X("DT_DUAL", DT_UNDEFINED) X("DT_VARIANT", DT_UNDEFINED) \
	X("DT_BF16", DT_BFLOAT16) X("DT_INT4", DT_INT4) X("DT_UINT1", DT_UNDEFINED) \
	X("DT_INT2", DT_UNDEFINED) X("DT_UINT2", DT_UNDEFINED) X("DT_COMPLEX32", DT_UNDEFINED) \
	X("DT_HIFLOAT8", DT_UNDEFINED) X("DT_FLOAT8_E5M2", DT_FLOAT8E5M2) X("DT_FLOAT8_E4M3FN", DT_FLOAT8E4M3FN) \
	X("DT_FLOAT8_E8M0", DT_UNDEFINED) X("DT_FLOAT6_E3M2", DT_UNDEFINED) X("DT_FLOAT6_E2M3", DT_UNDEFINED) \
	X("DT_FLOAT4_E2M1", DT_UNDEFINED) X("DT_FLOAT4_E1M2", DT_UNDEFINED) X("DT_HIFLOAT4", DT_UNDEFINED)

#define NAME_OF(name, ir) name,
#define IR_OF(name, ir) ir,
const char *const ge_dtype_names[] = { GE_DTYPES(NAME_OF) };
static const int32_t ir_of[] = { GE_DTYPES(IR_OF) };
#define N_DTYPES ((int)(sizeof ir_of / sizeof *ir_of))
static_assert(N_DTYPES == 42, "GE's DataType has 42 values, DT_UNDEFINED to DT_HIFLOAT4");
const int ge_dtype_count = N_DTYPES;

int32_t ge_dtype_to_ir(int64_t ge_dtype)
{
	return ge_dtype >= 0 && ge_dtype < N_DTYPES ? ir_of[ge_dtype] : DT_UNDEFINED;
}
