/* cli.h — batch commands: one file per command (cmd_*.c), shared option
 * parsing (options.c), and the helpers that print core results. The CLI owns
 * stdout/stderr; the core never prints. Exit codes: 0 ok, 1 findings, 2 bad
 * usage or unreadable input. */
#ifndef FD_CLI_H
#define FD_CLI_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "base/diag.h"
#include "ir/graph.h"
#include "onnx/onnx.h"

enum { EXIT_OK = 0, EXIT_FINDINGS = 1, EXIT_BAD_INPUT = 2 };

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_DOT, FORMAT_SVG, FORMAT_PNG } cli_format;

#define CLI_MAX_LIST 64

/* Every option any command accepts; each command says which it allows. */
typedef struct cli_options {
	const char *model;                  /* first positional for model commands */
	const char *positional[CLI_MAX_LIST];
	int n_positional;
	const char *rules[CLI_MAX_LIST];    /* -r / --rules, repeatable */
	int n_rules;
	fd_dim_binding dims[CLI_MAX_LIST];  /* --dim NAME=V */
	int n_dims;
	fd_dim_binding values[CLI_MAX_LIST];  /* --value NAME=V */
	int n_values;
	const char *input_shapes[CLI_MAX_LIST];  /* --input-shape "x:1,3,224,224;mask:1,128" */
	int n_input_shapes;
	const char *sets[CLI_MAX_LIST];     /* --set RULE.PATH=VALUE */
	int n_sets;
	const char *target;                 /* --target, default ai_core */
	const char *output;                 /* -o */
	const char *rule;                   /* --rule NAME */
	const char *node;                   /* --node / --around NODE */
	int depth;                          /* --depth K */
	cli_format format;                  /* --format text|json (export: dot|svg|png) */
	bool format_given;
	bool strict, verbose, trace, diff, after, near_misses, no_canonicalize;
	int initializers;                   /* --initializers onnx|constant: fd_init_policy, 0 unset */
	int shapes;                         /* --shapes full|onnx: fd_shapes_mode, 0 unset */
	bool differences;                   /* compare --differences */
	bool constants, fusion_dots;        /* export: --constants, --fusion-dots */
	int max_nodes;                      /* export: --max-nodes N */
	const char *dots_dir;               /* export: --dots-dir DIR */
	bool max_nodes_given;
	bool depth_given;                   /* --depth was written (export wants --around or --rule with it) */
	int max_side;                       /* export: --max-side PX */
	bool max_side_given;
	int limit;                          /* why: --limit N near-misses, 0 all (default 10) */
	int64_t peak_warn;                  /* --peak-warn BYTES, -1 default */
	int max_rounds;                     /* --max-rounds N, 0 default (rounds/rounds.h) */
	const char *passes;                 /* --passes FILE */
	const char *fusion_switch;          /* --fusion-switch FILE (CANN's fusion_switch.cfg) */
	const char *with;                   /* compare: --with OPTIMIZED.onnx | fusion_result.json */
	const char *cache_dir;              /* diagnose: --cache-dir DIR */
	bool tensors;                       /* info --tensors */
	const char *sweep;                  /* mem --sweep NAME=V,V,... */
	const char *memory_chart;           /* export --memory-chart FILE.svg|png */
	int top, max_ops, write;            /* suggest: --top N, --max-ops K, --write N (0 unset) */
	int max_heavy;                      /* suggest: --max-heavy N (0 unset) */
	bool float_ops;                     /* why --float: the ops a quantized model left in float */
	const char *baseline;               /* mem, export: --baseline FLOAT.onnx, the model before quantization */
	const char *against;                /* check: --against MODEL, the rules linted on a model */
	bool seed_only;                     /* check: --seed-only, every key beyond the article's format */
	const char *graph;                  /* compare --graph S_G: the graph of a fusion_result.json */
} cli_options;

/* Bits naming the options a command accepts: one bit of a cli_optbits each
 * (64 bits, so that a new option takes the next number, never a shared one). */
