#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""abigen command-line checks (TAP).

usage: check_abigen.py ABIGEN SRCDIR DIFF VERSION2_C LAYOUT_JSON -- CC...

- the drift set's diff report equals the golden file (every planted drift,
  nothing else);
- the layout database is valid JSON and pins the Bullseye constant to 88;
- a generated offset or size patched by one is caught by the compiler
  (the _Static_asserts), while the unpatched file compiles;
- want-list errors name file:line (`elem` on a field that is not an
  array of that struct included); headers that do not parse fail cleanly
  (exit 1, diagnostics, no output, no crash).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from abitest import check, compile_text, finish

abigen, srcdir, diff_path, v2_c, layout = sys.argv[1:6]
cc = sys.argv[sys.argv.index('--') + 1:]


def run_abigen(d, want, versions=None, rename=None):
    vpath = versions or os.path.join(srcdir, 'drift', 'versions.txt')
    wpath = os.path.join(d, 'want.txt')
    with open(wpath, 'w') as f:
        f.write(want)
    out = os.path.join(d, 'out')
    os.makedirs(out, exist_ok=True)
    args = [abigen, '--versions', vpath, '--want', wpath, '--outdir', out]
    if rename:
        args += ['--rename', rename]
    p = subprocess.run(args, capture_output=True, text=True)
    return p, wpath, out


# 1. golden diff report
with open(diff_path) as f:
    got = f.read()
with open(os.path.join(srcdir, 'golden', 'drift_diff.txt')) as f:
    want = f.read()
check('diff report equals golden/drift_diff.txt', got == want,
      '' if got == want else '\n'.join(
          '# ' + l for l in got.splitlines()))

# 2. JSON layout database
db = json.load(open(layout))
v1 = db['versions'][0]
heap = v1['constants']['GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB']
check('layout JSON: heap constant pinned to 88, define-dependence noted',
      heap['value'] == 88 and
      '164 with RMCFG_FEATURE_GSPRM_BULLSEYE=1' in heap['define_dependent'],
      str(heap))
elem = [r for r in db['versions'][1]['records']
        if r['name'] == 'GSP_MSG_QUEUE_ELEMENT'][0]
check('layout JSON: 48-byte element header, checkSum at 32',
      elem['size'] == 48 and
      [f['offset'] for f in elem['fields'] if f['path'] == 'checkSum'] == [32])

# 3. a patched offset / size is caught by the compiler
gen_dir = os.path.dirname(v2_c)
incs = ['-I' + gen_dir] + ['-I' + os.path.join(srcdir, p) for p in
                           ('common', 'drift/v2', 'drift/v2/msgq',
                            'drift/v2/gsp', 'drift/v2/ctrl')]
src = open(v2_c).read()

p = compile_text(cc, incs, src)
check('unpatched generated file compiles', p.returncode == 0, p.stderr)
m = re.search(r'^#define (ABIGEN_OFF_sysinfo__Chipset) (\d+)$', src, re.M)
patched = src[:m.start(2)] + str(int(m.group(2)) + 4) + src[m.end(2):]
p = compile_text(cc, incs, patched)
check('patched offset (%s + 4) fails to compile' % m.group(1),
      p.returncode != 0 and
      'abigen: 2.0: offsetof(SYSTEM_INFO, Chipset)' in p.stderr,
      p.stderr[-600:])
m = re.search(r'^#define (ABIGEN_SIZE_msg_elem) (\d+)$', src, re.M)
patched = src[:m.start(2)] + str(int(m.group(2)) - 8) + src[m.end(2):]
p = compile_text(cc, incs, patched)
check('patched size (msg_elem 48 -> 40) fails to compile',
      p.returncode != 0 and
      'abigen: 2.0: sizeof(GSP_MSG_QUEUE_ELEMENT)' in p.stderr,
      p.stderr[-600:])

