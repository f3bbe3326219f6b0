/*
 * sim_verdicts.c — a ring of precheck verdicts by key (sim_verdicts.h).
 * A lookup scans the ring: a few hundred 32-byte comparisons cost
 * microseconds beside the milliseconds of the check they save.
 */
#include "tools/sim/sim_verdicts.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t key[KD_HASH_LEN];
    kd_precheck verdict;
} kd_sim_kept;

struct kd_sim_verdicts {
    kd_sim_kept kept[KD_SIM_VERDICTS];
    size_t count, next; /* how many are kept; the slot the next one takes */
};

kd_err kd_sim_verdicts_alloc(kd_sim_verdicts **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? KD_OK : KD_ERR_NOMEM;
}

void kd_sim_verdicts_free(kd_sim_verdicts *v) { free(v); }

static const kd_precheck *find(const kd_sim_verdicts *v, const uint8_t key[KD_HASH_LEN])
{
    for (size_t i = 0; i < v->count; i++)
        if (memcmp(v->kept[i].key, key, KD_HASH_LEN) == 0)
            return &v->kept[i].verdict;
    return NULL;
}

kd_err kd_sim_verdict(kd_sim_verdicts *v, const kd_episode_ops *ops, const void *state, const uint8_t *command,
                      size_t len, const kd_pubkey *signer, kd_block_meta *meta, kd_precheck *pc)
{
    uint8_t key[KD_HASH_LEN];
    if (!v || !ops->precheck_key || !ops->precheck_key(state, command, len, signer, meta->episode_id, key))
        return KD_OK;
    const kd_precheck *known = find(v, key);
    if (known) {
        *pc = *known;
    } else {
        memset(pc, 0, sizeof *pc);
        pc->verdict = ops->precheck(state, command, len, signer, meta->episode_id, &pc->rej);
        if (pc->verdict == KD_ERR_NOMEM)
            return KD_ERR_NOMEM;
        kd_sim_kept *slot = &v->kept[v->next];
        memcpy(slot->key, key, KD_HASH_LEN);
        slot->verdict = *pc;
        v->next = (v->next + 1) % KD_SIM_VERDICTS;
        if (v->count < KD_SIM_VERDICTS)
            v->count++;
    }
    meta->precheck = pc;
    return KD_OK;
}
