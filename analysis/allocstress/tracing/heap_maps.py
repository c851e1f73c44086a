"""Replay records' heap maps (`replay --heap-map N`; fields in results/README.md, binning in
cells/traces/heap_map.hpp): where the blocks live at N points of the trace lay in the replay's address
space, on a compacted address axis (the touched 64 KiB chunks in address order, grouped into at
most 512 bins), with live, spanned and fragmentation per frame."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import numpy as np

from ..results.loading import ResultsError

_SERIES = ("op_index", "requested_bytes", "live_bytes", "spanned_bytes")


@dataclass
class HeapMap:
    """One record's heap map.  `unavailable` is the reason when it could not be taken (the other
    fields are then empty)."""
    frames: int
    unavailable: str | None = None
    bins: int = 0
    chunk_bytes: int = 65536
    chunks: int = 0
    chunks_per_bin: int = 1
    live_fraction: np.ndarray | None = None  # frames x bins, 0..1 (the record's bytes / 255)
    op_index: np.ndarray | None = None
    requested_bytes: np.ndarray | None = None
    live_bytes: np.ndarray | None = None
    spanned_bytes: np.ndarray | None = None
    fragmentation: np.ndarray | None = None  # NaN where nothing was live
    spans: list[tuple[int, int, int]] | None = None  # (address, bytes, first_chunk), by address
    spans_total: int = 0
    overlapped_frames: int = 0

    def bin_of_chunk(self, chunk: int) -> float:
        return chunk / self.chunks_per_bin


def heap_map_of(field: object, where: str = "record") -> HeapMap:
    """A record's `heap_map` field as a HeapMap; ResultsError naming `where` when it is malformed."""
    def bad(what: str) -> ResultsError:
        return ResultsError(f"{where}: heap_map {what} (the file is damaged)")

    if not isinstance(field, dict) or not isinstance(field.get("frames"), int):
        raise bad("is not an object with its frames")
    frames = field["frames"]
    if "unavailable" in field:
        return HeapMap(frames=frames, unavailable=str(field["unavailable"]))
    try:
        bins = int(field["bins"])
        levels = np.frombuffer(base64.b64decode(field["live_fraction"], validate=True), dtype=np.uint8)
        series = {k: np.asarray(field[k], dtype=np.int64) for k in _SERIES}
        fragmentation = np.array([np.nan if v is None else float(v) for v in field["fragmentation"]])
        spans = [(int(a, 16), int(n), int(c)) for a, n, c in field["spans"]]
    except (KeyError, TypeError, ValueError, binascii.Error) as e:
        raise bad(f"is malformed: {e}") from None
    if levels.size != frames * bins:
        raise bad(f"live_fraction holds {levels.size} bytes, not frames x bins = {frames * bins}")
    if any(len(v) != frames for v in series.values()) or len(fragmentation) != frames:
        raise bad(f"has series of other lengths than its {frames} frames")
    return HeapMap(frames=frames, bins=bins, chunk_bytes=int(field["chunk_bytes"]), chunks=int(field["chunks"]),
                   chunks_per_bin=max(1, int(field["chunks_per_bin"])), live_fraction=levels.reshape(frames, bins) / 255.0,
                   fragmentation=fragmentation, spans=spans, spans_total=int(field.get("spans_total", len(spans))),
                   overlapped_frames=int(field.get("overlapped_frames", 0)), **series)
