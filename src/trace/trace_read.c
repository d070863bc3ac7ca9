/* trace_read.c — reading a recording back (trace.h): one event by value,
 * the forward and backward cursors, and searches for kinds that pass over
 * the blocks whose marks hold none of them. Each read starts at a
 * checkpoint or continues from the event before (trace_codec.h). */
#include "trace/trace.h"
#include "trace/trace_codec.h"

/* The bytes of checkpoint event i (i a multiple of TRACE_BLOCK). */
static const uint8_t *block_start(const fd_trace *t, size_t i)
{
	return t->bytes + t->bases[i / TRACE_GROUP] + t->marks[i / TRACE_BLOCK].offset;
}

fd_event trace_event(const fd_trace *t, size_t i)
{
	fd_event ev = ev_defaults;
	if (i >= t->n_events)
		return ev;
	const uint8_t *p = block_start(t, i - i % TRACE_BLOCK);
	for (size_t k = i % TRACE_BLOCK + 1; k > 0; k--)
		p = ev_decode(p, &ev);
	return ev;
}

void trace_iter_init(fd_trace_iter *it, const fd_trace *t, size_t i)
{
	it->t = t;
	it->ev = ev_defaults;
	if (i >= t->n_events) {
		it->i = t->n_events;
		it->p = NULL;
		return;
	}
	it->i = i - i % TRACE_BLOCK;
	it->p = block_start(t, it->i);
	for (; it->i < i; it->i++)
		it->p = ev_decode(it->p, &it->ev);
}

bool trace_iter_next(fd_trace_iter *it, fd_event *out)
{
	if (it->i >= it->t->n_events)
		return false;
	if (it->i % TRACE_BLOCK == 0)
		it->ev = ev_defaults;
	it->p = ev_decode(it->p, &it->ev);
	it->i++;
	*out = it->ev;
	return true;
}

void trace_iter_seek(fd_trace_iter *it, size_t i)
{
	/* forward from here beats the checkpoint when fewer events lie between */
	if (i >= it->i && i - it->i <= i % TRACE_BLOCK && it->i < it->t->n_events) {
		fd_event skip;
		while (it->i < i && trace_iter_next(it, &skip))
			;
		return;
	}
	trace_iter_init(it, it->t, i);
}

bool trace_iter_next_of(fd_trace_iter *it, uint32_t kinds, fd_event *out)
{
	const fd_trace *t = it->t;
	if (!kinds)
		it->i = t->n_events;
	while (it->i < t->n_events) {
		if (!(t->marks[it->i / TRACE_BLOCK].kinds & kinds)) {
			/* none here: on to the next checkpoint, which needs no base */
			it->i += TRACE_BLOCK - it->i % TRACE_BLOCK;
			if (it->i < t->n_events)
				it->p = block_start(t, it->i);
			continue;
		}
		trace_iter_next(it, out);
		if (EV_BIT(out->kind) & kinds)
			return true;
	}
	it->i = t->n_events;
	return false;
}

void trace_riter_init(fd_trace_riter *it, const fd_trace *t, size_t end)
{
	it->t = t;
	it->i = end < t->n_events ? end : t->n_events;
	it->block = SIZE_MAX;
}

bool trace_riter_prev(fd_trace_riter *it, fd_event *out)
{
	if (it->i == 0)
		return false;
	size_t i = --it->i;
	size_t b = i - i % TRACE_BLOCK;
	if (it->block != b) {
		/* the whole block up to i, forwards */
		const uint8_t *p = block_start(it->t, b);
		fd_event ev = ev_defaults;
		for (size_t k = 0; k <= i - b; k++) {
			p = ev_decode(p, &ev);
			it->ev[k] = ev;
		}
		it->block = b;
	}
	*out = it->ev[i - b];
	return true;
}

bool trace_riter_prev_of(fd_trace_riter *it, uint32_t kinds, fd_event *out)
{
	while (it->i > 0) {
		size_t b = (it->i - 1) - (it->i - 1) % TRACE_BLOCK;
		if (!(it->t->marks[b / TRACE_BLOCK].kinds & kinds)) {
			it->i = b;
			continue;
		}
		trace_riter_prev(it, out);
		if (EV_BIT(out->kind) & kinds)
			return true;
	}
	return false;
}
