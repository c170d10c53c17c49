"""Writes a model answer whose PTX block carries terminal controls.

  escape_answer.py OUT.md

A window-title escape, a screen clear, NUL, and a carriage return that
would hide what comes before it on the line.
"""
import sys

with open(sys.argv[1], "wb") as f:
    f.write(b"Here.\n\n```ptx\n"
            b"// title \x1b]0;pwned\x07 clear \x1b[2J nul \x00 cr hidden\rshown\n"
            b".version 8.0\n```\n")
