/*
 * gateway_duties.c — the gateway acts for the seats whose keys it holds
 * in games with secrets (kd_episode_type.secret_commit / secret_duty).
 *
 * At kdapp_start_episode each such seat commits (kd_gw_commit_secrets,
 * through kd_seat_commit for this gateway's store): the house to its VRF
 * key, a sea-battle player to its fleet, each with a fresh binding. Then
 * after every view of such an episode the views thread queues the episode
 * (kd_gw_duties_notify), and the duties thread reads it, asks the type
 * what each of those seats owes (a reveal, the answer to a shot), signs it
 * with the seat's key and submits it, waiting for its block before the
 * next. A seat's secret is derived from its key and the binding in the
 * state each time (kd_seat_seed), and only when that binding is this key's
 * for this store: a commitment the gateway did not make (a caller's bogus
 * one, one copied from another store) is never acted on. Nothing secret is
 * stored beyond the key file.
 *
 * A duty submitted twice (a view seen again before its block, or a second
 * gateway with the same keys) is refused by the rules the second time;
 * that is logged and changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "engine/wire.h"
#include "episodes/secrets.h"
#include "mcp/gateway/gateway_int.h"

#define DUTY_ROUNDS 16 /* duties paid for one episode before the next is served */

kd_err kd_gw_commit_secrets(kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                            json_t *params, char *why, size_t why_len)
{
    if (!t->secret_commit)
        return KD_OK;
    uint8_t store[KD_STORE_ID_LEN];
    kd_err err = kd_engine_store_id(gw->o.engine, store);
    if (err) {
        snprintf(why, why_len, "cannot read the store's id to bind the commitments to: %s", kd_err_str(err));
        return err;
    }
    for (size_t seat = 0; !err && seat < parts->count; seat++) {
        kd_key key;
        char name[KD_KEY_NAME_MAX + 1];
        if (kd_gw_find_key(gw, &parts->keys[seat], &key, name, sizeof name) != KD_OK)
            continue; /* a seat whose key is elsewhere commits for itself */
        err = kd_seat_commit(t, &key, store, id, (int)seat, params, why, why_len);
        if (err == KD_ERR_UNSUPPORTED)
            err = KD_OK;
        memset(&key, 0, sizeof key);
    }
    return err;
}

kd_err kd_gw_creation_payload(kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                              const uint8_t *params, size_t len, kd_buf *payload)
{
    kd_consent consents[KD_MAX_PARTICIPANTS];
    size_t n = 0;
    kd_err err = KD_OK;
    for (size_t seat = 0; !err && seat < parts->count; seat++) {
        kd_key key;
        char name[KD_KEY_NAME_MAX + 1];
        if (!(t->ops->consent_seats >> seat & 1) ||
            kd_gw_find_key(gw, &parts->keys[seat], &key, name, sizeof name) != KD_OK)
            continue;
        err = kd_consent_sign(&key, (uint32_t)seat, id, t->ops->type_name, parts, params, len, &consents[n]);
        n += !err;
        memset(&key, 0, sizeof key);
    }
    return err ? err : kd_wire_new_episode_consented(id, t->ops->type_name, parts, params, len, consents, n, payload);
}

void kd_gw_duties_notify(kd_gateway *gw, uint32_t id)
{
    pthread_mutex_lock(&gw->lock);
    size_t i = 0;
    while (i < gw->n_duties && gw->duties[i] != id)
        i++;
    if (i == gw->n_duties && gw->n_duties < KD_GW_DUTY_QUEUE) {
        gw->duties[gw->n_duties++] = id;
        pthread_cond_broadcast(&gw->duty_cond);
    } else if (i == gw->n_duties) {
        KD_LOG_W("gateway", "duties: the queue is full; episode %u waits for its next view", id);
    }
    pthread_mutex_unlock(&gw->lock);
}

/* The command the seat of `key` owes in `snap` as a signed payload: KD_OK
 * with `payload` filled, KD_ERR_NO_MOVE when it owes nothing or the seat's
 * commitment is not this key's for this store (never acted on). */
