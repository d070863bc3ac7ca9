/* rounds.h — rules over rules: a rule set run the way graph compilers run
 * their transformer loops (fusiondbg-rules(5), ROUNDS AND PASSES).
 *
 * A round is one match run (match.h) over one graph. After a round each of
 * its fusions becomes one fused node (fuse.h), and the graph with those
 * nodes in place of their members (ir/rewrite.h: rewrite_build_model) is
 * what the next round matches, so a rule whose op names another rule's
 * target_op (Conv_BN makes ConvBN, ConvBN_Relu matches ConvBN + Relu) fires
 * in a later round.
 *
 * Passes. Every rule belongs to one pass: its `pass:` key (0 when absent),
 * or, with a pass list file, the line that names it (line k: pass k; rules
 * the file does not name do not run). Passes run in ascending order, each
 * over the graph the pass before it left. Within a pass, rounds repeat —
 * like onnxruntime's "until nothing changes" loop for each optimisation
 * level — at most max_rounds times: round 1 of a pass runs every rule of
 * the pass; a later round runs the rules of the pass that have an op which
 * can match a node made in the round before (its type names that node's
 * op type: the op table's types, or a fused op type), since no other rule
 * can see anything new; the pass ends when that set is empty or a round
 * fires nothing. A pass whose last allowed round still fired has not
 * settled: `unsettled` names it and the rules that fired in that round.
 * A round that only re-fuses what the round before made (each fusion one
 * node the same rule made, into the same op type) changes nothing and
 * would repeat to max_rounds: the pass stops there, not settled, and
 * `repeated` says which round it was.
 * A rule set without rules that name a target_op therefore runs one round,
 * exactly as before.
 *
 * Ownership: an fd_rounds owns every round after the first (its model,
 * context and result), each round's fused nodes and the pass list. Round 1
 * matches the caller's context into the caller's result (so a caller that
 * knows nothing of rounds reads round 1 as it always read the run); keep
 * them, the rule set and the model alive while the rounds are read.
 * rounds_run clears and refills; rounds_release frees.
 *
 * Files: rounds.c the loop; passes.c the pass list; rounds_query.c what a
 * node of one round is in another (provenance), and the composed rewrite. */
#ifndef FD_ROUNDS_H
#define FD_ROUNDS_H
#include <stdbool.h>
#include <stdint.h>
#include "base/diag.h"
#include "base/vec.h"
#include "ir/rewrite.h"
#include "match/match.h"
#include "rules/rules.h"

#define ROUNDS_DEFAULT_MAX 10      /* onnxruntime's max_num_graph_transformation_steps */

typedef VEC(int32_t) fd_id_vec;

typedef struct fd_rounds_options {
	int max_rounds;                /* per pass; 0: ROUNDS_DEFAULT_MAX */
	const char *pass_file;         /* a pass list file, or NULL: the rules' pass keys */
} fd_rounds_options;

typedef struct fd_pass {
	const char *name;              /* "pass 2", or the file's label; "" for the one implicit pass */
	int64_t key;                   /* the pass: value, or the file's line number */
	int32_t n_rules;
	int32_t *rules;                /* rule indices, load order */
	int32_t first_round, n_rounds; /* its rounds: [first_round, first_round + n_rounds) (0-based) */
	bool settled;
} fd_pass;

typedef struct fd_round {
	int32_t number;                /* 1, 2, … across passes */
	int32_t pass;                  /* index in fd_rounds.passes */
	int32_t step;                  /* 1, 2, … within its pass */
	const fd_model *model;         /* the graph this round matched */
	const fd_match_ctx *ctx;
	fd_match_result *result;       /* round 1: the caller's */
	bool *ran;                     /* per rule: run in this round */
	fd_rewrite made;               /* its fusions as fused nodes of `model` (made.nodes[k].fusion), */
	int32_t *made_of;              /* and per fusion its index there: made when a later round needs
	                                * them, or by rounds_make_all; made_of NULL until then */
	fd_rewrite_map map;            /* round > 1 with built_own: its model's nodes ↔ the round before's */
	int32_t **made_by;             /* a later round of its pass: per graph and node, the rule whose
	                                * fusion made it in the round before, -1 (match.h: made_by);
	                                * NULL in a pass's first round */
	bool built;                    /* the model after it exists (a later round ran on it) */
	bool built_own;                /* own_model and own_ctx hold this round's graph (else it
	                                * shares the round before's: that round fused nothing) */
	/* round > 1 */
	fd_model own_model;
	fd_match_ctx own_ctx;
	fd_match_result own_result;
} fd_round;

