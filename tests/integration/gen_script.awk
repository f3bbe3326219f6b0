# gen_script.awk — a long, seeded block script for the kill harness.
#
#   awk -v seed=S -v blocks=N -v episodes=E -f gen_script.awk > script.jsonl
#
# Stress-mode tic-tac-toe episodes with caps 1..4, where no game can end
# (a win needs three marks of one player on the board, and a cap of 4 or
# less keeps at most two of each), so the generator knows every move's
# legality from the cells on the board: the last `cap` moves. Each move
# carries an explicit signing "counter" (the episode's applied moves), so the
# script means the same thing however often a block is re-delivered (see the
# note on `kdapp feed --connect` in kill_harness.sh). Blocks also carry
# rejected txs (unsigned moves, out-of-bounds moves, garbage payloads) and
# the chain reverts its tip now and then, sometimes several blocks deep.
function rnd(n) { return int(rand() * n) }
function quote(s) { return "\"" s "\"" }
BEGIN {
  srand(seed)
  nb = 0          # applied blocks on the stack
  hashes = 0
  for (e = 1; e <= episodes; e++) { exists[e] = 0; n[e] = 0 }
  printf "# kill harness script: seed %d, %d blocks, %d episodes\n", seed, blocks, episodes
  for (b = 0; b < blocks; b++) {
    # revert the tip (1..3 deep) now and then
    if (nb > 0 && rand() < 0.07) {
      depth = 1 + rnd(3)
      for (r = 0; r < depth && nb > 0; r++) {
        printf "{\"revert\": %s}\n", quote(stack_hash[nb])
        for (k = stack_n[nb]; k >= 1; k--) {
          e = stack_ep[nb, k]
          if (stack_kind[nb, k] == "new") exists[e] = 0
          else n[e]--
        }
        nb--
      }
    }
    hash = "k" seed "-" (++hashes)
    ntx = 1 + rnd(4)
    line = ""
    nb++
    stack_hash[nb] = hash
    stack_n[nb] = 0
    for (t = 0; t < ntx; t++) {
      e = 1 + rnd(episodes)
      tx = ""
      if (!exists[e]) {
        cap[e] = 1 + rnd(4)
        tx = sprintf("{\"new_episode\": {\"id\": %d, \"type\": \"tictactoe\", \"participants\": [\"test:x%d\", \"test:o%d\"], \"cap\": %d}}", e, e, e, cap[e])
        exists[e] = 1
        n[e] = 0
        stack_ep[nb, ++stack_n[nb]] = e
        stack_kind[nb, stack_n[nb]] = "new"
      } else {
        u = rand()
        player = n[e] % 2
        pname = player ? "O" : "X"
        signer = player ? "test:o" e : "test:x" e
        if (u < 0.05) {          # unsigned: unauthorised
          tx = sprintf("{\"move\": {\"episode\": %d, \"row\": 1, \"col\": 1, \"player\": \"%s\"}}", e, pname)
        } else if (u < 0.09) {   # out of bounds
          tx = sprintf("{\"move\": {\"episode\": %d, \"row\": 3, \"col\": 0, \"player\": \"%s\", \"signer\": \"%s\", \"counter\": %d}}", e, pname, signer, n[e])
        } else if (u < 0.11) {   # not an EpisodeMessage
          tx = "{\"payload_hex\": \"ffff00\"}"
        } else {                 # a legal move: a cell not among the last cap moves
          delete busy
          lo = n[e] - cap[e]; if (lo < 0) lo = 0
          for (k = lo; k < n[e]; k++) busy[cell[e, k]] = 1
          nfree = 0
          for (c = 0; c < 9; c++) if (!(c in busy)) free_[nfree++] = c
          c = free_[rnd(nfree)]
          tx = sprintf("{\"move\": {\"episode\": %d, \"row\": %d, \"col\": %d, \"player\": \"%s\", \"signer\": \"%s\", \"counter\": %d}}", e, int(c / 3), c % 3, pname, signer, n[e])
          cell[e, n[e]] = c
          n[e]++
          stack_ep[nb, ++stack_n[nb]] = e
          stack_kind[nb, stack_n[nb]] = "move"
        }
      }
      line = line (t ? ", " : "") tx
    }
    printf "{\"accept\": {\"hash\": %s, \"txs\": [%s]}}\n", quote(hash), line
  }
}
