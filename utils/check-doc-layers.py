#!/usr/bin/env python3
"""Checks the layer picture of docs/design.md against the CMake files, and
that no include runs upward.

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

The includes follow the same layering: every `#include "ptxbench/..."`
(and every relative include into another folder) of a source in lib/ or
tools/, or of a header under include/ptxbench/, must name a header of its
own library or of one it links, directly or through others. A header
belongs to the library whose source includes it first (its own header,
`Foo.cpp` beginning with `Foo.h`), else to the library of the lib/ folder
its path names (include/ptxbench/Eval/X.h: lib/Eval).

One include is known and allowed, a header of plain types shared with a
library below its own without linking it (SHARED_TYPES).

Prints PAGE:LINE: what is wrong per layer mistake, FILE:LINE: per upward
include, and a summary line for each; exits 1 on any mistake.
"""
import argparse
import os
import re
import sys

DEFINE = re.compile(r"\badd_(?:\w+_)?(?:library|executable)\(\s*([\w.-]+)")
LINK = re.compile(r"\btarget_link_libraries\(\s*([\w.-]+)([^)]*)\)", re.S)
KEYWORD = re.compile(r"^[A-Z][A-Z_]+$")
TARGET = re.compile(r"^(PTXBench\w+|MLIR\w+|ptxbench[\w-]*)$")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
SOURCE = (".cpp", ".h", ".inc", ".def")
# {(header, the library including it): why it may}: headers of plain types,
# no code to link, that a lower library shares on purpose.
SHARED_TYPES = {
    ("ptxbench/Toolchain/PtxasLog.h", "PTXBenchReportData"):
        "KernelResources, a plain struct; nothing of the toolchain is linked",
}


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


def includes(path):
    """[(line number, included path)] of the quoted includes of `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return [(text.count("\n", 0, m.start()) + 1, m.group(1))
            for m in INCLUDE.finditer(text)]


def sources(root, folder):
    """The sources directly in `folder` (relative to root), sorted."""
    full = os.path.join(root, folder)
    return sorted(os.path.join(folder, n) for n in os.listdir(full)
                  if n.endswith(SOURCE) and os.path.isfile(os.path.join(full, n)))


def upward_includes(root, targets):
    """(count, [(file, line, message)]): the includes checked and those that
    name a header of a library their own does not link."""
    by_folder = {}
    for name, (folder, _) in targets.items():
        by_folder.setdefault(folder, set()).add(name)
    reach = {}

    def reached(name):
        if name not in reach:
            reach[name] = {name}
            for d in targets[name][1]:
                reach[name] |= reached(d)
        return reach[name]

    # Own headers: the first project include of Foo.cpp when it is Foo.h.
    own = {}
    for folder in sorted(by_folder):
        for src in sources(root, folder):
            if not src.endswith(".cpp"):
                continue
            first = [p for _, p in includes(os.path.join(root, src))
                     if p.startswith("ptxbench/")][:1]
            stem = os.path.splitext(os.path.basename(src))[0]
            if first and os.path.splitext(os.path.basename(first[0]))[0] == stem:
                own.setdefault(first[0], folder)

    def owner_of_path(included):
        """The lib/ folder a ptxbench/... include belongs to, or None."""
        if included in own:
            return own[included]
        parts = included.split("/")[1:-1]
        while parts:
            folder = os.path.join("lib", *parts)
            if folder in by_folder:
                return folder
            parts.pop()
        return None

    files = []
    for folder in sorted(by_folder):
        files += [(src, folder) for src in sources(root, folder)]
    top = os.path.join(root, "include", "ptxbench")
    for dirpath, dirs, names in os.walk(top):
        dirs.sort()
        for n in sorted(names):
            if n.endswith(SOURCE):
                rel = os.path.relpath(os.path.join(dirpath, n), os.path.join(root, "include"))
                owner = owner_of_path(rel)
                if owner:
                    files.append((os.path.join("include", rel), owner))
    count, mistakes = 0, []
    for src, folder in files:
        mine = set().union(*(reached(t) for t in by_folder[folder]))
        for number, included in includes(os.path.join(root, src)):
            if included.startswith("ptxbench/"):
                theirs = owner_of_path(included)
            else:
                place = os.path.normpath(os.path.join(os.path.dirname(src), included))
                theirs = os.path.dirname(place)
                if theirs == folder or theirs not in by_folder:
                    continue
            if theirs is None:
                continue
            count += 1
            if any((included, t) in SHARED_TYPES for t in by_folder[folder]):
                continue
            if not by_folder[theirs] & mine:
                names = " ".join(sorted(by_folder[theirs]))
                linker = " ".join(sorted(by_folder[folder]))
                mistakes.append((src, number, f"includes {included} of {names}, "
                                 f"which {linker} does not link"))
    return count, mistakes


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
    checked, upward = upward_includes(args.root, targets)
    for src, number, what in upward:
        print(f"{src}:{number}: {what}")
    print(f"{len(rows)} layers checked against {len(targets)} targets: {len(mistakes)} mistakes")
    print(f"{checked} includes checked: {len(upward)} upward")
    return 1 if mistakes or upward else 0


if __name__ == "__main__":
    sys.exit(main())