# 4. want-list errors with file:line
with tempfile.TemporaryDirectory() as d:
    p, w, out = run_abigen(d, '# comment\nstruct NO_SUCH_TYPE\nfield x\n')
    check('unknown type: exit 1 with want.txt:2',
          p.returncode == 1 and
          "%s:2: unknown type 'NO_SUCH_TYPE'" % w in p.stderr and
          not os.listdir(out), p.stderr)
    p, w, out = run_abigen(d, 'struct WPR_META\nfield magic\nfield nope\n')
    check('unknown field: exit 1 with want.txt:3',
          p.returncode == 1 and
          "%s:3: unknown field 'nope' in 'WPR_META'" % w in p.stderr,
          p.stderr)
    p, w, out = run_abigen(d, '\nconst NO_SUCH_MACRO\n')
    check('unknown constant: exit 1 with want.txt:2',
          p.returncode == 1 and "%s:2: unknown constant" % w in p.stderr,
          p.stderr)
    p, w, out = run_abigen(d, 'struct WPR_META\nfeild magic\n')
    check('want-list syntax error: exit 1 with want.txt:2',
          p.returncode == 1 and "%s:2: cannot parse 'feild'" % w in p.stderr,
          p.stderr)
    p, w, out = run_abigen(d, 'table t\nvalue NOPE_X\n')
    check('unknown table value: exit 1 with want.txt:2',
          p.returncode == 1 and "%s:2: unknown constant 'NOPE_X'" % w
          in p.stderr, p.stderr)
    # `fixed`: every version must agree, or the want line is an error
    p, w, out = run_abigen(
        d, 'const GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3_MB fixed\n')
    check('fixed constant that drifts: exit 1 with want.txt:1',
          p.returncode == 1 and
          "%s:1: fixed constant 'GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3_MB' "
          "differs: 20 in 1.0, 22 in 2.0" % w in p.stderr, p.stderr)
    p, w, out = run_abigen(d, '\ntable event prefix NV_VGPU_MSG_EVENT_ '
                           'fixed\n')
    check('fixed table with a renumbered entry: exit 1 with want.txt:2',
          p.returncode == 1 and
          "%s:2: fixed table 'event': NVLINK_FAULT_UP is 4124 in 1.0, "
          "4123 in 2.0" % w in p.stderr, p.stderr)
    # `numbers TAG`: that version's numbering as compile-time values;
    # a `fixed` constant every version agrees on likewise
    p, w, out = run_abigen(
        d, 'table event prefix NV_VGPU_MSG_EVENT_ numbers 2.0\n'
        'const NV_VGPU_MSG_EVENT_GSP_INIT_DONE fixed\n')
    hdr = open(os.path.join(out, 'abi.h')).read() if p.returncode == 0 \
        else ''
    check('numbers 2.0 / fixed: compile-time ABI_K_ values and a list',
          '#define ABI_K_EVENT_NVLINK_FAULT_UP 0x101b\n' in hdr and
          'X(NVLINK_FAULT_UP, 0x101b)' in hdr and
          '#define ABI_K_EVENT_GSP_SEND_USER_SHARED_DATA' not in hdr and
          '#define ABI_K_NV_VGPU_MSG_EVENT_GSP_INIT_DONE 0x1001 ' in hdr,
          p.stderr + hdr[:0])
    p, w, out = run_abigen(d, 'table event prefix NV_VGPU_MSG_EVENT_ '
                           'numbers 9.9\n')
    check('numbers of an unknown version: exit 1 with want.txt:1',
          p.returncode == 1 and
          "%s:1: table 'event': numbers of unknown version '9.9'" % w
          in p.stderr, p.stderr)
    # `elem S`: the field must be an array of S in every version
    p, w, out = run_abigen(d, 'struct SYSTEM_INFO as sysinfo\n'
                           'field Chipset\nstruct WPR_META\n'
                           'field magic elem sysinfo\n')
    check('elem on a field that is no array of it: exit 1 with want.txt:4',
          p.returncode == 1 and
          "%s:4: field 'magic' of 'WPR_META' is not an array of "
          "'sysinfo' in 1.0" % w in p.stderr,
          p.stderr)
    p, w, out = run_abigen(d, 'struct WPR_META\nfield magic elem nope\n')
    check('elem naming no wanted struct: exit 1 with want.txt:2',
          p.returncode == 1 and
          "%s:2: field 'magic' of 'WPR_META': elem 'nope' is not another "
          "wanted struct" % w in p.stderr, p.stderr)
    ren = os.path.join(d, 'rename.txt')
    with open(ren, 'w') as f:
        f.write('9.9 field WPR_META.a WPR_META.b\n')
    p, w, out = run_abigen(d, 'struct WPR_META\nfield magic\n', rename=ren)
    check('rename map: unknown version with file:line',
          p.returncode == 1 and "%s:1: unknown version '9.9'" % ren
          in p.stderr, p.stderr)

# 5. headers that do not parse
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, 'broken.h'), 'w') as f:
        f.write('typedef struct { int a } BROKEN;\n#include "missing.h"\n')
    vers = os.path.join(d, 'versions.txt')
    with open(vers, 'w') as f:
        f.write('version 9.0\ninclude .\nheader broken.h\n')
    p, w, out = run_abigen(d, 'struct BROKEN\nfield a\n', versions=vers)
    check('broken header: exit 1, diagnostics, nothing written',
          p.returncode == 1 and 'do not parse' in p.stderr and
          "'missing.h' file not found" in p.stderr and not os.listdir(out),
          p.stderr)
    with open(vers, 'w') as f:
        f.write('version 9.0\ninclude .\nheader nowhere.h\n')
    p, w, out = run_abigen(d, 'struct BROKEN\nfield a\n', versions=vers)
    check('missing root header: exit 1 cleanly',
          p.returncode == 1 and 'nowhere.h' in p.stderr, p.stderr)

