"""Starts llama.cpp's OpenAI-compatible server (llama-cpp-python) on
127.0.0.1 with a free port and the given GGUF model, waits for it to
answer GET /v1/models (with a deadline), then writes the port file and
waits for the server. Used through with_server.py, which kills this
script's process group (the server with it) on every exit path.

  llama_server.py --model M.gguf --port-file F --log L [--n-ctx N]
"""
import argparse, os, signal, socket, subprocess, sys, time, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True)
parser.add_argument("--port-file", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--deadline", type=float, default=120)
parser.add_argument("--n-ctx", default="8192", help="the context window (SmolLM2's is 8192)")
args = parser.parse_args()

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
log = open(args.log, "w")
server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", args.model,
                           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", args.n_ctx,
                           "--n_threads", "2", "--seed", "1",
                           # Serve requests one after the other instead of
                           # cutting a stream when the next request comes.
                           "--interrupt_requests", "False"],
                          stdout=log, stderr=subprocess.STDOUT)
signal.signal(signal.SIGTERM, lambda *_: (server.kill(), sys.exit(0)))
deadline = time.time() + args.deadline
while True:
    if server.poll() is not None:
        sys.exit("llama_server: the server exited (%d); see %s" % (server.returncode, args.log))
    if time.time() > deadline:
        server.kill()
        sys.exit("llama_server: no answer on /v1/models within %gs" % args.deadline)
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/v1/models" % port, timeout=2) as r:
            if r.status == 200:
                break
    except OSError:
        time.sleep(0.2)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(port))
os.rename(args.port_file + ".tmp", args.port_file)
server.wait()