typedef struct fd_rounds {
	const fd_ruleset *rules;
	int32_t n;
	fd_round **items;              /* stable pointers, round i + 1 at items[i] */
	int32_t n_passes;
	fd_pass *passes;
	int32_t *rule_pass;            /* per rule: pass index, -1 when the pass list leaves it out */
	const char *pass_file;         /* as given (NULL: pass keys) */
	int32_t max_rounds;
	bool settled;                  /* every pass settled */
	int32_t unsettled;             /* the first pass that did not, or -1 */
	fd_id_vec keep_firing;      /* rules that fired in its last round */
	int32_t repeated;              /* its last round only re-fused what the round before made
	                                * (the graph after it is the graph before it): that round's
	                                * number; 0 when it ran out of rounds */
	fd_arena arena;
	struct fd_fuse_names *names;   /* the fused nodes' nested attribute names (fuse.h) */
} fd_rounds;

void rounds_init(fd_rounds *rd);
void rounds_release(fd_rounds *rd);
/* Runs the rounds. ctx is round 1's context (built with rs's fused types:
 * match_ctx_init_types), first the caller's result for round 1; mopt
 * applies to every round (its run_rule is the driver's). -1 + d when the
 * pass list is unreadable or names an unknown rule (nothing ran) or a
 * rewritten graph could not be built (the rounds before it stand). Warnings
 * of the fused nodes a later round needed (fuse.h) go to d. */
int rounds_run(fd_rounds *rd, const fd_match_ctx *ctx, const fd_ruleset *rs, const fd_match_options *mopt,
               const fd_rounds_options *ropt, fd_match_result *first, fd_diags *d);

/* Makes every round's fused nodes (a later round made those it needed);
 * their warnings (fuse.h) go to d. rounds_final_rewrite needs them. */
void rounds_make_all(fd_rounds *rd, fd_diags *d);

/* ---- passes (passes.c) ----------------------------------------------------- */
/* Fills rd->passes and rd->rule_pass from the pass file or the pass keys. */
int rounds_make_passes(fd_rounds *rd, const fd_ruleset *rs, const char *pass_file, fd_diags *d);
/* Can a rule of rs match a node of op_type type (any op of any of its alternatives)? */
bool rounds_rule_sees(const fd_ruleset *rs, int32_t rule, const char *type);

/* ---- what a node is across rounds (rounds_query.c) ---------------------------
 * Nodes are named by round (1-based), graph and node index in that round's
 * model; graph indices are the same in every round. */
static inline const fd_round *rounds_get(const fd_rounds *rd, int32_t number)
{
	return number >= 1 && number <= rd->n ? rd->items[number - 1] : NULL;
}
/* The fused node of round `number - 1` that node `node` of round `number`
 * is, or NULL when it is a node of the round before kept as it was (then
 * *prev is that node) or number is 1 (*prev = node). */
const fd_fused_node *rounds_made_by(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node,
                                    int32_t *prev);
/* The original nodes (round 1's) a node of round `number` stands for, in
 * topological order of the original graph; returns the count (out gets them). */
size_t rounds_original_nodes(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node, fd_id_vec *out);
/* The node of round `number` that original node `node` is part of (itself
 * when nothing fused it before that round). FD_NONE when out of range. */
int32_t rounds_node_in(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node);
/* The final fused nodes over the original model: every fused node that no
 * later round fused again, its members the original nodes, its ports and
 * attributes as made (nested: see fuse.h), and for one made after round 1
 * "original_nodes" (STRINGS: the model's nodes it replaces, topological
 * order; its fused_nodes are the nodes of its round); after rounds_make_all. out
 * borrows names and attributes from rd: release it first. */
void rounds_final_rewrite(const fd_rounds *rd, fd_rewrite *out);
/* The final fusions (rounds_fusion_is_final) as one match result over the
 * model as loaded, for what reads fusions and not the trace (the memory and
 * cost estimates of the fused graph): each with its rule, its original
 * member nodes, and the inputs, outputs and intermediates they make over
 * the original graph; claims set, no trace, no units (anchor: the first
 * member node, n_ops 0). out is cleared and refilled; it refers to round
 * 1's context and the rules (release it with match_result_release). */
void rounds_final_result(const fd_rounds *rd, fd_match_result *out);
/* Fusions of every round: the total. */
size_t rounds_n_fusions(const fd_rounds *rd);
/* Fusion f of round `number` is final: no later round fused its node again. */
bool rounds_fusion_is_final(const fd_rounds *rd, int32_t number, size_t fusion);
/* Its original nodes, topological order (out gets them); returns the count. */
size_t rounds_fusion_originals(const fd_rounds *rd, int32_t number, size_t fusion, fd_id_vec *out);
/* One final fusion, as rounds_each_final hands it over. */
typedef struct fd_final_fusion {
	int32_t round;                 /* 1-based */
	size_t index;                  /* in that round's result */
	const fd_fusion *fusion;       /* there (its rule, graph, nodes of its round) */
	const int32_t *originals;      /* its original nodes, topological order; valid during the call */
	size_t n_originals;
} fd_final_fusion;
/* Calls visit for every final fusion: round by round, each round's in
 * result order — the one walk of what the rounds fused in the end. */
void rounds_each_final(const fd_rounds *rd, void (*visit)(const fd_final_fusion *f, void *arg), void *arg);

#endif
