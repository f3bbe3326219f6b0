/*
 * table_test.c — open tables (engine/table.h, issue 39) on tic-tac-toe:
 * a creation leaving a seat open makes a table, not an episode; a
 * stranger's signed join takes the seat and starts the game; the creator
 * cancels a table nobody joined; a table past its deadline takes no join.
 * Each bad input is refused with its code and changes nothing (the
 * tables and episodes read the same before and after); a reverted join
 * puts the table back as it was, and the join applies again.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"
#include "engine/wire.h"
#include "tools/sim/replay.h"

static et_env env;

static void setup(void) { et_env_open(&env, 3, 0); }
static void teardown(void) { et_env_fini(&env); }

TestSuite(table, .init = setup, .fini = teardown, .timeout = 60);

/* Appends a line per table to `out`: what a refusal must leave as it was. */
static kd_err describe(void *ctx, const kd_table_info *t)
{
    kd_buf *out = ctx;
    char line[160];
    int n =
        snprintf(line, sizeof line, "%u %s open=%x taken=%x deadline=%llu cancelled=%d started=%d\n", t->episode_id,
                 t->type_name, t->open_seats, t->taken, (unsigned long long)t->deadline_daa, t->cancelled, t->started);
    return kd_buf_append(out, line, (size_t)n);
}

/* The tables and the episode count, as one string (caller frees). */
static char *snapshot_of(kd_engine *engine)
{
    kd_buf out;
    kd_buf_init(&out);
    kd_read *rd;
    ET_ASSERT_OK(kd_engine_read_begin(engine, &rd));
    ET_ASSERT_OK(kd_read_tables(rd, describe, &out));
    kd_engine_read_end(rd);
    char tail[32];
    int n = snprintf(tail, sizeof tail, "episodes=%zu", et_episode_count(engine));
    ET_ASSERT_OK(kd_buf_append(&out, tail, (size_t)n + 1));
    return (char *)out.data;
}

static char *snapshot(void) { return snapshot_of(env.engine); }

/* The one table `id` (asserting it exists). */
typedef struct {
    uint32_t id;
    kd_table_info t;
    int found;
} find_ctx;

static kd_err find(void *ctx, const kd_table_info *t)
{
    find_ctx *f = ctx;
    if (t->episode_id == f->id) {
        f->t = *t;
        f->t.params = NULL;
        f->found = 1;
    }
    return KD_OK;
}

static kd_table_info table(uint32_t id)
{
    find_ctx f = {.id = id};
    kd_read *rd;
    ET_ASSERT_OK(kd_engine_read_begin(env.engine, &rd));
    ET_ASSERT_OK(kd_read_tables(rd, find, &f));
    kd_engine_read_end(rd);
    cr_assert(f.found, "table %u exists", id);
    return f.t;
}

/* Applies one payload in block `name`; its tx's verdict. */
static void one(const char *name, const kd_buf *payload, kd_tx_result *out)
{
    et_txs txs;
    et_txs_init(&txs);
    et_add_raw(&txs, payload->data, payload->len);
    kd_msg_result res;
    et_accept(env.engine, name, &txs, &res);
    cr_assert_eq(res.status, KD_MSG_APPLIED, "block %s applied", name);
    cr_assert_eq(res.tx_count, 1);
    *out = res.txs[0];
    kd_msg_result_fini(&res);
    et_txs_fini(&txs);
}

/* A payload that must be refused with `code`, changing nothing. */
static void refused(const char *name, kd_buf *payload, const char *code)
{
    char *before = snapshot();
    kd_tx_result r;
    one(name, payload, &r);
    cr_expect(!r.applied, "%s: refused", name);
    cr_expect_str_eq(r.code, code, "%s: %s (%s)", name, r.code, r.detail);
    char *after = snapshot();
    cr_expect_str_eq(after, before, "%s changes nothing", name);
    free(before);
    free(after);
    kd_buf_fini(payload);
}

static void applied(const char *name, kd_buf *payload)
{
    kd_tx_result r;
    one(name, payload, &r);
    cr_assert(r.applied, "%s: applied, got %s (%s)", name, r.code, r.detail);
    kd_buf_fini(payload);
}

