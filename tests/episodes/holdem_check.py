#!/usr/bin/env python3
"""holdem_check.py — checks hold'em hands from `kdapp log --json` alone, as a
player would, written from the protocol and the proofs' bytes in
episodes/holdem/README.md and not from the C code: the commands of the
canonical chain (reverted blocks dropped), every shuffle's proof of shuffle,
every lock's Chaum–Pedersen proofs, every key against its commitment, and
the cards the game showed (the board, the hands shown at a showdown): a
folded or mucked hand stays unknown here too.

usage:
  holdem_check.py LOG.json EPISODE [HAND]
      every hand of the episode (or only HAND); prints each step's verdict
      and the cards shown; exits 1 when a step fails.
  holdem_check.py dleq LOG.json EPISODE HAND SEAT POSITION
      one lock proof of a log worked through: every hash input and
      intermediate value of the check of SEAT's proof for POSITION.
  holdem_check.py example
      README.md's "One proof by hand": a lock made and proved here from a
      fixed hand secret, its proof for position 0 checked step by step
      (tests/episodes/holdem_proof_test.c makes the same proof in C).

Pure Python: its own secp256k1 arithmetic (Jacobian coordinates, a
multi-scalar product) beside chance_check.py's affine points and protobuf
reader.
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from chance_check import G, P, fields, pt_bytes, pt_parse  # the curve's constants, points, protobuf

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141  # the group order
CARDS, DEALT = 52, 9
NAMES = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def sha(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


# ------------------------------------------------- points, Jacobian (X, Y, Z)

def jac(a):
    return None if a is None else (a[0], a[1], 1)


def affine(j):
    if j is None:
        return None
    zi = pow(j[2], -1, P)
    zi2 = zi * zi % P
    return (j[0] * zi2 % P, j[1] * zi2 * zi % P)


def jdouble(j):
    if j is None or j[1] == 0:
        return None
    x, y, z = j
    s = 4 * x * y * y % P
    m = 3 * x * x % P
    x2 = (m * m - 2 * s) % P
    return (x2, (m * (s - x2) - 8 * pow(y, 4, P)) % P, 2 * y * z % P)


def jadd(a, b):
    if a is None:
        return b
    if b is None:
        return a
    z1z1, z2z2 = a[2] * a[2] % P, b[2] * b[2] % P
    u1, u2 = a[0] * z2z2 % P, b[0] * z1z1 % P
    s1, s2 = a[1] * b[2] * z2z2 % P, b[1] * a[2] * z1z1 % P
    if u1 == u2:
        return jdouble(a) if s1 == s2 else None
    h, r = (u2 - u1) % P, (s2 - s1) % P
    h2 = h * h % P
    h3 = h * h2 % P
    x = (r * r - h3 - 2 * u1 * h2) % P
    return (x, (r * (u1 * h2 - x) - s1 * h3) % P, h * a[2] * b[2] % P)


def msm(terms):
    """sum k·A over (k, A affine) terms, 4-bit windows with shared
    doublings; the affine result, None at infinity."""
    tables = []
    for k, a in terms:
        row, t = [None], jac(a)
        for _ in range(15):
            row.append(jadd(row[-1], t))
        tables.append((k % N, row))
    acc = None
    for w in range(63, -1, -1):
        for _ in range(4):
            acc = jdouble(acc)
        for k, row in tables:
            d = (k >> (4 * w)) & 15
            if d:
                acc = jadd(acc, row[d])
    return affine(acc)


def mul(k, a):
    return msm([(k, a)])


def gen_point(domain, *index):
    """02 || SHA-256(domain || index bytes || ctr) for the first ctr that is a point."""
    for ctr in range(256):
        b = b"\x02" + sha(domain, bytes(index), bytes([ctr]))
        if pt_parse(b):
            return b
    raise ValueError("no point")


def scalar_of(d, label, index):
    """The first SHA-256(d || label || index || ctr) in [1, n - 1]."""
    for ctr in range(256):
        k = int.from_bytes(sha(d, bytes([ord(label), index, ctr])), "big")
        if 0 < k < N:
            return k
    raise ValueError("no scalar")


CARD_POINTS = [gen_point(b"kdapp/holdem/card/v1", c) for c in range(CARDS)]
GENERATORS = [gen_point(b"kdapp/holdem/gen/v1", g) for g in range(CARDS + 2)]
Q, PJ, F = pt_parse(GENERATORS[0]), [pt_parse(g) for g in GENERATORS[1:CARDS + 1]], pt_parse(GENERATORS[-1])


def split(b, n):
    return [b[i:i + n] for i in range(0, len(b), n)]


def scalars(b):
    """The 32-byte big-endian scalars of b, or None when one is not in [1, n - 1]."""
    ks = [int.from_bytes(x, "big") for x in split(b, 32)]
    return ks if all(0 < k < N for k in ks) else None


def points(b):
    pts = [pt_parse(x) for x in split(b, 33)]
    return pts if all(pts) else None


def bind_bytes(episode, hand, seat, pubkey):
    return episode.to_bytes(4, "big") + hand.to_bytes(4, "big") + bytes([seat]) + pubkey


# ------------------------------------------------------- the proof of shuffle

def verify_shuffle(bind, x_bytes, y_bytes, h_bytes, proof):
    """The proof that Y is X permuted and raised by log_G H (README.md, "The
    proof of shuffle"): True or False."""
    if len(proof) != 6920:
        return False
    u_bytes, b_bytes = proof[:1716], proof[1716:3432]
    ks = scalars(proof[3432:])
    X, Y, U, B, H = points(x_bytes), points(y_bytes), points(u_bytes), points(b_bytes), pt_parse(h_bytes)
    if ks is None or None in (X, Y, U, B, H):
        return False
    c, kbar, kr, kbeta, kx = ks[:5]
    kp, kh = ks[5:5 + CARDS], ks[5 + CARDS:]
    rho = sha(b"kdapp/holdem/shuffle/v1", bind, x_bytes, y_bytes, h_bytes, u_bytes)
    e = [scalar_of(rho, "e", i) for i in range(CARDS)]
    A = msm(list(zip(e, U)))
    Z = msm(list(zip(e, X)))
    prod = 1
    for ei in e:
        prod = prod * ei % N
    C = msm([(1, u) for u in U] + [(N - 1, p) for p in PJ])
    Bs = [F] + B
    T = [msm([(kbar, Q)] + list(zip(kp, PJ)) + [(N - c, A)]),
         msm([(kr, Q), (N - c, C)])]
    TH = [msm([(kh[j], G), (kp[j], Bs[j]), (N - c, Bs[j + 1])]) for j in range(CARDS)]
    T += [msm([(kbeta, G), (N - c, Bs[CARDS]), (c * prod, F)]),
          msm(list(zip(kp, Y)) + [(N - kx, Z)]),
          msm([(kx, G), (N - c, H)])]
    if None in T or None in TH:
        return False
    sigma = sha(rho, b_bytes, pt_bytes(T[0]), pt_bytes(T[1]), b"".join(pt_bytes(t) for t in TH),
                pt_bytes(T[2]), pt_bytes(T[3]), pt_bytes(T[4]))
    return scalar_of(sigma, "c", 0) == c


# ------------------------------------------------------------ the lock's proofs

def lock_digest(bind, key, ins, outs, commits):
    return sha(b"kdapp/holdem/lock/v1", bind, key, ins, outs, commits)


def dleq_parts(bind, key, ins, outs, commits, proofs, i):
    """The check of position i's proof, step by step: (lambda, e, s, R1, R2,
    the challenge recomputed); R1, R2 None when malformed."""
    lam = lock_digest(bind, key, ins, outs, commits)
    es = scalars(proofs[64 * i:64 * i + 64])
    H, In, L, K = pt_parse(key), pt_parse(ins[33 * i:33 * i + 33]), pt_parse(outs[33 * i:33 * i + 33]), \
        pt_parse(commits[33 * i:33 * i + 33])
    if es is None or None in (H, In, L, K):
        return lam, None, None, None, None, None
    e, s = es
    r1, r2 = msm([(s, H), (N - e, K)]), msm([(s, In), (N - e, L)])
    if r1 is None or r2 is None:
        return lam, e, s, None, None, None
    return lam, e, s, r1, r2, scalar_of(sha(lam, bytes([i]), pt_bytes(r1), pt_bytes(r2)), "c", 0)


def verify_lock(bind, key, ins, outs, commits, proofs):
    """The first position whose proof fails, or -1."""
    if len(proofs) != 64 * DEALT:
        return 0
    for i in range(DEALT):
        e, check = dleq_parts(bind, key, ins, outs, commits, proofs, i)[1::4]
        if check is None or check != e:
            return i
    return -1


# ------------------------------------------------------------------- the log

KINDS = {1: "shuffle", 2: "lock", 3: "keys", 4: "fold", 5: "check", 6: "call", 7: "raise", 8: "reveal",
         9: "dispute", 10: "claim", 11: "muck"}


def chain(log, episode):
    """The participants of `episode` and its applied commands on the
    canonical chain, in order: (seat, kind, body)."""
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
    return players, [c for b in blocks for c in b]


def hands(cmds):
    """The commands by hand: [(hand number, steps)]. A hand begins with seat
    0's shuffle (its first step, made once a hand) and ends by a fold, a
    muck, the showdown or a claim: every claim the rules take ends its hand
    (a seat late to bet is folded, one late with a step loses the hand), so
    a claim made before any shuffle ends a hand without steps."""
    out, hand, fresh = [], 1, True
    for seat, kind, body in cmds:
        if seat == 0 and kind == "shuffle":
            if not fresh:
                hand += 1
            fresh = False
            out.append((hand, []))
        if out and out[-1][0] == hand:
            out[-1][1].append((seat, kind, body))
        if kind == "claim":
            hand, fresh = hand + 1, True
    return out


def check_hand(episode, players, hand, steps, say):
    ok = True
    decks, locks, keys_of, key_points = {}, {}, [{}, {}], {}
    for seat, kind, body in steps:
        bind = bind_bytes(episode, hand, seat, players[seat])
        if kind == "shuffle":
            deck, key, proof = body[1][0], body.get(2, [b""])[0], body.get(3, [b""])[0]
            good = verify_shuffle(bind, b"".join(CARD_POINTS) if seat == 0 else decks[0], deck, key, proof)
            decks[seat], key_points[seat] = deck, key
            say("hand %d: seat%d's proof of shuffle %s" % (hand, seat, "checks" if good else "FAILS"))
        elif kind == "lock":
            cards, commits, proofs = body[1][0], body[2][0], body.get(3, [b""])[0]
            ins = decks[1][:33 * DEALT] if seat == 0 else locks[0][0]
            bad = verify_lock(bind, key_points[seat], ins, cards, commits, proofs)
            locks[seat] = (cards, commits)
            good = bad < 0
            say("hand %d: seat%d's lock proofs %s" % (hand, seat, "check" if good else "FAIL at position %d" % bad))
        elif kind == "keys":
            good = True
            for i, pos in enumerate(body[1][0]):
                k = int.from_bytes(body[2][0][32 * i:32 * i + 32], "big")
                good &= 0 < k < N and pt_bytes(mul(k, G)) == locks[seat][1][33 * pos:33 * pos + 33]
                keys_of[seat][pos] = k
            say("hand %d: seat%d's keys for positions %s %s" % (hand, seat, list(body[1][0]),
                                                            "match its commitments" if good else "FAIL"))
        elif kind in ("reveal", "dispute"):
            good = False
            say("hand %d: seat%d published a protocol 1 step (%s)" % (hand, seat, kind))
        else:
            continue
        ok &= good
    # the cards both seats' keys open: the board and the hands shown
    opened = {}
    for pos in range(DEALT):
        if pos in keys_of[0] and pos in keys_of[1] and 1 in locks:
            pt = mul(pow(keys_of[0][pos] * keys_of[1][pos] % N, -1, N), pt_parse(locks[1][0][33 * pos:33 * pos + 33]))
            b = pt_bytes(pt) if pt else None
            opened[pos] = NAMES[CARD_POINTS.index(b)] if b in CARD_POINTS else "??"
            ok &= opened[pos] != "??"
    board = " ".join(opened[p] for p in range(4, DEALT) if p in opened) or "none"
    shown = ["seat%d showed %s %s" % (s, opened[2 * s], opened[2 * s + 1]) for s in (0, 1)
             if 2 * s in opened and 2 * s + 1 in opened]
    say("hand %d: board %s; %s" % (hand, board, "; ".join(shown) if shown else "no hand shown"))
    say("hand %d: %s" % (hand, "every step checks" if ok else "a step FAILS"))
    return ok


def load(path, episode):
    log = [json.loads(line) for line in open(path) if line.strip()]
    players, cmds = chain(log, episode)
    return players, hands(cmds)


def derived_scalar(domain, hs, extra=b""):
    """A seat's key: the first SHA-256(domain || hs || extra || ctr) in [1, n - 1]."""
    for ctr in range(256):
        k = int.from_bytes(sha(domain, hs, extra, bytes([ctr])), "big")
        if 0 < k < N:
            return k
    raise ValueError("no scalar")


def example():
    """A lock of the cards 2c..4c (as if they were the deck before it) by a
    seat whose hand secret is SHA-256("kdapp/holdem/example"), bound to
    episode 1, hand 1, seat 0 and the key G; its proof for position 0 made
    as the seats make theirs, then checked as the rules check it."""
    hs = sha(b"kdapp/holdem/example")
    x = derived_scalar(b"kdapp/holdem/deck-key/v1", hs)
    k = [derived_scalar(b"kdapp/holdem/card-key/v1", hs, bytes([i])) for i in range(DEALT)]
    key = pt_bytes(mul(x, G))
    ins = b"".join(CARD_POINTS[:DEALT])
    m = [k[i] * pow(x, -1, N) % N for i in range(DEALT)]
    outs = b"".join(pt_bytes(mul(m[i], pt_parse(CARD_POINTS[i]))) for i in range(DEALT))
    commits = b"".join(pt_bytes(mul(k[i], G)) for i in range(DEALT))
    bind = bind_bytes(1, 1, 0, pt_bytes(G))
    lam = lock_digest(bind, key, ins, outs, commits)
    nu = sha(b"kdapp/holdem/lock-nonce/v1", hs, lam)
    w = scalar_of(nu, "w", 0)
    r1, r2 = pt_bytes(mul(w, pt_parse(key))), pt_bytes(mul(w, pt_parse(CARD_POINTS[0])))
    e = scalar_of(sha(lam, b"\x00", r1, r2), "c", 0)
    s = (w + e * m[0]) % N
    print("the statement (bound to episode 1, hand 1, seat 0 and the key G):")
    print("  H = x·G  %s" % key.hex())
    print("  In_0     %s   (the card 2c)" % CARD_POINTS[0].hex())
    print("  L_0      %s" % outs[:33].hex())
    print("  K_0      %s" % commits[:33].hex())
    print("  lambda = SHA-256(\"kdapp/holdem/lock/v1\" || bind || H || In || L || K)")
    print("           %s" % lam.hex())
    print("the prover: w, R1 = w·H, R2 = w·In_0, e, s = w + e·m_0")
    print("  R1       %s" % r1.hex())
    print("  R2       %s" % r2.hex())
    print("  proof    e %064x" % e)
    print("           s %064x" % s)
    proofs = (e.to_bytes(32, "big") + s.to_bytes(32, "big")) * DEALT  # only position 0 is checked
    lam2, e2, s2, q1, q2, check = dleq_parts(bind, key, ins, outs, commits, proofs, 0)
    print("the verifier: R1 = s·H - e·K_0, R2 = s·In_0 - e·L_0, e again = scalar_of(SHA-256(lambda || 00 || R1 || R2), 'c', 0)")
    print("  R1       %s" % pt_bytes(q1).hex())
    print("  R2       %s" % pt_bytes(q2).hex())
    print("  e again  %064x" % check)
    print("verifies" if check == e else "FAILS")
    return 0 if check == e else 1


def main(argv):
    if len(argv) == 2 and argv[1] == "example":
        return example()
    if len(argv) >= 7 and argv[1] == "dleq":
        episode, hand, seat, pos = int(argv[3]), int(argv[4]), int(argv[5]), int(argv[6])
        players, by_hand = load(argv[2], episode)
        steps = dict(by_hand)[hand]
        shuffles = {s: b for s, k, b in steps if k == "shuffle"}
        locks = {s: b for s, k, b in steps if k == "lock"}
        bind = bind_bytes(episode, hand, seat, players[seat])
        key = shuffles[seat][2][0]
        ins = shuffles[1][1][0][:33 * DEALT] if seat == 0 else locks[0][1][0]
        outs, commits, proofs = locks[seat][1][0], locks[seat][2][0], locks[seat][3][0]
        lam, e, s, r1, r2, check = dleq_parts(bind, key, ins, outs, commits, proofs, pos)
        print("bind     %s" % bind.hex())
        print("H        %s" % key.hex())
        print("In       %s" % ins[33 * pos:33 * pos + 33].hex())
        print("L        %s" % outs[33 * pos:33 * pos + 33].hex())
        print("K        %s" % commits[33 * pos:33 * pos + 33].hex())
        print("lambda   %s" % lam.hex())
        print("e        %064x" % e)
        print("s        %064x" % s)
        print("R1       %s" % pt_bytes(r1).hex())
        print("R2       %s" % pt_bytes(r2).hex())
        print("e again  %064x" % check)
        print("verifies" if check == e else "FAILS")
        return 0 if check == e else 1
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    episode = int(argv[2])
    players, by_hand = load(argv[1], episode)
    ok = True
    for h, steps in by_hand:
        if len(argv) == 4 and h != int(argv[3]):
            continue
        ok &= check_hand(episode, players, h, steps, print)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
