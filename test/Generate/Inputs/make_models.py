"""Writes a models file for the scripted server (port @PORT@).

  make_models.py SCENARIO,... [--variants all|openai-stream,...] [--retry N]
                 [--prices IN,OUT,CACHED] [--max-output N] [--concurrency C]
                 [--stall S] [--total S] [--max-reply BYTES]

One model per scenario and wire variant, named `<variant>-<scenario>`, whose
model id `<scenario>/<variant>` tells the server what to do; the key comes
from PTXBENCH_TEST_KEY. Retries back off from 50 ms; a stream stalls after
3 s without content (--stall); --total and --max-reply set timeouts.total_s
and limits.max_reply_bytes (else their defaults, derived from --max-output).
"""
import argparse, json

VARIANTS = {
    "openai-stream": ("openai", True),
    "openai-whole": ("openai", False),
    "anthropic-stream": ("anthropic", True),
    "anthropic-whole": ("anthropic", False),
    "compat-stream": ("openai-compatible", True),
    "compat-whole": ("openai-compatible", False),
}

parser = argparse.ArgumentParser()
parser.add_argument("scenarios")
parser.add_argument("--variants", default="openai-stream,openai-whole,anthropic-stream,anthropic-whole")
parser.add_argument("--retry", type=int, default=3)
parser.add_argument("--prices", default="2,8,0.5")
parser.add_argument("--max-output", type=int, default=1000)
parser.add_argument("--concurrency", type=int, default=64)
parser.add_argument("--stall", type=float, default=3)
parser.add_argument("--total", type=float)
parser.add_argument("--max-reply", type=int)
args = parser.parse_args()
price_in, price_out, price_cached = (float(x) for x in args.prices.split(","))
models = {}
for variant in args.variants.split(","):
    provider, stream = VARIANTS[variant]
    for scenario in args.scenarios.split(","):
        models["%s-%s" % (variant, scenario)] = {
            "provider": provider,
            "base_url": "http://127.0.0.1:@PORT@/v1",
            "model": "%s/%s" % (scenario, variant),
            "api_key_env": "PTXBENCH_TEST_KEY",
            "stream": stream,
            "sampling": {"temperature": 0.5, "max_output_tokens": args.max_output},
            "prices": {"input": price_in, "output": price_out, "cached_input": price_cached},
            "limits": {"concurrency": args.concurrency},
            "timeouts": {"connect_s": 10, "stall_s": args.stall},
            "retry": {"max_attempts": args.retry, "initial_backoff_s": 0.05, "max_backoff_s": 0.2},
        }
        if args.total is not None:
            models["%s-%s" % (variant, scenario)]["timeouts"]["total_s"] = args.total
        if args.max_reply is not None:
            models["%s-%s" % (variant, scenario)]["limits"]["max_reply_bytes"] = args.max_reply
print(json.dumps({"models": models}, indent=1))
