/* hwprofile.c — the hardware profiles of the roofline model, as data.
 * Public order-of-magnitude figures, not measurements; every number derived
 * from them is an estimate.
 *   ascend910-class  HBM ~1.2 TB/s; cube unit ~256 TFLOP/s fp16 / bf16,
 *                    ~512 TOP/s int8; fp32 runs on the vector unit, far lower.
 *   cpu              a generic server socket: ~100 GB/s DRAM, ~2 TFLOP/s fp32. */
#include <string.h>
#include "ir/dtype.h"
#include "estimate/hwprofile.h"

static const fd_hwprofile profiles[] = {
	{ .name = "ascend910-class",
	  .description = "Ascend 910-class NPU (HBM ~1.2 TB/s, fp16 cube ~256 TFLOP/s)",
	  .mem_bytes_per_s = 1.2e12,
	  .flops_fp16 = 256e12, .flops_bf16 = 256e12, .flops_fp32 = 16e12,
	  .flops_int8 = 512e12, .flops_other = 4e12 },
	{ .name = "cpu",
	  .description = "generic server CPU (DRAM ~100 GB/s, fp32 ~2 TFLOP/s)",
	  .mem_bytes_per_s = 100e9,
	  .flops_fp16 = 1e12, .flops_bf16 = 2e12, .flops_fp32 = 2e12,
	  .flops_int8 = 4e12, .flops_other = 0.5e12 },
};

static int hwprofile_count(void)
{
	return (int)(sizeof profiles / sizeof *profiles);
}

const fd_hwprofile *hwprofile_find(const char *name)
{
	for (int i = 0; name && i < hwprofile_count(); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

const fd_hwprofile *hwprofile_default(void)
{
	return &profiles[0];
}

double hwprofile_flops(const fd_hwprofile *p, int32_t dtype)
{
	switch (dtype) {
	case DT_FLOAT16:
		return p->flops_fp16;
	case DT_BFLOAT16:
		return p->flops_bf16;
	case DT_FLOAT:
	case DT_UNDEFINED:
		return p->flops_fp32;
	case DT_INT8:
	case DT_UINT8:
		return p->flops_int8;
	default:
		return p->flops_other;
	}
}
