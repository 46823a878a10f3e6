#!/bin/sh
# Check that every C file in the tree is formatted with the root .clang-format
# (clang-format 14, Debian 12's). Prints TAP: one case per file that differs,
# plus a summary case. Run `make format` to fix.
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
if ! command -v clang-format >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - clang-format is not installed (scripts/deps.sh check)"
	exit 1
fi
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^firmware/abi/' | grep -v '/headers/')
[ -n "$files" ] || files=$(find src include tests bench fuzz tools -name '*.[ch]' | grep -v '/headers/')
bad=""
for f in $files; do
	if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
		bad="$bad $f"
	fi
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
echo "not ok $((n + 1)) - $n file(s) not formatted"
exit 1
