"""Runs a command with its stdout on a pseudo-terminal; prints what it wrote.

  on_tty.py COMMAND...

The terminal does no output processing (no CR added before LF), so what is
printed is byte for byte what the command wrote; bytes that are not
printable ASCII are shown as Python escapes (so a raw ESC shows as \\x1b,
and an escape the command printed as text shows as \\\\x1b). The exit
status is the command's.
"""
import os, pty, subprocess, sys, termios

master, slave = pty.openpty()
attrs = termios.tcgetattr(slave)
attrs[1] &= ~termios.OPOST
termios.tcsetattr(slave, termios.TCSANOW, attrs)
proc = subprocess.Popen(sys.argv[1:], stdout=slave)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
rc = proc.wait()
sys.stdout.write(repr(data)[2:-1].replace("\\n", "\n") + "\n")
sys.exit(rc)
