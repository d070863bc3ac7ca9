/* hwprofile.h — hardware profiles for the roofline cost model, as a data
 * table (hwprofile.c): global-memory bandwidth and peak FLOP/s per dtype.
 * The figures are public order-of-magnitude numbers, not measurements: every
 * speed-up computed from them is an estimate and is labelled so.
 * The table is static and read-only. */
#ifndef FD_HWPROFILE_H
#define FD_HWPROFILE_H
#include <stdint.h>

typedef struct fd_hwprofile {
	const char *name;            /* "ascend910-class", "cpu" */
	const char *description;
	double mem_bytes_per_s;      /* global memory (HBM / DRAM) bandwidth */
	double flops_fp16;           /* peak FLOP/s per dtype class */
	double flops_bf16;
	double flops_fp32;
	double flops_int8;           /* int8 ops/s (int8, uint8) */
	double flops_other;          /* anything else (fp64, int32, bool, …) */
} fd_hwprofile;

#define HWPROFILE_DEFAULT "ascend910-class"

/* By name; NULL when unknown. hwprofile_default() never returns NULL. */
const fd_hwprofile *hwprofile_find(const char *name);
const fd_hwprofile *hwprofile_default(void);
/* Peak FLOP/s for compute in dtype (DT_*; DT_UNDEFINED → fp32). */
double hwprofile_flops(const fd_hwprofile *p, int32_t dtype);

#endif
