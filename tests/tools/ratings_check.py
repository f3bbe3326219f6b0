#!/usr/bin/env python3
"""ratings_check.py — `kdapp ratings` against the real engine and LMDB store,
and against an outsider that recomputes every rating from `kdapp log --json`.

The outsider below is written from episodes/README.md "Ratings" (FIDE's
table 8.1(b), the 400-point rule, K = 20, hundredths, games in log order of
their last canonical transaction, house games, games of other than two seats
and self-play unrated), not from our C. It reads only `kdapp log --json`:
each canonical transaction's "result" (players, each seat's result, house
seats).

Checked:
  - a win moves +10.00 / -10.00 between equals, a draw between equals
    nothing, a game against oneself nothing;
  - a reorg that undoes the block finishing a game gives back the ratings of
    before it exactly, and re-applying it gives the same ratings again;
  - 60 random games among four keys in two types, interleaved, with reorgs
    of random depth along the way: after each step the outsider agrees with
    `kdapp ratings --json` key for key (rating in hundredths, games, wins,
    draws, losses), and a store rebuilt by `kdapp replay` gives the same.

usage: ratings_check.py KDAPP WORKDIR  (fixed seed; RATINGS_SEED overrides)
"""
import json
import os
import random
import subprocess
import sys

KDAPP, WORK = sys.argv[1], sys.argv[2]
DATA = os.path.join(WORK, "data")
SEED = int(os.environ.get("RATINGS_SEED", "20261128"))
print(f"seed {SEED} (RATINGS_SEED overrides)")

# ------------------------------------------------------------ the outsider

# FIDE Handbook B.02, table 8.1(b): rating difference -> expected score of the
# higher rated player, up to the 400-point rule.
FIDE = [(0, 3, 50), (4, 10, 51), (11, 17, 52), (18, 25, 53), (26, 32, 54), (33, 39, 55), (40, 46, 56),
        (47, 53, 57), (54, 61, 58), (62, 68, 59), (69, 76, 60), (77, 83, 61), (84, 91, 62), (92, 98, 63),
        (99, 106, 64), (107, 113, 65), (114, 121, 66), (122, 129, 67), (130, 137, 68), (138, 145, 69),
        (146, 153, 70), (154, 162, 71), (163, 170, 72), (171, 179, 73), (180, 188, 74), (189, 197, 75),
        (198, 206, 76), (207, 215, 77), (216, 225, 78), (226, 235, 79), (236, 245, 80), (246, 256, 81),
        (257, 267, 82), (268, 278, 83), (279, 290, 84), (291, 302, 85), (303, 315, 86), (316, 328, 87),
        (329, 344, 88), (345, 357, 89), (358, 374, 90), (375, 391, 91), (392, 411, 92)]
SCORE = {"win": 100, "draw": 50, "loss": 0, "cheat": 0, "forfeit": 0}


def expected(mine, theirs):
    """Expected score in hundredths of a player rated `mine` hundredths."""
    d = min(abs(mine - theirs) // 100, 400)
    p = next(p for lo, hi, p in FIDE if lo <= d <= hi)
    return p if mine >= theirs else 100 - p


def outsider():
    log = subprocess.run([KDAPP, "log", "--data", DATA, "--json"], check=True, capture_output=True, text=True)
    ratings = {}
    for line in log.stdout.splitlines():
        entry = json.loads(line)
        for tx in entry.get("txs", []):
            res = tx.get("result")
            if not tx.get("canonical") or not res:
                continue
            players, results = res["players"], res["results"]
            if res["house"] or len(players) != 2 or players[0] == players[1]:
                continue
            keys = [(res["type"], k) for k in players]
            for k in keys:
                ratings.setdefault(k, [150000, 0, 0, 0, 0])
            ra, rb = ratings[keys[0]][0], ratings[keys[1]][0]
            for k, own, other, r in ((keys[0], ra, rb, results[0]), (keys[1], rb, ra, results[1])):
                e = ratings[k]
                e[0] += 20 * (SCORE[r] - expected(own, other))
                e[1] += 1
                e[2 + {100: 0, 50: 1, 0: 2}[SCORE[r]]] += 1
    return {k: tuple(v) for k, v in ratings.items()}


# ---------------------------------------------------------------- ours

def ours(data=DATA):
    out = subprocess.run([KDAPP, "ratings", "--data", data, "--json"], check=True, capture_output=True, text=True)
    j = json.loads(out.stdout)
    return {(r["type"], r["key"]): (r["rating_x100"], r["games"], r["wins"], r["draws"], r["losses"])
            for r in j["ratings"]}


def agree(what):
    a, b = outsider(), ours()
    if a != b:
        sys.exit(f"FAIL {what}: the outsider computes {a}\n  kdapp ratings says {b}")


step = [0]


def feed(lines):
    step[0] += 1
    path = os.path.join(WORK, f"step{step[0]}.jsonl")
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    r = subprocess.run([KDAPP, "feed", "--data", DATA, path], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"FAIL feed {path}: {r.stderr}")



# ------------------------------------------------------------ the games

TTT = {"x": [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)],                 # X wins on row 0
       "o": [(0, 0), (1, 0), (0, 1), (1, 1), (2, 2), (1, 2)],         # O wins on row 1
       "d": [(0, 0), (1, 1), (2, 2), (0, 2), (2, 0), (1, 0), (1, 2), (2, 1), (0, 1)]}  # a draw
FIAR = {"x": [0, 1, 0, 1, 0, 1, 0], "o": [0, 1, 0, 1, 0, 1, 2, 1], "d": None}  # red / yellow four in a column

