/*
 * seabattle_fleet.c — a sea-battle seat's secret side and its commitment:
 * the Merkle leaves, root and paths over the 100 cells, the fleet and salts
 * drawn from a seat's secret seed, and the legality of a fleet. Formats in
 * seabattle.h. Pure functions.
 */
#include <stdio.h>
#include <string.h>

#include "episodes/fair.h"
#include "episodes/seabattle/seabattle.h"

const uint8_t kd_sb_ship_len[KD_SB_SHIPS + 1] = {0, 5, 4, 3, 3, 2};

static const char salt_domain[] = "kdapp/seabattle/salt/v1";
static const char fleet_domain[] = "kdapp/seabattle/fleet/v1";

void kd_sb_leaf(uint32_t cell, uint8_t content, const uint8_t salt[KD_SB_SALT_LEN], uint8_t out[KD_HASH_LEN])
{
    uint8_t buf[3 + KD_SB_SALT_LEN];
    buf[0] = 0x00;
    buf[1] = (uint8_t)cell;
    buf[2] = content;
    memcpy(buf + 3, salt, KD_SB_SALT_LEN);
    kd_sha256(buf, sizeof buf, out);
}

static void node(const uint8_t left[KD_HASH_LEN], const uint8_t right[KD_HASH_LEN], uint8_t out[KD_HASH_LEN])
{
    uint8_t buf[1 + 2 * KD_HASH_LEN];
    buf[0] = 0x01;
    memcpy(buf + 1, left, KD_HASH_LEN);
    memcpy(buf + 1 + KD_HASH_LEN, right, KD_HASH_LEN);
    kd_sha256(buf, sizeof buf, out);
}

/* Every level of the tree: level 0 the 128 leaves, level 7 the root. */
typedef struct {
    uint8_t h[2 * KD_SB_LEAVES][KD_HASH_LEN]; /* heap order: node k has children 2k, 2k+1; root at 1 */
} sb_tree;

static void build(const kd_sb_board *board, sb_tree *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < KD_SB_CELLS; i++)
        kd_sb_leaf(i, board->contents[i], board->salts[i], t->h[KD_SB_LEAVES + i]);
    for (uint32_t k = KD_SB_LEAVES - 1; k >= 1; k--)
        node(t->h[2 * k], t->h[2 * k + 1], t->h[k]);
}

void kd_sb_root(const kd_sb_board *board, uint8_t out[KD_HASH_LEN])
{
    sb_tree t;
    build(board, &t);
    memcpy(out, t.h[1], KD_HASH_LEN);
}

void kd_sb_path(const kd_sb_board *board, uint32_t cell, uint8_t path[KD_SB_DEPTH][KD_HASH_LEN])
{
    sb_tree t;
    build(board, &t);
    uint32_t k = KD_SB_LEAVES + (cell % KD_SB_CELLS);
    for (int level = 0; level < KD_SB_DEPTH; level++, k /= 2)
        memcpy(path[level], t.h[k ^ 1u], KD_HASH_LEN);
}

int kd_sb_path_ok(const uint8_t root[KD_HASH_LEN], uint32_t cell, uint8_t content, const uint8_t salt[KD_SB_SALT_LEN],
                  const uint8_t path[KD_SB_DEPTH][KD_HASH_LEN])
{
    if (cell >= KD_SB_CELLS)
        return 0;
    uint8_t h[KD_HASH_LEN];
    kd_sb_leaf(cell, content, salt, h);
    uint32_t k = KD_SB_LEAVES + cell;
    for (int level = 0; level < KD_SB_DEPTH; level++, k /= 2) {
        if (k & 1u)
            node(path[level], h, h);
        else
            node(h, path[level], h);
    }
    return memcmp(h, root, KD_HASH_LEN) == 0;
}

/* ------------------------------------------------------------ the fleet */

/* Places ship `id` with its first cell at (row, col), horizontal or not,
 * when it fits on the board without overlapping or touching a ship already
 * there: 1, else 0 (contents untouched). */
static int place(uint8_t contents[KD_SB_CELLS], unsigned id, int row, int col, int horizontal)
{
    int len = kd_sb_ship_len[id];
    int dr = horizontal ? 0 : 1, dc = horizontal ? 1 : 0;
    for (int k = 0; k < len; k++) {
        int r = row + k * dr, c = col + k * dc;
        if (r >= KD_SB_SIZE || c >= KD_SB_SIZE)
            return 0;
        for (int nr = r - 1; nr <= r + 1; nr++)
            for (int nc = c - 1; nc <= c + 1; nc++)
                if (nr >= 0 && nr < KD_SB_SIZE && nc >= 0 && nc < KD_SB_SIZE && contents[nr * KD_SB_SIZE + nc])
                    return 0;
    }
    for (int k = 0; k < len; k++)
        contents[(row + k * dr) * KD_SB_SIZE + col + k * dc] = (uint8_t)id;
    return 1;
}

