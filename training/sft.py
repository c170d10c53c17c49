#!/usr/bin/env python3
"""Supervised fine-tuning on `ptxbench fixit` records (TRL SFT, PEFT LoRA).

    python training/sft.py --base-model PATH --data fixit.jsonl --output-dir runs/r1
                           [--eval-data fixit.heldout.jsonl] [--heldout-tasks A,B]
                           [--full] [--lora-r 16 ...] [--lora-layers all|last:N]
                           [--max-length 8192] [--no-packing]
                           [--balance none|cap:N|uniform:N] [--config run.json] ...

Reads only what `ptxbench fixit` writes: one JSON object per line with
`messages` (system, user, assistant) and `metadata` (task, failure_kind, ...).
Each record becomes a conversational prompt-completion pair: the prompt is
every message before the last assistant turn, the completion that turn, so
the loss falls on the assistant's answer only, formatted with the base
model's own chat template. LoRA by default (`--full` trains every weight);
bf16 on a GPU, fp32 on the CPU. The defaults suit a 7-8B code model on one
80-141 GB GPU; `accelerate launch training/sft.py ...` spreads it over more.

Written beside the result, in --output-dir:
  run_config.json  every setting, the data files' sha256, the split and the
                   balance (cell counts before and after), library versions
  loss.csv         the trainer's log: step, epoch, loss, eval_loss, learning_rate
  loss.png         the loss curve (matplotlib where installed, else plot.py)
  adapter/         the LoRA adapter (LoRA runs)
  model/           the model to serve: merged with the adapter (LoRA runs,
                   unless --no-merge) or fully tuned, with the tokenizer
"""
import argparse
import collections
import collections.abc
import csv
import dataclasses
import hashlib
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402


def fail(message):
    sys.exit("sft.py: error: " + message)


# The settings, their defaults and their help. A --config JSON file may set
# any of them (by these names); the command line wins over the file.
SETTINGS = [
    ("base_model", None, "base model: a local folder (config, weights, tokenizer with a chat template)"),
    ("data", None, "training records: ptxbench fixit's JSONL"),
    ("eval_data", None, "evaluation records (e.g. fixit's OUT.heldout.jsonl); its loss is logged"),
    ("output_dir", None, "where the run's files go"),
    ("heldout_tasks", "", "comma-separated tasks dropped from --data (and kept in --eval-data only), "
                          "for a file written without fixit --split"),
    ("full", False, "full fine-tuning instead of LoRA"),
    ("lora_r", 16, "LoRA rank"),
    ("lora_alpha", 32, "LoRA alpha"),
    ("lora_dropout", 0.05, "LoRA dropout"),
    ("lora_target_modules", "all-linear", "LoRA target modules: all-linear or comma-separated names"),
    ("lora_layers", "all", "the decoder layers LoRA adapts: all, or last:N (the top N; the backward "
                           "pass then stops below them, which is what makes a CPU run affordable)"),
    ("merge", True, "save the base merged with the adapter in model/ (LoRA runs)"),
    ("max_length", 16384, "tokens per training sequence; longer records are left out (counted in run_config.json)"),
    ("packing", True, "pack several records into one sequence (TRL's best-fit packing)"),
    ("epochs", 2.0, "training epochs"),
    ("max_steps", -1, "stop after this many optimizer steps (-1: by --epochs)"),
    ("learning_rate", None, "peak learning rate (default 1e-4 for LoRA, 1e-5 for --full)"),
    ("batch_size", 2, "sequences per device and step"),
    ("grad_accum", 8, "gradient accumulation steps"),
    ("warmup", 0.03, "warm-up: a share of the steps (below 1) or a number of steps"),
    ("weight_decay", 0.0, "weight decay"),
    ("lr_scheduler", "cosine", "learning-rate schedule"),
    ("gradient_checkpointing", True, "recompute activations (GPU only)"),
    ("logging_steps", 1, "log the loss every N steps"),
    ("eval_steps", 50, "evaluate every N steps when --eval-data is given"),
    ("balance", "none", "rebalance task x failure-kind cells: none, cap:N (at most N records a cell), "
                        "uniform:N (each cell resampled to N records, with replacement where it has fewer)"),
    ("seed", 0, "seed for the split, the balance, the initialization of LoRA weights and the data order"),
    ("device", "auto", "auto (a GPU when there is one), cuda or cpu"),
]
BOOLEANS = {name for name, default, _ in SETTINGS if isinstance(default, bool)}


