"""Prints what a tagged `ptxbench generate` run recorded: per turn folder,
request.json's tag, replica and document names and whether the user
message sent holds each note's heading; then the store's prompts rows.

usage: check_tags.py SAMPLES_DIR STORE"""
import glob
import json
import os
import sqlite3
import sys

root, store = sys.argv[1:3]
for path in sorted(glob.glob(os.path.join(root, "*", "*", "*", "s*", "turn1", "request.json"))):
    r = json.load(open(path))
    user = [m["content"] for m in r["body"]["messages"] if m["role"] == "user"][0]
    headings = [h for h in ("## Instruction syntax", "## Machine parameters", "## Debugging hints",
                            "## Pattern: a warp-specialized") if h in user]
    rel = os.path.relpath(os.path.dirname(os.path.dirname(path)), root)
    print("%s: tag %s replica %d documents %s; sent %s" % (
        rel, r["tag"], r["replica"], ",".join(d["name"] for d in r["documents"]) or "-",
        "; ".join(headings) or "-"))
db = sqlite3.connect(store)
for row in db.execute("SELECT context, task, arch, language, length(sha256), documents_json "
                      "FROM prompts ORDER BY context"):
    docs = json.loads(row[5])
    print("prompt %s %s %s %s sha%d: %s" % (row[0], row[1], row[2], row[3], row[4] * 4,
                                          ",".join(d["name"] for d in docs) or "-"))
