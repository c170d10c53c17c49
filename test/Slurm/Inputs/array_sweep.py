"""A sharded sweep on a real single-node Slurm cluster, checked against a
single-process run.

    array_sweep.py --work DIR --src SRC --ptxbench BIN [--shards N]
                   [--timeout S]

DIR holds tasks/ and samples/ (test/Eval/Inputs/make_samples.py). Steps:

1. `ptxbench eval --static-only` in one process into DIR/single.sqlite.
2. A cluster (cluster.py) in DIR/cluster; utils/slurm/submit-sweep.sh
   submits N shards as an array job and the merge job after it. The largest
   shard runs through pausing_ptxbench.py, which holds it after its first
   recorded sample; the test cancels that task (scancel), and the merge job,
   whose dependency can no longer be met, is cancelled by Slurm.
3. The cancelled shard is resubmitted on its own (--array K), with its
   merge job; both must complete.
4. A GPU sweep of 2 shards (--gpus-per-task 1) on the cluster's two
   stand-in GPUs: every run must be pinned to the CUDA_VISIBLE_DEVICES that
   Slurm gave its task.
5. The merged store must equal the single-process one, row by row.

Every wait is bounded; a failure prints the daemons' and the jobs' log
tails. The cluster is stopped in every exit path, and the test fails if a
process of it is left.
"""
import argparse
import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster as slurm  # noqa: E402

TERMINAL = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL",
            "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}
# Every column of the store must be the same in the merged store and the
# single-process one, byte for byte, but: id, timings (latency_s is how long
# the answer took to come), recorded_at, and
# reused_from: code with the same canonical hash shares one GPU run per
# process, so which copy ran, and which copies name it, depends on the shard.
# Every copy is analyzed itself, so even their reports must be equal.
KEY = ("model", "context", "task", "sample_id", "turn")
NOT_COMPARED = ("id", "static_seconds", "run_seconds", "latency_s",
                "recorded_at", "reused_from")


class Failure(Exception):
    pass


class TimedOut(BaseException):
    pass


def columns(db):
    with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as c:
        return [r[1] for r in c.execute("pragma table_info(samples)")
                if r[1] not in KEY + NOT_COMPARED]


def rows(db):
    """{key: (compared columns..., reused)} of a store."""
    with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as c:
        return {tuple(r[:5]): tuple(r[5:]) for r in c.execute(
            "select %s, %s, reused_from <> '' from samples" % (
                ", ".join(KEY), ", ".join(columns(db))))}


def count(db, where=""):
    with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as c:
        return c.execute("select count(*) from samples " + where).fetchone()[0]


def shard_of(key, shards):
    """lib/Eval/SampleTree.cpp's inShard: the first 8 bytes of the key's
    SHA-256, big-endian, modulo the shard count."""
    text = "%s/%s/%s/%s@%d" % key
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8],
                          "big") % shards


def job_states(cl, job):
    """{array task id or '': (state, reason)} of a job (all its tasks)."""
    r = cl.run(["scontrol", "-o", "show", "job", str(job)], check=False)
    if r.returncode != 0:
        # A busy controller may not answer at once; the caller waits on.
        return {"?": ("UNKNOWN", r.stderr.strip())}
    out = r.stdout
    states = {}
    for line in out.splitlines():
        f = dict(m.groups() for m in re.finditer(r"(\S+?)=(\S*)", line))
        states[f.get("ArrayTaskId", "")] = (f.get("JobState", "?"),
                                            f.get("Reason", ""))
    return states


def wait_jobs(cl, jobs, timeout, what):
    """Waits until every task of `jobs` is in a final state."""
    deadline = time.monotonic() + timeout
    while True:
        states = {job: job_states(cl, job) for job in jobs}
        if all(s[0] in TERMINAL for st in states.values()
               for s in st.values()):
            return states
        if time.monotonic() > deadline:
            raise Failure("%s: jobs not finished after %ds: %s" % (
                what, timeout, states))
        time.sleep(0.25)


def submit(cl, src, env, argv, script="submit-sweep.sh", cwd=None):
    out = subprocess.run([os.path.join(src, "utils", "slurm", script)] + argv,
                         env=env, capture_output=True, text=True, timeout=60,
                         cwd=cwd)
    if out.returncode != 0:
        raise Failure(script + " failed (exit %d): %s%s" % (
            out.returncode, out.stdout, out.stderr))
    ids = dict(line.split("=", 1) for line in out.stdout.split()
               if "=" in line)
    return ids["array_job"], ids["merge_job"]


def tails(folder, lines=20):
    out = []
    logs = os.path.join(folder, "results", "logs")
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        with open(os.path.join(logs, name), errors="replace") as f:
            out.append("--- last lines of %s ---" % name)
            out.extend(f.read().splitlines()[-lines:])
    return "\n".join(out)


