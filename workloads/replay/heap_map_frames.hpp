// Which block lifetimes of a replay program are live at each frame of a heap map: N points evenly
// spaced over the trace's merged (recorded) order, and the blocks live at one of them at least.
// Built with the program (the cell's `prepare`), saved beside it, and read by the replay cell
// after its measured phase, which then looks the blocks' addresses up in its slot table
// (cells/traces/heap_map.hpp bins them).  Blocks born and dead between two frames are not listed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "workloads/replay/replay_program.hpp"

namespace allocstress {

inline constexpr unsigned kHeapMapMinFrames = 2, kHeapMapMaxFrames = 1000;

// One block lifetime, live in frames [first_frame, end_frame).
struct HeapMapBlock {
  std::uint64_t size;
  std::uint32_t slot;
  std::uint16_t first_frame, end_frame;
};
static_assert(sizeof(HeapMapBlock) == 16);

struct HeapMapFrames {
  std::vector<std::uint64_t> op_index;  // frame k is taken after op op_index[k] of the merged order
  std::vector<HeapMapBlock> blocks;     // by slot
};

// Frame k follows op ceil((k + 1) * ops / frames) - 1, so the last frame is the end of the trace.
// pre: program built with slot spans; kHeapMapMinFrames <= frames <= kHeapMapMaxFrames.
HeapMapFrames heap_map_frames(const ReplayProgram& program, unsigned frames);

// Writes the frames (NAME.partial, then renamed).  Throws std::runtime_error.
void save_heap_map_frames(const HeapMapFrames& frames, const std::filesystem::path& path);
// Throws std::runtime_error naming the file when it is not one save_heap_map_frames wrote.
HeapMapFrames load_heap_map_frames(const std::filesystem::path& path);

}  // namespace allocstress
