/* options.c — the table-driven option parser of the subcommands (options.h). */
#include "tools/common/options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/common/cli.h"

#define MAX_OPTIONS 64
#define VAL_BASE 0x1000 /* getopt `val` of table entry i is VAL_BASE + i */
#define VAL_HELP 'h'

static void store_uint(void *value, size_t size, uint64_t v)
{
    switch (size) {
    case 1:
        *(uint8_t *)value = (uint8_t)v;
        break;
    case 2:
        *(uint16_t *)value = (uint16_t)v;
        break;
    case 4:
        *(uint32_t *)value = (uint32_t)v;
        break;
    default:
        *(uint64_t *)value = v;
        break;
    }
}

/* Stores one value; returns 0, or -1 when it is not valid. */
static int take(const kd_option *o, const char *arg)
{
    switch (o->kind) {
    case KD_OPT_FLAG:
        *(int *)o->value = 1;
        return 0;
    case KD_OPT_STRING:
        *(const char **)o->value = arg;
        return 0;
    case KD_OPT_UINT: {
        uint64_t max = o->max ? o->max : UINT64_MAX, v;
        if (kd_cli_parse_u64(arg, o->min, max, &v) != 0)
            return -1;
        store_uint(o->value, o->size, v);
        return 0;
    }
    case KD_OPT_DOUBLE: {
        char *end;
        double d = strtod(arg, &end);
        if (!*arg || *end || !(d >= o->dmin && d <= o->dmax)) /* NaN fails the range */
            return -1;
        *(double *)o->value = d;
        return 0;
    }
    case KD_OPT_CUSTOM:
        return o->parse(arg, o->value);
    }
    return -1;
}

kd_options_result kd_options_parse(const char *prog, const kd_option *opts, int argc, char **argv, int *first_operand)
{
    struct option longopts[MAX_OPTIONS + 2];
    char shorts[2 * MAX_OPTIONS + 4] = ":h";
    size_t n = 0, s = strlen(shorts);
    for (; opts[n].name && n < MAX_OPTIONS; n++) {
        const kd_option *o = &opts[n];
        int has_arg = o->kind == KD_OPT_FLAG ? no_argument : required_argument;
        longopts[n] = (struct option){o->name, has_arg, NULL, VAL_BASE + (int)n};
        if (o->short_name) {
            shorts[s++] = o->short_name;
            if (has_arg == required_argument)
                shorts[s++] = ':';
        }
    }
    shorts[s] = '\0';
    longopts[n] = (struct option){"help", no_argument, NULL, VAL_HELP};
    longopts[n + 1] = (struct option){0};
    /* The leading ':' in shorts keeps getopt quiet so that the messages
     * below are the only ones, in getopt's own words. */
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        if (opt == VAL_HELP)
            return KD_OPTIONS_HELP;
        const kd_option *o = NULL;
        if (opt >= VAL_BASE && opt < VAL_BASE + (int)n)
            o = &opts[opt - VAL_BASE];
        for (size_t i = 0; !o && i < n; i++)
            if (opts[i].short_name && opts[i].short_name == opt)
                o = &opts[i];
        if (opt == ':' || opt == '?' || !o) {
            const char *what = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
            if (opt == ':')
                fprintf(stderr, "%s: option '%s' requires a value\n", prog, what);
            else
                fprintf(stderr, "%s: unrecognized option '%s'\n", prog, what);
            return KD_OPTIONS_UNKNOWN;
        }
        if (take(o, optarg) != 0) {
            char range[96];
            const char *use = o->use;
            if (!use && o->kind == KD_OPT_UINT) {
                snprintf(range, sizeof range, "%llu to %llu", (unsigned long long)o->min,
                         (unsigned long long)(o->max ? o->max : UINT64_MAX));
                use = range;
            } else if (!use) {
                snprintf(range, sizeof range, "%g to %g", o->dmin, o->dmax);
                use = range;
            }
            fprintf(stderr, "%s: --%s '%s' is not valid: use %s\n", prog, o->name, optarg, use);
            return KD_OPTIONS_BAD;
        }
        if (o->seen)
            *o->seen = 1;
    }
    *first_operand = optind;
    return KD_OPTIONS_OK;
}

void kd_usage_print_text(FILE *out, const void *text) { fputs(text, out); }

int kd_usage_fail(const kd_usage *usage)
{
    usage->print(stderr, usage->ctx);
    return 2;
}

int kd_options_parse_usage(const kd_usage *usage, const kd_option *opts, int argc, char **argv, int *first_operand,
                           int *stop)
{
    *stop = 0;
    switch (kd_options_parse(usage->prog, opts, argc, argv, first_operand)) {
    case KD_OPTIONS_OK:
        break;
    case KD_OPTIONS_HELP:
        usage->print(stdout, usage->ctx);
        *stop = 1;
        return 0;
    case KD_OPTIONS_BAD:
        return 2;
    default:
        return kd_usage_fail(usage);
    }
    if (argc - *first_operand != usage->operands)
        return kd_usage_fail(usage);
    return 0;
}
