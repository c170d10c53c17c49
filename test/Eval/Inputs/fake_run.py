#!/usr/bin/env python3
"""Records hand-written `ptxbench run --json` results in a results store, as
`ptxbench eval` would after a GPU run, so the report's run-time columns can be
checked without a GPU.

  fake_run.py STORE.sqlite

model-a/full/gemm_bf16/s0@0 (the expert kernel) PASSED on two workloads with
speedups 1.25 and 0.8, speed-of-light fractions 0.6 and 0.4, wgmma executed
but only a token share of the FLOPs on one workload (its run-time verdict
`token`) and tma in the code but not triggered; its run JSON carries the
`feature_counts` summary eval writes. model-a/none/gemm_bf16/s0@0 ran
INCORRECT on the dev workload with wgmma not in its code and no
feature_counts (an older row: the report derives them from the workloads).
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
    "cublaslt_version": 130001, "peak_tflops": 800.0, "peak_gbps": 4000.0,
    "status": "PASSED",
    "workloads": [
        {"workload": "m4096", "split": "dev", "status": "PASSED",
         "speedup": 1.25, "sol_fraction": 0.6,
         "features": features((8, 4096, "executed"), (2, 0, "not triggered"))},
        {"workload": "m8192", "split": "heldout", "status": "PASSED",
         "speedup": 0.8, "sol_fraction": 0.4,
         "features": features((8, 8192, "token"), (2, 0, "not triggered")),
         "work_findings": [{"kind": "token-wgmma", "message":
                            "wgmma executed (8192 thread-instructions) but did "
                            "5.00% of the task's FLOPs"}]},
    ],
    "feature_counts": {
        "wgmma": {"in_code": 8, "executed": 12288, "verdict": "token",
                  "share": 0.05},
        "tma": {"in_code": 2, "executed": 0, "verdict": "not triggered"}},
}
incorrect = {
    "task": "gemm_bf16", "device": "NVIDIA H200 (sm_90a)", "arch": "sm_90a",
    "status": "INCORRECT",
    "workloads": [
        {"workload": "m4096", "split": "dev", "status": "INCORRECT",
         "speedup": 2.0,
         "features": features((0, 0, "not in code"), (0, 0, "not in code"))},
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
