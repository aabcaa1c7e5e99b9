#!/usr/bin/env bash
# The project's C files against its .clang-format: every line clang-format
# would change is said (file:line and the change), and the status is 1.
#   check_format.sh SOURCE_ROOT [CLANG_FORMAT]
# A file written by hand in a layout clang-format would undo (an assembler
# listing) keeps it between /* clang-format off */ and /* clang-format on */.
set -euo pipefail
root=$1
clang_format=${2:-clang-format}
. "$(dirname "${BASH_SOURCE[0]}")/files.sh"

mapfile -t c_files < <(style_files "$root" '*.c' '*.h')
[ "${#c_files[@]}" -gt 0 ] || { echo "check_format: no C file under $root" >&2; exit 2; }
cd "$root"
if ! "$clang_format" --dry-run --Werror "${c_files[@]}"; then
	echo "check_format: the files above differ from .clang-format; 'clang-format -i FILE' fixes them" >&2
	exit 1
fi
echo "check_format: ${#c_files[@]} C files as .clang-format writes them"
