#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: nvl's command-line conventions (issue 17 item 7), TAP.

- every command of nvl's table (as `nvl` lists them on a usage error) has
  --help, exit 0, with "Usage:" and "Examples:", and `nvl help CMD` prints
  the same text;
- nvl.1 as the build generated it equals `nvl help --man`, renders with
  groff (-ww: all warnings) and `man -l` without a single warning, and
  documents every command;
- the bash completion script completes commands, subcommands, options
  and files;
- colour only on a terminal (a pty here), never with NO_COLOR or TERM=dumb,
  forced on a pipe by FORCE_COLOR but not against NO_COLOR;
- exit codes 0/1/2 and errors on stderr with the library's message.

usage: nvl_conventions.py NVL NVL_1 COMPLETION
"""
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
from tap import check, finish

NVL, MAN, BASH = (os.path.abspath(a) for a in sys.argv[1:4])


def run(*args, env=None):
    e = dict(os.environ)
    e.pop("FORCE_COLOR", None)
    e.pop("CLICOLOR_FORCE", None)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    p = subprocess.run([NVL, *args], capture_output=True, text=True,
                       timeout=60, env=e)
    return p.returncode, p.stdout, p.stderr


def run_pty(*args, env=None):
    """Run with stdout and stderr on a pseudo-terminal; return the bytes."""
    e = dict(os.environ)
    for k in ("FORCE_COLOR", "CLICOLOR_FORCE", "NO_COLOR"):
        e.pop(k, None)
    e["TERM"] = "xterm"
    e.update(env or {})
    master, slave = pty.openpty()
    p = subprocess.Popen([NVL, *args], stdout=slave, stderr=slave,
                         stdin=subprocess.DEVNULL, env=e)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=30), out


# --- the command table ---------------------------------------------------
rc, out, err = run("no-such-command")
check("unknown-command-exit-2", rc == 2 and "unknown command" in err, err)
cmds = re.findall(r"^  (\S+)\s", err.split("commands:")[-1], re.M)
check("command-list", len(cmds) >= 6 and "plot" in cmds, err)

for c in ["--help"] + [[c, "--help"] for c in cmds]:
    args = c if isinstance(c, list) else [c]
    rc, out, err = run(*args)
    name = " ".join(args)
    check(f"help {name}", rc == 0 and "Usage:" in out and "Examples:" in out
          and err == "", f"rc={rc} err={err!r}")
    if isinstance(c, list):
        rc2, out2, _ = run("help", c[0])
        check(f"nvl help {c[0]} == {name}", rc2 == 0 and out2 == out)

# --- man page ------------------------------------------------------------
rc, man_text, err = run("help", "--man")
with open(MAN) as f:
    built = f.read()
check("man-built-from-help", rc == 0 and built == man_text)
check("man-structure", built.count(".TH ") == 1 and ".SH NAME" in built and
      ".SH SYNOPSIS" in built and ".SH EXIT STATUS" in built)
for c in cmds:
    check(f"man-documents {c}", f".SS {c}\n" in built)
if shutil.which("groff"):
    p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", MAN],
                       capture_output=True, text=True)
    check("groff-no-warnings", p.returncode == 0 and p.stderr == "",
          p.stderr)
else:
    check("groff-no-warnings # SKIP groff not installed", True)
if shutil.which("man"):
    p = subprocess.run(["man", "-l", MAN], capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH="80", MANPAGER="cat",
                                PAGER="cat"))
    check("man-l-renders", p.returncode == 0 and p.stderr == "" and
          "EXAMPLES" in p.stdout and "nvl plot" in p.stdout, p.stderr)
else:
    check("man-l-renders # SKIP man not installed", True)

# --- bash completion -----------------------------------------------------
rc, comp_text, _ = run("help", "--bash-completion")
with open(BASH) as f:
    check("completion-built-from-help", f.read() == comp_text)


def complete(*words):
    script = (f"source '{BASH}'\n"
              f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
              f"COMP_CWORD={len(words) - 1}\n"
              "_nvl\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "run.jsonl"), "w").close()
        p = subprocess.run(["bash", "--norc", "-c", script], cwd=d,
                           capture_output=True, text=True, timeout=30)
    return p.returncode, sorted(x for x in p.stdout.split("\n") if x)


rc, got = complete("nvl", "")
check("complete-commands", rc == 0 and set(cmds) <= set(got), got)
rc, got = complete("nvl", "pl")
check("complete-command-prefix", got == ["plot"], got)
rc, got = complete("nvl", "fw", "")
check("complete-subcommands", got == ["info", "list", "needed", "verify"],
      got)
rc, got = complete("nvl", "plot", "--se")
check("complete-options", got == ["--series"], got)
rc, got = complete("nvl", "plot", "-o", "ru")
check("complete-file-after-option", got == ["run.jsonl"], got)
rc, got = complete("nvl", "plot", "r")
check("complete-file-argument", got == ["run.jsonl"], got)
p = subprocess.run(["bash", "--norc", "-c", f"source '{BASH}'; complete -p nvl"],
                   capture_output=True, text=True)
check("complete-registered", "-F _nvl nvl" in p.stdout, p.stdout)

# --- colour --------------------------------------------------------------
ESC = b"\x1b["
rc, out = run_pty("--help")
check("colour-on-terminal", rc == 0 and ESC in out, out[:80])
rc, out = run_pty("--help", env={"NO_COLOR": "1"})
check("no-colour-with-NO_COLOR", rc == 0 and ESC not in out and
      b"Examples" in out)
rc, out = run_pty("--help", env={"NO_COLOR": "1", "FORCE_COLOR": "1"})
check("NO_COLOR-beats-FORCE_COLOR", rc == 0 and ESC not in out)
rc, out = run_pty("--help", env={"TERM": "dumb"})
check("no-colour-on-dumb-terminal", rc == 0 and ESC not in out)
rc, out, err = run("--help")
check("no-colour-on-pipe", rc == 0 and "\x1b[" not in out)
rc, out, err = run("--help", env={"FORCE_COLOR": "1"})
check("FORCE_COLOR-on-pipe", rc == 0 and "\x1b[" in out)
rc, out = run_pty("plot", "/nonexistent.jsonl", "-o", "/tmp/x.png")
check("error-coloured-on-terminal", rc == 1 and ESC in out, out)

# --- exit codes and errors -----------------------------------------------
rc, out, err = run("plot", "/nonexistent.jsonl", "-o", "/tmp/x.png")
check("error-exit-1-on-stderr", rc == 1 and out == "" and
      "nvl plot: error:" in err and "/nonexistent.jsonl" in err and
      "No such file" in err, err)
rc, out, err = run("plot", "--bogus")
check("usage-exit-2", rc == 2 and out == "" and "--help" in err, err)
rc, out, err = run("help", "no-such-command")
check("help-unknown-exit-2", rc == 2, err)
rc, out, err = run("fw")
check("fw-no-subcommand-exit-2", rc == 2 and "usage" in err, err)
rc, out, err = run("asm", "/nonexistent.sass")
check("asm-missing-file-exit-1", rc == 1, err)
rc, out, err = run("demo", "--bogus")
check("demo-usage-exit-2", rc == 2, err)
rc, out, err = run("--version")
check("version-exit-0", rc == 0 and out.startswith("nvl (nouvelle)"))

finish()
