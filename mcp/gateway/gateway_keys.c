/*
 * gateway_keys.c — the key directory and the seat grants: which keys the
 * gateway may act with, and for whom.
 *
 * A key in the key directory is only ever used for a caller granted it
 * (README "Seats and grants"):
 *
 *   grant (opts->grants[i], "agent1,agent2")  a session whose principal is
 *       the grant signs with those keys and sees their seats' secrets: the
 *       stdio process's session (kdapp mcp --grant), or an HTTP session
 *       opened with the grant's bearer token;
 *   house (opts->house)  the key the gateway plays the house with, for all
 *       comers, in the seats a type marks as the house's (house_seats):
 *       it commits and consents at kdapp_start_episode, and the duties
 *       thread pays what the house owes. No session signs with it unless a
 *       grant holds it too;
 *   no grant (principal NULL)  public state only: no signing, no
 *       own_secret.
 *
 * Keys that a grant or the house names are loaded once, at open, and
 * wiped at close; the directory is read again only to resolve a
 * participant's public key by name (public information) and to list names.
 * The deterministic test keys ("test:NAME") are public by construction:
 * anyone can sign with them, so they need no grant.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/logger.h"
#include "mcp/gateway/gateway_int.h"

/* ------------------------------------------------------------ directory */

static int cmp_names(const void *a, const void *b) { return strcmp(a, b); }

size_t kd_gw_list_keys(kd_gateway *gw, char names[][KD_KEY_NAME_MAX + 1], size_t max)
{
    DIR *d = opendir(gw->keys_dir);
    size_t n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".key") != 0 || len - 4 > KD_KEY_NAME_MAX)
            continue;
        memcpy(names[n], e->d_name, len - 4);
        names[n][len - 4] = '\0';
        if (kd_key_name_valid(names[n]))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_names);
    return n;
}

kd_err kd_gw_resolve_pubkey(kd_gateway *gw, const char *ref, kd_pubkey *pub, char *why, size_t why_len)
{
    if (strlen(ref) == 2 * KD_PUBKEY_LEN && kd_hex_decode(ref, pub->bytes, KD_PUBKEY_LEN) == 0) {
        if (kd_pubkey_check(pub) != KD_OK) {
            snprintf(why, why_len, "'%s' is not a valid compressed secp256k1 public key", ref);
            return KD_ERR_BAD_PUBKEY;
        }
        return KD_OK;
    }
    kd_key key;
    kd_err err = kd_key_resolve(gw->keys_dir, ref, &key, why, why_len);
    if (!err)
        *pub = key.pub;
    memset(&key, 0, sizeof key);
    return err;
}

/* 1 when `name` is one of the agent keys made on first start (agentN). */
static int is_agent_key(const char *name)
{
    return strncmp(name, "agent", 5) == 0 && name[5] >= '1' && name[5] <= '9' &&
           strspn(name + 6, "0123456789") == strlen(name + 6);
}

/* 1 when a grant or the house names a key that is no agent key: the user
 * means keys of their own, which must exist already (made with keygen). */
static int names_own_keys(const kd_gateway *gw)
{
    for (size_t i = 0; i < gw->o.n_grants; i++)
        for (const char *p = gw->o.grants[i]; p && *p;) {
            size_t len = strcspn(p, ",");
            char name[KD_KEY_NAME_MAX + 1];
            snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
            if (!is_agent_key(name))
                return 1;
            p += len + (p[len] == ',');
        }
    return gw->o.house && !is_agent_key(gw->o.house);
}

/* As upstream kdapp: agent keys on first start (agent1, agent2, ... one per
 * seat of the type that needs the most), so an agent can play with zero
 * setup once granted them. A directory of the user's own keys is left as it
 * is; one holding only agent keys gets those still missing, so two gateways
 * started at once on an empty directory both find every agent key. None
 * are made when a grant or the house names a key of the user's own: that
 * key must exist already, and a directory named wrongly gets nothing. The
 * keys made are named in gw->made_keys, for the program to say so. */
