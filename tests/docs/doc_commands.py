#!/usr/bin/env python3
"""doc_commands.py — the commands the Markdown pages show still work.

  doc_commands.py SOURCE_DIR        (KDAPP: the kdapp binary; KD_TEST_TMP: scratch)

The rule, for every *.md under SOURCE_DIR (no .git, node_modules, build*):

- A *command* is a line of a fenced code block whose info string is sh,
  bash, shell, console or empty, that (after a "$ " prompt and any VAR=value
  assignments) starts with `kdapp`, a path ending in /kdapp or /nim_kdapp,
  `nim_kdapp`, or `tools/scripts/NAME`. In a block with "$ " lines only
  those are commands (the other lines are output). Lines ending in "\\"
  continue on the next; a trailing "# comment" and anything after a shell
  operator (|, &&, ;, &, >, <) are not part of the command.
- By default a block is *checked*: each kdapp command is run as
  `kdapp SUBCOMMAND ARGS... --help` on a scratch data and key directory.
  Options are parsed in order and --help comes last, so this exits 0 only
  when the subcommand exists and accepts every option and value the page
  gives it (a renamed or removed flag, or a value out of range, exits 2);
  nothing runs. A script must exist and be executable (scripts install
  packages or run for minutes, so they are not run).
- `<!-- doc-test: run -->` on the line before a block *runs* the block:
  bash -e in a fresh scratch directory where build/bin is the binaries'
  directory, proto/, tests/ and tools/ are the repository's, `kdapp` is
  on PATH, with a private XDG_RUNTIME_DIR (right under KD_TEST_TMP: a
  socket's path holds 107 bytes), so the
  default ./kdapp-data is new; it must exit 0 within 300 s; jobs it puts
  in the background are ended when it finishes. Its commands are checked
  as above too.
- `<!-- doc-test: skip REASON -->` on the line before a block skips it;
  the reason is printed.
- `<!-- doc-test: run -->` on the line before a Markdown table marks its
  rows as commands: each code span of a row that starts with `kdapp` is a
  command, checked as above. `doc_commands.py --tables SOURCE_DIR` runs
  them instead of the blocks: each row as a block of its own (in its own
  scratch directory, within 300 s), two rows at a time (the table of
  `kdapp play` commands for every type: tools/README.md).

The subcommand table of the front page (rows starting `| \\`kdapp NAME`)
is checked too: `kdapp NAME --help` must exit 0, every --flag the row
names must be in what it prints (the row's text has no values to parse
with), and every subcommand `kdapp --help` lists must have its row.

Prints each failure as FILE:LINE: command: why, and exits 1 on any.
"""
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from doc_links import md_files  # the same pages as the link check

FENCE = re.compile(r"^\s{0,3}(```+|~~~+)\s*([\w+-]*)")
SHELL_INFO = {"sh", "bash", "shell", "console", ""}
ANNOTATION = re.compile(r"^\s*<!--\s*doc-test:\s*(run|skip)\b\s*(.*?)\s*-->\s*$")
OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", "&>"}
ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
CODE_SPAN = re.compile(r"`([^`]+)`")


def blocks(path):
    """(first line number, info, annotation, [lines]) for each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ann = ANNOTATION.match(lines[i - 1]) if i > 0 else None
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(m.group(1)[:3]):
            body.append(lines[i])
            i += 1
        i += 1
        yield start + 1, m.group(2), (ann.group(1), ann.group(2)) if ann else None, body


def tables(path):
    """(first line number, [(line number, [command text])]) for each table
    annotated `run`: the code spans of each body row that start with kdapp."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        ann = ANNOTATION.match(lines[i])
        if not (ann and ann.group(1) == "run" and i + 1 < len(lines) and lines[i + 1].lstrip().startswith("|")):
            i += 1
            continue
        start, rows = i + 2, []
        i += 1
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            spans = [c for c in CODE_SPAN.findall(lines[i]) if re.match(r"^(kdapp|nim_kdapp) ", c)]
            if spans:
                rows.append((i + 1, spans))
            i += 1
        yield start, rows


