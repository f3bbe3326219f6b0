/* sim_gen.c — the simulator's transaction generator (see sim_gen.h). */
#include "tools/sim/sim_gen.h"

#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"
#include "engine/wire.h"
#include "episodes/secrets.h"

static uint32_t below(kd_sim_gen *g, uint32_t n) { return n ? kd_type_rng_below(&g->rng, n) : 0; }

kd_err kd_sim_gen_init(kd_sim_gen *g, const kd_type_table *types, const char *only, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->types = types;
    g->rng = seed ^ 0x5DEECE66DULL;
    g->next_id = 1;
    g->max_new = 8;
    uint8_t id_seed[16 + 8], id[KD_HASH_LEN];
    memcpy(id_seed, "kdapp-sim-store:", 16);
    kd_put_u64be(id_seed + 16, seed);
    kd_sha256(id_seed, sizeof id_seed, id);
    memcpy(g->store_id, id, KD_STORE_ID_LEN);
    kd_chain_local(g->store_id, g->chain);
    for (size_t i = 0; i < KD_SIM_GEN_REPLAY; i++)
        kd_buf_init(&g->replay[i]);
    if (!types->count)
        return KD_ERR_INVALID_ARG;
    if (only && !(g->only = kd_type_table_find(types, only)))
        return KD_ERR_INVALID_ARG;
    for (int i = 0; i < KD_SIM_GEN_KEYS; i++) {
        char name[16];
        snprintf(name, sizeof name, "sim%d", i);
        kd_err err = kd_key_test(name, &g->keys[i]);
        if (err)
            return err;
    }
    return KD_OK;
}

void kd_sim_gen_fini(kd_sim_gen *g)
{
    for (size_t i = 0; i < KD_SIM_GEN_REPLAY; i++)
        kd_buf_fini(&g->replay[i]);
    memset(g->keys, 0, sizeof g->keys);
}

static int key_index(const kd_sim_gen *g, const kd_pubkey *pk)
{
    for (int i = 0; i < KD_SIM_GEN_KEYS; i++)
        if (memcmp(g->keys[i].pub.bytes, pk->bytes, KD_PUBKEY_LEN) == 0)
            return i;
    return -1;
}

void kd_sim_scratch_fini(kd_sim_scratch *sc)
{
    for (size_t i = 0; i < sc->count; i++)
        free(sc->eps[i].state);
    free(sc->eps);
    memset(sc, 0, sizeof *sc);
}

kd_err kd_sim_scratch_load(const kd_sim_gen *g, const kd_model *model, kd_sim_scratch *out)
{
    size_t n;
    const kd_model_episode *eps = kd_model_episodes(model, &n);
    memset(out, 0, sizeof *out);
    out->cap = n + g->max_new;
    out->eps = calloc(out->cap, sizeof *out->eps);
    if (!out->eps)
        return KD_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const kd_episode_type *type = kd_type_table_find(g->types, eps[i].type->ops->type_name);
        if (!type)
            continue;
        kd_sim_scratch_ep *e = &out->eps[out->count];
        e->state = malloc(type->ops->state_size);
        if (!e->state) {
            kd_sim_scratch_fini(out);
            return KD_ERR_NOMEM;
        }
        memcpy(e->state, eps[i].state, type->ops->state_size);
        e->id = eps[i].id;
        e->type = type;
        e->counter = eps[i].counter;
        e->seats = eps[i].participants.count;
        for (size_t k = 0; k < KD_MAX_PARTICIPANTS; k++)
            e->key[k] = k < e->seats ? key_index(g, &eps[i].participants.keys[k]) : -1;
        out->count++;
    }
    return KD_OK;
}

/* ------------------------------------------------------------ creations */

/* Params drawn from the type's params JSON Schema: each integer property
 * (sometimes left out, sometimes null when the schema allows it) in its
 * range, mostly within ten of its minimum, where a type's interesting
 * variants tend to be (a small window, a short game). Unknown shapes give
 * no params: the engine defaults. */
