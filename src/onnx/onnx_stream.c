/* onnx_stream.c — the main graph's initializers and nodes decoded on two
 * threads.
 *
 * Decoding (onnx_decode.c, protobuf-c for what it leaves) is a large part of loading a big
 * model and needs nothing from the IR being built, so a decoder thread runs
 * ahead: it walks the given field ranges one after the other (the graph's
 * initializers, then its nodes) in batches of at most BATCH messages and
 * BATCH_BYTES of wire (each batch has its own protobuf-c arena; a batch
 * holds one range's messages), decodes each message (onnx_msg_node,
 * onnx_msg_tensor: in place, or checked and unpacked by protobuf-c), and hands full batches over through a ring of RING. The loading
 * thread converts the batches in order, so the model built is identical;
 * when the batch it needs is still being unpacked, it claims the next free
 * one and unpacks that itself instead of waiting, so neither core idles
 * whichever of the two jobs is the longer. A message stays valid until the
 * next call, as with the one-at-a-time path.
 *
 * Batches are claimed in order under the lock (claiming frames the batch's
 * messages: cheap, the file check has framed them already); a claimed batch
 * is unpacked without it. Ownership: the stream owns its thread, ring and
 * arenas; onnx_stream_stop (always called, also after an error) cancels the
 * decoder, joins it and frees them. */
#include <pthread.h>
#include <stdlib.h>
#include "onnx/onnx_loader.h"
#include "base/thread.h"

#define BATCH 1024
#define BATCH_BYTES ((size_t)4 << 20)   /* inline weights: a batch does not hold a model's worth */
#define RING 4

typedef struct msg_batch {
	pb_arena arena;
	const uint8_t *wire[BATCH];   /* the messages framed by the claim */
	size_t len[BATCH];
	const void *msgs[BATCH];
	size_t n;
	const stream_range *range;
	bool filled;           /* unpacked; the consumer empties it */
	bool range_end;        /* the last batch of its range */
	bool failed;           /* the message after msgs[n-1] is malformed (claims stop) */
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
	size_t claimed;        /* batches claimed so far, by either thread */
	int claim_range;       /* where the next claim begins */
	size_t claim_pos;
	bool stopped;          /* a batch failed or every range is claimed: no more claims */
	size_t batch;          /* consumer: the batch being read, and where */
	size_t at;
	bool ready;            /* consumer: that batch is filled */
	int range;             /* consumer: the range being read */
	bool started;
};

/* Under the lock: the next batch, its messages framed, or NULL when the
 * ranges are all claimed, a batch failed, or its slot still holds a batch
 * the consumer has not read (a batch goes to slot index % RING). */
static msg_batch *claim(msg_stream *s)
{
	if (s->stopped || s->cancel || s->claimed >= s->batch + RING)
		return NULL;
	msg_batch *b = &s->ring[s->claimed++ % RING];
	const stream_range *r = &s->ranges[s->claim_range];
	size_t bytes = 0;
	b->n = 0;
	b->range = r;
	b->filled = b->range_end = b->failed = false;
	while (b->n < BATCH && bytes < BATCH_BYTES) {
		if (!onnx_wire_next(r->wire, r->len, &s->claim_pos, r->field, &b->wire[b->n], &b->len[b->n])) {
			b->range_end = true;
			break;
		}
		bytes += b->len[b->n++];
	}
	if (b->range_end) {
		s->claim_pos = 0;
		s->stopped = ++s->claim_range == s->n_ranges;
	}
	return b;
}

/* Without the lock: unpacks the claimed batch b, then hands it over. */
static void fill(msg_stream *s, msg_batch *b)
{
	onnx_pb_arena_reset(&b->arena);
	size_t n = b->n;
	for (b->n = 0; b->n < n; b->n++) {
		const uint8_t *data = b->wire[b->n];
		const void *p = b->range->decode(&b->arena, data, b->len[b->n], (size_t)(data - s->file), 2, &b->bad);
		if (!p) {
			b->failed = b->range_end = true;
			break;
		}
		b->msgs[b->n] = p;
	}
	pthread_mutex_lock(&s->lock);
	b->filled = true;
	if (b->failed)
		s->stopped = true;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
}

/* Under the lock: unpacks the next batch if one can be claimed (the lock
 * released meanwhile), else waits for a change. */
static void work_or_wait(msg_stream *s)
{
	msg_batch *b = claim(s);
	if (!b) {
		pthread_cond_wait(&s->changed, &s->lock);
		return;
	}
	pthread_mutex_unlock(&s->lock);
	fill(s, b);
	pthread_mutex_lock(&s->lock);
}

static void *decode(void *arg)
{
	msg_stream *s = arg;
	pthread_mutex_lock(&s->lock);
	while (!s->cancel && !s->stopped)
		work_or_wait(s);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

msg_stream *onnx_stream_start(const stream_range *ranges, int n, const uint8_t *file)
{
	if (thread_budget() < 2 || n < 1 || n > STREAM_RANGES)
		return NULL;   /* the caller unpacks one at a time */
	msg_stream *s = xcalloc(1, sizeof *s);
	for (int i = 0; i < n; i++)
		s->ranges[i] = ranges[i];
	s->n_ranges = n;
	s->file = file;
	for (int i = 0; i < RING; i++)
		onnx_pb_arena_init(&s->ring[i].arena);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->changed, NULL);
	s->started = thread_start(&s->thread, decode, s);
	if (!s->started) {   /* no thread: the caller unpacks one at a time */
		onnx_stream_stop(s);
		return NULL;
	}
	return s;
}

const void *onnx_stream_next(msg_stream *s, bool *failed, wire_error *bad)
{
	*failed = false;
	while (s->range < s->n_ranges) {
		msg_batch *b = &s->ring[s->batch % RING];
		if (!s->ready) {   /* once seen filled, a batch is read without the lock */
			pthread_mutex_lock(&s->lock);
			while (!(s->batch < s->claimed && b->filled))
				work_or_wait(s);   /* rather than only wait: unpack a batch here */
			pthread_mutex_unlock(&s->lock);
			s->ready = true;
		}
		if (s->at < b->n)
			return b->msgs[s->at++];
		if (b->failed) {
			*failed = true;
			*bad = b->bad;
			return NULL;   /* stays here: the claims have stopped */
		}
		/* this batch is read: give its slot back, go on to the next */
		bool end = b->range_end;
		pthread_mutex_lock(&s->lock);
		b->filled = false;
		s->batch++;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		s->at = 0;
		s->ready = false;
		if (end) {
			s->range++;
			return NULL;
		}
	}
	return NULL;
}

void onnx_stream_stop(msg_stream *s)
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
		onnx_pb_arena_release(&s->ring[i].arena);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->changed);
	free(s);
}
