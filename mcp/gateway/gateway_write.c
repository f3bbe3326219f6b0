/*
 * gateway_write.c — the tools that write: kdapp_start_episode,
 * kdapp_execute_command and kdapp_simulate_reorg, and the submit-and-wait
 * they share with the duties thread's lookups.
 *
 * Whose keys they use (gateway_keys.c): a command is signed by a key of
 * the session's grant (or by the client itself: pubkey and signature); a
 * new episode's commitments and the consents its type requires are made by
 * the session's granted keys of those seats, or by the house's key in a
 * house seat. A session without a grant signs nothing.
 *
 * Whose coins pay (gateway.h kd_gateway_spend): every payload goes to the
 * chain with the session's grant, or its absence, and a chain that costs
 * coins pays only as that allows. A refusal (KD_ERR_DENIED) is an error
 * result naming the wallet and why, with the payload the client may carry
 * in a transaction it pays for itself (kdapp_submit_transaction, offered
 * when the chain takes those).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/wire.h"
#include "mcp/gateway/gateway_int.h"

/* A chain error after which the request may still have taken effect (see
 * kd_gateway_chain). */
static int outcome_unknown(kd_err err) { return err == KD_ERR_TIMEOUT || err == KD_ERR_NET || err == KD_ERR_CLOSED; }

/*
 * Submits a payload and waits for the block that carries it. The log
 * position noted first lets the wait find the outcome in the engine's log
 * when the block summary is missed. On an error, `why` says what happened
 * and *maybe whether the chain may still apply the payload (it was, or may
 * have been, queued); *maybe = 0 means it certainly was not.
 */
/* Submits (one payload for `spend`, or a client's transaction `tx_json`)
 * and waits; see kd_gw_submit_and_wait. */
static kd_err submit_and_wait(kd_gateway *gw, const kd_buf *payload, const kd_gateway_spend *spend, const char *tx_json,
                              kd_gw_outcome *out, int *maybe, char *why, size_t why_len)
{
    uint8_t tx_id[KD_HASH_LEN];
    kd_tip tip;
    *maybe = 0;
    kd_err err = kd_engine_tip(gw->o.engine, &tip);
    if (err) {
        snprintf(why, why_len, "cannot read the engine's tip (%s), so nothing was submitted", kd_err_str(err));
        return err;
    }
    if ((err = tx_json
                   ? gw->o.chain.submit_tx(gw->o.chain.ctx, tx_json, tx_id, why, why_len)
                   : gw->o.chain.submit(gw->o.chain.ctx, payload->data, payload->len, spend, tx_id, why, why_len))) {
        *maybe = outcome_unknown(err);
        if (!why[0])
            snprintf(why, why_len, "%s", kd_err_str(err));
        return err;
    }
    if (!(err = kd_gw_wait_outcome(gw, tx_id, tip.last_seq, out)))
        return KD_OK;
    *maybe = 1;
    char h[17];
    kd_hex_encode(tx_id, 8, h);
    if (err == KD_ERR_CLOSED)
        snprintf(why, why_len, "the gateway is shutting down; transaction %s… was submitted", h);
    else
        snprintf(why, why_len,
                 "transaction %s… was submitted, but no applied block carried it within %u ms (is the chain "
                 "producing blocks for this engine?)",
                 h, gw->o.wait_ms ? gw->o.wait_ms : 30000);
    return err;
}

kd_err kd_gw_submit_and_wait(kd_gateway *gw, const kd_buf *payload, const kd_gateway_spend *spend, kd_gw_outcome *out,
                             int *maybe, char *why, size_t why_len)
{
    return submit_and_wait(gw, payload, spend, NULL, out, maybe, why, why_len);
}

/* The error result of a write no wallet may pay for (KD_ERR_DENIED): the
 * chain's sentence, and the payload, which the client may carry in a
 * Kaspa transaction it builds, signs and pays for itself. */
