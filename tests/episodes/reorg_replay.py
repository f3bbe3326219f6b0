#!/usr/bin/env python3
"""reorg_replay.py — no draw a reorg can replay, no ask a reorg can take
back (issue 24, B5; issue 37, R1), on a real devnet (`kdapp up`) through
real gateways over HTTP:

  H  kdapp mcp --http --grant agent1 --house house   (the house, and agent1's token)
  P  kdapp mcp --http --grant agent1                 (agent1 alone: the player's own gateway)

both attached to the running engine and devnet. Roulette, as R1 tells it:

  1. the reveal depth: agent1 bets 1 on red with entropy E; the house (H)
     reveals only once the bet's block is its reveal depth (2 on the
     devnet) deep: the reveal's block is at least 3 DAA score after the
     bet's (on 826780f it came in the next block); the view states the
     house's terms and the claim deadline counts from there;
  2. no free withdrawal: `kdapp devnet-reorg --drop 1` takes back every
     block from the bet's to the tip, the reveal with it; nobody bets: the
     house sends the player's own signed bet again, the same bytes, and
     reveals it again with the same output (on 826780f the bet was gone);
  3. R1: a new episode, bet 1 on red with E, the house reveals pocket P;
     the house's gateway is stopped (SIGSTOP: it cannot send anything),
     the reorg drops bet and reveal, and agent1 bets all its chips
     straight on P with the same E through its own gateway (P); the house
     comes back and answers the changed bet: its output is another (the
     draw's input is the SHA-256 of the bet's bytes), so the straight bet
     wins only by chance (on 826780f: the published output, P again,
     1,000 -> 36,000 chips);

and a reorg deeper than the store's finality is refused. Every output is
taken from the house's proof in `kdapp log --json` and recomputed here
(chance_check.py's VRF hash and kd_fair_below), not from the engine's code.

  reorg_replay.py KDAPP DATA KEYS FINALITY TMPDIR
"""
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chance_check  # noqa: E402

POCKETS = 38  # 0..36 and 00 (37)
E = "e1" * 32  # the player's entropy, the same in every bet here
DEPTH = 2  # the devnet's default reveal depth (KD_HOUSE_DEPTH_DEVNET)


def pocket_of(beta):
    p = chance_check.below(beta, POCKETS, {"used": 32, "counter": 0, "block": b""})
    return "00" if p == 37 else p


def wait(what, pred, limit=60):
    deadline = time.time() + limit
    while True:
        got = pred()
        if got:
            return got
        if time.time() > deadline:
            sys.exit("%s did not happen in %d s" % (what, limit))
        time.sleep(0.05)  # a poll interval, bounded above


class Gateway:
    """`kdapp mcp --http 127.0.0.1:0` attached to the running devnet, and one
    MCP session on it with the first grant's bearer token."""

    def __init__(self, kdapp, data, keys, args, log):
        self.err = log
        self.p = subprocess.Popen([kdapp, "mcp", "--http", "127.0.0.1:0", "--data", data, "--keys", keys] + args,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
        token = self.p.stdout.readline()
        m = re.match(r"grant \S+ token ([0-9a-f]{64})$", token.strip())
        if not m:
            sys.exit("the gateway printed no token: %r (%s)" % (token, open(log).read()))
        self.token = m.group(1)
        self.port = int(wait("the gateway's address", lambda: re.search(
            r"serving MCP on http://127\.0\.0\.1:(\d+)/mcp", open(log).read()), 30).group(1))
        self.session = None
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "reorg_replay", "version": "1"}})
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, body):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": "Bearer " + self.token}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        for _ in range(100):
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            c.request("POST", "/mcp", json.dumps(body), headers)
            r = c.getresponse()
            text = r.read().decode()
            c.close()
            if r.status == 429:  # the call rate: try again after the time it names
                time.sleep(float(r.getheader("Retry-After", "1")))
                continue
            self.session = self.session or r.getheader("Mcp-Session-Id")
            if r.status == 202:
                return None
            if r.status != 200:
                sys.exit("HTTP %d: %s" % (r.status, text))
            if r.getheader("Content-Type", "").startswith("text/event-stream"):
                text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
            return json.loads(text)
        sys.exit("the gateway kept answering 429")

    def call(self, method, params):
        self.next_id += 1
        msg = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        if "error" in msg:
            sys.exit("%s: %s" % (method, msg["error"]))
        return msg["result"]

    def tool(self, name, args, legal=True):
        r = self.call("tools/call", {"name": name, "arguments": args})
        if r.get("isError"):
            sys.exit("%s %s: %s" % (name, json.dumps(args), r["content"][0]["text"]))
        sc = r["structuredContent"]
        if legal is not None and name == "kdapp_execute_command" and sc.get("legal") != legal:
            sys.exit("%s %s: legal is not %s: %s" % (name, json.dumps(args), legal, json.dumps(sc)))
        return sc

    def view(self, ep):
        return self.tool("kdapp_get_episode_state", {"episode_id": ep})

    def view_until(self, ep, pred, what):
        return wait("episode %d: %s" % (ep, what), lambda: (lambda v: v if pred(v) else None)(self.view(ep)))

    def close(self):
        self.p.send_signal(signal.SIGCONT)
        self.p.terminate()
        self.p.wait(timeout=30)


