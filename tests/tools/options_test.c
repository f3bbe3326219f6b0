/*
 * options_test.c — the table-driven option parser (tools/common/options.c):
 * every kind, widths, ranges and their sentences, unknown options, missing
 * values, --help, operands after options, a later occurrence winning, and
 * the usual answers of kd_options_parse_usage (usage, operand count).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/common/options.h"

/* The argument vector of the last run (getopt permutes it). */
static char *argv[32];

/* Runs kd_options_parse on a NULL-terminated argument list, capturing
 * stderr into `err` (err_len bytes). */
static kd_options_result run(const kd_option *opts, const char *const *args, int *first, char *err, size_t err_len)
{
    int argc = 0;
    for (; args[argc]; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    fflush(stderr);
    FILE *tmp = tmpfile();
    cr_assert_not_null(tmp);
    int saved = dup(fileno(stderr));
    dup2(fileno(tmp), fileno(stderr));
    kd_options_result r = kd_options_parse("kdapp test", opts, argc, argv, first);
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    rewind(tmp);
    size_t n = fread(err, 1, err_len - 1, tmp);
    err[n] = '\0';
    fclose(tmp);
    return r;
}

static int parse_even(const char *text, void *value)
{
    int v = atoi(text);
    if (v % 2)
        return -1;
    *(int *)value = v;
    return 0;
}

typedef struct {
    int flag, seen_n, even;
    const char *name;
    uint64_t big;
    uint32_t n;
    uint8_t small;
    double p;
} vals;

static void table(vals *v, kd_option out[8])
{
    memset(v, 0, sizeof *v);
    kd_option opts[] = {
        {.name = "flag", .short_name = 'f', .kind = KD_OPT_FLAG, .value = &v->flag},
        {.name = "name", .kind = KD_OPT_STRING, .value = &v->name},
        {.name = "big", .kind = KD_OPT_UINT, .value = &v->big},
        {.name = "n",
         .kind = KD_OPT_UINT,
         .value = &v->n,
         .size = sizeof v->n,
         .min = 1,
         .max = 60,
         .use = "1 to 60",
         .seen = &v->seen_n},
        {.name = "small", .kind = KD_OPT_UINT, .value = &v->small, .size = sizeof v->small, .max = 255},
        {.name = "p", .kind = KD_OPT_DOUBLE, .value = &v->p, .dmax = 1, .use = "a probability from 0 to 1"},
        {.name = "even", .kind = KD_OPT_CUSTOM, .value = &v->even, .parse = parse_even, .use = "an even number"},
        {0},
    };
    memcpy(out, opts, sizeof opts);
}

Test(options, every_kind_stores_its_value)
{
    vals v;
    kd_option opts[8];
    table(&v, opts);
    const char *args[] = {"cmd",
                          "--flag",
                          "--name=alice",
                          "--big",
                          "18446744073709551615",
                          "--n",
                          "60",
                          "--small",
                          "255",
                          "--p",
                          "0.25",
                          "--even",
                          "4",
                          "operand",
                          NULL};
    int first = -1;
    char err[256];
    cr_assert_eq(run(opts, args, &first, err, sizeof err), KD_OPTIONS_OK, "%s", err);
    cr_expect_eq(v.flag, 1);
    cr_expect_str_eq(v.name, "alice");
    cr_expect_eq(v.big, UINT64_MAX);
    cr_expect_eq(v.n, 60);
    cr_expect_eq(v.seen_n, 1);
    cr_expect_eq(v.small, 255);
    cr_expect(v.p == 0.25);
    cr_expect_eq(v.even, 4);
    cr_expect_eq(first, 13);
    cr_expect_str_eq(argv[first], "operand");
}

Test(options, short_flags_and_a_later_occurrence_wins)
{
    vals v;
    kd_option opts[8];
    table(&v, opts);
    const char *args[] = {"cmd", "-f", "--n", "3", "x", "--n", "7", NULL};
    int first;
    char err[256];
    cr_assert_eq(run(opts, args, &first, err, sizeof err), KD_OPTIONS_OK, "%s", err);
    cr_expect_eq(v.flag, 1);
    cr_expect_eq(v.n, 7);
    cr_expect_eq(first, 6);
    cr_expect_str_eq(argv[first], "x", "operands are moved after the options");
}

Test(options, bad_values_are_named_in_one_sentence)
{
    static const struct {
        const char *opt, *value, *sentence;
    } cases[] = {
        {"--n", "0", "kdapp test: --n '0' is not valid: use 1 to 60\n"},
        {"--n", "61", "kdapp test: --n '61' is not valid: use 1 to 60\n"},
        {"--n", "-1", "kdapp test: --n '-1' is not valid: use 1 to 60\n"},
        {"--n", "3x", "kdapp test: --n '3x' is not valid: use 1 to 60\n"},
        {"--small", "256", "kdapp test: --small '256' is not valid: use 0 to 255\n"},
        {"--big", "18446744073709551616",
         "kdapp test: --big '18446744073709551616' is not valid: use 0 to "
         "18446744073709551615\n"},
        {"--p", "1.5", "kdapp test: --p '1.5' is not valid: use a probability from 0 to 1\n"},
        {"--p", "nan", "kdapp test: --p 'nan' is not valid: use a probability from 0 to 1\n"},
        {"--even", "3", "kdapp test: --even '3' is not valid: use an even number\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vals v;
        kd_option opts[8];
        table(&v, opts);
        const char *args[] = {"cmd", cases[i].opt, cases[i].value, NULL};
        int first;
        char err[256];
        cr_expect_eq(run(opts, args, &first, err, sizeof err), KD_OPTIONS_BAD, "case %zu", i);
        cr_expect_str_eq(err, cases[i].sentence, "case %zu", i);
        cr_expect_eq(v.seen_n, 0, "case %zu: a refused value is not seen", i);
    }
}

Test(options, unknown_missing_and_help)
{
    vals v;
    kd_option opts[8];
    table(&v, opts);
    int first;
    char err[256];
    const char *unknown[] = {"cmd", "--nope", NULL};
    cr_expect_eq(run(opts, unknown, &first, err, sizeof err), KD_OPTIONS_UNKNOWN);
    cr_expect(strstr(err, "unrecognized option '--nope'"), "%s", err);
    const char *missing[] = {"cmd", "--name", NULL};
    cr_expect_eq(run(opts, missing, &first, err, sizeof err), KD_OPTIONS_UNKNOWN);
    cr_expect(strstr(err, "option '--name' requires a value"), "%s", err);
    const char *help[] = {"cmd", "--help", NULL};
    cr_expect_eq(run(opts, help, &first, err, sizeof err), KD_OPTIONS_HELP);
    const char *h[] = {"cmd", "-h", NULL};
    cr_expect_eq(run(opts, h, &first, err, sizeof err), KD_OPTIONS_HELP);
}

/* What kd_options_parse_usage printed and returned. */
typedef struct {
    int rc, stop, first;
    char out[256], err[256];
} usage_run;

/* Reads what `f` holds into `buf` (len bytes) and closes it. */
static void drain(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Runs kd_options_parse_usage on a NULL-terminated argument list,
 * capturing stdout and stderr. */
static usage_run run_usage(const kd_usage *u, const kd_option *opts, const char *const *args)
{
    usage_run r = {.first = -1};
    int argc = 0;
    for (; args[argc]; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out && err);
    int saved_out = dup(fileno(stdout)), saved_err = dup(fileno(stderr));
    dup2(fileno(out), fileno(stdout));
    dup2(fileno(err), fileno(stderr));
    r.rc = kd_options_parse_usage(u, opts, argc, argv, &r.first, &r.stop);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, fileno(stdout));
    dup2(saved_err, fileno(stderr));
    close(saved_out);
    close(saved_err);
    drain(out, r.out, sizeof r.out);
    drain(err, r.err, sizeof r.err);
    return r;
}

static const char test_usage[] = "usage: kdapp test [--n N] NAME\n";

Test(options, parse_usage_answers_as_every_subcommand_does)
{
    vals v;
    kd_option opts[8];
    table(&v, opts);
    const kd_usage u = {.prog = "kdapp test", .print = kd_usage_print_text, .ctx = test_usage, .operands = 1};

    const char *ok[] = {"cmd", "--n", "5", "alice", NULL};
    usage_run r = run_usage(&u, opts, ok);
    cr_expect_eq(r.rc, 0);
    cr_expect_eq(r.stop, 0);
    cr_expect_str_eq(argv[r.first], "alice");
    cr_expect_str_eq(r.out, "");
    cr_expect_str_eq(r.err, "");

    const char *help[] = {"cmd", "--help", NULL};
    r = run_usage(&u, opts, help);
    cr_expect_eq(r.rc, 0);
    cr_expect_eq(r.stop, 1, "--help ends the subcommand with exit 0");
    cr_expect_str_eq(r.out, test_usage, "--help prints the usage on stdout");
    cr_expect_str_eq(r.err, "");

    const char *unknown[] = {"cmd", "--nope", "alice", NULL};
    r = run_usage(&u, opts, unknown);
    cr_expect_eq(r.rc, 2);
    cr_expect_eq(r.stop, 0);
    cr_expect_str_eq(r.out, "");
    cr_expect_str_eq(r.err, "kdapp test: unrecognized option '--nope'\nusage: kdapp test [--n N] NAME\n");

    const char *bad[] = {"cmd", "--n", "0", "alice", NULL};
    r = run_usage(&u, opts, bad);
    cr_expect_eq(r.rc, 2);
    cr_expect_str_eq(r.err, "kdapp test: --n '0' is not valid: use 1 to 60\n", "a bad value: its sentence alone");

    const char *none[] = {"cmd", "--n", "5", NULL};
    const char *two[] = {"cmd", "alice", "bob", NULL};
    const char *const *wrong_counts[] = {none, two};
    for (size_t i = 0; i < 2; i++) {
        r = run_usage(&u, opts, wrong_counts[i]);
        cr_expect_eq(r.rc, 2, "case %zu", i);
        cr_expect_eq(r.stop, 0, "case %zu", i);
        cr_expect_str_eq(r.out, "", "case %zu", i);
        cr_expect_str_eq(r.err, test_usage, "case %zu: the operand count is checked", i);
    }
}

/* A printer of a usage that depends on the subcommand's data (ctx). */
static void print_limit(FILE *out, const void *ctx)
{
    fprintf(out, "usage: kdapp test [--n N] (at most %u)\n", *(const unsigned *)ctx);
}

Test(options, parse_usage_passes_ctx_to_the_printer)
{
    vals v;
    kd_option opts[8];
    table(&v, opts);
    const unsigned limit = 60;
    const kd_usage u = {.prog = "kdapp test", .print = print_limit, .ctx = &limit};
    const char *help[] = {"cmd", "-h", NULL};
    usage_run r = run_usage(&u, opts, help);
    cr_expect_eq(r.stop, 1);
    cr_expect_str_eq(r.out, "usage: kdapp test [--n N] (at most 60)\n");
    const char *operand[] = {"cmd", "extra", NULL};
    r = run_usage(&u, opts, operand);
    cr_expect_eq(r.rc, 2, "no operand is taken unless .operands says so");
    cr_expect_str_eq(r.err, "usage: kdapp test [--n N] (at most 60)\n");
}

Test(options, usage_fail_prints_on_stderr_and_gives_exit_2)
{
    const kd_usage u = {.prog = "kdapp test", .print = kd_usage_print_text, .ctx = test_usage};
    fflush(stderr);
    FILE *err = tmpfile();
    cr_assert_not_null(err);
    int saved = dup(fileno(stderr));
    dup2(fileno(err), fileno(stderr));
    int rc = kd_usage_fail(&u);
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    char text[256];
    drain(err, text, sizeof text);
    cr_expect_eq(rc, 2);
    cr_expect_str_eq(text, test_usage);
}