typedef uint64_t cli_optbits;
#define OPT_BIT(n) ((cli_optbits)1 << (n))
#define OPT_RULES          OPT_BIT(0)
#define OPT_DIM            OPT_BIT(1)
#define OPT_SET            OPT_BIT(2)
#define OPT_TARGET         OPT_BIT(3)
#define OPT_OUTPUT         OPT_BIT(4)
#define OPT_RULE           OPT_BIT(5)
#define OPT_NODE           OPT_BIT(6)
#define OPT_DEPTH          OPT_BIT(7)
#define OPT_FORMAT         OPT_BIT(8)
#define OPT_STRICT         OPT_BIT(9)
#define OPT_VERBOSE        OPT_BIT(10)
#define OPT_TRACE          OPT_BIT(11)
#define OPT_DIFF           OPT_BIT(12)
#define OPT_AFTER          OPT_BIT(13)
#define OPT_NEAR           OPT_BIT(14)
#define OPT_NOCANON        OPT_BIT(15)
#define OPT_PEAKWARN       OPT_BIT(16)
#define OPT_CONSTANTS      OPT_BIT(17)
#define OPT_FUSIONDOTS     OPT_BIT(18)
#define OPT_MAXNODES       OPT_BIT(19)
#define OPT_AROUND         OPT_BIT(20)
#define OPT_DOTSDIR        OPT_BIT(21)
#define OPT_INITS          OPT_BIT(22)
#define OPT_LIMIT          OPT_BIT(23)
#define OPT_MAXSIDE        OPT_BIT(24)
#define OPT_MAXROUNDS      OPT_BIT(25)
#define OPT_PASSES         OPT_BIT(26)
#define OPT_WITH           OPT_BIT(27)
#define OPT_CACHEDIR       OPT_BIT(28)
#define OPT_INPUTSHAPE     OPT_BIT(29)
#define OPT_TENSORS        OPT_BIT(30)
#define OPT_SWEEP          OPT_BIT(31)
#define OPT_MEMCHART       OPT_BIT(32)
#define OPT_TOP            OPT_BIT(33)
#define OPT_MAXOPS         OPT_BIT(34)
#define OPT_WRITE          OPT_BIT(35)
#define OPT_SHAPES         OPT_BIT(36)
#define OPT_DIFFERENCES    OPT_BIT(37)
#define OPT_VALUE          OPT_BIT(38)
#define OPT_FUSIONSWITCH   OPT_BIT(39)
#define OPT_FLOAT          OPT_BIT(40)
#define OPT_BASELINE       OPT_BIT(41)
#define OPT_MAXHEAVY       OPT_BIT(42)
#define OPT_GRAPH          OPT_BIT(43)
#define OPT_AGAINST        OPT_BIT(44)
#define OPT_SEEDONLY       OPT_BIT(45)
#define OPT_MODEL_COMMON (OPT_DIM | OPT_VALUE | OPT_INPUTSHAPE | OPT_TARGET | OPT_NOCANON | OPT_INITS | OPT_SHAPES)
/* every command that runs the rules: rounds and which rules are on */
#define OPT_ROUNDS       (OPT_MAXROUNDS | OPT_PASSES | OPT_FUSIONSWITCH)

/* The tails of the model commands' usage lines. */
#define CLI_USAGE_MODEL " [--target T] [--dim N=V] [--value N=V] [--input-shape SPEC] [--no-canonicalize] [--initializers onnx|constant] [--shapes full|onnx]"
#define CLI_USAGE_WHATIF " [--set RULE.PATH=VALUE]... [--diff]"
#define CLI_USAGE_ROUNDS " [--max-rounds N] [--passes FILE] [--fusion-switch FILE]"

/* Parses argv (after the command word). Prints a usage error and returns -1
 * on an unknown or disallowed option. */
int cli_parse(int argc, char **argv, cli_optbits allowed, const char *usage, cli_options *o);
/* "fusiondbg: WHAT\nusage: USAGE" on stderr (fmt as printf). Returns -1. */
int cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What a command that reads one MODEL takes and must be given. */
typedef struct cli_command_spec {
	const char *usage;
	cli_optbits allowed;   /* OPT_* it accepts */
	cli_optbits required;  /* OPT_RULE / OPT_OUTPUT it must be given */
	const char *needs;     /* the usage error otherwise: "why needs one MODEL and --rule NAME" */
	bool events;           /* a session command: keep the trace events (why, --trace) */
	bool estimates_json;   /* its text (without --diff) shows no estimate: the run makes none */
} cli_command_spec;
/* cli_parse, then exactly one MODEL and every required option; -1 with the
 * error printed. */
