"""Runs a command and succeeds only if it exits with the given status."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stderr.write(f"expected exit status {want}, got {got}\n")
sys.exit(0 if got == want else 1)
