"""A scripted chat server on 127.0.0.1 for the client's error paths.

Speaks OpenAI Chat Completions (/v1/chat/completions) and Anthropic
Messages (/v1/messages), whole or streamed (SSE). The request's model id
names the scenario, and each scenario counts its attempts, so
"429a" answers 429 with Retry-After once and then succeeds; "reset" resets
the connection once. Every request
is logged as one JSON line (path, scenario, attempt, stream, whether the
key matched EXPECTED_KEY, requests in flight): never the key itself.
"""
import argparse, json, os, socket, struct, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = "Here is a kernel.\n\n```cuda\n// @ptxbench grid 1\n__global__ void k() {}\n```\n"
lock = threading.Lock()
attempts, state = {}, {"in_flight": 0, "max_in_flight": 0}


def usage_openai():
    return {"prompt_tokens": 120, "completion_tokens": 30,
            "prompt_tokens_details": {"cached_tokens": 20},
            "completion_tokens_details": {"reasoning_tokens": 5}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def events(self, anthropic, text):
        if anthropic:
            yield "message_start", {"type": "message_start", "message": {"id": "msg_1", "model": "m", "usage": {"input_tokens": 100, "cache_read_input_tokens": 20, "output_tokens": 1}}}
            yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
            for i in range(0, len(text), 16):
                yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text[i:i + 16]}}
            yield "content_block_stop", {"type": "content_block_stop", "index": 0}
            yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 30}}
            yield "message_stop", {"type": "message_stop"}
        else:
            for i in range(0, len(text), 16):
                yield None, {"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "delta": {"content": text[i:i + 16]}, "finish_reason": None}]}
            yield None, {"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            yield None, {"id": "chatcmpl-1", "model": "m", "choices": [], "usage": usage_openai()}
            yield None, "[DONE]"

    def stream(self, anthropic, text, cut=False, stall=0):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for n, (event, data) in enumerate(self.events(anthropic, text)):
            chunk = ("event: %s\n" % event if event else "") + "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
            self.wfile.write(chunk.encode())
            self.wfile.flush()
            if n == 2 and (cut or stall):
                if stall:
                    time.sleep(stall)
                self.close_connection = True
                return

    def whole(self, anthropic, text):
        if anthropic:
            body = {"id": "msg_1", "model": "m", "type": "message", "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 100, "cache_read_input_tokens": 20, "output_tokens": 30}}
        else:
            body = {"id": "chatcmpl-1", "model": "m",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": usage_openai()}
        self.send(200, json.dumps(body))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length))
        anthropic = self.path.endswith("/messages")
        key = os.environ.get("EXPECTED_KEY", "")
        got = self.headers.get("x-api-key") if anthropic else (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        model = request.get("model", "ok")
        scenario = model.split("/")[0]
        stream = bool(request.get("stream"))
        with lock:
            attempt = attempts[model] = attempts.get(model, 0) + 1
            state["in_flight"] += 1
            state["max_in_flight"] = max(state["max_in_flight"], state["in_flight"])
            log = {"t": time.time(), "path": self.path, "model": model, "scenario": scenario, "attempt": attempt, "stream": stream,
                   "auth": got == key, "in_flight": state["in_flight"], "messages": len(request.get("messages", [])), "seed": request.get("seed"),
                   "max_tokens": request.get("max_tokens", request.get("max_completion_tokens"))}
            with open(self.server.log, "a") as f:
                f.write(json.dumps(log) + "\n")
        try:
            self.answer(scenario, attempt, anthropic, stream, got)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with lock:
                state["in_flight"] -= 1

    def answer(self, scenario, attempt, anthropic, stream, got):
        ok = lambda: self.stream(anthropic, ANSWER) if stream else self.whole(anthropic, ANSWER)
        error = lambda status, message, kind="api_error", headers=(): self.send(
            status, json.dumps({"type": "error", "error": {"type": kind, "message": message}}), headers)
        if scenario == "429a" and attempt == 1:
            return error(429, "rate limited", "rate_limit_error", [("Retry-After", "1")])
        if scenario == "429" and attempt <= 2:
            return error(429, "rate limited", "rate_limit_error")
        if scenario == "500" and attempt <= 2:
            return error(500, "internal error")
        if scenario == "400":
            return error(400, "prompt is too long: 250000 tokens > 200000 maximum", "invalid_request_error")
        if scenario == "echo":
            return error(401, "invalid x-api-key: " + got, "authentication_error")
        if scenario == "reset" and attempt == 1:
            # A connection reset before any response (RST, not FIN).
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if scenario == "cut" and attempt == 1:
            if stream:
                return self.stream(anthropic, ANSWER, cut=True)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(b'{"id": "chatcmpl-1", "choi')
            self.wfile.flush()
            self.close_connection = True
            return
        if scenario == "stall" and attempt == 1:
            if stream:
                return self.stream(anthropic, ANSWER, stall=8)
            # A body that starts and then stops coming.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(b'{"id": "chatcmpl-1", ')
            self.wfile.flush()
            time.sleep(8)
            self.close_connection = True
            return
        if scenario == "malformed":
            if stream:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b"data: {not json\n\n")
                self.close_connection = True
                return
            return self.send(200, "{not json")
        if scenario.startswith("slow"):
            time.sleep(float(os.environ.get("SLOW_SECONDS", "0.5")))
        return ok()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    # The listen backlog is set when the server is made: many clients
    # connect at once.
    ThreadingHTTPServer.request_queue_size = 512
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.log = args.log
    open(args.log, "w").close()
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
