/* kaspa_addr.c — Kaspa addresses (kaspa_addr.h). */
#include "tools/kaspa/kaspa_addr.h"

#include "tools/kaspa/kaspa_tx.h"

#include <stdio.h>
#include <string.h>

#define OP_DATA_32 0x20
#define OP_DATA_33 0x21
#define OP_EQUAL 0x87
#define OP_BLAKE2B 0xaa
#define OP_CHECKSIGECDSA 0xab
#define OP_CHECKSIG 0xac

static const char charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
static const char *const prefixes[] = {"kaspa", "kaspatest", "kaspadev", "kaspasim"};

const char *kd_kaspa_net_prefix(kd_kaspa_net net)
{
    return (unsigned)net < sizeof prefixes / sizeof *prefixes ? prefixes[net] : "?";
}

kd_err kd_kaspa_net_parse(const char *name, kd_kaspa_net *out)
{
    static const struct {
        const char *name;
        kd_kaspa_net net;
    } names[] = {
        {"mainnet", KD_KNET_MAINNET},    {"testnet", KD_KNET_TESTNET}, {"testnet-10", KD_KNET_TESTNET},
        {"testnet-11", KD_KNET_TESTNET}, {"devnet", KD_KNET_DEVNET},   {"simnet", KD_KNET_SIMNET},
    };
    for (size_t i = 0; name && i < sizeof names / sizeof *names; i++) {
        if (!strcmp(name, names[i].name)) {
            *out = names[i].net;
            return KD_OK;
        }
    }
    return KD_ERR_INVALID_ARG;
}

static size_t payload_len_of(kd_kaddr_version v)
{
    switch (v) {
    case KD_KADDR_PUBKEY:
    case KD_KADDR_SCRIPT_HASH:
        return 32;
    case KD_KADDR_PUBKEY_ECDSA:
        return 33;
    }
    return 0;
}

/* CashAddr's BCH code (bech32.rs polymod). */
static uint64_t polymod(const uint8_t *v, size_t n, uint64_t c)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t c0 = c >> 35;
        c = ((c & 0x07ffffffffull) << 5) ^ v[i];
        if (c0 & 0x01)
            c ^= 0x98f2bc8e61ull;
        if (c0 & 0x02)
            c ^= 0x79b76d99e2ull;
        if (c0 & 0x04)
            c ^= 0xf33e5fb3c4ull;
        if (c0 & 0x08)
            c ^= 0xae2eabe2a8ull;
        if (c0 & 0x10)
            c ^= 0x1e4f43e470ull;
    }
    return c;
}

static uint64_t checksum(const char *prefix, const uint8_t *five, size_t n)
{
    uint8_t p[16];
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < plen; i++)
        p[i] = (uint8_t)(prefix[i] & 0x1f);
    p[plen] = 0;
    static const uint8_t zeroes[8] = {0};
    uint64_t c = polymod(p, plen + 1, 1);
    c = polymod(five, n, c);
    return polymod(zeroes, 8, c) ^ 1;
}

/* 8-bit groups into 5-bit ones, the last padded with zero bits on the right. */
static size_t to_five(const uint8_t *in, size_t n, uint8_t *out)
{
    size_t k = 0;
    unsigned buf = 0, bits = 0;
    for (size_t i = 0; i < n; i++) {
        buf = (buf << 8) | in[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            out[k++] = (uint8_t)((buf >> bits) & 0x1f);
        }
        buf &= (1u << bits) - 1;
    }
    if (bits)
        out[k++] = (uint8_t)((buf << (5 - bits)) & 0x1f);
    return k;
}

kd_err kd_kaddr_encode(const kd_kaddr *addr, char out[KD_KADDR_TEXT_MAX])
{
    if (addr->payload_len != payload_len_of(addr->version) || (unsigned)addr->net > KD_KNET_SIMNET)
        return KD_ERR_INVALID_ARG;
    uint8_t raw[34], five[64];
    raw[0] = (uint8_t)addr->version;
    memcpy(raw + 1, addr->payload, addr->payload_len);
    size_t n = to_five(raw, addr->payload_len + 1, five);
    const char *prefix = kd_kaspa_net_prefix(addr->net);
    uint64_t sum = checksum(prefix, five, n);
    for (int i = 0; i < 8; i++)
        five[n + (size_t)i] = (uint8_t)((sum >> (5 * (7 - i))) & 0x1f);
    size_t at = (size_t)snprintf(out, KD_KADDR_TEXT_MAX, "%s:", prefix);
    for (size_t i = 0; i < n + 8; i++)
        out[at++] = charset[five[i]];
    out[at] = 0;
    return KD_OK;
}

