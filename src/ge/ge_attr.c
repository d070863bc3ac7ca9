/* ge_attr.c — a GE op's attributes (AttrDef, ge_ir.proto) as the IR's
 * (fd_attr), and the compiler's record of the node read from them.
 *
 * Kinds: s and expression → STRING; i and dt → INT; f → FLOAT; b → INT
 * (0/1, as ONNX has no bool); td (a tensor descriptor) and t (a tensor) →
 * TENSOR with dtype and dims (and the values of a small int32, int64 or
 * float tensor); a list of s, i, f, b, dt, td or t → the list kind, chosen
 * by val_type, else by the first entry. bt, func, g, list_list_int and
 * list_list_float have no IR kind and are left out. A map key given twice
 * keeps its last value, as protobuf's map does. */
#include <math.h>
#include <string.h>
#include "base/strmap.h"
#include "ge/ge_loader.h"

/* ListValue.ListValueType, by value */
static const char *const list_types[] = {
	"VT_LIST_NONE", "VT_LIST_STRING", "VT_LIST_INT", "VT_LIST_FLOAT", "VT_LIST_BOOL", "VT_LIST_BYTES",
	"VT_LIST_TENSOR_DESC", "VT_LIST_TENSOR", "VT_LIST_GRAPH", "VT_LIST_NAMED_ATTRS", "VT_LIST_DATA_TYPE",
};
/* the ListValue field of each list type (NULL: no IR kind) */
static const char *const list_field[] = { NULL, "s", "i", "f", "b", NULL, "td", "t", NULL, NULL, "dt" };
static const char *const list_fields_ir[] = { "s", "i", "f", "b", "td", "t", "dt" };

int ge_desc_read(ge_loader *L, const pbtxt_node *desc, int32_t *dtype, fd_shape *shape)
{
	*dtype = DT_UNDEFINED;
	*shape = (fd_shape){ 0, NULL };   /* no dims: a scalar, as GE writes one */
	const pbtxt_node *dt = pbtxt_find(desc, "dtype"), *sh = pbtxt_find(desc, "shape");
	int64_t v;
	if (dt) {
		if (pbtxt_enum(L->doc, dt, ge_dtype_names, ge_dtype_count, &v, L->d))
			return -1;
		*dtype = ge_dtype_to_ir(v);
	}
	if (!sh)
		return 0;
	if (pbtxt_message(L->doc, sh, L->d))
		return -1;
	int32_t rank = 0;
	for (const pbtxt_node *f = sh->first; f; f = f->next)
		rank += !strcmp(f->name, "dim");
	fd_dim *dims = rank ? arena_array(&L->m->arena, (size_t)rank, sizeof *dims) : NULL;
	int32_t k = 0;
	for (const pbtxt_node *f = sh->first; f; f = f->next) {
		if (strcmp(f->name, "dim"))
			continue;
		if (pbtxt_int(L->doc, f, &v, L->d))
			return -1;
		if (v == -2 && rank == 1) {   /* GE's unknown rank */
			*shape = (fd_shape){ -1, NULL };
			return 0;
		}
		if (v < -1) {
			diag_error(L->d, pbtxt_value_pos(L->doc, f), "dim %lld: a dim is a size, -1 (not known) or a lone -2 "
			           "(rank not known)", (long long)v);
			return -1;
		}
		dims[k++] = v < 0 ? dim_unknown() : dim_of(v);
	}
	*shape = (fd_shape){ rank, dims };
	return 0;
}

static const pbtxt_node *nth_field(const pbtxt_node *msg, const char *name, size_t *count)
{
	const pbtxt_node *first = NULL;
	*count = 0;
	for (const pbtxt_node *f = msg->first; f; f = f->next)
		if (!strcmp(f->name, name) && (*count)++ == 0)
			first = f;
	return first;
}

/* A small tensor's values from its bytes (little-endian, as GE writes
 * them): int32, int64 and float only, and only when the bytes are exactly
 * the elements the dims say. */
