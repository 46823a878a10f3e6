#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: `nvl fw` list, info, verify and needed (TAP).

Files are laid out like linux-firmware's (nvidia/<chip>/gsp/<name>-<ver>.bin,
directory and file symlinks as in WHENCE) and built here with NVIDIA's
structure, independently of the C code: gsp ELF64 images with .fwimage,
.fwversion and 4 KiB .fwsignature_<family> sections; booters with the
nvfw_bin_hdr (magic 0x10de), the HS header v2 at 0x18, the load header v2
at 0x354 and the payload at 0x378 (ga102's booter_load layout); bootloaders
with the 84-byte RM_RISCV_UCODE_DESC. The build's own signed images are
used for verify.

usage: nvl_fw.py NVL BUILD_FIRMWARE_DIR
"""
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from tap import check, finish

NVL, BUILD_FW = sys.argv[1], sys.argv[2]


def run(*args):
    p = subprocess.run([NVL, "fw", *args], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def elf(version, image_size, families):
    """ELF64 LE: [1].fwimage [2].fwversion [3..] sigs, last .shstrtab."""
    secs = [(".fwimage", bytes([0x5a]) * image_size),
            (".fwversion", version.encode() + b"\0")]
    secs += [(".fwsignature_" + f, bytes([0x10 + i]) * 4096)
             for i, f in enumerate(families)]
    names = b"\0" + b"".join(n.encode() + b"\0" for n, _ in secs) + \
        b".shstrtab\0"
    secs.append((".shstrtab", names))
    body, offs, off = b"", [], 64
    for _, data in secs:
        pad = (-off) % 256
        body += b"\0" * pad
        off += pad
        offs.append(off)
        body += data
        off += len(data)
    shoff = off + (-off) % 8
    body += b"\0" * (shoff - off)
    shnum = len(secs) + 1
    eh = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9
    eh += struct.pack("<HHIQQQIHHHHHH", 2, 243, 1, 0, 0, shoff, 0, 64, 0,
                      0, 64, shnum, shnum - 1)
    sh = b"\0" * 64
    name_off = 1
    for i, (n, data) in enumerate(secs):
        typ = 3 if n == ".shstrtab" else 1
        sh += struct.pack("<IIQQQQIIQQ", name_off, typ, 0, 0, offs[i],
                          len(data), 0, 0, 1, 0)
        name_off += len(n) + 1
    return eh + body + sh


def booter(payload=0x2000, num_sig=2):
    sigs = num_sig * 384
    words = 0x3c + sigs
    lhdr, data = words + 24, words + 24 + 36
    total = data + payload
    f = struct.pack("<6I", 0x10de, 1, (total + 255) & ~255, 0x18, data,
                    payload)
    f += struct.pack("<9I", 0x3c, sigs, words, words + 4, words + 8, 12,
                     words + 20, lhdr, 36)
    f += b"".join(bytes([0xa0 + i]) * 384 for i in range(num_sig))
    f += struct.pack("<6I", 0x1000, 0, 3, 7, 1, num_sig)
    f += struct.pack("<9I", 0, 0x100, 0x1000, 0x800, 2, 0x100, 0xf00,
                     0x1800, 0x100)
    return f + bytes(i * 7 & 0xff for i in range(payload))


def bootloader():
    desc = [1, 0, 0x800, 0x800, 0x100, 0x1000, 0x2000, 53511301, 0x3c00,
            0x400, 0x3000, 0xc00, 0x1000, 0x2000, 1, 0, 0, 0, 0, 0x100000, 0]
    total = 24 + 84 + 0x4000
    return struct.pack("<6I", 0x10de, 1, (total + 255) & ~255, 24, 108,
                       0x4000) + struct.pack("<21I", *desc) + b"\0" * 0x4000


GA10X = ["cc_gh100", "gh100", "ad10x", "ga10x"]


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def tree_set(root, chip, ver, image=None):
    d = os.path.join(root, "nvidia", chip, "gsp")
    if image is not None:
        write(os.path.join(d, f"gsp-{ver}.bin"), image)
    write(os.path.join(d, f"booter_load-{ver}.bin"), booter())
    write(os.path.join(d, f"booter_unload-{ver}.bin"), booter(0x1800))
    write(os.path.join(d, f"bootloader-{ver}.bin"), bootloader())
    return d


tmp = tempfile.mkdtemp(prefix="nvl-fw-test-")
try:
    # --- info on NVIDIA-structured files --------------------------------
    img = elf("535.113.01", 0x24000, GA10X)
    root = os.path.join(tmp, "lf")
    d = tree_set(root, "ga102", "535.113.01", img)
    gsp = os.path.join(d, "gsp-535.113.01.bin")
    rc, out, err = run("info", gsp)
    check("info-elf", rc == 0 and "version:    535.113.01" in out and
          ".fwsignature_ga10x" in out and "signatures: 4:" in out and
          "manifest:   none" in out and "0x24000" in out, out + err)
    rc, out, err = run("info", os.path.join(d, "booter_load-535.113.01.bin"))
    check("info-booter-ga102-layout", rc == 0 and
          "HS header v2 at 0x18" in out and "load header 0x354+0x24" in out
          and "data_offset 0x378" in out and "num_sig @0x350 = 2" in out and
          "fuse_ver 3 engine_id 0x7 ucode_id 0x1" in out, out + err)
    rc, out, err = run("info", os.path.join(d, "bootloader-535.113.01.bin"))
    check("info-bootloader", rc == 0 and "appVersion 53511301" in out and
          "monitorCode 0x1000+0x2000" in out and
          "manifest 0x3c00+0x400" in out, out + err)
    xz = os.path.join(tmp, "gsp-535.113.01.bin.xz")
    write(xz, lzma.compress(img, check=lzma.CHECK_CRC32))
    rc, out, err = run("info", xz)
    check("info-xz", rc == 0 and "GSP ELF image, xz" in out, out + err)
    if shutil.which("zstd"):
        zst = gsp + ".zst"
        subprocess.run(["zstd", "-q", "-f", gsp, "-o", zst], check=True)
        rc, out, err = run("info", zst)
        check("info-zst", rc == 0 and "GSP ELF image, zstd" in out,
              out + err)
        os.unlink(zst)

    # --- malformed files ------------------------------------------------
    bad = os.path.join(tmp, "gsp-cut.bin")
    write(bad, img[: len(img) // 2])
    rc, out, err = run("info", bad)
    check("info-truncated-elf", rc == 1 and "section header table" in err,
          err)
    b = bytearray(booter())
    struct.pack_into("<I", b, 0x354 + 16, 9)  # num_apps 9
    badb = os.path.join(tmp, "booter_load-bad.bin")
    write(badb, bytes(b))
    rc, out, err = run("verify", badb)
    check("verify-bad-booter", rc == 1 and "num_apps 9" in err and
          "structure: BAD" in out, out + err)
    rc, out, err = run("info", os.path.join(tmp, "missing.bin"))
    check("info-missing-file", rc == 1 and "missing.bin" in err, err)

    # --- verify ---------------------------------------------------------
    rc, out, err = run("verify", gsp)
    check("verify-nvidia-structure", rc == 0 and
          "not a nouvelle image" in out and out.strip().endswith("OK"),
          out + err)
    ours = os.path.join(BUILD_FW, "nvidia", "tu102", "gsp",
                        "gsp-535.113.01.bin")
    rc, out, err = run("verify", ours)
    check("verify-ours-good", rc == 0 and "signature tu10x: good" in out and
          "signature tu11x: good" in out and
          "payload SHA-256: good" in out, out + err)
    with open(ours, "rb") as f:
        data = bytearray(f.read())
    data[0x1000 + 0x800000] ^= 1  # one bit in the .fwimage payload
    tampered = os.path.join(tmp, "gsp-535.113.01.bin")
    write(tampered, bytes(data))
    del data
    rc, out, err = run("verify", tampered)
    check("verify-ours-tampered", rc == 1 and
          "signature tu10x: BAD" in out and "SHA-256 mismatch" in out,
          out + err)
    os.unlink(tampered)

    # --- needed: dedup by content, fallbacks ----------------------------
    nroot = os.path.join(tmp, "needed")
    img570 = elf("570.144", 0x30000, GA10X)
    tree_set(nroot, "ga102", "570.144", img570)
    tree_set(nroot, "ga102", "535.113.01", img)
    os.makedirs(os.path.join(nroot, "nvidia", "ga104"))
    os.symlink("../ga102/gsp", os.path.join(nroot, "nvidia", "ga104", "gsp"))
    d = tree_set(nroot, "ad102", "570.144")
    os.symlink("../../ga102/gsp/gsp-570.144.bin",
               os.path.join(d, "gsp-570.144.bin"))
    d = tree_set(nroot, "ad104", "570.144", img570)  # identical copy
    args = ["needed", "--path", nroot, "--chip", "ga102", "--chip", "ga104",
            "--chip", "ad102", "--chip", "ad104",
            "--versions", "535.113.01,570.144"]
    rc, out, err = run(*args)
    # 16 paths; ga104's are ga102's through the directory link (4 dups),
    # ad102's image is a link, ad104's an identical copy; the booters and
    # bootloaders of one chip family are byte-identical here too.
    check("needed-chosen", rc == 0 and "ga102  570.144" in out and
          "535.113.01 (not carried)" in out, out + err)
    check("needed-dedup", "total: 16 files, 4 distinct blobs" in out and
          "(symlink)" in out and "(identical copy)" in out, out)
    check("needed-minimal", "gsp-535.113.01" not in out.split("files:")[1],
          out)
    rc, out, err = run(*args, "--fallbacks")
    check("needed-fallbacks", rc == 0 and "535.113.01 (carried)" in out and
          "gsp-535.113.01.bin" in out, out + err)
    rc, out, err = run("needed", "--path", nroot, "--chip", "tu102",
                       "--versions", "999.1")
    check("needed-missing", rc == 1 and
          os.path.join(nroot, "nvidia/tu102/gsp/gsp-999.1.bin.xz") in err and
          "/nvidia/tu102/gsp/gsp-999.1.bin.zst" in err, err)

    # --- list -----------------------------------------------------------
    rc, out, err = run("list", "--path", nroot, "--chip", "ga104",
                       "--versions", "535.113.01,570.144")
    check("list", rc == 0 and "ga104  (gsp/ -> ../ga102/gsp)" in out and
          "535.113.01 570.144" in out and "570.144(link)" in out and
          "ga104  ga10x" in out and "plain" in out, out + err)

    # --- usage ----------------------------------------------------------
    rc, out, err = run("--help")
    check("help", rc == 0 and "Examples:" in out and "needed" in out, err)
    rc, out, err = run("needed", "--bogus")
    check("usage-error", rc == 2 and "unknown option" in err, err)
    rc, out, err = run("frobnicate")
    check("unknown-subcommand", rc == 2, err)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

finish(detail_lines=40)
