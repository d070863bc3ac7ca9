/* nearest.c — the names nearest to a typed one (nearest.h). */
#include "base/nearest.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/arena.h"

static int lower(char c)
{
	return tolower((unsigned char)c);
}

/* Three rows of the optimal-string-alignment table, at most limit + 1 where
 * a caller only needs to know "more than limit" (cut). */
static int distance_cut(const char *a, size_t la, const char *b, size_t lb, int cut)
{
	if (la > lb + (size_t)cut || lb > la + (size_t)cut)
		return cut + 1;
	int stack[3 * (NEAREST_LONG + 1)];
	int *mem = lb < NEAREST_LONG ? stack : xmalloc(3 * (lb + 1) * sizeof *mem);
	int *two = mem, *prev = mem + lb + 1, *row = mem + 2 * (lb + 1);
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = (int)i;
		int low = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int cost = lower(a[i - 1]) != lower(b[j - 1]);
			int best = prev[j - 1] + cost;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]) &&
			    two[j - 2] + 1 < best)
				best = two[j - 2] + 1;
			row[j] = best;
			if (best < low)
				low = best;
		}
		int *t = two;
		two = prev;
		prev = row;
		row = t;
		if (low > cut) {   /* every later row is at least as far */
			if (mem != stack)
				free(mem);
			return cut + 1;
		}
	}
	int d = prev[lb];
	if (mem != stack)
		free(mem);
	return d;
}

/* Whether name holds typed, case-insensitive. */
static bool contains(const char *name, size_t len, const char *typed, size_t typed_len)
{
	for (size_t i = 0; i + typed_len <= len; i++)
		if (!strncasecmp(name + i, typed, typed_len))
			return true;
	return false;
}

int nearest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	return distance_cut(a, la, b, lb, (int)(la > lb ? la : lb));
}

void nearest_init(fd_nearest *nn, const char *typed)
{
	memset(nn, 0, sizeof *nn);
	nn->typed = typed ? typed : "";
	nn->typed_len = strlen(nn->typed);
	nn->limit = nn->typed_len >= 4 ? (int)nn->typed_len / 3 : 1;
	if (nn->typed_len >= 4 && nn->limit < 2)
		nn->limit = 2;
	nn->best = INT_MAX;
}

void nearest_add(fd_nearest *nn, const char *name)
{
	if (!name || !*name || !strcmp(name, nn->typed))
		return;
	size_t len = strlen(name);
	int d;
	/* a name holding the typed text whole (fuse/conv in /fuse/conv/Conv) is
	 * what was meant before any typo: shorter such names first */
	if (nn->typed_len >= 4 && contains(name, len, nn->typed, nn->typed_len))
		d = len - nn->typed_len > NEAREST_LONG ? NEAREST_LONG : (int)(len - nn->typed_len);
	else if ((d = distance_cut(nn->typed, nn->typed_len, name, len, nn->limit)) <= nn->limit)
		d += NEAREST_LONG + 1;
	else
		return;
	for (int i = 0; i < nn->n; i++)
		if (!strcasecmp(nn->names[i], name))   /* Conv2d and its alias Conv2D: one suggestion */
			return;
	if (nn->n && d > nn->best)
		return;
	if (!nn->n || d < nn->best) {
		nn->n = 0;
		nn->best = d;
	}
	if (nn->n < NEAREST_MAX)
		nn->names[nn->n++] = name;
}

char *nearest_list(const fd_nearest *nn, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; i < nn->n && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s'%s'", i == 0 ? "" : i == nn->n - 1 ? " or " : ", ",
		                       nn->names[i]);
	return buf;
}

char *nearest_hint(const fd_nearest *nn, char *buf, size_t size)
{
	char list[512];
	if (!nn->n) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	snprintf(buf, size, " (did you mean %s?)", nearest_list(nn, list, sizeof list));
	return buf;
}
