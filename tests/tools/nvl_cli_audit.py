#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: nvl against hostile inputs and failing outputs (session 20
audit, auditcli), TAP.

Each check is a bug the audit found (docs/tools.md's promises: a bad input
is a message and a non-zero exit, never a hang, a partial file or a made-up
value):
- nvl plot of a recording whose times or values are so large that a tick
  step is below their precision drew ticks forever;
- an output file that cannot be written whole (asm -o, trace --record,
  plot -o) was left cut short;
- smi -d ',' (no section) was every section; smi -i of a negative index
  that strtoul() wraps chose a GPU; -L/-q with --json printed JSON; the
  129th --query-gpu field was "not a valid field";
- asm/dis --base ' -16' was 2^64 - 16; trace --client 010 was client 8
  and --client 08 not a number (octal); top -n of 20 digits ran until
  interrupted; nine --devices booted eight before the error;
- a capture's chip or firmware field, or a firmware file's section name,
  went to the terminal with its control bytes (escape sequences, new
  lines that forge output lines).

usage: nvl_cli_audit.py NVL
"""
import json
import os
import resource
import signal
import struct
import subprocess
import sys
import tempfile
from tap import check, finish

NVL = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="nvl-cli-audit-")
UMASK = os.umask(0o022)
os.umask(UMASK)


def env():
    e = dict(os.environ)
    e.pop("NVL_DEVICES", None)
    return e


def run(*args, timeout=120, fsize=None):
    """nvl ARGS; @fsize: a file-size limit in bytes (RLIMIT_FSIZE, SIGXFSZ
    ignored), so a write past it fails with EFBIG as on a full disk."""
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    try:
        p = subprocess.run([NVL, *args], capture_output=True, timeout=timeout,
                           env=env(), preexec_fn=limit if fsize else None)
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    return (p.returncode, p.stdout.decode(errors="replace"),
            p.stderr.decode(errors="replace"))


def path(name):
    return os.path.join(tmp, name)


# ---- nvl plot: extreme but valid recordings end ---------------------------

UNITS = {"t": "s", "temp": "C", "power": "W", "power_limit": "W",
         "gr_clock": "MHz", "mem_clock": "MHz", "busy": "%", "vram": "MiB",
         "gtt": "MiB"}


def recording(name, samples):
    with open(path(name), "w") as f:
        f.write(json.dumps({"nvl_record": 1, "units": UNITS, "devices": [
            {"id": 0, "name": "x", "engines": ["ce0"]}]}) + "\n")
        for t, temp in samples:
            f.write(json.dumps({"t": t, "devices": [{"id": 0, "temp": temp}]})
                    + "\n")
    return path(name)


# x: 1e17 s and 16 s later (a step of 2 s does not move 1e17); y: 2^60 C
# and 256 more (a step of 100 does not move 2^60)
for name, samples in (("t-1e17", [(1e17, 40), (1e17 + 16, 41)]),
                      ("temp-2^60", [(0, 2.0**60), (1, 2.0**60 + 256)])):
    rec = recording(name + ".jsonl", samples)
    rc, out, err = run("plot", rec, "-o", path(name + ".png"), timeout=60)
    check(f"plot {name}: drawn, not ticks forever",
          rc == 0 and os.path.getsize(path(name + ".png")) > 0, (rc, err))

# ---- output files: whole or not at all -----------------------------------

sass = path("k.sass")
with open(sass, "w") as f:
    f.write("EXIT ;\n" * 400)  # 6400 bytes assembled
rec = recording("one.jsonl", [(0, 40), (1, 41)])
# a file-size limit of 4 KiB: each output is larger, so its write fails
# part way, as on a full disk; the file that was there stays as it was
for what, args, out in (
        ("asm -o", ["asm", sass, "-o"], "prog.bin"),
        ("trace --record", ["trace", "--jobs", "0", "-q", "--record"],
         "run.nvltrace"),
        ("plot -o PNG", ["plot", rec, "-o"], "plot.png"),
        ("plot -o SVG", ["plot", rec, "-o"], "plot.svg")):
    with open(path(out), "w") as f:
        f.write("old\n")
    rc, _, err = run(*args, path(out), fsize=4096)
    with open(path(out), "rb") as f:
        kept = f.read() == b"old\n"
    left = [n for n in os.listdir(tmp) if n.startswith(out + ".")]
    check(f"{what} cut short: exit 1, the old file kept, no cut file",
          rc == 1 and kept and not left and path(out) in err,
          (rc, kept, left, err))
    os.unlink(path(out))
    rc, _, err = run(*args, path(out), fsize=4096)
    check(f"{what} cut short: no file at all",
          rc == 1 and not os.path.exists(path(out)), (rc, err))
rc, out, err = run("asm", sass, "-o", path("whole.bin"))
check("asm -o: the whole program, mode 0666 less the umask",
      rc == 0 and os.path.getsize(path("whole.bin")) == 6400 and
      os.stat(path("whole.bin")).st_mode & 0o777 == 0o666 & ~UMASK,
      (rc, err))

# ---- smi: values that name nothing, or another thing ----------------------

# smi -d ',': no section is not every section (nor the table without -q)
for args in (["-q", "-d", ","], ["-d", ",,"], ["-q", "--display=,"]):
    rc, out, err = run("smi", *args)
    check(f"smi {' '.join(args)}: missing its value, exit 2",
          rc == 2 and out == "" and "is missing its value" in err,
          (rc, out[:200], err))
# -L's list, -q's report, --help-query-gpu are not JSON
for args in (["-L"], ["-q"], ["-q", "-d", "MEMORY"], ["--help-query-gpu"]):
    rc, out, err = run("smi", *args, "--json")
    check(f"smi {' '.join(args)} --json: invalid combination, exit 2",
          rc == 2 and out == "" and "Invalid combination" in err,
          (rc, out[:200], err))
# --query-gpu of 129 fields: each is one, not 'Field "index" is not a
# valid field to query.' past the 128th
rc, out, err = run("smi", "--devices", "model:tiny", "--query-gpu=" +
                   ",".join(["index"] * 129), "--format=csv,noheader")
check("smi --query-gpu of 129 fields: 129 values",
      rc == 0 and out.strip().split(", ") == ["0"] * 129, (rc, out[:200], err))
# -i: a negative index strtoul() wraps to 1 names no GPU
rc, out, err = run("smi", "--devices", "model:tiny,model:tiny", "-i",
                   "-18446744073709551615", "-L")
check("smi -i -18446744073709551615: no GPU, exit 6",
      rc == 6 and out == "No devices were found\n", (rc, out, err))

# ---- numbers: what strtoul() makes of signs, blanks and bases -------------

# asm/dis --base: a blank then a sign is not 2^64 - 16
for cmd in ("asm", "dis"):
    for bad in (" -16", "\t-1", " +16"):
        rc, out, err = run(cmd, "--base", bad, sass)
        check(f"{cmd} --base {bad!r}: usage error",
              rc == 2 and "--base" in err and out == "", (rc, out[:100], err))

# trace --client/--channel are decimal, as the decoder prints them
cap = path("empty.nvltrace")
with open(cap, "wb") as f:
    f.write(b"NVLTRACE" + struct.pack("<II", 1, 0) + b"tu102".ljust(16, b"\0")
            + b"535.113.01".ljust(64, b"\0"))
for opt in ("--client", "--channel"):
    rc, out, err = run("trace", "--read", cap, opt, "08")
    check(f"trace {opt} 08: decimal 8", rc == 0, (rc, err))
    for bad in ("0x10", " 1", "-1"):
        rc, out, err = run("trace", "--read", cap, opt, bad)
        check(f"trace {opt} {bad!r}: usage error", rc == 2 and out == "",
              (rc, out[:100], err))

# top -n: a count strtol() cannot hold is not "until interrupted"
rc, out, err = run("top", "-n", "99999999999999999999", "-J")
check("top -n 99999999999999999999: usage error", rc == 2 and out == "",
      (rc, out[:100], err))
# nine devices are refused before any opens (the first eight booted, ~16 s
# under load, before "more than 8 devices"): model:nosuch is not reached
nine = ",".join(["model:nosuch"] + ["model"] * 8)
for cmd in ("smi", "top"):
    rc, out, err = run(cmd, "--devices", nine, *(["-L"] if cmd == "smi"
                                                 else ["-n", "1", "-J"]))
    check(f"{cmd} --devices of nine: refused before opening one",
          rc == 1 and out == "" and "more than 8 devices" in err and
          "nosuch" not in err, (rc, out[:100], err))

# ---- hostile files: no control byte reaches the terminal ------------------

# a capture whose chip or firmware version holds an escape sequence and a
# new line that forges an output line
for field, chip, fw in (("chip", b"\x1b]0;x\x07\n# 9", b"535.113.01"),
                        ("firmware", b"tu102", b"535\x1b[2J")):
    bad = path(f"esc-{field}.nvltrace")
    with open(bad, "wb") as f:
        f.write(b"NVLTRACE" + struct.pack("<II", 1, 0) +
                chip.ljust(16, b"\0") + fw.ljust(64, b"\0"))
    rc, out, err = run("trace", "--read", bad)
    check(f"trace --read: a {field} with control bytes is refused, exit 1",
          rc == 1 and out == "" and "not printable" in err and
          "\x1b" not in err, (rc, out, err))


def elf(evil):
    """A GSP ELF image that parses: .fwimage, .fwversion and a section
    named @evil (no data)."""
    names = [b"", b".shstrtab", b".fwimage", b".fwversion", evil]
    strtab, off = b"", []
    for n in names:
        off.append(len(strtab))
        strtab += n + b"\0"
    body = bytes(range(16)) + b"535.113.01".ljust(16, b"\0") + strtab
    body += bytes(-(64 + len(body)) % 8)
    shoff = 64 + len(body)
    eh = (b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) +
          struct.pack("<HHIQQQIHHHHHH", 2, 0, 1, 0, 0, shoff, 0, 64, 0, 0,
                      64, len(names), 1))

    def sh(name, typ, o, size):
        return struct.pack("<IIQQQQIIQQ", name, typ, 0, 0, o, size, 0, 0, 1,
                           0)
    return (eh + body + sh(0, 0, 0, 0) + sh(off[1], 3, 96, len(strtab)) +
            sh(off[2], 1, 64, 16) + sh(off[3], 1, 80, 16) +
            sh(off[4], 1, 0, 0))


fwf = path("evil.bin")
with open(fwf, "wb") as f:
    f.write(elf(b"\x1b[2J\n#forged"))
rc, out, err = run("fw", "info", fwf)
check("fw info: a section name's control bytes print as \\xNN",
      rc == 0 and "\x1b" not in out and "\n#forged" not in out and
      "\\x1b[2J\\x0a#forged" in out, (rc, out, err))

finish()
