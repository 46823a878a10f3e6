# SPDX-License-Identifier: MIT
"""TAP results for the nvl tool's script tests: check(), skip(), finish()."""
import sys

results = []


def check(name, cond, detail=""):
    """Record one test point: ok when @cond holds, @detail shown if not."""
    results.append((name, bool(cond), detail))


def skip(name, why):
    """Record a skipped test point (TAP "# SKIP")."""
    results.append((name, None, why))


def finish(detail_lines=10):
    """Print the plan and every point; exit 1 if any point failed."""
    print(f"1..{len(results)}")
    for i, (name, ok, detail) in enumerate(results, 1):
        if ok is None:
            print(f"ok {i} - {name} # SKIP {detail}")
            continue
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok and detail:
            for line in str(detail).splitlines()[:detail_lines]:
                print(f"# {line}")
    sys.exit(0 if all(ok is not False for _, ok, _ in results) else 1)