kd_err kd_kaddr_decode(const char *text, kd_kaddr *out, char *why, size_t why_len)
{
    const char *colon = text ? strchr(text, ':') : NULL;
    if (!colon)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len,
                            "the address has no network prefix (kaspa:, kaspatest:, kaspadev:, kaspasim:)");
    size_t plen = (size_t)(colon - text);
    int net = -1;
    for (int i = 0; i < 4; i++)
        if (strlen(prefixes[i]) == plen && !memcmp(text, prefixes[i], plen))
            net = i;
    if (net < 0)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len,
                            "the address prefix '%.*s' is not kaspa, kaspatest, kaspadev or kaspasim",
                            (int)(plen > 20 ? 20 : plen), text);
    const char *body = colon + 1;
    size_t n = strlen(body);
    /* The longest payload (version + 33 bytes) is 55 characters, the
     * shortest valid one (version + 32) 52; then 8 of checksum. */
    if (n < 8 + 52 || n > 8 + 55)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len,
                            "the address is %zu characters after its prefix; a Kaspa address has 60 to 63", n);
    uint8_t five[64];
    for (size_t i = 0; i < n; i++) {
        const char *c = body[i] ? strchr(charset, body[i]) : NULL;
        if (!c)
            return kd_kaspa_why(KD_ERR_PARSE, why, why_len,
                                "the address has the character '%c', not in Kaspa's (lowercase) alphabet", body[i]);
        five[i] = (uint8_t)(c - charset);
    }
    size_t data = n - 8;
    uint64_t want = 0;
    for (size_t i = 0; i < 8; i++)
        want = (want << 5) | five[data + i];
    if (checksum(prefixes[net], five, data) != want)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len,
                            "the address checksum is wrong (a mistyped character, or another prefix)");
    uint8_t raw[40];
    size_t k = 0;
    unsigned buf = 0, bits = 0;
    for (size_t i = 0; i < data; i++) {
        buf = (buf << 5) | five[i];
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            raw[k++] = (uint8_t)(buf >> bits);
            buf &= (1u << bits) - 1;
        }
    }
    if (bits >= 5 || buf)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len, "the address has a padding that no encoder writes");
    kd_kaddr_version version = (kd_kaddr_version)raw[0];
    size_t want_len = payload_len_of(version);
    if (!want_len)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len,
                            "the address version %u is not PubKey (0), PubKeyECDSA (1) or ScriptHash (8)", raw[0]);
    if (k - 1 != want_len)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len, "the address carries %zu bytes; its version %u takes %zu",
                            k - 1, raw[0], want_len);
    out->net = (kd_kaspa_net)net;
    out->version = version;
    out->payload_len = want_len;
    memcpy(out->payload, raw + 1, want_len);
    return KD_OK;
}

void kd_kaddr_of_key(const kd_key *key, kd_kaspa_net net, kd_kaddr *out)
{
    out->net = net;
    out->version = KD_KADDR_PUBKEY;
    out->payload_len = 32;
    memcpy(out->payload, key->pub.bytes + 1, 32); /* x of the compressed key */
}

kd_err kd_kaddr_to_script(const kd_kaddr *addr, uint8_t script[KD_KSPK_SCRIPT_MAX], size_t *len)
{
    if (addr->payload_len != payload_len_of(addr->version))
        return KD_ERR_INVALID_ARG;
    switch (addr->version) {
    case KD_KADDR_PUBKEY:
        script[0] = OP_DATA_32;
        memcpy(script + 1, addr->payload, 32);
        script[33] = OP_CHECKSIG;
        *len = 34;
        return KD_OK;
    case KD_KADDR_PUBKEY_ECDSA:
        script[0] = OP_DATA_33;
        memcpy(script + 1, addr->payload, 33);
        script[34] = OP_CHECKSIGECDSA;
        *len = 35;
        return KD_OK;
    case KD_KADDR_SCRIPT_HASH:
        script[0] = OP_BLAKE2B;
        script[1] = OP_DATA_32;
        memcpy(script + 2, addr->payload, 32);
        script[34] = OP_EQUAL;
        *len = 35;
        return KD_OK;
    }
    return KD_ERR_INVALID_ARG;
}

kd_err kd_kaddr_from_script(kd_kaspa_net net, uint16_t spk_version, const uint8_t *script, size_t len, kd_kaddr *out)
{
    if (spk_version != 0)
        return KD_ERR_UNSUPPORTED;
    out->net = net;
    if (len == 34 && script[0] == OP_DATA_32 && script[33] == OP_CHECKSIG) {
        out->version = KD_KADDR_PUBKEY;
        out->payload_len = 32;
        memcpy(out->payload, script + 1, 32);
    } else if (len == 35 && script[0] == OP_DATA_33 && script[34] == OP_CHECKSIGECDSA) {
        out->version = KD_KADDR_PUBKEY_ECDSA;
        out->payload_len = 33;
        memcpy(out->payload, script + 1, 33);
    } else if (len == 35 && script[0] == OP_BLAKE2B && script[1] == OP_DATA_32 && script[34] == OP_EQUAL) {
        out->version = KD_KADDR_SCRIPT_HASH;
        out->payload_len = 32;
        memcpy(out->payload, script + 2, 32);
    } else {
        return KD_ERR_UNSUPPORTED;
    }
    return KD_OK;
}
