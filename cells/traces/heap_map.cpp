// Binning live blocks into a heap map (see heap_map.hpp).
#include "cells/traces/heap_map.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

namespace allocstress {

namespace {

// The covered length of a union of intervals under additions and removals: a segment tree over
// the sorted distinct interval ends (the area-of-union sweep).
class Coverage {
 public:
  explicit Coverage(std::vector<std::uint64_t> ends) : xs_(std::move(ends)) {
    std::sort(xs_.begin(), xs_.end());
    xs_.erase(std::unique(xs_.begin(), xs_.end()), xs_.end());
    n_ = xs_.size() > 1 ? xs_.size() - 1 : 0;
    count_.assign(4 * n_ + 4, 0);
    length_.assign(4 * n_ + 4, 0);
  }
  // pre: from and to are among the ends given.
  void add(std::uint64_t from, std::uint64_t to, int delta) {
    if (from >= to) return;
    update(1, 0, n_, index(from), index(to), delta);
  }
  std::uint64_t covered() const { return n_ == 0 ? 0 : length_[1]; }

 private:
  std::size_t index(std::uint64_t x) const { return std::size_t(std::lower_bound(xs_.begin(), xs_.end(), x) - xs_.begin()); }
  void update(std::size_t node, std::size_t lo, std::size_t hi, std::size_t l, std::size_t r, int delta) {
    if (r <= lo || hi <= l) return;
    if (l <= lo && hi <= r) {
      count_[node] += delta;
    } else {
      const std::size_t mid = (lo + hi) / 2;
      update(2 * node, lo, mid, l, r, delta);
      update(2 * node + 1, mid, hi, l, r, delta);
    }
    length_[node] = count_[node] > 0 ? xs_[hi] - xs_[lo] : hi - lo == 1 ? 0 : length_[2 * node] + length_[2 * node + 1];
  }
  std::vector<std::uint64_t> xs_;
  std::size_t n_ = 0;
  std::vector<int> count_;
  std::vector<std::uint64_t> length_;
};

std::uint64_t block_end(const HeapMapBlockAt& b) { return b.address + b.size; }
std::uint64_t page_down(std::uint64_t a) { return a & ~(kHeapMapPageBytes - 1); }
std::uint64_t page_up(std::uint64_t a) { return page_down(a + kHeapMapPageBytes - 1); }

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t b1 = i + 1 < bytes.size() ? bytes[i + 1] : 0u, b2 = i + 2 < bytes.size() ? bytes[i + 2] : 0u;
    const std::uint32_t n = (std::uint32_t(bytes[i]) << 16) | (b1 << 8) | b2;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

}  // namespace

HeapMap build_heap_map(std::span<const HeapMapBlockAt> blocks, unsigned frames, unsigned max_bins) {
  HeapMap map;
  map.frames = frames;
  map.requested_bytes.assign(frames, 0);
  map.live_bytes.assign(frames, 0);
  map.spanned_bytes.assign(frames, 0);

  // The touched chunks, as runs of adjacent chunks (spans), densely numbered in address order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [first chunk, last chunk] of each block
  ranges.reserve(blocks.size());
  for (const HeapMapBlockAt& b : blocks) ranges.emplace_back(b.address / kHeapMapChunkBytes, (block_end(b) - 1) / kHeapMapChunkBytes);
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::uint64_t> run_first, run_last;  // chunk numbers
  for (const auto& [first, last] : ranges) {
    if (!run_first.empty() && first <= run_last.back() + 1) {
      run_last.back() = std::max(run_last.back(), last);
    } else {
      run_first.push_back(first);
      run_last.push_back(last);
    }
  }
  std::vector<std::uint64_t> run_dense(run_first.size());
  for (std::size_t i = 0; i < run_first.size(); ++i) {
    run_dense[i] = map.chunks;
    map.spans.push_back({run_first[i] * kHeapMapChunkBytes, run_last[i] - run_first[i] + 1, map.chunks});
    map.chunks += run_last[i] - run_first[i] + 1;
  }
  map.chunks_per_bin = std::max<std::uint64_t>(1, (map.chunks + max_bins - 1) / max_bins);
  map.bins = unsigned((map.chunks + map.chunks_per_bin - 1) / map.chunks_per_bin);
  for (unsigned b = 0; b < map.bins; ++b)
    map.bin_bytes.push_back(std::min(map.chunks_per_bin, map.chunks - b * map.chunks_per_bin) * kHeapMapChunkBytes);

  // Live bytes per (frame, bin) and requested bytes per frame: differences over frames, summed.
  std::vector<std::int64_t> diff(std::size_t(frames + 1) * map.bins, 0);
  std::vector<std::int64_t> requested(frames + 1, 0);
  for (const HeapMapBlockAt& b : blocks) {
    requested[b.first_frame] += std::int64_t(b.size);
    requested[b.end_frame] -= std::int64_t(b.size);
    const std::uint64_t first = b.address / kHeapMapChunkBytes, last = (block_end(b) - 1) / kHeapMapChunkBytes;
    const std::size_t run = std::size_t(std::upper_bound(run_first.begin(), run_first.end(), first) - run_first.begin()) - 1;
    for (std::uint64_t c = first; c <= last; ++c) {
      const std::uint64_t from = std::max(b.address, c * kHeapMapChunkBytes), to = std::min(block_end(b), (c + 1) * kHeapMapChunkBytes);
      const std::size_t bin = std::size_t((run_dense[run] + c - run_first[run]) / map.chunks_per_bin);
      diff[std::size_t(b.first_frame) * map.bins + bin] += std::int64_t(to - from);
      diff[std::size_t(b.end_frame) * map.bins + bin] -= std::int64_t(to - from);
    }
  }
  map.live_fraction.assign(std::size_t(frames) * map.bins, 0.0);
  std::vector<std::int64_t> in_bin(map.bins, 0);
  std::int64_t requested_now = 0;
  for (unsigned k = 0; k < frames; ++k) {
    requested_now += requested[k];
    map.requested_bytes[k] = std::uint64_t(requested_now);
    for (unsigned bin = 0; bin < map.bins; ++bin) {
      in_bin[bin] += diff[std::size_t(k) * map.bins + bin];
      map.live_fraction[std::size_t(k) * map.bins + bin] = std::min(1.0, double(in_bin[bin]) / double(map.bin_bytes[bin]));
    }
  }

  // Live and spanned bytes per frame: the union of the live blocks (and of their pages), swept over frames.
  std::vector<std::uint64_t> byte_ends, page_ends;
  for (const HeapMapBlockAt& b : blocks) {
    byte_ends.insert(byte_ends.end(), {b.address, block_end(b)});
    page_ends.insert(page_ends.end(), {page_down(b.address), page_up(block_end(b))});
  }
  Coverage bytes(std::move(byte_ends)), pages(std::move(page_ends));
  std::vector<std::size_t> by_first(blocks.size()), by_end(blocks.size());
  std::iota(by_first.begin(), by_first.end(), 0);
  std::iota(by_end.begin(), by_end.end(), 0);
  std::sort(by_first.begin(), by_first.end(), [&](std::size_t a, std::size_t b) { return blocks[a].first_frame < blocks[b].first_frame; });
  std::sort(by_end.begin(), by_end.end(), [&](std::size_t a, std::size_t b) { return blocks[a].end_frame < blocks[b].end_frame; });
  std::size_t born = 0, dead = 0;
  for (unsigned k = 0; k < frames; ++k) {
    for (; dead < by_end.size() && blocks[by_end[dead]].end_frame <= k; ++dead) {
      const HeapMapBlockAt& b = blocks[by_end[dead]];
      bytes.add(b.address, block_end(b), -1);
      pages.add(page_down(b.address), page_up(block_end(b)), -1);
    }
    for (; born < by_first.size() && blocks[by_first[born]].first_frame <= k; ++born) {
      const HeapMapBlockAt& b = blocks[by_first[born]];
      bytes.add(b.address, block_end(b), +1);
      pages.add(page_down(b.address), page_up(block_end(b)), +1);
    }
    map.live_bytes[k] = bytes.covered();
    map.spanned_bytes[k] = pages.covered();
    if (map.requested_bytes[k] > map.live_bytes[k]) ++map.overlapped_frames;
  }
  return map;
}

nlohmann::json heap_map_json(const HeapMap& map, const std::vector<std::uint64_t>& op_index) {
  std::vector<std::uint8_t> levels(map.live_fraction.size());
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const double f = map.live_fraction[i];
    levels[i] = std::uint8_t(f <= 0 ? 0 : std::max(1.0, std::round(255 * f)));
  }
  nlohmann::json fragmentation = nlohmann::json::array();
  for (unsigned k = 0; k < map.frames; ++k)
    fragmentation.push_back(map.spanned_bytes[k] == 0 ? nlohmann::json(nullptr)
                                                      : nlohmann::json(1.0 - double(map.live_bytes[k]) / double(map.spanned_bytes[k])));
  // The largest spans, listed in address order.
  std::vector<std::size_t> listed(map.spans.size());
  std::iota(listed.begin(), listed.end(), 0);
  if (listed.size() > kHeapMapListedSpans) {
    std::stable_sort(listed.begin(), listed.end(), [&](std::size_t a, std::size_t b) { return map.spans[a].chunks > map.spans[b].chunks; });
    listed.resize(kHeapMapListedSpans);
    std::sort(listed.begin(), listed.end());
  }
  nlohmann::json spans = nlohmann::json::array();
  for (std::size_t i : listed)
    spans.push_back({hex(map.spans[i].address), map.spans[i].chunks * kHeapMapChunkBytes, map.spans[i].first_chunk});
  return {{"frames", map.frames},
          {"op_index", op_index},
          {"chunk_bytes", kHeapMapChunkBytes},
          {"chunks", map.chunks},
          {"chunks_per_bin", map.chunks_per_bin},
          {"bins", map.bins},
          {"spans_total", map.spans.size()},
          {"spans_columns", {"address", "bytes", "first_chunk"}},
          {"spans", spans},
          {"live_fraction", base64(levels)},
          {"live_fraction_encoding", "base64 of frames x bins bytes, frame by frame; byte = round(255 x fraction), at least 1 when any byte is live"},
          {"requested_bytes", map.requested_bytes},
          {"live_bytes", map.live_bytes},
          {"spanned_bytes", map.spanned_bytes},
          {"fragmentation", fragmentation},
          {"overlapped_frames", map.overlapped_frames}};
}

}  // namespace allocstress
