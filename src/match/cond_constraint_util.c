/* cond_constraint_util.c — what the five constraint conditions share
 * (cond_constraint.h): the events a measure emits, the end of a check
 * (its outcome in facts), the dims that wait on a binding, the
 * "unknown: depends on …" and byte-count words, a byte field's parse. */
#include <string.h>
#include "base/text.h"
#include "base/units.h"
#include "match/cond_constraint.h"
#include "match/cond_text.h"
#include "match/match_internal.h"

fd_event cond_constraint_emit(const fd_cond_check *c, fd_ev_status st, fd_reason why, int op, int32_t unit,
                              int32_t tensor, int64_t measured, int64_t limit)
{
	match_run_state *s = c->run;
	cond_event_payload p = { .constraint = { .tensor = tensor, .measured = measured, .limit = limit } };
	match_emit_cond(s, EV_CONSTRAINT, st, why, op, c->constraint_index, unit, &p);
	fd_event ev = {
		.kind = EV_CONSTRAINT, .status = (uint8_t)st, .reason = (uint8_t)why, .branch = s->branch,
		.op = (int16_t)op, .sub = (int16_t)c->constraint_index, .rule = s->rule, .graph = s->gi, .unit = unit,
	};
	cond_event_write(&ev, EV_CONSTRAINT, &p);
	return ev;
}

fd_event cond_constraint_pass(const fd_cond_check *c, bool undecided, int op, int32_t unit, int32_t tensor,
                              int64_t measured, int64_t limit)
{
	return cond_constraint_emit(c, undecided ? ST_WARN : ST_PASS, undecided ? REASON_WN02_UNDECIDED : REASON_NONE,
	                            op, unit, tensor, measured, limit);
}

/* Neither a pass nor a fail on a number that means nothing: the
 * explanation reads the symbols off the tensors the event names. */
fd_event cond_constraint_unbound(const fd_cond_check *c, int op, int32_t unit, int32_t tensor, int64_t measured,
                                 int64_t limit)
{
	return cond_constraint_emit(c, ST_FAIL, REASON_CF06_UNBOUND, op, unit, tensor, measured, limit);
}

fd_reason cond_constraint_decided(const fd_cond_check *c, const fd_event *ev, fd_cond_facts *facts,
                                  const char *field, cond_words_fn words)
{
	fd_reason why = ev->status == ST_FAIL ? (fd_reason)ev->reason : REASON_NONE;
	if (!facts)
		return why;
	const fd_constraint *k = c->constraint;
	const fd_yval *at = field ? yval_get(k->where, field) : NULL;
	facts->reason = why;
	facts->decided = at ? at : k->where;
	facts->path[0] = facts->expected[0] = facts->actual[0] = facts->binding[0] = facts->reason_text[0] = '\0';
	size_t nt = field && k->type ? strlen(k->type) : 0, nf = field ? strlen(field) : 0;
	if (nt && sizeof "constraints." + nt + 1 + nf <= sizeof facts->path) {   /* a path cut would name another value */
		char *p = facts->path;
		memcpy(p, "constraints.", sizeof "constraints." - 1);
		p += sizeof "constraints." - 1;
		memcpy(p, k->type, nt);
		p[nt] = '.';
		memcpy(p + nt + 1, field, nf + 1);
	}
	if (c->ev == ev) {
		words(c, facts);
	} else {   /* the words read the outcome as the event */
		fd_cond_check outcome = *c;
		outcome.ev = ev;
		outcome.payload = cond_event_read(ev);
		words(&outcome, facts);
	}
	if (!facts->reason_text[0] && ev->status == ST_WARN)
		text_cut(facts->reason_text, sizeof facts->reason_text, "cannot be measured here, passed undecided");
	return why;
}

bool cond_dim_waits(fd_dim d)
{
	return d.expr && d.value < 0 && !dexpr_has_fresh(d.expr);
}

bool cond_shape_waits(const fd_shape *sh)
{
	for (int32_t i = 0; i < sh->rank; i++)
		if (cond_dim_waits(sh->dims[i]))
			return true;
	return false;
}

int cond_channel_dim(const fd_constraint *k, const fd_shape *sh)
{
	return k->channel_dim < 0 && sh->rank >= 0 ? k->channel_dim + sh->rank : k->channel_dim;
}

void cond_unbound_words(const fd_graph *g, const int64_t *ts, int n, const char *tail, char *reason, size_t size)
{
	const char *names[8];
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (ts[i] < 0 || ts[i] >= g->n_tensors)
			continue;
		const char *got[8];
		int m = tensor_unbound_symbols(&g->tensors[ts[i]], got, 8);
		for (int j = 0; j < m && j < 8 && k < 8; j++) {
			bool seen = false;
			for (int q = 0; q < k; q++)
				seen |= names[q] == got[j];
			if (!seen)
				names[k++] = got[j];
		}
	}
	size_t at = text_append(reason, size, 0, "unknown: depends on ", "");
	for (int i = 0; i < k && at < size; i++)
		at = text_append(reason, size, at, i ? ", " : "", names[i]);
	if (!k && at < size)
		at = text_append(reason, size, at, "dims nobody bound", "");
	if (at < size)
		text_append(reason, size, at, tail, "");
}

void cond_bytes_words(int64_t b, char *buf, size_t size)
{
	const char *unit;
	double v = units_scale_bytes(b, 4, &unit);
	if (v == (double)b)
		text_cutf(buf, size, "%lld B", (long long)b);
	else
		text_cutf(buf, size, "%.1f %s (%lld)", v, unit, (long long)b);
}

void cond_parse_bytes(fd_schema *s, const fd_yval *v, const char *path, const char *key, int64_t *out)
{
	const fd_yval *f = yval_get(v, key);
	if (!f)
		return;
	char p[256];
	snprintf(p, sizeof p, "%.200s.%s", path, key);
	int64_t x;
	if (schema_bytes(s, f, p, &x))
		*out = x;
}
