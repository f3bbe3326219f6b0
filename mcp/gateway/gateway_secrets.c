/*
 * gateway_secrets.c — what the gateway does with a seat's key besides
 * signing commands: commit the seat's secret at kdapp_start_episode, sign
 * the consents a type requires of a seat (the house agreeing to its terms),
 * on the store's chain (the house only within its terms: gateway_terms.c),
 * and show a seat's own secret to the session granted that seat.
 *
 * The keys come from gateway_keys.c: the session's grant, or the house's
 * key in a house seat. A seat's secret is derived from its key and a
 * binding made for this store (episodes/secrets.h): the gateway shows or
 * uses a secret only when the commitment in the episode is its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "episodes/house.h"
#include "episodes/secrets.h"
#include "mcp/gateway/gateway_int.h"

void kd_gw_actors_of(const kd_gateway *gw, const kd_gw_grant *g, const kd_episode_type *t, const kd_participants *parts,
                     kd_gw_actors *out)
{
    memset(out, 0, sizeof *out);
    for (size_t seat = 0; seat < parts->count; seat++) {
        const kd_gw_key *k = kd_gw_grant_find(g, &parts->keys[seat]);
        int house_seat = seat < 32 && (t->house_seats & (1u << seat));
        if (!k && house_seat && gw->house &&
            memcmp(gw->house->key.pub.bytes, parts->keys[seat].bytes, KD_PUBKEY_LEN) == 0) {
            k = gw->house;
            out->as_house |= UINT32_C(1) << seat;
        }
        out->seat[seat] = k;
    }
}

int kd_gw_open_key(const kd_pubkey *k)
{
    static const kd_pubkey zero;
    return memcmp(k->bytes, zero.bytes, KD_PUBKEY_LEN) == 0;
}

/* An open seat's commitment in the creation params: each field a seat's
 * commitment sets (learnt from a throwaway commitment), all zeros, which
 * no seed opens. The joiner's own part follows the creation's params when
 * the table starts and replaces them (a later field wins). */
kd_err kd_gw_open_seat_placeholder(const kd_episode_type *t, const uint8_t store_id[KD_STORE_ID_LEN], uint32_t id,
                                   int seat, json_t *params, char *why, size_t why_len)
{
    kd_key throwaway;
    json_t *scratch = json_object();
    kd_err err = scratch ? kd_key_test("open-seat", &throwaway) : KD_ERR_NOMEM;
    if (!err)
        err = kd_seat_commit(t, &throwaway, store_id, id, seat, scratch, why, why_len);
    const char *name;
    json_t *v;
    json_object_foreach(scratch, name, v)
    {
        if (err || !json_is_string(v))
            continue;
        size_t n = strlen(json_string_value(v));
        char *zeros = malloc(n + 1);
        if (!zeros) {
            err = KD_ERR_NOMEM;
            continue;
        }
        memset(zeros, '0', n);
        zeros[n] = '\0';
        if (json_object_set_new(params, name, json_string(zeros)))
            err = KD_ERR_NOMEM;
        free(zeros);
    }
    memset(&throwaway, 0, sizeof throwaway);
    json_decref(scratch);
    return err == KD_ERR_UNSUPPORTED ? KD_OK : err;
}

kd_err kd_gw_commit_secrets(kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                            const kd_gw_actors *actors, json_t *params, char *why, size_t why_len)
{
    if (!t->secret_commit)
        return KD_OK;
    kd_err err = KD_OK;
    for (size_t seat = 0; !err && seat < KD_MAX_PARTICIPANTS; seat++) {
        if (seat < parts->count && kd_gw_open_key(&parts->keys[seat])) {
            err = kd_gw_open_seat_placeholder(t, gw->store_id, id, (int)seat, params, why, why_len);
            continue;
        }
        if (!actors->seat[seat])
            continue; /* a seat the gateway does not act for commits for itself */
        err = kd_seat_commit(t, &actors->seat[seat]->key, gw->store_id, id, (int)seat, params, why, why_len);
        if (err == KD_ERR_UNSUPPORTED)
            err = KD_OK;
        /* the house's own terms (episodes/house.h): its reveal depth; a
         * granted key in a house seat names its own in the params */
        if (!err && actors->seat[seat] == gw->house && seat < 32 && (t->house_seats & (1u << seat)))
            err = kd_house_terms_json(params, gw->o.reveal_depth, why, why_len);
    }
    return err;
}

