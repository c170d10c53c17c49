"""What the models' answers look like, side by side, from the store and the
answers themselves: the base-against-tuned table of the adaptation loop.

  answer_table.py STORE SAMPLES_DIR MODEL,MODEL...

A markdown table, one column per model: answers, mean output tokens and
seconds, how many answers open a fenced code block, how many end with it
closed, how many hold `// @ptxbench` launch-plan lines (and their mean
count), how many define a `__global__` kernel, then the count of each
status eval gave and, per status, the most common first words of its error.
A model with no sample in the store is an error.
"""
import collections
import os
import re
import sqlite3
import sys

store, samples, models = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
db = sqlite3.connect(store)
FENCE = re.compile(r"^\s*(```|~~~)", re.M)
PLAN = re.compile(r"^\s*//\s*@ptxbench\b", re.M)

columns = {}
for model in models:
    rows = db.execute("select context, task, sample_id, turn, status, error, output_tokens, latency_s "
                      "from samples where model = ? order by task, context, sample_id, turn",
                      (model,)).fetchall()
    if not rows:
        sys.exit("answer_table.py: %s: no sample of model '%s'" % (store, model))
    c = collections.Counter()
    statuses = collections.Counter()
    errors = collections.defaultdict(collections.Counter)
    tokens = seconds = plan_lines = 0
    for context, task, sample_id, turn, status, error, output_tokens, latency in rows:
        # One turn has its files in the sample's folder, several in turn<N>/.
        folder = os.path.join(samples, model, context, task, sample_id)
        path = os.path.join(folder, "turn%d" % turn, "response.md")
        if not os.path.exists(path):
            path = os.path.join(folder, "response.md")
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            sys.exit("answer_table.py: %s: no answer" % path)
        fences = len(FENCE.findall(text))
        plans = len(PLAN.findall(text))
        c["answers"] += 1
        c["opens"] += fences >= 1
        c["closed"] += fences >= 2 and fences % 2 == 0
        c["plan"] += plans > 0
        c["global"] += "__global__" in text
        plan_lines += plans
        tokens += output_tokens
        seconds += latency
        statuses[status] += 1
        if error:
            head = re.sub(r"'[^']*'|\d+", "_", error.split("\n")[0])
            errors[status][" ".join(head.split()[:8])] += 1
    n = c["answers"]
    columns[model] = {
        "answers": str(n),
        "mean output tokens": "%.0f" % (tokens / n),
        "mean seconds per answer": "%.1f" % (seconds / n),
        "opens a code block": "%d/%d" % (c["opens"], n),
        "ends with the block closed": "%d/%d" % (c["closed"], n),
        "has `// @ptxbench` lines": "%d/%d (mean %.1f lines)" % (c["plan"], n, plan_lines / n),
        "defines a `__global__` kernel": "%d/%d" % (c["global"], n),
    }
    for status, count in statuses.items():
        columns[model]["status " + status] = "%d/%d" % (count, n)
    for status, heads in errors.items():
        for head, count in heads.most_common(2):
            columns[model]["%s: %s" % (status, head)] = str(count)

rows = []
for column in columns.values():
    for key in column:
        if key not in rows:
            rows.append(key)
print("| | " + " | ".join(models) + " |")
print("|---|" + "---|" * len(models))
for key in rows:
    print("| %s | %s |" % (key, " | ".join(columns[m].get(key, "0") for m in models)))
