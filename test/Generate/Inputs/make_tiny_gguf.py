"""Writes a tiny randomly initialized llama model as GGUF (about 200 KB).

  make_tiny_gguf.py OUT.gguf

Two layers, width 64, a byte-fallback SentencePiece vocabulary (<unk>, <s>,
</s> and the 256 byte tokens) and a chat template, with weights from a
fixed seed. Its answers are nonsense; it exists so a real inference server
can be started on a CPU in seconds.
"""
import sys

import gguf
import numpy as np

out = sys.argv[1]
n_embd, n_layer, n_head, n_ff, n_ctx = 64, 2, 4, 128, 32768
tokens = [b"<unk>", b"<s>", b"</s>"] + [("<0x%02X>" % i).encode() for i in range(256)]
types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
n_vocab = len(tokens)

w = gguf.GGUFWriter(out, "llama")
w.add_name("ptxbench-tiny-random")
w.add_context_length(n_ctx)
w.add_embedding_length(n_embd)
w.add_block_count(n_layer)
w.add_feed_forward_length(n_ff)
w.add_head_count(n_head)
w.add_head_count_kv(n_head)
w.add_rope_dimension_count(n_embd // n_head)
w.add_layer_norm_rms_eps(1e-5)
w.add_file_type(gguf.LlamaFileType.ALL_F32)
w.add_tokenizer_model("llama")
w.add_token_list(tokens)
w.add_token_scores([0.0] * n_vocab)
w.add_token_types(types)
w.add_bos_token_id(1)
w.add_eos_token_id(2)
w.add_unk_token_id(0)
w.add_add_bos_token(True)
w.add_add_eos_token(False)
w.add_chat_template("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}<|assistant|>\n")

rng = np.random.default_rng(1234)
def t(*shape, scale=0.08):
    return (rng.standard_normal(shape) * scale).astype(np.float32)

w.add_tensor("token_embd.weight", t(n_vocab, n_embd))
for i in range(n_layer):
    p = "blk.%d." % i
    w.add_tensor(p + "attn_norm.weight", np.ones(n_embd, dtype=np.float32))
    for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
        w.add_tensor(p + name + ".weight", t(n_embd, n_embd))
    w.add_tensor(p + "ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
    w.add_tensor(p + "ffn_gate.weight", t(n_ff, n_embd))
    w.add_tensor(p + "ffn_up.weight", t(n_ff, n_embd))
    w.add_tensor(p + "ffn_down.weight", t(n_embd, n_ff))
w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
w.add_tensor("output.weight", t(n_vocab, n_embd))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
