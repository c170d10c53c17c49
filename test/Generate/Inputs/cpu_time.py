"""Runs a command and prints the CPU time it used against its wall time.

  cpu_time.py MAX_SHARE -- COMMAND...

Prints `cpu S s of wall W s` and `ok` when the command's user and system
time (its children's included) is at most MAX_SHARE of its wall time, else
`FAIL: ...`; the exit status is the command's. A client that waits on a
slow server by polling without blocking uses a core for the whole wait.
"""
import resource, subprocess, sys, time

share, command = float(sys.argv[1]), sys.argv[2:]
if command[:1] == ["--"]:
    command = command[1:]
start = time.monotonic()
rc = subprocess.call(command)
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
print("cpu %.2f s of wall %.2f s" % (cpu, wall))
print("ok" if cpu <= share * wall else "FAIL: more than %g of the wall time" % share)
sys.exit(rc)
