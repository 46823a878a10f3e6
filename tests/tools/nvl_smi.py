#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TEST: nvl smi (issue 17 item 1), TAP.

Golden outputs (tests/tools/golden/smi-*.txt) of the table, -q, -q -x,
CSV with and without header and units, and --json, on the built-in model. The
model's sensors run on wall time, so the golden text masks what moves
from one run to the next: dates, the pid, and the numbers of temperature,
power draw, fan and utilisation (each becomes '#'; the table's width is
checked apart); everything else (names, bus ids, memory,
limits, clocks, tokens such as [N/A]) is compared as printed.
NVL_GOLDEN_UPDATE=1 rewrites the golden files.

Also: its CSV parsed the way scripts written for nvidia-smi parse it
(nvidia_gpu_exporter: split on ',', trim, "name [unit]" headers, [N/A]
tokens, Enabled/Active as 1); nvidia-smi's errors and exit codes; -L, -i,
loops, --query-compute-apps on a running load, --help-query-gpu.

usage: nvl_smi.py NVL GOLDEN_DIR
"""
import json
import os
import re
import subprocess
import sys
from tap import check, finish

NVL = os.path.abspath(sys.argv[1])
GOLD = os.path.abspath(sys.argv[2])
UPDATE = os.environ.get("NVL_GOLDEN_UPDATE") == "1"
DEVS = "model:tiny,model:gh100"


def run(*args, env=None):
    e = dict(os.environ)
    e.pop("NVL_DEVICES", None)
    e.update(env or {})
    p = subprocess.run([NVL, "smi", *args], capture_output=True, text=True,
                       timeout=240, env=e)
    return p.returncode, p.stdout, p.stderr


def digits(s):
    """Every number (with the spaces that pad it) becomes " #"."""
    return re.sub(r" *\d+", " #", s)


def golden(name, text):
    path = os.path.join(GOLD, name)
    if UPDATE:
        with open(path, "w") as f:
            f.write(text)
    try:
        with open(path) as f:
            want = f.read()
    except OSError as e:
        check(f"golden {name}", False, str(e))
        return
    if want != text:
        import difflib
        d = "".join(difflib.unified_diff(want.splitlines(True),
                                         text.splitlines(True),
                                         "golden", "now"))
        check(f"golden {name}", False, d)
    else:
        check(f"golden {name}", True)


def mask_table(out):
    lines = out.splitlines()
    res = []
    for i, l in enumerate(lines):
        if i == 0:
            l = "<date>"
        elif re.match(r"^\|.*W /.*\|.*MiB /.*\|", l):
            c = l.split("|")
            c[1] = digits(c[1])
            c[3] = digits(c[3])
            l = "|".join(c)
        elif re.match(r"^\|\s+\d+\s+N/A\s+N/A\s+\d+\s+C ", l):
            # the pid is right-aligned: mask it with its padding, whatever
            # its number of digits
            l = re.sub(r"(N/A\s+N/A)\s+\d+(\s+C )", r"\1 <pid>\2", l,
                       count=1)
        res.append(l)
    return "\n".join(res) + "\n"


VOLATILE_Q = ("Timestamp", "Fan Speed", "GPU Current Temp",
              "Memory Current Temp", "Power Draw", "GPU", "Memory",
              "Copy Engine")


def mask_q(out):
    res = []
    section = ""
    for l in out.splitlines():
        m = re.match(r"^(\s*)(\S.*?)\s*: (.*)$", l)
        if not m:
            section = l.strip()
            res.append(l)
            continue
        label = m.group(2)
        vol = label.startswith(VOLATILE_Q) and not (
            label == "Memory" and section.endswith("Clocks"))
        if label == "Timestamp":
            l = l[: l.index(": ") + 2] + "<date>"
        elif vol:
            l = digits(l)
        res.append(l)
    return "\n".join(res) + "\n"


CSV_FIELDS = ("index,gpu_name,pci.bus_id,memory.total,memory.reserved,"
              "memory.used,memory.free,temperature.gpu,temperature.memory,"
              "power.draw,power.limit,power.max_limit,pstate,"
              "utilization.gpu,fan.speed,clocks.max.gr,clocks.max.mem,"
              "clocks_event_reasons.supported,persistence_mode,serial,uuid,"
              "gsp.mode.current,compute_mode,mig.mode.current")
CSV_VOLATILE = {"temperature.gpu", "temperature.memory", "power.draw",
                "utilization.gpu", "fan.speed"}


def mask_csv(out, header=True):
    lines = out.splitlines()
    names = [re.sub(r" \[.*\]$", "", h) for h in
             CSV_FIELDS.replace("gpu_name", "name")
             .replace("clocks.max.gr", "clocks.max.graphics")
             .replace("clocks.max.mem", "clocks.max.memory").split(",")]
    res = []
    for i, l in enumerate(lines):
        if header and i == 0:
            res.append(l)
            continue
        cells = l.split(", ")
        cells = [digits(c) if n in CSV_VOLATILE else c
                 for n, c in zip(names, cells)]
        res.append(", ".join(cells))
    return "\n".join(res) + "\n"


# ---- golden outputs ------------------------------------------------------

rc, out, err = run("--devices", "model:tiny", "--run", "copy:1")
check("table exit 0", rc == 0, err)
check("table 91 columns", all(len(l) == 91 for l in out.splitlines()[1:]
                              if l.startswith(("|", "+"))), out)
golden("smi-table.txt", mask_table(out))

rc, out, err = run("--devices", "model:gh100", "-q")
check("-q exit 0", rc == 0, err)
golden("smi-q.txt", mask_q(out))

# -q -x: the same report as nvidia-smi's XML (user-tools.md §1.4): it
# parses, its elements carry -q's values, and what moves is masked
XML_VOLATILE = ("timestamp", "fan_speed", "gpu_temp", "memory_temp",
                "power_draw", "gpu_util", "memory_util", "pid")


def mask_xml(out):
    res = []
    for l in out.splitlines():
        m = re.match(r"^(\s*)<([a-z0-9_]+)>(.*)</\2>$", l)
        if m and (m.group(2) in XML_VOLATILE
                  or m.group(2).startswith("copy_engine_")):
            v = "<date>" if m.group(2) == "timestamp" else digits(m.group(3))
            l = f"{m.group(1)}<{m.group(2)}>{v}</{m.group(2)}>"
        res.append(l)
    return "\n".join(res) + "\n"


rc, out, err = run("--devices", "model:gh100", "-q", "-x")
check("-q -x exit 0", rc == 0, err)
golden("smi-xml.txt", mask_xml(out))
rc, out, err = run("--devices", DEVS, "--run", "copy:1", "-q", "-x")
check("-q -x two GPUs exit 0", rc == 0, err)
try:
    import xml.etree.ElementTree as ET
    root = ET.fromstring(out)
    gpus = root.findall("gpu")
    check("xml root nvidia_smi_log, attached_gpus, one gpu per device",
          root.tag == "nvidia_smi_log"
          and root.findtext("attached_gpus") == "2"
          and [g.get("id") for g in gpus] ==
          ["00000000:01:00.0", "00000000:02:00.0"], out[:400])
    _, qout, _ = run("--devices", DEVS, "-q", "-d", "MEMORY")
    qtot = re.findall(r"^\s+Total\s+: (.*)$", qout, re.M)
    check("xml fb_memory_usage/total is -q's Total",
          [g.findtext("fb_memory_usage/total") for g in gpus] == qtot,
          f"{qtot}")
    p = gpus[0].findall("processes/process_info")
    check("xml processes: the running load's client with its memory",
          len(p) >= 1 and p[0].findtext("type") == "C"
          and p[0].findtext("used_memory").endswith(" MiB")
          and int(p[0].findtext("pid")) > 0, out)
    check("xml units as nvidia-smi prints them",
          gpus[1].findtext("gpu_power_readings/power_limit") is None
          and gpus[1].findtext(
              "gpu_power_readings/current_power_limit").endswith(" W")
          and gpus[1].findtext("clocks/graphics_clock").endswith(" MHz"),
          out)
except Exception as e:  # noqa: BLE001 - any parse failure is the finding
    check("-q -x parses as XML", False, f"{e}: {out[:500]}")
rc, out, err = run("-q", "-x", "-d", "MEMORY")
check("-x with -d exits 2 (as nvidia-smi)", rc == 2, f"{rc} {err!r}")

rc, out, err = run("--devices", DEVS, "-q", "-d", "MEMORY,power")
check("-q -d exit 0", rc == 0, err)
check("-q -d only those sections",
      "FB Memory Usage" in out and "GPU Power Readings" in out
      and "Clocks" not in out and "Temperature" not in out, out)

rc, out, err = run("--devices", DEVS, "--query-gpu=" + CSV_FIELDS,
                   "--format=csv")
check("csv exit 0", rc == 0, err)
golden("smi-csv.txt", mask_csv(out))
csv_units = out

rc, out, err = run("--devices", DEVS, "--query-gpu=" + CSV_FIELDS,
                   "--format=csv,noheader,nounits")
check("csv noheader,nounits exit 0", rc == 0, err)
golden("smi-csv-noheader-nounits.txt", mask_csv(out, header=False))
csv_bare = out

rc, out, err = run("--devices", DEVS, "--json")
check("json exit 0", rc == 0, err)
try:
    j = json.loads(out)
    for g in j["gpus"]:
        for k in ("temperature.gpu", "temperature.memory", "power.draw",
                  "utilization.gpu", "utilization.memory", "fan.speed",
                  "clocks_event_reasons.active",
                  "clocks_event_reasons.gpu_idle"):
            if g.get(k) is not None:
                g[k] = "#"
    j["timestamp"] = "<date>"
    golden("smi-json.txt", json.dumps(j, indent=1, sort_keys=True) + "\n")
except (ValueError, KeyError) as e:
    check("json parses", False, f"{e}: {out[:500]}")

# ---- CSV as scripts parse it (nvidia_gpu_exporter's rules) ----------------

WANT_HEADERS = {
    "index": None, "name": None, "pci.bus_id": None,
    "memory.total": "MiB", "memory.used": "MiB", "temperature.gpu": None,
    "power.draw": "W", "power.limit": "W", "utilization.gpu": "%",
    "fan.speed": "%", "clocks.max.graphics": "MHz", "pstate": None,
}
TOKENS = {"[N/A]", "[Not Supported]", "N/A", ""}


def parse_csv(text):
    rows = [[c.strip() for c in l.split(",")] for l in text.splitlines()]
    head = []
    for h in rows[0]:
        m = re.match(r"^(.*?) \[(.*)\]$", h)
        head.append((m.group(1), m.group(2)) if m else (h, None))
    return head, rows[1:]


head, rows = parse_csv(csv_units)
hmap = dict(head)
for name, unit in WANT_HEADERS.items():
    check(f"csv header {name}" + (f" [{unit}]" if unit else ""),
          name in hmap and hmap[name] == unit, str(head))
check("csv one row per GPU, same width",
      len(rows) == 2 and all(len(r) == len(head) for r in rows), csv_units)
bare = [[c.strip() for c in l.split(",")] for l in csv_bare.splitlines()]
ok = True
for r in bare:
    for (name, unit), v in zip(head, r):
        if v in TOKENS:
            continue
        if unit:
            try:
                float(v)
            except ValueError:
                ok = False
check("nounits values with a unit parse as numbers", ok, csv_bare)
check("absent fields are tokens, never numbers",
      bare[0][[h[0] for h in head].index("temperature.memory")] == "[N/A]"
      and bare[1][[h[0] for h in head].index("fan.speed")] == "[N/A]"
      and bare[0][[h[0] for h in head].index("persistence_mode")]
      == "[Not Supported]", csv_bare)
check("power has 2 decimals and a unit with units",
      re.match(r"^\d+\.\d\d W$",
               rows[0][[h[0] for h in head].index("power.draw")]),
      csv_units)
gsp = [h[0] for h in head].index("gsp.mode.current")
check("Enabled maps to 1 as exporters do",
      all({"Enabled": 1, "Disabled": 0}.get(r[gsp]) == 1 for r in bare))

# ---- errors as nvidia-smi's ----------------------------------------------

rc, out, err = run("--query-gpu=name,no.such.field", "--format=csv")
check("unknown field: nvidia-smi's message on stdout, nvl's on stderr, "
      "exit 2",
      rc == 2 and out == 'Field "no.such.field" is not a valid field '
      'to query.\n\n' and err.startswith("nvl smi: usage error: no field "
                                        "'no.such.field'"),
      f"{rc} {out!r} {err!r}")
rc, out, err = run("--no-such-option")
check("bad option exits 2", rc == 2 and "Invalid combination of input "
      "arguments" in err, f"{rc} {err!r}")
rc, out, err = run("-i")
check("missing value exits 2", rc == 2 and "Option -i is missing its "
      "value" in err, f"{rc} {err!r}")
rc, out, err = run("--query-gpu=name")
check("query without --format exits 2", rc == 2, f"{rc} {err!r}")
rc, out, err = run("--query-gpu=name", "--format=xml")
check("--format=xml exits 2", rc == 2, f"{rc} {err!r}")
rc, out, err = run("-q", "-d", "NOSUCH")
check("unknown -d section exits 2", rc == 2, f"{rc} {err!r}")
rc, out, err = run("--devices", "model:tiny", "-i", "3", "-L")
check("-i with no such GPU: exit 6", rc == 6 and
      "No devices were found" in out, f"{rc} {out!r}")
rc, out, err = run("--devices", "model:nosuchchip", "-L")
check("a device that does not open: exit 1 with the library's message",
      rc == 1 and "nosuchchip" in err, f"{rc} {err!r}")

# ---- -L, -i, loops, compute apps, --help-query-gpu -----------------------

rc, out, err = run("--devices", DEVS, "-L")
check("-L", rc == 0 and re.fullmatch(
    r"GPU 0: .+ \(UUID: N/A\)\nGPU 1: Hopper \(UUID: N/A\)\n", out), out)
rc, out, err = run("--devices", DEVS, "-i", "00000000:02:00.0",
                   "--query-gpu=index,pci.bus_id", "--format=csv,noheader")
check("-i by bus id keeps the index", rc == 0 and
      out == "1, 00000000:02:00.0\n", out)
rc, out, err = run("--devices", DEVS, "-i", "0,1",
                   "--query-gpu=index,count", "--format=csv,noheader")
check("-i list", rc == 0 and out == "0, 2\n1, 2\n", out)
rc, out, err = run("--devices", "model:tiny", "-lms", "100", "-c", "3",
                   "--query-gpu=timestamp,index", "--format=csv")
lines = out.splitlines()
check("-lms with --count: header once, 3 rows",
      rc == 0 and lines[0] == "timestamp, index" and len(lines) == 4 and
      all(re.match(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}, 0$", l)
          for l in lines[1:]), out)
rc, out, err = run("--devices", "model:tiny", "--run", "copy:2",
                   "--query-compute-apps=pid,name,used_memory,gpu_bus_id",
                   "--format=csv")
lines = out.splitlines()
check("--query-compute-apps: a row per client",
      rc == 0 and lines[0] == "pid, process_name, used_gpu_memory [MiB], "
      "gpu_bus_id" and len(lines) == 3 and
      all(re.match(r"^\d+, \S+\[copy\d\], 12 MiB, 00000000:01:00\.0$", l)
          for l in lines[1:]), out)
rc, out, err = run("--devices", "model:tiny",
                   "--query-compute-apps=pid,used_memory", "--format=csv")
check("--query-compute-apps without clients: the header only",
      rc == 0 and out == "pid, used_gpu_memory [MiB]\n", out)
rc, out, err = run("--help-query-gpu")
check("--help-query-gpu lists fields", rc == 0 and
      '"power.draw"' in out and '"clocks.current.graphics" or '
      '"clocks.gr"' in out, out[:300])
rc, out, err = run("--query-gpu=clocks.gr,gpu_name,clocks_throttle_reasons"
                   ".active", "--format=csv", "--devices", "model:tiny")
check("aliases print canonical headers", rc == 0 and out.splitlines()[0]
      == "clocks.current.graphics [MHz], name, clocks_event_reasons.active",
      out)

finish(60)
