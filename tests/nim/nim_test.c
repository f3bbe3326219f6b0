/*
 * nim_test.c — Nim through the engine's contract alone (kd_nim_ops): the
 * rules and every refusal code, execute → rollback byte-identical from
 * random positions, the encodings and their validation, and perft counted
 * by hand (execute + rollback of every command in form) against an
 * independent count over heap tuples.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"
#include "nim/nim.h"
#include "nim/nim_support.h"

static const kd_block_meta no_meta = {0};

/* Executes {heap, take} signed by `signer` (NULL: unsigned). */
static kd_err play_as(kd_nim_state *s, uint8_t heap, uint8_t take, const kd_pubkey *signer, kd_nim_undo *undo,
                      kd_reject *rej)
{
    uint8_t cmd[KD_NIM_COMMAND_LEN] = {KD_NIM_VERSION, heap, take};
    memset(rej, 0, sizeof *rej);
    return kd_nim_ops.execute(s, cmd, sizeof cmd, signer, &no_meta, undo, rej);
}

/* The same signed by test key `who` (NULL: unsigned). */
static kd_err play(kd_nim_state *s, uint8_t heap, uint8_t take, const char *who, kd_nim_undo *undo, kd_reject *rej)
{
    kd_pubkey key;
    if (who)
        key = et_key(who).pub;
    return play_as(s, heap, take, who ? &key : NULL, undo, rej);
}

/* Expects a refusal by rule `code`, the state untouched. */
static void expect_refused(kd_nim_state *s, uint8_t heap, uint8_t take, const char *who, const char *code)
{
    kd_nim_state before = *s;
    kd_nim_undo undo;
    kd_reject rej;
    kd_err err = play(s, heap, take, who, &undo, &rej);
    ET_EXPECT_ERR(err, KD_ERR_RULE);
    cr_expect_str_eq(rej.code, code, "h%u-%u by %s: code %s (%s)", heap, take, who ? who : "nobody", rej.code,
                     rej.detail);
    cr_expect_neq(rej.detail[0], '\0', "a refusal says why");
    cr_expect_eq(memcmp(&before, s, sizeof before), 0, "a refused command leaves the state untouched");
    int listed = 0;
    for (const kd_rule_code *c = kd_nim_rule_codes; c->code; c++)
        listed |= strcmp(c->code, rej.code) == 0;
    cr_expect(listed, "code %s is in kd_nim_rule_codes", rej.code);
}

static void expect_played(kd_nim_state *s, uint8_t heap, uint8_t take, const char *who)
{
    kd_nim_undo undo;
    kd_reject rej;
    kd_err err = play(s, heap, take, who, &undo, &rej);
    cr_assert_eq(err, KD_OK, "h%u-%u by %s: %s (%s)", heap, take, who, kd_err_code(err), rej.detail);
}

/* -------------------------------------------------------------- rules */

Test(nim_rules, a_game_to_the_last_counter)
{
    kd_nim_state s;
    nt_new_game(&s, NULL);
    cr_expect_eq(s.heap_count, 3);
    cr_expect_eq(s.left[0], 3);
    cr_expect_eq(s.left[1], 4);
    cr_expect_eq(s.left[2], 5);
    expect_played(&s, 1, 3, "alice");
    cr_expect_eq(s.turn, KD_NIM_SECOND);
    expect_played(&s, 2, 4, "bob");
    expect_played(&s, 3, 4, "alice");
    cr_expect_eq(s.status, KD_NIM_IN_PROGRESS);
    expect_played(&s, 3, 1, "bob");
    cr_expect_eq(s.status, KD_NIM_SECOND_WON, "whoever takes the last counter wins");
    cr_expect_eq(s.move_count, 4);
    expect_refused(&s, 1, 1, "alice", "game_over");
}

