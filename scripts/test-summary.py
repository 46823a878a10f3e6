#!/usr/bin/env python3
"""Print the suite's closing line from Meson test logs and fuzz results.

Counts every TAP test case (cmocka prints TAP), one result per non-TAP test,
and one per fuzz run. A TAP program that died before reporting all its cases
counts as one extra failure. Exits 1 when anything failed.

usage: test-summary.py BUILDDIR... [--fuzz RESULTS_FILE]
"""
import json
import os
import re
import sys

passed = failed = skipped = 0
failures = []

args = sys.argv[1:]
fuzz = None
if "--fuzz" in args:
    i = args.index("--fuzz")
    fuzz = args[i + 1]
    del args[i:i + 2]

for bdir in args:
    log = os.path.join(bdir, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        failed += 1
        failures.append(f"{bdir}: no test log")
        continue
    with open(log) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            t = json.loads(line)
            name = t.get("name", "?")
            result = t.get("result", "FAIL")
            out = t.get("stdout") or ""
            ok = nok = sk = 0
            plan = None
            for l in out.splitlines():
                m = re.match(r"^(not ok|ok)\b", l)
                if m:
                    if "# SKIP" in l or "# skip" in l:
                        sk += 1
                    elif m.group(1) == "ok":
                        ok += 1
                    else:
                        nok += 1
                        failures.append(f"{bdir}: {name}: {l}")
                pm = re.match(r"^1\.\.(\d+)", l)
                if pm:
                    plan = int(pm.group(1))
            if ok + nok + sk == 0:
                if result in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif result == "SKIP":
                    skipped += 1
                else:
                    failed += 1
                    failures.append(f"{bdir}: {name}: {result}")
                continue
            passed += ok
            failed += nok
            skipped += sk
            if result not in ("OK", "SKIP", "EXPECTEDFAIL") and nok == 0:
                failed += 1
                failures.append(f"{bdir}: {name}: {result} (died)")
            elif plan is not None and ok + nok + sk < plan and nok == 0:
                failed += 1
                failures.append(f"{bdir}: {name}: ran {ok + nok + sk} of {plan}")

if fuzz and os.path.exists(fuzz):
    with open(fuzz) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "PASS":
                passed += 1
            else:
                failed += 1
                failures.append("fuzz: " + line.strip())

for f in failures:
    print("FAILED:", f)
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