void kd_sb_fleet_from_seed(const uint8_t seed[KD_SECRET_SEED_LEN], uint8_t contents[KD_SB_CELLS])
{
    uint8_t buf[sizeof fleet_domain - 1 + KD_SECRET_SEED_LEN], stream_seed[KD_HASH_LEN];
    memcpy(buf, fleet_domain, sizeof fleet_domain - 1);
    memcpy(buf + sizeof fleet_domain - 1, seed, KD_SECRET_SEED_LEN);
    kd_sha256(buf, sizeof buf, stream_seed);
    kd_fair_stream s;
    kd_fair_stream_init(&s, stream_seed);
    for (;;) {
        memset(contents, 0, KD_SB_CELLS);
        unsigned id = 1;
        for (; id <= KD_SB_SHIPS; id++) {
            /* A ship of length L lies in one of (10 - L + 1) * 10 places
             * per orientation: the orientation by a coin, then the place. */
            int horizontal = (int)kd_fair_below(&s, 2);
            uint32_t span = (uint32_t)(KD_SB_SIZE - kd_sb_ship_len[id] + 1);
            uint32_t at = kd_fair_below(&s, span * KD_SB_SIZE);
            int row = horizontal ? (int)(at / span) : (int)(at % span);
            int col = horizontal ? (int)(at % span) : (int)(at / span);
            if (!place(contents, id, row, col, horizontal))
                break;
        }
        if (id > KD_SB_SHIPS)
            return;
    }
}

void kd_sb_board_from_seed(const uint8_t seed[KD_SECRET_SEED_LEN], kd_sb_board *board)
{
    memset(board, 0, sizeof *board);
    kd_sb_fleet_from_seed(seed, board->contents);
    uint8_t buf[sizeof salt_domain - 1 + KD_SECRET_SEED_LEN + 1];
    memcpy(buf, salt_domain, sizeof salt_domain - 1);
    memcpy(buf + sizeof salt_domain - 1, seed, KD_SECRET_SEED_LEN);
    for (uint32_t i = 0; i < KD_SB_CELLS; i++) {
        buf[sizeof buf - 1] = (uint8_t)i;
        kd_sha256(buf, sizeof buf, board->salts[i]);
    }
}

/* The first and last cells of ship `id` in `contents` and its count. */
static unsigned ship_extent(const uint8_t contents[KD_SB_CELLS], unsigned id, int *r0, int *c0, int *r1, int *c1)
{
    unsigned n = 0;
    *r0 = *c0 = KD_SB_SIZE;
    *r1 = *c1 = -1;
    for (int i = 0; i < KD_SB_CELLS; i++) {
        if (contents[i] != id)
            continue;
        int r = i / KD_SB_SIZE, c = i % KD_SB_SIZE;
        n++;
        *r0 = r < *r0 ? r : *r0;
        *c0 = c < *c0 ? c : *c0;
        *r1 = r > *r1 ? r : *r1;
        *c1 = c > *c1 ? c : *c1;
    }
    return n;
}

int kd_sb_fleet_legal(const uint8_t contents[KD_SB_CELLS], char *why, size_t why_len)
{
    for (int i = 0; i < KD_SB_CELLS; i++)
        if (contents[i] > KD_SB_SHIPS) {
            kd_reject_write(why, why_len, "cell %d holds %u: contents are 0 (empty) or a ship id 1..5", i, contents[i]);
            return 0;
        }
    for (unsigned id = 1; id <= KD_SB_SHIPS; id++) {
        int r0, c0, r1, c1;
        unsigned n = ship_extent(contents, id, &r0, &c0, &r1, &c1);
        int straight = n > 0 && (r0 == r1 || c0 == c1) && (unsigned)((r1 - r0) + (c1 - c0) + 1) == n;
        if (n != kd_sb_ship_len[id] || !straight) {
            kd_reject_write(why, why_len, "ship %u covers %u cells%s: it must be one straight line of %u", id, n,
                            straight ? "" : " not in one straight line", kd_sb_ship_len[id]);
            return 0;
        }
    }
    for (int i = 0; i < KD_SB_CELLS; i++) {
        int r = i / KD_SB_SIZE, c = i % KD_SB_SIZE;
        for (int dr = -1; contents[i] && dr <= 1; dr++)
            for (int dc = -1; dc <= 1; dc++) {
                int nr = r + dr, nc = c + dc;
                if (nr < 0 || nr >= KD_SB_SIZE || nc < 0 || nc >= KD_SB_SIZE)
                    continue;
                uint8_t o = contents[nr * KD_SB_SIZE + nc];
                if (o && o != contents[i]) {
                    kd_reject_write(why, why_len, "ships %u and %u touch", contents[i], o);
                    return 0;
                }
            }
    }
    return 1;
}

int kd_sb_cell_parse(const char *text)
{
    if (!text || text[0] < 'a' || text[0] > 'j')
        return -1;
    int col = text[0] - 'a';
    if (text[1] < '1' || text[1] > '9')
        return -1;
    int row = text[1] - '0';
    if (text[2] == '0' && row == 1 && text[3] == '\0')
        row = 10;
    else if (text[2] != '\0')
        return -1;
    return (row - 1) * KD_SB_SIZE + col;
}

void kd_sb_cell_name(uint32_t cell, char out[4])
{
    cell %= KD_SB_CELLS;
    snprintf(out, 4, "%c%u", 'a' + (int)(cell % KD_SB_SIZE), (unsigned)(cell / KD_SB_SIZE + 1));
}