static json_t *unpaid(kd_gateway *gw, const char *what, const char *why, const kd_buf *payload)
{
    char *hex = malloc(2 * payload->len + 1);
    if (!hex)
        return kd_gw_fail("%s: %s", what, why);
    kd_hex_encode(payload->data, payload->len, hex);
    char text[1400];
    snprintf(text, sizeof text, "%s: %s.%s", what, why,
             gw->o.chain.submit_tx
                 ? " To pay for it yourself, put payload_hex in a Kaspa transaction of your own wallet (kdapp wallet "
                   "send --dry-run --payload-hex HEX --funding YOUR_KEY builds one) and send it with "
                   "kdapp_submit_transaction"
                 : "");
    json_t *r = kd_mcp_tool_result(
        json_pack("{s:s, s:s, s:s}", "error_code", kd_err_code(KD_ERR_DENIED), "error", why, "payload_hex", hex), text);
    free(hex);
    if (r)
        json_object_set_new(r, "isError", json_true());
    return r ? r : kd_gw_fail("%s: %s", what, why);
}

/* The default seats of a type, for its minimum number of seats: in a
 * house seat, the house this gateway plays; elsewhere the session's granted
 * keys in their order, then agent1, agent2, ... (or the first keys of the
 * directory) for the seats left. A house seat left to those keys must not
 * get a key that also sits in another seat: one key would be both the
 * player and the house (a session granted only agent1 starting dice on a
 * gateway without --house), so that is refused with the fix. */
static kd_err default_participants(kd_gateway *gw, const kd_gw_grant *g, const kd_episode_type *t,
                                   kd_participants *parts, char *why, size_t why_len)
{
    char names[KD_GW_MAX_AGENTS][KD_KEY_NAME_MAX + 1], agent[KD_KEY_NAME_MAX + 1];
    size_t n = kd_gw_list_keys(gw, names, KD_GW_MAX_AGENTS), need = t->min_seats, next_granted = 0, next_agent = 1;
    for (size_t s = 0; s < need; s++) {
        if (s < 32 && (t->house_seats & (1u << s)) && gw->house) {
            parts->keys[s] = gw->house->key.pub;
            continue;
        }
        if (g && next_granted < g->n) {
            parts->keys[s] = g->keys[next_granted++]->key.pub;
            continue;
        }
        const char *name = NULL;
        while (!name && next_agent <= n) {
            snprintf(agent, sizeof agent, "agent%zu", next_agent++);
            for (size_t i = 0; i < n && !name; i++)
                if (strcmp(names[i], agent) == 0)
                    name = names[i];
        }
        if (!name && s < n)
            name = names[s];
        if (!name) {
            kd_reject_write(why, why_len,
                            "no participants given, and the key directory %.300s holds %zu key%s where %s needs %zu",
                            gw->keys_dir, n, n == 1 ? "" : "s", t->ops->type_name, need);
            return KD_ERR_BAD_PARTICIPANTS;
        }
        kd_err err = kd_gw_resolve_pubkey(gw, name, &parts->keys[s], why, why_len);
        if (err)
            return err;
    }
    for (size_t s = 0; s < need && s < 32; s++) {
        if (!(t->house_seats & (1u << s)))
            continue;
        for (size_t o = 0; o < need; o++)
            if (o != s && memcmp(parts->keys[o].bytes, parts->keys[s].bytes, KD_PUBKEY_LEN) == 0) {
                kd_reject_write(why, why_len,
                                "%s's house seat would get the key of seat %zu, so one key would be both the "
                                "player and the house: start the gateway with --house NAME (make the key with "
                                "kdapp keygen NAME), or name distinct participants",
                                t->ops->type_name, o);
                return KD_ERR_BAD_PARTICIPANTS;
            }
    }
    parts->count = need;
    return KD_OK;
}

