/* rule_format.c — the rule format's fields (rule_format.h) and the names of
 * its source types and constraint types (rules.h): the tables, and the
 * lookups over them. The order of the fields is the format's: it is the
 * order of the keys a message lists as known. */
#include "ruleset/rule_format.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "base/nearest.h"

#define countof(a) (sizeof(a) / sizeof((a)[0]))

/* FIELD(path, type, edit, constraint type): edit says whether a what-if may
 * set it; the constraint type is that of the constraints a field belongs to
 * (ANY: every type). */
#define FIELD(path, type, edit, kind) { path, FT_##type, edit, CONSTRAINT_##kind }
#define CONSTRAINT_ANY CONSTRAINT_UNKNOWN

static const fd_field fields[] = {
	FIELD("version",                                    STR,    true,  ANY),
	FIELD("name",                                       STR,    false, ANY), /* renaming a rule is not a what-if */
	FIELD("priority",                                   INT,    true,  ANY),
	FIELD("enabled",                                    BOOL,   true,  ANY),
	FIELD("scope",                                      LIST,   true,  ANY),
	FIELD("description",                                STR,    true,  ANY),
	FIELD("match.ops.#.type",                           OPTYPE, true,  ANY),
	FIELD("match.ops.#.params.*",                       PARAM,  true,  ANY),
	FIELD("match.ops.#.inputs.min_inputs",              UINT,   true,  ANY),
	FIELD("match.ops.#.inputs.max_inputs",              UINT,   true,  ANY),
	FIELD("match.ops.#.input_sources.*.from_op",        UINT,   true,  ANY),
	FIELD("match.ops.#.input_sources.*.source_type",    SOURCE, true,  ANY),
	FIELD("match.ops.#.input_sources.*.same_as",        SAMEAS, true,  ANY),
	FIELD("match.ops.#.input_sources.*.same_as.op",     UINT,   true,  ANY),
	FIELD("match.ops.#.input_sources.*.same_as.input",  UINT,   true,  ANY),
	FIELD("match.ops.#.input_sources.*.position",       POSITION, true, ANY),
	FIELD("match.ops.#.input_sources.*.optional",       BOOL,   true,  ANY),
	FIELD("match.ops.#.input_sources.*.rank",           INTS,   true,  ANY),
	FIELD("match.ops.#.input_sources.*.shape",          SHAPE,  true,  ANY),
	FIELD("match.ops.#.input_sources.*.static",         BOOL,   true,  ANY),
	FIELD("match.ops.#.input_sources.*.dtype",          DTYPES, true,  ANY),
	FIELD("match.ops.#.input_sources.*.value",          NUMBERS, true, ANY),
	FIELD("match.ops.#.input_sources.*.tolerance",      NUMBER, true,  ANY),
	FIELD("match.ops.#.output_names",                   LIST,   true,  ANY),
	FIELD("match.ops.#.optional",                       BOOL,   true,  ANY),
	FIELD("match.ops.#.outputs.graph_output",           BOOL,   true,  ANY),
	FIELD("match.ops.#.outputs.min_consumers",          UINT,   true,  ANY),
	FIELD("match.ops.#.outputs.max_consumers",          UINT,   true,  ANY),
	FIELD("match.ops.#.where",                          EXPR,   true,  ANY),
	FIELD("match.subgraph.input_count_range",           RANGE,  true,  ANY),
	FIELD("match.subgraph.output_count",                UINT,   true,  ANY),
	FIELD("match.subgraph.allow_intermediate_outputs",  BOOL,   true,  ANY),
	FIELD("match.branches.#.ops",                       LIST,   false, ANY), /* its ops are match.ops.#'s fields */
	FIELD("rewrite.target_op",                          STR,    true,  ANY),
	FIELD("rewrite.inputs.#.from_op",                   UINT,   true,  ANY),
	FIELD("rewrite.inputs.#.output_idx",                UINT,   true,  ANY),
	FIELD("rewrite.inputs.#.input_port",                UINT,   true,  ANY),
	FIELD("rewrite.inputs.#.description",               STR,    true,  ANY),
	FIELD("rewrite.attributes.*",                       ANY,    true,  ANY), /* tile_policy, chunk_size, …: the schema's */
	FIELD("rewrite.tensor_layout",                      STR,    true,  ANY),
	FIELD("rewrite.kernel_config.*",                    ANY,    true,  ANY),
	FIELD("constraints.#.type",                         STR,    false, ANY),
	FIELD("constraints.#.description",                  STR,    true,  ANY),
	FIELD("constraints.#.allowed_dtypes",               LIST,   true,  DTYPE_MATCH),
	FIELD("constraints.#.max_intermediate_size",        BYTES,  true,  MEMORY_LIMIT),
	FIELD("constraints.#.max_output_size",              BYTES,  true,  MEMORY_LIMIT),
	FIELD("constraints.#.max_workspace",                BYTES,  true,  WORKSPACE_SIZE),
	FIELD("constraints.#.spill_to_l2",                  BOOL,   true,  WORKSPACE_SIZE),
	FIELD("constraints.#.channel_dim",                  INT,    true,  CHANNEL_DIVISIBILITY),
	FIELD("constraints.#.divisor",                      POSINT, true,  CHANNEL_DIVISIBILITY),
	FIELD("output.kernel_name",                         STR,    true,  ANY),
	FIELD("output.file_path",                           STR,    true,  ANY),
	FIELD("output.compiler",                            STR,    true,  ANY),
	FIELD("output.build_config.*",                      ANY,    true,  ANY),
	FIELD("output.debug_symbols",                       BOOL,   true,  ANY),
	FIELD("output.gen_dot_graph",                       BOOL,   true,  ANY),
	FIELD("output.dot_graph_path",                      STR,    true,  ANY),
	FIELD("pass",                                       UINT,   true,  ANY), /* rounds: the pass order */
};
#undef CONSTRAINT_ANY
#undef FIELD


