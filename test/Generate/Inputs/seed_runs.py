"""Records turn-1 run results in a store before a multi-turn run, as a GPU
sweep of the turn-1 answers would have, so stopping early can be checked
without a GPU.

  seed_runs.py STORE.sqlite

corpus/none/rmsnorm_h4096: s0 and s1 PASSED every workload with every
requirement doing the work (finished after turn 1): the bytes came through
bulk copies and no TMA, which satisfies the requirement `bulk_copy|tma`; s2
is PASSED but its mbarrier_tx was not triggered (not finished); s3 ran
INCORRECT. `ptxbench generate` finds them recorded, evaluates nothing for
them, and decides from the records.

The run JSON has the shape `ptxbench run --json` writes: each family counted
on its own in every workload's `features`, with `in_code`, `executed`,
`verdict`, `share` and `threshold`, and every workload timed (`time` and
`baseline_time` in the shape of toJSON(TimingStats), a speedup of 1.5) with
its FLOPs and bytes against the run's peaks (half the DRAM bandwidth). The
derived keys the runtime also writes (`speedup`, `sol_fraction`,
`feature_counts`) are left out: readers compute them from these.
unittests/Eval/SolvedTest.cpp makes the same records with the writers
themselves. The rows are recorded after the answers the run writes (an hour
ahead), as an evaluation of those answers would be.
"""
import json, sqlite3, sys, time

store = sys.argv[1]
# The schema is the store's own: let the tool create it.
db = sqlite3.connect(store)
requirements = ["bulk_copy|tma", "mbarrier_tx"]


def static(fallbacks):
    return json.dumps({"requested": requirements, "verdict": "used", "kernels": [{
        "name": "rmsnorm", "requested": {r: "used" for r in requirements},
        "fallbacks": [{"kind": k, "message": "m"} for k in fallbacks]}]})


def feature(family, in_code, executed, share):
    verdict = ("not in code" if not in_code else "not triggered" if not executed
               else "used" if share >= 0.9 else "token")
    return {"family": family, "in_code": in_code, "executed": executed,
            "verdict": verdict, "share": share, "threshold": 0.9}


def timing(median_ms):
    """A timing as toJSON(TimingStats) writes it."""
    return {"samples": 40, "median_ms": median_ms, "q1_ms": median_ms, "q3_ms": median_ms,
            "min_ms": median_ms, "mean_ms": median_ms, "rse": 0.002, "clock_sampled": False,
            "throttled_discarded": 0, "throttled_kept": False, "min_clock_mhz": 0,
            "max_clock_mhz": 0}


def run(status, mbarrier_executed):
    features = [feature("bulk_copy", 1, 4096, 1.0), feature("tma", 0, 0, 0.0),
                feature("mbarrier_tx", 2, mbarrier_executed,
                        1.0 if mbarrier_executed else 0.0)]
    # 0.04 ms for 80 MB against 4000 GB/s is half the speed of light.
    workloads = [{"workload": w, "split": "dev", "status": status, "flops": 1.0e7,
                  "bytes": 8.0e7, "time": timing(0.04), "baseline_time": timing(0.06),
                  "features": features} for w in ("dev-1", "dev-2")]
    return json.dumps({"task": "rmsnorm_h4096", "status": status, "device": "NVIDIA H200",
                       "arch": "sm_90a", "peak_tflops": 800.0, "peak_gbps": 4000.0,
                       "workloads": workloads})


rows = {"s0": ("PASSED", 8192), "s1": ("PASSED", 8192), "s2": ("PASSED", 0),
        "s3": ("INCORRECT", 8192)}
later = int((time.time() + 3600) * 1000)
for sample, (status, mbarrier) in rows.items():
    db.execute("INSERT INTO samples (model, context, task, sample_id, turn, language, code, arch, shapes,"
               " status, run_status, static_json, run_json, recorded_at)"
               " VALUES ('corpus', 'none', 'rmsnorm_h4096', ?, 1, 'cu', '// seeded', 'sm_90a', 'dev',"
               " 'analyzed', ?, ?, ?, ?)",
               (sample, status, static([]), run(status, mbarrier), later))
db.commit()
