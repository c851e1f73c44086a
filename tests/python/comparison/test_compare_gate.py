"""`compare` as a CI gate, on variants of the golden file (a real measured run): decisions with
their intervals, exit codes, --json, the reasons of n/a cells, the counts tier, the context
differences.  Every B is constructed from A's own records, so the true answer is known and
nothing depends on live timing."""

import json
import os
import subprocess

import pytest

from allocstress.comparison import compare_result
from allocstress.comparison import compare_decision as rule
from conftest import iteration_entries, write_variant

ALLOCSTRESS = os.environ.get("ALLOCSTRESS")


def run_cli(*args):
    assert ALLOCSTRESS, "CTest sets ALLOCSTRESS to the built executable"
    return subprocess.run([ALLOCSTRESS, *args], capture_output=True, text=True, timeout=300)


def swap_system_and_jemalloc(doc):
    """B = A with system's measured records labelled jemalloc and jemalloc's labelled system:
    'system' in B is really jemalloc (about 2x cheaper here) and 'jemalloc' really glibc."""
    for e in iteration_entries(doc):
        if e["allocator"] in ("system", "jemalloc"):
            e["allocator"] = {"system": "jemalloc", "jemalloc": "system"}[e["allocator"]]


def cell(comparison, allocator, threads):
    rows = comparison.cells[(comparison.cells["allocator"] == allocator) & (comparison.cells["threads"] == threads)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_swapped_allocators_are_worse_and_better_with_intervals(golden, tmp_path):
    b = write_variant(tmp_path, "swapped.json", swap_system_and_jemalloc)
    c = compare_result.compare_files(golden, b)
    for threads in (1, 2):
        system, jemalloc = cell(c, "system", threads), cell(c, "jemalloc", threads)
        assert system["decision"] == rule.BETTER and system["ci_high"] < 0.95, system
        assert jemalloc["decision"] == rule.WORSE and jemalloc["ci_low"] > 1.05, jemalloc
        assert system["ratio"] == pytest.approx(system["median_b"] / system["median_a"])
    # the untouched allocators are the same records on both sides: never called worse or better
    others = c.cells[~c.cells["allocator"].isin(["system", "jemalloc"])]
    assert set(others["decision"]) <= {rule.NO_CHANGE, rule.NOT_AVAILABLE}
    assert c.verdict[rule.WORSE] == 2 and c.verdict[rule.BETTER] == 2 and c.exit_status == rule.EXIT_WORSE
    # the swap shows in the context: 'system' in B carries jemalloc's library and version
    fields = {d["field"] for d in c.context}
    assert "allocator system: allocator_library" in fields and "allocator jemalloc: allocator_library" in fields


def test_cli_exit_code_gates_on_worse(golden, tmp_path):
    b = write_variant(tmp_path, "swapped.json", swap_system_and_jemalloc)
    r = run_cli("compare", golden, b)
    assert r.returncode == rule.EXIT_WORSE, r.stderr
    first = r.stdout.split("\n\n")[1].splitlines()  # the verdict lines come right after the A/B heading
    assert first[0].startswith("timing: 2 worse, 2 better") and "threshold ±5%" in first[0]
    assert first[-1] == "→ exit 4: 2 worse beyond ±5%"
    table = r.stdout[r.stdout.index("| decision |"):]
    rows = [line for line in table.splitlines() if line.startswith("| worse") or line.startswith("| better")]
    assert [line.split(" | ")[0] for line in rows] == ["| worse"] * 2 + ["| better"] * 2  # worst first
    assert "the quotient holds with at least 99.58% per cell (95% for all 12 cells together, Bonferroni)" in r.stdout
    assert "a cell achieves at least 87.50%, below the aim" in r.stdout  # 5 repetitions: [min, max], 93.75% each
    # the other direction: B -> A swaps worse and better; the same file against itself is clean
    assert run_cli("compare", b, golden).returncode == rule.EXIT_WORSE
    same = write_variant(tmp_path, "same.json", lambda doc: None)
    r = run_cli("compare", golden, same)
    assert r.returncode == 0 and "→ exit 0: nothing is worse beyond ±5%" in r.stdout, r.stdout
    # a threshold wider than the change: nothing is worse any more (the intervals reach ~1.2)
    assert run_cli("compare", golden, b, "--threshold", "99%").returncode == 0


def test_json_holds_the_whole_comparison(golden, tmp_path):
    b = write_variant(tmp_path, "swapped.json", swap_system_and_jemalloc)
    out = tmp_path / "c.json"
    r = run_cli("compare", golden, b, "--json", str(out), "--threshold", "5%")
    assert r.returncode == 4
    doc = json.loads(out.read_text())
    assert doc["schema"] == "allocstress-compare" and doc["threshold"] == 0.05 and doc["exit_status"] == 4
    assert set(doc["exit_status_meaning"]) == {"0", "1", "2", "3", "4"}
    verdict = doc["verdict"]
    assert verdict["worse"] == 2 and verdict["better"] == 2 and verdict["n/a"] >= 2  # void at 1 and 2 threads
    assert verdict["no change"] + verdict["n/a"] == 10  # the 5 untouched allocators and void, 2 thread counts
    assert doc["interval"]["familywise_level"] == 0.95 and doc["interval"]["cells"] == 12
    assert doc["interval"]["level"] == pytest.approx(1 - 0.05 / 12) and "quotient" in doc["interval"]["method"]
    assert doc["interval"]["achieved_level_at_least"] == pytest.approx(0.875)
    cells = {(x["allocator"], x["threads"]): x for x in doc["cells"]}
    assert len(cells) == 14
    worse = cells[("jemalloc", 2)]
    assert worse["decision"] == "worse" and worse["interval"]["low"] > 1.05 and worse["reason"]
    assert worse["interval"]["level"] == pytest.approx(0.875) and worse["interval"]["level"] < doc["interval"]["level"]  # achieved < aim
    assert cells[("void", 1)]["decision"] == "n/a" and cells[("void", 1)]["interval"] is None
    assert "baseline" in cells[("void", 1)]["reason"]
    assert doc["counts"]["compared"] is False and "counts records" in doc["counts"]["reason"]
    assert doc["geomean"]["cells"] == 14 - verdict["n/a"] and doc["geomean"]["of_cells"] == 14  # decided cells only
    assert doc["geomean"]["level"] == 0.95 and doc["geomean"]["low"] <= doc["geomean"]["ratio"] <= doc["geomean"]["high"]
    assert any(d["field"] == "allocator system: allocator_version" or d["field"] == "allocator system: allocator_library"
               for d in doc["context_differences"])
    # --json - writes the JSON alone to stdout
    r = run_cli("compare", golden, b, "--json", "-")
    assert json.loads(r.stdout)["verdict"] == doc["verdict"]


def damage_b(doc):
    """Every kind of n/a in one B: absent, failed, skipped, all disturbed, no baseline."""
    keep = []
    for e in doc["benchmarks"]:
        if e["run_type"] == "iteration":
            if e["allocator"] == "tbbmalloc":
                continue  # absent from B
            if e["allocator"] == "jemalloc":
                e.update(status="failed", reason="constructed: exited with signal 11")
            if e["allocator"] == "tcmalloc_minimal":
                e.update(status="skipped", reason="constructed: not installed")
            if e["allocator"] == "tcmalloc":
                e["interference"] = {"disturbed": True}
            if e["allocator"] == "mimalloc" and e["threads"] == 2:
                e.update(net_cycles_per_pair=None, baseline_cycles_per_pair=None)
        keep.append(e)
    doc["benchmarks"] = keep


def test_every_na_carries_its_reason(golden, tmp_path):
    b = write_variant(tmp_path, "damaged.json", damage_b)
    c = compare_result.compare_files(golden, b)
    reasons = {(r.allocator, r.threads): r.reason for r in c.cells.itertuples() if r.decision == rule.NOT_AVAILABLE}
    assert reasons[("tbbmalloc", 1)] == "absent from damaged"
    assert reasons[("jemalloc", 2)] == "failed in damaged: constructed: exited with signal 11"
    assert reasons[("tcmalloc_minimal", 1)] == "skipped in damaged: constructed: not installed"
    assert reasons[("tcmalloc", 2)] == "every process disturbed in damaged (5 of 5)"
    assert reasons[("mimalloc", 2)].startswith("no void baseline in damaged")
    assert reasons[("void", 1)].startswith("void is the baseline")
    assert all(reasons.values())
    assert len(c.cells) == 14  # no cell dropped: 7 allocators x 2 thread counts
    text = run_cli("compare", golden, b).stdout
    for reason in reasons.values():
        assert reason in text


def test_one_repetition_has_no_interval(golden, tmp_path):
    def one_rep(doc):
        doc["benchmarks"] = [e for e in doc["benchmarks"] if e["run_type"] != "iteration" or e["allocator"] != "system"
                             or e["repetition_index"] == 0]
    b = write_variant(tmp_path, "one.json", one_rep)
    row = cell(compare_result.compare_files(golden, b), "system", 1)
    assert row["decision"] == rule.NOT_AVAILABLE and row["reason"] == "only 1 undisturbed repetition in one: no interval"


def add_counts(factor_by_allocator, stream="0xabc"):
    """A counts tier (constructed figures, test input only) for system, jemalloc and void, with
    system's and jemalloc's net figures multiplied by the given factors."""
    def change(doc):
        for allocator, net in (("void", 0.0), ("system", 200.0), ("jemalloc", 100.0)):
            f = factor_by_allocator.get(allocator, 1.0)
            doc["benchmarks"].append({
                "run_type": "iteration", "name": f"alloc-test/{allocator}/threads:1/counts", "workload": "alloc-test",
                "allocator": allocator, "threads": 1, "status": "ok", "reason": None, "mode": "counts",
                "repetition_index": 0, "op_stream_hash": stream,
                "counts": {"net_estimated_cycles_per_unit": net * f, "net_instructions_per_unit": net / 2 * f,
                           "net_d1_misses_per_unit": 1.0 * f, "net_ll_misses_per_unit": 0.25 * f}})
    return change


def test_counts_are_compared_exactly(tmp_path):
    a = write_variant(tmp_path, "a.json", add_counts({}))
    b = write_variant(tmp_path, "b.json", add_counts({"system": 1.10, "jemalloc": 0.97}))
    c = compare_result.compare_files(a, b)
    rows = {r["allocator"]: r for r in c.counts.to_dict("records")}
    assert rows["system"]["decision"] == rule.WORSE and rows["system"]["reason"] == "B / A lies above +5% (exact)"
    assert rows["system"]["net_estimated_cycles_per_unit_delta"] == pytest.approx(20.0)
    assert rows["system"]["net_instructions_per_unit_delta"] == pytest.approx(10.0)
    assert rows["jemalloc"]["decision"] == rule.NO_CHANGE and rows["jemalloc"]["reason"] == "within ±5% (exact)"
    assert rows["void"]["decision"] == rule.NOT_AVAILABLE and "baseline" in rows["void"]["reason"]
    assert list(c.counts["allocator"])[0] == "system"  # worst first
    assert c.verdict[rule.WORSE] == 0 and c.exit_status == rule.EXIT_WORSE  # a worse counts figure gates too
    r = run_cli("compare", a, b)
    assert r.returncode == 4 and "counts: 1 worse, 0 better, 1 no change, 1 n/a of 3 cells" in r.stdout


def test_counts_of_different_op_streams_or_one_run_only_are_not_compared(golden, tmp_path):
    a = write_variant(tmp_path, "a.json", add_counts({}))
    b = write_variant(tmp_path, "b.json", add_counts({}, stream="0xdef"))
    rows = compare_result.compare_files(a, b).counts
    assert set(rows["decision"]) == {rule.NOT_AVAILABLE} and rows["reason"].str.contains("different op streams").sum() == 2
    c = compare_result.compare_files(a, golden)
    assert c.counts.empty and c.counts_note.startswith("golden-tiny has no counts records")


def test_context_differences_are_listed(golden, tmp_path):
    def other_machine(doc):
        ctx = doc["context"]
        ctx.update(host_name="other", cpu_model="Other CPU", kernel="Linux 9.9", load_avg_1min=7.5,
                   git_commit="0123456789abcdef", thp_mode="never", aslr="0",
                   allocator_environment={"MALLOC_ARENA_MAX": "1"})
        ctx["warnings"] = ctx.get("warnings", []) + ["constructed: turbo is on"]
        ctx.setdefault("plan", {})["placement"] = "scatter"
        for e in iteration_entries(doc):
            if e["allocator"] == "jemalloc":
                e["allocator_version"] = "9.9.9-constructed"
    b = write_variant(tmp_path, "other.json", other_machine)
    c = compare_result.compare_files(golden, b)
    found = {d["field"]: (d["a"], d["b"]) for d in c.context}
    for field in ("host_name", "cpu_model", "kernel", "load_avg_1min", "git_commit", "thp_mode", "aslr",
                  "allocator_environment.MALLOC_ARENA_MAX", "plan.placement", "allocator jemalloc: allocator_version"):
        assert field in found, (field, found)
    assert found["host_name"][1] == "other" and found["allocator jemalloc: allocator_version"][1] == "9.9.9-constructed"
    assert ("warning" in found) and found["warning"] == (None, "constructed: turbo is on")
    text = run_cli("compare", golden, b).stdout
    assert f"Context differences ({len(c.context)})" in text and "- kernel: A " in text
    same = write_variant(tmp_path, "same.json", lambda doc: None)
    assert compare_result.compare_files(golden, same).context == []


def slower_machine(factor):
    """B = A on a machine `factor` times slower: every timing record's raw, baseline and net cycles
    scaled alike (what a whole-VM slowdown between two runs of one commit looks like)."""
    def change(doc):
        for e in iteration_entries(doc):
            for key in ("cycles_per_pair", "baseline_cycles_per_pair", "net_cycles_per_pair"):
                if isinstance(e.get(key), (int, float)):
                    e[key] *= factor
    return change


def test_a_shift_of_the_whole_machine_is_named_and_exits_3(golden, tmp_path):
    b = write_variant(tmp_path, "slower.json", slower_machine(1.5))
    c = compare_result.compare_files(golden, b)
    assert c.reference_moved and c.exit_status == rule.EXIT_REFERENCE_MOVED == 3
    checks = {r.threads: r for r in c.reference.itertuples()}
    assert set(checks) == {1, 2} and all(r.moved for r in checks.values())
    for r in checks.values():  # void's own median moved by the factor, and its interval says so
        assert r.ratio == pytest.approx(1.5) and r.ci_low > 1.05 and r.reason == "the whole interval lies above +5%"
    assert c.verdict[rule.WORSE] > 0  # every allocator's figure moved too: the cells alone would say "worse"
    r = run_cli("compare", golden, b, "--json", str(tmp_path / "c.json"))
    assert r.returncode == 3, r.stderr
    verdict = r.stdout.split("\n\n")[1].splitlines()
    assert verdict[-2].startswith("reference moved: void (the op stream with no allocator) took 1.500x [")
    assert "as long in slower as in golden-tiny" in verdict[-2]
    assert verdict[-1].startswith("→ exit 3: the timing cells are not comparable: void moved beyond ±5%")
    assert "| alloc-test | 1 | 5/5 |" in r.stdout  # the reference checks' table
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["exit_status"] == 3 and doc["reference"]["moved"] is True and len(doc["reference"]["checks"]) == 2
    assert doc["reference"]["checks"][0]["interval"]["low"] > 1.05


def test_the_same_machine_keeps_its_reference(golden, tmp_path):
    same = write_variant(tmp_path, "same.json", lambda doc: None)
    c = compare_result.compare_files(golden, same)
    assert not c.reference_moved and c.exit_status == 0 and len(c.reference) == 2
    assert all(not r.moved and r.reason.startswith("inconclusive") for r in c.reference.itertuples())
    assert c.reference_line == ("reference: void (the op stream with no allocator) moved beyond ±5% in none of 2 checks "
                                "(within ±5% in 0, inconclusive in 2): no shift of the machine beyond the threshold was seen")
    # without void in B there is nothing to check, and the line says what that means
    no_void = write_variant(tmp_path, "novoid.json", lambda doc: doc.update(benchmarks=[
        e for e in doc["benchmarks"] if e["run_type"] != "iteration" or e["allocator"] != "void"]))
    line = compare_result.compare_files(golden, no_void).reference_line
    assert line.startswith("reference: not checked (no workload with a void baseline ran void in both runs)")


def test_a_worse_counts_figure_gates_even_when_the_machine_moved(tmp_path):
    def counts_then_slower(factors):
        def change(doc):
            add_counts(factors)(doc)
            slower_machine(1.5)(doc)
        return change
    a = write_variant(tmp_path, "a.json", add_counts({}))
    b = write_variant(tmp_path, "b.json", counts_then_slower({"system": 1.10}))
    c = compare_result.compare_files(a, b)
    assert c.reference_moved and c.counts_verdict[rule.WORSE] == 1 and c.exit_status == rule.EXIT_WORSE
    steady = write_variant(tmp_path, "steady.json", counts_then_slower({}))
    assert compare_result.compare_files(a, steady).exit_status == rule.EXIT_REFERENCE_MOVED
