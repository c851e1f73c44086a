# The one-definition check (check_rules.py) on a copy of this repository's sources, which must
# pass, and on copies with one violation planted each -- a second C++ definition of a rule, a
# Python wrapper that computes the rule itself, a second Python definition in another module, a
# removed rule defined again -- each of which must fail, naming the rule and the file.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
status=0
CLEAN="$T/repo"
mkdir -p "$CLEAN"
(cd "$ROOT" && find . \( -path ./build -o -path ./.git -o -path ./tests -o -name __pycache__ \) -prune -o -type f \( -name '*.c' -o -name '*.h' \
   -o -name '*.cpp' -o -name '*.hpp' -o -name '*.py' \) -print | tar -cf - -T -) | tar -xf - -C "$CLEAN"
check() { /usr/bin/python3 "$HERE/check_rules.py" "$1" 2>/dev/null; }
out=$(check "$CLEAN") || { echo "FAIL: the repository's copy was refused: $out"; status=1; }

# plant NAME FILE TEXT EXPECTED: a fresh copy with TEXT appended to FILE must fail with a line containing EXPECTED.
plant() {
  local copy="$T/$1"
  rm -rf "$copy"; cp -a "$CLEAN" "$copy"
  printf '%s\n' "$3" >> "$copy/$2"
  local got
  got=$(check "$copy") && { echo "FAIL: $1 passed"; status=1; return; }
  grep -qF -- "$4" <<<"$got" || { echo "FAIL: $1 not named (expected '$4'): $got"; status=1; }
  [ "$(grep -c '' <<<"$got")" = 1 ] || { echo "FAIL: $1: expected exactly 1 violation: $got"; status=1; }
  rm -rf "$copy"
}
PKG=analysis/allocstress
# A rule's first line in rules.txt: its name, its C++ pattern and its first Python name.
trim() { sed 's/^ *//; s/ *$//'; }  # (not xargs: it eats the pattern's backslashes)
first=$(grep -v '^\s*#' "$HERE/rules.txt" | grep '|' | grep -v '^removed' | head -n 1)
rule=$(cut -d'|' -f1 <<<"$first" | trim)
pattern=$(cut -d'|' -f2 <<<"$first" | trim)
py=$(cut -d'|' -f3 <<<"$first" | cut -d, -f1 | trim)
file=${py%%:*} name=${py##*:}
cpp_file=$(grep -rlE "$pattern" --include='*.hpp' --include='*.cpp' "$CLEAN" | head -n 1)
cpp_line=$(grep -hE "$pattern" "$cpp_file" | head -n 1)
plant cpp-twin "${cpp_file#"$CLEAN"/}" "$cpp_line" "rule '$rule': its C++ definition"
plant python-twin $PKG/tabulation/latex_table.py "def $name(values):
    return sorted(values)[len(values) // 2]" "rule '$rule': $PKG/tabulation/latex_table.py:"
# The wrapper's body replaced by arithmetic: the definition no longer calls _core.
copy="$T/reimplemented"; rm -rf "$copy"; cp -a "$CLEAN" "$copy"
/usr/bin/python3 - "$copy/$PKG/$file" "$name" <<'PY'
import ast, sys
path, name = sys.argv[1:]
text = open(path).read()
node = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.Assign)) and
            (getattr(n, "name", None) == name or any(getattr(t, "id", None) == name for t in getattr(n, "targets", []))))
lines = text.splitlines()
indent = " " * (node.col_offset + 4)
body = [f"def {name}(*args, **kwargs):", f"{indent}return 0.5"] if isinstance(node, ast.FunctionDef) else [f"{name} = 0.5"]
lines[node.lineno - 1:node.end_lineno] = [" " * node.col_offset + body[0]] + body[1:]
open(path, "w").write("\n".join(lines) + "\n")
PY
got=$(check "$copy") && { echo "FAIL: a re-implemented $name passed"; status=1; }
grep -qF "$name computes the rule in Python" <<<"$got" || { echo "FAIL: re-implemented $name not named: $got"; status=1; }
removed=$(grep '^removed' "$HERE/rules.txt" | cut -d'|' -f2 | cut -d, -f1 | trim)
if [ -n "$removed" ]; then
  plant removed-again $PKG/stats/geomean.py "def $removed(a, b):
    return a / b" "removed rule: $PKG/stats/geomean.py:"
fi
[ $status = 0 ] && echo "rules self-test passed"
exit $status
