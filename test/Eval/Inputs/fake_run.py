#!/usr/bin/env python3
"""Records hand-written `ptxbench run --json` results in a results store, as
`ptxbench eval` would after a GPU run, so the report's run-time columns can be
checked without a GPU.

  fake_run.py STORE.sqlite

model-a/full/gemm_bf16/s0@0 (the expert kernel) PASSED on two workloads with
speedups 1.25 and 0.8, speed-of-light fractions 0.6 and 0.4, wgmma executed
but only a token share of the FLOPs on one workload (its run-time verdict
`token`) and tma in the code but not triggered. model-a/none/gemm_bf16/s0@0
ran INCORRECT on the dev workload with wgmma not in its code.

Each workload has what the runtime measures: `time` and `baseline_time` in
the shape of toJSON(TimingStats), the task's `flops` and `bytes`, and the
run has the card's peaks. Readers compute the speedup (baseline median over
ours), the speed-of-light fraction and the per-family summary from those,
as the runtime's writer does; the derived keys it also writes for people
(`speedup`, `sol_fraction`, `tflops`, `feature_counts`) are left out here,
so a reader that looked them up would find nothing.
"""
import json
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])


def features(wgmma, tma):
    return [{"family": "wgmma", "in_code": wgmma[0], "executed": wgmma[1],
             "verdict": wgmma[2]},
            {"family": "tma", "in_code": tma[0], "executed": tma[1],
             "verdict": tma[2]}]


def timing(median_ms):
    """A timing as toJSON(TimingStats) writes it."""
    return {"samples": 40, "median_ms": median_ms, "q1_ms": median_ms,
            "q3_ms": median_ms, "min_ms": median_ms, "mean_ms": median_ms,
            "rse": 0.002, "clock_sampled": True, "throttled_discarded": 0,
            "throttled_kept": False, "min_clock_mhz": 1980,
            "max_clock_mhz": 1980}


PEAK_TFLOPS, PEAK_GBPS = 800.0, 4000.0


def timed(ms, speedup, sol):
    """A workload's timings for a speedup, and the FLOPs that make its
    median `sol` of the peak matrix rate (its bytes stay below the DRAM
    bound)."""
    return {"time": timing(ms), "baseline_time": timing(ms * speedup),
            "flops": sol * PEAK_TFLOPS * 1e12 * ms * 1e-3, "bytes": 1.0e8}


env = {"host": "gpu-node", "arch": "sm_90a", "tool": "ptxbench",
       "static_only": False, "sass": False,
       "toolchain": {"llvm": "22.1.0", "nvrtc": "13.0",
                     "ptxas": "Cuda compilation tools, release 13.0, V13.0.88"},
       "cuda_visible_devices": "0", "device": "NVIDIA H200 (sm_90a)",
       "driver": "580.65.06", "cuda_driver_version": 13000,
       "cublaslt_version": 130001}
passed = {
    "task": "gemm_bf16", "device": "NVIDIA H200 (sm_90a)", "arch": "sm_90a",
    "driver": "580.65.06", "cuda_driver_version": 13000,
    "cublaslt_version": 130001, "peak_tflops": PEAK_TFLOPS,
    "peak_gbps": PEAK_GBPS, "status": "PASSED",
    "workloads": [
        dict({"workload": "m4096", "split": "dev", "status": "PASSED",
              "features": features((8, 4096, "executed"),
                                   (2, 0, "not triggered"))},
             **timed(1.0, 1.25, 0.6)),
        dict({"workload": "m8192", "split": "heldout", "status": "PASSED",
              "features": features((8, 8192, "token"),
                                   (2, 0, "not triggered")),
              "work_findings": [{"kind": "token-wgmma", "message":
                                 "wgmma executed (8192 thread-instructions) "
                                 "but did 5.00% of the task's FLOPs"}]},
             **timed(2.0, 0.8, 0.4)),
    ],
}
incorrect = {
    "task": "gemm_bf16", "device": "NVIDIA H200 (sm_90a)", "arch": "sm_90a",
    "status": "INCORRECT",
    "workloads": [
        dict({"workload": "m4096", "split": "dev", "status": "INCORRECT",
              "features": features((0, 0, "not in code"),
                                   (0, 0, "not in code"))},
             **timed(1.0, 2.0, 0.5)),
    ],
}
# The token workload's share of the FLOPs.
passed["workloads"][1]["features"][0].update(share=0.05, threshold=0.9)
for key, status, run in ((("model-a", "full", "s0"), "PASSED", passed),
                         (("model-a", "none", "s0"), "INCORRECT", incorrect)):
    cur = db.execute(
        "update samples set run_status=?, run_json=?, environment_json=? "
        "where model=? and context=? and task='gemm_bf16' and sample_id=? "
        "and turn=0", (status, json.dumps(run), json.dumps(env)) + key)
    assert cur.rowcount == 1, key
db.commit()
