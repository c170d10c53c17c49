#!/bin/bash
# ptxbench issue 4 (second part) on the H200: feature counts, NVML, speed of
# light, harness overhead, torch comparison. Run from the repository root:
#   bash build-h9/run.sh
set -u
B=build-h9
P=$B/ptxbench
T=$B/tasks/gemm_bf16
S=$T/solutions/tiled_smem.cu
export XDG_CACHE_HOME=$OUT/cache
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
/usr/local/cuda/bin/nvcc --version | tail -1
ls -la /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 2>&1 | head -1
wall() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N)-s)/1000000 )) ms rc=$rc: ${*:2:6}"; }
echo "=== R1: tiled_smem, dev shapes, baseline, counts; speed of light measured (no cache yet)"
wall $P run --task $T --solution $S --seed 7 --json $OUT/r1.json
echo "=== R2: the same again (speed of light from the cache)"
wall $P run --task $T --solution $S --seed 7 --json $OUT/r2.json
echo "=== R3: no baseline, no feature counts (overhead)"
wall $P run --task $T --solution $S --seed 7 --no-baseline --no-feature-counts --json $OUT/r3.json
echo "=== R4: generic families counted (barrier, store)"
wall $P run --task $B/tasks/gemm_bf16_counts --solution $S --seed 7 --no-baseline --json $OUT/r4.json
cat $XDG_CACHE_HOME/ptxbench/*.json
echo "=== R5: hang (watchdog), feature counts not reached"
wall $P run --task $T --solution $T/solutions/hostile_hang_mbarrier.cu --no-baseline --timeout 5 --shapes dev 2>&1 | tail -6
echo "=== torch"
timeout 150 python3 - <<'PY'
import torch, triton, time
from triton.testing import do_bench
print("torch", torch.__version__, "triton", triton.__version__)
L2 = torch.cuda.get_device_properties(0).L2_cache_size
flush = torch.empty(2 * L2 // 4, dtype=torch.int32, device="cuda")
def harness_like(fn, n=50):
    s = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    e = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for _ in range(3): fn()
    out = []
    for i in range(n):
        flush.fill_(i)
        s[i].record(); fn(); e[i].record(); torch.cuda.synchronize()
        out.append(s[i].elapsed_time(e[i]))
    out.sort(); return out[n // 2]
for (m, n, k) in [(1024,1024,1024),(4096,4096,4096),(8192,8192,8192)]:
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    bt = b.t().contiguous().t()  # column-major B
    f = lambda: torch.matmul(a, b)
    db = [do_bench(f, warmup=50, rep=200, return_mode="median") for _ in range(2)]
    hl = [harness_like(f) for _ in range(2)]
    hlt = harness_like(lambda: torch.matmul(a, bt))
    print(f"M=N=K={m}: do_bench {db[0]:.4f} {db[1]:.4f}  harness-like loop {hl[0]:.4f} {hl[1]:.4f}  col-major B {hlt:.4f} ms")
PY
echo "=== ncu calibration (barrier, shared/global stores of the first gemm_tiled launch)"
NCU=$(ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}"
if [ -n "$NCU" ]; then
  timeout 150 $NCU --target-processes all -k gemm_tiled -c 1 --metrics smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_global_st.sum,smsp__inst_executed_op_barrier.sum,smsp__thread_inst_executed.sum,smsp__inst_executed.sum \
    $P run --task $B/tasks/gemm_bf16_counts --solution $S --seed 7 --no-baseline --json $OUT/r6.json 2>&1 | tail -25
fi