static kd_err duty_payload(kd_gateway *gw, const kd_episode_type *t, const kd_episode_snapshot *snap, int seat,
                           const kd_key *key, kd_buf *payload)
{
    uint8_t seed[KD_SECRET_SEED_LEN], store[KD_STORE_ID_LEN];
    kd_err err = kd_engine_store_id(gw->o.engine, store);
    if (!err)
        err = kd_seat_seed(t, key, store, snap->id, seat, snap->state, seed);
    if (err == KD_ERR_NOT_FOUND)
        KD_LOG_D("gateway", "duties: episode %u: seat %d's commitment is not this gateway's: nothing done", snap->id,
                 seat);
    if (err)
        return err == KD_ERR_IO ? err : KD_ERR_NO_MOVE;
    kd_buf cmd;
    kd_buf_init(&cmd);
    err = t->secret_duty(snap->state, seat, seed, &cmd);
    memset(seed, 0, sizeof seed);
    if (!err)
        err = kd_wire_signed_command(snap->id, cmd.data, cmd.len, key, snap->undo_depth, payload);
    kd_buf_fini(&cmd);
    return err;
}

/* Pays one duty of episode `id`, if a seat the gateway holds owes one:
 * KD_OK when one was applied, KD_ERR_NO_MOVE when nothing is owed, another
 * error when it could not be paid (KD_ERR_RULE: the rules refused it). */
static kd_err pay_one(kd_gateway *gw, uint32_t id)
{
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(gw->o.engine, id, &snap);
    if (err)
        return err == KD_ERR_NOT_FOUND ? KD_ERR_NO_MOVE : err;
    const kd_episode_type *t = kd_gw_type(gw, snap.ops->type_name);
    err = KD_ERR_NO_MOVE;
    for (size_t seat = 0; t && t->secret_duty && err == KD_ERR_NO_MOVE && seat < snap.participants.count; seat++) {
        kd_key key;
        char name[KD_KEY_NAME_MAX + 1], why[512] = "";
        if (kd_gw_find_key(gw, &snap.participants.keys[seat], &key, name, sizeof name) != KD_OK)
            continue;
        kd_buf payload;
        kd_buf_init(&payload);
        err = duty_payload(gw, t, &snap, (int)seat, &key, &payload);
        memset(&key, 0, sizeof key);
        kd_gw_outcome out;
        int maybe = 0;
        if (!err && !(err = kd_gw_submit_and_wait(gw, &payload, &out, &maybe, why, sizeof why)) && !out.applied) {
            KD_LOG_I("gateway", "duties: episode %u: the duty of %s (seat %zu) was refused: %s: %s", id, name, seat,
                     out.error_code, out.error);
            err = KD_ERR_RULE; /* not again for this view */
        } else if (err && err != KD_ERR_NO_MOVE)
            KD_LOG_W("gateway", "duties: episode %u: the duty of %s (seat %zu) was not paid: %s", id, name, seat,
                     why[0] ? why : kd_err_str(err));
        kd_buf_fini(&payload);
    }
    kd_episode_snapshot_fini(&snap);
    return err;
}

static void *serve_duties(void *arg)
{
    kd_gateway *gw = arg;
    for (;;) {
        pthread_mutex_lock(&gw->lock);
        while (!gw->stopping && gw->n_duties == 0)
            pthread_cond_wait(&gw->duty_cond, &gw->lock);
        if (gw->stopping) {
            pthread_mutex_unlock(&gw->lock);
            return NULL;
        }
        uint32_t id = gw->duties[0];
        memmove(gw->duties, gw->duties + 1, (gw->n_duties - 1) * sizeof gw->duties[0]);
        gw->n_duties--;
        pthread_mutex_unlock(&gw->lock);
        for (int round = 0; round < DUTY_ROUNDS && pay_one(gw, id) == KD_OK; round++)
            ;
    }
}

kd_err kd_gw_duties_start(kd_gateway *gw)
{
    if (pthread_cond_init(&gw->duty_cond, NULL) != 0)
        return KD_ERR_NOMEM;
    if (pthread_create(&gw->duty_thread, NULL, serve_duties, gw) != 0) {
        pthread_cond_destroy(&gw->duty_cond);
        return KD_ERR_NOMEM;
    }
    gw->duties_started = 1;
    return KD_OK;
}

