#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: `nvl run WORKLOAD` (issue 17 item 5), TAP.

Each workload runs briefly (--seconds 0.2; a workload always finishes its
first round) on the model, exits 0, and its --json summary parses and says
what the workload promises: sparse streamed tiles through async binds and
checked them, unbacked tiles read zero; oversub allocated 4x the usable
VRAM and brought evicted BOs back, every byte checked; multiclient ran
jobs on every client and channel; fault killed the faulting channel
(exec then -ENODEV) while the other client's channels stayed alive and its
data checked; hang timed the hung job out (-ETIMEDOUT after the job
timeout), resubmitted the one behind it (bytes checked) and left the reset
channel and the other client's working; thermal kept the copy engines busy
while the sensors were sampled; suspend cycled the device through
suspend-to-RAM and resume with every byte checked after each. A --record file is accepted by `nvl plot`. Bad usage exits 2.

usage: nvl_run.py NVL
"""
import json
import os
import pty
import select
import subprocess
import sys
import tempfile
from tap import check, finish

NVL = os.path.abspath(sys.argv[1])


def run(*args, timeout=300):
    p = subprocess.run([NVL, *args], capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def workload(name, *extra):
    rc, out, err = run("run", name, "--seconds", "0.2", "--json", *extra)
    try:
        j = json.loads(out)
    except ValueError:
        j = None
    check(f"{name}: exit 0, one JSON object", rc == 0 and j is not None,
          f"rc={rc} out={out[:300]!r} err={err[-600:]!r}")
    if not j:
        return {}
    check(f"{name}: ok, no error", j["ok"] is True and j["error"] is None,
          j.get("error"))
    check(f"{name}: summary names the workload and device",
          j["workload"] == name and j["device"]["chip"] and
          j["device"]["vram_MiB"] > 0 and j["clients"] >= 1)
    check(f"{name}: sensors sampled", j["sensors"]["samples"] >= 2 and
          j["sensors"]["errors"] == 0, j["sensors"])
    return j["results"]


r = workload("sparse")
check("sparse: tiles streamed with async binds",
      r.get("tiles_streamed", 0) >= 16 and
      r.get("async_binds", 0) >= r.get("tiles_streamed", 1), r)
check("sparse: every streamed tile checked, unbacked tiles read zero",
      r.get("bytes_checked", 0) >= r.get("tiles_streamed", 1) * 65536 and
      r.get("sparse_zero_checks", 0) >= 1, r)

r = workload("oversub", "--chip", "ga102")
check("oversub: BOs of at least 4x the usable VRAM",
      r.get("oversubscription", 0) >= 4.0, r)
check("oversub: evicted BOs found and brought back",
      r.get("found_evicted", 0) > 0 and r.get("brought_back", 0) > 0, r)
check("oversub: no BO rebound (EXEC revalidates moved BOs)",
      "rebinds" not in r, r)
check("oversub: every byte checked once per round, two rounds at least",
      r.get("rounds", 0) >= 2 and r.get("bytes_checked", 0) >=
      r.get("bo_bytes", 1) * r.get("rounds", 1) * 0.99, r)

r = workload("oversub", "--chip", "tu102", "--no-rebind")
check("oversub: --no-rebind still accepted, passes on tu102",
      r.get("found_evicted", 0) > 0 and r.get("rounds", 0) >= 2, r)

r = workload("multiclient", "--clients", "3", "--channels", "2")
check("multiclient: jobs on 3 clients x 2 channels, binds with each",
      r.get("jobs", 0) >= 12 and r.get("async_binds", 0) >= r.get("jobs"),
      r)
check("multiclient: every job's bytes checked",
      r.get("bytes_checked", 0) >= r.get("jobs", 1) * 2 * 65536, r)

r = workload("hang")
check("hang: the hung job completes -ETIMEDOUT after the job timeout",
      r.get("hung_job_status") == -110 and
      r.get("timeout_detected_ms", 0) >= 450, r)
check("hang: the job behind it is resubmitted and its bytes checked",
      r.get("resubmitted_job_status") == 1 and
      r.get("bytes_checked", 0) >= 5 * 65536, r)
check("hang: the reset channel takes new work",
      r.get("channel_alive_after_reset") == 1, r)
check("hang: the other client's channels alive, its work checked",
      r.get("other_channels_alive", 0) >= 2 and r.get("jobs", 0) >= 2, r)

r = workload("fault")
check("fault: the faulting channel was killed with an error",
      r.get("faulted_channel_alive") == 0 and
      r.get("faulted_channel_error", 0) < 0, r)
check("fault: exec on the killed channel is -ENODEV",
      r.get("exec_after_kill") == -19, r)
check("fault: a new channel of the faulting client works",
      r.get("recovered_on_new_channel") == 1, r)
check("fault: the other client's channels alive, its work checked",
      r.get("other_channels_alive", 0) >= 2 and r.get("jobs", 0) >= 2 and
      r.get("bytes_checked", 0) > 0, r)

r = workload("suspend", "--chip", "ga102")
check("suspend: two suspend/resume cycles at least, timed",
      r.get("cycles", 0) >= 2 and r.get("suspend_ms_mean", 0) > 0 and
      r.get("resume_ms_mean", 0) > 0, r)
check("suspend: VRAM emptied while suspended",
      "vram_left_suspended" not in r, r)
check("suspend: every byte (CPU- and copy-engine-written) checked after "
      "each resume", r.get("bytes_checked", 0) >=
      r.get("cycles", 1) * 4 * 8 * 1048576, r)

with tempfile.TemporaryDirectory() as d:
    rec = os.path.join(d, "load.jsonl")
    r = workload("thermal", "--record", rec, "--chip", "ga102")
    check("thermal: copies ran and were checked",
          r.get("jobs", 0) >= 4 and r.get("bytes_checked", 0) > 0, r)
    # the limit set is 40 % of ga102's default (350 W), within range
    check("thermal: the power limit was lowered first",
          abs(r.get("power_limit_set", 0) - 140.0) < 0.5, r)
    lines = open(rec).read().splitlines() if os.path.exists(rec) else []
    head = json.loads(lines[0]) if lines else {}
    samples = [json.loads(l) for l in lines if l.startswith('{"t"')]
    clients = [json.loads(l) for l in lines if l.startswith('{"client"')]
    check("record: header, a client, samples with sensors",
          head.get("nvl_record") == 1 and len(clients) >= 1 and
          len(samples) >= 2 and
          samples[-1]["devices"][0].get("temp") is not None and
          samples[-1]["devices"][0].get("power") is not None,
          lines[:3])
    check("record: a client's VRAM recorded",
          any(c.get("vram") for s in samples for c in s["clients"]))
    rc, out, err = run("plot", "--list", rec)
    check("record: nvl plot --list reads it",
          rc == 0 and "gpu0.temp" in out and "client" in out, err)
    rc, out, err = run("plot", rec, "-o", os.path.join(d, "load.svg"))
    check("record: nvl plot draws it (or says it has no cairo)",
          rc == 0 or "without cairo" in err, err)

# the progress bar: on stderr when it is a terminal and the run is longer
# than a second; never on a pipe
master, slave = pty.openpty()
p = subprocess.Popen([NVL, "run", "multiclient", "--seconds", "1.2",
                      "--clients", "1"], stdout=subprocess.PIPE,
                     stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
tty = b""
while True:
    r, _, _ = select.select([master], [], [], 60)
    if not r:
        break
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    tty += chunk
os.close(master)
out = p.stdout.read().decode()
p.stdout.close()
check("progress bar on a terminal's stderr, summary on stdout",
      p.wait(timeout=60) == 0 and b"\r  multiclient [#" in tty and
      b"%" in tty and "passed" in out and "[#" not in out, tty[-200:])
rc, out, err = run("run", "multiclient", "--seconds", "1.2", "--clients",
                   "1")
check("no progress bar on a pipe", rc == 0 and "[#" not in err, err)

# usage errors: exit 2, a message on stderr, nothing on stdout
for args, what in [(["run"], "no workload"),
                   (["run", "nosuch"], "unknown workload"),
                   (["run", "sparse", "--bogus"], "unknown option"),
                   (["run", "sparse", "--seconds", "-1"], "bad seconds"),
                   (["run", "sparse", "--seconds", "abc"], "seconds not a "
                    "number"),
                   (["run", "sparse", "--clients", "0"], "zero clients"),
                   (["run", "fault", "--clients", "1"], "fault alone"),
                   (["run", "oversub", "--vram", "12"], "tiny VRAM"),
                   (["run", "hang", "--clients", "1"], "hang alone"),
                   (["run", "suspend", "--clients", "2"], "suspend with "
                    "two clients")]:
    rc, out, err = run(*args)
    check(f"usage: {what}: exit 2", rc == 2 and out == "" and err, err)
rc, out, err = run("run", "--list")
check("--list names every workload", rc == 0 and all(
    w in out for w in ["sparse", "oversub", "multiclient", "fault",
                       "thermal", "hang", "suspend"]), out)
rc, out, err = run("run", "sparse", "--seconds", "0.2", "-d", "vfio:0")
check("a device that cannot be opened: exit 1 with the library's message",
      rc == 1 and "nvl run: error:" in err and "vfio" in err.lower(), err)

finish()