/* Encodes `m` into `b` in place of what it held, and frees it. */
static void repack(Kdapp__EpisodeMessage *m, kd_buf *b)
{
    b->len = 0;
    size_t n = kdapp__episode_message__get_packed_size(m);
    ET_ASSERT_OK(kd_buf_reserve(b, n));
    kdapp__episode_message__pack(m, b->data);
    b->len = n;
    kdapp__episode_message__free_unpacked(m, NULL);
}

/* Table `id`: tic-tac-toe with `named` in seat 0 (NULL: open) and seat 1
 * open, waiting `timeout` DAA score (0: the longest a table may, as
 * support.c's blocks have DAA scores from their names, in no order). */
static kd_buf open_table(uint32_t id, const char *named, uint32_t timeout)
{
    kd_participants p = {.count = 2};
    if (named)
        p.keys[0] = et_key(named).pub;
    kd_buf b;
    kd_buf_init(&b);
    kd_consent c; /* the named seat consents, to the wait too; an open one joins */
    kd_key k = et_key(named ? named : "nobody");
    uint32_t wait = timeout ? timeout : 8640000u;
    if (named)
        ET_ASSERT_OK(kd_consent_sign_table(&k, 0, kd_engine_chain(env.engine), id, "tictactoe", &p, NULL, 0, wait, &c));
    ET_ASSERT_OK(kd_wire_new_table(id, "tictactoe", &p, NULL, 0, &c, named ? 1 : 0, wait, &b));
    return b;
}

static kd_buf join(uint32_t id, uint32_t seat, const char *who, const uint8_t *params, size_t len)
{
    kd_key k = et_key(who);
    kd_buf b;
    kd_buf_init(&b);
    ET_ASSERT_OK(kd_wire_join(kd_engine_chain(env.engine), id, "tictactoe", NULL, 0, seat, &k, params, len, &b));
    return b;
}

/* A join by `who` whose signature is `signer`'s. */
static kd_buf join_signed_by(uint32_t id, uint32_t seat, const char *who, const char *signer)
{
    kd_buf b = join(id, seat, signer, NULL, 0);
    Kdapp__EpisodeMessage *m = kdapp__episode_message__unpack(NULL, b.len, b.data);
    cr_assert(m);
    kd_key k = et_key(who);
    memcpy(m->join->pubkey.data, k.pub.bytes, KD_PUBKEY_LEN);
    repack(m, &b);
    return b;
}

static kd_buf cancel(uint32_t id, const char *who)
{
    kd_key k = et_key(who);
    kd_buf b;
    kd_buf_init(&b);
    ET_ASSERT_OK(kd_wire_cancel(kd_engine_chain(env.engine), id, "tictactoe", &k, &b));
    return b;
}

static kd_buf move(uint32_t id, uint8_t row, uint8_t col, uint8_t player, const char *signer, uint64_t counter)
{
    kd_buf b;
    kd_buf_init(&b);
    et_move_payload(&b, id, row, col, player, signer, counter);
    return b;
}

