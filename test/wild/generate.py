#!/usr/bin/env python3
"""Generates the wild PTX corpus: PTX that CUTLASS/CuTe (through nvcc) and
Triton write for our own kernels in kernels/, compiled at test time from the
packages utils/setup.sh installs, so that none of their code or output is
committed.

usage:
  generate.py --out DIR --probe          versions, availability, output dir (JSON)
  generate.py --out DIR --list           every corpus entry, one a line
  generate.py --out DIR [-j N] [NAME...] generate NAME (e.g. cutlass_gemm_coop.sm_90a)
                                         or, without NAME, every entry

Entries:
  kernels/*.cu      compiled by nvcc --ptx for each arch on its
                    '// wild-archs:' line (with '// wild-variants: lineinfo'
                    also as NAME.ARCH.lineinfo), against the CUTLASS/CuTe
                    headers of the nvidia-cutlass wheel;
  kernels/triton_kernels.py
                    each entry of KERNELS compiled by triton.compile for
                    GPUTarget("cuda", 90) and ("cuda", 100), i.e. sm_90a and
                    sm_100a.

Files are written to DIR/cutlass-V.triton-V.nvcc-V/NAME.ptx, so a new
version of any of the three gets its own directory; NAME.ptx.key records a
hash of the inputs (our sources and the compile command), and an entry whose
key still matches is not compiled again. PTX whose .version is newer than
the toolkit's ptxas accepts is an error that says so (the tests assemble
every file). Exit status 1 on any failure, with the reason; a missing
package is a failure here (the lit tests turn it into 'unsupported' with the
reason before they call this script).
"""
import argparse
import concurrent.futures
import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")
CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")
NVCC = os.path.join(CUDA_HOME, "bin", "nvcc")
PTXAS = os.path.join(CUDA_HOME, "bin", "ptxas")
TRITON_ARCHS = {"sm_90a": 90, "sm_100a": 100}


class Failure(Exception):
    pass


# --- versions and availability ----------------------------------------------

def cutlass_include():
    """The CUTLASS/CuTe include directory of the nvidia-cutlass wheel, found
    without importing its Python package (which needs cuda-python)."""
    dist = importlib.metadata.distribution("nvidia-cutlass")
    for f in dist.files or []:
        p = str(f).replace("\\", "/")
        if p.endswith("source/include/cutlass/cutlass.h"):
            return os.path.dirname(os.path.dirname(str(dist.locate_file(f))))
    raise Failure("nvidia-cutlass is installed but ships no "
                  "cutlass_library/source/include/cutlass/cutlass.h")


def nvcc_version():
    if not os.access(NVCC, os.X_OK):
        raise Failure(f"nvcc not found at {NVCC} (set CUDA_HOME)")
    out = subprocess.run([NVCC, "--version"], capture_output=True,
                         text=True).stdout
    m = re.search(r"\bV(\d+\.\d+\.\d+)", out)
    if not m:
        raise Failure(f"cannot read the version from '{NVCC} --version'")
    return m.group(1)


def ptxas_isa_max():
    """The newest PTX ISA version the toolkit's ptxas accepts, from its
    release (CUDA 12.x accepts 8.x, 13.x accepts 9.x, release 13.N accepts
    up to 9.N)."""
    out = subprocess.run([PTXAS, "--version"], capture_output=True,
                         text=True).stdout
    m = re.search(r"release (\d+)\.(\d+)", out)
    if not m:
        raise Failure(f"cannot read the release from '{PTXAS} --version'")
    major, minor = int(m.group(1)), int(m.group(2))
    return (major - 4, minor) if major >= 13 else None


def probe():
    """Which generators can run, and why not."""
    info = {}
    for dist in ("nvidia-cutlass", "triton"):
        key = dist.split("-")[-1]
        try:
            info[key] = importlib.metadata.version(dist)
            info[key + "_error"] = ""
        except importlib.metadata.PackageNotFoundError:
            info[key] = None
            info[key + "_error"] = (f"the {dist} wheel is not installed for "
                                    f"{sys.executable} (utils/setup.sh "
                                    f"installs it; see its output for why "
                                    f"it did not)")
    if info["cutlass"]:
        try:
            info["cutlass_include"] = cutlass_include()
        except Failure as e:
            info["cutlass"], info["cutlass_error"] = None, str(e)
    try:
        info["nvcc"] = nvcc_version()
        info["nvcc_error"] = ""
    except Failure as e:
        info["nvcc"], info["nvcc_error"] = None, str(e)
    return info


