/* names.c — "did you mean" for the names a user gives of a run: a rule, a
 * node, a reason code (base/nearest.h does the measuring). Each returns the
 * " (did you mean …?)" tail of a message, or "". */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "base/nearest.h"
#include "explain/explain.h"

char *explain_rule_hint(const fd_ruleset *rs, const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int32_t i = 0; i < rs->n_rules; i++)
		nearest_add(&nn, rs->rules[i].name);
	return nearest_hint(&nn, buf, size);
}

/* How much of typed appears in name in order (the longest common
 * subsequence, case-insensitive; typed's first 255 bytes). */
static int common_run(const char *typed, const char *name)
{
	int row[256] = { 0 };
	size_t lt = strlen(typed);
	if (lt > 255)
		lt = 255;
	for (const char *p = name; *p; p++) {
		int diag = 0;   /* row[j] of the previous name byte, before this one wrote it */
		for (size_t j = 1; j <= lt; j++) {
			int up = row[j];
			if (tolower((unsigned char)*p) == tolower((unsigned char)typed[j - 1]))
				row[j] = diag + 1;
			else if (row[j - 1] > row[j])
				row[j] = row[j - 1];
			diag = up;
		}
	}
	return row[lt];
}

/* The NEAREST_MAX node names that hold most of what was typed, however far
 * for did-you-mean: exporter names are long and share their prefixes, so a
 * name typed from memory ("/0/ln1/ReduceMean" for
 * "/blocks/blocks.0/ln1/ReduceMean") is rarely near enough, yet the names
 * that hold it are what the user was after. Ties go to the shorter edit
 * distance, then to the order of the model. */
static char *closest_nodes(const fd_model *m, const char *typed, char *buf, size_t size)
{
	const char *best[NEAREST_MAX] = { 0 };
	int score[NEAREST_MAX][2], n_best = 0;
	for (int32_t g = 0; g < m->n_graphs; g++)
		for (int32_t n = 0; n < m->graphs[g].n_nodes; n++) {
			const char *name = m->graphs[g].nodes[n].name;
			if (!name || !*name)
				continue;
			int common = common_run(typed, name), dist = nearest_distance(typed, name), k = n_best;
			while (k > 0 && (score[k - 1][0] < common || (score[k - 1][0] == common && score[k - 1][1] > dist)))
				k--;
			if (k >= NEAREST_MAX)
				continue;
			if (n_best < NEAREST_MAX)
				n_best++;
			for (int j = n_best - 1; j > k; j--) {
				best[j] = best[j - 1];
				score[j][0] = score[j - 1][0];
				score[j][1] = score[j - 1][1];
			}
			best[k] = name;
			score[k][0] = common;
			score[k][1] = dist;
		}
	buf[0] = 0;
	size_t at = 0;
	for (int k = 0; k < n_best && at < size; k++)
		at += (size_t)snprintf(buf + at, size - at, "%s'%s'%s", k ? "" : " (the closest names: ", best[k],
		                       k + 1 == n_best ? ")" : k + 2 == n_best ? " or " : ", ");
	return buf;
}

char *explain_node_hint(const fd_model *m, const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int32_t g = 0; g < m->n_graphs; g++)
		for (int32_t n = 0; n < m->graphs[g].n_nodes; n++)
			nearest_add(&nn, m->graphs[g].nodes[n].name);
	if (nn.n || !typed || !*typed)
		return nearest_hint(&nn, buf, size);
	return closest_nodes(m, typed, buf, size);
}

char *explain_reason_hint(const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int k = REASON_NONE + 1; k < REASON_COUNT; k++)
		nearest_add(&nn, reason_code((fd_reason)k));
	return nearest_hint(&nn, buf, size);
}
