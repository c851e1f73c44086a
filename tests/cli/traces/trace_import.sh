# ctest: labels=cli timeout=300 env=ALLOCSTRESS,TRACE_DATA serial
# `allocstress import` (Steve ops text, heaptrack data) and `allocstress trace-info`: the
# fixtures of tests/data/traces give their known counts (README.md there); bad input is one
# error line, exit 2, and no file left behind; a cut trace is summarised with one warning.
source "$(dirname "$0")/../lib.sh"
: "${TRACE_DATA:?set by CTest}"
STEVE="$TRACE_DATA/steve-small.ops"
HEAPTRACK="$TRACE_DATA/heaptrack.sort.31720.zst"

# json_field FILE KEY: one field of the JSON object in FILE.
json_field() { /usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2"; }

# check_json FILE KEY WANT: the field's JSON text equals WANT.
check_json() {
  local got
  got=$(json_field "$1" "$2")
  [ "$got" = "$3" ] && pass || fail "$1: $2 is $got, wanted $3"
}

# --- Steve ops text ------------------------------------------------------------------------
out=$("$ALLOCSTRESS" import --format steve "$STEVE" -o "$T/steve.ast" 2>"$T/err") && rc=0 || rc=$?
[ "$rc" = 0 ] && [ ! -s "$T/err" ] && pass || fail "import steve: exit $rc: $(cat "$T/err")"
[ "$(printf '%s\n' "$out" | grep -c '')" = 1 ] && pass || fail "import steve printed more than one line: $out"
case "$out" in *"10 events in 1 thread: 6 allocations, 4 frees, 2 blocks never freed; skipped 2 lock/unlock lines and 4 blank or comment lines"*) pass ;;
  *) fail "import steve summary: $out" ;; esac

"$ALLOCSTRESS" trace-info "$T/steve.ast" --json >"$T/steve.json" 2>"$T/err" && [ ! -s "$T/err" ] && pass || fail "trace-info steve: $(cat "$T/err")"
check_json "$T/steve.json" events 10
check_json "$T/steve.json" ops '{"free": 4, "malloc": 6}'
check_json "$T/steve.json" requested_bytes 1508
check_json "$T/steve.json" peak_live_bytes 1158
check_json "$T/steve.json" live_bytes_at_end 1008
check_json "$T/steve.json" frees_unmatched 0
check_json "$T/steve.json" imported true
check_json "$T/steve.json" threads '[{"events": 10, "index": 0, "tid": 0}]'
check_json "$T/steve.json" truncation null
rm -f "$T/steve.json"

text=$("$ALLOCSTRESS" trace-info "$T/steve.ast" 2>"$T/err") && [ ! -s "$T/err" ] && pass || fail "trace-info steve text: $(cat "$T/err")"
for want in "events:       10: malloc 6, free 4" "peak live:    1158 bytes requested" "command line: not recorded" \
            "TSC rate:     none (imported trace: timestamps are event indexes)"; do
  case "$text" in *"$want"*) pass ;; *) fail "trace-info text lacks '$want': $text" ;; esac
done

# --- heaptrack ------------------------------------------------------------------------------
out=$("$ALLOCSTRESS" import --format heaptrack "$HEAPTRACK" -o "$T/sort.ast" 2>"$T/err") && [ ! -s "$T/err" ] && pass ||
  fail "import heaptrack: $(cat "$T/err")"
case "$out" in *"287 events in 1 thread: 219 allocations, 68 frees, 151 blocks never freed, 70 allocation infos"*) pass ;;
  *) fail "import heaptrack summary: $out" ;; esac
"$ALLOCSTRESS" trace-info "$T/sort.ast" --json >"$T/sort.json" 2>"$T/err" && pass || fail "trace-info heaptrack: $(cat "$T/err")"
check_json "$T/sort.json" pid 31720
check_json "$T/sort.json" command_line '["/usr/bin/sort /etc/hostname"]'
check_json "$T/sort.json" requested_bytes 100747
check_json "$T/sort.json" peak_live_bytes 89748
check_json "$T/sort.json" live_blocks_at_end 151
rm -f "$T/sort.json"

# The same data as plain text imports to the same events.
zstd -q -dc "$HEAPTRACK" >"$T/sort.txt"
"$ALLOCSTRESS" import --format heaptrack "$T/sort.txt" -o "$T/sort-text.ast" >/dev/null 2>"$T/err" && pass || fail "import heaptrack text: $(cat "$T/err")"
a=$("$ALLOCSTRESS" trace-info "$T/sort.ast" --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["events"], d["peak_live_bytes"], d["requested_bytes"])')
b=$("$ALLOCSTRESS" trace-info "$T/sort-text.ast" --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["events"], d["peak_live_bytes"], d["requested_bytes"])')
[ "$a" = "$b" ] && pass || fail "zstd and text imports differ: $a vs $b"
rm -f "$T/sort-text.ast"

