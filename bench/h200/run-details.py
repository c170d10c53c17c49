#!/usr/bin/env python3
"""run-details.py - what run-solutions.sh's table leaves out, per run.

    python3 bench/h200/run-details.py OUT   (OUT of run-solutions.sh)

For every `ptxbench run --json` result under OUT/runs: the status, each
requested family's run-time verdict (in code / executed), and per workload
the submission's and the baseline's largest error and relative L2 error
against the reference, with both times. The errors are the measured basis of
a task's tolerances; the baseline's are a check of the reference too.
"""
import json
import os
import sys


def errors(checks):
    """'rel-L2 x, max y' over a list of per-tensor check stats."""
    if not checks:
        return "-"
    return ", ".join(
        f"{c.get('tensor', '?')}: rel-L2 {c['rel_l2']:.2e} max {c['max_abs_err']:.3g}"
        + ("" if c.get("passed") else " FAILED")
        for c in checks)


def main():
    runs = os.path.join(sys.argv[1], "runs")
    for name in sorted(os.listdir(runs)):
        if not name.endswith(".json"):
            continue
        r = json.load(open(os.path.join(runs, name)))
        counts = r.get("feature_counts")
        if isinstance(counts, dict):
            families = " ".join(
                f"{f}={c['verdict']}({c['in_code']}/{c['executed']})"
                for f, c in sorted(counts.items()))
        else:
            families = str(counts or "-")
        print(f"{name[:-5]}: {r.get('status')}  families: {families}")
        for w in r.get("workloads", []):
            ms = w.get("time", {}).get("median_ms")
            bms = w.get("baseline_time", {}).get("median_ms")
            line = f"    {w['workload']:16} {w['status']:12}"
            if ms is not None:
                line += f" {ms:.4f} ms"
            if bms is not None:
                line += f"  lib {bms:.4f} ms ({bms / ms if ms else 0:.2f}x)"
            print(line)
            print(f"        checks   {errors(w.get('checks'))}")
            if w.get("baseline_checks"):
                print(f"        baseline {errors(w.get('baseline_checks'))}")
            elif "baseline" in w.get("message", ""):
                print(f"        {w['message'][:200]}")


if __name__ == "__main__":
    main()