def parse_settings(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="a JSON file of settings (the names below, with underscores)")
    for name, default, help_text in SETTINGS:
        flag = "--" + name.replace("_", "-")
        if name in BOOLEANS:
            parser.add_argument(flag, dest=name, action="store_true", default=None, help=help_text)
            parser.add_argument("--no-" + name.replace("_", "-"), dest=name, action="store_false")
        else:
            kind = float if name == "learning_rate" else type(default) if default is not None else str
            parser.add_argument(flag, dest=name, type=kind, default=None, help=help_text)
    args = parser.parse_args(argv)
    settings = {name: default for name, default, _ in SETTINGS}
    if args.config:
        try:
            with open(args.config) as f:
                from_file = json.load(f)
        except (OSError, ValueError) as e:
            fail("%s: %s" % (args.config, e))
        if not isinstance(from_file, dict):
            fail("%s: expected a JSON object of settings" % args.config)
        for key, value in from_file.items():
            if key not in settings:
                fail("%s: unknown setting '%s'" % (args.config, key))
            settings[key] = value
    for name in settings:
        value = getattr(args, name)
        if value is not None:
            settings[name] = value
    for name in ("base_model", "data", "output_dir"):
        if not settings[name]:
            fail("--%s is required" % name.replace("_", "-"))
    if settings["learning_rate"] is None:
        settings["learning_rate"] = 1e-5 if settings["full"] else 1e-4
    return settings


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_fixit(path):
    """The records of a fixit JSONL file; an error names the file and line."""
    records = []
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = "%s:%d" % (path, number)
        try:
            record = json.loads(line)
        except ValueError as e:
            fail("%s: not JSON: %s" % (where, e))
        messages = record.get("messages") if isinstance(record, dict) else None
        if not isinstance(messages, list) or not messages:
            fail("%s: expected an object with a non-empty 'messages' list" % where)
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant") \
                    or not isinstance(m.get("content"), str):
                fail("%s: messages[%d]: expected {role: system|user|assistant, content: string}" % (where, i))
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
        if last is None or last == 0:
            fail("%s: no assistant message after the prompt" % where)
        metadata = record.get("metadata") or {}
        records.append({
            "prompt": messages[:last],
            "completion": [messages[last]],
            "task": str(metadata.get("task", "?")),
            "failure_kind": str(metadata.get("failure_kind", "?")),
        })
    return records


def cells(records):
    counts = collections.Counter((r["task"], r["failure_kind"]) for r in records)
    return {"%s / %s" % key: n for key, n in sorted(counts.items())}


def rebalance(records, spec, seed):
    """Records after the --balance spec: a cap per task x failure-kind cell
    (a seeded sample of each larger cell), or every cell resampled to N."""
    if spec == "none":
        return list(records)
    mode, _, number = spec.partition(":")
    if mode not in ("cap", "uniform") or not number.isdigit() or int(number) < 1:
        fail("--balance expects none, cap:N or uniform:N, got '%s'" % spec)
    n = int(number)
    rng = random.Random(seed)
    by_cell = collections.defaultdict(list)
    for r in records:
        by_cell[(r["task"], r["failure_kind"])].append(r)
    result = []
    for key in sorted(by_cell):
        cell = by_cell[key]
        if len(cell) >= n:
            result += rng.sample(cell, n) if (mode == "uniform" or len(cell) > n) else cell
        elif mode == "uniform":
            result += cell + [rng.choice(cell) for _ in range(n - len(cell))]
        else:
            result += cell
    rng.shuffle(result)
    return result


def lora_layers(spec):
    """The --lora-layers spec: None for all layers, else how many of the top."""
    if spec == "all":
        return None
    mode, _, number = spec.partition(":")
    if mode != "last" or not number.isdigit() or int(number) < 1:
        fail("--lora-layers expects all or last:N, got '%s'" % spec)
    return int(number)