daa = [0]
blocks = []  # hashes of the accepted blocks still applied, oldest first
n_hash = [0]


def accept(txs):
    n_hash[0] += 1
    daa[0] += 1
    h = f"blk{n_hash[0]}"
    blocks.append(h)
    return {"accept": {"hash": h, "daa": daa[0], "txs": txs}}


def moves_of(eid, gtype, players, outcome):
    """The transactions of one game, in order."""
    out = []
    if gtype == "tictactoe":
        for i, (r, c) in enumerate(TTT[outcome]):
            out.append({"move": {"episode": eid, "row": r, "col": c, "player": "XO"[i % 2],
                                 "signer": f"test:{players[i % 2]}"}})
    else:
        for i, col in enumerate(FIAR[outcome]):
            out.append({"command": {"episode": eid, "episode_type": "fourinarow", "signer": f"test:{players[i % 2]}",
                                    "command": {"column": col}}})
    return out


# 1. known values: equals, a win, a draw, self-play; a reorg of the finish
feed([accept([{"new_episode": {"id": 1, "type": "tictactoe", "participants": ["test:alice", "test:bob"]}},
              {"new_episode": {"id": 2, "type": "tictactoe", "participants": ["test:carol", "test:carol"]}}])])
ttt1 = moves_of(1, "tictactoe", ["alice", "bob"], "x")
feed([accept([t]) for t in ttt1[:-1]] + [accept([t]) for t in moves_of(2, "tictactoe", ["carol", "carol"], "x")])
self_play = ours()
if self_play:
    sys.exit(f"FAIL: a game against oneself was rated: {self_play}")
before = ours()
feed([accept([ttt1[-1]])])
after = ours()
vals = sorted(v[0] for v in after.values())
if vals != [149000, 151000] or len(after) != 2:
    sys.exit(f"FAIL: a win between equals should give 1510.00 and 1490.00: {after}")
agree("after one win")
feed([{"revert": blocks.pop()}])
if ours() != before:
    sys.exit(f"FAIL: the reorg that undid the winning move left {ours()}, not {before}")
agree("after the reorg")
feed([accept([ttt1[-1]])])
if ours() != after:
    sys.exit(f"FAIL: re-applying the winning move gave {ours()}, not {after}")
print("a win moves 10.00 each way; a reorg of the finish undoes it, re-applying redoes it; self-play is unrated")

# a draw between the two (now 1510 / 1490: diff 20, P = 53): alice 50-53 -> -0.60, bob +0.60
feed([accept([{"new_episode": {"id": 3, "type": "tictactoe", "participants": ["test:alice", "test:bob"]}}])] +
     [accept([t]) for t in moves_of(3, "tictactoe", ["alice", "bob"], "d")])
r = sorted(v[0] for v in ours().values())
if r != [149060, 150940]:
    sys.exit(f"FAIL: a draw at 1510.00 - 1490.00 should give 1509.40 and 1490.60: {ours()}")
agree("after a draw")
print("a draw between 1510 and 1490 gives 1509.40 and 1490.60")

# 2. random games, interleaved, with reorgs along the way
rng = random.Random(SEED)
names = ["alice", "bob", "carol", "dave"]
live = []  # [eid, remaining txs]
next_id = 10
for rnd in range(30):
    txs = []
    for _ in range(2):  # start two games a round
        gtype = rng.choice(["tictactoe", "fourinarow"])
        a, b = rng.sample(names, 2)
        outcome = rng.choice(["x", "o", "d"] if gtype == "tictactoe" else ["x", "o"])
        txs.append({"new_episode": {"id": next_id, "type": gtype, "participants": [f"test:{a}", f"test:{b}"]}})
        live.append([next_id, moves_of(next_id, gtype, [a, b], outcome)])
        next_id += 1
    lines = [accept(txs)]
    for _ in range(rng.randint(3, 8)):  # blocks of a move of some live games each
        block = []
        for g in rng.sample(live, min(len(live), rng.randint(1, 3))):
            if g[1]:
                block.append(g[1].pop(0))
        lines.append(accept(block))
    live = [g for g in live if g[1]]
    feed(lines)
    if rnd % 5 == 4:  # a reorg: the newest blocks go; their games' moves come back in new blocks
        depth = rng.randint(1, 4)
        # the reverted blocks' moves are lost from these games: rebuild them
        # by re-sending the same blocks' contents after the revert
        with open(os.path.join(WORK, f"step{step[0]}.jsonl")) as f:
            fed = [json.loads(x) for x in f]
        gone = [x["accept"] for x in fed if "accept" in x][-depth:]
        undo = []
        for _ in gone:
            undo.append({"revert": blocks.pop()})
        feed(undo)
        agree(f"round {rnd}: after a reorg of depth {depth}")
        feed([accept(x["txs"]) for x in gone])
    agree(f"round {rnd}")
# finish every game still going
while live:
    lines = []
    for g in live:
        lines.append(accept([g[1].pop(0)]))
    live = [g for g in live if g[1]]
    feed(lines)
agree("at the end")
final = ours()
games = sum(v[1] for v in final.values()) // 2
print(f"{games} rated games among {len(final)} (type, key) pairs: the outsider agrees at every step")

rebuilt = os.path.join(WORK, "rebuilt")
subprocess.run([KDAPP, "replay", "--data", DATA, "--into", rebuilt], check=True, capture_output=True)
if ours(rebuilt) != final:
    sys.exit("FAIL: the store rebuilt by kdapp replay rates differently")
print("a store rebuilt from the log rates the same")
print("ok")