static uint32_t fresh_episode_id(kd_gateway *gw)
{
    for (int tries = 0; tries < 32; tries++) {
        uint32_t id = 0;
        if (kd_random_bytes((uint8_t *)&id, sizeof id) != KD_OK)
            continue;
        id &= 0x7fffffffu;
        kd_episode_snapshot snap;
        if (id && kd_engine_episode_read(gw->o.engine, id, &snap) == KD_ERR_NOT_FOUND)
            return id;
        if (id)
            kd_episode_snapshot_fini(&snap);
    }
    return 0;
}

/* The participants of a start call: its "participants", or the defaults. */
static json_t *start_participants(kd_gateway *gw, const kd_gw_grant *g, json_t *args, const kd_episode_type *t,
                                  kd_participants *parts)
{
    char why[512] = "";
    json_t *jp = json_object_get(args, "participants");
    if (!jp || json_array_size(jp) == 0)
        return default_participants(gw, g, t, parts, why, sizeof why) ? kd_gw_fail("%s", why) : NULL;
    size_t i;
    json_t *item;
    json_array_foreach(jp, i, item)
    {
        if (i >= KD_MAX_PARTICIPANTS)
            return kd_gw_fail("at most %d participants", KD_MAX_PARTICIPANTS);
        parts->count = i + 1;
        if (json_is_null(item) || (json_is_string(item) && strcmp(json_string_value(item), "open") == 0)) {
            memset(&parts->keys[i], 0, sizeof parts->keys[i]); /* an open seat: a table (gateway_tables.c) */
            continue;
        }
        if (kd_gw_resolve_pubkey(gw, json_string_value(item), &parts->keys[i], why, sizeof why) != KD_OK)
            return kd_gw_fail("participant %zu: %s", i, why);
        parts->count = i + 1;
    }
    return kd_gw_check_seats(t, parts->count, why, sizeof why) ? kd_gw_fail("%s", why) : NULL;
}

/* The start call's join_timeout (0 when absent), or the tool error: a
 * whole number of DAA score from 1 to the engine's most
 * (KD_TABLE_TIMEOUT_MAX, engine/engine.h), for a table only. */
static json_t *start_join_timeout(json_t *args, const kd_participants *parts, uint32_t *out)
{
    json_t *j = json_object_get(args, "join_timeout");
    *out = 0;
    if (!j)
        return NULL;
    if (!json_is_integer(j) || json_integer_value(j) < 1 || json_integer_value(j) > KD_TABLE_TIMEOUT_MAX)
        return kd_gw_fail("join_timeout must be a whole number of DAA score from 1 to %u (the most a table may wait; "
                          "absent: %u)",
                          KD_TABLE_TIMEOUT_MAX, KD_TABLE_TIMEOUT_DEFAULT);
    int open = 0;
    for (size_t i = 0; i < parts->count; i++)
        open |= kd_gw_open_key(&parts->keys[i]);
    if (!open)
        return kd_gw_fail("join_timeout is for a table: name \"open\" among the participants for a seat a stranger "
                          "takes, or leave join_timeout out");
    *out = (uint32_t)json_integer_value(j);
    return NULL;
}

/* The seats named by a public test key ("test:NAME") and acted for by no
 * grant: every session holds such a key (anyone derives its secret, and
 * signs commands with it: named_signer below), so it commits and consents
 * for its seat like a granted key. The keys go into `test` (wiped by the
 * caller). */
static void test_key_actors(json_t *args, const kd_participants *parts, kd_gw_key test[KD_MAX_PARTICIPANTS],
                            kd_gw_actors *actors)
{
    json_t *jp = json_object_get(args, "participants");
    for (size_t i = 0; i < parts->count && i < json_array_size(jp); i++) {
        const char *name = json_string_value(json_array_get(jp, i));
        if (actors->seat[i] || !name || strncmp(name, "test:", 5) != 0 ||
            kd_key_test(name + 5, &test[i].key) != KD_OK ||
            memcmp(test[i].key.pub.bytes, parts->keys[i].bytes, KD_PUBKEY_LEN) != 0)
            continue;
        snprintf(test[i].name, sizeof test[i].name, "%.*s", (int)sizeof test[i].name - 1, name);
        actors->seat[i] = &test[i];
    }
}

