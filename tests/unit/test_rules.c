/* test_rules.c — the rule loader, schema, lint and op table.
 * Runs from the repository root (tests/run-all does). Covers: CANN's
 * literal rules and what check says about them, the shipped rules/ under
 * --strict, one broken file per error class with its exact first error and
 * line:col, hostile YAML (alias bomb, deep nesting, garbage, truncations)
 * that must fail fast and never crash, exact byte offsets, byte units, the
 * environment, and op-table lookups. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "rules/optable.h"
#include "match/conditions.h"
#include "ruleset/ruleset.h"

static char *format_first(const fd_diags *d, fd_severity sev, char *buf, size_t size)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].severity == sev)
			return diag_format(&d->items[i], buf, size);
	snprintf(buf, size, "(none)");
	return buf;
}

static void print_diags(const fd_diags *d)
{
	char line[2048];
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "  %s\n", diag_format(&d->items[i], line, sizeof line));
}

/* ---- CANN's example rules as printed --------------------------------------------- */

static void test_cann_rules(void **state)
{
	(void)state;
	static const char *const expected[] = {
		"samples/cann_rules/attention_qk_softmax_fusion.yaml:8:22: warning: match.ops[0].params.transpose_b: true "
		"never holds on an ONNX MatMul node, which has no transpose attribute (exporters write a separate "
		"Transpose); only nodes carrying 'transB' (com.microsoft FusedMatMul) can match",
		"samples/cann_rules/conv_bn_relu_fusion.yaml:13:9: error: match.ops[2].params: Relu has no param 'clip_max' "
		"(Relu has no params; 'clip_max' is a param of Clip)",
		"samples/cann_rules/attention_scorev_fusion.yaml:6:5: warning: rule 'Attention_ScoreV_Fusion' has the same "
		"pattern as rule 'Attention_QKV_Fusion' (samples/cann_rules/attention_qkv_fusion.yaml:2:7): "
		"'Attention_ScoreV_Fusion' can never fire where the other matched",
		/* three rules of one priority on one anchor: one finding for the group */
		"samples/cann_rules/attention_qkv_fusion.yaml:3:11: warning: rules shadowed by priority: "
		"'Attention_QK_Softmax_Fusion', 'Attention_QKV_Fusion' and 'Attention_ScoreV_Fusion' (the first at "
		"samples/cann_rules/attention_qk_softmax_fusion.yaml:2:7) all have priority 180 and anchor on MatMul; "
		"only their names decide which runs first",
	};
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	assert_int_equal(ruleset_load(&rs, "samples/cann_rules", &d), 0);
	assert_int_equal(d.n, 0);      /* every example rule passes the schema */
	assert_int_equal(rs.n_rules, 7);
	assert_int_equal(rs.n_files, 7);
	fd_check_options opt = { 0 };
	ruleset_check(&rs, &opt, &d);
	print_diags(&d);
	assert_int_equal(d.n, sizeof expected / sizeof *expected);
	char line[2048];
	for (size_t i = 0; i < d.n; i++)
		assert_string_equal(diag_format(&d.items[i], line, sizeof line), expected[i]);
	/* the example rules keep every field: spot checks on the richest one */
	int32_t r = ruleset_find(&rs, "Conv_Add_SiLU_Fusion");
	assert_true(r >= 0);
	const fd_rule *cas = &rs.rules[r];
	assert_int_equal(cas->priority, 150);
	assert_int_equal(cas->match.n_ops, 3);
	assert_string_equal(cas->match.ops[2].type, "Swish");
	assert_int_equal(cas->match.ops[1].n_sources, 2);
	assert_int_equal(cas->match.ops[1].sources[1].source_type, SRC_CONST_OR_PARAM);
	assert_int_equal(cas->input_count_min, 1);
	assert_int_equal(cas->input_count_max, 2);
	assert_int_equal(cas->allow_intermediate_outputs, 0);
	assert_int_equal(cas->n_rewrite_inputs, 2);
	assert_string_equal(cas->tile_policy, "block");
	assert_int_equal(cas->n_chunk_size, 4);
	assert_int_equal(cas->chunk_size[1], 512);
	assert_int_equal(cas->n_constraints, 5);
	assert_int_equal(cas->constraints[2].kind, COND_MEMORY_LIMIT);
	assert_int_equal(cas->constraints[2].max_intermediate_size, 33554432);
	assert_int_equal(cas->constraints[3].max_workspace, 67108864);
	assert_true(cas->constraints[3].spill_to_l2);
	assert_int_equal(cas->constraints[4].divisor, 16);
	assert_string_equal(cas->kernel_name, "conv_add_silu_fusion");
	assert_true(cas->gen_dot_graph);
	assert_string_equal(cas->tensor_layout, "NCHW");
	/* strict: every finding is an error */
	diags_clear(&d);
	opt.strict = true;
	ruleset_check(&rs, &opt, &d);
	assert_int_equal(d.errors, 4);
	assert_int_equal(d.warnings, 0);
	diags_release(&d);
	ruleset_release(&rs);
}

/* ---- the shipped library ----------------------------------------------------- */

static void test_shipped_rules(void **state)
{
	(void)state;
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	assert_int_equal(ruleset_load(&rs, "rules", &d), 0);
	fd_check_options opt = { .strict = true };
	ruleset_check(&rs, &opt, &d);
	print_diags(&d);
	assert_int_equal(d.n, 0);
	static const char *const names[] = {
		"Conv_Add_SiLU_Fusion", "Conv_BN_Relu_Fusion", "MatMul_Reshape_Fusion", "Attention_QKV_Fusion",
		"Attention_QK_Softmax_Fusion", "Attention_ScoreV_Fusion", "LayerNorm_Dropout_Fusion",
	};
	assert_int_equal(rs.n_rules, 7);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		int32_t r = ruleset_find(&rs, names[i]);
		assert_true(r >= 0);
		const fd_rule *rule = &rs.rules[r];
		assert_non_null(rule->target_op);
		assert_non_null(rule->kernel_name);
		assert_true(rule->n_constraints > 0);
		assert_true(rule->enabled);
		assert_int_equal(rule->n_scope, 1);
		for (int k = 0; k < rule->match.n_ops; k++)
			assert_true(rule->match.ops[k].op >= 0);
	}
	/* directory order is strcmp order: attention.yaml first, its documents in order */
	assert_string_equal(rs.rules[0].name, "Attention_QKV_Fusion");
	assert_int_equal(rs.rules[0].doc_index, 0);
	assert_string_equal(rs.rules[2].name, "Attention_ScoreV_Fusion");
	assert_int_equal(rs.rules[2].doc_index, 2);
	assert_string_equal(rs.rules[3].name, "Conv_Add_SiLU_Fusion");
	diags_release(&d);
	ruleset_release(&rs);
}

