/*
 * engine_listener_test.c — the commit listener seen through a handler set
 * (handlers/handler.h): initialize, command and rollback events arrive in
 * application order (rollbacks newest first), once per durable commit,
 * never for duplicates or refusals; the state an event carries is the state
 * after the whole commit, and NULL for a rolled-back creation.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/support.h"
#include "handlers/handler.h"
#include "handlers/view.h"

static et_env env;

static void setup(void) { et_env_open(&env, 0, 0); }
static void teardown(void) { et_env_fini(&env); }

TestSuite(engine_listener, .init = setup, .fini = teardown, .timeout = 30);

#define MAX_SEEN 64

typedef struct {
    kd_event_kind kind;
    uint32_t episode_id;
    int has_state;
    uint32_t move_count; /* of the state after the commit */
    int has_undo, has_command, has_signer;
    uint64_t log_seq;
    int reverted;
    int deleted_view;
} seen_event;

typedef struct {
    seen_event ev[MAX_SEEN];
    size_t n;
    size_t commits;
    int reverted[16];
    uint32_t applied[16], rejected[16];
} recorder;

static void record(void *ctx, const kd_episode_event *event, const kd_commit *commit)
{
    recorder *r = ctx;
    cr_assert_lt(r->n, MAX_SEEN);
    seen_event *s = &r->ev[r->n++];
    s->kind = event->kind;
    s->episode_id = event->episode_id;
    s->has_state = event->state != NULL;
    s->move_count = event->state ? ((const kd_ttt_state *)event->state)->move_count : 0;
    s->has_undo = event->undo != NULL;
    s->has_command = event->command != NULL && event->command_len > 0;
    s->has_signer = event->signer != NULL;
    s->log_seq = commit->log_seq;
    s->reverted = commit->reverted;
    kd_type_table types;
    kd_type_table_init(&types);
    kd_episode_view view;
    kd_episode_view_init(&view);
    cr_assert_eq(kd_episode_view_from_event(&types, event, commit, &view), KD_OK);
    s->deleted_view = view.deleted;
    /* The view carries the type's public view exactly when the episode exists. */
    cr_expect_eq(view.type, kd_type_table_find(&types, event->ops->type_name));
    cr_expect_eq(view.view.len > 0, event->state != NULL);
    cr_expect_eq(view.state.len > 0, event->state != NULL);
    kd_episode_view_fini(&view);
}

static void record_commit(void *ctx, const kd_commit *commit)
{
    recorder *r = ctx;
    cr_assert_lt(r->commits, 16);
    r->reverted[r->commits] = commit->reverted;
    r->applied[r->commits] = commit->txs_applied;
    r->rejected[r->commits] = commit->txs_rejected;
    r->commits++;
}

static void expect_event(const recorder *r, size_t i, kd_event_kind kind, uint32_t id, int has_state,
                         uint32_t move_count)
{
    cr_assert_lt(i, r->n, "event %zu missing (only %zu)", i, r->n);
    const seen_event *s = &r->ev[i];
    cr_expect_eq(s->kind, kind, "event %zu: kind %s, want %s", i, kd_event_kind_name(s->kind),
                 kd_event_kind_name(kind));
    cr_expect_eq(s->episode_id, id, "event %zu: episode %u, want %u", i, s->episode_id, id);
    cr_expect_eq(s->has_state, has_state, "event %zu: state %s", i, s->has_state ? "set" : "NULL");
    cr_expect_eq(s->deleted_view, !has_state, "event %zu: view.deleted", i);
    if (has_state)
        cr_expect_eq(s->move_count, move_count, "event %zu: move_count", i);
}

