#!/usr/bin/env bash
# Install what extprof needs to build and test, from Debian's packages: only
# what is missing, non-interactively, saying what it installs.  Safe to run
# again.  Sourced by the other scripts; runnable alone.
set -euo pipefail

# build: compiler, meson, the x86 decoder, libelf and LLVM's libunwind (their
# static archives go into the shim; libunwind-14-dev replaces libunwind-dev,
# whose archive cannot be linked into a shared object); tests: Criterion, jansson,
# clang (sanitizers, fuzzing), uftrace, time and python3 (the benchmarks); cairo
# draws the doubling test's plots, expat reads them back in its test;
# protobuf-c (protoc-c and the library) and zlib write report --format pprof,
# golang-go's go tool pprof reads it back in its test, and valgrind's
# callgrind_annotate reads report --format callgrind (golang-go is the
# largest: about 80 MB, 20-25 s of a fresh install on the 2-core CI VM); the
# real programs of tests/integration/test_real.c: lua5.4, jq and libjq (with its
# headers, for a program linked with it), clang with libLLVM; Lua's and
# SQLite's libraries (with headers, and Lua's debug symbols, which name its
# luaV_execute) for tests/integration/test_translate.c's programs; libc6-dbg names
# libc's static functions and IFUNC implementations (the shim reads a
# stripped object's debug file, when there is one); musl-gcc builds the attach
# tests' program that does not use glibc; bzip2 (with its libbz2) is the program
# the exports are checked on, chromium opens the HTML pages headless (and
# speedscope, which the test gets with npm when it is there) and takes their
# screenshots; libseccomp-dev builds the safety tests' program that sandboxes
# itself, and universal-ctags is a Debian program that does (ctags
# --_interactive=sandbox); man-db and groff-base render the manual pages in
# their test, and bash-completion's pkg-config file says where the completion
# is installed; Open MPI (openmpi-bin's mpirun, libopenmpi-dev's headers) runs
# the fleet tests' MPI program, whose ranks' dumps the shim gathers at
# MPI_Finalize; clang-format and shellcheck check the style (tests/style).
EXTPROF_PACKAGES=(
	gcc
	g++
	clang
	meson
	ninja-build
	pkg-config
	libelf-dev
	libzydis-dev
	uthash-dev
	libunwind-14-dev
	libcriterion-dev
	libjansson-dev
	libcairo2-dev
	libexpat1-dev
	libprotobuf-c-dev
	protobuf-c-compiler
	zlib1g-dev
	golang-go
	valgrind
	strace
	libclang-rt-14-dev
	musl-tools
	uftrace
	time
	python3
	lua5.4
	liblua5.4-dev
	liblua5.4-0-dbg
	libsqlite3-dev
	jq
	libjq-dev
	libc6-dbg
	bzip2
	chromium
	libseccomp-dev
	universal-ctags
	man-db
	groff-base
	bash-completion
	openmpi-bin
	libopenmpi-dev
	clang-format
	shellcheck
)

deps_missing() {
	local p
	for p in "${EXTPROF_PACKAGES[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			echo "$p"
		fi
	done
}

deps_install() {
	local missing
	missing=$(deps_missing)
	[ -z "$missing" ] && return 0
	# shellcheck disable=SC2086 # one name a line, said on one
	echo "extprof: installing missing packages:" $missing >&2
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >&2 || return
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing >&2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	deps_install
fi