Test(nim_rules, every_refusal_code)
{
    kd_nim_state s;
    nt_new_game(&s, NULL);
    expect_refused(&s, 1, 1, NULL, "unauthorised");
    expect_refused(&s, 1, 1, "carol", "unauthorised");
    expect_refused(&s, 1, 1, "bob", "not_your_turn");
    expect_refused(&s, 4, 1, "alice", "no_such_heap");
    expect_refused(&s, 255, 1, "alice", "no_such_heap");
    expect_refused(&s, 1, 4, "alice", "take_too_many");
    expect_refused(&s, 3, 255, "alice", "take_too_many");
    expect_played(&s, 3, 5, "alice");
    expect_refused(&s, 3, 1, "bob", "take_too_many"); /* an emptied heap */
    expect_refused(&s, 1, 1, "alice", "not_your_turn");
}

Test(nim_rules, rule_codes_are_unique_and_short)
{
    size_t n = 0;
    for (const kd_rule_code *c = kd_nim_rule_codes; c->code; c++, n++) {
        cr_expect_lt(strlen(c->code), (size_t)KD_RULE_CODE_MAX);
        cr_expect_not_null(c->meaning);
        for (const kd_rule_code *d = c + 1; d->code; d++)
            cr_expect_str_neq(c->code, d->code);
    }
    cr_expect_eq(n, 5);
}

Test(nim_rules, malformed_commands_are_not_rule_refusals)
{
    kd_nim_state s;
    nt_new_game(&s, NULL);
    kd_pubkey alice = et_key("alice").pub;
    const uint8_t bad[][4] = {{0}, {2, 1, 1}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1, 0}};
    const size_t lens[] = {0, 3, 3, 3, 4};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        kd_nim_undo undo;
        kd_reject rej = {{0}, {0}};
        ET_EXPECT_ERR(kd_nim_ops.execute(&s, bad[i], lens[i], &alice, &no_meta, &undo, &rej), KD_ERR_BAD_COMMAND);
        cr_expect_neq(rej.detail[0], '\0');
    }
}

Test(nim_rules, creation_checks_participants_and_params)
{
    kd_nim_state s;
    kd_reject rej = {{0}, {0}};
    kd_participants one = {.count = 1};
    one.keys[0] = et_key("alice").pub;
    uint8_t params[] = {KD_NIM_VERSION, 1, 7};
    ET_EXPECT_ERR(kd_nim_ops.init(&s, &one, params, sizeof params, &no_meta, &rej), KD_ERR_BAD_PARTICIPANTS);
    kd_participants two = {.count = 2};
    two.keys[0] = et_key("alice").pub;
    memset(two.keys[1].bytes, 0xff, KD_PUBKEY_LEN); /* prefix 02, x = 2^256 - 1 >= p: never a valid key */
    two.keys[1].bytes[0] = 0x02;
    ET_EXPECT_ERR(kd_nim_ops.init(&s, &two, params, sizeof params, &no_meta, &rej), KD_ERR_BAD_PARTICIPANTS);
    two.keys[1] = two.keys[0]; /* one holder may play both seats */
    ET_EXPECT_ERR(kd_nim_ops.init(&s, &two, params, sizeof params, &no_meta, &rej), KD_OK);
    ET_EXPECT_ERR(kd_nim_ops.init(&s, &two, NULL, 0, &no_meta, &rej), KD_ERR_BAD_PARAMS); /* unresolved */
    const uint8_t bad[][9] = {{2, 1, 3}, {1, 0}, {1, 7, 1, 1, 1, 1, 1, 1, 1}, {1, 2, 3}, {1, 1, 0}, {1, 1, 16}};
    const size_t lens[] = {3, 2, 9, 3, 3, 3};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        kd_buf eff;
        kd_buf_init(&eff);
        ET_EXPECT_ERR(kd_nim_ops.init(&s, &two, bad[i], lens[i], &no_meta, &rej), KD_ERR_BAD_PARAMS);
        ET_EXPECT_ERR(kd_nim_ops.resolve_params(NULL, bad[i], lens[i], &eff, &rej), KD_ERR_BAD_PARAMS);
        kd_buf_fini(&eff);
    }
}

