#!/usr/bin/env python3
"""chance_check.py — an independent check of the house's draws and of sea
battle's openings, written from the docs' descriptions
(episodes/fair-chance.md, episodes/<type>/README.md) with Python's
integers and hashlib (not engine/vrf.c, episodes/fair.c or engine/crypto.c): what an outsider who trusts no one runs on a log.

  chance_check.py house KEYNAME TYPE EPISODE SEAT
      prints the house's VRF public key and binding ("house_key" and
      "house_binding" of the params) for the test key "test:KEYNAME" as seat
      SEAT of episode EPISODE of TYPE, bound to this file's test store id
      and nonce (the rules do not check a binding's tag: only the key
      holder does, to recognise its own commitments).
  chance_check.py prove KEYNAME TYPE EPISODE SEAT INDEX ASK [VERSION]
      prints the house's proof of draw INDEX for ASK (64 hex: the 32 bytes
      the draw's input ends with, `ask` below; for VERSION 2, the input of
      episodes created before issue 37, the ask's entropy) and its output,
      as the house of `house` above answers it.
  chance_check.py ask TYPE COMMAND_JSON
      prints the SHA-256 of the ask's bytes (what a version-3 draw's input
      ends with) and the bytes themselves (hex): the command JSON of a
      dice roll, roulette bets, a slots spin or a blackjack action written
      in the wire format of proto/chance.proto and proto/blackjack.proto by
      this file's own protobuf writer (fields in number order, zero values
      left out, as protobuf-c packs them).
  chance_check.py dice-creation EPISODE TIMEOUT CHAIN
      prints the raw EpisodeMessage (hex) that creates dice episode EPISODE
      for test:player and test:house with the house above,
      reveal_timeout TIMEOUT and both seats' consents for the store's chain
      CHAIN (`kdapp stats` names it), bypassing every JSON check: what a
      transaction built by hand carries.
  chance_check.py vrf-verify KEY ALPHA PROOF
      prints the VRF output of PROOF for ALPHA under KEY (all hex), or
      fails when it does not verify.
  chance_check.py verify LOG_JSONL [SHOW_JSON|AUDIT_JSON...]
      reads `kdapp log --json` (each tx's payload, decoded here by a
      protobuf reader of its own; each creation's params in effect),
      replays the chance episodes' (dice, roulette, slots) applied commands
      in log order (a revert restores the state before its block), verifies
      every reveal's VRF proof against the house's key in the params for
      the draw's input (episode, draw number, the SHA-256 of the asking
      command's bytes from the log; the asking command's entropy for the
      episodes whose params carry no draw_input, created before issue 37),
      recomputes each outcome (dice, pocket, stops) from the VRF
      output and each verdict (roulette's bets paid, the slot machine's
      payline), and compares them with each `kdapp show --json` given
      (recent rolls, recent pockets and chips, last stops and credits);
      in sea battle episodes it checks every opening's Merkle path and
      every revealed board against the seat's root, plays the rules
      (hits, sinks, the end of play, legal fleets, claims) and compares the
      boards, stage, leader, reason and reveals with `kdapp show --json`;
      in blackjack episodes it plays the rules (episodes/blackjack/README.md) with
      the params in effect the log gives: every reveal's proof verified for
      the entropy of the oldest ask still waiting, each card drawn from the
      shoe, each hand settled; the players' chips, hands, outcomes and
      dealer, the house's net, the shoe and the draws compared with
      `kdapp show --json`. Prints one line
      per draw. Each `kdapp audit --json` report given must show the same
      draws of the canonical chain: the same inputs and proofs (verified
      here), outputs, words read from each output (kept, skipped, bounds)
      and outcomes (dice, pocket, stops).
  chance_check.py vrf-vectors
      prints known answers of the VRF (engine/vrf.h) for
      tests/engine/vrf_test.c, each proof verified here first.
"""
import hashlib
import json
import struct
import sys


def sha(b):
    return hashlib.sha256(b).digest()


# ---------------------------------------------------------------- the VRF
# ECVRF on secp256k1 with SHA-256, suite "kdapp-vrf-v1" (engine/vrf.h),
# written out here with Python integers: affine points, None the point at
# infinity, compressed 33-byte strings.

P = 2**256 - 2**32 - 977  # the field
Q = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141  # the group's order
G = (0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
     0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8)
SUITE = b"kdapp-vrf-v1"


def pt_add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0]:
        if (a[1] + b[1]) % P == 0:
            return None
        lam = 3 * a[0] * a[0] * pow(2 * a[1], -1, P) % P
    else:
        lam = (b[1] - a[1]) * pow(b[0] - a[0], -1, P) % P
    x = (lam * lam - a[0] - b[0]) % P
    return (x, (lam * (a[0] - x) - a[1]) % P)


def pt_mul(k, a):
    r = None
    while k:
        if k & 1:
            r = pt_add(r, a)
        a = pt_add(a, a)
        k >>= 1
    return r


def pt_neg(a):
    return None if a is None else (a[0], (P - a[1]) % P)


def pt_bytes(a):
    return bytes([2 + (a[1] & 1)]) + a[0].to_bytes(32, "big")


