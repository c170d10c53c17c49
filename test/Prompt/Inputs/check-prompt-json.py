"""Prints one line per `ptxbench prompt --format json` file: its task, arch,
context, roles, whether sha256 matches the messages (each "role\\ncontent\\n",
concatenated), and its parts; then how many distinct prompts there were."""
import hashlib
import json
import os
import sys

hashes = set()
for path in sys.argv[1:]:
    d = json.load(open(path))
    assert sorted(d) == ["arch", "context", "documents", "messages", "parts", "sha256", "task"], sorted(d)
    assert [x["name"] for x in d["documents"]] == d["parts"][6:], d["documents"]
    text = "".join(m["role"] + "\n" + m["content"] + "\n" for m in d["messages"])
    ok = hashlib.sha256(text.encode()).hexdigest() == d["sha256"]
    hashes.add(d["sha256"])
    name = ".".join(os.path.basename(path).split(".")[-2:])
    print(f"{name}: task {d['task']} arch {d['arch']} context {d['context']}; "
          f"roles {','.join(m['role'] for m in d['messages'])}; "
          f"sha256 {'ok' if ok else 'MISMATCH'}; parts {','.join(d['parts'])}")
print(f"distinct sha256: {len(hashes)}")
