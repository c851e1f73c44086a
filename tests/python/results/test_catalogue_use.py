"""The analysis package takes its workload lists and its metric labels, units, rounding and
definitions from the C++ registry and catalogue (allocstress._core, through catalogue.py)
instead of writing them again: checked against _core itself."""

import json

import pytest

import allocstress
from allocstress import _core
from allocstress.comparison import compare
from allocstress.tabulation import structures, tables
from allocstress.tabulation import workload_metrics as wm

from conftest import write_variant
from constructed import STRUCTURES, constructed_results

REGISTRY = _core.workloads()
CATALOGUE = _core.metric_catalogue()


def names(**match):
    return tuple(w["name"] for w in REGISTRY if all(w[k] == v for k, v in match.items()))


def entry(name, place):
    return next(m for m in CATALOGUE if m["name"] == name and m["place"] == place)


# ---- workload lists -------------------------------------------------------------------------

def test_workload_lists_are_the_registry():
    assert structures.STRUCTURE_WORKLOADS == names(table="structure") and len(structures.STRUCTURE_WORKLOADS) > 0
    assert compare.STRUCTURE_WORKLOADS is structures.STRUCTURE_WORKLOADS  # defined once
    assert tables.WITHOUT_NET_COST == names(void_baseline=False)
    assert tables.FALSE_SHARING_WORKLOADS == names(family="false-sharing") and len(tables.FALSE_SHARING_WORKLOADS) > 0
    assert wm.PHASE_WORKLOADS == names(family="phases") and len(wm.PHASE_WORKLOADS) > 0
    carrying = {w for m in CATALOGUE if m["place"] == "workload_metrics" for w in m["workloads"]}
    assert wm.WORKLOADS == tuple(w["name"] for w in REGISTRY if w["table"] != "structure" and w["name"] in carrying)
    assert set(wm.FALSE_SHARING_WORKLOADS) <= set(wm.WORKLOADS) and set(wm.PHASE_WORKLOADS) <= set(wm.WORKLOADS)


def test_companions_and_legends_come_from_the_registry():
    assert wm.COMPANIONS == {w["name"]: w["companions"][0] for w in REGISTRY if w["name"] in wm.WORKLOADS and w["companions"]}
    assert wm.COMPANIONS.get("xthread") == "alloc-test"
    assert [c[0] for c in wm.blowup_columns("xthread", "alloc-test")] == ["blowup_vs_alloc_test", "blowup_ci_low",
                                                                           "blowup_ci_high"]
    assert wm.blowup_columns("w", "some-other")[0][0] == "blowup_vs_some_other"  # any companion gets its column
    for w in wm.WORKLOADS:
        registry = next(e for e in REGISTRY if e["name"] == w)
        legend = wm.WORKLOAD_LEGENDS[w]
        assert registry["summary"] in legend
        assert ("Net cycles/pair are in the Summary table." in legend) == registry["void_baseline"]
        assert ("No void baseline" in legend) == (not registry["void_baseline"])


# ---- metric labels, units, formats and definitions --------------------------------------------

def test_summary_columns_are_the_catalogue_definitions(golden):
    docs = {name: (unit, meaning) for name, unit, meaning in tables.COLUMNS}
    for name in ("net_cycles_per_pair", "cycles_per_pair", "net_ns_per_pair", "overhead_ratio"):
        m = entry(name, "record")
        assert docs[name][0] == m["unit"] and m["definition"] in docs[name][1], name
    headers, _ = tables.display_rows(allocstress.summary_table(allocstress.load_runs([golden])))
    assert entry("net_ns_per_pair", "record")["label"] in headers
    for name in ("overhead_ratio", "net_cycles_per_pair"):  # with the interval named by its method and level
        label = entry(name, "record")["label"] + " [interval of the median ("
        assert any(h.startswith(label) for h in headers), (name, headers)


def test_structure_columns_are_the_catalogue_definitions():
    headers, _ = structures.structure_display(structures.structure_table(allocstress.load_runs([STRUCTURES])))
    docs = {name: (unit, meaning) for name, unit, meaning in structures.STRUCTURE_COLUMNS}
    for name, place in (("build_cycles_per_node", "record"), ("search_cycles_per_visit", "record"),
                        ("cache_line_utilisation", "placement_metrics"), ("page_utilisation", "placement_metrics"),
                        ("set_histogram_max_over_mean", "placement_metrics"), ("overhead_ratio", "record")):
        m = entry(name, place)
        assert docs[name][0] == m["unit"] and m["definition"] in docs[name][1], name
        assert m["label"] in headers or m["label"] + " [interval of the median, order statistics]" in headers, name


