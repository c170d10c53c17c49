#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, collected from the tree at run time.

    fuzz/collect-seeds.py OUT_DIR

Writes OUT_DIR/<target>/<name> for each target of fuzz/CMakeLists.txt from
what the tree already holds, so the seeds follow the tests and nothing is
copied into new files:
  - PTX: test/**/*.ptx (split at `// -----`, as --split-input-file does);
  - CUDA sources with launch plans: tasks/**/*.cu, test/**/*.cu;
  - task files and other JSON: tasks/*/task.json, manifests, test/**/*.json;
  - the files inside lit tests (split-file's `#--- name` and `//--- name`),
    by their extension (.ptx, .cu, .json, .md);
  - the recorded exchanges of unittests/Client (WireTest.cpp, SseTest.cpp,
    their C++ string literals decoded) and the scripted test server's
    answers (test/Generate/Inputs/scripted_server.py);
  - model answers: the lit tests' .md files and every .cu source fenced as
    an answer.
Plus a few hostile inputs per target written here: nesting past the limits,
numbers past every integer type, truncated UTF-8, limits reached exactly.
"""
import hashlib
import importlib.util
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["ptx-import-fuzzer", "task-fuzzer", "task-import-fuzzer", "launch-plan-fuzzer",
           "openai-wire-fuzzer", "anthropic-wire-fuzzer", "sse-fuzzer",
           "extract-fuzzer", "json-fuzzer", "analysis-report-fuzzer", "run-result-fuzzer"]


class Seeds:
    def __init__(self, out):
        self.out = out
        self.count = {t: 0 for t in TARGETS}
        for t in TARGETS:
            os.makedirs(os.path.join(out, t), exist_ok=True)

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        if not data:
            return
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(self.out, target, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            self.count[target] += 1


def tree_files(*suffixes, under=("test", "tasks")):
    for top in under:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(suffixes):
                    yield os.path.join(dirpath, name)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def split_file_parts(text):
    """(name, bytes) of each `#--- name` / `//--- name` part of a lit test."""
    parts, name, lines = [], None, []
    for line in text.split(b"\n"):
        m = re.match(rb"^(?:#|//)--- (\S+)\s*$", line)
        if m:
            if name:
                parts.append((name, b"\n".join(lines) + b"\n"))
            name, lines = m.group(1).decode(errors="replace"), []
        elif name:
            lines.append(line)
    if name:
        parts.append((name, b"\n".join(lines) + b"\n"))
    return parts


def cxx_literals(path):
    """{name: bytes} of `const char *name = "..." "..." R"(...)";` at the
    top level of a C++ file: the recorded exchanges of the unit tests."""
    text = read(path).decode()
    found = {}
    for m in re.finditer(r"^const char \*(\w+) =(.*?);\n", text, re.S | re.M):
        body, out, i = m.group(2), bytearray(), 0
        while i < len(body):
            if body.startswith('R"(', i):
                end = body.index(')"', i + 3)
                out += body[i + 3:end].encode()
                i = end + 2
            elif body[i] == '"':
                i += 1
                while body[i] != '"':
                    if body[i] == "\\":
                        c = body[i + 1]
                        if c == "x":
                            hexdigits = re.match(r"[0-9a-fA-F]+", body[i + 2:]).group(0)
                            out.append(int(hexdigits, 16) & 0xFF)
                            i += 2 + len(hexdigits)
                            continue
                        out += {"n": b"\n", "r": b"\r", "t": b"\t", "0": b"\0"}.get(c, c.encode())
                        i += 2
                    else:
                        out += body[i].encode()
                        i += 1
                i += 1
            else:
                i += 1
        found[m.group(1)] = bytes(out)
    return found


def scripted_server_replies():
    """The test server's whole answers and streams, both formats."""
    path = os.path.join(ROOT, "test", "Generate", "Inputs", "scripted_server.py")
    spec = importlib.util.spec_from_file_location("scripted_server", path)
    server = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server)
    handler = server.Handler
    for anthropic in (False, True):
        target = "anthropic-wire-fuzzer" if anthropic else "openai-wire-fuzzer"
        for text in (server.ANSWER, "Here is a kernel \udcff\udcfe.\n"):
            body = handler.whole_body(None, anthropic, text)
            yield target, json.dumps(body, ensure_ascii=False)
            stream = ""
            for event, data in handler.events(None, anthropic, text):
                stream += (("event: %s\n" % event) if event else "") + "data: " + \
                    (data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)) + "\n\n"
            yield target, stream
            yield "sse-fuzzer", stream
        yield target, json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}})


