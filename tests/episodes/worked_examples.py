#!/usr/bin/env python3
"""worked_examples.py — every "by hand" example of the docs recomputed
by hand-written code (chance_check.py's VRF and stream, Python's hashlib),
not by the engine: the dice roll (episodes/fair-chance.md), the roulette
spin, the slot machine's spin, the blackjack card and the sea-battle
opening (each in episodes/<type>/README.md). Each figure a page states is
checked to be in that page as written, so the text and the arithmetic
cannot drift.

  worked_examples.py SOURCE_DIR
"""
import os
import hashlib
import struct
import sys

import chance_check as cc

E = bytes([0x11] * 32)


def words(output, n):
    block = hashlib.sha256(output + struct.pack(">I", 0)).digest()
    return [struct.unpack(">I", block[4 * i:4 * i + 4])[0] for i in range(n)]


def bound(n):
    return (1 << 32) - (1 << 32) % n


def draw(type_name, ask, seat=1):
    """The house's key and the output of draw 1 of episode 1 for the ask
    `ask` (command JSON): its bytes, their SHA-256, the input, the proof."""
    x, key, _ = cc.house("house", type_name, 1, seat)
    raw = cc.ask_bytes(type_name, ask)
    digest = hashlib.sha256(raw).digest()
    proof = cc.vrf_prove(x, cc.alpha(1, 1, digest))
    output = cc.vrf_verify(key, cc.alpha(1, 1, digest), proof)
    assert output is not None
    return key, output, raw, digest


def main():
    root = sys.argv[1]
    page = None

    def read(path):
        nonlocal page
        page = (path, open(os.path.join(root, path), encoding="utf-8").read())

    def stated(*texts):
        for t in texts:
            assert t in page[1], "%s does not state %r" % (page[0], t)

    read("episodes/fair-chance.md")
    # dice: 3d6+2 with entropy 0011..eeff twice
    ent = "00112233445566778899aabbccddeeff" * 2
    key, out, raw, digest = draw("dice", {"roll": "3d6+2", "entropy": ent})
    w = words(out, 3)
    faces = [x % 6 + 1 for x in w]
    assert all(x < bound(6) for x in w) and faces == [6, 2, 2]
    assert raw.hex() == "0a280803100618042220" + ent
    stated(key.hex(), out.hex(), digest.hex(), " ".join("%08x" % x for x in w), "6 2 2", str(bound(6)),
           "ROLL=0a280803100618042220$E", "[6 2 2] = 12")
    print("dice: %s -> %s = %d" % (["%08x" % x for x in w], faces, sum(faces) + 2))

    read("episodes/roulette/README.md")
    # roulette: a red bet of 10; the pocket from one word
    key, out, raw, digest = draw("roulette", {"bets": [{"kind": "red", "amount": 10}], "entropy": E.hex()})
    w = words(out, 1)[0]
    assert w < bound(38) and w % 38 == 16 and 16 in cc.RED
    stated(key.hex()[:8], key.hex()[-6:], out.hex()[:8], out.hex()[-6:], "0x%08x" % w, "(%d)" % bound(38),
           "mod 38\n= 16", raw.hex()[:20], digest.hex()[:8], digest.hex()[-6:])
    print("roulette: 0x%08x mod 38 = %d" % (w, w % 38))

    read("episodes/slots/README.md")
    # slots: a spin of 10; three stops from one stream, the payline
    key, out, raw, digest = draw("slots", {"spin": 10, "entropy": E.hex()})
    w = words(out, 3)
    stops = [x % 20 for x in w]
    assert all(x < bound(20) for x in w) and stops == [10, 16, 1] and cc.multiplier(stops) == 0
    assert [cc.STRIP[s] for s in stops] == ["plum", "orange", "lemon"]
    stated(key.hex()[:8], out.hex()[:8], out.hex()[-6:], *("0x%08x" % x for x in w), "(%d)" % bound(20),
           "stops\n10, 16 and 1", raw.hex()[:12], digest.hex()[:8], digest.hex()[-6:])
    print("slots: stops %s, %s, multiplier 0" % (stops, [cc.STRIP[s] for s in stops]))

    read("episodes/blackjack/README.md")
    # blackjack: a bet of 10, two decks, the 99th card of a full shoe
    key, out, raw, digest = draw("blackjack", {"action": "bet", "amount": 10, "entropy": E.hex()}, seat=0)
    w = words(out, 1)[0]
    k = w % 104
    assert w < bound(104) and k == 99 and k // 2 == 49 and cc.bj_text(49) == "JS"
    stated(out.hex()[:8], out.hex()[-4:], "0x%08x" % w, "(%d)" % bound(104), "mod 104 = 99", "`JS`",
           raw.hex()[:12], digest.hex()[:8], digest.hex()[-6:])
    print("blackjack: 0x%08x mod 104 = %d: card %d, %s" % (w, k, k // 2, cc.bj_text(k // 2)))
    read("episodes/seabattle/README.md")
    # sea battle: one opening, leaf and path to the root
    fleet = [0] * 100
    for ship, cells in ((1, (0, 10, 20, 30, 40)), (2, (5, 6, 7, 8)), (3, (27, 37, 47)), (4, (72, 73, 74)),
                        (5, (98, 99))):
        for c in cells:
            fleet[c] = ship
    assert cc.sb_legal(fleet)
    salts = b"".join(hashlib.sha256(b"kdapp/example/salt" + bytes([i])).digest() for i in range(100))
    level = [cc.sb_leaf(i, fleet[i], salts[32 * i:32 * i + 32]) for i in range(100)] + [bytes(32)] * 28
    leaf, path, i = level[0], [], 0
    while len(level) > 1:
        path.append(level[i ^ 1])
        level, i = [hashlib.sha256(b"\x01" + level[k] + level[k + 1]).digest() for k in range(0, len(level), 2)], i // 2
    root = level[0]
    assert cc.sb_path_root(0, 1, salts[:32], path) == root == cc.sb_root(fleet, salts)
    assert cc.sb_path_root(0, 0, salts[:32], path) != root, "another content opens to another root"
    rows = ["".join("." if fleet[r * 10 + c] == 0 else str(fleet[r * 10 + c]) for c in range(10)) for r in range(10)]
    stated(salts[:32].hex(), leaf.hex(), root.hex(), *(p.hex() for p in path), *rows)
    print("sea battle: a1 opens to root %s" % root.hex()[:16])
    print("ok: the five worked examples of the docs recomputed")


if __name__ == "__main__":
    main()
