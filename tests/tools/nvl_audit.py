#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: nvl as a careless user, a script and a terminal use it (session 16
audit12), TAP.

Each check is a bug the audit found (docs/tools.md's promises):
- a value that names nothing ("--devices ,", "-i ,", "--path ''",
  "-d ''") is a usage error, not the default nor an empty report;
- --query-compute-apps with --json is refused, not answered in CSV;
- nvl top -J: the device's "clients" figure is null while no client has a
  rate (the first sample), not 0;
- nvl top on a terminal that curses cannot drive (TERM unset, unknown or
  dumb) prints lines, as off a terminal, instead of ncurses' "Error
  opening terminal" and exit 1;
- nvl dis --hex: a negative or over-64-bit word is an error, not a word
  strtoull() made up;
- README's examples run and print what README shows.

usage: nvl_audit.py NVL README
"""
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from tap import check, finish

NVL = os.path.abspath(sys.argv[1])
README = os.path.abspath(sys.argv[2])


def env_without(*names, **extra):
    e = dict(os.environ)
    e.pop("NVL_DEVICES", None)
    for n in names:
        e.pop(n, None)
    e.update(extra)
    return e


def run(*args, stdin=None, env=None):
    p = subprocess.run([NVL, *args], capture_output=True, text=True,
                       timeout=240, input=stdin,
                       env=env or env_without())
    return p.returncode, p.stdout, p.stderr


# ---- values that name nothing ---------------------------------------------

rc, out, err = run("smi", "--devices", ",", "-L")
check("smi --devices ',': usage error, no report",
      rc == 2 and "missing its value" in err and out == "", (rc, out, err))
rc, out, err = run("smi", "-L", env=env_without(NVL_DEVICES=","))
check("smi with NVL_DEVICES=',': error, no report",
      rc == 1 and "names no device" in err and out == "", (rc, out, err))
rc, out, err = run("smi", "--devices", "model:tiny", "-i", ",", "-L")
check("smi -i ',': no GPU named is 'No devices were found', exit 6",
      rc == 6 and out == "No devices were found\n", (rc, out, err))
rc, out, err = run("smi", "--devices", "model:tiny", "--run", "copy:1",
                   "--query-compute-apps=pid,name", "--json")
check("smi --query-compute-apps with --json: exit 2, no CSV",
      rc == 2 and out == "" and "Invalid combination" in err,
      (rc, out, err))
# two reports at once: an invalid combination, not "the last one wins"
for args in (["-L", "-q"], ["-q", "--query-gpu=name", "--format=csv"],
             ["--query-gpu=name", "--query-compute-apps=pid",
              "--format=csv"], ["--help-query-gpu", "-L"]):
    rc, out, err = run("smi", "--devices", "model:tiny", *args)
    check(f"smi {' '.join(args)}: invalid combination, exit 2",
          rc == 2 and out == "" and "Invalid combination" in err,
          (rc, out[:200], err))
for devs in ("", ","):
    rc, out, err = run("top", "--devices", devs, "-n", "1", "-J")
    check(f"top --devices '{devs}': usage error",
          rc == 2 and "names no device" in err and out == "",
          (rc, out[:200], err))
for args in (["list", "--chip="], ["list", "--path", ""],
             ["list", "--versions="], ["needed", "--versions", ""],
             ["needed", "--path="]):
    rc, out, err = run("fw", *args)
    check(f"fw {' '.join(args)}: empty value is a usage error",
          rc == 2 and "needs a value" in err and out == "", (rc, out, err))
for args in (["run", "-d", "", "fault"], ["run", "--chip", "", "fault"],
             ["run", "-r", "", "fault"], ["trace", "-d", ""],
             ["trace", "--rpc", ""], ["trace", "--firmware", ""],
             ["trace", "--read", ""], ["demo", "--firmware", ""]):
    rc, out, err = run(*args)
    check(f"{' '.join(repr(a) if not a else a for a in args)}: "
          "usage error before any device", rc == 2 and out == "",
          (rc, out[:300], err))

# a power limit the board refuses: say which value and the range, not
# "cannot open the device: ... NV_ERR_OUT_OF_RANGE"
rc, out, err = run("run", "fault", "--power-limit", "0.5", "-s", "0.1",
                   "--chip", "tiny")
check("run --power-limit 0.5: names the value and the board's range",
      rc == 1 and "--power-limit 0.50 W is outside the board's" in err
      and "cannot open model:tiny:" not in err, (rc, err))

# ---- nvl fw: the firmware a chip boots is the one a device boots ----------

# tiny (tu102's and ga102's entry too), ad102 (its profile said 570.144
# only) and gh100 (570.144 only): each entry of the driver's table
CHIPS = ("tiny", "ad102", "gh100")
e = env_without("NVL_FW_VERSION")
rc, out, err = run("smi", "--devices", ",".join("model:" + c for c in CHIPS),
                   "--query-gpu=gsp.firmware_version",
                   "--format=csv,noheader", env=e)
booted = out.split()
check("smi: every model chip boots", rc == 0 and len(booted) == len(CHIPS),
      (rc, out, err))
rc, out, err = run("fw", "needed", *[a for c in CHIPS for a in ("--chip", c)],
                   env=e)
rows = dict(re.findall(r"^(\w+)\s+(\d[\d.]+)", out.split("files:")[0], re.M))
for chip, ver in zip(CHIPS, booted):
    check(f"fw needed --chip {chip}: carries {ver}, the version a device "
          "boots", rc == 0 and rows.get(chip) == ver and
          re.search(rf"nvidia/{chip}/gsp/gsp-{re.escape(ver)}\.bin", out),
          (rc, rows.get(chip), ver, err))
rc, out, err = run("fw", "list", "--chip", "ad102", env=e)
check("fw list --chip ad102: boots what a device boots",
      rc == 0 and re.search(rf"^\s+ad102\s+\S+\s+\S+\s+"
                            rf"{re.escape(booted[1])}\s", out, re.M),
      (rc, out[-300:], err))

# ---- nvl bench --list --json: JSON lines, as --json says ------------------

rc, out, err = run("bench", "--list", "--json", "base")
try:
    objs = [json.loads(l) for l in out.splitlines()]
    ok = rc == 0 and objs and all(o.get("bench") == "base" and o.get("name")
                                  for o in objs)
except ValueError:
    ok = False
check("bench --list --json: one JSON object per benchmark", ok,
      (rc, out[:200], err))

# ---- nvl top -J: no rate is null ------------------------------------------

rc, out, err = run("top", "--devices", "model:tiny", "-J", "-n", "2", "-d",
                   "0.3", "--run", "copy:2")
try:
    objs = [json.loads(l) for l in out.splitlines()]
    u = [o["devices"][0]["utilization"]["clients"] for o in objs]
    n = [len(o["devices"][0]["clients"]) for o in objs]
    check("top -J: clients' sum null on the first sample, a number next",
          rc == 0 and len(objs) == 2 and n[0] == 2 and u[0] is None
          and isinstance(u[1], float) and u[1] >= 0, (rc, u, n, err))
except (ValueError, KeyError, IndexError) as e:
    check("top -J parses", False, f"{e}: {out[:300]} {err}")

# ---- nvl top on a terminal curses cannot drive ------------------------------


def on_pty(args, env):
    """Run nvl with a pty as stdin and stdout; (exit status, output)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([NVL, *args], stdin=slave, stdout=slave,
                         stderr=slave, env=env, close_fds=True)
    os.close(slave)
    buf = b""
    end = time.time() + 180
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 1)
        if r:
            try:
                d = os.read(master, 65536)
            except OSError:
                break
            if not d:
                break
            buf += d
        elif p.poll() is not None:
            break
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "timeout"
    os.close(master)
    return rc, buf.decode(errors="replace")