static const char *const type_words[] = {
#define WORDS(id, words) [FT_##id] = words,
	FD_FIELD_TYPES(WORDS)
#undef WORDS
};
static_assert(countof(type_words) == FT_COUNT, "words for every field type");

const char *field_type_words(fd_field_type t)
{
	return t < FT_COUNT ? type_words[t] : "";
}

/* ---- names ----------------------------------------------------------------- */

static const char *const source_type_names[] = {
	[SRC_UNSET] = "unset",
#define NAME(id, name) [SRC_##id] = name,
	FD_SOURCE_TYPES(NAME)
#undef NAME
};
static_assert(countof(source_type_names) == SRC_COUNT, "a name for every source type");

static const char *const constraint_kind_names[] = {
	[CONSTRAINT_UNKNOWN] = "unknown",
#define NAME(id, name) [CONSTRAINT_##id] = name,
	FD_CONSTRAINT_KINDS(NAME)
#undef NAME
};
static_assert(countof(constraint_kind_names) == CONSTRAINT_KIND_COUNT, "a name for every constraint type");

/* The index of name s in names[1..n), else 0 (unset, unknown). */
static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 1; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return 0;
}

const char *source_type_name(fd_source_type t)
{
	return t >= 0 && t < SRC_COUNT ? source_type_names[t] : "unset";
}

fd_source_type source_type_from_name(const char *s)
{
	return (fd_source_type)name_index(source_type_names, SRC_COUNT, s);
}

const char *constraint_kind_name(fd_constraint_kind k)
{
	return k >= 0 && k < CONSTRAINT_KIND_COUNT ? constraint_kind_names[k] : "unknown";
}

fd_constraint_kind constraint_kind_from_name(const char *s)
{
	return (fd_constraint_kind)name_index(constraint_kind_names, CONSTRAINT_KIND_COUNT, s);
}

/* ---- lookups ------------------------------------------------------------- */

static bool segment_matches(const char *pat, size_t plen, const char *seg, size_t slen, bool in_constraints)
{
	if (plen == 1 && pat[0] == '*')
		return slen > 0;
	if (plen == 1 && pat[0] == '#') {
		if (in_constraints)
			return slen > 0;
		for (size_t i = 0; i < slen; i++)
			if (seg[i] < '0' || seg[i] > '9')
				return false;
		return slen > 0;
	}
	return plen == slen && !memcmp(pat, seg, plen);
}

static bool path_matches(const char *pat, const char *path)
{
	bool in_constraints = !strncmp(path, "constraints.", 12);
	for (;;) {
		const char *pe = strchr(pat, '.'), *se = strchr(path, '.');
		size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), sl = se ? (size_t)(se - path) : strlen(path);
		if (!segment_matches(pat, pl, path, sl, in_constraints))
			return false;
		if (!pe || !se)
			return !pe && !se;
		pat = pe + 1;
		path = se + 1;
	}
}

