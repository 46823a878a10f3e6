#!/bin/sh
# Format the tree's C files with the root .clang-format (clang-format 14,
# Debian 12's), or check them.
#
#   scripts/format.sh          rewrite every file in place (make format)
#   scripts/format.sh --check  print TAP, one failing case per file that
#                              differs; exit 1 if any does (make check)
#
# Left alone: the firmware interface headers, which keep the shape of
# NVIDIA's own headers on purpose (abigen's test headers opt out with
# clang-format off where they must).
set -u
mode=fix
[ "${1:-}" = "--check" ] && mode=check
cd "$(dirname "$0")/.." || exit 2
skip='^firmware/abi/'
if ! command -v clang-format >/dev/null 2>&1; then
	[ "$mode" = check ] && echo "1..1" &&
		echo "not ok 1 - clang-format is not installed (scripts/deps.sh check)"
	echo "clang-format is not installed" >&2
	exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git ls-files '*.c' '*.h' | grep -Ev "$skip")
else
	files=$(find src include tests bench fuzz tools firmware -name '*.[ch]' |
		grep -Ev "$skip")
fi
if [ "$mode" = fix ]; then
	echo "$files" | xargs clang-format -i
	exit $?
fi
bad=""
for f in $files; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
n=0
for f in $bad; do n=$((n + 1)); done
echo "1..$((n + 1))"
i=0
for f in $bad; do
	i=$((i + 1))
	echo "not ok $i - $f differs from .clang-format (run: make format)"
done
if [ -z "$bad" ]; then
	echo "ok 1 - every C file matches .clang-format"
	exit 0
fi
echo "not ok $((n + 1)) - $n file(s) differ from .clang-format"
exit 1
