#!/usr/bin/env python3
"""Checks a `ptxbench fixit` JSONL file against docs/fixit.md's schema and
prints one line per record: wrong key -> fixed key (source) failure kind."""
import collections
import json
import sys

kinds = collections.Counter()
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    roles = [m["role"] for m in r["messages"]]
    assert roles == ["system", "user", "assistant"], roles
    assert all(isinstance(m["content"], str) and m["content"]
               for m in r["messages"])
    m = r["metadata"]
    for field in ("task", "arch", "failure_kind", "model", "context"):
        assert isinstance(m[field], str), field
    assert r["messages"][2]["content"].rstrip().endswith("```")
    kinds[m["failure_kind"]] += 1
    n += 1
    print("%s -> %s (%s) %s" % (m["wrong"]["key"], m["fixed"]["key"],
                               m["fixed"]["source"], m["failure_kind"]))
print("schema ok: %d records%s" % (
    n, ", at most 1 per kind" if kinds and max(kinds.values()) == 1 else ""))