const fd_field *rule_field(const char *path)
{
	char buf[512];
	int b, off = 0;
	/* "match.branches.B.ops.…" reads as "match.ops.…" */
	if (sscanf(path, "match.branches.%d.%n", &b, &off) == 1 && off > 0 && !strncmp(path + off, "ops.", 4)) {
		snprintf(buf, sizeof buf, "match.%s", path + off);
		path = buf;
	}
	for (size_t i = 0; i < countof(fields); i++)
		if (path_matches(fields[i].path, path))
			return &fields[i];
	return NULL;
}

/* The key of the section that field path p leads through, or NULL (its
 * length in *klen). */
static const char *key_in(const char *p, const char *section, size_t len, size_t *klen)
{
	if (len && (strncmp(p, section, len) || p[len] != '.'))
		return NULL;
	const char *key = len ? p + len + 1 : p;
	*klen = strcspn(key, ".");
	return key;
}

const fd_field *rule_field_key(const char *section, const char *key)
{
	size_t len = strlen(section), klen;
	for (size_t i = 0; i < countof(fields); i++) {
		const char *k = key_in(fields[i].path, section, len, &klen);
		if (k && klen == strlen(key) && !strncmp(k, key, klen))
			return &fields[i];
	}
	return NULL;
}

const char *rule_field_keys(const char *section, char *buf, size_t size)
{
	size_t len = strlen(section), klen, used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < countof(fields); i++) {
		const char *k = key_in(fields[i].path, section, len, &klen);
		char key[64];
		snprintf(key, sizeof key, "%.*s", k ? (int)klen : 0, k ? k : "");
		if (!k || rule_field_key(section, key) != &fields[i])
			continue;   /* not in the section, or not the key's first field */
		if (used + klen + 3 < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", key);
	}
	return buf;
}

/* ---- did you mean --------------------------------------------------------- */

/* Pattern pat with path's segments where it has '#' or '*' (same segment
 * count), into out; false when the counts differ. */
static bool instantiate(const char *pat, const char *path, char *out, size_t size)
{
	size_t used = 0;
	for (;;) {
		const char *pe = strchr(pat, '.'), *se = strchr(path, '.');
		size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), sl = se ? (size_t)(se - path) : strlen(path);
		bool wild = pl == 1 && (pat[0] == '#' || pat[0] == '*');
		int w = snprintf(out + used, size - used, "%s%.*s", used ? "." : "", (int)(wild ? sl : pl), wild ? path : pat);
		if (w < 0 || (size_t)w >= size - used)
			return false;
		used += (size_t)w;
		if (!pe || !se)
			return !pe && !se;
		pat = pe + 1;
		path = se + 1;
	}
}

char *rule_field_nearest(const char *path, char *buf, size_t size)
{
	/* match.branches.B.ops.… is offered as the match.ops.… fields under that branch */
	char lead[64] = "", tail[512];
	int b, off = 0;
	const char *rest = path;
	if (sscanf(path, "match.branches.%d.%n", &b, &off) == 1 && off > 0 && !strncmp(path + off, "ops.", 4)) {
		snprintf(lead, sizeof lead, "match.branches.%d.", b);
		snprintf(tail, sizeof tail, "match.%s", path + off);
		rest = tail;
	}
	char cand[countof(fields)][512];
	fd_nearest nn;
	nearest_init(&nn, path);
	/* a typo is in one segment: near is what nearest.h allows for the longest */
	int longest = 0;
	for (const char *p = path; *p;) {
		int l = (int)strcspn(p, ".");
		longest = l > longest ? l : longest;
		p += l + (p[l] == '.');
	}
	nn.limit = longest / 3 > 2 ? longest / 3 : 2;
	nn.best = nn.limit + 1;
	/* constraints.memory_limit.…: only memory_limit's fields */
	fd_constraint_kind kind = CONSTRAINT_UNKNOWN;
	if (!strncmp(rest, "constraints.", 12)) {
		char seg[64];
		snprintf(seg, sizeof seg, "%.*s", (int)strcspn(rest + 12, "."), rest + 12);
		kind = constraint_kind_from_name(seg);
	}
	for (size_t i = 0; i < countof(fields); i++) {
		char one[512];
		if (!fields[i].edit || !instantiate(fields[i].path, rest, one, sizeof one) ||
		    (kind != CONSTRAINT_UNKNOWN && fields[i].kind != CONSTRAINT_UNKNOWN && fields[i].kind != kind))
			continue;
		if (rest == tail)
			snprintf(cand[i], sizeof cand[i], "%s%s", lead, one + strlen("match."));
		else
			snprintf(cand[i], sizeof cand[i], "%s", one);
		nearest_add(&nn, cand[i]);
	}
	return nearest_list(&nn, buf, size);
}
