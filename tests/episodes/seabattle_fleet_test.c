/*
 * seabattle_fleet_test.c — fleets drawn from seeds are uniform over legal
 * fleets: 10^5 placements (fixed seeds: SHA-256 of the index) checked
 * against what every uniform distribution over legal fleets must show, by
 * chi-square at p = 0.001 (critical values by the Wilson–Hilferty
 * approximation):
 *   - each ship lies horizontally with probability exactly 1/2 (the
 *     transpose maps legal fleets one to one onto legal fleets, turning
 *     every ship);
 *   - the centre cell of ship 1 (length 5) and of ships 3 and 4 (length 3)
 *     is distributed symmetrically under the 8 symmetries of the square
 *     (each maps legal fleets one to one onto legal fleets): within each
 *     orbit of cells the counts are equal in expectation;
 *   - ships 3 and 4 (both of length 3) are exchangeable: their centre
 *     counts agree (two-sample chi-square).
 * One sample is one independent placement, so each statistic is a
 * multinomial's. Uniformity itself follows from the construction (each
 * ship's orientation and place uniform, the whole placement redrawn on a
 * conflict: rejection sampling); these checks catch a biased draw.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "episodes/seabattle/seabattle.h"

#define SAMPLES 100000u

static double critical(double df)
{
    const double z = 3.0902; /* p = 0.001, one-sided */
    double a = 2.0 / (9.0 * df);
    return df * pow(1.0 - a + z * sqrt(a), 3.0);
}

/* The image of cell (r, c) under symmetry `k` of the square (0..7). */
static int image(int r, int c, int k)
{
    int n = KD_SB_SIZE - 1;
    int rr = r, cc = c;
    if (k & 4) {
        int t = rr;
        rr = cc;
        cc = t;
    }
    if (k & 1)
        rr = n - rr;
    if (k & 2)
        cc = n - cc;
    return rr * KD_SB_SIZE + cc;
}

/* The chi-square of equal counts within each orbit; *df its degrees. */
static double orbit_chi2(const unsigned counts[KD_SB_CELLS], double *df)
{
    int seen[KD_SB_CELLS] = {0};
    double chi2 = 0;
    *df = 0;
    for (int i = 0; i < KD_SB_CELLS; i++) {
        if (seen[i])
            continue;
        int orbit[8], n = 0;
        for (int k = 0; k < 8; k++) {
            int j = image(i / KD_SB_SIZE, i % KD_SB_SIZE, k), dup = 0;
            for (int m = 0; m < n; m++)
                dup |= orbit[m] == j;
            if (!dup)
                orbit[n++] = j;
        }
        double total = 0;
        for (int m = 0; m < n; m++) {
            seen[orbit[m]] = 1;
            total += counts[orbit[m]];
        }
        if (total == 0)
            continue; /* cells no centre can take */
        for (int m = 0; m < n; m++) {
            double e = total / n, d = counts[orbit[m]] - e;
            chi2 += d * d / e;
        }
        *df += n - 1;
    }
    return chi2;
}

/* The centre cell of ship `id` (odd length) and whether it is horizontal. */
static int centre(const uint8_t f[KD_SB_CELLS], unsigned id, int *horizontal)
{
    int first = -1, last = -1;
    for (int i = 0; i < KD_SB_CELLS; i++)
        if (f[i] == id) {
            if (first < 0)
                first = i;
            last = i;
        }
    *horizontal = last - first == kd_sb_ship_len[id] - 1;
    return (first + last) / 2;
}

Test(seabattle_fleet, placements_are_uniform_over_legal_fleets, .timeout = 60)
{
    static unsigned centres[KD_SB_SHIPS + 1][KD_SB_CELLS];
    unsigned horizontal[KD_SB_SHIPS + 1] = {0};
    memset(centres, 0, sizeof centres);
    for (uint32_t n = 0; n < SAMPLES; n++) {
        uint8_t idx[4], seed[KD_SECRET_SEED_LEN], f[KD_SB_CELLS];
        kd_put_u32be(idx, n);
        kd_sha256(idx, sizeof idx, seed);
        kd_sb_fleet_from_seed(seed, f);
        for (unsigned id = 1; id <= KD_SB_SHIPS; id++) {
            int h;
            int c = centre(f, id, &h);
            horizontal[id] += (unsigned)h;
            centres[id][c]++;
        }
        if (n < 1000)
            cr_assert(kd_sb_fleet_legal(f, NULL, 0));
    }
    for (unsigned id = 1; id <= KD_SB_SHIPS; id++) {
        double e = SAMPLES / 2.0, d = horizontal[id] - e, chi2 = 2 * d * d / e;
        cr_expect_lt(chi2, critical(1), "ship %u horizontal %u of %u: chi2 %.2f", id, horizontal[id], SAMPLES, chi2);
    }
    static const unsigned odd[] = {1, 3, 4};
    for (size_t k = 0; k < 3; k++) {
        double df, chi2 = orbit_chi2(centres[odd[k]], &df);
        cr_expect_lt(chi2, critical(df), "ship %u centres: chi2 %.1f on %.0f degrees (critical %.1f)", odd[k], chi2, df,
                     critical(df));
        cr_log_info("ship %u centres: chi2 %.1f on %.0f degrees (critical %.1f)", odd[k], chi2, df, critical(df));
    }
    double chi2 = 0, df = -1;
    for (int i = 0; i < KD_SB_CELLS; i++) {
        double a = centres[3][i], b = centres[4][i];
        if (a + b == 0)
            continue;
        chi2 += (a - b) * (a - b) / (a + b);
        df++;
    }
    cr_expect_lt(chi2, critical(df), "ships 3 and 4 differ: chi2 %.1f on %.0f degrees", chi2, df);
    cr_log_info("ships 3 and 4: chi2 %.1f on %.0f degrees (critical %.1f)", chi2, df, critical(df));
}
