#!/usr/bin/env python3
"""Checks that every relative link of the repository's Markdown files resolves.

usage: check-doc-links.py [--root DIR] [FILE.md ...]

Without files it checks README.md and every .md file under docs/, bench/,
tasks/, test/ and training/ of DIR (default: the repository this script is
in). A link is `[text](target)` outside code blocks and inline code; links
with a scheme (https:, mailto:) are not checked. A relative target must name
an existing file or folder, relative to the linking file; a `#fragment` on a
Markdown target must name one of its headings, as GitHub makes anchors of
them (lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats).

Prints FILE:LINE: broken link TARGET (why) per broken link and a summary
line; exits 1 when a link is broken, so a moved file cannot leave a dangling
link behind.
"""
import argparse
import os
import re
import sys

from docscan import FENCE, default_files, lines

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(heading):
    text = re.sub(r"`|\*\*|__", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, names, fenced = {}, set(), False
        for line in open(path, encoding="utf-8"):
            if FENCE.match(line):
                fenced = not fenced
                continue
            m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                names.add(base if n == 0 else f"{base}-{n}")
        cache[path] = names
    return cache[path]


def links(path):
    for number, line, fenced in lines(path):
        if fenced:
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            yield number, m.group(1)


def check(path):
    broken = []
    for number, target in links(path):
        if SCHEME.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(dest):
            broken.append((number, target, "no such file"))
        elif fragment and dest.endswith(".md") and fragment not in anchors(dest):
            broken.append((number, target, f"no heading '#{fragment}' in {os.path.basename(dest)}"))
    return broken


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or default_files(args.root)
    total, bad = 0, 0
    for path in files:
        for number, target, why in check(path):
            print(f"{os.path.relpath(path, args.root)}:{number}: broken link {target} ({why})")
            bad += 1
        total += sum(1 for _ in links(path))
    print(f"{total} links checked in {len(files)} files: {bad} broken")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
