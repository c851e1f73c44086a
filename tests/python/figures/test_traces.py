"""Trace analysis: the pybind11 trace reader/writer, block lifetimes, histograms, and the report's
trace and replay sections (also through the real CLI, including bad traces).

Every trace here is constructed by the test (write_trace) with a known answer; the replay records
with allocstats are constructed test fixtures, not measurements."""

import os
import re
import subprocess

import numpy as np
import pytest

from allocstress import _core, traces
from allocstress.results.loading import ResultsError
from allocstress.reporting.report import write_report

from conftest import GOLDEN
from constructed import HAND, OPS, replay_results, write

ALLOCSTRESS = os.environ.get("ALLOCSTRESS")
FIELDS = ("tsc", "address", "old_address", "size", "alignment")




@pytest.fixture
def hand_trace(tmp_path):
    return traces.load_trace(write(tmp_path / "hand.trace", HAND))


# --- reader and writer ---------------------------------------------------------------------

def recorded_order(thread, tsc) -> np.ndarray:
    """The documented merged order, stated independently of the reader: repeatedly the thread whose
    next event has the smallest TSC (ties: the lower thread) gives that event; each thread's own
    order is kept, whatever its clock does."""
    queues = {t: list(np.flatnonzero(thread == t)) for t in sorted(set(thread.tolist()))}
    order = []
    while any(queues.values()):
        t = min((t for t in queues if queues[t]), key=lambda t: (tsc[queues[t][0]], t))
        order.append(queues[t].pop(0))
    return np.array(order, dtype=np.int64)


