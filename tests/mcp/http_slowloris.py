#!/usr/bin/env python3
"""http_slowloris.py — issue 37's R4 against `kdapp mcp --http` ($KDAPP), as
it was done: 1,010 tokenless sockets from loopback, each sending one header
line every 8 s, and a granted agent (a --grant token) calling beside them.

On 826780f the tricklers took every connection (loopback was exempt from
the per-address cap, and each header byte restarted the 30 s idle timer),
so the granted call was never answered. Now:

  1. while the 1,010 tricklers are held for 20 s (each one the server
     closes is opened again a second later), a granted session is opened
     and a tool called, over and over: each is answered; so are the board
     page and /metrics, without a token;
  2. then the tricklers stop reopening but keep trickling: every one of them
     is closed, though none is ever silent for the idle timeout (the
     request deadline, 10 s by default, counts from the connection's
     opening whatever comes in).

No timed assertion: the waits are bounded only so that a failure ends
(ctest's timeout is generous); the granted call's time is printed. Exits
non-zero, with the gateway's log, on the first failure.
"""
import os
import resource
import select
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_proc import Fail, Gateway, Session, request, wait_for  # noqa: E402

TRICKLERS = 1010
LINE_EVERY_S = 8.0
REOPEN_S = 1.0
HOLD_S = 20.0  # beyond a request deadline (10 s) and a line (8 s)


class Tricklers:
    """TRICKLERS sockets on one thread (poll: more than select's 1,024
    descriptors); each sends a request line and Host, then one header line
    every LINE_EVERY_S. While `reopen` is set, a socket the server closed is
    opened again a second later (REOPEN_S), so that the attack holds its
    1,010 sockets as long as the server lets it."""

    def __init__(self, port):
        self.port = port
        self.lock = threading.Lock()
        self.reopen = True
        self.stop = False
        self.socks = {}  # fd -> [socket, connected, next_line_at, lines]
        self.opened = 0
        self.closed_by_server = 0
        self.ever_connected = 0
        self.reopen_at = []  # when each closed socket is opened again
        self.poll = select.poll()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open_one(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", self.port))
        self.socks[s.fileno()] = [s, False, 0.0, 0]
        self.poll.register(s.fileno(), select.POLLOUT | select.POLLIN)
        self.opened += 1

    def drop(self, fd):
        s = self.socks.pop(fd)[0]
        self.poll.unregister(fd)
        s.close()
        self.closed_by_server += 1
        if self.reopen and not self.stop:
            self.reopen_at.append(time.monotonic() + REOPEN_S)

    def open_count(self):
        with self.lock:
            return len(self.socks) + len(self.reopen_at)

    def run(self):
        with self.lock:
            for _ in range(TRICKLERS):
                self.open_one()
        while not self.stop:
            events = self.poll.poll(200)
            now = time.monotonic()
            with self.lock:
                while self.reopen_at and self.reopen_at[0] <= now:
                    self.reopen_at.pop(0)
                    if self.reopen:
                        self.open_one()
                for fd, ev in events:
                    slot = self.socks.get(fd)
                    if slot is None:
                        continue
                    s = slot[0]
                    if not slot[1] and ev & select.POLLOUT:
                        if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                            self.drop(fd)
                            continue
                        slot[1] = True
                        self.ever_connected += 1
                        self.poll.modify(fd, select.POLLIN)
                        slot[2] = now  # the request line at once
                    if ev & (select.POLLIN | select.POLLHUP | select.POLLERR):
                        try:
                            data = s.recv(4096)
                        except BlockingIOError:
                            continue
                        except OSError:
                            data = b""
                        if not data:
                            self.drop(fd)
                for fd, slot in list(self.socks.items()):
                    if not slot[1] or now < slot[2]:
                        continue
                    line = (b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" if slot[3] == 0 else
                            b"X-Trickle-%d: x\r\n" % slot[3])
                    try:
                        slot[0].send(line)
                    except OSError:
                        pass  # the next poll sees the end of the stream
                    slot[3] += 1
                    slot[2] = now + LINE_EVERY_S
        with self.lock:
            for slot in self.socks.values():
                slot[0].close()
            self.socks.clear()


def granted_call(port, token):
    """A session with the grant's token (initialize, notifications/initialized), then a tool call; its seconds."""
    t0 = time.monotonic()
    Session(port, token).tool("kdapp_get_agent_pubkeys", {})
    return time.monotonic() - t0


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096  # the gateway's 1,000 connections and its own 256, the tricklers, the rest
    if hard != resource.RLIM_INFINITY and hard < want:
        print("FAIL: the open-file limit is %d; this test needs %d (ulimit -n)" % (hard, want), file=sys.stderr)
        return 1
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))  # the gateway inherits it

    gw = None
    tricklers = None
    ok = False
    try:
        gw = Gateway("slowloris", ["agent1"], ["--grant", "agent1"])
        port, token = gw.port, gw.token("agent1")

        # 1. the tricklers, held; a granted call, the page and /metrics beside them
        tricklers = Tricklers(port)
        tricklers.thread.start()
        wait_for("every trickler to connect once", lambda: tricklers.ever_connected >= TRICKLERS, 120)
        times = []
        end = time.monotonic() + HOLD_S
        while time.monotonic() < end:
            times.append(granted_call(port, token))
            for path in ("/", "/metrics"):
                status = request(port, "GET", path)[0]
                if status != 200:
                    raise Fail("GET %s beside the tricklers answered %d" % (path, status))
            time.sleep(0.5)  # pacing the calls, not waiting for anything
        times.sort()
        print("%d granted calls (initialize and a tool call each) answered while %d trickling sockets were held "
              "for %.0f s: median %.0f ms, max %.0f ms; %d sockets opened, %d closed by the server" %
              (len(times), TRICKLERS, HOLD_S, times[len(times) // 2] * 1000, times[-1] * 1000, tricklers.opened,
               tricklers.closed_by_server))

        # 2. no more reopening: every trickler is closed, trickling as it is
        tricklers.reopen = False
        wait_for("the server to close every trickler (%d open)" % tricklers.open_count(),
                 lambda: tricklers.open_count() == 0, 120)
        print("every trickler was closed; %d connections in all" % tricklers.opened)
        ok = True
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
    finally:
        if tricklers is not None:
            tricklers.stop = True
            tricklers.thread.join()
        if gw is not None:
            gw.stop(ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