void kd_gw_duties_stop(kd_gateway *gw)
{
    if (!gw->duties_started)
        return;
    pthread_mutex_lock(&gw->lock);
    gw->stopping = 1;
    pthread_cond_broadcast(&gw->duty_cond);
    pthread_cond_broadcast(&gw->changed); /* ends a wait for a duty's block */
    pthread_mutex_unlock(&gw->lock);
    pthread_join(gw->duty_thread, NULL);
    pthread_cond_destroy(&gw->duty_cond);
    gw->duties_started = 0;
}

/* The seat `player` names in `t` (its name, or its number), or KD_SEAT_NONE. */
static int player_seat(const kd_episode_type *t, size_t seats, const json_t *player)
{
    int seat = KD_SEAT_NONE;
    if (json_is_string(player))
        seat = kd_episode_type_seat(t, json_string_value(player));
    else if (json_is_integer(player) && json_integer_value(player) >= 0 &&
             json_integer_value(player) < (json_int_t)seats)
        seat = (int)json_integer_value(player);
    return seat >= 0 && (size_t)seat < seats ? seat : KD_SEAT_NONE;
}

kd_err kd_gw_own_secret(kd_gateway *gw, const kd_episode_view *v, const json_t *player, json_t *out, char *why,
                        size_t why_len)
{
    const kd_episode_type *t = v->type;
    if (!t || !t->secret_view || v->deleted) {
        snprintf(why, why_len, "episode %u (%s) has no secret a seat could see: leave out \"player\"", v->episode_id,
                 v->type_name);
        return KD_ERR_UNSUPPORTED;
    }
    int seat = player_seat(t, v->participants.count, player);
    if (seat == KD_SEAT_NONE) {
        snprintf(why, why_len, "\"player\" must name a seat of episode %u: %s (or 0) or %s (or 1)", v->episode_id,
                 kd_episode_type_seat_name(t, 0), kd_episode_type_seat_name(t, 1));
        return KD_ERR_INVALID_ARG;
    }
    kd_key key;
    char name[KD_KEY_NAME_MAX + 1];
    if (kd_gw_find_key(gw, &v->participants.keys[seat], &key, name, sizeof name) != KD_OK) {
        snprintf(why, why_len,
                 "this gateway does not hold the key of %s in episode %u, so it cannot show that seat's secret",
                 kd_episode_type_seat_name(t, seat), v->episode_id);
        return KD_ERR_NOT_FOUND;
    }
    void *state = calloc(1, t->ops->state_size);
    kd_err err = state ? t->ops->decode_state(v->state.data, v->state.len, state) : KD_ERR_NOMEM;
    json_t *secret = NULL;
    uint8_t seed[KD_SECRET_SEED_LEN], store[KD_STORE_ID_LEN];
    if (!err && !(err = kd_engine_store_id(gw->o.engine, store)) &&
        !(err = kd_seat_seed(t, &key, store, v->episode_id, seat, state, seed))) {
        secret = t->secret_view(state, seat, seed);
        memset(seed, 0, sizeof seed);
        err = secret ? KD_OK : KD_ERR_NOMEM;
    }
    memset(&key, 0, sizeof key);
    free(state);
    if (!err && (json_object_set_new(secret, "seat", json_string(kd_episode_type_seat_name(t, seat))) ||
                 json_object_set(out, "own_secret", secret)))
        err = KD_ERR_NOMEM;
    json_decref(secret);
    if (err == KD_ERR_NOT_FOUND)
        snprintf(why, why_len,
                 "%s's commitment in episode %u was not made by this gateway's key for this store: it has no secret "
                 "to show",
                 kd_episode_type_seat_name(t, seat), v->episode_id);
    else if (err)
        snprintf(why, why_len, "cannot show %s's secret in episode %u: %s", kd_episode_type_seat_name(t, seat),
                 v->episode_id, kd_err_str(err));
    return err;
}

/* The tool result of `answer` (taken), with the seat's own secret added
 * when `args` name a "player" (kd_gw_own_secret); an error result when it
 * cannot be shown. */
json_t *kd_gw_with_own_secret(kd_gateway *gw, const kd_episode_view *v, json_t *args, json_t *answer, const char *text)
{
    const json_t *player = json_object_get(args, "player");
    char why[400];
    if (player && answer && kd_gw_own_secret(gw, v, player, answer, why, sizeof why) != KD_OK) {
        json_decref(answer);
        return kd_mcp_tool_error(why);
    }
    return kd_mcp_tool_result(answer, text);
}
