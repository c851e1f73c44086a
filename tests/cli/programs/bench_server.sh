# ctest: labels=cli timeout=600 env=@cli,STATIC_PROGRAM,TINY_SERVER,TINY_CLIENT serial
# `allocstress bench --server` with a tiny server and load client of the project's own
# (tests/support/tiny_server.c, tiny_client.c): the server is measured under each allocator from
# start to stop while the client (not preloaded) loads it; ready by port and stopped by a text
# sent to it, then ready by a regex on its output and stopped by SIGTERM.  The metric comes from
# the client's output, the time and memory from the server.
source "$(dirname "$0")/../lib.sh"
: "${TINY_SERVER:?set by CTest}" "${TINY_CLIENT:?set by CTest}"
JEMALLOC=$("$ALLOCSTRESS" list 2>/dev/null | awk '$1 == "jemalloc" && $3 == "found" {print "jemalloc"}' | head -1)
[ -n "$JEMALLOC" ] || { echo "FAIL: jemalloc is not installed (scripts/setup-deps.sh installs it)"; exit 1; }

check() {  # $1: results file
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
it = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
assert {b["allocator"] for b in it} == {"system", "jemalloc"}, it
for b in it:
    assert b["status"] == "ok", (b["allocator"], b.get("reason"))
    m, p = b["workload_metrics"], b["program"]
    assert m["rps"] > 0 and m["wall_s"] > 0 and m["peak_rss_mib"] > 0, m
    assert p["drive"] == "server" and "tiny_client" in p["client"], p
    assert p["processes"][0]["executable"].endswith("tiny_server"), p["processes"]  # the client is not preloaded: it does not report
    assert p["preload"]["processes_reached"] == p["preload"]["processes"] == 1, p["preload"]
    assert p["exit_code"] == 0, p
PY
}

"$ALLOCSTRESS" bench --allocators system,jemalloc --reps 2 --server "$TINY_SERVER {port}" --ready-port '{port}' \
  --client "$TINY_CLIENT {port} 3000" --stop 'send:SHUTDOWN\n' --metric 'rps=rate: ([0-9.]+) requests/s' --name tiny-kv \
  -o "$T/port.json" >/dev/null 2>"$T/log" || fail "bench --server (port) failed: $(tail -3 "$T/log")"
check "$T/port.json" && pass || fail "server records (ready by port, stopped by text) are wrong"
grep -q "tiny-kv, 1 thread\*\*: rps, read from the program's output, highest first" "$T/port.md" && pass || fail "no rps verdict line"

"$ALLOCSTRESS" bench --allocators system,jemalloc --reps 1 --server "$TINY_SERVER {port}" --ready-regex 'tiny-server ready on [0-9]+' \
  --client "$TINY_CLIENT {port} 1000" --metric 'rps=rate: ([0-9.]+) requests/s' --name tiny-kv \
  -o "$T/regex.json" >/dev/null 2>"$T/log2" || fail "bench --server (regex) failed: $(tail -3 "$T/log2")"
check "$T/regex.json" && pass || fail "server records (ready by regex, stopped by SIGTERM) are wrong"

# A client that fails: the run fails with the client's reason.
"$ALLOCSTRESS" bench --allocators system --reps 1 --server "$TINY_SERVER {port}" --ready-port '{port}' \
  --client "echo cannot load >&2; exit 7" -o "$T/client.json" >/dev/null 2>"$T/client.err" && rc=0 || rc=$?
# Its only allocator failed: exit 1 (the program never ran to its end), the reason in the record.
[ "$rc" = 1 ] && grep -q "^note: no allocator ran the program to its end: every run failed" "$T/client.err" \
  && grep -q '"reason": "its verification run failed: the client failed: the program exited with code 7: cannot load"' "$T/client.json" && pass \
  || fail "a failing client is not named (exit $rc, wanted 1): $(grep -m2 reason "$T/client.json") $(tail -2 "$T/client.err")"
# A server that crashes during the load under jemalloc only: jemalloc fails with the server's end, system is measured.
"$ALLOCSTRESS" bench --allocators system,jemalloc --reps 1 --ready-regex ready --client "sleep 1" --name crashes \
  --server "/bin/sh -c 'echo ready; sleep 0.3; case \"\$LD_PRELOAD\" in *jemalloc*) kill -SEGV \$\$;; esac; exec sleep 30'" \
  -o "$T/crash.json" >/dev/null 2>"$T/crash.err" || fail "bench with one crashing allocator exited $? (wanted 0: system was measured): $(tail -2 "$T/crash.err")"
/usr/bin/python3 - "$T/crash.json" <<'PY' && pass || fail "a server that crashes under the load is not failed with its signal"
import json, sys
it = {b["allocator"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"}
assert it["system"]["status"] == "ok", it["system"].get("reason")
assert "the server ended during the load: " in it["jemalloc"]["reason"] and "signal 11 (SIGSEGV)" in it["jemalloc"]["reason"], it["jemalloc"]["reason"]
PY
# A server that never comes up.
"$ALLOCSTRESS" bench --allocators system --reps 1 --timeout 3 --server "$TINY_SERVER {port}" --ready-regex 'never printed' \
  --client "true" -o "$T/never.json" >/dev/null 2>"$T/never.err" && rc=0 || rc=$?
[ "$rc" = 1 ] && grep -q "its verification run failed: the server was not up within 3 s (its output never matched 'never printed')" "$T/never.json" && pass \
  || fail "a server that is never up is not named (exit $rc, wanted 1): $(grep -m2 reason "$T/never.json")"
finish
