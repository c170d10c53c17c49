"""Reasons for the fixit-reasons test, as `replay` writers would answer.

  reason_setup.py DIR   writes DIR/reasons-models.json (one replay writer
                        per kind below) and each writer's answer for the
                        pair of the repair test's s0 (the student's
                        fallback, INCORRECT, with the teacher's fix, PASSED
                        at 1.25x and 1.5x) and for the KernelGen record of
                        the teacher's fix
  reason_setup.py fail-run STORE
                        records the student's s0 as run and INCORRECT

Writers: truth (every claim holds), family (the fix "issues wgmma"),
speedup (a 3.5x the runs never measured), status (the failed kernel
"passed"), several (all three lies), none (no answer), explain-truth and
explain-lie (a KernelGen explanation that holds, and one claiming tcgen05).
"""
import hashlib, json, os, sqlite3, sys

TASK = "rmsnorm_h4096"
WRONG = f"student/none/{TASK}/s0@0"


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


FIXED = f"teacher/repair/{TASK}/r{sha(WRONG)}@1"
PAIR = "p" + sha(WRONG + "\n" + FIXED)
KERNEL = "k" + sha(FIXED)

TRUTH = ("I notice the original kernel reads each row with per-thread loads: no bulk copy is issued "
         "and mbarrier_tx is missing. Its output was incorrect on dev-1. I move each row into shared "
         "memory with one cp.async.bulk per block, completing on an mbarrier armed with expect_tx. "
         "The new kernel passes every workload at about 1.37x the library.")
LIES = {
    "family": " The fix then issues wgmma.mma_async for the sum of squares.",
    "speedup": " The fixed kernel is 3.5x faster than the library.",
    "status": " The original kernel passed every workload, only slowly.",
}
EXPLAIN = ("I copy four rows per block into shared memory with cp.async.bulk and wait on an mbarrier "
           "armed with expect_tx; a warp reduces each row in fp32. It passed every dev workload, "
           "1.25x and 1.5x over the library.")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def setup(out):
    answers = {"truth": TRUTH, "several": TRUTH + "".join(LIES.values())}
    answers.update({k: TRUTH + v for k, v in LIES.items()})
    models = {}
    for name in list(answers) + ["none", "explain-truth", "explain-lie"]:
        models["writer-" + name] = {"provider": "replay", "dir": os.path.join(out, "writers", name)}
    for name, text in answers.items():
        write(os.path.join(out, "writers", name, "reason", TASK, PAIR, "response.md"),
              "<think>scratch work</think>\n<reason>\n" + text + "\n</reason>\n")
    write(os.path.join(out, "writers", "explain-truth", "explain", TASK, KERNEL, "response.md"),
          "<reason>" + EXPLAIN + "</reason>")
    write(os.path.join(out, "writers", "explain-lie", "explain", TASK, KERNEL, "response.md"),
          "<reason>" + EXPLAIN + " The accumulators live in tensor memory, written by tcgen05.mma.</reason>")
    os.makedirs(os.path.join(out, "writers", "none"), exist_ok=True)
    write(os.path.join(out, "reasons-models.json"), json.dumps({"models": models}, indent=2))


def fail_run(store):
    run = {"task": TASK, "status": "INCORRECT", "device": "NVIDIA H200", "arch": "sm_90a",
           "workloads": [{"workload": "dev-1", "split": "dev", "status": "INCORRECT",
                          "message": "y: 4096 of 4096 elements out of tolerance"}]}
    db = sqlite3.connect(store)
    db.execute("UPDATE samples SET run_status = 'INCORRECT', run_json = ? WHERE model = 'student' AND sample_id = 's0'",
               (json.dumps(run),))
    db.commit()


if __name__ == "__main__":
    if sys.argv[1] == "fail-run":
        fail_run(sys.argv[2])
    else:
        setup(sys.argv[1])
