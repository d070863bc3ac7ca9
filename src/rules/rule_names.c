/* rule_names.c — the names of the typed rule's lists (rules.h): source types. */
#include <assert.h>
#include <string.h>
#include "rules/rules.h"

#define countof(a) (sizeof(a) / sizeof((a)[0]))

static const char *const source_type_names[] = {
	[SRC_UNSET] = "unset",
#define NAME(id, name) [SRC_##id] = name,
	FD_SOURCE_TYPES(NAME)
#undef NAME
};
static_assert(countof(source_type_names) == SRC_COUNT, "a name for every source type");

/* The index of name s in names[1..n), else 0 (unset). */
static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 1; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return 0;
}

const char *rules_source_type_name(fd_source_type t)
{
	return t >= 0 && t < SRC_COUNT ? source_type_names[t] : "unset";
}

fd_source_type rules_source_type_from_name(const char *s)
{
	return (fd_source_type)name_index(source_type_names, SRC_COUNT, s);
}

