#!/usr/bin/env python3
"""Stands in for ptxbench in a test's array job, to hold one shard mid-run.

utils/slurm/eval-shard.sbatch runs the binary it was given; the test gives
it this script. Every call but `eval` in the array task named by
PTXBENCH_PAUSE_SHARD runs PTXBENCH_REAL unchanged. That one runs eval as a
child, and as soon as its store holds a sample, stops the child (SIGSTOP)
and writes PTXBENCH_PAUSE_FILE ("paused N"), so the test can cancel the task
with part of the shard recorded. Slurm's cancel ends both processes.
"""
import os
import signal
import sqlite3
import subprocess
import sys
import time

real = os.environ["PTXBENCH_REAL"]
args = sys.argv[1:]
pause_shard = os.environ.get("PTXBENCH_PAUSE_SHARD", "")
if (not pause_shard or args[:1] != ["eval"]
        or os.environ.get("SLURM_ARRAY_TASK_ID") != pause_shard):
    os.execv(real, [real] + args)

db = args[args.index("--db") + 1]
flag = os.environ["PTXBENCH_PAUSE_FILE"]


def recorded():
    if not os.path.exists(db):
        return 0
    try:
        with sqlite3.connect("file:%s?mode=ro" % db, uri=True,
                             timeout=1) as c:
            return c.execute("select count(*) from samples").fetchone()[0]
    except sqlite3.Error:
        return 0


child = subprocess.Popen([real] + args)
while child.poll() is None:
    n = recorded()
    if n:
        os.kill(child.pid, signal.SIGSTOP)
        with open(flag + ".tmp", "w") as f:
            f.write("paused %d\n" % recorded())
        os.rename(flag + ".tmp", flag)
        sys.exit(child.wait())
    time.sleep(0.02)
with open(flag, "w") as f:
    f.write("finished %d\n" % recorded())
sys.exit(child.returncode)