static json_t *random_params(kd_sim_gen *g, const kd_episode_type *type)
{
    json_t *schema = json_loads(type->params_schema, 0, NULL), *params = json_object();
    json_t *props = json_object_get(schema, "properties");
    const char *name;
    json_t *p;
    json_object_foreach(props, name, p)
    {
        json_t *t = json_object_get(p, "type");
        int is_int = json_is_string(t) && strcmp(json_string_value(t), "integer") == 0, nullable = 0;
        for (size_t i = 0; json_is_array(t) && i < json_array_size(t); i++) {
            const char *v = json_string_value(json_array_get(t, i));
            is_int |= v && strcmp(v, "integer") == 0;
            nullable |= v && strcmp(v, "null") == 0;
        }
        if (!is_int || below(g, 4) == 0)
            continue;
        if (nullable && below(g, 6) == 0) {
            json_object_set_new(params, name, json_null());
            continue;
        }
        json_t *jmin = json_object_get(p, "minimum"), *jmax = json_object_get(p, "maximum");
        json_int_t lo = json_is_integer(jmin) ? json_integer_value(jmin) : 0;
        json_int_t hi = json_is_integer(jmax) ? json_integer_value(jmax) : lo + 100;
        if (hi < lo)
            continue;
        json_int_t span = below(g, 10) < 7 && hi - lo > 9 ? 9 : hi - lo;
        json_object_set_new(params, name, json_integer(lo + (json_int_t)below(g, (uint32_t)span + 1)));
    }
    json_decref(schema);
    return params;
}

/* What the seats commit to in a type with secrets (kd_seat_commit), each
 * from the secret of its sim key for the simulator's store id, as a gateway
 * holding those keys would; the bindings' nonces come from the generator's
 * rng, so a seed replays the same run. */
static kd_err commit_secrets(kd_sim_gen *g, const kd_episode_type *type, uint32_t id, const int *key, size_t seats,
                             json_t *params)
{
    kd_err err = KD_OK;
    for (size_t s = 0; type->secret_commit && !err && s < seats; s++) {
        uint8_t nonce[KD_SECRET_NONCE_LEN];
        char why[KD_REJECT_DETAIL_MAX];
        for (size_t i = 0; i < sizeof nonce; i += 8) {
            uint64_t r = kd_type_rng_next(&g->rng);
            memcpy(nonce + i, &r, 8);
        }
        err = kd_seat_commit_nonce(type, &g->keys[key[s]], g->store_id, id, (int)s, nonce, params, why, sizeof why);
        if (err == KD_ERR_UNSUPPORTED || err == KD_ERR_BAD_PARAMS)
            err = KD_OK; /* nothing to commit, or params the engine refuses anyway */
    }
    return err;
}

static kd_err gen_create(kd_sim_gen *g, kd_sim_scratch *sc, kd_buf *payload)
{
    const kd_episode_type *type = g->only ? g->only : g->types->entries[below(g, (uint32_t)g->types->count)].type;
    const kd_episode_ops *ops = type->ops;
    uint32_t id = g->next_id++;
    uint32_t r = below(g, 100);
    if (r < 4 && sc->count)
        id = sc->eps[below(g, (uint32_t)sc->count)].id; /* already exists */
    else if (r < 6)
        id = 0;
    kd_participants parts = {0};
    parts.count = type->min_seats + below(g, (uint32_t)(type->max_seats - type->min_seats + 1));
    int key[KD_MAX_PARTICIPANTS];
    uint32_t first = below(g, KD_SIM_GEN_KEYS);
    for (size_t i = 0; i < parts.count; i++) { /* distinct keys while there are enough */
        key[i] = (int)((first + i) % KD_SIM_GEN_KEYS);
        parts.keys[i] = g->keys[key[i]].pub;
    }
    int broken = 0;
    r = below(g, 100);
    if (r < 3 && parts.count > 0) {
        parts.count = type->min_seats - 1; /* one too few */
        broken = 1;
    } else if (r < 5) {
        memset(parts.keys[parts.count - 1].bytes, 0x07, KD_PUBKEY_LEN); /* not a curve point */
        broken = 1;
    }
    json_t *pj = random_params(g, type);
    kd_buf params, effective;
    kd_buf_init(&params);
    kd_buf_init(&effective);
    char why[KD_REJECT_DETAIL_MAX];
    kd_err err = pj ? commit_secrets(g, type, id, key, parts.count, pj) : KD_ERR_NOMEM;
    if (!err)
        err = type->params_from_json(pj, &params, why, sizeof why);
    json_decref(pj);
    if (err == KD_ERR_BAD_PARAMS) { /* a schema the sketch above misreads: the defaults */
        params.len = 0;
        err = KD_OK;
    }
    /* Every seat consents (a creation without one is refused no_consent,
     * which the generator leaves to broken ones). */
    kd_consent consents[KD_MAX_PARTICIPANTS];
    size_t n_consents = 0;
    for (size_t i = 0; !err && !broken && i < parts.count; i++)
        if (!(err = kd_consent_sign(&g->keys[key[i]], (uint32_t)i, g->chain, id, ops->type_name, &parts, params.data,
                                    params.len, &consents[n_consents])))
            n_consents++;
    if (!err)
        err = kd_wire_new_episode_consented(id, ops->type_name, &parts, params.data, params.len, consents, n_consents,
                                            payload);
    if (err || id == 0 || broken || sc->count == sc->cap)
        goto done;
    for (size_t i = 0; i < sc->count; i++)
        if (sc->eps[i].id == id)
            goto done;
    /* The scratch copy of the new episode: the engine's own resolution
     * (the table's configured defaults) and init. */
    kd_reject rej;
    uint8_t *state = calloc(1, ops->state_size);
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = id};
    if (!state) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    if (ops->resolve_params(kd_type_table_config(g->types, ops->type_name), params.data, params.len, &effective,
                            &rej) != KD_OK ||
        ops->init(state, &parts, effective.data, effective.len, &meta, &rej) != KD_OK) {
        free(state); /* the engine refuses it too: nothing to play */
        goto done;
    }
    kd_sim_scratch_ep *e = &sc->eps[sc->count++];
    memset(e, 0, sizeof *e);
    e->id = id;
    e->type = type;
    e->state = state;
    e->seats = parts.count;
    for (size_t i = 0; i < KD_MAX_PARTICIPANTS; i++)
        e->key[i] = i < parts.count ? key[i] : -1;