def pt_parse(b):
    """The point of a 33-byte compressed string, or None."""
    if len(b) != 33 or b[0] not in (2, 3):
        return None
    x = int.from_bytes(b[1:], "big")
    if x >= P:
        return None
    y2 = (x ** 3 + 7) % P
    y = pow(y2, (P + 1) // 4, P)
    if y * y % P != y2:
        return None
    if (y & 1) != (b[0] & 1):
        y = P - y
    return (x, y)


def encode_to_curve(y_str, alpha):
    """Try and increment: the first 0x02 || Hash(suite || 01 || Y || alpha || ctr || 00) on the curve."""
    for ctr in range(256):
        h = b"\x02" + sha(SUITE + b"\x01" + y_str + alpha + bytes([ctr]) + b"\x00")
        point = pt_parse(h)
        if point:
            return point, h
    raise ValueError("no point for alpha")


def vrf_key(seed):
    """(secret, compressed public key) of a 32-byte seed."""
    for ctr in range(256):
        x = int.from_bytes(sha(b"kdapp-vrf-key-v1" + seed + bytes([ctr])), "big")
        if 0 < x < Q:
            return x, pt_bytes(pt_mul(x, G))
    raise ValueError("no key")


def vrf_nonce(x, h_str):
    for ctr in range(256):
        k = int.from_bytes(sha(SUITE + b"\x04" + x.to_bytes(32, "big") + h_str + bytes([ctr]) + b"\x00"), "big")
        if 0 < k < Q:
            return k
    raise ValueError("no nonce")


def vrf_challenge(*points):
    return sha(SUITE + b"\x02" + b"".join(points) + b"\x00")[:16]


def vrf_hash(gamma_str):
    return sha(SUITE + b"\x03" + gamma_str + b"\x00")


def vrf_prove(x, alpha):
    """The 81-byte proof Gamma || c || s of alpha under secret x."""
    y_str = pt_bytes(pt_mul(x, G))
    h, h_str = encode_to_curve(y_str, alpha)
    gamma = pt_bytes(pt_mul(x, h))
    k = vrf_nonce(x, h_str)
    c = vrf_challenge(y_str, h_str, gamma, pt_bytes(pt_mul(k, G)), pt_bytes(pt_mul(k, h)))
    s = (k + int.from_bytes(c, "big") * x) % Q
    return gamma + c + s.to_bytes(32, "big")


def vrf_verify(y_str, alpha, pi):
    """beta when pi proves alpha under the public key y_str, else None."""
    if len(pi) != 81:
        return None
    y, gamma = pt_parse(y_str), pt_parse(pi[:33])
    c, s = int.from_bytes(pi[33:49], "big"), int.from_bytes(pi[49:], "big")
    if y is None or gamma is None or c == 0 or not 0 < s < Q:
        return None
    h, h_str = encode_to_curve(y_str, alpha)
    u = pt_add(pt_mul(s, G), pt_neg(pt_mul(c, y)))
    v = pt_add(pt_mul(s, h), pt_neg(pt_mul(c, gamma)))
    if u is None or v is None or vrf_challenge(y_str, h_str, pi[:33], pt_bytes(u), pt_bytes(v)) != pi[33:49]:
        return None
    return vrf_hash(pi[:33])


def test_secret(name):
    return sha(b"kdapp-test-key:" + name.encode())


TEST_STORE = b"chance_check" + bytes(4)  # 16 bytes: the store these commitments say they are for
TEST_NONCE = b"chance-check-v1!"  # 16 bytes


def seat_fields(type_name, episode, seat):
    return type_name.encode() + b"\0" + struct.pack(">I", episode) + bytes([seat])


def binding(secret, store, type_name, episode, seat, nonce):
    """nonce || SHA-256("kdapp/secret-binding/v1" || secret || store || type || 0 || id || seat || nonce)[:16]"""
    tag = sha(b"kdapp/secret-binding/v1" + secret + store + seat_fields(type_name, episode, seat) + nonce)[:16]
    return nonce + tag


def seat_seed(secret, type_name, episode, seat, bind):
    return sha(b"kdapp-secret-v2" + secret + seat_fields(type_name, episode, seat) + bind)


def house(name, type_name, episode, seat):
    """(VRF secret, public key, binding) of the test key's seat."""
    secret = test_secret(name)
    bind = binding(secret, TEST_STORE, type_name, episode, seat, TEST_NONCE)
    x, pub = vrf_key(seat_seed(secret, type_name, episode, seat, bind))
    return x, pub, bind


def alpha(episode, index, ask, version=3):
    """The VRF input of a draw (episodes/fair-chance.md): the tag, the
    episode and the draw number (4 bytes big-endian each), and the 32 bytes
    of the ask: the SHA-256 of its bytes (version 3), its entropy (2)."""
    return (b"kdapp-draw-v2" if version == 2 else b"kdapp-draw-v3") + struct.pack(">II", episode, index) + ask


def below(seed, n, state):
    """kd_fair_below: 32-bit big-endian words of SHA-256(seed || counter)
    blocks, rejecting words at or above the largest multiple of n not above
    2^32; n = 1 reads no word."""
    if n <= 1:
        return 0
    limit = (1 << 32) - (1 << 32) % n
    while True:
        if state["used"] >= 32:
            state["block"] = sha(seed + struct.pack(">I", state["counter"]))
            state["counter"] += 1
            state["used"] = 0
        w = struct.unpack(">I", state["block"][state["used"]:state["used"] + 4])[0]
        state["used"] += 4
        if w < limit:
            return w % n


def dice(d, count, sides):
    st = {"used": 32, "counter": 0, "block": b""}
    return [below(d, sides, st) + 1 for _ in range(count)]


def fields(b):
    """A protobuf message as {field number: [values]} (varints as int,
    length-delimited as bytes): enough of the wire format for our messages."""
    out, i = {}, 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.setdefault(num, []).append(v)
    return out


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def one(f, n, default=None):
    return f.get(n, [default])[-1]


def zigzag(v):
    return (v >> 1) ^ -(v & 1)


def ask_of(ep, command, entropy):
    """The 32 bytes an ask puts in its draws' input: SHA-256 of the
    command's bytes, or its entropy in an episode of draw input 2."""
    return entropy if ep["version"] == 2 else sha(command)


def reveal_draw(ep, ep_id, proof, ask, out):
    """The VRF output of the episode's next draw, checked; out gets a line."""
    index = ep["draws"] + 1
    beta = vrf_verify(ep["key"], alpha(ep_id, index, ask, ep["version"]), proof)
    assert beta is not None, "episode %d: the proof of draw %d does not verify" % (ep_id, index)
    ep["draws"] = index
    ep["seen"].append({"draw": index, "output": beta.hex(), "input": alpha(ep_id, index, ask, ep["version"]).hex(),
                       "proof": proof.hex()})
    return beta, "episode %d draw %d: the proof verifies; output %s; " % (ep_id, index, beta.hex()[:16])


# ------------------------------------------------------ roulette and slots
# episodes/roulette/README.md and episodes/slots/README.md: the bets by their kind on the wire, what
# each covers and pays; the strip and the paytable, first match pays.

RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}
PAYS = {1: 35, 2: 17, 3: 11, 4: 8, 5: 5, 6: 6, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 12: 1, 13: 2, 14: 2}