def sweep(cl, args, sizes, pause):
    work, N = args.work, args.shards
    results = os.path.join(work, "results")
    flag = os.path.join(work, "paused")
    eval_args = ["--", "--tasks", "tasks", "--samples", "samples"]
    wrapper = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "pausing_ptxbench.py")
    env = dict(cl.env, PTXBENCH_REAL=args.ptxbench,
               PTXBENCH_PAUSE_SHARD=str(pause), PTXBENCH_PAUSE_FILE=flag)

    start = time.monotonic()
    array, merge = submit(cl, args.src, env,
                          ["--shards", str(N), "--results", results,
                           "--ptxbench", wrapper,
                           "--sbatch-arg=--time=10"] + eval_args)
    print("submitted %d shards as array job %s, merge job %s after it"
          % (N, array, merge))
    shown = cl.run(["scontrol", "-o", "show", "job", array]).stdout
    if "TimeLimit=00:10:00" not in shown:
        raise Failure("--sbatch-arg=--time=10 did not reach the array job: "
                      + shown)

    # Hold the largest shard after its first sample, then cancel it.
    deadline = time.monotonic() + 90
    while not os.path.exists(flag):
        if time.monotonic() > deadline:
            raise Failure("shard %d did not record a sample within 90s: %s"
                          % (pause, job_states(cl, array)))
        time.sleep(0.1)
    with open(flag) as f:
        held = f.read().split()
    if held[0] != "paused":
        raise Failure("shard %d finished before it could be held (%s)"
                      % (pause, " ".join(held)))
    cl.run(["scancel", "%s_%d" % (array, pause)])
    states = wait_jobs(cl, [array, merge], 60, "after the cancel")
    tasks = {int(t): s for t, s in states[array].items()}
    merge_state = states[merge][""]
    recorded = count(os.path.join(results, "shard-%d.sqlite" % pause))
    print("shard %d cancelled with %d of %d samples recorded: %s" % (
        pause, recorded, sizes[pause], tasks[pause][0]))
    others = sorted(set(tasks[t][0] for t in tasks if t != pause))
    print("other shards: %s" % ",".join(others))
    print("merge job: %s (%s)" % merge_state)
    if not 0 < recorded < sizes[pause]:
        raise Failure("shard %d was cancelled with %d of %d samples recorded,"
                      " not part-way" % (pause, recorded, sizes[pause]))
    if os.path.exists(os.path.join(results, "all.sqlite")):
        raise Failure("a merged store exists although a shard was cancelled")

    # Resubmit the cancelled shard alone; its merge covers all shards.
    env = dict(cl.env)
    array, merge = submit(cl, args.src, env,
                          ["--shards", str(N), "--results", results,
                           "--ptxbench", args.ptxbench, "--array",
                           str(pause)] + eval_args)
    states = wait_jobs(cl, [array, merge], 90, "after the resubmission")
    print("resubmitted shard %d: %s; merge job: %s" % (
        pause, ",".join(s[0] for s in states[array].values()),
        states[merge][""][0]))
    with open(os.path.join(results, "logs", "shard-%d.out" % pause)) as f:
        runs = [l for l in f.read().splitlines() if l.startswith("evaluated")]
    print("shard %d's log: %s" % (pause, " / ".join(runs)))
    return time.monotonic() - start


def gpu_sweep(cl, args):
    """GPU runs: each task asks for --gres=gpu:1 of the cluster's stand-in
    GPUs, and every run of its shard is pinned to the CUDA_VISIBLE_DEVICES
    Slurm gave it. (Without a GPU the runs end NO_GPU or PLAN_ERROR; which
    does not matter here.)"""
    import shutil
    samples = os.path.join(args.work, "gpu-samples")
    shutil.copytree(os.path.join(args.work, "samples", "model-a"),
                    os.path.join(samples, "model-a"))
    results = os.path.join(args.work, "gpu-results")
    array, merge = submit(cl, args.src, dict(cl.env),
                          ["--shards", "2", "--results", results,
                           "--gpus-per-task", "1", "--ptxbench",
                           args.ptxbench, "--", "--tasks", "tasks",
                           "--samples", "gpu-samples", "--timeout", "60"])
    states = wait_jobs(cl, [array, merge], 120, "the GPU sweep")
    print("GPU sweep, 2 shards with --gres=gpu:1: %s; merge job: %s" % (
        ",".join(s[0] for _, s in sorted(states[array].items())),
        states[merge][""][0]))
    used, runs = set(), 0
    for k in range(2):
        with open(os.path.join(results, "logs", "shard-%d.out" % k)) as f:
            given = re.search(r"CUDA_VISIBLE_DEVICES=(\S+)\)",
                              f.read()).group(1)
        used.add(given)
        with sqlite3.connect(os.path.join(results, "shard-%d.sqlite" % k)) \
                as c:
            for key, run_status, env in c.execute(
                    "select sample_id, run_status, environment_json from "
                    "samples where status = 'analyzed'"):
                pinned = json.loads(env).get("cuda_visible_devices")
                if not run_status or pinned != given:
                    raise Failure("shard %d was given GPU %s, but %s ran on "
                                  "%r (run status %r)" % (
                                      k, given, key, pinned, run_status))
                runs += 1
    if not used <= {"0", "1"}:
        raise Failure("Slurm gave GPUs %s, not of the node's 0,1" % used)
    # Where the stand-in GPUs are not real, every run found no GPU: each
    # shard exits 3 (docs/cli.md), Slurm marks it FAILED and the merge job,
    # which needs every shard to succeed, is cancelled.
    merged = os.path.join(results, "all.sqlite")
    print("%d runs, each on the GPU Slurm gave its shard (GPUs %s); %s" % (
        runs, ",".join(sorted(used)),
        "merged store: %d samples" % count(merged) if os.path.exists(merged)
        else "no merged store (no GPU: the shards exited 3)"))