Test(nim_rules, resolve_params_takes_the_default_from_its_config)
{
    kd_buf eff;
    kd_buf_init(&eff);
    kd_reject rej = {{0}, {0}};
    ET_ASSERT_OK(kd_nim_ops.resolve_params(NULL, NULL, 0, &eff, &rej));
    const uint8_t builtin[] = {KD_NIM_VERSION, 3, 3, 4, 5};
    cr_assert_eq(eff.len, sizeof builtin);
    cr_expect_eq(memcmp(eff.data, builtin, sizeof builtin), 0);
    eff.len = 0;
    kd_nim_config cfg = {.heaps = {.count = 2, .sizes = {1, 15}}};
    ET_ASSERT_OK(kd_nim_ops.resolve_params(&cfg, NULL, 0, &eff, &rej));
    const uint8_t configured[] = {KD_NIM_VERSION, 2, 1, 15};
    cr_assert_eq(eff.len, sizeof configured);
    cr_expect_eq(memcmp(eff.data, configured, sizeof configured), 0);
    eff.len = 0;
    const uint8_t given[] = {KD_NIM_VERSION, 1, 9};
    ET_ASSERT_OK(kd_nim_ops.resolve_params(&cfg, given, sizeof given, &eff, &rej));
    cr_assert_eq(eff.len, sizeof given, "explicit params win over the default");
    cr_expect_eq(memcmp(eff.data, given, sizeof given), 0);
    kd_buf_fini(&eff);
}

