"""Validates task files against tasks/task.schema.json (JSON Schema 2020-12),
or solutions manifests against tasks/solutions.schema.json (--manifests).

  validate-schema.py SCHEMA --expect valid|invalid [--manifests] DIR...
      Every DIR/*/task.json (or DIR/task.json): one line per file,
      "NAME: valid" or "NAME: invalid at PATH: MESSAGE" for each schema
      error (PATH as the loader writes it: tensors[1].dtype). Exits 1 when a
      file's result is not the expected one, or when there is no file.
      With --manifests: every DIR/*/solutions/manifest.json instead.
  validate-schema.py SCHEMA --families LOADER_OUTPUT
      Compares the schema's feature families with the list in the loader's
      "unknown feature family" message (ptxbench tasks check output), so the
      schema follows the ISA table.
"""
import argparse
import glob
import json
import os
import re
import sys

import jsonschema


def json_path(parts):
    """["tensors", 1, "dtype"] -> "tensors[1].dtype"."""
    text = ""
    for p in parts:
        if isinstance(p, int):
            text += f"[{p}]"
        else:
            text += ("." if text else "") + p
    return text or "(top)"


def task_files(folder, name):
    own = os.path.join(folder, name)
    if os.path.exists(own):
        return [own]
    return sorted(glob.glob(os.path.join(folder, "*", name)))


def schema_families(schema):
    pattern = schema["$defs"]["family"]["pattern"]
    group = re.match(r"\^\(([^)]*)\)", pattern).group(1)
    return sorted(group.split("|"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("schema")
    ap.add_argument("--expect", choices=["valid", "invalid"])
    ap.add_argument("--families")
    ap.add_argument("--manifests", action="store_true")
    ap.add_argument("dirs", nargs="*")
    args = ap.parse_intermixed_args()
    with open(args.schema) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    if args.families:
        with open(args.families) as f:
            text = f.read()
        m = re.search(r"unknown feature family [^;]*; expected one of (.*?), or "
                      r"alternatives", text)
        if not m:
            print("error: no 'unknown feature family' message in " + args.families)
            return 1
        loader = sorted(m.group(1).split(", "))
        ours = schema_families(schema)
        if loader != ours:
            print("error: the schema's families differ from the ISA table's")
            print("  only in the schema: " + ", ".join(sorted(set(ours) - set(loader))))
            print("  only in the ISA table: " + ", ".join(sorted(set(loader) - set(ours))))
            return 1
        print(f"families: {len(ours)}, as in the ISA table")
        return 0

    name = os.path.join("solutions", "manifest.json") if args.manifests else "task.json"
    files = [f for d in args.dirs for f in task_files(d, name)]
    if not files:
        print(f"error: no {name} in " + " ".join(args.dirs))
        return 1
    wrong = 0
    for path in files:
        folder = os.path.dirname(path)
        if args.manifests:
            folder = os.path.dirname(folder)
        name = os.path.basename(folder)
        try:
            with open(path) as f:
                task = json.load(f)
        except json.JSONDecodeError as e:
            errors = [f"invalid at (syntax): {e}"]
        else:
            errors = [f"invalid at {json_path(e.absolute_path)}: {e.message}"
                      for e in sorted(validator.iter_errors(task),
                                      key=lambda e: list(map(str, e.absolute_path)))]
        if errors:
            for e in errors:
                print(f"{name}: {e}")
        else:
            print(f"{name}: valid")
        if bool(errors) != (args.expect == "invalid"):
            print(f"error: {name}: expected {args.expect}")
            wrong += 1
    print(f"{len(files)} {'manifests' if args.manifests else 'task files'}, "
          f"{wrong} not {args.expect}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
