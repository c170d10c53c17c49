#!/usr/bin/env python3
"""Checks the hostile corpus (tasks/hostile/manifest.json) against its manifest.

Statically, for every entry: `ptxbench analyze FILE --arch ARCH --require
<the task's families for ARCH> [--accumulate f32 when the task asks for it]
--format json` must give each requested family the manifest's verdict
(`features`), report every finding kind in `findings` and none in `absent`
(a kernel's findings or the module's, such as device-runtime-call).
Entries without `features` are not checked statically.

With --run (a GPU host), also: `ptxbench run --task TASK --solution FILE
--shapes dev` must end with the manifest's `status`, each requested
family's run-time verdict must be `run_features`' on every workload that
measured it, every workload that measured the work must report each kind
in `run_findings` among its work findings, and `never_prints` must not be
in any workload's captured output (nor in what ptxbench printed). Entries
with `"run": "skip"` or without `status` are not run.

Prints one line per check and exits 1 if anything differs from the manifest.

Usage: check-hostile.py --bin PTXBENCH [--tasks DIR] [--run] [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys

RANK = {"used": 3, "serialized": 2, "unreachable": 1, "missing": 0}


def analyze(args, entry, task):
    path = os.path.join(args.tasks, "hostile", entry["file"])
    arch = entry["arch"]
    cmd = [args.bin, "analyze", path, "--arch", arch, "--format", "json",
           "--require", ",".join(task["features"][arch])]
    if task.get("accumulate") == "f32":
        cmd += ["--accumulate", "f32"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return ["analyze exited %d: %s" % (p.returncode, p.stderr.strip()[-300:])], ""
    report = json.loads(p.stdout)
    got, kinds = {}, set()
    for k in report["kernels"]:
        for fam, verdict in k.get("requested", {}).items():
            if RANK.get(verdict, -1) > RANK.get(got.get(fam), -1):
                got[fam] = verdict
        for f in k.get("fallbacks", []) + k.get("ptxas_warnings", []):
            kinds.add(f["kind"])
    for f in report.get("module_findings", []):
        kinds.add(f["kind"])
    problems = []
    for fam, want in entry.get("features", {}).items():
        if got.get(fam) != want:
            problems.append("%s: expected %s, got %s" % (fam, want, got.get(fam)))
    for kind in entry.get("findings", []):
        if kind not in kinds:
            problems.append("missing finding %s" % kind)
    for kind in entry.get("absent", []):
        if kind in kinds:
            problems.append("unexpected finding %s" % kind)
    summary = ", ".join("%s=%s" % kv for kv in sorted(got.items()))
    return problems, summary + "; findings " + ",".join(sorted(kinds))


def run(args, entry, task_dir):
    path = os.path.join(args.tasks, "hostile", entry["file"])
    label = os.path.splitext(entry["file"])[0]
    out = os.path.join(args.out, label + ".json")
    p = subprocess.run([args.bin, "run", "--task", task_dir, "--solution", path,
                        "--shapes", "dev", "--no-baseline", "--json", out],
                       capture_output=True, text=True)
    with open(os.path.join(args.out, label + ".out"), "w") as f:
        f.write(p.stdout + p.stderr)
    if not os.path.exists(out):
        return ["no result (exit %d)" % p.returncode], ""
    result = json.load(open(out))
    problems = []
    if result.get("status") != entry["status"]:
        problems.append("status: expected %s, got %s" % (entry["status"], result.get("status")))
    seen = []
    marker = entry.get("never_prints")
    if marker and marker in p.stdout + p.stderr:
        problems.append("ptxbench printed the marker %r" % marker)
    for w in result.get("workloads", []):
        for f in w.get("features", []):
            want = entry.get("run_features", {}).get(f["family"])
            share = "" if "share" not in f else " %.4f%%" % (100 * f["share"])
            seen.append("%s %s %s%s" % (w["workload"], f["family"], f["verdict"], share))
            if want is not None and f["verdict"] != want:
                problems.append("%s %s: expected %s, got %s" % (w["workload"], f["family"], want, f["verdict"]))
        kinds = {f["kind"] for f in w.get("work_findings", [])}
        for f in w.get("work_findings", []):
            seen.append("%s [%s] %s" % (w["workload"], f["kind"], f["message"]))
        if "work" in w:
            for kind in entry.get("run_findings", []):
                if kind not in kinds:
                    problems.append("%s: no %s finding" % (w["workload"], kind))
        output = w.get("output", {})
        printed = output.get("head", "") + output.get("tail", "")
        if marker and marker in printed:
            problems.append("%s printed the marker %r" % (w["workload"], marker))
        elif marker and output.get("bytes", 0) > len(printed.encode()):
            problems.append("%s printed %d bytes, more than the head and tail "
                            "kept: the marker may be in the middle"
                            % (w["workload"], output["bytes"]))
        if w.get("status") != "PASSED":
            seen.append("%s %s: %s" % (w["workload"], w.get("status"), w.get("message", "")[:300]))
    if (entry.get("run_features") or entry.get("run_findings")) and not any(
            "features" in w for w in result.get("workloads", [])):
        problems.append("no workload measured the run-time features")
    return problems, result.get("status", "?") + "; " + "; ".join(seen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="the ptxbench binary")
    ap.add_argument("--tasks", default=os.path.join(os.path.dirname(__file__), "..", "tasks"))
    ap.add_argument("--run", action="store_true", help="also run on the GPU")
    ap.add_argument("--out", default="/tmp/ptxbench-hostile")
    args = ap.parse_args()
    with open(os.path.join(args.tasks, "hostile", "manifest.json")) as f:
        manifest = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    failures = checked = 0
    for entry in manifest["entries"]:
        task_dir = os.path.join(args.tasks, entry["task"])
        with open(os.path.join(task_dir, "task.json")) as f:
            task = json.load(f)
        checks = []
        if "features" in entry:
            checks.append(("static", lambda: analyze(args, entry, task)))
        if args.run and entry.get("run", "dev") != "skip" and entry.get("status"):
            checks.append(("run", lambda: run(args, entry, task_dir)))
        for what, check in checks:
            problems, summary = check()
            checked += 1
            if problems:
                failures += 1
                print("FAIL %s %s: %s (%s)" % (what, entry["file"], "; ".join(problems), summary))
            else:
                print("ok   %s %s: %s" % (what, entry["file"], summary))
    print("%d checks, %d failed" % (checked, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
