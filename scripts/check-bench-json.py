#!/usr/bin/env python3
"""Run `nvl bench --json --quick NAMES...` and check the output contract.

Every stdout line must be one JSON object with bench, name, value (a number)
and unit; lines naming a baseline carry baseline_value and ratio = value /
baseline_value. Expected result names given with --expect must appear.
Prints TAP.
"""
import json
import math
import subprocess
import sys

args = sys.argv[1:]
nvl = args.pop(0)
expect = []
if "--expect" in args:
    i = args.index("--expect")
    expect = args[i + 1].split(",")
    del args[i:i + 2]

out = subprocess.run([nvl, "bench", "--json", "--quick"] + args,
                     capture_output=True, text=True)
cases = []
cases.append(("exit status 0", out.returncode == 0))
seen = set()
lines = [l for l in out.stdout.splitlines() if l.strip()]
for l in lines:
    try:
        o = json.loads(l)
    except ValueError:
        cases.append((f"json: {l[:60]}", False))
        continue
    ok = all(k in o for k in ("bench", "name", "value", "unit")) and \
        isinstance(o["value"], (int, float)) and math.isfinite(o["value"])
    if "baseline" in o:
        ok = ok and o.get("baseline_value", 0) > 0 and \
            abs(o["ratio"] - o["value"] / o["baseline_value"]) <= 1e-3 * abs(o["ratio"]) + 1e-9
    seen.add(o.get("name"))
    cases.append((f"{o.get('bench')}/{o.get('name')} well-formed", ok))
for e in expect:
    cases.append((f"{e} reported", e in seen))
print(f"1..{len(cases)}")
for i, (n, ok) in enumerate(cases, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {n}")
sys.exit(0 if all(ok for _, ok in cases) else 1)
