"""Checks what each turn's request carried under a context policy.

  check_policy.py MODEL_DIR POLICY TURNS

For every sample and turn t >= 2, rebuilds from the files on disk (turn 1's
request for the prompt, each turn's response.md and feedback.md) what the
policy says the request holds, and compares it with request.json's body:
full, the whole conversation; last-pair, the prompt then the latest answer
and feedback; single, the prompt's system message and one user message of
the task, the latest code block and its feedback. request.json must name the
policy.
"""
import glob, json, os, re, sys

from checklist import check, finish

root, policy, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])


def read(path):
    with open(path) as f:
        return f.read()


def code_of(answer):
    # The corpus answers with one fenced block.
    m = re.search(r"```(cuda|ptx)\n(.*?)```", answer, re.S)
    return m.group(1), m.group(2)


samples = sorted(glob.glob(os.path.join(root, "*", "*", "s*")))
check(len(samples) > 0, "samples found: %d" % len(samples))
for s in samples:
    first = json.load(open(os.path.join(s, "turn1", "request.json")))
    prompt = first["body"]["messages"]
    history = list(prompt)
    for t in range(1, turns + 1):
        d = os.path.join(s, "turn%d" % t)
        request = json.load(open(os.path.join(d, "request.json")))
        check(request.get("context_policy") == policy, "%s: request.json names %s" % (d, policy))
        sent = request["body"]["messages"]
        if t == 1 or policy == "full":
            want = history
        elif policy == "last-pair":
            want = prompt + history[-2:]
        else:
            lang, code = code_of(history[-2]["content"])
            task = "\n\n".join(m["content"] for m in prompt if m["role"] != "system")
            text = (task + "\n\n## Your latest submission\n\n```" + lang + "\n" + code + "```\n"
                    + "\n## Its evaluation\n\n" + history[-1]["content"])
            want = [m for m in prompt if m["role"] == "system"] + [{"role": "user", "content": text}]
        check(sent == want, "%s: %d messages as the policy says" % (d, len(sent)))
        history.append({"role": "assistant", "content": read(os.path.join(d, "response.md"))})
        if t < turns:
            history.append({"role": "user", "content": read(os.path.join(d, "feedback.md"))})
finish()
