#!/usr/bin/env python3
"""Checks that `ptxbench analyze --format json` gave a complete report and
prints its verdicts one per line for FileCheck:

  verdict: VERDICT
  kernel NAME: FAMILY=VERDICT ...
    reachable: FAMILY=N ...            (reachable instruction counts)
    fallback: KIND                     (one line per fallback finding)
    ptxas: KIND                        (one line per ptxas warning)
  module: KIND                         (one line per module finding)

usage: ptxbench analyze FILE --format json | verdicts.py
Exits 1, naming what is missing, when the report is not valid JSON, has no
verdict, or a kernel lacks a verdict for a requested family.
"""
import json
import sys


def main():
    text = sys.stdin.read()
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"verdicts.py: error: not JSON ({e}): {text[:300]!r}",
              file=sys.stderr)
        return 1
    problems = []
    if report.get("verdict") in (None, ""):
        problems.append("no overall verdict")
    if not report.get("kernels"):
        problems.append("no kernels")
    print("verdict:", report.get("verdict"))
    for kernel in report.get("kernels", []):
        requested = kernel.get("requested", {})
        for family in report.get("requested", []):
            if family not in requested:
                problems.append(f"kernel {kernel.get('name')}: no verdict "
                                f"for {family}")
        print("kernel %s: %s" % (kernel.get("name"), " ".join(
            f"{f}={v}" for f, v in sorted(requested.items()))))
        print("  reachable: " + " ".join(
            f"{f}={c['reachable_count']}"
            for f, c in sorted(kernel.get("features", {}).items())
            if c.get("reachable_count")))
        for finding in kernel.get("fallbacks", []):
            print("  fallback:", finding.get("kind"))
        for finding in kernel.get("ptxas_warnings", []):
            print("  ptxas:", finding.get("kind"))
    for finding in report.get("module_findings", []):
        print("module:", finding.get("kind"), finding.get("message", ""))
    if problems:
        print("verdicts.py: error: " + "; ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