Test(engine_listener, sees_initialize_command_and_rollback_in_order)
{
    static recorder rec;
    memset(&rec, 0, sizeof rec);
    kd_handler_set set;
    kd_handler_set_init(&set);
    kd_handler h = {.name = "recorder",
                    .on_initialize = record,
                    .on_command = record,
                    .on_rollback = record,
                    .on_commit_end = record_commit,
                    .ctx = &rec};
    ET_ASSERT_OK(kd_handler_set_add(&set, &h));
    kd_handler_set_attach(&set, env.engine);

    et_txs t;
    et_txs_init(&t);
    et_add_create(&t, 1, "alice", "bob", -1);
    et_add_create(&t, 2, "carol", "dave", 3);
    et_add_move(&t, 1, 0, 0, 1, "bob", 0); /* rejected: no event */
    et_accept_ok(env.engine, "b1", &t);
    cr_assert_eq(rec.n, 2);
    expect_event(&rec, 0, KD_EVENT_INITIALIZE, 1, 1, 0);
    expect_event(&rec, 1, KD_EVENT_INITIALIZE, 2, 1, 0);
    cr_expect_eq(rec.commits, 1);
    cr_expect_eq(rec.applied[0], 2);
    cr_expect_eq(rec.rejected[0], 1);

    et_txs_clear(&t);
    et_add_move(&t, 1, 0, 0, 0, "alice", 0);
    et_add_move(&t, 2, 1, 1, 0, "carol", 0);
    et_add_move(&t, 1, 2, 2, 1, "bob", 1);
    et_accept_ok(env.engine, "b2", &t);
    cr_assert_eq(rec.n, 5);
    /* The state is the state after the whole commit: episode 1 has 2 moves
     * in both of its events. */
    expect_event(&rec, 2, KD_EVENT_COMMAND, 1, 1, 2);
    expect_event(&rec, 3, KD_EVENT_COMMAND, 2, 1, 1);
    expect_event(&rec, 4, KD_EVENT_COMMAND, 1, 1, 2);
    for (size_t i = 2; i < 5; i++) {
        cr_expect(rec.ev[i].has_undo, "command %zu carries its undo record", i);
        cr_expect(rec.ev[i].has_command, "command %zu carries its bytes", i);
        cr_expect(rec.ev[i].has_signer, "command %zu carries its signer", i);
    }

    /* Duplicates and refusals make no events. */
    kd_msg_result res;
    et_accept(env.engine, "b2", &t, &res);
    cr_assert_eq(res.status, KD_MSG_DUPLICATE);
    kd_msg_result_fini(&res);
    et_revert(env.engine, "b1", &res);
    cr_assert_eq(res.status, KD_MSG_REFUSED);
    kd_msg_result_fini(&res);
    cr_expect_eq(rec.n, 5);
    cr_expect_eq(rec.commits, 2);

    /* Revert b2: newest first. */
    et_revert_ok(env.engine, "b2");
    cr_assert_eq(rec.n, 8);
    expect_event(&rec, 5, KD_EVENT_ROLLBACK, 1, 1, 0);
    expect_event(&rec, 6, KD_EVENT_ROLLBACK, 2, 1, 0);
    expect_event(&rec, 7, KD_EVENT_ROLLBACK, 1, 1, 0);
    for (size_t i = 5; i < 8; i++) {
        cr_expect(rec.ev[i].reverted);
        cr_expect(rec.ev[i].has_undo, "rollback of a command %zu carries its undo record", i);
    }

    /* Revert b1: both creations undone, newest first, with no state. */
    et_revert_ok(env.engine, "b1");
    cr_assert_eq(rec.n, 10);
    expect_event(&rec, 8, KD_EVENT_ROLLBACK, 2, 0, 0);
    expect_event(&rec, 9, KD_EVENT_ROLLBACK, 1, 0, 0);
    cr_expect_eq(rec.ev[8].has_undo, 0, "a creation has no undo record");
    cr_expect_eq(rec.commits, 4);
    cr_expect_eq(rec.reverted[2], 1);
    cr_expect_eq(rec.reverted[3], 1);
    cr_expect_eq(rec.ev[9].log_seq, rec.ev[8].log_seq, "one commit");

    kd_engine_set_listener(env.engine, NULL, NULL);
    et_txs_fini(&t);
}
