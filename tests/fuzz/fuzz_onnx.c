/* fuzz_onnx.c — libFuzzer harness for the ONNX loader: any bytes go to
 * onnx_load_model_buffer (which also runs shape inference); the loader must
 * answer with a model or with errors, never crash, hang or leak.
 * Built by `make fuzz` (with -fsanitize=fuzzer) and, without libFuzzer, by
 * tests/fuzz/replay.c for the committed crashers. */
#include <stddef.h>
#include <stdint.h>
#include "base/diag.h"
#include "ir/graph.h"
#include "onnx/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fd_model m;
	fd_diags d;
	diags_init(&d);
	if (onnx_load_model_buffer(&m, "fuzz.onnx", data, size, NULL, &d) == 0)
		model_release(&m);
	diags_release(&d);
	return 0;
}
