/*
 * cmd_replay.c — `kdapp replay --data DIR --into NEWDIR` and
 * `kdapp verify --data DIR`: rebuild a store from its append-only log and
 * check that it matches the live one exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/cli/commands.h"
#include "tools/common/options.h"
#include "tools/sim/replay.h"

static void print_report(const char *what, const kd_replay_report *rep)
{
    char a[2 * KD_HASH_LEN + 1], b[2 * KD_HASH_LEN + 1];
    kd_hex_encode(rep->source_digest, KD_HASH_LEN, a);
    kd_hex_encode(rep->replay_digest, KD_HASH_LEN, b);
    if (kd_replay_ok(rep)) {
        printf("%s: %llu log entries replayed: state and digest match (%s)\n", what, (unsigned long long)rep->entries,
               a);
        return;
    }
    printf("%s: MISMATCH after %llu log entries\n", what, (unsigned long long)rep->entries);
    if (rep->first_bad_seq)
        printf("  first divergent log entry: %s\n", rep->first_bad_what);
    if (!rep->episodes_match)
        printf("  first divergent episode: %s\n", rep->episode_what);
    if (!rep->digest_match)
        printf("  digest: live %s, replay %s\n", a, b);
}

static int replay_into(kd_cli *cli, kd_engine *src, const char *dir, int canonical, int trust, const char *what)
{
    kd_tip tip;
    kd_engine *dst = NULL;
    if (kd_engine_tip(src, &tip) != KD_OK)
        return KD_EXIT_FAIL;
    /* The new store follows the source's chain: its creations' consents sign it. */
    int rc = kd_cli_open_store(cli, dir, 0, tip.finality_depth, kd_engine_chain(src), &dst);
    if (rc)
        return rc;
    kd_tip dtip;
    if (kd_engine_tip(dst, &dtip) != KD_OK || dtip.last_seq != 0) {
        fprintf(stderr, "kdapp: %s is not empty: replay needs a new directory\n", dir);
        kd_engine_close(dst);
        return KD_EXIT_USAGE;
    }
    /* `replay` rebuilds from a log it trusts (pre-verified signatures);
     * `verify` checks every signature again. */
    kd_engine_trust_replayed_signatures(dst, trust);
    kd_replay_report rep;
    kd_err err = kd_replay_log(src, dst, canonical, &rep);
    kd_engine_close(dst);
    if (err) {
        fprintf(stderr, "kdapp: %s failed: %s\n", what, kd_err_str(err));
        return KD_EXIT_FAIL;
    }
    print_report(what, &rep);
    return kd_replay_ok(&rep) ? KD_EXIT_OK : KD_EXIT_FAIL;
}

static int parse(kd_cli *cli, int argc, char **argv, const char **into, const char *usage)
{
    char text[160], prog[48];
    snprintf(text, sizeof text, "usage: %s\n", usage);
    snprintf(prog, sizeof prog, "kdapp %s", argc > 0 ? argv[0] : "replay");
    const char *ignored = NULL;
    const kd_option opts[] = {
        KD_CLI_OPTIONS(cli), {.name = "into", .kind = KD_OPT_STRING, .value = into ? into : &ignored}, {0}};
    const kd_usage u = {.prog = prog, .print = kd_usage_print_text, .ctx = text};
    int first, stop, rc = kd_options_parse_usage(&u, opts, argc, argv, &first, &stop);
    if (rc || stop)
        return stop ? -1 : rc;
    if ((into && !*into) || (!into && ignored)) /* --into: required by replay, refused by verify */
        return kd_usage_fail(&u);
    return KD_EXIT_OK;
}

int kd_cmd_replay(kd_cli *cli, int argc, char **argv)
{
    const char *into = NULL;
    int rc = parse(cli, argc, argv, &into, "kdapp replay [--data DIR] --into NEWDIR");
    if (rc)
        return rc < 0 ? KD_EXIT_OK : rc;
    kd_engine *src;
    if ((rc = kd_cli_open_engine(cli, NULL, 1, 0, &src)))
        return rc;
    rc = replay_into(cli, src, into, 0, 1, "replay");
    kd_engine_close(src);
    return rc;
}

int kd_cmd_verify(kd_cli *cli, int argc, char **argv)
{
    int rc = parse(cli, argc, argv, NULL, "kdapp verify [--data DIR]");
    if (rc)
        return rc < 0 ? KD_EXIT_OK : rc;
    kd_engine *src;
    if ((rc = kd_cli_open_engine(cli, NULL, 1, 0, &src)))
        return rc;
    const char *tmp = getenv("TMPDIR");
    char base[4096], full[4200], canon[4200];
    snprintf(base, sizeof base, "%s/kdapp-verify.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base)) {
        perror("kdapp verify: cannot create a temporary directory");
        kd_engine_close(src);
        return KD_EXIT_FAIL;
    }
    snprintf(full, sizeof full, "%s/full", base);
    snprintf(canon, sizeof canon, "%s/canonical", base);
    int rc_full = replay_into(cli, src, full, 0, 0, "full log replay");
    int rc_canon = replay_into(cli, src, canon, 1, 0, "canonical chain replay");
    kd_engine_close(src);
    kd_remove_tree(base);
    rc = rc_full ? rc_full : rc_canon;
    printf("verify: %s\n", rc ? "FAILED" : "ok");
    return rc;
}
