/* diagnose.h — `fusiondbg diagnose`: the checks of CANN's fusion_diagnose
 * script, done against a model (fusiondbg(1), DIAGNOSE), one row each:
 *   dtype      per rule: its dtype_match against the dtypes of the model's
 *              tensors where it matched (the matches it rejected and why,
 *              what its fusions carry); without one, a warning, as the
 *              script gives;
 *   memory     per rule and limit (memory_limit max_intermediate_size /
 *              max_output_size, workspace_size max_workspace): the fusions
 *              it rejects, found by running the rules again with the memory
 *              limits lifted, what each needs and the limit value that lets
 *              them all fire — and whether one would then pass the seed's
 *              512 MiB kernel-peak advice (--peak-warn); without a model,
 *              the script's check (a limit of 64 MiB or more is large);
 *   peak       per rule that fired: its fusions' kernel peaks against the
 *              same threshold, with the advice (estimate.h);
 *   cache      the JIT kernel cache (~/.cann/kernel_cache or --cache-dir):
 *              files, bytes, and files older than 7 days (they make the JIT
 *              compile again);
 *   numerical  the commands that compare the fused and the baseline model
 *              on the device (they cannot run here).
 * A row is ok, info or warn; `diagnose` exits 1 when any warns.
 *
 * Ownership: an fd_diagnosis owns its rows and their text (arena). */
#ifndef FD_DIAGNOSE_H
#define FD_DIAGNOSE_H
#include <stdint.h>
#include <stdio.h>
#include "base/vec.h"
#include "estimate/estimate.h"
#include "rounds/rounds.h"

#define DIAGNOSE_CACHE_DIR "~/.cann/kernel_cache"
#define DIAGNOSE_CACHE_AGE ((int64_t)7 * 86400)   /* the script's "expired": older than 7 days */
#define DIAGNOSE_LARGE_LIMIT ((int64_t)64 << 20)  /* the script's "large" limit, no model given */

#define FD_DG_STATUSES(X) X(OK, "ok") X(INFO, "info") X(WARN, "warn")

typedef enum fd_dg_status {
#define FD_DG_STATUS_ENUM(id, name) DG_##id,
	FD_DG_STATUSES(FD_DG_STATUS_ENUM)
#undef FD_DG_STATUS_ENUM
	DG_STATUS_COUNT
} fd_dg_status;

typedef struct fd_dg_row {
	const char *check;         /* "dtype", "memory", "peak", "cache", "numerical" */
	int32_t rule;              /* the rule, or -1 */
	fd_dg_status status;
	const char *message;       /* one line */
	/* memory: the limit (its field), what lets every rejected fusion fire (-1: none rejected) */
	const char *field;
	int64_t limit, needed;
	int32_t rejected;          /* memory, dtype: matches it rejects */
	/* cache */
	int64_t files, bytes, stale;
	const char *path;
	const char **commands;     /* numerical: the command lines, n_commands */
	int32_t n_commands;
} fd_dg_row;

typedef struct fd_diagnosis {
	fd_arena arena;
	VEC(fd_dg_row) rows;
	int32_t n_warn;
} fd_diagnosis;

/* What the checks read. With a model: its run (rounds, round 1's estimate)
 * and what is needed to run the rules again with the limits lifted. */
typedef struct fd_diagnose_input {
	const fd_ruleset *rules;
	const fd_rounds *rounds;           /* NULL: no model */
	const fd_estimate *est;            /* round 1's */
	const fd_match_options *mopt;
	const fd_rounds_options *ropt;
	const char *model_path;
	const char *cache_dir;             /* NULL: DIAGNOSE_CACHE_DIR ($HOME) */
	int64_t now;                       /* seconds since the epoch (the cache's ages) */
} fd_diagnose_input;

void diagnose_init(fd_diagnosis *dg);
void diagnose_release(fd_diagnosis *dg);
/* Every check, in the order above (per rule in load order). -1 + d when the
 * cache path exists but is not a directory (the row says so too). */
int  diagnose_run(fd_diagnosis *dg, const fd_diagnose_input *in, fd_diags *d);
/* "[warn] memory  Conv_Add_SiLU_Fusion: …" a line a row, then a summary. */
void diagnose_write_text(FILE *f, const fd_diagnosis *dg, const fd_ruleset *rs);
/* {"checks": [{"check", "rule", "status", "message", …}], "warnings": N} */
void diagnose_write_json(FILE *f, const fd_diagnosis *dg, const fd_ruleset *rs);

#endif