def covers(kind, n, n2, p):
    """Whether a bet covers pocket p (0..36, 37 for 00)."""
    num = 1 <= p <= 36
    return {1: p == n, 2: p in (n, n2), 3: num and n <= p <= n + 2, 4: num and p in (n, n + 1, n + 3, n + 4),
            5: num and n <= p <= n + 5, 6: p <= 3 or p == 37, 7: num and p in RED, 8: num and p not in RED,
            9: num and p % 2 == 1, 10: num and p % 2 == 0, 11: num and p <= 18, 12: num and p >= 19,
            13: num and (p - 1) // 12 + 1 == n, 14: num and (p - 1) % 3 + 1 == n}[kind]


STRIP = ("cherry lemon orange plum bell lemon bar orange cherry lemon plum bell orange seven lemon cherry orange "
         "plum bar bell").split()
PAYTABLE = [("seven seven seven", 300), ("bar bar bar", 100), ("bell bell bell", 40), ("plum plum plum", 20),
            ("orange orange orange", 15), ("lemon lemon lemon", 15), ("cherry cherry cherry", 10),
            ("cherry cherry any", 5), ("cherry any any", 2)]


def multiplier(stops):
    for line, times in PAYTABLE:
        if all(want in ("any", STRIP[s]) for want, s in zip(line.split(), stops)):
            return times
    return 0


def settle_roulette(ep, pocket):
    """The stakes of the covering bets back with their payouts (pocket None:
    a claim, every bet as if it won), capped at 2^32 - 1 chips."""
    win = sum(amount * (PAYS[kind] + 1) for kind, n, n2, amount in ep["bets"]
              if pocket is None or covers(kind, n, n2, pocket))
    ep["chips"] = min(ep["chips"] + win, 2**32 - 1)
    ep["bets"] = []


def settle_slots(ep, stops):
    """The bet times the line's multiplier (stops None: a claim, the top
    line's), capped at 2^32 - 1 credits."""
    times = PAYTABLE[0][1] if stops is None else multiplier(stops)
    ep["credits"] = min(ep["credits"] + ep["bet"] * times, 2**32 - 1)
    ep["bet"] = 0


# ------------------------------------------------------------- sea battle
# episodes/seabattle/README.md: a Merkle root over 100 cells per seat, each shot
# answered by an opening of its cell, the boards revealed at the end.

SHIP_LEN = {1: 5, 2: 4, 3: 3, 4: 3, 5: 2}


def sb_leaf(i, content, salt):
    return sha(b"\x00" + bytes([i, content]) + salt)


def sb_root(contents, salts):
    level = [sb_leaf(i, contents[i], salts[32 * i:32 * i + 32]) for i in range(100)] + [bytes(32)] * 28
    while len(level) > 1:
        level = [sha(b"\x01" + level[k] + level[k + 1]) for k in range(0, len(level), 2)]
    return level[0]


def sb_path_root(i, content, salt, path):
    h = sb_leaf(i, content, salt)
    for sibling in path:
        h = sha(b"\x01" + h + sibling) if i % 2 == 0 else sha(b"\x01" + sibling + h)
        i //= 2
    return h


def sb_legal(contents):
    """Ships 1..5 of lengths 5, 4, 3, 3, 2, each one straight line, no two
    touching, not even diagonally."""
    for ship, length in SHIP_LEN.items():
        cells = [i for i in range(100) if contents[i] == ship]
        rows, cols = {i // 10 for i in cells}, {i % 10 for i in cells}
        span = max(i // 10 for i in cells) - min(i // 10 for i in cells) + max(i % 10 for i in cells) - \
            min(i % 10 for i in cells) + 1 if cells else 0
        if len(cells) != length or (len(rows) != 1 and len(cols) != 1) or span != length:
            return False
    for i in range(100):
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = i // 10 + dr, i % 10 + dc
                if contents[i] and 0 <= r < 10 and 0 <= c < 10 and contents[r * 10 + c] not in (0, contents[i]):
                    return False
    return True


def sb_hits(ep, seat, ship):
    return sum(1 for m in ep["marks"][seat] if m == ship + 1)


def apply_seabattle(ep, ep_id, signer, cmd, out):
    """One applied SbCommand: shot 1, answer 2, reveal 3, resign 4, claim 5."""
    seat = ep["signers"].index(signer)
    if 1 in cmd:
        ep["pending"] = one(fields(one(cmd, 1)), 1, 0)
    elif 2 in cmd:
        a = fields(one(cmd, 2))
        cell, content = one(a, 1, 0), one(a, 2, 0)
        assert cell == ep["pending"] and sb_path_root(cell, content, one(a, 3), a.get(4, [])) == ep["roots"][seat], \
            "episode %d: an opening of cell %d that does not match the root" % (ep_id, cell)
        ep["marks"][seat][cell] = content + 1
        ep["pending"], shooter = None, ep["turn"]
        ep["turn"] = 1 - ep["turn"]
        if content and all(sb_hits(ep, seat, k) >= n for k, n in SHIP_LEN.items()):
            ep.update(phase="reveal", winner=shooter, reason="fleet_sunk")
        elif all(ep["marks"][seat]):
            ep.update(phase="reveal", winner=shooter, reason="board_exhausted")
        out.append("episode %d: %s opens %d: %s" % (ep_id, ("blue", "red")[seat], cell,
                                                    "ship %d" % content if content else "water"))
    elif 3 in cmd:
        r = fields(one(cmd, 3))
        contents, salts = one(r, 1), one(r, 2)
        assert sb_root(contents, salts) == ep["roots"][seat], "episode %d: a board not its root" % ep_id
        legal = sb_legal(contents) and all(m in (0, contents[i] + 1) for i, m in enumerate(ep["marks"][seat]))
        ep["revealed"][seat] = "legal" if legal else "illegal"
        if ep["revealed"][1 - seat] != "no":
            w = ep["winner"]
            if ep["revealed"][w] == "illegal" and ep["revealed"][1 - w] == "legal":
                ep["winner"] = 1 - w
            ep["phase"] = "over"
        out.append("episode %d: %s reveals a %s board" % (ep_id, ("blue", "red")[seat], ep["revealed"][seat]))
    elif 4 in cmd:
        ep.update(phase="reveal", winner=1 - seat, reason="resigned", pending=None)
    else:  # a claim after the deadline
        if ep["phase"] == "play":
            ep.update(winner=seat, reason="no_answer", pending=None)
        elif ep["revealed"][seat] == "legal":
            ep.update(winner=seat, reason="no_reveal")
        ep["phase"] = "over"


def sb_outcomes(ep, show):
    """(what the engine shows, what the log gives) of a sea battle."""
    def board(seat):
        rows = []
        for r in range(10):
            line = ""
            for c in range(10):
                i, m = r * 10 + c, ep["marks"][seat][r * 10 + c]
                if m == 0:
                    line += "?" if ep["pending"] == i and seat == 1 - ep["turn"] and ep["phase"] == "play" else "."
                else:
                    line += "o" if m == 1 else "#" if sb_hits(ep, seat, m - 1) >= SHIP_LEN[m - 1] else "x"
            rows.append(line)
        return rows
    got = {k: show[k] for k in ("stage", "leader", "reason", "revealed", "board_blue", "board_red")}
    want = {"stage": ep["phase"], "leader": None if ep["winner"] is None else ("blue", "red")[ep["winner"]],
            "reason": ep["reason"], "revealed": {"blue": ep["revealed"][0], "red": ep["revealed"][1]},
            "board_blue": board(0), "board_red": board(1)}
    return got, want


# -------------------------------------------------------------- blackjack
# The rules as episodes/blackjack/README.md states them, for applied commands only
# (the engine refused the others): cards 0..51, rank card % 13 (0 ace ..
# 12 king), suit card // 13 (clubs, diamonds, hearts, spades).

def bj_value(card):
    r = card % 13
    return 1 if r == 0 else min(r + 1, 10)


def bj_total(cards):
    t = sum(bj_value(c) for c in cards)
    return t + 10 if any(c % 13 == 0 for c in cards) and t + 10 <= 21 else t


def bj_text(card):
    return "A23456789TJQK"[card % 13].replace("T", "10") + "CDHS"[card // 13]


def bj_new(params, n_players):
    decks = params["decks"]
    return {"type": "blackjack", "key": bytes.fromhex(params["house_key"]), "draws": 0, "seen": [], "seq": 0,
            "version": 3 if params.get("draw_input") == 3 else 2,
            "p": params, "shoe": [decks] * 52, "left": 52 * decks, "house_net": 0,
            "players": [{"chips": params["stack"], "rounds": 0, "await": "idle", "hands": [], "active": 0,
                         "dealer": [], "net": 0, "asked": 0, "entropy": b""} for _ in range(n_players)]}


def bj_natural(pl):
    return len(pl["hands"]) == 1 and len(pl["hands"][0]["cards"]) == 2 and bj_total(pl["hands"][0]["cards"]) == 21


def bj_settle(ep, pl):
    dealer = bj_total(pl["dealer"])
    dealer_bj = len(pl["dealer"]) == 2 and dealer == 21
    natural, net = bj_natural(pl), 0
    for h in pl["hands"]:
        t, back = bj_total(h["cards"]), 0
        if t > 21:
            h["outcome"] = "bust"
        elif natural:
            h["outcome"] = "push" if dealer_bj else "blackjack"
            back = h["bet"] if dealer_bj else h["bet"] + h["bet"] * 3 // 2
        elif dealer_bj:
            h["outcome"] = "lose"
        elif dealer > 21 or t > dealer:
            h["outcome"], back = "win", 2 * h["bet"]
        else:
            h["outcome"] = "push" if t == dealer else "lose"
            back = h["bet"] if t == dealer else 0
        net += back - h["bet"]
        pl["chips"] += back
    pl["net"] = net
    ep["house_net"] -= net
    pl["await"] = "idle"


def bj_hand_done(ep, pl):
    if pl["active"] + 1 < len(pl["hands"]):
        pl["active"] += 1
        pl["await"] = "card"
    elif any(bj_total(h["cards"]) <= 21 for h in pl["hands"]):
        pl["await"] = "dealer"
    else:
        bj_settle(ep, pl)


def bj_place(ep, pl, card):
    if pl["await"] == "deal":  # the player's two cards, then the dealer's one
        hand = pl["hands"][0]["cards"]
        (hand if len(hand) < 2 else pl["dealer"]).append(card)
        if not pl["dealer"]:
            return
        if not bj_natural(pl):
            pl["await"] = "player"
        elif bj_value(pl["dealer"][0]) in (1, 10):
            pl["await"] = "dealer"  # the dealer's second card decides the push
        else:
            bj_settle(ep, pl)
    elif pl["await"] == "card":
        h = pl["hands"][pl["active"]]
        h["cards"].append(card)
        t = bj_total(h["cards"])
        if h["split_aces"] or h["doubled"] or t >= 21 or len(h["cards"]) == 10:
            bj_hand_done(ep, pl)
        else:
            pl["await"] = "player"
    else:
        pl["dealer"].append(card)
        if bj_natural(pl) or bj_total(pl["dealer"]) >= 17 or len(pl["dealer"]) == 10:
            bj_settle(ep, pl)


def bj_owed(ep):
    """The round the next reveal answers: the oldest ask still waiting."""
    waiting = [(pl["asked"], i) for i, pl in enumerate(ep["players"]) if pl["await"] in ("deal", "card", "dealer")]
    return min(waiting)[1] if waiting else None


def apply_blackjack(ep, ep_id, signer, cmd, out, raw):
    """One applied blackjack command (BjCommand: bet 1, hit 2, stand 3,
    double 4, split 5, reveal 6, claim 7); `raw` its bytes."""
    seq = ep["seq"]
    ep["seq"] += 1
    if 6 in cmd:  # the house's reveal: the card of the oldest ask waiting
        i = bj_owed(ep)
        assert i is not None, "episode %d: a reveal applied while no round waits" % ep_id
        pl = ep["players"][i]
        beta, head = reveal_draw(ep, ep_id, one(fields(one(cmd, 6)), 3), pl["entropy"], out)
        if ep["left"] == 0:  # refilled: a full shoe, the cards on the table included
            ep["shoe"], ep["left"] = [ep["p"]["decks"]] * 52, 52 * ep["p"]["decks"]
        k = below(beta, ep["left"], {"used": 32, "counter": 0, "block": b""})
        card = 0
        while card < 51 and k >= ep["shoe"][card]:
            k -= ep["shoe"][card]
            card += 1
        ep["shoe"][card] -= 1
        ep["left"] -= 1
        bj_place(ep, pl, card)
        ep["seen"][-1]["outcome"] = {"to": "player%d" % (i + 1), "card": bj_text(card)}
        out.append(head + "%s to player%d" % (bj_text(card), i + 1))
        return
    i = ep["signers"].index(signer)
    pl = ep["players"][i]
    if 7 in cmd:  # a claim: every hand not bust is paid 1:1
        net = 0
        for h in pl["hands"]:
            if bj_total(h["cards"]) > 21:
                h["outcome"] = "bust"
                net -= h["bet"]
            else:
                h["outcome"] = "claimed"
                pl["chips"] += 2 * h["bet"]
                net += h["bet"]
        pl["net"], pl["await"] = net, "idle"
        ep["house_net"] -= net
        out.append("episode %d: player%d claimed its round" % (ep_id, i + 1))
        return
    num = next(n for n in range(1, 6) if n in cmd)
    body = fields(one(cmd, num))
    pl["entropy"], pl["asked"] = ask_of(ep, raw, one(body, 2 if num == 1 else 1)), seq
    if num == 1:  # bet: the shoe is refilled when under a quarter is left and no round is on
        if all(q["await"] == "idle" for q in ep["players"]) and ep["left"] < ep["p"]["decks"] * 13:
            ep["shoe"], ep["left"] = [ep["p"]["decks"]] * 52, 52 * ep["p"]["decks"]
        amount = one(body, 1, 0)
        pl.update({"chips": pl["chips"] - amount, "rounds": pl["rounds"] + 1, "await": "deal", "active": 0,
                   "dealer": [], "net": 0,
                   "hands": [{"cards": [], "bet": amount, "doubled": False, "split_aces": False, "outcome": "open"}]})
        return
    h = pl["hands"][pl["active"]]
    if num == 2:  # hit
        pl["await"] = "card"
    elif num == 3:  # stand
        bj_hand_done(ep, pl)
    elif num == 4:  # double: the bet again, one card
        pl["chips"] -= h["bet"]
        h["bet"] *= 2
        h["doubled"] = True
        pl["await"] = "card"
    else:  # split: the second card opens a hand after this one; aces take one card each
        pl["chips"] -= h["bet"]
        aces = h["cards"][0] % 13 == 0
        pl["hands"].insert(pl["active"] + 1, {"cards": [h["cards"][1]], "bet": h["bet"], "doubled": False,
                                              "split_aces": aces, "outcome": "open"})
        h["cards"], h["split_aces"] = h["cards"][:1], aces
        pl["await"] = "card"


def bj_outcomes(ep, show):
    """(what the engine shows, what the log gives) of a blackjack episode."""
    def shown(p):
        return {"chips": p["chips"], "rounds": p["rounds_played"], "await": p["await"], "net": p["last_net"],
                "hands": [(h["cards"], h["bet"], h["outcome"]) for h in p["hands"]], "dealer": p["dealer"]["cards"]}

    def mine(p):
        return {"chips": p["chips"], "rounds": p["rounds"], "await": p["await"], "net": p["net"],
                "hands": [([bj_text(c) for c in h["cards"]], h["bet"], h["outcome"]) for h in p["hands"]],
                "dealer": [bj_text(c) for c in p["dealer"]]}
    got = {"players": [shown(p) for p in show["players"]], "house_net": show["house_net"],
           "shoe_left": show["shoe"]["left"], "draws": show["house"]["draws"]}
    want = {"players": [mine(p) for p in ep["players"]], "house_net": ep["house_net"], "shoe_left": ep["left"],
            "draws": ep["draws"]}
    return got, want


def apply_tx(eps, ep_id, payload, params, out):
    """Applies one applied EpisodeMessage of a chance episode to `eps`;
    `params`: a creation's params in effect, as `kdapp log --json` gives
    them (the defaults filled in)."""
    msg = fields(payload)
    if 2 in msg:  # NewEpisode
        new = fields(one(msg, 2))
        type_name = one(new, 1, b"").decode()
        params_json, params = params, fields(one(new, 3, b""))
        if type_name in ("dice", "roulette", "slots"):
            h = fields(one(params, 1, b""))
            eps[ep_id] = {"type": type_name, "key": one(h, 4), "draws": 0, "pending": None, "rolls": [],
                          "version": 3 if one(h, 6, 0) == 3 else 2, "ask": None,
                          "pockets": [], "stops": None, "seen": [], "bets": [], "bet": 0,
                          "chips": (params_json or {}).get("start_chips"),
                          "credits": (params_json or {}).get("start_credits")}
        elif type_name == "seabattle":
            eps[ep_id] = {"type": type_name, "signers": new.get(2, []), "marks": [[0] * 100, [0] * 100],
                          "roots": [bytes.fromhex(params_json["root_blue"]), bytes.fromhex(params_json["root_red"])],
                          "turn": 0, "pending": None, "phase": "play", "winner": None, "reason": None,
                          "revealed": ["no", "no"], "seen": []}
        elif type_name == "blackjack":
            players = new.get(2, [])[1:]  # the house first
            eps[ep_id] = bj_new(params_json, len(players))
            eps[ep_id]["signers"] = players
        return
    ep = eps.get(ep_id)
    if ep is None:
        return
    signed = fields(one(msg, 3, b""))
    raw = one(signed, 1, b"") or one(fields(one(msg, 4, b"")), 1, b"")  # the command's bytes
    cmd = fields(raw)
    if ep["type"] == "blackjack":
        apply_blackjack(ep, ep_id, one(signed, 2, b""), cmd, out, raw)
        return
    if ep["type"] == "seabattle":
        apply_seabattle(ep, ep_id, one(signed, 2, b""), cmd, out)
        return
    if 1 in cmd:  # the ask: a roll, bets or a spin, with the player's entropy
        a = fields(one(cmd, 1))
        if ep["type"] == "dice":
            ep["pending"] = (one(a, 1, 0), one(a, 2, 0), zigzag(one(a, 3, 0)), one(a, 4))
            ep["ask"] = ask_of(ep, raw, one(a, 4))
        else:
            ep["pending"] = one(a, 2)
            ep["ask"] = ask_of(ep, raw, one(a, 2))
        if ep["type"] == "roulette":  # the stakes leave the chips when the bets are placed
            ep["bets"] = [(one(b, 1, 0), one(b, 2, 0), one(b, 3, 0), one(b, 4, 0)) for b in map(fields, a.get(1, []))]
            ep["chips"] -= sum(b[3] for b in ep["bets"])
        elif ep["type"] == "slots":
            ep["bet"] = one(a, 1, 0)
            ep["credits"] -= ep["bet"]
    elif 2 in cmd:  # reveal: the proof
        proof = one(fields(one(cmd, 2)), 2)
        d, head = reveal_draw(ep, ep_id, proof, ep["ask"], out)
        if ep["type"] == "dice":
            count, sides, mod, _ = ep["pending"]
            faces = dice(d, count, sides)
            ep["rolls"].append({"dice": faces, "total": sum(faces) + mod, "claimed": False})
            ep["seen"][-1]["outcome"] = {"dice": faces, "total": sum(faces) + mod}
            out.append(head + "%dd%d%+d -> %s = %d" % (count, sides, mod, faces, sum(faces) + mod))
        elif ep["type"] == "roulette":
            pocket = dice(d, 1, 38)[0] - 1
            ep["pockets"].append("00" if pocket == 37 else pocket)
            settle_roulette(ep, pocket)
            ep["seen"][-1]["outcome"] = {"pocket": ep["pockets"][-1]}
            out.append(head + "pocket %s" % ep["pockets"][-1])
        else:
            ep["stops"] = [x - 1 for x in dice(d, 3, 20)]
            settle_slots(ep, ep["stops"])
            ep["seen"][-1]["outcome"] = {"stops": ep["stops"]}
            out.append(head + "stops %s" % ep["stops"])
        ep["pending"] = None
    elif 3 in cmd:  # claim
        ep["rolls"].append({"dice": [], "total": None, "claimed": True})
        if ep["type"] == "roulette":
            settle_roulette(ep, None)
        elif ep["type"] == "slots":
            settle_slots(ep, None)
        out.append("episode %d: round claimed (the house did not reveal)" % ep_id)
        ep["pending"] = None


def outcomes(ep, show):
    """(what the engine shows, what the log gives) for one episode."""
    if ep["type"] == "blackjack":
        return bj_outcomes(ep, show)
    if ep["type"] == "seabattle":
        return sb_outcomes(ep, show)
    if ep["type"] == "dice":
        got = [{"dice": r["dice"], "total": r["total"], "claimed": r["claimed"]} for r in show["recent_rolls"]]
        return got, ep["rolls"][-len(got):] if got else []
    if ep["type"] == "roulette":
        got = show["recent_pockets"]
        return (got, show["chips"]), (ep["pockets"][-len(got):] if got else [], ep["chips"])
    return (show["last_stops"], show["credits"]), (ep["stops"], ep["credits"])


def replay(log, out):
    """The chance episodes after the log: reverts give back the state
    before their block, so what remains is the canonical chain's."""
    import copy
    eps, stack = {}, []
    for entry in log:
        if entry["status"] != "applied":
            continue
        if entry["kind"] == "accept":
            stack.append(copy.deepcopy(eps))
            for tx in entry.get("txs", []):
                if tx["applied"]:
                    apply_tx(eps, tx["episode"], bytes.fromhex(tx["payload"]), tx.get("params"), out)
        elif entry["kind"] == "revert":
            eps = stack.pop()
            out.append("revert: back to the state before the reverted block")
    return eps


def words_of(output, n_list):
    """The words kd_fair_below reads from `output` for the numbers n_list,
    as `kdapp audit` lists them."""
    st, words = {"used": 32, "counter": 0, "block": b""}, []
    for n in n_list:
        if n <= 1:
            continue
        limit = (1 << 32) - (1 << 32) % n
        while True:
            if st["used"] >= 32:
                st["block"] = sha(output + struct.pack(">I", st["counter"]))
                st["counter"] += 1
                st["used"] = 0
            w = struct.unpack(">I", st["block"][st["used"]:st["used"] + 4])[0]
            st["used"] += 4
            words.append({"block": st["counter"] - 1, "word": "%08x" % w, "n": n, "bound": limit, "kept": w < limit})
            if w < limit:
                words[-1]["value"] = w % n
                break
    return words


def audit_check(eps, audits):
    """Each `kdapp audit --json` report against this file's own replay of
    the log (`eps`): the same draws, inputs, proofs (verified here by the
    replay), outputs, words and outcomes."""
    n = 0
    for a in audits:
        ep = eps[a["episode"]]
        assert a["verdict"] == "ok" and a["replay_matches_store"], a["verdict"]
        got = [{"draw": d["draw"], "output": d["output"]} for d in a["draws"]]
        want = [{"draw": s["draw"], "output": s["output"]} for s in ep["seen"]]
        assert got == want, "episode %d: audit %s, log %s" % (a["episode"], got, want)
        for d, s in zip(a["draws"], ep["seen"]):
            assert d["verified"] and d["input"] == s["input"] and d["proof"] == s["proof"], (d, s)
            ns = [w["n"] for w in d["words"] if w["kept"]]
            assert d["words"] == words_of(bytes.fromhex(d["output"]), ns), (d["words"], ns)
            if "outcome" in s:
                for k, v in s["outcome"].items():
                    assert d["outcome"][k] == v, "episode %d draw %d: audit %s, log %s" % (
                        a["episode"], d["draw"], d["outcome"], s["outcome"])
            n += 1
    return n


def verify(log, shows, audits):
    out = []
    eps = replay(log, out)
    for line in out:
        print(line)
    audited = audit_check(eps, audits)
    checked = 0
    for ep_id, show in (shows or {}).items():
        got, want = outcomes(eps[int(ep_id)], show)
        assert got == want, "episode %s: the engine shows %s, the log gives %s" % (ep_id, got, want)
        # outcomes: the rolls, the pockets, one spin, the players' rounds
        kind = eps[int(ep_id)]["type"]
        checked += len(got) if kind == "dice" else len(got[0]) if kind == "roulette" else \
            len(got["players"]) if kind == "blackjack" else 1  # a spin, a sea battle
    print("ok: %d draws verified from the log, %d outcomes checked against the engine, %d draws of %d audits "
          "the same" % (len(set(l.split(":")[0] for l in out if " draw " in l)), checked, audited, len(audits)))


def vrf_vectors():
    """Known answers for tests/engine/vrf_test.c: (seed, alpha, public key, proof, beta), each checked here."""
    alphas = [b"", b"abc", b"kdapp-draw-v2" + struct.pack(">II", 7, 1) + bytes(range(32)), bytes([0xA5]) * 200]
    for n in range(4):
        seed = sha(b"kdapp vrf vector %d" % n) if n else bytes(32)
        x, pub = vrf_key(seed)
        for alpha in alphas[n:] + alphas[:n][:1]:
            pi = vrf_prove(x, alpha)
            beta = vrf_verify(pub, alpha, pi)
            assert beta is not None and vrf_verify(pub, alpha + b"x", pi) is None
            print("    {\"%s\", \"%s\",\n     \"%s\",\n     \"%s\",\n     \"%s\"}," % (
                seed.hex(), alpha.hex(), pub.hex(), pi.hex(), beta.hex()))


# ------------------------------------------------------- asks, as bytes
# The command JSON of an ask in the wire format (proto/chance.proto,
# proto/blackjack.proto): what the engine hashes for a version-3 draw.

BET_KINDS = ["straight", "split", "street", "corner", "six_line", "top_line", "red", "black", "odd", "even", "low",
             "high", "dozen", "column"]


def pb_opt(num, value):
    """A proto3 field as protobuf-c packs it: left out when zero or empty."""
    return pb(num, value) if value else b""


def pocket(n):
    return 37 if n == "00" else int(n)


def ask_bytes(type_name, c):
    """The bytes of the ask `c` (command JSON) of `type_name`."""
    import re
    entropy = bytes.fromhex(c["entropy"])
    if type_name == "dice":
        m = re.fullmatch(r"(\d*)d(\d+)([+-]\d+)?", c["roll"])
        count, sides, mod = int(m.group(1) or 1), int(m.group(2)), int(m.group(3) or 0)
        body = pb_opt(1, count) + pb_opt(2, sides) + pb_opt(3, mod * 2 if mod >= 0 else -mod * 2 - 1) + pb(4, entropy)
        return pb(1, body)
    if type_name == "roulette":
        bets = b""
        for b in c["bets"]:
            nums = sorted(pocket(x) for x in b["numbers"]) if "numbers" in b else [pocket(b.get("number", 0)), 0]
            bets += pb(1, pb_opt(1, BET_KINDS.index(b["kind"]) + 1) + pb_opt(2, nums[0]) + pb_opt(3, nums[1]) +
                       pb_opt(4, b["amount"]))
        return pb(1, bets + pb(2, entropy))
    if type_name == "slots":
        return pb(1, pb_opt(1, c["spin"]) + pb(2, entropy))
    if type_name == "blackjack":
        action = ["bet", "hit", "stand", "double", "split"].index(c["action"]) + 1
        body = pb_opt(1, c.get("amount", 0)) + pb(2, entropy) if action == 1 else pb(1, entropy)
        return pb(action, body)
    raise ValueError("no asks in %s" % type_name)


def pb_varint(v):
    out = b""
    while True:
        out += bytes([(v & 0x7F) | (0x80 if v > 0x7F else 0)])
        v >>= 7
        if not v:
            return out


def pb(num, value):
    """One protobuf field: an int as a varint, bytes length-delimited."""
    if isinstance(value, int):
        return pb_varint(num << 3) + pb_varint(value)
    return pb_varint(num << 3 | 2) + pb_varint(len(value)) + value


def ecdsa_sign(secret, digest):
    """A 64-byte compact ECDSA signature (r || s, lower s) of `digest`; the
    nonce from SHA-256 of the secret and the digest (enough for a test)."""
    d, z = int.from_bytes(secret, "big"), int.from_bytes(digest, "big")
    k = int.from_bytes(sha(secret + digest), "big") % Q
    r = pt_mul(k, G)[0] % Q
    s = pow(k, -1, Q) * (z + r * d) % Q
    s = min(s, Q - s)
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def dice_creation(episode, timeout, chain):
    """The raw EpisodeMessage creating dice episode `episode` for test:player
    and test:house with the house's key from `house` and reveal_timeout
    `timeout`, with the player's and the house's consents (their signatures
    over the creation digest of engine/crypto.h, v2: for the chain `chain`;
    every named seat consents), as a hand-made transaction would carry it."""
    _, key, bind = house("house", "dice", episode, 1)
    params = pb(1, pb(3, timeout) + pb(4, key) + pb(5, bind))
    pubs = [pt_bytes(pt_mul(int.from_bytes(test_secret(n), "big"), G)) for n in ("player", "house")]
    digest = sha(b"kdapp/new-episode/v2" + bytes([len(chain)]) + chain.encode() + struct.pack(">I", episode) +
                 b"dice\0" + bytes([2]) + pubs[0] + pubs[1] + struct.pack(">I", len(params)) + params)
    player = pb(2, ecdsa_sign(test_secret("player"), digest))  # seat 0: a zero value, left out
    consent = pb(1, 1) + pb(2, ecdsa_sign(test_secret("house"), digest))
    new = pb(1, b"dice") + pb(2, pubs[0]) + pb(2, pubs[1]) + pb(3, params) + pb(4, player) + pb(4, consent)
    return pb(1, episode) + pb(2, new)


def main():
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if cmd == "vrf-vectors":
        vrf_vectors()
    elif cmd == "house" and len(args) == 4:
        _, pub, bind = house(args[0], args[1], int(args[2]), int(args[3]))
        print(pub.hex(), bind.hex())
    elif cmd == "prove" and len(args) in (6, 7):
        x, pub, _ = house(args[0], args[1], int(args[2]), int(args[3]))
        a = alpha(int(args[2]), int(args[4]), bytes.fromhex(args[5]), int(args[6]) if len(args) == 7 else 3)
        pi = vrf_prove(x, a)
        print(pi.hex(), vrf_verify(pub, a, pi).hex())
    elif cmd == "ask" and len(args) == 2:
        b = ask_bytes(args[0], json.loads(args[1]))
        print(sha(b).hex(), b.hex())
    elif cmd == "dice-creation" and len(args) == 3:
        print(dice_creation(int(args[0]), int(args[1]), args[2]).hex())
    elif cmd == "vrf-verify" and len(args) == 3:
        beta = vrf_verify(bytes.fromhex(args[0]), bytes.fromhex(args[1]), bytes.fromhex(args[2]))
        if beta is None:
            sys.exit("the proof does not verify")
        print(beta.hex())
    elif cmd == "verify" and args:
        log = [json.loads(line) for line in open(args[0]) if line.strip()]
        shows, audits = {}, []
        for path in args[1:]:
            doc = json.load(open(path))
            if "verdict" in doc:
                audits.append(doc)
            else:
                shows[doc["episode_id"]] = doc
        verify(log, shows, audits)
    else:
        sys.exit("usage: chance_check.py house|prove|ask|vrf-verify|verify|vrf-vectors ... (see the file's head)")


if __name__ == "__main__":
    main()
