#!/usr/bin/env python3
"""doc_links.py — every relative link of every Markdown file resolves.

  doc_links.py SOURCE_DIR

Walks SOURCE_DIR for *.md (skipping .git, node_modules and build* folders)
and checks each link written [text](target), ![alt](target) or as a
reference definition "[name]: target", outside code fences and code spans:

- a target with a scheme (https:, mailto:) is not followed;
- a path is taken relative to the file that holds it and must exist;
- an anchor (#name, or path.md#name) must be the slug of a heading of that
  file, made the way GitHub makes it: the heading's text without its
  Markdown (links keep their text, code spans their content, HTML tags go),
  lower-cased, every character that is not a letter, digit, space, hyphen
  or underscore removed, spaces turned to hyphens, and a repeated slug
  numbered -1, -2, ... in the order the headings come.

Prints every broken link as FILE:LINE: target: why, and exits 1 when there
is one, 0 when all resolve (saying how many were checked).
"""
import os
import re
import sys

SKIP_DIRS = {".git", "node_modules"}
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def md_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build"))
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(d, f)


def lines_outside_code(text):
    """(line number, line with code spans blanked) outside fenced blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield n, re.sub(r"(`+)(.+?)\1", lambda c: " " * len(c.group(0)), line)


def slug(heading):
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    t = re.sub(r"<[^>]+>", "", t)  # HTML tags go
    t = t.lower()
    t = "".join(ch for ch in t if ch.isalnum() or ch in " -_")
    return t.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, out = {}, set()
        fence = None
        for line in open(path, encoding="utf-8").read().split("\n"):
            m = FENCE.match(line)
            if m:
                fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
                continue
            h = HEADING.match(line) if fence is None else None
            if h:
                s = slug(h.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else "%s-%d" % (s, n))
        _anchors[path] = out
    return _anchors[path]


def check(root):
    broken, checked = [], 0
    for f in md_files(root):
        text = open(f, encoding="utf-8").read()
        for n, line in lines_outside_code(text):
            targets = [m.group(1) for m in LINK.finditer(line)]
            r = REFDEF.match(line)
            if r:
                targets.append(r.group(1))
            for t in targets:
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t):
                    continue
                checked += 1
                path, _, anchor = t.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
                where = "%s:%d: %s" % (os.path.relpath(f, root), n, t)
                if not os.path.exists(dest):
                    broken.append("%s: no such file %s" % (where, os.path.relpath(dest, root)))
                elif anchor:
                    if not dest.endswith(".md"):
                        broken.append("%s: an anchor into a file that is not Markdown" % where)
                    elif anchor not in anchors(dest):
                        broken.append("%s: %s has no heading whose slug is '%s'" %
                                      (where, os.path.relpath(dest, root), anchor))
    return broken, checked


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: doc_links.py SOURCE_DIR")
    broken, checked = check(sys.argv[1])
    for b in broken:
        print(b)
    if broken:
        print("doc_links: %d of %d links are broken" % (len(broken), checked))
        sys.exit(1)
    print("doc_links: all %d relative links resolve" % checked)


if __name__ == "__main__":
    main()