def write_loss(log_history, output_dir):
    rows = []
    for entry in log_history:
        if "loss" in entry or "eval_loss" in entry:
            rows.append({"step": entry.get("step"), "epoch": entry.get("epoch"),
                         "loss": entry.get("loss", ""), "eval_loss": entry.get("eval_loss", ""),
                         "learning_rate": entry.get("learning_rate", "")})
    with open(os.path.join(output_dir, "loss.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["step", "epoch", "loss", "eval_loss", "learning_rate"])
        writer.writeheader()
        writer.writerows(rows)
    series = {
        "train loss": [(r["step"], r["loss"]) for r in rows if r["loss"] != ""],
        "eval loss": [(r["step"], r["eval_loss"]) for r in rows if r["eval_loss"] != ""],
    }
    series = {k: v for k, v in series.items() if v}
    path = os.path.join(output_dir, "loss.png")
    try:
        # matplotlib where installed (labelled axes); else the stdlib writer.
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axes = plt.subplots(figsize=(6.4, 4))
        for name, points in series.items():
            axes.plot([p[0] for p in points], [p[1] for p in points], marker=".", label=name)
        axes.set_xlabel("step")
        axes.set_ylabel("loss")
        axes.legend()
        figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)
    except ImportError:
        plot.line_plot(series, path)
    return series.get("train loss", [])


def main(argv=None):
    s = parse_settings(argv)
    heldout = [t for t in s["heldout_tasks"].split(",") if t]
    train = read_fixit(s["data"])
    dropped = [r for r in train if r["task"] in heldout]
    train = [r for r in train if r["task"] not in heldout]
    evaluation = read_fixit(s["eval_data"]) if s["eval_data"] else dropped
    if not train:
        fail("%s: no training record%s" % (s["data"], " outside the held-out tasks" if heldout else ""))
    rebalance([], s["balance"], s["seed"])  # checks the spec before the slow part
    top = lora_layers(s["lora_layers"])

    # The heavy imports after the cheap checks, so bad input fails fast.
    import datasets
    import peft
    import torch
    import transformers
    import trl

    transformers.set_seed(s["seed"])
    if s["device"] == "auto":
        s["device"] = "cuda" if torch.cuda.is_available() else "cpu"
    on_gpu = s["device"] == "cuda"
    if on_gpu and not torch.cuda.is_available():
        fail("--device cuda, but torch sees no GPU")
    dtype = torch.bfloat16 if on_gpu else torch.float32

    tokenizer = transformers.AutoTokenizer.from_pretrained(s["base_model"])
    if not tokenizer.chat_template:
        fail("%s: the tokenizer has no chat template" % s["base_model"])
    model = transformers.AutoModelForCausalLM.from_pretrained(s["base_model"], dtype=dtype)

    # A record longer than --max-length would lose its end, the fixed kernel
    # the loss is on: such records are left out and counted, never cut.
    def fits(record):
        ids = tokenizer.apply_chat_template(record["prompt"] + record["completion"], tokenize=True)
        if isinstance(ids, collections.abc.Mapping):
            ids = ids["input_ids"]
        return len(ids) <= s["max_length"]

    fitting = [r for r in train if fits(r)]
    fitting_eval = [r for r in evaluation if fits(r)]
    too_long = {"train": len(train) - len(fitting), "eval": len(evaluation) - len(fitting_eval)}
    if too_long["train"] or too_long["eval"]:
        print("sft.py: warning: %d training and %d evaluation records are longer than --max-length %d "
              "tokens and are left out" % (too_long["train"], too_long["eval"], s["max_length"]),
              file=sys.stderr)
    if not fitting:
        fail("%s: every training record is longer than --max-length %d tokens" % (s["data"], s["max_length"]))
    evaluation = fitting_eval
    # The balance applies to the records that are trained on.
    balanced = rebalance(fitting, s["balance"], s["seed"])

    os.makedirs(s["output_dir"], exist_ok=True)
    config = {
        "settings": s,
        "data_sha256": sha256(s["data"]),
        "eval_data_sha256": sha256(s["eval_data"]) if s["eval_data"] else None,
        "split": {"heldout_tasks": heldout, "dropped_from_data": len(dropped),
                  "eval_records": len(evaluation)},
        "balance": {"spec": s["balance"], "records_before": len(fitting), "records_after": len(balanced),
                    "cells_before": cells(fitting), "cells_after": cells(balanced)},
        "too_long": too_long,
        "dtype": str(dtype).replace("torch.", ""),
        "versions": {m.__name__: m.__version__ for m in (torch, transformers, trl, peft, datasets)},
    }
    config_path = os.path.join(s["output_dir"], "run_config.json")
    with open(config_path, "w") as f:
        json.dump(config, f, indent=1)

    def as_dataset(records):
        return datasets.Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"]}
                                           for r in records])

    sft_config = trl.SFTConfig(
        output_dir=os.path.join(s["output_dir"], "checkpoints"),
        num_train_epochs=s["epochs"],
        max_steps=s["max_steps"],
        learning_rate=s["learning_rate"],
        per_device_train_batch_size=s["batch_size"],
        per_device_eval_batch_size=s["batch_size"],
        gradient_accumulation_steps=s["grad_accum"],
        warmup_steps=s["warmup"],
        weight_decay=s["weight_decay"],
        lr_scheduler_type=s["lr_scheduler"],
        bf16=on_gpu,
        use_cpu=not on_gpu,
        max_length=s["max_length"],
        packing=s["packing"],
        completion_only_loss=True,
        logging_steps=s["logging_steps"],
        eval_strategy="steps" if evaluation else "no",
        eval_steps=s["eval_steps"],
        save_strategy="no",
        report_to=[],
        seed=s["seed"],
        data_seed=s["seed"],
        dataset_num_proc=None,
    )
    # transformers 5 renamed gradient checkpointing to activation checkpointing.
    names = {f.name for f in dataclasses.fields(trl.SFTConfig)}
    checkpointing = "activation_checkpointing" if "activation_checkpointing" in names else "gradient_checkpointing"
    setattr(sft_config, checkpointing, s["gradient_checkpointing"] and on_gpu)
    peft_config = None
    if not s["full"]:
        targets = s["lora_target_modules"]
        layers = None
        if top is not None:
            count = getattr(model.config, "num_hidden_layers", None)
            if not count or top > count:
                fail("--lora-layers last:%d, but %s has %s decoder layers" % (top, s["base_model"], count))
            layers = list(range(count - top, count))
            if targets == "all-linear":
                # PEFT takes layers only with named modules: every linear
                # layer's name inside the decoder layers (the output head
                # is not one of them).
                targets = ",".join(sorted({name.rsplit(".", 1)[-1] for name, module in model.named_modules()
                                           if isinstance(module, torch.nn.Linear) and ".layers." in name}))
        peft_config = peft.LoraConfig(
            r=s["lora_r"], lora_alpha=s["lora_alpha"], lora_dropout=s["lora_dropout"],
            target_modules=targets if targets == "all-linear" else targets.split(","),
            layers_to_transform=layers, task_type="CAUSAL_LM")
    trainer = trl.SFTTrainer(model=model, args=sft_config, train_dataset=as_dataset(balanced),
                             eval_dataset=as_dataset(evaluation) if evaluation else None,
                             processing_class=tokenizer, peft_config=peft_config)
    metrics = trainer.train().metrics
    losses = write_loss(trainer.state.log_history, s["output_dir"])

    model_dir = os.path.join(s["output_dir"], "model")
    if s["full"]:
        trainer.model.save_pretrained(model_dir)
    else:
        trainer.model.save_pretrained(os.path.join(s["output_dir"], "adapter"))
        tokenizer.save_pretrained(os.path.join(s["output_dir"], "adapter"))
        if s["merge"]:
            trainer.model.merge_and_unload().save_pretrained(model_dir)
    if s["full"] or s["merge"]:
        tokenizer.save_pretrained(model_dir)

    config["result"] = {"steps": trainer.state.global_step,
                        "first_loss": losses[0][1] if losses else None,
                        "last_loss": losses[-1][1] if losses else None,
                        "train_seconds": metrics.get("train_runtime"),
                        "tokens": next((e["num_tokens"] for e in reversed(trainer.state.log_history)
                                        if "num_tokens" in e), None),
                        # The trainer's own figure is rounded to 3 decimals.
                        "steps_per_second": trainer.state.global_step / metrics["train_runtime"]
                        if metrics.get("train_runtime") else None}
    with open(config_path, "w") as f:
        json.dump(config, f, indent=1)
    print("sft.py: %d records (%d before --balance %s), %d steps, loss %s -> %s; %s" % (
        len(balanced), len(fitting), s["balance"], trainer.state.global_step,
        config["result"]["first_loss"], config["result"]["last_loss"], s["output_dir"]))


if __name__ == "__main__":
    main()
