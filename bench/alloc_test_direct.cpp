// The allocation-heavy program of bench/trace_overhead.py: the alloc-test workload
// (workloads/alloc_test.hpp, the same loop `allocstress run` measures) on the process's own
// malloc, in this process.  `allocstress run --allocator system` cannot be used to time a
// tracer: it removes any LD_PRELOAD before a system cell runs.
//   alloc_test_direct THREADS ITERATIONS SLOTS MAX_SIZE_EXP ACCESS
// ITERATIONS per thread, SLOTS split across threads, sizes p ~ 1/size below 2^MAX_SIZE_EXP,
// ACCESS none|touch|write|write_read (write_read: every block written whole and read back, as in
// alloc-test; none: allocation calls only, the worst case for a tracer).
// Prints "calls N": the malloc and free calls made (teardown frees included), and the checksum
// of the blocks read back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

#include "allocators/process_malloc_allocator.hpp"
#include "workloads/alloc_test.hpp"

int main(int argc, char** argv) {
  using namespace allocstress;
  if (argc != 6) {
    std::fprintf(stderr, "usage: alloc_test_direct THREADS ITERATIONS SLOTS MAX_SIZE_EXP none|touch|write|write_read\n");
    return 2;
  }
  AllocTestParams params;
  try {
    params.threads = unsigned(std::stoul(argv[1]));
    params.iterations_per_thread = std::stoull(argv[2]);
    params.slots_total = std::stoull(argv[3]);
    params.max_size_exp = unsigned(std::stoul(argv[4]));
    params.access = parse_memory_access(argv[5]);
    validate(params);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "alloc_test_direct: error: %s\n", e.what());
    return 2;
  }
  const InverseSizeSampler sizes(params.max_size_exp);
  const ParetoSlotPicker picker(params.slots_per_thread());
  std::vector<std::uint64_t> calls(params.threads, 0), checksums(params.threads, 0);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < params.threads; ++t)
    workers.emplace_back([&, t] {
      ProcessMallocAllocator alloc(std::size_t(1) << params.max_size_exp);
      std::vector<Slot> slots(params.slots_per_thread(), Slot{nullptr, 0});
      WorkloadRng rng = make_thread_rng(params.seed, t);
      const AllocTestThreadOutcome out = run_alloc_test_thread(alloc, slots, picker, sizes, rng, params.iterations_per_thread, params.access);
      release_all_slots(alloc, std::span<Slot>(slots));
      calls[t] = out.mallocs + out.frees + (out.mallocs - out.frees);
      checksums[t] = out.read_checksum;  // printed: keeps the reads (and so the writes) live
    });
  for (auto& w : workers) w.join();
  std::uint64_t total = 0, checksum = 0;
  for (unsigned t = 0; t < params.threads; ++t) {
    total += calls[t];
    checksum += checksums[t];
  }
  std::printf("calls %llu\nchecksum %llu\n", static_cast<unsigned long long>(total), static_cast<unsigned long long>(checksum));
  return 0;
}