def test_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(7)
    n = 500
    thread = rng.integers(0, 3, n).astype(np.uint64)
    tsc = rng.integers(0, 200, n).astype(np.uint64)  # many ties, within and across threads
    op_choice = [OPS.index(o) for o in ("malloc", "free", "realloc", "posix_memalign", "delete_sized", "delete[]_sized_aligned")]
    op = rng.choice(op_choice, n).astype(np.uint64)
    address = rng.integers(0, 2 ** 64 - 1, n, dtype=np.uint64)
    old_address = np.where(op == OPS.index("realloc"), rng.integers(0, 2 ** 64 - 1, n, dtype=np.uint64), 0).astype(np.uint64)
    size = rng.integers(0, 2 ** 40, n, dtype=np.uint64)
    size[op == OPS.index("free")] = 0
    aligned = np.isin(op, [OPS.index("posix_memalign"), OPS.index("delete[]_sized_aligned")])
    alignment = np.where(aligned, 2 ** rng.integers(3, 13, n), 0).astype(np.uint64)
    call_site = rng.integers(0, 2 ** 63, n, dtype=np.uint64)
    path = str(tmp_path / "rt.trace")
    written = _core.write_trace(path, thread, op, tsc, address, old_address, size, alignment, call_site, pid=4242, ppid=1,
                                command_line=["prog", "--flag", "x y"], tids={0: 100, 1: 101, 2: 102}, block_events=7)
    assert written == n

    d = _core.read_trace(path)
    seq = np.zeros(n, dtype=np.uint64)  # each event's position in its thread's own order
    for t in range(3):
        seq[thread == t] = np.arange(np.count_nonzero(thread == t))
    order = recorded_order(thread, tsc)  # the documented merged order
    expected = {"thread": thread, "op": op, "tsc": tsc, "address": address, "old_address": old_address, "size": size,
                "alignment": alignment, "call_site": call_site, "seq": seq}
    for name, values in expected.items():
        assert np.array_equal(d[name], values[order]), name
    assert d["thread"].dtype == np.uint32 and d["op"].dtype == np.uint8 and d["tsc"].dtype == np.uint64
    assert (d["pid"], d["ppid"], d["command_line"]) == (4242, 1, ["prog", "--flag", "x y"])
    assert d["call_sites"] and not d["imported"] and d["flags"] == _core.trace_flag_call_sites
    assert d["thread_tids"] == {0: 100, 1: 101, 2: 102}
    assert d["blocks"] == sum(-(-np.count_nonzero(thread == t) // 7) for t in range(3))
    assert d["truncation"] == "" and d["tsc_hz"] == 0.0 and d["file_bytes"] == os.path.getsize(path)
    assert d["op_names"] == OPS and OPS[0] == "malloc" and OPS[OPS.index("new[]")] == "new[]"


def test_write_trace_refuses_what_it_cannot_write_exactly(tmp_path):
    path = tmp_path / "x.trace"
    with pytest.raises(ValueError, match="event 1: malloc does not carry 'alignment'"):
        write(path, [(1, 0, "malloc", 16, 0, 8), (2, 0, "malloc", 32, 0, 8, 64)])
    with pytest.raises(ValueError, match="event 0: free does not carry 'size'"):
        write(path, [(1, 0, "free", 16, 0, 8)])
    with pytest.raises(ValueError, match="not a trace op"):
        _core.write_trace(str(path), *([np.zeros(1, np.uint64)] * 1), np.array([99], np.uint64), *([np.zeros(1, np.uint64)] * 5))
    with pytest.raises(ValueError, match="as long as 'thread'"):
        _core.write_trace(str(path), np.zeros(2, np.uint64), *([np.zeros(1, np.uint64)] * 6))
    assert not os.listdir(tmp_path), "bad input must leave no file behind"
    write(path, [(1, 0, "malloc", 16, 0, 8)])
    with pytest.raises(FileExistsError):
        write(path, [(1, 0, "malloc", 16, 0, 8)])
    write(path, [(1, 0, "malloc", 16, 0, 9)], overwrite=True)
    assert traces.load_trace(str(path)).size.tolist() == [9]


def corrupt_copies(tmp_path):
    """(path, offset, message) for damaged copies of a good two-block trace."""
    good = write(tmp_path / "good.trace", [(i, 0, "malloc", 16 * (i + 1), 0, 8) for i in range(6)], command_line=["p"],
                 block_events=3)
    data = open(good, "rb").read()
    first_block = 64 + len("p\0")
    cases = []

    def variant(name, content, offset, message):
        path = tmp_path / name
        path.write_bytes(content)
        cases.append((str(path), offset, message))

    variant("header-cut.trace", data[:30], 30, "file ends inside the 64-byte file header")
    variant("foreign.trace", b"GIF89a" + bytes(100), 0, "not an allocstress trace")
    block = bytearray(data)
    block[first_block + 4] ^= 0xFF  # the thread field: the header check no longer matches
    variant("block-header.trace", bytes(block), first_block, "check value mismatch")
    payload = bytearray(data)
    payload[first_block + 48 + 8] ^= 0xFF  # inside the first zstd frame
    variant("payload.trace", bytes(payload), first_block + 48, "block payload")
    return cases


def test_corrupt_traces_raise_with_the_file_and_offset(tmp_path):
    for path, offset, message in corrupt_copies(tmp_path):
        with pytest.raises(traces.TraceFormatError) as e:
            traces.load_trace(path)
        text = str(e.value)
        assert text.startswith(f"{path}: offset {offset}: ") and message in text and "\n" not in text, text
        assert isinstance(e.value, ValueError)
    with pytest.raises(OSError, match="cannot open"):
        traces.load_trace(str(tmp_path / "missing.trace"))


def test_a_file_cut_inside_a_block_keeps_its_complete_blocks(tmp_path):
    path = write(tmp_path / "t.trace", [(i, 0, "malloc", 16 * (i + 1), 0, 8) for i in range(10)], block_events=4)
    data = open(path, "rb").read()
    cut = tmp_path / "cut.trace"
    cut.write_bytes(data[:-48 - 5])  # inside the payload of the third block (before the 48-byte end record)
    t = traces.load_trace(str(cut))
    assert len(t) == 8 and t.meta["blocks"] == 2
    assert "file ends inside the payload of block 2 of thread 0" in t.meta["truncation"]
    assert t.meta["ended_by"] == "no end record" and "file ends inside a record" in t.meta["cut_short"]
    whole = traces.load_trace(path)
    assert whole.meta["ended_by"] == "written whole by a tool" and whole.meta["cut_short"] == "" and whole.meta["lost_events"] == 0
    summary = traces.trace_summary(t, traces.block_lifetimes(t))
    assert summary["live_at_end"] == 8 and summary["truncation"] == t.meta["truncation"]


# --- lifetimes -----------------------------------------------------------------------------

def test_lifetimes_of_the_hand_built_trace(hand_trace):
    lt = traces.block_lifetimes(hand_trace)
    E = traces.End
    assert lt.start.tolist() == [0, 1, 3, 5, 9, 10, 11, 13]
    assert lt.end.tolist() == [2, 3, 8, 14, 10, 14, 13, 14]
    assert lt.how.tolist() == [E.FREED, E.REALLOCATED, E.REALLOCATED, E.LIVE_AT_END, E.LOST, E.LIVE_AT_END, E.REALLOCATED,
                               E.LIVE_AT_END]
    assert lt.size.tolist() == [100, 200, 300, 50, 8, 16, 64, 128]
    assert lt.thread.tolist() == [0, 0, 0, 1, 1, 0, 1, 1]
    assert lt.end_thread.tolist() == [1, 0, 0, -1, 0, -1, 1, -1]
    assert lt.start_clock.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert lt.allocations_between.tolist() == [1, 0, 1, 4, 0, 2, 0, 0]
    assert lt.ticks.tolist() == [20, 20, 50, 80, 10, 30, 20, 0]
    assert np.isnan(lt.seconds).all()  # written traces record no TSC rate
    assert lt.complete.tolist() == [True, True, True, False, False, False, True, False]
    assert lt.live_bytes.tolist() == [100, 300, 200, 300, 300, 350, 350, 350, 50, 58, 66, 130, 130, 194]
    assert lt.counts == {"unmatched_frees": 1, "unmatched_reallocs": 1, "null_frees": 1, "failed_allocations": 1,
                         "failed_reallocs": 1, "cross_thread_frees": 1}
    s = traces.trace_summary(hand_trace, lt)
    assert (s["events"], s["threads"], s["blocks"], s["peak_live_bytes"], s["peak_live_event"]) == (14, 2, 8, 350, 5)
    assert (s["live_at_end"], s["live_at_end_bytes"], s["lost_blocks"]) == (3, 194, 1)
    assert s["ops"] == {"malloc": 6, "realloc": 5, "free": 3}
    assert s["lifetime_allocations_quantiles"][1.0] == 1 and s["lifetime_seconds_quantiles"] == {}


def test_lifetimes_render_the_cxx_matching(hand_trace, monkeypatch):
    # The matching is C++'s (trace/block_lifetimes.hpp): Python takes its columns and counts as they are.
    calls, matched = [], _core.block_lifetimes

    def recorded(*arrays):
        calls.append(matched(*arrays))
        return calls[-1]

    monkeypatch.setattr(traces._core, "block_lifetimes", recorded)
    lt = traces.block_lifetimes(hand_trace)
    assert len(calls) == 1
    for name in ("start", "end", "how", "size", "address", "thread", "end_thread"):
        assert getattr(lt, name) is calls[0][name], name
    assert lt.counts is calls[0]["counts"]


def test_seconds_follow_the_tsc_rate(hand_trace):
    hand_trace.meta["tsc_hz"] = 1e9  # as if the trace had recorded a 1 GHz TSC
    lt = traces.block_lifetimes(hand_trace)
    assert lt.seconds.tolist() == pytest.approx([20e-9, 20e-9, 50e-9, 80e-9, 10e-9, 30e-9, 20e-9, 0])
    assert lt.start_seconds.tolist() == pytest.approx([0, 10e-9, 30e-9, 50e-9, 90e-9, 100e-9, 110e-9, 130e-9])
    assert traces.trace_summary(hand_trace, lt)["duration_seconds"] == pytest.approx(130e-9)


def test_a_thread_whose_clock_steps_back_keeps_its_own_order(tmp_path):
    # The arrays follow the recorded order C++'s replay and fit walk (trace/recorded_order.hpp): a
    # thread's free stamped before its malloc still comes after it, so the block is freed, not a free
    # of an unknown address followed by a block live at the end (which sorting by TSC would give).
    t = traces.load_trace(write(tmp_path / "back.trace", [(50, 0, "malloc", 0x10, 0, 8), (40, 0, "free", 0x10, 0, 0),
                                                          (45, 1, "malloc", 0x20, 0, 16)]))
    assert t.tsc.tolist() == [45, 50, 40] and t.thread.tolist() == [1, 0, 0]
    lt = traces.block_lifetimes(t)
    assert lt.how.tolist() == [traces.End.LIVE_AT_END, traces.End.FREED] and lt.counts["unmatched_frees"] == 0


def test_an_empty_trace_has_no_blocks(tmp_path):
    t = traces.load_trace(write(tmp_path / "empty.trace", []))
    lt = traces.block_lifetimes(t)
    assert len(t) == 0 and len(lt) == 0 and len(traces.log2_histogram(lt.size)) == 0
    assert traces.trace_summary(t, lt)["peak_live_bytes"] == 0


# --- histograms and counts -----------------------------------------------------------------

def test_log2_bins_are_exact_at_every_power_of_two():
    k = np.arange(1, 64, dtype=np.uint64)
    powers = np.uint64(1) << k
    assert traces.bit_length(powers).tolist() == (k + 1).tolist()
    assert traces.bit_length(powers - np.uint64(1)).tolist() == k.tolist()
    assert traces.bit_length(np.array([0, 1, 2 ** 64 - 1], dtype=np.uint64)).tolist() == [0, 1, 64]
    h = traces.log2_histogram(np.array([0, 1, 2, 3, 4, 7, 8, 1023, 1024, 1024], dtype=np.uint64))
    assert h["bin"].tolist() == list(range(0, 12))
    assert h["low"].tolist() == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    assert h["high"].tolist() == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
    assert h["count"].tolist() == [1, 1, 2, 2, 1, 0, 0, 0, 0, 0, 1, 2]


def test_lifetime_size_histogram_and_thread_counts(hand_trace):
    lt = traces.block_lifetimes(hand_trace)
    h = traces.lifetime_size_histogram(lt)
    # complete blocks: (lifetime 1, 100 B), (0, 200 B), (1, 300 B), (0, 64 B); 64..127 is bin 7
    assert h.lifetime_bins.tolist() == [0, 1] and h.size_bins.tolist() == [7, 8, 9]
    assert h.counts.tolist() == [[1, 1, 0], [1, 0, 1]] and h.left_out == 4
    counts = traces.thread_op_counts(hand_trace)
    assert counts.index.tolist() == [0, 1]
    assert list(counts.columns) == ["malloc", "realloc", "free", *traces.CLASS_COLUMNS, "total"]
    assert counts.loc[0, ["malloc", "realloc", "free"]].tolist() == [3, 3, 2]
    assert counts.loc[1, ["malloc", "realloc", "free"]].tolist() == [3, 2, 1]
    assert counts[list(traces.CLASS_COLUMNS)].to_numpy().tolist() == [[3, 2, 3], [3, 1, 2]]
    assert counts["total"].tolist() == [8, 6]


def test_subsample_is_reproducible_and_bounded():
    a = traces.subsample(100_000, 1000, seed=3)
    assert len(a) == 1000 and len(np.unique(a)) == 1000 and (np.diff(a) > 0).all() and a.max() < 100_000
    assert np.array_equal(a, traces.subsample(100_000, 1000, seed=3))
    assert not np.array_equal(a, traces.subsample(100_000, 1000, seed=4))
    assert traces.subsample(10, 1000).tolist() == list(range(10))


# --- replay allocstats and the report ------------------------------------------------------

def test_allocstats_groups_take_the_first_repetition(tmp_path):
    import allocstress
    groups = traces.allocstats_groups(allocstress.load_runs([replay_results(tmp_path, "/t/x.trace")]))
    assert len(groups) == 1
    g = groups[0]
    assert (g.run, g.trace, g.threads) == ("replay", "/t/x.trace", 2) and list(g.series) == ["void", "system", "jemalloc"]
    assert g.series["system"]["used_bytes"].tolist() == [0, 200, 400, 600, 800, 1000, 1200]
    assert g.every == {"void": 2, "system": 2, "jemalloc": 2}


def test_malformed_allocstats_is_one_clear_error(tmp_path):
    import allocstress

    def drop_column(doc):
        doc["benchmarks"][-1]["allocstats"]["columns"].remove("maxmem_bytes")
    path = replay_results(tmp_path, "/t/x.trace", drop_column)
    with pytest.raises(ResultsError, match=r"benchmarks\[\d+\]: allocstats lacks column\(s\) maxmem_bytes"):
        write_report([path], str(tmp_path / "r"), "test")
    assert not os.path.exists(tmp_path / "r")
    assert traces.allocstats_groups(allocstress.load_runs([GOLDEN])) == []


def svg_links(page):
    return re.findall(r'<a href="([^"]+\.svg)">SVG</a>', page)


def test_report_with_traces_and_replays(tmp_path, hand_trace):
    empty = write(tmp_path / "empty.trace", [])
    results = replay_results(tmp_path, hand_trace.path)
    out = tmp_path / "report"
    page = open(write_report([results], str(out), "test", [hand_trace.path, empty])).read()
    for text in ('<h2 id="replay">Replay: memory over the trace</h2>', "<h2>Trace: hand.trace</h2>", "<h2>Trace: empty.trace</h2>",
                 "Replayed in the results: run replay at 2 thread(s)",
                 "peak live requested bytes", "350 B", "unmatched frees", "live at the end (censored)",
                 "3 blocks, 194 B", "The trace has no events: no figures."):
        assert text in page, text
    section = page[page.index("<h2>Trace: hand.trace</h2>"):page.index("<h2>Trace: empty.trace</h2>")]
    assert section.count('<img src="data:image/png;base64,') == 5  # sizes, threads, live bytes, scatter, 2D histogram
    replay = page[page.index('<h2 id="replay">'):page.index("<h2>Trace: hand.trace</h2>")]
    assert replay.count('<img src="data:image/png;base64,') == 1
    for svg in svg_links(page):
        assert os.path.getsize(out / svg) > 1000, svg
        assert os.path.getsize(out / (svg[:-4] + ".png")) > 5000, svg
    assert any("trace1-hand.trace-lifetimes" in s for s in svg_links(page))


def test_report_without_traces_has_no_trace_section(tmp_path):
    page = open(write_report([GOLDEN], str(tmp_path / "r"), "test")).read()
    assert "Trace:" not in page and "Replay: memory over the trace" not in page


def run_cli(*args):
    assert ALLOCSTRESS, "CTest sets ALLOCSTRESS to the built executable"
    return subprocess.run([ALLOCSTRESS, *args], capture_output=True, text=True, timeout=300)


def test_cli_report_with_a_trace(tmp_path, hand_trace):
    out = tmp_path / "rep"
    r = run_cli("report", GOLDEN, "-o", str(out), "--trace", hand_trace.path)
    assert r.returncode == 0, r.stderr
    assert "<h2>Trace: hand.trace</h2>" in open(out / "index.html").read()


def test_bad_traces_leave_no_report_folder(tmp_path):
    cases = [(str(tmp_path / "missing.trace"), OSError)] + [(p, traces.TraceFormatError) for p, _, _ in corrupt_copies(tmp_path)]
    for path, error in cases:
        with pytest.raises(error):
            write_report([GOLDEN], str(tmp_path / "r"), "test", [path])
        assert not os.path.exists(tmp_path / "r")


def test_cli_report_with_a_bad_trace_fails_cleanly(tmp_path):
    corrupt = [(p, [f"{p}: offset {o}: ", m]) for p, o, m in corrupt_copies(tmp_path) if p.endswith("block-header.trace")]
    missing = str(tmp_path / "missing.trace")
    for path, expected in [(missing, [f"{missing}: cannot open"])] + corrupt:
        out = tmp_path / "r"
        r = run_cli("report", GOLDEN, "-o", str(out), "--trace", path)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert lines[0].startswith("allocstress: error: ") and all(x in lines[0] for x in expected), r.stderr
        assert not os.path.exists(out), "no report folder for bad input"
