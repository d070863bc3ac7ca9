/* cond_shape_constraint.c — constraint shape_constraint: the inputs of
 * every elementwise op of the match broadcast (numpy rules). A pair that
 * broadcasts only for some binding of the model's symbols ends the attempt
 * "unknown: depends on …"; a shape nothing knows passes undecided. The
 * type has no field of its own. Its parse, check and words. */
#include <string.h>
#include "base/text.h"
#include "match/cond_constraint.h"
#include "match/match_internal.h"

bool cond_shape_constraint_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	(void)s, (void)at, (void)v, (void)path;
	return true;
}

/* Elementwise ops with several inputs, whose shapes must broadcast. */
static const char *const elementwise[] = {
	"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Where", "Equal",
	"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor", "PRelu", "Mod",
	"BitShift", "AddV2", "RealDiv", "Maximum", "Minimum", "BiasAdd",
};

static bool is_elementwise(const fd_node *n)
{
	for (size_t i = 0; i < sizeof elementwise / sizeof *elementwise; i++)
		if (n->op_type && !strcmp(n->op_type, elementwise[i]))
			return true;
	return false;
}

/* numpy broadcasting of two shapes: -1 unknown, -2 unknown until a symbol
 * is bound, 0 no, 1 yes. */
static int broadcasts(const fd_shape *a, const fd_shape *b)
{
	if (a->rank < 0 || b->rank < 0)
		return -1;
	int unknown = 0;
	for (int i = 1; i <= a->rank && i <= b->rank; i++) {
		fd_dim dx = a->dims[a->rank - i], dy = b->dims[b->rank - i];
		int64_t x = dx.value, y = dy.value;
		if (x < 0 || y < 0) {
			if (dim_equal(dx, dy) || x == 1 || y == 1)
				continue;
			if (unknown != -1)
				unknown = (cond_dim_waits(dx) || x >= 0) && (cond_dim_waits(dy) || y >= 0) ? -2 : -1;
			continue;
		}
		if (x != y && x != 1 && y != 1)
			return 0;
	}
	return unknown ? unknown : 1;
}

/* The run: a pair that cannot broadcast fails (a, b: the pair, unit the
 * op); else the first that waits on a binding is unbound, else the first
 * unknown passes undecided, else a = the pairs checked. */
static fd_event measure(fd_cond_check *c)
{
	const match_run_state *s = c->run;
	const match_cover *cv = &s->cover;
	int32_t unknown_node = FD_NONE, checked = 0, wait_node = FD_NONE, wait_a = FD_NONE, wait_b = FD_NONE;
	for (size_t i = 0; i < cv->nodes.n; i++) {
		int32_t node = cv->nodes.items[i];
		const fd_node *n = &s->g->nodes[node];
		if (!is_elementwise(n))
			continue;
		int32_t first = FD_NONE;
		for (int q = 0; q < n->n_inputs; q++) {
			int32_t t = n->inputs[q];
			if (t < 0)
				continue;
			if (first == FD_NONE) {
				first = t;
				continue;
			}
			int r = broadcasts(&s->g->tensors[first].shape, &s->g->tensors[t].shape);
			if (r == 0)
				return cond_constraint_emit(c, ST_FAIL, REASON_CF02_SHAPE, -1, node, t, first, t);
			if (r == -2 && wait_node == FD_NONE) {
				wait_node = node;
				wait_a = first;
				wait_b = t;
			} else if (r == -1 && unknown_node == FD_NONE) {
				unknown_node = node;
			}
			checked++;
		}
	}
	if (wait_node != FD_NONE)
		return cond_constraint_unbound(c, -1, wait_node, wait_b, wait_a, wait_b);
	if (unknown_node != FD_NONE)
		return cond_constraint_pass(c, true, -1, unknown_node, FD_NONE, -1, -1);
	return cond_constraint_pass(c, false, -1, FD_NONE, FD_NONE, checked, -1);
}

static void words(const fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_event *ev = c->ev;
	const int64_t first = c->payload.constraint.pair_first, second = c->payload.constraint.pair_second;
	const fd_graph *g = c->g;
	cond_shape_constraint_describe(c, facts->expected, sizeof facts->expected);
	if (ev->status == ST_FAIL) {   /* the pair, unbound or not */
		char s1[64], s2[64];
		shape_format(&g->tensors[first].shape, s1, sizeof s1);
		shape_format(&g->tensors[second].shape, s2, sizeof s2);
		text_cutf(facts->actual, sizeof facts->actual, "%s %s vs %s %s at %s", cond_tensor_name(g, first), s1,
		          cond_tensor_name(g, second), s2, g->nodes[ev->unit].name);
		if (ev->reason == REASON_CF06_UNBOUND) {
			int64_t both[2] = { first, second };
			cond_unbound_words(g, both, 2, "", facts->reason_text, sizeof facts->reason_text);
		}
	} else if (ev->status == ST_WARN) {
		text_cutf(facts->actual, sizeof facts->actual, "shape unknown at %s", g->nodes[ev->unit].name);
	} else {
		text_cutf(facts->actual, sizeof facts->actual, "%lld input pairs broadcast",
		          (long long)c->payload.constraint.measured);
	}
}

fd_reason cond_shape_constraint_check(fd_cond_check *c, fd_cond_facts *facts)
{
	fd_event ran;
	const fd_event *ev = c->run ? (ran = measure(c), &ran) : c->ev;
	return cond_constraint_decided(c, ev, facts, NULL, words);
}

void cond_shape_constraint_describe(const fd_cond_check *c, char *buf, size_t size)
{
	(void)c;
	text_cut(buf, size, "elementwise inputs broadcast");
}
