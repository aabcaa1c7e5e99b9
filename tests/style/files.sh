# shellcheck shell=bash
# style_files ROOT GLOB...: the project's files matching GLOB, one a line,
# relative to ROOT: git's list of tracked files in a checkout, else every
# file but the build directories' (a source tarball).
style_files() {
	local root=$1
	shift
	if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# tracked and still there (a file deleted but not yet committed is gone)
		git -C "$root" ls-files --cached --others --exclude-standard -- "$@" |
			while IFS= read -r f; do [ -f "$root/$f" ] && printf '%s\n' "$f"; done
		return
	fi
	local args=() g
	for g in "$@"; do args+=(-o -name "$g"); done
	(cd "$root" && find . \( -name 'build*' -o -name '.git' \) -prune -o -type f \( -false "${args[@]}" \) -print |
		sed 's|^\./||' | sort)
}
