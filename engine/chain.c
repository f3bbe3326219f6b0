/* chain.c — chain names: their forms, and which store serves which (see chain.h). */
#include "engine/chain.h"

#include <stdio.h>
#include <string.h>

#include "engine/bytes.h"

#define LOCAL_PREFIX "local:"

static int network_valid(const char *net)
{
    size_t n = strlen(net);
    if (n == 0 || n > KD_CHAIN_NETWORK_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((net[i] >= 'a' && net[i] <= 'z') || (net[i] >= '0' && net[i] <= '9') || net[i] == '-'))
            return 0;
    return 1;
}

int kd_chain_valid(const char *name)
{
    if (!name)
        return 0;
    if (strncmp(name, KD_CHAIN_KASPA, sizeof KD_CHAIN_KASPA - 1) == 0)
        return network_valid(name + sizeof KD_CHAIN_KASPA - 1);
    if (strncmp(name, LOCAL_PREFIX, sizeof LOCAL_PREFIX - 1) != 0)
        return 0;
    const char *hex = name + sizeof LOCAL_PREFIX - 1;
    if (strlen(hex) != 2 * KD_STORE_ID_LEN)
        return 0;
    for (const char *p = hex; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

void kd_chain_local(const uint8_t store_id[KD_STORE_ID_LEN], char out[KD_CHAIN_MAX])
{
    memcpy(out, LOCAL_PREFIX, sizeof LOCAL_PREFIX - 1);
    kd_hex_encode(store_id, KD_STORE_ID_LEN, out + sizeof LOCAL_PREFIX - 1);
}

kd_err kd_chain_kaspa(const char *network, char out[KD_CHAIN_MAX], char *why, size_t why_len)
{
    if (!network || !network_valid(network)) {
        snprintf(why, why_len, "'%.40s' is not a Kaspa network id (1 to %d of a-z, 0-9 and '-', as \"testnet-10\")",
                 network ? network : "", KD_CHAIN_NETWORK_MAX);
        return KD_ERR_INVALID_ARG;
    }
    snprintf(out, KD_CHAIN_MAX, "%s%s", KD_CHAIN_KASPA, network);
    return KD_OK;
}

int kd_chain_matches(const char *chain, const char *wanted)
{
    if (!wanted || !wanted[0])
        return 1;
    if (strcmp(wanted, KD_CHAIN_LOCAL) == 0)
        return strncmp(chain, LOCAL_PREFIX, sizeof LOCAL_PREFIX - 1) == 0;
    return strcmp(chain, wanted) == 0;
}

kd_err kd_chain_check(const char *wanted, char *why, size_t why_len)
{
    if (!wanted || !wanted[0] || strcmp(wanted, KD_CHAIN_LOCAL) == 0 || kd_chain_valid(wanted))
        return KD_OK;
    snprintf(why, why_len,
             "chain '%.70s' is not a chain name: use kaspa:NETWORK (kaspa:mainnet, kaspa:testnet-10), "
             "local:<32 hex digits of a store id>, or local for any local chain",
             wanted);
    return KD_ERR_INVALID_ARG;
}
