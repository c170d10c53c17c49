"""The ok/FAIL lines of the checker scripts: check(ok, what) prints one,
finish() the counts, and exits 1 when any failed."""
import sys

counts = {"passed": 0, "failed": 0}


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    counts["passed" if ok else "failed"] += 1


def finish():
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    sys.exit(1 if counts["failed"] else 0)