def commands(start, body):
    """(line number, argv) of each command of a block."""
    prompt = any(l.startswith("$ ") for l in body)
    joined, n = [], 0
    while n < len(body):
        line, first = body[n], n
        while line.endswith("\\") and n + 1 < len(body):
            n += 1
            line = line[:-1] + " " + body[n].strip()
        joined.append((start + first, line))
        n += 1
    for num, line in joined:
        if prompt:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue  # not shell (a formula, JSON)
        while words and ASSIGN.match(words[0]):
            words.pop(0)
        if not words:
            continue
        prog = words[0]
        if not (prog in ("kdapp", "nim_kdapp") or prog.endswith("/kdapp") or prog.endswith("/nim_kdapp") or
                prog.startswith("tools/scripts/")):
            continue
        argv = []
        for w in words:
            if w in OPERATORS or w.startswith(">") or w.startswith("2>"):
                break
            argv.append(w)
        yield num, argv


def check_command(argv, bindir, scratch):
    """None when the command passes, else why not."""
    prog = argv[0]
    if prog.startswith("tools/scripts/"):
        path = os.path.join(SOURCE, prog)
        if not os.path.isfile(path):
            return "no such script"
        if not os.access(path, os.X_OK):
            return "the script is not executable"
        return None
    exe = os.path.join(bindir, os.path.basename(prog))
    if not os.path.exists(exe):
        return "no binary %s beside kdapp" % os.path.basename(prog)
    if len(argv) < 2:
        return "no subcommand"
    env = dict(os.environ, KDAPP_DATA=os.path.join(scratch, "data"), KDAPP_KEYS=os.path.join(scratch, "keys"),
               XDG_RUNTIME_DIR=os.path.join(scratch, "run"))
    try:
        p = subprocess.run([exe] + argv[1:] + ["--help"], env=env, cwd=scratch, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "`%s --help` did not answer within 30 s" % " ".join(argv)
    if p.returncode != 0:
        err = (p.stderr.strip().split("\n") or [""])[0]
        return "refused (exit %d): %s" % (p.returncode, err)
    return None


def run_block(body, bindir, scratch):
    work = tempfile.mkdtemp(prefix="run.", dir=scratch)
    os.makedirs(os.path.join(work, "build"))
    os.symlink(bindir, os.path.join(work, "build", "bin"))
    for d in ("proto", "tests", "tools"):  # what a block may name by its path in the repository
        os.symlink(os.path.abspath(os.path.join(SOURCE, d)), os.path.join(work, d))
    # The runtime directory holds the default ipc:// sockets, whose paths a
    # socket address limits to 107 bytes: right under KD_TEST_TMP (short
    # however deep the clone, tests/CMakeLists.txt), not in the scratch
    # directory, whose blocks may go deeper.
    run = tempfile.mkdtemp(prefix="kd-doc.", dir=os.environ.get("KD_TEST_TMP") or tempfile.gettempdir())
    env = dict(os.environ, XDG_RUNTIME_DIR=run, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    for k in ("KDAPP_DATA", "KDAPP_KEYS"):
        env.pop(k, None)
    script = "set -e\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT\n" + "\n".join(body) + "\n"
    try:
        p = subprocess.run(["bash", "-c", script], env=env, cwd=work, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "the block did not finish within 300 s"
    finally:
        shutil.rmtree(run, ignore_errors=True)
    if p.returncode != 0:
        tail = "\n    ".join((p.stdout + p.stderr).strip().split("\n")[-8:])
        return "the block exited %d; its last lines:\n    %s" % (p.returncode, tail)
    return None


def run_tables(bindir, scratch):
    """--tables: runs every row of the annotated tables; the failures."""
    jobs = []
    for f in md_files(SOURCE):
        rel = os.path.relpath(f, SOURCE)
        for start, rows in tables(f):
            if not rows:
                jobs.append(("%s:%d" % (rel, start), None))
            for num, spans in rows:
                jobs.append(("%s:%d" % (rel, num), spans))

    def one(job):
        where, spans = job
        if spans is None:
            return "%s: a table marked run has no kdapp command" % where
        why = run_block(spans, bindir, scratch)
        print("%s: ran %s: %s" % (where, " && ".join(spans), "ok" if not why else "FAILED"), flush=True)
        return "%s: %s" % (where, why) if why else None

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        failures = [x for x in pool.map(one, jobs) if x]
    return failures, len(jobs)


def main():
    global SOURCE
    args = sys.argv[1:]
    only_tables = args[:1] == ["--tables"]
    if only_tables:
        args = args[1:]
    if len(args) != 1 or not os.environ.get("KDAPP"):
        sys.exit("usage: KDAPP=path/to/kdapp doc_commands.py [--tables] SOURCE_DIR")
    SOURCE = args[0]
    bindir = os.path.dirname(os.path.abspath(os.environ["KDAPP"]))
    base = os.environ.get("KD_TEST_TMP") or tempfile.gettempdir()
    scratch = tempfile.mkdtemp(prefix="doc_commands.", dir=base)
    os.mkdir(os.path.join(scratch, "run"), 0o700)
    failures, checked, ran = [], 0, 0
    if only_tables:
        try:
            failures, ran = run_tables(bindir, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for x in failures:
            print(x)
        if failures:
            sys.exit("doc_commands --tables: %d of %d table rows fail" % (len(failures), ran))
        print("doc_commands --tables: %d table rows run" % ran)
        return
    try:
        for f in md_files(SOURCE):
            rel = os.path.relpath(f, SOURCE)
            for start, rows in tables(f):
                for num, spans in rows:
                    for span in spans:
                        for _, argv in commands(num, [span]):
                            checked += 1
                            why = check_command(argv, bindir, scratch)
                            if why:
                                failures.append("%s:%d: %s: %s" % (rel, num, " ".join(argv), why))
            for start, info, ann, body in blocks(f):
                if info not in SHELL_INFO:
                    continue
                if ann and ann[0] == "skip":
                    if not ann[1]:
                        failures.append("%s:%d: a skipped block must say why" % (rel, start))
                    print("%s:%d: skipped: %s" % (rel, start, ann[1]))
                    continue
                for num, argv in commands(start, body):
                    checked += 1
                    why = check_command(argv, bindir, scratch)
                    if why:
                        failures.append("%s:%d: %s: %s" % (rel, num, " ".join(argv), why))
                if ann and ann[0] == "run":
                    ran += 1
                    why = run_block(body, bindir, scratch)
                    print("%s:%d: ran the block: %s" % (rel, start, "ok" if not why else "FAILED"))
                    if why:
                        failures.append("%s:%d: %s" % (rel, start, why))
        front = os.path.join(SOURCE, "README.md")
        listed = subprocess.run([os.environ["KDAPP"], "--help"], capture_output=True, text=True).stdout
        listed = re.findall(r"^  ([a-z][a-z-]*) ", listed.split("commands:")[-1].split("\n\n")[0], re.M)
        if not listed:
            failures.append("kdapp --help lists no subcommands")
        rows = set()
        for num, line in enumerate(open(front, encoding="utf-8").read().split("\n"), 1):
            m = re.match(r"^\| `kdapp ([a-z][a-z-]*)", line)
            if m:
                rows.add(m.group(1))
                checked += 1
                why = check_command(["kdapp", m.group(1)], bindir, scratch)
                if why:
                    failures.append("README.md:%d: kdapp %s: %s" % (num, m.group(1), why))
                    continue
                usage = subprocess.run([os.environ["KDAPP"], m.group(1), "--help"], capture_output=True,
                                       text=True)
                usage = usage.stdout + usage.stderr  # a few subcommands print their help on stderr
                for flag in sorted(set(re.findall(r"--[a-z][a-z-]*", line))):
                    if not re.search(re.escape(flag) + r"(?![a-z-])", usage):
                        failures.append("README.md:%d: kdapp %s: %s is not in its --help" % (num, m.group(1), flag))
        for sub in listed:
            if sub not in rows:
                failures.append("README.md: kdapp %s (in kdapp --help) has no row in the subcommand table" % sub)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for x in failures:
        print(x)
    if failures:
        print("doc_commands: %d of %d commands fail" % (len(failures), checked))
        sys.exit(1)
    print("doc_commands: %d commands accepted, %d blocks run" % (checked, ran))


if __name__ == "__main__":
    main()
