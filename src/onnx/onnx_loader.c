/* onnx_loader.c — the loader's working state (onnx_loader.h): interned
 * names, tensors by name in each graph being built (the main graph's index
 * is an array by string id), and the graph indices reserved for bodies.
 * It calls nothing else of the loader, so that onnx_node.c and onnx_load.c
 * both build on it. */
#include <string.h>
#include "onnx/onnx_loader.h"

const char *onnx_loader_intern(loader *L, const char *s)
{
	return strpool_intern(&L->m->names, S(s));
}

const char *onnx_loader_internv(loader *L, onnx_str s)
{
	return strpool_internn(&L->m->names, s.s, s.n);
}

int32_t onnx_loader_tensor_find(loader *L, int32_t gi, onnx_str name)
{
	if (gi)
		return strmap_getn(&L->graphs.items[gi].tensor_by_name, name.s, strnlen(name.s, name.n));
	int32_t id = strpool_find(&L->m->names, name.s, name.n);
	return id >= 0 && (size_t)id < L->main_tensor.n ? L->main_tensor.items[id] : FD_NONE;
}

static int32_t tensor_new(loader *L, int32_t gi, const char *name, fd_tensor_kind kind)
{
	graph_build *b = &L->build.items[gi];
	fd_tensor x = {
		.name = name, .kind = (uint8_t)kind, .dtype = DT_UNDEFINED, .shape = { -1, NULL },
		.producer = FD_NONE, .producer_port = FD_NONE, .outer = FD_NONE,
	};
	int32_t t = (int32_t)b->tensors.n;
	vec_push(&b->tensors, x);
	return t;
}

/* The main graph's slot for string id, the index grown to the pool's size. */
static int32_t *main_slot(loader *L, int32_t id)
{
	size_t n = L->main_tensor.n;
	if ((size_t)id >= n) {
		size_t want = L->m->names.n > (size_t)id ? L->m->names.n : (size_t)id + 1;
		vec_grow(&L->main_tensor, want);
		for (size_t i = n; i < want; i++)
			L->main_tensor.items[i] = FD_NONE;
		L->main_tensor.n = want;
	}
	return &L->main_tensor.items[id];
}

int32_t onnx_loader_tensor_add(loader *L, int32_t gi, onnx_str name, fd_tensor_kind kind)
{
	if (!gi) {
		int32_t id = strpool_id(&L->m->names, name.s, name.n);
		int32_t *slot = main_slot(L, id);
		return *slot >= 0 ? FD_NONE : (*slot = tensor_new(L, 0, strpool_str(&L->m->names, id), kind));
	}
	if (onnx_loader_tensor_find(L, gi, name) >= 0)
		return FD_NONE;
	int32_t t = tensor_new(L, gi, onnx_loader_internv(L, name), kind);
	strmap_put(&L->graphs.items[gi].tensor_by_name, loader_tensor(L, gi, t)->name, t);
	return t;
}

/* The main graph's tensor named by string id, created when new. */
static int32_t main_tensor_get(loader *L, int32_t id)
{
	int32_t *slot = main_slot(L, id);
	if (*slot < 0)
		*slot = tensor_new(L, 0, strpool_str(&L->m->names, id), TENSOR_ACTIVATION);
	return *slot;
}

int32_t onnx_loader_tensor_get(loader *L, int32_t gi, onnx_str name)
{
	if (gi) {
		int32_t t = onnx_loader_tensor_find(L, gi, name);
		return t >= 0 ? t : onnx_loader_tensor_add(L, gi, name, TENSOR_ACTIVATION);
	}
	return main_tensor_get(L, strpool_id(&L->m->names, name.s, name.n));
}

void onnx_loader_node_tensors(loader *L, int32_t gi, const onnx_str *names, size_t n, int32_t *ids)
{
	if (gi) {
		for (size_t i = 0; i < n; i++)
			ids[i] = onnx_str_empty(names[i]) ? FD_NONE : onnx_loader_tensor_get(L, gi, names[i]);
		return;
	}
	strpool_view_ids(&L->m->names, names, n, ids);   /* the main graph's: all names at once */
	for (size_t i = 0; i < n; i++)
		ids[i] = onnx_str_empty(names[i]) ? FD_NONE : main_tensor_get(L, ids[i]);
}

int32_t onnx_loader_body(loader *L, int32_t parent, int32_t node, const char *attr, const Onnx__GraphProto *proto)
{
	fd_graph g = { 0 };
	g.index = (int32_t)L->graphs.n;
	g.parent = parent;
	g.owner_node = node;
	g.owner_attr = attr;
	g.depth = L->graphs.items[parent].depth + 1;
	g.name = onnx_loader_intern(L, proto ? proto->name : "");
	graph_build b = { 0 };
	static const Onnx__GraphProto empty = ONNX__GRAPH_PROTO__INIT;
	b.src.proto = proto ? proto : &empty;
	vec_push(&L->graphs, g);
	vec_push(&L->build, b);
	return g.index;
}