/* The NewEpisode payload of a start call, or the tool error: the
 * commitments of the seats the gateway acts for made here (a caller's own
 * for those seats are replaced), the params checked and converted, and the
 * consents the type requires signed. */
static json_t *start_payload(kd_gateway *gw, const kd_gw_grant *g, json_t *args, const kd_episode_type *t, uint32_t id,
                             kd_buf *payload)
{
    char why[512] = "";
    kd_participants parts = {.count = 0};
    uint32_t join_timeout = 0;
    json_t *r = start_participants(gw, g, args, t, &parts);
    if (!r)
        r = start_join_timeout(args, &parts, &join_timeout);
    if (r)
        return r;
    kd_gw_actors actors;
    kd_gw_key test[KD_MAX_PARTICIPANTS];
    memset(test, 0, sizeof test);
    kd_gw_actors_of(gw, g, t, &parts, &actors);
    test_key_actors(args, &parts, test, &actors);
    json_t *params = kd_gw_start_params(args, why, sizeof why);
    if (!params) {
        memset(test, 0, sizeof test);
        return kd_gw_fail("%s", why);
    }
    kd_buf pbytes;
    kd_buf_init(&pbytes);
    kd_consent consents[KD_MAX_PARTICIPANTS];
    size_t n_consents = 0;
    char what[64];
    snprintf(what, sizeof what, "params of %s", t->ops->type_name);
    if (kd_gw_commit_secrets(gw, t, id, &parts, &actors, params, why, sizeof why) != KD_OK)
        r = kd_gw_fail("params of %s: %s", t->ops->type_name, why);
    else if (!kd_gw_check_json(kd_gw_type_schema(gw, t, 0), params, what, why, sizeof why))
        r = kd_gw_fail("%s (kdapp://types has the params_schema of each type)", why);
    else if (t->params_from_json(params, &pbytes, why, sizeof why) != KD_OK)
        r = kd_gw_fail("params of %s: %s", t->ops->type_name, why);
    else if (kd_gw_sign_consents(gw, t, id, &parts, &pbytes, join_timeout, &actors, consents, &n_consents, why,
                                 sizeof why) != KD_OK)
        r = kd_gw_fail("%s", why);
    else if (kd_wire_new_table(id, t->ops->type_name, &parts, pbytes.data, pbytes.len, consents, n_consents,
                               join_timeout, payload) != KD_OK)
        r = kd_gw_fail("cannot build the new episode's payload: out of memory");
    json_decref(params);
    kd_buf_fini(&pbytes);
    memset(test, 0, sizeof test);
    return r;
}

json_t *kd_gw_tool_start(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    const char *type_name = json_string_value(json_object_get(args, "type"));
    const kd_episode_type *t = kd_gw_type(gw, type_name);
    if (!t)
        return kd_gw_fail("there is no episode type '%s' (kdapp://types lists them)", type_name);
    json_t *jid = json_object_get(args, "episode_id");
    uint32_t id = jid ? (uint32_t)json_integer_value(jid) : fresh_episode_id(gw);
    if (!id)
        return kd_gw_fail("could not pick a free episode id");
    kd_buf payload;
    kd_buf_init(&payload);
    json_t *r = start_payload(gw, kd_gw_session_grant(s), args, t, id, &payload);
    char why[1024] = "";
    kd_gw_outcome out;
    int maybe = 0;
    kd_gateway_spend spend;
    kd_gw_spend_of_session(kd_gw_session_grant(s), &spend);
    kd_err err = r ? KD_OK : kd_gw_submit_and_wait(gw, &payload, &spend, &out, &maybe, why, sizeof why);
    if (err == KD_ERR_DENIED)
        r = unpaid(gw, "the episode was not created", why, &payload);
    kd_buf_fini(&payload);
    if (r)
        return r;
    if (err && !maybe)
        return kd_gw_fail("the episode was not created: %s", why);
    if (err)
        return kd_gw_fail("episode %u is not confirmed: %s. It may still be created: kdapp_get_episode_state with "
                          "episode_id %u shows it once a block carrying it is applied",
                          id, why, id);
    if (!out.applied)
        return kd_gw_fail("the chain rejected the new episode %u: %s: %s", id, out.error_code, out.error);
    if ((r = kd_gw_table_result(gw, id)))
        return r;
    kd_episode_view v;
    kd_episode_view_init(&v);
    if (!(r = kd_gw_read_view_or_fail(gw, id, &v))) {
        char *text = kd_gw_view_text(&v);
        r = kd_mcp_tool_result(json_pack("{s:i, s:o}", "episode_id", (json_int_t)id, "view", kd_episode_view_json(&v)),
                               text);
        free(text);
    }
    kd_episode_view_fini(&v);
    return r;
}

