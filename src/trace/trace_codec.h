/* trace_codec.h — the byte format of one recorded event, both ways: encode
 * (trace_record.c) and decode (trace_read.c). Inline: the matcher's every
 * event goes through encode.
 *
 * An event is encoded against a base: the event before it, except that
 * the fields its kind does not use (FD_EVENT_KINDS in trace.h) and reason
 * are based on their defaults (-1, or 0 for a, b and reason), so that they
 * cost nothing when they hold them:
 *   header  kind | status << 5 | (rule or graph changed) << 7
 *           (kind bits 31: a kind past 30 or a status past 3, so kind
 *           and status follow as two raw bytes)
 *   mask    one bit per field that differs from the base:
 *           unit other a b op sub reason branch
 *   [ext]   when the header says so: rule graph
 *   then each changed field, in that order, as the zigzag varint of its
 *   difference from the base's value (64-bit wrap-around for a and b).
 * Consecutive events mostly share rule, graph, branch and op and have nearby
 * units, so most events take 2 to 8 bytes (the matcher's average: 6.6).
 * The event before is replaced by ev_defaults at every TRACE_BLOCK-th event
 * (a checkpoint), whose offset is kept in marks, relative to bases (one per
 * TRACE_GROUP events) so 32 bits suffice; a mark also lists the kinds in its
 * block, so that a search for a kind (the stepper's next fire) skips blocks
 * without decoding them. */
#ifndef FD_TRACE_CODEC_H
#define FD_TRACE_CODEC_H
#include <stdint.h>
#include "trace/trace.h"

/* The delta base at a checkpoint: the values fields take when they do not
 * apply (trace.h), so that they cost nothing there. */
static const fd_event ev_defaults = {
	.reason = 0, .branch = -1, .op = -1, .sub = -1, .rule = -1, .graph = 0,
	.unit = -1, .other = -1, .a = 0, .b = 0,
};

/* Which of unit, other, a, b, sub each kind gives a meaning; a kind past the
 * list uses them all. */
#define EVF_ALL (EVF_UNIT | EVF_OTHER | EVF_A | EVF_B | EVF_SUB)
static const uint8_t kind_uses[] = {
#define USES(id, name, uses) [EV_##id] = (uses),
	FD_EVENT_KINDS(USES)
#undef USES
};
_Static_assert(sizeof kind_uses == EV_KIND_COUNT, "one entry per event kind");

static inline unsigned ev_uses(unsigned kind)
{
	return kind < EV_KIND_COUNT ? kind_uses[kind] : EVF_ALL;
}

enum {
	M_UNIT = 1, M_OTHER = 2, M_A = 4, M_B = 8, M_OP = 16, M_SUB = 32, M_REASON = 64, M_BRANCH = 128,
	X_RULE = 1, X_GRAPH = 2,
	H_EXT = 0x80, H_RAW = 31,
	EV_MAX_BYTES = 64,           /* 4 header bytes + 4 × 5 + 3 × 3 + 2 + 2 × 10 = 55 */
};

static inline uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline const uint8_t *get_uv(const uint8_t *p, uint64_t *v)
{
	uint64_t x = *p & 0x7f;
	unsigned s = 7;
	while (*p++ & 0x80) {
		x |= (uint64_t)(*p & 0x7f) << s;
		s += 7;
	}
	*v = x;
	return p;
}

/* Zigzag of the wrapped difference now - was: small either way, one byte. */
static inline uint8_t *put_delta(uint8_t *p, int64_t now, int64_t was)
{
	uint64_t d = (uint64_t)now - (uint64_t)was;
	return put_uv(p, d << 1 ^ (0 - (d >> 63)));
}

static inline const uint8_t *get_delta(const uint8_t *p, int64_t was, int64_t *now)
{
	uint64_t z;
	p = get_uv(p, &z);
	*now = (int64_t)((uint64_t)was + (z >> 1 ^ (0 - (z & 1))));
	return p;
}

/* One field: the zigzag delta now - was, written only when not 0 (it is
 * 0 exactly when the field equals its base), its bit set in *m. Written
 * without a branch on whether it changed: most deltas take one byte. */
static inline uint8_t *put_field(uint8_t *p, unsigned *m, unsigned bit, int64_t now, int64_t was)
{
	uint64_t d = (uint64_t)now - (uint64_t)was;
	uint64_t z = d << 1 ^ (0 - (d >> 63));
	*m |= z ? bit : 0;
	if (z < 0x80) {
		*p = (uint8_t)z;
		return p + (z != 0);
	}
	return put_uv(p, z);
}

