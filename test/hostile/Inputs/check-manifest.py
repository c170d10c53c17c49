"""Checks tasks/hostile/manifest.json against the folder and the tool.

Every .cu file of the folder has exactly one entry and every entry a file;
each entry names a task that exists and a status `ptxbench run` knows (the
table in lib/Task/Verdict.cpp; null while not yet measured); each file
opens with a comment saying what it games; an entry's `never_prints`
marker (what the file prints when it finds state from an earlier launch,
which a GPU run must not capture) is one word that the file really
contains, so the run's check of it cannot pass vacuously.
(utils/check-hostile.py checks the entries' static verdicts and, on a GPU,
their runs.) With --check-plans, each launch plan is checked against its
task by `ptxbench run` on a machine without a GPU: exit status 3 (the plan
checks out, nothing was run), or, for an entry expecting PLAN_ERROR, exit
status 1 and the status PLAN_ERROR; a file meant to fail its compile fails it
there, since NVRTC needs no GPU. Prints one line per file.
"""
import argparse
import json
import os
import re
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--src", required=True)
parser.add_argument("--bin", default="ptxbench")
parser.add_argument("--check-plans", action="store_true")
args = parser.parse_args()

hostile = os.path.join(args.src, "tasks", "hostile")
with open(os.path.join(args.src, "lib", "Task", "Verdict.cpp")) as f:
    statuses = set(re.findall(r'\{Status::\w+, "(\w+)"\}', f.read()))
manifest = json.load(open(os.path.join(hostile, "manifest.json")))
entries = manifest["entries"]
errors = []
files = sorted(f for f in os.listdir(hostile) if f.endswith(".cu"))
listed = [e.get("file") for e in entries]
for f in files:
    if listed.count(f) != 1:
        errors.append(f"{f}: listed {listed.count(f)} times in the manifest")
for e in entries:
    f = e.get("file", "?")
    for key in ("file", "task"):
        if not e.get(key):
            errors.append(f"{f}: the entry has no '{key}'")
    if f not in files:
        errors.append(f"{f}: in the manifest but not in the folder")
        continue
    if not os.path.exists(os.path.join(args.src, "tasks", e.get("task", ""), "task.json")):
        errors.append(f"{f}: unknown task '{e.get('task')}'")
        continue
    if "status" not in e or (e["status"] is not None and e["status"] not in statuses):
        errors.append(f"{f}: unknown status '{e.get('status')}'")
    with open(os.path.join(hostile, f)) as src:
        text = src.read()
    if not text.startswith("//"):
        errors.append(f"{f}: no header comment saying what it games")
    line = f"ok   {f}: {e['task']} {e.get('status')}"
    if "never_prints" in e:
        marker = e["never_prints"]
        if not isinstance(marker, str) or not re.fullmatch(r"\S+", marker):
            errors.append(f"{f}: never_prints must be one word, not {marker!r}")
            continue
        if marker not in text:
            errors.append(f"{f}: never_prints {marker!r} is not in the file, "
                          "so checking that a run does not print it proves nothing")
            continue
        line += f", never prints {marker}"
    if args.check_plans:
        run = subprocess.run(
            [args.bin, "run", "--task", os.path.join(args.src, "tasks", e["task"]),
             "--solution", os.path.join(hostile, f), "--compile-timeout", "5"],
            capture_output=True, text=True)
        # NVRTC needs no GPU: a file meant to fail its compile does so here.
        if e.get("status") in ("COMPILE_ERROR", "COMPILE_TIMEOUT"):
            if run.returncode != 1 or e["status"] not in run.stdout:
                errors.append(f"{f}: expected {e['status']} without a GPU "
                              f"(exit {run.returncode}): {run.stdout.strip()[-300:]}")
                continue
            print(line + ", " + e["status"] + " without a GPU")
            continue
        if e.get("status") == "PLAN_ERROR":
            if (run.returncode != 1 or "status: PLAN_ERROR" not in run.stdout
                    or "checks out" in run.stdout):
                errors.append(f"{f}: the launch plan is not refused as PLAN_ERROR "
                              f"(exit {run.returncode}): {run.stdout.strip()[-300:]}")
                continue
            line += ", plan refused"
        elif run.returncode != 3 or "checks out" not in run.stdout:
            errors.append(f"{f}: the launch plan does not check out against "
                          f"{e['task']} (exit {run.returncode}): {run.stdout.strip()[-300:]}")
            continue
        else:
            line += ", plan checks out"
    print(line)
for error in errors:
    print("FAIL " + error)
print(f"{len(entries)} entries, {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