def test_workload_table_labels_units_and_meanings_are_the_catalogue(tmp_path):
    runs = allocstress.load_runs([constructed_results(tmp_path)])
    table = wm.workload_table(runs, "xthread")
    headers, rows = wm.display_rows(table)
    for key in ("remote_free_share", "remote_frees", "local_frees", "queue_full_waits", "max_queue_backlog"):
        assert entry(key, "workload_metrics")["label"] in headers, key
    assert entry("overhead_ratio", "record")["label"] in headers
    docs = {name: (unit, meaning) for name, unit, meaning in wm.column_docs([table])}
    share = entry("remote_free_share", "workload_metrics")
    assert docs["remote_free_share"] == (share["unit"], ", ".join(share["workloads"]) + ": " + share["definition"])
    # rounded as the catalogue says: remote_free_share medians 0.51 with `decimals` decimals
    system = next(r for r in rows if r[0] == "system")
    assert system[headers.index(share["label"])] == f"{0.51:.{share['decimals']}f}"


def test_unknown_workload_metrics_keys_still_show(tmp_path):
    table = wm.workload_table(allocstress.load_runs([constructed_results(tmp_path)]), "xthread")
    assert "new_metric" in table.metrics and not any(m["name"] == "new_metric" for m in CATALOGUE)
    headers, rows = wm.display_rows(table)
    column = headers.index("new_metric")  # labelled by its name
    system = next(r for r in rows if r[0] == "system")
    assert system[column] == wm.UNKNOWN_FORMAT.format(7.0)  # medians of 0, 7, 14
    docs = {name: meaning for name, _, meaning in wm.column_docs([table])}
    assert "not described by the analysis package" in docs["new_metric"]


def test_bytes_the_catalogue_marks_mib_are_shown_in_mib(tmp_path):
    target = entry("target_live_bytes", "workload_metrics")
    assert target["mib"]

    def lifetime(doc):
        for e in doc["benchmarks"]:
            if e["workload"] == "xthread":
                e["workload"] = "lifetime"
                e["workload_metrics"] = {"target_live_bytes": 3 * 1048576, "lifetime_cv": 1.23456}
    table = wm.workload_table(allocstress.load_runs([constructed_results(tmp_path, lifetime)]), "lifetime")
    headers, rows = wm.display_rows(table)
    assert table.companion is None and not any(h.startswith("blowup") for h in headers)
    system = next(r for r in rows if r[0] == "system")
    assert system[headers.index(target["label"])] == f"{3.0:.{target['decimals']}f}"
    cv = entry("lifetime_cv", "workload_metrics")
    assert system[headers.index(cv["label"])] == f"{1.23456:.{cv['decimals']}f}"


# ---- compare: headline metric and plan differences -------------------------------------------

def test_headline_metric_is_the_catalogue_headline():
    for w in REGISTRY:
        headlines = [m["name"] for m in CATALOGUE if m["headline"] and w["name"] in m["workloads"]]
        assert compare.headline_metric(w["name"]) == (headlines[0] if headlines else "net_cycles_per_pair"), w["name"]
    assert compare.headline_metric("alloc-test") == "net_cycles_per_pair"
    assert compare.headline_metric("no-such-workload") == "net_cycles_per_pair"
    assert set(compare.METRICS) == {m["name"] for m in CATALOGUE}


def test_compare_reads_a_workload_metrics_headline(tmp_path):
    a = constructed_results(tmp_path, name="a.json")

    def doubled(doc):
        for e in doc["benchmarks"]:
            if e["workload"] in tables.FALSE_SHARING_WORKLOADS:
                e["workload_metrics"]["slowdown"] *= 2
    b = constructed_results(tmp_path, doubled, name="b.json")
    table = compare.compare_runs(allocstress.load_runs([a, b]))
    fs = table[table["workload"] == "false-sharing-active"]
    assert len(fs) == 2 and set(fs["metric"]) == {compare.headline_metric("false-sharing-active")} == {"slowdown"}
    assert fs["ratio"].tolist() == pytest.approx([2.0, 2.0])


@pytest.mark.parametrize("a_params, b_params, noted", [
    (None, None, False),                       # older files: neither has workload_params
    (None, {}, False),                         # missing is {}
    ({"xthread": {"remote_share": 0.5}}, {"xthread": {"remote_share": 0.9}}, True),
    (None, {"xthread": {"remote_share": 0.5}}, True),
])
def test_differences_compare_workload_params(golden, tmp_path, a_params, b_params, noted):
    def with_params(params):
        def change(doc):
            if params is not None:
                doc["context"]["plan"]["workload_params"] = params
        return change
    a = write_variant(tmp_path, "a.json", with_params(a_params))
    b = write_variant(tmp_path, "b.json", with_params(b_params))
    runs = allocstress.load_runs([a, b])
    notes = compare.differences(runs, compare.compare_runs(runs), "net_cycles_per_pair")
    assert any("differ in workload_params" in n for n in notes) == noted, notes
    assert not any("differ in params" in n for n in notes)
    assert json.load(open(golden))["context"]["plan"].get("workload_params") is None  # the golden file is an old one
