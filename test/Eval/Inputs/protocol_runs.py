#!/usr/bin/env python3
"""Records multi-turn GPU run results with usage in a results store, as
`generate --db` with GPU runs would, so the report's protocol metrics can be
checked against a hand count without a GPU.

  protocol_runs.py STORE.sqlite

Every task requests wgmma; "credited" rows have wgmma `used`, "token" rows
`token`. Speedups are the dev workloads' (a held-out workload runs too).

model-a/none/gemm     s0: t1 INCORRECT; t2 PASSED credited (0.8, 1.1);
                          t3 PASSED credited (1.4, 1.5)
                      s1: t1 PASSED token (2.2, 2.5)
model-a/none/rmsnorm  s0: t1 PASSED credited (1.1, 1.2)
model-b/none/gemm     s0: t1 NO_GPU; t2 PASSED credited (1.0, 0.9)
                      s1: t1 dev PASSED at 5.0 but its held-out workload
                          INCORRECT (the run is INCORRECT: no credit, no
                          speedup)
model-c/none/gemm     s0: t1 NO_GPU (no GPU run in the group)

Usage per row: model-a 1000 in / 200 out / 0 reasoning, $0.01, 2 s;
model-b 2000 / 3000 / 2500 reasoning, $0.05, 10 s (its t2 estimated; s1
none recorded); model-c none.

Each workload has its `time` and `baseline_time` in the shape of
toJSON(TimingStats) (ours 1 ms, the library's the speedup in ms): the report
computes the speedups from them, as the runtime's writer does, and the rows
carry none of the derived keys (`speedup`, `feature_counts`).
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


def workload(name, split, status, speedup, verdict):
    share = 1.0 if verdict == "used" else 0.05
    return {"workload": name, "split": split, "status": status,
            "time": timing(1.0), "baseline_time": timing(speedup),
            "features": [{"family": "wgmma", "in_code": 4, "executed": 4096,
                          "verdict": verdict, "share": share, "threshold": 0.9}]}


def run(dev, verdict="used", heldout="PASSED", device="NVIDIA H200"):
    if dev is None:
        return "NO_GPU", json.dumps({"task": "t", "device": "", "status": "NO_GPU", "workloads": [
            {"workload": "dev-1", "split": "dev", "status": "NO_GPU", "message": "no GPU"}]})
    ws = [workload("dev-%d" % (i + 1), "dev", "PASSED", s, verdict) for i, s in enumerate(dev)]
    ws.append(workload("held-1", "heldout", heldout, 1.0, verdict))
    status = "PASSED" if heldout == "PASSED" else "INCORRECT"
    return status, json.dumps({"task": "t", "device": device, "status": status,
                               "workloads": ws})


A = (1000, 200, 0, 0.01, 2.0, "reported")
B = (2000, 3000, 2500, 0.05, 10.0, "reported")
B_EST = (2000, 3000, 2500, 0.05, 10.0, "estimated")
NONE = (0, 0, 0, 0.0, 0.0, "")
rows = [
    ("model-a", "gemm", "s0", 1, ("INCORRECT", None), A),
    ("model-a", "gemm", "s0", 2, run([0.8, 1.1]), A),
    ("model-a", "gemm", "s0", 3, run([1.4, 1.5]), A),
    ("model-a", "gemm", "s1", 1, run([2.2, 2.5], verdict="token"), A),
    ("model-a", "rmsnorm", "s0", 1, run([1.1, 1.2]), A),
    ("model-b", "gemm", "s0", 1, run(None), B),
    ("model-b", "gemm", "s0", 2, run([1.0, 0.9]), B_EST),
    ("model-b", "gemm", "s1", 1, run([5.0, 5.0], heldout="INCORRECT"), NONE),
    ("model-c", "gemm", "s0", 1, run(None), NONE),
]
for model, task, sample, turn, result, usage in rows:
    status, run_json = result
    if run_json is None:  # incorrect on a dev workload
        ws = [workload("dev-1", "dev", "INCORRECT", 3.0, "used")]
        run_json = json.dumps({"task": task, "device": "NVIDIA H200", "status": "INCORRECT",
                               "workloads": ws})
    db.execute("INSERT INTO samples (model, context, task, sample_id, turn, language, code, arch,"
               " shapes, status, run_status, static_json, run_json, recorded_at, input_tokens,"
               " output_tokens, reasoning_tokens, cost_usd, latency_s, usage_source)"
               " VALUES (?, 'none', ?, ?, ?, 'cu', '// recorded', 'sm_90a', 'all', 'analyzed', ?, ?,"
               " ?, 1, ?, ?, ?, ?, ?, ?)",
               (model, task, sample, turn, status, STATIC, run_json) + usage)
db.commit()