# --- import: bad input ----------------------------------------------------------------------
printf '1 N 0 8\n2 F 0 8\n' >"$T/bad.ops"
printf 'hello\n' >"$T/hello.txt"
touch "$T/file"
expect_error 2 "$T/none.ops: cannot open"                 -- "$ALLOCSTRESS" import --format steve "$T/none.ops" -o "$T/x.ast"
expect_error 2 "unknown --format 'valgrind' (accepted: steve, heaptrack)" -- "$ALLOCSTRESS" import --format valgrind "$STEVE" -o "$T/x.ast"
expect_error 2 "--format is required"                     -- "$ALLOCSTRESS" import "$STEVE" -o "$T/x.ast"
expect_error 2 "bad.ops: line 2: F of handle '2' that is not live" -- "$ALLOCSTRESS" import --format steve "$T/bad.ops" -o "$T/x.ast"
expect_error 2 "hello.txt: offset 0: neither zstd-compressed nor heaptrack text" -- "$ALLOCSTRESS" import --format heaptrack "$T/hello.txt" -o "$T/x.ast"
expect_error 2 "steve-small.ops: offset 0: neither"       -- "$ALLOCSTRESS" import --format heaptrack "$STEVE" -o "$T/x.ast"
expect_error 2 "output folder $T/nodir does not exist"    -- "$ALLOCSTRESS" import --format steve "$STEVE" -o "$T/nodir/x.ast"
expect_error 2 "output folder $T/file is not a folder"    -- "$ALLOCSTRESS" import --format steve "$STEVE" -o "$T/file/x.ast"
expect_error 2 "already exists (pass --force"             -- "$ALLOCSTRESS" import --format steve "$STEVE" -o "$T/steve.ast"
# A read-only folder (under root, run without the capability that ignores permission bits).
mkdir "$T/ro" && chmod a-w "$T/ro"
expect_error 2 "output folder $T/ro is not writable"    -- without_dac "$ALLOCSTRESS" import --format steve "$STEVE" -o "$T/ro/x.ast"
chmod u+w "$T/ro" && rmdir "$T/ro"
# A failed import over an existing output with --force leaves the old file intact.
cp "$T/steve.ast" "$T/keep.ast"
expect_error 2 "bad.ops: line 2"                          -- "$ALLOCSTRESS" import --format steve "$T/bad.ops" -o "$T/steve.ast" --force
cmp -s "$T/steve.ast" "$T/keep.ast" && pass || fail "a failed --force import changed the existing output"
rm -f "$T/keep.ast"
"$ALLOCSTRESS" import --format heaptrack "$HEAPTRACK" -o "$T/steve.ast" --force >/dev/null && pass || fail "--force did not overwrite"
[ "$(json_field <("$ALLOCSTRESS" trace-info "$T/steve.ast" --json) events)" = 287 ] && pass || fail "--force import has other events"

# --- trace-info: bad input and truncation --------------------------------------------------
expect_error 2 "$T/none.ast: cannot open"                 -- "$ALLOCSTRESS" trace-info "$T/none.ast"
expect_error 2 "hello.txt: offset 0: not an allocstress trace" -- "$ALLOCSTRESS" trace-info "$T/hello.txt"
expect_error 2 "offset 0: not an allocstress trace"       -- "$ALLOCSTRESS" trace-info "$HEAPTRACK"
expect_error 2 "offset 0: empty file"                     -- "$ALLOCSTRESS" trace-info "$T/file"
# Corrupt: one flipped byte in the first block header, right after the 64-byte file header and
# the command line, is named at that block's offset.
size=$(stat -c %s "$T/sort.ast")
/usr/bin/python3 - "$T/sort.ast" "$T/corrupt.ast" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
block = 64 + struct.unpack_from('<I', b, 48)[0]
b[block + 12] ^= 0x01
open(sys.argv[2], 'wb').write(b)
EOF
block=$(/usr/bin/python3 -c 'import struct,sys; print(64 + struct.unpack_from("<I", open(sys.argv[1],"rb").read(), 48)[0])' "$T/sort.ast")
expect_error 2 "corrupt.ast: offset $block: block header check value mismatch" -- "$ALLOCSTRESS" trace-info "$T/corrupt.ast"
rm -f "$T/corrupt.ast"
# Truncated: the file cut inside its only block (before the 48-byte end record) is summarised (no
# blocks), with one warning line.
size=$((size - 48))
head -c $((size - 10)) "$T/sort.ast" >"$T/cut.ast"
out=$("$ALLOCSTRESS" trace-info "$T/cut.ast" --json 2>"$T/err") && rc=0 || rc=$?
[ "$rc" = 0 ] && pass || fail "trace-info on a cut trace: exit $rc"
[ "$(grep -c '' "$T/err")" = 1 ] && grep -q "^allocstress: warning: $T/cut.ast: offset $block: truncated trace" "$T/err" && pass ||
  fail "cut trace warning: $(cat "$T/err")"
printf '%s' "$out" >"$T/cut.json"
check_json "$T/cut.json" events 0
check_json "$T/cut.json" truncation "{\"offset\": $block, \"reason\": \"file ends inside the payload of block 0 of thread 0 ($((size - 10 - block - 48)) of $((size - block - 48)) bytes)\"}"
rm -f "$T/cut.json" "$T/err" "$T/cut.ast"
finish
