/* onnx_stream.c — the main graph's NodeProtos unpacked on a second thread.
 *
 * Unpacking (protobuf-c) is a fifth of loading a big model and needs nothing
 * from the IR being built, so a decoder thread runs ahead: it walks the
 * graph's node fields, checks (wire_check_at) and unpacks them in order into batches of BATCH messages
 * (each batch has its own protobuf-c arena) and hands full batches over
 * through a ring of RING. The loading thread converts them in the same
 * order as before, so the model built is identical; a message stays valid
 * until the next call, as with the one-at-a-time path.
 *
 * Ownership: the stream owns its thread, ring and arenas; node_stream_stop
 * (always called, also after an error) cancels the decoder, joins it and
 * frees them. */
#include <pthread.h>
#include <stdlib.h>
#include "onnx/onnx_loader.h"
#include "base/thread.h"

#define BATCH 1024
#define RING 4

enum { GRAPH_NODE_FIELD = 1 };

typedef struct node_batch {
	pb_arena arena;
	const Onnx__NodeProto *msgs[BATCH];
	size_t n;
	bool filled;           /* by the decoder; the consumer empties it */
	bool last;             /* no batch after this one */
	bool failed;           /* the message after msgs[n-1] is malformed */
	wire_error bad;        /* why (NULL: protobuf-c refused it) and where in the file */
} node_batch;

struct node_stream {
	const uint8_t *wire, *file;
	size_t len;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bool cancel;
	node_batch ring[RING];
	size_t batch;          /* consumer: the batch being read, and where */
	size_t at;
	bool started;
};

static void *decode(void *arg)
{
	node_stream *s = arg;
	size_t pos = 0;
	for (size_t k = 0;; k++) {
		node_batch *b = &s->ring[k % RING];
		pthread_mutex_lock(&s->lock);
		while (b->filled && !s->cancel)
			pthread_cond_wait(&s->changed, &s->lock);
		bool cancel = s->cancel;
		pthread_mutex_unlock(&s->lock);
		if (cancel)
			return NULL;
		pb_arena_reset(&b->arena);
		b->n = 0;
		b->last = b->failed = false;
		while (b->n < BATCH) {
			const uint8_t *data;
			size_t len;
			if (!wire_next(s->wire, s->len, &pos, GRAPH_NODE_FIELD, &data, &len)) {
				b->last = true;
				break;
			}
			/* the loader's first check framed the nodes but left them to us */
			const Onnx__NodeProto *p = NULL;
			b->bad = (wire_error){ (size_t)(data - s->file), NULL };
			if (!wire_check_at(&onnx__node_proto__descriptor, data, len, b->bad.at, 2, &b->bad))
				p = (const Onnx__NodeProto *)protobuf_c_message_unpack(&onnx__node_proto__descriptor,
				                                                        &b->arena.allocator, len, data);
			if (!p) {
				b->failed = b->last = true;
				break;
			}
			b->msgs[b->n++] = p;
		}
		pthread_mutex_lock(&s->lock);
		b->filled = true;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		if (b->last)
			return NULL;
	}
}

node_stream *node_stream_start(const uint8_t *graph_wire, size_t len, const uint8_t *file)
{
	if (thread_budget() < 2)
		return NULL;   /* the caller unpacks one at a time */
	node_stream *s = xcalloc(1, sizeof *s);
	s->wire = graph_wire;
	s->len = len;
	s->file = file;
	for (int i = 0; i < RING; i++)
		pb_arena_init(&s->ring[i].arena);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->changed, NULL);
	s->started = thread_start(&s->thread, decode, s);
	if (!s->started) {   /* no thread: the caller unpacks one at a time */
		node_stream_stop(s);
		return NULL;
	}
	return s;
}

const Onnx__NodeProto *node_stream_next(node_stream *s, bool *failed, wire_error *bad)
{
	*failed = false;
	for (;;) {
		node_batch *b = &s->ring[s->batch % RING];
		pthread_mutex_lock(&s->lock);
		while (!b->filled)
			pthread_cond_wait(&s->changed, &s->lock);
		pthread_mutex_unlock(&s->lock);
		if (s->at < b->n)
			return b->msgs[s->at++];
		if (b->last) {
			*failed = b->failed;
			*bad = b->bad;
			return NULL;   /* stays at the end: the batch is kept */
		}
		/* this batch is read: give it back, go on to the next */
		pthread_mutex_lock(&s->lock);
		b->filled = false;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		s->batch++;
		s->at = 0;
	}
}

void node_stream_stop(node_stream *s)
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
