#!/usr/bin/env python3
"""Builds a small sample tree (and a tasks folder) for the eval tests.

    make_samples.py SRC_ROOT OUT

OUT/tasks/gemm_bf16: the task, with solutions/manifest.json marking an
expert solution. OUT/samples/<model>/<context>/gemm_bf16/<id>/: thirteen
samples of three fake models drawn from the solution corpus, with turn
histories (turn files and turn<N> folders), a response.md to extract from,
one without a code block, a compile error, and identical kernels that differ
only in comments (one canonical hash).
"""
import json
import os
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
kernels = os.path.join(src, "test", "analyze", "kernels")
corpus = {
    "expert": os.path.join(kernels, "expert_gemm.cu"),
    "mma_sync": os.path.join(kernels, "mma_sync_cp_async.cu"),
    "ffma": os.path.join(kernels, "ffma.cu"),
    "serialized": os.path.join(kernels, "wgmma_serialized.cu"),
    "wmma": os.path.join(kernels, "wmma.cu"),
    "dead_tma": os.path.join(kernels, "tma_dead_branch.cu"),
    "broken": os.path.join(src, "test", "analyze", "Inputs", "compile_error.cu"),
    "tiled": os.path.join(src, "tasks", "gemm_bf16", "solutions", "tiled_smem.cu"),
}

shutil.rmtree(out, ignore_errors=True)
task = os.path.join(out, "tasks", "gemm_bf16")
os.makedirs(os.path.join(task, "solutions"))
shutil.copy(os.path.join(src, "tasks", "gemm_bf16", "task.json"), task)
shutil.copy(corpus["expert"], os.path.join(task, "solutions", "expert_gemm.cu"))
shutil.copy(corpus["tiled"], os.path.join(task, "solutions", "tiled_smem.cu"))
with open(os.path.join(task, "solutions", "manifest.json"), "w") as f:
    json.dump({"solutions": [
        {"file": "expert_gemm.cu", "kind": "expert"},
        {"file": "tiled_smem.cu", "kind": "fallback"}]}, f, indent=1)


# Launch plans for the analysis kernels (which have none of their own) that
# check out against gemm_bf16 and the kernels' parameters, appended so the
# kernels' lines stay where the analysis tests expect them.
tensormaps = ("// @ptxbench tensormap tmA tensor=A box=(64,64) swizzle=128B\n"
              "// @ptxbench tensormap tmB tensor=B box=(64,64) swizzle=128B\n")
plans = {
    "expert": tensormaps +
    "// @ptxbench kernel expert_gemm grid=(ceildiv(N,128), ceildiv(M,128)) block=384 smem=200000\n"
    "// @ptxbench   args tmA, tmB, C, M, N, K\n",
    "serialized": tensormaps +
    "// @ptxbench kernel wgmma_serialized grid=(ceildiv(N,64), ceildiv(M,64)) block=128 smem=65536\n"
    "// @ptxbench   args tmA, tmB, C, M, N, K\n",
    "mma_sync": "// @ptxbench kernel mma_sync_gemm grid=(ceildiv(N,64), ceildiv(M,64)) block=128\n"
    "// @ptxbench   args A, B, C, M, N, K\n",
    "ffma": "// @ptxbench kernel ffma_gemm grid=(ceildiv(N,16), ceildiv(M,16)) block=256\n"
    "// @ptxbench   args A, B, C, M, N, K\n",
    "wmma": "// @ptxbench kernel wmma_gemm grid=(ceildiv(N,64), ceildiv(M,64)) block=128\n"
    "// @ptxbench   args A, B, C, M, N, K\n",
    "dead_tma": "// @ptxbench tensormap tmIn tensor=A box=(32,32)\n"
    "// @ptxbench kernel transpose_tma_dead grid=(ceildiv(N,32), ceildiv(M,32)) block=256\n"
    "// @ptxbench   args tmIn, A, C, M, N\n",
}


def read(name):
    with open(corpus[name]) as f:
        return f.read() + plans.get(name, "")


def sample(model, context, sid, name=None, turn=None, nested_turn=None,
           response=None, prefix=""):
    d = os.path.join(out, "samples", model, context, "gemm_bf16", sid)
    if nested_turn is not None:
        d = os.path.join(d, "turn%d" % nested_turn)
    os.makedirs(d, exist_ok=True)
    if response is not None:
        with open(os.path.join(d, "response.md"), "w") as f:
            f.write(response)
    else:
        with open(os.path.join(d, "solution.cu"), "w") as f:
            f.write(prefix + read(name))
    if turn is not None:
        with open(os.path.join(d, "turn"), "w") as f:
            f.write("%d\n" % turn)


# model-a: a fallback fixed at the next turn, an FFMA loop, and the expert
# kernel again under the full context.
sample("model-a", "none", "s0", "mma_sync", nested_turn=0)
sample("model-a", "none", "s0", "expert", nested_turn=1)
sample("model-a", "none", "s1", "ffma")
sample("model-a", "full", "s0", "expert")
# model-b: compile error, then serialized wgmma, then the expert kernel; a
# response to extract; wmma under the full context.
sample("model-b", "none", "s0", "broken", nested_turn=0)
sample("model-b", "none", "s0", "serialized", nested_turn=1)
sample("model-b", "none", "s0", "expert", nested_turn=2)
sample("model-b", "none", "s1",
       response="Here is a tiled kernel.\n\n```cuda\n" + read("tiled") +
       "```\n")
sample("model-b", "full", "s0", "wmma", turn=0)
# model-c: TMA only in dead code, the expert kernel with an extra comment
# (same canonical hash), and an answer without code.
sample("model-c", "full", "s0", "dead_tma")
sample("model-c", "full", "s1", "expert", turn=0,
       prefix="// model-c's copy: comments do not change the hash\n")
sample("model-c", "full", "s2",
       response="I could not write this kernel, sorry.\n")
# The same FFMA loop as model-a's s1, renamed comments only: evaluated once,
# and one Fixit record for both.
sample("model-c", "full", "s3", "ffma", prefix="// another copy\n")