def read_log(kdapp, data):
    """`kdapp log --json`, checked for what it says of the chain: every
    reverted block names the revert that undid it, which names it back with
    the same block hash, and its transactions are not canonical."""
    log = subprocess.run([kdapp, "log", "--data", data, "--json"], check=True, capture_output=True, text=True).stdout
    entries = [json.loads(line) for line in log.splitlines() if line.strip()]
    by_seq = {e["seq"]: e for e in entries}
    for e in entries:
        if e["kind"] != "accept" or e["status"] != "applied":
            continue
        undone = e["reverted_by"]
        assert e["canonical"] == (undone is None), e
        if undone is not None:
            r = by_seq[undone]
            assert r["kind"] == "revert" and r["reverts"] == e["seq"] and r["block"] == e["block"], (e, r)
        assert all(tx["canonical"] == (tx["applied"] and e["canonical"]) for tx in e.get("txs", [])), e
    return entries


def episode_txs(kdapp, data, ep):
    """The applied transactions of episode `ep` in log order: (canonical,
    block DAA, payload bytes, kind, the command's bytes, the VRF output of
    a reveal or None)."""
    out = []
    for entry in read_log(kdapp, data):
        for tx in entry.get("txs", []):
            if tx.get("episode") != ep or not tx.get("applied") or not tx.get("payload"):
                continue
            payload = bytes.fromhex(tx["payload"])
            raw = chance_check.one(chance_check.fields(chance_check.one(chance_check.fields(payload), 3, b"")), 1, b"")
            cmd = chance_check.fields(raw)
            kind, beta = "other", None
            if 1 in cmd:
                kind = "bets"
            elif 2 in cmd:  # RouletteCommand.reveal: HouseReveal{proof = 2}
                kind = "reveal"
                beta = chance_check.vrf_hash(chance_check.one(chance_check.fields(chance_check.one(cmd, 2)), 2)[:33])
            out.append({"canonical": tx["canonical"], "daa": entry["daa"], "payload": payload, "kind": kind,
                        "raw": raw, "beta": beta})
    return out


def blocks_since(kdapp, data, daa):
    """The canonical blocks from the one at DAA score `daa` to the tip."""
    return sum(1 for e in read_log(kdapp, data) if e["kind"] == "accept" and e["status"] == "applied" and
               e["canonical"] and e["daa"] >= daa)


def reorg(kdapp, data, depth):
    return subprocess.run([kdapp, "devnet-reorg", "--data", data, "--depth", str(depth), "--drop", "1"],
                          capture_output=True, text=True)


def bet_and_reveal(kdapp, data, gw, bets):
    """A roulette episode started through `gw`, a bet with entropy E, the
    house's reveal: (episode, its transactions)."""
    ep = gw.tool("kdapp_start_episode", {"type": "roulette", "participants": ["agent1", "house"],
                                         "params": {"max_rounds": 10}})["episode_id"]
    gw.tool("kdapp_execute_command", {"episode_id": ep, "command": {"bets": bets, "entropy": E}})
    gw.view_until(ep, lambda v: v["rounds"] == 1, "the house's reveal")
    return ep, episode_txs(kdapp, data, ep)


def part_depth(kdapp, data, house, player):
    """1. the house reveals only once the bet is its reveal depth deep."""
    red = [{"kind": "red", "amount": 1}]
    ep = house.tool("kdapp_start_episode", {"type": "roulette", "participants": ["agent1", "house"],
                                            "params": {"max_rounds": 10}})["episode_id"]
    terms = house.view(ep)["house"]
    assert terms.get("draw_input") == 3 and terms.get("reveal_depth") == DEPTH, \
        "the house's terms: draw input 3, reveal depth %d: %s" % (DEPTH, terms)
    r = house.tool("kdapp_execute_command", {"episode_id": ep, "command": {"bets": red, "entropy": E}})
    pending = r["view"]["house"]["pending"]
    assert pending is None or (pending["reveal_from_daa"] == pending["asked_daa"] + DEPTH and
                               pending["deadline_daa"] == pending["asked_daa"] + DEPTH + 600), pending
    house.view_until(ep, lambda v: v["rounds"] == 1, "the house's reveal")
    txs = episode_txs(kdapp, data, ep)
    bet, reveal = [t for t in txs if t["kind"] == "bets"][0], [t for t in txs if t["kind"] == "reveal"][0]
    assert reveal["daa"] >= bet["daa"] + DEPTH + 1, \
        "the house revealed at DAA %d an ask of DAA %d: not %d deep" % (reveal["daa"], bet["daa"], DEPTH)
    print("1. the house revealed the bet of DAA %d at DAA %d (depth %d): pocket %s" % (
        bet["daa"], reveal["daa"], DEPTH, pocket_of(reveal["beta"])))


