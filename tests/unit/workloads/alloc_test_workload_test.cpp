// The alloc-test loop: the operation stream depends only on (parameters, seed, thread), never on
// the allocator; counts and live bytes are exact; parameters are validated with clear messages.
#include "workloads/alloc_test.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "allocators/process_malloc_allocator.hpp"
#include "allocators/void_allocator.hpp"
#include "../support/checked_malloc_allocator.hpp"
#include "../support/workload_streams.hpp"

namespace allocstress {
namespace {

// An allocator that records (and checks) every request, to compare streams op by op.
using RecordingAllocator = testing::CheckedMallocAllocator;

template <class A>
AllocTestThreadOutcome run(A& alloc, std::uint64_t seed, std::uint64_t iterations = 200'000,
                           MemoryAccess access = MemoryAccess::write_read, std::size_t slots = 4096) {
  std::vector<Slot> slot_array(slots, Slot{nullptr, 0});
  ParetoSlotPicker picker(slots);
  InverseSizeSampler sizes(12);
  WorkloadRng rng = make_thread_rng(seed, 0);
  auto out = run_alloc_test_thread(alloc, std::span<Slot>(slot_array), picker, sizes, rng, iterations, access);
  release_all_slots(alloc, std::span<Slot>(slot_array));
  return out;
}

TEST(AllocTestWorkload, SameSeedSameOperationStreamOnEveryAllocator) {
  VoidAllocator v(1u << 12);
  ProcessMallocAllocator m(1u << 12);
  const auto a = run(v, 42), b = run(m, 42);
  testing::expect_same_stream(a, b);
}

TEST(AllocTestWorkload, StreamDoesNotDependOnMemoryAccessMode) {
  ProcessMallocAllocator m(1u << 12);
  EXPECT_EQ(run(m, 9, 50'000, MemoryAccess::none).op_stream_hash, run(m, 9, 50'000, MemoryAccess::write_read).op_stream_hash);
}

TEST(AllocTestWorkload, DifferentSeedsGiveDifferentStreams) {
  ProcessMallocAllocator m(1u << 12);
  EXPECT_NE(run(m, 1).op_stream_hash, run(m, 2).op_stream_hash);
  WorkloadRng t0 = make_thread_rng(1, 0), t1 = make_thread_rng(1, 1);
  EXPECT_NE(t0(), t1());  // threads of one run draw different streams
}

TEST(AllocTestWorkload, SeedZeroIsNotDegenerate) {
  RecordingAllocator r(0);
  run(r, 0, 100'000);
  std::map<std::size_t, int> distinct;
  for (auto s : r.sizes) distinct[s]++;
  EXPECT_GT(distinct.size(), 100u);  // the public alloc-test got stuck on one 5-byte block
}

TEST(AllocTestWorkload, CountsAndLiveBytesAreExact) {
  RecordingAllocator r(0);
  const auto out = run(r, 5, 100'000);
  EXPECT_EQ(out.mallocs + out.frees, 100'000u);
  std::uint64_t allocated = 0;
  for (auto s : r.sizes) allocated += s;
  std::uint64_t freed_in_loop = 0;
  for (std::size_t i = 0; i < out.frees; ++i) freed_in_loop += r.free_sizes[i];
  EXPECT_EQ(allocated - freed_in_loop, out.end_live_requested_bytes);
  EXPECT_GE(out.peak_live_requested_bytes, out.end_live_requested_bytes);
  EXPECT_EQ(r.sizes.size(), out.mallocs);
  EXPECT_EQ(r.free_sizes.size(), out.mallocs);  // in-loop frees plus release_all_slots
}

TEST(AllocTestWorkload, ReadBackSeesWhatWasWritten) {
  // A block of n bytes filled with byte b reads back as n * b.
  std::vector<unsigned char> block(37, 3);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i + 8 <= block.size(); i += 8) sum += 0x0303030303030303ULL;
  sum += 5 * 3;
  EXPECT_EQ(detail::read_block(block.data(), block.size()), sum);
}

// touch writes exactly one byte in every page a block spans, whatever its offset in the first page.
TEST(AllocTestWorkload, TouchWritesOneBytePerPageOfTheBlock) {
  std::vector<unsigned char> memory(6 * detail::kTouchStride);
  const auto base = reinterpret_cast<std::uintptr_t>(memory.data());
  const std::size_t aligned = (detail::kTouchStride - base % detail::kTouchStride) % detail::kTouchStride;  // first page start
  for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, detail::kTouchStride - 8})
    for (const std::size_t size : {std::size_t{1}, std::size_t{100}, detail::kTouchStride, 2 * detail::kTouchStride + 7}) {
      std::fill(memory.begin(), memory.end(), 0);
      unsigned char* block = memory.data() + aligned + offset;
      detail::write_block<MemoryAccess::touch>(block, size, 0x33);
      const std::size_t first_page = offset / detail::kTouchStride, last_page = (offset + size - 1) / detail::kTouchStride;
      for (std::size_t page = 0; page < 5; ++page) {
        std::size_t written = 0;
        for (std::size_t i = 0; i < detail::kTouchStride; ++i) written += memory[aligned + page * detail::kTouchStride + i] == 0x33;
        EXPECT_EQ(written, page >= first_page && page <= last_page ? 1u : 0u) << "offset " << offset << " size " << size << " page " << page;
      }
    }
  EXPECT_EQ(parse_memory_access("touch"), MemoryAccess::touch);
  EXPECT_EQ(to_string(MemoryAccess::touch), "touch");
}

TEST(AllocTestWorkload, ValidationNamesTheBadParameter) {
  AllocTestParams p;
  p.threads = 0;
  EXPECT_THROW(validate(p), std::invalid_argument);
  p = {};
  p.max_size_exp = 40;
  try {
    validate(p);
    FAIL() << "E = 40 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("3..28"), std::string::npos) << e.what();
  }
  p = {};
  p.slots_total = 100;
  p.threads = 2;
  EXPECT_THROW(validate(p), std::invalid_argument);
  p = {};
  p.iterations_per_thread = 0;
  EXPECT_THROW(validate(p), std::invalid_argument);
  EXPECT_THROW(parse_memory_access("sometimes"), std::invalid_argument);
  EXPECT_EQ(parse_memory_access("write+read"), MemoryAccess::write_read);
}

}  // namespace
}  // namespace allocstress
