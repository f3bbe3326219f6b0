"""gateway_proc.py — what the Python attack tests of `kdapp mcp --http`
share (http_slowloris.py, http_audit_flood.py): a scratch directory with
fresh keys, the gateway started on it with grants and read for its port and
the token of each grant, bounded waits, and its end, with the end of its
log after a failure. Environment: KDAPP (the binary), KD_TEST_TMP (the
scratch parent)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


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
