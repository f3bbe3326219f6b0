/* replay.c — log replay and store comparison. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "tools/sim/replay.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.pb-c.h"

static const char *status_name(kd_msg_status s)
{
    return s == KD_MSG_APPLIED ? "applied" : s == KD_MSG_DUPLICATE ? "duplicate" : "refused";
}

/* Replays one entry of the source snapshot `src` and checks its outcome
 * against the recorded one. */
static kd_err replay_one(kd_read *src, kd_engine *dst, uint64_t seq, int check_status, kd_buf *buf,
                         kd_replay_report *rep)
{
    buf->len = 0;
    const uint8_t *data;
    size_t len;
    kd_err err = kd_read_log_entry(src, seq, &data, &len);
    if (!err)
        err = kd_buf_append(buf, data, len); /* a copy: it is decoded while dst writes */
    if (err)
        return err;
    Kdapp__Store__LogEntry *le = kdapp__store__log_entry__unpack(NULL, buf->len, buf->data);
    if (!le)
        return KD_ERR_STORE;
    kd_msg_result res;
    err = kd_engine_replay_entry(dst, buf->data, buf->len, &res);
    rep->entries++;
    if (err == KD_ERR_DECODE) { /* a stored message that does not decode */
        err = KD_OK;
        res.status = KD_MSG_REFUSED;
    }
    if (!err && !rep->first_bad_seq) {
        kd_tip tip;
        kd_msg_status want = le->status == KDAPP__MSG_STATUS__MSG_APPLIED ? KD_MSG_APPLIED : KD_MSG_REFUSED;
        if ((err = kd_engine_tip(dst, &tip)))
            goto done;
        if (check_status && res.status != want) {
            rep->first_bad_seq = seq;
            snprintf(rep->first_bad_what, sizeof rep->first_bad_what, "log entry %llu was %s, the replay %s it",
                     (unsigned long long)seq, status_name(want), status_name(res.status));
        } else if (le->digest.len == KD_HASH_LEN && memcmp(le->digest.data, tip.digest, KD_HASH_LEN) != 0) {
            char a[17], b[17];
            kd_hex_encode(le->digest.data, 8, a);
            kd_hex_encode(tip.digest, 8, b);
            rep->first_bad_seq = seq;
            snprintf(rep->first_bad_what, sizeof rep->first_bad_what,
                     "after log entry %llu the digest was %s…, the replay has %s…", (unsigned long long)seq, a, b);
        } else if (res.status == KD_MSG_APPLIED && le->n_txs != res.tx_count) {
            rep->first_bad_seq = seq;
            snprintf(rep->first_bad_what, sizeof rep->first_bad_what, "log entry %llu: tx outcomes differ",
                     (unsigned long long)seq);
        } else {
            for (size_t i = 0; i < res.tx_count && !rep->first_bad_seq; i++) {
                if ((int)le->txs[i]->applied == res.txs[i].applied)
                    continue;
                rep->first_bad_seq = seq;
                snprintf(rep->first_bad_what, sizeof rep->first_bad_what,
                         "log entry %llu, tx %zu: was %s, the replay %s it (%s)", (unsigned long long)seq, i,
                         le->txs[i]->applied ? "applied" : "rejected", res.txs[i].applied ? "applied" : "rejected",
                         res.txs[i].applied ? le->txs[i]->error_code : res.txs[i].code);
            }
        }
    }
done:
    kd_msg_result_fini(&res);
    kdapp__store__log_entry__free_unpacked(le, NULL);
    return err;
}

static kd_err compare(kd_read *a, kd_read *b, kd_replay_report *rep);

/* The whole replay reads one snapshot of the source, from its log to the
 * episodes it is compared with: a daemon committing beside `kdapp verify`
 * moves the store on, never the position being checked. */
kd_err kd_replay_log(kd_engine *src, kd_engine *dst, int canonical_only, kd_replay_report *rep)
{
    memset(rep, 0, sizeof *rep);
    kd_buf buf;
    kd_buf_init(&buf);
    kd_read *snap = NULL, *replayed = NULL;
    uint64_t *seqs = NULL;
    size_t n = 0;
    kd_tip tip;
    kd_err err = kd_engine_read_begin(src, &snap);
    if (err || (err = kd_read_tip(snap, &tip)))
        goto done;
    if (canonical_only) {
        if ((err = kd_read_canonical_seqs(snap, &seqs, &n)))
            goto done;
        for (size_t i = 0; i < n && !err; i++)
            err = replay_one(snap, dst, seqs[i], 1, &buf, rep);
    } else {
        for (uint64_t seq = 1; seq <= tip.last_seq && !err; seq++)
            err = replay_one(snap, dst, seq, 1, &buf, rep);
    }
    if (!err && !(err = kd_engine_read_begin(dst, &replayed)))
        err = compare(snap, replayed, rep);
done:
    kd_engine_read_end(replayed);
    kd_engine_read_end(snap);
    free(seqs);
    kd_buf_fini(&buf);
    return err;
}

