"""Writes the task example of docs/tasks.md (the ```json block after the
line that names docs-example.test) to OUT/my_gemm/task.json."""
import os
import sys

doc, out = sys.argv[1], sys.argv[2]
lines = open(doc).read().split("\n")
start = next(i for i, l in enumerate(lines) if "docs-example.test" in l)
begin = lines.index("```json", start) + 1
end = lines.index("```", begin)
os.makedirs(os.path.join(out, "my_gemm"), exist_ok=True)
with open(os.path.join(out, "my_gemm", "task.json"), "w") as f:
    f.write("\n".join(lines[begin:end]) + "\n")
print(f"{end - begin} lines")
