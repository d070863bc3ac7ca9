/* onnx_stream.c — the main graph's initializers and nodes checked and
 * unpacked on a second thread.
 *
 * Checking and unpacking (protobuf-c) is more than half of loading a big
 * model and needs nothing from the IR being built, so a decoder thread runs
 * ahead: it walks the given field ranges one after the other (the graph's
 * initializers, then its nodes), checks (wire_check_at, the nodes: the
 * initializers were checked with the file, which balances the two threads) and unpacks each
 * message in order into batches of at most BATCH messages and BATCH_BYTES
 * of wire (each batch has its own protobuf-c arena; a batch holds one
 * range's messages) and hands full batches over through a ring of RING.
 * While the loading thread converts the initializers, the decoder is
 * already on the nodes. The loading thread converts them in the same order
 * as before, so the model built is identical; a message stays valid until
 * the next call, as with the one-at-a-time path.
 *
 * Ownership: the stream owns its thread, ring and arenas; msg_stream_stop
 * (always called, also after an error) cancels the decoder, joins it and
 * frees them. */
#include <pthread.h>
#include <stdlib.h>
#include "onnx/onnx_loader.h"
#include "base/thread.h"

#define BATCH 1024
#define BATCH_BYTES ((size_t)4 << 20)   /* inline weights: a batch does not hold a model's worth */
#define RING 4

typedef struct msg_batch {
	pb_arena arena;
	const void *msgs[BATCH];
	size_t n;
	bool filled;           /* by the decoder; the consumer empties it */
	bool range_end;        /* the last batch of its range */
	bool failed;           /* the message after msgs[n-1] is malformed (the decoder stops) */
	wire_error bad;        /* why (NULL: protobuf-c refused it) and where in the file */
} msg_batch;

struct msg_stream {
	stream_range ranges[STREAM_RANGES];
	int n_ranges;
	const uint8_t *file;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bool cancel;
	msg_batch ring[RING];
	size_t batch;          /* consumer: the batch being read, and where */
	size_t at;
	int range;             /* consumer: the range being read */
	bool started;
};

/* Fills b with the next messages of range r from *pos; false when the
 * decoder is to stop (cancelled or a message is malformed). */
static bool fill_batch(msg_stream *s, const stream_range *r, size_t *pos, msg_batch *b)
{
	size_t bytes = 0;
	pb_arena_reset(&b->arena);
	b->n = 0;
	b->range_end = b->failed = false;
	while (b->n < BATCH && bytes < BATCH_BYTES) {
		const uint8_t *data;
		size_t len;
		if (!wire_next(r->wire, r->len, pos, r->field, &data, &len)) {
			b->range_end = true;
			break;
		}
		/* the loader's first check framed these messages but left them to us */
		const void *p = NULL;
		b->bad = (wire_error){ (size_t)(data - s->file), NULL };
		if (r->checked || !wire_check_at(r->desc, data, len, b->bad.at, 2, &b->bad))
			p = protobuf_c_message_unpack(r->desc, &b->arena.allocator, len, data);
		if (!p) {
			b->failed = b->range_end = true;
			break;
		}
		b->msgs[b->n++] = p;
		bytes += len;
	}
	return !b->failed;
}

static void *decode(void *arg)
{
	msg_stream *s = arg;
	size_t k = 0;
	for (int ri = 0; ri < s->n_ranges; ri++) {
		size_t pos = 0;
		bool more = true;
		while (more) {
			msg_batch *b = &s->ring[k++ % RING];
			pthread_mutex_lock(&s->lock);
			while (b->filled && !s->cancel)
				pthread_cond_wait(&s->changed, &s->lock);
			bool cancel = s->cancel;
			pthread_mutex_unlock(&s->lock);
			if (cancel)
				return NULL;
			bool ok = fill_batch(s, &s->ranges[ri], &pos, b);
			more = !b->range_end;
			pthread_mutex_lock(&s->lock);
			b->filled = true;
			pthread_cond_broadcast(&s->changed);
			pthread_mutex_unlock(&s->lock);
			if (!ok)
				return NULL;
		}
	}
	return NULL;
}

msg_stream *msg_stream_start(const stream_range *ranges, int n, const uint8_t *file)
{
	if (thread_budget() < 2 || n > STREAM_RANGES)
		return NULL;   /* the caller unpacks one at a time */
	msg_stream *s = xcalloc(1, sizeof *s);
	for (int i = 0; i < n; i++)
		s->ranges[i] = ranges[i];
	s->n_ranges = n;
	s->file = file;
	for (int i = 0; i < RING; i++)
		pb_arena_init(&s->ring[i].arena);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->changed, NULL);
	s->started = thread_start(&s->thread, decode, s);
	if (!s->started) {   /* no thread: the caller unpacks one at a time */
		msg_stream_stop(s);
		return NULL;
	}
	return s;
}

const void *msg_stream_next(msg_stream *s, bool *failed, wire_error *bad)
{
	*failed = false;
	while (s->range < s->n_ranges) {
		msg_batch *b = &s->ring[s->batch % RING];
		pthread_mutex_lock(&s->lock);
		while (!b->filled)
			pthread_cond_wait(&s->changed, &s->lock);
		pthread_mutex_unlock(&s->lock);
		if (s->at < b->n)
			return b->msgs[s->at++];
		if (b->failed) {
			*failed = true;
			*bad = b->bad;
			return NULL;   /* stays here: the decoder has stopped */
		}
		/* this batch is read: give it back, go on to the next */
		bool end = b->range_end;
		pthread_mutex_lock(&s->lock);
		b->filled = false;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		s->batch++;
		s->at = 0;
		if (end) {
			s->range++;
			return NULL;
		}
	}
	return NULL;
}

void msg_stream_stop(msg_stream *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->cancel = true;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	for (int i = 0; i < RING; i++)
		pb_arena_release(&s->ring[i].arena);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->changed);
	free(s);
}