# 6. a third version added the way docs/abigen.md says: header drop,
#    version-list block, want-list edit, rebuild (here: run + compile)
import shutil
with tempfile.TemporaryDirectory() as d:
    shutil.copytree(os.path.join(srcdir, 'drift'), os.path.join(d, 'drift'))
    shutil.copytree(os.path.join(srcdir, 'common'), os.path.join(d, 'common'))
    v3 = os.path.join(d, 'drift', 'v3')
    shutil.copytree(os.path.join(d, 'drift', 'v2'), v3)      # header drop
    rpc = os.path.join(v3, 'gsp', 'rpc.h')
    text = open(rpc).read().replace(
        '#define NV_VGPU_MSG_EVENT_MIG_CI_CONFIG_UPDATE 0x101d',
        '#define NV_VGPU_MSG_EVENT_MIG_CI_CONFIG_UPDATE 0x101d\n'
        '#define NV_VGPU_MSG_EVENT_GSP_POST_NOCAT_RECORD 0x101e')
    text = text.replace('\tNvU32 preemptiveRemovalPreviousXid;',
                        '\tNvU32 preemptiveRemovalPreviousXid;\n'
                        '\tNvU32 rcCount;')
    open(rpc, 'w').write(text)
    vl = os.path.join(d, 'drift', 'versions.txt')
    block = open(vl).read().split('version 2.0')[1]
    with open(vl, 'a') as f:                                  # version list
        f.write('\nversion 3.0' + block.replace('v2', 'v3'))
    want = open(os.path.join(d, 'drift', 'want.txt')).read().replace(
        'field preemptiveRemovalPreviousXid',
        'field preemptiveRemovalPreviousXid\nfield rcCount')   # want edit
    out = os.path.join(d, 'out')
    os.makedirs(out)
    wp = os.path.join(d, 'want.txt')
    open(wp, 'w').write(want)
    p = subprocess.run([abigen, '--versions', vl, '--want', wp, '--rename',
                        os.path.join(d, 'drift', 'rename.txt'),
                        '--prefix', 'drift', '--outdir', out],
                       capture_output=True, text=True)
    ok = p.returncode == 0
    if ok:
        rep = open(os.path.join(out, 'drift_diff.txt')).read()
        ok = ('== 2.0 -> 3.0 ==' in rep and
              'added     rcCount @48 +4 (NvU32)' in rep and
              'added       GSP_POST_NOCAT_RECORD 0x101e' in rep and
              '2.0: rpc_os_error_log_v17_00.rcCount' in rep)
        v3incs = ['-I' + out] + ['-I' + os.path.join(d, x) for x in (
            'common', 'drift/v3', 'drift/v3/msgq', 'drift/v3/gsp',
            'drift/v3/ctrl')]
        c = subprocess.run(cc + ['-std=gnu17', '-fsyntax-only'] + v3incs +
                           [os.path.join(out, 'drift_r3_0.c')],
                           capture_output=True, text=True)
        ok = ok and c.returncode == 0
    check('a third version added by header drop + want edit + rerun', ok,
          p.stderr)

# 7. signed in one version, unsigned in the other: the neutral type is
#    wider and holds both; packing checks the range of the target version
with tempfile.TemporaryDirectory() as d:
    for v, decl in (('a', 'short x; unsigned char y;'),
                    ('b', 'unsigned short x; signed char y;')):
        os.makedirs(os.path.join(d, v))
        open(os.path.join(d, v, 's.h'), 'w').write(
            'typedef struct { %s } S;\n' % decl)
    vl = os.path.join(d, 'v.txt')
    open(vl, 'w').write('version a\ninclude a\nheader s.h\n'
                        'version b\ninclude b\nheader s.h\n')
    out = os.path.join(d, 'out')
    os.makedirs(out)
    wp = os.path.join(d, 'w.txt')
    open(wp, 'w').write('struct S\nfield x\nfield y\n')
    open(os.path.join(d, 't.c'), 'w').write('''
#include "abi.h"
int main(void)
{
	unsigned char w[4] = { 0xff, 0xff, 0xff, 0 };
	struct abi_S s;

	if (abi_b_S_unpack(w, 4, &s) || s.x != 65535 || s.y != -1)
		return 1;
	if (abi_a_S_pack(&s, w, 4) != -ERANGE)
		return 2;
	if (abi_a_S_unpack(w, 4, &s) || s.x != -1 || s.y != 255)
		return 3;
	if (abi_b_S_pack(&s, w, 4) != -ERANGE)
		return 4;
	return 0;
}
''')
    p = subprocess.run([abigen, '--versions', vl, '--want', wp,
                        '--outdir', out], capture_output=True, text=True)
    ok = p.returncode == 0
    detail = p.stderr
    if ok:
        objs = []
        for src, inc in (('abi_a.c', 'a'), ('abi_b.c', 'b'),
                         ('abi_common.c', 'a'), ('../t.c', 'a')):
            o = os.path.join(d, src.replace('../', '') + '.o')
            c = subprocess.run(cc + ['-std=gnu17', '-I' + out, '-I' +
                               os.path.join(d, inc), '-c',
                               os.path.join(out, src), '-o', o],
                               capture_output=True, text=True)
            ok = ok and c.returncode == 0
            detail += c.stderr
            objs.append(o)
        exe = os.path.join(d, 't')
        if ok:
            c = subprocess.run(cc + objs + ['-o', exe], capture_output=True,
                               text=True)
            ok = c.returncode == 0 and subprocess.run([exe]).returncode == 0
            detail += c.stderr
    check('mixed signedness: wider neutral type, range-checked pack', ok,
          detail)

finish(detail_lines=None)
