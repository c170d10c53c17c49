#!/usr/bin/env python3
"""Holds a store's writer lock while a command starts, as a running eval would.

    hold_lock.py LOCKFILE SECONDS COMMAND...

Takes LOCKFILE with flock and writes a holder line into it, starts COMMAND,
lets go after SECONDS, and exits with COMMAND's status (its output passes
through). Fails when COMMAND ends before the lock is let go: it did not wait.
"""
import fcntl
import os
import socket
import subprocess
import sys
import time

lock, seconds, command = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, ("pid %d on %s, since now" % (os.getpid(),
                                            socket.gethostname())).encode())
child = subprocess.Popen(command)
try:
    time.sleep(seconds)
    if child.poll() is not None:
        sys.exit("hold_lock.py: the command ended while the lock was held")
finally:
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
sys.exit(child.wait())
