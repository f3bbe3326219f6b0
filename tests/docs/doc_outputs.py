#!/usr/bin/env python3
"""doc_outputs.py — what the Markdown pages say the tool prints, it prints.

  doc_outputs.py SOURCE_DIR        (KDAPP: the kdapp binary; KD_TEST_TMP: scratch)

Two checks, each failure printed as FILE:LINE: why (exit 1 on any):

- `<!-- doc-test: output -->` on the line before a fenced block: its "$ "
  lines are commands, each followed by the output it prints (stdout and
  stderr together, whatever its exit code). Each command runs under bash in
  a fresh scratch directory (as doc_commands.py runs a block: `kdapp` on
  PATH, a private XDG_RUNTIME_DIR, a new ./kdapp-data), and its output must
  be the documented lines, one for one; a "…" in a documented line matches
  any text (a time, a rate, a random id).
- Rule codes: each episodes/<type>/README.md lists, in its "Rule codes"
  paragraph (or a "Rule codes" section's table, a code a row), every
  code the type's rules refuse with, and no other, as
  kdapp://types lists them (the gateway's resource, read over stdio).
  Retired codes the paragraph names after "Retired" are left out.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from doc_links import md_files  # the same pages as the link check

ANNOTATION = re.compile(r"^\s*<!--\s*doc-test:\s*output\s*-->\s*$")
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")


def output_blocks(path):
    """(line of the first body line, [body lines]) of each annotated block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if ANNOTATION.match(line) and i + 1 < len(lines) and FENCE.match(lines[i + 1]):
            j, body = i + 2, []
            while j < len(lines) and not FENCE.match(lines[j]):
                body.append(lines[j])
                j += 1
            out.append((i + 3, body))
    return out


def matches(doc, got):
    pattern = "^" + ".*".join(re.escape(p) for p in doc.split("…")) + "$"
    return re.match(pattern, got) is not None


def run_output_block(start, body, bindir, scratch):
    """The failures of one block: each "$ " command against its lines."""
    cases, failures = [], []
    for k, line in enumerate(body):
        if line.startswith("$ "):
            cases.append([start + k, line[2:], []])
        elif cases:
            cases[-1][2].append(line)
    work = tempfile.mkdtemp(prefix="out.", dir=scratch)
    run = tempfile.mkdtemp(prefix="kd-doc.", dir="/tmp")  # socket paths hold 107 bytes
    env = dict(os.environ, XDG_RUNTIME_DIR=run, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    for k in ("KDAPP_DATA", "KDAPP_KEYS", "KDAPP_LOG"):
        env.pop(k, None)
    try:
        for num, cmd, want in cases:
            while want and not want[-1].strip():
                want.pop()
            try:
                p = subprocess.run(["bash", "-c", cmd], env=env, cwd=work, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
                got = p.stdout.rstrip("\n").split("\n") if p.stdout.strip() else []
            except subprocess.TimeoutExpired:
                failures.append((num, "%s: did not finish within 300 s" % cmd))
                continue
            if len(got) != len(want) or not all(matches(w, g) for w, g in zip(want, got)):
                failures.append((num, "%s: prints\n    %s\n  where the page says\n    %s" %
                                 (cmd, "\n    ".join(got), "\n    ".join(want))))
    finally:
        shutil.rmtree(run, ignore_errors=True)
    return failures


def type_codes(kdapp, scratch):
    """{type: set of rule codes} from kdapp://types."""
    d = tempfile.mkdtemp(prefix="types.", dir=scratch)
    p = subprocess.Popen([kdapp, "mcp", "--stdio", "--quiet", "--data", os.path.join(d, "data"), "--keys",
                          os.path.join(d, "keys")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "doc_outputs", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "kdapp://types"}}]
    out, _ = p.communicate("\n".join(json.dumps(m) for m in msgs) + "\n", timeout=120)
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("id") == 2:
            types = json.loads(m["result"]["contents"][0]["text"])["types"]
            return {t["name"]: {c["code"] for c in t["rule_codes"]} for t in types}
    sys.exit("doc_outputs: kdapp mcp --stdio answered no kdapp://types")


def readme_codes(path):
    """(line, set of codes) of the page's "Rule codes" paragraph, or of its
    "Rule codes" section's table (the code in each row's first cell), or None."""
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if re.search(r"\*\*Rule codes", line):
            text, j = line, i + 1
            while j < len(lines) and lines[j].strip() and not re.match(r"^\s*[-*] \*\*|^\s*\*\*", lines[j]):
                text += " " + lines[j]
                j += 1
            text = re.split(r"\bRetired\b", text)[0]
            text = re.sub(r"\([^)]*\)", "", text)  # an explanation in parentheses names no code of its own
            return i + 1, set(re.findall(r"`([a-z][a-z_]*)`", text))
        if re.match(r"^#+ .*\brule codes\b", line, re.I):  # or a section with a table: a code a row
            codes, j = set(), i + 1
            while j < len(lines) and not lines[j].startswith("#"):
                m = re.match(r"^\| `([a-z][a-z_]*)` \|", lines[j])
                if m:
                    codes.add(m.group(1))
                j += 1
            if codes:
                return i + 1, codes
    return None


def main():
    if len(sys.argv) != 2 or not os.environ.get("KDAPP"):
        sys.exit("usage: KDAPP=path/to/kdapp doc_outputs.py SOURCE_DIR")
    source = sys.argv[1]
    kdapp = os.path.abspath(os.environ["KDAPP"])
    bindir = os.path.dirname(kdapp)
    base = os.environ.get("KD_TEST_TMP") or tempfile.gettempdir()
    scratch = tempfile.mkdtemp(prefix="doc_outputs.", dir=base)
    failures, ran = [], 0
    try:
        for f in md_files(source):
            rel = os.path.relpath(f, source)
            for start, body in output_blocks(f):
                ran += 1
                for num, why in run_output_block(start, body, bindir, scratch):
                    failures.append("%s:%d: %s" % (rel, num, why))
        codes = type_codes(kdapp, scratch)
        for name, want in sorted(codes.items()):
            page = os.path.join(source, "episodes", name, "README.md")
            if not os.path.exists(page):
                continue
            got = readme_codes(page)
            rel = os.path.relpath(page, source)
            if not got:
                failures.append("%s: no **Rule codes** paragraph (the type answers %s)" % (rel, ", ".join(sorted(want))))
                continue
            if got[1] != want:
                failures.append("%s:%d: the rule codes differ from kdapp://types: missing %s; not the type's %s" %
                                (rel, got[0], sorted(want - got[1]) or "none", sorted(got[1] - want) or "none"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for x in failures:
        print(x)
    if failures:
        sys.exit("doc_outputs: %d failures (%d output blocks run, %d types' rule codes compared)" %
                 (len(failures), ran, len(codes)))
    print("doc_outputs: %d output blocks match, %d types' rule codes listed" % (ran, len(codes)))


if __name__ == "__main__":
    main()
