"""Writes the submissions of plan-size.test into the folder given.

wide.cu: one plan line of 3.8 MB, `min(` nested 98 deep around 1.9 million
terms; long.cu: 3002 short plan lines (the limit is crossed at line 1821);
under.cu: 1702 of them, under the limit (both have a mistake on line 1);
expr.cu: a grid expression of 4201 bytes.
"""
import os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
head = "// @ptxbench kernel k grid=1 block=1 bogus=2\n// @ptxbench args\n"
workspaces = lambda n: "".join("// @ptxbench workspace w%04d bytes=4\n" % i for i in range(n))
files = {
    "wide.cu": "// @ptxbench kernel k grid=" + "min(" * 98 + "1," * 1900000 + "1" + ",1)" * 98 +
               " block=1\n// @ptxbench args\n",
    "long.cu": head + workspaces(3000),
    "under.cu": head + workspaces(1700),
    "expr.cu": "// @ptxbench kernel k grid=1" + "+1" * 2100 + " block=1\n// @ptxbench args\n",
}
for name, text in files.items():
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