done:
    kd_buf_fini(&effective);
    kd_buf_fini(&params);
    return err;
}

/* --------------------------------------------------------------- moves */

static int all_keys_known(const kd_sim_scratch_ep *e)
{
    for (size_t i = 0; i < e->seats; i++)
        if (e->key[i] < 0)
            return 0;
    return e->seats > 0;
}

/* The seat to act: the one to move, or a seat with a legal move when no
 * single seat must act; KD_SEAT_NONE when the game is over. */
static int acting_seat(kd_sim_gen *g, const kd_sim_scratch_ep *e)
{
    kd_game_status st = e->type->status(e->state);
    if (st.phase != KD_PHASE_IN_PROGRESS)
        return KD_SEAT_NONE;
    if (st.to_move != KD_SEAT_NONE)
        return st.to_move >= 0 && (size_t)st.to_move < e->seats ? st.to_move : KD_SEAT_NONE;
    return (int)below(g, (uint32_t)e->seats);
}

/* min..max random bytes (max <= 24): mostly not a message at all. */
static kd_err junk(kd_sim_gen *g, kd_buf *payload, size_t min, size_t max)
{
    uint8_t bytes[24];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)kd_type_rng_next(&g->rng);
    return kd_buf_append(payload, bytes, min + below(g, (uint32_t)(max - min + 1)));
}

/* Applies a legal command to the scratch copy and keeps its payload for
 * replays. */
static kd_err scratch_apply(kd_sim_gen *g, kd_sim_scratch_ep *e, const kd_buf *cmd, const kd_pubkey *signer,
                            const kd_buf *payload)
{
    const kd_episode_ops *ops = e->type->ops;
    void *undo = calloc(1, ops->undo_size ? ops->undo_size : 1);
    if (!undo)
        return KD_ERR_NOMEM;
    uint8_t zero[KD_HASH_LEN] = {0};
    kd_block_meta meta = {.block_hash = zero, .tx_id = zero, .episode_id = e->id};
    kd_reject rej;
    kd_precheck pc;
    kd_err err = kd_sim_verdict(g->verdicts, ops, e->state, cmd->data, cmd->len, signer, &meta, &pc);
    if (!err && ops->execute(e->state, cmd->data, cmd->len, signer, &meta, undo, &rej) == KD_OK) {
        e->counter++;
        kd_buf *slot = &g->replay[g->n_replay < KD_SIM_GEN_REPLAY ? g->n_replay++ : below(g, KD_SIM_GEN_REPLAY)];
        slot->len = 0;
        err = kd_buf_append(slot, payload->data, payload->len);
    }
    free(undo);
    return err;
}

/* A command of `seat`: what it owes from its secret when it owes something
 * (a type with secrets: the house's reveal, a shot's answer) and `legal`,
 * else the type's random_command. */