def out_dir(base, info):
    return os.path.join(base, "cutlass-%s.triton-%s.nvcc-%s" % (
        info["cutlass"] or "none", info["triton"] or "none",
        info["nvcc"] or "none"))


# --- entries -----------------------------------------------------------------

def header(path, key):
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*wild-%s:\s*(.*)" % key, line)
            if m:
                return m.group(1).split()
    return []


def cu_entries():
    entries = {}
    for cu in sorted(os.listdir(KERNELS)):
        if not cu.endswith(".cu"):
            continue
        path = os.path.join(KERNELS, cu)
        archs = header(path, "archs")
        if not archs:
            raise Failure(f"{path}: missing '// wild-archs:' line")
        variants = header(path, "variants")
        for i, arch in enumerate(archs):
            for v in [""] + (variants if i == 0 else []):
                if v not in ("", "lineinfo"):
                    raise Failure(f"{path}: unknown variant '{v}'")
                name = f"{cu[:-3]}.{arch}" + (f".{v}" if v else "")
                entries[name] = ("nvcc", path, arch, v)
    return entries


def triton_entries():
    # The kernel table is read without importing Triton, so that listing
    # works where Triton is missing.
    src = os.path.join(KERNELS, "triton_kernels.py")
    with open(src) as f:
        text = f.read()
    table = text[text.index("KERNELS = {"):]
    names = re.findall(r'^    "(\w+)": \(', table, re.M)
    return {f"{n}.{arch}": ("triton", src, arch, n)
            for n in names for arch in TRITON_ARCHS}


def entries():
    return {**cu_entries(), **triton_entries()}


def input_key(entry, info):
    """What the output depends on besides the versions in the directory
    name: our sources and the compile recipe (flags, script, environment),
    not the rest of this file."""
    kind, path, arch, extra = entry
    h = hashlib.sha256()
    deps = [path]
    if kind == "nvcc":
        deps += sorted(os.path.join(KERNELS, f) for f in os.listdir(KERNELS)
                       if f.endswith((".cuh", ".h")))
        recipe = nvcc_command(entry, info, "OUT")
    else:
        recipe = [TRITON_SCRIPT, sorted(TRITON_ENV.items())]
    for d in deps:
        with open(d, "rb") as f:
            h.update(os.path.basename(d).encode() + b"\0" + f.read())
    h.update(repr((kind, arch, extra, recipe)).encode())
    return h.hexdigest()


# --- compilers ---------------------------------------------------------------

def nvcc_command(entry, info, dest):
    _, path, arch, variant = entry
    # -DNDEBUG as in CUTLASS's release builds: its device asserts are calls
    # that break the wgmma pipeline (ptxas C7510).
    cmd = [NVCC, "-std=c++17", "--ptx", "-arch=compute_" + arch[3:],
           "-DNDEBUG", "--expt-relaxed-constexpr",
           "-I" + info["cutlass_include"], path, "-o", dest]
    if variant == "lineinfo":
        cmd.insert(3, "-lineinfo")
    return cmd


def run_nvcc(entry, info, dest):
    cmd = nvcc_command(entry, info, dest)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise Failure("nvcc failed:\n" + " ".join(cmd) + "\n" +
                      r.stderr[-4000:])


# Run as `python3 -c TRITON_SCRIPT KERNELS_PY NAME CAPABILITY OUT`.
TRITON_SCRIPT = r"""
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
import triton_kernels
fn, signature, constexprs, options, aligned = \
    triton_kernels.KERNELS[sys.argv[2]]
attrs = {(fn.arg_names.index(a), ): [["tt.divisibility", 16]]
         for a in aligned}
src = ASTSource(fn, signature=signature, constexprs=constexprs, attrs=attrs)
kernel = triton.compile(src, target=GPUTarget("cuda", int(sys.argv[3]), 32),
                        options=options)
with open(sys.argv[4], "w") as f:
    f.write(kernel.asm["ptx"])
"""

