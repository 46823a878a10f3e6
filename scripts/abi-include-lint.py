#!/usr/bin/env python3
"""The driver reaches the firmware interface only through the generated,
version-neutral layer (gspabi.h): no file under src/ or tools/nvl may
include a versioned firmware header (anything under firmware/abi/),
directly or through another header of the tree. Prints TAP.

Exempt: src/gsp/abi_ver*.c (the per-version side of the driver, if it
ever needs a header the layer does not carry) and src/model/ (the model's
GPU and GSP firmware: the other side of the interface, compiled against
each version's headers on purpose). The generated files are build
outputs, outside the source tree.

Tests, benchmarks and fuzz targets that play the firmware's side include
the versioned headers directly; they are outside the scope.

usage: abi-include-lint.py SOURCE_ROOT
       abi-include-lint.py --self-test
"""
import os
import re
import sys
import tempfile

SCOPE = ("src", "tools/nvl")
EXEMPT_DIRS = ("src/model/",)
EXEMPT = re.compile(r"^src/gsp/abi_ver[^/]*\.c$")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def resolve(root, path, name):
    """The tree file an #include "name" in @path opens, relative to root
    (the build's include directories: the file's own, '.', include, src)."""
    for base in (os.path.dirname(path), "", "include", "src"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def versioned(rel):
    return rel.startswith("firmware/abi/")


def scan(root):
    """{file in scope: the include chain to a versioned header}"""
    memo = {}

    def chain(rel, seen):
        if rel in memo:
            return memo[rel]
        if rel in seen:
            return None
        seen = seen | {rel}
        try:
            text = open(os.path.join(root, rel), errors="replace").read()
        except OSError:
            return None
        found = None
        for name in INCLUDE.findall(text):
            inc = resolve(root, rel, name)
            if inc is None:
                if "firmware/abi/" in name:
                    found = [name]
                    break
                continue
            if versioned(inc):
                found = [inc]
                break
            sub = chain(inc, seen)
            if sub:
                found = [inc] + sub
                break
        memo[rel] = found
        return found

    out = {}
    for d in SCOPE:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                if rel.startswith(EXEMPT_DIRS) or EXEMPT.match(rel):
                    continue
                c = chain(rel, frozenset())
                if c:
                    out[rel] = c
    return out


def check(root):
    bad = scan(root)
    cases = []
    for rel in sorted(bad):
        cases.append((f"{rel} includes a versioned header "
                      f"({' -> '.join(bad[rel])})", False))
    if not cases:
        cases.append(("no file in src/ (but the model) or tools/nvl "
                      "includes a versioned header", True))
    return cases


def self_test():
    """The check finds direct and indirect includes and stale entries."""
    with tempfile.TemporaryDirectory() as t:
        def put(rel, text):
            os.makedirs(os.path.join(t, os.path.dirname(rel)), exist_ok=True)
            open(os.path.join(t, rel), "w").write(text)
        put("firmware/abi/1.0/gsp.h", "")
        put("src/gsp/door.h", '#include "firmware/abi/1.0/gsp.h"\n')
        put("src/gsp/direct.c", '#include "firmware/abi/1.0/gsp.h"\n')
        put("src/gsp/door.c", '#include "gsp/door.h"\n')
        put("src/gsp/hdr.h", '#include "door.h"\n')
        put("src/nv/indirect.c", '#include "gsp/hdr.h"\n')
        put("src/core/clean.c", '#include "gspabi.h"\n#include <stdio.h>\n')
        put("src/mm/other.c", '#include "gsp/hdr.h"\n')
        put("tools/nvl/demo.c", '#include "gsp/door.h"\n')
        put("src/gsp/abi_ver_x.c", '#include "firmware/abi/1.0/gsp.h"\n')
        put("src/model/gsp/fw.c", '#include "firmware/abi/1.0/gsp.h"\n')
        got = scan(t)
        want = {"src/gsp/direct.c", "src/gsp/door.h", "src/gsp/door.c",
                "src/gsp/hdr.h",
                "src/nv/indirect.c", "src/mm/other.c", "tools/nvl/demo.c"}
        return [
            ("finds direct, door, header and indirect includes",
             set(got) == want),
            ("a clean file passes", "src/core/clean.c" not in got),
            ("abi_ver*.c and the model are exempt",
             "src/gsp/abi_ver_x.c" not in got
             and "src/model/gsp/fw.c" not in got),
            ("the chain names the way in",
             got.get("src/nv/indirect.c") == ["src/gsp/hdr.h",
                                             "src/gsp/door.h",
                                             "firmware/abi/1.0/gsp.h"]),
            ("an offender fails", not all(ok for _, ok in check(t))),
        ]


def main():
    if sys.argv[1:] == ["--self-test"]:
        cases = self_test()
    else:
        cases = check(sys.argv[1])
    print(f"1..{len(cases)}")
    for i, (n, ok) in enumerate(cases, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {n}")
    return 0 if all(ok for _, ok in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