/* ---- broken rule files: exact first error, position included ----------------- */

/* Where an expected error lists every key of an input entry: the list is
 * made from FD_CONDITIONS (input_keys), so a new condition changes no test. */
#define INPUT_KEYS "{input keys}"

/* The keys an input entry may state, each once, in the list's order, the
 * last after " or ": all of SCOPE_INPUT but optional, which states nothing
 * of its own. */
static void input_keys(char *buf, size_t size)
{
	static const struct { fd_cond_scope scope; const char *key; } rows[] = {
#define ROW(id, scope, key, event, reason, fn) { SCOPE_##scope, key },
		FD_CONDITIONS(ROW)
#undef ROW
	};
	const char *keys[COND_COUNT];
	size_t n = 0;
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		bool seen = rows[i].scope != SCOPE_INPUT || !strcmp(rows[i].key, "optional");
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(keys[k], rows[i].key);
		if (!seen)
			keys[n++] = rows[i].key;
	}
	assert_true(n >= 2);
	buf[0] = '\0';
	for (size_t k = 0; k < n; k++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ", keys[k]);
}

static const struct bad_case {
	const char *path;
	bool unparsed;          /* unreadable or not YAML (exit 2) */
	const char *first_error;/* after "<path>:" */
} bad_cases[] = {
	{ "syntax_error.yaml", true, "5:1: error: did not find expected ',' or ']' while parsing a flow sequence started at 4:8" },
	{ "tab_indent.yaml", true, "5:1: error: tab character used for indentation (YAML indents with spaces only)" },
	{ "alias_bomb.yaml", true, "7:8: error: alias expands the file beyond 1000000 values (alias bomb?)" },
	{ "not_utf8.yaml", true, "3:18: error: invalid UTF-8: byte 0xe9 at offset 40 does not start a valid sequence; rule files must be UTF-8" },
	{ "duplicate_key.yaml", true, "6:1: error: duplicate key 'priority' (first written at 2:1)" },
	{ "non_scalar_key.yaml", true, "6:7: error: mapping key must be a scalar, not a list" },
	{ "undefined_alias.yaml", true, "4:8: error: alias '*ops' names no finished anchor (undefined, or used inside its own anchor)" },
	{ "truncated.yaml", true, "7:1: error: did not find expected node content while parsing a flow node" },
	{ "missing_name.yaml", false, "1:1: error: rule has no 'name'" },
	{ "missing_match.yaml", false, "1:1: error: rule has no 'match'" },
	{ "missing_target_op.yaml", false, "7:3: error: rewrite: needs 'target_op'" },
	{ "priority_not_int.yaml", false, "2:11: error: priority: expected an integer, got string 'high'" },
	{ "priority_float.yaml", false, "2:11: error: priority: expected an integer, got number '1.5'" },
	{ "missing_priority.yaml", false, "1:1: error: rule 'R' has no priority; it runs at priority 0" },
	{ "unknown_op.yaml", false, "5:13: error: match.ops[0].type: unknown op type 'Conv2dd' (did you mean 'Conv2d'?)" },
	{ "unknown_op_nohint.yaml", false, "5:13: error: match.ops[0].type: unknown op type 'FrobnicateV9' (the op table lists canonical names such as Conv2d, BatchNorm, Relu, MatMul; see fusiondbg-rules(5))" },
	{ "unknown_param.yaml", false, "7:9: error: match.ops[0].params: Conv2d has no param 'group_count' (its params: groups, kernel_size, strides, dilations, pads, auto_pad, activation_type)" },
	{ "relu_param.yaml", false, "8:9: error: match.ops[1].params: Relu has no param 'clip_max' (Relu has no params; 'clip_max' is a param of Clip)" },
	{ "param_wrong_type.yaml", false, "7:17: error: match.ops[0].params.groups: Conv2d's groups wants an integer, got string 'one'" },
	{ "kernel_size_length.yaml", false, "7:22: error: match.ops[0].params.kernel_size: Conv2d wants 2 values (2 spatial dims), got 3" },
	{ "from_op_forward.yaml", false, "9:20: error: match.ops[1].input_sources.input0.from_op: 1 does not come before op 1 (from_op must name an earlier op)" },
	{ "from_op_out_of_range.yaml", false, "9:20: error: match.ops[1].input_sources.input0.from_op: 5 is out of range (the pattern has ops 0..1)" },
	{ "from_op_negative.yaml", false, "9:20: error: match.ops[1].input_sources.input0.from_op: must be >= 0, got -1" },
	{ "input_beyond_max.yaml", false, "11:9: error: match.ops[1].input_sources: input2 is beyond max_inputs 2 (inputs are numbered from 0)" },
	{ "bad_input_key.yaml", false, "8:9: error: match.ops[1].input_sources: key 'first' is not inputK (input0, input1, …)" },
	{ "source_without_fields.yaml", false, "8:17: error: match.ops[1].input_sources.input1: needs a condition (" INPUT_KEYS ")" },
	{ "unknown_source_type.yaml", false, "9:24: error: match.ops[1].input_sources.input1.source_type: unknown source_type 'residual' (known: const_or_param, const, initializer, param, activation, any)" },
	{ "input_count_range_reversed.yaml", false, "7:24: error: match.subgraph.input_count_range: lower bound 3 > upper bound 1" },
	{ "input_count_range_unreachable.yaml", false, "8:24: error: match.subgraph.input_count_range: lower bound 2 can never be met: the ops can read at most 1 external tensor" },
	{ "min_gt_max.yaml", false, "8:21: error: match.ops[0].inputs: min_inputs 3 > max_inputs 2" },
	{ "unknown_constraint.yaml", false, "9:11: error: constraints[0].type: unknown constraint type 'latency_budget' (known: dtype_match, shape_constraint, memory_limit, workspace_size, channel_divisibility)" },
	{ "unknown_dtype.yaml", false, "10:33: error: constraints[0].allowed_dtypes[1]: unknown dtype 'float17', did you mean 'float16'? (known: float32, float16, bfloat16, float64, int8, uint8, int16, int32, int64, bool, …)" },
	{ "empty_dtypes.yaml", false, "10:21: error: constraints[0].allowed_dtypes: empty list; the constraint can never pass" },
	{ "divisor_zero.yaml", false, "11:14: error: constraints[0].divisor: must be >= 1, got 0" },
	{ "negative_channel_dim.yaml", false, "10:18: error: constraints[0].channel_dim: -5 can never pass: the match's output has rank 4 (dims -4..3)" },
	{ "channel_dim_beyond_rank.yaml", false, "11:18: error: constraints[0].channel_dim: 4 can never pass: the match's output has rank 4 (dims 0..3)" },
	{ "max_output_zero.yaml", false, "11:22: error: constraints[0].max_output_size: 0 can never pass: every match has an output" },
	{ "bad_byte_count.yaml", false, "10:28: error: constraints[0].max_intermediate_size: expected a byte count (33554432, 32MiB, 64MB), got string '32 parsecs'" },
	{ "output_names_clash.yaml", false, "8:22: error: match.ops[1].output_names: 'out' is already the output name of op 0 (at 6:22)" },
	{ "equal_priority.yaml", false, "11:11: error: rules shadowed by priority: 'B' and 'A' (tests/data/bad_rules/equal_priority.yaml:1:7) both have priority 10 and anchor on Conv; only their names decide which runs first" },
	{ "duplicate_name", false, "b.yaml:2:7: error: duplicate rule name 'R' (also defined at tests/data/bad_rules/duplicate_name/a.yaml:1:7)" },
	{ "empty.yaml", false, "1:1: error: no rule in this file (empty, or only comments)" },
	{ "only_comments.yaml", false, "1:1: error: no rule in this file (empty, or only comments)" },
	{ "list_not_map.yaml", false, "1:1: error: a rule document must be a map (name:, match:, …), not a list" },
	{ "ops_is_map.yaml", false, "5:5: error: match.ops: expected a list, got a map" },
	{ "empty_ops.yaml", false, "4:8: error: match.ops: the list of ops is empty" },
	{ "scope_not_list.yaml", false, "3:8: error: scope: expected a list of strings (targets such as ai_core), got string 'ai_core'" },
	{ "unknown_key.yaml", false, "6:7: error: unknown key 'parms' in match.ops[0], did you mean 'params'? (known: type, params, inputs, input_sources, output_names, effect, change, optional, outputs, where, feeds, siblings)" },
	{ "rewrite_from_op_range.yaml", false, "10:16: error: rewrite.inputs[0].from_op: 2 is out of range (the pattern has ops 0..1)" },
	/* the language beyond the seed (fusiondbg-rules(5), BEYOND THE SEED), and its limits */
	{ "lang_effect_type.yaml", false, "7:15: error: match.ops[0].effect: 'type' is the op's own, not a condition checked after the match" },
	{ "lang_effect_param.yaml", false, "7:18: error: match.ops[0].effect.params: Conv2d has no param 'group_count' (its params: groups, kernel_size, strides, dilations, pads, auto_pad, activation_type)" },
	{ "lang_effect_in_branch.yaml", false, "8:13: error: match.branches[0].ops[0]: 'change' is read in match.ops only" },
	{ "lang_all_optional.yaml", false, "9:17: error: match.ops[2].optional: every op after op 0 is optional, so the rule fuses op 0 alone where none of them is there" },
	{ "lang_dtype_same_as_incomplete.yaml", false, "8:35: error: match.ops[1].input_sources.input1.dtype.same_as: needs 'op' and one of 'input' or 'output' (the tensor op j reads at input k, or makes at output k: {op: j, input: k})" },
	{ "lang_dtype_same_as_later.yaml", false, "8:40: error: match.ops[1].input_sources.input1.dtype.same_as.op: 2 does not come before op 1 (dtype same_as names this op or an earlier one)" },
	{ "lang_dtype_same_as_typo.yaml", false, "8:43: error: unknown key 'outptu' in match.ops[1].input_sources.input1.dtype.same_as, did you mean 'output'? (known: op, input, output)" },
	{ "lang_dtype_same_as_itself.yaml", false, "8:40: error: match.ops[1].input_sources.input1.dtype.same_as: names this very input; it always holds" },
	{ "lang_dtype_unknown.yaml", false, "8:25: error: match.ops[1].input_sources.input1.dtype: unknown dtype 'float33', did you mean 'float32'? (known: float32, float16, bfloat16, float64, int8, uint8, int16, int32, int64, bool, …)" },
	{ "lang_input_k_huge.yaml", false, "7:9: error: match.ops[0].input_sources: input40000: K above 32767; fusiondbg takes at most 32767 (see fusiondbg-rules(5), LIMITS)" },
	{ "lang_optional_anchor.yaml", false, "6:17: error: match.ops[0].optional: op 0 is the anchor and cannot be optional" },
	{ "lang_optional_not_bool.yaml", false, "7:17: error: match.ops[1].optional: expected true or false, got string 'maybe'" },
	{ "lang_outputs_empty.yaml", false, "7:16: error: match.ops[1].outputs: needs graph_output, min_consumers, max_consumers, not_read_by or count" },
	{ "lang_outputs_count_zero.yaml", false, "7:24: error: match.ops[1].outputs.count: must be >= 1, got 0" },
	{ "lang_outputs_range.yaml", false, "7:50: error: match.ops[1].outputs: min_consumers 3 > max_consumers 1" },
	{ "lang_position_bad.yaml", false, "8:48: error: match.ops[1].input_sources.input1.position: expected fixed, either or any, got string 'first'" },
	{ "lang_position_no_effect.yaml", false, "7:48: error: match.ops[0].input_sources.input1.position: fixed has no effect: Conv2d is not commutative (its inputs are never tried swapped)" },
	{ "lang_rank_negative.yaml", false, "8:28: error: match.ops[1].input_sources.input1.rank[1]: must be >= 0, got -1" },
	{ "lang_same_as_incomplete.yaml", false, "8:27: error: match.ops[1].input_sources.input1.same_as: needs 'op' and 'input' (the tensor op j reads at input k: {op: j, input: k})" },
	{ "lang_same_as_later.yaml", false, "8:32: error: match.ops[1].input_sources.input1.same_as.op: 2 does not come before op 1 (same_as must name an earlier op)" },
	{ "lang_same_as_optional.yaml", false, "10:32: error: match.ops[2].input_sources.input1.same_as.op: op 1 is optional; same_as must name an op that is always present" },
	{ "lang_shape_bad_dim.yaml", false, "8:49: error: match.ops[1].input_sources.input1.shape[1]: expected a dim (an integer >= 0, _ for any, ... for any number of dims, 1... for every dim left 1, or a name such as C), got integer '-1'" },
	{ "lang_shape_repeat_not_last.yaml", false, "8:26: error: match.ops[1].input_sources.input1.shape[0]: '1...' repeats its dim for every dim left, so it is the last dim of a shape without '...'" },
	{ "lang_shape_mixed.yaml", false, "8:25: error: match.ops[1].input_sources.input1.shape: mixes dims and shapes; write one shape [C, 1, 1] or a list of shapes [[C, 1, 1], [1, C, 1, 1]]" },
	{ "lang_shape_name_once.yaml", false, "8:47: error: shape name 'C' is used only here, so it constrains nothing (write _ for any dim, or use C again where a dim must be the same)" },
	{ "lang_siblings_cover.yaml", false, "6:33: error: match.ops[0].siblings.cover: expected axis or none, got 'axes'" },
	{ "lang_siblings_cover_type.yaml", false, "6:25: error: match.ops[0].siblings.cover: axis reads the slices of Slice and Gather; a Relu member never covers" },
	{ "lang_siblings_max.yaml", false, "6:31: error: match.ops[0].siblings.max: 300 is beyond the members a group may have (256)" },
	{ "lang_siblings_feeds.yaml", false, "8:14: error: match.ops[1].feeds: the group's producer is that of the tensor its members read (input0), not of input1" },
	{ "lang_siblings_own_optional.yaml", false, "8:17: error: match.ops[1].optional: each member of the group has its own op 1, which cannot be optional" },
	{ "lang_siblings_two.yaml", false, "8:17: error: match.ops[1].siblings: a pattern has one group; op 0 is one already" },
	{ "lang_siblings_range.yaml", false, "6:23: error: match.ops[0].siblings: min 5 > max 3" },
	{ "lang_static_not_bool.yaml", false, "7:26: error: match.ops[0].input_sources.input0.static: expected true or false, got string 'yes please'" },
	{ "lang_tolerance_alone.yaml", false, "7:49: error: match.ops[0].input_sources.input1.tolerance: has no meaning without 'value'" },
	{ "lang_type_list_empty.yaml", false, "6:13: error: match.ops[1].type: the list of op types is empty" },
	{ "lang_type_list_param.yaml", false, "7:16: error: match.ops[1].params: 'alpha' is a param of LeakyRelu but not of Relu; with a list of types a param must be one every listed type has (put the others in a branch)" },
	{ "lang_type_list_unknown.yaml", false, "6:20: error: match.ops[1].type[1]: unknown op type 'Sigmoidd' (did you mean 'Sigmoid'?)" },
	{ "lang_value_activation.yaml", false, "7:50: error: match.ops[0].input_sources.input1.value: can never hold: source_type activation is not a constant" },
	{ "lang_value_not_number.yaml", false, "7:45: error: match.ops[0].input_sources.input1.value: expected a number, got string 'sqrt2'" },
	{ "lang_where_args.yaml", false, "6:29: error: match.ops[0].where[1]: range() takes 1 or 2 arguments, got 0" },
	{ "lang_where_input_range.yaml", false, "6:20: error: match.ops[0].where: input3: Relu takes 1 input (input0)" },
	{ "lang_where_syntax.yaml", false, "6:24: error: match.ops[0].where: '=' is not a comparison; write '=='" },
	{ "lang_where_tensor_value.yaml", false, "6:15: error: match.ops[0].where: 'input0' is a tensor, not a value: write rank(input0), shape(input0), dim(input0, i), dtype(input0), value(input0), consumers(input0), readers(input0), producer(input0) or qmin(input0)" },
	{ "lang_where_unknown_func.yaml", false, "6:15: error: match.ops[0].where: unknown function 'lenn' (known: len, range, abs, min, max, sorted, attr, known, rank, shape, dim, dtype, value, consumers, producer, readers, outer, qmin, qmax, float32)" },
	{ "lang_where_later_op.yaml", false, "7:15: error: match.ops[1].where: op1.rank: op1 is not an earlier op (op1's where reads op0..op0, matched by then)" },
	{ "lang_where_op0_ref.yaml", false, "6:15: error: match.ops[0].where: op0.min: op0's where has no earlier op to read (an op reads the ops before it, matched by then)" },
	{ "lang_where_other_name.yaml", false, "7:15: error: match.ops[1].where: unknown name 'op0.alpha': Clip has no param 'alpha' (its params: min, max; also rank, op_type, domain, members, input0, …)" },
	{ "lang_where_other_input.yaml", false, "7:21: error: match.ops[1].where: op0.input5: Clip takes 3 inputs (input0..input2)" },
	{ "lang_where_qmin_value.yaml", false, "7:20: error: match.ops[1].where: 'op0.min' is not a tensor: the function wants input0, input1, …, output0, …" },
	{ "lang_where_other_syntax.yaml", false, "7:19: error: match.ops[1].where: expected a name after 'op0.' (a param, rank, input0, …, of op0)" },
	{ "lang_where_unknown_name.yaml", false, "6:15: error: match.ops[0].where: unknown name 'prem': Transpose has no param 'prem' (its params: perm; also rank, op_type, domain, members, input0, …)" },
	{ "limit_branches.yaml", false, "5:5: error: match.branches: 128 branches; fusiondbg takes at most 127 (see fusiondbg-rules(5), LIMITS)" },
	{ "limit_ops.yaml", false, "5:5: error: match.ops: 65 ops; fusiondbg takes at most 64 (see fusiondbg-rules(5), LIMITS)" },
};

