/*
 * store_id_stub.c — TEMPORARY stand-in for kd_engine_store_id (engine.h)
 * while branch `eng`, which keeps a random 16-byte id in the store's meta,
 * is not merged: the id here is the first 16 bytes of SHA-256 of the store
 * directory's real path, so two stores on one machine differ. A copy of a
 * store keeps its id under eng's scheme and changes it under this one;
 * nothing else differs for the callers. Delete this file when eng lands.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/engine.h"

kd_err kd_engine_store_id(kd_engine *engine, uint8_t out[KD_STORE_ID_LEN])
{
    char path[PATH_MAX];
    const char *dir = kd_engine_dir(engine);
    if (!dir || !realpath(dir, path))
        return KD_ERR_IO;
    uint8_t h[KD_HASH_LEN];
    kd_sha256(path, strlen(path), h);
    memcpy(out, h, KD_STORE_ID_LEN);
    return KD_OK;
}
