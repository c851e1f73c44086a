// A replay program's heap-map frames and their file form (see heap_map_frames.hpp).
#include "workloads/replay/heap_map_frames.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "platform/durable_files.hpp"

namespace allocstress {

namespace {

constexpr char kFramesMagic[8] = {'A', 'S', 'H', 'E', 'A', 'P', 'M', '1'};

struct FramesHeader {
  char magic[8];
  std::uint64_t frames, blocks;
};

}  // namespace

HeapMapFrames heap_map_frames(const ReplayProgram& program, unsigned frames) {
  const std::uint64_t ops = program.stats.at("ops").get<std::uint64_t>();
  HeapMapFrames out;
  for (unsigned k = 0; k < frames; ++k) {
    const std::uint64_t after = ((std::uint64_t(k) + 1) * ops + frames - 1) / frames;  // ops done at frame k
    out.op_index.push_back(after == 0 ? 0 : after - 1);
  }
  // The first frame at or after merged-order op `at`.
  auto frame_at = [&](std::uint64_t at) {
    return std::uint16_t(std::lower_bound(out.op_index.begin(), out.op_index.end(), at) - out.op_index.begin());
  };
  for (std::size_t slot = 0; slot < program.slot_spans.size(); ++slot) {
    const ReplaySlotSpan& s = program.slot_spans[slot];
    const std::uint16_t first = frame_at(s.produced_at);
    const std::uint16_t end = s.consumed_at == ReplaySlotSpan::kNeverConsumed ? std::uint16_t(frames) : frame_at(s.consumed_at);
    if (first < end) out.blocks.push_back({s.size, std::uint32_t(slot), first, end});
  }
  return out;
}

void save_heap_map_frames(const HeapMapFrames& frames, const std::filesystem::path& path) {
  FramesHeader h{};
  std::memcpy(h.magic, kFramesMagic, sizeof h.magic);
  h.frames = frames.op_index.size();
  h.blocks = frames.blocks.size();
  write_through_partial(path, "the heap-map frames", [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(frames.op_index.data()), std::streamsize(frames.op_index.size() * sizeof(std::uint64_t)));
    out.write(reinterpret_cast<const char*>(frames.blocks.data()), std::streamsize(frames.blocks.size() * sizeof(HeapMapBlock)));
  });
}

HeapMapFrames load_heap_map_frames(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open the heap-map frames");
  FramesHeader h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  // (the block count bounded by the file's size before it is multiplied: found by fuzzing, a count
  // near 2^60 wrapped the size check around and the vector below asked for 2^64 bytes)
  const std::uint64_t head = sizeof h + h.frames * sizeof(std::uint64_t);  // frames: checked <= kHeapMapMaxFrames first
  if (!in || std::memcmp(h.magic, kFramesMagic, sizeof h.magic) != 0 || h.frames > kHeapMapMaxFrames || ec || bytes < head ||
      h.blocks > (bytes - head) / sizeof(HeapMapBlock) || bytes != head + h.blocks * sizeof(HeapMapBlock))
    throw std::runtime_error(path.string() + ": not a heap-map frames file written by allocstress");
  HeapMapFrames out;
  out.op_index.resize(h.frames);
  out.blocks.resize(h.blocks);
  in.read(reinterpret_cast<char*>(out.op_index.data()), std::streamsize(h.frames * sizeof(std::uint64_t)));
  in.read(reinterpret_cast<char*>(out.blocks.data()), std::streamsize(h.blocks * sizeof(HeapMapBlock)));
  if (!in) throw std::runtime_error(path.string() + ": the heap-map frames file is cut short");
  for (const HeapMapBlock& b : out.blocks)
    if (b.first_frame >= b.end_frame || b.end_frame > h.frames) throw std::runtime_error(path.string() + ": a heap-map block's frames are out of range");
  return out;
}

}  // namespace allocstress
