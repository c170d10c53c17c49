"""Checks a two-turn run against a real OpenAI-compatible server.

  check_real.py OUT STORE

Each turn answered at once with the server's request id and usage (input
tokens of the whole conversation, output tokens counted; the stream's usage
estimated, since this server sends none in streams), the answer a real
model's text (words, not bytes), recorded in the store as extract_error (48
tokens do not close a code block), and turn 2 sent after feedback saying
there was no usable code.
"""
import json, os, re, sqlite3, sys

out, store = sys.argv[1:3]
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed += ok
    failed += not ok


for model in ("compat-stream-smollm2", "compat-whole-smollm2"):
    base = os.path.join(out, model, "none", "rmsnorm_h4096", "s0")
    inputs = []
    for t in (1, 2):
        d = os.path.join(base, "turn%d" % t)
        g = json.load(open(os.path.join(d, "generation.json")))
        u = g["usage"]
        inputs.append(u["input"])
        check(g["status"] == "ok" and g["request_id"].startswith("chatcmpl"),
              "%s turn %d: answered, request id %s" % (model, t, g["request_id"]))
        check(g["finish_reason"] in ("length", "stop") and g["attempts"] == 1,
              "%s turn %d: finish %s, %d attempts" % (model, t, g["finish_reason"], g["attempts"]))
        if model == "compat-whole-smollm2":
            check(u["output"] > 0 and not g["usage_estimated"],
                  "%s turn %d: the server's usage, %d output tokens" % (model, t, u["output"]))
        else:
            # llama-cpp-python streams without a usage chunk: estimated.
            check(g["usage_estimated"] and u["output"] > 0, "%s turn %d: usage estimated" % (model, t))
        request = json.load(open(os.path.join(d, "request.json")))
        check(request["stream"] == model.startswith("compat-stream") and request["body"]["max_tokens"] == 48,
              "%s turn %d: request.json says how it was sent" % (model, t))
    answer = open(os.path.join(base, "turn1", "response.md"), encoding="utf-8", errors="replace").read()
    words = re.findall(r"[A-Za-z]{2,}", answer)
    check(len(words) >= 8 and sum(c.isprintable() or c in "\n\t" for c in answer) == len(answer),
          "%s: the answer is SmolLM2's text (%d words: %s)" % (model, len(words), " ".join(words[:6])))
    check(inputs[0] > 1000 and inputs[1] > inputs[0],
          "%s: input tokens count the whole conversation (%s)" % (model, inputs))
    feedback = open(os.path.join(base, "turn1", "feedback.md")).read()
    check(feedback.startswith("Your answer for `rmsnorm_h4096` has no usable submission"),
          "%s: the feedback says there was no code" % model)
db = sqlite3.connect(store)
rows = db.execute("select model, turn, status from samples order by model, turn").fetchall()
check(len(rows) == 4 and all(r[2] == "extract_error" for r in rows), "the store: %s" % rows)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