static kd_err seat_command(kd_sim_gen *g, const kd_sim_scratch_ep *e, int seat, int legal, kd_buf *cmd)
{
    uint8_t seed[KD_SECRET_SEED_LEN];
    if (legal && e->type->secret_duty && e->key[seat] >= 0 &&
        kd_seat_seed(e->type, &g->keys[e->key[seat]], g->store_id, e->id, seat, e->state, seed) == KD_OK) {
        kd_err err = e->type->secret_duty(e->state, seat, seed, cmd);
        memset(seed, 0, sizeof seed);
        if (err != KD_ERR_NO_MOVE)
            return err;
        cmd->len = 0;
    }
    return e->type->random_command(e->state, seat, legal, &g->rng, cmd);
}

/* A legal command for a random live episode, or an illegal variant. */
static kd_err gen_move(kd_sim_gen *g, kd_sim_scratch *sc, int legal, kd_buf *payload)
{
    kd_sim_scratch_ep *live[64];
    size_t n_live = 0;
    for (size_t i = 0; i < sc->count && n_live < 64; i++)
        if (all_keys_known(&sc->eps[i]) && acting_seat(g, &sc->eps[i]) != KD_SEAT_NONE)
            live[n_live++] = &sc->eps[i];
    if (!n_live)
        return junk(g, payload, 0, 8);
    kd_sim_scratch_ep *e = live[below(g, (uint32_t)n_live)];
    int over = 0;
    if (!legal && below(g, 9) == 0) /* a command after the game ended */
        for (size_t i = 0; i < sc->count && !over; i++)
            if (all_keys_known(&sc->eps[i]) && acting_seat(g, &sc->eps[i]) == KD_SEAT_NONE) {
                e = &sc->eps[i];
                over = 1;
            }
    int seat = over ? (int)below(g, (uint32_t)e->seats) : acting_seat(g, e);
    kd_buf cmd;
    kd_buf_init(&cmd);
    kd_err err = seat_command(g, e, seat, !over, &cmd);
    if (err == KD_ERR_NO_MOVE || err == KD_ERR_UNSUPPORTED) {
        kd_buf_fini(&cmd);
        return junk(g, payload, 0, 8);
    }
    const kd_key *signer = &g->keys[e->key[seat]];
    uint64_t counter = e->counter;
    int unsigned_cmd = 0;
    uint32_t id = e->id;
    if (!legal && !over && !err) {
        switch (below(g, 8)) {
        case 0:
        case 1: /* a command the type's rules refuse */
            cmd.len = 0;
            err = e->type->random_command(e->state, seat, 0, &g->rng, &cmd);
            if (err == KD_ERR_UNSUPPORTED) { /* no such command: an unsigned one instead */
                cmd.len = 0;
                err = seat_command(g, e, seat, 1, &cmd);
                unsigned_cmd = 1;
            }
            break;
        case 2: /* signed by someone else */
            signer = &g->keys[(e->key[seat] + 1 + below(g, KD_SIM_GEN_KEYS - 1)) % KD_SIM_GEN_KEYS];
            break;
        case 3:
            unsigned_cmd = 1;
            break;
        case 4: /* stale or future counter */
            counter += below(g, 2) ? 1 : (counter ? (uint64_t)-1 : 1);
            break;
        case 5: /* a signature replayed from an applied command */
            if (g->n_replay) {
                const kd_buf *old = &g->replay[below(g, (uint32_t)g->n_replay)];
                kd_buf_fini(&cmd);
                return kd_buf_append(payload, old->data, old->len);
            }
            break;
        case 6: /* another seat's key for the mover's command */
            if (e->seats > 1)
                signer = &g->keys[e->key[(seat + 1 + (int)below(g, (uint32_t)e->seats - 1)) % (int)e->seats]];
            break;
        default: /* unknown episode */
            id = g->next_id + 1000;
            counter = 0;
            break;
        }
    }
    if (!err)
        err = unsigned_cmd ? kd_wire_unsigned_command(id, cmd.data, cmd.len, payload)
                           : kd_wire_signed_command(id, cmd.data, cmd.len, signer, counter, payload);
    if (!err && legal)
        err = scratch_apply(g, e, &cmd, &signer->pub, payload);
    kd_buf_fini(&cmd);
    return err;
}

kd_err kd_sim_gen_tx(kd_sim_gen *g, kd_sim_scratch *sc, kd_buf *payload)
{
    uint32_t r = below(g, 100);
    if (r < 12 || sc->count == 0)
        return gen_create(g, sc, payload);
    if (r < 72)
        return gen_move(g, sc, 1, payload);
    if (r < 92)
        return gen_move(g, sc, 0, payload);
    return junk(g, payload, 1, 24);
}
