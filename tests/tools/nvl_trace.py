#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: `nvl trace` (TAP).

A recorded boot (no jobs) on each GSP firmware version the build has and a recorded run
of exec jobs from two clients are decoded from their capture files: every
GSP RPC, reply and event and every pushbuffer method is named (the
decoder's summary counts the unnamed ones: 0), the RPCs the driver makes
are there with their generated field printers, the copy-class and Host
methods of the jobs and of the driver's fence idiom are there with their
fields, the decoding of a capture equals the live one, the filters select
what they say, and malformed captures and bad options fail cleanly.

usage: nvl_trace.py NVL
"""
import os
import re
import subprocess
import sys
import tempfile

from tap import check, finish

NVL = sys.argv[1]


def run(*args):
    p = subprocess.run([NVL, "trace", *args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


SUMMARY = re.compile(r"^# (\d+) GSP messages \((\d+) unnamed, (\d+) with "
                     r"fields\), (\d+) pushbuffer dwords, (\d+) methods "
                     r"\((\d+) unnamed\)$", re.M)


def summary(out):
    m = SUMMARY.search(out)
    return tuple(int(x) for x in m.groups()) if m else None


BOOT_RPCS = ["gsp > GSP_SET_SYSTEM_INFO", "gsp > SET_REGISTRY",
             "gsp < event GSP_RUN_CPU_SEQUENCER", "gsp < event GSP_INIT_DONE",
             "gsp > GET_GSP_STATIC_INFO", "gsp < GET_GSP_STATIC_INFO",
             "gsp > GSP_RM_ALLOC", "gsp < GSP_RM_ALLOC seq", "status NV_OK",
             "gsp > GSP_RM_CONTROL", "gsp > FREE",
             "gsp > UNLOADING_GUEST_DRIVER"]
PRINTERS = ["sysinfo:", "static_info:", "run_cpu_seq:", "rm_alloc:",
            "rm_control:", "rm_free:", "hClient:"]
METHODS = ["HOST.SET_OBJECT = ", "NVCLASS=0x", ".OFFSET_IN_UPPER", ".PITCH_IN",
           ".LINE_LENGTH_IN", ".LAUNCH_DMA = ",
           "DATA_TRANSFER_TYPE=NON_PIPELINED", "REMAP_ENABLE=0x1",
           ".SET_REMAP_COMPONENTS", "DST_X=CONST_A COMPONENT_SIZE=FOUR",
           ".SET_SEMAPHORE_B", "SEMAPHORE_TYPE=RELEASE_ONE_WORD_SEMAPHORE",
           "HOST.SEM_ADDR_LO", "HOST.SEM_EXECUTE", "OPERATION=ACQ_STRICT_GEQ",
           "ACQUIRE_SWITCH_TSG=0x1", "OPERATION=RELEASE RELEASE_WFI=0x1",
           "HOST.NON_STALL_INTERRUPT"]

with tempfile.TemporaryDirectory() as tmp:
    # a recorded boot on each firmware version, decoded from the file
    for fw in ["535.113.01", "570.144"]:
        cap = os.path.join(tmp, "boot-%s.nvltrace" % fw)
        rc, out, err = run("--firmware", fw, "--jobs", "0", "--record", cap,
                           "-q")
        check("boot %s: exit 0" % fw, rc == 0, err)
        rc, out, err = run("--read", cap)
        s = summary(out)
        check("boot %s: decoded" % fw, rc == 0 and s, err)
        if not s:
            continue
        check("boot %s: every RPC named" % fw, s[0] > 20 and s[1] == 0,
              str(s))
        check("boot %s: header names the firmware" % fw,
              "GSP firmware %s" % fw in out.splitlines()[0], out[:200])
        for r in BOOT_RPCS:
            check("boot %s: %s" % (fw, r), r in out)
        for p in PRINTERS:
            check("boot %s: printer %s" % (fw, p), p in out)

    # a recorded run of exec jobs on Turing and Hopper
    for dev in ["model:tu102", "model:gh100"]:
        cap = os.path.join(tmp, "run.nvltrace")
        rc, live, err = run("-d", dev, "--clients", "2", "--jobs", "3",
                            "--record", cap)
        check("%s run: exit 0" % dev, rc == 0, err)
        rc, out, err = run("--read", cap)
        check("%s: capture decodes as the live run did" % dev,
              rc == 0 and out == live, err)
        s = summary(out)
        check("%s: summary" % dev, s is not None, out[-300:])
        if not s:
            continue
        check("%s: every RPC and method named" % dev,
              s[1] == 0 and s[5] == 0 and s[4] > 100, str(s))
        # 2 clients x 3 jobs: 6 copy launches, 6 fills, 6 fences
        check("%s: six jobs' pushbuffers" % dev,
              out.count("DATA_TRANSFER_TYPE=NON_PIPELINED") == 12 and
              out.count("HOST.NON_STALL_INTERRUPT") == 12,
              "%d launches" % out.count("DATA_TRANSFER_TYPE=NON_PIPELINED"))
        for m in METHODS:
            check("%s: %s" % (dev, m), m in out)
        cls = "CE_HOPPER" if "gh100" in dev else "CE_TURING"
        check("%s: class %s" % (dev, cls), "0:%s.LAUNCH_DMA" % cls in out)
        check("%s: header kinds" % dev,
              re.search(r"^    [0-9a-f]{8}  INC  subch 0 mthd 0x400 count 8$",
                        out, re.M))
        # filters
        rc, o1, _ = run("--read", cap, "--push", "--client", "1")
        heads = re.findall(r"^\[.*\] (\w+) .*$", o1, re.M)
        check("%s: --push --client 1" % dev,
              rc == 0 and heads and set(heads) == {"push"} and
              "(client 0 " not in o1 and o1.count("(client 1 ") == 6,
              o1[:300])
        rc, o2, _ = run("--read", cap, "--gsp", "--rpc", "FREE")
        heads = re.findall(r"^\[.*\] gsp [<>] (\S+)", o2, re.M)
        check("%s: --gsp --rpc FREE" % dev,
              rc == 0 and heads and set(heads) == {"FREE"} and
              "push chid" not in o2, str(set(heads)))
        rc, o3, _ = run("--read", cap, "--channel", "99", "--push")
        check("%s: --channel of no channel shows no pushbuffer" % dev,
              rc == 0 and "push chid" not in o3)

        # malformed captures
        data = open(cap, "rb").read()
        bad = os.path.join(tmp, "bad")
        for name, blob in [("truncated", data[:len(data) - 7]),
                           ("not a capture", b"hello world" * 20),
                           ("bad kind", data[:96] + b"\x63" + data[97:]),
                           ("empty", b"")]:
            open(bad, "wb").write(blob)
            rc, o, e = run("--read", bad)
            check("%s: %s fails with a message" % (dev, name),
                  rc == 1 and "nvl trace:" in e and "Traceback" not in e,
                  "rc %d %s" % (rc, e))

    rc, _, e = run("--no-such-option")
    check("bad option exits 2", rc == 2, e)
    rc, _, e = run("--gsp", "--push")
    check("--gsp --push exits 2", rc == 2, e)
    rc, _, e = run("--read", "/nonexistent/x")
    check("missing capture exits 1", rc == 1 and "nvl trace:" in e, e)

finish()
