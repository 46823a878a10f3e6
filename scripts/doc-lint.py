#!/usr/bin/env python3
"""Check that every function exported in the public headers has kernel-doc.

For each prototype marked NVL_API in include/nouvelle/*.h the comment right
above it must be a /** ... */ block that starts with `name() - summary`,
documents every named parameter with `@param:`, and (unless it returns void)
has a `Return:` section. Prints TAP, one case per function.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "include/nouvelle"
cases = []
proto_re = re.compile(r"NVL_API\s+([^;{]*?)\b(nvl_\w+)\s*\(([^)]*)\)\s*[^;]*;", re.S)

for name in sorted(os.listdir(root)):
    if not name.endswith(".h"):
        continue
    path = os.path.join(root, name)
    text = open(path).read()
    for m in proto_re.finditer(text):
        ret, fn, params = m.group(1).strip(), m.group(2), m.group(3)
        before = text[: m.start()].rstrip()
        problems = []
        if not before.endswith("*/"):
            problems.append("no comment")
            doc = ""
        else:
            start = before.rfind("/**")
            doc = before[start:] if start >= 0 else ""
            if start < 0 or "*/" in doc[:-2]:
                problems.append("no /** kernel-doc block")
        if doc:
            if not re.search(r"\b" + re.escape(fn) + r"\(\)\s+-\s+\S", doc):
                problems.append("first line is not 'name() - summary'")
            for p in params.split(","):
                p = p.strip()
                if p in ("", "void", "..."):
                    continue
                pname = re.sub(r"\[.*\]", "", p).split()[-1].lstrip("*")
                if "@" + pname + ":" not in doc:
                    problems.append("@%s: undocumented" % pname)
            if not re.match(r"^(static\s+)?(inline\s+)?void$", ret) and \
                    not re.search(r"Return[s]?:", doc):
                problems.append("no Return: section")
        cases.append((f"{name}: {fn}", problems))

print(f"1..{len(cases)}")
bad = 0
for i, (n, probs) in enumerate(cases, 1):
    if probs:
        bad += 1
        print(f"not ok {i} - {n}: {'; '.join(probs)}")
    else:
        print(f"ok {i} - {n}")
sys.exit(1 if bad else 0)
