#!/usr/bin/env python3
"""check_pair_loop.py - counts the SASS of an fp8 GEMM variant's stage-pair loop (issue 7, round 5).

Round 4 showed that the instructions around each wgmma matter (descriptors rebuilt in vector
registers and moved with R2UR cost 5-10% on fp8). This compiles each FILE.cu for sm_90a with nvcc,
disassembles it with nvdisasm, finds the consumer's pair loop (from the first of the two full-barrier
waits before `WARPGROUP.DEPBAR.LE gsb0, 0x1` to the branch after the following
`DEPBAR.LE gsb0, 0x0`) and prints its instruction count, R2UR and uniform-datapath counts.
Expected: v10 (the expert) 203 instructions / 0 R2UR; v11 202 / 0.

Usage: python3 check_pair_loop.py FILE.cu [FILE.cu ...]   (nvdisasm from PATH, CUDA's bin, or the
pip wheel nvidia-cuda-nvdisasm)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter


def find_nvdisasm():
    cands = [shutil.which("nvdisasm"), "/usr/local/cuda/bin/nvdisasm"]
    cands += glob.glob(os.path.expanduser("~/.pyenv/versions/*/lib/python3*/site-packages/nvidia/cu*/bin/nvdisasm"))
    return next((c for c in cands if c and os.path.exists(c)), None)


def pair_loop(sass):
    lines = [l for l in sass.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", l)]
    mid = next(i for i, l in enumerate(lines) if "DEPBAR.LE gsb0, 0x1" in l)
    waits = [i for i in range(mid) if "TRYWAIT" in lines[i]]
    start = waits[-2]
    end = next(i for i in range(mid, len(lines)) if "DEPBAR.LE gsb0, 0x0" in lines[i])
    end = next(i for i in range(end, len(lines)) if "BRA" in lines[i])
    ops = [re.sub(r"^\s*@!?U?P\w+\s+", "", l.split("*/", 1)[1]).split()[0].split(".")[0]
           for l in lines[start:end + 1]]
    return Counter(ops), len(ops)


def main():
    nvdisasm = find_nvdisasm()
    if not nvdisasm:
        sys.exit("nvdisasm not found")
    with tempfile.TemporaryDirectory() as tmp:
        for src in sys.argv[1:]:
            cubin = os.path.join(tmp, "k.cubin")
            subprocess.run(["nvcc", "-arch=sm_90a", "-cubin", "-o", cubin, src], check=True)
            sass = subprocess.run([nvdisasm, "-c", cubin], check=True, capture_output=True, text=True).stdout
            ops, n = pair_loop(sass)
            uniform = sum(v for k, v in ops.items() if k.startswith("U"))
            print(f"{src}: pair loop {n} instructions, R2UR {ops['R2UR']}, uniform {uniform}, "
                  f"QGMMA {ops['QGMMA']}, FADD {ops['FADD']}")


if __name__ == "__main__":
    main()
