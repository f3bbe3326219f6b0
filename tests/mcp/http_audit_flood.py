#!/usr/bin/env python3
"""http_audit_flood.py — issue 37's R6 against `kdapp mcp --http` ($KDAPP),
as it was done: 16 tokenless threads ask for /api/episodes/{id}/audit of a
dice episode as fast as they can, while a granted agent (a --grant token)
calls tools and reads its own audit.

On 826780f every audit was served, each a replay of the whole log on one of
the two polling threads, and the granted agent's calls went from 2 ms to
3.9 s. Now the route has a rate per client (the token, else the address),
and all the clients without a token share one as well:

  1. the flood is answered 429 with Retry-After beyond the rate, and the
     audits it was served are within the rate for the time it ran (the
     tokenless clients' share: 16 a second, in bursts of 64);
  2. the granted agent's calls are all answered, and so is its own audit
     (its token has its own rate).

No timed assertion: the granted calls' times are printed; the waits are
bounded only so that a failure ends. Exits non-zero, with the gateway's
log, on the first failure.
"""
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_proc import Fail, Gateway, Session, request, wait_for  # noqa: E402

THREADS = 16
FLOOD_S = 8.0
TOKENLESS_PER_S, TOKENLESS_BURST = 16, 64  # the gateway's defaults (mcp/README.md "Capacity over HTTP")


def main():
    gw = None
    stop = threading.Event()
    ok = False
    try:
        gw = Gateway("auditflood", ["agent1", "agent2", "house"],
                     ["--grant", "agent1,agent2", "--house", "house"])
        port, token = gw.port, gw.token("agent1,agent2")

        s = Session(port, token)
        dice = s.tool("kdapp_start_episode", {"type": "dice"})["episode_id"]
        if not s.tool("kdapp_execute_command", {"episode_id": dice, "command": {"roll": "2d6"}}).get("legal"):
            raise Fail("the roll was refused")
        audit = "/api/episodes/%d/audit" % dice

        def revealed():
            status, _, body = request(port, "GET", audit, token=token)
            return status == 200 and len(json.loads(body)["audit"]["draws"]) == 1

        wait_for("the house's reveal in the audit", revealed, 60, pace_s=0.5)  # within the token's rate

        # 1. the flood, 16 tokenless threads
        counts = {"ok": 0, "limited": 0, "other": []}
        lock = threading.Lock()

        def flood():
            while not stop.is_set():
                try:
                    status, headers, body = request(port, "GET", audit)
                except Fail as e:
                    status, headers, body = 0, {}, str(e)
                with lock:
                    if status == 200:
                        counts["ok"] += 1
                    elif status == 429 and headers.get("retry-after", "").isdigit() and "Too Many Requests" in body:
                        counts["limited"] += 1
                    else:
                        counts["other"].append("%d %s" % (status, body[:200]))

        threads = [threading.Thread(target=flood, daemon=True) for _ in range(THREADS)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        # 2. the granted agent beside it
        times = []
        while time.monotonic() - t0 < FLOOD_S:
            t = time.monotonic()
            s.tool("kdapp_get_episode_state", {"episode_id": dice})
            times.append(time.monotonic() - t)
            status, _, _ = request(port, "GET", audit, token=token)
            if status != 200:
                raise Fail("the granted agent's own audit answered %d during the flood" % status)
            time.sleep(0.25)  # pacing the agent's calls (and its audits, within its rate), not waiting for anything
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        times.sort()
        print("%d tokenless threads for %.1f s: %d audits served, %d answered 429; %d granted calls beside them: "
              "median %.0f ms, max %.0f ms" % (THREADS, elapsed, counts["ok"], counts["limited"], len(times),
                                               times[len(times) // 2] * 1000, times[-1] * 1000))
        if counts["other"]:
            raise Fail("the flood got other answers: %s" % counts["other"][:3])
        if counts["limited"] == 0:
            raise Fail("no audit of the flood was refused (429 with Retry-After): the route has no rate")
        most = TOKENLESS_PER_S * elapsed + TOKENLESS_BURST
        if counts["ok"] > most:
            raise Fail("the flood was served %d audits in %.1f s, beyond the rate (%.0f)" %
                       (counts["ok"], elapsed, most))
        ok = True
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
    finally:
        stop.set()
        if gw is not None:
            gw.stop(ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