static void test_bad_rules(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
		const struct bad_case *c = &bad_cases[i];
		char path[256], want[1024], got[2048];
		snprintf(path, sizeof path, "tests/data/bad_rules/%s", c->path);
		snprintf(want, sizeof want, "%s%s%s", path, strstr(c->path, ".yaml") ? ":" : "/", c->first_error);
		char *mark = strstr(want, INPUT_KEYS);
		if (mark) {
			char keys[512], tail[512];
			input_keys(keys, sizeof keys);
			snprintf(tail, sizeof tail, "%s", mark + strlen(INPUT_KEYS));
			snprintf(mark, sizeof want - (size_t)(mark - want), "%s%s", keys, tail);
		}
		fd_ruleset rs;
		fd_diags d;
		ruleset_init(&rs);
		diags_init(&d);
		clock_t t0 = clock();
		int rc = ruleset_load(&rs, path, &d);
		fd_check_options opt = { .strict = true };
		if (!rs.n_unparsed)
			ruleset_check(&rs, &opt, &d);
		for (size_t k = 0; k < d.n; k++)   /* as `check --strict` shows them */
			if (d.items[k].severity == DIAG_WARNING)
				d.items[k].severity = DIAG_ERROR;
		format_first(&d, DIAG_ERROR, got, sizeof got);
		double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
		if (strcmp(got, want) || (rs.n_unparsed > 0) != c->unparsed || secs > 2.0 ||
		    (c->unparsed && rc == 0)) {
			fprintf(stderr, "%s:\n  want %s%s\n  got  %s%s (%.2fs)\n", c->path, want, c->unparsed ? " [unparsed]" : "",
			        got, rs.n_unparsed ? " [unparsed]" : "", secs);
			failures++;
		}
		diags_release(&d);
		ruleset_release(&rs);
	}
	assert_int_equal(failures, 0);
	assert_true(sizeof bad_cases / sizeof *bad_cases >= 25);
}

