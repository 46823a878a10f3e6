#!/usr/bin/env python3
"""Run `nvl demo` and check what it promises a person (TAP).

The demo must exit 0, end with its "demo complete" line, and every step's
title line must say what the step runs on (model, stand-in backend, ...), so
the README's claim that the demo names its backends stays true.
"""
import re
import subprocess
import sys

nvl = sys.argv[1]
out = subprocess.run([nvl, "demo"], capture_output=True, text=True,
                     timeout=600)
cases = [("exit status 0", out.returncode == 0)]
steps = [l for l in out.stdout.splitlines() if re.match(r"^\[\d+\] ", l)]
cases.append(("at least one step ran", len(steps) > 0))
for l in steps:
    m = re.match(r"^\[\d+\] (\S+)\s+-- runs on: (.+)$", l)
    cases.append((f"step line names its backend: {l[:50]}",
                   bool(m) and "unlabelled" not in m.group(2)))
cases.append(("ends with 'demo complete'",
              f"demo complete: {len(steps)} steps passed" in out.stdout))
print(f"1..{len(cases)}")
for i, (name, ok) in enumerate(cases, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
if out.returncode != 0:
    sys.stderr.write(out.stderr)
sys.exit(0 if all(ok for _, ok in cases) else 1)