for term in (None, "nosuchterminal", "dumb"):
    e = env_without("TERM")
    if term:
        e["TERM"] = term
    rc, out = on_pty(["top", "--devices", "model:tiny", "-n", "2", "-d",
                      "0.2"], e)
    check(f"top on a terminal with TERM={term}: lines, exit 0",
          rc == 0 and out.count("GPU 0 ") == 2 and "\x1b[" not in out
          and "Error opening terminal" not in out, (rc, out[-600:]))

# ---- nvl dis --hex: words strtoull() makes up --------------------------------

rc, hexw, err = run("asm", stdin="EXIT ;\n")
lo, hi = hexw.split()
neg = "-0x%x %s\n" % ((1 << 64) - int(lo, 16), hi)
rc, out, err = run("dis", "--hex", stdin=neg)
check("dis --hex: a negative word (2^64 - EXIT's) is refused",
      rc == 1 and out == "" and "not a hex word" in err, (rc, out, err))
rc, out, err = run("dis", "--hex", stdin="0x1%s %s\n" % (lo[2:], hi))
check("dis --hex: a word of more than 64 bits is refused",
      rc == 1 and out == "" and "more than 64 bits" in err, (rc, out, err))

# ---- README's examples ----------------------------------------------------------

with open(README) as f:
    readme = f.read()
ex = re.search(r"A few examples:\n\n```\n(.*?)```", readme, re.S)
lines = ex.group(1).splitlines() if ex else []
path = os.path.dirname(NVL) + os.pathsep + os.environ.get("PATH", "")
for i, l in enumerate(lines):
    if not l.startswith("$ ") or not re.search(r"nvl (asm|smi --query)", l):
        continue
    cmd = re.sub(r"\s+#.*$", "", l[2:])
    shown = []
    for o in lines[i + 1:]:
        if o.startswith("$ "):
            break
        shown.append(o)
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd],
                       capture_output=True, text=True, timeout=240,
                       env=env_without(PATH=path))
    got = p.stdout.splitlines()
    ok = p.returncode == 0 and got
    if shown:
        # what README shows, numbers aside (temperatures and power move)
        ok = ok and [re.sub(r"\d+", "#", s) for s in shown] == \
            [re.sub(r"\d+", "#", g) for g in got]
    check(f"README example runs as shown: {cmd}", ok,
          (p.returncode, shown, got, p.stderr[-300:]))
check("README's examples found", any("nvl asm" in l for l in lines))

finish(40)
