#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: one message form and the documented exit codes for every nvl
command (session 21, tools2), TAP.

docs/tools.md, "Conventions": every command says what went wrong on stderr
as

    nvl CMD: error: WHAT                        exit 1 (a failure)
    nvl CMD: usage error: WHY                   exit 2 (bad usage)
    usage: nvl CMD ...
    Try 'nvl CMD --help'.

and `smi -i` naming no GPU exits 6. Before, asm/dis said `nvl: ...` or
`FILE:L:C: error: ...`, fw `nvl fw: ...`, smi nvidia-smi's bare
sentences, trace `nvl trace: ...`, bench printed its own usage, top
printed two usage errors for a bad --run; smi --format=csv without a query
and -c without a loop were silently ignored.

usage: nvl_messages.py NVL
"""
import os
import re
import subprocess
import sys
import tempfile
from tap import check, finish

NVL = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="nvl-messages-")


def env(**kw):
    e = dict(os.environ)
    for k in ("NVL_DEVICES", "FORCE_COLOR", "CLICOLOR_FORCE"):
        e.pop(k, None)
    e.update(kw)
    return e


def run(*args, stdin=None, stdout=None, **kw):
    p = subprocess.run([NVL, *args], input=stdin,
                       stdout=stdout or subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300,
                       env=env(**kw))
    return p.returncode, p.stdout or "", p.stderr


def usage(cmd, *args, stdin=None, out_too=False):
    """@args is a usage error of @cmd: exit 2, the form, nothing on stdout
    (unless @out_too: smi's nvidia-smi sentence)."""
    rc, out, err = run(*args, stdin=stdin)
    name = "nvl " + " ".join(args)
    pre = (f"nvl {cmd}: " if cmd else "nvl: ") + "usage error: "
    tryl = f"Try 'nvl {cmd} --help'.\n" if cmd else "Try 'nvl --help'.\n"
    check(f"{name}: usage error, exit 2",
          rc == 2 and err.startswith(pre) and err.endswith(tryl) and
          "\nusage: nvl" in err and (out_too or out == ""),
          (rc, out[:200], err))
    return err


def failure(cmd, *args, stdin=None, code=1, **kw):
    """@args fails: exit @code, stderr's first line is the form."""
    rc, out, err = run(*args, stdin=stdin, **kw)
    name = "nvl " + " ".join(args)
    check(f"{name}: error, exit {code}",
          rc == code and err.startswith(f"nvl {cmd}: error: ") and
          "usage error" not in err, (rc, out[:200], err))
    return out, err


# ---- a bad argument to every command: usage error, exit 2 ----------------

usage(None, "no-such-command")
for cmd in ("demo", "bench", "fw list", "asm", "dis", "plot", "run", "smi",
            "top", "trace", "help"):
    words = cmd.split()
    err = usage(words[0], *words, "--no-such-option")
    check(f"nvl {cmd}: the bad option is named",
          "--no-such-option" in err.splitlines()[0], err)
usage("fw", "fw", "no-such-subcommand")
usage("bench", "bench", "no_such_benchmark")
usage("asm", "asm", "a.s", "b.s")
usage("asm", "asm", "--arch", "sm1")
usage("asm", "asm", "--hex")          # dis's option: it changed nothing
usage("dis", "dis", "-o", "x.bin")    # asm's option
usage("asm", "asm", "-o")             # a missing value, named
usage("plot", "plot")
usage("run", "run", "no-such-workload")
usage("run", "run", "--seconds")
usage("smi", "smi", "-i")
usage("smi", "smi", "-L", "-q")
usage("top", "top", "-n", "x")
usage("top", "top", "--run", "nope")  # one message, not two
usage("trace", "trace", "--client", "x")
usage("help", "help", "no-such-command")
err = usage("trace", "trace", "--jobs")
check("a missing value is named", "'--jobs' needs a value" in err, err)
err = usage("top", "top", "--run", "nope")
check("top --run nope: one usage error", err.count("usage error") == 1, err)

# smi: nvidia-smi's sentence on stdout stays (scripts read it), nvl's form
# on stderr
err = usage("smi", "smi", "--query-gpu=no.such", "--format=csv", out_too=True)
rc, out, _ = run("smi", "--query-gpu=no.such", "--format=csv")
check("smi unknown field: nvidia-smi's sentence on stdout",
      out == 'Field "no.such" is not a valid field to query.\n\n', out)

# ---- brief item 4: options that changed nothing are refused --------------

err = usage("smi", "smi", "--format=csv")
check("smi --format without a query says why", "--format" in err, err)
usage("smi", "smi", "-q", "--format=csv,noheader")
err = usage("smi", "smi", "-L", "-c", "3")
check("smi -c without a loop says why", "-l or -lms" in err, err)
usage("smi", "smi", "--count", "2")
rc, out, err = run("smi", "--devices", "model:tiny", "-L", "-lms", "50",
                   "-c", "2")
check("smi -lms 50 -c 2 -L: two lists", rc == 0 and
      len(out.splitlines()) == 2, (rc, out, err))
rc, out, err = run("smi", "--devices", "model:tiny", "--query-gpu=index",
                   "--format=csv,noheader")
check("smi --query-gpu with --format still works", rc == 0 and
      out == "0\n", (rc, out, err))

# ---- failures: error, exit 1 ---------------------------------------------

missing = os.path.join(tmp, "missing")
failure("fw", "fw", "info", missing)
failure("fw", "fw", "needed", "--chip", "nosuch")
failure("asm", "asm", missing)
_, err = failure("asm", "asm", stdin="NOSUCHOP R1 ;\n")
check("asm: a bad line is named FILE:LINE:COL",
      re.match(r"nvl asm: error: -:1:\d+: ", err), err)
failure("dis", "dis", missing)
failure("dis", "dis", stdin="x" * 15)
failure("plot", "plot", missing, "-o", os.path.join(tmp, "x.png"))
failure("trace", "trace", "--read", missing)
failure("smi", "smi", "--devices", "model:nosuchchip", "-L")
failure("top", "top", "--devices", "model:nosuchchip", "-n", "1")
failure("run", "run", "sparse", "-d", "model:nosuchchip", "-s", "0.1")
out, err = failure("smi", "smi", "--devices", "model:tiny", "-i", "7", "-L",
                   code=6)
check("smi -i 7: nvidia-smi's sentence on stdout, the GPU named on stderr",
      out == "No devices were found\n" and "'7'" in err, (out, err))
# output that does not reach stdout: the command's name
with open("/dev/full", "w") as full:
    rc, _, err = run("help", "smi", stdout=full)
check("stdout on a full disk: nvl help: error: cannot write the output",
      rc == 1 and err.startswith("nvl help: error: cannot write the output"),
      (rc, err))

# ---- brief item 6: hostile inputs ----------------------------------------

# asm's message quotes the text: its escape sequences arrive as \xNN
rc, out, err = run("asm", stdin="\x1b]0;owned\x07 R1 ;\n")
check("asm: a control byte in the text is \\xNN in the message",
      rc == 1 and "\x1b" not in err and "\x07" not in err and
      "\\x1b" in err, (rc, err))

# fw list prints a firmware tree's names: a hostile file or link name's
# control bytes as \xNN
root = os.path.join(tmp, "fwtree")
gsp = os.path.join(root, "nvidia", "tu102", "gsp")
os.makedirs(gsp)
open(os.path.join(gsp, "gsp-\x1b[2J.bin"), "w").close()
os.makedirs(os.path.join(root, "nvidia", "\x1b]0;x\x07"))
os.symlink("\x1b[31mred", os.path.join(root, "nvidia", "ga102"))
rc, out, err = run("fw", "list", "--path", root)
check("fw list: names and link targets of a hostile tree are \\xNN",
      "\x1b" not in out + err and "\x07" not in out + err and
      "\\x1b[2J" in out and "\\x1b]0;x\\x07" in out and
      "-> \\x1b[31mred" in out, (rc, out, err))

# an input that never ends is refused, not read until memory runs out
for cmd in ("asm", "dis"):
    rc, out, err = run(cmd, "/dev/zero")
    check(f"{cmd} /dev/zero: refused past 64 MiB",
          rc == 1 and err.startswith(f"nvl {cmd}: error: /dev/zero: more "
                                     "than 64 MiB"), (rc, err))
big = os.path.join(tmp, "huge.jsonl")
with open(big, "wb") as f:
    f.truncate((1 << 30) + 1)   # sparse: no disk, no read
rc, out, err = run("plot", "--list", big)
check("plot of a file over 1 GiB: refused before reading it",
      rc == 1 and "more than 1024 MiB" in err, (rc, err))

# ---- colour: "error" red on a forced-colour stderr, as nvl_tool_error ----

rc, out, err = run("asm", missing, FORCE_COLOR="1")
check("FORCE_COLOR: 'error' in red", rc == 1 and
      err.startswith("nvl asm: \x1b[1;31merror:\x1b[0m "), err)

finish()
