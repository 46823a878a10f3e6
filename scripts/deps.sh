#!/bin/sh
# Install the Debian packages nouvelle needs, when missing.
# As root: apt-get update (once) + apt-get install. Otherwise: print the exact
# command and fail. Usage: scripts/deps.sh [build|check|all]
set -eu

what=${1:-all}
# Build (library, nvl tool, benchmarks; libclang for the abigen generator)
pkgs_build="meson ninja-build pkgconf gcc python3 libelf-dev libzstd-dev zstd liblzma-dev libssl-dev openssl libncurses-dev libclang-dev libcairo2-dev"
# Tests: cmocka; clang + its runtimes for libFuzzer; tmux drives nvl top
pkgs_check="libcmocka-dev clang libclang-rt-14-dev clang-format groff-base tmux"

case "$what" in
build) pkgs="$pkgs_build" ;;
check|all) pkgs="$pkgs_build $pkgs_check" ;;
*) echo "usage: $0 [build|check|all]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "nouvelle: missing packages:$missing" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi

echo "nouvelle: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
