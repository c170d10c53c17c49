#!/usr/bin/env python3
"""Compiles or assembles every code snippet of the architecture documents.

usage: check-doc-snippets.py [--ptxas BIN] [--nvcc BIN] [-j N] [-v] DOC...

The document's architecture comes from its file name (docs/arch/sm_90a.md ->
sm_90a). Every fenced block must carry one of these tags:

  cuda          a complete CUDA C++ translation unit. Compiled with
                `nvcc -std=c++17 --ptx -arch=compute_XX`, then the PTX is
                assembled with `ptxas -arch=sm_XX`, because nvcc does not look
                inside inline asm and only ptxas rejects a bad asm string.
  ptx           a complete PTX module (.version/.target first); assembled
                with `ptxas -arch=sm_XX`.
  ptx-fragment  instructions only. Leading comment lines declare what they
                need and the checker wraps them in a kernel:
                  // module: <PTX at module scope, e.g. .shared variables>
                  // regs: <declarations inside the kernel, e.g. .reg .b32 %r<4>;>
                Labels, predicates and `{ }` scopes are allowed in the body.
  text          prose or output shown verbatim; listed as SKIP, never compiled.

An untagged block or a block with any other tag fails: a snippet can never be
skipped silently. ptxas warnings fail a snippet too, unless the snippet names
the expected warning in a comment line `// expect-warning: <substring>`.

Prints one line per block (FILE:LINE: PASS|FAIL|SKIP <tag> [first error]),
then a summary line; exits 1 on any failure.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHECKED = ("cuda", "ptx", "ptx-fragment")
PTX_VERSION = "8.7"


def find_tool(name, given):
    if given:
        return given
    found = shutil.which(name)
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.path.exists(os.path.join(root, "bin", name)):
            return os.path.join(root, "bin", name)
    return None


def arch_of(doc):
    m = re.search(r"sm_(\d+[a-z]?)", os.path.basename(doc))
    return m.group(1) if m else None


def extract(doc):
    """Yields (line, tag, text) for every fenced block; line is the fence's line."""
    blocks = []
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)", lines[i])
        if not m:
            i += 1
            continue
        fence, tag, start = m.group(2), m.group(3), i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            blocks.append((start, tag, None))  # unterminated
        else:
            blocks.append((start, tag, "\n".join(body) + "\n"))
        i += 1
    return blocks


def first_error(text):
    # Drop the temporary file name: "ptxas /tmp/.../x.ptx, line 6; error : ..." -> "line 6; error : ..."
    text = re.sub(r"(?m)^(ptxas )?\S*check-doc-snippets\.[^/\s]+/\S+?(, |: |:(?=\d))", "", text)
    for line in text.splitlines():
        if re.search(r"error|fatal", line, re.I):
            return line.strip()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[0] if lines else "(no message)"


def expected_warnings(text):
    return re.findall(r"//\s*expect-warning:\s*(.+?)\s*$", text, re.M)


def warnings_ok(stderr, snippet):
    """Every ptxas warning must be expected by the snippet, and every expected one seen."""
    expected = expected_warnings(snippet)
    warns = [l.strip() for l in stderr.splitlines()
             if re.search(r"warning|Performance", l, re.I)]
    for w in warns:
        if not any(e in w for e in expected):
            return "unexpected warning: " + w
    for e in expected:
        if not any(e in w for w in warns):
            return "expected warning not seen: " + e
    return None


def wrap_fragment(body, arch, name):
    module, regs, rest = [], [], []
    for line in body.splitlines():
        m = re.match(r"^\s*//\s*(module|regs):\s*(.*)$", line)
        if m and not rest:
            (module if m.group(1) == "module" else regs).append(m.group(2))
        else:
            rest.append(line)
    return "\n".join([
        ".version " + PTX_VERSION,
        ".target sm_" + arch,
        ".address_size 64",
        *module,
        ".visible .entry %s(.param .u64 %s_param_0)" % (name, name),
        "{",
        *("    " + r for r in regs),
        *rest,
        "    ret;",
        "}",
        "",
    ])


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip()


def check(block, args, workdir):
    doc, line, tag, text, arch = block
    if text is None:
        return False, "unterminated code block"
    if tag == "text":
        return None, ""
    if tag not in CHECKED:
        return False, ("untagged code block" if not tag else "unknown tag '%s'" % tag) + \
            "; use cuda, ptx, ptx-fragment or text"
    if not arch:
        return False, "cannot tell the architecture from the file name " + doc
    base = os.path.join(workdir, "%s_%d" % (re.sub(r"\W", "_", os.path.basename(doc)), line))
    ptx = base + ".ptx"
    if tag == "cuda":
        src = base + ".cu"
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        rc, out = run([args.nvcc, "-std=c++17", "--ptx", "-arch=compute_" + arch, src, "-o", ptx])
        if rc:
            return False, "nvcc: " + first_error(out)
    elif tag == "ptx":
        if not re.match(r"^(\s*//[^\n]*\n|\s*\n)*\s*\.version", text):
            return False, "a ptx block must be a complete module starting with .version"
        with open(ptx, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        with open(ptx, "w", encoding="utf-8") as f:
            f.write(wrap_fragment(text, arch, "snippet_line%d" % line))
    rc, out = run([args.ptxas, "-arch=sm_" + arch, ptx, "-o", base + ".cubin"])
    if rc:
        return False, "ptxas: " + first_error(out)
    bad = warnings_ok(out, text)
    if bad:
        return False, "ptxas: " + bad
    return True, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("docs", nargs="+", metavar="DOC")
    parser.add_argument("--ptxas")
    parser.add_argument("--nvcc")
    parser.add_argument("-j", type=int, default=1, help="parallel jobs (default 1)")
    parser.add_argument("-v", action="store_true", help="keep and name the work directory")
    args = parser.parse_args()
    args.ptxas = find_tool("ptxas", args.ptxas)
    args.nvcc = find_tool("nvcc", args.nvcc)
    if not args.ptxas or not args.nvcc:
        print("error: cannot find %s (set --ptxas/--nvcc or CUDA_HOME)" %
              ("ptxas" if not args.ptxas else "nvcc"), file=sys.stderr)
        return 2

    blocks = []
    for doc in args.docs:
        if not os.path.exists(doc):
            print("error: %s: no such file" % doc, file=sys.stderr)
            return 2
        arch = arch_of(doc)
        blocks += [(doc, line, tag, text, arch) for line, tag, text in extract(doc)]

    workdir = tempfile.mkdtemp(prefix="check-doc-snippets.")
    failed = passed = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        results = list(pool.map(lambda b: check(b, args, workdir), blocks))
    for (doc, line, tag, _, _), (ok, msg) in zip(blocks, results):
        label = tag or "(untagged)"
        if ok is None:
            skipped += 1
            print("%s:%d: SKIP %s" % (doc, line, label))
        elif ok:
            passed += 1
            print("%s:%d: PASS %s" % (doc, line, label))
        else:
            failed += 1
            print("%s:%d: FAIL %s: %s" % (doc, line, label, msg))
    if args.v:
        print("work directory: " + workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    print("%d snippets checked in %d documents: %d passed, %d failed (%d text blocks skipped)"
          % (passed + failed, len(args.docs), passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
