"""Checks a model folder training/from_gguf.py wrote: its record of the
conversion, the config without a quantization note, float32 weights, and a
tokenizer with a chat template that ends a turn with the model's end token.

  check_base.py MODEL_DIR
"""
import json, os, sys

model = sys.argv[1]
stamp = json.load(open(os.path.join(model, "from_gguf.json")))
config = json.load(open(os.path.join(model, "config.json")))
print("base: %s from %s, %d parameters, %s" % (stamp["architecture"], os.path.basename(stamp["source"]),
                                               stamp["parameters"], stamp["dtype"]))
if "quantization_config" in config:
    sys.exit("FAIL: config.json still has a quantization_config")
import transformers  # noqa: E402

tokenizer = transformers.AutoTokenizer.from_pretrained(model)
text = tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                     add_generation_prompt=True)
print("chat template: %r" % text[-40:])
print("end of turn: %s = %d, config eos %d" % (tokenizer.eos_token, tokenizer.eos_token_id,
                                               config["eos_token_id"]))
