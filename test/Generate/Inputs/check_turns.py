"""Checks the files of a multi-turn generate run of one model.

  check_turns.py MODEL_DIR TURNS

Every sample has turn1..turnT with response.md, request.json (no key
field, the conversation so far), generation.json and outcome.json; every
turn but a sample's last has feedback.md, and the next turn's request ends
with exactly that message after the previous answer.
"""
import glob, json, os, sys

root, turns = sys.argv[1], int(sys.argv[2])
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed += ok
    failed += not ok


samples = sorted(glob.glob(os.path.join(root, "*", "*", "s*")))
check(len(samples) > 0, "samples found: %d" % len(samples))
for s in samples:
    for t in range(1, turns + 1):
        d = os.path.join(s, "turn%d" % t)
        names = set(os.listdir(d))
        need = {"response.md", "request.json", "generation.json", "outcome.json"}
        check(need <= names, "%s has %s" % (d, sorted(need - names) or "every file"))
        check(not any(".tmp" in n or "temp" in n for n in names), "%s: no temporary files" % d)
        request = json.load(open(os.path.join(d, "request.json")))
        messages = request["body"]["messages"]
        check(len(messages) == 2 * t and messages[0]["role"] == "system",
              "%s: the request holds the conversation so far (%d messages)" % (d, len(messages)))
        check(not any("key" in k.lower() for k in request) and len(request["prompt_sha256"]) == 64,
              "%s: request.json has the prompt sha256 and no key" % d)
        generation = json.load(open(os.path.join(d, "generation.json")))
        check(generation["status"] == "ok" and generation["turn"] == t, "%s: generation.json" % d)
        outcome = json.load(open(os.path.join(d, "outcome.json")))
        if t < turns and not outcome["solved"]:
            feedback = open(os.path.join(d, "feedback.md")).read()
            check(feedback.startswith("Your submission for `") or feedback.startswith("Your answer for `"),
                  "%s: feedback.md is the rendered feedback" % d)
            nxt = json.load(open(os.path.join(s, "turn%d" % (t + 1), "request.json")))["body"]["messages"]
            answer = open(os.path.join(d, "response.md")).read()
            check(nxt[-1] == {"role": "user", "content": feedback} and nxt[-2] == {"role": "assistant", "content": answer},
                  "%s: the next turn sends the answer and the feedback" % d)
        else:
            check("feedback.md" not in names, "%s: no feedback after the last turn" % d)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