kd_err kd_gw_ensure_agent_keys(kd_gateway *gw, char *why, size_t why_len)
{
    enum { LOOK = 64 };
    gw->made_keys[0] = '\0';
    if (names_own_keys(gw))
        return KD_OK;
    char(*names)[KD_KEY_NAME_MAX + 1] = malloc(LOOK * sizeof *names);
    if (!names)
        return KD_ERR_NOMEM;
    size_t found = kd_gw_list_keys(gw, names, LOOK);
    int own_keys = 0;
    for (size_t i = 0; i < found; i++)
        own_keys |= !is_agent_key(names[i]);
    free(names);
    if (own_keys)
        return KD_OK;
    size_t n = kd_gw_max_min_seats(gw);
    if (n < 2)
        n = 2;
    for (size_t i = 0; i < n; i++) {
        char name[KD_KEY_NAME_MAX + 1];
        snprintf(name, sizeof name, "agent%zu", i + 1);
        kd_key key;
        kd_err err = kd_key_generate(&key);
        if (!err)
            err = kd_key_save(gw->keys_dir, name, &key, why, why_len);
        memset(&key, 0, sizeof key);
        if (err && err != KD_ERR_EXISTS)
            return err;
        size_t used = strlen(gw->made_keys);
        if (!err)
            snprintf(gw->made_keys + used, sizeof gw->made_keys - used, "%s%s", used ? ", " : "", name);
    }
    if (found < n)
        KD_LOG_I("gateway", "created agent keys agent1 to agent%zu in %s", n, gw->keys_dir);
    return KD_OK;
}

/* --------------------------------------------------------------- grants */

/* The loaded key named `name`, loading it on first use. */
static kd_err load_key(kd_gateway *gw, const char *name, kd_gw_key **out, char *why, size_t why_len)
{
    for (size_t i = 0; i < gw->n_keys; i++)
        if (strcmp(gw->keys[i].name, name) == 0) {
            *out = &gw->keys[i];
            return KD_OK;
        }
    if (gw->n_keys == KD_GW_MAX_KEYS) {
        snprintf(why, why_len, "the grants and the house name more than %d keys", KD_GW_MAX_KEYS);
        return KD_ERR_TOO_LARGE;
    }
    if (strncmp(name, "test:", 5) == 0) {
        snprintf(why, why_len,
                 "'%s' is a public test key: anyone can derive its secret, so it can be neither granted nor "
                 "the house's (a session signs with a test key without a grant)",
                 name);
        return KD_ERR_INVALID_ARG;
    }
    kd_gw_key *k = &gw->keys[gw->n_keys];
    kd_err err = kd_key_load(gw->keys_dir, name, &k->key, why, why_len);
    if (err)
        return err;
    snprintf(k->name, sizeof k->name, "%s", name);
    gw->n_keys++;
    *out = k;
    return KD_OK;
}

/* Fills `g` from "name,name,...". */
static kd_err load_grant(kd_gateway *gw, const char *spec, kd_gw_grant *g, char *why, size_t why_len)
{
    const char *p = spec;
    g->n = 0;
    if (strlen(spec) >= sizeof g->name) {
        snprintf(why, why_len, "grant '%.200s...' is over %zu bytes", spec, sizeof g->name - 1);
        return KD_ERR_INVALID_ARG;
    }
    snprintf(g->name, sizeof g->name, "%s", spec);
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[KD_KEY_NAME_MAX + 6];
        if (len == 0 || len >= sizeof name) {
            snprintf(why, why_len,
                     "grant '%.200s': a key name is empty or too long (names are 1 to %d of "
                     "[A-Za-z0-9_.-], comma-separated)",
                     spec, KD_KEY_NAME_MAX);
            return KD_ERR_INVALID_ARG;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        kd_gw_key *k;
        char inner[400];
        kd_err err = load_key(gw, name, &k, inner, sizeof inner);
        if (err) {
            snprintf(why, why_len, "grant '%.200s': %s", spec, inner);
            return err;
        }
        int dup = 0;
        for (size_t i = 0; i < g->n; i++)
            dup |= g->keys[i] == k;
        if (!dup)
            g->keys[g->n++] = k;
        if (!comma)
            return KD_OK;
        p = comma + 1;
    }
}

