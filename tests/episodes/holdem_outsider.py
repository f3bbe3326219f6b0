#!/usr/bin/env python3
"""holdem_outsider.py — an outsider with the whole public log of a hold'em
match tries to learn the hole cards of every hand, as issue 40's verifier
did: it reads `kdapp log --json` alone (its own code, the README's bytes,
no C) and prints, for each hand and seat, the two hole cards it found and
how, or that they stay unknown.

What it tries, for each hole position p (seat 0's are 0 and 1, seat 1's
are 2 and 3): the last lock's point L_p carries both seats' card keys,
L_p = k0_p·k1_p·C. Every key a seat published for p is stripped off; the
key still missing is then sought among everything the log holds:
  - every 32-byte string of every command (keys, proof scalars, a hand
    secret), read as a scalar;
  - the card key k_p derived from each of those strings read as a hand
    secret (protocol 1's `reveal` publishes exactly that:
    k_p = SHA-256("kdapp/holdem/card-key/v1" || hs || p || ctr));
and the point left is compared with the 52 card points and with every
point the log holds (the decks, locks, commitments, proof points). A card
found this way is the card: a wrong key lands on a card point with
probability 52/2^256.

On a protocol 1 log this finds both seats' hole cards of a folded hand
(the hand secrets are published at its end); on a protocol 2 log it finds
the board and the hands shown at a showdown, and nothing of a folded or
mucked hand.

usage: holdem_outsider.py LOG.json EPISODE [HAND...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from holdem_check import (CARD_POINTS, DEALT, N, NAMES, derived_scalar, fields, load, mul, pt_bytes,  # noqa: E402
                          pt_parse, split)

SHUFFLE_PROOF = 6920
CARD_OF = {p: NAMES[i] for i, p in enumerate(CARD_POINTS)}


def public_bytes(body):
    """Every byte string of a command's fields, nested messages included."""
    out = []
    for vals in body.values():
        for v in vals:
            if isinstance(v, bytes):
                out.append(v)
                try:
                    inner = fields(v)
                except Exception:  # not a message: plain bytes
                    inner = None
                if inner:
                    out.extend(public_bytes(inner))
    return out


def outsider(hand, steps, say):
    """What an outsider learns of `hand`'s hole cards: {seat: [card or None, card or None]}."""
    blobs = [b for _, _, body in steps for b in public_bytes(body)]
    # a proof of shuffle is 104 points then 109 scalars (README.md)
    blobs = [x for b in blobs for x in ((b[:3432], b[3432:]) if len(b) == SHUFFLE_PROOF else (b,))]
    strings = {bytes(w) for b in blobs if len(b) % 32 == 0 for w in split(b, 32)}
    known_points = {bytes(w) for b in blobs if len(b) % 33 == 0 for w in split(b, 33)}
    locks = [body for seat, kind, body in steps if kind == "lock" and seat == 1]
    published = [{}, {}]  # seat -> {position: key}
    for seat, kind, body in steps:
        if kind == "keys":
            for i, pos in enumerate(body[1][0]):
                published[seat][pos] = int.from_bytes(body[2][0][32 * i:32 * i + 32], "big")
    found = {0: [None, None], 1: [None, None]}
    tried = 0
    if not locks:
        say("hand %d: no lock was made: no card was dealt" % hand)
        return found
    last = locks[0][1][0]
    candidates = [int.from_bytes(s, "big") for s in strings]
    for owner in (0, 1):
        for j in (0, 1):
            pos = 2 * owner + j
            pt = pt_parse(last[33 * pos:33 * pos + 33])
            keys = [published[s].get(pos) for s in (0, 1)]
            how = None
            if keys[0] and keys[1]:
                card = pt_bytes(mul(pow(keys[0] * keys[1] % N, -1, N), pt))
                how = "both seats' keys published"
            elif keys[0] or keys[1]:
                rest = mul(pow(keys[0] or keys[1], -1, N), pt)
                card = None
                if pt_bytes(rest) in known_points:
                    how = "the point left is a point of the log"  # a link to a known position
                tries = [(k, "a 32-byte string of the log read as a key") for k in candidates if 0 < k < N]
                tries += [(derived_scalar(b"kdapp/holdem/card-key/v1", s, bytes([pos])),
                           "a card key derived from a 32-byte string of the log read as a hand secret")
                          for s in strings]
                for k, why in tries:
                    tried += 1
                    b = pt_bytes(mul(pow(k, -1, N), rest))
                    if b in CARD_OF:
                        card, how = b, why
                        break
            else:
                card = None  # no key of this position published: two keys to find
            name = CARD_OF.get(card)
            found[owner][j] = name
            if name:
                say("hand %d: position %d, seat%d's hole card %s: found (%s)" % (hand, pos, owner, name, how))
    for owner in (0, 1):
        cards = found[owner]
        say("hand %d: seat%d's hole cards %s" % (hand, owner, " ".join(cards) if all(cards) else "unknown"))
    say("hand %d: %d keys tried against the 52 cards, %d points of the log compared" % (hand, tried, len(known_points)))
    return found


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    episode, only = int(argv[2]), {int(h) for h in argv[3:]}
    players, by_hand = load(argv[1], episode)
    for hand, steps in by_hand:
        if not only or hand in only:
            outsider(hand, steps, print)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
