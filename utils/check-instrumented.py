#!/usr/bin/env python3
"""Instruments PTX files with --ptx-instrument-features (with the work
counters and the knockout guards, as `ptxbench run` does) and checks that
ptxas assembles the result for each file's own .target.

Usage: check-instrumented.py --opt ptxbench-opt --ptxas ptxas
           [--families a,b,...] FILE.ptx...
Prints one FAIL line per file that does not instrument or assemble, then
`instrumented: N assembled, M failed`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

DEFAULT_FAMILIES = ("wgmma,tma,bulk_copy,mbarrier,mbarrier_tx,setmaxnreg,"
                    "cluster_barrier,dsmem,tcgen05,tmem,mma_sync,ldmatrix,"
                    "cp_async,wmma,load,store,atomic,barrier,float_arith,"
                    "control")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--families", default=DEFAULT_FAMILIES)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    ok = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.files:
            text = open(path, encoding="utf-8", errors="replace").read()
            m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
            arch = m.group(1) if m else "sm_90a"
            out = os.path.join(tmp, "counted.ptx")
            r = subprocess.run([args.opt, path, "--ptx-instrument-features=families=" +
                                args.families + " work=true knockout=true", "--emit=ptx", "-o", out],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {path}: instrument: {r.stderr.strip()[:500]}")
                failed += 1
                continue
            if "red.global.add.u64" not in open(out).read():
                print(f"FAIL {path}: nothing was instrumented")
                failed += 1
                continue
            r = subprocess.run([args.ptxas, "-arch=" + arch, out, "-o", os.devnull],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {path}: ptxas -arch={arch}: {r.stderr.strip()[:800]}")
                failed += 1
                continue
            ok += 1
    print(f"instrumented: {ok} assembled, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
