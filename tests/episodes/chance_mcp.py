#!/usr/bin/env python3
"""chance_mcp.py KDAPP DATA_DIR KEYS_DIR — a dice episode through a real MCP
client session with `kdapp mcp --stdio` (embedded engine and devnet): the
session is granted agent1, the player, and the gateway plays the house with
agent2 (--house), so it commits and consents as the house at
kdapp_start_episode; the player's roll goes through kdapp_execute_command
without entropy (the gateway fills it); the house's reveal arrives by
itself (the gateway's duties); the result shows in the view, and the draw
is verified here from the log: the house's proof against the key the view
shows for the draw's input (the episode, draw 1, the SHA-256 of the roll's
bytes in the log, which the view showed pending), the dice from the VRF
output (chance_check.py's functions). Bounded polling,
no sleeps as synchronisation beyond the poll interval."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chance_check  # noqa: E402


def main():
    kdapp, data, keys = sys.argv[1:4]
    p = subprocess.Popen([kdapp, "mcp", "--stdio", "--data", data, "--keys", keys, "--grant", "agent1",
                          "--house", "agent2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=open(os.path.join(data + ".err"), "w"), text=True)
    next_id = [0]

    def call(method, params):
        next_id[0] += 1
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params}) + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("kdapp mcp closed its output")
            msg = json.loads(line)
            if msg.get("id") == next_id[0]:
                if "error" in msg:
                    sys.exit("%s: %s" % (method, msg["error"]))
                return msg["result"]

    def tool(name, args):
        r = call("tools/call", {"name": name, "arguments": args})
        if r.get("isError"):
            sys.exit("%s: %s" % (name, r["content"][0]["text"]))
        return r["structuredContent"]

    try:
        call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "chance_mcp", "version": "1"}})
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        p.stdin.flush()
        started = tool("kdapp_start_episode", {"type": "dice", "participants": ["agent1", "agent2"],
                                               "params": {"max_rolls": 3}})
        ep = started["episode_id"]
        key = started["view"]["house"]["key"]
        print("started dice episode %d; the house (agent2, the gateway) committed its VRF key %s" % (ep, key))
        r = tool("kdapp_execute_command", {"episode_id": ep, "command": {"roll": "2d6+3"}})
        assert r["legal"], r
        pending = r["view"]["house"]["pending"]["ask_sha256"]
        print("rolled 2d6+3; the gateway filled the entropy; the draw's input ends with %s" % pending)
        deadline = time.time() + 30
        while True:
            view = tool("kdapp_get_episode_state", {"episode_id": ep})
            if view.get("last_roll"):
                break
            if time.time() > deadline:
                sys.exit("the house's reveal did not come in 30 s: %s" % json.dumps(view))
            time.sleep(0.05)  # a poll interval, bounded above
        last = view["last_roll"]
        assert view["house"]["key"] == key, "the key does not change"
    finally:
        p.stdin.close()
        p.wait(timeout=30)
    # the house's proof from the log, verified here
    log = subprocess.run([kdapp, "log", "--data", data, "--json"], check=True, capture_output=True, text=True).stdout
    proof = ask = None
    for entry in (json.loads(line) for line in log.splitlines() if line.strip()):
        for tx in entry.get("txs", []):
            if tx.get("applied") and tx["episode"] == ep:
                raw = chance_check.one(chance_check.fields(chance_check.one(
                    chance_check.fields(bytes.fromhex(tx["payload"])), 3, b"")), 1, b"")
                cmd = chance_check.fields(raw)
                if 2 in cmd:
                    proof = chance_check.one(chance_check.fields(chance_check.one(cmd, 2)), 2)
                elif 1 in cmd and ask is None:
                    ask = chance_check.sha(raw)  # the roll's bytes
    assert proof and ask, "the roll and the house's reveal are in the log"
    assert ask.hex() == pending, "the view showed the SHA-256 of the roll's bytes pending"
    d = chance_check.vrf_verify(bytes.fromhex(key), chance_check.alpha(ep, 1, ask), proof)
    assert d is not None, "the house's proof verifies against the committed key"
    faces = chance_check.dice(d, 2, 6)
    assert last["dice"] == faces and last["total"] == sum(faces) + 3, (last, faces)
    print("the house revealed by itself: %s = %d, recomputed from its proof and the roll's bytes" % (
        last["dice"], last["total"]))
    print("ok")


if __name__ == "__main__":
    main()