static fd_const *tensor_values(ge_loader *L, int32_t dtype, const fd_shape *shape, const char *data, size_t len)
{
	int64_t count = 1;
	for (int32_t i = 0; i < shape->rank; i++) {
		if (!dim_known(shape->dims[i]) || shape->dims[i].value > FD_CONST_MAX)
			return NULL;
		count *= shape->dims[i].value;
		if (count > FD_CONST_MAX)
			return NULL;
	}
	size_t size = dtype == DT_INT64 ? 8 : dtype == DT_INT32 || dtype == DT_FLOAT ? 4 : 0;
	if (shape->rank < 0 || !size || !count || len != (size_t)count * size)
		return NULL;
	fd_const *c = arena_alloc(&L->m->arena, sizeof *c);
	c->dtype = dtype;
	c->count = count;
	const unsigned char *b = (const unsigned char *)data;
	if (dtype == DT_FLOAT)
		c->f64 = arena_array(&L->m->arena, (size_t)count, sizeof *c->f64);
	else
		c->i64 = arena_array(&L->m->arena, (size_t)count, sizeof *c->i64);
	for (int64_t e = 0; e < count; e++, b += size) {
		uint64_t u = 0;
		for (size_t k = size; k-- > 0;)
			u = u << 8 | b[k];
		if (dtype == DT_INT64) {
			c->i64[e] = (int64_t)u;
		} else if (dtype == DT_INT32) {
			c->i64[e] = (int32_t)(uint32_t)u;
		} else {
			float x;
			uint32_t w = (uint32_t)u;
			memcpy(&x, &w, sizeof x);
			c->f64[e] = x;
		}
	}
	return c;
}

/* A TensorDescriptor (td) or a TensorDef (t: desc and data) as an attribute tensor. */
static int attr_tensor(ge_loader *L, const pbtxt_node *f, bool with_data, fd_attr_tensor **out)
{
	if (pbtxt_message(L->doc, f, L->d))
		return -1;
	const pbtxt_node *desc = with_data ? pbtxt_find(f, "desc") : f;
	fd_attr_tensor *t = arena_alloc(&L->m->arena, sizeof *t);
	t->shape = (fd_shape){ 0, NULL };
	if (desc && (pbtxt_message(L->doc, desc, L->d) || ge_desc_read(L, desc, &t->dtype, &t->shape)))
		return -1;
	const pbtxt_node *data = with_data ? pbtxt_find(f, "data") : NULL;
	const char *bytes;
	size_t len;
	if (data) {
		if (pbtxt_string(L->doc, data, &bytes, &len, L->d))
			return -1;
		t->value = tensor_values(L, t->dtype, &t->shape, bytes, len);
	}
	*out = t;
	return 0;
}

static const char *copy_string(ge_loader *L, const pbtxt_node *f)
{
	return arena_strndup(&L->m->arena, f->text, f->len);
}

/* The n entries of a list named field (in msg) into a. */
static int list_entries(ge_loader *L, const pbtxt_node *msg, const char *field, size_t n, fd_attr *a)
{
	bool tensors = !strcmp(field, "td") || !strcmp(field, "t");
	char kind = field[0];
	a->type = kind == 's' ? ATTR_STRINGS : kind == 'f' ? ATTR_FLOATS : tensors ? ATTR_TENSORS : ATTR_INTS;
	a->count = (int64_t)n;
	void *items = n ? arena_array(&L->m->arena, n, a->type == ATTR_STRINGS ? sizeof(char *)
	                                               : tensors ? sizeof(fd_attr_tensor *) : 8) : NULL;
	if (a->type == ATTR_STRINGS)
		a->u.strings = items;
	else if (a->type == ATTR_FLOATS)
		a->u.floats = items;
	else if (tensors)
		a->u.tensors = items;
	else
		a->u.ints = items;
	size_t k = 0;
	for (const pbtxt_node *f = msg->first; f; f = f->next) {
		if (strcmp(f->name, field))
			continue;
		int rc;
		bool b = false;
		const char *s;
		if (a->type == ATTR_STRINGS) {
			rc = pbtxt_string(L->doc, f, &s, NULL, L->d);
			a->u.strings[k] = rc ? NULL : copy_string(L, f);
		} else if (a->type == ATTR_FLOATS) {
			rc = pbtxt_float(L->doc, f, &a->u.floats[k], L->d);
		} else if (tensors) {
			rc = attr_tensor(L, f, kind == 't', &a->u.tensors[k]);
		} else if (kind == 'b') {
			rc = pbtxt_bool(L->doc, f, &b, L->d);
			a->u.ints[k] = b;
		} else {
			rc = pbtxt_int(L->doc, f, &a->u.ints[k], L->d);
		}
		if (rc)
			return -1;
		k++;
	}
	return 0;
}

