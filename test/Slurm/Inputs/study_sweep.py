"""A study file on a real single-node Slurm cluster, against the same study
run in one process.

    study_sweep.py --work DIR --src SRC --ptxbench BIN

The study (two tasks, a built-in and a defined tag, two turns, the corpus
model, static evaluation) runs once with `ptxbench study` (DIR/single) and
once through utils/slurm/submit-study.sh (DIR/slurm: one array task per
task of the study, then the merge job). The merged store must hold the same
rows as the single run's (array_sweep.py compares them) and the same
prompts, and resubmitting must change nothing.
"""
import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import array_sweep as sweep  # noqa: E402
import cluster as slurm  # noqa: E402

STUDY = {
    "name": "s", "models": ["corpus"], "tasks": ["gemm_bf16", "rmsnorm_h4096"],
    "tags": ["brief", "paper-ws"],
    "tag_definitions": {"paper-ws": ["isa-syntax", "card", "debugging", "warp-specialization"]},
    "replicas": 1, "turns": 2, "static_only": True, "out": "out",
}


def prompts(db):
    with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as c:
        return sorted(c.execute("select context, task, sha256 from prompts"))


def run(cl, args, tasks):
    cwd = os.path.join(args.work, "slurm")
    argv = [os.path.join(cwd, "study.json"), "--ptxbench", args.ptxbench, "--",
            "--tasks", tasks]
    array, merge = sweep.submit(cl, args.src, dict(cl.env), argv,
                                script="submit-study.sh", cwd=cwd)
    states = sweep.wait_jobs(cl, [array, merge], 120, "the study array")
    print("study array of %d tasks: %s; merge job: %s" % (
        len(STUDY["tasks"]), ",".join(s[0] for _, s in sorted(states[array].items())),
        states[merge][""][0]))
    merged = os.path.join(cwd, "out", "slurm", "all.sqlite")
    before = sweep.rows(merged)
    array, merge = sweep.submit(cl, args.src, dict(cl.env), argv,
                                script="submit-study.sh", cwd=cwd)
    states = sweep.wait_jobs(cl, [array, merge], 120, "the resubmission")
    print("resubmitted: %s; merge job: %s" % (
        ",".join(s[0] for _, s in sorted(states[array].items())), states[merge][""][0]))
    if sweep.rows(merged) != before:
        raise sweep.Failure("the merged store changed when the study was resubmitted")
    return merged


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--ptxbench", required=True)
    ap.add_argument("--timeout", type=int, default=200)
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    args.ptxbench = os.path.abspath(args.ptxbench)
    tasks = os.path.join(args.src, "tasks")

    def timed_out(*_):
        raise sweep.TimedOut()

    signal.signal(signal.SIGALRM, timed_out)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    signal.alarm(args.timeout)
    for where in ("single", "slurm"):
        os.makedirs(os.path.join(args.work, where))
        with open(os.path.join(args.work, where, "study.json"), "w") as f:
            json.dump(STUDY, f)
    single = os.path.join(args.work, "single")
    subprocess.run([args.ptxbench, "study", os.path.join(single, "study.json"), "--tasks", tasks],
                   cwd=single,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    single_db = os.path.join(single, "out", "results.sqlite")
    print("single-process study: %d turns recorded" % sweep.count(single_db))

    cl = slurm.Cluster(os.path.join(args.work, "cluster"), limit=args.timeout + 60)
    failed, merged = None, None
    try:
        with cl:
            try:
                merged = run(cl, args, tasks)
            except (sweep.Failure, slurm.ClusterError, sweep.TimedOut,
                    subprocess.SubprocessError) as e:
                failed = "%s\n%s\n%s" % (
                    e if not isinstance(e, sweep.TimedOut) else
                    "timed out after %ds" % args.timeout, cl.log_tails(),
                    sweep.tails(os.path.join(args.work, "slurm", "out", "slurm")))
    except (slurm.ClusterError, sweep.TimedOut) as e:
        failed = failed or "%s\n%s" % (e, cl.log_tails())
    signal.alarm(0)
    left = slurm.processes_left(cl)
    if left:
        failed = (failed or "") + "\nprocesses left after the stop: %s" % left
    if failed:
        print("FAILED: " + failed, file=sys.stderr)
        return 1
    print("cluster stopped: no daemon or job process left")
    try:
        sweep.compare_stores(single_db, merged, roots=(single, os.path.join(args.work, "slurm")))
    except sweep.Failure as e:
        print("FAILED: %s" % e, file=sys.stderr)
        return 1
    a, b = prompts(single_db), prompts(merged)
    print("prompts: %d in the single store, %s in the merged one" % (
        len(a), "the same" if a == b else "OTHERS: %s" % b))
    return 0


if __name__ == "__main__":
    sys.exit(main())
