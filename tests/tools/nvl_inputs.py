#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: nvl's inputs as a careless user gives them (session 14 audit), TAP.

Each check is a bug the audit found: a bad input must give a message on
stderr and a non-zero exit status, never a silent success.

usage: nvl_inputs.py NVL
"""
import os
import subprocess
import sys
import tempfile
from tap import check, finish

NVL = os.path.abspath(sys.argv[1])


def run(*args, stdin=None):
    p = subprocess.run([NVL, *args], capture_output=True, text=True,
                       timeout=120, input=stdin)
    return p.returncode, p.stdout, p.stderr


tmp = tempfile.mkdtemp(prefix="nvl-inputs-")
sass = os.path.join(tmp, "k.sass")
with open(sass, "w") as f:
    f.write("EXIT ;\n")

# asm/dis: a directory (a read error) is not an empty program.
for cmd in ("asm", "dis"):
    rc, out, err = run(cmd, tmp)
    check(f"{cmd}-directory-exit-1", rc == 1 and "cannot read" in err
          and not out, (rc, out, err))

# asm -o: a full disk is a write error, not a success.
if os.path.exists("/dev/full"):
    rc, out, err = run("asm", "-o", "/dev/full", sass)
    check("asm-output-full-exit-1", rc == 1 and "cannot write" in err,
          (rc, err))

# asm/dis --base: not a number is a usage error, not address 0.
for cmd in ("asm", "dis"):
    for bad in ("xyz", "0x10zz", ""):
        rc, out, err = run(cmd, "--base", bad, sass)
        check(f"{cmd}-base-{bad or 'empty'}-exit-2",
              rc == 2 and "--base" in err and not out, (rc, out, err))

# fw list --chip: a chip that does not exist is an error, as in fw needed.
for cmd in ("list", "needed"):
    rc, out, err = run("fw", cmd, "--chip", "nosuchchip")
    check(f"fw-{cmd}-unknown-chip-exit-1",
          rc == 1 and "unknown chip 'nosuchchip'" in err, (rc, err))
# fw needed --chip: an unknown chip is refused before anything is printed
# (no table header on stdout ahead of the error), also among known ones.
for chips in (["nosuch"], ["tu102", "nosuch"]):
    args = [a for c in chips for a in ("--chip", c)]
    rc, out, err = run("fw", "needed", *args)
    check(f"fw-needed-{'-'.join(chips)}-no-output",
          rc == 1 and "unknown chip 'nosuch'" in err and out == "",
          (rc, out, err))
rc, out, err = run("fw", "list", "--chip", "tu102")
check("fw-list-known-chip-exit-0", rc == 0 and "tu102" in out, (rc, err))

# smi --query-gpu with only commas or blanks: no field is an unknown
# field (nvidia-smi's message on stdout, exit 2), not blank lines and 0.
for q, qn in ((",,", "commas"), (",", "comma"), (" , ", "blanks")):
    for opt in ("--query-gpu", "--query-compute-apps"):
        rc, out, err = run("smi", f"{opt}={q}", "--format=csv")
        check(f"smi-{opt[2:]}-{qn}-exit-2",
              rc == 2 and "is not a valid field to query" in out,
              (rc, out, err))

# bench: a NAME that matches nothing is an error even next to one that
# matches (a typo must not silently run only the others).
for names in (["nosuchbench"], ["base", "nosuchbench"], ["zz*", "base"]):
    rc, out, err = run("bench", "--list", *names)
    bad = [n for n in names if n != "base"][0]
    check(f"bench-{'-'.join(names)}-exit-2",
          rc == 2 and f"no benchmark matches '{bad}'" in err, (rc, err))
rc, out, err = run("bench", "--list", "base", "itree*")
check("bench-list-base-exit-0", rc == 0 and "base itree" in out, (rc, err))

# trace --read DIR: a read error, not "not an nvl trace capture".
rc, out, err = run("trace", "--read", tmp)
check("trace-read-directory-exit-1",
      rc == 1 and "cannot read" in err and "Is a directory" in err,
      (rc, err))

# stdout on a full disk: every command fails (exit 1, the reason on
# stderr) instead of exiting 0 with its report lost.
if os.path.exists("/dev/full"):
    for args in (["smi", "--query-gpu=name", "--format=csv"], ["smi", "-q"],
                 ["fw", "list"], ["bench", "--list"], ["--version"],
                 ["help", "asm"], ["asm", sass]):
        with open("/dev/full", "w") as full:
            p = subprocess.run([NVL, *args], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=120)
        check(f"full-disk-{'-'.join(a for a in args if a != sass)}-exit-1",
              p.returncode == 1 and "error: cannot write the output" in p.stderr,
              (p.returncode, p.stderr))

# smi -i "$GPU" with GPU unset: a missing value, not every GPU.
for args in (["-i", ""], ["--id="], ["--id", ""], ["--format=", "-L"],
             ["-d", "", "-q"], ["--devices="]):
    rc, out, err = run("smi", *args)
    check(f"smi-{'-'.join(a for a in args if a)}-empty-value-exit-2",
          rc == 2 and "is missing its value" in err and not out,
          (rc, out[:200], err))

# a loop (smi -lms, top) on a full disk stops at its first report instead
# of writing into the void until Ctrl+C.
if os.path.exists("/dev/full"):
    for args in (["smi", "-lms", "100", "--query-gpu=index", "--format=csv"],
                 ["smi", "-lms", "100"], ["top", "-d", "0.1", "-J"],
                 ["top", "-d", "0.1"]):
        with open("/dev/full", "w") as full:
            try:
                p = subprocess.run([NVL, *args], stdout=full,
                                   stderr=subprocess.PIPE, text=True,
                                   timeout=30)
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                rc, err = "timeout", ""
        check(f"full-disk-loop-{'-'.join(args[:2])}-{len(args)}-exit-1",
              rc == 1 and "error: cannot write the output" in err, (rc, err))

# --run with a workload that does not exist: a usage error (exit 2) before
# any device is opened, not a failure (exit 1) after a boot.
for cmd in ("top", "smi"):
    for w in ("nosuch", "copy:", "copy:0", "copy:9", "busy:100", "busyx",
              "copy:-1", "copy:2x", "copyfoo:3"):
        rc, out, err = run(cmd, "--run", w)
        check(f"{cmd}-run-{w}-exit-2",
              rc == 2 and f"unknown workload '{w}'" in err, (rc, err))
rc, out, err = run("top", "-n", "1", "-J", "--run", "copy:1")
check("top-run-copy-1-exit-0", rc == 0 and out.startswith("{"), (rc, err))

# dis --hex: a word that is not hex ends in an error, not a silent cut.
rc, hexw, err = run("asm", sass)
rc, out, err = run("dis", "--hex", stdin=hexw + "zz\n" + hexw)
check("dis-hex-garbage-exit-1", rc == 1 and "not a hex word" in err
      and not out, (rc, out, err))
rc, out, err = run("dis", "--hex", stdin=hexw + hexw)
check("dis-hex-two-exit-0", rc == 0 and out.count("EXIT") == 2, (rc, err))

finish()
