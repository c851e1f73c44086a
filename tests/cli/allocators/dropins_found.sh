# ctest: labels=cli timeout=600 env=@cli serial
# On Debian 12 the six packaged drop-in allocators of allocators/manifest.tsv are found and pass
# their preload check: jemalloc, tcmalloc, tcmalloc_minimal, mimalloc, tbbmalloc and scudo
# (scripts/setup-deps.sh installs their packages).  The tests that loop over "the drop-ins found"
# have this floor under them: a package that goes missing fails here, naming it, instead of
# silently shrinking every loop.  On another distribution the list is not known: this test says so
# and records a skipped part (tests/skip_policy.py), which CI refuses unless allowed.
source "$(dirname "$0")/../lib.sh"

packaged=(jemalloc tcmalloc tcmalloc_minimal mimalloc tbbmalloc scudo)
# shellcheck disable=SC1091
. /etc/os-release
if [ "${ID:-}" = debian ] && [ "${VERSION_ID:-}" = 12 ]; then
  "$ALLOCSTRESS" list >"$T/list" 2>"$T/err" || fail "allocstress list: exit $?: $(cat "$T/err")"
  for a in "${packaged[@]}"; do
    line=$(awk -v a="$a" '$1 == a && $2 == "drop-in"' "$T/list")
    [ "$(awk '{print $3}' <<<"$line")" = found ] && pass || fail "$a is not found on Debian 12: ${line:-not listed} (scripts/setup-deps.sh installs it)"
  done
  # Found is not enough: each one must also take when preloaded (the probe sees it serve malloc).
  for a in "${packaged[@]}"; do
    "$ALLOCSTRESS" run --allocator "$a" --verify-only >"$T/v" 2>&1 && pass || fail "$a does not pass its preload check: $(tail -1 "$T/v")"
  done
else
  skip_part debian12-dropins "this is ${PRETTY_NAME:-an unknown system}, not Debian 12: which drop-ins are packaged is not known"
fi
finish
