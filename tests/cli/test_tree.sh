#!/usr/bin/env bash
# test_tree.sh — what git tracks at the repository root: the well-known files
# only (Makefile, README.md, .gitignore and the few a C project keeps there);
# anything else there — such as the file named "-" an old `-o -` wrote —
# fails, named. The check also runs on a copy of the index with such files
# planted, and must name each of them. Outside a git work tree: skipped.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "skipped: not a git work tree"; exit $SKIPPED; }

ROOT_FILES=" Makefile README.md .gitignore .gitattributes .editorconfig .clang-format LICENSE COPYING CHANGELOG.md "

# Every file git tracks at the root that is not a well-known one, one a line
# (shell-quoted, so a name with a newline stays one line).
root_strays() {
	git ls-files -z | while IFS= read -r -d '' f; do
		case $f in */*) continue ;; esac
		[[ $ROOT_FILES == *" $f "* ]] || printf '%q\n' "$f"
	done
}

strays=$(root_strays)
while IFS= read -r f; do
	[ -n "$f" ] && bad "git tracks a file named $f at the repository root; only${ROOT_FILES%" "} belong there (git rm it, or move it into a folder)"
done <<<"$strays"

# planted into a copy of the index (nothing is written to the repository):
# each must be named, and a file in a folder is no stray
index=$tmp/index
cp "$(git rev-parse --git-path index)" "$index"
empty_blob=$(git hash-object -t blob /dev/null)
for name in - notes.txt $'two\nlines' tests/cli/-; do
	GIT_INDEX_FILE=$index git update-index --add --info-only --cacheinfo "100644,$empty_blob,$name" ||
		bad "could not plant $(printf '%q' "$name") in a copy of the index"
done
planted=$(GIT_INDEX_FILE=$index root_strays)
for want in - notes.txt "$(printf '%q' $'two\nlines')"; do
	grep -qxF -- "$want" <<<"$planted" || bad "a planted $want at the root was not named: $planted"
done
grep -qF "tests/cli" <<<"$planted" && bad "a file in a folder was taken for a stray: $planted"

[ "$fail" -eq 0 ] && echo "test_tree: only the well-known files at the root, and planted strays are named"
exit $fail
