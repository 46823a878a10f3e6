#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""abigen on the driver's real set (firmware/abi/), TAP.

usage: check_gspabi.py DIFF GOLDEN LAST_VERSION_C INCDIR... -- CC...

- the diff report between 535.54.03, 535.113.01 and 570.144 equals
  golden/gsp_diff.txt: every planted drift, nothing else;
- the newest version's generated file compiles against its headers, and
  fails to compile with the abigen message when one offset is patched to
  the previous version's value (GSP_ARGUMENTS_CACHED.profilerArgs.pa
  56 -> 64, as a hand copy of 535's layout would have it) or when the
  heap constant is patched to the Bullseye value (88 -> 170).
"""
import os
import re
import subprocess
import sys
import tempfile

diff_path, golden_path, vfile = sys.argv[1:4]
sep = sys.argv.index('--')
incs = ['-I' + os.path.dirname(vfile)] + ['-I' + d for d in sys.argv[4:sep]]
cc = sys.argv[sep + 1:]
results = []


def check(name, ok, detail=''):
    results.append((name, ok, detail))


got = open(diff_path).read()
want = open(golden_path).read()
check('real diff report equals golden/gsp_diff.txt', got == want,
      '' if got == want else '\n'.join('# ' + l for l in got.splitlines()))

src = open(vfile).read()


def compile_text(text):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'patched.c')
        with open(path, 'w') as f:
            f.write(text)
        return subprocess.run(cc + ['-std=gnu17', '-fsyntax-only'] + incs +
                              [path], capture_output=True, text=True)


p = compile_text(src)
check('unpatched 570.144 file compiles', p.returncode == 0, p.stderr[-600:])
m = re.search(r'^#define ABIGEN_OFF_rmargs__profiler_pa (\d+)$', src, re.M)
ok = m is not None and m.group(1) == '56'
if ok:
    p = compile_text(src[:m.start(1)] + '64' + src[m.end(1):])
    ok = (p.returncode != 0 and
          'abigen: 570.144: offsetof(GSP_ARGUMENTS_CACHED, profilerArgs.pa)'
          in p.stderr)
check('patched offset (profilerArgs.pa 56 -> 64) fails to compile', ok,
      p.stderr[-600:] if m else 'no offset define')
m = re.search(r'\(GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB\) == (88)ll',
              src)
ok = m is not None
if ok:
    p = compile_text(src[:m.start(1)] + '170' + src[m.end(1):])
    ok = (p.returncode != 0 and 'value of GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_'
          'BAREMETAL_MIN_MB' in p.stderr)
check('heap constant patched to the Bullseye value fails to compile', ok,
      p.stderr[-600:] if m else 'no constant assert')

print('TAP version 13')
print('1..%d' % len(results))
fails = 0
for i, (name, ok, detail) in enumerate(results, 1):
    print('%s %d - %s' % ('ok' if ok else 'not ok', i, name))
    if not ok:
        fails += 1
        for line in detail.splitlines()[-40:]:
            print('# ' + line)
sys.exit(1 if fails else 0)
