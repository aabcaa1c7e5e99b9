#!/usr/bin/env bash
# Runs shellcheck over every shell script of the project (the files named *.sh,
# and those whose first line runs sh or bash: .ci/run), at its default
# severity: any finding fails.  A finding that is wrong about the code is
# silenced where it is, with a "# shellcheck disable=SCnnnn # why" line.
#   check_shell.sh SOURCE_ROOT [SHELLCHECK]
set -euo pipefail
root=$1
shellcheck=${2:-shellcheck}
. "$(dirname "${BASH_SOURCE[0]}")/files.sh"

scripts=()
while IFS= read -r f; do
	case $f in
	*.sh) scripts+=("$f") ;;
	*)
		IFS= read -r first <"$root/$f" || true
		case $first in '#!'*/sh | '#!'*/bash | '#!'*'env bash' | '#!'*'env sh') scripts+=("$f") ;; esac
		;;
	esac
done < <(style_files "$root" '*')
[ "${#scripts[@]}" -gt 0 ] || { echo "check_shell: no shell script under $root" >&2; exit 2; }
cd "$root"
# -x: the files a script sources (". FILE") are followed, from the script's folder
"$shellcheck" -x -P SCRIPTDIR "${scripts[@]}"
echo "check_shell: ${#scripts[@]} shell scripts clean"
