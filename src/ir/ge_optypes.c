/* ge_optypes.c — lookups in the table of what CANN's ONNX parser makes of
 * each ai.onnx operator (ge_optypes.h). The table is generated; its rows
 * are sorted by op name and first opset, which the binary search relies on. */
#include <stdlib.h>
#include <string.h>
#include "ir/ge_optypes.h"

static const ge_optype_row rows[] = {
#include "ir/ge_optypes_table.inc"
};

/* The plugins whose compute op follows the input's rank. */
static const struct rank_row {
	const char *onnx_op;
	int rank;
	const char *ge_type;
} rank_rows[] = { GE_OPTYPE_RANK_ROWS };

static int by_op(const void *key, const void *elem)
{
	return strcmp(key, ((const ge_optype_row *)elem)->onnx_op);
}

const ge_optype_row *ge_optype_find(const char *onnx_op, int opset)
{
	if (!onnx_op)
		return NULL;
	const ge_optype_row *hit = bsearch(onnx_op, rows, sizeof rows / sizeof rows[0], sizeof rows[0], by_op);
	if (!hit)
		return NULL;
	while (hit > rows && strcmp(hit[-1].onnx_op, onnx_op) == 0)
		hit--;
	for (const ge_optype_row *r = hit; r < rows + sizeof rows / sizeof rows[0] && strcmp(r->onnx_op, onnx_op) == 0; r++)
		if (opset >= r->opset_min && opset <= r->opset_max)
			return r;
	return NULL;
}

const char *ge_optype_of(const char *onnx_op, int opset, int rank)
{
	const ge_optype_row *r = ge_optype_find(onnx_op, opset);
	if (!r)
		return NULL;
	for (size_t i = 0; rank > 0 && i < sizeof rank_rows / sizeof rank_rows[0]; i++)
		if (rank_rows[i].rank == rank && strcmp(rank_rows[i].onnx_op, onnx_op) == 0)
			return rank_rows[i].ge_type;
	return r->compute;
}

const ge_optype_row *ge_optype_rows(size_t *n)
{
	*n = sizeof rows / sizeof rows[0];
	return rows;
}

int ge_optype_is_parsed(const char *ge_type)
{
	if (!ge_type)
		return 0;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if ((rows[i].compute && strcmp(rows[i].compute, ge_type) == 0) || strcmp(rows[i].registered, ge_type) == 0)
			return 1;
	return 0;
}
