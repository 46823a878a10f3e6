#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`nvl asm` / `nvl dis` from the command line (TAP): a program assembles,
its binary disassembles, the listing assembles to the same bytes on every
architecture, and bad input fails with file:line:column and exit code 1."""
import os
import subprocess
import sys
import tempfile

nvl = sys.argv[1]
src = """// sample
top:
  S2R R0, SR_TID.X
  [B0-----:R-:W1:Y:S04] @!P0 IADD3 R1, P0, R2.reuse, -0x1, RZ ;
  LDG.E.STRONG.GPU R4, [R2+0x10]
  FFMA R5, R4, 1.5, -R7
  @P0 BRA top
  EXIT
"""
n = 0
fails = 0


def check(ok, what):
    global n, fails
    n += 1
    print(("ok" if ok else "not ok"), n, "-", what)
    if not ok:
        fails += 1


with tempfile.TemporaryDirectory() as d:
    s = os.path.join(d, "k.s")
    b = os.path.join(d, "k.bin")
    with open(s, "w") as f:
        f.write(src)
    for arch in ["sm75", "sm80", "sm86", "sm89", "sm90"]:
        r = subprocess.run([nvl, "asm", "--arch", arch, "-o", b, s])
        check(r.returncode == 0 and os.path.getsize(b) == 6 * 16,
              arch + " assemble to a binary")
        r = subprocess.run([nvl, "dis", "--arch", arch, b],
                           capture_output=True, text=True)
        check(r.returncode == 0 and "@P0 BRA 0x0 ;" in r.stdout,
              arch + " disassemble")
        r2 = subprocess.run([nvl, "asm", "--arch", arch, "-o", b + "2", "-"],
                            input=r.stdout, text=True)
        same = open(b, "rb").read() == open(b + "2", "rb").read()
        check(r2.returncode == 0 and same, arch + " listing round trip")
    bad = os.path.join(d, "bad.s")
    with open(bad, "w") as f:
        f.write("NOP\n  IADD3 R1, R2\n")
    r = subprocess.run([nvl, "asm", bad], capture_output=True, text=True)
    # the tools' one message form (docs/tools.md): the position after it
    check(r.returncode == 1 and
          r.stderr.startswith("nvl asm: error: " + bad + ":2:15: "),
          "error names file:line:column")
    r = subprocess.run([nvl, "asm", "--arch", "sm42", s],
                       capture_output=True, text=True)
    check(r.returncode == 2, "unknown architecture is a usage error")
print("1..%d" % n)
sys.exit(1 if fails else 0)
