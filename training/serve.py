#!/usr/bin/env python3
"""Serves a model folder through an OpenAI-compatible server on 127.0.0.1.

    python training/serve.py --model runs/r1/model [--adapter runs/r1/adapter]
                             [--port P] [--port-file F] [--log L]
                             [--server auto|vllm|transformers] [--device D] [--dtype T]
                             [--deadline S]
                             [-- EXTRA SERVER ARGS...]

Starts vLLM (`vllm serve`) where it is installed, else `transformers serve`
(transformers[serving]), on 127.0.0.1 with the given or a free port, waits
with a deadline for GET /v1/models to answer, then writes the port to
--port-file (atomically) and prints the base URL and the model id, and
waits for the server. The model id is the model folder's absolute path with
both servers (vLLM is given it as --served-model-name); with --adapter
(vLLM only) it is `tuned`, the base plus the LoRA adapter. SIGTERM or
SIGINT stops the server; the server never outlives this script.

A models file for `ptxbench generate` then names it:
  {"models": {"tuned": {"provider": "openai-compatible",
     "base_url": "http://127.0.0.1:PORT/v1", "model": "<the model id>"}}}
"""
import argparse
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def fail(message):
    sys.exit("serve.py: error: " + message)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a model folder (sft.py's OUTPUT/model, or the base)")
    parser.add_argument("--adapter", help="a LoRA adapter folder served on top of --model (vLLM only)")
    parser.add_argument("--port", type=int, default=0, help="the port (0: a free one)")
    parser.add_argument("--port-file", help="written with the port once the server answers")
    parser.add_argument("--log", help="the server's output (default: this script's)")
    parser.add_argument("--server", choices=["auto", "vllm", "transformers"], default="auto")
    parser.add_argument("--device", default="auto", help="transformers serve's --device (auto, cpu, cuda:0)")
    parser.add_argument("--dtype", default="auto",
                        help="the weights' type as served (auto: as saved; bfloat16, float16, float32)")
    parser.add_argument("--deadline", type=float, default=600, help="seconds to wait for the server")
    parser.add_argument("extra", nargs=argparse.REMAINDER, help="after --: more arguments for the server")
    args = parser.parse_args()
    extra = args.extra[1:] if args.extra[:1] == ["--"] else args.extra

    model = os.path.abspath(args.model)
    if not os.path.isfile(os.path.join(model, "config.json")):
        fail("%s: not a model folder (no config.json)" % args.model)
    server = args.server
    if server == "auto":
        server = "vllm" if importlib.util.find_spec("vllm") else "transformers"
    if args.adapter and server != "vllm":
        fail("--adapter needs vLLM; serve sft.py's merged model/ folder instead")

    port = args.port
    if not port:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    model_id = model
    if server == "vllm":
        command = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", model,
                   "--served-model-name", model, "--host", "127.0.0.1", "--port", str(port),
                   "--dtype", args.dtype]
        if args.adapter:
            model_id = "tuned"
            command += ["--enable-lora", "--lora-modules", "tuned=" + os.path.abspath(args.adapter)]
    else:
        cli = shutil.which("transformers")
        if not cli:
            fail("neither vLLM nor the transformers CLI is installed (pip install 'transformers[serving]')")
        command = [cli, "serve", model, "--host", "127.0.0.1", "--port", str(port),
                   "--device", args.device, "--dtype", args.dtype, "--log-level", "info"]
    command += extra

    log = open(args.log, "w") if args.log else None
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT if log else None)

    def stop(*_):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        deadline = time.time() + args.deadline
        url = "http://127.0.0.1:%d/v1" % port
        while True:
            if process.poll() is not None:
                fail("the %s server exited (%d)%s" % (server, process.returncode,
                                                       "; see " + args.log if args.log else ""))
            if time.time() > deadline:
                fail("no answer on %s/models within %gs" % (url, args.deadline))
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        if args.port_file:
            with open(args.port_file + ".tmp", "w") as f:
                f.write(str(port))
            os.rename(args.port_file + ".tmp", args.port_file)
        print("serve.py: %s serves model id '%s' at %s" % (server, model_id, url), flush=True)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


if __name__ == "__main__":
    main()
