"""A record's identity in Python is C++'s (cells/record_identity.hpp through _core): results.records'
CellKey, cell_key, cell_keys and rows_by_cell key a record dict, a pandas row and a whole frame alike."""

import json
import math
import pathlib
import re

import pandas as pd

import allocstress
from allocstress.results import records
from conftest import GOLDEN


def test_cell_key_of_a_record_dict_reads_the_instance_from_the_run_name():
    thp = {"workload": "alloc-test", "allocator": "system", "threads": 1, "mode": "thp",
           "run_name": "alloc-test/system/threads:1/thp:always", "name": "alloc-test/system/threads:1/thp:always_median"}
    key = records.cell_key(thp)
    assert key == records.CellKey("alloc-test", "system", 1, "thp", "always")
    assert key.name == "alloc-test/system/threads:1/thp:always" == records.record_name(key)
    timing = {"workload": "alloc-test", "allocator": "jemalloc", "threads": 4, "name": "alloc-test/jemalloc/threads:4"}
    assert records.cell_key(timing) == ("alloc-test", "jemalloc", 4, "timing", "")
    assert records.timing_cell("alloc-test", "jemalloc", 4.0) == records.cell_key(timing)  # a timing cell named by its fields


def test_a_frame_row_with_a_missing_mode_is_a_timing_cell():
    # A frame of files older than modes, or of mixed files: mode and the names are None or NaN there.
    frame = pd.DataFrame({"workload": ["alloc-test", "alloc-test", "alloc-test"], "allocator": ["void", "void", "system"],
                          "threads": [1.0, 1.0, 2.0], "mode": [math.nan, None, "counts"], "name": [None, math.nan, "x"]})
    assert records.cell_key(frame.iloc[0]) == ("alloc-test", "void", 1, "timing", "")
    keys = records.cell_keys(frame)
    assert keys == [records.cell_key(frame.iloc[i]) for i in range(len(frame))]
    assert keys[1] == keys[0] and keys[2] == ("alloc-test", "system", 2, "counts", "")
    by_cell = records.rows_by_cell(frame)
    assert list(by_cell) == [keys[0], keys[2]]
    assert list(by_cell[keys[0]].index) == [0, 1] and list(by_cell[keys[2]].index) == [2]


def test_a_frame_without_name_columns_keys_every_row():
    frame = pd.DataFrame({"workload": ["w"], "allocator": ["a"], "threads": [3]})
    assert records.cell_keys(frame) == [records.CellKey("w", "a", 3, "timing", "")]
    assert records.RunCellKey("run", records.cell_keys(frame)[0]).cell.threads == 3


def test_only_results_records_asks_core_for_a_key_or_name():
    # Every other module keys and names records through results.records, so the identity has one Python door.
    package = pathlib.Path(records.__file__).resolve().parent.parent
    callers = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if re.search(r"_core\.record_(key|name)\b", p.read_text(encoding="utf-8")))
    assert callers == ["results/records.py"]


def test_summary_keeps_the_thp_modes_of_one_allocator_apart(tmp_path):
    # Two THP modes of one cell are two cells (mode thp, instances always and madvise): summary()
    # and the frame key them by instance, so their repetitions never share one median.
    doc = json.load(open(GOLDEN))
    timing = [e for e in doc["benchmarks"] if e.get("run_type") == "iteration" and e["allocator"] == "system"
              and e.get("status") == "ok" and (e.get("mode") or "timing") == "timing"]
    assert timing
    for thp, scale in (("always", 1.0), ("madvise", 2.0)):
        for e in timing:
            name = f"{e['name']}/thp:{thp}"  # the record name C++ gives a thp cell
            doc["benchmarks"].append({**e, "mode": "thp", "thp_mode": thp, "name": name, "run_name": name,
                                      "net_cycles_per_pair": e["net_cycles_per_pair"] * scale})
    path = tmp_path / "thp.json"
    path.write_text(json.dumps(doc))
    df = allocstress.load(str(path))
    assert set(df.loc[df["mode"] == "thp", "instance"]) == {"always", "madvise"}
    assert set(df.loc[df["mode"] == "timing", "instance"]) == {""}
    s = allocstress.summary(df)
    thp = s[s["mode"] == "thp"]
    for threads, rows in thp.groupby("threads"):
        assert sorted(rows["instance"]) == ["always", "madvise"], rows
        always, madvise = (float(rows.loc[rows["instance"] == i, "median"].iloc[0]) for i in ("always", "madvise"))
        timing_median = float(s[(s["mode"] == "timing") & (s["allocator"] == "system") & (s["threads"] == threads)]["median"].iloc[0])
        assert math.isclose(always, timing_median) and math.isclose(madvise, 2 * timing_median), (always, madvise, timing_median)
