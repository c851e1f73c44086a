# ctest: labels=cli timeout=600 env=@cli serial
# results/README.md carries the metric catalogue as `allocstress metrics --markdown` prints it
# (between its metric-catalogue markers); when a workload's metrics change, regenerate it with
# scripts/update-metric-docs.sh.  Also: `metrics` and `workloads` print, and refuse bad input.
source "$(dirname "$0")/../lib.sh"
README="$(dirname "$0")/../../../results/README.md"
"$ALLOCSTRESS" metrics --markdown > "$T/printed.md" || fail "metrics --markdown exited $?"
sed -n '/<!-- metric-catalogue:begin/,/<!-- metric-catalogue:end -->/p' "$README" | sed '1d;$d' > "$T/documented.md"
[ -s "$T/printed.md" ] && diff -q "$T/printed.md" "$T/documented.md" >/dev/null && pass ||
  fail "results/README.md's metric catalogue is stale (run scripts/update-metric-docs.sh): $(diff "$T/documented.md" "$T/printed.md" | head -5)"
rm -f "$T/printed.md" "$T/documented.md"
"$ALLOCSTRESS" metrics | grep -q "^net_cycles_per_pair  \[TSC cycles\]  headline" && pass || fail "metrics text lacks net_cycles_per_pair"
"$ALLOCSTRESS" workloads | grep -q "^phase-peak  (phases, net of the void baseline)" && pass || fail "workloads text lacks phase-peak"
[ "$("$ALLOCSTRESS" workloads --json | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -ge 14 ] && pass ||
  fail "workloads --json lists fewer than 14 workloads"
expect_error 2 "--json and --markdown are two forms of the same list" -- "$ALLOCSTRESS" metrics --json --markdown
finish
