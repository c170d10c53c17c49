"""kill -9 in the middle of a run, then resume: nothing lost, nothing
sent twice that was already written.

  kill_resume.py PTXBENCH MODELS TASKS OUT SERVER_LOG SAMPLES

Runs generate on a slow scripted model with many requests in flight,
kills it with SIGKILL once some answers are written, checks that every
written turn is whole (generation.json parses, response.md beside it, no
temporary files), reruns the same command and checks that every sample
is then answered and that the rerun asked only for the missing ones.
Also checks that the first run had many requests in flight at once.
"""
import glob, json, os, signal, subprocess, sys, time

tool, models, tasks, out, log_path, samples = sys.argv[1:7]
samples = int(samples)
command = [tool, "generate", "--models", models, "--model", "compat-stream-slow",
           "--tasks", tasks, "--task", "rmsnorm_h4096", "--context", "none",
           "--samples", str(samples), "--concurrency", "64", "--seed", "1000", "--out", out]
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed += ok
    failed += not ok


def answered():
    return glob.glob(os.path.join(out, "*", "*", "*", "*", "generation.json"))


def log():
    return [json.loads(l) for l in open(log_path)] if os.path.exists(log_path) else []


run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 60
while len(answered()) < samples // 4 and run.poll() is None and time.time() < deadline:
    time.sleep(0.01)
run.send_signal(signal.SIGKILL)
run.wait()
first = len(answered())
done_first = [1000 + int(os.path.basename(os.path.dirname(g))[1:]) for g in answered()]
# Requests the killed client sent may still sit in the server's accept
# queue: let it log them before counting.
time.sleep(1.5)
sent_first = len(log())
check(0 < first < samples, "killed with %d of %d answers written" % (first, samples))
check(max(e["in_flight"] for e in log()) >= 32, "the server saw %d requests in flight at once" % max(e["in_flight"] for e in log()))
for g in answered():
    d = os.path.dirname(g)
    whole = json.load(open(g))["status"] == "ok" and os.path.exists(os.path.join(d, "response.md"))
    check(whole, "%s is whole" % d)
leftovers = [p for p in glob.glob(os.path.join(out, "**", "*"), recursive=True) if "temp" in os.path.basename(p) or p.endswith(".tmp")]
check(len(leftovers) <= 64, "temporary files only from writes in flight (%d)" % len(leftovers))

result = subprocess.run(command, capture_output=True, text=True, timeout=120)
check(result.returncode == 0, "the rerun succeeded")
check(len(answered()) == samples, "every sample answered after the rerun (%d)" % len(answered()))
# Each request carries seed 1000 + the sample's index; retries may repeat one.
missing = {1000 + i for i in range(samples)} - set(done_first)
asked = {e["seed"] for e in log()[sent_first:]}
check(asked == missing, "the rerun asked for the %d missing answers only (asked for %d samples)" % (len(missing), len(asked)))
check(("(%d already on disk" % first) in result.stdout, "the rerun says what was on disk: " + result.stdout.strip())
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