def part_resubmit(kdapp, data, house, player):
    """2. a reorg drops the answered bet; the house sends it again."""
    ep, txs = bet_and_reveal(kdapp, data, house, [{"kind": "red", "amount": 1}])
    bet = [t for t in txs if t["kind"] == "bets"][0]
    published = [t for t in txs if t["kind"] == "reveal"][0]["beta"]
    depth = blocks_since(kdapp, data, bet["daa"])
    done = reorg(kdapp, data, depth)
    assert done.returncode == 0, done.stderr
    house.view_until(ep, lambda v: v["rounds"] == 1, "the house sends the dropped bet again and reveals it")
    txs = episode_txs(kdapp, data, ep)
    bets = [t for t in txs if t["kind"] == "bets"]
    reveals = [t for t in txs if t["kind"] == "reveal" and t["canonical"]]
    assert len(bets) == 2 and not bets[0]["canonical"] and bets[1]["canonical"], bets
    assert bets[1]["payload"] == bets[0]["payload"], "the player's own signed bet, byte for byte"
    assert len(reveals) == 1 and reveals[0]["beta"] == published, "the same ask, the same draw"
    print("2. a depth-%d reorg dropped the bet and its reveal; the house sent the player's signed bet again "
          "(DAA %d) and revealed pocket %s again" % (depth, bets[1]["daa"], pocket_of(reveals[0]["beta"])))


def part_r1(kdapp, data, house, player):
    """3. R1: the same entropy, the bets changed, the house away."""
    ep, txs = bet_and_reveal(kdapp, data, house, [{"kind": "red", "amount": 1}])
    bet = [t for t in txs if t["kind"] == "bets"][0]
    published = [t for t in txs if t["kind"] == "reveal"][0]["beta"]
    target = pocket_of(published)
    house.p.send_signal(signal.SIGSTOP)  # the house is away: it sends nothing
    try:
        depth = blocks_since(kdapp, data, bet["daa"])
        done = reorg(kdapp, data, depth)
        assert done.returncode == 0, done.stderr
        chips = player.view_until(ep, lambda v: v["rounds"] == 0 and not v["pending_bets"], "the reorg")["chips"]
        allin = [{"kind": "straight", "number": target, "amount": chips}]
        player.tool("kdapp_execute_command", {"episode_id": ep, "command": {"bets": allin, "entropy": E}})
    finally:
        house.p.send_signal(signal.SIGCONT)
    view = player.view_until(ep, lambda v: v["rounds"] == 1, "the house's reveal of the changed bet")
    txs = episode_txs(kdapp, data, ep)
    canonical = [t for t in txs if t["kind"] == "reveal" and t["canonical"]]
    changed = [t for t in txs if t["kind"] == "bets" and t["canonical"]]
    assert len(changed) == 1 and changed[0]["raw"] != bet["raw"], "the changed bet is the one on the chain"
    assert len(canonical) == 1 and canonical[0]["beta"] != published, \
        "R1: the changed bet with the same entropy got the published output back: pocket %s, %d chips" % (
            target, view["chips"])
    assert pocket_of(canonical[0]["beta"]) == view["last_pocket"]
    won = view["last_pocket"] == target
    print("3. R1: bet 1 on red with entropy %s..., pocket %s published; a depth-%d reorg dropped both; %d chips "
          "straight on %s with the same entropy got pocket %s from another output: %s (%d chips)" % (
              E[:8], target, depth, chips, target, view["last_pocket"], "won by chance" if won else "lost",
              view["chips"]))


def main():
    kdapp, data, keys, finality, tmp = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    house = Gateway(kdapp, data, keys, ["--grant", "agent1", "--house", "house"], os.path.join(tmp, "house.err"))
    player = Gateway(kdapp, data, keys, ["--grant", "agent1"], os.path.join(tmp, "player.err"))
    failed = []
    try:
        for part in (part_depth, part_resubmit, part_r1):
            try:
                part(kdapp, data, house, player)
            except (AssertionError, SystemExit) as e:  # each part on its own: report them all
                failed.append(part.__doc__.split("\n")[0])
                print("FAIL %s: %s" % (part.__name__, e), file=sys.stderr)
        refused = reorg(kdapp, data, finality + 1)
        if refused.returncode == 0 or "finality" not in refused.stdout + refused.stderr:
            failed.append("a reorg beyond the finality horizon is refused")
        else:
            print("a reorg of depth %d (beyond the finality horizon) is refused" % (finality + 1))
    finally:
        house.close()
        player.close()
    if failed:
        sys.exit("failed: " + "; ".join(failed))
    print("ok: the house waits for its depth, sends a dropped answered ask again, and a changed ask draws anew")


if __name__ == "__main__":
    main()
