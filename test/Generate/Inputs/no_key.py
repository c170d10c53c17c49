"""Fails when the key (argv[1]) appears in any file under the given paths.

  no_key.py KEY PATH...

Not only the key: any 12 of its characters in a row (its prefix, say), in
any case, and the middle of its base64 (both alphabets, at each of the three
alignments it can have inside a longer encoded text) and of its
percent-encoding.
"""
import base64, os, sys, urllib.parse

key = sys.argv[1]
forms = set()
for i in range(0, len(key) - 11):
    forms.add(key[i:i + 12].lower().encode())
for pad in ("", "a", "ab"):
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        text = encode((pad + key).encode())
        forms.add(text[4:16].lower())
quoted = urllib.parse.quote(key, safe="")
if quoted != key:
    forms.add(quoted[:12].lower().encode())
found = []
files = 0
for root in sys.argv[2:]:
    paths = [root] if os.path.isfile(root) else [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    for p in paths:
        files += 1
        with open(p, "rb") as f:
            data = f.read().lower()
        hits = [form for form in forms if form in data]
        if hits:
            found.append((p, hits[0]))
for p, form in found:
    print("key found in", p, "as", form)
print("searched %d files: %s" % (files, "key found" if found else "no key"))
sys.exit(1 if found or files == 0 else 0)
