// libFuzzer target for the replay workload's binary inputs (workloads/replay/): the replay
// program (replay_program.hpp: built from the trace by the cell's `prepare`, saved, then mapped by
// the replay cell, which runs its ops as they are) and the heap-map frames saved beside it
// (heap_map_frames.hpp).  Each input is read as both.
//
// Contract: MappedReplayProgram(path) on any bytes either maps a program or throws
// std::runtime_error ("not a program written by save_replay_program").  A mapped program is one
// the replay can run (replay_loop.hpp trusts it): every span lies inside the file and is aligned
// for its type, every op is of a known kind, every slot an op or a live block names is below
// slots(), and alignments are at most 2^40 (what the builder writes).  load_heap_map_frames(path)
// either returns frames or throws std::runtime_error; what it returns has at most
// kHeapMapMaxFrames frames and every block lives in frames [first_frame, end_frame) within them.
// Any other exception, a crash, a sanitizer report, a leak, a timeout or an allocation beyond
// libFuzzer's limit is a finding.
#include "tests/fuzz/fuzz_common.hpp"
#include "workloads/replay/heap_map_frames.hpp"
#include "workloads/replay/replay_program.hpp"

namespace {

using namespace allocstress;

constexpr unsigned kMaxAlignLog2 = 40;

template <class T>
void require_aligned(std::span<const T> s, const char* what) {
  fuzz::require(reinterpret_cast<std::uintptr_t>(s.data()) % alignof(T) == 0, std::string(what) + " are not aligned for their type");
}

void check_program(const MappedReplayProgram& program) {
  const std::uint32_t slots = program.slots();
  for (const MappedReplayProgram::Thread& t : program.threads()) {
    require_aligned(t.ops, "ops");
    require_aligned(t.samples, "sample points");
    require_aligned(t.live_at_end, "live blocks");
    for (const ReplayOp& op : t.ops) {
      fuzz::require(op.kind <= ReplayOpKind::reallocate, "an op of unknown kind " + std::to_string(unsigned(op.kind)));
      fuzz::require(op.slot < slots, "an op names slot " + std::to_string(op.slot) + " of " + std::to_string(slots));
      fuzz::require(op.kind != ReplayOpKind::reallocate || op.old_slot < slots, "a realloc consumes slot " + std::to_string(op.old_slot) + " of " + std::to_string(slots));
      fuzz::require(op.align_log2 <= kMaxAlignLog2 && op.old_align_log2 <= kMaxAlignLog2, "an op's alignment is beyond 2^40");
    }
    for (const ReplayLiveBlock& b : t.live_at_end) {
      fuzz::require(b.slot < slots, "a live block names slot " + std::to_string(b.slot) + " of " + std::to_string(slots));
      fuzz::require(b.align_log2 <= kMaxAlignLog2, "a live block's alignment is beyond 2^40");
    }
    std::uint64_t sum = 0;  // every sample point read, as the sampler does
    for (const ReplaySamplePoint& s : t.samples) sum += s.local_index + s.global_index + s.used_bytes;
    (void)sum;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::filesystem::path path = fuzz::input_file(data, size, "replay-program.bin");
  fuzz::within_contract<std::runtime_error>("MappedReplayProgram", [&] {
    const MappedReplayProgram program(path);
    fuzz::within_contract<>("a mapped program", [&] { check_program(program); });
  });
  HeapMapFrames frames;
  if (!fuzz::within_contract<std::runtime_error>("load_heap_map_frames", [&] { frames = load_heap_map_frames(path); })) return 0;
  fuzz::require(frames.op_index.size() <= kHeapMapMaxFrames, "more frames than kHeapMapMaxFrames");
  for (const HeapMapBlock& b : frames.blocks)
    fuzz::require(b.first_frame < b.end_frame && b.end_frame <= frames.op_index.size(), "a block's frames are out of range");
  return 0;
}
