/* trace_write.c — the recording written out: the canonical text trace
 * (`match --trace`, golden-tested: no addresses, no timing, model named by
 * its file name), the trace as JSON and CANN's fusion_result.json shape, a
 * big trace in pieces on every core (ordered_write), each piece with its own
 * describe_cache. Output goes to a FILE* the caller passes (open_memstream
 * gives a string). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/json.h"
#include "base/ordered_write.h"
#include "base/outbuf.h"
#include "match/match.h"
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "base/text.h"

/* A writer's start: its buffer on f, a cache of its own, and (it not NULL)
 * a cursor at event from. */
static void writer_begin(outbuf *o, describe_cache *dc, FILE *f, fd_trace_iter *it, const fd_trace *t, size_t from)
{
	ob_init(o, f);
	explain_cache_init(dc);
	if (it)
		trace_iter_init(it, t, from);
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

/* ---- text ---------------------------------------------------------------- */

/* " (file:line:col)" of a position with a file and a line. */
static void write_where(outbuf *o, describe_cache *dc, const fd_srcpos *p)
{
	uint32_t h = (uint32_t)p->line * 0x9e3779b1u ^ (uint32_t)p->col * 0x85ebca6bu ^ (uint32_t)((uintptr_t)p->file >> 3);
	describe_pos *w = &dc->wheres[(h ^ h >> 16) % DESCRIBE_WHERES];
	if (w->file != p->file || w->line != p->line || w->col != p->col) {
		strbuf b = { 0 };
		if (strlen(p->file) < 200) {   /* explain_where's text, which only a long path cuts */
			txt_sb_printf(&b, " (%s:%d:%d)", p->file, p->line, p->col);
		} else {
			char where[256];
			txt_sb_printf(&b, " (%s)", explain_where(p, where, sizeof where));
		}
		if (b.n >= sizeof w->text) {
			ob_add(o, b.s, b.n);
			sb_release(&b);
			return;
		}
		memcpy(w->text, b.s, b.n);
		w->len = b.n;
		w->file = p->file;
		w->line = p->line;
		w->col = p->col;
		sb_release(&b);
	}
	ob_add(o, w->text, w->len);
}

/* The text trace's lines go through an outbuf (no printf per field): a
 * trace of a big model is millions of them. next: the cursor the event was
 * read with, or NULL. */
static void write_event_line(outbuf *o, describe_cache *dc, const fd_trace_iter *next, const fd_match_result *r,
                             uint32_t idx, const fd_event *ev, const char *indent)
{
	fd_event_text t;
	explain_describe_event(r, dc, next, idx, ev, &t);
	const char *status = trace_status_name((fd_ev_status)t.status);
	size_t n = strlen(status);
	ob_lit(o, indent);
	ob_char(o, '#');
	ob_int(o, idx);
	ob_char(o, ' ');
	ob_add(o, status, n);
	ob_add(o, "     ", n < 4 ? 5 - n : 1);   /* as "%-4s " */
	ob_field(o, t.check, sizeof t.check);
	if (t.subject[0] && ev->kind != EV_RULE) {
		ob_lit(o, " @ ");
		ob_field(o, t.subject, sizeof t.subject);
	}
	if (t.expected[0] || t.actual[0]) {
		ob_lit(o, ": expected ");
		ob_field(o, t.expected[0] ? t.expected : "-", t.expected[0] ? sizeof t.expected : 2);
		ob_lit(o, ", actual ");
		ob_field(o, t.actual[0] ? t.actual : "-", t.actual[0] ? sizeof t.actual : 2);
	}
	if (ev->reason != REASON_NONE && !t.superseded) {
		ob_lit(o, " [");
		ob_text(o, reason_code((fd_reason)ev->reason));
		ob_char(o, ']');
	}
	if (t.reason[0]) {
		ob_lit(o, " — ");
		ob_field(o, t.reason, sizeof t.reason);
	}
	if (t.where.file && t.where.line)
		write_where(o, dc, &t.where);
	ob_char(o, '\n');
}

static const char *graph_label(const fd_match_result *r, int32_t gi, char *buf, size_t size)
{
	const fd_graph *g = r->ctx->graphs[gi].g;
	if (gi == 0)
		text_cutf(buf, size, "main");
	else
		text_cutf(buf, size, "%s (body %s of %s)", g->name ? g->name : "?", g->owner_attr ? g->owner_attr : "?",
		    g->owner_node >= 0 ? r->ctx->graphs[g->parent].g->nodes[g->owner_node].name : "?");
	return buf;
}

/* Attempt ai, its events read from it (left after the last); first: its
 * first event when the caller has already read it, else NULL. */
static void write_attempt(outbuf *o, describe_cache *dc, const fd_match_result *r, uint32_t ai,
                          fd_trace_iter *it, const fd_event *first)
{
	const fd_attempt *a = &r->trace.attempts[ai];
	const fd_rule *rule = &r->rules->rules[a->rule];
	char lab[192], gl[192];
	/* "  attempt %u %s @ %s [graph %s]: %s %s\n", each %s escaped, piece by piece */
	ob_lit(o, "  attempt ");
	ob_int(o, ai);
	ob_char(o, ' ');
	ob_text(o, rule->name ? rule->name : "(null)");
	if (a->anchor >= 0) {
		ob_lit(o, " @ ");
		ob_text(o, explain_cached_unit_label(dc, r, a->graph, a->anchor, lab, sizeof lab));
		ob_lit(o, " [graph ");
		ob_text(o, graph_label(r, a->graph, gl, sizeof gl));
		ob_char(o, ']');
	}
	ob_lit(o, ": ");
	ob_text(o, rung_name((fd_rung)a->rung));
	ob_char(o, ' ');
	ob_text(o, reason_code((fd_reason)a->reason));
	ob_char(o, '\n');
	fd_event ev;
	if (!first)
		trace_iter_seek(it, a->first_event);
	for (uint32_t e = a->first_event; e < a->first_event + a->n_events; e++) {
		if (first && e == a->first_event)
			ev = *first;
		else if (!trace_iter_next(it, &ev))
			break;
		if (ev.kind == EV_RULE && ev.status == ST_INFO)
			continue;
		write_event_line(o, dc, it, r, e, &ev, e == a->decisive ? "  > " : "    ");
	}
}

void explain_attempt_text(FILE *f, const fd_match_result *r, uint32_t ai)
{
	fd_trace_iter it;
	outbuf o;
	describe_cache dc;
	writer_begin(&o, &dc, f, &it, &r->trace, r->trace.attempts[ai].first_event);
	write_attempt(&o, &dc, r, ai, &it, NULL);
	ob_flush(&o);
}

/* ---- a big trace on every core --------------------------------------------- */

/* The trace's attempts in pieces of about PIECE_EVENTS events each, written
 * by ordered_write: each piece begins at an attempt (piece 0 at from), so
 * it can be written knowing nothing of the pieces before it. */
#define PIECE_EVENTS 16384

typedef struct trace_pieces {
	const fd_match_result *r;
	int32_t round;                 /* JSON: the attempts' "round" key when > 0 */
	bool first;                    /* JSON: no item was written before piece 0 */
	size_t n;
	uint32_t *start;               /* first event of each piece, start[n] = n_events */
	size_t *attempt;               /* first attempt of each piece, attempt[n] = n_attempts */
} trace_pieces;

static void pieces_init(trace_pieces *tp, const fd_match_result *r, uint32_t from)
{
	const fd_trace *t = &r->trace;
	size_t cap = t->n_events / PIECE_EVENTS + 2;
	*tp = (trace_pieces){ .r = r, .first = true };
	tp->start = xcalloc(cap + 1, sizeof *tp->start);
	tp->attempt = xcalloc(cap + 1, sizeof *tp->attempt);
	tp->start[0] = from;
	tp->n = 1;
	for (size_t ai = 0; ai < t->n_attempts; ai++) {
		uint32_t e = t->attempts[ai].first_event;
		if (e >= from && e - tp->start[tp->n - 1] >= PIECE_EVENTS && tp->n < cap) {
			tp->start[tp->n] = e;
			tp->attempt[tp->n] = ai;
			tp->n++;
		}
	}
	tp->start[tp->n] = (uint32_t)t->n_events;
	tp->attempt[tp->n] = t->n_attempts;
}

static void pieces_release(trace_pieces *tp)
{
	free(tp->start);
	free(tp->attempt);
}

/* Events from..to of the text trace (from: an attempt's first event, or
 * the first after the canonical forms); ai: the first attempt not ending
 * before from. */
static void write_events(outbuf *o, describe_cache *dc, const fd_match_result *r, uint32_t from, uint32_t to,
                         size_t ai)
{
	const fd_trace *t = &r->trace;
	fd_trace_iter it;
	fd_event cur;
	trace_iter_init(&it, t, from);
	for (uint32_t e = from; e < to && trace_iter_next(&it, &cur); e++) {
		const fd_event *ev = &cur;
		if (ev->kind == EV_RULE && ev->status == ST_INFO) {
			const fd_rule *rule = &r->rules->rules[ev->rule];
			fd_event_text d;
			char where[256];
			explain_describe_event(r, dc, &it, e, ev, &d);
			explain_where(&d.where, where, sizeof where);
			const fd_rule_stats *st = &r->stats[ev->rule];
			ob_printf(o, "rule %s priority %lld (%s): attempts %lld, match_times %lld, effect_times %lld\n",
			        rule->name, (long long)rule->priority, where, (long long)st->attempts,
			        (long long)st->match_times, (long long)st->effect_times);
			continue;
		}
		/* print attempts as they begin */
		while (ai < t->n_attempts && t->attempts[ai].first_event + t->attempts[ai].n_events <= e)
			ai++;
		if (ai < t->n_attempts && t->attempts[ai].first_event <= e) {
			const fd_attempt *a = &t->attempts[ai];
			write_attempt(o, dc, r, (uint32_t)ai, &it, a->first_event == e ? &cur : NULL);
			e = a->first_event + a->n_events - 1;
			trace_iter_seek(&it, e + 1);   /* what the loop reads next */
			ai++;
		}
	}
}

static void trace_text_piece(void *arg, size_t i, FILE *f)
{
	const trace_pieces *tp = arg;
	outbuf o;
	describe_cache dc;
	writer_begin(&o, &dc, f, NULL, NULL, 0);
	write_events(&o, &dc, tp->r, tp->start[i], tp->start[i + 1], tp->attempt[i]);
	ob_flush(&o);
}

void explain_trace_text(FILE *f, const fd_match_result *r)
{
	const fd_trace *t = &r->trace;
	txt_fprintf(f, "# fusiondbg trace: model %s, target %s, %zu rules, %zu events, %zu attempts\n",
	        base_name(r->ctx->model->path), r->target, (size_t)r->n_rules, t->n_events, t->n_attempts);
	uint32_t e = 0;
	bool header = false;
	fd_trace_iter it;
	fd_event cur;
	outbuf o;
	describe_cache dc;
	writer_begin(&o, &dc, f, &it, t, 0);
	for (; trace_iter_next(&it, &cur) && cur.kind == EV_COMPOSITE; e++) {
		if (!header) {
			ob_printf(&o, "canonical forms%s\n", r->ctx->canonicalize ? "" : " (off)");
			header = true;
		}
		write_event_line(&o, &dc, &it, r, e, &cur, "  ");
	}
	ob_flush(&o);
	trace_pieces tp;
	pieces_init(&tp, r, e);
	ordered_write(f, tp.n, trace_text_piece, &tp);
	pieces_release(&tp);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_event(outbuf *o, describe_cache *dc, const fd_trace_iter *next, const fd_match_result *r,
                       uint32_t idx, const fd_event *ev)
{
	fd_event_text t;
	char where[256];
	explain_describe_event(r, dc, next, idx, ev, &t);
	explain_where(&t.where, where, sizeof where);
	ob_lit(o, "{\"index\": ");
	ob_int(o, idx);
	ob_lit(o, ", \"kind\": \"");
	ob_lit(o, trace_event_kind_name((fd_event_kind)ev->kind));
	ob_lit(o, "\", \"status\": \"");
	ob_lit(o, t.status == ST_FAIL ? "fail" : trace_status_name((fd_ev_status)t.status));
	ob_lit(o, "\", \"check\": ");
	ob_json(o, t.check);
	ob_lit(o, ", \"subject\": ");
	ob_json(o, t.subject);
	ob_lit(o, ", \"expected\": ");
	ob_json(o, t.expected);
	ob_lit(o, ", \"actual\": ");
	ob_json(o, t.actual);
	ob_lit(o, ", \"code\": ");
	ob_json(o, t.superseded ? "" : reason_code((fd_reason)ev->reason));
	ob_lit(o, ", \"reason\": ");
	ob_json(o, t.reason);
	ob_lit(o, ", \"where\": ");
	ob_json(o, where);
	ob_char(o, '}');
}

void explain_trace_json_composites(FILE *f, const fd_match_result *r)
{
	uint32_t e = 0;
	fd_trace_iter it;
	fd_event ev;
	outbuf o;
	describe_cache dc;
	writer_begin(&o, &dc, f, &it, &r->trace, 0);
	for (; trace_iter_next(&it, &ev) && ev.kind == EV_COMPOSITE; e++) {
		ob_lit(&o, e ? ", " : "");
		json_event(&o, &dc, &it, r, e, &ev);
	}
	ob_flush(&o);
}

static void trace_json_piece(void *arg, size_t i, FILE *f)
{
	const trace_pieces *tp = arg;
	const fd_match_result *r = tp->r;
	const fd_trace *t = &r->trace;
	char lab[192];
	fd_trace_iter it;
	fd_event ev;
	outbuf o;
	describe_cache dc;
	writer_begin(&o, &dc, f, &it, t, 0);
	for (size_t ai = tp->attempt[i]; ai < tp->attempt[i + 1]; ai++) {
		const fd_attempt *a = &t->attempts[ai];
		ob_lit(&o, ai == 0 && tp->first ? "{\"rule\": " : ", {\"rule\": ");
		ob_json(&o, r->rules->rules[a->rule].name);
		if (tp->round > 0) {
			ob_lit(&o, ", \"round\": ");
			ob_int(&o, tp->round);
		}
		ob_lit(&o, ", \"anchor\": ");
		if (a->anchor >= 0)
			ob_json(&o, r->ctx->graphs[a->graph].g->nodes[match_unit_node(r->ctx, a->graph, a->anchor)].name);
		else
			ob_lit(&o, "null");
		ob_lit(&o, ", \"unit\": ");
		ob_json(&o, a->anchor >= 0 ? explain_cached_unit_label(&dc, r, a->graph, a->anchor, lab, sizeof lab) : "");
		ob_lit(&o, ", \"graph\": ");
		ob_int(&o, a->graph);
		ob_lit(&o, ", \"branch\": ");
		ob_int(&o, a->branch);
		ob_lit(&o, ", \"rung\": \"");
		ob_lit(&o, rung_id((fd_rung)a->rung));
		ob_lit(&o, "\", \"code\": \"");
		ob_lit(&o, reason_code((fd_reason)a->reason));
		ob_lit(&o, "\", \"decisive\": ");
		ob_int(&o, a->decisive == UINT32_MAX ? -1LL : (long long)a->decisive);
		ob_lit(&o, ", \"events\": [");
		trace_iter_seek(&it, a->first_event);
		for (uint32_t k = 0; k < a->n_events && trace_iter_next(&it, &ev); k++) {
			ob_lit(&o, k ? ", " : "");
			json_event(&o, &dc, &it, r, a->first_event + k, &ev);
		}
		ob_lit(&o, "]}");
	}
	ob_flush(&o);
}

void explain_trace_json_attempts(FILE *f, const fd_match_result *r, int32_t round, bool *first)
{
	trace_pieces tp;
	pieces_init(&tp, r, 0);
	tp.round = round;
	tp.first = *first;
	ordered_write(f, tp.n, trace_json_piece, &tp);
	if (r->trace.n_attempts)
		*first = false;
	pieces_release(&tp);
}