/* Compares one episode; writes why it differs into `what`. */
static int episode_equal(const kd_episode_snapshot *a, const kd_episode_snapshot *b, char *what, size_t len)
{
    if (a->ops != b->ops) {
        snprintf(what, len, "type %s vs %s", a->ops->type_name, b->ops->type_name);
        return 0;
    }
    if (a->participants.count != b->participants.count ||
        memcmp(a->participants.keys, b->participants.keys, a->participants.count * sizeof(kd_pubkey)) != 0) {
        snprintf(what, len, "participants differ");
        return 0;
    }
    if (a->undo_depth != b->undo_depth) {
        snprintf(what, len, "move counter %llu vs %llu", (unsigned long long)a->undo_depth,
                 (unsigned long long)b->undo_depth);
        return 0;
    }
    kd_buf ea, eb;
    kd_buf_init(&ea);
    kd_buf_init(&eb);
    int same = a->ops->encode_state(a->state, &ea) == KD_OK && b->ops->encode_state(b->state, &eb) == KD_OK &&
               ea.len == eb.len && memcmp(ea.data, eb.data, ea.len) == 0;
    if (!same)
        snprintf(what, len, "state bytes differ (%zu vs %zu bytes)", ea.len, eb.len);
    kd_buf_fini(&ea);
    kd_buf_fini(&eb);
    return same;
}

/* Compares the stores as seen by one read handle each (a live source may
 * commit meanwhile: its digest and episodes still come from one commit). */
static kd_err compare(kd_read *a, kd_read *b, kd_replay_report *rep)
{
    kd_tip ta, tb;
    kd_err err;
    if ((err = kd_read_tip(a, &ta)) || (err = kd_read_tip(b, &tb)))
        return err;
    memcpy(rep->source_digest, ta.digest, KD_HASH_LEN);
    memcpy(rep->replay_digest, tb.digest, KD_HASH_LEN);
    rep->digest_match = memcmp(ta.digest, tb.digest, KD_HASH_LEN) == 0;
    rep->episodes_match = 1;
    enum { BATCH = 256 };
    uint32_t ia[BATCH], ib[BATCH];
    uint32_t after = 0;
    for (;;) {
        size_t na, nb;
        if ((err = kd_read_episode_ids(a, after, ia, BATCH, &na)) ||
            (err = kd_read_episode_ids(b, after, ib, BATCH, &nb)))
            return err;
        size_t n = na < nb ? na : nb;
        for (size_t i = 0; i < n; i++) {
            if (ia[i] != ib[i]) {
                rep->episodes_match = 0;
                rep->first_bad_episode = ia[i] < ib[i] ? ia[i] : ib[i];
                snprintf(rep->episode_what, sizeof rep->episode_what, "episode %u exists only in the %s",
                         rep->first_bad_episode, ia[i] < ib[i] ? "source" : "replay");
                return KD_OK;
            }
            kd_episode_snapshot sa, sb;
            if ((err = kd_read_episode(a, ia[i], &sa)))
                return err;
            if ((err = kd_read_episode(b, ib[i], &sb))) {
                kd_episode_snapshot_fini(&sa);
                return err;
            }
            char what[200];
            int same = episode_equal(&sa, &sb, what, sizeof what);
            kd_episode_snapshot_fini(&sa);
            kd_episode_snapshot_fini(&sb);
            if (!same) {
                rep->episodes_match = 0;
                rep->first_bad_episode = ia[i];
                snprintf(rep->episode_what, sizeof rep->episode_what, "episode %u: %s", ia[i], what);
                return KD_OK;
            }
        }
        if (na != nb) {
            rep->episodes_match = 0;
            rep->first_bad_episode = na > nb ? ia[nb] : ib[na];
            snprintf(rep->episode_what, sizeof rep->episode_what, "episode %u exists only in the %s",
                     rep->first_bad_episode, na > nb ? "source" : "replay");
            return KD_OK;
        }
        if (na < BATCH)
            return KD_OK;
        after = ia[na - 1];
    }
}

kd_err kd_replay_compare(kd_engine *a, kd_engine *b, kd_replay_report *rep)
{
    kd_read *ra = NULL, *rb = NULL;
    kd_err err = kd_engine_read_begin(a, &ra);
    if (!err && !(err = kd_engine_read_begin(b, &rb)))
        err = compare(ra, rb, rep);
    kd_engine_read_end(rb);
    kd_engine_read_end(ra);
    return err;
}

int kd_replay_ok(const kd_replay_report *rep)
{
    return !rep->first_bad_seq && rep->episodes_match && rep->digest_match;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void kd_remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