kd_err kd_gw_grants_open(kd_gateway *gw, char *why, size_t why_len)
{
    kd_err err = KD_OK;
    if (gw->o.n_grants) {
        gw->grants = calloc(gw->o.n_grants, sizeof *gw->grants);
        if (!gw->grants)
            return KD_ERR_NOMEM;
    }
    for (size_t i = 0; !err && i < gw->o.n_grants; i++)
        err = load_grant(gw, gw->o.grants[i], &gw->grants[i], why, why_len);
    for (size_t i = 0; !err && i < gw->n_keys; i++)
        gw->keys[i].granted = 1;
    if (!err && gw->o.house) {
        kd_gw_key *k;
        char inner[400];
        if ((err = load_key(gw, gw->o.house, &k, inner, sizeof inner)))
            snprintf(why, why_len, "the house key: %s", inner);
        else
            gw->house = k;
    }
    if (!err)
        gw->n_grants = gw->o.n_grants;
    else
        kd_gw_grants_close(gw);
    return err;
}

void kd_gw_grants_close(kd_gateway *gw)
{
    for (size_t i = 0; i < gw->n_keys; i++)
        memset(&gw->keys[i], 0, sizeof gw->keys[i]);
    gw->n_keys = 0;
    free(gw->grants);
    gw->grants = NULL;
    gw->n_grants = 0;
    gw->house = NULL;
}

const void *kd_gateway_grant(const kd_gateway *gw, size_t i) { return i < gw->n_grants ? &gw->grants[i] : NULL; }

const kd_gw_grant *kd_gw_session_grant(kd_mcp_session *s) { return s ? kd_mcp_session_principal(s) : NULL; }

const kd_gw_key *kd_gw_grant_find(const kd_gw_grant *g, const kd_pubkey *pub)
{
    for (size_t i = 0; g && i < g->n; i++)
        if (memcmp(g->keys[i]->key.pub.bytes, pub->bytes, KD_PUBKEY_LEN) == 0)
            return g->keys[i];
    return NULL;
}

const kd_gw_key *kd_gw_grant_named(const kd_gw_grant *g, const char *name)
{
    for (size_t i = 0; g && i < g->n; i++)
        if (strcmp(g->keys[i]->name, name) == 0)
            return g->keys[i];
    return NULL;
}

void kd_gw_grant_names(const kd_gw_grant *g, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; g && i < g->n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", g->keys[i]->name);
    if (!g || g->n == 0)
        snprintf(out, len, "no key");
}

void kd_gw_spend_of_session(const kd_gw_grant *g, kd_gateway_spend *out)
{
    memset(out, 0, sizeof *out);
    out->kind = KD_GATEWAY_SPEND_SESSION;
    if (!g)
        return;
    snprintf(out->grant, sizeof out->grant, "%s", g->name);
    for (size_t i = 0; i < g->n && i < KD_GATEWAY_SPEND_KEYS; i++)
        out->keys[out->n_keys++] = g->keys[i]->key.pub;
}

void kd_gw_spend_of_duty(const kd_gateway *gw, const kd_gw_key *k, kd_gateway_spend *out)
{
    memset(out, 0, sizeof *out);
    out->kind = KD_GATEWAY_SPEND_DUTY;
    out->keys[out->n_keys++] = k->key.pub;
    for (size_t i = 0; i < gw->n_grants && !out->grant[0]; i++)
        if (kd_gw_grant_find(&gw->grants[i], &k->key.pub))
            snprintf(out->grant, sizeof out->grant, "%s", gw->grants[i].name);
    if (!out->grant[0])
        snprintf(out->grant, sizeof out->grant, "house:%s", k->name);
}

const kd_gw_key *kd_gw_acting_key(const kd_gateway *gw, const kd_episode_type *t, int seat, const kd_pubkey *pub)
{
    for (size_t i = 0; i < gw->n_keys; i++) {
        const kd_gw_key *k = &gw->keys[i];
        if (memcmp(k->key.pub.bytes, pub->bytes, KD_PUBKEY_LEN) != 0)
            continue;
        if (k->granted || (k == gw->house && seat >= 0 && seat < 32 && (t->house_seats & (1u << seat))))
            return k;
    }
    return NULL;
}
