#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""abigen on the driver's real set (firmware/abi/), TAP.

usage: check_gspabi.py ABIGEN ABIDIR DIFF GOLDEN LAST_VERSION_C INCDIR... -- CC...

- the diff report between 535.54.03, 535.113.01 and 570.144 equals
  golden/gsp_diff.txt: every planted drift, nothing else;
- the newest version's generated file compiles against its headers, and
  fails to compile with the abigen message when one offset is patched to
  the previous version's value (GSP_ARGUMENTS_CACHED.profilerArgs.pa
  56 -> 64, as a hand copy of 535's layout would have it) or when the
  heap constant is patched to the Bullseye value (88 -> 170);
- a fourth, synthetic version added to a copy of firmware/abi/ by
  following docs/abigen.md step by step (header drop, version block,
  rename map, want-list edit, rerun) generates a version file that
  compiles against its headers, and the report shows its drift.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from abitest import check, compile_text, finish

abigen, abidir, diff_path, golden_path, vfile = sys.argv[1:6]
sep = sys.argv.index('--')
incs = ['-I' + os.path.dirname(vfile)] + ['-I' + d for d in sys.argv[6:sep]]
cc = sys.argv[sep + 1:]


got = open(diff_path).read()
want = open(golden_path).read()
check('real diff report equals golden/gsp_diff.txt', got == want,
      '' if got == want else '\n'.join('# ' + l for l in got.splitlines()))

src = open(vfile).read()

p = compile_text(cc, incs, src)
check('unpatched 570.144 file compiles', p.returncode == 0, p.stderr[-600:])
m = re.search(r'^#define ABIGEN_OFF_rmargs__profiler_pa (\d+)$', src, re.M)
ok = m is not None and m.group(1) == '56'
if ok:
    p = compile_text(cc, incs, src[:m.start(1)] + '64' + src[m.end(1):])
    ok = (p.returncode != 0 and
          'abigen: 570.144: offsetof(GSP_ARGUMENTS_CACHED, profilerArgs.pa)'
          in p.stderr)
check('patched offset (profilerArgs.pa 56 -> 64) fails to compile', ok,
      p.stderr[-600:] if m else 'no offset define')
m = re.search(r'\(GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB\) == (88)ll',
              src)
ok = m is not None
if ok:
    p = compile_text(cc, incs, src[:m.start(1)] + '170' + src[m.end(1):])
    ok = (p.returncode != 0 and 'value of GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_'
          'BAREMETAL_MIN_MB' in p.stderr)
check('heap constant patched to the Bullseye value fails to compile', ok,
      p.stderr[-600:] if m else 'no constant assert')


def fourth_version():
    """docs/abigen.md, "Adding a firmware version", on a copy of the set."""
    with tempfile.TemporaryDirectory() as d:
        abi = os.path.join(d, 'abi')
        shutil.copytree(abidir, abi, ignore=shutil.ignore_patterns(
            'meson.build'))
        # 1. header drop: 575.0 is 570.144 with one field renamed and one
        #    appended to GspStaticConfigInfo
        shutil.copytree(os.path.join(abi, '570.144'), os.path.join(abi, '575.0'))
        sc = os.path.join(abi, '575.0', 'kernel', 'inc', 'gpu', 'gsp',
                          'gsp_static_config.h')
        text = open(sc).read()
        text = text.replace('\tNvU32 ceClass;\n',
                            '\tNvU32 ceClassId;\n\tNvU32 fwWprLayoutOffset;\n')
        open(sc, 'w').write(text)
        # 2. version list: the same block as 570.144 under the new tag
        vl = open(os.path.join(abi, 'versions.txt')).read()
        block = vl[vl.index('version 570.144'):].replace('570.144', '575.0')
        open(os.path.join(abi, 'versions.txt'), 'a').write('\n' + block)
        # 3. rename map: the renamed field keeps its neutral name
        with open(os.path.join(abi, 'rename.txt'), 'a') as f:
            f.write('575.0 field GspStaticConfigInfo.ceClassId '
                    'GspStaticConfigInfo.ceClass\n')
        # 4. want list: the driver needs the new field
        w = open(os.path.join(abi, 'want.txt')).read()
        w = w.replace('field ceClass\n', 'field ceClass\nfield fwWprLayoutOffset\n')
        open(os.path.join(abi, 'want.txt'), 'w').write(w)
        # 6. rerun
        out = os.path.join(d, 'out')
        os.makedirs(out)
        p = subprocess.run([abigen, '--versions',
                            os.path.join(abi, 'versions.txt'), '--want',
                            os.path.join(abi, 'want.txt'), '--rename',
                            os.path.join(abi, 'rename.txt'), '--prefix',
                            'gspabi', '--outdir', out],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return False, p.stderr
        vc = os.path.join(out, 'gspabi_r575_0.c')
        if not os.path.exists(vc):
            return False, 'no gspabi_r575_0.c: ' + ' '.join(os.listdir(out))
        vdir = os.path.join(abi, '575.0')
        q = subprocess.run(cc + ['-std=gnu17', '-fsyntax-only', '-I' + out] +
                           ['-I' + os.path.join(vdir, x) for x in
                            ('', 'sdk/nvidia/inc', 'kernel/inc/gpu/gsp',
                             'arch/nvalloc/common/inc/gsp', 'rpc')] + [vc],
                           capture_output=True, text=True)
        if q.returncode != 0:
            return False, q.stderr[-800:]
        rep = open(os.path.join(out, 'gspabi_diff.txt')).read()
        need = ['== 570.144 -> 575.0 ==',
                'renamed   ceClass -> ceClassId',
                'added     fwWprLayoutOffset',
                '570.144: GspStaticConfigInfo.fwWprLayoutOffset',
                '535.54.03: GspStaticConfigInfo.fwWprLayoutOffset']
        miss = [n for n in need if n not in rep]
        # the older pairs are unchanged by the addition
        old = open(diff_path).read()
        pairs = rep[rep.index('== 535.54.03 -> 535.113.01 =='):
                    rep.index('== 570.144 -> 575.0 ==')]
        if (pairs.rstrip() !=
                old[old.index('== 535.54.03 -> 535.113.01 =='):].rstrip()):
            miss.append('earlier pairs changed')
        return not miss, 'missing: %s\n%s' % (miss, rep)


ok, detail = fourth_version()
check('a fourth version added by following docs/abigen.md', ok, detail)

print('TAP version 13')
finish(detail_lines=60)
