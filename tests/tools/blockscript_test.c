/*
 * blockscript_test.c — the block script parser and writer (tools/blockscript.c):
 * every construct, the defaults, the hash shorthand, key resolution, the
 * parse → write → parse round trip, and one table row per kind of malformed
 * line, each checked for its error code and its line number.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/bytes.h"
#include "engine/crypto.h"
#include "episodes/episode_type.h"
#include "tools/script/blockscript.h"

#define H64 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define PK66 "02" H64

/* A formatted string on the heap (asprintf is not C11/POSIX). */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    cr_assert_geq(n, 0);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

/* Parses `text` (NUL-terminated) into a fresh script; returns the error. */
static kd_err parse(const char *text, const char *keys_dir, kd_script *s, char *why, size_t why_len)
{
    kd_script_init(s);
    return kd_script_parse(text, strlen(text), keys_dir, s, why, why_len);
}

static void sha(const char *s, uint8_t out[KD_HASH_LEN]) { kd_sha256(s, strlen(s), out); }

static kd_pubkey test_pub(const char *name)
{
    kd_key k;
    cr_assert_eq(kd_key_test(name, &k), KD_OK);
    return k.pub;
}

/* A fresh directory under $KD_TEST_TMP (or /tmp); the caller frees the path. */
static char *make_tmp_dir(void)
{
    const char *base = getenv("KD_TEST_TMP");
    char *path = fmt("%s/blockscript-XXXXXX", base ? base : "/tmp");
    cr_assert_not_null(mkdtemp(path), "mkdtemp %s", path);
    return path;
}

static void remove_tree(const char *dir, const char *const *files)
{
    for (; *files; files++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, *files);
        unlink(p);
    }
    rmdir(dir);
}

static void expect_tx_equal(const kd_script_tx *a, const kd_script_tx *b)
{
    cr_expect_eq(a->kind, b->kind);
    cr_expect_arr_eq(a->tx_id, b->tx_id, KD_HASH_LEN);
    cr_expect_eq(a->episode_id, b->episode_id);
    cr_expect_str_eq(a->type, b->type);
    cr_expect_eq(a->participants.count, b->participants.count);
    for (size_t i = 0; i < a->participants.count && i < b->participants.count; i++)
        cr_expect_arr_eq(a->participants.keys[i].bytes, b->participants.keys[i].bytes, KD_PUBKEY_LEN);
    cr_expect_eq(a->has_cap, b->has_cap);
    cr_expect_eq(a->cap, b->cap);
    cr_expect_eq(a->row, b->row);
    cr_expect_eq(a->col, b->col);
    cr_expect_eq(a->player, b->player);
    cr_expect_eq(a->has_signer, b->has_signer);
    cr_expect_arr_eq(&a->signer, &b->signer, sizeof a->signer);
    cr_expect_str_eq(a->signer_ref, b->signer_ref);
    cr_expect_eq(a->has_counter, b->has_counter);
    cr_expect_eq(a->counter, b->counter);
    cr_expect_eq(a->raw_len, b->raw_len);
    if (a->raw_len && a->raw_len == b->raw_len)
        cr_expect_arr_eq(a->raw, b->raw, a->raw_len);
    cr_expect_eq(!a->json, !b->json);
    if (a->json && b->json)
        cr_expect_str_eq(a->json, b->json);
    cr_expect_eq(a->body_len, b->body_len);
    if (a->body_len && a->body_len == b->body_len)
        cr_expect_arr_eq(a->body, b->body, a->body_len);
}

static void expect_op_equal(const kd_script_op *a, const kd_script_op *b)
{
    cr_expect_eq(a->kind, b->kind);
    cr_expect_arr_eq(a->hash, b->hash, KD_HASH_LEN);
    cr_expect_eq(a->daa, b->daa);
    cr_expect_eq(a->time_ms, b->time_ms);
    cr_expect_eq(a->tx_count, b->tx_count);
    for (size_t i = 0; i < a->tx_count && i < b->tx_count; i++)
        expect_tx_equal(&a->txs[i], &b->txs[i]);
}

/* ------------------------------------------------------------- constructs */