/* Every broken file is in the table (a new file without an expectation fails). */
static void test_bad_rules_listed(void **state)
{
	(void)state;
	FILE *p = popen("ls tests/data/bad_rules", "r");
	assert_non_null(p);
	char name[256];
	int missing = 0;
	while (fgets(name, sizeof name, p)) {
		name[strcspn(name, "\n")] = '\0';
		bool found = false;
		for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++)
			found |= !strcmp(bad_cases[i].path, name);
		if (!found) {
			fprintf(stderr, "tests/data/bad_rules/%s has no expected error in test_rules.c\n", name);
			missing++;
		}
	}
	pclose(p);
	assert_int_equal(missing, 0);
}

/* ---- valid files that must pass check --strict without a word ----------------- */

static void check_text_clean(const char *text)
{
	char tmp[] = "/tmp/fusiondbg-good-XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	ruleset_load(&rs, tmp, &d);
	fd_check_options opt = { .strict = true };
	ruleset_check(&rs, &opt, &d);
	if (d.n) {
		fprintf(stderr, "not clean:\n%s\n", text);
		print_diags(&d);
	}
	assert_int_equal(d.n, 0);
	diags_release(&d);
	ruleset_release(&rs);
	unlink(tmp);
}

static void test_good_rules(void **state)
{
	(void)state;
	/* equal priority, same anchor, disjoint scopes: they never compete */
	check_text_clean("name: A\npriority: 5\nscope: [ai_core]\nmatch: {ops: [{type: Conv2d}, {type: Relu}]}\n"
	                 "rewrite: {target_op: X}\n---\n"
	                 "name: B\npriority: 5\nscope: [ai_tensor]\nmatch: {ops: [{type: Conv2d}, {type: Sigmoid}]}\n"
	                 "rewrite: {target_op: Y}\n");
	/* equal priority, anchors that no node shares */
	check_text_clean("name: A\npriority: 5\nmatch: {ops: [{type: MatMul}, {type: Relu}]}\nrewrite: {target_op: X}\n---\n"
	                 "name: B\npriority: 5\nmatch: {ops: [{type: Conv2d}, {type: Relu}]}\nrewrite: {target_op: Y}\n");
	/* aliases of ops and params, derived params, constant-input params, units */
	check_text_clean("name: Aliases\npriority: 1\n"
	                 "match:\n  ops:\n"
	                 "    - type: Conv2D\n      params: {group: 1, kernel_shape: [3, 3], stride: [1, 1], padding: [1, 1, 1, 1]}\n"
	                 "    - type: BatchNormalization\n      params: {eps: 1.0e-5, momentum: 0.9}\n"
	                 "    - type: Clip\n      params: {clip_min: 0, clip_max: 6.0}\n"
	                 "    - type: SiLU\n      params: {approximate: none}\n"
	                 "    - type: Reshape\n      params: {allowzero: 0}\n"
	                 "rewrite: {target_op: X, attributes: {tile_policy: chunked, chunk_size: [1, 64, 56, 56], "
	                 "overlap_size: [0, 0, 2, 2], inplace_compute: true, inplace_override_input_idx: 0}}\n"
	                 "constraints:\n  - {type: memory_limit, max_intermediate_size: 64MiB, max_output_size: \"16 MiB\"}\n"
	                 "  - {type: workspace_size, max_workspace: 1.5GiB, spill_to_l2: false}\n");
	/* anchors and merge keys shared between documents of one file are per document */
	check_text_clean("name: Merge\npriority: 3\nmatch:\n  ops:\n    - &conv {type: Conv2d, params: {groups: 1}}\n"
	                 "    - type: Add\n      inputs: &two {min_inputs: 2, max_inputs: 2}\n"
	                 "      input_sources: {input0: {from_op: 0}, input1: {source_type: activation}}\n"
	                 "rewrite:\n  target_op: X\n  inputs:\n    - {from_op: 0}\n    - {from_op: 1, output_idx: 0, input_port: 1}\n"
	                 "output:\n  <<: {kernel_name: k, compiler: ascend_c}\n  debug_symbols: false\n");
	/* branches only, each anchored differently, Gemm transB */
	check_text_clean("name: Br\npriority: 2\nmatch:\n  branches:\n    - ops: [{type: Gemm, params: {transB: 1}}, {type: Relu}]\n"
	                 "    - ops: [{type: MatMul}, {type: BiasAdd}, {type: Gelu}]\nrewrite: {target_op: X}\n");
}

