#!/usr/bin/env python3
"""Import throughput of ptxbench against ptxas's parse-only pass.

Generates large PTX files from bench/large_kernels.cu with nvcc (our own
source, scaled by -DINSTANCES/-DUNROLL) plus the largest corpus files, then
for each file, in one run on the same machine:
  - ptxas --gpu-name compute_90a FILE -o /dev/null   (a virtual target:
    parse and check only, no code generation), best of N wall-clock runs;
  - ptx-import-bench FILE: import (parse, build, verify) and export, best of
    N runs in one process, and the memory they took (peak RSS growth).
Prints a Markdown table with the ratios. See docs/performance.md.

usage: bench/import-throughput.py --build build [--runs 3] [--skip-generate]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = [("small", 8, 16), ("medium", 32, 32), ("large", 128, 48)]


def generate(outdir, nvcc):
    files = []
    for name, instances, unroll in SIZES:
        out = os.path.join(outdir, f"large_kernels.{name}.sm_90a.ptx")
        if not os.path.exists(out):
            subprocess.run([nvcc, "-std=c++17", "--ptx", "-arch=compute_90a",
                            f"-DINSTANCES={instances}", f"-DUNROLL={unroll}",
                            os.path.join(HERE, "large_kernels.cu"), "-o", out],
                           check=True)
        files.append(out)
    return files


def best_wall(cmd, runs):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = parser.parse_args()
    outdir = os.path.join(args.build, "bench")
    os.makedirs(outdir, exist_ok=True)
    files = generate(outdir, args.nvcc)
    # The largest corpus files for sm_90a and older (compute_90a parses them).
    corpus = [f for f in glob.glob(os.path.join(ROOT, "test/corpus/ptx/*.ptx"))
              if "sm_100a" not in f and "sm_120" not in f]
    files += sorted(corpus, key=os.path.getsize)[-2:]
    bench = os.path.join(args.build, "bin", "ptx-import-bench")
    print("| file | MB | ptxas parse s | import s | import MB/s | ptxas/import "
          "| import+export s | ptxas/(import+export) | memory / input |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in files:
        size = os.path.getsize(path)
        ptxas = best_wall([args.ptxas, "--gpu-name", "compute_90a", path,
                           "-o", "/dev/null"], args.runs)
        out = subprocess.run([bench, path, "--iterations", str(args.runs)],
                             check=True, capture_output=True, text=True)
        r = json.loads(out.stdout)
        both = r["import_s"] + r["export_s"]
        print(f"| {os.path.basename(path)} | {size / 1e6:.2f} | {ptxas:.3f} "
              f"| {r['import_s']:.3f} | {size / 1e6 / r['import_s']:.0f} "
              f"| {ptxas / r['import_s']:.1f}x | {both:.3f} | {ptxas / both:.1f}x "
              f"| {(r['peak_rss_kb'] - r['base_rss_kb']) * 1024 / size:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
