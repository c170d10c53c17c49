"""Checks a generate run against the scripted server's hostile scenarios.

  check_bounds.py OUT SERVER_LOG RSS_FILE MAX_RSS_MB

Each scenario's generation.json (the error and whether it is final, the
charge for what a cut reply delivered, the notes and usage checks), how
often the server was asked, and the peak memory of the whole run. Prints one
line per check and `N passed, N failed`.
"""
import glob, json, os, sys

out, log_path, rss_path, max_mb = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
log = [json.loads(l) for l in open(log_path)]
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed += bool(ok)
    failed += not ok


def turn_file(model, name):
    files = glob.glob(os.path.join(out, model, "*", "*", "s0", name))
    return files[0] if files else None


def generation(model):
    f = turn_file(model, "generation.json")
    return json.load(open(f)) if f else {}


variants = sorted({e["model"].split("/")[1] for e in log})
check(len(variants) == 4, "four wire variants asked: %s" % variants)
for variant in variants:
    stream = variant.endswith("stream")
    asked = lambda s: sum(1 for e in log if e["model"] == "%s/%s" % (s, variant))
    g = lambda s: generation("%s-%s" % (variant, s))

    def final(scenario, words, charged):
        r = g(scenario)
        error = r.get("error", "")
        check(r.get("status") == "error" and r.get("retryable") is False and asked(scenario) == 1
              and all(w in error for w in words),
              "%s %s: final error after one request: %s" % (variant, scenario, error))
        cost = r.get("failed_attempts", {}).get("cost_usd", 0)
        check((cost > 0) == charged, "%s %s: charged for what it delivered: %s" % (variant, scenario, cost))

    # Charged: the answer text that came, and the input when the stream
    # reported it (Anthropic's message_start); a stream's unfinished event
    # (the bomb's) and whitespace are not answer.
    anthropic = variant.startswith("anthropic")
    final("endless", ["reply too large", "max_reply_bytes"], True)
    final("bomb", ["reply too large", "compressed"], anthropic or not stream)
    final("drip", ["total deadline", "total_s"], True)
    if stream:
        final("keepalive", ["stalled: no content", "stall_s", "keep-alive"], anthropic)
    else:
        # Whitespace is bytes of a whole body: only the deadline ends it.
        final("keepalive", ["total deadline", "total_s"], False)
    r = g("error200")
    check(r.get("status") == "error" and r.get("retryable") is True
          and "upstream model overloaded (said with 200)" in r.get("error", ""),
          "%s error200: the server's message kept: %s" % (variant, r.get("error")))
    r = g("redirect")
    check(r.get("status") == "error" and r.get("retryable") is False
          and "https://api.example.com/v2/" in r.get("error", "") and "base_url" in r.get("error", ""),
          "%s redirect: names the Location and base_url: %s" % (variant, r.get("error")))
    r = g("badutf8")
    response = open(turn_file("%s-badutf8" % variant, "response.md"), encoding="utf-8").read() \
        if turn_file("%s-badutf8" % variant, "response.md") else ""
    check(r.get("status") == "ok" and asked("badutf8") == 1 and "\ufffd" in response
          and any("invalid UTF-8" in n for n in r.get("notes", [])),
          "%s badutf8: replaced and noted, bought once (%s)" % (variant, r.get("notes")))
    r = g("liar")
    check(r.get("status") == "ok" and "cannot hold" in r.get("usage_check", "")
          and r.get("usage", {}).get("output", 0) > 1000 and r.get("usage", {}).get("input", 0) > 100,
          "%s liar: usage that cannot be the answer is flagged and raised: %s %s"
          % (variant, r.get("usage_check"), r.get("usage")))
    r = g("cut")
    check(r.get("status") == "ok" and r.get("attempts") == 2
          and r.get("failed_attempts", {}).get("cost_usd", 0) > 0,
          "%s cut: the cut attempt was charged: %s" % (variant, r.get("failed_attempts")))

rss_mb = int(open(rss_path).read()) / 1024
check(rss_mb < max_mb, "peak memory %.0f MB, under %.0f MB" % (rss_mb, max_mb))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
