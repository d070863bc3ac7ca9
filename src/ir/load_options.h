/* load_options.h — what a caller asks of any model loader (the ONNX one in
 * onnx/, the GE dump one in ge/): --dim bindings, --input-shape specs, the
 * initializer policy. Plain data; the caller owns every array it points to. */
#ifndef FD_LOAD_OPTIONS_H
#define FD_LOAD_OPTIONS_H
#include <stdbool.h>
#include <stdint.h>

typedef struct fd_dim_binding {
	const char *name;
	int64_t value;
} fd_dim_binding;

typedef struct fd_load_options {
	const fd_dim_binding *dims;
	int n_dims;
	/* "x:1,3,224,224;mask:1,128" (CANN ATC's --input_shape), each may list
	 * several inputs; man fusiondbg(1), OPTIONS */
	const char *const *input_shapes;
	int n_input_shapes;
	/* a symbol --dim names (value < 0: unbound) is left as --dim says even
	 * where an --input-shape would bind it (a what-if on the bindings) */
	bool dims_win;
	/* --value NAME=V: the value of a scalar integer graph input (an If's
	 * condition then folds, as sr == 16000 does); name and value as --dim's */
	const fd_dim_binding *values;
	int n_values;
	bool no_shape_inference;
	bool initializers_constant;  /* every initializer a weight (model_set_initializer_policy) */
	bool shapes_onnx;            /* shapes as ONNX's own inference derives them (fd_model.shapes_onnx) */
	/* an initializer listed twice in one graph is read once, with a warning
	 * naming it, when both copies are identical (a compiler's optimized graph:
	 * onnxruntime writes some of a model with If twice); copies that differ
	 * are refused, naming it. Without it any second listing is refused. */
	bool identical_duplicates;
} fd_load_options;

#endif
