"""A scripted chat server on 127.0.0.1 for the client's error paths.

Speaks OpenAI Chat Completions (/v1/chat/completions) and Anthropic
Messages (/v1/messages), whole or streamed (SSE). The request's model id
names the scenario, and each scenario counts its attempts, so
"429a" answers 429 with Retry-After once and then succeeds; "reset" resets
the connection once. The hostile scenarios never end on their own: "endless"
(content without end), "drip" (a content event or byte every 0.3 s),
"keepalive" (SSE comments and pings, or whitespace, only), "bomb" (a 1 MB
gzip body that expands to 1 GiB); "error200", "badutf8", "redirect" and
"liar" (usage that cannot be the answer) answer at once, and so do
"badutf8error" and "badlocation" (an error body and a Location that are
not UTF-8); "echoforms" and
"keyanswer" put the key's parts and encodings in an error and an answer.
Every request
is logged as one JSON line (path, scenario, attempt, stream, whether the
key matched EXPECTED_KEY, requests in flight, the messages' roles): never
the key itself.
"""
import argparse, base64, json, os, socket, struct, sys, threading, time, urllib.parse, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = "Here is a kernel.\n\n```cuda\n// @ptxbench grid 1\n__global__ void k() {}\n```\n"
HOSTILE = ("endless", "drip", "keepalive", "bomb", "error200", "redirect", "badutf8", "liar")
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

    def start_body(self, stream, headers=()):
        """Headers of a reply whose body comes in pieces until the client goes."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def put(self, data):
        self.wfile.write(data.encode() if isinstance(data, str) else data)
        self.wfile.flush()

    def event(self, anthropic, text):
        if anthropic:
            data = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
            return "event: content_block_delta\ndata: %s\n\n" % json.dumps(data)
        data = {"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
        return "data: %s\n\n" % json.dumps(data)

    def opening(self, anthropic, stream):
        """The start of an answer whose text never ends."""
        if stream:
            if anthropic:
                return ('event: message_start\ndata: {"type": "message_start", "message": {"id": "msg_1", "model": "m", '
                        '"usage": {"input_tokens": 100, "output_tokens": 1}}}\n\n')
            return ""
        if anthropic:
            return '{"id": "msg_1", "type": "message", "content": [{"type": "text", "text": "'
        return '{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assistant", "content": "'

    def hostile(self, scenario, anthropic, stream):
        if scenario == "endless":
            self.start_body(stream)
            self.put(self.opening(anthropic, stream))
            piece = self.event(anthropic, "A" * 64) * 64 if stream else "A" * 4096
            while True:
                self.put(piece)
        if scenario == "drip":
            self.start_body(stream)
            self.put(self.opening(anthropic, stream))
            while True:
                self.put(self.event(anthropic, "A") if stream else "A")
                time.sleep(0.3)
        if scenario == "keepalive":
            # Whitespace before a whole body, as some gateways send it.
            self.start_body(stream)
            if stream:
                self.put(self.opening(anthropic, stream))
            while True:
                if stream:
                    self.put('event: ping\ndata: {"type": "ping"}\n\n' if anthropic else ": keep-alive\n\n")
                else:
                    self.put(" ")
                time.sleep(0.2)
        if scenario == "bomb":
            # Deflate with full flushes: every 1 MiB of A's compresses to the
            # same kilobyte, so 1 GiB costs a thousand copies of it.
            z = zlib.compressobj(9, zlib.DEFLATED, 31)
            chunk = "A" * (1 << 20)
            head = self.opening(anthropic, stream)
            if stream and anthropic:
                head += ('event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
                         '"delta": {"type": "text_delta", "text": "')
            elif stream:
                head += 'data: {"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": "'
            first = z.compress((head + chunk).encode()) + z.flush(zlib.Z_FULL_FLUSH)
            same = z.compress(chunk.encode()) + z.flush(zlib.Z_FULL_FLUSH)
            self.start_body(stream, [("Content-Encoding", "gzip")])
            self.put(first)
            for _ in range(1023):
                self.put(same)
            return
        if scenario == "error200":
            return self.send(200, json.dumps({"error": {"type": "server_error", "message": "upstream model overloaded (said with 200)"}}))
        if scenario == "redirect":
            self.send_response(302)
            self.send_header("Location", "https://api.example.com/v2" + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if scenario == "badutf8":
            text = "Here is a kernel \udcff\udcfe.\n\n```cuda\n// @ptxbench grid 1\n__global__ void k() {}\n```\n"
            if stream:
                self.start_body(True)
                for event, data in self.events(anthropic, text):
                    raw = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
                    self.put(("event: %s\n" % event if event else "").encode() + b"data: " +
                             raw.encode("utf-8", "surrogateescape") + b"\n\n")
                return
            body = self.whole_body(anthropic, text)
            return self.send(200, json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogateescape"))
        if scenario == "liar":
            text = ANSWER + "// " + "x" * 5000 + "\n"
            if stream:
                self.start_body(True)
                for event, data in self.events(anthropic, text):
                    if isinstance(data, dict) and "usage" in data:
                        data["usage"] = {"prompt_tokens": 1, "completion_tokens": 1}
                    if isinstance(data, dict) and "message" in data:
                        data["message"]["usage"] = {"input_tokens": 1, "output_tokens": 1}
                    if isinstance(data, dict) and data.get("type") == "message_delta":
                        data["usage"] = {"output_tokens": 1}
                    self.put(("event: %s\n" % event if event else "") + "data: " +
                             (data if isinstance(data, str) else json.dumps(data)) + "\n\n")
                return
            body = self.whole_body(anthropic, text)
            body["usage"] = {"input_tokens": 1, "output_tokens": 1} if anthropic else {"prompt_tokens": 1, "completion_tokens": 1}
            return self.send(200, json.dumps(body))
        return None

    def whole_body(self, anthropic, text):
        if anthropic:
            return {"id": "msg_1", "model": "m", "type": "message", "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 100, "cache_read_input_tokens": 20, "output_tokens": 30}}
        return {"id": "chatcmpl-1", "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": usage_openai()}

    def whole(self, anthropic, text):
        self.send(200, json.dumps(self.whole_body(anthropic, text)))

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
                   "auth": got == key, "in_flight": state["in_flight"], "messages": len(request.get("messages", [])),
                   "roles": [m.get("role") for m in request.get("messages", [])], "seed": request.get("seed"),
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
        if scenario == "badutf8error":
            # An error body that is not UTF-8 and whose 500th byte is inside
            # a character (the message keeps the first 500 bytes).
            return self.send(400, b"\xfa" + ("\u00e9" * 300).encode())
        if scenario == "badlocation":
            # A redirect to an address that is not UTF-8 (http.server sends
            # header text as Latin-1, byte for byte).
            self.send_response(302)
            self.send_header("Location", "https://api.example.com/\xfa\xfb")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if scenario == "400":
            return error(400, "prompt is too long: 250000 tokens > 200000 maximum", "invalid_request_error")
        if scenario == "echo":
            return error(401, "invalid x-api-key: " + got, "authentication_error")
        if scenario == "echoforms":
            # The key's parts and encodings, as a careless server might log it.
            b64 = base64.b64encode(("Authorization: Bearer " + got).encode()).decode()
            return error(401, "bad key %s...; as sent: %s; lower: %s; encoded: %s; in a URL: %s"
                         % (got[:14], got.upper(), got.lower(), b64, urllib.parse.quote(got, safe="")),
                         "authentication_error")
        if scenario == "keyanswer":
            # A model that writes the key into its answer.
            text = ANSWER + "// leaked: " + got + " and " + base64.urlsafe_b64encode(got.encode()).decode() + "\n"
            return self.stream(anthropic, text) if stream else self.whole(anthropic, text)
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
        if scenario == "deep":
            # JSON nested 200,000 levels deep (400 KB), whole or as one event.
            body = '{"choices": ' + "[" * 200000 + "]" * 200000 + "}"
            if not stream:
                return self.send(200, body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(("event: message_start\ndata: " + body + "\n\n").encode())
            self.close_connection = True
            return
        if scenario == "longline" and stream:
            # One SSE line of 1.5 MiB, unended when the server closes.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"data: " + b"x" * (3 << 19))
            self.close_connection = True
            return
        if scenario == "deepptx":
            # A PTX answer whose operand nests parentheses 3,000 deep.
            ptx = (".version 8.7\n.target sm_90a\n.address_size 64\n"
                   ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, " +
                   "(" * 3000 + "1" + ")" * 3000 + ";\n  ret;\n}\n")
            text = "A kernel.\n\n```ptx\n// @ptxbench kernel k grid=1 block=1\n// @ptxbench args\n" + ptx + "```\n"
            return self.stream(anthropic, text) if stream else self.whole(anthropic, text)
        if scenario in HOSTILE:
            return self.hostile(scenario, anthropic, stream)
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
