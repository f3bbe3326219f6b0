/*
 * play_resume.c — what `kdapp play --episode ID` needs before its embedded
 * gateway starts (see play.h): the episode's type, and which keys of the
 * key directory sit in its seats, so the gateway is granted exactly them
 * and pays their duties (a reveal, a shot's answer, a hold'em key) while
 * the game goes on.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/engine.h"
#include "episodes/episode_type.h"
#include "tools/play/play.h"

/* The name of the key in `keys_dir` whose public key is `pub`, in `name`;
 * 0 when none is. */
static int key_named(const char *keys_dir, const kd_pubkey *pub, char name[KD_KEY_NAME_MAX + 1])
{
    DIR *d = opendir(keys_dir);
    int found = 0;
    struct dirent *e;
    while (d && !found && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || len - 4 > KD_KEY_NAME_MAX || strcmp(e->d_name + len - 4, ".key") != 0)
            continue;
        snprintf(name, KD_KEY_NAME_MAX + 1, "%.*s", (int)(len - 4), e->d_name);
        kd_key key;
        char why[256];
        found = kd_key_name_valid(name) && kd_key_load(keys_dir, name, &key, why, sizeof why) == KD_OK &&
                memcmp(key.pub.bytes, pub->bytes, KD_PUBKEY_LEN) == 0;
        memset(&key, 0, sizeof key);
    }
    if (d)
        closedir(d);
    return found;
}

/* A table still waiting for players (kd_read_tables), for resuming it. */
typedef struct {
    uint32_t id;
    int found;
    char type[KD_TYPE_NAME_MAX];
    kd_participants parts; /* an open seat's key is zeros: never in a key directory */
} waiting;

static kd_err on_table(void *ctx, const kd_table_info *t)
{
    waiting *w = ctx;
    if (t->episode_id == w->id && !t->started && !t->cancelled) {
        w->found = 1;
        snprintf(w->type, sizeof w->type, "%s", t->type_name);
        w->parts = t->participants;
    }
    return KD_OK;
}

static int waiting_table(kd_engine *engine, waiting *w)
{
    kd_read *rd;
    if (kd_engine_read_begin(engine, &rd) != KD_OK)
        return 0;
    kd_err err = kd_read_tables(rd, on_table, w);
    kd_engine_read_end(rd);
    return !err && w->found;
}

kd_err kd_play_resume_find(const kd_registry *registry, const char *data_dir, const char *keys_dir, uint32_t episode,
                           const char **type, char *grant, size_t grant_len, char *why, size_t why_len)
{
    kd_engine_options eo = {.data_dir = data_dir, .registry = registry, .read_only = 1};
    kd_engine *engine = NULL;
    kd_episode_snapshot snap = {0};
    waiting table = {.id = episode};
    grant[0] = '\0';
    kd_err err = kd_engine_open(&eo, &engine, why, why_len);
    if (err)
        return err;
    err = kd_engine_episode_read(engine, episode, &snap);
    if (err == KD_ERR_NOT_FOUND && waiting_table(engine, &table)) { /* an open table: its seats named so far */
        const kd_registry_entry *e = kd_registry_find(registry, table.type);
        if (e) {
            err = KD_OK;
            snap.ops = e->ops;
            snap.participants = table.parts;
        }
    }
    if (err == KD_ERR_NOT_FOUND)
        kd_reject_write(why, why_len,
                        "episode %u is not in %s (`kdapp list --data %s` lists its episodes; a gateway elsewhere: "
                        "--mcp-url URL)",
                        episode, data_dir, data_dir);
    else if (err)
        kd_reject_write(why, why_len, "cannot read episode %u from %s: %s", episode, data_dir, kd_err_str(err));
    if (err)
        goto done;
    *type = snap.ops->type_name;
    for (size_t s = 0; !err && s < snap.participants.count; s++) {
        char name[KD_KEY_NAME_MAX + 1], hex[2 * KD_PUBKEY_LEN + 1];
        if (!key_named(keys_dir, &snap.participants.keys[s], name)) {
            if (s + 1 < snap.participants.count || grant[0])
                continue; /* another owner's seat (a table's): played by its own kdapp play, waited for */
            kd_hex_encode(snap.participants.keys[0].bytes, KD_PUBKEY_LEN, hex);
            kd_reject_write(why, why_len,
                            "no seat of episode %u has a key in %s (seat 0 is the key %.16s…): resume with the key "
                            "directory that holds one (--keys DIR), or through a gateway granted it (--mcp-url URL)",
                            episode, keys_dir, hex);
            err = KD_ERR_NOT_FOUND;
            break;
        }
        int again = 0; /* two seats of one key: granted once */
        for (size_t t = 0; t < s; t++)
            again |= memcmp(snap.participants.keys[t].bytes, snap.participants.keys[s].bytes, KD_PUBKEY_LEN) == 0;
        size_t used = strlen(grant);
        if (!again)
            snprintf(grant + used, grant_len - used, "%s%s", used ? "," : "", name);
    }
done:
    kd_episode_snapshot_fini(&snap);
    kd_engine_close(engine);
    return err;
}