def compare(work, single_db):
    compare_stores(single_db, os.path.join(work, "results", "all.sqlite"))


def compare_stores(single_db, merged_db, roots=None):
    """Compares two stores row by row. `roots`: the two runs' working
    folders when they differ; the compiler names CUDA sources by absolute
    path, so the merged run's folder reads as the single run's."""
    single, merged = rows(single_db), rows(merged_db)
    total = count(merged_db)
    print("merged store: %d rows, %d keys" % (total, len(merged)))
    if set(single) != set(merged):
        raise Failure("keys differ: only in the single-process run: %s; only"
                      " in the merged store: %s" % (
                          sorted(set(single) - set(merged)),
                          sorted(set(merged) - set(single))))
    names = columns(single_db)
    if names != columns(merged_db):
        raise Failure("the stores' schemas differ")
    exact = 0
    for key in sorted(single):
        reused = single[key][-1] or merged[key][-1]
        exact += not reused
        for name, a, b in zip(names, single[key], merged[key]):
            if roots and isinstance(b, str):
                b = b.replace(roots[1] + "/", roots[0] + "/")
            if a != b:
                raise Failure("%s differs for %s: %r (single) vs %r (merged)"
                              % (name, "/".join(map(str, key)), a, b))
    print("%d samples ran or were analyzed only themselves in both runs, %d"
          " took the run of a copy in either" % (exact, len(single) - exact))
    statuses = {}
    for r in single.values():
        statuses[r[names.index("status")]] = statuses.get(
            r[names.index("status")], 0) + 1
    hashes = len(set(r[names.index("canonical_hash")]
                     for r in single.values() if r[names.index(
                         "canonical_hash")]))
    print("merged store equals the single-process run: %d samples (%s), "
          "%d distinct hashes, %d columns compared" % (len(single), ", ".join(
              "%s %d" % kv for kv in sorted(statuses.items())), hashes,
          len(names)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--ptxbench", required=True)
    ap.add_argument("--shards", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=240)
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    args.ptxbench = os.path.abspath(args.ptxbench)
    os.chdir(args.work)

    def timed_out(*_):
        raise TimedOut()

    def terminated(*_):
        raise SystemExit("terminated")

    signal.signal(signal.SIGALRM, timed_out)
    signal.signal(signal.SIGTERM, terminated)
    signal.alarm(args.timeout)
    t0 = time.monotonic()

    single_db = os.path.join(args.work, "single.sqlite")
    subprocess.run([args.ptxbench, "eval", "--tasks", "tasks", "--samples",
                    "samples", "--db", single_db, "--static-only", "--jobs",
                    "2"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
    t_single = time.monotonic() - t0
    keys = list(rows(single_db))
    sizes = [0] * args.shards
    for key in keys:
        sizes[shard_of(key, args.shards)] += 1
    pause = max(range(args.shards), key=lambda k: sizes[k])
    print("single-process run: %d samples; shards of %s" % (
        len(keys), ",".join(map(str, sizes))))

    cl = slurm.Cluster(os.path.join(args.work, "cluster"),
                       limit=args.timeout + 60, gpus=2)
    failed = None
    t_sweep = t_up = t_gpu = 0
    try:
        t1 = time.monotonic()
        with cl:
            t_up = time.monotonic() - t1
            print("cluster up: node localhost with %d CPUs; slurmctld and "
                  "slurmd listen on 127.0.0.1 only" % cl.cpus)
            try:
                t_sweep = sweep(cl, args, sizes, pause)
                t2 = time.monotonic()
                gpu_sweep(cl, args)
                t_gpu = time.monotonic() - t2
            except (Failure, slurm.ClusterError, TimedOut,
                    subprocess.SubprocessError) as e:
                failed = "%s\n%s\n%s" % (
                    e if not isinstance(e, TimedOut) else
                    "timed out after %ds" % args.timeout,
                    cl.log_tails(), tails(args.work))
    except (slurm.ClusterError, TimedOut) as e:
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
        compare(args.work, single_db)
    except Failure as e:
        print("FAILED: %s" % e, file=sys.stderr)
        return 1
    print("time: single-process run %.1fs, cluster start %.1fs, sharded sweep"
          " (%d shards, cancel, resubmission, merges) %.1fs, GPU sweep %.1fs,"
          " total %.1fs" % (t_single, t_up, args.shards, t_sweep, t_gpu,
                            time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