Test(nim_rules, heaps_parse)
{
    kd_nim_heaps h;
    cr_assert_eq(kd_nim_heaps_parse("3,4,5", &h), 0);
    cr_expect_eq(h.count, 3);
    cr_expect_eq(h.sizes[2], 5);
    cr_assert_eq(kd_nim_heaps_parse("1, 15", &h), 0);
    cr_expect_eq(h.sizes[1], 15);
    const char *bad[] = {"", "0", "16", "3,,4", "3,4,", "a", "1,2,3,4,5,6,7", "3;4", "0003"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(kd_nim_heaps_parse(bad[i], &h), -1, "\"%s\" is refused", bad[i]);
}

/* ------------------------------------------- undo and random playouts */

static void encode_state(const kd_nim_state *s, kd_buf *out)
{
    out->len = 0;
    ET_ASSERT_OK(kd_nim_ops.encode_state(s, out));
}

/* From random positions of random games: every command in form is tried;
 * each one executed is rolled back to the identical bytes and struct, and
 * its undo record survives encode → decode. */
Test(nim_undo, execute_rollback_is_byte_identical, .timeout = 60)
{
    uint64_t rng = et_seed("nim_undo.execute_rollback_is_byte_identical", 12);
    kd_buf before, after, rec;
    kd_buf_init(&before);
    kd_buf_init(&after);
    kd_buf_init(&rec);
    const char *who[2] = {"alice", "bob"};
    const kd_pubkey signers[2] = {et_key("alice").pub, et_key("bob").pub};
    for (int game = 0; game < 200; game++) {
        kd_nim_heaps h = {.count = (uint8_t)(1 + et_below(&rng, KD_NIM_MAX_HEAPS))};
        for (size_t i = 0; i < h.count; i++)
            h.sizes[i] = (uint8_t)(1 + et_below(&rng, KD_NIM_MAX_COUNTERS));
        kd_nim_state s;
        nt_new_game(&s, &h);
        while (s.status == KD_NIM_IN_PROGRESS) {
            encode_state(&s, &before);
            kd_nim_state copy = s;
            for (unsigned heap = 1; heap <= KD_NIM_MAX_HEAPS + 1; heap++)
                for (unsigned take = 1; take <= KD_NIM_MAX_COUNTERS + 1; take++) {
                    kd_nim_undo undo, back;
                    kd_reject rej;
                    kd_err err = play_as(&s, (uint8_t)heap, (uint8_t)take, &signers[s.turn], &undo, &rej);
                    if (err) {
                        ET_ASSERT_ERR(err, KD_ERR_RULE);
                        continue;
                    }
                    rec.len = 0;
                    ET_ASSERT_OK(kd_nim_ops.encode_undo(&undo, &rec));
                    ET_ASSERT_OK(kd_nim_ops.decode_undo(rec.data, rec.len, &back));
                    cr_assert_eq(memcmp(&undo, &back, sizeof undo), 0);
                    encode_state(&s, &after);
                    kd_nim_state decoded;
                    ET_ASSERT_OK(kd_nim_ops.decode_state(after.data, after.len, &decoded));
                    cr_assert_eq(memcmp(&decoded, &s, sizeof s), 0, "the state after h%u-%u round-trips", heap, take);
                    ET_ASSERT_OK(kd_nim_ops.rollback(&s, &back));
                    encode_state(&s, &after);
                    cr_assert_eq(after.len, before.len);
                    cr_assert_eq(memcmp(after.data, before.data, before.len), 0, "rollback of h%u-%u", heap, take);
                    cr_assert_eq(memcmp(&copy, &s, sizeof s), 0);
                }
            /* one random legal move forward */
            unsigned heap;
            do
                heap = 1 + et_below(&rng, s.heap_count);
            while (s.left[heap - 1] == 0);
            expect_played(&s, (uint8_t)heap, (uint8_t)(1 + et_below(&rng, s.left[heap - 1])), who[s.turn]);
        }
    }
    kd_buf_fini(&before);
    kd_buf_fini(&after);
    kd_buf_fini(&rec);
}

Test(nim_undo, rollback_refuses_a_foreign_record)
{
    kd_nim_state s;
    nt_new_game(&s, NULL);
    kd_nim_undo none = {1, 1};
    ET_EXPECT_ERR(kd_nim_ops.rollback(&s, &none), KD_ERR_DECODE); /* no move was made */
    expect_played(&s, 2, 3, "alice");                             /* heaps 3 1 5 */
    kd_nim_state before = s;
    const kd_nim_undo foreign[] = {
        {1, 1}, /* heap 1 is full: it cannot get a counter back */
        {2, 4}, /* 1 + 4 > 4 */
        {4, 1}, /* no heap 4 */
        {0, 1}, /* heaps are numbered from 1 */
        {3, 0}, /* a move takes one at least */
    };
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        ET_EXPECT_ERR(kd_nim_ops.rollback(&s, &foreign[i]), KD_ERR_DECODE);
        cr_expect_eq(memcmp(&before, &s, sizeof s), 0, "a refused rollback leaves the state untouched");
    }
    /* Two moves of one counter each: no record of the last one can give
     * back two, as the first move took one at least. */
    kd_nim_state g;
    nt_new_game(&g, NULL);
    expect_played(&g, 1, 1, "alice");
    expect_played(&g, 1, 1, "bob"); /* heaps 1 4 5 */
    kd_nim_undo two = {1, 2};
    ET_EXPECT_ERR(kd_nim_ops.rollback(&g, &two), KD_ERR_DECODE);
    kd_nim_undo one = {1, 1};
    ET_EXPECT_ERR(kd_nim_ops.rollback(&g, &one), KD_OK);
    cr_expect_eq(g.left[0], 2);
    cr_expect_eq(g.turn, KD_NIM_SECOND);
}

/* ---------------------------------------------------------- encodings */