int cli_parse_command(int argc, char **argv, const cli_command_spec *c, cli_options *o);

/* cli_parse_command, then the model loaded (with --dim, --input-shape);
 * -1 with the error printed. */
int cli_parse_and_load(int argc, char **argv, const cli_command_spec *c, cli_options *o, fd_model *m);

/* The one-line summary of the command NAME (len bytes), or NULL (main.c). */
const char *cli_command_summary(const char *name, size_t len);

/* mem --sweep (mem_sweep.c): the run once per value of a symbol. */
struct fd_session;
int cli_mem_sweep(const cli_options *o, struct fd_session *s);

/* info --tensors (info_tensors.c): every tensor, as text or JSON. */
void cli_info_tensors(FILE *f, const char *path, const fd_model *m, bool json);
/* info on a compiler's dump (info_compiler.c): the compiler's own record,
 * as a text section or as JSON members (",\n  \"format\": ..." onwards). */
void cli_info_compiler_text(FILE *f, const fd_model *m);
void cli_info_compiler_json(FILE *f, const fd_model *m);
/* info's header and op types for a GE dump (info_dump.c): its graph and
 * the stage its file name says, its GE types with their ONNX origin. */
struct fd_model_info;
void cli_info_dump_header_text(FILE *f, const char *path, const fd_model *m);
void cli_info_dump_types_text(FILE *f, const struct fd_model_info *in, int kw);
void cli_info_dump_json(FILE *f, const char *path, const fd_model *m, const struct fd_model_info *in);

/* Prints every diagnostic as one line on stderr. */
void cli_print_diags(const fd_diags *d);
/* Loads the model named by o (with --dim), printing errors; -1 on failure. */
int cli_load_model(const cli_options *o, fd_model *m);


typedef int (*cli_command_fn)(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_why(int argc, char **argv);
/* The TUI (cmd_tui.c): argv[0] is the MODEL (main.c dispatches when it is a file). */
int cmd_tui(int argc, char **argv);
int cmd_export(int argc, char **argv);
/* Loads every -r path (or GRAPH_AUTOFUSION_RULES_DIR), applies the
 * environment, prints diagnostics; -1 on any error (rules_args.c). */
struct fd_ruleset;
int cli_load_rules(const cli_options *o, struct fd_ruleset *rs);
/* A what-if session from the options (session_args.c): model with --dim,
 * rules, environment, every --set in order, one run; events: keep the trace
 * events (why, --trace). -1 on error, already printed. */
struct fd_session;
int cli_open_session(const cli_options *o, struct fd_session *s, bool events);
/* --baseline FLOAT.onnx: a session on that model with o's rules, bindings
 * and --set edits (mem, export). -1 on error, already printed. */
int cli_open_baseline(const cli_options *o, struct fd_session *s);
/* A session command (match, why, mem, apply): cli_parse_command, then
 * cli_open_session, then run, then session_close. Returns run's exit code,
 * or EXIT_BAD_INPUT when the start failed (already printed). */
typedef int (*cli_session_fn)(const cli_options *o, struct fd_session *s);
int cli_run_session(int argc, char **argv, const cli_command_spec *c, cli_session_fn run);
/* --diff: fusions gained / lost / changed and peak before -> after (text or JSON). */
void cli_print_session_diff(FILE *f, const cli_options *o, const struct fd_session *s);
/* With --diff: a blank line, then the diff on stdout (the text outputs end so). */
void cli_print_diff_after(const cli_options *o, const struct fd_session *s);
/* The JSON keys match and mem share, without braces: the match keys (with the
 * estimates' per-fusion memory), "memory", and with --diff "diff". */
void cli_write_run_json(FILE *f, const cli_options *o, struct fd_session *s);
int cmd_mem(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_infer(int argc, char **argv);
int cmd_suggest(int argc, char **argv);

#endif
