/*
 * gen_seeds.c — writes the binary seed corpora of the payload and ingest
 * targets from the real encoders (engine/wire.h, kd_ingest_request_pack),
 * so the seeds are exactly what producers send. The text corpora (script,
 * mcp, http) are written by hand and committed as they are.
 *
 *   fuzz_gen_seeds DIR     writes the files of DIR/payload and DIR/ingest
 *
 * The moves are signed for the episodes fuzz_support.c seeds (1: classic,
 * X has played; 2: stress cap 3, full; 3: fresh), so a seed run applies
 * them. Re-running it rewrites the same files (signatures are
 * deterministic, RFC 6979).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ingest.h"
#include "engine/wire.h"
#include "episodes/tictactoe/tictactoe.h"

static const char *out_dir;

static void die(const char *what)
{
    fprintf(stderr, "fuzz_gen_seeds: %s\n", what);
    exit(1);
}

static void write_seed(const char *sub, const char *name, const kd_buf *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, sub, name);
    FILE *f = fopen(path, "wb");
    if (!f || (b->len && fwrite(b->data, 1, b->len, f) != b->len) || fclose(f) != 0)
        die(path);
}

static void check(kd_err err, const char *what)
{
    if (err)
        die(what);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: fuzz_gen_seeds DIR");
    out_dir = argv[1];
    kd_key alice, bob;
    check(kd_key_test("alice", &alice), "key");
    check(kd_key_test("bob", &bob), "key");
    kd_participants p = {.count = 2};
    p.keys[0] = alice.pub;
    p.keys[1] = bob.pub;

    enum { N = 12 };
    kd_buf pl[N], cmd, params;
    const char *names[N] = {"new_classic",   "new_stress3",  "new_stress_bad_cap", "new_one_participant",
                            "move_o_signed", "move_evict",   "move_x_fresh",       "move_unsigned",
                            "move_oob",      "move_bad_sig", "move_wrong_turn",    "new_unknown_type"};
    for (size_t i = 0; i < N; i++)
        kd_buf_init(&pl[i]);
    kd_buf_init(&cmd);
    kd_buf_init(&params);
    check(kd_wire_new_episode(10, KD_TTT_TYPE_NAME, &p, NULL, 0, &pl[0]), "new");
    check(kd_ttt_params_encode(3, &params), "params");
    check(kd_wire_new_episode(11, KD_TTT_TYPE_NAME, &p, params.data, params.len, &pl[1]), "new");
    params.len = 0;
    check(kd_ttt_params_encode(200, &params), "params");
    check(kd_wire_new_episode(12, KD_TTT_TYPE_NAME, &p, params.data, params.len, &pl[2]), "new");
    kd_participants one = {.count = 1};
    one.keys[0] = alice.pub;
    check(kd_wire_new_episode(13, KD_TTT_TYPE_NAME, &one, NULL, 0, &pl[3]), "new");
    /* episode 1: X played (1,1); O to move at counter 1 */
    check(kd_ttt_move_encode(0, 0, 1, &cmd), "move");
    check(kd_wire_signed_command(1, cmd.data, cmd.len, &bob, 1, &pl[4]), "sign");
    /* episode 2: cap 3, full; O to move at counter 3, evicting (0,0) */
    cmd.len = 0;
    check(kd_ttt_move_encode(1, 1, 1, &cmd), "move");
    check(kd_wire_signed_command(2, cmd.data, cmd.len, &bob, 3, &pl[5]), "sign");
    /* episode 3: fresh; X at counter 0 */
    cmd.len = 0;
    check(kd_ttt_move_encode(2, 0, 0, &cmd), "move");
    check(kd_wire_signed_command(3, cmd.data, cmd.len, &alice, 0, &pl[6]), "sign");
    check(kd_wire_unsigned_command(3, cmd.data, cmd.len, &pl[7]), "unsigned");
    cmd.len = 0;
    check(kd_ttt_move_encode(7, 1, 0, &cmd), "move");
    check(kd_wire_signed_command(3, cmd.data, cmd.len, &alice, 0, &pl[8]), "sign");
    uint8_t junk_sig[64] = {1};
    check(kd_wire_presigned_command(3, cmd.data, cmd.len, &alice.pub, junk_sig, sizeof junk_sig, &pl[9]), "presigned");
    cmd.len = 0;
    check(kd_ttt_move_encode(0, 1, 1, &cmd), "move");
    check(kd_wire_signed_command(3, cmd.data, cmd.len, &bob, 0, &pl[10]), "sign");
    check(kd_wire_new_episode(14, "chess", &p, NULL, 0, &pl[11]), "new");
    for (size_t i = 0; i < N; i++)
        write_seed("payload", names[i], &pl[i]);

    /* ingest: requests of one or more chain events */
    kd_buf msgs[4], frame;
    for (size_t i = 0; i < 4; i++)
        kd_buf_init(&msgs[i]);
    kd_buf_init(&frame);
    uint8_t h1[KD_HASH_LEN], h2[KD_HASH_LEN];
    kd_sha256("ingest-b1", 9, h1);
    kd_sha256("ingest-b2", 9, h2);
    kd_wire_tx txs[3];
    for (size_t i = 0; i < 3; i++) {
        kd_sha256(pl[i * 3].data, pl[i * 3].len, txs[i].tx_id);
        txs[i].payload = pl[i * 3].data;
        txs[i].payload_len = pl[i * 3].len;
    }
    check(kd_wire_accept(h1, 5, 500, txs, 3, &msgs[0]), "accept");
    check(kd_wire_accept(h2, 6, 600, txs + 2, 1, &msgs[1]), "accept");
    check(kd_wire_revert(h2, &msgs[2]), "revert");
    check(kd_wire_revert(h1, &msgs[3]), "revert");
    check(kd_ingest_request_pack(msgs, 1, &frame), "pack");
    write_seed("ingest", "accept_one", &frame);
    frame.len = 0;
    check(kd_ingest_request_pack(msgs, 4, &frame), "pack");
    write_seed("ingest", "accept_accept_revert_revert", &frame);
    frame.len = 0;
    kd_buf twice[2] = {msgs[1], msgs[1]}; /* the second is a duplicate */
    check(kd_ingest_request_pack(twice, 2, &frame), "pack");
    write_seed("ingest", "accept_twice", &frame);
    frame.len = 0;
    check(kd_ingest_request_pack(msgs + 2, 1, &frame), "pack");
    write_seed("ingest", "revert_unknown", &frame);
    frame.len = 0;
    check(kd_ingest_request_pack(msgs, 0, &frame), "pack");
    write_seed("ingest", "empty_request", &frame);
    write_seed("ingest", "not_a_request", &pl[4]);

    for (size_t i = 0; i < N; i++)
        kd_buf_fini(&pl[i]);
    for (size_t i = 0; i < 4; i++)
        kd_buf_fini(&msgs[i]);
    kd_buf_fini(&frame);
    kd_buf_fini(&cmd);
    kd_buf_fini(&params);
    memset(&alice, 0, sizeof alice);
    memset(&bob, 0, sizeof bob);
    return 0;
}
