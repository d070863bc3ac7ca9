/* model_load.c — the reader of a model file chosen by its content. */
#include "session/model_load.h"
#include "ge/ge.h"
#include "onnx/onnx.h"

int session_load_model(fd_model *m, const char *path, const fd_load_options *opt, fd_diags *d)
{
	/* ge_detect_file reads only the first bytes: an ONNX model pays one
	 * short read, and a file that cannot be read is the ONNX reader's to
	 * report, as before */
	if (ge_detect_file(path) == GE_FORMAT_MODELDEF)
		return ge_load_model(m, path, opt, d);
	return onnx_load_model(m, path, opt, d);
}
