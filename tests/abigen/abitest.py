# SPDX-License-Identifier: MIT
"""What the abigen script tests (check_abigen.py, check_gspabi.py,
abigen_audit.py) share: their TAP points, through the nvl script tests'
tests/tools/tap.py, and compiling a (patched) generated file."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, 'tools'))
from tap import check, finish  # noqa: E402,F401  (re-exported)


def compile_text(cc, incs, text):
    """Compile @text as a C file (-std=gnu17 -fsyntax-only) with the
    compiler command @cc and the -I options @incs; the completed
    process."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'patched.c')
        with open(path, 'w') as f:
            f.write(text)
        return subprocess.run(cc + ['-std=gnu17', '-fsyntax-only'] + incs +
                              [path], capture_output=True, text=True)