/* A ListValue: 1 when a got a value, 0 when its kind has none in the IR. */
static int attr_list(ge_loader *L, const pbtxt_node *list, fd_attr *a)
{
	if (pbtxt_message(L->doc, list, L->d))
		return -1;
	const pbtxt_node *vt = pbtxt_find(list, "val_type");
	int64_t type = 0;
	if (vt && pbtxt_enum(L->doc, vt, list_types, (int)(sizeof list_types / sizeof *list_types), &type, L->d))
		return -1;
	const char *field = type > 0 && type < (int64_t)(sizeof list_field / sizeof *list_field) ? list_field[type] : NULL;
	if (type > 0 && !field)
		return 0;   /* bytes, graphs, named attrs */
	size_t n = 0;
	for (size_t k = 0; !field && k < sizeof list_fields_ir / sizeof *list_fields_ir; k++)
		if (nth_field(list, list_fields_ir[k], &n))
			field = list_fields_ir[k];
	if (!field) {   /* an empty list of no stated kind */
		a->type = ATTR_INTS;
		a->count = 0;
		return 1;
	}
	nth_field(list, field, &n);
	return list_entries(L, list, field, n, a) ? -1 : 1;
}

/* An AttrDef's value (the last of its oneof wins): 1 when a got it, 0 when
 * its kind has none in the IR (or it holds nothing), -1 on error. */
static int attr_value(ge_loader *L, const pbtxt_node *value, fd_attr *a)
{
	static const char *const oneof[] = { "s", "i", "f", "b", "bt", "list", "func", "td", "t", "g",
	                                     "list_list_int", "dt", "list_list_float", "expression" };
	const pbtxt_node *v = NULL;
	for (const pbtxt_node *f = value->first; f; f = f->next)
		for (size_t k = 0; k < sizeof oneof / sizeof *oneof; k++)
			if (!strcmp(f->name, oneof[k]))
				v = f;
	if (!v)
		return 0;
	const char *w = v->name;
	bool b;
	a->count = 1;
	if (!strcmp(w, "s") || !strcmp(w, "expression")) {
		a->type = ATTR_STRING;
		if (pbtxt_string(L->doc, v, &a->u.s, NULL, L->d))
			return -1;
		a->u.s = copy_string(L, v);
		return 1;
	}
	if (!strcmp(w, "i") || !strcmp(w, "dt")) {
		a->type = ATTR_INT;
		return pbtxt_int(L->doc, v, &a->u.i, L->d) ? -1 : 1;
	}
	if (!strcmp(w, "f")) {
		a->type = ATTR_FLOAT;
		return pbtxt_float(L->doc, v, &a->u.f, L->d) ? -1 : 1;
	}
	if (!strcmp(w, "b")) {
		a->type = ATTR_INT;
		if (pbtxt_bool(L->doc, v, &b, L->d))
			return -1;
		a->u.i = b;
		return 1;
	}
	if (!strcmp(w, "td") || !strcmp(w, "t")) {
		a->type = ATTR_TENSOR;
		return attr_tensor(L, v, w[1] == '\0' && w[0] == 't', &a->u.t) ? -1 : 1;
	}
	if (!strcmp(w, "list"))
		return attr_list(L, v, a);
	const char *bytes;   /* no IR kind: only checked to be of its own kind */
	if (!strcmp(w, "bt"))
		return pbtxt_string(L->doc, v, &bytes, NULL, L->d) ? -1 : 0;
	return pbtxt_message(L->doc, v, L->d) ? -1 : 0;
}