/* ---- hostile YAML: bounded, never a crash ------------------------------------- */

static int load_text(const char *name, const char *text, size_t len, fd_diags *d)
{
	fd_yfile f;
	int rc = yfile_load_buffer(&f, name, text, len, d);
	if (rc == 0) {
		fd_ruleset rs;
		ruleset_init(&rs);
		for (int i = 0; i < f.n_docs; i++) {
			fd_rule r;
			if (!yval_is_null(f.docs[i].root))
				rule_from_yaml(&rs, &r, &f.docs[i], d);
		}
		ruleset_release(&rs);
		yfile_release(&f);
	}
	return rc;
}

static void test_alias_bomb_bounded(void **state)
{
	(void)state;
	/* 10 levels of 10: 10^10 values if expanded */
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof text, "a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n");
	for (int l = 1; l < 10; l++) {
		n += (size_t)snprintf(text + n, sizeof text - n, "a%d: &a%d [", l, l);
		for (int k = 0; k < 10; k++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s*a%d", k ? "," : "", l - 1);
		n += (size_t)snprintf(text + n, sizeof text - n, "]\n");
	}
	fd_diags d;
	diags_init(&d);
	clock_t t0 = clock();
	assert_int_equal(load_text("bomb.yaml", text, n, &d), -1);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
	char line[512];
	assert_non_null(strstr(format_first(&d, DIAG_ERROR, line, sizeof line), "alias bomb"));
	diags_clear(&d);
	/* aliases deeper than the depth bound: each level nests the previous one */
	n = (size_t)snprintf(text, sizeof text, "l0: &l0 [1]\n");
	for (int l = 1; l < 80; l++)
		n += (size_t)snprintf(text + n, sizeof text - n, "l%d: &l%d [*l%d]\n", l, l, l - 1);
	assert_int_equal(load_text("deep.yaml", text, n, &d), -1);
	assert_non_null(strstr(format_first(&d, DIAG_ERROR, line, sizeof line), "deeper than 64"));
	diags_clear(&d);
	/* plain nesting */
	n = 0;
	for (int l = 0; l < 200; l++)
		text[n++] = '[';
	for (int l = 0; l < 200; l++)
		text[n++] = ']';
	assert_int_equal(load_text("nest.yaml", text, n, &d), -1);
	assert_string_equal(format_first(&d, DIAG_ERROR, line, sizeof line),
	                    "nest.yaml:1:64: error: values nested deeper than 64 levels");
	diags_release(&d);
}

