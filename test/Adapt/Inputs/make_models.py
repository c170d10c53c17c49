"""Writes the models file for a model served by training/serve.py.

  make_models.py NAME MODEL_ID MAX_OUTPUT > template.json

One `openai-compatible` model NAME at http://127.0.0.1:@PORT@/v1 (the port
filled in by with_server.py), streamed, with short timeouts and retries.
"""
import json, sys

name, model_id, max_output = sys.argv[1], sys.argv[2], int(sys.argv[3])
print(json.dumps({"models": {name: {
    "provider": "openai-compatible",
    "base_url": "http://127.0.0.1:@PORT@/v1",
    "model": model_id,
    "stream": True,
    "sampling": {"temperature": 1.0, "max_output_tokens": max_output},
    "timeouts": {"connect_s": 10, "stall_s": 60, "total_s": 120},
    "retry": {"max_attempts": 2, "initial_backoff_s": 0.1, "max_backoff_s": 0.5},
}}}, indent=1))
