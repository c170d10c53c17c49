#!/usr/bin/env python3
"""Records run results in a results store that no `ptxbench run` writes, beside
one that it does, so the report's handling of a row it cannot read can be
checked without a GPU.

  hostile_runs.py STORE.sqlite

model-a/none/gemm s0@1 PASSED with a run result as the runtime writes it
(one dev workload, 1 ms against the library's 1.5 ms); s1@1 says PASSED with
`workloads` an object, s2@1 PASSED with a workload status that is no status
word, s3@1 PASSED with a negative median time. Every row requested wgmma and
used it statically.
"""
import json, sqlite3, sys

db = sqlite3.connect(sys.argv[1])
STATIC = json.dumps({"requested": ["wgmma"], "verdict": "used", "kernels": [
    {"name": "k", "requested": {"wgmma": "used"}, "fallbacks": []}]})


def timing(median_ms):
    """A timing as toJSON(TimingStats) writes it."""
    return {"samples": 40, "median_ms": median_ms, "q1_ms": median_ms, "q3_ms": median_ms,
            "min_ms": median_ms, "mean_ms": median_ms, "rse": 0.002, "clock_sampled": False,
            "throttled_discarded": 0, "throttled_kept": False, "min_clock_mhz": 0,
            "max_clock_mhz": 0}


def workload(status="PASSED", ms=1.0):
    return {"workload": "dev-1", "split": "dev", "status": status, "time": timing(ms),
            "baseline_time": timing(1.5),
            "features": [{"family": "wgmma", "in_code": 4, "executed": 4096,
                          "verdict": "used", "share": 1.0, "threshold": 0.9}]}


def run(workloads):
    return {"task": "gemm", "device": "NVIDIA H200", "status": "PASSED", "workloads": workloads}


rows = {
    "s0": run([workload()]),
    "s1": run({"dev-1": workload()}),
    "s2": run([workload(status="FAST")]),
    "s3": run([workload(ms=-1.0)]),
}
for sample, result in rows.items():
    db.execute("INSERT INTO samples (model, context, task, sample_id, turn, language, code, arch,"
               " shapes, status, run_status, static_json, run_json, recorded_at)"
               " VALUES ('model-a', 'none', 'gemm', ?, 1, 'cu', '// recorded', 'sm_90a', 'all',"
               " 'analyzed', 'PASSED', ?, ?, 1)", (sample, STATIC, json.dumps(result)))
db.commit()
