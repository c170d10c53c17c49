"""What the documentation checks share: which Markdown files they read and
how they walk them (fenced blocks apart from prose).

Used by check-doc-links.py and check-doc-paths.py (both import it from the
folder they are in).
"""
import os
import re

FENCE = re.compile(r"^\s*(```|~~~)")
# The folders whose Markdown files are the documentation, beside README.md.
DOC_FOLDERS = ("docs", "bench", "tasks", "test", "training")


def default_files(root):
    """README.md and every .md file under DOC_FOLDERS of `root`, sorted."""
    files = [os.path.join(root, "README.md")]
    for top in DOC_FOLDERS:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md")]
    return [f for f in files if os.path.exists(f)]


def lines(path):
    """(line number, text, fenced) for every line of `path` but the fence
    lines themselves; `fenced` is True inside a ``` or ~~~ block."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            yield number, line, fenced