# Triton derives the PTX ISA version it writes from the ptxas it is given;
# its own ptxas may be newer than the toolkit's and write a .version the
# toolkit cannot assemble, so it gets the toolkit's.
TRITON_ENV = {"TRITON_PTXAS_PATH": PTXAS,
              "TRITON_PTXAS_BLACKWELL_PATH": PTXAS,
              "TRITON_DEFAULT_FP_FUSION": "1"}


def run_triton(entry, info, dest, cache):
    _, path, arch, name = entry
    env = dict(os.environ, TRITON_CACHE_DIR=cache, **TRITON_ENV)
    r = subprocess.run([sys.executable, "-c", TRITON_SCRIPT, path, name,
                        str(TRITON_ARCHS[arch]), dest],
                       capture_output=True, text=True, env=env)
    if r.returncode:
        raise Failure("triton.compile failed for %s on %s:\n%s" %
                      (name, arch, r.stderr[-4000:]))


def check_version(dest):
    with open(dest) as f:
        text = f.read()
    m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", text, re.M)
    if not m:
        raise Failure(f"{dest}: no .version directive")
    version = (int(m.group(1)), int(m.group(2)))
    top = ptxas_isa_max()
    if top and version > top:
        raise Failure(
            "%s: PTX ISA .version %d.%d is newer than %d.%d, the newest that "
            "%s accepts (Triton picks the .version from the ptxas it runs: "
            "was TRITON_PTXAS_BLACKWELL_PATH ignored?)" %
            ((dest,) + version + top + (PTXAS,)))


def generate(name, entry, info, directory):
    kind, _, arch, _ = entry
    if kind == "nvcc" and not info["cutlass"]:
        raise Failure(info["cutlass_error"])
    if kind == "triton" and not info["triton"]:
        raise Failure(info["triton_error"])
    if not info["nvcc"]:
        raise Failure(info["nvcc_error"])
    dest = os.path.join(directory, name + ".ptx")
    key = input_key(entry, info)
    with open(dest + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(dest + ".key") as f:
                if f.read().strip() == key and os.path.exists(dest):
                    return "cached", 0.0
        except FileNotFoundError:
            pass
        start = time.monotonic()
        fd, tmp = tempfile.mkstemp(suffix=".ptx", dir=directory)
        os.close(fd)
        try:
            if kind == "nvcc":
                run_nvcc(entry, info, tmp)
            else:
                run_triton(entry, info, tmp,
                           os.path.join(directory, "triton-cache"))
            check_version(tmp)
            os.replace(tmp, dest)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        with open(dest + ".key", "w") as f:
            f.write(key + "\n")
        return "compiled", time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True,
                        help="base directory (build/wild)")
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("-j", type=int, default=os.cpu_count() or 2)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    try:
        info = probe()
        if args.probe:
            info["dir"] = out_dir(args.out, info)
            print(json.dumps(info, sort_keys=True))
            return 0
        table = entries()
        if args.list:
            print("\n".join(sorted(table)))
            return 0
        names = args.names or sorted(table)
        unknown = [n for n in names if n not in table]
        if unknown:
            raise Failure("unknown entries: " + " ".join(unknown) +
                          " (--list names them)")
        directory = out_dir(args.out, info)
        os.makedirs(directory, exist_ok=True)
    except Failure as e:
        print("generate.py: error: " + str(e), file=sys.stderr)
        return 1
    start = time.monotonic()
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        jobs = {n: pool.submit(generate, n, table[n], info, directory)
                for n in names}
        for n in names:
            try:
                how, secs = jobs[n].result()
                print(f"{n}: {how}" + (f" in {secs:.1f} s" if secs else ""))
            except Failure as e:
                failed += 1
                print(f"generate.py: error: {n}: {e}", file=sys.stderr)
    files = [os.path.join(directory, n + ".ptx") for n in names]
    size = sum(os.path.getsize(f) for f in files if os.path.exists(f))
    print("wild corpus: %d of %d files in %s, %d KiB, %.1f s" % (
        len(names) - failed, len(names), directory, size // 1024,
        time.monotonic() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