Test(table, a_stranger_joins_and_the_game_starts)
{
    kd_buf b = open_table(5, "alice", 0);
    applied("open", &b);
    kd_table_info t = table(5);
    cr_expect_eq(t.open_seats, 2u);
    cr_expect_eq(t.taken, 1u);
    cr_expect_eq(et_episode_count(env.engine), 0, "a table is not an episode yet");
    b = move(5, 0, 0, 0, "alice", 0);
    refused("early move", &b, "unknown_episode");
    /* the bad inputs of issue 39, each refused and changing nothing */
    b = join_signed_by(5, 1, "bob", "carol");
    refused("for another key", &b, "bad_signature");
    uint8_t junk[3] = {1, 2, 3};
    b = join(5, 1, "bob", junk, sizeof junk);
    refused("a bad commitment", &b, "bad_params");
    b = join(5, 0, "bob", NULL, 0);
    refused("a taken seat", &b, "seat_taken");
    b = join(5, 1, "alice", NULL, 0);
    refused("twice", &b, "already_seated");
    b = cancel(5, "bob");
    refused("a stranger cancels", &b, "denied");
    b = join(6, 1, "bob", NULL, 0);
    refused("no such table", &b, "not_a_table");
    /* bob sits down: the game starts with alice as X and bob as O */
    b = join(5, 1, "bob", NULL, 0);
    applied("join", &b);
    t = table(5);
    cr_expect(t.started);
    cr_expect_eq(t.taken, 3u);
    kd_episode_snapshot snap;
    ET_ASSERT_OK(kd_engine_episode_read(env.engine, 5, &snap));
    cr_expect_eq(snap.participants.count, 2);
    cr_expect_arr_eq(snap.participants.keys[1].bytes, et_key("bob").pub.bytes, KD_PUBKEY_LEN);
    kd_episode_snapshot_fini(&snap);
    b = move(5, 0, 0, 0, "alice", 0);
    applied("alice plays", &b);
    b = move(5, 1, 1, 1, "bob", 1);
    applied("bob plays", &b);
    b = join(5, 1, "carol", NULL, 0);
    refused("a full table", &b, "table_closed");
    b = cancel(5, "alice");
    refused("cancel a started table", &b, "table_closed");
}

Test(table, cancel_before_anyone_joins_and_not_after)
{
    kd_buf b = open_table(7, "alice", 0);
    applied("open", &b);
    b = cancel(7, "alice");
    applied("cancel", &b);
    cr_expect(table(7).cancelled);
    b = join(7, 1, "bob", NULL, 0);
    refused("join a cancelled table", &b, "table_closed");
    b = cancel(7, "alice");
    refused("cancel twice", &b, "table_closed");
    /* both seats open: bob's join leaves it waiting, and no one may cancel it then */
    b = open_table(8, NULL, 0);
    applied("open two", &b);
    b = join(8, 0, "bob", NULL, 0);
    applied("bob joins", &b);
    cr_expect(!table(8).started);
    b = cancel(8, "bob");
    refused("cancel a joined table", &b, "table_joined");
    b = join(8, 1, "bob", NULL, 0);
    refused("join twice", &b, "already_seated");
    b = join(8, 1, "carol", NULL, 0);
    applied("carol joins", &b);
    cr_expect(table(8).started);
}

Test(table, a_table_past_its_deadline_takes_no_join)
{
    kd_buf b = open_table(9, "alice", 100);
    applied("open", &b);
    kd_table_info t = table(9);
    cr_expect_eq(t.deadline_daa, t.creation_daa + 100);
    /* a block whose DAA score (support.c: from its name) is past the deadline */
    char name[32];
    for (int i = 0;; i++) {
        snprintf(name, sizeof name, "late%d", i);
        uint8_t h[KD_HASH_LEN];
        et_hash(name, h);
        if (1 + kd_get_u32be(h) % 1000000u > t.deadline_daa)
            break;
    }
    b = join(9, 1, "bob", NULL, 0);
    refused(name, &b, "table_closed");
}

/* Whoever sees a table's creation on its way cannot send a copy that
 * waits another time than its seat agreed to: the consent covers
 * join_timeout (engine/crypto.h). */
Test(table, a_copy_with_another_join_timeout_is_refused)
{
    kd_buf b = open_table(9, "alice", 100);
    Kdapp__EpisodeMessage *m = kdapp__episode_message__unpack(NULL, b.len, b.data);
    cr_assert(m);
    m->new_episode->join_timeout = 1; /* closes at once */
    repack(m, &b);
    refused("copy", &b, "no_consent");
    b = open_table(9, "alice", 100);
    applied("open", &b);
}

