"""Records timed run results for several turns in a store before a
`generate --target-speedup` run, as GPU runs of those turns' answers would
have, so optimization turns can be checked without a GPU.

  seed_speedups.py STORE.sqlite

corpus/none/rmsnorm_h4096, every requirement credited unless said:
  s0  turn 1 PASSED, dev speedups 1.05 and 1.5 (short of 1.2 on dev-1);
      turn 2 PASSED at 1.25 and 1.3 (at the target)
  s1  turn 1 PASSED at 1.3 and 1.4 (at the target)
  s2  turn 1 PASSED at 1.5 and 1.5 but mbarrier_tx not triggered;
      turn 2 PASSED at 1.5 and 1.5, credited
  s3  turn 1 PASSED at 1.5 on dev-1 and no library time on dev-2 (its
      speedup unknown); later turns are evaluated statically (never timed)
  s4  turn 1 PASSED at 1.3 and 1.3 on dev, 0.5 on a held-out workload
      (held-out workloads are not the target's)
  s5  turn 1 INCORRECT on dev-2 with dev speedups 3.0 and 3.0 (a wrong
      answer reaches no target)

The run JSON has the shape `ptxbench run --json` writes: `time` and
`baseline_time` per workload in the shape of toJSON(TimingStats) (ours
0.1 ms, the library's 0.1 ms times the speedup), each family counted in
`features`, and the `split` eval adds. The speedups are computed from the
timings, as the runtime's writer computes them; the derived keys it also
writes (`speedup`, `feature_counts`) are left out. Rows are recorded an hour
ahead, as an evaluation of the answers the run writes would be.
"""
import json, sqlite3, sys, time

store = sys.argv[1]
db = sqlite3.connect(store)
requirements = ["bulk_copy|tma", "mbarrier_tx"]


def static():
    return json.dumps({"requested": requirements, "verdict": "used", "kernels": [{
        "name": "rmsnorm", "requested": {r: "used" for r in requirements}, "fallbacks": []}]})


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


def workload(name, split, status, speedup, mbarrier):
    w = {"workload": name, "split": split, "status": status,
         "features": [feature("bulk_copy", 1, 4096, 1.0), feature("tma", 0, 0, 0.0),
                      feature("mbarrier_tx", 2, mbarrier, 1.0 if mbarrier else 0.0)]}
    w["time"] = timing(0.1)
    if speedup is not None:
        w["baseline_time"] = timing(0.1 * speedup)
    return w


def run(workloads):
    status = "PASSED" if all(w["status"] == "PASSED" for w in workloads) else "INCORRECT"
    return status, json.dumps({"task": "rmsnorm_h4096", "status": status, "device": "NVIDIA H200",
                               "arch": "sm_90a", "baseline": "cublaslt", "workloads": workloads})


def dev(s1, s2, mbarrier=8192, status2="PASSED"):
    return [workload("dev-1", "dev", "PASSED", s1, mbarrier),
            workload("dev-2", "dev", status2, s2, mbarrier)]


rows = {
    ("s0", 1): dev(1.05, 1.5), ("s0", 2): dev(1.25, 1.3),
    ("s1", 1): dev(1.3, 1.4),
    ("s2", 1): dev(1.5, 1.5, mbarrier=0), ("s2", 2): dev(1.5, 1.5),
    ("s3", 1): dev(1.5, None),
    ("s4", 1): dev(1.3, 1.3) + [workload("held-1", "heldout", "PASSED", 0.5, 8192)],
    ("s5", 1): dev(3.0, 3.0, status2="INCORRECT"),
}
later = int((time.time() + 3600) * 1000)
for (sample, turn), workloads in rows.items():
    status, run_json = run(workloads)
    db.execute("INSERT INTO samples (model, context, task, sample_id, turn, language, code, arch, shapes,"
               " status, run_status, static_json, run_json, recorded_at)"
               " VALUES ('corpus', 'none', 'rmsnorm_h4096', ?, ?, 'cu', '// seeded', 'sm_90a', 'dev',"
               " 'analyzed', ?, ?, ?, ?)",
               (sample, turn, status, static(), run_json, later))
db.commit()