static fd_name_list name_list(ge_loader *L, const fd_attr *a)
{
	fd_name_list l = { 0, NULL };
	if (a->type == ATTR_STRING) {
		l.items = arena_alloc(&L->m->arena, sizeof *l.items);
		l.items[0] = strpool_intern(&L->m->names, a->u.s);
		l.n = 1;
	} else if (a->type == ATTR_STRINGS && a->count > 0) {
		l.items = arena_array(&L->m->arena, (size_t)a->count, sizeof *l.items);
		for (int64_t k = 0; k < a->count; k++)
			l.items[k] = strpool_intern(&L->m->names, a->u.strings[k]);
		l.n = (int32_t)a->count;
	}
	return l;
}

/* What the compiler recorded, from the attributes that say it. */
static void record(ge_loader *L, const fd_attr *a, fd_node_origin *o)
{
	const char *n = a->name;
	if (!strcmp(n, "fusion_scope") && a->type == ATTR_INT) {
		o->has_fusion_scope = true;
		o->fusion_scope = a->u.i;
	} else if (!strcmp(n, "fusion_failed") && a->type == ATTR_INT) {
		o->has_fusion_failed = true;
		o->fusion_failed = a->u.i;
	} else if (!strcmp(n, "pass_name_ub") && a->type == ATTR_STRING) {
		o->pass_name_ub = strpool_intern(&L->m->names, a->u.s);
	} else if (!strcmp(n, "_datadump_original_op_names")) {
		o->original_names = name_list(L, a);
	} else if (!strcmp(n, "_datadump_original_op_types")) {
		o->original_types = name_list(L, a);
	} else if (!strcmp(n, "pass_name")) {
		o->pass_names = name_list(L, a);
	}
}

int ge_attrs_read(ge_loader *L, const pbtxt_node *op, fd_node *node, fd_node_origin *origin)
{
	size_t n = 0;
	nth_field(op, "attr", &n);
	node->attrs = n ? arena_array(&L->m->arena, n, sizeof *node->attrs) : NULL;
	node->n_attrs = 0;
	strmap seen;   /* key → index in node->attrs */
	strmap_init(&seen);
	int rc = 0;
	for (const pbtxt_node *f = op->first; f && !rc; f = f->next) {
		if (strcmp(f->name, "attr"))
			continue;
		const pbtxt_node *key = NULL, *value = NULL;
		const char *k = "";
		if ((rc = pbtxt_message(L->doc, f, L->d)))
			break;
		key = pbtxt_find(f, "key");
		value = pbtxt_find(f, "value");
		if (key && (rc = pbtxt_string(L->doc, key, &k, NULL, L->d)))
			break;
		if (value && (rc = pbtxt_message(L->doc, value, L->d)))
			break;
		k = key ? strpool_internn(&L->m->names, key->text, strnlen(key->text, key->len)) : strpool_intern(&L->m->names, "");
		fd_attr a = { .name = k };
		int got = value ? attr_value(L, value, &a) : 0;
		if (got < 0) {
			rc = -1;
			break;
		}
		if (!got)
			continue;
		int32_t i = strmap_put(&seen, k, node->n_attrs);
		if (i == node->n_attrs)
			node->n_attrs++;
		node->attrs[i] = a;
	}
	strmap_release(&seen);
	if (rc)
		return -1;
	for (int32_t i = 0; i < node->n_attrs; i++)
		record(L, &node->attrs[i], origin);
	return 0;
}
