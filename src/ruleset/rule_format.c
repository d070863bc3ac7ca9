/* rule_format.c — the rule format's fields (rule_format.h) and the names of
 * its source types (rules.h): the tables, and the lookups over them. The
 * order of the fields is the format's: it is the order of the keys a
 * message lists as known. (A constraint type's name is its condition's
 * key, match/conditions.h.) */
#include "ruleset/rule_format.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "base/nearest.h"
#include "match/conditions.h"

#define countof(a) (sizeof(a) / sizeof((a)[0]))

/* FIELD(path, type, edit): edit says whether a what-if may set it. The
 * conditions' fields come from their list (match/conditions.h), each scope
 * in its place in the format: a row's kind is its condition, COND_COUNT for
 * the fields that are no condition. */
#define FIELD(path, type, edit) { path, FT_##type, edit, COND_COUNT }
#define ROW_OP(id, path, type)         { "match.ops.#." path, FT_##type, true, COND_##id },
#define ROW_OP_EXT(id, path, type)     ROW_OP(id, path, type)
#define ROW_INPUT(id, path, type)      { "match.ops.#.input_sources.*." path, FT_##type, true, COND_##id },
#define ROW_CONSTRAINT(id, path, type) { "constraints.#." path, FT_##type, true, COND_##id },
#define ROW_NONE(id, path, type)
/* the rows of one scope: ROWS_OP expands the OP rows and nothing else */
#define ROWS_OP(id, scope, path, type)         ROW_IF_OP_##scope(id, path, type)
#define ROWS_OP_EXT(id, scope, path, type)     ROW_IF_OP_EXT_##scope(id, path, type)
#define ROWS_INPUT(id, scope, path, type)      ROW_IF_INPUT_##scope(id, path, type)
#define ROWS_CONSTRAINT(id, scope, path, type) ROW_IF_CONSTRAINT_##scope(id, path, type)
#define ROW_IF_OP_OP ROW_OP
#define ROW_IF_OP_OP_EXT ROW_NONE
#define ROW_IF_OP_INPUT ROW_NONE
#define ROW_IF_OP_CONSTRAINT ROW_NONE
#define ROW_IF_OP_EXT_OP ROW_NONE
#define ROW_IF_OP_EXT_OP_EXT ROW_OP_EXT
#define ROW_IF_OP_EXT_INPUT ROW_NONE
#define ROW_IF_OP_EXT_CONSTRAINT ROW_NONE
#define ROW_IF_INPUT_OP ROW_NONE
#define ROW_IF_INPUT_OP_EXT ROW_NONE
#define ROW_IF_INPUT_INPUT ROW_INPUT
#define ROW_IF_INPUT_CONSTRAINT ROW_NONE
#define ROW_IF_CONSTRAINT_OP ROW_NONE
#define ROW_IF_CONSTRAINT_OP_EXT ROW_NONE
#define ROW_IF_CONSTRAINT_INPUT ROW_NONE
#define ROW_IF_CONSTRAINT_CONSTRAINT ROW_CONSTRAINT

static const fd_field fields[] = {
	FIELD("version",                                    STR,    true),
	FIELD("name",                                       STR,    false), /* renaming a rule is not a what-if */
	FIELD("priority",                                   INT,    true),
	FIELD("enabled",                                    BOOL,   true),
	FIELD("scope",                                      LIST,   true),
	FIELD("description",                                STR,    true),
	FD_CONDITION_FIELDS(ROWS_OP)
	FD_CONDITION_FIELDS(ROWS_INPUT)
	FIELD("match.ops.#.output_names",                   LIST,   true),
	FD_CONDITION_FIELDS(ROWS_OP_EXT)
	FIELD("match.subgraph.input_count_range",           RANGE,  true),
	FIELD("match.subgraph.output_count",                UINT,   true),
	FIELD("match.subgraph.allow_intermediate_outputs",  BOOL,   true),
	FIELD("match.branches.#.ops",                       LIST,   false), /* its ops are match.ops.#'s fields */
	FIELD("rewrite.target_op",                          STR,    true),
	FIELD("rewrite.inputs.#.from_op",                   UINT,   true),
	FIELD("rewrite.inputs.#.output_idx",                UINT,   true),
	FIELD("rewrite.inputs.#.input_port",                UINT,   true),
	FIELD("rewrite.inputs.#.description",               STR,    true),
	FIELD("rewrite.attributes.*",                       ANY,    true), /* tile_policy, chunk_size, …: the schema's */
	FIELD("rewrite.tensor_layout",                      STR,    true),
	FIELD("rewrite.kernel_config.*",                    ANY,    true),
	FIELD("constraints.#.type",                         STR,    false),
	FIELD("constraints.#.description",                  STR,    true),
	FD_CONDITION_FIELDS(ROWS_CONSTRAINT)
	FIELD("output.kernel_name",                         STR,    true),
	FIELD("output.file_path",                           STR,    true),
	FIELD("output.compiler",                            STR,    true),
	FIELD("output.build_config.*",                      ANY,    true),
	FIELD("output.debug_symbols",                       BOOL,   true),
	FIELD("output.gen_dot_graph",                       BOOL,   true),
	FIELD("output.dot_graph_path",                      STR,    true),
	FIELD("pass",                                       UINT,   true), /* rounds: the pass order */
};
#undef FIELD

static const char *const type_words[] = {
#define WORDS(id, words) [FT_##id] = words,
	FD_FIELD_TYPES(WORDS)
#undef WORDS
};
static_assert(countof(type_words) == FT_COUNT, "words for every field type");

const char *rule_field_type_words(fd_field_type t)
{
	return t < FT_COUNT ? type_words[t] : "";
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
	int kind = COND_COUNT;
	if (!strncmp(rest, "constraints.", 12)) {
		char seg[64];
		snprintf(seg, sizeof seg, "%.*s", (int)strcspn(rest + 12, "."), rest + 12);
		kind = cond_by_key(SCOPE_CONSTRAINT, seg);
	}
	for (size_t i = 0; i < countof(fields); i++) {
		char one[512];
		if (!fields[i].edit || !instantiate(fields[i].path, rest, one, sizeof one) ||
		    (kind != COND_COUNT && fields[i].kind != COND_COUNT && fields[i].kind != kind))
			continue;
		if (rest == tail)
			snprintf(cand[i], sizeof cand[i], "%s%s", lead, one + strlen("match."));
		else
			snprintf(cand[i], sizeof cand[i], "%s", one);
		nearest_add(&nn, cand[i]);
	}
	return nearest_list(&nn, buf, size);
}
