#!/usr/bin/env bash
# ctest: name=safety.controls labels=cli timeout=300 env=@safety serial
# The safety probe (allocstress-safety-probe) against its controls, with no CLI in between: every
# case of `list` under the allocator that catches nothing (tests/support/catch_none_malloc.c) must
# end `outcome silent`, exit 0, no fault; under the one that catches everything
# (catch_all_malloc.c) it must be stopped: killed by SIGABRT with `step misuse` or `step follow`
# last and a "catch-all:" line on stderr, or a `fault target` line and exit 70; malloc-zero alone
# ends `outcome error`.  Each control's `provider` line must name it.  Then `conformance`: glibc
# (no preload) passes alignment and fails nothing; align8 and misalign1 (offset_malloc.c) fail
# alignment (the size and the alignment it needed) and still exit 0 with `done`: the check finds
# them, not a crash.
. "$(dirname "$0")/../lib.sh"
: "${SAFETY_PROBE:?set by CTest}" "${CATCH_ALL_MALLOC:?}" "${CATCH_NONE_MALLOC:?}" "${ALIGN8_MALLOC:?}" "${MISALIGN1_MALLOC:?}"
ulimit -c 0  # an aborting case must not leave a core file
cd "$T" || exit 1

# probe PRELOAD ARGS...: runs the probe (under PRELOAD unless empty); sets rc, out, err, last.
probe() {
  local preload=$1
  shift
  {  # (the braces' 2>/dev/null: bash's own "Aborted" notice; the probe's stderr goes to $T/err)
    if [ -n "$preload" ]; then
      timeout 10 env LD_PRELOAD="$preload" "$SAFETY_PROBE" "$@" >"$T/out" 2>"$T/err" && rc=0 || rc=$?
    else
      timeout 60 "$SAFETY_PROBE" "$@" >"$T/out" 2>"$T/err" && rc=0 || rc=$?
    fi
  } 2>/dev/null
  out=$(cat "$T/out")
  err=$(cat "$T/err")
  last=$(tail -n 1 "$T/out")
}

# How a run ended, in words: "exit N" or "SIGNAME", its last stdout line and stderr's last line.
seen() {
  local how="exit $rc"
  [ "$rc" -gt 128 ] && how="signal $((rc - 128))$( [ "$rc" = 134 ] && echo ' (SIGABRT)')"
  [ "$rc" = 124 ] && how="timed out"
  printf '%s, last line "%s"%s' "$how" "$last" "$( [ -n "$err" ] && printf ', stderr "%s"' "$(tail -n 1 <<<"$err")")"
}

# The provider line must name the preloaded library.
check_provider() {
  local label=$1 lib=$2 provider
  provider=$(sed -n 's/^provider //p' <<<"$out" | head -n 1)
  if [ "$provider" = "$(realpath "$lib")" ]; then pass; else fail "$label: provider '$provider', wanted $(realpath "$lib")"; fi
}

list=$("$SAFETY_PROBE" list 2>&1) || fail "list exited $?: $list"
mapfile -t cases < <(grep -v '^provider ' <<<"$list" | cut -f1)
bad_lines=$(grep -v '^provider ' <<<"$list" | awk -F'\t' 'NF != 4 || ($3 != "0" && $3 != "1")')
[ -z "$bad_lines" ] && pass || fail "list lines not NAME<tab>GROUP<tab>0|1<tab>DESCRIPTION: $bad_lines"
if [ "${#cases[@]}" -ge 24 ]; then pass; else fail "list names ${#cases[@]} cases, wanted at least 24"; fi

ran=0
for c in "${cases[@]}"; do
  # catch_none: nothing is caught, nothing visible happens.
  probe "$CATCH_NONE_MALLOC" case "$c"
  [ "$ran" = 0 ] && check_provider "catch_none" "$CATCH_NONE_MALLOC"
  none=$(sed -n 's/^outcome //p' <<<"$out")
  if [ "$rc" = 0 ] && grep -q '^outcome silent' <<<"$out" && ! grep -q '^fault ' <<<"$out"; then
    pass
  else
    fail "$c under catch_none: wanted exit 0 and outcome silent, saw $(seen)"
    none="MISMATCH: $(seen)"
  fi

  # catch_all: stopped at the misuse (or right after it), or its access faulted on the target.
  probe "$CATCH_ALL_MALLOC" case "$c"
  [ "$ran" = 0 ] && check_provider "catch_all" "$CATCH_ALL_MALLOC"
  all=""
  if [ "$c" = malloc-zero ]; then
    [ "$rc" = 0 ] && grep -q '^outcome error' <<<"$out" && all=$(sed -n 's/^outcome //p' <<<"$out")
  elif [ "$rc" = 134 ] && { [ "$last" = "step misuse" ] || [ "$last" = "step follow" ]; } && grep -q '^catch-all:' <<<"$err"; then
    all="SIGABRT in ${last#step }: $(grep '^catch-all:' <<<"$err" | tail -n 1)"
  elif [ "$rc" = 70 ] && grep -q '^fault target ' <<<"$out"; then
    all=$(grep '^fault target ' <<<"$out")
  fi
  if [ -n "$all" ]; then
    pass
  else
    fail "$c under catch_all: wanted $( [ "$c" = malloc-zero ] && echo 'outcome error' || echo 'SIGABRT after step misuse/follow with a catch-all: message, or fault target and exit 70'), saw $(seen)"
    all="MISMATCH: $(seen)"
  fi
  printf '%-30s catch_none: %s\n%-30s catch_all:  %s\n' "$c" "$none" "" "$all"
  ran=$((ran + 1))
done
if [ "$ran" = "${#cases[@]}" ] && [ "$ran" -ge 24 ]; then pass; else fail "ran $ran of ${#cases[@]} cases"; fi

# Conformance: glibc conforms; the offset allocators are found by the check, not by a crash.
probe "" conformance
if [ "$rc" = 0 ] && grep -qx 'ok alignment' <<<"$out" && ! grep -q '^fail' <<<"$out" && [ "$last" = done ]; then
  pass
  echo "conformance under glibc: $(grep -c '^ok ' <<<"$out") ok, $(grep -c '^skip ' <<<"$out") skipped"
else
  fail "conformance under glibc: wanted exit 0, ok alignment, no fail, done; saw $(seen): $(grep '^fail' <<<"$out")"
fi
# align8's first block to break the rule is the first that needs 16 (malloc(16)); misalign1's the
# first that needs 2 (malloc(2)).
for control in ALIGN8_MALLOC:'malloc(16) returned 0x[0-9a-f]*8, not aligned to 16 (alignof(max_align_t))' \
               MISALIGN1_MALLOC:'malloc(2) returned 0x[0-9a-f]*[13579bdf], not aligned to 2 '; do
  want=${control#*:}
  control=${control%%:*}
  probe "${!control}" conformance
  check_provider "conformance under $control" "${!control}"
  failure=$(grep '^fail alignment: ' <<<"$out")
  if [ "$rc" = 0 ] && grep -q "$want" <<<"$failure" && [ "$last" = done ]; then
    pass
    echo "conformance under $control: $failure"
  else
    fail "conformance under $control: wanted exit 0, 'fail alignment: $want' and done; saw $(seen): $failure"
  fi
done

finish
