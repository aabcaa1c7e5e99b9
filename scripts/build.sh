#!/usr/bin/env bash
# Configure (once) and build extprof, incrementally and quietly: what apt-get
# (scripts/deps.sh), meson and ninja print goes to setup.log in the build
# directory, and is shown (its last lines, then its path) only when a step
# fails.  Sourced by example.sh, test.sh, fuzz.sh and the benchmarks;
# runnable alone.  BUILD_DIR (default build/) and BUILD_OPTS (meson setup's
# options) override; VERBOSE=1 shows the log as it is written.
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/deps.sh"

# The logs this process has started: each is emptied at its first use, so
# that it holds this run's steps only.
declare -gA build_logs_started=()

# build_logged LOG CMD...: run CMD with its output added to LOG; when it fails,
# say so with LOG's last lines and its path on stderr, and return its status.
build_logged() {
	local log=$1 st=0
	shift
	if [ -z "${build_logs_started[$log]:-}" ]; then
		: >"$log"
		build_logs_started[$log]=1
	fi
	echo "+ $*" >>"$log"
	# CMD runs with errexit off (its status is tested): a function given as
	# CMD returns at its first failure itself (deps_install does).
	if [ "${VERBOSE:-0}" != 0 ]; then
		"$@" 2>&1 </dev/null | tee -a "$log" >&2 || st=$?
	else
		"$@" >>"$log" 2>&1 </dev/null || st=$?
	fi
	if [ "$st" -ne 0 ]; then
		echo "extprof: '$*' failed (status $st); the end of its log:" >&2
		tail -n 40 "$log" | sed 's/^/  /' >&2
		echo "extprof: the whole log: $log" >&2
	fi
	return "$st"
}

# build_dir DIR [MESON_OPTION...] [-- NINJA_TARGET...]: install what is missing,
# configure DIR with those options if it is not configured yet, and build the
# targets (all by default); the steps' output in DIR/setup.log.
build_dir() {
	local dir=$1 opts=() targets=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -eq 0 ] || { shift; targets=("$@"); }
	mkdir -p "$dir"
	local log=$dir/setup.log
	build_logged "$log" deps_install || return
	if [ ! -f "$dir/build.ninja" ]; then
		build_logged "$log" meson setup "$dir" "$EXTPROF_ROOT" "${opts[@]}" || return
	fi
	build_logged "$log" ninja -C "$dir" "${targets[@]}"
}

# build_extprof: build_dir for BUILD_DIR (build/ by default), with BUILD_OPTS.
build_extprof() {
	# shellcheck disable=SC2086
	build_dir "${BUILD_DIR:-$EXTPROF_ROOT/build}" ${BUILD_OPTS:-}
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	build_extprof
fi
