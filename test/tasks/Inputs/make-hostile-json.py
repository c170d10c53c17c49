"""Writes task folders whose JSON a person or an attacker got wrong, from a
shipped task (rmsnorm_h4096), for hostile-json.test:

  deep/          task.json with a value nested 50,000 levels deep
  bom/           task.json saved with a UTF-8 byte-order mark
  duplicate/     task.json naming workloads.dev[0]'s "name" twice
  manifest/      a good task.json and a solutions manifest with "file"
                 twice in solutions[1]

  make-hostile-json.py SRC OUT
"""
import os
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
task = open(os.path.join(src, "tasks", "rmsnorm_h4096", "task.json")).read()


def write(name, text, solutions=None):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "task.json"), "wb") as f:
        f.write(text.encode())
    if solutions is not None:
        os.makedirs(os.path.join(folder, "solutions"), exist_ok=True)
        for f in ("plain.cu", "wrong_eps.cu"):
            shutil.copy(os.path.join(src, "tasks", "rmsnorm_h4096", "solutions", f),
                        os.path.join(folder, "solutions", f))
        with open(os.path.join(folder, "solutions", "manifest.json"), "w") as f:
            f.write(solutions)


depth = 50000
write("deep", task.replace('"params"', '"x": ' + "[" * depth + "]" * depth + ',\n  "params"', 1))
write("bom", "\ufeff" + task)
write("duplicate", task.replace('{"name": "dev-t8192",',
                                '{"name": "dev-t8192",\n       "name": "again",', 1))
manifest = """{
  "tasks": ["manifest"],
  "solutions": [
    {"file": "plain.cu", "arch": "sm_90a", "status": "PASSED"},
    {"file": "wrong_eps.cu", "arch": "sm_90a", "status": "INCORRECT",
     "file": "plain.cu"}
  ]
}
"""
write("manifest", task.replace('"name": "rmsnorm_h4096"', '"name": "manifest"', 1), manifest)
