# ctest: labels=cli timeout=600 env=@cli serial
# `allocstress probe`: the fingerprint finds glibc's 16-byte class spacing and sequential layout,
# jemalloc's size classes and BiBOP layout; bad input gets one clear line.
source "$(dirname "$0")/../lib.sh"

"$ALLOCSTRESS" probe system jemalloc --out "$T/fp.json" >"$T/out" 2>"$T/err" || fail "probe exited $?: $(tail -1 "$T/err")"
check() { /usr/bin/python3 -c "import json,sys; fp={f['allocator']: f for f in json.load(open('$T/fp.json'))['fingerprints']}; sys.exit(0 if ($1) else 1)"; }
check "[c['usable'] for c in fp['system']['size_classes'][:4]] == [24, 40, 56, 72]" && pass || fail "glibc classes are not 24, 40, 56, 72, ..."
check "all(b['usable'] - a['usable'] == 16 for a, b in zip(fp['system']['size_classes'], fp['system']['size_classes'][1:]))" \
  && pass || fail "glibc classes are not 16 bytes apart"
check "fp['system']['style'] == 'sequential' and fp['system']['min_alignment'] == 16" && pass || fail "glibc style/alignment"
check "fp['system']['large_threshold_at_start'] and fp['system']['large_threshold_after_free'] > fp['system']['large_threshold_at_start']" \
  && pass || fail "glibc's threshold did not move up after a free"
check "[c['usable'] for c in fp['jemalloc']['size_classes'][:10]] == [8, 16, 32, 48, 64, 80, 96, 112, 128, 160]" \
  && pass || fail "jemalloc size classes"
check "fp['jemalloc']['style'] == 'BiBOP'" && pass || fail "jemalloc is not BiBOP"
grep -q "^## jemalloc" "$T/out" && grep -q "16..128 step 16" "$T/out" && pass || fail "no jemalloc table printed"

expect_error 2 "'pool' is an in-tree backend, not a malloc library" -- "$ALLOCSTRESS" probe pool
expect_error 2 "unknown allocator 'nosuch'" -- "$ALLOCSTRESS" probe nosuch
expect_error 2 "--out $T/fp.txt must end in .json" -- "$ALLOCSTRESS" probe system --out "$T/fp.txt"
expect_error 2 "output file $T/fp.json already exists (pass --force to overwrite, or choose another --out)" -- "$ALLOCSTRESS" probe system --out "$T/fp.json"
finish
