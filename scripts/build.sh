#!/usr/bin/env bash
# Configure (once) and build extprof in build/, incrementally.  Sourced by
# example.sh and test.sh; runnable alone.  BUILD_DIR and BUILD_OPTS override.
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/deps.sh"

build_extprof() {
	local dir=${BUILD_DIR:-$EXTPROF_ROOT/build}
	deps_install
	if [ ! -f "$dir/build.ninja" ]; then
		# shellcheck disable=SC2086
		meson setup "$dir" "$EXTPROF_ROOT" ${BUILD_OPTS:-} >&2
	fi
	ninja -C "$dir" >&2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	build_extprof
fi
