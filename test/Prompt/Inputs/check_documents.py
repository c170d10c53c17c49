"""Checks the "documents" of `ptxbench prompt --format json` files against
their text: each document's sha256 and size are those of its part of the
user message, the documents are the last parts in order, and a note's text
is its file under DOCS/prompts. Prints one line per file.

usage: check_documents.py DOCS FILE.json..."""
import hashlib
import json
import os
import sys

docs = sys.argv[1]
for path in sys.argv[2:]:
    d = json.load(open(path, encoding="utf-8"))
    user = d["messages"][1]["content"]
    names = [x["name"] for x in d["documents"]]
    assert d["parts"][-len(names):] == names if names else True, (d["parts"], names)
    problems = []
    for doc in d["documents"]:
        name = doc["name"]
        note = None
        for p in (os.path.join(docs, "prompts", d["arch"], name + ".md"),
                  os.path.join(docs, "prompts", name + ".md")):
            if os.path.exists(p):
                note = open(p, encoding="utf-8").read()
                break
        if note is not None:
            if hashlib.sha256(note.encode()).hexdigest() != doc["sha256"]:
                problems.append(name + ": sha256 is not the note file's")
            if note not in user:
                problems.append(name + ": the note is not in the message")
        if doc["bytes"] <= 0:
            problems.append(name + ": no bytes")
    print("%s: context %s; documents %s; %s" % (
        os.path.basename(path), d["context"], ",".join(names) or "-",
        "; ".join(problems) or "ok"))
