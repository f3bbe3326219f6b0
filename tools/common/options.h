/*
 * options.h — one table-driven option parser for the `kdapp` subcommands.
 *
 * A subcommand describes its options in a table and parses them in one call
 * (getopt_long underneath, so "--name value", "--name=value" and short
 * flags work as before):
 *
 *   uint64_t depth = 0; const char *params = NULL; int divide = 0;
 *   const kd_option opts[] = {
 *       {.name = "depth", .kind = KD_OPT_UINT, .value = &depth, .min = 0, .max = 64, .use = "0 to 64"},
 *       {.name = "params", .kind = KD_OPT_STRING, .value = &params},
 *       {.name = "divide", .kind = KD_OPT_FLAG, .value = &divide},
 *       {0}};
 *   const kd_usage usage = {.prog = "kdapp perft", .print = perft_usage, .operands = 1};
 *   int first, stop, rc = kd_options_parse_usage(&usage, opts, argc, argv, &first, &stop);
 *   if (rc || stop)
 *       return rc;
 *
 * kd_options_parse_usage gives the answers every subcommand gives (usage
 * on --help and after a mistake, the operand count checked);
 * kd_options_parse underneath only says what it found.
 *
 * A value out of range is reported on stderr in the one sentence every
 * subcommand uses: "kdapp perft: --depth '99' is not valid: use 0 to 64".
 * --help is always known. Reentrant except for getopt's own globals
 * (optind, optarg): call it from one thread, as main does.
 */
#ifndef KD_TOOLS_OPTIONS_H
#define KD_TOOLS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    KD_OPT_FLAG = 1, /* no value: sets an int to 1 */
    KD_OPT_STRING,   /* const char *, pointing into argv */
    KD_OPT_UINT,     /* a decimal in [min, max], stored in `size` bytes (1, 2, 4 or 8; 0 means 8) */
    KD_OPT_DOUBLE,   /* a decimal number in [dmin, dmax] */
    KD_OPT_CUSTOM,   /* parse(text, value) returns 0, or -1 for "not valid" */
} kd_opt_kind;

typedef struct {
    const char *name; /* long name without "--"; a NULL name ends the table */
    char short_name;  /* 'q' for -q, or 0 */
    kd_opt_kind kind;
    void *value;                                 /* where the value goes (see the kinds) */
    size_t size;                                 /* KD_OPT_UINT: bytes of *value */
    uint64_t min, max;                           /* KD_OPT_UINT range */
    double dmin, dmax;                           /* KD_OPT_DOUBLE range */
    int (*parse)(const char *text, void *value); /* KD_OPT_CUSTOM */
    const char *use; /* the "use ..." of the error sentence ("1 to 60"); default from the range */
    int *seen;       /* may be NULL: set to 1 when the option was given */
} kd_option;

/* What kd_options_parse found. */
typedef enum {
    KD_OPTIONS_OK = 0,
    KD_OPTIONS_HELP,    /* --help or -h: print the usage on stdout, exit 0 */
    KD_OPTIONS_UNKNOWN, /* an unknown option or a missing value: getopt said so; print the usage */
    KD_OPTIONS_BAD,     /* a value out of range: the sentence is printed */
} kd_options_result;

/*
 * Parses argv[1..] (argv[0] is the subcommand) against `opts` (at most 64
 * entries), storing each value as it comes; a later occurrence wins.
 * *first_operand receives the index of the first operand (getopt permutes
 * operands to the end). `prog` ("kdapp sim") starts error sentences.
 */
kd_options_result kd_options_parse(const char *prog, const kd_option *opts, int argc, char **argv, int *first_operand);

/*
 * How a subcommand answers what kd_options_parse_usage finds: its name,
 * how it prints its usage, and how many operands it takes. A usage that is
 * a static text uses the ready printer:
 *
 *   static const char text[] = "usage: kdapp stats [--data DIR] [--prometheus]\n";
 *   const kd_usage usage = {.prog = "kdapp stats", .print = kd_usage_print_text, .ctx = text};
 *
 * and one that is printed by a function passes it (and what it reads, in
 * ctx): {.prog = "kdapp sim", .print = sim_usage}.
 */
typedef struct {
    const char *prog; /* "kdapp sim": starts error sentences */
    /* Prints the usage on `out`: stdout for --help, stderr after a mistake
     * (a printer may keep to one stream, e.g. one whose help always went to
     * stderr). `ctx` is the ctx below. */
    void (*print)(FILE *out, const void *ctx);
    const void *ctx;
    int operands; /* how many operands the subcommand takes, exactly */
} kd_usage;

/* The printer of a static usage text: writes `text` (a NUL-terminated
 * string) to `out` unchanged. */
void kd_usage_print_text(FILE *out, const void *text);

/*
 * Prints the usage on stderr, for a mistake the option table cannot see
 * (a required option missing, options that exclude each other). Returns 2,
 * the exit code of bad arguments, so that `return kd_usage_fail(&u);` ends
 * the subcommand.
 */
int kd_usage_fail(const kd_usage *usage);

/*
 * kd_options_parse with a subcommand's usual answers: --help prints the
 * usage on stdout and sets *stop (exit 0); an unknown option or a missing
 * value prints it on stderr after getopt's sentence; a bad value has its
 * sentence printed; a number of operands other than usage->operands prints
 * the usage on stderr. Returns the exit code to leave with (0, or 2 for bad
 * arguments); when it is 0 and *stop is 0, parsing went through and the
 * usage->operands operands start at argv[*first_operand]. Same threading
 * as kd_options_parse.
 */
int kd_options_parse_usage(const kd_usage *usage, const kd_option *opts, int argc, char **argv, int *first_operand,
                           int *stop);

#endif
