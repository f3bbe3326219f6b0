/*
 * engine_layout_test.c — where the store keeps what (schema 3,
 * engine/store.h): episodes in slots that follow creation order whatever
 * their ids, so the live ones lie together; a revert of a creation frees
 * its slot and id; the undo records of a block live in its record and go
 * with its effects when it becomes final; a schema-2 store (episodes by
 * id, a db of undo records) is refused read-only with what to do, and
 * upgraded in place by a writer, after which nothing the rules see has
 * changed and its blocks still revert.
 * Raw LMDB looks at the layout, and forges the schema-2 store.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine/support.h"

static et_env env, other;

static void teardown(void)
{
    et_env_fini(&other);
    et_env_fini(&env);
}

TestSuite(engine_layout, .fini = teardown, .timeout = 60);

/* Block `name` creates episode `id` and plays X's first move in it. */
static void create_and_move(kd_engine *e, const char *name, uint32_t id)
{
    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, id, "alice", "bob", -1);
    et_add_move(&t, id, 1, 1, 0, "alice", 0);
    et_accept_ok(e, name, &t);
    et_txs_fini(&t);
}

Test(engine_layout, slots_follow_creation_order_whatever_the_ids)
{
    static const uint32_t ids[] = {900, 5, 70000, 12};
    et_env_open(&env, 0, 0);
    for (size_t i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%zu", i);
        create_and_move(env.engine, name, ids[i]);
    }
    uint32_t listed[8];
    cr_assert_eq(et_episode_ids(env.engine, listed, 8), 4);
    cr_expect(listed[0] == 5 && listed[1] == 12 && listed[2] == 900 && listed[3] == 70000, "listed by id: %u %u %u %u",
              listed[0], listed[1], listed[2], listed[3]);
    et_env_close(&env);
    for (size_t i = 0; i < 4; i++) {
        uint64_t slot = 0;
        cr_assert(et_raw_slot(env.dir, ids[i], &slot), "episode %u has a slot", ids[i]);
        cr_expect_eq(slot, i + 1, "episode %u, created %zu-th, is in slot %zu, not %llu", ids[i], i + 1, i + 1,
                     (unsigned long long)slot);
    }
    cr_expect_eq(et_raw_count(env.dir, "states"), 4);

    /* Reverting the newest creation frees its id and slot; the next
     * creation takes the slot after the last one still there. */
    et_env_reopen(&env);
    et_revert_ok(env.engine, "c3");
    create_and_move(env.engine, "c4", 77);
    et_env_close(&env);
    uint64_t slot = 0;
    cr_expect_not(et_raw_slot(env.dir, 12, &slot), "the reverted creation left no id behind");
    cr_expect(et_raw_slot(env.dir, 77, &slot) && slot == 4, "the next creation took slot 4, not %llu",
              (unsigned long long)slot);
    cr_expect_eq(et_raw_count(env.dir, "states"), 4);
    cr_expect_eq(et_raw_count(env.dir, "ids"), 4);
    cr_expect_not(et_raw_has_db(env.dir, "undo"), "no db of undo records");
    cr_expect_not(et_raw_has_db(env.dir, "episodes"), "no db of episodes by id");
    cr_expect_eq(et_raw_undo_count(env.dir), 4, "each block's record holds its command's undo record");
}

Test(engine_layout, a_schema_2_store_is_upgraded_in_place_and_still_reverts)
{
    et_env_open(&env, 0, 0);
    uint8_t fp[4][KD_HASH_LEN];
    kd_tip tips[4];
    static const uint32_t ids[] = {31, 7, 4000};
    et_fingerprint(env.engine, fp[0]);
    et_tip(env.engine, &tips[0]);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        create_and_move(env.engine, name, ids[i]);
        et_fingerprint(env.engine, fp[i + 1]);
        et_tip(env.engine, &tips[i + 1]);
    }
    et_env_close(&env);
    et_raw_downgrade_to_schema_2(env.dir);
    cr_assert(et_raw_has_db(env.dir, "undo") && !et_raw_has_db(env.dir, "states"), "forged as schema 2");
    cr_assert_eq(et_raw_undo_count(env.dir), 0);

    /* A reader is told what to do, and changes nothing. */
    char why[512] = "";
    ET_EXPECT_ERR(et_env_attach(&other, env.dir, 0, 0, 1, why, sizeof why), KD_ERR_SCHEMA);
    cr_expect_not_null(strstr(why, "schema version 2; this kdapp reads version 4"), "%s", why);
    cr_expect_not_null(strstr(why, "kdapp engine --data"), "the refusal says how to upgrade: %s", why);
    et_env_close(&other);
    cr_expect(et_raw_has_db(env.dir, "undo"), "a reader does not upgrade");

    /* A writer upgrades it: the same episodes, tip and digest. */
    et_env_reopen(&env);
    uint8_t now[KD_HASH_LEN];
    kd_tip tip;
    et_fingerprint(env.engine, now);
    et_tip(env.engine, &tip);
    et_expect_hash_eq(now, fp[3], "the episodes are the same after the upgrade");
    et_expect_hash_eq(tip.digest, tips[3].digest, "the digest is the same after the upgrade");
    et_env_close(&env);
    cr_expect_not(et_raw_has_db(env.dir, "undo"), "the db of undo records is gone");
    cr_expect_not(et_raw_has_db(env.dir, "episodes"), "the db of episodes by id is gone");
    cr_expect_eq(et_raw_undo_count(env.dir), 3, "the undo records moved into their blocks");
    uint64_t slot = 0;
    cr_expect(et_raw_slot(env.dir, 4000, &slot) && slot == 3, "slots in id order: 4000 is third, not %llu",
              (unsigned long long)slot);

    /* Its blocks revert with the moved undo records, back to each digest. */
    et_env_reopen(&env);
    for (int i = 2; i >= 0; i--) {
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        et_revert_ok(env.engine, name);
        et_fingerprint(env.engine, now);
        et_tip(env.engine, &tip);
        et_expect_hash_eq(now, fp[i], name);
        et_expect_hash_eq(tip.digest, tips[i].digest, name);
    }
    /* And new episodes go on after the last slot. */
    create_and_move(env.engine, "n1", 99);
    et_env_close(&env);
    cr_expect(et_raw_slot(env.dir, 99, &slot) && slot == 1, "an empty store starts at slot 1, not %llu",
              (unsigned long long)slot);
}
