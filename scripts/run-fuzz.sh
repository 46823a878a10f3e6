#!/bin/sh
# Run every libFuzzer target in BUILDDIR/fuzz, starting from its checked-in
# corpus, for FUZZ_RUNS inputs (default 20000) from a fixed seed (FUZZ_SEED,
# default 1) so a CI run is reproducible, and at most SECONDS each.
# Prints "PASS name" or "FAIL name" per target; crashes land in BUILDDIR.
# Each target runs with a TMPDIR of its own, removed afterwards, so what a
# crashed target left there (fuzz-gsp_fwread's directory) goes too.
set -u
bdir=$1
secs=$2
root=$(cd "$(dirname "$0")/.." && pwd)
for f in "$bdir"/fuzz/fuzz-*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	case "$f" in *fuzz-replay-*|*.p) continue ;; esac
	name=${f##*/fuzz-}
	corpus="$root/fuzz/corpus/$name"
	work=$(mktemp -d)
	tmp=$(mktemp -d)
	[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null
	if TMPDIR="$tmp" "$f" -seed="${FUZZ_SEED:-1}" -runs="${FUZZ_RUNS:-20000}" \
		-max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=0 \
		-artifact_prefix="$bdir/" "$work" >"$bdir/fuzz-$name.log" 2>&1; then
		echo "PASS fuzz-$name"
	else
		echo "FAIL fuzz-$name (see $bdir/fuzz-$name.log)"
		tail -n 30 "$bdir/fuzz-$name.log" >&2
	fi
	rm -rf "$work" "$tmp"
done