/* The seat of `pub` among the participants, or KD_SEAT_NONE. */
static int seat_of(const kd_participants *parts, const kd_pubkey *pub)
{
    for (size_t i = 0; i < parts->count; i++)
        if (memcmp(parts->keys[i].bytes, pub->bytes, KD_PUBKEY_LEN) == 0)
            return (int)i;
    return KD_SEAT_NONE;
}

/* How a command is signed (kdapp_execute_command): by the client (pubkey
 * and signature), by a named key of the session's grant (or a public test
 * key), or by the session's granted key of the seat to move. *seat is the
 * acting seat (the signer's seat when it is one, else the seat to move),
 * what the type's command_from_json receives. */
typedef struct {
    int presigned;
    kd_pubkey pub;
    uint8_t sig[KD_SIG_MAX_LEN];
    size_t sig_len;
    kd_key key; /* when not presigned; wiped by the caller */
    int seat;
} signing;

/* The key a named signer stands for, when the session may sign with it:
 * a key of its grant, or a public test key. */
static json_t *named_signer(const kd_gw_grant *g, const char *signer, signing *sg)
{
    char held[400];
    if (strncmp(signer, "test:", 5) == 0) {
        if (kd_key_test(signer + 5, &sg->key) != KD_OK)
            return kd_gw_fail("signer '%.100s' is not a valid test key name", signer);
        return NULL;
    }
    const kd_gw_key *k = kd_gw_grant_named(g, signer);
    if (!k) {
        kd_pubkey pub;
        if (strlen(signer) == 2 * KD_PUBKEY_LEN && kd_hex_decode(signer, pub.bytes, KD_PUBKEY_LEN) == 0)
            k = kd_gw_grant_find(g, &pub);
    }
    if (!k) {
        kd_gw_grant_names(g, held, sizeof held);
        return kd_gw_fail("signer '%.100s': this session may not sign with that key (it is granted %.300s); a key "
                          "is used only by a session granted it (kdapp mcp --grant), or the client signs itself "
                          "(pubkey and signature)",
                          signer, held);
    }
    sg->key = k->key;
    return NULL;
}

