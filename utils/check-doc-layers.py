#!/usr/bin/env python3
"""Checks the layer picture of docs/design.md against the CMake files.

usage: check-doc-layers.py [--root DIR] [--page PAGE.md]

The picture is the fenced block after the `<!-- layers -->` line of PAGE
(default DIR/docs/design.md): one line per target,

    NAME  FOLDER  -> DEP DEP ...  [+ what it takes from outside, prose]

with `-> (none)` for a target that links none of the project's libraries.
The targets are those the CMakeLists.txt files under DIR/lib and DIR/tools
define (add_*_library, add_*_executable); a target's dependencies are the
project targets its LINK_LIBS and target_link_libraries name. Each target
must have exactly one line, in the folder that defines it, naming exactly
its dependencies, each on an earlier line (the picture is a layering).

Prints PAGE:LINE: what is wrong, per mistake, and a summary line; exits 1
on any mistake.
"""
import argparse
import os
import re
import sys

DEFINE = re.compile(r"\badd_(?:\w+_)?(?:library|executable)\(\s*([\w.-]+)")
LINK = re.compile(r"\btarget_link_libraries\(\s*([\w.-]+)([^)]*)\)", re.S)
KEYWORD = re.compile(r"^[A-Z][A-Z_]+$")
TARGET = re.compile(r"^(PTXBench\w+|MLIR\w+|ptxbench[\w-]*)$")


def call_body(text, start):
    """The text from `start` (just after an opening parenthesis) to its
    matching closing one."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


def cmake_targets(root):
    """{name: (folder, set of linked names)} for lib/ and tools/."""
    targets, links = {}, {}
    for top in ("lib", "tools"):
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            if "CMakeLists.txt" not in names:
                continue
            with open(os.path.join(folder, "CMakeLists.txt"), encoding="utf-8") as f:
                text = re.sub(r"#[^\n]*", "", f.read())
            rel = os.path.relpath(folder, root)
            for m in DEFINE.finditer(text):
                name = m.group(1)
                targets[name] = rel
                words = call_body(text, m.end()).split()
                linked, on = set(), False
                for w in words:
                    if (KEYWORD.match(w) and not TARGET.match(w)
                            and w not in ("PUBLIC", "PRIVATE", "INTERFACE")):
                        on = w == "LINK_LIBS"
                    elif on and w not in ("PUBLIC", "PRIVATE", "INTERFACE"):
                        linked.add(w)
                links.setdefault(name, set()).update(linked)
            for m in LINK.finditer(text):
                links.setdefault(m.group(1), set()).update(m.group(2).split())
    return {n: (targets[n], links.get(n, set()) & set(targets)) for n in targets}


def picture(page):
    """[(line number, name, folder, deps)] of the block after <!-- layers -->."""
    rows, state = [], "before"
    with open(page, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if state == "before":
                state = "marker" if line.strip() == "<!-- layers -->" else state
            elif state == "marker":
                state = "in" if line.startswith("```") else "before"
            elif line.startswith("```"):
                break
            elif line.strip():
                words = line.split()
                if len(words) < 3 or words[2] != "->":
                    rows.append((number, None, line.strip(), set()))
                    continue
                deps = set()
                for w in words[3:]:
                    if w == "(none)" or not TARGET.match(w):
                        break
                    deps.add(w)
                rows.append((number, words[0], words[1], deps))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--page")
    args = parser.parse_args()
    page = args.page or os.path.join(args.root, "docs", "design.md")
    shown = os.path.relpath(page, args.root)
    targets = cmake_targets(args.root)
    rows = picture(page)
    mistakes = []
    if not rows:
        mistakes.append((0, "no layer picture (a fenced block after <!-- layers -->)"))
    seen = {}
    for number, name, folder, deps in rows:
        if name is None:
            mistakes.append((number, f"not a layer line (NAME FOLDER -> DEPS): {folder}"))
            continue
        if name in seen:
            mistakes.append((number, f"{name} has a line already (line {seen[name]})"))
            continue
        seen[name] = number
        if name not in targets:
            mistakes.append((number, f"{name} is no target of lib/ or tools/"))
            continue
        where, linked = targets[name]
        if folder != where:
            mistakes.append((number, f"{name} is defined in {where}, not {folder}"))
        for d in sorted(linked - deps):
            mistakes.append((number, f"{name} links {d}, which its line does not name"))
        for d in sorted(deps - linked):
            mistakes.append((number, f"{name} does not link {d}, which its line names"))
        for d in sorted(deps & linked):
            if d not in seen or seen[d] == number:
                mistakes.append((number, f"{name} names {d}, which has no line above it"))
    for name in sorted(set(targets) - set(seen)):
        mistakes.append((0, f"{name} ({targets[name][0]}) has no line"))
    for number, what in mistakes:
        print(f"{shown}:{number}: {what}")
    print(f"{len(rows)} layers checked against {len(targets)} targets: {len(mistakes)} mistakes")
    return 1 if mistakes else 0


if __name__ == "__main__":
    sys.exit(main())