static void test_garbage_and_truncations(void **state)
{
	(void)state;
	/* every prefix and a few byte flips of a real rule file */
	FILE *f = fopen("rules/conv_add_silu_fusion.yaml", "rb");
	assert_non_null(f);
	static char text[65536];
	size_t len = fread(text, 1, sizeof text, f);
	fclose(f);
	assert_true(len > 1000);
	fd_diags d;
	diags_init(&d);
	for (size_t cut = 0; cut <= len; cut++) {
		load_text("cut.yaml", text, cut, &d);
		diags_clear(&d);
	}
	static char copy[65536];
	uint32_t seed = 12345;
	for (int round = 0; round < 3000; round++) {
		memcpy(copy, text, len);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			copy[at] = (char)(seed >> 16);
		}
		load_text("flip.yaml", copy, len, &d);
		diags_clear(&d);
	}
	/* pure garbage */
	for (int round = 0; round < 500; round++) {
		size_t n = (size_t)(round * 7 % 2000);
		for (size_t k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[k] = (char)(seed >> 16);
		}
		load_text("garbage.yaml", copy, n, &d);
		diags_clear(&d);
	}
	diags_release(&d);
}

/* Full pipeline (load + check) on truncated files written to disk. */
static void test_truncated_files_check(void **state)
{
	(void)state;
	FILE *f = fopen("rules/attention.yaml", "rb");
	assert_non_null(f);
	static char text[65536];
	size_t len = fread(text, 1, sizeof text, f);
	fclose(f);
	char tmp[] = "/tmp/fusiondbg-test-rules-XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	for (size_t cut = 0; cut <= len; cut += 3) {
		FILE *o = fopen(tmp, "wb");
		fwrite(text, 1, cut, o);
		fclose(o);
		fd_ruleset rs;
		fd_diags d;
		ruleset_init(&rs);
		diags_init(&d);
		ruleset_load(&rs, tmp, &d);
		fd_check_options opt = { .strict = true, .verbose = true };
		ruleset_check(&rs, &opt, &d);
		diags_release(&d);
		ruleset_release(&rs);
	}
	unlink(tmp);
}

/* ---- source notes ---------------------------------------------------------------- */

/* A rule's sources: each key resolves to the value its path names, the
 * narrowest note holding a position wins, the rule's source is the
 * fallback, a position outside the rule has none, and a key naming
 * nothing is a warning. */
static void test_rule_sources(void **state)
{
	(void)state;
	static const char text[] =
		"name: \"R\"\n"                                                  /* 1 */
		"priority: 1\n"                                                  /* 2 */
		"source: \"pass.cc\"\n"                                          /* 3 */
		"sources:\n"                                                     /* 4 */
		"  match.ops.0: \"pass.cc:10 the conv\"\n"                       /* 5 */
		"  match.ops.0.where.1: \"pass.cc:20 strides\"\n"                /* 6 */
		"  match.ops.9: \"nothing\"\n"                                   /* 7 */
		"match:\n"                                                       /* 8 */
		"  ops:\n"                                                       /* 9 */
		"    - type: Conv\n"                                             /* 10 */
		"      where: [\"rank(input0) == 4\", \"strides == [1, 1]\"]\n"  /* 11 */
		"    - type: Relu\n"                                             /* 12 */
		"rewrite:\n"
		"  target_op: \"X\"\n";
	char tmp[] = "/tmp/fusiondbg-test-sources-XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	assert_int_equal(ruleset_load(&rs, tmp, &d), 0);
	bool warned = false;
	for (size_t i = 0; i < d.n; i++)
		warned |= d.items[i].severity == DIAG_WARNING && strstr(d.items[i].message, "'match.ops.9' names no value");
	assert_true(warned);
	const fd_rule *r = &rs.rules[0];
	assert_int_equal(r->n_sources, 2);
	const char *file = r->file;
	assert_string_equal(rule_source_at(r, (fd_srcpos){ file, 11, 36 }), "pass.cc:20 strides");   /* where.1 */
	assert_string_equal(rule_source_at(r, (fd_srcpos){ file, 11, 15 }), "pass.cc:10 the conv");  /* where.0 */
	assert_string_equal(rule_source_at(r, (fd_srcpos){ file, 10, 13 }), "pass.cc:10 the conv");  /* its type */
	assert_string_equal(rule_source_at(r, (fd_srcpos){ file, 12, 13 }), "pass.cc");              /* op1: the rule's */
	assert_null(rule_source_at(r, (fd_srcpos){ 0 }));                                           /* no place */
	assert_null(rule_source_at(r, (fd_srcpos){ "other.yaml", 11, 36 }));
	diags_release(&d);
	ruleset_release(&rs);
	unlink(tmp);
}

/* ---- positions and offsets ------------------------------------------------------ */

static void expect_slice(const fd_yfile *f, const fd_yval *v, const char *want)
{
	assert_non_null(v);
	size_t n = v->end - v->start;
	if (n != strlen(want) || memcmp(f->text + v->start, want, n)) {
		fprintf(stderr, "slice [%zu,%zu) is '%.*s', want '%s'\n", v->start, v->end, (int)n, f->text + v->start, want);
		fail();
	}
}

