"""Replay heap maps in Python: decoding a record's `heap_map` (results/README.md), the heap-map
figure, and its place in the report's replay section.  The heap maps here are constructed test
fixtures of the documented shape with known contents, not measurements (tests/cli/traces/
heap_map.sh checks real ones)."""

import base64
import os

import numpy as np
import pytest

from allocstress.figures import trace_plots
from allocstress.tracing import heap_maps
from allocstress.results.loading import ResultsError
from allocstress.reporting.report import write_report

from constructed import replay_results


def heap_map_field(frames=4, bins=3):
    """TEST FIXTURE: a heap map whose level of (frame k, bin b) is 10 * (k + 1) * b mod 256, two spans."""
    levels = np.array([[10 * (k + 1) * b % 256 for b in range(bins)] for k in range(frames)], dtype=np.uint8)
    return {"frames": frames, "op_index": [10 * k + 9 for k in range(frames)], "chunk_bytes": 65536, "chunks": 2 * bins,
            "chunks_per_bin": 2, "bins": bins, "spans_total": 2, "spans_columns": ["address", "bytes", "first_chunk"],
            "spans": [["0x555500000000", 65536, 0], ["0x7f0000000000", (2 * bins - 1) * 65536, 1]],
            "live_fraction": base64.b64encode(levels.tobytes()).decode(),
            "requested_bytes": [4096 * k for k in range(frames)], "live_bytes": [4096 * k for k in range(frames)],
            "spanned_bytes": [8192 * k for k in range(frames)], "fragmentation": [None] + [0.5] * (frames - 1),
            "overlapped_frames": 0}


def test_a_heap_map_decodes_to_frames_by_bins():
    hm = heap_maps.heap_map_of(heap_map_field())
    assert hm.unavailable is None and hm.live_fraction.shape == (4, 3)
    assert hm.live_fraction[2, 1] == pytest.approx(30 / 255)
    assert np.isnan(hm.fragmentation[0]) and hm.fragmentation[1] == 0.5
    assert hm.spans[1] == (0x7F0000000000, 5 * 65536, 1) and hm.bin_of_chunk(1) == 0.5
    assert hm.op_index.tolist() == [9, 19, 29, 39]


def test_an_unavailable_heap_map_keeps_its_reason():
    hm = heap_maps.heap_map_of({"frames": 20, "unavailable": "void hands out the same buffer"})
    assert (hm.frames, hm.unavailable) == (20, "void hands out the same buffer")
    with pytest.raises(ValueError, match="unavailable"):
        trace_plots.plot_heap_map(hm, "t", "/nonexistent/x")


@pytest.mark.parametrize("damage, message", [
    (lambda f: f.update(live_fraction=base64.b64encode(b"\0" * 5).decode()), "holds 5 bytes, not frames x bins = 12"),
    (lambda f: f.update(live_fraction="not base64!"), "is malformed"),
    (lambda f: f["live_bytes"].pop(), "series of other lengths"),
    (lambda f: f.pop("spans"), "is malformed"),
])
def test_a_damaged_heap_map_is_one_clear_error(damage, message):
    field = heap_map_field()
    damage(field)
    with pytest.raises(ResultsError, match=r"^f\.json: benchmarks\[3\]: heap_map .*" + message):
        heap_maps.heap_map_of(field, "f.json: benchmarks[3]")


def test_the_heap_map_figure_is_written(tmp_path):
    png = trace_plots.plot_heap_map(heap_maps.heap_map_of(heap_map_field(frames=30, bins=100)), "x: heap map", str(tmp_path / "hm"))
    assert png == str(tmp_path / "hm.png")
    assert os.path.getsize(png) > 5000 and os.path.getsize(tmp_path / "hm.svg") > 1000
    empty = dict(heap_map_field(), bins=0, chunks=0, spans=[], live_fraction="")
    assert os.path.getsize(trace_plots.plot_heap_map(heap_maps.heap_map_of(empty), "empty", str(tmp_path / "e"))) > 1000


def test_the_report_draws_a_heap_map_per_allocator_that_has_one(tmp_path):
    def add_heap_maps(doc):
        for e in doc["benchmarks"]:
            if e.get("workload") == "replay":
                e["heap_map"] = ({"frames": 4, "unavailable": "void hands out the same buffer again and again"}
                                 if e["allocator"] == "void" else
                                 {"frames": 4, "unavailable": "the replay did not complete"} if e["allocator"] == "jemalloc" else
                                 heap_map_field())
    page = open(write_report([replay_results(tmp_path, "/t/x.trace", add_heap_maps)], str(tmp_path / "r"), "test")).read()
    replay = page[page.index('<h2 id="replay">'):]
    assert "<h4>Heap maps</h4>" in replay and "Heap map of system: where the blocks live at each of 4 evenly spaced points" in replay
    assert replay.count('<img src="data:image/png;base64,') == 2  # memory over the trace, system's heap map
    assert "Heap map of jemalloc: n/a (the replay did not complete)." in replay
    assert "Heap map of void" not in replay  # the baseline has none, and says nothing
    assert any(f.endswith("system-heap-map.svg") for f in os.listdir(tmp_path / "r"))


def test_a_report_without_heap_maps_has_no_heap_map_part(tmp_path):
    page = open(write_report([replay_results(tmp_path, "/t/x.trace")], str(tmp_path / "r"), "test")).read()
    assert "Heap map" not in page
