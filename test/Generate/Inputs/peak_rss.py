"""Runs a command and writes its peak resident memory (KiB) to a file.

  peak_rss.py OUT -- COMMAND...

The peak is the largest of the command's own and its children's
(getrusage of the children waited for); the exit status is the command's.
"""
import resource, subprocess, sys

out, command = sys.argv[1], sys.argv[2:]
if command[:1] == ["--"]:
    command = command[1:]
rc = subprocess.call(command)
with open(out, "w") as f:
    f.write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
