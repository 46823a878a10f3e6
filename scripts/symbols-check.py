#!/usr/bin/env python3
"""The exported ABI is a test (libdrm's symbols-check): the dynamic symbols
of libnouvelle.so must be exactly the list in src/nouvelle.sym. Prints TAP.

usage: symbols-check.py LIBRARY SYMBOLS_FILE
"""
import subprocess
import sys

lib, symfile = sys.argv[1], sys.argv[2]
out = subprocess.run(["nm", "-D", "--defined-only", lib],
                     capture_output=True, text=True, check=True).stdout
have = {l.split()[-1] for l in out.splitlines() if l.strip()}
have = {s for s in have if not s.startswith("NOUVELLE_")}
want = {l.strip() for l in open(symfile) if l.strip() and not l.startswith("#")}
cases = [(f"exports {s}", s in have) for s in sorted(want)]
cases += [(f"unexpected export {s} (add it to src/nouvelle.sym)", False)
          for s in sorted(have - want)]
print(f"1..{len(cases)}")
for i, (n, ok) in enumerate(cases, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {n}")
sys.exit(0 if all(ok for _, ok in cases) else 1)
