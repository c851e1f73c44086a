// The heap map of a replay (Steve's memplot): where the allocator put the blocks live at each of N
// frames of the trace, drawn as time x address.  The address axis is compacted: heaps lie far
// apart in the address space, so only the 64 KiB chunks some listed block touches are kept, in
// address order (runs of adjacent chunks are `spans`; the gaps between them are left out), and
// grouped into at most 512 bins of equal chunk count.  Per frame and bin: the fraction of the
// bin's bytes that live blocks cover; per frame: requested, live and spanned bytes (4 KiB pages
// that live blocks touch) and the fragmentation 1 - live / spanned.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace allocstress {

inline constexpr std::uint64_t kHeapMapChunkBytes = 64 * 1024, kHeapMapPageBytes = 4096;
inline constexpr unsigned kHeapMapMaxBins = 512;

// A block at its address in the replay, live in frames [first_frame, end_frame).
struct HeapMapBlockAt {
  std::uint64_t address, size;
  std::uint16_t first_frame, end_frame;
};

// A run of adjacent touched chunks: its first chunk's address, its length, its first dense chunk.
struct HeapMapSpan {
  std::uint64_t address, chunks, first_chunk;
};

struct HeapMap {
  unsigned frames = 0, bins = 0;
  std::uint64_t chunks = 0, chunks_per_bin = 1;  // touched chunks; bin b holds dense chunks [b * per, (b + 1) * per)
  std::vector<HeapMapSpan> spans;                // by address
  std::vector<std::uint64_t> bin_bytes;          // per bin: its chunks x kHeapMapChunkBytes
  std::vector<double> live_fraction;             // frames x bins, frame-major: live bytes in the bin / bin_bytes, at most 1
  std::vector<std::uint64_t> requested_bytes;    // per frame: sum of the live blocks' sizes
  std::vector<std::uint64_t> live_bytes;         // per frame: bytes covered by live blocks (overlaps counted once)
  std::vector<std::uint64_t> spanned_bytes;      // per frame: bytes of the 4 KiB pages live blocks touch
  unsigned overlapped_frames = 0;                // frames where live blocks overlap (requested > live)
};

// pre: every block has size >= 1, first_frame < end_frame <= frames; frames >= 1; max_bins >= 1.
HeapMap build_heap_map(std::span<const HeapMapBlockAt> blocks, unsigned frames, unsigned max_bins = kHeapMapMaxBins);

// The record's `heap_map` field (results/README.md).  pre: op_index.size() == map.frames.
nlohmann::json heap_map_json(const HeapMap& map, const std::vector<std::uint64_t>& op_index);

// At most this many spans are listed (the largest, in address order); `spans_total` counts all.
inline constexpr std::size_t kHeapMapListedSpans = 256;

}  // namespace allocstress