static json_t *choose_signer(const kd_gw_grant *g, json_t *args, const kd_episode_snapshot *snap,
                             const kd_episode_type *t, signing *sg)
{
    const char *signer = json_string_value(json_object_get(args, "signer"));
    const char *pub_hex = json_string_value(json_object_get(args, "pubkey"));
    const char *sig_hex = json_string_value(json_object_get(args, "signature"));
    int to_move = t->status(snap->state).to_move;
    json_t *r;
    if (pub_hex || sig_hex) {
        sg->presigned = 1;
        sg->sig_len = sig_hex ? strlen(sig_hex) / 2 : 0;
        if (!pub_hex || !sig_hex)
            return kd_gw_fail("a client-signed command needs both pubkey and signature");
        if (strlen(pub_hex) != 2 * KD_PUBKEY_LEN || kd_hex_decode(pub_hex, sg->pub.bytes, KD_PUBKEY_LEN) != 0)
            return kd_gw_fail("pubkey must be 66 hex digits (a compressed secp256k1 key)");
        if (sg->sig_len == 0 || sg->sig_len > KD_SIG_MAX_LEN || kd_hex_decode(sig_hex, sg->sig, sg->sig_len) != 0)
            return kd_gw_fail("signature must be hex: 64 bytes compact or DER (up to 72 bytes)");
        sg->seat = seat_of(&snap->participants, &sg->pub);
    } else if (signer) {
        if ((r = named_signer(g, signer, sg)))
            return r;
        sg->pub = sg->key.pub;
        sg->seat = seat_of(&snap->participants, &sg->pub);
    } else {
        /* The seat to move; when no single seat is (the game is over), the
         * first seat the session holds, so that the rules answer. */
        const kd_gw_key *k = NULL;
        for (size_t i = 0; !k && i < snap->participants.count; i++) {
            int seat = to_move >= 0 ? to_move : (int)i;
            if ((size_t)seat < snap->participants.count && (k = kd_gw_grant_find(g, &snap->participants.keys[seat])))
                sg->seat = seat;
            if (to_move >= 0)
                break;
        }
        if (!k) {
            char held[400];
            kd_gw_grant_names(g, held, sizeof held);
            if (to_move >= 0)
                return kd_gw_fail("this session holds no key of the seat to move, seat %s of episode %u (it is "
                                  "granted %s): a session acts only for the seats granted it; or the client signs "
                                  "itself (pubkey and signature)",
                                  kd_episode_type_seat_name(t, to_move), snap->id, held);
            return kd_gw_fail("this session holds no key of a seat of episode %u (it is granted %s): name a signer "
                              "it is granted, or pass pubkey and signature",
                              snap->id, held);
        }
        sg->key = k->key;
        return NULL;
    }
    if (sg->seat == KD_SEAT_NONE)
        sg->seat = to_move;
    return NULL;
}

/* Builds the signed payload of a command (see kdapp_execute_command). */
static json_t *command_payload(kd_gateway *gw, const kd_gw_grant *g, json_t *args, const kd_episode_snapshot *snap,
                               const kd_episode_type *t, kd_buf *payload)
{
    char why[512];
    json_t *command = json_object_get(args, "command");
    signing sg;
    memset(&sg, 0, sizeof sg);
    sg.seat = KD_SEAT_NONE;
    kd_buf cmd;
    kd_buf_init(&cmd);
    json_t *r = choose_signer(g, args, snap, t, &sg), *filled = NULL;
    kd_err ferr = r || sg.presigned ? KD_OK : kd_gw_fill_entropy(gw, t, command, &filled);
    if (ferr)
        r = kd_gw_fail("cannot fill the command's entropy: %s", kd_err_str(ferr));
    if (filled)
        command = filled;
    if (!r && !kd_gw_check_json(kd_gw_type_schema(gw, t, 1), command, "command", why, sizeof why))
        r = kd_gw_fail(
            "%s (a %s command: kdapp://types has its command_schema; kdapp_legal_moves lists the legal ones)", why,
            t->ops->type_name);
    else if (!r && t->command_from_json(command, sg.seat, &cmd, why, sizeof why) != KD_OK)
        r = kd_gw_fail("command: %s", why);
    kd_err err = KD_OK;
    if (!r && sg.presigned)
        err = kd_wire_presigned_command(snap->id, cmd.data, cmd.len, &sg.pub, sg.sig, sg.sig_len, payload);
    else if (!r)
        err = kd_wire_signed_command(snap->id, cmd.data, cmd.len, &sg.key, snap->undo_depth, payload);
    if (!r && err)
        r = kd_gw_fail("cannot build the command: %s", kd_err_str(err));
    memset(&sg.key, 0, sizeof sg.key);
    kd_buf_fini(&cmd);
    json_decref(filled);
    return r;
}

