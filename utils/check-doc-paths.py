#!/usr/bin/env python3
"""Checks that every repository path the documentation names exists.

usage: check-doc-paths.py [--root DIR] [FILE.md ...]

Without files it reads the Markdown files check-doc-links.py reads
(README.md and the .md files under docs/, bench/, tasks/, test/,
training/ of DIR, default: the repository this script is in).

A path is a word with a `/` in it. It looks like a repository path, and is
checked, when
  - it is in inline code (`lib/Runtime/Gpu.cpp`) and its first part names a
    top-level folder of DIR or its last part has an extension; or
  - it is in prose or in a fenced block and its first part names a
    top-level folder of DIR (links are check-doc-links.py's business).
It must name an existing file or folder, relative to DIR or to the folder of
the page. `<name>`, `*`, `$var` and `[optional]` parts are placeholders: such
a path must match at least one file (`tasks/<name>/task.json`); `a|b` names
alternatives, each checked; `X.cu.ptx` (the PTX ptxbench compiles from `X.cu`)
checks `X.cu`, and `file:line:col` checks the file.

Not checked, because they are not in the tree (the allowlist): URLs,
absolute paths, `~/...`, `$VAR/...`, and what ptxbench or the reader writes:
ALLOWED_PREFIXES below.

Prints FILE:LINE: missing path PATH per path that names nothing and a
summary line; exits 1 when a path is missing.
"""
import argparse
import glob
import os
import re
import sys

from docscan import default_files, lines

# Paths that are outputs or the reader's own files, never in the tree.
ALLOWED_PREFIXES = (
    "build/",         # the build folder: build/bin/ptxbench, build/docs/...
    "build-fuzz/",    # utils/fuzz.sh's build folder, seeds and reproducers
    "DIR/", "RUN/",   # --output-dir of training/sft.py
    "SAMPLES_DIR/",   # --out of generate
    "OUT/",           # a command's output folder
    "tasks/my_gemm",  # the task docs/tasks.md has the reader write
    "samples/", "results/", "gen-results/",  # the examples' sample trees and stores
    "site-packages/", "cutlass_library/",    # inside installed Python packages
)

SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]*$")
CODE = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\]\([^)]*\)")
WORD = re.compile(r"[^\s,;()=\"'`]+")


def placeholders(path):
    """`path` with its placeholders made glob patterns, without a
    diagnostic's `:line:col`, and for `X.cu.ptx` (the name ptxbench gives
    the PTX it compiles from `X.cu`) the source it comes from."""
    path = re.sub(r"(:[0-9]+)+$", "", path)  # file.ptx:12:3
    path = re.sub(r"\[[^\]]*\]", "", path)   # [.lineinfo|.G]
    path = re.sub(r"<[^>]*>", "*", path)     # <name>
    path = re.sub(r"\$\{?\w+\}?", "*", path)  # a shell variable: tasks/$t
    path = re.sub(r"\.cu\.ptx$", ".cu", path)
    return path.replace("...", "*")


def looks_like_path(word, tops, in_code):
    first = word.split("/", 1)[0]
    if first in tops:
        return True
    return in_code and bool(EXTENSION.search(word.rstrip("/")))


def exists(path, page_dir, root):
    for base in (root, page_dir):
        pattern = os.path.join(base, path)
        if any(c in path for c in "*?"):
            if glob.glob(pattern):
                return True
        elif os.path.exists(pattern):
            return True
    return False


def candidates(path, tops):
    """(line number, path) of every path worth checking in `path`."""
    for number, line, fenced in lines(path):
        spans = []
        if fenced:
            spans.append((line, False))
        else:
            for m in CODE.finditer(line):
                spans.append((m.group(1), True))
            spans.append((LINK.sub("]", CODE.sub(" ", line)), False))
        for text, in_code in spans:
            for word in WORD.findall(text):
                word = word.rstrip(".:!?")
                if "/" not in word or word.startswith(("/", "~", "$", "<", "-")):
                    continue
                if SCHEME.match(word) or word.startswith(ALLOWED_PREFIXES):
                    continue
                # A word inside <...> (an #include, a placeholder of its own)
                # or ending in one is not a path of this tree.
                if word.endswith(">") and "<" not in word:
                    continue
                for alternative in placeholders(word).split("|"):
                    if "/" in alternative and looks_like_path(alternative, tops, in_code):
                        yield number, word, alternative


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    files = args.files or default_files(root)
    tops = {d for d in os.listdir(root)
            if os.path.isdir(os.path.join(root, d)) and not d.startswith(".")} - {"build"}
    total, bad = 0, 0
    for page in files:
        page_dir = os.path.dirname(os.path.abspath(page))
        for number, word, alternative in candidates(page, tops):
            total += 1
            if not exists(alternative, page_dir, root):
                print(f"{os.path.relpath(page, root)}:{number}: missing path {word}")
                bad += 1
    print(f"{total} paths checked in {len(files)} files: {bad} missing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
