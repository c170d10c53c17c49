"""Runs a command while a server runs on 127.0.0.1, then kills the server.

  with_server.py --server "python3 scripted_server.py" --dir D
                 [--template IN --models OUT] [--timeout S] -- COMMAND...

Starts the server with --port-file D/port --log D/server.log, waits (with a
deadline) for the port, writes the models file from the template with
@PORT@ replaced, runs COMMAND (its exit status is this script's), and
kills the server by its pid on every exit path.
"""
import argparse, os, shlex, signal, subprocess, sys, time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--template")
    parser.add_argument("--models")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--ready-timeout", type=float, default=30)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    os.makedirs(args.dir, exist_ok=True)
    port_file = os.path.join(args.dir, "port")
    if os.path.exists(port_file):
        os.remove(port_file)
    server = subprocess.Popen(shlex.split(args.server) + ["--port-file", port_file, "--log", os.path.join(args.dir, "server.log")],
                              start_new_session=True)
    try:
        deadline = time.time() + args.ready_timeout
        while not os.path.exists(port_file):
            if server.poll() is not None or time.time() > deadline:
                sys.exit("with_server: the server did not start")
            time.sleep(0.05)
        port = open(port_file).read().strip()
        if args.template:
            text = open(args.template).read().replace("@PORT@", port)
            with open(args.models, "w") as f:
                f.write(text)
        env = dict(os.environ, SERVER_PORT=port)
        try:
            result = subprocess.run(command, env=env, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            sys.exit("with_server: the command ran past %gs" % args.timeout)
        sys.exit(result.returncode)
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


if __name__ == "__main__":
    main()
