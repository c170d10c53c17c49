#!/usr/bin/env python3
"""Throughput of `ptxbench analyze` against ptxas's parse-only pass.

For each file, in one run on the same machine, best of N wall-clock runs:
  - ptxas --gpu-name compute_90a FILE -o /dev/null   (a virtual target:
    parse and check only, no code generation);
  - ptxbench analyze FILE --require ... --format json --no-assemble
    (import, reachability, feature use, target checks, fallback detection,
    the JSON report): the static analysis alone;
  - ptxbench analyze FILE --require ... --format json (the same plus
    in-process nvJitLink assembly for sm_90a, so it includes a full ptxas
    code generation and is expected to be slower than ptxas's parse).
Files: the big generated files of bench/import-throughput.py (its generator,
nvcc on bench/large_kernels.cu) and the largest sm_90a-or-older corpus files.
Prints a Markdown table with the ratios (see docs/performance.md).

usage: bench/analyze-throughput.py --build build [--runs 3]
"""
import argparse
import glob
import importlib.util
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REQUIRE = "wgmma,tma,mbarrier_tx"


def import_bench():
    spec = importlib.util.spec_from_file_location(
        "import_throughput", os.path.join(HERE, "import-throughput.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    parser.add_argument("--corpus", type=int, default=2,
                        help="how many of the largest corpus files")
    args = parser.parse_args()
    outdir = os.path.join(args.build, "bench")
    os.makedirs(outdir, exist_ok=True)
    files = import_bench().generate(outdir, args.nvcc)
    corpus = [f for f in glob.glob(os.path.join(ROOT, "test/corpus/ptx/*.ptx"))
              if "sm_100a" not in f and "sm_120" not in f]
    files += sorted(corpus, key=os.path.getsize)[-args.corpus:]
    ptxbench = os.path.join(args.build, "bin", "ptxbench")

    print("| file | MB | ptxas parse s | analyze s | analyze MB/s "
          "| ptxas/analyze | analyze+assemble s | ptxas/(analyze+assemble) |")
    print("|---|---|---|---|---|---|---|---|")
    for path in files:
        size = os.path.getsize(path)
        ptxas = best_wall([args.ptxas, "--gpu-name", "compute_90a", path,
                           "-o", "/dev/null"], args.runs)
        analyze = [ptxbench, "analyze", path, "--arch", "sm_90a",
                   "--require", REQUIRE, "--format", "json", "-o", os.devnull]
        static = best_wall(analyze + ["--no-assemble"], args.runs)
        full = best_wall(analyze, args.runs)
        print(f"| {os.path.basename(path)} | {size / 1e6:.2f} | {ptxas:.3f} "
              f"| {static:.3f} | {size / 1e6 / static:.0f} "
              f"| {ptxas / static:.1f}x | {full:.3f} | {ptxas / full:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
