#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed corpora of the fuzz targets that read what the GSP sent, built from
real wire captures (`nvl trace --record`), one per firmware version.

usage: gen_seeds.py BUILDDIR OUTDIR CAPTURE...
       gen_seeds.py pushbuf NVL OUTDIR
       gen_seeds.py events BUILDDIR OUTDIR

  BUILDDIR  a configured build (its firmware/abi/gspabi.h and
            gspabi_layout.json: struct ids and each version's sizes)
  OUTDIR    the fuzz/corpus directory; writes OUTDIR/gsp_abi/,
            OUTDIR/trace/ and OUTDIR/gsp_fwread/ (existing seeds of the
            same names are replaced; gsp_fwread's need the zstd tool)

Regenerate (docs/tools.md, "Fuzzing the GSP's bytes"):
  for fw in 535.54.03 535.113.01 570.144; do
    build/check/tools/nvl/nvl trace -c 1 -j 1 --firmware $fw \\
      --record /tmp/cap-$fw.bin
  done
  fuzz/gen_seeds.py build/check fuzz/corpus /tmp/cap-*.bin

gsp_abi seeds (input: version index, selector, bytes; fuzz/gsp/fuzz_abi.c):
the first RPC and the first reply or event of each number (up to 4 KiB)
of the captures as its wanted struct
and through the trace printer, each RM control reply through the reply
parser, each event number through the translation, and a zeroed image of
every struct each version has that no capture carried (up to 4 KiB).
trace seeds: each capture cut to its first records of every kind (the
header, GSP RPCs, replies, the tool's channel records, pushbuffers).

pushbuf seeds (the second form; NVL is a built `nvl`, whose assembler
writes the programs): OUTDIR/pushbuf/compute-*, pushbuffers for the
graphics/compute runlist of fuzz/model/fuzz_pushbuf.c's "tiny" chip
(TURING_COMPUTE_A, QMD V02_02) with their QMD, program and constant
buffer in the input's data blob: grids that store, fault, loop forever,
a bad QMD, the wrong classes, an unbound subchannel, Host semaphores
and a non-stall interrupt.

events seeds (the third form): OUTDIR/gsp_events/, the messages of
fuzz/gsp/fuzz_events.c laid out from BUILDDIR's gspabi_layout.json for
535.113.01 (the version "model:tiny" boots): POST_EVENT to the target's
sensor subscription (both notifiers; another event; cut short),
RC_TRIGGERED and OS_ERROR_LOG (whole, cut short, text without its NUL),
MMU_FAULT_QUEUED (one and a storm), INIT_DONE and RUN_CPU_SEQUENCER after
the boot, replies nobody asked for.

itree seeds (usage: gen_seeds.py itree OUTDIR): OUTDIR/itree/seed-runs-*,
9-byte records of fuzz/base/fuzz_itree.c from a fixed random generator:
sorted runs of up to 128 items inserted (spread, adjacent, one start),
removed in the tree's order and in descending order (every first to
fourth entry), single toggles between them, up to a thousand items in
the trees (three levels of 32-wide nodes).
"""
import hashlib
import json
import os
import re
import struct
import sys

HDR, REC = 96, 80
GSP_CMD, GSP_MSG, PUSH, TOOL_CHANNEL = 1, 2, 3, 100
# the driver's printers (src/gsp/trace.c): function or event -> struct
PRINTED = {
    'FUNCTION_GSP_SET_SYSTEM_INFO': 'SYSINFO',
    'FUNCTION_GET_GSP_STATIC_INFO': 'STATIC_INFO',
    'FUNCTION_GSP_RM_ALLOC': 'RM_ALLOC',
    'FUNCTION_GSP_RM_CONTROL': 'RM_CONTROL',
    'FUNCTION_FREE': 'RM_FREE',
    'FUNCTION_UNLOADING_GUEST_DRIVER': 'UNLOADING',
    'EVENT_GSP_RUN_CPU_SEQUENCER': 'RUN_CPU_SEQ',
    'EVENT_OS_ERROR_LOG': 'OS_ERROR_LOG',
    'EVENT_RC_TRIGGERED': 'RC_TRIGGERED',
    'EVENT_POST_EVENT': 'POST_EVENT',
}
# fuzz_abi.c's consumers, after the struct ids
CONSUMERS = ['RC_TRIGGERED', 'OS_ERROR_LOG', 'CONTROL_REPLY', 'TRACE',
             'EVENT_IN']


def read_capture(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'NVLTRACE', path
    fw = data[32:96].split(b'\0')[0].decode()
    recs, off = [], HDR
    while off + REC <= len(data):
        kind, func, _seq, _res, _chid, _cl, _ch, ln = struct.unpack_from(
            '<8I', data, off)
        end = off + REC + ((ln + 3) & ~3)
        recs.append((kind, func, data[off + REC:off + REC + ln],
                     data[off:end]))
        off = end
    return fw, data[:HDR], recs


def write(d, name, blob, written):
    h = hashlib.sha1(blob).hexdigest()
    if h in written:
        return
    written.add(h)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(blob)


def main():
    build, outdir, caps = sys.argv[1], sys.argv[2], sys.argv[3:]
    hdr = open(os.path.join(build, 'firmware', 'abi', 'gspabi.h')).read()
    enum = re.search(r'enum gspabi_struct_id \{(.*?)\};', hdr, re.S).group(1)
    sids = [x.strip().rstrip(',') for x in enum.split('\n') if x.strip()]
    sids = [x[len('GSPABI_S_'):] for x in sids if x != 'GSPABI_S__COUNT']
    knum = {m.group(1): int(m.group(2), 0) for m in re.finditer(
        r'#define GSPABI_K_((?:FUNCTION|EVENT)_\w+) (0x[0-9a-f]+|\d+)', hdr)}
    by_num = {}
    for k, s in PRINTED.items():
        by_num[knum[k]] = sids.index(s)
    layout = json.load(open(os.path.join(build, 'firmware', 'abi',
                                         'gspabi_layout.json')))
    tags = [v['tag'] for v in layout['versions']]
    # want order: the struct ids; the version's records name their want
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    neutral = {}
    for line in open(os.path.join(root, 'firmware', 'abi', 'want.txt')):
        w = line.split('#')[0].split()
        if len(w) >= 4 and w[0] == 'struct' and w[2] == 'as':
            neutral[w[1]] = w[3].upper()
    sizes = {}
    for vi, v in enumerate(layout['versions']):
        for r in v['records']:
            sizes[(vi, sids.index(neutral[r['want']]))] = r['size']
    ctl = sids.index('RM_CONTROL')
    sel_c = {c: len(sids) + i for i, c in enumerate(CONSUMERS)}

    abi_dir = os.path.join(outdir, 'gsp_abi')
    tr_dir = os.path.join(outdir, 'trace')
    os.makedirs(abi_dir, exist_ok=True)
    os.makedirs(tr_dir, exist_ok=True)
    written, covered, firsts = set(), set(), set()
    for cap in caps:
        fw, head, recs = read_capture(cap)
        vi = tags.index(fw)
        n = 0
        for kind, func, payload, _raw in recs:
            # the first of each function or event each way, up to 4 KiB
            if kind not in (GSP_CMD, GSP_MSG) or len(payload) > 4096 or \
                    (fw, func, kind) in firsts:
                continue
            firsts.add((fw, func, kind))
            sid = by_num.get(func)
            if sid is not None:
                covered.add((vi, sid))
                write(abi_dir, 'cap-%s-%s-%s-%d' % (
                    fw, sids[sid].lower(), 'cmd' if kind == GSP_CMD
                    else 'msg', n), bytes([vi, sid]) + payload, written)
            write(abi_dir, 'cap-%s-trace-%#x-%d' % (fw, func, n),
                  bytes([vi, sel_c['TRACE']]) +
                  struct.pack('<IB', func, kind == GSP_CMD) + payload,
                  written)
            if sid == ctl and kind == GSP_MSG and \
                    len(payload) >= sizes[(vi, ctl)]:
                write(abi_dir, 'cap-%s-control-reply-%d' % (fw, n),
                      bytes([vi, sel_c['CONTROL_REPLY']]) +
                      struct.pack('<H', len(payload) - sizes[(vi, ctl)]) +
                      payload, written)
            if func >= 0x1000:
                write(abi_dir, 'cap-%s-event-in-%#x' % (fw, func),
                      bytes([vi, sel_c['EVENT_IN']]) +
                      struct.pack('<I', func), written)
            n += 1
        # the trace reader: the header and the first four records of each
        # kind, in capture order
        keep, seen = [], {}
        for kind, _f, _p, raw in recs:
            if seen.get(kind, 0) < 4:
                seen[kind] = seen.get(kind, 0) + 1
                keep.append(raw)
        write(tr_dir, 'cap-%s' % fw, head + b''.join(keep), written)
        write(tr_dir, 'cap-%s-header-only' % fw, head, written)
    for vi, tag in enumerate(tags):
        for sid, name in enumerate(sids):
            size = sizes.get((vi, sid))
            if size is not None and size <= 4096 and \
                    (vi, sid) not in covered:
                write(abi_dir, 'zero-%s-%s' % (tag, name.lower()),
                      bytes([vi, sid]) + bytes(size), written)
        for c in ('RC_TRIGGERED', 'OS_ERROR_LOG'):
            size = sizes[(vi, sids.index(c))]
            write(abi_dir, 'zero-%s-decode-%s' % (tag, c.lower()),
                  bytes([vi, sel_c[c]]) + bytes(size), written)

    fwread_seeds(os.path.join(outdir, 'gsp_fwread'))


def fwread_seeds(d):
    """fuzz-gsp_fwread (fuzz/gsp/fuzz_fwread.c): byte 0 the storage (0
    plain, 1 .zst, 2 .xz), then the file: a small image stored each way
    (zstd with and without its content size, xz with CRC32 and CRC64
    checks), and each compressed file cut short."""
    import lzma
    import subprocess
    import tempfile
    os.makedirs(d, exist_ok=True)
    img = b'\x7fELF' + bytes(range(256)) * 4 + b'.fwimage' * 16
    seeds = {'plain': b'\0' + img, 'empty-zst': b'\1', 'empty-xz': b'\2'}
    for name, check in (('crc32', lzma.CHECK_CRC32),
                        ('crc64', lzma.CHECK_CRC64)):
        seeds['xz-' + name] = b'\2' + lzma.compress(img, check=check)
    with tempfile.NamedTemporaryFile() as t:
        t.write(img)
        t.flush()
        # from a file, zstd records the content size; from stdin it cannot
        for name, flags in (('size', [t.name]),
                            ('nosize', ['--no-content-size', t.name])):
            z = subprocess.run(['zstd', '-q', '-c', '-19'] + flags,
                               capture_output=True, check=True).stdout
            seeds['zst-' + name] = b'\1' + z
    for name in [n for n in seeds if n.startswith(('xz-', 'zst-'))]:
        seeds[name + '-cut'] = seeds[name][:len(seeds[name]) // 2]
    for name, blob in seeds.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(blob)


# fuzz/model/fuzz_pushbuf.c's input: flags, the data blob at VA DATA
PB_PRIV, PB_COMPUTE, PB_BLOB = 1, 4, 8
DATA = 1 << 20
TURING_COMPUTE_A, TURING_DMA_COPY_A = 0xc5c0, 0xc5b5
# method header (dev_ram / clc46f.h NV_FIFO_DMA_*): SEC_OP 31:29 (1
# incrementing, 4 immediate), COUNT or immediate data 28:16, SUBCHANNEL
# 15:13, METHOD_ADDRESS 11:0 (dwords)


def mthd(op, subch, m, n):
    return op << 29 | (n & 0x1fff) << 16 | (subch & 7) << 13 | (m >> 2)


def inc(subch, m, *data):
    return [mthd(1, subch, m, len(data))] + list(data)


def immd(subch, m, v):
    return [mthd(4, subch, m, v)]


# Host (clc46f.h): SET_OBJECT 0x0, NON_STALL_INTERRUPT 0x20, SEM_ADDR_LO
# 0x5c .. SEM_EXECUTE 0x6c (OPERATION 2:0 RELEASE 1, ACQ_CIRC_GEQ 3)
SET_OBJECT, NON_STALL, SEM_ADDR_LO = 0x0, 0x20, 0x5c
# TURING_COMPUTE_A (clc5c0.h): SEND_PCAS_A 0x2b4 (QMD address >> 8),
# SEND_SIGNALING_PCAS_B 0x2bc (INVALIDATE 0, SCHEDULE 1)
PCAS_A, PCAS_B = 0x2b4, 0x2bc
# QMD V02_02 (clc3c0qmd.h, the same in clc5c0's): {lo, hi} bits
QMD_V02_02 = {
    'vminor': (576, 579), 'vmajor': (580, 583),
    'grid0': (384, 415), 'grid1': (416, 431), 'grid2': (448, 463),
    'cta0': (592, 607), 'cta1': (608, 623), 'cta2': (624, 639),
    'prog_lo': (1536, 1567), 'prog_hi': (1568, 1584), 'regs': (648, 656),
    'smem': (544, 561), 'cb_valid': (640, 640), 'cb_lo': (1024, 1055),
    'cb_hi': (1056, 1072), 'cb_size': (1075, 1087), 'rel_en': (138, 138),
    'rel_lo': (736, 767), 'rel_hi': (768, 775), 'rel_payload': (800, 831),
    'rel_size': (799, 799),
}


def qmd(**f):
    q = 0
    for k, v in f.items():
        lo, hi = QMD_V02_02[k]
        q |= (v & ((1 << (hi - lo + 1)) - 1)) << lo
    return q.to_bytes(256, 'little')


def assemble(nvl, src):
    import subprocess
    out = subprocess.run([nvl, 'asm', '--arch', 'sm75'], input=src,
                         capture_output=True, text=True, check=True).stdout
    words = [int(w, 16) for w in out.split()]
    return b''.join(struct.pack('<Q', w) for w in words)


def pushbuf_seeds(nvl, d):
    """Blob layout: QMD at DATA, program at DATA + 0x100, constant bank 0
    (0x200 bytes: ntid, nctaid, a pointer parameter at 0x160) at DATA +
    0x400; the QMD releases a 32-bit payload at DATA + 0x600 and the
    store goes to DATA + 0x800 (or the hole at 1 TiB)."""
    os.makedirs(d, exist_ok=True)
    store = assemble(nvl, 'S2R R0, SR_TID.X ;\nMOV R2, c[0x0][0x160] ;\n'
                     'MOV R3, c[0x0][0x164] ;\n'
                     'IMAD.WIDE.U32 R2, R0, 0x4, R2 ;\nSTG.E [R2], R0 ;\n'
                     'EXIT ;\n')
    loop = assemble(nvl, 'L0:\nBRA L0 ;\n')
    illegal = b'\xff' * 16

    def blob(prog, dst, major=2, block=32, grid=2, smem=0):
        q = qmd(vmajor=major, vminor=2, grid0=grid, grid1=1, grid2=1,
                cta0=block, cta1=1, cta2=1, prog_lo=DATA + 0x100,
                prog_hi=0, regs=32, smem=smem, cb_valid=1,
                cb_lo=DATA + 0x400, cb_hi=0, cb_size=0x200 >> 4, rel_en=1,
                rel_lo=DATA + 0x600, rel_hi=0, rel_payload=0x600d,
                rel_size=1)
        c0 = struct.pack('<6I', block, 1, 1, grid, 1, 1)
        c0 = c0.ljust(0x160, b'\0') + struct.pack('<Q', dst)
        c0 = c0.ljust(0x200, b'\0')
        b = q + prog.ljust(0x300, b'\0') + c0
        return struct.pack('<H', len(b)) + b

    launch = (inc(1, SET_OBJECT, TURING_COMPUTE_A) +
              inc(1, PCAS_A, DATA >> 8) + immd(1, PCAS_B, 3))
    release = (inc(0, SEM_ADDR_LO, DATA + 0x700, 0, 0x5eed, 0, 1) +
               inc(0, NON_STALL, 0))

    def pb(dws):
        return b''.join(struct.pack('<I', x & 0xffffffff) for x in dws)

    fl = bytes([PB_COMPUTE | PB_BLOB])
    seeds = {
        'compute-store': fl + blob(store, DATA + 0x800) + pb(launch),
        'compute-store-release': fl + blob(store, DATA + 0x800) +
        pb(launch + release),
        'compute-store-fault': fl + blob(store, 1 << 40) + pb(launch),
        'compute-loop-forever': fl + blob(loop, 0) + pb(launch),
        'compute-illegal': fl + blob(illegal, 0) + pb(launch),
        'compute-bad-qmd': fl + blob(store, DATA + 0x800, major=3) +
        pb(launch),
        'compute-shape-zero': fl + blob(store, DATA + 0x800, block=0) +
        pb(launch),
        'compute-unbound-subch': fl + blob(store, DATA + 0x800) +
        pb(inc(2, PCAS_A, DATA >> 8) + immd(2, PCAS_B, 3)),
        'compute-copy-class': bytes([PB_COMPUTE]) +
        pb(inc(1, SET_OBJECT, TURING_DMA_COPY_A)),
        'copy-compute-class': bytes([PB_BLOB]) +
        blob(store, DATA + 0x800) + pb(launch),
        'compute-release-nonstall': bytes([PB_COMPUTE]) + pb(release),
        'compute-priv-release': bytes([PB_COMPUTE | PB_PRIV]) +
        pb(release),
    }
    for name, b in seeds.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(b)


# the handles fuzz_events.c's device gives its subscription in a fresh
# process (the driver's RM handle allocator: client, then its objects)
EV_HCLIENT, EV_HEVENT = 0xc1d00001, 0xcaf00004


def events_seeds(build, d):
    layout = json.load(open(os.path.join(build, 'firmware', 'abi',
                                         'gspabi_layout.json')))
    hdr = open(os.path.join(build, 'firmware', 'abi', 'gspabi.h')).read()
    k = {m.group(1): int(m.group(2), 0) for m in re.finditer(
        r'#define GSPABI_K_(\w+) (0x[0-9a-f]+|\d+)', hdr)}
    v = [x for x in layout['versions'] if x['tag'] == '535.113.01'][0]
    recs = {r['want']: r for r in v['records']}

    def image(want, **vals):
        r = recs[want]
        b = bytearray(r['size'])
        for f in r['fields']:
            if f['path'] in vals:
                val = vals[f['path']]
                if isinstance(val, bytes):
                    b[f['offset']:f['offset'] + len(val)] = val
                else:
                    b[f['offset']:f['offset'] + f['size']] = \
                        val.to_bytes(f['size'], 'little')
        return bytes(b)

    def msg(event, payload):
        sel = k['EVENT_' + event] - 0x1000
        assert 0 <= sel < 0x20
        return bytes([sel]) + struct.pack('<H', len(payload)) + payload

    def raw(function, payload):
        return bytes([0x40]) + struct.pack('<IH', function,
                                           len(payload)) + payload

    post = 'rpc_post_event_v17_00'
    rc = image('rpc_rc_triggered_v17_02', chid=0, scope=1,
               exceptType=k['RC_ERROR_FIFO_ERROR_MMU_ERR_FLT'])
    log = image('rpc_os_error_log_v17_00', chid=0,
                exceptType=k['RC_ERROR_FIFO_ERROR_MMU_ERR_FLT'],
                errString=b'Xid 31: channel 0')
    seeds = {
        'post-thermal': msg('POST_EVENT', image(
            post, hClient=EV_HCLIENT, hEvent=EV_HEVENT,
            notifyIndex=k['NVL2080_NOTIFIERS_THERMAL_SLOWDOWN'])),
        'post-power-cap': msg('POST_EVENT', image(
            post, hClient=EV_HCLIENT, hEvent=EV_HEVENT,
            notifyIndex=k['NVL2080_NOTIFIERS_POWER_CAP'])),
        'post-other-event': msg('POST_EVENT', image(
            post, hClient=EV_HCLIENT, hEvent=EV_HEVENT + 1,
            notifyIndex=k['NVL2080_NOTIFIERS_THERMAL_SLOWDOWN'])),
        'post-short': msg('POST_EVENT', image(
            post, hClient=EV_HCLIENT, hEvent=EV_HEVENT)[:-1]),
        'rc-triggered': msg('OS_ERROR_LOG', log) + msg('RC_TRIGGERED', rc),
        'rc-triggered-short': msg('RC_TRIGGERED', rc[:-1]),
        'os-error-log-no-nul': msg('OS_ERROR_LOG', image(
            'rpc_os_error_log_v17_00', errString=b'A' * 256)),
        'mmu-fault-queued': msg('MMU_FAULT_QUEUED', b''),
        'mmu-fault-storm': msg('MMU_FAULT_QUEUED', b'') * 16,
        'init-done-again': msg('GSP_INIT_DONE', b''),
        'sequencer-after-boot': msg('GSP_RUN_CPU_SEQUENCER',
                                    image('rpc_run_cpu_sequencer_v17_00')),
        'unclaimed-replies': raw(k['FUNCTION_NOP'], b'') +
        raw(k['FUNCTION_GSP_RM_CONTROL'], bytes(64)),
    }
    os.makedirs(d, exist_ok=True)
    for name, b in seeds.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(b)


def itree_seeds(d):
    def rec(op, slot, start, length, qlen):
        return bytes([op | (slot >> 8 & 3) << 4, slot & 255,
                      start & 255, start >> 8 & 255, start >> 16 & 255,
                      length & 255, length >> 8 & 255,
                      qlen & 255, qlen >> 8 & 255])

    os.makedirs(d, exist_ok=True)
    for n in range(4):
        rng = __import__('random').Random(1900 + n)
        out = b''
        for _ in range(120 + 60 * n):
            kind = rng.choice('iiirrdt')
            slot = rng.randrange(1024)
            start = rng.randrange(1 << 24)
            length = rng.choice([0, 3, 63, 4095, rng.randrange(1 << 16)])
            if kind == 'i':  # want 1 + qlen % 128, step qlen >> 8
                step = rng.choice([0, 1, 16, 64,
                                   rng.randrange(256)])
                out += rec(2, slot, start, length,
                           rng.randrange(128) | step << 8)
            elif kind in 'rd':  # every 1 + (qlen >> 8 & 3)-th entry
                op = 4 if kind == 'r' else 6
                out += rec(op, slot, rng.randrange(1 << 24), length,
                           rng.randrange(128) | rng.randrange(4) << 8)
            else:
                out += rec(1, slot, start, length, rng.randrange(1 << 16))
        with open(os.path.join(d, 'seed-runs-%d' % n), 'wb') as f:
            f.write(out)


if len(sys.argv) == 3 and sys.argv[1] == 'itree':
    itree_seeds(os.path.join(sys.argv[2], 'itree'))
elif len(sys.argv) == 4 and sys.argv[1] == 'pushbuf':
    pushbuf_seeds(sys.argv[2], os.path.join(sys.argv[3], 'pushbuf'))
elif len(sys.argv) == 4 and sys.argv[1] == 'events':
    events_seeds(sys.argv[2], os.path.join(sys.argv[3], 'gsp_events'))
else:
    main()
