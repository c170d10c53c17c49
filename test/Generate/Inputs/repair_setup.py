"""Answers for the repair tests: a student whose kernels fail and a teacher
who repairs one of them, both `replay` models, and a store row that stands
for the GPU run of the repair that passed.

  repair_setup.py student DIR TASKS   the student's answers under DIR/student
                                      (s0 and s2 the fallback plain.cu, s1
                                      the incorrect wrong_eps.cu) and
                                      DIR/models.json (student, teacher)
  repair_setup.py teacher DIR TASKS   the teacher's answers under
                                      DIR/teacher/repair/<task>/<id>: for s0
                                      the expert bulk_mbarrier.cu at turn 1,
                                      for s1 plain.cu at turns 1 to 3
  repair_setup.py seed STORE DIR TASKS
                                      records the teacher's turn 1 for s0 as
                                      a timed run that PASSED with every
                                      requirement credited (an hour ahead,
                                      as an evaluation of that answer)
  repair_setup.py id KEY              the repair sample id of a failed key

The repair id is `r` and 16 hex digits of the SHA-256 of the failed
sample's key (docs/fixit.md).
"""
import hashlib, json, os, sqlite3, sys, time

TASK = "rmsnorm_h4096"


def repair_id(key):
    return "r" + hashlib.sha256(key.encode()).hexdigest()[:16]


def answer(tasks, solution):
    with open(os.path.join(tasks, TASK, "solutions", solution)) as f:
        return "Here is the kernel.\n\n```cuda\n" + f.read() + "```\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def student(out, tasks):
    for sid, sol in (("s0", "plain.cu"), ("s1", "wrong_eps.cu"), ("s2", "plain.cu")):
        write(os.path.join(out, "student", "none", TASK, sid, "response.md"), answer(tasks, sol))
    models = {"models": {"student": {"provider": "replay", "dir": os.path.join(out, "student")},
                         "teacher": {"provider": "replay", "dir": os.path.join(out, "teacher")}}}
    write(os.path.join(out, "models.json"), json.dumps(models, indent=2))


def teacher_dir(out, sid):
    return os.path.join(out, "teacher", "repair", TASK, repair_id(f"student/none/{TASK}/{sid}@0"))


def teacher(out, tasks):
    write(os.path.join(teacher_dir(out, "s0"), "turn1", "response.md"), answer(tasks, "bulk_mbarrier.cu"))
    for turn in (1, 2, 3):
        write(os.path.join(teacher_dir(out, "s1"), f"turn{turn}", "response.md"), answer(tasks, "plain.cu"))


def seed(store, out, tasks):
    requirements = ["bulk_copy|tma", "mbarrier_tx"]
    static = json.dumps({"requested": requirements, "verdict": "used", "kernels": [{
        "name": "rmsnorm", "requested": {r: "used" for r in requirements}, "fallbacks": [],
        "features": {"bulk_copy": {"count": 4, "reachable": True, "reachable_count": 4},
                     "mbarrier_tx": {"count": 2, "reachable": True, "reachable_count": 2}}}]})

    def feature(family, in_code, executed, share):
        return {"family": family, "in_code": in_code, "executed": executed,
                "verdict": "used" if executed else "not in code", "share": share, "threshold": 0.9}

    def timing(median_ms):  # as toJSON(TimingStats) writes it
        return {"samples": 40, "median_ms": median_ms, "q1_ms": median_ms,
                "q3_ms": median_ms, "min_ms": median_ms, "mean_ms": median_ms, "rse": 0.002,
                "clock_sampled": False, "throttled_discarded": 0, "throttled_kept": False,
                "min_clock_mhz": 0, "max_clock_mhz": 0}

    # Timed as the runtime times (readers compute the speedups 1.25 and 1.5
    # from the medians); no derived keys (`speedup`, `feature_counts`).
    workloads = [{"workload": w, "split": "dev", "status": "PASSED",
                  "time": timing(0.1), "baseline_time": timing(0.1 * s),
                  "features": [feature("bulk_copy", 4, 4096, 1.0), feature("tma", 0, 0, 0.0),
                               feature("mbarrier_tx", 2, 8192, 1.0)]}
                 for w, s in (("dev-1", 1.25), ("dev-2", 1.5))]
    run = json.dumps({"task": TASK, "status": "PASSED", "device": "NVIDIA H200", "arch": "sm_90a",
                      "baseline": "cublaslt", "workloads": workloads})
    with open(os.path.join(tasks, TASK, "solutions", "bulk_mbarrier.cu")) as f:
        code = f.read()
    db = sqlite3.connect(store)
    db.execute("INSERT OR REPLACE INTO samples (model, context, task, sample_id, turn, language, code, arch,"
               " shapes, status, run_status, static_json, run_json, recorded_at)"
               " VALUES ('teacher', 'repair', ?, ?, 1, 'cu', ?, 'sm_90a', 'dev', 'analyzed', 'PASSED', ?, ?, ?)",
               (TASK, os.path.basename(teacher_dir(out, "s0")), code, static, run,
                int((time.time() + 3600) * 1000)))
    db.commit()


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "student":
        student(sys.argv[2], sys.argv[3])
    elif what == "teacher":
        teacher(sys.argv[2], sys.argv[3])
    elif what == "seed":
        seed(sys.argv[2], sys.argv[3], sys.argv[4])
    elif what == "id":
        print(repair_id(sys.argv[2]))
    else:
        sys.exit("unknown step " + what)