Test(nim_encoding, state_decode_validates)
{
    kd_nim_state s, d;
    nt_new_game(&s, NULL);
    expect_played(&s, 1, 3, "alice");
    kd_buf b;
    kd_buf_init(&b);
    encode_state(&s, &b);
    cr_assert_eq(b.len, (size_t)KD_NIM_STATE_FIXED_LEN + 6);
    ET_ASSERT_OK(kd_nim_ops.decode_state(b.data, b.len, &d));
    cr_expect_eq(memcmp(&s, &d, sizeof s), 0);
    for (size_t n = 0; n < b.len; n++)
        ET_EXPECT_ERR(kd_nim_ops.decode_state(b.data, n, &d), KD_ERR_DECODE);
    uint8_t longer[KD_NIM_STATE_FIXED_LEN + 7];
    memcpy(longer, b.data, b.len);
    longer[b.len] = 0;
    ET_EXPECT_ERR(kd_nim_ops.decode_state(longer, b.len + 1, &d), KD_ERR_DECODE);
    /* single-byte corruptions that break an invariant */
    struct {
        size_t at;
        uint8_t value;
    } bad[] = {
        {0, 2},                          /* version */
        {1, 0},                          /* heap count */
        {1, 7},                          /* heap count */
        {2, KD_NIM_FIRST_WON},           /* over with counters left */
        {3, 0},                          /* turn disagrees with move count */
        {7, 4},                          /* more moves than counters taken */
        {8, 0x04},                       /* key form */
        {KD_NIM_STATE_FIXED_LEN, 0},     /* start 0 */
        {KD_NIM_STATE_FIXED_LEN, 16},    /* start 16 */
        {KD_NIM_STATE_FIXED_LEN + 3, 5}, /* left > start */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t copy[KD_NIM_STATE_FIXED_LEN + 6];
        memcpy(copy, b.data, b.len);
        copy[bad[i].at] = bad[i].value;
        ET_EXPECT_ERR(kd_nim_ops.decode_state(copy, b.len, &d), KD_ERR_DECODE);
        kd_nim_state zero;
        memset(&zero, 0, sizeof zero);
        cr_expect_eq(memcmp(&d, &zero, sizeof d), 0, "corruption %zu leaves the output zeroed", i);
    }
    kd_buf_fini(&b);
}

Test(nim_encoding, finished_state_round_trips_with_its_winner)
{
    kd_nim_state s, d;
    kd_nim_heaps one = {.count = 1, .sizes = {2}};
    nt_new_game(&s, &one);
    expect_played(&s, 1, 2, "alice");
    cr_assert_eq(s.status, KD_NIM_FIRST_WON);
    kd_buf b;
    kd_buf_init(&b);
    encode_state(&s, &b);
    ET_ASSERT_OK(kd_nim_ops.decode_state(b.data, b.len, &d));
    cr_expect_eq(memcmp(&s, &d, sizeof s), 0);
    b.data[2] = KD_NIM_SECOND_WON; /* the wrong winner */
    ET_EXPECT_ERR(kd_nim_ops.decode_state(b.data, b.len, &d), KD_ERR_DECODE);
    kd_buf_fini(&b);
}

Test(nim_encoding, undo_decode_validates)
{
    kd_nim_undo u;
    const uint8_t good[] = {KD_NIM_VERSION, 2, 3};
    ET_ASSERT_OK(kd_nim_ops.decode_undo(good, sizeof good, &u));
    cr_expect_eq(u.heap, 2);
    cr_expect_eq(u.take, 3);
    const uint8_t bad[][4] = {{2, 2, 3}, {1, 0, 3}, {1, 7, 3}, {1, 2, 0}, {1, 2, 16}, {1, 2, 3, 0}};
    const size_t lens[] = {3, 3, 3, 3, 3, 4};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        ET_EXPECT_ERR(kd_nim_ops.decode_undo(bad[i], lens[i], &u), KD_ERR_DECODE);
    ET_EXPECT_ERR(kd_nim_ops.decode_undo(good, 2, &u), KD_ERR_DECODE);
    ET_EXPECT_ERR(kd_nim_ops.decode_undo(NULL, 0, &u), KD_ERR_DECODE);
}

