#!/usr/bin/env python3
"""holdem_check.py — checks a hold'em hand from `kdapp log --json` alone, as a
player would, written from the protocol in episodes/holdem/README.md and not
from the C code: the commands of the canonical chain (reverted blocks
dropped), each seat's steps recomputed from the hand secret it published
at the end of the hand, and every card opened.

usage: holdem_check.py LOG.json EPISODE HAND
Prints each step's verdict and the cards; exits 1 when a step fails.
Pure Python: the secp256k1 arithmetic and protobuf reader of chance_check.py.
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from chance_check import G, fields, pt_bytes, pt_mul, pt_parse  # secp256k1, protobuf

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
decompress, compress, mul = pt_parse, pt_bytes, pt_mul


def enc(k, b):
    """k times the point of `b`, compressed; None when `b` is no point."""
    pt = decompress(b)
    return compress(mul(k, pt)) if pt else None


def sha(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


def card_points():
    """Card c: the first ctr whose SHA-256("kdapp/holdem/card/v1" || c || ctr) is an x."""
    pts = []
    for c in range(52):
        for ctr in range(256):
            b = b"\x02" + sha(b"kdapp/holdem/card/v1", bytes([c, ctr]))
            if decompress(b):
                pts.append(b)
                break
    return pts


def scalar(domain, hs, extra=b""):
    for ctr in range(256):
        k = int.from_bytes(sha(domain, hs, extra, bytes([ctr])), "big")
        if 0 < k < N:
            return k
    raise ValueError("no scalar")


def permutation(hs):
    seed = sha(b"kdapp/holdem/perm/v1", hs)
    words, counter = [], [0]

    def word():
        if not words:
            block = sha(seed, counter[0].to_bytes(4, "big"))
            counter[0] += 1
            words.extend(int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4))
        return words.pop(0)

    def below(n):
        limit = 2**32 - (2**32 % n)
        while True:
            w = word()
            if w < limit:
                return w % n

    perm = list(range(52))
    for j in range(51, 0, -1):
        r = below(j + 1)
        perm[j], perm[r] = perm[r], perm[j]
    return perm


def keys_of(hs):
    return {"deck": scalar(b"kdapp/holdem/deck-key/v1", hs), "perm": permutation(hs),
            "cards": [scalar(b"kdapp/holdem/card-key/v1", hs, bytes([i])) for i in range(9)]}


KINDS = {1: "shuffle", 2: "lock", 3: "keys", 4: "fold", 5: "check", 6: "call", 7: "raise", 8: "reveal",
         9: "dispute", 10: "claim"}
NAMES = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def chain(log, episode):
    """The applied commands of `episode` on the canonical chain, in order: (seat, kind, body)."""
    blocks, players = [], None
    for e in log:
        if e["kind"] == "revert" and e["status"] == "applied":
            blocks.pop()
        elif e["kind"] == "accept" and e["status"] == "applied":
            cmds = []
            for tx in e.get("txs", []):
                if tx.get("episode") != episode or not tx.get("applied"):
                    continue
                msg = fields(bytes.fromhex(tx["payload"]))
                if 2 in msg:
                    players = fields(msg[2][0]).get(2, [])
                elif 3 in msg:
                    sc = fields(msg[3][0])
                    body = fields(sc[1][0])
                    (num, raw), = [(k, v[0]) for k, v in body.items()]
                    cmds.append((players.index(sc[2][0]), KINDS[num], fields(raw) if raw else {}))
            blocks.append(cmds)
    return [c for b in blocks for c in b]


def hand_commands(cmds, hand):
    """The commands of hand `hand`: a hand ends when both seats published secrets (or a claim ends it)."""
    current, revealed, out = 1, set(), []
    for seat, kind, body in cmds:
        if current == hand:
            out.append((seat, kind, body))
        if kind == "reveal":
            revealed.add(seat)
            if len(revealed) == 2:
                current, revealed = current + 1, set()
    return out


def main():
    log = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    episode, hand = int(sys.argv[2]), int(sys.argv[3])
    steps = hand_commands(chain(log, episode), hand)
    get = lambda seat, kind: [b for s, k, b in steps if s == seat and k == kind]
    shuffles = [get(s, "shuffle")[0][1][0] for s in (0, 1)]
    locks = [get(s, "lock")[0] for s in (0, 1)]
    secrets = [get(s, "reveal")[0][1][0] for s in (0, 1)]
    opened = [{}, {}]
    for s in (0, 1):
        for body in get(s, "keys"):
            for pos, i in zip(body[1][0], range(len(body[1][0]))):
                opened[s][pos] = int.from_bytes(body[2][0][32 * i:32 * i + 32], "big")
    cards = card_points()
    split = lambda b: [b[i:i + 33] for i in range(0, len(b), 33)]
    ok = True
    deck_in = cards
    for s in (0, 1):
        k = keys_of(secrets[s])
        deck = [enc(k["deck"], deck_in[k["perm"][j]]) for j in range(52)]
        good = deck == split(shuffles[s])
        print("hand %d: seat%d's shuffle %s" % (hand, s, "checks" if good else "FAILS"))
        ok &= good
        lock_in = split(shuffles[1])[:9] if s == 0 else split(locks[0][1][0])
        inv = pow(k["deck"], -1, N)
        locked = [enc(k["cards"][i] * inv % N, lock_in[i]) for i in range(9)]
        commits = [compress(mul(k["cards"][i], G)) for i in range(9)]
        good = locked == split(locks[s][1][0]) and commits == split(locks[s][2][0])
        good &= all(opened[s][p] == k["cards"][p] for p in opened[s])
        print("hand %d: seat%d's lock and keys %s" % (hand, s, "check" if good else "FAIL"))
        ok &= good
        deck_in = split(shuffles[0])
        opened[s] = {p: k["cards"][p] for p in range(9)}  # every key is known now
    final = split(locks[1][1][0])
    names = []
    for pos in range(9):
        pt = enc(pow(opened[0][pos] * opened[1][pos] % N, -1, N), final[pos])
        c = cards.index(pt) if pt in cards else None
        names.append(NAMES[c] if c is not None else "??")
        ok &= c is not None
    ok &= len(set(names)) == 9
    print("hand %d: seat0 held %s %s, seat1 held %s %s; board %s" % (hand, *names[:4], " ".join(names[4:])))
    print("hand %d: %s" % (hand, "every step checks" if ok else "a step FAILS"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
