"""Checks the store's usage columns against the generation.json files.

  check_usage.py SAMPLES_DIR STORE.sqlite

For every turn with a generation.json: its row's input, output, reasoning
and cached tokens are the answer's usage plus what its failed attempts were
charged, cost_usd the two costs, latency_s the answer's latency, and
usage_source `estimated` when any of it was estimated, else `reported`.
"""
import glob, json, os, sqlite3, sys

from checklist import check, finish

root, store = sys.argv[1], sys.argv[2]
db = sqlite3.connect(store)


files = sorted(glob.glob(os.path.join(root, "*", "*", "*", "s*", "**", "generation.json"), recursive=True))
check(len(files) > 0, "generation.json files: %d" % len(files))
for path in files:
    rel = os.path.relpath(path, root).split(os.sep)
    model, context, task, sample = rel[:4]
    turn = int(rel[4][4:]) if rel[4].startswith("turn") else 0
    gen = json.load(open(path))
    parts = ([gen] if gen["status"] == "ok" else []) + [gen.get("failed_attempts")]
    want = {"input": 0, "output": 0, "reasoning": 0, "cached": 0}
    cost = 0.0
    for part in filter(None, parts):
        for k in want:
            want[k] += part.get("usage", {}).get(k, 0)
        cost += part.get("cost_usd", 0)
    estimated = gen.get("usage_estimated", False) or "failed_attempts" in gen
    latency = gen.get("latency_s", 0) if gen["status"] == "ok" else 0
    row = db.execute("select input_tokens, output_tokens, reasoning_tokens, cached_tokens, cost_usd,"
                     " latency_s, usage_source from samples where model=? and context=? and task=?"
                     " and sample_id=? and turn=?", (model, context, task, sample, turn)).fetchone()
    got = row and (row[:4], round(row[4], 9), round(row[5], 6), row[6])
    expect = ((want["input"], want["output"], want["reasoning"], want["cached"]), round(cost, 9),
              round(latency, 6), "estimated" if estimated else "reported")
    check(got == expect, "%s: %s" % (os.path.relpath(path, root), got if got == expect else "%s, want %s" % (got, expect)))
finish()
