/* ge_optypes.h — the GE op type CANN's ONNX parser makes of an ai.onnx
 * operator, as data (ge_optypes_table.inc, made by
 * tests/tools/make_ge_optypes.py from the parser plugins' registrations),
 * so a rule written with ONNX names can be read against a GE graph and a GE
 * dump against ONNX names. The rows are static: nothing here allocates or
 * owns memory. */
#ifndef FD_GE_OPTYPES_H
#define FD_GE_OPTYPES_H
#include <stddef.h>

/* One registration: ai.onnx::<opset>::<onnx_op> for opset_min..opset_max.
 * registered is the type the plugin registers; when it is PartitionedCall
 * the plugin builds a small graph, candidates ("A|B") are the compute ops it
 * can make and compute the one that computes the op at the usual rank (4-D;
 * ge_optype_of takes the rank), NULL when the graph holds several and none
 * is the op. source is the plugin's file:line in its repository. */
typedef struct ge_optype_row {
	const char *onnx_op;
	int opset_min, opset_max;
	const char *registered;
	const char *compute;
	const char *candidates;
	const char *source;
} ge_optype_row;

/* The registration of onnx_op at opset (the first when two plugins register
 * it), NULL when no plugin does. */
const ge_optype_row *ge_optype_find(const char *onnx_op, int opset);
/* The GE compute op type of onnx_op at opset for an input of rank rank
 * (0: unknown, read as 4-D): Conv is Conv2D for 3-D and 4-D input, Conv3D for
 * 5-D. NULL when no plugin registers the op or its graph has no one op. */
const char *ge_optype_of(const char *onnx_op, int opset, int rank);
/* Every row, sorted by onnx_op then opset_min; *n is their count. */
const ge_optype_row *ge_optype_rows(size_t *n);
/* Whether some row, at any opset, makes ge_type (as compute or registered
 * type): a GE graph's type that the ONNX parser can produce. */
int ge_optype_is_parsed(const char *ge_type);

#endif
