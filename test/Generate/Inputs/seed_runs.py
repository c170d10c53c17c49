"""Records turn-1 run results in a store before a multi-turn run, as a GPU
would have produced them, so stopping early can be checked without a GPU.

  seed_runs.py STORE.sqlite

corpus/none/rmsnorm_h4096: s0 and s1 PASSED every workload with every
requested family executed and no fallback (finished after turn 1); s2 is
PASSED but one family was not triggered (not finished); s3 ran INCORRECT.
`ptxbench generate` finds them recorded, evaluates nothing for them, and
decides from the records.
"""
import json, sqlite3, subprocess, sys, time

store = sys.argv[1]
# The schema is the store's own: let the tool create it.
db = sqlite3.connect(store)
families = ["bulk_copy|tma", "mbarrier_tx"]


def static(fallbacks):
    return json.dumps({"requested": families, "kernels": [{
        "name": "rmsnorm", "requested": {f: "used" for f in families},
        "fallbacks": [{"kind": k, "message": "m"} for k in fallbacks]}]})


def run(status, verdicts):
    return json.dumps({"task": "rmsnorm_h4096", "status": status, "device": "NVIDIA H200",
                       "workloads": [{"workload": "dev-1", "split": "dev", "status": status,
                                      "speedup": 1.5, "sol_fraction": 0.5}],
                       "feature_counts": {f: {"in_code": 1, "executed": 1000 if v == "executed" else 0,
                                              "verdict": v} for f, v in zip(families, verdicts)}})


rows = {"s0": ("PASSED", ["executed", "executed"]), "s1": ("PASSED", ["executed", "executed"]),
        "s2": ("PASSED", ["executed", "not triggered"]), "s3": ("INCORRECT", ["executed", "executed"])}
for sample, (status, verdicts) in rows.items():
    db.execute("INSERT INTO samples (model, context, task, sample_id, turn, language, code, arch, shapes,"
               " status, run_status, static_json, run_json, recorded_at)"
               " VALUES ('corpus', 'none', 'rmsnorm_h4096', ?, 1, 'cu', '// seeded', 'sm_90a', 'dev',"
               " 'analyzed', ?, ?, ?, ?)",
               (sample, status, static([]), run(status, verdicts), int(time.time() * 1000)))
db.commit()
