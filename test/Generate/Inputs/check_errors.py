"""Checks a generate run against the scripted server's scenarios.

  check_errors.py OUT SERVER_LOG first|resume

first: every scenario's outcome in generation.json (attempts, status,
usage, cost), the server's view (attempts, keys, Retry-After honoured).
resume: a rerun sent only what was missing (the retryable failures).
Prints one line per check and `N passed, N failed`.
"""
import glob, json, os, sys

out, log_path, phase = sys.argv[1:4]
log = [json.loads(l) for l in open(log_path)]
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed += ok
    failed += not ok


def generation(model):
    files = glob.glob(os.path.join(out, model, "*", "*", "s0", "generation.json"))
    return json.load(open(files[0])) if files else None


variants = sorted({e["model"].split("/")[1] for e in log})
if phase == "resume":
    models = {e["model"] for e in log}
    check(all(m.startswith("malformed/") for m in models),
          "a rerun resends only the retryable failures: %s" % sorted(models))
    check(len(log) == 3 * len(variants), "each malformed model tried again 3 times (%d)" % len(log))
    sys.exit(1 if failed else print("%d passed, %d failed" % (passed, failed)))

check(all(e["auth"] for e in log), "every request carried the key from the environment")
for variant in variants:
    anthropic = variant.startswith("anthropic")
    attempts = lambda s: sum(1 for e in log if e["model"] == "%s/%s" % (s, variant))
    g = lambda s: generation("%s-%s" % (variant, s)) or {}
    ok = g("ok")
    usage = ok.get("usage", {})
    check(ok.get("status") == "ok" and ok.get("attempts") == 1, "%s ok: answered at once" % variant)
    check(usage.get("input") == 120 and usage.get("output") == 30 and usage.get("cached") == 20,
          "%s ok: usage %s" % (variant, usage))
    check(usage.get("reasoning") == (0 if anthropic else 5), "%s ok: reasoning tokens" % variant)
    # prices 2, 8, 0.5 per million: 100 uncached, 20 cached, 30 out
    check(abs(ok.get("cost_usd", 0) - (100 * 2 + 20 * 0.5 + 30 * 8) / 1e6) < 1e-12, "%s ok: cost" % variant)
    check(ok.get("request_id") in ("msg_1", "chatcmpl-1") and ok.get("finish_reason") in ("stop", "end_turn"),
          "%s ok: request id and finish reason" % variant)
    response = open(glob.glob(os.path.join(out, "%s-ok" % variant, "*", "*", "s0", "response.md"))[0]).read()
    check("```cuda" in response and response.endswith("```\n"), "%s ok: response.md is the whole answer" % variant)
    request = json.load(open(glob.glob(os.path.join(out, "%s-ok" % variant, "*", "*", "s0", "request.json"))[0]))
    body = request["body"]
    check(len(request["prompt_sha256"]) == 64 and body["messages"][-1]["role"] == "user" and body["temperature"] == 0.5,
          "%s ok: request.json has the messages, parameters and prompt sha256" % variant)
    check(("system" in body) == anthropic, "%s: the system prompt where the API wants it" % variant)
    for scenario, n in (("429a", 2), ("429", 3), ("500", 3), ("reset", 2), ("cut", 2)):
        r = g(scenario)
        check(r.get("status") == "ok" and r.get("attempts") == n and attempts(scenario) == n,
              "%s %s: succeeded after %d attempts (%s, server saw %d)" % (variant, scenario, n, r.get("attempts"), attempts(scenario)))
    times = [e["t"] for e in log if e["model"] == "429a/" + variant]
    check(len(times) == 2 and times[1] - times[0] >= 0.95, "%s 429a: waited for Retry-After" % variant)
    r = g("400")
    check(r.get("status") == "error" and r.get("retryable") is False and r.get("http_status") == 400
          and "prompt is too long" in r.get("error", "") and attempts("400") == 1,
          "%s 400: recorded as the sample's error, not retried" % variant)
    r = g("stall")
    check(r.get("status") == "error" and r.get("retryable") is False and "stalled" in r.get("error", "")
          and "stall_s" in r.get("error", "") and attempts("stall") == 1,
          "%s stall: recorded as the sample's error, not retried (%s)" % (variant, r.get("error")))
    r = g("malformed")
    check(r.get("status") == "error" and r.get("retryable") is True and "malformed" in r.get("error", "")
          and attempts("malformed") == 3, "%s malformed: retried, then recorded (%s)" % (variant, r.get("error")))
    r = g("echo")
    check(r.get("status") == "error" and "[redacted]" in r.get("error", ""),
          "%s echo: the key a server echoes is redacted (%s)" % (variant, r.get("error")))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
