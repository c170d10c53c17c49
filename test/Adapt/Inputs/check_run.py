"""Checks an sft.py run folder: the loss fell, and the run is recorded.

  check_run.py RUN_DIR DATA.jsonl

Prints one line per check and `run ok` at the end; exits non-zero at the
first check that fails.
"""
import csv, hashlib, json, os, sys

run, data = sys.argv[1], sys.argv[2]


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        sys.exit(1)


config = json.load(open(os.path.join(run, "run_config.json")))
check(config["data_sha256"] == hashlib.sha256(open(data, "rb").read()).hexdigest(),
      "run_config.json has the data's sha256")
s = config["settings"]
print("settings: seed=%s max_length=%s packing=%s full=%s balance=%s lr=%s layers=%s" % (
    s["seed"], s["max_length"], s["packing"], s["full"], s["balance"], s["learning_rate"],
    s["lora_layers"]))
print("balance: %s -> %s records" % (config["balance"]["records_before"], config["balance"]["records_after"]))
for cell, n in sorted(config["balance"]["cells_after"].items()):
    print("cell after: %s: %d" % (cell, n))
print("split: heldout %s, eval records %d" % (",".join(config["split"]["heldout_tasks"]) or "-",
                                              config["split"]["eval_records"]))
rows = list(csv.DictReader(open(os.path.join(run, "loss.csv"))))
train = [float(r["loss"]) for r in rows if r["loss"]]
evals = [float(r["eval_loss"]) for r in rows if r["eval_loss"]]
check(len(train) == config["result"]["steps"], "loss.csv has one training loss per step")
check(len(evals) >= 1, "loss.csv has the held-out loss")
check(train[-1] < train[0], "the training loss fell (%.4f -> %.4f)" % (train[0], train[-1]))
check(evals[-1] < train[0], "the held-out loss is below the first training loss")
for part in ("model/config.json", "model/model.safetensors", "model/tokenizer.json",
             "adapter/adapter_config.json"):
    check(os.path.exists(os.path.join(run, part)), part)
print("run ok")
