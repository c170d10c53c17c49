"""Writes the helper headers of a `ptxbench prompt` text (its "## Helper
headers" section, each ```cuda block in order) to one header file, as a
model would paste them, and prints the families it found.

usage: helpers_header.py PROMPT.txt OUT.cuh"""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
start = text.index("## Helper headers (")
section = text[start:]
blocks = re.findall(r"^### `([a-z0-9_]+)`\n\n```cuda\n(.*?)^```$", section, re.S | re.M)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for _, code in blocks:
        out.write(code)
print("helpers:", ",".join(name for name, _ in blocks))
