/* cond_from_type.c — input_sources.inputK.from_type: [A, B]: the tensor is
 * made by a node of one of these op types (named as `type` names them),
 * which stays outside the match. onnxruntime's QDQ selectors read the
 * DequantizeLinear before a node this way without fusing it. A row of the
 * SOURCE event (cond_source.c begins and ends it): it fails with FD-NM04,
 * "input K comes from elsewhere". */
#include "match/conditions.h"
#include <stdio.h>
#include <string.h>
#include "base/text.h"
#include "match/match_internal.h"
#include "rules/optable.h"

bool cond_from_type_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	fd_input_source *is = at->input;
	const char **names;
	int n = schema_strings(s, v, path, &names);
	if (n <= 0) {
		ERR(s, v, "%s: expected an op type or a list of op types", path);
		return false;
	}
	is->from_types = arena_array(&s->rs->arena, (size_t)n, sizeof *is->from_types);
	is->from_type_names = names;
	for (int k = 0; k < n; k++) {
		int id = optable_lookup(names[k]);
		if (id < 0) {
			ERR(s, v->kind == YV_SEQ ? v->items[k] : v, "%s: unknown op type '%s'", path, names[k]);
			return false;
		}
		is->from_types[is->n_from_types++] = id;
	}
	return true;
}

/* "from a Conv2d | DequantizeLinear". */
void cond_from_type_describe(const fd_cond_check *c, char *buf, size_t size)
{
	size_t at = text_appendf(buf, size, 0, "from a ");
	for (int k = 0; k < c->input->n_from_types; k++)
		at = text_appendf(buf, size, at, "%s%s", k ? " | " : "", c->input->from_type_names[k]);
}

fd_reason cond_from_type_check(fd_cond_check *c, fd_cond_facts *f)
{
	const fd_input_source *src = c->input;
	if (cond_source_words(c, f, cond_from_type_describe))
		return REASON_NONE;   /* explaining: the event decides */
	int32_t p = c->g->tensors[c->tensor].producer;
	for (int k = 0; p >= 0 && k < src->n_from_types; k++)
		if (unit_is(c->ix, p, src->from_types[k]))
			return REASON_NONE;
	return REASON_NM04_SOURCE;
}
