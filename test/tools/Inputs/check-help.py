"""Checks that `ptxbench --help` lists every subcommand the sources declare.

  check-help.py PTXBENCH SOURCE_DIR

Finds each `cl::SubCommand NAME("name", "description")` under SOURCE_DIR
(tools/ptxbench), then checks that `PTXBENCH --help` lists it on a line of
its own with a description, that nothing else is listed, and that
`PTXBENCH name --help` describes the subcommand. Prints one line per
subcommand and exits 1 on any difference.
"""
import glob
import os
import re
import subprocess
import sys

ptxbench, sources = sys.argv[1], sys.argv[2]
declared = set()
for path in glob.glob(os.path.join(sources, "*.cpp")):
    with open(path) as f:
        declared.update(re.findall(r'cl::SubCommand\s+\w+\(\s*"([^"]+)"', f.read()))
if not declared:
    print(f"error: no cl::SubCommand in {sources}")
    sys.exit(1)

help_text = subprocess.run([ptxbench, "--help"], capture_output=True, text=True,
                           check=True).stdout
listed = {}
section = False
for line in help_text.splitlines():
    if line == "SUBCOMMANDS:":
        section = True
        continue
    if section and not line.strip():
        break
    if section:
        name, _, description = line.strip().partition(" ")
        listed[name] = description.strip()

errors = 0
for name in sorted(declared | set(listed)):
    if name not in listed:
        print(f"error: '{name}' is declared but 'ptxbench --help' does not list it "
              "(add it to the table in tools/ptxbench/ptxbench.cpp)")
        errors += 1
    elif name not in declared:
        print(f"error: 'ptxbench --help' lists '{name}', which no source declares")
        errors += 1
    elif not listed[name]:
        print(f"error: '{name}' has no description")
        errors += 1
    else:
        sub = subprocess.run([ptxbench, name, "--help"], capture_output=True, text=True)
        if sub.returncode != 0 or f"SUBCOMMAND '{name}'" not in sub.stdout:
            print(f"error: 'ptxbench {name} --help' does not describe it")
            errors += 1
        else:
            print(f"{name}: {listed[name]}")
print(f"{len(declared)} subcommands declared, {errors} problems")
sys.exit(1 if errors else 0)
