"""Writes a tiny randomly initialized chat model for the adaptation test.

    make_tiny_model.py FIXIT.jsonl OUT_DIR

A byte-level BPE tokenizer (vocabulary 1024) trained with `tokenizers` on the
Fixit records' text, with a ChatML chat template and its special tokens, and
a two-layer Qwen2 causal LM (hidden size 128) of a few hundred thousand
parameters initialized from a seed. Prints the parameter count.
"""
import json
import sys

import tokenizers
import torch
import transformers

fixit, out = sys.argv[1], sys.argv[2]
texts = []
with open(fixit) as f:
    for line in f:
        for m in json.loads(line)["messages"]:
            texts.append(m["content"])
if not texts:
    sys.exit("make_tiny_model.py: %s has no records" % fixit)

specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
bpe.decoder = tokenizers.decoders.ByteLevel()
trainer = tokenizers.trainers.BpeTrainer(
    vocab_size=1024, special_tokens=specials,
    initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
bpe.train_from_iterator(texts, trainer)

chat_template = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
tokenizer = transformers.PreTrainedTokenizerFast(
    tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
    bos_token=None, unk_token=None)
tokenizer.chat_template = chat_template
tokenizer.model_max_length = 4096
tokenizer.save_pretrained(out)

torch.manual_seed(0)
config = transformers.Qwen2Config(
    vocab_size=len(tokenizer), hidden_size=128, intermediate_size=256, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
    tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id,
    pad_token_id=tokenizer.pad_token_id, bos_token_id=None)
model = transformers.Qwen2ForCausalLM(config)
model.generation_config.eos_token_id = tokenizer.eos_token_id
model.generation_config.pad_token_id = tokenizer.pad_token_id
model.save_pretrained(out)
print("tiny model: %d parameters, vocabulary %d" % (sum(p.numel() for p in model.parameters()),
                                                   len(tokenizer)))
