/*
 * spend.h — who asked for a submission, as a chain whose transactions cost
 * coins needs to know it. The gateway says it for each payload it submits
 * (a session's grant, or its absence; a duty it pays), the control socket
 * carries it (DevnetSubmit.spend, proto/kdapp.proto) and the chain decides
 * from it alone whose coins may pay: `kdapp up --rpc`'s writer
 * (tools/kaspa/kaspa_writer.h, "Who pays"). The devnet costs nothing and
 * ignores it. Nothing here names a game or a wallet.
 *
 *   kind      whose coins may pay
 *   OWNER     the key directory's holder (kdapp submit, kdapp wallet send):
 *             the signer's or first participant's key, else the funding
 *             wallet (within its budget)
 *   SESSION   a gateway session: only the keys listed (its grant's); the
 *             funding wallet only when `grant` names one (within the
 *             budget kept under that name); a session without a grant
 *             lists no key, so nobody pays for it
 *   DUTY      a gateway's duty for a key it acts with (a reveal of the
 *             house, an opening of a granted seat): that key; the funding
 *             wallet under `grant` (the grant holding the key, or the house)
 */
#ifndef KD_TOOLS_CHAIN_SPEND_H
#define KD_TOOLS_CHAIN_SPEND_H

#include <stddef.h>
#include <string.h>

#include "engine/crypto.h"

typedef enum {
    KD_SPEND_OWNER = 0,
    KD_SPEND_SESSION = 1,
    KD_SPEND_DUTY = 2,
} kd_spend_kind;

#define KD_SPEND_KEYS_MAX 64   /* keys one grant may hold (the gateway's KD_GW_MAX_KEYS) */
#define KD_SPEND_GRANT_MAX 256 /* bytes of a grant's name, NUL included */

/* Plain data: zero it for the owner. */
typedef struct {
    kd_spend_kind kind;
    char grant[KD_SPEND_GRANT_MAX]; /* "agent1,agent2", "house:house"; "" for none */
    size_t n_keys;
    kd_pubkey keys[KD_SPEND_KEYS_MAX];
} kd_chain_spend;

/* 1 when `pub` (len bytes) is one of s->keys. */
static inline int kd_chain_spend_has(const kd_chain_spend *s, const uint8_t *pub, size_t len)
{
    for (size_t i = 0; s && len == KD_PUBKEY_LEN && i < s->n_keys; i++)
        if (!memcmp(s->keys[i].bytes, pub, KD_PUBKEY_LEN))
            return 1;
    return 0;
}

#endif
