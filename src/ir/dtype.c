/* dtype.c — the dtype table: one row per ONNX element type. */
#include "ir/dtype.h"
#include "base/nearest.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct dtype_row {
	const char *name;
	int bits;
	bool is_float;
	const char *aliases[3];
} dtypes[DT_COUNT] = {
	[DT_UNDEFINED]      = { "undefined", 0, false, { 0 } },
	[DT_FLOAT]          = { "float32", 32, true, { "float", "fp32", "f32" } },
	[DT_UINT8]          = { "uint8", 8, false, { "u8" } },
	[DT_INT8]           = { "int8", 8, false, { "i8" } },
	[DT_UINT16]         = { "uint16", 16, false, { "u16" } },
	[DT_INT16]          = { "int16", 16, false, { "i16" } },
	[DT_INT32]          = { "int32", 32, false, { "i32", "int" } },
	[DT_INT64]          = { "int64", 64, false, { "i64", "long" } },
	[DT_STRING]         = { "string", 0, false, { 0 } },
	[DT_BOOL]           = { "bool", 8, false, { "boolean" } },
	[DT_FLOAT16]        = { "float16", 16, true, { "half", "fp16", "f16" } },
	[DT_DOUBLE]         = { "float64", 64, true, { "double", "fp64", "f64" } },
	[DT_UINT32]         = { "uint32", 32, false, { "u32" } },
	[DT_UINT64]         = { "uint64", 64, false, { "u64" } },
	[DT_COMPLEX64]      = { "complex64", 64, false, { 0 } },
	[DT_COMPLEX128]     = { "complex128", 128, false, { 0 } },
	[DT_BFLOAT16]       = { "bfloat16", 16, true, { "bf16" } },
	[DT_FLOAT8E4M3FN]   = { "float8e4m3fn", 8, true, { 0 } },
	[DT_FLOAT8E4M3FNUZ] = { "float8e4m3fnuz", 8, true, { 0 } },
	[DT_FLOAT8E5M2]     = { "float8e5m2", 8, true, { 0 } },
	[DT_FLOAT8E5M2FNUZ] = { "float8e5m2fnuz", 8, true, { 0 } },
	[DT_UINT4]          = { "uint4", 4, false, { 0 } },
	[DT_INT4]           = { "int4", 4, false, { 0 } },
};

const char *dtype_name(int32_t dt)
{
	return dt >= 0 && dt < DT_COUNT ? dtypes[dt].name : "unknown";
}

int32_t dtype_from_name(const char *s)
{
	for (int32_t dt = 1; dt < DT_COUNT; dt++) {
		if (!strcasecmp(s, dtypes[dt].name))
			return dt;
		for (int a = 0; a < 3 && dtypes[dt].aliases[a]; a++)
			if (!strcasecmp(s, dtypes[dt].aliases[a]))
				return dt;
	}
	return -1;
}

char *dtype_hint(const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int32_t dt = 1; dt < DT_COUNT; dt++) {
		nearest_add(&nn, dtypes[dt].name);
		for (int a = 0; a < 3 && dtypes[dt].aliases[a]; a++)
			nearest_add(&nn, dtypes[dt].aliases[a]);
	}
	char list[256];
	if (!nearest_list(&nn, list, sizeof list)[0])
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, ", did you mean %s?", list);
	return buf;
}

int dtype_bits(int32_t dt)
{
	return dt >= 0 && dt < DT_COUNT ? dtypes[dt].bits : 0;
}

bool dtype_is_float(int32_t dt)
{
	return dt >= 0 && dt < DT_COUNT && dtypes[dt].is_float;
}

bool dtype_is_integer(int32_t dt)
{
	return dt >= 0 && dt < DT_COUNT && dt != DT_UNDEFINED && dt != DT_STRING && !dtypes[dt].is_float &&
	       dt != DT_COMPLEX64 && dt != DT_COMPLEX128;
}
