#!/usr/bin/env python3
"""Checks the solution corpora of tasks/ against their manifests, statically.

For every tasks/**/solutions/manifest.json and every solution in it:
  - `ptxbench analyze SOLUTION --arch ARCH --require <the tasks' features for
    ARCH> [--accumulate f32] --format json` must compile and assemble the file
    (or fail to compile when the manifest says `"compiles": false`), and give
    each requested family the manifest's verdict (used, missing, unreachable,
    serialized);
  - with --check-plans, `ptxbench run` with no visible GPU must accept the
    launch plan against every task the manifest lists (exit status 3: the plan
    checks out, nothing was run).
A Triton solution (.py) is compiled against the manifest's first task (its
kernel's signature comes from the task's tensors), and its plan is checked
against that task only: each check is a Triton compile.
Prints one line per check and exits 1 if anything differs from the manifest.

Usage: check-solutions.py --bin PTXBENCH [--tasks DIR] [--no-assemble] [--check-plans]
"""
import argparse
import glob
import json
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="the ptxbench binary")
    ap.add_argument("--tasks", default=os.path.join(os.path.dirname(__file__), "..", "tasks"))
    ap.add_argument("--no-assemble", action="store_true")
    ap.add_argument("--check-plans", action="store_true")
    args = ap.parse_args()

    manifests = sorted(glob.glob(os.path.join(args.tasks, "**", "solutions", "manifest.json"),
                                 recursive=True))
    if not manifests:
        print(f"error: no solutions/manifest.json under {args.tasks}")
        return 1
    failures = 0
    checked = 0
    for mpath in manifests:
        sdir = os.path.dirname(mpath)
        with open(mpath) as f:
            manifest = json.load(f)
        tasks = {}
        for name in manifest["tasks"]:
            with open(os.path.join(args.tasks, name, "task.json")) as f:
                tasks[name] = json.load(f)
        rel = os.path.relpath(sdir, args.tasks)
        for sol in manifest["solutions"]:
            path = os.path.join(sdir, sol["file"])
            arch = sol["arch"]
            # The families every listed task requests on this architecture.
            requested = []
            for t in tasks.values():
                for fam in t.get("features", {}).get(arch, []):
                    if fam not in requested:
                        requested.append(fam)
            triton = path.endswith(".py")
            cmd = [args.bin, "analyze", path, "--arch", arch, "--format", "json"]
            if triton:
                cmd += ["--task", os.path.join(args.tasks, manifest["tasks"][0])]
            if requested:
                cmd += ["--require", ",".join(requested)]
            # A task that asks for fp32 accumulation flags f16 accumulators.
            if any(t.get("accumulate") == "f32" for t in tasks.values()):
                cmd += ["--accumulate", "f32"]
            if args.no_assemble:
                cmd.append("--no-assemble")
            p = subprocess.run(cmd, capture_output=True, text=True)
            label = f"{rel}/{sol['file']} [{arch}]"
            problems = []
            if not sol.get("compiles", True):
                if p.returncode == 0 or "does not compile" not in p.stderr:
                    problems.append("expected a compile error, but it compiled")
            elif p.returncode != 0:
                problems.append("does not compile/analyze: " + p.stderr.strip().splitlines()[-1]
                                if p.stderr.strip() else f"analyze exited {p.returncode}")
            else:
                report = json.loads(p.stdout)
                if not args.no_assemble and not report.get("assembled"):
                    problems.append("not assembled for " + arch + ": " +
                                    report.get("assembly_note", ""))
                # A plan may have several kernels (a pre-pass, the main
                # kernel, a conversion): a family's verdict is the best any
                # kernel gets.
                rank = {"used": 3, "serialized": 2, "unreachable": 1, "missing": 0}
                got = {}
                for k in report["kernels"]:
                    for fam, verdict in k.get("requested", {}).items():
                        if rank.get(verdict, -1) > rank.get(got.get(fam), -1):
                            got[fam] = verdict
                want = sol.get("features", {})
                for fam in requested:
                    if fam not in want:
                        problems.append(f"manifest gives no verdict for requested '{fam}'")
                    elif got.get(fam) != want[fam]:
                        problems.append(f"{fam}: expected {want[fam]}, got {got.get(fam)}")
            checked += 1
            if problems:
                failures += 1
                print(f"FAIL {label}: " + "; ".join(problems))
            else:
                verdicts = ", ".join(f"{k}={v}" for k, v in sol.get("features", {}).items())
                print(f"ok   {label}: " + ("compile error as expected" if not sol.get("compiles", True)
                                           else verdicts))
            if args.check_plans and sol.get("compiles", True):
                env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
                for name in tasks if not triton else manifest["tasks"][:1]:
                    r = subprocess.run([args.bin, "run", "--task", os.path.join(args.tasks, name),
                                        "--solution", path, "--shapes", "all",
                                        "--arch", arch],
                                       capture_output=True, text=True, env=env)
                    checked += 1
                    if r.returncode != 3 or "checks out" not in r.stdout + r.stderr:
                        failures += 1
                        print(f"FAIL {label}: launch plan vs {name}: exit {r.returncode}: " +
                              (r.stdout + r.stderr).strip()[-400:])
                    else:
                        print(f"ok   {label}: launch plan checks out against {name}")
    print(f"{checked} checks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
