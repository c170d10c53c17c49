"""Writes the task folders of size-limits.test into OUT from the suite's
gemm_bf16 task: `wide` has a FLOP count of 3.8 MB (`min(` nested 98 deep
around 1.9 million terms), `long` one of 5007 bytes, `quoted` a 4000-byte
count with an unknown parameter in it.

  size-limits.test.py SRC OUT
"""
import json, os, sys

src, out = sys.argv[1:3]
task = json.load(open(os.path.join(src, "tasks", "gemm_bf16", "task.json")))
flops = {
    "wide": "min(" * 98 + "1," * 1900000 + "1" + ",1)" * 98,
    "long": "2*M*N*K" + "+1" * 2500,
    "quoted": "2*M*N*min(" + "K," * 1990 + "Q)",
}
for name, text in flops.items():
    os.makedirs(os.path.join(out, name), exist_ok=True)
    task["flops"] = text
    with open(os.path.join(out, name, "task.json"), "w") as f:
        json.dump(task, f, indent=1)