/* The answer to a command whose block was applied: {legal: true, view},
 * or the error result {legal: false, error, error_code, legal_moves, view}. */
static json_t *command_answer(kd_gateway *gw, uint32_t id, const kd_gw_outcome *out)
{
    kd_episode_view v;
    kd_episode_view_init(&v);
    json_t *r = kd_gw_read_view_or_fail(gw, id, &v);
    if (r) {
        kd_episode_view_fini(&v);
        return r;
    }
    char *board = kd_gw_view_text(&v);
    if (out->applied) {
        r = kd_mcp_tool_result(json_pack("{s:b, s:o}", "legal", 1, "view", kd_episode_view_json(&v)), board);
    } else {
        char moves_text[1024], text[2600];
        json_t *moves = kd_gw_view_moves(&v, moves_text, sizeof moves_text);
        snprintf(text, sizeof text, "illegal command (%s): %s\n%s\n%s", out->error_code, out->error, moves_text,
                 board ? board : "");
        json_t *sc = json_pack("{s:b, s:s, s:s, s:o, s:o}", "legal", 0, "error", out->error, "error_code",
                               out->error_code, "legal_moves", moves, "view", kd_episode_view_json(&v));
        r = kd_mcp_tool_result(sc, text);
        if (r)
            json_object_set_new(r, "isError", json_true());
    }
    free(board);
    kd_episode_view_fini(&v);
    return r;
}

/* Signs the command of `args` for episode `id` as it stands now, submits it
 * and waits for its block: NULL with *out filled, or the tool error. */
static json_t *submit_command(kd_gateway *gw, kd_mcp_session *s, json_t *args, uint32_t id, kd_gw_outcome *out)
{
    kd_episode_snapshot snap;
    kd_err err = kd_engine_episode_read(gw->o.engine, id, &snap);
    if (err == KD_ERR_NOT_FOUND)
        return kd_gw_fail("episode %u does not exist; kdapp_list_episodes lists the episodes", id);
    if (err)
        return kd_gw_fail("cannot read episode %u: %s", id, kd_err_str(err));
    const kd_episode_type *t = kd_gw_type(gw, snap.ops->type_name);
    kd_buf payload;
    kd_buf_init(&payload);
    json_t *r =
        t ? command_payload(gw, kd_gw_session_grant(s), args, &snap, t, &payload)
          : kd_gw_fail("episode %u is of type %s, which this gateway does not serve (kdapp://types lists its types)",
                       id, snap.ops->type_name);
    kd_episode_snapshot_fini(&snap);
    char why[1024] = "";
    int maybe = 0;
    kd_gateway_spend spend;
    kd_gw_spend_of_session(kd_gw_session_grant(s), &spend);
    if (!r && (err = kd_gw_submit_and_wait(gw, &payload, &spend, out, &maybe, why, sizeof why))) {
        if (err == KD_ERR_DENIED)
            r = unpaid(gw, "the command was not submitted", why, &payload);
        else if (maybe)
            r = kd_gw_fail("the command is not confirmed: %s. It may still be applied: kdapp_get_episode_state for "
                           "episode %u shows whether it was (log_seq, and the type's own members)",
                           why, id);
        else
            r = kd_gw_fail("the command was not submitted: %s", why);
    }
    kd_buf_fini(&payload);
    return r;
}

/* How often a command the gateway signed is signed again when another
 * command (the house's reveal, an answer its duties thread paid) landed
 * first and made its signature stale while the rules would take it now. */
#define STALE_RETRIES 3

json_t *kd_gw_tool_execute(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    uint32_t id = (uint32_t)json_integer_value(json_object_get(args, "episode_id"));
    int signs_here = !json_object_get(args, "signature");
    kd_gw_outcome out;
    json_t *r = submit_command(gw, s, args, id, &out);
    for (int i = 0; !r && signs_here && i < STALE_RETRIES && !out.applied &&
                    strcmp(out.error_code, kd_err_code(KD_ERR_STALE_COMMAND)) == 0;
         i++)
        r = submit_command(gw, s, args, id, &out);
    return r ? r : command_answer(gw, id, &out);
}