def hostile(seeds):
    """Inputs written to reach each parser's limits and its number and
    text handling."""
    deep = lambda n, o, c, inner="1": o * n + inner + c * n
    bad_utf8 = [b"\xe2\x82", b"\xf0\x9f\x98", b"\xc3", b"\xed\xa0\x80", b"\xff\xfe"]
    header = ".version 8.5\n.target sm_90a\n.address_size 64\n"
    # PTX: constant expressions and operands at and past 256 levels, scopes,
    # register counts and integers past 64 bits, cut UTF-8 in comments.
    for n in (255, 256, 257, 1000):
        seeds.add("ptx-import-fuzzer", header + ".global .u32 g = " + deep(n, "(", ")") + ";\n")
        seeds.add("ptx-import-fuzzer", header + ".visible .entry k()\n" + deep(n, "{\n", "}\n", "ret;\n"))
    seeds.add("ptx-import-fuzzer", header + ".visible .entry k()\n{\n .reg .b32 %r<99999999999999999999>;\n"
              " mov.u32 %r1, 0xFFFFFFFFFFFFFFFFFFFFFFFF;\n add.s32 %r1, %r1, -9223372036854775809;\n ret;\n}\n")
    seeds.add("ptx-import-fuzzer", header + ".global .f64 g[4] = {1e999, -1e-999, 0d7FF8000000000000, 0dFFFFFFFFFFFFFFFFFF};\n")
    seeds.add("ptx-import-fuzzer", header + ".file 4294967296 \"a.cu\"\n.file 1 \"b.cu\"\n.visible .entry k()\n{\n .loc 4294967295 99999999999 1\n ret;\n}\n")
    for b in bad_utf8:
        seeds.add("ptx-import-fuzzer", header.encode() + b"// " + b + b"\n.visible .entry k" + b + b"()\n{\n ret;\n}\n")
    # Tasks and JSON: nesting around the limit of 100, numbers past every
    # integer and double, a BOM, duplicate keys, cut UTF-8 and lone
    # surrogates.
    for n in (99, 100, 101, 5000):
        seeds.add("json-fuzzer", deep(n, "[", "]"))
        seeds.add("task-fuzzer", '{"name": "t", "params": ["M"], "workloads": {"dev": ' + deep(n, "[", "]", "{}") + "}}")
        seeds.add("openai-wire-fuzzer", '{"choices": ' + deep(n, "[", "]") + "}")
        seeds.add("anthropic-wire-fuzzer", '{"content": ' + deep(n, "[", "]") + "}")
    numbers = ["99999999999999999999", "-9223372036854775809", "9223372036854775808",
               "1e999", "-1e-999", "1e308", "0.1e-400", "-0"]
    task = {"name": "t", "params": ["M", "N"], "tensors": [
        {"name": "a", "dtype": "f32", "shape": ["M", "N*M"], "role": "input"},
        {"name": "c", "dtype": "f32", "shape": ["ceildiv(M, N)"], "role": "output"}],
        "workloads": {"dev": [{"name": "d", "M": 1, "N": 1}], "heldout": []},
        "check": {"atol": 0, "rtol": 0}, "flops": "2*M*N", "bytes": "4*M",
        "reference": "gemm", "baseline": "none"}
    seeds.add("task-fuzzer", json.dumps(task, indent=1))
    seeds.add("json-fuzzer", json.dumps(task))
    for number in numbers:
        text = json.dumps(task).replace('"M": 1', '"M": ' + number)
        seeds.add("task-fuzzer", text)
        seeds.add("json-fuzzer", text)
        seeds.add("openai-wire-fuzzer", '{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": %s, "completion_tokens": %s}}' % (number, number))
        seeds.add("anthropic-wire-fuzzer", '{"content": [{"type": "text", "text": "x"}], "usage": {"input_tokens": %s, "output_tokens": %s, "cache_read_input_tokens": %s}}' % (number, number, number))
    seeds.add("task-fuzzer", b"\xef\xbb\xbf" + json.dumps(task).encode())
    # Run results: every number past a double, negative and as text, in a
    # timing, a work count and the peaks; a status word that is none.
    timing = {"samples": 3, "median_ms": 1.0, "q1_ms": 1.0, "q3_ms": 1.0, "min_ms": 1.0,
              "mean_ms": 1.0, "rse": 0.0}
    result = {"task": "t", "device": "d", "peak_tflops": 1000.0, "peak_gbps": 4000.0,
              "workloads": [{"workload": "dev", "status": "PASSED", "flops": 2e12, "bytes": 1e9,
                             "time": timing, "baseline_time": timing,
                             "check": {"passed": True, "max_abs_err": 0.0, "worst_value": "unwritten"},
                             "features": [{"family": "wgmma", "in_code": 1, "executed": 8,
                                           "share": 1.0, "threshold": 0.9}]}]}
    seeds.add("run-result-fuzzer", json.dumps(result))
    for number in numbers + ['"nan"', '"inf"', "-1", "1e-320"]:
        for field in ('"median_ms": 1.0', '"flops": 2e12', '"peak_tflops": 1000.0',
                      '"max_abs_err": 0.0', '"share": 1.0'):
            name = field.split(":")[0]
            seeds.add("run-result-fuzzer", json.dumps(result).replace(field, name + ": " + number, 1))
    seeds.add("run-result-fuzzer", json.dumps(result).replace('"PASSED"', '"FAST"'))
    seeds.add("json-fuzzer", '{"a": 1, "b": {"a": 2, "a": 3}, "a": 4}')
    seeds.add("json-fuzzer", '["\\ud800", "\\udc00\\ud800", "\\u0000"]')
    for b in bad_utf8:
        seeds.add("json-fuzzer", b'{"k": "' + b + b'"}')
        seeds.add("task-fuzzer", json.dumps(task).replace('"t"', '"t\\u00e9"').encode().replace(b'\\u00e9', b))
        seeds.add("openai-wire-fuzzer", b'data: {"choices": [{"index": 0, "delta": {"content": "a' + b + b'"}}]}\n\n')
        seeds.add("anthropic-wire-fuzzer", b'event: content_block_delta\ndata: {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "' + b + b'"}}\n\n')
        seeds.add("sse-fuzzer", b"event: e" + b + b"\ndata: " + b + b"\n\n")
        seeds.add("extract-fuzzer", b"```cuda\n__global__ void k() {} // " + b + b"\n```\n")
        seeds.add("launch-plan-fuzzer", b"// @ptxbench kernel k" + b + b" grid=1 block=32\n// @ptxbench   args M" + b + b"\n")
    # Launch plans: expressions at and past 100 levels, chains, numbers past
    # 64 bits, division by zero, every declaration.
    for n in (99, 100, 101, 3000):
        seeds.add("launch-plan-fuzzer", "// @ptxbench kernel k grid=" + deep(n, "(", ")", "M") + " block=128\n")
        seeds.add("launch-plan-fuzzer", "// @ptxbench kernel k grid=1" + "+1" * n + " block=" + "-" * n + "1\n")
        seeds.add("launch-plan-fuzzer", "// @ptxbench kernel k grid=" + "ceildiv(" * n + "M" + ",2)" * n + "\n")
    seeds.add("launch-plan-fuzzer", "// @ptxbench kernel gemm grid=(ceildiv(N,128), ceildiv(M,128), 99999999999999999999) block=256 cluster=(2,1,1) smem=9223372036854775807*2\n"
              "// @ptxbench   args A, B, C, M:i32, N:u64, K/0, -9223372036854775808 % -1\n"
              "// @ptxbench tensormap tmA tensor=A box=(128,64) swizzle=128B interleave=16B l2=256B oob=nan\n"
              "// @ptxbench workspace flags bytes=4*ceildiv(M,128) zero\n"
              "// @ptxbench workspace sems bytes=min(max(M,N,K),1,2,3) zero=once\n")
    # SSE: lines and events around the small limits (40 and 100 bytes) and
    # the line ends CR, LF and CRLF, a CR at the very end.
    for n in (39, 40, 41):
        seeds.add("sse-fuzzer", "data: " + "x" * (n - 6) + "\n\n")
    seeds.add("sse-fuzzer", "".join("data: %s\n" % ("y" * 30) for _ in range(4)) + "\n")
    seeds.add("sse-fuzzer", "event: a\r\ndata: 1\r\rdata: 2\n\r\n:comment\ndata\n\n\r")
    # Answers: fences of both kinds and lengths, CRLF, an unclosed block,
    # the block limit of 1000 reached and passed.
    seeds.add("extract-fuzzer", "Text\r\n~~~~ptx {.x}\r\n.version 8.5\r\n.entry k() { ret; }\r\n~~~~~\r\n```\nuntagged __global__\n````\n")
    for n in (1000, 1001):
        seeds.add("extract-fuzzer", "```\nx\n```\n" * n)
    seeds.add("extract-fuzzer", "```cuda\n__global__ void k() {}\n")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: collect-seeds.py OUT_DIR")
    seeds = Seeds(sys.argv[1])
    for path in tree_files(".ptx"):
        for part in re.split(rb"(?m)^// -----\s*$", read(path)):
            seeds.add("ptx-import-fuzzer", part)
    for path in tree_files(".cu"):
        source = read(path)
        seeds.add("launch-plan-fuzzer", source)
        seeds.add("extract-fuzzer", b"Here is the kernel:\n\n```cuda\n" + source + b"```\n")
    for path in tree_files(".json"):
        data = read(path)
        seeds.add("json-fuzzer", data)
        if b'"kernels"' in data:
            seeds.add("analysis-report-fuzzer", data)
        if b'"workloads"' in data and b'"status"' in data:
            seeds.add("run-result-fuzzer", data)
        if os.path.basename(path) == "task.json":
            seeds.add("task-fuzzer", data)
    # A FlashInfer-Trace definition, a NUL, its workload rows (tasks import).
    for path in tree_files(".jsonl"):
        definition = path[:-len(".jsonl")] + ".json"
        if os.path.exists(definition):
            seeds.add("task-import-fuzzer", read(definition) + b"\0" + read(path))
    for path in tree_files(".test"):
        for name, data in split_file_parts(read(path)):
            for suffix, targets in ((".ptx", ["ptx-import-fuzzer"]),
                                    (".cu", ["launch-plan-fuzzer"]),
                                    (".json", ["json-fuzzer", "task-fuzzer",
                                               "analysis-report-fuzzer",
                                               "run-result-fuzzer"]),
                                    (".md", ["extract-fuzzer"])):
                if name.endswith(suffix):
                    for target in targets:
                        seeds.add(target, data)
    for file in ("WireTest.cpp", "SseTest.cpp"):
        for name, data in cxx_literals(os.path.join(ROOT, "unittests", "Client", file)).items():
            if name.startswith("anthropic"):
                seeds.add("anthropic-wire-fuzzer", data)
            elif name.startswith("openai"):
                seeds.add("openai-wire-fuzzer", data)
            if "Stream" in name or file == "SseTest.cpp":
                seeds.add("sse-fuzzer", data)
            else:
                seeds.add("json-fuzzer", data)
    for target, data in scripted_server_replies():
        seeds.add(target, data)
    hostile(seeds)
    print("seeds: " + ", ".join("%s %d" % (t, n) for t, n in seeds.count.items()))
    empty = [t for t, n in seeds.count.items() if not n]
    if empty:
        sys.exit("collect-seeds: no seeds for " + ", ".join(empty))


if __name__ == "__main__":
    main()
