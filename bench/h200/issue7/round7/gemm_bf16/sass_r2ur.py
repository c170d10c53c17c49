#!/usr/bin/env python3
"""sass_r2ur.py - are the mainloops' stage index and descriptors still in uniform registers?

Compiles two versions of the bf16 expert (REF, NEW) with nvcc -O3 -arch=sm_90a -cubin,
disassembles them with nvdisasm and, for every cluster of HGMMAs (the mainloops, as ptxas unrolled
them), counts the R2UR in a window from 30 instructions before the cluster's first HGMMA to 10
after its last; then compares NEW's 128x256 windows with REF's, instruction by instruction up to
register numbers, immediates and labels (a unified diff; empty = identical). An R2UR per HGMMA would mean ptxas moved the
descriptors out of the uniform datapath (see the expert's header).
Run: python3 bench/h200/issue7/round7/gemm_bf16/sass_r2ur.py REF.cu NEW.cu  (a few seconds, no GPU;
paths relative to the repository root or absolute), e.g. the expert before and after a change:
  git show HEAD~1:tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu > /tmp/ref.cu
  python3 bench/h200/issue7/round7/gemm_bf16/sass_r2ur.py /tmp/ref.cu tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu
Environment: NVCC (default /usr/local/cuda/bin/nvcc), NVDISASM (default: the cu13 wheel's).
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, *[".."] * 5))
NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
NVDISASM = os.environ.get(
    "NVDISASM", "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm")
FILES = {}  # "REF" and "NEW", from the command line


def sass(path, tmp):
    cubin = os.path.join(tmp, os.path.basename(path) + ".cubin")
    subprocess.run([NVCC, "-O3", "-arch=sm_90a", "-cubin", "-o", cubin, os.path.join(ROOT, path)],
                   check=True)
    text = subprocess.run([NVDISASM, "-c", cubin], check=True, capture_output=True, text=True).stdout
    return [re.sub(r"\s+", " ", l.strip()) for l in text.splitlines() if re.search(r"/\*[0-9a-f]{4,}\*/", l)]


def windows(lines):
    idx = [i for i, l in enumerate(lines) if "HGMMA" in l]
    clusters, cur = [], [idx[0]]
    for i in idx[1:]:
        if i - cur[-1] <= 40:
            cur.append(i)
        else:
            clusters.append(cur)
            cur = [i]
    clusters.append(cur)
    out = []
    for c in clusters:
        win = lines[max(0, c[0] - 30):c[-1] + 11]
        shape = re.search(r"HGMMA\.(\S+)", lines[c[0]]).group(1)
        out.append((shape, len(c), sum("R2UR" in l for l in win), win))
    return out


def normalize(line):
    line = re.sub(r"/\*[0-9a-f]+\*/ ", "", line)
    line = re.sub(r"UR[0-9]+", "UR", line)
    line = re.sub(r"\bR[0-9]+", "R", line)
    line = re.sub(r"\bU?P[0-9]\b", "P", line)
    line = re.sub(r"0x[0-9a-f]+", "X", line)
    return re.sub(r"\.L_x_[0-9]+", "L", line)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    FILES["REF"], FILES["NEW"] = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        res = {k: sass(v, tmp) for k, v in FILES.items()}
    wins = {}
    for k, lines in res.items():
        print(f"{k}: {sum('R2UR' in l for l in lines)} R2UR in the kernel")
        wins[k] = windows(lines)
        for shape, n, r2ur, win in wins[k]:
            print(f"  {n:2} x HGMMA.{shape}: {r2ur} R2UR in the window ({len(win)} instructions)")
    ref = [w for w in wins["REF"] if w[0].startswith("64x256")]
    new = [w for w in wins["NEW"] if w[0].startswith("64x256")]
    for (_, _, _, a), (_, _, _, b) in zip(ref, new):
        diff = list(difflib.unified_diff([normalize(l) for l in a], [normalize(l) for l in b],
                                         "REF", "NEW", lineterm="", n=0))
        changed = sum(1 for d in diff[2:] if d[:1] in "+-")  # diff[:2] are the ---/+++ headers
        print(f"\nREF's 128x256 window against NEW's: {changed} "
              f"lines differ (after normalizing register numbers, immediates, labels)")
        print("\n".join(diff))
    bad = [w for w in wins["NEW"] if w[2] > 4]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
