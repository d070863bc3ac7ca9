/* fuzz_ge.c — libFuzzer harness for the GE dump loader: any bytes go to
 * ge_load_model_buffer (the protobuf text reader, then the ModelDef walk)
 * and, when they load, to the record of UB groups; the loader must answer
 * with a model or with errors, never crash, hang or leak. Built by
 * `make fuzz` and, without libFuzzer, by tests/fuzz/replay.c for the
 * committed corpus. */
#include <stddef.h>
#include <stdint.h>
#include "base/diag.h"
#include "ge/ge.h"
#include "ge/ge_record.h"
#include "ir/graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fd_model m;
	fd_diags d;
	diags_init(&d);
	(void)ge_detect(data, size);
	if (ge_load_model_buffer(&m, "fuzz.txt", data, size, NULL, &d) == 0) {
		ge_record r;
		ge_record_compute(&m, &r);
		ge_record_release(&r);
		model_release(&m);
	}
	diags_release(&d);
	return 0;
}
