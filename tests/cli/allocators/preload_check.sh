# ctest: labels=cli timeout=600 env=@cli serial
# The preload check: malloc must resolve into the allocator's library, or the cell fails loudly.
source "$(dirname "$0")/../lib.sh"

expect_error 3 "preload verification failed: malloc resolves to" -- "$ALLOCSTRESS" run --allocator nomalloc="$NO_MALLOC" "${TINY[@]}"
expect_error 3 "replaces only part of the malloc family" -- "$ALLOCSTRESS" run --allocator half="$MALLOC_ONLY" "${TINY[@]}"

# A stray LD_PRELOAD from the user's shell is removed before an in-tree or system cell runs.
out=$(LD_PRELOAD="$NO_MALLOC" "$ALLOCSTRESS" run --allocator system --verify-only) || fail "system with stray LD_PRELOAD failed"
case "$out" in *libc.so*) pass ;; *) fail "system cell did not run on libc: $out" ;; esac

# Every installed drop-in really replaces malloc in its cell.
while read -r name kind status _; do
  [ "$kind" = drop-in ] && [ "$status" = found ] || continue
  out=$("$ALLOCSTRESS" run --allocator "$name" --verify-only) || { fail "$name: verify-only failed"; continue; }
  lib=$("$ALLOCSTRESS" list | awk -v n="$name" '$1 == n {print $5}')
  case "$out" in *"$lib"*) pass ;; *) fail "$name: malloc provider is not $lib: $out" ;; esac
done < <("$ALLOCSTRESS" list | tail -n +3)
finish
