"""`ptxbench generate` as an array job on a real single-node Slurm cluster,
checked against a single-process run.

    generate_sweep.py --work DIR --src SRC --ptxbench BIN

The built-in corpus model answers (no network), two turns, static
evaluation. DIR/single: one `generate` process over both tasks. DIR/slurm:
utils/slurm/submit-generate.sh, one array task per task (each its own
store), the merge job after it; then one turn's folder is removed (as a
task killed before finishing it leaves it) and that array task is
resubmitted alone: it must send only that turn and leave the merged store
as it was. The merged store must equal the single-process one (as
array_sweep.py compares), and both sample trees must hold the same files
with the same answers.
"""
import argparse
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import array_sweep as sweep  # noqa: E402
import cluster as slurm  # noqa: E402

TASKS = ["gemm_bf16", "rmsnorm_h4096"]


def generate_args(src):
    return ["--model", "corpus", "--tasks", os.path.join(src, "tasks"),
            "--arch", "sm_90a", "--context", "none,brief", "--samples", "2",
            "--turns", "2", "--out", "samples"]


def tree(root):
    """{relative path: content} of the answers (response.md) under root."""
    files = {}
    for d, _, names in os.walk(root):
        for name in names:
            if name == "response.md":
                path = os.path.join(d, name)
                with open(path) as f:
                    files[os.path.relpath(path, root)] = f.read()
    return files


def run(cl, args):
    results = os.path.join(args.work, "slurm", "results")
    cwd = os.path.join(args.work, "slurm")
    os.makedirs(cwd)
    array, merge = sweep.submit(
        cl, args.src, dict(cl.env),
        ["--task-list", ",".join(TASKS), "--results", results, "--ptxbench",
         args.ptxbench, "--"] + generate_args(args.src),
        script="submit-generate.sh", cwd=cwd)
    states = sweep.wait_jobs(cl, [array, merge], 120, "the generate array")
    print("generate array of %d tasks: %s; merge job: %s" % (
        len(TASKS), ",".join(s[0] for _, s in sorted(states[array].items())),
        states[merge][""][0]))
    merged = os.path.join(results, "all.sqlite")
    before = sweep.rows(merged)

    # A turn a killed task had not finished is absent (generate writes a
    # turn's files atomically, generation.json last): remove one.
    import glob
    import shutil
    lost = sorted(glob.glob(os.path.join(cwd, "samples", "*", "*", TASKS[1],
                                         "*", "turn2")))[0]
    shutil.rmtree(lost)
    print("removed %s" % os.path.relpath(lost, cwd))

    array, merge = sweep.submit(
        cl, args.src, dict(cl.env),
        ["--task-list", ",".join(TASKS), "--results", results, "--ptxbench",
         args.ptxbench, "--array", "1", "--"] + generate_args(args.src),
        script="submit-generate.sh", cwd=cwd)
    states = sweep.wait_jobs(cl, [array, merge], 120, "the resubmission")
    with open(os.path.join(results, "logs", "shard-1.out")) as f:
        done = [l for l in f.read().splitlines()
                if l.startswith("generated")]
    print("resubmitted task 1 (%s): %s; merge job: %s" % (
        TASKS[1], ",".join(s[0] for s in states[array].values()),
        states[merge][""][0]))
    print("its log: " + " / ".join(l.split(";")[0] for l in done))
    if sweep.rows(merged) != before:
        raise sweep.Failure("the merged store changed after the resumed "
                            "task redid the missing turn")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--ptxbench", required=True)
    ap.add_argument("--timeout", type=int, default=200)
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    args.ptxbench = os.path.abspath(args.ptxbench)

    def timed_out(*_):
        raise sweep.TimedOut()

    def terminated(*_):
        raise SystemExit("terminated")

    signal.signal(signal.SIGALRM, timed_out)
    signal.signal(signal.SIGTERM, terminated)
    signal.alarm(args.timeout)

    single = os.path.join(args.work, "single")
    os.makedirs(single)
    subprocess.run([args.ptxbench, "generate"] + generate_args(args.src) +
                   ["--task", ",".join(TASKS), "--db", "g.sqlite",
                    "--static-only"], cwd=single, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120)
    print("single-process generate: %d turns recorded" % sweep.count(
        os.path.join(single, "g.sqlite")))

    cl = slurm.Cluster(os.path.join(args.work, "cluster"),
                       limit=args.timeout + 60)
    failed = None
    try:
        with cl:
            try:
                run(cl, args)
            except (sweep.Failure, slurm.ClusterError, sweep.TimedOut,
                    subprocess.SubprocessError) as e:
                failed = "%s\n%s\n%s" % (
                    e if not isinstance(e, sweep.TimedOut) else
                    "timed out after %ds" % args.timeout, cl.log_tails(),
                    sweep.tails(os.path.join(args.work, "slurm")))
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
        sweep.compare_stores(os.path.join(single, "g.sqlite"), os.path.join(
            args.work, "slurm", "results", "all.sqlite"),
            roots=(os.path.abspath(single),
                   os.path.abspath(os.path.join(args.work, "slurm"))))
    except sweep.Failure as e:
        print("FAILED: %s" % e, file=sys.stderr)
        return 1
    a = tree(os.path.join(single, "samples"))
    b = tree(os.path.join(args.work, "slurm", "samples"))
    if a != b:
        print("FAILED: the sample trees differ: %s" % sorted(
            set(a.items()) ^ set(b.items()))[:4], file=sys.stderr)
        return 1
    print("sample trees equal: %d answers" % len(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