Test(table, a_reverted_join_puts_the_table_back)
{
    kd_buf b = open_table(5, "alice", 0);
    applied("open", &b);
    char *open = snapshot();
    kd_tip tip0;
    et_tip(env.engine, &tip0);
    b = join(5, 1, "bob", NULL, 0);
    applied("join", &b);
    cr_expect_eq(et_episode_count(env.engine), 1);
    et_revert_ok(env.engine, "join");
    char *back = snapshot();
    cr_expect_str_eq(back, open, "the table is open again, the episode gone");
    kd_tip tip1;
    et_tip(env.engine, &tip1);
    cr_expect_arr_eq(tip1.digest, tip0.digest, KD_HASH_LEN);
    b = join(5, 1, "bob", NULL, 0);
    applied("join again", &b);
    cr_expect(table(5).started);
    et_revert_ok(env.engine, "join again");
    et_revert_ok(env.engine, "open");
    char *none = snapshot();
    cr_expect_str_eq(none, "episodes=0", "reverting the creation removes the table");
    free(open);
    free(back);
    free(none);
}

/* A log of opens, joins (one refused, one reverted and applied again), a
 * cancel, a refused cancel and moves: `kdapp replay` and `kdapp verify`
 * (kd_replay_log into a store following the same chain, full and
 * canonical, signatures checked and trusted) rebuild the same episodes,
 * the same tables and the same digest; a store of another chain does not
 * take the joins, which sign the chain. */
Test(table, replay_and_verify_reproduce_joins_and_a_cancel)
{
    kd_buf b = open_table(5, "alice", 0);
    applied("open", &b);
    b = open_table(7, "alice", 0);
    applied("open seven", &b);
    b = open_table(8, NULL, 0);
    applied("open eight", &b);
    b = join(5, 1, "alice", NULL, 0);
    refused("twice", &b, "already_seated");
    b = join(5, 1, "bob", NULL, 0);
    applied("join", &b);
    et_revert_ok(env.engine, "join");
    b = join(5, 1, "bob", NULL, 0);
    applied("join again", &b);
    b = cancel(7, "alice");
    applied("cancel", &b);
    b = join(7, 1, "bob", NULL, 0);
    refused("join a cancelled table", &b, "table_closed");
    b = join(8, 0, "carol", NULL, 0);
    applied("carol joins", &b);
    b = cancel(8, "carol");
    refused("cancel a joined table", &b, "table_joined");
    b = move(5, 0, 0, 0, "alice", 0);
    applied("alice plays", &b);
    char *live = snapshot();
    for (int trust = 0; trust <= 1; trust++)
        for (int canonical = 0; canonical <= 1; canonical++) {
            et_env copy;
            char dir[512], why[256] = "";
            et_tmpdir(dir, sizeof dir);
            kd_engine_options o = {.durability = KD_DURABILITY_RELAXED, .chain = kd_engine_chain(env.engine)};
            ET_ASSERT_OK(et_env_attach_with(&copy, dir, 3, &o, why, sizeof why));
            copy.own_dir = 1;
            kd_engine_trust_replayed_signatures(copy.engine, trust);
            kd_replay_report rep;
            ET_ASSERT_OK(kd_replay_log(env.engine, copy.engine, canonical, &rep));
            cr_expect(kd_replay_ok(&rep), "replay (trust %d, canonical %d): %s %s", trust, canonical,
                      rep.first_bad_what, rep.episode_what);
            cr_expect(rep.digest_match);
            char *again = snapshot_of(copy.engine);
            cr_expect_str_eq(again, live, "the same tables (trust %d, canonical %d)", trust, canonical);
            free(again);
            et_env_fini(&copy);
        }
    free(live);
    /* verified into a store of another chain: the joins sign this one */
    et_env other;
    char dir[512], why[256] = "";
    et_tmpdir(dir, sizeof dir);
    kd_engine_options oo = {.durability = KD_DURABILITY_RELAXED, .chain = "local:00112233445566778899aabbccddeeff"};
    ET_ASSERT_OK(et_env_attach_with(&other, dir, 3, &oo, why, sizeof why));
    other.own_dir = 1;
    kd_replay_report rep;
    ET_ASSERT_OK(kd_replay_log(env.engine, other.engine, 0, &rep));
    cr_expect(!kd_replay_ok(&rep), "a join signed for another chain diverges");
    et_env_fini(&other);
}