static void test_offsets(void **state)
{
	(void)state;
	static const char text[] =
		"\xef\xbb\xbf# bom and comment\n"
		"name: \"Conv_BN\"   # quoted\n"
		"desc: 'it''s'\n"
		"zh: 中文值\n"
		"size: 64MiB\n"
		"flow: [1, 2, [3, 4]]\n"
		"map: {a: 1, b: \"x\"}\n"
		"block:\n"
		"  - type: Relu\n"
		"    k: v\n"
		"  - 中: 7\n"
		"empty:\n"
		"crlf: yes\r\n"
		"after: 1\n"
		"---\n"
		"second: &s 5\n"
		"ref: *s\n";
	fd_yfile f;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(yfile_load_buffer(&f, "t.yaml", text, sizeof text - 1, &d), 0);
	assert_int_equal(f.n_docs, 2);
	const fd_yval *root = f.docs[0].root;
	expect_slice(&f, yval_get(root, "name"), "\"Conv_BN\"");
	assert_string_equal(yval_get(root, "name")->text, "Conv_BN");
	assert_true(yval_get(root, "name")->quoted);
	assert_int_equal(yval_get(root, "name")->pos.line, 2);
	assert_int_equal(yval_get(root, "name")->pos.col, 7);
	expect_slice(&f, yval_get(root, "desc"), "'it''s'");
	assert_string_equal(yval_get(root, "desc")->text, "it's");
	expect_slice(&f, yval_get(root, "zh"), "中文值");
	expect_slice(&f, yval_get(root, "size"), "64MiB");
	expect_slice(&f, yval_get(root, "flow"), "[1, 2, [3, 4]]");
	expect_slice(&f, yval_get(root, "flow")->items[2], "[3, 4]");
	expect_slice(&f, yval_get(root, "flow")->items[2]->items[1], "4");
	expect_slice(&f, yval_get(root, "map"), "{a: 1, b: \"x\"}");
	expect_slice(&f, yval_get(yval_get(root, "map"), "b"), "\"x\"");
	const fd_yval *block = yval_get(root, "block");
	expect_slice(&f, block, "- type: Relu\n    k: v\n  - 中: 7");
	expect_slice(&f, block->items[0], "type: Relu\n    k: v");
	expect_slice(&f, yval_get(block->items[1], "中"), "7");
	assert_int_equal(yval_get(block->items[1], "中")->pos.col, 8);   /* columns count characters */
	assert_true(yval_is_null(yval_get(root, "empty")));
	bool b = false;
	assert_true(yval_bool(yval_get(root, "crlf"), &b) && b);
	expect_slice(&f, yval_get(root, "after"), "1");
	assert_int_equal(yval_get(root, "after")->pos.line, 14);
	const fd_yval *ref = yval_get(f.docs[1].root, "ref");
	expect_slice(&f, ref, "5");                  /* an alias shares its anchor's value */
	assert_ptr_equal(ref, yval_get(f.docs[1].root, "second"));
	yfile_release(&f);
	diags_release(&d);
}

static void test_merge_keys(void **state)
{
	(void)state;
	static const char text[] = "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n";
	fd_yfile f;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(yfile_load_buffer(&f, "m.yaml", text, sizeof text - 1, &d), 0);
	const fd_yval *m = yval_get(f.docs[0].root, "m");
	int64_t x, y;
	assert_true(yval_int(yval_get(m, "x"), &x) && x == 1);
	assert_true(yval_int(yval_get(m, "y"), &y) && y == 3);
	assert_null(yval_get(m, "<<"));
	yfile_release(&f);
	diags_release(&d);
}

/* ---- conversions ---------------------------------------------------------------- */

static fd_yval scalar(const char *text, bool quoted)
{
	fd_yval v = { .kind = YV_SCALAR, .text = text, .text_len = strlen(text), .quoted = quoted };
	return v;
}

static void test_conversions(void **state)
{
	(void)state;
	static const struct { const char *text; bool quoted; bool ok; int64_t bytes; } bytes[] = {
		{ "33554432", false, true, 33554432 }, { "64MiB", false, true, 67108864 }, { "64 MiB", false, true, 67108864 },
		{ "32MB", false, true, 32000000 }, { "1.5GiB", false, true, 1610612736 }, { "1KB", false, true, 1000 },
		{ "2KiB", false, true, 2048 }, { "10B", false, true, 10 }, { "64MiB", true, true, 67108864 },
		{ "1GB", false, true, 1000000000 }, { "64XB", false, false, 0 }, { "MiB", false, false, 0 },
		{ "", false, false, 0 }, { "0x10", false, true, 16 },
	};
	for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++) {
		fd_yval v = scalar(bytes[i].text, bytes[i].quoted);
		int64_t out = -7;
		bool ok = yval_bytes(&v, &out);
		if (ok != bytes[i].ok || (ok && out != bytes[i].bytes))
			fail_msg("yval_bytes(%s) = %d, %lld", bytes[i].text, ok, (long long)out);
	}
	int64_t i;
	double f;
	bool b;
	fd_yval v = scalar("12", false);
	assert_true(yval_int(&v, &i) && i == 12);
	v = scalar("12", true);
	assert_false(yval_int(&v, &i));             /* quoted: a string */
	v = scalar("-0x10", false);
	assert_true(yval_int(&v, &i) && i == -16);
	v = scalar("1e-5", false);
	assert_false(yval_int(&v, &i));
	assert_true(yval_float(&v, &f) && f == 1e-5);
	v = scalar("0.1", false);
	assert_true(yval_float(&v, &f) && f == 0.1);
	v = scalar("inf", false);
	assert_false(yval_float(&v, &f));
	v = scalar("-.inf", false);
	assert_true(yval_float(&v, &f) && f < 0);
	v = scalar("0x1p3", false);
	assert_false(yval_float(&v, &f));
	v = scalar("off", false);
	assert_true(yval_bool(&v, &b) && !b);
	v = scalar("True", false);
	assert_true(yval_bool(&v, &b) && b);
	v = scalar("true", true);
	assert_false(yval_bool(&v, &b));
	v = scalar("12abc", false);
	assert_false(yval_int(&v, &i));
	assert_string_equal(yval_kind_name(&v), "string");
}

/* ---- environment -------------------------------------------------------------------- */

static void test_env(void **state)
{
	(void)state;
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	assert_int_equal(ruleset_load(&rs, "rules", &d), 0);
	setenv("GRAPH_AUTOFUSION_ENABLE", "0", 1);
	ruleset_apply_env(&rs);
	for (int i = 0; i < rs.n_rules; i++)
		assert_false(rs.rules[i].enabled);
	for (int i = 0; i < rs.n_rules; i++)
		rs.rules[i].enabled = true;
	setenv("GRAPH_AUTOFUSION_ENABLE", "1", 1);
	setenv("GRAPH_AUTOFUSION_RULES", " Conv_BN_Relu_Fusion ,Attention_QKV_Fusion,Nope", 1);
	ruleset_apply_env_diags(&rs, &d);
	int enabled = 0;
	for (int i = 0; i < rs.n_rules; i++)
		enabled += rs.rules[i].enabled;
	assert_int_equal(enabled, 2);
	assert_true(rs.rules[ruleset_find(&rs, "Conv_BN_Relu_Fusion")].enabled);
	assert_true(rs.rules[ruleset_find(&rs, "Attention_QKV_Fusion")].enabled);
	assert_int_equal(d.warnings, 1);
	unsetenv("GRAPH_AUTOFUSION_ENABLE");
	unsetenv("GRAPH_AUTOFUSION_RULES");
	setenv("GRAPH_AUTOFUSION_RULES_DIR", "/opt/rules", 1);
	const char *origin = NULL;
	assert_string_equal(ruleset_default_path(&origin), "/opt/rules");
	assert_string_equal(origin, "GRAPH_AUTOFUSION_RULES_DIR");
	setenv("GRAPH_AUTOFUSION_RULES_DIR", "", 1);   /* empty is unset: the installed rules, if any */
	const char *p = ruleset_default_path(&origin);
	assert_true(!p || !strcmp(origin, "installed rules"));
	unsetenv("GRAPH_AUTOFUSION_RULES_DIR");
	diags_release(&d);
	ruleset_release(&rs);
}