kd_err kd_gw_sign_consents(const kd_gateway *gw, const kd_episode_type *t, uint32_t id, const kd_participants *parts,
                           const kd_buf *params, uint32_t join_timeout, const kd_gw_actors *actors, kd_consent *out,
                           size_t *n, char *why, size_t why_len)
{
    *n = 0;
    for (size_t seat = 0; seat < parts->count; seat++) {
        if (kd_gw_open_key(&parts->keys[seat]))
            continue; /* an open seat consents when it joins (gateway_tables.c) */
        if (!actors->seat[seat]) {
            snprintf(why, why_len,
                     "seat %s must consent to a new %s episode (participant %zu: no key is seated without its own "
                     "signature), and this session does not act for its key: leave the seat open for its player to "
                     "join (\"open\" in participants, then kdapp_join_episode) or obtain that key's consent (a "
                     "session granted it starts the episode); kdapp_get_agent_pubkeys lists the keys this session "
                     "may name, and the house this gateway plays",
                     kd_episode_type_seat_name(t, (int)seat), t->ops->type_name, seat);
            return KD_ERR_NO_CONSENT;
        }
        /* The house consents for all comers: only within its terms. */
        kd_err err = actors->as_house & (UINT32_C(1) << seat) ? kd_gw_terms_check(gw, t, params, why, why_len) : KD_OK;
        if (err)
            return err;
        err = kd_consent_sign_table(&actors->seat[seat]->key, (uint32_t)seat, gw->chain, id, t->ops->type_name, parts,
                                    params->data, params->len, join_timeout, &out[*n]);
        if (err) {
            snprintf(why, why_len, "cannot sign the consent of seat %s: %s", kd_episode_type_seat_name(t, (int)seat),
                     kd_err_str(err));
            return err;
        }
        (*n)++;
    }
    return KD_OK;
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

kd_err kd_gw_own_secret(kd_gateway *gw, const kd_gw_grant *g, const kd_episode_view *v, const json_t *player,
                        json_t *out, char *why, size_t why_len)
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
    const kd_gw_key *k = kd_gw_grant_find(g, &v->participants.keys[seat]);
    if (!k) {
        char held[400];
        kd_gw_grant_names(g, held, sizeof held);
        snprintf(why, why_len,
                 "this session is not granted the key of %s in episode %u (it holds %s), so it cannot see that "
                 "seat's secret",
                 kd_episode_type_seat_name(t, seat), v->episode_id, held);
        return KD_ERR_DENIED;
    }
    void *state = calloc(1, t->ops->state_size);
    kd_err err = state ? t->ops->decode_state(v->state.data, v->state.len, state) : KD_ERR_NOMEM;
    json_t *secret = NULL;
    uint8_t seed[KD_SECRET_SEED_LEN];
    if (!err && (err = kd_seat_seed(t, &k->key, gw->store_id, v->episode_id, seat, state, seed)) == KD_ERR_NOT_FOUND) {
        snprintf(why, why_len,
                 "%s's commitment in episode %u was not made by key %s for this store, so there is no secret of its "
                 "to show",
                 kd_episode_type_seat_name(t, seat), v->episode_id, k->name);
        free(state);
        return err;
    }
    if (!err) {
        secret = t->secret_view(state, seat, seed);
        err = secret ? KD_OK : KD_ERR_NOMEM;
    }
    memset(seed, 0, sizeof seed);
    free(state);
    if (!err && (json_object_set_new(secret, "seat", json_string(kd_episode_type_seat_name(t, seat))) ||
                 json_object_set(out, "own_secret", secret)))
        err = KD_ERR_NOMEM;
    json_decref(secret);
    if (err)
        snprintf(why, why_len, "cannot show %s's secret in episode %u: %s", kd_episode_type_seat_name(t, seat),
                 v->episode_id, kd_err_str(err));
    return err;
}

json_t *kd_gw_with_own_secret(kd_gateway *gw, kd_mcp_session *s, const kd_episode_view *v, json_t *args, json_t *answer,
                              const char *text)
{
    const json_t *player = json_object_get(args, "player");
    char why[600];
    if (player && answer && kd_gw_own_secret(gw, kd_gw_session_grant(s), v, player, answer, why, sizeof why) != KD_OK) {
        json_decref(answer);
        return kd_mcp_tool_error(why);
    }
    return kd_mcp_tool_result(answer, text);
}
