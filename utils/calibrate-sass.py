#!/usr/bin/env python3
"""Calibrates the ISA table's PTX-family -> SASS mapping on the corpus.

For every corpus kernel: the feature families its PTX uses (from
`ptxbench summary`) and the SASS opcodes of its machine code (ptxas, then
nvdisasm). For each family, prints the SASS opcodes found in every kernel
that uses the family and in no kernel that does not: the candidates for the
family's `Sass` lists in include/ptxbench/ISA/Instructions.td. Also checks
the table: a family whose listed SASS never shows up where the family is
used is reported.

usage: utils/calibrate-sass.py --build build [--nvdisasm PATH] [files...]
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def families_per_kernel(ptxbench, path):
    out = subprocess.run([ptxbench, "summary", path], capture_output=True,
                         text=True, check=True).stdout
    kernels, current = {}, None
    for line in out.splitlines():
        m = re.match(r"(kernel|function) (\S+):", line)
        if m:
            current = kernels.setdefault(m.group(2), set())
        elif current is not None and ":" in line:
            for item in line.split(":", 1)[1].split():
                if "=" in item:
                    current.add(item.split("=")[0])
    return kernels


def sass_per_kernel(ptxas, nvdisasm, path, arch, workdir):
    cubin = os.path.join(workdir, os.path.basename(path) + ".cubin")
    subprocess.run([ptxas, "-arch=" + arch, path, "-o", cubin], check=True,
                   capture_output=True)
    text = subprocess.run([nvdisasm, "-c", cubin], capture_output=True,
                          text=True, check=True).stdout
    kernels, current = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(".text.") and line.endswith(":"):
            current = kernels.setdefault(line[6:-1], collections.Counter())
            continue
        m = re.match(r"/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", line)
        if m and current is not None:
            current[m.group(2)] += 1
    return kernels


def table_sass(build):
    """The SASS lists per family, from the generated coverage page."""
    page = open(os.path.join(build, "docs", "isa-coverage.md")).read()
    table, family = collections.defaultdict(set), None
    for line in page.splitlines():
        if line.startswith("## "):
            family = line[3:].strip()
        elif line.startswith("| `") and family:
            cells = [c.strip() for c in line.split("|")]
            table[family].update(cells[5].split())
    return table


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    p.add_argument("--nvdisasm", default="nvdisasm")
    p.add_argument("files", nargs="*")
    args = p.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "test/corpus/ptx/*.ptx")))
    ptxbench = os.path.join(args.build, "bin", "ptxbench")
    used = collections.defaultdict(list)      # family -> [sass counters]
    unused = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as workdir:
        for path in files:
            arch = re.search(r"^\s*\.target\s+(\w+)", open(path).read(), re.M).group(1)
            fams = families_per_kernel(ptxbench, path)
            sass = sass_per_kernel(args.ptxas, args.nvdisasm, path, arch, workdir)
            all_fams = set().union(*fams.values()) if fams else set()
            for kernel, opcodes in sass.items():
                kf = fams.get(kernel, set())
                for f in all_fams | kf:
                    (used if f in kf else unused)[f].append(opcodes)
    table = table_sass(args.build)
    problems = 0
    for family in sorted(used):
        in_all = set.intersection(*(set(c) for c in used[family]))
        elsewhere = set().union(*(set(c) for c in unused[family])) if unused[family] else set()
        candidates = sorted(in_all - elsewhere)
        listed = table.get(family, set())
        confirmed = [c for c in used[family] if listed & set(c)]
        note = ""
        if listed and len(confirmed) < len(used[family]):
            note = f"  <-- listed SASS seen in only {len(confirmed)}/{len(used[family])} kernels"
            problems += 1
        print(f"{family:18} kernels={len(used[family]):3} listed={' '.join(sorted(listed)) or '-'}"
              f"  candidates={' '.join(candidates) or '-'}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
