"""Checks that the tuned model's answers flowed through generate and eval.

  check_tuned.py SAMPLES_DIR MODEL STORE.sqlite

Every turn of MODEL has a request naming the served model, a generation
record with status ok and output tokens, and a response.md; the store holds
one record per sample, with the status eval gave it. Prints the statuses.
"""
import json, os, sqlite3, sys

samples, model, store = sys.argv[1], sys.argv[2], sys.argv[3]
turns = 0
for root, _, files in sorted(os.walk(os.path.join(samples, model))):
    if "generation.json" not in files:
        continue
    turns += 1
    generation = json.load(open(os.path.join(root, "generation.json")))
    request = json.load(open(os.path.join(root, "request.json")))
    where = os.path.relpath(root, samples)
    if generation["status"] != "ok" or generation["usage"]["output"] < 1:
        sys.exit("FAIL: %s: %s" % (where, generation))
    if not os.path.exists(os.path.join(root, "response.md")):
        sys.exit("FAIL: %s: no response.md" % where)
    print("turn %s: ok, %d output tokens, provider %s" % (where, generation["usage"]["output"],
                                                          request["provider"]))
print("%d turns answered" % turns)
db = sqlite3.connect(store)
for row in db.execute("select task, status from samples where model = ? order by task", (model,)):
    print("stored: %s %s" % row)
