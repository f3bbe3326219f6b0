#!/usr/bin/env python3
"""reorg_replay.py — no draw a reorg can replay (issue 24, B5), on the devnet
through a real MCP session, at every reorg depth up to the store's finality
horizon:

  kdapp mcp --stdio --grant agent1 --house house   (embedded engine and devnet)
  for each depth d in 1..F:
    a roulette episode; agent1 bets; the house reveals by itself (its VRF
    proof, public in a block);
    `kdapp devnet-reorg --depth d --drop 1` reverts the last d blocks and
    drops every transaction in them;
    d = 1: only the reveal is gone; the bet still waits and the house's new
    reveal gives the same draw (the same output: it is the same ask);
    d >= 2: the bet is gone too; the attacker bets again, straight on the
    pocket the published output gives (what a replayed draw would pay). The
    new draw's output is another (it is computed from the new ask's
    entropy), so the bet wins only by chance.
  and a reorg one deeper than the horizon is refused.

Every output is taken from the house's proof in `kdapp log --json` and
recomputed here (chance_check.py's own VRF hash and kd_fair_below), not
from the engine's code.

  reorg_replay.py KDAPP DATA KEYS FINALITY
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chance_check  # noqa: E402

POCKETS = 38  # 0..36 and 00 (37)


def pocket_of(beta):
    p = chance_check.below(beta, POCKETS, {"used": 32, "counter": 0, "block": b""})
    return "00" if p == 37 else p


class Gateway:
    def __init__(self, kdapp, data, keys):
        self.p = subprocess.Popen([kdapp, "mcp", "--stdio", "--grant", "agent1", "--house", "house", "--data", data,
                                   "--keys", keys, "--block-ms", "20"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=open(data + ".err", "w"), text=True)
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "reorg_replay", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("kdapp mcp closed its output")
            msg = json.loads(line)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    sys.exit("%s: %s" % (method, msg["error"]))
                return msg["result"]

    def tool(self, name, args):
        r = self.call("tools/call", {"name": name, "arguments": args})
        if r.get("isError"):
            sys.exit("%s %s: %s" % (name, json.dumps(args), r["content"][0]["text"]))
        return r["structuredContent"]

    def view_until(self, ep, pred, what):
        deadline = time.time() + 30
        while True:
            view = self.tool("kdapp_get_episode_state", {"episode_id": ep})
            if pred(view):
                return view
            if time.time() > deadline:
                sys.exit("episode %d: %s did not happen in 30 s: %s" % (ep, what, json.dumps(view)))
            time.sleep(0.05)  # a poll interval, bounded above

    def close(self):
        self.p.stdin.close()
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


def reveal_outputs(kdapp, data, ep):
    """The VRF outputs of the house's reveals of episode `ep` in the log, in
    log order, each with whether its transaction applied on a block still on
    the canonical chain."""
    out = []
    for entry in read_log(kdapp, data):
        for tx in entry.get("txs", []):
            if tx.get("episode") != ep or not tx.get("payload"):
                continue
            signed = chance_check.one(chance_check.fields(bytes.fromhex(tx["payload"])), 3, b"")
            cmd = chance_check.fields(chance_check.one(chance_check.fields(signed), 1, b""))
            if 2 in cmd:  # RouletteCommand.reveal: HouseReveal{proof = 2}
                proof = chance_check.one(chance_check.fields(chance_check.one(cmd, 2)), 2)
                out.append((tx["canonical"], chance_check.vrf_hash(proof[:33])))
    return out


def reorg(kdapp, data, depth):
    return subprocess.run([kdapp, "devnet-reorg", "--data", data, "--depth", str(depth), "--drop", "1"],
                          capture_output=True, text=True)


def main():
    kdapp, data, keys, finality = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    gw = Gateway(kdapp, data, keys)
    wins = 0
    try:
        for depth in range(1, finality + 1):
            ep = gw.tool("kdapp_start_episode", {"type": "roulette", "participants": ["agent1", "house"],
                                                 "params": {"max_rounds": 10}})["episode_id"]
            created = [tx for e in read_log(kdapp, data) for tx in e.get("txs", [])
                       if tx["episode"] == ep and "params" in tx]
            # the params in effect: the ones given and the defaults filled in
            assert len(created) == 1 and created[0]["type"] == "roulette", created
            assert created[0]["params"]["max_rounds"] == 10 and created[0]["params"]["start_chips"] == 1000, created
            r = gw.tool("kdapp_execute_command", {"episode_id": ep, "command": {
                "bets": [{"kind": "straight", "number": 17, "amount": 10}]}})
            assert r["legal"], r
            view = gw.view_until(ep, lambda v: v["rounds"] == 1, "the house's reveal")
            published = [b for canonical, b in reveal_outputs(kdapp, data, ep) if canonical][-1]
            assert pocket_of(published) == view["last_pocket"], (pocket_of(published), view["last_pocket"])
            for _ in range(depth - 2):  # blocks after the reveal, so the reorg reaches back to the bet
                gw.tool("kdapp_start_episode", {"type": "tictactoe", "participants": ["agent1", "house"]})
            done = reorg(kdapp, data, depth)
            assert done.returncode == 0, done.stderr
            assert "reverted %d block" % depth in done.stdout, done.stdout
            if depth == 1:
                # the bet is still there: the house answers it again, the same draw
                view = gw.view_until(ep, lambda v: v["rounds"] == 1, "the house's new reveal")
                every = reveal_outputs(kdapp, data, ep)
                assert [c for c, _ in every] == [False, True], "the reverted reveal is marked, its re-answer is not"
                assert every[0][1] == every[1][1], "the same ask gets the same output"
                print("depth 1: the reveal was dropped; the bet's new reveal gives the same pocket %s" %
                      view["last_pocket"])
                continue
            view = gw.view_until(ep, lambda v: v["rounds"] == 0 and not v["pending_bets"], "the reorg")
            target = pocket_of(published)
            number = target if target != "00" else "00"
            r = gw.tool("kdapp_execute_command", {"episode_id": ep, "command": {
                "bets": [{"kind": "straight", "number": number, "amount": 10}]}})
            assert r["legal"], r
            view = gw.view_until(ep, lambda v: v["rounds"] == 1, "the house's reveal of the new bet")
            # (a reveal the duties thread sent while the reorg had only reverted
            # the reveal's block is refused once the bet's block is reverted too)
            every = reveal_outputs(kdapp, data, ep)
            canonical = [b for c, b in every if c]
            assert len(canonical) == 1 and published in [b for c, b in every if not c], every
            assert canonical[0] != published, "depth %d: the new bet's draw reused the published output" % depth
            assert pocket_of(canonical[0]) == view["last_pocket"]
            won = view["last_pocket"] == target
            wins += won
            print("depth %d: bet and reveal dropped; a straight bet on the published output's pocket %s got "
                  "pocket %s from a new output: %s" % (depth, target, view["last_pocket"],
                                                       "won by chance" if won else "lost"))
        refused = reorg(kdapp, data, finality + 1)
        assert refused.returncode != 0 and "finality" in (refused.stdout + refused.stderr), \
            (refused.stdout, refused.stderr)
        print("depth %d (beyond the finality horizon): refused" % (finality + 1))
    finally:
        gw.close()
    print("ok: no draw reused a published output at any depth from 2 to %d (%d won by chance)" % (finality, wins))


if __name__ == "__main__":
    main()