Test(blockscript, every_construct)
{
    const char *script =
        "{\"accept\": {\"hash\": \"" H64 "\", \"daa\": 5, \"time\": 1234, \"txs\": ["
        "{\"new_episode\": {\"id\": 7, \"type\": \"tictactoe\", \"participants\": [\"test:alice\", \"" PK66
        "\"], \"cap\": 6}},"
        "{\"move\": {\"episode\": 7, \"row\": 0, \"col\": 2, \"player\": \"X\", \"signer\": \"test:alice\","
        " \"counter\": 3}, \"tx_id\": \"t1\"},"
        "{\"move\": {\"episode\": 4294967295, \"row\": 9, \"col\": 255, \"player\": 1}},"
        "{\"payload_hex\": \"00ffAB\"},"
        "{\"payload_hex\": \"\"}]}}\n"
        "{\"revert\": \"b1\"}\n";
    kd_script s;
    char why[256] = "";
    cr_assert_eq(parse(script, NULL, &s, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(s.count, 2);

    kd_script_op *a = &s.ops[0];
    uint8_t h[KD_HASH_LEN];
    cr_assert_eq(kd_hex_decode(H64, h, KD_HASH_LEN), 0);
    cr_expect_eq(a->kind, KD_SCRIPT_ACCEPT);
    cr_expect_eq(a->line, 1);
    cr_expect_arr_eq(a->hash, h, KD_HASH_LEN);
    cr_expect_eq(a->daa, 5);
    cr_expect_eq(a->time_ms, 1234);
    cr_assert_eq(a->tx_count, 5);

    kd_script_tx *t = &a->txs[0];
    kd_pubkey alice = test_pub("alice");
    cr_expect_eq(t->kind, KD_SCRIPT_TX_NEW_EPISODE);
    cr_expect_eq(t->episode_id, 7);
    cr_expect_str_eq(t->type, "tictactoe");
    cr_assert_eq(t->participants.count, 2);
    cr_expect_arr_eq(t->participants.keys[0].bytes, alice.bytes, KD_PUBKEY_LEN);
    uint8_t pk[KD_PUBKEY_LEN];
    cr_assert_eq(kd_hex_decode(PK66, pk, KD_PUBKEY_LEN), 0);
    cr_expect_arr_eq(t->participants.keys[1].bytes, pk, KD_PUBKEY_LEN);
    cr_expect_eq(t->has_cap, 1);
    cr_expect_eq(t->cap, 6);

    t = &a->txs[1];
    cr_expect_eq(t->kind, KD_SCRIPT_TX_MOVE);
    cr_expect_eq(t->episode_id, 7);
    cr_expect_eq(t->row, 0);
    cr_expect_eq(t->col, 2);
    cr_expect_eq(t->player, 0);
    cr_expect_eq(t->has_signer, 1);
    cr_expect_arr_eq(t->signer.pub.bytes, alice.bytes, KD_PUBKEY_LEN);
    cr_expect_str_eq(t->signer_ref, "test:alice");
    cr_expect_eq(t->has_counter, 1);
    cr_expect_eq(t->counter, 3);
    sha("t1", h);
    cr_expect_arr_eq(t->tx_id, h, KD_HASH_LEN);

    t = &a->txs[2];
    cr_expect_eq(t->episode_id, UINT32_MAX);
    cr_expect_eq(t->row, 9, "out-of-bounds rows reach the engine");
    cr_expect_eq(t->col, 255);
    cr_expect_eq(t->player, 1);
    cr_expect_eq(t->has_signer, 0);
    cr_expect_eq(t->has_counter, 0);

    t = &a->txs[3];
    cr_expect_eq(t->kind, KD_SCRIPT_TX_RAW);
    cr_assert_eq(t->raw_len, 3);
    cr_expect_eq(t->raw[0], 0x00);
    cr_expect_eq(t->raw[1], 0xff);
    cr_expect_eq(t->raw[2], 0xab);
    cr_expect_eq(a->txs[4].kind, KD_SCRIPT_TX_RAW);
    cr_expect_eq(a->txs[4].raw_len, 0);
    cr_expect_null(a->txs[4].raw);

    kd_script_op *r = &s.ops[1];
    cr_expect_eq(r->kind, KD_SCRIPT_REVERT);
    cr_expect_eq(r->line, 2);
    sha("b1", h);
    cr_expect_arr_eq(r->hash, h, KD_HASH_LEN);
    cr_expect_eq(r->tx_count, 0);
    kd_script_fini(&s);
}

Test(blockscript, hash_shorthand_is_sha256_of_the_string)
{
    kd_script s;
    char why[256] = "";
    cr_assert_eq(parse("{\"revert\": \"b1\"}\n{\"revert\": \"deadbeef\"}\n"
                       "{\"revert\": \"" H64 "\"}\n{\"revert\": \"block one \\u00e9\"}",
                       NULL, &s, why, sizeof why),
                 KD_OK, "%s", why);
    cr_assert_eq(s.count, 4);
    uint8_t h[KD_HASH_LEN];
    sha("b1", h);
    cr_expect_arr_eq(s.ops[0].hash, h, KD_HASH_LEN);
    sha("deadbeef", h); /* short all-hex strings are names too */
    cr_expect_arr_eq(s.ops[1].hash, h, KD_HASH_LEN);
    cr_assert_eq(kd_hex_decode(H64, h, KD_HASH_LEN), 0);
    cr_expect_arr_eq(s.ops[2].hash, h, KD_HASH_LEN);
    sha("block one \xc3\xa9", h);
    cr_expect_arr_eq(s.ops[3].hash, h, KD_HASH_LEN);
    kd_script_fini(&s);
}

Test(blockscript, defaults)
{
    kd_script s;
    char why[256] = "";
    cr_assert_eq(parse("{\"accept\": {\"hash\": \"b1\", \"txs\": [{\"payload_hex\": \"01\"},"
                       " {\"payload_hex\": \"02\"}]}}\n"
                       "{\"accept\": {\"hash\": \"b2\"}}\n"
                       "{\"revert\": \"b2\"}\n"
                       "{\"accept\": {\"hash\": \"b2x\"}}\n"
                       "{\"accept\": {\"hash\": \"b4\", \"daa\": 10}}\n"
                       "{\"accept\": {\"hash\": \"b5\", \"time\": 7}}\n"
                       "{\"accept\": {\"hash\": \"b6\", \"daa\": 0, \"time\": 0}}\n",
                       NULL, &s, why, sizeof why),
                 KD_OK, "%s", why);
    cr_assert_eq(s.count, 7);
    static const uint64_t daa[] = {1, 2, 0, 3, 10, 11, 0};
    static const uint64_t ms[] = {100, 200, 0, 300, 1000, 7, 0};
    for (size_t i = 0; i < 7; i++) {
        cr_expect_eq(s.ops[i].daa, daa[i], "op %zu daa %llu", i, (unsigned long long)s.ops[i].daa);
        cr_expect_eq(s.ops[i].time_ms, ms[i], "op %zu", i);
        cr_expect_eq(s.ops[i].line, i + 1);
    }
    /* tx_id = SHA-256(block hash || index as u32 BE) */
    for (uint32_t i = 0; i < 2; i++) {
        uint8_t seed[KD_HASH_LEN + 4], h[KD_HASH_LEN];
        sha("b1", seed);
        kd_put_u32be(seed + KD_HASH_LEN, i);
        kd_sha256(seed, sizeof seed, h);
        cr_expect_arr_eq(s.ops[0].txs[i].tx_id, h, KD_HASH_LEN, "tx %u", i);
    }
    kd_script_fini(&s);
}

Test(blockscript, cap_null_absent_and_zero)
{
    kd_script s;
    char why[256] = "";
    cr_assert_eq(parse("{\"accept\": {\"hash\": \"b1\", \"txs\": ["
                       "{\"new_episode\": {\"id\": 1, \"type\": \"t\", \"participants\": [], \"cap\": null}},"
                       "{\"new_episode\": {\"id\": 2, \"type\": \"\", \"participants\": []}},"
                       "{\"new_episode\": {\"id\": 3, \"type\": \"t\", \"participants\": [], \"cap\": 0}},"
                       "{\"new_episode\": {\"id\": 4, \"type\": \"t\", \"participants\": [], \"cap\": 255}}]}}",
                       NULL, &s, why, sizeof why),
                 KD_OK, "%s", why);
    kd_script_tx *t = s.ops[0].txs;
    cr_expect_eq(t[0].has_cap, 0);
    cr_expect_eq(t[1].has_cap, 0);
    cr_expect_eq(t[2].has_cap, 1);
    cr_expect_eq(t[2].cap, 0);
    cr_expect_eq(t[3].cap, 255);
    cr_expect_eq(t[0].participants.count, 0);
    kd_script_fini(&s);
}

Test(blockscript, comments_blank_lines_crlf_and_bom)
{
    kd_script s;
    char why[256] = "";
    const char text[] = "\xEF\xBB\xBF# a comment\r\n"
                        "\r\n"
                        "   \t# indented comment {not json\n"
                        "{\"revert\": \"b1\"}\r\n"
                        "\n"
                        "{\"revert\": \"b2\"}"; /* no final newline */
    kd_script_init(&s);
    cr_assert_eq(kd_script_parse(text, sizeof text - 1, NULL, &s, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(s.count, 2);
    cr_expect_eq(s.ops[0].line, 4);
    cr_expect_eq(s.ops[1].line, 6);
    kd_script_fini(&s);

    kd_script_init(&s);
    cr_expect_eq(kd_script_parse("", 0, NULL, &s, why, sizeof why), KD_OK);
    cr_expect_eq(s.count, 0);
    kd_script_fini(&s);
}

Test(blockscript, parse_line_streaming)
{
    kd_script_op op;
    int blank = -1;
    char why[256] = "";
    cr_expect_eq(kd_script_parse_line("  # hi", 6, 1, 0, NULL, &op, &blank, why, sizeof why), KD_OK);
    cr_expect_eq(blank, 1);
    cr_expect_eq(kd_script_parse_line("", 0, 2, 0, NULL, &op, &blank, why, sizeof why), KD_OK);
    cr_expect_eq(blank, 1);
    const char *l = "{\"accept\": {\"hash\": \"b9\"}}";
    cr_assert_eq(kd_script_parse_line(l, strlen(l), 9, 41, NULL, &op, &blank, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(blank, 0);
    cr_expect_eq(op.line, 9);
    cr_expect_eq(op.daa, 42);
    cr_expect_eq(op.time_ms, 4200);
    kd_script_op_fini(&op);
    kd_script_op_fini(NULL);

    /* the length bounds the line: trailing bytes are not read */
    const char *two = "{\"revert\": \"b1\"}GARBAGE";
    cr_assert_eq(kd_script_parse_line(two, 16, 1, 0, NULL, &op, &blank, why, sizeof why), KD_OK, "%s", why);
    kd_script_op_fini(&op);

    cr_expect_eq(kd_script_parse_line(two, strlen(two), 12, 0, NULL, &op, &blank, why, sizeof why), KD_ERR_PARSE);
    cr_expect(strncmp(why, "line 12: bad JSON at column ", 28) == 0, "%s", why);
    cr_expect_eq(op.tx_count, 0);
    cr_expect_null(op.txs);

    /* the default daa and time must stay JSON integers */
    cr_expect_eq(kd_script_parse_line(l, strlen(l), 3, INT64_MAX, NULL, &op, &blank, why, sizeof why), KD_ERR_PARSE);
    cr_expect_eq(kd_script_parse_line(l, strlen(l), 3, INT64_MAX / 100, NULL, &op, &blank, why, sizeof why),
                 KD_ERR_PARSE);
    cr_expect(strstr(why, "default time") != NULL, "%s", why);
}

/* --------------------------------------------------------------- key files */

Test(blockscript, keys_from_the_key_directory)
{
    char *dir = make_tmp_dir();
    kd_key k;
    char why[512] = "";
    cr_assert_eq(kd_key_generate(&k), KD_OK);
    cr_assert_eq(kd_key_save(dir, "alice", &k, why, sizeof why), KD_OK, "%s", why);

    kd_script s;
    cr_assert_eq(parse("{\"accept\": {\"hash\": \"b1\", \"txs\": ["
                       "{\"new_episode\": {\"id\": 1, \"type\": \"tictactoe\","
                       " \"participants\": [\"alice\", \"test:bob\"]}},"
                       "{\"move\": {\"episode\": 1, \"row\": 1, \"col\": 1, \"player\": \"X\","
                       " \"signer\": \"alice\"}}]}}",
                       dir, &s, why, sizeof why),
                 KD_OK, "%s", why);
    cr_expect_arr_eq(s.ops[0].txs[0].participants.keys[0].bytes, k.pub.bytes, KD_PUBKEY_LEN);
    cr_expect_arr_eq(s.ops[0].txs[1].signer.secret, k.secret, 32);
    cr_expect_str_eq(s.ops[0].txs[1].signer_ref, "alice");
    kd_script_fini(&s);

    /* a missing key file: the key error, with the line number */
    const char *bad = "# c\n{\"revert\": \"b0\"}\n"
                      "{\"accept\": {\"hash\": \"b1\", \"txs\": [{\"move\": {\"episode\": 1, \"row\": 0,"
                      " \"col\": 0, \"player\": \"X\", \"signer\": \"carol\"}}]}}\n";
    cr_expect_eq(parse(bad, dir, &s, why, sizeof why), KD_ERR_NOT_FOUND);
    cr_expect(strncmp(why, "line 3: txs[0]: signer: ", 24) == 0, "%s", why);
    cr_expect(strstr(why, "carol.key") != NULL, "%s", why);
    cr_expect_eq(s.count, 1, "earlier lines are kept");
    kd_script_fini(&s);

    /* no key directory at all */
    cr_expect_eq(parse("{\"accept\": {\"hash\": \"b1\", \"txs\": [{\"new_episode\": {\"id\": 1,"
                       " \"type\": \"t\", \"participants\": [\"alice\"]}}]}}",
                       NULL, &s, why, sizeof why),
                 KD_ERR_NOT_FOUND);
    cr_expect(strncmp(why, "line 1: txs[0]: participants[0]: ", 33) == 0, "%s", why);
    kd_script_fini(&s);

    static const char *const files[] = {"alice.key", NULL};
    remove_tree(dir, files);
    free(dir);
}

/* --------------------------------------------------------------- round trip */

Test(blockscript, round_trip_parse_write_parse)
{
    const char *script =
        "{\"accept\": {\"hash\": \"genesis\", \"txs\": ["
        "{\"new_episode\": {\"id\": 7, \"type\": \"tictactoe\", \"participants\": [\"test:alice\", \"" PK66
        "\"], \"cap\": 6}},"
        "{\"new_episode\": {\"id\": 8, \"type\": \"other\", \"participants\": []}},"
        "{\"move\": {\"episode\": 7, \"row\": 0, \"col\": 2, \"player\": \"X\", \"signer\": \"test:alice\","
        " \"counter\": 3}, \"tx_id\": \"t1\"},"
        "{\"move\": {\"episode\": 7, \"row\": 200, \"col\": 1, \"player\": \"O\"}},"
        "{\"payload_hex\": \"0a0b\"}, {\"payload_hex\": \"\"}]}}\n"
        "{\"accept\": {\"hash\": \"" H64 "\", \"daa\": 99, \"time\": 5}}\n"
        "{\"revert\": \"" H64 "\"}\n";
    kd_script a, b;
    char why[256] = "";
    cr_assert_eq(parse(script, NULL, &a, why, sizeof why), KD_OK, "%s", why);
    kd_buf out;
    kd_buf_init(&out);
    for (size_t i = 0; i < a.count; i++)
        cr_assert_eq(kd_script_op_write(&a.ops[i], &out), KD_OK);
    cr_assert_eq(kd_buf_append(&out, "", 1), KD_OK);
    cr_log_info("written:\n%s", (const char *)out.data);
    cr_assert_eq(parse((const char *)out.data, NULL, &b, why, sizeof why), KD_OK, "%s\n%s", why,
                 (const char *)out.data);
    cr_assert_eq(a.count, b.count);
    for (size_t i = 0; i < a.count; i++)
        expect_op_equal(&a.ops[i], &b.ops[i]);

    /* the canonical form is a fixed point */
    kd_buf again;
    kd_buf_init(&again);
    for (size_t i = 0; i < b.count; i++)
        cr_assert_eq(kd_script_op_write(&b.ops[i], &again), KD_OK);
    cr_expect_eq(again.len + 1, out.len);
    cr_expect_arr_eq(again.data, out.data, again.len);

    /* a golden line */
    cr_expect(strstr((const char *)out.data, "{\"revert\":\"" H64 "\"}\n") != NULL);
    cr_expect(strstr((const char *)out.data, "\"move\":{\"episode\":7,\"row\":0,\"col\":2,\"player\":\"X\","
                                             "\"signer\":\"test:alice\",\"counter\":3}") != NULL);
    kd_buf_fini(&again);
    kd_buf_fini(&out);
    kd_script_fini(&a);
    kd_script_fini(&b);
}

Test(blockscript, write_refuses_inexpressible_ops)
{
    kd_buf out;
    kd_buf_init(&out);
    kd_script_op op;
    memset(&op, 0, sizeof op);
    cr_expect_eq(kd_script_op_write(&op, &out), KD_ERR_INVALID_ARG, "kind 0");
    op.kind = KD_SCRIPT_ACCEPT;
    op.daa = UINT64_MAX;
    cr_expect_eq(kd_script_op_write(&op, &out), KD_ERR_INVALID_ARG);
    op.daa = 1;
    kd_script_tx tx;
    memset(&tx, 0, sizeof tx);
    tx.kind = KD_SCRIPT_TX_MOVE;
    tx.player = 2;
    op.txs = &tx;
    op.tx_count = 1;
    cr_expect_eq(kd_script_op_write(&op, &out), KD_ERR_INVALID_ARG, "player 2");
    tx.player = 0;
    tx.has_signer = 1; /* but no signer_ref */
    cr_expect_eq(kd_script_op_write(&op, &out), KD_ERR_INVALID_ARG, "signer without ref");
    cr_expect_eq(out.len, 0, "out unchanged on error");
    tx.has_signer = 0;
    cr_expect_eq(kd_script_op_write(&op, &out), KD_OK);
    cr_expect_gt(out.len, 0);
    cr_expect_eq(out.data[out.len - 1], '\n');
    kd_buf_fini(&out);
}

/* ------------------------------------------------------------ generic forms */

/* The bytes a type makes of a JSON text (params when `params`, else a
 * command for `seat`). */
static void type_bytes(const char *type_name, int params, const char *json, int seat, kd_buf *out)
{
    kd_type_table types;
    kd_type_table_init(&types);
    const kd_episode_type *type = kd_type_table_find(&types, type_name);
    cr_assert_not_null(type, "%s is registered", type_name);
    json_t *j = json_loads(json, 0, NULL);
    cr_assert_not_null(j, "%s", json);
    char why[160] = "";
    kd_err err = params ? type->params_from_json(j, out, why, sizeof why)
                        : type->command_from_json(j, seat, out, why, sizeof why);
    cr_assert_eq(err, KD_OK, "%s: %s", json, why);
    json_decref(j);
}

static void expect_body(const kd_script_tx *t, const kd_buf *want, const char *what)
{
    cr_expect_eq(t->body_len, want->len, "%s: %zu bytes, want %zu", what, t->body_len, want->len);
    if (t->body_len == want->len && want->len)
        cr_expect_arr_eq(t->body, want->data, want->len, "%s", what);
}

Test(blockscript, generic_forms_convert_through_the_type_table)
{
    const char *script =
        "{\"accept\": {\"hash\": \"g1\", \"txs\": ["
        "{\"new_episode\": {\"id\": 5, \"type\": \"tictactoe\", \"participants\": [\"test:alice\", \"test:bob\"],"
        " \"params\": {\"cap\": 3}}},"
        "{\"command\": {\"episode\": 5, \"signer\": \"test:alice\", \"command\": {\"row\": 1, \"col\": 2,"
        " \"player\": \"X\"}}},"
        "{\"command\": {\"episode\": 5, \"signer\": \"test:bob\", \"counter\": 1, \"row\": 0, \"col\": 0}},"
        "{\"move\": {\"episode\": 5, \"row\": 1, \"col\": 2, \"player\": \"X\", \"signer\": \"test:alice\"}}]}}\n"
        "{\"accept\": {\"hash\": \"g2\", \"txs\": ["
        "{\"command\": {\"episode\": 5, \"row\": 2, \"col\": 2, \"player\": \"X\"}}]}}\n";
    kd_script s;
    char why[256] = "";
    cr_assert_eq(parse(script, NULL, &s, why, sizeof why), KD_OK, "%s", why);
    cr_assert_eq(s.count, 2);
    cr_assert_eq(s.ops[0].tx_count, 4);
    const kd_script_tx *t = s.ops[0].txs;
    kd_buf want;
    kd_buf_init(&want);

    type_bytes("tictactoe", 1, "{\"cap\": 3}", KD_SEAT_NONE, &want);
    cr_expect_eq(t[0].kind, KD_SCRIPT_TX_NEW_EPISODE);
    expect_body(&t[0], &want, "params");
    cr_expect_str_eq(t[0].json, "{\"cap\":3}");

    want.len = 0;
    type_bytes("tictactoe", 0, "{\"row\": 1, \"col\": 2, \"player\": \"X\"}", KD_SEAT_NONE, &want);
    cr_expect_eq(t[1].kind, KD_SCRIPT_TX_COMMAND);
    cr_expect_str_eq(t[1].type, "tictactoe", "the episode's type, from its new_episode");
    cr_expect_eq(t[1].has_signer, 1);
    expect_body(&t[1], &want, "nested command");
    expect_body(&t[3], &want, "the shorthand makes the same bytes");

    /* inline, no player: bob signs, and bob sits in seat 1 (O) */
    want.len = 0;
    type_bytes("tictactoe", 0, "{\"row\": 0, \"col\": 0, \"player\": \"O\"}", KD_SEAT_NONE, &want);
    expect_body(&t[2], &want, "inline command for the signer's seat");
    cr_expect_eq(t[2].has_counter, 1);
    cr_expect_str_eq(t[2].json, "{\"row\":0,\"col\":0}");
    cr_expect_eq(s.ops[1].txs[0].kind, KD_SCRIPT_TX_COMMAND, "a later line knows the episode too");

    /* write → parse: each line on its own (a command names its type) */
    for (size_t i = 0; i < s.count; i++) {
        kd_buf line;
        kd_buf_init(&line);
        cr_assert_eq(kd_script_op_write(&s.ops[i], &line), KD_OK);
        cr_assert_eq(kd_buf_append(&line, "", 1), KD_OK);
        cr_expect(strstr((const char *)line.data, "\"episode_type\":\"tictactoe\"") != NULL, "%s",
                  (const char *)line.data);
        kd_script_op again;
        int blank = 0;
        cr_assert_eq(
            kd_script_parse_line((const char *)line.data, line.len - 2, 1, 0, NULL, &again, &blank, why, sizeof why),
            KD_OK, "%s: %s", why, (const char *)line.data);
        expect_op_equal(&s.ops[i], &again);
        kd_script_op_fini(&again);
        kd_buf_fini(&line);
    }
    kd_buf_fini(&want);
    kd_script_fini(&s);
}

Test(blockscript, generic_forms_need_a_registered_type_of_the_script)
{
    kd_type_table empty;
    kd_type_table_init_empty(&empty);
    kd_script s;
    kd_script_init_types(&s, &empty);
    char why[256] = "";
    const char *text = "{\"accept\": {\"hash\": \"b1\", \"txs\": [{\"move\": {\"episode\": 1, \"row\": 0, \"col\": 0,"
                       " \"player\": \"X\"}}]}}";
    cr_expect_eq(kd_script_parse(text, strlen(text), NULL, &s, why, sizeof why), KD_ERR_PARSE);
    cr_expect(strstr(why, "line 1: txs[0]: the \"move\" shorthand is for tictactoe episodes") != NULL, "%s", why);
    kd_script_fini(&s);
}

/* ---------------------------------------------------------------- malformed */

typedef struct {
    const char *line; /* placed on line 3, after a comment and a good line */
    kd_err err;
    const char *why; /* expected substring of the message after "line 3: " */
} bad_case;

#define ACC(txs) "{\"accept\": {\"hash\": \"b3\", \"txs\": [" txs "]}}"
#define MOVE(f) ACC("{\"move\": {\"episode\": 1, \"row\": 0, \"col\": 0, \"player\": \"X\"" f "}}")
#define NEWEP(f) ACC("{\"new_episode\": {\"id\": 1, \"type\": \"tictactoe\"" f "}}")

static const bad_case bad_cases[] = {
    {"{\"accept\": {\"hash\": \"b3\",}}", KD_ERR_PARSE, "bad JSON at column "},
    {"{\"accept\": {\"hash\": \"b3\"}} {}", KD_ERR_PARSE, "bad JSON"},
    {"not json", KD_ERR_PARSE, "bad JSON"},
    {"[1, 2]", KD_ERR_PARSE, "an event must be a JSON object"},
    {"{}", KD_ERR_PARSE, "exactly one key"},
    {"{\"accept\": {\"hash\": \"b3\"}, \"revert\": \"b2\"}", KD_ERR_PARSE, "exactly one key"},
    {"{\"reorg\": \"b1\"}", KD_ERR_PARSE, "unknown event \"reorg\""},
    {"{\"accept\": {\"hash\": \"a\", \"hash\": \"b\"}}", KD_ERR_PARSE, "duplicate"},
    {"{\"accept\": {\"hsh\": \"b3\"}}", KD_ERR_PARSE, "unknown field \"hsh\" in accept"},
    {"{\"accept\": {}}", KD_ERR_PARSE, "missing field \"hash\" in accept"},
    {"{\"accept\": \"b3\"}", KD_ERR_PARSE, "accept must be an object"},
    {"{\"accept\": {\"hash\": 5}}", KD_ERR_PARSE, "hash must be a string"},
    {"{\"accept\": {\"hash\": \"\"}}", KD_ERR_PARSE, "hash must not be empty"},
    {"{\"accept\": {\"hash\": \"a\\u0000b\"}}", KD_ERR_PARSE, "NUL"},
    {"{\"accept\": {\"hash\": \"" H64 "0\"}}", KD_ERR_PARSE, "hash has 65 hex digits"},
    {"{\"accept\": {\"hash\": \"0112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\"}}", KD_ERR_PARSE,
     "hash has 63 hex digits; a raw hash has 64"},
    {"{\"accept\": {\"hash\": \"b3\", \"daa\": -1}}", KD_ERR_PARSE, "\"daa\" in accept must be a non-negative integer"},
    {"{\"accept\": {\"hash\": \"b3\", \"daa\": 1.5}}", KD_ERR_PARSE, "\"daa\" in accept must be"},
    {"{\"accept\": {\"hash\": \"b3\", \"time\": \"5\"}}", KD_ERR_PARSE, "\"time\" in accept must be"},
    {"{\"accept\": {\"hash\": \"b3\", \"daa\": null}}", KD_ERR_PARSE, "\"daa\" in accept must be"},
    {"{\"accept\": {\"hash\": \"b3\", \"txs\": {}}}", KD_ERR_PARSE, "txs must be an array"},
    {"{\"revert\": \"\"}", KD_ERR_PARSE, "revert must not be empty"},
    {"{\"revert\": {\"hash\": \"b1\"}}", KD_ERR_PARSE, "revert must be a string"},
    {ACC("5"), KD_ERR_PARSE, "txs[0]: a tx must be an object"},
    {ACC("{\"payload_hex\": \"\"}, {\"foo\": 1}"), KD_ERR_PARSE, "txs[1]: unknown field \"foo\" in tx"},
    {ACC("{\"tx_id\": \"x\"}"), KD_ERR_PARSE, "txs[0]: a tx has exactly one of"},
    {ACC("{\"payload_hex\": \"\", \"move\": {}}"), KD_ERR_PARSE, "exactly one of"},
    {ACC("{\"payload_hex\": \"abc\"}"), KD_ERR_PARSE, "payload_hex must be an even number"},
    {ACC("{\"payload_hex\": \"zz\"}"), KD_ERR_PARSE, "payload_hex must be an even number"},
    {ACC("{\"payload_hex\": 12}"), KD_ERR_PARSE, "payload_hex must be a string"},
    {ACC("{\"payload_hex\": \"\", \"tx_id\": \"" H64 "f\"}"), KD_ERR_PARSE, "tx_id has 65 hex digits"},
    {ACC("{\"new_episode\": []}"), KD_ERR_PARSE, "new_episode must be an object"},
    {NEWEP(", \"participants\": [], \"id\": 0"), KD_ERR_PARSE, "duplicate"},
    {ACC("{\"new_episode\": {\"id\": 0, \"type\": \"t\", \"participants\": []}}"), KD_ERR_PARSE,
     "\"id\" in new_episode must be an integer 1..4294967295"},
    {ACC("{\"new_episode\": {\"id\": 4294967296, \"type\": \"t\", \"participants\": []}}"), KD_ERR_PARSE,
     "\"id\" in new_episode must be an integer"},
    {ACC("{\"new_episode\": {\"type\": \"t\", \"participants\": []}}"), KD_ERR_PARSE,
     "missing field \"id\" in new_episode"},
    {ACC("{\"new_episode\": {\"id\": 1, \"participants\": []}}"), KD_ERR_PARSE,
     "missing field \"type\" in new_episode"},
    {ACC("{\"new_episode\": {\"id\": 1, \"type\": 3, \"participants\": []}}"), KD_ERR_PARSE, "type must be a string"},
    {ACC("{\"new_episode\": {\"id\": 1, \"type\": \"abcdefghijklmnopqrstuvwxyz012345\", \"participants\": []}}"),
     KD_ERR_PARSE, "type is longer than 31 bytes"},
    {NEWEP(""), KD_ERR_PARSE, "missing field \"participants\" in new_episode"},
    {NEWEP(", \"participants\": \"test:a\""), KD_ERR_PARSE, "participants must be an array"},
    {NEWEP(", \"participants\": [\"test:a\",\"test:b\",\"test:c\",\"test:d\",\"test:e\",\"test:f\","
           "\"test:g\",\"test:h\",\"test:i\"]"),
     KD_ERR_PARSE, "participants has 9 entries; at most 8"},
    {NEWEP(", \"participants\": [\"test:a\", \"" H64 "\"]"), KD_ERR_PARSE,
     "participants[1] has 64 hex digits; a compressed pubkey has 66"},
    {NEWEP(", \"participants\": [\"" PK66 "00\"]"), KD_ERR_PARSE, "participants[0] has 68 hex digits"},
    {NEWEP(", \"participants\": [7]"), KD_ERR_PARSE, "participants[0] must be a string"},
    {NEWEP(", \"participants\": [\"\"]"), KD_ERR_PARSE, "participants[0] must not be empty"},
    {NEWEP(", \"participants\": [], \"cap\": 256"), KD_ERR_PARSE, "\"cap\" in new_episode must be an integer 0..255"},
    {NEWEP(", \"participants\": [], \"cap\": \"6\""), KD_ERR_PARSE, "\"cap\" in new_episode must be"},
    {NEWEP(", \"participants\": [], \"kap\": 6"), KD_ERR_PARSE, "unknown field \"kap\" in new_episode"},
    {NEWEP(", \"participants\": [\"test:\"]"), KD_ERR_INVALID_ARG, "participants[0]: test key"},
    {ACC("{\"move\": 1}"), KD_ERR_PARSE, "move must be an object"},
    {MOVE(", \"rw\": 1"), KD_ERR_PARSE, "txs[0]: unknown field \"rw\" in move"},
    {ACC("{\"move\": {\"episode\": 1, \"row\": 256, \"col\": 0, \"player\": \"X\"}}"), KD_ERR_PARSE,
     "\"row\" in move must be an integer 0..255"},
    {ACC("{\"move\": {\"episode\": 1, \"row\": -1, \"col\": 0, \"player\": \"X\"}}"), KD_ERR_PARSE,
     "\"row\" in move must be"},
    {ACC("{\"move\": {\"episode\": 1, \"row\": 0, \"player\": \"X\"}}"), KD_ERR_PARSE, "missing field \"col\" in move"},
    {ACC("{\"move\": {\"episode\": 0, \"row\": 0, \"col\": 0, \"player\": \"X\"}}"), KD_ERR_PARSE,
     "\"episode\" in move must be an integer 1..4294967295"},
    {ACC("{\"move\": {\"row\": 0, \"col\": 0, \"player\": \"X\"}}"), KD_ERR_PARSE, "missing field \"episode\" in move"},
    {ACC("{\"move\": {\"episode\": 1, \"row\": 0, \"col\": 0}}"), KD_ERR_PARSE, "missing field \"player\" in move"},
    {ACC("{\"move\": {\"episode\": 1, \"row\": 0, \"col\": 0, \"player\": \"Z\"}}"), KD_ERR_PARSE,
     "player must be \"X\" or \"O\" (or 0/1), got \"Z\""},
    {ACC("{\"move\": {\"episode\": 1, \"row\": 0, \"col\": 0, \"player\": 2}}"), KD_ERR_PARSE,
     "player must be \"X\" or \"O\""},
    {ACC("{\"move\": {\"episode\": 1, \"row\": 0, \"col\": 0, \"player\": \"x\"}}"), KD_ERR_PARSE, "player must be"},
    {MOVE(", \"signer\": \"" PK66 "\""), KD_ERR_PARSE, "signer: a raw pubkey cannot sign"},
    {MOVE(", \"signer\": 1"), KD_ERR_PARSE, "signer must be a string"},
    {MOVE(", \"signer\": \"\""), KD_ERR_PARSE, "signer must not be empty"},
    {MOVE(", \"signer\": \"test:0123456789012345678901234567890123456789012345678901234567890123456789"
          "0123456789\""),
     KD_ERR_PARSE, "signer is longer than 79 bytes"},
    {MOVE(", \"signer\": \"test:01234567890123456789012345678901234567890123456789012345678901234\""),
     KD_ERR_INVALID_ARG, "signer: test key"},
    {MOVE(", \"signer\": \"nobody\""), KD_ERR_NOT_FOUND, "signer: "},
    {MOVE(", \"signer\": \"../etc\""), KD_ERR_INVALID_ARG, "signer: key name"},
    {MOVE(", \"counter\": -1"), KD_ERR_PARSE, "\"counter\" in move must be a non-negative integer"},
    {MOVE(", \"counter\": true"), KD_ERR_PARSE, "\"counter\" in move must be"},
    {ACC("{\"command\": 3}"), KD_ERR_PARSE, "txs[0]: command must be an object"},
    {ACC("{\"command\": {\"episode\": 9, \"row\": 0, \"col\": 0}}"), KD_ERR_PARSE,
     "txs[0]: the type of episode 9 is not known"},
    {ACC("{\"command\": {\"episode\": 9, \"episode_type\": \"go\", \"command\": {}}}"), KD_ERR_PARSE,
     "episode type \"go\" is not registered"},
    {ACC("{\"command\": {\"episode\": 9, \"episode_type\": \"tictactoe\", \"command\": {\"row\": 300,"
         " \"col\": 0, \"player\": \"X\"}}}"),
     KD_ERR_PARSE, "txs[0]: command: "},
    {ACC("{\"command\": {\"episode\": 9, \"episode_type\": \"tictactoe\", \"command\": {}, \"x\": 1}}"), KD_ERR_PARSE,
     "unknown field \"x\" in command"},
    {ACC("{\"command\": {\"episode\": 9, \"episode_type\": \"tictactoe\"}}"), KD_ERR_PARSE, "command has no command"},
    {ACC("{\"command\": {\"row\": 0}}"), KD_ERR_PARSE, "missing field \"episode\" in command"},
    {NEWEP(", \"participants\": [], \"cap\": 3, \"params\": {\"cap\": 3}"), KD_ERR_PARSE,
     "both \"params\" and the shorthand \"cap\""},
    {ACC("{\"new_episode\": {\"id\": 1, \"type\": \"t\", \"participants\": [], \"params\": {}}}"), KD_ERR_PARSE,
     "type \"t\" is not registered"},
    {NEWEP(", \"participants\": [], \"params\": {\"cap\": \"x\"}"), KD_ERR_PARSE, "txs[0]: params: "},
    {ACC("{\"new_episode\": {\"id\": 2, \"type\": \"tictactoe\", \"participants\": []}},"
         " {\"command\": {\"episode\": 2, \"episode_type\": \"other\", \"row\": 0}}"),
     KD_ERR_PARSE, "episode 2 is a tictactoe episode in this script, not other"},
};

#define BAD_COUNT (sizeof bad_cases / sizeof bad_cases[0])

/* Criterion may run each case in a fresh process where the table's string
 * pointers differ, so the parameter is an index into the table. */
ParameterizedTestParameters(blockscript, malformed)
{
    size_t *idx = cr_malloc(BAD_COUNT * sizeof *idx);
    for (size_t i = 0; i < BAD_COUNT; i++)
        idx[i] = i;
    return cr_make_param_array(size_t, idx, BAD_COUNT);
}

ParameterizedTest(size_t *i, blockscript, malformed)
{
    const bad_case *c = &bad_cases[*i];
    char *dir = make_tmp_dir(); /* an empty key directory */
    char *text = fmt("# a comment\n{\"revert\": \"b1\"}\n%s\n{\"revert\": \"b4\"}\n", c->line);
    kd_script s;
    char why[512] = "";
    kd_err err = parse(text, dir, &s, why, sizeof why);
    cr_expect_eq(err, c->err, "%s: got %s (%s), want %s", c->line, kd_err_code(err), why, kd_err_code(c->err));
    cr_expect(strncmp(why, "line 3: ", 8) == 0, "%s: %s", c->line, why);
    cr_expect(strstr(why, c->why) != NULL, "%s:\n  got  %s\n  want %s", c->line, why, c->why);
    cr_expect_eq(s.count, 1, "only the earlier line is kept");
    kd_script_fini(&s);
    free(text);
    rmdir(dir);
    free(dir);
}

/* One line per limit: the txs count and the line length. */
static char *accept_with_raw_txs(size_t n)
{
    kd_buf b;
    kd_buf_init(&b);
    const char *head = "{\"accept\": {\"hash\": \"big\", \"txs\": [";
    cr_assert_eq(kd_buf_append(&b, head, strlen(head)), KD_OK);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(kd_buf_append(&b, i ? ",{\"payload_hex\":\"\"}" : "{\"payload_hex\":\"\"}", i ? 19 : 18), KD_OK);
    cr_assert_eq(kd_buf_append(&b, "]}}", 4), KD_OK); /* with the NUL */
    return (char *)b.data;
}

Test(blockscript, too_many_txs)
{
    char why[256] = "";
    kd_script s;
    char *ok = accept_with_raw_txs(KD_SCRIPT_MAX_TXS);
    cr_expect_eq(parse(ok, NULL, &s, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(s.ops[0].tx_count, KD_SCRIPT_MAX_TXS);
    kd_script_fini(&s);
    free(ok);

    char *big = accept_with_raw_txs(KD_SCRIPT_MAX_TXS + 1);
    char *text = fmt("{\"revert\": \"x\"}\n%s\n", big);
    cr_expect_eq(parse(text, NULL, &s, why, sizeof why), KD_ERR_PARSE);
    cr_expect_str_eq(why, "line 2: accept has 10001 txs; at most 10000");
    cr_expect_eq(s.count, 1);
    kd_script_fini(&s);
    free(text);
    free(big);
}

Test(blockscript, line_too_long)
{
    size_t n = KD_SCRIPT_MAX_LINE + 64;
    char *text = malloc(n + 1);
    cr_assert_not_null(text);
    const char *head = "{\"revert\": \"";
    memcpy(text, head, strlen(head));
    memset(text + strlen(head), 'a', n - strlen(head) - 2);
    memcpy(text + n - 2, "\"}", 2);
    text[n] = '\0';
    kd_script s;
    char why[256] = "";
    cr_expect_eq(parse(text, NULL, &s, why, sizeof why), KD_ERR_PARSE);
    cr_expect_str_eq(why, "line 1: the line is longer than 1048576 bytes");
    kd_script_fini(&s);
    free(text);
}

/* ------------------------------------------------------------------- files */

Test(blockscript, load_file_and_errors)
{
    char *dir = make_tmp_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/s.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("# game\n{\"accept\": {\"hash\": \"b1\"}}\n{\"revert\": \"b1\"}\n", f);
    fclose(f);

    kd_script s;
    kd_script_init(&s);
    char why[512] = "";
    cr_assert_eq(kd_script_load(path, NULL, &s, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(s.count, 2);
    cr_expect_eq(s.ops[1].line, 3);

    /* appending continues the daa from the script's last accept */
    cr_assert_eq(kd_script_load(path, NULL, &s, why, sizeof why), KD_OK, "%s", why);
    cr_expect_eq(s.count, 4);
    cr_expect_eq(s.ops[2].daa, 2);
    kd_script_fini(&s);

    char missing[4200];
    snprintf(missing, sizeof missing, "%s/nope.jsonl", dir);
    kd_script_init(&s);
    cr_expect_eq(kd_script_load(missing, NULL, &s, why, sizeof why), KD_ERR_NOT_FOUND);
    cr_expect(strstr(why, missing) != NULL, "%s", why);
    cr_expect(strstr(why, "No such file") != NULL, "%s", why);
    kd_script_fini(&s);

    static const char *const files[] = {"s.jsonl", NULL};
    remove_tree(dir, files);
    free(dir);
}
