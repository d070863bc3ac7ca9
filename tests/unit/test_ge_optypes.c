/* test_ge_optypes.c — the ONNX to GE op type table (ir/ge_optypes.h): the
 * types CANN's ONNX parser makes of the ops fusion rules name, the opset
 * ranges of a registration, the rank that picks a subgraph's compute op,
 * and the table's order that the lookup's binary search relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ir/ge_optypes.h"

static void test_common_ops(void **state)
{
	(void)state;
	assert_string_equal(ge_optype_of("Conv", 13, 4), "Conv2D");
	assert_string_equal(ge_optype_of("MatMul", 13, 3), "BatchMatMulV2");
	assert_string_equal(ge_optype_of("MatMul", 17, 2), "BatchMatMulV2");
	assert_string_equal(ge_optype_of("Gemm", 11, 2), "MatMulV2");
	assert_string_equal(ge_optype_of("BatchNormalization", 15, 4), "BatchNorm");
	assert_string_equal(ge_optype_of("Softmax", 13, 3), "SoftmaxV2");
	assert_string_equal(ge_optype_of("LayerNormalization", 17, 3), "LayerNorm");
	assert_string_equal(ge_optype_of("Div", 13, 4), "RealDiv");
	assert_string_equal(ge_optype_of("Sigmoid", 13, 4), "Sigmoid");
	assert_string_equal(ge_optype_of("LeakyRelu", 13, 4), "LeakyRelu");
	assert_string_equal(ge_optype_of("Concat", 13, 4), "ConcatD");
	assert_string_equal(ge_optype_of("Slice", 13, 4), "StridedSliceV2");
	assert_string_equal(ge_optype_of("Resize", 13, 4), "Resize");
}

/* Conv is one PartitionedCall whatever its rank; the graph it becomes holds
 * Conv2D for 3-D (unsqueezed) and 4-D input, Conv3D for 5-D. */
static void test_rank_picks_the_subgraph_op(void **state)
{
	(void)state;
	assert_string_equal(ge_optype_of("Conv", 13, 3), "Conv2D");
	assert_string_equal(ge_optype_of("Conv", 13, 5), "Conv3D");
	assert_string_equal(ge_optype_of("Conv", 13, 0), "Conv2D");
	assert_string_equal(ge_optype_of("AveragePool", 11, 5), "AvgPool3D");
	const ge_optype_row *r = ge_optype_find("Conv", 13);
	assert_non_null(r);
	assert_string_equal(r->registered, "PartitionedCall");
	assert_non_null(strstr(r->candidates, "Conv3D"));
	assert_non_null(strstr(r->source, "conv_onnx_plugin.cpp:"));
}

/* Registrations cover opsets 8 to 18; outside them the parser has no plugin.
 * Softmax has two registrations, split where its axis semantics changed. */
static void test_opset_ranges(void **state)
{
	(void)state;
	assert_null(ge_optype_find("Conv", 7));
	assert_null(ge_optype_find("Conv", 19));
	const ge_optype_row *old = ge_optype_find("Softmax", 12), *new = ge_optype_find("Softmax", 13);
	assert_non_null(old);
	assert_non_null(new);
	assert_ptr_not_equal(old, new);
	assert_int_equal(old->opset_max, 12);
	assert_int_equal(new->opset_min, 13);
	assert_null(ge_optype_of("NoSuchOp", 13, 4));
	assert_null(ge_optype_of(NULL, 13, 4));
}

static void test_parsed_types(void **state)
{
	(void)state;
	assert_true(ge_optype_is_parsed("Conv2D"));
	assert_true(ge_optype_is_parsed("SoftmaxV2"));
	assert_true(ge_optype_is_parsed("PartitionedCall"));
	assert_false(ge_optype_is_parsed("Conv"));
	assert_false(ge_optype_is_parsed(NULL));
}

static void test_table_sorted(void **state)
{
	(void)state;
	size_t n;
	const ge_optype_row *rows = ge_optype_rows(&n);
	assert_true(n > 100);
	for (size_t i = 1; i < n; i++) {
		int c = strcmp(rows[i - 1].onnx_op, rows[i].onnx_op);
		assert_true(c < 0 || (c == 0 && rows[i - 1].opset_min <= rows[i].opset_min));
	}
	for (size_t i = 0; i < n; i++) {
		assert_true(rows[i].opset_min <= rows[i].opset_max);
		assert_non_null(ge_optype_find(rows[i].onnx_op, rows[i].opset_min));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common_ops),
		cmocka_unit_test(test_rank_picks_the_subgraph_op),
		cmocka_unit_test(test_opset_ranges),
		cmocka_unit_test(test_parsed_types),
		cmocka_unit_test(test_table_sorted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
