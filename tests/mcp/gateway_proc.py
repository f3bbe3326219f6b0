"""gateway_proc.py — what the Python attack tests of `kdapp mcp --http`
share (http_slowloris.py, http_audit_flood.py): a scratch directory with
fresh keys, the gateway started on it with grants and read for its port and
the token of each grant, bounded waits, its end (with the end of its log
after a failure), a request on a new connection and a granted MCP session.
Environment: KDAPP (the binary), KD_TEST_TMP (the scratch parent)."""
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


CALL_TIMEOUT_S = 60.0  # a failure bound: on 826780f a granted call beside R4's flood never came back


class Fail(Exception):
    pass


def wait_for(what, cond, limit_s, pace_s=0.05):
    """Polls cond() until it holds; Fail after limit_s (a bound for a failure, not a timing)."""
    end = time.monotonic() + limit_s
    while not cond():
        if time.monotonic() > end:
            raise Fail("timed out after %.0f s waiting for %s" % (limit_s, what))
        time.sleep(pace_s)


class Gateway:
    """`kdapp mcp --http 127.0.0.1:0` on a fresh store, with `keys` made and
    the gateway's other arguments `args` (e.g. --grant agent1 --house
    house); .port, .token(grant) once started."""

    def __init__(self, prefix, keys, args):
        self.kdapp = os.environ["KDAPP"]
        parent = os.environ.get("KD_TEST_TMP", tempfile.gettempdir())
        os.makedirs(parent, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix=prefix + "-", dir=parent if len(parent) < 60 else "/tmp")
        self.env = dict(os.environ, XDG_RUNTIME_DIR=os.path.join(self.work, "run"))
        for k in ("KDAPP_DATA", "KDAPP_KEYS", "KDAPP_MCP_TOKEN"):
            self.env.pop(k, None)
        os.makedirs(self.env["XDG_RUNTIME_DIR"], mode=0o700)
        key_dir = os.path.join(self.work, "keys")
        for k in keys:
            subprocess.run([self.kdapp, "keygen", "--keys", key_dir, k], env=self.env, check=True,
                           stdout=subprocess.DEVNULL)
        self.out = os.path.join(self.work, "gw.out")
        self.err = os.path.join(self.work, "gw.err")
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.proc = subprocess.Popen([self.kdapp, "mcp", "--http", "127.0.0.1:0", *args,
                                          "--data", os.path.join(self.work, "data"), "--keys", key_dir],
                                         env=self.env, stdout=out, stderr=err)
        try:
            wait_for("the gateway to serve", lambda: "serving MCP on http:" in self.log(), 60)
        except Fail:
            self.stop(False)
            raise
        self.port = int(re.search(r"serving MCP on http://[^ ]*:(\d+)/mcp", self.log()).group(1))

    def log(self):
        with open(self.err) as f:
            return f.read()

    def token(self, grant):
        """The token the gateway printed for --grant `grant`."""
        with open(self.out) as f:
            m = re.search(r"^grant %s token ([0-9a-f]{64})$" % re.escape(grant), f.read(), re.M)
        if not m:
            raise Fail("the gateway printed no token for --grant %s" % grant)
        return m.group(1)

    def stop(self, ok):
        """Ends the gateway; after a failure, prints the end of its log. Removes the scratch directory."""
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if not ok:
            sys.stderr.write("--- gateway log (last 40 lines)\n" + "".join(self.log().splitlines(True)[-40:]))
        shutil.rmtree(self.work, ignore_errors=True)


def request(port, method, path, body=None, token=None, sid=None):
    """One request on a new connection (a JSON body when `body` is not
    None): (status, headers with lower-case names, body text). Fail when no
    answer comes within CALL_TIMEOUT_S."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CALL_TIMEOUT_S)
    headers = {}
    if body is not None:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if sid:
        headers["Mcp-Session-Id"] = sid
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        r = conn.getresponse()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read().decode()
    except (OSError, http.client.HTTPException) as e:
        what = " " + body["method"] if body is not None and "method" in body else ""
        raise Fail("%s %s%s: no answer within %.0f s (%s)" % (method, path, what, CALL_TIMEOUT_S, e))
    finally:
        conn.close()


class Session:
    """An MCP session on /mcp with `token` (initialize, then
    notifications/initialized); .tool(name, args) calls a tool and returns
    its structuredContent, Fail on an error."""

    def __init__(self, port, token):
        self.port, self.token, self.next_id = port, token, 1
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "granted", "version": "1"}}}
        status, headers, body = request(port, "POST", "/mcp", init, token)
        if status != 200 or "mcp-session-id" not in headers:
            raise Fail("initialize answered %d: %s" % (status, body[:300]))
        self.sid = headers["mcp-session-id"]
        request(port, "POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, token, self.sid)

    def tool(self, name, args):
        self.next_id += 1
        call = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                "params": {"name": name, "arguments": args}}
        status, _, body = request(self.port, "POST", "/mcp", call, self.token, self.sid)
        reply = json.loads(body) if status == 200 else {}
        result = reply.get("result", {})
        if status != 200 or "result" not in reply or result.get("isError"):
            raise Fail("%s answered %d: %s" % (name, status, body[:300]))
        return result.get("structuredContent", {})
