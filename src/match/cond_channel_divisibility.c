/* cond_channel_divisibility.c — constraint channel_divisibility: dim
 * channel_dim (default 1, negative from the end) of every output of the
 * match divisible by divisor. A dim that is a formula decides where it
 * decides for every binding (16 × C is divisible by 16), else ends the
 * attempt "unknown: depends on …"; a dim nothing knows passes undecided.
 * Its parse, check and words. */
#include <string.h>
#include "base/text.h"
#include "match/cond_constraint.h"
#include "match/match_internal.h"
#include "rules/optable.h"

bool cond_channel_divisibility_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	int before = s->errors;
	fd_constraint *c = at->constraint;
	char p[256];
	const fd_yval *f = yval_get(v, "channel_dim");
	if (f) {
		snprintf(p, sizeof p, "%.200s.channel_dim", path);
		/* an ONNX axis: -1 is the last dim, resolved against each output's rank */
		if (!schema_small_int(s, f, p, -(1 << 30), &c->channel_dim))
			c->channel_dim = 1;
	}
	if ((f = yval_get(v, "divisor"))) {
		snprintf(p, sizeof p, "%.200s.divisor", path);
		schema_int(s, f, p, 1, &c->divisor);
	} else {
		ERR(s, v, "%s: channel_divisibility needs 'divisor'", path);
	}
	return s->errors == before;
}

/* The run: an output whose dim is not divisible fails (a the dim, b the
 * divisor); else the first that waits on a binding is unbound, else the
 * first unknown passes undecided, else a = the last output's dim. */
static fd_event measure(fd_cond_check *c)
{
	const match_run_state *s = c->run;
	const fd_constraint *k = c->constraint;
	int32_t unknown = FD_NONE, waits = FD_NONE;
	int64_t last = -1;
	for (size_t i = 0; i < s->cover.outputs.n; i++) {
		int32_t t = s->cover.outputs.items[i];
		const fd_shape *sh = &s->g->tensors[t].shape;
		int dim = cond_channel_dim(k, sh);
		if (sh->rank < 0 || dim < 0 || dim >= sh->rank || sh->dims[dim].value < 0) {
			fd_dim d = sh->rank >= 0 && dim >= 0 && dim < sh->rank ? sh->dims[dim] : dim_unknown();
			/* 16 * C is divisible by 16 whatever C is */
			if (d.expr && k->divisor > 0 && dexpr_divisible(d.expr, k->divisor))
				continue;
			int32_t *slot = cond_dim_waits(d) ? &waits : &unknown;
			if (*slot == FD_NONE)
				*slot = t;
			continue;
		}
		int64_t v = sh->dims[dim].value;
		if (k->divisor > 0 && v % k->divisor)
			return cond_constraint_emit(c, ST_FAIL, REASON_CF05_CHANNEL, -1, s->g->tensors[t].producer, t, v,
			                            k->divisor);
		last = v;
	}
	if (waits != FD_NONE)
		return cond_constraint_unbound(c, -1, s->g->tensors[waits].producer, waits, -1, k->divisor);
	if (unknown != FD_NONE)
		return cond_constraint_pass(c, true, -1, s->g->tensors[unknown].producer, unknown, -1, k->divisor);
	return cond_constraint_pass(c, false, -1, FD_NONE, FD_NONE, last, k->divisor);
}

static void words(const fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_event *ev = c->ev;
	const int32_t tensor = c->payload.constraint.tensor;
	const int64_t measured = c->payload.constraint.measured;   /* the dim */
	const fd_graph *g = c->g;
	cond_channel_divisibility_describe(c, facts->expected, sizeof facts->expected);
	if (ev->reason == REASON_CF06_UNBOUND) {
		const fd_shape *sh = &g->tensors[tensor].shape;
		int d = cond_channel_dim(c->constraint, sh);
		char dt[96];
		dim_format(sh->rank >= 0 && d >= 0 && d < sh->rank ? sh->dims[d] : dim_unknown(), dt, sizeof dt);
		text_cutf(facts->actual, sizeof facts->actual, "%s (%s)", dt, cond_tensor_name(g, tensor));
		int64_t t1 = tensor;
		cond_unbound_words(g, &t1, 1, "", facts->reason_text, sizeof facts->reason_text);
	} else if (measured < 0) {
		text_cutf(facts->actual, sizeof facts->actual, "%s dim unknown", cond_tensor_name(g, tensor));
	} else if (tensor >= 0) {
		text_cutf(facts->actual, sizeof facts->actual, "%lld (%s)", (long long)measured, cond_tensor_name(g, tensor));
	} else {
		text_cutf(facts->actual, sizeof facts->actual, "%lld", (long long)measured);
	}
}

fd_reason cond_channel_divisibility_check(fd_cond_check *c, fd_cond_facts *facts)
{
	fd_event ran;
	const fd_event *ev = c->run ? (ran = measure(c), &ran) : c->ev;
	return cond_constraint_decided(c, ev, facts, "divisor", words);
}

/* "dim 1 divisible by 16" */
void cond_channel_divisibility_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_constraint *k = c->constraint;
	text_cutf(buf, size, "dim %d divisible by %lld", k->channel_dim, (long long)k->divisor);
}

/* ---- lint ------------------------------------------------------------------------ */

/* channel_dim beyond the output's rank, when a Conv fixes the rank and the
 * ops after it keep it. */
void cond_channel_divisibility_lint(const fd_cond_lint *l)
{
	const fd_constraint *k = l->constraint;
	const fd_rule_pattern *pat = &l->rule->match;
	int rank = -1;
	for (int j = pat->n_ops - 1; j >= 0; j--) {
		const fd_op_def *def = optable_get(pat->ops[j].op);
		if (!def)
			break;
		if (!strncmp(def->name, "Conv", 4) && def->spatial_rank > 0) {
			rank = def->spatial_rank + 2;
			break;
		}
		if (!optable_keeps_rank(pat->ops[j].op))
			break;
	}
	const fd_yval *at = yval_get(k->where, "channel_dim");
	if (rank > 0 && k->channel_dim >= rank)
		cond_lint_say(l, DIAG_ERROR, at ? at : k->where, "%s.channel_dim: %d can never pass: the match's output has "
		              "rank %d (dims 0..%d)", l->path, k->channel_dim, rank, rank - 1);
	else if (rank > 0 && k->channel_dim < -rank)
		cond_lint_say(l, DIAG_ERROR, at ? at : k->where, "%s.channel_dim: %d can never pass: the match's output has "
		              "rank %d (dims %d..%d)", l->path, k->channel_dim, rank, -rank, rank - 1);
}