/* Writes ev after prev at p (room for EV_MAX_BYTES); returns the end. */
static inline uint8_t *ev_encode(uint8_t *p, const fd_event *prev, const fd_event *ev)
{
	unsigned u = ev_uses(ev->kind);
	unsigned x = (ev->rule != prev->rule ? X_RULE : 0) | (ev->graph != prev->graph ? X_GRAPH : 0);
	unsigned h = x ? H_EXT : 0;
	if (ev->kind < H_RAW && ev->status < 4) {
		*p++ = (uint8_t)(ev->kind | ev->status << 5 | h);
	} else {
		*p++ = (uint8_t)(H_RAW | h);
		*p++ = ev->kind;
		*p++ = ev->status;
	}
	uint8_t *mask = p++;
	unsigned m = 0;
	if (x)
		*p++ = (uint8_t)x;
	/* the base: the event before, with the unused fields at their defaults, without branches */
	p = put_field(p, &m, M_UNIT, ev->unit, u & EVF_UNIT ? prev->unit : ev_defaults.unit);
	p = put_field(p, &m, M_OTHER, ev->other, u & EVF_OTHER ? prev->other : ev_defaults.other);
	p = put_field(p, &m, M_A, ev->a, u & EVF_A ? prev->a : ev_defaults.a);
	p = put_field(p, &m, M_B, ev->b, u & EVF_B ? prev->b : ev_defaults.b);
	p = put_field(p, &m, M_OP, ev->op, prev->op);
	p = put_field(p, &m, M_SUB, ev->sub, u & EVF_SUB ? prev->sub : ev_defaults.sub);
	p = put_field(p, &m, M_REASON, ev->reason, ev_defaults.reason);
	p = put_field(p, &m, M_BRANCH, ev->branch, prev->branch);
	*mask = (uint8_t)m;
	if (x & X_RULE)
		p = put_delta(p, ev->rule, prev->rule);
	if (x & X_GRAPH)
		p = put_delta(p, ev->graph, prev->graph);
	return p;
}

/* The event before becomes the base of an event of this kind. */
static inline void ev_rebase(fd_event *b, unsigned kind)
{
	unsigned u = ev_uses(kind);
	if (!(u & EVF_UNIT))
		b->unit = ev_defaults.unit;
	if (!(u & EVF_OTHER))
		b->other = ev_defaults.other;
	if (!(u & EVF_A))
		b->a = ev_defaults.a;
	if (!(u & EVF_B))
		b->b = ev_defaults.b;
	if (!(u & EVF_SUB))
		b->sub = ev_defaults.sub;
	b->reason = ev_defaults.reason;
}

/* A field read back: its delta against the base was, when present (its
 * mask bit set), else the base itself. */
static inline const uint8_t *get_field(const uint8_t *p, unsigned present, int64_t was, int64_t *now)
{
	if (!present) {
		*now = was;
		return p;
	}
	return get_delta(p, was, now);
}

/* Reads the event at p into *ev, which holds the event before; returns the end. */
static inline const uint8_t *ev_decode(const uint8_t *p, fd_event *ev)
{
	unsigned h = *p++;
	if ((h & 31) == H_RAW) {
		ev->kind = *p++;
		ev->status = *p++;
	} else {
		ev->kind = (uint8_t)(h & 31);
		ev->status = (uint8_t)(h >> 5 & 3);
	}
	unsigned m = *p++;
	unsigned x = h & H_EXT ? *p++ : 0;
	int64_t v;
	ev_rebase(ev, ev->kind);
	p = get_field(p, m & M_UNIT, ev->unit, &v), ev->unit = (int32_t)v;
	p = get_field(p, m & M_OTHER, ev->other, &v), ev->other = (int32_t)v;
	p = get_field(p, m & M_A, ev->a, &ev->a);
	p = get_field(p, m & M_B, ev->b, &ev->b);
	p = get_field(p, m & M_OP, ev->op, &v), ev->op = (int16_t)v;
	p = get_field(p, m & M_SUB, ev->sub, &v), ev->sub = (int16_t)v;
	p = get_field(p, m & M_REASON, ev->reason, &v), ev->reason = (uint8_t)v;
	p = get_field(p, m & M_BRANCH, ev->branch, &v), ev->branch = (int8_t)v;
	p = get_field(p, x & X_RULE, ev->rule, &v), ev->rule = (int32_t)v;
	p = get_field(p, x & X_GRAPH, ev->graph, &v), ev->graph = (int32_t)v;
	return p;
}

#endif
