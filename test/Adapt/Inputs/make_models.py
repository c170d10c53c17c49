"""Writes the models file for a model served by training/serve.py.

  make_models.py NAME MODEL_ID MAX_OUTPUT [--temperature T] [--stall S] [--total S]

One `openai-compatible` model NAME at http://127.0.0.1:@PORT@/v1 (the port
filled in by with_server.py), streamed, one request at a time (each
answer's latency is its own), with retries; temperature 0 is
greedy decoding (transformers serve then does not sample), so the same
model gives the same answers. The stall and total timeouts allow for a
prompt of a few thousand tokens read on a busy CPU before the first token.
"""
import argparse, json

parser = argparse.ArgumentParser()
parser.add_argument("name")
parser.add_argument("model_id")
parser.add_argument("max_output", type=int)
parser.add_argument("--temperature", type=float, default=1.0)
parser.add_argument("--stall", type=float, default=60)
parser.add_argument("--total", type=float, default=120)
args = parser.parse_args()
print(json.dumps({"models": {args.name: {
    "provider": "openai-compatible",
    "base_url": "http://127.0.0.1:@PORT@/v1",
    "model": args.model_id,
    "stream": True,
    "sampling": {"temperature": args.temperature, "max_output_tokens": args.max_output},
    "limits": {"concurrency": 1},
    "timeouts": {"connect_s": 10, "stall_s": args.stall, "total_s": args.total},
    "retry": {"max_attempts": 2, "initial_backoff_s": 0.1, "max_backoff_s": 0.5},
}}}, indent=1))