json_t *kd_gw_tool_reorg(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    const kd_gw_grant *g = kd_gw_session_grant(s);
    if (!g || g->n == 0)
        return kd_gw_fail("a reorg changes every episode of the devnet: only a session granted a seat may ask for one "
                          "(this one reads public state only)");
    json_int_t depth = json_integer_value(json_object_get(args, "depth"));
    kd_tip tip;
    kd_err terr = kd_engine_tip(gw->o.engine, &tip);
    if (terr)
        return kd_gw_fail("the reorg did not happen: the store's tip cannot be read (%s)", kd_err_str(terr));
    if (depth > 0 && (uint64_t)depth > tip.revertible)
        /* The engine would refuse the revert of the first final block and
         * every one after it: refused here, nothing sent. */
        return kd_gw_fail("the reorg did not happen: a reorg of %lld blocks reaches beyond the store's finality: only "
                          "the last %llu block%s can be reverted (finality depth %llu)",
                          (long long)depth, (unsigned long long)tip.revertible, tip.revertible == 1 ? "" : "s",
                          (unsigned long long)tip.finality_depth);
    char why[512] = "";
    json_t *report = NULL;
    kd_err err = gw->o.chain.reorg(gw->o.chain.ctx, (uint32_t)depth, &report, why, sizeof why);
    if (err) {
        json_decref(report);
        if (outcome_unknown(err))
            return kd_gw_fail("the reorg is not confirmed: %s. It may still happen: kdapp_get_episode_state shows the "
                              "episodes as the chain has them",
                              why[0] ? why : kd_err_str(err));
        return kd_gw_fail("the reorg did not happen: %s", why[0] ? why : kd_err_str(err));
    }
    char text[256];
    snprintf(text, sizeof text, "reverted %lld blocks; %lld transactions re-included, %lld dropped",
             (long long)json_integer_value(json_object_get(report, "reverted")),
             (long long)json_integer_value(json_object_get(report, "reincluded")),
             (long long)json_integer_value(json_object_get(report, "dropped")));
    return kd_mcp_tool_result(report, text);
}

/* kdapp_submit_transaction: a transaction the client built, signed and
 * pays for itself, passed to the chain as it is; answered like the write
 * its payload makes, once the block carrying it is applied. */
json_t *kd_gw_tool_submit_tx(void *ctx, kd_mcp_session *s, json_t *args, int *code, char *msg, size_t len)
{
    (void)s, (void)code, (void)msg, (void)len;
    kd_gateway *gw = ctx;
    json_t *tx = json_object_get(args, "transaction");
    char *text = json_is_string(tx) ? strdup(json_string_value(tx)) : json_dumps(tx, JSON_COMPACT);
    if (!text)
        return kd_gw_fail("cannot read the transaction: out of memory");
    char why[1024] = "";
    kd_gw_outcome out;
    int maybe = 0;
    kd_err err = submit_and_wait(gw, NULL, NULL, text, &out, &maybe, why, sizeof why);
    free(text);
    if (err && !maybe)
        return kd_gw_fail("the transaction was not submitted: %s", why);
    if (err)
        return kd_gw_fail("the transaction is not confirmed: %s. It may still be applied: kdapp_get_episode_state "
                          "shows whether it was",
                          why);
    kd_episode_snapshot snap;
    if (kd_engine_episode_read(gw->o.engine, out.episode_id, &snap) != KD_OK)
        return kd_gw_fail("the chain carried the transaction; its payload was %s (%s: %s)",
                          out.applied ? "applied, but its episode is gone again" : "rejected", out.error_code,
                          out.error);
    kd_episode_snapshot_fini(&snap);
    return command_answer(gw, out.episode_id, &out);
}