/* -------------------------------------------------------------- perft */

/* perft through the ops: every command in form is executed; those the
 * rules accept are counted, and each is rolled back and the state checked
 * byte-identical to before. */
static uint64_t perft(kd_nim_state *s, unsigned depth, const kd_pubkey signers[2], kd_buf *scratch)
{
    if (depth == 0)
        return 1;
    size_t mark = scratch->len;
    ET_ASSERT_OK(kd_nim_ops.encode_state(s, scratch));
    size_t len = scratch->len - mark;
    uint64_t total = 0;
    const kd_pubkey *signer = &signers[s->turn];
    for (unsigned heap = 1; heap <= KD_NIM_MAX_HEAPS; heap++)
        for (unsigned take = 1; take <= KD_NIM_MAX_COUNTERS; take++) {
            uint8_t cmd[KD_NIM_COMMAND_LEN] = {KD_NIM_VERSION, (uint8_t)heap, (uint8_t)take};
            kd_nim_undo undo;
            kd_err err = kd_nim_ops.execute(s, cmd, sizeof cmd, signer, &no_meta, &undo, NULL);
            if (err) {
                ET_ASSERT_ERR(err, KD_ERR_RULE);
                continue;
            }
            total += perft(s, depth - 1, signers, scratch);
            ET_ASSERT_OK(kd_nim_ops.rollback(s, &undo));
            size_t at = scratch->len;
            ET_ASSERT_OK(kd_nim_ops.encode_state(s, scratch));
            cr_assert_eq(scratch->len - at, len);
            cr_assert_eq(memcmp(scratch->data + at, scratch->data + mark, len), 0, "rollback of h%u-%u", heap, take);
            scratch->len = at;
        }
    scratch->len = mark;
    return total;
}

Test(nim_perft, counts_agree_with_the_tuple_count, .timeout = 120)
{
    /* The first two by hand: 3 + 4 + 5 = 12 moves; after taking t there
     * are 12 - t, so depth 2 is 30 + 38 + 45 = 113. */
    static const uint64_t known[] = {1, 12, 113};
    const kd_pubkey signers[2] = {et_key("alice").pub, et_key("bob").pub};
    kd_nim_state s;
    nt_new_game(&s, NULL);
    kd_buf scratch;
    kd_buf_init(&scratch);
    for (unsigned depth = 0; depth <= 5; depth++) {
        uint8_t h[KD_NIM_MAX_HEAPS] = {3, 4, 5};
        uint64_t want = nt_tuple_count(h, 3, depth);
        if (depth < sizeof known / sizeof known[0])
            cr_expect_eq(want, known[depth], "tuple count at depth %u", depth);
        uint64_t got = perft(&s, depth, signers, &scratch);
        cr_log_info("nim perft [3,4,5] depth %u: %llu", depth, (unsigned long long)got);
        cr_expect_eq(got, want, "perft depth %u: %llu, tuple count %llu", depth, (unsigned long long)got,
                     (unsigned long long)want);
    }
    /* Deep enough to end games: the tuple count of [1,2] is 3 moves then
     * fewer, and nothing is left after 3 plies. */
    kd_nim_heaps small = {.count = 2, .sizes = {1, 2}};
    nt_new_game(&s, &small);
    for (unsigned depth = 0; depth <= 4; depth++) {
        uint8_t h[KD_NIM_MAX_HEAPS] = {1, 2};
        cr_expect_eq(perft(&s, depth, signers, &scratch), nt_tuple_count(h, 2, depth), "[1,2] depth %u", depth);
    }
    uint8_t h[KD_NIM_MAX_HEAPS] = {1, 2};
    cr_expect_eq(nt_tuple_count(h, 2, 4), 0, "no sequence of 4 moves empties [1,2] and goes on");
    kd_buf_fini(&scratch);
}