/* ---- the op table ---------------------------------------------------------------------- */

static void test_optable(void **state)
{
	(void)state;
	int conv2d = optable_lookup("Conv2d");
	assert_true(conv2d >= 0);
	assert_int_equal(optable_lookup("Conv2D"), conv2d);
	assert_int_equal(optable_lookup("conv2d"), conv2d);        /* canonical, any case */
	assert_int_equal(optable_lookup("BatchNormalization"), optable_lookup("BatchNorm"));
	assert_int_equal(optable_lookup("LayerNormalization"), optable_lookup("LayerNorm"));
	assert_int_equal(optable_lookup("SiLU"), optable_lookup("Swish"));
	assert_int_equal(optable_lookup("MatMulV2"), optable_lookup("MatMul"));
	assert_int_equal(optable_lookup("BatchMatMulV2"), optable_lookup("MatMul"));
	assert_int_equal(optable_lookup("SoftmaxV2"), optable_lookup("Softmax"));
	assert_int_equal(optable_lookup("ReLU"), optable_lookup("Relu"));
	assert_int_equal(optable_lookup("Conv2dd"), -1);
	assert_int_equal(optable_lookup(NULL), -1);
	/* names are unique, every row has a node type */
	for (int a = 0; a < optable_count(); a++) {
		assert_non_null(optable_get(a)->onnx_types[0]);
		for (int b = a + 1; b < optable_count(); b++)
			assert_string_not_equal(optable_get(a)->name, optable_get(b)->name);
	}
	const fd_param_def *p = optable_param(conv2d, "group");
	assert_non_null(p);
	assert_string_equal(p->name, "groups");
	assert_string_equal(p->attr, "group");
	assert_int_equal(optable_param(conv2d, "kernel_shape")->derived, DERIVED_KERNEL_SIZE);
	assert_null(optable_param(optable_lookup("Relu"), "clip_max"));
	assert_int_equal(optable_get(optable_lookup("Relu"))->n_params, 0);
	assert_string_equal(optable_param(optable_lookup("Reshape"), "allowzero")->name, "allow_zero_dim");
	assert_string_equal(optable_param(optable_lookup("Gemm"), "transB")->name, "transpose_b");
	assert_int_equal(optable_param(optable_lookup("MatMul"), "transpose_b")->derived, DERIVED_FALSE);
	assert_int_equal(optable_param(optable_lookup("Dropout"), "ratio")->input, 1);
	assert_string_equal(optable_param(optable_lookup("Softmax"), "axis")->default_value, "-1");
	assert_string_equal(optable_param(optable_lookup("BatchNorm"), "epsilon")->default_value, "1e-05");
	assert_int_equal(optable_param(optable_lookup("Add"), "broadcast")->derived, DERIVED_BROADCAST);
	assert_true(optable_get(optable_lookup("Add"))->commutative);
	assert_false(optable_get(optable_lookup("Sub"))->commutative);
	assert_int_equal(optable_get(optable_lookup("Swish"))->composite, COMPOSITE_SILU);
	int ids[16];
	int n = optable_ids_for_onnx_type("Conv", ids, 16);
	assert_true(n >= 4);
	n = optable_ids_for_onnx_type("Attention", ids, 16);
	assert_int_equal(n, 1);
	assert_string_equal(optable_get(ids[0])->domain, "com.microsoft");
	assert_int_equal(optable_ids_for_onnx_type("Conv", ids, 2), 2);   /* never more than max */
}

/* A Conv node with a 4-D input is Conv2d, not Conv1d; unknown rank accepts. */
static void test_optable_node_matches(void **state)
{
	(void)state;
	fd_dim dims4[4] = { { 1, NULL }, { 3, NULL }, { 8, NULL }, { 8, NULL } };
	fd_tensor tensors[2];
	memset(tensors, 0, sizeof tensors);
	tensors[0].name = "x";
	tensors[0].shape = (fd_shape){ 4, dims4 };
	tensors[1].name = "y";
	tensors[1].shape = (fd_shape){ -1, NULL };
	fd_graph g;
	memset(&g, 0, sizeof g);
	g.tensors = tensors;
	g.n_tensors = 2;
	int32_t in0[1] = { 0 }, out0[1] = { 1 };
	fd_node n;
	memset(&n, 0, sizeof n);
	n.name = "conv";
	n.op_type = "Conv";
	n.domain = "";
	n.n_inputs = 1, n.inputs = in0, n.n_outputs = 1, n.outputs = out0;
	assert_true(optable_node_matches(optable_lookup("Conv2d"), &g, &n));
	assert_true(optable_node_matches(optable_lookup("Conv"), &g, &n));
	assert_false(optable_node_matches(optable_lookup("Conv1d"), &g, &n));
	assert_false(optable_node_matches(optable_lookup("Relu"), &g, &n));
	tensors[0].shape = (fd_shape){ -1, NULL };      /* rank unknown: accepted */
	assert_true(optable_node_matches(optable_lookup("Conv1d"), &g, &n));
	fd_node a = n;
	a.op_type = "Attention";
	a.domain = "com.microsoft";
	assert_true(optable_node_matches(optable_lookup("Attention"), &g, &a));
	a.domain = "";
	assert_false(optable_node_matches(optable_lookup("Attention"), &g, &a));
	fd_node ln = n;
	ln.op_type = "LayerNormalization";
	ln.domain = "ai.onnx";
	assert_true(optable_node_matches(optable_lookup("LayerNorm"), &g, &ln));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cann_rules),
		cmocka_unit_test(test_shipped_rules),
		cmocka_unit_test(test_bad_rules),
		cmocka_unit_test(test_bad_rules_listed),
		cmocka_unit_test(test_good_rules),
		cmocka_unit_test(test_alias_bomb_bounded),
		cmocka_unit_test(test_garbage_and_truncations),
		cmocka_unit_test(test_truncated_files_check),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_merge_keys),
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_optable),
		cmocka_unit_test(test_rule_sources),
		cmocka_unit_test(test_optable_node_matches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
