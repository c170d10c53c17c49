"""Fails when the key (argv[1]) appears in any file under the given paths.

  no_key.py KEY PATH...
"""
import os, sys

key = sys.argv[1].encode()
found = []
files = 0
for root in sys.argv[2:]:
    paths = [root] if os.path.isfile(root) else [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    for p in paths:
        files += 1
        with open(p, "rb") as f:
            if key in f.read():
                found.append(p)
for p in found:
    print("key found in", p)
print("searched %d files: %s" % (files, "key found" if found else "no key"))
sys.exit(1 if found or files == 0 else 0)
