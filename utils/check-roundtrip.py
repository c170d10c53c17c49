#!/usr/bin/env python3
"""Checks the cubin round trip: for each PTX file, import then export it with
ptxbench-translate and assemble both the original and the exported PTX with
ptxas for the file's .target; the two cubins must be byte-identical.

usage: check-roundtrip.py --translate BIN --ptxas BIN [-j N] FILE...
Prints one line per file and a summary; exits 1 on any failure.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile


def target_of(text):
    m = re.search(r"^\s*\.target\s+([A-Za-z0-9_]+)", text, re.M)
    return m.group(1) if m else None


def assemble(ptxas, arch, src, out):
    r = subprocess.run([ptxas, "-arch=" + arch, src, "-o", out],
                       capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def check(path, args, workdir):
    base = os.path.join(workdir, os.path.basename(path))
    with open(path, encoding="utf-8", errors="replace") as f:
        arch = target_of(f.read())
    if not arch:
        return False, "no .target"
    exported = base + ".exported.ptx"
    r = subprocess.run([args.translate, "--import-ptx", "--mlir-print-debuginfo", path,
                        "-o", base + ".mlir"],
                       capture_output=True, text=True)
    if r.returncode:
        return False, "import failed: " + r.stderr.strip()[:500]
    r = subprocess.run([args.translate, "--export-ptx", base + ".mlir", "-o", exported],
                       capture_output=True, text=True)
    if r.returncode:
        return False, "export failed: " + r.stderr.strip()[:500]
    rc, err = assemble(args.ptxas, arch, path, base + ".orig.cubin")
    if rc:
        return False, "ptxas rejects the original: " + err[:300]
    rc, err = assemble(args.ptxas, arch, exported, base + ".exported.cubin")
    if rc:
        return False, "ptxas rejects the exported PTX: " + err[:500]
    with open(base + ".orig.cubin", "rb") as a, open(base + ".exported.cubin", "rb") as b:
        if a.read() != b.read():
            return False, "cubins differ (" + arch + ")"
    return True, arch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--translate", required=True)
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("-j", type=int, default=os.cpu_count() or 2)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as workdir:
        with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
            results = pool.map(lambda p: (p, check(p, args, workdir)), sorted(args.files))
            for path, (ok, detail) in results:
                print(("PASS " if ok else "FAIL ") + os.path.basename(path) + ": " + detail)
                failures += not ok
    print(f"round trip: {len(args.files) - failures} identical, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
